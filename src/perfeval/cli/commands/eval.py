"""``perfeval eval``: the measures of one table, in memory, streamed in chunks, or on Dask."""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import sys
import warnings
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import check_options
from perfeval.base.console import one_line, write_file
from perfeval.base.progress import wanted
from perfeval.base.text import place
from perfeval.cli import load, probability_notes, slices, slices_ci
from perfeval.cli.output import FROM_SUMMARY, group_csv, models_group_csv, models_text, report_text, write
from perfeval.cli.probability_notes import ProbabilityCases, probability_asked
from perfeval.engine import DEFAULT_MEASURES, resolve
from perfeval.engine.door import check, code
from perfeval.engine.finish import threshold_companions, with_thresholds
from perfeval.exceptions import (
    CommentLinesWarning,
    GradesAsLabelsWarning,
    InputFormatError,
    InvalidDataError,
    InvalidParameterError,
    PerfError,
    ZeroWeightGroupsWarning,
)
from perfeval.io.columns import choose, pick
from perfeval.io.parquet import empty_parquet
from perfeval.io.readers import iter_columns
from perfeval.measures.spec import refuse_pending

# Imported where the run takes that path: the stream and Dask backends, the dialects (--dialect),
# the statistics (--ci) and the in-memory evaluation (`perfeval compare` imports this module without it).

#: files over this size are streamed when every measure allows it
STREAM_BYTES = 256 << 20


def check_ci_options(args: Any) -> None:
    """Refuse a bad level or replicate count before any work is done."""
    if not 0.0 < args.ci < 1.0:
        raise InvalidParameterError(
            f"the confidence level must lie strictly between 0 and 1, got {args.ci:g}"
        )
    if args.n_boot < 2 and args.method not in ("delong", "t", "wald"):
        raise InvalidParameterError(f"the bootstrap needs at least 2 replicates, got --n-boot {args.n_boot}")


def _dialect(args: Any) -> str | None:
    """The dialect's name when one other than perfeval's is asked for, after checking it combines."""
    from perfeval.dialects.apply import parse_dialect

    text = getattr(args, "dialect", "perfeval") or "perfeval"
    d, _opts = parse_dialect(text)
    if d.name == "perfeval":
        return None
    for flag, on in (
        ("--stream", args.stream),
        ("--dask", args.dask),
        ("--ci", args.ci is not None),
        ("--tie-bounds", getattr(args, "tie_bounds", False)),
        ("--partition", bool(args.partition)),
    ):
        if on:
            raise InvalidParameterError(f"--dialect {text}: not with {flag} (dialects evaluate in memory)")
    return d.name


def _check_options(args: Any) -> None:
    slices.check_options(args)
    slices_ci.check_options(args, slices.columns(args))
    if (args.per_group or args.per_group_output) and args.group is None:
        flag = "--per-group" if args.per_group else "--per-group-output"
        raise InvalidParameterError(f"{flag} needs --group COLUMN (the groups to list)")

    if getattr(args, "tie_bounds", False) and (args.stream or args.dask):
        raise InvalidParameterError(
            "--tie-bounds evaluates in memory (the bounds are the measures of two orders of the rows "
            "themselves); drop --stream/--dask"
        )
    if args.ci is None:
        return
    check_ci_options(args)
    if args.partition:
        raise InvalidParameterError("--ci does not combine with --partition yet")
    if args.method == "wald" and args.measures and not _regression_asked(args):
        _wald_asked(args)
    # Wald's interval draws no replicate: computed from the merged summary, weights included
    weighted = args.weight and args.method != "wald"
    if (args.dask or args.stream) and (args.group or weighted) and not _regression_asked(args):
        said = "--group" if args.group else "--weight"
        raise InvalidParameterError(
            "--ci with --stream or --dask is for measures over all cases, unweighted but with --method wald "
            f"(drawn from the merged summary); drop {said}, or --stream/--dask to evaluate in memory"
        )


def _wald_asked(args: Any) -> None:
    """``--method wald``: each measure asked has Wald's interval (the logistic calibration fits,
    over all cases), or one line before any data is read (it was said after the measures were
    computed, their warnings first).
    """
    from perfeval.stats.api import wald_offered

    try:
        specs = resolve(args.measures, 0.5, pending=True)
    except InvalidParameterError:
        return  # said where the measures are read
    for s in specs:
        wald_offered(s, args.group is not None)


def _regression_asked(args: Any) -> bool:
    """Whether the command line asks for a regression itself (``--task regression``, or a regression
    measure named): its own checks (:mod:`perfeval.cli.regression`) say what it refuses.
    """
    if getattr(args, "task", None) == "regression":
        return True
    if getattr(args, "task", None) == "binary" or not args.measures:
        return False
    try:
        return any(s.measure.kind == "regression" for s in resolve(args.measures, 0.5, pending=True))
    except InvalidParameterError:
        return False  # said where the measures are read


