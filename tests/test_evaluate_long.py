"""evaluate() of K classes in long form (a row a case and class: ``case=``, ``class_column=``): the
same pivot and rules as ``perfeval eval --long`` (perfeval.engine.long), the wide form's numbers bit
for bit, one line for every bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import perfeval
from perfeval.exceptions import InvalidDataError, InvalidParameterError, PerfError

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples" / "multiclass"
CLASSES = ["cat", "dog", "bird"]
MEASURES = ["roc_ovr", "roc_ovo", "ap_ovr", "logloss_mc", "brier_mc", "acc_mc", "f_mc", "mcc"]


def _wide_and_long(seed: int, n: int = 40, weighted: bool = False, grouped: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.choice(CLASSES, size=n)
    y[:3] = CLASSES  # every class present
    s = np.round(rng.random((n, 3)), 2)  # ties
    w = np.round(rng.random(n) * 3, 1) if weighted else None
    if weighted:
        w[5] = 0.0  # a case of weight 0 counts as dropped, in both forms
    g = rng.integers(0, 3, size=n) if grouped else None
    ids = rng.permutation(1000)[:n] + 7
    rows = []
    for i in range(n):
        for j in rng.permutation(3):  # a case's rows in any order
            row = {"id": ids[i], "cls": CLASSES[j], "p": s[i, j], "y": y[i], "mark": int(y[i] == CLASSES[j])}
            if weighted:
                row["w"] = w[i]
            if grouped:
                row["g"] = g[i]
            rows.append(row)
    return y, s, w, g, pd.DataFrame(rows)


def _same_bits(a, b):
    assert list(a.results) == list(b.results)
    for name in a.results:
        ra, rb = a.results[name], b.results[name]
        assert np.asarray(ra.value).tobytes() == np.asarray(rb.value).tobytes(), name
        if ra.per_class is not None:
            assert np.asarray(ra.per_class).tobytes() == np.asarray(rb.per_class).tobytes(), name
        if ra.per_group is not None:
            assert np.asarray(ra.per_group).tobytes() == np.asarray(rb.per_group).tobytes(), name


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target", ["y", "mark"])
@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_long_equals_wide_bit_for_bit(weighted, target, frame):
    y, s, w, _g, long = _wide_and_long(3 + weighted, weighted=weighted)
    table = long if frame == "pandas" else pl.from_pandas(long)
    wide = perfeval.evaluate(y, s, classes=CLASSES, sample_weight=w, measures=MEASURES)
    got = perfeval.evaluate(
        table,
        target=target,
        score="p",
        case="id",
        class_column="cls",
        classes=CLASSES,
        weight="w" if weighted else None,
        measures=MEASURES,
    )
    _same_bits(got, wide)
    assert got.params["classes"] == wide.params["classes"]
    assert got.params["target_form"].startswith("labels" if target == "y" else "0/1 marker")
    assert got.params["cases"] == len(y)


def test_long_grouped_equals_wide():
    y, s, w, g, long = _wide_and_long(11, n=60, weighted=True, grouped=True)
    wide = perfeval.evaluate(y, s, classes=CLASSES, sample_weight=w, groups=g, measures=["roc_ovr", "acc_mc"])
    got = perfeval.evaluate(
        long,
        target="y",
        score="p",
        case="id",
        class_column="cls",
        classes=CLASSES,
        weight="w",
        group="g",
        measures=["roc_ovr", "acc_mc"],
    )
    _same_bits(got, wide)


def test_classes_default_to_the_class_columns_sorted_values():
    y, s, _w, _g, long = _wide_and_long(5)
    got = perfeval.evaluate(long, target="y", score="p", case="id", class_column="cls", measures=MEASURES)
    order = sorted(CLASSES)
    wide = perfeval.evaluate(y, s[:, [CLASSES.index(c) for c in order]], classes=order, measures=MEASURES)
    _same_bits(got, wide)
    assert got.params["classes"] == order
    assert "class column 'cls'" in got.params["classes_from"]


def test_the_example_files_agree_with_the_command():
    long = pd.read_csv(EXAMPLES / "long.csv")
    wide = pd.read_csv(EXAMPLES / "proba.csv")
    a = perfeval.evaluate(long, target="is_true", score="p", case="case", class_column="cls", classes=CLASSES)
    b = perfeval.evaluate(wide, target="label", score=["p_cat", "p_dog", "p_bird"], classes=CLASSES)
    _same_bits(a, b)


def _one_line(excinfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg
    return msg


def _frame(rows, cols=("id", "cls", "p", "y")):
    return pd.DataFrame(rows, columns=list(cols))


GOOD = [(1, "a", 0.2, "a"), (1, "b", 0.8, "a"), (2, "a", 0.6, "b"), (2, "b", 0.4, "b")]


def _long(df, **kw):
    return perfeval.evaluate(
        df, target="y", score="p", case="id", class_column="cls", measures=["acc_mc"], **kw
    )


def test_a_case_with_a_class_twice_is_one_line_naming_the_case():
    df = _frame(GOOD + [(2, "a", 0.1, "b")])
    with pytest.raises(InvalidDataError) as e:
        _long(df)
    assert _one_line(e) == (
        "case 2 (column 'id') has class 'a' twice (row 2 and row 4): every case needs every class "
        "exactly once"
    )


def test_a_case_missing_a_class_is_one_line_naming_the_case():
    df = _frame(GOOD[:3])
    with pytest.raises(InvalidDataError) as e:
        _long(df)
    assert _one_line(e) == (
        "case 2 (column 'id', first on row 2) has no row of class b: every case needs every class "
        "exactly once"
    )


def test_a_class_given_but_absent_is_missing_from_every_case():
    with pytest.raises(InvalidDataError, match=r"case 1 .* has no row of class c: every case"):
        _long(_frame(GOOD), classes=["a", "b", "c"])


def test_rows_disagreeing_on_the_true_class():
    df = _frame([(1, "a", 0.2, "a"), (1, "b", 0.8, "b"), (2, "a", 0.6, "b"), (2, "b", 0.4, "b")])
    with pytest.raises(InvalidDataError) as e:
        _long(df)
    assert _one_line(e) == (
        "case 1: the target column 'y' holds 'a' on row 0 and 'b' on row 1: one true class a case (or a 0/1 "
        "marker, 1 on the true class's row)"
    )


def test_a_marker_of_two_rows_or_none():
    df = _frame([(1, "a", 0.2, 1), (1, "b", 0.8, 0), (2, "a", 0.6, 1), (2, "b", 0.4, 1)])
    with pytest.raises(InvalidDataError) as e:
        _long(df)
    assert _one_line(e) == (
        "case 2: the target column 'y', a 0/1 marker of the true class's row, marks 2 rows (row 2, row 3): "
        "exactly one row a case holds 1"
    )


def test_a_target_that_is_no_class_nor_marker():
    df = _frame([(1, "a", 0.2, "a"), (1, "b", 0.8, "a"), (2, "a", 0.6, "fish"), (2, "b", 0.4, "fish")])
    with pytest.raises(InvalidDataError, match="'fish'.*row 2") as e:
        _long(df)
    _one_line(e)


@pytest.mark.parametrize("frame", ["pandas", "polars"])
@pytest.mark.parametrize("col", ["w", "g"])
def test_a_case_whose_rows_disagree_on_weight_or_group(frame, col):
    df = _frame([r + (1.0, 1) for r in GOOD], cols=("id", "cls", "p", "y", "w", "g"))
    df.loc[3, col] = 2
    table = df if frame == "pandas" else pl.from_pandas(df)
    with pytest.raises(InvalidDataError) as e:
        _long(table, weight="w", group="g")
    assert _one_line(e).startswith(f"case 2: the column {col!r} holds ")
    assert "on row 2 and " in str(
        e.value
    ) and "on row 3: it is the case's, the same on each of its rows" in str(e.value)


def test_a_missing_case_id_class_or_target_is_one_line():
    for col in ("id", "cls", "y"):
        df = _frame(GOOD).astype(object)
        df.loc[1, col] = None
        with pytest.raises(PerfError) as e:
            _long(df)
        msg = _one_line(e)
        assert repr(col) in msg and "row 1" in msg, msg


def test_options_that_need_each_other():
    df = _frame(GOOD)
    with pytest.raises(InvalidParameterError, match="case= and class_column="):
        perfeval.evaluate(df, target="y", score="p", case="id")
    with pytest.raises(InvalidParameterError, match="case= and class_column="):
        perfeval.evaluate(df, target="y", score="p", class_column="cls")
    with pytest.raises(InvalidParameterError, match="one score column"):
        perfeval.evaluate(df, target="y", score=["p", "p"], case="id", class_column="cls")
    with pytest.raises(InvalidParameterError, match="table"):
        perfeval.evaluate(np.zeros(4), np.zeros(4), case="id", class_column="cls")


def test_a_class_column_of_one_class():
    df = _frame([(1, "a", 0.2, "a"), (2, "a", 0.6, "a")])
    with pytest.raises(
        InvalidDataError, match=r"the class column 'cls' holds 1 class\(es\) \(a\); K classes need K >= 2"
    ):
        _long(df)


def test_docs_input_md_python_example(monkeypatch):
    """docs/input.md's "Multiclass" section: its Python block, run as a doctest in
    docs/examples/multiclass, prints what it shows."""
    import doctest
    import re

    text = (EXAMPLES.parents[1] / "input.md").read_text()
    section = text.split("## Multiclass: a score column a class", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1 and "class_column=" in blocks[0]
    monkeypatch.chdir(EXAMPLES)
    test = doctest.DocTestParser().get_doctest(blocks[0], {}, "input.md", "input.md", 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert runner.summarize(verbose=False).attempted == 4


def test_case_ids_of_mixed_types_are_one_line():
    df = _frame(GOOD).astype(object)
    df.loc[2, "id"] = df.loc[3, "id"] = "2"
    with pytest.raises(InvalidDataError, match="the case column 'id' holds ids of mixed types") as e:
        _long(df)
    _one_line(e)


def test_a_call_changes_nothing_and_a_class_no_class_is_one_line():
    df = _frame(GOOD)
    before = df.copy()
    with pytest.raises(InvalidDataError) as e:
        _long(df, classes=["a", "c"])
    assert _one_line(e).startswith(
        "the class column 'cls' holds 'b' at row 1, which is not one of the classes"
    )
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize(
    "rows",
    [
        GOOD + [(2, "a", 0.1, "b")],  # a class twice
        GOOD[:3],  # a class missing
        [(1, "a", 0.2, "a"), (1, "b", 0.8, "b"), (2, "a", 0.6, "b"), (2, "b", 0.4, "b")],  # rows disagree
        [(1, "a", 0.2, 1), (1, "b", 0.8, 0), (2, "a", 0.6, 1), (2, "b", 0.4, 1)],  # a marker of two rows
    ],
)
def test_the_command_and_evaluate_say_the_same(rows, tmp_path, capsys):
    """One set of rules (perfeval.engine.long): the command's line, but for where a row is (the
    file's line; the row number), is evaluate()'s."""
    import re

    from perfeval.cli.main import main

    df = _frame(rows)
    df.to_csv(tmp_path / "long.csv", index=False)
    code = main(
        [
            "eval",
            str(tmp_path / "long.csv"),
            "--long",
            "--id",
            "id",
            "--class",
            "cls",
            "--score",
            "p",
            "--target",
            "y",
            "-m",
            "acc_mc",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and "\n" not in err
    with pytest.raises(InvalidDataError) as e:
        _long(df)
    as_rows = re.sub(r"line (\d+)", lambda m: f"row {int(m.group(1)) - 2}", err)  # line 2 is row 0
    assert as_rows.endswith(str(e.value)), (err, str(e.value))


@pytest.mark.parametrize("bad", [2.0, "x"])
def test_a_marker_neither_0_1_nor_a_class_names_its_own_row(bad):
    """A 0/1 marker column whose row 5 holds 2.0 (or x): that row is named, not row 0, whose 1 is no
    class (the labels' reading)."""
    marks = [1, 0, 0, 1, 0, bad, 1, 0]
    df = _frame([(i // 2 + 1, "ab"[i % 2], 0.5, m) for i, m in enumerate(marks)])
    if bad == 2.0:
        df["y"] = df["y"].astype(float)
    with pytest.raises(InvalidDataError) as e:
        _long(df)
    assert _one_line(e) == (
        f"case 3: the target column 'y' holds {str(bad)!r} on row 5: not 0 or 1, as the rows before it (a "
        "0/1 marker of the true class's row), nor one of the 2 classes (a, b)"
    )
