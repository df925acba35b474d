r"""The grammar of evaluation tables: the bytes of every format, and the records of whitespace
text, CSV and TSV, with or without a header; the :class:`Table` every reader gives.

The readers of :mod:`perfeval.io.readers` (one a format: :mod:`perfeval.io.text`,
:mod:`perfeval.io.jsonl`, :mod:`perfeval.io.parquet`) read a whole file, chunks of it and Dask
partitions by these rules, so that a file gives the same table, or the same error, whichever reads
it:

- bytes: ``.gz``/``.bz2``/``.xz`` are decompressed (by magic bytes, whatever the name); a UTF-8
  byte-order mark is dropped; ``\r\n`` and a lone ``\r`` end a line as ``\n`` does; a NUL byte,
  and a character that some readers take for a line end and others for a blank or a character of a
  field (:data:`LINE_BREAKS`: ``\v``, ``\f``, ``\x1c``-``\x1e``, U+0085, U+2028, U+2029), outside a
  quoted field, are errors (:func:`check_bytes`): rows are neither merged nor split silently;
- records: in text, fields are separated by blanks (and commas, as PERF reads them); in CSV/TSV by
  the delimiter only (``,``, ``;`` or tab: sniffed, or ``--delimiter``), with quoted fields as a
  CSV parser reads them (the standard library's); an empty field is kept as ``""`` (its column read
  as text) and noted in :attr:`Table.empties`: an error where its column is used
  (:meth:`Table.no_empties`), none where it is not;
- comments: a blank line is skipped; a line whose first non-blank character is ``#`` (unquoted) is
  a comment before the header, and anywhere in a table without one (PERF's files), but a row after
  a header (``#N/A``, ``#123``).  Every comment line skipped is counted (:class:`Skipped`) and said
  (:class:`~perfeval.exceptions.CommentLinesWarning`): no row is dropped without a word;
- values: :mod:`perfeval.io.grammar` (what a number is; identity columns as int64 or text).

Plain numeric text goes through the compiled reader (``_native.parse_table``), about 40 times the
speed of the csv module; it checks the same grammar, and is used only where it reads exactly what
the CSV parser would.  Every problem is an :class:`~perfeval.exceptions.InputFormatError` that
names the source, the line and the column, on one line.
"""

from __future__ import annotations

import csv
import heapq
import importlib
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from perfeval import _native
from perfeval.base.text import place
from perfeval.exceptions import (
    CommentLinesWarning,
    InputFormatError,
    InvalidParameterError,
    user_stacklevel,
)
from perfeval.io import grammar
from perfeval.io.columns import choose, pick

# lzma and zlib are imported where a compressed file fails to read: `import perfeval.trec` doesn't
# load them.

COMPRESSED = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "lzma"}
COMPRESSED_EXT = (".gz", ".bz2", ".xz")
BOM = b"\xef\xbb\xbf"
#: the separators of the text format: as the compiled reader's (C's isspace, and the comma; a
#: vertical tab or a form feed never reaches it: :func:`check_bytes`)
_TEXT_SEP = re.compile(r"[ \t\v\f,]+")

#: characters that end a line for some readers (Python's ``str.splitlines``, PERF's fscanf for \v and
#: \f, a report writer's page break) and not for others (C's isspace blanks \v and \f, a CSV parser
#: keeps them in a field): as UTF-8 bytes, with their names
LINE_BREAKS = {
    b"\x0b": "a vertical tab (\\v)",
    b"\x0c": "a form feed (\\f)",
    b"\x1c": "a file separator (\\x1c)",
    b"\x1d": "a group separator (\\x1d)",
    b"\x1e": "a record separator (\\x1e)",
    b"\xc2\x85": "a next-line character (U+0085)",
    b"\xe2\x80\xa8": "a line separator (U+2028)",
    b"\xe2\x80\xa9": "a paragraph separator (U+2029)",
}

#: the positions of the identity columns, once the header (or its absence) is known; as a mapping,
#: each with the role or option that chose it, to name it in messages (:func:`id_column`)
Identity = Callable[[list, bool], Iterable[int] | Mapping[int, str | None]]


def id_roles(found: Iterable[int] | Mapping[int, str | None]) -> dict[int, str | None]:
    """Identity positions, each with its role (None where none is said): from a mapping as it is, from
    positions alone with no role.
    """
    return dict(found) if isinstance(found, Mapping) else dict.fromkeys(found)


def id_column(name: str, role: str | None, noun: str = "column") -> str:
    """An identity column as a message names it: by the option that chose it (``--group``, ``--id``),
    by its role (``qid``), or, with neither, as an id column.

    Examples
    --------
    >>> id_column("doc", "--id"), id_column("q", "qid"), id_column("g", "--group", "field")
    ("the id column 'doc' (--id)", "the qid column 'q'", "the group field 'g' (--group)")
    >>> id_column("u", None)
    "the id column 'u'"
    """
    if role is None:
        return f"the id {noun} {name!r}"
    if role.startswith("--"):
        return f"the {role[2:]} {noun} {name!r} ({role})"
    return f"the {role} {noun} {name!r}"


#: how many of the comment lines skipped a message names
SHOWN_COMMENTS = 5


@dataclass
class Skipped:
    """The lines of a table skipped as comments: how many, and the first few (file line numbers)."""

    count: int = 0
    first: list[int] = field(default_factory=list)

    def add(self, line: int) -> None:
        self.count += 1
        if len(self.first) < SHOWN_COMMENTS:
            self.first.append(line)

    def merge(self, other: Skipped) -> None:
        self.count += other.count
        self.first.extend(other.first[: SHOWN_COMMENTS - len(self.first)])

    def message(self, source: str) -> str:
        """One line for the user: how many lines were skipped, and which."""
        lines = ", ".join(str(k) for k in self.first) + (", ..." if self.count > len(self.first) else "")
        plural = "s" if self.count > 1 else ""
        return (
            f"{place(source)}: {self.count} line{plural} starting with '#' skipped as comment{plural} "
            f"(line{'s' if len(self.first) > 1 else ''} {lines})"
        )

    def warn(self, source: str) -> None:
        """Say it (a :class:`~perfeval.exceptions.CommentLinesWarning`) when any line was skipped."""
        if self.count:
            warnings.warn(CommentLinesWarning(self.message(source)), stacklevel=user_stacklevel())


