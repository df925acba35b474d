"""Bootstrap intervals and comparisons: the Poisson sampler, the compiled replicate loops against
plain numpy recomputation, reproducibility, the exact jackknife, coverage on data with a known true
ROC area, and agreement with DeLong's standard error."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import _native
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import parse_measure
from perfeval.stats import ci, compare
from perfeval.stats.fastpaths import jack_roc_hist
from perfeval.stats.intervals import p_value
from perfeval.summaries import ScoreHistogram


@pytest.mark.parametrize("lam", [0.3, 1.0, 2.0, 3.7, 9.0, 10.0, 42.5, 1000.0])
def test_poisson_draws_have_the_right_moments(lam):
    n = 200_000
    p, _ = _native.boot_hist_draws(np.full(n, lam), np.zeros(n), 11, 0, 1, False)
    d = np.frombuffer(p)
    sd = math.sqrt(lam / n)
    assert abs(d.mean() - lam) < 5 * sd
    assert abs(d.var() / lam - 1) < 0.03
    assert (d == np.floor(d)).all() and d.min() >= 0
    if lam < 5:
        assert abs((d == 0).mean() - math.exp(-lam)) < 0.005


def test_poisson_one_case_weights():
    d = np.frombuffer(_native.poisson_rows(300_000, 5, 0, 1))
    for k in range(5):
        assert abs((d == k).mean() - math.exp(-1) / math.factorial(k)) < 0.004


def _auc(h: ScoreHistogram) -> float:
    return float(parse_measure("roc")(h))


def test_fused_roc_replicates_equal_recomputation_from_the_drawn_counts():
    from perfeval.stats.replicates import hist_replicates

    rng = np.random.default_rng(3)
    y = (rng.random(3000) < 0.3).astype(int)
    s = np.round(rng.normal(size=3000) + y, 1)  # ties
    h = ScoreHistogram.from_arrays(y, s)
    roc = [parse_measure("roc")]
    fused = hist_replicates(roc, h, 9, 20, 2)[0]
    P, Q = (np.frombuffer(b).reshape(20, -1) for b in _native.boot_hist_draws(h.pos, h.neg, 9, 0, 20, False))
    for r in range(20):  # whole numbers: the area is exact in any order, equal to the bit
        assert fused[r] == _auc(ScoreHistogram(h.scores, P[r], Q[r]))
    # any split of the replicates, any number of threads: the same numbers
    sc, pos, neg = h.scores, h.pos, h.neg
    plan = np.array([0.0, 0.0])
    part = np.frombuffer(_native.boot_hist_multi(sc, pos, neg, plan, 9, 5, 13, 1)).reshape(8, 4)
    assert np.array_equal(part[:, 0] / (part[:, 1] * part[:, 2]), fused[5:13])
    assert np.array_equal(hist_replicates(roc, h, 9, 20, 3)[0], fused)


def test_case_level_roc_replicates_equal_recomputation_from_the_drawn_weights():
    from perfeval.stats.replicates import Sorted, row_replicates

    rng = np.random.default_rng(4)
    y = (rng.random(800) < 0.4).astype(int)
    a = np.round(rng.normal(size=800) + y, 1)
    b = np.round(rng.normal(size=800) + 0.5 * y, 2)
    w = rng.random(800) * 3
    sa, sb = Sorted(a), Sorted(b)
    roc = parse_measure("roc")
    ra, rb = row_replicates([(roc, sa), (roc, sb)], y == 1, w, 7, 15, 2)
    P = np.frombuffer(_native.poisson_rows(800, 7, 0, 15)).reshape(15, 800)
    for r in range(15):
        assert ra[r] == pytest.approx(_auc(ScoreHistogram.from_arrays(y, a, P[r] * w)), abs=1e-12)
        assert rb[r] == pytest.approx(_auc(ScoreHistogram.from_arrays(y, b, P[r] * w)), abs=1e-12)


def test_exact_jackknife_of_the_roc_area():
    rng = np.random.default_rng(5)
    y = (rng.random(60) < 0.5).astype(int)
    s = np.round(rng.random(60), 1)
    vals, mult = jack_roc_hist(ScoreHistogram.from_arrays(y, s))
    brute = sorted(_auc(ScoreHistogram.from_arrays(np.delete(y, i), np.delete(s, i))) for i in range(60))
    mine = sorted(np.repeat(vals[mult > 0], mult[mult > 0].astype(int)).tolist())
    assert mine == pytest.approx(brute, abs=1e-12)


def test_reproducible_and_thread_independent():
    rng = np.random.default_rng(6)
    y = (rng.random(2000) < 0.3).astype(int)
    s = rng.normal(size=2000) + y
    a = ci(y, s, measures=["roc", "apr"], n_boot=100, seed=3, threads=1)
    b = ci(y, s, measures=["roc", "apr"], n_boot=100, seed=3, threads=4)
    assert a == b
    assert ci(y, s, measures="roc", n_boot=100, seed=4)["ROC"] != a["ROC"]


def _binormal(rng, n_neg=150, n_pos=100, d=1.0):
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    return y, rng.normal(size=n_neg + n_pos) + d * y


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_roc_interval_coverage(method):
    """The true area of binormal data (unit variances, mean gap 1) is Phi(1 / sqrt 2)."""
    rng = np.random.default_rng(99)
    truth = NormalDist().cdf(1 / math.sqrt(2))
    reps, hits = 300, 0
    for i in range(reps):
        y, s = _binormal(rng)
        r = ci(y, s, measures="roc", method=method, n_boot=400, seed=i)["ROC"]
        hits += r.low <= truth <= r.high
    assert 0.91 <= hits / reps <= 0.985, hits / reps  # binomial sd 0.0126 around 0.95


def test_bootstrap_se_agrees_with_delong():
    rng = np.random.default_rng(8)
    y, s = _binormal(rng, 3000, 2000)
    boot = ci(y, s, measures="roc", n_boot=2000, seed=1)["ROC"]
    de = ci(y, s, measures="roc", method="delong")["ROC"]
    assert boot.estimate == pytest.approx(de.estimate, abs=1e-12)
    assert boot.se == pytest.approx(de.se, rel=0.08)
    assert boot.low == pytest.approx(de.low, abs=0.004) and boot.high == pytest.approx(de.high, abs=0.004)


def test_weights_path_and_group_resampling():
    rng = np.random.default_rng(9)
    y = (rng.random(1000) < 0.4).astype(int)
    s = rng.normal(size=1000) + y
    unit = ci(y, s, measures="apr", n_boot=200, seed=2, sample_weight=np.ones(1000))["APR"]
    assert unit.low < unit.estimate < unit.high
    g = np.repeat(np.arange(100), 10)
    r = ci(y, s, measures=["gauc", "ndcg@5"], groups=g, n_boot=200, seed=2)
    assert r["GAUC"].resampled == "groups" and r["GAUC"].low < r["GAUC"].estimate < r["GAUC"].high
    # a replicate is the Poisson-weighted mean of the per-group values: recompute one interval by hand
    from perfeval import evaluate

    per = evaluate(y, s, measures=["ndcg@5"], groups=g).results["NDCG@5"].per_group
    P = np.frombuffer(_native.poisson_rows(100, 2, 0, 200)).reshape(200, 100)
    ok = ~np.isnan(per)  # groups with nothing relevant have no NDCG and stay out of every mean
    assert 0 < ok.sum() < 100
    reps = (P[:, ok] @ per[ok]) / P[:, ok].sum(axis=1)
    assert r["NDCG@5"].se == pytest.approx(reps.std(ddof=1), rel=1e-12)


def test_compare_paired():
    rng = np.random.default_rng(10)
    y = (rng.random(600) < 0.5).astype(int)
    latent = rng.normal(size=600) + y
    a, b = latent + 0.3 * rng.normal(size=600), latent + 1.5 * rng.normal(size=600)
    c = compare(y, a, b, measures=["roc", "apr"], n_boot=500, seed=1)
    d = compare(y, a, b, measures="roc", method="delong")["ROC"]
    assert c["ROC"].difference == pytest.approx(d.difference, abs=1e-12)
    assert c["ROC"].se == pytest.approx(d.se, rel=0.15)
    assert c["ROC"].p_value < 0.01 and d.p_value < 0.01 and c["ROC"].low > 0
    same = compare(y, a, a, measures=["roc", "apr"], n_boot=100)
    assert same["ROC"].difference == 0 and same["ROC"].p_value == 1.0 and same["APR"].se == 0.0
    g = np.repeat(np.arange(60), 10)
    cg = compare(y, a, b, measures="gauc", groups=g, n_boot=300, seed=1)["GAUC"]
    assert cg.resampled == "groups" and cg.difference > 0


def test_p_value_is_never_zero():
    assert p_value(np.ones(99)) == pytest.approx(2 / 100)
    assert p_value(np.r_[-np.ones(50), np.ones(50)]) == 1.0


def test_bad_requests():
    y, s = [0, 1, 0, 1, 1, 0], [0.1, 0.9, 0.3, 0.6, 0.2, 0.4]
    with pytest.raises(InvalidParameterError, match="unknown interval method 'jackknife'"):
        ci(y, s, method="jackknife")
    with pytest.raises(InvalidParameterError, match="Wald's interval is for the logistic calibration fits"):
        ci(y, s, method="wald")  # of the ROC area: no fit
    with pytest.raises(InvalidParameterError, match="strictly between 0 and 1"):
        ci(y, s, level=1.5)
    with pytest.raises(InvalidParameterError, match="at least 2 replicates"):
        ci(y, s, n_boot=1)
    with pytest.raises(InvalidParameterError, match="DeLong's interval is for the ROC area"):
        ci(y, s, measures="apr", method="delong")
    with pytest.raises(InvalidParameterError, match="over groups: pass `groups=`"):
        ci(y, s, measures="ndcg@5")


def test_exact_case_jackknife_of_the_roc_area_with_weights():
    from perfeval.stats.fastpaths import jack_roc_rows
    from perfeval.stats.replicates import Cases

    rng = np.random.default_rng(12)
    y = (rng.random(40) < 0.5).astype(int)
    s = np.round(rng.random(40), 1)
    w = rng.integers(1, 4, 40).astype(float)
    got = jack_roc_rows(Cases(y, s, w, None))
    for i in range(40):
        keep = np.arange(40) != i
        want = _auc(ScoreHistogram.from_arrays(y[keep], s[keep], w[keep]))
        assert got[i] == pytest.approx(want, abs=1e-12)


def test_delete_a_group_jackknife_equals_recomputation():
    from perfeval.stats.replicates import JACK_GROUPS, Cases, jack_groups

    rng = np.random.default_rng(13)
    n = 450
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.random(n), 2)  # ties: deleting a group empties some cells
    w = rng.integers(1, 4, n).astype(float)  # APR takes whole-number weights (counts)
    spec = parse_measure("apr")
    got = jack_groups(spec, Cases(y, s, w, None), threads=2)
    G = min(JACK_GROUPS, n)
    for g in range(G):
        keep = np.arange(n) % G != g
        want = float(spec(ScoreHistogram.from_arrays(y[keep], s[keep], w[keep])))
        assert got[g] == pytest.approx(want, abs=1e-12)


def test_shared_replicates_equal_one_measure_at_a_time():
    rng = np.random.default_rng(14)
    y = (rng.random(3000) < 0.3).astype(int)
    s = np.round(rng.normal(size=3000) + y, 2)
    together = ci(y, s, measures=["apr", "acc", "roc"], n_boot=150, seed=6, threads=2)
    for m in ("apr", "acc", "roc"):
        alone = ci(y, s, measures=m, n_boot=150, seed=6, threads=1)
        assert alone[m.upper()] == together[m.upper()]


def test_intervals_from_merged_chunk_summaries_equal_the_cases():
    from perfeval.stats import ci_from_summary

    rng = np.random.default_rng(15)
    y = (rng.random(4000) < 0.35).astype(int)
    s = np.round(rng.normal(size=4000) + y, 3)
    merged = ScoreHistogram.merge_all(
        [ScoreHistogram.from_arrays(y[k : k + 900], s[k : k + 900]) for k in range(0, 4000, 900)]
    )
    got = ci_from_summary(merged, ["roc", "apr", "rms"], n_boot=200, seed=3)
    assert got == ci(y, s, measures=["roc", "apr", "rms"], method="percentile", n_boot=200, seed=3)
    assert ci_from_summary(merged, "roc", method="bca", n_boot=200, seed=3) == ci(
        y, s, measures="roc", n_boot=200, seed=3
    )
    with pytest.raises(InvalidParameterError, match="needs unweighted cases"):
        ci_from_summary(ScoreHistogram.from_arrays([0, 1], [0.2, 0.8], [0.5, 1.5]))


def test_every_default_measure_without_warnings(recwarn):
    """PERF's whole report: every interval is a number except where the estimate is not (an infinite
    cross-entropy from a prediction of 0 for a positive), and no numpy warning escapes."""
    from perfeval.api.evaluation import DEFAULT_MEASURES

    rng = np.random.default_rng(16)
    y = (rng.random(3000) < 0.3).astype(int)
    s = np.clip(np.round(rng.normal(0.4, 0.2, 3000) + 0.2 * y, 3), 0, 1)
    s[np.flatnonzero(y == 1)[0]] = 0.0
    for kw in ({}, {"sample_weight": rng.integers(1, 3, 3000).astype(float)}):
        r = ci(y, s, measures=DEFAULT_MEASURES, n_boot=60, **kw)
        assert [k for k, v in r.items() if math.isnan(v.low)] == ["CXE"], kw
        assert all(v.low <= v.estimate <= v.high for k, v in r.items() if k != "CXE")
    c = compare(y, s, s**2, measures=DEFAULT_MEASURES, n_boot=60)
    assert [k for k, v in c.items() if math.isnan(v.low)] == ["CXE"]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


# -- the draws: counter-based, by table inversion --------------------------------------------------


@pytest.mark.parametrize("lam", [1.0, 2.0, 7.0, 30.0, 250.0, 1024.0, 2.5, 1500.0])
def test_poisson_draws_follow_the_distribution(lam):
    """Tables for whole means up to 1024, the generator past them and for other means: a chi-square
    test of 200,000 draws against the exact probabilities (a fixed seed: passes or fails for good)."""
    from scipy.stats import chi2, poisson

    n = 200_000
    p, _ = _native.boot_hist_draws(np.full(n, lam), np.zeros(n), 3, 0, 1, False)
    d = np.frombuffer(p).astype(np.int64)
    lo, hi = int(poisson.ppf(1e-6, lam)), int(poisson.isf(1e-6, lam))
    edges = np.arange(lo, hi + 2)
    expected = np.diff(np.r_[poisson.cdf(lo - 1, lam), poisson.cdf(edges[1:] - 1, lam)]) * n
    expected[0] += poisson.cdf(lo - 1, lam) * n
    expected[-1] += poisson.sf(hi, lam) * n
    observed = np.bincount(np.clip(d, lo, hi) - lo, minlength=hi - lo + 1).astype(float)
    # merge the sparse tails into their neighbours (expected counts of at least 5 a bin)
    cells, acc_o, acc_e = [], 0.0, 0.0
    for o, e in zip(observed, expected, strict=True):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            cells.append((acc_o, acc_e))
            acc_o = acc_e = 0.0
    if acc_e:
        cells[-1] = (cells[-1][0] + acc_o, cells[-1][1] + acc_e)
    o, e = np.array(cells).T
    stat = ((o - e) ** 2 / e).sum()
    assert chi2.sf(stat, len(o) - 1) > 1e-4, (stat, len(o))


def test_a_draw_depends_on_its_seed_replicate_and_cell_only():
    """A cell's draw in replicate r is a function of (seed, r, cell): the same whatever the other
    cells, however the replicates are split, and the same in one replicate's compact summary."""
    rng = np.random.default_rng(11)
    pos = rng.integers(0, 4, 500).astype(float)
    neg = rng.integers(0, 40, 500).astype(float)
    P, Q = (np.frombuffer(b).reshape(6, -1) for b in _native.boot_hist_draws(pos, neg, 5, 0, 6, False))
    more = [np.r_[pos, 7.0, 0.0], np.r_[neg, 1.0, 12.0]]
    P2, Q2 = (np.frombuffer(b).reshape(3, -1) for b in _native.boot_hist_draws(*more, 5, 3, 6, False))
    assert np.array_equal(P2[:, :500], P[3:]) and np.array_equal(Q2[:, :500], Q[3:])
    cells, p, q = (
        np.frombuffer(b, t)
        for b, t in zip(
            _native.boot_hist_draws(pos, neg, 5, 4, 5, True), (np.int64, float, float), strict=True
        )
    )
    drawn = np.flatnonzero(P[4] + Q[4])
    assert np.array_equal(cells, drawn) and np.array_equal(p, P[4][drawn]) and np.array_equal(q, Q[4][drawn])
    # the case weights of the rows path are the same draws with the case's number as the counter
    rows = np.frombuffer(_native.poisson_rows(300, 5, 0, 6)).reshape(6, 300)
    assert np.array_equal(rows, np.frombuffer(_native.poisson_rows(300, 5, 0, 6)).reshape(6, 300))
    assert not np.array_equal(rows[0], rows[1])
    assert np.array_equal(np.frombuffer(_native.poisson_rows(200, 5, 2, 4)).reshape(2, 200), rows[2:4, :200])


