"""Columns of numbers and text stored exactly and compactly: one codec for the spill of
:func:`perfeval.backends.stream.evaluate_stream_grouped` (blocks of a binary file) and the rows a
:class:`perfeval.Metric` keeps (:mod:`perfeval.backends.metric_state`).

Both keep a column in the narrowest type it is read back from bit for bit, by one rule of what is
exact (:func:`same_bits`, :func:`exact_ints`): whole numbers (0/1 or graded targets, whole weights,
integer ids) in one, two or four bytes, float32 scores in four, anything else as it is.  A spill
block writes integers as their distance from the block's smallest (:func:`encode_column`); a
Metric's columns are arrays narrowed in place (:func:`narrow`), its text and group ids as codes
into their distinct values (:class:`perfeval.backends.metric_state.Column`).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import numpy as np

__all__ = ["encode_column", "exact_ints", "narrow", "read_blocks", "same_bits", "write_block"]


# -- what is exact -----------------------------------------------------------------------------------
def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one dtype hold the same bits (floats: -0.0 is not 0.0, NaN is NaN)."""
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    u = np.dtype(f"u{a.dtype.itemsize}")
    return bool(np.array_equal(a.view(u), b.view(u)))


def exact_ints(a: np.ndarray) -> np.ndarray | None:
    """The values as int64 when that is exact, else None: integers and booleans (uint64 past 2**63:
    None), whole floats of any width bit for bit (not -0.0, NaN, +-inf, nor past 2**62).
    """
    k = a.dtype.kind
    if k in "ib" or (k == "u" and a.dtype.itemsize < 8):
        return a.astype(np.int64)
    if k == "u":
        return a.astype(np.int64) if int(a.max()) < 1 << 63 else None
    if k != "f":
        return None
    head = a[:64]  # most score columns are not whole: a cheap look first
    if not np.array_equal(head, np.trunc(head)):
        return None
    with np.errstate(invalid="ignore"):
        fin = np.isfinite(a).all() and np.abs(a).max() < 2.0**62
        if not fin:
            return None
        ints = a.astype(np.int64)
    return ints if same_bits(ints.astype(a.dtype), a) else None


def narrow(a: np.ndarray, *, whole: bool = True) -> np.ndarray:
    """``a`` (numbers or booleans) as a new array of the narrowest type it goes back from bit for
    bit (``.astype(a.dtype)``); ``whole``: try one- and two-byte integers for floats too (targets,
    weights: :func:`exact_ints`), not only float32 (scores).  Always a copy: a caller's buffer is
    never kept.
    """
    a = np.asarray(a)
    k = a.dtype.kind
    if k == "b" or a.dtype.itemsize == 1 or not len(a):
        return a.copy()
    if k in "iu":
        lo, hi = int(a.min()), int(a.max())
        # unsigned stays unsigned: uint8 joined with uint64 is uint64 (int8 with it: float64)
        for t in (np.uint8, np.uint16, np.uint32) if k == "u" else (np.int8, np.int16, np.int32):
            info = np.iinfo(t)
            if np.dtype(t).itemsize >= a.dtype.itemsize:
                break
            if info.min <= lo and hi <= info.max:
                return a.astype(t)
        return a.copy()
    if k == "f":
        ints = exact_ints(a) if whole else None
        if ints is not None:
            lo, hi = int(ints.min()), int(ints.max())
            for small in (np.dtype(np.int8), np.dtype(np.int16)):
                bounds = np.iinfo(small)
                if small.itemsize < a.dtype.itemsize and bounds.min <= lo and hi <= bounds.max:
                    return ints.astype(small)
        if np.dtype(np.float32).itemsize < a.dtype.itemsize:
            with np.errstate(over="ignore"):
                c = a.astype(np.float32)
            if same_bits(c.astype(a.dtype), a):
                return c
    return a.copy()


# -- the spill's blocks --------------------------------------------------------------------------------
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


def encode_column(a: np.ndarray) -> tuple[bytes, list]:
    """(column header, payload buffers) of one column; see the format above."""
    kind = a.dtype.kind
    orig = a.dtype.str.encode("ascii")
    if kind == "U":
        return _encode_text(a, orig)
    if len(a) and kind in "iubf":
        ints = exact_ints(a)
        if ints is not None:
            base = int(ints.min())
            span = int(ints.max()) - base
            if span < 1 << 63:
                stored = (ints - np.int64(base)).astype(_narrowest(span))
                if stored.itemsize < a.itemsize:
                    return _COLUMN.pack(_INT, orig, base, stored.nbytes, 0), [stored]
    a = np.ascontiguousarray(a)
    return _COLUMN.pack(_RAW, orig, 0, a.nbytes, 0), [a]


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


def write_block(fh, arrays: list[np.ndarray]) -> int:
    """Append one block of equal-length columns to ``fh``; returns the bytes written."""
    parts = [_BLOCK.pack(_MAGIC, len(arrays[1]), len(arrays))]
    payloads = []
    for a in arrays:
        head, bufs = encode_column(a)
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


def read_blocks(path: str) -> Iterator[list[np.ndarray]]:
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