def hash_lines(part: bytes, line0: int, skipped: Skipped) -> None:
    """Add the lines of ``part`` whose first non-blank byte is ``#`` (the compiled reader's comments;
    ``line0`` lines precede ``part``) to ``skipped``.
    """
    if b"#" not in part:
        return
    for k, line in enumerate(part.split(b"\n"), line0 + 1):
        if line.lstrip().startswith(b"#"):
            skipped.add(k)


@dataclass
class Table:
    """Columns of a table and their names.

    ``data`` holds the columns by position (a header may repeat a name: positions stay distinct);
    ``columns`` maps each name to its first column.  A column is float64 when every value is a
    number, the text otherwise; an identity column (asked for with ``identity=``) is int64 or text.
    """

    names: list[str]
    columns: dict[str, np.ndarray]
    source: str
    header: bool
    lines: np.ndarray | None = None  # the file line of each row, for messages
    body: bytes | None = None  # the data text, to find a row's line only when a message needs it
    line0: int = 0
    data: list[np.ndarray] | None = None
    comments: bool = True  # whether a '#' line of ``body`` was a comment (not after a header)
    skipped: Skipped = field(default_factory=Skipped)  # the lines skipped as comments
    rows_only: bool = False  # a table without lines (Parquet): a row is named by its number
    #: Parquet columns holding nulls: position -> the first such row (0-based); an error when used
    nulls: dict[int, int] = field(default_factory=dict)
    #: CSV/TSV columns holding an empty field (kept as ""): position -> the first such row (0-based);
    #: an error when used (:meth:`no_empties`), none when not
    empties: dict[int, int] = field(default_factory=dict)
    #: how ``body``'s lines hold their fields, for :meth:`written`: ``"text"``, ``"csv"`` (with
    #: ``delim``) or ``"jsonl"``; None when the table cannot say (Parquet)
    fmt: str | None = None
    delim: str | None = None

    def __post_init__(self) -> None:
        if self.data is None:
            self.data = [self.columns[n] for n in self.names]

    def at(self, row: int) -> dict[str, int]:
        """Where row ``row`` (0-based) is, as :class:`~perfeval.exceptions.InputFormatError` takes it:
        its file line, or (Parquet, no lines) its 1-based row number.
        """
        return {"row": self.line0 + row + 1} if self.rows_only else {"line": self.line_of(row)}

    def position(self, row: int) -> str:
        """Where row ``row`` (0-based) is, in words: ``line 5``, or ``row 4`` in a table without lines."""
        return " ".join(f"{k} {v}" for k, v in self.at(row).items())

    def line_of(self, row: int) -> int:
        """The file line of row ``row`` (0-based); in a table without lines, its 1-based number."""
        if self.rows_only:
            return self.line0 + row + 1
        if self.lines is not None:
            return int(self.lines[row])
        if self.body is not None:
            seen = -1
            for k, line in enumerate(self.body.split(b"\n"), 1):
                t = line.strip()
                if t and not (self.comments and t.startswith(b"#")):
                    seen += 1
                    if seen == row:
                        return self.line0 + k
        return row + 1 + (1 if self.header else 0)

    def written(self, row: int, name: str, value: float) -> str:
        """The field ``name`` of row ``row`` (0-based) as the file writes it (``-1`` where the column,
        read as numbers, holds -1.0), read again from ``body`` for a message only; the ``repr`` of
        ``value`` (the number read) when the table cannot say (Parquet: a typed column has no text)
        or the text read again is not that number (a record of several lines).
        """
        text = self._field_text(row, name)
        if text is not None and grammar.is_number(text):
            x = float(text)
            if x == value or (x != x and value != value):
                return text
        return repr(value)

    def _field_text(self, row: int, name: str) -> str | None:
        if self.body is None or self.fmt is None or self.rows_only:
            return None
        k = self.line_of(row) - self.line0
        line = _line(self.body, k).decode("utf-8", "replace")
        try:
            if self.fmt == "jsonl":
                import json

                rec = json.loads(line, parse_int=_Written, parse_float=_Written, parse_constant=_Written)
                v = rec.get(name) if isinstance(rec, dict) else None
                return str(v) if isinstance(v, _Written) else None
            names = self.names or []
            if name not in names:
                return None
            fields = _split_line(line, self.fmt, self.delim)
            i = names.index(name)  # a name given twice: its first column, as ``columns`` keeps it
            return fields[i] if i < len(fields) else None
        except (ValueError, csv.Error, StopIteration):
            return None

    def choose(
        self,
        *,
        target: str | None = None,
        score: str | None = None,
        group: str | None = None,
        weight: str | None = None,
        several_scores: bool = False,
        empties: bool = True,
    ):
        """The columns to use, by the one rule of :func:`perfeval.io.columns.choose`; an error when
        one holds a null or (``empties``) an empty field (:meth:`no_nulls`).  ``empties=False``: the
        caller checks the empty fields itself, in the file's order with the values
        (:meth:`no_empties`).
        """
        ch = choose(
            self.names,
            self.source,
            header=self.header,
            target=target,
            score=score,
            group=group,
            weight=weight,
            several_scores=several_scores,
        )
        used = [ch.target, *ch.scores, *(c for c in (ch.weight, ch.group) if c is not None)]
        self.no_nulls(used, empties)
        return ch

    def no_nulls(self, used: Sequence, empties: bool = True) -> None:
        """A null in a used column (Parquet's missing values), or (``empties``) an empty field of a
        CSV/TSV (:meth:`no_empties`): an error naming the first row that holds one, whichever column
        (among equals, the first in ``used``), as the chunked reader says it; a null or an empty field
        in a column not used is no error.
        """
        bad = [
            (self.nulls[c.index], k, null_message(c.name))
            for k, c in enumerate(used)
            if c.index in self.nulls
        ]
        if empties:
            bad += self._empty_cells(used)
        if bad:
            row, _, message = min(bad, key=lambda t: t[:2])
            raise InputFormatError(message, source=self.source, **self.at(row))

    def no_empties(self, used: Sequence) -> None:
        """An empty field of a CSV/TSV (``,,``, what pandas writes for NaN and None) in a used column
        (a :class:`perfeval.io.columns.Column`: its role names it): an error naming the first line
        that holds one, whichever column (among equals, the first in ``used``); an empty field in a
        column not used is no error.  Called among the checks of the values
        (:func:`perfeval.cli.load.earliest`), so that a file's first bad line is the one said.
        """
        bad = self._empty_cells(used)
        if bad:
            row, _, message = min(bad, key=lambda t: t[:2])
            raise InputFormatError(message, source=self.source, **self.at(row))

    def _empty_cells(self, used: Sequence) -> list[tuple[int, int, str]]:
        return [
            (self.empties[c.index], k, empty_message(c.name, c.role))
            for k, c in enumerate(used)
            if c.index in self.empties
        ]

    def pick(self, spec: str | None, role: str, empties: bool = True) -> tuple[str, np.ndarray] | None:
        """One column by name or 1-based position (:func:`perfeval.io.columns.pick`; no default);
        ``empties`` as for :meth:`get`.
        """
        col = pick(self.names, spec, role, self.source, header=self.header, default=False)
        return None if col is None else (col.name, self.get(col, empties))

    def get(self, col, empties: bool = True) -> np.ndarray:
        """The data of a chosen :class:`perfeval.io.columns.Column` (an error when it holds a null, or,
        with ``empties``, an empty field: ``empties=False`` when the caller checks them in the file's
        order with the values, :meth:`no_empties`).
        """
        assert self.data is not None  # set in __post_init__
        self.no_nulls([col], empties)
        return self.data[col.index]


