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

Each measure has a per-group form (``name_groups``): the compiled walk over every group's cells in
one call (op_pick_groups, op_pauc_groups), with the bits of each group's own summary; the numpy form
over every group's points at once (:func:`group_points`) is kept as its reference for the tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.measures._data import GroupedData, histograms
from perfeval.summaries import ScoreHistogram

NAN = math.nan


class Cells:
    """Each point's cell weights, positive and negative (0 at a group's +inf point), made when first
    asked (``make()``): the exact sums of the points near a target are added from them
    (:func:`_exact_sums`); and whether the float sums are exact as they are (:meth:`whole`).
    """

    def __init__(self, make: Callable[[], tuple[np.ndarray, np.ndarray]]):
        self._make = make
        self._made: tuple[np.ndarray, np.ndarray] | None = None
        self._whole: bool | None = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._made is None:
            self._made = self._make()
        return self._made

    def whole(self, P: Any, N: Any) -> bool:
        """Whether every cell weight is a whole number and every group's total below 2**53: then
        every partial sum is a whole number below it, and the float sums (TP, FP, P, N) are exact.
        """
        if self._whole is None:
            dp, dn = self.arrays()
            with np.errstate(invalid="ignore"):
                self._whole = bool(
                    np.all(dp == np.floor(dp))
                    and np.all(dn == np.floor(dn))
                    and np.all(np.asarray(P) + np.asarray(N) < 2.0**53)
                )
        return self._whole


#: the points of one summary or of every group: thresholds, TP and FP at each point, the group's P
#: and N at each point (for one summary: its P and N, numbers), the group of each point (None for
#: one summary), each point's cell weights (:class:`Cells`)
Points = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, "np.ndarray | None", Cells]


def points(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """(scores, TP, FP, P, N): the operating points from the highest threshold down, the first
    being +inf (nothing predicted positive, TP = FP = 0), then each distinct score (``scores``: the
    summary's distinct scores from the highest, a view: point i > 0 is at ``scores[i - 1]``); P and
    N the last point's TP and FP (every case predicted positive), so that the rates at the lowest
    threshold are exactly 1.
    """

    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        n = len(h.scores)
        tp, fp = np.empty(n + 1), np.empty(n + 1)
        tp[0] = fp[0] = 0.0
        np.cumsum(h.pos[::-1], out=tp[1:])  # added from the highest score, one cell after another
        np.cumsum(h.neg[::-1], out=fp[1:])
        return h.scores[::-1], tp, fp, float(tp[-1]), float(fp[-1])

    return h.memo("operating_points", make)


def _one(h: ScoreHistogram) -> Points:
    """The points of one summary, its P and N as numbers (each point's, by broadcasting: the same
    bits as the per-point arrays of :func:`group_points`); its thresholds, the distinct scores from
    the highest, without the first point's +inf (:func:`_threshold_at`).
    """
    desc, tp, fp, P, N = points(h)

    def cells() -> tuple[np.ndarray, np.ndarray]:
        return np.concatenate(([0.0], h.pos[::-1])), np.concatenate(([0.0], h.neg[::-1]))

    return desc, tp, fp, P, N, None, h.memo("operating_cells", lambda: Cells(cells))  # type: ignore[return-value]


def _threshold_at(pts: Points, i: np.ndarray) -> np.ndarray:
    """The thresholds of points ``i``: for one summary +inf at point 0, else its distinct score."""
    if pts[5] is not None:
        return pts[0][i]
    return np.where(i == 0, np.inf, pts[0][np.maximum(i - 1, 0)])


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

        def cells() -> tuple[np.ndarray, np.ndarray]:
            dp, dn = np.zeros(n), np.zeros(n)
            dp[at], dn[at] = pos[rev], neg[rev]
            return dp, dn

        memo["operating_points"] = (thr, tp, fp, P, N, gid, Cells(cells))
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


def _ratio(a: np.ndarray, b: Any) -> np.ndarray:
    """``a / b``, NaN where ``b`` is 0 (``b`` an array, or one number: one division then)."""
    if np.ndim(b) == 0:
        return np.asarray(a / b) if b != 0 else np.full(np.shape(a), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), np.nan)


#: a choice: the value and the threshold of the point picked, one a group (one for a summary), NaN
#: where no point qualifies
Choice = tuple[np.ndarray, np.ndarray]