#: the warnings written in this run (several models meet the same undefined groups: said once)
_SAID: set[str] = set()
#: several models (``--score a,b,c``): each warning's text and the models it is about, in the order
#: met, said once naming them when every model is done (:func:`_by_model`); None for one model
_BY_MODEL: dict[str, list[str]] | None = None


def _warn(caught: list, model: str | None = None) -> None:
    """Each warning caught, a line on stderr; of several models (``model`` named while
    :func:`_by_model` collects), kept to be said once naming the models it is about.
    """
    for w in caught:  # never a silent drop: say what is undefined, on stderr, a line each
        if isinstance(w.message, (CommentLinesWarning, ZeroWeightGroupsWarning)):  # a note
            load.note(f"perfeval: note: {one_line(w.message)}\n")
            continue
        if isinstance(w.message, GradesAsLabelsWarning):  # said already, naming the column
            continue
        if model is not None and _BY_MODEL is not None:
            models = _BY_MODEL.setdefault(one_line(w.message), [])
            if model not in models:
                models.append(model)
            continue
        line = f"perfeval: warning: {one_line(w.message)}\n"
        if line not in _SAID:
            _SAID.add(line)
            sys.stderr.write(line)


def _model_of(args: Any) -> str | None:
    """The model a run of several ``--score`` columns is at (its column as given), else None."""
    return args.score if len(getattr(args, "models", ()) or ()) > 1 else None


@contextlib.contextmanager
def _by_model() -> Any:
    """Several models: the warnings of each collected (:func:`_warn`), then said once each, naming
    the models they are about (``model b: ...``, ``models a, b: ...``), also when a model fails.
    Yields the renaming of a model (its column as given to its column's name, ``2`` to ``age``).
    """
    global _BY_MODEL
    _BY_MODEL = {}

    def rename(given: str, column: str) -> None:
        assert _BY_MODEL is not None
        for models in _BY_MODEL.values():
            models[:] = [column if m == given else m for m in models]

    try:
        yield rename
    finally:
        said, _BY_MODEL = _BY_MODEL, None
        for text, models in said.items():
            who = f"model {models[0]}" if len(models) == 1 else f"models {', '.join(models)}"
            line = f"perfeval: warning: {who}: {text}\n"
            if line not in _SAID:
                _SAID.add(line)
                sys.stderr.write(line)


def _say_probability_notes(
    report: Any, target: Any, score: Any, weights: Any, table: Any, model: str | None = None
) -> None:
    """Scores outside [0, 1] read as probabilities (BRIER, LOGLOSS, ...), counted and the first named
    by its line; an infinite log loss (or CXE), which is right, said why: the cases that give their
    own class a probability of 0, counted, the first by its line, and what clips them.  ``model``:
    the model of several they are about, named.  The other backends count them as they read
    (:mod:`perfeval.cli.probability_notes`) and say the same.
    """
    if not probability_notes.probability_labels(report):  # no measure reads probabilities: no note
        return
    cases = ProbabilityCases()
    cases.add(target, score, weights, table.position)
    cases.say(report, model)


def _id_unread(args: Any) -> None:
    """``--id`` of one target column under a dialect that reads no document ids (perfeval's own:
    every order of a tie; another tool's order): one line, in memory, streamed, on Dask or Spark
    alike, before any row is read (``evaluate(ids=)``'s refusal; it was read and not used).  K
    classes read it as the case column (``--long``) or a column that is no class's score; K labels
    refuse it among their options.
    """
    from perfeval.cli import classes, labels
    from perfeval.dialects.apply import ids_not_read

    if not getattr(args, "id", None) or classes.requested(args) or labels.requested(args):
        return
    text = getattr(args, "dialect", "perfeval") or "perfeval"
    unread = ids_not_read(text, f"--id {args.id}", "pass --dialect trec_eval")
    if unread is not None:
        raise unread


def run(args: Any) -> int:
    _SAID.clear()
    _check_options(args)
    _id_unread(args)
    _check_spark(args)
    if getattr(args, "spark", None):  # one session for every pass of the run (what the task is, each model)
        from perfeval.backends.spark import connect

        with connect(args.spark):
            return _run(args)
    return _run(args)


