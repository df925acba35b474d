"""Table tasks (docs/contest.md, "Table tasks"): a key and submissions in CSV or Parquet with named
columns, criteria from the whole registry.  Each criterion's score is ``perfeval.evaluate`` on the
joined data, bit for bit; hostile submissions are one line each, exit 1, nothing of the key; the
presets keep their numbers; the leaderboard's tie rule; full precision through the database and JSON.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import run_cli
from perfeval import __version__, evaluate
from perfeval.contest import read_key, score_submission
from perfeval.contest.board import Board, rankings
from perfeval.contest.tasks import load_task
from perfeval.exceptions import InvalidParameterError, PerfError

pd = pytest.importorskip("pandas")

HEAD = 'name = "{name}"\nsubmission = "table"\nkey = "table"\n'


def _task(tmp_path, body: str, name: str = "t") -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(HEAD.format(name=name) + textwrap.dedent(body))
    return str(path)


def _write(path, frame) -> str:
    """A data frame as CSV, every float written as its shortest repr (read back to the same bits)."""
    cols = list(frame.columns)
    lines = [",".join(cols)]
    for row in frame.itertuples(index=False):
        lines.append(",".join(repr(float(v)) if isinstance(v, (float, np.floating)) else str(v) for v in row))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or np.float64(a).tobytes() == np.float64(b).tobytes()


def _json_scores(capsys, task, key, sub, *extra):
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, sub, "--no-store", "--format", "json", *extra], capsys
    )
    assert code == 0, err
    (entry,) = json.loads(out)
    return entry["scores"]


# -- every kind of criterion equals evaluate() on the joined data, bit for bit --------------------------
def _binary(rng, n=300, groups=False, graded=False, weights=False):
    key = pd.DataFrame({"row_id": rng.permutation(np.arange(10_000, 10_000 + n))})
    key["y"] = rng.integers(0, 4, n) if graded else (rng.random(n) < 0.35).astype(int)
    if groups:
        key["query"] = [f"q{i % 17}" for i in range(n)]
    if weights:
        key["w"] = np.round(rng.uniform(0.5, 3.0, n), 3)
    p = np.clip(rng.normal(0.4 + 0.1 * key["y"], 0.2), 0.001, 0.999)
    sub = pd.DataFrame({"row_id": key["row_id"], "p": p}).sample(frac=1.0, random_state=1)
    return key, sub


BINARY = 'problem = "binary"\nid = "row_id"\nprediction = "p"\ntarget = "y"\n'
GROUPED = BINARY + 'group = "query"\n'
CASES = {
    # id: (task body, data maker, measure, how evaluate is called)
    "roc": (BINARY, _binary, "roc", {}),
    "acc@0.3": (BINARY, _binary, "acc@0.3", {}),
    "cxe": (BINARY, _binary, "cxe", {}),
    "logloss": (BINARY, _binary, "logloss", {}),
    "ap": (BINARY, _binary, "ap", {}),
    "ece": (BINARY, _binary, "ece", {}),
    "operating point": (BINARY, _binary, "tpr_at_fpr:max_fpr=0.2", {}),
    "roc, sklearn's": (BINARY, _binary, "roc", {"dialect": "sklearn"}),
    "roc, perf's": (BINARY, _binary, "roc", {"dialect": "perf"}),
    "ndcg@10": (GROUPED, lambda r: _binary(r, groups=True, graded=True), "ndcg@10", {"group": "query"}),
    "map": (GROUPED, lambda r: _binary(r, groups=True), "map", {"group": "query"}),
    "gauc": (GROUPED, lambda r: _binary(r, groups=True), "gauc", {"group": "query"}),
    "roc per group": (GROUPED, lambda r: _binary(r, groups=True), "roc", {"group": "query"}),
    "roc, weighted": (BINARY + 'weight = "w"\n', lambda r: _binary(r, weights=True), "roc", {"weight": "w"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_binary_criterion_is_evaluate_on_the_joined_data(tmp_path, capsys, case):
    body, make, measure, how = CASES[case]
    dialect = how.get("dialect")
    crit = f'[[criteria]]\nname = "C"\nmeasure = "{measure}"\n' + (
        f'dialect = "{dialect}"\n' if dialect else ""
    )
    task = _task(tmp_path, body + crit)
    key, sub = make(np.random.default_rng(len(case)))
    got = _json_scores(capsys, task, _write(tmp_path / "key.csv", key), _write(tmp_path / "sub.csv", sub))[
        "C"
    ]
    joined = key.merge(sub, on="row_id", how="left")
    ref = evaluate(
        joined["y"].to_numpy(),
        joined["p"].to_numpy(),
        measures=[measure],
        groups=joined[how["group"]].to_numpy() if "group" in how else None,
        sample_weight=joined[how["weight"]].to_numpy() if "weight" in how else None,
        dialect=dialect or "perfeval",
        task="binary",
    )
    (want,) = ref.results.values()
    assert math.isfinite(want.value) and _same(got, want.value), (got, want.value)


def test_a_measure_with_no_direction_ranks_by_its_distance_to_its_ideal(tmp_path, capsys):
    task = _task(tmp_path, BINARY + '[[criteria]]\nname = "slope"\nmeasure = "cal_slope"\nideal = 1.0\n')
    key, sub = _binary(np.random.default_rng(5))
    k, s = _write(tmp_path / "key.csv", key), _write(tmp_path / "sub.csv", sub)
    got = _json_scores(capsys, task, k, s)["slope"]
    joined = key.merge(sub, on="row_id")
    assert _same(got, evaluate(joined["y"], joined["p"], measures=["cal_slope"], task="binary")["CAL_SLOPE"])
    assert load_task(task).directions() == {"slope": "ideal:1.0"}
    entries = [  # 0.9 is nearer 1 than 1.2; equal distances to the earlier
        {"team": "a", "file": "a", "time": "t1", "scores": {"slope": 1.2}},
        {"team": "b", "file": "b", "time": "t2", "scores": {"slope": 0.9}},
        {"team": "c", "file": "c", "time": "t3", "scores": {"slope": 1.1}},
        {"team": "d", "file": "d", "time": "t0", "scores": {"slope": None}},
    ]
    assert [s.team for s in rankings(entries, {"slope": "ideal:1.0"})["slope"]] == ["b", "c", "a", "d"]


def _classes(rng, n=240, k=4):
    classes = [f"c{j}" for j in range(k)]
    y = rng.integers(0, k, n)
    raw = rng.dirichlet(np.ones(k), n) + 0.6 * np.eye(k)[y]
    raw = np.round(raw / raw.sum(axis=1, keepdims=True), 4)  # rounded: rows sum to 1 only roughly
    key = pd.DataFrame({"id": [f"r{i:04d}" for i in range(n)], "label": [classes[j] for j in y]})
    sub = pd.DataFrame(raw, columns=classes)
    sub.insert(0, "id", key["id"])
    return key, sub.sample(frac=1.0, random_state=2), classes


@pytest.mark.parametrize(
    ("measure", "probabilities"),
    [("logloss", True), ("brier", True), ("roc", False), ("acc", False), ("qwk", False), ("roc_ovo", False)],
)
def test_a_criterion_of_k_classes_is_evaluate_on_the_joined_data(tmp_path, capsys, measure, probabilities):
    """A criterion reading probabilities scores each row divided by its sum (Kaggle's rule: rows
    need not sum to 1); the others score the columns as given."""
    key, sub, classes = _classes(np.random.default_rng(7))
    body = f'problem = "classes"\nid = "id"\nprediction = {json.dumps(classes)}\ntarget = "label"\n'
    task = _task(tmp_path, body + f'[[criteria]]\nname = "C"\nmeasure = "{measure}"\n')
    assert load_task(task).criteria[0].rescale is probabilities
    got = _json_scores(capsys, task, _write(tmp_path / "k.csv", key), _write(tmp_path / "s.csv", sub))["C"]
    joined = key.merge(sub, on="id")
    s = joined[classes].to_numpy()
    if probabilities:
        s = s / s.sum(axis=1, keepdims=True)
    (want,) = evaluate(joined["label"].to_numpy(), s, classes=classes, measures=[measure]).results.values()
    assert _same(got, want.value)


def test_kaggles_multiclass_log_loss_example(tmp_path, capsys):
    """Kaggle's wiki page (MultiClassLogLoss): its public rows score 1.881797068998267; a row of ones
    is rescaled (it would score 0 as given: a free perfect log loss)."""
    task = _task(
        tmp_path,
        'problem = "classes"\nid = "id"\nprediction = ["col1", "col2"]\ntarget = "y"\n'
        '[[criteria]]\nname = "mlogloss"\nmeasure = "logloss"\n',
    )
    (tmp_path / "key.csv").write_text(
        "id,y,Indicator\n" + "".join(f"{i},col{1 + (i > 3)},Public\n" for i in range(1, 7))
    )
    rows = [(0.5, 0.5), (0.1, 0.9), (0.01, 0.99), (0.9, 0.1), (0.75, 0.25), (0.001, 0.999)]
    (tmp_path / "sub.csv").write_text(
        "id,col1,col2\n" + "".join(f"{i},{a},{b}\n" for i, (a, b) in enumerate(rows, 1))
    )
    (tmp_path / "ones.csv").write_text("id,col1,col2\n" + "".join(f"{i},1,1\n" for i in range(1, 7)))
    assert (
        _json_scores(capsys, task, str(tmp_path / "key.csv"), str(tmp_path / "sub.csv"))["mlogloss"]
        == 1.881797068998267
    )
    assert _json_scores(capsys, task, str(tmp_path / "key.csv"), str(tmp_path / "ones.csv"))[
        "mlogloss"
    ] == math.log(2)


def test_a_total_sums_a_table_tasks_criteria(tmp_path):
    key, sub = _binary(np.random.default_rng(29))
    task = _task(
        tmp_path,
        BINARY + '[[criteria]]\nname = "A"\nmeasure = "roc"\n[[criteria]]\nname = "B"\nmeasure = "apr"\n'
        '[total]\nname = "S"\nsum = ["A", "B"]\n',
    )
    r = score_submission(task, key, sub)
    assert r.ok and r.scores["S"] == r.scores["A"] + r.scores["B"] and set(r.scores) == {"A", "B", "S"}


def test_qwk_of_integer_grades(tmp_path, capsys):
    """K classes predicted as one label a row (integer grades): QWK, accuracy and linear kappa equal
    evaluate() on the one-hot rows and scikit-learn on the labels; a measure of scores is refused."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(9)
    n = 200
    y = rng.integers(0, 5, n)
    pred = np.clip(y + rng.integers(-1, 2, n), 0, 4)
    key = pd.DataFrame({"essay": np.arange(n) * 7 + 3, "score": y})
    sub = pd.DataFrame({"essay": key["essay"], "grade": pred}).sample(frac=1.0, random_state=3)
    body = 'problem = "classes"\nid = "essay"\nprediction = "grade"\ntarget = "score"\n'
    body += "classes = [0, 1, 2, 3, 4]\n"
    crits = "".join(
        f'[[criteria]]\nname = "{m}"\nmeasure = "{m}"\n' for m in ("qwk", "acc", "kappa:weights=linear")
    )
    task = _task(tmp_path, body + crits)
    got = _json_scores(capsys, task, _write(tmp_path / "k.csv", key), _write(tmp_path / "s.csv", sub))
    onehot = np.eye(5)[pred]
    classes = [str(c) for c in range(5)]
    for m in ("qwk", "acc", "kappa:weights=linear"):
        (want,) = evaluate(y.astype(str), onehot, classes=classes, measures=[m]).results.values()
        assert _same(got[m], want.value), m
    assert math.isclose(got["qwk"], metrics.cohen_kappa_score(y, pred, weights="quadratic"), rel_tol=1e-12)
    assert math.isclose(got["acc"], metrics.accuracy_score(y, pred), rel_tol=1e-15)
    bad = _task(tmp_path, body + '[[criteria]]\nname = "L"\nmeasure = "logloss"\n', name="bad")
    code, out, err = run_cli(
        ["score", "--key", str(tmp_path / "k.csv"), "--task", bad, str(tmp_path / "s.csv")], capsys
    )
    assert code == 2 and "LOGLOSS_MC reads a score for each class" in err and len(err.splitlines()) == 1


