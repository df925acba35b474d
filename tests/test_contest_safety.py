"""The scorer exposed to teams: what a submission can never do (read other files, exhaust memory,
forge output, hide a scored result), task files refused at load, and stores that wait for a busy
database instead of losing a scored submission."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from conftest import run_cli
from perfeval.contest.board import Board, redacted

PHYSICS = "kddcup2004-physics"


def _files(tmp_path, n=200, seed=3):
    """An answer key in its own directory and a valid submission in another."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    p = np.round(rng.random(n), 4)
    (tmp_path / "secret").mkdir(exist_ok=True)
    (tmp_path / "subs").mkdir(exist_ok=True)
    key = tmp_path / "secret" / "key.txt"
    key.write_text("".join(f"ev{i} {t}\n" for i, t in enumerate(y)))
    sub = tmp_path / "subs" / "team.txt"
    sub.write_text("".join(f"ev{i} {p[i]}\n" for i in range(n)))
    return str(key), str(sub)


def _score(capsys, key, *subs, extra=()):
    return run_cli(["score", "--key", key, "--task", PHYSICS, *subs, "--no-store", *extra], capsys)


# -- paths -------------------------------------------------------------------------------------------
def test_a_symlink_to_the_key_is_refused_even_with_follow_links(tmp_path, capsys):
    key, _ = _files(tmp_path)
    link = tmp_path / "subs" / "sneaky.txt"
    link.symlink_to(key)
    code, out, err = _score(capsys, key, str(link))
    assert code == 1 and "is a symbolic link; a submission is a regular file" in err
    assert "secret" not in err.split(": ", 2)[-1] and "1.00000" not in out  # where it leads is not shown
    code, out, err = _score(capsys, key, str(link), extra=["--follow-links"])
    assert code == 1 and "is the answer key itself" in err and "1.00000" not in out


def test_a_hard_link_to_the_key_is_refused(tmp_path, capsys):
    key, _ = _files(tmp_path)
    os.link(key, tmp_path / "secret" / "copy.txt")
    code, _out, err = _score(capsys, key, str(tmp_path / "secret" / "copy.txt"))
    assert code == 1 and "is the answer key itself" in err


def test_any_link_needs_follow_links_even_to_another_teams_file(tmp_path, capsys):
    key, sub = _files(tmp_path)
    (tmp_path / "subs" / "alias.txt").symlink_to("team.txt")  # in the same directory: another team's file
    code, out, err = _score(capsys, key, str(tmp_path / "subs" / "alias.txt"))
    assert code == 1 and "symbolic link" in err
    code, out2, _err = _score(capsys, key, str(tmp_path / "subs" / "alias.txt"), extra=["--follow-links"])
    code0, out, _err = _score(capsys, key, sub)
    assert code == code0 == 0 and out2.splitlines()[1].split()[1:] == out.splitlines()[1].split()[1:]


def test_a_ranked_list_linked_to_a_system_file_shows_none_of_it(tmp_path, capsys):
    (tmp_path / "genes.txt").write_text(
        "".join(f"g{i} {['change', 'nc', 'control'][i % 3]}\n" for i in range(30))
    )
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    team = tmp_path / "team_a"
    team.mkdir()
    (team / "narrow.txt").symlink_to(secret)
    (team / "broad.txt").write_text("".join(f"g{i}\n" for i in range(30)))
    code, _out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "genes.txt"),
            "--task",
            "kddcup2002-task2",
            str(team),
            "--no-store",
        ],
        capsys,
    )
    assert code == 1 and "symbolic link" in err and "root:x" not in err and "daemon" not in err
    # the directory itself may not be a link that leaves its parent either
    (tmp_path / "entries").mkdir()
    (tmp_path / "entries" / "team_b").symlink_to(team)
    code, _out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "genes.txt"),
            "--task",
            "kddcup2002-task2",
            str(tmp_path / "entries" / "team_b"),
            "--no-store",
        ],
        capsys,
    )
    assert code == 1 and "symbolic link" in err


def test_a_fifo_or_a_directory_is_refused_without_blocking(tmp_path, capsys):
    key, _ = _files(tmp_path)
    fifo = tmp_path / "subs" / "pipe.txt"
    os.mkfifo(fifo)  # nobody writes to it: reading it would block forever
    code, _out, err = _score(capsys, key, str(fifo))
    assert code == 1 and "not a regular file" in err
    code, _out, err = _score(capsys, key, str(tmp_path / "subs"))
    assert code == 1 and "is a directory" in err


