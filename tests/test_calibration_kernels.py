"""Issue 33, the calibration measures' speed: ECE's bins, the Brier parts and the logistic fits of a
summary of unit cases are made from its classes' sorted scores (csrc/calibration.c bin_sums_split,
brier_split, class_runs) with the bits of its cells; the fits are one compiled Newton iteration
(logit_fit: the same bits on every instruction set and thread count) and at least as close to the
maximum likelihood as the numpy iteration they replace
(tests/oracles/fixtures/calibration_fits_before.json).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval import _native
from perfeval.measures import calibration as C
from perfeval.summaries import ScoreHistogram

FITS = json.loads(
    (Path(__file__).parent / "oracles" / "fixtures" / "calibration_fits_before.json").read_text()
)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _pair(y, s):
    """The summary of unit cases twice: kept as its classes' sorted scores, and made into arrays."""
    split = ScoreHistogram.from_arrays(y, s)
    assert split.split() is not None
    cells = ScoreHistogram.from_arrays(y, s)
    cells.scores  # noqa: B018  (made: the measures read the arrays)
    assert cells.split() is None
    return split, cells


def _data(seed: int, n: int):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    if seed % 3 == 1:  # ties, across the classes too
        s = np.round(s, 3).clip(0.0005, 0.9995)
    y = (rng.random(n) < s).astype(int)
    return y, s


# -- the Brier parts -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(9))
def test_brier_parts_from_the_classes_scores_are_the_cells_bit_for_bit(seed):
    y, s = _data(seed, 3000)
    if seed % 3 == 2:  # a score outside [0, 1]: MCB NaN, DSC and UNC values
        s[0] = 1.25
    for form in ("corp", "murphy"):
        split, cells = _pair(y, s)
        got, want = C.brier_parts(split, form), C.brier_parts(cells, form)
        assert all(_same(a, b) for a, b in zip(got, want, strict=True)), (form, got, want)
        # the kernel over the cells is the per-group form's, one group
        m, d, u = C.brier_groups(cells.scores, cells.pos, cells.neg, np.array([0, len(cells.scores)]), form)
        assert all(_same(a, float(b[0])) for a, b in zip(want, (m, d, u), strict=True))
    split, cells = _pair(y, s)
    assert C.brier_unc(split) == C.brier_unc(cells) == C.brier_parts(cells, "murphy")[2]


def _split_cases():
    """Classes' scores of every make: distinct, tied (across the classes and within one), zeros of
    both signs, scores outside [0, 1], one class, none, one score for all, the classes apart."""
    rng = np.random.default_rng(7)
    for k in range(40):
        n = int(rng.integers(0, 40 if k % 4 == 0 else 4000))
        s = rng.random(n)
        if k % 3 == 1:
            s = np.round(s, int(rng.integers(1, 4)))
        if k % 5 == 2:
            s[rng.random(n) < 0.3] = 0.0
            s[rng.random(n) < 0.1] = -0.0
        if k % 7 == 3:
            s = s * 1.4 - 0.2
        y = rng.random(n) < s if k % 6 else rng.random(n) < 0.5
        if k % 11 == 5:
            y = s > np.median(s) if n else y  # every positive above every negative
        if k % 13 == 6:
            s = np.full(n, 0.25)
        if k % 17 == 7:
            y = np.ones(n, bool)
        yield y.astype(int), s


@pytest.mark.parametrize("form", ["corp", "murphy"])
def test_brier_split_in_parts_and_pools_has_the_cells_bits(form):
    """The classes' merge cut into parts (on threads), each pooled alone, the parts' blocks pooled
    after; or one part pooling only violators (as below 2**26 cases never, `exact` 0): every way
    the bits of the cells' kernel (brier_cells), the signs of zeros too."""
    for y, s in _split_cases():
        cells = ScoreHistogram.from_arrays(y, s)
        want = C.brier_groups(cells.scores, cells.pos, cells.neg, np.array([0, len(cells.scores)]), form)
        want = [float(w[0]) for w in want]
        ps, ns = np.sort(s[y == 1]), np.sort(s[y == 0])
        for parts in (0, 1, 2, 3, 5, 8):
            for exact in (2**26, 0):
                got = _native.brier_split(ps, ns, form == "corp", parts, exact)
                assert all(map(_same_bits, got, want)), (len(s), parts, exact, got, want)


