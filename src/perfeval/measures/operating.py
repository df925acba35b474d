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

Each measure has a per-group form (``name_groups``) over every group's points at once, weighted or
not, with the bits of each group's own summary (:func:`group_points`).
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.measures._data import GroupedData, histograms
from perfeval.summaries import ScoreHistogram

NAN = math.nan


#: the points of one summary or of every group: thresholds, TP and FP at each point, the group's P
#: and N at each point, the group of each point (None for one summary)
Points = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, "np.ndarray | None"]


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


def _one(h: ScoreHistogram) -> Points:
    thr, tp, fp, P, N = points(h)
    return thr, tp, fp, np.full(len(tp), P), np.full(len(tp), N), None


def group_points(gd: GroupedData) -> Points:
    """Every group's points (:func:`points` of each group's summary, one after the other): each
    group's +inf point, then its distinct scores from the highest.  Each group's TP and FP are
    added from 0.0 one cell after another, as ``np.cumsum`` adds them over the group's summary
    alone, so that they have the same bits: unweighted, whole counts, by one cumulative sum over
    every group (exact whatever came before); weighted, group by group (:func:`segment_cumsum`),
    from the groups' histograms (``histograms``: the rows in the canonical order) without their
    empty cells (weight 0), as :meth:`ScoreHistogram.canonical` leaves them out.
    """
    memo = gd.__dict__.setdefault("_memo", {})
    if "operating_points" not in memo:
        sc, pos, neg, bounds = histograms(gd)
        bounds = np.asarray(bounds, dtype=np.int64)
        if gd.weighted:
            keep = (pos != 0) | (neg != 0)
            if not keep.all():
                kept = np.concatenate(([0], np.cumsum(keep)))
                sc, pos, neg, bounds = sc[keep], pos[keep], neg[keep], kept[bounds]
        G, C = len(bounds) - 1, len(sc)
        cells = np.diff(bounds)
        gid_cell = np.repeat(np.arange(G), cells)
        # each group's cells from the highest score down
        rev = bounds[gid_cell] + bounds[gid_cell + 1] - 1 - np.arange(C)
        if gd.weighted:
            ctp, cfp = segment_cumsum(pos[rev], bounds), segment_cumsum(neg[rev], bounds)
        else:
            # whole counts: cumulative sums exact, so a group's are the same whatever came before it
            ctp, cfp = np.cumsum(pos[rev]), np.cumsum(neg[rev])
            start = np.minimum(bounds[:-1], C - 1)
            tp0 = np.where(cells > 0, ctp[start] - pos[rev][start], 0.0)
            fp0 = np.where(cells > 0, cfp[start] - neg[rev][start], 0.0)
            ctp, cfp = ctp - tp0[gid_cell], cfp - fp0[gid_cell]
        n = C + G
        gid = np.repeat(np.arange(G), cells + 1)
        first = bounds[:-1] + np.arange(G)  # each group's +inf point
        at = np.ones(n, dtype=bool)
        at[first] = False
        thr, tp, fp = np.full(n, math.inf), np.zeros(n), np.zeros(n)
        thr[at], tp[at], fp[at] = sc[rev], ctp, cfp
        last = bounds[1:] + np.arange(G)  # each group's lowest threshold
        P, N = tp[last][gid], fp[last][gid]
        memo["operating_points"] = (thr, tp, fp, P, N, gid)
    return memo["operating_points"]


