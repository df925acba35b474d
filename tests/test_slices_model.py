"""Slices are groups (issue 34, docs/slices.md): every measure of the registry per slice is the measure
on the slice's rows alone, for every kind of target; the slice columns' values are the keys; every
slice with a row is listed (one class only, weight 0), the empty intersections are not; bad slice
columns are one line naming the column and the row.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from _registry import every
from perfeval.api.slices import Slices
from perfeval.base.checks import check
from perfeval.engine.door import code
from perfeval.engine.slices import MISSING, Task, code_column, finish_slicing, intersect
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning
from perfeval.measures import parse_measure

BINARY = every("binary")
RANKING = every("ranking")
GROUPED = every("grouped")
#: measures whose defaults compute nothing (CST: every cost 0)
SPECS = {"CST": "cst:fn=1,fp=2"}
#: the per-group forms sum in another order than the whole data's (tests/test_registry_properties.py)
GROUP_REL = 1e-14


def spec(name: str) -> str:
    return SPECS.get(name, name)


def quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def same(a: float, b: float, rel: float = 0.0) -> bool:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    return rel > 0 and math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def assert_slices_alone(r, by: dict, alone, rel: float = GROUP_REL) -> int:
    """Each slice's value of every measure of ``r`` equals ``alone(mask)`` (the evaluation of the
    slice's rows alone); returns how many slices were compared."""
    checked = 0
    for s in r.slices.slicings:
        cols = [np.asarray(by[c]) for c in s.columns]
        for i, key in enumerate(s.keys):
            parts = key if isinstance(key, tuple) else (key,)
            m = np.logical_and.reduce([c == k for c, k in zip(cols, parts, strict=True)])
            assert s.values.rows[i] == m.sum()
            want = alone(m)
            for label, v in want.items():
                got = float(s.values.values[label][i])
                assert same(got, v, rel), (s.name, key, label, got, v)
            checked += 1
    return checked


@st.composite
def data(draw, weights: str = "none"):
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.random()).astype(np.float64)
    s = np.round(rng.random(n), draw(st.sampled_from([0, 1, 2])))
    a = rng.choice(np.array(["x", "y", "z"]), n)
    b = rng.integers(0, 3, n)
    if weights == "dyadic":
        w = rng.integers(0, 5 * 1024, n) / 1024.0
    elif weights == "zero":
        w = np.where(rng.random(n) < 0.3, 0.0, rng.integers(1, 4, n)).astype(np.float64)
    else:
        w = None
    return y, s, {"a": a, "b": b}, w


def _eval(y, s, measures, **kw) -> dict[str, float]:
    r = quiet(perfeval.evaluate, y, s, measures=[spec(m) for m in measures], **kw)
    return {k: x.value for k, x in r.results.items()}


# -- every measure of the registry, every kind ----------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(data())
def test_every_binary_measure_per_slice_is_the_slice_alone(d):
    y, s, by, _ = d
    r = quiet(perfeval.evaluate, y, s, measures=[spec(m) for m in BINARY], by=by, intersections=True)
    assert r.slices.names == ["a", "b", "a x b"]
    assert assert_slices_alone(r, by, lambda m: _eval(y[m], s[m], BINARY)) > 0
    # the report's values stay the overall ones
    assert all(same(r.results[k].value, v) for k, v in _eval(y, s, BINARY).items())


@settings(max_examples=30, deadline=None)
@given(data("dyadic"))
def test_weighted_binary_measures_per_slice_are_the_slice_alone(d):
    """Weights whose sums are exact in any order (dyadic, 0 among them): each slice's value is the
    measure on the slice's weighted rows alone (the measures that take fractional weights)."""
    y, s, by, w = d
    frac = [m for m in BINARY if _takes_fractions(m)]
    r = quiet(
        perfeval.evaluate, y, s, measures=[spec(m) for m in frac], by=by, sample_weight=w, intersections=True
    )

    def alone(m):
        if not (w[m] > 0).any():  # a slice of weight 0 only: listed, every value NaN
            return {k: math.nan for k in r.results}
        return _eval(y[m], s[m], frac, sample_weight=w[m])

    assert_slices_alone(r, by, alone)


def _takes_fractions(m: str) -> bool:
    try:
        quiet(perfeval.evaluate, [1, 0], [0.6, 0.4], sample_weight=[0.5, 1.5], measures=[spec(m)])
    except InvalidParameterError:
        return False
    return True


