"""TREC qrels and runs (files, compressed files, dicts): read exactly, bad input named by line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from perfeval.exceptions import InputFormatError, InvalidDataError
from perfeval.io.trec import read_qrels, read_run


def test_qrels_file_and_dict_agree(tmp_path):
    f = tmp_path / "qrels.txt"
    f.write_text("301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n\n007 0 d1 2\n7\t0\td1\t3\r\n")
    q = read_qrels(str(f))
    assert q.qid.tolist() == ["301", "301", "007", "7"]  # ids as written: 007 and 7 are two queries
    assert q.docid.tolist() == ["FBIS3-10082", "FBIS3-10169", "d1", "d1"]
    assert q.rel.tolist() == [1.0, 0.0, 2.0, 3.0]
    d = read_qrels({"301": {"FBIS3-10082": 1, "FBIS3-10169": 0}, "007": {"d1": 2}, "7": {"d1": 3}})
    assert d.qid.tolist() == q.qid.tolist() and d.docid.tolist() == q.docid.tolist()
    assert d.rel.tolist() == q.rel.tolist()


def test_run_file_compressed_name_from_tag(tmp_path):
    lines = "q1 Q0 d3 1 12.5 bm25\nq1 Q0 d1 2 11 bm25\nq2 Q0 d1 1 -0.5 bm25\n"
    f = tmp_path / "run.gz"
    f.write_bytes(gzip.compress(lines.encode()))
    r = read_run(str(f))
    assert (
        r.name == "bm25" and r.qid.tolist() == ["q1", "q1", "q2"] and r.docid.tolist() == ["d3", "d1", "d1"]
    )
    assert (
        r.score.tolist() == [12.5, 11.0, -0.5]
        and r.rank.tolist() == [1, 2, 1]
        and r.order.tolist() == [0, 1, 2]
    )
    assert read_run(str(f), name="mine").name == "mine"
    two = tmp_path / "two.txt"
    two.write_text("q1 Q0 d3 1 1 a\nq1 Q0 d1 2 0 b\n")
    assert read_run(str(two)).name == str(two)  # several tags: the file's name


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n", 2, "expected 6 fields"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 high t\n", 2, "expected a number (the score), found 'high'"),
        ("q1 Q0 d1 1 nan t\n", 1, "finite"),
        (
            "q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 0.5 t\nq1 Q0 d1 3 0.1 t\n",
            3,
            "document 'd1' is given twice (lines 1 and 3)",
        ),
    ],
)
def test_bad_run_lines_are_named(tmp_path, text, line, message):
    f = tmp_path / "run.txt"
    f.write_text(text)
    with pytest.raises(InputFormatError) as e:
        read_run(str(f))
    assert message in str(e.value) and f"line {line}" in str(e.value)


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4 fields"),
        ("q1 0 d1 yes\n", 1, "expected a number (the relevance)"),
        ("q1 0 d1 1\nq1 0 d1 0\n", 2, "given twice"),
    ],
)
def test_bad_qrels_lines_are_named(tmp_path, text, line, message):
    f = tmp_path / "qrels.txt"
    f.write_text(text)
    with pytest.raises(InputFormatError) as e:
        read_qrels(str(f))
    assert message in str(e.value) and f"line {line}" in str(e.value)


def test_dicts_refuse_what_they_cannot_hold():
    with pytest.raises(InvalidDataError, match="given twice"):
        read_run({7: {"d": 1.0}, "7": {"d": 2.0}})  # equal as text: one query
    with pytest.raises(InvalidDataError, match="expected a number"):
        read_qrels({"q": {"d": "1"}})
    with pytest.raises(InvalidDataError, match="finite"):
        read_run({"q": {"d": float("inf")}})
    with pytest.raises(InvalidDataError, match="expected {docid: value}"):
        read_run({"q": [1, 2]})


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(InputFormatError, match="cannot be read"):
        read_qrels(str(tmp_path / "nope"))


def test_empty_files_are_empty():
    r = read_run({})
    assert len(r) == 0 and r.score.dtype == np.float64
