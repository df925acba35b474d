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
from dataclasses import dataclass, field

from perfeval.contest.tasks import Task
from perfeval.exceptions import InputFormatError, InvalidParameterError

MAX_ERRORS = 20


@dataclass
class Key:
    """The answer key: target (or label) text and block id of every example id, in key order."""

    source: str
    targets: dict[str, str]
    blocks: dict[str, str] = field(default_factory=dict)


@dataclass
class Result:
    submission: str
    scores: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    rows: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def _lines(path: str):
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except IsADirectoryError:
        raise InputFormatError("is a directory, not a file", source=path) from None
    except OSError as e:
        raise InputFormatError(f"cannot be read ({e.strerror})", source=path) from None
    for k, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        fields = line.replace(",", " ").split()
        if fields and not fields[0].startswith("#"):
            yield k, fields


def read_key(path: str, task: Task) -> Key:
    """Read the answer key; its problems are the organiser's, so the first one is an error."""
    width = {"id-target": 2, "id-label": 2, "block-id-target": 3}[task.key]
    key = Key(path, {})
    for k, f in _lines(path):
        if len(f) != width:
            raise InputFormatError(f"the answer key needs {width} fields a line ({task.key}), found {len(f)}",
                                   source=path, line=k)
        ident = f[-2]
        if ident in key.targets:
            raise InputFormatError(f"the answer key lists example {ident!r} twice", source=path, line=k)
        key.targets[ident] = f[-1]
        if width == 3:
            key.blocks[ident] = f[0]
    if not key.targets:
        raise InputFormatError("the answer key holds no examples", source=path)
    return key


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v


class _Errors(list):
    def add(self, msg: str) -> None:
        self.append(msg)


def check_submission(paths: list[str], task: Task, key: Key) -> tuple[dict[str, dict[str, str]], list[str], int]:
    """Read and check a submission: ({list: {id: prediction text}}, errors, lines read)."""
    errors = _Errors()
    preds: dict[str, dict[str, str]] = {}
    needs_prob = any(c.probability for c in task.criteria)
    rows = 0
    lists = task.lists or [""]
    for lst, path in zip(lists, paths):
        got: dict[str, str] = {}
        where: dict[str, int] = {}
        rank = 0
        width = {"id-score": 2, "block-id-score": 3, "ranked": 1}[task.submission]
        for k, f in _lines(path):
            rows += 1
            pos = f"{path}, line {k}"
            if len(f) != width:
                expected = {"id-score": "example_id prediction", "block-id-score": "block_id example_id prediction",
                            "ranked": "one example id"}[task.submission]
                errors.add(f"{pos}: expected {width} field{'s' * (width > 1)} ({expected}), found {len(f)}")
                continue
            ident = f[1] if width == 3 else f[0]
            if ident in where:
                errors.add(f"{pos}: example {ident!r} appears again (first on line {where[ident]})")
                continue
            where[ident] = k
            if ident not in key.targets:
                errors.add(f"{pos}: example {ident!r} is not in the answer key")
                continue
            if width == 3 and f[0] != key.blocks.get(ident):
                errors.add(f"{pos}: example {ident!r} belongs to block {key.blocks.get(ident)!r}, not {f[0]!r}")
                continue
            if task.submission == "ranked":
                rank += 1
                got[ident] = str(rank)
                continue
            v = _number(f[-1])
            if v is None:
                errors.add(f"{pos}: the prediction {f[-1]!r} is not a number")
            elif math.isnan(v) or math.isinf(v):
                errors.add(f"{pos}: the prediction {f[-1]!r} is not a finite number")
            elif needs_prob and not 0.0 <= v <= 1.0:
                names = ", ".join(c.name for c in task.criteria if c.probability)
                errors.add(f"{pos}: the prediction {f[-1]} is outside [0, 1], which {names} need")
            else:
                got[ident] = f[-1]
        missing = [i for i in key.targets if i not in where]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:5]) + (", ..." if len(missing) > 5 else "")
            errors.add(f"{path}: {len(missing)} example(s) of the answer key have no prediction: {shown}")
        if task.submission == "ranked":  # rank 1 = most confident: the highest score
            n = rank
            got = {i: str(n + 1 - int(r)) for i, r in got.items()}
        preds[lst] = got
    return preds, list(errors), rows


def _classic(argv: list[str], data: bytes, blocks: bool) -> dict[str, float]:
    """Run the classic engine in this process on PERF-format text; the printed values by label."""
    from perfeval.classic.engine import Classic, Out
    from perfeval.classic.options import parse_options
    from perfeval.classic.reader import Cases, parse_bytes

    req = parse_options(argv)
    cols = parse_bytes(data, "iff" if blocks else "ff", "the joined submission")
    cases = Cases(cols[1], cols[2], cols[0]) if blocks else Cases(cols[0], cols[1], None)
    err = io.StringIO()
    out = Out(err=err.write)
    job = Classic(req, out)
    job.run_blocks(cases) if blocks else job.run_normal(cases)
    values = {}
    for line in b"".join(out.chunks).decode().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] not in values:
            values[parts[0]] = float("nan") if parts[1] == "-nan" else float(parts[1])
    return values


def joined_text(task: Task, key: Key, preds: dict[str, dict[str, str]], lst: str = "",
                positives: list[str] | None = None) -> bytes:
    """The PERF input of a checked submission: `target prediction` (or `block target prediction`)
    in answer-key order."""
    got = preds[lst]
    out = []
    for ident, target in key.targets.items():
        t = ("1" if target in positives else "0") if positives is not None else target
        if task.key == "block-id-target":
            out.append(f"{key.blocks[ident]} {t} {got[ident]}\n")
        else:
            out.append(f"{t} {got[ident]}\n")
    return "".join(out).encode()


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
    texts: dict[tuple, bytes] = {}
    for c in task.criteria:
        k = (c.list, tuple(c.positives or ()))
        if k not in texts:
            texts[k] = joined_text(task, key, preds, c.list or "", c.positives)
        vals = _classic(c.perf, texts[k], blocks)
        label = c.perf_label
        if label not in vals:
            raise InvalidParameterError(f"criterion {c.name}: perf {' '.join(c.perf)} printed no {label}")
        res.scores[c.name] = vals[label]
    if task.total:
        res.scores[task.total["name"]] = sum(res.scores[n] for n in task.total["sum"])
    return res
