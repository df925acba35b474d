"""Scoring competition submissions against a hidden answer key.

A submission gives predictions by example id (and block id); the key gives the true targets by id.
Scoring joins them, checks the submission (every error listed, with its file and line, up to a
limit; a submission with any error is rejected whole; no message ever shows a true target), then
runs the classic ``perf`` engine once per criterion on the joined cases, as the KDD Cup did, so each
score is what ``perf`` prints on the joined file.
"""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from perfeval.contest.tasks import Task
from perfeval.exceptions import InputFormatError, InvalidParameterError

MAX_ERRORS = 20


@dataclass
class Key:
    """The answer key in key order: example ids, target (or label) texts, block ids (block tasks)."""

    source: str
    ids: list[str]
    targets: list[str]
    blocks: list[str] | None = None
    plain: tuple | None = None  # (text, id starts, id ends) when the key file is plain: the fast join
    plain_blocks: tuple | None = None  # (text, block id starts, ends) likewise

    @cached_property
    def index(self) -> dict[str, int]:
        """Row of each example id."""
        return {ident: k for k, ident in enumerate(self.ids)}


@dataclass
class Result:
    submission: str
    scores: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    rows: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except IsADirectoryError:
        raise InputFormatError("is a directory, not a file", source=path) from None
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None


def _lines(raw: bytes):
    """(line number, fields) of every line that holds fields and is not a comment; the reference
    reading, used whenever the fast path below declines a file."""
    for k, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        fields = line.replace(",", " ").split()
        if fields and not fields[0].startswith("#"):
            yield k, fields


@dataclass
class _Plain:
    """The fields of a plain file: `width` columns of text, and each token's byte offsets."""

    raw: bytes
    cols: list[list[str]]
    start: np.ndarray
    end: np.ndarray
    width: int

    def offsets(self, col: int) -> tuple[bytes, np.ndarray, np.ndarray]:
        return (self.raw, np.ascontiguousarray(self.start[col:: self.width]),
                np.ascontiguousarray(self.end[col:: self.width]))


def _fast_columns(raw: bytes, width: int) -> _Plain | None:
    """The fields of a plain file, or None when the file is anything but plain.

    Plain: printable ASCII, blanks, tabs, commas and newlines (a carriage return only before a
    newline), no ``#``, and every line either empty or holding exactly `width` fields.  On such a
    file this gives exactly what `_lines` gives, without a Python step per line (it is what lets a
    million-row submission be checked in a fraction of a second); on any other file the caller
    falls back to `_lines`, which finds and words the problems.
    """
    from perfeval import _x87 as K

    found = K.plain_tokens(raw, width)
    if found is None or not found[0]:
        return None
    starts, ends = (np.frombuffer(x, np.int64) for x in found)
    toks = raw.decode("ascii").replace(",", " ").split()
    return _Plain(raw, [toks[i::width] for i in range(width)], starts, ends, width)


def read_key(path: str, task: Task) -> Key:
    """Read the answer key; its problems are the organiser's, so the first one is an error."""
    from perfeval import _x87 as K

    width = {"id-target": 2, "id-label": 2, "block-id-target": 3}[task.key]
    raw = _read(path)
    plain = _fast_columns(raw, width)
    if plain is not None:
        ids = plain.offsets(width - 2)
        none = np.zeros(0, np.int64)
        if K.join_ids(*ids, b"", none, none) is not None:  # the key alone: no id twice
            return Key(path, plain.cols[-2], plain.cols[-1], plain.cols[0] if width == 3 else None, ids,
                       plain.offsets(0) if width == 3 else None)
    key = Key(path, [], [], [] if width == 3 else None)
    seen: set[str] = set()
    for k, f in _lines(raw):
        if len(f) != width:
            raise InputFormatError(f"the answer key needs {width} fields a line ({task.key}), found {len(f)}",
                                   source=path, line=k)
        ident = f[-2]
        if ident in seen:
            raise InputFormatError(f"the answer key lists example {ident!r} twice", source=path, line=k)
        seen.add(ident)
        key.ids.append(ident)
        key.targets.append(f[-1])
        if key.blocks is not None:
            key.blocks.append(f[0])
    if not key.ids:
        raise InputFormatError("the answer key holds no examples", source=path)
    return key


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
    from perfeval.classic.reader import parse_bytes

    return np.frombuffer(parse_bytes(("\n".join(texts) + "\n").encode(), "f", "a submission")[0], np.float32)


