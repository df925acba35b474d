"""The table readers: files as people write them, one grammar for the whole-file and chunked readers,
identity columns never floats, and no row lost or invented."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfeval.exceptions import CommentLinesWarning, InputFormatError, PerfError
from perfeval.io.readers import iter_columns, read_table
from perfeval.io.tables import numeric


def both(tmp_path, content: bytes, name: str = "t.txt", cols=("1", "2"), ids=(), chunk: int = 7, **kw):
    """(whole-file result, chunked result): the picked columns as lists, or the error message."""
    path = tmp_path / name
    path.write_bytes(content)
    try:
        t = read_table(
            str(path), identity=(lambda names, header: [t_ids for t_ids in ids]) if ids else None, **kw
        )
        whole = [
            canon(t.data[int(c) - 1])
            if int(c) - 1 in ids
            else numeric(t, t.names[int(c) - 1], t.data[int(c) - 1], "").tolist()
            for c in cols
        ]
    except PerfError as e:
        whole = str(e)
    try:
        parts = list(
            iter_columns(
                str(path),
                list(cols),
                chunk_bytes=chunk,
                ids=[i for i in range(len(cols)) if int(cols[i]) - 1 in ids],
                **({"delimiter": kw["delimiter"]} if "delimiter" in kw else {}),
            )
        )
        chunked = [
            sum((canon(p[k]) if int(cols[k]) - 1 in ids else p[k].tolist() for p in parts), [])
            for k in range(len(cols))
        ]
    except PerfError as e:
        chunked = str(e)
    return whole, chunked


def canon(ids) -> list[str]:
    """Identity values as their text: a chunk of plain integers is int64, another chunk's text."""
    return [str(v) for v in ids.tolist()]


def run(argv, capsys, stdin: bytes | str = b""):
    from conftest import run_cli

    return run_cli(argv, capsys, stdin)


# -- identity columns (issue item 1) ---------------------------------------------------------------
def test_big_integer_group_ids_stay_apart(tmp_path, capsys):
    f = tmp_path / "u.csv"
    f.write_text(
        "user,label,score\n9007199254740992,1,0.9\n9007199254740992,0,0.1\n"
        "9007199254740993,1,0.1\n9007199254740993,0,0.9\n"
    )
    code, out, err = run(
        ["eval", str(f), "--group", "user", "-m", "gauc", "--format", "json", "--per-group"], capsys
    )
    assert code == 0, err
    got = json.loads(out)["measures"]["GAUC"]
    assert got["per_group"] == {"9007199254740992": 1.0, "9007199254740993": 0.0}
    assert got["value"] == 0.5


@pytest.mark.parametrize(
    "ids, want",
    [
        (["007", "7"], ["007", "7"]),
        (["1e3", "u1000"], ["1e3", "u1000"]),  # a column of numbers written as floats is refused (below)
        (["+5", "5"], ["+5", "5"]),
        (["-0", "0"], ["-0", "0"]),
        (["+-5", "u1"], ["+-5", "u1"]),
        (["9223372036854775808", "1"], ["9223372036854775808", "1"]),
        (["-12", "3"], [-12, 3]),
    ],
)
def test_identity_is_int64_or_the_text_as_written(tmp_path, ids, want):
    content = "".join(f"{i % 2} 0.{i + 1} {g}\n" for i, g in enumerate(ids * 3)).encode()
    whole, chunked = both(tmp_path, content, cols=("1", "2", "3"), ids=(2,))
    assert whole == chunked
    assert whole[2] == [str(w) for w in want] * 3
    t = read_table(str(tmp_path / "t.txt"), identity=lambda n, h: [2])
    assert t.data[2].tolist() == want * 3


def test_group_column_of_the_fast_path_is_int64(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("".join(f"{i % 2} 0.{i % 9 + 1} {10**17 + i}\n" for i in range(1000)))
    t = read_table(str(path), identity=lambda n, h: [2])
    assert t.data[2].dtype == np.int64 and t.data[2][999] == 10**17 + 999
    assert t.data[0].dtype == np.float64


def test_stream_and_memory_group_by_the_same_ids(tmp_path, capsys):
    f = tmp_path / "g.csv"
    rows = ["g,label,score"] + [
        f"{g},{i % 2},{(i * 7 % 11) / 11}" for i, g in enumerate(["007", "7", "1e3", "1000", "u"] * 8)
    ]
    f.write_text("\n".join(rows) + "\n")
    a = run(["eval", str(f), "--group", "g", "-m", "gauc,roc", "--format", "json", "--per-group"], capsys)
    b = run(
        ["eval", str(f), "--group", "g", "-m", "gauc,roc", "--format", "json", "--per-group", "--stream"],
        capsys,
    )
    assert a[0] == b[0] == 0, (a[2], b[2])
    ja, jb = json.loads(a[1]), json.loads(b[1])
    assert ja["measures"] == jb["measures"]
    assert set(ja["measures"]["ROC"]["per_group"]) == {"007", "7", "1e3", "1000", "u"}


# -- one grammar, both readers ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "content",
    [
        b"1 0.5\n0 0.25\n",
        b"1 1_000\n0 2\n",  # not a number in either reader
        "1 １\n0 2\n".encode(),  # full-width digit
        b"1 0.5\x00\n0 2\n",  # a trailing NUL
        b"1 0x1p3\n0 2\n",  # hex float
        b"",  # empty file
        b"\n\n# only a comment\n",
        b"y p\n",  # a header and no data
        b"1 0.5\r0 0.25\r1 0.75\r0 0.1\r",  # CR-only line ends
        b"1 0.5\r\n0 0.25\r\n",  # CRLF
        b"\xef\xbb\xbf1 0.5\n0 0.25\n",  # a BOM on a headerless file
        b"\xef\xbb\xbfy p\n1 0.5\n0 0.25\n",  # a BOM before a header
        b"1 0.5\f\n0 0.25\n",  # a form feed
        b"1 0.5\n0 0.25 7\n",  # a field too many
        b"1 inf\n0 -Infinity\n",
    ],
)
def test_whole_and_chunked_readers_agree(tmp_path, content):
    whole, chunked = both(tmp_path, content)
    assert whole == chunked


def test_cr_only_lines_keep_every_row(tmp_path):
    content = "".join(f"{i % 2} 0.{i + 1:03d}\r" for i in range(300)).encode()
    whole, chunked = both(tmp_path, content, chunk=64)
    assert len(whole[0]) == 300 and whole == chunked


def test_bom_on_a_headerless_file_is_not_a_header(tmp_path):
    whole, _ = both(tmp_path, b"\xef\xbb\xbf1 0.5\n0 0.25\n1 0.75\n0 0.1\n")
    assert whole[0] == [1.0, 0.0, 1.0, 0.0]


def test_errors_name_the_same_line_in_both_readers(tmp_path):
    content = b"1 0.5\n0 0.25\n1 1_000\n"
    whole, chunked = both(tmp_path, content)
    assert whole == chunked and "line 3" in whole and "'1_000'" in whole


