"""How sure (issue 34): the intervals of the slices and of their gaps, and the tests of the gaps
(perfeval.stats.slice_ci, docs/slices.md "How sure").  What a replicate is (each case's Poisson(1)
draw keyed by its number: the compiled walk of a slice's cases, the slices' engine, perfeval.ci's
draws), DeLong's per slice and per gap against perfeval's DeLong, the corrections over the family,
the small slices, the errors.  The coverage simulation is tests/test_slices_ci_coverage.py; fairlearn's
bootstrap beside ours is tests/test_slices_ci_fairlearn.py.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval import _native
from perfeval.base.checks import check
from perfeval.engine import resolve
from perfeval.engine.door import code
from perfeval.engine.slices import SliceSource, Task
from perfeval.exceptions import InvalidParameterError
from perfeval.stats import slice_ci
from perfeval.stats.delong import delong, delong_test
from perfeval.stats.fastpaths import REP_WIDTH, finish_plans, plan_stats
from perfeval.stats.intervals import interval, p_value
from perfeval.stats.paired import correct_tested
from perfeval.stats.replicates import Sorted, plan_of, value
from perfeval.stats.slices import replicates
from perfeval.summaries import ScoreHistogram


def quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def data(n=900, seed=0, weighted=False, ties=True):
    rng = np.random.default_rng(seed)
    site = rng.choice(["a", "b", "c", "d"], size=n, p=[0.4, 0.3, 0.2, 0.1])
    lift = {"a": 1.5, "b": 1.0, "c": 0.6, "d": 0.2}
    y = (rng.random(n) < 0.4).astype(int)
    s = rng.normal(size=n) + np.array([lift[x] for x in site]) * y
    if ties:
        s = np.round(s, 1)
    w = rng.integers(1, 4, size=n).astype(float) if weighted else None
    return y, s, site, w


def poisson(n, seed, r0, r1):
    return np.frombuffer(_native.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)


# -- the compiled walk of a slice's cases ----------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_a_column_of_some_cases_draws_the_whole_cases_weights(weighted):
    """boot_rows_multi walks a score column holding some of the cases only (a slice): its replicates
    are the measures of those cases weighted by the draws the whole column's cases get (counter = the
    case's number), which poisson_rows gives."""
    y, s, site, w = data(400, seed=3, weighted=weighted)
    sub = np.flatnonzero(site == "b")
    specs = resolve(["roc", "ap", "acc", "rms"], 0.5)
    plans = [plan_of(sp) for sp in specs]
    plan, where = plan_stats(plans)
    so = Sorted(s[sub])
    col = (sub[so.order].astype(np.int64), so.gend, so.gscores)
    wbuf = None if w is None else np.ascontiguousarray(w)
    buf = _native.boot_rows_multi(y.astype(np.uint8), wbuf, plan, 11, 0, 30, 2, col)
    st = np.frombuffer(buf, np.float64).reshape(30, len(plan) // 2, REP_WIDTH)
    fast = finish_plans(plans, where, st)
    P = poisson(len(y), 11, 0, 30)
    for r in range(30):
        wr = P[r][sub] * (1.0 if w is None else w[sub])
        keep = wr > 0
        h = ScoreHistogram.from_arrays(y[sub][keep], s[sub][keep], wr[keep])
        for i, sp in enumerate(specs):
            assert fast[i][r] == pytest.approx(value(sp, h), rel=1e-12, abs=1e-15)


def test_a_column_of_some_cases_is_checked():
    y, s, site, _ = data(50)
    plan, _ = plan_stats([plan_of(resolve(["roc"], 0.5)[0])])
    u8 = y.astype(np.uint8)
    good = (np.arange(5, dtype=np.int64), np.array([5], np.int64), np.array([0.5]))
    _native.boot_rows_multi(u8, None, plan, 0, 0, 2, 1, good)
    with pytest.raises(ValueError, match="out of range"):
        _native.boot_rows_multi(
            u8,
            None,
            plan,
            0,
            0,
            2,
            1,
            (np.array([0, 50], np.int64), np.array([2], np.int64), np.array([0.5])),
        )
    with pytest.raises(ValueError, match="more cases than there are"):
        _native.boot_rows_multi(
            u8,
            None,
            plan,
            0,
            0,
            2,
            1,
            (np.arange(51, dtype=np.int64), np.array([51], np.int64), np.array([0.5])),
        )
    with pytest.raises(ValueError, match="cover every case"):
        _native.boot_rows_multi(
            u8,
            None,
            plan,
            0,
            0,
            2,
            1,
            (np.arange(5, dtype=np.int64), np.array([4], np.int64), np.array([0.5])),
        )
    # the jackknife's column still holds every case
    with pytest.raises(ValueError, match="must hold every case"):
        _native.jack_multi(u8, None, plan, 10, 1, good)


# -- what a replicate is -----------------------------------------------------------------------------------
def _source(r):
    return r.slices.source


@pytest.mark.parametrize("weighted", [False, True])
def test_each_replicates_summaries_and_the_slices_engine_draw_the_same_replicates(weighted):
    """The binary measures without a plan (SELRATE, the operating points, ECE, the calibration fit):
    each replicate's summary of each slice gives what the slices' engine gives on the same weights."""
    y, s, site, w = data(400, seed=6, weighted=weighted)
    p = 1 / (1 + np.exp(-s))
    measures = ["selrate", "tpr_at_fpr:max_fpr=0.2", "youden:of=threshold", "ece", "cal_slope", "pauc:hi=0.3"]
    r = quiet(perfeval.evaluate, y, p, measures=measures, by={"site": site}, sample_weight=w)
    labels = r.slices.measures
    fast = replicates(_source(r), labels, ["site"], {"site": 4}, seed=3, n_boot=15)
    slow = replicates(_source(r), labels, ["site"], {"site": 4}, seed=3, n_boot=15, generic=True)
    for m in labels:
        np.testing.assert_allclose(fast.overall[m], slow.overall[m], rtol=1e-9, atol=1e-12, err_msg=m)
        np.testing.assert_allclose(
            fast.by_slicing["site"][m], slow.by_slicing["site"][m], rtol=1e-9, atol=1e-12, err_msg=m
        )


@pytest.mark.parametrize("weighted", [False, True])
def test_the_compiled_walk_and_the_slices_engine_draw_the_same_replicates(weighted):
    """Every slice's and the overall value's replicates of the measures with a plan equal those of the
    slices' engine (finish_slicing) on each replicate's Poisson weights: one set of draws."""
    y, s, site, w = data(600, seed=5, weighted=weighted)
    by = {"site": site, "band": np.where(s > 0.5, "hi", "lo")}
    r = quiet(
        perfeval.evaluate, y, s, measures=["roc", "ap", "ppv"], by=by, intersections=True, sample_weight=w
    )
    labels = r.slices.measures
    sizes = {sl.name: len(sl) for sl in r.slices.slicings}
    names = list(sizes)
    fast = replicates(_source(r), labels, names, sizes, seed=4, n_boot=40)
    slow = replicates(_source(r), labels, names, sizes, seed=4, n_boot=40, generic=True)
    for m in labels:
        np.testing.assert_allclose(fast.overall[m], slow.overall[m], rtol=1e-12, atol=1e-15)
        for name in names:
            np.testing.assert_allclose(
                fast.by_slicing[name][m], slow.by_slicing[name][m], rtol=1e-12, atol=1e-15
            )


def test_a_replicate_is_each_slice_evaluated_with_the_draws_as_weights():
    """Replicate r of slice k is evaluate() of the slice's rows with sample_weight = their draws (and the
    weights given): any kind of measure, here SELRATE (no plan) and a regression's MAE."""
    y, s, site, w = data(300, seed=8, weighted=True)
    r = quiet(perfeval.evaluate, y, s, measures=["selrate", "roc"], by={"site": site}, sample_weight=w)
    sizes = {"site": 4}
    reps = replicates(_source(r), ["SELRATE", "ROC"], ["site"], sizes, seed=9, n_boot=6)
    P = poisson(len(y), 9, 0, 6)
    for k, key in enumerate(r.slices.slicing("site").keys):
        rows = site == key
        for j in range(6):
            wr = P[j] * w
            keep = rows & (wr > 0)
            alone = quiet(
                perfeval.evaluate, y[keep], s[keep], measures=["selrate", "roc"], sample_weight=wr[keep]
            )
            assert reps.by_slicing["site"]["SELRATE"][k, j] == pytest.approx(alone["SELRATE"], rel=1e-14)
            assert reps.by_slicing["site"]["ROC"][k, j] == pytest.approx(alone["ROC"], rel=1e-12)
    t = s * 2 + np.random.default_rng(1).normal(size=len(s))
    rr = quiet(perfeval.evaluate, t, s, measures=["mae"], by={"site": site}, task="regression")
    reps = replicates(_source(rr), ["MAE"], ["site"], sizes, seed=2, n_boot=3)
    P = poisson(len(y), 2, 0, 3)
    for k, key in enumerate(rr.slices.slicing("site").keys):
        for j in range(3):
            keep = (site == key) & (P[j] > 0)
            alone = quiet(
                perfeval.evaluate,
                t[keep],
                s[keep],
                measures=["mae"],
                sample_weight=P[j][keep],
                task="regression",
            )
            assert reps.by_slicing["site"]["MAE"][k, j] == pytest.approx(alone["MAE"], rel=1e-13)


def test_the_overall_interval_is_perfeval_ci_with_case_weights():
    """The overall value's replicates are perfeval.ci's own with sample_weight= (the same draws, keyed
    by the case's number): the same percentile interval."""
    y, s, site, w = data(700, seed=2, weighted=True)
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "ap"], by={"site": site}, sample_weight=w)
    c = slice_ci(r, n_boot=300, seed=6)
    ref = perfeval.ci(y, s, measures=["roc", "ap"], method="percentile", n_boot=300, seed=6, sample_weight=w)
    for m in ("ROC", "AP"):
        got = c.overall[m]
        assert got.estimate == pytest.approx(ref[m].estimate, rel=1e-14)
        assert (got.low, got.high, got.se) == pytest.approx((ref[m].low, ref[m].high, ref[m].se), rel=1e-12)
        assert (got.method, got.n_boot, got.seed, got.resampled) == ("percentile", 300, 6, "cases")


