"""``perfeval eval FILES --dask`` of K classes (a score column a class: ``--score a,b,c --classes``,
``--score-prefix``; or a row a case and class: ``--long``) and of K labels (a 0/1 target column a
label: ``--labels``, ``--label-prefix``): the files read as Dask partitions by their format's
reader, the columns chosen by the rules of the table read whole
(:func:`perfeval.cli.classes.choose_wide`, :func:`perfeval.cli.classes.choose_long`,
:func:`perfeval.cli.labels` ``_choose``), every file of a glob checked to hold them, then
:func:`perfeval.backends.dask.evaluate_dask` (``score=[...]`` with ``classes=``, per group too;
``target=[...]`` for a label matrix) or :func:`perfeval.backends.dask.evaluate_dask_long`
(``--long``).  The report is printed as in memory: the same numbers (bit for bit, weighted or not;
docs/dask.md), the same classes line and per-class table.  ``--score a,b,c`` without ``--classes``
is K classes or several models by the rule of the table read whole, over the files' distinct
targets read on the cluster (:func:`score_columns_targets`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from perfeval.base.console import one_line
from perfeval.cli import load, slices
from perfeval.exceptions import InputFormatError, InvalidDataError, InvalidParameterError
from perfeval.io.text import PAST_TYPED

__all__ = ["classes_report", "labels_report", "long_report", "refuse", "score_columns_targets"]


def refuse(args: Any, what: str) -> None:
    """What ``--dask`` does not take for K classes or labels: one line (exit 2), before any work."""
    for flag, on in (
        ("--stream", args.stream),
        ("--ci", args.ci is not None),
        ("--tie-bounds", getattr(args, "tie_bounds", False)),
        ("--confusion", getattr(args, "confusion", False) and args.group is not None),
    ):
        if on:
            extra = " with --group" if flag == "--confusion" else ""
            raise InvalidParameterError(
                f"{flag}{extra} of {what} evaluates in memory, not with --dask; drop one of them"
            )


def _frame(
    args: Any,
    path: str,
    columns: Callable[[list[str], bool], tuple[list[int], Any, dict[int, str]]],
    by: Any = (),
    restream: Callable[[str], Any] | None = None,
) -> Any:
    """(the files as a Dask frame, the names of its columns, how they were read): ``columns`` the
    positions of the columns read and of the group column (or ``{position: option}`` of the
    identity columns) and the columns of numbers (``{position: role}``), from the header; every
    file of a glob holds them (checked ahead, one line naming the file), the group column an
    identity, the columns of numbers float64 (:func:`perfeval.backends.dask.read_files`);
    ``by``, the ``--by`` columns (:class:`perfeval.cli.slices.DaskColumns`), read too; a value
    past the rows Dask typed its column by, found as the files are read (a --group or --id column
    made an identity reads them): its line, each file streamed again (``restream``, :func:`_streamed`).
    """
    from perfeval.backends.dask import read_files

    read: dict = {}
    try:
        ddf, names = read_files(
            path,
            fmt=args.input_format,
            header=args.header,
            delimiter=args.delimiter,
            read=read,
            columns=columns,
            by=by,
        )
    except InputFormatError as e:  # a value found as the files are read (past the rows Dask typed its
        # column by; an empty group or id): its line, the files streamed again
        if e.line is not None and PAST_TYPED not in str(e):
            raise
        raise _streamed(path, restream) or e from None
    for source, skipped in read.get("skipped", {}).items():  # comment lines: said, as read whole
        if skipped.count:
            load.note(f"perfeval: note: {skipped.message(source)}\n")
    return ddf, names, read


def _streamed(path: str, restream: Callable[[str], Any] | None) -> InputFormatError | None:
    """The first problem of the files ``path`` names as the command streamed says it (its file and
    line, as read whole): ``restream(f)`` evaluates file ``f`` streamed; None when it finds none
    (or does not take the request).
    """
    from perfeval.exceptions import PerfError
    from perfeval.io.base import files

    if restream is None:
        return None
    for f in files(path):
        try:
            restream(f)
        except InputFormatError as found:  # its file and line, as read whole
            return found
        except PerfError:  # a request the stream does not take: the partition's words
            return None
    return None


@contextlib.contextmanager
def _worker_errors(path: str, read: dict, restream: Callable[[str], Any] | None = None) -> Iterator[None]:
    """What a worker found, in the words of the table read whole: a column's values (the file and
    the column), a text file pandas' parser refused (where and why), a file that cannot be read.
    A value a partition refused (its row in the partition named, or a column Dask typed by the
    first rows holding another type further on, or a value pandas could not read as a number) is
    looked for again with ``restream`` (each file streamed, :func:`_streamed`), which names its
    line as the table read whole does; the partition's words when it finds nothing.
    """
    from perfeval.backends.dask import mistyped, numbers_as_read, said_as_read, unconverted, unparsed

    try:
        yield
    except InvalidDataError as e:  # the partition's words: its row, or no place at all
        raise _streamed(path, restream) or InputFormatError(str(e), source=path) from None
    except (InvalidParameterError, InputFormatError):
        raise
    except Exception as e:
        if unparsed(e):
            raise said_as_read(path, read["format"], read["header"], read["delimiter"], e) from None
        said = mistyped(e, read["header"])  # a used column holding, further on, another type
        if said is not None:
            raise _streamed(path, restream) or InputFormatError(said, source=path) from None
        said = unconverted(e)  # a column of numbers holding, further on, a value that is no number
        if said is not None:
            raise (
                numbers_as_read(path, read)
                or _streamed(path, restream)
                or InputFormatError(said, source=path)
            ) from None
        if isinstance(e, (OSError, EOFError)) or type(e).__module__.startswith("pyarrow"):
            what = "is not a readable Parquet file" if read["format"] == "parquet" else "cannot be read"
            raise InputFormatError(f"{what} ({one_line(e)})", source=path) from None
        raise


def _no_rows(report: Any, names: list[str], read: dict, path: str) -> None:
    """No row in the files: one line, as the table read whole says it."""
    from perfeval.io.parquet import empty_parquet

    if report.params.get("rows") == 0:
        raise InputFormatError(
            empty_parquet(names)
            if read["format"] == "parquet"
            else "holds a header and no data"
            if read["header"]
            else "holds no data",
            source=path,
        )


def _target_kind(ddf: Any, name: str) -> np.ndarray:
    """An empty array of the target column's type (numbers type the classes as numbers)."""
    try:
        return np.zeros(0, dtype=np.dtype(ddf[name].dtype))
    except TypeError:  # pandas' own (text, nullable integers): text
        return np.zeros(0, dtype=object)


