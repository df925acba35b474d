"""Competition scoring: every preset end to end, one test per kind of bad submission (with the exact
message), scores equal to perf on the joined file and to the library, the leaderboard."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_perf
from perfeval import evaluate
from perfeval.cli.main import main
from perfeval.contest.board import rankings
from perfeval.contest.score import read_key, score
from perfeval.contest.tasks import load_task


def _physics(tmp_path, n=1500, seed=1):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.45).astype(int)
    p = np.round(np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0.001, 0.999), 4)
    (tmp_path / "key.txt").write_text("".join(f"ev{i} {t}\n" for i, t in enumerate(y)))
    order = rng.permutation(n)
    (tmp_path / "sub.txt").write_text("".join(f"ev{i} {p[i]}\n" for i in order))
    (tmp_path / "joined.txt").write_text("".join(f"{y[i]} {p[i]}\n" for i in range(n)))
    return y, p


def _printed(out: str, label: str) -> str:
    """What perf printed for `label`."""
    return next(ln for ln in out.splitlines() if ln.split()[0] == label).split()[1]


def _as_perf_prints(v: float, label: str) -> str:
    """A score (full precision) as perf prints it."""
    from perfeval.classic.engine import f8

    return str(int(v)) if label == "RKL" else f8(v).strip()


def test_physics_preset_equals_perf_on_the_joined_file_and_the_library(tmp_path):
    y, p = _physics(tmp_path)
    task = load_task("kddcup2004-physics")
    r = score([str(tmp_path / "sub.txt")], task, read_key(str(tmp_path / "key.txt"), task))
    assert r.ok and r.rows == len(y)
    joined = (tmp_path / "joined.txt").read_bytes()
    for c in task.criteria:
        out, _, _ = run_perf(list(c.perf), joined)
        assert _as_perf_prints(r.scores[c.name], c.perf_label) == _printed(out, c.perf_label), c.name
    lib = evaluate(y, p, measures=["acc", "roc", "cxe", "slq"])
    for name in ("ACC", "ROC", "CXE"):
        assert abs(r.scores[name] - lib[name]) < 1e-5, name  # perf prints 5 decimals of float32 inputs
    # SLQ: a score exactly on a bin edge i/100 is in bin i for the library, in bin i - 1 for PERF
    # (it divides by the width + 1e-10); 4-decimal scores hit edges, so the two differ slightly
    assert abs(r.scores["SLQ"] - lib["SLQ"]) < 1e-3


def test_protein_preset_block_means(tmp_path):
    rng = np.random.default_rng(2)
    rows = []
    for b in (101, 202, 303, 404):
        for k in range(rng.integers(50, 120)):
            rows.append((b, f"p{b}_{k}", int(rng.random() < 0.08), round(float(rng.random()), 3)))
    (tmp_path / "key.txt").write_text("".join(f"{b} {i} {t}\n" for b, i, t, _ in rows))
    rng.shuffle(rows)
    (tmp_path / "sub.txt").write_text("".join(f"{b} {i} {s}\n" for b, i, _, s in rows))
    task = load_task("kddcup2004-protein")
    r = score([str(tmp_path / "sub.txt")], task, read_key(str(tmp_path / "key.txt"), task))
    assert r.ok, r.errors
    key_order = [ln.split() for ln in (tmp_path / "key.txt").read_text().splitlines()]
    pred = {i: s for _b, i, _t, s in rows}
    joined = "".join(f"{b} {t} {pred[i]}\n" for b, i, t in key_order).encode()
    for c in task.criteria:
        out, _, _ = run_perf(list(c.perf), joined)
        assert _as_perf_prints(r.scores[c.name], c.perf_label) == _printed(out, c.perf_label), c.name
    lib = evaluate(
        [int(t) for _, _, t in key_order],
        [pred[i] for _, i, _ in key_order],
        groups=[int(b) for b, _, _ in key_order],
        measures=["top1", "rkl", "rms", "apr"],
    )
    for name in ("TOP1", "RKL", "RMS", "APR"):
        assert abs(r.scores[name] - lib.results[name].mean) < 1e-5, name


def test_kddcup2002_ranked_lists(tmp_path):
    rng = np.random.default_rng(3)
    labels = rng.choice(["change", "nc", "control"], size=300, p=[0.1, 0.8, 0.1])
    ids = [f"g{i}" for i in range(300)]
    (tmp_path / "key.txt").write_text("".join(f"{i} {lab}\n" for i, lab in zip(ids, labels, strict=False)))
    sub = tmp_path / "team_a"
    sub.mkdir()
    s_n = rng.random(300) + (labels == "change")
    s_b = rng.random(300) + (labels != "nc")
    (sub / "narrow.txt").write_text("".join(ids[k] + "\n" for k in np.argsort(-s_n)))
    (sub / "broad.txt").write_text("".join(ids[k] + "\n" for k in np.argsort(-s_b)))
    assert (
        main(
            [
                "score",
                "--key",
                str(tmp_path / "key.txt"),
                "--task",
                "kddcup2002-task2",
                str(sub),
                "--format",
                "json",
            ]
        )
        == 0
    )
    from perfeval.functional import kddcup2002_task2, scores_from_ranking

    want = kddcup2002_task2(
        labels,
        scores_from_ranking([ids[k] for k in np.argsort(-s_n)], ids),
        scores_from_ranking([ids[k] for k in np.argsort(-s_b)], ids),
    )
    board = rankings(
        __import__("perfeval.contest.board", fromlist=["Board"])
        .Board(str(tmp_path / "key.txt") + ".leaderboard.sqlite")
        .entries("kddcup2002-task2"),
        {"score": "higher"},
    )
    got = board["score"][0].value
    assert abs(got - want["score"]) < 2e-5 and board["score"][0].team == "team_a"


BAD = [
    ("ev0 0.5\nev1 0.5\nev1 0.7\n", "sub.txt, line 3: example 'ev1' appears again (first on line 2)"),
    ("ev0 0.5\nev1 0.5\nzz9 0.7\n", "sub.txt, line 3: example 'zz9' is not in the answer key"),
    ("ev0 0.5\n", "sub.txt: 2 example(s) of the answer key have no prediction: 'ev1', 'ev2'"),
    ("ev0 0.5\nev1\nev2 0.1\n", "sub.txt, line 2: expected 2 fields (example_id prediction), found 1"),
    ("ev0 0.5\nev1 high\nev2 0.1\n", "sub.txt, line 2: the prediction 'high' is not a number"),
    ("ev0 0.5\nev1 nan\nev2 0.1\n", "sub.txt, line 2: the prediction 'nan' is not a finite number"),
    ("ev0 0.5\nev1 inf\nev2 0.1\n", "sub.txt, line 2: the prediction 'inf' is not a finite number"),
    (
        "ev0 0.5\nev1 1.5\nev2 0.1\n",
        "sub.txt, line 2: the prediction '1.5' is outside [0, 1], which CXE, SLQ need",
    ),
]


NUMBERED = [
    # a first line that is not a header by the rule (the id column's name, a prediction that is not
    # a number) is a line of data, said to be a header line perhaps, with the rule
    (
        "name,p\n1,0.5\n2,0.5\n3,0.7\n",
        "sub.txt, line 1: example 'name' is not in the answer key; a header line? a header is the "
        "first line, naming the columns, e.g. id,prediction (the id column: id, or a name ending "
        "in _id or Id)",
    ),
    (
        "id,0.5\n1,0.5\n2,0.5\n3,0.7\n",
        "sub.txt, line 1: example 'id' is not in the answer key; a header line?",
    ),
    # ids written as floats: one line for the file (not one per line and the key's ids as missing)
    (
        "1.0 0.5\n2.0 0.5\n3.0 0.7\n",
        "sub.txt, line 1: ids written as numbers with a decimal point or exponent ('1.0'): write them "
        "as in the answer key ('1'); 3 lines",
    ),
    (
        "1 0.5\n2e0 0.5\n3 0.7\n",
        "sub.txt, line 2: ids written as numbers with a decimal point or "
        "exponent ('2e0'): write them as in the answer key ('2')",
    ),
    # an id that is simply not in the key: no hint
    ("1 0.5\n2 0.5\n3 0.7\n9 0.1\n", "sub.txt, line 4: example '9' is not in the answer key"),
]


@pytest.mark.parametrize("text, message", NUMBERED, ids=[m.split(": ", 1)[1][:30] for _, m in NUMBERED])
def test_a_header_or_float_ids_are_named_as_such(tmp_path, capsys, text, message):
    (tmp_path / "key.txt").write_text("1 1\n2 0\n3 1\n")
    (tmp_path / "sub.txt").write_text(text)
    argv = ["score", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2004-physics", "--no-store"]
    code = main([*argv, str(tmp_path / "sub.txt")])
    out, err = capsys.readouterr()
    assert code == 1 and "rejected: 1 error(s)" in out, out
    assert err.startswith(f"perfeval: error: {tmp_path}/{message}") and err.count("\n") == 1, err


@pytest.mark.parametrize("text, message", BAD, ids=[m.split(": ", 1)[1][:30] for _, m in BAD])
def test_each_kind_of_bad_submission(tmp_path, capsys, text, message):
    (tmp_path / "key.txt").write_text("ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.txt").write_text(text)
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-physics",
            str(tmp_path / "sub.txt"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1 and "rejected" in out
    assert f"perfeval: error: {tmp_path}/{message}\n" in err
    assert not (tmp_path / "key.txt.leaderboard.sqlite").exists() or "rejected" in out  # nothing stored


def test_a_repeated_line_with_a_bad_prediction_has_both_errors_listed(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.txt").write_text("ev0 0.5\nev1 0.5\nev1 high\nev2 0.1\n")
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-physics",
            str(tmp_path / "sub.txt"),
        ]
    )
    _out, err = capsys.readouterr()
    assert code == 1
    assert f"{tmp_path}/sub.txt, line 3: example 'ev1' appears again (first on line 2)" in err
    assert f"{tmp_path}/sub.txt, line 3: the prediction 'high' is not a number" in err


def test_block_mismatch_all_errors_listed_and_no_target_revealed(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("".join(f"7 q{i} {i % 2}\n" for i in range(40)))
    lines = [f"7 q{i} 0.5" for i in range(40)]
    lines[3] = "8 q3 0.5"
    lines += [f"7 zz{i} 0.5" for i in range(30)]  # 30 unknown ids: the list is capped
    (tmp_path / "sub.txt").write_text("\n".join(lines) + "\n")
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-protein",
            str(tmp_path / "sub.txt"),
        ]
    )
    _out, err = capsys.readouterr()
    errs = err.splitlines()
    assert code == 1
    assert errs[0].endswith("sub.txt, line 4: example 'q3' belongs to block '7', not '8'")
    # the 21st error (line 60) stops the reading: the last 10 lines are not read
    assert (
        len(errs) == 21 and errs[-1] == "perfeval: error: ... more than 20 errors: reading stopped at line 60"
    )
    assert "target" not in err and " 0\n" not in err and " 1\n" not in err


def test_leaderboard_best_entry_per_team_ties_by_time():
    entries = [
        {"team": "a", "file": "a1", "time": "2026-01-01T10:00", "scores": {"ROC": 0.80, "CXE": 0.50}},
        {"team": "b", "file": "b1", "time": "2026-01-01T09:00", "scores": {"ROC": 0.85, "CXE": 0.60}},
        {"team": "a", "file": "a2", "time": "2026-01-01T11:00", "scores": {"ROC": 0.85, "CXE": 0.55}},
        {"team": "c", "file": "c1", "time": "2026-01-01T08:00", "scores": {"ROC": 0.70, "CXE": 0.40}},
    ]
    r = rankings(entries, {"ROC": "higher", "CXE": "lower"})
    assert [s.team for s in r["ROC"]] == ["b", "a", "c"]  # a's 0.85 came after b's 0.85
    assert r["ROC"][1].file == "a2"
    assert [s.team for s in r["CXE"]] == ["c", "a", "b"]
    # mean ranks: a (2 + 2) / 2, b (1 + 3) / 2, c (3 + 1) / 2: all 2.0, so the earliest first submission wins
    assert [s.value for s in r["overall"]] == [2.0, 2.0, 2.0]
    assert [s.team for s in r["overall"]] == ["c", "b", "a"]


def test_leaderboard_command_and_custom_task_file(tmp_path, capsys):
    _physics(tmp_path)
    task = tmp_path / "mine.toml"
    task.write_text(
        'name = "mine"\nsubmission = "id-score"\nkey = "id-target"\n'
        '[[criteria]]\nname = "AUC"\nperf = ["-roc"]\ndirection = "higher"\n'
        '[[criteria]]\nname = "R"\nperf = ["-rms"]\ndirection = "lower"\n'
    )
    for team in ("red", "blue"):
        assert (
            main(
                [
                    "score",
                    "--key",
                    str(tmp_path / "key.txt"),
                    "--task",
                    str(task),
                    str(tmp_path / "sub.txt"),
                    "--team",
                    team,
                ]
            )
            == 0
        )
    capsys.readouterr()
    assert (
        main(["leaderboard", "--key", str(tmp_path / "key.txt"), "--task", str(task), "--format", "json"])
        == 0
    )
    board = json.loads(capsys.readouterr().out)
    assert [s["team"] for s in board["AUC"]] == ["red", "blue"]  # same score: the earlier one first
    assert set(board) == {"AUC", "R", "overall"}
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'name = "x"\nsubmission = "id-score"\nkey = "id-target"\n[[criteria]]\nname = "A"\n'
        'perf = ["-nosuch"]\ndirection = "higher"\n'
    )
    assert (
        main(["score", "--key", str(tmp_path / "key.txt"), "--task", str(bad), str(tmp_path / "sub.txt")])
        != 0
    )


# -- the fast reading path must agree with the line-by-line reference on every file --------------------


def _both_ways(monkeypatch, raw_key: bytes, raw_sub: bytes, task_name: str, tmp_path):
    """check_submission's result with the fast path, and with it switched off (the reference)."""
    from perfeval.contest import score as S

    (tmp_path / "k.txt").write_bytes(raw_key)
    (tmp_path / "s.txt").write_bytes(raw_sub)
    task = load_task(task_name)
    results = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(S, "_fast_columns", lambda raw, width, rows=None: None)
            key = S.read_key(str(tmp_path / "k.txt"), task)
            assert (key.plain is not None) == fast
            results.append(S.check_submission([str(tmp_path / "s.txt")], task, key))
    return results


