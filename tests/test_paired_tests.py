"""The paired significance tests of perfeval.stats.paired and the multiple-testing correction.

Oracles: SciPy (the t distribution and ``ttest_rel``), closed forms of the t distribution, ranx 0.3.21
(its t-test, and its randomization test compiled without ``parallel=True`` so that its seed reaches
its draws, or run as plain Python with ``NUMBA_DISABLE_JIT=1``), the exact enumeration of all 2^n
assignments for small n, a one-resample-at-a-time bootstrap, and the definition of Holm's procedure.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import perfeval.stats.paired as paired
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.stats.paired import (
    correct,
    paired_bootstrap_test,
    paired_t_test,
    randomization_test,
    student_t_sf,
)

# --------------------------------------------------------------------------------------------------
# data


@st.composite
def paired_values(draw, least=2, most=60):
    """Two systems' values on n queries: continuous, or on a grid (ties, as IR measures have), and
    with a share of queries where the systems agree."""
    n = draw(st.integers(least, most))
    grid = draw(st.sampled_from([0, 3, 10, 100]))
    if grid:
        a = [k / grid for k in draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))]
        b = [k / grid for k in draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))]
    else:
        unit = st.floats(0, 1, allow_nan=False)
        a = draw(st.lists(unit, min_size=n, max_size=n))
        b = draw(st.lists(unit, min_size=n, max_size=n))
    same = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    b = [x if s else y for x, y, s in zip(a, b, same, strict=True)]
    return np.array(a), np.array(b)


def _tenths(rng, n, share_equal=0.3):
    a = rng.integers(0, 11, n) / 10
    b = np.where(rng.random(n) < share_equal, a, rng.integers(0, 11, n) / 10)
    return a, b


# --------------------------------------------------------------------------------------------------
# Student's t distribution

DFS = np.unique(np.concatenate([np.arange(1, 31), np.round(np.logspace(0, 6, 50)), np.logspace(0, 6, 23)]))
TS = np.concatenate([[0.0], np.logspace(-9, 3.5, 120), -np.logspace(-9, 1.5, 50)])


def test_t_sf_agrees_with_scipy_on_a_wide_grid():
    stats = pytest.importorskip("scipy.stats")
    checked = 0
    for df in DFS:
        ref = stats.t.sf(TS, df)
        for t, r in zip(TS, ref, strict=True):
            if r < 1e-300:  # subnormal results keep no relative accuracy, in SciPy or here
                continue
            if df == 1 and 0 < abs(t) < 1e-3:  # SciPy is off by up to 4e-9 there: closed form below
                continue
            assert student_t_sf(t, df) == pytest.approx(r, rel=1e-12, abs=0), (t, df)
            checked += 1
    assert checked > 14_000


def _sf_one_df(t):
    # 1/2 - atan(t) / pi, written without cancellation
    return math.atan2(1.0, t) / math.pi if t >= 0 else 1.0 - math.atan2(1.0, -t) / math.pi


def _sf_two_df(t):
    # 1/2 - t / (2 sqrt(2 + t^2)) = 1 / (r (r + t)) for t >= 0, r = sqrt(2 + t^2)
    r = math.sqrt(2.0 + t * t)
    tail = 1.0 / (r * (r + abs(t)))
    return tail if t >= 0 else 1.0 - tail


@pytest.mark.parametrize("df, exact", [(1, _sf_one_df), (2, _sf_two_df)])
def test_t_sf_equals_the_closed_forms(df, exact):
    ts = np.concatenate([[0.0], np.logspace(-12, 12, 300), -np.logspace(-12, 3, 100)])
    for t in ts:
        assert student_t_sf(t, df) == pytest.approx(exact(t), rel=1e-13, abs=0), t


def test_t_sf_high_precision_reference():
    mp = pytest.importorskip("mpmath")  # not a test dependency: runs where it is installed
    mp.mp.dps = 50

    def two_sided(t, nu):
        # I_x(nu/2, 1/2) by its hypergeometric series of positive terms, on the side where it is short
        t, nu = abs(mp.mpf(t)), mp.mpf(nu)
        a, b = nu / 2, mp.mpf(1) / 2
        x, y = nu / (nu + t * t), t * t / (nu + t * t)
        front = mp.exp(a * mp.log(x) + b * mp.log(y) - mp.log(mp.beta(a, b)))
        if front < mp.mpf("1e-310"):
            return mp.mpf(0)
        kw = {"maxprec": 200_000, "maxterms": 10**7}
        if x < (a + 1) / (a + b + 2):
            return front / a * mp.hyp2f1(a + b, 1, a + 1, x, **kw)
        return 1 - front / b * mp.hyp2f1(a + b, 1, b + 1, y, **kw)

    rng = np.random.default_rng(5)
    for _ in range(300):
        nu = float(10 ** rng.uniform(-1, 10))
        t = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-10, 3))
        p2 = two_sided(t, nu)
        ref = p2 / 2 if t > 0 else 1 - p2 / 2
        if ref < mp.mpf("1e-300"):
            continue
        assert student_t_sf(t, nu) == pytest.approx(float(ref), rel=1e-13, abs=0), (t, nu)


def test_t_sf_symmetry_limits_and_monotony():
    for df in (0.5, 1, 3, 30, 1e4, 1e6):
        assert student_t_sf(0.0, df) == 0.5
        assert student_t_sf(math.inf, df) == 0.0
        assert student_t_sf(-math.inf, df) == 1.0
        ts = np.linspace(-40, 40, 801)
        values = np.array([student_t_sf(t, df) for t in ts])
        assert (np.diff(values) <= 0).all()
        for t in (1e-6, 0.3, 1.0, 2.5, 17.0):
            assert student_t_sf(t, df) + student_t_sf(-t, df) == pytest.approx(1.0, abs=2e-16)


@pytest.mark.parametrize("t, df", [(1.0, 0), (1.0, -2), (1.0, math.nan), (1.0, math.inf), (math.nan, 3)])
def test_t_sf_rejects_what_is_not_a_distribution(t, df):
    with pytest.raises(InvalidParameterError):
        student_t_sf(t, df)


# --------------------------------------------------------------------------------------------------
# the paired t-test


def _scipy_p(a, b):
    stats = pytest.importorskip("scipy.stats")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # SciPy warns of precision loss on near-constant differences
        r = stats.ttest_rel(a, b)
    return float(r.statistic), float(r.pvalue)


@settings(max_examples=300, deadline=None)
@given(paired_values())
@example((np.array([1.0, 5e-324, 0.0]), np.array([1.0, 0.0, 0.0])))  # the reference once gave NaN here
def test_t_test_agrees_with_scipy(data):
    a, b = data
    p = paired_t_test(a, b)
    d = a - b
    if not d.any():
        assert p == 1.0  # SciPy: NaN (0 / 0)
        return
    # SciPy on the same differences scaled by a power of two (t does not change; exact): differences
    # of 1e-286 square to 0 in SciPy's variance (NaN), not in perfeval's.  The differences are scaled,
    # not the values: a pair that agrees at 1.0 beside a difference of 5e-324 scales 1.0 to inf, and
    # SciPy's inf - inf is NaN (a failure hypothesis found once in several hundred runs)
    e = math.frexp(float(np.max(np.abs(d))))[1]
    t, ref = _scipy_p(np.ldexp(d, -e), np.zeros_like(d))
    if a.size == 2 and abs(t) < 1e-3:  # SciPy's t distribution is off there (one degree of freedom)
        ref = 2 * math.atan2(1.0, abs(t)) / math.pi
    assert p == pytest.approx(ref, rel=1e-12, abs=1e-300)


def test_t_test_agrees_with_ranx_and_scipy_on_many_queries():
    ranx_tests = pytest.importorskip("ranx.statistical_tests")
    rng = np.random.default_rng(3)
    for n, shift in [(5, 0.1), (50, 0.02), (1000, 0.01), (100_000, 0.001), (100_000, 0.02)]:
        a = rng.random(n)
        b = np.clip(a + rng.normal(shift, 0.2, n), 0, 1)
        ref, _ = ranx_tests.paired_student_t_test(a, b, 0.01)
        assert paired_t_test(a, b) == pytest.approx(ref, rel=1e-12)
        assert paired_t_test(a, b) == pytest.approx(_scipy_p(a, b)[1], rel=1e-12)
        a10, b10 = _tenths(rng, n)
        ref, _ = ranx_tests.paired_student_t_test(a10, b10, 0.01)
        assert paired_t_test(a10, b10) == pytest.approx(ref, rel=1e-12)


def test_t_test_edge_cases():
    assert paired_t_test([0.3, 0.5, 0.7], [0.3, 0.5, 0.7]) == 1.0  # no difference at all
    assert paired_t_test([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]) == 0.0  # constant difference: t = inf
    assert paired_t_test([1.0, 0.0], [0.0, 1.0]) == 1.0  # mean difference 0: t = 0
    assert paired_t_test([0.2, 0.9], [0.1, 0.3]) == pytest.approx(_scipy_p([0.2, 0.9], [0.1, 0.3])[1])
    # the two systems' roles do not change a two-sided p-value
    a, b = _tenths(np.random.default_rng(1), 40)
    assert paired_t_test(a, b) == paired_t_test(b, a)


ALL_TESTS = [paired_t_test, randomization_test, paired_bootstrap_test]


@pytest.mark.parametrize("test", ALL_TESTS)
@pytest.mark.parametrize(
    "a, b, words",
    [
        ([0.5], [0.4], "at least 2 queries"),
        ([], [], "at least 2 queries"),
        ([0.5, 0.1, 0.2], [0.4, 0.3], "one value per query"),
        ([0.5, float("nan"), 0.2], [0.4, 0.3, 0.1], "nan at index 1"),
        ([0.5, 0.1, 0.2], [0.4, 0.3, float("inf")], "inf at index 2"),
        ([[0.5, 0.1], [0.2, 0.3]], [[0.4, 0.3], [0.1, 0.2]], "one-dimensional"),
        (["x", "y"], [0.4, 0.3], "must hold numbers"),
        ([1e308, 0.0], [-1e308, 0.0], "overflows"),
    ],
)
def test_bad_data_is_a_clear_error(test, a, b, words):
    with pytest.raises(InvalidDataError, match=words) as info:
        test(a, b)
    assert isinstance(info.value, ValueError) and isinstance(info.value, InvalidParameterError)


@pytest.mark.parametrize("test", [randomization_test, paired_bootstrap_test])
@pytest.mark.parametrize(
    "kwargs", [{"n_resamples": 0}, {"n_resamples": -5}, {"n_resamples": 2.5}, {"n_resamples": True}]
)
def test_bad_resample_count_is_a_clear_error(test, kwargs):
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        test([0.1, 0.2, 0.3], [0.3, 0.2, 0.0], **kwargs)


@pytest.mark.parametrize("test", [randomization_test, paired_bootstrap_test])
@pytest.mark.parametrize("seed", [-1, 2**32, 1.0, None, "0", False])
def test_bad_seed_is_a_clear_error(test, seed):
    with pytest.raises(InvalidParameterError, match="seed"):
        test([0.1, 0.2, 0.3], [0.3, 0.2, 0.0], seed=seed)


# --------------------------------------------------------------------------------------------------
# Fisher's randomization test against ranx


@pytest.fixture(scope="module")
def ranx_fisher():
    """ranx's fisher_randomization_test as shipped (parallel) and compiled serially from its source."""
    numba = pytest.importorskip("numba")
    pytest.importorskip("ranx")
    module = importlib.import_module("ranx.statistical_tests.fisher_randomization_test")
    shipped = module.fisher_randomization_test
    serial = numba.njit(shipped.py_func)  # the same code; without prange, the seed reaches the draws
    return shipped, serial


