"""The leaderboard: every scored submission with team, time and scores, in a database.

SQLite by default (a file beside the answer key: ``<key>.leaderboard.sqlite``); PostgreSQL when
given a ``postgresql://`` URL (needs ``psycopg``).  The ranking per criterion takes each team's best
entry; ties go to the earlier submission.  The overall ranking orders teams by their mean rank over
the criteria (the KDD Cup 2004 rule), ties again to the earlier submission.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import math
from dataclasses import dataclass
from typing import Any

from perfeval.exceptions import InputFormatError, InvalidParameterError, MissingDependencyError

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


class Board:
    def __init__(self, url: str, create: bool = True):
        """Open the leaderboard at ``url`` (a SQLite file or a postgresql:// URL).  ``create=False``
        (reading) never creates a database or a table: a missing one is an error."""
        self.url = url
        if url.startswith(("postgresql://", "postgres://")):
            try:
                import psycopg
            except ImportError:
                raise MissingDependencyError("a PostgreSQL leaderboard needs psycopg: pip install 'perfeval[postgres]'") from None
            try:
                self.conn = psycopg.connect(url)
            except psycopg.Error as e:
                raise InvalidParameterError(f"cannot open the leaderboard database {url}: "
                                            f"{str(e).strip().splitlines()[0]}") from None
            self.ph = "%s"
            auto = "GENERATED ALWAYS AS IDENTITY"
            schema = SCHEMA.replace("INTEGER PRIMARY KEY {auto}", f"INTEGER PRIMARY KEY {auto}")
        else:
            import sqlite3

            if not create and not os.path.isfile(url):
                raise InputFormatError(f"no leaderboard at {url}: nothing has been scored there yet "
                                       "(perfeval score stores the scores; --db names another database)")
            try:
                self.conn = sqlite3.connect(url) if create else sqlite3.connect(f"file:{url}?mode=ro", uri=True)
                self.conn.execute("PRAGMA user_version")  # fails here, not later, on a file that is no database
            except sqlite3.Error as e:
                raise InvalidParameterError(f"cannot open the leaderboard database {url}: {e}") from None
            self.ph = "?"
            schema = SCHEMA.format(auto="AUTOINCREMENT")
        if create:
            cur = self.conn.cursor()
            cur.execute(schema)
            self.conn.commit()

    def add(self, task: str, team: str, file: str, scores: dict[str, float], when: str | None = None) -> None:
        when = when or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")
        clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in scores.items()}
        q = f"INSERT INTO submissions (task, team, file, submitted_at, scores) VALUES ({', '.join([self.ph] * 5)})"
        cur = self.conn.cursor()
        cur.execute(q, (task, team, file, when, json.dumps(clean)))
        self.conn.commit()

    def entries(self, task: str) -> list[dict[str, Any]]:
        cur = self.conn.cursor()
        try:
            cur.execute(f"SELECT team, file, submitted_at, scores FROM submissions WHERE task = {self.ph} "
                        "ORDER BY id", (task,))
        except Exception as e:  # no submissions table: not a leaderboard
            raise InputFormatError(f"{self.url} holds no leaderboard ({' '.join(str(e).split())})") from None
        return [{"team": t, "file": f, "time": w, "scores": json.loads(s)} for t, f, w, s in cur.fetchall()]

    def close(self) -> None:
        self.conn.close()


@dataclass
class Standing:
    team: str
    value: float | None
    time: str
    file: str
    rank: float


def _key(direction: str, value: float | None, time: str) -> tuple:
    missing = value is None
    v = 0.0 if missing else (-value if direction == "higher" else value)
    return (missing, v, time)


def rankings(entries: list[dict[str, Any]], directions: dict[str, str]) -> dict[str, list[Standing]]:
    """Per criterion: each team's best entry, best first (ties: the earlier submission); and
    "overall": teams by their mean rank over the criteria."""
    if not entries:
        return {}
    out: dict[str, list[Standing]] = {}
    for crit, direction in directions.items():
        best: dict[str, dict] = {}
        for e in entries:
            cur = best.get(e["team"])
            if cur is None or _key(direction, e["scores"].get(crit), e["time"]) < _key(
                    direction, cur["scores"].get(crit), cur["time"]):
                best[e["team"]] = e
        ordered = sorted(best.values(), key=lambda e: _key(direction, e["scores"].get(crit), e["time"]))
        out[crit] = [Standing(e["team"], e["scores"].get(crit), e["time"], e["file"], i + 1)
                     for i, e in enumerate(ordered)]
    teams = {e["team"] for e in entries}
    first = {t: min(e["time"] for e in entries if e["team"] == t) for t in teams}
    mean_rank = {t: sum(next(s.rank for s in out[c] if s.team == t) for c in directions) / len(directions)
                 for t in teams}
    ordered_teams = sorted(teams, key=lambda t: (mean_rank[t], first[t]))
    out["overall"] = [Standing(t, mean_rank[t], first[t], "", i + 1) for i, t in enumerate(ordered_teams)]
    return out


def check_team(team: str) -> str:
    t = team.strip()
    if not t or len(t) > 200:
        raise InvalidParameterError("--team needs a name of 1 to 200 characters")
    return t
