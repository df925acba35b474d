"""TREC qrels and runs (files, compressed files, dicts): read exactly, bad input named by line."""

from __future__ import annotations

import bz2
import gzip
import lzma
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfeval import _native
from perfeval.exceptions import InputFormatError, InvalidDataError
from perfeval.io import grammar
from perfeval.io.trec import Qrels, Run, read_qrels, read_run


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


def test_a_byte_order_mark_is_not_part_of_the_first_query_id(tmp_path):
    """Notepad and PowerShell's ``Out-File -Encoding utf8`` start a file with a UTF-8 BOM: it must not
    turn the first query 'q1' into a query of its own (unjudged, or unanswered and scored 0)."""
    bom = b"\xef\xbb\xbf"
    for compress in (lambda b: b, gzip.compress):
        (tmp_path / "q").write_bytes(compress(bom + b"q1 0 d1 1\nq1 0 d2 0\n"))
        (tmp_path / "r").write_bytes(compress(bom + b"q1 Q0 d1 1 2.0 t\r\nq1 Q0 d2 2 1.0 t\r\n"))
        q, r = read_qrels(str(tmp_path / "q")), read_run(str(tmp_path / "r"))
        assert q.qid.tolist() == ["q1", "q1"] and r.qid.tolist() == ["q1", "q1"]
        assert r.score.tolist() == [2.0, 1.0] and r.name == "t"
    (tmp_path / "bad").write_bytes(bom + b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2\n")
    with pytest.raises(InputFormatError, match="line 2"):  # lines counted as before
        read_run(str(tmp_path / "bad"))


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(InputFormatError, match="cannot be read"):
        read_qrels(str(tmp_path / "nope"))


def test_empty_files_are_empty():
    r = read_run({})
    assert len(r) == 0 and r.score.dtype == np.float64


# -- the compiled reader (_native.trec_read) against the pure-Python reader it replaced ----------------


def _old_read(path: str, run: bool) -> dict:
    """The pure-Python reader of perfeval.io.trec before the compiled one (commit 7d72514), step for
    step: every row's ids as text, the numbers, the name, or the same error.
    """
    from perfeval.base.text import shown
    from perfeval.io.tables import open_bytes

    n, what = (6, "qid Q0 docid rank score tag") if run else (4, "qid iter docid rel")
    fh = open_bytes(path, path)
    body = fh.read()
    fh.close()
    records: list[bytes] = []
    numbers = []
    for i, line in enumerate(body.split(b"\n"), 1):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != n:
            raise InputFormatError(f"expected {n} fields ({what}), found {len(tokens)}", source=path, line=i)
        records.extend(tokens)
        numbers.append(i)
    lines = np.array(numbers, dtype=np.int64)

    def text(tokens):
        try:
            return np.array([t.decode("utf-8") for t in tokens], dtype=str)
        except UnicodeDecodeError:
            raise InputFormatError("holds text that is not UTF-8 in an id field", source=path) from None

    def nums(tokens, field, label):
        t = [x.decode("utf-8", "replace") for x in tokens]
        out = grammar.numbers(t)
        if out is None:
            i = grammar.first_bad_number(t)
            raise InputFormatError(
                f"expected a number ({label}), found {t[i][:40]!r}",
                source=path,
                line=int(lines[i]),
                field=field,
            )
        return out

    qid, docid = text(records[0::n]), text(records[2::n])
    if run:
        rank = nums(records[3::6], 4, "the rank")
        values = nums(records[4::6], 5, "the score")
    else:
        values = nums(records[3::4], 4, "the relevance")
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        if run:
            raise InputFormatError(
                f"the score must be a finite number, found {float(values[i])!r}",
                source=path,
                line=int(lines[i]),
                field=5,
            )
        raise InputFormatError(
            f"the relevance must be finite, found {float(values[i])!r}", source=path, line=int(lines[i])
        )
    if len(qid) > 1:
        order = np.lexsort((docid, qid))
        q, d = qid[order], docid[order]
        same = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
        if same.any():
            k = int(np.argmax(same))
            a, b = sorted((int(order[k]), int(order[k + 1])))
            message = f"query {shown(str(q[k]))!r}, document {shown(str(d[k]))!r} is given twice"
            raise InputFormatError(
                f"{message} (lines {lines[a]} and {lines[b]})", source=path, line=int(lines[b])
            )
    out = {"qid": qid.tolist(), "docid": docid.tolist(), "values": values.tolist()}
    if run:
        tags = set(records[5::6])
        out["name"] = tags.pop().decode("utf-8", "replace") if len(tags) == 1 else path
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out["rank"] = rank.astype(np.int64).tolist()
    return out


def _new_read(path: str, run: bool) -> dict:
    x = read_run(path) if run else read_qrels(path)
    _check_codes(x)
    out = {"qid": x.qid.tolist(), "docid": x.docid.tolist()}
    if isinstance(x, Run):
        out |= {"values": x.score.tolist(), "name": x.name, "rank": x.rank.tolist()}
        assert x.rank.dtype == np.int64 and x.order.tolist() == list(range(len(x)))
    else:
        out["values"] = x.rel.tolist()
    return out


def _check_codes(x: Qrels | Run) -> None:
    """Codes index sorted vocabularies of distinct ids: code order is string order."""
    for code, vocab, text in ((x.qcode, x.qvocab, x.qid), (x.dcode, x.dvocab, x.docid)):
        assert code.dtype == np.int64 and vocab.dtype.kind == "U"
        assert (vocab[:-1] < vocab[1:]).all()  # sorted, each id once
        assert np.array_equal(vocab[code], text)
        assert set(code.tolist()) == set(range(len(vocab)))  # no id without a row
        order = np.argsort(code, kind="stable")
        assert np.array_equal(order, np.argsort(text, kind="stable"))


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except (InputFormatError, InvalidDataError) as e:
        return type(e).__name__, str(e)


def _same_as_before(path: str, run: bool) -> tuple:
    new, old = _outcome(_new_read, path, run), _outcome(_old_read, path, run)
    assert new == old
    return new


def _write(path, data: bytes, packing: str) -> str:
    pack = {"plain": lambda b: b, "gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[packing]
    path.write_bytes(pack(data))
    return str(path)


# ids: short pools, so that queries repeat and pairs are sometimes given twice; "007" and "7" apart,
# non-ASCII letters (and the separators of str.split that bytes.split keeps: NEL, NBSP), a NUL byte
_IDS = st.sampled_from(
    ["7", "007", "q1", "Q1", "é", "中文", "😀", "a\x85b", "x\xa0", "d1", "d10", "d2", "-", "a\x00"]
    # longer than a word, or than the 16 bytes a hash slot holds, with common beginnings
    + ["abcdefgh", "abcdefgh1", "abcdefgh\x001", "clueweb09-en0000-00-00001", "clueweb09-en0000-00-0000é"]
)
_FINITE = st.one_of(
    st.sampled_from(
        [
            "0",
            "1",
            "007",
            "-0",
            "+3",
            "1.",
            ".5",
            "1e3",
            "-2.5E-3",
            "1e-400",
            "0.1000000000000000055511",
            "0." + "1" * 130,
        ]
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-(10**20), 10**20).map(str),
)
_NUMBERS = st.one_of(_FINITE, st.sampled_from(["inf", "-Infinity", "NaN", "+nan", "1e400"]))
_NOT_NUMBERS = st.sampled_from(["high", "1_000", "0x10", "１", "1e", ".", "--1", "nan(1)", "1,5", "é"])
_BLANKS_ = st.sampled_from([" ", "\t", "  ", " \t ", "\v", "\f", "\r"])


@st.composite
def _trec_file(draw, run: bool) -> bytes:
    """A file of up to 12 lines; half of the files are well formed, the others have now and then a
    field too few or too many, a token that is not a number, a non-finite value, an id not UTF-8."""
    rows = []
    noisy = draw(st.booleans())

    def now_and_then(rate: int) -> bool:
        return noisy and draw(st.integers(0, rate - 1)) == 0

    for _ in range(draw(st.integers(0, 12))):
        q, d = draw(_IDS), draw(st.one_of(_IDS, st.sampled_from([f"doc{k}" for k in range(6)])))
        numbers = [draw(_NUMBERS if now_and_then(2) else _FINITE) for _ in range(2 if run else 1)]
        if now_and_then(10):
            numbers[draw(st.integers(0, len(numbers) - 1))] = draw(_NOT_NUMBERS)
        fields = (
            [q, "Q0", d, *numbers, draw(st.sampled_from(["bm25", "bm25", "dph"]))]
            if run
            else [q, "0", d, *numbers]
        )
        if now_and_then(15):
            fields = fields[:-1] if draw(st.booleans()) else [*fields, "extra"]
        line = draw(_BLANKS_).join(fields)
        if draw(st.booleans()):
            line = draw(_BLANKS_) + line + draw(_BLANKS_)
        rows.append(line.encode())
        if draw(st.integers(0, 4)) == 0:
            rows.append(draw(st.sampled_from([b"", b" ", b"\t\r"])))  # a blank line
    data = b"".join(r + draw(st.sampled_from([b"\n", b"\r\n"])) for r in rows)
    if data and draw(st.booleans()):
        data = data.rstrip(b"\r\n")  # no line end after the last line
    if data and now_and_then(6):
        data = data.replace(b"d1", b"d\xff", 1)  # an id that is not UTF-8
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_trec_file(run=True), packing=st.sampled_from(["plain", "plain", "gz", "bz2", "xz"]))
def test_run_files_read_as_the_pure_python_reader_read_them(tmp_path, data, packing):
    _same_as_before(_write(tmp_path / "run", data, packing), run=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_trec_file(run=False), packing=st.sampled_from(["plain", "plain", "gz", "bz2", "xz"]))
def test_qrels_files_read_as_the_pure_python_reader_read_them(tmp_path, data, packing):
    _same_as_before(_write(tmp_path / "qrels", data, packing), run=False)


def _big_run(rng, lines: int, prefix: str) -> list[str]:
    """Lines of a run: queries in turn, documents from a corpus of 50,000."""
    docs = rng.integers(0, 50_000, size=lines)
    return [
        f"{301 + k // 100} Q0 {prefix}{docs[k]} {k % 100 + 1} {20 - k % 100 / 7:.6f} bm25"
        for k in range(lines)
    ]


@pytest.mark.parametrize("prefix", ["D", "clueweb09-en0000-"])
@pytest.mark.parametrize(
    "edit",
    ["none", "blank lines in the first half", "fields", "number", "finite", "duplicate", "utf8", "two tags"],
)
def test_inputs_read_by_two_threads_as_by_one(tmp_path, edit, prefix):
    """Above 4 MiB the lines are read in two halves (two threads, two dictionaries, merged): the same
    rows, codes and errors, with line numbers counted across the halves."""
    rng = np.random.default_rng(3)
    lines = _big_run(rng, 150_000, prefix)  # over 5 MiB
    for q in range(1500):  # a query's documents each once
        block = lines[q * 100 : (q + 1) * 100]
        seen: set[str] = set()
        for k, line in enumerate(block):
            f = line.split()
            while f[2] in seen:
                f[2] = f"{prefix}{rng.integers(0, 50_000)}"
            seen.add(f[2])
            block[k] = " ".join(f)
        lines[q * 100 : (q + 1) * 100] = block
    late = 140_000  # a line in the second half
    if edit == "blank lines in the first half":
        lines[10:10] = ["", "  ", "\t"]
    elif edit == "fields":
        lines[late] += " extra"
    elif edit == "number":
        lines[late] = lines[late].replace(" bm25", "").rsplit(" ", 1)[0] + " x bm25"
    elif edit == "finite":
        lines[late] = " ".join([*lines[late].split()[:4], "inf", "bm25"])
    elif edit == "duplicate":
        lines[late + 1] = " ".join(
            lines[late + 1].split()[:2] + [lines[late].split()[2]] + lines[late + 1].split()[3:]
        )
    elif edit == "utf8":
        lines[late] = lines[late].replace(f" {prefix}", f" {prefix}\udcff", 1)
    elif edit == "two tags":
        lines[late] = lines[late].replace("bm25", "dph")
    data = "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"
    assert len(data) > 4 << 20
    path = _write(tmp_path / "run.txt", data, "plain")
    kind, out = _same_as_before(path, run=True)
    if edit in ("none", "blank lines in the first half", "two tags"):
        assert kind == "ok" and len(out["qid"]) == 150_000
        assert out["name"] == (path if edit == "two tags" else "bm25")
    else:
        assert kind == "InputFormatError"
        assert edit == "utf8" or f"line {late + 1}" in out or f"line {late + 2}" in out


@pytest.mark.parametrize("blank", [b"\n", b"\r\n", b" \n"])
@pytest.mark.parametrize("blanks", [1, 40])
def test_many_blank_lines(tmp_path, blank, blanks):
    """Rows go where the line ends say (counted eight bytes at a time): dense line ends too."""
    data = b"".join(b"q 0 d%d 1\n" % k + blank * blanks for k in range(3000))
    kind, out = _same_as_before(_write(tmp_path / "qrels.txt", data, "plain"), run=False)
    assert kind == "ok" and len(out["qid"]) == 3000
    kind, out = _same_as_before(_write(tmp_path / "big.txt", blank * (5 << 20) + data, "plain"), run=False)
    assert kind == "ok" and len(out["qid"]) == 3000


@pytest.mark.parametrize(
    "text, message",
    [
        (b"q1 Q0 d1 one 0.5 t\n", "line 1, field 4: expected a number (the rank), found 'one'"),
        (
            b"q1 Q0 d1 1 -inf t\n",
            "line 1, field 5: the score must be a finite number, found -inf",
        ),
        (b"q1 Q0 d\xe9 1 0.5 t\n", "holds text that is not UTF-8 in an id field"),
        (b"q\xed\xa0\x80 Q0 d 1 0.5 t\n", "holds text that is not UTF-8 in an id field"),  # a surrogate
        (
            b"q1 Q0 d1 1 0.5 t\n\nq1 Q0 d1 1 0.5\n",
            "line 3: expected 6 fields (qid Q0 docid rank score tag), found 5",
        ),
        (
            b"b Q0 d 1 0 t\na Q0 e 1 0 t\na Q0 e 1 0 t\nb Q0 d 1 0 t\n",
            "line 3: query 'a', document 'e' is given twice",
        ),
    ],
)
def test_each_run_error_is_worded_as_before(tmp_path, text, message):
    path = _write(tmp_path / "run.txt", text, "plain")
    kind, said = _same_as_before(path, run=True)
    assert kind == "InputFormatError" and message in said


@pytest.mark.parametrize(
    "text, message",
    [
        (b"q 0 d nan\n", "line 1: the relevance must be finite, found nan"),
        (b"q 0 d 1\nq 0 d x\n", "line 2, field 4: expected a number (the relevance), found 'x'"),
        (b"q 0 d 1 1\n", "expected 4 fields"),
        (
            b"q 0 d\x00 1\nq 0 d 2\n",
            "query 'q', document 'd' is given twice (lines 1 and 2)",
        ),  # as numpy holds it
    ],
)
def test_each_qrels_error_is_worded_as_before(tmp_path, text, message):
    path = _write(tmp_path / "qrels.txt", text, "plain")
    kind, said = _same_as_before(path, run=False)
    assert kind == "InputFormatError" and message in said


def test_codes_follow_string_order_not_numbers_or_first_appearance(tmp_path):
    path = _write(
        tmp_path / "run.txt", "10 Q0 b 1 3 t\n9 Q0 é 1 2 t\n007 Q0 a 2 1 t\n10 Q0 B 2 1 t\n".encode(), "plain"
    )
    r = read_run(path)
    assert r.qvocab.tolist() == ["007", "10", "9"] and r.qcode.tolist() == [1, 2, 0, 1]
    assert r.dvocab.tolist() == ["B", "a", "b", "é"] and r.dcode.tolist() == [2, 3, 1, 0]
    assert r.rank.tolist() == [1, 1, 2, 2] and r.name == "t"
    d = read_run({"10": {"b": 3.0, "B": 1.0}, "9": {"é": 2.0}, "007": {"a": 1.0}})
    assert d.qvocab.tolist() == r.qvocab.tolist() and d.dvocab.tolist() == r.dvocab.tolist()
    assert d.qcode.tolist() == [1, 1, 2, 0] and d.dcode.tolist() == [2, 0, 3, 1]


def test_built_from_ids_or_codes():
    r = Run(np.array(["q2", "q1"]), np.array(["d", "d"]), np.array([1.0, 2.0]), None, np.arange(2))
    assert r.qcode.tolist() == [1, 0] and r.qvocab.tolist() == ["q1", "q2"] and r.qid.tolist() == ["q2", "q1"]
    q = Qrels.from_codes(
        np.array([0, 0]), np.array([1, 0]), np.array(["q"]), np.array(["a", "b"]), np.ones(2)
    )
    assert "qid" not in vars(q)  # built on first use only
    assert q.docid.tolist() == ["b", "a"] and len(q) == 2


@settings(max_examples=300, deadline=None)
@given(
    token=st.one_of(
        _NUMBERS, _NOT_NUMBERS, st.text(st.sampled_from("0123456789+-.eEinfatyINFATY_x"), max_size=12)
    )
)
def test_numbers_are_decided_by_the_one_grammar(token):
    """trec_read, parse_table and grammar.is_number accept the same tokens and read the same value."""
    ok = grammar.is_number(token)
    out = _native.trec_read(b"q x d " + token.encode() + b"\n", "qxdn")
    assert (out[0] == "ok") == ok
    if "," in token or token.startswith("#") or not token:
        return
    table = _native.parse_table(token.encode() + b"\n", 1)
    assert (table[0] == "ok") == ok or (table[0] == "error" and table[1] == "nan")  # parse_table refuses NaN
    if ok:
        value = np.frombuffer(out[5][0], np.float64)[0]
        expected = float(token)
        assert value == expected or (np.isnan(value) and np.isnan(expected))
        if table[0] == "ok":
            assert np.frombuffer(table[1][0], np.float64)[0] == value


def _first_duplicate(q, d):
    """The brute-force rule: the smallest (q, d) pair given twice, its first two rows."""
    rows: dict[tuple[int, int], list[int]] = {}
    for i, pair in enumerate(zip(q.tolist(), d.tolist(), strict=True)):
        rows.setdefault(pair, []).append(i)
    twice = sorted(p for p, r in rows.items() if len(r) > 1)
    return tuple(rows[twice[0]][:2]) if twice else None


@given(
    pairs=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), max_size=30),
    grouped=st.booleans(),
)
def test_trec_duplicate_names_the_first_pair_in_code_order(pairs, grouped):
    if grouped:
        pairs = sorted(pairs, key=lambda p: p[0])  # a query's rows together, as runs list them
    q = np.array([p[0] for p in pairs], dtype=np.int64)
    d = np.array([p[1] for p in pairs], dtype=np.int64)
    assert _native.trec_duplicate(q, d, 5, 6) == _first_duplicate(q, d)


