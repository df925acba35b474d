"""The compiled readers of CSV/TSV bodies (``_native.parse_table`` for plain numbers,
``_native.parse_delimited`` for bodies with text columns) read exactly what the CSV parser's path of
:mod:`perfeval.io.tables` reads: the same arrays (dtype and bytes), the same lines, the same error.
The slow path is the reference: Python's csv module, str.split/strip and the grammar's regular
expressions."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfeval import _native
from perfeval.exceptions import PerfError
from perfeval.io import tables
from perfeval.io.readers import iter_columns, read_table
from perfeval.io.tables import Layout, parse_body


@contextlib.contextmanager
def slow_only():
    """The CSV parser's path alone: neither compiled reader."""
    fast_ok, delimited = tables._fast_ok, tables._delimited
    tables._fast_ok = lambda *a, **k: False
    tables._delimited = lambda *a, **k: None
    try:
        yield
    finally:
        tables._fast_ok, tables._delimited = fast_ok, delimited


def outcome(read):
    """(arrays as (dtype, bytes), lines of each row) or the error message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = read()
    except PerfError as e:
        return str(e)
    rows = len(t.data[0]) if t.data else 0
    some = sorted({*range(min(rows, 40)), *range(max(rows - 40, 0), rows)})  # line_of scans the body
    return [(a.dtype.str, a.tobytes()) for a in t.data], [t.line_of(i) for i in some], t.names, t.empties


def both_paths(path, ids=()):
    def read():
        return read_table(str(path), identity=lambda names, header: [i for i in ids if i < len(names)])

    fast = outcome(read)
    with slow_only():
        slow = outcome(read)
    return fast, slow


# -- values as tools write them ---------------------------------------------------------------------
_FLOATS = st.one_of(
    st.floats(allow_nan=False, width=64),
    st.sampled_from([0.0, -0.0, 1e-320, 5e-324, 1.7976931348623157e308, 1e22, 1e23, 0.1, 2.0**53]),
)
_NUM_TEXT = st.one_of(
    _FLOATS.map(repr),
    _FLOATS.map(lambda x: f"{x:.17e}" if np.isfinite(x) else repr(x)),
    _FLOATS.map(lambda x: f"{x:G}"),
    st.sampled_from(["nan", "-nan", "NaN", "inf", "-Infinity", "+.5", "5.", "1E+05", "-0", "1e400", "0x10"]),
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.sampled_from([str(2**63 - 1), str(-(2**63)), str(2**63), "007", "+7", "-0", str(2**53 + 1)]),
)
_TEXT = st.one_of(
    st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00\r\n"),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(
        ["u12345", "#N/A", "#123", "NA", "a, b", 'say "hi"', "café", "日本", " x ", "\xa0y", "z\u3000"]
    ),
)
_CELL = st.one_of(_NUM_TEXT, _NUM_TEXT, _TEXT, st.just(""))


def _quote(v: str, d: str, how: int) -> str:
    need = any(c in v for c in (d, '"', "\n", "\r"))
    if need or how == 2:
        return '"' + v.replace('"', '""') + '"'
    return v


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ncol=st.integers(1, 4),
    rows=st.integers(0, 12),
    data=st.data(),
    delim=st.sampled_from([",", "\t", ";"]),
    header=st.booleans(),
    crlf=st.booleans(),
    bom=st.booleans(),
    pad=st.sampled_from(["", " ", "\t", "  "]),
)
def test_the_compiled_readers_read_what_the_csv_parser_reads(
    tmp_path_factory, ncol, rows, data, delim, header, crlf, bom, pad
):
    kinds = data.draw(st.lists(st.sampled_from(["num", "num", "text", "any"]), min_size=ncol, max_size=ncol))
    how = data.draw(st.sampled_from([0, 0, 1, 2]))  # quotes: when needed / never asked / always
    lines = [delim.join(_quote(f"c{k}", delim, how) for k in range(ncol))] if header else []
    for _ in range(rows):
        cells = []
        for k in kinds:
            v = data.draw(_NUM_TEXT if k == "num" else _TEXT if k == "text" else _CELL)
            cells.append(pad + _quote(v, delim, how) + data.draw(st.sampled_from(["", pad])))
        lines.append(delim.join(cells))
        if data.draw(st.integers(0, 9)) == 0:
            lines.append(data.draw(st.sampled_from(["", "   ", "\t"])))
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + data.draw(st.sampled_from([end, ""]))
    d = tmp_path_factory.mktemp("t")
    path = d / "t.csv"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    ids = data.draw(st.lists(st.integers(0, ncol - 1), max_size=2, unique=True))
    fast, slow = both_paths(path, ids)
    assert fast == slow


def _chunks(path, ncol, ids):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parts = list(iter_columns(str(path), [str(k + 1) for k in range(ncol)], chunk_bytes=64, ids=ids))
    except PerfError as e:
        return str(e)
    return [[(a.dtype.str, a.tobytes()) for a in p] for p in parts]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z#][a-z0-9]{0,6}", fullmatch=True),
            st.integers(2**53, 2**63 - 1),
            st.integers(0, 1),
            _FLOATS,
        ),
        min_size=1,
        max_size=40,
    )
)
def test_chunked_reads_are_the_same_on_both_paths(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("c") / "t.csv"
    path.write_text("user,item,y,score\n" + "".join(f"{u},{i},{y},{s!r}\n" for u, i, y, s in rows))
    fast = _chunks(path, 4, [0, 1])
    with slow_only():
        slow = _chunks(path, 4, [0, 1])
    assert fast == slow and not isinstance(fast, str)


# -- the compiled reader on byte soup: it reads it as the CSV parser's path does, or gives it up -----
_PIECES = [
    b"1", b"2.5", b"-3e4", b"nan", b"-0", b"9223372036854775807", b"9223372036854775808", b"u1",
    b"#", b" ", b"\t", b"\x0b", b"\x0c", b"\x1c", b"\xc2\xa0", b"\xe3\x80\x80", b"\xe2\x80\x8b",
    b"\xc3\xa9", b"\xff", b"\xc2", b"\xe2\x80", b",", b",", b";", b"\n", b"\n", b'"', b"\x7f",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=40),
    st.sampled_from([",", ";", "\t", " "]),
    st.integers(1, 3),
    st.lists(st.integers(0, 2), max_size=2),
    st.booleans(),
)
def test_parse_delimited_on_byte_soup(parts, delim, ncol, ids, header):
    body = b"".join(parts)
    lay = Layout("csv", delim, header, [f"c{k}" for k in range(ncol)], 0, 0)

    def read():
        cols, lines = parse_body(body, lay, ncol, set(ids), "t.csv", 0)
        return cols, lines

    def canon(res):
        if isinstance(res, str):
            return res
        return [(a.dtype.str, a.tobytes()) for a in res[0]]

    def run(read):
        try:
            return read()
        except PerfError as e:
            return str(e)

    fast = run(read)
    with slow_only():
        slow = run(read)
    assert canon(fast) == canon(slow)


def test_a_text_column_found_late_is_read_again_as_text(tmp_path):
    """A column of numbers in the first lines (the compiled reader's guess) that holds text further
    on: read again with that column as text, the same table as the CSV parser's."""
    n = 20_000
    vals = [f"{k * 0.5}" for k in range(n)]
    vals[n - 3] = "x7"
    path = tmp_path / "late.csv"
    path.write_text("a,b,c\n" + "".join(f"{k},{v},u{k % 7}\n" for k, v in enumerate(vals)))
    fast, slow = both_paths(path, ids=(2,))
    assert fast == slow
    t = read_table(str(path), identity=lambda n, h: [2])
    assert t.lines is None and t.data[1].dtype.kind == "U" and t.data[1][n - 3] == "x7"
    assert t.data[0].dtype == np.float64 and t.data[2].tolist()[:3] == ["u0", "u1", "u2"]


def test_ids_at_the_int64_edges_and_floats_exactly(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text(
        "user,item,y,score\n"
        f"u1,{2**63 - 1},1,-0.0\n"
        f"u2,{-(2**63)},0,1e-320\n"
        f"#3,{2**53 + 1},1,1.7976931348623157e308\n"
    )
    t = read_table(str(path), identity=lambda n, h: [0, 1])
    assert t.lines is None  # the compiled reader
    assert t.data[0].tolist() == ["u1", "u2", "#3"]
    assert t.data[1].dtype == np.int64 and t.data[1].tolist() == [2**63 - 1, -(2**63), 2**53 + 1]
    assert np.signbit(t.data[3][0]) and t.data[3][1] == 1e-320 and t.line_of(2) == 4
    fast, slow = both_paths(path, ids=(0, 1))
    assert fast == slow


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"u,y,p\na,1,0.5\nb,1\n", "line 3: expected 3 fields, found 2"),
        (b"u,y,p\na,1,0.5\nb,1,0.5,9\n", "line 3: expected 3 fields, found 4"),
    ],
)
def test_errors_of_a_table_with_text_are_the_csv_parsers(tmp_path, content, fragment):
    path = tmp_path / "b.csv"
    path.write_bytes(content)
    fast, slow = both_paths(path)
    assert fast == slow and fragment in fast