def _walks() -> list[str]:
    here = _native.walk_target()
    out = []
    for name in ("base", "v3", "v4"):
        try:
            _native.walk_target(name)
            out.append(name)
        except ValueError:
            pass
    _native.walk_target(here)
    return out


def test_every_walk_this_machine_runs_gives_the_same_bits():
    """The walk is compiled for the baseline, AVX2 and AVX-512: each lane's arithmetic is the same
    IEEE operations, so every compiled walk gives the same numbers, to the bit."""
    from perfeval.stats import replicates as R
    from perfeval.stats.fastpaths import FAST_PATHS

    # every measure with a plan, and some parameters that take other code (eps clips, p = 2 squares)
    names = [name.lower() for name, fp in FAST_PATHS.items() if fp.plan is not None]
    names += ["ntop@25", "ca2:window=40", "logloss:eps=0.01", "nrm:p=3", "nrm:p=0.5"]
    names += ["ece:bins=mass", "ece:norm=l2,debiased=yes", "brier_mcb:form=murphy", "brier_dsc:form=murphy"]
    names += ["pauc:focus=tpr,lo=0.2,hi=0.9", "least_cost:fn=3,of=threshold", "sen_at_spc:of=threshold"]
    specs = [parse_measure(m) for m in names]
    specs = [sp for sp in specs if FAST_PATHS[sp.measure.name].plan(sp) is not None]  # not CORP's
    frac = [sp for sp in specs if not FAST_PATHS[sp.measure.name].plan(sp).counts]
    rng = np.random.default_rng(12)
    y = (rng.random(3000) < 0.3).astype(int)
    a = np.clip(np.round(rng.normal(0.4, 0.2, 3000) + 0.2 * y, 3), 0, 1)
    b = np.clip(a + np.round(rng.normal(0, 0.1, 3000), 2), 0, 1)
    h = ScoreHistogram.from_arrays(y, a)
    sa, sb = R.Sorted(a), R.Sorted(b)
    w = rng.integers(1, 4, 3000).astype(float)
    wf = rng.random(3000) + 0.25  # weights that are not counts: the plans that take them
    here = _native.walk_target()
    got = {}
    try:
        for name in _walks():
            _native.walk_target(name)
            got[name] = (
                R.hist_replicates(specs, h, 3, 40, 2)
                + R.row_replicates([(sp, so) for sp in specs for so in (sa, sb)], y == 1, w, 3, 40, 2)
                + R.jack_groups_many(specs, R.Cases(y, a, w, None), threads=2)
                + R.row_replicates([(sp, so) for sp in frac for so in (sa, sb)], y == 1, wf, 3, 40, 2)
                + R.jack_groups_many(frac, R.Cases(y, a, wf, None), threads=2)
            )
    finally:
        _native.walk_target(here)
    first = got.pop("base")
    for name, arrays in got.items():
        for x, z in zip(arrays, first, strict=True):
            assert np.array_equal(x, z, equal_nan=True), name


