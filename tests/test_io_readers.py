"""One reader a format (perfeval.io.readers): whole files, chunks and Dask partitions read by the same
reader (issue 31)."""

from __future__ import annotations

import json

import pytest

from perfeval.exceptions import PerfError
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
