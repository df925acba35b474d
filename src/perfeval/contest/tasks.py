"""Competition tasks are data: a TOML file names the submission and key formats and the criteria.

Bundled presets: ``kddcup2004-physics``, ``kddcup2004-protein``, ``kddcup2002-task2``
(``src/perfeval/contest/presets``).  A new contest is a new TOML file: pass its path as the task.

Schema::

    name, title
    submission = "id-score" | "block-id-score" | "ranked"
    key = "id-target" | "block-id-target" | "id-label"
    labels = ["change", "nc", "control"]        # id-label keys: every label a key line may hold
    lists = ["narrow", "broad"]                 # ranked-list tasks: one list per name
    [[criteria]]
    name = "ROC"                                # the column in tables and the leaderboard
    perf = ["-roc"]                             # the classic perf options that compute it
    direction = "higher" | "lower"
    probability = true                          # predictions must lie in [0, 1]
    list = "narrow"; positives = ["change"]     # ranked-list tasks: which list, which labels are 1
    [total]
    name = "score"; sum = ["ROC_narrow", "ROC_broad"]; direction = "higher"
"""

from __future__ import annotations

import builtins
import math
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, NoReturn

import numpy as np

from perfeval.base.text import place, shown
from perfeval.classic.options import ClassicExit, HelpRequested, parse_options
from perfeval.contest.engine import classic_cases, run_classic
from perfeval.exceptions import InvalidParameterError, PerfError

# tomllib (tomli before Python 3.11) is imported where a task file is read.

SUBMISSIONS = ("id-score", "block-id-score", "ranked")
KEYS = ("id-target", "block-id-target", "id-label")


@dataclass
class Criterion:
    name: str
    perf: list[str]
    direction: str = "higher"
    probability: bool = False
    list: str | None = None
    positives: builtins.list[str] | None = None  # `list` is a field name here

    @property
    def perf_label(self) -> str:
        """The label perf prints the criterion's value under (ACC, ROC, MEAN_BLOCK_APR, ...)."""
        req = parse_options(list(self.perf))
        (name,) = req.flags
        return f"MEAN_BLOCK_{name}" if req.blocks else name


@dataclass
class Task:
    name: str
    title: str
    submission: str
    key: str
    criteria: list[Criterion]
    lists: list[str] = field(default_factory=list)
    total: dict[str, Any] | None = None
    source: str = ""
    labels: list[str] | None = None  # a key of labels: every label its lines may hold, when declared

    def directions(self) -> dict[str, str]:
        d = {c.name: c.direction for c in self.criteria}
        if self.total:
            d[self.total["name"]] = self.total.get("direction", "higher")
        return d


def _toml(text: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    return tomllib.loads(text)


def presets() -> list[str]:
    return sorted(
        p.name[:-5] for p in resources.files("perfeval.contest.presets").iterdir() if p.name.endswith(".toml")
    )


_TOP = {"name", "title", "submission", "key", "labels", "lists", "criteria", "total"}
_CRITERION = {"name", "perf", "direction", "probability", "list", "positives"}
_TOTAL = {"name", "sum", "direction"}
_PAIRS = {
    "id-score": ("id-target", "id-label"),
    "block-id-score": ("block-id-target",),
    "ranked": ("id-label", "id-target"),
}


class _Checker:
    """Every mistake of a task file is one error, naming the file and the key, found when the task is
    loaded (never later, half-way through scoring).
    """

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, message: str) -> NoReturn:
        raise InvalidParameterError(f"{self.source}: {where}: {message}")

    def keys(self, table: Any, allowed: set[str], where: str) -> dict:
        if not isinstance(table, dict):
            self.fail(where, f"expected a table, found {_kind(table)}")
        unknown = sorted(set(table) - allowed)
        if unknown:
            self.fail(
                where,
                f"unknown key {unknown[0]!r} (a {where.split('[')[0].split('.')[0]} takes "
                f"{', '.join(sorted(allowed))})",
            )
        return table

    def text(self, table: dict, name: str, where: str, required: bool = True, choices: tuple = ()) -> str:
        if name not in table:
            if required:
                self.fail(
                    where, f"{name} is missing" + (f" (one of {', '.join(choices)})" if choices else "")
                )
            return ""
        v = table[name]
        if not isinstance(v, str) or not v.strip():
            self.fail(
                f"{where}.{name}" if where != "task" else name,
                f"expected a non-empty string, found {_kind(v)}",
            )
        if shown(v) != v:
            self.fail(
                f"{where}.{name}" if where != "task" else name,
                f"{shown(v)!r} holds a control or format character; names are printed in tables",
            )
        if choices and v not in choices:
            self.fail(
                f"{where}.{name}" if where != "task" else name, f"{v!r} is not one of {', '.join(choices)}"
            )
        return v

    def names(self, v: Any, where: str) -> list[str]:
        if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
            self.fail(where, f"expected a non-empty list of strings, found {_kind(v)}")
        twice = sorted({x for x in v if v.count(x) > 1})
        if twice:
            self.fail(where, f"{twice[0]!r} is listed twice")
        return v


