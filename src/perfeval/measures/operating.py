"""Operating points, threshold choice and partial AUC, finished from the score histogram.

The operating points of a summary are one per achievable threshold: nothing predicted positive
(threshold +inf), then each distinct score t from the highest (a case is predicted positive when its
score >= t, :meth:`ScoreHistogram.counts_at`'s rule).  Only these are achievable: a threshold inside
a tied segment (one distinct score holding positives and negatives) would split cases of one score,
which no threshold does.  Every measure here picks one of them:

* an operating point at a target (TPR at FPR <= a, sensitivity at specificity >= s, specificity at
  sensitivity >= s, precision at recall >= r, recall at precision >= p): the best value over the
  points that meet the target; among points of equal value, the one whose other rate is best (the
  point that dominates them: it is unique).  No point meets the target: NaN;
* a chosen threshold (Youden's J, closest to (0, 1), best F-beta, best MCC, least cost): the best
  value over every point; among points of equal value, the highest threshold (the fewest cases
  predicted positive).

Each returns its value, or with ``of="threshold"`` the threshold of the point it picked (+inf: predict
nothing), so that the threshold is per group, streamed, on Dask and in ``ci`` like any value.

The partial AUC is the area under the ROC curve whose tied segments are straight lines (the chord:
the expected curve over random orders of a tie's cases), between two FPR values (or two TPR values,
``focus="tpr"``: the area between the curve and the line FPR = 1), raw or standardised as McClish
(1989) does.
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.summaries import ScoreHistogram

NAN = math.nan


def points(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """(thresholds, TP, FP, P, N): the operating points from the highest threshold down, the first
    being +inf (nothing predicted positive, TP = FP = 0); P and N the last point's TP and FP (every
    case predicted positive), so that the rates at the lowest threshold are exactly 1.
    """

    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        thr = np.concatenate(([math.inf], h.scores[::-1]))
        tp = np.concatenate(([0.0], np.cumsum(h.pos[::-1])))
        fp = np.concatenate(([0.0], np.cumsum(h.neg[::-1])))
        return thr, tp, fp, float(tp[-1]), float(fp[-1])

    return h.memo("operating_points", make)


def _ratio(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.asarray(b) != 0, a / np.where(np.asarray(b) != 0, b, 1.0), np.nan)


def _pick(value: np.ndarray, ok: np.ndarray, other: np.ndarray | None, higher: bool) -> int | None:
    """The index of the best finite ``value`` where ``ok``; among equal values the best ``other``
    (higher), then the first (the highest threshold); None when no point qualifies.
    """
    good = ok & np.isfinite(value)
    if not good.any():
        return None
    v = np.where(good, value, -np.inf if higher else np.inf)
    best = v.max() if higher else v.min()
    tied = np.flatnonzero(good & (v == best))
    if other is not None and len(tied) > 1:
        o = other[tied]
        o = np.where(np.isnan(o), -np.inf, o)
        tied = tied[o == o.max()]
    return int(tied[0])


def _result(value: np.ndarray, thr: np.ndarray, k: int | None, of: str) -> float:
    if k is None:
        return NAN
    return float(thr[k]) if of == "threshold" else float(value[k])


# -- operating points at a target -------------------------------------------------------------------


def tpr_at_fpr(h: ScoreHistogram, *, max_fpr: float, of: str) -> float:
    """The highest TPR over the thresholds whose FPR <= max_fpr (or that threshold)."""
    thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    tpr, fpr = tp / P, fp / N
    return _result(tpr, thr, _pick(tpr, fpr <= max_fpr, -fpr, True), of)


def sen_at_spc(h: ScoreHistogram, *, min_specificity: float, of: str) -> float:
    """The highest sensitivity over the thresholds whose specificity >= min_specificity."""
    thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    sen, spc = tp / P, (N - fp) / N
    return _result(sen, thr, _pick(sen, spc >= min_specificity, spc, True), of)


def spc_at_sen(h: ScoreHistogram, *, min_sensitivity: float, of: str) -> float:
    """The highest specificity over the thresholds whose sensitivity >= min_sensitivity."""
    thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    sen, spc = tp / P, (N - fp) / N
    return _result(spc, thr, _pick(spc, sen >= min_sensitivity, sen, True), of)


def pre_at_rec(h: ScoreHistogram, *, min_recall: float, of: str) -> float:
    """The highest precision over the thresholds whose recall >= min_recall (precision defined:
    something predicted positive).
    """
    thr, tp, fp, P, N = points(h)
    if P <= 0:
        return NAN
    rec, pre = tp / P, _ratio(tp, tp + fp)
    return _result(pre, thr, _pick(pre, rec >= min_recall, rec, True), of)


def rec_at_pre(h: ScoreHistogram, *, min_precision: float, of: str) -> float:
    """The highest recall over the thresholds whose precision >= min_precision."""
    thr, tp, fp, P, N = points(h)
    if P <= 0:
        return NAN
    rec, pre = tp / P, _ratio(tp, tp + fp)
    return _result(rec, thr, _pick(rec, np.nan_to_num(pre, nan=-1.0) >= min_precision, pre, True), of)


# -- partial AUC ---------------------------------------------------------------------------------------


def _area(x: np.ndarray, y: np.ndarray, lo: float, hi: float) -> float:
    """The area under the broken line through (x, y) (x non-decreasing) between x = lo and x = hi:
    each segment clipped to [lo, hi], its ends interpolated on it, by the trapezoid rule.
    """
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    wide = x1 > x0
    x0, x1, y0, y1 = x0[wide], x1[wide], y0[wide], y1[wide]
    left, right = np.maximum(x0, lo), np.minimum(x1, hi)
    inside = right > left
    x0, x1, y0, y1, left, right = (a[inside] for a in (x0, x1, y0, y1, left, right))
    slope = (y1 - y0) / (x1 - x0)
    yl, yr = y0 + slope * (left - x0), y0 + slope * (right - x0)
    # a segment's end inside the range is its own point, not one interpolated back onto it
    yl = np.where(left == x0, y0, yl)
    yr = np.where(right == x1, y1, yr)
    return float(np.sum((right - left) * (yl + yr) / 2))


def pauc(h: ScoreHistogram, *, hi: float, lo: float, focus: str, correct: str) -> float:
    """The area under the chord ROC curve over FPR in [lo, hi] (``focus="fpr"``), or between the
    curve and FPR = 1 over TPR in [lo, hi] (``focus="tpr"``); ``correct="mcclish"``: standardised,
    (1 + (area - min) / (max - min)) / 2 with min the chance line's area over the range and max the
    range's width.
    """
    if not lo < hi:
        raise InvalidParameterError(f"PAUC needs `lo` < `hi` (a range), got lo={lo:g}, hi={hi:g}")
    _thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    tpr, fpr = tp / P, fp / N
    if focus == "fpr":
        area = _area(fpr, tpr, lo, hi)
        least = (hi * hi - lo * lo) / 2
    else:
        area = _area(tpr, 1.0 - fpr, lo, hi)
        least = (hi - lo) - (hi * hi - lo * lo) / 2
    if correct == "raw":
        return area
    return (1 + (area - least) / ((hi - lo) - least)) / 2


# -- threshold choice: the best point over every threshold ------------------------------------------


def _chosen(value: np.ndarray, thr: np.ndarray, of: str, higher: bool) -> float:
    """The best finite value over every point, ties to the highest threshold (or that threshold)."""
    return _result(value, thr, _pick(value, np.ones(len(value), dtype=bool), None, higher), of)


def youden(h: ScoreHistogram, *, of: str) -> float:
    """Youden's J = TPR - FPR at the threshold that maximises it."""
    thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    return _chosen(tp / P - fp / N, thr, of, True)


