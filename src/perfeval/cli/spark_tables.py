"""``perfeval eval FILES --spark MASTER`` of K classes (a score column a class: ``--score a,b,c
--classes``, ``--score-prefix``; or a row a case and class: ``--long``), of K labels (a 0/1 target
column a label: ``--labels``, ``--label-prefix``) and what decides the task as a table read whole
decides it: ``--score a,b,c`` without ``--classes`` (K classes or several models, by the files'
distinct targets, :func:`score_columns_targets`) and a target that looks like a regression one
(:func:`regression_guess`).

The files are read by Spark (:func:`perfeval.backends.spark.read_files`), the columns chosen by the
rules of the table read whole (:func:`perfeval.cli.classes.choose_wide`,
:func:`perfeval.cli.classes.choose_long`, :func:`perfeval.cli.labels` ``_choose``), a CSV's columns
typed as read whole (the target's labels int64 or text, a group an identity, a slice key as read
whole), then :func:`perfeval.backends.spark.evaluate_spark` (or ``evaluate_spark_long``): the output
of the files read whole, in memory (docs/spark.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from perfeval.cli import load, slices
from perfeval.exceptions import InputFormatError, InvalidDataError, InvalidParameterError

__all__ = [
    "classes_report",
    "labels_report",
    "long_report",
    "refuse",
    "regression_guess",
    "score_columns_targets",
]


def refuse(args: Any, what: str) -> None:
    """What ``--spark`` does not take for K classes or labels: one line (exit 2), before any work."""
    if getattr(args, "confusion", False) and args.group is not None:
        raise InvalidParameterError(
            f"--confusion with --group of {what} evaluates in memory, not with --spark; drop one of them"
        )


@contextlib.contextmanager
def _frame(args: Any, path: str | None) -> Iterator[tuple[Any, str, list[str], bool]]:
    """(the files as a Spark DataFrame, their format, its columns' names, whether they are a header's)
    in a session on ``--spark``'s master (the command's one, when it holds one already).
    """
    from perfeval.backends.spark import connect, read_errors, read_files

    if path is None:
        raise InvalidParameterError("--spark reads files (a path or a glob), not standard input")
    with connect(args.spark) as session:
        df, fmt = read_files(session, path, args.input_format, args.header, args.delimiter)
        with read_errors(path):  # a file the tasks cannot read (the schema came from another)
            yield df, fmt, list(map(str, df.columns)), fmt == "parquet" or args.header is not False


def _typed(df: Any, fmt: str, labels: list[str], group: str | None, by: list[str]) -> Any:
    """A CSV's text columns typed as a table read whole types them: ``labels`` (a target of labels)
    int64 when every one is a plain integer, else the text; the group an identity; the slice keys.
    """
    if fmt == "parquet":
        return df
    from perfeval.backends.spark import spark_ids, spark_keys

    for name in labels:
        df = spark_ids(df, name, empties=True)
    if group is not None:
        df = spark_ids(df, group)
    for key in by:
        df = spark_keys(df, key)
    return df


@contextlib.contextmanager
def _executor_errors(path: str) -> Iterator[None]:
    """What an executor found in a column's values: one line naming the files and the column."""
    try:
        yield
    except InvalidDataError as e:
        raise InputFormatError(str(e), source=path) from None


def _no_rows(report: Any, path: str) -> None:
    if report.params.get("rows") == 0:
        raise InputFormatError("holds no data", source=path)


def _by(args: Any, names: list[str], header: bool, source: str, taken: dict) -> Any:
    """The slicings of ``--by`` over the files' columns (None without it), picked as in memory."""
    if not slices.columns(args):
        return None
    picked = slices.picked(args, names, header, source, taken)
    return slices.ask_of(args, [names[c.index] for c in picked])


def classes_report(args: Any, path: str | None, choose_wide: Callable) -> Any:
    """The report of K classes (a score column a class) of the files ``path`` names, on Spark;
    ``choose_wide(args, names, header, source)``: the columns and the classes, as the table read
    whole chooses them (:func:`perfeval.cli.classes.choose_wide`).
    """
    from perfeval.backends.spark import evaluate_spark
    from perfeval.io.base import files

    refuse(args, "K classes")
    with _frame(args, path) as (df, fmt, names, header):
        assert path is not None
        source = files(path)[0]
        ch, classes = choose_wide(args, names, header, source)
        load.say_columns(ch)

        def name(c: Any) -> str | None:
            return None if c is None else names[c.index]

        by = _by(
            args, names, header, source, {"target": ch.target, "score": list(ch.scores), "weight": ch.weight}
        )
        target = names[ch.target.index]
        df = _typed(df, fmt, [target], name(ch.group), [] if by is None else by.names)
        classes.typed(_target_kind(df, target))
        with _executor_errors(path):
            report = evaluate_spark(
                df,
                target=target,
                score=[names[c.index] for c in ch.scores],
                group=name(ch.group),
                weight=name(ch.weight),
                measures=args.measures or None,
                classes=list(classes.labels),
                by=by,
            )
    _no_rows(report, path)
    report.params["classes_from"] = classes.how
    report.params["source"] = path
    report.params["columns"] = ch.names()
    return report


