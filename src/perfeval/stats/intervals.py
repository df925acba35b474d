"""The results of the statistics and the interval arithmetic: percentile and BCa intervals from
replicates, the jackknife acceleration, and the paired bootstrap's p-value.

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
    ``p_value``, not an estimate.
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

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def as_dict(result: Interval | Comparison) -> dict[str, Any]:
    """A result's fields for JSON: a NaN or infinite number is None, with its reason beside it
    (``low_why_null``, ..., :func:`reasons`); the seed of DeLong's, which draws none, too.
    """
    return with_reasons(dict(result.__dict__), reasons(result))


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
        for k, whose in (("estimate_a", "model a's"), ("estimate_b", "model b's")):
            if not math.isfinite(getattr(result, k)):
                why[k] = _what(getattr(result, k), label, whose)
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
    text = (
        f"no interval{'' if isinstance(result, Interval) else ' or test'}: {cause}"
        if bad
        else "no standard error: the fit's information matrix is singular"
        if result.method == "wald"
        else "more than 5% of the replicates leave the value undefined (e.g. a replicate without a "
        f"positive): no interval{'' if isinstance(result, Interval) else ' or test'} from a biased subset"
    )
    for k in rest:
        v = getattr(result, k)
        if v is None or not math.isfinite(v):
            why[k] = text
    return why


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


def percentile(reps: np.ndarray, level: float) -> tuple[float, float]:
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [a, 1.0 - a])
    return float(lo), float(hi)


def acceleration(jack: np.ndarray, weight: np.ndarray | None) -> float:
    """The BCa acceleration from jackknife values (with multiplicities ``weight``)."""
    w = np.ones_like(jack) if weight is None else weight
    ok = np.isfinite(jack) & (w > 0)
    jack, w = jack[ok], w[ok]
    if len(jack) < 2:
        return 0.0
    d = np.average(jack, weights=w) - jack
    den = float(np.sum(w * d * d)) ** 1.5
    return float(np.sum(w * d**3)) / (6.0 * den) if den > 0 else 0.0


def bca(estimate: float, reps: np.ndarray, level: float, accel: float) -> tuple[float, float]:
    nd = NormalDist()
    below = (np.count_nonzero(reps < estimate) + 0.5 * np.count_nonzero(reps == estimate)) / len(reps)
    if below <= 0.0 or below >= 1.0:  # every replicate on one side: no bias correction is possible
        return percentile(reps, level)
    z0 = nd.inv_cdf(below)
    out = []
    for q in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        zq = nd.inv_cdf(q)
        adj = nd.cdf(z0 + (z0 + zq) / (1.0 - accel * (z0 + zq)))
        out.append(float(np.quantile(reps, min(max(adj, 0.0), 1.0))))
    return out[0], out[1]


def interval(
    estimate: float, reps: np.ndarray, level: float, method: str, accel: Any
) -> tuple[float, float, float]:
    """(low, high, sd) from replicates; NaN when the estimate is not a finite number (e.g. an infinite
    cross-entropy) or more than 5% of the replicates are undefined.  ``accel``: the acceleration, or a
    function giving it (called for a BCa interval only).
    """
    ok = reps[np.isfinite(reps)]
    if len(ok) < 0.95 * len(reps) or len(ok) < 2 or not math.isfinite(estimate):
        return math.nan, math.nan, math.nan
    sd = float(ok.std(ddof=1))
    if method == "percentile":
        lo, hi = percentile(ok, level)
    else:
        lo, hi = bca(estimate, ok, level, accel() if callable(accel) else accel)
    return lo, hi, sd


def p_value(diffs: np.ndarray) -> float:
    """Two-sided Monte Carlo p-value of "no difference": twice the share of replicate differences on
    the far side of zero (ties half), counted as (k + 1) / (R + 1) so that it is never 0.  NaN when
    more than 5% of the replicates are undefined, as the interval (:func:`interval`): no test from a
    biased subset either.
    """
    d = diffs[~np.isnan(diffs)]
    if len(d) == 0 or len(d) < 0.95 * len(diffs):
        return math.nan
    zero = 0.5 * np.count_nonzero(d == 0)
    k = min(np.count_nonzero(d < 0) + zero, np.count_nonzero(d > 0) + zero)
    return float(min(1.0, 2.0 * (k + 1.0) / (len(d) + 1.0)))


def p_at_floor(diffs: np.ndarray) -> bool:
    """Whether :func:`p_value` of ``diffs`` is its floor, 2 / (R + 1) for R defined replicates: no
    replicate difference on the far side of zero (nor at zero), so the p-value is a bound, not an
    estimate (more replicates could only lower it).
    """
    d = diffs[~np.isnan(diffs)]
    if len(d) == 0 or len(d) < 0.95 * len(diffs):
        return False
    return bool(np.count_nonzero(d <= 0) == 0 or np.count_nonzero(d >= 0) == 0)
