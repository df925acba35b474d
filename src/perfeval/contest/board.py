"""The leaderboard: every scored submission with team, time and scores, in a database.

SQLite by default (a file beside the answer key: ``<key>.leaderboard.sqlite``); PostgreSQL when
given a ``postgresql://`` URL (needs ``psycopg``).  The ranking per criterion takes each team's best
entry; ties go to the earlier submission.  The overall ranking orders teams by their mean rank over
the criteria (the KDD Cup 2004 rule), ties again to the earlier submission.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from perfeval.base.text import shown
from perfeval.engine.report import with_reasons
from perfeval.exceptions import InputFormatError, InvalidParameterError, MissingDependencyError, PerfError

# The database drivers (sqlite3; psycopg, optional) are imported where a board is opened.

SCHEMA = """CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY {auto},
    task TEXT NOT NULL,
    team TEXT NOT NULL,
    file TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    scores TEXT NOT NULL
)"""


def default_db(key_path: str) -> str:
    return key_path + ".leaderboard.sqlite"


WAIT = 60.0  # seconds a store waits for a busy database before giving up (--db-wait)
_LOCK = 0x70657266  # the PostgreSQL advisory lock that makes creating the table race-free ("perf")


def redacted(url: str) -> str:
    """`url` with any password replaced by ``***``: credentials are never printed.

    Examples
    --------
    >>> redacted("postgresql://alice:s3cret@db.example.org:5432/contest")
    'postgresql://alice:***@db.example.org:5432/contest'
    >>> redacted("postgresql:///contest?user=alice&password=s3cret")
    'postgresql:///contest?user=alice&password=***'
    >>> redacted("board.sqlite")
    'board.sqlite'
    """
    if not url.startswith(("postgresql://", "postgres://")):
        return shown(url)
    out = re.sub(r"^(postgres(?:ql)?://[^:/@?#]*):[^@/?#]*@", r"\1:***@", url)
    out = re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", out)
    return shown(out)


def _secret(url: str) -> str | None:
    """The password written in a PostgreSQL URL, if any (to strip it from a driver's message)."""
    try:
        parts = urlsplit(url)
        if parts.password:
            return unquote(parts.password)
        found = parse_qs(parts.query).get("password")
        return found[0] if found else None
    except ValueError:
        return None


def _uri_path(path: str) -> str:
    """A file path as the path of a SQLite ``file:`` URI (``?`` and ``#`` would end it)."""
    return quote(os.path.abspath(path))


class StoreError(PerfError):
    """Submissions were scored, but their scores could not be stored on the leaderboard (the
    command prints them and exits with status 75).
    """


class Board:
    def __init__(self, url: str, create: bool = True, wait: float = WAIT):
        """Open the leaderboard at ``url`` (a SQLite file or a postgresql:// URL).  ``create=False``
        (reading) never creates a database or a table: a missing one is an error.  A store waits up
        to ``wait`` seconds for a database another writer holds, retrying, before it gives up with
        :class:`StoreError`.
        """
        self.url, self.wait, self.create = url, wait, create
        self.pg = url.startswith(("postgresql://", "postgres://"))
        if self.pg:
            try:
                import psycopg  # noqa: F401
            except ImportError:
                raise MissingDependencyError(
                    "a PostgreSQL leaderboard needs psycopg: pip install 'perfeval[postgres]'"
                ) from None
            self.ph = "%s"
            self.schema = SCHEMA.replace("{auto}", "GENERATED ALWAYS AS IDENTITY")
        else:
            if not create and not os.path.isfile(url):
                raise InputFormatError(
                    f"no leaderboard at {redacted(url)}: nothing has been scored there yet "
                    "(perfeval score stores the scores; --db names another database)"
                )
            self.ph = "?"
            self.schema = SCHEMA.format(auto="AUTOINCREMENT")
        self.conn = self._connect()

    def _message(self, e: BaseException) -> str:
        text = " ".join(str(e).split()) or type(e).__name__
        secret = _secret(self.url)
        return text.replace(secret, "***") if secret else text

    def _connect(self):
        if self.pg:
            import psycopg

            try:
                return psycopg.connect(self.url, connect_timeout=max(1, int(min(self.wait, 30))))
            except psycopg.Error as e:
                raise InvalidParameterError(
                    f"cannot open the leaderboard database {redacted(self.url)}: {self._message(e)}"
                ) from None
        import sqlite3

        try:
            # a short busy timeout a try: the retry loop keeps to the deadline of --db-wait
            busy = min(self.wait, 0.25)
            if self.create:
                conn = sqlite3.connect(self.url, timeout=busy, isolation_level=None)
            else:  # never created; read-write when it can be, so that a hot journal left by a killed
                # writer is rolled back (a read-only connection cannot, and fails)
                try:
                    conn = sqlite3.connect(f"file:{_uri_path(self.url)}?mode=rw", uri=True, timeout=busy)
                    conn.execute("PRAGMA user_version")
                except sqlite3.OperationalError:
                    conn = sqlite3.connect(f"file:{_uri_path(self.url)}?mode=ro", uri=True, timeout=busy)
            try:
                conn.execute("PRAGMA user_version")  # fails here, not later, on a file that is no database
            except sqlite3.OperationalError as e:
                if not self._transient(e):  # busy: another writer holds it; the store will wait
                    raise
            return conn
        except sqlite3.Error as e:
            raise InvalidParameterError(
                f"cannot open the leaderboard database {redacted(self.url)}: {self._message(e)}"
            ) from None

    def _transient(self, e: BaseException) -> bool:
        """An error that waiting may cure: a busy or locked database, a dropped connection."""
        if self.pg:
            import psycopg

            return isinstance(
                e,
                (
                    psycopg.OperationalError,
                    psycopg.errors.SerializationFailure,
                    psycopg.errors.DeadlockDetected,
                    psycopg.errors.LockNotAvailable,
                ),
            )
        import sqlite3

        return isinstance(e, sqlite3.OperationalError) and ("locked" in str(e) or "busy" in str(e))

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        """Run `statements` in one transaction (the table created first, race-free), retrying a
        transient failure with backoff for up to `wait` seconds.
        """
        deadline = time.monotonic() + self.wait
        delay = 0.05
        while True:
            try:
                cur = self.conn.cursor()
                if self.pg:
                    # no statement waits past the deadline; then concurrent first uses, which would
                    # race in CREATE TABLE IF NOT EXISTS (a unique violation in the catalogue), go one
                    # at a time under a transaction-scoped lock
                    ms = max(1, int(1000 * (deadline - time.monotonic())))
                    cur.execute(f"SET LOCAL lock_timeout = {ms}")
                    cur.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                else:
                    cur.execute("BEGIN IMMEDIATE")  # the write lock now: no deadlock upgrading a read lock
                cur.execute(self.schema)
                for q, params in statements:
                    cur.execute(q, params)
                self.conn.commit() if self.pg else cur.execute("COMMIT")
                return
            except Exception as e:
                self._rollback()
                if not self._transient(e):
                    raise StoreError(
                        f"storing on the leaderboard {redacted(self.url)} failed: {self._message(e)}"
                    ) from None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreError(
                        f"the leaderboard {redacted(self.url)} stayed busy for {self.wait:g} s "
                        f"({self._message(e)}); --db-wait waits longer"
                    ) from None
                time.sleep(min(delay, left))
                delay = min(2 * delay, 1.0)
                if self.pg and self.conn.closed:
                    try:
                        self.conn = self._connect()
                    except InvalidParameterError:
                        pass  # still down: the next try says so

    def _rollback(self) -> None:
        try:
            if self.pg:
                self.conn.rollback()
            elif self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except Exception:
            pass

    def add(self, task: str, team: str, file: str, scores: dict[str, float], when: str | None = None) -> None:
        self.add_all([(task, team, file, scores, when)])

    def add_all(self, entries: list[tuple]) -> None:
        """Store scored submissions ``(task, team, file, scores[, when])``, all or none."""
        q = (
            "INSERT INTO submissions (task, team, file, submitted_at, scores) "
            f"VALUES ({', '.join([self.ph] * 5)})"
        )
        rows = []
        for task, team, file, scores, *when in entries:
            stamp = (when[0] if when else None) or _dt.datetime.now(_dt.timezone.utc).isoformat(
                timespec="microseconds"
            )
            clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in scores.items()}
            rows.append((q, (task, team, file, stamp, json.dumps(clean))))
        self._write(rows)

    def entries(self, task: str) -> list[dict[str, Any]]:
        """Every stored submission of `task`, oldest first; waits (up to `wait` seconds) for a
        database a writer holds.
        """
        deadline = time.monotonic() + self.wait
        delay = 0.05
        while True:
            cur = self.conn.cursor()
            try:
                cur.execute(
                    f"SELECT team, file, submitted_at, scores FROM submissions WHERE task = {self.ph} "
                    "ORDER BY id",
                    (task,),
                )
                rows = cur.fetchall()
                self._rollback()  # end the read transaction (PostgreSQL opens one)
                return [{"team": t, "file": f, "time": w, "scores": json.loads(s)} for t, f, w, s in rows]
            except Exception as e:
                self._rollback()
                if not self._transient(e):  # no submissions table: not a leaderboard
                    raise InputFormatError(
                        f"{redacted(self.url)} holds no leaderboard ({self._message(e)})"
                    ) from None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise InvalidParameterError(
                        f"the leaderboard {redacted(self.url)} stayed busy for "
                        f"{self.wait:g} s ({self._message(e)})"
                    ) from None
                time.sleep(min(delay, left))
                delay = min(2 * delay, 1.0)

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:
            pass


