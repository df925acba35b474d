"""Paired significance tests of two systems' per-query values, and multiple-testing correction.

The tests IR people use to say whether system A beats system B on the same queries (Smucker, Allan
& Carterette, *A Comparison of Statistical Significance Tests for Information Retrieval Evaluation*,
CIKM 2007), all two-sided, all on the mean of the per-query differences:

* :func:`paired_t_test`: Student's paired t-test, as ``scipy.stats.ttest_rel`` (and so ranx's
  ``stat_test="student"``); its t distribution is computed here (:func:`student_t_sf`), with numpy
  and :mod:`math` only;
* :func:`randomization_test`: Fisher's paired randomization (sign-flip permutation) test, as ranx's
  ``stat_test="fisher"``;
* :func:`paired_bootstrap_test`: the paired bootstrap test with the shift method;
* :func:`correct`: Holm's step-down and Bonferroni's adjusted p-values (the family-wise error), and
  Benjamini-Hochberg's (the false discovery rate), for many comparisons.

**The p-value convention.**  Both resampling tests return ``count / n_resamples``, where ``count``
is the number of resamples whose statistic is at least the observed one: this is ranx's convention
(and Smucker et al.'s), followed here by default so that the numbers agree.  It can be 0.  The
convention that counts the observed assignment as one of the resamples, ``(count + 1) /
(n_resamples + 1)`` (never 0, an exact test at every level; the one :mod:`perfeval.stats` uses for
its bootstrap comparisons), is ``(p * n_resamples + 1) / (n_resamples + 1)`` of the value returned.

**Agreement with ranx 0.3.21.**  The t-test computes t exactly as SciPy does (the same mean, the
same variance formula and the same order of operations), so its p-value is SciPy's, and ranx's,
within the accuracy of SciPy's own t distribution: 3e-13 relative on a wide grid (1 to 10**6 degrees
of freedom), with one exception in SciPy: with one degree of freedom (two queries) and ``|t|``
below about 1e-3 SciPy's p-value is off by up to 4e-9 relative, where :func:`student_t_sf` stays
exact (it matches the closed form ``1 - 2 atan(|t|) / pi`` there).

The randomization test reproduces *the computation ranx's code specifies* bit for bit, but cannot
reproduce *the numbers ranx prints*, because those are not reproducible themselves.  ranx's
``fisher_randomization_test`` is compiled by numba with ``parallel=True``, calls
``np.random.seed(random_seed)`` and then draws its permutations inside a ``prange`` loop.  numba
keeps one random state per thread: the seed reaches the calling thread's state only, while the loop
body runs on numba's worker threads, whose states are seeded on their own, from ``os.urandom``.  Two
calls with the same seed and data therefore give different p-values (1,000 permutations of the same
50 queries with ``random_seed=42``, called again in one process: tests/test_paired_tests.py).
What the seed *would* give, if it reached the draws (ranx's function compiled without
``parallel=True``), is reproduced exactly: numba's
``np.random`` is the Mersenne Twister of numpy's legacy :class:`numpy.random.RandomState`, seeded by
the same ``init_genrand``, so ``RandomState(seed)`` gives the same stream; ranx shuffles each query's
(control, treatment) pair with ``np.random.permutation``, a Fisher-Yates shuffle that draws one
32-bit number and swaps the pair when its lowest bit is 0 (numba and numpy both keep the low bits);
and the statistic is ranx's ``|mean(column 0) - mean(column 1)|``, each mean summed in query order
as numba's ``mean`` does (this decides ties, frequent with IR measures, to the last bit).  Run as
plain Python (``NUMBA_DISABLE_JIT=1``) ranx draws the same permutations from numpy's own generator,
but its means are numpy's, summed pairwise: the p-value is the same unless a tie is decided
otherwise in the last bit.  Against ranx as shipped the p-values agree only within Monte-Carlo
error.

ranx has no bootstrap test (its statistical tests are Fisher's, Student's and Tukey's HSD), so
:func:`paired_bootstrap_test` follows Smucker et al.'s description instead: shift the differences
to mean zero, resample queries with replacement, and count the resampled means at least as far from
zero as the observed one.

Everything is vectorised: the resamples are drawn as a matrix, block by block (about two million
draws at a time), so memory stays bounded for any number of queries and resamples, and the p-value for a
seed does not depend on the block size.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "CORRECTIONS",
    "correct",
    "correct_tested",
    "correct_bounded",
    "paired_bootstrap_test",
    "paired_t_test",
    "randomization_test",
    "student_t_quantile",
    "student_t_sf",
]

#: the multiple-testing corrections of :func:`correct`
CORRECTIONS = ("holm", "bonferroni", "bh")

#: how many random draws one block of resamples holds (at least one resample, however many queries)
_BLOCK_ELEMENTS = 1 << 21

_EPS = 2.220446049250313e-16
_UNIT = 2.0**-53  # the unit roundoff of float64
_TINY = 1e-300
_MAX_STEPS = 100_000

# ln(Gamma(a + 1/2) / Gamma(a)) = ln(a) / 2 + sum of _RATIO_COEFS[i] / a**(2 i + 1) for large a: the
# coefficients (-1)**(k+1) (B_{k+1}(1/2) - B_{k+1}) / (k (k + 1)) of the asymptotic series of
# ln Gamma(a + 1/2) - ln Gamma(a), B the Bernoulli polynomials and numbers, k = 1, 3, ..., 13
_RATIO_COEFS = (
    -1 / 8,
    1 / 192,
    -1 / 640,
    17 / 14336,
    -31 / 18432,
    691 / 180224,
    -5461 / 425984,
)


# --------------------------------------------------------------------------------------------------
# Student's t distribution


def _gamma_half_ratio(a: float) -> float:
    """Gamma(a + 1/2) / Gamma(a) for a > 0, to a few units in the last place: the asymptotic series
    for a >= 16, after the recurrence Gamma(a + 3/2) / Gamma(a + 1) = (a + 1/2) / a times the ratio
    at a, which moves a small argument up.
    """
    f = 1.0
    while a < 16.0:
        f *= a / (a + 0.5)
        a += 1.0
    r = 1.0 / a
    r2 = r * r
    s = _RATIO_COEFS[-1]
    for c in reversed(_RATIO_COEFS[:-1]):
        s = s * r2 + c
    return f * math.sqrt(a) * math.exp(s * r)


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function in x, I_x(a, b) =
    x**a (1 - x)**b / (a B(a, b)) * cf, evaluated by the modified Lentz method (Numerical Recipes'
    ``betacf``, Cephes' ``incbcf``).  Used here for small x only, where it converges in a few steps.
    """
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_STEPS + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) <= _EPS:
            return h
    raise ArithmeticError(f"the incomplete beta function did not converge (a={a}, b={b}, x={x})")


