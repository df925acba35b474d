"""The fairlearn fairness metrics under fairlearn's names, signatures and results, computed by perfeval's
slices (:mod:`perfeval.api.slices`: every slice at once by the grouped engine).

``selection_rate``, ``true_positive_rate``, ``false_positive_rate``, ``true_negative_rate``,
``false_negative_rate``, ``demographic_parity_difference`` / ``_ratio``, ``equalized_odds_difference``
/ ``_ratio`` (``agg="worst_case"`` or ``"mean"``) and ``equal_opportunity_difference`` / ``_ratio``
take fairlearn's arguments (hard predictions ``y_pred``, ``sensitive_features``, ``method``,
``sample_weight``, ``pos_label``) and return fairlearn 0.15's numbers (tests/test_slices_fairlearn.py
runs fairlearn beside each).  fairlearn's ``MetricFrame`` has no function here: ``evaluate(..., by=...)``
and its :class:`~perfeval.api.slices.Slices` are the answer (docs/slices.md gives the translation).

Where fairlearn gives a number perfeval would not, the number is fairlearn's and a warning says so:
a slice without a positive case has a true positive rate of 0 in fairlearn (scikit-learn's
``confusion_matrix(normalize="true")`` makes its 0/0 a 0), and a slice without a negative a false
positive rate of 0; here too, with an :class:`~perfeval.exceptions.UndefinedMeasureWarning` naming
those slices (perfeval's own SEN and FPR are undefined there, NaN).  What differs: weights must be
>= 0 (fairlearn takes negative ones), and a sensitive feature of fractional floats is refused (a
slice is a value; fairlearn groups by each float); a missing value is refused by both.

Examples
--------
>>> y_true = [1, 0, 1, 0, 1, 0, 1, 0]
>>> y_pred = [1, 0, 1, 1, 0, 0, 1, 1]
>>> sex = ["f", "f", "f", "f", "m", "m", "m", "m"]
>>> demographic_parity_difference(y_true, y_pred, sensitive_features=sex)
0.25
>>> equalized_odds_difference(y_true, y_pred, sensitive_features=sex)
0.5
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy as np

from perfeval.api.evaluation import evaluate
from perfeval.api.slices import difference_of, ratio_of
from perfeval.base.checks import to_numpy
from perfeval.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    UndefinedMeasureWarning,
    user_stacklevel,
)

__all__ = [
    "selection_rate",
    "true_positive_rate",
    "true_negative_rate",
    "false_positive_rate",
    "false_negative_rate",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "equal_opportunity_difference",
    "equal_opportunity_ratio",
]

Method = Literal["between_groups", "to_overall"]

#: the rates of hard predictions: the registry measure, and the class whose absence makes it 0/0
_RATES = {
    "tpr": ("SEN", "positive"),
    "fnr": ("FNR", "positive"),
    "fpr": ("FPR", "negative"),
    "tnr": ("SPC", "negative"),
}


def _pair(y_true: Any, y_pred: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    yt, yp = to_numpy(y_true, "y_true"), to_numpy(y_pred, "y_pred")
    if len(yt) != len(yp):
        raise InvalidDataError(f"{where}: y_true and y_pred have different lengths ({len(yt)} and {len(yp)})")
    return yt, yp


def _binary(y_true: Any, y_pred: Any, pos_label: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    """The fairlearn labels of a rate: both arrays' labels together; without ``pos_label`` they are from
    {0, 1} or {-1, 1} and 1 is positive; at most two labels, ``pos_label`` one of them.  The targets and
    the predictions as 0/1 floats.
    """
    yt, yp = _pair(y_true, y_pred, where)
    labels = list(np.unique(np.concatenate((yt, yp)))) if len(yt) else []
    if pos_label is None:
        if not (frozenset([0, 1]).issuperset(labels) or frozenset([-1, 1]).issuperset(labels)):
            raise InvalidDataError(
                f"{where}: without pos_label the labels are 0/1 or -1/1 (1 positive), got "
                f"{', '.join(repr(_plain(v)) for v in labels[:6])}; pass pos_label="
            )
        pos_label = 1
    if len(labels) > 2:
        raise InvalidDataError(
            f"{where}: y_true and y_pred hold {len(labels)} labels together "
            f"({', '.join(repr(_plain(v)) for v in labels[:6])}); a rate of hard predictions has two"
        )
    if len(labels) == 2 and pos_label not in labels:
        raise InvalidDataError(
            f"{where}: pos_label={pos_label!r} is not among the labels "
            f"({', '.join(repr(_plain(v)) for v in labels)})"
        )
    return (yt == pos_label).astype(np.float64), (yp == pos_label).astype(np.float64)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _features(sensitive_features: Any, n: int, where: str) -> dict[str, Any]:
    """The fairlearn sensitive features as ``by=`` columns: a DataFrame's columns, a dict's entries, a
    named Series, a 2-D array's columns (``sensitive_feature_0``, ...) or one array
    (``sensitive_feature_0``).  Several features: their intersection, as fairlearn groups by all.
    """
    if sensitive_features is None:
        raise InvalidParameterError(f"{where}: sensitive_features= is required")
    if hasattr(sensitive_features, "columns") and hasattr(sensitive_features, "iloc"):
        return {str(c): sensitive_features[c] for c in sensitive_features.columns}
    if isinstance(sensitive_features, dict):
        return {str(k): v for k, v in sensitive_features.items()}
    if hasattr(sensitive_features, "name") and hasattr(sensitive_features, "iloc"):
        name = sensitive_features.name
        return {"sensitive_feature_0" if name is None else str(name): sensitive_features}
    a = (
        np.asarray(sensitive_features, dtype=object)
        if isinstance(sensitive_features, list)
        else sensitive_features
    )
    shape = getattr(a, "shape", None)
    if shape is not None and len(shape) == 2:
        return {f"sensitive_feature_{j}": np.asarray(a)[:, j] for j in range(shape[1])}
    return {"sensitive_feature_0": sensitive_features}


def _by_slice(
    y: np.ndarray,
    pred: np.ndarray,
    measures: list[str],
    sensitive_features: Any,
    sample_weight: Any,
    where: str,
) -> tuple[dict[str, float], dict[str, np.ndarray], list, Any]:
    """The overall value and every slice's value of ``measures`` over the intersection of the
    sensitive features, from the 0/1 targets and predictions (the predictions scored at 0.5).
    """
    columns = _features(sensitive_features, len(y), where)
    with warnings.catch_warnings():  # said by the caller, in fairlearn's terms
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        r = evaluate(
            y,
            pred,
            measures=measures,
            sample_weight=sample_weight,
            by=columns,
            intersections=len(columns) > 1,
        )
    s = r.slices.slicing(tuple(columns))  # every feature together: fairlearn's groups
    return {m: r.results[m].value for m in measures}, s.values.values, s.keys, s


def _rates_as_fairlearn(name: str, values: np.ndarray, keys: list | None, where: str) -> np.ndarray:
    """A rate's values as fairlearn gives them: 0 where perfeval's is undefined (no case of the class
    it divides by), said in a warning naming the slices.
    """
    measure, cls = _RATES[name]
    bad = np.isnan(values)
    if bad.any():
        if keys is None:
            said = "the data hold"
        else:
            shown = ", ".join(repr(keys[i]) for i in np.flatnonzero(bad)[:5].tolist())
            many = int(bad.sum())
            said = f"{many} slice{'s' if many > 1 else ''} ({shown}{', ...' if many > 5 else ''}) hold"
        warnings.warn(
            UndefinedMeasureWarning(
                f"{where}: {said} no {cls} case: the rate is 0/0 there, and 0 as fairlearn counts it "
                f"(perfeval's {measure} is undefined there, NaN)"
            ),
            stacklevel=user_stacklevel(),
        )
    return np.where(bad, 0.0, values)


# -- one rate ------------------------------------------------------------------------------------------
def selection_rate(y_true: Any, y_pred: Any, *, pos_label: Any = 1, sample_weight: Any = None) -> float:
    """The fairlearn ``selection_rate``: the share of the cases (their weight) predicted ``pos_label``
    (perfeval's SELRATE of the predictions).  ``y_true`` is only checked for its length.  No case of
    weight > 0: NaN, with a warning (fairlearn: NaN, with numpy's).
    """
    _yt, yp = _pair(y_true, y_pred, "selection_rate")
    if not len(yp):
        raise InvalidDataError("selection_rate: y_pred is empty")
    pred = (yp == pos_label).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        r = evaluate(np.zeros(len(pred)), pred, measures=["selrate"], sample_weight=sample_weight)
    v = float(r["SELRATE"])
    if math.isnan(v):
        warnings.warn(
            UndefinedMeasureWarning("selection_rate: no case of weight > 0 (every weight is 0): NaN"),
            stacklevel=user_stacklevel(),
        )
    return v


def _some_weight(sample_weight: Any, where: str) -> None:
    """Weights that are all 0 refused, as scikit-learn's confusion_matrix refuses them in fairlearn's
    rates.
    """
    if sample_weight is not None:
        w = np.asarray(to_numpy(sample_weight, "sample_weight"), dtype=np.float64)
        if len(w) and not np.any(w != 0):
            raise InvalidDataError(f"{where}: every sample_weight is 0: no case to compute a rate of")


def _rate(name: str, y_true: Any, y_pred: Any, sample_weight: Any, pos_label: Any, where: str) -> float:
    y, pred = _binary(y_true, y_pred, pos_label, where)
    _some_weight(sample_weight, where)
    measure = _RATES[name][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        v = float(evaluate(y, pred, measures=[measure.lower()], sample_weight=sample_weight)[measure])
    return float(_rates_as_fairlearn(name, np.array([v]), None, where)[0])


def true_positive_rate(y_true: Any, y_pred: Any, sample_weight: Any = None, pos_label: Any = None) -> float:
    """The fairlearn ``true_positive_rate``: TP / (TP + FN) of hard predictions (perfeval's SEN); no
    positive case: 0, as fairlearn, with a warning.  Without ``pos_label`` the labels are 0/1 or -1/1.
    """
    return _rate("tpr", y_true, y_pred, sample_weight, pos_label, "true_positive_rate")


def true_negative_rate(y_true: Any, y_pred: Any, sample_weight: Any = None, pos_label: Any = None) -> float:
    """The fairlearn ``true_negative_rate``: TN / (TN + FP) (perfeval's SPC); no negative case: 0."""
    return _rate("tnr", y_true, y_pred, sample_weight, pos_label, "true_negative_rate")


def false_positive_rate(y_true: Any, y_pred: Any, sample_weight: Any = None, pos_label: Any = None) -> float:
    """The fairlearn ``false_positive_rate``: FP / (FP + TN) (perfeval's FPR); no negative case: 0."""
    return _rate("fpr", y_true, y_pred, sample_weight, pos_label, "false_positive_rate")


def false_negative_rate(y_true: Any, y_pred: Any, sample_weight: Any = None, pos_label: Any = None) -> float:
    """The fairlearn ``false_negative_rate``: FN / (TP + FN) (perfeval's FNR); no positive case: 0."""
    return _rate("fnr", y_true, y_pred, sample_weight, pos_label, "false_negative_rate")


# -- gaps between slices -------------------------------------------------------------------------------
def _method(method: Any, where: str) -> str:
    if method not in ("between_groups", "to_overall"):
        raise InvalidParameterError(
            f"{where}: method must be 'between_groups' or 'to_overall', got {method!r}"
        )
    return str(method)


def _agg(agg: Any, where: str) -> str:
    if agg not in ("worst_case", "mean"):
        raise InvalidParameterError(f"{where}: agg must be 'worst_case' or 'mean', got {agg!r}")
    return str(agg)


def _selection(y_true: Any, y_pred: Any, sensitive_features: Any, sample_weight: Any, where: str):
    _yt, yp = _pair(y_true, y_pred, where)
    pred = (yp == 1).astype(np.float64)  # fairlearn's selection_rate at its default pos_label
    overall, values, _keys, _s = _by_slice(
        np.zeros(len(pred)), pred, ["SELRATE"], sensitive_features, sample_weight, where
    )
    return overall["SELRATE"], values["SELRATE"]


def demographic_parity_difference(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
) -> float:
    """The fairlearn ``demographic_parity_difference``: the greatest difference of the selection rate
    (the share predicted 1) between the slices of the sensitive features (``between_groups``), or to
    its overall value (``to_overall``).
    """
    where = "demographic_parity_difference"
    method = _method(method, where)  # type: ignore[assignment]
    overall, values = _selection(y_true, y_pred, sensitive_features, sample_weight, where)
    return difference_of(values, method, overall)


def demographic_parity_ratio(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
) -> float:
    """The fairlearn ``demographic_parity_ratio``: the least ratio of the slices' selection rates (each
    ratio to the overall one, inverted above 1, with ``to_overall``).
    """
    where = "demographic_parity_ratio"
    method = _method(method, where)  # type: ignore[assignment]
    overall, values = _selection(y_true, y_pred, sensitive_features, sample_weight, where)
    return ratio_of(values, method, overall)


def _rates(
    names: tuple[str, ...], y_true: Any, y_pred: Any, sensitive_features: Any, sample_weight: Any, where: str
) -> list[tuple[float, np.ndarray]]:
    """Each rate's overall value and its values by slice, as fairlearn gives them (0 for 0/0)."""
    y, pred = _binary(y_true, y_pred, None, where)
    _some_weight(sample_weight, where)
    measures = [_RATES[n][0] for n in names]
    overall, values, keys, s = _by_slice(y, pred, measures, sensitive_features, sample_weight, where)
    empty = np.flatnonzero(s.values.cases == 0)
    if len(empty):  # scikit-learn's confusion_matrix refuses weights that are all 0, so fairlearn does
        raise InvalidDataError(
            f"{where}: every row of the slice {keys[int(empty[0])]!r} has weight 0: its rates are 0/0 "
            "(fairlearn refuses it: scikit-learn's confusion_matrix takes no weights that are all 0)"
        )
    out = []
    for n, m in zip(names, measures, strict=True):
        whole = float(_rates_as_fairlearn(n, np.array([overall[m]]), None, where)[0])
        out.append((whole, _rates_as_fairlearn(n, values[m], keys, where)))
    return out


def _combined(gaps: list[float], agg: str, worst: Any) -> float:
    """The fairlearn aggregation of the TPR and FPR gaps: Python's ``max`` or ``min`` over them in that
    order (a NaN first wins, as there), or pandas' mean (NaN left out).
    """
    if agg == "worst_case":
        return float(worst(gaps))
    kept = [g for g in gaps if not math.isnan(g)]
    return float(np.mean(kept)) if kept else math.nan


def equalized_odds_difference(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
    agg: Literal["worst_case", "mean"] = "worst_case",
) -> float:
    """The fairlearn ``equalized_odds_difference``: the greater (``agg="worst_case"``) or the mean
    (``"mean"``) of the true positive rate's and the false positive rate's differences between slices.
    """
    where = "equalized_odds_difference"
    agg = _agg(agg, where)  # type: ignore[assignment]
    method = _method(method, where)  # type: ignore[assignment]
    rates = _rates(("tpr", "fpr"), y_true, y_pred, sensitive_features, sample_weight, where)
    return _combined([difference_of(v, method, o) for o, v in rates], agg, max)


def equalized_odds_ratio(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
    agg: Literal["worst_case", "mean"] = "worst_case",
) -> float:
    """The fairlearn ``equalized_odds_ratio``: the smaller (``agg="worst_case"``) or the mean of the true
    and false positive rates' ratios between slices.
    """
    where = "equalized_odds_ratio"
    agg = _agg(agg, where)  # type: ignore[assignment]
    method = _method(method, where)  # type: ignore[assignment]
    rates = _rates(("tpr", "fpr"), y_true, y_pred, sensitive_features, sample_weight, where)
    return _combined([ratio_of(v, method, o) for o, v in rates], agg, min)


def equal_opportunity_difference(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
) -> float:
    """The fairlearn ``equal_opportunity_difference``: the true positive rate's difference between slices."""
    where = "equal_opportunity_difference"
    method = _method(method, where)  # type: ignore[assignment]
    ((o, v),) = _rates(("tpr",), y_true, y_pred, sensitive_features, sample_weight, where)
    return difference_of(v, method, o)


def equal_opportunity_ratio(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
) -> float:
    """The fairlearn ``equal_opportunity_ratio``: the true positive rate's ratio between slices."""
    where = "equal_opportunity_ratio"
    method = _method(method, where)  # type: ignore[assignment]
    ((o, v),) = _rates(("tpr",), y_true, y_pred, sensitive_features, sample_weight, where)
    return ratio_of(v, method, o)
