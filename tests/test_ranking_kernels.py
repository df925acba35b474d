"""The compiled kernels of rankings and judgments against the numpy they replace: the tie table
(bit for bit ``np.add.reduceat``), the merge of two sorted id vocabularies (``np.searchsorted``) and
the join of a run with its judgments (a dict lookup per row).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import _x87 as K
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
