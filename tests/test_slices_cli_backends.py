"""``perfeval eval --by`` with ``--stream`` and ``--dask``: the output read whole, byte for byte (the
signature's backend apart), as text, JSON and CSV; the slice columns read as in memory (identities,
an empty field a missing value, a column of integers and text text throughout), their errors at
the same file lines.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from perfeval.io import readers


@pytest.fixture
def small_chunks(monkeypatch):
    """The streamed reader in chunks of 64 bytes: every slice's rows over several chunks."""
    inner = readers.iter_columns

    def chunked(*a, **k):
        k["chunk_bytes"] = 64
        yield from inner(*a, **k)

    import perfeval.cli.commands.eval as eval_command

    monkeypatch.setattr(readers, "iter_columns", chunked)
    monkeypatch.setattr(eval_command, "iter_columns", chunked)


def _table(tmp_path, n: int = 300, seed: int = 5, empty: bool = False) -> str:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.random(n), 2)
    region = rng.choice(["north", "south", "east", "isle"], n, p=[0.4, 0.3, 0.28, 0.02])
    age = rng.choice(["18-29", "30-49", "50+"], n)
    user = (2**62 + rng.integers(0, 3, n)).astype(np.int64)  # 64-bit ids
    q = rng.integers(0, 25, n)
    w = rng.integers(0, 4, n)  # weight 0 among them
    lines = ["y,s,region,age,user,q,w"]
    for k in range(n):
        r = "" if empty and k % 37 == 5 else region[k]
        lines.append(f"{y[k]},{s[k]},{r},{age[k]},{user[k]},{q[k]},{w[k]}")
    path = tmp_path / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _without_signature(out: str) -> str:
    return "\n".join(line for line in out.splitlines() if not line.startswith("signature: "))


def _outputs(argv: list[str], backends: list[list[str]], capsys) -> list[tuple[int, str, str]]:
    return [run_cli(["eval", *argv, *extra], capsys) for extra in backends]


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
@pytest.mark.parametrize(
    "extra",
    [
        ["-m", "roc,ap,acc,selrate"],
        ["-m", "roc,ap,brier", "--weight", "w"],
        ["-m", "ndcg,map,gauc", "--group", "q"],
        ["-m", "roc,apr", "--by", "user", "--min-size", "20"],
    ],
)
def test_streamed_slices_are_the_slices_read_whole(tmp_path, capsys, small_chunks, fmt, extra):
    path = _table(tmp_path)
    argv = [path, "--target", "y", "--score", "s", "--by", "region,age", "--intersections", "--format", fmt]
    (c0, out0, err0), (c1, out1, err1) = _outputs([*argv, *extra], [[], ["--stream"]], capsys)
    assert c0 == 0 and c1 == 0, (err0, err1)
    assert err0 == err1
    if fmt == "json":
        a, b = json.loads(out0), json.loads(out1)
        assert a["slices"] == b["slices"] and a["measures"] == b["measures"]
        assert len(a["slices"]["slicings"]) == 3 + ("--by" in extra) * 4
    else:
        assert _without_signature(out0) == _without_signature(out1)
        assert "slices by region x age" in out0 or fmt == "csv"


def test_empty_fields_are_missing_values_streamed_too(tmp_path, capsys, small_chunks):
    path = _table(tmp_path, empty=True)
    argv = [path, "--target", "y", "--score", "s", "--by", "region", "-m", "roc"]
    (c0, out0, err0), (c1, out1, err1) = _outputs(argv, [[], ["--stream"]], capsys)
    assert c0 == c1 == 1 and out0 == out1 == ""
    assert err0 == err1 and "line 7" in err0 and "--missing-slice" in err0 and err0.count("\n") == 1
    (c0, out0, err0), (c1, out1, err1) = _outputs([*argv, "--missing-slice"], [[], ["--stream"]], capsys)
    assert c0 == c1 == 0 and "<missing>" in out0
    assert _without_signature(out0) == _without_signature(out1)


