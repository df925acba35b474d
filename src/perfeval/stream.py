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
temporary files by a hash of their group (any key type, any input order; compact binary columns,
smaller than the text), then evaluates the files one at a time in at most ``ROW_BUDGET`` rows: a
file over it is split again, and a group over it is finished from its own summary.  The spill is
removed however the evaluation ends (an error, Ctrl-C, SIGTERM, SIGHUP).
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
#: rows evaluated in memory at once (evaluate() peaks near 150 bytes a row: about 600 MB)
ROW_BUDGET = 4_000_000
#: input bytes per spill partition when the input's size is known (about 750,000 text rows, whose
#: evaluation peaks near 150 MB, beside the per-group results gathered so far)
BYTES_PER_PARTITION = 16 << 20
#: at most this many spill files are open at once (and at most half the process's file limit)
MAX_PARTITIONS = 512


def _max_partitions() -> int:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return max(32, min(MAX_PARTITIONS, soft // 2 if soft > 0 else MAX_PARTITIONS))
    except (ImportError, ValueError, OSError):
        return 256

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _partition_ids(groups: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """A partition 0..k-1 for every row, the same for equal group keys (any key type); another
    `seed` gives an independent split (used to split a partition that came out too large)."""
    keys, inv = np.unique(groups, return_inverse=True)
    mix = np.uint64((seed * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF)

    def spread(bits: np.ndarray) -> np.ndarray:
        return (((bits ^ mix) * _GOLDEN) >> np.uint64(40)) % np.uint64(k)

    if keys.dtype.kind in "US":  # text ids: a plain integer goes where its int64 goes (another chunk's)
        import zlib

        from perfeval.io.grammar import is_plain_int

        texts = keys.tolist()
        plain = [is_plain_int(t) for t in texts]
        ints = np.array([int(t) if p else 0 for t, p in zip(texts, plain)], dtype=np.int64)
        hi = spread(ints.astype(np.uint64))
        part = np.array([int(h) if p else zlib.crc32(t.encode("utf-8", "surrogatepass"), seed) % k
                         for t, p, h in zip(texts, plain, hi)], dtype=np.uint64)
    elif keys.dtype.kind in "iub":
        part = spread(keys.astype(np.int64).astype(np.uint64))
    elif keys.dtype.kind == "f":
        part = spread(keys.astype(np.float64).view(np.uint64))
    else:
        import zlib

        part = np.array([zlib.crc32(str(key).encode("utf-8", "surrogatepass"), seed) % k for key in keys.tolist()],
                        dtype=np.uint64)
    return part.astype(np.int64)[inv.reshape(-1)]


# The spill format: a file of blocks; a block is a list of numpy arrays, each written as its dtype
# (length-prefixed text), its length in bytes and its raw bytes.  Columns are narrowed where that
# is exact: a float column of whole numbers (targets, weights of 1) is stored as small integers
# from a base, an integer column likewise, text as UTF-8 bytes and lengths; scores stay float64,
# bit for bit.  No pickles: a spill file is data, read back as data.
def _put(fh, a: np.ndarray) -> int:
    a = np.ascontiguousarray(a)
    dt = a.dtype.str.encode()
    fh.write(len(dt).to_bytes(1, "little") + dt + a.nbytes.to_bytes(8, "little"))
    fh.write(a.tobytes() if a.nbytes < 4096 else memoryview(a.reshape(-1).view(np.uint8)))  # type: ignore[arg-type]
    return 9 + len(dt) + a.nbytes


def _get(fh) -> np.ndarray | None:
    n = fh.read(1)
    if not n:
        return None
    dt = np.dtype(fh.read(n[0]).decode())
    size = int.from_bytes(fh.read(8), "little")
    return np.frombuffer(fh.read(size), dtype=dt)


def _narrow(v: np.ndarray) -> tuple[int, np.ndarray]:
    """(base, v - base in the narrowest unsigned type) of whole numbers (int64 range)."""
    if len(v) == 0:
        return 0, np.zeros(0, np.uint8)
    lo, hi = int(v.min()), int(v.max())
    span = hi - lo
    if span >= 2 ** 63:  # v - lo would overflow int64: the bits as they are
        return 0, v.astype(np.int64).view(np.uint64)
    for t in (np.uint8, np.uint16, np.uint32, np.uint64):
        if span <= np.iinfo(t).max:
            break
    return lo, (v.astype(np.int64) - np.int64(lo)).astype(t)


def _encode(a: np.ndarray) -> list[np.ndarray]:
    """One column as a list of arrays: a header [kind, base] and the data."""
    kind = a.dtype.kind
    if kind == "f" and a.dtype == np.float64 and len(a):
        whole = np.isfinite(a).all() and np.abs(a).max() <= 2.0 ** 53 and (a == np.floor(a)).all()
        if whole and not np.signbit(a[a == 0]).any():  # -0.0 would come back as 0.0
            base, v = _narrow(a.astype(np.int64))
            return [np.array([1, base], np.int64), v]
        return [np.array([0, 0], np.int64), a]
    if kind in "iu" and a.dtype.itemsize <= 8 and (kind == "i" or a.dtype.itemsize < 8):
        base, v = _narrow(a.astype(np.int64))
        return [np.array([2, base], np.int64), np.frombuffer(a.dtype.str.encode(), np.uint8), v]
    if kind == "U":
        try:
            b = a.astype("S")  # ASCII: one byte a character
            text = 0
        except UnicodeEncodeError:
            b = np.char.encode(a, "utf-8", "surrogatepass")
            text = 1
        if b.dtype.itemsize == 0 or len(b) == 0:
            return [np.array([3, text], np.int64), np.zeros(len(a), np.uint32), np.zeros(0, np.uint8)]
        lengths = np.char.str_len(b).astype(np.uint32)
        mat = b.view(np.uint8).reshape(len(b), b.dtype.itemsize)
        blob = mat[np.arange(b.dtype.itemsize) < lengths[:, None]]
        top = int(lengths.max())
        small = np.uint8 if top < 256 else np.uint16 if top < 65536 else np.uint32
        return [np.array([3, text], np.int64), lengths.astype(small), blob]
    if kind in "fb" or (kind == "u" and a.dtype.itemsize == 8):
        return [np.array([4, 0], np.int64), a]
    raise InvalidParameterError(f"cannot spill a column of {a.dtype} (numbers or text only)")


def _decode(parts: list[np.ndarray]) -> np.ndarray:
    kind, base = (int(x) for x in parts[0])
    if kind == 0 or kind == 4:
        return parts[1]
    if kind == 1:
        return (parts[1].astype(np.int64) + np.int64(base)).astype(np.float64)
    if kind == 2:
        return (parts[2].astype(np.int64) + np.int64(base)).astype(np.dtype(parts[1].tobytes().decode()))
    lengths, blob = parts[1].astype(np.int64), parts[2]
    n = len(lengths)
    width = int(lengths.max()) if n else 0
    if width == 0:
        return np.zeros(n, "U1")
    mat = np.zeros((n, width), np.uint8)
    mat[np.arange(width) < lengths[:, None]] = blob
    b = mat.view(f"S{width}").reshape(n)
    return b.astype(f"U{width}") if base == 0 else np.char.decode(b, "utf-8", "surrogatepass")


_PARTS = {0: 2, 1: 2, 2: 3, 3: 3, 4: 2}


class _Spill:
    """One spill file: blocks of columns appended, then read back block by block."""

    def __init__(self, path: str):
        self.path = path
        self.fh: Any = open(path, "wb", buffering=1 << 16)
        self.rows = 0
        self.bytes = 0
        self.ncols = 0

    def append(self, cols: list[np.ndarray]) -> None:
        self.ncols = len(cols)
        self.rows += len(cols[0])
        for c in cols:
            for part in _encode(c):
                self.bytes += _put(self.fh, part)

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None

    def blocks(self) -> Iterator[list[np.ndarray]]:
        self.close()
        with open(self.path, "rb", buffering=1 << 16) as fh:
            while True:
                cols = []
                for _ in range(self.ncols):
                    head = _get(fh)
                    if head is None:
                        return
                    parts = [head]
                    for _ in range(_PARTS[int(head[0])] - 1):
                        part = _get(fh)
                        if part is None:
                            raise InputFormatError("a spill file ended inside a block (was it changed while "
                                                   "it was read?)", source=self.path)
                        parts.append(part)
                    cols.append(_decode(parts))
                yield cols

    def remove(self) -> None:
        self.close()
        try:
            os.remove(self.path)
        except OSError:
            pass


def _keys_alike(blocks: list[np.ndarray]) -> list[np.ndarray]:
    """Group keys of several blocks in one type: text when any block's are text (a plain integer's
    text is its digits, as its int64 shows), as concatenating them would."""
    if any(b.dtype.kind in "US" for b in blocks) and not all(b.dtype.kind in "US" for b in blocks):
        return [b if b.dtype.kind in "US" else b.astype(str) for b in blocks]
    return blocks


class _Grouped:
    """The per-group values as partitions are finished: keys, sizes and one array per measure."""

    def __init__(self, specs, threshold: float):
        self.specs, self.threshold = specs, threshold
        self.keys: list[np.ndarray] = []
        self.sizes: list[np.ndarray] = []
        self.values: dict[str, list[np.ndarray]] = {s.label: [] for s in specs}

    def in_memory(self, cols: list[np.ndarray]) -> None:
        import warnings

        from perfeval.evaluation import evaluate

        if len(cols[1]) == 0:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = evaluate(cols[0], cols[1], groups=cols[2], weights=cols[3] if len(cols) == 4 else None,
                         measures=self.specs, threshold=self.threshold)
        if r.groups is None or len(r.groups) == 0:
            return
        self.keys.append(np.asarray(r.groups))
        self.sizes.append(np.asarray(r.group_sizes))
        for s in self.specs:
            self.values[s.label].append(np.asarray(r.results[s.label].per_group))

    def one_group(self, key, blocks) -> None:
        """A group too large for memory, from its own mergeable summary built block by block: the
        ScoreHistogram gives every binary measure and the group's AUC (GAUC).  The values are those
        of evaluating the group alone, which the grouped kernels match to a few units in the last
        place (tests/test_registry_properties.py)."""
        from perfeval.evaluation import _binary_targets, _check_scores, _resolve, _safe

        hists: list[ScoreHistogram] = []
        labels: set = set()
        size = 0.0
        for cols in blocks:
            y, sc = cols[0], cols[1]
            w = cols[3] if len(cols) == 4 else None
            _check_scores(sc)
            if w is not None:
                keep = w > 0
                y, sc, w = y[keep], sc[keep], w[keep]
            labels.update(np.unique(y).tolist())
            if len(labels) > 3:
                break
            hists.append(ScoreHistogram.from_arrays((y == 1).astype(np.float64), sc, w))
            size += float(len(sc)) if w is None else float(w.sum())
            if len(hists) >= 8:
                hists = [ScoreHistogram.merge_all(hists)]
        _binary_targets(np.array(sorted(labels), dtype=np.float64), self.specs[0].label)  # 0/1, -1/1: else the error
        if size == 0:  # every row of the group had weight 0: no group at all, as in memory
            return
        h = ScoreHistogram.merge_all(hists)
        roc = _resolve(["roc"], self.threshold)[0]
        self.keys.append(np.array([key]))
        self.sizes.append(np.array([size]))
        for s in self.specs:
            self.values[s.label].append(np.array([_safe(roc if s.measure.kind == "grouped" else s, h)]))


def _key_counts(part: _Spill) -> tuple[np.ndarray, np.ndarray]:
    """The distinct group keys of a spill file and their row counts, read block by block."""
    keys: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for cols in part.blocks():
        k, c = np.unique(cols[2], return_counts=True)
        keys.append(k)
        counts.append(c)
        if len(keys) >= 16:
            keys, counts = _merge_counts(keys, counts)
    return tuple(x[0] for x in _merge_counts(keys, counts)) if keys else (np.zeros(0), np.zeros(0, np.int64))


def _merge_counts(keys: list[np.ndarray], counts: list[np.ndarray]) -> tuple[list, list]:
    k, inv = np.unique(np.concatenate(_keys_alike(keys)), return_inverse=True)
    return [k], [np.bincount(inv.reshape(-1), weights=np.concatenate(counts), minlength=len(k)).astype(np.int64)]


def _finish(part: _Spill, out: _Grouped, tmp: str, budget: int, depth: int = 0) -> None:
    """Evaluate the groups of one spill file in memory bounded by `budget` rows: whole when it
    fits; else each group over half the budget from its own summary (or alone in memory, for
    per-query measures), and the rest re-split by another hash until it fits."""
    if part.rows <= budget:
        blocks = list(part.blocks())
        part.remove()
        if blocks:
            cols = [np.concatenate(_keys_alike([b[i] for b in blocks]) if i == 2 else [b[i] for b in blocks])
                    for i in range(part.ncols)]
            del blocks
            out.in_memory(cols)
        return
    keys, counts = _key_counts(part)
    big = keys[counts > budget // 2]
    summary_ok = all(s.measure.kind in ("binary", "grouped") for s in out.specs)
    for key in big.tolist():
        if summary_ok:
            out.one_group(key, ([c[i][m] for i in range(len(c))] for c in part.blocks()
                                for m in [_keys_alike([c[2], np.array([key])])[0] == key] if m.any()))
        else:  # per-query measures need the group's ranking: the group alone, in memory
            rows = [[c[i][m] for i in range(len(c))] for c in part.blocks()
                    for m in [_keys_alike([c[2], np.array([key])])[0] == key] if m.any()]
            out.in_memory([np.concatenate([r[i] for r in rows]) for i in range(part.ncols)])
            del rows
    rest = part.rows - int(counts[counts > budget // 2].sum())
    if rest == 0:
        part.remove()
        return
    k = int(min(_max_partitions(), max(2, -(-2 * rest // budget))))
    subs = [_Spill(f"{part.path}.{depth + 1}-{i}") for i in range(k)]
    try:
        for cols in part.blocks():
            if len(big):
                keep = ~np.isin(_keys_alike([cols[2], big])[0], big)
                cols = [c[keep] for c in cols]
            ids = _partition_ids(cols[2], k, seed=depth + 1)
            order = np.argsort(ids, kind="stable")
            bounds = np.searchsorted(ids[order], np.arange(k + 1))
            for i in range(k):
                sel = order[bounds[i]:bounds[i + 1]]
                if len(sel):
                    subs[i].append([c[sel] for c in cols])
        part.remove()
        for sub in subs:
            sub.close()
            if sub.rows:
                _finish(sub, out, tmp, budget, depth + 1)
            sub.remove()
    finally:
        for sub in subs:
            sub.remove()


class _Terminated(SystemExit):
    """SIGTERM or SIGHUP while spilling: unwind (the spill directory is removed) and exit 128 + signal."""


def _on_signals():
    """Handlers that turn SIGTERM and SIGHUP into an exception while spilling, as Ctrl-C already is,
    so that the spill is removed whatever ends the process (but SIGKILL); the old ones are restored."""
    import contextlib
    import signal
    import threading

    @contextlib.contextmanager
    def handlers():
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        old = {}

        def stop(signum, frame):
            raise _Terminated(128 + signum)

        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None:
                old[sig] = signal.signal(sig, stop)
        try:
            yield
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)

    return handlers()


def _clustered(chunks: Iterable[tuple], specs, threshold: float):
    """Input whose groups are contiguous: evaluate each chunk's complete groups as they arrive,
    carrying the last (maybe unfinished) group into the next chunk.  Memory: one chunk and one
    group.  A group seen again after it ended is an error (the input is not clustered)."""
    import warnings

    from perfeval.evaluation import evaluate

    done: set = set()
    carry: list[np.ndarray] | None = None
    keys_all: list[np.ndarray] = []
    sizes_all: list[np.ndarray] = []
    values: dict[str, list[np.ndarray]] = {s.label: [] for s in specs}
    rows = 0

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
            values[s.label].append(np.asarray(r.results[s.label].per_group))

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
                            partitions: int | None = None, tmpdir: str | None = None, clustered: bool = False,
                            size_hint: int | None = None, row_budget: int = ROW_BUDGET):
    """Per-group (and binary) measures over chunks ``(y_true, y_score, groups[, sample_weight])`` in
    bounded memory.

    Rows are spilled to temporary files by a hash of their group, so each file holds whole groups,
    in any input order; each file is then evaluated in memory.  The spill holds only the columns,
    in a compact binary form (whole numbers narrowed, scores float64 bit for bit), and is removed
    however the evaluation ends (an error, Ctrl-C, SIGTERM, SIGHUP).

    Memory is one chunk, then at most ``row_budget`` rows: a file over the budget is split again
    by another hash; a group over half the budget is evaluated from its own mergeable summary (its
    ScoreHistogram, built block by block: every binary measure and GAUC), never held whole.  With
    per-query measures (NDCG, MAP, ...) such a group is held alone in memory, the one case where
    memory follows the largest group.

    The numbers equal ``evaluate(..., groups=...)`` on all the rows, bit for bit, except for a
    group over half the budget, whose values are those of the group evaluated alone (equal to the
    grouped kernels' to a few units in the last place for the sums: RMS, CXE, BRIER, ...).

    Parameters
    ----------
    partitions : int, optional
        Spill files (default: one per ``BYTES_PER_PARTITION`` of ``size_hint``, 32 to 512).
    size_hint : int, optional
        The input's size in bytes, when known: chooses the partitions.
    row_budget : int
        Rows evaluated in memory at once.

    With ``clustered=True`` (input sorted or clustered by group) nothing is spilled: each chunk's
    complete groups are evaluated as they arrive.
    """
    import tempfile

    from perfeval.evaluation import DEFAULT_MEASURES, _resolve

    specs = _resolve(measures or DEFAULT_MEASURES, threshold)
    if row_budget < 2:
        raise InvalidParameterError(f"row_budget must be at least 2, got {row_budget}")
    if clustered:
        keys_all, sizes_all, values, rows = _clustered(chunks, specs, threshold)
        return _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, False, None)
    if partitions is None:
        partitions = int(min(_max_partitions(), max(32, (size_hint or 0) // BYTES_PER_PARTITION)))
    if not 1 <= partitions <= 4096:
        raise InvalidParameterError(f"partitions must be 1 to 4096, got {partitions}")
    other = [sp for sp in specs if sp.measure.kind != "binary"]
    with _on_signals(), tempfile.TemporaryDirectory(prefix="perfeval-spill-", dir=tmpdir) as tmp:
        files = [_Spill(os.path.join(tmp, f"part{i:04d}")) for i in range(partitions)]
        rows = 0
        weighted = False
        try:
            for chunk in chunks:
                if len(chunk) not in (3, 4):
                    raise InvalidParameterError("each chunk must be (y_true, y_score, groups[, weight])")
                arrays = [np.asarray(a) for a in chunk]
                if arrays[2].dtype.kind == "O":
                    arrays[2] = np.asarray(arrays[2].tolist())
                weighted = weighted or len(arrays) == 4
                if weighted and other:
                    raise InvalidParameterError(
                        f"`weights` apply to the binary measures only, not to {other[0].label} (a per-query "
                        "measure); evaluate them without weights")
                n = len(arrays[1])
                if any(len(a) != n for a in arrays):
                    raise InvalidParameterError(f"a chunk's columns differ in length: {[len(a) for a in arrays]}")
                if n == 0:
                    continue
                rows += n
                part = _partition_ids(arrays[2], partitions)
                order = np.argsort(part, kind="stable")
                bounds = np.searchsorted(part[order], np.arange(partitions + 1))
                for i in range(partitions):
                    sel = order[bounds[i]:bounds[i + 1]]
                    if len(sel):
                        files[i].append([a[sel] for a in arrays])
        finally:
            for f in files:
                f.close()
        spilled = sum(f.bytes for f in files)
        out = _Grouped(specs, threshold)
        for f in files:
            if f.rows:
                _finish(f, out, tmp, row_budget)
            f.remove()
    report = _grouped_report(out.keys, out.sizes, out.values, specs, threshold, rows, weighted, partitions)
    report.params["spill_bytes"] = spilled
    return report


def _grouped_report(keys_all, sizes_all, values, specs, threshold, rows, weighted, partitions):
    from perfeval.evaluation import _warn_undefined
    from perfeval.report import MeasureResult, Report

    if not keys_all:
        raise InvalidParameterError("no rows to evaluate")
    # the pieces are released as they are joined: with millions of groups each copy is large
    keys = np.concatenate(keys_all)
    keys_all.clear()
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    sizes = np.concatenate(sizes_all)[order]
    sizes_all.clear()
    results = {}
    for s in specs:
        per = np.concatenate(values[s.label])[order]
        values[s.label].clear()
        results[s.label] = MeasureResult.of(s, per, sizes, keys, True)
    del order
    _warn_undefined(results, specs)
    return Report(results, keys, {"threshold": threshold, "rows": rows, "groups": int(len(keys)), "weighted": weighted,
                                  "partitions": None, "spill_partitions": partitions})
