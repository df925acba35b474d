"""``perfeval explain``: the measures of one table under every dialect, and the rules behind each
difference (:func:`perfeval.explain`).
"""

from __future__ import annotations

import math
from typing import Any

from perfeval.api.explanation import explain
from perfeval.cli import load
from perfeval.cli.output import csv_field, write
from perfeval.engine import resolve
from perfeval.exceptions import InvalidParameterError, PerfError

# perfeval.trec (and through it the statistics) is imported where a TREC run is explained.


def run(args: Any) -> int:
    if getattr(args, "spark", None):
        return _spark(args)
    if args.run is not None:
        return _trec(args)
    if args.classes or args.score_prefix or (args.score is not None and "," in args.score):
        return _classes(args)
    table: Any = None

    def table_of() -> Any:  # read once: to tell the task, then explained
        nonlocal table
        if table is None:
            table = load.read(args, args.file)
        return table

    how = _regression_how(args, table_of)
    if how is not None:
        return _regression(args, table_of(), how)
    from perfeval.io.columns import pick

    table = table_of()
    ch = load.choose_table(args, table, empties=False)  # an empty field: said among the values
    load.say_columns(ch)

    groups = None if ch.group is None else table.get(ch.group, empties=False)
    id_col = (
        pick(table.names, args.id, "id", table.source, header=table.header, default=False)
        if args.id
        else None
    )
    picked = None if id_col is None else (id_col.name, table.get(id_col, empties=False))
    target = table.get(ch.target, empties=False)
    specs = resolve(args.measures, args.threshold)
    if id_col is not None:  # said in the command's words, before explain() would say ids=
        from perfeval.api.explanation import dialects_shown
        from perfeval.dialects.apply import ID_DIALECTS, ids_not_read

        unread = ids_not_read(
            dialects_shown(args.dialects, specs),
            f"--id {args.id}",
            f"explain a measure {' or '.join(ID_DIALECTS)} defines, with it in --dialects",
        )
        if unread is not None:
            raise unread
    binary = any(s.measure.kind == "binary" for s in specs)
    # the targets checked as eval checks them (the first bad line said, in the command's words); a
    # coding of their own (0/1, -1/1) is left to the dialects, which read it each its own way
    coded, score, weights, _ = load.earliest(
        lambda: load.targets(
            table, ch.target.name, target, args.pos_label, binary or args.pos_label is not None
        ),
        lambda: load.scores(table, ch.score),
        lambda: load.weights(table, ch.weight, specs),  # counts (APR, the debiased ECE): the line said
        lambda: table.no_empties([*ch.all(), *([] if id_col is None else [id_col])]),
    )
    if args.pos_label is not None:
        target = coded
    e = explain(
        target,
        score,
        measures=args.measures,
        groups=groups,
        ids=None if picked is None else picked[1],
        sample_weight=weights,
        dialects=args.dialects,
        threshold=args.threshold,
        task=getattr(args, "task", None),
    )
    _write(e, args)
    return 0


def _classes(args: Any) -> int:
    """``perfeval explain`` of K classes: the class columns read as ``perfeval eval`` reads them
    (:mod:`perfeval.cli.classes`), then :func:`perfeval.explain` with the classes.
    """
    import numpy as np

    from perfeval.cli.classes import choose_wide, label_positions, read_table, target_codes

    for flag, on in (
        ("--group", args.group is not None),
        ("--id", args.id is not None),
        ("--pos-label", getattr(args, "pos_label", None) is not None),
    ):
        if on:
            raise InvalidParameterError(
                f"{flag} does not apply to explain of K classes (a score column a class) yet"
            )
    if args.threshold != 0.5:
        raise InvalidParameterError(
            f"-t {args.threshold:g}: a threshold does not apply to K classes (the prediction is the argmax)"
        )
    args.long, args.class_column = False, None  # the wide form: a score column a class
    table = read_table(args, label_positions(args, False))
    ch, classes = choose_wide(args, table.names, table.header, table.source)
    used = [ch.target, *ch.scores, *(c for c in (ch.weight,) if c is not None)]
    table.no_nulls(used, empties=False)  # a null first (Parquet); an empty field among the values
    load.say_columns(ch)
    raw = table.get(ch.target, empties=False)
    classes.typed(raw)
    codes, *columns, weights, _ = load.earliest(
        lambda: target_codes(table, ch.target.name, raw, classes),
        *(lambda c=c: load.scores(table, c) for c in ch.scores),
        # counts (APR, the debiased ECE_TOP): a fractional weight's line said, as eval says it
        lambda: load.weights(table, ch.weight, resolve(args.measures, 0.5, pending=True)),
        lambda: table.no_empties(used),
    )
    labels = classes.labels
    y = np.asarray(labels, dtype=object)[codes] if len(codes) else np.asarray([], dtype=object)
    e = explain(
        y,
        np.column_stack(columns),
        measures=args.measures,
        sample_weight=weights,
        dialects=args.dialects,
        classes=labels,
    )
    _write(e, args)
    return 0


