"""`perfeval eval` of K classes: a score column a class (named once: --classes, the columns' names,
--score-prefix) or one row a case and class (--long); scikit-learn's numbers, one line per bad input,
--stream and --long giving the bits of the wide table in memory."""

from __future__ import annotations

import io
import json
import math
import sys
import types

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, log_loss, roc_auc_score

import perfeval.io.readers as readers
from perfeval.cli.main import main

CLASSES = ["cat", "dog", "bird"]


def run(args, capsys, stdin: str = ""):
    old = sys.stdin
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(stdin.encode()))
    try:
        code = main([str(a) for a in args])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def data(n=60, seed=0, weights=False):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([1.0, 1.0, 1.0], n)  # continuous: no tie at the argmax
    y = np.array(CLASSES)[rng.integers(0, 3, n)]
    df = pd.DataFrame(p, columns=[f"p_{c}" for c in CLASSES])
    df.insert(0, "label", y)
    df.insert(0, "user", rng.choice(["u1", "u2", "u3"], n))
    df.insert(0, "case", np.arange(n, dtype=np.int64) + 2**62)  # ids beyond float64's integers
    if weights:
        df["w"] = rng.integers(0, 4, n).astype(float) / 2  # zeros too: dropped rows
    return df, y, p


def ordered(p):
    """The score columns in the sorted order of the labels, as scikit-learn's ``labels=`` wants them."""
    order = np.argsort(CLASSES)
    return p[:, order], sorted(CLASSES)


def long_of(df: pd.DataFrame, target: str = "label") -> pd.DataFrame:
    rows = []
    for _, r in df.iterrows():
        for c in CLASSES:
            row = {"case": r["case"], "user": r["user"], "cls": c, "p": r[f"p_{c}"]}
            row["y"] = r["label"] if target == "label" else int(r["label"] == c)
            if "w" in df:
                row["w"] = r["w"]
            rows.append(row)
    return pd.DataFrame(rows)


def measures(out: str) -> dict:
    return json.loads(out)["measures"]


M = "roc_ovr,roc_ovo,logloss_mc,acc_mc"


def test_wide_equals_scikit_learn(tmp_path, capsys):
    df, y, p = data()
    f = tmp_path / "proba.csv"
    df.to_csv(f, index=False)
    args = ["eval", f, "--target", "label", "--score", "p_cat,p_dog,p_bird", "--classes", "cat,dog,bird"]
    code, out, err = run([*args, "-m", M, "--format", "json"], capsys)
    assert code == 0, err
    got = measures(out)
    ps, labels = ordered(p)
    want = {
        "ROC_OVR:average=macro": roc_auc_score(y, ps, multi_class="ovr", labels=labels),
        "ROC_OVO:average=macro": roc_auc_score(y, ps, multi_class="ovo", labels=labels),
        "LOGLOSS_MC": log_loss(y, ps, labels=labels),
        "ACC_MC": accuracy_score(y, np.array(CLASSES)[p.argmax(axis=1)]),
    }
    for label, v in want.items():
        assert got[label]["value"] == pytest.approx(v, rel=1e-12, abs=0), label
    params = json.loads(out)["params"]
    assert params["classes"] == CLASSES and params["classes_from"] == "--classes"
    # each class's one-vs-rest area: scikit-learn's binary roc_auc_score of the class against the rest
    per = got["ROC_OVR:average=macro"]["per_class"]
    for j, c in enumerate(CLASSES):
        assert per[c] == pytest.approx(roc_auc_score(y == c, p[:, j]), rel=1e-12, abs=0)


def test_weighted_equals_scikit_learn(tmp_path, capsys):
    df, y, p = data(weights=True)
    f = tmp_path / "proba.csv"
    df.to_csv(f, index=False)
    code, out, err = run(
        ["eval", f, "--target", "label", "--score-prefix", "p_", "--weight", "w", "-m", "roc_ovr,logloss_mc"]
        + ["--format", "json"],
        capsys,
    )
    assert code == 0, err
    got, w = measures(out), df["w"].to_numpy()
    ps, labels = ordered(p)
    ovr = roc_auc_score(y, ps, multi_class="ovr", labels=labels, sample_weight=w)
    assert got["ROC_OVR:average=macro"]["value"] == pytest.approx(ovr, rel=1e-12, abs=0)
    want = log_loss(y, ps, labels=labels, sample_weight=w)
    assert got["LOGLOSS_MC"]["value"] == pytest.approx(want, rel=1e-12, abs=0)