def test_k_labels_and_regression_criteria(tmp_path, capsys):
    rng = np.random.default_rng(11)
    n = 150
    key = pd.DataFrame({"id": np.arange(n), "a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n)})
    sub = pd.DataFrame({"id": key["id"], "pa": rng.random(n), "pb": rng.random(n)}).sample(
        frac=1.0, random_state=4
    )
    body = 'problem = "labels"\nid = "id"\nprediction = ["pa", "pb"]\ntarget = ["a", "b"]\n'
    task = _task(
        tmp_path, body + "".join(f'[[criteria]]\nname = "{m}"\nmeasure = "{m}"\n' for m in ("roc", "hamming"))
    )
    got = _json_scores(capsys, task, _write(tmp_path / "k.csv", key), _write(tmp_path / "s.csv", sub))
    j = key.merge(sub, on="id")
    for m in ("roc", "hamming"):
        (want,) = evaluate(
            j[["a", "b"]].to_numpy(), j[["pa", "pb"]].to_numpy(), classes=["pa", "pb"], measures=[m]
        ).results.values()
        assert _same(got[m], want.value), m
    key = pd.DataFrame(
        {"id": [f"h{i}" for i in range(n)], "price": rng.normal(100, 20, n), "w": rng.uniform(1, 2, n)}
    )
    sub = pd.DataFrame({"id": key["id"], "pred": key["price"] + rng.normal(0, 5, n)}).sample(
        frac=1.0, random_state=5
    )
    body = 'problem = "regression"\nid = "id"\nprediction = "pred"\ntarget = "price"\nweight = "w"\n'
    ms = ("rmse", "mae", "r2", "medae")
    task = _task(
        tmp_path, body + "".join(f'[[criteria]]\nname = "{m}"\nmeasure = "{m}"\n' for m in ms), name="reg"
    )
    got = _json_scores(capsys, task, _write(tmp_path / "k2.csv", key), _write(tmp_path / "s2.csv", sub))
    j = key.merge(sub, on="id")
    for m in ms:
        (want,) = evaluate(
            j["price"], j["pred"], sample_weight=j["w"], measures=[m], task="regression"
        ).results.values()
        assert _same(got[m], want.value), m
    assert load_task(task).directions() == {"rmse": "lower", "mae": "lower", "r2": "higher", "medae": "lower"}


def test_data_frames_parquet_and_csv_give_the_same_scores(tmp_path):
    """The one entry (perfeval.contest.score_submission) takes a file's path or a data frame, for the
    key and the submission alike; CSV and Parquet are read to the same numbers."""
    pytest.importorskip("pyarrow")
    key, sub = _binary(np.random.default_rng(13), groups=True)
    task = _task(
        tmp_path,
        BINARY + 'group = "query"\n[[criteria]]\nname = "G"\nmeasure = "gauc"\n'
        '[[criteria]]\nname = "N"\nmeasure = "ndcg@5"\n',
    )
    _write(tmp_path / "key.csv", key)
    key.to_parquet(tmp_path / "key.parquet")
    _write(tmp_path / "sub.csv", sub)
    sub.to_parquet(tmp_path / "sub.parquet")
    seen = []
    for k in (str(tmp_path / "key.csv"), tmp_path / "key.parquet", key):
        read = read_key(k, task)
        for s in (str(tmp_path / "sub.csv"), str(tmp_path / "sub.parquet"), sub):
            r = score_submission(task, read, s)
            assert r.ok, r.errors
            seen.append(tuple(np.float64(v).tobytes() for v in r.scores.values()))
    assert len(set(seen)) == 1
    bad = sub.copy()
    bad.iloc[3, 1] = float("nan")
    r = score_submission(task, key, bad.iloc[:-2])  # a frame's rows are named by number
    gone = key.index[key["row_id"].isin(sub["row_id"].iloc[-2:])]
    assert r.errors == [
        "a submission, row 4, column 'p': the prediction is not a finite number (read as nan)",
        "a submission: 2 id(s) of the answer key have no prediction: "
        + ", ".join(repr(str(i)) for i in sorted(key["row_id"][gone])),  # sorted, not the key's order
    ]


# -- hostile submissions: one line each, exit 1, nothing of the key -------------------------------------
def _hostile_files(tmp_path):
    """A key of 200 rows (targets, groups and weights the submissions must never show) and a good
    submission's lines."""
    rng = np.random.default_rng(17)
    n = 200
    ids = [f"id{i:03d}" for i in range(n)]
    key = pd.DataFrame(
        {
            "rid": ids,
            "y": rng.integers(0, 2, n),
            "grp": [f"SECRETG{i % 7}" for i in range(n)],
            "w": 1.0 + np.arange(n) / 1e4,
        }
    )
    task = _task(
        tmp_path,
        'problem = "binary"\nid = "rid"\nprediction = "p"\ntarget = "y"\ngroup = "grp"\nweight = "w"\n'
        '[[criteria]]\nname = "G"\nmeasure = "roc"\n[[criteria]]\nname = "X"\nmeasure = "cxe"\n',
    )
    (tmp_path / "secret").mkdir()
    _write(tmp_path / "secret" / "key.csv", key)
    key2 = key.copy()
    key2["y"] = 1 - key2["y"]
    key2["grp"] = [f"OTHERG{i % 5}" for i in range(n)]
    key2["w"] = 2.0
    _write(tmp_path / "secret" / "key2.csv", key2)
    good = ["rid,p"] + [f"{i},{p!r}" for i, p in zip(ids, np.round(rng.random(n), 6).tolist(), strict=True)]
    return task, str(tmp_path / "secret" / "key.csv"), str(tmp_path / "secret" / "key2.csv"), good


def _lines(good, i, new):
    out = list(good)
    out[i] = new
    return out


HOSTILE = {
    "missing ids": (
        lambda g: g[:-3],
        "3 id(s) of the answer key have no prediction: 'id197', 'id198', 'id199'",
    ),
    "a duplicate": (
        lambda g: [*g, g[5]],
        "line 202, column 'rid': id 'id004' appears again (first on line 6)",
    ),
    "an extra id": (lambda g: [*g, "zz9,0.5"], "line 202, column 'rid': id 'zz9' is not in the answer key"),
    "NaN": (
        lambda g: _lines(g, 3, "id002,nan"),
        "line 4, column 'p': the prediction is not a finite number (read as nan)",
    ),
    "inf": (
        lambda g: _lines(g, 3, "id002,-inf"),
        "line 4, column 'p': the prediction is not a finite number",
    ),
    "outside [0, 1]": (
        lambda g: _lines(g, 3, "id002,1.5"),
        "line 4, column 'p': the prediction 1.5 is outside [0, 1], which X needs",
    ),
    "not a number": (
        lambda g: _lines(g, 3, "id002,high"),
        "line 4, column 'p': the prediction 'high' is not a number",
    ),
    "an empty prediction": (
        lambda g: _lines(g, 3, "id002,"),
        "line 4, column 'p': missing prediction (an empty field)",
    ),
    "a wrong header": (
        lambda g: ["rid,prob", *g[1:]],
        "line 1: column 2, 'prob', is not one of the submission's columns (rid, p)",
    ),
    "a missing column": (lambda g: ["rid", *(x.split(",")[0] for x in g[1:])], "line 1: no column 'p'"),
    "an index column": (
        lambda g: [",rid,p", *(f"{k},{x}" for k, x in enumerate(g[1:]))],
        "looks like a column of row numbers",
    ),
    "semicolons": (lambda g: [x.replace(",", ";") for x in g], "fields separated by ';'?"),
    "a wrong column count": (lambda g: _lines(g, 3, "id002,0.5,7"), "line 4: expected 2 fields, found 3"),
    "a line too long": (lambda g: _lines(g, 3, "id002," + "9" * 5000), "line 4: longer than 93 bytes"),
    "a long quoted field": (
        lambda g: _lines(g, 3, 'id002,"' + "q" * 60 + '"'),
        "line 4, column 'p': the prediction '" + "q" * 40 + "...' (60 characters) is not a number",
    ),
    "too many rows": (
        lambda g: g + [f"zz{i},0.5" for i in range(30)],
        "holds 230 rows, more than the answer key's 200 ids",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_each_hostile_submission_is_one_line_and_shows_nothing_of_the_key(tmp_path, capsys, case):
    task, key, key2, good = _hostile_files(tmp_path)
    make, message = HOSTILE[case]
    (tmp_path / "sub.csv").write_text("\n".join(make(good)) + "\n")
    seen = []
    for k in (key, key2):  # two keys that differ in every target, group and weight: the same words
        code, out, err = run_cli(
            ["score", "--key", k, "--task", task, str(tmp_path / "sub.csv"), "--no-store"], capsys
        )
        seen.append((code, err))
        assert code == 1 and len(err.splitlines()) == 1 and message in err, err
        assert "SECRET" not in err + out and "OTHER" not in err + out
    assert seen[0] == seen[1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(np.random.default_rng(1).integers(0, 256, 20_000, dtype=np.uint8)), "line "),
        (b"rid,p\nid000,0.5\x00\n", "holds a NUL byte (\\x00) at column 10: not a text table"),
        ("rid,p\nid000,0.5\n".encode("utf-16"), "is UTF-16 text"),
        (b"\x1f\x8b\x08\x00" + bytes(100), "is a gzip file"),
        (b"PK\x03\x04" + bytes(100), "is a zip file"),
        (b"", "holds no header and no data"),
        (b"rid,p\n", "holds a header and no data"),
        (b"rid,p\n1.0,0.5\n", "the id column 'rid' holds '1.0', a float"),
    ],
)
def test_junk_is_one_line(tmp_path, capsys, content, message):
    task, key, _, _ = _hostile_files(tmp_path)
    (tmp_path / "junk.csv").write_bytes(content)
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, str(tmp_path / "junk.csv"), "--no-store"], capsys
    )
    assert code == 1 and len(err.splitlines()) == 1 and message in err, err


