"""Properties every measure of the registry must have, checked on random data with ties.

The lists of measures come from the registry (every measure, and every other choice of each parameter
with choices: ``TPR_AT_FPR:of=threshold``, tests/_registry.py), so a new measure is covered without a
new test:
a row of weight 0 is a dropped row; a whole weight k is k copies of the row; the order of the rows
does not matter; a group's value is the measure on that group alone; streamed equals in memory.
Values are compared bit for bit (NaN equal to NaN).  Per-query measures take no weights (refused
with a clear error), so the weight properties are checked on the binary measures.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from _registry import every
from perfeval.backends.stream import evaluate_stream
from perfeval.measures import list_measures

BINARY = every("binary")
RANKING = every("ranking")
GROUPED = every("grouped")
#: measures whose defaults compute nothing (CST: every cost 0); given costs so that they say something
SPECS = {"CST": "cst:fn=1,fp=2"}


def spec(name: str) -> str:
    return SPECS.get(name, name)


def same(a: float, b: float, rel: float = 0.0) -> bool:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    # relative to the value, or to 1 for a value near 0 that is a difference of terms of order 1
    # (BRIER_DSC = BS(base rate) - BS(recalibrated): its rounding is of the terms, not of the result)
    return rel > 0 and math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def values(report) -> dict[str, float]:
    return {k: r.value for k, r in report.results.items()}


def assert_same(a: dict, b: dict, what: str, rel: float = 0.0) -> None:
    bad = {k: (a[k], b[k]) for k in a if not same(a[k], b[k], rel)}
    assert not bad, f"{what}: {bad}"


#: Sums of weights are exact for whole weights and for dyadic ones (multiples of 1/1024 here), so
#: any order of the rows and any chunking give the same bits.  Other fractional weights are summed
#: in float64: the order can move a value by a few units in the last place, more where a formula
#: cancels (MCC's TP TN - FP FN at its best threshold: about 1e-14 seen): relative 1e-13 here.
FRACTION_REL = 1e-13
#: The per-group kernels sum in another order than the whole-data ones: a few ulps at most.
GROUP_REL = 1e-14


@st.composite
def data(draw, weights: str = "none"):
    n = draw(st.integers(1, 40))
    decimals = draw(st.sampled_from([0, 1, 2]))  # few decimals: many ties
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.random()).astype(np.float64)
    s = np.round(rng.random(n), decimals)
    g = rng.integers(0, 4, n)
    if weights == "zero":
        w = np.where(rng.random(n) < 0.3, 0.0, rng.integers(1, 4, n)).astype(np.float64)
    elif weights == "whole":
        w = rng.integers(1, 4, n).astype(np.float64)
    elif weights == "fraction":
        w = rng.random(n) * 5
    elif weights == "dyadic":
        w = rng.integers(0, 5 * 1024, n) / 1024.0
    else:
        w = None
    return y, s, g, w


def fractional_ok(names: list[str]) -> list[str]:
    """The measures that take fractional weights (APR and CA2 count cases: whole weights only)."""
    out = []
    for m in names:
        try:
            perfeval.evaluate([1, 0], [0.6, 0.4], sample_weight=[0.5, 1.5], measures=[spec(m)])
            out.append(m)
        except perfeval.InvalidParameterError as e:
            assert "whole-number weights" in str(e), (m, e)
    return out


def _eval(y, s, measures, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return values(perfeval.evaluate(y, s, measures=[spec(m) for m in measures], **kw))


@settings(max_examples=80, deadline=None)
@given(data("zero"))
def test_zero_weight_is_a_dropped_row(d):
    y, s, g, w = d
    keep = w > 0
    if not keep.any():
        return
    assert_same(_eval(y, s, BINARY, weights=w), _eval(y[keep], s[keep], BINARY, weights=w[keep]), "overall")
    full = _grouped(y, s, g, BINARY, weights=w)
    part = _grouped(y[keep], s[keep], g[keep], BINARY, weights=w[keep])
    for key in part:
        assert_same(full[key], part[key], f"group {key}")


@settings(max_examples=60, deadline=None)
@given(data("whole"))
def test_whole_weight_is_copies(d):
    y, s, g, w = d
    k = w.astype(np.int64)
    assert_same(_eval(y, s, BINARY, weights=w), _eval(np.repeat(y, k), np.repeat(s, k), BINARY), "overall")


@settings(max_examples=60, deadline=None)
@given(data("dyadic"), st.randoms(use_true_random=False), st.booleans())
def test_row_order_does_not_matter(d, rnd, fraction):
    y, s, g, w = d
    if fraction:  # any fractional weights: equal to a few ulps
        w = w + np.random.default_rng(len(y)).random(len(y)) * 1e-3
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    frac = fractional_ok(BINARY)
    assert_same(
        _eval(y, s, frac, weights=w),
        _eval(y[perm], s[perm], frac, weights=w[perm]),
        "binary",
        FRACTION_REL if fraction else 0.0,
    )
    assert_same(_eval(y, s, BINARY), _eval(y[perm], s[perm], BINARY), "binary, unweighted")
    rel = np.round(y * (1 + g % 3))  # graded relevance
    every = RANKING + GROUPED + BINARY
    a = _grouped(y, s, g, every)
    b = _grouped(y[perm], s[perm], g[perm], every)
    assert a == b or all(assert_same(a[k], b[k], f"group {k}") is None for k in a)
    ra = _eval(rel, s, RANKING, groups=g)
    rb = _eval(rel[perm], s[perm], RANKING, groups=g[perm])
    assert_same(ra, rb, "graded ranking")


def _grouped(y, s, g, measures, **kw) -> dict:
    """group -> {measure label: value} from one grouped evaluation."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, measures=[spec(m) for m in measures], **kw)
    return {
        key: {lab: float(res.per_group[i]) for lab, res in r.results.items()}
        for i, key in enumerate(r.groups.tolist())
    }


