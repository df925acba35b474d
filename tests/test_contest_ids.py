"""A table task's ids (docs/contest.md, "The checks of a table submission"): matched to the key's by a
hash join (int64 ids, text ids of any width, one as int64 and one as text), with every message and
the order of the ids listed as before; data frames' columns read without a Python call a value; the
hints for leading zeros, a frame's index, a frame with no columns; a key's text ids that look like
floats matched by a CSV submission.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval.contest import read_key, score_submission
from perfeval.contest import tables as T
from perfeval.io import grammar

pd = pytest.importorskip("pandas")

TASK = (
    'name = "ids"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
    'prediction = "p"\ntarget = "y"\n[[criteria]]\nname = "AUC"\nmeasure = "roc"\n'
)


@pytest.fixture
def task(tmp_path) -> str:
    path = tmp_path / "t.toml"
    path.write_text(TASK)
    return str(path)


def _dict_lookup(mine: list, theirs: list) -> list[int]:
    """The reference: the first row of ``mine`` holding each value of ``theirs``, -1 for none."""
    first: dict = {}
    for i, v in enumerate(mine):
        first.setdefault(v, i)
    return [first.get(v, -1) for v in theirs]


# -- the hash join --------------------------------------------------------------------------------------
def test_match_ids_is_a_dict_lookup_for_int64_and_text_of_any_width():
    rng = np.random.default_rng(35)
    for trial in range(200):
        n, m = int(rng.integers(0, 60)), int(rng.integers(0, 60))
        if trial % 2:
            pool = rng.integers(-(2**63), 2**63 - 1, size=40, dtype=np.int64)
            pool[:3] = [0, -1, 2**63 - 1]
            mine, theirs = rng.choice(pool, n), rng.choice(pool, m)
        else:  # text: empty, unicode, one a prefix of another, trailing blanks
            pool = np.array(["", "a", "ab", "a ", "é", "id_0007", "007", "7", "日本", "x" * 30, "0"])
            mine, theirs = rng.choice(pool, n), rng.choice(pool, m)
            width = max(mine.dtype.itemsize, theirs.dtype.itemsize, 4) // 4
            mine, theirs = mine.astype(f"U{width}"), theirs.astype(f"U{width}")
        got = T.match_ids(mine, theirs)
        assert got.dtype == np.int64 and got.tolist() == _dict_lookup(mine.tolist(), theirs.tolist())


def test_the_key_lookup_compares_as_the_key_writes_its_ids(task, tmp_path):
    """int64 with int64; else as text, whatever the widths (a submission's ids wider than the key's)."""
    (tmp_path / "k.csv").write_text("row_id,y\n7,1\n0070,0\n12,1\n")
    key = read_key(str(tmp_path / "k.csv"), task)  # text ids: "0070" is not an integer as written
    assert key.ids.dtype.kind == "U"
    assert key.lookup(np.array([12, 7, 70], np.int64)).tolist() == [2, 0, -1]
    assert key.lookup(np.array(["0070", "12", "a much longer id than any of the key"])).tolist() == [1, 2, -1]
    (tmp_path / "k2.csv").write_text("row_id,y\n7,1\n70,0\n9223372036854775807,1\n")
    key2 = read_key(str(tmp_path / "k2.csv"), task)
    assert key2.ids.dtype == np.int64
    assert key2.lookup(np.array([9223372036854775807, 70, 8], np.int64)).tolist() == [2, 1, -1]
    assert key2.lookup(np.array(["070", "70", "7"])).tolist() == [-1, 1, 0]


def test_a_million_text_ids_are_matched_and_the_errors_are_the_same(task, tmp_path):
    """A large submission with text ids, some wrong: the messages (their rows, in the file's order, and
    the missing ids sorted) are the reference's, from a dict."""
    n = 20_000
    ids = np.array([f"id_{k:07d}" for k in range(n)], dtype=object)
    rng = np.random.default_rng(5)
    key = read_key(pd.DataFrame({"row_id": ids, "y": rng.integers(0, 2, n)}), task)
    order = rng.permutation(n)
    sub_ids = ids[order].copy()
    wrong = np.sort(rng.choice(n, 30, replace=False))
    sub_ids[wrong] = [f"zz_{k}" for k in range(30)]
    r = score_submission(task, key, pd.DataFrame({"row_id": sub_ids, "p": rng.random(n)}), name="s")
    lacking = sorted(set(ids.tolist()) - set(sub_ids.tolist()))
    want = [
        f"s, row {w + 1}, column 'row_id': id {sub_ids[w]!r} is not in the answer key" for w in wrong[:20]
    ]
    assert r.errors[:20] == want
    assert r.errors[20] == "... and 11 more errors"  # 30 + the missing ids' line, 20 listed
    assert r.n_errors == 31
    shown = ", ".join(repr(i) for i in lacking[:5])
    r2 = score_submission(task, key, pd.DataFrame({"row_id": sub_ids[:40], "p": rng.random(40)}), name="s")
    missing = sorted(set(ids.tolist()) - set(sub_ids[:40].tolist()))
    assert (
        r2.errors[-1]
        == f"s: {len(missing)} id(s) of the answer key have no prediction: "
        + ", ".join(repr(i) for i in missing[:5])
        + ", ..."
    ), r2.errors
    assert shown  # (the first five lacking ids of the first case, in code point order)


