"""The reader of JSON lines (:mod:`perfeval.io.readers`): an object a line, the fields of the first
object the columns.  One grammar for a whole file, its chunks and its Dask partitions: a block of
lines is parsed (:func:`records`), then every column checked and typed (:func:`columns`) as the
whole file is, with the file's line in every message.

A column is float64 when every value is a number (an integer past float64's range is +-inf, as the
same digits in text are), booleans when every value is true or false, else the text of each value;
an identity column (a group, an id) is int64 when every value is a plain integer, else the text,
and refused when a value is a floating-point number.  Read in chunks, a column is typed chunk by
chunk: numbers in one chunk and text in another read as they would whole (the checks read text of
numbers as numbers), but a field of booleans in one chunk and of other values in another, which
the whole file reads as text, is refused there (:func:`chunks`).  An object that names a key twice
is an error (:func:`load_record`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from perfeval.exceptions import InputFormatError, PerfError
from perfeval.io import grammar
from perfeval.io.base import Options, Partitions, Reader, RecordReader, Request, files, read_file
from perfeval.io.tables import Table, clean, id_column, id_roles, numeric, one_line, open_bytes

# Dask and pandas are optional: imported where a Dask run reads JSON lines.


class JsonLinesReader(Reader):
    """JSON lines (``.jsonl``, ``.ndjson``, or a first line that starts with ``{``)."""

    formats = ("jsonl",)
    extensions = {".jsonl": "jsonl", ".ndjson": "jsonl"}

    def sniff(self, sample: bytes, first: bytes) -> str | None:
        return "jsonl" if first.startswith(b"{") else None

    def table(self, raw: bytes, source: str, how: Options) -> Table:
        body = clean(raw, True)
        recs = records(body, 0, source)
        if not recs:
            raise InputFormatError("holds no data", source=source)
        names = list(recs[0][1])
        ids = id_roles(how.identity(names, True)) if how.identity is not None else {}
        kept = set(how.labels(names, True)) - set(ids) if how.labels is not None else set()
        lines = np.array([k for k, _ in recs])
        cols = columns(recs, names, ids, kept, source)
        return Table(names, cols, source, True, lines, body, fmt="jsonl")  # body: a field as written

    def chunks(self, fh: Any, source: str, fmt: str, request: Request) -> Iterator[list]:
        return _chunks(fh, source, request)

    def partitions(self, pattern: str, fmt: str, header: bool | None, delimiter: str | None) -> Partitions:
        """A partition a file, each read on a worker by this reader (:func:`_part`); pandas' JSON
        reader took ``"1_000"`` and ``true`` for numbers and failed on an integer past 64 bits or a
        line that is not an object (an internal error).
        """
        names = _first_names(pattern)

        def frame(
            group: int | dict[int, str] | None,
            used: list[int] | None = None,
            numbers: list[int] | None = None,
        ) -> Any:
            import dask
            import dask.dataframe as dd

            parts = [dask.delayed(_part)(f, names, group) for f in files(pattern)]
            return dd.from_delayed(parts, verify_meta=False)

        return Partitions("jsonl", True, names, None, frame, identities=True)


READER = JsonLinesReader()


class _DuplicateKey(ValueError):
    """A JSON object naming a key twice (:func:`_unique_keys`)."""

    def __init__(self, key: str):
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object as a dict, its keys each once: the standard library keeps the last of two values
    of one key silently (``{"s": 0.3, "s": 0.9}`` is ``{"s": 0.9}``), a row that is not the one
    written; an error instead (RFC 8259: names should be unique; readers differ on which they keep).
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def load_record(text: str | bytes):
    """One line of JSON lines, as :func:`json.loads` reads it but refusing an object that names a key
    twice (:func:`_unique_keys`; raises ``_DuplicateKey``).  Each key of the text is followed by its
    own colon: an object with as many keys as the line has colons names none twice, and is not read
    again (the common flat record; the check costs a count, the hook doubles the parse).
    """
    rec = json.loads(text)
    colons = text.count(b":") if isinstance(text, bytes) else text.count(":")
    if isinstance(rec, dict) and colons != len(rec):  # a key twice, a nested key or a ':' in text
        rec = json.loads(text, object_pairs_hook=_unique_keys)
    return rec


def record(text: str, source: str, line: int) -> dict:
    """One line of JSON lines as an object (:func:`load_record`), or an error naming its line."""
    try:
        rec = load_record(text)
    except _DuplicateKey as e:
        raise InputFormatError(
            f"the key {e.key!r} is given twice in one object (a JSON reader keeps one of its values "
            "without a word): give each key once",
            source=source,
            line=line,
        ) from None
    except json.JSONDecodeError as e:
        raise InputFormatError(f"not valid JSON ({e.msg})", source=source, line=line) from None
    except (ValueError, RecursionError) as e:  # an integer of over 4300 digits; nesting too deep
        why = (
            "nested too deeply"
            if isinstance(e, RecursionError)
            else "an integer of too many digits"
            if "digits" in str(e)
            else one_line(e)
        )
        raise InputFormatError(f"not valid JSON here ({why})", source=source, line=line) from None
    if not isinstance(rec, dict):
        raise InputFormatError("expected a JSON object a line", source=source, line=line)
    return rec


def records(body: bytes, line0: int, source: str) -> list[tuple[int, dict]]:
    """(line, object) of every line of a cleaned block (``line0`` lines before it) that is not blank;
    a line that is not a JSON object is an error naming it (:func:`record`).
    """
    out = []
    for k, line in enumerate(body.decode("utf-8", errors="replace").split("\n"), line0 + 1):
        s = line.strip()
        if s:
            out.append((k, record(s, source, k)))
    return out


def columns(
    recs: list[tuple[int, dict]],
    names: list[str],
    ids: dict[int, str | None],
    kept: set[int],
    source: str,
) -> dict[str, np.ndarray]:
    """The columns ``names`` of these records, each checked (every record holds it, as one value;
    an id is no float: ``ids``, ``{index: role}``, names it by its role or option) and typed (see
    the module's description; ``kept``: read as identities are, without the float check).
    """
    cols = {}
    for c, name in enumerate(names):
        vals = []
        for k, rec in recs:
            if name not in rec:
                raise InputFormatError(f"the field {name!r} is missing", source=source, line=k)
            v = rec[name]
            if v is None or isinstance(v, (dict, list)):
                what = "null" if v is None else "not a single value"
                raise InputFormatError(f"the field {name!r} is {what}", source=source, line=k)
            if c in ids and isinstance(v, float):
                raise InputFormatError(
                    f"{id_column(name, ids[c], 'field')} is a floating-point number ({v!r}); ids must "
                    "be integers or strings",
                    source=source,
                    line=k,
                )
            vals.append(v)
        if c in ids or c in kept:
            cols[name] = grammar.identity([str(v).lower() if isinstance(v, bool) else str(v) for v in vals])
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            cols[name] = np.array([_float(v) for v in vals], dtype=np.float64)
        elif all(isinstance(v, bool) for v in vals):
            cols[name] = np.array(vals, dtype=bool)
        else:
            cols[name] = np.array([str(v) for v in vals], dtype=str)
    return cols


def _float(v: int | float) -> float:
    """A JSON number as float64: an integer past its range is +-inf, as the same digits in text are."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _chunks(fh: Any, source: str, request: Request) -> Iterator[list]:
    """The picked columns of a JSON lines file, block by block of whole lines: every column of the
    block checked and typed as the whole file's are (the same errors at the same lines; the
    identity columns ``request.ids`` as identities; the others, labels too, as read whole: the
    whole-file reader of the command reads a target of labels so), then the picked ones converted
    (``request.convert``, or numbers; labels as read).
    """
    rd = RecordReader(fh, request.chunk_bytes, False, source)
    names: list[str] | None = None
    picks: list[int | None] = []
    ids: dict[int, str | None] = {}
    booleans: dict[int, bool] = {}  # a picked column: whether its first block was true/false only
    for body, _last in rd.blocks():
        line0 = rd.line0
        recs = records(body, line0, source)
        rd.line0 += body.count(b"\n")
        if not recs:
            continue
        if names is None:
            names = list(recs[0][1])
            try:
                picks = request.picks(names, True, source)
            except PerfError:  # the whole-file reader reads its table first: a wrong line is said first
                columns(recs, names, {}, set(), source)
                raise
            ids = {
                k: role for i, role in request.ids.items() if i < len(picks) and (k := picks[i]) is not None
            }
        cols = columns(recs, names, ids, set(), source)
        where = Table(names, cols, source, True, np.array([k for k, _ in recs]), body, line0, fmt="jsonl")
        assert where.data is not None
        data = where.data
        for k in {k for k in picks if k is not None} - set(ids):
            only = data[k].dtype.kind == "b"
            if booleans.setdefault(k, only) != only:  # read whole, a field of both is text
                raise InputFormatError(
                    f"the field {names[k]!r} holds true or false only in some blocks of lines and other "
                    "values in others (each block is typed alone when read in chunks; whole, such a "
                    "field is text): read the file whole, or write one kind of value",
                    source=source,
                    line=recs[0][0],
                )
        if request.meter:
            request.meter.advance(len(body), len(recs))
        picked = [None if k is None else data[k] for k in picks]
        if request.convert is not None:
            yield request.convert(picked, where)
            continue
        out: list = []
        for i, k in enumerate(picks):  # identities and labels as read, the others numbers
            if k is None or i in request.ids or i in request.labels:
                out.append(picked[i])
            else:
                out.append(numeric(where, names[k], data[k], ""))
        yield out
    if names is None:
        raise InputFormatError("holds no data", source=source)


def _first_names(pattern: str) -> list[str]:
    """The field names of the first record of the first JSON lines file, as the whole-file reader
    takes them; that file's first problem, as that reader says it, when there is no such record.
    """
    first = files(pattern)[0]
    fh = open_bytes(first, first)
    head = b""
    try:
        while True:  # up to the first line that is not blank (not the whole file)
            block = fh.read(1 << 16)
            head += block
            lines = clean(head, True).split(b"\n")
            text = next((ln.strip() for ln in lines[:-1] if ln.strip()), None)
            if text is None and not block:
                text = lines[-1].strip() or None
            if text is not None or not block:
                break
    finally:
        fh.close()
    try:
        rec = load_record(text) if text is not None else None
    except (ValueError, RecursionError):  # a key named twice too: said as read whole
        rec = None
    if isinstance(rec, dict):
        return list(rec)
    READER.table(read_file(first, first), first, Options("jsonl"))  # the file's error, as read whole
    raise AssertionError("unreachable: a JSON lines file without a first record")  # pragma: no cover


def _part(path: str, names: list[str], group: int | dict[int, str] | None) -> Any:
    """A JSON lines file read whole by this reader (the same values, types and errors, with the
    file's line, as read whole; an integer past float64 is +-inf, a boolean is no number), as a
    pandas frame of the columns ``names``; ``group``: the group column's position, or the identity
    columns' as ``{position: role}`` (the option naming each in an error).
    """
    import pandas as pd

    given = {} if group is None else {group: "--group"} if isinstance(group, int) else group
    roles = {names[g]: role for g, role in given.items()}

    def identity(found: list, _header: bool) -> dict[int, str | None]:
        return {found.index(n): role for n, role in roles.items() if n in found}

    t = READER.table(read_file(path, path), path, Options("jsonl", identity=identity))
    missing = [n for n in names if n not in t.columns]
    if missing:
        raise InputFormatError(
            f"has no field {missing[0]!r} (its fields: {', '.join(map(str, t.names))})", source=path
        )
    return pd.DataFrame({n: t.columns[n] for n in names})