def test_a_huge_file_is_refused_unread(tmp_path, capsys):
    task, key, _, good = _hostile_files(tmp_path)
    sparse = tmp_path / "sparse.csv"
    with open(sparse, "wb") as fh:
        fh.truncate(5 << 30)  # 5 GiB that cost no disk
    code, out, err = run_cli(["score", "--key", key, "--task", task, str(sparse), "--no-store"], capsys)
    assert code == 1 and "more than a submission for this key can be" in err and "it was not read" in err
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, str(sparse), "--no-store", "--format", "json"], capsys
    )
    (entry,) = json.loads(out)
    assert entry["stopped"] is True and entry["rows"] == 0 and entry["ok"] is False
    many = tmp_path / "blank.csv"  # blank lines past the cap: counted, not parsed
    many.write_bytes("\n".join(good).encode() + b"\n" * 300_000)
    code, out, err = run_cli(["score", "--key", key, "--task", task, str(many), "--no-store"], capsys)
    assert code == 1 and "more than a submission for this key can have" in err and len(err.splitlines()) == 1


def test_the_scorers_file_rules_hold_for_tables(tmp_path, capsys):
    """A link (unless --follow-links), the key itself, a FIFO: refused as for the line formats."""
    task, key, _, good = _hostile_files(tmp_path)
    (tmp_path / "sub.csv").write_text("\n".join(good) + "\n")
    os.symlink(tmp_path / "sub.csv", tmp_path / "link.csv")
    os.symlink(key, tmp_path / "keylink.csv")
    os.mkfifo(tmp_path / "fifo.csv")
    cases = {
        "link.csv": "is a symbolic link",
        "keylink.csv": "is the answer key itself",
        "fifo.csv": "is not a regular file",
    }
    for name, message in cases.items():
        extra = ["--follow-links"] if name == "keylink.csv" else []
        code, out, err = run_cli(
            ["score", "--key", key, "--task", task, str(tmp_path / name), "--no-store", *extra], capsys
        )
        assert code == 1 and message in err and len(err.splitlines()) == 1, err


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc")
def test_junk_costs_memory_that_follows_the_key(tmp_path):
    """Against a 100,000-row key: 100 MB of junk is refused unread; the largest file a submission
    can be, every line as wide as one can be and of junk text, is read in bounded memory."""
    n = 100_000
    (tmp_path / "key.csv").write_text("rid,y\n" + "".join(f"{i},{i % 2}\n" for i in range(n)))
    task = _task(
        tmp_path,
        'problem = "binary"\nid = "rid"\nprediction = "p"\ntarget = "y"\n'
        '[[criteria]]\nname = "R"\nmeasure = "roc"\n',
    )
    (tmp_path / "big.csv").write_bytes(b"rid,p\n" + b"1,0.5\n" * 20_000_000)
    line = b"x" * 40 + b"," + b"y" * 60 + b"\n"  # as wide as a line can be: text in both columns
    (tmp_path / "wide.csv").write_bytes(b"rid,p\n" + line * (n + 20))
    # each field as wide as its column's can be (an id: the key's longest, 20 for integers; a
    # prediction: 64), of text: what the reader keeps is as wide as that, for every row
    line = b"x" * 20 + b"," + b"y" * 64 + b"\n"
    (tmp_path / "fields.csv").write_bytes(b"rid,p\n" + line * (n + 20))
    for name, message, mib in (
        ("big.csv", "it was not read", 100),
        # a field wider than its column's is refused before the file is parsed (it was 161 MiB: the
        # reader kept the id column 100 characters wide, 4 bytes each, and the ids were copied twice)
        (
            "wide.csv",
            "line 2: column 'rid': a field of 40 characters, longer than an id of the answer key",
            100,
        ),
        ("fields.csv", "is not a number", 150),
    ):
        code = textwrap.dedent(f"""
            import sys
            from perfeval.cli.main import main
            status = main(["score", "--key", {str(tmp_path / "key.csv")!r}, "--task", {task!r},
                           {str(tmp_path / name)!r}, "--no-store"])
            hwm = next(ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")).split()[1]
            print(hwm, status, file=sys.stderr)
        """)
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        peak_kib, status = map(int, run.stderr.splitlines()[-1].split())
        print(name, peak_kib // 1024, "MiB")
        assert status == 1 and message in run.stderr, run.stderr[-2000:]
        assert peak_kib < mib * 1024, f"{name}: peak {peak_kib / 1024:.0f} MiB"


# -- task files ------------------------------------------------------------------------------------------
TABLE = BINARY + '[[criteria]]\nname = "R"\nmeasure = "roc"\n'
TABLE_MISTAKES = [
    (TABLE.replace('problem = "binary"\n', ""), "problem is missing"),
    (
        TABLE.replace('"binary"', '"multiclass"'),
        "problem: 'multiclass' is not one of binary, classes, labels, regression",
    ),
    (TABLE.replace('id = "row_id"\n', ""), "id is missing"),
    (
        TABLE.replace('prediction = "p"', 'prediction = ["p", "q"]'),
        "a binary task's submission has one prediction column",
    ),
    (TABLE.replace('target = "y"', 'target = "row_id"'), "'row_id' names two of the key's columns"),
    (TABLE.replace('measure = "roc"', 'measure = "rocc"'), "unknown measure 'rocc'"),
    (TABLE.replace('measure = "roc"', 'measure = "gauc"'), "GAUC is computed over groups"),
    (TABLE.replace('measure = "roc"', 'measure = "qwk"'), "QWK is a measure of K classes"),
    (
        TABLE.replace('measure = "roc"', 'measure = "roc"\ndirection = "lower"'),
        "'lower' contradicts the registry: for ROC, higher is better",
    ),
    (TABLE.replace('measure = "roc"', 'measure = "cal_slope"'), "CAL_SLOPE has no better direction"),
    (
        TABLE.replace('measure = "roc"', 'measure = "roc"\nideal = 1'),
        "only a measure with no direction takes an ideal",
    ),
    (TABLE.replace('measure = "roc"', 'measure = "cxe"\nprobability = false'), "CXE reads probabilities"),
    (TABLE.replace('measure = "roc"', 'perf = ["-roc"]'), "a table task's criteria name a registry measure"),
    (
        TABLE.replace('measure = "roc"', 'measure = "roc"\ndialect = "trec_eval"'),
        "dialect trec_eval does not define ROC",
    ),
    (
        TABLE.replace('measure = "roc"', 'measure = "ndcg@10"\ndialect = "perf"'),
        "dialect perf does not define NDCG@10",
    ),
    (TABLE.replace('target = "y"', 'target = "y"\nclasses = ["a", "b"]'), "only a task of K classes"),
    (
        TABLE.replace('problem = "binary"', 'problem = "classes"').replace(
            'prediction = "p"', 'prediction = "p"\nclasses = ["a", "a"]'
        ),
        "classes: 'a' is listed twice",
    ),
    (
        TABLE.replace('problem = "binary"', 'problem = "classes"'),
        "K classes predicted as one label a row need the classes",
    ),
]


@pytest.mark.parametrize(("text", "message"), TABLE_MISTAKES, ids=[m[:40] for _, m in TABLE_MISTAKES])
def test_each_table_task_mistake_is_one_line_at_load(tmp_path, capsys, text, message):
    (tmp_path / "task.toml").write_text(HEAD.format(name="t") + text)
    (tmp_path / "key.csv").write_text("row_id,y\n1,0\n2,1\n")
    code, out, err = run_cli(
        ["score", "--key", str(tmp_path / "key.csv"), "--task", str(tmp_path / "task.toml"), "x.csv"], capsys
    )
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"perfeval: error: {tmp_path}/task.toml") and message in err, err


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (
            "row_id,y\n1,0\n1,1\n",
            "line 3: column 'row_id': the answer key lists id '1' twice (first on line 2)",
        ),
        (
            "row_id,target\n1,0\n2,1\n",
            "the answer key has no column 'y' (the task's target column; its columns: row_id, target)",
        ),
        ("row_id,y\n1,0\n2,x\n", "line 3: column 'y': the target 'x' is not a number"),
        ("row_id,y\n1,0\n2,\n", "line 3: column 'y': a missing value"),
        ("row_id,y\n1,0\n2,2\n", "the answer key cannot be scored by criterion 'R'"),
    ],
)
def test_a_bad_table_key_is_one_line_before_any_submission(tmp_path, capsys, key, message):
    task = _task(tmp_path, TABLE)
    (tmp_path / "key.csv").write_text(key)
    (tmp_path / "sub.csv").write_text("row_id,p\n1,0.5\n2,0.5\n")
    code, out, err = run_cli(
        ["score", "--key", str(tmp_path / "key.csv"), "--task", task, str(tmp_path / "sub.csv")], capsys
    )
    assert code in (1, 2) and len(err.splitlines()) == 1 and message in err, err
    assert not os.path.exists(tmp_path / "key.csv.leaderboard.sqlite")