def test_numba_draws_the_stream_of_numpys_legacy_random_state():
    numba = pytest.importorskip("numba")

    @numba.njit
    def numba_bits(seed, n):
        np.random.seed(seed)
        out = np.empty(n, dtype=np.int64)
        for i in range(n):
            out[i] = np.random.randint(0, 2)
        return out

    @numba.njit
    def numba_swaps(seed, n):
        # the pair ranx permutes, one query at a time: 1 when the permutation swapped it
        np.random.seed(seed)
        out = np.empty(n, dtype=np.int64)
        pair = np.array([0.0, 1.0])
        for i in range(n):
            out[i] = int(np.random.permutation(pair)[0])
        return out

    for seed in (0, 1, 42, 2**31 - 1, 2**32 - 1):
        raw = np.random.RandomState(seed).randint(0, 2**32, size=5000, dtype=np.uint32)
        assert np.array_equal(numba_bits(seed, 5000), raw & 1)
        assert np.array_equal(numba_swaps(seed, 5000), 1 - (raw & 1))
        # numpy's own permutation of the pair draws the same way
        state = np.random.RandomState(seed)
        swaps = [int(state.permutation(np.array([0.0, 1.0]))[0]) for _ in range(200)]
        assert swaps == list(1 - (raw[:200] & 1))


