"""Slices (``by=``) of a Dask DataFrame: ``evaluate(ddf, target=, score=, by=[...])``.

Each partition's slice columns are read where the partition lives into a
:class:`perfeval.backends.slices.SliceFeed` (keys by value, so partitions with different keys
merge), and the feeds are merged up a tree in partition order and finished on the client, with
the bits of ``evaluate(ddf.compute(), ..., by=...)``:

* unweighted binary measures: each combination of keys' summary (distinct scores with their
  positive and negative counts) travels, computed in the same pass as the overall summary;
* weighted, per-query (``group=``), K classes, K labels and regression: the columns the slices read
  travel to the client, partition after partition, and are finished there by the in-memory engine
  (a weighted sum in memory follows an order of the rows no summary of pieces keeps): memory on
  the client follows the rows (docs/dask.md).

Messages about a slice column name the row within its partition (``row 3 of partition 2``).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from perfeval.backends.slices import Ask, RowNumbers, SliceFeed, ask_of
from perfeval.base.checks import Cases
from perfeval.engine.slices import Task
from perfeval.exceptions import InvalidParameterError

__all__ = [
    "attach_rows",
    "frame_ask",
    "merge_feeds",
    "rows_feed",
    "rows_piece",
    "summary_piece",
    "tree_feeds",
]


def frame_ask(
    by: Any, ddf: Any, intersections: Any, min_size: Any, missing: Any, taken: dict[str, Any]
) -> Ask | None:
    """The slicings of ``by=`` over a Dask DataFrame's columns (None without ``by``)."""
    import dask.dataframe as dd

    if by is None:
        from perfeval.engine.slice_report import needs_by

        needs_by(intersections, min_size, missing)
        return None
    if not isinstance(ddf, dd.DataFrame):
        raise InvalidParameterError(
            "by= on Dask names columns of a Dask DataFrame (with target= and score=), not of Dask arrays"
        )
    names = [str(c) for c in ddf.columns]
    ask = ask_of(
        by,
        intersections=intersections,
        min_size=min_size,
        missing=missing,
        table={n: None for n in names},
        taken={k: v for k, v in taken.items() if v is not None},
        what="the Dask DataFrame",
    )
    for name in [] if ask is None else ask.names:  # a slice's key is a category: every partition's alike
        col = ddf[name]
        if getattr(col.dtype, "name", None) == "category" and not getattr(col.cat, "known", True):
            raise InvalidParameterError(
                f"by column {name!r} is a categorical whose categories Dask does not know (each partition "
                f"has its own): ddf[{name!r}] = ddf[{name!r}].cat.as_known() first"
            )
    return ask


# -- per partition ---------------------------------------------------------------------------------------
def summary_piece(pdf: Any, k: int, ask: Ask, coded: Any, scores: Any) -> SliceFeed:
    """A partition's slices from its coded targets and checked scores (unweighted binary measures):
    each combination of keys' summary.
    """
    feed = SliceFeed(ask, summary=True, position=RowNumbers(k))
    if len(pdf):
        feed.add(pdf[ask.names], len(pdf), positive=np.asarray(coded) == 1, scores=scores)
    return feed


def rows_piece(pdf: Any, k: int, ask: Ask, target: Any, score: Any, group: Any, weight: Any) -> SliceFeed:
    """A partition's slices keeping its rows: the target (a column, or a matrix of K labels' columns),
    the scores (a column, or a matrix of K columns), the groups and the weights, as memory reads them
    from the whole frame.
    """
    feed = SliceFeed(ask, summary=False, position=RowNumbers(k))
    if len(pdf):
        y = _matrix(pdf, target) if isinstance(target, (list, tuple)) else pdf[target].to_numpy()
        s = _matrix(pdf, score) if isinstance(score, (list, tuple)) else pdf[score].to_numpy()
        g = None if group is None else pdf[group].to_numpy()
        w = None if weight is None else pdf[weight].to_numpy()
        feed.add(pdf[ask.names], len(pdf), arrays=(y, s, g, w))
    return feed


def _matrix(pdf: Any, names: Any) -> np.ndarray:
    return np.column_stack([np.asarray(pdf[c]) for c in names])


def merge_feeds(feeds: list[SliceFeed]) -> SliceFeed:
    """The feeds merged in order (a copy of the first, the others merged into it)."""
    out = feeds[0].copy()
    for f in feeds[1:]:
        out.merge(f)
    return out


def tree_feeds(pieces: list, split_every: int = 8) -> Any:
    """A delayed feed: the partitions' feeds merged ``split_every`` at a time, in partition order."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [
            dask.delayed(merge_feeds)(level[i : i + split_every]) for i in range(0, len(level), split_every)
        ]
    return level[0]


def rows_feed(
    ddf: Any, ask: Ask, target: Any, score: Any, group: Any, weight: Any, split_every: int
) -> SliceFeed:
    """Every partition's rows for the slices (:func:`rows_piece`), merged in partition order."""
    import dask

    flat: list = []
    for c in (target, score, group, weight):
        flat += list(c) if isinstance(c, (list, tuple)) else [c]
    cols = list(dict.fromkeys(c for c in flat + ask.names if c is not None))
    pieces = [
        dask.delayed(rows_piece)(p, k, ask, target, score, group, weight)
        for k, p in enumerate(ddf[cols].to_delayed())
    ]
    if not pieces:
        return SliceFeed(ask, summary=False)
    feed: SliceFeed = dask.compute(tree_feeds(pieces, split_every))[0]
    return feed


# -- the doors the rows are read again through on the client ---------------------------------------------
def binary_door(specs: list, threshold: float, pos_label: Any) -> Any:
    """The door of binary and per-query measures (evaluate()'s check and code stages)."""
    from perfeval.engine.door import check, code

    task = Task("binary", tuple(specs), threshold, pos_label)

    def door(y: Any, s: Any, g: Any, w: Any) -> tuple[Cases, Task]:
        return code(check(y, s, g, w), pos_label, keep=False), task

    return task, door


def regression_door(specs: list, how: str) -> Any:
    from perfeval.engine.regression import check_regression

    task = Task("regression", tuple(specs), task_from=how)

    def door(y: Any, s: Any, g: Any, w: Any) -> tuple[Cases, Task]:
        return check_regression(y, s, g, w), task

    return task, door


def classes_door(specs: list, threshold: float, classes: Any, names: list[str], labels: bool) -> Any:
    """The door of K classes (``classes``, the score columns' ``names``) or K labels."""
    from perfeval.engine.door import check_classes, check_labels

    kind: Literal["classes", "labels"] = "labels" if labels else "classes"
    task = Task(kind, tuple(specs), threshold, classes=tuple(classes or names), classes_from="given")

    def door(y: Any, s: Any, g: Any, w: Any) -> tuple[Cases, Task]:
        if labels:
            cases, found, how = check_labels(y, s, g, w, labels=classes, names=names)
        else:
            cases, found, how = check_classes(y, s, g, w, classes=classes, names=names)
        return cases, Task(kind, tuple(specs), threshold, classes=tuple(found), classes_from=how)

    return task, door


def attach_rows(report: Any, ddf: Any, ask: Ask, cols: tuple, door: Any, split_every: int) -> Any:
    """``report.slices`` from the rows of the columns ``cols`` (target, score, group, weight), read
    partition by partition (``door``: the task and the door of the rows).
    """
    task, through = door
    target, score, group, weight = cols
    rows_feed(ddf, ask, target, score, group, weight, split_every).attach(report, task, through)
    return report
