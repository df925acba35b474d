"""Scoring competition submissions against a hidden answer key.

A submission gives predictions by example id (and block id); the key gives the true targets by id.
Scoring joins them, checks the submission (every error listed, with its file and line, up to a
limit; a submission with any error is rejected whole; no message ever shows a true target, nor more
of a submission line than its offending token), then
runs the classic ``perf`` engine once per criterion on the joined cases, as the KDD Cup did, so each
score is what ``perf`` prints on the joined file.
"""

from __future__ import annotations

import csv
import errno
import io
import math
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from perfeval import _native as K
from perfeval.base.text import place, token
from perfeval.classic.reader import parse_bytes
from perfeval.contest.engine import classic_cases, run_classic
from perfeval.contest.tasks import Task
from perfeval.engine.report import plain_why, why_not_finite
from perfeval.exceptions import InputFormatError, InvalidParameterError

MAX_ERRORS = 20  # errors listed per submission: at the next one, reading stops
MAX_LINE = 1 << 16  # a longer submission line is an error, read past in bounded memory
# A submission is read whole (the compiled fast path) when it is at most this many bytes a key row
# (plus a MiB); a larger one, or one the fast path declines, is read line by line, so junk costs
# time, not memory.
FAST_BYTES_PER_ROW = 100
# A submission larger than this many bytes a key row (plus 64 MiB) is refused unread: no valid one
# is anywhere near it, and a sparse or growing file must not hold the scorer for hours.
MAX_BYTES_PER_ROW = 1024
# A submission of more lines than this many a key row (plus EXTRA_LINES) is read no further: blank
# and comment lines cost a step each, and a valid submission has about one line a key row.
MAX_LINES_PER_ROW = 2
EXTRA_LINES = 100_000


@dataclass
class Key:
    """The answer key in key order: example ids, target (or label) texts, block ids (block tasks)."""

    source: str
    ids: list[str]
    targets: list[str]
    blocks: list[str] | None = None
    plain: tuple | None = None  # (text, id starts, id ends) when the key file is plain: the fast join
    plain_blocks: tuple | None = None  # (text, block id starts, ends) likewise
    inode: tuple | None = None  # (device, inode) of the key file: a submission may never be it
    header: list[str] | None = None  # the names on the key's header line, when it has one
    header_line: int | None = None  # and its line
    codes: tuple | None = None  # a key of labels: (classes, each row's class code), coded once

    @cached_property
    def index(self) -> dict[str, int]:
        """Row of each example id."""
        return {ident: k for k, ident in enumerate(self.ids)}

    def has(self, ident: str) -> bool:
        """`ident` is an example id of the key (one look-up does not build the index)."""
        index = self.__dict__.get("index")
        return ident in index if index is not None else ident in self.ids


@dataclass
class Scores:
    """One submission checked and scored: its scores by criterion (full precision: the doubles the
    criteria give; a value that is not a number has its reason in ``why``), or the errors that
    reject it (``ok`` is false: nothing is scored).  What every door of the scorer gives
    (:func:`perfeval.contest.score_submission`).
    """

    submission: str
    scores: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # the first MAX_ERRORS, then "... more" (see _Errors)
    rows: int = 0  # the lines of data read (all of them, or up to where reading stopped)
    n_errors: int = 0  # all the errors found, listed or not
    capped: bool = False  # reading stopped at the error cap: more errors may follow
    stopped: bool = False  # reading stopped before the end (the error cap, the line cap, a separator)
    why: dict[str, str] = field(default_factory=dict)  # why a score is not a number, by criterion
    #: a task with a usage column: each board's scores (``scores`` and ``why`` are the public one's)
    boards: dict[str, dict[str, float]] | None = None
    #: refused unscored (over the task's daily limit a team): ``errors`` says why
    refused: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors


class _Errors:
    """A submission's errors: the first `cap` are kept (each one line); reading stops at the next
    one (`capped`), so a file of junk costs bounded memory and time whatever its size.  Errors
    found after the reading (ids with no prediction) are counted past the cap.
    """

    def __init__(self, cap: int = MAX_ERRORS):
        self.cap = cap
        self.kept: list[str] = []
        self.count = 0
        #: lines whose id is one of the key's written as a float (``1.0`` for ``1``): said once,
        #: in the error kept at `floated_at`
        self.floated = 0
        self.floated_at: int | None = None
        #: lines refused for a character some readers take for a line end (their ids are not read)
        self.broken = 0
        #: the line at which reading stopped (the error cap, or too many lines), else None
        self.stopped_at: int | None = None
        self.capped = False

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.kept) < self.cap:
            self.kept.append(message)

    @property
    def full(self) -> bool:
        return self.count > self.cap

    def listed(self) -> ErrorList:
        more = self.count - len(self.kept)
        if self.capped:
            tail = [f"... more than {self.cap} errors: reading stopped at line {self.stopped_at:,}"]
        else:
            tail = [f"... and {more} more error{'s' * (more > 1)}"] if more else []
        return ErrorList(self.kept + tail, self.count, self.capped, self.stopped_at is not None)


class ErrorList(list):
    """The listed errors of a submission (a list of lines); ``total`` counts them all, listed or not;
    ``capped``: reading stopped at the error cap, so there may be more; ``stopped``: reading stopped
    before the file's end (at the error cap, or another limit that says so in its line).
    """

    def __init__(self, lines: list[str], total: int, capped: bool = False, stopped: bool = False):
        super().__init__(lines)
        self.total = total
        self.capped = capped
        self.stopped = stopped or capped


BOM = b"\xef\xbb\xbf"


def _no_bom(raw: bytes) -> bytes:
    """The file without a UTF-8 byte-order mark (Notepad's, PowerShell's): not part of the first id."""
    return raw[3:] if raw.startswith(BOM) else raw


def _read(path: str) -> bytes:
    """The answer key (the organiser's own file: trusted, read whole)."""
    try:
        with open(path, "rb") as fh:
            return _no_bom(fh.read())
    except IsADirectoryError:
        raise InputFormatError("is a directory, not a file", source=path) from None
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None


def submission_files(arg: str, task: Task, follow_links: bool = False) -> list[str]:
    """The files of one submission as given on the command line: the file itself, or for a
    ranked-lists task a directory holding ``<list>.txt`` for each list, or the list files joined by
    commas (only when no file or directory has the whole name: an upload named ``x,secret.env`` is
    that one file, never ``x`` and ``secret.env``).
    """
    if not task.lists or os.path.lexists(arg):
        if task.lists and os.path.isdir(arg) or (follow_links and os.path.isdir(arg)):
            return [os.path.join(arg, f"{name}.txt") for name in task.lists]
        return [arg]
    parts = arg.split(",")
    if any(not p for p in parts):
        raise InputFormatError("names an empty file between its commas", source=arg)
    return parts


def _refuse_link(path: str, what: str = "a regular file") -> None:
    raise InputFormatError(
        f"is a symbolic link; a submission is {what} (--follow-links accepts links)", source=path
    )