def _ranx_transcribed(control, treatment, n_permutations, seed):
    """ranx's fisher_randomization_test line by line, run serially in Python: numpy's legacy
    generator and its ``permutation`` of each (control, treatment) pair for numba's, and numba's
    ``mean`` (a sum in order, then a division) for the means."""
    control, treatment = np.asarray(control, dtype=float), np.asarray(treatment, dtype=float)
    state = np.random.RandomState(seed)
    n = control.size

    def mean(values):
        total = 0.0
        for v in values.tolist():
            total += v
        return total / n

    observed = abs(mean(control) - mean(treatment))
    stack = np.column_stack((control, treatment))
    count = 0
    for _ in range(n_permutations):
        permuted = np.empty_like(stack)
        for i in range(n):
            permuted[i] = state.permutation(stack[i])
        count += abs(mean(permuted[:, 0]) - mean(permuted[:, 1])) >= observed
    return count / n_permutations


@settings(max_examples=100, deadline=None)
@given(paired_values(most=40), st.integers(0, 2**32 - 1), st.integers(1, 150))
def test_randomization_equals_ranx_transcribed(data, seed, n_resamples):
    # needs neither ranx nor numba; the tests below check the transcription's premises against them
    a, b = data
    ref = _ranx_transcribed(a, b, n_resamples, seed)
    assert randomization_test(a, b, n_resamples=n_resamples, seed=seed) == ref


