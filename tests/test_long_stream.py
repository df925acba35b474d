"""`perfeval eval --long --stream`: a long table (a row a case and class) read in chunks, each chunk's
whole cases pivoted by the in-memory pivot (perfeval.engine.long) and a case whose rows run past a
chunk's end carried into the next: the numbers of `--long` in memory bit for bit (ties, weights,
groups, text and integer classes, 64-bit case ids), every bad input the same kind of one line naming
its line, and a case whose rows are not together one line saying to sort the file or drop --stream.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import perfeval.cli.commands.eval as command
import perfeval.io.readers as readers
from conftest import run_cli

LONG = ["--long", "--id", "case", "--class", "cls", "--score", "p", "--target", "y"]


@pytest.fixture
def tiny(monkeypatch):
    """Chunks of 64 bytes (two or three lines): nearly every case's rows run past a chunk's end."""
    inner, chunks = readers.iter_columns, []

    def small(*a, **k):
        k["chunk_bytes"] = 64
        for c in inner(*a, **k):
            chunks.append(1)
            yield c

    monkeypatch.setattr(readers, "iter_columns", small)
    return chunks


def _long_table(seed: int, n: int, classes: list, *, marker: bool, weights: bool, groups: bool, ids: str):
    """A random long table, the cases' rows together (each case's classes in a random order)."""
    rng = np.random.default_rng(seed)
    k = len(classes)
    y = rng.integers(0, k, n)
    s = np.round(rng.random((n, k)), 1)  # ties within each class's column and at the argmax
    if ids == "int64":
        case = (np.int64(2) ** 62 + rng.permutation(10 * n)[:n]).astype(object)  # past float64's integers
    else:  # whole runs of integer ids and of text ids: some chunks read as int64, others as text
        case = np.array(
            [str(i) if (i // 7) % 2 else f"c{i}" for i in rng.permutation(10 * n)[:n]], dtype=object
        )
    w = np.round(rng.random(n) * 3, 2) * (rng.random(n) > 0.15) if weights else None  # zeros, non-dyadic
    g = rng.choice(["u1", "u2", "u3", "7"], n) if groups else None
    rows = []
    for i in range(n):
        for j in rng.permutation(k):
            row = {"case": case[i], "cls": classes[j], "p": s[i, j]}
            row["y"] = int(j == y[i]) if marker else classes[y[i]]
            if w is not None:
                row["w"] = w[i]
            if g is not None:
                row["g"] = g[i]
            rows.append(row)
    return pd.DataFrame(rows)


def _run(argv, capsys):
    code, out, err = run_cli([str(a) for a in argv], capsys)
    assert code == 0, err
    return json.loads(out)


def _same(memory: dict, streamed: dict) -> None:
    assert (
        streamed["measures"] == memory["measures"]
    )  # every value, per class and per group: repr, bit for bit
    for p in ("classes", "classes_from", "target_form", "cases", "columns", "weighted"):
        assert streamed["params"][p] == memory["params"][p], p
    assert streamed["params"]["backend"] == "stream" and memory["params"]["backend"] == "memory"


MEASURES = "roc_ovr,roc_ovo,ap_ovr,logloss_mc,brier_mc,acc_mc,f_mc,mcc,topk_acc:k=2"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("marker", [False, True])
@pytest.mark.parametrize("weights", [False, True])
def test_streamed_is_memory_bit_for_bit(tmp_path, capsys, tiny, seed, marker, weights):
    classes = [["cat", "dog", "bird"], [0, 1, 2, 3], ["b", "a"]][seed % 3]
    df = _long_table(
        seed, 40, classes, marker=marker, weights=weights, groups=False, ids=["int64", "mixed"][seed % 2]
    )
    f = tmp_path / "long.csv"
    df.to_csv(f, index=False)
    argv = ["eval", f, *LONG, "-m", MEASURES, "--format", "json"] + (["--weight", "w"] if weights else [])
    for given in ([], ["--classes", ",".join(map(str, classes))]):
        memory = _run([*argv, *given], capsys)
        del tiny[:]
        streamed = _run([*argv, *given, "--stream"], capsys)
        assert len(tiny) > 20  # read in many chunks: cases cut by a chunk's end
        _same(memory, streamed)
        assert streamed["params"]["target_form"].startswith("0/1 marker" if marker else "labels")


@pytest.mark.parametrize("seed", range(3))
def test_streamed_per_group_is_memory_bit_for_bit(tmp_path, capsys, tiny, seed):
    df = _long_table(
        seed, 45, ["cat", "dog", "bird"], marker=bool(seed % 2), weights=True, groups=True, ids="int64"
    )
    f = tmp_path / "long.csv"
    df.to_csv(f, index=False)
    argv = [
        "eval",
        f,
        *LONG,
        "--weight",
        "w",
        "--group",
        "g",
        "-m",
        "roc_ovr,acc_mc,logloss_mc",
        "--format",
        "json",
    ]
    memory = _run(argv, capsys)
    streamed = _run([*argv, "--stream"], capsys)
    _same(memory, streamed)
    assert set(streamed["measures"]["ROC_OVR:average=macro"]["per_group"]) == {"u1", "u2", "u3", "7"}
    # the confusion over every case, folded as the cases are read
    a = _run([*argv, "--confusion"], capsys)
    b = _run([*argv, "--confusion", "--stream"], capsys)
    assert a["confusion"] == b["confusion"]


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_streamed_parquet_and_json_lines_are_memory_bit_for_bit(tmp_path, capsys, tiny, fmt):
    pytest.importorskip("pyarrow")
    df = _long_table(6, 30, ["cat", "dog", "bird"], marker=False, weights=True, groups=False, ids="int64")
    df["case"] = df["case"].astype("int64")
    f = tmp_path / f"long.{fmt}"
    if fmt == "parquet":  # row groups of 7 rows: the chunks of the stream, cases cut by their ends
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), f, row_group_size=7)
    else:
        df.to_json(f, orient="records", lines=True)
    argv = ["eval", f, *LONG, "--weight", "w", "-m", MEASURES, "--format", "json"]
    memory = _run(argv, capsys)
    del tiny[:]
    streamed = _run([*argv, "--stream"], capsys)
    assert len(tiny) > 10
    _same(memory, streamed)
    bad = df.copy()
    bad.loc[40, "case"] = bad.loc[0, "case"]  # row 41 (line 41): the first case again
    if fmt == "parquet":
        pq.write_table(pa.Table.from_pandas(bad, preserve_index=False), f, row_group_size=7)
    else:
        bad.to_json(f, orient="records", lines=True)
    code, out, err = run_cli([str(a) for a in [*argv, "--stream"]], capsys)
    where = "row 41" if fmt == "parquet" else "line 41"
    assert code == 1 and err.startswith(
        f"perfeval: error: {f}, {where}: case {df.loc[0, 'case']} (column 'case') appears again"
    )


def test_streamed_confusion_and_text_output(tmp_path, capsys, tiny):
    df = _long_table(9, 30, ["cat", "dog", "bird"], marker=False, weights=False, groups=False, ids="int64")
    f = tmp_path / "long.csv"
    df.to_csv(f, index=False)
    argv = ["eval", f, *LONG, "--confusion"]
    code, memory, err = run_cli([str(a) for a in argv], capsys)
    assert code == 0, err
    code, streamed, err = run_cli([str(a) for a in argv] + ["--stream"], capsys)
    assert code == 0, err
    assert streamed == memory.replace("backend:memory", "backend:stream")


def test_a_large_long_file_streams_as_a_wide_one(tmp_path, capsys, monkeypatch):
    """A file over the stream's size is streamed with --long too (it was read whole), and one whose
    cases' rows are not together is read whole, said in a note (streamed it would be refused)."""
    monkeypatch.setattr(command, "STREAM_BYTES", 0)  # every file is large
    df = _long_table(2, 25, ["cat", "dog", "bird"], marker=True, weights=False, groups=False, ids="int64")
    f = tmp_path / "long.csv"
    df.to_csv(f, index=False)
    argv = ["eval", f, *LONG, "--format", "json"]
    got = _run(argv, capsys)
    assert got["params"]["backend"] == "stream"
    shuffled = tmp_path / "shuffled.csv"
    df.sample(frac=1.0, random_state=3).to_csv(shuffled, index=False)
    argv = [str(a) for a in ["eval", shuffled, *LONG, "--format", "json"]]
    code, out, err = run_cli(argv, capsys)
    assert code == 0
    assert err.startswith(f"perfeval: note: {shuffled}: case ") and "read whole, not streamed" in err
    assert err.count("\n") == 1
    monkeypatch.setattr(command, "STREAM_BYTES", 1 << 30)
    code, memory, err = run_cli(argv, capsys)
    assert code == 0 and err == "" and out == memory and json.loads(out)["params"]["backend"] == "memory"


