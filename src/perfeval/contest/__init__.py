"""Scoring competitions: tasks (:mod:`~perfeval.contest.tasks`), answer keys and submissions checked
and scored (:mod:`~perfeval.contest.score`: lines, as PERF reads them; :mod:`~perfeval.contest.tables`:
CSV and Parquet tables, any registry measure), the leaderboard (:mod:`~perfeval.contest.board`).

Every door of the scorer (``perfeval score``, the Codabench and CodaLab scoring program, a Kaggle
metric) calls one entry: :func:`score_submission` (with :func:`read_key` to read the key once).
A Kaggle metric is :func:`perfeval.contest.kaggle.score` (``perfeval.contest.score`` is the module
that reads lines).
Its names are loaded on first use (the leaderboard's command does not load the measures).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ParticipantVisibleError", "Scores", "read_key", "score_boards", "score_submission"]


def __getattr__(name: str) -> Any:
    if name in ("read_key", "score_submission"):
        from perfeval.contest import entry

        return getattr(entry, name)
    if name in ("ParticipantVisibleError", "score_boards"):
        from perfeval.contest import kaggle

        return getattr(kaggle, name)
    if name == "Scores":
        from perfeval.contest.score import Scores

        return Scores
    raise AttributeError(f"module 'perfeval.contest' has no attribute {name!r}")
