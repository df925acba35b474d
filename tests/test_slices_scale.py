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

import perfeval
from perfeval import _native
from perfeval.api.slices import _taken_in, request
from perfeval.engine.door import Targets
from perfeval.engine.slices import Task, _classes_weight, intersect
from perfeval.measures import parse_measure
from perfeval.measures._data import GroupedData
from perfeval.measures.rank import _ap_numpy, ap, ap_groups
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
            want[g] = _ap_numpy(ScoreHistogram(sc[a:b], pos[a:b], neg[a:b]))
    assert all(np.array_equal(x, z) for x, z in zip(_bits(got), _bits(want), strict=True))
    with pytest.raises(ValueError, match="ascending cell offsets"):
        _native.hist_ap_groups(pos, neg, np.array([0, len(pos) + 1], dtype=np.int64))


@pytest.mark.parametrize("seed", range(8))
def test_the_ap_of_a_summary_of_counts_in_one_pass_is_numpys(seed):
    """AP of one summary of whole counts (the overall AP: csrc/slices.c hist_ap_groups, the summary
    as one group) has the bits of the numpy form (cumsums, precisions, np.sum's pairwise sum), up
    to a summary of a million distinct scores; a weighted summary keeps the numpy form."""
    rng = np.random.default_rng(seed)
    n = [1, 2, 7, 129, 5000, 70_000, 1_000_000, 3000][seed]
    y = rng.random(n) < rng.random()
    s = np.round(rng.random(n), int(rng.integers(0, 7)))
    order = np.argsort(s, kind="stable")
    sc, first = np.unique(s[order], return_index=True)
    pos = np.add.reduceat(y[order].astype(np.float64), first) if n else np.zeros(0)
    neg = np.add.reduceat(1.0 - y[order], first) if n else np.zeros(0)
    h = ScoreHistogram(sc, pos, neg)
    got, want = ap(h), _ap_numpy(ScoreHistogram(sc, pos, neg))
    assert (
        h.is_counts()
        and np.array_equal(_bits([got])[0], _bits([want])[0])
        and np.isnan(got) == np.isnan(want)
    )
    if seed == 7:
        w = ScoreHistogram(sc, pos * 0.3, neg * 0.7)  # weighted: not whole counts
        assert not w.is_counts() and ap(w) == _ap_numpy(ScoreHistogram(sc, pos * 0.3, neg * 0.7))


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
    assert got.dtype.itemsize == (1 if keys <= 127 else 2 if keys <= 32767 else 4)
    assert np.array_equal(got, codes[order])