def test_apr_of_large_tie_groups_is_exact_to_rounding():
    """A tie group of g cases, m positive, under a others (b positive): the walk sums its expected
    precisions by an expansion (no division per case) where the group is small against a.  Under
    negatives only, the walk's value is the exact rational one to 4e-16; under a tie group of
    positives too, it is the registry's (which sums case by case) to 4e-16."""
    from fractions import Fraction

    from perfeval.stats.fastpaths import APR_K

    rng = np.random.default_rng(13)
    plan = np.array([float(APR_K), 0.0])
    for _ in range(60):
        a_pos, a_neg = int(rng.integers(0, 5000)), int(rng.integers(200, 20000))
        g = int(rng.integers(5, 300))
        m = int(rng.integers(1, g + 1))
        a = a_pos + a_neg
        s1 = sum(Fraction(1, a + j) for j in range(1, g + 1))
        s2 = sum(Fraction(j - 1, a + j) for j in range(1, g + 1))
        # under negatives only: b = 0, and the group's term is the whole APR numerator
        sc, pos, neg = np.array([0.2, 0.5]), np.array([float(m), 0.0]), np.array([float(g - m), float(a)])
        exact = Fraction(m, g) * (s1 + Fraction(m - 1, g - 1) * s2)
        walk = np.frombuffer(_native.rep_finish(sc, pos, neg, plan))[0]
        assert abs(Fraction(walk) - exact) <= Fraction(4, 10**16) * exact, (a, g, m)
        # under a tie group of a_pos positives and a_neg negatives
        pos, neg = np.array([float(m), float(a_pos)]), np.array([float(g - m), float(a_neg)])
        walk = np.frombuffer(_native.rep_finish(sc, pos, neg, plan))[0]
        assert walk == pytest.approx(_native.hist_apr(pos, neg), rel=4e-16, abs=0), (a, g, m)