# -- CSV as people write it -----------------------------------------------------------------------
def test_csv_written_by_pandas_r_and_excel(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "user": [9007199254740993, 7, 7],
            "label": ["yes", "no", "yes"],
            "note": ["a, b", 'say "hi"', "two\nlines"],
            "score": [0.9, 0.1, 0.4],
        }
    )
    df.to_csv(tmp_path / "p.csv", index=False)
    t = read_table(str(tmp_path / "p.csv"), identity=lambda n, h: [0])
    assert t.names == ["user", "label", "note", "score"]
    assert t.data[0].tolist() == [9007199254740993, 7, 7] and t.data[0].dtype == np.int64
    assert t.data[2].tolist() == ["a, b", 'say "hi"', "two\nlines"]
    assert t.data[3].tolist() == [0.9, 0.1, 0.4]
    assert t.line_of(2) == 4  # the record after a quoted line break starts on line 4
    # R's write.csv: quoted names, a row-names column; Excel: ';' and a BOM and CRLF
    (tmp_path / "r.csv").write_text('"","label","score"\n"1",1,0.9\n"2",0,0.2\n')
    t = read_table(str(tmp_path / "r.csv"))
    assert t.names == ["", "label", "score"] and t.data[2].tolist() == [0.9, 0.2]
    (tmp_path / "x.csv").write_bytes(b"\xef\xbb\xbflabel;score\r\n1;0.9\r\n0;0.2\r\n")
    t = read_table(str(tmp_path / "x.csv"))
    assert t.names == ["label", "score"] and t.data[1].tolist() == [0.9, 0.2]


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"y,p\n0,,0.1\n1,0.5\n", "line 2: the header names 2 columns, the first row has 3 fields"),
        (b"y,p\n0,0.1\n0,,0.1\n1,0.5\n", "line 3: expected 2 fields, found 3"),
        (b"y,p\n,0.1\n1,0.5\n", "line 2: the target column 'y' is empty: a missing value"),
        (b"y,p\n0,0.3\n1,\n", "line 3: the score column 'p' is empty: a missing value"),
        (b'y,p\n0,0.3\n1,""\n', "line 3: the score column 'p' is empty: a missing value"),
        (b"0,0.3\n1,\n", "line 2: the score column 'column2' is empty: a missing value"),
        (b"y,p\n0,0 0.1\n1,0.5\n", "'0 0.1', not a number"),
    ],
)
def test_csv_fields_are_split_by_the_delimiter_only(tmp_path, capsys, content, fragment):
    (tmp_path / "b.csv").write_bytes(content)
    code, out, err = run(["eval", str(tmp_path / "b.csv"), "-m", "roc"], capsys)
    assert code == 1 and fragment in err and err.count("\n") == 1, err


def test_quoted_hash_is_data_not_a_comment(tmp_path):
    (tmp_path / "h.csv").write_text('# a comment\nid,label,score\n"#a",1,0.9\nb,0,0.2\n')
    with pytest.warns(
        CommentLinesWarning, match=r"h.csv: 1 line starting with '#' skipped as comment \(line 1\)"
    ):
        t = read_table(str(tmp_path / "h.csv"))
    assert t.data[0].tolist() == ["#a", "b"] and t.skipped.count == 1
    (tmp_path / "h.csv").write_text('"#a",1,0.9\n# a comment\nb,0,0.2\n')  # no header: a comment
    with pytest.warns(CommentLinesWarning, match=r"\(line 2\)"):
        t = read_table(str(tmp_path / "h.csv"))
    assert t.data[0].tolist() == ["#a", "b"] and t.skipped.first == [2]


# -- lines starting with '#': rows after a header, comments before it or without one ------------
def _cli_both(path, argv, capsys):
    """The command's (status, stdout, stderr) on ``path`` read whole and streamed."""
    return [run(["eval", str(path), *argv, *extra], capsys) for extra in ([], ["--stream"])]


_NA_TARGET = (
    r"line 3: the (target )?column 'y' holds '#N/A', (a missing value|not a number \(a missing value)"
)


@pytest.mark.parametrize(
    "text, pattern",
    [
        # Excel's #N/A as a target: a missing target, named by file, line and column (read whole:
        # "the target column 'y' holds '#N/A', a missing value"; streamed: "the column 'y' holds
        # '#N/A', not a number (a missing value ...)")
        ("y,score\n1,0.9\n#N/A,0.4\n0,0.3\n", _NA_TARGET),
        (
            "y,score\n1,0.9\n0,#N/A\n0,0.3\n",
            r"line 3: the (score )?column 'score' holds '#N/A', not a number",
        ),
        ("y score\n1 0.9\n#N/A 0.4\n0 0.3\n", _NA_TARGET),
        # a comment-like line after the header is a row: its field count is checked, with a hint
        (
            "y,score\n1,0.9\n# a note\n0,0.3\n",
            r"line 3: expected 2 fields, found 1 \(after the header, a line starting with '#' is a row",
        ),
        ("y;score\n1;0.9\n#N/A;0.4\n0;0.3\n", _NA_TARGET),
    ],
)
def test_a_hash_row_after_the_header_is_a_row(tmp_path, capsys, text, pattern):
    path = tmp_path / ("t.txt" if "," not in text and ";" not in text else "t.csv")
    path.write_text(text)
    for code, out, err in _cli_both(path, ["-m", "roc"], capsys):
        assert code == 1 and out == "" and re.search(pattern, err) and err.count("\n") == 1, err
    with warnings.catch_warnings():
        warnings.simplefilter("error", CommentLinesWarning)  # nothing skipped, nothing said
        if "# a note" in text:
            with pytest.raises(InputFormatError, match="expected 2 fields, found 1"):
                read_table(str(path))
        else:
            t = read_table(str(path))
            assert len(t.data[0]) == 3 and t.skipped.count == 0
            assert "#N/A" in t.data[0].tolist() + t.data[1].tolist()


def test_hash_ids_after_the_header_are_ids(tmp_path, capsys):
    path = tmp_path / "g.csv"
    path.write_text("id,y,score\n#123,1,0.9\n#123,0,0.4\nx,0,0.8\nx,1,0.3\n#5,1,0.7\n#5,0,0.6\n")
    for code, out, err in _cli_both(
        path, ["--group", "id", "-m", "gauc", "--format", "json", "--per-group"], capsys
    ):
        assert code == 0, err
        got = json.loads(out)["measures"]["GAUC"]
        assert got["per_group"] == {"#123": 1.0, "x": 0.0, "#5": 1.0} and got["value"] == 2 / 3
        assert "note:" not in err
    t = read_table(str(path), identity=lambda n, h: [0])
    assert t.data[0].tolist() == ["#123", "#123", "x", "x", "#5", "#5"] and t.line_of(4) == 6
    parts = list(iter_columns(str(path), ["id", "y"], chunk_bytes=8, ids=[0]))
    assert sum((canon(p[0]) for p in parts), []) == t.data[0].tolist()


