"""The compiled per-group walks of the operating points and the partial AUC (csrc/operating.c:
op_pick_groups, op_pauc_groups), which finish every group of a grouped evaluation in one call: each
group's value and threshold have the bits of the numpy form over every group's points at once (the
form they replace) and of the walk over that group's own summary, on random data with ties, whole,
fractional and decimal weights (0.1 + 0.2 sums at a target exactly), weights of 0, one-class and
empty groups, and targets at 0 and 1.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval import _native
from perfeval.measures import operating as op
from perfeval.measures._data import GroupedData, histograms
from perfeval.summaries import ScoreHistogram

#: each rule's parameter sets: targets at 0, 1 and decimals that fractional sums reach exactly
RULES: dict[str, list[tuple]] = {
    "_tpr_at_fpr": [(0.0,), (0.1,), (0.3,), (0.25,), (1.0,)],
    "_sen_at_spc": [(0.0,), (0.7,), (0.9,), (1.0,)],
    "_spc_at_sen": [(0.0,), (0.3,), (0.6,), (1.0,)],
    "_pre_at_rec": [(0.0,), (0.3,), (0.6,), (1.0,)],
    "_rec_at_pre": [(0.0,), (0.3,), (0.5,), (1.0,)],
    "_youden": [()],
    "_topleft": [()],
    "_best_fbeta": [(2.0,), (0.5,)],
    "_best_mcc": [()],
    "_least_cost": [(3.0, 1.3, 0.0, 0.1), (1.0, 1.0, -0.5, 0.0)],
}
PAUCS = [
    {"hi": 0.3, "lo": 0.0, "focus": "fpr", "correct": "none"},
    {"hi": 0.9, "lo": 0.2, "focus": "tpr", "correct": "mcclish"},
    {"hi": 1.0, "lo": 0.0, "focus": "fpr", "correct": "mcclish"},
    {"hi": 0.3, "lo": 0.1, "focus": "fpr", "correct": "none"},
]


def _data(seed: int) -> tuple[GroupedData, int]:
    """Random rows in G groups (and one more group with no rows): ties (scores rounded), a weight
    kind by seed (none; decimals 0.1, 0.2, 0.3, 0.7; uniform fractions; whole numbers), some weights 0,
    and a group of one class only."""
    r = np.random.default_rng(seed)
    n, G = int(r.integers(1, 300)), int(r.integers(1, 25))
    y = (r.random(n) < r.random()).astype(float)
    s = np.round(r.random(n), int(r.integers(0, 3)))
    g = r.integers(0, G, n)
    y[g == 0] = float(seed % 2)  # group 0: one class
    kind = seed % 4
    w: np.ndarray | None = None
    if kind == 1:
        w = r.choice([0.1, 0.2, 0.3, 0.7], n)
    elif kind == 2:
        w = r.random(n) * 3
    elif kind == 3:
        w = r.integers(1, 5, n).astype(float)
    if w is not None:
        w[r.random(n) < 0.1] = 0.0
    return GroupedData.from_rows(g, y, s, w, G + 1), G + 1


def _bits(a: np.ndarray) -> bytes:
    return np.asarray(a, np.float64).tobytes()


@pytest.mark.parametrize("seed", range(60))
def test_the_compiled_groups_are_the_numpy_form_bit_for_bit(seed):
    gd, _G = _data(seed)
    for rule, sets in RULES.items():
        for args in sets:
            walk = op.compiled_choice_groups(gd, rule, args)
            form = op.numpy_choice_groups(gd, rule, args)
            assert _bits(walk[0]) == _bits(form[0]), (rule, args, walk[0], form[0])
            assert _bits(walk[1]) == _bits(form[1]), (rule, args, walk[1], form[1])
    for kw in PAUCS:
        assert _bits(op.pauc_groups(gd, **kw)) == _bits(op.numpy_pauc_groups(gd, **kw)), kw


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_each_group_is_its_own_summary_bit_for_bit(seed):
    """Each group's value and threshold are those of the compiled walk over that group's summary
    alone (its cells without the empty ones, as ScoreHistogram.canonical leaves them)."""
    gd, G = _data(seed)
    sc, pos, neg, b = histograms(gd)
    alone = []
    for k in range(G):
        keep = slice(b[k], b[k + 1])
        cell = (pos[keep] != 0) | (neg[keep] != 0)
        alone.append(ScoreHistogram(sc[keep][cell], pos[keep][cell], neg[keep][cell]))
    for rule, sets in RULES.items():
        for args in sets:
            v, t = op.compiled_choice_groups(gd, rule, args)
            for k, h in enumerate(alone):
                hv, ht = op.compiled_choice(h, rule, args)
                assert _bits(v[k]) == _bits(hv[0]) and _bits(t[k]) == _bits(ht[0]), (rule, args, k)
    for kw in PAUCS:
        areas = op.pauc_groups(gd, **kw)
        for k, h in enumerate(alone):
            assert _bits(areas[k]) == _bits(op.pauc(h, **kw)), (kw, k)


def test_one_class_and_empty_groups_are_nan():
    gd, G = _data(4)  # group 0 holds negatives only; the last group no row
    for rule, sets in RULES.items():
        v, t = op.compiled_choice_groups(gd, rule, sets[0])
        assert math.isnan(v[-1]) and math.isnan(t[-1]), rule
        if rule != "_least_cost":  # a cost is defined on one class
            assert math.isnan(v[0]) and math.isnan(t[0]), rule
    assert math.isnan(op.pauc_groups(gd, **PAUCS[0])[0])


def test_a_target_met_exactly_by_decimal_weights():
    """The issue's example in three groups: negatives of weight 0.1 and 0.2 above two positives,
    2.7 below: at threshold 0.7 the float FPR (0.1 + 0.2) / (0.1 + 0.2 + 2.7) is above 0.1, the exact
    one (of the float64 weights) below: TPR at FPR <= 0.1 is 1 at 0.7 in every group, as alone."""
    assert (0.1 + 0.2) / (0.1 + 0.2 + 2.7) > 0.1
    y = np.array([0, 0, 1, 1, 0] * 3, float)
    s = np.array([0.9, 0.85, 0.8, 0.7, 0.1] * 3)
    w = np.array([0.1, 0.2, 1.0, 1.0, 2.7] * 3)
    g = np.repeat(np.arange(3), 5)
    gd = GroupedData.from_rows(g, y, s, w, 3)
    v, t = op.compiled_choice_groups(gd, "_tpr_at_fpr", (0.1,))
    assert v.tolist() == [1.0] * 3 and t.tolist() == [0.7] * 3
    specs = ["tpr_at_fpr@0.1", "sen_at_spc@0.9:of=threshold"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=specs)
        alone = perfeval.evaluate(y[:5], s[:5], sample_weight=w[:5], measures=specs)
    assert r.results["TPR_AT_FPR@0.1"].per_group.tolist() == [alone["TPR_AT_FPR@0.1"]] * 3 == [1.0] * 3
    assert r.results["SEN_AT_SPC@0.9:of=threshold"].per_group.tolist() == [0.7] * 3


def test_the_one_class_reason_is_kept():
    y = np.array([1, 0, 1, 1, 1, 0, 0])
    s = np.array([0.9, 0.1, 0.5, 0.4, 0.3, 0.2, 0.8])
    g = np.array([0, 0, 0, 1, 1, 2, 2])
    undefined = r"undefined for 2 of 3 groups \(1: one class only: all 2 cases are positive; 2: one class"
    with pytest.warns(perfeval.exceptions.UndefinedMeasureWarning, match=undefined):
        r = perfeval.evaluate(y, s, groups=g, measures=["tpr_at_fpr@0.1", "pauc@0.2", "youden:of=threshold"])
    for res in r.results.values():
        assert res.per_group[0] == res.per_group[0] and np.isnan(res.per_group[1:]).all()


def test_bad_arguments_are_refused():
    z = np.zeros(2)
    with pytest.raises(ValueError, match="unknown rule"):
        _native.op_pick_groups(z, z, z, np.array([0, 2], np.int64), 99)
    with pytest.raises(ValueError, match="decimal"):
        _native.op_pick_groups(z, z, z, np.array([0, 2], np.int64), 0, 0.1)
    with pytest.raises(ValueError, match="differ in length"):
        _native.op_pauc_groups(z, np.zeros(3), z, np.array([0, 2], np.int64), 0.0, 1.0, False)
    with pytest.raises(ValueError):
        _native.op_pick_groups(z, z, z, np.array([0, 3], np.int64), 5)  # past the cells
    with pytest.raises(ValueError):
        _native.op_pauc_groups(z, z, z, np.array([1, 0, 2], np.int64), 0.0, 1.0, False)  # not sorted


@pytest.mark.parametrize("w", [None, [1.0, 2.0, 0.5, 1.0, 1.0, 3.0]])
def test_a_threshold_at_zero_is_the_one_alone(w):
    """Scores of -0.0 and 0.0 are one score: each group's threshold there is 0.0, as alone."""
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([-0.0, -0.5, 0.0, -0.0, -0.0, -1.0])
    g = np.array([0, 0, 0, 1, 1, 1])
    wt = None if w is None else np.array(w)
    specs = ["youden:of=threshold", "tpr_at_fpr@0.5:of=threshold"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, sample_weight=wt, measures=specs)
        for k in (0, 1):
            m = g == k
            alone = perfeval.evaluate(y[m], s[m], sample_weight=None if wt is None else wt[m], measures=specs)
            for lab, res in alone.results.items():
                assert _bits(r.results[lab].per_group[k]) == _bits(res.value) == _bits(0.0), (lab, k)
