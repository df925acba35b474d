"""Reading PERF's input formats: ``target prediction`` pairs, ``block target prediction`` triples,
or targets and predictions from two files (``-files``).

PERF reads with ``scanf``: a stream of numbers taken two (or three) at a time, line ends irrelevant,
each stored as a 32-bit float rounded once from its decimal text.  The tokenising and the rounding
happen in the compiled kernel (:func:`perfeval._native.parse`).  Deviations from the original, each
deliberate (docs/compatibility.md): a comma separates like white space, a line whose first non-blank
character is ``#`` is skipped, and a token that is not a number, a NaN, or a block id that is not an
integer is an error naming the source, line and field instead of a crash or an endless loop.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from perfeval import _native
from perfeval.exceptions import InputFormatError

STDIN = "standard input"

_ROLES = {
    "ff": ("target", "prediction"),
    "iff": ("block id", "target", "prediction"),
    "f": ("value",),
    "if": ("block id", "target"),
}


def _open(path: str):
    try:
        return open(path, "rb")
    except IsADirectoryError:
        raise InputFormatError("is a directory, not a data file", source=path) from None
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None


def read_columns(path: str | None, pattern: str, source: str, role: str | None = None) -> list:
    """Read a whole file (standard input when ``path`` is None) and split it into columns.

    The kernel reads the file descriptor itself (two threads on a regular file), so a large input is
    never copied through Python.
    """
    fh = sys.stdin.buffer if path is None else _open(path)
    try:
        try:
            fd = fh.fileno()
        except (OSError, ValueError, AttributeError):  # not a real file (tests, embedding)
            res = _native.parse(fh.read(), pattern)
        else:
            try:
                res = _native.parse_fd(fd, pattern)
            except IsADirectoryError:
                raise InputFormatError("is a directory, not a data file", source=source) from None
            except OSError as e:
                raise InputFormatError(f"cannot be read ({e.strerror})", source=source) from None
    finally:
        if path is not None:
            fh.close()
    return _columns(res, pattern, source, role)


def parse_bytes(data: bytes, pattern: str, source: str) -> list:
    """Columns of PERF-format text held in memory (float32; int32 block ids)."""
    return _columns(_native.parse(data, pattern), pattern, source, None)


def _columns(res: tuple, pattern: str, source: str, role: str | None) -> list:
    if res[0] == "ok":
        return res[1]
    _, why, line, field, token = res
    roles = _ROLES.get(pattern, ())
    tok = token.decode("utf-8", errors="replace")
    what = role or "value"
    # which column the bad token was meant for: count tokens before it is not available, so name the
    # kind of value expected
    if why == "nan":
        msg = f"{tok!r} is NaN; a {role or 'target or prediction'} must be a number (NaN cannot be ranked)"
    elif why == "integer":
        msg = f"expected an integer block id, found {tok!r}"
    elif why == "range":
        msg = f"block id {tok} does not fit in a 32-bit integer"
    else:
        expected = " or ".join(dict.fromkeys(r for r in roles if r != "block id")) if not role else what
        msg = f"expected a number ({expected}), found {tok!r}"
    raise InputFormatError(msg, source=source, line=line, field=field)


@dataclass
class Cases:
    """The cases as read, in input order (float32 columns; block ids as int32)."""

    targets: _native.Buf
    preds: _native.Buf
    blocks: _native.Buf | None
    longer: str | None = None  # "true" / "predicted": which -files input had more values

    @property
    def n(self) -> int:
        return len(self.preds) // 4


def read_cases(infile: str | None, predfile: str | None, blocks: bool) -> Cases:
    """Read the cases from standard input, ``-file`` or ``-files`` (in block mode or not)."""
    if predfile is None:
        source = infile if infile is not None else STDIN
        if blocks:
            ids, t, p = read_columns(infile, "iff", source)
            return Cases(t, p, ids)
        t, p = read_columns(infile, "ff", source)
        return Cases(t, p, None)
    assert infile is not None
    if blocks:
        ids, t = read_columns(infile, "if", infile)
    else:
        ids = None
        (t,) = read_columns(infile, "f", infile, role="target")
    (p,) = read_columns(predfile, "f", predfile, role="prediction")
    nt, np_ = len(t) // 4, len(p) // 4
    n = min(nt, np_)
    longer = "true" if nt > n else "predicted" if np_ > n else None
    if longer:
        t, p = _copy_prefix(t, 4 * n), _copy_prefix(p, 4 * n)
        if ids is not None:
            ids = _copy_prefix(ids, 4 * n)
    return Cases(t, p, ids, longer)


def _copy_prefix(buf, nbytes: int):
    """The first ``nbytes`` of a column, as a new writable buffer."""
    return _native.copy(memoryview(buf)[:nbytes])
