"""Competition tasks are data: a TOML file names the submission and key formats and the criteria.

Bundled presets: ``kddcup2004-physics``, ``kddcup2004-protein``, ``kddcup2002-task2``
(``src/perfeval/contest/presets``).  A new contest is a new TOML file: pass its path as the task.

Schema::

    name, title
    submission = "id-score" | "block-id-score" | "ranked"
    key = "id-target" | "block-id-target" | "id-label"
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

import os
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from perfeval.exceptions import InvalidParameterError

SUBMISSIONS = ("id-score", "block-id-score", "ranked")
KEYS = ("id-target", "block-id-target", "id-label")


@dataclass
class Criterion:
    name: str
    perf: list[str]
    direction: str = "higher"
    probability: bool = False
    list: str | None = None
    positives: list[str] | None = None

    @property
    def perf_label(self) -> str:
        """The label perf prints the criterion's value under (ACC, ROC, MEAN_BLOCK_APR, ...)."""
        opts = [o.lower() for o in self.perf]
        flag = next(o for o in opts if o not in ("-blocks",) and o.startswith("-") and not _is_value(o))
        name = {"-auc": "ROC", "-slacq": "SLQ", "-top1": "TOP1", "-top10": "TOP10"}.get(flag, flag[1:].upper())
        return f"MEAN_BLOCK_{name}" if "-blocks" in opts else name


def _is_value(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


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

    def directions(self) -> dict[str, str]:
        d = {c.name: c.direction for c in self.criteria}
        if self.total:
            d[self.total["name"]] = self.total.get("direction", "higher")
        return d


def _toml(text: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def presets() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files("perfeval.contest.presets").iterdir()
                  if p.name.endswith(".toml"))


def _check_perf_options(source: str, c: Criterion) -> None:
    """The criterion's perf options must be options perf takes (refused here, when the task is loaded)."""
    from perfeval.classic.options import ClassicExit, HelpRequested, parse_options

    if not isinstance(c.perf, list) or not c.perf or not all(isinstance(o, str) for o in c.perf):
        raise InvalidParameterError(f"{source}: criterion {c.name}: perf must be a list of perf options, "
                                    f"e.g. [\"-roc\"], got {c.perf!r}")
    try:
        parse_options(list(c.perf))
    except (ClassicExit, HelpRequested) as e:
        why = " ".join(str(getattr(e, "text", e)).split()).removeprefix("Error: ")
        raise InvalidParameterError(f"{source}: criterion {c.name}: perf = {c.perf!r} is not a perf option list "
                                    f"({why or 'help or version options compute nothing'})") from None


def load_task(name_or_path: str) -> Task:
    """A bundled preset by name, or a task file by path."""
    if os.path.isfile(name_or_path):
        with open(name_or_path, encoding="utf-8") as f:
            text, source = f.read(), name_or_path
    elif name_or_path in presets():
        text = resources.files("perfeval.contest.presets").joinpath(f"{name_or_path}.toml").read_text()
        source = f"preset {name_or_path}"
    else:
        raise InvalidParameterError(f"unknown task {name_or_path!r}: not a file, nor a preset "
                                    f"({', '.join(presets())})")
    try:
        d = _toml(text)
    except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
        raise InvalidParameterError(f"{source}: not valid TOML ({e})") from None
    try:
        crits = [Criterion(**c) for c in d["criteria"]]
        task = Task(d["name"], d.get("title", d["name"]), d["submission"], d["key"], crits, d.get("lists", []),
                    d.get("total"), source)
    except (KeyError, TypeError) as e:
        raise InvalidParameterError(f"{source}: a task needs name, submission, key and [[criteria]] "
                                    f"(name, perf, direction): {e}") from None
    if task.submission not in SUBMISSIONS or task.key not in KEYS:
        raise InvalidParameterError(f"{source}: submission must be one of {SUBMISSIONS}, key one of {KEYS}")
    for c in task.criteria:
        if c.direction not in ("higher", "lower"):
            raise InvalidParameterError(f"{source}: criterion {c.name}: direction must be higher or lower")
        _check_perf_options(source, c)
    return task
