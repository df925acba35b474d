"""Table tasks: the answer key and the submissions are tables with a header (CSV, or Parquet), their
columns named by the task file (``id``, ``prediction``, ``target``, ``group``, ``weight``); each
criterion is a registry measure computed by :func:`perfeval.evaluate` on the submission joined with
the key (:mod:`perfeval.contest.criteria`).

A submission is read by the project's table readers (:mod:`perfeval.io`) under the scorer's rules
(:mod:`perfeval.contest.score`: no link, no FIFO, never the key itself, refused unread when larger
than a submission for this key can be, or of more lines), then checked whole against the key: its
columns named right, every id of the key exactly once, no other id, every prediction a finite
number (a probability in [0, 1] where a criterion reads probabilities; one of the task's classes
where a row predicts a label).  Every problem is one line naming the file, the line (Parquet and
data frames: the row) and the column; at most :data:`MAX_ERRORS` are listed.  No message shows a
value of the key other than an id of it (the ids a submission lacks), and none depends on a target.
"""

from __future__ import annotations

import ast
import csv
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.text import place, shown, token
from perfeval.contest.criteria import Joined, measure_result, why_no_number
from perfeval.contest.score import (
    EXTRA_LINES,
    MAX_ERRORS,
    MAX_LINE,
    MAX_LINES_PER_ROW,
    ErrorList,
    Scores,
    add_total,
    open_submission,
)
from perfeval.contest.tasks import Task
from perfeval.exceptions import InputFormatError, InvalidParameterError, PerfError
from perfeval.io import grammar
from perfeval.io.base import Options
from perfeval.io.readers import READERS, read_table
from perfeval.io.tables import Table, check_bytes, clean, float_ids

# pandas, polars and pyarrow are not imported: a data frame is read through its own methods; pyarrow
# is imported by the Parquet reader, where a Parquet file is read.

#: the first bytes of a compressed file (a submission is plain CSV or Parquet)
_COMPRESSED = {b"\x1f\x8b": "gzip", b"PK\x03\x04": "zip", b"\xfd7zXZ\x00": "xz", b"BZh": "bzip2"}


