"""A Kaggle metric: :func:`score` has the signature Kaggle's evaluation system calls
(``score(solution, submission, row_id_column_name, ...) -> float``) and raises
:class:`ParticipantVisibleError`, whose message Kaggle shows to the participant, for every problem of
the submission; a problem of the task or of the solution (the organiser's) is any other exception,
which Kaggle shows as a generic error.  The submission is checked and scored by the one entry every
door calls (:func:`perfeval.contest.score_submission`), with the same one-line messages, none of
which shows a value of the solution but the ids a submission lacks.

Kaggle passes every column of the solution but its ``Usage`` one, and calls the metric once for each
board (public, private) with the solution's and the submission's rows of that board.
:func:`score_boards` scores both boards of a solution that still holds its ``Usage`` column (to try a
metric before uploading it).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from perfeval.contest.entry import score_submission, task_of
from perfeval.contest.score import Scores
from perfeval.contest.tables import check_table, part, read_table_key, scored
from perfeval.contest.tasks import Task, task_of_table
from perfeval.exceptions import InvalidParameterError

__all__ = ["ParticipantVisibleError", "score", "score_boards"]

#: the arguments that describe a task in place of a task file
_TASK_ARGS = (
    "measure",
    "problem",
    "target",
    "prediction",
    "classes",
    "group",
    "weight",
    "dialect",
    "direction",
)


class ParticipantVisibleError(Exception):
    """A problem of the submission: Kaggle shows its message to the participant (it never holds a
    value of the solution but the ids a submission lacks).
    """


def _task_from(row_id_column_name: str, task: Any, args: dict[str, Any]) -> Task:
    unknown = sorted(set(args) - set(_TASK_ARGS))
    if unknown:
        raise InvalidParameterError(
            f"the Kaggle metric: unknown argument {unknown[0]!r} (a task file or preset as task=..., or "
            f"{', '.join(_TASK_ARGS)})"
        )
    if task is not None:
        if args:
            raise InvalidParameterError(f"the Kaggle metric: task=... or {', '.join(sorted(args))}, not both")
        t = task_of(task)
        if not t.table or t.columns is None:
            raise InvalidParameterError(
                f"task {t.name}: a Kaggle metric scores a table task, not one of lines"
            )
        if t.columns.id != row_id_column_name:
            raise InvalidParameterError(
                f"task {t.name}: its id column is {t.columns.id!r}, Kaggle's row_id_column_name "
                f"{row_id_column_name!r}"
            )
        if t.columns.usage is not None:  # Kaggle passes each board's rows, without their usage column
            t = replace(t, columns=replace(t.columns, usage=None))
        return t
    if "measure" not in args:
        raise InvalidParameterError(
            "the Kaggle metric: give the task (task=...) or its measure (measure=...)"
        )
    crit: dict[str, Any] = {"name": str(args["measure"]), "measure": args["measure"]}
    for k in ("dialect", "direction"):
        if k in args:
            crit[k] = args[k]
    d: dict[str, Any] = {"name": "kaggle", "submission": "table", "key": "table", "id": row_id_column_name}
    for k in ("problem", "target", "prediction", "classes", "group", "weight"):
        if k in args:
            d[k] = [args[k]] if k == "prediction" and isinstance(args[k], str) else args[k]
    d["criteria"] = [crit]
    return task_of_table(d, "the Kaggle metric's arguments")


def _value(task: Task, scores: Any) -> float:
    """The one number Kaggle ranks by: the task's total, else its first criterion."""
    if not scores.ok:
        raise ParticipantVisibleError("\n".join(scores.errors))
    name = task.total["name"] if task.total else task.criteria[0].name
    v = scores.scores[name]
    if not math.isfinite(v):
        # why a criterion has no number may depend on the solution (one class only): the organiser's
        raise InvalidParameterError(
            f"task {task.name}: {name} has no value for this submission "
            f"({scores.why.get(name, 'not finite')})"
        )
    return float(v)