def classes_report(
    args: Any, path: str | None, choose_wide: Callable, restream: Callable[[str], Any] | None = None
) -> Any:
    """The report of K classes (a score column a class) of the files ``path`` names, on Dask;
    ``choose_wide(args, names, header, source)``: the columns and the classes, as the table read
    whole chooses them (:func:`perfeval.cli.classes.choose_wide`); ``restream(f)``: file ``f``
    evaluated streamed, which names the line of a value a partition refused (:func:`_worker_errors`).
    """
    from perfeval.backends.dask import connect, evaluate_dask

    refuse(args, "K classes")
    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    chosen: list = []

    def columns(names: list[str], header: bool) -> tuple[list[int], int | None, dict[int, str]]:
        ch, classes = choose_wide(args, names, header, path)
        chosen.append((ch, classes))
        load.say_columns(ch)
        numbers = {c.index: "score" for c in ch.scores}  # the classes (the target): as read
        if ch.weight is not None:
            numbers[ch.weight.index] = "weight"
        return [c.index for c in ch.all()], None if ch.group is None else ch.group.index, numbers

    def taken() -> dict:  # the columns a --by column is not, as in memory
        ch = chosen[0][0]
        return {"target": ch.target, "score": list(ch.scores), "weight": ch.weight}

    by = slices.DaskColumns(args, path, taken)
    with connect(args.dask):
        ddf, names, read = _frame(args, path, columns, by, restream)
        ch, classes = chosen[0]
        ddf, sliced = by.sliced(ddf, names, read)

        def name(c: Any) -> str | None:
            return None if c is None else names[c.index]

        classes.typed(_target_kind(ddf, names[ch.target.index]))
        scores: Any = [names[c.index] for c in ch.scores]  # a list: evaluate_dask's K classes
        with _worker_errors(path, read, restream):
            report = evaluate_dask(
                ddf,
                target=name(ch.target),
                score=scores,
                group=name(ch.group),
                weight=name(ch.weight),
                measures=args.measures or None,
                classes=list(classes.labels),
                **sliced,
            )
    _no_rows(report, names, read, path)
    report.params["classes_from"] = classes.how
    report.params["source"] = path
    report.params["columns"] = ch.names()
    return report


