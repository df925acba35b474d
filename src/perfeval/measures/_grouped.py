"""Binary measures for every group at once: one ``np.bincount`` per sum instead of a loop over groups.

Each function returns one value per group and matches the scalar function of the same name in
``_compute`` group for group (tests/test_evaluate.py checks it); measures without an entry here are
computed group by group.
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.measures import _formulas as _f


class GroupedData:
    """Rows with their group code; ``w`` is the weight of each row (1 when unweighted)."""

    def __init__(self, codes: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, n_groups: int):
        self.codes, self.y, self.s, self.G = codes, y.astype(np.float64, copy=False), s, n_groups
        self.w = np.ones(len(s)) if w is None else w
        self.weighted = w is not None
        self._ranking = None

    def sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes, weights=values, minlength=self.G)

    def counts(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        pred = self.s >= threshold
        wp, wn = self.w * self.y, self.w * (1.0 - self.y)
        tp, fp = self.sum(wp * pred), self.sum(wn * pred)
        P, N = self.sum(wp), self.sum(wn)
        return tp, P - tp, fp, N - fp


_div = _f.div


def _threshold_measure(name: str):
    formula = getattr(_f, name)

    def measure(gd: GroupedData, *, threshold: float) -> np.ndarray:
        return formula(*gd.counts(threshold))

    measure.__name__ = name
    return measure


acc, err, ppv, npv, sen, spc, fpr, fnr, prf, lft = (_threshold_measure(n) for n in _f.SIMPLE)
pre, rec = ppv, sen


def fbeta(gd: GroupedData, *, beta: float, threshold: float) -> np.ndarray:
    if beta < 0:
        raise InvalidParameterError(f"F-beta needs beta >= 0, got {beta}")
    return _f.fbeta(*gd.counts(threshold), beta=beta)


def cst(gd: GroupedData, *, threshold: float, tp: float, fn: float, fp: float, tn: float) -> np.ndarray:
    return _f.cst(*gd.counts(threshold), tp=tp, fn=fn, fp=fp, tn=tn)


def _n(gd: GroupedData) -> np.ndarray:
    return gd.sum(gd.w)


def rms(gd: GroupedData) -> np.ndarray:
    n = _n(gd)
    sq = gd.sum(gd.w * (gd.y - gd.s) ** 2)
    with np.errstate(invalid="ignore"):
        return np.sqrt(_div(sq, n))


def brier(gd: GroupedData) -> np.ndarray:
    return _div(gd.sum(gd.w * (gd.y - gd.s) ** 2), _n(gd))


def nrm(gd: GroupedData, *, p: float) -> np.ndarray:
    n = _n(gd)
    if p == 0:
        return np.where(n > 0, 1.0, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _div(gd.sum(gd.w * np.abs(gd.y - gd.s) ** p), n) ** (1.0 / p)


def cxe(gd: GroupedData) -> np.ndarray:
    """Bits; NaN for a group holding a score outside [0, 1]."""
    outside = gd.sum(((gd.s < 0) | (gd.s > 1)).astype(np.float64)) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(gd.y > 0, -np.log2(np.clip(gd.s, 0, 1)) * gd.w * gd.y, 0.0)
        ln = np.where(gd.y < 1, -np.log2(1.0 - np.clip(gd.s, 0, 1)) * gd.w * (1 - gd.y), 0.0)
    v = _div(gd.sum(lp) + gd.sum(ln), _n(gd))
    return np.where(outside, np.nan, v)


def logloss(gd: GroupedData) -> np.ndarray:
    v = cxe(gd)
    return v * math.log(2.0)


def roc(gd: GroupedData) -> np.ndarray | None:
    """Per-group ROC area (half credit for ties) through the ranking kernel; None with weights."""
    if gd.weighted:
        return None
    from perfeval.measures._ranking import group_auc
    from perfeval.summaries.ranking import RankingData

    rd = RankingData(gd.y, gd.s, gd.codes)
    auc, _ = group_auc(rd)
    out = np.full(gd.G, np.nan)
    out[rd.keys] = auc
    return out


def sar(gd: GroupedData, *, threshold: float, w_acc: float, w_roc: float, w_rms: float) -> np.ndarray | None:
    r = roc(gd)
    if r is None:
        return None
    wsum = w_acc + w_roc + w_rms
    return _div(w_acc * acc(gd, threshold=threshold) + w_roc * r + w_rms * (1 - rms(gd)), np.full(gd.G, wsum))
