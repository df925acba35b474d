"""The slices' speed work keeps every bit (issue 34; benchmarks/README.md): AP per group in one
compiled pass (csrc/slices.c hist_ap_groups) is the scalar AP of each group alone, numpy's pairwise
sum included; the slices' positives and negatives counted apart are the weighted count's; a
column's codes taken in score order as narrow integers are the codes; each intersection made from
the one before is the engine's intersection.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from perfeval import _native
from perfeval.api.slices import _joined, _taken_in
from perfeval.engine.door import Targets
from perfeval.engine.slices import Task, _classes_weight, intersect
from perfeval.measures import parse_measure
from perfeval.measures._data import GroupedData
from perfeval.measures.rank import ap, ap_groups
from perfeval.summaries import ScoreHistogram


def _bits(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    return np.where(np.isnan(a), 0, a).view(np.int64), np.isnan(a)


@pytest.mark.parametrize("seed", range(12))
def test_ap_per_group_in_one_pass_is_each_group_alone(seed):
    rng = np.random.default_rng(seed)
    big = seed % 3 == 0  # groups of tens of thousands of cells: numpy's pairwise sum splits them
    n = int(rng.integers(50_000, 200_000)) if big else int(rng.integers(1, 4000))
    G = int(rng.integers(1, 6 if big else 40))
    codes = rng.integers(0, G, n)
    s = np.round(rng.random(n), int(rng.integers(0, 7)))
    y = (rng.random(n) < rng.random() * 0.5).astype(np.float64)
    if seed % 4 == 1:
        y[codes == 0] = 0.0  # a group without a positive: NaN
    gd = GroupedData(codes, y, s, None, G + (seed % 5 == 2))  # (and a group without a row)
    got = ap_groups(gd)
    sc, pos, neg, bounds = gd._hist
    want = np.full(gd.G, np.nan)
    for g in range(gd.G):
        a, b = int(bounds[g]), int(bounds[g + 1])
        if b > a:
            want[g] = ap(ScoreHistogram(sc[a:b], pos[a:b], neg[a:b]))
    assert all(np.array_equal(x, z) for x, z in zip(_bits(got), _bits(want), strict=True))
    with pytest.raises(ValueError, match="ascending cell offsets"):
        _native.hist_ap_groups(pos, neg, np.array([0, len(pos) + 1], dtype=np.int64))


def test_the_slices_positives_counted_apart_are_the_weighted_counts():
    rng = np.random.default_rng(1)
    n, k = 5000, 17
    codes = rng.integers(0, k, n)
    y = (rng.random(n) < 0.3).astype(float)
    task = Task("binary", (parse_measure("roc"),))
    pos, neg = _classes_weight(task, Targets(y), codes, None, k)
    both = np.bincount(codes * 2 + (y == 1), minlength=2 * k).astype(np.float64)
    assert np.array_equal(pos, both[1::2]) and np.array_equal(neg, both[0::2])
    assert pos.dtype == neg.dtype == np.float64


@pytest.mark.parametrize("keys", [1, 127, 128, 32767, 32768, 70000])
def test_codes_taken_narrow_are_the_codes(keys):
    rng = np.random.default_rng(keys)
    n = 100_000
    codes = rng.integers(0, keys, n)
    codes[:keys] = np.arange(keys)[: min(keys, n)]
    order = rng.permutation(n)
    got = _taken_in(codes, keys, order)
    assert got.dtype == np.int64 and np.array_equal(got, codes[order])


def test_intersections_made_from_the_one_before_are_the_engines():
    rng = np.random.default_rng(2)
    n = 3000
    coded = {c: (list(range(m)), rng.integers(0, m, n)) for c, m in (("a", 3), ("b", 7), ("c", 5), ("d", 2))}
    memo: dict = {}
    for w in [("a", "b"), ("a", "b", "c"), ("a", "c"), ("a", "b", "c", "d"), ("b", "c", "d")]:
        keys, codes = _joined(w, coded, memo)
        k2, c2 = intersect([coded[c] for c in w])
        assert keys == k2 and np.array_equal(codes, c2)


def _cells_reference(k, s, p, q):
    """Cells sorted by key then score, equal (key, score) added: numpy's lexsort."""
    if not len(k):
        return k, s, p, q
    o = np.lexsort((s, k))
    k, s, p, q = k[o], s[o] + 0.0, p[o], q[o]
    new = np.ones(len(k), dtype=bool)
    new[1:] = (k[1:] != k[:-1]) | (s[1:] != s[:-1])
    at = np.flatnonzero(new)
    return k[at], s[at], np.add.reduceat(p, at), np.add.reduceat(q, at)


@pytest.mark.parametrize("seed", range(20))
def test_cells_merged_by_key_are_the_sorted_sums(seed):
    """csrc/slices.c cells_hist (the backends' slices: each key's cells merged as the sorted runs
    they come in) gives numpy's sort-and-add, -0.0 as 0.0, a key without a cell empty."""
    rng = np.random.default_rng(seed)
    n, G = int(rng.integers(0, 20_000)), int(rng.integers(1, 60))
    k = rng.integers(0, G, n)
    s = np.round(rng.normal(size=n), int(rng.integers(0, 4)))
    s[rng.random(n) < 0.05] = -0.0
    p, q = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
    if seed % 2:  # runs sorted by score within each key, as summaries come
        chunks = np.sort(rng.integers(0, n + 1, 5))
        for a, b in zip([0, *chunks], [*chunks, n], strict=True):
            o = a + np.lexsort((s[a:b], k[a:b]))
            k[a:b], s[a:b], p[a:b], q[a:b] = k[o], s[o], p[o], q[o]
    sc, pos, neg, bounds = _native.cells_hist(k, s, p, q, G)
    bounds = np.frombuffer(bounds, np.int64)
    got = (np.repeat(np.arange(G), np.diff(bounds)), *(np.frombuffer(x, np.float64) for x in (sc, pos, neg)))
    want = _cells_reference(k, s, p, q)
    assert np.array_equal(got[0], want[0])
    for x, z in zip(got[1:], want[1:], strict=True):
        assert np.array_equal(x.view(np.int64), np.asarray(z, np.float64).view(np.int64))
    with pytest.raises(ValueError, match="a key outside"):
        _native.cells_hist(np.array([G]), np.zeros(1), np.ones(1), np.zeros(1), G)