@settings(max_examples=200, deadline=None)
@given(
    paired_values(most=80),
    st.integers(0, 2**32 - 1),
    st.integers(1, 600),
)
def test_randomization_equals_ranx_with_its_seed_reaching_the_draws(ranx_fisher, data, seed, n_resamples):
    a, b = data
    _, serial = ranx_fisher
    ref, _ = serial(a, b, n_resamples, 0.01, seed)
    assert randomization_test(a, b, n_resamples=n_resamples, seed=seed) == ref


def test_randomization_ties_are_decided_as_ranx_decides_them():
    # on values in tenths many resamples tie with the observed statistic in exact arithmetic: the
    # last bit decides, and a sum in another order (the mean of the flipped differences) decides
    # otherwise in many cases; perfeval decides as ranx's code in every case
    rng = np.random.default_rng(11)
    naive_differs = 0
    for _ in range(40):
        n = int(rng.integers(2, 60))
        a, b = _tenths(rng, n)
        seed = int(rng.integers(0, 2**32))
        ref = _ranx_transcribed(a, b, 200, seed)
        assert randomization_test(a, b, n_resamples=200, seed=seed) == ref
        draws = np.random.RandomState(seed).randint(0, 2**32, size=(200, n), dtype=np.uint32)
        signs = np.where(draws & 1, 1.0, -1.0)
        naive = np.mean(np.abs((signs * (a - b)).mean(axis=1)) >= abs((a - b).mean()))
        naive_differs += naive != ref
    assert naive_differs >= 10


