"""The compiled kernels of rankings and judgments against the numpy they replace: the tie table
(bit for bit ``np.add.reduceat``), the merge of two sorted id vocabularies (``np.searchsorted``) and
the join of a run with its judgments (a dict lookup per row).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import _native as K
from perfeval.summaries.ranking import RankingData, TieTable, group_codes, query_order


def _numpy_table(codes, score, rel, judged, pooled):
    """The tie table as it was built with numpy before the kernel: sorted copies and reduceat."""
    keys, c = group_codes(codes)
    order = query_order(c, score, len(keys))
    c, s, r = c[order], score[order], rel[order]
    n = len(c)
    starts = np.searchsorted(c, np.arange(len(keys) + 1))
    new = np.ones(n, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (s[1:] != s[:-1])
    ts = np.append(np.flatnonzero(new), n)
    pos = np.arange(n) - np.repeat(starts[:-1], np.diff(starts))

    def seg(v):
        return np.add.reduceat(np.asarray(v, dtype=np.float64), ts[:-1])

    return {
        "query": c[ts[:-1]],
        "first": pos[ts[:-1]].astype(np.float64),
        "size": np.diff(ts).astype(np.float64),
        "rel": seg(r > 0),
        "gain": seg(np.exp2(r) - 1.0),
        "lin": seg(r),
        "judged": seg(judged[order]),
        "pooled": seg(pooled[order]),
        "sizes": np.diff(starts).astype(np.float64),
    }


def _rows(seed, n, queries, distinct, fractional, big_ties):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, queries, n)
    score = rng.integers(0, distinct, n).astype(np.float64) / 7
    if big_ties:  # ties of more than 8 and 128 rows: numpy's pairwise summation inside reduceat
        score[: n // 2] = 0.5
    rel = rng.integers(0, 5, n).astype(np.float64)
    if fractional:
        rel = np.where(rel > 0, rel + rng.random(n) * 3.3, 0.0)
    judged = rng.random(n) < 0.7
    pooled = judged | (rng.random(n) < 0.2)
    return codes, score, rel, judged, pooled


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 600),
    st.integers(1, 9),
    st.integers(1, 50),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_tie_table_is_bit_for_bit_the_numpy_table(seed, n, queries, distinct, fractional, big_ties, shuffled):
    codes, score, rel, judged, pooled = _rows(seed, n, queries, distinct, fractional, big_ties)
    keys, c = group_codes(codes)
    order = None if shuffled else query_order(c, score, len(keys))
    t = TieTable.from_rows(c, score, rel, keys, order=order, judged=judged, pooled=pooled)
    want = _numpy_table(codes, score, rel, judged.astype(float), pooled.astype(float))
    for name in ("query", "first", "size", "rel", "gain", "lin", "judged", "pooled", "sizes"):
        got = getattr(t, name)
        assert got.tobytes() == np.asarray(want[name], dtype=got.dtype).tobytes(), name


def test_tie_table_long_fractional_ties_need_pairwise_summation():
    """A tie of 300 fractional grades: a left-to-right sum differs from numpy's in the last bit,
    the kernel's does not."""
    rng = np.random.default_rng(5)
    rel = rng.random(300) * 3.7
    t = RankingData(rel, np.zeros(300)).ties()
    assert t.lin[0] == np.add.reduceat(rel, [0])[0]
    assert t.gain[0] == np.add.reduceat(np.exp2(rel) - 1.0, [0])[0]
    plain = 0.0
    for v in rel:
        plain += v
    assert plain != t.lin[0]  # the case is one where the order of the sum shows


def test_tie_table_refuses_what_it_cannot_read():
    one = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="outside"):
        K.tie_table(np.array([0, 1, 5]), one, np.zeros(3), np.zeros(3), None, None, None)
    with pytest.raises(ValueError, match="gain column"):
        K.tie_table(None, one, np.zeros(3), np.array([0.0, 1.5, 2.0]), None, None, None)
    with pytest.raises(ValueError, match="lengths"):
        K.tie_table(None, one, np.zeros(2), np.zeros(3), None, None, None)


def _map(a, b):
    from perfeval.trec import _map as vocab_map

    return vocab_map(a, b)