def _best(
    pts: Points,
    value: np.ndarray,
    ok: np.ndarray | None,
    other: Callable[[np.ndarray], np.ndarray] | None,
    higher: bool,
    defined: Any,
) -> Choice:
    """For one summary or each group: the point of best finite ``value`` where ``ok`` (None: every
    point); among equal values the best ``other`` (higher; NaN the worst; ``other(i)``: its value at
    the points i, read at the tied points only), then the first point (the highest threshold).  NaN
    where no point qualifies or the group is not ``defined`` (one class).

    Linear passes over the points (no sort): the best value of each group (``np.maximum.reduceat``
    over its run of points), then the best ``other`` among the points of that value, then the first.
    """
    gid = pts[5]
    if gid is None and not bool(defined):
        return np.full(1, np.nan), np.full(1, np.nan)
    good = np.isfinite(value)
    if ok is not None:
        good &= ok
    if gid is not None:
        good &= defined
    v = np.where(good, value if higher else -value, -np.inf)
    if gid is None:
        if not good.any():
            return np.full(1, np.nan), np.full(1, np.nan)
        cand = np.flatnonzero(v == v.max())
        if other is not None and len(cand) > 1:
            o = other(cand)
            o = np.where(np.isnan(o), -np.inf, o)
            cand = cand[o == o.max()]
        i = cand[:1]
        return value[i].astype(np.float64), _threshold_at(pts, i)
    G = int(gid[-1]) + 1 if len(gid) else 0
    if not G:
        return np.zeros(0), np.zeros(0)
    starts = np.searchsorted(gid, np.arange(G))  # every group has its +inf point: none is empty
    cand = v == np.maximum.reduceat(v, starts)[gid]
    if other is not None:
        o = np.full(len(v), -np.inf)
        tied = np.flatnonzero(cand)
        o[tied] = other(tied)
        o[np.isnan(o)] = -np.inf
        cand &= o == np.maximum.reduceat(o, starts)[gid]
    at = np.flatnonzero(cand)
    first = at[np.searchsorted(gid[at], np.arange(G))]
    found = good[first]
    return np.where(found, value[first], np.nan), np.where(found, _threshold_at(pts, first), np.nan)


def _memo(src: ScoreHistogram | GroupedData, key: tuple, make: Callable[[], Any]) -> Any:
    """``make()`` once for a summary or for the groups (what a value and its threshold share)."""
    if isinstance(src, ScoreHistogram):
        return src.memo(key, make)
    memo = src.__dict__.setdefault("_memo", {})
    if key not in memo:
        memo[key] = make()
    return memo[key]


#: the rules of csrc/operating.c's op_pick, by the name of their numpy form here
RULES = {
    "_tpr_at_fpr": 0,
    "_sen_at_spc": 1,
    "_spc_at_sen": 2,
    "_pre_at_rec": 3,
    "_rec_at_pre": 4,
    "_youden": 5,
    "_topleft": 6,
    "_best_fbeta": 7,
    "_best_mcc": 8,
    "_least_cost": 9,
}


def compiled_choice(h: ScoreHistogram, rule: str, args: tuple) -> Choice:
    """The choice of ``rule`` (a numpy form's name: ``"_youden"``) over one summary by the compiled
    walk (csrc/operating.c, op_pick): one pass from the highest score, no n-sized temporary, over its
    cells or its two sorted halves (:func:`_walked`); the bits of the numpy form over :func:`_one`'s
    points.
    """
    rule_id = RULES[rule]
    _i, v, t = _native.op_pick(*_walked(h), rule_id, *_rule_args(rule_id, args))
    return np.array([v]), np.array([t])


def _rule_args(rule_id: int, args: tuple) -> tuple:
    """op_pick's parameters after the rule: a target with its decimal, or the rule's numbers."""
    if rule_id <= RULES["_rec_at_pre"]:  # a target: its decimal, for the exact decision
        m, d = target_decimal(args[0])
        return (float(args[0]), 0.0, 0.0, 0.0, m, d)
    return tuple(map(float, args))