@pytest.mark.parametrize(
    "content",
    [b"u,y,p\na,1,0.5\nb,,0.5\n", b'u,y,p\na,1,0.5\nb,"",0.5\n', b"u,y,p\na,1,0.5\nb, ,0.5\n"],
)
def test_an_empty_field_is_kept_as_text_the_same_both_ways(tmp_path, content):
    """An empty field (blanks, or "" quoted) is no error when read: its column is text, the field ""
    and its row noted (an error only where the column is used)."""
    path = tmp_path / "b.csv"
    path.write_bytes(content)
    fast, slow = both_paths(path)
    assert fast == slow
    t = read_table(str(path))
    assert t.data[1].tolist() == ["1", ""] and t.data[2].tolist() == [0.5, 0.5] and t.empties == {1: 1}


def test_a_table_r_wrote_reads_as_written():
    """A file R's write.csv wrote (tests/oracles/make_r_csv.R): the quoted header with the row names'
    column named "", quoted strings (a '#', a blank, a comma, a doubled quote inside), numbers bare."""
    from pathlib import Path

    path = Path(__file__).resolve().parent / "oracles" / "fixtures" / "r_write_csv.csv"
    assert path.read_text().splitlines()[0] == '"","user","item","y","score"'
    t = read_table(str(path), identity=lambda names, header: [0, 1])
    assert t.names == ["", "user", "item", "y", "score"]
    assert t.data[1].tolist() == ["u1", "#u2", "u 3", "u,4", 'u"5']
    assert t.data[0].tolist() == [1, 2, 3, 4, 5] and t.data[4].tolist() == [0.25, -0.5, 1e-300, 0.75, 0.125]
    fast, slow = both_paths(path, ids=(0, 1))
    assert fast == slow


