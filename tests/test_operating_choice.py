"""Threshold choice (YOUDEN, TOPLEFT, BEST_FBETA, BEST_MCC, LEAST_COST), each a value and, with
``of="threshold"``, its threshold: against an enumeration of the thresholds over the rows,
scikit-learn's fbeta_score and matthews_corrcoef at every threshold, R's pROC
``coords(x="best")`` (its thresholds are midpoints between distinct scores: the operating points
are compared, not the numbers), and the bootstrap interval of the threshold (``ci``, Python and the
command line); ``compare`` refuses a threshold.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import InvalidParameterError

NAMES = ["YOUDEN", "TOPLEFT", "BEST_FBETA:beta=2", "BEST_MCC", "LEAST_COST:fn=3,fp=1,tp=0.5"]


def criterion(name: str, tp: float, fp: float, P: float, N: float) -> float:
    """The criterion at one point, NaN where undefined (the textbook formulas)."""
    fn, tn = P - tp, N - fp
    if name == "YOUDEN":
        return tp / P - fp / N
    if name == "TOPLEFT":
        return math.sqrt((fp / N) ** 2 + ((P - tp) / P) ** 2)
    if name.startswith("BEST_FBETA"):
        den = 5 * tp + 4 * fn + fp
        return 5 * tp / den if den else math.nan
    if name == "BEST_MCC":
        den = math.sqrt((tp + fp) * P * N * (tn + fn))
        return (tp * tn - fp * fn) / den if den else math.nan
    return 0.5 * tp + 3 * fn + 1 * fp + 0 * tn


def reference(y, s, w, name: str) -> tuple[float, float]:
    """(value, threshold): every threshold, +inf first then the distinct scores from the highest,
    its counts summed over the rows; the best defined value, the first (highest threshold) of equals.
    """
    y, s = np.asarray(y, float), np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    P, N = float(np.sum(w * y)), float(np.sum(w * (1 - y)))
    if name.startswith("LEAST_COST"):
        undefined = P + N == 0
    else:
        undefined = P == 0 or (N == 0 and not name.startswith("BEST_FBETA"))
    if undefined:
        return math.nan, math.nan
    lower = name in ("TOPLEFT",) or name.startswith("LEAST_COST")
    best = None
    for t in [math.inf, *sorted(set(s[w > 0].tolist()), reverse=True)]:
        pred = s >= t
        v = criterion(name, float(np.sum(w * y * pred)), float(np.sum(w * (1 - y) * pred)), P, N)
        if math.isnan(v):
            continue
        if best is None or (v < best[0] if lower else v > best[0]):
            best = (v, t)
    return best if best is not None else (math.nan, math.nan)


def ours(y, s, w, name: str) -> tuple[float, float]:
    base, _, params = name.partition(":")
    spec_t = f"{base}:{params + ',' if params else ''}of=threshold"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, sample_weight=w, measures=[name, spec_t])
    v, t = (res.value for res in r.results.values())
    return v, t


@st.composite
def data(draw):
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < rng.random()).astype(float)
    s = np.round(rng.random(n) + draw(st.floats(-0.5, 1)) * y, draw(st.sampled_from([0, 1, 2])))
    w = rng.integers(0, 4, n).astype(float) if draw(st.booleans()) else None
    return y, s, w


@settings(max_examples=150, deadline=None)
@given(data(), st.sampled_from(NAMES))
def test_value_and_threshold_are_the_enumeration(d, name):
    y, s, w = d
    (v, t), (rv, rt) = ours(y, s, w, name), reference(y, s, w, name)
    if math.isnan(rv):
        assert math.isnan(v) and math.isnan(t)
        return
    assert abs(v - rv) <= 1e-12 * max(1.0, abs(rv)), (v, rv)
    # the same threshold, unless another is within rounding of the best (then equally good)
    if t != rt:
        ys, ss = np.asarray(y, float), np.asarray(s, float)
        ww = np.ones(len(ys)) if w is None else np.asarray(w, float)
        P, N = float(np.sum(ww * ys)), float(np.sum(ww * (1 - ys)))
        at = criterion(
            name, float(np.sum(ww * ys * (ss >= t))), float(np.sum(ww * (1 - ys) * (ss >= t))), P, N
        )
        assert abs(at - rv) <= 1e-12 * max(1.0, abs(rv)), (name, t, rt)


def test_tied_optima_take_the_highest_threshold():
    # J = 0.5 at 0.8 (TPR 1/2, FPR 0) and at 0.3 (TPR 1, FPR 1/2): the highest, 0.8
    y, s = [1, 1, 0, 0], [0.8, 0.3, 0.5, 0.1]
    assert ours(y, s, None, "YOUDEN") == (0.5, 0.8)


@settings(max_examples=60, deadline=None)
@given(data(), st.sampled_from([0.5, 1.0, 2.0]))
def test_sklearn_fbeta_and_mcc_at_every_threshold(d, beta):
    from sklearn.metrics import fbeta_score, matthews_corrcoef

    y, s, w = d
    if not (0 < y.sum() < len(y)) or (w is not None and not (0 < (w * y).sum() and (w * (1 - y)).sum() > 0)):
        return
    thresholds = [math.inf, *sorted(set(s.tolist()), reverse=True)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = [fbeta_score(y, s >= t, beta=beta, sample_weight=w, zero_division=0.0) for t in thresholds]
        m = [matthews_corrcoef(y, s >= t, sample_weight=w) for t in thresholds]
    v, t = ours(y, s, w, f"BEST_FBETA:beta={beta}")
    assert abs(v - max(f)) < 1e-12
    assert abs(f[thresholds.index(t)] - v) < 1e-12
    v, t = ours(y, s, w, "BEST_MCC")
    if math.isnan(v):  # no threshold predicts some and not all: sklearn's 0 at each
        assert max(m) == 0.0 == min(m)
        return
    assert abs(v - max(m)) < 1e-12 or (max(m) == 0.0 and v < 0)  # sklearn's 0 where undefined
    assert abs(m[thresholds.index(t)] - v) < 1e-12


@pytest.mark.parametrize("scale", [2.0**250, 2.0**-280, 2.0**400])
def test_best_mcc_of_weights_scaled_by_a_power_of_two_is_the_same(scale):
    """MCC is a ratio of products of four weights: weights of 2^250 (1.8e75) overflowed them to +inf
    and gave 0 at every point (a BEST_MCC of 0.0, said nowhere), weights of 2^-280 underflowed them
    to 0/0 (NaN, "no positives or no negatives").  Scaled by a power of two the weights are exactly
    the same problem: the same value and threshold bit for bit, per group, and the same bootstrap
    replicates (the compiled replicate walk, csrc/walk.h)."""
    rng = np.random.default_rng(0)
    n = 2000
    s = np.clip(rng.random(n), 0.01, 0.99)
    y = (rng.random(n) < s**1.5).astype(int)
    w = rng.integers(1, 4, n).astype(float)
    g = rng.integers(0, 5, n)
    m = ["best_mcc", "best_mcc:of=threshold"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no undefined value, no overflow warning
        for groups in (None, g):
            want = perfeval.evaluate(y, s, sample_weight=w, groups=groups, measures=m)
            got = perfeval.evaluate(y, s, sample_weight=w * scale, groups=groups, measures=m)
            assert got.values == want.values and 0.5 < want["BEST_MCC"] < 0.7
            if groups is not None:
                assert np.array_equal(got.results["BEST_MCC"].per_group, want.results["BEST_MCC"].per_group)
        for method in ("percentile", "bca"):
            a = perfeval.ci(y, s, sample_weight=w, measures=["best_mcc"], n_boot=100, method=method)
            b = perfeval.ci(y, s, sample_weight=w * scale, measures=["best_mcc"], n_boot=100, method=method)
            assert (a["BEST_MCC"].low, a["BEST_MCC"].high) == (b["BEST_MCC"].low, b["BEST_MCC"].high)


# -- R's pROC: coords(x = "best") -------------------------------------------------------------------
def _proc_reason() -> str:
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (R with pROC: apt-get install r-cran-proc)"
    r = subprocess.run(["Rscript", "-e", "library(pROC)"], capture_output=True, timeout=120)
    return "" if r.returncode == 0 else "R's pROC is not installed (apt-get install r-cran-proc)"


def test_proc_best_youden_and_closest_topleft(tmp_path):
    reason = _proc_reason()
    if reason:
        pytest.skip(reason)
    rng = np.random.default_rng(5)
    cases = []
    for i in range(10):
        n = int(rng.integers(10, 80))
        y = (rng.random(n) < 0.5).astype(int)
        y[:2] = [0, 1]
        cases.append((y, np.round(rng.random(n) + 0.5 * y, 1 if i % 2 else 2)))
    lines = ["library(pROC)", "options(digits=17)"]
    for i, (y, s) in enumerate(cases):
        f = tmp_path / f"c{i}.csv"
        f.write_text("y,s\n" + "".join(f"{int(a)},{float(b)!r}\n" for a, b in zip(y, s, strict=True)))
        lines.append(f"d <- read.csv('{f}'); r <- roc(d$y, d$s, levels=c(0, 1), direction='<', quiet=TRUE)")
        for method in ("youden", "closest.topleft"):
            lines.append(
                f"b <- coords(r, 'best', best.method='{method}', ret=c('sensitivity', 'specificity'), "
                "transpose=FALSE); cat(nrow(b), as.vector(t(as.matrix(b))), '\\n')"
            )
    script = tmp_path / "best.R"
    script.write_text("\n".join(lines) + "\n")
    out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, timeout=300, check=True)
    rows = out.stdout.strip().splitlines()
    assert len(rows) == 2 * len(cases)
    for k, row in enumerate(rows):
        y, s = cases[k // 2]
        name = "YOUDEN" if k % 2 == 0 else "TOPLEFT"
        nums = [float(x) for x in row.split()]
        best = {(round(se, 12), round(sp, 12)) for se, sp in zip(nums[1::2], nums[2::2], strict=True)}
        v, t = ours(y, s, None, name)
        h = perfeval.summaries.ScoreHistogram.from_arrays(y, s)
        tp, fn, fp, tn = h.counts_at(t)
        point = (round(tp / (tp + fn), 12), round(tn / (tn + fp), 12))
        assert point in best, (name, point, best)  # our point is one of pROC's (tied) best
        se, sp = point
        want = se + sp - 1 if name == "YOUDEN" else math.sqrt((1 - se) ** 2 + (1 - sp) ** 2)
        assert abs(v - want) < 1e-9


def test_procs_best_values_are_j_plus_1_and_the_squared_distance(tmp_path):
    """What docs/operating.md and the registry say of pROC's numbers: coords(x="best")'s "youden"
    is J + 1 (sensitivity + specificity) and its "closest.topleft" the squared distance to (0, 1),
    at the same operating point as YOUDEN's and TOPLEFT's (its threshold the midpoint below ours)."""
    reason = _proc_reason()
    if reason:
        pytest.skip(reason)
    rng = np.random.default_rng(8)
    cases = []
    for i in range(6):
        n = int(rng.integers(10, 80))
        y = (rng.random(n) < 0.5).astype(int)
        y[:2] = [0, 1]
        cases.append((y, np.round(rng.random(n) + 0.5 * y, 1 if i % 2 else 3)))
    lines = ["library(pROC)", "options(digits=17)"]
    for i, (y, s) in enumerate(cases):
        f = tmp_path / f"c{i}.csv"
        f.write_text("y,s\n" + "".join(f"{int(a)},{float(b)!r}\n" for a, b in zip(y, s, strict=True)))
        lines.append(f"d <- read.csv('{f}'); r <- roc(d$y, d$s, levels=c(0, 1), direction='<', quiet=TRUE)")
        for method in ("youden", "closest.topleft"):
            lines.append(
                f"b <- coords(r, 'best', best.method='{method}', ret=c('threshold', '{method}'), "
                "transpose=FALSE); cat(as.vector(t(as.matrix(b))), '\\n')"
            )
    script = tmp_path / "best.R"
    script.write_text("\n".join(lines) + "\n")
    out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, timeout=300, check=True)
    rows = out.stdout.strip().splitlines()
    assert len(rows) == 2 * len(cases)
    for k, row in enumerate(rows):
        y, s = cases[k // 2]
        name = "YOUDEN" if k % 2 == 0 else "TOPLEFT"
        nums = [float(x) for x in row.split()]
        thresholds, values = nums[0::2], nums[1::2]
        v, t = ours(y, s, None, name)
        want = v + 1 if name == "YOUDEN" else v * v
        assert all(abs(b - want) < 1e-12 for b in values), (name, v, values)  # every tied best alike
        # one of pROC's thresholds is the midpoint between ours and the next lower distinct score
        below = max((x for x in set(s.tolist()) if x < t), default=-math.inf)
        assert any(below < b < t for b in thresholds), (name, t, thresholds)


# -- the interval of a threshold, and compare's refusal -------------------------------------------
def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    return y, np.round(rng.normal(size=n) + y, 1), rng


def test_ci_of_a_threshold_in_python():
    y, s, _ = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.ci(
            y, s, measures=["youden:of=threshold", "tpr_at_fpr@0.1:of=threshold"], n_boot=200, seed=1
        )
    thr = perfeval.evaluate(y, s, measures=["youden:of=threshold"])["YOUDEN:of=threshold"]
    iv = r["YOUDEN:of=threshold"]
    assert iv.estimate == thr and iv.low <= thr <= iv.high and iv.low < iv.high
    assert set(np.round(s, 1).tolist()) >= {thr}


def test_ci_of_a_threshold_on_the_command_line(tmp_path, capsys):
    y, s, _ = _data()
    f = tmp_path / "d.csv"
    f.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=True)))
    rc = main(
        [
            "eval",
            str(f),
            "--target",
            "y",
            "--score",
            "s",
            "-m",
            "youden:of=threshold",
            "--ci",
            "0.95",
            "--n-boot",
            "200",
        ]
    )
    out = capsys.readouterr().out
    assert rc in (0, None)
    row = next(line for line in out.splitlines() if line.startswith("YOUDEN:of=threshold"))
    value, low, high = (float(x) for x in row.split()[1:4])
    thr = perfeval.evaluate(y, s, measures=["youden:of=threshold"])["YOUDEN:of=threshold"]
    assert value == pytest.approx(thr, abs=1e-6) and low <= value <= high


def test_compare_refuses_a_threshold(tmp_path, capsys):
    y, s, rng = _data()
    with pytest.raises(InvalidParameterError, match=r"YOUDEN:of=threshold is a threshold"):
        perfeval.compare(y, s, s + rng.normal(size=len(s)), measures=["youden:of=threshold"], n_boot=20)
    f = tmp_path / "d.csv"
    f.write_text("y,a,b\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, s, -s, strict=True)))
    rc = main(["compare", str(f), "--target", "y", "--score", "a,b", "-m", "tpr_at_fpr@0.1:of=threshold"])
    err = capsys.readouterr().err
    assert (
        rc != 0 and "TPR_AT_FPR@0.1:of=threshold is a threshold" in err and len(err.strip().splitlines()) == 1
    )


def test_a_scorer_of_a_threshold_is_refused_and_the_values_read_the_order():
    """scikit-learn's scorer: an operating point's value reads the order only (decision_function
    allowed); its of=threshold form is a threshold, not a score of the model: refused in one line."""
    from perfeval.exceptions import InvalidParameterError
    from perfeval.functional import scorer

    pytest.importorskip("sklearn")
    with pytest.raises(InvalidParameterError, match="is a score threshold"):
        scorer("youden:of=threshold")
    scorer("tpr_at_fpr@0.1", response_method="decision_function")  # no error: a ranking measure
