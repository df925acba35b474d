"""``perfeval eval FILES --dask`` of K classes (``--score a,b,c --classes``, ``--score-prefix``) and
of K labels (``--labels``/``--label-prefix``): the numbers of ``perfeval eval`` of the same rows in
memory, CSV and Parquet, several files, weights and groups; bad input one line.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe", reason="--dask needs dask (pip install 'perfeval[dask]')")
pytest.importorskip("distributed", reason="--dask needs distributed (pip install 'perfeval[dask]')")
pd = pytest.importorskip("pandas", reason="the test writes its files with pandas")

from perfeval.cli.main import main  # noqa: E402

CLASSES = ["a", "b", "c"]


def _multiclass(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.random((n, 3)), 1)  # ties at the argmax and within each column
    return pd.DataFrame(
        {
            "user": rng.integers(0, 6, n),
            "y": rng.choice(CLASSES, n),
            "p_a": s[:, 0],
            "p_b": s[:, 1],
            "p_c": s[:, 2],
            "w": np.round(rng.random(n) * 3, 2) * (rng.random(n) > 0.1),  # some rows of weight 0
        }
    )


def _multilabel(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.random((n, 3)), 1)
    y = rng.random((n, 3)) < 0.4
    return pd.DataFrame(
        {
            "user": rng.integers(0, 6, n),
            "y_spam": y[:, 0].astype(int),
            "y_urgent": y[:, 1].astype(int),
            "y_promo": y[:, 2].astype(int),
            "p_spam": s[:, 0],
            "p_urgent": s[:, 1],
            "p_promo": s[:, 2],
            "w": np.round(rng.random(n) * 3, 2),
        }
    )


def _write(df: pd.DataFrame, tmp_path, fmt: str, files: int) -> tuple[str, str]:
    """(the glob of ``files`` files holding the rows in order, one file of all the rows)."""
    whole = tmp_path / f"whole.{fmt}"
    pieces = np.array_split(np.arange(len(df)), files)
    for i, rows in enumerate(pieces):
        part = df.iloc[rows]
        if fmt == "csv":
            part.to_csv(tmp_path / f"part{i}.csv", index=False)
        else:
            part.to_parquet(tmp_path / f"part{i}.parquet", index=False)
    if fmt == "csv":
        df.to_csv(whole, index=False)
    else:
        df.to_parquet(whole, index=False)
    return str(tmp_path / f"part*.{fmt}"), str(whole)


def _run(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _same(a, b) -> bool:
    return a == b or (a != a and b != b)


def _close(got, want, exact: bool, where: tuple) -> None:
    """Two JSON values alike: the same keys and texts, numbers equal (bits) or within 1e-12."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for k in want:
            _close(got[k], want[k], exact, (*where, k))
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _close(g, w, exact, (*where, i))
    elif isinstance(want, float) and not exact and want == want:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-300), where
    else:
        assert _same(got, want), (where, got, want)


def _compare(dask: dict, memory: dict, exact: bool) -> None:
    """Everything but the run's own params (source, backend) and signature: the measures' values,
    per class, per group, the undefined classes and groups.
    """
    assert set(dask) == set(memory)
    for key in memory:
        if key not in ("params", "signature"):
            _close(dask[key], memory[key], exact, (key,))
    assert len(dask["measures"]) >= 1


CLASS_CASES = [
    # (options, exact: the bits of memory)
    (["--score", "p_a,p_b,p_c", "--classes", "a,b,c"], True),
    (["--score-prefix", "p_"], True),
    (["--score-prefix", "p_", "--group", "user"], True),
    (["--score-prefix", "p_", "--group", "user", "--weight", "w"], True),
    # weighted over all the rows: the partitions folded in order, the bits of memory (docs/dask.md)
    (["--score", "p_a,p_b,p_c", "--classes", "a,b,c", "--weight", "w"], True),
]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(("options", "exact"), CLASS_CASES)
def test_k_classes_on_dask_are_the_numbers_in_memory(tmp_path, capsys, fmt, options, exact):
    df = _multiclass(7, 600)
    glob, whole = _write(df, tmp_path, fmt, 3)
    common = ["--target", "y", "-m", "roc_ovr,roc_ovo,acc_mc,f_mc,logloss,brier", "--format", "json"]
    memory = _run(capsys, ["eval", whole, *common, *options])
    dask = _run(capsys, ["eval", glob, *common, *options, "--dask", "local:1"])
    _compare(dask, memory, exact)
    assert dask["params"]["backend"] == "dask"
    assert dask["params"]["task"] == "multiclass"
    assert dask["params"]["classes"] == CLASSES
    assert dask["params"]["classes_from"] == memory["params"]["classes_from"]
    assert dask["params"]["columns"] == memory["params"]["columns"]


