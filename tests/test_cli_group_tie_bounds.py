"""``perfeval eval --tie-bounds`` of K labels (``--labels``/``--label-prefix``), and with ``--group`` of
K classes and K labels: the command line's numbers are ``evaluate(..., tie_bounds=True)``'s, printed as
the binary and K-classes bounds are (``tie_min``/``tie_max`` columns and the share of tied pairs under
the table; each group's beside its value with ``--per-group``; ``tie_bounds_per_group`` in JSON).
"""

from __future__ import annotations

import io
import json
import math
import sys
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import perfeval
from perfeval.cli.main import main

LABELS = ["spam", "urgent", "promo"]
CLASSES = ["cat", "dog", "bird"]
MEASURES = {"multilabel": "roc,ap,lrap,f1", "multiclass": "roc_ovr,ap_ovr,acc,mcc"}


def run(args, capsys):
    old = sys.stdin
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(b""))
    try:
        code = main([str(a) for a in args])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def table(tmp_path, n: int = 60, seed: int = 0):
    """A file of K labels and of K classes, scores rounded (ties), a user column and weights."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"user": rng.choice(["u1", "u2", "u3", "u4"], n), "w": rng.choice([1.0, 2.0, 0.5], n)})
    for lab in LABELS:
        df[f"y_{lab}"] = rng.integers(0, 2, n)
        df[f"p_{lab}"] = np.round(rng.random(n), 1)
    df["label"] = np.array(CLASSES)[rng.integers(0, 3, n)]
    for c in CLASSES:
        df[f"s_{c}"] = np.round(rng.random(n), 1)
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    return f, df


def _columns(task: str) -> list[str]:
    if task == "multilabel":
        return ["--label-prefix", "y_", "--score-prefix", "p_"]
    return ["--target", "label", "--score-prefix", "s_"]


def _expected(task: str, df, measures: str, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task == "multilabel":
            y = df[[f"y_{lab}" for lab in LABELS]].to_numpy()
            s = df[[f"p_{lab}" for lab in LABELS]].to_numpy()
            return perfeval.evaluate(
                y, s, classes=LABELS, measures=measures.split(","), tie_bounds=True, **kw
            )
        s = df[[f"s_{c}" for c in CLASSES]].to_numpy()
        return perfeval.evaluate(
            df["label"].to_numpy(), s, classes=CLASSES, measures=measures.split(","), tie_bounds=True, **kw
        )


def test_eval_labels_tie_bounds_are_evaluate_s_json_and_text(tmp_path, capsys) -> None:
    f, df = table(tmp_path)
    args = ["eval", f, *_columns("multilabel"), "-m", MEASURES["multilabel"], "--tie-bounds", "--quiet"]
    code, out, err = run([*args, "--format", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    r = _expected("multilabel", df, MEASURES["multilabel"])
    for label, res in r.results.items():
        m = d["measures"][label]
        assert (m["tie_min"], m["tie_max"]) == (res.tie_min, res.tie_max), label
        if res.tie_min_per_class is not None:
            for j, lab in enumerate(LABELS):
                assert m["tie_bounds_per_class"][lab] == [res.tie_min_per_class[j], res.tie_max_per_class[j]]
    assert d["tied_pairs"] == r.tied_pairs > 0
    assert r.results["ROC_ML:average=macro"].tie_min < r.results["ROC_ML:average=macro"].tie_max

    code, out, err = run(args, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["measure", "value", "tie_min", "tie_max"]
    roc = r.results["ROC_ML:average=macro"]
    row = next(line for line in lines if line.startswith("ROC_ML:average=macro "))
    assert row.split()[1:4] == [f"{roc.value:.6f}", f"{roc.tie_min:.6f}", f"{roc.tie_max:.6f}"]
    f1 = next(line for line in lines if line.startswith("F_ML"))
    assert len(set(f1.split()[1:4])) == 1  # order-free: min = max = value
    assert f"{r.tied_pairs * 100:.4g}% of {r.pairs:.15g} comparable pairs tied" in out


@pytest.mark.parametrize("task", ["multilabel", "multiclass"])
@pytest.mark.parametrize("weighted", [False, True])
def test_eval_group_tie_bounds_are_evaluate_s(tmp_path, capsys, task, weighted) -> None:
    f, df = table(tmp_path, seed=1)
    measures = MEASURES[task]
    weight = ["--weight", "w"] if weighted else []
    args = ["eval", f, *_columns(task), "-m", measures, "--group", "user", *weight, "--tie-bounds", "--quiet"]
    r = _expected(
        task,
        df,
        measures,
        groups=df["user"].to_numpy(),
        sample_weight=df["w"].to_numpy() if weighted else None,
    )
    keys = [str(k) for k in r.groups]

    code, out, err = run([*args, "--format", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    for label, res in r.results.items():
        m = d["measures"][label]
        if res.tie_note:  # no exact bound: null, with why
            assert m["tie_min"] is None and m["tie_bounds_why_null"] == res.tie_note
            continue
        assert (m["tie_min"], m["tie_max"]) == (res.tie_min, res.tie_max), label
        lows = np.asarray(res.tie_min_per_group)
        assert res.tie_min == float(lows[~np.isnan(lows)].mean()), label  # the groups' mean
        for i, key in enumerate(keys):
            assert m["tie_bounds_per_group"][key] == [res.tie_min_per_group[i], res.tie_max_per_group[i]]
    assert d["tied_pairs"] == r.tied_pairs > 0

    code, out, err = run([*args, "--per-group"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["measure", "value", "tie_min", "tie_max"]
    head = next(line for line in lines if line.startswith("group "))
    first = next(iter(r.results))
    assert f"{first} tie_min" in head and f"{first} tie_max" in head
    res = r.results[first]
    for i, key in enumerate(keys):
        cells = next(line for line in lines if line.startswith(key + " ")).split()
        assert cells[1:4] == [
            f"{v:.6f}" for v in (res.per_group[i], res.tie_min_per_group[i], res.tie_max_per_group[i])
        ]

    code, out, err = run([*args, "--format", "csv", "--per-group"], capsys)
    assert code == 0, err
    rows = out.splitlines()
    assert rows[0].startswith(f"group,{first},{first} tie_min,{first} tie_max")
    cells = rows[1].split(",")
    assert cells[0] == keys[0]
    assert [float(c) for c in cells[1:4]] == [
        res.per_group[0],
        res.tie_min_per_group[0],
        res.tie_max_per_group[0],
    ]
    assert not any(math.isnan(float(c)) for c in cells[2:4])


def test_labels_tie_bounds_read_a_large_file_whole(tmp_path, capsys, monkeypatch) -> None:
    """A file over the streaming size is read whole with --tie-bounds (the bounds are the measures
    of orders of the rows themselves), not streamed without them."""
    from perfeval.cli.commands import eval as command

    monkeypatch.setattr(command, "STREAM_BYTES", 0)  # every file is large
    f, df = table(tmp_path)
    args = ["eval", f, *_columns("multilabel"), "-m", "roc", "--tie-bounds", "--format", "json", "--quiet"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    m = json.loads(out)["measures"]["ROC_ML:average=macro"]
    r = _expected("multilabel", df, "roc").results["ROC_ML:average=macro"]
    assert (m["tie_min"], m["tie_max"]) == (r.tie_min, r.tie_max) and r.tie_min < r.tie_max