def test_comment_lines_are_skipped_only_before_a_header_or_without_one_and_said(tmp_path, capsys):
    headerless = tmp_path / "p.txt"  # PERF's files: comments anywhere
    headerless.write_text("# model A\n1 0.9\n0 0.4\n  # half-way\n1 0.3\n0 0.2\n")
    preamble = tmp_path / "h.csv"  # comments before the header
    preamble.write_text("# exported 2024-01-01\n#\ny,score\n1,0.9\n0,0.4\n1,0.3\n0,0.2\n")
    for path, lines in ((headerless, "lines 1, 4"), (preamble, "lines 1, 2")):
        said = f"perfeval: note: {path}: 2 lines starting with '#' skipped as comments ({lines})\n"
        outs = []
        for code, out, err in _cli_both(path, ["-m", "roc", "--format", "json"], capsys):
            assert code == 0 and said in err, err
            outs.append(json.loads(out)["measures"]["ROC"]["value"])
        assert outs == [0.75, 0.75]
        with pytest.warns(CommentLinesWarning, match=re.escape(said[len("perfeval: note: ") : -1])):
            t = read_table(str(path))
        assert t.skipped.count == 2 and t.data[0].tolist() == [1, 0, 1, 0]
        for chunk in (7, 1 << 20):
            with pytest.warns(CommentLinesWarning, match=re.escape(f"({lines})")):
                parts = list(iter_columns(str(path), ["1", "2"], chunk_bytes=chunk))
            assert sum((p[0].tolist() for p in parts), []) == [1, 0, 1, 0]
    # an error stays the one line: the note is not written
    headerless.write_text("# model A\n1 0.9\n0 x\n")
    code, out, err = run(["eval", str(headerless), "-m", "roc"], capsys)
    assert code == 1 and err.count("\n") == 1 and "note:" not in err


def test_a_long_preamble_of_comments(tmp_path):
    """More comment lines before the data than the header's look-ahead once read (64): still read."""
    path = tmp_path / "c.csv"
    path.write_text("# c\n" * 100 + "y,score\n1,0.9\n0,0.2\n")
    with pytest.warns(CommentLinesWarning, match="100 lines"):
        t = read_table(str(path))
    assert t.names == ["y", "score"] and t.data[1].tolist() == [0.9, 0.2]
    whole, chunked = both(tmp_path, path.read_bytes(), name="c2.csv", chunk=64)
    assert whole == chunked == [[1.0, 0.0], [0.9, 0.2]]
    path.write_text("# c\n" * 30 + "y;score\n1;0.9\n0;0.2\n")  # the delimiter sniffed past them
    with pytest.warns(CommentLinesWarning, match="30 lines"):
        t = read_table(str(path))
    assert t.names == ["y", "score"] and t.data[1].tolist() == [0.9, 0.2]


