"""Empty fields of a CSV/TSV (what pandas' ``to_csv`` writes for NaN and None): no error in a column
the run does not use (the row kept), one line naming the file, the line and the column in a column
it uses, said in the file's order among the other bad values and after the column checks; the same
read whole, streamed (in chunks of any size) and, where the CSV path exists there, on Dask.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.exceptions import InputFormatError
from perfeval.io import readers
from perfeval.io.readers import iter_columns, read_table

EMPTY = "is empty: a missing value; drop the row or fill it"


def run(argv, capsys):
    from conftest import run_cli

    return run_cli([str(a) for a in argv], capsys)


@pytest.fixture
def small_chunks(monkeypatch):
    """The streamed reader in chunks of ``chunk_bytes`` (64 by default; every command's stream)."""
    sizes = {"bytes": 64}
    inner = readers.iter_columns

    def chunked(*a, **k):
        k["chunk_bytes"] = sizes["bytes"]
        yield from inner(*a, **k)

    import perfeval.cli.commands.eval as eval_command

    monkeypatch.setattr(readers, "iter_columns", chunked)
    monkeypatch.setattr(eval_command, "iter_columns", chunked)
    return sizes


def both(path, argv, capsys):
    """(status, stdout, stderr) of ``perfeval eval path argv`` read whole, then streamed."""
    return [run(["eval", path, *argv, *extra], capsys) for extra in ([], ["--stream"])]


def frame(n: int = 12, seed: int = 3):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "y": [k % 2 for k in range(n)],
            "p": np.round(rng.random(n), 4),
            "note": [f"a, b {k}" if k % 3 else 'say "hi"' for k in range(n)],  # quoted by pandas
            "w": rng.integers(1, 4, n).astype(float),  # counts: APR and CA2 take them
            "user": [k % 4 for k in range(n)],
            "doc": [f"d{k}" for k in range(n)],
        }
    )


# -- a column not used ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dask", [False, True])
def test_an_empty_field_of_a_column_not_used_keeps_its_row(tmp_path, capsys, small_chunks, dask):
    """None and NaN in columns the run does not read (a text column, a trailing column of Nones) are
    no error, and no row is lost: the numbers and the rows of the file without them."""
    df = frame()
    df.drop(columns=["note"]).to_csv(tmp_path / "clean.csv", index=False)
    df["note"] = df["note"].astype(object)
    df.loc[[2, 7], "note"] = None
    df["extra"] = None  # a trailing column of empty fields: "...,0,d0,"
    df.to_csv(tmp_path / "nan.csv", index=False)
    assert (tmp_path / "nan.csv").read_text().splitlines()[1].endswith(",")
    modes = [["--dask", "local:1"]] if dask else [[], ["--stream"]]
    for extra in modes:
        for more in (["--weight", "w", "-m", "roc,ap"], ["--group", "user", "-m", "gauc,roc"]):
            argv = ["--target", "y", "--score", "p", *more, "--format", "json", *extra]
            code, out, err = run(["eval", tmp_path / "nan.csv", *argv], capsys)
            assert code == 0, err
            code, clean, err = run(["eval", tmp_path / "clean.csv", *argv], capsys)
            assert code == 0, err
            got, want = json.loads(out), json.loads(clean)
            assert got["measures"] == want["measures"]
            if "rows" in want["params"]:
                assert got["params"]["rows"] == want["params"]["rows"] == len(df)


def test_read_table_keeps_empty_fields_and_refuses_them_where_used(tmp_path):
    df = frame()
    df["note"] = df["note"].astype(object)
    df.loc[4, "note"] = None
    df.loc[9, "p"] = np.nan
    df.to_csv(tmp_path / "t.csv", index=False)
    t = read_table(str(tmp_path / "t.csv"))
    assert len(t.data[0]) == len(df)  # every row read
    assert t.empties == {1: 9, 2: 4}  # the columns p and note: their first empty field's row
    assert t.data[2].tolist()[4] == ""
    ch = t.choose(target="y", score="w")  # neither holds one
    assert t.get(ch.score).tolist() == df["w"].tolist()
    with pytest.raises(InputFormatError, match=rf"t.csv, line 11: the score column 'p' {EMPTY}"):
        t.choose(target="y", score="p")
    # chunked: the columns asked for, the others not read as values
    parts = list(iter_columns(str(tmp_path / "t.csv"), ["y", "w"], chunk_bytes=64))
    assert sum(len(p[0]) for p in parts) == len(df)
    with pytest.raises(InputFormatError, match=rf"t.csv, line 6: the column 'note' {EMPTY}"):
        list(iter_columns(str(tmp_path / "t.csv"), ["y", "note"], ids=[1], chunk_bytes=64))