def test_queries_are_resampled_whole():
    """With groups= (per-query measures) a replicate weighs whole queries: the overall interval is
    perfeval.ci's group bootstrap's, and each slice's replicate is the weighted mean of its (slice,
    query) values with its queries' draws."""
    rng = np.random.default_rng(12)
    n = 1200
    q = rng.integers(0, 120, size=n)
    y = rng.integers(0, 3, size=n)
    s = np.round(rng.normal(size=n) + 0.5 * y, 1)
    dev = np.where(rng.random(n) < 0.5, "mobile", "desktop")
    r = quiet(perfeval.evaluate, y, s, measures=["ndcg@5"], groups=q, by={"device": dev})
    c = slice_ci(r, n_boot=200, seed=3)
    assert c.resampled == "groups"
    ref = quiet(perfeval.ci, y, s, measures="ndcg@5", groups=q, method="percentile", n_boot=200, seed=3)
    got = c.overall["NDCG@5"]
    assert (got.low, got.high, got.resampled) == (
        pytest.approx(ref["NDCG@5"].low, rel=1e-12),
        pytest.approx(ref["NDCG@5"].high, rel=1e-12),
        ref["NDCG@5"].resampled,
    )
    reps = replicates(_source(r), ["NDCG@5"], ["device"], {"device": 2}, seed=3, n_boot=4)
    P = poisson(120, 3, 0, 4)
    for k, key in enumerate(r.slices.slicing("device").keys):
        rows = dev == key
        alone = quiet(perfeval.evaluate, y[rows], s[rows], measures=["ndcg@5"], groups=q[rows])
        vals = np.asarray(alone.results["NDCG@5"].per_group)
        qs = np.asarray(alone.groups)
        ok = ~np.isnan(vals)
        for j in range(4):
            wq = P[j][qs[ok]]
            assert reps.by_slicing["device"]["NDCG@5"][k, j] == pytest.approx(
                (wq * vals[ok]).sum() / wq.sum(), rel=1e-12
            )


