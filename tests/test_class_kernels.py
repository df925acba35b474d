"""The multiclass summary's compiled kernels (csrc/classes.c) against their numpy references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import _native as K
from perfeval.summaries.classes import (
    ClassSummary,
    _blocks,
    _blocks_numpy,
    _histogram,
    _union,
)
from perfeval.summaries.histogram import ScoreHistogram


@st.composite
def class_data(draw, weighted=None):
    k = draw(st.integers(2, 7))
    n = draw(st.integers(0, 60))
    grid = draw(st.sampled_from([None, 2, 4]))  # a grid of few values: many ties
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    s = r.normal(size=(n, k)) if grid is None else r.integers(0, grid, size=(n, k)) / grid
    s[r.random((n, k)) < 0.1] = -0.0
    y = r.integers(0, draw(st.integers(1, k)), size=n).astype(np.intp)
    w = draw(st.booleans()) if weighted is None else weighted
    wt = r.choice([0.1, 0.7, 1.0, 2.3], size=n) * r.random(n) + 0.01 if w else None
    return y, s, wt, k


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _sequential_blocks(y, s, w, k):
    """The blocks with each cell's weights added in row order (a cell a row, then a sorted union)."""
    return _union([_blocks_numpy(y, s, w, k, aggregate=False)], k)


@given(class_data(weighted=False))
def test_class_blocks_unweighted_are_numpys_bit_for_bit(d):
    y, s, w, k = d
    for got, want in zip(
        _blocks(y, s, w, k, aggregate=True), _blocks_numpy(y, s, w, k, aggregate=True), strict=True
    ):
        assert _bits(got) == _bits(want)


@given(class_data())
def test_class_blocks_add_a_cells_weights_in_row_order(d):
    y, s, w, k = d
    got = _blocks(y, s, w, k, aggregate=True)
    if not len(y):
        return
    want = _sequential_blocks(y, s, w, k)
    for g, x in zip(got, want, strict=True):
        assert _bits(g) == _bits(x)
    rows = _blocks(y, s, w, k, aggregate=False)
    for g, x in zip(rows, _blocks_numpy(y, s, w, k, aggregate=False), strict=True):
        assert _bits(g) == _bits(x)


@given(class_data())
def test_class_pairs_and_histograms_are_numpys_bit_for_bit(d):
    y, s, w, k = d
    cs = ClassSummary.from_checked(y, s, w, tuple(range(k)))
    assert _bits(cs.pairs()) == _bits(cs._pairs_numpy())
    pos = np.zeros(len(cs.scores), dtype=bool)
    for j in range(k):
        pos[cs.offsets[j * k + j] : cs.offsets[j * k + j + 1]] = True
        a, e = cs.offsets[j * k], cs.offsets[(j + 1) * k]
        want = _histogram(cs.scores[a:e], cs.weights[a:e], pos[a:e], ScoreHistogram)
        got = cs.one_vs_rest(j)
        assert [_bits(x) for x in (got.scores, got.pos, got.neg)] == [
            _bits(x) for x in (want.scores, want.pos, want.neg)
        ]
    want = _histogram(cs.scores, cs.weights, pos, ScoreHistogram)
    got = cs.micro()
    assert [_bits(x) for x in (got.scores, got.pos, got.neg)] == [
        _bits(x) for x in (want.scores, want.pos, want.neg)
    ]


@settings(max_examples=50)
@given(class_data(weighted=True), st.integers(1, 5))
def test_summary_in_memory_equals_rows_folded_in_order_with_weights(d, pieces):
    # a tie of weighted rows: its cell's weight is the sum in row order, in memory as in a fold
    y, s, w, k = d
    classes = tuple(range(k))
    whole = ClassSummary.from_checked(y, s, w, classes)
    cuts = np.linspace(0, len(y), pieces + 1).astype(int)
    part = ClassSummary.empty(classes)
    for a, e in zip(cuts[:-1], cuts[1:], strict=True):
        part = part.folded(y[a:e], s[a:e], w[a:e])
    assert whole == part
    assert _bits(whole.weights) == _bits(part.weights)


def test_a_weighted_tie_of_three_rows_is_summed_in_row_order():
    y = np.array([0, 0, 0, 1, 1, 2], dtype=np.intp)
    s = np.array([[0.5, 0.3, 0.2]] * 3 + [[0.2, 0.5, 0.3]] * 2 + [[0.1, 0.1, 0.8]])
    w = np.array([0.1, 0.7, 0.3, 1.0, 1.0, 1.0])
    cs = ClassSummary.from_checked(y, s, w, (0, 1, 2))
    assert cs.block(0, 0)[1][0] == (0.1 + 0.7) + 0.3  # not 0.1 + (0.7 + 0.3)
    folded = ClassSummary.from_checked(y[:1], s[:1], w[:1], (0, 1, 2)).folded(y[1:], s[1:], w[1:])
    assert folded == cs