def _same_bits(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


def test_brier_split_on_threads_has_the_cells_bits():
    """A summary large enough to be cut on the processors by itself (parts chosen)."""
    y, s = _data(4, 300_000)
    s = np.where(np.arange(len(s)) % 50 == 0, np.round(s, 2), s)  # some ties among the distinct
    split, cells = _pair(y, s)
    for form in ("corp", "murphy"):
        assert C.brier_parts(split, form) == C.brier_parts(cells, form), form


def test_brier_split_refuses_a_nan_score_and_bad_parts():
    with pytest.raises(ValueError, match="NaN"):
        _native.brier_split(np.array([0.1, np.nan]), np.array([0.2]), True)
    with pytest.raises(ValueError, match="parts"):
        _native.brier_split(np.array([0.1]), np.array([0.2]), True, 9)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_decomposition_adds_up_to_the_brier_score_at_a_million_cases(weighted):
    """MCB - DSC + UNC is BS to 1e-15 over a million distinct scores, and Murphy's resolution of
    distinct scores is the uncertainty (plain sums of the million terms strayed 1.8e-12 to 4.7e-12:
    MCB's and DSC's sums are compensated)."""
    rng = np.random.default_rng(33)
    n = 1_000_000
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    w = rng.integers(1, 5, n).astype(float) if weighted else None
    names = ["brier", "brier_mcb:form=murphy", "brier_dsc:form=murphy", "brier_unc", "brier_mcb", "brier_dsc"]
    r = perfeval.evaluate(y, s, measures=names, sample_weight=w)
    bs, mcb_m, dsc_m, unc, mcb_c, dsc_c = (float(r[m]) for m in names)
    assert abs(dsc_m - unc) < 1e-15
    assert abs(mcb_m - dsc_m + unc - bs) < 1e-15
    assert abs(mcb_c - dsc_c + unc - bs) < 1e-15


def test_brier_kernels_agree_with_the_numpy_formulas():
    """The textbook sums over the cells (Murphy's) and scikit-learn's isotonic regression (CORP)."""
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(8)
    sc = np.sort(rng.choice(np.linspace(0.01, 0.99, 300), 120, replace=False))
    pos = rng.integers(0, 4, 120).astype(float)
    neg = rng.integers(0, 4, 120).astype(float) + (pos == 0)
    wt = pos + neg
    ybar, n = pos / wt, wt.sum()
    obar = pos.sum() / n
    c = IsotonicRegression().fit(sc, ybar, sample_weight=wt).predict(sc)
    want = {
        "murphy": ((wt * (sc - ybar) ** 2).sum() / n, (wt * (ybar - obar) ** 2).sum() / n),
        "corp": ((wt * ((sc - ybar) ** 2 - (c - ybar) ** 2)).sum() / n, (wt * (c - obar) ** 2).sum() / n),
    }
    for form, (mcb, dsc) in want.items():
        m, d, u = C.brier_groups(sc, pos, neg, np.array([0, 120]), form)
        assert (m[0], d[0], u[0]) == pytest.approx((mcb, dsc, obar * (1 - obar)), rel=1e-12, abs=1e-15)


# -- ECE's bins ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_ece_bins_from_the_classes_scores_are_the_cells_bit_for_bit(seed):
    """Equal width and equal mass (a tie never split), every norm, scores of 0 and 1, a tie across the
    classes, a score outside [0, 1] (NaN).
    """
    y, s = _data(seed, 2000)
    s[:3] = [0.0, 1.0, 1.0]
    if seed % 4 == 3:
        s[5] = -0.5
    for bins in ("width", "mass"):
        for B in (1, 3, 10, 15):
            for norm, debiased in (("l1", "no"), ("l2", "no"), ("l2", "yes"), ("max", "no")):
                split, cells = _pair(y, s)
                kw = {"bins": bins, "n_bins": B, "norm": norm, "debiased": debiased}
                assert _same(C.ece(split, **kw), C.ece(cells, **kw)), kw
                assert split.split() is not None  # read without the summary's arrays


# -- one class's cells ----------------------------------------------------------------------------------
def test_class_runs_are_the_runs_of_equal_scores():
    s = np.array([0.1, 0.2, 0.2, 0.2, 0.5, 0.7, 0.7])
    v, c = (np.frombuffer(b) for b in _native.class_runs(s))
    assert v.tolist() == [0.1, 0.2, 0.5, 0.7] and c.tolist() == [1.0, 3.0, 1.0, 2.0]
    assert _native.class_runs(np.array([0.1, 0.2, 0.5])) is None
    assert _native.class_runs(np.array([])) is None and _native.class_runs(np.array([0.3])) is None


@pytest.mark.parametrize("decimals", [1, 2, 4])
def test_fits_of_tied_scores_from_the_classes_runs_are_the_cells(decimals):
    """Ties inside a class (runs) and across the classes (a cell in both), 80,000 cases on a score."""
    rng = np.random.default_rng(decimals)
    s = np.round(rng.random(20_000), decimals).clip(0.05, 0.95)
    s = np.concatenate([s, np.full(80_000, 0.5)])
    y = (rng.random(len(s)) < s).astype(int)
    for what in ("slope", "offset", "joint"):
        split, cells = _pair(y, s)
        f = C.cal_slope if what == "slope" else (lambda h, w=what: C.cal_intercept(h, fit=w))
        assert f(split) == f(cells) and math.isfinite(f(cells)), what


# -- the logistic fits -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_fits_from_the_classes_scores_are_the_cells_bit_for_bit(seed):
    y, s = _data(seed, 5000)
    for what in ("slope", "offset", "joint"):
        split, cells = _pair(y, s)
        f = C.cal_slope if what == "slope" else (lambda h, w=what: C.cal_intercept(h, fit=w))
        assert _same(f(split), f(cells)), what
    # and evaluate(), which reads the classes' scores, is the fit of the cells
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, measures=["cal_slope", "cal_intercept:fit=joint"])
    sc, cell = np.unique(s, return_inverse=True)
    pos = np.bincount(cell, weights=y, minlength=len(sc))
    wt = np.bincount(cell, minlength=len(sc)).astype(float)
    a, b = C.fit_joint(np.log(sc) - np.log1p(-sc), pos, wt)
    assert r["CAL_SLOPE"] == b and r["CAL_INTERCEPT:fit=joint"] == a