def _target_kind(df: Any, name: str) -> np.ndarray:
    """An empty array of the type a Spark column's values come to an executor as."""
    kind = dict(df.dtypes)[name]
    if kind in ("tinyint", "smallint", "int", "bigint"):
        return np.zeros(0, dtype=np.int64)
    if kind in ("float", "double"):
        return np.zeros(0, dtype=np.float64)
    if kind == "boolean":
        return np.zeros(0, dtype=bool)
    return np.zeros(0, dtype=object)


def long_report(args: Any, path: str | None, choose_long: Callable, classes_of: Callable) -> Any:
    """K classes in long form (a row a case and class: ``--long``) on Spark: not yet, one line (each
    case's rows must first meet in one partition and be pivoted there, which the Spark backend does
    not do yet; the Dask backend and memory do).
    """
    raise InvalidParameterError(
        "--long with --spark: not yet (a case's rows must meet in one partition to be pivoted, which the "
        "Spark backend does not do yet); drop --spark to evaluate in memory, or use --dask"
    )


def labels_report(args: Any, path: str | None, choose: Callable, how: Callable) -> Any:
    """The report of K labels (a 0/1 target column a label) of the files ``path`` names, on Spark;
    ``choose`` and ``how`` as :func:`perfeval.cli.dask_tables.labels_report` takes them.
    """
    from perfeval.backends.spark import evaluate_spark
    from perfeval.io.base import files

    refuse(args, "K labels")
    with _frame(args, path) as (df, fmt, names, header):
        assert path is not None
        source = files(path)[0]
        ycols, scols, weight, group, labels = choose(args, names, header, source)
        by = _by(args, names, header, source, {"label": ycols, "score": scols, "weight": weight})
        gname = None if group is None else names[group.index]
        df = _typed(df, fmt, [], gname, [] if by is None else by.names)
        with _executor_errors(path):
            report = evaluate_spark(
                df,
                target=[names[c.index] for c in ycols],
                score=[names[c.index] for c in scols],
                group=gname,
                weight=None if weight is None else names[weight.index],
                measures=args.measures or None,
                threshold=args.threshold,
                classes=list(labels),
                by=by,
            )
    _no_rows(report, path)
    report.params["classes_from"] = how(args, ycols)
    report.params["source"] = path
    report.params["columns"] = {
        "labels": [c.name for c in ycols],
        "scores": [c.name for c in scols],
        **({"weight": weight.name} if weight is not None else {}),
        **({"group": group.name} if group is not None else {}),
    }
    return report


# -- what decides the task, as of a table read whole ---------------------------------------------------------
#: the distinct targets brought to the driver to decide (K classes, or a regression's words): past them
#: the counts alone decide (a regression), or the score columns named after targets are looked up
DISTINCT = 4096


def _numbers(df: Any, fmt: str, name: str) -> Any:
    """The target column as numbers (a Spark column of doubles), its missing values (nulls, a CSV's
    empty fields) left out, or None when a value is no number (labels: no regression).
    """
    from pyspark.sql import functions as F

    from perfeval.backends.spark import column

    kind = dict(df.dtypes)[name]
    if kind in ("tinyint", "smallint", "int", "bigint", "float", "double") or kind.startswith("decimal"):
        return df.select(column(name).cast("double").alias("v")).where(F.col("v").isNotNull())
    if fmt == "parquet":
        return None
    col = F.trim(column(name))
    text = df.select(col.alias("t")).where(F.col("t").isNotNull() & (F.col("t") != ""))
    number = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"
    if text.where(~F.col("t").rlike(number)).limit(1).count():
        return None
    return text.select(F.col("t").cast("double").alias("v"))


