"""``perfeval explain`` of K classes on the command line: the class columns named as ``perfeval eval``
names them (--score with --classes, --score-prefix, or the columns' names), the table the same as
``perfeval.explain(y, S, classes=...)`` gives on the same data, bad input one line; and
docs/dialects.md's example (docs/examples/explain/zoo.csv): its file is what its script writes, its
scikit-learn row live scikit-learn's numbers.
"""

from __future__ import annotations

import math
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "explain"
MEASURES = "roc_ovr,roc_ovo,ap_ovr,f1_mc,topk_acc@2,logloss_mc,brier_mc"


def _table(tmp_path, weights=False):
    rng = np.random.default_rng(5)
    classes = ["a", "b", "c"]
    y = np.array(classes)[rng.integers(0, 3, 30)]
    s = rng.dirichlet(np.ones(3), 30).round(2)
    s[:, 2] = 1 - s[:, 0] - s[:, 1]
    s[:4] = [[0.4, 0.4, 0.2]] * 4
    w = rng.choice([1.0, 2.0], 30)
    head = "y,p_a,p_b,p_c" + (",w" if weights else "")
    rows = [
        f"{t},{float(r[0])!r},{float(r[1])!r},{float(r[2])!r}" + (f",{float(x)!r}" if weights else "")
        for t, r, x in zip(y, s, w, strict=True)
    ]
    (tmp_path / "proba.csv").write_text("\n".join([head, *rows]) + "\n")
    return y, s, (w if weights else None), classes


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("how", ["--score p_a,p_b,p_c --classes a,b,c", "--score-prefix p_"])
def test_the_command_prints_what_explain_gives(tmp_path, capsys, how, weights):
    y, s, w, classes = _table(tmp_path, weights)
    argv = ["explain", str(tmp_path / "proba.csv"), "--target", "y", *shlex.split(how), "-m", MEASURES]
    code, out, err = run_cli(argv + (["--weight", "w"] if weights else []), capsys)
    assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = perfeval.explain(y, s, classes=classes, measures=MEASURES, sample_weight=w)
    assert out == str(want)
    code, out, _ = run_cli([*argv, "--format", "csv"], capsys)
    assert code == 0 and out.splitlines()[0].startswith("dialect,ROC_OVR:average=macro")


def test_the_columns_names_are_the_classes(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = np.array(["cat", "dog", "bird"])[rng.integers(0, 3, 12)]
    s = rng.dirichlet(np.ones(3), 12)
    rows = (f"{t},{float(r[0])!r},{float(r[1])!r},{float(r[2])!r}" for t, r in zip(y, s, strict=True))
    lines = ["label,cat,dog,bird", *rows]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(
        ["explain", str(tmp_path / "t.csv"), "--target", "label", "--score", "cat,dog,bird", "-m", "roc_ovr"],
        capsys,
    )
    assert code == 0, err
    assert "3 classes (cat, dog, bird)" in out


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (
            ["--score", "p_a,p_b,p_c", "--classes", "a,b,d"],
            1,
            "line 2: the target column 'y' holds 'c', which is not one of the 3 classes (a, b, d",
        ),
        (["--score", "p_a,p_b,p_c", "--classes", "a,b"], 2, "--classes names 2 labels for the 3 --score"),
        (["--score-prefix", "p_", "--group", "y"], 2, "--group does not apply to explain of K classes"),
        (["--score-prefix", "p_", "-t", "0.3"], 2, "-t 0.3: a threshold does not apply to K classes"),
        (["--score-prefix", "q_"], 2, "--score-prefix q_:"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, extra, code, message):
    _table(tmp_path)
    argv = ["explain", str(tmp_path / "proba.csv"), "--target", "y", *extra, "-m", "roc_ovr"]
    got, out, err = run_cli(argv, capsys)
    assert got == code and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert "Traceback" not in err


def test_the_docs_example_file_is_what_its_script_writes(tmp_path):
    script = tmp_path / "make_example.py"
    script.write_text((EXAMPLE / "make_example.py").read_text())
    subprocess.run([sys.executable, str(script)], check=True, cwd=tmp_path)
    assert (tmp_path / "zoo.csv").read_bytes() == (EXAMPLE / "zoo.csv").read_bytes()


def test_the_docs_example_sklearn_row_is_live_sklearn():
    """docs/dialects.md's table of zoo.csv: each number of the sklearn row is scikit-learn's own
    (labels sorted, the columns in their order, as its users pass them); the block's output itself is
    the command's (tests/test_docs_ranking.py runs every checked block)."""
    sk = pytest.importorskip("sklearn.metrics")
    text = (ROOT / "docs" / "dialects.md").read_text()
    block = text.split("$ perfeval explain zoo.csv", 1)[1].split("```", 1)[0]
    head, *rows = block.splitlines()[1:5]
    labels = head.split()
    shown = dict(zip(labels, rows[1].split()[1:], strict=True))
    assert rows[1].split()[0] == "sklearn"
    lines = (EXAMPLE / "zoo.csv").read_text().splitlines()
    y = np.array([ln.split(",")[0] for ln in lines[1:]])
    s = np.array([[float(v) for v in ln.split(",")[1:]] for ln in lines[1:]])
    classes = np.array(["cat", "dog", "bird", "fish"])
    order = np.argsort(classes)
    sorted_labels, ss = classes[order], s[:, order]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {
            "ROC_OVR:average=macro": sk.roc_auc_score(y, ss, multi_class="ovr", labels=sorted_labels),
            "ROC_OVO:average=macro": sk.roc_auc_score(y, ss, multi_class="ovo", labels=sorted_labels),
            "F_MC:average=macro": sk.f1_score(y, classes[np.argmax(s, axis=1)], average="macro"),
            "TOPK_ACC@2": sk.top_k_accuracy_score(y, ss, k=2, labels=sorted_labels),
            "LOGLOSS_MC": sk.log_loss(y, ss, labels=sorted_labels),
        }
    assert set(want) == set(shown)
    for m, v in want.items():
        if math.isnan(v):
            assert shown[m] == "nan", m
        else:
            assert shown[m] == f"{v:.4f}", (m, shown[m], v)
    assert re.search(r"\[2 rows whose true class is tied across the k-th place\]", block)
