"""scikit-learn's D^2 scores as registry measures (D2_AE, D2_PINBALL, D2_TWEEDIE) and MAPE's eps:
each against a slow, obvious reference (the quantile walked row by row, the losses in exact rational
arithmetic) and against scikit-learn itself, on random data with ties and weights; their summaries
(which keep the targets' distribution) merge in any order and chunking with the same bits, per group
the same bits as each group alone; the per-group weighted quantiles (MEDAE's too) every group at
once."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.backends.stream import evaluate_stream, evaluate_stream_grouped
from perfeval.summaries.regression import (
    RegressionSummary,
    grouped_quantiles,
    weighted_quantile,
)

sk = pytest.importorskip("sklearn.metrics")
EPS = float(np.finfo(np.float64).eps)


# -- the slow references --------------------------------------------------------------------------
def ref_quantile(y, w, alpha):
    """scikit-learn's averaged inverted CDF, walked row by row: the values sorted (then by weight),
    the cumulative weights added one at a time in float64, the first reaching alpha * total."""
    rows = sorted(zip(y.tolist(), (np.ones(len(y)) if w is None else w).tolist(), strict=True))
    rows = [(v, x) for v, x in rows if x > 0]
    total = 0.0
    cdf = []
    for _, x in rows:
        total += x
        cdf.append(total)
    rank = (alpha * 100) / 100 * total
    rank = rank if rank != 0 else 5e-324
    i = next((k for k, c in enumerate(cdf) if c >= rank), len(cdf) - 1)
    if cdf[i] - rank > EPS:
        return rows[i][0]
    j = min(i + 1, len(rows) - 1)
    return (rows[i][0] + rows[j][0]) / 2


def _pinball_sum(r, w, alpha):
    a = Fraction(alpha)
    ws = [Fraction(1)] * len(r) if w is None else [Fraction(float(x)) for x in w]
    total = Fraction(0)
    for ri, wi in zip(r, ws, strict=True):
        ri = Fraction(float(ri))
        total += wi * (a * ri if ri >= 0 else (a - 1) * ri)
    return total


def ref_d2_pinball(y, p, w, alpha):
    q = ref_quantile(y, w, alpha)
    num = _pinball_sum(y - p, w, alpha)  # each row's residual rounded once, as its own number
    den = _pinball_sum(y - q, w, alpha)
    return math.nan if den == 0 else float(1 - num / den)


def _dev_rows(y, mu, power):
    from perfeval.summaries.regression import deviance_rows

    return deviance_rows(y, mu, power)[0]


def ref_d2_tweedie(y, p, w, power):
    if len(set((y if w is None else y[w > 0]).tolist())) < 2:
        return math.nan  # every target equal: the constant has no loss (0/0 or -inf)
    ws = [Fraction(1)] * len(y) if w is None else [Fraction(float(x)) for x in w]
    W = sum(ws, Fraction(0))
    mean = float(sum((a * Fraction(float(b)) for a, b in zip(ws, y, strict=True)), Fraction(0)) / W)
    num = sum((a * Fraction(float(d)) for a, d in zip(ws, _dev_rows(y, p, power), strict=True)), Fraction(0))
    dm = _dev_rows(y, np.full(len(y), mean), power)
    den = sum((a * Fraction(float(d)) for a, d in zip(ws, dm, strict=True)), Fraction(0))
    return math.nan if den == 0 else float(1 - num / den)


@st.composite
def data(draw, positive=False):
    n = draw(st.integers(2, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    decimals = draw(st.sampled_from([0, 1, 3]))  # few decimals: ties
    y = np.round(rng.normal(size=n) * 3 + draw(st.sampled_from([0.0, 5.0, 1e3])), decimals)
    p = np.round(y + rng.normal(size=n), decimals)
    if positive:
        y, p = np.abs(y) + 0.5, np.abs(p) + 0.5
    w = draw(st.sampled_from([None, "whole", "fraction", "zeros"]))
    if w == "whole":
        w = rng.integers(1, 4, n).astype(float)
    elif w == "fraction":
        w = rng.random(n) * 3 + 0.01
    elif w == "zeros":
        w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n) + 0.5)
        w[0] = 1.0
    return y, p, w, rng


def _eval(y, p, w, measures, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(y, p, sample_weight=w, measures=measures, task="regression", **kw)


ALPHAS = [0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0]


@settings(max_examples=150, deadline=None)
@given(data(), st.sampled_from(ALPHAS))
def test_d2_pinball_is_the_slow_reference_bit_for_bit(d, alpha):
    y, p, w, _ = d
    r = _eval(y, p, w, [f"d2_pinball:alpha={alpha}", "d2_ae"])
    got = r.results[next(iter(r.results))].value
    want = ref_d2_pinball(y, p, w, alpha)
    assert got == want or (math.isnan(got) and math.isnan(want)), (got, want)
    ae = r["D2_AE"]
    want = ref_d2_pinball(y, p, w, 0.5)
    assert ae == want or (math.isnan(ae) and math.isnan(want))


@settings(max_examples=100, deadline=None)
@given(data(positive=True), st.sampled_from([-1.0, 0.0, 1.0, 1.5, 2.0, 3.0]))
def test_d2_tweedie_is_the_slow_reference_bit_for_bit(d, power):
    y, p, w, _ = d
    got = _eval(y, p, w, [f"d2_tweedie:power={power}"]).results
    got = next(iter(got.values())).value
    want = ref_d2_tweedie(y, p, w, power)
    if power == 0:  # R2: the sums around the exact mean, not around the rounded one
        want = _eval(y, p, w, ["r2"])["R2"]
    assert got == want or (math.isnan(got) and math.isnan(want)), (got, want)


@settings(max_examples=150, deadline=None)
@given(data(), st.sampled_from(ALPHAS))
def test_the_registry_d2_scores_are_scikit_learns(d, alpha):
    """Where scikit-learn's score is defined (the quantile's loss is not 0), the same number within
    1e-12; where it is 0 scikit-learn's force_finite says 1 or 0 and perfeval NaN."""
    y, p, w, _ = d
    r = _eval(y, p, w, [f"d2_pinball:alpha={alpha}", "d2_ae"])
    for got, want in (
        (next(iter(r.results.values())), sk.d2_pinball_score(y, p, sample_weight=w, alpha=alpha)),
        (r.results["D2_AE"], sk.d2_absolute_error_score(y, p, sample_weight=w)),
    ):
        if math.isnan(got.value):
            assert "no loss" in got.why and want in (0.0, 1.0), (got.why, want)
        else:
            assert math.isclose(got.value, want, rel_tol=1e-12, abs_tol=1e-12), (got.value, want)


