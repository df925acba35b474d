"""Exact evaluation of data larger than memory: read in chunks, summarise each, merge, finish once.

The summary of every binary measure is the :class:`~perfeval.summaries.ScoreHistogram` (distinct
scores with their positive and negative weight), so a chunk's summary is as good as its rows: the
numbers are those of evaluating everything in memory, identical bit for bit when the weights sum
exactly in float64 (no weights, whole-number weights, dyadic fractions such as 0.5 or 0.25).  With
other fractional weights each distinct score's weight total is added up in another order, so a
value can differ in its last bits (at most about n * 2**-53 relative for n rows at one score;
``tests/test_registry_properties.py`` holds both).  Memory is bounded by the chunk and the
summary, which grows with the number of **distinct** scores (24 bytes each), not with the rows:
100 million rows of 6-decimal scores hold at most a million distinct values, 24 MB.

Per-group measures need whole groups together: :func:`evaluate_stream_grouped` spills the rows to
temporary files by a hash of their group (any key type, any input order), in a compact binary form,
then evaluates the files one at a time; memory is one chunk, then at most a row budget
(:data:`SPILL_BUDGET_ROWS`): a larger file is split again, a larger group finished from its summary.
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import sys
from collections.abc import Generator, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from perfeval.exceptions import (
    InputFormatError,
    InvalidParameterError,
    MissingDependencyError,
)
from perfeval.summaries import ScoreHistogram

#: bytes of text parsed at a time (about 6 million `target score` lines)
CHUNK_BYTES = 64 << 20


class Summarizer:
    """Accumulates a ScoreHistogram chunk by chunk; merges in batches to keep the work linear."""

    def __init__(self, batch: int = 8):
        self._parts: list[ScoreHistogram] = []
        self._batch = batch
        self.rows = 0

    def update(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> None:
        from perfeval.base.checks import LabelWords, binary_targets, check_scores, floats, to_numpy

        y = to_numpy(y_true, "y_true")
        s = floats(to_numpy(y_score, "y_score"), "y_score")
        check_scores(s)
        # a chunk's targets (not all of them); the stream takes no pos_label: they come coded
        words = LabelWords(pos_label=False, whole=False)
        self._parts.append(
            ScoreHistogram.from_arrays(
                binary_targets(y, "streaming evaluation", words=words), s, sample_weight
            )
        )
        self.rows += len(s)
        if len(self._parts) >= self._batch:
            self._parts = [ScoreHistogram.merge_all(self._parts)]

    def merge(self, other: Summarizer) -> Summarizer:
        out = Summarizer(self._batch)
        out._parts = [self.summary(), other.summary()]
        out.rows = self.rows + other.rows
        return out

    def summary(self) -> ScoreHistogram:
        self._parts = [ScoreHistogram.merge_all(self._parts)]
        return self._parts[0]


def evaluate_stream(chunks: Iterable[tuple], *, measures: Any = None, threshold: float = 0.5):
    """Evaluate binary measures over an iterable of ``(y_true, y_score[, sample_weight])`` chunks.

    Gives the same numbers as :func:`perfeval.evaluate` on the concatenated chunks, in memory bounded
    by one chunk plus the summary.

    Examples
    --------
    >>> chunks = [([1, 0], [0.9, 0.5]), ([1, 0], [0.5, 0.1])]
    >>> evaluate_stream(chunks, measures=["roc", "apr"])["ROC"]
    0.875
    """
    from perfeval.engine import DEFAULT_MEASURES, binary_report, resolve

    specs = resolve(measures or DEFAULT_MEASURES, threshold)
    other = [s.label for s in specs if s.measure.kind != "binary"]
    if other:
        raise InvalidParameterError(
            f"{other[0]} is a per-query or per-group measure: stream it with evaluate_stream_grouped() "
            "and a group column"
        )
    summ = Summarizer()
    weighted = False
    for chunk in chunks:
        if len(chunk) not in (2, 3):
            raise InvalidParameterError("each chunk must be (y_true, y_score) or (y_true, y_score, weight)")
        weighted = weighted or (len(chunk) == 3 and chunk[2] is not None)
        summ.update(*chunk)
    return binary_report(specs, summ.summary(), rows=summ.rows, threshold=threshold, weighted=weighted)


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
    last step for a text table: it gets the picked columns as read (numbers, or text where a value
    is not one) and ``where``, a :class:`perfeval.io.tables.Table` of the block whose ``line_of``
    gives a row's line, and returns the columns (its errors name the lines: the command line's
    checks, the same as for a table read whole).

    The bytes are read as :func:`perfeval.io.tables.read_table` reads them (compressed input, a
    byte-order mark, any line end; the same grammar, the same compiled fast path), in blocks of
    ``chunk_bytes`` cut at a record's end; Parquet is read row group by row group (pyarrow).
    Errors name the source and the line, counted across chunks.  An input with no data is an error.
    ``progress``: show the bytes and rows read on standard error (:class:`Progress`).
    """
    from perfeval.io.tables import BOM, guess_format, id_roles, open_bytes

    source = path if path and path != "-" else "standard input"
    fh = open_bytes(path, source)
    meter = None
    try:
        head = fh.peek(65536)[:65536] if hasattr(fh, "peek") else b""
        if fmt == "auto":
            fmt = guess_format(path if path != "-" else None, head.lstrip(BOM))
        regular = bool(path and path != "-" and os.path.isfile(path))
        total = os.fstat(fh.fileno()).st_size if regular else 0
        meter = Progress(total, source) if progress else None
        if fmt == "parquet":
            yield from _parquet_chunks(fh, columns, source, meter, id_roles(ids), set(labels), convert)
        elif fmt == "jsonl":
            raise InvalidParameterError(
                "JSON lines are read whole; streaming reads text, CSV, TSV and Parquet"
            )
        else:
            from perfeval.io.tables import Skipped

            skipped = Skipped()
            chunks = _text_chunks(
                fh,
                columns,
                fmt,
                header,
                chunk_bytes,
                source,
                meter,
                id_roles(ids),
                set(labels),
                delimiter,
                skipped,
                convert,
            )
            # a regular file is read one block ahead on another thread; standard input and pipes are
            # read here (a read of a pipe can wait for ever, and Ctrl-C must not wait for it)
            yield from _ahead(chunks) if regular else chunks
            skipped.warn(source)  # in the caller's thread, once every chunk is read
    finally:
        if meter:  # cleared before an error is written, too
            meter.done()
        if fh is not sys.stdin.buffer:
            fh.close()