def _open_without_links(path: str, flags: int) -> int:
    """Open `path` with no symbolic link in any of its components: each directory is opened without
    following a link, inside the one before (so ``linkdir/.``, ``linkdir/..`` and a trailing slash
    are resolved by the kernel as they are read, and nothing can be swapped in between), then the
    file inside the last one, without following a link either.
    """
    o_path = getattr(os, "O_PATH", 0)  # Linux: a directory is walked through without reading it
    walk = (o_path or os.O_RDONLY | os.O_DIRECTORY) | os.O_NOFOLLOW
    names = [x for x in path.split("/") if x] or (["."] if path else [""])
    trailing = path.endswith("/") and len(path) > 1  # the last component must be a directory
    try:
        fd = os.open("/" if path.startswith("/") else ".", (o_path or os.O_RDONLY) | os.O_DIRECTORY)
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None
    walked = "/" if path.startswith("/") else ""
    try:
        for name in names[:-1]:
            walked = os.path.join(walked, name)
            try:
                inner = os.open(name, walk, dir_fd=fd)
            except OSError as e:
                if e.errno == errno.ELOOP:  # no O_PATH: O_NOFOLLOW refuses the link itself
                    _refuse_link_on_path(path, walked)
                raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None
            os.close(fd)
            fd = inner
            mode = os.fstat(fd).st_mode
            if stat.S_ISLNK(mode):  # O_PATH with O_NOFOLLOW opens the link itself
                _refuse_link_on_path(path, walked)
            if not stat.S_ISDIR(mode):
                raise InputFormatError(f"cannot be read ({os.strerror(errno.ENOTDIR)})", source=path)
        try:
            return os.open(names[-1], flags | (os.O_DIRECTORY if trailing else 0), dir_fd=fd)
        except OSError as e:
            # (with O_DIRECTORY, for a trailing slash, a link is said to be no directory)
            if e.errno == errno.ELOOP or (e.errno == errno.ENOTDIR and _is_link_at(names[-1], fd)):
                _refuse_link(path)
            raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None
    finally:
        os.close(fd)


