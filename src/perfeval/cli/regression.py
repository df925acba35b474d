"""``perfeval eval`` of a regression target: a real target column and a prediction column, or several
(``--score a,b,c``: several models, a row each, as several binary models print) (docs/input.md,
"Regression"), in memory, streamed (``--stream``: each chunk folded into the exact summary, the bits
of the whole table) or on Dask (``--dask``: each partition's exact summary, merged; the bits of
memory); ``--ci``: the intervals of :func:`perfeval.ci` on the rows read (in memory).

A target is a regression target when ``--task regression`` is given, when a regression measure is
named (``-m mae,rmse,r2``), or, with no measure named (or only ``rmse``/``mse``), no ``--pos-label``
and no ``--partition``, when the target column holds real values or many whole numbers: then a note
says so (never a positive label to name).
"""

from __future__ import annotations

import copy
import functools
import os
from typing import Any

import numpy as np

from perfeval.cli import load, slices
from perfeval.exceptions import InputFormatError, InvalidParameterError

__all__ = ["requested", "run", "models", "stream", "target_values"]


def target_values(table: Any, name: str, values: Any) -> np.ndarray:
    """The target column as finite numbers, or one line naming the file, the line and the column:
    the column's first bad line (a value that is no number, an empty field, one that is not finite).
    """

    def finite(y: np.ndarray) -> np.ndarray:
        bad = ~np.isfinite(y)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputFormatError(
                f"the target column {name!r} holds {float(y[i])!r}; a regression target must be finite "
                "numbers",
                source=table.source,
                **table.at(i),
            )
        return y

    return load.in_order(table, name, values, "target", finite)


def requested(args: Any, specs: list, path: str | None, table_of: Any) -> str | None:
    """How the run is a regression (the words said), or None: ``--task regression``, a regression
    measure named, or (read whole, or by Spark) a target that looks like one.
    """
    task = getattr(args, "task", None)
    if task == "binary":
        return None
    if task == "regression":
        return "--task regression"
    from perfeval.engine.regression import regression_named

    named = regression_named(specs)
    if named is not None:
        return named
    from perfeval.measures.vocabulary import REGRESSION_OF

    if args.pos_label is not None or any(getattr(args, k, None) for k in ("partition", "stream", "dask")):
        return None
    if args.measures and not all(s.measure.name in REGRESSION_OF for s in specs):
        return None
    if getattr(args, "dialect", None) not in (None, "perfeval"):
        return None
    names = models(args)
    if getattr(args, "spark", None):  # the target's distinct values, found by Spark: as read whole
        from perfeval.cli.spark_tables import regression_guess

        return regression_guess(args, names)
    table = table_of()
    # an empty field (CSV) is no value: the target is told by the others, the empty one said at its
    # line where the values are read; of several score columns, the first chooses the columns here
    first = args if names is None else _with_score(args, names[0])
    try:
        ch = load.choose_table(first, table, empties=False)
    except InputFormatError:
        if names is None:
            raise
        return None  # the columns of several models: said where they are chosen, in their words
    from perfeval.io.tables import numeric

    col = np.asarray(table.get(ch.target, empties=False))
    try:
        y = numeric(table, ch.target.name, col[col != ""] if col.dtype.kind == "U" else col, "target")
    except InputFormatError:
        return None  # labels: the binary door says what they are
    if not np.isfinite(y).all():
        return None
    from perfeval.engine.regression import regression_task

    how = regression_task(y, None)
    if how is None:
        return None
    if names is not None and _named_after_targets(names, y):
        return None  # score columns named after the targets: K classes (their door says so)
    return f"the target column {ch.target.name!r} " + how.removeprefix("the target ")


def _named_after_targets(names: list[str], y: np.ndarray) -> bool:
    """Whether a score column is named after a target value (``--score 1,2,3`` of targets 1, 2, 3:
    a score column a class, which the K classes' door reads).
    """
    from perfeval.io.grammar import is_number

    values = {float(n) for n in names if is_number(n)}
    return bool(values) and bool(np.isin(np.asarray(sorted(values)), y).any())