@settings(max_examples=30, deadline=None)
@given(data(), st.booleans())
def test_per_query_measures_per_slice_are_the_slice_alone_with_its_queries(d, nested):
    """Per-query measures (and GAUC, and any measure with groups=): a slice's value is the slice's rows
    evaluated alone with groups= their queries, whether the queries lie inside one slice (nested) or
    across slices."""
    y, s, by, _ = d
    n = len(y)
    rng = np.random.default_rng(n)
    q = rng.integers(0, 5, n)
    if nested:  # each query in one slice of `a` (the slice is a function of the query)
        by = {"a": np.array(["x", "y", "z"])[q % 3], "b": by["b"]}
    rel = np.round(y * (1 + q % 3))  # graded relevance
    r = quiet(
        perfeval.evaluate, rel, s, groups=q, measures=[spec(m) for m in RANKING], by=by, intersections=True
    )
    assert assert_slices_alone(r, by, lambda m: _eval(rel[m], s[m], RANKING, groups=q[m]))
    measures = GROUPED + BINARY[:8]  # and binary measures per query, averaged over the slice's queries
    r = quiet(perfeval.evaluate, y, s, groups=q, measures=[spec(m) for m in measures], by=by)
    assert_slices_alone(r, by, lambda m: _eval(y[m], s[m], measures, groups=q[m]))


def test_the_grouped_slices_count_their_queries():
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0])
    s = np.array([0.9, 0.1, 0.8, 0.3, 0.4, 0.6, 0.5, 0.2])
    q = np.array([1, 1, 2, 2, 3, 3, 4, 4])
    r = quiet(
        perfeval.evaluate, y, s, groups=q, measures=["ndcg", "gauc"], by={"c": [0, 0, 0, 1, 1, 1, 1, 1]}
    )
    v = r.slices.slicings[0].values
    assert v.groups.tolist() == [2, 3]  # query 2 lies in both slices
    assert v.reasons == {}
    r = quiet(perfeval.evaluate, y, s, groups=q, measures=["ndcg"], by={"c": [0, 0, 0, 0, 1, 1, 2, 2]})
    v = r.slices.slicings[0].values
    assert math.isnan(v.values["NDCG"][2])
    assert v.reasons["NDCG"][2].startswith("undefined in each of its 1 query:")


def test_k_classes_per_slice_are_the_slice_alone():
    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 3, n)
    p = rng.dirichlet([1, 1, 1], n).round(2)
    site = rng.choice(["a", "b", "c", "d"], n)
    site[y == 2] = np.where(rng.random((y == 2).sum()) < 0.5, "d", site[y == 2])
    measures = ["roc_ovr", "roc_ovo", "ap_ovr", "acc_mc", "bacc", "mcc", "logloss_mc", "f_mc", "ece_top"]
    r = quiet(perfeval.evaluate, y, p, measures=measures, by={"site": site}, classes=[0, 1, 2])
    assert r.params["task"] == "multiclass"

    def alone(m):
        rr = quiet(perfeval.evaluate, y[m], p[m], measures=measures, classes=[0, 1, 2])
        return {k: x.value for k, x in rr.results.items()}

    assert assert_slices_alone(r, {"site": site}, alone, 1e-12) == 4
    assert r.slices.slicings[0].values.positives is None  # no binary positives of K classes


def test_k_labels_per_slice_are_the_slice_alone():
    rng = np.random.default_rng(5)
    n = 200
    y = (rng.random((n, 3)) < 0.4).astype(int)
    p = rng.random((n, 3)).round(2)
    site = rng.choice(["a", "b", "c"], n)
    measures = ["roc_ml", "ap_ml", "f_ml", "hamming", "lrap"]
    r = quiet(perfeval.evaluate, y, p, measures=measures, by={"site": site})
    assert r.params["task"] == "multilabel"

    def alone(m):
        rr = quiet(perfeval.evaluate, y[m], p[m], measures=measures)
        return {k: x.value for k, x in rr.results.items()}

    assert assert_slices_alone(r, {"site": site}, alone, 1e-12) == 3


def test_regression_per_slice_is_the_slice_alone():
    rng = np.random.default_rng(6)
    n = 200
    y = rng.normal(size=n)
    p = y + rng.normal(size=n) * 0.3
    w = rng.integers(0, 3, n).astype(float)
    site = rng.choice(["a", "b", "c"], n)
    measures = ["mae", "rmse_reg", "r2", "medae", "expvar"]
    r = quiet(
        perfeval.evaluate, y, p, measures=measures, sample_weight=w, by={"site": site}, task="regression"
    )

    def alone(m):
        rr = quiet(perfeval.evaluate, y[m], p[m], measures=measures, sample_weight=w[m], task="regression")
        return {k: x.value for k, x in rr.results.items()}

    assert assert_slices_alone(r, {"site": site}, alone, 1e-12) == 3
    assert r.slices.slicings[0].values.positives is None


def test_string_labels_with_pos_label_per_slice():
    y = np.array(["yes", "no", "yes", "no", "yes", "no"])
    s = np.array([0.9, 0.2, 0.6, 0.7, 0.4, 0.3])
    c = np.array(["a", "a", "a", "b", "b", "b"])
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "acc"], pos_label="yes", by={"c": c})
    f = r.slices.frame()
    assert f["positives"].tolist() == [2.0, 1.0] and f["negatives"].tolist() == [1.0, 2.0]
    for k in ("a", "b"):
        want = _eval(y[c == k], s[c == k], ["roc", "acc"], pos_label="yes")
        assert [f.loc[("c", k), m] for m in ("ROC", "ACC")] == [want["ROC"], want["ACC"]]