def _ca2_reference(sc, pos, neg, window):
    """CA2 of one replicate (counts pos, neg per cell, the highest score last) the slow obvious way, in
    the walk's arithmetic: each case of a cell (its count rounded up) enters a ring of `window` slots;
    d, the window's sum of frac - score, and err, the sum of |d| over the complete windows, in double;
    every 4096 cells with cases (and at least `window`) d summed again from the ring in 80-bit, and err
    gathered into an 80-bit total."""
    ext = np.longdouble
    ring, at, count, since = [0.0] * window, 0, 0, 0
    d, err, total = 0.0, 0.0, ext(0)
    for c in reversed(range(len(sc))):
        size = pos[c] + neg[c]
        if not size > 0:
            continue
        v = pos[c] / size - sc[c]
        j = 0.0
        while size > j:
            d = d + v
            ring[at] = v
            at = (at + 1) % window
            count += 1
            if count >= window:
                err = err + abs(d)
                d = d - ring[at]
            j += 1
        since += 1
        if since >= 4096 and since >= window:
            s = ext(0)
            for x in ring:
                s += ext(x)
            d = float(s - ext(ring[at]))
            total += ext(err)
            err, since = 0.0, 0
    windows = count - window + 1
    if float(np.sum(pos) + np.sum(neg)) < window or not windows > 0:
        return math.nan
    return float((total + ext(err)) / ext(window) / ext(windows))


