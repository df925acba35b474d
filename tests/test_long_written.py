"""`perfeval eval --long` (in memory and --stream) quotes a bad value as the file writes it, not as
the number read from it: a case's weight written 1.50 and 2.00 (not '1.5' and '2.0'), a 0/1 marker
written 2.00 or 2e0, a score written 1e999 (read as inf); the field read again on the error path
(:meth:`perfeval.io.tables.Table.written`).
"""

from __future__ import annotations

import pytest

import perfeval.io.readers as readers
from conftest import run_cli

LONG = ["--long", "--id", "case", "--class", "cls", "--score", "p", "--target", "y"]


def _small_chunks(monkeypatch) -> None:
    """Chunks of 64 bytes (two or three lines): each case's rows in a piece of their own, or two."""
    inner = readers.iter_columns

    def small(*a, **k):
        k["chunk_bytes"] = 64
        yield from inner(*a, **k)

    monkeypatch.setattr(readers, "iter_columns", small)


@pytest.fixture
def tiny(monkeypatch):
    """Chunks of 64 bytes (:func:`_small_chunks`)."""
    _small_chunks(monkeypatch)


def _errors(path, argv, capsys) -> list[str]:
    """The one-line error of the table read whole and streamed."""
    out = []
    for extra in ([], ["--stream"]):
        code, stdout, err = run_cli([str(a) for a in ["eval", path, *argv, *extra]], capsys)
        assert code == 1 and stdout == "" and err.count("\n") == 1, err
        out.append(err)
    return out


@pytest.mark.parametrize(("one", "two"), [("1.50", "2.00"), ("1", "2e0"), ("0.5", "1.")])
def test_a_cases_weights_that_disagree_as_written(tmp_path, capsys, tiny, one, two):
    f = tmp_path / "w.csv"
    f.write_text(f"case,cls,p,y,w\n1,a,0.5,a,1\n1,b,0.5,a,1\n2,a,0.5,b,{one}\n2,b,0.5,b,{two}\n")
    for err in _errors(f, [*LONG, "--weight", "w"], capsys):
        assert err == (
            f"perfeval: error: {f}: case 2: the column 'w' holds {one!r} on line 4 and {two!r} on line 5: "
            "it is the case's, the same on each of its rows\n"
        )


MARKED = "case,cls,p,y\n1,a,0.5,1\n1,b,0.5,0\n2,a,0.1,0\n2,b,0.9,1\n"


@pytest.mark.parametrize("written", ["2.00", "2e0", "-1.0"])
def test_a_marker_streamed_quotes_its_value_as_written(tmp_path, capsys, tiny, written):
    f = tmp_path / "m.csv"
    f.write_text(MARKED + f"3,a,0.5,{written}\n3,b,0.5,0\n")
    for err in _errors(f, LONG, capsys):  # read whole and streamed: the same line
        assert err == (
            f"perfeval: error: {f}: case 3: the target column 'y' holds {written!r} on line 6: not 0 or 1, "
            "as the rows before it (a 0/1 marker of the true class's row), nor one of the 2 classes (a, b)\n"
        )


@pytest.mark.parametrize("long", [True, False])
def test_a_score_beyond_float64_as_written(tmp_path, capsys, tiny, long):
    f = tmp_path / "s.csv"
    f.write_text("case,cls,p,y\n1,a,0.5,a\n1,b,0.5,a\n2,a,1e999,b\n2,b,0.5,b\n")
    argv = LONG if long else ["--score", "p", "--target", "y", "--pos-label", "a"]
    for err in _errors(f, argv, capsys):
        assert err == (
            f"perfeval: error: {f}, line 4: the score column 'p' holds 1e999 (a number beyond float64's "
            "range, read as inf); scores must be finite numbers\n"
        )


@pytest.mark.parametrize("written", ["-Infinity", "NaN", "inf"])
def test_a_score_not_finite_as_written(tmp_path, capsys, tiny, written):
    f = tmp_path / "s.csv"
    f.write_text(f"case,cls,p,y\n1,a,0.5,a\n1,b,{written},a\n2,a,0.4,b\n2,b,0.5,b\n")
    for err in _errors(f, LONG, capsys):
        shown = "inf (a number beyond float64's range, or inf as written)" if written == "inf" else written
        assert err == (
            f"perfeval: error: {f}, line 3: the score column 'p' holds {shown}; scores must be finite "
            "numbers\n"
        )


@pytest.mark.parametrize("written", ["2.00", "2e0"])
def test_a_json_marker_streamed_quotes_its_value_as_written(tmp_path, capsys, tiny, written):
    """JSON lines read a marker's 2.00 as the number 2.0: said as the line writes it."""
    f = tmp_path / "m.jsonl"
    rows = [(1, "a", 1), (1, "b", 0), (2, "a", 0), (2, "b", 1), (3, "a", written), (3, "b", 0)]
    f.write_text("".join(f'{{"case": {c}, "cls": "{k}", "p": 0.5, "y": {y}}}\n' for c, k, y in rows))
    for err in _errors(f, LONG, capsys):  # read whole and streamed
        assert err.startswith(
            f"perfeval: error: {f}: case 3: the target column 'y' holds {written!r} on line 5: not 0 or 1"
        )


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("written", ["2.00", "x"])
def test_a_marker_neither_0_1_nor_a_class_names_its_own_line(tmp_path, capsys, monkeypatch, chunked, written):
    """A 0/1 marker whose line 7 holds 2.00 (or x), read whole or streamed (one chunk, or chunks of a
    case or so): that line is named, not line 2, whose 1 is no class (the labels' reading)."""
    if chunked:
        _small_chunks(monkeypatch)
    f = tmp_path / "m.csv"
    f.write_text(MARKED + f"3,a,0.5,0\n3,b,0.5,{written}\n4,a,0.2,1\n4,b,0.8,0\n")
    for err in _errors(f, LONG, capsys):
        assert err == (
            f"perfeval: error: {f}: case 3: the target column 'y' holds {written!r} on line 7: not 0 or 1, "
            "as the rows before it (a 0/1 marker of the true class's row), nor one of the 2 classes (a, b)\n"
        )


def test_a_marker_then_a_class_is_one_way_for_the_column(tmp_path, capsys):
    f = tmp_path / "m.csv"
    f.write_text(MARKED + "3,a,0.5,b\n3,b,0.5,b\n")
    for err in _errors(f, LONG, capsys):
        assert err == (
            f"perfeval: error: {f}: case 3: the target column 'y' holds 'b' on line 6, not 0 or 1, where the "
            "rows before it read as a 0/1 marker of the true class's row: one way for the whole column (the "
            "true class on each row of a case, or the marker)\n"
        )
