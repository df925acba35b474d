"""Curves as data: ROC, precision/recall, lift, cost and accuracy versus threshold, calibration.

numpy arrays computed from a :class:`~perfeval.summaries.ScoreHistogram`, one point per distinct
score (a tie group is one step, so no curve depends on the order of tied cases).  Plots
(:mod:`perfeval.plot`) draw exactly these arrays; the classic ``perf -plot`` keeps printing the
original's text columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfeval.base.checks import check_scores, floats, to_numpy
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import get_measure
from perfeval.summaries import ScoreHistogram


@dataclass
class Curve:
    """Points of one curve: ``x`` and ``y`` arrays, the ``thresholds`` where defined, and labels.

    ``area`` is the curve's summary number (ROC area, average precision) where it has one.
    """

    kind: str
    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None
    xlabel: str
    ylabel: str
    area: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def summary(y_true: Any, y_score: Any, sample_weight: Any = None) -> ScoreHistogram:
    """The exact summary every curve is drawn from (``y_true`` may already be one), inputs checked."""
    if isinstance(y_true, ScoreHistogram):
        return y_true

    s = floats(to_numpy(y_score, "y_score"), "y_score")
    check_scores(s)
    return ScoreHistogram.from_arrays(to_numpy(y_true, "y_true"), s, sample_weight)


def _cum(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds from the top, TP and FP with score >= each threshold)."""
    return h.cumulative()


