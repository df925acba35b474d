"""The leaderboard: every scored submission with team, time and scores, in a database.

SQLite by default (a file beside the answer key: ``<key>.leaderboard.sqlite``); PostgreSQL when
given a ``postgresql://`` URL (needs ``psycopg``).  The ranking per criterion takes each team's best
entry; ties go to the earlier submission.  The overall ranking orders teams by their mean rank over
the criteria (the KDD Cup 2004 rule), ties again to the earlier submission.

A task whose key splits its rows into a public and a private board (``usage``) has each submission's
private scores stored beside it (table ``private_scores``), read only once the organizer has
released the private board (table ``releases``); the final ranking then takes, for each team, the
best private score among its chosen final submissions (table ``finals``; none chosen: its best
public ones, up to the task's ``final_submissions``).  A submission over the task's
``submissions_per_day`` (per team, per UTC day) is stored as refused (table ``refusals``), unscored.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from perfeval.base.text import cell, shown
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
#: the tables of the public/private boards, the final choices and the refusals (created with the first)
SCHEMA_MORE = (
    "CREATE TABLE IF NOT EXISTS private_scores (submission INTEGER PRIMARY KEY, scores TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS releases (task TEXT PRIMARY KEY, released_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS finals (task TEXT NOT NULL, team TEXT NOT NULL, "
    "submission INTEGER NOT NULL, chosen_at TEXT NOT NULL, PRIMARY KEY (task, team, submission))",
    """CREATE TABLE IF NOT EXISTS refusals (
    id INTEGER PRIMARY KEY {auto},
    task TEXT NOT NULL,
    team TEXT NOT NULL,
    file TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    reason TEXT NOT NULL
)""",
    "CREATE TABLE IF NOT EXISTS definitions (submission INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS answer_keys (submission INTEGER PRIMARY KEY, digest TEXT NOT NULL)",
)


def utcnow() -> _dt.datetime:
    """The board's clock (UTC): a submission's time, and so its UTC day for the daily limit."""
    return _dt.datetime.now(_dt.timezone.utc)


def stamp(when: _dt.datetime) -> str:
    """A time as the board stores it: ISO 8601 in UTC, to the microsecond."""
    return when.astimezone(_dt.timezone.utc).isoformat(timespec="microseconds")


def over_the_limit(team: str, day: str, limit: int) -> str:
    """The message a team reads when a submission is over the task's daily limit (nothing of the key)."""
    return (
        f"team {cell(team)} has made {limit} submission(s) on {day} (UTC), the task's limit a day "
        f"(submissions_per_day = {limit}); this one was not scored: the next UTC day starts at 00:00 UTC"
    )


@dataclass
class Entry:
    """A submission to store: its team, file and public scores, its private scores (a task with
    boards), or why it is refused unscored (``refused``).
    """

    team: str
    file: str
    scores: dict[str, float] = field(default_factory=dict)
    private: dict[str, float] | None = None
    refused: str | None = None
    #: the digest of the task's scoring definition it was scored under (entry.task_fingerprint)
    fingerprint: str | None = None
    #: the digest of the answer key's file it was scored against (key_digest)
    key_digest: str | None = None