def test_quoted_files_as_r_and_pandas_write_them(tmp_path):
    """R's write.csv quotes every string and the header; pandas' QUOTE_NONNUMERIC every string: the
    compiled reader reads them (the same table as the csv module's path)."""
    pd = pytest.importorskip("pandas")
    import csv

    rows = [("u1", 9007199254740993, 1, 0.25), ("#u2", 7, 0, -0.0), ("u 3", 2**63 - 1, 1, 1e-300)]
    lines = ['"","user","item","y","score"'] + [
        f'"{k + 1}","{u}",{i},{y},{s!r}' for k, (u, i, y, s) in enumerate(rows)
    ]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    df = pd.DataFrame(rows, columns=["user", "item", "y", "score"])
    df.to_csv(tmp_path / "p.csv", index=False, quoting=csv.QUOTE_NONNUMERIC)
    for name, user in (("r.csv", 1), ("p.csv", 0)):
        t = read_table(str(tmp_path / name), identity=lambda n, h, user=user: [user, user + 1])
        assert t.lines is None, name  # the compiled reader
        assert t.data[user].tolist() == ["u1", "#u2", "u 3"]
        assert t.data[user + 1].dtype == np.int64 and t.data[user + 1].tolist() == [r[1] for r in rows]
        fast, slow = both_paths(tmp_path / name, ids=(user, user + 1))
        assert fast == slow


@pytest.mark.parametrize(
    "row", ['"a""b",1,0.5', '"a"b,1,0.5', 'a"b,1,0.5', ' "a",1,0.5', '"a\nb",1,0.5', '"",1,0.5', '"a,1,0.5']
)
def test_quotes_the_compiled_reader_leaves_to_the_csv_module(tmp_path, row):
    path = tmp_path / "q.csv"
    path.write_text(f"u,y,p\nz,0,0.25\n{row}\nw,1,0.75\n")
    fast, slow = both_paths(path, ids=(0,))
    assert fast == slow