def segment_cumsum(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The cumulative sum of each segment ``values[bounds[i]:bounds[i + 1]]`` on its own, with the
    bits of ``np.cumsum`` of that segment alone (added from its first value, one after another).

    The segments are laid out as the columns of a matrix, those of about one length together (a
    power of two: at most twice the cells), zeros after a short one's end, and summed down the
    columns (``np.cumsum(axis=0)``: row i is row i - 1 plus its values, for every column at once).
    """
    out = np.empty(len(values))
    lengths = np.diff(bounds)
    live = np.flatnonzero(lengths > 0)
    if not len(live):
        return out
    size = np.ceil(np.log2(lengths[live])).astype(np.int64)  # exact for powers of two up to 2^52
    for c in np.unique(size):
        cols = live[size == c]
        L = int(lengths[cols].max())
        depth = np.arange(L)[:, None]
        inside = depth < lengths[cols][None, :]
        where = bounds[cols][None, :] + depth
        block = np.zeros((L, len(cols)))
        block[inside] = values[where[inside]]
        np.cumsum(block, axis=0, out=block)
        out[where[inside]] = block[inside]
    return out


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), np.nan)


def _pick(
    pts: Points,
    value: np.ndarray,
    ok: np.ndarray,
    other: np.ndarray | None,
    higher: bool,
    of: str,
    defined: np.ndarray,
) -> float | np.ndarray:
    """For one summary (a float) or each group (an array): the best finite ``value`` where ``ok``;
    among equal values the best ``other`` (higher), then the first point (the highest threshold);
    NaN where no point qualifies or the group is not ``defined`` (one class).  ``of="threshold"``:
    that point's threshold.
    """
    thr, gid = pts[0], pts[5]
    good = ok & np.isfinite(value) & defined
    key = np.where(good, -value if higher else value, np.inf)  # smallest first
    o = np.zeros(len(value)) if other is None else -np.where(np.isnan(other), -np.inf, other)
    g = np.zeros(len(value), dtype=np.int64) if gid is None else gid
    G = 1 if gid is None else (int(gid[-1]) + 1 if len(gid) else 0)
    order = np.lexsort((np.arange(len(value)), o, key, g))
    best = order[np.searchsorted(g[order], np.arange(G))] if len(order) else np.zeros(0, dtype=np.int64)
    out = np.where(good[best], (thr if of == "threshold" else value)[best], np.nan)
    return float(out[0]) if gid is None else out


def _both(P: np.ndarray, N: np.ndarray) -> np.ndarray:
    return (P > 0) & (N > 0)


# -- operating points at a target -------------------------------------------------------------------


def _tpr_at_fpr(pts: Points, max_fpr: float, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, N, _g = pts
    tpr, fpr = _ratio(tp, P), _ratio(fp, N)
    return _pick(pts, tpr, fpr <= max_fpr, -fpr, True, of, _both(P, N))


def _sen_at_spc(pts: Points, min_specificity: float, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, N, _g = pts
    sen, spc = _ratio(tp, P), _ratio(N - fp, N)
    return _pick(pts, sen, spc >= min_specificity, spc, True, of, _both(P, N))


def _spc_at_sen(pts: Points, min_sensitivity: float, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, N, _g = pts
    sen, spc = _ratio(tp, P), _ratio(N - fp, N)
    return _pick(pts, spc, sen >= min_sensitivity, sen, True, of, _both(P, N))


def _pre_at_rec(pts: Points, min_recall: float, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, _N, _g = pts
    rec, pre = _ratio(tp, P), _ratio(tp, tp + fp)
    return _pick(pts, pre, rec >= min_recall, rec, True, of, P > 0)


def _rec_at_pre(pts: Points, min_precision: float, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, _N, _g = pts
    rec, pre = _ratio(tp, P), _ratio(tp, tp + fp)
    return _pick(pts, rec, np.nan_to_num(pre, nan=-1.0) >= min_precision, pre, True, of, P > 0)


def tpr_at_fpr(h: ScoreHistogram, *, max_fpr: float, of: str) -> float:
    """The highest TPR over the thresholds whose FPR <= max_fpr (or that threshold)."""
    return float(_tpr_at_fpr(_one(h), max_fpr, of))


def tpr_at_fpr_groups(gd: GroupedData, *, max_fpr: float, of: str) -> np.ndarray:
    return np.asarray(_tpr_at_fpr(group_points(gd), max_fpr, of))


def sen_at_spc(h: ScoreHistogram, *, min_specificity: float, of: str) -> float:
    """The highest sensitivity over the thresholds whose specificity >= min_specificity."""
    return float(_sen_at_spc(_one(h), min_specificity, of))


def sen_at_spc_groups(gd: GroupedData, *, min_specificity: float, of: str) -> np.ndarray:
    return np.asarray(_sen_at_spc(group_points(gd), min_specificity, of))


def spc_at_sen(h: ScoreHistogram, *, min_sensitivity: float, of: str) -> float:
    """The highest specificity over the thresholds whose sensitivity >= min_sensitivity."""
    return float(_spc_at_sen(_one(h), min_sensitivity, of))


def spc_at_sen_groups(gd: GroupedData, *, min_sensitivity: float, of: str) -> np.ndarray:
    return np.asarray(_spc_at_sen(group_points(gd), min_sensitivity, of))


def pre_at_rec(h: ScoreHistogram, *, min_recall: float, of: str) -> float:
    """The highest precision over the thresholds whose recall >= min_recall (precision defined:
    something predicted positive).
    """
    return float(_pre_at_rec(_one(h), min_recall, of))


def pre_at_rec_groups(gd: GroupedData, *, min_recall: float, of: str) -> np.ndarray:
    return np.asarray(_pre_at_rec(group_points(gd), min_recall, of))


def rec_at_pre(h: ScoreHistogram, *, min_precision: float, of: str) -> float:
    """The highest recall over the thresholds whose precision >= min_precision."""
    return float(_rec_at_pre(_one(h), min_precision, of))


def rec_at_pre_groups(gd: GroupedData, *, min_precision: float, of: str) -> np.ndarray:
    return np.asarray(_rec_at_pre(group_points(gd), min_precision, of))


# -- partial AUC ---------------------------------------------------------------------------------------


def _pauc(pts: Points, hi: float, lo: float, focus: str, correct: str) -> float | np.ndarray:
    """The area under the broken line through the points over [lo, hi]: each segment (between two
    points of one group) clipped to the range, its ends interpolated on it, by the trapezoid rule;
    the terms added in point order (np.bincount), for one summary and for every group alike.
    """
    _thr, tp, fp, P, N, gid = pts
    tpr, fpr = _ratio(tp, P), _ratio(fp, N)
    if focus == "fpr":
        x, y = fpr, tpr
        least = (hi * hi - lo * lo) / 2
    else:
        x, y = tpr, 1.0 - fpr
        least = (hi - lo) - (hi * hi - lo * lo) / 2
    g = np.zeros(len(x), dtype=np.int64) if gid is None else gid
    G = 1 if gid is None else (int(gid[-1]) + 1 if len(gid) else 0)
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    seg = (g[:-1] == g[1:]) & (x1 > x0)
    left, right = np.maximum(x0, lo), np.minimum(x1, hi)
    seg &= right > left
    x0, x1, y0, y1, left, right = (a[seg] for a in (x0, x1, y0, y1, left, right))
    slope = (y1 - y0) / (x1 - x0)
    # a segment's end inside the range is its own point, not one interpolated back onto it
    yl = np.where(left == x0, y0, y0 + slope * (left - x0))
    yr = np.where(right == x1, y1, y0 + slope * (right - x0))
    area: np.ndarray = np.bincount(g[:-1][seg], weights=(right - left) * (yl + yr) / 2, minlength=G)
    if correct == "mcclish":
        area = (1 + (area - least) / ((hi - lo) - least)) / 2
    first = np.searchsorted(g, np.arange(G))
    out = np.where(_both(P, N)[np.minimum(first, len(g) - 1)], area, np.nan) if len(g) else area
    return float(out[0]) if gid is None else out


def pauc(h: ScoreHistogram, *, hi: float, lo: float, focus: str, correct: str) -> float:
    """The area under the chord ROC curve over FPR in [lo, hi] (``focus="fpr"``), or between the
    curve and FPR = 1 over TPR in [lo, hi] (``focus="tpr"``); ``correct="mcclish"``: standardised,
    (1 + (area - min) / (max - min)) / 2 with min the chance line's area over the range and max the
    range's width.
    """
    return float(_pauc(_one(h), hi, lo, focus, correct))


def pauc_groups(gd: GroupedData, *, hi: float, lo: float, focus: str, correct: str) -> np.ndarray:
    return np.asarray(_pauc(group_points(gd), hi, lo, focus, correct))


# -- threshold choice: the best point over every threshold ------------------------------------------


def _youden(pts: Points, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, N, _g = pts
    j = _ratio(tp, P) - _ratio(fp, N)
    return _pick(pts, j, np.ones(len(j), dtype=bool), None, True, of, _both(P, N))


def _topleft(pts: Points, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, N, _g = pts
    fpr, fnr = _ratio(fp, N), _ratio(P - tp, P)
    d = np.sqrt(fpr * fpr + fnr * fnr)
    return _pick(pts, d, np.ones(len(d), dtype=bool), None, False, of, _both(P, N))


def _best_fbeta(pts: Points, beta: float, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, _N, _g = pts
    b2 = beta * beta
    f = _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * (P - tp) + fp)
    return _pick(pts, f, np.ones(len(f), dtype=bool), None, True, of, P > 0)


def _best_mcc(pts: Points, of: str) -> float | np.ndarray:
    _thr, tp, fp, P, N, _g = pts
    fn, tn = P - tp, N - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt((tp + fp) * P * N * (tn + fn))
    m = _ratio(tp * tn - fp * fn, den)
    return _pick(pts, m, np.ones(len(m), dtype=bool), None, True, of, _both(P, N))


def _least_cost(pts: Points, fn: float, fp: float, tp: float, tn: float, of: str) -> float | np.ndarray:
    _thr, tps, fps, P, N, _g = pts
    cost = tp * tps + fn * (P - tps) + fp * fps + tn * (N - fps)
    return _pick(pts, cost, np.ones(len(cost), dtype=bool), None, False, of, P + N > 0)


def youden(h: ScoreHistogram, *, of: str) -> float:
    """Youden's J = TPR - FPR at the threshold that maximises it."""
    return float(_youden(_one(h), of))


def youden_groups(gd: GroupedData, *, of: str) -> np.ndarray:
    return np.asarray(_youden(group_points(gd), of))


def topleft(h: ScoreHistogram, *, of: str) -> float:
    """The distance sqrt(FPR^2 + (1 - TPR)^2) of the point closest to (0, 1)."""
    return float(_topleft(_one(h), of))


def topleft_groups(gd: GroupedData, *, of: str) -> np.ndarray:
    return np.asarray(_topleft(group_points(gd), of))


def best_fbeta(h: ScoreHistogram, *, beta: float, of: str) -> float:
    """The highest F-beta over the thresholds (FBETA's count form at each)."""
    return float(_best_fbeta(_one(h), beta, of))


def best_fbeta_groups(gd: GroupedData, *, beta: float, of: str) -> np.ndarray:
    return np.asarray(_best_fbeta(group_points(gd), beta, of))


def best_mcc(h: ScoreHistogram, *, of: str) -> float:
    """The highest Matthews correlation over the thresholds where it is defined (something and not
    everything predicted positive, both classes present).
    """
    return float(_best_mcc(_one(h), of))


def best_mcc_groups(gd: GroupedData, *, of: str) -> np.ndarray:
    return np.asarray(_best_mcc(group_points(gd), of))


def least_cost(h: ScoreHistogram, *, fn: float, fp: float, tp: float, tn: float, of: str) -> float:
    """The least total cost tp*TP + fn*FN + fp*FP + tn*TN (CST's) over the thresholds."""
    return float(_least_cost(_one(h), fn, fp, tp, tn, of))


def least_cost_groups(gd: GroupedData, *, fn: float, fp: float, tp: float, tn: float, of: str) -> np.ndarray:
    return np.asarray(_least_cost(group_points(gd), fn, fp, tp, tn, of))