def _targets() -> list[str]:
    out = []
    for t in ("base", "v3", "v4"):
        try:
            _native.cal_target(t)
            out.append(t)
        except ValueError:
            pass
    _native.cal_target("")
    return out


def test_fits_have_the_same_bits_on_every_instruction_set():
    """The pass's exp and log1p are its own and its eight lanes fixed: the baseline's SSE2, AVX2 and
    AVX-512 copies give the same numbers (those this machine runs).
    """
    rng = np.random.default_rng(2)
    x = np.sort(rng.normal(0, 3, 4001))
    wt = rng.random(4001) * 2 + 0.1
    pos = wt * (rng.random(4001) < 1 / (1 + np.exp(-0.8 * x)))
    bounds = np.array([0, 5, 5, 1000, 4001], np.int64)
    got = {}
    try:
        for t in _targets():
            _native.cal_target(t)
            got[t] = (
                C.fit_joint(x, pos, wt),
                C.fit_offset(x, pos, wt),
                [v.tolist() for v in C.fit_joint_groups(x, pos, wt, bounds)],
            )
    finally:
        _native.cal_target("")
    assert "base" in got and len(set(map(repr, got.values()))) == 1, got


def test_a_group_of_many_chunks_has_the_same_bits_on_threads_or_not():
    """Alone, a group of more than eight chunks of cells (65,536 each) has them fitted on the
    machine's threads; beside another group, the groups go to the threads and its chunks stay on
    one: the same numbers.
    """
    rng = np.random.default_rng(4)
    n = 9 * 65536 + 123
    x = np.sort(rng.normal(0, 2, n))
    pos = (rng.random(n) < 1 / (1 + np.exp(-(0.2 + 0.9 * x)))).astype(float)
    wt = np.ones(n)
    alone = [v.tolist() for v in C.fit_joint_groups(x, pos, wt, np.array([0, n], np.int64))]
    x2, p2, w2 = (np.concatenate([v, v[:40]]) for v in (x, pos, wt))
    beside = [v.tolist() for v in C.fit_joint_groups(x2, p2, w2, np.array([0, n, n + 40], np.int64))]
    assert [alone[0][0], alone[1][0]] == [beside[0][0], beside[1][0]]
    assert (
        C.fit_offset_groups(x, pos, wt, np.array([0, n], np.int64))[0]
        == (C.fit_offset_groups(x2, p2, w2, np.array([0, n, n + 40], np.int64))[0])
    )