def _grouped_cells(gd: GroupedData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the compiled per-group walks read: every group's cells (``histograms``), contiguous."""
    sc, pos, neg, bounds = histograms(gd)
    return (
        np.ascontiguousarray(sc, np.float64),
        np.ascontiguousarray(pos, np.float64),
        np.ascontiguousarray(neg, np.float64),
        np.ascontiguousarray(bounds, np.int64),
    )


def compiled_choice_groups(gd: GroupedData, rule: str, args: tuple) -> Choice:
    """The choice of ``rule`` over every group by the compiled walk over the groups' cells
    (csrc/operating.c, op_pick_groups: op_pick over each group's cells in turn, in one call): each
    group's value and threshold have the bits of its own summary's (:func:`compiled_choice`) and of
    the numpy form over every group's points (:func:`numpy_choice_groups`).
    """
    rule_id = RULES[rule]
    v, t = _native.op_pick_groups(*_grouped_cells(gd), rule_id, *_rule_args(rule_id, args))
    return np.frombuffer(v, np.float64).copy(), np.frombuffer(t, np.float64).copy()


def numpy_choice_groups(gd: GroupedData, rule: str, args: tuple) -> Choice:
    """The choice of ``rule`` over every group by the numpy form over every group's points at once
    (:func:`group_points`): the reference the compiled per-group walk is held to in the tests.
    """
    return globals()[rule](group_points(gd), *args)


def _walked(h: ScoreHistogram) -> tuple[Any, Any, Any]:
    """What the compiled walk reads of a summary: its cells (scores, positive and negative weight),
    or, while it keeps them, its unit cases' two sorted halves (positives' scores, negatives', None:
    the cells are not made for it, as the ROC area does not make them).
    """
    split = h.split()
    if split is not None:
        return split[0], split[1], None
    return h.scores, h.pos, h.neg


def _finish(src: ScoreHistogram | GroupedData, rule: Callable[..., Choice], args: tuple, of: str) -> Any:
    """The value (or, ``of="threshold"``, the threshold) of the point ``rule(points, *args)`` picks,
    for one summary (a float: the compiled walk, :func:`compiled_choice`) or every group (an array:
    the numpy form over every group's points at once).  The choice is made once for the summary (or
    the groups): the value and its threshold asked together read the same choice.
    """
    grouped = not isinstance(src, ScoreHistogram)

    def make() -> Any:
        if not grouped:
            return compiled_choice(src, rule.__name__, args)  # type: ignore[arg-type]
        return compiled_choice_groups(src, rule.__name__, args)  # type: ignore[arg-type]

    chosen = _memo(src, ("operating_choice", rule.__name__, *args), make)
    out = chosen[1] if of == "threshold" else chosen[0]
    return out.copy() if grouped else float(out[0])


def _both(P: Any, N: Any) -> Any:
    return (P > 0) & (N > 0)


def _at(a: Any, i: np.ndarray) -> Any:
    """A group's total at points ``i`` (``a`` per point), or the summary's (one number)."""
    return a if np.ndim(a) == 0 else a[i]


# -- operating points at a target -------------------------------------------------------------------
#
# A point meets its target when its rate computed EXACTLY from the summary's weights (the exact sums
# of its cells' float64 weights, the exact ratio) meets the target read as the decimal it is written
# as (:func:`target_decimal`: 0.1 is 1/10).  The rates reported stay the float rates; only the choice
# of the points that meet the target is exact.  The float rate decides where it is farther from the
# target than its rounding can reach (:func:`_exact_near`), the exact sums where it is not: the same
# rule as csrc/exactcmp.h's, which the compiled walks follow.


def target_decimal(target: float) -> tuple[int, int]:
    """The target ``M * 10**-D`` as the decimal it is written as: the shortest decimal that reads
    back to the same float64 (its ``repr``), so that ``target_decimal(0.1) == (1, 1)``.

    Examples
    --------
    >>> target_decimal(0.1), target_decimal(0.95), target_decimal(1.0), target_decimal(1e-05)
    ((1, 1), (95, 2), (10, 1), (1, 5))
    """
    _sign, digits, exp = Decimal(repr(float(target))).as_tuple()
    m = int("".join(map(str, digits)))
    if not isinstance(exp, int):  # inf or nan: no decimal (the parameter's domain keeps them out)
        raise ValueError(f"a target must be a finite number, got {target!r}")
    return (m * 10**exp, 0) if exp > 0 else (m, -exp)


#: how each target rule reads a point: (x, y, at most): the point meets the target M 10**-D when
#: x 10**D <= M y (at most) or >= (at least), x and y exact sums (TN = N - FP)
_TARGETS = {
    "fpr": ("fp", "n", True),
    "spc": ("tn", "n", False),
    "sen": ("tp", "p", False),
    "pre": ("tp", "pp", False),
}


def _exact_near(
    pts: Points, ok: np.ndarray, rate: np.ndarray, value: np.ndarray, target: float, rule: str
) -> np.ndarray:
    """``ok`` (the float decision, ``rate`` against ``target``) with the points near the target
    decided exactly (:func:`_exact_meets`): those whose float rate is within its rounding's reach of
    the target (csrc/exactcmp.h's xc_slack: sums of at most as many terms as there are points),
    where the value is finite (the others are no candidates anyway).
    """
    slack = (6.0 * len(rate) + 16.0) * 2.0**-53
    far = np.fmax(rate, target)
    if rule == "spc":  # N - FP: the subtraction's error is relative to N, not to the specificity
        far = np.fmax(far, 1.0)
    with np.errstate(invalid="ignore"):
        near = np.flatnonzero((np.abs(rate - target) <= slack * far + 2.0**-1000) & np.isfinite(value))
    if len(near):
        ok = ok.copy()
        ok[near] = _exact_meets(pts, near, target, rule, ok[near])
    return ok


def _exact_meets(pts: Points, idx: np.ndarray, target: float, rule: str, floats: np.ndarray) -> np.ndarray:
    """Whether each point ``idx`` meets ``target`` by ``rule`` (:data:`_TARGETS`) exactly; a point
    whose sums are not finite keeps its float decision (``floats``).
    """
    m, d = target_decimal(target)
    q = 10**d
    xs, ys, at_most = _TARGETS[rule]
    sums = _exact_sums(pts, idx)
    out = floats.copy()
    for k, s in enumerate(sums):
        if s is None:
            continue
        tp, fp, p, n = s
        x = {"fp": fp, "tn": n - fp, "tp": tp}[xs]
        y = {"n": n, "p": p, "pp": tp + fp}[ys]
        out[k] = x * q <= m * y if at_most else x * q >= m * y
    return out


def _exact_sums(pts: Points, idx: np.ndarray) -> list[tuple[int, int, int, int] | None]:
    """The exact TP, FP, P and N of each point ``idx`` (Python integers, each point's four at one
    scale), or None for a point whose group has a weight that is not finite.

    Where every weight is a whole number and every total below 2**53 the float sums are exact
    (:meth:`Cells.whole`): they are read as they are.  Otherwise each group's cells are added again
    exactly (as integers times a power of two), down to its last point asked for.
    """
    _thr, tp, fp, P, N, gid, cells = pts
    Pp = np.broadcast_to(np.asarray(P, dtype=np.float64), tp.shape)
    Np = np.broadcast_to(np.asarray(N, dtype=np.float64), tp.shape)
    if cells.whole(P, N):
        return [(int(tp[i]), int(fp[i]), int(Pp[i]), int(Np[i])) for i in idx.tolist()]
    dp, dn = cells.arrays()
    if gid is None:
        starts = np.zeros(len(idx), dtype=np.int64)
        ends = np.full(len(idx), len(tp), dtype=np.int64)
    else:
        starts = np.searchsorted(gid, gid[idx], side="left")
        ends = np.searchsorted(gid, gid[idx], side="right")
    out: list[tuple[int, int, int, int] | None] = [None] * len(idx)
    by_group: dict[int, list[int]] = {}
    for k, a in enumerate(starts.tolist()):
        by_group.setdefault(a, []).append(k)
    for a, ks in by_group.items():
        b = int(ends[ks[0]])
        if not (np.all(np.isfinite(dp[a:b])) and np.all(np.isfinite(dn[a:b]))):
            continue
        ip, in_ = _scaled(dp[a:b], dn[a:b])
        cp, cn = np.cumsum(np.array(ip, dtype=object)), np.cumsum(np.array(in_, dtype=object))
        for k in ks:
            i = int(idx[k]) - a
            out[k] = (int(cp[i]), int(cn[i]), int(cp[-1]), int(cn[-1]))
    return out


def _scaled(*arrays: np.ndarray) -> list[list[int]]:
    """Finite float64 arrays of values >= 0 as Python integers, each value times one power of two
    (the same for all): exactly.  (A float64 is m 2**e with m a whole number below 2**53:
    ``np.frexp``.)
    """
    parts = []
    low = 0
    for x in arrays:
        frac, exp = np.frexp(x)
        mant = np.ldexp(frac, 53).astype(np.int64)  # exact: |frac| < 1
        exp = exp.astype(np.int64) - 53
        if np.any(mant != 0):
            low = min(low, int(exp[mant != 0].min()))
        parts.append((mant.tolist(), exp.tolist()))
    return [[mi << (e - low) if mi else 0 for mi, e in zip(m, ex, strict=True)] for m, ex in parts]


def _tpr_at_fpr(pts: Points, max_fpr: float) -> Choice:
    _thr, tp, fp, P, N, _g, _c = pts
    tpr, fpr = _ratio(tp, P), _ratio(fp, N)
    ok = _exact_near(pts, fpr <= max_fpr, fpr, tpr, max_fpr, "fpr")
    return _best(pts, tpr, ok, lambda i: -_ratio(fp[i], _at(N, i)), True, _both(P, N))


def _sen_at_spc(pts: Points, min_specificity: float) -> Choice:
    _thr, tp, fp, P, N, _g, _c = pts
    sen, spc = _ratio(tp, P), _ratio(N - fp, N)
    ok = _exact_near(pts, spc >= min_specificity, spc, sen, min_specificity, "spc")
    return _best(pts, sen, ok, lambda i: spc[i], True, _both(P, N))


def _spc_at_sen(pts: Points, min_sensitivity: float) -> Choice:
    _thr, tp, fp, P, N, _g, _c = pts
    sen, spc = _ratio(tp, P), _ratio(N - fp, N)
    ok = _exact_near(pts, sen >= min_sensitivity, sen, spc, min_sensitivity, "sen")
    return _best(pts, spc, ok, lambda i: sen[i], True, _both(P, N))


def _pre_at_rec(pts: Points, min_recall: float) -> Choice:
    _thr, tp, fp, P, _N, _g, _c = pts
    rec, pre = _ratio(tp, P), _ratio(tp, tp + fp)
    ok = _exact_near(pts, rec >= min_recall, rec, pre, min_recall, "sen")
    return _best(pts, pre, ok, lambda i: rec[i], True, P > 0)


def _rec_at_pre(pts: Points, min_precision: float) -> Choice:
    _thr, tp, fp, P, _N, _g, _c = pts
    rec, pre = _ratio(tp, P), _ratio(tp, tp + fp)
    # no precision (nothing predicted positive): no candidate (NaN is never near the target)
    ok = _exact_near(pts, np.nan_to_num(pre, nan=-1.0) >= min_precision, pre, rec, min_precision, "pre")
    return _best(pts, rec, ok, lambda i: pre[i], True, P > 0)


def tpr_at_fpr(h: ScoreHistogram, *, max_fpr: float, of: str) -> float:
    """The highest TPR over the thresholds whose FPR <= max_fpr (or that threshold)."""
    return float(_finish(h, _tpr_at_fpr, (max_fpr,), of))


def tpr_at_fpr_groups(gd: GroupedData, *, max_fpr: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _tpr_at_fpr, (max_fpr,), of))


