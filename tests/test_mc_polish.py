"""What a new user of the multiclass features met (issue 32, "mcpolish"): each fixed, each tested."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from perfeval.cli.main import main


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- float32 probabilities: scikit-learn's tolerance of the input's type ------------------------------------
def _float32_rows(seed=0, n=300, k=4, off=2e-5):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), size=n)
    p[:, 0] += off  # off by more than sqrt(eps) of float64 (1.5e-8), less than float32's (3.45e-4)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    return y, p.astype(np.float32)


@pytest.mark.parametrize(
    "name, kw",
    [("log_loss", {}), ("brier_score_loss", {}), ("roc_auc_score", {"multi_class": "ovr"})],
)
def test_float32_rows_are_checked_with_float32s_tolerance(name, kw):
    sk = pytest.importorskip("sklearn.metrics")
    import perfeval.functional as F

    # ROC's own check is np.allclose (rtol 1e-5) of the sums in the input's type
    y, p = _float32_rows(off=5e-6 if name == "roc_auc_score" else 2e-5)
    for mod in (sk, F):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = getattr(mod, name)(y, p, **kw)
        assert np.isfinite(got), mod
    # rows off by more than float32's tolerance: both warn (the losses) or both refuse (ROC)
    y, p = _float32_rows(off=1e-3)
    if name == "roc_auc_score":
        for mod in (sk, F):
            with pytest.raises(ValueError, match="sum up to 1.0 over classes"):
                getattr(mod, name)(y, p, **kw)
        return
    for mod in (sk, F):
        with pytest.warns(UserWarning, match="do not sum to one"):
            getattr(mod, name)(y, p, **kw)


# -- Metric(classes=): merges of unweighted batches with ties at the argmax are bit for bit ----------------
def test_merged_metrics_with_three_way_ties_give_evaluates_bits():
    """docs/metric.md: ties at the argmax among 3+ classes no longer break merges' bits."""
    import perfeval

    rng = np.random.default_rng(1)
    k, n = 4, 600
    s = rng.integers(0, 3, size=(n, k)).astype(float)  # many rows tied 3 and 4 ways at the max
    y = rng.integers(0, k, size=n)
    assert ((s == s.max(axis=1, keepdims=True)).sum(axis=1) >= 3).sum() > 50
    measures = ["acc", "bacc", "f1", "mcc", "kappa", "qwk", "roc", "roc_ovo", "topk_acc@2"]
    whole = perfeval.evaluate(y, s, classes=list(range(k)), measures=measures)
    parts = []
    for a, b in ((0, 97), (97, 300), (300, 451), (451, 600)):
        m = perfeval.Metric(measures, classes=list(range(k)))
        m.update(y[a:b], s[a:b])
        parts.append(m)
    merged = perfeval.Metric(measures, classes=list(range(k)))
    for p in (parts[2], parts[0], parts[3], parts[1]):
        merged.merge(p)
    got = merged.compute()
    for label, r in whole.results.items():
        assert got[label] == r.value, label


# -- a class's score column left out of --score -----------------------------------------------------------
def _animals(tmp_path, name="a.csv"):
    f = tmp_path / name
    rng = np.random.default_rng(3)
    labels = ["bird", "cat", "dog", "fish", "horse"]
    rows = ["label,bird,cat,dog,fish,horse"]
    for i in range(60):
        p = rng.dirichlet(np.ones(5))
        y = labels[i % 4] if i != 7 else "horse"  # the first horse on line 9
        rows.append(y + "," + ",".join(f"{v:.6f}" for v in p))
    f.write_text("\n".join(rows) + "\n")
    return f


@pytest.mark.parametrize("stream", [False, True])
def test_a_target_without_its_score_column_is_named_with_its_line(tmp_path, capsys, stream):
    f = _animals(tmp_path)
    argv = ["eval", str(f), "--target", "label", "--score", "bird,cat,dog,fish", "-m", "roc"]
    code, out, err = run(argv + (["--stream"] if stream else []), capsys)
    assert code == 1 and out == ""
    assert err == (
        f"perfeval: error: {f}, line 9: the target 'horse' in column 'label' has no score column among "
        "those --score names (bird, cat, dog, fish): the score columns are named after the classes, one a "
        "class (add its column to --score, or name the columns' classes with --classes)\n"
    )