HEAD = "case,cls,p,y\n"
GOOD = "1,a,0.5,a\n1,b,0.5,a\n"


@pytest.mark.parametrize(
    "rows, line, message",
    [
        (  # the rows of case 1 come back after case 2's
            GOOD + "2,a,0.1,b\n2,b,0.9,b\n1,c,0.5,a\n",
            6,
            "case 1 (column 'case') appears again, after other cases' rows: --stream pivots a case's rows "
            "together; sort the file by case (its rows next to each other) or drop --stream",
        ),
        (
            GOOD + "2,a,0.1,b\n2,a,0.9,b\n",
            None,
            "case 2 (column 'case') has class 'a' twice (line 4 and line 5): every case needs every class "
            "exactly once",
        ),
        (
            GOOD + "2,a,0.1,b\n3,a,0.2,a\n3,b,0.8,a\n",
            None,
            "case 2 (column 'case', first on line 4) has no row of class b: every case needs every class "
            "exactly once",
        ),
        (
            GOOD + "2,a,0.5,a\n2,b,0.5,b\n",
            None,
            "case 2: the target column 'y' holds 'a' on line 4 and 'b' on line 5: one true class a case (or "
            "a 0/1 marker, 1 on the true class's row)",
        ),
        (
            GOOD + "2,a,0.5,c\n2,b,0.5,c\n",
            4,
            "the target column 'y' holds 'c', which is not one of the 2 classes (a, b; from the distinct "
            "values of the class column 'cls')",
        ),
        (
            GOOD + "2,a,0.5,NA\n2,b,0.5,a\n",
            4,
            "the target column 'y' holds 'NA', a missing value: every row needs a target (drop or fill the "
            "rows without one)",
        ),
        (GOOD + "2,a,0.5,a\n2,b,oops,a\n", 5, "the score column 'p' holds 'oops', not a number"),
        (GOOD + "2,a,0.5,a\n2,b,inf,a\n", 5, "the score column 'p' holds inf"),
        (  # a class the first cases have no row of (the classes found from the column)
            GOOD + "2,a,0.5,a\n2,b,0.5,a\n3,a,0.5,a\n3,b,0.5,a\n3,z,0.5,a\n",
            None,
            "case 3 (column 'case', line 8) has class 'z', which the cases before it have no row of (their "
            "classes: a, b): every case needs every class exactly once",
        ),
    ],
)
def test_each_bad_input_is_one_line_naming_its_line(tmp_path, capsys, tiny, rows, line, message):
    f = tmp_path / "l.csv"
    f.write_text(HEAD + rows)
    errors = []
    for extra in ([], ["--stream"]):
        code, out, err = run_cli([str(a) for a in ["eval", f, *LONG, *extra]], capsys)
        errors.append(err)
        assert out == "" and err.count("\n") == 1
    assert code == 1
    where = f"{f}, line {line}: " if line is not None else f"{f}: "
    assert errors[1].startswith(f"perfeval: error: {where}{message}"), errors[1]
    if "class 'z'" not in message and "appears again" not in message:  # the error of memory
        assert errors[1] == errors[0]


