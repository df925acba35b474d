"""Issue 33: class-wise ECE of K classes against the binary row reference on each column; top-label
ECE against its row reference and torchmetrics' multiclass_calibration_error (the fixture)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from test_calibration_binary import ref_bins, ref_ece


def _value(y, P, spec, w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (r,) = perfeval.evaluate(y, P, sample_weight=w, measures=[spec]).results.values()
    return r


@pytest.mark.parametrize("seed", range(12))
def test_classwise_ece_is_the_mean_of_each_columns_binary_ece(seed):
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(5, 80)), int(rng.integers(3, 6))
    P = np.round(rng.dirichlet(np.ones(K), n), 1)  # few decimals: ties in every column
    y = np.array([rng.integers(0, K) for _ in range(n)])
    y[:K] = np.arange(K)  # every class present
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else np.ones(n)
    for bins, B, norm in (("width", 10, "l1"), ("mass", 4, "l2"), ("width", 5, "max")):
        r = _value(y, P, f"ece_cw:bins={bins},n_bins={B},norm={norm}", w)
        per = [ref_ece((y == j).astype(float), P[:, j], w, bins, B, norm) for j in range(K)]
        assert r.per_class.tolist() == pytest.approx(per, rel=1e-12, abs=1e-15)
        assert r.value == pytest.approx(np.mean(per), rel=1e-12, abs=1e-15)


def test_classwise_ece_of_no_probabilities_is_nan_with_the_reason():
    r = _value([0, 1, 2], [[0.5, 0.3, 0.2], [0.1, 1.7, 0.2], [0.2, 0.2, 0.6]], "ece_cw")
    assert math.isnan(r.value) and "outside [0, 1]" in r.why


# -- top-label ECE (issue 33, part calib2) ------------------------------------------------------------------
def top_label_rows(y, P, argmax=None):
    """Each row's confidence and how right its argmax is, one row at a time: 1/t of a row tied at its
    maximum among t classes when its true class is one of them (``argmax``: another tool's choice of
    one class among the tied, right or wrong whole).
    """
    conf, right = [], []
    for i, row in enumerate(P):
        top = max(row)
        tied = [j for j, v in enumerate(row) if v == top]
        conf.append(top)
        if argmax is None:
            right.append((y[i] in tied) / len(tied))
        else:
            right.append(float(argmax[i] == y[i]))
    return np.array(right), np.array(conf)


@pytest.mark.parametrize("seed", range(12))
def test_top_label_ece_equals_the_row_reference(seed):
    rng = np.random.default_rng(100 + seed)
    n, K = int(rng.integers(5, 80)), int(rng.integers(3, 6))
    P = np.round(rng.dirichlet(np.ones(K), n), 1)  # few decimals: rows tied at their maximum
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else np.ones(n)
    right, conf = top_label_rows(y, P)
    for bins, B, norm in (("width", 10, "l1"), ("mass", 4, "l2"), ("width", 5, "max"), ("mass", 3, "l1")):
        got = _value(y, P, f"ece_top:bins={bins},n_bins={B},norm={norm}", w).value
        assert got == pytest.approx(ref_ece(right, conf, w, bins, B, norm), rel=1e-12, abs=1e-15)
    got = _value(y, P, "ece_top:norm=l2,debiased=yes,n_bins=6", w).value
    assert got == pytest.approx(ref_ece(right, conf, w, "width", 6, "l2", True), rel=1e-12, abs=1e-15)


def test_top_label_ece_of_two_classes_without_ties_is_the_binary_ece_of_the_confidence():
    rng = np.random.default_rng(4)
    p1 = rng.random(50)
    P = np.c_[1 - p1, p1]
    y = (rng.random(50) < p1).astype(int)
    conf, right = P.max(axis=1), (P.argmax(axis=1) == y).astype(float)
    r = perfeval.evaluate(y, P, classes=[0, 1], measures=["ece_top"])  # two columns: K classes when named
    assert r["ECE_TOP"] == _value(right, conf, "ece", None).value


def test_top_label_ece_edges_say_why():
    r = _value([0, 1, 2], [[0.5, 0.3, 0.2], [0.1, 1.7, 0.2], [0.2, 0.2, 0.6]], "ece_top")
    assert math.isnan(r.value) and "outside [0, 1]" in r.why
    # debiased=yes with norm l1 or max: refused when the spec is read, as ECE's (Measure.check), one
    # line naming the spec, before any data is read
    for spec in (
        "ece_top:debiased=yes",
        "ece_top:debiased=yes,norm=max",
        "multiclass_calibration_error:debiased=yes",
    ):
        with pytest.raises(perfeval.InvalidParameterError, match="give norm=l2 with debiased=yes, got norm="):
            perfeval.measures.parse_measure(spec)
        with pytest.raises(perfeval.InvalidParameterError, match="give norm=l2"):
            perfeval.evaluate([0, 1, 2], np.eye(3), classes=[0, 1, 2], measures=[spec])
    with pytest.raises(perfeval.InvalidParameterError, match="whole-number weights"):
        perfeval.evaluate(
            [0, 1, 2],
            np.eye(3),
            classes=[0, 1, 2],
            sample_weight=[0.5, 1, 1],
            measures=["ece_top:debiased=yes,norm=l2"],
        )
    assert perfeval.measures.parse_measure("multiclass_calibration_error").measure.name == "ECE_TOP"


MC = json.loads((Path(__file__).resolve().parent / "oracles" / "fixtures" / "calibration.json").read_text())[
    "multiclass"
]


def torch_top_label(y, P, case):
    """torchmetrics' top-label ECE's rules, row by row: its confidences rounded to float32
    (``confidences.float()``) and binned against float32 linspace edges, a tied row right or wrong by
    torch.max's choice of one tied class, an extra bin for a confidence of 1.0.
    """
    right, conf = top_label_rows(y, P, argmax=case["torch_argmax"])
    return right, conf.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("case", MC, ids=[c["name"] for c in MC])
def test_top_label_ece_is_torchmetrics_multiclass_calibration_error_but_for_its_rules(case):
    """torchmetrics' multiclass_calibration_error is the row reference with ITS rules
    (:func:`torch_top_label`; its float32 sums: within 1e-5).  Where no row ties at its maximum, no
    confidence is 1.0 and the float32 confidences fall in the bins of the float64 ones, perfeval's value
    is torchmetrics' but for the float32 rounding of the confidences (within 1e-5 too).
    """
    y, P, B = np.array(case["y"]), np.array(case["p"]), case["n_bins"]
    w = np.ones(len(y))
    right_tm, conf32 = torch_top_label(y, P, case)
    right, conf = top_label_rows(y, P)
    tied = (P == P.max(axis=1, keepdims=True)).sum(axis=1) > 1
    same_bins = ref_bins(conf32, w, "width", B, case["torch_edges32"]) == ref_bins(conf, w, "width", B)
    same = not tied.any() and 1.0 not in conf and same_bins
    for norm in ("l1", "l2", "max"):
        theirs = case["torchmetrics"][norm]
        ref = ref_ece(right_tm, conf32, w, "width", B, norm, extra_bin=True, edges=case["torch_edges32"])
        assert theirs == pytest.approx(ref, rel=1e-5, abs=1e-7), norm
        if same:
            got = _value(y, P, f"ece_top:n_bins={B},norm={norm}", None).value
            assert got == pytest.approx(theirs, rel=1e-5, abs=1e-7), norm
            assert got == pytest.approx(ref_ece(right, conf, w, "width", B, norm), rel=1e-12, abs=1e-15)


def test_torchmetrics_rules_change_some_multiclass_cases_and_enough_agree():
    """The cases split: some where the definitions agree (up to float32), some where torchmetrics'
    tie rule, extra bin or float32 bins move its value beyond that."""
    agree = differ = 0
    for c in MC:
        y, P, B = np.array(c["y"]), np.array(c["p"]), c["n_bins"]
        got = _value(y, P, f"ece_top:n_bins={B}", None).value
        if abs(got - c["torchmetrics"]["l1"]) <= 1e-5 * max(abs(got), 1e-2):
            agree += 1
        else:
            differ += 1
    assert agree >= 4 and differ >= 2, (agree, differ)


def test_top_label_table_in_bootstrap_replicas_and_a_saved_metric_state():
    """The bootstrap's replicate summaries and a Metric's saved state keep the top-label table: the
    replicas' summary of weights v is from_checked's of those weights (bits), and a state saved and
    read back gives the same ECE_TOP; a state saved before the table existed gives NaN, and says why.
    """
    from perfeval.backends.metric_state import ClassState
    from perfeval.measures.calibration import ece_toplabel
    from perfeval.stats.classes import ClassReplicas
    from perfeval.summaries.classes import ClassSummary

    rng = np.random.default_rng(9)
    P = np.round(rng.dirichlet(np.ones(4), 300), 2)
    y = rng.integers(0, 4, 300)
    classes = (0, 1, 2, 3)
    rep = ClassReplicas(y, P, classes)
    for v in (rng.poisson(1, 300).astype(float), rng.random(300) * (rng.random(300) < 0.7)):
        got, want = rep.summary(v), ClassSummary.from_checked(y, P, v, classes)
        assert got == want and got.top is not None
    st = ClassState(classes, ClassSummary.from_checked(y, P, None, classes))
    state = st.state()
    back = ClassState.from_state(state).summary
    kw = {"bins": "width", "n_bins": 10, "norm": "l1", "debiased": "no"}
    assert ece_toplabel(back, **kw).value == ece_toplabel(st.summary, **kw).value
    old = {k: v for k, v in state.items() if not k.startswith("top_")}
    f = ece_toplabel(ClassState.from_state(old).summary, **kw)
    assert math.isnan(f.value) and "top-label table" in f.why


# -- ECE_TOP per group at once (issue 33, part cal-ci) ---------------------------------------------------
def _top_groups_case(seed: int, weights: str):
    rng = np.random.default_rng(500 + seed)
    n, K = int(rng.integers(50, 400)), int(rng.integers(3, 6))
    P = np.round(rng.dirichlet(np.ones(K) * 0.7, n), int(rng.integers(1, 3)))  # ties at the maximum
    y = rng.integers(0, K, n)
    g = rng.integers(0, int(rng.integers(1, 40)), n)
    w = {
        "none": None,
        "whole": rng.integers(0, 4, n).astype(float),  # zeros among them: rows that are no case
        "fraction": rng.random(n) * 3 * (rng.random(n) < 0.9),
    }[weights]
    if seed % 3 == 0:  # a group whose rows are no probabilities: NaN there, the others unmoved
        P[g == g[0]] *= 3.0
    return y, P, g, w, K


SPECS_TOP = [
    "ece_top",
    "ece_top:bins=mass,n_bins=4,norm=l2",
    "ece_top:norm=max,n_bins=7",
    "ece_top:bins=mass,n_bins=3",
    "ece_top:norm=l2,debiased=yes,n_bins=6",
]


@pytest.mark.parametrize("weights", ["none", "whole", "fraction"])
@pytest.mark.parametrize("seed", range(6))
def test_top_label_ece_per_group_at_once_is_each_group_alone_to_the_bit(seed, weights, monkeypatch):
    """Every group's value of the per-group form (one pass over all groups) is the bits of the group
    alone (its own ClassSummary), ties, zero weights and fractional weights included; the one-key
    and the stable-sort ways of finding the cells give the same bits."""
    from perfeval.measures import calibration

    y, P, g, w, K = _top_groups_case(seed, weights)
    specs = [sp for sp in SPECS_TOP if weights != "fraction" or "debiased" not in sp]
    for limit in (calibration.TOP_KEY_LIMIT, 0):
        monkeypatch.setattr(calibration, "TOP_KEY_LIMIT", limit)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = perfeval.evaluate(y, P, classes=list(range(K)), groups=g, sample_weight=w, measures=specs)
        for i, key in enumerate(r.groups):
            m = g == key
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                wm = None if w is None else w[m]
                alone = perfeval.evaluate(y[m], P[m], classes=[*range(K)], sample_weight=wm, measures=specs)
            for label, res in r.results.items():
                got, want = float(res.per_group[i]), alone.results[label].value
                assert got == want or (math.isnan(got) and math.isnan(want)), (key, label, got, want)
    if weights == "fraction":
        with pytest.raises(perfeval.InvalidParameterError, match="whole-number weights"):
            perfeval.evaluate(
                y, P, classes=list(range(K)), groups=g, sample_weight=w, measures=[SPECS_TOP[-1]]
            )


def test_top_label_ece_per_group_makes_no_summary_a_group(monkeypatch):
    """ECE_TOP of many groups is finished in one pass: no ClassSummary is made group by group (the
    loop that took over a minute for 100,000 groups)."""
    from perfeval.summaries.classes import ClassSummary

    rng = np.random.default_rng(3)
    n, K = 5000, 4
    P = np.round(rng.dirichlet(np.ones(K), n), 2)
    y, g = rng.integers(0, K, n), rng.integers(0, 1000, n)
    made = []
    real = ClassSummary.from_checked.__func__

    def counting(cls, *a, **k):
        made.append(1)
        return real(cls, *a, **k)

    monkeypatch.setattr(ClassSummary, "from_checked", classmethod(counting))
    r = perfeval.evaluate(y, P, classes=list(range(K)), groups=g, measures=["ece_top", "ece_top:bins=mass"])
    assert len(r.results["ECE_TOP"].per_group) == len(np.unique(g)) and not made


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_debiased_ece_top_with_fractional_weights_names_the_line(tmp_path, capsys, extra):
    """K classes: a fractional weight given to the debiased top-label ECE (which counts cases) is one
    line naming the file, the line, the column and the value (exit 1), as the binary ECE's."""
    from perfeval.cli.main import main

    f = tmp_path / "k.csv"
    f.write_text("y,p_a,p_b,p_c,w\na,0.6,0.3,0.1,1\nb,0.2,0.5,0.3,2\nc,0.1,0.3,0.6,0.5\na,0.5,0.4,0.1,1\n")
    capsys.readouterr()
    spec = "ece_top:norm=l2,debiased=yes"
    argv = ["eval", str(f), "--target", "y", "--score-prefix", "p_", "--weight", "w", "-m", spec, *extra]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{f}, line 4: ECE_TOP:norm=l2,debiased=yes reads weights as counts of cases" in err, err
    argv[-1 - len(extra)] = "ece_top"
    assert main(argv) == 0