def test_class_kernels_refuse_inconsistent_buffers():
    y = np.array([0, 3], dtype=np.int64)
    s = np.zeros(4)
    with pytest.raises(ValueError, match="class code"):
        K.class_blocks(y, s, None, 2, True)
    with pytest.raises(ValueError, match="disagree"):
        K.class_blocks(y, np.zeros(3), None, 2, True)
    with pytest.raises(ValueError, match="disagree"):
        K.class_pairs(np.zeros(5, np.int64), np.zeros(1), np.zeros(1), 2)
    z = np.zeros(4)
    with pytest.raises(ValueError, match="tie keys"):  # t = 1 is no tie; keys ascending
        K.class_tables(
            np.array([0]), np.zeros(2), None, 2, z.copy(), z.copy(), np.array([2]), np.zeros(2), 1e-4
        )
    with pytest.raises(ValueError, match="tie keys"):
        K.class_tables(
            np.array([0]), np.zeros(2), None, 2, z.copy(), z.copy(), np.array([5, 4]), np.zeros(4), 1e-4
        )
    with pytest.raises(ValueError, match="disagree"):
        K.class_tables(
            np.array([0]), np.zeros(2), None, 2, z.copy(), z.copy(), np.array([4]), np.zeros(3), 1e-4
        )


@given(class_data(), st.booleans())
def test_class_tables_are_numpys_bit_for_bit(d, fold):
    from perfeval.summaries.classes import _off_simplex, _row_tables, _tables

    y, s, w, k = d
    r = np.random.default_rng(len(y))
    s = s.copy()
    if len(s):  # rows of probabilities, some exactly, some off by about the tolerance
        p = r.dirichlet(np.ones(k), size=len(s))
        p[::3] += r.choice([0.0, 5e-5, 2e-4, -2e-4], size=(len(p[::3]), 1)) / k
        s[: len(s) // 2] = p[: len(s) // 2]
    before = None
    if fold:  # a summary's tables with some tie rows (keys t * K + y, t >= 2)
        keys = np.unique(r.integers(2 * k, (k + 1) * k, size=3)).astype(np.int64)
        before = (r.random((k, k)), r.random((k, k)), keys, r.random((len(keys), k)))
    sure, topk, off, ties = _row_tables(y, s, w, k, before)
    want_sure, want_topk, want_ties = _tables(y, s, w, k, before)
    assert _bits(sure) == _bits(want_sure) and _bits(topk) == _bits(want_topk)
    assert _bits(ties[0]) == _bits(want_ties[0]) and _bits(ties[1]) == _bits(want_ties[1])
    want_off = _off_simplex(s)
    assert off[0] == want_off[0]
    assert np.array_equal(np.array(off[1:]), np.array(want_off[1:]), equal_nan=True)


@given(class_data(weighted=False), st.integers(1, 12))
def test_class_group_auc_is_group_auc_rows_of_each_column(d, q):
    y, s, _w, k = d
    r = np.random.default_rng(len(y) + q)
    codes = r.integers(0, q, size=len(y)).astype(np.int64)
    wins, pos = (
        np.frombuffer(b, np.float64).reshape(q, k)
        for b in K.class_group_auc(codes, y.astype(np.int64), np.ascontiguousarray(s), k, q)
    )
    for j in range(k):
        col = np.ascontiguousarray(s[:, j]) + 0.0
        w1, p1, n1 = (
            np.frombuffer(b, np.float64) for b in K.group_auc_rows(codes, col, (y == j).view(np.uint8), q)
        )
        assert _bits(wins[:, j]) == _bits(w1) and _bits(pos[:, j]) == _bits(p1)
    with pytest.raises(ValueError, match="out of range"):
        K.class_group_auc(np.array([q], np.int64), np.array([0], np.int64), np.zeros(k), k, q)


@given(class_data())
def test_class_walk_is_the_sums_of_the_histograms(d):
    """class_walk's sums over the one-vs-rest and micro histograms, never made, are those the binary
    ROC and AP make over the histograms, bit for bit (P, N: numpy's pairwise sums; roc: hist_sum's)."""
    from perfeval.measures.rank import _hsum

    y, s, w, k = d
    cs = ClassSummary.from_checked(y, s, w, tuple(range(k)))
    for j in [-1, *range(k)]:
        h = cs.micro() if j < 0 else cs.one_vs_rest(j)
        P, N, area, ap_sum, cells = K.class_walk(cs.offsets, cs.scores, cs.weights, k, j)
        assert cells == len(h.scores)
        assert _bits(np.float64(P)) == _bits(np.float64(h.pos.sum()))
        assert _bits(np.float64(N)) == _bits(np.float64(h.neg.sum()))
        if len(h.scores):
            assert _bits(np.float64(area)) == _bits(_hsum(h, "roc"))
            _t, tp, fp = h.cumulative()
            cnt = tp + fp
            with np.errstate(invalid="ignore", divide="ignore"):
                prec = np.where(cnt > 0, tp / np.where(cnt > 0, cnt, 1.0), 0.0)
            assert _bits(np.float64(ap_sum)) == _bits(np.sum(h.pos[::-1] * prec))