def test_partitions_per_slice_are_the_slice_alone():
    y = np.array(["a", "b", "c", "a", "b", "c", "a", "c"])
    s = np.array([0.9, 0.2, 0.5, 0.7, 0.4, 0.1, 0.3, 0.6])
    site = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    parts = {"A": ["a"], "AB": ["a", "b"]}
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "acc"], partitions=parts, by={"site": site})
    assert set(r.slices.measures) == {"ROC[A]", "ACC[A]", "ROC[AB]", "ACC[AB]"}

    def alone(m):
        rr = quiet(perfeval.evaluate, y[m], s[m], measures=["roc", "acc"], partitions=parts)
        return {k: x.value for k, x in rr.results.items()}

    assert_slices_alone(r, {"site": site}, alone, 0.0)


def test_roc_and_ap_per_slice_have_the_bits_of_the_slice_alone():
    """AP's per-group form (measures/rank.py ap_groups) sums as np.sum does on each group alone."""
    rng = np.random.default_rng(7)
    n = 5000
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n), 2)
    by = {"a": rng.integers(0, 40, n)}  # groups of more than 8 and fewer than 8 cells
    by["a"][:20] = 1000 + np.arange(20)
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "ap"], by=by)
    assert assert_slices_alone(r, by, lambda m: _eval(y[m], s[m], ["roc", "ap"]), 0.0) == 60


# -- the slices listed -------------------------------------------------------------------------------
def test_one_class_and_zero_weight_slices_are_listed_with_the_reason():
    y = np.array([1, 0, 1, 1, 0, 1, 0])
    s = np.array([0.9, 0.2, 0.7, 0.6, 0.3, 0.5, 0.4])
    w = np.array([1, 1, 1, 1, 0, 0, 0], dtype=float)
    site = np.array(["a", "a", "b", "b", "c", "c", "c"])
    with pytest.warns(UndefinedMeasureWarning, match=r"ROC is undefined in 2 of 3 slices of 'site'"):
        r = perfeval.evaluate(y, s, measures=["roc", "acc"], sample_weight=w, by={"site": site})
    f = r.slices.frame()
    assert list(f.index.get_level_values("slice")) == ["a", "b", "c"]
    assert f["rows"].tolist() == [2, 2, 3] and f["cases"].tolist() == [2, 2, 0]
    assert f["weight"].tolist() == [2.0, 2.0, 0.0] and f["positives"].tolist() == [1.0, 2.0, 0.0]
    assert f.loc[("site", "a"), "ROC"] == 1.0 and np.isnan(f.loc[("site", "b"), "ROC"])
    assert f.loc[("site", "b"), "why_ROC"].startswith(
        "undefined in this slice (positives weighing 2, no negative)"
    )
    assert f.loc[("site", "c"), "why_ROC"] == "no case in this slice: its 3 rows have weight 0"
    assert f.loc[("site", "c"), "why_ACC"] == "no case in this slice: its 3 rows have weight 0"
    assert f.loc[("site", "b"), "ACC"] == 1.0


def test_empty_intersections_are_no_slices_and_keys_keep_the_columns_order():
    by = {"c": ["FR", "FR", "DE", "DE", "US"], "d": ["m", "t", "m", "m", "t"]}
    r = quiet(
        perfeval.evaluate,
        [1, 0, 1, 0, 1],
        [0.9, 0.1, 0.8, 0.3, 0.4],
        measures=["acc"],
        by=by,
        intersections=True,
    )
    s = r.slices.slicing("c x d")
    assert s.keys == [("DE", "m"), ("FR", "m"), ("FR", "t"), ("US", "t")]  # no (DE, t), (US, m)
    assert r.slices.slicing(("c", "d")) is s
    bg = r.slices.by_group("c x d")
    assert list(bg.index.names) == ["c", "d"] and bg.index.tolist() == s.keys


def test_ten_thousand_slices():
    rng = np.random.default_rng(8)
    n = 40000
    y = (rng.random(n) < 0.5).astype(int)
    s = rng.random(n)
    key = rng.integers(0, 10000, n)
    r = quiet(perfeval.evaluate, y, s, measures=["roc", "ap", "acc"], by={"k": key})
    g = quiet(perfeval.evaluate, y, s, measures=["roc", "ap", "acc"], groups=key)
    sl = r.slices.slicings[0]
    assert len(sl) == len(g.groups) == len(np.unique(key))
    assert sl.keys == g.groups.tolist()
    for label in ("ROC", "AP", "ACC"):
        np.testing.assert_array_equal(sl.values.values[label], g.results[label].per_group)


