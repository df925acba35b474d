"""ScoreHistogram is a monoid: merging summaries of pieces equals summarising the whole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
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