# -- the presets keep their numbers; the line tasks' measure criteria ---------------------------------
OLD_PERF = {
    "kddcup2004-physics": {
        "ACC": ["-acc", "-t", "0.5"],
        "ROC": ["-roc"],
        "CXE": ["-cxe"],
        "SLQ": ["-slq", "0.01"],
    },
    "kddcup2004-protein": {k: ["-blocks", f"-{k.lower()}"] for k in ("TOP1", "RKL", "RMS", "APR")},
}


@pytest.mark.parametrize("preset", list(OLD_PERF))
def test_the_presets_measures_give_the_numbers_of_their_perf_options(tmp_path, preset):
    """The presets name registry measures (dialect perf); the same task with the perf options it had
    gives the same doubles, bit for bit (their printed bytes are checked against PERF in
    tests/test_contest.py, and the 2002 preset's byte for byte in tests/test_contest_kdd2002.py)."""
    from perfeval.contest.score import read_key as read_lines
    from perfeval.contest.score import score

    task = load_task(preset)
    old = load_task(preset)
    for c in old.criteria:
        c.perf, c.label, c.measure = OLD_PERF[preset][c.name], "", None
    rng = np.random.default_rng(19)
    blocks = preset.endswith("protein")
    n = 900
    y = (rng.random(n) < 0.3).astype(int)
    p = np.round(rng.random(n), 3)  # ties, and scores on SLQ's bin edges
    b = [str(100 + i % 9) for i in range(n)]
    (tmp_path / "k.txt").write_text(
        "".join((f"{b[i]} " if blocks else "") + f"e{i} {y[i]}\n" for i in range(n))
    )
    (tmp_path / "s.txt").write_text(
        "".join((f"{b[i]} " if blocks else "") + f"e{i} {p[i]}\n" for i in rng.permutation(n))
    )
    key = read_lines(str(tmp_path / "k.txt"), task)
    new, was = (score([str(tmp_path / "s.txt")], t, key) for t in (task, old))
    assert new.ok and was.ok
    assert all(_same(new.scores[k], was.scores[k]) for k in was.scores), (new.scores, was.scores)
    assert [c.perf_label for c in task.criteria] == [c.perf_label for c in old.criteria]


