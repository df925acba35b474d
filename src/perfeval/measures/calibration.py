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
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.measures._data import GroupedData, histograms
from perfeval.summaries import ScoreHistogram

NAN = math.nan

#: the per-group form declines (each group then from its own summary) beyond this many (group, bin)
#: cells, so that its tables stay small
GROUP_BIN_CELLS = 1 << 24


# -- the bins -----------------------------------------------------------------------------------------
def _unit(sc: np.ndarray, wt: np.ndarray) -> bool:
    """Every case's score (weight > 0) is a probability, in [0, 1]."""
    live = sc[wt > 0]
    return len(live) == 0 or (live.min() >= 0.0 and live.max() <= 1.0)


def bin_of_cells(sc: np.ndarray, wt: np.ndarray, *, bins: str, n_bins: int) -> np.ndarray:
    """The bin (0 .. n_bins - 1) of each cell of one summary: ``sc`` the distinct scores ascending,
    ``wt`` each cell's total weight (see the module's docstring for the two rules).
    """
    B = int(n_bins)
    if bins == "width":
        edges = np.arange(1, B, dtype=np.float64) / B
        return np.searchsorted(edges, sc, side="right")
    below = np.concatenate(([0.0], np.cumsum(wt)[:-1])) if len(wt) else np.zeros(0)
    total = float(wt.sum())
    # k * total <= B * below: exact for whole weights (sums of counts), compared, never divided
    return np.searchsorted(np.arange(1, B, dtype=np.float64) * total, below * B, side="right")


def bin_sums(
    sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray, *, bins: str, n_bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, P, S), each (G, n_bins): every group's weight, positive weight and weighted score sum in
    each bin, added cell by cell in score order (np.bincount: the same bits for one group alone).
    """
    B, G = int(n_bins), len(bounds) - 1
    wt = pos + neg
    sizes = np.diff(bounds)
    group = np.repeat(np.arange(G), sizes)
    if bins == "width":
        idx = bin_of_cells(sc, wt, bins=bins, n_bins=B)
    else:  # each group's own cumulative weight
        idx = np.empty(len(sc), dtype=np.intp)
        for g in range(G):
            a, b = int(bounds[g]), int(bounds[g + 1])
            idx[a:b] = bin_of_cells(sc[a:b], wt[a:b], bins=bins, n_bins=B)
    key = group * B + idx
    n = G * B
    W = np.bincount(key, weights=wt, minlength=n).reshape(G, B)
    P = np.bincount(key, weights=pos, minlength=n).reshape(G, B)
    S = np.bincount(key, weights=sc * wt, minlength=n).reshape(G, B)
    return W, P, S


def _ece_of_bins(W: np.ndarray, P: np.ndarray, S: np.ndarray, *, norm: str, debiased: str) -> np.ndarray:
    """Each row's (group's) calibration error from its bins' sums; the bins added in order."""
    G, B = W.shape
    n = np.zeros(G)
    for b in range(B):
        n = n + W[:, b]
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(W > 0, P / np.where(W > 0, W, 1.0) - S / np.where(W > 0, W, 1.0), 0.0)
        if norm == "max":
            out = np.max(np.where(W > 0, np.abs(gap), -np.inf), axis=1) if B else np.zeros(G)
            return np.where(n > 0, out, np.nan)
        if norm == "l1":
            term = W * np.abs(gap)
        else:
            term = W * gap * gap
            if debiased == "yes":  # Kumar, Liang & Ma (2019): minus each bin's variance of its mean
                ybar = np.where(W > 0, P / np.where(W > 0, W, 1.0), 0.0)
                term = term - np.where(W > 1, W * ybar * (1.0 - ybar) / np.where(W > 1, W - 1.0, 1.0), 0.0)
        acc = np.zeros(G)
        for b in range(B):
            acc = acc + term[:, b]
        v = acc / np.where(n > 0, n, 1.0)
        if norm == "l2":
            v = np.sqrt(np.maximum(v, 0.0))
        return np.where(n > 0, v, np.nan)


def _check_debiased(norm: str, debiased: str) -> None:
    if debiased == "yes" and norm != "l2":
        raise InvalidParameterError(
            f"ECE's debiased form is of the L2 norm (Kumar, Liang & Ma 2019): give norm=l2 with "
            f"debiased=yes, got norm={norm}"
        )


