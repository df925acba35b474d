"""``perfeval eval`` of K labels (multilabel): one 0/1 target column a label and one score column a
label, read with every error naming the file, the line and the column, then checked and finished by
the engine that finishes ``evaluate(Y, S)`` (:func:`perfeval.engine.door.check_labels`,
:func:`perfeval.engine.labels.finish_labels`), or folded chunk by chunk (``--stream``:
:func:`perfeval.backends.stream.evaluate_stream_labels`, the same bits).

The label columns are named once, by options of their own (``--classes`` names the score columns of
K classes, whose target is ONE column holding a label a row; here each label has its own 0/1 target
column):

* ``--labels spam,urgent,promo``: the 0/1 target columns, one a label; the labels are their names.
* ``--label-prefix y_``: the target columns are every column named ``y_<label>``, in the file's order.

and the score columns, one a label in the same order: ``--score p_spam,p_urgent,p_promo``, or
``--score-prefix p_`` (the column ``p_<label>`` of each label).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from perfeval.base.progress import wanted
from perfeval.base.text import place
from perfeval.cli import load, slices
from perfeval.exceptions import InputFormatError, InvalidParameterError

__all__ = ["requested", "run"]


def requested(args: Any) -> bool:
    """Whether the command line asks for K labels (``--labels`` or ``--label-prefix``)."""
    return bool(getattr(args, "labels", None) or getattr(args, "label_prefix", None))


def _refuse(args: Any) -> None:
    """The options that do not apply to K labels (yet): one line each, before any work."""
    for flag, on in (
        ("--target", args.target is not None),
        ("--classes", bool(getattr(args, "classes", None))),
        ("--long", getattr(args, "long", False)),
        ("--pos-label", args.pos_label is not None),
        ("--partition", bool(args.partition)),
        ("--ci", args.ci is not None),
        ("--confusion", getattr(args, "confusion", False)),
        ("--dialect", (getattr(args, "dialect", "perfeval") or "perfeval") != "perfeval"),
        ("--id", bool(getattr(args, "id", None))),
    ):
        if on:
            why = (
                "the targets are the label columns (--labels)"
                if flag == "--target"
                else "--classes names the score columns of K classes (one target column)"
                if flag == "--classes"
                else "document ids are read only by the dialects that break ties by id (trec_eval), "
                "not for K labels; perfeval's rules take every order of a tie: drop it"
                if flag == "--id"
                else "not for K labels (a 0/1 target column a label) yet; the multilabel measures: "
                "`perfeval list-measures`"
            )
            raise InvalidParameterError(f"{flag} with --labels/--label-prefix: {why}")
    if args.labels and args.label_prefix:
        raise InvalidParameterError("--labels names the label columns: give it or --label-prefix, not both")
    if args.stream and slices.columns(args):  # the chunks carry no slice columns: never dropped silently
        raise InvalidParameterError(
            "--by of K labels: not with --stream yet (the slices read the table whole); drop --stream to "
            "evaluate in memory, or use --dask"
        )


def _split(text: str, flag: str) -> list[str]:
    out = [c.strip() for c in text.split(",")]
    if not all(out):
        raise InvalidParameterError(f"{flag} {text!r}: an empty column name between commas")
    if len(out) < 2:
        raise InvalidParameterError(f"{flag} {text!r}: K labels need K >= 2 label columns")
    return out


def _choose(args: Any, names: list[str], header: bool, source: str) -> tuple[list, list, Any, Any, list[str]]:
    """(the label columns, the score columns, the weight column, the group column, the labels)."""
    from perfeval.io.columns import pick

    if args.label_prefix is not None:
        prefix = args.label_prefix
        if not header:
            raise InvalidParameterError(
                f"--label-prefix {prefix}: {place(source)} has no header (no column names to match)"
            )
        found = [n for n in names if n.startswith(prefix) and len(n) > len(prefix)]
        if len(found) < 2:
            raise InvalidParameterError(
                f"--label-prefix {prefix}: {place(source)} has {len(found)} column(s) named {prefix}<label> "
                f"(columns: {', '.join(names)}); K labels need K >= 2 label columns"
            )
        written = found
        labels = [n[len(prefix) :] for n in found]
    else:
        written = _split(args.labels, "--labels")
        labels = list(written)
    ycols = [_column(names, c, "label", source, header) for c in written]
    if args.label_prefix is None:
        labels = [c.name for c in ycols]  # the columns' names (a position: its header's name)
    prefix = getattr(args, "score_prefix", None)
    if prefix is not None:
        if args.score is not None:
            raise InvalidParameterError(
                "--score-prefix names the score columns: give it or --score, not both"
            )
        specs = [prefix + lab for lab in labels]
    elif args.score is None:
        raise InvalidParameterError(
            "K labels need a score column a label, in the order of the label columns: --score "
            "p_spam,p_urgent or --score-prefix p_"
        )
    else:
        specs = [c.strip() for c in args.score.split(",")]
        if len(specs) != len(ycols):
            raise InvalidParameterError(
                f"--score names {len(specs)} columns for the {len(ycols)} label columns: one score column "
                "a label, in the same order"
            )
    scols = [_column(names, c, "score", source, header) for c in specs]
    if args.score is not None and header:
        _same_order(ycols, scols)
    weight = pick(names, getattr(args, "weight", None), "weight", source, header=header, default=False)
    group = pick(names, args.group, "group", source, header=header, default=False)
    used = [c for c in (*ycols, *scols, weight, group) if c is not None]
    seen: dict[int, str] = {}
    for c in used:
        if c.index in seen:
            raise InvalidParameterError(
                f"column {c.name!r} is named twice (as a label, score, weight or group)"
            )
        seen[c.index] = c.name
    if len(set(labels)) != len(labels):
        twice = next(c for c in labels if labels.count(c) > 1)
        raise InvalidParameterError(f"the labels name {twice!r} twice: one label a column")
    return ycols, scols, weight, group, labels


def _same_order(ycols: list, scols: list) -> None:
    """An explicit --score order that plainly disagrees with the label columns: both sides named
    prefix + label (``y_spam``, ``p_spam``), the same labels, in another order, is one line (a score
    column a label, paired in order: ``y_spam`` with ``p_promo`` would be scored silently).
    """
    import os

    ys, ss = [c.name for c in ycols], [c.name for c in scols]
    py, ps = os.path.commonprefix(ys), os.path.commonprefix(ss)
    if not py or not ps or py == ps:
        return
    yl, sl = [n[len(py) :] for n in ys], [n[len(ps) :] for n in ss]
    if yl == sl or sorted(yl) != sorted(sl) or len(set(yl)) != len(yl) or not all(yl):
        return
    i = next(i for i, (a, b) in enumerate(zip(yl, sl, strict=True)) if a != b)
    order = ",".join(ps + lab for lab in yl)
    raise InvalidParameterError(
        f"--score pairs the label column {ys[i]!r} with the score column {ss[i]!r}: the score columns "
        f"name the same labels in another order; one score column a label, in the label columns' order: "
        f"--score {order} (or --score-prefix {ps})"
    )


def _column(names: list[str], spec: str, role: str, source: str, header: bool) -> Any:
    """The column ``spec`` (a name or a 1-based position) names, or one line saying why none."""
    from perfeval.io.columns import pick

    c = pick(names, spec, role, source, header=header, default=False)
    assert c is not None  # a spec given: a column, or pick's error
    return c


def label_values(where: Any, name: str, values: Any) -> np.ndarray:
    """A 0/1 label column (as read: numbers, or text where a value is not one) as booleans, or one
    line naming the file, the line, the column and the value.
    """

    def zero_one(v: np.ndarray) -> np.ndarray:
        bad = (v != 0) & (v != 1)
        if bad.any():
            i = int(np.argmax(bad))
            x = float(v[i])
            # as the file writes it (2.50, not the 2.5 read); where the table cannot say (Parquet),
            # a number read whole is float64: an integral one is shown whole (2, not 2.0)
            said = where.written(i, name, x)
            if said == repr(x) and x.is_integer() and abs(x) < 2**53:
                said = str(int(x))
            raise InputFormatError(
                f"the label column {name!r} holds {said}; a label column holds 0 or 1 (off or on)",
                source=where.source,
                **where.at(i),
            )
        return v == 1

    # the column's first bad line: a 2 on line 3 before an empty field on line 9
    return load.in_order(where, name, np.asarray(values), "label", zero_one)


def _how(args: Any, ycols: list) -> str:
    if args.label_prefix is not None:
        return f"--label-prefix {args.label_prefix!r}: the columns {', '.join(c.name for c in ycols)}"
    return "--labels: the label columns' names"


def _wide(args: Any, table: Any, specs: list) -> Any:
    """The report of a table read whole: its columns chosen and checked with the file's lines, then
    the engine's door and finish.
    """
    from perfeval.engine.door import check_labels
    from perfeval.engine.labels import finish_labels

    t = table
    ycols, scols, weight, group, labels = _choose(args, t.names, t.header, t.source)
    k = len(ycols)
    # every column's check (its nulls too) at once: the error of the file's first bad line
    *columns, w, _ = load.earliest(
        *(lambda c=c: label_values(t, c.name, t.get(c, empties=False)) for c in ycols),
        *(lambda c=c: load.scores(t, c) for c in scols),
        lambda: load.weights(t, weight),
        lambda: t.no_nulls([*ycols, *scols, *(c for c in (weight, group) if c is not None)]),
    )
    y = np.column_stack(columns[:k])
    s = np.column_stack(columns[k:])
    groups = None if group is None else t.get(group)
    cases, _found, _how_found = check_labels(y, s, groups, w, labels=tuple(labels))
    report = finish_labels(
        cases, specs, tuple(labels), threshold=args.threshold, labels_from=_how(args, ycols)
    )
    if slices.columns(args):  # --by: every slice finished as the whole was (docs/slices.md)
        from perfeval.engine.slices import Task

        by = slices.request_of(args, t, {"label": ycols, "score": scols, "weight": weight}, w)
        task = Task(
            "labels", tuple(specs), args.threshold, classes=tuple(labels), classes_from=_how(args, ycols)
        )
        by.attach(report, cases, task)
    report.params["source"] = t.source
    report.params["columns"] = {
        "labels": [c.name for c in ycols],
        "scores": [c.name for c in scols],
        **({"weight": weight.name} if weight is not None else {}),
        **({"group": group.name} if group is not None else {}),
    }
    if getattr(args, "tie_bounds", False):  # each measure's range over the orders of the tied scores
        from perfeval.engine.label_bounds import with_tie_bounds

        with_tie_bounds(report, cases, specs)
    return report


def _stream(args: Any, path: str | None, specs: list) -> Any:
    """A table read in chunks, each checked as a table read whole is and its rows folded into one
    summary in row order (:func:`perfeval.backends.stream.evaluate_stream_labels`), or with --group
    spilled by group (or --clustered) and finished group by group
    (:func:`perfeval.backends.stream.evaluate_stream_grouped_classes`, ``task="multilabel"``): the
    bits of the evaluation in memory.
    """
    import os

    from perfeval.backends.stream import evaluate_stream_grouped_classes, evaluate_stream_labels
    from perfeval.io.readers import iter_columns

    source = path or "standard input"
    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        got = _choose(args, names, header, source)
        chosen.append(got)
        ycols, scols, weight, group, _labels = got
        return [
            None if weight is None else weight.index,
            None if group is None else group.index,
            *(c.index for c in ycols),
            *(c.index for c in scols),
        ]

    def convert(cols: list, where: Any) -> list:
        ycols, scols, weight, _group, _labels = chosen[0]
        k = len(ycols)
        w, ys, ss = cols[0], cols[2 : 2 + k], cols[2 + k :]
        *columns, weights, _ = load.earliest(
            *(lambda c=c, v=v: label_values(where, c.name, v) for c, v in zip(ycols, ys, strict=True)),
            *(lambda c=c, v=v: load.score_values(where, c.name, v) for c, v in zip(scols, ss, strict=True)),
            lambda: None if w is None else load.weight_values(where, weight.name, w),
            lambda: where.no_empties([*ycols, *scols, *(c for c in (weight, _group) if c is not None)]),
        )
        return [np.column_stack(columns[:k]), np.column_stack(columns[k:]), weights, cols[1]]

    cols = iter_columns(
        path,
        chooser,
        args.input_format,
        args.header,
        progress=wanted(args),
        ids={1: "--group"},
        delimiter=args.delimiter,
        convert=convert,
    )
    if args.group is None:
        chunks: Any = ((c[0], c[1]) if c[2] is None else (c[0], c[1], c[2]) for c in cols)
    else:  # spilled by group to temporary files (or --clustered), then evaluated group by group
        chunks = ((c[0], c[1], c[3]) if c[2] is None else (c[0], c[1], c[3], c[2]) for c in cols)
    first = next(chunks, None)
    if not chosen:
        raise InputFormatError("no header and no rows: nothing to evaluate", source=source)
    ycols, scols, weight, _group, labels = chosen[0]
    if args.group is not None:
        report = evaluate_stream_grouped_classes(
            itertools.chain([] if first is None else [first], chunks),
            labels,
            measures=specs,
            task="multilabel",
            threshold=args.threshold,
            classes_from=_how(args, ycols),
            clustered=getattr(args, "clustered", False),
            size_hint=os.path.getsize(path) if path is not None and os.path.isfile(path) else None,
            progress=wanted(args),
        )
        report.params["source"] = source
        return report
    report = evaluate_stream_labels(
        itertools.chain([] if first is None else [first], chunks),
        labels,
        measures=specs,
        threshold=args.threshold,
        labels_from=_how(args, ycols),
    )
    report.params["source"] = source
    return report


def run(args: Any, *, stream_bytes: int) -> int:
    """``perfeval eval`` of K labels; a file over ``stream_bytes`` is streamed (without --group or
    --tie-bounds, which read the table whole).
    """
    import os

    from perfeval.cli.output import classes_text, group_csv, write
    from perfeval.engine.labels import label_specs

    _refuse(args)
    specs = label_specs(args.measures or None, args.threshold)
    path = load.path_of(args.file)
    big = path is not None and os.path.isfile(path) and os.path.getsize(path) > stream_bytes
    if getattr(args, "spark", None):  # the files read by Spark, each partition summarised where it lies
        from perfeval.cli.spark_tables import labels_report as on_spark

        report = on_spark(args, path, _choose, _how)
    elif args.dask is not None:  # the files read as Dask partitions, the summaries merged on the cluster
        import copy

        from perfeval.cli.dask_tables import labels_report

        one = copy.copy(args)  # a value a partition refused: its line, the files streamed again
        one.stream, one.dask, one.spark = True, None, None
        report = labels_report(args, path, _choose, _how, lambda f: _stream(one, f, specs))
    elif args.stream or (
        big and args.group is None and not getattr(args, "tie_bounds", False) and not slices.columns(args)
    ):
        report = _stream(args, path, specs)
    else:
        report = _wide(args, load.read(args, args.file), specs)
    text = slices.with_slices(report, args.format, classes_text(report, args.format, args.per_group))
    if args.per_group_output:
        import sys

        from perfeval.base.console import write_file

        write_file(args.per_group_output, group_csv(report).encode("utf-8"))
        sys.stderr.write(f"perfeval: wrote {place(args.per_group_output)}\n")
    write(text)
    return 0
