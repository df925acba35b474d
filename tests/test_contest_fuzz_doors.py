"""Fuzzed submissions and keys at every door of the contest scorer that teams reach: the Codabench and
CodaLab scoring program (``perfeval.contest.codabench.run``, what ``perfeval codabench`` runs), the
Kaggle metric (``perfeval.contest.kaggle.score``) and ``score_boards``, and the organizer's ``perfeval
board`` commands.  docs/contest.md, "Running a contest safely", states the rules checked here:

- exit statuses as documented: a submission is accepted (0, both score files written) or rejected
  (1, no score file); a key or task that is wrong is the organizer's (1 or 2: participants read only
  :data:`~perfeval.contest.codabench.MISCONFIGURED`), never the scorer's failure (70); a Kaggle
  submission's problem is a ``ParticipantVisibleError``, a solution's an ``InputFormatError`` or
  ``InvalidParameterError``, never another exception; a board command is 0, 1 or 2 with one line;
- no key value in any output: each submission is scored against two keys that differ in every
  target and group (the same ids), and what a rejected one is told is the same, byte for byte;
- bounded time: each corpus runs in a child process under a timeout (the harness's, not a timing
  assertion), and bounded memory: the child's peak (VmHWM) against a 100,000-row key.

The generator is seeded: ``PERFEVAL_FUZZ_SEED`` and ``PERFEVAL_FUZZ_CASES`` (default 0 and 40 a door)
run more by hand.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap

import pytest

SEED = int(os.environ.get("PERFEVAL_FUZZ_SEED", "0"))
CASES = int(os.environ.get("PERFEVAL_FUZZ_CASES", "40"))
ROOT = os.path.join(os.path.dirname(__file__), "..")
N = 60
VALID = 3  # the corpus's first valid submissions (after 5 junk ones): accepted by every door
IDS = [f"r{i:03d}" for i in range(N)]
TASK = (
    'name = "fz"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
    'prediction = "p"\ntarget = "y"\ngroup = "query"\n'
    '[[criteria]]\nname = "AUC"\nmeasure = "roc"\n[[criteria]]\nname = "NDCG"\nmeasure = "ndcg@5"\n'
)


def _key(flip: bool) -> str:
    """Key A (flip False) and key B: every target and every group differ, the ids are the same."""
    rows = []
    for i, rid in enumerate(IDS):
        y = (i * 7 % 3 == 0) != flip  # each group (10 rows in a row) holds both classes
        rows.append(f"{rid},{'gB' if flip else 'gA'}{i // 10},{int(y)}")
    return "row_id,query,y\n" + "\n".join(rows) + "\n"


def _valid(rng: random.Random) -> list[str]:
    ids = IDS[:]
    rng.shuffle(ids)
    return [f"{i},{rng.random()!r}" for i in ids]


def _junk_values() -> list[str]:
    return [
        "nan",
        "NaN",
        "inf",
        "-inf",
        "1e400",
        "-1e999",
        "",
        " ",
        "0x1p-3",
        "1_0",
        "½",
        "\x00",
        '"',
        "0,5",
        "1e-400",
    ]


def submissions(rng: random.Random, cases: int) -> list[bytes]:
    """Seeded junk: random bytes, empty files, wrong or missing columns, ids twice or missing, NaN and
    infinities, huge lines, unbalanced quotes, valid files mutated byte by byte.
    """
    out: list[bytes] = [b"", b"\n\n", b"row_id,p\n", b"\xef\xbb\xbf", b"p,row_id\n"]
    out += [("\n".join(["row_id,p", *_valid(rng)]) + "\n").encode() for _ in range(VALID)]
    for _ in range(cases):
        kind = rng.randrange(11)
        rows = _valid(rng)
        header = "row_id,p"
        if kind == 0:
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
            continue
        if kind == 1:
            header = rng.choice(
                ["row_id,score", "id,p", "p", "row_id,p,x", "Row_Id,p", "row_id;p", ",row_id,p"]
            )
        elif kind == 2 and rows:
            rows.insert(rng.randrange(len(rows)), rows[rng.randrange(len(rows))])
        elif kind == 3:
            del rows[rng.randrange(len(rows)) :]
        elif kind == 4:
            for _ in range(rng.randrange(1, 5)):
                j = rng.randrange(len(rows))
                rows[j] = rows[j].split(",")[0] + "," + rng.choice(_junk_values())
        elif kind == 5:
            j = rng.randrange(len(rows))
            rows[j] = rng.choice(["x", "9", ","]) * rng.randrange(70_000, 300_000)
        elif kind == 6:
            j = rng.randrange(len(rows))
            rows[j] = '"' + rows[j]
        elif kind == 7:
            j = rng.randrange(len(rows))
            rows[j] = rng.choice(["zz9", "r000.0", "1e3", "R001", " r001", "r0001"]) + ",0.5"
        elif kind == 8:
            rows = [r.replace(",", rng.choice(["\t", ";", " ", "\x0c", "\u2028"])) for r in rows]
        data = bytearray(("\n".join([header, *rows]) + "\n").encode())
        if kind in (9, 10):  # a valid file mutated byte by byte
            for _ in range(rng.randrange(1, 8)):
                j = rng.randrange(len(data))
                data[j] = rng.randrange(256)
        out.append(bytes(data))
    return out


def keys(rng: random.Random) -> list[bytes]:
    """Junk answer keys (the organizer's mistakes, or a file swapped): every one refused as such."""
    good = _key(False)
    lines = good.splitlines()
    return [
        b"",
        b"row_id,query,y\n",
        bytes(rng.randrange(256) for _ in range(2000)),
        good.replace("row_id", "rid").encode(),
        (good + lines[3] + "\n").encode(),  # an id twice
        good.replace(",1\n", ",nan\n", 1).encode(),
        good.replace(",1\n", ",7\n").replace(",0\n", ",5\n").encode(),
        good.replace("gA1,", ",").encode(),
        ("\n".join(lines[:2]) + "\n" + "x" * 200_000 + "\n").encode(),
        good.replace(",1\n", ",0\n").encode(),  # one class only: no AUC for any submission
        # one class only in each group (NDCG and the per-group AUC have no number for any submission)
        "".join(
            ln.rsplit(",", 1)[0] + f",{int(ln.split(',')[1][2:]) % 2}\n" if n else ln + "\n"
            for n, ln in enumerate(lines)
        ).encode(),
    ]


def _child(code: str, timeout: float = 600) -> dict:
    """Run ``code`` in a child Python (this checkout's perfeval) under the harness's timeout; it prints
    one JSON line last; the child's peak memory (KiB) is added as ``peak_kib``.
    """
    env = dict(os.environ, PYTHONPATH=os.environ.get("PERFEVAL_FUZZ_SRC", os.path.join(ROOT, "src")))
    tail = (
        "\nimport json as _j\n_hwm = next(ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:'))"
        "\nRESULT['peak_kib'] = int(_hwm.split()[1])\nprint(_j.dumps(RESULT))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code) + tail],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc")


def _write_corpus(tmp_path, items: list[bytes], name: str) -> str:
    d = tmp_path / name
    d.mkdir()
    for i, data in enumerate(items):
        (d / f"{i:04d}").write_bytes(data)
    return str(d)


def test_the_scoring_program_on_fuzzed_submissions_and_keys(tmp_path):
    rng = random.Random(SEED)
    subs = _write_corpus(tmp_path, submissions(rng, CASES), "subs")
    bad_keys = _write_corpus(tmp_path, keys(rng), "keys")
    (tmp_path / "task.toml").write_text(TASK)
    for flip in (False, True):
        (tmp_path / f"key{int(flip)}.csv").write_text(_key(flip))
    got = _child(
        f"""
        import os, shutil
        from perfeval.contest.codabench import run
        tmp, subs, bad_keys = {str(tmp_path)!r}, {subs!r}, {bad_keys!r}
        RESULT = {{"subs": [], "keys": []}}

        def one(key_bytes, sub_bytes, where):
            shutil.rmtree(where, ignore_errors=True)
            os.makedirs(os.path.join(where, "input", "ref"))
            os.makedirs(os.path.join(where, "input", "res"))
            shutil.copy(os.path.join(tmp, "task.toml"), os.path.join(where, "input", "ref", "task.toml"))
            open(os.path.join(where, "input", "ref", "key.csv"), "wb").write(key_bytes)
            open(os.path.join(where, "input", "res", "predictions.csv"), "wb").write(sub_bytes)
            r = run(os.path.join(where, "input"), os.path.join(where, "output"), key="key.csv")
            files = sorted(f for f in os.listdir(os.path.join(where, "output")) if f.startswith("scores"))
            return [r.status, r.participant, files]

        keys = [open(os.path.join(tmp, f"key{{k}}.csv"), "rb").read() for k in (0, 1)]
        for name in sorted(os.listdir(subs)):
            data = open(os.path.join(subs, name), "rb").read()
            RESULT["subs"].append([one(k, data, os.path.join(tmp, "w")) for k in keys])
        good = b"row_id,p\\n" + b"".join(b"r%03d,0.5\\n" % i for i in range({N}))
        for name in sorted(os.listdir(bad_keys)):
            data = open(os.path.join(bad_keys, name), "rb").read()
            RESULT["keys"].append(one(data, good, os.path.join(tmp, "w")))
        """
    )
    from perfeval.contest.codabench import MISCONFIGURED

    accepted = 0
    assert [r[0][0] for r in got["subs"][5 : 5 + VALID]] == [0] * VALID  # the valid ones
    for (sa, pa, fa), (sb, pb, fb) in got["subs"]:
        assert sa in (0, 1) and sb in (0, 1), (sa, pa, sb, pb)
        assert sa == sb  # accepted or rejected whatever the key's targets
        if sa == 0:
            accepted += 1
            assert fa == fb == ["scores.json", "scores.txt"] and pa == pb == []
        else:
            assert fa == fb == [] and pa == pb, (pa, pb)  # nothing of the key: the same words for both
            assert 1 <= len(pa) <= 21 and all(len(line) < 400 for line in pa), pa
            assert not any("Traceback" in line or "gA" in line or "gB" in line for line in pa)
    assert accepted < len(got["subs"])  # the corpus is mostly junk
    for status, participant, files in got["keys"]:
        assert status in (1, 2) and participant == [MISCONFIGURED] and files == [], (status, participant)


def test_the_kaggle_metric_on_fuzzed_submissions_and_solutions(tmp_path):
    rng = random.Random(SEED + 1)
    subs = _write_corpus(tmp_path, submissions(rng, CASES), "subs")
    bad_keys = _write_corpus(tmp_path, keys(rng), "keys")
    for flip in (False, True):
        (tmp_path / f"key{int(flip)}.csv").write_text(_key(flip))
    got = _child(
        f"""
        import io, os, random
        import numpy as np
        import pandas as pd
        from perfeval.contest.kaggle import ParticipantVisibleError, score, score_boards
        from perfeval.exceptions import PerfError
        tmp, subs, bad_keys = {str(tmp_path)!r}, {subs!r}, {bad_keys!r}
        task = dict(measure="roc", problem="binary", target="y", prediction="p", group="query")
        RESULT = {{"subs": [], "keys": [], "valid": []}}

        def boards(solution, submission):
            return score_boards(solution, submission, "row_id", **task)

        def outcome(f):
            try:
                v = f()
                return ["value", {{k: float(x) for k, x in v.items()}} if isinstance(v, dict) else float(v)]
            except ParticipantVisibleError as e:
                return ["participant", str(e)]
            except PerfError as e:
                return ["organizer", type(e).__name__ + ": " + str(e)[:300]]
            except Exception as e:
                return ["other", type(e).__name__ + ": " + str(e)[:300]]

        def frames(data):
            # the submission as pandas reads it (as Kaggle does), and every column as text
            out = []
            for kw in ({{}}, {{"dtype": str, "keep_default_na": False}}):
                try:
                    out.append(pd.read_csv(io.BytesIO(data), **kw))
                except Exception:
                    pass
            return out

        sols = [pd.read_csv(os.path.join(tmp, f"key{{k}}.csv"), dtype={{"row_id": str}}) for k in (0, 1)]
        rng = np.random.default_rng({SEED})
        usage = np.where(np.arange({N}) % 2 == 0, "Public", "Private")
        for name in sorted(os.listdir(subs)):
            for sub in frames(open(os.path.join(subs, name), "rb").read()):
                RESULT["subs"].append([
                    [outcome(lambda: score(s, sub.copy(), "row_id", **task)) for s in sols],
                    [outcome(lambda: boards(s.assign(Usage=usage), sub.copy())) for s in sols],
                ])
                if 5 <= int(name) < 5 + {VALID}:
                    RESULT["valid"].append(RESULT["subs"][-1])
        # frames no CSV reader gives: odd dtypes, huge strings, infinities, ids as floats
        ids = sols[0]["row_id"]
        odd = [
            pd.DataFrame({{"row_id": ids, "p": [np.inf] * {N}}}),
            pd.DataFrame({{"row_id": ids, "p": ["x" * 100_000] * {N}}}),
            pd.DataFrame({{"row_id": np.arange({N}, dtype=float), "p": 0.5}}),
            pd.DataFrame({{"row_id": ids, "p": [None] * {N}}}),
            pd.DataFrame({{"row_id": ids, "p": [complex(1, 1)] * {N}}}),
            pd.DataFrame({{"row_id": ids, "p": pd.Series([b"0.5"] * {N})}}),
            pd.DataFrame({{"row_id": list(ids) * 2, "p": 0.5}}),
            pd.DataFrame(),
            pd.DataFrame({{"row_id": ids, "p": 0.5, "Usage": "Public"}}),
        ]
        for sub in odd:
            RESULT["subs"].append([
                [outcome(lambda: score(s, sub.copy(), "row_id", **task)) for s in sols],
                [outcome(lambda: boards(s.assign(Usage=usage), sub.copy())) for s in sols],
            ])
        good = pd.DataFrame({{"row_id": ids, "p": rng.random({N})}})
        for name in sorted(os.listdir(bad_keys)):
            try:
                sol = pd.read_csv(os.path.join(bad_keys, name))
            except Exception:
                continue
            RESULT["keys"].append([
                outcome(lambda: score(sol, good, "row_id", **task)),
                outcome(lambda: boards(sol.assign(Usage=np.resize(usage, len(sol))), good)),
            ])
        RESULT["keys"].append([outcome(lambda: boards(sols[0].assign(Usage="Hidden"), good))])
        """
    )
    rejected = 0
    valid = got["valid"]  # each read as pandas reads it, and as text
    assert len(valid) == 2 * VALID and all(a[0] == "value" for pair in valid for res in pair for a in res), (
        valid
    )
    for pair in got["subs"]:
        for a, b in pair:
            assert a[0] in ("value", "participant") and b[0] in ("value", "participant"), (a, b)
            assert a[0] == b[0]
            if a[0] == "participant":
                rejected += 1
                assert a == b  # nothing of the solution: the same message for both
                assert "gA" not in a[1] and "gB" not in a[1]
                lines = a[1].splitlines()
                assert 1 <= len(lines) <= 21 and all(len(line) < 400 for line in lines), lines
    assert rejected > len(got["subs"])  # the corpus is mostly junk
    for results in got["keys"]:
        for kind, what in results:
            assert kind == "organizer", (kind, what)


def test_a_junk_submission_costs_memory_that_follows_the_key_at_the_scoring_program(tmp_path):
    """The scoring program against a 100,000-row key (ids of text): the largest junk a submission can
    be of each shape is rejected in bounded memory (a valid submission's cost, give or take)."""
    n = 100_000
    ref = tmp_path / "input" / "ref"
    ref.mkdir(parents=True)
    (ref / "task.toml").write_text(TASK.replace('group = "query"\n', "").replace("ndcg@5", "logloss"))
    (ref / "key.csv").write_text("row_id,y\n" + "".join(f"id{i:07d},{i % 2}\n" for i in range(n)))
    cases = {
        "good": b"row_id,p\n" + b"".join(b"id%07d,0.5\n" % i for i in range(n)),
        "wide ids": b"row_id,p\n" + (b"i" * 90 + b",0.5\n") * (n + 20),
        "fields as wide as can be": b"row_id,p\n" + (b"i" * 9 + b"," + b"y" * 64 + b"\n") * (n + 20),
        "nan": b"row_id,p\n" + b"".join(b"id%07d,nan\n" % i for i in range(n)),
        "binary": bytes(random.Random(SEED).randrange(256) for _ in range(200_000)) * 40,
        "one line": b"row_id,p\n" + b"9" * 10_000_000,
    }
    peaks = {}
    for name, data in cases.items():
        res = tmp_path / "input" / "res"
        if res.exists():
            for f in res.iterdir():
                f.unlink()
        res.mkdir(exist_ok=True)
        (res / "predictions.csv").write_bytes(data)
        got = _child(
            f"""
            from perfeval.contest.codabench import run
            r = run({str(tmp_path / "input")!r}, {str(tmp_path / "output")!r}, key="key.csv")
            RESULT = {{"status": r.status, "participant": r.participant}}
            """
        )
        assert got["status"] == (0 if name == "good" else 1), (name, got)
        peaks[name] = got["peak_kib"] / 1024
    for peak in peaks.values():
        assert peak < max(150, peaks["good"] + 60), peaks


def test_the_board_commands_on_fuzzed_arguments(tmp_path, capsys):
    """`perfeval board` with junk ids, teams, actions and databases: status 0, 1 or 2, one line on
    stderr when not 0, no traceback, and before the release no private score in any output."""
    from conftest import run_cli
    from perfeval.contest import score_submission

    rng = random.Random(SEED + 2)
    (tmp_path / "t.toml").write_text(
        TASK.replace('group = "query"\n', 'usage = "Usage"\n').replace("ndcg@5", "logloss")
    )
    key = tmp_path / "key.csv"
    key.write_text(
        "row_id,y,Usage\n"
        + "".join(f"{r},{(i * 7) % 3 == 0:d},{'Public' if i % 2 else 'Private'}\n" for i, r in enumerate(IDS))
    )
    private = []
    for k in range(3):
        f = tmp_path / f"s{k}.csv"
        f.write_text("row_id,p\n" + "\n".join(_valid(rng)) + "\n")
        private += [
            repr(v)
            for v in score_submission(str(tmp_path / "t.toml"), str(key), str(f)).boards["private"].values()
        ]
        code, out, err = run_cli(
            ["score", "--key", str(key), "--task", str(tmp_path / "t.toml"), str(f), "--team", f"t{k % 2}"],
            capsys,
        )
        assert code == 0, err
    (tmp_path / "junk.sqlite").write_bytes(bytes(rng.randrange(256) for _ in range(5000)))
    teams = ["t0", "t1", "nobody", "t\x1b[2J", "a\nb", " ", "x" * 300, "t0 ", "\u202et0"]
    ids = ["1", "2", "3", "0", "-1", "99999999999999999999999", "x", "1.5", "", "--", "3"]
    seen = []
    for _ in range(CASES * 2):
        argv = ["board", rng.choice(["list", "choose", "release", "delete", ""])]
        argv += rng.sample(ids, rng.randrange(0, 4))
        argv += ["--key", str(key) if rng.random() < 0.9 else str(tmp_path / "nokey.csv")]
        argv += ["--task", str(tmp_path / "t.toml") if rng.random() < 0.9 else "kddcup2004-physics"]
        if rng.random() < 0.7:
            argv += ["--team", rng.choice(teams)]
        if rng.random() < 0.2:
            argv += ["--db", str(tmp_path / rng.choice(["junk.sqlite", "none.sqlite"]))]
        if rng.random() < 0.3:
            argv += ["--format", rng.choice(["json", "table", "csv"])]
        if argv[1] == "release":
            continue  # released below, once the rest has run
        try:
            code, out, err = run_cli(argv, capsys)
        except SystemExit as e:  # argparse's usage errors
            code, (out, err) = e.code, capsys.readouterr()
        assert code in (0, 1, 2), (argv, code, err)
        assert "Traceback" not in err and (code == 0 or len(err.strip().splitlines()) >= 1), (argv, err)
        if code != 0 and not err.startswith("usage:"):
            assert len(err.splitlines()) == 1, (argv, err)
        seen.append(out + err)
    text = "\n".join(seen)
    assert not [v for v in private if v in text or v[:7] in text]
    assert (
        run_cli(["board", "release", "--key", str(key), "--task", str(tmp_path / "t.toml")], capsys)[0] == 0
    )
