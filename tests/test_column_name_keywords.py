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
        }
    )


@pytest.mark.parametrize(("given", "key"), [("sample_weight", "weight"), ("groups", "group")])
def test_a_column_name_given_for_values_names_the_keyword(given, key):
    df = _table()
    with pytest.raises(InvalidParameterError, match=rf"pass it as {key}='w' \(with the table"):
        perfeval.evaluate(df, target="y", score="s", measures=["roc"], **{given: "w"})


@pytest.mark.parametrize(("key", "arrays"), [("weight", "sample_weight"), ("group", "groups"), ("id", "ids")])
def test_a_column_keyword_without_a_table_is_refused_not_dropped(key, arrays):
    df = _table()
    value = df["w"].to_numpy() if key == "weight" else np.arange(6)
    with pytest.raises(
        InvalidParameterError, match=rf"`{key}=` names a column .* pass the values as {arrays}="
    ):
        perfeval.evaluate(df["y"].to_numpy(), df["s"].to_numpy(), measures=["roc"], **{key: value})
