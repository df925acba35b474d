"""group_hist_rows sorts a group's class of 1,024 rows or more by radix (csrc/summary.c
u64_radix_run), fewer by introsort: every group's summary the same bits as that group alone and as
numpy's (the rows sorted by (group, score), each run summed), whatever the scores' bits.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval import _native as K


def _numpy_histograms(codes, score, positive, G):
    order = np.lexsort((score, codes))
    c, sc, yy = codes[order], score[order] + 0.0, positive[order].astype(np.float64)
    new = np.ones(len(sc), dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
    starts = np.flatnonzero(new)
    pos = np.add.reduceat(yy, starts) if len(starts) else np.zeros(0)
    neg = np.add.reduceat(1 - yy, starts) if len(starts) else np.zeros(0)
    return sc[starts], pos, neg, np.searchsorted(c[starts], np.arange(G + 1))


def _bits(a):
    return np.asarray(a, np.float64).view(np.uint64)


def _scores(kind: str, n: int, rng) -> np.ndarray:
    if kind == "uniform":
        return rng.random(n)
    if kind == "ties":
        return np.round(rng.normal(size=n), 1)
    if kind == "low_bits":  # keys that differ in their lowest digit only: five passes skipped
        return 0.5 + rng.integers(0, 2000, n) * np.finfo(float).eps / 2
    if kind == "high_bits":  # powers of two: keys that differ in their top digits only
        return np.ldexp(1.0, rng.integers(-60, 60, n)) * rng.choice([-1.0, 1.0], n)
    if kind == "odd":  # -0.0 and 0.0 (one score), infinities, the extremes, negatives
        pool = np.array([-0.0, 0.0, np.inf, -np.inf, 5e-324, -5e-324, 1.7e308, -1.7e308, 1.0, -1.0])
        return rng.choice(pool, n)
    if kind == "sorted":  # a class already in order
        return np.sort(rng.random(n))
    return np.full(n, 0.25)  # one score


KINDS = ["uniform", "ties", "low_bits", "high_bits", "odd", "sorted", "one"]


@pytest.mark.parametrize("seed", range(6))
def test_each_groups_summary_is_that_group_alone_and_numpys(seed):
    rng = np.random.default_rng(seed)
    parts_c, parts_s, parts_p = [], [], []
    for g in range(14):  # large groups (both classes over 1,024 rows, or one), and small ones
        n = int(rng.choice([3, 40, 900, 2100, 5000, 9000]))
        kind = KINDS[(g + seed) % len(KINDS)]
        s = _scores(kind, n, rng)
        p = rng.random(n) < rng.choice([0.05, 0.5, 0.95])
        if kind == "sorted":
            p = np.sort(p)  # positives after negatives: each class in order in the rows
        parts_c.append(np.full(n, g, np.int64))
        parts_s.append(s)
        parts_p.append(p)
    codes, score, positive = (np.concatenate(v) for v in (parts_c, parts_s, parts_p))
    if seed % 2:  # the rows shuffled (sorted classes then only where their rows keep their order)
        perm = rng.permutation(len(codes))
        if seed % 4 == 1:
            codes, score, positive = codes[perm], score[perm], positive[perm]
    G = 14
    got = K.group_hist_rows(codes, score, positive.view(np.uint8), G)
    sc, pos, neg = (np.frombuffer(v, np.float64) for v in got[:3])
    bounds = np.frombuffer(got[3], np.int64)
    want = _numpy_histograms(codes, score, positive, G)
    for a, b in zip((sc, pos, neg), want[:3], strict=True):
        assert np.array_equal(_bits(a), _bits(b))
    assert np.array_equal(bounds, want[3])
    for g in range(G):
        rows = codes == g
        alone = K.group_hist_rows(
            np.zeros(int(rows.sum()), np.int64), score[rows], positive[rows].view(np.uint8), 1
        )
        a, b = int(bounds[g]), int(bounds[g + 1])
        for whole, one in zip((sc, pos, neg), alone[:3], strict=True):
            assert np.array_equal(_bits(whole[a:b]), _bits(np.frombuffer(one, np.float64))), g
