"""Rank measures: ROC, SAR, APR, AP, R50, RKL, TOP1, TOP10, PRB, NTOP, over one summary (distinct
scores from the highest down) and over every group at once (each group's tie table).
"""

from __future__ import annotations

import math

import numpy as np

from perfeval import _native
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import _formulas as _f
from perfeval.measures._data import GroupedData, hist_groups, histograms
from perfeval.measures.probability import rms, rms_groups
from perfeval.measures.threshold import acc, acc_groups
from perfeval.summaries import ScoreHistogram

NAN = math.nan
_div = _f.div


def _desc(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray]:
    """Pos and neg per distinct score, highest score first."""
    return h.pos[::-1], h.neg[::-1]


def _hsum(h: ScoreHistogram, op: str, par: float = 0.0) -> np.float64:
    """A measure's sum over the summary, computed once (SAR reads ROC's): the numpy expression its
    comment gives, bit for bit, by one compiled pass without its temporaries (csrc/summary.c,
    hist_sum).
    """
    # a numpy float, as np.sum gave: a division by zero is inf or NaN, not an exception
    return h.memo(
        ("sum", op, par), lambda: np.float64(_native.hist_sum(op, h.scores, h.pos, h.neg, par, h.is_counts()))
    )


def roc(h: ScoreHistogram) -> float:
    """Area under the ROC curve; a tied positive/negative pair counts one half."""
    P, N = h.n_pos, h.n_neg
    if P == 0 or N == 0:
        return NAN
    # np.sum(neg * (tp_above + 0.5 * pos)), cells from the highest score, tp_above = cumsum(pos) - pos
    split = h.split()
    if split is not None and P * N < 2.0**52:
        # unit cases: whole and half numbers, exact in any order, so the same bits from the sorted
        # halves in one walk, without the summary's arrays

        area = h.memo(("sum", "roc", 0.0), lambda: np.float64(_native.split_sum("roc", *split)))
        return float(area / (P * N))
    if P * N < TINY:
        return roc(_rescaled(h, pos=True, neg=True))
    return per_pair(_hsum(h, "roc"), P, N)


# P N below 2^-969: the products of weights would lose bits in the subnormal range or underflow to 0
# (weights of 1e-200 gave ROC 0/0 = NaN); the areas are linear in each class's weights, so those
# are scaled by powers of two (exact) to the order of 1, and the share is the same
TINY = 2.0**-969


def _rescaled(h: ScoreHistogram, *, pos: bool, neg: bool) -> ScoreHistogram:
    """``h`` with its positive (and/or negative) weights times a power of two that brings their
    largest cell to [1, 2): exact, and every share of the positive/negative pairs unchanged.
    """

    def scale(w: np.ndarray) -> np.ndarray:
        return np.ldexp(w, -math.frexp(float(w.max()))[1] + 1)

    return ScoreHistogram(h.scores, scale(h.pos) if pos else h.pos, scale(h.neg) if neg else h.neg)


def per_pair(area: float, P: float, N: float) -> float:
    """``area / (P N)``, the share of the positive/negative pairs; when the number of pairs P N
    overflows double precision (weights of 1e308) but the area does not, ``area / P / N`` (a finite
    area over an infinite count would give 0); an infinite area is NaN (the engine says why).
    """
    with np.errstate(over="ignore"):
        pairs = P * N
    if math.isinf(pairs):
        return float(area / P / N) if math.isfinite(area) else NAN
    return float(area / pairs)


def sar(h: ScoreHistogram, *, threshold: float, w_acc: float, w_roc: float, w_rms: float) -> float:
    wsum = w_acc + w_roc + w_rms
    total = w_acc * acc(h, threshold=threshold) + w_roc * roc(h) + w_rms * (1 - rms(h))
    return total / wsum if wsum != 0 else NAN


def r50(h: ScoreHistogram, *, negatives: int) -> float:
    """ROC_n: ROC area over the top cases until `negatives` negatives, scaled by the negatives used."""
    P, N = h.n_pos, h.n_neg
    if P == 0 or N == 0:
        return NAN
    limit = min(float(negatives), N)
    if limit * P < TINY and limit == N:  # the whole area, linear in each class's weights
        return r50(_rescaled(h, pos=True, neg=True), negatives=negatives)
    if limit * P < TINY and limit >= 1:  # the area and limit * P are linear in the positives' weights
        return r50(_rescaled(h, pos=True, neg=False), negatives=negatives)
    # from the highest score: tp_above, fp_above = cumsum(pos) - pos, cumsum(neg) - neg; the
    # negatives of each group inside the limit, take = clip(limit - fp_above, 0, neg), with
    # slope = pos / neg where neg > 0 (else 0): np.sum(take * tp_above + 0.5 * slope * take * take)
    area = _hsum(h, "r50", limit)
    return per_pair(area, limit, P)


