"""scikit-learn's score-based names for multiclass and multilabel input, computed by perfeval's engine.

:mod:`perfeval.functional.sklearn_names` computes ``roc_auc_score``, ``average_precision_score``,
``log_loss`` and ``brier_score_loss`` for binary targets and hands everything else to this module:

- multiclass (1-D labels of more than two classes, an ``(n, K)`` score matrix): one
  :class:`~perfeval.summaries.classes.ClassSummary` of the cases, finished by the measures of
  :mod:`perfeval.measures.multiclass` (one-vs-rest and Hand and Till's one-vs-one ROC areas, average
  precision, log loss, Brier score);
- multilabel (a 2-D 0/1 indicator ``y_true``): the binary :class:`~perfeval.summaries.ScoreHistogram`
  measures of each label (column), of all the (case, label) pairs (``micro``) or of each case's row
  (``samples``, the rows ranked all at once).

perfeval's own multiclass measures leave a class absent from the targets out of their averages and list
it; scikit-learn's names apply scikit-learn 1.9's rules instead, from the same per-class numbers: a
class (or label) with one side only is NaN with scikit-learn's warning, NaN propagates into ``macro``,
``weighted`` gives a class of no support a weight of 0, average precision without a positive is 0.0.
The errors are scikit-learn's (its texts, as :class:`~perfeval.exceptions.InvalidDataError` or
:class:`~perfeval.exceptions.InvalidParameterError`, both ``ValueError``).  Where scikit-learn repeats a
warning once per row (``average='samples'``), perfeval says it once.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from perfeval.base.checks import as_array, label_values, to_numpy
from perfeval.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    user_stacklevel,
)
from perfeval.functional.door import (
    check_sample_weight,
    class_labels,
    label_indices,
    score_matrix,
    warn_undefined,
)
from perfeval.measures import get_measure
from perfeval.measures import multiclass as mc
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.classes import ClassSummary

__all__ = [
    "is_multilabel",
    "roc_auc",
    "average_precision",
    "log_loss",
    "brier_score_loss",
]

Array = np.ndarray

_ONE_CLASS = "Only one class is present in y_true. ROC AUC score is not defined in that case."
_NO_NEG = "No negative samples in y_true, false positive value should be meaningless"
_NO_POS = "No positive samples in y_true, true positive value should be meaningless"
_NO_POS_AP = "No positive class found in y_true, recall is set to one for all thresholds."


def _partial_roc(h: ScoreHistogram, max_fpr: float) -> float:
    """scikit-learn's McClish-standardised partial ROC area up to ``max_fpr`` (both sides weighted)."""
    _thr, tps, fps = h.cumulative()
    fpr, tpr = np.r_[0.0, fps] / fps[-1], np.r_[0.0, tps] / tps[-1]
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    tpr = np.append(tpr[:stop], np.interp(max_fpr, [fpr[stop - 1], fpr[stop]], [tpr[stop - 1], tpr[stop]]))
    fpr = np.append(fpr[:stop], max_fpr)
    partial = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return float(0.5 * (1 + (partial - min_area) / (max_area - min_area)))


def is_multilabel(y_true: Any) -> bool:
    """Whether ``y_true`` is 2-D with more than one column (a label indicator matrix, or an error)."""
    arr = as_array(y_true, "y_true")
    return arr.ndim == 2 and arr.shape[1] > 1


# -- the doors ----------------------------------------------------------------------------------------------
def _indicator(fn: str, y_true: Any, y_score: Any, sample_weight: Any) -> tuple[Array, Array, Array | None]:
    """A multilabel ``y_true`` (0/1, or booleans), its (n, L) scores as float64, the weights."""
    y = as_array(y_true, "y_true")
    if y.dtype.kind == "b":
        y = y.astype(np.int64)
    if y.dtype.kind not in "iuf" or not np.isin(y, (0, 1)).all():
        raise InvalidDataError(
            f"{fn}: multiclass-multioutput format is not supported: a 2-D y_true must hold 0 and 1 only "
            "(a label indicator matrix)"
        )
    s = score_matrix(fn, y_score).astype(np.float64, copy=False)
    if s.shape != y.shape:
        raise InvalidDataError(f"{fn}: y_true has shape {y.shape} but y_score {s.shape}; one score a label")
    w = check_sample_weight(fn, sample_weight, len(y))
    return y.astype(bool), s.astype(np.float64), w


def _sorted_unique_labels(fn: str, labels: Any) -> tuple[Array, Array]:
    given = to_numpy(labels, "labels")
    return given, class_labels(fn, given, "labels")