def _spark(args: Any) -> int:
    """``perfeval explain FILES --spark MASTER``: the files read by Spark on that master, and
    :func:`perfeval.spark.explain` there (the exact ROC and AP, the ``spark`` dialect's, and Spark's own
    ``BinaryClassificationEvaluator``; ``numBins`` from ``--dialects spark:numBins=N``).
    """
    from perfeval.api.spark_explanation import explain_spark, explained
    from perfeval.backends.spark import connect, read_errors, read_files, spark_numbers
    from perfeval.dialects.apply import parse_dialect
    from perfeval.exceptions import InputFormatError, InvalidDataError
    from perfeval.io.base import files
    from perfeval.io.columns import choose

    for flag, on in (
        ("a TREC run", args.run is not None),
        ("--group", args.group is not None),
        ("--id", args.id is not None),
        ("--pos-label", getattr(args, "pos_label", None) is not None),
        ("K classes", bool(args.classes or args.score_prefix or (args.score and "," in args.score))),
        ("--task", getattr(args, "task", None) is not None),
        ("-t", args.threshold != 0.5),
    ):
        if on:
            raise InvalidParameterError(
                f"explain --spark: not with {flag} (Spark's BinaryClassificationEvaluator: ROC and AP over "
                "all rows); drop --spark to explain in memory"
            )
    num_bins = 1000
    for text in [p for p in (args.dialects or "").split(",") if p.strip()]:
        d, opts = parse_dialect(text)
        if d.name == "spark":
            num_bins = int(opts["numBins"])
        elif d.name != "perfeval":
            raise InvalidParameterError(
                f"explain --spark: the dialects are perfeval and spark (spark:numBins=N), not {d.name}"
            )
    path = args.file
    if path in (None, "-"):
        raise InvalidParameterError("--spark reads files (a path or a glob), not standard input")
    explained(args.measures)  # a measure Spark's evaluator has not: said before Spark starts
    with connect(args.spark) as session, read_errors(path):  # a file a task cannot read: one line
        df, fmt = read_files(session, path, args.input_format, args.header, args.delimiter)
        names = list(map(str, df.columns))
        ch = choose(
            names,
            files(path)[0],
            header=fmt == "parquet" or args.header is not False,
            target=args.target,
            score=args.score,
            weight=args.weight,
        )
        load.say_columns(ch)
        target = names[ch.target.index]
        try:
            if fmt != "parquet":  # text: the target typed as read whole
                df = spark_numbers(df, target)
            e = explain_spark(
                df,
                target=target,
                score=names[ch.score.index],
                weight=None if ch.weight is None else names[ch.weight.index],
                measures=args.measures,
                num_bins=num_bins,
            )
        except InvalidDataError as err:  # a column's values, found on an executor: the file and the column
            raise InputFormatError(str(err), source=path) from None
    if e.rows == 0:
        raise InputFormatError("holds no data", source=path)
    _write(e, args)
    return 0


def _regression_how(args: Any, table_of: Any) -> str | None:
    """Why the table's target is a regression target, in ``perfeval eval``'s words, or None: as eval
    tells it (:func:`perfeval.cli.regression.requested`: ``--task regression``, a regression measure
    named, or only rmse/mse asked of a target of real values or many whole numbers).
    """
    from perfeval.cli.regression import requested

    specs = resolve(args.measures, args.threshold, pending=True)
    try:
        return requested(args, specs, load.path_of(args.file), table_of)
    except PerfError:  # the table or its columns not as asked: said where they are read
        return None


def _regression(args: Any, table: Any, how: str) -> int:
    """``perfeval explain`` of a regression target (``how``: why it is one, said under the table as
    eval's note says it): the target and prediction columns read as ``perfeval eval`` reads them
    (:mod:`perfeval.cli.regression`), then :func:`perfeval.explain`.
    """
    from perfeval.cli.regression import target_values

    for flag, on in (
        ("--group", args.group is not None),
        ("--id", args.id is not None),
        ("--pos-label", getattr(args, "pos_label", None) is not None),
    ):
        if on:
            raise InvalidParameterError(f"{flag} does not apply to explain of a regression target yet")
    ch = load.choose_table(args, table, empties=False)
    load.say_columns(ch)
    y, score, weights, _ = load.earliest(
        lambda: target_values(table, ch.target.name, table.get(ch.target, empties=False)),
        lambda: load.scores(table, ch.score),
        lambda: load.weights(table, ch.weight),
        lambda: table.no_empties(ch.all()),
    )
    e = explain(
        y,
        score,
        measures=args.measures,
        sample_weight=weights,
        dialects=args.dialects,
        task="regression",
    )
    e.where = f"{e.rows} rows, a regression target ({how})"  # eval's words: the column, the option
    _write(e, args)
    return 0


def _trec(args: Any) -> int:
    """``perfeval explain QRELS RUN``: :func:`perfeval.trec.explain`."""
    from perfeval import trec

    given = [f"--{o}" for o in ("target", "score", "group", "weight", "id") if getattr(args, o) is not None]
    if given:
        raise InvalidParameterError(
            f"{given[0]} names a column of a table; with judgments and a run (QRELS RUN) the columns are "
            "the TREC files' (or qid, docid, rel / score in tables)"
        )
    if "-" in (args.file, args.run):
        raise InvalidParameterError("explain QRELS RUN reads files: give both as files, not standard input")
    _write(trec.explain(args.file, args.run, measures=args.measures, dialects=args.dialects), args)
    return 0


def _write(e: Any, args: Any) -> None:
    if args.format == "json":
        write(e.to_json() + "\n")
    elif args.format == "csv":
        rows = [",".join(["dialect", *map(csv_field, e.measures)])]
        for d in e.dialects:
            vals = [e.value(d, m) for m in e.measures]
            rows.append(",".join([csv_field(d), *("" if math.isnan(v) else repr(v) for v in vals)]))
        write("\n".join(rows) + "\n")
    else:
        write(str(e))