def test_an_error_shows_the_token_never_the_whole_line(tmp_path, capsys):
    key, _ = _files(tmp_path, n=3)
    long_id = "A" * 5000
    (tmp_path / "subs" / "x.txt").write_text(f"ev0 0.5\n{long_id} 0.5\nev2 0.1\nev1 {'9' * 3000}\n")
    code, _out, err = _score(capsys, key, str(tmp_path / "subs" / "x.txt"))
    assert code == 1 and "(5000 characters)" in err and "(3000 characters)" in err
    assert max(map(len, err.splitlines())) < 400


# -- numbers -----------------------------------------------------------------------------------------
def test_a_prediction_too_large_for_float32_is_refused_with_its_line(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("1 e1 0\n1 e2 1\n1 e3 1\n")
    (tmp_path / "sub.txt").write_text("1 e1 0.5\n1 e2 1e39\n1 e3 3e38\n")
    code, out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-protein",
            str(tmp_path / "sub.txt"),
            "--no-store",
        ],
        capsys,
    )
    assert code == 1 and "rejected" in out
    assert err.splitlines() == [
        f"perfeval: error: {tmp_path}/sub.txt, line 2: the prediction '1e39' is too large "
        "for the 32-bit float perf reads (at most 3.4028235e+38 in magnitude)"
    ]
    (tmp_path / "sub.txt").write_text("1 e1 0.5\n1 e2 -3e38\n1 e3 3e38\n")  # large but finite in float32
    code, out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-protein",
            str(tmp_path / "sub.txt"),
            "--no-store",
        ],
        capsys,
    )
    assert code == 0 and "inf" not in out


@pytest.mark.parametrize(
    "key_text, line, message",
    [
        ("e1 0\ne2 1\ne3 2\ne4 1\n", 3, "the target '2' is a third value in the key"),
        ("# answers\n\ne1 0\ne2 x\n", 4, "the answer key's target: expected a number, found 'x'"),
        ("e1 1\ne2 1\ne1 0\n", 3, "the answer key lists example 'e1' twice"),
    ],
)
def test_a_bad_answer_key_names_its_line(tmp_path, capsys, key_text, line, message):
    (tmp_path / "key.txt").write_text(key_text)
    (tmp_path / "sub.txt").write_text("e1 0.1\ne2 0.8\n")
    code, _out, err = _score(capsys, str(tmp_path / "key.txt"), str(tmp_path / "sub.txt"))
    assert code == 1 and err.startswith(f"perfeval: error: {tmp_path}/key.txt, line {line}: {message}")
    assert len(err.splitlines()) == 1


def test_a_block_key_with_a_third_value_in_one_block(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("1 a 0\n2 b 5\n1 c 1\n2 d 7\n1 e 2\n")
    (tmp_path / "sub.txt").write_text("1 a 0.1\n")
    code, _out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-protein",
            str(tmp_path / "sub.txt"),
            "--no-store",
        ],
        capsys,
    )
    assert code == 1 and "line 5: the target '2' is a third value in its block" in err


