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