def test_randomization_equals_ranx_run_as_plain_python():
    # ranx's code run by Python (NUMBA_DISABLE_JIT=1): numpy's own legacy generator and shuffle draw
    # the permutations.  Its means are then numpy's, summed pairwise, not in query order as numba's:
    # ties may be decided otherwise, so the values are continuous here (no ties but the identity
    # and the full swap, exact in any order of summation)
    pytest.importorskip("ranx")
    rng = np.random.default_rng(4)
    cases = []
    for n, n_resamples, seed in [(2, 50, 0), (13, 300, 42), (60, 500, 7), (250, 200, 2**32 - 1)]:
        a = rng.random(n)
        b = np.clip(a - 0.02 + rng.normal(0, 0.2, n), 0, 1)
        cases.append({"a": a.tolist(), "b": b.tolist(), "r": n_resamples, "seed": seed})
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        from ranx.statistical_tests import fisher_randomization_test
        out = []
        for c in json.load(sys.stdin):
            p, _ = fisher_randomization_test(np.array(c["a"]), np.array(c["b"]), c["r"], 0.01, c["seed"])
            out.append(float(p))
        print(json.dumps(out))
        """
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout.strip().splitlines()[-1])
    got = [randomization_test(c["a"], c["b"], n_resamples=c["r"], seed=c["seed"]) for c in cases]
    assert got == expected


def test_randomization_is_within_monte_carlo_error_of_ranx_as_shipped(ranx_fisher):
    # ranx as shipped draws on numba's worker threads, whose states its seed does not reach: its
    # p-values change from call to call, so only a statistical agreement is possible
    shipped, _ = ranx_fisher
    rng = np.random.default_rng(8)
    n_resamples = 4000
    for n, shift in [(30, 0.05), (50, 0.03), (200, 0.01)]:
        a = rng.random(n)
        b = np.clip(a - shift + rng.normal(0, 0.15, n), 0, 1)
        ours = randomization_test(a, b, n_resamples=n_resamples, seed=42)
        theirs, _ = shipped(a, b, n_resamples, 0.01, 42)
        p = (ours + theirs) / 2
        assert abs(ours - theirs) <= 5 * math.sqrt(2 * p * (1 - p) / n_resamples) + 2 / n_resamples


def test_ranx_as_shipped_gives_another_p_value_for_the_same_seed(ranx_fisher):
    """docs/ranking.md: ranx's own p-values change from call to call with the same data and seed (so
    no tool can reproduce them); and ranx has no bootstrap test."""
    shipped, _ = ranx_fisher
    rng = np.random.default_rng(9)
    a = rng.random(50)
    b = np.clip(a - 0.01 + rng.normal(0, 0.15, 50), 0, 1)
    seen = {float(shipped(a, b, 1000, 0.01, 42)[0]) for _ in range(8)}
    assert len(seen) > 1, seen
    from ranx import Qrels, Run, compare

    qrels = Qrels({"q": {"d": 1}})
    runs = [Run({"q": {"d": 1.0}}, name="x"), Run({"q": {"d": 0.5}}, name="y")]
    with pytest.raises(NotImplementedError, match="bootstrap"):
        compare(qrels, runs, ["map"], stat_test="bootstrap")


def _exact_randomization_p(a, b):
    """All 2^n assignments of the pairs, with ranx's statistic (column means summed in order)."""
    n = a.size
    keep = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    s0 = np.cumsum(np.where(keep, a, b), axis=1)[:, -1]
    s1 = np.cumsum(np.where(keep, b, a), axis=1)[:, -1]
    observed = abs(np.cumsum(a)[-1] / n - np.cumsum(b)[-1] / n)
    return float(np.mean(np.abs(s0 / n - s1 / n) >= observed))


@pytest.mark.parametrize("n", [3, 6, 9, 12])
@pytest.mark.parametrize("grid", [0, 10])
def test_randomization_is_within_monte_carlo_error_of_the_exact_enumeration(n, grid):
    rng = np.random.default_rng(100 * n + grid)
    n_resamples = 20_000
    for seed in (0, 1):
        a = rng.random(n)
        b = np.clip(a - 0.1 + rng.normal(0, 0.15, n), 0, 1)
        if grid:
            a, b = np.round(a * grid) / grid, np.round(b * grid) / grid
        exact = _exact_randomization_p(a, b)
        p = randomization_test(a, b, n_resamples=n_resamples, seed=seed)
        assert abs(p - exact) <= 5 * math.sqrt(exact * (1 - exact) / n_resamples) + 1e-12


