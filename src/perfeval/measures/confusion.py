"""Every measure finished from a K x K confusion matrix, or from per-label 2 x 2 counts (multilabel).

The one kernel for the label-based measures of multiclass and multilabel problems: perfeval's own
measures and scikit-learn's names (:mod:`perfeval.functional.sklearn_labels`) both finish here, each
applying its own policy to what is undefined.  Conventions:

- classes are integer codes ``0 .. K-1`` (the door maps labels to codes);
- a confusion matrix ``C`` is float64, rows the true class, columns the predicted class, each cell
  the summed weight of its cases (a case of weight 0 counts exactly as a dropped case);
- per-class values are NaN where they are 0/0 (a class absent from the targets, or, for
  precision, from the predictions); averages leave a NaN class out (the caller lists it), and are
  NaN when every class is left out.

numpy only, vectorised: O(n) to count (``np.bincount``), O(K^2) to finish; a loop over the K
classes at most, never over the rows.

Examples
--------
>>> C = confusion(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 1]), 3)
>>> C.tolist()
[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
>>> accuracy(C)
0.5
>>> p, r, f = precision_recall_fbeta(*class_counts(C)[:3])
>>> p.tolist(), r.tolist()
([1.0, 0.0, 0.5], [1.0, 0.0, 0.5])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError

__all__ = [
    "confusion",
    "expected_confusion",
    "class_totals",
    "class_counts",
    "accuracy",
    "balanced_accuracy",
    "precision_recall_fbeta",
    "average",
    "prf_average",
    "matthews",
    "cohen_kappa",
    "label_counts",
    "label_totals",
    "hamming_loss",
    "subset_accuracy",
    "jaccard",
    "jaccard_average",
    "samples_prf",
]

Array = np.ndarray
AVERAGES = ("macro", "weighted", "micro", None)


def _div(a: Any, b: Any) -> Array:
    """A / b elementwise in float64, NaN where b == 0."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), np.nan)


def _scalar(a: Any, b: Any) -> float:
    return float(_div(a, b))


# -- counting --------------------------------------------------------------------------------------------
def confusion(y_codes: Array, p_codes: Array, k: int, w: Array | None = None) -> Array:
    """The K x K confusion matrix of true and predicted class codes.

    Parameters
    ----------
    y_codes, p_codes : ndarray of int, shape (n,)
        The true and the predicted class of each case, codes in ``0 .. k-1``.
    k : int
        The number of classes.
    w : ndarray of float64, shape (n,), optional
        Weights >= 0 (None: all 1, with the same numbers bit for bit).

    Returns
    -------
    ndarray of float64, shape (k, k)
        ``C[i, j]``: the summed weight of the cases of true class ``i`` predicted ``j`` (summed in
        case order).  No case: all zeros.
    """
    y, p = np.asarray(y_codes, dtype=np.intp), np.asarray(p_codes, dtype=np.intp)
    cells = y * k + p
    out = np.bincount(cells, weights=w, minlength=k * k)
    return out.astype(np.float64, copy=False).reshape(k, k)


def expected_confusion(y_codes: Array, scores: Array, w: Array | None = None) -> Array:
    """The confusion matrix of argmax predictions, a tie at the maximum shared (the project's tie rule).

    Each case is predicted the class of its highest score; where ``t`` classes share the highest
    score, each of them gets ``w / t`` of the case's weight: the expected confusion matrix over the
    orders of the tie.

    Parameters
    ----------
    y_codes : ndarray of int, shape (n,)
        True class codes in ``0 .. K-1``.
    scores : ndarray of float64, shape (n, K)
        One column a class; finite (NaN would be a tie with nothing: the caller refuses it).
    w : ndarray of float64, shape (n,), optional
        Weights >= 0.

    Returns
    -------
    ndarray of float64, shape (K, K)
        Rows the true class, columns the predicted one.  Each row of cases contributes its weight
        exactly once in exact arithmetic (``t`` shares of ``w / t``); in float64 a share is
        rounded when ``t`` is not a power of two, so the row sums of ``C`` equal the classes'
        weights to within a few ulps (exactly without ties).
    """
    s = np.asarray(scores, dtype=np.float64)
    n, k = s.shape
    y = np.asarray(y_codes, dtype=np.intp)
    top = s == s.max(axis=1, keepdims=True) if n else np.zeros((0, k), dtype=bool)
    t = np.count_nonzero(top, axis=1)
    rows, cols = np.nonzero(top)
    if (t == 1).all():
        share = None if w is None else np.asarray(w, dtype=np.float64)[rows]
    else:
        base = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
        share = (base / t)[rows]
    out = np.bincount(y[rows] * k + cols, weights=share, minlength=k * k)
    return out.astype(np.float64, copy=False).reshape(k, k)