# -- a column used --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "column, role, argv",
    [
        ("y", "target", []),
        ("p", "score", []),
        ("w", "weight", ["--weight", "w"]),
        ("user", "group", ["--group", "user", "-m", "gauc"]),
        ("user", "group", ["--group", "user", "-m", "gauc", "--pos-label", "1"]),
    ],
)
@pytest.mark.parametrize("chunk", [64, 1 << 20])
def test_an_empty_field_of_a_column_used_is_one_line(
    tmp_path, capsys, small_chunks, column, role, argv, chunk
):
    small_chunks["bytes"] = chunk
    df = frame()
    df[column] = df[column].astype(object)
    df.loc[6, column] = None
    df.to_csv(tmp_path / "t.csv", index=False)
    said = f"t.csv, line 8: the {role} column {column!r} {EMPTY}\n"
    for code, out, err in both(tmp_path / "t.csv", ["--target", "y", "--score", "p", *argv], capsys):
        assert code == 1 and out == "" and err.endswith(said) and err.count("\n") == 1, err


@pytest.mark.parametrize("chunk", [64, 1 << 20])
def test_an_empty_field_of_the_id_column_is_one_line(tmp_path, capsys, small_chunks, chunk):
    """The id column (read only by a dialect that breaks ties by id, in memory: elsewhere --id is
    refused before any row is read) with an empty field is its line, as the other columns'."""
    small_chunks["bytes"] = chunk
    df = frame()
    df["doc"] = df["doc"].astype(object)
    df.loc[6, "doc"] = None
    df.to_csv(tmp_path / "t.csv", index=False)
    argv = [
        "--target",
        "y",
        "--score",
        "p",
        "--id",
        "doc",
        "--dialect",
        "trec_eval",
        "--group",
        "user",
        "-m",
        "map",
    ]
    code, out, err = run(["eval", tmp_path / "t.csv", *argv], capsys)
    assert code == 1 and out == "" and err.endswith(f"t.csv, line 8: the id column 'doc' {EMPTY}\n"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "column, fragment",
    [
        ("y", "the target column 'y'"),
        ("p", "the score column 'p'"),
        ("w", "the weight column 'w'"),
        ("user", "the group column 'user' (--group) holds an empty field"),
    ],
)
def test_dask_refuses_an_empty_field_of_a_column_used(tmp_path, capsys, column, fragment):
    """On Dask an empty score, weight or target is said as memory says it, with its line (the command
    reads the file again, streamed, up to it; the target's was the file and the column only); an
    empty group id (was a group of its own) by the file and the column."""
    df = frame()
    df[column] = df[column].astype(object)
    df.loc[6, column] = None
    df.to_csv(tmp_path / "t.csv", index=False)
    extra = (
        ["--weight", "w"] if column == "w" else ["--group", "user", "-m", "gauc"] if column == "user" else []
    )
    code, out, err = run(
        ["eval", tmp_path / "t.csv", "--target", "y", "--score", "p", *extra, "--dask", "local:1"], capsys
    )
    assert code == 1 and out == "" and err.count("\n") == 1, err
    if column == "user":  # the group: the file and the column
        assert "t.csv: " + fragment in err
    else:  # a score, a weight or a target: its line, 8 (the header line 1, row 6 from 0), as memory says it
        assert "t.csv, line 8: " + fragment + " is empty: a missing value" in err