def _ca2_walk(sc, pos, neg, window):
    from perfeval.stats.fastpaths import CA2_K

    plan = np.array([float(CA2_K), float(window)])
    return np.frombuffer(_native.rep_finish(sc, pos, neg, plan))[0]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0, 1.5, -0.3]),
            st.one_of(st.integers(0, 6).map(float), st.floats(0, 5)),
            st.one_of(st.integers(0, 6).map(float), st.floats(0, 5)),
        ),
        max_size=60,
    ),
    st.integers(1, 40),
)
def test_ca2_walk_is_the_obvious_window(cells, window):
    """The compiled walk's CA2 (its cases written out per lane, then the windows a row of lanes at a
    time) is, to the bit, the window stepped case by case, counts whole or not."""
    sc = np.sort(np.array([c[0] for c in cells], float))
    pos = np.array([c[1] for c in cells], float)
    neg = np.array([c[2] for c in cells], float)
    want = _ca2_reference(sc, pos, neg, window)
    got = _ca2_walk(sc, pos, neg, window)
    assert np.array_equal(np.array([got]), np.array([want]), equal_nan=True), (got, want)


@pytest.mark.parametrize("window", [1, 2, 100, 4097, 6000])
def test_ca2_walk_is_the_obvious_window_through_resyncs(window):
    """Enough cells for the walk's 80-bit resyncs (every 4096 cells with cases), and large counts."""
    rng = np.random.default_rng(window)
    k = 13_000
    sc = np.sort(np.round(rng.random(k), 2))
    pos = rng.poisson(0.7, k).astype(float)
    neg = rng.poisson(0.5, k).astype(float)
    pos[rng.integers(0, k, 20)] = 300.0  # some cells of many cases
    neg[rng.integers(0, k, 5)] = 2.5  # a count that is not whole
    want = _ca2_reference(sc, pos, neg, window)
    assert not math.isnan(want)
    assert np.array_equal(np.array([_ca2_walk(sc, pos, neg, window)]), np.array([want]))