def _summary(codes: Array, s: Array, w: Array | None, classes: Array) -> ClassSummary:
    return ClassSummary.from_checked(
        codes.astype(np.intp), np.ascontiguousarray(s, dtype=np.float64), w, tuple(classes.tolist())
    )


# -- the binary pieces, with scikit-learn's warnings ---------------------------------------------------------
def _roc_warning(present: bool, pos: float, neg: float) -> str | None:
    """scikit-learn's warning of one binary ROC area (NaN then): one label in the column (the weights
    not counted), or no weight left on one side (its ``roc_curve`` says which).
    """
    if not present:
        return _ONE_CLASS
    if neg <= 0:
        return _NO_NEG
    if pos <= 0:
        return _NO_POS
    return None


def _binary_roc(y: Array, s: Array, w: Array | None, max_fpr: float | None) -> float:
    """One binary ROC area (``y`` boolean) as scikit-learn's ``_binary_roc_auc_score``."""
    h = ScoreHistogram.from_checked(y, s, w)
    why = _roc_warning(bool(y.any() and not y.all()), h.n_pos, h.n_neg)
    if why is not None:
        warn_undefined(why)
        return math.nan
    if max_fpr is None or max_fpr == 1:
        return float(get_measure("ROC")(h))
    return _partial_roc(h, max_fpr)


def _binary_ap(y: Array, s: Array, w: Array | None) -> float:
    h = ScoreHistogram.from_checked(y, s, w)
    if h.n_pos <= 0:
        warn_undefined(_NO_POS_AP)
        return 0.0
    return float(max(0.0, get_measure("AP")(h)))


