"""scikit-learn's regression metric names, with its signatures (``sample_weight``, ``multioutput``:
``'raw_values'``, ``'uniform_average'``, ``'variance_weighted'`` where scikit-learn takes it, or
weights a column; ``force_finite``), its results (within 1e-12, relative) and its errors and
warnings (perfeval's exception classes, which are ValueErrors; the condition in scikit-learn's
words, after the function's name).

The numbers come from perfeval's exact regression summary
(:class:`~perfeval.summaries.regression.RegressionSummary`, one a column of the outputs), so that
``mean_squared_error`` is the same number as ``perfeval.evaluate(..., measures=["mse"])``'s
MSE_REG; scikit-learn's own rules apply where perfeval's measures say NaN: MAPE divides by
float64's eps where a target is 0, R2 and the explained variance follow ``force_finite``, a
deviance outside its domain raises.  scikit-learn is never imported.  The differences that remain
are in docs/sklearn.md (weights must be >= 0; R2 of a target with a large mean is exact here).

Examples
--------
>>> mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
0.5
>>> r2_score([[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]], multioutput="raw_values").tolist()
[0.9654377880184332, 0.9081632653061225]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfeval.base.checks import as_array
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.functional.door import check_sample_weight, warn_undefined
from perfeval.measures import regression as R
from perfeval.measures import regression_sklearn as S
from perfeval.summaries.regression import RegressionSummary, no_float, ratio

__all__ = [
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "r2_score",
    "explained_variance_score",
    "mean_absolute_percentage_error",
    "median_absolute_error",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_gamma_deviance",
    "mean_tweedie_deviance",
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "max_error",
    "mean_squared_log_error",
    "root_mean_squared_log_error",
]

Array = np.ndarray
_AVERAGES = ("raw_values", "uniform_average")
_VARIANCE = ("raw_values", "uniform_average", "variance_weighted")


def _targets(
    fn: str, y_true: Any, y_pred: Any, multioutput: Any, allowed: tuple[str, ...]
) -> tuple[Array, Array]:
    """The targets and predictions as float64 (n, k) matrices, checked as scikit-learn's
    ``_check_reg_targets`` checks them; the ``multioutput`` choice checked against ``allowed``.
    """
    mats = []
    for name, x in (("y_true", y_true), ("y_pred", y_pred)):
        a = as_array(x, name)
        try:
            a = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidDataError(f"{fn}: `{name}` must hold numbers: {e}") from None
        if a.ndim == 1:
            a = a.reshape(-1, 1)
        if a.ndim != 2:
            raise InvalidDataError(f"{fn}: `{name}` must be 1-D or 2-D, got shape {a.shape}")
        if a.shape[0] == 0:
            raise InvalidDataError(
                f"{fn}: Found array with 0 sample(s) (shape={a.shape}) while a minimum of 1 is required."
            )
        if np.isnan(a).any():
            raise InvalidDataError(f"{fn}: Input {name} contains NaN.")
        if not np.isfinite(a).all():
            raise InvalidDataError(
                f"{fn}: Input {name} contains infinity or a value too large for dtype('float64')."
            )
        mats.append(a)
    yt, yp = mats
    if yt.shape[0] != yp.shape[0]:
        raise InvalidDataError(
            f"{fn}: Found input variables with inconsistent numbers of samples: "
            f"[{yt.shape[0]}, {yp.shape[0]}]"
        )
    if yt.shape[1] != yp.shape[1]:
        raise InvalidDataError(
            f"{fn}: y_true and y_pred have different number of output ({yt.shape[1]}!={yp.shape[1]})"
        )
    if isinstance(multioutput, str):
        if multioutput not in allowed:
            raise InvalidParameterError(
                f"{fn}: the 'multioutput' parameter must be a str among {set(allowed)} or an array-like. "
                f"Got {multioutput!r} instead."
            )
    elif multioutput is not None or "variance_weighted" not in allowed:
        mw = np.asarray(multioutput, dtype=np.float64) if multioutput is not None else None
        if yt.shape[1] == 1:
            raise InvalidParameterError(f"{fn}: Custom weights are useful only in multi-output cases.")
        if mw is None or mw.shape != (yt.shape[1],):
            n = 0 if mw is None else len(mw.ravel())
            raise InvalidParameterError(
                f"{fn}: There must be equally many custom weights ({n}) as outputs ({yt.shape[1]})."
            )
    return yt, yp


def _weights(fn: str, sample_weight: Any, n: int) -> Array | None:
    return check_sample_weight(fn, sample_weight, n)


def _summaries(yt: Array, yp: Array, w: Array | None, **needs: Any) -> list[RegressionSummary]:
    out = []
    for j in range(yt.shape[1]):
        try:
            out.append(RegressionSummary.from_checked(yt[:, j], yp[:, j], w, **needs))
        except OverflowError as e:
            raise InvalidDataError(str(e)) from None
    return out


def _sure(f: Any) -> float:
    """A measure's value (:class:`~perfeval.measures.multiclass.Finished`), refused in one line where
    it is NaN because a number is beyond float64's range, or a row's deviance lost its bits below its
    normal range (:func:`~perfeval.summaries.regression.no_float`; its reason: scikit-learn would give
    inf, NaN or a wrong number; a function of one value has no room for the reason beside a NaN).
    """
    if math.isnan(f.value) and no_float(f.why):
        raise InvalidDataError(f.why)
    return float(f.value)


def _average(errors: Array, multioutput: Any) -> float | Array:
    """scikit-learn's average over the outputs: the values, their mean, or their weighted mean."""
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return errors
        return float(np.average(errors))
    return float(np.average(errors, weights=np.asarray(multioutput, dtype=np.float64)))


