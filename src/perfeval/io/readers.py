"""Every input format's reader, and the three ways the backends read a file through them: whole
(:func:`read_table`), in chunks (:func:`iter_columns`, for the stream and large files) and as Dask
partitions (:func:`perfeval.backends.dask.read_files`, through :meth:`~perfeval.io.base.Reader.partitions`).

A format is one :class:`~perfeval.io.base.Reader` (its module: :mod:`perfeval.io.text` for
whitespace text, CSV and TSV, :mod:`perfeval.io.jsonl`, :mod:`perfeval.io.parquet`), listed in
:data:`READERS`; its file extensions and first bytes tell it (:func:`guess_format`).  A new input
format is a new module with its reader (a :class:`~perfeval.io.base.Reader`: ``formats``,
``extensions``, ``sniff``, ``table``, ``chunks``, ``partitions``) and its entry here, its name in
the command's ``--input-format`` choices (``perfeval.cli.parser.INPUT_FORMATS``, which a test keeps
equal to these names).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.io import jsonl, parquet, text
from perfeval.io.base import CHUNK_BYTES, Options, Progress, Reader, Request, files, read_file
from perfeval.io.tables import BOM, COMPRESSED_EXT, Identity, Table, clean, id_roles, open_bytes

#: every format's reader, by the names ``--input-format`` gives them; the order in which their
#: first bytes are asked for the format of a file whose name does not tell it (text last: any)
READERS: dict[str, Reader] = {
    "parquet": parquet.READER,
    "jsonl": jsonl.READER,
    "text": text.READER,
    "csv": text.READER,
    "tsv": text.READER,
}
FORMATS = ("auto", *READERS)


def _strip_ext(path: str | None) -> str:
    p = (path or "").lower()
    for ext in COMPRESSED_EXT:
        if p.endswith(ext):
            return p[: -len(ext)]
    return p


def guess_format(path: str | None, sample: bytes) -> str:
    """The format from the file name, else from the first data line."""
    ext = os.path.splitext(_strip_ext(path))[1]
    readers = list(dict.fromkeys(READERS.values()))
    for reader in readers:
        if ext in reader.extensions:
            return reader.extensions[ext]
    first = sample.lstrip().split(b"\n", 1)[0]
    for reader in readers:
        fmt = reader.sniff(sample, first)
        if fmt is not None:
            return fmt
    return "text"  # pragma: no cover - the text reader tells any bytes


def format_of(pattern: str, fmt: str = "auto") -> str:
    """The format of the files ``pattern`` names: as given, else that of the first, by its name (under
    ``.gz``/``.bz2``/``.xz`` too) or its first bytes, as the table readers tell it.
    """
    if fmt != "auto":
        return fmt
    first = files(pattern)[0]
    try:
        fh = open_bytes(first, first)
    except Exception:  # not a local file (s3://...): by its name
        return guess_format(first, b"")
    try:
        head = fh.read(1 << 16)
    finally:
        fh.close()
    return guess_format(first, clean(head, True).lstrip(BOM))


def read_table(
    path: str | None,
    fmt: str = "auto",
    header: bool | None = None,
    *,
    delimiter: str | None = None,
    identity: Identity | None = None,
    labels: Identity | None = None,
) -> Table:
    """Read a whole table.

    Parameters
    ----------
    path : str or None
        A file (plain, or compressed with gzip, bzip2 or xz), or None / ``"-"`` for standard input.
    fmt : {"auto", "text", "csv", "tsv", "jsonl", "parquet"}
    header : bool or None
        None detects a header: a first row with a field that is not a number while the second
        row's field in that column is.
    delimiter : str, optional
        The CSV field delimiter (default: sniffed among ``,``, ``;`` and tab).
    identity : callable, optional
        ``(names, header) -> positions`` (0-based) of the identity columns (groups, ids): read as
        int64 when every value is a plain integer, else as the text written (never as floats).  It
        may return ``{position: role}`` instead: an error names the column by its role or option
        (``"--group"``, ``"--id"``, ``"qid"``: :func:`perfeval.io.tables.id_column`).
    labels : callable, optional
        ``(names, header) -> positions`` of columns to keep as written, as identity columns are read
        (int64 when every value is a plain integer, else the text) but not refused when written as
        floats: to compare two files' columns exactly (``perfeval compare``).  In Parquet they keep
        their type (a float column stays float).

    Returns
    -------
    Table
        Its ``skipped`` counts the lines read as comments (a ``#`` line before the header, or
        anywhere without a header; after a header such a line is a row).

    Warns
    -----
    CommentLinesWarning
        When a line was skipped as a comment: how many, and which.
    """
    source = path if path and path != "-" else "standard input"
    if fmt not in FORMATS:
        raise InvalidParameterError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    raw = read_file(path, source)
    if fmt == "auto":
        fmt = guess_format(path, raw[:65536].lstrip(BOM))
    return READERS[fmt].table(raw, source, Options(fmt, header, delimiter, identity, labels))


def iter_columns(
    path: str | None,
    columns: Any,
    fmt: str = "auto",
    header: bool | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    progress: bool = False,
    *,
    ids: Iterable[int] | Mapping[int, str | None] = (),
    labels: Iterable[int] = (),
    delimiter: str | None = None,
    convert: Any = None,
) -> Iterator[list[np.ndarray | None]]:
    """Yield the chosen columns (name or 1-based position; None: skipped) chunk by chunk.

    ``columns`` may instead be a callable ``(names, header) -> [0-based position or None]``, called
    once the header (or its absence) is known, so that columns are chosen by the one rule of
    :mod:`perfeval.io.columns` whatever the source (a file, standard input, Parquet).  The entries
    of the list at the indices ``ids`` are identity columns (groups): int64 when every value of the
    chunk is a plain integer, else the text as written (a column of numbers written as floats is an
    error: :func:`perfeval.io.tables.check_text_ids`; ``ids`` as ``{index: role}`` names the column
    by its role or option there, ``"--group"``); those at ``labels`` are read the same way but
    are labels (a target read with ``--pos-label``): any values, not checked as ids.  The others must
    be numbers (float64).  ``convert``, a callable ``(columns, where) -> columns``, replaces that
    last step: it gets the picked columns as read (numbers, or text where a value is not one) and
    ``where``, a :class:`perfeval.io.tables.Table` of the chunk whose ``line_of`` gives a row's line
    (its row, in Parquet), and returns the columns (its errors name the lines: the command line's
    checks, the same as for a table read whole).

    Each format's reader reads the chunks as :func:`read_table` reads the whole (compressed input, a
    byte-order mark, any line end; the same grammar, the same compiled fast path): text, CSV and TSV
    in blocks of ``chunk_bytes`` cut at a record's end, JSON lines in blocks of whole lines (a JSON
    lines label column is typed as read whole), Parquet row group by row group (pyarrow).  Errors
    name the source and the line, counted across chunks.  An input with no data is an error.
    ``progress``: show the bytes and rows read on standard error (:class:`~perfeval.io.base.Progress`).
    """
    source = path if path and path != "-" else "standard input"
    if fmt not in FORMATS:
        raise InvalidParameterError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    fh = open_bytes(path, source)
    meter = None
    try:
        head = fh.peek(65536)[:65536] if hasattr(fh, "peek") else b""
        if fmt == "auto":
            fmt = guess_format(path if path != "-" else None, head.lstrip(BOM))
        regular = bool(path and path != "-" and os.path.isfile(path))
        total = os.fstat(fh.fileno()).st_size if regular else 0
        meter = Progress(total, source) if progress else None
        request = Request(
            columns,
            header,
            delimiter,
            chunk_bytes,
            id_roles(ids),
            set(labels),
            convert,
            meter,
            regular,
        )
        yield from READERS[fmt].chunks(fh, source, fmt, request)
    finally:
        if meter:  # cleared before an error is written, too
            meter.done()
        if fh is not sys.stdin.buffer:
            fh.close()
