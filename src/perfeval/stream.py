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
temporary files by a hash of their group (any key type, any input order), then evaluates the files
one at a time; memory is one chunk, then one partition.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Iterable, Iterator

import numpy as np

from perfeval.exceptions import InputFormatError, InvalidParameterError, MissingDependencyError
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
        from perfeval.evaluation import _binary_targets, _check_scores, _floats, to_numpy

        y = to_numpy(y_true, "y_true")
        s = _floats(to_numpy(y_score, "y_score"), "y_score")
        _check_scores(s)
        self._parts.append(ScoreHistogram.from_arrays(_binary_targets(y, "streaming evaluation"), s, sample_weight))
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
    from perfeval.evaluation import DEFAULT_MEASURES, _resolve, binary_report

    specs = _resolve(measures or DEFAULT_MEASURES, threshold)
    other = [s.label for s in specs if s.measure.kind != "binary"]
    if other:
        raise InvalidParameterError(
            f"{other[0]} is a per-query or per-group measure: stream it with evaluate_stream_grouped() "
            "and a group column")
    summ = Summarizer()
    for chunk in chunks:
        if len(chunk) not in (2, 3):
            raise InvalidParameterError("each chunk must be (y_true, y_score) or (y_true, y_score, weight)")
        summ.update(*chunk)
    return binary_report(specs, summ.summary(), rows=summ.rows, threshold=threshold, weighted=False)


def iter_columns(path: str | None, columns: Any, fmt: str = "auto", header: bool | None = None,
                 chunk_bytes: int = CHUNK_BYTES, progress: bool = False, *, ids: Iterable[int] = (),
                 delimiter: str | None = None) -> Iterator[list[np.ndarray | None]]:
    """Yield the chosen columns (name or 1-based position; None: skipped) chunk by chunk.

    ``columns`` may instead be a callable ``(names, header) -> [0-based position or None]``, called
    once the header (or its absence) is known, so that columns are chosen by the one rule of
    :mod:`perfeval.io.columns` whatever the source (a file, standard input, Parquet).  The entries
    of the list at the indices ``ids`` are identity columns (groups): int64 when every value of the
    chunk is a plain integer, else the text as written; the others must be numbers (float64).

    The bytes are read as :func:`perfeval.io.tables.read_table` reads them (compressed input, a
    byte-order mark, any line end; the same grammar, the same compiled fast path), in blocks of
    ``chunk_bytes`` cut at a record's end; Parquet is read row group by row group (pyarrow).
    Errors name the source and the line, counted across chunks.  An input with no data is an error.
    """
    from perfeval.io.tables import BOM, guess_format, open_bytes

    source = path if path and path != "-" else "standard input"
    fh = open_bytes(path, source)
    try:
        head = fh.peek(65536)[:65536] if hasattr(fh, "peek") else b""
        if fmt == "auto":
            fmt = guess_format(path if path != "-" else None, head.lstrip(BOM))
        total = os.fstat(fh.fileno()).st_size if path and path != "-" and os.path.isfile(path) else 0
        meter = Progress(total, source) if progress else None
        if fmt == "parquet":
            yield from _parquet_chunks(fh, columns, source, meter, set(ids))
        elif fmt == "jsonl":
            raise InvalidParameterError("JSON lines are read whole; streaming reads text, CSV, TSV and Parquet")
        else:
            yield from _text_chunks(fh, columns, fmt, header, chunk_bytes, source, meter, set(ids), delimiter)
        if meter:
            meter.done()
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def column_names(path: str, fmt: str = "auto", header: bool | None = None) -> list[str]:
    """The columns of a text table: its header's names, or column1, column2, ... without one."""
    from perfeval.io.tables import clean, guess_format, layout, open_bytes

    fh = open_bytes(path, path)
    try:
        head = clean(fh.read(1 << 16), True)
    finally:
        fh.close()
    if fmt == "auto":
        fmt = guess_format(path, head)
    cut = head.rfind(b"\n") + 1 or len(head)
    lay = layout(head[:cut], fmt, header, None, path)
    return [] if lay is None else list(lay.names)


#: a record longer than this many chunks is refused rather than buffered without bound
MAX_RECORD_CHUNKS = 16


