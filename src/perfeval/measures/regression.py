"""The regression measures, each finished from a :class:`~perfeval.summaries.regression.RegressionSummary`
(the exact sums of the rows; no row is read here).

Each measure is a function ``f(summary, **params) -> Finished`` (the value, and why it is NaN when it
is), as the multiclass measures are (:mod:`perfeval.measures.multiclass`).  Every ratio of sums is
formed exactly and rounded once (:func:`~perfeval.summaries.regression.ratio`), so a value does not
depend on the order or the chunking of the rows.  ``r = y - prediction`` throughout.

Examples
--------
>>> from perfeval.summaries.regression import RegressionSummary
>>> s = RegressionSummary.from_checked([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
>>> mae(s).value, mse(s).value, round(r2(s).value, 6)
(0.5, 0.375, 0.948608)
"""

from __future__ import annotations

import math
from fractions import Fraction

from perfeval.measures.multiclass import Finished
from perfeval.summaries.regression import RegressionSummary, ratio, weighted_median

__all__ = [
    "mae",
    "mse",
    "rmse",
    "r2",
    "explained_variance",
    "mape",
    "median_absolute_error",
    "pinball",
    "poisson_deviance",
    "gamma_deviance",
    "tweedie_deviance",
    "tweedie_power_ok",
    "NO_CASE",
]

NO_CASE = "no case (no row, or every weight 0)"


def _mean(s: RegressionSummary, total: int) -> Finished:
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    return Finished(ratio(total, s.weight))


def mae(s: RegressionSummary) -> Finished:
    """Mean absolute error, ``sum w |r| / sum w``."""
    return _mean(s, s.sabs)


def mse(s: RegressionSummary) -> Finished:
    """Mean squared error, ``sum w r^2 / sum w``."""
    return _mean(s, s.srr)


def rmse(s: RegressionSummary) -> Finished:
    """Root mean squared error: the square root of :func:`mse` (as scikit-learn takes it)."""
    f = mse(s)
    return Finished(math.sqrt(f.value), why=f.why) if not math.isnan(f.value) else f


def _fraction_explained(s: RegressionSummary, num: int) -> Finished:
    """``1 - num / den`` with ``den`` = ``S_w S_wyy - S_wy^2`` (the targets' weighted sum of squares
    around their mean, times ``S_w 2**SHIFT``), exact, rounded once.
    """
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    den, _ = s.sst()
    if den == 0:
        return Finished(
            math.nan,
            why="every target is equal (their variance is 0): the fraction of the variance explained "
            "is 0/0 or -inf (scikit-learn's force_finite gives 1 for a perfect prediction, else 0)",
        )
    return Finished(ratio(den - num, den))


def r2(s: RegressionSummary) -> Finished:
    """Coefficient of determination, ``1 - sum w r^2 / sum w (y - ybar)^2`` (``ybar`` the weighted
    mean), from exact sums: a large mean and a small spread lose no digit.
    """
    return _fraction_explained(s, s.srr * s.weight)


def explained_variance(s: RegressionSummary) -> Finished:
    """``1 - Var_w(r) / Var_w(y)``: R2 with the residuals' mean (a constant bias) forgiven."""
    num, _ = s.ssr_centered()
    return _fraction_explained(s, num)


def mape(s: RegressionSummary) -> Finished:
    """Mean absolute percentage error, ``sum w |r| / |y| / sum w`` (a fraction, not times 100)."""
    if s.zero_weight:
        n = s.zero_rows
        return Finished(
            math.nan,
            why=f"{n:,} target{'s are' if n != 1 else ' is'} 0: a percentage of 0 is undefined "
            "(scikit-learn's mean_absolute_percentage_error divides by float64's eps instead, giving "
            "about 4.5e15 |r|)",
        )
    return _mean(s, s.sape)


def median_absolute_error(s: RegressionSummary) -> Finished:
    """The weighted median of ``|r|`` (averaged inverted CDF: the median of numpy for equal weights)."""
    v, w = s.residuals()
    if not len(v):
        return Finished(math.nan, why=NO_CASE)
    return Finished(weighted_median(v, w))


def pinball(s: RegressionSummary, alpha: float = 0.5) -> Finished:
    """Mean pinball (quantile) loss, ``sum w (alpha max(r, 0) + (1 - alpha) max(-r, 0)) / sum w``,
    from exact sums (``alpha`` = m / d exactly: one rounding of the exact quotient).
    """
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    a = Fraction(float(alpha))  # exact: the float's own value
    m, d = a.numerator, a.denominator
    neg = s.spos - s.sr  # sum w max(-r, 0) = sum w max(r, 0) - sum w r, exactly
    return Finished(ratio(m * s.spos + (d - m) * neg, s.weight * d))


def tweedie_power_ok(power: float) -> bool:
    """Whether ``power`` has a Tweedie deviance (power <= 0 or power >= 1)."""
    return power <= 0 or power >= 1


_DOMAIN = {
    "neg": "predictions > 0",
    "zero": "",
    "poisson": "targets >= 0 and predictions > 0",
    "gamma": "targets > 0 and predictions > 0",
}


def _domain(power: float) -> str:
    if power < 0:
        return _DOMAIN["neg"]
    if power < 2:
        return _DOMAIN["poisson"]
    return _DOMAIN["gamma"]


def tweedie_deviance(s: RegressionSummary, power: float = 0.0) -> Finished:
    """Mean Tweedie deviance of ``power`` (0: squared error, 1: Poisson, 2: Gamma), NaN with the
    reason when a row lies outside the deviance's domain.
    """
    power = float(power)
    if not tweedie_power_ok(power):
        return Finished(math.nan, why=f"no Tweedie distribution has power {power:g} (0 < power < 1)")
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    total, bad, rows = s.deviance(power)
    if bad:
        return Finished(
            math.nan,
            why=f"{rows:,} row{'s' if rows != 1 else ''} outside the deviance's domain (power "
            f"{power:g} needs {_domain(power)})",
        )
    return Finished(ratio(total, s.weight))


def poisson_deviance(s: RegressionSummary) -> Finished:
    """Mean Poisson deviance (Tweedie power 1)."""
    return tweedie_deviance(s, 1.0)


def gamma_deviance(s: RegressionSummary) -> Finished:
    """Mean Gamma deviance (Tweedie power 2)."""
    return tweedie_deviance(s, 2.0)