def ece(h: ScoreHistogram, *, bins: str, n_bins: int, norm: str, debiased: str) -> float:
    """The binned calibration error of one summary (see the module's docstring); NaN when a score
    is outside [0, 1] or there is no case.
    """
    _check_debiased(norm, debiased)
    if debiased == "yes" and not h.is_counts():
        raise InvalidParameterError(
            "ECE with debiased=yes needs whole-number weights (counts of cases: a bin's n - 1)"
        )
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
    _check_debiased(norm, debiased)
    if gd.weighted and debiased == "yes":
        return None
    sc, pos, neg, bounds = histograms(gd)
    G = len(bounds) - 1
    if G * int(n_bins) > GROUP_BIN_CELLS:
        return None
    W, P, S = bin_sums(sc, pos, neg, bounds, bins=bins, n_bins=n_bins)
    out = _ece_of_bins(W, P, S, norm=norm, debiased=debiased)
    live = (pos + neg) > 0
    group = np.repeat(np.arange(G), np.diff(bounds))
    outside = np.bincount(group, weights=(live & ((sc < 0.0) | (sc > 1.0))).astype(np.float64), minlength=G)
    return np.where(outside > 0, np.nan, out)


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
def _pav(ybar: np.ndarray, wt: np.ndarray) -> np.ndarray:
    """The weighted isotonic (non-decreasing) regression of the cells' shares of positives on their
    scores (pool adjacent violators; the cells are the distinct scores, so ties are pooled first).
    """
    from scipy.optimize import isotonic_regression

    return np.asarray(isotonic_regression(ybar, weights=wt, increasing=True).x, dtype=np.float64)


def brier_parts(h: ScoreHistogram, form: str) -> tuple[float, float, float]:
    """(MCB, DSC, UNC) of one summary: Murphy's reliability, resolution and uncertainty over the
    distinct scores (form "murphy"), or CORP's miscalibration, discrimination and uncertainty
    (form "corp"); BS = MCB - DSC + UNC.  NaN when there is no case or a score is outside [0, 1].
    """
    sc, pos, neg = h.scores, h.pos, h.neg
    wt = pos + neg
    live = wt > 0
    sc, pos, wt = sc[live], pos[live], wt[live]
    n = float(wt.sum())
    if n == 0:
        return NAN, NAN, NAN
    # MCB compares the scores with frequencies: probabilities only; DSC and UNC read only the order of
    # the scores (the PAV fit, the grouping by distinct score), so any scores have them
    if not _unit(sc, wt):
        ranks = np.arange(len(sc), dtype=np.float64) / max(len(sc) - 1, 1)  # the order, in [0, 1]
        return (NAN, *brier_parts(ScoreHistogram(ranks, pos, wt - pos), form)[1:])
    obar = float(pos.sum()) / n
    ybar = pos / wt
    unc = obar * (1.0 - obar)
    if form == "murphy":
        rel = float(np.sum(wt * (sc - ybar) ** 2)) / n
        res = float(np.sum(wt * (ybar - obar) ** 2)) / n
        return rel, res, unc
    c = _pav(ybar, wt)
    recal = wt * (c - ybar) ** 2
    mcb = float(np.sum(wt * (sc - ybar) ** 2 - recal)) / n
    dsc = float(np.sum(wt * (obar - ybar) ** 2 - recal)) / n
    return mcb, dsc, unc


def brier_mcb(h: ScoreHistogram, *, form: str) -> float:
    return brier_parts(h, form)[0]


def brier_dsc(h: ScoreHistogram, *, form: str) -> float:
    return brier_parts(h, form)[1]


def brier_unc(h: ScoreHistogram) -> float:
    """The share of positives o times 1 - o: of the targets alone (any scores; NaN with no case)."""
    n = h.n
    if n == 0:
        return NAN
    o = h.n_pos / n
    return float(o * (1.0 - o))


# -- logistic recalibration ------------------------------------------------------------------------
#: Newton's iterations before a fit is called unconverged (NaN)
MAX_ITER = 100