def _fast_check(raw: bytes, task: Task, key: Key, needs_prob: bool) -> tuple[np.ndarray, int] | None:
    """(predictions in answer-key order as float32, rows) of a submission file with no error, else None.

    Every condition here implies that `check_submission`'s line-by-line reading finds no error and
    the same predictions; when one fails, that reading runs and lists the errors.
    """
    from perfeval import _x87 as K

    width = {"id-score": 2, "block-id-score": 3, "ranked": 1}[task.submission]
    plain = _fast_columns(raw, width)
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
        where = dict(zip(ids, range(n)))
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
    return _float32(cols[-1])[perm], n


def check_submission(paths: list[str], task: Task, key: Key) -> tuple[dict[str, np.ndarray], list[str], int]:
    """Read and check a submission: ({list: float32 predictions in answer-key order}, errors, lines read)."""
    errors: list[str] = []
    preds: dict[str, np.ndarray] = {}
    needs_prob = any(c.probability for c in task.criteria)
    rows = 0
    lists = task.lists or [""]
    index = None
    for lst, path in zip(lists, paths):
        raw = _read(path)
        fast = _fast_check(raw, task, key, needs_prob)
        if fast is not None:
            preds[lst], n = fast
            rows += n
            continue
        if index is None:
            index = key.index
        got: dict[str, str] = {}
        where: dict[str, int] = {}
        rank = 0
        width = {"id-score": 2, "block-id-score": 3, "ranked": 1}[task.submission]
        for k, f in _lines(raw):
            rows += 1
            pos = f"{path}, line {k}"
            if len(f) != width:
                expected = {"id-score": "example_id prediction", "block-id-score": "block_id example_id prediction",
                            "ranked": "one example id"}[task.submission]
                errors.append(f"{pos}: expected {width} field{'s' * (width > 1)} ({expected}), found {len(f)}")
                continue
            ident = f[1] if width == 3 else f[0]
            if ident in where:
                errors.append(f"{pos}: example {ident!r} appears again (first on line {where[ident]})")
                continue
            where[ident] = k
            if ident not in index:
                errors.append(f"{pos}: example {ident!r} is not in the answer key")
                continue
            block = key.blocks[index[ident]] if key.blocks is not None else None
            if width == 3 and f[0] != block:
                errors.append(f"{pos}: example {ident!r} belongs to block {block!r}, not {f[0]!r}")
                continue
            if task.submission == "ranked":
                rank += 1
                got[ident] = str(rank)
                continue
            v = _number(f[-1])
            if v is None:
                errors.append(f"{pos}: the prediction {f[-1]!r} is not a number")
            elif math.isnan(v) or math.isinf(v):
                errors.append(f"{pos}: the prediction {f[-1]!r} is not a finite number")
            elif needs_prob and not 0.0 <= v <= 1.0:
                names = ", ".join(c.name for c in task.criteria if c.probability)
                errors.append(f"{pos}: the prediction {f[-1]} is outside [0, 1], which {names} need")
            else:
                got[ident] = f[-1]
        missing = [i for i in key.ids if i not in where]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:5]) + (", ..." if len(missing) > 5 else "")
            errors.append(f"{path}: {len(missing)} example(s) of the answer key have no prediction: {shown}")
        if not errors:
            if task.submission == "ranked":  # rank 1 = most confident: the highest score
                preds[lst] = np.array([rank + 1 - int(got[i]) for i in key.ids], np.float64).astype(np.float32)
            else:
                preds[lst] = _float32([got[i] for i in key.ids])
    return preds, errors, rows