# -- the slice columns ----------------------------------------------------------------------------------
def test_column_kinds_give_their_values_as_keys():
    big = np.array([2**62 + 1, 2**62 + 2, 2**62 + 1], dtype=np.int64)  # 64-bit ids: never through a float
    assert code_column("id", big)[0] == [2**62 + 1, 2**62 + 2]
    assert code_column("u", np.array([2**63 + 5, 3], dtype=np.uint64))[0] == [3, 2**63 + 5]
    assert code_column("b", [True, False, True]) == ([False, True], pytest.approx(np.array([1, 0, 1])))
    keys, codes = code_column("s", ["b", "a", "b"])
    assert keys == ["a", "b"] and codes.tolist() == [1, 0, 1]
    # a pandas integer column with a missing value is read as floats: whole floats are integers
    keys, codes = code_column("i", pd.Series([3.0, 1.0, 3.0]))
    assert keys == [1, 3] and all(type(k) is int for k in keys)
    # a categorical: its categories' order, the categories with no row not listed
    cat = pd.Series(pd.Categorical(["lo", "hi", "lo"], categories=["lo", "mid", "hi"], ordered=True))
    assert code_column("c", cat)[0] == ["lo", "hi"]
    bands = pd.cut(pd.Series([25, 40, 70, 33]), [18, 30, 50, 90])
    keys = code_column("age", bands)[0]
    assert [str(k) for k in keys] == ["(18, 30]", "(30, 50]", "(50, 90]"]
    assert code_column("o", np.array([1, 2, 1], dtype=object))[0] == [1, 2]
    dates = np.array(["2024-01-02", "2024-01-01"], dtype="datetime64[D]")
    assert len(code_column("d", dates)[0]) == 2


def test_bad_slice_columns_are_one_line_naming_the_column_and_the_row():
    for values, said in (
        ([0.5, 1.0], r"by column 'x' holds the float 0.5 at row 0: a slice is a value"),
        (
            [1.0, float("nan")],
            r"by column 'x' holds a missing value \(nan\) at row 1: every row needs a slice",
        ),
        (["a", None], r"by column 'x' holds a missing value \(None\) at row 1"),
        (pd.Series(["a", pd.NA], dtype="string"), r"by column 'x' holds a missing value \(<NA>\) at row 1"),
        (
            np.array(["a", 1], dtype=object),
            r"by column 'x' mixes strings \('a' at row 0\) and integers \(1 at row 1\)",
        ),
        ([2.0**60, 1.0], r"past 2\*\*53"),
        (np.array([1 + 1j, 2]), "complex128 values"),
        (pd.Categorical([0.5, 1.5]), r"holds a category 0.5, a fraction"),
    ):
        with pytest.raises(InvalidDataError, match=said) as e:
            code_column("x", values)
        assert "\n" not in str(e.value)


def test_a_missing_value_makes_its_own_slice_when_asked():
    keys, codes = code_column("x", ["a", None, "b", float("nan")], missing="slice")
    assert keys == ["a", "b", MISSING] and codes.tolist() == [0, 2, 1, 2]
    keys, codes = code_column("x", pd.Series([2, None, 1], dtype="Int64"), missing="slice")
    assert keys == [1, 2, MISSING] and codes.tolist() == [1, 2, 0]
    with pytest.raises(InvalidDataError, match="holds the value '<missing>', the name of the slice"):
        code_column("x", ["<missing>", None], missing="slice")
    r = quiet(
        perfeval.evaluate,
        [1, 0, 1],
        [0.9, 0.1, 0.4],
        measures=["acc"],
        by={"x": ["a", None, "a"]},
        missing="slice",
    )
    assert r.slices.slicings[0].keys == ["a", MISSING]


def test_intersect_codes_rows_by_the_columns_keys():
    keys, codes = intersect([(["a", "b"], np.array([0, 1, 1, 0])), ([1, 2, 3], np.array([2, 0, 0, 2]))])
    assert keys == [("a", 3), ("b", 1)] and codes.tolist() == [0, 1, 1, 0]


def test_the_slice_column_cannot_be_the_target_the_score_or_the_weight():
    df = pd.DataFrame({"y": [1, 0, 1], "p": [0.9, 0.2, 0.4], "w": [1.0, 2.0, 1.0], "c": ["a", "b", "a"]})
    for col, role in (("y", "target"), ("p", "score"), ("w", "weight")):
        with pytest.raises(InvalidParameterError, match=f"by column '{col}' is the {role} column"):
            perfeval.evaluate(df, target="y", score="p", weight="w", by=[col])
    y = np.array([1, 0, 1])
    with pytest.raises(InvalidParameterError, match="by column 'y' is the target"):
        perfeval.evaluate(y, [0.9, 0.1, 0.3], by={"y": y})