@settings(max_examples=60, deadline=None)
@given(data("none"))
def test_group_value_is_the_measure_on_that_group_alone(d):
    y, s, g, _ = d
    every = BINARY + RANKING
    per = _grouped(y, s, g, every + GROUPED)
    for key, got in per.items():
        m = g == key
        alone = _eval(y[m], s[m], every)
        assert_same({k: got[k] for k in alone}, alone, f"group {key}", GROUP_REL)
        alone_g = _eval(y[m], s[m], GROUPED, groups=g[m])
        assert_same({k: got[k] for k in alone_g}, alone_g, f"group {key} (grouped measures)")


@settings(max_examples=40, deadline=None)
@given(data("dyadic"))
def test_weighted_group_value_is_the_measure_on_that_group_alone(d):
    """Weights whose sums are exact in any order (dyadic, zeros among them): a group's value is the
    measure on that group's rows alone, however its per-group form sums."""
    y, s, g, w = d
    fractional = fractional_ok(BINARY)
    per = _grouped(y, s, g, fractional, weights=w)
    for key, got in per.items():
        m = g == key
        alone = _eval(y[m], s[m], fractional, weights=w[m])
        assert_same({k: got[k] for k in alone}, alone, f"group {key}", GROUP_REL)


@pytest.mark.parametrize("name", [m.name for m in list_measures()])
def test_defaults_fit_together(name):
    """Every measure's defaults pass its check of the parameters together (Measure.check)."""
    m = perfeval.measures.get_measure(name)
    m.check_together(m.defaults())