def long_report(
    args: Any,
    path: str | None,
    choose_long: Callable,
    classes_of: Callable,
    restream: Callable[[str], Any] | None = None,
) -> Any:
    """The report of K classes in long form (a row a case and class: ``--long``) of the files ``path``
    names, on Dask; ``choose_long(args, names, header, source)``: (the target, score, group and
    weight columns, the case column, the class column), as the table read whole chooses them;
    ``classes_of(args, class_kind, name)``: the classes of ``--classes`` typed as the class column
    holds them (None: the class column's distinct values) and how they were found; ``restream``
    as :func:`classes_report` takes it.
    """
    from perfeval.backends.dask import connect, evaluate_dask_long

    refuse(args, "K classes")
    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    chosen: list = []

    def columns(names: list[str], header: bool) -> tuple[list[int], dict[int, str], dict[int, str]]:
        ch, idc, cc = choose_long(args, names, header, path)
        chosen.append((ch, idc, cc))
        load.say_columns(ch)
        identities = {idc.index: "--id"}  # ids as a table read whole reads them: int64 or text
        if ch.group is not None:
            identities[ch.group.index] = "--group"
        numbers = {ch.score.index: "score"}  # the target, a class: as read
        if ch.weight is not None:
            numbers[ch.weight.index] = "weight"
        return [c.index for c in (*ch.all(), idc, cc)], identities, numbers

    with connect(args.dask):
        ddf, names, read = _frame(args, path, columns, restream=restream)
        ch, idc, cc = chosen[0]

        def name(c: Any) -> str | None:
            return None if c is None else names[c.index]

        classes, how = classes_of(args, _target_kind(ddf, names[cc.index]), cc.name)
        with _worker_errors(path, read, restream):
            report = evaluate_dask_long(
                ddf,
                target=name(ch.target),
                score=name(ch.score),
                case=name(idc),
                class_column=name(cc),
                group=name(ch.group),
                weight=name(ch.weight),
                measures=args.measures or None,
                classes=classes,
            )
    _no_rows(report, names, read, path)
    params = report.params  # the keys in memory's order: the long form's own (its columns) after
    later = {k: params.pop(k) for k in ("columns", "target_form", "cases") if k in params}
    params["classes_from"] = how
    params["source"] = path
    params.update(later)
    params["columns"] = {**ch.names(), "id": idc.name, "class": cc.name}
    return report