def models(args: Any) -> list[str] | None:
    """The score columns of ``--score a,b,c`` (several models), or None for one (the messages of
    several binary models').
    """
    if args.score is None or "," not in args.score:
        return None
    names = [c.strip() for c in args.score.split(",")]
    if not all(names):
        raise InvalidParameterError(f"--score {args.score!r}: an empty column name between commas")
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"--score {args.score!r}: a column named twice")
    return names


def _with_score(args: Any, name: str) -> Any:
    one = copy.copy(args)
    one.score = name
    return one


def run(
    args: Any, path: str | None, specs: list, how: str, table_of: Any, warn: Any, on_dask: Any = None
) -> Any:
    """The report of a regression target (``how``: why the target was read so; ``warn``: what writes
    the warnings caught, a line each; ``on_dask``: the command's evaluation on Dask, of ``(args,
    path, specs)``), or with several score columns (``--score a,b,c``) each model's report by its
    column's name, in the order given (the table read once in memory; a file read once a model
    streamed or on Dask).
    """
    from perfeval.engine.regression import regression_specs

    for flag, on in (
        ("--pos-label", args.pos_label is not None),
        ("--partition", bool(args.partition)),
        ("--classes", bool(getattr(args, "classes", None))),
        ("--tie-bounds", bool(getattr(args, "tie_bounds", False))),
    ):
        if on:
            raise InvalidParameterError(f"{flag} does not apply to a regression target ({how}) yet")
    if args.ci is not None and (args.stream or args.dask):
        raise InvalidParameterError(
            f"--ci of a regression target ({how}) reweights every row in each replicate, so it needs the "
            f"rows in memory: drop --{'stream' if args.stream else 'dask'} (the values alone: drop --ci)"
        )
    if getattr(args, "dialect", None) not in (None, "perfeval"):
        raise InvalidParameterError("--dialect: the regression measures have perfeval's rules only")
    named = None if not args.measures else specs
    rspecs = regression_specs(named)
    names = models(args)
    if names is None:
        report = _one(args, path, rspecs, how, table_of, warn, on_dask)
        load.note(f"perfeval: note: regression ({how}): {', '.join(report.results)}\n")
        return report
    if path is None and (args.stream or args.dask):
        raise InvalidParameterError(
            "several --score columns with --stream/--dask read the file once a model: give a file, not "
            "standard input"
        )
    reports: dict[str, Any] = {}
    for name in names:
        # each model's warnings said naming it (``warn(caught, model)``: the command's writer)
        said = functools.partial(warn, model=name)
        report = _one(_with_score(args, name), path, rspecs, how, table_of, said, on_dask)
        # a model is named by its column (--score 2,3 of a file with a header: its names)
        column = report.params.get("columns", {}).get("score") or name
        if column in reports:
            raise InvalidParameterError(f"--score {args.score!r}: column {column!r} named twice")
        reports[column] = report
    labels = ", ".join(next(iter(reports.values())).results)
    load.note(f"perfeval: note: regression ({how}), {len(reports)} models: {labels}\n")
    return reports