@settings(max_examples=80, deadline=None)
@given(
    st.sets(st.text(min_size=1, max_size=12), max_size=40),
    st.sets(st.text(min_size=1, max_size=20), max_size=40),
)
def test_vocab_map_is_searchsorted(a, b):
    a = np.unique(np.array(sorted(a) or [], dtype=str))
    b = np.unique(np.array(sorted(b) or [], dtype=str))
    got = _map(a, b)
    want = [int(np.searchsorted(b, x)) if x in set(b.tolist()) else -1 for x in a.tolist()]
    assert got.tolist() == want


def test_vocab_map_refuses_an_unsorted_vocabulary():
    a, b = np.array(["b", "a"]), np.array(["a", "b"])
    with pytest.raises(ValueError, match="not sorted"):
        K.vocab_map(a.view(np.uint32), 1, b.view(np.uint32), 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 400))
def test_trec_join_finds_each_judgment(seed, n):
    from perfeval.io.trec import Qrels, Run
    from perfeval.trec import _join

    rng = np.random.default_rng(seed)
    jq = rng.integers(0, 20, 300).astype(str)
    jd = np.char.add("d", rng.integers(0, 60, 300).astype(str))
    pairs = dict(
        zip(zip(jq.tolist(), jd.tolist(), strict=True), rng.integers(-1, 4, 300).tolist(), strict=False)
    )
    rows = list(pairs)
    rng.shuffle(rows)  # judgments in no order
    qrels = Qrels([q for q, _ in rows], [d for _, d in rows], np.array([pairs[r] for r in rows], float))
    rq = rng.integers(0, 25, n).astype(str)
    rd = np.char.add("d", rng.integers(0, 80, n).astype(str))
    seen = {}
    for i, key in enumerate(zip(rq.tolist(), rd.tolist(), strict=True)):
        seen.setdefault(key, i)
    keep = sorted(seen.values())
    run = Run(rq[keep], rd[keep], rng.random(len(keep)), None, np.arange(len(keep)))
    j = _join(qrels, run)
    for i, key in enumerate(zip(run.qid.tolist(), run.docid.tolist(), strict=True)):
        rel = pairs.get(key)
        assert j.pooled[i] == (rel is not None)
        assert j.judged[i] == (rel is not None and rel >= 0)
        assert j.rel[i] == (max(rel, 0) if rel is not None else 0.0)
        want_q = int(np.searchsorted(qrels.qvocab, key[0])) if key[0] in set(qrels.qvocab.tolist()) else -1
        assert j.rq[i] == want_q
    got = {
        (str(qrels.qvocab[q]), str(qrels.dvocab[d]))
        for q, d, hit in zip(j.jquery, qrels.by_pair[1], j.retrieved, strict=True)
        if hit
    }
    assert got == {k for k in zip(run.qid.tolist(), run.docid.tolist(), strict=True) if k in pairs}