@dataclass
class TableKey:
    """The answer key of a table task, in its order: ids (int64 or text, as written), targets (K
    classes: the labels as text; K labels: an (n, K) 0/1 matrix), groups and weights.
    """

    source: str
    ids: np.ndarray
    y: np.ndarray
    groups: np.ndarray | None = None
    weights: np.ndarray | None = None
    inode: tuple | None = None  # (device, inode) of the key's file: a submission may never be it
    #: each row's board (``public``, ``private`` or ``ignored``), when the task names a usage column
    usage: np.ndarray | None = None
    #: the key's ids as text of a width (for a submission whose ids are text, or wider): by width
    _text: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def id_width(self) -> int:
        """The longest id, in characters (an int64's: 20)."""
        if self.ids.dtype.kind == "U":
            return max(1, self.ids.dtype.itemsize // 4)
        return 20

    @property
    def rows(self) -> int:
        return len(self.ids)

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """The key row of each id (-1: not an id of the key), ids compared as the key writes them:
        int64 when both are, else as text (``007`` is not ``7``).  A hash join
        (:func:`match_ids`); the key's ids as text are kept for the next submission.
        """
        if self.ids.dtype.kind == "i" and ids.dtype.kind == "i":
            return match_ids(self.ids, ids)
        theirs = ids if ids.dtype.kind == "U" else ids.astype(str)
        width = max(_chars(theirs), _chars(self.ids) if self.ids.dtype.kind == "U" else 1)
        mine = self._text.get(width)
        if mine is None:
            mine = self._text[width] = _widened(
                self.ids if self.ids.dtype.kind == "U" else self.ids.astype(str), width
            )
        return match_ids(mine, _widened(theirs, width))


def _chars(text: np.ndarray) -> int:
    """The width of an array of text, in characters (at least 1)."""
    return max(1, text.dtype.itemsize // 4)


def _widened(text: np.ndarray, width: int) -> np.ndarray:
    """An array of text as ``width`` characters a value, native byte order, contiguous (no copy when
    it is one already).
    """
    return np.ascontiguousarray(text, dtype=np.dtype(f"=U{width}"))


def match_ids(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """The row of ``mine`` holding each value of ``theirs`` (the first, when ``mine`` repeats one), -1
    where none does: both int64, or both text of one width (numpy's fixed-width UCS-4, padded alike,
    so equal records are equal ids).  The compiled hash join (``_native.lookup_ids``): a million text
    ids in tens of milliseconds, where sorting numpy's text took seconds.
    """
    if mine.dtype.kind == "i":
        mine, theirs = np.ascontiguousarray(mine, np.int64), np.ascontiguousarray(theirs, np.int64)
    else:  # native byte order, contiguous: records compared byte for byte
        width = max(_chars(mine), _chars(theirs))
        mine, theirs = _widened(mine, width), _widened(theirs, width)
    if not len(theirs):
        return np.zeros(0, np.int64)
    return np.frombuffer(_native.lookup_ids(mine, theirs, mine.dtype.itemsize), np.int64)


def as_text(col: np.ndarray) -> np.ndarray:
    """A column of values (a data frame's objects) as text, each value as ``str`` writes it, the array
    as wide as its longest value: numpy's conversion in one pass (bytes are read as ASCII text), each
    value's ``str`` where numpy's cannot convert one.
    """
    if col.dtype.kind == "U":
        return col
    try:
        text = col.astype(str)
    except (UnicodeDecodeError, ValueError, TypeError):
        text = np.asarray([str(v) for v in col.tolist()], dtype=str)
    if not len(text):
        return text
    width = max(1, int(np.char.str_len(text).max()))
    return text if _chars(text) == width else text.astype(f"U{width}")


# -- frames: a table's columns by name, and where each row is ------------------------------------------
@dataclass
class _Frame:
    """Columns by name (each name once), the number of rows, and each row's place in words
    (``line 7``; ``row 7`` of a Parquet file or a data frame); the empty fields and nulls of each
    column (their rows).
    """

    source: str
    names: list[str]
    data: dict[str, np.ndarray]
    rows: int
    where: Callable[[int], str]
    missing: dict[str, np.ndarray] = field(default_factory=dict)
    #: what a missing value is in this format, in words
    blank: str = "an empty field"

    def at(self, row: int) -> dict[str, int]:
        """Where row ``row`` is, as :class:`InputFormatError` takes it (``line=``, or ``row=``)."""
        kind, number = self.where(row).split()
        return {kind: int(number)}

    def place(self, row: int, column: str | None = None) -> str:
        at = f"{place(self.source)}, {self.where(row)}"
        return at + (f", column {column!r}" if column is not None else "")


def _table_frame(table: Table, row_lines: Callable[[], np.ndarray]) -> _Frame:
    """A :class:`_Frame` of a table read by :mod:`perfeval.io` (names checked unique by the caller);
    ``row_lines()`` gives each row's line, found only when a message needs it.
    """
    data = {name: table.data[i] for i, name in enumerate(table.names)}  # type: ignore[index]
    missing = {}
    for i, name in enumerate(table.names):
        col = data[name]
        if i in table.nulls:
            missing[name] = _nulls(col)
        elif col.dtype.kind == "U":
            hit = col == ""
            if hit.any():
                missing[name] = np.flatnonzero(hit)
    lines: list[np.ndarray] = []

    def where(row: int) -> str:
        if table.rows_only:
            return f"row {table.line0 + row + 1}"
        if not lines:
            lines.append(row_lines())
        return f"line {int(lines[0][row])}"

    rows = len(table.data[0]) if table.data else 0
    blank = "a null" if table.rows_only else "an empty field"
    return _Frame(table.source, list(table.names), data, rows, where, missing, blank)


def _nulls(col: np.ndarray) -> np.ndarray:
    """The rows of a Parquet column that hold a null (NaN in a float column, None in another)."""
    if col.dtype.kind == "f":
        return np.flatnonzero(np.isnan(col))
    return np.flatnonzero(np.array([v is None for v in col.tolist()], bool))


def _lines_of(table: Table) -> np.ndarray:
    """Each row's line in its file (one pass over the text, as :meth:`Table.line_of` finds one)."""
    n = len(table.data[0]) if table.data else 0
    if table.lines is not None:
        return np.asarray(table.lines)
    if table.body is None:
        return np.arange(n) + 1 + (1 if table.header else 0)
    out = []
    for k, line in enumerate(table.body.split(b"\n"), 1):
        t = line.strip()
        if t and not (table.comments and t.startswith(b"#")):
            out.append(table.line0 + k)
            if len(out) == n:
                break
    return np.asarray(out, np.int64)


def frame_of(df: Any, source: str) -> _Frame:
    """A data frame (pandas, polars, a pyarrow Table: anything with ``columns`` and a column by name)
    as a :class:`_Frame`, its rows named ``row 1``, ``row 2``, ...  Nulls (None, NaN in a column of
    objects, pandas' NA) are noted as missing values.
    """
    names_of = getattr(df, "column_names", None)  # pyarrow's Table
    raw = list(names_of if names_of is not None else getattr(df, "columns", []))
    names = [str(c) for c in raw]
    data: dict[str, np.ndarray] = {}
    missing: dict[str, np.ndarray] = {}
    rows = 0
    for c, name in zip(raw, names, strict=True):
        if name in data:
            continue  # named twice: said by the header check
        col = df[c]
        ints = _nullable_ints(col)
        if ints is not None:
            arr, gone = ints
            if gone.any():
                missing[name] = np.flatnonzero(gone)
        else:
            arr = col.to_numpy() if hasattr(col, "to_numpy") else np.asarray(col)
        if arr.dtype.kind == "O":
            gone = _object_nulls(col, arr)
            if len(gone):
                missing[name] = gone
        data[name] = arr
        rows = len(arr)
    return _Frame(source, names, data, rows, lambda row: f"row {row + 1}", missing, "a null")


#: nullable integer types: pandas' and polars' names, pyarrow's
_MASKED_INTS = frozenset(f"{u}Int{b}" for u in ("", "U") for b in (8, 16, 32, 64))
_ARROW_INTS = frozenset(f"{u}int{b}" for u in ("", "u") for b in (8, 16, 32, 64))


def _nullable_ints(col: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """A column of integers that may hold nulls (pandas' ``Int64``, polars' ``Int64``, pyarrow's
    ``int64``) as (its integers, nulls as 0; where the nulls are): a null is a missing value, not a
    float column (what their ``to_numpy`` makes of it, NaN among floats).  None for another column.
    """
    dtype = str(getattr(col, "dtype", ""))
    if dtype in _MASKED_INTS and hasattr(col, "isna"):  # pandas
        kind = np.uint64 if dtype.startswith("U") else np.int64
        return col.to_numpy(dtype=kind, na_value=0), np.asarray(col.isna(), bool)
    if dtype in _MASKED_INTS and hasattr(col, "fill_null"):  # polars
        return col.fill_null(0).to_numpy(), np.asarray(col.is_null().to_numpy(), bool)
    if str(getattr(col, "type", "")) in _ARROW_INTS and hasattr(col, "fill_null"):  # pyarrow
        gone = np.asarray(col.is_null().to_numpy(zero_copy_only=False), bool)
        return np.asarray(col.fill_null(0).to_numpy()), gone
    return None


def _object_nulls(col: Any, arr: np.ndarray) -> np.ndarray:
    """The rows of a data frame's column of objects (``arr``: its values) that hold a null (None,
    pandas' NA or NaT; a NaN is a number, said as not finite).  The candidates are found by the
    frame's own vectorised test (pandas' ``isna``, polars' and pyarrow's ``is_null``), then each
    candidate is judged alone; a column with neither test is judged value by value.
    """
    test = getattr(col, "isna", None) or getattr(col, "is_null", None)
    marked = None
    if test is not None:
        try:
            marked = test()
            marked = np.asarray(marked.to_numpy() if hasattr(marked, "to_numpy") else marked, bool)
        except Exception:  # a column whose test is not the one meant: judged value by value
            marked = None
    if marked is None or marked.shape != arr.shape:
        return np.flatnonzero(np.array([_is_null(v) for v in arr.tolist()], bool))
    cand = np.flatnonzero(marked)
    if str(getattr(col, "dtype", "")) == "str":  # pandas 3's text: its missing value is NaN, not a number
        return cand
    return cand[np.array([_is_null(arr[i]) for i in cand.tolist()], bool)] if len(cand) else cand


def _is_null(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return False  # a NaN: a number that is not finite, said so
    return type(v).__name__ in ("NAType", "NaTType")


def _index_names(df: Any) -> list[str]:
    """A pandas data frame's index names (each level's that has one); none for another frame."""
    names = getattr(getattr(df, "index", None), "names", None)
    try:
        return [str(n) for n in names or () if n is not None]
    except TypeError:
        return []


def _is_frame(x: Any) -> bool:
    """A data frame (pandas, polars, a pyarrow Table), not a path."""
    if isinstance(x, (str, bytes, os.PathLike)):
        return False
    return hasattr(x, "columns") or hasattr(x, "column_names")


# -- the answer key -------------------------------------------------------------------------------------
def read_table_key(key: Any, task: Task) -> TableKey:
    """The answer key of a table task: a CSV or Parquet file (its path), or a data frame.  Its
    problems are the organiser's: the first is an error naming the key's file, line (or row) and
    column, raised before any submission is read.  The key may hold other columns (a Kaggle
    solution's ``Usage``): they are not read.
    """
    cols = task.columns
    assert cols is not None and task.problem is not None
    if _is_frame(key):
        frame = frame_of(key, "the answer key")
        inode = None
    else:
        path = os.fspath(key)
        wanted = set(cols.key)

        def identity(names: list, header: bool) -> dict[int, str]:
            pos = {n: i for i, n in reversed(list(enumerate(names)))}
            out = {pos[c]: "id" for c in (cols.id, cols.group, cols.usage) if c is not None and c in pos}
            if cols.group in pos:
                out[pos[cols.group]] = "group"
            return out

        def labels(names: list, header: bool) -> list[int]:
            pos = {n: i for i, n in reversed(list(enumerate(names)))}
            one = isinstance(cols.target, str)
            return [pos[t] for t in [cols.target] if one and task.problem == "classes" and t in pos]

        table = read_table(path, "auto", True, identity=identity, labels=labels)
        twice = sorted({n for n in table.names if n in wanted and table.names.count(n) > 1})
        if twice:
            raise InputFormatError(f"the header names the column {twice[0]!r} twice", source=path)
        frame = _table_frame(table, lambda: _lines_of(table))
        try:
            st = os.stat(path)
            inode = (st.st_dev, st.st_ino)
        except OSError:
            inode = None
    src = frame.source
    _undeclared_usage(frame, task)
    absent = [c for c in cols.key if c not in frame.data]
    if absent:
        role = _role(task, absent[0])
        held = f"its columns: {', '.join(frame.names)}" if frame.names else "it has no columns"
        hint = ""
        if _is_frame(key) and absent[0] in _index_names(key):
            hint = f"; {absent[0]!r} is the data frame's index: reset_index() makes it a column"
        raise InputFormatError(
            f"the answer key has no column {absent[0]!r} (the task's {role}; {held}){hint}", source=src
        )
    for name, rows in frame.missing.items():
        if name in cols.key and len(rows):
            raise InputFormatError(
                f"column {name!r}: a missing value (every row of the key needs its {_role(task, name)})",
                source=src,
                **frame.at(int(rows[0])),
            )
    ids = _key_ids(frame, cols.id)
    y = _key_targets(frame, task)
    groups = _key_ids(frame, cols.group, unique=False) if cols.group is not None else None
    weights = None
    if cols.weight is not None:
        weights = _numbers(frame, cols.weight, "weight")
        bad = np.flatnonzero(~(weights >= 0))
        if len(bad):
            raise InputFormatError(
                f"column {cols.weight!r}: a weight is a number >= 0", source=src, **frame.at(int(bad[0]))
            )
    if not len(ids):
        raise InputFormatError("the answer key holds no rows", source=src)
    usage = _key_usage(frame, cols.usage) if cols.usage is not None else None
    out = TableKey(src, ids, y, groups, weights, inode, usage=usage)
    _key_dry_run(out, task)
    return out


#: the boards a key's usage column names (in any case)
BOARDS = ("public", "private", "ignored")


def _undeclared_usage(frame: _Frame, task: Task) -> None:
    """A key column named ``Usage`` (in any case) whose rows are Kaggle's boards (``Public``,
    ``Private``, ``Ignored``) that the task does not name as ``usage``: refused, else every row
    (private ones too) would be scored on one board.
    """
    cols = task.columns
    assert cols is not None
    if cols.usage is not None:
        return
    for name in frame.names:
        if name.lower() != "usage" or name in cols.key or name not in frame.data:
            continue
        col = frame.data[name]
        values = np.unique(np.array([str(v).lower() for v in col.tolist()], dtype=object))
        text = set(values.tolist()) - {"", "none", "nan", "<na>"}
        if text <= set(BOARDS) and {"public", "private"} <= text:
            raise InputFormatError(
                f"the answer key's column {name!r} splits its rows into Public and Private boards, but "
                f"the task names no usage column (every row would be scored on one board): add "
                f"usage = {name!r} to the task, or drop or rename the column",
                source=frame.source,
            )


def _key_usage(frame: _Frame, name: str) -> np.ndarray:
    """Each row's board, lower-cased; both boards need a row."""
    col = frame.data[name]
    text = np.array([str(v).lower() for v in col], dtype=object)
    bad = np.flatnonzero(~np.isin(text, BOARDS))
    if len(bad):
        raise InputFormatError(
            f"column {name!r}: a row's board is Public, Private or Ignored",
            source=frame.source,
            **frame.at(int(bad[0])),
        )
    for board in ("public", "private"):
        if not (text == board).any():
            raise InputFormatError(f"column {name!r}: no row is {board.capitalize()}", source=frame.source)
    return text


def _role(task: Task, name: str) -> str:
    cols = task.columns
    assert cols is not None
    if name == cols.id:
        return "id column"
    if name == cols.group:
        return "group column"
    if name == cols.weight:
        return "weight column"
    if name == cols.usage:
        return "usage column"
    return "target column"


def _key_ids(frame: _Frame, name: str, unique: bool = True) -> np.ndarray:
    """The key's id (or group) column: int64 or text, never floats; ids each once."""
    col = frame.data[name]
    if col.dtype.kind in "iu":
        col = col.astype(np.int64)
    elif col.dtype.kind == "b":
        col = col.astype(np.int64)
    elif col.dtype.kind == "f":
        raise InputFormatError(
            f"column {name!r}: ids are integers or text, not floating-point numbers", source=frame.source
        )
    else:
        text = as_text(col)
        if col.dtype.kind == "O":  # a NaN is written "nan": those rows alone are looked at
            cand = np.flatnonzero(text == "nan").tolist()
            nan = [i for i in cand if isinstance(col[i], float) and math.isnan(col[i])]
            if nan:  # pandas' missing value in a column of text: not an id (nor the group "nan")
                raise InputFormatError(
                    f"column {name!r}: a missing value (NaN; every row of the key needs its {name!r})",
                    source=frame.source,
                    **frame.at(nan[0]),
                )
        col = text
    if unique and len(col):
        firsts = match_ids(col, col)  # each id's first row
        again = np.flatnonzero(firsts != np.arange(len(col)))
        if len(again):
            row = int(again[0])
            first = int(firsts[row])
            raise InputFormatError(
                f"column {name!r}: the answer key lists id {token(str(col[row]))} twice "
                f"(first on {frame.where(first)})",
                source=frame.source,
                **frame.at(row),
            )
    return col


def _numbers(frame: _Frame, name: str, role: str) -> np.ndarray:
    """A column of the key as finite float64, or an error naming the first row that is not one."""
    col = frame.data[name]
    if col.dtype.kind in "iufb":
        v = col.astype(np.float64)
    else:
        texts = [str(x) for x in col.tolist()]
        bad = grammar.first_bad_number(texts)
        if bad >= 0:
            raise InputFormatError(
                f"column {name!r}: the {role} {token(texts[bad])} is not a number",
                source=frame.source,
                **frame.at(bad),
            )
        v = np.array(texts, np.float64)
    bad_rows = np.flatnonzero(~np.isfinite(v))
    if len(bad_rows):
        raise InputFormatError(
            f"column {name!r}: the {role} is not a finite number",
            source=frame.source,
            **frame.at(int(bad_rows[0])),
        )
    return v


def _key_targets(frame: _Frame, task: Task) -> np.ndarray:
    """The key's targets as the problem reads them: numbers (binary: 0/1 or graded relevance;
    regression: any finite number), K classes' labels as text (each one of the task's classes),
    K labels' columns as an (n, K) matrix of numbers.
    """
    cols = task.columns
    assert cols is not None
    if task.problem == "labels":
        assert isinstance(cols.target, list)
        return np.column_stack([_numbers(frame, t, "target") for t in cols.target])
    if task.problem == "classes" and isinstance(cols.target, list):
        return _one_hot_labels(frame, cols.target, list(task.classes or ()))
    assert isinstance(cols.target, str)
    if task.problem != "classes":
        return _numbers(frame, cols.target, "target")
    col = frame.data[cols.target]
    labels = np.asarray([_label_text(v) for v in col.tolist()], dtype=str)
    known = set(task.classes or ())
    bad = [i for i, v in enumerate(labels.tolist()) if v not in known][:1]
    if bad:
        raise InputFormatError(
            f"column {cols.target!r}: the label {token(str(labels[bad[0]]))} is not one of the task's "
            f"classes ({', '.join(task.classes or ())})",
            source=frame.source,
            **frame.at(bad[0]),
        )
    return labels


def _one_hot_labels(frame: _Frame, names: list[str], classes: list[str]) -> np.ndarray:
    """K classes' labels from Kaggle's one-hot solution (one 0/1 column a class, in the order of the
    classes): each row's one column holding 1; a row with another value, or not exactly one 1, is
    the key's error at its row.
    """
    m = np.column_stack([_numbers(frame, t, "target") for t in names])
    bad = np.flatnonzero(~((m == 0) | (m == 1)).all(axis=1) | (m.sum(axis=1) != 1))
    if len(bad):
        r = int(bad[0])
        raise InputFormatError(
            f"columns {', '.join(names)}: a one-hot row holds exactly one 1, the others 0 (found "
            f"{', '.join(format(float(v), 'g') for v in m[r])})",
            source=frame.source,
            **frame.at(r),
        )
    return np.asarray(classes, dtype=str)[np.argmax(m, axis=1)]


def _label_text(v: Any) -> str:
    """A label as the task's classes are compared: a whole number as its digits (``3``, not ``3.0``
    nor ``True``), text as it is.
    """
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))  # a data frame's column of whole numbers held as floats
    return str(v)


def _key_dry_run(key: TableKey, task: Task) -> None:
    """Every criterion computed once on the key with a neutral prediction: what ``evaluate`` refuses
    in the key (targets of three values for a binary measure, negative grades) is the key's error
    now, not each submission's later.  A criterion with no number for the neutral prediction is
    computed again with a varied one: no number for either (one class only, in the key or in a
    board's rows) is the key's error too, said to the organizer now rather than to every team as
    its submission's (a team would learn something of the key from it).  With boards (``usage``),
    each board's rows are tried alone too.
    """
    parts: list[tuple[str, np.ndarray | None]] = [("", None)]
    if key.usage is not None:
        parts += [(f" (its {b} board's rows)", key.usage == b) for b in ("public", "private")]
    for where, rows in parts:
        y, g, w = key.y, key.groups, key.weights
        if rows is not None:
            y, g, w = y[rows], None if g is None else g[rows], None if w is None else w[rows]
        for c in task.criteria:
            for pred in (_neutral(task, len(y)), _varied(task, len(y))):
                try:
                    result = measure_result(
                        task.problem or "",
                        c.measure or "",
                        Joined(y, pred, g, w),
                        dialect=c.dialect,
                        classes=_names(task),
                        rescale=c.rescale,
                    )
                except PerfError as e:  # the organiser's: said whole (nothing of a key reaches a team here)
                    raise InputFormatError(
                        f"the answer key{where} cannot be scored by criterion {c.name!r}: {e}",
                        source=key.source,
                    ) from None
                if math.isfinite(result.value):
                    break
            else:
                raise InputFormatError(
                    f"the answer key{where} gives criterion {c.name!r} no number whatever the predictions "
                    f"({why_no_number(result)})",
                    source=key.source,
                )
    _depends_on_predictions(key, task)


def _depends_on_predictions(key: TableKey, task: Task) -> None:
    """A criterion whose value is the same for the neutral prediction, the key's own targets and
    their reverse (``prec``: precision at k, with k = 0: the key's positive rate for every
    submission) ranks every team alike: the task's error, refused now.  With boards (``usage``),
    each board is a ranking of its own: a criterion that ranks every team alike on one board's rows
    (NDCG@10 where each of the board's queries holds one row) is the key's error, said with the board.
    """
    c = _constant_criterion(task, key.y, key.groups, key.weights)
    if c is not None:
        hint = ""
        if c.label == "P" and task.problem == "binary":  # prec, p, precision_at_k
            hint = "; P is precision at k (p@10 sets k); precision at the 0.5 threshold is 'pre'"
        raise InvalidParameterError(
            f"task {shown(task.name)}: criterion {c.name!r} (measure {c.measure!r}) does not depend "
            "on the predictions (the key's own targets, their reverse and a constant prediction all "
            f"score the same){hint}"
        )
    if key.usage is None:
        return
    per_group = " (each group with rows of both kinds on each board)" if key.groups is not None else ""
    for b in ("public", "private"):
        rows = key.usage == b
        g, w = key.groups, key.weights
        c = _constant_criterion(
            task, key.y[rows], None if g is None else g[rows], None if w is None else w[rows]
        )
        if c is not None:
            raise InputFormatError(
                f"the answer key (its {b} board's rows) gives criterion {c.name!r} (measure "
                f"{c.measure!r}) the same score whatever the predictions (the rows' own targets, their "
                "reverse and a constant prediction all score the same): the board would rank every team "
                f"alike; split the rows otherwise{per_group}, or choose another criterion",
                source=key.source,
            )


def _constant_criterion(task: Task, y: np.ndarray, groups: Any, weights: Any) -> Any:
    """The first criterion that scores ``y`` alike for the neutral prediction, ``y`` itself and its
    reverse (each a number), or None.
    """
    tried = _telling(task, y)
    if tried is None:
        return None
    for c in task.criteria:
        values = []
        for pred in (_neutral(task, len(y)), *tried):
            try:
                result = measure_result(
                    task.problem or "",
                    c.measure or "",
                    Joined(y, pred, groups, weights),
                    dialect=c.dialect,
                    classes=_names(task),
                    rescale=c.rescale,
                )
            except PerfError:
                break  # said with its own message where a submission meets it
            values.append(float(result.value))
        if len(values) == 3 and all(math.isfinite(v) for v in values) and len(set(values)) == 1:
            return c
    return None


def _telling(task: Task, y: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Two predictions of the task's shape as different as can be: the key's own targets (as
    scores) and their reverse; for targets all alike (a board of one class), a varied prediction
    and its reverse; None for no rows.
    """
    if not len(y):
        return None
    if task.problem == "classes":
        names = list(task.classes or ())
        k = len(names)
        index = {n: i for i, n in enumerate(names)}
        idx = np.array([index[str(v)] for v in y.tolist()], np.int64)
        if k < 2:
            return None
        if len(set(idx.tolist())) < 2:
            v = _varied(task, len(y))
            return v, 1.0 - v
        other = 0.1 / (k - 1)
        eye = np.eye(k, dtype=bool)
        return np.where(eye[idx], 0.9, other), np.where(eye[(idx + 1) % k], 0.9, other)
    t = np.asarray(y, float)
    lo, hi = float(np.min(t)), float(np.max(t))
    if not hi > lo:  # K labels: every label alike on every row too
        v = _varied(task, len(y))
        return v, 1.0 - v
    if task.problem == "regression":
        return t, (lo + hi) - t
    u = (t - lo) / (hi - lo)
    return 0.01 + 0.98 * u, 0.99 - 0.98 * u


def _varied(task: Task, n: int) -> np.ndarray:
    """A prediction of the task's shape whose values differ (a seeded draw in (0, 1))."""
    rng = np.random.default_rng(0)
    width = len(task.classes or ()) if task.problem == "classes" else len(_names(task) or [0])
    if task.problem in ("classes", "labels"):
        return 0.01 + 0.98 * rng.random((n, width))
    return 0.01 + 0.98 * rng.random(n)


def _neutral(task: Task, n: int) -> np.ndarray:
    """A prediction of the task's shape that says nothing (0.5; K classes: 1/K each)."""
    width = len(task.classes or ()) if task.problem == "classes" else len(_names(task) or [0])
    if task.problem == "classes":
        return np.full((n, width), 1.0 / width)
    if task.problem == "labels":
        return np.full((n, width), 0.5)
    return np.full(n, 0.5)


def _names(task: Task) -> list[str] | None:
    """The names ``evaluate`` is given for K classes (the task's classes) or K labels (the prediction
    columns).
    """
    if task.problem == "classes":
        return task.classes
    if task.problem == "labels":
        assert task.columns is not None
        return list(task.columns.prediction)
    return None


# -- a submission ---------------------------------------------------------------------------------------
#: the longest text a prediction field may hold (a number written in full: 17 digits, a sign, a
#: point and an exponent, with room to spare; a class label: the longest of the task's)
FIELD = 64


def line_width(task: Task, key: TableKey) -> int:
    """The longest line of a valid submission, with room to spare: the key's longest id, each
    prediction's :data:`FIELD` characters (quotes and blanks around each field).  A longer line is
    refused before the file is parsed: what a reader keeps of a column is as wide as its widest
    field, so one long field would cost memory for every row.
    """
    assert task.columns is not None
    labels = max((len(c) for c in task.classes or ()), default=0)
    return key.id_width + 4 + len(task.columns.prediction) * (max(FIELD, labels) + 4) + 16


def limits(task: Task, key: TableKey) -> tuple[int, int, int]:
    """(bytes, lines, line width) a submission file for this key can have: as many rows as the key
    and :data:`MAX_ERRORS` (more would be errors all), each at most :func:`line_width` bytes, the
    header (at most MAX_LINE bytes), and blank lines up to MAX_LINES_PER_ROW lines a key row and
    EXTRA_LINES, with a MiB to spare (a Parquet file's footer).  A larger file is refused unread.
    """
    width = line_width(task, key)
    lines = MAX_LINES_PER_ROW * key.rows + EXTRA_LINES
    return (key.rows + MAX_ERRORS + 1) * (width + 2) + 2 * lines + MAX_LINE + (1 << 20), lines, width


def read_submission(path: str, task: Task, key: TableKey, follow_links: bool = False) -> _Frame:
    """A submission file as a :class:`_Frame`, read under the scorer's rules (:func:`open_submission`:
    no link without ``follow_links``, no FIFO, never the key), refused unread when larger than a
    submission for this key can be (:func:`limits`); then its lines are counted and measured (more
    lines or rows than a valid submission has, or a line longer than one of its can be, is refused
    before the file is parsed), and it is read by the project's CSV or Parquet reader.  So memory
    and time follow the key, whatever the file.  Every problem here is one
    :class:`InputFormatError` (the file is not read further).
    """
    limit, max_lines, width = limits(task, key)
    fh, size = open_submission(path, key, follow_links)
    with fh:
        if size > limit:
            raise InputFormatError(
                f"is {size:,} bytes, more than a submission for this key can be (at most {limit:,}: "
                f"{key.rows:,} rows of at most {width} bytes, and blank lines); it was not read",
                source=path,
            )
        raw = fh.read(limit + 1)
    if len(raw) > limit:
        raise InputFormatError(
            f"grew past {limit:,} bytes while it was read; a submission must not change while it is scored",
            source=path,
        )
    for magic, kind in _COMPRESSED.items():
        if raw.startswith(magic) and (kind != "bzip2" or raw[3:4].isdigit() and raw[4:10] == b"1AY&SY"):
            raise InputFormatError(
                f"is a {kind} file: a submission is a plain CSV (or Parquet) file; decompress it", source=path
            )
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputFormatError(
            "is UTF-16 text: a submission is UTF-8 (pandas: to_csv(encoding='utf-8'); Excel: CSV UTF-8)",
            source=path,
        )
    expected = task.columns.submission if task.columns else []
    if raw.startswith(b"PAR1"):
        return _parquet(raw, path, task, key, expected)
    if path.lower().endswith((".parquet", ".pq")):
        raise InputFormatError("is not a Parquet file (it does not start with PAR1)", source=path)
    return _csv(raw, path, task, key, expected, max_lines)


def _identity(task: Task, key: TableKey | None = None) -> Callable[[list, bool], dict[int, str]]:
    """The submission's id column read as an identity: int64 or text as written, never floats (an id
    written as a float is refused by the reader).  Against a key whose ids are text, the id column
    is kept as written instead (:func:`_labels`): a key's text id may look like a float (``1.5``), and
    is matched as text; an id written as a float that is not the key's is refused when the ids are
    checked (:func:`_float_id`), in the same words.
    """
    assert task.columns is not None
    cols = task.columns
    text_key = key is not None and key.ids.dtype.kind == "U"

    def identity(names: list, header: bool) -> dict[int, str]:
        return {names.index(cols.id): "id"} if cols.id in names and not text_key else {}

    return identity


def _labels(task: Task, key: TableKey | None = None) -> Callable[[list, bool], list[int]] | None:
    """The columns kept as written (int64 or text): K classes predicted as one label a row, its label
    column; against a key whose ids are text, the id column (:func:`_identity`).
    """
    assert task.columns is not None
    cols = task.columns
    kept = [cols.prediction[0]] if task.hard else []
    if key is not None and key.ids.dtype.kind == "U":
        kept.append(cols.id)
    if not kept:
        return None
    return lambda names, header: [names.index(c) for c in kept if c in names]


def _csv(raw: bytes, path: str, task: Task, key: TableKey, expected: list[str], max_lines: int) -> _Frame:
    """A CSV submission: lines counted (LF, CR LF and CR end one) and measured, bytes checked (a NUL
    byte, a character some readers take for a line end), the header's names checked, then the
    project's CSV reader (comma separated, a header, the id column an identity).
    """
    lines = raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n") + (bool(raw) and raw[-1:] not in b"\r\n")
    if lines > max_lines:
        raise InputFormatError(
            f"holds {lines:,} lines, more than a submission for this key can have (at most {max_lines:,}: "
            f"{MAX_LINES_PER_ROW} a key row and {EXTRA_LINES:,}, blank lines included); it was not read",
            source=path,
        )
    body = clean(raw, True)
    del raw
    check_bytes(body, path, 0, True)  # a NUL byte (binary junk), a form feed: its line and column
    k, text = _header_line(body, path, expected)
    line = text.decode("utf-8", errors="replace")
    try:
        names = [f.strip() for f in next(csv.reader([line]), [])]
    except csv.Error as e:
        raise InputFormatError(f"the header is not a CSV line ({e})", source=path, line=k) from None
    _check_header(names, expected, path, k, line)
    width = line_width(task, key)
    long, rows, wide = _measure_lines(body, width, k, _field_caps(task, key, names))
    if wide is not None and (long is None or wide[0] < long):
        line_no, name, n, cap, field_text = wide
        if name == task.columns.id and grammar.first_float_id(np.array([field_text])) == 0:  # type: ignore[union-attr]
            # a 64-bit id a tool wrote as a float (1.000000383550841e+18): said as a short one is
            raise InputFormatError(float_ids(name, "id", field_text), source=path, line=line_no)
        what = (
            f"an id of the answer key (at most {cap} characters)"
            if name == task.columns.id  # type: ignore[union-attr]
            else f"a prediction (at most {cap} characters)"
        )
        raise InputFormatError(
            f"column {name!r}: a field of {n:,} characters, longer than {what}; it was not read further",
            source=path,
            line=line_no,
        )
    if long is not None:
        raise InputFormatError(
            f"longer than {width:,} bytes, more than a line of {','.join(expected)} can be (ids of at most "
            f"{key.id_width} characters, predictions of at most {FIELD}); it was not read further",
            source=path,
            line=long,
        )
    if rows - 1 > key.rows + MAX_ERRORS:
        raise InputFormatError(
            f"holds {rows - 1:,} rows, more than the answer key's {key.rows:,} ids (each once) and "
            f"{MAX_ERRORS}; it was not read further",
            source=path,
        )
    table = _read(body, path, Options("csv", True, ",", _identity(task, key), _labels(task, key)))
    return _table_frame(table, lambda: _lines_of(table))


def _header_line(body: bytes, path: str, expected: list[str]) -> tuple[int, bytes]:
    """(line, text) of a CSV submission's header: its first line that is neither blank nor a comment
    (``#`` first), at most MAX_LINE bytes; nothing is copied of a longer line.
    """
    pos, k, n = 0, 0, len(body)
    while pos < n:
        end = body.find(b"\n", pos)
        end = n if end < 0 else end
        k += 1
        if end - pos > MAX_LINE:
            raise InputFormatError(
                f"longer than {MAX_LINE:,} bytes; the first line is the header: {','.join(expected)}",
                source=path,
                line=k,
            )
        text = body[pos:end]
        if text.strip() and not text.lstrip().startswith(b"#"):
            return k, text
        pos = end + 1
    raise InputFormatError(
        f"holds no header and no data (a submission's columns: {', '.join(expected)})", source=path
    )


def _read(raw: bytes, path: str, how: Options) -> Table:
    """The project's reader of the format on a submission's bytes; its message, when it refuses
    them, with every quoted token of the submission cut to 40 characters (:func:`_cut`).
    """
    try:
        return READERS[how.fmt].table(raw, path, how)
    except InputFormatError as e:
        raise InputFormatError(_cut(str(e))) from None


def _field_caps(task: Task, key: TableKey, names: list[str]) -> dict[int, tuple[str, int]]:
    """Each column's widest field in a valid submission, by its position in the header: the id
    column's, the key's longest id; a prediction's, :data:`FIELD` characters (a class label: the
    longest of the task's).  A reader keeps a column of text as wide as its widest field, for every
    row: so a field wider than a valid one is refused before the file is parsed.
    """
    assert task.columns is not None
    labels = max((len(c) for c in task.classes or ()), default=0)
    caps = {task.columns.id: key.id_width}
    caps.update((p, max(FIELD, labels)) for p in task.columns.prediction)
    return {i: (n, caps[n]) for i, n in enumerate(names) if n in caps}


def _measure_lines(
    body: bytes, width: int, header: int, caps: dict[int, tuple[str, int]] | None = None
) -> tuple[int | None, int, tuple[int, str, int, int, str] | None]:
    """(the first line but the ``header``'s longer than ``width`` bytes, or None; the lines holding
    anything but blanks; the first field wider than its column's cap in ``caps`` (position ->
    (name, characters)), as (line, name, its width, the cap, its first 64 characters), or None:
    :func:`_wide_fields`).
    """
    wide = _wide_fields(body, header, caps) if caps else None
    if not body:
        return None, 0, wide
    # in vector passes over the bytes: each line's start and length (a line ends at LF), whether it
    # holds a byte other than white space (bytes.strip's: blank, \t, \n, \v, \f, \r)
    arr = np.frombuffer(body, np.uint8)
    ends = np.flatnonzero(arr == 10)
    if arr[-1] != 10:  # the last line has no LF
        ends = np.append(ends, len(arr))
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts
    too_long = lengths > width
    long_lines = np.flatnonzero(too_long) + 1
    long_lines = long_lines[long_lines != header]
    inked = np.zeros(len(starts), bool)
    some = np.flatnonzero(lengths > 0)
    if len(some):
        ink = (arr != 32) & ((arr < 9) | (arr > 13))
        # each line's bytes and the LF after it (white space); empty lines between hold none
        inked[some] = np.logical_or.reduceat(ink, starts[some])
    rows = int(np.count_nonzero(too_long | inked))
    return (int(long_lines[0]) if len(long_lines) else None), rows, wide


#: the bytes of a submission :func:`_wide_fields` measures at once (its arrays: a few times this)
_CHUNK = 1 << 18


def _wide_fields(
    body: bytes, header: int, caps: dict[int, tuple[str, int]]
) -> tuple[int, str, int, int, str] | None:
    """The first field (not the ``header``'s line) wider than its column's cap: (line, name, its
    width in characters, the cap, its first 64 characters), or None.  Fields are measured by numpy
    between commas and line ends, a chunk of lines at a time (so memory stays a few times
    :data:`_CHUNK`, however many commas junk holds); a line with a field longer than its cap in
    bytes, or with a quote (a quoted field may hold commas), is then measured as the CSV reader
    cuts it (:func:`_wide_field`).
    """
    top = max(cap for _, cap in caps.values())  # a field beyond the columns: the widest cap
    limits = np.full(max(caps) + 1, top, np.int64)
    for i, (_, cap) in caps.items():
        limits[i] = cap  # in bytes: at least its characters (a line with quotes is measured anyway)
    n, pos, line0 = len(body), 0, 1  # line0: the line the chunk starts on
    while pos < n:
        end = body.rfind(b"\n", pos, pos + _CHUNK) if pos + _CHUNK < n else n - 1
        if end < pos:  # one line longer than a chunk: to its end
            end = body.find(b"\n", pos + _CHUNK)
            end = n - 1 if end < 0 else end
        arr = np.frombuffer(body, np.uint8, end + 1 - pos, pos)
        nls = np.flatnonzero(arr == 10).astype(np.int32)
        cuts = np.flatnonzero((arr == 44) | (arr == 10)).astype(np.int32)
        ends = np.append(cuts, np.int32(len(arr)))
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        first = np.empty(len(ends), bool)
        first[0] = True
        first[1:] = arr[cuts] == 10
        idx = np.arange(len(ends), dtype=np.int32)
        field = idx - np.maximum.accumulate(np.where(first, idx, 0))
        bound = limits[np.minimum(field, len(limits) - 1)]
        bound[field >= len(limits)] = top
        del idx, first, field
        suspects = np.searchsorted(nls, starts[(ends - starts) > bound]) + line0
        quoted = np.searchsorted(nls, np.flatnonzero(arr == 34)) + line0
        for k in np.union1d(suspects, quoted).tolist():
            if k == header:
                continue
            a = 0 if k == line0 else int(nls[k - line0 - 1]) + 1
            b = int(nls[k - line0]) if k - line0 < len(nls) else len(arr)
            hit = _wide_field(bytes(arr[a:b]), k, caps)
            if hit is not None:
                return hit
        line0 += len(nls)
        pos = end + 1
    return None


def _wide_field(
    line: bytes, k: int, caps: dict[int, tuple[str, int]]
) -> tuple[int, str, int, int, str] | None:
    if b'"' in line:
        try:
            fields = [
                f.encode("utf-8", "surrogateescape")
                for f in next(csv.reader([line.decode("utf-8", "surrogateescape")]), [])
            ]
        except csv.Error:
            return None  # the reader says what is wrong with it
    else:
        fields = line.split(b",")
    for i, (name, cap) in caps.items():
        if i < len(fields):
            text = fields[i].strip().strip(b'"').decode("utf-8", "replace")
            if len(text) > cap:
                return k, name, len(text), cap, text[:64]
    return None


#: the column pandas' to_parquet writes a data frame's index to (unless index=False): not data
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")

#: the compressions of a Parquet submission's pages: none, or Snappy (pandas' and pyarrow's default),
#: whose output is at most a few dozen times its input; the others can inflate a few kilobytes to
#: gigabytes before any check could see them
PARQUET_CODECS = ("UNCOMPRESSED", "SNAPPY")


def _parquet(raw: bytes, path: str, task: Task, key: TableKey, expected: list[str]) -> _Frame:
    """A Parquet submission: its footer read first (the rows, the columns and their names, each
    column's compression and decompressed size), its text columns read as dictionaries first (a
    short dictionary can repeat one long value for every row) and their longest value measured; then
    the project's Parquet reader.
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputFormatError(
            "is a Parquet file, and reading Parquet needs pyarrow (pip install 'perfeval[parquet]')",
            source=path,
        ) from None
    try:
        pf = pq.ParquetFile(pa.BufferReader(raw))
        meta = pf.metadata
        names = list(pf.schema_arrow.names)
        chunks = [
            meta.row_group(i).column(j) for i in range(meta.num_row_groups) for j in range(meta.num_columns)
        ]
    except Exception as e:  # pyarrow raises several types for a bad file
        raise InputFormatError(f"is not a readable Parquet file ({_short(e)})", source=path) from None
    if meta.num_rows > key.rows + MAX_ERRORS:
        raise InputFormatError(
            f"holds {meta.num_rows:,} rows, more than the answer key's {key.rows:,} ids (each once) and "
            f"{MAX_ERRORS}; it was not read",
            source=path,
        )
    names = [n for n in names if not _PANDAS_INDEX.fullmatch(n)]
    _check_header(names, expected, path, None, None)
    width = line_width(task, key)
    for c in chunks:
        if c.compression not in PARQUET_CODECS:
            raise InputFormatError(
                f"column {c.path_in_schema!r} is compressed with {c.compression}: a submission's Parquet is "
                "uncompressed or Snappy-compressed (pandas' and pyarrow's default; polars: "
                "write_parquet(..., compression='snappy'))",
                source=path,
            )
    inflated = sum(c.total_uncompressed_size for c in chunks)
    if inflated > width * (key.rows + MAX_ERRORS) + (1 << 20):
        raise InputFormatError(
            f"decompresses to {inflated:,} bytes, more than a submission for this key can hold; it was not "
            "read",
            source=path,
        )
    id_name = task.columns.id  # type: ignore[union-attr]
    if pa.types.is_floating(pf.schema_arrow.field(id_name).type):
        _float_parquet_ids(pf.read(columns=[id_name]).column(id_name), id_name, path)
    text = [
        n
        for n, t in zip(pf.schema_arrow.names, pf.schema_arrow.types, strict=True)
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
    ]
    caps = {name: cap for name, cap in _field_caps(task, key, names).values()}
    try:
        if text:
            coded = pq.ParquetFile(pa.BufferReader(raw), read_dictionary=text).read(columns=text)
            for name in text:
                _held_to(coded.column(name), name, caps.get(name, width), name == id_name, path)
    except InputFormatError:
        raise
    except Exception as e:
        raise InputFormatError(f"is not a readable Parquet file ({_short(e)})", source=path) from None
    table = _read(raw, path, Options("parquet", True, None, _identity(task), _labels(task)))
    frame = _table_frame(table, lambda: np.zeros(0, np.int64))  # rows are named by number
    frame.names = names  # without pandas' index
    return frame


def _short(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 120 else text[:117] + "..."


def _check_header(
    names: list[str],
    expected: list[str],
    path: str,
    line: int | None,
    text: str | None,
    index: list[str] | None = None,
) -> None:
    """The submission's columns are the task's, each once (in any order): else one error, naming
    the first column that is wrong (its 1-based number), or the one missing.  ``line``: the header's
    line (a CSV file's; None: a Parquet file or a data frame); ``text``: the header line as written;
    ``index``: a data frame's index names (a column set as the index is said to be there).
    """
    seen: dict[str, int] = {}
    for j, name in enumerate(names, 1):
        if name in seen:
            raise InputFormatError(
                f"column {j}, {token(name)}, is named twice (first column {seen[name]}); a submission's "
                f"columns are {', '.join(expected)}",
                source=path,
                line=line,
            )
        seen[name] = j
        if name not in expected:
            why = _not_a_column(name, names, expected, text)
            raise InputFormatError(f"column {j}, {why}", source=path, line=line)
    absent = [c for c in expected if c not in seen]
    if absent:
        if not names:
            held = "it has no columns"
        else:
            listed = ", ".join(token(n) for n in names[:8]) + (", ..." if len(names) > 8 else "")
            held = f"the header names {listed}"
        hint = ""
        if absent[0] in (index or []):
            hint = f"; {absent[0]!r} is the data frame's index: reset_index() makes it a column"
        raise InputFormatError(
            f"no column {absent[0]!r} ({held}); a submission's columns are {', '.join(expected)}{hint}",
            source=path,
            line=line,
        )


def _not_a_column(name: str, names: list[str], expected: list[str], line: str | None) -> str:
    """Why a header's name is refused, with what was likely meant."""
    said = f"{token(name)}, is not one of the submission's columns ({', '.join(expected)})"
    if name in ("", "Unnamed: 0", "index"):
        return said + (
            "; it looks like a column of row numbers (pandas: to_csv(index=False), R: "
            "write.csv(row.names=FALSE) write none)"
        )
    if line is not None and len(names) == 1:
        for sep, words in ((";", "';'"), ("\t", "tabs")):
            if sep in line:
                return (
                    f"{token(name)}, is the header's only column: fields separated by {words}? a "
                    f"submission's fields are separated by commas (pandas: to_csv(sep=',')), its columns "
                    f"{', '.join(expected)}"
                )
    same = [c for c in expected if c.lower() == name.lower()]
    if same:
        return said + f"; names are compared exactly: {token(name)} is not {same[0]!r}"
    return said


# -- checks and the join --------------------------------------------------------------------------------
class _Found:
    """A submission's problems: the first MAX_ERRORS + 1 of each kind (by row) kept as (row, column,
    message), and how many there are in all; listed in the file's order, the first MAX_ERRORS, then
    how many more.
    """

    def __init__(self) -> None:
        self.kept: list[tuple[int, int, str]] = []
        self.total = 0

    def add(self, rows: Any, column: int, message: Callable[[int], str]) -> None:
        """Problems at ``rows`` (row numbers, any order) of one kind, each worded by ``message(row)``."""
        first = np.sort(np.asarray(rows, np.int64).ravel())
        self.total += len(first)
        self.kept += [(r, column, message(r)) for r in first[: MAX_ERRORS + 1].tolist()]

    def listed(self, after: list[str]) -> ErrorList:
        """The listed errors: the first MAX_ERRORS in the file's order, then ``after`` (problems of the
        whole file), then how many more there are.
        """
        lines = [m for _, _, m in sorted(self.kept, key=lambda e: (e[0], e[1]))] + after
        total = self.total + len(after)
        more = total - min(len(lines), MAX_ERRORS)
        tail = [f"... and {more} more error{'s' * (more > 1)}"] if more else []
        return ErrorList(lines[:MAX_ERRORS] + tail, total)


def check(frame: _Frame, task: Task, key: TableKey) -> tuple[Joined | None, ErrorList]:
    """Check a submission whole against the key and join it: (the joined data in the key's order,
    or None; its errors, one line each).  The columns' names have been checked.
    """
    cols = task.columns
    assert cols is not None
    found = _Found()
    needs = sorted({c.name for c in task.criteria if c.probability})
    ids = _submitted_ids(frame, cols.id, found)
    rows = key.lookup(ids)
    floats = _float_id(frame, cols.id, ids, rows)
    if floats is not None:  # one line, as a CSV file's float ids: every row's "not in the key" is noise
        return None, ErrorList([_cut(floats)], 1)
    preds = [_prediction(frame, name, j, task, needs, found) for j, name in enumerate(cols.prediction, 1)]
    matrix = np.column_stack(preds) if len(preds) > 1 else preds[0]
    if any(c.rescale for c in task.criteria):  # rows are divided by their sums: none may sum to 0
        sums = matrix.sum(axis=1)
        found.add(
            np.flatnonzero(np.isfinite(sums) & (sums <= 0.0)),
            0,
            lambda r: (
                f"{frame.place(r)}: the probabilities of the row sum to 0 (each row is divided by its sum)"
            ),
        )
    ident = frame.data[cols.id]
    unmatched = rows < 0
    unmatched[frame.missing.get(cols.id, np.zeros(0, np.int64))] = False  # said missing
    found.add(
        np.flatnonzero(unmatched),
        0,
        lambda r: f"{frame.place(r, cols.id)}: id {token(str(ident[r]))} is not in the answer key",
    )
    # an id given twice: its second row and after, each with the first
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    again = np.flatnonzero((ordered[1:] == ordered[:-1]) & (ordered[1:] >= 0)) + 1
    if len(again):
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        first = {int(ordered[i]): int(order[i]) for i in starts.tolist()}
        found.add(
            order[again],
            0,
            lambda r: (
                f"{frame.place(r, cols.id)}: id {token(str(ident[r]))} appears again (first on "
                f"{frame.where(first[int(rows[r])])})"
            ),
        )
    hit = np.zeros(key.rows, bool)
    hit[rows[rows >= 0]] = True
    absent = np.flatnonzero(~hit)
    after = []
    if len(absent):
        # the first ids in sorted order (numbers numerically, text by code point), not the key's:
        # its order (by label, by board) would say something of the key
        lacking = key.ids[absent]
        if len(lacking) > 5:  # the five first in order, without sorting them all
            lacking = np.partition(lacking, 4)[:5]
        shown_ids = np.sort(lacking)
        listed = ", ".join(token(str(i)) for i in shown_ids) + (", ..." if len(absent) > 5 else "")
        after.append(
            f"{place(frame.source)}: {len(absent)} id(s) of the answer key have no prediction: {listed}"
        )
    errors = found.listed(after)
    hint = _zeros_hint(frame, cols.id, key, ids, unmatched, absent)
    if hint is not None:  # a line about the errors, after them (never cut), not one more of them
        errors = ErrorList([*errors, hint], errors.total)
    if errors:
        return None, errors
    perm = np.empty(key.rows, np.int64)
    perm[rows] = np.arange(len(rows))
    s = matrix[perm]
    if task.hard:
        s = np.eye(len(task.classes or ()))[s.astype(np.int64)]
    return Joined(key.y, s, key.groups, key.weights), errors


def _zeros_hint(
    frame: _Frame, name: str, key: TableKey, ids: np.ndarray, unmatched: np.ndarray, absent: np.ndarray
) -> str | None:
    """The line said after the errors when ids not in the key are ids of it that have no prediction,
    written with other leading zeros (``108`` for ``0108``: a spreadsheet or ``read_csv`` made numbers
    of text ids; or ``0108`` for ``108``): how many, the first (in the file's order) with its key
    id, and what to do; None when there is none.  The key id shown is one the submission lacks, as
    listed beside it.
    """
    if not unmatched.any() or not len(absent):
        return None
    rows = np.flatnonzero(unmatched)
    theirs, mine = ids[rows], key.ids[absent]
    theirs = theirs if theirs.dtype.kind == "U" else theirs.astype(str)
    mine = mine if mine.dtype.kind == "U" else mine.astype(str)
    bare_theirs, bare_mine = np.char.lstrip(theirs, "0"), np.char.lstrip(mine, "0")
    width = max(_chars(bare_theirs), _chars(bare_mine))
    hit = match_ids(_widened(bare_mine, width), _widened(bare_theirs, width))
    found = np.flatnonzero(hit >= 0)
    if not len(found):
        return None
    sub_id, key_id = str(theirs[found[0]]), str(mine[hit[found[0]]])
    more = ", ..." if len(found) > 1 else ""
    if len(sub_id) < len(key_id):  # zeros dropped
        todo = (
            f"the key's ids are text: keep them as text, zeros included (pandas: read_csv(..., "
            f"dtype={{{name!r}: str}}); a spreadsheet: a text column)"
        )
    else:
        todo = "write the ids as the key writes them, without the zeros added"
    return (
        f"{place(frame.source)}: {len(found)} id(s) not in the answer key are ids of it with other leading "
        f"zeros ({token(sub_id)} for {token(key_id)}{more}): {todo}"
    )


def _held_to(col: Any, name: str, cap: int, is_id: bool, path: str) -> None:
    """A Parquet text column (read as dictionaries) held to its width: its longest value measured in
    Arrow (no Python string a value), one too long refused; an id column's first value too long,
    when it is a 64-bit id a tool wrote as a float (``1.000000383550841e+18``), is said so, at its row.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    offset = 0
    for chunk in col.chunks:
        values = chunk.dictionary if hasattr(chunk, "dictionary") else chunk
        lengths = pc.utf8_length(values) if pa.types.is_string(values.type) else pc.binary_length(values)
        longest = pc.max(lengths).as_py() or 0
        if longest > cap:
            if is_id:
                per_row = pc.take(lengths, chunk.indices) if values is not chunk else lengths
                first = pc.index(pc.greater(per_row, cap), True).as_py()
                value = chunk[first].as_py()
                if isinstance(value, str) and grammar.first_float_id(np.array([value])) == 0:
                    raise InputFormatError(float_ids(name, "id", value), source=path, row=offset + first + 1)
            raise InputFormatError(
                f"column {name!r} holds a value of {longest:,} characters, longer than "
                + (
                    f"an id of the answer key (at most {cap} characters)"
                    if is_id
                    else f"a submission's field can be (at most {cap})"
                )
                + "; it was not read further",
                source=path,
            )
        offset += len(chunk)


def _float_parquet_ids(col: Any, name: str, path: str) -> None:
    """Refuse a Parquet id column of floats in one line: its first value, as Python writes it, and
    its row (a null is a missing id, said as such when every value is one).
    """
    import pyarrow.compute as pc

    first = pc.index(col.is_valid(), True).as_py()
    if first >= 0:
        raise InputFormatError(float_ids(name, "id", repr(col[first].as_py())), source=path, row=first + 1)


def _float_id(frame: _Frame, name: str, ids: np.ndarray, rows: np.ndarray) -> str | None:
    """The one line refusing a submission whose ids are floats, as a CSV file's are refused: a data
    frame's float column (its first value), or an id written as a float (``101.0``,
    ``1.000000383550841e+18``) that is not one of the key's (a key's text ids may look like floats);
    None when there is none.
    """
    col = frame.data[name]
    if col.dtype.kind == "f":
        valid = np.flatnonzero(~np.isnan(col))
        if not len(valid):
            return None
        r = int(valid[0])
        return f"{frame.place(r)}: {float_ids(name, 'id', repr(float(col[r])))}"
    if ids.dtype.kind != "U":
        return None
    unmatched = rows < 0
    unmatched[frame.missing.get(name, np.zeros(0, np.int64))] = False  # a missing id: said so
    absent = np.flatnonzero(unmatched)
    i = grammar.first_float_id(ids[absent])
    if i < 0:
        return None
    r = int(absent[i])
    return f"{frame.place(r)}: {float_ids(name, 'id', str(ids[r]))}"


def _submitted_ids(frame: _Frame, name: str, found: _Found) -> np.ndarray:
    """The submission's ids (int64 or text, as written); an empty one is an error at its row."""
    col = frame.data[name]
    found.add(frame.missing.get(name, ()), 0, lambda r: f"{frame.place(r, name)}: missing id ({frame.blank})")
    if col.dtype.kind in "iub":
        return col.astype(np.int64)
    if col.dtype.kind == "f":  # a data frame's: refused by _float_id (a file's as it is read)
        return np.full(len(col), "", dtype=str)
    return as_text(col)  # the reader's text column as it is, no copy; a data frame's objects as text


def _prediction(frame: _Frame, name: str, j: int, task: Task, needs: list[str], found: _Found) -> np.ndarray:
    """A prediction column as float64 (K classes predicted as labels: each row's class index); each
    value that is missing, not a number, not finite, outside [0, 1] where a criterion reads
    probabilities (``needs``), or not one of the task's classes, an error at its row.
    """
    col = frame.data[name]
    n = len(col)
    missing = frame.missing.get(name, np.zeros(0, np.int64))
    found.add(missing, j, lambda r: f"{frame.place(r, name)}: missing prediction ({frame.blank})")
    gone = set(missing.tolist())
    if task.hard:
        classes = task.classes or []
        index = {c: i for i, c in enumerate(classes)}
        texts = [_label_text(v) for v in col.tolist()]
        codes = [index.get(t, -1) for t in texts]
        found.add(
            [r for r, c in enumerate(codes) if c < 0 and r not in gone],
            j,
            lambda r: (
                f"{frame.place(r, name)}: the label {token(texts[r])} is not one of the task's classes "
                f"({', '.join(classes)})"
            ),
        )
        return np.maximum(np.asarray(codes, np.float64), 0.0)
    if col.dtype.kind in "iufb":
        v = col.astype(np.float64)
        v[missing] = 0.0  # said missing, not again as not finite
    else:  # text (a value that is not a number), or a data frame's objects
        v = np.zeros(n, np.float64)
        bad = []
        for row, x in enumerate(col.tolist()):
            if row in gone:
                continue
            if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_)):
                v[row] = float(x)
            elif grammar.is_number(str(x)):
                v[row] = float(str(x))
            else:  # (its value stays 0: said once, not again as not finite)
                bad.append(row)
        found.add(
            bad, j, lambda r: f"{frame.place(r, name)}: the prediction {token(str(col[r]))} is not a number"
        )
    found.add(
        np.flatnonzero(~np.isfinite(v)),
        j,
        lambda r: f"{frame.place(r, name)}: the prediction is not a finite number (read as {float(v[r])!r})",
    )
    if needs:
        found.add(
            np.flatnonzero(np.isfinite(v) & ((v < 0.0) | (v > 1.0))),
            j,
            lambda r: (
                f"{frame.place(r, name)}: the prediction {float(v[r])!r} is outside [0, 1], which "
                f"{', '.join(needs)} {'needs' if len(needs) == 1 else 'need'}"
            ),
        )
    return v


# -- scoring --------------------------------------------------------------------------------------------
def score_table(
    submission: Any, task: Task, key: TableKey, follow_links: bool = False, name: str | None = None
) -> Scores:
    """Check and score one submission of a table task (a file's path, or a data frame): its
    :class:`~perfeval.contest.score.Scores`, with the errors that reject it.  Whatever is wrong with
    the submission rejects it alone; nothing is raised for it.
    """
    res, joined = check_table(submission, task, key, follow_links, name)
    if joined is None:
        return res
    if key.usage is None:
        return scored(res, joined, task)
    boards = {}
    for board in ("public", "private"):
        one = scored(Scores(res.submission, rows=res.rows), part(joined, key.usage == board), task)
        if not one.ok:
            return one
        boards[board] = one
    res.scores, res.why = boards["public"].scores, boards["public"].why
    res.boards = {b: dict(one.scores) for b, one in boards.items()}
    return res


def check_table(
    submission: Any, task: Task, key: TableKey, follow_links: bool = False, name: str | None = None
) -> tuple[Scores, Joined | None]:
    """Read and check one submission of a table task whole: its (not yet scored)
    :class:`~perfeval.contest.score.Scores`, with the errors that reject it, and the submission
    joined with the key (in the key's order), None when it is rejected.
    """
    label = name or (os.fspath(submission) if not _is_frame(submission) else "a submission")
    try:
        if _is_frame(submission):
            frame = frame_of(submission, label)
            expected = task.columns.submission if task.columns else []
            _check_header(frame.names, expected, label, None, None, _index_names(submission))
        else:
            frame = read_submission(os.fspath(submission), task, key, follow_links)
    except InputFormatError as e:  # reading stopped there: nothing more is said
        return Scores(label, errors=[_cut(str(e))], n_errors=1, stopped=True), None
    joined, errors = check(frame, task, key)
    return Scores(label, errors=errors, rows=frame.rows, n_errors=errors.total), joined


def part(joined: Joined, rows: np.ndarray) -> Joined:
    """The rows ``rows`` (a mask, in the key's order) of a joined submission."""
    return Joined(
        joined.y[rows],
        joined.s[rows],
        None if joined.groups is None else joined.groups[rows],
        None if joined.weights is None else joined.weights[rows],
    )


def scored(res: Scores, joined: Joined, task: Task) -> Scores:
    """``res`` with the task's criteria computed on ``joined`` (a checked submission, or a part of
    it); a criterion that cannot score it rejects it.
    """
    label = res.submission
    for c in task.criteria:
        try:
            result = measure_result(
                task.problem or "",
                c.measure or "",
                joined,
                dialect=c.dialect,
                classes=_names(task),
                rescale=c.rescale,
            )
        except PerfError as e:  # what the checks above let through and evaluate() refuses
            res.scores.clear()
            res.errors = ErrorList(
                [f"{place(label)}: criterion {c.name!r} cannot score it: {_cut(str(e))}"], 1
            )
            res.n_errors = 1
            return res
        res.scores[c.name] = float(result.value)
        if not math.isfinite(result.value):
            res.why[c.name] = why_no_number(result)
    add_total(res, task)
    return res


#: a quoted token of a reader's message longer than 40 characters (as repr() writes a string)
_LONG_TOKEN = re.compile(r"(?<!\w)(?:'(?:[^'\\\n]|\\.){41,}'|\"(?:[^\"\\\n]|\\.){41,}\")(?!\w)")


def _cut(message: str) -> str:
    """A reader's message about a submission with every quoted token cut to 40 characters (a reader
    may quote a whole field: a submission's field is never shown whole).
    """

    def cut(m: re.Match) -> str:
        try:
            text = ast.literal_eval(m.group())  # a Python string literal, as repr() wrote it
        except (ValueError, SyntaxError):
            return m.group()
        return token(text) if isinstance(text, str) else m.group()

    return _LONG_TOKEN.sub(cut, message)