def test_a_line_task_takes_a_measure_criterion(tmp_path, capsys):
    """measure = "ca1" on a task of lines: the classic engine's CA1 (perf -cal prints two values, so
    perf = ["-cal", "100"] is refused); a dialect other than perf is refused."""
    (tmp_path / "t.toml").write_text(
        'name = "t"\nsubmission = "id-score"\nkey = "id-target"\n[[criteria]]\nname = "C"\nmeasure = "ca1"\n'
    )
    (tmp_path / "k.txt").write_text("".join(f"e{i} {i % 2}\n" for i in range(400)))
    (tmp_path / "s.txt").write_text("".join(f"e{i} {((i * 37) % 100) / 100}\n" for i in range(400)))
    task = load_task(str(tmp_path / "t.toml"))
    assert task.criteria[0].perf == ["-cal", "100", "-t", "0.5"] and task.directions() == {"C": "lower"}
    got = _json_scores(capsys, str(tmp_path / "t.toml"), str(tmp_path / "k.txt"), str(tmp_path / "s.txt"))[
        "C"
    ]
    joined = "".join(f"{i % 2} {((i * 37) % 100) / 100}\n" for i in range(400)).encode()
    from conftest import run_perf

    out, _, _ = run_perf(["-cal", "100"], joined)
    printed = next(ln for ln in out.splitlines() if ln.startswith("CA1")).split()[1]
    assert f"{got:.5f}" == printed
    (tmp_path / "t.toml").write_text((tmp_path / "t.toml").read_text() + 'dialect = "sklearn"\n')
    code, out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "k.txt"),
            "--task",
            str(tmp_path / "t.toml"),
            str(tmp_path / "s.txt"),
        ],
        capsys,
    )
    assert code == 2 and "its criteria's dialect is perf" in err


def test_a_perf_criterions_direction_is_the_registrys(tmp_path, capsys):
    """A perf criterion with no direction takes its measure's (RMS: lower; it was "higher" whatever
    the measure); one that contradicts it is refused."""
    base = (
        'name = "t"\nsubmission = "id-score"\nkey = "id-target"\n[[criteria]]\nname = "R"\nperf = ["-rms"]\n'
    )
    (tmp_path / "t.toml").write_text(base)
    assert load_task(str(tmp_path / "t.toml")).directions() == {"R": "lower"}
    (tmp_path / "t.toml").write_text(base + 'direction = "higher"\n')
    (tmp_path / "k.txt").write_text("e1 0\ne2 1\n")
    code, out, err = run_cli(
        ["score", "--key", str(tmp_path / "k.txt"), "--task", str(tmp_path / "t.toml"), "x"], capsys
    )
    assert code == 2 and "'higher' contradicts the registry: for RMS, lower is better" in err


# -- the leaderboard: the tie rule, full precision ------------------------------------------------------
def test_ties_to_the_last_bit_go_to_the_earlier_submission():
    """Equal to the last bit: the earlier submission first (a team's own repeat keeps its first); one
    ulp better ranks first whatever its time; the overall ranking's ties to the earlier first entry."""
    v = 0.8125
    up = float(np.nextafter(v, 1.0))
    entries = [
        {"team": "late", "file": "l", "time": "2026-01-01T12:00:00.000002+00:00", "scores": {"AUC": v}},
        {"team": "early", "file": "e1", "time": "2026-01-01T12:00:00.000001+00:00", "scores": {"AUC": v}},
        {"team": "early", "file": "e2", "time": "2026-01-01T12:00:00.000003+00:00", "scores": {"AUC": v}},
        {"team": "ulp", "file": "u", "time": "2026-01-01T12:00:00.000009+00:00", "scores": {"AUC": up}},
    ]
    r = rankings(entries, {"AUC": "higher"})
    assert [(s.team, s.file, s.rank) for s in r["AUC"]] == [
        ("ulp", "u", 1),
        ("early", "e1", 2),
        ("late", "l", 3),
    ]
    assert [s.team for s in r["overall"]] == ["ulp", "early", "late"]
    lower = rankings(entries, {"AUC": "lower"})["AUC"]
    assert [s.team for s in lower] == ["early", "late", "ulp"]


def test_scores_keep_full_precision_through_the_database_and_json(tmp_path, capsys):
    """The JSON's score and the stored one are evaluate()'s double, bit for bit (repr round-trips),
    and two scores one ulp apart stay apart on the leaderboard."""
    key, sub = _binary(np.random.default_rng(23), groups=True, graded=True)
    task = _task(tmp_path, BINARY + 'group = "query"\n[[criteria]]\nname = "N"\nmeasure = "ndcg@10"\n')
    k, s = _write(tmp_path / "key.csv", key), _write(tmp_path / "sub.csv", sub)
    code, out, err = run_cli(
        ["score", "--key", k, "--task", task, s, "--format", "json", "--team", "red"], capsys
    )
    assert code == 0, err
    got = json.loads(out)[0]["scores"]["N"]
    joined = key.merge(sub, on="row_id")
    want = evaluate(joined["y"], joined["p"], groups=joined["query"], measures=["ndcg@10"], task="binary")[
        "NDCG@10"
    ]
    assert _same(got, want)
    board = Board(k + ".leaderboard.sqlite", create=False)
    (stored,) = board.entries("t")
    assert _same(stored["scores"]["N"], want)
    board.add("t", "blue", "b", {"N": float(np.nextafter(want, 2.0))})
    board.close()
    code, out, err = run_cli(["leaderboard", "--key", k, "--task", task, "--format", "json"], capsys)
    standings = json.loads(out)["N"]
    assert [(x["team"], x["rank"]) for x in standings] == [("blue", 1), ("red", 2)]
    assert _same(standings[1]["value"], want) and standings[0]["value"] != standings[1]["value"]


def test_the_docs_table_task_example_runs(tmp_path, capsys):
    """docs/contest.md's table task (its TOML, key and submission, as the page shows them) scores
    what the page says."""
    text = open(os.path.join(os.path.dirname(__file__), "..", "docs", "contest.md")).read()
    blocks = {}
    for part in text.split("```")[1::2]:
        head, _, body = part.partition("\n")
        if head.startswith(("toml title=", "csv title=", "text title=")):
            blocks[head.split("=", 1)[1].strip()] = body
    for name in ("clicks.toml", "clicks_key.csv", "team_red.csv"):
        (tmp_path / name).write_text(blocks[name])
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = run_cli(
            ["score", "--key", "clicks_key.csv", "--task", "clicks.toml", "team_red.csv", "--no-store"],
            capsys,
        )
    finally:
        os.chdir(old)
    assert code == 0, err
    assert out.replace(f"perfeval:{__version__}|", "perfeval:0.1.0|") == blocks["output"], out


def test_many_errors_are_listed_in_the_files_order_and_counted(tmp_path, capsys):
    """1,000 unknown ids and a few other errors: the first 20 in the file's order, then how many more
    (each kind was counted in full, not only the ones listed)."""
    task, key, _, good = _hostile_files(tmp_path)
    lines = [good[0], "id000,nan", *(f"zz{i},0.5" for i in range(1000)), *good[2:]]
    (tmp_path / "sub.csv").write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, str(tmp_path / "sub.csv"), "--no-store", "--format", "json"],
        capsys,
    )
    # 1,000 rows more than the key's: refused before they are parsed
    assert code == 1 and "holds 1,200 rows, more than the answer key's 200 ids" in err
    lines = [
        good[0],
        "id000,nan",
        *(f"zz{i},0.5" for i in range(15)),
        *good[2:],
        *(f"id{i:03d},7" for i in range(1, 6)),
    ]
    (tmp_path / "sub.csv").write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, str(tmp_path / "sub.csv"), "--no-store", "--format", "json"],
        capsys,
    )
    (entry,) = json.loads(out)
    errors = entry["errors"]
    # line 2: nan; lines 3-17: 15 unknown ids; the last 5 lines: repeated ids, each with 7 outside [0, 1]
    assert code == 1 and len(errors) == 21 and errors[-1] == "... and 6 more errors", errors
    assert "line 2, column 'p': the prediction is not a finite number" in errors[0]
    assert all("is not in the answer key" in e for e in errors[1:16])
    assert "line 217, column 'rid': id 'id001' appears again (first on line 18)" in errors[16]
    assert "line 217, column 'p': the prediction 7.0 is outside [0, 1]" in errors[17]
    # 40 unknown ids in place of 40 of the key's: each counted, not only the 21 kept to be listed
    (tmp_path / "sub.csv").write_text(
        "\n".join([good[0], *(f"zz{i},0.5" for i in range(40)), *good[41:]]) + "\n"
    )
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, str(tmp_path / "sub.csv"), "--no-store", "--format", "json"],
        capsys,
    )
    (entry,) = json.loads(out)
    assert entry["errors"][-1] == "... and 21 more errors"  # 40 unknown ids, 1 line of missing ids