def sen_at_spc(h: ScoreHistogram, *, min_specificity: float, of: str) -> float:
    """The highest sensitivity over the thresholds whose specificity >= min_specificity."""
    return float(_finish(h, _sen_at_spc, (min_specificity,), of))


def sen_at_spc_groups(gd: GroupedData, *, min_specificity: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _sen_at_spc, (min_specificity,), of))


def spc_at_sen(h: ScoreHistogram, *, min_sensitivity: float, of: str) -> float:
    """The highest specificity over the thresholds whose sensitivity >= min_sensitivity."""
    return float(_finish(h, _spc_at_sen, (min_sensitivity,), of))


def spc_at_sen_groups(gd: GroupedData, *, min_sensitivity: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _spc_at_sen, (min_sensitivity,), of))


def pre_at_rec(h: ScoreHistogram, *, min_recall: float, of: str) -> float:
    """The highest precision over the thresholds whose recall >= min_recall (precision defined:
    something predicted positive).
    """
    return float(_finish(h, _pre_at_rec, (min_recall,), of))


def pre_at_rec_groups(gd: GroupedData, *, min_recall: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _pre_at_rec, (min_recall,), of))


def rec_at_pre(h: ScoreHistogram, *, min_precision: float, of: str) -> float:
    """The highest recall over the thresholds whose precision >= min_precision."""
    return float(_finish(h, _rec_at_pre, (min_precision,), of))