def _ahead(chunks: Generator[Any, None, None]) -> Iterator[Any]:
    """The items of ``chunks``, read one ahead on another thread: the next block is read and parsed
    (compiled, without the GIL) while the caller summarizes this one, on two cores.  An error of the
    reader is raised here, in order; when the caller stops (done, an error of its own, Ctrl-C), the
    reader is stopped after its current block and waited for, so the file is not closed under it.
    """
    import queue
    import threading

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


def text_layout(path: str, fmt: str = "auto", header: bool | None = None, delimiter: str | None = None):
    """The :class:`~perfeval.io.tables.Layout` of a text table, from its first 64 KiB: whether it has
    a header (detected by the readers' rule when ``header`` is None), its delimiter and its column
    names; None when those bytes hold no data line.  Their bytes are checked first, as the readers
    check them (:func:`perfeval.io.tables.check_bytes`).
    """
    from perfeval.io.tables import check_bytes, clean, guess_format, layout, open_bytes

    fh = open_bytes(path, path)
    try:
        head = clean(fh.read(1 << 16), True)
    finally:
        fh.close()
    if fmt == "auto":
        fmt = guess_format(path, head)
    cut = head.rfind(b"\n") + 1 or len(head)
    check_bytes(head[:cut], path, 0, fmt != "text" or delimiter is not None)
    return layout(head[:cut], fmt, header, delimiter, path)


def column_names(path: str, fmt: str = "auto", header: bool | None = None) -> list[str]:
    """The columns of a text table: its header's names, or column1, column2, ... without one."""
    lay = text_layout(path, fmt, header)
    return [] if lay is None else list(lay.names)


#: a record longer than this many chunks is refused rather than buffered without bound
MAX_RECORD_CHUNKS = 16


def _record_end(data: bytes, quoted: bool) -> int:
    """The end of the last whole record in ``data`` (0 when there is none): after the last line end,
    or, when fields may be quoted, after the last line end outside quotes.
    """
    cut = data.rfind(b"\n") + 1
    if not quoted or b'"' not in data:
        return cut
    while cut > 0 and data.count(b'"', 0, cut) % 2:
        cut = data.rfind(b"\n", 0, cut - 1) + 1
    return cut


def _text_chunks(
    fh, columns, fmt, header, chunk_bytes, source, meter, ids, labels, delimiter, skipped, convert=None
):
    """The chunks of a text table; the lines skipped as comments are counted in ``skipped``.  The
    columns are chosen at the first data line, as the whole-file reader chooses them once it has
    read its table: a table of a header only is said as such, and a wrong line of the first block
    before a column that is not there.
    """
    from perfeval.exceptions import PerfError
    from perfeval.io.tables import (
        Skipped,
        check_bytes,
        first_lines,
        hash_lines,
        header_pending,
        layout,
        parse_body,
    )

    quoted = fmt != "text" or delimiter is not None
    rd = _RecordReader(fh, chunk_bytes, quoted, source)
    lay = None
    picks: list[int | None] | None = None
    want_ids: set[int] = set()
    checked: dict[int, str | None] = {}  # the identity columns that are ids (not labels), their roles
    rows = 0
    for body, last in rd.blocks():
        check_bytes(body, source, rd.line0, quoted)  # before the header is told, as read_table does
        if lay is None:
            if not last and len(first_lines(body, 2)) < 2:
                rd.unread(body)  # the header is told from two data lines, as the whole-file reader does
                continue
            if not last and header_pending(body, fmt, header, delimiter):
                # pandas' default names: read on to the look-ahead of the whole-file reader
                rd.unread(body, bounded=False)
                continue
            lay = layout(body, fmt, header, delimiter, source)
            if lay is None:  # nothing but blank or comment lines so far
                hash_lines(body, rd.line0, skipped)
                rd.line0 += body.count(b"\n")
                continue
            hash_lines(body[: lay.skip], rd.line0, skipped)  # comments before the header
            rd.line0 += lay.skip_lines
            body = body[lay.skip :]
        if picks is None and first_lines(body, 1, lay.comments):
            try:
                picks = _picks(columns, list(lay.names), lay.header, source)
            except PerfError:  # the whole-file reader reads its table first: a wrong line is said first
                parse_body(body, lay, len(lay.names), set(), source, rd.line0, skipped=Skipped())
                raise
            want_ids = {k for i in set(ids) | labels if i < len(picks) and (k := picks[i]) is not None}
            checked = {k: role for i, role in ids.items() if i < len(picks) and (k := picks[i]) is not None}
        if picks is not None and first_lines(body, 1, lay.comments):
            out, n = _picked(
                body, lay, picks, set(ids) | labels, want_ids, checked, rd.line0, source, skipped, convert
            )
            if meter:
                meter.advance(len(body), n)
            rows += n
            if n:
                yield out
        else:
            hash_lines(body, rd.line0, skipped)  # blank or comment lines only
        rd.line0 += body.count(b"\n")
    if lay is None:
        raise InputFormatError("holds no data", source=source)
    if rows == 0:
        raise InputFormatError("holds a header and no data", source=source)


