"""scikit-learn's metric names, signatures and return conventions, computed by perfeval's engine.

Each function here takes the arguments :mod:`sklearn.metrics` takes (``y_true``, ``y_score`` or
``y_pred``, ``pos_label``, ``sample_weight``, ``drop_intermediate``, ``zero_division``, ...) and
returns what it returns (the same point order of the curves, the same 0-versus-NaN-versus-error
rules for one class), with the numbers computed from perfeval's exact summary
(:class:`~perfeval.summaries.ScoreHistogram`, the tie tables of the ranking measures) in float64.
scikit-learn is never imported.  :mod:`perfeval.functional` re-exports them; the differences that
remain are listed in docs/sklearn.md (weights must be >= 0; float32 input is computed in float64;
an argument value perfeval does not compute, such as ``multi_class='ovr'``, raises
:class:`~perfeval.exceptions.InvalidParameterError` instead of giving another number).

Examples
--------
>>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
0.75
>>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
>>> fpr.tolist(), tpr.tolist(), thr.tolist()
([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.35, 0.1])

The names of hard predictions (``f1_score``, ``confusion_matrix``, ...) are in
:mod:`perfeval.functional.sklearn_labels`, which takes the door's helpers from here.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from perfeval.api.evaluation import evaluate
from perfeval.base.checks import (
    as_array,
    check_scores,
    floats,
    label_values,
    to_numpy,
)
from perfeval.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    UndefinedMeasureWarning,
)
from perfeval.functional.door import (
    check_sample_weight,
    class_labels,
    label_indices,
    score_matrix,
    shown,
    warn_undefined,
)
from perfeval.measures import get_measure
from perfeval.summaries import ScoreHistogram

__all__ = [
    "roc_auc_score",
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "det_curve",
    "brier_score_loss",
    "log_loss",
    "ndcg_score",
    "dcg_score",
    "top_k_accuracy_score",
    "calibration_curve",
]

Array = np.ndarray


# -- the door: labels, scores, weights, as scikit-learn reads them ---------------------------------------
def _is_text(classes: Array) -> bool:
    return classes.dtype.kind in "OUS"


def _has_text(classes: Array) -> bool:
    return classes.dtype.kind in "US" or (
        classes.dtype.kind == "O" and any(isinstance(v, str) for v in classes.tolist())
    )


def _default_pos_label(fn: str, classes: Array) -> Any:
    """scikit-learn's ``_check_pos_label_consistency``: without ``pos_label``, labels {0, 1} or
    {-1, 1} (or one of them) take 1 as positive; any other labels need ``pos_label``.
    """
    if not _is_text(classes) and len(classes) <= 2:
        vals = classes.tolist()
        if vals in ([0, 1], [-1, 1], [0], [-1], [1]):
            return 1
    shown = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in classes[:8])
    raise InvalidDataError(
        f"{fn}: y_true takes value in {{{shown}}} and pos_label is not specified: either make y_true "
        "take value in {0, 1} or {-1, 1} or pass pos_label explicitly"
    )


def _scores(fn: str, y_score: Any, n: int, name: str = "y_score") -> Array:
    arr = as_array(y_score, name)  # a torch tensor (detached), a device array: in host memory
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"{fn}: `{name}` has shape {arr.shape}; perfeval computes the binary case, one score per "
            "case (for a binary classifier's predict_proba pass the positive class's column, [:, 1])"
        )
    s = floats(arr, name, where=fn)  # complex numbers, dates: said with the function's name
    if len(s) != n:
        raise InvalidDataError(f"{fn}: `y_true` and `{name}` have different lengths, {n} and {len(s)}")
    check_scores(s)
    return s


def _binary_curve_input(
    fn: str, y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any
) -> tuple[ScoreHistogram, Array]:
    """scikit-learn's ``confusion_matrix_at_thresholds`` door: binary targets (or any labels with
    ``pos_label``), scores, weights; the cases of weight 0 dropped.  The exact summary and the labels.
    """
    y = to_numpy(y_true, "y_true")
    classes = class_labels(fn, y)
    if pos_label is None:
        if len(classes) > 2:
            raise InvalidDataError(
                f"{fn}: y_true holds {len(classes)} classes ({label_values(y)}); the curve is binary: "
                "name the positive class with pos_label= (one against the rest)"
            )
        pos_label = _default_pos_label(fn, classes)
    s = _scores(fn, y_score, len(y))
    w = check_sample_weight(fn, sample_weight, len(y))
    is_pos = np.asarray(y == pos_label, dtype=bool)
    h = ScoreHistogram.from_checked(is_pos, s, w)
    if len(h.scores) == 0:
        raise InvalidDataError(f"{fn}: every case has weight 0; nothing to evaluate")
    return h, classes


def _counts(h: ScoreHistogram) -> tuple[Array, Array, Array]:
    """(fps, tps, thresholds) at each distinct score from the top, as scikit-learn's cumulative sums."""
    thr, tps, fps = h.cumulative()
    return fps, tps, thr