def rec_at_pre_groups(gd: GroupedData, *, min_precision: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _rec_at_pre, (min_precision,), of))


# -- partial AUC ---------------------------------------------------------------------------------------


def _pauc(pts: Points, hi: float, lo: float, focus: str, correct: str) -> float | np.ndarray:
    """The area under the broken line through the points over [lo, hi]: each segment (between two
    points of one group) clipped to the range, its ends interpolated on it, by the trapezoid rule;
    the terms added in point order (np.bincount), for one summary and for every group alike.  One
    summary's x (FPR, or TPR) never decreases from point to point: only the segments that reach into
    the range are read (found by bisection), with the same terms added in the same order.  (One
    summary's area is the compiled walk's, :func:`pauc`; this form of it is the reference the tests
    hold the walk to.)
    """
    _thr, tp, fp, P, N, gid, _c = pts
    if gid is None and not bool(_both(P, N)):
        return math.nan
    x = _ratio(fp, N) if focus == "fpr" else _ratio(tp, P)

    def y_of(at: slice) -> np.ndarray:
        if focus == "fpr":
            return _ratio(tp[at], P if gid is None else P[at])
        return 1.0 - _ratio(fp[at], N if gid is None else N[at])

    if gid is None:
        # the segments i (from point i to i + 1) with x[i + 1] > lo and x[i] < hi
        a = max(int(np.searchsorted(x, lo, side="right")) - 1, 0)
        b = min(int(np.searchsorted(x, hi, side="left")), len(x) - 1)
        at = slice(a, max(b, a) + 1)
        x, y = x[at], y_of(at)
        g = np.zeros(len(x), dtype=np.int64)
        G = 1
    else:
        y = y_of(slice(None))
        g = gid
        G = int(gid[-1]) + 1 if len(gid) else 0
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
        area = _mcclish(area, hi, lo, focus)
    if gid is None:
        return float(area[0])
    first = np.searchsorted(gid, np.arange(G))
    return np.where(_both(P, N)[np.minimum(first, len(gid) - 1)], area, np.nan) if len(gid) else area


