"""Exact evaluation of a PySpark DataFrame: each partition summarised where it lies, one finish.

Each partition is read as Arrow batches (``mapInArrow``) and summarised by the functions the Dask
backend runs on its partitions (:mod:`perfeval.backends.dask`: a
:class:`~perfeval.summaries.ScoreHistogram` a partition, per-group values of whole groups, exact
regression sums, a :class:`~perfeval.summaries.classes.ClassSummary`); only those summaries travel to
the driver (a row a partition: its number and its summary, pickled), never the rows.  The driver
merges them eight at a time in partition order and finishes every measure with the in-memory engine,
so the numbers are those of :func:`perfeval.evaluate` on the same rows (docs/spark.md).

Per-group measures (GAUC, NDCG, MAP, ...): the rows are repartitioned by the group column (Spark's
hash partitioning: every row of a group meets in one partition), each partition's whole groups are
finished there, and one small row a group comes back.  Slices (``by=``): the Dask backend's
partition functions (:mod:`perfeval.backends.dask_slices`), in the same ``mapInArrow``.

:func:`evaluate_spark` runs on the DataFrame's own SparkSession; it never starts one.  For the command
line, :func:`connect` starts (and stops) a session on a master URL and :func:`read_files` reads
Parquet or CSV files with it.  pyspark is optional (``pip install 'perfeval[spark]'``): imported only
here, and only when used.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import re
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from perfeval.base.console import one_line
from perfeval.engine import DEFAULT_MEASURES, binary_report, resolve
from perfeval.engine.finish import one_score_a_case, threshold_companions
from perfeval.exceptions import (
    InputFormatError,
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    PerfError,
)
from perfeval.io.tables import id_column

#: pip's words for the extra
INSTALL = "pip install 'perfeval[spark]'"

#: the schema of what a partition sends to the driver: its number and its pickled summary (or error)
_PARTS = "part int, blob binary"


def _require() -> None:
    try:
        import pyspark.sql  # noqa: F401
    except ImportError:
        raise MissingDependencyError(f"evaluating a Spark DataFrame needs pyspark: {INSTALL}") from None


def is_spark(data: Any) -> bool:
    """Whether ``data`` is a PySpark DataFrame (classic or Spark Connect), without importing pyspark."""
    return any(
        c.__name__ == "DataFrame" and c.__module__.startswith("pyspark.sql") for c in type(data).__mro__
    )


# -- on the executors ---------------------------------------------------------------------------------------
def _frame(
    batches: Iterator[Any], ids: tuple[str, ...], keys: tuple[str, ...] = (), names: tuple[str, ...] = ()
) -> Any:
    """A partition's Arrow batches as one pandas frame (None for a partition of no row).  An identity
    column (a group's) holding a null is refused here, before pandas would make its ids floats; a
    slice column (``keys``) of integers holding a null is pandas' nullable ``Int64`` (its integers
    kept, the null a missing value), as a frame in memory holds it.  ``names``: the columns' own
    names, given back (:func:`_plain`).
    """
    import pyarrow as pa

    got = list(batches)
    if not got or not sum(b.num_rows for b in got):
        return None
    table = pa.Table.from_batches(got)
    if names:
        table = table.rename_columns(list(names))
    for name in ids:
        if table.column(name).null_count:
            raise InvalidDataError(
                f"{id_column(name, 'group')} holds a missing value (null): every row needs a group"
            )
    pdf = table.to_pandas()
    for name in keys:
        col = table.column(name)
        if pa.types.is_integer(col.type) and col.null_count:
            import pandas as pd

            pdf[name] = pa.table({name: col}).to_pandas(types_mapper={col.type: pd.Int64Dtype()}.get)[name]
    return pdf


def _sent(out: Any) -> Any:
    """A partition's result as the one row it sends: its number and the result pickled."""
    import pyarrow as pa
    from pyspark import TaskContext

    ctx = TaskContext.get()
    part = ctx.partitionId() if ctx is not None else 0
    return pa.RecordBatch.from_arrays(
        [pa.array([part], pa.int32()), pa.array([pickle.dumps(out, protocol=5)], pa.binary())],
        names=["part", "blob"],
    )


def _on_partition(
    batches: Iterator[Any],
    job: Any,
    ids: tuple[str, ...] = (),
    keys: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
) -> Iterator[Any]:
    """Run ``job`` on a partition's rows (a pandas frame) and send its result, or its error: a
    problem with the data (the project's errors) comes to the driver as data, said there in one line
    (a failed task would be retried, and said as a Java stack trace).  A partition of no row sends
    nothing.
    """
    try:
        pdf = _frame(batches, ids, keys, names)
        if pdf is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # said once, by the driver
            out: Any = ("ok", job(pdf))
    except PerfError as e:
        out = ("error", type(e).__name__, str(e))
    yield _sent(out)


def _fail_once(
    batches: Iterator[Any],
    job: Any,
    ids: tuple[str, ...],
    marker: str,
    part: int,
    names: tuple[str, ...] = (),
) -> Iterator[Any]:
    """:func:`_on_partition`, but the first attempt of partition ``part`` kills its Python worker
    (``os._exit``) after reading its rows: a worker lost mid-job, for the tests of Spark's retry
    (``marker``: a file made on that first attempt).
    """
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is not None and ctx.partitionId() == part and not os.path.exists(marker):
        list(batches)
        with open(marker, "w") as f:
            f.write(str(ctx.attemptNumber()))
        os._exit(3)
    yield from _on_partition(batches, job, ids, names=names)