@settings(max_examples=100, deadline=None)
@given(data(positive=True), st.sampled_from([-1.0, 0.0, 1.0, 1.5, 2.0, 3.0]))
def test_the_registry_d2_tweedie_is_scikit_learns(d, power):
    """Within 1e-12, or within the rounding of the deviance's terms where they nearly cancel (targets
    close to their mean, far from 0: each row's deviance of the mean is a small difference of large
    terms, in float64 in both, and the two means may differ in their last bit: scikit-learn's is
    numpy's sum(w y) / sum(w), perfeval's the correctly rounded one, which no order of the rows
    changes)."""
    y, p, w, _ = d
    got = _eval(y, p, w, [f"d2_tweedie:power={power}"])
    got = next(iter(got.results.values()))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = sk.d2_tweedie_score(y, p, sample_weight=w, power=power)
    except ZeroDivisionError:
        assert math.isnan(got.value) and "every target equal" in got.why
        return
    if math.isnan(got.value):  # every target equal: scikit-learn divides by a rounding residue
        assert "every target equal" in got.why and len(set(y[w > 0] if w is not None else y)) == 1
        return
    ww = np.ones(len(y)) if w is None else w
    mean = np.full(len(y), np.sum(y * ww) / np.sum(ww))
    den = float(np.sum(ww * _dev_rows(y, mean, power)))
    terms = float(np.sum(ww * _terms(y, mean, power)))
    # D2 = 1 - num / den: a relative error e of den moves D2 by about |1 - D2| e
    tol = 1e-12 + 16 * EPS * terms / abs(den) * max(1.0, abs(1 - want))
    assert math.isclose(got.value, want, rel_tol=1e-12, abs_tol=tol), (got.value, want, tol)