def test_multiclass_and_multilabel_empty_fields(tmp_path, capsys, small_chunks):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 12
    proba = rng.dirichlet([1, 1, 1], n)
    mc = pd.DataFrame(
        {
            "label": [("cat", "dog", "bird")[k % 3] for k in range(n)],
            **{f"p_{c}": proba[:, i] for i, c in enumerate(("cat", "dog", "bird"))},
            "note": [None if k == 1 else "x" for k in range(n)],
            "g": [k % 3 for k in range(n)],
        }
    )
    mc.to_csv(tmp_path / "mc.csv", index=False)
    argv = ["--target", "label", "--score-prefix", "p_", "--group", "g"]
    outs = both(tmp_path / "mc.csv", argv, capsys)
    assert [c for c, _, _ in outs] == [0, 0]  # the note's empty field: no error
    for column, role in (("label", "target"), ("p_dog", "score"), ("g", "group")):
        d = mc.copy()
        d[column] = d[column].astype(object)
        d.loc[5, column] = None
        d.to_csv(tmp_path / "t.csv", index=False)
        for code, _out, err in both(tmp_path / "t.csv", argv, capsys):
            assert code == 1 and err.endswith(f"t.csv, line 7: the {role} column {column!r} {EMPTY}\n"), err
    labels = rng.integers(0, 2, (n, 2))
    ml = pd.DataFrame(
        {
            "y_a": labels[:, 0].astype(float),
            "y_b": labels[:, 1],
            "p_a": rng.random(n),
            "p_b": rng.random(n),
            "note": [None if k == 2 else "x" for k in range(n)],
            "g": [k % 3 for k in range(n)].copy(),
        }
    )
    argv = ["--label-prefix", "y_", "--score-prefix", "p_", "--group", "g"]
    ml.to_csv(tmp_path / "ml.csv", index=False)
    assert [c for c, _, _ in both(tmp_path / "ml.csv", argv, capsys)] == [0, 0]
    for column, role in (("y_a", "label"), ("g", "group")):
        d = ml.copy()
        d[column] = d[column].astype(object)
        d.loc[8, column] = None
        d.to_csv(tmp_path / "t.csv", index=False)
        for code, _out, err in both(tmp_path / "t.csv", argv, capsys):
            assert code == 1 and err.endswith(f"t.csv, line 10: the {role} column {column!r} {EMPTY}\n"), err