MARKED = "case,cls,p,y\n1,a,0.5,1\n1,b,0.5,0\n2,a,0.1,0\n2,b,0.9,1\n"


@pytest.mark.parametrize(
    "rows, message",
    [
        (
            "3,a,0.5,1\n3,b,0.5,1\n",
            "case 3: the target column 'y', a 0/1 marker of the true class's row, marks 2 rows (line 6, "
            "line 7): exactly one row a case holds 1",
        ),
        (
            "3,a,0.5,0\n3,b,0.5,0\n",
            "case 3: the target column 'y', a 0/1 marker of the true class's row, marks no row: exactly one "
            "row a case holds 1",
        ),
        (  # the first cases read the column as a marker: a later one holding a class is said so
            "3,a,0.5,a\n3,b,0.5,a\n",
            "case 3: the target column 'y' holds 'a' on line 6, not 0 or 1, where the rows before it read as "
            "a 0/1 marker of the true class's row: one way for the whole column (the true class on each row "
            "of a case, or the marker)",
        ),
    ],
)
def test_a_marker_streamed_is_checked_case_by_case(tmp_path, capsys, tiny, rows, message):
    f = tmp_path / "m.csv"
    f.write_text(MARKED + rows)
    errors = []
    for extra in ([], ["--stream"]):
        code, out, err = run_cli([str(a) for a in ["eval", f, *LONG, *extra]], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1
        errors.append(err)
    assert errors[1] == f"perfeval: error: {f}: {message}\n"
    assert errors[0] == errors[1]  # read whole: the same line (the marker's, not line 2's 1, no class)


@pytest.mark.parametrize("col", ["w", "g"])
def test_a_case_whose_rows_disagree_on_its_weight_or_group_streamed(tmp_path, capsys, tiny, col):
    f = tmp_path / "l.csv"
    f.write_text(f"case,cls,p,y,{col}\n1,a,0.5,a,1\n1,b,0.5,a,1\n2,a,0.5,b,2\n2,b,0.5,b,3\n")
    option = ["--weight", "w"] if col == "w" else ["--group", "g"]
    for extra in ([], ["--stream"]):
        code, out, err = run_cli([str(a) for a in ["eval", f, *LONG, *option, *extra]], capsys)
        assert code == 1 and out == ""
        assert err == (  # a weight as written, not the number read (2.0)
            f"perfeval: error: {f}: case 2: the column {col!r} holds '2' on line 4 and '3' on line 5: "
            "it is the case's, the same on each of its rows\n"
        )


def test_a_negative_weight_streamed_names_its_line(tmp_path, capsys, tiny):
    f = tmp_path / "l.csv"
    f.write_text("case,cls,p,y,w\n1,a,0.5,a,1\n1,b,0.5,a,1\n2,a,0.5,b,-1\n2,b,0.5,b,-1\n")
    for extra in ([], ["--stream"]):
        code, out, err = run_cli([str(a) for a in ["eval", f, *LONG, "--weight", "w", *extra]], capsys)
        assert code == 1 and out == ""
        assert err == (
            f"perfeval: error: {f}, line 4: the weight column 'w' holds -1; weights must be finite "
            "numbers >= 0\n"
        )


def test_one_class_streamed_is_the_error_of_memory(tmp_path, capsys, tiny):
    f = tmp_path / "l.csv"
    f.write_text("case,cls,p,y\n1,a,0.5,a\n2,a,0.5,a\n")
    errors = []
    for extra in ([], ["--stream"]):
        code, out, err = run_cli([str(a) for a in ["eval", f, *LONG, *extra]], capsys)
        assert code == 1 and out == ""
        errors.append(err)
    assert (
        errors[0]
        == errors[1]
        == (f"perfeval: error: {f}: the class column 'cls' holds 1 class(es) (a); K classes need K >= 2\n")
    )


def test_standard_input_streams(capsys):
    text = "case,cls,p,y\n1,a,0.2,b\n1,b,0.8,b\n2,a,0.6,a\n2,b,0.4,a\n"
    code, out, err = run_cli(
        ["eval", "-", *LONG, "-m", "acc_mc", "--format", "json", "--stream"], capsys, text
    )
    assert code == 0, err
    got = json.loads(out)
    assert got["measures"]["ACC_MC"]["value"] == 1.0 and got["params"]["cases"] == 2


def test_a_case_read_as_int64_then_as_text_is_one_case():
    """A chunk of plain integer ids is read as int64, one holding text as text: case 7 of the first
    and '7' of a later chunk are one case (as in a table read whole, all text), so its rows there
    are rows of a case seen before."""
    from perfeval.engine.long import Together, runs

    together = Together()
    first = np.array([5, 5, 7, 7], dtype=np.int64)
    assert together.again(first, runs(first)) is None
    together.take(first)
    later = np.array(["x", "x", "7", "8"])
    assert together.again(later, runs(later)) == 2
    text_first, ints_later = Together(), np.array([9, 9, 5], dtype=np.int64)
    text_first.take(np.array(["x", "5"]))
    assert text_first.again(ints_later, runs(ints_later)) == 2
    assert Together().again(np.array([1, 2, 1]), runs(np.array([1, 2, 1]))) == 2  # within one chunk
