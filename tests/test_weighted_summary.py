"""The summary of weighted cases (ScoreHistogram.from_checked with weights; csrc/weighted.c
hist_weighted: a stable radix sort of the rows by score, each score's weights added in row order) is
numpy's bincount over each row's distinct score, bit for bit: the order the stream's, the Metric's
and Dask's fold keep (summaries/histogram.py, folded).
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval import _native
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.histogram import runs


def _bincount_summary(is_pos, s, w):
    """ScoreHistogram.from_checked's weighted summary as numpy made it before hist_weighted."""
    keep = w > 0
    s, is_pos, w = s[keep], is_pos[keep], w[keep]
    scores = runs(np.sort(s))[0]
    inv = np.searchsorted(scores, s)
    tw = w * is_pos
    return (
        scores,
        np.bincount(inv, weights=tw, minlength=len(scores)),
        np.bincount(inv, weights=w - tw, minlength=len(scores)),
    )


@pytest.mark.parametrize("seed", range(40))
def test_weighted_summary_is_the_bincount_of_the_rows_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    s = [
        rng.random(n),
        np.round(rng.normal(size=n), 1),
        rng.choice([-0.0, 0.0, 1.0, -np.inf, np.inf, 1e-300, -5e-324, 5e-324, -1.5], n),
        np.round(rng.random(n), 2),
    ][seed % 4]
    y = rng.random(n) < 0.4
    w = [
        rng.random(n) * 3,
        rng.choice([0.1, 1 / 3, 0.7, 1e-300, 2.5, 0.0, 1e300], n),
        rng.integers(0, 3, n).astype(float),
    ][seed % 3]
    h = ScoreHistogram.from_checked(y, s, w)
    want = _bincount_summary(y, s, w)
    for got, ref in zip((h.scores, h.pos, h.neg), want, strict=True):
        assert got.tobytes() == ref.tobytes()


def test_hist_weighted_refuses_what_the_door_lets_through_never():
    with pytest.raises(ValueError):
        _native.hist_weighted(np.array([0.1, 0.2]), np.array([1, 0], np.uint8), np.array([1.0, 0.0]))
    with pytest.raises(ValueError):
        _native.hist_weighted(np.array([0.1, np.nan]), np.array([1, 0], np.uint8), np.array([1.0, 1.0]))
    with pytest.raises(ValueError):
        _native.hist_weighted(np.array([0.1]), np.array([1, 0], np.uint8), np.array([1.0]))