def pauc(h: ScoreHistogram, *, hi: float, lo: float, focus: str, correct: str) -> float:
    """The area under the chord ROC curve over FPR in [lo, hi] (``focus="fpr"``), or between the
    curve and FPR = 1 over TPR in [lo, hi] (``focus="tpr"``); ``correct="mcclish"``: standardised,
    (1 + (area - min) / (max - min)) / 2 with min the chance line's area over the range and max the
    range's width.  The area by the compiled walk (csrc/operating.c, op_pauc: the bits of
    :func:`_pauc` over :func:`_one`'s points, in one pass).
    """
    area = _native.op_pauc(*_walked(h), float(lo), float(hi), focus == "tpr")
    return float(_mcclish(np.array([area]), hi, lo, focus)[0] if correct == "mcclish" else area)


def _mcclish(area: np.ndarray, hi: float, lo: float, focus: str) -> np.ndarray:
    """McClish's standardised form of raw areas over [lo, hi]: 0.5 the chance line's, 1 a perfect
    curve's.
    """
    if focus == "fpr":
        least = (hi * hi - lo * lo) / 2
    else:
        least = (hi - lo) - (hi * hi - lo * lo) / 2
    out: np.ndarray = (1 + (area - least) / ((hi - lo) - least)) / 2
    return out


def pauc_groups(gd: GroupedData, *, hi: float, lo: float, focus: str, correct: str) -> np.ndarray:
    """Every group's :func:`pauc` by the compiled walk over the groups' cells (op_pauc_groups: op_pauc
    over each group's cells in turn), the bits of each group's own summary's and of :func:`_pauc` over
    every group's points (:func:`numpy_pauc_groups`).
    """
    area = np.frombuffer(_native.op_pauc_groups(*_grouped_cells(gd), float(lo), float(hi), focus == "tpr"))
    return _mcclish(area, hi, lo, focus) if correct == "mcclish" else area.copy()


def numpy_pauc_groups(gd: GroupedData, *, hi: float, lo: float, focus: str, correct: str) -> np.ndarray:
    """:func:`pauc_groups` by the numpy form over every group's points (the tests' reference)."""
    return np.asarray(_pauc(group_points(gd), hi, lo, focus, correct))