def test_what_by_does_not_take_is_one_line():
    y, s = [1, 0, 1], [0.9, 0.2, 0.4]
    by = {"c": ["a", "b", "a"]}
    for kw, said in (
        ({"tie_bounds": True}, "by= \\(slices\\): not with tie_bounds yet"),
        ({"dialect": "sklearn"}, "not with a dialect yet"),
        ({"min_size": 0}, "`min_size` must be a whole number >= 1"),
        ({"min_size": True}, "`min_size` must be a whole number >= 1"),
        ({"intersections": "yes"}, "`intersections` must be True or False"),
        ({"missing": "drop"}, "`missing` must be 'error'"),
    ):
        with pytest.raises(InvalidParameterError, match=said):
            perfeval.evaluate(y, s, measures=["roc"], by=by, **kw)
    with pytest.raises(InvalidParameterError, match="names columns of a table"):
        perfeval.evaluate(y, s, by=["c"])
    with pytest.raises(InvalidParameterError, match="holds 2 values for 3 rows"):
        perfeval.evaluate(y, s, by={"c": ["a", "b"]})
    with pytest.raises(InvalidParameterError, match="column 'cc' is not in the table"):
        perfeval.evaluate(
            pd.DataFrame({"y": y, "p": s, "c": ["a", "b", "a"]}), target="y", score="p", by=["cc"]
        )
    with pytest.raises(
        InvalidParameterError, match="the slicing name 'a x b' is both a column's and the intersection"
    ):
        perfeval.evaluate(y, s, by={"a": [1, 1, 2], "b": [1, 2, 2], "a x b": [0, 0, 1]}, intersections=True)
    with pytest.raises(InvalidParameterError, match="names the column .c. twice"):
        perfeval.evaluate(
            pd.DataFrame({"y": y, "p": s, "c": ["a", "b", "a"]}), target="y", score="p", by=[("c", "c")]
        )


def test_by_takes_a_dataframe_a_named_series_and_a_table_with_tuples():
    df = pd.DataFrame(
        {"y": [1, 0, 1, 0], "p": [0.9, 0.2, 0.4, 0.5], "c": ["a", "b", "a", "b"], "d": [1, 1, 2, 2]}
    )
    r1 = quiet(perfeval.evaluate, df, target="y", score="p", measures=["acc"], by=["c", ("c", "d")])
    assert r1.slices.names == ["c", "c x d"]
    r2 = quiet(perfeval.evaluate, df.y, df.p, measures=["acc"], by=df[["c", "d"]], intersections=True)
    assert r2.slices.names == ["c", "d", "c x d"]
    r3 = quiet(perfeval.evaluate, df.y, df.p, measures=["acc"], by=df.c)
    assert r3.slices.names == ["c"]
    assert r1.slices.frame().loc["c x d"].equals(r2.slices.frame().loc["c x d"])
    assert repr(r2).endswith("slices: c (2); d (2); c x d (4)")


# -- the Slices object ---------------------------------------------------------------------------------
def _report():
    y = np.array([1, 0, 1, 0, 1, 0, 1, 1, 0, 0])
    s = np.array([0.9, 0.2, 0.6, 0.7, 0.4, 0.3, 0.8, 0.5, 0.1, 0.2])
    site = np.array(["a", "a", "a", "b", "b", "b", "c", "c", "c", "c"])
    return quiet(
        perfeval.evaluate,
        y,
        s,
        measures=["roc", "brier", "selrate", "cal_slope"],
        by={"site": site},
        min_size=4,
    )


def test_gaps_follow_fairlearns_definitions():
    r = _report()
    sl: Slices = r.slices
    roc = sl.by_group()["ROC"].to_numpy()
    assert sl.difference("auc") == roc.max() - roc.min()
    assert sl.ratio("roc") == roc.min() / roc.max()
    assert sl.difference("roc", method="to_overall") == np.max(np.abs(roc - r["ROC"]))
    ratios = roc / r["ROC"]
    assert sl.ratio("roc", method="to_overall") == np.min(np.where(ratios > 1, 1 / ratios, ratios))
    assert sl.difference("roc", reference="c") == np.max(np.abs(roc - roc[2]))
    assert sl.group_min("roc") == roc.min() and sl.group_max("roc") == roc.max()
    assert set(sl.difference()) == {"ROC", "BRIER", "SELRATE", "CAL_SLOPE"}
    worst = sl.worst("roc", k=2)
    assert [w.key for w in worst] == ["b", "a"] and worst[0].value == roc.min()
    assert sl.worst("brier")[0].value == sl.group_max("brier")  # lower is better: the greatest is worst
    assert [bool(f) for f in sl.slicings[0].flagged] == [True, True, False]
    assert sl.difference("roc", skip_flagged=True) == 0.0


def test_gap_refusals_are_one_line():
    sl = _report().slices
    with pytest.raises(InvalidParameterError, match="SELRATE has no better direction"):
        sl.worst("selrate")
    with pytest.raises(InvalidParameterError, match="reference='zz' is not a slice of 'site'"):
        sl.difference("roc", reference="zz")
    with pytest.raises(InvalidParameterError, match="reference= names the slice of method='to_reference'"):
        sl.difference("roc", method="to_overall", reference="a")
    with pytest.raises(InvalidParameterError, match="'ndcg' is not a measure of these slices"):
        sl.difference("ndcg")
    with pytest.raises(InvalidParameterError, match="no slicing 'x'"):
        sl.ratio("roc", "x")
    with pytest.raises(InvalidParameterError, match="`k` must be a whole number"):
        sl.worst("roc", k=0)


