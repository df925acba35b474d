"""Per-group one-vs-rest ROC area without a loop over the groups: the bits of one summary a group."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.engine.classes import grouped_fast
from perfeval.measures import parse_measure
from perfeval.measures.multiclass import roc_ovr
from perfeval.summaries.classes import ClassSummary
from perfeval.summaries.ranking import group_codes

SPECS = [parse_measure("ROC_OVR:average=macro"), parse_measure("ROC_OVR:average=weighted")]


@st.composite
def grouped_data(draw):
    k = draw(st.integers(2, 20))
    n = draw(st.integers(1, 300))
    q = draw(st.integers(1, 40))
    grid = draw(st.sampled_from([None, 2, 5]))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    s = r.random((n, k)) if grid is None else r.integers(0, grid, size=(n, k)) / grid
    s[r.random((n, k)) < 0.05] = -0.0
    y = r.integers(0, draw(st.integers(1, k)), size=n).astype(np.intp)
    g = r.integers(0, q, size=n) * 7 + 3
    return y, s, g, k


def _loop(y, s, g, k, average):
    keys, codes = group_codes(g)
    return np.array(
        [
            roc_ovr(
                ClassSummary.from_checked(y[codes == i], s[codes == i], None, tuple(range(k))), average
            ).value
            for i in range(len(keys))
        ]
    )


@settings(max_examples=150)
@given(grouped_data())
def test_grouped_roc_ovr_is_the_loops_bit_for_bit(d):
    y, s, g, k = d
    keys, codes = group_codes(g)
    fast = grouped_fast(SPECS, y, s, codes, None, k, len(keys))
    for sp in SPECS:
        want = _loop(y, s, g, k, sp.kwargs["average"])
        got = fast[sp.label]
        assert np.array_equal(np.isnan(got), np.isnan(want))
        # the same bits (not within a tolerance) where defined
        assert np.array_equal(got.view(np.int64)[~np.isnan(got)], want.view(np.int64)[~np.isnan(want)])


def test_grouped_fast_path_covers_only_unweighted_roc_ovr_macro_and_weighted():
    y = np.array([0, 1, 2, 0, 1, 2])
    s = np.eye(3)[[0, 1, 2, 1, 0, 2]].astype(float)
    codes = np.array([0, 0, 0, 1, 1, 1])
    specs = SPECS + [parse_measure("ROC_OVR:average=micro"), parse_measure("ROC_OVO")]
    assert sorted(grouped_fast(specs, y, s, codes, None, 3, 2)) == [s.label for s in SPECS]
    assert grouped_fast(specs, y, s, codes, np.ones(6), 3, 2) == {}


def test_evaluate_per_group_mixes_the_fast_path_and_the_loop():
    r = np.random.default_rng(3)
    y = r.integers(0, 4, 400)
    s = r.dirichlet(np.ones(4), 400)
    g = r.integers(0, 9, 400)
    rep = perfeval.evaluate(y, s, groups=g, classes=[0, 1, 2, 3], measures=["ROC_OVR", "ROC_OVO", "ACC_MC"])
    for i, key in enumerate(rep.groups):
        alone = perfeval.evaluate(
            y[g == key], s[g == key], classes=[0, 1, 2, 3], measures=["ROC_OVR", "ROC_OVO"]
        )
        for label in ("ROC_OVR:average=macro", "ROC_OVO:average=macro"):
            assert rep.results[label].per_group[i] == alone.results[label].value


@given(
    st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=50),
    st.sampled_from(["int64", "int32", "uint8"]),
)
def test_integer_targets_are_coded_as_by_np_unique(values, dtype):
    from perfeval.engine.door import class_codes

    info = np.iinfo(dtype)
    y = np.array([min(max(v, info.min), info.max) for v in values], dtype=dtype)
    classes = tuple(np.unique(y).tolist()[::-1])  # another order than sorted
    codes = class_codes(y, classes)
    assert [classes[c] for c in codes.tolist()] == y.tolist()
