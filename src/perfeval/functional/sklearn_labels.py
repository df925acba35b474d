"""scikit-learn's label-based metric names (hard predictions), binary, multiclass and multilabel.

Each function takes scikit-learn's arguments (``y_true``, ``y_pred`` as class labels or as 0/1
indicator matrices, ``labels``, ``pos_label``, ``average``, ``sample_weight``, ``zero_division``,
...) and returns what scikit-learn 1.9 returns, with its warnings and its errors (perfeval's
exception classes, which are ValueErrors).  The numbers come from perfeval's kernels
(:mod:`perfeval.measures.confusion`: a K x K confusion matrix counted once, or per-label 2 x 2
counts), which give NaN for 0/0; scikit-learn's rules for those (``zero_division``, its
``UndefinedMetricWarning`` texts, under :class:`~perfeval.exceptions.UndefinedMeasureWarning`) are
applied here.  scikit-learn is never imported.  The differences that remain are in docs/sklearn.md
(weights must be >= 0; a multilabel indicator holds 0 and 1 only).

Examples
--------
>>> f1_score([0, 1, 2, 2], [0, 2, 2, 1], average="macro")
0.5
>>> precision_score(["cat", "dog", "dog"], ["cat", "dog", "cat"], average=None).tolist()
[0.5, 1.0]
>>> hamming_loss([[1, 0, 1], [0, 1, 0]], [[1, 1, 1], [0, 1, 0]])
0.16666666666666666
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval.base.checks import as_array, floats, label_values, to_numpy
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.functional.door import check_sample_weight, class_labels, label_indices, warn_undefined
from perfeval.functional.sklearn_names import hard_labels
from perfeval.measures import confusion as K
from perfeval.measures import get_measure
from perfeval.summaries import ScoreHistogram

__all__ = [
    "accuracy_score",
    "balanced_accuracy_score",
    "precision_score",
    "recall_score",
    "f1_score",
    "fbeta_score",
    "precision_recall_fscore_support",
    "matthews_corrcoef",
    "cohen_kappa_score",
    "confusion_matrix",
    "multilabel_confusion_matrix",
    "hamming_loss",
    "jaccard_score",
    "classification_report",
]

Array = np.ndarray
MULTILABEL = "multilabel-indicator"


# -- the door: scikit-learn's _check_targets -------------------------------------------------------------
@dataclass
class Targets:
    """Checked targets: their type (``"binary"``, ``"multiclass"`` or ``"multilabel-indicator"``),
    the sorted labels of both (``0 .. K-1`` for indicators), the two arrays (1-D labels, or (n, K)
    boolean indicators) and the weights (None: all 1).
    """

    kind: str
    present: Array
    y_true: Array
    y_pred: Array
    w: Array | None


def _indicator(fn: str, a: Array, name: str) -> Array:
    """A 2-D 0/1 indicator matrix as booleans; anything else a data error."""
    if a.dtype.kind == "b":
        return a
    if a.dtype.kind not in "iuf":
        a = floats(a, name, where=fn)
    bad = (a != 0) & (a != 1)
    if bad.any():
        i, j = np.unravel_index(int(np.argmax(bad)), a.shape)
        raise InvalidDataError(
            f"{fn}: `{name}` is 2-D (multilabel) but holds {a[i, j].item()!r} at row {i}, column {j}; "
            "a multilabel indicator holds 0 and 1 only"
        )
    return a != 0


def targets(fn: str, y_true: Any, y_pred: Any, sample_weight: Any) -> Targets:
    """scikit-learn's ``_check_targets``: 1-D labels (binary: at most two labels in both, else
    multiclass) or two (n, K) indicator matrices (multilabel); a mix of the two, continuous values
    or mixed label types are data errors; the weights checked (>= 0, not all 0).
    """
    a, b = as_array(y_true, "y_true"), as_array(y_pred, "y_pred")
    ml = [x.ndim == 2 and x.shape[1] > 1 for x in (a, b)]
    if ml[0] and ml[1]:
        if len(a) != len(b):
            raise InvalidDataError(
                f"{fn}: `y_true` and `y_pred` have different lengths, {len(a)} and {len(b)}"
            )
        if a.shape[1] != b.shape[1]:
            raise InvalidDataError(
                f"{fn}: Multi-label binary indicator input with different numbers of labels "
                f"({a.shape[1]} in y_true, {b.shape[1]} in y_pred)"
            )
        if len(a) == 0:
            raise InvalidDataError(f"{fn}: `y_true` is empty; at least one case is needed")
        yt, yp = _indicator(fn, a, "y_true"), _indicator(fn, b, "y_pred")
        w = check_sample_weight(fn, sample_weight, len(yt))
        return Targets(MULTILABEL, np.arange(yt.shape[1]), yt, yp, w)
    if ml[0] or ml[1]:
        other = class_labels(fn, to_numpy(y_pred if ml[0] else y_true, "y_pred" if ml[0] else "y_true"))
        kinds = [MULTILABEL, "binary" if len(other) <= 2 else "multiclass"]
        first, second = kinds if ml[0] else kinds[::-1]
        raise InvalidDataError(
            f"{fn}: Classification metrics can't handle a mix of {first} and {second} targets"
        )
    yt, yp, present, w = hard_labels(fn, y_true, y_pred, sample_weight)
    return Targets("binary" if len(present) <= 2 else "multiclass", present, yt, yp, w)


def _not_multilabel(fn: str, t: Targets) -> None:
    if t.kind == MULTILABEL:
        raise InvalidDataError(f"{fn}: multilabel-indicator is not supported")


def _codes(fn: str, values: Array, labels: Array) -> Array:
    return label_indices(values, labels)


def _full_labels(fn: str, present: Array, given: Array) -> Array:
    """``given`` followed by the present labels it lacks (scikit-learn's ``multilabel_confusion_matrix``)."""
    try:
        rest = np.setdiff1d(present, given)
        return np.concatenate([given, rest]) if len(rest) else given
    except TypeError:
        raise InvalidParameterError(
            f"{fn}: `labels` ({label_values(given)}) are not of the type of the labels of y_true and "
            f"y_pred ({label_values(present)})"
        ) from None


def _given_labels(fn: str, labels: Any) -> Array:
    lab = to_numpy(labels, "labels")
    return lab


# -- per-label counts: scikit-learn's multilabel_confusion_matrix ----------------------------------------
def _counts(fn: str, t: Targets, labels: Any, samplewise: bool = False) -> tuple[Array, Array, Array, Array]:
    """(tp, fp, fn, tn) per label of ``labels`` (default: the present ones), or per sample, weighted."""
    if t.kind != MULTILABEL:
        if samplewise:
            raise InvalidDataError(
                f"{fn}: Samplewise metrics are not available outside of multilabel classification."
            )
        given = t.present if labels is None else _given_labels(fn, labels)
        full = t.present if labels is None else _full_labels(fn, t.present, given)
        k = len(full)
        tp, pred, true = K.class_totals(_codes(fn, t.y_true, full), _codes(fn, t.y_pred, full), k, t.w)
        total = float(len(t.y_true) if t.w is None else t.w.sum())
        sel = np.arange(len(given))
        tp, pred, true = tp[sel], pred[sel], true[sel]
        fp, fn_ = pred - tp, true - tp
        return tp, fp, fn_, total - tp - fp - fn_  # scikit-learn's order of the sums
    yt, yp = t.y_true, t.y_pred
    if labels is not None:
        lab = _given_labels(fn, labels)
        if not np.array_equal(lab, t.present):
            if lab.dtype.kind not in "iub" and len(lab):
                raise InvalidParameterError(
                    f"{fn}: labels of multilabel targets are column numbers in [0, n labels); got "
                    f"{label_values(lab)}"
                )
            if len(lab) and lab.max() > t.present.max():
                raise InvalidDataError(
                    f"{fn}: All labels must be in [0, n labels) for multilabel targets. "
                    f"Got {lab.max()} > {t.present.max()}"
                )
            if len(lab) and lab.min() < 0:
                raise InvalidDataError(
                    f"{fn}: All labels must be in [0, n labels) for multilabel targets. Got {lab.min()} < 0"
                )
        yt, yp = yt[:, lab.astype(np.intp)], yp[:, lab.astype(np.intp)]
    tp, pred, true = K.label_totals(yt, yp, t.w, axis=1 if samplewise else 0)
    fp, fn_ = pred - tp, true - tp
    if samplewise:  # the true negatives as scikit-learn takes them: what the other three leave
        cells: Any = yt.shape[1] if t.w is None else t.w * yt.shape[1]
    else:
        cells = float(len(yt) if t.w is None else np.sum(t.w))
    return tp, fp, fn_, cells - tp - fp - fn_


def multilabel_confusion_matrix(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, labels: Any = None, samplewise: bool = False
) -> Array:
    """scikit-learn's ``multilabel_confusion_matrix``: one 2 x 2 matrix ``[[tn, fp], [fn, tp]]`` a label.

    Multiclass labels: each class against the rest, in the order of ``labels`` (default: the sorted
    labels of both); multilabel indicators: each column (``labels``: column numbers), or with
    ``samplewise`` each row.  Integer counts unless weighted.

    Examples
    --------
    >>> multilabel_confusion_matrix([0, 1, 2], [0, 2, 2]).tolist()
    [[[2, 0], [0, 1]], [[2, 0], [1, 0]], [[1, 1], [0, 1]]]
    """
    fn = "multilabel_confusion_matrix"
    t = targets(fn, y_true, y_pred, sample_weight)
    tp, fp, fn_, tn = _counts(fn, t, labels, samplewise)
    out = np.stack([tn, fp, fn_, tp]).T.reshape(-1, 2, 2)
    return out if _weighted_floats(t, sample_weight, samplewise) else np.rint(out).astype(np.int64)


def _weighted_floats(t: Targets, sample_weight: Any, samplewise: bool = False) -> bool:
    """Whether scikit-learn's per-label counts are floats: weighted (per sample in a multilabel
    problem: by non-integer weights), or, multiclass, where no case is predicted right (its counts of
    true positives start as float zeros then).
    """
    if t.kind != MULTILABEL:
        return sample_weight is not None or not bool(np.any(t.y_true == t.y_pred))
    if samplewise:
        return sample_weight is not None and np.asarray(sample_weight).dtype.kind not in "iub"
    return sample_weight is not None


# -- precision, recall, F ---------------------------------------------------------------------------------
_AVERAGES = (None, "micro", "macro", "weighted", "samples")


def _zero_division(fn: str, zero_division: Any) -> float:
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        if zero_division in (0, 1):
            return float(zero_division)
        if math.isnan(zero_division):
            return float("nan")
    raise InvalidParameterError(
        f"{fn}: zero_division must be 'warn', 0.0, 1.0 or np.nan, got {zero_division!r}"
    )


def _set_wise_labels(fn: str, t: Targets, average: Any, labels: Any, pos_label: Any) -> Any:
    """scikit-learn's ``_check_set_wise_labels``: the labels to score."""
    if average not in _AVERAGES and average != "binary":
        raise InvalidParameterError(
            f"{fn}: average has to be one of {_AVERAGES} or 'binary', got {average!r}"
        )
    if average == "binary":
        if t.kind == "binary":
            present = t.present.tolist()
            if pos_label not in present and len(present) >= 2:
                raise InvalidDataError(
                    f"{fn}: pos_label={pos_label!r} is not a valid label. It should be one of "
                    f"[{label_values(t.present)}]"
                )
            if pos_label is None:  # one label present (scikit-learn: a TypeError of comparing None)
                raise InvalidParameterError(
                    f"{fn}: pos_label=None with average='binary': name the positive label, or choose "
                    "another average"
                )
            return np.array([pos_label])
        options = [o for o in _AVERAGES if o != "samples" or t.kind != "multiclass"]
        raise InvalidDataError(
            f"{fn}: Target is {t.kind} but average='binary'. Please choose another average setting, "
            f"one of {options!r}."
        )
    if pos_label not in (None, 1):
        warnings.warn(
            f"Note that pos_label (set to {pos_label!r}) is ignored when average != 'binary' (got "
            f"{average!r}). You may use labels=[pos_label] to specify a single positive class.",
            UserWarning,
            stacklevel=3,
        )
    return labels


def _warn_prf(average: Any, modifier: str, msg_start: str, result_size: int) -> None:
    axis0, axis1 = ("label", "sample") if average == "samples" else ("sample", "label")
    where = "due to" if result_size == 1 else f"in {axis1}s with"
    warn_undefined(
        f"{msg_start} ill-defined and being set to 0.0 {where} no {modifier} {axis0}s. "
        "Use `zero_division` parameter to control this behavior."
    )


def _apply_zero_division(
    values: Array, metric: str, modifier: str, average: Any, warn_for: Any, zero_division: Any, zero: float
) -> Array:
    """scikit-learn's ``_prf_divide`` after the division: 0/0 (NaN from the kernel) set to ``zero``,
    with its warning where ``zero_division="warn"`` and the metric is one of ``warn_for``.
    """
    undefined = np.isnan(values)
    if not undefined.any():
        return values
    out = np.where(undefined, zero, values)
    if isinstance(zero_division, str) and zero_division == "warn" and metric in warn_for:
        _warn_prf(average, modifier, f"{metric.capitalize()} is", len(values))
    return out


def _nanaverage(a: Array, weights: Array | None) -> float:
    """scikit-learn's ``_nanaverage``: the (weighted) mean of the non-NaN values; all NaN: NaN;
    weights summing to 0: the unweighted mean.
    """
    keep = ~np.isnan(a)
    if len(a) == 0 or not keep.any():
        return float("nan")
    if weights is None:
        return float(np.mean(a[keep]))
    wk = np.asarray(weights, dtype=np.float64)[keep]
    if wk.sum() == 0:
        return float(np.mean(a[keep]))
    return float(np.average(a[keep], weights=wk))


def _prfs(
    fn: str,
    y_true: Any,
    y_pred: Any,
    *,
    beta: float,
    labels: Any,
    pos_label: Any,
    average: Any,
    warn_for: Any,
    sample_weight: Any,
    zero_division: Any,
) -> tuple[Any, Any, Any, Any]:
    """scikit-learn's ``precision_recall_fscore_support``, from the kernels' per-label counts."""
    zero = _zero_division(fn, zero_division)
    t = targets(fn, y_true, y_pred, sample_weight)
    labels = _set_wise_labels(fn, t, average, labels, pos_label)
    samplewise = average == "samples"
    tp, fp, fn_, _tn = _counts(fn, t, labels, samplewise)
    pred, true = tp + fp, tp + fn_
    if average == "micro":
        tp, pred, true = tp.sum(keepdims=True), pred.sum(keepdims=True), true.sum(keepdims=True)
    p, r, f = K.precision_recall_fbeta(tp, pred, true, beta)
    p = _apply_zero_division(p, "precision", "predicted", average, warn_for, zero_division, zero)
    r = _apply_zero_division(r, "recall", "true", average, warn_for, zero_division, zero)
    if np.isposinf(beta):
        f = r
    elif beta == 0:
        f = p
    else:
        f = _apply_zero_division(f, "f-score", "true nor predicted", average, warn_for, zero_division, zero)
    if average is None:
        support = (
            true if _weighted_floats(t, sample_weight) or t.w is not None else np.rint(true).astype(np.int64)
        )
        return p, r, f, support
    weights = true if average == "weighted" else t.w if average == "samples" else None
    return _nanaverage(p, weights), _nanaverage(r, weights), _nanaverage(f, weights), None


def _check_beta(fn: str, beta: Any) -> float:
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not float(beta) >= 0:
        raise InvalidParameterError(f"{fn}: beta must be a number >= 0, got {beta!r}")
    return float(beta)


def precision_recall_fscore_support(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = None,
    warn_for: Any = ("precision", "recall", "f-score"),
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> tuple[Any, Any, Any, Any]:
    """scikit-learn's ``precision_recall_fscore_support``: per label (``average=None``) precision,
    recall, F-beta and support (the true weight of the label), or their average with support None.

    ``average``: ``"binary"`` (``pos_label`` only), ``"micro"`` (of the summed counts),
    ``"macro"``, ``"weighted"`` (by support), ``"samples"`` (multilabel: per case, then the mean
    weighted by ``sample_weight``).  A 0/0 is ``zero_division`` (``"warn"``: 0.0 with
    scikit-learn's warning for the metrics of ``warn_for``; ``np.nan``: left out of the averages).

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 2, 2], [0, 1, 1, 2])
    >>> p.tolist(), r.tolist(), s.tolist()
    ([1.0, 0.5, 1.0], [1.0, 1.0, 0.5], [1, 1, 2])
    """
    fn = "precision_recall_fscore_support"
    return _prfs(
        fn,
        y_true,
        y_pred,
        beta=_check_beta(fn, beta),
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=warn_for,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def precision_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``precision_score``: TP / (TP + FP), of ``pos_label`` (binary) or averaged
    (:func:`precision_recall_fscore_support`); nothing predicted: ``zero_division``.

    Examples
    --------
    >>> precision_score([0, 1, 2, 2], [0, 1, 1, 2], average="macro")
    0.8333333333333334
    """
    return _prfs(
        "precision_score",
        y_true,
        y_pred,
        beta=1.0,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("precision",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[0]


def recall_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``recall_score``: TP / (TP + FN), of ``pos_label`` (binary) or averaged; no
    true case: ``zero_division``.
    """
    return _prfs(
        "recall_score",
        y_true,
        y_pred,
        beta=1.0,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("recall",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[1]


def fbeta_score(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``fbeta_score``: (1 + b^2) TP / (b^2 (TP + FN) + TP + FP), of ``pos_label`` or
    averaged; no true and no predicted case: ``zero_division``.
    """
    fn = "fbeta_score"
    return _prfs(
        fn,
        y_true,
        y_pred,
        beta=_check_beta(fn, beta),
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("f-score",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[2]


def f1_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``f1_score``: 2 TP / (2 TP + FP + FN), of ``pos_label`` or averaged."""
    return _prfs(
        "f1_score",
        y_true,
        y_pred,
        beta=1.0,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("f-score",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[2]


def jaccard_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``jaccard_score``: TP / (TP + FP + FN), of ``pos_label``, per label or averaged
    (``"weighted"`` by support, ``"samples"`` per case); neither true nor predicted: ``zero_division``.

    Unlike the F-scores, an average takes a NaN (``zero_division=np.nan``) along, as scikit-learn.

    Examples
    --------
    >>> jaccard_score([[1, 0, 1], [0, 1, 1]], [[1, 1, 1], [0, 1, 0]], average="samples")
    0.5833333333333333
    """
    fn = "jaccard_score"
    zero = _zero_division(fn, zero_division)
    if math.isnan(zero):
        raise InvalidParameterError(f"{fn}: zero_division must be 'warn', 0.0 or 1.0, got {zero_division!r}")
    t = targets(fn, y_true, y_pred, sample_weight)
    labels = _set_wise_labels(fn, t, average, labels, pos_label)
    tp, fp, fn_, _tn = _counts(fn, t, labels, average == "samples")
    if average == "micro":
        tp, fp, fn_ = tp.sum(keepdims=True), fp.sum(keepdims=True), fn_.sum(keepdims=True)
    j = _apply_zero_division(
        K.jaccard(tp, fp, fn_), "jaccard", "true or predicted", average, ("jaccard",), zero_division, zero
    )
    if average is None:
        return j
    weights: Array | None = None
    if average == "weighted":
        weights = tp + fn_
        if not weights.any():
            weights = None
    elif average == "samples":
        weights = t.w
    return float(np.average(j, weights=weights))


_SINGLE_LABEL = (
    "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix to have the correct "
    "shape, use the 'labels' parameter to pass all known labels."
)


# -- from the confusion matrix ---------------------------------------------------------------------------
def _matrix_of(fn: str, t: Targets, single_warns: bool = False) -> Array:
    """The K x K float64 confusion matrix over the present labels (one label: scikit-learn's warning
    of its ``confusion_matrix``, which its function calls).
    """
    _not_multilabel(fn, t)
    k = len(t.present)
    if k == 1 and single_warns:
        warnings.warn(_SINGLE_LABEL, UserWarning, stacklevel=3)
    return K.confusion(_codes(fn, t.y_true, t.present), _codes(fn, t.y_pred, t.present), k, t.w)


def accuracy_score(y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None) -> float:
    """scikit-learn's ``accuracy_score``: the (weighted) share (``normalize=False``: the weighted
    count) of cases predicted right; multilabel: of cases whose every label is right (subset accuracy).

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 2], [0, 2, 2, 1])
    0.5
    >>> accuracy_score([[1, 0], [1, 1]], [[1, 0], [0, 1]])
    0.5
    """
    fn = "accuracy_score"
    t = targets(fn, y_true, y_pred, sample_weight)
    if t.kind == MULTILABEL:
        if normalize:
            return K.subset_accuracy(t.y_true, t.y_pred, t.w)
        exact = (t.y_true == t.y_pred).all(axis=1).astype(np.float64)
        return float(exact.sum() if t.w is None else np.dot(exact, t.w))
    C = _matrix_of(fn, t)
    return K.accuracy(C) if normalize else float(np.trace(C))


def balanced_accuracy_score(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, adjusted: bool = False
) -> float:
    """scikit-learn's ``balanced_accuracy_score``: the mean recall over the classes of ``y_true``
    (a class seen only in ``y_pred`` is left out with scikit-learn's warning); ``adjusted``
    rescales so that chance is 0 (one class: NaN).
    """
    fn = "balanced_accuracy_score"
    C = _matrix_of(fn, targets(fn, y_true, y_pred, sample_weight), single_warns=True)
    present = C.sum(axis=1) > 0
    if not present.all():
        warnings.warn("y_pred contains classes not in y_true", UserWarning, stacklevel=2)
    score = K.balanced_accuracy(C)
    if adjusted:  # one class: numpy's (score - 1) / 0, -inf or NaN, as scikit-learn (without its warning)
        chance = 1 / int(np.count_nonzero(present))
        with np.errstate(divide="ignore", invalid="ignore"):
            score = float((np.float64(score) - chance) / np.float64(1 - chance))
    return score


def matthews_corrcoef(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``matthews_corrcoef``: Gorodkin's K-class correlation (the binary MCC for two
    classes); 0.0 where it is undefined (one true or one predicted class), as scikit-learn.

    Examples
    --------
    >>> round(matthews_corrcoef([0, 1, 2, 2], [0, 2, 2, 1]), 6)
    0.2
    """
    fn = "matthews_corrcoef"
    value = K.matthews(_matrix_of(fn, targets(fn, y_true, y_pred, sample_weight), single_warns=True))
    return 0.0 if math.isnan(value) else value


def hamming_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``hamming_loss``: the (weighted) share of labels predicted wrong; multiclass:
    of cases (1 - accuracy).
    """
    fn = "hamming_loss"
    t = targets(fn, y_true, y_pred, sample_weight)
    if t.kind == MULTILABEL:
        return K.hamming_loss(t.y_true, t.y_pred, t.w)
    C = _matrix_of(fn, t)
    total = C.sum()
    return float((total - np.trace(C)) / total)


def _threshold_param() -> Any:
    """The registry's ``threshold`` parameter (its domain: a number, +-inf allowed, never NaN)."""
    return next(p for p in get_measure("ACC").params if p.name == "threshold")


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: str | None = None,
    threshold: float | None = None,
) -> Array:
    """scikit-learn's ``confusion_matrix``: rows the true labels, columns the predicted ones, in the
    order of ``labels`` (default: the sorted labels of both); any number of classes.

    Integer counts unless weighted by floats; ``normalize`` ``"true"``, ``"pred"`` or ``"all"``
    divides by the rows, the columns or the total (0 where a row or column is empty).  Cases whose
    true or predicted label is not one of ``labels`` are left out.  Multilabel indicators are
    refused, as scikit-learn (:func:`multilabel_confusion_matrix`).

    perfeval's earlier form stays: with ``threshold=``, ``y_pred`` holds scores and a case is
    predicted 1 when its score >= threshold (``y_true`` 0/1).  Scores without ``threshold`` are
    read that way at 0.5 with a DeprecationWarning (this release only; scikit-learn refuses them).

    Examples
    --------
    >>> confusion_matrix([1, 0, 1, 0], [1, 1, 0, 0]).tolist()
    [[1, 1], [1, 1]]
    >>> confusion_matrix(["b", "a", "c"], ["b", "c", "c"], labels=["c", "b", "a"]).tolist()
    [[1, 0, 0], [0, 1, 0], [1, 0, 0]]
    """
    fn = "confusion_matrix"
    if normalize not in (None, "true", "pred", "all"):
        raise InvalidParameterError(
            f"{fn}: normalize must be 'true', 'pred', 'all' or None, got {normalize!r}"
        )
    yp_raw = as_array(y_pred, "y_pred")
    if yp_raw.ndim == 2 and 1 in yp_raw.shape and not (yp_raw.shape[1] > 1):
        yp_raw = yp_raw.reshape(-1)
    if (
        threshold is None
        and yp_raw.ndim == 1
        and yp_raw.dtype.kind == "f"
        and bool(np.any(yp_raw != np.floor(yp_raw)))
    ):
        warnings.warn(
            "confusion_matrix: y_pred holds scores, not labels; reading them as score >= 0.5 is "
            "deprecated (scikit-learn refuses scores): pass threshold=0.5, or hard labels",
            DeprecationWarning,
            stacklevel=2,
        )
        threshold = 0.5
    if threshold is not None:
        if labels is not None:
            raise InvalidParameterError(f"{fn}: threshold= reads y_pred as scores; labels= does not apply")
        if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real):
            raise InvalidParameterError(f"{fn}: threshold must be a number, got {threshold!r}")
        _threshold_param().check(threshold, fn)
        yt_raw = to_numpy(y_true, "y_true")
        w = check_sample_weight(fn, sample_weight, len(yt_raw))
        h = ScoreHistogram.from_arrays(yt_raw, floats(to_numpy(yp_raw, "y_pred"), "y_pred"), w)
        tp, fn_, fp, tn = h.counts_at(threshold)
        m = np.array([[tn, fp], [fn_, tp]])
        cm = m.astype(np.int64) if sample_weight is None else m
    else:
        t = targets(fn, y_true, yp_raw, sample_weight)
        _not_multilabel(fn, t)
        if labels is None:
            lab = t.present
        else:
            lab = to_numpy(labels, "labels")
            if len(lab) == 0:
                raise InvalidParameterError(f"{fn}: 'labels' should contain at least one label.")
            if len(np.intersect1d(t.y_true, lab)) == 0:
                raise InvalidDataError(f"{fn}: At least one label specified must be in y_true")
        k = len(lab)
        ti, pi = _codes(fn, t.y_true, lab), _codes(fn, t.y_pred, lab)
        keep = (ti < k) & (pi < k)
        cm = K.confusion(ti[keep], pi[keep], k, None if t.w is None else t.w[keep])
        wk = None if sample_weight is None else np.asarray(sample_weight).dtype.kind
        if wk is None or wk in "iub":
            cm = np.rint(cm).astype(np.int64)
    if normalize is not None:
        with np.errstate(all="ignore"):
            if normalize == "true":
                cm = cm / cm.sum(axis=1, keepdims=True)
            elif normalize == "pred":
                cm = cm / cm.sum(axis=0, keepdims=True)
            else:
                cm = cm / cm.sum()
        cm = np.nan_to_num(cm)
    if cm.shape == (1, 1):
        warnings.warn(_SINGLE_LABEL, UserWarning, stacklevel=2)
    return cm


def cohen_kappa_score(
    y1: Any,
    y2: Any,
    *,
    labels: Any = None,
    weights: str | None = None,
    sample_weight: Any = None,
    replace_undefined_by: float = np.nan,
) -> float:
    """scikit-learn's ``cohen_kappa_score``: agreement of two raters beyond chance,
    1 - sum(W C) / sum(W E), unweighted or with ``"linear"`` or ``"quadratic"`` weights (QWK) over
    the classes in the order of ``labels`` (default: the sorted labels of both).

    Undefined (no case of ``y2`` among ``labels``, or a single class in common):
    ``replace_undefined_by`` with scikit-learn's warning.

    Examples
    --------
    >>> round(cohen_kappa_score([0, 1, 2, 2], [0, 2, 2, 1], weights="quadratic"), 6)
    0.636364
    """
    fn = "cohen_kappa_score"
    if weights not in (None, "linear", "quadratic"):
        raise InvalidParameterError(f"{fn}: weights must be 'linear', 'quadratic' or None, got {weights!r}")
    if (
        isinstance(replace_undefined_by, bool)
        or not isinstance(replace_undefined_by, numbers.Real)
        or not (math.isnan(replace_undefined_by) or -1 <= float(replace_undefined_by) <= 1)
    ):
        raise InvalidParameterError(
            f"{fn}: replace_undefined_by must be a number in [-1, 1] or np.nan, got {replace_undefined_by!r}"
        )
    try:
        C = confusion_matrix(y1, y2, labels=labels, sample_weight=sample_weight)
    except InvalidDataError as e:
        if "At least one label specified must be in y_true" in str(e):
            raise InvalidDataError(
                f"{fn}: At least one label in `labels` must be present in `y1` (even though "
                "`cohen_kappa_score` is otherwise agnostic to the order of `y1` and `y2`)."
            ) from None
        raise InvalidDataError(str(e).replace("confusion_matrix: ", f"{fn}: ", 1)) from None
    C = C.astype(np.float64)
    if C.sum() == 0:
        warn_undefined(
            "`y2` contains no labels that are present in both `y1` and `labels`.`cohen_kappa_score` is "
            "undefined and set to the value defined by the `replace_undefined_by` param, which is set "
            f"to {replace_undefined_by}."
        )
        return replace_undefined_by
    value = K.cohen_kappa(C, weights)
    if math.isnan(value):
        warn_undefined(
            "`y1`, `y2` and `labels` have only one label in common. `cohen_kappa_score` is undefined and "
            "set to the value defined by the the `replace_undefined_by` param, which is set to "
            f"{replace_undefined_by}."
        )
        return replace_undefined_by
    return value


# -- the report ------------------------------------------------------------------------------------------
def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    target_names: Any = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: Any = "warn",
) -> str | dict:
    """scikit-learn's ``classification_report``: per label precision, recall, F1 and support, then
    the micro (``accuracy`` where it equals it), macro and weighted averages (and samples for
    multilabel); its text layout, or a dict with ``output_dict``.

    Examples
    --------
    >>> print(classification_report([0, 1, 2, 2], [0, 1, 1, 2]))  # doctest: +NORMALIZE_WHITESPACE
                  precision    recall  f1-score   support
    <BLANKLINE>
               0       1.00      1.00      1.00         1
               1       0.50      1.00      0.67         1
               2       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.75         4
       macro avg       0.83      0.83      0.78         4
    weighted avg       0.88      0.75      0.75         4
    <BLANKLINE>
    """
    fn = "classification_report"
    t = targets(fn, y_true, y_pred, sample_weight)
    if labels is None:
        lab = t.present
        labels_given = False
    else:
        lab = np.asarray(labels)
        labels_given = True
    micro_is_accuracy = t.kind in ("multiclass", "binary") and (
        not labels_given or set(lab.tolist()) >= set(t.present.tolist())
    )
    if target_names is not None and len(lab) != len(target_names):
        if labels_given:
            warnings.warn(
                f"labels size, {len(lab)}, does not match size of target_names, {len(target_names)}",
                UserWarning,
                stacklevel=2,
            )
        else:
            raise InvalidDataError(
                f"{fn}: Number of classes, {len(lab)}, does not match size of target_names, "
                f"{len(target_names)}. Try specifying the labels parameter"
            )
    if target_names is None:
        target_names = [f"{v}" for v in lab.tolist()] if lab.dtype.kind != "O" else [f"{v}" for v in lab]
    headers = ["precision", "recall", "f1-score", "support"]
    common = {"labels": lab, "sample_weight": sample_weight, "zero_division": zero_division}
    p, r, f1, s = _prfs(
        fn, y_true, y_pred, beta=1.0, pos_label=1, average=None,
        warn_for=("precision", "recall", "f-score"), **common,
    )  # fmt: skip
    rows = list(zip(target_names, p, r, f1, s, strict=False))
    averages = ("micro", "macro", "weighted") + (("samples",) if t.kind == MULTILABEL else ())
    report_dict: dict = {}
    if output_dict:
        for row in rows:
            report_dict[row[0]] = dict(zip(headers, [float(i) for i in row[1:]], strict=True))
        report = ""
    else:
        width = max(max((len(cn) for cn in target_names), default=0), len("weighted avg"), digits)
        head_fmt = "{:>{width}s} " + " {:>9}" * len(headers)
        report = head_fmt.format("", *headers, width=width) + "\n\n"
        row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
        for row in rows:
            report += row_fmt.format(*row, width=width, digits=digits)
        report += "\n"
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else average + " avg"
        ap, ar, af, _ = _prfs(
            fn, y_true, y_pred, beta=1.0, pos_label=1, average=average,
            warn_for=("precision", "recall", "f-score"), **common,
        )  # fmt: skip
        avg = [ap, ar, af, np.sum(s)]
        if output_dict:
            report_dict[heading] = dict(zip(headers, [float(i) for i in avg], strict=True))
        elif heading == "accuracy":
            fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            report += fmt.format(heading, "", "", *avg[2:], width=width, digits=digits)
        else:
            report += row_fmt.format(heading, *avg, width=width, digits=digits)
    if output_dict:
        if "accuracy" in report_dict:
            report_dict["accuracy"] = report_dict["accuracy"]["precision"]
        return report_dict
    return report