@pytest.mark.parametrize("na_rep, fragment", [("", "is empty: a missing value"), ("#N/A", "#N/A")])
@pytest.mark.parametrize("first", ["label", "score", "user"])
def test_pandas_missing_values_are_errors_never_dropped_rows(tmp_path, capsys, na_rep, fragment, first):
    """pandas writes NaN as an empty field (default) or as ``na_rep``: an error naming the line and
    the column whether the NaN is in the first column or not, or, in a string id column, an id."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    n = 40
    df = pd.DataFrame(
        {
            "label": rng.integers(0, 2, n).astype(float),
            "score": rng.random(n),
            "user": [f"u{k % 5}" for k in range(n)],
        }
    )
    df = df[[first] + [c for c in df.columns if c != first]]
    df.loc[17, first] = np.nan if first != "user" else (na_rep or np.nan)
    df.to_csv(tmp_path / "p.csv", index=False, na_rep=na_rep)
    line = 19  # the header, then rows 0..17
    argv = ["--target", "label", "--score", "score", "--group", "user", "-m", "gauc", "--format", "json"]
    for code, _out, err in _cli_both(tmp_path / "p.csv", argv, capsys):
        if first == "user" and na_rep:  # '#N/A' as a string id is an id like any other
            assert code == 0, err
            continue
        assert code == 1 and err.count("\n") == 1, err
        assert fragment in err and (f"line {line}" in err or f"data row {line - 1}" in err), err
    t = read_table(str(tmp_path / "p.csv"), identity=lambda n, h: [n.index("user")]) if na_rep else None
    if t is not None:  # every row read, the missing one included
        assert len(t.data[0]) == n and t.skipped.count == 0


def test_fast_and_csv_paths_give_the_same_table(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    s = np.round(rng.random(200), 5)
    (tmp_path / "plain.csv").write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=False)))
    (tmp_path / "quoted.csv").write_text(
        '"y","p"\n' + "".join(f'"{a}",{b}\n' for a, b in zip(y, s, strict=False))
    )
    a, b = read_table(str(tmp_path / "plain.csv")), read_table(str(tmp_path / "quoted.csv"))
    # parse_table, then parse_delimited (quoted fields; tests/test_csv_fast_path.py checks it against
    # the csv module's path)
    assert a.lines is None and b.lines is None
    assert a.data[0].tolist() == b.data[0].tolist() and a.data[1].tolist() == b.data[1].tolist()


@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.floats(-1e6, 1e6, allow_nan=False), st.integers(-(10**18), 10**18)),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([",", "\t", ";"]),
    st.booleans(),
)
def test_random_numeric_tables_read_the_same_by_every_path(tmp_path_factory, rows, delim, quote):
    d = tmp_path_factory.mktemp("r")
    q = '"' if quote else ""
    text = f"y{delim}p{delim}g\n" + "".join(f"{q}{a}{q}{delim}{b!r}{delim}{g}\n" for a, b, g in rows)
    (d / "t.csv").write_text(text)
    t = read_table(str(d / "t.csv"), identity=lambda n, h: [2])
    assert t.data[0].tolist() == [float(a) for a, _, _ in rows]
    assert t.data[1].tolist() == [b for _, b, _ in rows]
    assert t.data[2].tolist() == [g for _, _, g in rows]
    parts = list(iter_columns(str(d / "t.csv"), ["1", "2", "3"], chunk_bytes=16, ids=[2]))
    assert sum((p[1].tolist() for p in parts), []) == [b for _, b, _ in rows]
    assert sum((p[2].tolist() for p in parts), []) == [g for _, _, g in rows]


@pytest.mark.parametrize(
    "kind, opener", [("gz", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)]
)
def test_compressed_input(tmp_path, capsys, kind, opener):
    text = b"label,score\n" + b"".join(b"%d,0.%d\n" % (i % 2, i % 9 + 1) for i in range(50))
    (tmp_path / f"t.csv.{kind}").write_bytes(opener(text))
    (tmp_path / f"noext.{kind}").write_bytes(opener(text))  # by magic bytes
    (tmp_path / "t.csv").write_bytes(text)
    want = run(["eval", str(tmp_path / "t.csv"), "-m", "roc,apr", "--format", "json"], capsys)[1]
    for name in (f"t.csv.{kind}", f"noext.{kind}"):
        for extra in ([], ["--stream"]):
            code, out, err = run(
                ["eval", str(tmp_path / name), "-m", "roc,apr", "--format", "json", *extra], capsys
            )
            assert code == 0, err
            assert json.loads(out)["measures"] == json.loads(want)["measures"]


def test_delimiter_option(tmp_path, capsys):
    (tmp_path / "s.txt").write_text("label|score\n1|0.9\n0|0.2\n")
    code, out, err = run(["eval", str(tmp_path / "s.txt"), "--delimiter", "|", "-m", "roc"], capsys)
    assert code == 0, err
    code, out, err = run(["eval", str(tmp_path / "s.txt"), "--delimiter", "ab", "-m", "roc"], capsys)
    assert code == 2 and "--delimiter" in err


def test_many_columns(tmp_path):
    head = ",".join(f"c{i}" for i in range(300)) + ",label,score\n"
    rows = "".join(",".join(["1"] * 300) + f",{i % 2},0.{i + 1}\n" for i in range(4))
    (tmp_path / "w.csv").write_text(head + rows)
    t = read_table(str(tmp_path / "w.csv"))
    assert len(t.names) == 302 and t.data[301].tolist() == [0.1, 0.2, 0.3, 0.4]


@pytest.mark.parametrize(
    "line, fragment",
    [
        ('{"label": 1, "score": 0.5, "g": null}', "the field 'g' is null"),
        ('{"label": 1, "score": 0.5, "g": 1.5}', "the group field 'g' (--group) is a floating-point number"),
    ],
)
def test_jsonl_groups(tmp_path, capsys, line, fragment):
    (tmp_path / "j.jsonl").write_text('{"label": 0, "score": 0.1, "g": 1}\n' + line + "\n")
    code, out, err = run(["eval", str(tmp_path / "j.jsonl"), "--group", "g", "-m", "gauc"], capsys)
    assert code == 1 and fragment in err and "line 2" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "line, key",
    [
        ('{"label": 1, "score": 0.3, "score": 0.9}', "score"),  # the last value was kept silently
        ('{"label": 1, "label": 0, "score": 0.3}', "label"),
        ('{"label": 1, "score": 0.3, "at": "12:00", "at": "12:30"}', "at"),  # a ':' in a value too
        ('{"label": 1, "score": 0.3, "x": {"a": 1, "a": 2}}', "a"),  # in a nested object
    ],
)
def test_a_json_key_given_twice_is_an_error_at_its_line(tmp_path, capsys, line, key):
    """Issue 30: ``json.loads`` keeps the last of two values of one key: the row read was not the
    one written, without a word.  An error naming the file, the line and the key, at every door that
    reads JSON lines (eval, compare, trec's tables, the library's reader)."""
    good = '{"label": 0, "score": 0.1}\n'
    (tmp_path / "t.jsonl").write_text(good + line + "\n" + good.replace("0.1", "0.2"))
    says = f"t.jsonl, line 2: the key {key!r} is given twice in one object"
    with pytest.raises(InputFormatError, match=re.escape(says)):
        read_table(str(tmp_path / "t.jsonl"))
    code, out, err = run(["eval", str(tmp_path / "t.jsonl"), "-m", "roc"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and says in err, err
    (tmp_path / "c.jsonl").write_text(good + line.replace('"score"', '"s2"', 1) + "\n" + good)
    code, out, err = run(["compare", str(tmp_path / "c.jsonl"), str(tmp_path / "t.jsonl")], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "line 2: the key" in err, err


def test_a_json_key_given_twice_in_trec_tables_is_an_error(tmp_path, capsys):
    (tmp_path / "q.jsonl").write_text(
        '{"qid": 1, "docid": "a", "rel": 1}\n{"qid": 1, "docid": "b", "rel": 0}\n'
    )
    (tmp_path / "r.jsonl").write_text(
        '{"qid": 1, "docid": "a", "score": 0.2}\n{"qid": 1, "docid": "b", "docid": "a", "score": 0.9}\n'
    )
    code, out, err = run(["trec", str(tmp_path / "q.jsonl"), str(tmp_path / "r.jsonl")], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert "r.jsonl, line 2: the key 'docid' is given twice in one object" in err, err


def test_jsonl_big_integer_ids(tmp_path):
    (tmp_path / "j.jsonl").write_text(
        '{"label": 0, "score": 0.1, "g": 9007199254740993}\n'
        '{"label": 1, "score": 0.2, "g": 123456789012345678901234567890}\n'
    )
    t = read_table(str(tmp_path / "j.jsonl"), identity=lambda n, h: [2])
    assert t.data[2].tolist() == ["9007199254740993", "123456789012345678901234567890"]


def test_empty_input_is_an_error_in_memory_and_streamed(tmp_path, capsys):
    (tmp_path / "e.txt").write_text("")
    for extra in ([], ["--stream"]):
        code, out, err = run(["eval", str(tmp_path / "e.txt"), "-m", "roc", *extra], capsys)
        assert code == 1 and "holds no data" in err and out == ""


def test_reader_errors_are_one_line(tmp_path):
    (tmp_path / "bad.parquet").write_bytes(b"PAR1" + b"x" * 100 + b"PAR1")
    pytest.importorskip("pyarrow")
    with pytest.raises(InputFormatError) as e:
        read_table(str(tmp_path / "bad.parquet"))
    assert "\n" not in str(e.value)


def _fast_csv_ok_by_definition(body: bytes, d: bytes) -> bool:
    """The rule in plain Python: only the bytes of numbers, line ends and the delimiter; no empty
    field (two delimiters together, one at a line's start or end, or at the body's ends)."""
    allowed = set(b"0123456789+-.eEinfatyINFATY\n") | {d[0]}
    if any(c not in allowed for c in body):
        return False
    return not (
        d + d in body or b"\n" + d in body or d + b"\n" in body or body.startswith(d) or body.endswith(d)
    )


_PIECES = [b"1", b"2.5", b"-3e4", b",", b"\t", b"\n", b"inf", b" ", b'"', b"#", b"x"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from([b",", b"\t"]))
def test_the_compiled_check_of_a_plain_csv_body_is_the_rule(parts, d):
    from perfeval import _native

    body = b"".join(parts)
    assert _native.fast_csv_ok(body, d.decode()) == _fast_csv_ok_by_definition(body, d)


def test_a_large_table_read_in_two_halves_is_the_table_and_its_first_error():
    """parse_table reads a body of more than 4 MB in two halves on two threads: the same columns as
    the rows read one by one, identity columns included, and an error in the second half named by
    its line in the whole body."""
    from perfeval import _native

    rng = np.random.default_rng(3)
    n = 400_000
    ids = rng.integers(-(2**62), 2**62, n)
    a = rng.random(n)
    lines = [f"{i},{float(x)!r},{k % 7}" for i, x, k in zip(ids.tolist(), a.tolist(), range(n), strict=True)]
    body = ("\n".join(lines) + "\n").encode()
    assert len(body) > 4 << 20
    ok, cols, rows = _native.parse_table(body, 3, b"\x01\x00\x00")
    assert ok == "ok" and rows == n
    assert cols[0][0] == "int" and np.array_equal(np.frombuffer(cols[0][1], np.int64), ids)
    assert np.array_equal(np.frombuffer(cols[1], np.float64), a)
    assert np.array_equal(np.frombuffer(cols[2], np.float64), np.arange(n) % 7)
    bad = list(lines)
    bad[300_000] = bad[300_000].replace(",", ",x", 1)
    bad[350_000] = "1,2"
    res = _native.parse_table(("\n".join(bad) + "\n").encode(), 3, b"\x01\x00\x00")
    assert res[:4] == ("error", "number", 300_001, 2)
    first_half = list(lines)
    first_half[10] = "1,2"
    res = _native.parse_table(("\n".join(first_half) + "\n").encode(), 3, b"\x01\x00\x00")
    assert res[:3] == ("error", "fields", 11)


def test_ids_written_as_floats_are_refused_with_their_line(tmp_path):
    # pandas writes a float id column as 1.152921504606847e+18: four users 2^60+1..4 are one text id
    import subprocess
    import sys

    pd = pytest.importorskip("pandas")
    ids = np.array([2**60 + 1, 2**60 + 2, 2**60 + 3, 2**60 + 4])
    rng = np.random.default_rng(0)
    u = ids[rng.integers(0, 4, 400)]
    frame = pd.DataFrame({"user": u, "click": rng.integers(0, 2, 400), "p": rng.random(400)})
    exact, floats, small = tmp_path / "int.csv", tmp_path / "float.csv", tmp_path / "small.tsv"
    frame.to_csv(exact, index=False)
    frame.assign(user=u.astype(float)).to_csv(floats, index=False)
    frame.assign(user=(u % 1000).astype(float)).to_csv(small, index=False, sep="\t")
    base = [sys.executable, "-m", "perfeval", "eval", "--target", "click", "--score", "p", "--group", "user"]
    ok = subprocess.run(base[:4] + [str(exact)] + base[4:] + ["-m", "gauc"], capture_output=True, text=True)
    assert ok.returncode == 0 and "gauc" in ok.stdout.lower()
    for f, value in ((floats, "'1.152921504606847e+18'"), (small, "'" + f"{float(u[0] % 1000)!r}" + "'")):
        for extra in ([], ["--stream"]):
            r = subprocess.run(
                base[:4] + [str(f)] + base[4:] + ["-m", "gauc"] + extra, capture_output=True, text=True
            )
            assert r.returncode == 1, (f, extra, r.stderr)
            assert f"{f}, line 2: the group column 'user' (--group) holds {value}, a float" in r.stderr, (
                r.stderr
            )
            assert len(r.stderr.strip().splitlines()) == 1
    # text ids that merely look numeric stay text ids: '007' and '7' are two groups
    t = tmp_path / "zip.csv"
    t.write_text("zip,y,s\n007,1,0.9\n007,0,0.1\n7,1,0.2\n7,0,0.8\n")
    from perfeval.io.readers import read_table

    table = read_table(str(t), identity=lambda names, header: [0])
    assert table.columns["zip"].tolist() == ["007", "007", "7", "7"]


# -- pandas' default column names: a header or a row? (break test brk1) -----------------------------
_Y = [1, 0, 1, 0, 0, 1]
_P = [0.9, 0.2, 0.8, 0.95, 0.4, 0.7]


def _pandas_default_csv(path, sep=","):
    """What ``pd.DataFrame(np.column_stack([y, p])).to_csv(index=False)`` writes: a header ``0,1``
    (pandas' default names) over rows of floats ``1.0,0.9``."""
    pd = pytest.importorskip("pandas")
    pd.DataFrame(np.column_stack([_Y, _P])).to_csv(path, index=False, sep=sep)
    return path


@pytest.mark.parametrize(
    "content, line, fragment",
    [
        # pandas' float columns: every value written with a decimal point
        (b"0,1\n1.0,0.9\n0.0,0.2\n1.0,0.8\n", 1, "line 2 writes column 1 as '1.0'"),
        # an integer target, a float score: the score column says it
        (b"0,1\n1,0.9\n0,0.2\n1,0.8\n", 1, "line 2 writes column 2 as '0.9'"),
        # three columns, a tab (a .tsv), an exponent (pandas writes 1e-05), the float a few lines down
        (b"0\t1\t2\n1\t0\t1\n0\t1\t1\n1\t1\t1e-05\n", 1, "line 4 writes column 3 as '1e-05'"),
        # a comment and a blank line before it: its own line is named
        (b"# made by pandas\n\n0,1\n1,0.9\n0,0.2\n", 3, "line 4 writes column 2 as '0.9'"),
        # a CSV with ';' (to_csv(sep=';'), Excel's), CRLF line ends
        (b"0;1\r\n1;0.9\r\n0;0.2\r\n", 1, "line 2 writes column 2 as '0.9'"),
    ],
)
def test_pandas_default_names_over_floats_are_refused_by_both_readers(tmp_path, content, line, fragment):
    name = "t.tsv" if b"\t" in content else "t.csv"
    whole, chunked = both(tmp_path, content, name=name, chunk=3)
    assert whole == chunked, (whole, chunked)
    assert isinstance(whole, str) and f"{name}, line {line}: " in whole and fragment in whole, whole
    assert "pandas' default column names (0, 1, ...)" in whole
    assert "give --header or --no-header" in whole and "header=True or header=False" in whole
    assert "\n" not in whole


@pytest.mark.parametrize(
    "content, rows",
    [
        (b"0,1\n1,1\n0,0\n1,1\n0,1\n0,0\n1,0\n", 7),  # hard 0/1 predictions: integers everywhere
        (b"1,0\n1.0,0.9\n0.0,0.2\n", 3),  # not 0, 1: a row (PERF's files)
        (b"0,2\n1.0,0.9\n0.0,0.2\n", 3),
        (b"0.0,1\n1.0,0.9\n0.0,0.2\n", 3),  # written with a decimal point: a row
        (b"0\n1.5\n0.5\n", 3),  # one field (k >= 2)
        # whitespace text is PERF's headerless format: a first case 0 1 (C's %g) stays a row
        (b"0 1\n1 0.9\n0 0.2\n", 3),
        # the first float past the look-ahead (20 lines after the first): a row, as before
        (b"0,1\n" + b"1,1\n0,0\n" * 10 + b"1,0.5\n", 22),
    ],
)
def test_first_lines_that_are_not_ambiguous_stay_rows(tmp_path, content, rows):
    whole, chunked = both(tmp_path, content, cols=("1",), chunk=3)
    assert whole == chunked and len(whole[0]) == rows, (whole, chunked)


def test_a_float_at_the_end_of_the_look_ahead_is_seen_by_both_readers(tmp_path):
    content = b"0,1\n" + b"1,1\n0,0\n" * 9 + b"1,1\n1,0.5\n"  # line 21: the 20th after the first
    whole, chunked = both(tmp_path, content, chunk=3)
    assert whole == chunked and "line 21 writes column 2 as '0.5'" in whole


def test_the_look_ahead_stops_at_64_kib(tmp_path):
    """A first data line of default names whose next lines are past the first 64 KiB: only whole
    lines within it are looked at, so the long first rows make it a row, by both readers alike."""
    wide = 3000
    first = ",".join(str(i) for i in range(wide)).encode()
    row = ",".join(["1"] * wide).encode()
    content = first + b"\n" + b"\n".join([row] * 12) + b"\n" + ",".join(["0.5"] * wide).encode() + b"\n"
    assert len(content.split(b"\n", 1)[0] + b"\n" + row * 11) > 65536 > len(first)
    whole, chunked = both(tmp_path, content, cols=("1",), chunk=4096)
    assert whole == chunked and len(whole[0]) == 14


def test_the_library_says_it_and_takes_header(tmp_path):
    path = _pandas_default_csv(tmp_path / "intcols.csv")
    with pytest.raises(InputFormatError, match=r"intcols.csv, line 1: '0,1' may be pandas' default"):
        read_table(str(path))
    with pytest.raises(InputFormatError, match="header=True or header=False"):
        list(iter_columns(str(path), ["1", "2"]))
    t = read_table(str(path), header=True)
    assert t.names == ["0", "1"] and t.data[1].tolist() == _P
    t = read_table(str(path), header=False)
    assert t.data[0].tolist() == [0.0, *map(float, _Y)]
    chunks = list(iter_columns(str(path), ["1", "2"], header=True, chunk_bytes=5))
    assert np.concatenate([c[1] for c in chunks]).tolist() == _P


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "{f}", "-m", "roc"],
        ["eval", "{f}", "-m", "roc", "--stream"],
        ["eval", "-", "-m", "roc"],
        ["plot", "roc", "{f}", "-o", "{d}/r.png"],
        ["report", "{f}", "-o", "{d}/r.html"],
        ["compare", "{f}", "{d}/copy.csv", "-m", "roc"],
    ],
)
def test_every_table_command_refuses_pandas_default_names_over_floats(tmp_path, capsys, argv):
    path = _pandas_default_csv(tmp_path / "intcols.csv")
    (tmp_path / "copy.csv").write_bytes(path.read_bytes())
    args = [a.format(f=path, d=tmp_path) for a in argv]
    code, out, err = run(args, capsys, stdin=path.read_bytes())
    where = "standard input" if "-" in args else str(path)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"{where}, line 1: '0,1' may be pandas' default column names" in err
    assert "give --header or --no-header" in err and "Traceback" not in err