def _kind(v: Any) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(v), type(v).__name__) + (f" ({v!r})" if isinstance(v, (bool, int, float, str)) else "")


def _task(d: dict, source: str) -> Task:
    ck = _Checker(source)
    ck.keys(d, _TOP, "task")
    name = ck.text(d, "name", "task")
    title = ck.text(d, "title", "task", required=False) or name
    submission = ck.text(d, "submission", "task", choices=SUBMISSIONS)
    key = ck.text(d, "key", "task", choices=KEYS)
    if key not in _PAIRS[submission]:
        ck.fail(
            "key",
            f"a {submission!r} submission is scored against a key of {' or '.join(_PAIRS[submission])}, "
            f"not {key!r}",
        )
    lists = _lists(ck, d, submission)
    crits = d.get("criteria")
    if not isinstance(crits, list) or not crits:
        ck.fail(
            "criteria",
            "a task needs at least one [[criteria]] table (name, perf, direction)"
            if crits is None
            else f"expected [[criteria]] tables, found {_kind(crits)}",
        )
    criteria: list[Criterion] = []
    for i, c in enumerate(crits, 1):
        crit = _criterion(ck, c, i, criteria, submission, key, lists)
        _check_perf_options(source, crit, key == "block-id-target")
        criteria.append(crit)
    total = d.get("total")
    if total is not None:
        _check_total(ck, total, criteria)
    labels = _labels(ck, d, key, criteria)
    return Task(name, title, submission, key, criteria, lists, total, source, labels)


def _labels(ck: _Checker, d: dict, key: str, criteria: list[Criterion]) -> list[str] | None:
    """A key of labels' declared labels: plain tokens (a key field holds no blank nor comma), every
    criterion's positives among them.
    """
    if "labels" not in d:
        return None
    if key != "id-label":
        ck.fail("labels", f"only a key of labels (id-label) takes labels; this key is {key!r}")
    labels = ck.names(d["labels"], "labels")
    for x in labels:
        if not re.fullmatch(r"[^\s,\"#][^\s,\"]*", x) or shown(x) != x:
            ck.fail("labels", f"{x!r} is not a label a key line can hold (a blank, a comma or a quote)")
    for c in criteria:
        unknown = [x for x in c.positives or () if x not in labels]
        if unknown:
            ck.fail(
                f"criterion {c.name!r}.positives",
                f"{unknown[0]!r} is not one of the task's labels ({', '.join(labels)})",
            )
    return labels


def _lists(ck: _Checker, d: dict, submission: str) -> list[str]:
    """A ranked task's lists: plain names (each read from <directory>/<name>.txt, never a path)."""
    if submission != "ranked":
        if "lists" in d:
            ck.fail("lists", f"only a ranked task has lists; this one's submission is {submission!r}")
        return []
    if "lists" not in d:
        ck.fail("lists", 'a ranked task names its lists, e.g. lists = ["narrow", "broad"]')
    lists = ck.names(d["lists"], "lists")
    for x in lists:
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", x):
            ck.fail("lists", f"{x!r} is not a plain name (letters, digits, _ . -; the file <name>.txt)")
    return lists


def _criterion(
    ck: _Checker, c: Any, i: int, criteria: list[Criterion], submission: str, key: str, lists: list[str]
) -> Criterion:
    """The i-th [[criteria]] table, checked (name unique, direction, list, positives)."""
    where = f"criteria[{i}]"
    ck.keys(c, _CRITERION, where)
    cname = ck.text(c, "name", where)
    where = f"criterion {cname!r}"
    if any(x.name == cname for x in criteria):
        ck.fail(where, "the name is used twice (each criterion is a column of its own)")
    if cname == "overall":
        ck.fail(where, "'overall' names the leaderboard's ranking over all criteria; choose another name")
    direction = ck.text(c, "direction", where, required=False, choices=("higher", "lower")) or "higher"
    probability = c.get("probability", False)
    if not isinstance(probability, bool):
        ck.fail(f"{where}.probability", f"expected true or false, found {_kind(probability)}")
    lst = c.get("list")
    if submission == "ranked":
        if lst not in lists:
            ck.fail(
                f"{where}.list",
                f"expected one of the task's lists ({', '.join(lists)}), found "
                f"{_kind(lst) if lst is not None else 'nothing'}",
            )
    elif lst is not None:
        ck.fail(f"{where}.list", "only a ranked task's criteria name a list")
    positives = c.get("positives")
    if key == "id-label":
        if positives is None:
            ck.fail(
                f"{where}.positives",
                'a key of labels needs the labels that count as positive, e.g. positives = ["change"]',
            )
        positives = ck.names(positives, f"{where}.positives")
    elif positives is not None:
        ck.fail(f"{where}.positives", f"only a key of labels (id-label) takes positives; this key is {key!r}")
    return Criterion(cname, c.get("perf"), direction, probability, lst, positives)