def test_undefined_slices_are_left_out_of_the_gaps_and_said():
    y = np.array([1, 0, 1, 1, 1, 0])
    s = np.array([0.9, 0.2, 0.7, 0.6, 0.8, 0.1])
    r = quiet(perfeval.evaluate, y, s, measures=["roc"], by={"g": [0, 0, 1, 1, 2, 2]})
    with pytest.warns(
        UndefinedMeasureWarning, match=r"ROC is undefined in 1 of 3 slices of 'g' \(1\), left out"
    ):
        assert r.slices.difference("roc") == 0.0
    with pytest.raises(
        InvalidParameterError, match="reference slice 1 has no ROC value: undefined in this slice"
    ):
        quiet(r.slices.difference, "roc", reference=1)


def test_json_has_every_slice_its_reasons_and_the_gaps():
    r = _report()
    d = json.loads(r.to_json())  # strict JSON: no NaN
    sl = d["slices"]
    assert sl["min_size"] == 4
    (one,) = sl["slicings"]
    assert one["slicing"] == "site" and [x["slice"] for x in one["slices"]] == ["a", "b", "c"]
    c = one["slices"][2]
    assert c["rows"] == 4 and c["positives"] == 2.0 and c["flagged"] is False
    gaps = one["gaps"]["ROC"]
    assert gaps["between_groups"]["difference"] == pytest.approx(r.slices.difference("roc"))
    assert gaps["worst"]["slice"] == "b"
    assert "worst_why_null" in one["gaps"]["CAL_SLOPE"]
    for x in one["slices"]:
        for k, v in x["values"].items():
            assert v is not None or k in x["why_null"]
    assert d["params"]["slices"] == {"by": ["site"], "min_size": 4, "missing": "error"}


def test_intersection_keys_in_json_are_lists():
    r = quiet(
        perfeval.evaluate,
        [1, 0, 1, 0],
        [0.9, 0.1, 0.8, 0.3],
        measures=["acc"],
        by={"a": [1, 1, 2, 2], "b": [True, False, True, False]},
        intersections=True,
    )
    d = json.loads(r.to_json())
    assert [x["slice"] for x in d["slices"]["slicings"][2]["slices"]] == [
        [1, False],
        [1, True],
        [2, False],
        [2, True],
    ]


# -- the function the bootstrap calls -------------------------------------------------------------------
def test_finish_slicing_with_poisson_weights_is_the_weighted_evaluation():
    """A replicate's weights (Poisson counts, zeros among them) through finish_slicing give what
    evaluate gives with those weights, slice by slice; the cases are the rows of weight > 0."""
    rng = np.random.default_rng(9)
    n = 400
    y = (rng.random(n) < 0.4).astype(float)
    s = np.round(rng.random(n), 2)
    site = rng.integers(0, 5, n)
    specs = [parse_measure(m) for m in ("roc", "ap", "acc", "brier")]
    cases = code(check(y, s))
    task = Task("binary", tuple(specs))
    counts = rng.poisson(1.0, n).astype(float)
    out = finish_slicing(task, cases, site.astype(np.int64), 6, weights=counts)
    assert out.cases.tolist() == [int(((site == k) & (counts > 0)).sum()) for k in range(6)]
    assert out.rows.tolist() == np.bincount(site, minlength=6).tolist()
    assert (
        out.cases[5] == 0
        and np.isnan(out.values["ROC"][5])
        and out.reasons["ROC"][5] == "no case in this slice"
    )
    for k in range(5):
        m = site == k
        want = _eval(y[m], s[m], ["roc", "ap", "acc", "brier"], sample_weight=counts[m])
        for label, v in want.items():
            assert same(float(out.values[label][k]), v, 1e-14), (k, label)
    assert out.weight.tolist() == [float(counts[site == k].sum()) for k in range(6)]


def test_aps_per_group_form_gives_nan_to_a_group_without_a_cell():
    """A group known by its code but holding no case (the first or the last): NaN, the others theirs."""
    from perfeval.measures._data import GroupedData
    from perfeval.measures.rank import ap_groups

    codes = np.array([1, 1, 1, 2, 2])
    y = np.array([1, 0, 1, 0, 1])
    s = np.array([0.1, 0.5, 0.5, 0.3, 0.9])
    got = ap_groups(GroupedData(codes, y, s, None, 4))
    want = [_eval(y[codes == k], s[codes == k], ["ap"])["AP"] for k in (1, 2)]
    assert np.isnan(got[0]) and np.isnan(got[3]) and got[1:3].tolist() == want