def test_trec_join_refuses_codes_out_of_range():
    z = np.zeros(2, dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        K.trec_join(np.array([0, 3]), z, np.array([0]), np.array([0]), np.array([0, 1]), np.array([0]))


# -- issue 17: grouping and ordering the rows without sorting all of them ------------------------------


@settings(deadline=None)
@given(
    st.lists(
        st.integers(-(2**63), 2**63 - 1) | st.integers(-5, 5) | st.sampled_from([10**12, 2**62, -(2**63)]),
        max_size=300,
    )
)
def test_int64_ids_are_coded_as_np_unique_codes_them(ids):
    g = np.array(ids, dtype=np.int64)
    keys, codes = (np.frombuffer(b, np.int64) for b in K.group_codes_int64(g))
    want_keys, want_codes = np.unique(g, return_inverse=True)
    assert np.array_equal(keys, want_keys) and np.array_equal(codes, want_codes.ravel())
    k2, c2 = group_codes(g)  # and the public door takes that path for 64-bit ids
    assert np.array_equal(k2, want_keys) and np.array_equal(c2, want_codes.ravel())


@pytest.mark.parametrize("n, q", [(0, 0), (1, 1), (500, 7), (200_000, 3000), (150_000, 1)])
def test_query_order_sorts_by_query_then_descending_score(n, q):
    """Counted into queries and each sorted on its own (two threads past 100,000 rows): the rows by
    query, then descending score, every row once, ties in one run."""
    rng = np.random.default_rng(n + q)
    codes = rng.integers(0, max(q, 1), n).astype(np.int64)
    score = np.round(rng.normal(size=n), 2)
    score[rng.random(n) < 0.02] = -0.0
    order = np.frombuffer(K.query_order(codes, score, max(q, 1)), np.int64)
    assert np.array_equal(np.sort(order), np.arange(n))
    c, s = codes[order], score[order]
    assert (np.diff(c) >= 0).all()
    same = c[1:] == c[:-1]
    assert (s[1:][same] <= s[:-1][same]).all()
    want = np.lexsort((-score, codes))
    assert np.array_equal(c, codes[want]) and np.array_equal(s, score[want])
    with pytest.raises(ValueError, match="outside"):
        K.query_order(np.array([0, 5], np.int64), np.zeros(2), 3)


@settings(deadline=None)
@given(st.integers(0, 3000), st.integers(1, 60), st.integers(0, 3), st.integers(0, 2**31))
def test_group_auc_from_the_rows_is_the_tie_tables_bit_for_bit(n, groups, decimals, seed):
    """GAUC from the rows (each group sorted on its own, no tie table) equals GAUC from the tie
    table to the bit: ties, graded relevance (> 0 relevant), groups of one class, 64-bit ids."""
    from perfeval.measures.query import group_auc

    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, n).astype(np.int64) * 7919 + 10**12
    rel = np.where(rng.random(n) < 0.3, rng.integers(1, 4, n), 0).astype(np.float64)
    score = np.round(rng.normal(size=n), decimals)
    rd = RankingData(rel, score, g)
    got_auc, got_sizes = group_auc(rd)
    want_auc, want_sizes = group_auc(rd.ties())
    assert np.array_equal(got_auc, want_auc, equal_nan=True)
    assert np.array_equal(got_sizes, want_sizes)