def test_long_format_empty_fields(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    classes = ("cat", "dog", "bird")
    rows = [
        {"case": i, "cls": c, "p": rng.random(), "is_true": int(c == classes[i % 3]), "note": "n"}
        for i in range(6)
        for c in classes
    ]
    long = pd.DataFrame(rows)
    long.loc[2, "note"] = None
    long.to_csv(tmp_path / "l.csv", index=False)
    argv = ["--long", "--id", "case", "--class", "cls", "--score", "p", "--target", "is_true"]
    code, _out, err = run(["eval", tmp_path / "l.csv", *argv], capsys)
    assert code == 0, err
    for column, role in (("cls", "class"), ("case", "id"), ("p", "score"), ("is_true", "target")):
        d = long.copy()
        d[column] = d[column].astype(object)
        d.loc[7, column] = None
        d.to_csv(tmp_path / "t.csv", index=False)
        code, out, err = run(["eval", tmp_path / "t.csv", *argv], capsys)
        assert code == 1 and err.endswith(f"t.csv, line 9: the {role} column {column!r} {EMPTY}\n"), err


# -- the order of the errors ----------------------------------------------------------------------------
@pytest.mark.parametrize("dask", [False, True])
def test_a_column_named_by_an_option_is_checked_before_any_value(tmp_path, capsys, dask):
    df = frame()
    df["p"] = df["p"].astype(object)
    df.loc[1, "p"] = None
    df.to_csv(tmp_path / "t.csv", index=False)
    modes = [["--dask", "local:1"]] if dask else [[], ["--stream"]]
    for extra in modes:
        for bad in (["--target", "label"], ["--group", "users"], ["--weight", "weights"]):
            argv = ["--target", "y", "--score", "p", "-m", "roc", *bad, *extra]
            code, out, err = run(["eval", tmp_path / "t.csv", *argv], capsys)
            name = bad[1]
            assert code == 2 and f"{name!r}: no such column" in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "cells, said",
    [
        # a value that is not a number on line 3, an empty target on line 6: line 3
        ({(1, "p"): "abc", (4, "y"): None}, "line 3: the score column 'p' holds 'abc', not a number"),
        # an empty group on line 3, a bad score on line 6: line 3
        ({(1, "user"): None, (4, "p"): "abc"}, f"line 3: the group column 'user' {EMPTY}"),
        # in one column: the first of the two
        ({(1, "p"): "abc", (4, "p"): None}, "line 3: the score column 'p' holds 'abc', not a number"),
        ({(1, "p"): None, (4, "p"): "abc"}, f"line 3: the score column 'p' {EMPTY}"),
        # a value refused on line 3, an empty field of its column on line 6: line 3
        ({(1, "w"): -1.0, (4, "w"): None}, "line 3: the weight column 'w' holds -1.0"),
        ({(1, "p"): "inf", (4, "p"): None}, "line 3: the score column 'p' holds inf"),
        # on one line: the target's, then the score's, then the weight's, then the group's
        ({(2, "w"): None, (2, "p"): "abc"}, "line 4: the score column 'p' holds 'abc', not a number"),
        ({(2, "user"): None, (2, "y"): None}, f"line 4: the target column 'y' {EMPTY}"),
        ({(2, "user"): None, (2, "w"): -1.0}, "line 4: the weight column 'w' holds -1.0"),
    ],
)
@pytest.mark.parametrize("chunk", [32, 1 << 20])
def test_errors_are_said_in_the_files_order(tmp_path, capsys, small_chunks, cells, said, chunk):
    small_chunks["bytes"] = chunk
    df = frame()
    for (row, column), value in cells.items():
        df[column] = df[column].astype(object)
        df.loc[row, column] = value
    df.to_csv(tmp_path / "t.csv", index=False)
    argv = ["--target", "y", "--score", "p", "--weight", "w", "--group", "user", "-m", "roc"]
    for code, _out, err in both(tmp_path / "t.csv", argv, capsys):
        assert code == 1 and f"t.csv, {said}" in err and err.count("\n") == 1, err


def test_plot_and_report_read_empty_fields_alike(tmp_path, capsys):
    """The several-models loader (plot, report): an empty field of a column not used is no error; of
    a score column, one line at its line."""
    df = frame()
    df["q"] = df["p"] ** 2
    df["note"] = df["note"].astype(object)
    df.loc[3, "note"] = None
    df.to_csv(tmp_path / "t.csv", index=False)
    code, _out, err = run(
        ["report", tmp_path / "t.csv", "--target", "y", "--score", "p,q", "-o", tmp_path / "r.html"], capsys
    )
    assert code == 0, err
    df.loc[5, "q"] = np.nan
    df.to_csv(tmp_path / "t.csv", index=False)
    code, _out, err = run(
        ["report", tmp_path / "t.csv", "--target", "y", "--score", "p,q", "-o", tmp_path / "r.html"], capsys
    )
    assert code == 1 and err.endswith(f"t.csv, line 7: the score column 'q' {EMPTY}\n"), err


