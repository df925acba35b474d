"""The operating-point measures over every group at once, with weights (issue 33): each group's
value has the bits of the measure over that group's own summary, the engine's group-by-group path
(every measure without a per-group form) keeps its bits, and a group's value is that group alone.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.engine.finish import each_summary, grouped_histograms, safe
from perfeval.measures import list_measures, parse_measure
from perfeval.measures._data import GroupedData, histograms
from perfeval.measures.operating import segment_cumsum
from perfeval.summaries import ScoreHistogram

#: every operating measure, with a parameter set where it has one, and some thresholds
SPECS = [
    "tpr_at_fpr@0.2",
    "sen_at_spc@0.7",
    "spc_at_sen@0.7",
    "pre_at_rec@0.6",
    "rec_at_pre@0.6",
    "pauc@0.3",
    "pauc:lo=0.2,hi=0.9,focus=tpr,correct=mcclish",
    "youden",
    "topleft",
    "best_fbeta:beta=2",
    "best_mcc",
    "least_cost:fn=3,fp=1.3",
    "youden:of=threshold",
    "tpr_at_fpr@0.2:of=threshold",
    "rec_at_pre@0.6:of=threshold",
    "least_cost:fn=3,fp=1.3,of=threshold",
]
OPERATING = sorted({parse_measure(s).measure.name for s in SPECS})


def test_every_operating_measure_is_here():
    mine = {m.name for m in list_measures() if m.compute.startswith("perfeval.measures.operating:")}
    assert mine == set(OPERATING)


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@st.composite
def weighted(draw, kind: str = "fraction"):
    n = draw(st.integers(1, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < rng.random()).astype(float)
    s = np.round(rng.random(n), draw(st.sampled_from([0, 1, 2])))  # ties, many to a cell
    g = rng.integers(0, 6, n)
    if kind == "fraction":
        w = rng.random(n) * 3
    else:  # dyadic: every sum exact, in any order
        w = rng.integers(0, 3 * 1024, n) / 1024.0
    w[rng.random(n) < 0.2] = 0.0
    return y, s, g, w


def _grouped(y, s, g, w, specs) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=specs)
    return {
        k: {lab: float(res.per_group[i]) for lab, res in r.results.items()} for i, k in enumerate(r.groups)
    }


@pytest.mark.parametrize("seed", range(20))
def test_segment_cumsum_is_each_segments_own(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.choice([0, 1, 2, 3, 5, 8, 9, 31, 64, 65, 700], size=int(rng.integers(1, 40)))
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    v = rng.random(int(bounds[-1])) * 10 ** rng.uniform(-3, 3, int(bounds[-1]))
    got = segment_cumsum(v, bounds)
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        assert got[a:b].tobytes() == np.cumsum(v[a:b]).tobytes()


@settings(max_examples=80, deadline=None)
@given(weighted("fraction"))
def test_weighted_groups_at_once_are_each_groups_summary(d):
    """Any weights: every group at once (no decline) has the bits of the measure over the group's
    own summary (its cells as the engine sums them, in the rows' canonical order)."""
    y, s, g, w = d
    keep = w > 0  # as the door leaves them out
    keys, codes = np.unique(g[keep], return_inverse=True)
    gd = GroupedData.from_rows(codes, y[keep], s[keep], w[keep], len(keys))
    sc, pos, neg, b = histograms(gd)
    for text in SPECS:
        spec = parse_measure(text)
        at_once = spec.measure.per_group_function()(gd, **spec.kwargs)
        assert at_once is not None, f"{spec.label} declines weights"
        for i in range(len(keys)):
            alone = spec(ScoreHistogram(sc[b[i] : b[i + 1]], pos[b[i] : b[i + 1]], neg[b[i] : b[i + 1]]))
            assert same(float(at_once[i]), alone), (spec.label, i, at_once[i], alone)


@settings(max_examples=60, deadline=None)
@given(weighted("dyadic"))
def test_weighted_group_is_that_group_alone(d):
    y, s, g, w = d
    for key, got in _grouped(y, s, g, w, SPECS).items():
        m = g == key
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = perfeval.evaluate(y[m], s[m], sample_weight=w[m], measures=SPECS)
        for lab, r in alone.results.items():
            assert same(got[lab], r.value), (key, lab, got[lab], r.value)


@settings(max_examples=40, deadline=None)
@given(weighted("fraction"))
def test_weighted_group_is_that_group_alone_distinct_scores(d):
    """Fractional weights, one case a score: every cell one weight, so the same bits as alone."""
    y, s, g, w = d
    s = s + np.arange(len(s)) * 1e-6
    for key, got in _grouped(y, s, g, w, SPECS).items():
        m = g == key
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = perfeval.evaluate(y[m], s[m], sample_weight=w[m], measures=SPECS)
        for lab, r in alone.results.items():
            assert same(got[lab], r.value), (key, lab, got[lab], r.value)


BINARY = [m for m in list_measures() if m.kind == "binary"]


def _spec(m) -> str:
    return "cst:fn=1,fp=2" if m.name == "CST" else m.name


@settings(max_examples=30, deadline=None)
@given(weighted("dyadic"))
def test_the_group_by_group_path_is_that_group_alone(d):
    """The engine's generic path (every measure's per-group form switched off): each group's value
    is the measure on that group alone, bit for bit, for every binary measure."""
    y, s, g, w = d
    specs = [_spec(m) for m in BINARY if m.name not in ("APR", "CA2")]  # whole weights only
    saved = {m.name: m.per_group for m in BINARY}
    try:
        for m in BINARY:
            object.__setattr__(m, "per_group", "")
        per = _grouped(y, s, g, w, specs)
    finally:
        for m in BINARY:
            object.__setattr__(m, "per_group", saved[m.name])
    for key, got in per.items():
        m = g == key
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = perfeval.evaluate(y[m], s[m], sample_weight=w[m], measures=specs)
        for lab, r in alone.results.items():
            assert same(got[lab], r.value), (key, lab, got[lab], r.value)


def test_grouped_histograms_are_canonical_summaries():
    """The generic path's summaries: without empty cells, whole-count flag known, and each measure
    over them what it is over the summary made the slow way (ScoreHistogram.canonical)."""
    rng = np.random.default_rng(3)
    n = 300
    y = (rng.random(n) < 0.4).astype(float)
    s = np.round(rng.random(n), 1)
    g = rng.integers(0, 7, n)
    w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n) * 2)
    w[g == 2] = np.round(w[g == 2])  # a group of whole weights (and zeros)
    hists = grouped_histograms(y, s, w, g, 7)
    for k, h in enumerate(hists):
        m = g == k
        slow = ScoreHistogram.from_checked(y[m] == 1, s[m], w[m])
        assert np.array_equal(h.scores, slow.scores)
        assert ((h.pos == 0) & (h.neg == 0)).sum() == 0
        assert h.canonical() is h
        assert h.is_counts() == bool(np.all(h.pos == np.round(h.pos)) and np.all(h.neg == np.round(h.neg)))
    for text in ["roc", "ap", "tpr_at_fpr@0.2", "youden:of=threshold", "cst:fn=1,fp=2"]:
        spec = parse_measure(text)
        expect = [safe(spec, ScoreHistogram(h.scores, h.pos, h.neg)) for h in hists]
        assert each_summary(spec, hists).tobytes() == np.array(expect).tobytes()
