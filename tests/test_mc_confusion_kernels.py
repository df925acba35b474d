"""perfeval's multiclass P/R/F, MCC and kappa are finished by measures/confusion.py's kernels (one
formula for perfeval's measures and scikit-learn's names, issue 32): the same bits as those kernels on
the summary's confusion matrix, and the same bits as the formulas multiclass.py held before wherever the
counts are whole numbers (within 1e-12 with shared ties and weights)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfeval.measures import confusion as K
from perfeval.measures import multiclass as mc
from perfeval.summaries.classes import ClassSummary


def _old_prf(c, which, average, beta=1.0):
    """multiclass.py's formulas before they called confusion.py (commit 466e9b7)."""
    tp = np.diag(c).copy()
    fp, fn = c.sum(axis=0) - tp, c.sum(axis=1) - tp
    b2 = beta * beta
    num, den = {
        "precision": (tp, tp + fp),
        "recall": (tp, tp + fn),
        "f": ((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp),
    }[which]
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    if average == "micro":
        n, d = float(num.sum()), float(den.sum())
        return n / d if d > 0 else math.nan
    return mc._average(per, tp + fn, average)


def _old_mcc(c):
    s = c.sum()
    t, p = c.sum(axis=1), c.sum(axis=0)
    if np.count_nonzero(t > 0) <= 1 or np.count_nonzero(p > 0) <= 1:
        return math.nan
    cov_yp = np.trace(c) * s - float(t @ p)
    den = (s * s - float(p @ p)) * (s * s - float(t @ t))
    return float(cov_yp / math.sqrt(den)) if den > 0 else math.nan


def _old_kappa(c, weights):
    k = c.shape[0]
    s = c.sum()
    if s <= 0:
        return math.nan
    expected = np.outer(c.sum(axis=1), c.sum(axis=0)) / s
    idx = np.arange(k)
    w = {
        "none": 1.0 - np.eye(k),
        "linear": np.abs(idx[:, None] - idx[None, :]).astype(np.float64),
        "quadratic": ((idx[:, None] - idx[None, :]) ** 2).astype(np.float64),
    }[weights]
    den = float((w * expected).sum())
    return 1.0 - float((w * c).sum()) / den if den != 0 else math.nan


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def _summaries(whole: bool):
    rng = np.random.default_rng(7 if whole else 8)
    for case in range(60):
        k = int(rng.integers(2, 6))
        n = int(rng.integers(1, 40))
        y = rng.integers(0, k, n)
        if case % 5 == 0:
            y[:] = y[0]  # one class only
        s = rng.integers(0, 3 if whole else 2, (n, k)).astype(np.float64)  # ties at the argmax
        if whole:  # no tie: whole counts
            s = s + rng.permuted(np.tile(np.arange(k) * 10.0, (n, 1)), axis=1)
        w = None if whole else rng.choice([0.0, 0.3, 1.0, 2.5], n)
        yield ClassSummary.from_checked(y.astype(np.intp), s, w, tuple(range(k)))


@pytest.mark.parametrize("whole", [True, False])
def test_the_measures_are_the_kernels(whole):
    for cs in _summaries(whole):
        c = cs.confusion
        tp, pred, true, _ = K.class_counts(c)
        for which, fn in (("precision", mc.precision), ("recall", mc.recall)):
            at = ("precision", "recall").index(which)
            for average in ("macro", "weighted", "micro"):
                got = fn(cs, average=average)
                kernel = K.precision_recall_fbeta(tp, pred, true)[at]
                np.testing.assert_array_equal(got.per_class, kernel)
                if average == "micro":
                    assert _same(got.value, K.prf_average(tp, pred, true, "micro")[at])
                old = _old_prf(c, which, average)
                assert (
                    _same(got.value, old)
                    if whole
                    else math.isclose(got.value, old, rel_tol=1e-12) or _same(got.value, old)
                )
        for beta in (0.5, 1.0, 2.0):
            for average in ("macro", "weighted", "micro"):
                got = mc.f_beta(cs, beta=beta, average=average)
                np.testing.assert_array_equal(
                    got.per_class, K.precision_recall_fbeta(tp, pred, true, beta)[2]
                )
                old = _old_prf(c, "f", average, beta)
                if whole and beta == 1.0:
                    assert _same(got.value, old)
                else:
                    assert _same(got.value, old) or math.isclose(got.value, old, rel_tol=1e-12)
        m = mc.mcc(cs).value
        assert (
            _same(m, _old_mcc(c))
            if whole
            else (_same(m, _old_mcc(c)) or math.isclose(m, _old_mcc(c), rel_tol=1e-12))
        )
        if not math.isnan(m):
            assert _same(m, K.matthews(c))
        for weights in ("none", "linear", "quadratic"):
            got = mc.kappa(cs, weights).value
            assert _same(got, K.cohen_kappa(c, None if weights == "none" else weights))
            assert _same(got, _old_kappa(c, weights))  # the same products and sums: bit for bit