def test_k_classes_on_dask_in_text(tmp_path, capsys):
    """The text output: the classes line and the per-class table, as in memory."""
    df = _multiclass(3, 200)
    glob, whole = _write(df, tmp_path, "csv", 2)
    argv = ["--target", "y", "--score-prefix", "p_", "-m", "roc_ovr,f_mc"]
    assert main(["eval", whole, *argv]) == 0
    memory = capsys.readouterr().out
    assert main(["eval", glob, *argv, "--dask", "local:1"]) == 0
    out = capsys.readouterr().out
    assert "classes (3): a, b, c (from --score-prefix 'p_': the columns p_a, p_b, p_c)" in out
    assert "per class:" in out
    # the same table, but for the signature's backend
    assert out.replace("backend:dask", "backend:memory") == memory


LABEL_CASES = [
    ["--labels", "y_spam,y_urgent,y_promo", "--score", "p_spam,p_urgent,p_promo"],
    ["--label-prefix", "y_", "--score-prefix", "p_"],
    ["--label-prefix", "y_", "--score-prefix", "p_", "--weight", "w"],
    ["--label-prefix", "y_", "--score-prefix", "p_", "--group", "user"],
    ["--label-prefix", "y_", "--score-prefix", "p_", "--group", "user", "--weight", "w"],
]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("options", LABEL_CASES)
def test_k_labels_on_dask_are_the_numbers_in_memory(tmp_path, capsys, fmt, options):
    df = _multilabel(11, 500)
    glob, whole = _write(df, tmp_path, fmt, 3)
    common = ["-m", "roc_ml,ap_ml,f_ml,hamming,lrap", "--format", "json"]
    memory = _run(capsys, ["eval", whole, *common, *options])
    dask = _run(capsys, ["eval", glob, *common, *options, "--dask", "local:1"])
    _compare(dask, memory, True)  # K labels: the bits of memory, weights too (docs/dask.md)
    assert dask["params"]["backend"] == "dask"
    assert dask["params"]["task"] == "multilabel"
    assert dask["params"]["classes"] == memory["params"]["classes"]
    assert dask["params"]["classes_from"] == memory["params"]["classes_from"]