def test_a_criterion_that_cannot_score_a_submission_rejects_it_alone(tmp_path, capsys, monkeypatch):
    """What evaluate() refuses after every check passed rejects that submission with one line (the
    others named with it are scored), never the run."""
    from perfeval.contest import tables
    from perfeval.exceptions import InvalidParameterError

    task, key, _, good = _hostile_files(tmp_path)
    (tmp_path / "a.csv").write_text("\n".join(good) + "\n")
    (tmp_path / "b.csv").write_text("\n".join([good[0], *good[1:][::-1]]) + "\n")
    real = tables.measure_result
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        # the key's two criteria (each then tried with three more predictions: does it depend on
        # them?), then the first submission's second
        if len(calls) == 10:
            raise InvalidParameterError("refused for this data")
        return real(*args, **kwargs)

    monkeypatch.setattr(tables, "measure_result", flaky)
    code, out, err = run_cli(
        [
            "score",
            "--key",
            key,
            "--task",
            task,
            str(tmp_path / "a.csv"),
            str(tmp_path / "b.csv"),
            "--no-store",
        ],
        capsys,
    )
    assert (
        code == 1
        and err
        == f"perfeval: error: {tmp_path}/a.csv: criterion 'X' cannot score it: refused for this data\n"
    )
    assert (
        "a.csv     rejected: 1 error(s)" in out.replace("  ", " ").replace("  ", " ")
        or "rejected: 1 error(s)" in out
    )
    assert "b.csv" in out and "rejected" not in out.split("b.csv")[1].splitlines()[0]


def test_parquet_submissions_are_read_under_the_same_rules(tmp_path, capsys):
    """A Parquet submission: pandas' index column is not a column of it; a null is a missing value at
    its row; a page compressed by ZSTD (which can inflate kilobytes to gigabytes) and a dictionary that
    repeats one long value for every row are refused before the data are decoded."""
    pytest.importorskip("pyarrow")
    task, key, _, good = _hostile_files(tmp_path)
    rows = [x.split(",") for x in good[1:]]
    sub = pd.DataFrame({"rid": [r[0] for r in rows], "p": [float(r[1]) for r in rows]})
    cases = {
        "indexed.parquet": (sub.sample(frac=1.0, random_state=1), {}, None),
        "null.parquet": (
            sub.assign(p=[None, *sub["p"][1:]]),
            {},
            "row 1, column 'p': missing prediction (a null)",
        ),
        "zstd.parquet": (sub, {"compression": "zstd"}, "is compressed with ZSTD"),
        "long.parquet": (
            sub.assign(rid="x" * 100_000),
            {},
            "column 'rid' holds a value of 100,000 characters",
        ),
        "extra.parquet": (
            sub.assign(q=1),
            {"index": False},
            "column 3, 'q', is not one of the submission's columns",
        ),
    }
    for name, (frame, kw, message) in cases.items():
        frame.to_parquet(tmp_path / name, **kw)
        code, out, err = run_cli(
            ["score", "--key", key, "--task", task, str(tmp_path / name), "--no-store"], capsys
        )
        if message is None:
            assert code == 0, err
        else:
            assert code == 1 and len(err.splitlines()) == 1 and message in err, (name, err)
    (tmp_path / "fake.parquet").write_text("\n".join(good) + "\n")
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, str(tmp_path / "fake.parquet"), "--no-store"], capsys
    )
    assert code == 1 and "is not a Parquet file (it does not start with PAR1)" in err


def test_fields_measured_at_once_agree_with_each_line_cut_by_the_csv_reader(monkeypatch):
    """The fields' widths measured by numpy a chunk of lines at a time (tables._wide_fields) find
    the same first field wider than its column's as cutting each line as the CSV reader does
    (tables._wide_field), whatever the chunk: quotes holding commas, blanks, CR, UTF-8, empty fields,
    extra columns (a seeded generator)."""
    import random

    from perfeval.contest import tables as T

    caps = {0: ("row_id", 20), 1: ("p", 64)}

    def line_by_line(body: bytes):
        pos, k = 0, 0
        while pos < len(body):
            end = body.find(b"\n", pos)
            end = len(body) if end < 0 else end
            k += 1
            if k != 1 and body[pos:end].strip():
                hit = T._wide_field(body[pos:end], k, caps)
                if hit:
                    return hit
            pos = end + 1
        return None

    rng = random.Random(0)
    fields = [
        lambda: "",
        lambda: "1",
        lambda: "x" * rng.randrange(90),
        lambda: '"' + "y" * rng.randrange(30) + "," + "z" * rng.randrange(30) + '"',
        lambda: " " * rng.randrange(40) + "7",
        lambda: "é" * rng.randrange(30),
        lambda: "a\rb",
    ]
    found = 0
    for _ in range(1500):
        lines = [
            ",".join(rng.choice(fields)() for _ in range(rng.randrange(1, 5)))
            for _ in range(rng.randrange(1, 30))
        ]
        body = ("\n".join(["row_id,p", *lines]) + rng.choice(["", "\n", "\r\n"])).encode()
        monkeypatch.setattr(T, "_CHUNK", rng.choice([8, 64, 1 << 18]))
        want = line_by_line(body)
        assert T._wide_fields(body, 1, caps) == want, body
        found += want is not None
    assert 300 < found < 1400  # both outcomes are tried


def test_a_key_with_an_undeclared_usage_column_is_refused_by_every_door(tmp_path, capsys):
    """A key holding Kaggle's ``Usage`` column (Public/Private rows) that the task does not name as
    ``usage`` would score the private rows on the public board: refused at key load, in one line."""
    import pandas as pd

    from perfeval.contest.kaggle import score as kaggle_score

    task = tmp_path / "t.toml"
    task.write_text(
        'name = "u"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
        'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
    )
    rows = [(1, 1, "Public"), (2, 0, "Public"), (3, 1, "Private"), (4, 0, "PRIVATE"), (5, 1, "Ignored")]
    for col in ("Usage", "usage"):
        key = tmp_path / f"key_{col}.csv"
        key.write_text(f"row_id,y,{col}\n" + "".join(f"{i},{y},{u}\n" for i, y, u in rows))
        (tmp_path / "sub.csv").write_text("row_id,p\n1,0.9\n2,0.1\n3,0.2\n4,0.8\n5,0.5\n")
        for argv in (
            ["score", "--key", str(key), "--task", str(task), str(tmp_path / "sub.csv"), "--no-store"],
            ["codabench", "bundle", str(task), "--key", str(key), "--out", str(tmp_path / "b.zip")],
        ):
            code, out, err = run_cli(argv, capsys)
            assert code != 0 and err.count("\n") == 1, (argv, err)
            assert f"column {col!r} splits its rows into Public and Private boards" in err, err
            assert f"add usage = {col!r} to the task, or drop or rename the column" in err, err
        assert not (tmp_path / "b.zip").exists()
    # a column named usage that is not Kaggle's boards is any other column
    key = tmp_path / "key_other.csv"
    key.write_text("row_id,y,usage\n" + "".join(f"{i},{y},train\n" for i, y, _ in rows))
    code, out, err = run_cli(
        ["score", "--key", str(key), "--task", str(task), str(tmp_path / "sub.csv"), "--no-store"], capsys
    )
    assert code == 0, err
    # Kaggle's metric given a solution that still holds its Usage column
    sol = pd.DataFrame(
        {"row_id": [1, 2, 3, 4], "y": [1, 0, 1, 0], "Usage": ["Public", "Public", "Private", "Private"]}
    )
    sub = pd.DataFrame({"row_id": [1, 2, 3, 4], "p": [0.9, 0.1, 0.2, 0.8]})
    with pytest.raises(InvalidParameterError, match="still holds its 'Usage' column"):
        kaggle_score(sol, sub, "row_id", measure="roc", problem="binary", target="y", prediction="p")
    assert (
        kaggle_score(
            sol.drop(columns="Usage"),
            sub,
            "row_id",
            measure="roc",
            problem="binary",
            target="y",
            prediction="p",
        )
        == 0.75
    )


