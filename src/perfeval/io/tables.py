"""Reading evaluation tables for the ``perfeval`` command: whitespace text, CSV, TSV, JSON lines and
Parquet, from a file or standard input, with or without a header; columns picked by name or by
1-based position.

Every problem is an :class:`~perfeval.exceptions.InputFormatError` that names the source, the line
and the column.  pandas (CSV/TSV/text, faster) and pyarrow (Parquet) are used when installed;
without pandas the standard ``csv`` module reads the text formats.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from dataclasses import dataclass
import numpy as np

from perfeval.exceptions import InputFormatError, InvalidParameterError, MissingDependencyError

FORMATS = ("auto", "text", "csv", "tsv", "jsonl", "parquet")


@dataclass
class Table:
    """Columns of a table (numpy arrays, numeric where every value is a number) and their names.

    ``data`` holds the columns by position (a header may repeat a name: positions stay distinct);
    ``columns`` maps each name to its first column.
    """

    names: list[str]
    columns: dict[str, np.ndarray]
    source: str
    header: bool
    lines: np.ndarray | None = None  # the file line of each row, for messages
    body: bytes | None = None  # the data text, to find a row's line only when a message needs it
    line0: int = 0
    data: list[np.ndarray] | None = None

    def __post_init__(self) -> None:
        if self.data is None:
            self.data = [self.columns[n] for n in self.names]

    def choose(self, *, target: str | None = None, score: str | None = None, group: str | None = None,
               weight: str | None = None, several_scores: bool = False):
        """The columns to use, by the one rule of :func:`perfeval.io.columns.choose`."""
        from perfeval.io.columns import choose

        return choose(self.names, self.source, header=self.header, target=target, score=score, group=group,
                      weight=weight, several_scores=several_scores)

    def line_of(self, row: int) -> int:
        if self.lines is not None:
            return int(self.lines[row])
        if self.body is not None:
            seen = -1
            for k, line in enumerate(self.body.split(b"\n"), 1):
                t = line.strip()
                if t and not t.startswith(b"#"):
                    seen += 1
                    if seen == row:
                        return self.line0 + k
        return row + 1 + (1 if self.header else 0)

    def pick(self, spec: str | None, role: str) -> tuple[str, np.ndarray] | None:
        """One column by name or 1-based position (:func:`perfeval.io.columns.pick`; no default)."""
        from perfeval.io.columns import pick

        col = pick(self.names, spec, role, self.source, header=self.header, default=False)
        return None if col is None else (col.name, self.data[col.index])

    def get(self, col) -> np.ndarray:
        """The data of a chosen :class:`perfeval.io.columns.Column`."""
        return self.data[col.index]


def guess_format(path: str | None, sample: bytes) -> str:
    ext = os.path.splitext(path or "")[1].lower()
    if ext in (".parquet", ".pq"):
        return "parquet"
    if ext in (".jsonl", ".ndjson"):
        return "jsonl"
    if ext == ".tsv":
        return "tsv"
    if ext == ".csv":
        return "csv"
    if sample[:4] == b"PAR1":
        return "parquet"
    first = sample.lstrip().split(b"\n", 1)[0]
    if first.startswith(b"{"):
        return "jsonl"
    if b"\t" in first and b"," not in first:
        return "tsv"
    if b"," in first:
        return "csv"
    return "text"


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def read_table(path: str | None, fmt: str = "auto", header: bool | None = None) -> Table:
    """Read a whole table.  ``header=None`` detects a header: a first row with a field that is not
    a number while the second row's field in that column is."""
    source = path if path else "standard input"
    if fmt not in FORMATS:
        raise InvalidParameterError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    try:
        raw = sys.stdin.buffer.read() if not path or path == "-" else open(path, "rb").read()
    except IsADirectoryError:
        raise InputFormatError("is a directory, not a data file", source=source) from None
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=source) from None
    if fmt == "auto":
        fmt = guess_format(path, raw[:65536])
    if fmt == "parquet":
        return _parquet(raw, source)
    if fmt == "jsonl":
        return _jsonl(raw, source)
    fast = _numeric_table(raw, fmt, header, source)
    if fast is not None:
        return fast
    text = raw.decode("utf-8", errors="replace")
    rows = _rows(text, fmt)
    if not rows:
        raise InputFormatError("holds no data", source=source)
    if header is None:
        header = _looks_like_header(rows)
    names = rows[0][1] if header else [f"column{i + 1}" for i in range(len(rows[0][1]))]
    if header:
        names = [n.strip() for n in names]
        rows = rows[1:]
    width = len(names)
    for line, fields in rows:
        if len(fields) != width:
            raise InputFormatError(f"expected {width} fields, found {len(fields)}", source=source, line=line)
    data = [_column([f[i] for _, f in rows]) for i in range(width)]
    cols: dict[str, np.ndarray] = {}
    for name, col in zip(names, data):
        cols.setdefault(name, col)
    return Table(names, cols, source, bool(header), np.array([ln for ln, _ in rows]), data=data)


def _data_lines(raw: bytes, limit: int = 2) -> list[tuple[int, int, bytes]]:
    """(line number, byte offset, text) of the first data lines (not blank, not '#')."""
    out, offset = [], 0
    for k, line in enumerate(raw.split(b"\n", 64), 1):
        s = line.strip()
        if s and not s.startswith(b"#"):
            out.append((k, offset, line))
            if len(out) == limit:
                break
        offset += len(line) + 1
    return out