def test_header_or_no_header_says_which_and_header_gives_sklearns_number(tmp_path, capsys):
    from sklearn.metrics import roc_auc_score

    path = _pandas_default_csv(tmp_path / "intcols.csv")
    want = roc_auc_score(_Y, _P)
    for extra in ([], ["--stream"]):
        code, out, err = run(
            ["eval", str(path), "--header", "--target", "1", "--score", "2", "-m", "roc", "--format", "json"]
            + extra,
            capsys,
        )
        assert code == 0, err
        assert json.loads(out)["measures"]["ROC"]["value"] == pytest.approx(want, abs=1e-12)
        argv = ["eval", str(path), "--no-header", "-m", "roc", "--format", "json"]
        code, out, err = run(argv + extra, capsys)
        assert code == 0 and json.loads(out)["params"]["rows"] == 7, (out, err)


# -- issue 30: no row merged, split or dropped at the edges -----------------------------------------
#: characters that end a line for some readers (str.splitlines, PERF) and not for others
LINE_ENDS = ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("char", LINE_ENDS)
@pytest.mark.parametrize(
    "name, text, line",
    [
        ("t.txt", "1 0.9\n0 0.2\n1 0.8{c}0 0.3\n", 3),
        ("t.txt", "# note\n1 0.9\n\n0 0.2\r\n1 0.8{c}0 0.3\n", 5),  # a comment, a blank line, CRLF
        ("t.csv", "y,p\n1,0.9\n0,0.2\n1,0.8{c}0,0.3\n", 4),
        ("t.csv", 'y,p,n\n1,0.9,"a\nb"\n0,0.2,c\n1,0.8{c}0,0.3,d\n', 5),  # after a quoted line break
        ("t.tsv", "y\tp\n1\t0.9\n0\t0.2\n1\t0.8{c}0\t0.3\n", 4),
        ("t.csv", "y,p{c}\n1,0.9\n0,0.2\n", 1),  # in the header
    ],
)
def test_a_line_end_of_some_readers_only_is_refused_the_same_way_read_whole_and_in_chunks(
    tmp_path, char, name, text, line
):
    """Issue 30: a form feed (or \\v, \\x1c-\\x1e, U+0085, U+2028, U+2029) between two rows merged
    them (text: a blank; CSV: one line); now one error naming the character, its line and column,
    whether the file is read whole or in chunks of any size."""
    content = text.format(c=char).encode()
    column = next(ln for ln in text.format(c=char).split("\n") if char in ln).index(char) + 1
    got = {both(tmp_path, content, name=name, chunk=chunk) for chunk in (5, 64, 1 << 20)}
    assert len(got) == 1
    whole, chunked = got.pop()
    assert whole == chunked
    assert isinstance(whole, str), whole
    assert whole.startswith(f"{tmp_path / name}, line {line}: holds a "), whole
    assert f"at column {column}, a line end to some readers" in whole, whole


