"""Calibration measures (issue 33), each finished from the score histogram (distinct scores with
their positive and negative weight), never from the rows:

- ``ECE`` / ``MCE``: the binned calibration error of the positive class's probability, every
  estimator choice a parameter (equal-width or equal-mass bins, their number, the L1 / L2 / max
  norm, Kumar, Liang & Ma's debiased L2 form);
- ``BRIER_MCB`` / ``BRIER_DSC`` / ``BRIER_UNC``: the Brier score's decomposition, Murphy's over the
  distinct scores or the CORP form (Dimitriadis, Gneiting & Jordan 2021: the PAV recalibration);
- ``CAL_SLOPE`` / ``CAL_INTERCEPT``: the logistic recalibration of logit(score), fitted by Newton's
  method over the distinct scores.

The bins.  Equal width: bin ``i`` of ``n_bins`` holds the scores ``i/n_bins <= s < (i+1)/n_bins``,
the last bin closed (a score of exactly 1.0 is in it; torchmetrics gives it an extra bin of its own,
torchmetrics#3510), the score compared with the edge values ``i/n_bins`` themselves (as SLQ and
CA1).  Equal mass: the distinct scores ascending, a cell (a distinct score with all its cases) goes
to the bin ``floor(n_bins * W_below / W)``, ``W_below`` the weight of the cases scored below it and
``W`` the total: the edges at the weighted quantiles ``k/n_bins`` over the distinct scores, a tie
never split between two bins (a heavy tie leaves the bins it spans over empty).

Every per-bin sum is made by ``np.bincount`` over the cells in score order (sequential, from 0.0),
so the value over one summary and every group's value of the per-group form (every group at once,
its cells in score order) are the same bits.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.measures._data import GroupedData, histograms
from perfeval.summaries import ScoreHistogram

NAN = math.nan

#: the per-group form declines (each group then from its own summary) beyond this many (group, bin)
#: cells, so that its tables stay small
GROUP_BIN_CELLS = 1 << 24
#: ECE_TOP's per-group cells are found by one integer key (group, maximum, tie size) below this
#: bound, else by a stable sort of the rows on the three
TOP_KEY_LIMIT = 1 << 62


# -- the bins -----------------------------------------------------------------------------------------
def _unit(sc: np.ndarray, wt: np.ndarray) -> bool:
    """Every case's score (weight > 0) is a probability, in [0, 1] (``sc`` ascending)."""
    if len(sc) == 0 or (sc[0] >= 0.0 and sc[-1] <= 1.0):
        return True
    live = sc[wt > 0]
    return len(live) == 0 or (live.min() >= 0.0 and live.max() <= 1.0)


def _group_of_cells(bounds: np.ndarray) -> np.ndarray:
    """Each cell's group (0 .. G - 1) from the groups' cell bounds."""
    return np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))


def _mass_bins(wt: np.ndarray, bounds: np.ndarray, B: int) -> np.ndarray:
    """Each cell's equal-mass bin in its group: the number of k in 1 .. B - 1 with
    ``k * total <= B * below`` (``below`` the group's weight before the cell, ``total`` the group's
    weight, both added cell by cell from 0.0): the products compared exactly, never divided.
    """
    from perfeval import _native

    bounds = np.ascontiguousarray(bounds, np.int64)
    wt = np.ascontiguousarray(wt, np.float64)
    below = np.frombuffer(_native.group_below(wt, bounds), np.float64)
    group = _group_of_cells(bounds)
    total = np.bincount(group, weights=wt, minlength=len(bounds) - 1)[group]
    lhs = below * B
    with np.errstate(invalid="ignore", divide="ignore"):
        guess = np.floor(np.where(total > 0, lhs / np.where(total > 0, total, 1.0), B - 1))
    k = np.clip(guess, 0, B - 1)  # within one of the answer: corrected with the exact comparisons
    while True:
        up = (k < B - 1) & ((k + 1) * total <= lhs)
        down = (k > 0) & (k * total > lhs)
        if not (up.any() or down.any()):
            return k.astype(np.intp)
        k = k + up - down


def bin_of_cells(sc: np.ndarray, wt: np.ndarray, *, bins: str, n_bins: int) -> np.ndarray:
    """The bin (0 .. n_bins - 1) of each cell of one summary: ``sc`` the distinct scores ascending,
    ``wt`` each cell's total weight (see the module's docstring for the two rules).
    """
    B = int(n_bins)
    if bins == "width":
        edges = np.arange(1, B, dtype=np.float64) / B
        return np.searchsorted(edges, sc, side="right")
    return _mass_bins(wt, np.array([0, len(wt)]), B)