@settings(max_examples=25, deadline=None)
@given(data())
def test_several_slicings_give_the_bits_of_each_slicing_alone(d):
    """With several slicings the rows are put in score order once for all of them (api/slices.py);
    every measure's values are those of each slicing evaluated alone (no reordering), bit for bit."""
    y, s, by, _ = d
    measures = [spec(m) for m in BINARY]
    together = quiet(perfeval.evaluate, y, s, measures=measures, by=by, intersections=True)
    for sl in together.slices.slicings:
        if len(sl.columns) > 1:
            continue
        alone = quiet(perfeval.evaluate, y, s, measures=measures, by={sl.columns[0]: by[sl.columns[0]]})
        one = alone.slices.slicings[0]
        assert one.keys == sl.keys
        for label, vals in sl.values.values.items():
            np.testing.assert_array_equal(vals, one.values.values[label], err_msg=label)
        assert sl.values.reasons == one.values.reasons


def test_group_summaries_of_rows_in_score_order_are_those_of_any_order():
    """csrc/summary.c group_hist_rows sorts only the groups whose scores come out of order: rows in
    score order, in reverse order and shuffled give the same summaries."""
    from perfeval import _native

    rng = np.random.default_rng(10)
    n = 300_000  # two threads
    s = np.round(rng.random(n), 3)
    s[:50] = -0.0
    s[50:100] = 0.0
    y = (rng.random(n) < 0.3).astype(np.uint8)
    g = rng.integers(0, 7, n).astype(np.int64)
    runs = []
    for order in (
        np.arange(n),
        np.argsort(s, kind="stable"),
        np.argsort(-s, kind="stable"),
        rng.permutation(n),
    ):
        out = _native.group_hist_rows(g[order], s[order], y[order], 7)
        runs.append([bytes(b) for b in out])
    assert runs[0] == runs[1] == runs[2] == runs[3]


INF = math.inf