def test_the_csv_modules_field_size_limit_is_kept(tmp_path):
    import csv

    path = tmp_path / "big.csv"
    path.write_text('u,y,p\n"q",0,0.25\n' + "x" * 50 + ",1,0.5\n")
    old = csv.field_size_limit(40)
    try:
        fast, slow = both_paths(path, ids=(0,))
    finally:
        csv.field_size_limit(old)
    assert fast == slow and "field larger than field limit" in fast


def test_a_large_body_read_in_two_halves(tmp_path):
    """More than 4 MB: parse_delimited reads it in two halves on two threads; a column that turns to
    text in the second half only, quoted ids in the first: the csv module's table, to the bit."""
    rng = np.random.default_rng(11)
    n = 200_000
    users = [f"u{k}" for k in rng.integers(0, 5000, n).tolist()]
    users[7] = '"u 7"'
    item = rng.integers(2**53, 2**63 - 1, n).tolist()
    label = [str(v) for v in rng.integers(0, 2, n).tolist()]
    label[n - 10] = "yes"  # text, far past the first 64 KB and past the middle
    score = rng.random(n).tolist()
    path = tmp_path / "big.csv"
    path.write_text(
        "user,item,label,score\n"
        + "".join(f"{u},{i},{y},{s!r}\n" for u, i, y, s in zip(users, item, label, score, strict=True))
    )
    assert path.stat().st_size > 4 << 20
    fast, slow = both_paths(path, ids=(0, 1))
    assert fast == slow
    t = read_table(str(path), identity=lambda n, h: [0, 1])
    assert t.lines is None and t.data[0][7] == "u 7" and t.data[1].tolist() == item
    assert t.data[2].dtype.kind == "U" and t.data[2][n - 10] == "yes" and t.data[3].tolist() == score


@pytest.mark.parametrize("char", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_a_line_end_of_some_readers_is_data_in_quotes_and_refused_outside_on_both_paths(tmp_path, char):
    """Issue 30: in a quoted field the compiled reader and the CSV parser read such a character as
    data, the same arrays; outside quotes both refuse it, naming its line and column, before either
    reads (it used to merge two rows, or split a field, or be stripped as a blank)."""
    quoted = tmp_path / "q.csv"
    quoted.write_text(f'id,y,p\n"a{char}b",1,0.5\n"c{char}",0,0.25\n"{char}d",1,0.125\n', encoding="utf-8")
    fast, slow = both_paths(quoted, [0])
    assert fast == slow and not isinstance(fast, str)
    bare = tmp_path / "b.csv"
    bare.write_text(f"id,y,p\n7,1,0.5\n8,0,0.25{char}9,1,0.125\n", encoding="utf-8")
    fast, slow = both_paths(bare, [0])
    assert fast == slow and isinstance(fast, str)
    assert fast.startswith(f"{bare}, line 3: holds a ") and "at column 9," in fast
    assert _chunks(bare, 3, [0]) == fast


def test_the_compiled_reader_reads_empty_fields_itself():
    """An empty field (pandas' NaN and None) does not send the body to the csv module (six times the
    time on a million rows): the compiled reader reads its column as text, the field "" (blanks
    around it dropped, quoted or not), as the CSV parser's path does."""
    body = b'a,1,0.5\nb,,0.5\nc, ,0.25\nd,"",1\n'
    assert _native.parse_delimited(body, ",", bytes([2, 0, 0])) == ("text", 1)
    res = _native.parse_delimited(body, ",", bytes([2, 2, 0]))
    assert res[0] == "ok" and res[2] == 4
    assert tables._from_kernel(res[1][1]).tolist() == ["1", "", "", ""]
    assert tables._from_kernel(res[1][2]).tolist() == [0.5, 0.5, 0.25, 1.0]
    res = _native.parse_delimited(b"7,0.5\n,0.5\n", ",", bytes([1, 0]))  # an identity: text then
    assert res[0] == "ok" and tables._from_kernel(res[1][0]).tolist() == ["7", ""]
