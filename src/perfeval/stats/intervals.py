"""The results of the statistics and the interval arithmetic: percentile and BCa intervals from
replicates, the jackknife acceleration, and the paired bootstrap's p-values (each interval's own
test: the BCa interval inverted, the percentile count).

Nothing here draws a replicate or knows a measure: these functions take arrays of replicate values
(and of jackknife values) and give numbers.

Intervals: ``"percentile"`` and ``"bca"`` (bias-corrected and accelerated, Efron 1987; the default).
The acceleration comes from a jackknife (see :mod:`perfeval.stats.replicates` and the exact ones of
:mod:`perfeval.stats.fastpaths`).  Two methods draw no replicates (:data:`ANALYTIC`): ``"delong"``
(DeLong's, the ROC area) and ``"t"`` (Student's t, a regression's mean loss:
:mod:`perfeval.stats.regression`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from perfeval.engine.report import why_not_finite, with_reasons
from perfeval.exceptions import InvalidParameterError

__all__ = ["METHODS", "Comparison", "Interval"]

METHODS = ("bca", "percentile", "delong", "t", "wald")

#: the analytic methods: an interval from a formula, no replicate drawn (``n_boot`` 0, ``seed`` None)
ANALYTIC = ("delong", "t", "wald")

#: what each analytic method is called in a sentence
ANALYTIC_NAMES = {"delong": "DeLong", "t": "Student", "wald": "Wald"}


@dataclass(frozen=True)
class Interval:
    """A measure's value with a confidence interval.

    Attributes
    ----------
    label : str
    estimate : float
        The measure on the data.
    low, high : float
        The interval; NaN when the measure is undefined in too many replicates.
    level : float
    method : {"bca", "percentile", "delong", "t", "wald"}
    n_boot : int
        Replicates (0 for the analytic methods: DeLong, t, Wald).
    se : float
        Standard deviation of the replicates (DeLong, t, Wald: the standard error).
    resampled : {"cases", "groups"}
    seed : int or None
        The seed of the replicates (None for DeLong, t and Wald, which draw none).
    note : str
        Why the interval is not a range around the estimate, or '' when it is: the replicates lie
        on one side of the estimate (the measure is biased under resampling), so that the interval
        does not contain it, or, every replicate on one side, BCa's bias correction is infinite and
        its bounds NaN (:func:`interval`).  Student's t: why its bounds are NaN, a number beyond
        float64's range (:func:`range_why`).
    left_out : str
        Which replicates the interval leaves out, and why, or '' when it reads every one: a
        whole-group bootstrap over few groups draws no group with a value in a share e^-G of its
        replicates (5% for 3 groups), a bootstrap over the cases leaves the value undefined where a
        replicate draws no positive (or no negative; e^-4 = 1.8% of them with 4 positives); up to 5%
        of them are left out, the interval is of the others (more: no interval, ``note`` says why).
    """

    label: str
    estimate: float
    low: float
    high: float
    level: float
    method: str
    n_boot: int
    se: float
    resampled: str = "cases"
    seed: int | None = None
    note: str = ""
    left_out: str = ""

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


@dataclass(frozen=True)
class Comparison:
    """Two models' values of a measure on the same cases, the difference a - b, its interval and a
    two-sided p-value for "no difference" (``seed``: of the replicates, None for DeLong's test and
    the paired t-test).

    ``method`` says which test gave it: ``"delong"`` (DeLong's test), ``"t"`` (the paired t-test of a
    regression's mean loss) or the bootstrap's interval method (``"bca"``, ``"percentile"``).
    ``p_at_floor`` is True when a bootstrap's p-value is the least it can give, 2 / (R + 1) for R
    replicates (no replicate difference on the far side of zero): the p-value is then a bound, p <=
    ``p_value``, not an estimate.  ``note``: as :class:`Interval`'s.
    """

    label: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    p_value: float
    level: float
    method: str
    n_boot: int
    se: float
    resampled: str = "cases"
    seed: int | None = None
    p_at_floor: bool = False
    note: str = ""
    #: :func:`perfeval.stats.compare_models` with ``correction=``: the p-value corrected over the
    #: models compared on this measure (``"holm"``, ``"bh"``, ``"bonferroni"``), and whether it is an
    #: upper bound (computed from a bootstrap p-value at its floor); None without a correction
    correction: str | None = None
    p_adjusted: float | None = None
    p_adjusted_bound: bool = False
    #: the replicates the interval and the test leave out, and why ('' when none: as
    #: :attr:`Interval.left_out`)
    left_out: str = ""
    #: over groups, when the two models' values are defined in different groups: the groups both
    #: values (and the difference, its interval and test) are over, those defined for both ('' when
    #: the models are defined in the same groups)
    groups_compared: str = ""
    #: why model a's (``why_a``) and b's (``why_b``) value is undefined (NaN) where it is, as
    #: :func:`perfeval.evaluate` and ``perfeval eval`` say it of that model ('' when the value is a
    #: number, or no reason is known: the measure's edge cases are said instead); ``to_dict`` says it
    #: beside the value (``estimate_a_why_null``)
    why_a: str = ""
    why_b: str = ""

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def as_dict(result: Interval | Comparison) -> dict[str, Any]:
    """A result's fields for JSON: a NaN or infinite number is None, with its reason beside it
    (``low_why_null``, ..., :func:`reasons`); the seed of DeLong's, which draws none, too.  The
    ``note`` only when there is one (an interval that is not a range around its estimate).
    """
    d = dict(result.__dict__)
    for k in ("note", "left_out", "groups_compared"):  # only when there is one
        if not d.get(k):
            d.pop(k, None)
    for k in ("why_a", "why_b"):  # said beside the value it is of (reasons: estimate_a_why_null)
        d.pop(k, None)
    if "correction" in d and d["correction"] is None:  # no correction asked: the fields of compare()
        for k in ("correction", "p_adjusted", "p_adjusted_bound"):
            d.pop(k)
    return with_reasons(d, reasons(result))


def _what(v: float, label: str, whose: str) -> str:
    return f"{whose} {label} is " + (why_not_finite(v, label) or "")


def reasons(result: Interval | Comparison) -> dict[str, str]:
    """Why each field of ``result`` that is not a finite number (or is None) is not one, by field:
    which value is infinite or undefined (with the measure's edge cases), and that an interval or a
    test of it cannot be; the seed of DeLong's, which draws none.
    """
    why: dict[str, str] = {}
    if result.seed is None:
        why["seed"] = f"{ANALYTIC_NAMES.get(result.method, 'DeLong')}'s method draws no replicates"
    label = result.label
    if isinstance(result, Interval):
        if not math.isfinite(result.estimate):
            why["estimate"] = _what(result.estimate, label, "")[1:]
        bad = "estimate" in why
        cause = "the estimate is not a finite number"
        rest: tuple[str, ...] = ("low", "high", "se")
    else:
        for k, whose, said in (
            ("estimate_a", "model a's", result.why_a),
            ("estimate_b", "model b's", result.why_b),
        ):
            v = getattr(result, k)
            if math.isnan(v) and said:  # evaluate's reason for that model
                why[k] = f"{whose} {label} is undefined for this data: {said}"
            elif not math.isfinite(v):
                why[k] = _what(v, label, whose)
        d = result.difference
        if not math.isfinite(d):
            which = [w for w, k in (("model a's", "estimate_a"), ("model b's", "estimate_b")) if k in why]
            why["difference"] = (
                ("+infinity" if d > 0 else "-infinity") if math.isinf(d) else "undefined"
            ) + (
                f": {' and '.join(which)} {label} "
                + ("is not a finite number" if len(which) == 1 else "are not finite numbers")
                if which
                else ": the difference of two infinite values"
            )
        bad = "difference" in why
        cause = "the difference is not a finite number"
        rest = ("low", "high", "se", "p_value")
        if result.correction is not None:
            rest += ("p_adjusted",)
    text = (
        f"no interval{'' if isinstance(result, Interval) else ' or test'}: {cause}"
        if bad
        else result.note
        if result.note
        else "no standard error: the fit's information matrix is singular"
        if result.method == "wald"
        else "more than 5% of the replicates leave the value undefined (e.g. a replicate without a "
        f"positive): no interval{'' if isinstance(result, Interval) else ' or test'} from a biased subset"
    )
    bounds = math.isfinite(result.low) and math.isfinite(result.high)
    for k in rest:
        v = getattr(result, k)
        if v is None or not math.isfinite(v):
            why[k] = text
            if k == "se" and bounds and not bad and result.method not in ANALYTIC:
                why[k] = (  # replicates about 1e308, or about 1e-308 (:func:`unscaled`)
                    "the standard deviation of the replicates is beyond the range of a 64-bit float, "
                    "or nonzero below its normal range (its last bits lost)"
                )
    return why


def one_sided(results: list[tuple[str, Interval | Comparison]]) -> str:
    """The notes of ``results`` (each with the name it is shown under) whose bounds are numbers that
    do not contain the estimate, for a line under a table: ``BRIER_MCB: the interval lies above the
    estimate: ...``, one a measure, joined by ``; ``; '' when there is none (a note of NaN bounds
    is said by :func:`undefined_intervals`).
    """
    return "; ".join(
        f"{name}: {r.note}"
        for name, r in results
        if r.note and math.isfinite(r.low) and math.isfinite(r.high)
    )


def warn_one_sided(results: Any, model: str = "") -> None:
    """A :class:`~perfeval.exceptions.BootstrapBiasWarning` for each result (a dict of label ->
    Interval or Comparison; of model -> such a dict) that has a note: its replicates lie on one side
    of its estimate.
    """
    from perfeval.exceptions import BootstrapBiasWarning, warn

    for name, r in results.items():
        if isinstance(r, dict):
            warn_one_sided(r, f"{name}: ")
        elif r.note and r.method not in ANALYTIC:  # an analytic one's: why its numbers are NaN
            warn(BootstrapBiasWarning(f"{model}{name}: {r.note}"))


#: what each test of a comparison is called in a note
TESTS = {
    "delong": "DeLong's test",
    "t": "paired t-test",
    "bca": "paired bca bootstrap",
    "percentile": "paired percentile bootstrap",
}


def which_tests(comparisons: list[Comparison], seed: int | None) -> str:
    """The tests that gave ``comparisons``, for a note: ``DeLong's test`` alone, one bootstrap with
    its replicates, seed and what it resampled, or each test after the measures it gave (``ROC:
    DeLong's test; LOGLOSS: paired bca bootstrap, 1000 replicates, seed 0, cases resampled``).
    """
    by: dict[tuple, list[str]] = {}
    for c in comparisons:
        key = (c.method, c.n_boot, c.resampled) if c.method not in ANALYTIC else (c.method, 0, "")
        labels = by.setdefault(key, [])
        if c.label not in labels:
            labels.append(c.label)

    def one(key: tuple) -> str:
        method, n_boot, resampled = key
        if method in ANALYTIC:
            return TESTS[method]
        return f"{TESTS[method]}, {n_boot} replicates, seed {seed}, {resampled} resampled"

    if len(by) == 1:
        return one(next(iter(by)))
    return "; ".join(f"{', '.join(labels)}: {one(key)}" for key, labels in by.items())


def left_out(results: list[tuple[str, Interval | Comparison]]) -> str:
    """The replicates left out of ``results``' intervals (each with the name it is shown under), for a
    note under a table: each reason once, after the names it holds for; '' when none left any out.
    """
    by: dict[str, list[str]] = {}
    for name, r in results:
        if r.left_out:
            by.setdefault(r.left_out, []).append(name)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by.items())


def groups_compared(results: list[tuple[str, Comparison]]) -> str:
    """The comparisons over groups whose models are defined in different groups (``results``: each
    with the name it is shown under), for a note under a table: what each is over; '' when none.
    """
    by: dict[str, list[str]] = {}
    for name, r in results:
        if r.groups_compared:
            by.setdefault(r.groups_compared, []).append(name)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by.items())


def undefined_intervals(results: list[tuple[str, Interval | Comparison]]) -> str:
    """Why the intervals of ``results`` (each with the name it is shown under: a measure's label,
    or a model's name and the label) that are not numbers are not, for a note under a table: each
    reason once, after the names it holds for (``ROC, APR: more than 5% of the replicates ...``);
    '' when every one is.
    """
    by: dict[str, list[str]] = {}
    for name, r in results:
        why = reasons(r).get("low") if not (math.isfinite(r.low) and math.isfinite(r.high)) else None
        if why:
            by.setdefault(why, []).append(name)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by.items())


# -- interval arithmetic ---------------------------------------------------------------------------


def check_level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(f"the confidence level must lie strictly between 0 and 1, got {level}")
    return level


def check_request(method: str, level: float, n_boot: int | None, what: str = "interval") -> None:
    """A known method, a level in (0, 1), and at least 2 replicates for a bootstrap (``n_boot`` None:
    not checked).
    """
    if method not in METHODS:
        raise InvalidParameterError(f"unknown {what} method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "wald" and what == "comparison":
        raise InvalidParameterError(
            "Wald's interval is of one model's fitted coefficient; a comparison has no Wald test here: "
            "use method='bca' or 'percentile'"
        )
    check_level(level)
    if n_boot is not None and n_boot < 2 and method not in ANALYTIC:
        raise InvalidParameterError(f"the bootstrap needs at least 2 replicates, got n_boot={n_boot}")


def quantiles(reps: np.ndarray, qs: tuple[float, float], observed: bool = False) -> tuple[float, float]:
    """The replicates' quantiles ``qs`` (low, high): numpy's linear interpolation between the order
    statistics, or (``observed``) the order statistics at or outside them, each bound a replicate's
    own value (numpy's ``lower`` and ``higher`` methods: the interval only widens), for a statistic
    whose values are a lattice (a score threshold: an interpolation between two achievable
    thresholds is none).
    """
    if not observed:
        lo, hi = np.quantile(reps, list(qs))
        return float(lo), float(hi)
    return float(np.quantile(reps, qs[0], method="lower")), float(np.quantile(reps, qs[1], method="higher"))


def percentile(reps: np.ndarray, level: float, observed: bool = False) -> tuple[float, float]:
    a = (1.0 - level) / 2.0
    return quantiles(reps, (a, 1.0 - a), observed)


#: the magnitudes within which a spread's squares (and the acceleration's cubes) of values are
#: float64s with every bit: values outside are scaled by a power of two first (:func:`spread`)
SQUARES_SAFE = (2.0**-300, 2.0**300)


def _outside(m: float) -> bool:
    """Whether a largest magnitude ``m`` (finite) is outside :data:`SQUARES_SAFE` (0: inside)."""
    return m != 0.0 and not SQUARES_SAFE[0] <= m <= SQUARES_SAFE[1]


def _exponent(x: np.ndarray) -> int:
    """The binary exponent of the largest ``|x|`` (``x`` finite, not all 0): ``x * 2**-k`` in [0.5, 1)."""
    return math.frexp(float(np.max(np.abs(x))))[1]


def spread(x: np.ndarray) -> tuple[float, int]:
    """The standard deviation (divisor n - 1) of finite ``x`` (n >= 2) as ``(s, k)``, the deviation
    being ``s * 2**k`` (:func:`unscaled`).  ``k`` 0 and ``s`` numpy's ``x.std(ddof=1)``, its bits,
    when the largest ``|x|`` lies within :data:`SQUARES_SAFE`: the squares neither overflow nor fall
    below float64's normal range.  Else (values about 1e200, whose squares overflow, or about 1e-200,
    whose squares underflow to 0) the same on ``x * 2**-k`` (exact: a power of two), ``k`` the
    largest ``|x|``'s exponent: the same bits as that std of an unbounded exponent's float.
    """
    m = float(np.max(np.abs(x))) if len(x) else 0.0
    if not _outside(m):
        return float(x.std(ddof=1)), 0
    k = _exponent(x)
    return float(np.ldexp(x, -k).std(ddof=1)), k


def _size(s: float, k: int) -> str:
    """``s * 2**k`` (``s > 0``, finite) in two digits, whatever its size."""
    lg = math.log10(s) + k * math.log10(2.0)
    e = math.floor(lg)
    m = round(10 ** (lg - e), 1)
    if m >= 10:
        m, e = 1.0, e + 1
    return f"{m:g}e{e:+d}"


def range_why(what: str, s: float, k: int) -> str:
    """Why ``what`` (``s * 2**k``, computed at a power-of-two scale) is NaN: it is beyond float64's
    range, or nonzero below its normal range (its last bits lost: a measure's sums losing bits below
    ``2**-1074`` make it NaN too), its size said.
    """
    if math.isinf(s) or math.isnan(s):
        return f"{what} is beyond the range of a 64-bit float (about 1.8e+308)"
    if math.log10(abs(s)) + k * math.log10(2.0) > 0:
        return f"{what} is about {_size(abs(s), k)}, beyond the range of a 64-bit float (about 1.8e+308)"
    return (
        f"{what} is about {_size(abs(s), k)}, below the normal range of a 64-bit float (about 2.2e-308): "
        "its last bits are lost; scale the targets and the predictions (and the value back)"
    )


def unscaled(s: float, k: int) -> float:
    """``s * 2**k``; NaN when that is beyond float64's range, or nonzero below its normal range (its
    bits lost): never an infinity, nor a 0 or a subnormal for a nonzero number (:func:`range_why`).
    """
    if not math.isfinite(s):
        return math.nan
    try:
        v = math.ldexp(s, k)
    except OverflowError:
        return math.nan
    if s != 0.0 and abs(v) < _TINY:
        return math.nan
    return v


_TINY = float(np.finfo(np.float64).tiny)  # 2**-1022, float64's least normal number


def acceleration(jack: np.ndarray, weight: np.ndarray | None) -> float:
    """The BCa acceleration from jackknife values (with multiplicities ``weight``).

    It does not change with the scale of the values: where their deviations from their mean are
    outside :data:`SQUARES_SAFE` (values about 1e200, whose cubes overflow, or about 1e-100, whose
    cubes underflow to 0 and gave an acceleration of 0), the values and then the deviations are
    scaled by powers of two (exact), the same bits as the unscaled on an unbounded exponent's float.
    """
    w = np.ones_like(jack) if weight is None else weight
    ok = np.isfinite(jack) & (w > 0)
    jack, w = jack[ok], w[ok]
    if len(jack) < 2:
        return 0.0
    if _outside(float(np.max(np.abs(jack)))):
        jack = np.ldexp(jack, -_exponent(jack))  # its mean's sum cannot overflow, nor lose bits
    d = np.average(jack, weights=w) - jack
    if _outside(float(np.max(np.abs(d)))):
        d = np.ldexp(d, -_exponent(d))
    den = float(np.sum(w * d * d)) ** 1.5
    return float(np.sum(w * d**3)) / (6.0 * den) if den > 0 else 0.0


def share_below(estimate: float, reps: np.ndarray) -> float:
    """The share of the replicates below the estimate, ties counted half (scipy's
    ``percentileofscore(kind="mean")``, as ``scipy.stats.bootstrap``'s BCa reads it): BCa's bias
    correction is its normal quantile, infinite at 0 and 1.
    """
    return float((np.count_nonzero(reps < estimate) + 0.5 * np.count_nonzero(reps == estimate)) / len(reps))


def bca(
    estimate: float, reps: np.ndarray, level: float, accel: float, observed: bool = False
) -> tuple[float, float]:
    """The BCa interval (Efron 1987); NaN when every replicate lies on one side of the estimate
    (:func:`share_below` 0 or 1): the bias correction z0 is then infinite, and so no BCa interval
    exists (``scipy.stats.bootstrap`` gives NaN there too, with its DegenerateDataWarning; it is
    never the percentile interval in BCa's name).  ``observed``: bounds at replicates' own values
    (:func:`quantiles`).
    """
    nd = NormalDist()
    below = share_below(estimate, reps)
    if below <= 0.0 or below >= 1.0:
        return math.nan, math.nan
    z0 = nd.inv_cdf(below)
    adj = []
    for q in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        u = z0 + nd.inv_cdf(q)
        den = 1.0 - accel * u
        # past the map's pole (1 - a u <= 0: |a u| >= 1, a level beyond 1 - 1e-9 for |a| = 0.15, or
        # a large bias) the formula turns back (an end crossing the other: an interval of low > high);
        # its limit there, the end at the replicates' least or largest, keeps the interval widening
        # with the level, as bca_p_value inverts it
        adj.append(min(max(nd.cdf(z0 + u / den), 0.0), 1.0) if den > 0.0 else 0.0 if u < 0.0 else 1.0)
    return quantiles(reps, (adj[0], adj[1]), observed)


#: why a measure's replicates lie on one side of it, said in a note
_BIASED = "biased under resampling, as calibration errors, reliability terms and maxima are"


def side_note(estimate: float, reps: np.ndarray, low: float, high: float, of: str = "estimate") -> str:
    """Why an interval of finite replicates ``reps`` is not a range around ``estimate`` ('' when it
    is): NaN bounds with every replicate on one side (BCa's infinite bias correction), or bounds
    that do not contain the estimate.  ``of``: what the estimate is called (``"difference"``).
    """
    n = len(reps)
    what = "measure" if of == "estimate" else of
    # a comparison's p-value is the share of the same replicates beyond 0: shifted as they are
    test = "" if of == "estimate" else "; the p-value reads the same shifted replicates"
    if not (math.isfinite(low) and math.isfinite(high)):
        below = share_below(estimate, reps)
        if below not in (0.0, 1.0):
            return ""
        side = "above" if below == 0.0 else "below"
        return (
            f"no BCa interval: all {n} replicates lie {side} the {of} (the {what} is {_BIASED}), so "
            f"BCa's bias correction is infinite; the percentile interval does not contain the {of} "
            f"either{test}"
        )
    if low <= estimate <= high:
        return ""
    side = "above" if low > estimate else "below"
    k = np.count_nonzero(reps > estimate) if side == "above" else np.count_nonzero(reps < estimate)
    share = f"all {n} replicates do" if k == n else f"{_percent(k / n)} of the {n} replicates do"
    return (
        f"the interval lies {side} the {of}: {share} (the {what} is {_BIASED}); it is the replicates' "
        f"spread, not a range around the {of}{test}"
    )


def _percent(x: float) -> str:
    """A share as a percentage of at most 3 digits, never rounded to 100% or 0% when it is not."""
    p = f"{x * 100:.3g}%"
    if p == "100%" and x < 1.0:
        return ">99.9%"
    if p == "0%" and x > 0.0:
        return "<0.1%"
    return p


def interval(
    estimate: float,
    reps: np.ndarray,
    level: float,
    method: str,
    accel: Any,
    *,
    of: str = "estimate",
    observed: bool = False,
) -> tuple[float, float, float, str]:
    """(low, high, sd, note) from replicates; NaN when the estimate is not a finite number (e.g. an
    infinite cross-entropy) or more than 5% of the replicates are undefined, and (BCa) when every
    replicate lies on one side of the estimate (:func:`bca`).  ``note``: :func:`side_note`, why
    the interval is not a range around the estimate ('' when it is).  ``accel``: the acceleration,
    or a function giving it (called for a BCa interval only).  ``of``: what the estimate is called
    in the note; ``observed``: bounds at replicates' own values (:func:`quantiles`: a threshold's).
    """
    ok = reps[np.isfinite(reps)]
    if len(ok) < 0.95 * len(reps) or len(ok) < 2 or not math.isfinite(estimate):
        return math.nan, math.nan, math.nan, ""
    sd = unscaled(*spread(ok))  # of replicates about 1e200 or 1e-200: at a power-of-two scale
    if method == "percentile":
        lo, hi = percentile(ok, level, observed)
    else:
        lo, hi = bca(estimate, ok, level, accel() if callable(accel) else accel, observed)
    return lo, hi, sd, side_note(estimate, ok, lo, hi, of)


def undefined_left_out(
    reps: np.ndarray, estimate: float, low: float, what: str = "interval", why: str = ""
) -> str:
    """The replicates a bootstrap over the cases leaves out of its interval (given: ``low`` a number,
    so no more than 5% of them), said (:attr:`Interval.left_out`; '' when it reads every one): those
    where the value is undefined (not a finite number: a replicate that drew no positive, say), with
    the measure's own reason in the first of them when known (``why``).  The interval (``what``) is
    of the others, the bootstrap given that the value is defined.

    >>> undefined_left_out(np.array([0.5, np.nan, 0.7, 0.6]), 0.6, 0.5)
    '1 of the 4 replicates (25.0%) leave the value undefined and are left out: the interval is of the other 3'
    """
    bad = int(np.count_nonzero(~np.isfinite(reps)))
    if not bad or not math.isfinite(estimate) or not math.isfinite(low):
        return ""
    verb = "are" if " and " in what else "is"
    return (
        f"{bad} of the {len(reps)} replicates ({bad / len(reps):.1%}) leave the value undefined"
        + (f" (in the first of them: {why})" if why else "")
        + f" and are left out: the {what} {verb} of the other {len(reps) - bad}"
    )


def p_value(diffs: np.ndarray) -> float:
    """Two-sided Monte Carlo p-value of "no difference": twice the share of replicate differences on
    the far side of zero (ties half), counted as (k + 1) / (R + 1) so that it is never 0 (the
    percentile interval's test; a BCa interval's is :func:`bca_p_value`).  NaN when
    more than 5% of the replicates are undefined, as the interval (:func:`interval`): no test from a
    biased subset either.
    """
    d = diffs[~np.isnan(diffs)]
    if len(d) == 0 or len(d) < 0.95 * len(diffs):
        return math.nan
    zero = 0.5 * np.count_nonzero(d == 0)
    k = min(np.count_nonzero(d < 0) + zero, np.count_nonzero(d > 0) + zero)
    return float(min(1.0, 2.0 * (k + 1.0) / (len(d) + 1.0)))


def level_of(reps: np.ndarray, x: float) -> float:
    """The quantile level at which numpy's linear interpolation between the sorted replicates
    (:func:`quantiles`) reaches ``x``: the inverse of ``np.quantile(reps, q)``, the middle of the
    levels where replicates equal ``x``; 0 below the least replicate and 1 above the largest.
    """
    d = np.sort(reps)
    n = len(d)
    if n < 2 or x < d[0]:
        return 0.0
    if x > d[-1]:
        return 1.0
    lo, hi = int(np.searchsorted(d, x, "left")), int(np.searchsorted(d, x, "right"))
    if hi > lo:  # replicates equal to x: the middle of their positions
        return (lo + hi - 1) / 2.0 / (n - 1)
    return (lo - 1 + (x - d[lo - 1]) / (d[lo] - d[lo - 1])) / (n - 1)


def bca_p_value(estimate: float, reps: np.ndarray, accel: float) -> tuple[float, bool]:
    """The two-sided p-value of "the difference is 0" that the BCa interval gives (the interval
    inverted, as R's boot.pval does by search): the least 1 - level at which the BCa interval of
    :func:`bca` at that level leaves out 0, so that p < 1 - level exactly when that interval leaves
    out 0.  With BCa's level map beta(z) = Phi(z0 + (z0 + z) / (1 - a (z0 + z))), an end of the
    interval is 0 where beta(z) is q0, the level of 0 among the replicates (:func:`level_of`): z* =
    u / (1 + a u) - z0 with u = Phi^-1(q0) - z0, and p = 2 min(Phi(z*), 1 - Phi(z*)).  Never below
    2 / (R + 1), the floor of :func:`p_value` (R finite replicates): (floor, True) when 0 lies
    outside every replicate or no level's interval reaches it (1 + a u <= 0), or p is below it.
    NaN when every replicate lies on one side of the estimate (no BCa interval: :func:`bca`).
    """
    d = reps[np.isfinite(reps)]
    floor = 2.0 / (len(d) + 1.0)
    below = share_below(estimate, d) if len(d) else 0.0
    if below <= 0.0 or below >= 1.0:
        return math.nan, False
    nd = NormalDist()
    q0 = level_of(d, 0.0)
    if q0 <= 0.0 or q0 >= 1.0:
        return floor, True
    z0 = nd.inv_cdf(below)
    u = nd.inv_cdf(q0) - z0
    den = 1.0 + accel * u
    if not den > 0.0:
        return floor, True
    phi = nd.cdf(u / den - z0)
    p = 2.0 * min(phi, 1.0 - phi)
    return (floor, True) if p <= floor else (min(1.0, p), False)


def paired_test(
    diff: float, reps: np.ndarray, level: float, method: str, accel: Any, tested: bool
) -> tuple[float, float, float, str, float, bool]:
    """A paired bootstrap comparison's (low, high, sd, note) of :func:`interval` and its p-value
    with whether it is at its floor: BCa's own (:func:`bca_p_value`: p < 1 - level exactly when the
    BCa interval leaves out 0) for a BCa interval, the share of replicate differences beyond 0
    (:func:`p_value`, the percentile interval's) for a percentile one, and for a BCa interval that
    does not exist (every replicate on one side of the difference: the note says so).  ``tested``
    False: no p-value (NaN).  ``accel``: the acceleration or a function giving it, called at most once,
    when the BCa interval asks for it.
    """
    made: list[float] = []

    def once() -> float:  # made when the interval asks for it (not for an interval of no number)
        if not made:
            made.append(accel() if callable(accel) else accel)
        return made[0]

    lo, hi, sd, note = interval(diff, reps, level, method, once, of="difference")
    if not tested:
        return lo, hi, sd, note, math.nan, False
    if method == "bca" and math.isfinite(lo) and math.isfinite(hi):
        p, floor = bca_p_value(diff, reps, float(once()))
        if math.isfinite(p):
            return lo, hi, sd, note, p, floor
    return lo, hi, sd, note, p_value(reps), p_at_floor(reps)


def floor_reason(methods: set[str] | list[str]) -> str:
    """Why a bootstrap p-value shown as its floor, 2 / (R + 1), is a bound, for the tests that gave
    one (``methods``: "bca", "percentile"): each says only what holds for it.  A percentile p-value
    is at its floor when no replicate difference lies on the far side of zero; a BCa one
    (:func:`bca_p_value`) when zero lies beyond every replicate, when BCa's map of levels cannot
    reach zero (1 + a u <= 0: the acceleration stops the interval's end short of zero at every
    level, :func:`bca`), or when the inverted interval first reaches zero at a level above
    1 - 2 / (R + 1), so that the interval at a lower level leaves zero out.
    """
    said = []
    if "percentile" in methods:
        said.append("percentile, no replicate difference lies beyond zero")
    if "bca" in methods:
        said.append(
            "BCa, the BCa interval inverted reaches zero only at a level above 1 - 2 / (replicates + 1) "
            "or at none (zero beyond every replicate, or beyond the levels BCa's acceleration lets the "
            "interval reach: at every level its end stops short of zero)"
        )
    return "; ".join(said)


def p_at_floor(diffs: np.ndarray) -> bool:
    """Whether :func:`p_value` of ``diffs`` is its floor, 2 / (R + 1) for R defined replicates: no
    replicate difference on the far side of zero (nor at zero), so the p-value is a bound, not an
    estimate (more replicates could only lower it).
    """
    d = diffs[~np.isnan(diffs)]
    if len(d) == 0 or len(d) < 0.95 * len(diffs):
        return False
    return bool(np.count_nonzero(d <= 0) == 0 or np.count_nonzero(d >= 0) == 0)
