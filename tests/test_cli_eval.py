"""The `perfeval eval` command: formats, columns, output, and one test per kind of bad input."""

from __future__ import annotations

import io
import json
import sys
import types

import pytest

from perfeval import evaluate
from perfeval.cli.main import main

CSV = "label,score,qid\n1,0.9,a\n0,0.5,a\n1,0.5,a\n0,0.1,b\n1,0.8,b\n"


def run(args, stdin: str = "", capsys=None):
    old = sys.stdin
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(stdin.encode()))
    try:
        code = main(args)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "t.csv").write_text(CSV)
    (tmp_path / "t.tsv").write_text(CSV.replace(",", "\t"))
    (tmp_path / "t.txt").write_text("# target score\n1 0.9\n0 0.5\n\n1 0.5\n0 0.1\n1 0.8\n")
    rows = [dict(zip(("label", "score", "qid"), ln.split(","), strict=False)) for ln in CSV.splitlines()[1:]]
    (tmp_path / "t.jsonl").write_text(
        "".join(
            json.dumps({"label": int(r["label"]), "score": float(r["score"]), "qid": r["qid"]}) + "\n"
            for r in rows
        )
    )
    return tmp_path


WANT = evaluate([1, 0, 1, 0, 1], [0.9, 0.5, 0.5, 0.1, 0.8], measures=["roc", "apr", "ap"])


@pytest.mark.parametrize(
    "name, extra",
    [
        ("t.csv", ["--target", "label", "--score", "score"]),
        ("t.tsv", ["--target", "1", "--score", "2"]),
        ("t.txt", []),
        ("t.jsonl", ["--target", "label", "--score", "score"]),
    ],
)
def test_formats_give_the_library_values(files, capsys, name, extra):
    code, out, err = run(
        ["eval", str(files / name), "-m", "roc,apr,ap", "--format", "json", *extra], capsys=capsys
    )
    # the text file's first line is a comment (a file without a header): skipped, and said
    said = f"perfeval: note: {files / name}: 1 line starting with '#' skipped as comment (line 1)\n"
    assert code == 0 and err == (said if name == "t.txt" else "")
    got = json.loads(out)["measures"]
    for label in ("ROC", "APR", "AP"):
        assert got[label]["value"] == pytest.approx(WANT[label], abs=0, rel=1e-15)


def test_standard_input_and_default_report(capsys):
    code, out, _ = run(["eval"], stdin="1 0.9\n0 0.2\n1 0.7\n0 0.4\n", capsys=capsys)
    assert code == 0
    assert out.splitlines()[0].split() == ["measure", "value"]
    assert any(line.startswith("ROC") for line in out.splitlines())


def test_groups_per_group_and_csv_output(files, capsys):
    code, out, _ = run(
        [
            "eval",
            str(files / "t.csv"),
            "--target",
            "label",
            "--score",
            "score",
            "--group",
            "qid",
            "-m",
            "gauc,ndcg@2",
            "--format",
            "csv",
            "--per-group",
        ],
        capsys=capsys,
    )
    assert code == 0
    lines = out.splitlines()  # with --per-group, CSV is one table: a row per group
    assert lines[0] == "group,GAUC,NDCG@2" and any(ln.startswith("b,1.0,") for ln in lines)
    argv = ["eval", str(files / "t.csv"), "--target", "label", "--score", "score", "--group", "qid"]
    code, out, _ = run([*argv, "-m", "gauc,ndcg@2", "--format", "csv"], capsys=capsys)
    lines = out.splitlines()  # without: the summary
    assert lines[0] == "measure,value,mean,weighted_mean,groups,undefined"
    assert lines[1].startswith("GAUC,0.85,")  # full precision: a CSV is read back


def test_partitions(tmp_path, capsys):
    (tmp_path / "k.csv").write_text(
        "label,s\nchange,0.9\nnc,0.1\ncontrol,0.6\nchange,0.8\nnc,0.3\ncontrol,0.2\n"
    )
    code, out, _ = run(
        [
            "eval",
            str(tmp_path / "k.csv"),
            "--target",
            "label",
            "--score",
            "s",
            "-m",
            "roc",
            "--partition",
            "narrow=change",
            "--partition",
            "broad=change,control",
        ],
        capsys=capsys,
    )
    assert code == 0 and "ROC[narrow]" in out and "ROC[broad]" in out