def _record_end(data: bytes, quoted: bool) -> int:
    """The end of the last whole record in ``data`` (0 when there is none): after the last line end,
    or, when fields may be quoted, after the last line end outside quotes."""
    cut = data.rfind(b"\n") + 1
    if not quoted or b'"' not in data:
        return cut
    while cut > 0 and data.count(b'"', 0, cut) % 2:
        cut = data.rfind(b"\n", 0, cut - 1) + 1
    return cut


def _text_chunks(fh, columns, fmt, header, chunk_bytes, source, meter, ids, delimiter):
    from perfeval.io.tables import clean, first_lines, layout, parse_body

    carry = b""
    lay = None
    picks: list[int | None] | None = None
    line0 = 0  # lines before the current block
    first = True
    rows = 0
    pending_cr = False
    while True:
        block = fh.read(chunk_bytes)
        if pending_cr and block.startswith(b"\n"):
            block = block[1:]  # the \n of a \r\n cut between two blocks
        pending_cr = block.endswith(b"\r")
        block = clean(block, first)
        first = False
        data = carry + block
        if not data:
            break
        if block:
            cut = _record_end(data, fmt != "text" or delimiter is not None)
            if cut == 0:  # a record longer than a chunk: read on, within a bound
                if len(data) > MAX_RECORD_CHUNKS * chunk_bytes:
                    raise InputFormatError(f"a record longer than {len(data) >> 20} MB (no line end found)",
                                           source=source, line=line0 + 1)
                carry = data
                continue
            body, carry = data[:cut], data[cut:]
        else:
            body, carry = data, b""
        if lay is None and block and len(first_lines(body, 2)) < 2:
            carry = body + carry  # the header is told from two data lines, as the whole-file reader does
            if len(carry) > MAX_RECORD_CHUNKS * chunk_bytes:
                raise InputFormatError(f"a record longer than {len(carry) >> 20} MB (no line end found)",
                                       source=source, line=line0 + 1)
            continue
        if lay is None:
            lay = layout(body, fmt, header, delimiter, source)
            if lay is None:
                line0 += body.count(b"\n")
                if not block:
                    break
                continue
            picks = _picks(columns, list(lay.names), lay.header, source)
            line0 += lay.skip_lines
            body = body[lay.skip:]
            want_ids = {picks[i] for i in ids if i < len(picks) and picks[i] is not None}
        if first_lines(body, 1):
            cols, lines = parse_body(body, lay, len(lay.names), want_ids, source, line0)
            n = len(cols[0]) if cols else 0
            out = []
            for i, k in enumerate(picks):
                if k is None:
                    out.append(None)
                elif i in ids:
                    out.append(cols[k])
                else:
                    out.append(_numbers(cols[k], lay.names[k], body, lines, line0, source))
            if meter:
                meter.advance(len(body), n)
            rows += n
            if n:
                yield out
        line0 += body.count(b"\n")
        if not block:
            break
    if lay is None:
        raise InputFormatError("holds no data", source=source)
    if rows == 0:
        raise InputFormatError("holds a header and no data", source=source)


def _numbers(col: np.ndarray, name: str, body: bytes, lines, line0: int, source: str) -> np.ndarray:
    """A picked column that must be numbers: float64, or an error naming the line of the first that is not."""
    from perfeval.io.tables import Table, numeric

    return numeric(Table([], {}, source, False, lines, body if lines is None else None, line0, []), name, col, "")


def _picks(columns, names: list[str], header: bool, source: str) -> list[int | None]:
    """0-based positions of the wanted columns: ``columns`` is a list of specs (name or 1-based
    position; None: skipped) or a callable ``(names, header) -> positions`` that chooses them once
    the header is known (:func:`perfeval.io.columns.choose`)."""
    if callable(columns):
        return list(columns(list(names), header))
    return [_position(c, names, source) for c in columns]


def _position(spec: str | None, names: list[str], source: str) -> int | None:
    from perfeval.io.columns import pick

    if spec is None:
        return None
    col = pick(names, spec, "column", source, header=True, default=False)
    return None if col is None else col.index