def test_a_key_id_given_twice_is_said_at_its_second_row_with_its_first(task, tmp_path):
    (tmp_path / "k.csv").write_text("row_id,y\nb,1\na,0\nc,1\na,0\nb,1\n")
    with pytest.raises(
        Exception,
        match=r"k.csv, line 5: column 'row_id': the answer key lists id 'a' twice \(first on line 3\)",
    ):
        read_key(str(tmp_path / "k.csv"), task)


# -- no Python call a value where a frame's columns are read --------------------------------------------
def test_a_frames_text_ids_are_read_without_a_python_call_a_value(task, monkeypatch):
    """frame_of's nulls and the ids' text: the frame's own vectorised tests, then only the candidates
    (here: the one None) judged in Python."""
    calls = []
    real = T._is_null
    monkeypatch.setattr(T, "_is_null", lambda v: calls.append(v) or real(v))
    n = 1000
    ids = [f"id_{k}" for k in range(n)]
    column = pd.Series(ids[:-1] + [None], dtype=object)  # pandas 2's read_csv (pandas 3's str: a NaN)
    frame = T.frame_of(pd.DataFrame({"row_id": column, "p": [0.5] * n}), "s")
    assert frame.missing["row_id"].tolist() == [n - 1]
    assert calls == [None]
    text = T.as_text(frame.data["row_id"][:-1])
    assert text.dtype == np.dtype("U6") and text.tolist() == ids[:-1]  # as wide as its longest


def test_float_looking_ids_are_found_without_a_regex_a_value(monkeypatch):
    """Ids such as id_0001 (starting as inf and nan do), UUIDs (signs inside) are not candidates: the
    grammar's regex is run on none of them; the first float id is found as before."""
    seen = []
    real = grammar.NUMBER

    class Counting:
        def match(self, v):
            seen.append(v)
            return real.match(v)

    monkeypatch.setattr(grammar, "NUMBER", Counting())
    ids = np.array(
        [f"id_{k:07d}" for k in range(500)] + [f"{k:08x}-1e2b-4c3d-9e8f-00000000" for k in range(500)]
    )
    assert grammar.first_float_id(ids) == -1
    assert seen == []
    assert grammar.first_float_id(np.append(ids, ["nan", "1e+5"])) == 1000
    assert seen == ["nan"]


def test_a_csv_submissions_lines_are_measured_as_line_by_line():
    """_measure_lines (vector passes over the bytes) against the loop it replaced: the first line
    (not the header) longer than the width, and the lines holding anything but white space."""

    def loop(body: bytes, width: int, header: int) -> tuple[int | None, int]:
        long, rows, pos, k, n = None, 0, 0, 0, len(body)
        while pos < n:
            end = body.find(b"\n", pos)
            end = n if end < 0 else end
            k += 1
            if end - pos > width:
                long = k if long is None and k != header else long
                rows += 1
            elif body[pos:end].strip():
                rows += 1
            pos = end + 1
        return long, rows

    rng = np.random.default_rng(11)
    alphabet = [b"a", b"1", b" ", b"\t", b"\n", b"\n", b"\r", b"\x0b", b"\x0c", b",", b"\x1c", b"\xa0"]
    for _ in range(3000):
        body = b"".join(alphabet[i] for i in rng.integers(0, len(alphabet), int(rng.integers(0, 30))))
        width, header = int(rng.integers(0, 6)), int(rng.integers(0, 4))
        assert T._measure_lines(body, width, header)[:2] == loop(body, width, header), (body, width, header)


