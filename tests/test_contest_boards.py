"""The leaderboard of a task with public and private boards (docs/contest.md, "Public and private
boards"): the private board held back until the organizer releases it, each team's chosen final
submissions, the daily limit a team (a UTC day, on an injected clock).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

import numpy as np
import pytest

from conftest import run_cli
from perfeval.contest import board as board_mod
from perfeval.contest import score_submission
from perfeval.contest.board import Board, Entry
from perfeval.exceptions import InvalidParameterError

TASK = (
    'name = "t"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
    'target = "y"\nprediction = ["p"]\nusage = "Usage"\n{extra}[[criteria]]\nname = "auc"\nmeasure = "roc"\n'
)
N = 120


def _setup(tmp_path, extra: str = ""):
    """A key of N rows (a third public) and submissions whose public and private orders differ:
    ``good_public_k`` predicts the public rows well and the private ones at random, ``good_private_k``
    the other way round (k = 0, 1, 2: less noise as k grows).
    """
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, N)
    y[:4] = [0, 1, 0, 1]
    public = np.arange(N) % 3 == 0
    ids = np.arange(500, 500 + N)
    key = tmp_path / "key.csv"
    key.write_text(
        "row_id,y,Usage\n"
        + "".join(f"{i},{t},{'Public' if u else 'Private'}\n" for i, t, u in zip(ids, y, public, strict=True))
    )
    task = tmp_path / "t.toml"
    task.write_text(TASK.format(extra=extra))
    subs = {}
    for name, good in (("good_public", public), ("good_private", ~public)):
        for k in range(3):
            noise = rng.random(N)
            p = np.where(good, y * (0.2 + 0.05 * k) + noise * (0.8 - 0.05 * k), noise)
            f = tmp_path / f"{name}_{k}.csv"
            f.write_text("row_id,p\n" + "".join(f"{i},{float(v)!r}\n" for i, v in zip(ids, p, strict=True)))
            subs[f"{name}_{k}"] = str(f)
    return str(key), str(task), subs


def _cli(capsys, *argv):
    return run_cli([str(a) for a in argv], capsys)


def _private_values(key, task, subs) -> dict[str, float]:
    out = {}
    for name, f in subs.items():
        r = score_submission(task, key, f)
        assert r.ok and r.boards is not None
        out[name] = r.boards["private"]["auc"]
    return out


def _shown_forms(v: float) -> list[str]:
    return [repr(v), f"{v:.5f}", f"{v:.4f}", json.dumps(v)]


def test_the_private_board_is_stored_but_shown_nowhere_before_the_release(tmp_path, capsys):
    key, task, subs = _setup(tmp_path)
    private = _private_values(key, task, subs)
    public = {n: score_submission(task, key, f).scores["auc"] for n, f in subs.items()}
    used = ("good_public_2", "good_private_2")
    # the test can see a leak: no private value is written as a public one is
    assert not {s for n in used for s in _shown_forms(private[n])} & {
        s for n in used for s in _shown_forms(public[n])
    }
    seen = []
    for team in ("a", "b"):
        sub = [subs["good_public_2"]] if team == "a" else [subs["good_private_2"]]
        for fmt in ("table", "json"):
            code, out, err = _cli(
                capsys, "score", "--key", key, "--task", task, *sub, "--team", team, "--format", fmt
            )
            assert code == 0, err
            seen.append(out + err)
    for argv in (
        ["leaderboard"],
        ["leaderboard", "--format", "json"],
        ["board", "list"],
        ["board", "list", "--format", "json"],
        ["board", "list", "--team", "a"],
    ):
        code, out, err = _cli(capsys, *argv, "--key", key, "--task", task)
        assert code == 0, err
        seen.append(out + err)
    # the stored private scores are the private board's, bit for bit, computed when submitted
    conn = sqlite3.connect(key + ".leaderboard.sqlite")
    stored = dict(
        conn.execute(
            "SELECT s.team, p.scores FROM private_scores p JOIN submissions s ON s.id = p.submission"
        ).fetchall()
    )
    conn.close()
    assert json.loads(stored["a"])["auc"] == private["good_public_2"]
    assert json.loads(stored["b"])["auc"] == private["good_private_2"]
    text = "\n".join(seen)
    for name in ("good_public_2", "good_private_2"):
        for form in _shown_forms(private[name]):
            assert form not in text, (name, form)
    assert "private board is held back" in seen[4]
    doc = json.loads(seen[5])
    assert (
        doc["released"] is False
        and "private" not in doc
        and [s["team"] for s in doc["public"]["auc"]]
        == [
            "a",
            "b",
        ]
    )
    assert all("private" not in e for e in json.loads(seen[7]))


def test_after_the_release_the_final_ranking_is_the_private_boards(tmp_path, capsys):
    key, task, subs = _setup(tmp_path)
    private = _private_values(key, task, subs)
    for team, name in (("a", "good_public_2"), ("b", "good_private_2")):
        assert _cli(capsys, "score", "--key", key, "--task", task, subs[name], "--team", team)[0] == 0
    code, out, err = _cli(capsys, "board", "release", "--key", key, "--task", task)
    assert code == 0 and out.startswith("task t: the private board is released from now (")
    code, out, err = _cli(capsys, "board", "release", "--key", key, "--task", task)
    assert code == 0 and "was already released" in out
    code, out, err = _cli(capsys, "leaderboard", "--key", key, "--task", task, "--format", "json")
    doc = json.loads(out)
    assert doc["released"] is True
    assert [(s["team"], s["value"]) for s in doc["private"]["auc"]] == [
        ("b", private["good_private_2"]),
        ("a", private["good_public_2"]),
    ]
    assert [s["team"] for s in doc["private"]["overall"]] == ["b", "a"]
    assert [s["team"] for s in doc["public"]["auc"]] == ["a", "b"]
    code, out, err = _cli(capsys, "leaderboard", "--key", key, "--task", task)
    final = out.split("public board")[0]
    assert "private board, the final ranking" in final
    assert final.index(" b ") < final.index(" a ") and f"{private['good_private_2']:.5f}" in final


def test_a_task_without_boards_cannot_be_released_or_chosen(tmp_path, capsys):
    key, task, subs = _setup(tmp_path)
    plain = tmp_path / "plain.toml"
    plain.write_text(TASK.format(extra="").replace('usage = "Usage"\n', ""))
    # the key's Usage column, undeclared, is refused (it would score the private rows in public)
    code, out, err = _cli(capsys, "score", "--key", key, "--task", plain, subs["good_public_0"])
    assert code == 1 and "add usage = 'Usage' to the task, or drop or rename the column" in err
    with open(key) as f:
        text = f.read()
    with open(key, "w") as f:
        f.write(text.replace(",Usage\n", ",Phase\n"))
    assert _cli(capsys, "score", "--key", key, "--task", plain, subs["good_public_0"])[0] == 0
    for action in ("release", "choose"):
        code, out, err = _cli(capsys, "board", action, "--key", key, "--task", plain, "--team", "x")
        assert code == 2 and out == "" and "has no private board" in err and len(err.splitlines()) == 1


def _score_all(capsys, key, task, subs, team, names):
    for name in names:
        assert _cli(capsys, "score", "--key", key, "--task", task, subs[name], "--team", team)[0] == 0


def _final(capsys, key, task) -> dict[str, float]:
    code, out, err = _cli(capsys, "leaderboard", "--key", key, "--task", task, "--format", "json")
    assert code == 0, err
    return {s["team"]: s["value"] for s in json.loads(out)["private"]["auc"]}


def test_the_final_submissions_chosen_and_kaggles_fallback(tmp_path, capsys):
    key, task, subs = _setup(tmp_path, "final_submissions = 2\n")
    private = _private_values(key, task, subs)
    public = {n: score_submission(task, key, f).scores["auc"] for n, f in subs.items()}
    order = [
        "good_public_0",
        "good_public_1",
        "good_public_2",
        "good_private_0",
        "good_private_1",
        "good_private_2",
    ]
    _score_all(capsys, key, task, subs, "chooser", order)  # ids 1..6
    _score_all(capsys, key, task, subs, "lazy", order)  # ids 7..12, none chosen
    # more than K, an id twice, another team's or no such id: refused, nothing changes
    for ids, said in (
        (["1", "4", "5"], "a team chooses at most 2"),
        (["4", "4"], "submission 4 is named twice"),
        (["7"], "submission 7 is not one of team chooser's submissions"),
        (["99"], "submission 99 is not one of team chooser's"),
    ):
        code, out, err = _cli(
            capsys, "board", "choose", *ids, "--team", "chooser", "--key", key, "--task", task
        )
        assert code == 2 and out == "" and said in err and len(err.splitlines()) == 1, err
    code, out, err = _cli(
        capsys, "board", "choose", "1", "4", "--team", "chooser", "--key", key, "--task", task
    )
    assert code == 0 and out == "team chooser: final submissions 1, 4\n"
    code, out, err = _cli(
        capsys, "board", "list", "--team", "chooser", "--key", key, "--task", task, "--format", "json"
    )
    assert [e["id"] for e in json.loads(out) if e["final"]] == [1, 4]
    _cli(capsys, "board", "release", "--key", key, "--task", task)
    final = _final(capsys, key, task)
    # chosen: the best private score of submissions 1 and 4 (not the team's best private overall)
    assert final["chooser"] == max(private["good_public_0"], private["good_private_0"])
    assert final["chooser"] < max(private.values())
    # none chosen: the 2 best by the public score, then the best private among them (Kaggle's rule)
    best_public = sorted(order, key=lambda n: -public[n])[:2]
    assert final["lazy"] == max(private[n] for n in best_public)
    assert final["lazy"] != max(private.values())  # the fallback is not the best private one
    # after the release, the choice is closed
    code, out, err = _cli(capsys, "board", "choose", "2", "--team", "chooser", "--key", key, "--task", task)
    assert code == 2 and "released" in err and "cannot be chosen any more" in err
    assert _final(capsys, key, task) == final


def test_the_task_files_settings_are_checked(tmp_path, capsys):
    from perfeval.contest.tasks import load_task
    from perfeval.exceptions import InvalidParameterError

    f = tmp_path / "t.toml"
    f.write_text(TASK.format(extra="final_submissions = 3\nsubmissions_per_day = 5\n"))
    t = load_task(str(f))
    assert (t.final_submissions, t.submissions_per_day) == (3, 5)
    f.write_text(TASK.format(extra=""))
    assert (load_task(str(f)).final_submissions, load_task(str(f)).submissions_per_day) == (2, None)
    for extra, said in (
        ("final_submissions = 0\n", "final_submissions: expected a whole number >= 1"),
        ("submissions_per_day = 2.5\n", "submissions_per_day: expected a whole number >= 1"),
        ("submissions_per_day = true\n", "submissions_per_day: expected a whole number >= 1"),
    ):
        f.write_text(TASK.format(extra=extra))
        with pytest.raises(InvalidParameterError, match=said):
            load_task(str(f))
    f.write_text(TASK.format(extra="final_submissions = 2\n").replace('usage = "Usage"\n', ""))
    with pytest.raises(InvalidParameterError, match="final_submissions: .* needs a usage column"):
        load_task(str(f))


# -- the daily limit ---------------------------------------------------------------------------------------
class Clock:
    def __init__(self, at: dt.datetime):
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at


def test_the_daily_limit_counts_a_teams_submissions_in_a_utc_day(tmp_path, capsys, monkeypatch):
    key, task, subs = _setup(tmp_path, "submissions_per_day = 2\n")
    junk = tmp_path / "junk.csv"
    junk.write_bytes(b"\x00garbage,,\n" * 50)
    clock = Clock(dt.datetime(2026, 3, 1, 23, 59, 59, 999999, tzinfo=dt.timezone.utc))
    monkeypatch.setattr(board_mod, "utcnow", clock)
    # two of team a's, then b's (another team's count), then a's third: refused unscored
    assert (
        _cli(
            capsys,
            "score",
            "--key",
            key,
            "--task",
            task,
            subs["good_public_0"],
            subs["good_public_1"],
            "--team",
            "a",
        )[0]
        == 0
    )
    assert _cli(capsys, "score", "--key", key, "--task", task, subs["good_private_0"], "--team", "b")[0] == 0
    for sub in (subs["good_public_2"], str(junk)):  # the junk is not read: only the limit is said
        code, out, err = _cli(
            capsys, "score", "--key", key, "--task", task, sub, "--team", "a", "--format", "json"
        )
        want = (
            "team a has made 2 submission(s) on 2026-03-01 (UTC), the task's limit a day "
            "(submissions_per_day = 2); this one was not scored: the next UTC day starts at 00:00 UTC"
        )
        assert code == 1 and err == f"perfeval: error: {want}\n"
        (r,) = json.loads(out)
        assert (r["ok"], r["refused"], r["stored"], r["scores"], r["errors"]) == (
            False,
            True,
            False,
            {},
            [want],
        )
    code, out, err = _cli(capsys, "score", "--key", key, "--task", task, subs["good_public_2"], "--team", "a")
    assert code == 1 and "refused: over the daily limit (2 a UTC day)" in out
    b = Board(key + ".leaderboard.sqlite")
    assert [(x["team"], x["file"].rsplit("/", 1)[-1]) for x in b.refusals("t")] == [
        ("a", "good_public_2.csv"),
        ("a", "junk.csv"),
        ("a", "good_public_2.csv"),
    ]
    assert len(b.entries("t")) == 3
    b.close()
    # the next UTC day: a may submit twice again (one microsecond later)
    clock.at = dt.datetime(2026, 3, 2, 0, 0, 0, tzinfo=dt.timezone.utc)
    code, out, err = _cli(
        capsys,
        "score",
        "--key",
        key,
        "--task",
        task,
        subs["good_public_2"],
        subs["good_public_1"],
        subs["good_public_0"],
        "--team",
        "a",
    )
    assert code == 1 and err.count("team a has made 2 submission(s) on 2026-03-02 (UTC)") == 1
    assert [line.split()[0] for line in out.splitlines()[1:4]] == [
        subs[f"good_public_{k}"] for k in (2, 1, 0)
    ]
    assert "refused" in out.splitlines()[3] and "refused" not in out.splitlines()[2]
    # a rejected submission (a problem in the file) does not count: one rejected, then two scored
    clock.at = dt.datetime(2026, 3, 3, 12, tzinfo=dt.timezone.utc)
    bad = tmp_path / "bad.csv"
    bad.write_text("row_id,p\n500,0.5\n")
    argv = ["score", "--key", key, "--task", task, str(bad), subs["good_public_0"], subs["good_public_1"]]
    code, out, err = _cli(capsys, *argv, "--team", "a", "--format", "json")
    assert code == 1 and [r["ok"] for r in json.loads(out)] == [False, True, True] and "per_day" not in err
    # a day in another time zone is the UTC day: 01:00 in Paris on March 2 is March 2, 00:00 UTC
    clock.at = dt.datetime(2026, 3, 2, 1, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    code, out, err = _cli(capsys, "score", "--key", key, "--task", task, subs["good_public_0"], "--team", "a")
    assert code == 1 and "on 2026-03-02 (UTC)" in err


def test_the_limit_holds_between_scorers_that_checked_at_once(tmp_path):
    """Two scorers that both found the team under its limit before scoring: the second to store is
    refused, in the transaction that would store it."""
    db = str(tmp_path / "b.sqlite")
    clock = Clock(dt.datetime(2026, 3, 1, 12, tzinfo=dt.timezone.utc))
    one, two = Board(db, clock=clock), Board(db, clock=clock)
    assert one.submitted_today("t", "a") == two.submitted_today("t", "a") == (0, "2026-03-01")
    (first,) = one.submit("t", [Entry("a", "x.csv", {"auc": 0.5}, {"auc": 0.25})], per_day=1)
    (second,) = two.submit("t", [Entry("a", "y.csv", {"auc": 0.75}, {"auc": 0.125})], per_day=1)
    assert first == 1 and isinstance(second, str) and "has made 1 submission(s) on 2026-03-01" in second
    assert [e["file"] for e in one.entries("t", private=True)] == ["x.csv"]
    assert one.entries("t", private=True)[0]["private"] == {"auc": 0.25}
    assert [x["file"] for x in one.refusals("t")] == ["y.csv"]
    one.close()
    two.close()


@pytest.mark.parametrize("where", ["sqlite", "postgresql"])
def test_the_boards_tables_on_both_databases(tmp_path, where, request):
    """The daily limit, the private scores, the release and the choices, on SQLite and PostgreSQL
    (a throwaway server): the same answers."""
    url = request.getfixturevalue("postgres_url") if where == "postgresql" else str(tmp_path / "b.sqlite")
    clock = Clock(dt.datetime(2026, 3, 1, 23, 59, tzinfo=dt.timezone.utc))
    b = Board(url, clock=clock)
    assert b.released("t") is None and b.submitted_today("t", "a") == (0, "2026-03-01")
    out = b.submit(
        "t",
        [Entry("a", f"{k}.csv", {"auc": 0.5 + k / 10}, {"auc": 0.25 + k / 100}) for k in range(3)],
        per_day=2,
    )
    assert out[:2] == [1, 2] and isinstance(out[2], str) and "on 2026-03-01 (UTC)" in out[2]
    clock.at = dt.datetime(2026, 3, 2, 0, 0, tzinfo=dt.timezone.utc)
    assert b.submitted_today("t", "a") == (0, "2026-03-02")
    assert b.submit("t", [Entry("a", "late.csv", {"auc": 0.125}, {"auc": 0.875})], per_day=2) == [3]
    with pytest.raises(InvalidParameterError, match="not one of team b's"):
        b.choose("t", "b", [1], 2)
    b.choose("t", "a", [2, 3], 2)
    assert [e["id"] for e in b.entries("t") if e["final"]] == [2, 3] and "private" not in b.entries("t")[0]
    assert b.release("t")[1] is True and b.release("t")[1] is False and b.released("t") is not None
    with pytest.raises(InvalidParameterError, match="cannot be chosen any more"):
        b.choose("t", "a", [1], 2)
    got = b.entries("t", private=True)
    assert [e["private"] for e in got] == [{"auc": 0.25}, {"auc": 0.26}, {"auc": 0.875}]
    assert [r["file"] for r in b.refusals("t")] == ["2.csv"]
    b.close()


def test_a_board_that_ranks_every_team_alike_is_the_keys_error(tmp_path, capsys):
    """The prediction-independence check runs on each board, the rankings the leaderboard shows: a
    key whose public rows give NDCG@10 one query row each (every team scores 1.0 there) is refused
    at key load, by perfeval score, read_key and score_boards, naming the board; the whole key
    varies with the predictions, so the check on it alone let the task through."""
    pd = pytest.importorskip("pandas")
    from perfeval.contest import read_key, score_boards
    from perfeval.exceptions import InputFormatError

    task = tmp_path / "t.toml"
    task.write_text(
        'name = "q"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
        'prediction = "score"\ntarget = "rel"\ngroup = "query"\nusage = "Usage"\n'
        '[[criteria]]\nname = "NDCG@10"\nmeasure = "ndcg@10"\n'
    )
    rows = [(1, "q1", 1, "Public"), (2, "q2", 0, "Public"), (3, "q1", 0, "Private"), (4, "q1", 1, "Private")]
    rows += [(5, "q2", 1, "Private"), (6, "q2", 0, "Private"), (7, "q3", 1, "Public")]
    key = tmp_path / "k.csv"
    key.write_text("row_id,query,rel,Usage\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in rows))
    (tmp_path / "s.csv").write_text("row_id,score\n" + "".join(f"{r[0]},0.{r[0]}\n" for r in rows))
    code, out, err = _cli(capsys, "score", "--key", key, "--task", task, tmp_path / "s.csv", "--no-store")
    said = (
        "k.csv: the answer key (its public board's rows) gives criterion 'NDCG@10' (measure 'ndcg@10') "
        "the same score whatever the predictions"
    )
    assert code == 1 and out == "" and len(err.splitlines()) == 1 and said in err, (code, out, err)
    with pytest.raises(InputFormatError, match=r"its public board's rows\) gives criterion 'NDCG@10'"):
        read_key(str(key), str(task))
    solution = pd.DataFrame(rows, columns=["row_id", "query", "rel", "Usage"])
    sub = pd.DataFrame({"row_id": [r[0] for r in rows], "score": np.linspace(0.1, 0.7, 7)})
    args = {"measure": "ndcg@10", "problem": "binary", "target": "rel", "prediction": "score"}
    args["group"] = "query"
    with pytest.raises(InputFormatError, match=r"its public board's rows\) gives criterion 'ndcg@10'"):
        score_boards(solution, sub, "row_id", **args)
    # a public board of relevant rows only (NDCG 1.0 whatever the order): refused too, though its
    # targets are all alike
    rows[1], rows[3] = (2, "q2", 0, "Private"), (4, "q1", 1, "Public")
    key.write_text("row_id,query,rel,Usage\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in rows))
    with pytest.raises(InputFormatError, match=r"its public board's rows\) gives criterion 'NDCG@10'"):
        read_key(str(key), str(task))
    # a query with rows of both kinds on each board: accepted, and both boards move with the scores
    rows[2], rows[3] = (3, "q1", 0, "Public"), (4, "q1", 1, "Private")
    key.write_text("row_id,query,rel,Usage\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in rows))
    assert read_key(str(key), str(task)).rows == 7
    solution = pd.DataFrame(rows, columns=["row_id", "query", "rel", "Usage"])
    got = score_boards(solution, sub, "row_id", **args)
    assert set(got) == {"public", "private"}