def _check_total(ck: _Checker, total: Any, criteria: list[Criterion]) -> None:
    """The [total] table: a name of its own and a sum over known criteria."""
    ck.keys(total, _TOTAL, "total")
    tname = ck.text(total, "name", "total")
    if tname == "overall":
        ck.fail(
            "total.name", "'overall' names the leaderboard's ranking over all criteria; choose another name"
        )
    if any(c.name == tname for c in criteria):
        ck.fail("total.name", f"{tname!r} is also a criterion's name")
    if "sum" not in total:
        ck.fail("total", "sum is missing (the criteria it adds up)")
    parts = ck.names(total["sum"], "total.sum")
    unknown = [x for x in parts if all(c.name != x for c in criteria)]
    if unknown:
        ck.fail(
            "total.sum",
            f"{unknown[0]!r} is not a criterion (the criteria: {', '.join(c.name for c in criteria)})",
        )
    ck.text(total, "direction", "total", required=False, choices=("higher", "lower"))


def _check_perf_options(source: str, c: Criterion, blocks: bool) -> None:
    """The criterion's perf options must be options perf takes, computing one number (refused here,
    when the task is loaded).
    """
    where = f"{source}: criterion {c.name!r}: perf"
    if not isinstance(c.perf, list) or not c.perf or not all(isinstance(o, str) for o in c.perf):
        raise InvalidParameterError(
            f'{where}: expected a list of perf options, e.g. ["-roc"], found {_kind(c.perf)}'
        )
    for o in c.perf:
        try:
            v = float(o)
        except ValueError:
            continue
        if not math.isfinite(v):
            raise InvalidParameterError(
                f"{where}: {c.perf!r} holds {o!r}; an option's value must be a finite number"
            )
    try:
        req = parse_options(list(c.perf))
    except (ClassicExit, HelpRequested, PerfError) as e:
        why = " ".join(str(getattr(e, "text", e)).split()).removeprefix("Error: ")
        raise InvalidParameterError(
            f"{where}: {c.perf!r} is not a perf option list "
            f"({why or 'help or version options compute nothing'})"
        ) from None
    if len(req.flags) != 1:
        raise InvalidParameterError(
            f"{where}: {c.perf!r} computes {len(req.flags) or 'no'} measures"
            f"{' (' + ', '.join(sorted(req.flags)) + ')' if req.flags else ''}; a "
            "criterion is one measure"
        )
    if req.infile or req.predfile or req.plot or req.stats_mode or req.confusion:
        raise InvalidParameterError(
            f"{where}: {c.perf!r} asks for a file, a plot or a table; a criterion is one "
            'measure, e.g. ["-roc"]'
        )
    if req.blocks != blocks:
        raise InvalidParameterError(
            f"{where}: {c.perf!r} "
            + (
                "lacks -blocks, which a block key's criteria use (the mean over blocks)"
                if blocks
                else "has -blocks, but the key has no blocks"
            )
        )
    printed = _dry_run(c.perf, blocks)
    if c.perf_label not in printed:
        raise InvalidParameterError(
            f"{where}: {c.perf!r} prints no value labelled {c.perf_label} (it prints "
            f"{', '.join(printed) or 'nothing'}); a criterion is one printed value"
        )


def _dry_run(perf: list[str], blocks: bool) -> list[str]:
    """The labels the classic engine prints for `perf` on a small fixed data set (two blocks of ten
    cases, both classes in each): a criterion is checked to give its value when the task is
    loaded, not after the key and the submissions have been read.
    """
    targets = ["1", "0", "1", "1", "0", "0", "1", "0", "0", "1"] * 2
    preds = np.array([0.9, 0.1, 0.8, 0.4, 0.35, 0.2, 0.7, 0.6, 0.05, 0.55] * 2, np.float32)
    cols = (["1"] * 10 + ["2"] * 10, targets, preds) if blocks else (targets, preds)
    return list(run_classic(list(perf), classic_cases(cols), blocks))


def load_task(name_or_path: str) -> Task:
    """A bundled preset by name, or a task file by path (every mistake in it is an error here)."""
    if os.path.isfile(name_or_path):
        try:
            with open(name_or_path, encoding="utf-8") as f:
                text, where = f.read(), place(name_or_path)
        except (OSError, UnicodeDecodeError) as e:
            raise InvalidParameterError(
                f"{place(name_or_path)}: the task file cannot be read ({getattr(e, 'strerror', None) or e})"
            ) from None
    elif name_or_path in presets():
        text = resources.files("perfeval.contest.presets").joinpath(f"{name_or_path}.toml").read_text()
        where = f"preset {name_or_path}"
    else:
        raise InvalidParameterError(
            f"unknown task {shown(name_or_path)!r}: not a file, nor a preset ({', '.join(presets())})"
        )
    try:
        d = _toml(text)
    except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
        raise InvalidParameterError(f"{where}: not valid TOML ({e})") from None
    except RecursionError:
        raise InvalidParameterError(
            f"{where}: not a task file (arrays or tables nested too deeply)"
        ) from None
    return _task(d, where)
