"""``perfeval eval --ci/--tie-bounds`` and ``perfeval compare`` of K classes: the command line's numbers
are the Python API's (``perfeval.ci``, ``perfeval.compare``, ``compare_models``, ``evaluate(tie_bounds=)``
with ``classes=``), and what is not offered is one line.
"""

from __future__ import annotations

import io
import json
import sys
import types

import numpy as np
import pandas as pd
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.stats import compare, compare_models

CLASSES = ["cat", "dog", "bird"]


def run(args, capsys):
    old = sys.stdin
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(b""))
    try:
        code = main([str(a) for a in args])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def table(
    n: int = 80, seed: int = 0, weights: bool = False
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.array(CLASSES)[rng.integers(0, 3, n)]
    a = np.round(rng.dirichlet([1.0, 1.0, 1.0], n), 1)  # rounded: ties in the columns and at the argmax
    b = np.round(rng.dirichlet([1.0, 1.0, 1.0], n), 1)
    a[np.arange(n), rng.integers(0, 3, n)] += 0.2
    df = pd.DataFrame({"case": np.arange(n), "label": y})
    for c, j in zip(CLASSES, range(3), strict=True):
        df[f"old_{c}"] = a[:, j]
        df[f"new_{c}"] = b[:, j]
    if weights:
        df["w"] = rng.integers(1, 4, n).astype(float)
    return df, y, a, b


def test_eval_ci_is_perfeval_ci(tmp_path, capsys) -> None:
    df, y, a, _b = table(weights=True)
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    code, out, err = run(
        [
            "eval",
            f,
            "--target",
            "label",
            "--score",
            "old_cat,old_dog,old_bird",
            "--classes",
            ",".join(CLASSES),
            "-m",
            "roc_ovr,f1,acc",
            "--ci",
            "0.9",
            "--n-boot",
            "120",
            "--seed",
            "3",
            "--weight",
            "w",
            "--format",
            "json",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0, err
    got = json.loads(out)["measures"]
    want = perfeval.ci(
        y,
        a,
        classes=CLASSES,
        measures=["roc_ovr", "f1", "acc"],
        level=0.9,
        n_boot=120,
        seed=3,
        sample_weight=df["w"].to_numpy(),
    )
    assert set(got) == set(want)
    for label, iv in want.items():
        assert got[label]["value"] == iv.estimate
        assert got[label]["ci"]["low"] == iv.low and got[label]["ci"]["high"] == iv.high, label
        assert got[label]["ci"]["method"] == "bca"


def test_eval_ci_text_and_percentile(tmp_path, capsys) -> None:
    df, y, a, _b = table()
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    code, out, _ = run(
        [
            "eval",
            f,
            "--target",
            "label",
            "--score-prefix",
            "old_",
            "-m",
            "roc_ovo",
            "--ci",
            "0.95",
            "--method",
            "percentile",
            "--n-boot",
            "60",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0
    iv = perfeval.ci(y, a, classes=CLASSES, measures="roc_ovo", method="percentile", n_boot=60)
    row = next(line for line in out.splitlines() if line.startswith("ROC_OVO"))
    assert row.split()[2:] == [
        f"{iv['ROC_OVO:average=macro'].low:.6f}",
        f"{iv['ROC_OVO:average=macro'].high:.6f}",
    ]
    assert "(95% intervals: percentile bootstrap, 60 replicates, cases resampled)" in out


def test_eval_tie_bounds_are_evaluate_s(tmp_path, capsys) -> None:
    df, y, a, _b = table()
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    code, out, err = run(
        [
            "eval",
            f,
            "--target",
            "label",
            "--score-prefix",
            "old_",
            "-m",
            "roc_ovr,ap_ovr,acc,mcc",
            "--tie-bounds",
            "--format",
            "json",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0, err
    d = json.loads(out)
    r = perfeval.evaluate(
        y, a, classes=CLASSES, measures=["roc_ovr", "ap_ovr", "acc", "mcc"], tie_bounds=True
    )
    for label, res in r.results.items():
        m = d["measures"][label]
        if res.tie_note:
            assert m["tie_min"] is None and m["tie_bounds_why_null"] == res.tie_note
        else:
            assert (m["tie_min"], m["tie_max"]) == (res.tie_min, res.tie_max)
    assert d["tied_pairs"] == r.tied_pairs > 0
    assert d["measures"]["ROC_OVR:average=macro"]["tie_bounds_per_class"]["dog"] == [
        r.results["ROC_OVR:average=macro"].tie_min_per_class[1],
        r.results["ROC_OVR:average=macro"].tie_max_per_class[1],
    ]


def _num(v):
    return float("nan") if v is None else v


def _same(got: tuple, want: tuple) -> bool:
    return all(
        (np.isnan(w) and np.isnan(_num(g))) if isinstance(w, float) else g == w
        for g, w in zip(got, want, strict=True)
    )


def _num(v):
    return float("nan") if v is None else v


def _same(got: tuple, want: tuple) -> bool:
    return all(
        (np.isnan(w) and np.isnan(_num(g))) if isinstance(w, float) and np.isnan(w) else g == w
        for g, w in zip(got, want, strict=True)
    )


def _compared(out: str) -> dict:
    return {c["measure"]: c for c in json.loads(out)["comparisons"]}


def test_compare_one_table_by_prefixes_is_perfeval_compare(tmp_path, capsys) -> None:
    df, y, a, b = table(weights=True)
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    code, out, err = run(
        [
            "compare",
            f,
            "--target",
            "label",
            "--score-prefix",
            "old_,new_",
            "-m",
            "roc_ovr,f1,logloss_mc",
            "--n-boot",
            "150",
            "--seed",
            "2",
            "--weight",
            "w",
            "--format",
            "json",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0, err
    got = _compared(out)
    assert json.loads(out)["classes"] == CLASSES
    want = compare(
        y,
        b,
        a,
        classes=CLASSES,
        measures=["roc_ovr", "f1", "logloss_mc"],
        n_boot=150,
        seed=2,
        sample_weight=df["w"].to_numpy(),
    )
    for label, c in want.items():
        g = got[label]
        assert _same(
            (
                g["model_value"],
                g["baseline_value"],
                g["difference"],
                g["low"],
                g["high"],
                g["p_value"],
                g["method"],
            ),
            (c.estimate_a, c.estimate_b, c.difference, c.low, c.high, c.p_value, "bca"),
        ), label
    assert np.isfinite(got["ROC_OVR:average=macro"]["low"])  # the measures that are defined: numbers


def test_compare_tables_joined_by_id(tmp_path, capsys) -> None:
    df, y, a, b = table()
    old = df[["case", "label", "old_cat", "old_dog", "old_bird"]].rename(
        columns=lambda c: c.replace("old_", "p_")
    )
    new = df[["case", "label", "new_cat", "new_dog", "new_bird"]].rename(
        columns=lambda c: c.replace("new_", "p_")
    )
    new = new.iloc[::-1][["case", "label", "p_bird", "p_cat", "p_dog"]]  # other row and column orders
    fo, fn = tmp_path / "old.csv", tmp_path / "new.csv"
    old.to_csv(fo, index=False)
    new.to_csv(fn, index=False)
    args = [
        "compare",
        fo,
        fn,
        "--target",
        "label",
        "--score-prefix",
        "p_",
        "-m",
        "roc_ovr,acc",
        "--n-boot",
        "100",
    ]
    code, out, err = run([*args, "--id", "case", "--format", "json", "--quiet"], capsys)
    assert code == 0, err
    got = _compared(out)
    # the classes of the baseline's columns: cat, dog, bird
    want = compare_models(
        y, {"old": a, "new": b}, "old", classes=CLASSES, measures=["roc_ovr", "acc"], n_boot=100
    )["new"]
    for label, c in want.items():
        assert (got[label]["difference"], got[label]["low"], got[label]["high"]) == (
            c.difference,
            c.low,
            c.high,
        )
    code, out, err = run([*args, "--quiet"], capsys)  # without --id: the rows differ, said
    assert code == 1 and "the target differs from" in err and "--id COLUMN" in err


def test_compare_models_with_classes_is_compare() -> None:
    _df, y, a, b = table()
    c = b[:, ::-1].copy()
    got = compare_models(
        y, {"base": a, "b": b, "c": c}, "base", classes=CLASSES, measures=["roc_ovr", "bacc"], n_boot=80
    )
    for name, s in (("b", b), ("c", c)):
        assert got[name] == compare(y, s, a, classes=CLASSES, measures=["roc_ovr", "bacc"], n_boot=80)


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (
            ["eval", "{f}", "--target", "label", "--score-prefix", "old_", "--ci", "0.9", "--group", "case"],
            2,
            "--ci of K classes is over all the cases",
        ),
        (
            ["eval", "{f}", "--target", "label", "--score-prefix", "old_", "--tie-bounds", "--stream"],
            2,
            "--tie-bounds",
        ),
        (["compare", "{f}", "--target", "label", "--score-prefix", "old_"], 2, "--score-prefix BASE_,A_"),
        (
            ["compare", "{f}", "--target", "label", "--score-prefix", "old_,new_", "--tie-bounds"],
            2,
            "--tie-bounds with K classes",
        ),
        (
            ["compare", "{f}", "--target", "label", "--score-prefix", "old_,new_", "--group", "case"],
            2,
            "--group with K classes",
        ),
        (
            ["compare", "{f}", "--target", "label", "--score-prefix", "old_,new_", "--method", "delong"],
            2,
            "DeLong's test is for the ROC area of two classes",
        ),
    ],
)
def test_what_is_not_offered_is_one_line(tmp_path, capsys, args, status, said) -> None:
    df, *_ = table()
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    code, out, err = run([str(f) if a == "{f}" else a for a in args] + ["--quiet"], capsys)
    assert code == status, err
    assert said in err and err.count("\n") == 1 and not out


def test_compare_classes_must_match(tmp_path, capsys) -> None:
    df, *_ = table()
    df = df.rename(columns={"new_bird": "new_fish"})
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    code, _out, err = run(
        ["compare", f, "--target", "label", "--score-prefix", "old_,new_", "--quiet"], capsys
    )
    assert code == 1 and "each model needs a score column for every class" in err
