"""Slice columns of strings (object, pandas' ``string``/``str`` dtypes, pyarrow-backed, numpy unicode,
lists), coded in vectorised passes with the keys, order, missing values and refusals of the
value-by-value reading; the warnings of undefined slices bounded however many slicings there are.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.engine import slices as engine_slices
from perfeval.engine.slices import MISSING, code_column
from perfeval.exceptions import InvalidDataError, UndefinedMeasureWarning


def _by_value(values: list) -> tuple[list, list[int]]:
    """The coding the issue specifies, written out: the distinct strings sorted (Python's order),
    each missing value (None, NaN, pandas' NA) the slice MISSING, listed last.
    """
    present = sorted({v for v in values if isinstance(v, str)})
    keys = present + ([MISSING] if any(not isinstance(v, str) for v in values) else [])
    return keys, [present.index(v) if isinstance(v, str) else len(present) for v in values]


@pytest.fixture
def no_value_by_value(monkeypatch):
    """The per-value reading made to fail: a string column must not go through it."""

    def refuse(*a, **k):
        raise AssertionError("a string column was read value by value")

    monkeypatch.setattr(engine_slices, "_objects", refuse)
    monkeypatch.setattr(engine_slices, "_is_missing", refuse)


def _forms(values: list) -> list:
    """The same strings (missing ones as None) in every form a slice column of strings comes in."""
    import pyarrow as pa

    out = [
        np.array(values, dtype=object),
        pd.Series(values, dtype=object),
        pd.Series(values, dtype="string"),
        pd.Series(values, dtype="string[pyarrow]"),
        pd.array(values, dtype="string"),
        pa.array(values, type=pa.string()),
    ]
    try:
        out.append(pd.Series(values, dtype="str"))  # pandas >= 2.3: the default string dtype
    except TypeError:
        pass
    if all(v is not None for v in values):
        out += [np.array(values), list(values)]
    return out


def test_string_columns_are_coded_without_reading_each_value(no_value_by_value):
    values = ["FR", "de", None, "FR", "Ü", "DE", None, "a b"]
    want = _by_value(values)
    for form in _forms(values):
        keys, codes = code_column("country", form, missing="slice")
        assert (keys, codes.tolist()) == want, type(form)
        assert codes.dtype == np.int64
    present = [v for v in values if v is not None]
    for form in _forms(present):
        keys, codes = code_column("country", form)
        assert (keys, codes.tolist()) == _by_value(present), type(form)


def test_every_missing_value_among_strings_is_the_missing_slice(no_value_by_value):
    values = np.array(["b", None, float("nan"), pd.NA, pd.NaT, np.float32("nan"), "a"], dtype=object)
    keys, codes = code_column("x", values, missing="slice")
    assert keys == ["a", "b", MISSING]
    assert codes.tolist() == [1, 2, 2, 2, 2, 2, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(st.text(max_size=3), st.none(), st.just(float("nan")), st.just(pd.NA)),
        min_size=1,
        max_size=40,
    )
)
def test_random_string_columns_have_the_keys_and_order_of_the_definition(values):
    if not any(isinstance(v, str) for v in values):
        return
    keys, codes = code_column("x", np.array(values, dtype=object), missing="slice")
    assert (keys, codes.tolist()) == _by_value(values)
    if any(not isinstance(v, str) for v in values):
        first = next(i for i, v in enumerate(values) if not isinstance(v, str))
        with pytest.raises(
            InvalidDataError, match=rf"by column 'x' holds a missing value .* at row {first}:"
        ):
            code_column("x", np.array(values, dtype=object))


@pytest.mark.parametrize(
    "values, said",
    [
        (["a", 1, None], r"mixes strings \('a' at row 0\) and integers \(1 at row 1\)"),
        (["a", None, True], r"mixes strings \('a' at row 0\) and booleans \(True at row 2\)"),
        (["a", 2.0], r"mixes strings \('a' at row 0\) and integers \(2.0 at row 1\)"),
        (["a", 2.5], r"holds the float 2.5 at row 1"),
        (["a", b"b"], r"holds b'b' \(bytes\) at row 1"),
        (["a", np.datetime64("NaT"), 3], r"mixes strings \('a' at row 0\) and integers \(3 at row 2\)"),
    ],
)
def test_strings_mixed_with_other_values_are_refused_as_before(values, said):
    with pytest.raises(InvalidDataError, match=said):
        code_column("x", np.array(values, dtype=object), missing="slice")


def test_missing_refusal_names_the_column_and_the_first_row_for_each_string_dtype():
    for form in _forms(["a", "b", None, "a"]):
        with pytest.raises(
            InvalidDataError, match=r"by column 'g' holds a missing value .* at row 2: every row"
        ):
            code_column("g", form)
    with pytest.raises(InvalidDataError, match="the name of the slice of its missing values"):
        code_column("g", pd.Series(["<missing>", None], dtype="string"), missing="slice")


def test_string_slices_are_those_of_the_same_column_as_a_categorical():
    rng = np.random.default_rng(7)
    n = 3000
    country = np.array([f"c{i}" for i in rng.integers(0, 40, n)], dtype=object)
    sex = pd.Series(np.where(rng.random(n) < 0.5, "F", "M"), dtype="string")
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.random(n).round(2)
    by_text = pd.DataFrame({"country": country, "sex": sex})
    by_cat = by_text.astype("category")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        a = perfeval.evaluate(y, s, measures=["roc", "ap"], by=by_text, intersections=True).slices.frame()
        b = perfeval.evaluate(y, s, measures=["roc", "ap"], by=by_cat, intersections=True).slices.frame()
    pd.testing.assert_frame_equal(a, b)


# -- the warnings of undefined slices: bounded ---------------------------------------------------------
def _many_slicings(n: int = 600, columns: int = 7) -> tuple[dict, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    by = {f"c{i}": rng.integers(0, 3, n) for i in range(columns)}
    return by, (rng.random(n) < 0.15).astype(int), rng.random(n).round(3)


def test_undefined_slices_of_many_slicings_are_a_few_warnings():
    by, y, s = _many_slicings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = perfeval.evaluate(y, s, measures=["roc", "ap"], by=by, intersections=True)
    said = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    undefined = [sl for sl in r.slices.frame().index.get_level_values(0).unique()]
    assert len(undefined) == 2**7 - 1
    assert 1 <= len(said) <= engine_slices_report().SAID_KINDS + 1
    assert any("slicings (" in m and "more slicings" in m for m in said), said
    assert all(m.endswith("listed in report.slices with the reason, and left out of the gaps") for m in said)
    n = r.slices.frame()
    total = int((n["ROC"].isna()).sum())
    assert any(f"{total:,} slices of" in m for m in said) or len(said) > 1


def engine_slices_report():
    from perfeval.engine import slice_report

    return slice_report


def test_one_slicing_still_names_its_slices():
    y = np.array([0, 0, 1, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        perfeval.evaluate(y, s, measures=["roc"], by={"g": ["a", "a", "b", "b", "c", "c"]})
    said = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    assert said == [
        "ROC is undefined in 2 of 3 slices of 'g' ('a': undefined in this slice (no positive, 2 negatives); "
        "'c': undefined in this slice (2 positives, no negative)); listed in report.slices with the reason, "
        "and left out of the gaps"
    ]


@pytest.mark.parametrize("fmt, where", [("text", "the slices tables"), ("json", 'the JSON\'s "slices"')])
def test_the_command_says_a_few_lines_in_its_own_words(tmp_path, fmt, where):
    by, y, s = _many_slicings()
    f = tmp_path / "t.csv"
    pd.DataFrame({**by, "y": y, "p": s}).to_csv(f, index=False)
    cmd = [sys.executable, "-m", "perfeval", "eval", str(f), "--target", "y", "--score", "p"]
    cmd += ["--by", ",".join(by), "--intersections", "-m", "roc,ap", "--format", fmt]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert 1 <= len(lines) <= engine_slices_report().SAID_KINDS + 1, lines
    assert all(line.startswith("perfeval: warning: ") for line in lines)
    assert all(f"listed in {where} with the reason" in line for line in lines), lines
    assert "report.slices" not in run.stderr


# -- the number of slices: bounded, refused before any key is made ----------------------------------------
@pytest.fixture
def few_slices(monkeypatch):
    from perfeval.engine import slice_report

    monkeypatch.setattr(slice_report, "MAX_SLICES", 1000)


def _ids(n: int = 900) -> tuple[dict, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    by = {"user": np.arange(n) % 450, "zip": rng.integers(0, 300, n), "sex": rng.integers(0, 2, n)}
    return by, (rng.random(n) < 0.3).astype(int), rng.random(n)


def test_too_many_slices_are_refused_in_one_line_before_any_is_made(few_slices, monkeypatch):
    from perfeval.api import slices as api_slices

    def no_keys(*a, **k):
        raise AssertionError("an intersection's keys were made")

    monkeypatch.setattr(api_slices, "_intersection", no_keys)
    by, y, s = _ids()
    with pytest.raises(perfeval.InvalidParameterError) as e:
        perfeval.evaluate(y, s, measures=["roc"], by=by, intersections=True)
    said = str(e.value)
    assert "\n" not in said
    assert said.startswith("by: 7 slicings of 'user' (450 values), 'zip' (")
    assert "would make up to " in said and "more than 1,000" in said
    # each column alone and the intersections that fit are made
    r = perfeval.evaluate(y, s, measures=["roc"], by={"sex": by["sex"], "zip": by["zip"]})
    assert len(r.slices.frame()) == 2 + len(np.unique(by["zip"]))


def test_too_many_slices_are_refused_streamed_and_by_the_command(few_slices, tmp_path, capsys):
    from conftest import run_cli

    by, y, s = _ids()
    with pytest.raises(perfeval.InvalidParameterError, match="more than 1,000"):
        perfeval.evaluate_stream(
            [
                (y[:450], s[:450], {c: v[:450] for c, v in by.items()}),
                (y[450:], s[450:], {c: v[450:] for c, v in by.items()}),
            ],
            measures=["roc"],
            by=list(by),
            intersections=True,
        )
    f = tmp_path / "t.csv"
    pd.DataFrame({**by, "y": y, "p": s}).to_csv(f, index=False)
    code, out, err = run_cli(
        [
            "eval",
            str(f),
            "--target",
            "y",
            "--score",
            "p",
            "--by",
            "user,zip,sex",
            "--intersections",
            "-m",
            "roc",
        ],
        capsys,
    )
    assert code == 2 and out == ""  # the slicings asked: a usage error, as more than 2^10 slicings are
    assert err.count("\n") == 1 and "would make up to" in err and "more than 1,000" in err


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 400), st.integers(1, 40_000), st.integers(0, 2**32 - 1))
def test_lexsorted_is_numpys_lexsort(n, groups, seed):
    # the weighted slices' canonical order (GroupedData.from_rows, grouped_histograms) is made by
    # stable argsorts: the permutation must be np.lexsort's, ties (-0.0 and 0.0 too) in row order
    from perfeval.summaries.ranking import lexsorted

    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 1)
    s[rng.random(n) < 0.2] = -0.0
    y = (rng.random(n) < 0.3).astype(float)
    w = np.round(rng.random(n), 1)
    codes = rng.integers(0, groups, n)
    assert np.array_equal(lexsorted((w, y, s, codes)), np.lexsort((w, y, s, codes)))
    assert np.array_equal(lexsorted((s, codes)), np.lexsort((s, codes)))