# -- a binary name with a parameter only its form for K classes has -----------------------------------------
def _three(seed=5, n=90):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    s = rng.dirichlet(np.ones(3), size=n)
    return y, s


def test_binary_names_with_a_multiclass_parameter_are_the_multiclass_form():
    import perfeval

    y, s = _three()
    r = perfeval.evaluate(y, s, measures=["roc:average=weighted", "f1:average=micro", "f1:beta=2"])
    want = perfeval.evaluate(y, s, measures=["roc_ovr:average=weighted", "f_mc:average=micro", "f_mc:beta=2"])
    assert list(r.results) == ["ROC_OVR:average=weighted", "F_MC:average=micro", "F_MC:beta=2,average=macro"]
    assert [v.value for v in r.results.values()] == [v.value for v in want.results.values()]
    m = perfeval.Metric(["roc:average=weighted"], classes=[0, 1, 2])
    m.update(y, s)
    assert m.compute()["ROC_OVR:average=weighted"] == want.results["ROC_OVR:average=weighted"].value


def test_a_multiclass_parameter_of_a_binary_name_on_one_score_column_is_one_line():
    import perfeval
    from perfeval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as e:
        perfeval.evaluate([0, 1, 1, 0], [0.1, 0.2, 0.3, 0.4], measures=["roc:average=weighted"])
    assert str(e.value) == (
        "measure ROC has no parameter 'average' (parameters: none); its forms with it: "
        "roc_ovr:average=weighted (of K classes), roc_ml:average=weighted (of K labels)"
    )
    with pytest.raises(InvalidParameterError, match="measure ROC has no parameter 'beta'"):
        perfeval.evaluate(*_three(), measures=["roc:beta=2"])  # no form has it: as ever


def test_cli_binary_names_with_a_multiclass_parameter(tmp_path, capsys):
    f = _animals(tmp_path)
    base = ["eval", str(f), "--target", "label", "--score", "bird,cat,dog,fish,horse", "--format", "json"]
    code, out, err = run([*base, "-m", "roc:average=weighted,f1:beta=2"], capsys)
    assert code == 0, err
    got = json.loads(out)["measures"]
    code, out2, err = run([*base, "-m", "roc_ovr:average=weighted,f_mc:beta=2"], capsys)
    want = json.loads(out2)["measures"]
    assert [got[k]["value"] for k in ("ROC_OVR:average=weighted", "F_MC:beta=2,average=macro")] == [
        want[k]["value"] for k in ("ROC_OVR:average=weighted", "F_MC:beta=2,average=macro")
    ]
    one = ["eval", str(f), "--target", "label", "--score", "bird", "--pos-label", "bird"]
    code, out, err = run([*one, "-m", "roc:average=weighted"], capsys)
    assert (
        code == 2 and out == "" and err.startswith("perfeval: error: measure ROC has no parameter 'average'")
    )
    assert "roc_ovr:average=weighted (of K classes)" in err and err.count("\n") == 1


# -- integer classes: predict_proba columns named 0, 1, 2, ... ----------------------------------------------
def _int_classes(tmp_path):
    """pandas' predict_proba of integer classes: columns named 0..4 (and p_0..p_4), targets 0..4."""
    rng = np.random.default_rng(11)
    f = tmp_path / "int.csv"
    head = ["label"] + [x for c in range(5) for x in (str(c), f"p_{c}")]
    rows = [",".join(head)]
    for i in range(80):
        p = rng.dirichlet(np.ones(5))
        rows.append(f"{(i * 3) % 5}," + ",".join(f"{float(v)!r},{float(v)!r}" for v in p))
    f.write_text("\n".join(rows) + "\n")
    return f