def _split(line: bytes, fmt: str) -> list[str]:
    text = line.decode("utf-8", errors="replace").strip()
    if fmt == "text":
        return text.split()
    return [f.strip() for f in text.split("\t" if fmt == "tsv" else ",")]


def _numeric_table(raw: bytes, fmt: str, header: bool | None, source: str) -> Table | None:
    """The compiled reader for tables of numbers only (one record a line, float64, about 40 times the
    speed of the csv module); None when a field is not a number (a string column: the general path)."""
    from perfeval import _x87

    first = _data_lines(raw)
    if not first:
        return None
    head_fields = _split(first[0][2], fmt)
    if header is None:
        second = _split(first[1][2], fmt) if len(first) > 1 else None
        header = any(not _is_number(f) and (second is None or (i < len(second) and _is_number(second[i])))
                     for i, f in enumerate(head_fields))
    line0, body = 0, raw
    if header:
        line0 = first[0][0]
        body = raw[first[0][1] + len(first[0][2]) + 1:]
        names = head_fields
        rest = _data_lines(body, 1)
        if not rest:
            raise InputFormatError("holds a header and no data", source=source)
        ncol = len(_split(rest[0][2], fmt))
    else:
        ncol = len(head_fields)
        names = [f"column{i + 1}" for i in range(ncol)]
    if header and ncol != len(names):
        raise InputFormatError(f"the header names {len(names)} columns, the first row has {ncol} fields",
                               source=source, line=line0 + _data_lines(body, 1)[0][0])
    res = _x87.parse_table(body, ncol)
    if res[0] == "error":
        _, why, line, field, token = res
        if why == "number":
            return None
        if why == "fields":
            raise InputFormatError(f"expected {ncol} fields, found {token.decode()}", source=source, line=line0 + line)
        raise InputFormatError(f"field {field} is NaN; every value must be a number", source=source, line=line0 + line)
    data = [np.frombuffer(buf, dtype=np.float64) for buf in res[1]]
    cols = {}
    for name, col in zip(names, data):
        cols.setdefault(name, col)
    return Table(list(names), cols, source, bool(header), None, body, line0, data)


def _rows(text: str, fmt: str) -> list[tuple[int, list[str]]]:
    """(line number, fields) of every data line; blank lines and lines starting with # are skipped."""
    out = []
    if fmt == "text":
        for k, line in enumerate(text.splitlines(), 1):
            s = line.strip()
            if s and not s.startswith("#"):
                out.append((k, s.split()))
        return out
    delim = "\t" if fmt == "tsv" else ","
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    for fields in reader:
        k = reader.line_num
        if not fields or (len(fields) == 1 and not fields[0].strip()) or fields[0].lstrip().startswith("#"):
            continue
        out.append((k, [f.strip() for f in fields]))
    return out


def _looks_like_header(rows: list[tuple[int, list[str]]]) -> bool:
    first = rows[0][1]
    second = rows[1][1] if len(rows) > 1 else None
    for i, f in enumerate(first):
        if not _is_number(f) and (second is None or (i < len(second) and _is_number(second[i]))):
            return True
    return False


def _column(values: list[str]) -> np.ndarray:
    """Numbers when every value is a number, else the strings (a group or label column)."""
    try:
        return np.array(values, dtype=np.float64)
    except ValueError:
        pass
    arr = np.array(values, dtype=object)
    ints = []
    for v in values:  # integers as written stay integers (ids)
        if v.lstrip("+-").isdigit():
            ints.append(int(v))
        else:
            return arr.astype(str)
    return np.array(ints)


def _jsonl(raw: bytes, source: str) -> Table:
    records = []
    for k, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        try:
            rec = json.loads(s)
        except json.JSONDecodeError as e:
            raise InputFormatError(f"not valid JSON ({e.msg})", source=source, line=k) from None
        if not isinstance(rec, dict):
            raise InputFormatError("expected a JSON object a line", source=source, line=k)
        records.append((k, rec))
    if not records:
        raise InputFormatError("holds no data", source=source)
    names = list(records[0][1])
    cols = {}
    for name in names:
        vals = []
        for k, rec in records:
            if name not in rec:
                raise InputFormatError(f"the field {name!r} is missing", source=source, line=k)
            vals.append(rec[name])
        arr = np.array(vals)
        cols[name] = arr.astype(np.float64) if arr.dtype.kind in "biuf" else arr
    return Table(names, cols, source, True, np.array([k for k, _ in records]))


def _parquet(raw: bytes, source: str) -> Table:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError(
            "reading Parquet needs pyarrow: pip install pyarrow (or pip install 'perfeval[all]')") from None
    try:
        t = pq.read_table(pa.BufferReader(raw))
    except Exception as e:  # pyarrow raises several types for a bad file
        raise InputFormatError(f"is not a readable Parquet file ({e})", source=source) from None
    cols = {name: t.column(name).to_numpy() for name in t.column_names}
    return Table(list(t.column_names), cols, source, True)


def numeric(table: Table, name: str, col: np.ndarray, role: str) -> np.ndarray:
    """The column as float64, or an error naming the first value that is not a number."""
    if col.dtype.kind in "biuf":
        return col.astype(np.float64, copy=False)
    for i, v in enumerate(col.tolist()):
        if not _is_number(str(v)):
            raise InputFormatError(f"the {role} column {name!r} holds {str(v)!r}, not a number",
                                   source=table.source, line=table.line_of(i))
    return col.astype(np.float64)
