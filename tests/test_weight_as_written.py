"""A refused weight is said as the file writes it (``-1``, ``-1e0``), not as the float read (``-1.0``):
CSV, TSV, text and JSON lines, read whole and streamed in chunks of every size (issue 33).
"""

from __future__ import annotations

import pytest

from perfeval.io import readers

NEGATIVE = "weights must be finite numbers >= 0"


@pytest.fixture
def chunks(monkeypatch):
    """The streamed reader in chunks of ``sizes["bytes"]`` bytes."""
    sizes = {"bytes": 1 << 20}
    inner = readers.iter_columns

    def chunked(*a, **k):
        k["chunk_bytes"] = sizes["bytes"]
        yield from inner(*a, **k)

    import perfeval.cli.commands.eval as eval_command

    monkeypatch.setattr(readers, "iter_columns", chunked)
    monkeypatch.setattr(eval_command, "iter_columns", chunked)
    return sizes


def _rows(bad: str) -> list[tuple[str, str, str]]:
    return [("1", "0.9", "1"), ("0", "0.2", "2"), ("1", "0.4", "1"), ("0", "0.3", bad), ("1", "0.6", "3")]


def _write(tmp_path, fmt: str, bad: str):
    rows = _rows(bad)
    if fmt == "jsonl":
        text = "".join(f'{{"y": {y}, "s": {s}, "w": {w}}}\n' for y, s, w in rows)
        return tmp_path / "t.jsonl", text, ["--target", "y", "--score", "s", "--weight", "w"], 4, "w"
    if fmt == "text":
        text = "# a comment\n" + "".join(f"{y} {s}  {w}\n" for y, s, w in rows)
        return tmp_path / "t.txt", text, ["--target", "1", "--score", "2", "--weight", "3"], 5, "column3"
    sep = "\t" if fmt == "tsv" else ","
    quote = '"' if fmt == "quoted" else ""
    text = f"y{sep}s{sep}w\n" + "".join(f"{y}{sep}{s}{sep}{quote}{w}{quote}\n" for y, s, w in rows)
    name = "t.tsv" if fmt == "tsv" else "t.csv"
    return tmp_path / name, text, ["--target", "y", "--score", "s", "--weight", "w"], 5, "w"


@pytest.mark.parametrize("fmt", ["csv", "tsv", "quoted", "text", "jsonl"])
@pytest.mark.parametrize("bad", ["-1", "-1e0", "-0.50"])
@pytest.mark.parametrize("chunk", [24, 1 << 20])
def test_a_negative_weight_is_said_as_written(tmp_path, capsys, chunks, fmt, bad, chunk):
    from conftest import run_cli

    chunks["bytes"] = chunk
    path, text, argv, line, col = _write(tmp_path, fmt, bad)
    path.write_text(text)
    for extra in ([], ["--stream"]):
        code, out, err = run_cli(["eval", str(path), *argv, "-m", "roc", *extra], capsys)
        assert code == 1 and out == ""
        said = f"line {line}: the weight column {col!r} holds {bad}; {NEGATIVE}"
        assert err == f"perfeval: error: {path}, {said}\n"


@pytest.mark.parametrize("chunk", [24, 1 << 20])
def test_a_fractional_count_is_said_as_written(tmp_path, capsys, chunks, chunk):
    from conftest import run_cli

    chunks["bytes"] = chunk
    path, text, argv, line, _col = _write(tmp_path, "csv", "2.50")
    path.write_text(text)
    for extra in ([], ["--stream"]):
        code, out, err = run_cli(["eval", str(path), *argv, "-m", "apr", *extra], capsys)
        assert code == 1 and out == ""
        assert f"line {line}: APR reads weights as counts" in err
        assert "the weight column 'w' holds 2.50; leave APR out" in err


def test_regression_says_a_negative_weight_as_written(tmp_path, capsys):
    from conftest import run_cli

    path = tmp_path / "r.csv"
    path.write_text("y,s,w\n1.5,1.2,1\n0.5,0.7,-3\n2.0,1.9,1\n")
    argv = ["eval", str(path), "--target", "y", "--score", "s", "--weight", "w", "--task", "regression"]
    for extra in ([], ["--stream"]):
        code, _out, err = run_cli([*argv, *extra], capsys)
        assert code == 1 and f"line 3: the weight column 'w' holds -3; {NEGATIVE}" in err, err


def test_parquet_says_the_number_read(tmp_path, capsys):
    """A typed column has no text: the number's repr (an integer column read as float64)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from conftest import run_cli

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"y": [1, 0, 1], "s": [0.9, 0.2, 0.4], "w": [1, -1, 2]}), path)
    code, _out, err = run_cli(["eval", str(path), "--target", "y", "--score", "s", "--weight", "w"], capsys)
    assert code == 1 and f"row 2: the weight column 'w' holds -1.0; {NEGATIVE}" in err, err