def test_digit_column_names_are_names_when_the_target_is_named(tmp_path, capsys):
    f = _int_classes(tmp_path)
    base = ["eval", str(f), "--target", "label", "-m", "roc,acc", "--format", "json"]
    code, out, err = run([*base, "--score", "0,1,2,3,4"], capsys)
    assert code == 0, err
    assert err == (
        f"perfeval: note: line 1 of {f} is the header: it holds --target's name 'label'\n"
        "perfeval: note: --score 0,1,2,3,4 (columns 2, 4, 6, 8, 10): the header's column names, not "
        "positions (columns are named by name here, so a number that is exactly a header name is that "
        "column)\n"
    )
    got = json.loads(out)
    assert got["params"]["classes"] == [0, 1, 2, 3, 4]
    code, out2, err2 = run([*base, "--score-prefix", "p_"], capsys)
    assert code == 0, err2
    want = json.loads(out2)
    assert {k: v["value"] for k, v in got["measures"].items()} == {
        k: v["value"] for k, v in want["measures"].items()
    }
    # --header given: the same columns, said
    code, out3, err3 = run([*base, "--header", "--score", "0,1,2,3,4"], capsys)
    assert code == 0 and json.loads(out3)["measures"] == got["measures"] and "--score 0,1,2,3,4" in err3


def test_numbers_that_are_not_all_header_names_stay_positions(tmp_path, capsys):
    from perfeval.io.columns import choose

    names = ["label", "0", "1", "2"]
    c = choose(names, "f.csv", header=True, target="label", score="2,3,4", several_scores=True)
    assert [s.index for s in c.scores] == [1, 2, 3] and c.numbers_as_names() == ""
    c = choose(names, "f.csv", header=True, target="label", score="0,1,2", several_scores=True)
    assert [s.index for s in c.scores] == [1, 2, 3] and "--score 0,1,2" in c.numbers_as_names()
    c = choose(names, "f.csv", header=True, target="1", score="2,3,4", several_scores=True)
    assert c.target.index == 0  # no column named by a name: numbers are positions, as ever


# -- output polish -------------------------------------------------------------------------------------------
def test_per_class_table_names_the_measure_without_its_average(tmp_path, capsys):
    f = _animals(tmp_path)
    argv = ["eval", str(f), "--target", "label", "--score", "bird,cat,dog,fish,horse"]
    code, out, err = run([*argv, "-m", "roc,roc:average=weighted,f1:beta=2"], capsys)
    assert code == 0, err
    per = out.split("per class:\n")[1].split("\n")
    assert per[0].split() == ["class", "ROC_OVR", "F_MC:beta=2", "support"]


def test_json_confusion_is_integers_without_weights(tmp_path, capsys):
    f = _animals(tmp_path)
    argv = ["eval", str(f), "--target", "label", "--score", "bird,cat,dog,fish,horse", "-m", "acc"]
    code, out, err = run([*argv, "--confusion", "--format", "json"], capsys)
    assert code == 0, err
    m = json.loads(out)["confusion"]["matrix"]
    assert all(type(v) is int for row in m for v in row) and sum(map(sum, m)) == 60


def test_confusion_of_one_score_column_is_refused(tmp_path, capsys):
    f = _animals(tmp_path)
    argv = ["eval", str(f), "--target", "label", "--score", "bird", "--pos-label", "bird", "--confusion"]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("perfeval: error: --confusion prints the confusion matrix of K classes")


def test_the_list_of_multiclass_measures_is_the_registrys():
    import perfeval
    from perfeval.exceptions import InvalidParameterError
    from perfeval.measures.base import REGISTRY

    with pytest.raises(InvalidParameterError) as e:
        perfeval.evaluate(*_three(), measures=["ndcg"])
    listed = str(e.value).split("the multiclass measures: ")[1].split(" (")[0].split(", ")
    assert sorted(listed) == sorted(m.name for m in REGISTRY if m.kind == "multiclass")
    assert "TOPK_ACC" in listed and "QWK" in listed


def test_printing_a_report_of_k_classes_says_the_classes_and_how_found():
    import perfeval

    y, s = _three()
    text = str(perfeval.evaluate(np.array(["a", "b", "c"])[y], s, classes=["a", "b", "c"], measures=["roc"]))
    assert text.split("\n")[-1] == "classes (3): a, b, c (from classes=)"
    assert repr(perfeval.evaluate(y, s, measures=["roc"])) == str(perfeval.evaluate(y, s, measures=["roc"]))