class _RecordReader:
    """A text file as blocks of whole records: a record cut by the block end is carried into the
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
        from perfeval.io.tables import clean

        first = True
        pending_cr = False
        ahead = b""
        while True:
            raw, ahead = ahead or self.fh.read(self.chunk_bytes), b""
            end = not raw
            if 0 < len(raw) < self.chunk_bytes:
                # a short read: the end of the file when the next one is empty, and then this block
                # is the last whole, its last line too (one block, as the whole-file reader reads it)
                ahead = self.fh.read(self.chunk_bytes)
                end = not ahead
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
            cut = _record_end(data, self.quoted)
            if cut == 0:  # a record longer than a chunk: read on, within a bound
                self._bounded(data)
                self.carry = data
                continue
            self.carry = data[cut:]
            yield data[:cut], False


def _picked(
    body: bytes,
    lay,
    picks: list[int | None],
    ids,
    want_ids: set[int],
    checked: dict[int, str | None],
    line0: int,
    source: str,
    skipped=None,
    convert=None,
) -> tuple[list, int]:
    """The picked columns of a block (identity columns as read, the others as numbers, or as
    ``convert`` makes them) and its rows (the lines skipped as comments added to ``skipped``).
    """
    from perfeval.io.tables import Table, check_text_ids, parse_body

    cols, lines = parse_body(body, lay, len(lay.names), want_ids, source, line0, skipped=skipped)
    out: list = []
    where = Table([], {}, source, lay.header, lines, body if lines is None else None, line0, [], lay.comments)
    check_text_ids(where, lay.names, cols, checked)
    if convert is not None:
        return convert([None if k is None else cols[k] for k in picks], where), (len(cols[0]) if cols else 0)
    for i, k in enumerate(picks):
        if k is None:
            out.append(None)
        elif i in ids:
            out.append(cols[k])
        else:
            out.append(_numbers(cols[k], lay.names[k], where))
    return out, (len(cols[0]) if cols else 0)


def _numbers(col: np.ndarray, name: str, where) -> np.ndarray:
    """A picked column that must be numbers: float64, or an error naming the line of the first that is
    not (``where``: a :class:`perfeval.io.tables.Table` of the block, for its lines).
    """
    from perfeval.io.tables import numeric

    return numeric(where, name, col, "")


def _picks(columns, names: list[str], header: bool, source: str) -> list[int | None]:
    """0-based positions of the wanted columns: ``columns`` is a list of specs (name or 1-based
    position; None: skipped) or a callable ``(names, header) -> positions`` that chooses them once
    the header is known (:func:`perfeval.io.columns.choose`).
    """
    if callable(columns):
        return list(columns(list(names), header))
    return [_position(c, names, source) for c in columns]


def _position(spec: str | None, names: list[str], source: str) -> int | None:
    from perfeval.io.columns import pick

    if spec is None:
        return None
    col = pick(names, spec, "column", source, header=True, default=False)
    return None if col is None else col.index


def _parquet_chunks(fh, columns, source, meter, ids=None, labels=frozenset(), convert=None):
    """The chunks of a Parquet file, a row group each, as :func:`perfeval.io.tables.read_table` reads
    it: the columns by position (two may share a name), a null in a used column an error naming its
    row, the first among the columns (the whole-file reader's order); ``convert`` as for text, with
    a ``where`` whose rows are counted across row groups; a file of no rows an error.  ``ids``:
    ``{index: role}`` of the identity columns.
    """
    ids = {} if ids is None else ids
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError("reading Parquet needs pyarrow: pip install pyarrow") from None
    from perfeval.io.tables import (
        Table,
        empty_parquet,
        first_null,
        null_message,
        one_line,
        parquet_numpy,
    )

    def unreadable(e: Exception) -> InputFormatError:
        return InputFormatError(f"is not a readable Parquet file ({one_line(e)})", source=source)

    try:
        pf = pq.ParquetFile(fh)
        names = pf.schema_arrow.names
    except Exception as e:
        raise unreadable(e) from None
    picks = _picks(columns, names, True, source)
    used = sorted({k for k in picks if k is not None})
    by_name = len(set(names)) == len(names)  # else the whole row group, its columns by position
    row0 = 0
    for rg in range(pf.num_row_groups):
        try:
            t = pf.read_row_group(rg, columns=[names[k] for k in used] if by_name else None)
        except Exception as e:  # a damaged page, a bad encoding: pyarrow raises several types
            raise unreadable(e) from None
        if meter:
            meter.advance(t.nbytes, t.num_rows)
        cols = {k: t.column(names[k]) if by_name else t.column(k) for k in used}
        bad = [
            (first_null(cols[k]), i, k) for i, k in enumerate(picks) if k is not None and cols[k].null_count
        ]
        if bad:
            row, _, k = min(bad)
            raise InputFormatError(null_message(names[k]), source=source, row=row0 + row + 1)
        # the identity columns first, in the file's order, as read whole (a float id is refused as
        # the table is read, before any value is checked)
        order = sorted(
            (i for i, k in enumerate(picks) if k is not None),
            key=lambda i: (i not in ids, picks[i] if i in ids else 0),
        )
        built = {
            i: _parquet_column(
                parquet_numpy(cols[picks[i]]),
                names[picks[i]],
                source,
                i in ids,
                i in labels,
                convert,
                ids.get(i),
            )
            for i in order
        }
        out = [built.get(i) for i in range(len(picks))]
        if convert is not None and t.num_rows:
            where = Table([], {}, source, True, line0=row0, data=[], rows_only=True)
            out = convert(out, where)
        row0 += t.num_rows
        if t.num_rows:
            yield out
    if row0 == 0:  # as read whole: no number to give
        raise InputFormatError(empty_parquet(names), source=source)


def _parquet_column(
    arr: np.ndarray, name: str, source: str, ident: bool, label: bool, convert, role: str | None = None
) -> np.ndarray:
    """A picked column of a row group: an identity (``ident``, named in an error by its ``role``), a
    label as it is (--pos-label codes it), else numbers (``convert``, when given, checks them).
    """
    from perfeval.io.tables import parquet_identity

    if ident:
        return parquet_identity(arr, name, source, role)
    if not label and convert is None and arr.dtype.kind not in "biuf":
        raise InputFormatError(f"the column {name!r} holds {arr.dtype} values, not numbers", source=source)
    return arr


class Progress:
    """Rows read from a file, on standard error: tqdm's bar over the file's bytes (rate, time left)
    with the rows so far beside it, or a count of rows when the size is not known (standard input).
    The bar comes from :mod:`perfeval._progress` (tqdm imported only when a bar is shown).
    """

    def __init__(self, total_bytes: int, source: str):
        from perfeval.base import progress as _progress

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


# -- per-group measures: spill by group, then evaluate part by part -----------------------------------
#: rows of one spilled part evaluated in memory at once: ``evaluate(..., groups=...)`` needs about
#: 150 bytes a row at its peak (the columns, the group codes, the sorts, the tie structure), so
#: 4 million rows stay near 600 MB; a larger part is split again, a larger group is summarised
SPILL_BUDGET_ROWS = 4_000_000
#: at most this many partition files are open while spilling (the soft limit of open files is
#: often 1024); parts that come out too large are split again anyway
MAX_PARTITIONS = 512
#: text bytes per row assumed when the number of partitions is chosen from ``size_hint``: a short
#: line (``1 0.25 7``) is about 10 bytes, so this errs towards more, smaller partitions
_HINT_BYTES_PER_ROW = 12


def _partition_ids(groups: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """A partition 0..k-1 for every row, the same for equal group keys (any key type).

    ``seed`` 0 is the spill's first hash; a part split again uses its depth as the seed, so that
    keys which met in one part at a level scatter at the next.  Text that is a plain integer goes
    where its int64 goes, whatever the seed (a chunk of the same ids may have been read as int64).
    """
    if groups.dtype.kind in "iub":  # a hash of each row's key directly: no sort, no distinct keys
        return _int_hash(groups.astype(np.int64), k, seed)
    keys, inv = np.unique(groups, return_inverse=True)
    if keys.dtype.kind in "US":
        from perfeval.io.grammar import is_plain_int

        texts = keys.tolist()
        plain = [is_plain_int(t) for t in texts]
        if any(plain):
            ints = np.array([int(t) if p else 0 for t, p in zip(texts, plain, strict=False)], dtype=np.int64)
            hi = _int_hash(ints, k, seed)
            part = np.array(
                [int(h) if p else _text_hash(t, k, seed) for t, p, h in zip(texts, plain, hi, strict=False)],
                dtype=np.int64,
            )
            return part[inv.reshape(-1)]
    if keys.dtype.kind == "f":
        part = _int_hash(keys.astype(np.float64).view(np.int64), k, seed)
    else:
        part = np.array([_text_hash(str(key), k, seed) for key in keys.tolist()], dtype=np.int64)
    return part.astype(np.int64)[inv.reshape(-1)]


def _int_hash(x: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Partitions of int64 keys: Fibonacci hashing at seed 0 (the spill's historical layout), a
    splitmix64 finaliser of the key plus the seed beyond (independent of the seed-0 partition).
    """
    h = x.astype(np.uint64)
    if seed == 0:
        return ((h * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(40)) % np.uint64(k)).astype(np.int64)
    with np.errstate(over="ignore"):
        h = h + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        h = h ^ (h >> np.uint64(31))
    return (h % np.uint64(k)).astype(np.int64)


def _text_hash(text: str, k: int, seed: int) -> int:
    import zlib

    crc = zlib.crc32(text.encode("utf-8", "surrogatepass"))
    return crc % k if seed == 0 else int(_int_hash(np.array([crc], dtype=np.int64), k, seed)[0])


# The spill format.  A part file is a sequence of blocks; a block is
#   b"PSB1", rows (uint64), columns (uint8), then per column a header
#   (encoding uint8, original dtype 16 ASCII bytes, base int64, payload bytes uint64, text bytes uint64)
# followed by the column's payload (and, for text, its UTF-8 bytes).  Only the columns evaluated
# are written (target, score, group[, weight]), each as narrow as it is exact: small integers
# (targets, whole weights, group ids minus the block's smallest) in the narrowest unsigned type,
# text ids as their bytes and lengths, scores as raw float64.  Reading a block back gives arrays
# equal bit for bit to those written, in the original dtype.
_MAGIC = b"PSB1"
_BLOCK = struct.Struct("<4sQB")
_COLUMN = struct.Struct("<B16sqQQ")
_RAW, _INT, _ASCII, _UTF8 = range(4)


def _narrowest(span: int) -> np.dtype:
    for dt in (np.uint8, np.uint16, np.uint32):
        if span <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.uint64)