def test_ca2_replicates_are_the_obvious_window_in_every_lane():
    """Each replicate of a summary's bootstrap (lanes whose counts differ cell by cell, walked
    together) is CA2 of its own drawn counts, to the bit, on every walk this machine runs: through
    the 80-bit resyncs too, which fall at each lane's own 4096th cell with a case (they fell at the
    block's, where any lane had one, so a replicate's last bits depended on its neighbours and on
    the machine's vector width)."""
    from perfeval.stats.fastpaths import CA2_K

    rng = np.random.default_rng(5)
    k, reps = 12_000, 10
    sc = np.sort(rng.random(k))
    pos = rng.integers(0, 3, k).astype(float)
    neg = rng.integers(0, 3, k).astype(float)
    pos[rng.integers(0, k, 30)] = 400.0  # lanes far apart after these
    dp, dn = (np.frombuffer(x).reshape(reps, k) for x in _native.boot_hist_draws(pos, neg, 9, 0, reps, False))
    here = _native.walk_target()
    want = {w: np.array([_ca2_reference(sc, dp[r], dn[r], w) for r in range(reps)]) for w in (1, 100, 5000)}
    try:
        for name in _walks():
            _native.walk_target(name)
            for window in (1, 100, 5000):
                plan = np.array([float(CA2_K), float(window)])
                got = np.frombuffer(_native.boot_hist_multi(sc, pos, neg, plan, 9, 0, reps, 1))
                got = got.reshape(reps, -1)[:, 0]
                assert np.array_equal(got, want[window], equal_nan=True), (name, window)
    finally:
        _native.walk_target(here)