def bin_sums(
    sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray, *, bins: str, n_bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, P, S), each (G, n_bins): every group's weight, positive weight and weighted score sum in
    each bin (:func:`bin_of_cells`' rules), added cell by cell in score order from 0.0 (np.bincount's
    bits; one compiled pass, csrc/calibration.c group_bin_sums): the same bits for one group alone.
    """
    from perfeval import _native

    B, G = int(n_bins), len(bounds) - 1
    W, P, S = (
        np.frombuffer(v, np.float64).reshape(G, B)
        for v in _native.group_bin_sums(
            np.ascontiguousarray(sc, np.float64),
            np.ascontiguousarray(pos, np.float64),
            np.ascontiguousarray(neg, np.float64),
            np.ascontiguousarray(bounds, np.int64),
            B,
            bins == "mass",
        )
    )
    return W, P, S


def _ece_of_bins(W: np.ndarray, P: np.ndarray, S: np.ndarray, *, norm: str, debiased: str) -> np.ndarray:
    """Each row's (group's) calibration error from its bins' sums (W, P, S: (G, n_bins)), the bins
    added in order from 0.0: n = sum W; a bin's gap P / W - S / W (0 where W is 0); l1: sum W |gap|,
    l2: the root of sum W gap gap (less W ybar (1 - ybar) / (W - 1) where W > 1 when debiased, ybar
    = P / W) over n, of 0 when below; max: the largest |gap| of a bin with W > 0; NaN where n is 0.
    One compiled pass over the groups (csrc/calibration.c ece_of_bins: the numpy expressions' bits,
    element by element, tests/test_ece_bins_kernel.py).
    """
    from perfeval import _native

    G, B = W.shape
    code = {"l1": 0, "l2": 1, "max": 2}[norm]
    out = _native.ece_of_bins(
        np.ascontiguousarray(W, np.float64).reshape(-1),
        np.ascontiguousarray(P, np.float64).reshape(-1),
        np.ascontiguousarray(S, np.float64).reshape(-1),
        B,
        code,
        debiased == "yes",
    )
    return np.frombuffer(out, np.float64).copy() if G else np.zeros(0)


def _no_debiased(norm: str, debiased: str) -> bool:
    """debiased=yes with norm l1 or max: no such estimator (Kumar, Liang & Ma's debiased form is of
    the L2 norm), so the value is NaN, and the edge cases say why.
    """
    return debiased == "yes" and norm != "l2"


#: why a debiased value of another norm than l2 is NaN
NO_DEBIASED = (
    "the debiased form is of the L2 norm only (Kumar, Liang & Ma 2019): give norm=l2 with debiased=yes"
)


def ece(h: ScoreHistogram, *, bins: str, n_bins: int, norm: str, debiased: str) -> float:
    """The binned calibration error of one summary (see the module's docstring); NaN when a score
    is outside [0, 1] or there is no case.
    """
    if _no_debiased(norm, debiased):
        return NAN
    if debiased == "yes" and not h.is_counts():
        raise InvalidParameterError(
            "ECE with debiased=yes needs whole-number weights (counts of cases: a bin's n - 1)"
        )
    split = h.split()
    if split is not None:  # unit cases: the bins from the classes' sorted scores, without the arrays
        from perfeval import _native

        ps, ns = split
        lo = min(ps[0] if len(ps) else math.inf, ns[0] if len(ns) else math.inf)
        hi = max(ps[-1] if len(ps) else -math.inf, ns[-1] if len(ns) else -math.inf)
        if lo < 0.0 or hi > 1.0:
            return NAN
        W, P, S = (
            np.frombuffer(v, np.float64).reshape(1, -1)
            for v in _native.bin_sums_split(ps, ns, int(n_bins), bins == "mass")
        )
        return float(_ece_of_bins(W, P, S, norm=norm, debiased=debiased)[0])
    sc, pos, neg = h.scores, h.pos, h.neg
    if h.n == 0 or not _unit(sc, pos + neg):
        return NAN
    W, P, S = bin_sums(sc, pos, neg, np.array([0, len(sc)]), bins=bins, n_bins=n_bins)
    return float(_ece_of_bins(W, P, S, norm=norm, debiased=debiased)[0])


def mce(h: ScoreHistogram, *, bins: str, n_bins: int) -> float:
    """The maximum calibration error: ECE with norm=max."""
    return ece(h, bins=bins, n_bins=n_bins, norm="max", debiased="no")


def ece_groups(gd: GroupedData, *, bins: str, n_bins: int, norm: str, debiased: str) -> np.ndarray | None:
    """Every group's ECE at once (None: declined, each group from its own summary: weighted rows
    with the debiased form, which must check each group's weights, or too many (group, bin) cells).
    """
    if gd.weighted and debiased == "yes":
        return None
    sc, pos, neg, bounds = histograms(gd)
    G = len(bounds) - 1
    if _no_debiased(norm, debiased):
        return np.full(G, NAN)
    if G * int(n_bins) > GROUP_BIN_CELLS:
        return None
    out = _group_ece(sc, pos, neg, bounds, bins=bins, n_bins=n_bins, norm=norm, debiased=debiased)
    bad = ((sc < 0.0) | (sc > 1.0)) & ((pos + neg) > 0)
    if not bad.any():  # (every score a probability: nothing to set NaN)
        return out
    group = np.repeat(np.arange(G), np.diff(bounds))
    outside = np.bincount(group, weights=bad.astype(np.float64), minlength=G)
    return np.where(outside > 0, np.nan, out)


def _group_ece(
    sc: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    bounds: np.ndarray,
    *,
    bins: str,
    n_bins: int,
    norm: str,
    debiased: str,
) -> np.ndarray:
    """:func:`_ece_of_bins` of :func:`bin_sums`, bit for bit, in one compiled pass over the groups
    without the (group, bin) tables (csrc/calibration.c group_ece: each group's bins made and read
    by the same code; tests/test_group_ece_kernel.py).
    """
    from perfeval import _native

    out = _native.group_ece(
        np.ascontiguousarray(sc, np.float64),
        np.ascontiguousarray(pos, np.float64),
        np.ascontiguousarray(neg, np.float64),
        np.ascontiguousarray(bounds, np.int64),
        int(n_bins),
        bins == "mass",
        {"l1": 0, "l2": 1, "max": 2}[norm],
        debiased == "yes",
    )
    return np.frombuffer(out, np.float64).copy()


def mce_groups(gd: GroupedData, *, bins: str, n_bins: int) -> np.ndarray | None:
    return ece_groups(gd, bins=bins, n_bins=n_bins, norm="max", debiased="no")


def reliability_bins(
    h: ScoreHistogram, *, bins: str = "width", n_bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weight, mean score, share of positives) of each non-empty bin of one summary, ascending: the
    points of the reliability diagram (the same bins as ECE's).
    """
    sc, pos, neg = h.scores, h.pos, h.neg
    W, P, S = bin_sums(sc, pos, neg, np.array([0, len(sc)]), bins=bins, n_bins=n_bins)
    W, P, S = W[0], P[0], S[0]
    live = W > 0
    return W[live], S[live] / W[live], P[live] / W[live]


# -- the Brier score's decomposition ----------------------------------------------------------------
def brier_groups(
    sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray, form: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(MCB, DSC, UNC) of every group (its cells at ``bounds[g]:bounds[g + 1]``, distinct scores
    ascending): Murphy's reliability, resolution and uncertainty over the distinct scores (form
    "murphy"), or CORP's miscalibration, discrimination and uncertainty (form "corp", the PAV
    recalibration); BS = MCB - DSC + UNC.  One compiled pass a group (csrc/calibration.c
    brier_cells), every sum over the live cells in score order from 0.0, MCB's and DSC's with
    Neumaier's compensation (within a few units in the last place of the exact sums: MCB - DSC + UNC
    is BS to about 1e-16 at a million cases, where plain sums strayed 5e-12), so one group's numbers
    are the same bits alone or among others.  With ybar = pos / wt a cell's share of
    positives, obar the group's and c the cell's PAV recalibration, over n = sum wt:
    murphy MCB = sum wt (s - ybar)^2, DSC = sum wt (ybar - obar)^2; corp MCB = sum wt (s - ybar)^2
    - wt (c - ybar)^2, DSC = sum wt (c - obar)^2 (PAV: each block's residuals sum to 0, so no
    difference of two large sums); UNC = obar (N / n), N the negatives' weight (1 - obar would lose
    the digits of a rare negative class).  NaN with no case; MCB also NaN when a
    score is outside [0, 1] (it compares scores with frequencies; DSC and UNC read only the order
    of the scores and the targets).
    """
    from perfeval import _native

    G = len(bounds) - 1
    out = np.frombuffer(
        _native.brier_cells(
            np.ascontiguousarray(sc, np.float64),
            np.ascontiguousarray(pos, np.float64),
            np.ascontiguousarray(neg, np.float64),
            np.ascontiguousarray(bounds, np.int64),
            form == "corp",
        ),
        np.float64,
    ).reshape(3, G)
    return out[0], out[1], out[2]


def brier_parts(h: ScoreHistogram, form: str) -> tuple[float, float, float]:
    """(MCB, DSC, UNC) of one summary (see :func:`brier_groups`), made once for the summary.  A
    summary of unit cases not yet made into its arrays is walked from its classes' sorted scores
    (csrc/calibration.c brier_split: the same cells, the same bits, without the arrays).
    """

    def make() -> tuple[float, float, float]:
        from perfeval import _native

        split = h.split()
        if split is not None:
            mcb, dsc, unc = _native.brier_split(*split, form == "corp")
            return float(mcb), float(dsc), float(unc)
        m, d, u = brier_groups(h.scores, h.pos, h.neg, np.array([0, len(h.scores)]), form)
        return float(m[0]), float(d[0]), float(u[0])

    return h.memo(("brier", form), make)


def brier_mcb(h: ScoreHistogram, *, form: str) -> float:
    return brier_parts(h, form)[0]


def brier_dsc(h: ScoreHistogram, *, form: str) -> float:
    return brier_parts(h, form)[1]


def brier_unc(h: ScoreHistogram) -> float:
    """The share of positives o times 1 - o: of the targets alone (any scores; NaN with no case).
    From the classes' sizes when the summary is of unit cases (the sums of whole counts are exact:
    the same bits as over the cells).
    """
    split = h.split()
    if split is not None:
        P, N = len(split[0]), len(split[1])
        n = float(P + N)
        return (float(P) / n) * (float(N) / n)
    return brier_parts(h, "murphy")[2]


def _brier_of(gd: GroupedData, form: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sc, pos, neg, bounds = histograms(gd)
    return brier_groups(sc, pos, neg, bounds, form)


def brier_mcb_groups(gd: GroupedData, *, form: str) -> np.ndarray:
    """Every group's BRIER_MCB at once (the bits of each group alone)."""
    return _brier_of(gd, form)[0]