@dataclass
class Standing:
    team: str
    value: float | None
    time: str
    file: str
    rank: float
    why: str | None = None  # why `value` is None (or not a finite number)

    def to_dict(self) -> dict[str, Any]:
        """For JSON: a value that is not a number is null with its reason beside it (``why_null``)."""
        d = {k: v for k, v in self.__dict__.items() if k != "why"}
        return with_reasons(d, {"value": self.why} if self.why else None)


def _why_no_value(crit: str, scores: dict[str, Any]) -> str | None:
    """Why an entry's stored score for `crit` is no number: stored as null (it was not a number when
    scored), or not stored at all (the entry is older than the criterion).
    """
    v = scores.get(crit)
    if v is None and crit in scores:
        return f"no number: the entry's {crit} was not a number when it was scored"
    if v is None:
        return f"no score: the entry has no {crit} (it was stored before the task had that criterion)"
    return None


def _key(direction: str, value: float | None, time: str) -> tuple:
    """The order of entries for one criterion: the better value first (``higher``, ``lower``, or
    ``ideal:<x>``, the nearer to x), a missing one last; equal to the last bit, the earlier first.
    """
    if value is None:  # a missing value ranks last
        return (True, 0.0, time)
    if direction == "higher":
        return (False, -value, time)
    if direction == "lower":
        return (False, value, time)
    if direction.startswith("ideal:"):
        return (False, abs(value - float(direction[6:])), time)
    raise InvalidParameterError(
        f"a criterion's direction is higher, lower or ideal:<value>, not {direction!r}"
    )


