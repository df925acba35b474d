"""``perfeval score`` (submissions against an answer key, stored on the leaderboard),
``perfeval leaderboard`` and ``perfeval board`` (the organizer's: release the private board, choose a
team's final submissions, list a team's submissions).
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

from perfeval.base.console import one_line
from perfeval.base.text import cell, place, shown
from perfeval.cli.load import note
from perfeval.cli.output import signature_line, table, write
from perfeval.contest.board import (
    Board,
    Entry,
    StoreError,
    check_team,
    default_db,
    key_digest,
    over_the_limit,
    private_rankings,
    rankings,
    shown_direction,
)
from perfeval.contest.entry import read_key, score_submission, task_fingerprint, task_signature
from perfeval.contest.score import Key, Scores
from perfeval.contest.tasks import Task, load_task
from perfeval.engine.report import dumps, with_reasons
from perfeval.exceptions import InputFormatError, InvalidParameterError


def _team_of(sub: str) -> str:
    """A team name from a submission's file name: shown escaped, blanks collapsed (so that a name
    cannot pad itself into the leaderboard's value and time columns), at most 200 characters.
    """
    name = os.path.splitext(os.path.basename(sub.rstrip("/")))[0]
    return " ".join(shown(name).split())[:200] or "?"


def _number(v: float) -> str:
    """A score in a table: 5 decimals; one of 1e15 or more in magnitude (an RMSE of 8e151) at full
    precision (repr: the shortest text that reads back as the same double), not 150 digits.
    """
    return repr(float(v)) if math.isfinite(v) and abs(v) >= 1e15 else f"{v:.5f}"


def _score_table(subs: list[str], results: list, names: list[str], task: Task) -> str:
    rows: list[list[str]] = [["submission".ljust(10), *(n.rjust(10) for n in names)]]
    for s, r in zip(subs, results, strict=True):
        if r.ok:
            rows.append([s, *(f"{_number(r.scores[n]):>10}" for n in names)])
        elif r.refused:
            limit = task.submissions_per_day
            rows.append([s, f"refused: over the daily limit ({limit} a UTC day), on stderr"])
        else:
            count = f"more than {r.n_errors - 1}" if r.capped else str(r.n_errors)
            rows.append([s, f"rejected: {count} error(s), listed on stderr"])

    # a line task's criteria are computed by the classic engine (PERF's tie rules, float32
    # predictions); a table task's by perfeval.evaluate (its dialects, its classes)
    return "\n".join([*table(rows, "lr"), signature_line(task_signature(task))]) + "\n"


def run_score(args: Any) -> int:
    """Score submissions; store them; print the table.  Exit status: 0 every submission scored (and
    stored), 1 one rejected (or refused: over the daily limit), 2 a bad command line, task file or
    database, 75 scored but not stored (the scores are printed; run again, or store them by hand).
    A task with boards: only the public board's scores are printed; the private ones are stored.
    """
    if not args.db_wait >= 0 or args.db_wait == float("inf"):
        raise InvalidParameterError(f"--db-wait {args.db_wait:g}: expected a number of seconds >= 0")
    team = check_team(args.team) if args.team is not None else None
    task = load_task(args.task)
    key = read_key(args.key, task)
    digest = key_digest(args.key)  # stored with each submission: a key corrected since is noticed
    if isinstance(key, Key) and key.header is not None:  # said: a line of the key is not an example
        header = ", ".join(shown(x) for x in key.header)
        where = f"{place(args.key)}, line {key.header_line}"
        note(f"perfeval: note: {where} is the answer key's header ({header})\n")
    board = None if args.no_store else Board(args.db or default_db(args.key), wait=args.db_wait)
    not_stored = None
    teams = [team or _team_of(sub) for sub in args.submissions]
    try:
        results = _score_all(args, task, key, board, teams)
        if board is not None and any(r.ok or r.refused for r in results):
            try:
                _store(board, task, digest, args.submissions, teams, results)
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
                # a task with boards: the public board's scores only (the private ones are stored)
                "scores": with_reasons(r.scores, r.why),  # a null says why beside it
                "errors": r.errors,
            }
            | ({"refused": r.refused} if task.submissions_per_day is not None else {})
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


def _score_all(args: Any, task: Task, key: Any, board: Board | None, teams: list[str]) -> list[Scores]:
    """Each submission scored, or refused unscored when its team has stored the task's daily
    limit today (checked again when it is stored: :meth:`Board.submit`).
    """
    results = []
    seen: dict[str, int] = {}  # this command's scored submissions a team (a rejected one counts not)
    limit = task.submissions_per_day
    for sub, who in zip(args.submissions, teams, strict=True):
        if board is not None and limit is not None:
            done, day = board.submitted_today(task.name, who)
            if done + seen.get(who, 0) >= limit:
                results.append(_refused(sub, over_the_limit(who, day, limit)))
                continue
        results.append(score_submission(task, key, sub, follow_links=args.follow_links))
        if results[-1].ok:
            seen[who] = seen.get(who, 0) + 1
    return results


def _store(
    board: Board, task: Task, digest: str, subs: list[str], teams: list[str], results: list[Scores]
) -> None:
    """Store the scored submissions (with their private scores) and the refused ones; one refused
    when stored (over the limit after all: another scorer stored first) is marked so in ``results``.
    """
    entries = [
        Entry(
            who,
            shown(sub),
            dict(r.scores),
            private=None if r.boards is None else dict(r.boards["private"]),
            refused=r.errors[0] if r.refused else None,
            fingerprint=task_fingerprint(task),
            key_digest=digest,
        )
        for sub, who, r in zip(subs, teams, results, strict=True)
        if r.ok or r.refused
    ]
    outcomes = iter(board.submit(task.name, entries, task.submissions_per_day))
    for i, r in enumerate(results):
        if r.ok:
            outcome = next(outcomes)
            if isinstance(outcome, str):
                results[i] = _refused(r.submission, outcome)
        elif r.refused:
            next(outcomes)


def _refused(sub: str, message: str) -> Scores:
    """A submission refused unscored (over the daily limit): its one line, no score."""
    return Scores(sub, errors=[message], n_errors=1, refused=True)


def _open(args: Any, task: Task) -> Board:
    if not os.path.isfile(args.key):
        raise InputFormatError(
            "cannot be read (no such file); the leaderboard lies beside its answer key", source=args.key
        )
    return Board(args.db or default_db(args.key), create=False)


def _same_definition(task: Task, key_path: str, entries: list[dict[str, Any]]) -> None:
    """Refuse a leaderboard whose stored submissions were scored under another definition of the
    task (a criterion added, renamed or changed since), or against another answer key (a target
    corrected since): ranked together, their scores would mislead.  Submissions stored before
    definitions (key digests) were recorded are not judged.
    """
    try:
        digest: str | None = key_digest(key_path)
    except OSError:  # a reader not allowed to read the key: perfeval score never stores beside another's
        digest = None
    other = [e for e in entries if digest is not None and e.get("key") not in (None, digest)]
    if other:
        raise InvalidParameterError(
            f"task {shown(task.name)}: {len(other)} of its {len(entries)} stored submission(s) were scored "
            f"against another answer key (the file {place(key_path)} has changed since): restore the key "
            "they were scored against, or score them again into a new leaderboard (--db); perfeval has "
            "no command that rescores stored submissions"
        )
    mine = task_fingerprint(task)
    other = [e for e in entries if e.get("definition") not in (None, mine)]
    if other:
        raise InvalidParameterError(
            f"task {shown(task.name)}: {len(other)} of its {len(entries)} stored submission(s) were scored "
            "under another definition of the task (its criteria, measures, columns or classes have "
            "changed since): restore the task file they were scored with, or score them again into a "
            "new leaderboard (--db); perfeval has no command that rescores stored submissions"
        )


def _standings(task: Task, ranks: dict[str, list]) -> list[str]:
    out = []
    for crit, standings in ranks.items():
        if crit == "overall":
            out.append("\noverall (mean rank over the criteria)")
        else:
            out.append(f"\n{shown(crit)} ({shown_direction(task.directions()[crit])} is better)")
        for s in standings:
            v = "-" if s.value is None else _number(s.value)
            # a team is one cell: quoted unless one plain word (`red 0.99000` could pass for a value)
            out.append(f"  {s.rank:>3}. {cell(s.team):<24} {v:>12}   {shown(s.time)}")
    return out


def run_leaderboard(args: Any) -> int:
    """A task without boards: each criterion's standings and the overall ranking.  A task with
    boards: the public board's only while the private board is held back; once released, the final
    ranking (each team's best private score among its final submissions), then the public board.
    The private scores are not read from the database before the release.
    """
    task = load_task(args.task)
    board = _open(args, task)
    try:
        released = board.released(task.name) if task.boards else None
        entries = board.entries(task.name, private=released is not None)
    finally:
        board.close()
    _same_definition(task, args.key, entries)
    directions = task.directions()
    public = rankings(entries, directions)
    final = (
        private_rankings(entries, directions, task.final_submissions, task.ranked_by)
        if released is not None
        else None
    )
    if args.format == "json":

        def as_json(ranks: dict[str, list]) -> dict:
            return {k: [s.to_dict() for s in v] for k, v in ranks.items()}

        if not task.boards:
            write(dumps(as_json(public)) + "\n")
        else:
            doc: dict[str, Any] = {"released": released is not None, "public": as_json(public)}
            if final is not None:
                doc["released_at"], doc["private"] = released, as_json(final)
            write(dumps(doc) + "\n")
        return 0
    if not public:
        write(f"no scored submissions for {task.name} yet\n")
        return 0
    out = [shown(task.title)]
    if task.boards and final is None:
        out.append(
            "\npublic board (the private board is held back until the organizer releases it: "
            "perfeval board release)"
        )
    elif final is not None:
        out.append(
            f"\nprivate board, the final ranking (released {shown(released or '')}): each team's best "
            f"private score among its final submissions (chosen, at most {task.final_submissions}; "
            f"none chosen: its {task.final_submissions} best public {shown(task.ranked_by)})"
        )
        out += _standings(task, final)
        out.append("\npublic board")
    out += _standings(task, public)
    write("\n".join(out) + "\n")
    return 0


def run_board(args: Any) -> int:
    """``perfeval board release|choose|list``: the organizer's commands on a task's leaderboard."""
    task = load_task(args.task)
    if args.ids and args.action != "choose":
        raise InvalidParameterError(f"board {args.action} takes no submission ids (board choose does)")
    if args.action in ("release", "choose") and not task.boards:
        raise InvalidParameterError(
            f"task {shown(task.name)} has no private board (its key names no usage column): nothing to "
            f"{args.action}"
        )
    team = check_team(args.team) if args.team is not None else None
    if args.action == "choose" and team is None:
        raise InvalidParameterError("board choose needs --team (the team whose final submissions these are)")
    board = _open(args, task)
    try:
        if args.action == "release":
            at, now = board.release(task.name)
            said = "is released from now" if now else "was already released"
            write(f"task {shown(task.name)}: the private board {said} ({shown(at)})\n")
            return 0
        if args.action == "choose":
            assert team is not None
            board.choose(task.name, team, list(args.ids), task.final_submissions)
            chosen = ", ".join(str(i) for i in args.ids)
            write(
                f"team {cell(team)}: final submissions {chosen}\n"
                if args.ids
                else f"team {cell(team)}: no final submission chosen (its {task.final_submissions} best "
                f"public {shown(task.ranked_by)} count)\n"
            )
            return 0
        released = board.released(task.name) if task.boards else None
        every = board.entries(task.name, private=released is not None)
        entries = [e for e in every if team is None or e["team"] == team]
    finally:
        board.close()
    _same_definition(task, args.key, every)
    names = list(task.directions())
    if args.format == "json":
        keep = ("id", "team", "file", "time", "scores", "final") + (("private",) if released else ())
        write(dumps([{k: e[k] for k in keep} for e in entries], indent=2) + "\n")
        return 0
    rows = [["id", "team", "time", "final", *names, *(f"private {n}" for n in names if released)]]
    for e in entries:
        values = [e["scores"], *([e["private"] or {}] if released else [])]
        rows.append(
            [
                str(e["id"]),
                cell(e["team"]),
                shown(e["time"]),
                "yes" if e["final"] else "",
                *("-" if v.get(n) is None else _number(v[n]) for v in values for n in names),
            ]
        )
    write("\n".join(table(rows, "rlllr")) + "\n")
    return 0