# -- on the driver ------------------------------------------------------------------------------------------
def _collected(
    frame: Any,
    job: Any,
    ids: tuple[str, ...] = (),
    fail_once: tuple | None = None,
    keys: tuple[str, ...] = (),
) -> list:
    """Every partition's result, in partition order: ``job`` run on each partition of ``frame`` where
    it lies, only the results collected.  The first error (by partition) is raised here, as the
    project's error it was.
    """
    from perfeval import exceptions

    frame, names = _plain(frame)
    run = functools.partial(_on_partition, job=job, ids=ids, keys=keys, names=names)
    if fail_once is not None:
        run = functools.partial(
            _fail_once, job=job, ids=ids, marker=fail_once[0], part=fail_once[1], names=names
        )
    with warnings.catch_warnings():  # pyspark's own note on pandas versions: not the user's concern
        warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support.*")
        rows = frame.mapInArrow(run, _PARTS).collect()
    got = sorted((int(r["part"]), pickle.loads(r["blob"])) for r in rows)
    for _part, out in got:
        if out[0] == "error":
            raise getattr(exceptions, out[1], InvalidDataError)(out[2])
    return [out[1] for _part, out in got]


def _itself(pdf: Any) -> Any:
    return pdf


def _folded(frame: Any, fold: Any, state: Any) -> Any:
    """``state`` with every partition's rows folded in, partition after partition in their order
    (``fold(state, rows)``, on the driver): the partitions come one at a time (``toLocalIterator``),
    so the driver holds one partition's rows at once.  For sums that must follow the rows' order (a
    weighted K classes' or K labels' summary: memory's bits).
    """
    from perfeval import exceptions

    frame, names = _plain(frame)
    run = functools.partial(_on_partition, job=_itself, names=names)
    with warnings.catch_warnings():  # pyspark's own note on pandas versions: not the user's concern
        warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support.*")
        for row in frame.mapInArrow(run, _PARTS).toLocalIterator(prefetchPartitions=False):
            out = pickle.loads(row["blob"])
            if out[0] == "error":
                raise getattr(exceptions, out[1], InvalidDataError)(out[2])
            state = fold(state, out[1])
    return state


def _plain(frame: Any) -> tuple[Any, tuple[str, ...]]:
    """``frame`` with its columns renamed ``_c0``, ``_c1``, ... and their own names: pyspark's
    ``mapInArrow`` reads each column by its name parsed (``model.score`` would be a field of a struct
    ``model``), so the partitions' functions get plain names, and :func:`_frame` gives the own ones back.
    """
    names = tuple(frame.columns)
    return frame.toDF(*(f"_c{i}" for i in range(len(names)))), names