def apr(h: ScoreHistogram) -> float:
    """PERF's average precision: expected precision at each positive, random order inside ties.

    By linearity of expectation a tie group of g cases with m positives, below a cases of which b are
    positive, adds sum_{j=1..g} (m/g) * (b + 1 + (j-1)(m-1)/(g-1)) / (a + j): position j holds a
    positive with probability m/g, and then the expected number of positives before it in the
    group is (j-1)(m-1)/(g-1).  This is the quantity PERF's hypergeometric double sum computes.
    Vectorised over the cases: one term per case, summed per group.
    """
    if not h.is_counts():
        raise InvalidParameterError("APR needs whole-number weights (counts of cases)")
    P = h.n_pos
    if h.n == 0:
        return NAN
    if P == 0:
        return NAN  # no positive to average over (PERF printed 0)
    # a sequential sum over the cases: the compiled kernel does it in one pass without the n-sized
    # temporaries a numpy expression needs (see csrc/summary.c, hist_apr)

    split = h.split()  # unit cases from the sorted halves: the same walk over the same cells
    return (_native.split_sum("apr", *split) if split is not None else _native.hist_apr(h.pos, h.neg)) / P


def prb(h: ScoreHistogram) -> float:
    """Share of positives among the top P cases; a straddling tie group counts fractionally."""
    P = h.n_pos
    if P == 0:
        return NAN
    return _top_positives(h, P) / P


def _top_positives(h: ScoreHistogram, k: float) -> float:
    # from the highest score, size = pos + neg, above = cumsum(size) - size, take = clip(k - above,
    # 0, size), frac = pos / size where size > 0 (else 0): np.sum(take * frac)
    return float(_hsum(h, "top", float(k)))


def ntop(h: ScoreHistogram, *, n: float) -> float:
    return _top_positives(h, float(n)) / n


def rkl(h: ScoreHistogram) -> float:
    """1-based rank of the bottom of the lowest tie group holding a positive (pessimistic)."""
    if h.n == 0:
        return NAN
    if h.n_pos == 0 or h.n_neg == 0:
        return h.n
    low = int(np.argmax(h.pos > 0))  # ascending: the lowest score with a positive
    return float(_hsum(h, "cases", float(low)))  # (h.pos[low:] + h.neg[low:]).sum()


def top1(h: ScoreHistogram) -> float:
    if h.n == 0:
        return 0.0
    return 1.0 if h.neg[-1] == 0 and h.pos[-1] > 0 else 0.0


def top10(h: ScoreHistogram) -> float:
    """1 if a positive is among the 10 highest-scored cases in every order of the tied cases: the
    worst order puts a tie group's negatives before its positives, so a group with a positive
    counts when the cases above it and its own negatives are fewer than 10.
    """
    pos, neg = _desc(h)
    m = 64
    while True:  # the cases above only grow: the top cells up to 10 cases decide
        size = pos[:m] + neg[:m]
        above = np.cumsum(size) - size
        hit = (pos[:m] > 0) & (above + neg[:m] < 10)
        if hit.any():
            return 1.0
        if m >= len(pos) or above[-1] + size[-1] >= 10:
            return 0.0
        m *= 4


def ap(h: ScoreHistogram) -> float:
    """Average precision, information-retrieval form: mean over the positives of the precision at
    their score's threshold (a tie group is one threshold, as scikit-learn).

    A summary of whole counts (unit-weight cases) is read in one compiled pass (csrc/slices.c
    hist_ap_groups, the summary as one group): the bits of the numpy form below (:func:`_ap_numpy`),
    without its five arrays of the summary's length (10M distinct scores: a second and a half).
    """
    if h.n_pos == 0:
        return NAN
    if h.is_counts():
        pos, neg = h.pos, h.neg
        bounds = np.array([0, len(pos)], dtype=np.int64)
        return float(
            np.frombuffer(
                _native.hist_ap_groups(
                    np.ascontiguousarray(pos, np.float64), np.ascontiguousarray(neg, np.float64), bounds
                ),
                np.float64,
            )[0]
        )
    return _ap_numpy(h)