def regression_guess(args: Any, names: list[str] | None) -> str | None:
    """How the files' target column reads as a regression target, in the words the table read whole
    says (:func:`perfeval.engine.regression.regression_task`), or None: its distinct values (up to
    :data:`DISTINCT`, else their count and whether one is not whole) found by Spark.  ``names``: the
    score columns of several models (one named after a target: K classes, not a regression).
    """
    from pyspark.sql import functions as F

    from perfeval.engine.regression import regression_task, regression_words
    from perfeval.io.columns import choose

    path = load.path_of(args.file)
    if path is None:
        return None
    with _frame(args, path) as (df, fmt, cols, header):
        try:
            ch = choose(
                cols,
                path,
                header=header,
                target=args.target,
                score=args.score if names is None else names[0],
                group=args.group,
                weight=getattr(args, "weight", None),
            )
        except (InvalidParameterError, InputFormatError):
            if names is None:
                raise
            return None  # said where the models' columns are chosen
        v = _numbers(df, fmt, cols[ch.target.index])
        if v is None:
            return None
        row = v.agg(
            F.count_distinct("v").alias("n"),
            F.sum(F.when(F.isnan("v") | (F.abs("v") == float("inf")), 1).otherwise(0)).alias("bad"),
            F.sum(F.when(F.col("v") != F.floor("v"), 1).otherwise(0)).alias("real"),
        ).first()
        if row is None or not row["n"] or row["bad"]:
            return None
        if row["n"] <= DISTINCT:
            y = np.asarray([r["v"] for r in v.distinct().collect()], dtype=np.float64)
            how = regression_task(y, None)
        else:  # more distinct numbers than grades or classes: a regression target
            how = regression_words(int(row["n"]), bool(row["real"]))
        if how is None:
            return None
        if names is not None:  # a score column named after a target: K classes (their door says so)
            from perfeval.io.grammar import is_number

            values = sorted({float(n) for n in names if is_number(n)})
            if values and v.where(F.col("v").isin(values)).limit(1).count():
                return None
    return f"the target column {ch.target.name!r} " + how.removeprefix("the target ")


def score_columns_targets(args: Any, key: Callable[[Any], str]) -> tuple[Any, Any, str, None] | None:
    """What :func:`perfeval.cli.classes.names_are_classes` reads of the files ``--spark`` reads (the
    rule of ``--score a,b,c`` without ``--classes``, as of a table read whole; ``key``: a value as a
    column would name it): (the columns chosen, the target column's distinct values in the order they
    first appear, typed as the table read whole holds them, the files, None), or None when the files
    cannot say (no such column, a missing target: the path taken says it) or when they hold more than
    :data:`DISTINCT` distinct targets and some score column is named after none of them (several
    models, by the rule).
    """
    from pyspark.sql import functions as F

    from perfeval.backends.spark import column
    from perfeval.io.columns import choose
    from perfeval.io.grammar import is_number

    path = load.path_of(args.file)
    if path is None:
        return None
    with _frame(args, path) as (df, fmt, cols, header):
        try:
            ch = choose(
                cols,
                path,
                header=header,
                target=args.target,
                score=args.score,
                group=args.group,
                weight=getattr(args, "weight", None),
                several_scores=True,
            )
        except (InvalidParameterError, InputFormatError):
            return None
        name = cols[ch.target.index]
        text = fmt != "parquet"
        col = F.trim(column(name)) if text else column(name)
        seen = df.select(col.alias("t"), F.monotonically_increasing_id().alias("at"))
        missing = F.col("t").isNull() | (F.col("t") == "") if text else F.col("t").isNull()
        if seen.where(missing).limit(1).count():
            return None
        firsts = seen.groupBy("t").agg(F.min("at").alias("at")).orderBy("at")
        wanted = frozenset(c.name for c in ch.scores)
        got = [r["t"] for r in firsts.limit(DISTINCT + len(wanted) + 1).collect()]
        if len(got) > DISTINCT + len(wanted):  # every column named after a target: all, for the message
            numeric = [float(c) for c in wanted if is_number(c)]
            named = F.col("t").cast("string").isin(sorted(wanted))
            if numeric:
                named = named | F.col("t").cast("double").isin(numeric)
            present: set = set()
            for t in (r["t"] for r in seen.where(named).select("t").distinct().collect()):
                if text:  # as written, and a number by its value (2.0 names the column 2)
                    present |= {t, key(float(t))} if is_number(t) else {t}
                else:
                    present.add(key(t))
            if not wanted <= present:
                return None
            got = [r["t"] for r in firsts.collect()]
    if text:  # as the table read whole holds the column: numbers when every cell is one, else text
        numbers = all(is_number(t) for t in got)
        values = np.asarray(got, dtype=np.float64 if numbers else str)
    else:
        values = np.asarray(got)
    return ch, values, path, None