class _Written(str):
    """A JSON number's text as the line writes it (:meth:`Table.written`)."""


# -- bytes ---------------------------------------------------------------------------------------
def compression(head: bytes, path: str | None = None) -> str | None:
    """``gzip``, ``bz2`` or ``lzma`` by the magic bytes (or, for a file too short to tell, the name)."""
    for magic, kind in COMPRESSED.items():
        if head.startswith(magic):
            return kind
    return None


def open_bytes(path: str | None, source: str):
    """A binary stream of the data: the file or standard input, decompressed when compressed."""
    if not path or path == "-":
        fh = sys.stdin.buffer
    else:
        try:
            fh = open(path, "rb")
        except IsADirectoryError:
            raise InputFormatError("is a directory, not a data file", source=source) from None
        except OSError as e:
            raise InputFormatError(f"cannot be read ({e.strerror})", source=source) from None
    head = fh.peek(8)[:8] if hasattr(fh, "peek") else b""
    kind = compression(head, path)
    if kind is None:
        return fh

    return _Checked(importlib.import_module(kind).open(fh, "rb"), source, kind, fh)


class _Checked:
    """A decompressing stream whose errors are one-line input errors."""

    def __init__(self, fh, source: str, kind: str, raw=None):
        self._fh, self._source, self._kind, self._raw = fh, source, kind, raw

    def read(self, n: int = -1) -> bytes:
        try:
            return self._fh.read(n)
        except (OSError, EOFError, ValueError) as e:
            import lzma
            import zlib

            if isinstance(e, (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)):
                raise InputFormatError(
                    f"is not a readable {self._kind} file ({e})", source=self._source
                ) from None
            raise

    def fileno(self) -> int:
        return self._fh.fileno()

    def close(self) -> None:
        self._fh.close()
        if self._raw is not None and self._raw is not sys.stdin.buffer:
            self._raw.close()