def roc(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """False positive rate (x) against true positive rate (y), from (0, 0) to (1, 1)."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.concatenate([[0.0], fp / h.n_neg])
        y = np.concatenate([[0.0], tp / h.n_pos])
    return Curve(
        "roc",
        x,
        y,
        np.concatenate([[np.inf], thr]),
        "false positive rate (FP / negatives)",
        "true positive rate (TP / positives)",
        area=get_measure("ROC")(h),
    )


def precision_recall(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """Recall (x) against precision (y), one point per threshold from the top."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        x, y = tp / h.n_pos, tp / (tp + fp)
    return Curve(
        "pr",
        x,
        y,
        thr,
        "recall (TP / positives)",
        "precision (TP / predicted positive)",
        area=get_measure("AP")(h),
    )


def lift(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """Share of cases predicted positive (x) against lift (y): precision over the base rate."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (tp + fp) / h.n
        y = (tp / (tp + fp)) / np.divide(h.n_pos, h.n)  # no case of weight > 0: NaN, as the others
    return Curve("lift", x, y, thr, "share of cases predicted positive", "lift (precision / base rate)")


def accuracy(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """Threshold (x) against accuracy (y): predicted positive when score >= threshold."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = (tp + (h.n_neg - fp)) / h.n
    best = int(np.nanargmax(acc)) if len(acc) else 0
    return Curve(
        "acc",
        thr,
        acc,
        thr,
        "threshold (score >= threshold predicts 1)",
        "accuracy",
        extra={
            "best_threshold": float(thr[best]) if len(thr) else np.nan,
            "best": float(acc[best]) if len(acc) else np.nan,
        },
    )


def cost(
    y_true: Any,
    y_score: Any = None,
    sample_weight: Any = None,
    *,
    tp: float = 0.0,
    fn: float = 1.0,
    fp: float = 1.0,
    tn: float = 0.0,
) -> Curve:
    """Threshold (x) against total cost (y) = tp TP + fn FN + fp FP + tn TN (default: errors)."""
    h = summary(y_true, y_score, sample_weight)
    thr, tps, fps = _cum(h)
    c = tp * tps + fn * (h.n_pos - tps) + fp * fps + tn * (h.n_neg - fps)
    best = int(np.argmin(c)) if len(c) else 0
    return Curve(
        "cost",
        thr,
        c,
        thr,
        "threshold (score >= threshold predicts 1)",
        f"cost ({tp:g} TP + {fn:g} FN + {fp:g} FP + {tn:g} TN)",
        extra={
            "best_threshold": float(thr[best]) if len(thr) else np.nan,
            "best": float(c[best]) if len(c) else np.nan,
        },
    )


def calibration(
    y_true: Any,
    y_score: Any = None,
    sample_weight: Any = None,
    *,
    bins: str | int = "perf",
    n_bins: int = 10,
    band_level: float = 0.9,
    band: str = "outcomes",
) -> Curve:
    """Mean score (x) against the observed share of positives (y) per bin, with the bin counts.

    ``bins="perf"``: PERF's 19 overlapping bins [i/20, i/20 + 1/10] (its CA1); ``"uniform"``:
    ``n_bins`` equal-width bins over [0, 1]; ``"quantile"``: ``n_bins`` bins of (about) equal counts.
    Empty bins are left out.

    ``extra["band"]``: each bin's consistency band (Broecker & Smith 2007,
    :func:`perfeval.measures.calibration.consistency_band`), the central ``band_level`` of a
    calibrated model's share of positives; ``band="outcomes"`` redraws the outcomes of the cases as
    they are, ``"pairs"`` redraws the forecasts too (Broecker & Smith's published form: wider);
    ``extra["band_level"]``, ``extra["band_method"]`` say which, ``extra["band_why"]`` why there is
    none.
    """
    from perfeval.measures.calibration import BAND_METHODS

    if band not in BAND_METHODS:
        raise InvalidParameterError(f"band must be 'outcomes' or 'pairs', got {band!r}")
    if isinstance(band_level, bool) or not isinstance(band_level, (int, float)) or not 0 < band_level < 1:
        raise InvalidParameterError(f"band_level must lie strictly between 0 and 1, got {band_level!r}")
    h = summary(y_true, y_score, sample_weight)
    s, w = h.scores, h.pos + h.neg
    if bins == "perf":
        edges = [(i / 20, (i + 2) / 20) for i in range(19)]
        masks = [(s >= lo) & (s <= hi) for lo, hi in edges]
    elif bins == "uniform":
        idx = np.minimum((np.clip(s, 0, 1) * n_bins).astype(int), n_bins - 1)
        masks = [idx == i for i in range(n_bins)]
    elif bins == "quantile":
        cum = np.cumsum(w)
        cut = np.searchsorted(cum, np.linspace(0, cum[-1] if len(cum) else 0, n_bins + 1)[1:-1], side="left")
        idx = np.searchsorted(cut, np.arange(len(s)), side="right")
        masks = [idx == i for i in range(n_bins)]
    else:
        raise InvalidParameterError(f"bins must be 'perf', 'uniform' or 'quantile', got {bins!r}")
    xs, ys, ns = [], [], []
    for m in masks:
        k = w[m].sum()
        if k > 0:
            xs.append(float((s[m] * w[m]).sum() / k))
            ys.append(float(h.pos[m].sum() / k))
            ns.append(float(k))
    # the consistency band (measures.calibration.consistency_band): cases, not weights, are drawn
    bars: tuple[np.ndarray, np.ndarray] | None = None
    if not len(s):
        why = "no case"
    elif s[0] < 0 or s[-1] > 1:
        why = "scores outside [0, 1] are no probabilities"
    elif not h.is_counts():
        why = "fractional weights: outcomes are drawn case by case (whole weights are copies)"
    else:
        from perfeval.measures.calibration import consistency_band

        live = [m for m in masks if w[m].sum() > 0]
        bars, why = consistency_band(s, w, live, level=float(band_level), resample=band), ""
    return Curve(
        "calibration",
        np.array(xs),
        np.array(ys),
        None,
        "mean score in the bin",
        "observed share of positives",
        extra={
            "counts": np.array(ns),
            "bins": bins,
            "band": bars,
            "band_why": why,
            "band_level": float(band_level),
            "band_method": band,
        },
    )


KINDS = {
    "roc": roc,
    "pr": precision_recall,
    "lift": lift,
    "acc": accuracy,
    "cost": cost,
    "calibration": calibration,
}