def class_totals(
    y_codes: Array, p_codes: Array, k: int, w: Array | None = None
) -> tuple[Array, Array, Array]:
    """Each class's true positives, predicted weight and true weight counted from the codes.

    The same numbers as :func:`class_counts` of :func:`confusion` (the diagonal, the column sums, the
    row sums), each summed in case order by ``np.bincount``, as scikit-learn sums them (so that its
    supports come out bit for bit); O(n).

    Returns
    -------
    tp, pred, true : ndarray of float64, shape (k,)
    """
    y, p = np.asarray(y_codes, dtype=np.intp), np.asarray(p_codes, dtype=np.intp)
    hit = y == p
    wh = None if w is None else np.asarray(w, dtype=np.float64)[hit]
    tp = np.bincount(y[hit], weights=wh, minlength=k)
    pred = np.bincount(p, weights=w, minlength=k)
    true = np.bincount(y, weights=w, minlength=k)
    return tuple(a.astype(np.float64, copy=False) for a in (tp, pred, true))  # type: ignore[return-value]


def class_counts(C: Array) -> tuple[Array, Array, Array, Array]:
    """Each class's one-against-the-rest counts from a confusion matrix.

    Returns
    -------
    tp, pred, true, total : ndarray of float64, shape (K,), and float
        ``tp`` the diagonal, ``pred`` the column sums (weight predicted as the class), ``true`` the
        row sums (the class's support), ``total`` the sum of ``C``.  FP = pred - tp,
        FN = true - tp, TN = total - pred - true + tp.
    """
    C = np.asarray(C, dtype=np.float64)
    return np.diagonal(C).copy(), C.sum(axis=0), C.sum(axis=1), C.sum()


# -- from a confusion matrix -----------------------------------------------------------------------------
def accuracy(C: Array) -> float:
    """The share of the weight on the diagonal: trace(C) / sum(C); NaN for an empty matrix (no weight)."""
    C = np.asarray(C, dtype=np.float64)
    return _scalar(np.trace(C), C.sum())


def balanced_accuracy(C: Array, *, adjusted: bool = False) -> float:
    """The mean recall over the classes present in the targets (row sum > 0).

    A class with no true case (recall 0/0) is left out.  ``adjusted`` rescales so that chance
    (1 / the number of classes averaged) is 0 and perfect is 1: (score - 1/m) / (1 - 1/m).

    Returns NaN when no class has a true case (an empty matrix), and, adjusted, when only one class
    has one (1 - 1/m = 0).
    """
    C = np.asarray(C, dtype=np.float64)
    recall = _div(np.diagonal(C), C.sum(axis=1))
    recall = recall[~np.isnan(recall)]
    if len(recall) == 0:
        return float("nan")
    score = float(np.mean(recall))
    if adjusted:
        chance = 1 / len(recall)
        return _scalar(score - chance, 1 - chance)
    return score


def precision_recall_fbeta(
    tp: Array, pred: Array, true: Array, beta: float = 1.0
) -> tuple[Array, Array, Array]:
    """Per class precision tp/pred, recall tp/true and F-beta (1 + b^2) tp / (b^2 true + pred).

    Parameters
    ----------
    tp, pred, true : array_like of float64, shape (K,)
        Per class (or per label, or per sample) true positives, predicted weight and true weight
        (:func:`class_counts`, :func:`label_counts`).
    beta : float, default 1
        Recall weighs ``beta`` times precision; ``inf`` gives the recall, 0 the precision.

    Returns
    -------
    precision, recall, fbeta : ndarray of float64, shape (K,)
        NaN where 0/0: precision where nothing is predicted the class, recall where the class has
        no true case, F-beta where both (F is 0, not NaN, when one of them is defined and tp = 0).
        ``beta = inf`` (0): F-beta is the recall (precision), NaN where that one is.
    """
    tp, pred, true = (np.asarray(a, dtype=np.float64) for a in (tp, pred, true))
    precision, recall = _div(tp, pred), _div(tp, true)
    if np.isposinf(beta):
        f = recall.copy()
    elif beta == 0:
        f = precision.copy()
    else:
        b2 = beta * beta
        f = _div((1 + b2) * tp, b2 * true + pred)
    return precision, recall, f


def average(values: Array, weights: Array | None = None) -> float:
    """The (weighted) mean of the values that are not NaN; NaN when none is (or their weights sum to 0).

    The NaN values are left out of the mean and of the weights' sum: the caller lists them.
    """
    v = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(v)
    if not keep.any():
        return float("nan")
    if weights is None:
        return float(np.mean(v[keep]))
    wk = np.asarray(weights, dtype=np.float64)[keep]
    return _scalar(np.dot(v[keep], wk), wk.sum())