def _encode_column(a: np.ndarray) -> tuple[bytes, list]:
    """(column header, payload buffers) of one column; see the format above."""
    kind = a.dtype.kind
    orig = a.dtype.str.encode("ascii")
    if kind == "U":
        return _encode_text(a, orig)
    if len(a) and kind in "iubf":
        ints = _exact_ints(a)
        if ints is not None:
            base = int(ints.min())
            span = int(ints.max()) - base
            if span < 1 << 63:
                stored = (ints - np.int64(base)).astype(_narrowest(span))
                if stored.itemsize < a.itemsize:
                    return _COLUMN.pack(_INT, orig, base, stored.nbytes, 0), [stored]
    a = np.ascontiguousarray(a)
    return _COLUMN.pack(_RAW, orig, 0, a.nbytes, 0), [a]


def _exact_ints(a: np.ndarray) -> np.ndarray | None:
    """The values as int64 when that is exact (whole floats bit for bit: not -0.0, NaN, 2**63), else None."""
    if a.dtype.kind in "ib" or (a.dtype.kind == "u" and a.dtype.itemsize < 8):
        return a.astype(np.int64)
    if a.dtype.kind == "u":
        return a.astype(np.int64) if int(a.max()) < 1 << 63 else None
    if a.dtype != np.float64:
        return None
    head = a[:64]  # most score columns are not whole: a cheap look first
    if not np.array_equal(head, np.trunc(head)):
        return None
    with np.errstate(invalid="ignore"):
        fin = np.isfinite(a).all() and np.abs(a).max() < 2.0**62
        if not fin:
            return None
        ints = a.astype(np.int64)
    return ints if np.array_equal(ints.astype(np.float64).view(np.int64), a.view(np.int64)) else None


def _encode_text(a: np.ndarray, orig: bytes) -> tuple[bytes, list]:
    n, width = len(a), a.dtype.itemsize // 4
    if n == 0 or width == 0:
        return _COLUMN.pack(_ASCII, orig, 0, 0, 0), []
    cps = np.ascontiguousarray(a).view(np.uint32).reshape(n, width)
    if int(cps.max()) < 128:  # ASCII, the usual id: one byte per character, no Python loop
        nz = cps != 0
        # numpy drops trailing NULs, so a value ends after its last non-NUL character
        lengths = np.where(nz.any(axis=1), width - np.argmax(nz[:, ::-1], axis=1), 0)
        data = cps[np.arange(width) < lengths[:, None]].astype(np.uint8)
        lens = lengths.astype(_narrowest(width))
        return _COLUMN.pack(_ASCII, orig, 0, lens.nbytes, data.nbytes), [lens, data]
    encoded = [t.encode("utf-8", "surrogatepass") for t in a.tolist()]
    lens = np.array([len(e) for e in encoded], dtype=np.uint64)
    lens = lens.astype(_narrowest(int(lens.max())))
    text = b"".join(encoded)
    return _COLUMN.pack(_UTF8, orig, 0, lens.nbytes, len(text)), [lens, text]


def _write_block(fh, arrays: list[np.ndarray]) -> int:
    """Append one block of equal-length columns to ``fh``; returns the bytes written."""
    parts = [_BLOCK.pack(_MAGIC, len(arrays[1]), len(arrays))]
    payloads = []
    for a in arrays:
        head, bufs = _encode_column(a)
        parts.append(head)
        payloads.extend(bufs)
    out = 0
    for p in parts:
        out += fh.write(p)
    for b in payloads:
        out += fh.write(b if isinstance(b, bytes) else memoryview(b).cast("B"))
    return out


