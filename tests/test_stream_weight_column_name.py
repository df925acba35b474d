"""A column's name given where a streamed chunk's weights go is the one line perfeval.ci() and
compare() say of it (no_table's: the stream takes no table), not the shape of a string."""

from __future__ import annotations

import pytest

import perfeval
from perfeval.backends import stream
from perfeval.exceptions import PerfError

Y = [1, 0, 1, 0]
S = [0.9, 0.5, 0.5, 0.1]
P = [[0.1, 0.9], [0.5, 0.5], [0.5, 0.5], [0.9, 0.1]]

CALLS = {
    "binary": (lambda: perfeval.evaluate_stream([(Y, S, "w")]), "perfeval.evaluate_stream()", "third"),
    "binary by": (
        lambda: perfeval.evaluate_stream([(Y, S, "w", {"c": [1, 1, 2, 2]})], by="c"),
        "perfeval.evaluate_stream()",
        "third",
    ),
    "regression": (
        lambda: perfeval.evaluate_stream([([1.0, 2.0], [1.0, 2.5], "w")], measures=["mae"]),
        "perfeval.evaluate_stream()",
        "third",
    ),
    "classes": (
        lambda: stream.evaluate_stream_classes([(Y, P, "w")], classes=[0, 1]),
        "perfeval.backends.stream.evaluate_stream_classes()",
        "third",
    ),
    "grouped": (
        lambda: stream.evaluate_stream_grouped([(Y, S, [1, 1, 2, 2], "w")]),
        "perfeval.backends.stream.evaluate_stream_grouped()",
        "fourth",
    ),
    "grouped classes": (
        lambda: stream.evaluate_stream_grouped_classes([(Y, P, [1, 1, 2, 2], "w")], classes=[0, 1]),
        "perfeval.backends.stream.evaluate_stream_grouped_classes()",
        "fourth",
    ),
    "labels": (
        lambda: stream.evaluate_stream_labels(
            [([[1, 0], [0, 1]], [[0.1, 0.9], [0.5, 0.5]], "w")], labels=["a", "b"]
        ),
        "perfeval.backends.stream.evaluate_stream_labels()",
        "third",
    ),
}


@pytest.mark.parametrize("path", CALLS)
def test_a_column_name_as_a_chunks_weights_is_one_line_saying_the_stream_takes_no_table(path):
    call, door, nth = CALLS[path]
    with pytest.raises(PerfError) as got:
        call()
    assert str(got.value) == (
        f"`sample_weight` must be one-dimensional, got the string 'w': a column's name? {door} takes no "
        f"table: pass the column's values themselves, one a row (the chunk's {nth} item: table['w'])"
    )


def test_a_column_name_as_a_chunks_groups_too():
    with pytest.raises(
        PerfError, match=r"^`groups` must be one-dimensional, got the string 'q': a column's name"
    ):
        stream.evaluate_stream_grouped([(Y, S, "q")])
