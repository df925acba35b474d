"""The compiled exact sums of the regression summary (csrc/exact.c): each group's sum of its rows'
products, made exact by Dekker's two-product terms, equal to the sum of those terms in exact rational
arithmetic; in any row order; per group the numbers of each group alone; scaled (the small integers
the per-group finish divides) equal to the full-scale ones; and the per-group values of every
regression measure, unweighted medians included, equal to each group alone bit for bit."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.summaries.regression import (
    SHIFT,
    checked_products,
    exact_products,
    exact_sums,
    scaled_sums,
    two_product,
)


def terms(*factors):
    """The float64 terms summaries/regression.py's two_product makes (the slow reference's input)."""
    ts = [np.asarray(factors[0], dtype=np.float64)]
    for f in factors[1:]:
        nxt = []
        with np.errstate(all="ignore"):
            for t in ts:
                p, e = two_product(t, np.asarray(f, dtype=np.float64))
                nxt += [p, e]
        ts = nxt
    return ts


def ref(*factors) -> int | None:
    """sum of the terms times 2**SHIFT, in Fractions: a whole number (None: a term not finite)."""
    ts = terms(*factors)
    if not all(np.isfinite(t).all() for t in ts):
        return None
    total = sum((Fraction(float(v)) for t in ts for v in t), Fraction(0)) * 2**SHIFT
    assert total.denominator == 1
    return int(total)


@st.composite
def columns(draw):
    n = draw(st.integers(0, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from([0, 3, 60, 300]))
    cols = [
        rng.normal(size=n)
        * 10.0 ** rng.integers(-spread, spread + 1, n)
        * rng.choice([0.0, 1.0], n, p=[0.1, 0.9])
        for _ in range(3)
    ]
    if draw(st.booleans()):  # subnormals and values near the top
        for c in cols:
            c[: min(n, 2)] = [5e-324, -3e-310][: min(n, 2)]
    return cols, rng


@settings(max_examples=150, deadline=None)
@given(columns(), st.integers(1, 3))
def test_exact_sums_are_the_exact_sum_of_the_terms_in_any_order(d, k):
    cols, rng = d
    fs = cols[:k]
    if k == 3:
        fs = [fs[0], fs[1], np.abs(fs[2])]  # a weight
    want = ref(*fs)
    if want is None:  # a term beyond float64's range: the exact products summed all the same (they
        # were refused: None, OverflowError), unless a product lost bits below 2**-1074
        total, lost = checked_products(*fs)
        exact = sum((math.prod(Fraction(float(f[i])) for f in fs) for i in range(len(fs[0]))), Fraction(0))
        assert lost or total == exact * 2**SHIFT
        assert exact_sums(None, *fs) == [total]
        return
    assert exact_products(*fs) == want
    perm = rng.permutation(len(fs[0]))
    assert exact_products(*(f[perm] for f in fs)) == want
    assert exact_sums(None, *fs) == [want]


@settings(max_examples=100, deadline=None)
@given(columns(), st.integers(1, 3), st.lists(st.integers(0, 30), max_size=5))
def test_group_sums_are_each_group_alone_and_scaled_ones_the_same_numbers(d, k, cuts):
    cols, _ = d
    fs = cols[:k]
    n = len(fs[0])
    bounds = np.array([0, *sorted(c % (n + 1) for c in cuts), n], dtype=np.int64)
    full = exact_sums(bounds, *fs)
    if ref(*fs) is None:  # a term beyond the range: each group's sum that of the group alone
        assert full == [
            exact_sums(None, *(f[a:b] for f in fs))[0] for a, b in zip(bounds, bounds[1:], strict=False)
        ]
    else:
        assert full == [ref(*(f[a:b] for f in fs)) for a, b in zip(bounds, bounds[1:], strict=False)]
    sums, e = scaled_sums(bounds, *fs)
    assert -1074 <= e
    assert [Fraction(v) * Fraction(2) ** e for v in sums] == [Fraction(v, 2**SHIFT) for v in full]


def test_a_product_beyond_float64s_range_is_summed_exactly_and_a_value_beyond_is_said():
    """Products beyond float64's range were refused (None, OverflowError, the whole run); now summed
    exactly (csrc/exact.c, add_product); a factor not finite is still None, a difference beyond the
    range still refused, and a measure whose value is beyond the range NaN with why."""
    big = np.array([1e300, 1.0])
    assert exact_sums(None, big, big) == [(int(Fraction(1e300) ** 2) + 1) << SHIFT]
    assert exact_products(big, big, big) == (int(Fraction(1e300) ** 3) + 1) << SHIFT
    assert exact_sums(None, np.array([np.inf])) is None
    for groups in (None, [1, 2]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = perfeval.evaluate([1e300, 1.0], [-1e300, 0.0], groups=groups, measures=["mse_reg", "mae"])
        mse = r.results["MSE_REG"]
        assert math.isnan(mse.value if groups is None else mse.per_group[0])
        assert (r["MAE"] if groups is None else r.results["MAE"].per_group[0] / 2) == 1e300
        with pytest.raises(perfeval.InvalidDataError, match="beyond the range of a 64-bit float"):
            perfeval.evaluate([1e308, 1.0], [-1e308, 0.0], groups=groups, measures=["mae"])


def test_sums_of_many_rows_carry_and_keep_the_sign():
    """More terms than a limb holds between carries is not reachable in a test; a long group with
    values that cancel to a tiny negative remainder is: the sign and every digit kept."""
    x = np.concatenate([np.full(100_000, 2.0**1000), np.full(100_000, -(2.0**1000)), [-(2.0**-1070)]])
    assert exact_sums(None, x) == [-(2 ** (SHIFT - 1070))]
    assert scaled_sums(np.array([0, len(x)]), x) == ([-16], -1074)  # 2**-1070 is 16 subnormal steps
    assert exact_sums(np.array([0, 3, len(x)]), x) == [
        3 * 2 ** (1000 + SHIFT),
        -(2 ** (SHIFT - 1070)) - 3 * 2 ** (1000 + SHIFT),
    ]


REGRESSION = [m.name for m in perfeval.list_measures() if m.kind == "regression"]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e100])
def test_every_measure_per_group_is_each_group_alone(weighted, scale):
    rng = np.random.default_rng(11)
    n = 2000
    g = rng.integers(0, 150, n)
    y = np.round(rng.normal(size=n) * 3 + 10, 2) * scale
    p = np.round(y / scale + rng.normal(size=n), 1) * scale
    w = rng.integers(0, 4, n) * 0.25 if weighted else None
    measures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in REGRESSION:  # at 1e-300 the products lose bits below 2**-1074: their measures refuse
            try:
                perfeval.evaluate(y, p, groups=g, sample_weight=w, measures=[name], task="regression")
                measures.append(name)
            except perfeval.InvalidDataError as e:
                assert scale == 1e-300 and "2**-1074" in str(e), (name, e)
                with pytest.raises(perfeval.InvalidDataError, match=r"2\*\*-1074"):  # and so does the whole
                    perfeval.evaluate(y, p, sample_weight=w, measures=[name], task="regression")
        assert "MAE" in measures or weighted  # unweighted: no product
        r = perfeval.evaluate(y, p, groups=g, sample_weight=w, measures=measures, task="regression")
        for i, key in enumerate(r.groups.tolist()):
            m = g == key
            alone = perfeval.evaluate(
                y[m], p[m], sample_weight=None if w is None else w[m], measures=measures, task="regression"
            )
            for lab, res in r.results.items():
                a, b = float(res.per_group[i]), alone[lab]
                assert a == b or (math.isnan(a) and math.isnan(b)), (key, lab, a, b)


@settings(max_examples=100, deadline=None)
@given(columns(), st.booleans(), st.lists(st.integers(0, 30), max_size=4))
def test_row_sums_in_one_pass_are_the_sums_of_the_numpy_columns(d, weighted, cuts):
    """csrc/exact.c's regression_sums: each sum the exact sum of the numpy form's terms (r = y - yhat
    rounded once a row, |r|, max(r, 0), |r| / max(|y|, eps), times the weights), per group, scaled
    to one power of two or at the summary's scale."""
    from perfeval.summaries.regression import ROW_SUMS, row_sums

    (y, p, w), _ = d
    w = np.abs(w) if weighted else None
    n = len(y)
    with np.errstate(all="ignore"):
        r = y - p
        a = np.abs(r)
        ape = a / np.maximum(np.abs(y), np.finfo(np.float64).eps)
    factors = {
        "sy": (y,),
        "syy": (y, y),
        "sr": (r,),
        "srr": (r, r),
        "sabs": (a,),
        "spos": (np.maximum(r, 0.0),),
        "sape": (np.where(np.isfinite(ape), ape, 0.0),),  # a ratio beyond the range: left out, said
        "weight": (np.ones(n),) if w is None else (),
    }
    bounds = np.array([0, *sorted(c % (n + 1) for c in cuts), n], dtype=np.int64)
    if not np.isfinite(r).all():
        with pytest.raises(OverflowError, match="a target minus its prediction"):
            row_sums(bounds, y, p, w)
        return
    big = ~np.isfinite(ape) & (True if w is None else w > 0)
    over_groups: dict = {}
    row_sums(bounds, y, p, w, over_groups=over_groups)
    if big.any():
        said = [bool(big[lo:hi].any()) for lo, hi in zip(bounds, bounds[1:], strict=False)]
        assert over_groups["sape"].tolist() == said
    else:
        assert over_groups == {}
    want = {}
    for k in ROW_SUMS:
        fs = [*factors[k], w] if (factors[k] or w is None) else [w]
        fs = [f for f in fs if f is not None]
        want[k] = [ref(*(f[lo:hi] for f in fs)) for lo, hi in zip(bounds, bounds[1:], strict=False)]
        if None in want[k]:  # a product beyond the range (refused before): exact_sums' exact product
            want[k] = [
                exact_sums(None, *(f[lo:hi] for f in fs))[0]
                for lo, hi in zip(bounds, bounds[1:], strict=False)
            ]
    got = row_sums(bounds, y, p, w)
    assert {k: v[0] for k, v in got.items()} == want
    assert {v[1] for v in got.values()} == {-SHIFT}
    scaled = row_sums(bounds, y, p, w, ("sabs", "srr", "weight"), scaled=True)
    (e,) = {v[1] for v in scaled.values()}
    for k, (v, _) in scaled.items():
        assert [Fraction(x) * Fraction(2) ** e for x in v] == [Fraction(x, 2**SHIFT) for x in want[k]]


def test_unaligned_arrays_are_read():
    """An array unpickled on a Dask worker can be unaligned (numpy exports it as another buffer
    format): the sums read it as any other."""
    from perfeval.summaries.regression import RegressionSummary

    x = np.array([1.5, -2.25, 3.0])
    raw = np.zeros(x.nbytes + 1, dtype=np.uint8)
    raw[1:] = x.view(np.uint8)
    un = raw[1:].view(np.float64)
    assert not un.flags.aligned
    assert exact_sums(None, un, un) == exact_sums(None, x, x)
    a, b = RegressionSummary.from_checked(un, un[::-1]), RegressionSummary.from_checked(x, x[::-1])
    assert (a.srr, a.sabs, a.weight) == (b.srr, b.sabs, b.weight)


def test_groups_whose_every_weight_is_0_are_no_group():
    """Every row of weight 0: no case, so no group (as for the binary measures), MEDAE included
    (its per-group loop read one end too many and raised)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(
            [0.0, 1.0], [0.5, 1.0], groups=[1, 2], sample_weight=[0.0, 0.0], measures=REGRESSION
        )
    assert len(r.groups) == 0 and r.params["rows"] == 2
    assert all(len(res.per_group) == 0 and math.isnan(res.value) for res in r.results.values())
