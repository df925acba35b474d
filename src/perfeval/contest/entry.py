"""The one entry of the scorer that every door calls (``perfeval score``, Codabench's and CodaLab's
scoring program, a Kaggle metric): :func:`score_submission` checks one submission against the
answer key and scores it by the task's criteria; :func:`read_key` reads the key once for many.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from perfeval.base.text import shown
from perfeval.contest.score import Key, Scores, score, score_argument
from perfeval.contest.score import read_key as read_line_key
from perfeval.contest.tables import TableKey, read_table_key, score_table
from perfeval.contest.tasks import Task, load_task
from perfeval.engine.signature import Signature, classes_text
from perfeval.exceptions import InputFormatError, InvalidParameterError


def task_of(task: Task | str | os.PathLike) -> Task:
    """A task: as given, else loaded (a preset's name, or a task file's path)."""
    return task if isinstance(task, Task) else load_task(os.fspath(task))


def read_key(key: Any, task: Task | str | os.PathLike) -> Key | TableKey:
    """The answer key of ``task``, read and checked once (every submission is scored against it):
    a path (a line task's text file; a table task's CSV or Parquet file), or, for a table task, a
    data frame (pandas, polars, a pyarrow Table).

    Raises
    ------
    InputFormatError
        The key cannot be read, or its first problem, naming its file, line and column.
    InvalidParameterError
        The task file's problem, or a key that a criterion cannot score.
    """
    task = task_of(task)
    if task.table:
        return read_table_key(key, task)
    if not isinstance(key, (str, os.PathLike)):
        raise InvalidParameterError(
            f"task {task.name}: the answer key of a task of lines ({task.key}) is a file's path, not "
            f"{type(key).__name__}"
        )
    return read_line_key(os.fspath(key), task)


def score_submission(
    task: Task | str | os.PathLike,
    key: Any,
    submission: Any,
    *,
    follow_links: bool = False,
    name: str | None = None,
) -> Scores:
    """Check one submission whole against the answer key and score it by the task's criteria.

    Parameters
    ----------
    task : Task, or str
        A task (:func:`perfeval.contest.tasks.load_task`), a preset's name or a task file's path.
    key : Key or TableKey, or a path, or a data frame
        The answer key, as :func:`read_key` gives it (read once for many submissions), or what
        :func:`read_key` reads.
    submission : path, list of paths, or data frame
        A file (CSV or Parquet for a table task; a text file of lines for the others), the files of a
        ranked-lists task (a list, a directory, or the names joined by commas), or a data frame
        (a table task only).  A file is read under the scorer's rules (docs/contest.md, "Running a
        contest safely"): no symbolic link unless ``follow_links``, no FIFO, never the key itself,
        refused unread when larger than a submission for this key can be.
    name : str, optional
        The submission's name in its messages (default: its path; ``a submission`` for a data frame).

    Returns
    -------
    Scores
        ``ok``; ``scores`` (criterion -> float, full precision); ``why`` (why a score is not a
        number); ``errors`` (one line each, naming the file, line or row, and column; no value of
        the key but the ids a submission lacks) when it is rejected.  A problem of the submission is
        never raised: it is in ``errors``.

    Raises
    ------
    InvalidParameterError, InputFormatError
        The task's or the key's problems (the organiser's), before any submission is read.
    """
    task = task_of(task)
    if not isinstance(key, (Key, TableKey)):
        key = read_key(key, task)
    if task.table != isinstance(key, TableKey):
        raise InvalidParameterError(
            f"task {task.name}: the answer key was read for a task of {'lines' if task.table else 'tables'}"
        )
    if isinstance(key, TableKey):
        return score_table(submission, task, key, follow_links, name)
    if isinstance(submission, (str, os.PathLike)):
        out = score_argument(os.fspath(submission), task, key, follow_links)
    elif isinstance(submission, Sequence) and all(isinstance(p, (str, os.PathLike)) for p in submission):
        paths = [os.fspath(p) for p in submission]
        try:
            out = score(paths, task, key, follow_links)
        except InputFormatError as e:
            out = Scores(",".join(paths), errors=[str(e)], n_errors=1)
    else:
        raise InvalidParameterError(
            f"task {task.name}: a submission of lines is a file's path (or the ranked lists' paths), not "
            f"{type(submission).__name__}"
        )
    if name is not None:
        out.submission = name
    return out


def task_fingerprint(task: Task) -> str:
    """A digest of what scores a task (its criteria: names, measures, options, dialects, directions;
    its total; its problem, columns (usage too) and classes), stored with each submission so that a
    leaderboard scored under another definition of the task is noticed.  Its name, title, daily limit
    and number of final submissions are not in it.
    """
    import dataclasses
    import hashlib
    import json

    what = {
        "criteria": [dataclasses.asdict(c) for c in task.criteria],
        "total": task.total,
        "shape": [task.submission, task.key, task.lists, task.labels, task.problem, task.classes],
        "columns": None if task.columns is None else dataclasses.asdict(task.columns),
    }
    text = json.dumps(what, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def task_signature(task: Task) -> Signature:
    """The signature of a task's scores (under every table of them): a line task's are the classic
    engine's (PERF's ties, float32 predictions); a table task's, perfeval's rules (or each
    criterion's dialect), its classes or labels, its weights.
    """
    if not task.table:
        return Signature(ties="perf", backend="classic", task=shown(task.name))
    ties = "+".join(dict.fromkeys(c.dialect or "perfeval" for c in task.criteria))
    classes = None
    if task.problem == "regression":
        classes = "regression"
    elif task.problem in ("classes", "labels") and task.columns is not None:
        names = task.classes if task.problem == "classes" else task.columns.prediction
        classes = classes_text("multiclass" if task.problem == "classes" else "multilabel", names)
    weighted = task.columns is not None and task.columns.weight is not None
    return Signature(ties=ties, weights=weighted, backend="memory", task=shown(task.name), classes=classes)