@pytest.mark.parametrize("seed", range(8))
def test_slicings_made_from_the_combinations_are_the_engines_intersections(seed, monkeypatch):
    """Each slicing made from the combinations of every slice column (SliceRequest.slicings: the
    keys and the rows' codes made on demand) is the engine's intersection of its columns over the
    rows, in any order of the columns, in the order given or another, a missing value a slice."""
    import perfeval.api.slices as api
    from perfeval.engine.slices import code_column

    if seed >= 6:  # the intersections made column after column (a span past 2**62)
        monkeypatch.setattr(api, "RADIX_SPAN", 0)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000)) if seed else 0
    cols = {
        "a": rng.integers(0, 3, n),
        "b": rng.choice(np.array(["x", "y", "z", "w"], dtype=object), n),
        "c": rng.integers(-5, 5, n) * 10**12,
        "d": rng.random(n) < 0.5,
    }
    if seed % 2 and n:
        cols["b"][rng.random(n) < 0.1] = None
    req = request(
        {**cols},
        None,
        intersections=True,
        missing="slice",
    )
    req.wanted += [("d", "a"), ("c", "b", "a")]  # intersections named in another order of columns
    order = rng.permutation(n) if seed % 3 else None
    coded = {c: code_column(c, v, missing="slice") for c, v in cols.items()}
    seen = 0
    for sl in req.slicings(n, order):
        keys, codes = (
            intersect([coded[c] for c in sl.columns]) if len(sl.columns) > 1 else coded[sl.columns[0]]
        )
        got_keys, got = sl.coded()
        assert got_keys == list(keys) and sl.keys == list(keys) and len(sl) == len(keys)
        assert got.dtype == np.int64 and np.array_equal(got, codes if order is None else codes[order])
        assert np.array_equal(sl.codes, got)  # made again when read again: the same codes
        seen += 1
    assert seen == 15 + 2


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
    but for one (near the end: the walk given up, the rows sorted; near the start: the probe before
    the walk says no order)."""
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
    if seed % 4 == 3:  # one row out of order at the end (past the probe of the first 65,536 rows)
        s_o = s_o.copy()
        s_o[-1] = s_o[0] - 1.0 if seed % 8 == 3 else s_o[-1]
        codes_o[-1] = codes_o[0]
    elif seed % 4 == 1:  # one row out of order near the start (the probe says no order: sorted)
        s_o = s_o.copy()
        s_o[1] = s_o[0] - 1.0
        codes_o[1] = codes_o[0]
    p = rng.permutation(n)
    got = _native.group_hist_rows(codes_o, s_o, flag_o, G)
    want = _native.group_hist_rows(codes_o[p], s_o[p], flag_o[p], G)
    for x, z in zip(got, want, strict=True):
        assert np.array_equal(np.frombuffer(x, np.int64), np.frombuffer(z, np.int64))


BINARY = [
    "ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT", "SAR", "CST", "PRB", "APR", "ROC",
    "R50", "RKL", "TOP1", "TOP10", "NTOP", "SLQ", "CXE", "NRM", "RMS", "CA1", "CA2", "ERR", "FPR", "FNR",
    "FBETA", "LOGLOSS", "BRIER", "AP", "TPR_AT_FPR", "SEN_AT_SPC", "SPC_AT_SEN", "PRE_AT_REC",
    "REC_AT_PRE", "PAUC", "YOUDEN", "TOPLEFT", "BEST_FBETA", "BEST_MCC", "LEAST_COST", "ECE", "MCE",
    "BRIER_MCB", "BRIER_DSC", "BRIER_UNC", "CAL_SLOPE", "CAL_INTERCEPT", "SELRATE",
]  # fmt: skip


def _frame_bits(r):
    f = r.slices.frame()
    out = {}
    for c in f.columns:
        col = f[c]
        if col.dtype.kind == "f":
            out[c] = _bits(col.to_numpy())
        else:
            out[c] = col.tolist()
    return list(f.index), out


@pytest.mark.parametrize("seed", range(10))
def test_slices_counted_from_the_combinations_are_counted_from_the_rows(seed, monkeypatch):
    """Each slicing's rows, positives and negatives added up from the combinations of the slice
    columns (combination_counts, slice_counts: a pass over the combinations) are finish_slicing's
    own counts from the rows, and so is everything else of every slice, bit for bit: every binary
    measure, per-query measures with queries, a positive label, ties, -0.0 beside 0.0, one-class
    slices, a slice of one row, one slicing or several (the rows in score order or as given)."""
    import perfeval.engine.slice_report as report

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 4000))
    y = (rng.random(n) < rng.random() * 0.6).astype(np.int64)
    s = np.round(rng.random(n), int(rng.integers(0, 4)))
    s[rng.random(n) < 0.05] = -0.0
    by = {
        "a": rng.integers(0, 4, n),
        "b": rng.choice(np.array(["u", "v", "w"]), n),
        "c": rng.integers(0, 9, n),
    }
    y[by["a"] == 3] = 1  # a slice of positives only (one class)
    by["c"][0] = 99  # a slice of one row
    kw: dict = {"by": by, "intersections": seed % 5 != 4}
    if seed % 5 == 4:
        kw["by"] = {"a": by["a"]}  # one slicing: the rows as given
    if seed < 6:
        kw["measures"] = list(dict.fromkeys(BINARY[seed % 3 :: 3] + ["ROC", "AP"]))
    elif seed < 8:
        kw["measures"] = ["ndcg@5", "map", "gauc", "roc"]
        kw["groups"] = rng.integers(0, 40, n)
    else:
        y = np.where(y == 1, 7, 3)
        kw["measures"] = ["roc", "ap", "acc"]
        kw["pos_label"] = 7
    counted: list[bool] = []
    real = report.combination_counts
    monkeypatch.setattr(report, "combination_counts", lambda *a: counted.append(True) or real(*a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = perfeval.evaluate(y, s, **kw)
        assert counted == [True]
        monkeypatch.setattr(report, "combination_counts", lambda *a: None)
        alone = perfeval.evaluate(y, s, **kw)
    fi, fb = _frame_bits(fast)
    ai, ab = _frame_bits(alone)
    assert fi == ai and fb.keys() == ab.keys()
    for c in fb:
        if isinstance(fb[c], tuple):
            assert all(np.array_equal(x, z) for x, z in zip(fb[c], ab[c], strict=True)), c
        else:
            assert fb[c] == ab[c], c
    if seed < 6:
        assert fast.slices.frame().loc[("a", 3), "why_ROC"].startswith("undefined in this slice")


@pytest.mark.parametrize("seed", range(6))
def test_the_rows_in_score_order_are_a_stable_sort_of_the_scores_bits(seed):
    """csrc/weighted.c score_order (the slices' one sort): the rows sorted stably by the scores'
    bits in their ascending order (-0.0 just before 0.0), and the scores in that order bit for bit."""
    rng = np.random.default_rng(seed)
    n = [0, 1, 7, 5000, 70_000, 300_000][seed]
    s = np.round(rng.normal(size=n), int(rng.integers(0, 5)))
    s[rng.random(n) < 0.05] = -0.0
    s[rng.random(n) < 0.01] = np.inf
    if seed == 3:
        s[:] = 0.25  # one score: every digit alike, no pass made
    bits = s.view(np.uint64)
    key = np.where(bits >> np.uint64(63), ~bits, bits | np.uint64(1 << 63))
    want = np.argsort(key, kind="stable")
    rows, ordered = _native.score_order(s)
    got = np.frombuffer(rows, np.uint32)
    assert np.array_equal(got, want)
    assert np.array_equal(np.frombuffer(ordered, np.float64).view(np.uint64), bits[want])
    with pytest.raises(ValueError, match="NaN"):
        _native.score_order(np.array([0.5, np.nan]))


def test_the_slicings_of_many_columns_take_memory_of_the_rows_not_of_rows_times_slicings():
    """Every intersection of 7 columns (127 slicings) holds no code a row a slicing: each slicing's
    codes are made when it is finished and dropped after (SliceRequest.slicings, Slicing.coded), so
    the peak of the arrays allocated (tracemalloc) grows with the rows by tens of bytes a row, not by
    8 bytes a row a slicing (127 x 8 = 1,016 bytes a row when the codes were all made first)."""
    import tracemalloc

    def peak(n: int) -> int:
        rng = np.random.default_rng(n)
        y = (rng.random(n) < 0.3).astype(np.int64)
        s = np.round(rng.random(n), 3)
        by = {f"c{k}": rng.integers(0, 2, n) for k in range(7)}
        tracemalloc.start()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = perfeval.evaluate(y, s, measures=["roc"], by=by, intersections=True)
            top = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(r.slices) == 127
        return top

    a, b = peak(10_000), peak(30_000)
    assert (b - a) / 20_000 < 200  # bytes a row (about 40 here)