def test_a_column_of_integers_then_text_is_text_throughout(tmp_path, capsys, small_chunks):
    """Chunk by chunk a column is int64 while every value is a plain integer; read whole, text when
    one value is not: the streamed keys are the text, as read whole (7 and '7' one slice)."""
    rows = [f"{k % 2},{(k * 37 % 100) / 100},{k % 3 + 7}" for k in range(60)]
    rows += [f"{k % 2},{(k * 53 % 100) / 100},{'abc' if k % 4 else '7'}" for k in range(60)]
    path = tmp_path / "ids.csv"
    path.write_text("y,s,site\n" + "\n".join(rows) + "\n")
    argv = [str(path), "--target", "y", "--score", "s", "--by", "site", "-m", "roc", "--format", "json"]
    (c0, out0, _), (c1, out1, _) = _outputs(argv, [[], ["--stream"]], capsys)
    assert c0 == c1 == 0
    a, b = json.loads(out0)["slices"], json.loads(out1)["slices"]
    assert a == b
    assert [s["slice"] for s in a["slicings"][0]["slices"]] == ["7", "8", "9", "abc"]


def test_by_column_errors_are_the_same_streamed(tmp_path, capsys, small_chunks):
    path = _table(tmp_path)
    for extra, said in (
        (["--by", "nope"], "column 'nope': no such column in"),
        (["--by", "y"], "--by 'y' is the target column"),
        (["--by", "s"], "--by 's' is the score column"),
    ):
        argv = [path, "--target", "y", "--score", "s", "-m", "roc", *extra]
        (c0, _, err0), (c1, _, err1) = _outputs(argv, [[], ["--stream"]], capsys)
        assert c0 == c1 == 2 and err0 == err1 and said in err0, (err0, err1)


def test_dask_slices_are_the_slices_read_whole(tmp_path, capsys):
    pytest.importorskip("distributed")
    path = _table(tmp_path, empty=True)
    argv = [path, "--target", "y", "--score", "s", "--by", "region,age,user", "--intersections"]
    argv += ["--missing-slice", "-m", "roc,ap", "--format", "json"]
    (c0, out0, err0), (c1, out1, err1) = _outputs(argv, [[], ["--dask", "local:1"]], capsys)
    assert c0 == c1 == 0, (err0, err1)
    a, b = json.loads(out0), json.loads(out1)
    assert a["slices"] == b["slices"] and a["measures"] == b["measures"]
    (c0, out0, _), (c1, out1, _) = _outputs(
        [*argv[:-2], "--format", "table", "--weight", "w"], [[], ["--dask", "local:1"]], capsys
    )
    assert c0 == c1 == 0 and _without_signature(out0) == _without_signature(out1)


def test_a_parquet_boolean_column_slices_as_pandas_wrote_it(tmp_path, capsys):
    # pandas writes a boolean column as True/False in a CSV and as a boolean in Parquet: the slices of
    # both were False/True on Dask and from the CSV, 0/1 from the Parquet read whole or streamed
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    n = 200
    df = pd.DataFrame(
        {"y": rng.integers(0, 2, n), "s": np.round(rng.random(n), 2), "member": rng.random(n) < 0.4}
    )
    df.to_parquet(tmp_path / "t.parquet", index=False)
    df.to_csv(tmp_path / "t.csv", index=False)
    argv = ["--target", "y", "--score", "s", "--by", "member", "-m", "roc", "--format", "json"]
    backends = [[str(tmp_path / "t.parquet")], [str(tmp_path / "t.parquet"), "--stream"]]
    backends.append([str(tmp_path / "t.csv")])
    outs = [run_cli(["eval", *argv, *extra], capsys) for extra in backends]
    for code, out, err in outs:
        assert code == 0, err
        keys = [s["slice"] for s in json.loads(out)["slices"]["slicings"][0]["slices"]]
        assert keys == ["False", "True"], keys
    grouped = ["--target", "y", "--score", "s", "-m", "roc", "--group", "member", "--per-group"]
    code, out, err = run_cli(["eval", str(tmp_path / "t.parquet"), *grouped], capsys)
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()[-2:]] == ["False", "True"]


