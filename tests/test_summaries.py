"""ScoreHistogram is a monoid: merging summaries of pieces equals summarising the whole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import InvalidParameterError, ScoreHistogram
from perfeval.measures import list_measures

cases = st.lists(
    st.tuples(st.sampled_from([0, 1]), st.sampled_from([0.0, 0.1, 0.5, 0.5, 0.9, 1.0]) | st.floats(0, 1)),
    max_size=60,
)


def _summ(rows):
    return ScoreHistogram.from_arrays([r[0] for r in rows], [r[1] for r in rows])


@given(cases, cases)
def test_merge_equals_whole(a, b):
    assert _summ(a).merge(_summ(b)) == _summ(a + b)


@given(cases, cases, cases)
def test_merge_is_associative_and_commutative(a, b, c):
    x, y, z = _summ(a), _summ(b), _summ(c)
    assert (x + y) + z == x + (y + z)
    assert x + y == y + x


@given(cases)
def test_empty_is_the_identity(a):
    assert _summ(a) + ScoreHistogram.empty() == _summ(a) == ScoreHistogram.empty() + _summ(a)


@given(cases, st.integers(1, 7))
def test_every_measure_is_the_same_from_chunks(rows, k):
    whole = _summ(rows)
    merged = ScoreHistogram.empty()
    for i in range(0, len(rows), k):
        merged = merged + _summ(rows[i : i + k])
    for m in (m for m in list_measures() if m.kind == "binary"):
        a, b = m(whole), m(merged)
        assert (a == b) or (np.isnan(a) and np.isnan(b)), m.name


def test_round_trip_dict():
    h = _summ([(1, 0.2), (0, 0.2), (1, 0.7)])
    assert ScoreHistogram.from_dict(h.to_dict()) == h


def test_weights_equal_duplicated_rows():
    w = ScoreHistogram.from_arrays([1, 0, 1], [0.3, 0.2, 0.9], sample_weight=[2, 1, 3])
    d = ScoreHistogram.from_arrays([1, 1, 0, 1, 1, 1], [0.3, 0.3, 0.2, 0.9, 0.9, 0.9])
    assert w == d


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(y_true=[0, 1, 2], y_score=[0.1, 0.2, 0.3]), "only 0 and 1"),
        (dict(y_true=[0, 1], y_score=[0.1]), "same length"),
        (dict(y_true=[0, 1], y_score=[0.1, float("nan")]), "NaN at index 1"),
        (dict(y_true=[0, 1], y_score=[0.1, 0.2], sample_weight=[1, -1]), "non-negative"),
        (dict(y_true=[[0, 1], [1, 0]], y_score=[[0.1, 0.2], [0.3, 0.4]]), "one-dimensional"),
    ],
)
def test_bad_input(kwargs, fragment):
    with pytest.raises(InvalidParameterError, match=fragment):
        ScoreHistogram.from_arrays(**kwargs)


@settings(max_examples=200, deadline=None)
@given(
    blocks=st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=6), min_size=1, max_size=6),
    ranked=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_query_order_of_ranked_blocks_and_of_anything(blocks, ranked, seed):
    """query_order sorts by query then descending score; a run's layout (each query's rows together,
    best first, queries in any order) takes the path without a sort, and gives a valid order too."""
    from perfeval.summaries.ranking import query_order

    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(blocks))
    codes = np.concatenate([np.full(len(b), perm[i]) for i, b in enumerate(blocks)]).astype(np.int64)
    score = np.concatenate([sorted(b, reverse=True) if ranked else b for b in blocks]).astype(float)
    if not ranked:
        shuffle = rng.permutation(len(codes))
        codes, score = codes[shuffle], score[shuffle]
    order = query_order(codes, score, len(blocks))
    assert sorted(order.tolist()) == list(range(len(codes)))
    c, s = codes[order], score[order]
    assert (np.diff(c) >= 0).all()
    assert all(s[k] <= s[k - 1] for k in range(1, len(c)) if c[k] == c[k - 1])