def _parquet_chunks(fh, columns, source, meter, ids=frozenset()):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError("reading Parquet needs pyarrow: pip install pyarrow") from None
    from perfeval.io.tables import _one_line, parquet_identity

    try:
        pf = pq.ParquetFile(fh)
    except Exception as e:
        raise InputFormatError(f"is not a readable Parquet file ({_one_line(e)})", source=source) from None
    names = pf.schema_arrow.names
    picks = _picks(columns, names, True, source)
    wanted = sorted({names[k] for k in picks if k is not None})
    for rg in range(pf.num_row_groups):
        t = pf.read_row_group(rg, columns=wanted)
        if meter:
            meter.advance(t.nbytes, t.num_rows)
        out = []
        for i, k in enumerate(picks):
            if k is None:
                out.append(None)
                continue
            col = t.column(names[k])
            if col.null_count:
                raise InputFormatError(f"the column {names[k]!r} holds null values (row group {rg + 1})", source=source)
            arr = col.to_numpy()
            if i in ids:
                arr = parquet_identity(arr, names[k], source)
            elif arr.dtype.kind not in "biuf":
                raise InputFormatError(f"the column {names[k]!r} holds {arr.dtype} values, not numbers", source=source)
            out.append(arr)
        yield out


class Progress:
    """A one-line progress report on stderr (rows, MB/s, time left), for terminals only."""

    def __init__(self, total_bytes: int, source: str):
        self.total, self.source = total_bytes, source
        self.bytes = self.rows = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def advance(self, nbytes: int, rows: int) -> None:
        self.bytes += nbytes
        self.rows += rows
        now = time.perf_counter()
        if now - self.last < 0.2:
            return
        self.last = now
        el = max(now - self.t0, 1e-9)
        rate = self.bytes / el
        left = f", {max(self.total - self.bytes, 0) / rate:.0f} s left" if self.total and rate > 0 else ""
        sys.stderr.write(f"\r{self.source}: {self.rows:,} rows, {rate / 1e6:.0f} MB/s{left}   ")
        sys.stderr.flush()

    def done(self) -> None:
        if self.last:
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()


# -- per-group measures: spill by group, then evaluate partition by partition ------------------------
def _partition_ids(groups: np.ndarray, k: int) -> np.ndarray:
    """A partition 0..k-1 for every row, the same for equal group keys (any key type)."""
    keys, inv = np.unique(groups, return_inverse=True)
    if keys.dtype.kind in "US":  # text ids: a plain integer goes where its int64 goes (another chunk's)
        from perfeval.io.grammar import is_plain_int

        texts = keys.tolist()
        plain = [is_plain_int(t) for t in texts]
        if any(plain):
            ints = np.array([int(t) if p else 0 for t, p in zip(texts, plain)], dtype=np.int64)
            hi = (ints.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(40)) % np.uint64(k)
            import zlib

            part = np.array([int(h) if p else zlib.crc32(t.encode()) % k for t, p, h in zip(texts, plain, hi)],
                            dtype=np.uint64)
            return part.astype(np.int64)[inv.reshape(-1)]
    if keys.dtype.kind in "iub":
        h = keys.astype(np.int64).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        part = (h >> np.uint64(40)) % np.uint64(k)
    elif keys.dtype.kind == "f":
        bits = keys.astype(np.float64).view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        part = (bits >> np.uint64(40)) % np.uint64(k)
    else:
        import zlib

        part = np.array([zlib.crc32(str(key).encode()) % k for key in keys.tolist()], dtype=np.uint64)
    return part.astype(np.int64)[inv.reshape(-1)]