# -- a key's text ids that look like floats -------------------------------------------------------------
def test_a_csv_submission_matches_a_keys_text_ids_that_look_like_floats(task, tmp_path):
    """A key of text ids (a data frame's, a Parquet file's) may hold ``1.5``: a CSV submission writing
    the same text matches it, as a data frame or a Parquet submission does; an id written as a float
    that is not the key's is still refused in one line with the float hint, and against a key of
    integers a CSV's float id is refused as before."""
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    ids, y = ["1.5", "2.5", "x7", "1e+5"], [1, 0, 1, 0]
    pq.write_table(pa.table({"row_id": ids, "y": y}), tmp_path / "k.parquet")
    for key in (
        read_key(pd.DataFrame({"row_id": ids, "y": y}), task),
        read_key(str(tmp_path / "k.parquet"), task),
    ):
        sub = tmp_path / "s.csv"
        sub.write_text("row_id,p\n2.5,0.2\n1.5,0.9\n1e+5,0.1\nx7,0.8\n")
        r = score_submission(task, key, str(sub))
        assert r.ok and r.scores == {"AUC": 1.0}, r.errors
        frame = score_submission(
            task, key, pd.DataFrame({"row_id": ["2.5", "1.5", "1e+5", "x7"], "p": [0.2, 0.9, 0.1, 0.8]})
        )
        assert frame.scores == r.scores
        sub.write_text("row_id,p\n2.5,0.2\n1.50,0.9\n1e+5,0.1\nx7,0.8\n")
        r = score_submission(task, key, str(sub))
        assert r.errors == [
            f"{sub}, line 3: the id column 'row_id' holds '1.50', a float: ids must be integers or text "
            "(past 2^53 a float has merged ids); write them as integers (pandas: .astype('int64')) or as text"
        ], r.errors
    (tmp_path / "k.csv").write_text("row_id,y\n1,1\n2,0\n")
    key = read_key(str(tmp_path / "k.csv"), task)
    (tmp_path / "s.csv").write_text("row_id,p\n1.0,0.2\n2,0.9\n")
    r = score_submission(task, key, str(tmp_path / "s.csv"))
    assert len(r.errors) == 1 and "line 2: the id column 'row_id' holds '1.0', a float" in r.errors[0], (
        r.errors
    )


# -- a data frame's columns -----------------------------------------------------------------------------
def test_an_empty_data_frame_is_said_to_have_no_columns(task, tmp_path):
    (tmp_path / "k.csv").write_text("row_id,y\n1,1\n2,0\n")
    key = read_key(str(tmp_path / "k.csv"), task)
    r = score_submission(task, key, pd.DataFrame(), name="s")
    assert r.errors == ["s: no column 'row_id' (it has no columns); a submission's columns are row_id, p"]
    with pytest.raises(
        Exception, match=r"the answer key has no column 'row_id' \(the task's id column; it has no columns\)$"
    ):
        read_key(pd.DataFrame(), task)


def test_ids_set_as_the_index_suggest_reset_index(task, tmp_path):
    (tmp_path / "k.csv").write_text("row_id,y\n1,1\n2,0\n")
    key = read_key(str(tmp_path / "k.csv"), task)
    sub = pd.DataFrame({"row_id": [1, 2], "p": [0.9, 0.1]})
    r = score_submission(task, key, sub.set_index("row_id"), name="s")
    assert r.errors == [
        "s: no column 'row_id' (the header names 'p'); a submission's columns are row_id, p; 'row_id' is "
        "the data frame's index: reset_index() makes it a column"
    ]
    assert score_submission(task, key, sub.set_index("row_id").reset_index()).ok
    # the prediction as the index: said of it; an index of another name, or none: no hint
    r = score_submission(task, key, sub.set_index("p"), name="s")
    assert r.errors[0].endswith("; 'p' is the data frame's index: reset_index() makes it a column")
    other = sub.drop(columns=["row_id"]).rename_axis("rid")
    for frame in (other, sub.drop(columns=["row_id"])):
        r = score_submission(task, key, frame, name="s")
        assert r.errors == [
            "s: no column 'row_id' (the header names 'p'); a submission's columns are row_id, p"
        ]
    solution = pd.DataFrame({"row_id": [1, 2], "y": [1, 0]}).set_index("row_id")
    with pytest.raises(
        Exception, match=r"'row_id' is the data frame's index: reset_index\(\) makes it a column$"
    ):
        read_key(solution, task)