def prf_average(
    tp: Array, pred: Array, true: Array, average_: str | None, beta: float = 1.0
) -> tuple[Any, Any, Any]:
    """Precision, recall and F-beta averaged over classes (or labels), perfeval's policy.

    ``average_``: ``"macro"`` the plain mean of the defined per-class values, ``"weighted"`` their
    mean weighted by support (``true``), ``"micro"`` the measures of the summed counts, ``None``
    the per-class arrays (:func:`precision_recall_fbeta`).  A NaN class (0/0) is left out of macro
    and weighted; an average over no defined class is NaN.
    """
    if average_ not in AVERAGES:
        raise InvalidParameterError(f"average must be one of {AVERAGES}, got {average_!r}")
    if average_ == "micro":
        s_tp, s_pred, s_true = (np.asarray(a, dtype=np.float64).sum(keepdims=True) for a in (tp, pred, true))
        p1, r1, f1 = precision_recall_fbeta(s_tp, s_pred, s_true, beta)
        return float(p1[0]), float(r1[0]), float(f1[0])
    p, r, f = precision_recall_fbeta(tp, pred, true, beta)
    if average_ is None:
        return p, r, f
    w = None if average_ == "macro" else np.asarray(true, dtype=np.float64)
    return average(p, w), average(r, w), average(f, w)


def matthews(C: Array) -> float:
    """The Matthews correlation coefficient in Gorodkin's K-class form (R_K).

    (c s - sum_k p_k t_k) / sqrt((s^2 - sum_k p_k^2) (s^2 - sum_k t_k^2)), with c the trace, s the
    total, t_k and p_k the row and column sums; for K = 2 it is the binary MCC.  NaN when the
    denominator is 0 (every case of one true class, or every case predicted one class, or no case).
    """
    C = np.asarray(C, dtype=np.float64)
    t, p = C.sum(axis=1), C.sum(axis=0)
    s, c = float(p.sum()), float(np.trace(C))
    cov_tp = c * s - float(np.dot(t, p))
    den = (s * s - float(np.dot(p, p))) * (s * s - float(np.dot(t, t)))
    return float("nan") if den == 0 else float(cov_tp / np.sqrt(den))


def cohen_kappa(C: Array, weights: str | None = None) -> float:
    """Cohen's kappa of a confusion matrix (two raters: rows and columns), optionally weighted.

    kappa = 1 - sum(W * C) / sum(W * E), with E = outer(row sums, column sums) / total the agreement
    expected by chance and W the disagreement weights: 1 off the diagonal (``None``),
    ``|i - j|`` (``"linear"``) or ``(i - j)^2`` (``"quadratic"``, QWK), the classes in code order.

    NaN when the matrix is empty (total 0) or when sum(W * E) = 0 (the raters share one class only).
    """
    if weights not in (None, "linear", "quadratic"):
        raise InvalidParameterError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    C = np.asarray(C, dtype=np.float64)
    k = C.shape[0]
    total = C.sum()
    if total == 0:
        return float("nan")
    expected = np.outer(C.sum(axis=1), C.sum(axis=0)) / total
    i = np.arange(k)
    d = i[:, None] - i[None, :]
    W = (d != 0).astype(np.float64) if weights is None else np.abs(d) if weights == "linear" else d * d
    den = float(np.sum(W * expected))
    return float("nan") if den == 0 else 1.0 - float(np.sum(W * C)) / den


# -- multilabel: per-label 2 x 2 counts ------------------------------------------------------------------
def label_counts(
    Y: Array, P: Array, w: Array | None = None, *, axis: int = 0
) -> tuple[Array, Array, Array, Array]:
    """Per label (``axis=0``) or per sample (``axis=1``) true positives, false positives, false
    negatives and true negatives of two 0/1 indicator matrices.

    Parameters
    ----------
    Y, P : array_like of shape (n, K)
        True and predicted indicators (nonzero: the label is on).
    w : ndarray of float64, shape (n,), optional
        Case weights; per label each case counts its weight, per sample each count is multiplied
        by the case's weight.

    Returns
    -------
    tp, fp, fn, tn : ndarray of float64, shape (K,) or (n,)
    """
    Yb, Pb = np.asarray(Y) != 0, np.asarray(P) != 0
    cells = (Yb & Pb, ~Yb & Pb, Yb & ~Pb, ~Yb & ~Pb)
    if axis == 0:
        if w is None:
            return tuple(np.count_nonzero(c, axis=0).astype(np.float64) for c in cells)
        ww, k = np.asarray(w, dtype=np.float64), Yb.shape[1]
        out = []
        for c in cells:  # each label's weights summed in case order (np.nonzero's row-major order)
            rows, cols = np.nonzero(c)
            out.append(np.bincount(cols, weights=ww[rows], minlength=k).astype(np.float64, copy=False))
        return out[0], out[1], out[2], out[3]
    counts = [np.count_nonzero(c, axis=1).astype(np.float64) for c in cells]
    if w is None:
        return tuple(counts)
    ww = np.asarray(w, dtype=np.float64)
    return tuple(c * ww for c in counts)


