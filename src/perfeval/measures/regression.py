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

import numpy as np

from perfeval.measures.multiclass import Finished
from perfeval.summaries.regression import (
    BELOW,
    SKLEARN_EPS,
    TM_MAPE_EPS,
    LostBits,
    RegressionSummary,
    beyond_reason,
    checked_products,
    deviance_range_reason,
    deviance_rows,
    low_reason,
    mape_range_reason,
    ratio,
    weighted_median,
    weighted_quantile,
)

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
    "d2_absolute_error",
    "d2_pinball",
    "d2_tweedie",
    "d2_pinball_parts",
    "d2_tweedie_parts",
    "max_error",
    "msle",
    "rmsle",
    "MAPE_EPS",
    "NO_CASE",
    "CONSTANT_TARGETS",
    "D2_QUANTILE_CONSTANT",
    "D2_MEAN_CONSTANT",
    "D2_QUANTILE_RANGE",
    "zero_targets_why",
    "domain_why",
    "log_why",
    "mean_domain_why",
    "mean_range_why",
    "mean_low_why",
]

NO_CASE = "no case (no row, or every weight 0)"

#: why R2 and EXPVAR are NaN when every target is equal
CONSTANT_TARGETS = (
    "every target is equal (their variance is 0): the fraction of the variance explained "
    "is 0/0 or -inf (scikit-learn's force_finite gives 1 for a perfect prediction, else 0)"
)


def zero_targets_why(n: int) -> str:
    """Why MAPE (no eps) is NaN: ``n`` targets (of rows of weight > 0) are 0, or below float64's eps
    in size (:func:`perfeval.summaries.regression.no_percentage`).
    """
    return (
        f"{n:,} target{'s are' if n != 1 else ' is'} 0 or below 2.2e-16 in size: a percentage of 0 is "
        "undefined, and below 2.2e-16 the sums MAPE is made from floor |y| at float64's eps "
        "(scikit-learn's mean_absolute_percentage_error divides by that eps, giving about 4.5e15 |r| at "
        "0: MAPE:eps=sklearn; torchmetrics' by 1.17e-06: MAPE:eps=torchmetrics; or scale the targets "
        "and predictions together: MAPE does not change with their scale)"
    )


def domain_why(rows: int, power: float) -> str:
    """Why a Tweedie deviance of ``power`` is NaN: ``rows`` rows lie outside its domain."""
    return (
        f"{rows:,} row{'s' if rows != 1 else ''} outside the deviance's domain (power "
        f"{power:g} needs {_domain(power)})"
    )


def log_why(n: int) -> str:
    """Why MSLE and RMSLE are NaN: ``n`` rows have a target or a prediction <= -1."""
    return (
        f"{n:,} row{'s' if n != 1 else ''} with a target or a prediction <= -1: the log error "
        "log1p(y) - log1p(prediction) needs both > -1 (scikit-learn raises ValueError)"
    )


def _value(num: int, den: int, what: str, *, scale: bool = True) -> Finished:
    """``num / den`` correctly rounded (``den > 0``), or NaN with why when that is beyond float64's
    range (:func:`~perfeval.summaries.regression.beyond_reason`: ``what`` it is; ``scale``: the value
    changes with the data's scale): never an infinity for a finite number.
    """
    v = ratio(num, den)
    if math.isinf(v):
        return Finished(math.nan, why=beyond_reason(what, num, den, scale=scale))
    return Finished(v)


def _mean(s: RegressionSummary, total: int, what: str, *, scale: bool = True) -> Finished:
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    return _value(total, s.weight, what, scale=scale)