def _read_exact(fh, n: int, path: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise OSError(f"spill file {path} is truncated")
    return data


def _read_blocks(path: str) -> Iterator[list[np.ndarray]]:
    """The blocks of a part file, one at a time, as written."""
    with open(path, "rb") as fh:
        while True:
            head = fh.read(_BLOCK.size)
            if not head:
                return
            if len(head) != _BLOCK.size:
                raise OSError(f"spill file {path} is truncated")
            magic, n, ncols = _BLOCK.unpack(head)
            if magic != _MAGIC:
                raise OSError(f"spill file {path} is damaged")
            heads = [_COLUMN.unpack(_read_exact(fh, _COLUMN.size, path)) for _ in range(ncols)]
            yield [_decode_column(fh, n, h[0], h[1], h[2], h[3], h[4], path) for h in heads]


def _decode_column(
    fh, n: int, enc: int, orig: bytes, base: int, nbytes: int, tbytes: int, path: str
) -> np.ndarray:
    dtype = np.dtype(orig.rstrip(b"\0").decode("ascii"))
    if enc == _RAW:
        return np.frombuffer(_read_exact(fh, nbytes, path), dtype=dtype)
    if enc == _INT:
        stored = np.frombuffer(_read_exact(fh, nbytes, path), dtype=_narrowest_for(nbytes, n))
        return (stored.astype(np.int64) + np.int64(base)).astype(dtype)
    lens = (
        np.frombuffer(_read_exact(fh, nbytes, path), dtype=_narrowest_for(nbytes, n))
        if n
        else np.zeros(0, int)
    )
    data = _read_exact(fh, tbytes, path)
    if enc == _UTF8:
        ends = np.cumsum(lens.astype(np.int64)).tolist()
        starts = [0, *ends[:-1]]
        return np.array(
            [data[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts, ends, strict=False)],
            dtype=dtype,
        )
    width = dtype.itemsize // 4
    if n == 0 or width == 0:
        return np.zeros(n, dtype=dtype)
    cps = np.zeros((n, width), dtype=np.uint32)
    cps[np.arange(width) < lens[:, None].astype(np.int64)] = np.frombuffer(data, dtype=np.uint8)
    return cps.view(dtype).reshape(n)


def _narrowest_for(nbytes: int, n: int) -> np.dtype:
    """The unsigned type of a narrowed column: its width is its bytes over its rows."""
    return np.dtype(f"u{nbytes // n}") if n else np.dtype(np.uint8)


class _Part:
    """One spill file: its path, rows, whether all its rows so far share one group key, and the
    rows of its likeliest large group (the commonest key of its first block).
    """

    __slots__ = ("bytes", "cand", "cand_rows", "fh", "key", "path", "rows", "single")

    def __init__(self, path: str):
        self.path, self.rows, self.key, self.single, self.bytes = path, 0, None, True, 0
        self.fh: Any = None
        self.cand, self.cand_rows = None, 0

    def add(self, arrays: list[np.ndarray]) -> None:
        g = arrays[2]
        if self.cand is None:
            keys, counts = np.unique(g, return_counts=True)
            self.cand = keys[np.argmax(counts)]
        self.cand_rows += int(_same_key(g, self.cand).sum())
        if self.single:
            first = g[0]
            if self.key is None:
                self.key = first
            # a plain integer and its text are one group (chunks of one file may differ in type)
            same_type = np.asarray(first).dtype.kind == np.asarray(self.key).dtype.kind
            same_key = first == self.key if same_type else str(first) == str(self.key)
            self.single = bool((g == first).all()) and bool(same_key)
        if self.fh is None:
            # open from the first block to close(): a part gets many blocks, one per chunk
            self.fh = open(self.path, "ab")  # noqa: SIM115
        self.bytes += _write_block(self.fh, arrays)
        self.rows += len(g)

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


def _same_key(g: np.ndarray, key) -> np.ndarray:
    """Rows whose group is ``key``, a plain integer and its text being one key (as the hash has them)."""
    kind = np.asarray(key).dtype.kind
    if (g.dtype.kind in "US") == (kind in "US"):
        return g == key
    if g.dtype.kind in "US":
        return g == str(key)
    from perfeval.io.grammar import is_plain_int

    return g == int(key) if is_plain_int(str(key)) else np.zeros(len(g), dtype=bool)


def _split(arrays: list[np.ndarray], parts: list[_Part], seed: int) -> None:
    """Append each row of a block to the part of its group (the block's order kept inside a part)."""
    k = len(parts)
    if k == 1:
        parts[0].add(arrays)
        return
    part = _partition_ids(arrays[2], k, seed)
    # 16-bit part numbers: numpy's stable argsort is then a radix sort, linear in the rows
    order = np.argsort(part.astype(np.uint16), kind="stable")
    bounds = np.searchsorted(part[order], np.arange(k + 1))
    for i in range(k):
        a, b = bounds[i], bounds[i + 1]
        if b > a:
            sel = order[a:b]
            parts[i].add([c[sel] for c in arrays])


def _chunk_columns(chunk) -> list[np.ndarray]:
    """A chunk's columns as numpy arrays, checked; group ids of a type the spill can store."""
    if len(chunk) not in (3, 4):
        raise InvalidParameterError("each chunk must be (y_true, y_score, groups[, weight])")
    from perfeval.base.checks import identity_groups

    arrays = [np.asarray(a).reshape(-1) for a in chunk]
    n = len(arrays[1])
    if any(len(a) != n for a in arrays):
        raise InvalidParameterError(f"a chunk's columns differ in length: {[len(a) for a in arrays]}")
    g = arrays[2]
    if g.dtype.kind == "O":
        vals = g.tolist()
        if all(isinstance(v, str) for v in vals):
            g = np.array(vals, dtype=str) if vals else np.zeros(0, dtype="U1")
        elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            g = np.array(vals, dtype=np.int64)
        else:
            identity_groups(g)  # None, NaN: the error evaluate() gives
            raise InvalidParameterError("streamed group ids must be all integers or all text within a chunk")
    elif g.dtype.kind == "f":
        g = identity_groups(g)  # whole floats are int64 ids, as in evaluate(); the rest an error
    arrays[2] = g
    return arrays


class _Labels:
    """The distinct target values seen (up to a few hundred), to decide the coding of the targets
    over all rows, as evaluate() does, rather than part by part.
    """

    LIMIT = 256

    def __init__(self):
        self.values: set = set()
        self.many = False

    def update(self, y: np.ndarray) -> None:
        if self.many or not len(y):
            return
        if y.dtype.kind in "biuf" and bool(((y == 0) | (y == 1)).all()):
            self.values.update(v for v, hit in ((0, not y.all()), (1, y.any())) if hit)
            return
        vals = np.unique(y)
        self.values.update(vals.tolist())
        self.many = len(self.values) > self.LIMIT

    def coding(self) -> np.ndarray:
        """The distinct values seen as an array (all of them unless ``many``: then more than
        :attr:`LIMIT`, refused by the binary coding).
        """
        try:
            return np.array(sorted(self.values))
        except TypeError:  # labels of mixed types
            return np.array(list(self.values), dtype=object)


class _Terminated(SystemExit):
    """Raised by the SIGTERM/SIGHUP handler of a spill, so that its directory is removed on the way out."""


@contextlib.contextmanager
def _cleanup_on_signals():
    """SIGTERM and SIGHUP end the process as SIGINT does, through the ``finally`` blocks (which
    remove the spill), with exit status 128 + the signal.  A handler is set only in the main
    thread and only where the signal has its default action: a program's own handler, or SIGHUP
    ignored under nohup, is left alone.  The previous handlers are restored on the way out.
    """
    import signal
    import threading

    old = {}
    if threading.current_thread() is threading.main_thread():

        def handler(signum, frame):
            raise _Terminated(128 + signum)

        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
                old[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _max_partitions() -> int:
    """MAX_PARTITIONS, or half the process's limit of open files if that is lower (each partition
    is an open file while the input is spilled).
    """
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return max(16, min(MAX_PARTITIONS, soft // 2 if soft > 0 else MAX_PARTITIONS))
    except (ImportError, ValueError, OSError):
        return 256


def partitions_for(size_hint: int, budget: int = SPILL_BUDGET_ROWS) -> int:
    """Partitions for an input of ``size_hint`` bytes of text, so that a typical partition holds
    about half of ``budget`` rows and is evaluated without being split again (32 at least,
    :data:`MAX_PARTITIONS` at most).
    """
    rows = size_hint / _HINT_BYTES_PER_ROW
    return int(min(MAX_PARTITIONS, max(32, math.ceil(2 * rows / max(budget, 1)))))


def evaluate_stream_grouped(
    chunks: Iterable[tuple],
    *,
    measures: Any = None,
    threshold: float = 0.5,
    partitions: int | None = None,
    tmpdir: str | None = None,
    clustered: bool = False,
    size_hint: int | None = None,
    budget_rows: int = SPILL_BUDGET_ROWS,
    progress: bool = False,
):
    """Per-group (and binary) measures over chunks ``(y_true, y_score, groups[, sample_weight])`` in
    bounded memory.

    Rows are spilled to ``partitions`` temporary files by a hash of their group, so each file holds
    whole groups, in any input order, in a compact binary form (the four columns, each as narrow
    as is exact: about 13 bytes a row for ``1 0.8472919483 123456789``).  Each file is then
    evaluated in memory when it holds at most ``budget_rows`` rows; a larger one is split again by
    another hash, block by block, until its parts fit or hold a single group.  A single group
    larger than the budget is finished from its own mergeable summaries, built block by block: its
    :class:`~perfeval.summaries.ScoreHistogram` for the binary measures, and how many cases hold
    each (score, relevance) pair for the per-query measures (NDCG, MAP, P@k, MRR, ...) and GAUC.
    Every measure's per-group form reads only these, so memory follows the group's distinct scores
    (24 bytes each; times its distinct grades for the per-query measures), not its rows.

    The numbers equal ``evaluate(..., groups=...)`` on all the rows, bit for bit, when weights sum
    exactly (no weights, whole numbers, dyadic fractions); see the module's description.

    Parameters
    ----------
    chunks : iterable of tuples
        ``(y_true, y_score, groups)`` or ``(y_true, y_score, groups, sample_weight)`` arrays.
    measures, threshold
        As in :func:`perfeval.evaluate`.
    partitions : int, optional
        Files of the first spill; default 32, or from ``size_hint``.
    tmpdir : str, optional
        Where the spill directory is made (default: the system's temporary directory).  It is
        removed at the end, on an error, and on SIGINT, SIGTERM and SIGHUP.
    clustered : bool
        Input sorted or clustered by group: nothing is spilled, each chunk's complete groups are
        evaluated as they arrive.
    size_hint : int, optional
        Bytes of the input when known (a file's size): the number of partitions is chosen so that
        a typical one fits ``budget_rows`` (:func:`partitions_for`).
    budget_rows : int
        Rows evaluated in memory at once (:data:`SPILL_BUDGET_ROWS`).
    progress : bool, default False
        Show the spilled rows evaluated and the groups done so far on standard error (tqdm).

    Examples
    --------
    >>> chunks = [([1, 0, 1], [0.8, 0.3, 0.6], [1, 1, 2]), ([0, 0], [0.4, 0.1], [2, 1])]
    >>> r = evaluate_stream_grouped(chunks, measures=["gauc"])
    >>> r.results["GAUC"].per_group.tolist()
    [1.0, 1.0]
    """
    import tempfile

    from perfeval.engine import DEFAULT_MEASURES, resolve

    specs = resolve(measures or DEFAULT_MEASURES, threshold)
    if clustered:
        keys_all, sizes_all, values, rows = _clustered(chunks, specs, threshold)
        return _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, False, None)
    if budget_rows < 1:
        raise InvalidParameterError(f"budget_rows must be at least 1, got {budget_rows}")
    if partitions is None:
        partitions = partitions_for(size_hint, budget_rows) if size_hint else 32
    partitions = max(1, min(int(partitions), _max_partitions()))
    out = _Results(specs)
    with _cleanup_on_signals(), tempfile.TemporaryDirectory(prefix="perfeval-spill-", dir=tmpdir) as tmp:
        parts = [_Part(os.path.join(tmp, f"part{i:04d}.bin")) for i in range(partitions)]
        rows = 0
        weighted = False
        labels = _Labels()
        try:
            for chunk in chunks:
                arrays = _chunk_columns(chunk)
                weighted = weighted or len(arrays) == 4
                rows += len(arrays[1])
                if len(arrays[1]):
                    labels.update(arrays[0])
                    _split(arrays, parts, 0)
        finally:
            for p in parts:
                p.close()
        out.spilled = out.live = out.peak = sum(p.bytes for p in parts)
        _check_request(specs, weighted, labels)
        job = _Job(specs, threshold, budget_rows, labels, weighted, out)
        from perfeval.base import progress as _progress

        with _progress.bar(progress, sum(p.rows for p in parts), "groups", "rows", scale=True) as meter:
            for p in parts:
                if p.rows:
                    job.run(p, 1)
                    meter.set_postfix_str(f"{sum(len(k) for k in out.keys):,} groups done")
                    meter.update(p.rows)
    report = _grouped_report(out.keys, out.sizes, out.values, specs, threshold, rows, weighted, partitions)
    # what the spill cost on disk: the first spill, and the most on disk at once (with re-splits)
    report.spill = {"bytes": out.spilled, "peak_bytes": out.peak}
    return report


def _check_request(specs, weighted: bool, labels: _Labels) -> None:
    """The errors evaluate() gives for the whole data, said once before any part is evaluated
    (each part alone might pass: one holding only 1s looks like 0/1 targets).
    """
    from perfeval.base.checks import LabelWords, binary_targets

    ranking = [s for s in specs if s.measure.kind != "binary"]
    if ranking and weighted:
        raise InvalidParameterError(
            f"`weights` apply to the binary measures only, not to {ranking[0].label} "
            "(a per-query measure); evaluate them without weights"
        )
    binary = [s for s in specs if s.measure.kind == "binary"]
    if binary:
        # the stream takes no pos_label: the targets come coded
        words = LabelWords(pos_label=False, whole=not labels.many)
        binary_targets(labels.coding(), binary[0].label, words=words)


class _Results:
    """Per-group keys, sizes and values, part by part, and the spill's size."""

    def __init__(self, specs):
        self.keys: list[np.ndarray] = []
        self.sizes: list[np.ndarray] = []
        self.values: dict[str, list[np.ndarray]] = {s.label: [] for s in specs}
        self.spilled = 0  # bytes of the first spill
        self.live = 0  # bytes of the spill files that exist now
        self.peak = 0  # the most that existed at once

    def add(self, keys: np.ndarray, sizes: np.ndarray, values: dict[str, np.ndarray]) -> None:
        self.keys.append(keys)
        self.sizes.append(np.asarray(sizes, dtype=np.float64))
        for label, v in values.items():
            self.values[label].append(np.asarray(v, dtype=np.float64))


class _Job:
    """Evaluates spilled parts within the row budget (see evaluate_stream_grouped)."""

    #: a part that a new hash did not divide is split again at most this often before its rows
    #: are taken as they are (two distinct keys colliding at every level: in practice never)
    MAX_DEPTH = 8

    def __init__(self, specs, threshold, budget, labels, weighted, out: _Results):
        self.specs, self.threshold, self.budget = specs, threshold, budget
        self.labels, self.weighted, self.out = labels, weighted, out

    def run(self, part: _Part, depth: int) -> None:
        try:
            if part.rows <= self.budget or (depth > self.MAX_DEPTH and not part.single):
                self._in_memory(part.path)
            elif part.single:
                self._one_group(part)
            else:
                self._resplit(part, depth)
        finally:
            self._remove(part)  # the disk of an evaluated part is free for the next split

    def _remove(self, part: _Part) -> None:
        if os.path.exists(part.path):
            os.remove(part.path)
            self.out.live -= part.bytes

    def _resplit(self, part: _Part, depth: int) -> None:
        """Split a part too large for memory into parts of about half the budget, reading it block
        by block; the parent is removed before the children are evaluated.
        """
        # a group past the budget among others goes to a part of its own at once: hashed with the
        # others it would be copied again at every level until no other group shared its part
        heavy = part.cand if part.cand_rows > self.budget else None
        rest = part.rows - (part.cand_rows if heavy is not None else 0)
        k = int(min(_max_partitions(), max(4, math.ceil(2 * rest / self.budget))))
        children = [_Part(f"{part.path[:-4]}.{i}.bin") for i in range(k + (heavy is not None))]
        try:
            for arrays in _read_blocks(part.path):
                if heavy is None:
                    _split(arrays, children, depth)
                    continue
                mine = _same_key(arrays[2], heavy)
                if mine.any():
                    children[k].add([c[mine] for c in arrays])
                if not mine.all():
                    _split([c[~mine] for c in arrays], children[:k], depth)
        finally:
            for c in children:
                c.close()
        self.out.live += sum(c.bytes for c in children)
        self.out.peak = max(self.out.peak, self.out.live)
        self._remove(part)
        for c in children:
            if c.rows:
                self.run(c, depth + 1)
            else:
                self._remove(c)

    def _in_memory(self, path: str) -> None:
        import warnings

        from perfeval.base.checks import cases
        from perfeval.engine import finish

        blocks = list(_read_blocks(path))
        cols = [np.concatenate([b[k] for b in blocks]) for k in range(len(blocks[0]))]
        del blocks
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = finish(
                cases(cols[0], cols[1], cols[2], cols[3] if len(cols) == 4 else None),
                self.specs,
                threshold=self.threshold,
            )
        self.out.add(
            np.asarray(r.groups), r.group_sizes, {s.label: _per_group(r, s.label) for s in self.specs}
        )

    def _one_group(self, part: _Part) -> None:
        """A single group over the budget, finished from its summary read block by block: a
        ScoreHistogram for the binary measures, counts per (score, relevance) for the per-query
        measures and GAUC.  Every per-group kernel reads only these (perfeval.measures._data,
        perfeval.summaries.ranking.TieTable), so the values are those of evaluate() on the rows.
        Memory: the group's distinct scores (and grades), not its rows.
        """
        from perfeval.base.checks import binary_coding, check_relevance, check_scores, check_weights, floats

        binary = [s for s in self.specs if s.measure.kind == "binary"]
        ranking = [s for s in self.specs if s.measure.kind != "binary"]
        hb: list[ScoreHistogram] = []
        pairs = _PairCounts()
        size: Any = np.zeros(1)
        key = None
        for arrays in _read_blocks(part.path):
            y, s, g = arrays[0], floats(arrays[1], "y_score"), arrays[2]
            check_scores(s)
            w = arrays[3] if len(arrays) == 4 else None
            if key is None or g.dtype.kind in "US":
                key = g[:1]  # text if any block is text: as the concatenation of the blocks would be
            if w is not None:
                w = floats(w, "weights")
                check_weights(w)
                keep = w > 0
                # the group's size as evaluate() sums it: one sequential sum in row order, carried on
                size = np.bincount(
                    np.zeros(int(keep.sum()) + 1, dtype=np.intp), weights=np.concatenate([size, w[keep]])
                )
            else:
                size = size + len(s)
            h = None
            if binary:
                # the coding of all the targets was checked (_check_request): a block's own coding
                # agrees with it (a block of 1s alone reads as 0/1, and 1 is positive in both)
                h = ScoreHistogram.from_checked(np.asarray(binary_coding(y)) == 1, s, w)
                hb.append(h)
                if len(hb) >= 8:
                    hb = [ScoreHistogram.merge_all(hb)]
            if ranking:
                rel = floats(y, "y_true")
                check_relevance(rel)
                if h is not None and w is None and bool(((rel == 0) | (rel == 1)).all()):
                    pairs.add_histogram(h)  # 0/1 grades: the block's histogram is its pair counts
                else:
                    pairs.add(s, rel)
        h_bin = ScoreHistogram.merge_all(hb) if binary else None
        if h_bin is not None and self.weighted and h_bin.scores.size == 0:
            return  # every row of weight 0: no case at all, so no group (as in evaluate)
        values = {}
        if ranking:
            from perfeval.summaries.ranking import TieTable

            table = TieTable.from_counts(0, *pairs.result())
            for sp in ranking:
                values[sp.label] = np.asarray(sp.measure.function()(table, **sp.kwargs), dtype=np.float64)
        for sp in binary:
            assert h_bin is not None
            values[sp.label] = self._binary_from_summary(sp, h_bin)
        keys = np.asarray(key)
        if keys.dtype.kind == "f":
            keys = keys.astype(np.int64)
        self.out.add(keys, size, values)

    def _binary_from_summary(self, spec, h: ScoreHistogram) -> np.ndarray:
        """The value evaluate() gives a group, from the group's summary: its per-group kernel (they
        read only the group's histogram), or with weights where a kernel declines them, the measure
        over the summary as evaluate() computes it group by group.
        """
        from perfeval.engine import safe

        fast = spec.measure.per_group_function()
        if fast is not None:
            vals = fast(_SummaryGroup(h, self.weighted), **spec.kwargs)
            if vals is not None:
                return np.asarray(vals, dtype=np.float64)
        return np.array([safe(spec, h)], dtype=np.float64)


class _PairCounts:
    """How many cases have each (score, relevance) pair, merged block by block: one sorted run of
    distinct scores with their counts per grade (grades are few: 0/1, or 0..4), built and merged
    as a ScoreHistogram is (plain sorts, linear merges of sorted runs).
    """

    def __init__(self):
        self.levels: dict[float, list[tuple[np.ndarray, np.ndarray]]] = {}

    def add(self, score: np.ndarray, rel: np.ndarray) -> None:
        from perfeval.summaries.histogram import runs

        for level in _levels(rel):
            part = score if len(rel) and bool((rel == level).all()) else score[rel == level]
            parts = self.levels.setdefault(level, [])
            parts.append(runs(np.sort(part)))
            if len(parts) >= 8:
                self.levels[level] = [_merge_runs(parts)]

    def add_histogram(self, h: ScoreHistogram) -> None:
        """A block of 0/1 grades, from its unweighted histogram: grade 1 the positives, 0 the negatives."""
        for level, counts in ((0.0, h.neg), (1.0, h.pos)):
            has = counts > 0
            if has.any():
                parts = self.levels.setdefault(level, [])
                parts.append((h.scores[has], counts[has]))
                if len(parts) >= 8:
                    self.levels[level] = [_merge_runs(parts)]

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.levels:
            return np.zeros(0), np.zeros(0), np.zeros(0)
        merged = {lv: _merge_runs(p) for lv, p in self.levels.items()}
        score = np.concatenate([m[0] for m in merged.values()])
        grade = np.concatenate([np.full(len(m[0]), lv) for lv, m in merged.items()])
        count = np.concatenate([m[1] for m in merged.values()])
        return score, grade, count


def _levels(rel: np.ndarray) -> list[float]:
    """The distinct grades of a block: a bincount when they are small whole numbers (the usual)."""
    if not len(rel):
        return []
    top = float(rel.max())
    if top <= 255 and bool((rel == np.floor(rel)).all()):
        present = np.flatnonzero(np.bincount(rel.astype(np.int64), minlength=int(top) + 1))
        return [float(v) for v in present]
    return [float(v) for v in np.unique(rel)]


def _merge_runs(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted runs of (distinct score, count) merged into one: a stable sort of a few sorted runs
    (linear in numpy), equal scores added up (whole counts: exact).
    """
    if len(parts) == 1:
        return parts[0]
    sc = np.concatenate([p[0] for p in parts])
    ct = np.concatenate([p[1] for p in parts])
    order = np.argsort(sc, kind="stable")
    sc, ct = sc[order], ct[order]
    new = np.ones(len(sc), dtype=bool)
    new[1:] = sc[1:] != sc[:-1]
    heads = np.flatnonzero(new)
    return sc[heads], np.add.reduceat(ct, heads) if len(heads) else ct[:0]


def _per_group(report, label: str) -> np.ndarray:
    vals = report.results[label].per_group
    assert vals is not None  # a grouped report has per-group values
    return vals


class _SummaryGroup:
    """One group as the per-group kernels of perfeval.measures._data see it, built from the
    group's ScoreHistogram instead of its rows: its threshold counts and its histogram are all
    that the kernels read.
    """

    def __init__(self, h: ScoreHistogram, weighted: bool):
        self.G = 1
        self.weighted = weighted
        self._ranking = None
        self._hist = (h.scores, h.pos, h.neg, np.array([0, len(h.scores)]))
        self._h = h

    def counts(self, threshold: float):
        return tuple(np.array([c]) for c in self._h.counts_at(threshold))


def _clustered(chunks: Iterable[tuple], specs, threshold: float):
    """Input whose groups are contiguous: evaluate each chunk's complete groups as they arrive,
    carrying the last (maybe unfinished) group into the next chunk.  Memory: one chunk and one
    group.  A group seen again after it ended is an error (the input is not clustered).
    """
    import warnings

    from perfeval.base.checks import cases
    from perfeval.engine import finish

    done: set = set()
    carry: list[np.ndarray] | None = None
    keys_all: list[np.ndarray] = []
    sizes_all: list[np.ndarray] = []
    values: dict[str, list[np.ndarray]] = {s.label: [] for s in specs}
    rows = 0

    def flush(cols: list[np.ndarray]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = finish(
                cases(cols[0], cols[1], cols[2], cols[3] if len(cols) == 4 else None),
                specs,
                threshold=threshold,
            )
        ks = np.asarray(r.groups)
        again = [k for k in ks.tolist() if k in done]
        if again:
            from perfeval.exceptions import InvalidDataError

            raise InvalidDataError(
                f"the input is not clustered by group: group {again[0]!r} appears again after other groups; "
                "drop clustered=True (--clustered) to spill the rows by group instead"
            )
        done.update(ks.tolist())
        keys_all.append(ks)
        sizes_all.append(r.group_sizes)
        for s in specs:
            values[s.label].append(_per_group(r, s.label))

    for chunk in chunks:
        cols = [np.asarray(a) for a in chunk]
        rows += len(cols[1])
        if carry is not None:
            cols = [np.concatenate([a, b]) for a, b in zip(carry, cols, strict=False)]
        if len(cols[1]) == 0:
            continue
        g = cols[2]
        last = g[-1]
        tail = len(g)
        while tail > 0 and g[tail - 1] == last:
            tail -= 1
        if tail > 0:
            flush([a[:tail] for a in cols])
        carry = [a[tail:] for a in cols]
    if carry is not None and len(carry[1]):
        flush(carry)
    return keys_all, sizes_all, values, rows


def _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, weighted, partitions):
    from perfeval.engine import grouped_report

    if not keys_all:
        raise InvalidParameterError("no rows to evaluate")
    # the pieces are released as they are joined: with millions of groups each copy is large
    keys = np.concatenate(keys_all)
    keys_all.clear()
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    sizes = np.concatenate(sizes_all)[order]
    sizes_all.clear()
    joined = {}
    for s in specs:
        joined[s.label] = np.concatenate(values[s.label])[order]
        values[s.label].clear()
    del order
    return grouped_report(
        specs,
        keys,
        sizes,
        joined,
        threshold=threshold,
        rows=rows,
        weighted=weighted,
        backend="stream",
        spill_partitions=partitions,
    )