# -- leading zeros --------------------------------------------------------------------------------------
def test_ids_with_their_leading_zeros_dropped_or_added_get_one_hint(task, tmp_path):
    """A key of zero-padded text ids and a submission whose ids were made numbers (``108`` for
    ``0108``), or the reverse: after the errors (never cut by the 20-line cap), one line saying how
    many, the first with its key id, and what to do; none when no unmatched id is such a one."""
    n = 30
    key_ids = [f"{k:04d}" for k in range(100, 100 + n)]
    (tmp_path / "k.csv").write_text("row_id,y\n" + "".join(f"{i},{k % 2}\n" for k, i in enumerate(key_ids)))
    key = read_key(str(tmp_path / "k.csv"), task)
    assert key.ids.dtype.kind == "U"
    sub = tmp_path / "s.csv"
    sub.write_text("row_id,p\n" + "".join(f"{int(i)},0.5\n" for i in reversed(key_ids)))
    r = score_submission(task, key, str(sub))
    assert r.errors[0] == f"{sub}, line 2, column 'row_id': id '129' is not in the answer key"
    assert r.errors[20] == "... and 11 more errors" and r.n_errors == 31
    assert r.errors[21:] == [
        f"{sub}: 30 id(s) not in the answer key are ids of it with other leading zeros ('129' for '0129', "
        "...): the key's ids are text: keep them as text, zeros included (pandas: read_csv(..., "
        "dtype={'row_id': str}); a spreadsheet: a text column)"
    ], r.errors
    # a data frame of integers (read_csv without dtype=str): the same
    frame = pd.DataFrame({"row_id": [int(i) for i in key_ids], "p": 0.5})
    assert (
        score_submission(task, key, frame, name="f")
        .errors[-1]
        .startswith(
            "f: 30 id(s) not in the answer key are ids of it with other leading zeros ('100' for '0100', ...)"
        )
    )
    # the reverse: a key of integers, zeros added; one id only
    (tmp_path / "k2.csv").write_text("row_id,y\n108,1\n7,0\n9,1\n")
    key2 = read_key(str(tmp_path / "k2.csv"), task)
    sub.write_text("row_id,p\n0108,0.5\n7,0.2\n9,0.1\n")
    r = score_submission(task, key2, str(sub))
    assert r.errors == [
        f"{sub}, line 2, column 'row_id': id '0108' is not in the answer key",
        f"{sub}: 1 id(s) of the answer key have no prediction: '108'",
        f"{sub}: 1 id(s) not in the answer key are ids of it with other leading zeros ('0108' for '108'): "
        "write the ids as the key writes them, without the zeros added",
    ], r.errors
    assert r.n_errors == 2
    # ids merely wrong, or a zero-stripped id whose key id has its prediction: no hint
    for body in ("row_id,p\n0109,0.5\n7,0.2\n9,0.1\n", "row_id,p\n108,0.5\n0108,0.4\n7,0.2\n9,0.1\n"):
        sub.write_text(body)
        r = score_submission(task, key2, str(sub))
        assert not r.ok and not any("leading zeros" in e for e in r.errors), r.errors


def test_a_missing_id_in_pandas_text_column_is_a_missing_id(task):
    """pandas 3's text columns (dtype str) hold NaN for a missing value: a missing id (not 'nan', a
    float), as None in a column of objects is; a column of objects' NaN is still a number."""
    key = read_key(pd.DataFrame({"row_id": ["a", "b", "c"], "y": [1, 0, 1]}), task)
    want = [
        "s, row 3, column 'row_id': missing id (a null)",
        "s: 1 id(s) of the answer key have no prediction: 'c'",
    ]
    for ids in (pd.Series(["a", "b", None], dtype=object), pd.Series(["a", "b", None], dtype="string")):
        r = score_submission(task, key, pd.DataFrame({"row_id": ids, "p": [0.1, 0.2, 0.3]}), name="s")
        assert r.errors == want, r.errors
    try:
        ids = pd.Series(["a", "b", None], dtype="str")
    except TypeError:  # pandas before 3 has no str dtype
        pytest.skip("pandas has no str dtype")
    if str(ids.dtype) != "str":
        pytest.skip("pandas has no str dtype")
    r = score_submission(task, key, pd.DataFrame({"row_id": ids, "p": [0.1, 0.2, 0.3]}), name="s")
    assert r.errors == want, r.errors
    p = pd.Series(["0.1", "0.2", None], dtype="str")
    r = score_submission(task, key, pd.DataFrame({"row_id": ["a", "b", "c"], "p": p}), name="s")
    assert r.errors == ["s, row 3, column 'p': missing prediction (a null)"], r.errors


def test_match_ids_takes_strided_and_byte_swapped_text_of_other_widths():
    mine = np.array(["b", "x", "a", "x", "c", "x"])[::2]  # strided
    theirs = np.array(["c", "a", "zz", "b"]).astype(">U3")  # another width, big-endian
    assert T.match_ids(mine, theirs).tolist() == [2, 1, -1, 0]