@pytest.mark.parametrize("chunk", [32, 1 << 20])
def test_graded_targets_and_label_columns_in_the_files_order(tmp_path, capsys, small_chunks, chunk):
    """A grade below 0 (ranking measures) or a label column's 2 on line 3 comes before an empty field
    of the same column on line 6, read whole as in chunks."""
    small_chunks["bytes"] = chunk
    df = frame()
    df["y"] = df["y"].astype(object)
    df.loc[1, "y"], df.loc[4, "y"] = -1, None
    df.to_csv(tmp_path / "t.csv", index=False)
    argv = ["--target", "y", "--score", "p", "--group", "user", "-m", "ndcg@5"]
    for code, _out, err in both(tmp_path / "t.csv", argv, capsys):
        assert code == 1 and "t.csv, line 3: the target column 'y' holds -1.0" in err, err
    df.loc[1, "y"] = 1
    df.to_csv(tmp_path / "t.csv", index=False)
    for code, _out, err in both(tmp_path / "t.csv", argv, capsys):
        assert code == 1 and err.endswith(f"t.csv, line 6: the target column 'y' {EMPTY}\n"), err
    pd = pytest.importorskip("pandas")
    ml = pd.DataFrame({"y_a": [0, 1] * 5, "y_b": [1, 0] * 5, "p_a": np.linspace(0, 1, 10), "p_b": 0.5})
    ml["y_a"] = ml["y_a"].astype(object)
    ml.loc[1, "y_a"], ml.loc[4, "y_a"] = 2, None
    ml.to_csv(tmp_path / "m.csv", index=False)
    for code, _out, err in both(tmp_path / "m.csv", ["--label-prefix", "y_", "--score-prefix", "p_"], capsys):
        assert code == 1 and "m.csv, line 3: the label column 'y_a' holds 2;" in err, err


# -- the long form streamed, and on Dask ----------------------------------------------------------------
def long_frame(n: int = 8, seed: int = 1):
    """A long table (a row a case and class), its cases' rows together: streamable."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    classes = ("cat", "dog", "bird")
    w = rng.integers(1, 4, n).astype(float)  # a case's weight and group: the same on each of its rows
    rows = [
        {
            "case": f"c{i}",
            "cls": c,
            "p": round(float(rng.random()), 4),
            "is_true": int(c == classes[i % 3]),
            "note": "n",
            "w": w[i],
            "g": i % 2,
        }
        for i in range(n)
        for c in classes
    ]
    return pd.DataFrame(rows)


LONG = ["--long", "--id", "case", "--class", "cls", "--score", "p", "--target", "is_true"]


@pytest.mark.parametrize("chunk", [32, 1 << 20])
def test_long_stream_empty_fields(tmp_path, capsys, small_chunks, chunk):
    """--long read whole and --long --stream (in chunks that cut cases, carried on): an empty field
    of a column not used keeps its row (the numbers of the file without it); of a column used (the
    case's, the class's too), one line naming its line; in the file's order among the bad values."""
    small_chunks["bytes"] = chunk
    df = long_frame()
    df.to_csv(tmp_path / "clean.csv", index=False)
    d = df.copy()
    d["note"], d["g"] = d["note"].astype(object), d["g"].astype(object)
    d.loc[[4, 17], "note"], d.loc[10, "g"] = None, None
    d.to_csv(tmp_path / "t.csv", index=False)
    for more in (["--weight", "w"], []):
        argv = [*LONG, *more, "-m", "roc,logloss", "--format", "json"]
        want = [json.loads(out)["measures"] for _c, out, _e in both(tmp_path / "clean.csv", argv, capsys)]
        outs = both(tmp_path / "t.csv", argv, capsys)
        assert [c for c, _o, _e in outs] == [0, 0], outs
        assert [json.loads(out)["measures"] for _c, out, _e in outs] == want
    for column, role in (
        ("case", "id"),
        ("cls", "class"),
        ("p", "score"),
        ("is_true", "target"),
        ("w", "weight"),
        ("g", "group"),
    ):
        d = df.copy()
        d[column] = d[column].astype(object)
        d.loc[13, column] = None
        d.to_csv(tmp_path / "t.csv", index=False)
        argv = [*LONG, "--weight", "w", "--group", "g", "-m", "roc"]
        for code, out, err in both(tmp_path / "t.csv", argv, capsys):
            said = f"t.csv, line 15: the {role} column {column!r} {EMPTY}\n"
            assert code == 1 and out == "" and err.endswith(said) and err.count("\n") == 1, err
    for cells, said in (
        ({(5, "p"): "abc", (13, "case"): None}, "line 7: the score column 'p' holds 'abc', not a number"),
        ({(5, "cls"): None, (13, "w"): -1.0}, f"line 7: the class column 'cls' {EMPTY}"),
        ({(5, "case"): None, (13, "p"): "abc"}, f"line 7: the id column 'case' {EMPTY}"),
    ):
        d = df.copy()
        for (row, column), value in cells.items():
            d[column] = d[column].astype(object)
            d.loc[row, column] = value
        d.to_csv(tmp_path / "t.csv", index=False)
        for code, _out, err in both(tmp_path / "t.csv", [*LONG, "--weight", "w", "-m", "roc"], capsys):
            assert code == 1 and f"t.csv, {said}" in err and err.count("\n") == 1, err