def test_randomization_does_not_depend_on_the_block_size_or_the_fast_path(monkeypatch):
    rng = np.random.default_rng(2)
    for n in (2, 37, 400):
        a, b = _tenths(rng, n)
        expected = randomization_test(a, b, n_resamples=999, seed=3)
        for block in (1, 5, n, 3 * n + 1, 10**7):
            monkeypatch.setattr(paired, "_BLOCK_ELEMENTS", block)
            assert randomization_test(a, b, n_resamples=999, seed=3) == expected
        monkeypatch.undo()
        # every resample decided by the sums in query order, none by the matrix product
        monkeypatch.setattr(paired, "_randomization_margin", lambda *args: math.inf)
        assert randomization_test(a, b, n_resamples=999, seed=3) == expected
        monkeypatch.undo()


def test_randomization_properties():
    rng = np.random.default_rng(6)
    a, b = _tenths(rng, 50)
    p = randomization_test(a, b, n_resamples=777, seed=9)
    assert 0 <= p <= 1 and round(p * 777) == p * 777
    assert randomization_test(b, a, n_resamples=777, seed=9) == p  # symmetric
    assert randomization_test(a, a, n_resamples=50) == 1.0
    assert randomization_test(a, b) == randomization_test(a, b, n_resamples=10_000, seed=0)
    assert randomization_test([1.0, 1.0], [0.0, 0.0], n_resamples=1000) == pytest.approx(0.5, abs=0.05)
    assert randomization_test(np.arange(30) / 30, np.arange(30) / 30 - 0.2, n_resamples=500) == 0.0


# --------------------------------------------------------------------------------------------------
# the paired bootstrap test