# -- curves ---------------------------------------------------------------------------------------------
def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
) -> tuple[Array, Array, Array]:
    """scikit-learn's ``roc_curve``: (fpr, tpr, thresholds), thresholds decreasing from ``inf``.

    One point per distinct score (a tie is one diagonal step) after the point (0, 0) at threshold
    ``inf``; with ``drop_intermediate`` (the default, as in scikit-learn) a point is dropped where
    both counts grow by the same amount before and after it (it lies on a straight segment).  With
    no negative (positive) case, ``fpr`` (``tpr``) is NaN and an
    :class:`~perfeval.exceptions.UndefinedMeasureWarning` says so, as scikit-learn warns.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels: {0, 1}, {-1, 1} or booleans, or any labels with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive; finite.
    pos_label : int, float, bool or str, optional
        The positive class; required unless the labels are {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), optional
        Weights >= 0 (a case of weight 0 is left out).
    drop_intermediate : bool, default True

    Returns
    -------
    fpr, tpr, thresholds : ndarray of float64
    """
    h, _ = _binary_curve_input("roc_curve", y_true, y_score, pos_label, sample_weight)
    fps, tps, thr = _counts(h)
    if drop_intermediate and len(fps) > 2:
        keep = np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True]
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    fps, tps = np.r_[0.0, fps], np.r_[0.0, tps]
    thr = np.r_[np.inf, thr]
    if fps[-1] <= 0:
        warn_undefined("No negative samples in y_true, false positive value should be meaningless")
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        warn_undefined("No positive samples in y_true, true positive value should be meaningless")
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr, thr


def precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[Array, Array, Array]:
    """scikit-learn's ``precision_recall_curve``: (precision, recall, thresholds) in its order.

    Thresholds increase (the distinct scores, lowest first); recall decreases; the last point is
    (recall 0, precision 1) and has no threshold, so ``thresholds`` is one shorter.  Where nothing
    is predicted positive precision is 0; with no positive case recall is 1 everywhere and an
    :class:`~perfeval.exceptions.UndefinedMeasureWarning` says so.  ``drop_intermediate`` keeps
    only the first and the last point of each run of equal true-positive counts.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`roc_curve`.
    drop_intermediate : bool, default False

    Returns
    -------
    precision, recall : ndarray of float64, shape (n_thresholds + 1,)
    thresholds : ndarray of float64, shape (n_thresholds,)
    """
    h, _ = _binary_curve_input("precision_recall_curve", y_true, y_score, pos_label, sample_weight)
    fps, tps, thr = _counts(h)
    if drop_intermediate and len(fps) > 2:
        keep = np.r_[True, np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), True]
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    ps = tps + fps
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    if tps[-1] == 0:
        warn_undefined("No positive class found in y_true, recall is set to one for all thresholds.")
        recall = np.ones_like(tps)
    else:
        recall = tps / tps[-1]
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thr[::-1].copy()


def det_curve(
    y_true: Any,
    y_score: Any,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[Array, Array, Array]:
    """scikit-learn's ``det_curve``: (fpr, fnr, thresholds), thresholds increasing.

    As scikit-learn (>= 1.7): a point at threshold ``inf`` (fpr 0, fnr 1) is added unless fpr 0 is
    reached at a finite threshold; the curve runs from the last point with fpr 0 to the first with
    fnr 0, fpr decreasing.  One class only is an error, as in scikit-learn.

    Returns
    -------
    fpr, fnr, thresholds : ndarray of float64
    """
    y = to_numpy(y_true, "y_true")
    h, _classes_seen = _binary_curve_input("det_curve", y, y_score, pos_label, sample_weight)
    fps, tps, thr = _counts(h)
    tps, fps, thr = np.r_[0.0, tps], np.r_[0.0, fps], np.r_[np.inf, thr]
    if drop_intermediate and len(fps) > 2:
        keep = np.r_[True, np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), True]
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    if len(_classes_seen) != 2:
        raise InvalidDataError(
            "det_curve: Only one class is present in y_true. Detection error tradeoff curve is not "
            "defined in that case."
        )
    fns = tps[-1] - tps
    p_count, n_count = tps[-1], fps[-1]
    first = int(np.searchsorted(fps, fps[0], side="right")) - 1
    last = int(np.searchsorted(tps, tps[-1])) + 1
    sl = slice(first if first >= 0 else None, last)
    with np.errstate(invalid="ignore", divide="ignore"):
        return fps[sl][::-1] / n_count, fns[sl][::-1] / p_count, thr[sl][::-1].copy()