def _mp_optimum(x, pos, wt, a, b, joint: bool) -> tuple[float, float]:
    """The maximum likelihood in 50 digits: Newton's method from (a, b) until its step is below
    1e-40 (from the float64 fit, two or three steps).
    """
    import mpmath as mp

    mp.mp.dps = 50
    xs, ps, ws = ([mp.mpf(float(v)) for v in arr] for arr in (x, pos, wt))
    a, b = mp.mpf(a), mp.mpf(b if joint else 1)
    for _ in range(40):
        g0 = g1 = h00 = h01 = h11 = mp.mpf(0)
        for xi, p, w in zip(xs, ps, ws, strict=True):
            mu = 1 / (1 + mp.exp(-(a + b * xi)))
            r, v = p - w * mu, w * mu * (1 - mu)
            g0, g1, h00, h01, h11 = g0 + r, g1 + r * xi, h00 + v, h01 + v * xi, h11 + v * xi * xi
        if joint:
            det = h00 * h11 - h01 * h01
            da, db = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        else:
            da, db = g0 / h00, mp.mpf(0)
        a, b = a + da, b + db
        if abs(da) + abs(db) < mp.mpf(10) ** -40:
            return a, b
    raise AssertionError("no convergence in 50 digits")


def _errors(kind: str):
    """Each case's errors, before and now, of a, b (joint) and a (offset), in units of
    2^-52 (1 + |optimum|): the fits' own measure of a step (their stopping rule's).
    """
    import mpmath as mp

    out = []
    for c in FITS["cases"]:
        if c["kind"] != kind:
            continue
        x, pos, wt = (np.array(c[k]) for k in ("x", "pos", "wt"))
        now = {"joint": C.fit_joint(x, pos, wt), "offset": (C.fit_offset(x, pos, wt), 1.0)}
        before = {"joint": tuple(c["before"]["joint"]), "offset": (c["before"]["offset"], 1.0)}
        row = {}
        for fit in ("joint", "offset"):
            if "fit" in c and c["fit"] != fit:
                continue
            opt = _mp_optimum(x, pos, wt, *now[fit], joint=fit == "joint")
            for i, name in enumerate(("a", "b") if fit == "joint" else ("offset",)):
                unit = 2.0**-52 * (1 + abs(float(opt[i])))
                row[name] = (
                    float(abs(mp.mpf(before[fit][i]) - opt[i])) / unit,
                    float(abs(mp.mpf(now[fit][i]) - opt[i])) / unit,
                )
        out.append(row)
    return out


def test_fixture_is_of_the_old_iteration():
    assert FITS["generated_by"] == "tests/oracles/make_calibration_fits_before_fixture.py"
    assert "da424ca" in FITS["perfeval"]
    assert len([c for c in FITS["cases"] if c["kind"] == "random"]) == 60


def test_fits_are_at_least_as_close_to_the_maximum_likelihood_as_before():
    """On 60 seeded sets of cells (ties, whole and fractional weights): the mean and the largest
    error of a, b and the offset fit's a are no larger than the numpy iteration's (and every error
    is below one unit).
    """
    rows = _errors("random")
    for name in ("a", "b", "offset"):
        before = [r[name][0] for r in rows]
        now = [r[name][1] for r in rows]
        assert np.mean(now) <= np.mean(before), (name, np.mean(now), np.mean(before))
        assert max(now) <= max(before) and max(now) < 1, (name, max(now), max(before))


def test_fits_are_closer_where_the_old_iteration_differed():
    """Groups of a seeded search where the two differed by more than 1e-12 (relative): sums near a
    cancellation (few cells, the likelihood's curvature 1e-6 of its terms), slopes of 5 and 10.
    There the numpy iteration was 1,800 to 29,000 units off; now each is closer (within one unit,
    the slopes within 50: their sums' rounding).
    """
    rows = _errors("differed")
    assert len(rows) == 8
    for r in rows:
        for name, (before, now) in r.items():
            assert now < before and now <= (1 if name == "offset" else 64), (name, before, now)


def test_negative_slopes_are_found_from_the_calibrated_start():
    """Slopes of about -1: the calibrated recalibration (b = 1) is less likely than the constant, so
    the fit starts from the constant, as before; the maximum within a unit (as before).
    """
    rows = _errors("negative")
    assert len(rows) == 3
    for r in rows:
        for name, (before, now) in r.items():
            assert now <= 1, (name, before, now)
    for c in FITS["cases"]:
        if c["kind"] == "negative":
            assert C.fit_joint(np.array(c["x"]), np.array(c["pos"]), np.array(c["wt"]))[1] < -0.5