def clean(data: bytes, first: bool) -> bytes:
    r"""Line ends as ``\n`` (from ``\r\n`` and a lone ``\r``); the byte-order mark dropped."""
    if first and data.startswith(BOM):
        data = data[len(BOM) :]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def check_bytes(body: bytes, source: str, line0: int = 0, quoted: bool = False) -> None:
    """Refuse a NUL byte, and a character of :data:`LINE_BREAKS` outside a quoted field (``quoted``:
    a CSV/TSV body, whose quoted fields may hold them as data), in a cleaned body that starts a record
    (``line0`` lines precede it): one line naming the character, its line and its column.  A scan a
    character (memchr: a few ms a 64 MB block); the quotes are counted only when one is found.
    """
    seqs = [b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e"]
    if not body.isascii():
        seqs += [b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"]
    found = [(i, seq) for seq in seqs if (i := body.find(seq)) >= 0]
    heapq.heapify(found)
    inside, counted = False, 0
    while found:
        i, seq = heapq.heappop(found)
        if quoted and seq != b"\x00":
            inside ^= body.count(b'"', counted, i) % 2 == 1
            counted = i
            if inside:  # data of a quoted field, as every CSV parser reads it: the next one
                if (j := body.find(seq, i + 1)) >= 0:
                    heapq.heappush(found, (j, seq))
                continue
        start = body.rfind(b"\n", 0, i) + 1
        column = len(body[start:i].decode("utf-8", "replace")) + 1
        line = line0 + body.count(b"\n", 0, i) + 1
        if seq == b"\x00":  # a text table holds none (numpy's text would drop it silently)
            raise InputFormatError(
                f"holds a NUL byte (\\x00) at column {column}: not a text table", source=source, line=line
            )
        raise InputFormatError(
            f"holds {LINE_BREAKS[seq]} at column {column}, a line end to some readers and a blank or "
            "text to others (rows would merge or split): end each row with a newline only",
            source=source,
            line=line,
        )


# -- format and header ---------------------------------------------------------------------------
def sniff_delimiter(fmt: str, sample: bytes, delimiter: str | None) -> str | None:
    """The field delimiter of a CSV/TSV table (None for text): as given, else the one of ``,``,
    ``;`` and tab found the same number of times (outside quotes) on the first lines.
    """
    if delimiter is not None:
        if delimiter in ("\\t", "tab"):
            delimiter = "\t"
        if len(delimiter) != 1 or delimiter in '"\n\r' or delimiter.isalnum():
            raise InvalidParameterError(
                f"--delimiter {delimiter!r}: expected one character such as , ; or tab"
            )
        return delimiter
    if fmt == "tsv":
        return "\t"
    if fmt != "csv":
        return None
    lines = [ln for ln in _unquoted(sample).split("\n") if ln.strip() and not ln.lstrip().startswith("#")][
        :20
    ]
    lines = lines[:-1] if len(lines) > 1 else lines  # the last may be cut
    best, best_n = ",", 0
    for d in (",", ";", "\t"):
        counts = {ln.count(d) for ln in lines}
        if len(counts) == 1 and (n := counts.pop()) > best_n:
            best, best_n = d, n
    return best


def _unquoted(sample: bytes) -> str:
    """The sample with quoted parts blanked out (for counting delimiters)."""
    text = sample.decode("utf-8", errors="replace")
    return re.sub(r'"[^"]*"', '""', text)


def _split_line(line: str, fmt: str, delim: str | None) -> list[str]:
    if delim is None:
        return (
            [f for f in _TEXT_SEP.split(line.strip(" \t\v\f,")) if f != ""] if line.strip(" \t\v\f,") else []
        )
    return [f.strip() for f in next(csv.reader([line], delimiter=delim))]


def first_lines(
    body: bytes, limit: int = 2, comments: bool = True, delim: str | None = None
) -> list[tuple[int, int, bytes]]:
    """(line number, byte offset, text) of the first ``limit`` data lines: not blank, and (when
    ``comments``) not a comment (first non-blank character ``#``).  With a CSV/TSV ``delim``, the
    records as the CSV parser reads them: a line end inside a quoted field is data, and the record
    goes on over the next line (its number is its first line's).
    """
    if delim is not None and b'"' in body:
        return _first_records(body, limit, comments, delim)
    out: list[tuple[int, int, bytes]] = []
    pos, k, n = 0, 0, len(body)
    while pos < n and len(out) < limit:
        end = body.find(b"\n", pos)
        end = n if end < 0 else end
        k += 1
        s = body[pos:end].strip()
        if s and not (comments and s.startswith(b"#")):
            out.append((k, pos, body[pos:end]))
        pos = end + 1
    return out


def _first_records(body: bytes, limit: int, comments: bool, delim: str) -> list[tuple[int, int, bytes]]:
    """:func:`first_lines` of a quoted CSV/TSV body: the records of the CSV parser (which reads the
    lines one by one, so no further than the records asked).  Where the parser stops (a field
    past its size limit: a quote never closed), the lines from there are records each, and the
    table's reading says what is wrong.
    """
    spans: list[tuple[int, int]] = []  # (offset, end) of each line given to the parser

    def lines() -> Iterator[str]:
        pos, n = 0, len(body)
        while pos < n:
            end = body.find(b"\n", pos)
            end = n if end < 0 else end
            spans.append((pos, end))
            yield body[pos:end].decode("utf-8", errors="replace") + "\n"
            pos = end + 1

    out: list[tuple[int, int, bytes]] = []
    reader = csv.reader(lines(), delimiter=delim)
    start = 0  # the first line of the next record (0-based)
    try:
        while len(out) < limit:
            if next(reader, None) is None:
                return out
            pos, end = spans[start][0], spans[reader.line_num - 1][1]
            s = body[pos:end].strip()
            if s and not (comments and s.startswith(b"#")):
                out.append((start + 1, pos, body[pos:end]))
            start = reader.line_num
    except csv.Error:
        pass
    for k, (pos, end) in enumerate(spans[start:], start + 1):  # then line by line
        if len(out) >= limit:
            break
        s = body[pos:end].strip()
        if s and not (comments and s.startswith(b"#")):
            out.append((k, pos, body[pos:end]))
    return out


def detect_header(first: list[str], second: list[str] | None) -> bool:
    """A header: a first-row field that is not a number where the second row's field is one (or,
    with one row only, any field that is not a number).
    """
    for i, f in enumerate(first):
        if not grammar.is_number(f) and (
            second is None or (i < len(second) and grammar.is_number(second[i]))
        ):
            return True
    return False


#: the look-ahead of the header rule for pandas' default names: the data lines after the first, up
#: to this many, within the first ``SNIFF_BYTES`` of the table (whole lines only)
SNIFF_LINES = 20
SNIFF_BYTES = 65536


def default_names(fields: list[str]) -> bool:
    """Whether a first line is exactly ``0, 1, ..., k-1`` (k >= 2), as written: pandas' default
    column names (``pd.DataFrame(array).to_csv(index=False)``), or a row of integers.

    Examples
    --------
    >>> firsts = (["0", "1"], ["0", "1", "2"], ["1", "0"], ["0"], ["0.0", "1"], ["+0", "1"])
    >>> [default_names(f) for f in firsts]
    [True, True, False, False, False, False]
    """
    return len(fields) >= 2 and fields == [str(i) for i in range(len(fields))]


def _window(body: bytes, delim: str | None = None) -> list[tuple[int, int, bytes]]:
    """The data lines the header rule looks at: the first ``SNIFF_LINES + 1`` (comments and blank
    lines apart) among the whole lines of the first ``SNIFF_BYTES`` (the same lines for the
    whole-file and chunked readers; with a CSV/TSV ``delim``, records, as :func:`first_lines`).
    """
    head = body if len(body) <= SNIFF_BYTES else body[: body.rfind(b"\n", 0, SNIFF_BYTES) + 1]
    return first_lines(head, SNIFF_LINES + 1, delim=delim)


def _written_as_float(
    lines: list[tuple[int, int, bytes]], fmt: str, delim: str | None, k: int
) -> tuple[int, int, str] | None:
    """(line, column, value) of the first value with a decimal point or an exponent (``1.0``,
    ``1e-05``: how pandas writes a float column) in the first ``k`` columns of the lines after the
    first, or None.
    """
    for line, _pos, text in lines[1:]:
        for i, f in enumerate(_split_line(text.decode("utf-8", "replace"), fmt, delim)[:k]):
            if grammar.is_number(f) and any(c in f for c in ".eE"):
                return line, i + 1, f
    return None


def header_pending(body: bytes, fmt: str, header: bool | None, delimiter: str | None) -> bool:
    """Whether the header rule needs more lines than ``body`` (a first block, not the whole table)
    holds: its first line is pandas' default names (:func:`default_names`), no value after it is
    written as a float yet, and the look-ahead is not full.  The chunked reader then reads on, so
    that it decides as the whole-file reader does.
    """
    if header is not None or len(body) >= SNIFF_BYTES or fmt == "text":
        return False
    delim = sniff_delimiter(fmt, body[:SNIFF_BYTES], delimiter)
    lines = _window(body, delim)
    if len(lines) > SNIFF_LINES or not lines:
        return False
    fields = _split_line(lines[0][2].decode("utf-8", "replace"), fmt, delim)
    return default_names(fields) and _written_as_float(lines, fmt, delim, len(fields)) is None


def _ambiguous_names(body: bytes, fields: list[str], fmt: str, delim: str | None, source: str) -> None:
    """Refuse a first line of pandas' default names (``0,1``) followed, within the look-ahead, by a
    value written as a float: a header or a row of data, the text cannot say which.  A table of
    integers only (hard 0/1 predictions) keeps its first line as data, and so does whitespace text:
    PERF's format, headerless, where a first case ``0 1`` (a negative scored 1, as C's ``%g`` writes
    it) is common and pandas' ``to_csv`` never writes spaces unless asked.
    """
    if fmt == "text" or not default_names(fields):
        return
    lines = _window(body, delim)
    found = _written_as_float(lines, fmt, delim, len(fields))
    if found is None:
        return
    line, col, value = found
    text = lines[0][2].decode("utf-8", "replace").strip()
    text = text if len(text) <= 40 else text[:37] + "..."
    raise InputFormatError(
        f"{text!r} may be pandas' default column names (0, 1, ...) or a row of data (line {line} "
        f"writes column {col} as {value!r}, a float): give --header or --no-header (in the library: "
        "header=True or header=False); a number chooses a column by its 1-based position (--target 1 "
        "--score 2), not by these names",
        source=source,
        line=lines[0][0],
    )


def not_a_name(field: str) -> bool:
    """Whether a field of a line taken for a header cannot be a column's name: a number, a missing
    value (``NA``, ``NULL``, ...), or signs only (``-``, ``?``, ``.``).  An empty name is one (R's
    row-names column, pandas' index).

    Examples
    --------
    >>> [not_a_name(f) for f in ("score", "p_1", "", "0.9", "-", "NA", "?", "#N/A", "x-y")]
    [False, False, False, True, True, True, True, True, False]
    """
    return (
        grammar.is_number(field)
        or field in grammar.MISSING
        or (field != "" and not any(c.isalnum() or c == "_" for c in field))
    )


def _ambiguous_header(
    first: list[tuple[int, int, bytes]], fields: list[str], second: list[str] | None, source: str
) -> None:
    """Refuse a first line detected as a header (:func:`detect_header`) that holds a field no header
    would (:func:`not_a_name`): ``1 0.9 -`` over ``0 0.1 5`` is more likely a row whose group is
    ``-`` than names, and taken for names it would be dropped without a word.
    """
    odd = next((j for j, f in enumerate(fields) if not_a_name(f)), None)
    if odd is None:
        return
    k = next(
        i
        for i, f in enumerate(fields)
        if not grammar.is_number(f) and (second is None or (i < len(second) and grammar.is_number(second[i])))
    )
    what = "a number" if grammar.is_number(fields[odd]) else "no name"
    why = (
        f"field {k + 1}, {fields[k]!r}, "
        + ("is not a number" if second is None else f"over line {first[1][0]}'s {second[k]!r}")
        + f" looks like a name, but field {odd + 1}, {fields[odd]!r}, is {what}"
    )
    text = first[0][2].decode("utf-8", "replace").strip()
    text = text if len(text) <= 40 else text[:37] + "..."
    raise InputFormatError(
        f"{text!r} may be a header or a row of data ({why}): give --header or --no-header (in the "
        "library: header=True or header=False)",
        source=source,
        line=first[0][0],
    )


@dataclass
class Layout:
    """What the first lines of a text table say: format, delimiter, header, names, where data starts."""

    fmt: str
    delim: str | None
    header: bool
    names: list[str]
    skip: int  # bytes of the body before the data (the header line)
    skip_lines: int  # lines before the data

    @property
    def comments(self) -> bool:
        """Whether a data line whose first non-blank character is '#' is a comment: only in a table
        without a header (PERF's files); after a header it is a row (``#N/A``, ``#123``).
        """
        return not self.header


def layout(body: bytes, fmt: str, header: bool | None, delimiter: str | None, source: str) -> Layout | None:
    """The layout from the start of a cleaned body; None when it holds no data line at all."""
    delim = sniff_delimiter(fmt, body[:65536], delimiter)
    if delimiter is not None and fmt == "text":
        fmt = "tsv" if delim == "\t" else "csv"
    first = first_lines(body, delim=delim)
    if not first:
        return None
    fields = _split_line(first[0][2].decode("utf-8", "replace"), fmt, delim)
    if header is None:
        second = _split_line(first[1][2].decode("utf-8", "replace"), fmt, delim) if len(first) > 1 else None
        header = detect_header(fields, second)
        if header:
            _ambiguous_header(first, fields, second, source)
        else:
            _ambiguous_names(body, fields, fmt, delim, source)
    if header:
        skip = first[0][1] + len(first[0][2]) + 1
        names = fields
        rest = first_lines(body[skip:], 1, comments=False, delim=delim)
        if rest:
            width = len(_split_line(rest[0][2].decode("utf-8", "replace"), fmt, delim))
            if width != len(names):
                raise InputFormatError(
                    f"the header names {len(names)} columns, the first row has {width} fields"
                    + _hash_hint(rest[0][2], True),
                    source=source,
                    line=first[0][0] + rest[0][0],
                )
        return Layout(fmt, delim, True, names, skip, first[0][0] + first[0][2].count(b"\n"))
    return Layout(fmt, delim, False, [f"column{i + 1}" for i in range(len(fields))], 0, 0)


# -- records -------------------------------------------------------------------------------------
def _fast_ok(body: bytes, lay: Layout) -> bool:
    """Whether the compiled reader reads this body exactly as the CSV parser would."""
    if lay.delim is None:
        return True  # text: the compiled reader's own grammar of fields
    if lay.delim not in ",\t":
        return False

    # no quote, blank, comment or other text, no empty field (compiled: one pass without the GIL)
    return bool(_native.fast_csv_ok(body, lay.delim))


def parse_body(
    body: bytes,
    lay: Layout,
    ncol: int,
    ids: set[int],
    source: str,
    line0: int,
    keep_text: bool = True,
    skipped: Skipped | None = None,
) -> tuple[list[np.ndarray], np.ndarray | None]:
    """The columns of the data lines of ``body`` (cleaned, and checked by :func:`check_bytes`;
    ``line0`` lines precede it), and their line numbers (None when the compiled reader read them:
    found again only for a message).  The lines skipped as comments (only in a table without a
    header) are added to ``skipped``.
    """
    skipped = Skipped() if skipped is None else skipped
    compiled = _compiled(body, lay, ncol, ids, source, line0, keep_text, skipped)
    if compiled is not None:
        return compiled, None
    lines, rows = _records(body, lay, source, line0, skipped, ncol)
    for ln, fields in zip(lines, rows, strict=False):
        if len(fields) != ncol:
            _wrong_count(ncol, fields, lay.header, source, int(ln))
    cols = []
    for c, values in enumerate(zip(*rows, strict=False) if rows else [() for _ in range(ncol)]):
        if c in ids:
            cols.append(grammar.identity(values))
            continue
        nums = grammar.numbers(values)
        if nums is None:
            if not keep_text:
                i = grammar.first_bad_number(values)
                raise InputFormatError(
                    f"field {c + 1} is {values[i]!r}, not a number", source=source, line=int(lines[i])
                )
            nums = np.array(values, dtype=str)
        cols.append(nums)
    return cols, np.asarray(lines, dtype=np.int64)


def _compiled(
    body: bytes,
    lay: Layout,
    ncol: int,
    ids: set[int],
    source: str,
    line0: int,
    keep_text: bool,
    skipped: Skipped,
) -> list[np.ndarray] | None:
    """The columns read by a compiled reader, when one reads ``body`` exactly as the CSV parser's path
    would (None when none does): plain numeric text by ``parse_table``, a CSV/TSV body with text
    columns by ``parse_delimited``.  Raises the errors ``parse_table`` finds that the other path would
    name the same way.
    """
    if _fast_ok(body, lay):
        mask = bytes(1 if c in ids else 0 for c in range(ncol))
        res = _native.parse_table(body, ncol, mask, lay.comments)
        if res[0] == "ok":
            if lay.comments:
                hash_lines(body, line0, skipped)
            return [_from_kernel(c) for c in res[1]]
        _, why, line, field, token = res
        if why == "fields":
            raise InputFormatError(
                f"expected {ncol} fields, found {token.decode()}" + _hash_hint(_line(body, line), lay.header),
                source=source,
                line=line0 + line,
            )
        if why == "nan" and lay.delim is None:
            raise InputFormatError(
                f"field {field} is NaN; every value must be a number", source=source, line=line0 + line
            )
        if lay.delim is None and not keep_text:
            raise InputFormatError(
                f"field {field} is {token.decode('utf-8', 'replace')!r}, not a number",
                source=source,
                line=line0 + line,
            )
    return _delimited(body, lay, ncol, ids) if keep_text else None


def _delimited(body: bytes, lay: Layout, ncol: int, ids: set[int]) -> list[np.ndarray] | None:
    """The columns of a CSV/TSV body read by the compiled reader (``_native.parse_delimited``), exactly
    as the CSV parser's path reads them (tested on random tables): numbers, identities (int64 or
    text) and text columns, fields quoted or not (an empty field: its column text, the field "").
    None when it cannot (a comment line, an escaped or stray quote, a record of several lines, a
    wrong field count, white space other than blanks and tabs around a field): then the CSV parser
    reads the body, and says what is wrong.
    """
    d = lay.delim
    if d is None or len(d) != 1 or not d.isascii() or (lay.comments and b"#" in body):
        return None

    # with a quote in the body the csv module reads it, and refuses a field over its size limit
    limit = csv.field_size_limit() if b'"' in body else 0

    kinds = bytearray(1 if c in ids else 0 for c in range(ncol))
    # the text columns found on the first lines, so that the whole body is read once in general
    # (a column found to hold text further on is read again with it: one more pass for each)
    cut = body.rfind(b"\n", 0, 1 << 16) + 1
    if 0 < cut < len(body):
        head = body[:cut]
        for _ in range(ncol + 1):
            res = _native.parse_delimited(head, d, bytes(kinds), limit)
            if res[0] == "other":
                return None
            if res[0] == "ok":
                break
            kinds[res[1]] = 2
    for _ in range(ncol + 1):
        res = _native.parse_delimited(body, d, bytes(kinds), limit)
        if res[0] == "ok":
            return [_from_kernel(c) for c in res[1]]
        if res[0] == "other":
            return None
        kinds[res[1]] = 2
    return None  # not reached: a column turns to text once


def _line(body: bytes, line: int) -> bytes:
    """Line ``line`` (1-based) of ``body``: for a message only."""
    parts = body.split(b"\n", line)
    return parts[line - 1] if len(parts) >= line else b""


def _hash_hint(first: bytes, header: bool) -> str:
    """A row that starts with '#' after a header: say it is a row (a comment would have been skipped)."""
    if header and first.strip().startswith(b"#"):
        return " (after the header, a line starting with '#' is a row, not a comment)"
    return ""


def _wrong_count(ncol: int, fields: list[str], header: bool, source: str, line: int) -> None:
    raise InputFormatError(
        f"expected {ncol} fields, found {len(fields)}"
        + _hash_hint(fields[0].encode() if fields else b"", header),
        source=source,
        line=line,
    )


def _from_kernel(col) -> np.ndarray:
    if isinstance(col, tuple):
        if col[0] == "ucs4":  # numpy's unicode array itself: UCS-4 code units, ``width`` a value
            return np.frombuffer(col[1], dtype=np.dtype(("U", col[2])))
        kind, data = col
        return np.frombuffer(data, dtype=np.int64) if kind == "int" else np.array(data, dtype=str)
    return np.frombuffer(col, dtype=np.float64)


def _records(
    body: bytes, lay: Layout, source: str, line0: int, skipped: Skipped, ncol: int | None = None
) -> tuple[list[int], list[list[str]]]:
    """(line numbers, fields) of every data record: blank lines skipped, and unquoted '#' lines when
    they are comments (``lay.comments``; counted in ``skipped``).  A CSV/TSV record of (``ncol``)
    another number of fields is an error at the first such line; an empty field is kept as ``""``
    (an error only where its column is used: :meth:`Table.no_empties`).
    """
    text = body.decode("utf-8", errors="replace")
    names = lay.names if lay.header else None
    if lay.delim is None:
        return _text_records(text, line0, lay.comments, skipped)
    if '"' not in text:
        return _unquoted_records(text, lay.delim, source, line0, names, lay.comments, skipped, ncol)
    return _csv_records(text, lay.delim, source, line0, names, lay.comments, skipped, ncol)


def _text_records(
    text: str, line0: int, comments: bool = True, skipped: Skipped | None = None
) -> tuple[list[int], list[list[str]]]:
    """Whitespace-separated lines."""
    lines: list[int] = []
    rows: list[list[str]] = []
    for k, line in enumerate(text.split("\n"), line0 + 1):
        s = line.strip(" \t\v\f")
        if s and comments and s.startswith("#"):
            if skipped is not None:
                skipped.add(k)
        elif s:
            fields = _split_line(line, "text", None)
            if fields:
                lines.append(k)
                rows.append(fields)
    return lines, rows


def _unquoted_records(
    text: str,
    delim: str,
    source: str,
    line0: int,
    names: list[str] | None = None,
    comments: bool = True,
    skipped: Skipped | None = None,
    ncol: int | None = None,
) -> tuple[list[int], list[list[str]]]:
    """No quoting: a record is a line, its fields the delimiter's pieces."""
    lines: list[int] = []
    rows: list[list[str]] = []
    for k, line in enumerate(text.split("\n"), line0 + 1):
        s = line.strip()
        if s and comments and s.startswith("#"):
            if skipped is not None:
                skipped.add(k)
        elif s:
            row = line.split(delim)
            if s != line or " " in line or "\t" in line:
                row = [f.strip() for f in row]
            if ncol is not None and len(row) != ncol:
                _wrong_count(ncol, row, names is not None, source, k)
            lines.append(k)
            rows.append(row)
    return lines, rows


def _csv_records(
    text: str,
    delim: str,
    source: str,
    line0: int,
    names: list[str] | None = None,
    comments: bool = True,
    skipped: Skipped | None = None,
    ncol: int | None = None,
) -> tuple[list[int], list[list[str]]]:
    """Quoted CSV (RFC 4180, by the csv module): a record may span lines; its line is where it starts."""
    lines: list[int] = []
    rows: list[list[str]] = []
    physical: list[int] = []
    split = text.split("\n")

    def data_lines():
        inside = False
        for k, line in enumerate(split, line0 + 1):
            if not inside and not line.strip():
                continue
            if not inside and comments and line.lstrip().startswith("#"):
                if skipped is not None:
                    skipped.add(k)
                continue
            physical.append(k)
            inside ^= line.count('"') % 2 == 1
            yield line + "\n"

    reader = csv.reader(data_lines(), delimiter=delim, strict=True)
    done = 0  # the lines given to the parser up to the end of the last record read
    try:
        for fields in reader:
            end = reader.line_num - 1
            breaks = fields_lines(fields)
            start = physical[end - breaks] if end >= 0 else line0 + 1
            row = [f.strip() for f in fields]
            if ncol is not None and len(row) != ncol:
                _wrong_count(ncol, row, names is not None, source, start)
            lines.append(start)
            rows.append(row)
            done = reader.line_num
    except csv.Error as e:
        record = [(k, split[k - line0 - 1]) for k in physical[done : reader.line_num]]
        opened = _open_quote(record, delim)
        if opened is not None:  # at the end of the text, or past the field limit: the quote's line
            limit = str(e).startswith("field larger")
            raise InputFormatError(
                f"not valid CSV: the quote that opens a field here is not closed within "
                f"{csv.field_size_limit()} characters (the CSV parser's limit of a field)"
                if limit
                else f"not valid CSV: the quote that opens a field here is never closed ({e})",
                source=source,
                line=opened,
            ) from None
        k = (
            physical[reader.line_num - 1]
            if reader.line_num and reader.line_num <= len(physical)
            else line0 + 1
        )
        raise InputFormatError(f"not valid CSV ({e})", source=source, line=k) from None
    return lines, rows


def _open_quote(record: list[tuple[int, str]], delim: str) -> int | None:
    """The line of the quote that opens a field never closed within ``record`` (its ``(line, text)``
    from its first line: the lines the CSV parser read of the record it failed on), or None when
    every quoted field of it is closed.  As the parser reads quotes: one opens a field only at its
    start; in a quoted field a quote closes it, and two are one quote of the text.
    """
    inside = closed = False  # in a quoted field; just after the quote that closed one
    start = True  # at the start of a field
    opened: int | None = None
    for k, line in record:
        for ch in line:
            if inside:
                inside = ch != '"'
                closed = not inside
                continue
            if ch == '"' and (start or closed):  # a field opens, or a quote of its text ("")
                opened = k if start else opened
                inside = True
            start, closed = ch == delim and not inside, False
        start, closed = not inside, False
    return opened if inside else None


def fields_lines(fields: list[str]) -> int:
    """How many line breaks the record's quoted fields hold (its start line = its end line - this)."""
    return sum(f.count("\n") for f in fields)


# -- whole tables ------------------------------------------------------------------------------
def text_table(
    raw: bytes,
    source: str,
    fmt: str,
    header: bool | None = None,
    delimiter: str | None = None,
    identity: Identity | None = None,
    labels: Identity | None = None,
) -> Table:
    """The whole table of a text, CSV or TSV file's bytes (:func:`perfeval.io.readers.read_table`
    reads every format; its parameters).
    """
    body = clean(raw, True)
    check_bytes(body, source, 0, fmt != "text" or delimiter is not None)
    lay = layout(body, fmt, header, delimiter, source)
    if lay is None:
        raise InputFormatError("holds no data", source=source)
    data_body = body[lay.skip :]
    ncol = len(lay.names)
    if not first_lines(data_body, 1, lay.comments):
        raise InputFormatError("holds a header and no data", source=source)
    roles = id_roles(identity(list(lay.names), lay.header)) if identity is not None else {}
    ids = set(roles)
    kept = set(labels(list(lay.names), lay.header)) - ids if labels is not None else set()
    skipped = Skipped()
    hash_lines(body[: lay.skip], 0, skipped)  # comments before the header
    cols, lines = parse_body(data_body, lay, ncol, ids | kept, source, lay.skip_lines, skipped=skipped)
    columns: dict[str, np.ndarray] = {}
    for name, col in zip(lay.names, cols, strict=False):
        columns.setdefault(name, col)
    table = Table(
        list(lay.names),
        columns,
        source,
        lay.header,
        lines,
        data_body,  # a row's line, a field as written: found again for a message only
        lay.skip_lines,
        cols,
        lay.comments,
        skipped,
        empties=first_empties(cols),
        fmt=lay.fmt,
        delim=lay.delim,
    )
    check_text_ids(table, lay.names, cols, roles)
    skipped.warn(source)
    return table


def null_message(name: str) -> str:
    """The message of a used Parquet column holding a null (its row named beside it)."""
    return f"the column {name!r} holds a null, a missing value: every row needs one"


def empty_message(name: str, role: str = "") -> str:
    """The message of a used CSV/TSV column with an empty field (its line named beside it).

    Examples
    --------
    >>> empty_message("p", "score")
    "the score column 'p' is empty: a missing value; drop the row or fill it"
    """
    return (
        f"the {role + ' ' if role else ''}column {name!r} is empty: a missing value; drop the row or fill it"
    )


def float_ids(name: str, role: str | None, value: str | None = None) -> str:
    """The line refusing an identity column that holds a float (``value``: the first as written; None:
    a column of floating-point numbers, Parquet's or a Dask frame's), worded for what the column is:
    a slice column (``--by``) holds values to group by, bin them; any other holds ids.

    Examples
    --------
    >>> float_ids("age", "--by", "1.5")[:59]
    "the by column 'age' (--by) holds '1.5', a float: a slice is"
    """
    holds = "holds floating-point numbers" if value is None else f"holds {value!r}, a float"
    if role == "--by":
        return (
            f"{id_column(name, role)} {holds}: a slice is a value (text, an integer, a boolean); bin the "
            "column first (pandas.cut) or write it as integers or text"
        )
    if value is None:
        return f"{id_column(name, role)} {holds}; ids must be integers or text (cast the column)"
    return (
        f"{id_column(name, role)} {holds}: ids must be integers or text (past 2^53 a float has merged "
        "ids); write them as integers (pandas: .astype('int64')) or as text"
    )


def first_empties(cols: Sequence[np.ndarray], positions: Iterable[int] | None = None) -> dict[int, int]:
    """The columns (by position; only ``positions`` when given) holding an empty field, each with its
    first such row: only a text column can hold one (a column of numbers has none).
    """
    out: dict[int, int] = {}
    for c in range(len(cols)) if positions is None else positions:
        if cols[c].dtype.kind == "U":
            hit = cols[c] == ""
            if hit.any():
                out[c] = int(np.argmax(hit))
    return out


def check_text_ids(
    where: Table,
    names: Sequence[str],
    cols: Sequence[np.ndarray],
    ids: Iterable[int] | Mapping[int, str | None],
) -> None:
    """Identity columns read from text with an id written as a float (:func:`grammar.first_float_id`):
    one line naming the column (by its role or option, when ``ids`` maps each to one: :func:`id_column`),
    the value and its line, as Parquet's float ids are refused.
    """
    roles = id_roles(ids)
    for c in sorted(roles):
        i = grammar.first_float_id(cols[c])
        if i >= 0:
            raise InputFormatError(
                float_ids(names[c], roles[c], str(cols[c][i])),
                source=where.source,
                **where.at(i),
            )


def one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 200 else text[:197] + "..."


def numeric(table: Table, name: str, col: np.ndarray, role: str) -> np.ndarray:
    """The column as float64, or an error naming the first value that is not a number."""
    if col.dtype.kind in "biuf":
        return col.astype(np.float64, copy=False)
    values = [str(v) for v in col.tolist()]
    i = grammar.first_bad_number(values)
    if i >= 0:
        if values[i] == "":  # an empty field of a CSV/TSV: what pandas writes for NaN and None
            raise InputFormatError(empty_message(name, role), source=table.source, **table.at(i))
        what = f"the {role} column" if role else "the column"
        why = (
            f" (a missing value: every row needs {'a ' + role if role else 'one'})"
            if values[i] in grammar.MISSING
            else " (a decimal comma? numbers are read with '.': convert the file, e.g. pandas' "
            "read_csv(..., sep=';', decimal=',') then to_csv)"
            if re.fullmatch(r"[+-]?[0-9]*,[0-9]+", values[i])
            else _hash_hint(values[i].encode(), table.header and not table.comments)
        )
        raise InputFormatError(
            f"{what} {name!r} holds {values[i]!r}, not a number{why}",
            source=table.source,
            **table.at(i),
        )
    return np.array(values, dtype=np.float64)