@pytest.mark.parametrize(
    ("text", "options", "said"),
    [
        (
            "y,p_a,p_b,p_c\na,0.1,0.2,0.7\nfish,0.3,0.3,0.4\n",
            ["--target", "y", "--score", "p_a,p_b,p_c", "--classes", "a,b,c"],
            "t.csv, line 3: the target column 'y' holds 'fish', which is not one of the 3 classes",
        ),
        (
            "y,p_a,p_b,p_c\na,0.1,0.2,0.7\nb,0.3,x,0.4\n",
            ["--target", "y", "--score-prefix", "p_"],
            # a partition does not know its line: its number and its row (docs/dask.md)
            "t.csv, line 3: the score column 'p_b' holds 'x', not a number",
        ),
        (
            "y_a,y_b,p_a,p_b\n1,0,0.1,0.2\n2,0,0.3,0.3\n",
            ["--label-prefix", "y_", "--score-prefix", "p_"],
            "t.csv, line 3: the label column 'y_a' holds 2; a label column holds 0 or 1 (off or on)",
        ),
        (
            "y,p_a,p_b,p_c\n",
            ["--target", "y", "--score-prefix", "p_"],
            "t.csv: holds a header and no data",
        ),
    ],
)
def test_bad_input_on_dask_is_one_line(tmp_path, capsys, text, options, said):
    (tmp_path / "t.csv").write_text(text)
    assert main(["eval", str(tmp_path / "t.csv"), *options, "--dask", "local:1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert said in err, err


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--score-prefix", "p_", "--ci", "0.9"], "--ci"),
        (["--score-prefix", "p_", "--tie-bounds"], "--tie-bounds"),
        (["--score-prefix", "p_", "--stream"], "--stream"),
    ],
)
def test_what_dask_does_not_take_for_k_classes_is_one_line(tmp_path, capsys, options, said):
    (tmp_path / "t.csv").write_text("y,p_a,p_b,p_c,c,k,p\na,0.1,0.2,0.7,1,a,0.1\n")
    assert main(["eval", str(tmp_path / "t.csv"), "--target", "y", *options, "--dask", "local:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dask" in err and said in err, err


# -- --score a,b,c without --classes: K classes or several models, decided as in memory -------------------
def _decided(seed: int, n: int, targets: list, columns: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.random((n, len(columns))), 1)
    df = pd.DataFrame({"y": [targets[i] for i in rng.integers(0, len(targets), n)]})
    for j, c in enumerate(columns):
        df[c] = s[:, j]
    return df


DECIDED = [
    # (targets, score columns, the decision in memory: exit status)
    (["a", "b", "c"], ["a", "b", "c"], 0),  # every target names a column: K classes
    ([0, 1, 2], ["0", "1", "2"], 0),  # numbers naming the columns: K classes of the numbers
    ([0, 1], ["a", "b", "c"], 0),  # 0/1 targets: three models, a row each
    (["True", "False"], ["a", "b", "c"], 2),  # two labels naming no column (pandas would read booleans)
    (["a", "b", "c", "d"], ["a", "b", "c"], 1),  # 'd' has no column (memory names its line)
    (["x", "z"], ["a", "b", "c"], 2),  # labels naming no column: name the classes
]


@pytest.mark.parametrize(("targets", "columns", "status"), DECIDED)
def test_several_scores_on_dask_are_decided_as_in_memory(tmp_path, capsys, targets, columns, status):
    """``--score a,b,c`` without ``--classes``: K classes or several models by the same rule, with
    the same output (the signature's backend aside) or the same one-line error, as the table read
    whole (a target without a column: the file, without the line a partition cannot tell)."""
    path = str(tmp_path / "t.csv")
    _decided(5, 120, targets, columns).to_csv(path, index=False)
    argv = ["eval", path, "--header", "--target", "y", "--score", ",".join(columns), "-m", "roc,acc"]
    assert main(argv) == status
    memory = capsys.readouterr()
    assert main([*argv, "--dask", "local:1"]) == status
    dask = capsys.readouterr()
    assert dask.out.replace("backend:dask", "backend:memory") == memory.out
    if status:
        assert dask.err == re.sub(r", (line|row) \d+:", ":", memory.err), (dask.err, memory.err)
    else:
        assert memory.out and ("classes (3)" in memory.out) == (targets != [0, 1])


def test_several_scores_on_dask_read_every_file(tmp_path, capsys):
    """The targets of every file decide (a class only in the last file), Parquet too."""
    df = _decided(9, 150, ["a", "b"], ["a", "b", "c"])
    df.loc[len(df) - 1, "y"] = "c"  # 'c' in the last file only: K classes, not a usage error
    for fmt in ("csv", "parquet"):
        glob, whole = _write(df, tmp_path, fmt, 3)
        argv = ["--target", "y", "--score", "a,b,c", "-m", "roc_ovr,acc_mc"]
        assert main(["eval", whole, *argv]) == 0
        memory = capsys.readouterr().out
        assert main(["eval", glob, *argv, "--dask", "local:1"]) == 0
        dask = capsys.readouterr().out
        assert "classes (3): a, b, c" in memory
        assert dask.replace("backend:dask", "backend:memory") == memory


@pytest.mark.parametrize(
    ("targets", "columns"),
    [
        (list("abcdefgh"), ["a", "b", "c"]),  # every column a target's: all of them brought, the message
        (list(range(8)), ["1", "2", "3"]),  # the same of numbers (read as the table read whole reads them)
        (list("defghijk"), ["a", "b", "c"]),  # no column a target's: several models
    ],
)
def test_many_distinct_targets_on_dask_are_decided_as_in_memory(
    tmp_path, capsys, monkeypatch, targets, columns
):
    """Past the distinct targets brought to decide (here 2 beyond the columns), the rule still holds:
    several models unless every column is named after a target, then every target is read for the
    message naming those without a column."""
    from perfeval.cli import dask_tables

    monkeypatch.setattr(dask_tables, "DISTINCT", 2)
    path = str(tmp_path / "t.csv")
    _decided(13, 80, targets, columns).to_csv(path, index=False)
    argv = ["eval", path, "--header", "--target", "y", "--score", ",".join(columns), "-m", "roc,acc"]
    assert main(argv) == 1
    memory = capsys.readouterr().err
    assert main([*argv, "--dask", "local:1"]) == 1
    dask = capsys.readouterr().err
    if "has no score column" in memory:
        assert "other label(s)" in memory
        assert dask == re.sub(r", line \d+:", ":", memory), (dask, memory)
    else:  # several models: each a binary model's error (the targets are no 0/1), said by the Dask path
        assert "has no score column" not in dask and "not named after them" not in dask
        assert "the target column 'y' holds 'd', 'e', 'f'" in dask, dask


def test_many_distinct_targets_between_files_on_dask(tmp_path, capsys, monkeypatch):
    """Each file under the cap of distinct targets, their union over it: the same message."""
    from perfeval.cli import dask_tables

    monkeypatch.setattr(dask_tables, "DISTINCT", 1)  # 4 distinct targets with three columns
    df = _decided(17, 30, ["a"], ["a", "b", "c"])
    df["y"] = ["a", "b", "d"] * 3 + ["a"] + ["c", "e"] * 5 + ["f", "g"] * 5  # 3, 2 and 2 a file; 7 in all
    glob, whole = _write(df, tmp_path, "csv", 3)
    argv = ["--target", "y", "--score", "a,b,c", "-m", "roc,acc"]
    assert main(["eval", whole, *argv]) == 1
    memory = capsys.readouterr().err
    assert main(["eval", glob, *argv, "--dask", "local:1"]) == 1
    dask = capsys.readouterr().err
    assert (
        "the target 'd' in column 'y' has no score column" in memory
        and "(and 3 other label(s): e, f, g)" in memory
    )
    assert dask == re.sub(r", line \d+:", ":", memory).replace(whole, glob), (dask, memory)
