"""ECE from its bins' sums in one compiled pass over the groups (csrc/calibration.c ece_of_bins) is the
numpy expressions' value bit for bit (the expressions kept here as the reference: each element's
operations, the bins added in order from 0.0), for every norm, debiased or not, with empty bins,
fractional weights and groups of no case.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval import _native
from perfeval.measures.calibration import _ece_of_bins


def _numpy_ece(W: np.ndarray, P: np.ndarray, S: np.ndarray, norm: str, debiased: str) -> np.ndarray:
    G, B = W.shape
    n = np.zeros(G)
    for b in range(B):
        n = n + W[:, b]
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(W > 0, P / np.where(W > 0, W, 1.0) - S / np.where(W > 0, W, 1.0), 0.0)
        if norm == "max":
            out = np.max(np.where(W > 0, np.abs(gap), -np.inf), axis=1)
            return np.where(n > 0, out, np.nan)
        if norm == "l1":
            term = W * np.abs(gap)
        else:
            term = W * gap * gap
            if debiased == "yes":
                ybar = np.where(W > 0, P / np.where(W > 0, W, 1.0), 0.0)
                term = term - np.where(W > 1, W * ybar * (1.0 - ybar) / np.where(W > 1, W - 1.0, 1.0), 0.0)
        acc = np.zeros(G)
        for b in range(B):
            acc = acc + term[:, b]
        v = acc / np.where(n > 0, n, 1.0)
        if norm == "l2":
            v = np.sqrt(np.maximum(v, 0.0))
        return np.where(n > 0, v, np.nan)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize(("norm", "debiased"), [("l1", "no"), ("l2", "no"), ("l2", "yes"), ("max", "no")])
def test_ece_of_bins_is_the_numpy_expressions_bit_for_bit(seed, norm, debiased):
    rng = np.random.default_rng(seed)
    G, B = int(rng.integers(1, 200)), int(rng.integers(1, 25))
    unit = [1.0, 0.5, 1 / 3, 0.1, 2.0][seed % 5]
    W = np.where(rng.random((G, B)) < 0.35, 0.0, rng.integers(0, 6, (G, B)) * unit)
    W[: max(1, G // 10)] = 0.0  # groups of no case: NaN
    P = np.round(W * rng.random((G, B)), 3)
    P = np.minimum(P, W)
    S = W * rng.random((G, B))
    got = _ece_of_bins(W, P, S, norm=norm, debiased=debiased)
    want = _numpy_ece(W, P, S, norm, debiased)
    assert got.tobytes() == want.tobytes()


def test_ece_of_bins_refuses_tables_of_another_shape():
    with pytest.raises(ValueError):
        _native.ece_of_bins(np.zeros(5), np.zeros(5), np.zeros(5), 2, 0, False)
    with pytest.raises(ValueError):
        _native.ece_of_bins(np.zeros(4), np.zeros(4), np.zeros(4), 2, 3, False)