def _parquet_with_nulls(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(11)
    n = 240
    k = np.arange(n)
    country = rng.choice(["FR", "DE", "US"], n).astype(object)
    country[k % 17 == 4] = None
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), 2),
            "country": country,
            "zone": pd.array(np.where(k % 23 == 7, None, k % 11 + 1), dtype="Int64"),
            "flag": pd.array(np.where(k % 29 == 9, None, k % 2 == 0), dtype="boolean"),
        }
    )
    path = tmp_path / "t.parquet"
    df.to_parquet(path, index=False, row_group_size=50)  # nulls in several row groups
    return str(path)


def test_parquet_nulls_in_slice_columns_are_the_missing_slice_on_every_backend(tmp_path, capsys):
    # a null in a Parquet slice column was refused streamed ("every row needs one", no word of
    # --missing-slice) and read as the float 'nan' on Dask, even with --missing-slice
    pytest.importorskip("distributed")
    path = _parquet_with_nulls(tmp_path)
    argv = [path, "--target", "y", "--score", "s", "--by", "country,zone,flag", "--intersections"]
    argv += ["--missing-slice", "-m", "roc,selrate", "--format", "json"]
    outs = _outputs(argv, [[], ["--stream"], ["--dask", "local:1"]], capsys)
    for code, _out, err in outs:
        assert code == 0, err
    sliced = [json.loads(out)["slices"] for _c, out, _e in outs]
    assert sliced[0] == sliced[1] == sliced[2]
    keys = {s["slicing"]: [x["slice"] for x in s["slices"]] for s in sliced[0]["slicings"]}
    assert keys["country"] == ["DE", "FR", "US", "<missing>"]
    assert keys["zone"] == [*range(1, 12), "<missing>"]
    assert keys["flag"] == ["False", "True", "<missing>"]


def test_parquet_nulls_in_slice_columns_are_refused_alike_without_missing_slice(tmp_path, capsys):
    pytest.importorskip("distributed")
    path = _parquet_with_nulls(tmp_path)
    argv = [path, "--target", "y", "--score", "s", "--by", "country", "-m", "roc"]
    outs = _outputs(argv, [[], ["--stream"], ["--dask", "local:1"]], capsys)
    for code, out, err in outs:
        assert code == 1 and out == "", err
        line = err.strip().splitlines()[-1]
        assert "by column 'country' holds a missing value" in line and "--missing-slice" in line, line
    assert outs[0][2] == outs[1][2]  # streamed: memory's row


def test_a_parquet_text_column_of_digits_slices_as_text_on_dask_too(tmp_path, capsys):
    # Parquet keeps text as text (memory, streamed): Dask made its digits integers, other slices
    pd = pytest.importorskip("pandas")
    pytest.importorskip("distributed")
    k = np.arange(120)
    code = (k % 11 + 1).astype(str).astype(object)
    gapped = code.copy()
    gapped[k % 13 == 2] = None
    df = pd.DataFrame({"y": k % 2, "s": np.round((k * 37 % 101) / 101, 2), "code": code, "gapped": gapped})
    df.to_parquet(tmp_path / "t.parquet", index=False)
    argv = [str(tmp_path / "t.parquet"), "--target", "y", "--score", "s", "--by", "code,gapped"]
    argv += ["--missing-slice", "-m", "roc", "--format", "json"]
    outs = _outputs(argv, [[], ["--dask", "local:1"]], capsys)
    assert [c for c, _o, _e in outs] == [0, 0], [e for _c, _o, e in outs]
    a, b = (json.loads(out)["slices"] for _c, out, _e in outs)
    assert a == b
    assert [s["slice"] for s in a["slicings"][0]["slices"]][:3] == ["1", "10", "11"]


