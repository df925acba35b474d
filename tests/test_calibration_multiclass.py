"""Issue 33, part calib: class-wise ECE of K classes against the binary row reference on each column."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval
from test_calibration_binary import ref_ece


def _value(y, P, spec, w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (r,) = perfeval.evaluate(y, P, sample_weight=w, measures=[spec]).results.values()
    return r


@pytest.mark.parametrize("seed", range(12))
def test_classwise_ece_is_the_mean_of_each_columns_binary_ece(seed):
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(5, 80)), int(rng.integers(3, 6))
    P = np.round(rng.dirichlet(np.ones(K), n), 1)  # few decimals: ties in every column
    y = np.array([rng.integers(0, K) for _ in range(n)])
    y[:K] = np.arange(K)  # every class present
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else np.ones(n)
    for bins, B, norm in (("width", 10, "l1"), ("mass", 4, "l2"), ("width", 5, "max")):
        r = _value(y, P, f"ece_cw:bins={bins},n_bins={B},norm={norm}", w)
        per = [ref_ece((y == j).astype(float), P[:, j], w, bins, B, norm) for j in range(K)]
        assert r.per_class.tolist() == pytest.approx(per, rel=1e-12, abs=1e-15)
        assert r.value == pytest.approx(np.mean(per), rel=1e-12, abs=1e-15)


def test_classwise_ece_of_no_probabilities_is_nan_with_the_reason():
    r = _value([0, 1, 2], [[0.5, 0.3, 0.2], [0.1, 1.7, 0.2], [0.2, 0.2, 0.6]], "ece_cw")
    assert math.isnan(r.value) and "outside [0, 1]" in r.why
