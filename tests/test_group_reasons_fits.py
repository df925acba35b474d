"""The fits' NaN groups (CAL_SLOPE, CAL_INTERCEPT) say their reasons from the groups' histograms the
fits read, every group at once (perfeval.measures.reasons.fit_groups_why): the same words as each
group alone, without making each group's summary.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.measures import reasons

FITS = ["cal_slope", "cal_intercept", "cal_intercept:fit=joint"]


def _data(seed: int, weighted: str):
    """Many small groups (a few rows each: many separated, some of one score, some of one class),
    scores in (0, 1) on a coarse grid (ties), weights none, whole, or whole with zeros (cells of weight 0).
    """
    rng = np.random.default_rng(seed)
    n = 3000
    g = rng.integers(0, 500, n)
    s = np.round(rng.random(n), 1) * 0.9 + 0.05
    s[g % 17 == 0] = 0.35  # groups of one score
    y = (rng.random(n) < s).astype(np.int64)
    w = None
    if weighted == "whole":
        w = rng.choice([1.0, 2.0, 3.0], n)
    elif weighted == "zeros":
        w = rng.choice([0.0, 1.0, 2.0], n)
    elif weighted == "fractional":
        w = rng.choice([0.0, 0.1, 0.25, 1.5], n)
    return y, s, g, w


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(*args, **kw)


@pytest.mark.parametrize("weighted", ["none", "whole", "zeros", "fractional"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_fits_groups_say_what_each_says_alone(seed, weighted):
    y, s, g, w = _data(seed, weighted)
    r = _quiet(y, s, groups=g, sample_weight=w, measures=FITS)
    said = set()
    for label, res in r.results.items():
        assert len(res.undefined_groups_why) == len(res.undefined) > 20, label
        for key, why in zip(res.undefined, res.undefined_groups_why, strict=True):
            rows = g == key
            alone = _quiet(y[rows], s[rows], sample_weight=None if w is None else w[rows], measures=[label])
            assert np.isnan(alone[label])
            said_alone = alone.results[label].why
            if weighted == "fractional" and said_alone and said_alone.startswith("one class only"):
                continue  # (the class reason's words for fractional weights: not this path's)
            assert why == said_alone, (label, key)
            said.add(why if why is None else why.split(":")[0])
    assert "the scores separate the classes (every positive's score on one side of every negative's)" in said
    assert any(w and w.startswith("every score is") for w in said)


def test_no_group_summary_is_made_for_the_fits_reasons(monkeypatch):
    y, s, g, _w = _data(3, "none")
    calls = []
    real = reasons.why_nan
    monkeypatch.setattr(reasons, "why_nan", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    r = _quiet(y, s, groups=g, measures=["cal_slope"])
    assert len(r.results["CAL_SLOPE"].undefined) > 20
    assert calls == []
    # a score of exactly 0 in a group: that group's reason still read from its summary
    s2 = s.copy()
    s2[np.flatnonzero(g == g[0])[:1]] = 0.0
    r = _quiet(y, s2, groups=g, measures=["cal_slope"])
    assert calls == ["CAL_SLOPE"]
    key = r.results["CAL_SLOPE"].undefined.index(g[0])
    assert r.results["CAL_SLOPE"].undefined_groups_why[key].endswith("exactly 0 or 1: the logit is infinite")


def _why_alone(sc, pos, neg):
    """fit_groups_why's reason for one group's cells, cell by cell (numpy's NaN rules: a NaN score
    makes its class's least and largest NaN)."""
    live = [i for i in range(len(sc)) if pos[i] + neg[i] > 0]
    if len(live) == 1:
        return f"every score is {float(sc[live[0]]):g}: a slope has no finite maximum likelihood"

    def ext(ws, f, start):
        vals = [sc[i] for i in range(len(sc)) if ws[i] > 0]
        return math.nan if any(math.isnan(v) for v in vals) else f(vals, default=start)

    lo_pos, hi_pos = ext(pos, min, math.inf), ext(pos, max, -math.inf)
    lo_neg, hi_neg = ext(neg, min, math.inf), ext(neg, max, -math.inf)
    return reasons._SEPARATE if lo_pos >= hi_neg or hi_pos <= lo_neg else None


@pytest.mark.parametrize("seed", range(8))
def test_fit_groups_why_is_each_group_cell_by_cell(seed):
    """The kernel's reasons (csrc/calibration.c fit_why) for groups in any order: tiny, zero and
    fractional weights of each class, NaN scores, ties."""
    rng = np.random.default_rng(seed)
    G = int(rng.integers(1, 300))
    bounds = np.concatenate([[0], np.cumsum(rng.integers(1, 10, G))]).astype(np.int64)
    n = int(bounds[-1])
    sc = np.round(rng.random(n), int(rng.integers(1, 4)))
    sc[rng.random(n) < 0.02] = np.nan
    pos = rng.choice([0.0, 0.0, 1.0, 0.5, 1e-300, 2.0], n)
    neg = rng.choice([0.0, 0.0, 1.0, 0.25, 1e-300, 3.0], n)
    groups = rng.permutation(G)[: int(rng.integers(1, G + 1))].astype(np.int64)
    got = reasons.fit_groups_why(sc, pos, neg, bounds, groups)
    want = [_why_alone(*(v[bounds[g] : bounds[g + 1]] for v in (sc, pos, neg))) for g in groups]
    assert got == want
    assert reasons.fit_groups_why(sc, pos, neg, bounds, groups[:0]) == []


def test_fit_why_refuses_a_group_out_of_range_or_empty():
    from perfeval import _native

    sc, w = np.array([0.2, 0.4]), np.array([1.0, 1.0])
    for bounds, groups in (([0, 2], [1]), ([0, 2], [-1]), ([0, 0, 2], [0])):
        with pytest.raises(ValueError, match="fit_why"):
            _native.fit_why(sc, w, w, np.array(bounds, np.int64), np.array(groups, np.int64))


@pytest.mark.parametrize("seed", range(6))
def test_group_totals_are_each_groups_cells_summed(seed):
    """The NaN groups' totals (csrc/summary.c group_totals, read by engine/finish.py group_reasons):
    each group's positive and negative counts and whether a score is at or outside 0 or 1, as numpy
    says them of that group's cells alone (groups in any order; NaN, 0, 1 and outside scores)."""
    from perfeval import _native

    rng = np.random.default_rng(seed)
    G = int(rng.integers(1, 400))
    bounds = np.concatenate([[0], np.cumsum(rng.integers(1, 12, G))]).astype(np.int64)
    n = int(bounds[-1])
    sc = np.round(rng.random(n) * 1.2 - 0.1, int(rng.integers(1, 3)))
    sc[rng.random(n) < 0.03] = np.nan
    pos, neg = (rng.integers(0, 4, n).astype(np.float64) for _ in range(2))
    groups = rng.permutation(G)[: int(rng.integers(1, G + 1))].astype(np.int64)
    tp, tn, to = _native.group_totals(sc, pos, neg, bounds, groups)
    got_p, got_n = np.frombuffer(tp, np.float64), np.frombuffer(tn, np.float64)
    got_o = np.frombuffer(to, np.uint8).astype(bool)
    for j, g in enumerate(groups.tolist()):
        cells = slice(bounds[g], bounds[g + 1])
        assert got_p[j] == pos[cells].sum() and got_n[j] == neg[cells].sum()
        assert got_o[j] == bool(((sc[cells] <= 0.0) | (sc[cells] >= 1.0)).any())
    assert got_o.any() and not got_o.all()  # (the data reach both answers)
    # asked with the fits' reasons: the same totals, and fit_why's code of every group (the same cells
    # read once: group_reasons' one pass over the NaN groups)
    *same, code = _native.group_totals(sc, pos, neg, bounds, groups, True)
    assert [bytes(v) for v in same] == [bytes(tp), bytes(tn), bytes(to)]
    assert bytes(code) == bytes(_native.fit_why(sc, pos, neg, bounds, groups))
    assert len(_native.group_totals(sc, pos, neg, bounds, groups, False)) == 3


def test_group_totals_refuses_a_group_out_of_range_or_empty():
    from perfeval import _native

    sc, w = np.array([0.2, 0.4]), np.array([1.0, 1.0])
    for bounds, groups in (([0, 2], [1]), ([0, 2], [-1]), ([0, 0, 2], [0])):
        with pytest.raises(ValueError, match="group_totals"):
            _native.group_totals(sc, w, w, np.array(bounds, np.int64), np.array(groups, np.int64))


@pytest.mark.parametrize("kernel", ["fit_why", "group_totals"])
def test_chosen_groups_kernels_check_their_arguments_alike(kernel):
    """fit_why and group_totals take (sc, pos, neg, bounds, groups) through one check
    (csrc/summary.c nv_chosen_groups): each bad argument gets the same error, named by the kernel."""
    from perfeval import _native

    fn = getattr(_native, kernel)
    sc, w = np.array([0.2, 0.4]), np.array([1.0, 1.0])
    b, g = np.array([0, 2], np.int64), np.array([0], np.int64)
    with pytest.raises(TypeError):
        fn(sc, w, w, b)
    with pytest.raises(TypeError):
        fn(sc.astype(np.float32), w, w, b, g)
    with pytest.raises(ValueError, match=f"^{kernel}: scores, pos and neg differ in length$"):
        fn(sc, w[:1], w, b, g)
    with pytest.raises(ValueError, match=f"^{kernel}: scores, pos and neg differ in length$"):
        fn(sc, w, w[:1], b, g)
    for bounds in ([0, 1], [0, 2, 1, 2], [0, 3]):
        with pytest.raises(ValueError, match=f"^{kernel}: bounds must be ascending cell offsets"):
            fn(sc, w, w, np.array(bounds, np.int64), g)
    with pytest.raises(ValueError, match=f"^{kernel}: bounds must start at 0 \\(the first cell\\), got -1$"):
        fn(sc, w, w, np.array([-1, 2], np.int64), g)
    for bounds, groups in (([0, 2], [1]), ([0, 2], [-1]), ([0, 0, 2], [0]), ([0, 2, 2], [1])):
        with pytest.raises(ValueError, match=f"^{kernel}: a group out of range or without a cell$"):
            fn(sc, w, w, np.array(bounds, np.int64), np.array(groups, np.int64))
    assert len(fn(sc, w, w, b, g[:0])[0] if kernel == "group_totals" else fn(sc, w, w, b, g[:0])) == 0


@pytest.mark.parametrize("kernel", ["hist_auc_groups", "hist_tie_groups", "group_totals", "fit_why"])
def test_group_kernels_refuse_bounds_that_do_not_start_at_the_first_cell(kernel):
    """csrc/summary.c nv_group_bounds: bounds starting past 0 (ascending, ending at the cells) would
    leave the cells before them out of every group, silently: refused, naming the kernel."""
    from perfeval import _native

    fn = getattr(_native, kernel)
    sc, w = np.array([0.2, 0.4, 0.6]), np.array([1.0, 1.0, 1.0])
    for start in (1, 2):
        b = np.array([start, 3], np.int64)
        with pytest.raises(
            ValueError, match=f"^{kernel}: bounds must start at 0 \\(the first cell\\), got {start}$"
        ):
            if kernel in ("group_totals", "fit_why"):
                fn(sc, w, w, b, np.array([0], np.int64))
            else:
                fn(w, w, b)
    ok = np.array([0, 1, 3], np.int64)  # from 0: as before
    if kernel in ("group_totals", "fit_why"):
        fn(sc, w, w, ok, np.array([0, 1], np.int64))
    else:
        fn(w, w, ok)


@pytest.mark.parametrize("kernel", ["hist_ap_groups", "hist_apr_groups", "exact_sums", "regression_sums"])
def test_kernels_of_their_own_bounds_check_them_as_the_others(kernel):
    """hist_ap_groups, hist_apr_groups, exact_sums and regression_sums check their bounds with the
    shared nv_group_bounds: from 0 (the first cell or row), ascending, ending at the last; bounds that
    start past 0 or end short of the last left cells or rows out of every group, silently."""
    from perfeval import _native

    fn = getattr(_native, kernel)
    x = np.array([1.0, 2.0, 3.0])

    def call(b):
        b = np.array(b, np.int64)
        if kernel == "exact_sums":
            return fn(b, x, None, None, 0)
        if kernel == "regression_sums":
            return fn(b, x, x, None, 1, False)
        return fn(x, x, b)

    for start in (1, 2):
        with pytest.raises(
            ValueError, match=f"^{kernel}: bounds must start at 0 \\(the first cell\\), got {start}$"
        ):
            call([start, 3])
    for bounds in ([0, 2], [0, 2, 1, 3], [0, 4]):  # short of the end, descending, past the end
        with pytest.raises(ValueError, match=f"^{kernel}: bounds must be ascending cell offsets"):
            call(bounds)
    call([0, 1, 3])  # from 0 to the end: as before
    call([])  # no group