def _without(frame: Any, column: str | None) -> Any:
    return frame.drop(columns=[column]) if column is not None and column in frame.columns else frame


def score(
    solution: Any,
    submission: Any,
    row_id_column_name: str,
    task: Any = None,
    usage: str = "Usage",
    **kwargs: Any,
) -> float:
    """Kaggle's metric: the submission (a data frame) checked whole against the solution and scored.

    Parameters
    ----------
    solution, submission : pandas.DataFrame
        As Kaggle passes them (the solution without its ``Usage`` column; one board's rows).  A
        ``usage`` column of boards still in the solution is refused (it would mix both boards'
        rows): :func:`score_boards` scores each board.
    row_id_column_name : str
        The id column of both.
    task : str or Task, optional
        A table task (a task file's path or a preset), else described by keyword arguments:
        ``measure`` (any registry measure), ``problem``, ``target``, ``prediction``, ``classes``,
        ``group``, ``weight``, ``dialect``, ``direction`` (as in a task file).

    Returns
    -------
    float
        The task's total, else its first criterion's score, at full precision.

    Raises
    ------
    ParticipantVisibleError
        Every problem of the submission (one line each, as ``perfeval score`` says them).
    InvalidParameterError, InputFormatError
        The task's or the solution's problems (the organiser's).
    """
    t = _task_from(row_id_column_name, task, kwargs)
    if usage in solution.columns:
        boards = set(solution[usage].astype(str).str.lower())
        if boards <= {"public", "private", "ignored"} and {"public", "private"} <= boards:
            raise InvalidParameterError(
                f"the solution still holds its {usage!r} column (Public and Private rows): Kaggle passes "
                "each board's rows without it; score_boards scores both boards, or drop the column"
            )
    key = read_table_key(_without(solution, usage), t)
    return _value(t, score_submission(t, key, submission, name="submission"))


def score_boards(
    solution: Any,
    submission: Any,
    row_id_column_name: str,
    task: Any = None,
    usage: str = "Usage",
    **kwargs: Any,
) -> dict[str, float]:
    """Both boards of a solution that holds its ``usage`` column (``Public`` / ``Private``, as Kaggle
    writes them; any case): ``{"public": x, "private": y}``, each equal to :func:`score` on that
    board's rows alone, bit for bit.  The submission is checked whole, once, against the whole solution
    (a problem anywhere rejects it, as Kaggle's checks of the whole file do) and joined with it once;
    then each board's rows are scored, as :func:`score` scores that board's part alone.  A row of the solution
    whose usage is neither (``Ignored``) is in no board.
    """
    t = _task_from(row_id_column_name, task, kwargs)
    if task is not None:
        usage = task_of(task).columns.usage or usage  # type: ignore[union-attr]
    if usage not in solution.columns:
        raise InvalidParameterError(f"the solution has no {usage!r} column (the rows' board)")
    boards = solution[usage].astype(str).str.lower()
    bad = sorted(set(boards) - {"public", "private", "ignored"})
    if bad:
        raise InvalidParameterError(
            f"the solution's {usage!r} column holds {bad[0]!r}: expected Public, Private or Ignored"
        )
    for board in ("public", "private"):
        if not (boards == board).any():
            raise InvalidParameterError(f"the solution's {usage!r} column names no {board.capitalize()} row")
    # read with its boards, so each board's rows are checked as perfeval score checks them (a board
    # whose rows give a criterion no number, or the same score whatever the predictions)
    assert t.columns is not None
    key = read_table_key(solution, replace(t, columns=replace(t.columns, usage=usage)))
    checked, joined = check_table(submission, t, key, name="submission")
    if joined is None:
        raise ParticipantVisibleError("\n".join(checked.errors))
    assert key.usage is not None
    out: dict[str, float] = {}
    for board in ("public", "private"):
        rows = key.usage == board  # the key keeps the solution's order
        out[board] = _value(t, scored(Scores("submission"), part(joined, rows), t))
    return out