def _bootstrap_one_at_a_time(a, b, n_resamples, seed):
    """The definition, one resample per draw of n indices from the same generator."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = d.size
    mean = float(np.mean(d))
    shifted = d - mean
    rng = np.random.default_rng(seed)
    count = 0
    for _ in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        count += abs(np.mean(shifted[idx])) >= abs(mean)
    return count / n_resamples


@settings(max_examples=60, deadline=None)
@given(paired_values(most=50), st.integers(0, 2**32 - 1), st.integers(1, 300))
def test_bootstrap_equals_its_definition(data, seed, n_resamples):
    a, b = data
    p = paired_bootstrap_test(a, b, n_resamples=n_resamples, seed=seed)
    if not (a - b).any():
        assert p == 1.0
    else:
        assert p == _bootstrap_one_at_a_time(a, b, n_resamples, seed)


def test_bootstrap_does_not_depend_on_the_block_size(monkeypatch):
    rng = np.random.default_rng(12)
    for n in (2, 37, 1001):
        a, b = _tenths(rng, n)
        expected = paired_bootstrap_test(a, b, n_resamples=1001, seed=4)
        for block in (1, 3, n, 2 * n + 1, 10**7):
            monkeypatch.setattr(paired, "_BLOCK_ELEMENTS", block)
            assert paired_bootstrap_test(a, b, n_resamples=1001, seed=4) == expected
        monkeypatch.undo()


def test_bootstrap_is_close_to_the_t_test_on_many_queries():
    # both are approximately normal tests of the mean for n large
    rng = np.random.default_rng(13)
    for shift in (0.01, 0.02, 0.03):
        a = rng.random(400)
        b = np.clip(a - shift + rng.normal(0, 0.2, 400), 0, 1)
        assert paired_bootstrap_test(a, b, n_resamples=20_000) == pytest.approx(paired_t_test(a, b), abs=0.02)


def test_bootstrap_properties():
    rng = np.random.default_rng(14)
    a, b = _tenths(rng, 60)
    p = paired_bootstrap_test(a, b, n_resamples=333, seed=1)
    assert 0 <= p <= 1 and round(p * 333) == p * 333
    assert paired_bootstrap_test(b, a, n_resamples=333, seed=1) == p
    assert paired_bootstrap_test(a, a) == 1.0
    assert paired_bootstrap_test([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]) == 0.0  # constant difference
    assert paired_bootstrap_test(a, b) == paired_bootstrap_test(a, b, n_resamples=10_000, seed=0)


# --------------------------------------------------------------------------------------------------
# Holm and Bonferroni


def test_correct_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04 -> 0.06 (monotone)
    np.testing.assert_allclose(correct(p), [0.03, 0.06, 0.06, 0.02], rtol=1e-15)
    np.testing.assert_allclose(correct(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02], rtol=1e-15)
    # ties get the same adjusted value; 0.5 x 1 is raised to the 0.2 x 3 before it (monotone)
    np.testing.assert_allclose(correct([0.5, 0.2, 0.2, 0.01]), [0.6, 0.6, 0.6, 0.04], rtol=1e-15)
    np.testing.assert_allclose(correct([0.5, 0.2, 0.2, 0.01], "bonferroni"), [1, 0.8, 0.8, 0.04])
    # capped at 1: 0.4 x 3 = 1.2
    np.testing.assert_allclose(correct([0.5, 0.4, 0.4, 0.01]), [1.0, 1.0, 1.0, 0.04], rtol=1e-15)
    np.testing.assert_allclose(correct([0.9, 0.6]), [1.0, 1.0])
    assert correct([0.03]).tolist() == [0.03]
    assert correct([]).shape == (0,)


def _holm_by_its_procedure(p):
    """Holm's adjusted p-value of each hypothesis as the smallest level at which the step-down
    procedure rejects it: for each candidate level, run the procedure literally."""
    p = list(p)
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    candidates = sorted({min(1.0, (m - j) * p[i]) for j, i in enumerate(order)} | {1.0})
    adjusted = [1.0] * m
    for alpha in reversed(candidates):  # from the largest level down: the smallest that rejects stays
        for j, i in enumerate(order):
            if (m - j) * p[i] > alpha:  # p(j) > alpha / (m - j + 1), in multiplied form: stop
                break
            adjusted[i] = alpha
    return adjusted


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.05, 0.2, 1.0]), st.floats(0, 1)),
        min_size=1,
        max_size=25,
    )
)
def test_holm_and_bonferroni_equal_their_definitions(p):
    holm = correct(p)
    assert holm.tolist() == pytest.approx(_holm_by_its_procedure(p), rel=1e-15, abs=0)
    bonferroni = correct(p, method="bonferroni")
    assert bonferroni.tolist() == [min(1.0, len(p) * x) for x in p]
    arr = np.array(p)
    assert (holm >= arr).all() and (holm <= bonferroni).all() and (holm <= 1).all()
    order = np.argsort(arr, kind="stable")
    assert (np.diff(holm[order]) >= 0).all()  # monotone in the p-values


def test_correct_keeps_the_shape():
    p = np.array([[0.01, 0.04], [0.03, 0.005]])
    assert correct(p).shape == (2, 2)
    np.testing.assert_allclose(correct(p).ravel(), correct(p.ravel()))


def test_correct_agrees_with_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(15)
    for m in (1, 2, 7, 50):
        p = rng.random(m) ** 3
        for method in ("holm", "bonferroni"):
            _, ref, _, _ = multitest.multipletests(p, method=method)
            np.testing.assert_allclose(correct(p, method=method), ref, rtol=1e-15)


def test_correct_errors():
    with pytest.raises(InvalidParameterError, match="'holm', 'bonferroni'") as info:
        correct([0.1, 0.2], method="fdr_bh")
    assert "fdr_bh" in str(info.value)
    with pytest.raises(InvalidParameterError, match="choose one of"):
        correct([0.1], method=None)  # type: ignore[arg-type]
    for bad in ([0.1, float("nan")], [0.1, 1.5], [-0.01, 0.2]):
        with pytest.raises(InvalidDataError, match="in \\[0, 1\\]"):
            correct(bad)
    with pytest.raises(InvalidDataError, match="must hold numbers"):
        correct(["a", 0.1])