def _is_link_at(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _refuse_link_on_path(path: str, link: str) -> None:
    raise InputFormatError(
        f"is reached through a symbolic link ({link!r}); a submission is read through no link "
        "(--follow-links accepts links)",
        source=path,
    )


def open_submission(path: str, key: object | None = None, follow_links: bool = False):
    """Open a submission file for reading, refusing what a team could use to read what it must not.

    Refused, unless `follow_links`: a symbolic link, as the file itself or as any directory on its
    path (a link could lead to the key, to a system file or to another team's submission, and
    where it leads is not shown).  Each directory is opened without following a link, inside the
    one before, and the file inside the last, so nothing can be swapped between the check and the
    read.  Always refused: anything but a regular file (a FIFO would block, a device never ends),
    and the answer key itself, reached by any link or hard link.
    Returns a binary file object and the file's size.
    """
    nofollow = 0 if follow_links else getattr(os, "O_NOFOLLOW", 0)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | nofollow
    if nofollow and hasattr(os, "O_DIRECTORY") and os.open in os.supports_dir_fd:
        fd = _open_without_links(path, flags)
    else:
        try:
            fd = os.open(path, flags)
        except OSError as e:
            if e.errno == errno.ELOOP:
                _refuse_link(path)
            raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputFormatError("is a directory, not a file", source=path)
        if not stat.S_ISREG(st.st_mode):
            raise InputFormatError(
                "is not a regular file (a FIFO, device or socket); a submission is a regular file",
                source=path,
            )
        if key is not None and getattr(key, "inode", None) == (st.st_dev, st.st_ino):
            raise InputFormatError("is the answer key itself; a submission cannot be the key", source=path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


_EOL = re.compile(rb"\r\n|\r|\n")


def _physical_lines(fh, limit: int, max_lines: int | None = None) -> Iterator[tuple[int, str | None]]:
    """(line number, text) of every line of an open submission, read in bounded memory, whatever the
    file's size: a line longer than MAX_LINE bytes gives (number, None) and is read past; reading
    stops with _TooLarge after `limit` bytes (a file that keeps growing), and with _TooManyLines
    past line `max_lines`.  Lines end at LF, CR LF or CR only, as the key's (a line holding another
    character some readers take for a line end is an error: `_line_break`).
    """
    if max_lines is not None:
        yield from _at_most(_physical_lines(fh, limit), max_lines)
        return
    k = 0
    carry = b""
    skipping = False
    total = 0
    while True:
        block = fh.read(1 << 16)
        total += len(block)
        if total == len(block):  # the first block: a byte-order mark is not part of the first id
            block = _no_bom(block)
        if total > limit:
            raise _TooLarge(k)
        data = carry + block
        pos = 0
        for m in _EOL.finditer(data):
            if m.end() == len(data) and m.group() == b"\r" and block:
                break  # a CR at the end of a block: an LF may follow in the next
            if skipping:  # the end of a line already reported as too long
                skipping = False
            elif m.start() - pos > MAX_LINE:
                k += 1
                yield k, None
            else:
                k, done = yield from _split(data[pos : m.start()], k)
            pos = m.end()
        carry = data[pos:]
        if len(carry) > MAX_LINE:
            if not skipping:
                k += 1
                yield k, None
                skipping = True
            carry = b""
        if not block:
            if carry and not skipping:
                k, done = yield from _split(carry, k)
            return


def _split(line: bytes, k: int):
    yield k + 1, line.decode("utf-8", errors="replace")
    return k + 1, True


#: characters that end a line for ``str.splitlines`` and some editors but not for others (C's
#: ``isspace`` blanks \v and \f; most editors show U+2028 as a character), with their names
_BREAKS = {
    "\v": "a vertical tab (\\v)",
    "\f": "a form feed (\\f)",
    "\x1c": "a file separator (\\x1c)",
    "\x1d": "a group separator (\\x1d)",
    "\x1e": "a record separator (\\x1e)",
    "\x85": "a next-line character (U+0085)",
    "\u2028": "a line separator (U+2028)",
    "\u2029": "a paragraph separator (U+2029)",
}
_BREAK = re.compile("[" + "".join(_BREAKS) + "]")


def _line_break(text: str) -> str | None:
    """What is wrong with a line holding a character of _BREAKS (a line end to some readers, a blank
    to others: rows would merge or split, and line numbers would differ from an editor's), or None.
    """
    m = _BREAK.search(text)
    if m is None:
        return None
    return (
        f"holds {_BREAKS[m.group()]} at column {m.start() + 1}, a line end to some readers and a blank "
        "to others (rows would merge or split): end each line with a newline only"
    )


def _at_most(lines: Iterator[tuple[int, str | None]], max_lines: int) -> Iterator[tuple[int, str | None]]:
    for k, text in lines:
        if k > max_lines:
            raise _TooManyLines(k)
        yield k, text


class _TooLarge(Exception):
    """A submission past the size limit: reading stopped."""

    def __init__(self, line: int):
        self.line = line


class _TooManyLines(Exception):
    """A submission past the line limit: reading stopped."""

    def __init__(self, line: int):
        self.line = line


def _unquote(text: str) -> str:
    """A field as a CSV writer quotes it (``"ev1"``, ``"a""b"``), without its quotes."""
    if len(text) >= 2 and text[0] == '"' == text[-1]:
        return text[1:-1].replace('""', '"')
    return text


def _line_fields(line: str, width: int = 0) -> list[str]:
    """The fields of a line as ``perf`` splits them (blanks and commas separate fields), each without
    the quotes a CSV writer puts around it; none for a blank line or a comment (its first field
    starts with ``#``).  With `width`: a line that is short of fields but has `width` of them when
    split at its commas (``ev3,``: pandas writes a missing value so) gives them that way, the
    empty one as "", so that what is missing can be named.
    """
    fields = line.replace(",", " ").split()
    if not fields or fields[0].startswith("#"):
        return []
    if '"' in line:
        fields = [_unquote(f) for f in fields]
    if len(fields) < width and "," in line:
        parts = line.split(",")
        if len(parts) == width:
            fields = [_unquote(p.strip()) for p in parts]
    return fields


def _lines(raw: bytes):
    """(line number, fields) of every line that holds fields and is not a comment; the reference
    reading of the key, and of a submission whenever the fast path below declines it.
    """
    for k, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        fields = _line_fields(line)
        if fields:
            yield k, fields


def _fields(lines, width: int) -> Iterator[tuple[int, list[str] | None, str]]:
    """`_lines` over (number, text) pairs, with each line's text: None for a line too long to read."""
    for k, line in lines:
        if line is None:
            yield k, None, ""
            continue
        fields = _line_fields(line, width)
        if fields or _BREAK.search(line):
            yield k, fields, line


#: a number written with a decimal comma (``0,5``: Excel and pandas' decimal="," in much of Europe)
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+(?:[eE][+-]?[0-9]+)?")


def _separator_hint(text: str, width: int) -> str | None:
    """What a line written with another separator (``;``: pandas' to_csv(sep=";"), Excel in much of
    Europe) or a decimal comma (``0,5``) holds, and what is expected; None for any other line.
    """
    if width < 2:
        return None
    if ";" in text:
        parts = [_unquote(p.strip()) for p in text.split(";")]
        if len(parts) != width or not all(parts):
            return None
        comma = _DECIMAL_COMMA.fullmatch(parts[-1]) is not None
        if not (comma or _NUMBER.fullmatch(parts[-1]) or all(map(_KEY_NAME.fullmatch, parts))):
            return None  # not a line of data (a number last) nor of names: no guess
        found = next(t for t in text.split() if ";" in t)
        decimal = (", and a decimal point is '.'", ", decimal='.'") if comma else ("", "")
        return (
            f"fields separated by ';' ({token(found)}): fields are separated by blanks, tabs or commas"
            f"{decimal[0]} (pandas: to_csv(sep=','{decimal[1]}))"
        )
    try:
        as_csv = next(csv.reader([text]), [])
    except csv.Error:  # a NUL byte, a field too long: not a CSV line either
        as_csv = []
    for parts in (text.split(), as_csv):
        parts = [_unquote(p.strip()) for p in parts]
        if len(parts) == width and all(parts) and _DECIMAL_COMMA.fullmatch(parts[-1]):
            return (
                f"the prediction {token(parts[-1])} has a decimal comma: a decimal point is '.' "
                "(pandas: to_csv(decimal='.'))"
            )
    return None


# -- header lines ---------------------------------------------------------------------------------
#: the name of an id column: ``id``, or a name ending in ``_id`` (``-id``, ``.id``) or ``Id`` / ``ID``
#: (``example_id``, ``gene-id``, ``ExampleId``), in any case, and their plurals
_ID_COLUMN = re.compile(r"(?i:ids?|[a-z0-9]+(?:[_.\-][a-z0-9]+)*[_.\-]ids?)|[A-Za-z0-9]*[a-z0-9](?:Id|ID)s?")
#: the name of a block column: ``block``, ``block_id`` (or an id column's name)
_BLOCK_COLUMN = re.compile(r"(?i)block(?:[_.\-]?ids?)?")
#: a column's name: a letter or ``_``, then letters, digits, ``_``, ``.``, ``-``
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_PRINTABLE = re.compile(rb"[\t\x20-\x7e]*")
_HEADER_LINE = 4096  # a header is a short line


def _first_line(raw: bytes, max_lines: int | None = None) -> tuple[int, int, int, list[str]] | None:
    """(line number, start, end, fields) of the first line of `raw` that holds fields, when it and
    the lines before it are short lines of printable ASCII (only such a line can be a header);
    else None.  With `max_lines`, None when that line is further down.
    """
    k = pos = 0
    while pos < len(raw) and (max_lines is None or k < max_lines):
        m = _EOL.search(raw, pos)
        end = m.start() if m else len(raw)
        k += 1
        line = raw[pos:end]
        if len(line) > _HEADER_LINE or not _PRINTABLE.fullmatch(line):
            return None
        fields = _line_fields(line.decode("ascii"))
        if fields:
            return k, pos, end, fields
        pos = m.end() if m else len(raw)
    return None


def _names(text: str, pattern: re.Pattern, header: list[str] | None, col: int) -> bool:
    """`text` names the column: it matches `pattern`, or is the name the key's header gives it."""
    return bool(pattern.fullmatch(text)) or (header is not None and text.lower() == header[col].lower())


def _is_header(f: list[str], width: int, key: Key) -> bool:
    """The first line of a submission is a header: it names the columns (the id column by the rule
    of _ID_COLUMN or as the key's header names it, the block column likewise, the prediction by any
    name), its prediction is not a number and its id is not one of the key's, so that it cannot be
    a line of data.  A first empty name over a column of row numbers (R's write.csv: ``"","id",...``)
    is part of a header: the lines after it are said to hold row numbers.
    """
    if len(f) == width + 1 and f[0] == "":
        f = f[1:]
    if len(f) != width:
        return False
    ident = f[1] if width == 3 else f[0]
    if not _names(ident, _ID_COLUMN, key.header, -2):
        return False
    if width == 3 and not (_names(f[0], _BLOCK_COLUMN, key.header, 0) or _ID_COLUMN.fullmatch(f[0])):
        return False
    if width > 1 and (not _NAME.fullmatch(f[-1]) or _number(f[-1]) is not None):
        return False
    return not key.has(ident)


def _without_header(raw: bytes, width: int, key: Key) -> bytes:
    """A submission's text with its header line (if it has one, as a plain line) blanked out: the
    fast path below reads it as a blank line; the line-by-line reading skips the header itself.
    """
    found = _first_line(raw, 1000)
    if found is None or not _is_header(found[3], width, key):
        return raw
    _, start, end, _ = found
    return raw[:start] + b" " * (end - start) + raw[end:]


#: a column's name in a key's header: a letter (any script) or ``_`` first, then letters, digits, ``_.-``
_KEY_NAME = re.compile(r"[^\W\d][\w.\-]*")


def _key_header(raw: bytes, task: Task, path: str) -> tuple[bytes, list[str] | None, int | None]:
    """The key's text with its header line blanked out (so that line numbers stay), the header's
    names and its line; the text as it is, None and None when it has none.

    The key's first line holding fields is never silently an example when it may be a header: it
    is one when its fields are names (a letter first; not numbers) and either its id field names
    an id column (_ID_COLUMN; its block field a block column), or its target is not a valid target
    of the task while every other line's is (a number; for a key of labels, one of the task's
    ``labels``).  A key of labels whose task declares no labels cannot tell a header from a line
    whose label is on no other line: that first line is refused, with what to do.
    """
    width = {"id-target": 2, "id-label": 2, "block-id-target": 3}[task.key]
    first = next(_lines(raw), None)
    if first is None:
        return raw, None, None
    k, f = first
    if len(f) != width or not all(_KEY_NAME.fullmatch(x) and _number(x) is None for x in f):
        return raw, None, None  # not names: a line of data (its errors are said as such)
    named = bool(_ID_COLUMN.fullmatch(f[-2])) and (
        width < 3 or bool(_BLOCK_COLUMN.fullmatch(f[0]) or _ID_COLUMN.fullmatch(f[0]))
    )
    labels = set(task.labels) if task.labels is not None else None
    if task.key == "id-label" and labels is None:
        others = _key_targets(raw, k, width)
        if f[-1] in others:
            return raw, None, None  # a label of the key's: a line of data
        if not named:
            seen = sorted(others)
            raise InputFormatError(
                f"({', '.join(token(x) for x in f)}) may be a header or an example: its label is on no "
                "other line of the key; remove the line if it is a header, or declare the task's "
                "labels in its file (labels = ["
                + ", ".join(f'"{x}"' for x in seen[:5])
                + (", ..." if len(seen) > 5 else "")
                + "]), so that a first line with another is its header",
                source=path,
                line=k,
            )
    elif not named:
        valid = (lambda t: t in labels) if labels is not None else (lambda t: _number(t) is not None)
        if valid(f[-1]):
            return raw, None, None  # a line of data
        if not all(map(valid, _key_targets(raw, k, width))):  # then it may be data: no guess
            j, g = next((j, g) for j, g in _lines(_blank_line(raw, k)) if not valid(g[-1]))
            what = f"one of the task's labels ({', '.join(task.labels or ())})" if labels else "a number"
            raise InputFormatError(
                f"the {'label' if labels else 'target'} {token(g[-1])} is not {what}; line {k} "
                f"({', '.join(token(x) for x in f)}) is the key's header only if every other line's is",
                source=path,
                line=j,
            )
    elif labels is not None and f[-1] in labels:
        return raw, None, None
    return _blank_line(raw, k), f, k


def _key_targets(raw: bytes, skip: int, width: int) -> set[str]:
    """The targets (labels) of the lines of the key but line `skip`, each once; read by the compiled
    path when the rest of the key is plain, else line by line.
    """
    rest = _blank_line(raw, skip)
    plain = _fast_columns(rest, width)
    if plain is not None:
        return set(plain.cols[-1])
    return {g[-1] for _, g in _lines(rest)}


def _blank_line(raw: bytes, k: int) -> bytes:
    """`raw` with its line `k` (as `_lines` numbers them) blanked out: line numbers stay."""
    found = _first_line(raw, k)
    if found is not None and found[0] == k:  # a plain line: blanked in place
        _, start, end, _ = found
        return raw[:start] + b" " * (end - start) + raw[end:]
    lines = raw.decode("utf-8", errors="replace").splitlines(keepends=True)
    text = lines[k - 1].splitlines()[0]
    lines[k - 1] = " " * len(text) + lines[k - 1][len(text) :]
    return "".join(lines).encode("utf-8")


@dataclass
class _Plain:
    """The fields of a plain file: `width` columns of text, and each token's byte offsets."""

    raw: bytes
    cols: list[list[str]]
    start: np.ndarray
    end: np.ndarray
    width: int

    def offsets(self, col: int) -> tuple[bytes, np.ndarray, np.ndarray]:
        return (
            self.raw,
            np.ascontiguousarray(self.start[col :: self.width]),
            np.ascontiguousarray(self.end[col :: self.width]),
        )


def _fast_columns(raw: bytes, width: int, rows: int | None = None) -> _Plain | None:
    """The fields of a plain file, or None when the file is anything but plain.

    Plain: printable ASCII, blanks, tabs, commas and newlines (a carriage return only before a
    newline), no ``#``, quotes only in pairs around whole fields (``"ev1"``: they are taken off, as
    the reference reading takes them off), and every line either empty or holding exactly `width`
    fields.  On such a
    file this gives exactly what `_lines` gives, without a Python step per line (it is what lets a
    million-row submission be checked in a fraction of a second); on any other file the caller
    falls back to `_lines`, which finds and words the problems.  With `rows` (a submission), a file
    of any other number of lines, or with a line over MAX_LINE bytes, is declined before its text is
    split (so a large file of junk costs no more than its bytes).
    """
    if b'"' in raw:  # quoted fields: the reference reading takes their quotes off
        unquoted = _dequoted(raw, width)
        if unquoted is None:
            return None
        raw = unquoted
    found = K.plain_tokens(raw, width)
    if found is None or not found[0]:
        return None
    starts, ends = (np.frombuffer(x, np.int64) for x in found)
    if rows is not None:
        if len(starts) != rows * width:  # not one line a key row: declined before any text is made
            return None
        eol = np.flatnonzero(np.frombuffer(raw, np.uint8) == 10)
        if (
            len(eol)
            and max(int(eol[0]), int(np.diff(eol).max(initial=0)), len(raw) - 1 - int(eol[-1])) >= MAX_LINE
        ):
            return None  # a line near the limit: the line-by-line reading decides
    toks = raw.decode("ascii").replace(",", " ").split()
    return _Plain(raw, [toks[i::width] for i in range(width)], starts, ends, width)


def _dequoted(raw: bytes, width: int) -> bytes | None:
    """`raw` without the quotes a CSV writer puts around fields, when every quote in it is one of a
    pair around a whole field of other characters (``"ev1"``; not ``a"b``, ``"a`` or ``""``): its
    fields are then those the reference reading gives, each unquoted.  None otherwise.
    """
    found = K.plain_tokens(raw, width)
    if found is None:
        return None
    starts, ends = (np.frombuffer(x, np.int64) for x in found)
    text = np.frombuffer(raw, np.uint8)
    first, last = text[starts] == 34, text[ends - 1] == 34  # 34: '"'
    wrapped = first & last & (ends - starts >= 3)
    if (
        not np.array_equal(first, wrapped)
        or not np.array_equal(last, wrapped)
        or 2 * int(wrapped.sum()) != raw.count(b'"')  # no quote inside a field
    ):
        return None
    return raw.replace(b'"', b"")


def read_key(path: str, task: Task) -> Key:
    """Read the answer key; its problems are the organiser's, so the first one is an error, naming
    the key's file and line.  Checked here, before any submission is read: the number of fields, no
    id twice, targets that are numbers as ``perf`` reads them and take at most two values (in each
    block, for block tasks), block ids that are integers.
    """
    width = {"id-target": 2, "id-label": 2, "block-id-target": 3}[task.key]
    raw = _read(path)
    _no_line_breaks(raw, path)
    raw, header, header_line = _key_header(raw, task, path)
    key = None
    plain = _fast_columns(raw, width)
    if plain is not None:
        ids = plain.offsets(width - 2)
        none = np.zeros(0, np.int64)
        if K.join_ids(*ids, b"", none, none) is not None:  # the key alone: no id twice
            key = Key(
                path,
                plain.cols[-2],
                plain.cols[-1],
                plain.cols[0] if width == 3 else None,
                ids,
                plain.offsets(0) if width == 3 else None,
            )
    if key is None:
        key = Key(path, [], [], [] if width == 3 else None)
        seen: set[str] = set()
        for k, f in _lines(raw):
            if len(f) != width:
                text = raw.decode("utf-8", errors="replace").splitlines()[k - 1]
                raise InputFormatError(_key_shape_error(text, f, width, task), source=path, line=k)
            ident = f[-2]
            if ident in seen:
                raise InputFormatError(
                    f"the answer key lists example {token(ident)} twice", source=path, line=k
                )
            seen.add(ident)
            key.ids.append(ident)
            key.targets.append(f[-1])
            if key.blocks is not None:
                key.blocks.append(f[0])
    key.header, key.header_line = header, header_line
    if not key.ids:
        raise InputFormatError("the answer key holds no examples", source=path)
    _check_key_values(raw, key, task)
    try:
        st = os.stat(path)
        key.inode = (st.st_dev, st.st_ino)
    except OSError:
        pass
    return key


def _no_line_breaks(raw: bytes, path: str) -> None:
    """Refuse a key holding a character of _BREAKS: the key's lines are the lines LF, CR LF and CR
    end, as a submission's (so that every line number said is an editor's).
    """
    if not any(c.encode() in raw for c in _BREAKS):
        return
    for k, line in enumerate(_EOL.split(raw), 1):
        broken = _line_break(line.decode("utf-8", errors="replace"))
        if broken is not None:
            raise InputFormatError(broken, source=path, line=k)


def _key_shape_error(text: str, f: list[str], width: int, task: Task) -> str:
    """What is wrong with a key line of the wrong number of fields: an empty field (pandas writes a
    missing value so), another separator or a decimal comma, pandas' index column, or the count.
    """
    g = _line_fields(text, width)
    if len(g) == width and "" in g:
        which = "target" if g[-1] == "" else "block id" if width == 3 and g[0] == "" else "example id"
        return f"missing {which}" + (f" for example {token(g[-2])}" if g[-2] else "") + " (an empty field)"
    said = f"the answer key needs {width} fields a line ({task.key}), found {len(f)}"
    hint = _separator_hint(text, width)
    if hint is not None:
        return f"{said}: {hint.replace('the prediction', 'the target')}"
    if len(f) == width + 1 and _INTEGER.fullmatch(f[0]):
        return said + _ROW_NUMBERS
    return said


def _check_key_values(raw: bytes, key: Key, task: Task) -> None:
    """The key's targets and block ids as the classic engine will read them; a problem names the
    key's line (rows are counted back to lines only when there is one).
    """

    def line_of(row: int) -> int:
        return [k for k, _ in _lines(raw)][row]

    def read(texts: list[str], pattern: str, what: str) -> np.ndarray:
        try:
            return np.frombuffer(
                parse_bytes(("\n".join(texts) + "\n").encode(), pattern, "")[0],
                np.float32 if pattern == "f" else np.int32,
            )
        except InputFormatError as e:
            raise InputFormatError(
                f"the answer key's {what}: {e.message.replace(' (value)', '')}",
                source=key.source,
                line=line_of((e.line or 1) - 1),
            ) from None

    blocks = read(key.blocks, "i", "block id") if key.blocks is not None else None
    if task.key == "id-label":  # labels: each criterion codes them 0/1 by its positives
        if task.labels is not None:
            known = set(task.labels)
            bad = next((i for i, t in enumerate(key.targets) if t not in known), None)
            if bad is not None:
                raise InputFormatError(
                    f"the label {token(key.targets[bad])} is not one of the task's labels "
                    f"({', '.join(task.labels)})",
                    source=key.source,
                    line=line_of(bad),
                )
        return
    t = read(key.targets, "f", "target")
    if blocks is None:
        third = _third_value(t)
    else:
        order = np.argsort(blocks, kind="stable")
        third = None
        bounds = np.flatnonzero(np.diff(blocks[order])) + 1
        for part in np.split(order, bounds):
            k = _third_value(t[part])
            if k is not None:
                third = int(part[k]) if third is None else min(third, int(part[k]))
    if third is not None:
        where = "its block" if blocks is not None else "the key"
        raise InputFormatError(
            f"the target {token(key.targets[third])} is a third value in {where}; perf's "
            "criteria need two classes (two target values, e.g. 0 and 1)",
            source=key.source,
            line=line_of(third),
        )


def _third_value(t: np.ndarray) -> int | None:
    """The first row whose value is neither of the first two distinct values, or None."""
    if len(t) == 0:
        return None
    first = t[0]
    other = np.flatnonzero(t != first)
    if len(other) == 0:
        return None
    second = t[other[0]]
    bad = np.flatnonzero((t != first) & (t != second))
    return int(bad[0]) if len(bad) else None


# A number as both Python's float() and C's strtof() (the classic reader) read it: digits, an
# optional point, an optional exponent.  Anything else (hex, underscores, words) is not a number.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


def _number(text: str) -> float | None:
    if _NUMBER.fullmatch(text):
        return float(text)
    if text.lower() in _NON_FINITE:
        return float(text)
    return None


def _float32(texts: list[str]) -> np.ndarray:
    """Numbers as the classic reader stores them (float32, rounded once from the decimal text)."""
    return np.frombuffer(parse_bytes(("\n".join(texts) + "\n").encode(), "f", "a submission")[0], np.float32)


def _fast_check(raw: bytes, task: Task, key: Key, needs_prob: bool) -> tuple[np.ndarray, int] | None:
    """(predictions in answer-key order as float32, rows) of a submission file with no error, else None.

    Every condition here implies that `check_submission`'s line-by-line reading finds no error and
    the same predictions; when one fails, that reading runs and lists the errors.  A header line
    has been blanked out (`_without_header`).
    """
    width = {"id-score": 2, "block-id-score": 3, "ranked": 1}[task.submission]
    plain = _fast_columns(raw, width, len(key.ids))
    if plain is None:
        return None
    cols = plain.cols
    ids = cols[1] if width == 3 else cols[0]
    n = len(ids)
    if n != len(key.ids):
        return None
    if key.plain is not None:
        perm = K.join_ids(*key.plain, *plain.offsets(1 if width == 3 else 0))
        if perm is None:  # an id repeated, unknown or missing
            return None
        perm = np.frombuffer(perm, np.int64)
    else:
        where = dict(zip(ids, range(n), strict=False))
        found = list(map(where.get, key.ids))
        if len(where) != n or None in found:
            return None
        perm = np.array(found, np.int64)
    if width == 3:
        if key.plain_blocks is not None:
            if not K.same_tokens(*key.plain_blocks, *plain.offsets(0), perm):  # as text, as the line reading
                return None
        else:
            row_of = np.empty_like(perm)
            row_of[perm] = np.arange(n)  # the key row of each submission line
            if not all(map(str.__eq__, cols[0], np.array(key.blocks, dtype=object)[row_of])):
                return None
    if task.submission == "ranked":
        # rank 1 (the first line) is the most confident: score n; float32 rounds these integers
        # (above 2**24) to nearest-even exactly as strtof would read their text
        return np.arange(n, 0, -1, dtype=np.float64)[perm].astype(np.float32), n
    # Only digits, signs, points and exponents: on such tokens Python's float() (the reference
    # check) and the classic reader's strtof() accept exactly the same ones.
    if ("\n".join(cols[-1]) + "\n").encode().translate(None, b"0123456789.eE+-\n"):
        return None
    try:
        v = np.fromiter(map(float, cols[-1]), np.float64, n)
    except ValueError:
        return None
    if not np.isfinite(v).all() or (needs_prob and ((v < 0.0) | (v > 1.0)).any()):
        return None
    f32 = _float32(cols[-1])
    if np.isinf(f32).any():  # finite as a double, too large for the float32 perf reads
        return None
    return f32[perm], n


def check_submission(
    paths: list[str], task: Task, key: Key, follow_links: bool = False
) -> tuple[dict[str, np.ndarray], ErrorList, int]:
    """Read and check a submission: ({list: float32 predictions in answer-key order}, errors, lines read).

    Memory is bounded by the key, not by the submission: a file no larger than a valid submission
    can be is read whole by the compiled fast path; anything else (and any file the fast path
    declines) is read line by line, keeping only what belongs to the key and the first MAX_ERRORS
    errors.  So is time: that reading stops at the error after them, and at the line after
    `max_lines` (blank and comment lines too), so junk is read no further than that.
    """
    errors = _Errors()
    preds: dict[str, np.ndarray] = {}
    needs_prob = any(c.probability for c in task.criteria)
    rows = 0
    lists = task.lists or [""]
    width = {"id-score": 2, "block-id-score": 3, "ranked": 1}[task.submission]
    limit = MAX_BYTES_PER_ROW * len(key.ids) + (64 << 20)
    max_lines = MAX_LINES_PER_ROW * len(key.ids) + EXTRA_LINES
    for lst, path in zip(lists, paths, strict=False):
        fh, size = open_submission(path, key, follow_links)
        with fh:
            if size > limit:
                raise InputFormatError(
                    f"is {size:,} bytes, more than a submission for this key can be (at most "
                    f"{limit:,}: {MAX_BYTES_PER_ROW} a key row and 64 MiB); it was not read",
                    source=path,
                )
            source = fh
            if size <= FAST_BYTES_PER_ROW * len(key.ids) + (1 << 20):
                raw = _no_bom(fh.read(limit + 1))
                # a plain file's lines end at LF (a CR only before one); more than max_lines: an error
                many = raw.count(b"\n") + (bool(raw) and not raw.endswith(b"\n")) > max_lines
                fast = None if many else _fast_check(_without_header(raw, width, key), task, key, needs_prob)
                if fast is not None:
                    preds[lst], n = fast
                    rows += n
                    continue
                source = io.BytesIO(raw)  # read again line by line, as a larger file is
            lines = _fields(_physical_lines(source, limit, max_lines), width)
            try:
                got, n, too_many = _check_lines(lines, place(path), task, key, width, needs_prob, errors)
            except _TooLarge as e:
                raise InputFormatError(
                    f"grew past {limit:,} bytes while it was read (line {e.line}); a submission "
                    "must not change while it is scored",
                    source=path,
                ) from None
            if too_many is not None:
                errors.add(
                    f"{place(path)}, line {too_many:,}: more lines than a submission for this key can have "
                    f"(at most {max_lines:,}: {MAX_LINES_PER_ROW} a key row and {EXTRA_LINES:,}, blank "
                    "and comment lines included); reading stopped"
                )
                errors.stopped_at = too_many
        rows += n
        if errors.stopped_at is not None:  # what was not read cannot be checked: nothing more is said
            break
        missing = [i for i in key.ids if i not in got]
        # ids written as floats are said once, not again as missing; the ids of a line refused for
        # its line end were not read, and may be there
        if missing and not errors.floated and not errors.broken:
            # the first in sorted order (ids of digits numerically), not the key's: its order (by
            # label) would say something of the key
            numeric = all(i.isdigit() for i in missing)
            first = sorted(missing, key=lambda i: (len(i.lstrip("0")), i.lstrip("0"), i) if numeric else i)[
                :5
            ]
            listed = ", ".join(token(i) for i in first) + (", ..." if len(missing) > 5 else "")
            errors.add(
                f"{place(path)}: {len(missing)} example(s) of the answer key have no prediction: {listed}"
            )
        if task.submission == "ranked":  # rank 1 = most confident: the highest score
            if not errors.count:
                preds[lst] = np.array([len(got) + 1 - int(got[i][0]) for i in key.ids], np.float64).astype(
                    np.float32
                )
            continue
        # the float32 the classic engine reads must be finite too: 1e39 is a finite double, +inf here
        found = [(k, text) for text, k in got.values()]
        wide = np.isinf(_float32([text for _, text in found])) if found else np.zeros(0, bool)
        for k, text in sorted(found[i] for i in np.flatnonzero(wide)):
            errors.add(
                f"{place(path)}, line {k}: the prediction {token(text)} is too large for the 32-bit "
                "float perf reads (at most 3.4028235e+38 in magnitude)"
            )
        if not errors.count:
            preds[lst] = _float32([got[i][0] for i in key.ids])
    return preds, errors.listed(), rows


def _data_lines(lines, width: int, key: Key, errors: _Errors) -> Iterator[tuple[int, list[str] | None, str]]:
    """A submission's lines (number, fields, text) but its header line, up to the error after the cap:
    the rest is not read.
    """
    last = 0
    for i, (k, f, text) in enumerate(lines):
        if errors.full:
            errors.stopped_at, errors.capped = last, True
            return
        last = k
        if i == 0 and f is not None and _is_header(f, width, key):
            continue
        yield k, f, text


def _check_lines(
    lines, where: str, task: Task, key: Key, width: int, needs_prob: bool, errors: _Errors
) -> tuple[dict[str, tuple[str, int]], int, int | None]:
    """Check a submission's lines one by one: ({key id: (prediction text or rank, line)}, lines of
    data read, the line past the line cap at which reading stopped, or None).  Only ids of the key
    are kept, so memory follows the key.
    """
    index = key.index
    got: dict[str, tuple[str, int]] = {}
    rank = rows = 0
    expected = {
        "id-score": "example_id prediction",
        "block-id-score": "block_id example_id prediction",
        "ranked": "one example id",
    }[task.submission]
    probs = ", ".join(c.name for c in task.criteria if c.probability)
    whole_ids = bool(key.ids) and all(_INTEGER.fullmatch(i) for i in key.ids[:100])
    too_many: list[int] = []  # the line past the line cap, where reading stopped
    pending = ""  # a first line of names of another separator: said with the next line, which says more
    for k, f, text in _data_lines(_until_too_many(lines, too_many), width, key, errors):
        rows += 1
        pos = f"{where}, line {k}"
        broken = _line_break(text)
        if broken is not None:
            errors.broken += 1
            errors.add(f"{pos}: {broken}")
            continue
        bad = _shape_error(f, width, expected, index)
        ident = (f[1] if width == 3 else f[0]) if f is not None and bad is None else ""
        suspect = bad is not None or ident not in index
        step, pending = _separator_step(text, width, bad, suspect, rows, pos, pending, errors)
        if step == "next":
            continue
        if step == "stop":
            errors.stopped_at = k
            break
        if f is None or bad is not None:
            errors.add(f"{pos}: {bad}")
            continue
        row = index.get(ident)
        if row is None:
            _unknown_id(f, ident, pos, rows == 1, whole_ids, task, key, errors)
            continue
        if ident in got:
            errors.add(f"{pos}: example {token(ident)} appears again (first on line {got[ident][1]})")
            bad = None if task.submission == "ranked" else _prediction_error(f[-1], needs_prob, probs, ident)
            if bad is not None:  # every error of a line is listed, not only the first
                errors.add(f"{pos}: {bad}")
            continue
        if width == 3 and key.blocks is not None:
            block = key.blocks[row]
            if f[0] != block:
                got[ident] = ("0", k)  # seen: a later line with it is a repeat
                errors.add(
                    f"{pos}: example {token(ident)} belongs to block {token(block)}, not {token(f[0])}"
                )
                continue
        if task.submission == "ranked":
            rank += 1
            got[ident] = (str(rank), k)
            continue
        got[ident] = (f[-1], k)
        bad = _prediction_error(f[-1], needs_prob, probs, ident)
        if bad is None:
            continue
        errors.add(f"{pos}: {bad}")
        got[ident] = ("0", k)  # a bad prediction is reported once, not again as too large
    if pending:
        errors.add(pending)
    said = errors.floated_at  # the one message about ids written as floats: how many lines
    if errors.floated > 1 and said is not None and said < len(errors.kept):
        errors.kept[said] += f"; {errors.floated:,} lines"
    return got, rows, too_many[0] if too_many else None


def _unknown_id(
    f: list[str], ident: str, pos: str, first: bool, whole_ids: bool, task: Task, key: Key, errors: _Errors
) -> None:
    """The error of a line whose id is not the key's: ids written as floats (said once for the file),
    else the id, with the header rule when the line is the first and may be a header.
    """
    if whole_ids and _NUMBER.fullmatch(ident) and not _INTEGER.fullmatch(ident):
        errors.floated += 1  # 1.0 for 1, 5.0066e+18 for 5006673085033590973: said once
        if errors.floated == 1:
            errors.floated_at = len(errors.kept)
            errors.add(
                f"{pos}: ids written as numbers with a decimal point or exponent ({token(ident)}): "
                f"write them as in the answer key ({token(_key_id(ident, key))})"
            )
        return
    header = first and (
        ident.lower().replace("-", "_") in _HEADER_NAMES
        or _ID_COLUMN.fullmatch(ident)
        or (whole_ids and _number(ident) is None)
        or (len(f) > 1 and all(_NAME.fullmatch(x) and _number(x) is None for x in f))  # names
    )
    errors.add(
        f"{pos}: example {token(ident)} is not in the answer key"
        + (f"; a header line? {_header_rule(task, key)}" if header else "")
    )


def _separator_step(
    text: str, width: int, bad: str | None, suspect: bool, rows: int, pos: str, header: str, errors: _Errors
) -> tuple[str, str]:
    """A file of another separator or a decimal comma is one error, not one a line: ("stop", "") when
    this line (`suspect`: with an error) says so (the error is added; reading stops); ("next", its
    error) for a first line of names of another separator (a header: said with the next line, which
    says whether the numbers have decimal commas too); ("", "") for any other line (a first line's
    error kept till now is added: the next line is of commas or blanks).
    """
    hint = _separator_hint(text, width) if suspect else None
    if hint is None and bad is not None and bad.endswith(_ROW_NUMBERS):
        hint = bad  # pandas' index as a first column: every line has it
    if hint is not None and rows == 1 and ";" in text:
        if all(_KEY_NAME.fullmatch(_unquote(p.strip())) for p in text.split(";")):
            return "next", f"{pos}: {hint}"
    if hint is not None:
        errors.add(f"{pos}: {hint}; reading stopped")
        return "stop", ""
    if header:
        errors.add(header)
    return "", ""


def _until_too_many(lines, stop: list[int]):
    """`lines` up to the line cap (_TooManyLines), whose line is put in `stop`: the lines read
    before it are checked and counted as every other.
    """
    try:
        yield from lines
    except _TooManyLines as e:
        stop.append(e.line)


#: whole numbers as a key writes its ids
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: first fields that name a column: a header line (a submission has none)
_HEADER_NAMES = {"id", "ids", "example", "example_id", "exampleid", "block", "block_id", "gene", "gene_id"}


def _key_id(text: str, key: Key) -> str:
    """The key's id that ``text`` (an id written as a float) stands for, when it is exact; else the
    key's first id, as an example of how the key writes them.
    """
    v = float(text)
    if v.is_integer() and abs(v) < 2**53:
        whole = str(int(v))
        if whole in key.index:
            return whole
    return key.ids[0]


#: pandas' to_csv and R's write.csv write row numbers as a first column unless told not to
_ROW_NUMBERS = (
    "; the first looks like a column of row numbers (pandas: to_csv(index=False), R: "
    "write.csv(row.names=FALSE) write none)"
)


def _shape_error(f: list[str] | None, width: int, expected: str, index: dict[str, int]) -> str | None:
    """What is wrong with a line's fields as such (a line too long, a field too few or too many, an
    empty one), or None.
    """
    if f is None:
        return f"longer than {MAX_LINE} bytes; a submission line holds {expected}"
    if len(f) != width:
        # pandas' to_csv writes its index (row numbers) as a first column unless index=False
        # the row number, then the line's fields, the id among them
        index_column = len(f) == width + 1 and _INTEGER.fullmatch(f[0]) and f[1 if width < 3 else 2] in index
        return f"expected {width} field{'s' * (width > 1)} ({expected}), found {len(f)}" + (
            _ROW_NUMBERS if index_column else ""
        )
    if "" in f[:-1]:  # an empty field of a CSV line (,0.5 or 7,,0.5): named, not counted
        return f"missing {'block id' if f[0] == '' and width == 3 else 'example id'} (an empty field)"
    return None


def _header_rule(task: Task, key: Key) -> str:
    """What a header line of a submission must be, with an example of one for the task."""
    names = {
        "id-score": ["id", "prediction"],
        "block-id-score": ["block_id", "id", "prediction"],
        "ranked": ["id"],
    }
    example = names[task.submission]
    if key.header is not None:  # the key's own names
        example[-2 if len(example) > 1 else 0] = key.header[-2]
        if len(example) == 3:
            example[0] = key.header[0]
    return (
        "a header is the first line, naming the columns, e.g. "
        + ",".join(example)
        + " (the id column: id, or a name ending in _id or Id"
        + (", or as the key's header names it" if key.header is not None else "")
        + ")"
    )


def _prediction_error(text: str, needs_prob: bool, probs: str, ident: str = "") -> str | None:
    """What is wrong with a submission's prediction (None: nothing)."""
    if text == "":  # an empty field of a CSV line: pandas writes a missing value (NaN) so
        return f"missing prediction for example {token(ident)} (an empty field)"
    v = _number(text)
    if v is None:
        return f"the prediction {token(text)} is not a number"
    if math.isinf(v) and _NUMBER.fullmatch(text):  # digits whose value no float holds
        return (
            f"the prediction {token(text)} is too large for the 32-bit float perf reads "
            "(at most 3.4028235e+38 in magnitude)"
        )
    if math.isnan(v) or math.isinf(v):
        return f"the prediction {token(text)} is not a finite number"
    if needs_prob and not 0.0 <= v <= 1.0:
        return f"the prediction {token(text)} is outside [0, 1], which {probs} need"
    return None


def classes(task: Task, key: Key) -> tuple[str, ...]:
    """The classes of a key of labels: the task's declared labels, in their order; else the key's
    distinct labels, sorted.
    """
    return tuple(task.labels) if task.labels is not None else tuple(sorted(set(key.targets)))


def partition(task: Task, key: Key, positives: list[str]) -> np.ndarray:
    """A criterion's positives over the key's rows (booleans, key order), as the engine of K classes
    codes them: the key's labels coded once as classes (:func:`perfeval.engine.door.class_codes`, the
    classes of :func:`classes`); a partition naming one class is that class against the rest (its
    one-vs-rest coding, ``codes == j``), one naming several the union of those classes against the
    others.  A positive no row holds (a key without ``control``) adds nothing.
    """
    from perfeval.engine.door import class_codes

    known = classes(task, key)
    if key.codes is None or key.codes[0] != known:
        key.codes = (known, class_codes(np.asarray(key.targets), known))
    codes = key.codes[1]
    index = {c: j for j, c in enumerate(known)}
    wanted = [index[p] for p in positives if p in index]
    if len(wanted) == 1:
        return codes == wanted[0]
    return np.isin(codes, wanted)


def _columns(
    task: Task, key: Key, preds: dict[str, np.ndarray], lst: str = "", positives: list[str] | None = None
) -> tuple:
    """The joined PERF input in answer-key order: ([block texts], target texts, float32 predictions);
    a key of labels coded 1/0 by the criterion's partition (:func:`partition`).
    """
    t = key.targets
    if positives is not None:
        t = np.where(partition(task, key, positives), "1", "0").tolist()
    if key.blocks is not None:
        return key.blocks, t, preds[lst]
    return t, preds[lst]


def joined_text(
    task: Task, key: Key, preds: dict[str, np.ndarray], lst: str = "", positives: list[str] | None = None
) -> bytes:
    """The PERF input of a checked submission: `target prediction` (or `block target prediction`)
    lines in answer-key order, each prediction written as the shortest text that reads back as the
    same float32; running the classic ``perf`` on it gives the scores `score` gives.
    """
    *texts, p = _columns(task, key, preds, lst, positives)
    cols = (*texts, [str(x) for x in p])  # numpy's float32 str is the shortest that reads back the same
    return ("\n".join(map(" ".join, zip(*cols, strict=False))) + "\n").encode()


def score_argument(arg: str, task: Task, key: Key, follow_links: bool = False) -> Scores:
    """Check and score one submission as named on the command line.  Whatever is wrong with it (a
    file that cannot be read, a link, a FIFO, a missing list) rejects this submission alone, never
    the others scored with it.
    """
    try:
        return score(submission_files(arg, task, follow_links), task, key, follow_links)
    except InputFormatError as e:
        return Scores(arg, errors=[str(e)], n_errors=1)


def score(paths: list[str], task: Task, key: Key, follow_links: bool = False) -> Scores:
    """Check and score one submission (one path, or one per list for a ranked-lists task); a file
    that cannot be read, or a wrong number of lists, raises :class:`InputFormatError`
    (:func:`score_argument` turns it into the submission's error).
    """
    name = os.pathsep.join(paths)
    if task.lists and len(paths) != len(task.lists):
        raise InputFormatError(
            f"is not a submission of task {task.name}: it needs {len(task.lists)} ranked "
            f"lists ({', '.join(f'{x}.txt' for x in task.lists)} in a directory, or the "
            f"files joined by commas), got {len(paths)} file(s)",
            source=",".join(paths),
        )
    preds, errors, rows = check_submission(paths, task, key, follow_links)
    res = Scores(
        name, errors=errors, rows=rows, n_errors=errors.total, capped=errors.capped, stopped=errors.stopped
    )
    if errors:
        return res
    blocks = task.key == "block-id-target"
    inputs: dict[tuple, object] = {}
    for c in task.criteria:
        assert c.perf is not None  # a task of lines: given, or formed from its measure at load
        k: tuple = (c.list, tuple(c.positives or ()))
        if k not in inputs:
            inputs[k] = classic_cases(_columns(task, key, preds, c.list or "", c.positives))
        vals = run_classic(c.perf, inputs[k], blocks)
        label = c.perf_label
        if label not in vals:
            raise InvalidParameterError(f"criterion {c.name}: perf {' '.join(c.perf)} printed no {label}")
        res.scores[c.name] = vals[label]
        if not math.isfinite(vals[label]):
            res.why[c.name] = _why_not_a_number(c, vals[label], inputs[k], blocks)
    add_total(res, task)
    return res


def add_total(res: Scores, task: Task) -> None:
    """The task's ``[total]``, the sum of its criteria's scores (and why it is not a number)."""
    if not task.total:
        return
    total, parts = task.total["name"], task.total["sum"]
    res.scores[total] = sum(res.scores[n] for n in parts)
    if not math.isfinite(res.scores[total]):
        bad = [n for n in parts if not math.isfinite(res.scores[n])]
        res.why[total] = (
            f"{plain_why(res.scores[total])}: the sum of {', '.join(parts)}, of which "
            f"{', '.join(bad) or 'none'} {'is' if len(bad) == 1 else 'are'} not a finite number"
        )


def _why_not_a_number(c, v: float, cases, blocks: bool) -> str:
    """Why criterion `c`'s score `v` is not a finite number (the JSON's reason beside its null): the
    key's one class for the criterion when that is why, else the measure's edge cases.
    """
    measure = c.perf_label.removeprefix("MEAN_BLOCK_")
    if math.isinf(v):
        return plain_why(v)
    classes = np.unique(np.asarray(cases.targets))
    if not blocks and len(classes) == 1:  # said without which class: a team may read the reason
        positives = f" (positives: {', '.join(c.positives)})" if c.positives is not None else ""
        return (
            f"undefined: the key's examples are all of one class for {c.name}{positives}, and {measure} "
            "needs both classes"
        )
    return why_not_finite(v, measure, "for this submission joined with the key") or plain_why(v)