def test_trec_duplicate_checks_its_codes():
    with pytest.raises(ValueError, match="codes outside"):
        _native.trec_duplicate(np.array([0, 5]), np.array([0, 0]), 5, 1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    prefix=st.sampled_from(["", "doc12345", "doc1234", "clueweb09-en0000", "abcdefgh\x00"]),
    suffixes=st.lists(st.text(alphabet="0a9é\x00z", max_size=12), min_size=1, max_size=80),
)
def test_vocabulary_order_of_ids_sharing_their_first_bytes(tmp_path, prefix, suffixes):
    """Ids that share their first 8 or 16 bytes by the dozen (groups sorted by their next 8 bytes, a
    quicksort above 16 of them, then the rest of the bytes): the reader's order is numpy's."""
    ids = [(prefix + s).rstrip("\x00") for s in suffixes]
    ids = [i for i in ids if i and not i.startswith("\x00")]
    if not ids:
        return
    lines = "".join(f"q{k % 3} 0 {i} 1\n" for k, i in enumerate(dict.fromkeys(ids)))
    path = tmp_path / "qrels"
    path.write_bytes(lines.encode())
    q = read_qrels(str(path))
    _check_codes(q)
    assert q.dvocab.tolist() == np.unique(np.array(list(dict.fromkeys(ids)))).tolist()


def test_trec_gives_the_scratch_limit_back():
    from perfeval import _native, trec

    before = _native.cache_limit(1 << 30)
    _native.cache_limit(before)
    trec.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}, measures="map")
    trec.compare(
        {"q": {"a": 1}}, {"x": {"q": {"a": 1.0}}, "y": {"q": {"b": 1.0}}}, measures="map", test="none"
    )
    assert _native.cache_limit(before) == before  # set back when done