def topleft(h: ScoreHistogram, *, of: str) -> float:
    """The distance sqrt(FPR^2 + (1 - TPR)^2) of the point closest to (0, 1)."""
    thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    fpr, fnr = fp / N, (P - tp) / P
    return _chosen(np.sqrt(fpr * fpr + fnr * fnr), thr, of, False)


def best_fbeta(h: ScoreHistogram, *, beta: float, of: str) -> float:
    """The highest F-beta over the thresholds (FBETA's count form at each)."""
    thr, tp, fp, P, N = points(h)
    if P <= 0:
        return NAN
    b2 = beta * beta
    return _chosen(_ratio((1 + b2) * tp, (1 + b2) * tp + b2 * (P - tp) + fp), thr, of, True)


def best_mcc(h: ScoreHistogram, *, of: str) -> float:
    """The highest Matthews correlation over the thresholds where it is defined (something and not
    everything predicted positive, both classes present).
    """
    thr, tp, fp, P, N = points(h)
    if P <= 0 or N <= 0:
        return NAN
    fn, tn = P - tp, N - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt((tp + fp) * P * N * (tn + fn))
    return _chosen(_ratio(tp * tn - fp * fn, den), thr, of, True)


def least_cost(h: ScoreHistogram, *, fn: float, fp: float, tp: float, tn: float, of: str) -> float:
    """The least total cost tp*TP + fn*FN + fp*FP + tn*TN (CST's) over the thresholds."""
    thr, tps, fps, P, N = points(h)
    if P + N <= 0:
        return NAN
    cost = tp * tps + fn * (P - tps) + fp * fps + tn * (N - fps)
    return _chosen(cost, thr, of, False)