def _numpy_histograms(codes, score, positive, G):
    """Every group's summary as numpy made it before group_hist_rows: the rows sorted by (group,
    score) and each run summed with reduceat."""
    order = np.lexsort((score, codes))
    c, sc, yy = codes[order], score[order] + 0.0, positive[order].astype(np.float64)
    new = np.ones(len(sc), dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
    starts = np.flatnonzero(new)
    pos = np.add.reduceat(yy, starts) if len(starts) else np.zeros(0)
    neg = np.add.reduceat(1 - yy, starts) if len(starts) else np.zeros(0)
    return sc[starts], pos, neg, np.searchsorted(c[starts], np.arange(G + 1))


def _group_rows(n, groups, decimals, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, groups, n).astype(np.int64)
    score = np.round(rng.normal(size=n), decimals)
    score[rng.random(n) < 0.05] = -0.0  # -0.0 and 0.0: one score
    score[rng.random(n) < 0.05] = 0.0
    positive = rng.random(n) < 0.3
    return codes, score, positive


def _bits(a):
    return np.asarray(a, np.float64).view(np.uint64)


@settings(deadline=None)
@given(st.integers(0, 3000), st.integers(1, 60), st.integers(0, 3), st.integers(0, 2**31))
def test_group_histograms_from_the_rows_are_numpys_bit_for_bit(n, groups, decimals, seed):
    """group_hist_rows (each group's rows sorted on their own) against the sorted rows' reduceat:
    the same scores (-0.0 read as 0.0), counts and bounds, whatever the order of the rows."""
    codes, score, positive = _group_rows(n, groups, decimals, seed)
    want = _numpy_histograms(codes, score, positive, groups)
    got = K.group_hist_rows(codes, score, positive.view(np.uint8), groups)
    for g, w in zip(got[:3], want[:3], strict=True):
        assert np.array_equal(_bits(np.frombuffer(g, np.float64)), _bits(w))
    assert np.array_equal(np.frombuffer(got[3], np.int64), want[3])
    with pytest.raises(ValueError, match="outside"):
        K.group_hist_rows(np.array([0, 5], np.int64), np.zeros(2), np.zeros(2, np.uint8), 3)


@settings(deadline=None)
@given(st.integers(1, 3000), st.integers(1, 60), st.integers(0, 3), st.integers(0, 2**31))
def test_tie_table_and_auc_from_group_histograms_are_numpys_bit_for_bit(n, groups, decimals, seed):
    """hist_tie_groups against TieTable.from_histograms's numpy expressions, hist_auc_groups against
    group_auc over that table."""
    from perfeval.measures.query import group_auc

    codes, score, positive = _group_rows(n, groups, decimals, seed)
    _keys, codes = np.unique(codes, return_inverse=True)  # every group has rows, as the engine's
    groups = int(codes.max()) + 1
    _sc, pos, neg, bounds = _numpy_histograms(codes, score, positive, groups)
    cells = np.diff(bounds)
    grp = np.repeat(np.arange(groups, dtype=np.int64), cells)
    rev = bounds[grp] + bounds[grp + 1] - 1 - np.arange(len(grp))
    rel, size = pos[rev], (pos + neg)[rev]
    c = np.cumsum(size)
    base = (c - size)[bounds[:-1][cells > 0]]
    first = c - size - np.repeat(base, cells[cells > 0])
    t = TieTable.from_histograms(pos, neg, bounds)
    assert np.array_equal(t.query, grp)
    for got, want in ((t.size, size), (t.first, first), (t.rel, rel)):
        assert np.array_equal(_bits(got), _bits(want))
    assert np.array_equal(_bits(t.sizes), _bits(np.bincount(grp, weights=size, minlength=groups)))
    wins, P, N = (np.frombuffer(b, np.float64) for b in K.hist_auc_groups(pos, neg, bounds))
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(P * N > 0, wins / np.where(P * N > 0, P * N, 1.0), np.nan)
    assert np.array_equal(auc, group_auc(t)[0], equal_nan=True)
    with pytest.raises(ValueError, match="bounds"):
        K.hist_auc_groups(pos, neg, np.array([0, len(pos) + 1], np.int64))


# -- the per-group measures as numpy made them before their compiled passes (hist_groups) ----------
def _old_hist_sum(gd, term):
    sc, pos, neg, bounds = gd._hist
    codes = np.repeat(np.arange(gd.G), np.diff(bounds))
    return np.bincount(codes, weights=term(sc, pos, neg), minlength=gd.G)


def _old_group_sizes(gd):
    return _old_hist_sum(gd, lambda s, p, q: p + q)


def _old_brier_groups(gd):
    from perfeval.measures._formulas import div

    return div(_old_hist_sum(gd, lambda s, p, q: p * (1 - s) ** 2 + q * s**2), _old_group_sizes(gd))


def _old_slq_groups(gd, *, bins):
    if gd.weighted:
        return None
    from perfeval.measures._formulas import div
    from perfeval.measures.probability import slq_bins

    B = int(bins)
    sc, pos, neg, bounds = gd._hist
    grp = np.repeat(np.arange(gd.G), np.diff(bounds))
    outside = np.bincount(grp, weights=((sc < 0) | (sc > 1)).astype(np.float64), minlength=gd.G) > 0
    cell = grp * B + slq_bins(np.clip(sc, 0, 1), B)
    x = np.bincount(cell, weights=pos, minlength=gd.G * B).reshape(gd.G, B)
    tot = np.bincount(cell, weights=pos + neg, minlength=gd.G * B).reshape(gd.G, B)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(tot > 0, np.minimum(x, tot - x) / np.where(tot > 0, tot, 1.0), 0.0)
    v = div((tot * (1 - 2 * w) ** 2).sum(axis=1), tot.sum(axis=1))
    return np.where(outside, np.nan, v)


def _old_ca1_groups(gd):
    if gd.weighted:
        return None
    sc, pos, neg, bounds = gd._hist
    grp = np.repeat(np.arange(gd.G), np.diff(bounds))
    n = pos + neg
    total = np.zeros(gd.G)
    for i in range(19):
        m = (sc >= i / 20) & (sc <= (i + 2) / 20)
        k = np.bincount(grp, weights=n * m, minlength=gd.G)
        p = np.bincount(grp, weights=pos * m, minlength=gd.G)
        sp = np.bincount(grp, weights=sc * n * m, minlength=gd.G)
        with np.errstate(invalid="ignore", divide="ignore"):
            total += np.where(k > 0, np.abs(p / np.where(k > 0, k, 1) - sp / np.where(k > 0, k, 1)), 0.0)
    return total / 19


def _old_ca2_groups(gd, *, window):
    if gd.weighted:
        return None
    sc, pos, neg, bounds = gd._hist
    out = np.empty(gd.G)
    for k in range(gd.G):
        a, b = bounds[k], bounds[k + 1]
        n = pos[a:b].sum() + neg[a:b].sum()
        out[k] = np.nan if n < window else K.hist_ca2(sc[a:b], pos[a:b], neg[a:b], int(window))
    return out


def _old_roc_groups(gd):
    from perfeval.measures._data import tie_table
    from perfeval.measures.query import group_auc

    t = tie_table(gd)
    return None if t is None else group_auc(t)[0]


def _old_top1_groups(gd):
    from perfeval.measures._data import tie_table

    t = tie_table(gd)
    if t is None:
        return None
    top = t.first == 0
    v = np.zeros(t.n_queries)
    v[t.query[top]] = ((t.rel[top] == t.size[top]) & (t.rel[top] > 0)).astype(np.float64)
    return v


def _old_top10_groups(gd):
    from perfeval.measures._data import tie_table

    t = tie_table(gd)
    if t is None:
        return None
    hit = (t.rel > 0) & (t.first + (t.size - t.rel) < 10)
    return (np.bincount(t.query[hit], minlength=t.n_queries) > 0).astype(np.float64)


def _old_rkl_groups(gd):
    from perfeval.measures._data import tie_table

    t = tie_table(gd)
    if t is None:
        return None
    P = np.bincount(t.query, weights=t.rel, minlength=t.n_queries)
    last = np.zeros(t.n_queries)
    has = t.rel > 0
    np.maximum.at(last, t.query[has], t.end[has])
    return np.where((P == 0) | (P == t.sizes), t.sizes, last)


def _old_top_share(t, k):
    overlap = np.clip(np.minimum(t.end, k[t.query]) - t.first, 0.0, None)
    return np.bincount(t.query, weights=t.rel / t.size * overlap, minlength=t.n_queries)


def _old_prb_groups(gd):
    from perfeval.measures._data import tie_table
    from perfeval.measures._formulas import div

    t = tie_table(gd)
    if t is None:
        return None
    P = np.bincount(t.query, weights=t.rel, minlength=t.n_queries)
    return div(_old_top_share(t, P), P)


def _old_ntop_groups(gd, *, n):
    from perfeval.measures._data import tie_table

    t = tie_table(gd)
    if t is None:
        return None
    return _old_top_share(t, np.full(t.n_queries, float(n))) / n


def _old_r50_groups(gd, *, negatives):
    from perfeval.measures._data import tie_table
    from perfeval.measures._formulas import div
    from perfeval.measures.query import within_query_cumsum

    t = tie_table(gd)
    if t is None:
        return None
    m, q = t.rel, t.query
    neg = t.size - m
    P = np.bincount(q, weights=m, minlength=t.n_queries)
    N = np.bincount(q, weights=neg, minlength=t.n_queries)
    tp_above = within_query_cumsum(t, m) - m
    fp_above = within_query_cumsum(t, neg) - neg
    limit = np.minimum(float(negatives), N)
    take = np.clip(limit[q] - fp_above, 0.0, neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(neg > 0, m / np.where(neg > 0, neg, 1.0), 0.0)
    area = np.bincount(q, weights=take * tp_above + 0.5 * slope * take * take, minlength=t.n_queries)
    return np.where((P > 0) & (N > 0), div(area, limit * P), np.nan)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 2000),
    st.integers(1, 40),
    st.integers(0, 3),
    st.integers(0, 2**31),
    st.sampled_from([0.5, 0.3, 0.0, 1.0]),
    st.booleans(),
)
def test_per_group_measures_are_the_numpy_forms_bit_for_bit(n, groups, decimals, seed, threshold, weighted):
    """Every per-group kernel of the registry's binary measures as the engine runs it now (unweighted
    rows as given: histograms compiled from them, threshold counts and the PERF measures' parts in
    one compiled pass each, hist_groups) against the numpy forms they replace over the rows sorted
    by (group, score, target[, weight]) with numpy's histograms and row-order counts, bit for bit;
    weighted rows too (the measures that take weights)."""
    from unittest import mock

    from perfeval.engine import resolve
    from perfeval.measures import _data, list_measures, probability, rank

    codes, score, positive = _group_rows(n, groups, decimals, seed)
    _keys, codes = np.unique(codes, return_inverse=True)  # every group has rows, as the engine's
    groups = int(codes.max()) + 1
    score = np.clip(np.abs(score) / 3, 0, 1.2)  # mostly in [0, 1] (CA1, SLQ), a few above
    y = positive.astype(np.float64)
    w = np.random.default_rng(seed).integers(0, 4, n) * 0.75 if weighted else None
    new = _data.GroupedData.from_rows(codes, y, score, w, groups)
    canon = np.lexsort((y, score, codes) if w is None else (w, y, score, codes))
    old = _data.GroupedData(codes[canon], y[canon], score[canon], None if w is None else w[canon], groups)
    if w is None:
        old._hist = _numpy_histograms(codes, score, positive, groups)
    else:  # numpy's reduceat over the canonical rows, as before
        c, sc, yy, ww = old.codes, old.s + 0.0, old.y, old.w
        first = np.ones(len(sc), dtype=bool)
        first[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
        starts = np.flatnonzero(first)
        old._hist = (
            sc[starts],
            np.add.reduceat(ww * yy, starts),
            np.add.reduceat(ww * (1 - yy), starts),
            np.searchsorted(c[starts], np.arange(groups + 1)),
        )

    def row_counts(threshold):
        pred = old.s >= threshold
        wp, wn = old.w * old.y, old.w * (1.0 - old.y)
        tp, fp = old.sum(wp * pred), old.sum(wn * pred)
        P, N = old.sum(wp), old.sum(wn)
        return tp, P - tp, fp, N - fp

    old.counts = row_counts
    olds = {
        "roc_groups": _old_roc_groups,
        "prb_groups": _old_prb_groups,
        "ntop_groups": _old_ntop_groups,
        "r50_groups": _old_r50_groups,
        "slq_groups": _old_slq_groups,
        "ca1_groups": _old_ca1_groups,
        "ca2_groups": _old_ca2_groups,
        "brier_groups": _old_brier_groups,
        "top1_groups": _old_top1_groups,
        "top10_groups": _old_top10_groups,
        "rkl_groups": _old_rkl_groups,
    }
    patches = [
        mock.patch.object(probability, "group_sizes", _old_group_sizes),
        mock.patch.object(probability, "hist_sum", _old_hist_sum),
        mock.patch.object(probability, "brier_groups", _old_brier_groups),
        mock.patch.object(rank, "roc_groups", _old_roc_groups),
    ]
    compared = 0
    for s in resolve([m.name for m in list_measures() if m.kind == "binary"], threshold):
        fast = s.measure.per_group_function()
        if fast is None:
            continue
        kwargs = dict(s.kwargs)
        if "window" in kwargs:
            kwargs["window"] = 1 + seed % 7  # windows that fit the small groups too
        with np.errstate(all="ignore"):
            got = fast(new, **kwargs)
            for p in patches:
                p.start()
            try:
                want = olds.get(fast.__name__, fast)(old, **kwargs)
            finally:
                for p in patches:
                    p.stop()
        assert (got is None) == (want is None), s.label
        if got is not None:
            assert np.array_equal(_bits(got), _bits(want)), s.label
            compared += 1
    assert compared >= (12 if weighted else 30)


def test_group_rows_kernels_refuse_codes_outside_and_unequal_lengths():
    from perfeval import _native

    for kernel in (_native.group_auc_rows, _native.group_hist_rows):
        with pytest.raises(ValueError, match=r"a group code outside \[0, G\)"):
            kernel(np.array([0, 5]), np.zeros(2), np.zeros(2, np.uint8), 2)
        with pytest.raises(ValueError, match="differ in length, or G < 0"):
            kernel(np.array([0]), np.zeros(2), np.zeros(2, np.uint8), 2)