@pytest.mark.parametrize("text_ids", [False, True])
def test_the_missing_ids_of_a_table_are_listed_in_sorted_order_not_the_keys(tmp_path, capsys, text_ids):
    """A key sorted by label (its negatives first): the first missing ids in the key's order would be
    exactly its negatives.  They are listed sorted (numbers numerically, text by code point)."""
    task = tmp_path / "t.toml"
    task.write_text(
        'name = "s"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
        'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
    )
    neg, pos = [70, 300, 90, 1000, 50, 110], [20, 100, 40, 80, 60, 120]
    name = (lambda i: f"u{i}") if text_ids else str
    (tmp_path / "key.csv").write_text(
        "row_id,y\n" + "".join(f"{name(i)},0\n" for i in neg) + "".join(f"{name(i)},1\n" for i in pos)
    )
    (tmp_path / "sub.csv").write_text(f"row_id,p\n{name(120)},0.5\n")
    code, out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "key.csv"),
            "--task",
            str(task),
            str(tmp_path / "sub.csv"),
            "--no-store",
        ],
        capsys,
    )
    want = ["u100", "u1000", "u110", "u20", "u300"] if text_ids else ["20", "40", "50", "60", "70"]
    listed = ", ".join(repr(i) for i in want)
    assert code == 1 and f"11 id(s) of the answer key have no prediction: {listed}, ..." in err, err


def test_a_task_edited_mid_contest_is_refused_by_the_leaderboard(tmp_path, capsys):
    """Each stored submission keeps the fingerprint of the task's scoring definition: a criterion
    added or renamed since makes ``leaderboard`` and ``board list`` refuse (one line, exit 2), not
    rank old and new scores together; the task restored, they work again."""
    head = (
        'name = "edit"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
        'prediction = "p"\ntarget = "y"\n'
    )
    auc = '[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
    task = tmp_path / "t.toml"
    task.write_text(head + auc)
    key = tmp_path / "key.csv"
    key.write_text("row_id,y\n1,1\n2,0\n3,1\n4,0\n")
    (tmp_path / "a.csv").write_text("row_id,p\n1,0.9\n2,0.1\n3,0.2\n4,0.8\n")
    (tmp_path / "b.csv").write_text("row_id,p\n1,0.9\n2,0.1\n3,0.7\n4,0.2\n")
    for team, sub in (("red", "a.csv"), ("blue", "b.csv")):
        argv = ["score", "--key", str(key), "--task", str(task), str(tmp_path / sub), "--team", team]
        assert run_cli(argv, capsys)[0] == 0
    look = (["leaderboard"], ["board", "list"])
    for cmd in look:
        assert run_cli([*cmd, "--key", str(key), "--task", str(task)], capsys)[0] == 0
    # an old board (stored before definitions were) is not judged
    board = Board(str(key) + ".leaderboard.sqlite")
    board.add("edit", "green", "g.csv", {"AUC": 0.5})
    board.close()
    for edited in (
        auc + '[[criteria]]\nname = "LogLoss"\nmeasure = "logloss"\n',  # a criterion added
        auc.replace('"AUC"', '"ROC"'),  # renamed
        auc.replace('"roc"', '"apr"'),  # another measure
    ):
        task.write_text(head + edited)
        for cmd in look:
            code, out, err = run_cli([*cmd, "--key", str(key), "--task", str(task)], capsys)
            assert code == 2 and out == "" and len(err.splitlines()) == 1, (cmd, err)
            assert "2 of its 3 stored submission(s) were scored under another definition of the task" in err
            assert "no command that rescores stored submissions" in err
        # nor is a submission stored beside them under the edited task
        argv = ["score", "--key", str(key), "--task", str(task), str(tmp_path / "a.csv"), "--team", "red"]
        code, out, err = run_cli(argv, capsys)
        assert code == 2 and "2 stored submission(s) were scored under another definition" in err, err
        stored = Board(str(key) + ".leaderboard.sqlite")
        n = len(stored.entries("edit"))
        stored.close()
        assert "nothing stored" in err and n == 3
    task.write_text(head.replace('name = "edit"', 'name = "edit"\ntitle = "Retitled"') + auc)
    code, out, err = run_cli(["leaderboard", "--key", str(key), "--task", str(task)], capsys)
    assert code == 0 and "Retitled" in out and "blue" in out and "green" in out, err


@pytest.mark.parametrize(
    "problem, measure, hint",
    [("binary", "prec", True), ("binary", "p", True), ("binary", "precision_at_k", True)],
)
def test_a_criterion_that_ignores_the_predictions_is_refused_at_key_load(
    tmp_path, capsys, problem, measure, hint
):
    """``prec`` (P: precision at k, over the whole list) gives the key's positive rate for every
    submission: it would rank every team alike.  Refused at key load, naming the criterion."""

    task = tmp_path / "t.toml"
    task.write_text(
        f'name = "ig"\nsubmission = "table"\nkey = "table"\nproblem = "{problem}"\nid = "row_id"\n'
        f'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "Crit"\nmeasure = "{measure}"\n'
    )
    key = tmp_path / "key.csv"
    key.write_text("row_id,y\n1,1\n2,0\n3,1\n4,0\n5,0\n6,1\n7,0\n")
    (tmp_path / "a.csv").write_text("row_id,p\n" + "".join(f"{i},0.5\n" for i in range(1, 8)))
    try:
        load_task(str(task))
    except PerfError:
        pytest.skip(f"{measure} is no measure of the registry")
    code, out, err = run_cli(
        ["score", "--key", str(key), "--task", str(task), str(tmp_path / "a.csv"), "--no-store"], capsys
    )
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert f"criterion 'Crit' (measure {measure!r}) does not depend on the predictions" in err, err
    assert ("precision at the 0.5 threshold is 'pre'" in err) == hint
    with pytest.raises(InvalidParameterError, match="does not depend on the predictions"):
        read_key(str(key), str(task))


@pytest.mark.parametrize(
    "problem, measure",
    [
        ("binary", "pre"),
        ("binary", "p@3"),
        ("binary", "roc"),
        ("binary", "acc"),
        ("regression", "rmse"),
        ("regression", "r2"),
        ("binary", "logloss"),
    ],
)
def test_a_criterion_that_reads_the_predictions_is_not_refused(tmp_path, capsys, problem, measure):
    task = tmp_path / "t.toml"
    task.write_text(
        f'name = "ok"\nsubmission = "table"\nkey = "table"\nproblem = "{problem}"\nid = "row_id"\n'
        f'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "Crit"\nmeasure = "{measure}"\n'
    )
    key = tmp_path / "key.csv"
    key.write_text("row_id,y\n1,1\n2,0\n3,1\n4,0\n5,0\n6,1\n7,0\n")
    try:
        load_task(str(task))
    except PerfError:
        pytest.skip(f"{measure} needs more than this task")
    assert read_key(str(key), str(task)).rows == 7