def brier_dsc_groups(gd: GroupedData, *, form: str) -> np.ndarray:
    return _brier_of(gd, form)[1]


def brier_unc_groups(gd: GroupedData) -> np.ndarray:
    return _brier_of(gd, "murphy")[2]


# -- logistic recalibration ------------------------------------------------------------------------
#: cells a block of :func:`_logit`'s temporaries (small enough to stay in the cache)
LOGIT_BLOCK = 1 << 15


def _logit(sc: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.log(sc) - np.log1p(-sc)``, bit for bit (numpy's functions, each element alone), block by
    block into ``out`` (a new array, or ``sc`` itself), so that the temporaries stay small; a large
    array's two halves on two threads (numpy's functions release the GIL).
    """
    n = len(sc)
    if out is None:
        from perfeval import _native

        # a large one in a kept mapping (csrc/buffers.c: its pages mapped already when an evaluation
        # before made one), not a fresh array whose 2,000 pages a million cells fault in and zero
        out = np.frombuffer(_native.empty(n * 8), np.float64) if n >= 1 << 17 else np.empty_like(sc)

    def blocks(lo: int, hi: int) -> None:
        for i in range(lo, hi, LOGIT_BLOCK):
            j = min(i + LOGIT_BLOCK, hi)
            s = sc[i:j]
            x = np.log(s)
            t = np.negative(s)
            np.log1p(t, out=t)
            np.subtract(x, t, out=out[i:j])

    if n < 1 << 17:  # (a thread costs about 0.1 ms: more than a block of cells)
        blocks(0, n)
        return out
    failed: list[BaseException] = []

    def upper() -> None:
        try:
            blocks(n // 2, n)
        except BaseException as e:  # raised again on the caller's thread
            failed.append(e)

    th = threading.Thread(target=upper)
    th.start()
    try:
        blocks(0, n // 2)
    finally:
        th.join()
    if failed:
        raise failed[0]
    return out


def _fit_cells(
    sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """(logit of each live cell's score, its positive weight, its negative weight, the cells' bounds,
    the groups that have them, G) over the groups that have a fit: a case, every score in (0, 1) (0
    and 1 have no logit), both classes (one compiled pass: csrc/calibration.c fit_cells; the live
    cells copied out only when some are left out).
    """
    from perfeval import _native

    G = len(bounds) - 1
    sc, pos, neg = (np.ascontiguousarray(v, np.float64) for v in (sc, pos, neg))
    bounds = np.ascontiguousarray(bounds, np.int64)
    ok, kept = _native.fit_cells(sc, pos, neg, bounds)
    if kept is not None:
        sc, pos, neg = (np.frombuffer(v, np.float64) for v in kept[:3])
        bounds = np.frombuffer(kept[3], np.int64)
    return _logit(sc), pos, neg, bounds, np.flatnonzero(np.frombuffer(ok, np.uint8)), G


#: a group's logistic fit takes its weights as they are when its largest is in [FIT_TINY, FIT_HUGE];
#: else they are scaled by a power of two (exact) that brings it to [1, 2) (:func:`fit_scales`)
FIT_TINY, FIT_HUGE = 2.0**-200, 2.0**200


def fit_scales(pos: np.ndarray, w2: np.ndarray, bounds: np.ndarray) -> np.ndarray | None:
    """The power of two each group's weights are scaled by before its logistic fit, or None when
    every group takes its weights as they are (ordinary weights: their bits untouched).

    A fit's value does not change when all its weights are multiplied by a constant, but its sums
    do: weights of 1e-154 make the Hessian's determinant (of the order of the squared total weight)
    subnormal, wrong in the 6th digit, and below 1e-165 zero (NaN); weights of 1e154 overflow it.
    So a group whose largest weight (``pos`` or ``w2``, the cells' positive weight and their weight
    or negative weight, cells ``bounds[g]:bounds[g + 1]``) is outside [FIT_TINY, FIT_HUGE] = [2**-200,
    2**200] has them scaled by the power of two that brings that largest weight to [1, 2): exact
    (but for a cell 2**1022 times lighter than the largest, already negligible), and chosen from the
    group's own weights, so a group's fit is the same bits alone or among others, and the same bits
    as with its weights times any power of two that keeps the sums normal (the weights times 1).
    """
    sizes = np.diff(bounds)
    live = sizes > 0
    if not live.any():
        return None
    starts, end = bounds[:-1][live], int(bounds[-1])
    big = np.maximum(np.maximum.reduceat(pos[:end], starts), np.maximum.reduceat(w2[:end], starts))
    odd = (big > 0) & ((big < FIT_TINY) | (big > FIT_HUGE))
    if not odd.any():
        return None
    scale = np.ones(len(sizes))
    scale[np.flatnonzero(live)[odd]] = np.ldexp(1.0, 1 - np.frexp(big[odd])[1])
    return scale


def _logit_fit(
    x: np.ndarray,
    pos: np.ndarray,
    w2: np.ndarray,
    bounds: np.ndarray,
    *,
    joint: bool,
    w2neg: bool,
    sc: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of every group by Newton's method (csrc/calibration.c logit_fit and fit_group: the
    start, the steps and the stopping rule are described there); ``w2`` the cells' weight, or their
    negatives' weight when ``w2neg`` (the weight then pos + w2, as the caller would add it).  With
    ``sc`` (the cells' scores), the kernel applies fit_cells' rule itself: the cells of no weight
    left out, NaN for a group with no fit (one class, a score not in (0, 1)).  A group whose
    largest weight is outside [FIT_TINY, FIT_HUGE] has its weights scaled by the kernel
    (csrc/calibration.c group_scale) by the power of two :func:`fit_scales` gives it.
    """
    from perfeval import _native

    G = len(bounds) - 1
    bounds = np.ascontiguousarray(bounds, np.int64)
    pos, w2 = (np.ascontiguousarray(v, np.float64) for v in (pos, w2))
    # groups of weights outside [2**-200, 2**200] are scaled by the kernel (fit_scales' powers of two)
    out = np.frombuffer(
        _native.logit_fit(
            np.ascontiguousarray(x, np.float64),
            pos,
            w2,
            bounds,
            joint,
            w2neg,
            None if sc is None else np.ascontiguousarray(sc, np.float64),
        ),
        np.float64,
    ).reshape(2, G)
    return out[0], out[1]


def fit_offset_groups(x: np.ndarray, pos: np.ndarray, wt: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Calibration-in-the-large of every group: the a of logit P(y = 1) = a + x (the slope fixed at
    1, x an offset) by Newton's method from a = logit(share of positives) - mean x, near the root,
    every step whole; NaN where the iterations do not converge.  Every group with its own sums
    (csrc/calibration.c logit_fit): the same arithmetic, step for step, as the group alone.
    """
    return _logit_fit(x, pos, wt, bounds, joint=False, w2neg=False)[0]


def fit_joint_groups(
    x: np.ndarray, pos: np.ndarray, wt: np.ndarray, bounds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of logit P(y = 1) = a + b x of every group by Newton's method (IRLS) from the
    calibrated recalibration (a as :func:`fit_offset_groups` starts, b = 1); NaNs where the maximum
    likelihood does not exist (the scores separate the classes, or there are fewer than two cells).
    A step that moves no cell's linear predictor by more than 1 is taken whole (it raises the
    likelihood for sure: the logistic's curvature changes by at most e^1 along it); a larger one is
    halved while it lowers the likelihood.  Every group with its own sums (csrc/calibration.c
    logit_fit, its pass in calib_pass.h: each group's cells in eight fixed lanes, exp and log1p of its
    own, the same bits on any machine): the same arithmetic, step for step, as the group alone.

    A fit stops after a Newton step of less than 1e-15 relative (each coefficient's step over 1 + its
    size), or one step after a Newton step below 1e-8: Newton's error is then about the square of
    that step, below the rounding of the float64 sums, where steps of a few 1e-13 can go on without
    end.  NaN after 100 steps.
    """
    return _logit_fit(x, pos, wt, bounds, joint=True, w2neg=False)


def fit_offset(x: np.ndarray, pos: np.ndarray, wt: np.ndarray) -> float:
    """Calibration-in-the-large of one set of cells (see :func:`fit_offset_groups`)."""
    return float(fit_offset_groups(x, pos, wt, np.array([0, len(x)]))[0])


def fit_joint(x: np.ndarray, pos: np.ndarray, wt: np.ndarray) -> tuple[float, float]:
    """(a, b) of one set of cells (see :func:`fit_joint_groups`)."""
    a, b = fit_joint_groups(x, pos, wt, np.array([0, len(x)]))
    return float(a[0]), float(b[0])


def _fits(sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray, what: str) -> np.ndarray:
    """Every group's slope (``what="slope"``) or intercept (``"offset"``, ``"joint"``); NaN where a
    group has no fit (see the registry's edge cases).  The cells' weights are pos + neg, added by
    the kernel as :func:`fit_joint` is given them.  The logit of every cell (numpy's, element by
    element: those of the groups without a fit are not read), and the kernel leaves out the cells
    and groups :func:`_fit_cells` would, without copying the others out.
    """
    sc, pos, neg = (np.ascontiguousarray(v, np.float64) for v in (sc, pos, neg))
    with np.errstate(divide="ignore", invalid="ignore"):  # 0, 1 and outside: their groups have no fit
        x = _logit(sc)
    a, s = _logit_fit(x, pos, neg, bounds, joint=what != "offset", w2neg=True, sc=sc)
    return s if what == "slope" else a


def _fit_split(split: tuple[np.ndarray, np.ndarray], fit: str) -> tuple[float, float]:
    """(a, b) of the summary of unit cases whose classes' sorted scores are ``split`` (``fit``
    "offset" or "joint"), bit for bit those of its cells (:func:`_fits`): a fit sums over its
    positives' cells, then its negatives' (csrc/calibration.c), so each class's scores are its cells
    as they are (distinct scores, a case each) or as their runs of equal scores (class_runs), and
    the summary's arrays are not made.
    """
    from perfeval import _native

    ps, ns = split
    if not (len(ps) and len(ns)) or min(ps[0], ns[0]) <= 0.0 or max(ps[-1], ns[-1]) >= 1.0:
        return NAN, NAN  # one class, or a score of 0 or 1 (or outside): no fit (fit_cells' rule)
    cls = []
    for sc in (ps, ns):
        runs = _native.class_runs(sc)
        cls.append((sc, None) if runs is None else (np.frombuffer(runs[0]), np.frombuffer(runs[1])))
    (sp, wp), (sn, wn) = cls
    x = np.empty(len(sp) + len(sn))
    xp, xn = _logit(sp, out=x[: len(sp)]), _logit(sn, out=x[len(sp) :])
    a, b = _native.logit_fit_classes(xp, wp, xn, wn, fit == "joint")
    return float(a), float(b)


def _fit_one(h: ScoreHistogram, what: str) -> float:
    """The fit of one summary (:func:`_fits`), from its classes' sorted scores while it has them;
    the joint fit made once for CAL_SLOPE and CAL_INTERCEPT:fit=joint.
    """
    fit = "offset" if what == "offset" else "joint"

    def make() -> tuple[float, float]:
        split = h.split()
        if split is not None:
            return _fit_split(split, fit)
        x, p, n, b, ok, _G = _fit_cells(h.scores, h.pos, h.neg, np.array([0, len(h.scores)]))
        if not len(ok):
            return NAN, NAN
        a, s = _logit_fit(x, p, n, b, joint=fit == "joint", w2neg=True)
        return float(a[0]), float(s[0])

    a, b = h.memo(("logistic", fit), make)
    return b if what == "slope" else a


def cal_slope(h: ScoreHistogram) -> float:
    """The slope b of logit P(y = 1) = a + b logit(score) (1: calibrated; below 1: overconfident)."""
    return _fit_one(h, "slope")


def cal_intercept(h: ScoreHistogram, *, fit: str) -> float:
    """The intercept: ``fit="offset"`` calibration-in-the-large (slope fixed at 1), ``"joint"`` the
    intercept of the fit with the slope.
    """
    return _fit_one(h, fit)


def cal_slope_groups(gd: GroupedData) -> np.ndarray:
    """Every group's CAL_SLOPE at once (the bits of each group alone)."""
    sc, pos, neg, bounds = histograms(gd)
    return _fits(sc, pos, neg, bounds, "slope")


def cal_intercept_groups(gd: GroupedData, *, fit: str) -> np.ndarray:
    """Every group's CAL_INTERCEPT at once (the bits of each group alone)."""
    sc, pos, neg, bounds = histograms(gd)
    return _fits(sc, pos, neg, bounds, fit)


# -- Wald's standard errors of the logistic fits ------------------------------------------------------
def fit_wald(h: ScoreHistogram, what: str) -> tuple[float, float]:
    """(estimate, standard error) of one summary's logistic fit: ``what="slope"`` the slope b of the
    joint fit (CAL_SLOPE), ``"joint"`` its intercept a, ``"offset"`` the intercept of the fit with the
    slope fixed at 1 (CAL_INTERCEPT's two forms).  The estimate is the measure's value (the same fit,
    :func:`fit_joint` / :func:`fit_offset` over the live cells); the standard error is the root of the
    coefficient's diagonal entry of the inverse of the observed (= expected: the logit link is
    canonical) information at the fit, over the distinct scores with their weights,

        I = sum_i w_i p_i (1 - p_i) [1, x_i]^T [1, x_i],  p_i = 1 / (1 + exp(-(a + b x_i))),

    (the offset fit: the 1 x 1 information sum_i w_i p_i (1 - p_i) at a + x_i), as statsmodels' GLM
    Binomial with ``freq_weights`` and R's ``glm(family=binomial, weights=)`` give it: the weights are
    frequencies (a weight of 2 counts as two cases, so the error changes with their unit).  NaN for
    both where the measure has no value (its edge cases) or the information is singular.

    Weights outside [2**-200, 2**200] (:func:`fit_scales`) are first scaled by 4**j (exact), which
    multiplies the information by 4**j: the error is then the root of the scaled inverse times 2**j
    (exact), so the sums stay normal (weights of 1e-154 made the determinant subnormal).
    """
    sc, pos, neg = h.scores, h.pos, h.neg
    wt = pos + neg
    live = wt > 0
    sc, pos, wt = sc[live], pos[live], wt[live]
    if not len(sc) or sc[0] <= 0.0 or sc[-1] >= 1.0 or not (pos > 0).any() or not ((wt - pos) > 0).any():
        return NAN, NAN
    x = np.log(sc) - np.log1p(-sc)
    if what == "offset":
        a = fit_offset(x, pos, wt)
        b = 1.0
    else:
        a, b = fit_joint(x, pos, wt)
    if not (math.isfinite(a) and math.isfinite(b)):
        return NAN, NAN
    half = 0  # the weights times 4**half, the errors times 2**half
    scale = fit_scales(pos, wt, np.array([0, len(wt)]))
    if scale is not None:
        half = math.frexp(float(scale[0]))[1] // 2  # scale[0] = 2**(e - 1): 4**half that or twice
        wt = np.ldexp(wt, 2 * half)
    e = np.exp(-np.abs(a + b * x))
    v = wt * (e / ((1.0 + e) * (1.0 + e)))  # w p (1 - p), without the cancellation of 1 - p near 1
    h00 = float(v.sum())

    def unscaled(se: float) -> float:  # NaN past float64's range (weights near 2**-1074)
        se = math.ldexp(se, half)
        return se if math.isfinite(se) else NAN

    if what == "offset":
        return a, unscaled(1.0 / math.sqrt(h00)) if h00 > 0 else NAN
    h01, h11 = float((v * x).sum()), float((v * x * x).sum())
    det = h00 * h11 - h01 * h01
    if not det > 0:
        return (b if what == "slope" else a), NAN
    if what == "slope":
        return b, unscaled(math.sqrt(h00 / det))
    return a, unscaled(math.sqrt(h11 / det))


def wald_interval(h: ScoreHistogram, what: str, level: float) -> tuple[float, float, float, float]:
    """(estimate, low, high, standard error): the Wald interval estimate -+ z se of :func:`fit_wald`,
    z the normal quantile of (1 + level) / 2 (not clipped: a slope or an intercept is any real).
    """
    from statistics import NormalDist

    est, se = fit_wald(h, what)
    z = NormalDist().inv_cdf((1.0 + level) / 2.0)
    return est, est - z * se, est + z * se, se


# -- torchmetrics' binary_calibration_error (the torchmetrics dialect's finisher) --------------------
def torch_linspace_edges(n_bins: int) -> np.ndarray:
    """``torch.linspace(0, 1, n_bins + 1, dtype=torch.float64)``: ATen's kernel, ``start + i * step``
    for the first half and ``end - (steps - 1 - i) * step`` for the second, each one fused
    multiply-add (one rounding: made exactly here with fractions).  An ulp off ``i / n_bins`` at
    some edges (0.30000000000000004 of 10 bins).
    """
    from fractions import Fraction

    steps = int(n_bins) + 1
    step = Fraction(1.0 / int(n_bins))
    half = steps // 2
    return np.array(
        [float(i * step) if i < half else float(1 - (steps - 1 - i) * step) for i in range(steps)]
    )


def torchmetrics_ece(
    h: ScoreHistogram, *, n_bins: int, norm: str, debiased: str, bins: str = "width", **_options: object
) -> float:
    """The torchmetrics ``binary_calibration_error(preds, target, n_bins, norm)`` on float64 tensors
    (``functional/classification/calibration_error.py`` 1.9: ``_binning_bucketize``,
    ``_ce_compute``): its scores are the sigmoid of the scores when one lies outside [0, 1], its bins
    ``torch.bucketize(s, linspace(0, 1, n_bins + 1), right=True) - 1``, so that a score of exactly
    1.0 has an extra bin of its own (torchmetrics#3510); ``debiased=yes`` is its ``debias=True``.
    """
    s, pos, neg = h.scores, h.pos, h.neg
    if h.n == 0:
        return NAN
    if len(s) and (s[0] < 0 or s[-1] > 1):
        s = 1.0 / (1.0 + np.exp(-s))
    B = int(n_bins)
    idx = np.searchsorted(torch_linspace_edges(B), s, side="right") - 1
    wt = pos + neg
    W = np.bincount(idx, weights=wt, minlength=B + 1)[None, :]
    P = np.bincount(idx, weights=pos, minlength=B + 1)[None, :]
    S = np.bincount(idx, weights=s * wt, minlength=B + 1)[None, :]
    return float(_ece_of_bins(W, P, S, norm=norm, debiased=debiased)[0])


def torchmetrics_mce(h: ScoreHistogram, *, n_bins: int, bins: str = "width", **_options: object) -> float:
    return torchmetrics_ece(h, n_bins=n_bins, norm="max", debiased="no")


def torchmetrics_rules(conf: np.ndarray, n_bins: int) -> list[str]:
    """The rules of torchmetrics' ``binary_calibration_error`` that touched these scores (one a case;
    those outside [0, 1] read through the sigmoid first, said by ``explain``'s own rule), for
    ``explain``: the scores of exactly 1.0 in the extra bin, the cases its linspace edges bin
    elsewhere than perfeval's ``i / n_bins``.
    """
    c = np.asarray(conf, dtype=np.float64)
    if len(c) and (c.min() < 0 or c.max() > 1):
        c = 1.0 / (1.0 + np.exp(-c))
    B = int(n_bins)
    out = []
    ones = int(np.count_nonzero(c == 1.0))
    if ones:
        out.append(
            "a score of exactly 1.0 falls in an extra bin of its own (torch.bucketize right=True on "
            "linspace(0, 1, n_bins + 1); torchmetrics#3510); perfeval's last bin is closed "
            f"[{ones} cases scored 1.0]"
        )
    rest = c[c < 1.0]
    ours = np.minimum(np.searchsorted(np.arange(1, B, dtype=np.float64) / B, rest, side="right"), B - 1)
    theirs = np.searchsorted(torch_linspace_edges(B), rest, side="right") - 1
    moved = int(np.count_nonzero(ours != theirs))
    if moved:
        out.append(
            "bin edges torch.linspace(0, 1, n_bins + 1), an ulp off i/n_bins at some edges (a score "
            f"of 0.3 with 10 bins falls in the bin below) [{moved} cases in another bin than perfeval's]"
        )
    return out


def torchmetrics_reasons(h: ScoreHistogram, measure: str, params: dict, options: dict) -> list[str]:
    """The ``reasons`` of the torchmetrics dialect's ECE and MCE for ``explain`` (one line a rule that
    touched these data, with what it touched): :func:`torchmetrics_rules` over the summary's cases.
    """
    B = int(params.get("n_bins", 15))
    wt = h.pos + h.neg
    counts = np.round(wt).astype(np.int64) if h.is_counts() else np.ones(len(wt), dtype=np.int64)
    return torchmetrics_rules(np.repeat(h.scores, counts), B)


def torch_linspace_edges32(n_bins: int) -> np.ndarray:
    """``torch.linspace(0, 1, n_bins + 1, dtype=torch.float32)``: the float64 kernel's rule
    (:func:`torch_linspace_edges`) in float32, the step ``float32(1) / float32(n_bins)``, each value
    rounded once from its exact value (checked against torch for n_bins 1 to 199).
    """
    from fractions import Fraction

    steps = int(n_bins) + 1
    step = Fraction(float(np.float32(1.0) / np.float32(int(n_bins))))
    half = steps // 2
    exact = [i * step if i < half else 1 - (steps - 1 - i) * step for i in range(steps)]
    # each exact value fits a float64 (a float32 step times a small integer): one rounding to float32
    return np.array([float(v) for v in exact], dtype=np.float64).astype(np.float32)


def torchmetrics_ece_top(y: np.ndarray, s: np.ndarray, *, n_bins: int, norm: str) -> tuple[float, str]:
    """ECE_TOP as torchmetrics' ``multiclass_calibration_error(preds, target, num_classes, n_bins,
    norm)`` computes it (``functional/classification/calibration_error.py`` 1.9) of checked rows
    (class codes ``y``, the (n, K) score matrix ``s``, float64), as (value, why it is NaN or ""):
    its rules are
    ``normalize_logits_if_needed(preds, "softmax")`` (a softmax of every row when any score lies
    outside [0, 1]), ``preds.max(dim=1)`` (each row's maximum and the first class at it: a tied row
    right or wrong whole), ``confidences.float()`` (float32), the bins ``torch.bucketize(conf,
    linspace(0, 1, n_bins + 1, float32), right=True) - 1`` (a confidence of 1.0 in an extra bin of
    its own, torchmetrics#3510) and ``_ce_compute``'s float32 arithmetic, made here in numpy float32
    (the sums in another order than torch's: within about 1e-6 of its value).
    """
    n = len(y)
    if n == 0:
        return NAN, "no case (torchmetrics divides by a total count of 0)"
    p = np.asarray(s, dtype=np.float64)
    if not bool(np.all((p >= 0.0) & (p <= 1.0))):
        e = np.exp(p - p.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
    conf = p.max(axis=1).astype(np.float32)
    acc = (np.argmax(p, axis=1) == y).astype(np.float32)
    B = int(n_bins)
    idx = np.searchsorted(torch_linspace_edges32(B), conf, side="right") - 1
    count, conf_bin, acc_bin = (np.zeros(B + 1, dtype=np.float32) for _ in range(3))
    np.add.at(count, idx, np.float32(1.0))  # scatter_add_, one element after another
    np.add.at(conf_bin, idx, conf)
    np.add.at(acc_bin, idx, acc)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf_bin = np.nan_to_num(conf_bin / count)
        acc_bin = np.nan_to_num(acc_bin / count)
    prop = count / count.sum(dtype=np.float32)
    gap = np.abs(acc_bin - conf_bin)
    if norm == "l1":
        return float(np.sum(gap * prop, dtype=np.float32)), ""
    if norm == "max":
        return float(np.max(gap)), ""
    ce = np.sum((acc_bin - conf_bin) ** 2 * prop, dtype=np.float32)
    return (float(np.sqrt(ce)) if ce > 0 else 0.0), ""


# -- netcal's ECE and MCE (the netcal dialect's finishers) ---------------------------------------------
#: netcal clips every confidence to [eps, 1 - eps] (np.finfo(float64).eps) before it bins them
NETCAL_EPS = float(np.finfo(np.float64).eps)


def _netcal_bins(conf: np.ndarray, wt: np.ndarray, hit: np.ndarray, n_bins: int, norm: str) -> float:
    """The binning of netcal 1.4's ``Miscalibration``: confidences ``conf`` (clipped already), with
    ``wt`` cases each and ``hit`` of them right: bins ``np.histogramdd`` over ``np.linspace(0, 1,
    n_bins + 1)`` (a bin [e_i, e_i+1), the last closed), each bin's mean accuracy and confidence,
    ECE the bins' gaps weighted by their share of the cases, MCE the largest gap of a non-empty bin.
    """
    B = int(n_bins)
    edges = np.linspace(0.0, 1.0, B + 1)
    idx = np.clip(np.searchsorted(edges, conf, side="right") - 1, 0, B - 1)
    W = np.bincount(idx, weights=wt, minlength=B)[None, :]
    P = np.bincount(idx, weights=hit, minlength=B)[None, :]
    S = np.bincount(idx, weights=conf * wt, minlength=B)[None, :]
    return float(_ece_of_bins(W, P, S, norm=norm, debiased="no")[0])


def netcal_ece(h: ScoreHistogram, *, n_bins: int, norm: str = "l1", **_options: object) -> float:
    """The ``ECE(bins=n_bins).measure(s, y)`` of netcal (``netcal/metrics/Miscalibration.py`` 1.4) of a
    binary summary: the scores clipped to [eps, 1 - eps] (``_prepare_input``: a score of 0 or 1, and
    one outside [0, 1], is read as eps or 1 - eps), binned against ``np.linspace(0, 1, n_bins + 1)``
    (an ulp off ``i / n_bins`` at some edges), the fraction of positives against the mean score in
    each bin; ``norm="max"``: its ``MCE``.  No case: NaN (netcal asserts "No samples provided").
    """
    if h.n == 0:
        return NAN
    s, pos, neg = h.scores, h.pos, h.neg
    conf = np.clip(s, NETCAL_EPS, 1.0 - NETCAL_EPS)
    return _netcal_bins(conf, pos + neg, pos, n_bins, norm)


def netcal_mce(h: ScoreHistogram, *, n_bins: int, **_options: object) -> float:
    return netcal_ece(h, n_bins=n_bins, norm="max")


def _moved_rows(conf: np.ndarray, n_bins: int) -> np.ndarray:
    """Which confidences (in [0, 1]) netcal bins elsewhere than perfeval: np.linspace's edges against
    perfeval's ``i / n_bins`` (the clipping to [eps, 1 - eps] moves no score to another bin).
    """
    B = int(n_bins)
    ours = np.minimum(np.searchsorted(np.arange(1, B, dtype=np.float64) / B, conf, side="right"), B - 1)
    clipped = np.clip(conf, NETCAL_EPS, 1.0 - NETCAL_EPS)
    theirs = np.clip(np.searchsorted(np.linspace(0.0, 1.0, B + 1), clipped, side="right") - 1, 0, B - 1)
    return ours != theirs


def netcal_rules(conf: np.ndarray, n_bins: int) -> list[str]:
    """The rules of netcal that touched these confidences (one a case, in [0, 1] or not), for ``explain``:
    the cases binned elsewhere (np.linspace's edges), the scores it clips.
    """
    out = []
    inside = (conf >= 0.0) & (conf <= 1.0)
    moved = int(np.count_nonzero(_moved_rows(conf[inside], n_bins)))
    if moved:
        out.append(
            "netcal bins on np.linspace(0, 1, n_bins + 1), an ulp off i/n_bins at some edges "
            f"(netcal/metrics/Miscalibration.py:379) [{moved} cases in the bin below perfeval's]"
        )
    edge = int(np.count_nonzero((conf == 0.0) | (conf == 1.0)))
    if edge:
        out.append(
            "netcal clips the scores to [eps, 1 - eps] (Miscalibration.py:444-445): a score of 0 or 1 "
            f"moves by 2.2e-16 [{edge} cases scored 0 or 1]"
        )
    outside = int(np.count_nonzero(~inside))
    if outside:
        out.append(
            "netcal clips the scores to [eps, 1 - eps] (Miscalibration.py:444-445): a score outside "
            f"[0, 1] is read as eps or 1 - eps; perfeval's calibration errors are undefined there [{outside} "
            "cases outside [0, 1]]"
        )
    return out


def netcal_reasons(h: ScoreHistogram, measure: str, params: dict, options: dict) -> list[str]:
    """The ``reasons`` of the netcal dialect's ECE and MCE for ``explain`` (one line a rule that
    touched these data): :func:`netcal_rules` over the summary's cases.
    """
    B = int(params.get("n_bins", 15))
    wt = h.pos + h.neg
    counts = np.round(wt).astype(np.int64) if h.is_counts() else np.ones(len(wt), dtype=np.int64)
    return netcal_rules(np.repeat(h.scores, counts), B)


def netcal_ece_top(y: np.ndarray, s: np.ndarray, *, n_bins: int, norm: str = "l1") -> tuple[float, str]:
    """ECE_TOP as netcal's ``ECE(bins=n_bins).measure(S, y)`` computes it of an (n, K) score matrix
    and class codes (``_prepare_input``), as (value, why it is NaN or ""): every score clipped to
    [eps, 1 - eps]; targets of two labels or fewer read as a binary problem, so that two columns are
    the binary calibration error of the second column's score (not the top label) and more than two
    columns raise (RuntimeError); otherwise each row's maximum, right when ``np.argmax`` (the first
    class of a tied row) is its class, binned as :func:`netcal_ece`.
    """
    if len(y) == 0:
        return NAN, "no case (netcal asserts 'No samples provided')"
    p = np.clip(np.asarray(s, dtype=np.float64), NETCAL_EPS, 1.0 - NETCAL_EPS)
    y = np.asarray(y)
    ones = np.ones(len(y))
    if len(np.unique(y)) <= 2:  # netcal: "binary classification" whatever the number of columns
        if p.shape[1] > 2:
            return NAN, (
                f"the targets hold {len(np.unique(y))} of the {p.shape[1]} classes, which netcal reads as a "
                "binary problem and refuses with more than 2 score columns (RuntimeError)"
            )
        # y itself is the accuracy (netcal's `matched = y`): class codes 0/1 of the two columns
        return _netcal_bins(p[:, -1], ones, (y == p.shape[1] - 1).astype(np.float64), n_bins, norm), ""
    if p.shape[1] == 2:  # (unreachable: two columns hold two classes at most)
        return _netcal_bins(p[:, 1], ones, (y == 1).astype(np.float64), n_bins, norm), ""
    hit = (np.argmax(p, axis=1) == y).astype(np.float64)
    return _netcal_bins(p.max(axis=1), ones, hit, n_bins, norm), ""


# -- K classes -------------------------------------------------------------------------------------------
def ece_classwise(cs: Any, *, bins: str, n_bins: int, norm: str) -> Any:
    """Class-wise ECE (Kull et al. 2019): each class's column against the rest (its one-vs-rest
    summary: every case, positive when of that class) scored by the binary ECE with the same bins,
    the value the mean over the classes.  NaN, and why, when a score is outside [0, 1].
    """
    from perfeval.measures.multiclass import Finished

    if cs.total <= 0:
        return Finished(NAN)
    live = cs.scores[cs.weights > 0]
    if len(live) and (live.min() < 0.0 or live.max() > 1.0):
        bad = float(live.min()) if live.min() < 0.0 else float(live.max())
        why = (
            f"ECE_CW reads probabilities, but y_score holds {bad:.10g}, outside [0, 1]: pass "
            "predict_proba's rows"
        )
        return Finished(NAN, None, why)
    # each column is calibrated on its own: rows that do not sum to 1 change nothing here
    per = np.array(
        [ece(cs.one_vs_rest(j), bins=bins, n_bins=n_bins, norm=norm, debiased="no") for j in range(cs.k)]
    )
    return Finished(float(per.mean()), per)


def ece_toplabel(cs: Any, *, bins: str, n_bins: int, norm: str, debiased: str) -> Any:
    """Top-label ECE (Guo et al. 2017; torchmetrics' multiclass_calibration_error): each row's
    maximum probability against whether its argmax is the true class (a tie at the maximum among t
    classes: right for 1/t of the case when the true class is among them), binned and combined as
    the binary ECE (:func:`ece`: the same bins, norms and debiased form), from the summary's
    top-label table.  NaN, and why, when a score is outside [0, 1] or the summary has no such table.
    """
    from perfeval.measures.multiclass import Finished

    if _no_debiased(norm, debiased):
        return Finished(NAN, None, f"ECE_TOP:norm={norm},debiased=yes has no value: {NO_DEBIASED}")
    h = cs.top_label()
    if h is None:
        return Finished(
            NAN,
            None,
            "ECE_TOP reads the summary's top-label table, which this summary (saved "
            "before it existed) does not have",
        )
    if h.n == 0:
        return Finished(NAN)
    sc = h.scores
    if sc[0] < 0.0 or sc[-1] > 1.0:
        bad = float(sc[0]) if sc[0] < 0.0 else float(sc[-1])
        why = (
            f"ECE_TOP reads probabilities, but a row's maximum score is {bad:.10g}, outside [0, 1]: pass "
            "predict_proba's rows"
        )
        return Finished(NAN, None, why)
    wt = cs.top[2]
    if debiased == "yes" and not bool(np.all(wt == np.round(wt))):
        raise InvalidParameterError(
            "ECE_TOP with debiased=yes needs whole-number weights (counts of cases: a bin's n - 1)"
        )
    W, P, S = bin_sums(sc, h.pos, h.neg, np.array([0, len(sc)]), bins=bins, n_bins=n_bins)
    return Finished(float(_ece_of_bins(W, P, S, norm=norm, debiased=debiased)[0]))


def _dense_rank(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct values of ``a`` ascending, each element's index among them): np.unique's
    ``return_inverse`` by one unstable sort and a scatter (several times faster on 10**6 values).
    """
    order = np.argsort(a)
    sa = a[order]
    new = np.empty(len(a), dtype=bool)
    new[:1] = True
    np.not_equal(sa[1:], sa[:-1], out=new[1:])
    rank = np.empty(len(a), dtype=np.int64)
    rank[order] = np.cumsum(new, dtype=np.int64) - 1
    return sa[new], rank


def ece_toplabel_groups(
    y: np.ndarray,
    s: np.ndarray,
    codes: np.ndarray,
    w: np.ndarray | None,
    q: int,
    *,
    bins: str,
    n_bins: int,
    norm: str,
    debiased: str,
) -> np.ndarray | None:
    """Every group's ECE_TOP at once (checked rows of K classes: class codes ``y``, the (n, K) score
    matrix ``s``, each row's group code 0 .. q - 1, weights or None), each group's value the bits of
    :func:`ece_toplabel` of that group's ClassSummary alone: its top-label table made with the same
    arithmetic (each row's maximum and tie size; the cells (group, maximum, tie size) ascending, each
    cell's weights added in row order from 0.0, as :func:`perfeval.summaries.classes.top_table` adds
    a group's), read as
    :meth:`~perfeval.summaries.classes.ClassSummary.top_label` reads it (each distinct maximum's
    cells in ascending tie size), then binned by :func:`bin_sums` over every group at once and
    combined by :func:`_ece_of_bins` row by row.  None (declined: each group from its own summary)
    beyond GROUP_BIN_CELLS (group, bin) cells.
    """
    if _no_debiased(norm, debiased):
        return np.full(q, NAN)
    if q * int(n_bins) > GROUP_BIN_CELLS:
        return None
    if w is not None and not w.all():  # a case of weight 0 is no case (ClassSummary.from_checked)
        keep = w > 0
        y, s, codes, w = y[keep], s[keep], codes[keep], w[keep]
    n = len(y)
    if not n:
        return np.full(q, NAN)
    k = s.shape[1]
    top = s[:, 0].copy()  # each row's maximum (exact: the max of s.max(axis=1), column by column)
    for j in range(1, k):
        np.maximum(top, s[:, j], out=top)
    top += 0.0  # -0.0 as 0.0
    t = np.zeros(n, dtype=np.int64)
    for j in range(k):
        t += s[:, j] == top
    tw = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    right = np.where(s[np.arange(n), y] == top, tw, 0.0)
    codes = np.asarray(codes, dtype=np.int64)
    # each row's cell (group, maximum, tie size), the cells in that order; np.bincount adds a cell's
    # weights in row order from 0.0, as a group's stable sort of its rows does (so the sorts that
    # find the cells need not be stable)
    values, rank = _dense_rank(top)
    u = len(values)
    if q * u * (k + 1) < TOP_KEY_LIMIT:
        cells, run = _dense_rank((codes * u + rank) * (k + 1) + t)
        cell_t = cells % (k + 1)
        cell_g = cells // (k + 1) // u
        cell_sc = values[(cells // (k + 1)) % u]
    else:  # a key beyond 62 bits: a stable sort of the rows
        order = np.lexsort((t, top, codes))
        new = np.empty(n, dtype=bool)
        new[0] = True
        cg, sc, ts = codes[order], top[order], t[order]
        new[1:] = (cg[1:] != cg[:-1]) | (sc[1:] != sc[:-1]) | (ts[1:] != ts[:-1])
        run = np.empty(n, dtype=np.intp)
        run[order] = np.cumsum(new, dtype=np.intp) - 1
        cell_g, cell_sc, cell_t = cg[new], sc[new], ts[new]
    m = len(cell_g)
    cell_w = np.bincount(run, weights=tw, minlength=m)
    cell_hit = np.bincount(run, weights=right, minlength=m)
    outside = (cell_sc < 0.0) | (cell_sc > 1.0)
    bad = np.bincount(cell_g, weights=outside.astype(np.float64), minlength=q) > 0
    # a group whose maximum lies outside [0, 1] is NaN before its weights are looked at, as alone
    if debiased == "yes" and not bool(np.all((cell_w == np.round(cell_w)) | bad[cell_g])):
        raise InvalidParameterError(
            "ECE_TOP with debiased=yes needs whole-number weights (counts of cases: a bin's n - 1)"
        )
    # each group's distinct maxima, its cells (ascending tie size) added in that order from 0.0
    first = np.empty(m, dtype=bool)
    first[0] = True
    first[1:] = (cell_g[1:] != cell_g[:-1]) | (cell_sc[1:] != cell_sc[:-1])
    run2 = np.cumsum(first, dtype=np.intp) - 1
    m2 = int(run2[-1]) + 1
    pos = np.bincount(run2, weights=cell_hit / cell_t, minlength=m2)
    neg = np.bincount(run2, weights=cell_w, minlength=m2) - pos
    hsc, hg = cell_sc[first], cell_g[first]
    bounds = np.searchsorted(hg, np.arange(q + 1))
    W, P, S = bin_sums(hsc, pos, neg, bounds, bins=bins, n_bins=n_bins)
    out = _ece_of_bins(W, P, S, norm=norm, debiased=debiased)
    return np.where(bad, NAN, out)


# -- the reliability diagram's consistency band (Broecker & Smith 2007) ------------------------------------
#: a bin of more cases than this gets the normal approximation's band (its share of positives under
#: calibration is a sum of that many independent draws); a bin of fewer, resampling
BAND_EXACT = 2000


#: the band's two ways of drawing a calibrated model's data (the legend names them)
BAND_METHODS = {
    "outcomes": "outcomes redrawn",
    "pairs": "forecasts and outcomes redrawn",
}


def consistency_band(
    scores: np.ndarray,
    counts: np.ndarray,
    masks: list[np.ndarray],
    *,
    level: float = 0.9,
    n_resamples: int = 1000,
    seed: int = 0,
    resample: str = "outcomes",
) -> tuple[np.ndarray, np.ndarray]:
    """Where a calibrated model's reliability curve falls: Broecker & Smith's (2007) consistency
    resampling, the central ``level`` of each bin's share of positives over ``n_resamples`` seeded
    draws (its (1 - level) / 2 and (1 + level) / 2 quantiles; the same band each run).  ``masks``
    select the bins' cells: distinct ``scores`` in [0, 1] with whole ``counts`` of cases.

    ``resample="outcomes"`` (the default): the forecasts held fixed, every case's outcome drawn
    positive with its score's probability; a bin of more than BAND_EXACT cases gets the normal
    approximation of that share (mean sum n s / N, variance sum n s (1 - s) / N^2), clipped to
    [0, 1].  The band is then exact given the forecasts the diagram shows.

    ``resample="pairs"``: Broecker & Smith's published form (as SpecsVerification's
    ``ReliabilityDiagram``): N forecasts drawn with replacement from the N cases, then each one's
    outcome from it.  A bin then receives m ~ Binomial(N, N_b / N) draws, each a case of the bin
    drawn uniformly, so positive with the bin's mean score: its positives are Binomial(m, mean
    score), drawn so exactly (no approximation at any size); a draw that leaves the bin empty has no
    share and is left out of its quantiles (as SpecsVerification's ``na.rm``).  The band is wider:
    it adds the variation of the bin's forecasts to that of its outcomes.
    """
    from statistics import NormalDist

    if resample not in BAND_METHODS:
        raise InvalidParameterError(
            f"the consistency band resamples {' or '.join(map(repr, BAND_METHODS))}, got {resample!r}"
        )
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(
            f"the consistency band's level must lie strictly between 0 and 1, got {level}"
        )
    rng = np.random.default_rng(seed)
    z = NormalDist().inv_cdf((1 + level) / 2)
    q = [(1 - level) / 2, (1 + level) / 2]
    total = int(np.asarray(counts).sum())
    lo, hi = [], []
    for m in masks:
        s, n = scores[m], counts[m].astype(np.int64)
        N = float(n.sum())
        if N <= 0:
            continue
        if resample == "pairs":
            mean = min(max(float((n * s).sum()) / N, 0.0), 1.0)
            drawn = rng.binomial(total, N / total, size=n_resamples)
            pos = rng.binomial(drawn, mean)
            live = drawn > 0
            a, b = np.quantile(pos[live] / drawn[live], q) if live.any() else (NAN, NAN)
        elif N <= BAND_EXACT:
            share = rng.binomial(n[None, :], s[None, :], size=(n_resamples, len(s))).sum(axis=1) / N
            a, b = np.quantile(share, q)
        else:
            mean = float((n * s).sum()) / N
            sd = math.sqrt(float((n * s * (1 - s)).sum())) / N
            a, b = max(mean - z * sd, 0.0), min(mean + z * sd, 1.0)
        lo.append(float(a))
        hi.append(float(b))
    return np.array(lo), np.array(hi)