@pytest.mark.parametrize("seed", range(16))
def test_the_summary_of_rows_in_score_order_is_the_summary_of_the_rows(seed):
    """ScoreHistogram.from_checked skips the sorts of classes that come in order (the slices' shared
    order): the summary of the rows sorted by score, ties in any order, -0.0 among 0.0, is the
    summary of the rows as given, bit for bit."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000)) if seed % 4 else 1_100_000  # and two threads' sorts
    s = np.round(rng.normal(size=n), int(rng.integers(0, 4)))
    s[rng.random(n) < 0.1] = -0.0
    y = rng.random(n) < (0.0 if seed == 5 else 0.3)
    o = rng.permutation(n)
    o = o[np.argsort(s[o], kind="stable")]  # in score order, the ties (and -0.0 with 0.0) shuffled
    got, want = ScoreHistogram.from_checked(y[o], s[o]), ScoreHistogram.from_checked(y, s)
    for x, z in zip((got.scores, got.pos, got.neg), (want.scores, want.pos, want.neg), strict=True):
        assert np.array_equal(x.view(np.int64), z.view(np.int64))


@pytest.mark.parametrize("seed", range(10))
def test_the_overall_values_with_slices_are_the_values_without(seed):
    """The overall values of an evaluation with several slicings (its rows put in score order once,
    for the overall summary and every slicing) are those of the same evaluation without ``by``, and
    each slice's are those of the slice's rows alone, bit for bit."""
    import perfeval

    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 4000))
    s = np.round(rng.random(n), int(rng.integers(1, 4))) if seed % 2 else rng.random(n)
    s[rng.random(n) < 0.05] = -0.0
    s[rng.random(n) < 0.05] = 0.0
    y = (rng.random(n) < 0.3).astype(np.int64)
    by = {"a": rng.integers(0, 3, n), "b": rng.integers(0, 5, n)}
    measures = ["roc", "ap", "apr", "acc", "rms", "cxe", "lift"]
    with warnings.catch_warnings():  # the undefined slices said: not what is tested here
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, measures=measures, by=by, intersections=True)
        alone = perfeval.evaluate(y, s, measures=measures)
        for label in alone.results:
            assert np.array_equal(_bits([r[label]])[0], _bits([alone[label]])[0]), label
        frame = r.slices.frame()
        for (slicing, key), row in frame.sample(min(len(frame), 8), random_state=seed).iterrows():
            cols = slicing.split(" x ")
            keys = key if isinstance(key, tuple) else (key,)
            rows = np.logical_and.reduce([by[c] == k for c, k in zip(cols, keys, strict=True)])
            one = perfeval.evaluate(y[rows], s[rows], measures=measures)
            # (RMS and CXE per slice differ from the slice alone in the last bit, in the order given
            # too: the grouped engine's sums, not the shared order; left out here)
            for label in (lab for lab in one.results if lab not in ("RMS", "CXE")):
                assert np.array_equal(_bits([row[label]])[0], _bits([one[label]])[0]), (slicing, key, label)


@pytest.mark.parametrize("seed", range(24))
def test_group_summaries_of_rows_in_score_order_are_the_sorted_ones(seed):
    """csrc/summary.c group_hist_rows on rows in score order (the slices' shared order: one pass,
    each group's cells written as its rows come) gives what it gives on the rows shuffled (each group
    sorted), bit for bit: ties, -0.0 among 0.0, empty groups, more groups than rows, and rows in order
    but for one (the walk given up, the rows sorted)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5000)) if seed % 6 else int(rng.integers(100_001, 300_000))
    G = int(rng.integers(1, 50)) if seed % 5 else n + int(rng.integers(0, 5))
    codes = rng.integers(0, G, n)
    s = np.round(rng.normal(size=n), int(rng.integers(0, 4)))
    s[rng.random(n) < 0.05] = -0.0
    s[rng.random(n) < 0.05] = 0.0
    flag = (rng.random(n) < 0.3).astype(np.uint8)
    o = np.argsort(s, kind="stable")
    codes_o, s_o, flag_o = codes[o], s[o], flag[o]
    if seed % 4 == 3:  # one row out of order at the end
        s_o = s_o.copy()
        s_o[-1] = s_o[0] - 1.0 if seed % 8 == 3 else s_o[-1]
        codes_o[-1] = codes_o[0]
    p = rng.permutation(n)
    got = _native.group_hist_rows(codes_o, s_o, flag_o, G)
    want = _native.group_hist_rows(codes_o[p], s_o[p], flag_o[p], G)
    for x, z in zip(got, want, strict=True):
        assert np.array_equal(np.frombuffer(x, np.int64), np.frombuffer(z, np.int64))