def test_the_same_seed_gives_the_same_intervals_on_any_threads():
    y, s, site, _ = data(500, seed=7)
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "ap"], by={"site": site})
    a = slice_ci(r, n_boot=200, seed=5, threads=1).frame()
    b = slice_ci(r, n_boot=200, seed=5, threads=2).frame()
    c = slice_ci(r, n_boot=200, seed=6, threads=2).frame()
    assert a.equals(b)
    assert not a.equals(c)


# -- the interval arithmetic ------------------------------------------------------------------------------
def test_each_interval_is_the_percentile_of_its_replicates():
    """A slice's interval, its gap to the overall value (and the p-value) and the slicing's gaps are
    perfeval.stats.intervals' percentile interval and p-value of the replicates read from one draw."""
    from perfeval.api.slices import difference_of, ratio_of

    y, s, site, _ = data(800, seed=1)
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site})
    c = slice_ci(r, n_boot=250, seed=2, reference="b")
    reps = replicates(_source(r), ["ROC"], ["site"], {"site": 4}, seed=2, n_boot=250)
    V, Vo = reps.by_slicing["site"]["ROC"], reps.overall["ROC"]
    f = c.frame()
    sl = r.slices.slicing("site")
    for k, key in enumerate(sl.keys):
        row = f.loc[("site", key, "ROC")]
        v = sl.values.values["ROC"][k]
        lo, hi, sd, _note = interval(v, V[k], 0.95, "percentile", 0.0)
        assert (row["low"], row["high"], row["se"]) == pytest.approx((lo, hi, sd), rel=1e-12)
        lo, hi, _, _note = interval(v - r["ROC"], V[k] - Vo, 0.95, "percentile", 0.0)
        assert (row["to_overall_low"], row["to_overall_high"]) == pytest.approx((lo, hi), rel=1e-12)
        assert row["p"] == p_value(V[k] - Vo)
        if key != "b":
            assert row["p_reference"] == p_value(V[k] - V[1])
    g = c.gaps().loc[("site", "ROC")]
    D = np.array([difference_of(V[:, j], "between_groups") for j in range(250)])
    lo, hi, _, _note = interval(r.slices.difference("roc"), D, 0.95, "percentile", 0.0)
    assert (g.loc["difference", "low"], g.loc["difference", "high"]) == pytest.approx((lo, hi), rel=1e-12)
    R = np.array([ratio_of(V[:, j], "to_overall", Vo[j]) for j in range(250)])
    lo, hi, _, _note = interval(r.slices.ratio("roc", method="to_overall"), R, 0.95, "percentile", 0.0)
    assert (g.loc["ratio_to_overall", "low"], g.loc["ratio_to_overall", "high"]) == pytest.approx(
        (lo, hi), rel=1e-12
    )
    assert g.loc["worst", "slice"] == r.slices.worst("roc")[0].key
    assert g.loc["worst", "estimate"] == r.slices.worst("roc")[0].value
    for gap, want in (
        ("difference", r.slices.difference("roc")),
        ("ratio", r.slices.ratio("roc")),
        ("difference_to_overall", r.slices.difference("roc", method="to_overall")),
        ("difference_to_reference", r.slices.difference("roc", reference="b")),
        ("ratio_to_reference", r.slices.ratio("roc", reference="b")),
        ("group_min", r.slices.group_min("roc")),
        ("group_max", r.slices.group_max("roc")),
    ):
        assert g.loc[gap, "estimate"] == want
        assert g.loc[gap, "low"] <= want <= g.loc[gap, "high"]


