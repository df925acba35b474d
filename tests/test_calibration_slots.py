"""Issue 33, branches fits-fast and fits-small: the logistic fits of many small groups made together
(csrc/calibration.c slots_run: the groups whose classes have at most 16 cells, SLOTS at a time, in the
order of their numbers of cells, their passes across the groups) are each group's fit_group bit for
bit, on every instruction set, small and large groups mixed; and logit_fit given the scores applies
fit_cells' rule itself, with the numbers of the cells fit_cells would have copied out.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval import _native
from perfeval.measures.calibration import _fit_cells


def _groups(seed: int):
    """Cells of many groups (each group's distinct scores ascending, both classes' weights), most
    of a few cells, some of more than 8 a class, some separated, some with extreme weights.
    """
    rng = np.random.default_rng(seed)
    G = int(rng.integers(40, 400))
    sizes = rng.choice(
        [1, 2, 3, 5, 8, 9, 12, 17, 30, 45], G, p=[0.05, 0.1, 0.2, 0.25, 0.13, 0.1, 0.07, 0.05, 0.03, 0.02]
    )
    sc, pos, neg, bounds = [], [], [], [0]
    for k, m in enumerate(sizes):
        s = np.unique(np.clip(np.round(rng.random(m), int(rng.integers(1, 6))), 1e-9, 1 - 1e-9))
        q = s if k % 5 else np.full(len(s), 0.5)
        y = rng.random(len(s)) < q
        w = {
            0: np.ones(len(s)),
            1: rng.random(len(s)) * 3 + 1e-3,
            2: rng.integers(1, 4, len(s)).astype(float),
            3: rng.choice([1e-300, 1.0, 1e5], len(s)),  # shares of positives that round to 0 or 1
        }[k % 4]
        both = rng.random(len(s)) < 0.3  # a cell holding both classes
        p = np.where(y | both, w, 0.0)
        n = np.where(~y | both, w * (1 + (k % 3)), 0.0)
        if k % 13 == 0:  # separated: every positive above every negative
            p = np.where(s > 0.5, w, 0.0)
            n = np.where(s > 0.5, 0.0, w)
        sc.append(s)
        pos.append(p)
        neg.append(n)
        bounds.append(bounds[-1] + len(s))
    return np.concatenate(sc), np.concatenate(pos), np.concatenate(neg), np.array(bounds, np.int64)


def _alone(x, p, n, b, k, joint):
    """Group k by fit_group alone (logit_fit_classes: its positives' cells, then its negatives')."""
    lo, hi = b[k], b[k + 1]
    xs, ps = x[lo:hi], p[lo:hi]
    ns = (ps + n[lo:hi]) - ps  # the negatives' weight as logit_fit makes it (its cell's weight less pos)
    kp, kn = ps > 0, ns > 0
    return _native.logit_fit_classes(
        np.ascontiguousarray(xs[kp]),
        np.ascontiguousarray(ps[kp]),
        np.ascontiguousarray(xs[kn]),
        np.ascontiguousarray(ns[kn]),
        joint,
    )


def _targets():
    prev = _native.cal_target()
    have = []
    for t in ("base", "v3", "v4"):
        try:
            _native.cal_target(t)
            have.append(t)
        except ValueError:
            pass
    _native.cal_target("")
    assert _native.cal_target() == prev
    return have


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("joint", [True, False])
def test_small_groups_fitted_together_are_each_group_alone_bit_for_bit(seed, joint):
    sc, pos, neg, bounds = _groups(seed)
    x, p, n, b, ok, _G = _fit_cells(sc, pos, neg, bounds)
    cells = [
        (int(np.count_nonzero(p[b[k] : b[k + 1]] > 0)), int(np.count_nonzero(n[b[k] : b[k + 1]] > 0)))
        for k in range(len(b) - 1)
    ]
    assert any(max(c) <= 8 for c in cells) and any(8 < max(c) <= 16 for c in cells)  # one and two blocks
    assert any(max(c) > 16 for c in cells)  # and fit_group's path
    try:
        for t in _targets():
            _native.cal_target(t)
            out = np.frombuffer(_native.logit_fit(x, p, n, b, joint, True), np.float64).reshape(2, -1)
            for k in range(len(b) - 1):
                a1, b1 = _alone(x, p, n, b, k, joint)
                got = np.array([out[0, k], out[1, k]])
                want = np.array([a1, b1])
                assert got.tobytes() == want.tobytes(), (t, k, cells[k], got, want)
    finally:
        _native.cal_target("")


def test_small_groups_include_failed_and_separated_fits():
    """The cases where a small group's fit has no value (NaN) come out NaN together too."""
    sc, pos, neg, bounds = _groups(3)
    x, p, n, b, _ok, _G = _fit_cells(sc, pos, neg, bounds)
    out = np.frombuffer(_native.logit_fit(x, p, n, b, True, True), np.float64).reshape(2, -1)
    assert np.isnan(out[1]).any() and np.isfinite(out[1]).any()


def _odd_groups(seed: int):
    """:func:`_groups`' cells with what fit_cells leaves out: cells of no weight (in groups with a fit
    and without), groups of one class, of no live cell, with a score of 0, 1 or outside [0, 1]."""
    sc, pos, neg, bounds = _groups(seed)
    rng = np.random.default_rng(1000 + seed)
    G = len(bounds) - 1
    for k in rng.choice(G, G // 4, replace=False):
        lo, hi = bounds[k], bounds[k + 1]
        j = int(rng.integers(lo, hi))
        what = int(rng.integers(0, 5))
        if what == 0:
            pos[j] = neg[j] = 0.0  # a dead cell
        elif what == 1:
            pos[lo:hi] = 0.0  # no positive
        elif what == 2:
            sc[j] = float(rng.choice([0.0, 1.0, 1.5, -0.5]))  # no logit
        elif what == 3:
            pos[lo:hi] = neg[lo:hi] = 0.0  # nothing live
        else:
            pos[j] = neg[j] = 0.0
            sc[j] = 1.0  # a dead cell's score is not read
    return sc, pos, neg, bounds


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("joint", [True, False])
def test_logit_fit_given_the_scores_is_fit_cells_then_the_fit_bit_for_bit(seed, joint):
    sc, pos, neg, bounds = _odd_groups(seed)
    x, p, n, b, ok, G = _fit_cells(sc, pos, neg, bounds)
    assert 0 < len(ok) < G and len(x) < len(sc)  # some groups and cells left out
    want = np.full((2, G), np.nan)
    want[:, ok] = np.frombuffer(_native.logit_fit(x, p, n, b, joint, True), np.float64).reshape(2, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        xall = np.log(sc) - np.log1p(-sc)
    try:
        for t in _targets():
            _native.cal_target(t)
            got = np.frombuffer(_native.logit_fit(xall, pos, neg, bounds, joint, True, sc), np.float64)
            assert got.tobytes() == want.reshape(-1).tobytes(), t
    finally:
        _native.cal_target("")