@pytest.mark.parametrize(
    "content, args, code, fragment",
    [
        ("1 0.9\n0 nan\n", [], 1, "standard input, line 2: field 2 is NaN"),
        ("# c\n1 0.9\n\n0 inf\n", [], 1, "line 4: the score column 'column2' holds inf"),
        ("y s g\n1 0.9 a\n0 nan b\n", ["--score", "s"], 1, "line 3: the score column 's' holds nan"),
        ("1 0.9\n0 0.2 7\n", [], 1, "line 2: expected 2 fields, found 3"),
        ("a,b\n1,0.5\n0,x\n", ["--target", "a", "--score", "b"], 1, "line 3: the score column 'b' holds 'x'"),
        (
            "1 0.9\n2 0.2\n0 0.1\n",
            ["-m", "roc"],
            1,
            "the target column 'column1' holds 0, 1, 2: graded relevance, 3 classes or a count",
        ),
        ("1 0.9\n-1 0.2\n", ["-m", "ndcg"], 1, ">= 0"),
        ("1 0.9\n0 0.2\n", ["-m", "rco"], 2, "did you mean 'roc'"),
        ("1 0.9\n0 0.2\n", ["--score", "score"], 2, "--score 'score': no such column"),
        ("1 0.9\n0 0.2\n", ["--score", "5"], 2, "--score 5: standard input has 2 columns"),
        ("1 0.9\n0 0.2\n", ["-m", "gauc"], 2, "give --group COLUMN"),
        ("", [], 1, "standard input: holds no data"),
        ("1 0.9\n0 0.2\n", ["--partition", "oops"], 2, "--partition 'oops'"),
    ],
)
def test_bad_input(capsys, content, args, code, fragment):
    got, out, err = run(["eval", *args], stdin=content, capsys=capsys)
    assert got == code, err
    assert out == "" and err.startswith("perfeval: error: ") and len(err.splitlines()) == 1
    assert fragment in err


def test_missing_file_and_usage(capsys, tmp_path):
    code, _, err = run(["eval", str(tmp_path / "nope.csv")], capsys=capsys)
    assert code == 1 and "cannot be read" in err
    code, _, err = run(["eval", "--input-format", "xml"], capsys=capsys)
    assert code == 2


def test_parquet(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.5, 0.5, 0.1, 0.8]}), tmp_path / "t.parquet")
    code, out, _ = run(
        [
            "eval",
            str(tmp_path / "t.parquet"),
            "--target",
            "y",
            "--score",
            "s",
            "-m",
            "roc",
            "--format",
            "json",
        ],
        capsys=capsys,
    )
    assert code == 0 and json.loads(out)["measures"]["ROC"]["value"] == WANT["ROC"]


def test_parquet_without_pyarrow_says_how_to_install(tmp_path, capsys, monkeypatch):
    (tmp_path / "t.parquet").write_bytes(b"PAR1 not really")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, _, err = run(["eval", str(tmp_path / "t.parquet")], capsys=capsys)
    assert code == 2 and "pip install 'perfeval[parquet]'" in err and err.count("\n") == 1


def test_undefined_groups_are_reported_on_stderr(capsys):
    code, out, err = run(
        ["eval", "--group", "3", "-m", "gauc"], stdin="1 0.9 a\n0 0.2 a\n1 0.5 b\n1 0.4 b\n", capsys=capsys
    )
    assert code == 0 and out.startswith("measure")
    assert err.startswith(
        "perfeval: warning: GAUC is undefined for 1 of 2 groups ('b': one class only: all 2 cases are "
        "positive)"
    )


def test_models_given_by_position_are_named_by_their_columns(tmp_path, capsys):
    """`--score 2,3` names each model's row by its column: the header's name, or column2 without a
    header; the same column given twice (by position and by name) is one line of error."""
    rows = "1,0.2,0.3\n0,0.5,0.1\n1,0.7,0.9\n0,0.1,0.4\n"
    (tmp_path / "h.csv").write_text("y,model_a,model_b\n" + rows)
    (tmp_path / "n.csv").write_text(rows)
    assert main(["eval", str(tmp_path / "h.csv"), "--score", "2,3", "-m", "roc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines[1:3]] == ["model_a", "model_b"]
    assert main(["eval", str(tmp_path / "n.csv"), "--score", "2,3", "-m", "roc", "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["models"]) == ["column2", "column3"]
    assert main(["eval", str(tmp_path / "h.csv"), "--score", "2,model_a", "-m", "roc"]) == 2
    assert "column 'model_a' named twice" in capsys.readouterr().err
