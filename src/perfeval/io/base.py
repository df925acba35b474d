"""What every reader of :mod:`perfeval.io.readers` shares: the interface of a format's reader
(:class:`Reader`: whole files, chunks, Dask partitions), the request of a chunked read and the
choice of its columns, the files a pattern names, the reading of a file one block ahead on another
thread, and the progress line.
"""

from __future__ import annotations

import glob
import os
import queue
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from perfeval.base import progress as _progress
from perfeval.exceptions import InputFormatError
from perfeval.io.columns import pick
from perfeval.io.tables import Identity, Table, clean, open_bytes

#: bytes of text parsed at a time (about 6 million `target score` lines)
CHUNK_BYTES = 64 << 20


@dataclass
class Request:
    """What :func:`perfeval.io.readers.iter_columns` was asked, as every format's chunk reader takes
    it: the columns (specs, or a callable ``(names, header) -> positions``), those read as
    identities (``ids``, ``{index: role}``: the role or option that names the column in an error,
    :func:`perfeval.io.tables.id_column`) or as labels (``labels``), the ``convert`` of the picked
    columns, the text options, the block size, the progress line (``meter``) and whether the source
    is a regular file (read one block ahead).
    """

    columns: Any
    header: bool | None = None
    delimiter: str | None = None
    chunk_bytes: int = CHUNK_BYTES
    ids: dict[int, str | None] = field(default_factory=dict)
    labels: set[int] = field(default_factory=set)
    convert: Callable | None = None
    meter: Progress | None = None
    regular: bool = False

    def picks(self, names: list[str], header: bool, source: str) -> list[int | None]:
        """0-based positions of the wanted columns, once the names are known (:func:`picks`)."""
        return picks(self.columns, names, header, source)


@dataclass(frozen=True)
class Options:
    """How a whole table is read (:func:`perfeval.io.readers.read_table`): its format, the header and
    the delimiter of a text table, and the callables ``(names, header) -> positions`` of the
    identity columns and of the columns kept as labels.
    """

    fmt: str
    header: bool | None = None
    delimiter: str | None = None
    identity: Identity | None = None
    labels: Identity | None = None


class FrameOf(Protocol):
    """:attr:`Partitions.frame`: the lazy frame of the files once their columns' roles are known."""

    def __call__(
        self,
        group: int | dict[int, str] | None,
        used: list[int] | None = None,
        numbers: list[int] | None = None,
    ) -> Any: ...


@dataclass
class Partitions:
    """Files as a Dask frame, a format's way (:meth:`Reader.partitions`): the format read, whether
    there is a header, the column names, the CSV delimiter (None: white space, or not a text
    format), ``frame(group, used, numbers)`` the lazy frame once the identity columns are chosen
    (the group's position, or ``{position: role}``: the option naming each in an error; or None),
    the columns used (their positions; the others may be read as text, never typed: None, all
    typed) and the columns of numbers (a score, a weight, a target of numbers: their positions,
    float64 whatever a file's first rows hold, where the format's types are guessed from them),
    ``columns_of(file)`` the columns one file holds (None: not checked ahead), whether ``frame``
    reads the identity columns as identities itself, and the lines skipped as comments
    (``{file: Skipped}``), to be said as the other readers say them.
    """

    fmt: str
    header: bool
    names: list[str]
    delimiter: str | None
    frame: FrameOf
    columns_of: Callable[[str], list[str]] | None = None
    identities: bool = False
    skipped: dict[str, Any] | None = None


class Reader:
    """How one input format is read, in the three ways the backends read it; one instance for each
    format in :data:`perfeval.io.readers.READERS`.

    ``formats``: the names ``--input-format`` gives it; ``extensions``: a file name's extension
    (under ``.gz``, ``.bz2`` or ``.xz`` too) to the format it names.
    """

    formats: tuple[str, ...] = ()
    extensions: dict[str, str] = {}

    def sniff(self, sample: bytes, first: bytes) -> str | None:
        """The format the first bytes of a file (``sample``; ``first``, its first data line) say,
        or None when they do not say this reader's.
        """
        return None

    def table(self, raw: bytes, source: str, how: Options) -> Table:
        """The whole table of a file's bytes, as ``how`` says (:func:`perfeval.io.readers.read_table`)."""
        raise NotImplementedError

    def chunks(self, fh: Any, source: str, fmt: str, request: Request) -> Iterator[list]:
        """The picked columns of an open binary stream, chunk by chunk
        (:func:`perfeval.io.readers.iter_columns`).
        """
        raise NotImplementedError

    def partitions(self, pattern: str, fmt: str, header: bool | None, delimiter: str | None) -> Partitions:
        """Files as Dask partitions (:func:`perfeval.backends.dask.read_files`; Dask imported here only)."""
        raise NotImplementedError


def files(pattern: str) -> list[str]:
    """The files a path, a glob or a directory names, in order."""
    if os.path.isdir(pattern):
        return sorted(
            os.path.join(dp, f)
            for dp, _dirs, fs in os.walk(pattern)
            for f in fs
            if not f.startswith((".", "_"))
        )
    return sorted(glob.glob(pattern)) or [pattern]


