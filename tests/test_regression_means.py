"""The per-group means made in the compiled pass (csrc/exact.c: regression_sums' ``means``,
cr_quotient): each group's MAE, MSE and RMSE (a sum over its weights' sum, rounded once) without
Python integers, held to the Python-integer path bit for bit: the division itself against Python's
``int / int`` (quotients constructed exactly halfway between two doubles, subnormal, past the range),
the kernel's quotients against :func:`ratio` of the kernel's own integers, and ``evaluate``'s
per-group values against the integer path and against each group alone."""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval import _native
from perfeval.engine import regression as engine
from perfeval.summaries.regression import ROW_SUMS, ratio, row_means, row_sums


def same(a: float, b: float) -> bool:
    """The same float64 bits (NaN any NaN)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def same_arrays(a: np.ndarray, b: np.ndarray) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True))


def python_quotient(a: int, b: int) -> float:
    """Python's ``a / b`` (correctly rounded, ties to even), NaN for ``b`` 0, +-inf past the range."""
    if b == 0:
        return math.nan
    try:
        return a / b
    except OverflowError:
        return math.inf if (a > 0) == (b > 0) else -math.inf


def big(max_bits: int = 3000) -> st.SearchStrategy[int]:
    """Integers of any length up to ``max_bits``, with runs of low zero bits (the accumulators'
    trimmed limbs) now and then."""

    def number(bits: int, seed: int, zeros: int) -> int:
        top = max(bits - 1, 0)  # exactly max(bits, 1) bits, then the zeros
        return (seed ** (1 + bits // 64) % (1 << top) + (1 << top)) << zeros

    return st.builds(
        number, st.integers(0, max_bits), st.integers(0, 2**64), st.sampled_from([0, 0, 1, 31, 32, 200])
    )


@settings(max_examples=3000, deadline=None)
@given(big(), big(), st.booleans(), st.booleans())
def test_the_division_is_pythons(a, b, neg_a, neg_b):
    a, b = -a if neg_a else a, -b if neg_b else b
    assert same(_native.divide_ints(a, b), python_quotient(a, b)), (a, b)


@settings(max_examples=2000, deadline=None)
@given(st.integers(2**52, 2**53 - 1), st.integers(-1130, 1030), big(400), st.booleans(), st.integers(-1, 1))
def test_quotients_halfway_between_two_doubles_round_to_even(m, e, b, neg, off):
    """a / b = (2m + 1) 2**(e - 1) exactly: halfway between m 2**e and (m + 1) 2**e (normal, or in the
    subnormal range, or past DBL_MAX); ``off`` moves a one unit off the tie (b > 1: just above or
    below it)."""
    b |= 1
    a = (2 * m + 1) * b
    if e >= 1:
        a <<= e - 1
    else:
        b <<= 1 - e
    a += off
    a = -a if neg else a
    got = _native.divide_ints(a, b)
    assert same(got, python_quotient(a, b)), (a, b)
    if off == 0 and -1074 <= e and e + 53 <= 1024 - 1:  # both neighbours doubles: the even one
        want = math.ldexp(m + (m & 1), e)
        assert got == (-want if neg else want)


def test_halfway_quotients_at_the_ends_of_the_range():
    tiny = 2**1074  # 1 / tiny is the least subnormal
    assert _native.divide_ints(1, 2 * tiny) == 0.0  # half the least subnormal: to 0 (even)
    assert _native.divide_ints(3, 2 * tiny) == 2 * 5e-324  # 1.5 of it: to 2 (even)
    assert _native.divide_ints(5, 2 * tiny) == 2 * 5e-324  # 2.5 of it: to 2 (even)
    assert (
        _native.divide_ints(-1, 2 * tiny) == 0.0 and math.copysign(1, _native.divide_ints(-1, 2 * tiny)) < 0
    )
    top = (2**54 - 1) * 2**970  # halfway between DBL_MAX and 2**1024: odd mantissa, up to inf
    assert _native.divide_ints(top, 1) == math.inf
    assert _native.divide_ints(top - 1, 1) == np.finfo(np.float64).max
    assert _native.divide_ints(-top, 1) == -math.inf
    assert math.isnan(_native.divide_ints(5, 0))
    assert same(_native.divide_ints(0, -3), -0.0)


@pytest.mark.parametrize(
    "a,b",
    [  # quotient digits Knuth's algorithm D must correct (its rare "add back" step)
        (
            1461501637160761734743215600975372343901046177792,
            1461501637160761734743215600975372343911783596031,
        ),
        (
            115792089210356248750143243479364962821080016027857981535915665423378826657792,
            730750818325169092220518034151899071188675067905,
        ),
        (
            115792089237316195420432434143917570745333331056641837651160131906895800696832,
            730750818665451459101842416348918137795406462974,
        ),
    ],
)
def test_divisions_that_correct_a_quotient_digit(a, b):
    assert same(_native.divide_ints(a, b), python_quotient(a, b))
    assert same(_native.divide_ints(-a, b), python_quotient(-a, b))


@st.composite
def groups(draw):
    """Columns with tiny and huge exponents, subnormals and zeros; weights none, whole, fractional,
    some 0; bounds with empty and one-row groups; a permutation to read them through."""
    n = draw(st.integers(0, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from([0, 3, 60, 300]))

    def column():
        c = rng.normal(size=n) * 10.0 ** rng.integers(-spread, spread + 1, n)
        return c * rng.choice([0.0, 1.0], n, p=[0.1, 0.9])

    y, p = column(), column()
    if draw(st.booleans()):  # whole numbers: ties between two doubles likelier
        y, p = np.round(y), np.round(p)
    if draw(st.booleans()):  # subnormals
        y[: min(n, 2)] = [5e-324, -3e-310][: min(n, 2)]
    kind = draw(st.sampled_from(["none", "whole", "fractional", "tiny"]))
    w = {
        "none": None,
        "whole": rng.integers(0, 4, n).astype(np.float64),
        "fractional": rng.random(n) * rng.choice([0.0, 1.0], n, p=[0.2, 0.8]),
        "tiny": np.abs(column()),
    }[kind]
    cuts = draw(st.lists(st.integers(0, 40), max_size=8))
    bounds = np.array([0, *sorted(c % (n + 1) for c in cuts), n], dtype=np.int64)
    return y, p, w, bounds, rng.permutation(n)


@settings(max_examples=400, deadline=None)
@given(groups())
def test_the_kernels_quotients_are_the_ratios_of_its_integers(d):
    y, p, w, bounds, perm = d
    keys = ROW_SUMS[:-1]  # every sum; the signed ones (sy, sr) give negative quotients
    try:
        ints = row_sums(bounds, y, p, w, (*keys, "weight"), scaled=True)
    except OverflowError as e:
        with pytest.raises(OverflowError, match=str(e)):
            row_means(bounds, y, p, w, keys)
        with pytest.raises(OverflowError, match=str(e)):
            row_means(bounds, y[perm], p[perm], None if w is None else w[perm], keys, order=np.argsort(perm))
        return
    W = ints["weight"][0]
    got, _ = row_means(bounds, y, p, w, keys, fractions=("R2", "EXPVAR"))
    for k in keys:
        want = np.array([ratio(a, b) for a, b in zip(ints[k][0], W, strict=True)])
        assert same_arrays(got[k], want), k
    # R2 and the explained variance: engine/regression.py's integer formulas, Python's division
    # (past the range: +-inf, where ratio() itself fails on the integers: not this kernel's)
    sy, syy, sr, srr = (ints[k][0] for k in ("sy", "syy", "sr", "srr"))
    spread = [a * b - c * c for a, b, c in zip(W, syy, sy, strict=True)]
    r2 = [python_quotient(d - q * a, d) for d, q, a in zip(spread, srr, W, strict=True)]
    ev = [python_quotient(d - (a * q - r * r), d) for d, q, a, r in zip(spread, srr, W, sr, strict=True)]
    assert same_arrays(got["R2"], np.array(r2))
    assert same_arrays(got["EXPVAR"], np.array(ev))
    # read through an order: the same numbers as the gathered columns
    inv = np.argsort(perm)  # y[perm][inv] is y
    shuffled, _ = row_means(
        bounds, y[perm], p[perm], None if w is None else w[perm], keys, order=inv, fractions=("R2", "EXPVAR")
    )
    for k in (*keys, "R2", "EXPVAR"):
        assert same_arrays(shuffled[k], got[k]), k
    # the integers asked in the same pass: the ones row_sums makes
    both, made = row_means(bounds, y, p, w, ("sabs",), ("srr", "sy", "weight"))
    assert same_arrays(both["sabs"], got["sabs"])
    again = row_sums(bounds, y, p, w, ("srr", "sy", "weight"), scaled=True)
    assert made == again
    wp = None if w is None else w[perm]
    through, made = row_means(bounds, y[perm], p[perm], wp, ("sabs",), ("srr", "sy", "weight"), order=inv)
    assert same_arrays(through["sabs"], got["sabs"]) and made == again


def evaluate_both(monkeypatch, y, p, g, w, names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = perfeval.evaluate(y, p, groups=g, sample_weight=w, measures=names, task="regression")
        monkeypatch.setattr(engine, "COMPILED_MEANS", False)
        slow = perfeval.evaluate(y, p, groups=g, sample_weight=w, measures=names, task="regression")
        monkeypatch.setattr(engine, "COMPILED_MEANS", True)
    return fast, slow


NAMES = ["mae", "mse_reg", "rmse_reg"]
LABELS = ["MAE", "MSE_REG", "RMSE_REG"]


@settings(max_examples=150, deadline=None)
@given(groups(), st.booleans())
def test_per_group_values_are_the_integer_paths_and_each_group_alone(d, with_r2):
    """MAE, MSE, RMSE (and R2, EXPVAR): the compiled values and reasons are the integer path's."""
    y, p, w, bounds, _ = d
    if len(y) == 0:
        return
    g = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    names = NAMES + (["r2", "expvar"] if with_r2 else [])
    mp = pytest.MonkeyPatch()
    try:
        fast, slow = evaluate_both(mp, y, p, g, w, names)
    except perfeval.InvalidDataError as e:  # beyond the range, or a product's bits lost: both paths say so
        mp.setattr(engine, "COMPILED_MEANS", False)
        with pytest.raises(perfeval.InvalidDataError, match=re.escape(str(e))):
            perfeval.evaluate(y, p, groups=g, sample_weight=w, measures=names, task="regression")
        return
    finally:
        mp.undo()
    assert list(fast.groups) == list(slow.groups)
    for lab in fast.results:
        assert same_arrays(fast.results[lab].per_group, slow.results[lab].per_group), lab
        assert fast.results[lab].undefined_groups_why == slow.results[lab].undefined_groups_why
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, key in enumerate(fast.groups.tolist()):
            m = g == key
            alone = perfeval.evaluate(
                y[m], p[m], sample_weight=None if w is None else w[m], measures=NAMES, task="regression"
            )
            for lab in LABELS:
                assert same(float(fast.results[lab].per_group[i]), alone[lab]), (key, lab)


def test_groups_whose_mean_is_halfway_between_two_doubles(monkeypatch):
    """Each group's exact mean halfway between two doubles: the even one, as the integer path and
    each group alone give it (round half away from zero, or truncation, gives another)."""
    u = 2.0**-52
    sub = 5e-324
    rows = [  # (group, target; prediction 0: r = y)
        ("a", 1.0),
        ("a", 1 + u),  # mean 1 + u/2: between 1 (even) and 1 + u
        ("b", 1 + u),
        ("b", 1 + 2 * u),  # mean 1 + 3u/2: between 1 + u and 1 + 2u (even)
        ("c", 0.0),
        ("c", sub),  # sub/2: between 0 (even) and the least subnormal
        ("d", sub),
        ("d", 2 * sub),  # 3 sub/2: 2 sub (even)
        ("e", 1.0),
        ("e", 1 + 2.0**-26),  # squares 1 and 1 + 2**-25 + u: MSE 1 + 2**-26 + u/2, to 1 + 2**-26
        ("f", -3.0),
        ("f", 3 + 4 * u),  # |r| 3 and 3 + 4u (two units of 2u): MAE 3 + 2u exactly
    ]
    g = np.array([k for k, _ in rows])
    y = np.array([v for _, v in rows])
    p = np.zeros(len(y))
    fast, slow = evaluate_both(monkeypatch, y, p, g, None, ["mae"])  # unweighted |r|: no product
    mae = dict(zip(fast.groups.tolist(), fast.results["MAE"].per_group.tolist(), strict=True))
    assert mae["a"] == 1.0
    assert mae["b"] == 1 + 2 * u
    assert mae["c"] == 0.0
    assert mae["d"] == 2 * sub
    assert mae["f"] == 3 + 2 * u
    assert same_arrays(fast.results["MAE"].per_group, slow.results["MAE"].per_group)
    # a subnormal's square has bits below 2**-1074: MSE NaN in groups c and d, with why, on both
    # paths; the other groups' values those of the rows without c and d
    keep = (g != "c") & (g != "d")
    without = evaluate_both(monkeypatch, y[keep], p[keep], g[keep], None, NAMES)
    for compiled, rest in zip((True, False), without, strict=True):
        monkeypatch.setattr(engine, "COMPILED_MEANS", compiled)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = perfeval.evaluate(y, p, groups=g, measures=NAMES, task="regression")
        r = got.results["MSE_REG"]
        assert r.undefined == ["c", "d"] and all("2**-1074" in why for why in r.undefined_groups_why)
        idx = [got.groups.tolist().index(k) for k in rest.groups.tolist()]
        for lab in LABELS:
            assert same_arrays(got.results[lab].per_group[idx], rest.results[lab].per_group), (compiled, lab)
    monkeypatch.setattr(engine, "COMPILED_MEANS", True)
    y, p, g = y[keep], p[keep], g[keep]
    fast, slow = evaluate_both(monkeypatch, y, p, g, None, NAMES)
    mse = dict(zip(fast.groups.tolist(), fast.results["MSE_REG"].per_group.tolist(), strict=True))
    assert mse["e"] == 1 + 2.0**-26
    for lab in LABELS:
        assert same_arrays(fast.results[lab].per_group, slow.results[lab].per_group), lab
    # weighted: fractional weights of a tie (a quarter each) still a tie
    w = np.full(len(y), 0.25)
    fast, slow = evaluate_both(monkeypatch, y, p, g, w, NAMES)
    assert fast.results["MAE"].per_group[0] == 1.0
    for lab in LABELS:
        assert same_arrays(fast.results[lab].per_group, slow.results[lab].per_group), lab


def test_a_sum_made_only_as_a_mean_gives_its_integers_when_asked():
    """The group sums' integers of a sum the compiled pass made only as a mean (sabs, srr) are made
    on demand, the numbers of the integer path (never another sum's)."""
    rng = np.random.default_rng(3)
    y = rng.normal(size=50) * 3
    p = y + rng.normal(size=50)
    w = rng.random(50)
    starts = np.array([0, 10, 10, 30], dtype=np.int64)
    for weights in (None, w):
        fast = engine._GroupSums(y, p, weights, starts, (), ("sabs", "srr"))
        slow = engine._GroupSums(y, p, weights, starts, ("sabs", "srr"))
        for k in ("sabs", "srr", "weight"):  # the same numbers (each at its own power of two)
            (a, da), (b, db) = fast.made(k), slow.made(k)
            assert [Fraction(int(x)) * Fraction(2) ** da for x in a] == [
                Fraction(int(x)) * Fraction(2) ** db for x in b
            ], k
        for k in ("sabs", "srr"):
            assert same_arrays(fast.mean(k), slow.mean(k)), k


@pytest.mark.parametrize("weighted", [False, True])
def test_many_rows_on_two_threads_are_the_ratios_of_the_integers(weighted):
    """Past 100,000 rows the means alone are made on two threads (each half of the groups): the same
    quotients, and a difference beyond the range in the second half still said."""
    rng = np.random.default_rng(8)
    n, q = 150_000, 20_000
    y = rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, n)
    p = y + rng.normal(size=n)
    w = rng.random(n) * rng.choice([0.0, 1.0], n, p=[0.1, 0.9]) if weighted else None
    order = rng.permutation(n)
    bounds = np.unique(np.r_[0, rng.integers(0, n, q), n]).astype(np.int64)
    got, _ = row_means(bounds, y, p, w, ("sabs", "srr", "sy"), order=order, fractions=("R2", "EXPVAR"))
    yo, po, wo = y[order], p[order], None if w is None else w[order]
    ints = row_sums(bounds, yo, po, wo, ("sabs", "srr", "sy", "syy", "sr", "weight"), scaled=True)
    W = ints["weight"][0]
    for k in ("sabs", "srr", "sy"):
        want = np.array([ratio(a, b) for a, b in zip(ints[k][0], W, strict=True)])
        assert same_arrays(got[k], want), k
    sy, syy, sr, srr = (ints[k][0] for k in ("sy", "syy", "sr", "srr"))
    spread = [a * b - c * c for a, b, c in zip(W, syy, sy, strict=True)]
    r2 = [ratio(d - q * a, d) for d, q, a in zip(spread, srr, W, strict=True)]
    ev = [ratio(d - (a * q - r * r), d) for d, q, a, r in zip(spread, srr, W, sr, strict=True)]
    assert same_arrays(got["R2"], np.array(r2)) and same_arrays(got["EXPVAR"], np.array(ev))
    y[order[-1]], p[order[-1]] = 1e308, -1e308  # the last group's last row
    with pytest.raises(OverflowError, match="a target minus its prediction"):
        row_means(bounds, y, p, w, ("sabs",), order=order)


def test_mapes_ratio_past_the_range_concerns_mape_alone():
    """A difference in range whose ratio |r| / max(|y|, eps) is not: the sums without MAPE's made
    (the pass refused them before, code 1, whatever was asked), MAPE's said beyond for that group
    alone (``over_groups``), its other groups' sums as they are."""
    y, p = np.array([1e-300, 1.0]), np.array([-1e293, 0.5])
    bounds = np.array([0, 1, 2], dtype=np.int64)
    for w in (None, np.array([1.0, 2.0])):
        means, _ = row_means(bounds, y, p, w, ("sabs",))
        assert means["sabs"].tolist() == [1e293, 0.5]
        over: dict = {}
        got = row_sums(bounds, y, p, w, ("sabs", "sape", "weight"), scaled=True, over_groups=over)
        assert over["sape"].tolist() == [True, False]
        v, d = got["sape"]
        assert v[0] == 0 and Fraction(v[1]) * Fraction(2) ** d == Fraction(0.5) * (1 if w is None else 2)
    r = perfeval.evaluate(y, p, groups=[1, 2], measures=["mae", "mape:eps=sklearn"], task="regression")
    assert r.results["MAE"].per_group.tolist() == [1e293, 0.5]
    assert (
        np.isnan(r.results["MAPE:eps=sklearn"].per_group[0])
        and r.results["MAPE:eps=sklearn"].per_group[1] == 0.5
    )