def labels_report(
    args: Any, path: str | None, choose: Callable, how: Callable, restream: Callable[[str], Any] | None = None
) -> Any:
    """The report of K labels (a 0/1 target column a label) of the files ``path`` names, on Dask;
    ``choose(args, names, header, source)``: (the label columns, the score columns, the weight and
    group columns, the labels), as the table read whole chooses them; ``how(args, label_columns)``:
    how the labels were found, said in the output; ``restream`` as :func:`classes_report` takes it.
    """
    from perfeval.backends.dask import connect, evaluate_dask

    refuse(args, "K labels")
    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    chosen: list = []

    def columns(names: list[str], header: bool) -> tuple[list[int], int | None, dict[int, str]]:
        got = choose(args, names, header, path)
        chosen.append(got)
        ycols, scols, weight, group, _labels = got
        used = [c.index for c in (*ycols, *scols, weight, group) if c is not None]
        numbers = {c.index: "label" for c in ycols} | {c.index: "score" for c in scols}  # 0/1 labels too
        if weight is not None:
            numbers[weight.index] = "weight"
        return used, None if group is None else group.index, numbers

    def taken() -> dict:  # the columns a --by column is not, as in memory
        ycols, scols, weight, _group, _labels = chosen[0]
        return {"label": ycols, "score": scols, "weight": weight}

    by = slices.DaskColumns(args, path, taken)
    with connect(args.dask):
        ddf, names, read = _frame(args, path, columns, by, restream)
        ycols, scols, weight, group, labels = chosen[0]
        ddf, sliced = by.sliced(ddf, names, read)
        targets: Any = [names[c.index] for c in ycols]  # lists: evaluate_dask's K labels
        scores: Any = [names[c.index] for c in scols]
        with _worker_errors(path, read, restream):
            report = evaluate_dask(  # K labels, and their slices
                ddf,
                target=targets,
                score=scores,
                group=None if group is None else names[group.index],
                weight=None if weight is None else names[weight.index],
                measures=args.measures or None,
                threshold=args.threshold,
                classes=list(labels),
                **sliced,
            )
    _no_rows(report, names, read, path)
    report.params["classes_from"] = how(args, ycols)
    report.params["source"] = path
    report.params["columns"] = {
        "labels": [c.name for c in ycols],
        "scores": [c.name for c in scols],
        **({"weight": weight.name} if weight is not None else {}),
        **({"group": group.name} if group is not None else {}),
    }
    return report


# -- --score a,b,c without --classes: K classes or several models, by the targets ----------------------------
#: the distinct targets brought to the client to decide, beyond one a score column: past them the targets
#: are more labels than columns (several models) unless every column is named after one of them (then
#: every distinct target is brought, for the message naming the targets without a column)
DISTINCT = 4096

#: the formats whose cells are text: typed as the table read whole types them (numbers when every
#: cell of the column is one, else the text as written, stripped), not as pandas guesses
_TEXT = ("csv", "tsv", "text")


def score_columns_targets(args: Any, key: Callable[[Any], str]) -> tuple[Any, Any, str, None] | None:
    """What :func:`perfeval.cli.classes.names_are_classes` reads of the files ``--dask`` reads (the
    rule of ``--score a,b,c`` without ``--classes``, as of a table read whole): (the columns chosen,
    the target column's distinct values in the order they first appear, typed as the table read whole
    holds them, the files, None: no line to name), or None when the files cannot say (no such file or
    column, a missing target, a cell pandas cannot read: the path taken then says it in its words) or
    when they hold more distinct targets than :data:`DISTINCT` and some score column is named after
    none of them (``key``, :func:`perfeval.cli.classes.number_key`: a value as a column would name
    it): several models, by the rule.  The target column is read on the cluster, its distinct values
    merged eight partitions at a time.
    """
    import dask

    from perfeval.backends.dask import connect
    from perfeval.io.columns import choose
    from perfeval.io.readers import READERS, format_of

    path = load.path_of(args.file)
    if path is None:
        return None
    with connect(args.dask):
        fmt = format_of(path, args.input_format)
        parts = READERS[fmt].partitions(path, fmt, args.header, args.delimiter)
        ch = choose(
            parts.names,
            path,
            header=parts.header,
            target=args.target,
            score=args.score,
            group=args.group,
            weight=getattr(args, "weight", None),
            several_scores=True,
        )
        text = parts.fmt in _TEXT
        cols = frozenset(c.name for c in ch.scores)
        try:  # a file a worker cannot read: the path taken reads the files again and says it
            # text formats: the target as written (the other columns not typed: not read)
            ddf = parts.frame(ch.target.index if text else None, [ch.target.index])
            pieces = ddf[ddf.columns[ch.target.index]].to_delayed()

            def gather(cap: int | None) -> dict:
                level = [dask.delayed(_targets_of)(p, text, cap, cols, key) for p in pieces]
                while len(level) > 1:
                    level = [
                        dask.delayed(_targets_merged)(level[i : i + 8], cap, cols, key)
                        for i in range(0, len(level), 8)
                    ]
                return dask.compute(level[0])[0] if level else _targets_of(None, text, cap, cols, key)

            got = gather(DISTINCT + len(cols))
            if got["values"] is None:  # more distinct targets than columns
                present = got["numbers" if got["all_numbers"] else "texts"]
                if got["missing"] or present != cols:
                    return None
                got = gather(None)  # every column named after a target: all of them, for the message
        except Exception:
            return None
    if got["missing"]:
        return None
    values = got["values"]
    if text:  # as the table read whole holds the column: numbers when every cell is one, else text
        values = np.asarray(values.tolist(), dtype=np.float64 if got["all_numbers"] else str)
    return ch, values, path, None


