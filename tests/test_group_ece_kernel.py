"""Every group's ECE in one compiled pass from the groups' histograms (csrc/calibration.c group_ece:
no (group, bin) tables) is bin_sums then _ece_of_bins bit for bit, and each group's value is that
group's alone (its own summary through the one-summary ECE), for both binnings, every norm,
debiased or not, with ties, fractional weights, scores at the bins' edges, 0 and 1, outside [0, 1],
and groups of no case.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import perfeval
from perfeval import _native
from perfeval.measures.calibration import _ece_of_bins, _group_ece, bin_sums

NORMS = [("l1", "no"), ("l2", "no"), ("l2", "yes"), ("max", "no")]


def _histograms(seed: int):
    rng = np.random.default_rng(seed)
    G = int(rng.integers(1, 300))
    sizes = rng.integers(0, 30, G)
    sizes[: max(1, G // 20)] = 0  # groups of no cell
    sc, pos, neg = [], [], []
    for k in sizes:
        s = np.sort(np.unique(np.round(rng.random(int(k)) * 1.2 - 0.1, 2)))  # some outside [0, 1]
        if seed % 3 == 0:
            s = np.clip(s, 0.0, 1.0)  # every score a probability, 0 and 1 among them
        unit = [1.0, 0.5, 0.1][seed % 3]
        p = rng.integers(0, 4, len(s)) * unit
        n = rng.integers(0, 4, len(s)) * unit
        sc.append(s)
        pos.append(p)
        neg.append(n)
    bounds = np.concatenate(([0], np.cumsum([len(s) for s in sc]))).astype(np.int64)
    return np.concatenate(sc), np.concatenate(pos), np.concatenate(neg), bounds


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("bins", ["width", "mass"])
@pytest.mark.parametrize(("norm", "debiased"), NORMS)
def test_group_ece_is_the_tables_path_bit_for_bit(seed, bins, norm, debiased):
    sc, pos, neg, bounds = _histograms(seed)
    n_bins = [1, 2, 10, 15, 40][seed % 5]
    W, P, S = bin_sums(sc, pos, neg, bounds, bins=bins, n_bins=n_bins)
    want = _ece_of_bins(W, P, S, norm=norm, debiased=debiased)
    got = _group_ece(sc, pos, neg, bounds, bins=bins, n_bins=n_bins, norm=norm, debiased=debiased)
    assert got.tobytes() == want.tobytes()
    for g in range(len(bounds) - 1):  # and each group alone
        a, b = int(bounds[g]), int(bounds[g + 1])
        one = _group_ece(
            sc[a:b],
            pos[a:b],
            neg[a:b],
            np.array([0, b - a]),
            bins=bins,
            n_bins=n_bins,
            norm=norm,
            debiased=debiased,
        )
        assert one.tobytes() == got[g : g + 1].tobytes(), g


@pytest.mark.parametrize("spec", ["ece", "ece:bins=mass", "ece:norm=l2,debiased=yes", "mce", "ece:n_bins=7"])
def test_each_groups_ece_is_that_group_alone(spec):
    rng = np.random.default_rng(7)
    n = 4000
    g = rng.integers(0, 150, n)
    s = np.round(rng.random(n), 2)
    s[g == 3] = 1.0  # a group all at 1.0: the last bin, closed
    y = (rng.random(n) < s).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, measures=[spec])
        (label,) = r.results
        per = r.results[label].per_group
        for key in np.unique(g)[::5]:
            rows = g == key
            alone = perfeval.evaluate(y[rows], s[rows], measures=[spec])[label]
            assert np.float64(per[key]).tobytes() == np.float64(alone).tobytes(), key


def test_group_ece_refuses_bad_arguments():
    z = np.zeros(3)
    with pytest.raises(ValueError):
        _native.group_ece(z, z, z, np.array([0, 3], np.int64), 0, False, 0, False)
    with pytest.raises(ValueError):
        _native.group_ece(z, z, z, np.array([0, 3], np.int64), 5, False, 3, False)
    with pytest.raises(ValueError):
        _native.group_ece(z, z, z, np.array([0, 2], np.int64), 5, False, 0, False)