def _terms(y, mu, p):
    """Each row's sizes of the terms of scikit-learn's deviance formula (what its rounding is of)."""
    if p == 0:
        return (y - mu) ** 2
    if p == 1:
        return 2 * (np.abs(y * np.log(y / mu)) + y + mu)
    if p == 2:
        return 2 * (np.abs(np.log(mu / y)) + y / mu + 1)
    a = np.abs(np.power(np.maximum(y, 0), 2 - p) / ((1 - p) * (2 - p)))
    return 2 * (a + np.abs(y * np.power(mu, 1 - p) / (1 - p)) + np.abs(np.power(mu, 2 - p) / (2 - p)))


def test_d2_edges_say_why():
    r = _eval(np.full(4, 2.0), np.array([2.0, 2.0, 1.0, 3.0]), None, ["d2_ae", "d2_tweedie", "d2_tweedie@1"])
    for label in r.results:
        res = r.results[label]
        assert math.isnan(res.value) and "no loss" in res.why, (label, res.why)
    assert "ZeroDivisionError" in r.results["D2_TWEEDIE"].why
    # alpha 0: the quantile is the least target, whose loss is always 0
    r = _eval(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.5]), None, ["d2_pinball:alpha=0"])
    assert "alpha 0 or 1" in r.results["D2_PINBALL@0"].why
    # a power < 0 takes targets of any sign, but the mean must be > 0 to have a deviance
    r = _eval(np.array([-2.0, 0.5, 0.5]), np.array([1.0, 2.0, 0.5]), None, ["d2_tweedie@-1"])
    assert "the targets' weighted mean is -0.3333333333333333" in r.results["D2_TWEEDIE@-1"].why
    # a row outside the domain: how many, as TWEEDIE_DEV
    r = _eval(np.array([1.0, -2.0, 3.0]), np.array([1.0, 2.0, 3.0]), None, ["d2_tweedie@1.5"])
    assert r.results["D2_TWEEDIE@1.5"].why.startswith("1 row outside the deviance's domain")
    # one row, no case
    assert math.isnan(_eval(np.array([1.0]), np.array([2.0]), None, ["d2_ae"])["D2_AE"])
    r = _eval(np.array([1.0, 2.0]), np.array([2.0, 1.0]), np.zeros(2), ["d2_ae"])
    assert "no case" in r.results["D2_AE"].why
    with pytest.raises(perfeval.InvalidParameterError, match="D2_TWEEDIE@0.5 needs `power` <= 0 or >= 1"):
        _eval(np.array([1.0, 2.0]), np.array([2.0, 1.0]), None, ["d2_tweedie:power=0.5"])
    with pytest.raises(perfeval.InvalidParameterError, match="D2_PINBALL needs `alpha`"):
        _eval(np.array([1.0, 2.0]), np.array([2.0, 1.0]), None, ["d2_pinball:alpha=1.5"])


def test_d2_names_and_their_forms():
    y, p = np.array([3.0, -0.5, 2.0, 7.0]), np.array([2.5, 0.0, 2.0, 8.0])
    r = _eval(y, p, None, ["d2_absolute_error_score", "d2_pinball@0.5", "d2_tweedie_score", "r2"])
    assert r["D2_AE"] == r["D2_PINBALL@0.5"]
    assert r["D2_TWEEDIE"] == r["R2"]
    assert math.isclose(r["D2_AE"], sk.d2_absolute_error_score(y, p), rel_tol=1e-12)
    m = perfeval.measures.parse_measure("d2_pinball_score").measure
    assert m.kind == "regression" and m.direction == "higher" and m.name == "D2_PINBALL"