def _one(args: Any, path: str | None, rspecs: list, how: str, table_of: Any, warn: Any, on_dask: Any) -> Any:
    """One model's report (one score column): on Dask, streamed, or in memory (with ``--ci``)."""
    import warnings

    from perfeval.base.checks import say_zero_weight_groups
    from perfeval.engine.regression import check_regression, finish_regression

    if args.dask or getattr(args, "spark", None):  # on_dask: the command's evaluation there
        if args.stream:
            raise InvalidParameterError("--dask and --stream: give one (each reads the file its own way)")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = on_dask(args, path, rspecs)
        warn(caught)
        report.params["task_from"] = how
    elif args.stream:
        if slices.columns(args):  # the chunks carry no slice columns: never dropped silently
            raise InvalidParameterError(
                "--by of a regression: not with --stream yet (the slices read the table whole); drop "
                "--stream to evaluate in memory, or use --dask"
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = _stream(args, path, rspecs, how)
        warn(caught)
    else:
        table = table_of()
        # an empty field of a column used is said among the values (the file's first bad line);
        # one of a column not used is no error
        ch = load.choose_table(args, table, empties=False)
        load.say_columns(ch)
        y, s, w, _ = load.earliest(
            lambda: target_values(table, ch.target.name, table.get(ch.target, empties=False)),
            lambda: load.scores(table, ch.score),
            lambda: load.weights(table, ch.weight),
            lambda: table.no_empties(ch.all()),
        )
        g = None if ch.group is None else table.get(ch.group, empties=False)
        by = None
        if slices.columns(args):  # --by: every slice finished as the whole was (docs/slices.md)
            taken = {"target": ch.target, "score": ch.score, "weight": ch.weight}
            by = slices.request_of(args, table, taken, w)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cases = check_regression(y, s, g, w)
            say_zero_weight_groups(cases.zero_groups)
            report = finish_regression(cases, rspecs, task_from=how)
            if by is not None:
                from perfeval.engine.slices import Task

                by.attach(report, cases, Task("regression", tuple(rspecs), task_from=how))
        warn(caught)
        if args.ci is not None and report.slices is not None:  # one set of replicates for all, as binary
            from perfeval.base.progress import wanted
            from perfeval.cli import slices_ci

            slices_ci.attach(args, report, rspecs, wanted(args))
        elif args.ci is not None:
            from perfeval.base.progress import wanted
            from perfeval.stats import ci

            report.intervals = ci(
                y,
                s,
                measures=[sp.label for sp in rspecs],
                method=args.method or "bca",
                level=args.ci,
                n_boot=args.n_boot,
                seed=args.seed,
                groups=g,
                sample_weight=w,
                task="regression",
                progress=wanted(args),
            )
        report.params["source"] = table.source
        report.params["columns"] = ch.names()
    return report


def _stream(args: Any, path: str | None, specs: list, how: str) -> Any:
    """The table read in chunks, each checked (a bad cell: one line naming the file, the line and
    the column, as read whole) and folded into the exact summary, or with ``--group`` spilled by
    group and each group finished from its exact sums: the bits of the whole table.
    """
    from perfeval.backends.stream import evaluate_stream, evaluate_stream_grouped
    from perfeval.io.readers import iter_columns

    chosen: list = []
    grouped = args.group is not None

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch = load.choose_columns(args, names, header, path or "standard input")
        chosen.append(ch)
        load.say_columns(ch)
        return [
            ch.target.index,
            ch.score.index,
            None if ch.group is None else ch.group.index,
            None if ch.weight is None else ch.weight.index,
        ]

    def convert(cols: list, where: Any) -> list:
        """A chunk's checks, as the table read whole is checked: the chunk's first bad line said (a
        value that is no number, one refused, an empty field of a column used, the group's too).
        """
        ch = chosen[0]
        y, s, w, _ = load.earliest(
            lambda: target_values(where, ch.target.name, cols[0]),
            lambda: load.score_values(where, ch.score.name, cols[1]),
            lambda: None if ch.weight is None else load.weight_values(where, ch.weight.name, cols[3]),
            lambda: where.no_empties(ch.all()),
        )
        return [y, s, cols[2], w]

    def chunks():
        for y, s, g, w in iter_columns(
            path,
            chooser,
            args.input_format,
            args.header,
            delimiter=args.delimiter,
            ids={2: "--group"} if grouped else {},
            convert=convert,
        ):
            cols = (y, s, g) if grouped else (y, s)
            yield cols if w is None else (*cols, w)

    if grouped:
        size = os.path.getsize(path) if path and path != "-" and os.path.isfile(path) else None
        report = evaluate_stream_grouped(chunks(), measures=specs, task="regression", size_hint=size)
    else:
        report = evaluate_stream(chunks(), measures=specs, task="regression")
    report.params["task_from"] = how
    report.params["source"] = path or "standard input"
    if chosen:
        report.params["columns"] = chosen[0].names()
    return report


#: :func:`_stream`, for the command's other paths: a value a Dask partition refused, said with its
#: line as the stream reads it (:func:`perfeval.cli.commands.eval._as_read_whole`)
stream = _stream