# -- junk in bounded memory --------------------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc")
def test_100_mb_of_junk_is_rejected_in_bounded_memory(tmp_path):
    key, _ = _files(tmp_path, n=100_000)  # a key large enough that 100 MB is not refused unread
    junk = tmp_path / "subs" / "junk.txt"
    rng = np.random.default_rng(0)
    with open(junk, "wb") as fh:  # junk that raises few errors, so that it is all read
        line = b"#" + bytes(rng.integers(33, 127, 998, dtype=np.uint8)) + b"\n"
        fh.write(line * 80_000)  # 80 MB of 1 kB comment lines
        fh.write(b"".join(b"ev%d 0.5\n" % i for i in range(100_000)))  # every example of the key
        fh.write((b"x" * (1 << 22) + b"\n") * 5)  # lines of 4 MiB: too long to read
        fh.write(b"y" * (1 << 20) * 3)  # and 3 MB with no line end at all
    size = junk.stat().st_size
    assert size > 100e6
    code = textwrap.dedent(f"""
        import sys
        from perfeval.cli.main import main
        status = main(["score", "--key", {key!r}, "--task", "{PHYSICS}", {str(junk)!r}, "--no-store"])
        # VmHWM: this process's own peak (ru_maxrss would carry the parent's peak across exec)
        hwm = next(ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")).split()[1]
        print(hwm, status, file=sys.stderr)
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    lines = run.stderr.splitlines()
    peak_kib, status = map(int, lines[-1].split())
    errors = lines[:-1]
    assert status == 1 and "rejected: 6 error(s)" in run.stdout  # each long line, and the unended one
    assert len(errors) == 6 and all("longer than 65536 bytes" in e for e in errors)
    assert peak_kib < 250 * 1024, f"peak {peak_kib / 1024:.0f} MiB for {size / 1e6:.0f} MB of junk"


def test_a_file_larger_than_any_submission_is_refused_unread(tmp_path, capsys):
    key, _ = _files(tmp_path, n=100)
    sparse = tmp_path / "subs" / "sparse.txt"
    with open(sparse, "wb") as fh:
        fh.truncate(5 << 30)  # 5 GiB that cost no disk: reading it would take minutes
    t0 = time.monotonic()
    code, out, err = _score(capsys, key, str(sparse))
    assert code == 1 and "more than a submission for this key can be" in err and "it was not read" in err
    assert time.monotonic() - t0 < 5


def test_line_rules_do_not_depend_on_the_file_size(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    good = open(sub).read().splitlines()
    variants = {
        "cr": "\r".join(good) + "\r",
        "long": good[0].replace(" ", " " * 70_000) + "\n" + "\n".join(good[1:]) + "\n",
    }
    for name, text in variants.items():
        decisions = []
        for pad in (0, 20_000):  # the same content, read whole or line by line
            path = tmp_path / "subs" / f"{name}{pad}.txt"
            path.write_text(text + "# padding\n" * pad)
            code, out, err = _score(capsys, key, str(path))
            decisions.append((code, [e.replace(str(path), "FILE") for e in err.splitlines()]))
        assert decisions[0] == decisions[1], (name, decisions)
    assert decisions[0][0] == 1 and "FILE, line 1: longer than 65536 bytes" in decisions[0][1][0]


def test_one_bad_upload_rejects_itself_only(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    os.mkfifo(tmp_path / "subs" / "fifo.txt")
    (tmp_path / "subs" / "link.txt").symlink_to(sub)
    bad_name = os.fsdecode(b"c\xff\xfe.txt")
    (tmp_path / "subs" / bad_name).write_bytes(open(sub, "rb").read())
    db = str(tmp_path / "board.sqlite")
    subs = [
        sub,
        str(tmp_path / "subs" / "fifo.txt"),
        str(tmp_path / "subs" / "link.txt"),
        str(tmp_path / "subs" / bad_name),
        str(tmp_path / "subs" / "missing.txt"),
    ]
    code, out, err = run_cli(["score", "--key", key, "--task", PHYSICS, *subs, "--db", db], capsys)
    rows = out.splitlines()[:-1]  # the last line is the signature
    assert code == 1 and len(rows) == 6 and out.splitlines()[-1].startswith("signature: ")
    assert [ln.split()[1] == "rejected:" for ln in rows[1:]] == [False, True, True, False, True]
    assert "c\\udcff\\udcfe.txt" in out
    assert _stored(db) == 2


def test_a_comma_in_an_uploads_name_never_splits_it(tmp_path, capsys, monkeypatch):
    (tmp_path / "genes.txt").write_text(
        "".join(f"g{i} {['change', 'nc', 'control'][i % 3]}\n" for i in range(30))
    )
    (tmp_path / "secret.env").write_text("db_password=hunter2\n")
    (tmp_path / "incoming").mkdir()
    (tmp_path / "incoming" / "x").write_text("".join(f"g{i}\n" for i in range(30)))
    (tmp_path / "incoming" / "x,secret.env").write_text("".join(f"g{i}\n" for i in range(30)))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        [
            "score",
            "--key",
            "genes.txt",
            "--task",
            "kddcup2002-task2",
            "incoming/x,secret.env",
            "--no-store",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 1 and "hunter2" not in out + err and "needs 2 ranked lists" in out


def test_huge_exponents_are_too_large_not_infinite(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("e1 0\ne2 1\n")
    (tmp_path / "sub.txt").write_text("e1 1e99999999999999999999\ne2 0.5\n")
    code, _out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            PHYSICS,
            str(tmp_path / "sub.txt"),
            "--no-store",
        ],
        capsys,
    )
    assert code == 1 and "is too large for the 32-bit float" in err


# -- what is printed ---------------------------------------------------------------------------------
def test_control_characters_in_names_are_shown_escaped(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    forged = tmp_path / "subs" / "evil\n1. winner   1.00000\x1b[2J.txt"
    forged.write_bytes(open(sub, "rb").read())
    db = str(tmp_path / "board.sqlite")
    code, out, err = run_cli(["score", "--key", key, "--task", PHYSICS, str(forged), "--db", db], capsys)
    assert code == 0 and "\x1b" not in out and len(out.splitlines()) == 3 and "evil\\n1. winner" in out
    for team, why in (
        ("a\nb", "cannot hold control or format characters"),
        ("x\u2028", "control or format"),
        ("red\u200b", "control or format"),
        ("red    0.99", "single spaces"),
    ):
        code, out, err = run_cli(
            ["score", "--key", key, "--task", PHYSICS, sub, "--db", db, "--team", team], capsys
        )
        assert code == 2 and why in err and len(err.splitlines()) == 1, err
    code, out, err = run_cli(
        ["score", "--key", key, "--task", PHYSICS, sub, "--db", db, "--team", "a\nb"], capsys
    )
    assert code == 2 and "a\\nb" in err
    board = Board(db)
    board.add(PHYSICS, "raw\x1b]0;pwned\x07\nname", "f.txt", {"ACC": 0.5, "ROC": 0.5, "CXE": 1.0, "SLQ": 0.1})
    board.close()
    code, out, err = run_cli(["leaderboard", "--key", key, "--task", PHYSICS, "--db", db], capsys)
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "raw\\x1b]0;pwned\\x07\\nname" in out
    assert all(not ln.lstrip().startswith("name") for ln in out.splitlines())
    code, out, err = run_cli(
        ["score", "--key", key, "--task", PHYSICS, str(tmp_path / "no\x1bsuch.txt"), "--no-store"], capsys
    )
    assert code == 1 and "\x1b" not in err and "no\\x1bsuch.txt" in err


def test_a_team_name_that_reads_as_a_value_is_quoted_on_the_leaderboard(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    fake = tmp_path / "subs" / "red 0.99000.txt"  # its team: 'red 0.99000', from the file name
    fake.write_bytes(open(sub, "rb").read())
    db = str(tmp_path / "board.sqlite")
    assert run_cli(["score", "--key", key, "--task", PHYSICS, str(fake), sub, "--db", db], capsys)[0] == 0
    code, out, _ = run_cli(["leaderboard", "--key", key, "--task", PHYSICS, "--db", db], capsys)
    rows = [ln for ln in out.splitlines() if ln.startswith("    1. ") or ln.startswith("    2. ")]
    assert code == 0 and len(rows) == 10
    for ln in rows:  # the name is one quoted cell, or one plain word: never a word and a number
        name = ln[7:].split("   ")[0].strip()
        assert name in ("'red 0.99000'", "team"), ln


def test_the_postgresql_password_is_never_printed(tmp_path, capsys):
    pytest.importorskip("psycopg")
    key, sub = _files(tmp_path, n=20)
    for url in (
        "postgresql://alice:s3cretpw@127.0.0.1:1/contest",
        "postgresql://alice@127.0.0.1:1/contest?password=s3cretpw&connect_timeout=1",
    ):
        code, out, err = run_cli(["score", "--key", key, "--task", PHYSICS, sub, "--db", url], capsys)
        assert code == 2 and "s3cretpw" not in err + out and "***" in err and len(err.splitlines()) == 1
    assert redacted("postgres://u:p%40ss@h/db") == "postgres://u:***@h/db"


# -- task files ----------------------------------------------------------------------------------------
GOOD = """name = "t"
submission = "id-score"
key = "id-target"
[[criteria]]
name = "ROC"
perf = ["-roc"]
direction = "higher"
[[criteria]]
name = "ACC"
perf = ["-acc", "-t", "0.5"]
"""

TASK_MISTAKES = [
    (GOOD.replace('name = "ACC"', 'name = "ROC"'), "criterion 'ROC': the name is used twice"),
    (GOOD.replace('name = "t"\n', ""), "task: name is missing"),
    (GOOD.replace('name = "t"', "name = 3"), "name: expected a non-empty string, found a number (3)"),
    (GOOD.replace('"id-score"', '"id-scores"'), "submission: 'id-scores' is not one of"),
    (GOOD.replace('key = "id-target"', 'key = "block-id-target"'), "key: a 'id-score' submission is scored"),
    (GOOD + "critera = 1\n", "unknown key 'critera'"),
    (
        GOOD.replace('direction = "higher"', 'direction = "up"'),
        "criterion 'ROC'.direction: 'up' is not one of",
    ),
    (
        GOOD.replace('perf = ["-roc"]', 'perf = "-roc"'),
        "criterion 'ROC': perf: expected a list of perf options",
    ),
    (GOOD.replace('perf = ["-roc"]', 'perf = ["-roc", "-acc"]'), "computes 2 measures (ACC, ROC)"),
    (GOOD.replace('perf = ["-roc"]', 'perf = ["-t", "0.5"]'), "perf: ['-t', '0.5'] computes 21 measures"),
    (GOOD.replace('perf = ["-roc"]', 'perf = ["-rocc"]'), "is not a perf option list"),
    (GOOD.replace('perf = ["-roc"]', 'perf = ["-blocks", "-apr"]'), "has -blocks, but the key has no blocks"),
    (
        GOOD.replace('perf = ["-roc"]', 'perf = ["-roc", "-plot", "roc"]'),
        "asks for a file, a plot or a table",
    ),
    (GOOD.replace('direction = "higher"', "probability = 1"), "probability: expected true or false"),
    (
        GOOD.replace('direction = "higher"', 'positives = ["1"]'),
        "only a key of labels (id-label) takes positives",
    ),
    (GOOD.replace('direction = "higher"', 'list = "narrow"'), "only a ranked task's criteria name a list"),
    (GOOD + '[total]\nname = "s"\nsum = ["ROC", "PRC"]\n', "total.sum: 'PRC' is not a criterion"),
    (GOOD + '[total]\nname = "ROC"\nsum = ["ROC"]\n', "total.name: 'ROC' is also a criterion's name"),
    (GOOD + '[total]\nname = "s"\n', "total: sum is missing"),
    (
        GOOD.replace('key = "id-target"', 'key = "id-target"\nlists = ["a"]'),
        "lists: only a ranked task has lists",
    ),
    (
        GOOD.replace('"id-score"', '"ranked"').replace('"id-target"', '"id-label"'),
        "lists: a ranked task names",
    ),
    (
        GOOD.replace('"id-score"', '"ranked"')
        .replace('"id-target"', '"id-label"')
        .replace('key = "id-label"', 'key = "id-label"\nlists = ["../../etc/x"]'),
        "is not a plain name",
    ),
    ('name = "t"\nsubmission = "id-score"\nkey = "id-target"\n', "criteria: a task needs at least one"),
    (
        'name = "t"\nsubmission = "id-score"\nkey = "id-target"\ncriteria = 5\n',
        "criteria: expected [[criteria]] tables",
    ),
    (
        GOOD.replace('[[criteria]]\nname = "ACC"', '[[criteria]]\nnome = "ACC"'),
        "criteria[2]: unknown key 'nome'",
    ),
    ("name = [1, \n", "not valid TOML"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    (
        GOOD.replace('perf = ["-roc"]', 'perf = ["-cal", "10"]'),
        "prints no value labelled CAL (it prints CA1, CA2)",
    ),
    (GOOD.replace('perf = ["-roc"]', 'perf = ["-slq", "0"]'), "is not a perf option list (option -slq"),
    (
        GOOD.replace('perf = ["-roc"]', 'perf = ["-ntop"]'),
        "is not a perf option list (option -ntop needs a value",
    ),
    (
        GOOD.replace('perf = ["-acc", "-t", "0.5"]', 'perf = ["-acc", "-t", "nan"]'),
        "an option's value must be a finite",
    ),
    (GOOD.replace('name = "ACC"', 'name = "overall"'), "'overall' names the leaderboard's ranking"),
    (GOOD.replace('name = "ACC"', 'name = "A\\nB"'), "holds a control or format character"),
]


@pytest.mark.parametrize("text, message", TASK_MISTAKES, ids=[m[:40] for _, m in TASK_MISTAKES])
def test_each_task_file_mistake_is_one_line_at_load(tmp_path, capsys, text, message):
    key, sub = _files(tmp_path, n=10)
    (tmp_path / "task.toml").write_text(text)
    code, out, err = run_cli(["score", "--key", key, "--task", str(tmp_path / "task.toml"), sub], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"perfeval: error: {tmp_path}/task.toml") and message in err, err
    assert not os.path.exists(key + ".leaderboard.sqlite")  # refused before anything is stored


# -- stores that wait, and never lose a scored submission ---------------------------------------------
HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def _holder(db: str, seconds: float) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", HOLD, db, str(seconds)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "locked"
    return p


def _stored(db: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]


def test_a_held_sqlite_lock_is_waited_for_and_the_submission_stored(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    db = str(tmp_path / "board.sqlite")
    Board(db).add_all([])  # the table exists
    holder = _holder(db, 6.5)  # longer than SQLite's own 5 s busy timeout
    t0 = time.monotonic()
    code, out, err = run_cli(
        ["score", "--key", key, "--task", PHYSICS, sub, "--db", db, "--team", "red"], capsys
    )
    holder.wait(timeout=30)
    assert code == 0 and err == "" and time.monotonic() - t0 > 6
    assert _stored(db) == 1


def test_the_leaderboard_waits_for_a_writer_holding_the_lock(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    db = str(tmp_path / "board.sqlite")
    assert (
        run_cli(["score", "--key", key, "--task", PHYSICS, sub, "--db", db, "--team", "red"], capsys)[0] == 0
    )
    holder = _holder(db, 6)
    code, out, err = run_cli(
        ["leaderboard", "--key", key, "--task", PHYSICS, "--db", db, "--format", "json"], capsys
    )
    holder.wait(timeout=30)
    assert code == 0 and json.loads(out)["ROC"][0]["team"] == "red", err


def test_a_store_that_keeps_failing_prints_the_scores_and_exits_75(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    db = str(tmp_path / "board.sqlite")
    Board(db).add_all([])
    holder = _holder(db, 8)
    try:
        code, out, err = run_cli(
            [
                "score",
                "--key",
                key,
                "--task",
                PHYSICS,
                sub,
                "--db",
                db,
                "--db-wait",
                "0.5",
                "--format",
                "json",
            ],
            capsys,
        )
    finally:
        holder.kill()
        holder.wait()
    assert code == 75
    entry = json.loads(out)[0]
    assert entry["ok"] and not entry["stored"] and set(entry["scores"]) == {"ACC", "ROC", "CXE", "SLQ"}
    assert err.startswith("perfeval: error: the scores above were NOT stored: ") and "--db-wait" in err
    assert _stored(db) == 0


def test_twenty_scorers_on_a_fresh_postgresql_database_all_stored(tmp_path, postgres_url):
    key, sub = _files(tmp_path, n=300)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "perfeval",
                "score",
                "--key",
                key,
                "--task",
                PHYSICS,
                sub,
                "--team",
                f"team{i}",
                "--db",
                postgres_url,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(20)
    ]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    assert [r for r in results if r[0] != 0] == []
    import psycopg

    with psycopg.connect(postgres_url) as conn:
        teams = [t for (t,) in conn.execute("SELECT team FROM submissions ORDER BY team")]
    assert sorted(teams) == sorted(f"team{i}" for i in range(20))


def test_twenty_concurrent_sqlite_scorers_all_stored(tmp_path):
    key, sub = _files(tmp_path, n=300)
    db = str(tmp_path / "board.sqlite")  # fresh: the scorers race to create it
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "perfeval",
                "score",
                "--key",
                key,
                "--task",
                PHYSICS,
                sub,
                "--team",
                f"team{i}",
                "--db",
                db,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(20)
    ]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    assert [r for r in results if r[0] != 0] == []
    with sqlite3.connect(db) as conn:
        teams = sorted(t for (t,) in conn.execute("SELECT team FROM submissions"))
    assert teams == sorted(f"team{i}" for i in range(20))


def test_no_message_depends_on_the_true_targets(tmp_path, capsys):
    """The same submissions against two keys that differ only in their targets: the same errors, the
    same decisions (rejected or scored), line for line."""
    rng = np.random.default_rng(11)
    n = 60
    ids = [f"ev{i}" for i in range(n)]
    keys = []
    for k in range(2):
        path = tmp_path / f"key{k}.txt"
        path.write_text("".join(f"{i} {int(t)}\n" for i, t in zip(ids, rng.random(n) < 0.5, strict=False)))
        keys.append(str(path))
    tokens = ["0.5", "1.5", "-0.1", "nan", "1e39", "x", "", "0.25 7", "1e-3"]
    for trial in range(60):
        lines = []
        for i in rng.permutation(n)[: n - int(rng.integers(0, 3))]:
            ident = ids[i] if rng.random() > 0.05 else "zz"
            lines.append(f"{ident} {tokens[rng.integers(0, len(tokens))] if rng.random() < 0.1 else '0.5'}")
        if rng.random() < 0.3:
            lines.append(lines[0])
        (tmp_path / "sub.txt").write_text("\n".join(lines) + "\n")
        seen = []
        for key in keys:
            code, out, err = _score(capsys, key, str(tmp_path / "sub.txt"))
            seen.append((code, err, "rejected" in out))
        assert seen[0] == seen[1], trial


def test_db_wait_is_kept_to(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    db = str(tmp_path / "board.sqlite")
    Board(db).add_all([])
    holder = _holder(db, 20)
    try:
        for wait in (0, 1.5):
            t0 = time.monotonic()
            code, _out, _err = run_cli(
                ["score", "--key", key, "--task", PHYSICS, sub, "--db", db, "--db-wait", str(wait)], capsys
            )
            assert code == 75 and time.monotonic() - t0 < wait + 1.5
    finally:
        holder.kill()
        holder.wait()


def test_the_leaderboard_reads_after_a_writer_was_killed(tmp_path, capsys):
    key, sub = _files(tmp_path, n=50)
    db = str(tmp_path / "board.sqlite")
    assert (
        run_cli(["score", "--key", key, "--task", PHYSICS, sub, "--db", db, "--team", "red"], capsys)[0] == 0
    )
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import sqlite3, time
        conn = sqlite3.connect({db!r}, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO submissions (task, team, file, submitted_at, scores) VALUES "
                     "('{PHYSICS}', 'ghost', 'g', '2099', '{{}}')")
        conn.execute("PRAGMA cache_spill = 1")
        conn.execute("DELETE FROM submissions WHERE team = 'red'")
        print("written", flush=True)
        time.sleep(60)
    """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout.readline().strip() == "written"
    writer.kill()  # SIGKILL mid-transaction: a hot journal may be left beside the database
    writer.wait()
    code, out, err = run_cli(
        ["leaderboard", "--key", key, "--task", PHYSICS, "--db", db, "--format", "json"], capsys
    )
    assert code == 0, err
    assert [s["team"] for s in json.loads(out)["ROC"]] == ["red"]  # the killed transaction is rolled back


# -- issue 30: trust at the edges ---------------------------------------------------------------------
def test_blanks_in_a_file_name_cannot_fake_columns_of_the_score_table(tmp_path, capsys):
    """A name with a run of blanks (or a tab, a no-break space, a quote) is quoted in the table, so it
    is one cell: its blanks cannot pass for the gap before value columns (they were shown as they are)."""
    key, sub = _files(tmp_path, n=50)
    names = [
        "red   0.99000   0.99000   0.01000   0.99000",
        "tab\t0.99\t0.99",
        "nbsp\u00a0\u00a00.99000",
        "  leading",
        'it\'s "quoted"',
    ]
    paths = []
    for name in names:
        path = tmp_path / "subs" / name
        path.write_bytes(open(sub, "rb").read())
        paths.append(str(path))
    code, out, err = _score(capsys, key, sub, *paths)
    assert code == 0, err
    rows = out.splitlines()[1:-1]
    assert rows[0].startswith(sub + " ")  # a plain name stays as it is
    for path, row in zip(paths, rows[1:], strict=True):
        literal = repr(path)  # one Python string literal: quotes, escapes
        assert row.startswith(literal + " "), row
        assert len(row[len(literal) :].split()) == 4  # then the four scores, nothing more
        assert "\t" not in row and "\u00a0" not in row


def _linked_tree(tmp_path):
    """subs/team.txt; other/inner/team.txt; entries/linkdir -> other (a link a team could plant)."""
    key, sub = _files(tmp_path, n=50)
    (tmp_path / "other" / "inner").mkdir(parents=True)
    (tmp_path / "other" / "inner" / "team.txt").write_bytes(open(sub, "rb").read())
    (tmp_path / "entries").mkdir()
    (tmp_path / "entries" / "linkdir").symlink_to(tmp_path / "other")
    return key


@pytest.mark.parametrize(
    "path",
    [
        "entries/linkdir/inner/team.txt",  # a link in a directory above the file's own
        "entries/linkdir/./inner/team.txt",
        "entries/linkdir/inner/./team.txt",
        "entries/linkdir/../other/inner/team.txt",  # linkdir/.. is the link target's parent
        "entries/linkdir/inner/../inner/team.txt",
        "entries//linkdir/inner/team.txt",
    ],
)
def test_a_link_anywhere_on_a_submissions_path_is_refused(tmp_path, capsys, monkeypatch, path):
    """Every directory on the path is opened without following a link (only the file's own
    directory was checked, and `linkdir/.` passed that check)."""
    key = _linked_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    for arg in (path, f"{tmp_path}/{path}"):
        code, out, err = _score(capsys, key, arg)
        link = arg[: arg.index("linkdir") + len("linkdir")].replace("//", "/")  # the path walked
        assert code == 1 and "rejected" in out, (arg, out)
        assert err == (
            f"perfeval: error: {arg}: is reached through a symbolic link ({link!r}); "
            "a submission is read through no link (--follow-links accepts links)\n"
        ), err
        code, out, err = _score(capsys, key, arg, extra=["--follow-links"])
        assert code == 0, err


def test_paths_without_links_are_read_whatever_their_dots_and_slashes(tmp_path, capsys, monkeypatch):
    key = _linked_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    for arg in (
        "subs/team.txt",
        "subs/./team.txt",
        "other/inner/../../subs/team.txt",
        "subs//team.txt",
        "./subs/team.txt",
    ):
        code, out, err = _score(capsys, key, arg)
        assert code == 0, (arg, err)
    code, out, err = _score(capsys, key, "subs/team.txt/")
    assert code == 1 and err == "perfeval: error: subs/team.txt/: cannot be read (Not a directory)\n"
    for arg in ("subs/.", "subs/", "subs/.."):
        code, out, err = _score(capsys, key, arg)
        assert code == 1 and err == f"perfeval: error: {arg}: is a directory, not a file\n", err


@pytest.mark.parametrize(
    "arg", ["entries/team_b/.", "entries/team_b/", "entries/team_b/../team_a", "entries/x/../team_b/."]
)
def test_a_ranked_lists_directory_reached_through_a_link_is_refused(tmp_path, capsys, monkeypatch, arg):
    (tmp_path / "genes.txt").write_text(
        "".join(f"g{i} {['change', 'nc', 'control'][i % 3]}\n" for i in range(30))
    )
    team = tmp_path / "team_a"
    team.mkdir()
    for lst in ("narrow", "broad"):
        (team / f"{lst}.txt").write_text("".join(f"g{i}\n" for i in range(30)))
    (tmp_path / "entries" / "x").mkdir(parents=True)
    (tmp_path / "entries" / "team_b").symlink_to(team)
    monkeypatch.chdir(tmp_path)
    argv = ["score", "--key", "genes.txt", "--task", "kddcup2002-task2", arg, "--no-store"]
    code, out, err = run_cli(argv, capsys)
    link = arg[: arg.index("team_b") + len("team_b")]
    assert code == 1 and err == (
        f"perfeval: error: {os.path.join(arg, 'narrow.txt')}: is reached through a symbolic link "
        f"({link!r}); a submission is read through no link (--follow-links accepts links)\n"
    )
    code, out, err = run_cli([*argv, "--follow-links"], capsys)
    assert code == 0, err


JUNK = {
    "binary noise": lambda: np.random.default_rng(1).integers(0, 256, 5_000_000, dtype=np.uint8).tobytes(),
    "unknown ids": lambda: b"".join(b"zz%d 0.5\n" % i for i in range(500_000)),
    "one id again and again": lambda: b"ev1 0.5\n" * 600_000,
    "short junk lines": lambda: b"x\n" * 2_500_000,
}


@pytest.mark.parametrize("kind", list(JUNK))
def test_junk_is_read_no_further_than_the_error_after_the_cap(tmp_path, capsys, kind):
    """Reading stops at the 21st error (it went on to the end, counting every error: minutes of CPU
    for 100 MB); the table says there are more than 20."""
    key, _ = _files(tmp_path, n=1000)
    junk = tmp_path / "subs" / "junk.txt"
    junk.write_bytes(JUNK[kind]())
    code, out, err = _score(capsys, key, str(junk), extra=["--format", "json"])
    (entry,) = json.loads(out)
    assert code == 1 and len(entry["errors"]) == 21
    last = entry["errors"][-1]
    assert last.startswith("... more than 20 errors: reading stopped at line "), last
    stopped = int(last.rsplit(" ", 1)[1].replace(",", ""))
    assert stopped < 200 and entry["rows"] < 200  # a few lines read, of millions
    code, out, err = _score(capsys, key, str(junk))
    assert "rejected: more than 20 error(s)" in out


@pytest.mark.parametrize("text", [b"\n", b"\r", b"#\n", b"   \r\n"])
def test_blank_and_comment_lines_are_read_up_to_a_limit(tmp_path, capsys, text):
    """Lines that are no error (blank, comments) are read up to 2 a key row and 100,000; then reading
    stops (100 MB of them kept the scorer busy for minutes)."""
    key, sub = _files(tmp_path, n=1000)
    junk = tmp_path / "subs" / "junk.txt"
    junk.write_bytes(open(sub, "rb").read() + text * 3_000_000)
    code, out, err = _score(capsys, key, str(junk))
    assert code == 1 and err == (
        f"perfeval: error: {junk}, line 102,001: more lines than a submission for this key can have (at "
        "most 102,000: 2 a key row and 100,000, blank and comment lines included); reading stopped\n"
    )
    small = tmp_path / "subs" / "small.txt"  # as many as that is fine, read whole or line by line
    small.write_bytes(open(sub, "rb").read() + text * 101_000)
    assert _score(capsys, key, str(small))[0] == 0


def test_reading_stopped_at_the_line_cap_says_the_rows_read(tmp_path, capsys, monkeypatch):
    """The JSON's rows are the lines of data read before reading stopped (it said 0), and it says that
    reading stopped, at the line cap as at the error cap."""
    from perfeval.contest import score as S

    monkeypatch.setattr(S, "EXTRA_LINES", 50)
    key, sub = _files(tmp_path, n=20)  # at most 2 * 20 + 50 = 90 lines
    junk = tmp_path / "subs" / "junk.txt"
    data = open(sub, "rb").read().splitlines(keepends=True)
    junk.write_bytes(b"".join(data[:7]) + b"\n" * 200 + b"".join(data[7:]))
    code, out, err = _score(capsys, key, str(junk), extra=["--format", "json"])
    (entry,) = json.loads(out)
    assert code == 1 and entry["errors"][-1].endswith(
        "line 91: more lines than a submission for this key "
        "can have (at most 90: 2 a key row and 50, blank and "
        "comment lines included); reading stopped"
    )
    assert entry["rows"] == 7 and entry["stopped"] is True and len(entry["errors"]) == 1
    code, out, err = _score(capsys, key, str(tmp_path / "subs" / "x.txt"), sub, extra=["--format", "json"])
    missing, whole = json.loads(out)
    assert missing["stopped"] is False and whole["stopped"] is False and whole["rows"] == 20
    bad = tmp_path / "subs" / "bad.txt"
    bad.write_bytes(b"".join(b"zz%d 0.5\n" % i for i in range(40)))
    (capped,) = json.loads(_score(capsys, key, str(bad), extra=["--format", "json"])[1])
    assert capped["stopped"] is True and capped["rows"] == 21  # the 21st error stopped it
