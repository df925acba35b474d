"""``perfeval eval FILES --dask`` of K classes (a score column a class: ``--score a,b,c --classes``,
``--score-prefix``) and of K labels (a 0/1 target column a label: ``--labels``, ``--label-prefix``):
the files read as Dask partitions by their format's reader, the columns chosen by the rules of the
table read whole (:func:`perfeval.cli.classes.choose_wide`, :func:`perfeval.cli.labels` ``_choose``),
every file of a glob checked to hold them, then :func:`perfeval.backends.dask.evaluate_dask`
(``score=[...]`` with ``classes=``, per group too; ``target=[...]`` for a label matrix).  The report
is printed as in memory: the same numbers (bit for bit, weighted or not; docs/dask.md), the same
classes line and per-class table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from perfeval.base.console import one_line
from perfeval.cli import load
from perfeval.exceptions import InputFormatError, InvalidDataError, InvalidParameterError

__all__ = ["classes_report", "labels_report", "refuse"]


def refuse(args: Any, what: str) -> None:
    """What ``--dask`` does not take for K classes or labels: one line (exit 2), before any work."""
    for flag, on in (
        ("--long", getattr(args, "long", False)),
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


def _frame(args: Any, path: str, columns: Callable[[list[str], bool], tuple[list[int], int | None]]) -> Any:
    """(the files as a Dask frame, the names of its columns, how they were read): ``columns`` the
    positions of the columns read and of the group column, from the header; every file of a glob
    holds them (checked ahead, one line naming the file), the group column an identity
    (:func:`perfeval.backends.dask.read_files`).
    """
    from perfeval.backends.dask import read_files

    read: dict = {}
    ddf, names = read_files(
        path, fmt=args.input_format, header=args.header, delimiter=args.delimiter, read=read, columns=columns
    )
    for source, skipped in read.get("skipped", {}).items():  # comment lines: said, as read whole
        if skipped.count:
            load.note(f"perfeval: note: {skipped.message(source)}\n")
    return ddf, names, read


@contextlib.contextmanager
def _worker_errors(path: str, read: dict) -> Iterator[None]:
    """What a worker found, in the words of the table read whole: a column's values (the file and
    the column), a text file pandas' parser refused (where and why), a file that cannot be read.
    """
    from perfeval.backends.dask import said_as_read, unparsed

    try:
        yield
    except InvalidDataError as e:
        raise InputFormatError(str(e), source=path) from None
    except (InvalidParameterError, InputFormatError):
        raise
    except Exception as e:
        if unparsed(e):
            raise said_as_read(path, read["format"], read["header"], read["delimiter"], e) from None
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


def classes_report(args: Any, path: str | None, choose_wide: Callable) -> Any:
    """The report of K classes (a score column a class) of the files ``path`` names, on Dask;
    ``choose_wide(args, names, header, source)``: the columns and the classes, as the table read
    whole chooses them (:func:`perfeval.cli.classes.choose_wide`).
    """
    from perfeval.backends.dask import connect, evaluate_dask

    refuse(args, "K classes")
    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    chosen: list = []

    def columns(names: list[str], header: bool) -> tuple[list[int], int | None]:
        ch, classes = choose_wide(args, names, header, path)
        chosen.append((ch, classes))
        load.say_columns(ch)
        return [c.index for c in ch.all()], None if ch.group is None else ch.group.index

    with connect(args.dask):
        ddf, names, read = _frame(args, path, columns)
        ch, classes = chosen[0]

        def name(c: Any) -> str | None:
            return None if c is None else names[c.index]

        classes.typed(_target_kind(ddf, names[ch.target.index]))
        scores: Any = [names[c.index] for c in ch.scores]  # a list: evaluate_dask's K classes
        with _worker_errors(path, read):
            report = evaluate_dask(
                ddf,
                target=name(ch.target),
                score=scores,
                group=name(ch.group),
                weight=name(ch.weight),
                measures=args.measures or None,
                classes=list(classes.labels),
            )
    _no_rows(report, names, read, path)
    report.params["classes_from"] = classes.how
    report.params["source"] = path
    report.params["columns"] = ch.names()
    return report


def labels_report(args: Any, path: str | None, choose: Callable, how: Callable) -> Any:
    """The report of K labels (a 0/1 target column a label) of the files ``path`` names, on Dask;
    ``choose(args, names, header, source)``: (the label columns, the score columns, the weight and
    group columns, the labels), as the table read whole chooses them; ``how(args, label_columns)``:
    how the labels were found, said in the output.
    """
    from perfeval.backends.dask import connect, evaluate_dask_labels

    refuse(args, "K labels")
    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    chosen: list = []

    def columns(names: list[str], header: bool) -> tuple[list[int], int | None]:
        got = choose(args, names, header, path)
        chosen.append(got)
        ycols, scols, weight, group, _labels = got
        used = [c.index for c in (*ycols, *scols, weight, group) if c is not None]
        return used, None if group is None else group.index

    with connect(args.dask):
        ddf, names, read = _frame(args, path, columns)
        ycols, scols, weight, group, labels = chosen[0]
        with _worker_errors(path, read):
            report = evaluate_dask_labels(
                ddf,
                [names[c.index] for c in ycols],
                [names[c.index] for c in scols],
                None if group is None else names[group.index],
                None if weight is None else names[weight.index],
                args.measures or None,
                args.threshold,
                None,
                list(labels),
                8,
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