def read_file(path: str | None, source: str) -> bytes:
    """The bytes of a file, or of standard input (``path`` None or ``-``), decompressed when they
    are compressed; an error naming ``source`` when they cannot be read.
    """
    fh = open_bytes(path, source)
    try:
        return fh.read()
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=source) from None
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def picks(columns: Any, names: list[str], header: bool, source: str) -> list[int | None]:
    """0-based positions of the wanted columns: ``columns`` is a list of specs (name or 1-based
    position; None: skipped) or a callable ``(names, header) -> positions`` that chooses them once
    the header is known (:func:`perfeval.io.columns.choose`).
    """
    if callable(columns):
        return list(columns(list(names), header))
    return [_position(c, names, source) for c in columns]


def _position(spec: str | None, names: list[str], source: str) -> int | None:
    if spec is None:
        return None
    col = pick(names, spec, "column", source, header=True, default=False)
    return None if col is None else col.index


#: a record longer than this many chunks is refused rather than buffered without bound
MAX_RECORD_CHUNKS = 16


def record_end(data: bytes, quoted: bool) -> int:
    """The end of the last whole record in ``data`` (0 when there is none): after the last line end,
    or, when fields may be quoted, after the last line end outside quotes.
    """
    cut = data.rfind(b"\n") + 1
    if not quoted or b'"' not in data:
        return cut
    while cut > 0 and data.count(b'"', 0, cut) % 2:
        cut = data.rfind(b"\n", 0, cut - 1) + 1
    return cut


class RecordReader:
    """A text file (text, CSV, TSV, JSON lines) as blocks of whole records (``quoted``: a record's
    line end may be inside quotes, as in CSV): a record cut by the block end is carried into the
    next block, a CR LF cut between two blocks is one line end, and a record longer than
    ``MAX_RECORD_CHUNKS`` chunks is an error naming its line (``line0``: the lines before the block,
    kept by the reader's user).
    """

    def __init__(self, fh, chunk_bytes: int, quoted: bool, source: str):
        self.fh, self.chunk_bytes, self.quoted, self.source = fh, chunk_bytes, quoted, source
        self.carry = b""
        self.line0 = 0

    def _bounded(self, data: bytes) -> None:
        if len(data) > MAX_RECORD_CHUNKS * self.chunk_bytes:
            quote = self.quoted and b'"' in data
            why = "no line end outside quotes: a quote not closed?" if quote else "no line end found"
            raise InputFormatError(
                f"a record longer than {len(data) >> 20} MB ({why})",
                source=self.source,
                line=self.line0 + 1,
            )

    def unread(self, body: bytes, bounded: bool = True) -> None:
        """Give a block back: it is read again in front of the next one (``bounded=False``: the
        caller bounds it, as the header rule's look-ahead is).
        """
        self.carry = body + self.carry
        if bounded:
            self._bounded(self.carry)

    def blocks(self) -> Iterator[tuple[bytes, bool]]:
        """(whole records, whether this is the last block)."""
        first = True
        pending_cr = False
        later = b""
        while True:
            raw, later = later or self.fh.read(self.chunk_bytes), b""
            end = not raw
            if 0 < len(raw) < self.chunk_bytes:
                # a short read: the end of the file when the next one is empty, and then this block
                # is the last whole, its last line too (one block, as the whole-file reader reads it)
                later = self.fh.read(self.chunk_bytes)
                end = not later
            block = raw
            if pending_cr and block.startswith(b"\n"):
                block = block[1:]  # the \n of a \r\n cut between two blocks
            pending_cr = block.endswith(b"\r")
            block = clean(block, first)
            first = False
            data = self.carry + block
            if not data:
                return
            if end:
                self.carry = b""
                yield data, True
                return
            cut = record_end(data, self.quoted)
            if cut == 0:  # a record longer than a chunk: read on, within a bound
                self._bounded(data)
                self.carry = data
                continue
            self.carry = data[cut:]
            yield data[:cut], False


def ahead(chunks: Generator[Any, None, None]) -> Iterator[Any]:
    """The items of ``chunks``, read one ahead on another thread: the next block is read and parsed
    (compiled, without the GIL) while the caller summarizes this one, on two cores.  An error of the
    reader is raised here, in order; when the caller stops (done, an error of its own, Ctrl-C), the
    reader is stopped after its current block and waited for, so the file is not closed under it.
    """
    box: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def put(item: tuple) -> bool:
        while not stop.is_set():
            try:
                box.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for chunk in chunks:
                if not put(("chunk", chunk)):
                    return
            put(("end", None))
        except BaseException as e:  # handed to the caller, raised there
            put(("error", e))
        finally:
            chunks.close()

    worker = threading.Thread(target=work, name="perfeval-reader", daemon=True)
    worker.start()
    try:
        while True:
            kind, item = box.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


class Progress:
    """Rows read from a file, on standard error: tqdm's bar over the file's bytes (rate, time left)
    with the rows so far beside it, or a count of rows when the size is not known (standard input).
    The bar comes from :mod:`perfeval.base.progress` (tqdm imported only when a bar is shown).
    """

    def __init__(self, total_bytes: int, source: str):
        self.rows = 0
        self.by_bytes = total_bytes > 0
        if self.by_bytes:
            self.bar = _progress.bar(
                True, total_bytes, f"reading {os.path.basename(source)}", "B", scale=True
            )
        else:
            self.bar = _progress.bar(True, None, f"reading {source}", "rows", scale=True)

    def advance(self, nbytes: int, rows: int) -> None:
        self.rows += rows
        if self.by_bytes:
            self.bar.set_postfix_str(f"{self.rows:,} rows")
            self.bar.update(nbytes)
        else:
            self.bar.update(rows)

    def done(self) -> None:
        self.bar.close()