def _columns(task: Task, key: Key, preds: dict[str, np.ndarray], lst: str = "",
             positives: list[str] | None = None) -> tuple:
    """The joined PERF input in answer-key order: ([block texts], target texts, float32 predictions)."""
    t = key.targets
    if positives is not None:
        pos = set(positives)
        t = ["1" if x in pos else "0" for x in t]
    if key.blocks is not None:
        return key.blocks, t, preds[lst]
    return t, preds[lst]


def joined_text(task: Task, key: Key, preds: dict[str, np.ndarray], lst: str = "",
                positives: list[str] | None = None) -> bytes:
    """The PERF input of a checked submission: `target prediction` (or `block target prediction`)
    lines in answer-key order, each prediction written as the shortest text that reads back as the
    same float32; running the classic ``perf`` on it gives the scores `score` gives."""
    *texts, p = _columns(task, key, preds, lst, positives)
    cols = (*texts, [str(x) for x in p])  # numpy's float32 str is the shortest that reads back the same
    return ("\n".join(map(" ".join, zip(*cols))) + "\n").encode()


def _cases(cols: tuple):
    """The joined input as the classic reader stores it: target (and block id) texts read by the
    classic reader; the predictions already float32."""
    from perfeval import _x87 as K
    from perfeval.classic.reader import Cases, parse_bytes

    *texts, p = cols
    read = [parse_bytes(("\n".join(c) + "\n").encode(), pat, "the answer key")[0]
            for c, pat in zip(texts, "if" if len(texts) == 2 else "f")]
    return Cases(read[-1], K.copy(np.ascontiguousarray(p, np.float32)), read[0] if len(texts) == 2 else None)


def _classic(argv: list[str], cases, blocks: bool) -> dict[str, float]:
    """Run the classic engine in this process on a copy of the cases; the printed values by label."""
    from perfeval import _x87 as K
    from perfeval.classic.engine import Classic, Out
    from perfeval.classic.options import parse_options
    from perfeval.classic.reader import Cases

    req = parse_options(argv)
    mine = Cases(K.copy(cases.targets), K.copy(cases.preds), cases.blocks)  # the engine sorts in place
    err = io.StringIO()
    out = Out(err=err.write)
    job = Classic(req, out)
    job.run_blocks(mine) if blocks else job.run_normal(mine)
    values = {}
    for line in b"".join(out.chunks).decode().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] not in values:
            values[parts[0]] = float("nan") if parts[1] == "-nan" else float(parts[1])
    return values


def score(paths: list[str], task: Task, key: Key) -> Result:
    """Check and score one submission (one path, or one per list for a ranked-lists task)."""
    name = os.pathsep.join(paths)
    if task.lists and len(paths) != len(task.lists):
        raise InvalidParameterError(f"task {task.name} needs {len(task.lists)} ranked lists a submission "
                                    f"({', '.join(task.lists)}), got {len(paths)}")
    preds, errors, rows = check_submission(paths, task, key)
    if len(errors) > MAX_ERRORS:
        errors = errors[:MAX_ERRORS] + [f"... and {len(errors) - MAX_ERRORS} more errors"]
    res = Result(name, errors=errors, rows=rows)
    if errors:
        return res
    blocks = task.key == "block-id-target"
    inputs: dict[tuple, object] = {}
    for c in task.criteria:
        k = (c.list, tuple(c.positives or ()))
        if k not in inputs:
            inputs[k] = _cases(_columns(task, key, preds, c.list or "", c.positives))
        vals = _classic(c.perf, inputs[k], blocks)
        label = c.perf_label
        if label not in vals:
            raise InvalidParameterError(f"criterion {c.name}: perf {' '.join(c.perf)} printed no {label}")
        res.scores[c.name] = vals[label]
    if task.total:
        res.scores[task.total["name"]] = sum(res.scores[n] for n in task.total["sum"])
    return res
