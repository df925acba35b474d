"""BRIER_UNC of a rare class, weighted: o (1 - o) lost the digits of the rare class's share to the
cancellation in 1 - o (a Metric merged in another order then differed from evaluate by 3.5e-13 in
relative terms, found by hypothesis in tests/test_metric.py); now (P / n) (N / n), N summed as P
is, in the kernel over the cells, from the classes' sizes and in the bootstrap's fast path."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import perfeval
from perfeval import Metric


def _exact_unc(y, w):
    P = sum((Fraction(float(x)) for x, t in zip(w, y, strict=True) if t), Fraction(0))
    N = sum((Fraction(float(x)) for x, t in zip(w, y, strict=True) if not t), Fraction(0))
    return float(P * N / (P + N) ** 2)


def test_unc_of_a_rare_weighted_class_is_correctly_rounded_in_any_order():
    rng = np.random.default_rng(3)
    n = 50
    y = np.ones(n, int)
    y[12] = 0
    s = rng.integers(0, 2, n).astype(float)
    w = rng.random(n) * 5
    w[12] = 0.085
    want = _exact_unc(y, w)
    for order in (np.arange(n), rng.permutation(n), rng.permutation(n)):
        r = perfeval.evaluate(y[order], s[order], measures=["brier_unc"], sample_weight=w[order])
        got = float(r["BRIER_UNC"])
        assert abs(got - want) <= 4 * np.spacing(want), (got, want)
        m = Metric(["brier_unc"])
        for part in np.array_split(order, 4):
            m.update(y[part], s[part], sample_weight=w[part])
        got_m = float(m.compute()["BRIER_UNC"])
        assert abs(got_m - want) <= 4 * np.spacing(want), (got_m, want)


def test_unc_of_unit_cases_is_the_same_from_the_classes_sizes_and_the_cells():
    y = np.r_[np.ones(999, int), 0]
    s = np.linspace(0.0, 1.0, 1000)
    a = float(perfeval.evaluate(y, s, measures=["brier_unc"])["BRIER_UNC"])
    b = float(perfeval.evaluate(y, s, measures=["brier_unc"], sample_weight=np.ones(1000))["BRIER_UNC"])
    assert a == b == (999 / 1000) * (1 / 1000)
