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