def _mean_of(
    fn: str, y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any
) -> tuple[list[RegressionSummary], Any]:
    yt, yp = _targets(fn, y_true, y_pred, multioutput, _AVERAGES)
    return _summaries(yt, yp, _weights(fn, sample_weight, len(yt))), multioutput


def mean_absolute_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``mean_absolute_error`` (perfeval's MAE, a column of the outputs each)."""
    sums, mo = _mean_of("mean_absolute_error", y_true, y_pred, sample_weight, multioutput)
    return _average(np.array([_sure(R.mae(s)) for s in sums]), mo)


def mean_squared_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``mean_squared_error`` (perfeval's MSE_REG)."""
    sums, mo = _mean_of("mean_squared_error", y_true, y_pred, sample_weight, multioutput)
    return _average(np.array([_sure(R.mse(s)) for s in sums]), mo)


def root_mean_squared_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``root_mean_squared_error`` (perfeval's RMSE_REG: each output's root, then the
    average).
    """
    sums, mo = _mean_of("root_mean_squared_error", y_true, y_pred, sample_weight, multioutput)
    return _average(np.array([_sure(R.rmse(s)) for s in sums]), mo)


def mean_absolute_percentage_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``mean_absolute_percentage_error``: a target of 0 divides by float64's eps
    (perfeval's MAPE says NaN there instead).
    """
    sums, mo = _mean_of("mean_absolute_percentage_error", y_true, y_pred, sample_weight, multioutput)
    for s in sums:
        s.exact("MAPE", "sape")
    return _average(np.array([_sure(R.mape(s, eps="sklearn")) for s in sums]), mo)


def median_absolute_error(
    y_true: Any, y_pred: Any, *, multioutput: Any = "uniform_average", sample_weight: Any = None
) -> float | Array:
    """scikit-learn's ``median_absolute_error`` (numpy's median; weighted: its averaged inverted CDF,
    a cumulative weight within float64's eps of half the total averaging two values).
    """
    fn = "median_absolute_error"
    yt, yp = _targets(fn, y_true, y_pred, multioutput, _AVERAGES)
    w = _weights(fn, sample_weight, len(yt))
    errors = [S.median(np.abs(yp[:, j] - yt[:, j]), w) for j in range(yt.shape[1])]
    return _average(np.array(errors), multioutput)


def mean_pinball_loss(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    alpha: float = 0.5,
    multioutput: Any = "uniform_average",
) -> float | Array:
    """scikit-learn's ``mean_pinball_loss`` (perfeval's PINBALL)."""
    fn = "mean_pinball_loss"
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise InvalidParameterError(
            f"{fn}: The 'alpha' parameter of mean_pinball_loss must be a float in the range [0.0, 1.0]. "
            f"Got {alpha!r} instead."
        )
    sums, mo = _mean_of(fn, y_true, y_pred, sample_weight, multioutput)
    return _average(np.array([_sure(R.pinball(s, float(alpha))) for s in sums]), mo)


def _explained(
    fn: str, y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any, force_finite: bool, centred: bool
) -> float | Array:
    yt, yp = _targets(fn, y_true, y_pred, multioutput, _VARIANCE)
    w = _weights(fn, sample_weight, len(yt))
    if fn == "r2_score" and len(yt) < 2:
        warn_undefined("R^2 score is not well-defined with less than two samples.")
        return math.nan
    sums = _summaries(yt, yp, w)
    scores = np.array([S.explained(s, centred=centred, force_finite=force_finite) for s in sums])
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return scores
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        if not any(s.sst()[0] != 0 for s in sums):  # every target constant: uniform weights
            return float(np.average(scores))
        var = np.array([ratio(*s.sst()) for s in sums])
        return float(np.average(scores, weights=var))
    return _average(scores, "uniform_average" if multioutput is None else multioutput)


def r2_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> float | Array:
    """scikit-learn's ``r2_score`` (perfeval's R2: the total sum of squares exact), with its
    ``force_finite`` rule for a constant target (1 for a perfect prediction, else 0).
    """
    return _explained("r2_score", y_true, y_pred, sample_weight, multioutput, force_finite, False)


def explained_variance_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> float | Array:
    """scikit-learn's ``explained_variance_score`` (perfeval's EXPVAR)."""
    return _explained(
        "explained_variance_score", y_true, y_pred, sample_weight, multioutput, force_finite, True
    )


def _deviance(
    fn: str, y_true: Any, y_pred: Any, sample_weight: Any, power: float, *, d2: bool = False
) -> float:
    yt, yp = _targets(fn, y_true, y_pred, "uniform_average", _AVERAGES)
    if yt.shape[1] != 1:
        if d2:
            raise InvalidDataError(f"{fn}: Multioutput not supported in d2_tweedie_score")
        raise InvalidDataError(f"{fn}: y_true and y_pred must be 1-D (one output), got {yt.shape[1]} columns")
    y, p = yt[:, 0], yp[:, 0]
    w = _weights(fn, sample_weight, len(y))
    if d2 and len(y) < 2:
        warn_undefined("D^2 score is not well-defined with less than two samples.")
        return math.nan
    refused = S.deviance_refusal(y, p, power)
    if refused:
        raise InvalidDataError(
            f"{fn}: Mean Tweedie deviance error with power={power:g} can only be used on {refused}"
        )
    (s,) = _summaries(yt, yp, w, powers=(float(power),))
    if not d2:
        return _sure(R.tweedie_deviance(s, float(power)))
    got = S.d2_tweedie(s, y, w, float(power))
    if got is None:
        raise InvalidDataError(
            f"{fn}: the deviance of the targets' weighted mean is 0 (every target equal), so the fraction "
            "explained is 0/0 or -inf (scikit-learn raises ZeroDivisionError here)"
        )
    return got


def mean_tweedie_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0) -> float:
    """scikit-learn's ``mean_tweedie_deviance`` (perfeval's TWEEDIE_DEV)."""
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not R.tweedie_power_ok(float(power)):
        raise InvalidParameterError(
            "mean_tweedie_deviance: The 'power' parameter of mean_tweedie_deviance must be a float in the "
            f"range (-inf, 0.0] or a float in the range [1.0, inf). Got {power!r} instead."
        )
    return _deviance("mean_tweedie_deviance", y_true, y_pred, sample_weight, float(power))


def mean_poisson_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``mean_poisson_deviance`` (perfeval's POISSON_DEV)."""
    return _deviance("mean_poisson_deviance", y_true, y_pred, sample_weight, 1.0)


def mean_gamma_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``mean_gamma_deviance`` (perfeval's GAMMA_DEV)."""
    return _deviance("mean_gamma_deviance", y_true, y_pred, sample_weight, 2.0)


def d2_tweedie_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0) -> float:
    """scikit-learn's ``d2_tweedie_score`` (perfeval's D2_TWEEDIE): the fraction of the Tweedie
    deviance explained against the targets' weighted mean; fewer than two samples NaN with
    scikit-learn's warning; every target equal an error (scikit-learn's division by zero).
    """
    fn = "d2_tweedie_score"
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not R.tweedie_power_ok(float(power)):
        raise InvalidParameterError(
            f"{fn}: The 'power' parameter of mean_tweedie_deviance must be a float in the range (-inf, 0.0] "
            f"or a float in the range [1.0, inf). Got {power!r} instead."
        )
    return _deviance(fn, y_true, y_pred, sample_weight, float(power), d2=True)


def d2_pinball_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    alpha: float = 0.5,
    multioutput: Any = "uniform_average",
) -> float | Array:
    """scikit-learn's ``d2_pinball_score`` (perfeval's D2_PINBALL): ``1 - L(y, yhat) / L(y, q)``, ``q``
    the targets' weighted alpha-quantile by scikit-learn's rule; a perfect prediction 1 and a
    constant target 0 (its ``force_finite``); fewer than two samples NaN with its warning.
    """
    return _d2_pinball("d2_pinball_score", y_true, y_pred, sample_weight, alpha, multioutput)


def d2_absolute_error_score(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``d2_absolute_error_score`` (perfeval's D2_AE): :func:`d2_pinball_score` at
    alpha 0.5.
    """
    return _d2_pinball("d2_absolute_error_score", y_true, y_pred, sample_weight, 0.5, multioutput)


def _d2_pinball(
    fn: str, y_true: Any, y_pred: Any, sample_weight: Any, alpha: Any, multioutput: Any
) -> float | Array:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise InvalidParameterError(
            f"{fn}: The 'alpha' parameter of d2_pinball_score must be a float in the range [0.0, 1.0]. "
            f"Got {alpha!r} instead."
        )
    yt, yp = _targets(fn, y_true, y_pred, multioutput, _AVERAGES)
    w = _weights(fn, sample_weight, len(yt))
    if len(yt) < 2:
        warn_undefined("D^2 score is not well-defined with less than two samples.")
        return math.nan
    scores = np.array([S.d2_pinball(s, float(alpha)) for s in _summaries(yt, yp, w, ydist=True)])
    return _average(scores, multioutput)


def max_error(y_true: Any, y_pred: Any) -> float:
    """scikit-learn's ``max_error`` (perfeval's MAXERR): the largest absolute residual, of one output
    (no weights, as scikit-learn's).
    """
    fn = "max_error"
    yt, yp = _targets(fn, y_true, y_pred, "uniform_average", _AVERAGES)
    if yt.shape[1] != 1:
        raise InvalidDataError(f"{fn}: Multioutput not supported in max_error")
    (s,) = _summaries(yt, yp, None, maxerr=True)
    return R.max_error(s).value


def _log_error(
    fn: str, what: str, y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any, root: bool
) -> float | Array:
    yt, yp = _targets(fn, y_true, y_pred, multioutput, _AVERAGES)
    w = _weights(fn, sample_weight, len(yt))
    if (yt <= -1).any() or (yp <= -1).any():  # every row, a weight of 0 too, as scikit-learn checks
        raise InvalidDataError(
            f"{fn}: {what} cannot be used when targets contain values less than or equal to -1."
        )
    measure = R.rmsle if root else R.msle
    return _average(np.array([_sure(measure(s)) for s in _summaries(yt, yp, w, msle=True)]), multioutput)


def mean_squared_log_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``mean_squared_log_error`` (perfeval's MSLE): a target or a prediction <= -1
    raises, as scikit-learn's does.
    """
    return _log_error(
        "mean_squared_log_error",
        "Mean Squared Logarithmic Error",
        y_true,
        y_pred,
        sample_weight,
        multioutput,
        False,
    )


def root_mean_squared_log_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> float | Array:
    """scikit-learn's ``root_mean_squared_log_error`` (perfeval's RMSLE: each output's root, then the
    average).
    """
    return _log_error(
        "root_mean_squared_log_error",
        "Root Mean Squared Logarithmic Error",
        y_true,
        y_pred,
        sample_weight,
        multioutput,
        True,
    )