def _run(args: Any) -> int:
    load.header_by_name(args)  # `label,0,1,...` over `2,0.1,...`: the header, as --target names it
    from perfeval.cli import (
        classes,  # K classes: a score column a class, or a row a case and class
        labels,  # K labels: a 0/1 target column and a score column a label
    )

    if labels.requested(args):
        return labels.run(args, stream_bytes=STREAM_BYTES)
    if classes.requested(args):
        return classes.run(args, stream_bytes=STREAM_BYTES)
    dialect = _dialect(args)
    path = load.path_of(args.file)
    measures = args.measures or DEFAULT_MEASURES
    if dialect is not None and not args.measures:  # every measure the tool defines
        from perfeval.dialects import DIALECTS

        measures = list(DIALECTS[dialect].policies)
    # parsed once, here (a parameter only a measure's form for K classes has waits for the task)
    specs = resolve(measures, args.threshold, trec=dialect == "trec_eval", pending=True)
    per_query = [s.label for s in specs if s.measure.kind in ("ranking", "grouped")]
    if per_query and args.group is None:  # said, not guessed: the whole table is one query
        load.note(
            f"perfeval: note: no --group: {', '.join(per_query)} over the whole table as one query "
            "(--group COLUMN for one value a query)\n"
        )
    from perfeval.cli import regression  # a real target and one prediction column

    table_of = _Table(args)
    how = regression.requested(args, specs, path, table_of)
    if how is not None:
        args.shared_table = table_of
        several = regression.models(args) is not None  # --score a,b,c: a report a model
        with (
            _cluster(args, path) if several else contextlib.nullcontext(),  # on Dask, one cluster
            _by_model() if several else contextlib.nullcontext() as rename,  # warnings name models
        ):
            on = _spark if getattr(args, "spark", None) else _dask
            report = regression.run(args, path, specs, how, table_of, _warn, on_dask=on)
            if several:  # a model by its column's name (--score 2,3 of a file with a header)
                assert rename is not None
                for name, column in zip(regression.models(args) or [], report, strict=True):
                    rename(name, column)
        if args.per_group_output:
            groups = models_group_csv(report) if several else group_csv(report)
            write_file(args.per_group_output, groups.encode("utf-8"))  # whole or not at all
            sys.stderr.write(f"perfeval: wrote {place(args.per_group_output)}\n")
        write(
            slices.models_with_slices(report, args.format, models_text(report, args.format, args.per_group))
            if several
            else slices.with_slices(report, args.format, report_text(report, args.format, args.per_group))
        )
        return 0
    if table_of.table is not None:
        args.shared_table = table_of  # read once
    if dialect is None:  # each operating point's threshold, shown beside its value
        args.thresholds, twins = threshold_companions(specs)
        specs = specs + twins
    names = _models(args)
    if names is None:
        _one_score_a_case(args, specs)
        report = _one(args, path, specs, dialect)
        text = slices.with_slices(report, args.format, report_text(report, args.format, args.per_group))
        groups_text = group_csv(report) if args.per_group_output else ""
    else:  # several models: one row each, or one score column a class (the names are the labels)
        with _cluster(args, path):  # on Dask, one cluster for what they are and for each model
            done = _several(args, names, path, specs, dialect)
        if isinstance(done, int):  # K classes, said already
            return done
        text, groups_text = done
    if args.per_group_output:
        write_file(args.per_group_output, groups_text.encode("utf-8"))  # whole or not at all

        sys.stderr.write(f"perfeval: wrote {place(args.per_group_output)}\n")
    write(text)
    return 0


def _cluster(args: Any, path: str | None) -> Any:
    """The Dask cluster of a run of several ``--score`` columns on Dask (the backend's ``connect``:
    the passes of the run share it), or nothing.
    """
    if not args.dask or path is None:
        return contextlib.nullcontext()
    from perfeval.backends.dask import connect

    return connect(args.dask)


def _several(args: Any, names: list[str], path: str | None, specs: list, dialect: str | None) -> Any:
    """``--score a,b,c``: K classes when the targets name the columns (the report written: 0), else
    several models, a row each: (the text, the per-group CSV or '').
    """
    from perfeval.cli import classes

    shared = _Table(args)
    streamed = args.stream or (
        path is not None and os.path.isfile(path) and os.path.getsize(path) > STREAM_BYTES
    )
    # the same rule in memory and on Dask (every distinct target of the files, from the cluster);
    # streamed, the first chunk's targets
    targets = None
    spark = getattr(args, "spark", None)
    if args.dask:
        from perfeval.cli.dask_tables import score_columns_targets

        targets = functools.partial(score_columns_targets, key=classes.number_key)
    elif spark:
        from perfeval.cli import spark_tables

        targets = functools.partial(spark_tables.score_columns_targets, key=classes.number_key)
    table = None if streamed or args.dask or spark else shared()
    if classes.names_are_classes(args, names, table, targets):
        return classes.run(args, stream_bytes=STREAM_BYTES)  # read again: the target's labels as written
    _one_score_a_case(args, specs)
    if path is None and (args.stream or args.dask):
        raise InvalidParameterError(
            "several --score columns with --stream/--dask read the file once a model: give a file, "
            "not standard input"
        )
    reports = {}
    with _by_model() as rename:  # each warning names the models it is about
        for name in names:
            one = copy.copy(args)
            one.score, one.shared_table, one.models = name, shared, tuple(names)
            report = _one(one, path, specs, dialect)
            # a model is named by its column (--score 2,3 of a file with a header: its names)
            column = report.params.get("columns", {}).get("score") or name
            if column in reports:
                raise InvalidParameterError(f"--score {args.score!r}: column {column!r} named twice")
            rename(name, column)
            reports[column] = report
    return (
        slices.models_with_slices(reports, args.format, models_text(reports, args.format, args.per_group)),
        models_group_csv(reports) if args.per_group_output else "",
    )