@settings(max_examples=60, deadline=None)
@given(
    data("none"),
    st.sampled_from(["none", "whole", "dyadic", "fraction"]),
    st.lists(st.integers(0, 40), max_size=6),
)
def test_stream_equals_memory(d, wkind, cuts):
    y, s, g, _ = d
    rng = np.random.default_rng(len(y))
    w = {
        "none": None,
        "whole": rng.integers(0, 4, len(y)).astype(float),
        "dyadic": rng.integers(0, 5 * 1024, len(y)) / 1024.0,
        "fraction": rng.random(len(y)) * 5,
    }[wkind]
    bounds = [0, *sorted(c % (len(y) + 1) for c in cuts), len(y)]
    names = fractional_ok(BINARY) if wkind in ("fraction", "dyadic") else BINARY
    chunks = [
        (y[a:b], s[a:b]) if w is None else (y[a:b], s[a:b], w[a:b])
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        streamed = values(evaluate_stream(chunks, measures=[spec(m) for m in names]))
    assert_same(
        streamed,
        _eval(y, s, names, weights=w),
        f"streamed ({wkind} weights)",
        FRACTION_REL if wkind == "fraction" else 0.0,
    )


@pytest.mark.parametrize("name", BINARY)
def test_every_binary_measure_is_covered(name):
    """The lists above are the registry's: a new binary measure is in every property."""
    assert name in BINARY and perfeval.measures.parse_measure(spec(name)).measure.kind == "binary"


# -- kind "regression": a real target and a prediction (issue 33), the same properties, bit for bit ------
REGRESSION = every("regression")  # with every other choice of each parameter (MAPE:eps=sklearn, ...)


@st.composite
def regression_data(draw):
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    decimals = draw(st.sampled_from([0, 1, 3]))  # few decimals: ties, zeros
    y = np.round(rng.normal(size=n) * 3 + draw(st.sampled_from([0.0, 5.0, 1e6])), decimals)
    p = np.round(y + rng.normal(size=n), decimals)
    return y, p, rng.integers(0, 4, n), rng


def _reg(y, p, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, p, measures=REGRESSION, task="regression", **kw)
    if r.groups is None:
        return values(r)
    return {
        key: {lab: float(res.per_group[i]) for lab, res in r.results.items()}
        for i, key in enumerate(r.groups.tolist())
    }


@settings(max_examples=60, deadline=None)
@given(regression_data(), st.randoms(use_true_random=False))
def test_regression_weights_order_groups(d, rnd):
    """Regression: a row of weight 0 is a dropped row, a whole weight k is k copies, the order of the
    rows does not matter (any weights: the sums are exact) and a group's value is that group alone."""
    y, p, g, rng = d
    w = np.where(rng.random(len(y)) < 0.3, 0.0, rng.integers(1, 4, len(y))).astype(float)
    keep = w > 0
    if keep.any():
        assert_same(_reg(y, p, sample_weight=w), _reg(y[keep], p[keep], sample_weight=w[keep]), "weight 0")
        k = w[keep].astype(np.int64)
        assert_same(
            _reg(y[keep], p[keep], sample_weight=w[keep]),
            _reg(np.repeat(y[keep], k), np.repeat(p[keep], k)),
            "copies",
        )
    wf = rng.random(len(y)) * 3
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    assert_same(_reg(y, p, sample_weight=wf), _reg(y[perm], p[perm], sample_weight=wf[perm]), "order")
    per = _reg(y, p, groups=g, sample_weight=wf)
    for key, got in per.items():
        m = g == key
        assert_same(got, _reg(y[m], p[m], sample_weight=wf[m]), f"group {key}")


def _reg_values(report) -> dict:
    if report.groups is None:
        return values(report)
    return {
        key: {lab: float(res.per_group[i]) for lab, res in report.results.items()}
        for i, key in enumerate(report.groups.tolist())
    }


@settings(max_examples=40, deadline=None)
@given(
    regression_data(),
    st.sampled_from(["none", "whole", "fraction"]),
    st.lists(st.integers(0, 40), max_size=5),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_regression_stream_metric_equal_memory(d, wkind, cuts, grouped, rnd):
    """Regression: streamed (in chunks; per group, spilled by group or clustered) == in memory ==
    a Metric updated in batches and merged in any order, bit for bit, any weights (exact sums)."""
    import warnings

    from perfeval.backends.stream import evaluate_stream_grouped

    y, p, g, rng = d
    n = len(y)
    w = {"none": None, "whole": rng.integers(0, 4, n).astype(float), "fraction": rng.random(n) * 3}[wkind]
    bounds = [0, *sorted(c % (n + 1) for c in cuts), n]
    pieces = list(zip(bounds, bounds[1:], strict=False))

    def chunk(a, b, *cols):
        return tuple(c[a:b] for c in cols if c is not None)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = perfeval.evaluate(
            y, p, groups=g if grouped else None, sample_weight=w, measures=REGRESSION, task="regression"
        )
        if grouped:
            streams = [
                evaluate_stream_grouped(
                    [chunk(a, b, y, p, g, w) for a, b in pieces], measures=REGRESSION, **kw
                )
                for kw in ({}, {"budget_rows": 3})
            ]
            o = np.argsort(g, kind="stable")
            streams.append(
                evaluate_stream_grouped(
                    [chunk(a, b, y[o], p[o], g[o], None if w is None else w[o]) for a, b in pieces],
                    measures=REGRESSION,
                    clustered=True,
                )
            )
        else:
            streams = [evaluate_stream([chunk(a, b, y, p, w) for a, b in pieces], measures=REGRESSION)]
        metrics = []
        for a, b in pieces:
            m = perfeval.Metric(REGRESSION)
            m.update(
                y[a:b],
                p[a:b],
                groups=g[a:b] if grouped else None,
                sample_weight=None if w is None else w[a:b],
            )
            metrics.append(m)
        rnd.shuffle(metrics)
        merged = perfeval.Metric.merge_all(metrics).compute()
    want = _reg_values(mem)
    for got, what in [(s, f"stream {i}") for i, s in enumerate(streams)] + [(merged, "metric")]:
        have = _reg_values(got)
        if grouped:
            assert list(have) == list(want), what
            for key in want:
                assert_same(have[key], want[key], f"{what}, group {key}")
        else:
            assert_same(have, want, what)
        assert got.params["task"] == "regression" and got.params["rows"] == mem.params["rows"], what