def test_a_64_bit_id_written_as_a_float_gets_the_floating_point_hint(tmp_path, capsys):
    """pandas writes int64 ids of a float column as ``1.000000383550841e+18``: 21 characters, wider
    than any int64 id; said as a float id (as ``101.0`` is), not as a field too long."""
    task = tmp_path / "t.toml"
    task.write_text(
        'name = "f"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "id"\n'
        'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
    )
    big = [1000000383550841000, 1000000383550841001, 1000000383550841002]
    (tmp_path / "k.csv").write_text(
        "id,y\n" + "".join(f"{i},{y}\n" for i, y in zip(big, (1, 0, 1), strict=True))
    )
    for field, line in (("1.000000383550841e+18", 2), ("1000000383550841001.0", 3)):
        rows = [str(big[0]), str(big[1]), str(big[2])]
        rows[line - 2] = field
        (tmp_path / "s.csv").write_text("id,p\n" + "".join(f"{r},0.5\n" for r in rows))
        code, out, err = run_cli(
            [
                "score",
                "--key",
                str(tmp_path / "k.csv"),
                "--task",
                str(task),
                str(tmp_path / "s.csv"),
                "--no-store",
            ],
            capsys,
        )
        assert (
            code == 1
            and f"s.csv, line {line}: the id column 'id' holds {field!r}, a float: ids must be" in err
        )
        assert "longer than an id" not in err, err
    # a long field that is no float is still said too long
    (tmp_path / "s.csv").write_text(f"id,p\n{'9' * 25},0.5\n{big[1]},0.5\n{big[2]},0.5\n")
    code, out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "k.csv"),
            "--task",
            str(task),
            str(tmp_path / "s.csv"),
            "--no-store",
        ],
        capsys,
    )
    assert code == 1 and "a field of 25 characters, longer than an id of the answer key" in err, err


def test_a_huge_score_is_printed_at_full_precision_not_in_150_digits(tmp_path, capsys):
    """An RMSE of 8e151 (a prediction gone wild): ``perfeval score``'s table, the leaderboard and
    ``board list`` print it as repr prints the double (it reads back the same), not 150 digits."""
    task = tmp_path / "t.toml"
    task.write_text(
        'name = "huge"\nsubmission = "table"\nkey = "table"\nproblem = "regression"\nid = "id"\n'
        'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "RMSE"\nmeasure = "rmse"\n'
    )
    key = tmp_path / "k.csv"
    key.write_text("id,y\n1,1.5\n2,2.5\n3,0.5\n4,3.0\n")
    (tmp_path / "s.csv").write_text("id,p\n1,1.5\n2,2.5\n3,0.5\n4,1.6e152\n")
    want = float(np.sqrt(np.mean(np.array([0.0, 0.0, 0.0, 1.6e152 - 3.0]) ** 2)))
    code, out, err = run_cli(
        ["score", "--key", str(key), "--task", str(task), str(tmp_path / "s.csv")], capsys
    )
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("s.csv") or "s.csv " in x]
    assert line.split()[-1] == repr(want) and float(line.split()[-1]) == want, out
    for cmd in (["leaderboard"], ["board", "list"]):
        code, out, err = run_cli([*cmd, "--key", str(key), "--task", str(task)], capsys)
        assert code == 0 and repr(want) in out and "0" * 30 not in out, out


def test_ndcg_on_graded_relevance_is_scikit_learns_only_with_its_dialect(tmp_path):
    """docs/contest.md: NDCG's gain is 2^rel - 1; ``dialect = "sklearn"`` gives ndcg_score's (its
    gain the relevance itself), per query averaged."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    n = 40
    q = np.repeat(["a", "b", "c", "d"], 10)
    rel = rng.integers(0, 4, n)
    p = rng.random(n)
    key = pd.DataFrame({"id": np.arange(n), "q": q, "y": rel})
    sub = pd.DataFrame({"id": np.arange(n), "p": p})
    body = 'problem = "binary"\nid = "id"\nprediction = "p"\ntarget = "y"\ngroup = "q"\n'
    crit = '[[criteria]]\nname = "N"\nmeasure = "ndcg"\n'
    want = float(np.mean([metrics.ndcg_score([rel[q == g]], [p[q == g]]) for g in "abcd"]))
    mine = score_submission(_task(tmp_path, body + crit), key, sub).scores["N"]
    theirs = score_submission(_task(tmp_path, body + crit + 'dialect = "sklearn"\n'), key, sub).scores["N"]
    assert abs(theirs - want) < 1e-12 and abs(mine - want) > 1e-3


def test_float_ids_in_parquet_and_data_frames_get_one_line_with_the_float_hint(tmp_path, capsys):
    """A Parquet file or a data frame whose ids are floats (a float column, or text written as floats,
    ``1.000000383550841e+18``, over-long for an int64 key or not) is refused in one line naming the
    first such row, with the hint a CSV file gets; not an id 'not in the answer key' a row."""
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    from perfeval.contest import read_key, score_submission

    task = tmp_path / "t.toml"
    task.write_text(
        'name = "f"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "id"\n'
        'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
    )
    big = [1000000383550841000, 1000000383550841001, 1000000383550841002]
    (tmp_path / "k.csv").write_text(
        "id,y\n" + "".join(f"{i},{y}\n" for i, y in zip(big, (1, 0, 1), strict=True))
    )
    key = read_key(str(tmp_path / "k.csv"), str(task))
    hint = "a float: ids must be integers or text (past 2^53 a float has merged ids)"
    cases = [
        (pa.array([float(b) for b in big]), 1, repr(float(big[0]))),
        (pa.array([None, float(big[1]), float(big[2])]), 2, repr(float(big[1]))),
        (pa.array([str(big[0]), "1.000000383550841e+18", str(big[2])]), 2, "1.000000383550841e+18"),
        (pa.array([str(big[0]), str(big[1]), "7.0"]), 3, "7.0"),
    ]
    for ids, row, shown in cases:
        path = tmp_path / "s.parquet"
        pq.write_table(pa.table({"id": ids, "p": [0.5, 0.4, 0.3]}), path)
        r = score_submission(str(task), key, str(path))
        assert not r.ok and len(r.errors) == 1, r.errors
        said = f"{path}, row {row}: the id column 'id' holds {shown!r}, {hint}"
        assert r.errors[0].startswith(said), r.errors
        frame = pa.table({"id": ids, "p": [0.5, 0.4, 0.3]}).to_pandas()
        r = score_submission(str(task), key, frame, name="sub")
        assert r.errors == [r.errors[0]] and r.errors[0].startswith(
            f"sub, row {row}: the id column 'id' holds {shown!r}, {hint}"
        ), r.errors
    # text ids of a key of text ids that look like floats are ids like any other
    (tmp_path / "k2.csv").write_text("id,y\nv1.0,1\nv2.0,0\n")
    key2 = read_key(str(tmp_path / "k2.csv"), str(task))
    r = score_submission(str(task), key2, pd.DataFrame({"id": ["v2.0", "v1.0"], "p": [0.1, 0.9]}))
    assert r.ok and r.scores == {"AUC": 1.0}, r.errors


def test_a_key_corrected_mid_contest_is_refused_by_the_leaderboard(tmp_path, capsys):
    """Each stored submission keeps a digest of the answer key it was scored against: a key edited
    since (a target corrected) makes ``leaderboard`` and ``board list`` refuse (one line, exit 2),
    and ``score`` refuse to store beside them, rather than rank scores of two keys together (the
    same file ranked first and second); the key restored, they work again."""
    task = tmp_path / "t.toml"
    task.write_text(
        'name = "k"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
        'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
    )
    key = tmp_path / "key.csv"
    original = "row_id,y\n1,1\n2,0\n3,1\n4,0\n"
    key.write_text(original)
    (tmp_path / "a.csv").write_text("row_id,p\n1,0.9\n2,0.1\n3,0.2\n4,0.8\n")
    assert run_cli(["score", "--key", str(key), "--task", str(task), str(tmp_path / "a.csv")], capsys)[0] == 0
    board = Board(str(key) + ".leaderboard.sqlite")  # an old board's entry: not judged
    board.add("k", "green", "g.csv", {"AUC": 0.5})
    board.close()
    key.write_text("row_id,y\n1,1\n2,1\n3,0\n4,0\n")  # corrected
    argv = ["score", "--key", str(key), "--task", str(task), str(tmp_path / "a.csv"), "--team", "blue"]
    code, out, err = run_cli(argv, capsys)
    assert code == 2 and "1 stored submission(s) were scored against another answer key" in err, err
    assert "nothing stored" in err
    for cmd in (["leaderboard"], ["board", "list"]):
        code, out, err = run_cli([*cmd, "--key", str(key), "--task", str(task)], capsys)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (cmd, err)
        assert "1 of its 2 stored submission(s) were scored against another answer key" in err, err
    stored = Board(str(key) + ".leaderboard.sqlite")
    assert len(stored.entries("k")) == 2
    stored.close()
    key.write_text(original)
    code, out, err = run_cli(["leaderboard", "--key", str(key), "--task", str(task)], capsys)
    assert code == 0 and "green" in out and "a " in out, err