def test_a_line_end_of_some_readers_inside_quotes_is_data(tmp_path):
    """In a quoted CSV field (a name, a text id) such a character is data, as every CSV parser reads
    it: the ids stay whole and apart, read whole or in chunks."""
    ids = [f"u{k}{c}x" for k, c in enumerate(LINE_ENDS)]
    content = "y,p,user\n" + "".join(f'{k % 2},0.{k + 1},"{u}"\n' for k, u in enumerate(ids * 2))
    for chunk in (7, 1 << 20):
        whole, chunked = both(
            tmp_path, content.encode(), name="q.csv", cols=("1", "2", "3"), ids=(2,), chunk=chunk
        )
        assert whole == chunked
        assert whole[2] == ids * 2


@pytest.mark.parametrize("header", ["user,y,p\n", '"us\ner",y,p\n'])
def test_a_quoted_line_break_in_the_first_row_keeps_the_header(tmp_path, header):
    """A quoted line break in the first record (pandas writes one for a text id or name that holds
    it): the header was told from the first two lines, not records (the header read as a row,
    columns named column1, ...; perfeval trec: 'the header names 3 columns, the first row has 1
    fields'); now the records, read whole and in chunks, as when the break is in a later row."""
    rows = '"a\nb",1,0.9\nc,0,0.2\n"a\nb",0,0.4\n'
    for chunk in (7, 1 << 20):
        whole, chunked = both(
            tmp_path, (header + rows).encode(), name="q.csv", cols=("1", "2", "3"), ids=(0,), chunk=chunk
        )
        assert whole == chunked == [["a\nb", "c", "a\nb"], [1.0, 0.0, 0.0], [0.9, 0.2, 0.4]], whole
    t = read_table(str(tmp_path / "q.csv"))
    assert t.header and t.names == [header.split(",")[0].strip('"').replace("\\n", "\n"), "y", "p"]
    assert t.line_of(1) == (5 if "\n" in header[:-1] else 4)  # the record after the break, on its line
    from perfeval import trec

    (tmp_path / "q.csv").write_text("qid,docid,rel\n" + '"a\nb",d1,1\nc,d2,1\n')
    assert sorted(trec.as_qrels(str(tmp_path / "q.csv")).qid.tolist()) == ["a\nb", "c"]


