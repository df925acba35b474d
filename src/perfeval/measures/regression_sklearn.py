"""scikit-learn's rules for the regression measures, one output at a time: what its functions give
where perfeval's measures say NaN or take another convention (``force_finite``, the eps of its
weighted median, the mean of ``d2_tweedie_score``, the domains its deviances refuse).

:mod:`perfeval.functional.sklearn_regression` (scikit-learn's names and signatures, several outputs)
and the scikit-learn row of ``perfeval.explain`` of a regression target
(:mod:`perfeval.api.regression_explanation`) both compute with these, from perfeval's exact summary;
tests/test_regression_sklearn.py checks the numbers against scikit-learn itself.
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.exceptions import InvalidDataError
from perfeval.measures import regression as R
from perfeval.summaries.regression import (
    SKLEARN_EPS,
    LostBits,
    RegressionSummary,
    checked_products,
    deviance_range_reason,
    deviance_rows,
    low_reason,
    ratio,
    weighted_median,
)

__all__ = [
    "explained",
    "median",
    "deviance_refusal",
    "unit_deviance",
    "d2_pinball",
    "d2_tweedie",
]

Array = np.ndarray


def explained(s: RegressionSummary, *, centred: bool, force_finite: bool) -> float:
    """``r2_score`` (``centred=False``) or ``explained_variance_score`` of one output: the fraction of
    the variance explained from exact sums; a target of variance 0 is 1 for a perfect prediction and
    0 otherwise (``force_finite``), else NaN or -inf.  Refused (:class:`LostBits`) where a product
    of its sums lost bits below ``2**-1074``.
    """
    s.exact("EXPVAR" if centred else "R2", "sy", "syy", "srr", *(("sr",) if centred else ()))
    d, _ = s.sst()
    n = s.ssr_centered()[0] if centred else s.srr * s.weight
    if d != 0:
        return ratio(d - n, d) if (n != 0 or not force_finite) else 1.0
    if force_finite:
        return 0.0 if n != 0 else 1.0
    return -math.inf if n != 0 else math.nan


def median(a: Array, w: Array | None) -> float:
    """``median_absolute_error`` of one output from the rows' ``|r|`` (weights with zeros allowed):
    numpy's median, or the averaged inverted CDF whose cumulative weight within float64's eps of half
    the total averages two values.
    """
    if w is None:
        return float(np.median(a))
    keep = w > 0
    order = np.lexsort((w[keep], a[keep]))
    return weighted_median(a[keep][order], w[keep][order], eps=SKLEARN_EPS)


def deviance_refusal(y: Array, p: Array, power: float) -> str | None:
    """What scikit-learn's ``mean_tweedie_deviance`` of ``power`` says the rows must be, when a row
    is not (its words after 'can only be used on '), or None.
    """
    if power < 0 and (p <= 0).any():
        return "strictly positive y_pred."
    if 1 <= power < 2 and ((y < 0).any() or (p <= 0).any()):
        return "non-negative y and strictly positive y_pred."
    if power >= 2 and ((y <= 0).any() or (p <= 0).any()):
        return "strictly positive y and y_pred."
    return None


def unit_deviance(y: Array, mu: Array, p: float) -> Array:
    """scikit-learn's ``_mean_tweedie_deviance`` terms, row by row, with no domain check (its
    denominator of ``d2_tweedie_score``: the deviance of the targets' mean; NaN or inf as numpy
    gives them).
    """
    with np.errstate(all="ignore"):
        if p < 0:
            return 2 * (
                np.power(np.where(y > 0, y, 0.0), 2 - p) / ((1 - p) * (2 - p))
                - y * np.power(mu, 1 - p) / (1 - p)
                + np.power(mu, 2 - p) / (2 - p)
            )
        if p == 0:
            return (y - mu) ** 2
        if p == 1:
            return 2 * (np.where(y == 0, 0.0, y * np.log(y / mu)) - y + mu)
        if p == 2:
            return 2 * (np.log(mu / y) + y / mu - 1)
        return 2 * (
            np.power(y, 2 - p) / ((1 - p) * (2 - p))
            - y * np.power(mu, 1 - p) / (1 - p)
            + np.power(mu, 2 - p) / (2 - p)
        )


def d2_tweedie(s: RegressionSummary, y: Array, w: Array | None, p: float) -> float | None:
    """``d2_tweedie_score`` of the rows ``y`` (weights ``w``, zeros allowed; ``s`` their summary,
    keeping the deviance of ``p``), or None where scikit-learn divides by zero (every target equal):
    ``1 - D(y, yhat) / D(y, ybar)``, the model's deviance the summary's exact sum, the mean's the
    exact sum of scikit-learn's terms at scikit-learn's weighted mean (numpy's ``sum(w y) / sum(w)``
    of the rows as given: the mean's last bit moves the terms of a nearly constant target), the ratio
    rounded once; NaN or inf where scikit-learn's terms give them.  (perfeval's D2_TWEEDIE takes the
    correctly rounded mean instead, which no order of the rows changes.)

    Raises
    ------
    InvalidDataError
        A row's deviance (of the prediction, or of that mean: a weight > 0) is no float64: beyond
        the range, or a step of it lost its bits below the normal range
        (:func:`~perfeval.summaries.regression.deviance_rows`' ``low``), where scikit-learn's is
        inf, NaN or a wrong number: the reason, in one line (such a row is left out of the sums).
    """
    num, _, _ = s.deviance(p)
    if not s.in_range(f"dev{p!r}"):
        raise InvalidDataError(deviance_range_reason(p, s.over, scale_free=True))
    if not s.in_range(f"devlow{p!r}"):
        raise InvalidDataError(low_reason(p, scale_free=True))
    s.exact("D2_TWEEDIE", f"dev{p!r}")
    with np.errstate(all="ignore"):
        mean = float(np.mean(y)) if w is None else float(np.sum(y * w) / np.sum(w))
    low = deviance_rows(y, np.full(len(y), mean), p)[2]
    if (low if w is None else low & (w > 0)).any():
        raise InvalidDataError(R.mean_low_why(p))
    dev = unit_deviance(y, np.full(len(y), mean), p)
    if np.isnan(dev).any() or (w is not None and np.isinf(dev[w == 0]).any()):
        return math.nan  # numpy's average: NaN, and inf times a weight of 0
    keep = slice(None) if w is None else w > 0
    dev, ww = dev[keep], (None if w is None else w[keep])
    if not np.isfinite(dev).all():
        return 1.0 - ratio(num, s.weight) / math.inf
    try:
        den, lost = checked_products(dev, ww)
    except OverflowError:
        return 1.0 - ratio(num, s.weight) / float(np.average(dev, weights=ww))
    if lost:
        raise LostBits("D2_TWEEDIE")
    if den == 0:
        return None
    return ratio(den - num, den)


def d2_pinball(s: RegressionSummary, alpha: float) -> float:
    """``d2_pinball_score`` of one output (``s`` keeping the targets): perfeval's D2_PINBALL where the
    quantile's loss is not 0; a perfect prediction 1 and otherwise 0 where it is (``force_finite``).
    """
    got = R.d2_pinball_parts(s, float(alpha))
    if isinstance(got, R.Finished):
        return math.nan
    num, den = got
    if num == 0:
        return 1.0
    if den == 0:
        return 0.0
    return ratio(den - num, den)
