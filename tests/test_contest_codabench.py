"""``perfeval codabench``: the scoring program run as the platforms' compute workers run it.

What the workers do (read in their source, cited in docs/contest.md, "Codabench and CodaLab"):

- Codabench (codalab/codabench, compute_worker/compute_worker.py): each bundle is a zip unpacked
  with ``ZipFile.extractall`` into the run's folder: the scoring program into ``program``, the
  reference data into ``input/ref``, the prediction step's output into ``input/res``; a result
  submission's prediction step copies the submission's files and writes a ``metadata`` file (the
  program's exit status, in YAML) beside them.  The command is ``metadata.yaml``'s ``command`` (else
  ``metadata``'s), read with ``yaml.load``; ``$input``, ``$output``, ``$program`` are replaced by
  ``/app/input``, ``/app/output``, ``/app/program`` (``replace_legacy_metadata_command``); docker-py
  splits the string as ``shlex.split`` does and runs it in ``/app/program``.  A non-zero exit fails
  the submission; otherwise ``output/scores.json`` is read with ``json.load`` (else ``scores.txt``
  with ``yaml.load``).
- CodaLab (codalab/competitions-v1-compute-worker, worker.py): the same folders; the command's
  ``$program``/``$input``/``$output`` replaced by the run's paths, split at blanks (``split(' ')``),
  run in the run's folder; ``output/scores.txt`` read line by line (``label, value =
  line.split(":")``, ``float(value)``: codalab/codalab-competitions, apps/web/tasks.py).

Here the container's ``/app`` is a temporary folder and the image's ``perfeval`` is this checkout's.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
import zipfile

import pytest

yaml = pytest.importorskip("yaml")

ROOT = os.path.join(os.path.dirname(__file__), "..")
TASK = """\
name = "clicks"
title = "Clicks"
submission = "table"
key = "table"
problem = "binary"
id = "row_id"
prediction = "score"
target = "clicked"
group = "query"

[[criteria]]
name = "NDCG@10"
measure = "ndcg@10"

[[criteria]]
name = "GAUC"
measure = "gauc"