TOKENS = [
    "0.5",
    "1",
    "0",
    ".25",
    "5.",
    "+.5e-1",
    "1e-3",
    "0.999999999",
    "1.5",
    "-0.1",
    "nan",
    "inf",
    "high",
    "0x1p-2",
    "1_0",
    "1e",
    "1e999",
    "",
    "0.5 extra",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fast_path_equals_line_by_line_reading(monkeypatch, tmp_path, data):
    n = data.draw(st.integers(1, 12))
    protein = data.draw(st.booleans())
    ids = [f"e{k}" for k in range(n)]
    blocks = [str(data.draw(st.sampled_from([3, 4]))) for _ in ids]
    targets = [str(data.draw(st.integers(0, 1))) for _ in ids]
    quoted = data.draw(st.booleans())  # the key as a CSV writer quotes it
    key = "".join(
        (f"{b} " if protein else "") + (f'"{i}"' if quoted else i) + f" {t}\n"
        for b, i, t in zip(blocks, ids, targets, strict=False)
    )
    order = data.draw(st.permutations(range(n)))
    lines = [
        (f"{blocks[k]} " if protein else "") + f"{ids[k]} {data.draw(st.sampled_from(TOKENS[:8]))}"
        for k in order
    ]
    for _ in range(data.draw(st.integers(0, 3))):  # mutations
        kind = data.draw(
            st.sampled_from(
                [
                    "token",
                    "drop",
                    "repeat",
                    "unknown",
                    "comment",
                    "blank",
                    "crlf",
                    "comma",
                    "block",
                    "utf8",
                    "header",
                    "quote",
                    "empty",
                ]
            )
        )
        k = data.draw(st.integers(0, len(lines) - 1)) if lines else 0
        if not lines:
            break
        f = lines[k].split(" ")
        if kind == "token":
            f[-1] = data.draw(st.sampled_from(TOKENS))
        elif kind == "drop":
            del lines[k]
            continue
        elif kind == "repeat":
            lines.append(lines[k])
            continue
        elif kind == "unknown" and len(f) >= 2:
            f[-2] = "zz"
        elif kind in ("comment", "blank", "header"):  # a header: first, or anywhere (not one there)
            header = "block_id,id,prediction" if protein else "id,prediction"
            where = k * data.draw(st.booleans()) if kind == "header" else k
            lines.insert(where, {"comment": "# a comment", "blank": "   ", "header": header}[kind])
            continue
        elif kind == "crlf":
            f[-1] += "\r"
        elif kind == "comma":
            f = [",".join(f)]
        elif kind == "block" and protein:
            f[0] = "9"
        elif kind == "utf8" and len(f) >= 2:
            f[-2] += "é"
        elif kind == "quote" and len(f) >= 2:  # as a CSV writer quotes
            f[-2] = data.draw(st.sampled_from(['"{}"', '"{}', '{}"', 'x"{}"', '"{}"""', '""'])).format(f[-2])
        elif kind == "empty":  # pandas' missing value
            f = [",".join(f[:-1]) + ","]
        lines[k] = " ".join(f)
    sub = ("\n".join(lines) + ("\n" if data.draw(st.booleans()) else "")).encode()
    (fp, fe, fr), (sp, se, sr) = _both_ways(
        monkeypatch, key.encode(), sub, "kddcup2004-protein" if protein else "kddcup2004-physics", tmp_path
    )
    assert fe == se and fr == sr
    assert fp.keys() == sp.keys()
    for lst in fp:
        assert fp[lst].dtype == np.float32 and np.array_equal(fp[lst], sp[lst])


def test_fast_path_ranked_lists_and_key_reading(monkeypatch, tmp_path):
    ids = [f"g{k}" for k in range(50)]
    key = "".join(f"{i} {'change' if k % 7 == 0 else 'nc'}\n" for k, i in enumerate(ids)).encode()
    rng = np.random.default_rng(5)
    sub = "".join(ids[k] + "\n" for k in rng.permutation(50)).encode()
    task = load_task("kddcup2002-task2")
    from perfeval.contest import score as S

    (tmp_path / "k.txt").write_bytes(key)
    for name in ("narrow", "broad"):
        (tmp_path / f"{name}.txt").write_bytes(sub)
    paths = [str(tmp_path / "narrow.txt"), str(tmp_path / "broad.txt")]
    fast = S.check_submission(paths, task, S.read_key(str(tmp_path / "k.txt"), task))
    monkeypatch.setattr(S, "_fast_columns", lambda raw, width, rows=None: None)
    slow = S.check_submission(paths, task, S.read_key(str(tmp_path / "k.txt"), task))
    assert fast[1] == slow[1] == [] and fast[2] == slow[2] == 100
    for lst in ("narrow", "broad"):
        assert np.array_equal(fast[0][lst], slow[0][lst])
        assert sorted(fast[0][lst].tolist()) == list(range(1, 51))


def test_join_ids_kernel():
    from perfeval import _native as K
    from perfeval.contest.score import _fast_columns

    def offsets(text: bytes):
        p = _fast_columns(text, 1)
        return p.offsets(0)

    key = offsets(b"a\nbb\nc\n")
    perm = K.join_ids(*key, *offsets(b"c\na\nbb\n"))
    assert np.frombuffer(perm, np.int64).tolist() == [1, 2, 0]
    assert K.join_ids(*key, *offsets(b"c\na\nb\n")) is None  # unknown id 'b'
    assert K.join_ids(*key, *offsets(b"c\na\na\n")) is None  # repeated, and 'bb' missing
    assert K.join_ids(*key, *offsets(b"c\na\n")) is None  # too few
    dup = offsets(b"a\nb\na\n")
    assert K.join_ids(*dup, *dup) is None  # the key repeats an id


KEY_BAD = [
    ("ev0 1\nev1 0\nev0 1\n", "key.txt, line 3: the answer key lists example 'ev0' twice"),
    ("ev0 1\nev1\n", "key.txt, line 2: the answer key needs 2 fields a line (id-target), found 1"),
    ("# nothing\n\n", "key.txt: the answer key holds no examples"),
]


@pytest.mark.parametrize("text, message", KEY_BAD, ids=["repeat", "fields", "empty"])
def test_bad_answer_key(tmp_path, capsys, text, message):
    (tmp_path / "key.txt").write_text(text)
    (tmp_path / "sub.txt").write_text("ev0 0.5\n")
    assert (
        main(
            [
                "score",
                "--key",
                str(tmp_path / "key.txt"),
                "--task",
                "kddcup2004-physics",
                str(tmp_path / "sub.txt"),
            ]
        )
        == 1
    )  # a data error (2 is for the command line)
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("token", ["0x1p-2", "1_0", "1e", "--1", ".", "0.5.1"])
def test_numbers_only_in_the_form_perf_reads(tmp_path, capsys, token):
    (tmp_path / "key.txt").write_text("ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.txt").write_text(f"ev0 0.5\nev1 {token}\nev2 0.1\n")
    assert (
        main(
            [
                "score",
                "--key",
                str(tmp_path / "key.txt"),
                "--task",
                "kddcup2004-physics",
                str(tmp_path / "sub.txt"),
            ]
        )
        == 1
    )
    assert f"sub.txt, line 2: the prediction '{token}' is not a number" in capsys.readouterr().err


def test_leaderboard_in_postgresql(tmp_path, capsys, postgres_url):
    _physics(tmp_path)
    key, sub = str(tmp_path / "key.txt"), str(tmp_path / "sub.txt")
    for team in ("red", "blue"):
        assert (
            main(
                [
                    "score",
                    "--key",
                    key,
                    "--task",
                    "kddcup2004-physics",
                    sub,
                    "--team",
                    team,
                    "--db",
                    postgres_url,
                ]
            )
            == 0
        )
    capsys.readouterr()
    assert (
        main(
            [
                "leaderboard",
                "--key",
                key,
                "--task",
                "kddcup2004-physics",
                "--db",
                postgres_url,
                "--format",
                "json",
            ]
        )
        == 0
    )
    board = json.loads(capsys.readouterr().out)
    assert [s["team"] for s in board["ROC"]] == ["red", "blue"] and set(board) == {
        "ACC",
        "ROC",
        "CXE",
        "SLQ",
        "overall",
    }
    assert not (tmp_path / "key.txt.leaderboard.sqlite").exists()


def test_key_check_and_block_comparison_kernels():
    from perfeval import _native as K
    from perfeval.contest.score import _fast_columns

    none = np.zeros(0, np.int64)
    ok = _fast_columns(b"a\nbb\nc\n", 1).offsets(0)
    dup = _fast_columns(b"a\nbb\na\n", 1).offsets(0)
    assert K.join_ids(*ok, b"", none, none) is not None and K.join_ids(*dup, b"", none, none) is None
    a = _fast_columns(b"7\n8\n07\n", 1).offsets(0)
    b = _fast_columns(b"07\n7\n8\n", 1).offsets(0)
    assert K.same_tokens(*a, *b, np.array([1, 2, 0], np.int64))
    assert not K.same_tokens(*a, *b, np.array([0, 2, 1], np.int64))  # '7' is not '07' as text


@pytest.mark.parametrize(
    "db",
    ["postgresql://nobody@/nodb?host=/nonexistent", "{tmp}/not-a-db.sqlite", "{tmp}/no/such/dir/x.sqlite"],
)
def test_leaderboard_database_that_cannot_be_opened(tmp_path, capsys, db):
    pytest.importorskip("psycopg") if db.startswith("postgresql") else None
    _physics(tmp_path, n=50)
    (tmp_path / "not-a-db.sqlite").write_text("this is not a database\n" * 100)
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-physics",
            str(tmp_path / "sub.txt"),
            "--db",
            db.format(tmp=tmp_path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("perfeval: error: cannot open the leaderboard database ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("where", ["key", "sub", "both"])
@pytest.mark.parametrize("fast", [True, False])  # the whole-file check, and the line-by-line reading
def test_a_byte_order_mark_is_not_part_of_the_first_id(tmp_path, capsys, monkeypatch, where, fast):
    """Notepad's and PowerShell's UTF-8 files start with a byte-order mark: read without it, as the
    table readers read theirs (it was read into the first id: every submission rejected, blamed)."""
    import perfeval.contest.score as sc

    if not fast:
        monkeypatch.setattr(sc, "_fast_check", lambda *a, **k: None)
        monkeypatch.setattr(sc, "_fast_columns", lambda *a, **k: None)
    size = 300
    rng = np.random.default_rng(size)
    y = rng.integers(0, 2, size)
    p = np.round(rng.random(size), 3)
    key = "".join(f"ev{i} {t}\n" for i, t in enumerate(y)).encode()
    sub = "".join(f"ev{i} {v}\n" for i, v in enumerate(p)).encode()
    bom = b"\xef\xbb\xbf"
    (tmp_path / "key.txt").write_bytes(bom + key if where in ("key", "both") else key)
    (tmp_path / "sub.txt").write_bytes(bom + sub if where in ("sub", "both") else sub)
    (tmp_path / "plain.txt").write_bytes(sub)
    argv = ["score", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2004-physics", "--no-store"]
    argv += ["--format", "json"]
    assert main([*argv, str(tmp_path / "plain.txt")]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main([*argv, str(tmp_path / "sub.txt")]) == 0
    got = json.loads(capsys.readouterr().out)
    assert json.dumps(got).replace("sub.txt", "plain.txt") == json.dumps(want)


# -- files as pandas and Excel write them -------------------------------------------------------------
def _csv_variants(ids: list[str], preds: list[str]) -> dict[str, bytes]:
    """One submission as pandas' to_csv and Excel write it: headers, CR LF, quotes, a byte-order mark."""
    rows = list(zip(ids, preds, strict=True))
    plain = "".join(f"{i},{p}\n" for i, p in rows)
    return {
        "pandas": ("id,prediction\n" + plain).encode(),
        "crlf": ("id,prediction\n" + plain).replace("\n", "\r\n").encode(),
        "bom": b"\xef\xbb\xbf" + ("id,prediction\r\n" + plain.replace("\n", "\r\n")).encode(),
        "quoted": ('"id","prediction"\n' + "".join(f'"{i}",{p}\n' for i, p in rows)).encode(),
        "excel": b"\xef\xbb\xbf"
        + ('"id","prediction"\r\n' + "".join(f'"{i}","{p}"\r\n' for i, p in rows)).encode(),
        "named": ("example_id,score\n" + plain).encode(),
        "kaggle": ("Id,Predicted\n" + plain).encode(),
        "tabs": ("id\tprediction\n" + plain.replace(",", "\t")).encode(),
        "comment first": ("# team red\nid,prediction\n" + plain).encode(),
    }


@pytest.mark.parametrize("fast", [True, False])
def test_a_header_naming_the_columns_is_read_as_a_header(tmp_path, capsys, monkeypatch, fast):
    """pandas writes a header (id,prediction), Excel quotes and ends lines with CR LF: each such
    file scores as the plain one does (they were rejected: "example 'id' is not in the answer key")."""
    import perfeval.contest.score as sc

    if not fast:
        monkeypatch.setattr(sc, "_fast_check", lambda *a, **k: None)
    y, p = _physics(tmp_path, n=400, seed=9)
    ids = [f"ev{i}" for i in range(len(y))]
    argv = ["score", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2004-physics", "--no-store"]
    assert main([*argv, "--format", "json", str(tmp_path / "sub.txt")]) == 0
    want = json.loads(capsys.readouterr().out)[0]["scores"]
    for name, raw in _csv_variants(ids, [str(v) for v in p]).items():
        (tmp_path / "v.csv").write_bytes(raw)
        code = main([*argv, "--format", "json", str(tmp_path / "v.csv")])
        got = json.loads(capsys.readouterr().out)[0]
        assert code == 0 and got["scores"] == want and got["rows"] == len(y), (name, got["errors"])
    # the key may have a header too (pandas' to_csv); the submissions' then may name the id as it does
    (tmp_path / "key.csv").write_text(
        "gene_id,target\n" + "".join(f"{i},{t}\n" for i, t in zip(ids, y, strict=True))
    )
    (tmp_path / "v.csv").write_text(
        "gene_id,p\n" + "".join(f"{i},{v}\n" for i, v in zip(ids, p, strict=True))
    )
    argv[2] = str(tmp_path / "key.csv")
    assert main([*argv, "--format", "json", str(tmp_path / "v.csv")]) == 0
    assert json.loads(capsys.readouterr().out)[0]["scores"] == want


def test_headers_of_the_protein_and_ranked_tasks(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("block_id,id,target\n7,a,1\n7,b,0\n8,c,0\n8,d,1\n")
    (tmp_path / "sub.csv").write_text("block_id,id,prediction\n7,a,0.9\n7,b,0.2\n8,c,0.4\n8,d,0.3\n")
    argv = ["score", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2004-protein", "--no-store"]
    assert main([*argv, str(tmp_path / "sub.csv")]) == 0
    capsys.readouterr()
    genes = [f"g{i}" for i in range(12)]
    (tmp_path / "genes.csv").write_text(
        "gene_id,label\n"
        + "".join(f"{g},{['change', 'nc', 'control'][i % 3]}\n" for i, g in enumerate(genes))
    )
    team = tmp_path / "team"
    team.mkdir()
    for lst in ("narrow", "broad"):
        (team / f"{lst}.txt").write_text("gene_id\n" + "\n".join(genes) + "\n")
    argv = ["score", "--key", str(tmp_path / "genes.csv"), "--task", "kddcup2002-task2", "--no-store"]
    code = main([*argv, "--format", "json", str(team)])
    out = json.loads(capsys.readouterr().out)[0]
    assert code == 0 and out["rows"] == 24, out["errors"]


def test_a_first_line_that_could_be_data_is_never_taken_for_a_header(tmp_path, capsys):
    # an example of the key named 'id': its line is data
    (tmp_path / "key.txt").write_text("id 1\nev1 0\nev2 1\n")
    argv = ["score", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2004-physics", "--no-store"]
    (tmp_path / "sub.txt").write_text("id,0.7\nev1,0.2\nev2,0.9\n")
    code = main([*argv, "--format", "json", str(tmp_path / "sub.txt")])
    assert code == 0 and json.loads(capsys.readouterr().out)[0]["rows"] == 3
    (tmp_path / "sub.txt").write_text("id,prediction\nev1,0.2\nev2,0.9\n")
    code = main([*argv, str(tmp_path / "sub.txt")])
    err = capsys.readouterr().err
    assert code == 1 and "line 1: the prediction 'prediction' is not a number" in err
    # a number where the prediction's name would be: data (and wrong), never dropped
    (tmp_path / "key.txt").write_text("ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.txt").write_text("example_id,0.5\nev0,0.7\nev1,0.2\nev2,0.9\n")
    code = main([*argv, str(tmp_path / "sub.txt")])
    err = capsys.readouterr().err
    assert code == 1 and "line 1: example 'example_id' is not in the answer key; a header line?" in err
    # only the first line can be a header
    (tmp_path / "sub.txt").write_text("ev0,0.7\nid,prediction\nev1,0.2\nev2,0.9\n")
    assert main([*argv, str(tmp_path / "sub.txt")]) == 1
    assert "line 2: example 'id' is not in the answer key" in capsys.readouterr().err


EMPTY = [
    ("ev0,0.5\nev1,\nev2,0.1\n", "sub.txt, line 2: missing prediction for example 'ev1' (an empty field)"),
    (
        '"ev0","0.5"\n"ev1",""\n"ev2","0.1"\n',
        "sub.txt, line 2: missing prediction for example 'ev1' (an empty field)",
    ),
    ("ev0,0.5\n,0.3\nev1,0.2\nev2,0.1\n", "sub.txt, line 2: missing example id (an empty field)"),
]


@pytest.mark.parametrize("text, message", EMPTY, ids=["empty", "quoted empty", "empty id"])
def test_an_empty_field_is_a_missing_prediction(tmp_path, capsys, text, message):
    """pandas writes a NaN as an empty field ("ev1,"): one error, saying what is missing (it was
    "expected 2 fields (example_id prediction), found 1", then "no prediction" for the same id)."""
    (tmp_path / "key.txt").write_text("ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.txt").write_text(text)
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-physics",
            "--no-store",
            str(tmp_path / "sub.txt"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1 and "rejected: 1 error(s)" in out
    assert err == f"perfeval: error: {tmp_path}/{message}\n"


def test_pandas_index_column_is_named(tmp_path, capsys):
    (tmp_path / "key.txt").write_text("ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.csv").write_text(",id,prediction\n0,ev0,0.5\n1,ev1,0.2\n2,ev2,0.9\n")
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-physics",
            "--no-store",
            str(tmp_path / "sub.csv"),
        ]
    )
    err = capsys.readouterr().err
    assert (
        code == 1
        and (
            "line 2: expected 2 fields (example_id prediction), found 3; the first looks like a column of "
            "row numbers (pandas: to_csv(index=False), R: write.csv(row.names=FALSE) write none); reading "
            "stopped\n"
        )
        in err
        and err.count("\n") == 1  # one error for the file, not one a line and the ids as missing
    )


def test_scores_keep_full_precision(tmp_path, capsys):
    """The JSON output and the leaderboard keep each score as the double perf rounds to the digits it
    prints (they kept those 5 digits): equal to scikit-learn to far more than 5 decimals."""
    metrics = pytest.importorskip("sklearn.metrics")
    y, p = _physics(tmp_path, n=2000, seed=4)
    argv = ["score", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2004-physics", "--team", "red"]
    assert main([*argv, "--format", "json", str(tmp_path / "sub.txt")]) == 0
    scores = json.loads(capsys.readouterr().out)[0]["scores"]
    p32 = p.astype(np.float32).astype(np.float64)  # as perf reads them
    assert abs(scores["ACC"] - metrics.accuracy_score(y, p32 >= 0.5)) < 1e-12
    assert abs(scores["ROC"] - metrics.roc_auc_score(y, p32)) < 1e-8  # PERF keeps intermediates in float32
    assert abs(scores["CXE"] - metrics.log_loss(y, p32) / np.log(2)) < 1e-12  # bits
    out, _, _ = run_perf(["-acc", "-roc", "-cxe", "-slq", "0.01"], (tmp_path / "joined.txt").read_bytes())
    for name in ("ACC", "ROC", "CXE", "SLQ"):
        assert _as_perf_prints(scores[name], name) == _printed(out, name), name
    assert (
        main(
            [
                "leaderboard",
                "--key",
                str(tmp_path / "key.txt"),
                "--task",
                "kddcup2004-physics",
                "--format",
                "json",
            ]
        )
        == 0
    )
    board = json.loads(capsys.readouterr().out)
    assert {name: board[name][0]["value"] for name in scores} == scores


def test_two_header_lines_read_the_same_whole_or_line_by_line(monkeypatch, tmp_path):
    """Only the first line can be a header, on either reading (the fast path blanks it out; the
    line-by-line reading of the same file must not take the second for one)."""
    key = b"ev0 1\nev1 0\n"
    sub = b"id,prediction\nid,prediction\nev0,0.5\nev1,0.2\n"
    (fp, fe, fr), (sp, se, sr) = _both_ways(monkeypatch, key, sub, "kddcup2004-physics", tmp_path)
    assert fe == se and fr == sr and len(fe) == 1 and "line 2: example 'id' is not in the answer key" in fe[0]


def test_the_missing_ids_are_listed_in_sorted_order_not_the_keys(tmp_path, capsys):
    """A key sorted by label: listed in its order, the first missing ids would be its negatives.
    They are listed in sorted order (ids of digits numerically)."""
    neg, pos = ["7", "30", "9", "100", "5", "11"], ["2", "10", "4", "8", "6", "12"]
    (tmp_path / "key.txt").write_text("".join(f"{i} 0\n" for i in neg) + "".join(f"{i} 1\n" for i in pos))
    (tmp_path / "sub.txt").write_text("12 0.5\n")
    code = main(
        [
            "score",
            "--key",
            str(tmp_path / "key.txt"),
            "--task",
            "kddcup2004-physics",
            str(tmp_path / "sub.txt"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1
    assert "11 example(s) of the answer key have no prediction: '2', '4', '5', '6', '7', ...\n" in err, err