def _rows(y: Array, s: Array, what: str) -> tuple[Array, Array]:
    """Per row of (n, L) labels and scores, unweighted: the ROC area (``what="roc"``, ties half) or the
    average precision (``"ap"``, one threshold a tie), and whether the row has both labels (roc) or a
    positive (ap).  All rows at once: each row sorted, its ties found, counted by cumulative sums.
    """
    n, m = s.shape
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    pos = np.take_along_axis(y, order, axis=1).astype(np.float64)
    idx = np.broadcast_to(np.arange(m), (n, m))
    new = np.ones((n, m), dtype=bool)
    new[:, 1:] = ss[:, 1:] != ss[:, :-1]
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    is_end = np.ones((n, m), dtype=bool)
    is_end[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(is_end, idx, m - 1)[:, ::-1], axis=1)[:, ::-1]
    cp = np.zeros((n, m + 1))
    np.cumsum(pos, axis=1, out=cp[:, 1:])
    npos = cp[:, -1]
    rows = np.arange(n)[:, None]
    if what == "roc":
        cn = np.zeros((n, m + 1))
        np.cumsum(1.0 - pos, axis=1, out=cn[:, 1:])
        below = cn[rows, start]
        tied = cn[rows, end + 1] - below
        u = (pos * (below + 0.5 * tied)).sum(axis=1)
        nneg = m - npos
        ok = (npos > 0) & (nneg > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(ok, u / (npos * nneg), np.nan), ok
    at_or_above = m - start  # the labels scored >= this one
    pos_at_or_above = npos[:, None] - cp[rows, start]
    prec = pos_at_or_above / at_or_above
    ok = npos > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = np.where(ok, (pos * prec).sum(axis=1) / np.where(ok, npos, 1.0), 0.0)
    return np.maximum(ap, 0.0), ok


def _average(fn: str, per: Array, average: str | None, weight: Array | None) -> float | Array:
    """scikit-learn's ``_average_binary_score`` ending: None gives the array; a 0 weight forces its
    score to 0 (a NaN then does not spread); macro is the plain mean (NaN spreads).
    """
    if average is None:
        return per
    if weight is not None:
        per = np.where(weight == 0, 0.0, per)
    return float(np.average(per, weights=weight))


def _multilabel(
    fn: str, binary: Any, y: Array, s: Array, w: Array | None, average: str | None, rows: str
) -> float | Array:
    """scikit-learn's ``_average_binary_score`` of a label indicator matrix."""
    n, m = y.shape
    if average == "micro":
        return binary(y.reshape(-1), s.reshape(-1), None if w is None else np.repeat(w, m))
    if average == "samples":
        if rows == "roc-loop":
            per = np.array([binary(y[i], s[i], None) for i in range(n)])
        else:
            per, ok = _rows(y, s, rows)
            if not ok.all():
                warn_undefined(_ONE_CLASS if rows == "roc" else _NO_POS_AP)
        return _average(fn, per, average, w)
    weight = None
    if average == "weighted":
        weight = y.sum(axis=0).astype(np.float64) if w is None else (y * w[:, None]).sum(axis=0)
        if math.isclose(float(weight.sum()), 0.0, rel_tol=1e-5, abs_tol=1e-8):
            return 0.0
    per = np.array([binary(y[:, j], s[:, j], w) for j in range(m)])
    return _average(fn, per, average, weight)


# -- roc_auc_score -------------------------------------------------------------------------------------------
def roc_auc(
    fn: str,
    y_true: Any,
    y_score: Any,
    *,
    average: str | None,
    sample_weight: Any,
    max_fpr: float | None,
    multi_class: str,
    labels: Any,
) -> float | Array:
    """``roc_auc_score`` of multilabel or multiclass input (the parameters checked by the caller)."""
    if is_multilabel(y_true):
        y, s, w = _indicator(fn, y_true, y_score, sample_weight)

        def binary(yc: Array, sc: Array, wc: Array | None) -> float:
            return _binary_roc(yc, sc, wc, max_fpr)

        rows = "roc" if max_fpr is None or max_fpr == 1 else "roc-loop"
        return _multilabel(fn, binary, y, s, w, average, rows)
    if max_fpr is not None and max_fpr != 1.0:
        raise InvalidParameterError(
            f"{fn}: Partial AUC computation not available in multiclass setting, 'max_fpr' must be set "
            f"to `None`, received `max_fpr={max_fpr}` instead"
        )
    if multi_class == "raise":
        raise InvalidParameterError(f"{fn}: multi_class must be in ('ovo', 'ovr')")
    y, s = _multiclass_scores(fn, y_true, y_score)
    options: tuple = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro", *options)
    if average not in options:
        raise InvalidParameterError(f"{fn}: average must be one of {options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise InvalidParameterError(f"{fn}: average=None is not implemented for multi_class='ovo'.")
    classes = _roc_classes(fn, y, labels, s.shape[1])
    if multi_class == "ovo" and sample_weight is not None:
        raise InvalidParameterError(
            f"{fn}: sample_weight is not supported for multiclass one-vs-one ROC AUC, 'sample_weight' "
            "must be None in this case."
        )
    w = check_sample_weight(fn, sample_weight, len(y))
    codes = label_indices(y, classes)
    cs = _summary(codes, s, w, classes)
    if multi_class == "ovo":
        if np.count_nonzero(np.bincount(codes, minlength=len(classes))) < 2:
            if average == "weighted":  # numpy's average of no pair, weights summing to 0
                raise InvalidDataError(
                    f"{fn}: y_true holds one class ({label_values(y)}): no pair of classes to average"
                )
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=user_stacklevel())
            return math.nan
        return mc.roc_ovo(cs, str(average)).value  # Hand and Till over the classes y_true holds
    if average == "micro":
        return mc.roc_ovr(cs, "micro").value
    per = mc.roc_ovr_per_class(cs)
    present = np.bincount(codes, minlength=len(classes))  # the labels, weights not counted
    support = cs.n_class
    for j in range(len(classes)):
        why = _roc_warning(0 < present[j] < len(y), support[j], cs.total - support[j])
        if why is not None:
            warn_undefined(why)
            per[j] = math.nan
    return _average(fn, per, average, support if average == "weighted" else None)


def _multiclass_scores(fn: str, y_true: Any, y_score: Any) -> tuple[Array, Array]:
    """The labels and the (n, K) probabilities of a multiclass ROC area, as scikit-learn checks them."""
    y = to_numpy(y_true, "y_true")
    class_labels(fn, y)
    raw = score_matrix(fn, y_score)
    s = raw.astype(np.float64, copy=False)
    if s.ndim != 2:
        raise InvalidDataError(
            f"{fn}: `y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            f"multiple classes. Got `y_score.shape={s.shape}`."
        )
    if len(s) != len(y):
        raise InvalidDataError(f"{fn}: `y_true` and `y_score` have different lengths, {len(y)} and {len(s)}")
    if not np.allclose(1, raw.sum(axis=1)):  # summed in the input's type, as scikit-learn does
        raise InvalidDataError(
            f"{fn}: Target scores need to be probabilities for multiclass roc_auc, i.e. they should sum "
            "up to 1.0 over classes"
        )
    return y, s


def _roc_classes(fn: str, y: Array, labels: Any, k: int) -> Array:
    """The labels of the K columns: ``labels`` (distinct, sorted, holding y_true's), or y_true's."""
    seen = class_labels(fn, y)
    if labels is None:
        if len(seen) != k:
            raise InvalidDataError(
                f"{fn}: Number of classes in y_true not equal to the number of columns in 'y_score'"
            )
        return seen
    given, classes = _sorted_unique_labels(fn, labels)
    if len(classes) != len(given):
        raise InvalidParameterError(f"{fn}: Parameter 'labels' must be unique")
    if not np.array_equal(classes, given):
        raise InvalidParameterError(f"{fn}: Parameter 'labels' must be ordered")
    if len(classes) != k:
        raise InvalidDataError(
            f"{fn}: Number of given labels, {len(classes)}, not equal to the number of columns in "
            f"'y_score', {k}"
        )
    if len(np.setdiff1d(seen, classes)):
        raise InvalidDataError(f"{fn}: 'y_true' contains labels not in parameter 'labels'")
    return classes


# -- average_precision_score --------------------------------------------------------------------------
def average_precision(
    fn: str, y_true: Any, y_score: Any, *, average: str | None, pos_label: Any, sample_weight: Any
) -> float | Array:
    """``average_precision_score`` of multilabel or multiclass input (``average`` checked)."""
    if is_multilabel(y_true):
        if pos_label != 1:
            raise InvalidParameterError(
                f"{fn}: Parameter pos_label is fixed to 1 for multilabel-indicator y_true. Do not set "
                "pos_label or set pos_label to 1."
            )
        y, s, w = _indicator(fn, y_true, y_score, sample_weight)
        return _multilabel(fn, _binary_ap, y, s, w, average, "ap")
    y = to_numpy(y_true, "y_true")
    classes = class_labels(fn, y)
    if pos_label != 1:
        raise InvalidParameterError(
            f"{fn}: Parameter pos_label is fixed to 1 for multiclass y_true. Do not set pos_label or "
            "set pos_label to 1."
        )
    s = score_matrix(fn, y_score).astype(np.float64, copy=False)
    if s.shape != (len(y), len(classes)):
        raise InvalidDataError(
            f"{fn}: `y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            f"multiple classes. Got `y_score.shape={s.shape}`."
        )
    w = check_sample_weight(fn, sample_weight, len(y))
    cs = _summary(label_indices(y, classes), s, w, classes)
    if average == "micro":
        return mc.ap_ovr(cs, "micro").value
    if average == "samples":  # one positive a row: 1 / (the classes scored >= the true one)
        t = cs.topk
        g, tied = np.indices(t.shape)
        return float((t / (g + tied + 1)).sum() / t.sum())
    per = mc.ap_ovr(cs, "macro").per_class
    assert per is not None
    support = cs.n_class
    for j in range(len(classes)):
        if not support[j] > 0:
            warn_undefined(_NO_POS_AP)
            per[j] = 0.0
    return _average(fn, per, average, support if average == "weighted" else None)


# -- the probability losses ----------------------------------------------------------------------------------
def _probability_door(
    fn: str, y_true: Any, y_proba: Any, sample_weight: Any, labels: Any
) -> tuple[ClassSummary, Array]:
    """scikit-learn's ``_validate_multiclass_probabilistic_prediction``, its checks in its order: the
    summary of the cases under the sorted classes (of ``labels``, or of y_true), and y_proba.
    """
    raw = score_matrix(fn, y_proba)
    p = raw.astype(np.float64, copy=False)
    if p.size and p.max() > 1:
        raise InvalidDataError(f"{fn}: y_prob contains values greater than 1: {p.max()!r}")
    if p.size and p.min() < 0:
        raise InvalidDataError(f"{fn}: y_prob contains values lower than 0: {p.min()!r}")
    y = to_numpy(y_true, "y_true")
    if len(p) != len(y):
        raise InvalidDataError(f"{fn}: `y_true` and `y_proba` have different lengths, {len(y)} and {len(p)}")
    w = check_sample_weight(fn, sample_weight, len(y))
    seen = class_labels(fn, y)
    if labels is not None:
        given, classes = _sorted_unique_labels(fn, labels)
        if not np.array_equal(classes, given):
            warnings.warn(
                f"Labels passed were {labels}. But this function assumes labels are ordered "
                f"lexicographically. Pass the ordered labels={classes.tolist()} and ensure that the "
                "columns of y_prob correspond to this ordering.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        outside = np.setdiff1d(seen, classes)
        if len(outside):
            raise InvalidDataError(
                f"{fn}: y_true contains values {set(outside.tolist())} not belonging to the passed "
                f"labels {labels}."
            )
        if len(classes) == 1:
            raise InvalidDataError(
                f"{fn}: The labels array needs to contain at least two labels, got {classes}."
            )
    else:
        classes = seen
        if len(classes) == 1:
            raise InvalidDataError(
                f"{fn}: y_true contains only one label ({classes[0]}). Please provide the list of all "
                "expected class labels explicitly through the labels argument."
            )
    if p.ndim == 1:
        p, raw = p[:, None], raw[:, None]
    if p.shape[1] == 1:
        p = np.concatenate([1 - p, p], axis=1)
    if not _sum_to_one(raw):
        warnings.warn(
            "The y_prob values do not sum to one. Make sure to pass probabilities.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    if len(classes) != p.shape[1]:
        if labels is None:
            raise InvalidDataError(
                f"{fn}: y_true and y_prob contain different number of classes: {len(classes)} vs "
                f"{p.shape[1]}. Please provide the true labels explicitly through the labels argument. "
                f"Classes found in y_true: {classes}"
            )
        raise InvalidDataError(
            f"{fn}: The number of classes in labels is different from that in y_prob. Classes found in "
            f"labels: {classes}"
        )
    return _summary(label_indices(y, classes), p, w, classes), p


def _sum_to_one(raw: Array) -> bool:
    """Whether every row of ``raw`` sums to one within scikit-learn's tolerance: summed in the type
    scikit-learn's ``check_array`` gives it (float64, float32 and float16 kept; others float64),
    ``1e-8 + sqrt(eps)`` of that type (float32: 3.45e-4), so float32 probabilities that
    scikit-learn takes are not warned about.  A single column is the positive class's: its rows
    (``1 - p, p``) sum to one.
    """
    kept = raw if raw.dtype in (np.float64, np.float32, np.float16) else raw.astype(np.float64)
    if kept.shape[1] == 1:
        kept = np.concatenate([1 - kept, kept], axis=1)
    sums = kept.sum(axis=1)
    return bool(np.all(np.abs(sums - 1) <= 1e-8 + math.sqrt(float(np.finfo(kept.dtype).eps))))


def _true_class_loss(cs: ClassSummary) -> float:
    """The weighted sum of -ln p(true class), clipped to [eps, 1 - eps] (LOGLOSS_MC's sum, which that
    measure withholds, NaN, from rows that are no probabilities; scikit-learn only warns).
    """
    eps = np.finfo(np.float64).eps
    loss = 0.0
    for j in range(cs.k):
        s, w = cs.block(j, j)
        loss += float((w * -np.log(np.clip(s, eps, 1 - eps))).sum())
    return loss


def _squares(cs: ClassSummary) -> float:
    """The weighted sum over cases of sum_k (p_k - [k is the true class])^2 (BRIER_MC's sum)."""
    sq = 0.0
    for j in range(cs.k):
        for c in range(cs.k):
            s, w = cs.block(j, c)
            sq += float((w * (s - (1.0 if c == j else 0.0)) ** 2).sum())
    return sq


def log_loss(
    fn: str, y_true: Any, y_proba: Any, *, normalize: bool, sample_weight: Any, labels: Any
) -> float:
    """``log_loss`` of an (n, K) ``y_proba`` (or 1-D against more than two classes: an error), nats."""
    cs, _p = _probability_door(fn, y_true, y_proba, sample_weight, labels)
    if cs.total <= 0:
        raise InvalidDataError(f"{fn}: every case has weight 0; nothing to evaluate")
    if not cs.off_simplex[0]:
        mean = mc.log_loss(cs).value
        return mean if normalize else mean * cs.total
    total = _true_class_loss(cs)
    return total / cs.total if normalize else total


def brier_score_loss(
    fn: str, y_true: Any, y_proba: Any, *, sample_weight: Any, labels: Any, scale_by_half: Any
) -> float:
    """``brier_score_loss`` of an (n, K) ``y_proba``, K >= 2: the mean of the row sums of squares,
    halved (``scale_by_half``: ``"auto"`` halves for K = 2 only, as scikit-learn).
    """
    cs, p = _probability_door(fn, y_true, y_proba, sample_weight, labels)
    if cs.total <= 0:
        raise InvalidDataError(f"{fn}: every case has weight 0; nothing to evaluate")
    value = mc.brier(cs).value if not cs.off_simplex[0] else _squares(cs) / cs.total
    half = p.shape[1] < 3 if scale_by_half == "auto" else bool(scale_by_half)
    return value * 0.5 if half else value
