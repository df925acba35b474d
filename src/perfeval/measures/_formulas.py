"""The threshold measures as formulas of the confusion counts, defined once.

Each takes (TP, FN, FP, TN), as floats or as arrays (one value per group), and returns the same
kind; 0/0 is NaN.  ``threshold.py`` applies them to one summary's counts and to every group's.
"""

from __future__ import annotations

import numpy as np


def div(a, b):
    """A / b with NaN where b == 0, for floats and arrays alike."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(b != 0, a / np.where(b != 0, b, 1.0), np.nan)
    return out if out.ndim else float(out)


def acc(tp, fn, fp, tn):
    return div(tp + tn, tp + fn + fp + tn)


def selrate(tp, fn, fp, tn):
    return div(tp + fp, tp + fn + fp + tn)


def err(tp, fn, fp, tn):
    return div(fn + fp, tp + fn + fp + tn)


def ppv(tp, fn, fp, tn):
    return div(tp, tp + fp)


def npv(tp, fn, fp, tn):
    return div(tn, tn + fn)


def sen(tp, fn, fp, tn):
    return div(tp, tp + fn)


def spc(tp, fn, fp, tn):
    return div(tn, tn + fp)


def fpr(tp, fn, fp, tn):
    return div(fp, fp + tn)


def fnr(tp, fn, fp, tn):
    return div(fn, tp + fn)


def prf(tp, fn, fp, tn):
    """F1 in scikit-learn's count form 2TP / (2TP + FN + FP): 0 when TP = 0 and there is an error,
    NaN only when TP = FN = FP = 0 (no positive, none predicted).  FBETA at beta = 1 is the same
    formula, so the two agree bit for bit.
    """
    return fbeta(tp, fn, fp, tn, beta=1.0)


def lft(tp, fn, fp, tn):
    return div(div(tp, tp + fn), div(tp + fp, tp + fn + fp + tn))


def fbeta(tp, fn, fp, tn, *, beta: float):
    b2 = beta * beta
    return div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)


def cst(tp_n, fn_n, fp_n, tn_n, *, tp: float, fn: float, fp: float, tn: float):
    return tp * tp_n + fn * fn_n + fp * fp_n + tn * tn_n


#: the formulas that take only the counts (and a threshold, applied when counting)
SIMPLE = ("acc", "err", "ppv", "npv", "sen", "spc", "fpr", "fnr", "prf", "lft")