def test_a_csv_integer_slice_column_with_empty_fields_slices_as_integers_on_every_backend(
    tmp_path, capsys, small_chunks
):
    # an empty field made the column text: its slices came as '1', '10', '11', '2', ... (the text's
    # order), while the same column from Parquet (nulls) gave the integers 1, 2, ..., 11
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("distributed")
    path = _parquet_with_nulls(tmp_path)
    df = pd.read_parquet(path)[["y", "s", "zone"]]
    df.to_csv(tmp_path / "t.csv", index=False)  # a null: an empty field
    assert ",\n" in (tmp_path / "t.csv").read_text()
    argv = ["--target", "y", "--score", "s", "--by", "zone", "-m", "roc", "--format", "json"]
    sources = [[path], [str(tmp_path / "t.csv")]]
    outs = [
        run_cli(["eval", *src, *argv, "--missing-slice", *extra], capsys)
        for src in sources
        for extra in ([], ["--stream"], ["--dask", "local:1"])
    ]
    for code, _out, err in outs:
        assert code == 0, err
    sliced = [json.loads(out)["slices"] for _c, out, _e in outs]
    keys = [x["slice"] for x in sliced[0]["slicings"][0]["slices"]]
    assert keys == [*range(1, 12), "<missing>"]
    assert all(s == sliced[0] for s in sliced[1:])
    for extra in ([], ["--stream"], ["--dask", "local:1"]):  # without --missing-slice: memory's line
        code, out, err = run_cli(["eval", str(tmp_path / "t.csv"), *argv, *extra], capsys)
        assert code == 1 and out == ""
        line = err.strip().splitlines()[-1]
        assert "by column 'zone' holds a missing value" in line and "--missing-slice" in line, line


def test_a_nan_slice_says_the_measure_s_own_reason_in_memory_and_streamed(tmp_path, capsys):
    """A slice's NaN says the reason the measure gives (its warning's words evaluated alone), not the
    registry's edge cases: a regression measure, and the binary ones, in memory and streamed alike."""
    reg = tmp_path / "reg.csv"
    reg.write_text("y,p,c\n1,1.1,a\n0,0.3,a\n2,2.5,a\n3,2.0,b\n4,4.4,b\n5,5.1,b\n")
    code, out, err = run_cli(
        ["eval", str(reg), "--target", "y", "--score", "p", "-m", "mae,mape", "--by", "c"], capsys
    )
    assert code == 0, err
    assert "(a: MAPE n/a: undefined in this slice (3 cases): 1 target is 0 or below 2.2e-16 in size" in out
    assert "eps=none" not in out  # the registry's edge cases
    binary = tmp_path / "bin.csv"
    binary.write_text("y,s,c\n1,0.1,a\n1,0.3,a\n0,0.5,a\n1,0.2,b\n0,0.4,b\n1,0.1,b\n1,.5,d\n")
    argv = [
        "eval",
        str(binary),
        "--target",
        "y",
        "--score",
        "s",
        "-m",
        "roc,cal_slope,rec_at_pre",
        "--by",
        "c",
    ]
    outs = []
    for extra in ([], ["--stream"]):
        code, out, err = run_cli([*argv, *extra], capsys)
        assert code == 0, err
        outs.append(out.replace("backend:stream", "backend:memory"))
    assert outs[0] == outs[1]
    assert "(a: CAL_SLOPE n/a: undefined in this slice (2 positives, 1 negative): the scores separate" in out
    assert "(b: REC_AT_PRE n/a: undefined in this slice (2 positives, 1 negative): no threshold gives" in out
    assert "(d: ROC, CAL_SLOPE n/a: undefined in this slice (1 positive, no negative): one class only" in out
