"""Probability and calibration measures: RMS, BRIER, NRM, CXE, LOGLOSS, SLQ, CA1, CA2, over one
summary and over every group at once (each group's histogram).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import _formulas as _f
from perfeval.measures._data import GroupedData, group_sizes, hist_groups, hist_sum
from perfeval.summaries import ScoreHistogram

NAN = math.nan
_div = _f.div


def _in_unit(h: ScoreHistogram) -> bool:
    return len(h.scores) == 0 or (h.scores[0] >= 0.0 and h.scores[-1] <= 1.0)


def _squared_errors(h: ScoreHistogram) -> np.float64:
    """np.sum(h.pos * (1 - s) ** 2 + h.neg * s**2), once a summary, without its temporaries (the same
    sum bit for bit, csrc/summary.c hist_sum).
    """
    return h.memo(("sum", "sq", 0.0), lambda: np.float64(_native.hist_sum("sq", h.scores, h.pos, h.neg, 0.0)))


def rms(h: ScoreHistogram) -> float:
    if h.n == 0:
        return NAN
    return float(math.sqrt(_squared_errors(h) / h.n))


def brier(h: ScoreHistogram) -> float:
    """Mean squared difference between target and score."""
    if h.n == 0:
        return NAN
    return float(_squared_errors(h) / h.n)


def nrm(h: ScoreHistogram, *, p: float) -> float:
    if h.n == 0:
        return NAN
    if p == 0:
        return 1.0
    s = h.scores
    total = np.sum(h.pos * np.abs(1 - s) ** p + h.neg * np.abs(s) ** p)
    return float((total / h.n) ** (1.0 / p))


def cxe(h: ScoreHistogram) -> float:
    """Mean cross-entropy in bits; NaN if a score is outside [0, 1], inf for a certain mistake."""
    if h.n == 0 or not _in_unit(h):
        return NAN
    s, pos, neg = h.scores, h.pos, h.neg

    def part(a: int, b: int) -> tuple[float, float]:
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.where(pos[a:b] > 0, -np.log2(s[a:b]) * pos[a:b], 0.0)
            ln = np.where(neg[a:b] > 0, -np.log2(1.0 - s[a:b]) * neg[a:b], 0.0)
        return float(lp.sum()), float(ln.sum())

    # lp.sum() + ln.sum() of the whole, in pieces that are subtrees of numpy's pairwise sum (the
    # same sums bit for bit, numpy's own logarithms, without two temporaries of the summary's size)
    sp, sn = tree_sums(len(s), part)
    return float((sp + sn) / h.n)


# -- the modern vocabulary (binary) ----------------------------------------------------------------
def logloss(h: ScoreHistogram, *, eps: float = 0.0) -> float:
    """Mean cross-entropy in nats; with ``eps`` > 0 each score is first clipped to [eps, 1 - eps]
    (scikit-learn's former ``log_loss(eps=)``), so that one confident mistake costs -ln(eps), not inf.
    """
    if h.n == 0 or not _in_unit(h):
        return NAN
    s = np.clip(h.scores, eps, 1.0 - eps) if eps > 0 else h.scores
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(h.pos > 0, -np.log(s) * h.pos, 0.0)
        ln = np.where(h.neg > 0, -np.log1p(-s) * h.neg, 0.0)
    return float((lp.sum() + ln.sum()) / h.n)


def zero_probability_cases(y: Any, s: Any, w: Any = None) -> np.ndarray:
    """The cases that give their own class a probability of 0 (a positive scored 0 or less, a negative
    1 or more; weight 0 is no case): why an unclipped LOGLOSS or CXE is infinite.  Said by ``eval``'s
    note and the report's.
    """
    y, s = np.asarray(y, dtype=np.float64), np.asarray(s, dtype=np.float64)
    bad = ((y == 1) & (s <= 0)) | ((y == 0) & (s >= 1))
    if w is not None:
        bad &= np.asarray(w) > 0
    return bad


def probability_counts(y: Any, s: Any, w: Any = None) -> tuple[int, int, float, int, int]:
    """The cases of coded targets ``y``, scores ``s`` and weights ``w`` (a table's, a chunk's, a
    partition's) that a command's notes count: how many scores are outside [0, 1], the first's row
    and its score, how many cases give their own class a probability of 0
    (:func:`zero_probability_cases`), the first's row (-1: none).  Weight 0 is no case.
    """
    y, s = np.asarray(y, dtype=np.float64), np.asarray(s, dtype=np.float64)
    outside = (s < 0) | (s > 1)
    if w is not None:
        outside &= np.asarray(w, dtype=np.float64) > 0
    bad = zero_probability_cases(y, s, w)
    n, z = int(np.count_nonzero(outside)), int(np.count_nonzero(bad))
    i = int(np.argmax(outside)) if n else -1
    return n, i, float(s[i]) if n else math.nan, z, int(np.argmax(bad)) if z else -1


#: why an unclipped LOGLOSS or CXE is infinite, after the count of such cases
ZERO_PROBABILITY = "own class a probability of 0 (a positive scored 0 or less, or a negative 1 or more)"


def tree_sums(n: int, part: Any, leaf: int = 1 << 16) -> tuple[float, ...]:
    """The sums numpy's np.sum makes of arrays of n terms, given ``part(a, b)`` -> the np.sum of
    terms a..b of each: numpy sums pairwise, halving at a multiple of 8 down to 128 terms, so a
    piece that is a subtree of that halving (at most ``leaf`` terms) sums alone to what it adds
    there, and the pieces add up as the tree does.  The terms are then made piece by piece.
    """
    # a module-level recursion, not a closure: a closure that calls itself is a reference cycle,
    # which kept `part` and the summary's arrays alive until the garbage collector ran
    return _tree(0, n, part, leaf)


def _tree(a: int, m: int, part: Any, leaf: int) -> tuple[float, ...]:
    if m <= leaf:
        return tuple(part(a, a + m))
    m2 = m // 2
    m2 -= m2 % 8
    left, right = _tree(a, m2, part, leaf), _tree(a + m2, m - m2, part, leaf)
    return tuple(x + y for x, y in zip(left, right, strict=True))


def slq(h: ScoreHistogram, *, bins: int) -> float:
    """SLAC Q-score over `bins` equal bins of [0, 1] (a score of 1 falls in the last bin)."""
    if h.n == 0 or not _in_unit(h):
        return NAN
    # the scores ascend: each bin is a run of cells, whose weights np.bincount(slq_bins(...),
    # weights) adds in order from 0.0: so does the compiled sum of the run
    edges = np.arange(1, int(bins), dtype=np.float64) / int(bins)
    bounds = np.concatenate(([0], np.searchsorted(h.scores, edges, side="left"), [len(h.scores)]))

    runs = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    sc, pos, neg = h.scores, h.pos, h.neg
    x, y = (
        np.array([_native.hist_sum(op, sc[a:b], pos[a:b], neg[a:b], 0.0) for a, b in runs])
        for op in ("seqpos", "seqneg")
    )
    tot = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(tot > 0, np.minimum(x, y) / np.where(tot > 0, tot, 1.0), 0.0)
    return float(np.sum(tot * (1 - 2 * w) ** 2) / tot.sum())


def slq_bins(scores: np.ndarray, bins: int) -> np.ndarray:
    """The bin of each score in [0, 1]: bin i holds i/bins <= s < (i+1)/bins (the last also s = 1).

    The score is compared with the edge values i/bins themselves (as CA1 does), not multiplied:
    ``floor(0.29 * 100)`` is 28 because 0.29 * 100 rounds to 28.999999999999996.
    """
    edges = np.arange(1, bins, dtype=np.float64) / bins
    return np.searchsorted(edges, scores, side="right")


def ca1(h: ScoreHistogram) -> float:
    """Mean calibration error over the bins [i/20, i/20 + 1/10], i = 0..18, both ends inclusive."""
    errs = []
    for i in range(19):
        lo, hi = i / 20, (i + 2) / 20
        # the scores ascend: the bin's cells are a run, the same cells in the same order as the
        # mask (h.scores >= lo) & (h.scores <= hi) picks
        a = int(np.searchsorted(h.scores, lo, side="left"))
        b = int(np.searchsorted(h.scores, hi, side="right"))
        sp, sn = h.pos[a:b].sum(), h.neg[a:b].sum()
        k = sp + sn
        if k == 0:
            errs.append(0.0)
            continue
        # np.sum(scores * (pos + neg)) over the run, without its temporaries
        mass = _native.hist_sum("mass", h.scores[a:b], h.pos[a:b], h.neg[a:b], 0.0)
        errs.append(abs(sp / k - mass / k))
    return float(sum(errs) / 19)


def ca2(h: ScoreHistogram, *, window: int) -> float:
    """Mean calibration error over windows of `window` consecutive cases in score order; each case of
    a tie group counts positives/size of a positive, so the order inside ties does not matter.
    """
    if not h.is_counts():
        raise InvalidParameterError("CA2 needs whole-number weights (counts of cases)")
    S = int(window)
    if h.n < S:
        return NAN

    return _native.hist_ca2(h.scores, h.pos, h.neg, S)


# -- every group at once (GroupedData); None: declined, each group from its own summary --------


def rms_groups(gd: GroupedData) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.sqrt(brier_groups(gd))


def brier_groups(gd: GroupedData) -> np.ndarray:
    # sum of p (1 - s)^2 + q s^2 over each group's cells, and of p + q (hist_groups "sq")
    squares, sizes = hist_groups(gd, "sq")
    return _div(squares, sizes)


def nrm_groups(gd: GroupedData, *, p: float) -> np.ndarray:
    n = group_sizes(gd)
    if p == 0:
        return np.where(n > 0, 1.0, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        total = hist_sum(gd, lambda s, pw, q: pw * np.abs(1 - s) ** p + q * np.abs(s) ** p)
        return _div(total, n) ** (1.0 / p)


def cxe_groups(gd: GroupedData) -> np.ndarray:
    """Bits; NaN for a group holding a score outside [0, 1]."""
    outside = hist_groups(gd, "outside")[0] > 0

    def bits(s, p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.clip(s, 0, 1)
            return np.where(p > 0, -np.log2(c) * p, 0.0) + np.where(q > 0, -np.log2(1.0 - c) * q, 0.0)

    v = _div(hist_sum(gd, bits), group_sizes(gd))
    return np.where(outside, np.nan, v)


def logloss_groups(gd: GroupedData, *, eps: float = 0.0) -> np.ndarray:
    """Nats; with eps > 0 scores clipped to [eps, 1 - eps] (see logloss)."""
    outside = hist_groups(gd, "outside")[0] > 0

    def nats(s, p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.clip(s, eps, 1 - eps)
            return np.where(p > 0, -np.log(c) * p, 0.0) + np.where(q > 0, -np.log1p(-c) * q, 0.0)

    v = _div(hist_sum(gd, nats), group_sizes(gd))
    return np.where(outside, np.nan, v)


def slq_groups(gd: GroupedData, *, bins: int) -> np.ndarray | None:
    """Each group's slq (NaN for a group with a score outside [0, 1]): its (bins,) table of positives
    and cases made from its cells and summed as numpy sums a row (hist_groups "slq").
    """
    if gd.weighted:
        return None
    return hist_groups(gd, "slq", int(bins))[0]


def ca1_groups(gd: GroupedData) -> np.ndarray | None:
    """Each group's CA1: its 19 overlapping bins walked over its ascending cells (hist_groups "ca1")."""
    if gd.weighted:
        return None
    return hist_groups(gd, "ca1")[0]


def ca2_groups(gd: GroupedData, *, window: int) -> np.ndarray | None:
    """Each group's CA2, NaN for a group of fewer cases than the window (hist_groups "ca2")."""
    if gd.weighted:
        return None
    return hist_groups(gd, "ca2", int(window))[0]