def _targets_of(part: Any, text: bool, cap: int | None, wanted: frozenset, key: Callable) -> dict:
    """A partition's distinct targets (a text format's stripped, as written) in the order they first
    appear (``values``; None past ``cap``, :func:`_capped`), whether every one is a number of the
    grammar (a text format's; other formats keep their types), whether one is missing.
    """
    import pandas as pd

    from perfeval.io.grammar import is_number

    if part is None or not len(part):
        values = np.zeros(0, dtype=object)
    elif text:
        values = np.asarray(pd.unique(part.astype(str).str.strip().to_numpy(dtype=object)), dtype=object)
    else:
        values = np.asarray(pd.unique(part.to_numpy()))
    listed = values.tolist()
    if text:
        missing = "" in listed
        numbers = all(is_number(v) for v in listed)
    else:
        missing, numbers = bool(len(listed) and pd.isna(values).any()), True
    got = {"text": text, "values": values, "all_numbers": numbers, "missing": missing}
    return _capped({**got, "texts": frozenset(), "numbers": frozenset()}, cap, wanted, key)


def _targets_merged(parts: list[dict], cap: int | None, wanted: frozenset, key: Callable) -> dict:
    """Several partitions' :func:`_targets_of` (or merges), in partition order, as one."""
    import pandas as pd

    held = [p["values"] for p in parts if p["values"] is not None]
    values = None
    if held:
        if len({v.dtype for v in held}) > 1:  # one type in a partition, another in the next
            held = [v.astype(object) for v in held]
        values = np.asarray(pd.unique(np.concatenate(held)))
    got = {
        "text": parts[0]["text"],
        "values": values,
        "all_numbers": all(p["all_numbers"] for p in parts),
        "missing": any(p["missing"] for p in parts),
        "texts": frozenset().union(*(p["texts"] for p in parts)),
        "numbers": frozenset().union(*(p["numbers"] for p in parts)),
    }
    if len(held) < len(parts):  # a part past the cap: the others' values kept as their keys only
        return _capped(got, 0, wanted, key)
    return _capped(got, cap, wanted, key)


def _capped(got: dict, cap: int | None, wanted: frozenset, key: Callable) -> dict:
    """``got`` with its distinct values dropped when there are more than ``cap``, the ``wanted`` keys
    they hold kept instead (``key``: a value as a column would name it), read as text (``texts``) and
    as numbers (``numbers``: a text format's numbers by their value, other formats' values by theirs).
    """
    values = got["values"]
    if cap is None or values is None or len(values) <= cap:
        return got
    from perfeval.io.grammar import is_number

    listed = values.tolist()
    if got["text"]:
        texts = {v for v in listed if v in wanted}
        numbers = {key(float(v)) for v in listed if is_number(v)} & wanted
    else:
        texts = numbers = {key(v) for v in listed} & wanted
    return {**got, "values": None, "texts": got["texts"] | texts, "numbers": got["numbers"] | numbers}