def test_the_tests_are_corrected_over_the_slicing():
    y, s, site, _ = data(900, seed=4)
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "ap"], by={"site": site, "half": np.arange(900) % 2})
    f = slice_ci(r, n_boot=300, seed=1).frame()
    for _key, part in f.groupby(level=["slicing", "measure"]):
        np.testing.assert_array_equal(part["p_holm"].to_numpy(), correct_tested(part["p"].to_numpy(), "holm"))
        np.testing.assert_array_equal(part["p_bh"].to_numpy(), correct_tested(part["p"].to_numpy(), "bh"))
    # site a's ranking is well above the whole's in this data: rejected after either correction
    a = f.loc[("site", "a", "ROC")]
    assert a["to_overall"] > 0 and a["p_holm"] < 0.05 and a["p_bh"] <= a["p_holm"]
    pw = slice_ci(r, n_boot=300, seed=1, slicing="site").pairwise("roc")
    assert len(pw) == 6 and list(pw.index[0]) == ["a", "b"]
    np.testing.assert_array_equal(pw["p_bh"].to_numpy(), correct_tested(pw["p"].to_numpy(), "bh"))


# -- DeLong -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_delong_per_slice_and_between_slices_is_perfeval_delong(weighted):
    y, s, site, w = data(800, seed=9, weighted=weighted)
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site}, sample_weight=w)
    c = slice_ci(r, method="delong", reference="a", level=0.9)
    f = c.frame()
    ref = site == "a"
    for key in "abcd":
        rows = site == key
        d = delong(y[rows], s[rows], sample_weight=None if w is None else w[rows], level=0.9)
        row = f.loc[("site", key, "ROC")]
        assert (row["value"], row["low"], row["high"], row["se"]) == pytest.approx(
            (d.auc, *d.ci, d.se), rel=1e-12
        )
        if key != "a":
            t = delong_test(
                y[rows], s[rows], s[ref], paired=False, y_true_b=y[ref], level=0.9,
                sample_weight=None if w is None else w[rows], sample_weight_b=None if w is None else w[ref],
            )  # fmt: skip
            got = (row["to_reference"], row["to_reference_low"], row["to_reference_high"], row["p_reference"])
            assert got == pytest.approx((t.difference, *t.ci, t.p_value), rel=1e-10)
    assert (c.n_boot, c.seed, c.method) == (0, None, "delong")