def _clustered(chunks: Iterable[tuple], specs, threshold: float):
    """Input whose groups are contiguous: evaluate each chunk's complete groups as they arrive,
    carrying the last (maybe unfinished) group into the next chunk.  Memory: one chunk and one
    group.  A group seen again after it ended is an error (the input is not clustered)."""
    import warnings

    from perfeval.evaluation import evaluate

    done: set = set()
    carry: list[np.ndarray] | None = None
    keys_all, sizes_all, values, rows = [], [], {s.label: [] for s in specs}, 0

    def flush(cols: list[np.ndarray]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = evaluate(cols[0], cols[1], groups=cols[2], weights=cols[3] if len(cols) == 4 else None,
                         measures=specs, threshold=threshold)
        ks = np.asarray(r.groups)
        again = [k for k in ks.tolist() if k in done]
        if again:
            from perfeval.exceptions import InvalidDataError

            raise InvalidDataError(
                f"the input is not clustered by group: group {again[0]!r} appears again after other groups; "
                "drop clustered=True (--clustered) to spill the rows by group instead")
        done.update(ks.tolist())
        keys_all.append(ks)
        sizes_all.append(r.group_sizes)
        for s in specs:
            values[s.label].append(r.results[s.label].per_group)

    for chunk in chunks:
        cols = [np.asarray(a) for a in chunk]
        rows += len(cols[1])
        if carry is not None:
            cols = [np.concatenate([a, b]) for a, b in zip(carry, cols)]
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


def evaluate_stream_grouped(chunks: Iterable[tuple], *, measures: Any = None, threshold: float = 0.5,
                            partitions: int = 32, tmpdir: str | None = None, clustered: bool = False):
    """Per-group (and binary) measures over chunks ``(y_true, y_score, groups[, sample_weight])`` in
    bounded memory.

    Rows are spilled to ``partitions`` temporary files by a hash of their group, so each file holds
    whole groups, in any input order; each file is then evaluated in memory.  Memory: one chunk,
    then one partition (about the data / ``partitions``).  The numbers equal
    ``evaluate(..., groups=...)`` on all the rows.

    With ``clustered=True`` (input sorted or clustered by group) nothing is spilled: each chunk's
    complete groups are evaluated as they arrive.
    """
    import pickle
    import tempfile

    from perfeval.evaluation import DEFAULT_MEASURES, _resolve, evaluate

    specs = _resolve(measures or DEFAULT_MEASURES, threshold)
    if clustered:
        keys_all, sizes_all, values, rows = _clustered(chunks, specs, threshold)
        return _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, False, None)
    with tempfile.TemporaryDirectory(prefix="perfeval-spill-", dir=tmpdir) as tmp:
        files = [open(os.path.join(tmp, f"part{i:04d}.pkl"), "wb") for i in range(partitions)]
        rows = 0
        weighted = False
        try:
            for chunk in chunks:
                if len(chunk) not in (3, 4):
                    raise InvalidParameterError("each chunk must be (y_true, y_score, groups[, weight])")
                arrays = [np.asarray(a) for a in chunk]
                weighted = weighted or len(arrays) == 4
                n = len(arrays[1])
                if any(len(a) != n for a in arrays):
                    raise InvalidParameterError(f"a chunk's columns differ in length: {[len(a) for a in arrays]}")
                rows += n
                part = _partition_ids(arrays[2], partitions)
                order = np.argsort(part, kind="stable")
                bounds = np.searchsorted(part[order], np.arange(partitions + 1))
                for i in range(partitions):
                    sel = order[bounds[i]:bounds[i + 1]]
                    if len(sel):
                        pickle.dump([a[sel] for a in arrays], files[i], protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            for f in files:
                f.close()
        keys_all, sizes_all, values = [], [], {s.label: [] for s in specs}
        import warnings

        for i in range(partitions):
            path = os.path.join(tmp, f"part{i:04d}.pkl")
            pieces = []
            with open(path, "rb") as fh:
                while True:
                    try:
                        pieces.append(pickle.load(fh))
                    except EOFError:
                        break
            if not pieces:
                continue
            cols = [np.concatenate([p[k] for p in pieces]) for k in range(len(pieces[0]))]
            del pieces
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = evaluate(cols[0], cols[1], groups=cols[2], weights=cols[3] if len(cols) == 4 else None,
                             measures=specs, threshold=threshold)
            keys_all.append(np.asarray(r.groups))
            sizes_all.append(r.group_sizes)
            for s in specs:
                values[s.label].append(r.results[s.label].per_group)
    return _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, weighted, partitions)


def _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, weighted, partitions):
    from perfeval.evaluation import _warn_undefined
    from perfeval.report import MeasureResult, Report

    if not keys_all:
        raise InvalidParameterError("no rows to evaluate")
    keys = np.concatenate(keys_all)
    order = np.argsort(keys, kind="stable")
    keys, sizes = keys[order], np.concatenate(sizes_all)[order]
    results = {s.label: MeasureResult.of(s, np.concatenate(values[s.label])[order], sizes, keys, True) for s in specs}
    _warn_undefined(results, specs)
    return Report(results, keys, {"threshold": threshold, "rows": rows, "groups": int(len(keys)), "weighted": weighted,
                                  "partitions": None, "spill_partitions": partitions})
