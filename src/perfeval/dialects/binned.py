"""The areas of tools that bin the scores: Keras' ``AUC``, torchmetrics with ``thresholds=``, Spark's
``BinaryClassificationEvaluator`` (``numBins``).  Each is finished from the exact
:class:`~perfeval.summaries.ScoreHistogram` (distinct scores with their positive and negative
weight): the counts at each of the tool's thresholds are sums over the histogram, so the cost is
O(distinct scores + thresholds), and a streamed or merged summary gives the same number.
The tools' formulas are followed term by term (cited per function); what they compute in float32,
this computes in float64 from the same float32 thresholds and scores, so the values agree to about
1e-7 (the tests state the tolerance per tool).
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.measures import get_measure
from perfeval.summaries import ScoreHistogram

#: keras.backend.epsilon(): the outer thresholds are -eps and 1 + eps
KERAS_EPSILON = 1e-7


def _above(h: ScoreHistogram, scores: np.ndarray, thresholds: np.ndarray, strict: bool) -> tuple:
    """Positive and negative weight of the cases above each threshold (``> t`` when ``strict``, else
    ``>= t``), from the histogram; ``scores``: its distinct scores as the tool sees them (ascending).
    """
    cp = np.concatenate(([0.0], np.cumsum(h.pos)))
    cn = np.concatenate(([0.0], np.cumsum(h.neg)))
    at = np.searchsorted(scores, thresholds, side="right" if strict else "left")
    return cp[-1] - cp[at], cn[-1] - cn[at]


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b``, 0 where ``b`` is 0 (keras.ops.divide_no_nan)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), 0.0)


def _keras_counts(h: ScoreHistogram, num_thresholds: int) -> tuple[np.ndarray, np.ndarray]:
    """Keras' true and false positive weight at each of its thresholds, as its evenly-spaced path
    counts them (``metrics_utils._update_confusion_matrix_variables_optimized``): the score clipped
    to [0, 1], its bucket ``max(ceil(p * (T - 1)) - 1, 0)`` in float32, and a case positive at every
    threshold up to its bucket (which is ``p > t`` for the thresholds -eps, i / (T - 1), 1 + eps).
    """
    t1 = np.float32(num_thresholds - 1)
    p = np.clip(h.scores.astype(np.float32), np.float32(0.0), np.float32(1.0))
    bucket = np.maximum(np.ceil(p * t1) - np.float32(1.0), np.float32(0.0)).astype(np.int64)
    pos = np.bincount(bucket, weights=h.pos, minlength=num_thresholds)
    neg = np.bincount(bucket, weights=h.neg, minlength=num_thresholds)
    return np.cumsum(pos[::-1])[::-1], np.cumsum(neg[::-1])[::-1]


def keras_auc(
    h: ScoreHistogram,
    *,
    num_thresholds: int = 200,
    curve: str = "ROC",
    summation_method: str = "interpolation",
) -> float:
    """keras.metrics.AUC (Keras 3, ``metrics/confusion_metrics.py``): true/false positives and
    negatives at each threshold (:func:`_keras_counts`), then a Riemann sum over the thresholds:
    ``interpolation`` takes the mean of the two heights (the trapezoid) for ROC and Davis &
    Goadrich's interpolation for PR; ``minoring`` / ``majoring`` the smaller / greater height.
    """
    if h.n == 0:
        return math.nan
    tp, fp = _keras_counts(h, num_thresholds)
    fn, tn = h.n_pos - tp, h.n_neg - fp
    if curve == "PR" and summation_method == "interpolation":
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = _div(dtp, np.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = np.where(both, _div(p[:-1], np.maximum(p[1:], 0.0)), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = slope * (dtp + intercept * np.log(ratio))
        return float(np.sum(_div(term, np.maximum(tp[1:] + fn[1:], 0.0))))
    if curve == "ROC":
        x, y = _div(fp, fp + tn), _div(tp, tp + fn)
    else:  # PR without interpolation: recall on x, precision on y
        x, y = _div(tp, tp + fn), _div(tp, tp + fp)
    if summation_method == "interpolation":
        heights = (y[:-1] + y[1:]) / 2.0
    elif summation_method == "minoring":
        heights = np.minimum(y[:-1], y[1:])
    else:
        heights = np.maximum(y[:-1], y[1:])
    return float(np.sum((x[:-1] - x[1:]) * heights))


def _squashed(h: ScoreHistogram) -> np.ndarray:
    """Torchmetrics' scores: a sigmoid of every score when any lies outside [0, 1] (it reads them
    as logits), else the scores.
    """
    s = h.scores
    if len(s) and (s[0] < 0 or s[-1] > 1):
        return 1.0 / (1.0 + np.exp(-s))
    return s


def _torchmetrics_exact(h: ScoreHistogram, curve: str) -> float:
    """``thresholds=None``: the tie-aware areas of the scores torchmetrics reads, their sigmoid when one
    lies outside [0, 1] (which ties the logits it rounds to the same value: in float64 those above
    about 37); 0 where a class is missing (AP: where no case is positive).
    """
    squashed = _squashed(h)
    scores, cell = np.unique(squashed, return_inverse=True)
    merged = ScoreHistogram(
        scores,
        np.bincount(cell, weights=h.pos, minlength=len(scores)),
        np.bincount(cell, weights=h.neg, minlength=len(scores)),
    )
    value = float(get_measure("roc" if curve == "ROC" else "ap")(merged))
    return 0.0 if math.isnan(value) else value


def torchmetrics_thresholds(thresholds: int) -> np.ndarray:
    """``torch.linspace(0, 1, thresholds)`` in float32, as torch 2.13's CPU kernel gives it (checked
    against it for every count from 2 to 400 and larger ones up to 70,001): with ``step = 1 / (T -
    1)`` in float32, ``step * i`` for the first half and ``1 - step * (T - 1 - i)`` for the second,
    each rounded once to float32 (the kernel's fused multiply-add: the product and the difference
    are exact in float64 here, then rounded once).
    """
    t = int(thresholds)
    if t == 1:
        return np.zeros(1, dtype=np.float32)
    step = np.float64(np.float32(1.0) / np.float32(t - 1))
    i = np.arange(t, dtype=np.float64)
    half = t // 2
    first = step * i[:half]
    second = 1.0 - step * (t - 1 - i[half:])  # exact in float64: one rounding, to float32, below
    return np.concatenate((first, second)).astype(np.float32)


def torchmetrics_binned(h: ScoreHistogram, *, thresholds: int, curve: str) -> float:
    """Torchmetrics ``binary_auroc`` / ``binary_average_precision`` with ``thresholds=int``
    (``functional/classification/precision_recall_curve.py``, ``roc.py``, ``auroc.py``,
    ``average_precision.py``): a case is predicted positive at t when ``score >= t``; ROC: the
    trapezoid over the thresholds' points (fpr, tpr) only, 0 where a class is missing (no (0, 0) or
    (1, 1) is added: scores all above the last threshold give 0); AP: ``-sum((recall[1:] -
    recall[:-1]) * precision[:-1])`` with the point (recall 0, precision 1) after the last threshold,
    an undefined precision or recall counting 0.
    """
    if h.n == 0:
        return math.nan
    if not thresholds:
        return _torchmetrics_exact(h, curve)
    thr = torchmetrics_thresholds(thresholds).astype(np.float64)
    tp, fp = _above(h, _squashed(h), thr, strict=False)
    P, N = h.n_pos, h.n_neg
    if curve == "ROC":
        fpr = (fp / N if N else np.zeros_like(fp))[::-1]
        tpr = (tp / P if P else np.zeros_like(tp))[::-1]
        return float(np.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2.0))
    precision = np.concatenate((_div(tp, tp + fp), [1.0]))
    recall = np.concatenate((tp / P if P else np.zeros_like(tp), [0.0]))
    return float(-np.sum((recall[1:] - recall[:-1]) * precision[:-1]))


def spark_binned(h: ScoreHistogram, *, numBins: int = 1000, curve: str = "ROC") -> float:
    """Spark's ``BinaryClassificationMetrics`` (``mllib/evaluation/BinaryClassificationMetrics.scala``)
    as ``BinaryClassificationEvaluator`` uses it, over one partition: the distinct scores in
    descending order; when there are at least twice ``numBins`` of them, consecutive runs of
    ``len // numBins`` distinct scores are merged into one threshold; then the trapezoid under the
    ROC curve from (0, 0) to (1, 1), or under the PR curve from (recall 0, the first threshold's
    precision).
    """
    if h.n == 0:
        return math.nan
    pos, neg = h.pos[::-1], h.neg[::-1]
    k = len(pos)
    grouping = k // numBins if numBins > 0 else 0
    if grouping >= 2:
        first = np.arange(0, k, grouping)
        pos, neg = np.add.reduceat(pos, first), np.add.reduceat(neg, first)
    tp, fp = np.cumsum(pos), np.cumsum(neg)
    P, N = h.n_pos, h.n_neg
    if curve == "ROC":
        x = np.concatenate(([0.0], fp / N if N else np.zeros_like(fp), [1.0]))
        y = np.concatenate(([0.0], tp / P if P else np.zeros_like(tp), [1.0]))
    else:
        precision = np.where(tp + fp == 0, 1.0, _div(tp, tp + fp))
        recall = tp / P if P else np.zeros_like(tp)
        x = np.concatenate(([0.0], recall))
        y = np.concatenate(([precision[0]], precision))
    return float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0))