[[criteria]]
name = "LogLoss"
measure = "logloss"
"""
IDS = [101, 102, 103, 104, 105, 106, 107, 108]
QUERY = ["q1"] * 4 + ["q2"] * 4
CLICKS_A = [1, 0, 0, 1, 0, 1, 0, 0]
CLICKS_B = [0, 1, 1, 0, 1, 0, 1, 1]  # every target differs from A's
GOOD = "row_id,score\n105,0.2\n101,0.9\n106,0.7\n102,0.4\n103,0.35\n104,0.3\n107,0.1\n108,0.3\n"


def _key(clicks, queries=QUERY) -> str:
    return "row_id,query,clicked\n" + "".join(
        f"{i},{q},{c}\n" for i, q, c in zip(IDS, queries, clicks, strict=True)
    )


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(ROOT, "src")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _bundle(tmp_path, key_text: str = _key(CLICKS_A), task_text: str = TASK, *extra: str):
    d = tmp_path / "organizer"
    d.mkdir(exist_ok=True)
    (d / "clicks.toml").write_text(task_text)
    (d / "clicks_key.csv").write_text(key_text)
    out = subprocess.run(
        [
            "perfeval",
            "codabench",
            "bundle",
            str(d / "clicks.toml"),
            "--key",
            str(d / "clicks_key.csv"),
            "--out",
            str(d / "scoring_program.zip"),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return d / "scoring_program.zip", d / "reference_data.zip", out


def _zip(files: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def _worker(tmp_path, program, reference, submission: bytes, platform: str = "codabench"):
    """One scoring run laid out and called as the platform's worker does: (status, stdout, stderr,
    the scores the platform reads or None, the output folder)."""
    root = tmp_path / f"run-{platform}-{len(list(tmp_path.iterdir()))}"
    for src, dest in ((program, "program"), (reference, "input/ref")):
        with zipfile.ZipFile(src) as z:
            z.extractall(root / dest)
    # the prediction step of a result submission: its files, and the worker's metadata beside them
    with zipfile.ZipFile(io.BytesIO(submission)) as z:
        z.extractall(root / "input" / "res")
    (root / "input" / "res").mkdir(parents=True, exist_ok=True)
    status = {"exitCode": 0, "elapsedTime": 0.1, "ingestionExitCode": None, "ingestionElapsedTime": None}
    (root / "input" / "res" / "metadata").write_text(yaml.dump(status, default_flow_style=False))
    (root / "output").mkdir()
    if platform == "codabench":
        names = os.listdir(root / "program")
        meta = "metadata.yaml" if "metadata.yaml" in names else "metadata"
        command = yaml.load((root / "program" / meta).read_text(), Loader=yaml.FullLoader)["command"]
        for var, path in (
            ("$input", "input"),
            ("$output", "output"),
            ("$program", "program"),
            ("$hidden", "input/ref"),
            ("$predictions", "input/res"),
        ):
            command = command.replace(var, str(root / path))
        argv, cwd = shlex.split(command), root / "program"
    else:
        command = yaml.load((root / "program" / "metadata").read_text(), Loader=yaml.FullLoader)["command"]
        command = (
            command.replace("$program", str(root / "program"))
            .replace("$predictions", str(root / "input" / "res"))
            .replace("$input", str(root / "input"))
            .replace("$output", str(root / "output"))
        )
        argv, cwd = command.split(" "), root
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_env(), timeout=120)
    scores = None
    if p.returncode == 0:
        if platform == "codabench" and (root / "output" / "scores.json").exists():
            scores = json.loads((root / "output" / "scores.json").read_text())
        else:
            scores = {}
            for line in (root / "output" / "scores.txt").read_text().split("\n"):
                if len(line) > 0:
                    label, value = line.split(":")
                    scores[label.strip()] = float(value)
    return p.returncode, p.stdout, p.stderr, scores, root / "output"


@pytest.fixture
def bundles(tmp_path):
    return _bundle(tmp_path)


def test_the_bundle_unzipped_is_what_the_worker_expects(tmp_path, bundles):
    program, reference, made = bundles
    with zipfile.ZipFile(program) as z:
        assert sorted(z.namelist()) == ["metadata", "metadata.yaml", "task.toml"]
        # what the organizer is told the zip holds is what it holds (metadata: CodaLab's name)
        assert f"(the scoring program: {', '.join(z.namelist())})" in made.stderr, made.stderr
        meta = yaml.load(z.read("metadata.yaml"), Loader=yaml.FullLoader)
        assert meta["command"] == (
            "perfeval codabench $input $output --task $program/task.toml --key clicks_key.csv"
        )
        assert z.read("metadata") == z.read("metadata.yaml")
        assert z.read("task.toml").decode() == TASK
    with zipfile.ZipFile(reference) as z:
        assert z.namelist() == ["clicks_key.csv"] and z.read("clicks_key.csv").decode() == _key(CLICKS_A)
    # the leaderboard's columns for competition.yaml: the criteria's names, sorted by their direction
    board = yaml.safe_load(made.stdout)["leaderboard"][0]["columns"]
    assert [(c["key"], c["sorting"]) for c in board] == [
        ("NDCG@10", "desc"),
        ("GAUC", "desc"),
        ("LogLoss", "asc"),
    ]


@pytest.mark.parametrize("platform", ["codabench", "codalab"])
def test_a_good_submission_is_scored_as_perfeval_score_scores_it(tmp_path, bundles, platform):
    from perfeval.contest import read_key, score_submission
    from perfeval.contest.tasks import load_task

    program, reference, _ = bundles
    code, out, err, scores, output = _worker(
        tmp_path, program, reference, _zip({"predictions.csv": GOOD}), platform
    )
    assert code == 0, err
    assert (
        err == "" and out == "perfeval: scored predictions.csv (8 rows): wrote scores.json and scores.txt\n"
    )
    (tmp_path / "k.csv").write_text(_key(CLICKS_A))
    (tmp_path / "s.csv").write_text(GOOD)
    task = load_task(str(tmp_path / "organizer" / "clicks.toml"))
    want = score_submission(task, read_key(str(tmp_path / "k.csv"), task), str(tmp_path / "s.csv")).scores
    assert scores == want and list(scores) == ["NDCG@10", "GAUC", "LogLoss"]  # every bit, in order
    # both files, whatever the platform: the same doubles
    assert json.loads((output / "scores.json").read_text()) == want
    assert yaml.safe_load((output / "scores.txt").read_text()) == want


def test_scores_txt_values_read_back_as_the_same_doubles_by_yaml_and_float():
    from perfeval.contest.codabench import score_files

    values = {"A": 1e-05, "B": 0.1 + 0.2, "C": 2.5e-300, "D": -3.0, "E": 123456789.125, "F": 5e-324}
    as_json, as_txt = score_files(values)
    assert json.loads(as_json) == values
    assert yaml.safe_load(as_txt) == values  # PyYAML reads "1e-05" as a string: written 1.0e-05
    assert {k: float(v) for k, v in (line.split(":") for line in as_txt.decode().splitlines())} == values


BAD = {
    "missing ids": (
        {"p.csv": "row_id,score\n101,0.9\n102,0.4\n"},
        ["p.csv: 6 id(s) of the answer key have no prediction"],
    ),
    "junk": ({"p.csv": "\x00\x01garbage\xff" * 50}, ["p.csv"]),
    "empty res": ({}, ["the submission holds no file"]),
    "two files": (
        {"a.csv": GOOD, "b.csv": GOOD},
        ["the submission holds 2 files and folders ('a.csv', 'b.csv')"],
    ),
    "a folder": ({"sub/p.csv": GOOD}, ["holds a folder ('sub'), not a file"]),
    "a score out of [0, 1]": ({"p.csv": GOOD.replace("0.9", "1.5")}, ["p.csv, line 3, column 'score'"]),
}


@pytest.mark.parametrize("platform", ["codabench", "codalab"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_submission_fails_with_lines_participants_can_read(tmp_path, bundles, case, platform):
    program, reference, _ = bundles
    files, says = BAD[case]
    code, out, err, scores, output = _worker(tmp_path, program, reference, _zip(files), platform)
    assert code == 1 and scores is None and out == ""
    assert not (output / "scores.json").exists() and not (output / "scores.txt").exists()
    lines = err.splitlines()
    assert lines and all(x.startswith("perfeval: error: ") for x in lines) and "Traceback" not in err
    for s in says:
        assert s in err, err
    assert str(tmp_path) not in err  # the files are named as the participant named them


def test_macos_zip_droppings_and_the_workers_metadata_are_not_the_submission(tmp_path, bundles):
    program, reference, _ = bundles
    sub = _zip({"p.csv": GOOD, "__MACOSX/._p.csv": "x", ".DS_Store": "x"})
    code, out, err, scores, _ = _worker(tmp_path, program, reference, sub)
    assert code == 0 and set(scores) == {"NDCG@10", "GAUC", "LogLoss"}, err


def test_a_misconfigured_key_says_only_so_to_participants(tmp_path):
    """The key's problem is the organizer's: participants read one line that shows nothing of it;
    the detail goes to OUTPUT/private/organizer_log.txt (--organizer-log) only."""
    program, reference, _ = _bundle(tmp_path, _key(CLICKS_A), TASK, "--organizer-log")
    # the organizer then uploads another reference data: a target that is not a number (secret42)
    bad_ref = tmp_path / "bad_ref.zip"
    bad_ref.write_bytes(_zip({"clicks_key.csv": _key(CLICKS_A).replace("101,q1,1", "101,q1,secret42")}))
    code, out, err, scores, output = _worker(tmp_path, program, bad_ref, _zip({"p.csv": GOOD}))
    assert code != 0 and scores is None
    assert err == "perfeval: error: the scoring program is misconfigured: tell the organizers\n" and out == ""
    log = (output / "private" / "organizer_log.txt").read_text()
    assert "secret42" in log and "clicks_key.csv" in log
    # without --organizer-log, the detail is written nowhere in OUTPUT
    plain = tmp_path / "plain"
    plain.mkdir()
    p2, _, _ = _bundle(plain)
    code, out, err, scores, output = _worker(tmp_path, p2, bad_ref, _zip({"p.csv": GOOD}))
    assert code != 0 and "secret42" not in err and not (output / "private").exists()
    assert all("secret42" not in f.read_text(errors="replace") for f in output.rglob("*") if f.is_file())


def test_the_bundle_refuses_a_bad_key_with_its_detail_for_the_organizer(tmp_path):
    d = tmp_path / "o"
    d.mkdir()
    (d / "t.toml").write_text(TASK)
    (d / "k.csv").write_text(_key(CLICKS_A).replace("101,q1,1", "101,q1,high"))
    p = subprocess.run(
        [
            "perfeval",
            "codabench",
            "bundle",
            str(d / "t.toml"),
            "--key",
            str(d / "k.csv"),
            "--out",
            str(d / "s.zip"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert p.returncode == 1 and "k.csv, line 2" in p.stderr and len(p.stderr.splitlines()) == 1
    assert not (d / "s.zip").exists() and not (d / "reference_data.zip").exists()


def test_a_criterion_name_that_cannot_key_scores_txt_is_refused_at_bundle(tmp_path):
    d = tmp_path / "o"
    d.mkdir()
    (d / "t.toml").write_text(TASK.replace('name = "GAUC"', 'name = "G:AUC"'))
    (d / "k.csv").write_text(_key(CLICKS_A))
    p = subprocess.run(
        [
            "perfeval",
            "codabench",
            "bundle",
            str(d / "t.toml"),
            "--key",
            str(d / "k.csv"),
            "--out",
            str(d / "s.zip"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert p.returncode == 2 and "criterion 'G:AUC' cannot be a key of scores.txt" in p.stderr


HOSTILE = [
    "row_id,score\n101,0.9\n",
    "row_id,score\n101,0.9\n101,0.8\n102,0.1\n103,0.1\n104,0.1\n105,0.1\n106,0.1\n107,0.1\n108,0.1\n",
    "row_id,score\n999,0.5\n" + GOOD.split("\n", 1)[1],
    "row_id;score\n101;0,5\n",
    "clicked,query\n1,q1\n",
    GOOD.replace("0.9", "nan"),
    GOOD.replace("101,", "101.0,"),
    "\ufeffrow_id,score,extra\n" + "".join(f"{i},0.5,1\n" for i in IDS),
    "x" * 5000,
    "row_id,score\n" + "".join(f"{i},{i / 1000}\n" for i in IDS[:-2]),
]


def test_no_key_value_reaches_what_participants_see(tmp_path):
    """The same hostile submissions against two keys that differ in every target (and query): the
    same stdout, stderr and exit status, and nothing written to OUTPUT."""
    seen = []
    for clicks, queries, tag in ((CLICKS_A, QUERY, "a"), (CLICKS_B, ["g7"] * 4 + ["g9"] * 4, "b")):
        d = tmp_path / tag
        d.mkdir()
        program, reference, _ = _bundle(d, _key(clicks, queries))
        runs = []
        for text in HOSTILE:
            code, out, err, scores, output = _worker(d, program, reference, _zip({"sub.csv": text}))
            files = sorted(str(f.relative_to(output)) for f in output.rglob("*"))
            runs.append((code, out, err, files))
            assert code == 1 and err.startswith("perfeval: error: sub.csv"), (text, err)
            for q in ("g7", "g9", "q1", "q2"):
                assert f"'{q}'" not in err
        seen.append(runs)
    assert seen[0] == seen[1]


def test_a_preset_task_of_lines_is_bundled_and_scored_as_perfeval_score_scores_it(tmp_path):
    """A task of lines (the KDD Cup 2004 physics preset): its TOML shipped in the bundle, the
    scores the classic engine's, as `perfeval score` gives them."""
    d = tmp_path / "o"
    d.mkdir()
    key = "".join(f"ev{i} {i % 2}\n" for i in range(12))
    sub = "".join(f"ev{i} {((i * 7) % 10) / 10}\n" for i in range(12))
    (d / "answers.txt").write_text(key)
    p = subprocess.run(
        [
            "perfeval",
            "codabench",
            "bundle",
            "kddcup2004-physics",
            "--key",
            str(d / "answers.txt"),
            "--out",
            str(d / "sp.zip"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    code, out, err, scores, _ = _worker(
        tmp_path, d / "sp.zip", d / "reference_data.zip", _zip({"s.txt": sub})
    )
    assert code == 0, err
    (d / "s.txt").write_text(sub)
    q = subprocess.run(
        [
            "perfeval",
            "score",
            "--key",
            str(d / "answers.txt"),
            "--task",
            "kddcup2004-physics",
            str(d / "s.txt"),
            "--no-store",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert scores == json.loads(q.stdout)[0]["scores"] and list(scores) == ["ACC", "ROC", "CXE", "SLQ"]
    code, out, err, scores, _ = _worker(
        tmp_path, d / "sp.zip", d / "reference_data.zip", _zip({"s.txt": "ev1 0.5\n"})
    )
    assert code == 1 and "s.txt: 11 example(s) of the answer key have no prediction" in err


def test_a_score_the_platforms_cannot_store_rejects_the_submission_with_its_reason(tmp_path):
    """Codabench and CodaLab store a score as a decimal (10 digits after the point): a NaN is not
    one.  The submission is rejected, the criterion and the reason said, and no score file written."""
    from perfeval.contest.codabench import run

    task = TASK.split("[[criteria]]")[0].replace('group = "query"\n', "")
    task += '[[criteria]]\nname = "CAL"\nmeasure = "cal_slope"\nideal = 1.0\n'
    (tmp_path / "input" / "ref").mkdir(parents=True)
    (tmp_path / "input" / "res").mkdir()
    (tmp_path / "input" / "ref" / "task.toml").write_text(task)
    (tmp_path / "input" / "ref" / "k.csv").write_text(_key(CLICKS_A))
    (tmp_path / "input" / "res" / "p.csv").write_text("row_id,score\n" + "".join(f"{i},0.0\n" for i in IDS))
    r = run(str(tmp_path / "input"), str(tmp_path / "output"))
    assert (
        r.status == 1
        and len(r.participant) == 1
        and r.participant[0].startswith("CAL: the score is not a number (")
    )
    assert not os.listdir(tmp_path / "output")
    (tmp_path / "input" / "res" / "p.csv").write_text("row_id,score\n" + "".join(f"{i},0.{i}\n" for i in IDS))
    r = run(str(tmp_path / "input"), str(tmp_path / "output"))
    assert r.status == 0 and sorted(os.listdir(tmp_path / "output")) == ["scores.json", "scores.txt"]


def test_a_task_with_public_and_private_boards_is_refused_at_bundle(tmp_path):
    """The scoring program writes one set of scores: a key split by `usage` would show the public
    board only, silently; refused, with what to do instead (a phase each board)."""
    d = tmp_path / "o"
    d.mkdir()
    (d / "t.toml").write_text(TASK.replace('group = "query"', 'group = "query"\nusage = "Usage"'))
    usage = ["Public", "Private"] * 4
    (d / "k.csv").write_text(
        "row_id,clicked,query,Usage\n"
        + "".join(f"{i},{c},{q},{u}\n" for i, c, q, u in zip(IDS, CLICKS_A, QUERY, usage, strict=True))
    )
    p = subprocess.run(
        [
            "perfeval",
            "codabench",
            "bundle",
            str(d / "t.toml"),
            "--key",
            str(d / "k.csv"),
            "--out",
            str(d / "s.zip"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert p.returncode == 2 and "public and private boards" in p.stderr and "phase" in p.stderr
    assert not (d / "s.zip").exists()


KDD2002 = os.path.join(os.path.dirname(__file__), "contest_kdd2002")


@pytest.mark.parametrize("platform", ["codabench", "codalab"])
def test_the_kdd_cup_2002_preset_is_bundled_and_scored_on_both_platforms(tmp_path, platform):
    """The KDD Cup 2002 preset (two ranked lists, a key of labels): the bundle's command run as each
    platform's worker runs it gives the scores `perfeval score` gives (its recorded output,
    tests/contest_kdd2002/expected), in the platform's file; a submission with problems, or one list
    short, is rejected with the lines participants read, and no score file."""
    d = tmp_path / "o"
    d.mkdir()
    p = subprocess.run(
        [
            "perfeval",
            "codabench",
            "bundle",
            "kddcup2002-task2",
            "--key",
            os.path.join(KDD2002, "genes.csv"),
            "--out",
            str(d / "sp.zip"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert "key: ROC_narrow" in p.stdout and "key: score" in p.stdout
    expected = json.loads(
        open(os.path.join(KDD2002, "expected", "genes.json.txt"))
        .read()
        .split("--- stdout\n")[1]
        .split("--- stderr")[0]
    )
    want = {e["submission"]: e for e in expected}

    def lists(team: str) -> bytes:
        return _zip(
            {f"{x}.txt": open(os.path.join(KDD2002, team, f"{x}.txt")).read() for x in ("narrow", "broad")}
        )

    for team in ("team_good", "team_weak", "team_perfect"):
        code, out, err, scores, output = _worker(
            tmp_path, d / "sp.zip", d / "reference_data.zip", lists(team), platform
        )
        assert code == 0, err
        assert out == "perfeval: scored narrow.txt, broad.txt (240 rows): wrote scores.json and scores.txt\n"
        assert scores == want[team]["scores"] and list(scores) == ["ROC_narrow", "ROC_broad", "score"]
        # the other platform's file holds the same doubles
        txt = {k: float(v) for k, v in yaml.safe_load((output / "scores.txt").read_text()).items()}
        assert txt == json.loads((output / "scores.json").read_text()) == scores
    code, out, err, scores, output = _worker(
        tmp_path, d / "sp.zip", d / "reference_data.zip", lists("team_bad"), platform
    )
    bad = [f"perfeval: error: {e.replace('team_bad/', '')}" for e in want["team_bad"]["errors"]]
    assert code == 1 and out == "" and err.splitlines() == bad and scores is None
    assert not (output / "scores.json").exists() and not (output / "scores.txt").exists()
    code, out, err, scores, output = _worker(
        tmp_path,
        d / "sp.zip",
        d / "reference_data.zip",
        _zip({"narrow.txt": open(os.path.join(KDD2002, "team_good", "narrow.txt")).read()}),
        platform,
    )
    assert code == 1 and err == (
        "perfeval: error: the submission holds the ranked lists narrow.txt, broad.txt (zip these files "
        "themselves, not a folder): it lacks 'broad.txt'\n"
    )
    assert not (output / "scores.json").exists()