def test_delong_gap_to_the_overall_area_has_their_covariance():
    """A slice's gap to the overall area: Var(A_k) + Var(A) - 2 Cov; the covariance makes a slice that
    is the whole a gap of 0 with no spread, and agrees with the bootstrap's spread of the same gap."""
    y, s, site, _ = data(4000, seed=10, ties=False)
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site, "all": np.zeros(len(y), int)})
    f = slice_ci(r, method="delong").frame()
    whole = f.loc[("all", 0, "ROC")]
    assert whole["to_overall"] == 0 and whole["to_overall_low"] == pytest.approx(0, abs=1e-9)
    assert whole["se"] == pytest.approx(delong(y, s).se, rel=1e-12)
    b = slice_ci(r, n_boot=2000, seed=1, slicing="site").frame()
    for key in "abcd":
        dl = f.loc[("site", key, "ROC")]
        bs = b.loc[("site", key, "ROC")]
        width_dl = dl["to_overall_high"] - dl["to_overall_low"]
        width_bs = bs["to_overall_high"] - bs["to_overall_low"]
        assert width_dl == pytest.approx(width_bs, rel=0.12), key
        # and not the independent sum (no covariance), which is wider
        var_k, var = dl["se"] ** 2, delong(y, s).variance
        assert width_dl < 0.97 * 2 * 1.959964 * math.sqrt(var_k + var)


def test_delong_is_for_the_roc_area():
    y, s, site, _ = data(300)
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "ap"], by={"site": site})
    with pytest.raises(
        InvalidParameterError, match="DeLong's interval is for the ROC area over all cases, not AP"
    ):
        slice_ci(r, method="delong")
    g = slice_ci(r, method="delong", measures="roc").gaps().loc[("site", "ROC", "difference")]
    assert math.isnan(g["low"]) and "needs the bootstrap" in g["why"]


# -- small slices, min_size ------------------------------------------------------------------------------
def test_a_small_slice_leaves_the_gaps_without_interval_unless_left_out():
    """A slice of a few cases is often undefined in a replicate (no positive drawn): more than 5% of the
    replicates, so its interval is none, and the slicing's gaps (which need every slice in every
    replicate) neither, naming it; with min_size and skip_flagged=True it is left out of the gaps and of
    the tests, its own row still there."""
    y, s, site, _ = data(600, seed=11)
    site = site.astype(object)
    site[:4] = "tiny"
    y[:4] = [1, 0, 0, 0]
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site}, min_size=20)
    c = slice_ci(r, n_boot=300, seed=0)
    row = c.frame().loc[("site", "tiny", "ROC")]
    assert math.isnan(row["low"]) and "more than 5% of the replicates" in row["why"]
    g = c.gaps().loc[("site", "ROC", "difference")]
    assert math.isnan(g["low"]) and "'tiny'" in g["why"] and "skip_flagged=True" in g["why"]
    c2 = slice_ci(r, n_boot=300, seed=0, skip_flagged=True)
    g2 = c2.gaps().loc[("site", "ROC", "difference")]
    assert g2["low"] < g2["estimate"] < g2["high"]
    assert g2["estimate"] == r.slices.difference("roc", skip_flagged=True)
    tiny = c2.frame().loc[("site", "tiny", "ROC")]
    assert math.isnan(tiny["p"]) and "below min_size" in tiny["why"]
    rest = c2.frame().xs("ROC", level="measure").drop(("site", "tiny"))
    np.testing.assert_array_equal(rest["p_holm"].to_numpy(), correct_tested(rest["p"].to_numpy(), "holm"))


def test_an_undefined_slice_is_listed_with_why():
    y, s, site, _ = data(500, seed=12)
    site = site.astype(object)
    site[:6] = "pos"
    y[:6] = 1
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site})
    row = slice_ci(r, n_boot=100).frame().loc[("site", "pos", "ROC")]
    assert math.isnan(row["value"]) and math.isnan(row["p"]) and "one class only" in row["why"]


