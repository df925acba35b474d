"""Competition tasks are data: a TOML file names the submission and key formats and the criteria.

Bundled presets: ``kddcup2004-physics``, ``kddcup2004-protein``, ``kddcup2002-task2``
(``src/perfeval/contest/presets``).  A new contest is a new TOML file: pass its path as the task.

Schema::

    name, title
    submission = "id-score" | "block-id-score" | "ranked" | "table"
    key = "id-target" | "block-id-target" | "id-label" | "table"
    labels = ["change", "nc", "control"]        # id-label keys: every label a key line may hold
    lists = ["narrow", "broad"]                 # ranked-list tasks: one list per name
    # table tasks (CSV or Parquet with a header): the columns by name
    problem = "binary" | "classes" | "labels" | "regression"
    id = "row_id"                               # in the key and the submission
    prediction = "p" | ["cat", "dog", "bird"]   # the submission's other columns
    target = "y" | ["a", "b"]                   # in the key (K labels, or K classes one-hot: a column each)
    group = "query"; weight = "w"               # in the key, optional
    classes = ["cat", "dog", "bird"]            # K classes: the prediction columns' classes, or
                                                # the labels one prediction column may hold
    [[criteria]]
    name = "ROC"                                # the column in tables and the leaderboard
    perf = ["-roc"]                             # the classic perf options that compute it, or
    measure = "roc"                             # a registry measure (exactly one of the two)
    dialect = "perf"                            # the rules it is computed by (a line task: perf)
    direction = "higher" | "lower"              # the measure's (checked against the registry)
    ideal = 1.0                                 # a measure with no direction: ranked by distance
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

from perfeval.base.console import one_line
from perfeval.base.text import place, shown
from perfeval.classic.options import ClassicExit, HelpRequested, parse_options
from perfeval.contest.criteria import PROBLEMS, dry_run
from perfeval.contest.engine import classic_cases, run_classic
from perfeval.exceptions import InvalidParameterError, PerfError, UnknownMeasureError

# tomllib (tomli before Python 3.11) is imported where a task file is read; the registry's specs
# and the perf dialect's options where a criterion names a measure.

SUBMISSIONS = ("id-score", "block-id-score", "ranked", "table")
KEYS = ("id-target", "block-id-target", "id-label", "table")


@dataclass
class Criterion:
    """One criterion of a task: a column of the score table and of the leaderboard.

    ``perf``: the classic options that compute it (a line task's; given, or formed from ``measure``
    by the perf dialect); ``measure``: the registry spec as written (``label``: what
    :func:`perfeval.evaluate` reports it under, a table task's); ``direction``: ``higher``,
    ``lower``, or ``ideal`` (ranked by the distance to ``ideal``); ``probability``: predictions must
    lie in [0, 1]; ``rescale``: K classes' rows are divided by their sums first (a measure of
    probabilities of K classes, Kaggle's rule).
    """

    name: str
    perf: list[str] | None
    direction: str = "higher"
    probability: bool = False
    list: str | None = None
    positives: builtins.list[str] | None = None  # `list` is a field name here
    measure: str | None = None
    dialect: str | None = None
    ideal: float | None = None
    label: str = ""
    rescale: bool = False

    @property
    def perf_label(self) -> str:
        """The label perf prints the criterion's value under (ACC, ROC, MEAN_BLOCK_APR, ...)."""
        if self.label:  # a measure run by the perf dialect: its registry name (CA1, not CAL)
            return self.label
        assert self.perf is not None  # a line task's criterion
        req = parse_options(list(self.perf))
        (name,) = req.flags
        return f"MEAN_BLOCK_{name}" if req.blocks else name

    @property
    def ranked_by(self) -> str:
        """How the leaderboard orders its values: ``higher``, ``lower``, or ``ideal:<value>`` (the
        nearer the better).
        """
        return f"ideal:{self.ideal!r}" if self.direction == "ideal" else self.direction


@dataclass
class Columns:
    """A table task's columns by name: the id (key and submission), the predictions (submission),
    the target (one column, or one a label), the group and the weight (key).
    """

    id: str
    prediction: builtins.list[str]
    target: str | builtins.list[str]
    group: str | None = None
    weight: str | None = None
    usage: str | None = None  # each row's board: Public, Private or Ignored (Kaggle's Usage column)

    @property
    def key(self) -> builtins.list[str]:
        """The key's columns the task reads, in order."""
        t = self.target if isinstance(self.target, builtins.list) else [self.target]
        return [self.id, *t, *(c for c in (self.group, self.weight, self.usage) if c is not None)]

    @property
    def submission(self) -> builtins.list[str]:
        """The submission's columns, in order."""
        return [self.id, *self.prediction]


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
    problem: str | None = None  # a table task's: binary, classes, labels or regression
    columns: Columns | None = None  # a table task's columns
    #: K classes: the classes, in order (of the prediction columns, or the labels one column holds)
    classes: list[str] | None = None
    #: a task with boards: how many submissions a team may choose for the private board
    final_submissions: int = 2
    #: how many submissions a team may store a UTC day (None: no limit)
    submissions_per_day: int | None = None

    @property
    def boards(self) -> bool:
        """A task whose key splits its rows into a public and a private board (``usage``)."""
        return self.columns is not None and self.columns.usage is not None

    @property
    def ranked_by(self) -> str:
        """The criterion that orders a team's submissions when it chose no final ones: the total,
        else the first criterion.
        """
        return self.total["name"] if self.total else self.criteria[0].name

    @property
    def table(self) -> bool:
        """A task whose key and submissions are tables (CSV or Parquet) with a header."""
        return self.submission == "table"

    @property
    def hard(self) -> bool:
        """K classes predicted as one label a row (one prediction column)."""
        return self.problem == "classes" and self.columns is not None and len(self.columns.prediction) == 1

    def directions(self) -> dict[str, str]:
        """How the leaderboard orders each criterion (and the total): ``higher``, ``lower`` or
        ``ideal:<value>`` (:attr:`Criterion.ranked_by`).
        """
        d = {c.name: c.ranked_by for c in self.criteria}
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


_TOP = {
    "name",
    "title",
    "submission",
    "key",
    "labels",
    "lists",
    "criteria",
    "total",
    "final_submissions",
    "submissions_per_day",
}
#: the keys of a table task only
_TABLE = {"problem", "id", "prediction", "target", "group", "weight", "classes", "usage"}
_CRITERION = {
    "name",
    "perf",
    "measure",
    "dialect",
    "direction",
    "ideal",
    "probability",
    "list",
    "positives",
}
_TOTAL = {"name", "sum", "direction"}
_PAIRS = {
    "id-score": ("id-target", "id-label"),
    "block-id-score": ("block-id-target",),
    "ranked": ("id-label", "id-target"),
    "table": ("table",),
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
    ck.keys(d, _TOP | _TABLE, "task")
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
    shape = _table_shape(ck, d, submission)
    crits = d.get("criteria")
    if not isinstance(crits, list) or not crits:
        ck.fail(
            "criteria",
            "a task needs at least one [[criteria]] table (name, measure or perf, direction)"
            if crits is None
            else f"expected [[criteria]] tables, found {_kind(crits)}",
        )
    criteria: list[Criterion] = []
    for i, c in enumerate(crits, 1):
        crit = _criterion(ck, c, i, criteria, submission, key, lists)
        if shape is not None:
            _check_table_measure(ck, crit, c, shape)
        else:
            _check_line_measure(ck, crit, c, key == "block-id-target")
            _check_perf_options(source, crit, key == "block-id-target")
        criteria.append(crit)
    total = d.get("total")
    if total is not None:
        _check_total(ck, total, criteria)
    labels = _labels(ck, d, key, criteria)
    task = Task(name, title, submission, key, criteria, lists, total, source, labels)
    if shape is not None:
        task.problem, task.columns, task.classes = shape.problem, shape.columns, shape.classes
    if "final_submissions" in d:
        if not task.boards:
            ck.fail(
                "final_submissions",
                "a team chooses final submissions for a private board: the task needs a usage column "
                '(usage = "Usage")',
            )
        task.final_submissions = _count(ck, d, "final_submissions")
    if "submissions_per_day" in d:
        task.submissions_per_day = _count(ck, d, "submissions_per_day")
    return task


def _count(ck: _Checker, d: dict, name: str) -> int:
    """A whole number >= 1."""
    v = d[name]
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        ck.fail(name, f"expected a whole number >= 1, found {_kind(v)}")
    return int(v)


@dataclass
class _Shape:
    """A table task's problem, columns and classes, as its criteria are checked against them."""

    problem: str
    columns: Columns
    classes: list[str] | None

    @property
    def width(self) -> int:
        """K: the classes, or the labels (the prediction columns); 1 for one score a row."""
        if self.classes is not None:
            return len(self.classes)
        return len(self.columns.prediction)

    @property
    def hard(self) -> bool:
        return self.problem == "classes" and len(self.columns.prediction) == 1


def _column(ck: _Checker, d: dict, name: str, required: bool = True) -> str | None:
    """A column's name: a non-empty string without control characters (it is printed in messages)."""
    if name not in d and not required:
        return None
    return ck.text(d, name, "task")


def _column_list(ck: _Checker, d: dict, name: str) -> list[str]:
    """A column name or a list of them (``prediction``, ``target``), as a list."""
    v = d.get(name)
    if isinstance(v, str):
        return [ck.text(d, name, "task")]
    if v is None:
        ck.fail("task", f"{name} is missing (the column's name, or a list of names)")
    names = ck.names(v, name)
    for x in names:
        if shown(x) != x:
            ck.fail(name, f"{shown(x)!r} holds a control or format character; names are printed in tables")
    return names


def _table_shape(ck: _Checker, d: dict, submission: str) -> _Shape | None:
    """A table task's problem, columns and classes, checked together; None for a line task (which
    takes none of them).
    """
    if submission != "table":
        given = sorted(k for k in _TABLE if k in d)
        if given:
            ck.fail(given[0], f"only a table task names its columns; this one's submission is {submission!r}")
        return None
    problem = ck.text(d, "problem", "task", choices=PROBLEMS)
    ident = _column(ck, d, "id")
    assert ident is not None
    prediction = _column_list(ck, d, "prediction")
    target = _column_list(ck, d, "target")
    group, weight = _column(ck, d, "group", False), _column(ck, d, "weight", False)
    usage = _column(ck, d, "usage", False)
    if problem == "labels":
        if len(target) < 2 or len(prediction) != len(target):
            ck.fail(
                "target",
                "K labels name one target column a label (K >= 2) and as many prediction columns, in the "
                f"same order; found {len(target)} target and {len(prediction)} prediction column(s)",
            )
    elif len(target) != 1 and problem != "classes":
        ck.fail("target", f"a {problem} task's key has one target column; found {len(target)}")
    if problem in ("binary", "regression") and len(prediction) != 1:
        ck.fail(
            "prediction", f"a {problem} task's submission has one prediction column; found {len(prediction)}"
        )
    for what, names in (
        ("the submission's", [ident, *prediction]),
        ("the key's", [ident, *target, *(c for c in (group, weight, usage) if c is not None)]),
    ):
        twice = sorted({x for x in names if names.count(x) > 1})
        if twice:
            ck.fail("task", f"{twice[0]!r} names two of {what} columns (one column, one role)")
    classes = _classes(ck, d, problem, prediction)
    if problem == "classes" and len(target) != 1 and len(target) != len(classes or ()):
        ck.fail(
            "target",
            "a task of K classes reads one target column (the label) or K (one-hot, Kaggle's: one 0/1 "
            f"column a class, in the order of the classes); found {len(target)} for {len(classes or ())} "
            "classes",
        )
    one = problem not in ("labels", "classes") or len(target) == 1
    columns = Columns(ident, prediction, target[0] if one else target, group, weight, usage)
    return _Shape(problem, columns, classes)


def _classes(ck: _Checker, d: dict, problem: str, prediction: list[str]) -> list[str] | None:
    """K classes' labels, in order, as text (as a key's label column is compared): the ``classes``
    given (strings or whole numbers: ``[0, 1, 2, 3]`` for grades), else the prediction columns'
    names; required with one prediction column (the labels it may hold).
    """
    if "classes" not in d:
        if problem == "classes" and len(prediction) == 1:
            ck.fail(
                "classes",
                "K classes predicted as one label a row need the classes, in order, e.g. "
                "classes = [0, 1, 2, 3]",
            )
        return list(prediction) if problem == "classes" else None
    if problem != "classes":
        ck.fail(
            "classes",
            f'only a task of K classes (problem = "classes") takes classes; this one\'s is {problem!r}',
        )
    v = d["classes"]
    if (
        not isinstance(v, list)
        or len(v) < 2
        or not all(
            isinstance(x, str) and x.strip() or (isinstance(x, int) and not isinstance(x, bool)) for x in v
        )
    ):
        ck.fail(
            "classes", f"expected a list of 2 or more labels (strings or whole numbers), found {_kind(v)}"
        )
    text = [str(x) for x in v]
    twice = sorted({x for x in text if text.count(x) > 1})
    if twice:
        ck.fail("classes", f"{twice[0]!r} is listed twice")
    if any(shown(x) != x for x in text):
        ck.fail("classes", "a class holds a control or format character; classes are printed in messages")
    if len(prediction) > 1 and len(text) != len(prediction):
        ck.fail(
            "classes",
            f"{len(prediction)} prediction columns are the scores of {len(prediction)} classes; "
            f"classes names {len(text)}",
        )
    return text


def _direction(ck: _Checker, crit: Criterion, c: dict, where: str, declared: str, label: str) -> None:
    """The criterion's direction: the measure's (``declared``, from the registry); one given that
    contradicts it is an error, and a measure with no direction (the ideal is a value) needs its
    ``ideal``, by whose distance it is ranked.
    """
    given = c.get("direction")
    if given is not None and given != declared:
        ck.fail(
            f"{where}.direction",
            f"{given!r} contradicts the registry: "
            + (
                f"{label} has no better direction (its ideal is a value: give ideal = ...)"
                if declared == "none"
                else f"for {label}, {declared} is better"
            ),
        )
    ideal = c.get("ideal")
    if declared == "none":
        if ideal is None:
            ck.fail(
                where,
                f"{label} has no better direction (its ideal is a value, a calibration slope's 1): give "
                "ideal = the value, and entries are ranked by their distance to it",
            )
        if isinstance(ideal, bool) or not isinstance(ideal, (int, float)) or not math.isfinite(ideal):
            ck.fail(f"{where}.ideal", f"expected a finite number, found {_kind(ideal)}")
        crit.direction, crit.ideal = "ideal", float(ideal)
        return
    if ideal is not None:
        ck.fail(
            f"{where}.ideal",
            f"only a measure with no direction takes an ideal; {label}: {declared} is better",
        )
    crit.direction = declared


def _check_table_measure(ck: _Checker, crit: Criterion, c: dict, shape: _Shape) -> None:
    """A table task's criterion: a registry measure (``perf`` is the line tasks'), run once on a small
    data set of the task's shape (:func:`perfeval.contest.criteria.dry_run`): whatever
    ``perfeval.evaluate`` refuses for it is refused here, at load.  Its label, direction and whether
    it reads probabilities come from that run.
    """
    where = f"criterion {crit.name!r}"
    if crit.perf is not None:
        ck.fail(
            f"{where}.perf",
            'a table task\'s criteria name a registry measure (measure = "roc"); perf options are for '
            "the line formats",
        )
    if crit.measure is None:
        ck.fail(where, 'measure is missing: the registry measure it is, e.g. measure = "ndcg@10"')
    crit.dialect = ck.text(c, "dialect", where, required=False) or None
    try:
        got = dry_run(
            shape.problem,
            crit.measure,
            dialect=crit.dialect,
            classes=shape.classes if shape.problem == "classes" else list(shape.columns.prediction),
            width=shape.width,
            groups=shape.columns.group is not None,
            weights=shape.columns.weight is not None,
            hard=shape.hard,
        )
    except PerfError as e:
        ck.fail(f"{where}.measure", f"{crit.measure!r} cannot score this task: {one_line(e)}")
    crit.label = got.label
    _direction(ck, crit, c, where, got.direction, got.label)
    if got.probability and c.get("probability") is False:
        ck.fail(
            f"{where}.probability",
            f"{got.label} reads probabilities (a prediction outside [0, 1] makes it undefined); it cannot "
            "be false",
        )
    crit.probability = crit.probability or got.probability
    crit.rescale = got.probability and shape.problem == "classes" and not shape.hard


def _check_line_measure(ck: _Checker, crit: Criterion, c: dict, blocks: bool) -> None:
    """A line task's criterion: ``perf`` options or a registry ``measure`` (exactly one), the measure
    computed by the classic engine under the perf dialect (PERF's rules, float32 predictions: the
    options the dialect forms for it, ``-blocks`` for a block key); the direction is the measure's.
    """
    where = f"criterion {crit.name!r}"
    if (crit.perf is None) == (crit.measure is None):
        ck.fail(
            where,
            'a criterion names its measure once: measure = "roc" (a registry measure) or perf = ["-roc"] '
            "(perf's options)" + (", not both" if crit.perf is not None else ""),
        )
    dialect = ck.text(c, "dialect", where, required=False) or "perf"
    if dialect != "perf":
        ck.fail(
            f"{where}.dialect",
            f"{dialect!r}: a task of lines is scored by the classic engine (PERF's rules, float32 "
            "predictions): its criteria's dialect is perf (a table task takes the others)",
        )
    if crit.measure is None:
        assert crit.perf is not None
        if isinstance(crit.perf, list) and crit.perf and all(isinstance(o, str) for o in crit.perf):
            try:
                req = parse_options(list(crit.perf))
            except (ClassicExit, HelpRequested, PerfError):
                return  # said by _check_perf_options, in its words
            if len(req.flags) == 1 and not req.plot:
                (flag,) = req.flags
                _perf_direction(ck, crit, c, where, flag)
        return
    from perfeval.dialects.perf import check_specs
    from perfeval.measures import parse_measure

    try:
        spec = parse_measure(crit.measure)
        argv = check_specs([spec], 0.5, None)
    except PerfError as e:
        ck.fail(f"{where}.measure", f"{crit.measure!r}: {one_line(e)}")
    crit.perf = (["-blocks"] if blocks and spec.measure.blocks else []) + argv
    crit.label = f"MEAN_BLOCK_{spec.measure.name}" if blocks and spec.measure.blocks else spec.measure.name
    crit.dialect = "perf"
    _direction(ck, crit, c, where, spec.measure.direction, spec.measure.name)


def _perf_direction(ck: _Checker, crit: Criterion, c: dict, where: str, flag: str) -> None:
    """A ``perf`` criterion's direction: the registry's for the measure its option computes (a
    direction given that contradicts it is an error); "higher" when the registry has none by that
    name (the option prints several values: refused later).
    """
    from perfeval.measures import get_measure

    try:
        m = get_measure(flag)
    except UnknownMeasureError:
        return
    if m.direction == "none":
        return
    _direction(ck, crit, c, where, m.direction, m.name)


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
    if "measure" in c:
        ck.text(c, "measure", where)  # a string, said as such before it is parsed
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
    measure = c.get("measure")
    return Criterion(cname, c.get("perf"), direction, probability, lst, positives, measure=measure)


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


def task_of_table(d: dict, source: str) -> Task:
    """A task from its keys as a task file holds them, read (``d``: the TOML's table) and checked as
    :func:`load_task` checks a file's; ``source`` names it in the messages.
    """
    return _task(d, source)


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