def _tree(parts: list, merge: Any, split_every: int = 8) -> Any:
    """The parts merged ``split_every`` at a time, level by level, in order (Dask's tree)."""
    level = parts
    while len(level) > 1:
        level = [merge(level[i : i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def _columns(df: Any, names: list) -> None:
    """Every named column is in ``df``: else one line naming it and the columns there are."""
    have = list(df.columns)
    for c in names:
        if c is not None and c not in have:
            raise InvalidParameterError(
                f"column {c!r} is not in the Spark DataFrame (columns: {', '.join(map(str, have))})"
            )


def _identity(df: Any, name: str) -> None:
    """A group column must keep its identity: integers or text, never floating-point numbers."""
    kind = dict(df.dtypes)[name]
    if kind in ("float", "double") or kind.startswith("decimal"):
        raise InvalidDataError(
            f"{id_column(name, 'group')} holds floating-point numbers ({kind}); ids must be integers or "
            "text (cast the column: F.col(...).cast('long'))"
        )


def evaluate_spark(
    df: Any,
    *,
    target: Any = None,
    score: Any = None,
    group: str | None = None,
    weight: str | None = None,
    measures: Any = None,
    threshold: float = 0.5,
    split_every: int = 8,
    pos_label: Any = None,
    labels_read: dict | None = None,
    classes: Any = None,
    task: str | None = None,
    by: Any = None,
    intersections: Any = False,
    min_size: Any = None,
    missing: Any = "error",
    partitions: int | None = None,
    _fail_once: tuple | None = None,
):
    """Evaluate a PySpark DataFrame (columns by name) where its partitions lie.

    Returns the :class:`~perfeval.engine.report.Report` of :func:`perfeval.evaluate` on the same rows,
    computed by Spark's executors (``report.params["backend"] == "spark"``).  Binary measures: a
    summary a partition, merged on the driver ``split_every`` at a time in partition order.  Per-group
    measures (``group=``): the rows repartitioned by group (``partitions`` partitions, else Spark's
    ``spark.sql.shuffle.partitions``), each partition's whole groups finished where they lie.  A
    regression target (a regression measure named, or ``task="regression"``): exact sums a partition.
    K classes (``score=[...]``, one column a class) and K labels (``target=[...]``, ``score=[...]``,
    one column a label each): unweighted, a ClassSummary (LabelSummary) a partition, merged in
    partition order; weighted, folded partition after partition on the driver; per group, as above.  Slices
    (``by=[...]``, ``intersections``, ``min_size``, ``missing`` as :func:`perfeval.evaluate` takes
    them): ``report.slices``, memory's bits; unweighted binary measures over all rows, each
    partition's summary of each combination of its slice keys (in the same pass); anything else,
    the columns the slices read, partition after partition (:mod:`perfeval.backends.dask_slices`'
    partition functions).  ``pos_label``, ``threshold``, the
    tie policy and the measures' names as :func:`perfeval.evaluate` takes them.

    Raises
    ------
    MissingDependencyError
        pyspark is not installed.
    InvalidParameterError
        A column that is not in the frame, an option Spark does not take yet (K classes or K labels
        weighted or per group).
    InvalidDataError
        The data: a float or null group id, a target that is not binary, a score that is no number.
    """
    _require()
    if not is_spark(df):
        raise InvalidParameterError(f"expected a Spark DataFrame, got {type(df).__name__}")
    if target is None or score is None:
        raise InvalidParameterError("a Spark DataFrame needs `target=` and `score=` column names")
    taken = {"target": target, "score": score, "group": group, "weight": weight}
    ask = _ask(by, df, intersections, min_size, missing, taken)
    if isinstance(target, (list, tuple)):
        report = _labels(
            df,
            list(target),
            score,
            group,
            weight,
            measures,
            threshold,
            pos_label,
            classes,
            split_every,
            partitions,
        )
        asked = ("labels", measures, threshold)
        return _rows_slices(report, df, ask, (target, score, group, weight), asked, split_every, classes)
    from perfeval.engine.regression import regression_asked

    if isinstance(score, (list, tuple)):
        report = _classes(
            df,
            target,
            list(score),
            group,
            weight,
            measures,
            threshold,
            pos_label,
            classes,
            split_every,
            partitions,
        )
        asked = ("classes", measures, threshold)
        return _rows_slices(report, df, ask, (target, score, group, weight), asked, split_every, classes)
    if classes is not None:
        raise InvalidParameterError(
            "`classes=` names the score columns of K classes: pass `score=[...]`, one a class"
        )
    _columns(df, [target, score, group, weight])
    if group is not None:
        _identity(df, group)
    how = regression_asked(measures, task)
    cols = (target, score, group, weight)
    if how is not None:
        report = _regression(
            df, target, score, group, weight, measures, pos_label, how, split_every, partitions, _fail_once
        )
        return _rows_slices(report, df, ask, cols, ("regression", measures, how), split_every)
    specs = resolve(measures or DEFAULT_MEASURES, threshold)
    one_score_a_case(specs)
    frame = _select(df, cols)
    binary = ("binary", specs, threshold, pos_label)
    if group is not None:
        report = _grouped(
            frame,
            target,
            score,
            group,
            weight,
            specs,
            threshold,
            pos_label,
            labels_read,
            partitions,
            _fail_once,
        )
        return _rows_slices(report, df, ask, cols, binary, split_every)
    if any(s.measure.kind != "binary" for s in specs):
        name = next(s.label for s in specs if s.measure.kind != "binary")
        raise InvalidParameterError(f"{name} is computed per group: pass `group=`")
    if ask is not None and weight is None:  # each partition's slices' summaries, in the same pass
        frame = _select(df, [target, score, *ask.names])
    report = _binary(
        frame,
        target,
        score,
        weight,
        specs,
        threshold,
        pos_label,
        labels_read,
        split_every,
        _fail_once,
        None if weight is not None else ask,
    )
    return report if weight is None else _rows_slices(report, df, ask, cols, binary, split_every)


def _binary(
    frame, target, score, weight, specs, threshold, pos_label, labels_read, split_every, fail_once, ask=None
):
    from perfeval.backends.dask import merge_summaries, pos_label_found, summarize_frame
    from perfeval.summaries import ScoreHistogram

    job: Any = functools.partial(
        summarize_frame, target=target, score=score, weight=weight, pos_label=pos_label
    )
    if ask is not None:
        job = functools.partial(_sliced, target=target, score=score, pos_label=pos_label, ask=ask)
    parts = _collected(frame, job, fail_once=fail_once, keys=() if ask is None else tuple(ask.names))
    feed = None
    if ask is not None:
        from perfeval.backends.dask_slices import merge_feeds
        from perfeval.backends.slices import SliceFeed

        feed = (
            _tree([f for _s, f in parts], merge_feeds, split_every) if parts else SliceFeed(ask, summary=True)
        )
        parts = [summary for summary, _f in parts]
    if parts:
        summary, rows, _found, labels = _tree(parts, merge_summaries, split_every)
    else:
        summary, rows, labels = ScoreHistogram.empty(), 0, (False, frozenset())
    if pos_label is not None:
        pos_label_found(pos_label, str(target), labels, labels_read)
    report = binary_report(
        specs, summary, rows=rows, threshold=threshold, weighted=weight is not None, backend="spark"
    )
    report.params["pos_label"] = pos_label  # in memory's place (the shared report builders put it there)
    report.summary = summary
    if feed is not None:
        from perfeval.engine.slices import Task

        feed.attach(report, Task("binary", tuple(specs), threshold, pos_label))
    return report


def _probability_job(pdf: Any, target: str, score: str, weight: str | None, pos_label: Any) -> tuple:
    from perfeval.backends.dask import frame_probability_counts

    return _part(), frame_probability_counts(pdf, target, score, weight, pos_label)


def probability_cases(
    frame: Any, *, target: str, score: str, weight: str | None = None, pos_label: Any = None
) -> list[tuple[int, tuple[int, int, float, int, int]]]:
    """Each partition's :func:`perfeval.backends.dask.frame_probability_counts` (one pass, where the
    rows lie), in partition order, with the partition's number (its rows are said ``row 3 of
    partition 1``: a partition's row is not a line of a file; a partition of no row sends nothing).
    What ``perfeval eval --spark`` counts for its notes on probability scores.
    """
    job = functools.partial(_probability_job, target=target, score=score, weight=weight, pos_label=pos_label)
    return list(_collected(_select(frame, [target, score, weight]), job))


# -- slices (by=): the Dask backend's partition functions (perfeval.backends.dask_slices) -------------------
def _part() -> int:
    """The partition this task reads (0 off Spark): a row's place in the messages of the slices."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return ctx.partitionId() if ctx is not None else 0


def _sliced(pdf: Any, target: str, score: str, pos_label: Any, ask: Any) -> tuple:
    """A partition's summary and its slices' (each combination of its keys' summary), in one read."""
    from perfeval.backends.dask import summarize_sliced

    return summarize_sliced(pdf, _part(), target, score, pos_label, ask)


def _rows(pdf: Any, ask: Any, target: Any, score: Any, group: Any, weight: Any) -> Any:
    """A partition's rows for the slices (the columns they read)."""
    from perfeval.backends.dask_slices import rows_piece

    return rows_piece(pdf, _part(), ask, target, score, group, weight)


def _ask(by: Any, df: Any, intersections: Any, min_size: Any, missing: Any, taken: dict) -> Any:
    """The slicings of ``by=`` over the Spark DataFrame's columns (None without ``by``)."""
    from perfeval.backends.slices import ask_of

    if by is None:
        from perfeval.engine.slice_report import needs_by

        needs_by(intersections, min_size, missing)
        return None
    return ask_of(
        by,
        intersections=intersections,
        min_size=min_size,
        missing=missing,
        table={str(n): None for n in df.columns},
        taken={k: v for k, v in taken.items() if v is not None},
        what="the Spark DataFrame",
    )


def _rows_slices(
    report: Any, df: Any, ask: Any, cols: tuple, how: Any, split_every: int, classes: Any = None
) -> Any:
    """``report`` with the slices (when asked) from the rows the slices read: each partition's
    columns come to the driver in partition order and are read again by the door evaluate() reads
    them through (weights, groups, K classes, a regression target: as on Dask).
    """
    if ask is None:
        return report
    from perfeval.backends.dask_slices import binary_door, classes_door, merge_feeds, regression_door
    from perfeval.backends.slices import SliceFeed

    target, score, group, weight = cols
    if how[0] == "labels":
        from perfeval.engine.labels import label_specs

        _kind, measures, threshold = how
        names = [str(c) for c in target]
        door = classes_door(label_specs(measures, threshold), threshold, classes, names, labels=True)
    elif how[0] == "classes":
        from perfeval.engine.classes import class_specs

        _kind, measures, threshold = how
        default = measures is None or measures is DEFAULT_MEASURES
        specs = class_specs([] if default else resolve(measures, threshold, pending=True), default=default)
        door = classes_door(specs, threshold, classes, [str(c) for c in score], labels=False)
    elif how[0] == "regression":
        from perfeval.engine.regression import named_specs, regression_specs

        door = regression_door(regression_specs(named_specs(how[1])), how[2])
    else:
        _kind, specs, threshold, pos_label = how
        door = binary_door(specs, threshold, pos_label)
    flat: list = []
    for c in cols:
        flat += list(c) if isinstance(c, (list, tuple)) else [c]
    names = list(dict.fromkeys(c for c in flat + ask.names if c is not None))
    job = functools.partial(_rows, ask=ask, target=target, score=score, group=group, weight=weight)
    parts = _collected(_select(df, names), job, keys=tuple(ask.names))
    feed = _tree(parts, merge_feeds, split_every) if parts else SliceFeed(ask, summary=False)
    task, through = door
    feed.attach(report, task, through)
    return report


def column(name: str) -> Any:
    """The column named ``name``, that name whole: ``model.score`` or ``user id`` is a column of its
    own, not a field ``score`` of a struct ``model`` (Spark parses a bare name's dots).
    """
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _select(df: Any, names: Any) -> Any:
    """``df``'s columns ``names`` (once each, ``None`` left out), each named whole (:func:`column`)."""
    return df.select(*(column(c) for c in dict.fromkeys(names) if c is not None))


def _by_group(frame: Any, group: str, partitions: int | None) -> Any:
    """``frame`` repartitioned by ``group``: every row of a group in one partition."""
    by = column(group)
    return frame.repartition(partitions, by) if partitions else frame.repartition(by)


def _grouped(
    frame, target, score, group, weight, specs, threshold, pos_label, labels_read, partitions, fail_once
):
    from perfeval.backends.dask import group_values, grouped_parts_report

    pairs, twins = threshold_companions(specs)  # each operating point's threshold a group, beside it
    specs = specs + twins
    job = functools.partial(
        group_values, target=target, score=score, group=group, weight=weight, specs=specs, pos_label=pos_label
    )
    got = _collected(_by_group(frame, group, partitions), job, ids=(group,), fail_once=fail_once)
    if not got:
        raise InvalidDataError("the Spark DataFrame holds no row: no group to evaluate")
    report = grouped_parts_report(
        got, specs, pairs, target, threshold, weight is not None, pos_label, labels_read, "spark"
    )
    report.params["pos_label"] = pos_label  # in memory's place (the shared report builders put it there)
    return report


def _regression(
    df, target, score, group, weight, measures, pos_label, how, split_every, partitions, fail_once
):
    from dataclasses import replace

    from perfeval.backends.dask import (
        regression_frame,
        regression_group_values,
        regression_merge,
        regression_parts_report,
    )
    from perfeval.engine.regression import empty_summary, named_specs, regression_specs, summary_report

    if pos_label is not None:
        raise InvalidParameterError(f"pos_label= does not apply to a regression target ({how})")
    specs = regression_specs(named_specs(measures))
    frame = _select(df, (target, score, group, weight))
    if group is not None:
        job = functools.partial(
            regression_group_values, target=target, score=score, group=group, weight=weight, specs=specs
        )
        got = _collected(_by_group(frame, group, partitions), job, ids=(group,), fail_once=fail_once)
        if not got:
            raise InvalidDataError("the Spark DataFrame holds no row: no group to evaluate")
        return regression_parts_report(got, specs, weight is not None, how, "spark")
    job = functools.partial(regression_frame, target=target, score=score, weight=weight, specs=specs)
    parts = _collected(frame, job, fail_once=fail_once)
    summary, rows = _tree(parts, regression_merge, split_every) if parts else (empty_summary(specs), 0)
    summary = replace(summary, rows=rows)
    return summary_report(summary, specs, weighted=weight is not None, backend="spark", task_from=how)


def _classes(
    df, target, score, group, weight, measures, threshold, pos_label, classes, split_every, partitions
):
    """K classes (a score column a class), finished by the in-memory engine (Dask's functions).
    Unweighted over all cases: a ClassSummary a partition, merged in partition order; weighted: the
    partitions folded into one summary one after the other in their order, on the driver
    (:func:`_folded`); per group: :func:`_k_grouped`.
    """
    from perfeval.backends.dask import class_summary, classes_report, merge_classes
    from perfeval.engine.classes import class_specs
    from perfeval.engine.door import classes_of
    from perfeval.summaries.classes import ClassSummary

    if len(score) < 2:
        raise InvalidParameterError("`score=` of K classes names K >= 2 columns, one a class")
    _columns(df, [target, *score, group, weight])
    if pos_label is not None:
        raise InvalidParameterError(
            "pos_label= does not apply to K classes (one score column a class): each class is already "
            "one against the rest"
        )
    default = measures is None or measures is DEFAULT_MEASURES
    specs = class_specs([] if default else resolve(measures, threshold, pending=True), default=default)
    kind = dict(df.dtypes)[target]
    numbers = kind in ("tinyint", "smallint", "int", "bigint", "float", "double", "boolean")
    found, how = classes_of(
        np.zeros(0, dtype=np.float64 if numbers else object), len(score), classes, [str(c) for c in score]
    )
    if group is not None:
        from perfeval.backends.dask import class_group_values

        _identity(df, group)
        cols = [target, *score, group, weight]
        args = (target, score, group, weight, specs, found, how)
        return _k_grouped(df, cols, group, class_group_values, args, found, how, weight, partitions, {})
    start = (ClassSummary.empty(found), 0)
    if weight is not None:  # each cell's weights added in row order: partition after partition
        from perfeval.backends.dask import class_fold

        fold = functools.partial(class_fold, target=target, score=score, weight=weight, classes=found)
        summary, rows = _folded(_select(df, [target, *score, weight]), fold, start)
    else:
        job = functools.partial(class_summary, target=target, score=score, weight=None, classes=found)
        parts = _collected(_select(df, [target, *score]), job)
        summary, rows = _tree(parts, merge_classes, split_every) if parts else start
    report = classes_report(specs, summary, rows, found, how, threshold, weight is not None)
    report.params["backend"] = "spark"
    return report


#: the column a row's place in the frame is tagged in, before the rows are shuffled by group
_PLACE = "__perfeval_place"


def _k_group_job(pdf: Any, values: Any, args: tuple) -> Any:
    """A shuffled partition's whole groups of K classes or labels (``values``: the Dask backend's
    function), their rows put back in the frame's order first (the place column).
    """
    return values(pdf, *args, (_PLACE,))


def _k_grouped(df, cols, group, values, args, found, how, weight, partitions, extra):
    """K classes or labels per group: every row tagged with its place in the frame (Spark's
    ``monotonically_increasing_id``: the partition, then the row in it), the rows repartitioned by
    group, each partition's groups put back in the frame's order and finished where they lie by the
    Dask backend's function (``values``), a row a group brought back: memory's bits, weights or not
    (each group's rows in the frame's order, as there).
    """
    from pyspark.sql import functions as F

    from perfeval.backends.dask import joined_groups
    from perfeval.backends.stream import grouped_classes_report

    names = list(dict.fromkeys(c for c in cols if c is not None))
    if _PLACE in df.columns:
        raise InvalidParameterError(f"column {_PLACE!r}: a name perfeval keeps for its own, rename it")
    frame = _select(df, names).withColumn(_PLACE, F.monotonically_increasing_id())
    job = functools.partial(_k_group_job, values=values, args=args)
    done = [x for x in _collected(_by_group(frame, group, partitions), job, ids=(group,)) if x is not None]
    if not done:
        raise InvalidDataError("the Spark DataFrame holds no row: no group to evaluate")
    specs = args[4]
    keys, sizes, vals, rows, marks = joined_groups(done, specs)
    return grouped_classes_report(
        specs,
        keys,
        sizes,
        vals,
        found,
        classes_from=how,
        rows=rows,
        weighted=weight is not None,
        backend="spark",
        marks=marks,
        **extra,
    )


def _labels(
    df, target, score, group, weight, measures, threshold, pos_label, labels, split_every, partitions
):
    """K labels (a 0/1 target column a label, as many score columns), finished by the in-memory
    engine (Dask's functions).  Unweighted over all cases: a LabelSummary a partition (every sum a
    whole number), merged in partition order; weighted: folded partition after partition in their
    order, on the driver (:func:`_folded`); per group: :func:`_k_grouped`.
    """
    from perfeval.backends.dask import label_fold, labels_asked, merge_labels
    from perfeval.engine.labels import empty_summary, label_specs, summary_report

    score, found, how = labels_asked(
        target, score, group, weight, pos_label, labels, list(df.columns), "the Spark DataFrame"
    )
    specs = label_specs(measures, threshold)
    if group is not None:
        from perfeval.backends.dask import label_group_values

        _identity(df, group)
        cols = [*target, *score, group, weight]
        args = (target, score, group, weight, specs, found, how)
        extra = {"task": "multilabel", "threshold": threshold}
        return _k_grouped(df, cols, group, label_group_values, args, found, how, weight, partitions, extra)
    start = (empty_summary(found, specs), 0)
    if weight is not None:  # each sum in row order: partition after partition, in their order
        fold = functools.partial(label_fold, target=target, score=score, weight=weight)
        summary, rows = _folded(_select(df, [*target, *score, weight]), fold, start)
    else:
        job = functools.partial(label_fold, start, target=target, score=score, weight=None)
        parts = _collected(_select(df, [*target, *score]), job)
        summary, rows = _tree(parts, merge_labels, split_every) if parts else start
    report = summary_report(
        summary, specs, rows=rows, weighted=weight is not None, backend="spark", labels_from=how
    )
    report.params["threshold"] = threshold
    return report


# -- Spark's own numbers beside the exact ones ---------------------------------------------------------------
class Binning:
    """What Spark's binned evaluator gives beside the exact value, measure by measure (``rows``: the
    measure, perfeval's exact value, Spark's ``BinaryClassificationEvaluator`` run in the same session,
    perfeval's ``spark`` dialect finished from the same summary, and Spark's minus the exact value).
    The dialect is Spark's rule over one partition of its sorted scores: Spark merges the runs of
    scores of each partition of its sorted scores apart, so with binning its number depends on how
    many there are (``spark.default.parallelism``) and where its sample put their bounds.
    """

    def __init__(
        self, rows: list[tuple[str, float, float, float]], num_bins: int, distinct: int, cases: int = 0
    ):
        self.rows, self.num_bins, self.distinct, self.cases = rows, num_bins, distinct, cases

    def __str__(self) -> str:
        spark = f"Spark numBins={self.num_bins}"
        dialect = "spark dialect, 1 part"
        lines = [f"{'measure':<8} {'exact (perfeval)':>20} {spark:>22} {dialect:>22} {'Spark - exact':>14}"]
        for name, exact, own, ours in self.rows:
            lines.append(f"{name:<8} {exact:>20.17g} {own:>22.17g} {ours:>22.17g} {own - exact:>14.3g}")
        run = self.distinct // self.num_bins if self.num_bins else 0
        lines.append(
            f"{self.distinct} distinct scores: "
            + (
                f"Spark merged runs of {run} consecutive scores into one threshold"
                if run >= 2
                else "Spark kept every distinct score as a threshold (fewer than 2 x numBins)"
            )
        )
        return "\n".join(lines) + "\n"


def binning(df: Any, *, target: str, score: str, weight: str | None = None, num_bins: int = 1000) -> Binning:
    """Spark's own numbers beside the exact ones: ``BinaryClassificationEvaluator(numBins=num_bins)``
    (areaUnderROC, areaUnderPR) run on ``df`` in its session, perfeval's exact ROC and AP
    (:func:`evaluate_spark`), and perfeval's ``spark`` dialect finished from the same merged summary
    (the check that the binning is understood: equal to Spark's number up to rounding).
    """
    from pyspark.ml.evaluation import BinaryClassificationEvaluator

    from perfeval.dialects.binned import spark_binned

    if num_bins < 0:
        raise InvalidParameterError(f"num_bins={num_bins}: Spark's numBins is 0 (no binning) or more")
    report = evaluate_spark(df, target=target, score=score, weight=weight, measures=["roc", "ap"])
    summary = report.summary
    cols = [column(target).cast("double").alias("label"), column(score).cast("double").alias("raw")]
    if weight is not None:
        cols.append(column(weight).cast("double").alias("w"))
    frame = df.select(*cols)
    rows = []
    asked: Any = (("ROC", "areaUnderROC", "ROC"), ("AP", "areaUnderPR", "PR"))
    for name, metric, curve in asked:
        ev = BinaryClassificationEvaluator(
            rawPredictionCol="raw", labelCol="label", metricName=metric, numBins=num_bins
        )
        if weight is not None:
            ev.setWeightCol("w")
        own = float(ev.evaluate(frame))
        rows.append((name, float(report[name]), own, spark_binned(summary, numBins=num_bins, curve=curve)))
    return Binning(rows, num_bins, len(summary.scores), int(report.params["rows"]))


# -- the command line: a session and the files ---------------------------------------------------------------
#: Spark's logging for a run of the command: errors only, on stderr; the logger of the class that
#: starts PySpark's JVM (``PythonGatewayServer``) given the root's level, else Spark writes that it set
#: a default level ("Setting default log level to ...", as a shell's)
_LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = off
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = off
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %p %c: %m%n
"""

#: what the JVM itself writes at start-up when Spark adds its vector module (Spark's launcher always
#: does): no option of the JVM's turns it off, so this one line, and only it, is not passed on
_INCUBATOR = re.compile(r"^WARNING: Using incubator modules: [\w.,\s]+$")


def _pass_on(stream: Any, out: Any) -> None:
    """The JVM's stderr (``stream``: its pipe) written to ``out`` line by line as it comes, but the
    JVM's own note on incubator modules (:data:`_INCUBATOR`): Spark's errors and the executors'
    are said.
    """
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace")
        if not _INCUBATOR.match(line.rstrip("\r\n")):
            out.write(line)
            out.flush()


def java_said(e: BaseException) -> str:
    """What an error from the JVM says, in its first line: not py4j's call nor Java's stack (a
    ``Py4JJavaError``'s text holds both, over dozens of lines).
    """
    for line in str(e).splitlines():
        line = line.strip().removeprefix(": ")
        if line and not line.startswith(("An error occurred while calling", "at ")):
            return one_line(re.sub(r"^[\w.$]+(Exception|Error): ", "", line))
    return one_line(e)


@contextlib.contextmanager
def connect(master: str) -> Iterator[Any]:
    """A SparkSession on ``master`` (``local[2]``, ``spark://host:7077``, ``yarn``, ...) for one run of
    the command, stopped after: the UI off, Spark's logging at errors only from the JVM's start
    (log4j2's configuration file passed in ``spark.driver.extraJavaOptions``), the executors' Python
    the driver's (``PYSPARK_PYTHON``, unless set).  A session this process has already is used, not
    stopped.
    """
    import subprocess
    import tempfile
    import threading

    _require()
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:  # this process has a session already (a notebook, a test): used, not stopped
        yield active
        return
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with tempfile.NamedTemporaryFile("w", suffix=".properties", delete=False) as f:
        f.write(_LOG4J)
    conf = SparkConf()
    java = " ".join(
        o
        for o in (conf.get("spark.driver.extraJavaOptions"), f"-Dlog4j2.configurationFile=file:{f.name}")
        if o
    )
    conf.setMaster(master).setAppName("perfeval").set("spark.driver.extraJavaOptions", java)
    conf.set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
    try:
        with warnings.catch_warnings():  # pyspark's note on pandas versions: not the user's concern
            warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support.*")
            try:
                if SparkContext._gateway is None:  # the JVM started here: its stderr passed on, line by line
                    from pyspark.java_gateway import launch_gateway

                    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
                    proc = gateway.proc
                    threading.Thread(target=_pass_on, args=(proc.stderr, sys.stderr), daemon=True).start()
                    SparkContext(conf=conf, gateway=gateway)
                spark = SparkSession.builder.config(conf=conf).getOrCreate()
            except Exception as e:  # no Java, a master that cannot be reached, a bad URL: one line
                raise InvalidParameterError(
                    f"--spark {one_line(master)}: cannot start Spark there ({java_said(e)})"
                ) from None
            try:
                spark.sparkContext.setLogLevel("ERROR")
                yield spark
            finally:
                spark.stop()
    finally:
        os.unlink(f.name)


@contextlib.contextmanager
def read_errors(path: str) -> Iterator[None]:
    """Spark's failure to read the files (when it reads their schema, or when a task reads their
    rows) as one line naming the file: a path that is not there, a file that is not what its format
    says (a Parquet file cut short).  Any other error goes on as it was.
    """
    try:
        yield
    except Exception as e:
        text = str(e)
        if "PATH_NOT_FOUND" in text:
            raise InputFormatError("no such file", source=path) from None
        if "FAILED_READ_FILE" not in text:
            raise
        named = re.search(r"reading file (?:file:(?://)?)?(\S+?)\.?(?:\s|$)", text)
        why = "Could not read footer" if "FOOTER" in text else "Spark cannot read it"
        raise InputFormatError(
            f"is not a readable Parquet file ({why})" if ".parquet" in text else f"cannot be read ({why})",
            source=named.group(1) if named else path,
        ) from None


def read_files(spark: Any, path: str, fmt: str, header: bool | None, delimiter: str | None) -> Any:
    """Parquet or CSV/TSV files (a path, a glob or a directory) as a Spark DataFrame.  A CSV's columns
    are read as text (the partitions read its numbers by the readers' one grammar, as Dask's do);
    without a header they are named ``column1``, ``column2``, ...
    """
    from perfeval.io.base import files

    if not files(path):
        raise InputFormatError(
            "a directory that holds no file" if os.path.isdir(path) else "no such file", source=path
        )
    first = files(path)[0]
    if fmt == "auto":
        low = first.lower()
        fmt = (
            "parquet"
            if low.endswith(".parquet")
            else "tsv"
            if low.endswith(".tsv")
            else "csv"
            if low.endswith(".csv")
            else ""
        )
    if fmt == "parquet":
        with read_errors(path):
            return spark.read.parquet(*files(path)), fmt
    if fmt in ("csv", "tsv"):
        sep = delimiter or ("\t" if fmt == "tsv" else ",")
        with read_errors(path):
            df = spark.read.csv(files(path), sep=sep, header=header is not False, inferSchema=False)
        if header is False:
            df = df.toDF(*[f"column{i + 1}" for i in range(len(df.columns))])
        return df, fmt
    raise InvalidParameterError(
        f"--spark reads Parquet and CSV/TSV files: {one_line(first)} is neither "
        "(--input-format parquet, csv or tsv)"
    )


def spark_ids(df: Any, name: str, role: str = "--group", empties: bool = False) -> Any:
    """A group column read as text (a CSV): int64 when every id is a plain integer within int64, by the
    readers' rule (no sign on 0, no leading zero: ``007`` and ``7`` stay two groups), else the text
    as written; an empty field is a missing id, refused (it would be a group of its own).  ``role``:
    the option naming the column; ``empties``: an empty field left to the partitions to say (a
    target of labels, as read whole: int64 or text), the column then left as text.
    """
    from pyspark.sql import functions as F

    col = column(name)
    plain = r"^(0|-?[1-9][0-9]{0,18})$"
    row = df.agg(
        F.sum(F.when(col.isNull() | (F.trim(col) == ""), 1).otherwise(0)).alias("empty"),
        F.sum(F.when(col.rlike(plain), 0).otherwise(1)).alias("other"),
        F.max(F.when(col.rlike(r"^-?[0-9]{19}$"), F.abs(col.cast("decimal(20,0)")))).alias("long"),
    ).first()
    if row is not None and row["empty"] and empties:
        return df
    if row is not None and row["empty"]:
        raise InvalidDataError(
            f"{id_column(name, role)} holds an empty field, a missing value: drop the rows without "
            "one or fill them"
        )
    if row is None or row["other"] or (row["long"] is not None and row["long"] > (1 << 63) - 1):
        return df
    return df.withColumn(name, col.cast("bigint"))


def spark_keys(df: Any, name: str) -> Any:
    """A slice column read as text (a CSV) typed as a table read whole types it: int64 when every
    value is a plain integer (``007`` is not: it stays text), float64 when every value is a plain
    integer or a decimal number written with a point or an exponent, empty fields among them (a float:
    refused as a slice key, as in memory), else the text; an empty field (Spark's null) is a missing
    value, and makes a column of integers text (as read whole).
    """
    from pyspark.sql import functions as F

    col = F.trim(column(name))
    plain = r"^(0|-?[1-9][0-9]{0,17})$"
    decimal = r"^[-+]?(0|[1-9][0-9]*)?\.[0-9]*([eE][-+]?[0-9]+)?$|^[-+]?(0|[1-9][0-9]*)[eE][-+]?[0-9]+$"
    row = df.agg(
        F.sum(F.when(col.rlike(plain), 0).otherwise(1)).alias("ints"),
        F.sum(F.when(col.isNull() | col.rlike(plain) | col.rlike(decimal), 0).otherwise(1)).alias("numbers"),
    ).first()
    if row is None or row["ints"] is None:
        return df
    if not row["ints"]:
        return df.withColumn(name, col.cast("bigint"))
    if not row["numbers"]:
        return df.withColumn(name, col.cast("double"))
    return df


def spark_numbers(df: Any, name: str) -> Any:
    """A target column read as text (a CSV) typed as a table read whole types it: int64 when every
    value is a plain integer, float64 when every value is a decimal number, else the text.
    """
    from pyspark.sql import functions as F

    col = F.trim(column(name))
    row = df.agg(
        F.sum(F.when(col.rlike(r"^(0|-?[1-9][0-9]{0,17})$"), 0).otherwise(1)).alias("ints"),
        F.sum(
            F.when(col.rlike(r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"), 0).otherwise(1)
        ).alias("numbers"),
    ).first()
    if row is None or row["ints"] is None:
        return df
    if not row["ints"]:
        return df.withColumn(name, col.cast("bigint"))
    if not row["numbers"]:
        return df.withColumn(name, col.cast("double"))
    return df