def shown_direction(direction: str) -> str:
    """A direction in words: ``higher``, ``lower``, ``closest to 1.0``.

    Examples
    --------
    >>> shown_direction("lower"), shown_direction("ideal:1.0")
    ('lower', 'closest to 1.0')
    """
    return f"closest to {direction[6:]}" if direction.startswith("ideal:") else direction


def rankings(entries: list[dict[str, Any]], directions: dict[str, str]) -> dict[str, list[Standing]]:
    """Per criterion: each team's best entry, best first (ties: the earlier submission); and
    "overall": teams by their mean rank over the criteria.
    """
    if not entries:
        return {}
    out: dict[str, list[Standing]] = {}
    for crit, direction in directions.items():
        best: dict[str, dict] = {}
        for e in entries:
            cur = best.get(e["team"])
            if cur is None or _key(direction, e["scores"].get(crit), e["time"]) < _key(
                direction, cur["scores"].get(crit), cur["time"]
            ):
                best[e["team"]] = e
        ordered = sorted(best.values(), key=lambda e: _key(direction, e["scores"].get(crit), e["time"]))
        out[crit] = [
            Standing(
                e["team"],
                e["scores"].get(crit),
                e["time"],
                e["file"],
                i + 1,
                _why_no_value(crit, e["scores"]),
            )
            for i, e in enumerate(ordered)
        ]
    teams = {e["team"] for e in entries}
    first = {t: min(e["time"] for e in entries if e["team"] == t) for t in teams}
    mean_rank = {
        t: sum(next(s.rank for s in out[c] if s.team == t) for c in directions) / len(directions)
        for t in teams
    }
    ordered_teams = sorted(teams, key=lambda t: (mean_rank[t], first[t]))
    out["overall"] = [Standing(t, mean_rank[t], first[t], "", i + 1) for i, t in enumerate(ordered_teams)]
    return out


def check_team(team: str) -> str:
    """A team name given with ``--team``: 1 to 200 characters, no control characters (a newline
    would forge a leaderboard line, an escape sequence would reach a terminal).
    """
    if shown(team) != team:
        raise InvalidParameterError(
            f"--team {shown(team)}: a team name cannot hold control or format characters"
        )
    t = team.strip()
    if not t or len(t) > 200:
        raise InvalidParameterError("--team needs a name of 1 to 200 characters")
    if " ".join(t.split()) != t:
        raise InvalidParameterError(
            f"--team {t!r}: words of a team name are separated by single spaces "
            "(a run of blanks would shift the leaderboard's columns)"
        )
    return t
