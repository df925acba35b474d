"""One reader a format (perfeval.io.readers): whole files, chunks and Dask partitions read by the same
reader; JSON lines stream as they are read whole (issue 31)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.exceptions import InputFormatError, PerfError
from perfeval.io.readers import READERS, guess_format, iter_columns, read_table
from perfeval.io.tables import numeric


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _whole_and_chunked(path, cols, chunk, ids=()):
    """The picked columns read whole and in chunks of ``chunk`` bytes (lists), or the error said."""
    try:
        t = read_table(
            str(path), identity=(lambda names, header: [names.index(c) for c in ids]) if ids else None
        )
        whole = [
            [str(v) for v in t.columns[c].tolist()] if c in ids else numeric(t, c, t.columns[c], "").tolist()
            for c in cols
        ]
    except PerfError as e:
        whole = str(e)
    try:
        parts = list(iter_columns(str(path), list(cols), chunk_bytes=chunk, ids=[cols.index(c) for c in ids]))
    except PerfError as e:
        return whole, str(e)
    chunked = [
        sum(([str(v) for v in p[k].tolist()] if cols[k] in ids else p[k].tolist() for p in parts), [])
        for k in range(len(cols))
    ]
    return whole, chunked


def test_json_lines_read_in_chunks_give_the_columns_read_whole(tmp_path):
    """Every chunk size, a line end split between two blocks (CR LF), blank lines, ids that are
    integers in one chunk and text in another: the columns read whole."""
    rng = np.random.default_rng(1)
    rows = [
        {
            "y": int(rng.integers(0, 2)),
            "p": round(float(rng.random()), 3),
            "u": int(rng.integers(2**62, 2**62 + 5)),
        }
        for _ in range(40)
    ]
    rows[17]["u"] = "u17"  # text ids: one chunk's ids are text, the others' int64
    lines = [json.dumps(r) for r in rows]
    lines[5:5] = ["", "   "]  # blank lines
    body = ("\r\n".join(lines) + "\r\n").encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(body)
    for chunk in (64, 97, 150, 1 << 20):
        whole, chunked = _whole_and_chunked(path, ("y", "p", "u"), chunk, ids=("u",))
        assert isinstance(whole, list) and chunked == whole, chunk


@pytest.mark.parametrize(
    "bad, says",
    [
        ('{"y": 1, "p": 0.5', "not valid JSON"),
        ("[1, 2]", "expected a JSON object a line"),
        ('{"y": 1}', "the field 'p' is missing"),
        ('{"y": null, "p": 0.5}', "the field 'y' is null"),
        ('{"y": 1, "p": "x"}', "the column 'p' holds 'x', not a number"),
    ],
)
def test_json_lines_errors_name_the_same_line_read_whole_or_in_chunks(tmp_path, bad, says):
    lines = [json.dumps({"y": k % 2, "p": k / 50}) for k in range(30)]
    lines[23] = bad
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    whole, chunked = _whole_and_chunked(path, ("y", "p"), 80)
    assert whole == chunked and f"line 24: {says}" in whole, (whole, chunked)


def test_a_json_field_of_booleans_in_one_chunk_and_numbers_in_another_is_refused(tmp_path):
    """Read whole, such a field is text ('True' is no number); in chunks, each chunk is typed alone:
    the first would read as booleans and the second as numbers, so it is said, not read."""
    lines = [json.dumps({"y": True if k < 20 else k % 2, "p": k / 50}) for k in range(40)]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    whole, _ = _whole_and_chunked(path, ("y", "p"), 1 << 20)
    assert "'True', not a number" in whole
    with pytest.raises(InputFormatError, match="the field 'y' holds true or false only in some blocks"):
        list(iter_columns(str(path), ["y", "p"], chunk_bytes=200))


def test_json_lines_stream_on_the_command_line_as_read_whole(tmp_path, capsys):
    """Issue 31: `perfeval eval file.jsonl --stream` was refused ('JSON lines are read whole', status
    2); binary and per-group measures, labels named by --pos-label: the numbers read whole."""
    from conftest import run_cli

    rng = np.random.default_rng(3)
    rows = [
        {
            "user": int(rng.integers(2**62, 2**62 + 30)),
            "y": str(rng.choice(["click", "no"])),
            "p": float(rng.random()),
        }
        for _ in range(500)
    ]
    path = tmp_path / "t.jsonl"
    path.write_bytes(_jsonl(rows))
    for argv in (
        ["--target", "y", "--pos-label", "click", "-m", "roc,apr,rms"],
        ["--target", "y", "--pos-label", "click", "--group", "user", "-m", "gauc,roc,ndcg"],
    ):
        got = [
            run_cli(["eval", str(path), "--format", "json", *argv, *extra], capsys)
            for extra in ([], ["--stream"])
        ]
        assert got[0][0] == got[1][0] == 0, got
        memory, streamed = (json.loads(g[1]) for g in got)
        assert streamed["measures"] == memory["measures"]
        assert streamed["params"]["rows"] == memory["params"]["rows"] == 500
        assert streamed["params"]["backend"] == "stream"


def test_every_format_is_one_reader_and_the_command_offers_them_all():
    """A new format is a reader in READERS: the command's --input-format takes exactly those names,
    and every reader reads whole files, chunks and Dask partitions."""
    from perfeval.cli.parser import INPUT_FORMATS

    assert sorted(INPUT_FORMATS) == sorted(("auto", *READERS))
    for name, reader in READERS.items():
        assert name in reader.formats
        for way in ("table", "chunks", "partitions"):
            assert getattr(type(reader), way) is not getattr(type(reader).__mro__[-2], way), (name, way)


@pytest.mark.parametrize(
    "path, head, fmt",
    [
        ("a.parquet", b"", "parquet"),
        ("a.pq.gz", b"", "parquet"),
        ("a.ndjson", b"", "jsonl"),
        ("a.JSONL.bz2", b"", "jsonl"),
        ("a.tsv", b"1,2\n", "tsv"),
        ("a.csv.xz", b"1\t2\n", "csv"),
        ("a.dat", b"PAR1....", "parquet"),
        ("a.dat", b'\n  {"y": 1}\n', "jsonl"),
        ("a.dat", b"1\t0.5\n", "tsv"),
        ("a.dat", b"1\t0.5\t\n", "text"),
        ("a.dat", b"1;0.5\n", "csv"),
        ("a.dat", b"1 0.5\n", "text"),
        (None, b"y,p\n", "csv"),
    ],
)
def test_the_format_is_told_by_the_readers_extensions_then_first_bytes(path, head, fmt):
    assert guess_format(path, head) == fmt


def test_a_large_json_lines_file_streams_whether_its_name_or_the_option_tells_its_format(
    tmp_path, capsys, monkeypatch
):
    """A file over the stream's size told JSON lines by its name was sent to the stream and refused
    ('JSON lines are read whole', status 2), while --input-format jsonl read it whole: both stream."""
    import perfeval.cli.commands.eval as command
    from conftest import run_cli

    monkeypatch.setattr(command, "STREAM_BYTES", 0)  # every file is large
    path = tmp_path / "t.jsonl"
    path.write_bytes(_jsonl([{"y": 1, "p": 0.9}, {"y": 0, "p": 0.1}, {"y": 1, "p": 0.4}]))
    for extra in ([], ["--input-format", "jsonl"]):
        code, out, err = run_cli(["eval", str(path), "-m", "roc", "--format", "json", *extra], capsys)
        assert code == 0, err
        got = json.loads(out)
        assert got["params"]["backend"] == "stream" and got["measures"]["ROC"]["value"] == 1.0