def _ap_numpy(h: ScoreHistogram) -> float:
    """:func:`ap` in numpy: the precision at each distinct score from the highest, each positive's
    term summed by ``np.sum`` (any weights).
    """
    P = h.n_pos
    if P == 0:
        return NAN
    _thr, tp, fp = h.cumulative()
    pos = h.pos[::-1]
    cnt = tp + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(cnt > 0, tp / np.where(cnt > 0, cnt, 1.0), 0.0)
    return float(np.sum(pos * prec) / P)


# -- every group at once (GroupedData); None: declined, each group from its own summary --------


def roc_groups(gd: GroupedData) -> np.ndarray | None:
    """Per-group ROC area (half credit for ties) through the ranking kernel; None with weights."""
    if gd.weighted:
        return None

    # from each group's summary in one pass: whole and half numbers, the tie table's bits (group_auc)
    _sc, pos, neg, bounds = histograms(gd)
    wins, P, N = (np.frombuffer(b, np.float64) for b in _native.hist_auc_groups(pos, neg, bounds))
    denom = P * N
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), np.nan)


def sar_groups(
    gd: GroupedData, *, threshold: float, w_acc: float, w_roc: float, w_rms: float
) -> np.ndarray | None:
    r = roc_groups(gd)
    if r is None:
        return None
    wsum = w_acc + w_roc + w_rms
    return _div(
        w_acc * acc_groups(gd, threshold=threshold) + w_roc * r + w_rms * (1 - rms_groups(gd)),
        np.full(gd.G, wsum),
    )


def top1_groups(gd: GroupedData) -> np.ndarray | None:
    """1 where a group's top tie is all positives (hist_groups "top1")."""
    if gd.weighted:
        return None
    return hist_groups(gd, "top1")[0]


def top10_groups(gd: GroupedData) -> np.ndarray | None:
    """1 where a positive is in a group's top 10 in every tie order (hist_groups "top10")."""
    if gd.weighted:
        return None
    return hist_groups(gd, "top10")[0]


def rkl_groups(gd: GroupedData) -> np.ndarray | None:
    """The end of each group's deepest tie holding a positive; its size with one class only."""
    if gd.weighted:
        return None
    return hist_groups(gd, "rkl")[0]


def prb_groups(gd: GroupedData) -> np.ndarray | None:
    """Each group's share of its positives in its top P (expected over tie orders; hist_groups)."""
    if gd.weighted:
        return None
    share, P = hist_groups(gd, "prb")
    return _div(share, P)


def ntop_groups(gd: GroupedData, *, n: float) -> np.ndarray | None:
    if gd.weighted:
        return None
    share, _P = hist_groups(gd, "ntop", float(n))
    return share / n


def r50_groups(gd: GroupedData, *, negatives: int) -> np.ndarray | None:
    """ROC_n per group (see r50): each group's ties walked highest score first (hist_groups "r50")."""
    if gd.weighted:
        return None
    area, P, N = hist_groups(gd, "r50", float(negatives))
    limit = np.minimum(float(negatives), N)
    return np.where((P > 0) & (N > 0), _div(area, limit * P), np.nan)


def apr_groups(gd: GroupedData) -> np.ndarray | None:
    """PERF's APR per group: the one-pass kernel on each group's slice (no per-group objects)."""
    if gd.weighted:
        return None

    _sc, pos, neg, bounds = histograms(gd)
    out = np.full(gd.G, np.nan)
    if gd.G == 0:
        return out
    P = np.add.reduceat(pos, bounds[:-1])  # every group holds at least one cell
    total = np.frombuffer(
        _native.hist_apr_groups(pos, neg, np.ascontiguousarray(bounds, np.int64)), np.float64
    )
    has = P > 0  # a group with no positive: NaN
    out[has] = total[has] / P[has]
    return out


def ap_groups(gd: GroupedData) -> np.ndarray | None:
    """AP per group from the groups' summaries, the bits of :func:`ap` on each group alone; None
    with weights (each group then from its own summary).

    One compiled pass over the cells (csrc/slices.c hist_ap_groups): each group's counts at or above
    each cell are whole numbers (exact whatever the order of the sums), each term is the scalar
    form's (``pos * precision``, cell by cell), and each group's terms are summed as ``np.sum`` sums
    them alone (numpy's pairwise sum, written out in C).
    """
    if gd.weighted:
        return None
    _sc, pos, neg, bounds = histograms(gd)
    if gd.G == 0:
        return np.zeros(0)
    return np.frombuffer(
        _native.hist_ap_groups(
            np.ascontiguousarray(pos, np.float64),
            np.ascontiguousarray(neg, np.float64),
            np.ascontiguousarray(bounds, np.int64),
        ),
        np.float64,
    ).copy()