def test_how_the_classes_were_found_is_said(tmp_path, capsys):
    df, y, p = data()
    named = pd.DataFrame(p, columns=CLASSES)  # predict_proba's DataFrame, columns=classes_
    named.insert(0, "label", y)
    named.to_csv(tmp_path / "named.csv", index=False)
    code, out, _ = run(
        ["eval", tmp_path / "named.csv", "--target", "label", "--score", "cat,dog,bird"], capsys
    )
    assert code == 0
    assert "classes (3): cat, dog, bird (from the score columns' names (--score))" in out
    df.to_csv(tmp_path / "p.csv", index=False)
    code, out, _ = run(
        ["eval", tmp_path / "p.csv", "--target", "label", "--score-prefix", "p_", "-m", "acc_mc"], capsys
    )
    assert code == 0
    assert "(from --score-prefix 'p_': the columns p_cat, p_dog, p_bird)" in out


def test_numeric_labels_and_string_column_names(tmp_path, capsys):
    rng = np.random.default_rng(3)
    p = rng.dirichlet([1.0, 1.0, 1.0], 40)
    y = rng.integers(0, 3, 40)
    df = pd.DataFrame(p, columns=["0", "1", "2"])
    df.insert(0, "label", y)
    df.to_csv(tmp_path / "n.csv", index=False)
    code, out, err = run(
        [
            "eval",
            tmp_path / "n.csv",
            "--header",
            "--target",
            "label",
            "--score",
            "2,3,4",
            "-m",
            M,
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    params = json.loads(out)["params"]
    assert params["classes"] == [0, 1, 2]  # as evaluate() reads "0","1","2" against integer targets
    got = measures(out)
    assert got["ROC_OVO:average=macro"]["value"] == pytest.approx(
        roc_auc_score(y, p, multi_class="ovo"), rel=1e-12, abs=0
    )


def test_absent_class_is_listed_with_why(tmp_path, capsys):
    df, y, p = data()
    df = df[df["label"] != "bird"]
    df.to_csv(tmp_path / "p.csv", index=False)
    args = ["eval", tmp_path / "p.csv", "--target", "label", "--score-prefix", "p_", "-m", "roc_ovr,pre_mc"]
    code, out, err = run([*args, "--format", "json"], capsys)
    assert code == 0
    r = measures(out)["ROC_OVR:average=macro"]
    assert r["per_class"]["bird"] is None and r["undefined_classes"] == ["bird"]
    assert r["per_class_why_null"]["bird"] == "no case of class 'bird' among the targets"
    kept = df["label"].to_numpy()
    macro = np.mean([roc_auc_score(kept == c, df[f"p_{c}"]) for c in ("cat", "dog")])
    assert r["value"] == pytest.approx(macro, rel=1e-12, abs=0)
    code, out, err = run(args, capsys)
    assert "(undefined, left out of the averages: bird: no case of class 'bird' among the targets" in out


def test_confusion_matrix(tmp_path, capsys):
    df, y, p = data()
    df.to_csv(tmp_path / "p.csv", index=False)
    base = [
        "eval",
        tmp_path / "p.csv",
        "--target",
        "label",
        "--score-prefix",
        "p_",
        "-m",
        "acc_mc",
        "--confusion",
    ]
    code, out, _ = run([*base, "--format", "json"], capsys)
    from sklearn.metrics import confusion_matrix

    want = confusion_matrix(y, np.array(CLASSES)[p.argmax(axis=1)], labels=CLASSES)
    assert json.loads(out)["confusion"]["matrix"] == want.astype(float).tolist()
    code, out, _ = run(base, capsys)
    lines = out.splitlines()
    at = lines.index("true \\ predicted  cat  dog  bird")
    assert [ln.split()[1:] for ln in lines[at + 1 : at + 4]] == [
        [str(v) for v in row] for row in want.tolist()
    ]


@pytest.mark.parametrize("weights", [False, True])
def test_stream_gives_the_bits_of_memory(tmp_path, capsys, monkeypatch, weights):
    df, _y, _p = data(n=200, weights=weights)
    f = tmp_path / "p.csv"
    df.to_csv(f, index=False)
    args = ["eval", f, "--target", "label", "--score-prefix", "p_", "--format", "json"]
    args += ["--weight", "w"] if weights else []
    code, memory, err = run(args, capsys)
    assert code == 0, err
    inner, chunks = readers.iter_columns, []

    def small(*a, **k):  # chunks of 512 bytes: the rows folded in many pieces
        k["chunk_bytes"] = 512
        for c in inner(*a, **k):
            chunks.append(1)
            yield c

    monkeypatch.setattr(readers, "iter_columns", small)
    code, streamed, err = run([*args, "--stream"], capsys)
    assert code == 0, err
    assert len(chunks) > 5
    a, b = measures(memory), measures(streamed)
    assert a == b  # every value and per-class value, bit for bit (JSON writes repr)
    assert json.loads(streamed)["params"]["backend"] == "stream"


def test_stream_bad_target_names_its_line(tmp_path, capsys, monkeypatch):
    f = tmp_path / "p.csv"
    f.write_text("label,p_cat,p_dog,p_bird\n" + "cat,0.2,0.3,0.5\n" * 50 + "fish,0.2,0.3,0.5\n")
    for extra in ([], ["--stream"]):
        code, out, err = run(["eval", f, "--target", "label", "--score-prefix", "p_", *extra], capsys)
        assert code == 1 and out == ""
        assert err == (
            f"perfeval: error: {f}, line 52: the target column 'label' holds 'fish', which is not one of the "
            "3 classes (cat, dog, bird; from --score-prefix 'p_': the columns p_cat, p_dog, p_bird)\n"
        )


@pytest.mark.parametrize("weights", [False, True])
def test_long_equals_wide(tmp_path, capsys, weights):
    df, _y, _p = data(weights=weights)
    df.to_csv(tmp_path / "wide.csv", index=False)
    w = ["--weight", "w"] if weights else []
    code, wide, err = run(
        ["eval", tmp_path / "wide.csv", "--target", "label", "--score-prefix", "p_", *w, "--format", "json"],
        capsys,
    )
    assert code == 0, err
    for target in ("label", "marker"):
        long = long_of(df, target)
        if not weights:  # the rows in any order: a case's place is its first row's
            long = long.sample(frac=1.0, random_state=1)
        long.to_csv(tmp_path / "long.csv", index=False)
        code, out, err = run(
            ["eval", tmp_path / "long.csv", "--long", "--id", "case", "--class", "cls", "--score", "p"]
            + ["--target", "y", "--classes", "cat,dog,bird", *w, "--format", "json"],
            capsys,
        )
        assert code == 0, err
        assert measures(out) == measures(wide)
        form = json.loads(out)["params"]["target_form"]
        assert form.startswith("labels" if target == "label" else "0/1 marker")


def test_group_per_user(tmp_path, capsys):
    df, y, p = data(n=90)
    df.to_csv(tmp_path / "p.csv", index=False)
    code, out, err = run(
        [
            "eval",
            tmp_path / "p.csv",
            "--target",
            "label",
            "--score-prefix",
            "p_",
            "--group",
            "user",
            "-m",
            "roc_ovr",
        ]
        + ["--format", "json"],
        capsys,
    )
    assert code == 0, err
    r = measures(out)["ROC_OVR:average=macro"]
    for u in ("u1", "u2", "u3"):
        rows = df["user"].to_numpy() == u
        ps, labels = ordered(p[rows])
        want = roc_auc_score(y[rows], ps, multi_class="ovr", labels=labels)
        assert r["per_group"][u] == pytest.approx(want, rel=1e-12, abs=0)
    assert r["value"] == pytest.approx(np.mean(list(r["per_group"].values())), rel=1e-12)
    code, out, err = run(
        [
            "eval",
            tmp_path / "p.csv",
            "--target",
            "label",
            "--score-prefix",
            "p_",
            "--group",
            "user",
            "-m",
            "roc_ovr",
            "--stream",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err  # streamed per group (spilled by group): the same values
    assert measures(out)["ROC_OVR:average=macro"] == r


WIDE = "case,label,p_cat,p_dog,p_bird\n1,cat,0.2,0.3,0.5\n2,dog,0.6,0.3,0.1\n"


@pytest.mark.parametrize(
    "text, extra, status, message",
    [
        (
            WIDE + "3,fish,0.2,0.3,0.5\n",
            [],
            1,
            "line 4: the target column 'label' holds 'fish', which is not one",
        ),
        (WIDE + "3,,0.2,0.3,0.5\n", [], 1, "line 4: the target column 'label' is empty: a missing value"),
        (WIDE + "3,NA,0.2,0.3,0.5\n", [], 1, "line 4: the target column 'label' holds 'NA', a missing value"),
        (WIDE + "3,dog,0.2,x,0.5\n", [], 1, "line 4: the score column 'p_dog' holds 'x', not a number"),
        (WIDE + "3,dog,0.2,inf,0.5\n", [], 1, "line 4: the score column 'p_dog' holds inf"),
        (
            WIDE,
            ["--score", "p_cat,p_dog,p_fish", "--classes", "cat,dog,fish"],
            2,
            "--score 'p_fish': no such column",
        ),
        (
            WIDE,
            ["--score", "p_cat,p_dog", "--classes", "cat,dog,bird"],
            2,
            "--classes names 3 labels for the 2",
        ),
        (
            WIDE,
            ["--score", "p_cat,p_dog,p_bird", "--classes", "cat,cat,bird"],
            2,
            "the classes name 'cat' twice",
        ),
        (
            WIDE,
            ["--score", "p_cat,p_dog,p_bird"],
            2,
            "the target column 'label' holds 2 labels (cat, dog) and",
        ),
        (WIDE, ["--score-prefix", "q_"], 2, "--score-prefix q_: "),
        (WIDE, ["--score-prefix", "p_", "--pos-label", "cat"], 2, "--pos-label does not apply to K classes"),
    ],
)
def test_bad_wide_input_is_one_line(tmp_path, capsys, text, extra, status, message):
    f = tmp_path / "p.csv"
    f.write_text(text)
    if not any(a.startswith("--score") for a in extra):
        extra = ["--score-prefix", "p_", *extra]
    code, out, err = run(["eval", f, "--target", "label", *extra], capsys)
    assert code == status and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


LONG = "case,cls,p,y\n"


@pytest.mark.parametrize(
    "rows, message",
    [
        (
            "1,a,0.5,a\n1,b,0.5,a\n2,a,0.1,b\n2,a,0.9,b\n",
            "case 2 (column 'case') has class 'a' twice (line 4 and line 5)",
        ),
        (
            "1,a,0.5,a\n1,b,0.5,a\n2,a,0.1,b\n",
            "case 2 (column 'case', first on line 4) has no row of class b",
        ),
        ("1,a,0.5,a\n1,b,0.5,b\n", "case 1: the target column 'y' holds 'a' on line 2 and 'b' on line 3"),
        (
            "1,a,0.5,c\n1,b,0.5,c\n",
            "line 2: the target column 'y' holds 'c', which is not one of the 2 classes",
        ),
        (
            "1,a,0.5,1\n1,b,0.5,1\n",
            "case 1: the target column 'y', a 0/1 marker of the true class's row, marks 2 rows",
        ),
        (
            "1,a,0.5,0\n1,b,0.5,0\n",
            "case 1: the target column 'y', a 0/1 marker of the true class's row, marks no row",
        ),
        ("x,a,0.5,a\nx,b,oops,a\n", "line 3: the score column 'p' holds 'oops', not a number"),
    ],
)
def test_bad_long_input_is_one_line(tmp_path, capsys, rows, message):
    f = tmp_path / "l.csv"
    f.write_text(LONG + rows)
    code, out, err = run(
        ["eval", f, "--long", "--id", "case", "--class", "cls", "--score", "p", "--target", "y"], capsys
    )
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_json_is_strict_and_every_null_says_why(tmp_path, capsys):
    df, _y, _p = data()
    df = df[df["label"] == "cat"]  # one class only: every one-vs-rest area undefined
    df.to_csv(tmp_path / "p.csv", index=False)
    code, out, err = run(
        [
            "eval",
            tmp_path / "p.csv",
            "--target",
            "label",
            "--score-prefix",
            "p_",
            "-m",
            "roc_ovr",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    r = measures(out)["ROC_OVR:average=macro"]
    assert r["value"] is None and r["why_null"]
    assert set(r["per_class_why_null"]) == {"cat", "dog", "bird"}
    assert r["per_class_why_null"]["cat"].startswith("every case is of class 'cat'")
    assert not math.isnan(len(out))


def test_docs_multiclass_commands(capsys, monkeypatch):
    """docs/input.md's "Multiclass" section: its commands, run in docs/examples/multiclass, print what it
    shows; the long table's command the measures of the wide one."""
    import re
    import shlex
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "input.md").read_text()
    section = text.split("## Multiclass: a score column a class", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n\$ (perfeval [^\n]*)\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(root / "docs" / "examples" / "multiclass")
    outs = []
    for command, shown in blocks:
        code, out, err = run(shlex.split(command)[1:], capsys)
        assert code == 0 and err == ""
        if shown:
            assert out == shown
        outs.append(out)
    measures_of = [[ln for ln in o.split("classes (3)")[0].splitlines()] for o in outs]
    assert measures_of[0] == measures_of[1] and len(measures_of[0]) == 5


def test_report_frames_hold_the_classes():
    from perfeval import evaluate

    df, y, p = data()
    keep = y != "bird"
    r = evaluate(y[keep], p[keep], classes=CLASSES, measures=["roc_ovr", "acc_mc"])
    frame = r.classes_frame()
    assert list(frame.index) == CLASSES and list(frame.columns) == ["ROC_OVR:average=macro"]
    assert math.isnan(frame.loc["bird", "ROC_OVR:average=macro"])
    assert r.to_frame().loc["ROC_OVR:average=macro", "undefined_classes"] == 1
    d = json.loads(r.to_json())["measures"]["ROC_OVR:average=macro"]
    assert d["per_class_why_null"] == {"bird": "no case of class 'bird' among the targets"}
