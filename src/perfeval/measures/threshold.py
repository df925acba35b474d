"""Threshold measures: the counts TP, FN, FP, TN at a threshold, and every formula of them (ACC,
PPV, NPV, SEN, SPC, PRE, REC, PRF, LFT, ERR, FPR, FNR, FBETA, CST), over one summary and over every
group at once.  The formulas themselves are in ``_formulas`` (shared by both forms).
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.measures import _formulas as _f
from perfeval.measures._data import GroupedData
from perfeval.summaries import ScoreHistogram

NAN = math.nan
_div = _f.div


def _confusion(h: ScoreHistogram, threshold: float) -> tuple[float, float, float, float]:
    return h.counts_at(threshold)


def _threshold_measure(name: str):
    formula = getattr(_f, name)

    def measure(h: ScoreHistogram, *, threshold: float) -> float:
        return float(formula(*_confusion(h, threshold)))

    measure.__name__ = name
    measure.__doc__ = f"{name.upper()} at a threshold, from the counts (see measures/_formulas.py)."
    return measure


acc, err, ppv, npv, sen, spc, fpr, fnr, prf, lft = (_threshold_measure(n) for n in _f.SIMPLE)


pre, rec = ppv, sen


def fbeta(h: ScoreHistogram, *, beta: float, threshold: float) -> float:
    """(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)."""
    return float(_f.fbeta(*_confusion(h, threshold), beta=beta))


def cst(h: ScoreHistogram, *, threshold: float, tp: float, fn: float, fp: float, tn: float) -> float:
    return float(_f.cst(*_confusion(h, threshold), tp=tp, fn=fn, fp=fp, tn=tn))


# -- every group at once (GroupedData); None: declined, each group from its own summary --------


def _threshold_groups(name: str):
    formula = getattr(_f, name)

    def measure(gd: GroupedData, *, threshold: float) -> np.ndarray:
        return formula(*gd.counts(threshold))

    measure.__name__ = name + "_groups"
    return measure


(
    acc_groups,
    err_groups,
    ppv_groups,
    npv_groups,
    sen_groups,
    spc_groups,
    fpr_groups,
    fnr_groups,
    prf_groups,
    lft_groups,
) = (_threshold_groups(n) for n in _f.SIMPLE)


pre_groups, rec_groups = ppv_groups, sen_groups


def fbeta_groups(gd: GroupedData, *, beta: float, threshold: float) -> np.ndarray:
    return _f.fbeta(*gd.counts(threshold), beta=beta)


def cst_groups(
    gd: GroupedData, *, threshold: float, tp: float, fn: float, fp: float, tn: float
) -> np.ndarray:
    return _f.cst(*gd.counts(threshold), tp=tp, fn=fn, fp=fp, tn=tn)


def selrate(h: ScoreHistogram, *, threshold: float) -> float:
    """The selection rate: the share of the cases (their weight) predicted positive, (TP + FP) / n."""
    return float(_f.selrate(*_confusion(h, threshold)))


def selrate_groups(gd: GroupedData, *, threshold: float) -> np.ndarray:
    return _f.selrate(*gd.counts(threshold))