def _root(num: int, den: int, what: str) -> Finished:
    """The square root of ``num / den`` (``num >= 0``, ``den > 0``) as :func:`rmse` takes it, the
    quotient rounded once and then its root; where the quotient is beyond float64's range, the same
    two roundings on it scaled by ``4**-k`` (exact: a power of two), the root scaled back by ``2**k``
    (exact), so that a root in the range is given; NaN with why beyond it.
    """
    v = ratio(num, den)
    if not math.isinf(v):
        return Finished(math.sqrt(v))
    k = max(0, (num.bit_length() - den.bit_length() - 1000) // 2)
    v = math.sqrt(ratio(num, den << (2 * k)))
    try:
        return Finished(math.ldexp(v, k))
    except OverflowError:
        return Finished(math.nan, why=beyond_reason(what, num, den, root=True))


def mae(s: RegressionSummary) -> Finished:
    """Mean absolute error, ``sum w |r| / sum w`` (refused when a product ``|r| w`` has bits below
    ``2**-1074``: :meth:`RegressionSummary.exact`; unweighted, no product).
    """
    s.exact("MAE", "sabs")
    return _mean(s, s.sabs, "the weighted mean of the absolute errors")


def mse(s: RegressionSummary) -> Finished:
    """Mean squared error, ``sum w r^2 / sum w`` (refused when a product ``r r w`` has bits below
    ``2**-1074``: the quotient of an inexact sum is not the correctly rounded one).
    """
    return _mse(s, "MSE")


def _mse(s: RegressionSummary, name: str) -> Finished:
    s.exact(name, "srr")
    return _mean(s, s.srr, "the weighted mean of the squared errors")


def rmse(s: RegressionSummary) -> Finished:
    """Root mean squared error: the square root of :func:`mse` (as scikit-learn takes it); where
    MSE itself is beyond float64's range but its root is not, that root (:func:`_root`).
    """
    s.exact("RMSE", "srr")
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    return _root(s.srr, s.weight, "the root of the weighted mean of the squared errors")


def _fraction_explained(s: RegressionSummary, num: int) -> Finished:
    """``1 - num / den`` with ``den`` = ``S_w S_wyy - S_wy^2`` (the targets' weighted sum of squares
    around their mean, times ``S_w 2**SHIFT``), exact, rounded once.
    """
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    den, _ = s.sst()
    if den == 0:
        return Finished(math.nan, why=CONSTANT_TARGETS)
    return _value(den - num, den, _R2_WHAT, scale=False)


#: what R2 and EXPVAR are, and the D^2 scores, when beyond float64's range (:func:`_value`)
_R2_WHAT = "the fraction explained (1 - the residuals' sum of squares over the targets')"
_D2_WHAT = "the fraction explained (1 - the model's loss over the constant prediction's)"


def r2(s: RegressionSummary) -> Finished:
    """Coefficient of determination, ``1 - sum w r^2 / sum w (y - ybar)^2`` (``ybar`` the weighted
    mean), from exact sums: a large mean and a small spread lose no digit.  Refused when a product
    of its sums has bits below ``2**-1074`` (:meth:`RegressionSummary.exact`: ``W syy - sy^2`` of
    inexact sums can be any number, even below 0).
    """
    s.exact("R2", "sy", "syy", "srr")
    return _fraction_explained(s, s.srr * s.weight)


def explained_variance(s: RegressionSummary) -> Finished:
    """``1 - Var_w(r) / Var_w(y)``: R2 with the residuals' mean (a constant bias) forgiven."""
    s.exact("EXPVAR", "sy", "syy", "sr", "srr")
    num, _ = s.ssr_centered()
    return _fraction_explained(s, num)


#: MAPE's floor of ``|y|`` by ``eps``: none (a target of 0, or below float64's eps in size, is NaN),
#: scikit-learn's (float64's eps) and torchmetrics' (1.17e-06, ``mean_absolute_percentage_error``'s
#: ``epsilon``)
MAPE_EPS = {"none": None, "sklearn": SKLEARN_EPS, "torchmetrics": TM_MAPE_EPS}


def mape(s: RegressionSummary, eps: str = "none") -> Finished:
    """Mean absolute percentage error, ``sum w |r| / |y| / sum w`` (a fraction, not times 100);
    ``eps="sklearn"`` or ``"torchmetrics"``: each ``|y|`` floored at that tool's epsilon
    (:data:`MAPE_EPS`), a target of 0 counted as the tool counts it.
    """
    what = "the weighted mean of |r| / |y|"
    key = "sape_tm" if eps == "torchmetrics" else "sape"
    if eps == "none" and s.zero_weight:
        return Finished(math.nan, why=zero_targets_why(s.zero_rows))
    if not s.in_range(key):  # a row's ratio beyond float64's range: left out of the sum
        return Finished(math.nan, why=mape_range_reason(eps))
    s.exact("MAPE", key)
    return _mean(s, s.sape_tm if eps == "torchmetrics" else s.sape, what, scale=False)


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
    s.exact("PINBALL", "spos", "sr")
    a = Fraction(float(alpha))  # exact: the float's own value
    m, d = a.numerator, a.denominator
    neg = s.spos - s.sr  # sum w max(-r, 0) = sum w max(r, 0) - sum w r, exactly
    return _value(m * s.spos + (d - m) * neg, s.weight * d, "the weighted mean pinball loss")


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
        return Finished(math.nan, why=domain_why(rows, power))
    if not s.in_range(f"dev{power!r}"):
        return Finished(math.nan, why=deviance_range_reason(power, s.over))
    if not s.in_range(f"devlow{power!r}"):
        return Finished(math.nan, why=low_reason(power))
    s.exact("TWEEDIE_DEV", f"dev{power!r}")
    return _value(total, s.weight, f"the weighted mean Tweedie deviance (power {power:g})")


def poisson_deviance(s: RegressionSummary) -> Finished:
    """Mean Poisson deviance (Tweedie power 1)."""
    return tweedie_deviance(s, 1.0)


def gamma_deviance(s: RegressionSummary) -> Finished:
    """Mean Gamma deviance (Tweedie power 2)."""
    return tweedie_deviance(s, 2.0)


# -- D^2: the fraction of a loss explained, against the best constant prediction of that loss ---------
def _constant_why(what: str) -> str:
    return (
        f"the constant prediction of the targets' {what} has no loss (every target equal"
        + (", or alpha 0 or 1" if what.endswith("quantile") else "")
        + "): the fraction explained is 0/0 or -inf"
    )


#: why D2_PINBALL and D2_AE are NaN when the constant quantile has no loss
D2_QUANTILE_CONSTANT = (
    _constant_why("alpha-quantile")
    + " (scikit-learn's d2_pinball_score gives 1 for a perfect prediction, else 0)"
)
#: why D2_TWEEDIE is NaN when the constant mean has no loss
D2_MEAN_CONSTANT = _constant_why("mean") + " (scikit-learn's d2_tweedie_score raises ZeroDivisionError)"
#: why D2_PINBALL and D2_AE are NaN when a residual from the targets' quantile is beyond float64 (a
#: product of one with a weight is not: the exact sums keep it, csrc/exact.c ``add_product``)
D2_QUANTILE_RANGE = (
    "a target minus the targets' quantile is beyond the range of a 64-bit float (that row's loss "
    "under the constant prediction is no float64); scale the targets and the predictions: D^2 does "
    "not change with their scale"
)


def mean_range_why(power: float) -> str:
    """Why D2_TWEEDIE of ``power`` is NaN when a deviance of the targets' mean is beyond float64."""
    return f"a deviance of the targets' mean (power {power:g}) is beyond the range of a 64-bit float"


def mean_low_why(power: float) -> str:
    """Why D2_TWEEDIE of ``power`` is NaN when a step of a deviance of the targets' mean lost its bits
    below float64's normal range (:func:`~perfeval.summaries.regression.low_reason`'s rule).
    """
    return (
        f"a deviance of the targets' mean (power {power:g}) has a step {BELOW} (2.2e-308) that lost bits "
        "it needs; scale the targets and the predictions: D^2 does not change with their scale"
    )


def d2_pinball_parts(s: RegressionSummary, alpha: float) -> tuple[int, int] | Finished:
    """D2_PINBALL's exact numerator and denominator (the model's and the constant alpha-quantile's
    pinball losses, summed, in one scale: ``D2 = 1 - num / den``), or why there is none.
    """
    s.exact("D2_PINBALL", "spos", "sr")
    a = Fraction(float(alpha))
    m, d = a.numerator, a.denominator
    num = m * s.spos + (d - m) * (s.spos - s.sr)
    v, w = s.targets()
    q = weighted_quantile(v, w, float(alpha), eps=SKLEARN_EPS)
    with np.errstate(over="ignore", invalid="ignore"):
        r = v - q
    try:
        if not np.isfinite(r).all():
            raise OverflowError
        (pos, lost1), (tot, lost2) = checked_products(np.maximum(r, 0.0), w), checked_products(r, w)
    except OverflowError:
        return Finished(math.nan, why=D2_QUANTILE_RANGE)
    if lost1 or lost2:
        raise LostBits("D2_PINBALL")
    return num, m * pos + (d - m) * (pos - tot)


def d2_pinball(s: RegressionSummary, alpha: float = 0.5) -> Finished:
    """D^2 of the pinball loss (scikit-learn's ``d2_pinball_score``): ``1 - L(y, yhat) / L(y, q)``,
    ``L`` the weighted pinball loss of ``alpha`` and ``q`` the targets' weighted alpha-quantile
    (:func:`~perfeval.summaries.regression.weighted_quantile`, scikit-learn's rule); both losses
    exact sums (each row's residual rounded once), the ratio rounded once.
    """
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    got = d2_pinball_parts(s, alpha)
    if isinstance(got, Finished):
        return got
    num, den = got
    if den == 0:
        return Finished(math.nan, why=D2_QUANTILE_CONSTANT)
    return _value(den - num, den, _D2_WHAT, scale=False)


def d2_absolute_error(s: RegressionSummary) -> Finished:
    """D^2 of the absolute error (scikit-learn's ``d2_absolute_error_score``): :func:`d2_pinball` at
    alpha 0.5, the targets' weighted median the constant prediction.
    """
    return d2_pinball(s, 0.5)


def mean_domain_why(power: float, mean: float) -> str | None:
    """Why the targets' weighted mean has no Tweedie deviance of ``power``, or None."""
    if (power < 0 or power >= 1) and not mean > 0:
        return (
            f"the targets' weighted mean is {mean!r}: the deviance of power {power:g} needs a mean > 0, so "
            "the constant prediction has none"
        )
    return None


def d2_tweedie_parts(s: RegressionSummary, power: float) -> tuple[int, int] | Finished:
    """D2_TWEEDIE's exact numerator and denominator (the model's deviance and the deviance of the
    targets' weighted mean, each summed over the rows, in one scale), or why there are none.
    """
    total, bad, rows = s.deviance(power)
    if bad:
        return Finished(math.nan, why=domain_why(rows, power))
    if not s.in_range(f"dev{power!r}"):
        return Finished(math.nan, why=deviance_range_reason(power, s.over, scale_free=True))
    if not s.in_range(f"devlow{power!r}"):
        return Finished(math.nan, why=low_reason(power, scale_free=True))
    s.exact("D2_TWEEDIE", "sy", f"dev{power!r}")
    mean = ratio(s.sy, s.weight)
    why = mean_domain_why(power, mean)
    if why:
        return Finished(math.nan, why=why)
    v, w = s.targets()
    dev, _, low = deviance_rows(v, np.full(len(v), mean), power)
    if not np.isfinite(dev[~low]).all():
        return Finished(math.nan, why=mean_range_why(power))
    if low.any():  # the constant prediction's deviance of a row lost its bits (a weight > 0: kept)
        return Finished(math.nan, why=mean_low_why(power))
    den, lost = checked_products(dev, w)
    if lost:
        raise LostBits("D2_TWEEDIE")
    return total, den


def d2_tweedie(s: RegressionSummary, power: float = 0.0) -> Finished:
    """D^2 of the Tweedie deviance (scikit-learn's ``d2_tweedie_score``): ``1 - D(y, yhat) / D(y,
    ybar)``, ``ybar`` the targets' weighted mean (correctly rounded); power 0 is R2 (the sums around
    the mean exact); otherwise both deviances are exact sums of each row's deviance, the ratio
    rounded once.
    """
    power = float(power)
    if not tweedie_power_ok(power):
        return Finished(math.nan, why=f"no Tweedie distribution has power {power:g} (0 < power < 1)")
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    s.exact("D2_TWEEDIE", "sy", "syy")  # the spread W syy - sy^2, read first
    if power == 0 or s.sst()[0] == 0:  # every target equal: no loss, whatever the formula's rounding
        s.exact("D2_TWEEDIE", "srr")
        num, den = s.srr * s.weight, s.sst()[0]
    else:
        got = d2_tweedie_parts(s, power)
        if isinstance(got, Finished):
            return got
        num, den = got
    if den <= 0:
        return Finished(math.nan, why=D2_MEAN_CONSTANT)
    return _value(den - num, den, _D2_WHAT, scale=False)


# -- scikit-learn's max_error and squared log errors --------------------------------------------------
def max_error(s: RegressionSummary) -> Finished:
    """The largest absolute residual ``max |r|`` over the rows of weight > 0 (a weight does not scale
    it: any positive weight counts the row once; scikit-learn's ``max_error`` takes no weights).
    """
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    return Finished(s.maxabs)


def msle(s: RegressionSummary) -> Finished:
    """Mean squared logarithmic error, ``sum w (log1p(y) - log1p(yhat))^2 / sum w`` (scikit-learn's
    ``mean_squared_log_error``), from exact sums; NaN with the reason when a target or a prediction
    is <= -1 (log1p is no number there; scikit-learn raises).
    """
    if s.weight == 0:
        return Finished(math.nan, why=NO_CASE)
    if s.sle_bad:
        return Finished(math.nan, why=log_why(s.sle_bad_rows))
    s.exact("MSLE", "sle")
    return Finished(ratio(s.sle, s.weight))


def rmsle(s: RegressionSummary) -> Finished:
    """Root mean squared logarithmic error: the square root of :func:`msle` (scikit-learn's
    ``root_mean_squared_log_error``).
    """
    f = msle(s)
    return Finished(math.sqrt(f.value), why=f.why) if not math.isnan(f.value) else f