@settings(max_examples=60, deadline=None)
@given(
    data(positive=True),
    st.lists(st.integers(0, 40), max_size=4),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_d2_with_parameters_streamed_merged_and_per_group_are_the_same_bits(d, cuts, grouped, rnd):
    """The registry properties (tests/test_registry_properties.py) take each measure at its defaults;
    here the parameters that move the targets' distribution: memory == stream == Metric merged in any
    order, and each group's value == that group alone."""
    y, p, w, rng = d
    n = len(y)
    g = rng.integers(0, 4, n)
    specs = ["d2_pinball:alpha=0.3", "d2_pinball:alpha=0.9", "d2_tweedie:power=1.5", "d2_tweedie:power=-1"]
    specs += ["medae", "mape:eps=torchmetrics", "mape:eps=sklearn", "d2_tweedie:power=3"]
    bounds = [0, *sorted(c % (n + 1) for c in cuts), n]
    pieces = list(zip(bounds, bounds[1:], strict=False))

    def chunk(a, b, *cols):
        return tuple(c[a:b] for c in cols if c is not None)

    mem = _eval(y, p, w, specs, groups=g if grouped else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if grouped:
            streamed = evaluate_stream_grouped([chunk(a, b, y, p, g, w) for a, b in pieces], measures=specs)
        else:
            streamed = evaluate_stream([chunk(a, b, y, p, w) for a, b in pieces], measures=specs)
        metrics = []
        for a, b in pieces:
            m = perfeval.Metric(specs)
            m.update(
                y[a:b],
                p[a:b],
                groups=g[a:b] if grouped else None,
                sample_weight=None if w is None else w[a:b],
            )
            metrics.append(m)
        rnd.shuffle(metrics)
        merged = perfeval.Metric.merge_all(metrics).compute()
    for other in (streamed, merged):
        for label, res in mem.results.items():
            a, b = res.value, other.results[label].value
            assert a == b or (math.isnan(a) and math.isnan(b)), (label, a, b)
            if grouped:
                assert np.array_equal(res.per_group, other.results[label].per_group, equal_nan=True), label
    if grouped:
        for i, key in enumerate(mem.groups.tolist()):
            k = g == key
            alone = _eval(y[k], p[k], None if w is None else w[k], specs)
            for label, res in mem.results.items():
                a, b = res.per_group[i], alone[label]
                assert a == b or (math.isnan(a) and math.isnan(b)), (key, label, a, b)


def test_the_summary_keeps_the_targets_only_when_asked_and_merges_canonically():
    rng = np.random.default_rng(5)
    y, p, w = np.round(rng.normal(size=300), 1), rng.normal(size=300), rng.random(300)
    w[::7] = 0.0
    plain = RegressionSummary.from_checked(y, p, w)
    assert plain.yval is None and plain.kept() == ((), False, False, False, False, False)
    with pytest.raises(ValueError, match="keeps no targets"):
        plain.targets()
    whole = RegressionSummary.from_checked(y, p, w, ydist=True)
    parts = [
        RegressionSummary.from_checked(y[a : a + 50], p[a : a + 50], w[a : a + 50], ydist=True)
        for a in range(0, 300, 50)
    ]
    rng.shuffle(parts)
    merged = RegressionSummary.merge_all(parts)
    assert np.array_equal(merged.yval, whole.yval) and np.array_equal(merged.yw, whole.yw)
    assert len(whole.yval) == int((w > 0).sum())  # a row of weight 0 is no row
    with pytest.raises(ValueError, match="different regression measures"):
        _ = plain + whole


def test_a_metric_state_keeps_the_targets():
    rng = np.random.default_rng(1)
    y = rng.normal(size=50) + 3
    p = y + rng.normal(size=50)
    specs = ["d2_ae", "d2_pinball:alpha=0.2", "mape:eps=torchmetrics", "d2_tweedie:power=-1"]
    m = perfeval.Metric(specs, task="regression")
    m.update(y[:20], p[:20])
    back = perfeval.Metric(specs, task="regression")
    back.load_state_dict(m.state_dict())
    back.update(y[20:], p[20:])
    want = _eval(y, p, None, specs)
    got = back.compute()
    assert {k: r.value for k, r in got.results.items()} == {k: r.value for k, r in want.results.items()}
    bad = m.state_dict()
    bad["regression"] = dict(bad["regression"], ydist=False, yval=None)
    before = back.compute()
    with pytest.raises(perfeval.InvalidParameterError, match="regression summary of other measures"):
        back.load_state_dict(bad)
    assert back.compute()["D2_AE"] == before["D2_AE"]  # a failed load changes nothing


# -- the weighted quantiles of every group at once -------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(ALPHAS), st.sampled_from([0.0, EPS]), st.booleans())
def test_grouped_quantiles_are_each_group_alone(seed, alpha, eps, weighted):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, int(rng.integers(1, 40)))
    if rng.random() < 0.2:
        sizes = np.append(sizes, 2000)  # a long group among short ones
    gid = np.repeat(np.arange(len(sizes)), sizes)
    v = np.round(rng.normal(size=len(gid)), 1)
    w = rng.choice([0.1, 0.2, 0.3, 1.0, 2.5], len(gid)) if weighted else None
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    got = grouped_quantiles(v, w, starts, alpha, eps=eps)  # each group in the rows' order
    order = np.lexsort((v, gid)) if w is None else np.lexsort((w, v, gid))
    v = v[order]
    w = None if w is None else w[order]
    for k, (s, n) in enumerate(zip(starts.tolist(), sizes.tolist(), strict=True)):
        want = weighted_quantile(v[s : s + n], None if w is None else w[s : s + n], alpha, eps=eps)
        assert got[k] == want, (k, got[k], want)
        if eps == EPS:
            ref = ref_quantile(v[s : s + n], None if w is None else w[s : s + n], alpha)
            assert want == ref


def test_weighted_medae_per_group_is_each_group_alone_with_many_groups():
    rng = np.random.default_rng(11)
    n = 20_000
    g = rng.integers(0, 3_000, n)
    y = np.round(rng.normal(size=n), 2)
    p = np.round(y + rng.normal(size=n), 2)
    w = rng.choice([0.1, 0.2, 0.3, 0.7, 1.0], n)
    r = _eval(y, p, w, ["medae", "d2_ae", "d2_pinball:alpha=0.9"], groups=g)
    keys = r.groups.tolist()
    for i in rng.choice(len(keys), 60, replace=False).tolist():
        k = g == keys[i]
        alone = _eval(y[k], p[k], w[k], ["medae", "d2_ae", "d2_pinball:alpha=0.9"])
        for label in r.results:
            a, b = r.results[label].per_group[i], alone[label]
            assert a == b or (math.isnan(a) and math.isnan(b)), (keys[i], label, a, b)


def test_a_bootstrap_replicate_of_the_new_measures_is_evaluate_of_the_cases_so_weighted():
    """ci/compare reweight every case (perfeval.stats.regression.Replicas): MAPE:eps=torchmetrics from
    its own sum, the D^2 scores from a whole summary that keeps the targets: evaluate()'s bits."""
    from perfeval.stats.regression import Replicas, losses, regression_measures

    rng = np.random.default_rng(3)
    y = np.round(rng.normal(size=80) + 2, 1)
    y[:2] = [0.0, 5e-7]
    p = np.abs(y + rng.normal(size=80)) + 0.1
    names = [
        "mape:eps=torchmetrics",
        "mape:eps=sklearn",
        "d2_ae",
        "d2_pinball:alpha=0.3",
        "d2_tweedie:power=-1",
    ]
    for chosen in (names[:2], names):  # the sums alone, and a whole summary
        specs = regression_measures(chosen, 0.5)
        rep = Replicas(y, p, specs)
        for _ in range(5):
            v = rng.poisson(1.0, len(y)).astype(float) * (rng.random(len(y)) + 0.5)
            want = _eval(y, p, v, specs)
            for sp, got in zip(specs, rep.values(v), strict=True):
                assert got == want[sp.label] or (math.isnan(got) and math.isnan(want[sp.label])), sp.label
    sp = regression_measures(["mape:eps=torchmetrics"], 0.5)[0]
    assert np.mean(losses(sp, y, p)) == pytest.approx(_eval(y, p, None, [sp])[sp.label], rel=1e-12)
    got = perfeval.ci(y, p, measures=["d2_ae", "mape:eps=torchmetrics"], n_boot=60, seed=2)
    for iv in got.values():
        assert iv.low <= iv.estimate <= iv.high