def key_digest(path: str) -> str:
    """A digest of the answer key's file, its bytes (stored with each submission: a key corrected
    since is noticed).
    """
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


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
    def __init__(
        self,
        url: str,
        create: bool = True,
        wait: float = WAIT,
        clock: Callable[[], _dt.datetime] | None = None,
    ):
        """Open the leaderboard at ``url`` (a SQLite file or a postgresql:// URL).  ``create=False``
        (reading) never creates a database or a table: a missing one is an error.  A store waits up
        to ``wait`` seconds for a database another writer holds, retrying, before it gives up with
        :class:`StoreError`.  ``clock`` (default :func:`utcnow`) gives the time of what is stored.
        """
        self.url, self.wait, self.create = url, wait, create
        self.clock = clock
        self.pg = url.startswith(("postgresql://", "postgres://"))
        if self.pg:
            try:
                import psycopg  # noqa: F401
            except ImportError:
                raise MissingDependencyError(
                    "a PostgreSQL leaderboard needs psycopg: pip install 'perfeval[postgres]'"
                ) from None
            self.ph = "%s"
            auto = "GENERATED ALWAYS AS IDENTITY"
            self.schema = [x.replace("{auto}", auto) for x in (SCHEMA, *SCHEMA_MORE)]
        else:
            if not create and not os.path.isfile(url):
                raise InputFormatError(
                    f"no leaderboard at {redacted(url)}: nothing has been scored there yet "
                    "(perfeval score stores the scores; --db names another database)"
                )
            self.ph = "?"
            self.schema = [x.replace("{auto}", "AUTOINCREMENT") for x in (SCHEMA, *SCHEMA_MORE)]
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

    def now(self) -> _dt.datetime:
        return (self.clock or utcnow)()

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        """Run `statements` in one transaction (the tables created first, race-free), retrying a
        transient failure with backoff for up to `wait` seconds.
        """

        def run(cur: Any) -> None:
            for q, params in statements:
                cur.execute(q, params)

        self._transaction(run)

    def _transaction(self, body: Callable[[Any], Any]) -> Any:
        """``body(cursor)`` in one write transaction (the tables created first, race-free), retried
        on a transient failure with backoff for up to `wait` seconds; its result.  A
        :class:`PerfError` that ``body`` raises (the caller's refusal) rolls back and passes on.
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
                for create in self.schema:
                    cur.execute(create)
                out = body(cur)
                self.conn.commit() if self.pg else cur.execute("COMMIT")
                return out
            except Exception as e:
                self._rollback()
                if isinstance(e, PerfError):
                    raise
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
            at = (when[0] if when else None) or stamp(self.now())
            rows.append((q, (task, team, file, at, _json(scores))))
        self._write(rows)

    def day_count(self, cur: Any, task: str, team: str, day: str) -> int:
        """How many submissions of ``team`` to ``task`` are stored (scored) on UTC day ``day``."""
        cur.execute(
            f"SELECT COUNT(*) FROM submissions WHERE task = {self.ph} AND team = {self.ph} "
            f"AND substr(submitted_at, 1, 10) = {self.ph}",
            (task, team, day),
        )
        return int(cur.fetchone()[0])

    def submitted_today(self, task: str, team: str) -> tuple[int, str]:
        """(the submissions ``team`` has stored for ``task`` on today's UTC day, that day)."""
        day = stamp(self.now())[:10]

        def read(cur: Any) -> int:
            return self.day_count(cur, task, team, day) if self._has(cur, "submissions") else 0

        return self._read(read), day

    def submit(self, task: str, entries: list[Entry], per_day: int | None = None) -> list[int | str]:
        """Store ``entries`` in one transaction, all or none: each scored one with its private scores
        (if any), unless its team has already stored ``per_day`` submissions on the UTC day of the
        board's clock (counted in this transaction, the entries before it included): then it is
        stored as refused, as is an entry already refused.  Each entry's id, or its refusal's message.
        Refused whole (:class:`InvalidParameterError`) when stored submissions of ``task`` were scored
        under another definition of it (their fingerprints differ from the entries'), or against
        another answer key (their key digests differ).
        """
        when = self.now()
        at, day = stamp(when), stamp(when)[:10]
        last = "last_insert_rowid()" if not self.pg else "lastval()"

        def run(cur: Any) -> list[int | str]:
            out: list[int | str] = []
            mine = {e.fingerprint for e in entries if e.fingerprint is not None}
            for fp in sorted(mine):
                cur.execute(
                    "SELECT COUNT(*) FROM definitions d JOIN submissions s ON s.id = d.submission "
                    f"WHERE s.task = {self.ph} AND d.fingerprint <> {self.ph}",
                    (task, fp),
                )
                other = int(cur.fetchone()[0])
                if other:
                    raise InvalidParameterError(
                        f"task {shown(task)}: {other} stored submission(s) were scored under another "
                        "definition of the task (its criteria, measures, columns or classes have changed "
                        "since): nothing stored; restore the task file they were scored with, or store "
                        "into a new leaderboard (--db)"
                    )
            for digest in sorted({e.key_digest for e in entries if e.key_digest is not None}):
                cur.execute(
                    "SELECT COUNT(*) FROM answer_keys k JOIN submissions s ON s.id = k.submission "
                    f"WHERE s.task = {self.ph} AND k.digest <> {self.ph}",
                    (task, digest),
                )
                other = int(cur.fetchone()[0])
                if other:
                    raise InvalidParameterError(
                        f"task {shown(task)}: {other} stored submission(s) were scored against another "
                        "answer key (its file has changed since): nothing stored; restore the key they were "
                        "scored against, or store into a new leaderboard (--db)"
                    )
            for e in entries:
                reason = e.refused
                if reason is None and per_day is not None:
                    if self.day_count(cur, task, e.team, day) >= per_day:
                        reason = over_the_limit(e.team, day, per_day)
                if reason is not None:
                    cur.execute(
                        "INSERT INTO refusals (task, team, file, submitted_at, reason) "
                        f"VALUES ({', '.join([self.ph] * 5)})",
                        (task, e.team, e.file, at, reason),
                    )
                    out.append(reason)
                    continue
                cur.execute(
                    "INSERT INTO submissions (task, team, file, submitted_at, scores) "
                    f"VALUES ({', '.join([self.ph] * 5)})",
                    (task, e.team, e.file, at, _json(e.scores)),
                )
                cur.execute(f"SELECT {last}")
                sid = int(cur.fetchone()[0])
                if e.fingerprint is not None:
                    cur.execute(
                        f"INSERT INTO definitions (submission, fingerprint) VALUES ({self.ph}, {self.ph})",
                        (sid, e.fingerprint),
                    )
                if e.key_digest is not None:
                    cur.execute(
                        f"INSERT INTO answer_keys (submission, digest) VALUES ({self.ph}, {self.ph})",
                        (sid, e.key_digest),
                    )
                if e.private is not None:
                    cur.execute(
                        f"INSERT INTO private_scores (submission, scores) VALUES ({self.ph}, {self.ph})",
                        (sid, _json(e.private)),
                    )
                out.append(sid)
            return out

        return self._transaction(run)

    def release(self, task: str) -> tuple[str, bool]:
        """Release ``task``'s private board: (its release time, whether it was released now)."""

        def run(cur: Any) -> tuple[str, bool]:
            cur.execute(f"SELECT released_at FROM releases WHERE task = {self.ph}", (task,))
            row = cur.fetchone()
            if row is not None:
                return str(row[0]), False
            at = stamp(self.now())
            cur.execute(f"INSERT INTO releases (task, released_at) VALUES ({self.ph}, {self.ph})", (task, at))
            return at, True

        return self._transaction(run)

    def released(self, task: str) -> str | None:
        """When ``task``'s private board was released, or None (held back)."""

        def read(cur: Any) -> str | None:
            if not self._has(cur, "releases"):
                return None
            cur.execute(f"SELECT released_at FROM releases WHERE task = {self.ph}", (task,))
            row = cur.fetchone()
            return None if row is None else str(row[0])

        return self._read(read)

    def choose(self, task: str, team: str, ids: list[int], most: int) -> None:
        """Make ``ids`` (submissions of ``team`` to ``task``, at most ``most``) the team's final
        submissions, in place of any chosen before; none: no choice (the fallback).  Refused once the
        private board is released, and for an id that is not the team's: nothing changes then.
        """
        if len(set(ids)) != len(ids):
            raise InvalidParameterError(f"board choose: submission {_twice(ids)} is named twice")
        if len(ids) > most:
            raise InvalidParameterError(
                f"board choose: {len(ids)} submissions named; a team chooses at most {most} (the task's "
                "final_submissions)"
            )

        def run(cur: Any) -> None:
            cur.execute(f"SELECT released_at FROM releases WHERE task = {self.ph}", (task,))
            row = cur.fetchone()
            if row is not None:
                raise InvalidParameterError(
                    f"task {shown(task)}: the private board was released at {shown(str(row[0]))}; the final "
                    "submissions cannot be chosen any more"
                )
            for i in ids:
                cur.execute(
                    f"SELECT team FROM submissions WHERE id = {self.ph} AND task = {self.ph}", (i, task)
                )
                found = cur.fetchone()
                if found is None or found[0] != team:
                    raise InvalidParameterError(
                        f"board choose: submission {i} is not one of team {cell(team)}'s submissions to "
                        f"task {shown(task)} (perfeval board list --team ... lists them)"
                    )
            cur.execute(f"DELETE FROM finals WHERE task = {self.ph} AND team = {self.ph}", (task, team))
            at = stamp(self.now())
            for i in ids:
                cur.execute(
                    "INSERT INTO finals (task, team, submission, chosen_at) "
                    f"VALUES ({self.ph}, {self.ph}, {self.ph}, {self.ph})",
                    (task, team, i, at),
                )

        self._transaction(run)

    def _has(self, cur: Any, table: str) -> bool:
        """Whether the database holds ``table`` (a board made before it was added has not)."""
        if self.pg:
            cur.execute("SELECT to_regclass(%s)", (table,))
            return cur.fetchone()[0] is not None
        cur.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
        return cur.fetchone() is not None

    def refusals(self, task: str) -> list[dict[str, Any]]:
        """Every refused submission of ``task``, oldest first."""

        def read(cur: Any) -> list[dict[str, Any]]:
            if not self._has(cur, "refusals"):
                return []
            cur.execute(
                f"SELECT team, file, submitted_at, reason FROM refusals WHERE task = {self.ph} ORDER BY id",
                (task,),
            )
            return [{"team": t, "file": f, "time": w, "reason": r} for t, f, w, r in cur.fetchall()]

        return self._read(read)

    def entries(self, task: str, private: bool = False) -> list[dict[str, Any]]:
        """Every stored submission of `task`, oldest first: ``id``, ``team``, ``file``, ``time``,
        ``scores`` (the public board's, for a task with boards), ``final`` (chosen by its team),
        ``definition`` (the fingerprint of the task it was scored under, or None: unknown), ``key``
        (the digest of the answer key's file it was scored against, or None: unknown); with
        ``private``, ``private`` too (its private scores, or None).  Waits (up to `wait` seconds) for
        a database a writer holds.  The private scores are read only when asked.
        """

        def read(cur: Any) -> list[dict[str, Any]]:
            cur.execute(
                f"SELECT id, team, file, submitted_at, scores FROM submissions WHERE task = {self.ph} "
                "ORDER BY id",
                (task,),
            )
            out = [
                {"id": i, "team": t, "file": f, "time": w, "scores": json.loads(s), "final": False}
                for i, t, f, w, s in cur.fetchall()
            ]
            by_id = {e["id"]: e for e in out}
            for e in out:
                e["definition"] = e["key"] = None  # stored before definitions (key digests) were: unknown
            if self._has(cur, "answer_keys"):
                cur.execute(
                    "SELECT k.submission, k.digest FROM answer_keys k JOIN submissions s "
                    f"ON s.id = k.submission WHERE s.task = {self.ph}",
                    (task,),
                )
                for i, d in cur.fetchall():
                    by_id[i]["key"] = d
            if self._has(cur, "definitions"):
                cur.execute(
                    "SELECT d.submission, d.fingerprint FROM definitions d JOIN submissions s "
                    f"ON s.id = d.submission WHERE s.task = {self.ph}",
                    (task,),
                )
                for i, f in cur.fetchall():
                    by_id[i]["definition"] = f
            if self._has(cur, "finals"):
                cur.execute(f"SELECT submission FROM finals WHERE task = {self.ph}", (task,))
                for (i,) in cur.fetchall():
                    if i in by_id:
                        by_id[i]["final"] = True
            if private:
                for e in out:
                    e["private"] = None
                if self._has(cur, "private_scores"):
                    cur.execute(
                        "SELECT p.submission, p.scores FROM private_scores p JOIN submissions s "
                        f"ON s.id = p.submission WHERE s.task = {self.ph}",
                        (task,),
                    )
                    for i, s in cur.fetchall():
                        by_id[i]["private"] = json.loads(s)
            return out

        return self._read(read)

    def _read(self, body: Callable[[Any], Any]) -> Any:
        """``body(cursor)``, reading; retried while a writer holds the database (up to `wait` seconds)."""
        deadline = time.monotonic() + self.wait
        delay = 0.05
        while True:
            cur = self.conn.cursor()
            try:
                out = body(cur)
                self._rollback()  # end the read transaction (PostgreSQL opens one)
                return out
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


def _json(scores: dict[str, float]) -> str:
    """Scores as stored: each a double by ``repr`` (read back to the same bits), a NaN as null."""
    return json.dumps({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in scores.items()})


def _twice(ids: list[int]) -> int:
    return next(i for i in ids if ids.count(i) > 1)


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


def finalists(
    entries: list[dict[str, Any]], directions: dict[str, str], most: int, by: str
) -> list[dict[str, Any]]:
    """Each team's final submissions, oldest first: those it chose (``final``); a team that chose
    none: its ``most`` best by the public score of criterion ``by`` (Kaggle's rule; ties: the
    earlier).
    """
    teams: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        teams.setdefault(e["team"], []).append(e)
    out = []
    for es in teams.values():
        chosen = [e for e in es if e["final"]]
        if not chosen:
            chosen = sorted(es, key=lambda e: _key(directions[by], e["scores"].get(by), e["time"]))[:most]
        out.extend(chosen)
    return sorted(out, key=lambda e: e["id"])


def private_rankings(
    entries: list[dict[str, Any]], directions: dict[str, str], most: int, by: str
) -> dict[str, list[Standing]]:
    """The final ranking (read with ``entries(task, private=True)``): :func:`rankings` of each
    team's :func:`finalists` by their private scores.
    """
    finals = finalists(entries, directions, most, by)
    return rankings([{**e, "scores": e.get("private") or {}} for e in finals], directions)


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