def _one_score_a_case(args: Any, specs: list) -> None:
    """What only K classes have, asked of one score a case (a model a column): one line, not dropped
    (a parameter only a measure's multiclass form has, ``roc:average=weighted``; ``--confusion``).
    """
    refuse_pending(specs)
    if getattr(args, "confusion", False):
        raise InvalidParameterError(
            "--confusion prints the confusion matrix of K classes (a score column a class: --score A,B,C "
            "named after the classes, or --classes); here each score column is one model's score"
        )


def _models(args: Any) -> list[str] | None:
    """The score columns of ``--score a,b,c`` (several models), or None for one model."""
    if args.score is None or "," not in args.score:
        return None
    names = [c.strip() for c in args.score.split(",")]
    if not all(names):
        raise InvalidParameterError(f"--score {args.score!r}: an empty column name between commas")
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"--score {args.score!r}: a column named twice")
    return names


def _one(args: Any, path: str | None, specs: list, dialect: str | None) -> Any:
    """One model's report: on Dask, streamed, or in memory (of several, the table is read once)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = None
        cases = ProbabilityCases()  # counted as the backend reads, said as in memory
        if not getattr(args, "tie_bounds", False) and dialect is None:
            if getattr(args, "spark", None):
                report = _spark(args, path, specs, cases)
            else:
                report = _dask(args, path, specs, cases) if args.dask else _stream(args, path, specs, cases)
    if report is not None:
        _warn(caught, _model_of(args))
        cases.say(report, report.params["columns"]["score"] if _model_of(args) else None)
        with_thresholds(report, getattr(args, "thresholds", []))
        if args.ci is not None:
            _summary_intervals(args, report)
        report.params["source"] = path or "standard input"
        return report
    return with_thresholds(_in_memory(args, path, specs), getattr(args, "thresholds", []))


class _Table:
    """The table read once for several models (in memory), on first use."""

    def __init__(self, args: Any) -> None:
        self.args, self.table = args, None

    def __call__(self) -> Any:
        if self.table is None:
            self.table = load.read(self.args, self.args.file)
        return self.table


def _table(args: Any) -> Any:
    return args.shared_table() if getattr(args, "shared_table", None) else load.read(args, args.file)


def _summary_intervals(args: Any, report: Any) -> None:
    from perfeval.stats import ci_from_summary

    if report.summary is None:
        raise InvalidParameterError("--ci: this evaluation kept no summary to draw intervals from")
    if args.method is None:  # the footnote says why the intervals are percentile ones here
        report.interval_why = FROM_SUMMARY
    report.intervals = ci_from_summary(
        report.summary,
        list(report.results),
        method=args.method or "percentile",
        level=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        threshold=args.threshold,
        progress=wanted(args),
    )


def _in_memory(args: Any, path: str | None, specs: list) -> Any:
    from perfeval.api.evaluation import evaluate_cases

    table = _table(args)
    # an empty field of a column used is said among the values, at its line (the file's first bad
    # line is the one said, as streamed); one of a column not used is no error
    ch = load.choose_table(args, table, empties=False)
    load.say_columns(ch)
    target = table.get(ch.target, empties=False)
    groups = None if ch.group is None else table.get(ch.group, empties=False)
    id_col = (
        pick(table.names, args.id, "id", table.source, header=table.header, default=False)
        if getattr(args, "id", None)
        else None
    )
    picked = None if id_col is None else (id_col.name, table.get(id_col, empties=False))
    ids = None if picked is None else picked[1]
    parts = load.partitions(args.partition)
    # --pos-label codes the column for every measure asked, as streamed and on Dask (a ranking
    # measure read the grades in memory unless a binary measure or GAUC came with it); without it,
    # GAUC reads grades (> 0: positive)
    binary = any(s.measure.kind == "binary" for s in specs) or args.pos_label is not None
    if args.pos_label is not None and not parts:
        shown_label = load.label_as_read(args.pos_label, target)
    raw = target
    # the first bad line of the file is the one said, whichever column it is in (as streamed)
    checked, score, weights, _ = load.earliest(
        lambda: (
            raw
            if parts
            else load.targets(
                table,
                ch.target.name,
                raw,
                args.pos_label,
                binary,
                partition=True,
                scores=getattr(args, "models", ()),
            )
        ),
        lambda: load.scores(table, ch.score),
        lambda: load.weights(table, ch.weight, specs),
        lambda: table.no_empties([*ch.all(), *([] if id_col is None else [id_col])]),
    )
    if parts:
        parts = {k: load.labels_as(v, target) for k, v in parts.items()}
    else:
        target = checked
        if not binary:
            load.say_grades_as_labels(target, specs, args.pos_label, ch.target.name)
    tie_bounds = getattr(args, "tie_bounds", False)
    check_options(threshold=args.threshold, tie_bounds=tie_bounds, partitions=parts)
    # the loader coded the target (its errors name the file's lines): the engine reads that coding,
    # it does not code the column again (with partitions, the engine makes each task's targets)
    made: Any = None if parts else ("binary" if binary else "relevance")

    def cases_of(keep_zero: bool) -> Any:  # the check stage, then the loader's coding attached
        cases = check(target, score, groups, weights, keep_zero=keep_zero)
        return cases if made is None else code(cases, made=made)

    by = slices.request_of(args, table, ch, weights) if slices.columns(args) else None

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate_cases(
            cases_of,
            specs,
            threshold=args.threshold,
            partitions=parts,
            tie_bounds=tie_bounds,
            dialect=getattr(args, "dialect", "perfeval") or "perfeval",
            ids=ids,
            slices=by,
        )
    _warn(caught, _model_of(args))
    if not parts:
        _say_probability_notes(
            report, target, score, weights, table, ch.score.name if _model_of(args) else None
        )
    if args.ci is not None and report.slices is not None:  # one set of replicates for all
        slices_ci.attach(args, report, [s for s in specs if not s.companion], wanted(args))
    elif args.ci is not None:
        from perfeval.stats import ci

        report.intervals = ci(
            target,
            score,
            measures=[s for s in specs if not s.companion],  # not the thresholds the command adds
            method=args.method or "bca",
            level=args.ci,
            n_boot=args.n_boot,
            seed=args.seed,
            groups=groups,
            sample_weight=weights,
            threshold=args.threshold,
            progress=wanted(args),
        )
    report.params["source"] = table.source
    report.params["columns"] = ch.names()
    if args.pos_label is not None and not parts:  # the CLI coded the labels: the label it read
        report.params["pos_label"] = shown_label
    if picked is not None:
        report.params["columns"]["id"] = picked[0]
    return report


def _stream(args: Any, path: str | None, specs: list, cases: ProbabilityCases | None = None) -> Any:
    """Chunked evaluation (perfeval.backends.stream); None when the request needs the whole table.
    ``cases``: the probability scores' cases counted, chunk by chunk, each placed at its line.
    """
    from perfeval.engine.finish import one_score_a_case

    one_score_a_case(specs)  # a measure of K classes or labels asked of one score column: said first
    streamable = (
        args.group is not None or all(s.measure.kind == "binary" for s in specs)
    ) and not args.partition
    big = path is not None and os.path.isfile(path) and os.path.getsize(path) > STREAM_BYTES
    if not (args.stream or (big and streamable)):
        return None
    if not streamable:
        raise InvalidParameterError(
            "--stream needs --group for per-group measures, and does not take --partition; drop --stream to "
            "evaluate in memory"
        )
    from perfeval.backends.stream import evaluate_stream, evaluate_stream_grouped

    # this process allocates and frees blocks of 64 MB and their columns, chunk after chunk: keep the
    # freed memory for the next chunk (a fresh mapping's pages are zeroed by the kernel on first
    # touch, a fifth of the reading's time)
    _native.keep_heap()
    chosen: list = []
    id_column: list = []  # read as in memory (an identity: int64 or text, never a float), not used
    by_columns: list = []  # the --by columns (identities, as in memory), after the id column

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch = load.choose_columns(args, names, header, path or "standard input")
        if getattr(args, "id", None):
            id_column.append(
                pick(names, args.id, "id", path or "standard input", header=header, default=False)
            )
        chosen.append(ch)
        load.say_columns(ch)
        by_columns.extend(slices.picked(args, names, header, path or "standard input", ch))
        return [
            ch.target.index,
            ch.score.index,
            None if ch.weight is None else ch.weight.index,
            None if ch.group is None else ch.group.index,
            id_column[0].index if id_column else None,
            *(c.index for c in by_columns),
        ]

    labels = args.pos_label is not None  # the target read as labels, coded chunk by chunk
    binary = any(s.measure.kind == "binary" for s in specs)
    inner: Any = load.ChunkChecks(
        chosen,
        args.pos_label,
        binary or labels,
        specs,
        partition=True,
        scores=getattr(args, "models", ()),
        extra=id_column,
    )
    if cases is not None and probability_asked(specs):  # each chunk's cases counted at their lines
        inner = _Counted(inner, cases, args.pos_label)
    checks = slices.Placed(keep=bool(slices.columns(args)), inner=inner)
    cols = iter_columns(
        path,
        chooser,
        args.input_format,
        args.header,
        progress=wanted(args),
        ids={3: "--group", 4: "--id", **{5 + k: "--by" for k in range(len(slices.columns(args)))}},
        labels=(0,) if labels else (),
        delimiter=args.delimiter,
        # each chunk checked as a table read whole is: the same errors, at the same lines
        convert=checks,
    )
    sliced: dict = {}
    if slices.columns(args):  # the slice columns ride along with each chunk, as its last item
        cols, sliced = slices.chunk_slices(args, cols, by_columns, checks)
    read: dict = {}
    if labels:
        cols = load.coded(cols, args.pos_label, path or "standard input", chosen, read)
    else:
        relevance = not any(s.measure.kind == "binary" for s in specs)  # as in memory (no --pos-label)
        cols = load.no_missing(cols, path or "standard input", chosen, relevance)
    if args.group is not None:  # spilled by group to temporary files, then evaluated file by file
        chunks = (
            ((t, sc, g) if w is None else (t, sc, g, w)) + tuple(more) for t, sc, w, g, _id, *more in cols
        )
        size = os.path.getsize(path) if path is not None and os.path.isfile(path) else None
        report = evaluate_stream_grouped(
            chunks,
            measures=specs,
            threshold=args.threshold,
            clustered=args.clustered,
            size_hint=size,
            progress=wanted(args),
            **sliced,
        )
    else:
        report = evaluate_stream(
            (((t, sc) if w is None else (t, sc, w)) + tuple(more) for t, sc, w, _g, _id, *more in cols),
            measures=specs,
            threshold=args.threshold,
            **sliced,
        )
    report.params["source"] = path or "standard input"  # before the columns, as in memory
    if chosen:
        report.params["columns"] = chosen[0].names()
    if id_column:
        report.params["columns"]["id"] = id_column[0].name
    if "pos_label" in read:  # the CLI coded the labels: the label it read
        report.params["pos_label"] = read["pos_label"]
    return report


class _Counted:
    """The checks of each chunk read (``inner``), then its probability scores' cases counted into
    ``cases``, placed at their lines (the target coded by ``pos_label`` first, as :func:`load.coded`
    codes it after).
    """

    def __init__(self, inner: Any, cases: ProbabilityCases, pos_label: Any) -> None:
        self.inner, self.cases, self.pos_label = inner, cases, pos_label

    def __call__(self, cols: list, where: Any) -> list:
        out = self.inner(cols, where)
        y = out[0]
        if self.pos_label is not None:
            from perfeval.io import grammar

            y = grammar.label_hits(np.asarray(y), self.pos_label)
        self.cases.add(y, out[1], out[2], where.position)
        return out


def _count_cases(
    cases: ProbabilityCases | None,
    report: Any,
    backend: str,
    frame: Any,
    target: str,
    score: str,
    weight: str | None,
    pos_label: Any,
) -> None:
    """A cluster's probability scores' cases counted into ``cases`` (a pass of their own, partition
    by partition, each row said by its place in its partition), when the report's notes need them:
    a LOGLOSS or CXE infinite, or a measure reading probabilities and a score outside [0, 1] in its
    merged summary (or no such summary kept).
    """
    if cases is None:
        return
    outside = probability_notes.summary_outside(getattr(report, "summary", None))
    if not probability_notes.wanted(report, outside):
        return
    if backend == "spark":
        from perfeval.backends.spark import probability_cases
    else:
        from perfeval.backends.dask import probability_cases
    for k, counts in probability_cases(frame, target=target, score=score, weight=weight, pos_label=pos_label):
        cases.merge(counts, functools.partial(_row_of, part=k))


def _row_of(row: int, part: int) -> str:
    """A row of a cluster's partition, in words: a partition's row is not a line of a file."""
    return f"row {row} of partition {part}"


def _check_spark(args: Any) -> None:
    """What ``--spark`` does not take: one line saying why (exit 2), before any work."""
    if not getattr(args, "spark", None):
        return
    for flag, on, why in (
        ("--dask", args.dask, "each runs the evaluation on its own cluster: give one"),
        ("--stream", args.stream, "it reads the file in chunks here, --spark where the files lie: give one"),
        (
            "--ci",
            args.ci is not None,
            "its replicates are drawn from the rows in memory (from one merged summary with --dask)",
        ),
        (
            "--tie-bounds",
            getattr(args, "tie_bounds", False),
            "the bounds are the measures of two orders of the rows themselves, in memory",
        ),
        ("--partition", bool(args.partition), "each partition's task reads the table whole, in memory"),
        (
            "--dialect",
            (getattr(args, "dialect", None) or "perfeval") != "perfeval",
            "another tool's rules evaluate in memory",
        ),
    ):
        if on:
            raise InvalidParameterError(
                f"--spark: not with {flag} ({why}); drop --spark to evaluate in memory"
            )


def _spark(args: Any, path: str | None, specs: list, cases: ProbabilityCases | None = None) -> Any:
    """The evaluation on Spark: Parquet or CSV files read by Spark, each partition summarised where
    it lies (:func:`perfeval.backends.spark.evaluate_spark`).  ``cases``: the probability scores'
    cases counted, partition by partition, when the report's notes need them.
    """
    from perfeval.backends.spark import (
        connect,
        evaluate_spark,
        read_errors,
        read_files,
        spark_ids,
        spark_keys,
        spark_numbers,
    )

    if path is None:
        raise InvalidParameterError("--spark reads files (a path or a glob), not standard input")
    with connect(args.spark) as session, read_errors(path):  # a file a task cannot read: one line
        df, fmt = read_files(session, path, args.input_format, args.header, args.delimiter)
        names = list(map(str, df.columns))
        from perfeval.io.base import files

        ch = choose(
            names,
            files(path)[0],  # a missing column: named with the first file, which lacks it
            header=fmt == "parquet" or args.header is not False,
            target=args.target,
            score=args.score,
            group=args.group,
            weight=args.weight,
        )
        load.say_columns(ch)

        def name(c: Any) -> str | None:
            return None if c is None else names[c.index]

        by = None
        if slices.columns(args):  # each picked as in memory; an empty field of a CSV is Spark's null
            header = fmt == "parquet" or args.header is not False
            picked = slices.picked(args, names, header, files(path)[0], ch)
            by = slices.ask_of(args, [names[c.index] for c in picked])
        group = name(ch.group)
        labels: dict = {}
        try:
            if fmt != "parquet":  # text: the group an identity, the target typed as read whole
                df = spark_numbers(df, names[ch.target.index])
                if group is not None:
                    df = spark_ids(df, group)
                for key in [] if by is None else by.names:  # the slice keys typed as read whole
                    df = spark_keys(df, key)
            report = evaluate_spark(
                df,
                target=name(ch.target),
                score=name(ch.score),
                group=group,
                weight=name(ch.weight),
                measures=specs,
                threshold=args.threshold,
                pos_label=args.pos_label,
                labels_read=labels,
                by=by,
            )
            _count_cases(
                cases,
                report,
                "spark",
                df,
                names[ch.target.index],
                names[ch.score.index],
                name(ch.weight),
                args.pos_label,
            )
        except InvalidDataError as e:  # a column's values, found on an executor: the file and the column
            if "others" in labels:
                raise InputFormatError(
                    load.no_such_label(args.pos_label, ch.target.name, labels["others"]), source=path
                ) from None
            said = str(e).replace(  # the Dask backend's words, said for --spark
                "or evaluate in memory with `partitions=`", "or drop --spark and name them with --partition"
            )
            raise InputFormatError(said, source=path) from None
    if report.params.get("rows") == 0:
        raise InputFormatError("holds no data", source=path)
    if args.pos_label is not None:
        load.say_other_labels(args.pos_label, labels.get("others", set()))
        kind = bool if dict(df.dtypes)[names[ch.target.index]] == "boolean" else object
        report.params["pos_label"] = load.label_as_read(args.pos_label, np.zeros(0, dtype=kind))
    report.params["source"] = path
    report.params["columns"] = ch.names()
    return report


def _as_read_whole(
    args: Any, path: str, specs: list, e: Exception | str, read: dict | None = None
) -> InputFormatError:
    """A value a Dask partition refused, its row in the partition named (a score that is empty, a
    fractional weight that APR reads as a count), as the command read whole says it, with its line:
    each file of ``path`` streamed up to the first problem (:func:`_stream`, which says each value
    as memory does: a line, or a Parquet file's row).  A problem the stream does not find (or a
    request it does not take) is the partition's words, the file named.  ``e`` as text: the words
    of a value pandas refused as it read a partition (the stream always asked); with ``read``
    (:func:`perfeval.backends.dask.read_files`'), what the stream does not say is looked for in the
    columns of numbers alone (:func:`perfeval.backends.dask.numbers_as_read`).
    """
    from perfeval.backends.dask import numbers_as_read
    from perfeval.io.base import files

    said = InputFormatError(str(e), source=path)
    if not isinstance(e, str) and " of partition " not in str(e):
        return said
    one = copy.copy(args)
    one.stream, one.dask = True, None
    stream: Any = _stream
    if specs and all(s.measure.kind == "regression" for s in specs):  # a regression's own stream
        from perfeval.cli import regression

        stream = functools.partial(regression.stream, how="")
    for f in files(path):
        try:
            stream(one, f, specs)
        except InputFormatError as found:  # its file and line, as read whole
            return found
        except PerfError:  # a request the stream does not take: the partition's words
            break
    return (numbers_as_read(path, read) if read is not None else None) or said


def _dask(args: Any, path: str | None, specs: list, cases: ProbabilityCases | None = None) -> Any:
    """The evaluation on a Dask cluster: the files read by the Dask backend.  ``cases``: the
    probability scores' cases counted, partition by partition, when the report's notes need them.
    """
    from perfeval.backends.dask import (
        connect,
        evaluate_dask,
        mistyped,
        read_files,
        said_as_read,
        unconverted,
        unparsed,
    )

    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    read: dict = {}
    by = slices.DaskColumns(args, path)  # the --by columns, read with the others
    with connect(args.dask):
        ddf, ch = read_files(
            path,
            fmt=args.input_format,
            header=args.header,
            target=args.target,
            score=args.score,
            group=args.group,
            weight=args.weight,
            delimiter=args.delimiter,
            read=read,
            by=by,
        )
        load.say_columns(ch)
        for source, skipped in read.get("skipped", {}).items():  # comment lines: said, as read whole
            if skipped.count:
                load.note(f"perfeval: note: {skipped.message(source)}\n")
        names = list(map(str, ddf.columns))
        id_column = None
        if getattr(args, "id", None):  # not read (the engine's ties need no ids), but named as in memory
            id_column = pick(names, args.id, "id", path, header=True, default=False)

        def name(c: Any) -> str | None:
            return None if c is None else names[c.index]

        # --pos-label codes the labels for every measure asked, as in memory and streamed
        pos_label = args.pos_label
        labels: dict = {}
        frame = ddf  # as read: its partitions place the rows of the notes
        ddf, sliced = by.sliced(ddf, names, read)
        try:
            report = evaluate_dask(
                ddf,
                target=name(ch.target),
                score=name(ch.score),
                group=name(ch.group),
                weight=name(ch.weight),
                measures=specs,
                threshold=args.threshold,
                pos_label=pos_label,
                labels_read=labels,
                **sliced,
            )
            _count_cases(
                cases,
                report,
                "dask",
                frame,
                names[ch.target.index],
                names[ch.score.index],
                name(ch.weight),
                pos_label,
            )
        except InvalidDataError as e:  # a column's values, found on a worker: the file and the column
            if "others" in labels:  # the label is in no partition: in the words of the other paths
                raise InputFormatError(
                    load.no_such_label(args.pos_label, ch.target.name, labels["others"]), source=path
                ) from None
            raise _as_read_whole(args, path, specs, e) from None
        except Exception as e:  # a file a worker cannot read (a corrupt Parquet page): named, one line
            if unparsed(e):  # a text file pandas' parser refused: where and why, as read whole
                raise said_as_read(path, read["format"], read["header"], read["delimiter"], e) from None
            # a used column holding, further on, another type; a column of numbers read as float64
            # holding a value that is no number: its line and column as read whole (streamed)
            said = mistyped(e, read["header"]) or unconverted(e)
            if said is not None:
                raise _as_read_whole(args, path, specs, said, read) from None
            if isinstance(e, (OSError, EOFError)) or type(e).__module__.startswith("pyarrow"):
                what = (
                    "is not a readable Parquet file" if read.get("format") == "parquet" else "cannot be read"
                )
                raise InputFormatError(f"{what} ({one_line(e)})", source=path) from None
            raise
    if report.params.get("rows") == 0:  # as read whole: no row, no number to give
        raise InputFormatError(
            empty_parquet(names)
            if read.get("format") == "parquet"
            else "holds a header and no data"
            if read.get("header")
            else "holds no data",
            source=path,
        )
    if pos_label is not None:
        load.say_other_labels(args.pos_label, labels.get("others", set()))
        report.params["pos_label"] = load.label_as_read(args.pos_label, ddf[name(ch.target)]._meta.to_numpy())
    report.params["source"] = path  # before the columns, as in memory (a regression's report too)
    report.params["columns"] = ch.names()
    if id_column is not None:
        report.params["columns"]["id"] = id_column.name
    return report