# -- JSON, errors ---------------------------------------------------------------------------------------
def test_the_report_json_holds_the_intervals():
    y, s, site, _ = data(400, seed=13)
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site})
    c = slice_ci(r, n_boot=100, seed=2, reference="a")
    assert r.slices.intervals is c
    d = json.loads(r.to_json())["slices"]["intervals"]
    assert (d["method"], d["n_boot"], d["seed"], d["resampled"], d["reference"]) == (
        "percentile",
        100,
        2,
        "cases",
        "a",
    )
    one = d["slicings"][0]["measures"]["ROC"]
    a = next(x for x in one["slices"] if x["slice"] == "a")
    assert (
        a["to_reference"]["difference"] == 0 and a["to_reference"]["why_null"] == "the reference slice itself"
    )
    assert a["to_reference"]["low"] is None
    assert one["gaps"]["difference"]["low"] < one["gaps"]["difference"]["estimate"]
    assert "worst" in one["gaps"] and one["gaps"]["worst"]["slice"] == r.slices.worst("roc")[0].key


@pytest.mark.parametrize(
    "kw, said",
    [
        ({"method": "bca"}, "choose 'percentile' (the bootstrap) or 'delong' (BCa's acceleration would need"),
        ({"level": 1.0}, "strictly between 0 and 1"),
        ({"n_boot": 1}, "n_boot=1"),
        ({"seed": -1}, "`seed` must be a whole number >= 0"),
        ({"reference": "zz"}, "reference='zz' is not a slice of 'site'"),
        ({"measures": "ndcg"}, "'ndcg' is not a measure of these slices"),
        ({"slicing": "nope"}, "no slicing 'nope'"),
    ],
)
def test_bad_requests_are_one_line(kw, said):
    y, s, site, _ = data(200)
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site})
    with pytest.raises(InvalidParameterError) as e:
        slice_ci(r, **kw)
    assert said in str(e.value) and "\n" not in str(e.value)
    assert r.slices.intervals is None  # a failed call changes nothing


def test_no_slices_or_no_cases_is_one_line():
    y, s, site, _ = data(200)
    with pytest.raises(InvalidParameterError, match="has no slices"):
        slice_ci(quiet(perfeval.evaluate, y, s, measures=["roc"]))
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"site": site})
    r.slices.source = None  # slices made from summaries (a stream) keep no cases
    with pytest.raises(InvalidParameterError, match="keep no cases to resample"):
        slice_ci(r)


def test_the_source_is_the_checked_cases_in_the_order_given():
    """The rows of weight 0 are no case (dropped, as the door drops them); the others keep their order,
    whatever order the slices were finished in."""
    y, s, site, w = data(300, seed=14, weighted=True)
    w[::7] = 0
    r = quiet(
        perfeval.evaluate, y, s, measures=["roc"], by={"site": site, "h": np.arange(300) % 3}, sample_weight=w
    )
    src = r.slices.source
    assert isinstance(src, SliceSource) and isinstance(src.task, Task)
    keep = w > 0
    np.testing.assert_array_equal(src.cases.s, s[keep])
    codes = src.codes(["site"])["site"]
    keys = r.slices.slicing("site").keys
    assert [keys[c] for c in codes[:10]] == list(site[keep][:10])
    cases = check(y, s, None, w)
    code(cases)
    assert len(cases.s) == len(src.cases.s)


def test_an_interval_of_width_zero_says_it_says_nothing():
    """A slice of one class keeps its one class in every replicate: its AP is 1 in each, an interval of
    width 0 that says nothing of how sure the value is; said beside it (and in the JSON, as a note)."""
    y, s, site, _ = data(500, seed=15)
    site = site.astype(object)
    site[:6] = "pos"
    y[:6] = 1
    r = quiet(perfeval.evaluate, y, s, measures=["ap"], by={"site": site})
    c = slice_ci(r, n_boot=100)
    row = c.frame().loc[("site", "pos", "AP")]
    assert row["value"] == row["low"] == row["high"] == 1.0 and "width 0" in row["why"]
    assert not isinstance(c.frame().loc[("site", "a", "AP"), "why"], str)
    d = json.loads(r.to_json())["slices"]["intervals"]["slicings"][0]["measures"]["AP"]["slices"]
    pos = next(x for x in d if x["slice"] == "pos")
    assert "width 0" in pos["note"] and "why_null" not in pos
