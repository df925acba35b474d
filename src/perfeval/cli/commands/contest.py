"""``perfeval score`` (submissions against an answer key, stored on the leaderboard) and
``perfeval leaderboard``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from perfeval.base.console import one_line
from perfeval.base.text import cell, place, shown
from perfeval.cli.load import note
from perfeval.cli.output import signature_line, table, write
from perfeval.contest.board import Board, StoreError, check_team, default_db, rankings, shown_direction
from perfeval.contest.entry import read_key, score_submission, task_signature
from perfeval.contest.score import Key
from perfeval.contest.tasks import Task, load_task
from perfeval.engine.report import dumps, with_reasons
from perfeval.exceptions import InputFormatError, InvalidParameterError


def _team_of(sub: str) -> str:
    """A team name from a submission's file name: shown escaped, blanks collapsed (so that a name
    cannot pad itself into the leaderboard's value and time columns), at most 200 characters.
    """
    name = os.path.splitext(os.path.basename(sub.rstrip("/")))[0]
    return " ".join(shown(name).split())[:200] or "?"


def _score_table(subs: list[str], results: list, names: list[str], task: Task) -> str:
    rows: list[list[str]] = [["submission".ljust(10), *(n.rjust(10) for n in names)]]
    for s, r in zip(subs, results, strict=True):
        if r.ok:
            rows.append([s, *(f"{r.scores[n]:>10.5f}" for n in names)])
        else:
            count = f"more than {r.n_errors - 1}" if r.capped else str(r.n_errors)
            rows.append([s, f"rejected: {count} error(s), listed on stderr"])

    # a line task's criteria are computed by the classic engine (PERF's tie rules, float32
    # predictions); a table task's by perfeval.evaluate (its dialects, its classes)
    return "\n".join([*table(rows, "lr"), signature_line(task_signature(task))]) + "\n"


def run_score(args: Any) -> int:
    """Score submissions; store them; print the table.  Exit status: 0 every submission scored (and
    stored), 1 one rejected, 2 a bad command line, task file or database, 75 scored but not stored
    (the scores are printed; run again, or store them by hand).
    """
    if not args.db_wait >= 0 or args.db_wait == float("inf"):
        raise InvalidParameterError(f"--db-wait {args.db_wait:g}: expected a number of seconds >= 0")
    team = check_team(args.team) if args.team is not None else None
    task = load_task(args.task)
    if task.columns is not None and task.columns.usage is not None:
        raise InvalidParameterError(
            f"task {task.name}: its key splits the rows into public and private boards (usage = "
            f"{task.columns.usage!r}); perfeval score cannot hold the private board back yet: score "
            "it with perfeval.contest.score_submission (Scores.boards)"
        )
    key = read_key(args.key, task)
    if isinstance(key, Key) and key.header is not None:  # said: a line of the key is not an example
        header = ", ".join(shown(x) for x in key.header)
        where = f"{place(args.key)}, line {key.header_line}"
        note(f"perfeval: note: {where} is the answer key's header ({header})\n")
    board = None if args.no_store else Board(args.db or default_db(args.key), wait=args.db_wait)
    not_stored = None
    try:
        results = [
            score_submission(task, key, sub, follow_links=args.follow_links) for sub in args.submissions
        ]
        if board is not None and any(r.ok for r in results):
            entries = [
                (task.name, team or _team_of(sub), shown(sub), r.scores)
                for sub, r in zip(args.submissions, results, strict=True)
                if r.ok
            ]
            try:
                board.add_all(entries)
            except StoreError as e:
                not_stored = e
    finally:
        if board is not None:
            board.close()
    names = [c.name for c in task.criteria] + ([task.total["name"]] if task.total else [])
    if args.format == "json":
        stored = board is not None and not_stored is None
        out = [
            {
                "submission": s,
                "ok": r.ok,
                "rows": r.rows,
                "stopped": r.stopped,
                "stored": r.ok and stored,
                "scores": with_reasons(r.scores, r.why),  # a null says why beside it
                "errors": r.errors,
            }
            for s, r in zip(args.submissions, results, strict=True)
        ]
        write(dumps(out, indent=2) + "\n")
    else:
        # a name is one cell: quoted when it holds blanks (a run of them would fake value columns)
        write(_score_table([cell(s) for s in args.submissions], results, names, task))
    for r in results:
        for line in r.errors:
            sys.stderr.write(f"perfeval: error: {line}\n")
    if not_stored is not None:
        sys.stdout.flush()
        sys.stderr.write(f"perfeval: error: the scores above were NOT stored: {one_line(not_stored)}\n")
        return 75
    return 0 if all(r.ok for r in results) else 1


def run_leaderboard(args: Any) -> int:
    task = load_task(args.task)
    if not os.path.isfile(args.key):
        raise InputFormatError(
            "cannot be read (no such file); the leaderboard lies beside its answer key", source=args.key
        )
    board = Board(args.db or default_db(args.key), create=False)
    ranks = rankings(board.entries(task.name), task.directions())
    board.close()
    if args.format == "json":
        write(dumps({k: [s.to_dict() for s in v] for k, v in ranks.items()}) + "\n")
        return 0
    if not ranks:
        write(f"no scored submissions for {task.name} yet\n")
        return 0
    out = [shown(task.title)]
    for crit, standings in ranks.items():
        if crit == "overall":
            out.append("\noverall (mean rank over the criteria)")
        else:
            out.append(f"\n{shown(crit)} ({shown_direction(task.directions()[crit])} is better)")
        for s in standings:
            v = "-" if s.value is None else f"{s.value:.5f}"
            # a team is one cell: quoted unless one plain word (`red 0.99000` could pass for a value)
            out.append(f"  {s.rank:>3}. {cell(s.team):<24} {v:>12}   {shown(s.time)}")
    write("\n".join(out) + "\n")
    return 0
