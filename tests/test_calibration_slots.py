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
from perfeval.measures.calibration import _fit_cells, fit_scales


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
    """Group k by fit_group alone (logit_fit_classes: its positives' cells, then its negatives'),
    its weights first scaled as fit_scales says (logit_fit scales them itself).
    """
    lo, hi = b[k], b[k + 1]
    xs, ps, ng = x[lo:hi], p[lo:hi], n[lo:hi]
    scale = fit_scales(ps, ng, np.array([0, hi - lo]))
    if scale is not None:
        ps, ng = ps * scale[0], ng * scale[0]
    ns = (ps + ng) - ps  # the negatives' weight as logit_fit makes it (its cell's weight less pos)
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


def _start_kinds(x, p, n, b):
    """Each group's start of the joint fit as fit_group takes it (numpy, approximately: only to show the
    corpus has each kind, well away from the bounds): 0 when the calibrated start's Newton step moves
    no cell's z by more than 1 (FIT_SAFE; no likelihood read), 1 when it does and the calibrated start
    is at least as likely as the constant, 2 when it is less likely (the fit starts from the constant);
    -1 near a bound."""
    kinds = []
    for k in range(len(b) - 1):
        xs, ps, ns = x[b[k] : b[k + 1]], p[b[k] : b[k + 1]], n[b[k] : b[k + 1]]
        W, P = ps.sum() + ns.sum(), ps.sum()
        a = np.log(P / W) - np.log1p(-P / W) - (xs * (ps + ns)).sum() / W
        mu = 1 / (1 + np.exp(-(a + xs)))
        r, v = ps * (1 - mu) - ns * mu, (ps + ns) * mu * (1 - mu)
        H = np.array([[v.sum(), (v * xs).sum()], [(v * xs).sum(), (v * xs * xs).sum()]])
        da, db = np.linalg.solve(H, [r.sum(), (r * xs).sum()])
        reach = max(abs(da + db * xs.min()), abs(da + db * xs.max()))
        ll = (ps * np.log(mu) + ns * np.log1p(-mu)).sum()
        ll_null = P * np.log(P / W) + (W - P) * np.log1p(-P / W)
        if reach < 0.9:
            kinds.append(0)
        elif reach > 1.1 and abs(ll - ll_null) > 1e-6 * abs(ll_null):
            kinds.append(1 if ll > ll_null else 2)
        else:
            kinds.append(-1)
    return np.array(kinds)


@pytest.mark.parametrize("seed", range(3))
def test_the_joint_fits_first_pass_likelihood_gives_fit_group_s_start(seed):
    """Branch fits-ll: the joint fit's first pass in the slots makes the likelihood with its other sums
    (fit_group makes it in a second pass at the same point when the first Newton step is not within
    FIT_SAFE), and decides from it whether the fit starts from the constant.  Groups of each kind of
    start (the step within FIT_SAFE; beyond it and the calibrated start the likelier; beyond it and the
    constant the likelier: scores against their classes), fitted together on every pass and alone by
    fit_group: the same bits (a stale or missing likelihood sends the third kind from the calibrated
    start, and changes their bits)."""
    rng = np.random.default_rng(700 + seed)
    xs_, ps_, ns_, bounds = [], [], [], [0]
    for k in range(300):
        m = int(rng.integers(3, 17))
        s = np.sort(rng.uniform(0.02, 0.98, m))
        s = np.unique(s)
        w = rng.integers(1, 5, len(s)).astype(float)
        kind = k % 3
        q = {0: s, 1: 1 / (1 + ((1 - s) / s) ** 2), 2: 1 - s}[kind]  # P(y = 1): s, logit 2 logit(s), 1 - s
        p, n = np.round(q * w * 4) / 4, np.round((1 - q) * w * 4) / 4  # weights of each class (quarters)
        live = (p > 0) | (n > 0)
        s, p, n = s[live], p[live], n[live]
        if not (p > 0).any() or not (n > 0).any():
            continue
        xs_.append(np.log(s) - np.log1p(-s))
        ps_.append(p)
        ns_.append(n)
        bounds.append(bounds[-1] + len(s))
    x, p, n, b = np.concatenate(xs_), np.concatenate(ps_), np.concatenate(ns_), np.array(bounds, np.int64)
    kinds = _start_kinds(x, p, n, b)
    assert all((kinds == kd).sum() >= 20 for kd in (0, 1, 2)), np.bincount(kinds + 1)
    try:
        for t in _targets():
            _native.cal_target(t)
            out = np.frombuffer(_native.logit_fit(x, p, n, b, True, True), np.float64).reshape(2, -1)
            assert all(np.isfinite(out[1, kinds == kd]).sum() >= 20 for kd in (0, 1, 2))  # fits, not NaN
            for k in range(len(b) - 1):
                want = np.array(_alone(x, p, n, b, k, True))
                assert out[:, k].tobytes() == want.tobytes(), (t, k, kinds[k], out[:, k], want)
    finally:
        _native.cal_target("")