def label_totals(Y: Array, P: Array, w: Array | None = None, *, axis: int = 0) -> tuple[Array, Array, Array]:
    """Per label (``axis=0``) or per sample (``axis=1``) true positives, predicted weight and true
    weight of two indicator matrices (FP = pred - tp, FN = true - tp), each weighted sum taken in
    case order as scikit-learn takes it (so that its supports come out bit for bit).

    Returns
    -------
    tp, pred, true : ndarray of float64, shape (K,) or (n,)
    """
    Yb, Pb = np.asarray(Y) != 0, np.asarray(P) != 0
    cells = (Yb & Pb, Pb, Yb)
    if axis == 1:
        counts = [np.count_nonzero(c, axis=1).astype(np.float64) for c in cells]
        if w is None:
            return counts[0], counts[1], counts[2]
        ww = np.asarray(w, dtype=np.float64)
        return counts[0] * ww, counts[1] * ww, counts[2] * ww
    if w is None:
        counts = [np.count_nonzero(c, axis=0).astype(np.float64) for c in cells]
        return counts[0], counts[1], counts[2]
    ww, k = np.asarray(w, dtype=np.float64), Yb.shape[1]
    out = []
    for c in cells:  # each label's weights summed in case order (np.nonzero's row-major order)
        rows, cols = np.nonzero(c)
        out.append(np.bincount(cols, weights=ww[rows], minlength=k).astype(np.float64, copy=False))
    return out[0], out[1], out[2]


def hamming_loss(Y: Array, P: Array, w: Array | None = None) -> float:
    """The (weighted) share of the n x K label cells predicted wrong; NaN with no weight (or K = 0)."""
    Yb, Pb = np.asarray(Y) != 0, np.asarray(P) != 0
    wrong = np.count_nonzero(Yb != Pb, axis=1).astype(np.float64)
    total = float(Yb.shape[0] if w is None else np.sum(w)) * Yb.shape[1]
    return _scalar(wrong.sum() if w is None else np.dot(wrong, w), total)


def subset_accuracy(Y: Array, P: Array, w: Array | None = None) -> float:
    """The (weighted) share of cases whose every label is predicted right; NaN with no weight."""
    Yb, Pb = np.asarray(Y) != 0, np.asarray(P) != 0
    exact = (Yb == Pb).all(axis=1).astype(np.float64)
    if w is None:
        return _scalar(exact.sum(), len(exact))
    return _scalar(np.dot(exact, w), np.sum(w))


def jaccard(tp: Array, fp: Array, fn: Array) -> Array:
    """Per label (or sample) tp / (tp + fp + fn); NaN where 0/0 (the label neither true nor predicted)."""
    tp = np.asarray(tp, dtype=np.float64)
    return _div(tp, tp + np.asarray(fp, dtype=np.float64) + np.asarray(fn, dtype=np.float64))


def jaccard_average(Y: Array, P: Array, w: Array | None = None, average_: str | None = "macro") -> Any:
    """Jaccard index of two indicator matrices: ``"samples"`` (per case, mean weighted by ``w``),
    ``"macro"``, ``"weighted"`` (by the label's true weight), ``"micro"`` (of the summed counts) or
    ``None`` (per label).  NaN classes / samples (0/0) are left out of the averages; nothing
    defined: NaN.
    """
    if average_ == "samples":
        tp, fp, fn, _tn = label_counts(Y, P, None, axis=1)
        return average(jaccard(tp, fp, fn), w)
    tp, fp, fn, _tn = label_counts(Y, P, w)
    if average_ == "micro":
        return float(jaccard(tp.sum(), fp.sum(), fn.sum()))
    j = jaccard(tp, fp, fn)
    if average_ is None:
        return j
    if average_ == "macro":
        return average(j)
    if average_ == "weighted":
        return average(j, tp + fn)
    raise InvalidParameterError(
        f"average must be one of samples, macro, weighted, micro, None; got {average_!r}"
    )


def samples_prf(Y: Array, P: Array, w: Array | None = None, beta: float = 1.0) -> tuple[float, float, float]:
    """Precision, recall and F-beta per case of two indicator matrices, averaged over the cases
    (weighted by ``w``): ``average="samples"``.  A case's value that is 0/0 (no true label for
    recall, none predicted for precision, neither for F) is left out; nothing defined: NaN.
    """
    tp, fp, fn, _tn = label_counts(Y, P, None, axis=1)
    p, r, f = precision_recall_fbeta(tp, tp + fp, tp + fn, beta)
    return average(p, w), average(r, w), average(f, w)