# -- threshold choice: the best point over every threshold ------------------------------------------


def _youden(pts: Points) -> Choice:
    _thr, tp, fp, P, N, _g, _c = pts
    j = _ratio(tp, P) - _ratio(fp, N)
    return _best(pts, j, None, None, True, _both(P, N))


def _topleft(pts: Points) -> Choice:
    _thr, tp, fp, P, N, _g, _c = pts
    fpr, fnr = _ratio(fp, N), _ratio(P - tp, P)
    d = np.sqrt(fpr * fpr + fnr * fnr)
    return _best(pts, d, None, None, False, _both(P, N))


def _best_fbeta(pts: Points, beta: float) -> Choice:
    _thr, tp, fp, P, _N, _g, _c = pts
    b2 = beta * beta
    f = _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * (P - tp) + fp)
    return _best(pts, f, None, None, True, P > 0)


def _mcc_unit(total: Any) -> Any:
    """2^(1022 - E) for the biased exponent E of ``total`` in 1..2044 (the power of two that brings
    it into [0.5, 1)), else 1: from its bits, as csrc/operating.c's mcc_unit and walk.h's REP_MCC.
    """
    b = np.asarray(total, dtype=np.float64).view(np.int64) & 0x7FF0000000000000
    inside = (b >= 1 << 52) & (b <= 2044 << 52)
    return np.where(inside, (0x7FD0000000000000 - b).view(np.float64), 1.0)


def _best_mcc(pts: Points) -> Choice:
    _thr, tp0, fp0, P0, N0, _g, _c = pts
    # the products of four weights with every weight scaled by the power of two at P + N (exact: the
    # same bits wherever the unscaled products are finite; csrc/operating.c's MCC), so that weights of
    # 1e75 do not overflow to a value of 0 at every point, nor weights of 1e-80 underflow to 0/0
    unit = _mcc_unit(P0 + N0)
    tp, fp, P, N = tp0 * unit, fp0 * unit, P0 * unit, N0 * unit
    fn, tn = P - tp, N - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt((tp + fp) * P * N * (tn + fn))
    m = _ratio(tp * tn - fp * fn, den)
    return _best(pts, m, None, None, True, _both(P0, N0))


def _least_cost(pts: Points, fn: float, fp: float, tp: float, tn: float) -> Choice:
    _thr, tps, fps, P, N, _g, _c = pts
    cost = tp * tps + fn * (P - tps) + fp * fps + tn * (N - fps)
    return _best(pts, cost, None, None, False, P + N > 0)


def youden(h: ScoreHistogram, *, of: str) -> float:
    """Youden's J = TPR - FPR at the threshold that maximises it."""
    return float(_finish(h, _youden, (), of))


def youden_groups(gd: GroupedData, *, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _youden, (), of))


def topleft(h: ScoreHistogram, *, of: str) -> float:
    """The distance sqrt(FPR^2 + (1 - TPR)^2) of the point closest to (0, 1)."""
    return float(_finish(h, _topleft, (), of))


def topleft_groups(gd: GroupedData, *, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _topleft, (), of))


def best_fbeta(h: ScoreHistogram, *, beta: float, of: str) -> float:
    """The highest F-beta over the thresholds (FBETA's count form at each)."""
    return float(_finish(h, _best_fbeta, (beta,), of))


def best_fbeta_groups(gd: GroupedData, *, beta: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _best_fbeta, (beta,), of))


def best_mcc(h: ScoreHistogram, *, of: str) -> float:
    """The highest Matthews correlation over the thresholds where it is defined (something and not
    everything predicted positive, both classes present).
    """
    return float(_finish(h, _best_mcc, (), of))


def best_mcc_groups(gd: GroupedData, *, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _best_mcc, (), of))


def least_cost(h: ScoreHistogram, *, fn: float, fp: float, tp: float, tn: float, of: str) -> float:
    """The least total cost tp*TP + fn*FN + fp*FP + tn*TN (CST's) over the thresholds."""
    return float(_finish(h, _least_cost, (fn, fp, tp, tn), of))


def least_cost_groups(gd: GroupedData, *, fn: float, fp: float, tp: float, tn: float, of: str) -> np.ndarray:
    return np.asarray(_finish(gd, _least_cost, (fn, fp, tp, tn), of))