@pytest.mark.parametrize(
    "text, line",
    [
        ('y,p\n1,0.9\n0,"0.2\n1,0.8\n0,0.1\n', 3),  # the error said line 6, past the end
        ('y,p\n1,0.9\n0,0.2\n1,0.8\n0,"0.1\n', 5),  # on the last line
        ('y,p\n1,0.9\n0,0.2\n1,"0.8\n0,0.1\n\n\n', 4),  # blank lines after it (line 8)
        ('y,p\n1,0.9\n"0\n","0.2\n1,0.8\n', 4),  # the record opens on line 3, the quote on 4
        ('y,p\n1,0.9\n0,"0.2"",\n1,0.8\n', 3),  # a quote of the text ("") is no close
        ('y,p\r\n1,0.9\r\n0,"0.2\r\n1,0.8\r\n', 3),
    ],
)
def test_a_quote_never_closed_is_named_at_the_line_where_it_opens(tmp_path, capsys, text, line):
    """Issue 30: a quote never closed was named at a line past the end of the file (the parser's
    last line); it is the line where the quoted field opens, read whole and in chunks of any size."""
    says = f"line {line}: not valid CSV: the quote that opens a field here is never closed"
    for chunk in (7, 16, 1 << 20):
        whole, chunked = both(tmp_path, text.encode(), name="t.csv", chunk=chunk)
        assert says in whole and says in chunked, (chunk, whole, chunked)
    for extra in ([], ["--stream"]):
        code, out, err = run(["eval", str(tmp_path / "t.csv"), "-m", "roc", *extra], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1 and f"t.csv, {says}" in err, err


def test_a_quote_never_closed_past_the_csv_parsers_limit_is_named_where_it_opens(tmp_path, capsys):
    """Past the parser's limit of a field (131072 characters) the error named the line the parser
    had reached (line 21857 of 100001): the line of the quote."""
    rows = "".join(str(k % 2) + ("," + chr(34) + "0.5\n" if k == 10 else ",0.25\n") for k in range(100_000))
    (tmp_path / "t.csv").write_text("y,p\n" + rows)
    for extra in ([], ["--stream"]):
        code, out, err = run(["eval", str(tmp_path / "t.csv"), "-m", "roc", *extra], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert "t.csv, line 12: not valid CSV: the quote that opens a field here is not closed within" in err


@pytest.mark.parametrize(
    "name, text, says",
    [
        (
            "h.tsv",
            'q,",rel\n1\td1\t0\n2\td2\t1\n',
            "line 2: the header names 1 columns, the first row has 3 fields",
        ),
        ("r.tsv", 'q\tdoc\trel\n30"1\td1\t1\n301\td2\t0\n', "expected 3 fields"),
        (
            "u.csv",
            'q,doc,rel\n"1,d1,1\n2,d2,0\n',
            "line 2: not valid CSV: the quote that opens a field here is never",
        ),
    ],
)
def test_the_first_records_are_the_csv_parsers_records(tmp_path, name, text, says):
    """The records the header is told from are the CSV parser's: a quote inside a field is a
    character, one never closed does not join the lines after it into the header's record (an
    internal error, 'new-line character seen in unquoted field'): an error naming the file, read
    whole and in chunks."""
    whole, chunked = both(tmp_path, text.encode(), name=name, cols=("1", "3"))
    assert isinstance(whole, str) and isinstance(chunked, str) and says in whole, (whole, chunked)
    assert whole.startswith(str(tmp_path / name)) and "new-line character" not in whole + chunked


@pytest.mark.parametrize(
    "text, why",
    [
        (
            "1 0.9 -\n0 0.1 5\n1 0.8 5\n0 0.3 6\n",
            "field 3, '-', over line 2's '5' looks like a name, but field 1, '1', is a number",
        ),
        (
            "1,0.9,u7\n0,0.1,7\n1,0.8,7\n",
            "field 3, 'u7', over line 2's '7' looks like a name, but field 1, '1', is a number",
        ),
        ("y,NA,g\n1,0.1,7\n0,0.8,7\n", "but field 2, 'NA', is no name"),
        ("y p ?\n1 0.1 7\n0 0.8 7\n", "but field 3, '?', is no name"),
    ],
)
def test_a_first_line_that_may_be_a_row_is_not_dropped_as_a_header(tmp_path, text, why):
    """Issue 30: ``1 0.9 -`` over ``0 0.1 5`` was taken for a header and dropped without a word; a
    first line with a field no header holds (a number, a missing value, signs only) is now an error
    asking for --header or --no-header, the same read whole and in chunks."""
    name = "t.csv" if "," in text else "t.txt"
    whole, chunked = both(tmp_path, text.encode(), name=name, cols=("1", "2"))
    assert whole == chunked
    assert isinstance(whole, str) and whole.startswith(f"{tmp_path / name}, line 1: "), whole
    assert "may be a header or a row of data" in whole and why in whole, whole
    assert "give --header or --no-header" in whole
    rows = text.count("\n")
    assert len(read_table(str(tmp_path / name), header=False).data[0]) == rows
    assert len(read_table(str(tmp_path / name), header=True).data[0]) == rows - 1


@pytest.mark.parametrize(
    "text",
    [
        "y p g\n1 0.9 -\n0 0.1 5\n",  # names, whatever the rows hold
        ",y,p\n0,1,0.9\n1,0,0.1\n",  # pandas' index column, unnamed
        '"","y","p"\n"1",1,0.9\n"2",0,0.1\n',  # R's row names
        "user_id,y-true,p.1\nu1,1,0.9\nu2,0,0.1\n",
    ],
)
def test_a_header_of_names_is_still_told_without_a_word(tmp_path, text):
    t = read_table(_write(tmp_path, "h.csv" if "," in text else "h.txt", text))
    assert t.header and len(t.data[0]) == text.count("\n") - 1


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_json_integer_past_float64_reads_as_the_same_digits_in_text(tmp_path, capsys):
    """Issue 30: a 400-digit integer in JSON lines was an internal error (OverflowError, exit 70);
    it is read as the same digits in text are (+-inf: a score must be finite), named by its line."""
    big = "9" * 400
    (tmp_path / "t.jsonl").write_text(f'\n{{"y": 1, "p": 0.5}}\n\n{{"y": 0, "p": -{big}}}\n')
    (tmp_path / "t.csv").write_text(f"y,p\n1,0.5\n\n0,-{big}\n")
    errs = []
    for name in ("t.jsonl", "t.csv"):
        code, out, err = run(["eval", str(tmp_path / name), "-m", "roc"], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1, err
        errs.append(err.replace(name, "T"))
    assert errs[0] == errs[1]
    assert (
        f"T, line 4: the score column 'p' holds -{big[:39]}... (401 characters) (a number beyond float64's "
        "range, read as -inf)" in errs[0]
    )
    # past int64 a JSON id is text; a JSON target of 400 digits is a label, not a coding
    (tmp_path / "g.jsonl").write_text(
        "".join(f'{{"y": {k % 2}, "p": 0.{k + 1}, "g": {big}{k % 2}}}\n' for k in range(4))
    )
    t = read_table(str(tmp_path / "g.jsonl"), identity=lambda n, h: [2])
    assert t.data[2].tolist() == [f"{big}0", f"{big}1"] * 2


@pytest.mark.parametrize(
    "line, says",
    [
        ('{"y": 1, "p": ' + "9" * 5000 + "}", "not valid JSON here (an integer of too many digits)"),
        ("[" * 100_000, "not valid JSON here (nested too deeply)"),
        ('{"y": 1, "p": 0.5}\f{"y": 0, "p": 0.1}', "not valid JSON (Extra data)"),
    ],
)
def test_json_lines_python_cannot_read_are_one_line(tmp_path, capsys, line, says):
    (tmp_path / "t.jsonl").write_text('{"y": 0, "p": 0.1}\n' + line + "\n")
    code, out, err = run(["eval", str(tmp_path / "t.jsonl"), "-m", "roc"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"t.jsonl, line 2: {says}" in err and "internal error" not in err


# -- Parquet: the same table, or the same error, read whole or by row group --------------------------
def _parquet(path, columns: dict, names=None, row_group_size=None):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    arrays = [pa.array(v) for v in columns.values()]
    pq.write_table(pa.table(arrays, names=names or list(columns)), path, row_group_size=row_group_size)
    return str(path)


def _parquet_both(path, argv, capsys):
    return [
        run(["eval", path, "-m", "roc,apr", "--format", "json", *argv, *extra], capsys)
        for extra in ([], ["--stream"])
    ]


def test_parquet_with_two_columns_of_one_name_reads_them_by_position(tmp_path, capsys):
    """Issue 30: two columns of one name under --stream were an internal error (exit 70), and read
    whole 'not a readable Parquet file': a position tells them apart, both ways."""
    path = _parquet(
        tmp_path / "d.parquet",
        {"y": [1, 0, 1, 0], "p": [0.9, 0.1, 0.8, 0.3], "q": [0.1, 0.9, 0.5, 0.5]},
        names=["y", "p", "p"],
    )
    got = {}
    for score in ("2", "3"):
        (a, b) = _parquet_both(path, ["--target", "1", "--score", score], capsys)
        assert a[0] == b[0] == 0, (a, b)
        got[score] = [json.loads(r[1])["measures"]["ROC"]["value"] for r in (a, b)]
    assert got == {"2": [1.0, 1.0], "3": [0.125, 0.125]}
    for r in _parquet_both(path, ["--target", "1", "--score", "p"], capsys):
        assert r[0] == 2 and "has 2 columns named 'p' (columns 2 and 3); choose one by position" in r[2], r


def test_an_empty_parquet_is_an_error_as_an_empty_text_table_is(tmp_path, capsys):
    """Issue 30: a Parquet of no rows gave exit 0 and NaN (an empty text table exits 1)."""
    pa = pytest.importorskip("pyarrow")
    path = _parquet(tmp_path / "e.parquet", {"y": pa.array([], pa.int64()), "p": pa.array([], pa.float64())})
    for code, out, err in _parquet_both(path, [], capsys):
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert f"{path}: holds no rows (columns: y, p)" in err


def test_parquet_rows_are_named_as_rows_read_whole_and_by_row_group(tmp_path, capsys):
    """Issue 30: an inf score in Parquet was said at 'line 4' read whole (its row 3, plus a header
    line it has not) and without the file or the row streamed; a null too.  A null in a column not
    used is no error (it was, read whole)."""
    rows = 10
    base = {"y": [k % 2 for k in range(rows)], "p": [k / rows for k in range(rows)], "note": ["a"] * rows}
    for column, value, says in [
        ("p", float("inf"), "row 8: the score column 'p' holds inf"),
        ("p", None, "row 8: the column 'p' holds a null, a missing value"),
        ("y", None, "row 8: the column 'y' holds a null, a missing value"),
        ("y", 2, "the target column 'y' holds 0, 1, 2"),
    ]:
        cols = {k: list(v) for k, v in base.items()}
        cols[column][7] = value
        path = _parquet(tmp_path / "r.parquet", cols, row_group_size=3)
        got = _parquet_both(path, [], capsys)
        for code, out, err in got:
            assert code == 1 and out == "" and err.count("\n") == 1, err
            assert f"{path}, {says}" in err or says.startswith("the") and says in err, err
            assert "line" not in err and "index" not in err
        assert got[0][2] == got[1][2]
    cols = {k: list(v) for k, v in base.items()}
    cols["note"][3] = None
    path = _parquet(tmp_path / "n.parquet", cols, row_group_size=3)
    a, b = _parquet_both(path, [], capsys)
    assert a[0] == b[0] == 0 and json.loads(a[1])["measures"] == json.loads(b[1])["measures"], (a, b)


def test_a_damaged_parquet_read_by_row_group_names_the_file(tmp_path, capsys):
    """Issue 30: a Parquet whose footer reads but whose pages do not was an internal error under
    --stream; it is one line naming the file, as read whole."""
    pq = pytest.importorskip("pyarrow.parquet")
    path = _parquet(
        tmp_path / "ok.parquet", {"y": [k % 2 for k in range(500)], "p": [k / 500 for k in range(500)]}
    )
    data = bytearray(open(path, "rb").read())
    off = pq.ParquetFile(path).metadata.row_group(0).column(1).data_page_offset
    data[off : off + 12] = b"\xff" * 12
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    for code, out, err in _parquet_both(str(bad), [], capsys):
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert f"{bad}: is not a readable Parquet file (" in err and "internal error" not in err


# -- an identity column written as floats: named by the option that chose it (issue 30) --------------
def _float_ids(tmp_path, fmt: str, float_col: str) -> str:
    """A table of y, p, doc, q where `float_col` (doc or q) holds floats and the other integers."""
    pd = pytest.importorskip("pandas")
    cols = {"y": [1, 0, 1, 0], "p": [0.9, 0.2, 0.8, 0.1], "doc": [1, 2, 3, 4], "q": [1, 1, 2, 2]}
    cols[float_col] = [v + 0.5 for v in cols[float_col]]
    frame = pd.DataFrame(cols)
    path = tmp_path / f"t.{fmt}"
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
        frame.to_parquet(path)
    elif fmt == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return str(path)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
@pytest.mark.parametrize(
    "option, column, other, extra",
    [
        ("--group", "q", "doc", []),
        ("--group", "q", "doc", ["--stream"]),
        # ids are read only by a dialect that breaks ties by id (trec_eval), which reads in memory
        ("--id", "doc", "q", ["--dialect", "trec_eval"]),
    ],
)
def test_a_float_identity_column_is_named_by_its_option(tmp_path, capsys, fmt, option, column, other, extra):
    """A Parquet float --id column was 'the group column' (and a CSV --group column 'the id column'):
    each door names the column by the option that chose it, --group or --id (JSON lines streamed
    too, now that they stream)."""
    path = _float_ids(tmp_path, fmt, column)
    ids = ["--id", "doc", "-m", "map"] if option == "--id" else ["-m", "ndcg"]
    argv = ["eval", path, "--target", "y", "--score", "p", "--group", "q", *ids, *extra]
    code, out, err = run(argv, capsys)
    noun = "field" if fmt == "jsonl" else "column"
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"the {option[2:]} {noun} {column!r} ({option}) " in err and repr(other) not in err, err


def test_compare_and_trec_name_a_float_identity_column_by_its_option_or_role(tmp_path, capsys):
    path = _float_ids(tmp_path, "parquet", "doc")
    other = tmp_path / "u.parquet"
    other.write_bytes(open(path, "rb").read())
    code, out, err = run(
        ["compare", path, str(other), "--target", "y", "--score", "p", "--id", "doc"], capsys
    )
    assert code == 1 and "t.parquet: the id column 'doc' (--id) holds floating-point numbers" in err, err
    pd = pytest.importorskip("pandas")
    qrels, runs = tmp_path / "q.parquet", tmp_path / "r.parquet"
    pd.DataFrame({"qid": [1.0, 1.0, 2.0], "docid": ["a", "b", "a"], "rel": [1, 0, 1]}).to_parquet(qrels)
    pd.DataFrame({"qid": [1, 1, 2], "docid": [1.5, 2.0, 1.0], "score": [0.3, 0.2, 0.1]}).to_parquet(runs)
    code, out, err = run(["trec", str(qrels), str(runs)], capsys)
    assert code == 1 and "q.parquet: the qid column 'qid' holds floating-point numbers" in err, err
    pd.DataFrame({"qid": [1, 1, 2], "docid": ["a", "b", "a"], "rel": [1, 0, 1]}).to_parquet(qrels)
    code, out, err = run(["trec", str(qrels), str(runs)], capsys)
    assert code == 1 and "r.parquet: the docid column 'docid' holds floating-point numbers" in err, err


def test_a_quote_never_closed_in_a_record_longer_than_the_chunks_says_so(tmp_path):
    """Streamed, a quoted record longer than 16 chunks is refused at its first line ('no line end
    found', though the file has line ends: inside the quote); read whole, the quote's line."""
    text = b'y,p\n1,0.9\n0,0.2\n1,"0.8\n' + b"0,0.1\n" * 400
    whole, chunked = both(tmp_path, text, name="t.csv", chunk=16)
    assert "line 4: not valid CSV: the quote that opens a field here is never closed" in whole, whole
    assert "line 4: a record longer than 0 MB (no line end outside quotes: a quote not closed?)" in chunked