def _beta_cf2(a: float, b: float, w: float) -> float:
    """Cephes' second continued fraction (``incbd``) in w = x / (1 - x): I_x(a, b) =
    x**a (1 - x)**(b - 1) / (a B(a, b)) / g with g = 1 + a1 / (1 + a2 / (1 + ...)), evaluated by the
    modified Lentz method.  For b < 1 every partial numerator is positive, so no step cancels: it
    stays accurate for x near 1 (many degrees of freedom), where the first fraction, a function of
    x, loses digits to the rounding of x.
    """
    f = 1.0
    c = 1.0
    d = 0.0
    for m in range(_MAX_STEPS):
        aa = w * (a + m) * (1.0 + m - b) / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 / (1.0 + aa * d)
        c = 1.0 + aa / c
        f *= c * d
        aa = w * (m + 1) * (a + b + m) / ((a + 2 * m + 1) * (a + 2 * m + 2))
        d = 1.0 / (1.0 + aa * d)
        c = 1.0 + aa / c
        step = c * d
        f *= step
        if abs(step - 1.0) <= _EPS:
            return f
    raise ArithmeticError(f"the incomplete beta function did not converge (a={a}, b={b}, w={w})")


def _t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for T with ``df`` degrees of freedom: I_x(df / 2, 1 / 2), x = df / (df + t^2).

    For |t| >= 1 (x at most the mean df / (df + 1) of the beta distribution) the second continued
    fraction, in w = x / (1 - x) = df / t^2; for |t| < 1, 1 - I_{1 - x}(1 / 2, df / 2) by the first,
    in 1 - x = t^2 / (df + t^2) <= 1 / (df + 1), and the result is above 0.3.  x and 1 - x are never
    formed by subtraction, the powers go through logarithms with log1p, and B(df / 2, 1 / 2) through
    the ratio Gamma(df / 2 + 1 / 2) / Gamma(df / 2): the relative accuracy holds from p = 1 down to
    the smallest normal numbers, for few degrees of freedom as for millions.
    """
    t = abs(t)
    if t == 0.0:
        return 1.0
    if math.isinf(t):
        return 0.0
    a = 0.5 * df
    ratio = _gamma_half_ratio(a) / math.sqrt(math.pi)  # 1 / B(a, 1/2)
    if t >= 1.0:
        w = df / t / t
        log_x = -math.log1p(1.0 / w) if w > 1e-300 else math.log(df) - 2.0 * math.log(t)
        front = math.exp(a * log_x) * math.sqrt(1.0 + w) * ratio / a  # x**a (1-x)**(-1/2) / (a B)
        return 0.0 if front == 0.0 else min(front / _beta_cf2(a, 0.5, w), 1.0)
    z = t * t / df
    y = z / (1.0 + z)
    front = math.exp(-a * math.log1p(z)) * math.sqrt(y) * ratio / 0.5  # x**a (1-x)**(1/2) / (B / 2)
    return min(max(1.0 - front * _beta_cf(0.5, a, y), 0.0), 1.0)


def student_t_sf(t: float, df: float) -> float:
    """The survival function P(T > t) of Student's t distribution with ``df`` degrees of freedom.

    Computed as half the regularized incomplete beta function I_x(df / 2, 1 / 2), x = df / (df +
    t^2), by continued fractions (Cephes' two, evaluated by the modified Lentz method as in
    Numerical Recipes), with :mod:`math` only.  The relative error stays below 1e-13, measured
    against a 50-digit reference for ``df`` from 0.05 to 10**10 and ``t`` from 1e-12 to 1e300
    (either sign), wherever the result is at least 1e-300; results below the smallest normal
    numbers lose relative accuracy and may be 0.  (SciPy's ``scipy.stats.t.sf`` agrees within 3e-13,
    except with one degree of freedom and ``|t|`` below about 1e-3, where SciPy is off by up to
    4e-9.)

    Parameters
    ----------
    t : float
        The value of the statistic (any real number, or +-inf).
    df : float
        Degrees of freedom, positive (need not be an integer).

    Returns
    -------
    float
        P(T > t), in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a positive number, or ``t`` is NaN.

    Examples
    --------
    >>> student_t_sf(0.0, 5)
    0.5
    >>> round(student_t_sf(2.0, 10), 12)
    0.036694017385
    >>> round(student_t_sf(-1.0, 1), 12)  # one degree of freedom: 1/2 + atan(1) / pi
    0.75
    """
    t = float(t)
    df = float(df)
    if math.isnan(t):
        raise InvalidParameterError("`t` is NaN; the t distribution needs a number")
    if not df > 0 or math.isinf(df):
        raise InvalidParameterError(f"`df` must be a positive, finite number of degrees of freedom, got {df}")
    half = 0.5 * _t_two_sided(t, df)
    return half if t >= 0 else 1.0 - half


def student_t_quantile(p: float, df: float) -> float:
    """The quantile of Student's t distribution with ``df`` degrees of freedom: the ``t`` with
    P(T <= t) = ``p``.

    Found by bisection on :func:`student_t_sf` (a decreasing function of ``t``) until the bracket
    holds two adjacent float64 numbers, so the result is as accurate as the survival function
    allows; symmetric, ``-quantile(1 - p)``.  For ``p`` from 0.75 up (confidence levels from 0.5)
    SciPy's ``scipy.stats.t.ppf`` agrees within 3e-15 relative (1 to 10**10 degrees of freedom);
    within about 1e-9 of 1/2, where ``t`` is near 0 and found from 1/2 - P, the error is absolute
    (about 1e-16), not relative.

    Parameters
    ----------
    p : float
        A probability, strictly between 0 and 1.
    df : float
        Degrees of freedom, positive.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        If ``p`` is not strictly between 0 and 1, or ``df`` not a positive, finite number.

    Examples
    --------
    >>> student_t_quantile(0.5, 7)
    0.0
    >>> round(student_t_quantile(0.975, 1), 10)  # one degree of freedom: tan(0.475 pi)
    12.7062047362
    >>> round(student_t_quantile(0.025, 10), 10)
    -2.228138852
    """
    p, df = float(p), float(df)
    if not 0.0 < p < 1.0:
        raise InvalidParameterError(f"`p` must lie strictly between 0 and 1, got {p}")
    if not df > 0 or math.isinf(df):
        raise InvalidParameterError(f"`df` must be a positive, finite number of degrees of freedom, got {df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -student_t_quantile(1.0 - p, df)
    tail = 1.0 - p  # exact: p >= 0.5
    lo, hi = 0.0, 1.0
    while student_t_sf(hi, df) > tail:  # the bracket: sf(lo) > tail >= sf(hi)
        lo, hi = hi, hi * 2.0
        if math.isinf(hi):
            return math.inf
    while True:
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            return hi if student_t_sf(hi, df) - tail <= tail - student_t_sf(lo, df) else lo
        if student_t_sf(mid, df) > tail:
            lo = mid
        else:
            hi = mid


# --------------------------------------------------------------------------------------------------
# validation


def _vector(v: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InvalidDataError(f"`{name}` must hold numbers, one per query: {e}") from None
    if arr.ndim != 1:
        raise InvalidDataError(
            f"`{name}` must be one-dimensional (one value per query), got shape {arr.shape}"
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidDataError(
            f"`{name}` holds {arr[i]} at index {i}; per-query values must be finite numbers "
            "(a query a system did not answer should be scored, e.g. 0, or left out of both)"
        )
    return arr


def _paired(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    x = _vector(a, "a")
    y = _vector(b, "b")
    if x.size != y.size:
        raise InvalidDataError(
            f"`a` and `b` must hold one value per query each, paired by position; got {x.size} and "
            f"{y.size} values"
        )
    if x.size < 2:
        raise InvalidDataError(f"a paired test needs at least 2 queries, got {x.size}")
    with np.errstate(over="ignore", invalid="ignore"):
        over = ~np.isfinite(x - y)
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise InvalidDataError(f"`a - b` overflows at index {i} ({x[i]} - {y[i]}); scale the values down")
    return x, y


def _check_resamples(n_resamples: Any) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or int(n_resamples) < 1:
        raise InvalidParameterError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    return int(n_resamples)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) < 2**32:
        raise InvalidParameterError(f"`seed` must be an integer from 0 to 2**32 - 1, got {seed!r}")
    return int(seed)


def _blocks(n_resamples: int, n: int, least: int) -> list[int]:
    """The sizes of the blocks of resamples: about _BLOCK_ELEMENTS draws each, ``least`` at least."""
    per = max(least, _BLOCK_ELEMENTS // n)
    full, rest = divmod(n_resamples, per)
    return [per] * full + ([rest] if rest else [])


# --------------------------------------------------------------------------------------------------
# the tests


def paired_t_test(a: Any, b: Any) -> float:
    """Two-sided p-value of Student's paired t-test of the mean of ``a - b``.

    The statistic is ``t = mean(d) / sqrt(var(d) / n)``, d = a - b, var with divisor n - 1, on
    n - 1 degrees of freedom, computed as ``scipy.stats.ttest_rel(a, b).pvalue`` computes it (and so
    ranx's ``stat_test="student"``); the p-value is ``2 P(T > |t|)`` from :func:`student_t_sf`'s
    incomplete beta function.

    Parameters
    ----------
    a, b : array_like of float, shape (n,)
        The two systems' values of a measure on the same n queries, paired by position.

    Returns
    -------
    float
        The p-value.  When every difference is zero (the two systems agree on every query) it is
        1.0, where SciPy returns NaN (t = 0 / 0); when the differences are all equal and nonzero
        (zero variance) it is 0.0, as SciPy's (t is infinite).

    Raises
    ------
    InvalidDataError
        If there are fewer than 2 queries, if ``a`` and ``b`` differ in length or are not
        one-dimensional, or if a value is NaN or infinite.

    Examples
    --------
    >>> a = [0.50, 0.32, 0.71, 0.44, 0.60, 0.38, 0.25, 0.90, 0.47, 0.55]
    >>> b = [0.41, 0.30, 0.52, 0.45, 0.48, 0.30, 0.31, 0.82, 0.47, 0.43]
    >>> round(paired_t_test(a, b), 6)
    0.025737
    >>> paired_t_test(a, a)
    1.0
    """
    x, y = _paired(a, b)
    d = x - y
    n = d.size
    if not d.any():
        return 1.0
    # t does not change when d is scaled: by a power of two, exactly, so that differences of 1e-286
    # (whose squares underflow to 0) give their t, and other data the same bits as unscaled
    d = np.ldexp(d, -math.frexp(float(np.max(np.abs(d))))[1])
    # scipy.stats.ttest_1samp(d, 0): mean, _var(ddof=1) = mean of squared deviations * n / (n - 1)
    mean = np.mean(d)
    var = np.mean((d - mean) ** 2) * (n / (n - 1.0))
    denom = math.sqrt(float(var) / n)
    if denom == 0.0:
        return 0.0
    t = float(mean) / denom
    return _t_two_sided(t, n - 1.0)


def _sequential_sum(v: np.ndarray) -> float:
    """The sum of ``v`` added in order, left to right (numba's ``mean``; numpy's ``sum`` pairs)."""
    return float(np.cumsum(v)[-1])


def randomization_test(a: Any, b: Any, n_resamples: int = 10_000, seed: int = 0) -> float:
    """Two-sided p-value of Fisher's paired randomization (sign-flip permutation) test of the mean
    difference, computed as ranx's ``fisher_randomization_test`` specifies.

    Under the null hypothesis the two systems' values on a query are exchangeable: each resample
    swaps the pair (a_i, b_i) of every query with probability 1/2, independently, and the p-value is
    the fraction of ``n_resamples`` resamples with ``|mean(column a) - mean(column b)| >= |mean(a) -
    mean(b)|`` (ranx's ``count / n``, not ``(count + 1) / (n + 1)``: see the module's notes).

    The draws are those of ``numpy.random.RandomState(seed)``, the stream numba's ``np.random``
    gives after ``np.random.seed(seed)``: resample r uses the 32-bit outputs ``r n .. r n + n - 1``,
    and query i's pair is swapped when the lowest bit of its draw is 0, as in ranx's
    ``np.random.permutation`` of the pair.  For the same data, seed and number of resamples the
    p-value is the one ranx's function gives when its seed reaches its draws (compiled without
    ``parallel=True``): bit for bit, ties included.  ranx as shipped seeds only the calling thread
    and does not reproduce itself; against it the agreement is within Monte-Carlo error.

    Parameters
    ----------
    a, b : array_like of float, shape (n,)
        The two systems' values on the same n >= 2 queries, paired by position; the test is
        symmetric (``randomization_test(b, a)`` is the same).
    n_resamples : int, default 10_000
        Number of random assignments (ranx's ``n_permutations``; its default is 1,000).
    seed : int, default 0
        Seed of the Mersenne Twister, 0 to 2**32 - 1 (ranx's ``random_seed``; its default is 42).

    Returns
    -------
    float
        The p-value, a multiple of 1 / n_resamples in [0, 1]; 1.0 when every difference is zero.

    Raises
    ------
    InvalidDataError
        As :func:`paired_t_test`.
    InvalidParameterError
        If ``n_resamples`` is not a positive integer or ``seed`` not an integer in [0, 2**32).

    Notes
    -----
    The resamples are drawn in blocks of about two million draws, as a matrix.  Each resample's
    statistic is first computed from a matrix product (in whatever order BLAS adds), with a
    rigorous bound on its rounding error; the few resamples within that bound of the observed value
    (ties, mostly) are recomputed with the column sums added in query order, as ranx's code does,
    so every decision is ranx's to the last bit.  100,000 queries x 10,000 resamples (a billion
    draws) take a few seconds, most of them in the Mersenne Twister.

    Examples
    --------
    >>> a = [0.50, 0.32, 0.71, 0.44, 0.60, 0.38, 0.25, 0.90, 0.47, 0.55]
    >>> b = [0.41, 0.30, 0.52, 0.45, 0.48, 0.30, 0.31, 0.82, 0.47, 0.43]
    >>> randomization_test(a, b, n_resamples=1000, seed=42)  # ranx's, with the seed reaching the draws
    0.024
    >>> randomization_test(a, b)
    0.0242
    """
    x, y = _paired(a, b)
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    n = x.size
    e = x - y
    if not e.any():  # the two columns are equal in every resample: the statistic is 0 every time
        return 1.0
    observed = abs(_sequential_sum(x) / n - _sequential_sum(y) / n)
    sum_e = float(np.sum(e))
    margin = _randomization_margin(x, y, e)
    state = np.random.RandomState(seed)
    per = _blocks(n_resamples, n, least=1)[0]
    ones = np.empty((per, n), dtype=np.float64)
    count = 0
    for k in _blocks(n_resamples, n, least=1):
        draws = state.randint(0, 2**32, size=(k, n), dtype=np.uint32)
        np.bitwise_and(draws, np.uint32(1), out=draws)  # 1: the pair stays, 0: it is swapped
        kept = ones[:k]
        np.copyto(kept, draws)
        # mean(column a) - mean(column b) = (2 sum(kept * e) - sum(e)) / n, up to rounding
        stat = np.abs(2.0 * (kept @ e) - sum_e) / n
        gap = stat - observed
        count += int(np.count_nonzero(gap > margin))
        # ties, mostly (and NaN after an overflow): settled as ranx computes them
        unsure = np.flatnonzero(~((gap > margin) | (gap < -margin)))
        for lo in range(0, unsure.size, per):
            keep = draws[unsure[lo : lo + per]].astype(np.bool_)
            col = np.where(keep, x, y)
            s0 = np.cumsum(col, axis=1, out=col)[:, -1]  # added in query order, as numba's mean
            col = np.where(keep, y, x)
            s1 = np.cumsum(col, axis=1, out=col)[:, -1]
            count += int(np.count_nonzero(np.abs(s0 / n - s1 / n) >= observed))
    return count / n_resamples


def _randomization_margin(x: np.ndarray, y: np.ndarray, e: np.ndarray) -> float:
    """A bound on |ranx's statistic - the fast one| for any assignment of the pairs.

    ranx's statistic |fl(S0) / n - fl(S1) / n|, S0 and S1 the column sums added in query order, is
    within (2 n + 5) u A / n of the exact |S0 - S1| / n (A = sum of max(|x_i|, |y_i|), u = 2**-53:
    the rounding of n - 1 additions per sum, two divisions and a subtraction); the fast one,
    |2 fl(sum(kept * e)) - fl(sum(e))| / n from a matrix product in any order, within
    (3 n + 7) u sum(|e|) / n of it (e = x - y rounded, two sums of n terms, the last operations).
    Four times their sum (and a tiny absolute term for underflow) decides every resample outside
    it; those inside are recomputed exactly.  An overflow makes the bound infinite: every resample
    is then recomputed.
    """
    n = x.size
    big = float(np.sum(np.maximum(np.abs(x), np.abs(y))))
    spread = float(np.sum(np.abs(e)))
    with np.errstate(over="ignore", invalid="ignore"):
        bound = 4.0 * _UNIT * ((2 * n + 5) * big + (3 * n + 7) * spread) / n + 1e-290
    return bound if math.isfinite(bound) else math.inf


def paired_bootstrap_test(a: Any, b: Any, n_resamples: int = 10_000, seed: int = 0) -> float:
    """Two-sided p-value of the paired bootstrap test of the mean difference (shift method).

    The differences d = a - b are shifted to mean zero, d0 = d - mean(d), the null distribution;
    each resample draws n queries with replacement and takes the mean of their d0; the p-value is the
    fraction of resamples with ``|mean| >= |mean(d)|`` (Smucker, Allan & Carterette 2007, section
    2.4; Efron & Tibshirani's test of a mean).  ranx has no bootstrap test; the convention is the
    same ``count / n`` as its randomization test (see the module's notes).

    Parameters
    ----------
    a, b : array_like of float, shape (n,)
        The two systems' values on the same n >= 2 queries, paired by position.
    n_resamples : int, default 10_000
        Number of bootstrap resamples.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``, 0 to 2**32 - 1; resample r is row r of
        ``rng.integers(0, n, size=(n_resamples, n))``, drawn block by block.

    Returns
    -------
    float
        The p-value, a multiple of 1 / n_resamples in [0, 1]; 1.0 when every difference is zero.

    Raises
    ------
    InvalidDataError
        As :func:`paired_t_test`.
    InvalidParameterError
        If ``n_resamples`` is not a positive integer or ``seed`` not an integer in [0, 2**32).

    Examples
    --------
    >>> a = [0.50, 0.32, 0.71, 0.44, 0.60, 0.38, 0.25, 0.90, 0.47, 0.55]
    >>> b = [0.41, 0.30, 0.52, 0.45, 0.48, 0.30, 0.31, 0.82, 0.47, 0.43]
    >>> paired_bootstrap_test(a, b)
    0.0049
    """
    x, y = _paired(a, b)
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    d = x - y
    n = d.size
    if not d.any():
        return 1.0
    mean = float(np.mean(d))
    observed = abs(mean)
    shifted = d - mean
    rng = np.random.default_rng(seed)
    index = np.int32 if n < 2**31 else np.int64  # the same stream either way; half the memory
    count = 0
    for k in _blocks(n_resamples, n, least=1):
        idx = rng.integers(0, n, size=(k, n), dtype=index)
        means = shifted[idx].mean(axis=1)
        count += int(np.count_nonzero(np.abs(means) >= observed))
    return count / n_resamples


# --------------------------------------------------------------------------------------------------
# multiple testing


def _holm(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * np.arange(m, 0, -1, dtype=np.float64))
    out = np.empty_like(p)
    out[order] = np.minimum(stepped, 1.0)
    return out


def _bonferroni(p: np.ndarray) -> np.ndarray:
    return np.minimum(p * p.size, 1.0)


def _bh(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m / np.arange(1, m + 1, dtype=np.float64))
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]  # the least over the ranks at or above
    out = np.empty_like(p)
    out[order] = np.minimum(stepped, 1.0)
    return out


_CORRECTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "holm": _holm,
    "bonferroni": _bonferroni,
    "bh": _bh,
}


def correct(pvalues: Any, method: str = "holm") -> np.ndarray:
    """Adjusted p-values for a family of tests, controlling the family-wise error rate (Holm,
    Bonferroni) or the false discovery rate (Benjamini-Hochberg).

    * ``"holm"``: Holm's step-down procedure.  With the m p-values sorted, p(1) <= ... <= p(m), the
      adjusted p(j) is ``min(1, max over i <= j of (m - i + 1) p(i))``: monotone in the p-values,
      never above Bonferroni's, and capped at 1.  Equal p-values get equal adjusted values.
    * ``"bonferroni"``: ``min(1, m p)``.
    * ``"bh"``: Benjamini and Hochberg's step-up procedure (1995): the adjusted p(j) is
      ``min(1, min over i >= j of m p(i) / i)``, statsmodels' ``multipletests(method="fdr_bh")``
      and scipy's ``false_discovery_control(method="bh")``.  Valid for independent or positively
      dependent tests.

    A hypothesis is rejected at family-wise level alpha (Holm, Bonferroni), or with a false
    discovery rate of at most alpha over the rejections (BH), when its adjusted p-value is at most
    alpha.

    Parameters
    ----------
    pvalues : array_like of float
        The p-values of the family, each in [0, 1] (any shape: the family is all of them).
    method : {"holm", "bonferroni", "bh"}, default "holm"
        The correction.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, float64, in the shape and order of ``pvalues``.

    Raises
    ------
    InvalidParameterError
        If ``method`` is not one of :data:`CORRECTIONS`.
    InvalidDataError
        If a p-value is NaN or outside [0, 1].

    Examples
    --------
    >>> correct([0.01, 0.04, 0.03, 0.005]).round(12)
    array([0.03, 0.06, 0.06, 0.02])
    >>> correct([0.01, 0.04, 0.03, 0.005], method="bonferroni").round(12)
    array([0.04, 0.16, 0.12, 0.02])
    >>> correct([0.01, 0.04, 0.03, 0.005], method="bh").round(12)
    array([0.02, 0.04, 0.04, 0.02])
    """
    fn = _CORRECTIONS.get(method) if isinstance(method, str) else None
    if fn is None:
        choices = ", ".join(repr(c) for c in CORRECTIONS)
        raise InvalidParameterError(f"unknown correction method {method!r}; choose one of {choices}")
    try:
        p = np.array(pvalues, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InvalidDataError(f"`pvalues` must hold numbers: {e}") from None
    flat = p.reshape(-1)
    bad = ~((flat >= 0.0) & (flat <= 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidDataError(f"`pvalues` holds {flat[i]} at position {i}; p-values must be in [0, 1]")
    return fn(flat).reshape(p.shape)


def correct_tested(pvalues: Any, method: str = "holm") -> np.ndarray:
    """:func:`correct` over the comparisons that have a test: a NaN p-value (no test: an undefined
    measure, an infinite difference) stays NaN and is not counted in the family; ``method="none"``
    returns the p-values as they are.  The correction of ``perfeval compare``, ``perfeval trec`` and
    the report, per measure over the models compared with the baseline.

    Examples
    --------
    >>> correct_tested([0.01, float("nan"), 0.03]).round(12)
    array([0.02,  nan, 0.03])
    """
    p = np.array(pvalues, dtype=np.float64)
    ok = ~np.isnan(p)
    if method != "none" and ok.any():
        p[ok] = correct(p[ok], method=method)
    return p


def _holm_bound(p: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """Which of Holm's adjusted p-values are upper bounds, ``floor`` marking the p-values that are.

    Holm's adjusted p-value of the i-th smallest is the largest of min(1, (m - k + 1) p_(k)) over the
    ranks k <= i.  Lowering a bound p-value can lower it only where no exact p-value's term reaches
    it: an exact term at that largest value holds it there (``[<=0.02, 0.5]`` adjusts to
    ``[<=0.04, 0.5]``, the 0.5 exact).  A bound ranked after an exact p-value at or before the own
    rank (above it, or tied and after it) could move ahead of it when lowered and change its rank
    (its multiplier): then a bound too.
    """
    ok = ~np.isnan(p)
    out = np.zeros(p.shape, dtype=bool)
    q, f = p[ok], floor[ok]
    m = q.size
    if m == 0 or not f.any():
        return out
    order = np.argsort(q, kind="stable")
    qs, fs = q[order], f[order]
    terms = np.minimum(qs * np.arange(m, 0, -1, dtype=np.float64), 1.0)
    held = np.maximum.accumulate(np.where(fs, -np.inf, terms))  # the largest exact term up to each rank
    bound_sorted = held < np.maximum.accumulate(terms)
    last_floor = int(np.flatnonzero(fs).max())
    first_exact = np.minimum.accumulate(np.where(fs, m, np.arange(m)))  # the first exact rank up to each
    bound_sorted |= last_floor > first_exact  # a bound ranked after an exact p-value could overtake it
    inner = np.empty(m, dtype=bool)
    inner[order] = bound_sorted
    out[ok] = inner
    return out


def correct_bounded(pvalues: Any, at_floor: Any, method: str = "holm") -> tuple[np.ndarray, np.ndarray]:
    """:func:`correct_tested`, and which corrected p-values are upper bounds: those read from a
    bootstrap p-value at its floor (``at_floor``: the p-value is a bound, p <= it).  Every correction
    only grows with the p-values, so a bound in can give a bound out: Holm's adjusted p-value where
    the largest of its terms is a floor's (:func:`_holm_bound`), Benjamini-Hochberg's where a p-value
    at or above its own is at its floor, Bonferroni's where its own is.  The correction of
    ``perfeval compare`` and of :func:`perfeval.stats.compare_models` (``correction=``).

    Examples
    --------
    >>> adj, bound = correct_bounded([0.002, 0.04, 0.03], [True, False, False], "bh")
    >>> adj.round(12).tolist(), bound.tolist()
    ([0.006, 0.04, 0.04], [True, False, False])
    """
    p = np.asarray(pvalues, dtype=np.float64)
    floor = np.asarray(at_floor, dtype=bool)
    adj = correct_tested(p, method)
    floors = p[floor & ~np.isnan(p)]
    if method == "holm":
        bound = _holm_bound(p, floor)
    elif method == "bh":
        bound = np.array([bool((floors >= v).any()) for v in p.tolist()], dtype=bool)
    else:
        bound = floor.copy()
    return adj, bound & ~np.isnan(p)
