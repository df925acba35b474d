"""The ``perfeval`` command's one input loader: a table read, its columns chosen, the targets coded
and the scores checked, with every error naming the file, the line and the column.

The library's check stage (:mod:`perfeval.engine.door`) reads the arrays again, but its coding is this
module's: the target coded here (:func:`targets`) is handed to the engine as the code stage's
(``door.code(cases, made=...)``), not coded again.  What this module adds is where a bad value is
in the file.  Notes for standard error (which columns were used when they were
not named) are kept in :data:`NOTES` and written when the command succeeds.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from perfeval.base.console import one_line
from perfeval.base.progress import wanted
from perfeval.base.text import place
from perfeval.cli.notes import NOTES, note  # noqa: F401 (re-exported: load.note, load.NOTES)
from perfeval.exceptions import InputFormatError, InvalidParameterError, PerfError

# Start-up: every `perfeval` command imports this module, `perfeval --help` too; numpy, the checks
# (base/checks.py) and the readers (io/) are imported where a file is read or its columns coded.

#: plot and report read files at least this large chunk by chunk (with a progress line on terminals)
LARGE_BYTES = 64 << 20

# notes for stderr, written when the command succeeds: perfeval.cli.notes (re-exported here)


def say_columns(choice: Any) -> None:
    """Say on stderr which columns were used when some were not named on the command line."""
    if choice.worth_saying:
        note(f"perfeval: columns: {one_line(choice.describe())}\n")
    said = choice.numbers_as_names()
    if said:
        note(f"perfeval: note: {said}\n")


def choose_columns(
    args: Any, names: list[str], header: bool, source: str, *, weight: bool = True, several: bool = False
) -> Any:
    """The columns of a file (``names``: its header's, or ``column1``, ...) as the command's options
    name them (``--target``, ``--score``, ``--group``, and ``--weight`` unless ``weight`` is False;
    ``several``: several score columns): :func:`perfeval.io.columns.choose`, written once for every
    reader that chooses them from a header (a file read in chunks, the columns kept as written).
    """
    from perfeval.io.columns import choose

    return choose(names, source, header=header, **column_options(args, weight=weight, several=several))


def choose_table(args: Any, table: Any, *, several: bool = False, empties: bool = True) -> Any:
    """The columns of a table read whole (:meth:`perfeval.io.tables.Table.choose`) as the command's
    options name them: the choice of :func:`choose_columns`, for the in-memory readers.
    ``empties=False``: the empty fields of the columns used are checked by the caller, among the
    values (:func:`earliest`, :meth:`perfeval.io.tables.Table.no_empties`).
    """
    return table.choose(**column_options(args, several=several), empties=empties)


def column_options(args: Any, *, weight: bool = True, several: bool = False) -> dict[str, Any]:
    """The command's column options (``--target``, ``--score``, ``--group``, ``--weight``: not when
    ``weight`` is False or the command has none) as :func:`perfeval.io.columns.choose` takes them,
    written once for every reader, whole or in chunks.
    """
    return {
        "target": args.target,
        "score": args.score,
        "group": args.group,
        "weight": getattr(args, "weight", None) if weight else None,
        "several_scores": several,
    }


def path_of(file: str) -> str | None:
    """A file argument as a path; None for standard input (``-``)."""
    return None if file == "-" else file


def header_by_name(args: Any) -> None:
    """A first line whose header rule is in doubt (``label,0,1`` over ``2,0.1,0.9``: a name over a
    number, but numbers in it too) is the header when it holds the name ``--target`` gives (a name,
    not a number): ``args.header`` set, and said.  Only for a text, CSV or TSV file whose first line
    the rule refuses; otherwise nothing changes (the rule's own error stays when the name is not
    there).
    """
    target = (args.target or "").strip()
    path = path_of(args.file)
    if args.header is not None or not target or target.isdigit() or path is None or not os.path.isfile(path):
        return
    from perfeval.io.readers import format_of
    from perfeval.io.text import text_layout

    try:
        fmt = format_of(path, args.input_format)
        if fmt not in ("text", "csv", "tsv"):
            return
        text_layout(path, fmt, None, args.delimiter)
        return  # the rule decides
    except InputFormatError:
        try:
            lay = text_layout(path, fmt, True, args.delimiter)
        except InputFormatError:
            return
    if lay is not None and target in lay.names:
        args.header = True
        note(f"perfeval: note: line 1 of {place(path)} is the header: it holds --target's name {target!r}\n")


def group_position(args: Any, file: str) -> Callable[[list[str], bool], dict[int, str]]:
    """For the readers: the positions of the group column and of the document id column (``--id``)
    of ``file`` (named in messages), each with its option (``{position: "--group"}``: an error names
    the column by it): identities, read as int64 or text, never float.
    """
    from perfeval.io.columns import pick

    source = "standard input" if file == "-" else file

    from perfeval.cli.slices import columns

    # the slice columns: values, never floats (one named as the target, a score or the weight too is
    # refused by its role when the columns are chosen, not as a float id here)
    taken = {args.target, getattr(args, "weight", None), *(getattr(args, "score", None) or [])}
    by = [(spec, "by") for spec in columns(args) if spec not in taken]

    def position(names: list[str], header: bool) -> dict[int, str]:
        out: dict[int, str] = {}
        for spec, role in ((args.group, "group"), (getattr(args, "id", None), "id"), *by):
            try:
                col = pick(names, spec, role, source, header=header, default=False)
            except PerfError:  # said when the columns are chosen, in the order the chunked reader says it
                continue
            if col is not None:
                out.setdefault(col.index, f"--{role}")
        return out

    return position


def read(args: Any, file: str, labels: Callable[[list[str], bool], Iterable[int]] | None = None) -> Any:
    """The table of ``file`` as the table options of the command line say to read it (``labels``: the
    positions of columns to keep as written, :func:`perfeval.io.readers.read_table`).
    """
    from perfeval.io.readers import read_table

    return read_table(
        path_of(file),
        args.input_format,
        args.header,
        delimiter=args.delimiter,
        identity=group_position(args, file),
        labels=labels,
    )


def missing_rows(col: Any) -> Any:
    """The rows of a target column that hold a missing value (NaN, or, as text, one of
    :data:`perfeval.io.grammar.MISSING`: ``NA``, ``NULL``, Excel's ``#N/A``, ...).
    """
    import numpy as np

    from perfeval.io.grammar import MISSING

    arr = np.asarray(col)
    if arr.dtype.kind == "f":
        return np.flatnonzero(np.isnan(arr))
    if arr.dtype.kind in "UO":  # an empty field of a CSV/TSV too
        return np.flatnonzero(np.isin(arr, (*MISSING, "")))
    return np.zeros(0, np.intp)


def missing_message(name: str, value: Any, count: int | None) -> str:
    if isinstance(value, str) and value == "":
        from perfeval.io.tables import empty_message

        return empty_message(name, "target")
    rows = "rows" if count is None else f"{count} row{'s' if count > 1 else ''}"
    return (
        f"the target column {name!r} holds {str(value)!r}, a missing value: every row needs a target "
        f"(drop or fill the {rows} without one)"
    )


def _no_missing(table: Any, name: str, col: Any, whole: bool = True) -> None:
    """An error naming the line of the first missing target: a row without a target is neither a
    positive nor a negative (as a label it would be counted as one, silently).  ``whole``: the
    table is the whole file (the rows without one are counted), not a chunk of it.
    """
    bad = missing_rows(col)
    if len(bad):
        i = int(bad[0])
        raise InputFormatError(
            missing_message(name, col[i], len(bad) if whole else None),
            source=table.source,
            **table.at(i),
        )


def labels_message(
    name: str,
    col: Any,
    *,
    partition: bool = False,
    scores: tuple[str, ...] = (),
    whole: bool = True,
    regression: bool = True,
) -> str:
    """Targets that are not 0/1 for a binary measure: the labels found (``col``: the file's, or, not
    ``whole``, the ones read so far), what they look like (two labels, classes, grades, a regression
    target: :func:`perfeval.base.checks.read_targets`) and what to do, in the command's options
    (``partition``: the command takes ``--partition``; ``scores``: its several score columns;
    ``regression``: it reads regression targets).
    """
    from perfeval.base.checks import LabelWords, read_targets

    words = LabelWords(cli=True, partition=partition, whole=whole, regression=regression)
    said = read_targets(col, words, scores)
    need = ": binary measures need 0/1 (or -1/1) targets" if said.kind == "labels" else ""
    return f"the target column {name!r} {said.what}{need}; {said.advice}"


def _text_labels(
    table: Any, name: str, col: Any, *, partition: bool, scores: tuple[str, ...], whole: bool
) -> None:
    """Targets of labels (no value a number: click/no, yes/no, classes) where the measures asked
    read numbers (GAUC, NDCG, MAP, ... without --pos-label): an error saying what they look like and
    offering --pos-label, as for a binary measure; nothing when some value is a number (a stray
    value among grades is the reader's "not a number").
    """
    import numpy as np

    from perfeval.base.checks import LabelWords, read_targets
    from perfeval.io import grammar

    values = [str(v) for v in np.asarray(col).tolist()]
    if not values or any(grammar.is_number(v) for v in values):
        return
    said = read_targets(np.asarray(values), LabelWords(cli=True, partition=partition, whole=whole), scores)
    raise InputFormatError(
        f"the target column {name!r} {said.what}{':' if said.kind == 'labels' else ';'} the measures "
        f"asked read numbers (0/1, or graded relevance: above 0 relevant); {said.advice}",
        source=table.source,
        **_labels_line(table, col),
    )


def _labels_line(table: Any, col: Any) -> dict[str, int]:
    """Where the first target that is not a number is (text labels: its line, or its row in a table
    without lines), else nothing (numbers that are not a 0/1 coding: no one line is to blame).
    """
    import numpy as np

    from perfeval.io import grammar

    arr = np.asarray(col)
    if arr.dtype.kind not in "USO":
        return {}
    i = grammar.first_bad_number([str(v) for v in arr.tolist()])
    return {} if i < 0 else table.at(i)


def targets(
    table: Any,
    name: str,
    col: Any,
    pos_label: Any,
    binary: bool,
    seen: dict | None = None,
    *,
    partition: bool = False,
    scores: tuple[str, ...] = (),
    regression: bool = True,
) -> Any:
    """The target column for the measures asked: 0/1 for binary measures (``--pos-label`` names the
    positive label; else 0/1, -1/1 or booleans), numbers for ranking measures; or one line naming
    the file, the line and the column, and how to map the labels.

    ``seen``: ``table`` is one chunk of a file read in chunks (``--stream``), and ``seen`` what the
    earlier chunks held (filled here): the rows without a target are not counted, a file whose
    chunks hold 0 and -1 between them is not a coding, and with ``--pos-label`` the labels are
    returned as read (coded chunk by chunk by :func:`coded`).  ``partition``, ``scores``: as for
    :func:`labels_message`; ``regression``: the command reads regression targets (not plot's curves).
    """
    import numpy as np

    from perfeval.base.checks import binary_coding
    from perfeval.io import grammar

    if not binary:

        def graded(rel: Any) -> Any:
            bad = ~(rel >= 0)  # NaN too
            if bad.any():  # said here, with the file's line, not by the library's 0-based index
                i = int(np.argmax(bad))
                raise InputFormatError(
                    f"the target column {name!r} holds {float(rel[i])!r}; the measures asked read it as "
                    "graded relevance, a number >= 0 (0: not relevant); labels such as -1/1: --pos-label 1",
                    source=table.source,
                    **table.at(i),
                )
            return rel

        def relevance() -> Any:
            try:
                return in_order(table, name, np.asarray(col), "target", graded)
            except InputFormatError:
                _text_labels(table, name, col, partition=partition, scores=scores, whole=seen is None)
                raise

        # a missing target, a value that is no number, a grade below 0: the first line of them
        return earliest(lambda: _no_missing(table, name, col, whole=seen is None), relevance)[1]
    _no_missing(table, name, col, whole=seen is None)
    if pos_label is not None and seen is not None:
        return col
    if pos_label is not None:
        hits = grammar.label_hits(np.asarray(col), pos_label)
        others = grammar.other_labels(col, hits)
        if not np.any(hits):
            raise InputFormatError(no_such_label(pos_label, name, others), source=table.source)
        say_other_labels(pos_label, others)
        return hits
    coded = binary_coding(np.asarray(col))
    if coded is not None and seen is not None:
        # a chunk's coding must be the file's: 0/1 in one chunk and -1/1 in another is neither
        y = np.asarray(col)
        if y.dtype.kind != "b":
            found = seen.setdefault("labels", set())
            found.update(v for v in (-1.0, 0.0, 1.0) if v not in found and bool(np.any(y == v)))
            if {-1.0, 0.0} <= found:
                coded = None
                col = np.array(sorted(found))  # the labels read so far
    if coded is None:
        y = np.asarray(col)
        if seen is not None and y.dtype.kind in "iuf" and seen.get("labels"):
            # the labels of the chunks read so far too (0/1 there), as the whole column lists them
            col = np.array(sorted(set(seen["labels"]) | set(np.unique(y).tolist())), dtype=y.dtype)
        said = labels_message(
            name, col, partition=partition, scores=scores, whole=seen is None, regression=regression
        )
        raise InputFormatError(said, source=table.source, **_labels_line(table, col))
    return coded


def no_such_label(pos_label: Any, name: str, labels: set) -> str:
    """The message of a ``--pos-label`` found in no row (``labels``: the labels found, as keys of
    :func:`perfeval.io.grammar.label_key`), the same however the file was read.
    """
    from perfeval.io.grammar import labels_text

    return (
        f"--pos-label {pos_label}: the target column {name!r} holds no such label "
        f"(labels: {labels_text(labels, 8)})"
    )


def say_other_labels(pos_label: Any, others: set) -> None:
    """More than one label read as negative (``others``, keys of
    :func:`perfeval.io.grammar.label_key`): said on stderr, not silently merged.
    """
    from perfeval.io.grammar import labels_text

    if len(others) > 1:
        note(
            f"perfeval: note: --pos-label {pos_label}: {len(others)} other labels are negative "
            f"({labels_text(others)})\n"
        )


def finite(
    values: Any,
    name: str,
    source: str,
    at: Callable[[int], dict] | None = None,
    written: Callable[[int, float], str] | None = None,
) -> Any:
    """``values`` (a score column) when every value is finite; else one line naming the column, the
    value and (when known) where it is (``at``: :meth:`perfeval.io.tables.Table.at`), the value as
    the file writes it (``written``: :meth:`perfeval.io.tables.Table.written` of the row, read again
    on this error path only: ``1e999``, ``-Infinity``, not the ``inf`` read).
    """
    import numpy as np

    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        v = float(values[i])
        text = repr(v) if written is None else written(i, v)
        if math.isnan(v) or (text != repr(v) and text.lstrip("+-").lower() in ("inf", "infinity")):
            shown = text  # NaN, or an infinity written as a word (-Infinity, +INF)
        elif text != repr(v):  # a number written past float64's range (1e999): read as inf
            cut = text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"
            shown = f"{cut} (a number beyond float64's range, read as {v!r})"
        else:  # inf as written, or the text unknown: 1e400 reads as inf too
            shown = f"{v!r} (a number beyond float64's range, or {v!r} as written)"
        raise InputFormatError(
            f"the score column {name!r} holds {shown}; scores must be finite numbers",
            source=source,
            **({} if at is None else at(i)),
        )
    return values


def scores(table: Any, col: Any) -> Any:
    """A score column of a table: numbers, every one finite (an empty field said in its place among
    the values: :func:`perfeval.io.tables.numeric`).
    """
    return score_values(table, col.name, table.get(col, empties=False))


def in_order(table: Any, name: str, values: Any, role: str, check: Callable[[Any], Any]) -> Any:
    """``check`` of the column ``name`` holding ``values`` (as read: numbers, or text where a value is
    not one) read as numbers (:func:`perfeval.io.tables.numeric`), the column's first bad line said:
    a value that ``check`` refuses on line 2 (a weight of -1, a score of inf) comes before a value
    that is no number, or an empty field, on line 8, read whole as in chunks.
    """
    import numpy as np

    from perfeval.io import grammar
    from perfeval.io.tables import numeric

    values = np.asarray(values)
    try:
        v = numeric(table, name, values, role)
    except InputFormatError:
        i = grammar.first_bad_number([str(x) for x in values.tolist()])
        if i > 0:  # the values before it are numbers: one of them may be refused first
            try:
                check(numeric(table, name, values[:i], role))
            except InputFormatError as earlier:
                if earlier.line is not None or earlier.row is not None:
                    raise earlier from None
        raise
    return check(v)


def score_values(table: Any, name: str, values: Any) -> Any:
    """:func:`scores` of the column ``name`` holding ``values`` (as read: numbers or text)."""

    def checked(v: Any) -> Any:
        return finite(v, name, table.source, table.at, lambda i, x: str(table.written(i, name, x)))

    return in_order(table, name, values, "score", checked)


def weights(table: Any, col: Any, specs: list | None = None) -> Any:
    """A weight column of a table as numbers (None when there is none); with ``specs``, a measure
    among them that reads weights as counts (APR, CA2, the debiased ECE) makes a fractional weight
    one line naming the column, the value and its line.
    """
    if col is None:
        return None
    return weight_values(table, col.name, table.get(col, empties=False), specs)


def weight_values(table: Any, name: str, values: Any, specs: list | None = None) -> Any:
    """:func:`weights` of the column ``name`` holding ``values`` (as read: numbers or text)."""
    return in_order(table, name, values, "weight", lambda w: _weights_checked(table, name, w, specs))


def _weights_checked(table: Any, name: str, w: Any, specs: list | None) -> Any:
    import numpy as np

    bad = ~(np.isfinite(w) & (w >= 0))
    if bad.any():  # said here, with the file's line, not by the library's 0-based index
        i = int(np.argmax(bad))
        raise InputFormatError(
            f"the weight column {name!r} holds {table.written(i, name, float(w[i]))}; weights must be "
            "finite numbers >= 0",
            source=table.source,
            **table.at(i),
        )
    with np.errstate(over="ignore"):
        total = float(w.sum())
    if math.isinf(total):  # a check of the total, not of the rows: every measure reads the sums
        raise InputFormatError(
            f"the weight column {name!r} sums to inf: its weights (up to {float(w.max()):g}) overflow "
            "double precision; scale them down",
            source=table.source,
        )
    from perfeval.engine.door import counts_cases

    counted = [s.label for s in specs or () if counts_cases(s)]
    if counted:
        frac = w != np.floor(w)
        if frac.any():
            i = int(np.argmax(frac))
            raise InputFormatError(
                f"{counted[0]} reads weights as counts of cases (whole numbers), but the weight column "
                f"{name!r} holds {table.written(i, name, float(w[i]))}; leave {counted[0]} out of -m for "
                "these weights",
                source=table.source,
                **table.at(i),
            )
    return w


def earliest(*checks: Callable[[], Any]) -> list:
    """The values of ``checks`` (the target's, the score's, the weight's: in that order), or the
    error of the first line of the file that fails one: a file with a missing target on line 4 and
    a bad score on line 5 is reported at line 4, read whole or in chunks; on one line, the first
    check's error.  An error of no one line (labels that are not a coding) comes after the others.
    """
    out: list = []
    errors: list = []
    for k, check in enumerate(checks):
        try:
            out.append(check())
        except InputFormatError as e:
            where = e.line if e.line is not None else e.row  # a file's line, or a Parquet row
            errors.append((math.inf if where is None else where, k, e))
            out.append(None)
    if errors:
        raise min(errors, key=lambda t: t[:2])[2]
    return out


class ChunkChecks:
    """The checks of a table read whole, on each chunk of a file read in chunks (the ``convert`` of
    :func:`perfeval.io.readers.iter_columns`, whose columns are target, score, weight, group, id): the same
    errors, at the same lines.

    Parameters
    ----------
    chosen : list
        Filled by the chooser of the columns: its first item, the :class:`perfeval.io.columns`
        choice (for the column names).
    pos_label, binary, specs, partition, scores
        As for :func:`targets` and :func:`weight_values`.
    extra : list
        Other columns read (:class:`perfeval.io.columns.Column`: the id column), filled by the
        chooser: an empty field there is an error too, said among the values.
    """

    def __init__(
        self,
        chosen: list,
        pos_label: Any,
        binary: bool,
        specs: list,
        *,
        partition: bool = False,
        scores: tuple[str, ...] = (),
        extra: list | None = None,
    ) -> None:
        self.chosen, self.pos_label, self.binary, self.specs = chosen, pos_label, binary, specs
        self.partition, self.scores = partition, scores
        self.extra = [] if extra is None else extra
        self.seen: dict = {}

    def __call__(self, cols: list, where: Any) -> list:
        ch = self.chosen[0]
        t, s, w = cols[0], cols[1], cols[2]
        checked = earliest(
            lambda: targets(
                where,
                ch.target.name,
                t,
                self.pos_label,
                self.binary,
                self.seen,
                partition=self.partition,
                scores=self.scores,
            ),
            lambda: score_values(where, ch.score.name, s),
            lambda: None if w is None else weight_values(where, ch.weight.name, w, self.specs),
            lambda: where.no_empties([*ch.all(), *self.extra]),
        )
        return [*checked[:3], *cols[3:]]


def partitions(items: list[str]) -> dict[str, list] | None:
    """``--partition NAME=LABEL[,LABEL...]`` options as a mapping (None when there are none)."""
    out: dict[str, list] = {}
    for item in items:
        name, eq, labels = item.partition("=")
        if not eq or not name.strip() or not labels.strip():
            raise InvalidParameterError(f"--partition {item!r}: expected NAME=LABEL[,LABEL...]")
        out[name.strip()] = [lab.strip() for lab in labels.split(",") if lab.strip()]
    return out or None


def labels_as(values: list, column: Any) -> list:
    """Partition labels typed on the command line, converted to the label column's type."""
    if column.dtype.kind in "biuf":
        try:
            return [float(v) for v in values] if column.dtype.kind == "f" else [int(v) for v in values]
        except ValueError:
            return values
    return [str(v) for v in values] if column.dtype.kind in "US" else values


def _missing_in_chunk(c: Any, rows: int, source: str, chosen: list) -> None:
    bad = missing_rows(c[0])
    if len(bad):  # the chunk has no line numbers: its data row (the header and blank lines apart)
        name = chosen[0].target.name if chosen else "target"
        raise InputFormatError(
            f"data row {rows + int(bad[0]) + 1}: " + missing_message(name, c[0][int(bad[0])], None),
            source=source,
        )


def no_missing(chunks: Iterable[Any], source: str, chosen: list, relevance: bool = False) -> Iterator[list]:
    """Chunks of numeric targets, each checked for a missing one (NaN) before it is summarized;
    ``relevance``: the targets are graded relevance (no binary measure asked), checked >= 0.
    """
    import numpy as np

    rows = 0
    for c in chunks:
        _missing_in_chunk(c, rows, source, chosen)
        if relevance:
            bad = np.flatnonzero(~(np.asarray(c[0]) >= 0))
            if len(bad):  # the chunk has no line numbers: its data row (the header and blank lines apart)
                name = chosen[0].target.name if chosen else "target"
                raise InputFormatError(
                    f"data row {rows + int(bad[0]) + 1}: the target column {name!r} holds "
                    f"{float(c[0][int(bad[0])])!r}; the measures asked read it as graded relevance, "
                    "a number >= 0 (0: not relevant); labels such as -1/1: --pos-label 1",
                    source=source,
                )
        rows += len(c[0])
        yield c


def label_as_read(pos_label: str, col: Any) -> Any:
    """``--pos-label``'s text as the label it names, for the report's parameters: a number as typed
    (``2``, ``2.0``, ``0.5``), ``True`` against booleans, else the text; whatever the column's type
    (the whole file's, a chunk's or a Dask partition's), as labels are matched
    (:func:`perfeval.io.grammar.label_key`).
    """
    import numpy as np

    if np.asarray(col).dtype.kind == "b" and pos_label.lower() in ("true", "false"):
        return pos_label.lower() == "true"
    if re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", pos_label):
        try:
            return int(pos_label)  # typed as a whole number: shown as one
        except ValueError:
            return float(pos_label)
    return pos_label


def coded(
    chunks: Iterable[Any], pos_label: Any, source: str, chosen: list, read: dict | None = None
) -> Iterator[list]:
    """Chunks whose target labels are coded 0/1 by ``--pos-label``; a label found in no chunk is an
    error at the end, as it is when the table is read whole.  ``read`` gets ``"pos_label"``: the
    label as read from the first chunk's column (:func:`label_as_read`).
    """
    import numpy as np

    from perfeval.io import grammar

    seen = False
    others: set = set()  # the labels read as negative, as the whole column's
    rows = 0
    for c in chunks:
        _missing_in_chunk(c, rows, source, chosen)
        rows += len(c[0])
        if read is not None and "pos_label" not in read:
            read["pos_label"] = label_as_read(pos_label, c[0])
        y = grammar.label_hits(c[0], pos_label)
        seen = seen or bool(np.any(y))
        others |= grammar.other_labels(c[0], y)
        yield [y, *c[1:]]
    name = chosen[0].target.name if chosen else "target"
    if not seen:
        raise InputFormatError(no_such_label(pos_label, name, others), source=source)
    say_other_labels(pos_label, others)


def _large_numeric(args: Any, read: dict | None = None) -> tuple | None:
    """A large file read chunk by chunk, with the progress line on a terminal: (source, targets,
    {model name: scores}, groups), each chunk checked as a table read whole is (the targets coded,
    ``--pos-label`` too; the scores finite: the same errors at the same lines); None when the file
    is small or not a file (then the table reader reads it).  ``read`` gets ``"pos_label"``: the
    label as read (:func:`coded`).
    """
    import numpy as np

    path = path_of(args.file)
    if path is None or not os.path.isfile(path) or os.path.getsize(path) < LARGE_BYTES:
        return None
    from perfeval.io.readers import guess_format, iter_columns
    from perfeval.io.tables import BOM, clean, open_bytes

    fmt = args.input_format
    if fmt == "auto":  # JSON lines are read whole (by name, or by their first byte)
        fh = open_bytes(path, path)
        try:
            fmt = guess_format(path, clean(fh.read(1 << 16), True).lstrip(BOM))
        finally:
            fh.close()
    if fmt == "jsonl":
        return None

    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch = choose_columns(args, names, header, path, weight=False, several=True)
        chosen.append(ch)
        # the group second: its place does not depend on the number of scores (--score a,b or repeated)
        return [ch.target.index, None if ch.group is None else ch.group.index, *(c.index for c in ch.scores)]

    seen: dict = {}

    def checks(cols: list, where: Any) -> list:
        ch = chosen[0]
        target, *values, _ = earliest(
            lambda: targets(
                where, ch.target.name, cols[0], args.pos_label, True, seen, regression=args.command != "plot"
            ),
            *(
                lambda c=c, v=v: score_values(where, c.name, v)
                for c, v in zip(ch.scores, cols[2:], strict=True)
            ),
            lambda: where.no_empties(ch.all()),
        )
        return [target, cols[1], *values]

    chunks: Iterable[Any] = iter_columns(
        path,
        chooser,
        args.input_format,
        args.header,
        progress=wanted(args),
        ids={1: "--group"},
        delimiter=args.delimiter,
        convert=checks,
    )
    if args.pos_label is not None:
        chunks = coded(chunks, args.pos_label, path, chosen, read)
    parts = list(chunks)
    ch = chosen[0]
    say_columns(ch)
    cols = [
        None if parts[0][k] is None else np.concatenate([p[k] for p in parts]) for k in range(len(parts[0]))
    ]
    models = {c.name: cols[2 + i] for i, c in enumerate(ch.scores)}
    return path, cols[0], models, cols[1]


def models(args: Any, specs: list | None = None, table: Any = None, said: dict | None = None) -> tuple:
    """(source, targets, {model name: scores}, groups, weights) for plot and report: several score
    columns; groups and weights None when not asked for.  ``specs``: the measures computed (the
    weights' check of :func:`weights`); ``table``: the table when it was read already (standard
    input is read once); ``said`` gets ``"pos_label"`` with ``--pos-label``: the label as read
    from the target column (:func:`label_as_read`), as ``perfeval eval`` reports it.
    """
    weight = getattr(args, "weight", None)
    # the chunked reader takes no weight
    big = None if weight or table is not None else _large_numeric(args, said)
    if big is not None:
        return (*big, None)
    t = read(args, args.file) if table is None else table
    ch = choose_table(args, t, several=True, empties=False)
    say_columns(ch)
    names = tuple(c.name for c in ch.scores)
    # the first bad line of the file is the one said, whichever column it is in (as read in chunks),
    # an empty field of a column used too
    target, *values, w, _ = earliest(
        lambda: targets(
            t,
            ch.target.name,
            t.get(ch.target, empties=False),
            args.pos_label,
            True,
            scores=names,
            # the report takes a regression target (--task regression, -m mae: its words offer them);
            # the plots' binary curves do not (their words name the regression plots)
            regression=getattr(args, "command", None) != "plot",
        ),
        *(lambda c=c: scores(t, c) for c in ch.scores),
        lambda: weights(t, ch.weight, specs),
        lambda: t.no_empties(ch.all()),
    )
    if said is not None and args.pos_label is not None:
        said["pos_label"] = label_as_read(args.pos_label, t.get(ch.target, empties=False))
    return (
        t.source,
        target,
        dict(zip((c.name for c in ch.scores), values, strict=True)),
        None if ch.group is None else t.get(ch.group),
        w,
    )


def say_grades_as_labels(target: Any, specs: list, pos_label: Any, name: str) -> None:
    """A note when a binary-label group measure (GAUC) reads a target of grades: relevance > 0 is
    positive there, said rather than silently assumed.
    """
    from perfeval.base.checks import grades_as_labels

    said = None if pos_label is not None else grades_as_labels(target, specs)
    if said is not None:
        grouped, shown = said
        note(
            f"perfeval: note: {', '.join(grouped)} read the target {name!r} ({shown}) as positive where it "
            "is above 0 (--pos-label LABEL names one label positive instead)\n"
        )