def _cells_for_fit(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(logit of each live cell's score, its positive weight, its weight), or None when no fit
    exists: no case, a score outside (0, 1) (0 and 1 have no logit), or one class only.
    """
    sc, pos, neg = h.scores, h.pos, h.neg
    wt = pos + neg
    live = wt > 0
    sc, pos, wt = sc[live], pos[live], wt[live]
    if len(sc) == 0 or sc[0] <= 0.0 or sc[-1] >= 1.0:
        return None
    if pos.sum() == 0 or pos.sum() == wt.sum():
        return None
    return np.log(sc) - np.log1p(-sc), pos, wt


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.where(z >= 0, 1.0 / (1.0 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1.0 + np.exp(-np.abs(z))))


def fit_offset(x: np.ndarray, pos: np.ndarray, wt: np.ndarray) -> float:
    """Calibration-in-the-large: the a of logit P(y = 1) = a + x (the slope fixed at 1, x an offset)."""
    o = float(pos.sum() / wt.sum())
    a = math.log(o) - math.log1p(-o) - float(np.sum(wt * x) / wt.sum())  # a start near the root
    for _ in range(MAX_ITER):
        mu = _sigmoid(a + x)
        grad = float(np.sum(pos - wt * mu))
        hess = float(np.sum(wt * mu * (1.0 - mu)))
        if not hess > 0:
            return NAN
        step = grad / hess
        a += step
        if abs(step) <= 1e-15 * (1.0 + abs(a)):
            return a
    return NAN


def _loglik(z: np.ndarray, pos: np.ndarray, wt: np.ndarray) -> float:
    """The binomial log-likelihood of the cells at linear predictors z."""
    return float(-np.sum(pos * np.logaddexp(0.0, -z) + (wt - pos) * np.logaddexp(0.0, z)))


def fit_joint(x: np.ndarray, pos: np.ndarray, wt: np.ndarray) -> tuple[float, float]:
    """(a, b) of logit P(y = 1) = a + b x by Newton's method (IRLS) from the null fit (a = logit of
    the share of positives, b = 0), a step halved while it lowers the likelihood; NaNs when the
    maximum likelihood does not exist (the scores separate the classes, or are all equal).
    """
    neg_x, pos_x = x[(wt - pos) > 0], x[pos > 0]
    if len(x) < 2 or neg_x.max() <= pos_x.min() or pos_x.max() <= neg_x.min():
        return NAN, NAN
    o = float(pos.sum() / wt.sum())
    a, b = math.log(o) - math.log1p(-o), 0.0
    ll = _loglik(a + b * x, pos, wt)
    for _ in range(MAX_ITER):
        mu = _sigmoid(a + b * x)
        r = pos - wt * mu
        v = wt * mu * (1.0 - mu)
        g0, g1 = float(np.sum(r)), float(np.sum(r * x))
        h00, h01, h11 = float(np.sum(v)), float(np.sum(v * x)), float(np.sum(v * x * x))
        det = h00 * h11 - h01 * h01
        if not det > 0:
            return NAN, NAN
        da, db = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        for _half in range(60):  # the likelihood is concave: a short enough step never lowers it
            new = _loglik((a + da) + (b + db) * x, pos, wt)
            if new >= ll or abs(da) + abs(db) <= 1e-15 * (1.0 + abs(a) + abs(b)):
                break
            da, db = da / 2, db / 2
        a, b, ll = a + da, b + db, max(ll, new)
        if abs(da) <= 1e-15 * (1.0 + abs(a)) and abs(db) <= 1e-15 * (1.0 + abs(b)):
            return a, b
    # steps stuck at a few ulps: converged when one more step changes nothing measurable
    return (a, b) if abs(da) <= 1e-12 * (1.0 + abs(a)) and abs(db) <= 1e-12 * (1.0 + abs(b)) else (NAN, NAN)


def cal_slope(h: ScoreHistogram) -> float:
    """The slope b of logit P(y = 1) = a + b logit(score) (1: calibrated; below 1: overconfident)."""
    cells = _cells_for_fit(h)
    return NAN if cells is None else float(fit_joint(*cells)[1])


def cal_intercept(h: ScoreHistogram, *, fit: str) -> float:
    """The intercept: ``fit="offset"`` calibration-in-the-large (slope fixed at 1), ``"joint"`` the
    intercept of the fit with the slope.
    """
    cells = _cells_for_fit(h)
    if cells is None:
        return NAN
    return float(fit_offset(*cells)) if fit == "offset" else float(fit_joint(*cells)[0])


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
