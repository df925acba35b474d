"""Issue 33 (user pass): a column's name given to a keyword that takes the values
(``sample_weight="w"``, ``groups="g"``) says which keyword takes the name, and a column keyword
(``weight=``, ``group=``, ``id=``) given without a table's target=/score= is refused, not dropped
(the numbers were those of unweighted, ungrouped cases, said nowhere).
"""

from __future__ import annotations

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError

pd = pytest.importorskip("pandas")


def _table():
    return pd.DataFrame(
        {
            "y": [0, 1, 0, 1, 1, 0],
            "s": [0.2, 0.3, 0.4, 0.6, 0.7, 0.8],
            "w": [1, 2, 1, 1, 3, 1.0],
            "g": list("aabbcc"),
            "d": [5, 3, 9, 1, 7, 2],
        }
    )


@pytest.mark.parametrize(("given", "key"), [("sample_weight", "weight"), ("groups", "group"), ("ids", "id")])
@pytest.mark.parametrize("dialect", ["perfeval", "trec_eval"])
def test_a_column_name_given_for_values_names_the_keyword(given, key, dialect):
    """``ids="w"`` too, whether or not the dialect reads ids (it was dropped without a word where
    it does not, the numbers those of no ids; and said as one id for many rows where it does)."""
    df = _table()
    measure = "roc" if dialect == "perfeval" else "map"
    groups = {} if given == "groups" or dialect == "perfeval" else {"group": "g"}
    with pytest.raises(InvalidParameterError, match=rf"pass it as {key}='w' \(with the table"):
        perfeval.evaluate(
            df, target="y", score="s", measures=[measure], dialect=dialect, **groups, **{given: "w"}
        )
    with pytest.raises(InvalidParameterError, match=rf"`{given}` takes the values themselves"):
        perfeval.evaluate(df["y"], df["s"], measures=[measure], dialect=dialect, **{given: "w"})


@pytest.mark.parametrize(
    ("given", "key"), [("sample_weight", "weight"), ("groups", "group"), ("y_score", "score")]
)
def test_a_column_name_without_a_table_says_the_hint_first(given, key):
    """``evaluate(y, s, sample_weight="w")``: the hint (a column's name is passed with a table; this
    keyword takes the values) is the line, with no word of a shape ``()`` a string has not."""
    args = {"y_true": [0, 1, 0, 1], "y_score": [0.2, 0.7, 0.4, 0.6], given: "w"}
    with pytest.raises(InvalidParameterError) as e:
        perfeval.evaluate(**args, measures=["roc"])
    assert str(e.value) == (
        f"`{given}='w'`: a column's name? pass it as {key}='w' (with the table and target=/score=); "
        f"`{given}` takes the values themselves, one a row"
    )


def test_ci_weights_column_name_is_no_tables_line():
    """ci's deprecated ``weights=`` given a column's name: the same line as ``sample_weight=``'s,
    naming the keyword typed (ci checks every array keyword in one call)."""
    with pytest.raises(InvalidParameterError) as e:
        perfeval.ci([0, 1, 0, 1], [0.2, 0.7, 0.4, 0.6], measures="roc", weights="w")
    assert str(e.value) == (
        "`weights` must be one-dimensional, got the string 'w': a column's name? perfeval.ci() takes no "
        "table: pass the column's values themselves, one a row (weights=table['w'])"
    )


def test_ids_by_column_name_as_documented():
    """What the hint says works: ``id=`` the name, the numbers of ``ids=`` the values."""
    df = _table()
    by_name = perfeval.evaluate(
        df, target="y", score="s", group="g", id="d", measures=["map"], dialect="trec_eval"
    )
    by_values = perfeval.evaluate(
        df["y"], df["s"], groups=df["g"], ids=df["d"], measures=["map"], dialect="trec_eval"
    )
    assert by_name["MAP"] == by_values["MAP"]


@pytest.mark.parametrize(("key", "arrays"), [("weight", "sample_weight"), ("group", "groups"), ("id", "ids")])
def test_a_column_keyword_without_a_table_is_refused_not_dropped(key, arrays):
    df = _table()
    value = df["w"].to_numpy() if key == "weight" else np.arange(6)
    with pytest.raises(
        InvalidParameterError, match=rf"`{key}=` names a column .* pass the values as {arrays}="
    ):
        perfeval.evaluate(df["y"].to_numpy(), df["s"].to_numpy(), measures=["roc"], **{key: value})


def _tableless_doors():
    """Each function that takes no table, called with one keyword given a column's name."""
    y, s = np.array([0, 1, 0, 1, 1, 0]), np.array([0.2, 0.3, 0.4, 0.6, 0.7, 0.8])
    from perfeval.stats import compare_models

    return {
        "perfeval.ci()": lambda **kw: perfeval.ci(y, s, measures="roc", **kw),
        "perfeval.compare()": lambda **kw: perfeval.compare(y, s, s[::-1], measures="roc", **kw),
        "perfeval.compare_models()": lambda **kw: compare_models(y, {"a": s, "b": s[::-1]}, "a", **kw),
        "perfeval.explain()": lambda **kw: perfeval.explain(y, s, measures="roc", **kw),
        "Metric.update()": lambda **kw: perfeval.Metric(["roc"]).update(y, s, **kw),
    }


@pytest.mark.parametrize(
    ("door", "given"),
    [(d, g) for d in _tableless_doors() for g in ("groups", "sample_weight")]
    + [("perfeval.explain()", "ids"), ("Metric.update()", "ids")],
)
def test_a_column_name_where_no_table_is_taken_says_what_is(door, given):
    """ci, compare, explain and Metric.update take no table: the hint names the values they take
    (``groups=table['qid']``), not ``group=`` (with the table and target=/score=), which they have not."""
    with pytest.raises(InvalidParameterError) as e:
        _tableless_doors()[door](**{given: "qid"})
    msg = str(e.value)
    assert "\n" not in msg and "with the table" not in msg and "pass it as" not in msg, msg
    assert msg == (
        f"`{given}` must be one-dimensional, got the string 'qid': a column's name? {door} takes no table: "
        f"pass the column's values themselves, one a row ({given}=table['qid'])"
    )


def _delong_doors():
    """The DeLong functions and ScoreHistogram.from_arrays: no table either."""
    from perfeval.stats.delong import delong, delong_test
    from perfeval.summaries import ScoreHistogram

    y, s = np.array([0, 1, 0, 1, 1, 0]), np.array([0.2, 0.3, 0.4, 0.6, 0.7, 0.8])
    return {
        "delong()": lambda w: delong(y, s, sample_weight=w),
        "delong_test()": lambda w: delong_test(y, s, s[::-1], sample_weight=w),
        "ScoreHistogram.from_arrays()": lambda w: ScoreHistogram.from_arrays(y, s, sample_weight=w),
    }


@pytest.mark.parametrize("door", _delong_doors())
def test_the_delong_doors_say_a_column_name_as_the_others(door):
    """Not "must be one-dimensional, got shape ()": no_table's line, as ci's and compare's."""
    with pytest.raises(InvalidParameterError) as e:
        _delong_doors()[door]("w")
    assert str(e.value) == (
        f"`sample_weight` must be one-dimensional, got the string 'w': a column's name? {door} takes no "
        "table: pass the column's values themselves, one a row (sample_weight=table['w'])"
    )
