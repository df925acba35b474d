"""The signature (everything that changes a number) is printed under every table of measures."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval import evaluate
from perfeval.cli.main import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300), 2)
    s2 = np.round(rng.random(300), 2)
    q = rng.integers(0, 9, 300)
    path = tmp_path / "t.csv"
    path.write_text(
        "y,s,s2,q\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in zip(y, s, s2, q, strict=True))
    )
    return path, y, s


def _last_line(capsys) -> str:
    return capsys.readouterr().out.rstrip("\n").splitlines()[-1]


def test_eval_table_ends_with_the_reports_signature(table, capsys):
    path, y, s = table
    assert main(["eval", str(path), "--target", "y", "--score", "s", "-m", "roc,acc", "-t", "0.3"]) == 0
    line = _last_line(capsys)
    expected = str(evaluate(y, s, measures="roc,acc", threshold=0.3).signature)
    assert line == f"signature: {expected}"
    assert "thr:0.3" in line and "backend:memory" in line


def test_per_group_table_has_the_gain_and_json_stores_the_signature(table, capsys):
    path, *_ = table
    args = ["eval", str(path), "--target", "y", "--score", "s", "--group", "q", "-m", "ndcg@5,gauc"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "signature: " in out and "|gain:exp|" in out
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "gain:exp" in data["signature"]


def test_csv_output_has_no_signature_line(table, capsys):
    path, *_ = table
    assert main(["eval", str(path), "--target", "y", "--score", "s", "-m", "roc", "--format", "csv"]) == 0
    assert "signature" not in capsys.readouterr().out


def test_compare_names_method_replicates_seed_and_level(table, capsys):
    path, *_ = table
    args = ["compare", str(path), "--target", "y", "--score", "s,s2", "-m", "roc,apr", "--n-boot", "50"]
    assert main([*args, "--seed", "7", "--level", "0.9"]) == 0  # each measure's test named
    assert _last_line(capsys).endswith("|ci:delong(ROC)+bca(APR),n=50,seed=7,level=0.9")
    assert main([*args, "--seed", "7", "--level", "0.9", "--method", "bca"]) == 0
    assert _last_line(capsys).endswith("|ci:bca,n=50,seed=7,level=0.9")
    assert main(["compare", str(path), "--target", "y", "--score", "s,s2"]) == 0
    assert _last_line(capsys).endswith("|ci:delong,level=0.95")


def test_score_table_names_the_task_and_the_classic_engine(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    (tmp_path / "key.txt").write_text("".join(f"ev{i} {t}\n" for i, t in enumerate(y)))
    (tmp_path / "sub.txt").write_text("".join(f"ev{i} {rng.random():.4f}\n" for i in range(200)))
    args = ["score", str(tmp_path / "sub.txt"), "--key", str(tmp_path / "key.txt")]
    assert main([*args, "--task", "kddcup2004-physics", "--no-store"]) == 0
    line = _last_line(capsys)
    assert line.startswith("signature: perfeval:") and line.endswith(
        "|backend:classic|task:kddcup2004-physics"
    )
    assert "|ties:perf|" in line