# -- areas -----------------------------------------------------------------------------------------------
def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: str = "raise",
    labels: Any = None,
) -> float:
    """scikit-learn's ``roc_auc_score`` for binary targets, exact with ties (a tie counts one half).

    The positive class is the greater of the two labels (scikit-learn's rule: no ``pos_label``).
    ``max_fpr`` gives the McClish-standardised partial area up to that false positive rate, as
    scikit-learn computes it.  One class only: NaN with an
    :class:`~perfeval.exceptions.UndefinedMeasureWarning` (scikit-learn >= 1.6 warns and returns
    NaN the same way).  ``average``, ``multi_class`` and ``labels`` do not apply to binary targets
    (scikit-learn ignores them there too).  Multiclass input (an (n, K) ``y_score``, K > 2) and a
    multilabel indicator ``y_true`` are scored as scikit-learn scores them, by
    :func:`perfeval.functional.sklearn_scores.roc_auc` (an array for ``average=None``).

    Examples
    --------
    >>> roc_auc_score([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])
    0.875
    """
    fn = "roc_auc_score"
    if average not in (None, "micro", "macro", "samples", "weighted"):
        raise InvalidParameterError(
            f"{fn}: average={average!r} is not one of micro, macro, samples, weighted"
        )
    if multi_class not in ("raise", "ovr", "ovo"):
        raise InvalidParameterError(f"{fn}: multi_class={multi_class!r}: expected 'raise', 'ovr' or 'ovo'")
    if max_fpr is not None and (
        isinstance(max_fpr, bool) or not isinstance(max_fpr, numbers.Real) or not (0 < max_fpr <= 1)
    ):
        raise InvalidParameterError(f"{fn}: Expected max_fpr in range (0, 1], got: {max_fpr!r}")
    from perfeval.functional import sklearn_scores as multi

    if multi.is_multilabel(y_true):
        return multi.roc_auc(fn, y_true, y_score, **_them(locals()))  # type: ignore[return-value]
    y = to_numpy(y_true, "y_true")
    classes = class_labels(fn, y)
    s_arr = as_array(y_score, "y_score")
    if len(classes) > 2 or (s_arr.ndim == 2 and s_arr.shape[1] > 2):
        return multi.roc_auc(fn, y, s_arr, **_them(locals()))  # type: ignore[return-value]
    if s_arr.ndim == 2 and s_arr.shape[1] > 1:
        raise InvalidParameterError(
            f"{fn}: y_true holds {len(classes)} classes / y_score has shape {s_arr.shape}: perfeval "
            "computes the binary ROC area only (multi_class='ovr'/'ovo' and multilabel input are not "
            "supported); score one class against the rest with pos_label= in perfeval.evaluate or "
            "roc_curve"
        )
    if len(classes) < 2:
        warn_undefined("Only one class is present in y_true. ROC AUC score is not defined in that case.")
        return float("nan")
    h, _ = _binary_curve_input(fn, y, y_score, classes[1], sample_weight)
    if h.n_pos == 0 or h.n_neg == 0:  # one class left after the weights of 0 (scikit-learn: NaN, or
        # with max_fpr and no negative left a ValueError of its partial area's two points)
        warn_undefined("Only one class is present in y_true. ROC AUC score is not defined in that case.")
        return float("nan")
    if max_fpr is None or max_fpr == 1:
        return float(get_measure("ROC")(h))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        fpr, tpr, _ = roc_curve(y, y_score, pos_label=classes[1], sample_weight=sample_weight)
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    x_interp, y_interp = [fpr[stop - 1], fpr[stop]], [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    partial = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return float(0.5 * (1 + (partial - min_area) / (max_area - min_area)))


def _them(params: dict) -> dict:
    """roc_auc_score's parameters for :func:`perfeval.functional.sklearn_scores.roc_auc`."""
    names = ("average", "sample_weight", "max_fpr", "multi_class", "labels")
    return {k: params[k] for k in names}


def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> float:
    """scikit-learn's ``average_precision_score`` for binary targets: the sum over thresholds of
    (R_n - R_{n-1}) P_n, a tie being one threshold (perfeval's AP).

    ``pos_label`` defaults to 1, as in scikit-learn (string labels need it).  No positive case: 0.0
    with a warning, as scikit-learn.  Multiclass and multilabel input (where ``average`` applies)
    are scored as scikit-learn scores them, by :mod:`perfeval.functional.sklearn_scores`.

    Examples
    --------
    >>> average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333333333333333
    """
    fn = "average_precision_score"
    if average not in (None, "micro", "macro", "samples", "weighted"):
        raise InvalidParameterError(
            f"{fn}: average={average!r} is not one of micro, macro, samples, weighted"
        )
    from perfeval.functional import sklearn_scores as multi

    if multi.is_multilabel(y_true) or len(class_labels(fn, to_numpy(y_true, "y_true"))) > 2:
        return multi.average_precision(  # type: ignore[return-value]
            fn, y_true, y_score, average=average, pos_label=pos_label, sample_weight=sample_weight
        )
    y = to_numpy(y_true, "y_true")
    classes = class_labels(fn, y)
    y_score = as_array(y_score, "y_score")
    if y_score.ndim == 2 and y_score.shape[1] > 1:
        raise InvalidParameterError(
            f"{fn}: y_true holds {len(classes)} classes: perfeval computes the binary average precision "
            "only (multiclass / multilabel averaging is not supported); pass one class against the "
            "rest with pos_label="
        )
    if len(classes) == 2 and pos_label not in classes.tolist():
        raise InvalidDataError(
            f"{fn}: pos_label={pos_label!r} is not a valid label. It should be one of [{label_values(y)}]"
        )
    h, _ = _binary_curve_input(fn, y, y_score, pos_label, sample_weight)
    if h.n_pos == 0:
        warn_undefined("No positive class found in y_true, recall is set to one for all thresholds.")
        return 0.0
    return float(max(0.0, get_measure("AP")(h)))


# -- probabilities ---------------------------------------------------------------------------------------
def _probabilities(fn: str, y_proba: Any, n: int) -> Array:
    p = _scores(fn, y_proba, n, "y_proba")
    if len(p) and p.max() > 1:
        raise InvalidDataError(f"{fn}: y_prob contains values greater than 1: {p.max()!r}")
    if len(p) and p.min() < 0:
        raise InvalidDataError(f"{fn}: y_prob contains values less than 0: {p.min()!r}")
    return p


def brier_score_loss(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    scale_by_half: bool | str = "auto",
) -> float:
    """scikit-learn's ``brier_score_loss`` for binary targets: the mean of (y - p)^2.

    ``y_proba`` is the probability of ``pos_label`` (default: 1 for {0, 1} and {-1, 1} labels, the
    greater label for other numbers; string labels need it), in [0, 1].  ``scale_by_half`` is
    scikit-learn's (>= 1.7): ``"auto"`` and ``True`` give the mean, ``False`` twice it (the
    two-column sum).  An (n, K) ``y_proba`` (K >= 2, its columns the sorted ``labels`` or the labels
    of y_true) gives scikit-learn's multiclass Brier score (:mod:`perfeval.functional.sklearn_scores`).
    """
    fn = "brier_score_loss"
    if scale_by_half in ("auto", True, False) and as_array(y_proba, "y_proba").ndim == 2:
        if as_array(y_proba, "y_proba").shape[1] > 1:  # (n, K): scikit-learn's multiclass form
            from perfeval.functional import sklearn_scores as multi

            return multi.brier_score_loss(
                fn, y_true, y_proba, sample_weight=sample_weight, labels=labels, scale_by_half=scale_by_half
            )
    y = to_numpy(y_true, "y_true")
    classes = class_labels(fn, y)
    if len(classes) > 2:
        raise InvalidDataError(
            f"{fn}: The type of the target inferred from y_true is multiclass but should be binary "
            "according to the shape of y_prob (perfeval computes the binary Brier score)"
        )
    if scale_by_half not in ("auto", True, False):
        raise InvalidParameterError(
            f"{fn}: scale_by_half must be 'auto', True or False, got {scale_by_half!r}"
        )
    p = _probabilities(fn, y_proba, len(y))
    if pos_label is None:
        try:
            pos_label = _default_pos_label(fn, classes)
        except InvalidDataError:
            if _is_text(classes):
                raise
            pos_label = classes[-1]
    w = check_sample_weight(fn, sample_weight, len(y))
    h = ScoreHistogram.from_checked(np.asarray(y == pos_label, dtype=bool), p, w)
    if h.n == 0:
        raise InvalidDataError(f"{fn}: every case has weight 0; nothing to evaluate")

    value = float(get_measure("BRIER")(h))
    return value if scale_by_half in ("auto", True) else 2.0 * value


def log_loss(
    y_true: Any,
    y_proba: Any = None,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
    y_pred: Any = "deprecated",
    base: float = math.e,
) -> float:
    """scikit-learn's ``log_loss`` for binary targets: the mean (``normalize=False``: the weighted
    sum) of -log p of the true class.

    ``y_proba`` (1-D) is the probability of the greater of the two labels (of ``labels`` when given),
    in [0, 1]; as scikit-learn, it is clipped to [eps, 1 - eps] with eps the float64 machine epsilon,
    so that one certain mistake costs about 36 nats, not infinity.  ``y_true`` with one label only
    needs ``labels`` (an error otherwise, as in scikit-learn).  ``y_pred`` is the former name of
    ``y_proba`` (a FutureWarning, as in scikit-learn 1.9).  ``base`` is perfeval's: 2 gives bits.
    An (n, K) ``y_proba``, or more than two classes, is scikit-learn's multiclass log loss
    (:mod:`perfeval.functional.sklearn_scores`).
    """
    fn = "log_loss"
    if (
        isinstance(base, bool)
        or not isinstance(base, numbers.Real)
        or not math.isfinite(base)
        or not base > 0
        or base == 1
    ):
        raise InvalidParameterError(
            f"{fn}: base must be a finite number > 0 other than 1 (e, or 2 for bits), got {base!r}"
        )
    if not (isinstance(y_pred, str) and y_pred == "deprecated"):  # scikit-learn < 1.9's name
        if y_proba is not None:
            raise InvalidParameterError(f"{fn}: pass y_proba or its former name y_pred, not both")
        warnings.warn(
            "`y_pred` was renamed to `y_proba` in scikit-learn 1.9; use `y_proba`",
            FutureWarning,
            stacklevel=2,
        )
        y_proba = y_pred
    if y_proba is None:
        raise InvalidParameterError(f"{fn}: y_proba (the probability of the greater label) is required")
    p_arr = as_array(y_proba, "y_proba")
    y = to_numpy(y_true, "y_true")
    seen = class_labels(fn, y)
    n_labels = len(seen if labels is None else class_labels(fn, to_numpy(labels, "labels"), "labels"))
    if (p_arr.ndim == 2 and p_arr.shape[1] > 1) or n_labels > 2:  # scikit-learn's multiclass form
        from perfeval.functional import sklearn_scores as multi

        nats = multi.log_loss(fn, y, p_arr, normalize=normalize, sample_weight=sample_weight, labels=labels)
        return nats if base == math.e else nats / math.log(float(base))
    if labels is not None:
        classes = class_labels(fn, to_numpy(labels, "labels"), "labels")
        if len(classes) < 2:
            raise InvalidDataError(
                f"{fn}: The labels array needs to contain at least two labels, got {classes.tolist()}"
            )
        outside = np.setdiff1d(seen, classes)
        if len(outside):
            raise InvalidDataError(
                f"{fn}: y_true contains values {set(outside.tolist())} not belonging to the passed "
                f"labels {classes.tolist()}"
            )
    else:
        classes = seen
        if len(classes) < 2:
            raise InvalidDataError(
                f"{fn}: y_true contains only one label ({classes[0]!r}). Please provide the list of "
                "all expected class labels explicitly through the labels argument."
            )
    if len(classes) > 2:
        raise InvalidParameterError(
            f"{fn}: y_true holds {len(classes)} classes: perfeval computes the binary log loss (one "
            "probability per case, of the greater label); multiclass y_proba is not supported"
        )
    p = _probabilities(fn, y_proba, len(y))
    w = check_sample_weight(fn, sample_weight, len(y))
    h = ScoreHistogram.from_checked(np.asarray(y == classes[1], dtype=bool), p, w)
    if h.n == 0:
        raise InvalidDataError(f"{fn}: every case has weight 0; nothing to evaluate")
    nats = float(get_measure("LOGLOSS")(h, eps=float(np.finfo(np.float64).eps)))
    value = nats if normalize else nats * h.n
    return value if base == math.e else value / math.log(float(base))


def _prob_1d(fn: str, y_prob: Any, n: int) -> Array:
    """``y_prob`` as 1-D float64, finite, in [0, 1]."""
    arr = as_array(y_prob, "y_prob")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidDataError(f"{fn}: `y_prob` must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind not in "biufO":
        raise InvalidDataError(f"{fn}: `y_prob` must hold numbers, got values of type {arr.dtype}")
    p = floats(arr, "y_prob", where=fn)
    if len(p) != n:
        raise InvalidDataError(f"{fn}: `y_true` and `y_prob` have different lengths, {n} and {len(p)}")
    bad = ~np.isfinite(p)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidDataError(
            f"{fn}: `y_prob` holds {shown(p[i])} at index {i}; probabilities must be numbers"
        )
    if p.min() < 0 or p.max() > 1:
        i = int(np.argmax((p < 0) | (p > 1)))
        raise InvalidDataError(f"{fn}: y_prob has values outside [0, 1]: {shown(p[i])} at index {i}")
    return p


def calibration_curve(
    y_true: Any,
    y_prob: Any,
    *,
    pos_label: Any = None,
    n_bins: int = 5,
    strategy: str = "uniform",
) -> tuple[Array, Array]:
    """scikit-learn's ``calibration_curve`` (``sklearn.calibration``): per non-empty bin of the
    probabilities, the share of positives (``prob_true``) and the mean probability (``prob_pred``).

    ``strategy="uniform"``: ``n_bins`` bins of equal width over [0, 1]; ``"quantile"``: the bin
    edges are numpy's percentiles of ``y_prob`` (linear interpolation), as scikit-learn takes them.
    A probability equal to an inner edge falls in the lower bin (numpy's ``searchsorted``, as
    scikit-learn).  The counts and sums per bin come from perfeval's exact summary (the distinct
    probabilities with their positives and negatives).  Empty bins are left out.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: {0, 1}, {-1, 1} or booleans, or any two labels with ``pos_label``.
    y_prob : array-like of shape (n_samples,)
        The probability of the positive class, in [0, 1] (NaN is refused: scikit-learn lets it
        through and returns NaN).
    pos_label : int, float, bool or str, optional
        The positive class; required unless the labels are {0, 1} or {-1, 1}.
    n_bins : int, default 5
    strategy : {"uniform", "quantile"}, default "uniform"

    Returns
    -------
    prob_true, prob_pred : ndarray of float64, of length n_bins or less

    Examples
    --------
    >>> t, p = calibration_curve([0, 0, 0, 0, 1, 1, 1, 1, 1],
    ...                          [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0], n_bins=3)
    >>> t.tolist(), [round(v, 6) for v in p.tolist()]
    ([0.0, 0.5, 1.0], [0.2, 0.525, 0.85])
    """
    fn = "calibration_curve"
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise InvalidParameterError(f"{fn}: n_bins must be a whole number >= 1, got {n_bins!r}")
    if not isinstance(strategy, str) or strategy not in ("uniform", "quantile"):
        raise InvalidParameterError(f"{fn}: strategy must be 'uniform' or 'quantile', got {strategy!r}")
    y = to_numpy(y_true, "y_true")
    classes = class_labels(fn, y)
    if pos_label is None:
        pos_label = _default_pos_label(fn, classes)
    p = _prob_1d(fn, y_prob, len(y))
    if len(classes) > 2:
        raise InvalidDataError(
            f"{fn}: Only binary classification is supported. Provided labels {label_values(y)}"
        )
    n = int(n_bins)
    if strategy == "quantile":
        edges = np.percentile(p, np.linspace(0, 1, n + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, n + 1)
    h = ScoreHistogram.from_checked(np.asarray(y == pos_label, dtype=bool), p, None)
    counts = h.pos + h.neg
    ids = np.searchsorted(edges[1:-1], h.scores)
    total = np.bincount(ids, weights=counts, minlength=n)
    true = np.bincount(ids, weights=h.pos, minlength=n)
    sums = np.bincount(ids, weights=h.scores * counts, minlength=n)
    nonzero = total != 0
    return true[nonzero] / total[nonzero], sums[nonzero] / total[nonzero]


# -- ranking (one row a query) ---------------------------------------------------------------------------
def _dcg_rows(fn: str, y_true: Any, y_score: Any, k: int | None, ignore_ties: bool, measure: str) -> Array:
    """Per row (query) the tie-averaged DCG@k or NDCG@k with linear gain, from perfeval's tie tables."""
    rel, s = as_array(y_true, "y_true"), as_array(y_score, "y_score")
    if rel.ndim != 2:
        raise InvalidDataError(
            f"{fn}: y_true must be 2-D, one row a query and one column a document, as in scikit-learn; "
            f"got shape {rel.shape} (for one query pass [y_true] and [y_score])"
        )
    if s.shape != rel.shape:
        raise InvalidDataError(f"{fn}: y_true has shape {rel.shape} but y_score {s.shape}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1):
        raise InvalidParameterError(f"{fn}: k must be a whole number >= 1 or None, got {k!r}")
    rel = floats(rel, "y_true")
    s = floats(s, "y_score")
    check_scores(s.ravel())
    n_rows, n_cols = rel.shape
    if ignore_ties:
        # numpy's own order of the scores, as scikit-learn takes it (argsort, reversed): distinct ranks
        order = np.argsort(s)[:, ::-1]
        ranked = np.empty_like(s)
        np.put_along_axis(ranked, order, np.arange(n_cols, 0, -1, dtype=np.float64)[None, :], axis=1)
        s = ranked
    spec = f"{measure}@{int(k)}:gain=linear" if k is not None else f"{measure}:gain=linear"
    groups = np.repeat(np.arange(n_rows), n_cols)
    r = evaluate(rel.ravel(), s.ravel(), groups=groups, measures=[spec])
    res = next(iter(r.results.values()))
    values = np.asarray(res.per_group, dtype=np.float64)
    return np.where(np.isnan(values), 0.0, values)  # a query without relevance counts 0, as scikit-learn


def _row_average(fn: str, values: Array, sample_weight: Any) -> float:
    if sample_weight is None:
        return float(np.mean(values))
    w = check_sample_weight(fn, sample_weight, len(values), all_zero=True, cases="queries (rows)")
    assert w is not None
    if w.sum() == 0:
        raise InvalidDataError(f"{fn}: the weights of the queries sum to zero")
    return float(np.average(values, weights=w))


def ndcg_score(
    y_true: Any, y_score: Any, *, k: int | None = None, sample_weight: Any = None, ignore_ties: bool = False
) -> float:
    """scikit-learn's ``ndcg_score``: the mean over rows (queries) of NDCG@k with linear gain.

    Tied scores are averaged over their orders (``ignore_ties=False``, scikit-learn's default, the
    same expectation perfeval's NDCG takes); ``ignore_ties=True`` ranks by numpy's
    ``argsort`` reversed, as scikit-learn.  A row without relevant documents counts 0;
    ``sample_weight`` weights the rows.  Relevance must be >= 0 and each row hold at least two
    documents (errors, as in scikit-learn).

    Examples
    --------
    >>> round(ndcg_score([[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]), 6)
    0.695694
    """
    fn = "ndcg_score"
    rel = as_array(y_true, "y_true")
    if rel.ndim == 2 and rel.shape[1] <= 1:
        raise InvalidDataError(
            f"{fn}: Computing NDCG is only meaningful when there is more than 1 document. "
            f"Got {rel.shape[1]} instead."
        )
    if rel.size and rel.dtype.kind in "iuf" and rel.min() < 0:
        raise InvalidDataError(f"{fn}: ndcg_score should not be used on negative y_true values.")
    return _row_average(fn, _dcg_rows(fn, y_true, y_score, k, ignore_ties, "ndcg"), sample_weight)


def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """scikit-learn's ``dcg_score``: the mean over rows of DCG@k, gain the relevance itself, discount
    1 / log_base(rank + 1), tied scores averaged over their orders.

    Relevance must be >= 0 here (scikit-learn accepts negative values; perfeval refuses them).  Each
    row holds at least two documents: scikit-learn reads one column as a 1-D target and refuses it.
    """
    fn = "dcg_score"
    rel = as_array(y_true, "y_true")
    if rel.ndim == 2 and rel.shape[1] <= 1:
        raise InvalidDataError(
            f"{fn}: y_true has {rel.shape[1]} column(s): a query needs at least 2 documents (scikit-learn "
            "reads one column as a 1-D target, which dcg_score does not support)"
        )
    if (
        isinstance(log_base, bool)
        or not isinstance(log_base, numbers.Real)
        or not math.isfinite(log_base)
        or not log_base > 0
        or log_base == 1
    ):
        raise InvalidParameterError(f"{fn}: log_base must be a finite number > 0 and not 1, got {log_base!r}")
    values = _dcg_rows(fn, y_true, y_score, k, ignore_ties, "dcg")
    if log_base != 2:
        values = values * (math.log(log_base) / math.log(2.0))
    return _row_average(fn, values, sample_weight)


def _top_k_hits(s: Array, code: Array, k: int) -> Array:
    """Whether each case's true label (column ``code``) is among its row's top ``k``, ties ordered as
    scikit-learn's reversed stable argsort orders them (the later column first); 1-D: binary rules.
    """
    if s.ndim == 1:
        if k == 1:
            threshold = 0.5 if s.min() >= 0 and s.max() <= 1 else 0
            return (s > threshold).astype(np.int64) == code
        return np.ones(len(s), dtype=bool)
    own = s[np.arange(len(s)), code][:, None]
    later = np.arange(s.shape[1])[None, :] > code[:, None]
    place = np.count_nonzero(s > own, axis=1) + np.count_nonzero((s == own) & later, axis=1)
    return place < k


def _top_k_classes(fn: str, seen: Array, labels: Any, n_score_classes: int) -> Array:
    """The labels of ``y_score``'s columns: ``labels`` (distinct and sorted), else those of y_true;
    as many as the columns (2 for 1-D scores).
    """
    if labels is None:
        if len(seen) != n_score_classes:
            raise InvalidDataError(
                f"{fn}: Number of classes in 'y_true' ({len(seen)}) not equal to the number of "
                f"classes in 'y_score' ({n_score_classes}). You can provide a list of all known "
                "classes by assigning it to the `labels` parameter."
            )
        return seen
    given = to_numpy(labels, "labels")
    classes = class_labels(fn, given, "labels")
    if len(classes) != len(given):
        raise InvalidParameterError(f"{fn}: Parameter 'labels' must be unique: {label_values(given)}")
    if not np.array_equal(classes, given):
        raise InvalidParameterError(f"{fn}: Parameter 'labels' must be ordered (sorted ascending)")
    if len(classes) != n_score_classes:
        raise InvalidDataError(
            f"{fn}: Number of given labels ({len(classes)}) not equal to the number of classes in "
            f"'y_score' ({n_score_classes})."
        )
    return classes


def top_k_accuracy_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int = 2,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    """scikit-learn's ``top_k_accuracy_score``: the (weighted) share of cases whose true label is
    among the ``k`` labels of highest score (``normalize=False``: their weighted count).

    Multiclass: ``y_score`` has one column a label, in the order of ``labels`` (default: the sorted
    labels of ``y_true``, which must then all appear).  Ties are broken as scikit-learn breaks them
    (a stable ``argsort`` of each row, reversed): among labels of equal score the one of the higher
    column comes first.  So the true label's place in its row is the number of labels of higher
    score plus the number of labels of equal score in a later column, and the case is a hit when
    that place is below ``k``; perfeval counts this directly instead of sorting the rows.

    Binary (two labels, 1-D ``y_score``: the score of the greater label): every case is a hit for
    ``k >= 2``; for ``k = 1`` the greater label is predicted where the score is above 0.5 (scores
    in [0, 1]) or above 0 (any other scores), as scikit-learn does.  ``k >= `` the number of labels
    gives 1.0 with an :class:`~perfeval.exceptions.UndefinedMeasureWarning`, scikit-learn's text.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Class labels (numbers or strings).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Finite scores (probabilities or decision values).
    k : int, default 2
    normalize : bool, default True
    sample_weight : array-like of shape (n_samples,), optional
        Weights >= 0.
    labels : array-like of shape (n_classes,), optional
        The labels of ``y_score``'s columns, sorted and distinct.

    Examples
    --------
    >>> top_k_accuracy_score([0, 1, 2, 2], [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2],
    ...                                     [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]], k=2)
    0.75
    """
    fn = "top_k_accuracy_score"
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise InvalidParameterError(f"{fn}: k must be a whole number >= 1, got {k!r}")
    if not isinstance(normalize, (bool, np.bool_)):
        raise InvalidParameterError(f"{fn}: normalize must be True or False, got {normalize!r}")
    y = to_numpy(y_true, "y_true")
    seen = class_labels(fn, y)
    multiclass = len(seen) > 2 or (labels is not None and len(np.asarray(labels).reshape(-1)) > 2)
    s = score_matrix(fn, y_score)
    if not multiclass:
        if s.ndim == 2 and s.shape[1] != 1:
            raise InvalidDataError(
                f"{fn}: `y_true` is binary while y_score is 2d with {s.shape[1]} classes. If `y_true` "
                "does not contain all the labels, `labels` must be provided."
            )
        s = s.reshape(-1)
    elif s.ndim != 2:
        raise InvalidDataError(
            f"{fn}: `y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            f"multiple classes. Got `y_score.shape={s.shape}`."
        )
    if len(s) != len(y):
        raise InvalidDataError(f"{fn}: `y_true` and `y_score` have different lengths, {len(y)} and {len(s)}")
    w = check_sample_weight(fn, sample_weight, len(y), all_zero=True)  # scikit-learn: 0 hits, or 0 / 0
    classes = _top_k_classes(fn, seen, labels, s.shape[1] if s.ndim == 2 else 2)
    code = label_indices(y, classes)
    outside = code == len(classes)
    if outside.any():
        i = int(np.argmax(outside))
        raise InvalidDataError(
            f"{fn}: 'y_true' contains labels not in parameter 'labels': {shown(y[i])} at index {i}"
        )
    if k >= len(classes):
        warn_undefined(
            f"'k' ({k}) greater than or equal to 'n_classes' ({len(classes)}) will result in a "
            "perfect score and is therefore meaningless."
        )
    hits = _top_k_hits(s, code, k)
    if normalize:
        if w is not None and not w.sum() > 0:
            raise InvalidDataError(f"{fn}: the weights sum to zero; the share is undefined")
        return float(np.average(hits, weights=w))
    return float(np.sum(hits)) if w is None else float(np.dot(hits, w))


# -- hard predictions ------------------------------------------------------------------------------------
def hard_labels(
    fn: str, y_true: Any, y_pred: Any, sample_weight: Any
) -> tuple[Array, Array, Array, Array | None]:
    """scikit-learn's ``_check_targets`` for 1-D labels: (y_true, y_pred, sorted labels of both, weights)."""
    yt, yp = to_numpy(y_true, "y_true"), to_numpy(y_pred, "y_pred")
    if len(yt) != len(yp):
        raise InvalidDataError(f"{fn}: `y_true` and `y_pred` have different lengths, {len(yt)} and {len(yp)}")
    ct = class_labels(fn, yt)
    cp = class_labels(
        fn,
        yp,
        "y_pred",
        f"; {fn} takes hard predictions (class labels), as scikit-learn: threshold the scores first "
        "(y_score >= 0.5), or use perfeval's score functions with threshold=",
    )
    if _has_text(ct) != _has_text(cp):
        raise InvalidDataError(
            f"{fn}: Mix of label input types (string and number): y_true holds {label_values(yt)}, "
            f"y_pred {label_values(yp)}"
        )
    try:
        labels = np.unique(np.concatenate([ct, cp]))
    except TypeError:
        raise InvalidDataError(
            f"{fn}: Mix of label input types (string and number): y_true holds {label_values(yt)}, "
            f"y_pred {label_values(yp)}"
        ) from None
    return yt, yp, labels, check_sample_weight(fn, sample_weight, len(yt))