@pytest.mark.parametrize(
    "values, overall",
    [
        ([INF, INF, 0.3], INF),  # two slices at the overall infinity: left out of to_overall
        ([INF, INF], INF),  # every one: no value
        ([INF, INF], 0.5),
        ([-INF, -INF, 1.0], 0.5),
        ([INF, -INF, 2.0], 1.0),
        ([INF, 0.0, 0.0], 0.0),
        ([0.0, 0.0], 0.0),
        ([0.2, 0.4], INF),
    ],
)
def test_gaps_of_infinite_values_are_fairlearns_without_warnings(values, overall):
    """difference_of / ratio_of with infinities: fairlearn's MetricFrame numbers (a metric giving each
    group its value), and no numpy warning (inf - inf, inf / inf, 0 / 0 are decided, not computed)."""
    fairlearn = pytest.importorskip("fairlearn.metrics")
    from perfeval.api.slices import difference_of, ratio_of

    # group k holds k + 1 rows, the whole len(values) + ... rows: the metric reads the value by size
    sizes = list(range(1, len(values) + 1))
    by_size = dict(zip(sizes, values, strict=True))
    by_size[sum(sizes)] = overall
    feature = np.repeat(np.arange(len(values)), sizes)
    n = len(feature)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fairlearn's pandas: NaN said in its way
        mf = fairlearn.MetricFrame(
            metrics=lambda yt, yp: by_size[len(yt)], y_true=np.zeros(n), y_pred=np.zeros(n),
            sensitive_features=feature,
        )  # fmt: skip
        want = {
            (f, m): float(getattr(mf, f)(method=m))
            for f in ("difference", "ratio")
            for m in ("between_groups", "to_overall")
        }
    v = np.asarray(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = {
            (f.__name__.split("_")[0], m): f(v, m, overall)
            for f in (difference_of, ratio_of)
            for m in ("between_groups", "to_overall")
        }
    for k in want:
        assert (math.isnan(got[k]) and math.isnan(want[k])) or got[k] == want[k], (k, got[k], want[k])


def test_an_infinite_gap_in_json_says_its_sign_not_a_ratio_of_0_to_0():
    y = np.array([1, 0, 1, 0, 1, 0])
    site = {"site": np.repeat(["a", "b", "c"], 2)}

    def gaps(s):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            warnings.simplefilter("error", RuntimeWarning)
            r = perfeval.evaluate(y, np.asarray(s), measures=["logloss"], by=site)
            return r, r.to_dict()["slices"]["slicings"][0]["gaps"]["LOGLOSS"]

    # a positive scored 0 in a and b: their LOGLOSS +infinity, c's finite
    r, g = gaps([0.0, 0.5, 0.0, 0.2, 0.8, 0.3])
    assert r.slices.difference("logloss") == r.slices.difference("logloss", method="to_overall") == INF
    for method in ("between_groups", "to_overall"):
        assert g[method]["difference"] is None and g[method]["difference_why_null"] == "+infinity"
        assert g[method]["ratio"] == 0.0
    assert g["max"] == {"slice": "a", "value": None, "why_null": "+infinity"}
    # every slice at +infinity, and the whole: infinity minus itself has no value
    r, g = gaps([0.0, 0.5, 0.0, 0.2, 0.0, 0.3])
    assert math.isnan(r.slices.difference("logloss")) and math.isnan(r.slices.ratio("logloss"))
    for method in ("between_groups", "to_overall"):
        assert "infinity minus infinity" in g[method]["difference_why_null"]
        assert "of infinity to infinity" in g[method]["ratio_why_null"]


def test_intersections_of_more_than_ten_columns_are_refused_before_any_is_made():
    """2^k - 1 slicings of k columns: beyond 2^10 one line says how many and how to name the
    intersections wanted; ten columns (1,023 slicings) and named intersections of eleven are made."""
    rng = np.random.default_rng(0)
    n = 40
    y, s = rng.integers(0, 2, n), rng.random(n)
    by = {f"c{i}": rng.integers(0, 2, n) for i in range(11)}
    with pytest.raises(InvalidParameterError) as e:
        perfeval.evaluate(y, s, measures=["roc"], by=by, intersections=True)
    said = str(e.value)
    assert "intersections of 11 columns would make 2,047 slicings" in said and "more than 1,024" in said
    assert "by=['c0', ('c0', 'c1')]" in said and "\n" not in said
    with pytest.raises(InvalidParameterError, match="would make 2,047 slicings"):
        perfeval.Metric(measures=["roc"], by=list(by), intersections=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        r = perfeval.evaluate(
            y, s, measures=["roc"], by={k: by[k] for k in list(by)[:10]}, intersections=True
        )
        assert len(r.slices.slicings) == 1023
        frame = pd.DataFrame(by)
        r = perfeval.evaluate(
            frame.assign(y=y, s=s), target="y", score="s", measures=["roc"], by=[*by, ("c0", "c10")]
        )
        assert r.slices.names[-1] == "c0 x c10" and len(r.slices.slicings) == 12


def test_the_slice_options_without_by_are_said_not_dropped_in_memory_too():
    # evaluate_stream, Metric, Dask and Spark refuse them: evaluate() in memory said nothing and
    # gave a report without slices, as if min_size= had been honoured
    y, s = [1, 0, 1], [0.9, 0.2, 0.4]
    df = pd.DataFrame({"y": y, "p": s, "c": ["a", "b", "a"]})
    for kw, what in (
        ({"intersections": True}, "intersections"),
        ({"min_size": 5}, "min_size"),
        ({"missing": "slice"}, "missing"),
    ):
        with pytest.raises(
            InvalidParameterError, match=rf"^{what}= is an option of the slices: it needs by="
        ):
            perfeval.evaluate(y, s, measures=["roc"], **kw)
        with pytest.raises(InvalidParameterError, match=rf"^{what}= is an option of the slices"):
            perfeval.evaluate(df, target="y", score="p", measures=["roc"], **kw)


def test_every_door_says_the_slice_options_without_by_in_the_same_line():
    # one rule (engine/slice_report.py needs_by) behind evaluate, evaluate_stream, Metric and Dask
    dd = pytest.importorskip("dask.dataframe")
    from perfeval.backends.stream import evaluate_stream

    y, s = np.array([1, 0, 1, 0]), np.array([0.9, 0.2, 0.4, 0.3])
    ddf = dd.from_pandas(pd.DataFrame({"y": y, "p": s}), npartitions=2)
    doors = {
        "memory": lambda kw: perfeval.evaluate(y, s, measures=["roc"], **kw),
        "stream": lambda kw: evaluate_stream([(y, s)], measures=["roc"], **kw),
        "Metric": lambda kw: perfeval.Metric(["roc"], **kw),
        "dask": lambda kw: perfeval.evaluate(ddf, target="y", score="p", measures=["roc"], **kw),
    }
    for kw, what in (
        ({"intersections": True}, "intersections"),
        ({"min_size": 5}, "min_size"),
        ({"missing": "slice"}, "missing"),
    ):
        for door, call in doors.items():
            with pytest.raises(InvalidParameterError) as e:
                call(kw)
            assert str(e.value) == f"{what}= is an option of the slices: it needs by=[...]", door


def test_arrays_in_a_list_of_by_names_are_refused_in_one_short_line():
    # a list of Series (fairlearn's habit) printed the whole Series, many lines, in the message
    df = pd.DataFrame({"y": [1, 0, 1, 0] * 30, "p": np.linspace(0, 1, 120), "c": ["a", "b", "c"] * 40})
    for by in ([df.c], [df.c.to_numpy()], [df.c, df.y], [("c", df.c)], [list(df.c)]):
        with pytest.raises(InvalidParameterError, match=r"^`by`: ") as e:
            perfeval.evaluate(df, target="y", score="p", measures=["roc"], by=by)
        message = str(e.value)
        assert "\n" not in message and len(message) < 300, message
        assert "a dict of names to arrays" in message or "names the column 'a' twice" in message
    with pytest.raises(InvalidParameterError, match=r"^`by`: ") as e:
        perfeval.evaluate_stream([(df.y, df.p, {"c": df.c})], by=[df.c])
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    with pytest.raises(
        InvalidParameterError, match=r"^`by`: the intersection of 120 names names the column 'a'"
    ):
        perfeval.evaluate_stream([(df.y, df.p, {"c": df.c})], by=[list(df.c)])