def test_dask_long_empty_fields(tmp_path, capsys):
    """--long --dask: an empty field of a column not used is no error (the numbers of memory), an
    integer column's past the rows Dask types a column by too; an empty case or group id, class,
    target, score or weight is refused in one line naming the file, the line and the column as the
    table read whole does (the file streamed again; an empty id is no case or group of its own, an
    empty class no class), past those rows too."""
    df = long_frame()
    d = df.copy()
    d["note"], d["g"] = d["note"].astype(object), d["g"].astype(object)
    d.loc[[4, 17], "note"], d.loc[20, "g"] = None, None  # g: integers, typed so by the first rows
    d.to_csv(tmp_path / "n.csv", index=False)
    argv = [*LONG, "--weight", "w", "-m", "roc,logloss", "--format", "json"]
    code, want, err = run(["eval", tmp_path / "n.csv", *argv], capsys)
    assert code == 0, err
    code, got, err = run(["eval", tmp_path / "n.csv", *argv, "--dask", "local:1"], capsys)
    assert code == 0, err
    assert json.loads(got)["measures"] == json.loads(want)["measures"]
    for row, column in (
        (7, "case"),
        (20, "case"),
        (7, "g"),
        (7, "cls"),
        (20, "cls"),
        (7, "is_true"),
        (20, "is_true"),
        (7, "p"),
        (7, "w"),
    ):
        d = df.copy()
        d[column] = d[column].astype(object)
        d.loc[row, column] = None
        d.to_csv(tmp_path / "t.csv", index=False)
        argv = [*LONG, "--weight", "w", "--group", "g", "-m", "roc"]
        code, out, err = run(["eval", tmp_path / "t.csv", *argv, "--dask", "local:1"], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1, err
        # as the table read whole says it, with its line (the file streamed again): memory's line
        code, _, mem = run(["eval", tmp_path / "t.csv", *argv], capsys)
        assert code == 1 and err == mem and ", line " in mem and f"column '{column}'" in mem, err


def test_dask_reads_an_integer_column_not_used_whatever_it_holds_past_its_first_rows(tmp_path, capsys):
    """Dask types a CSV's column by its first rows: an integer column the run does not use holding an
    empty field further on is no error (its rows kept); one it uses is one line naming the file and
    the column (the target: its line, the file read again streamed), never an internal error."""
    df = frame(40)
    df.to_csv(tmp_path / "clean.csv", index=False)
    d = df.copy()
    d["user"] = d["user"].astype(object)
    d.loc[25, "user"] = None
    d.to_csv(tmp_path / "t.csv", index=False)
    for more in (["-m", "roc,ap"], ["--group", "doc", "-m", "gauc,roc"]):
        argv = ["--target", "y", "--score", "p", *more, "--format", "json", "--dask", "local:1"]
        code, out, err = run(["eval", tmp_path / "t.csv", *argv], capsys)
        assert code == 0, err
        code, clean, err = run(["eval", tmp_path / "clean.csv", *argv], capsys)
        assert code == 0, err
        assert json.loads(out)["measures"] == json.loads(clean)["measures"]
    d = df.copy()
    d["y"] = d["y"].astype(object)
    d.loc[25, "y"] = None
    d.to_csv(tmp_path / "t.csv", index=False)
    for more, said in (
        # a column of numbers, float64 whatever its first rows hold: NaN, or (an empty field kept
        # after an identity's) pandas' error, the file read again for its line
        ([], "t.csv, line 27: the target column 'y' is empty: a missing value; drop the row or fill it"),
        (["--group", "user"], "t.csv, line 27: the target column 'y' is empty"),
    ):
        argv = ["--target", "y", "--score", "p", *more, "-m", "roc", "--dask", "local:1"]
        code, out, err = run(["eval", tmp_path / "t.csv", *argv], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1 and said in err, err


# -- a regression target --------------------------------------------------------------------------------
def regression_frame(n: int = 12, seed: int = 5):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    y = np.round(rng.lognormal(3, 0.4, n), 3)
    return pd.DataFrame(
        {
            "price": y,
            "pred": np.round(y * rng.normal(1, 0.1, n), 3),
            "note": [f"n{k}" for k in range(n)],
            "w": rng.integers(1, 4, n).astype(float),
            "g": [k % 3 for k in range(n)],
        }
    )


@pytest.mark.parametrize("chunk", [32, 1 << 20])
def test_regression_empty_fields(tmp_path, capsys, small_chunks, chunk):
    """A regression target read whole and streamed: an empty field of a column not used keeps its
    row (the numbers of the file without it); of the target, the prediction, the weight or the
    group, one line naming its line; in the file's order among the bad values, the auto-recognised
    target too."""
    small_chunks["bytes"] = chunk
    df = regression_frame()
    df.to_csv(tmp_path / "clean.csv", index=False)
    d = df.copy()
    d["note"], d["g"] = d["note"].astype(object), d["g"].astype(object)
    d.loc[[2, 9], "note"], d.loc[5, "g"] = None, None
    d.to_csv(tmp_path / "t.csv", index=False)
    argv = ["--target", "price", "--score", "pred", "--weight", "w", "-m", "mae,rmse,r2", "--format", "json"]
    want = [json.loads(out)["measures"] for _c, out, _e in both(tmp_path / "clean.csv", argv, capsys)]
    outs = both(tmp_path / "t.csv", argv, capsys)
    assert [c for c, _o, _e in outs] == [0, 0], outs
    assert [json.loads(out)["measures"] for _c, out, _e in outs] == want
    code, out, err = run(["eval", tmp_path / "t.csv", "--target", "price", "--score", "pred"], capsys)
    assert code == 0 and "regression (the target column 'price'" in err, err
    for column, role in (("price", "target"), ("pred", "score"), ("w", "weight"), ("g", "group")):
        d = df.copy()
        d[column] = d[column].astype(object)
        d.loc[6, column] = None
        d.to_csv(tmp_path / "t.csv", index=False)
        said = f"t.csv, line 8: the {role} column {column!r} {EMPTY}\n"
        argv = ["--target", "price", "--score", "pred", "--weight", "w", "-m", "mae"]
        runs = both(tmp_path / "t.csv", [*argv, "--group", "g"], capsys)
        if column != "g":
            runs += both(tmp_path / "t.csv", argv, capsys)
        if column in ("price", "pred"):  # the auto-recognised target
            runs.append(run(["eval", tmp_path / "t.csv", "--target", "price", "--score", "pred"], capsys))
        for code, out, err in runs:
            assert code == 1 and out == "" and err.endswith(said) and err.count("\n") == 1, err
    for cells, said in (
        (
            {(1, "pred"): "abc", (4, "price"): None},
            "line 3: the score column 'pred' holds 'abc', not a number",
        ),
        ({(1, "price"): "inf", (4, "price"): None}, "line 3: the target column 'price' holds inf"),
        ({(1, "price"): None, (4, "w"): -1.0}, f"line 3: the target column 'price' {EMPTY}"),
        ({(1, "w"): -1.0, (4, "pred"): None}, "line 3: the weight column 'w' holds -1.0"),
        ({(1, "g"): None, (4, "pred"): "abc"}, f"line 3: the group column 'g' {EMPTY}"),
    ):
        d = df.copy()
        for (row, column), value in cells.items():
            d[column] = d[column].astype(object)
            d.loc[row, column] = value
        d.to_csv(tmp_path / "t.csv", index=False)
        argv = ["--target", "price", "--score", "pred", "--weight", "w", "--group", "g", "-m", "mae"]
        for code, _out, err in both(tmp_path / "t.csv", argv, capsys):
            assert code == 1 and f"t.csv, {said}" in err and err.count("\n") == 1, err
