"""evaluate(), the per-query measures and group AUC against slow references; inputs and errors."""

from __future__ import annotations

import json
import math
import random
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _reference import dcg_of, expected, hits_at, pairwise_auc, rr_of
from perfeval import InvalidDataError, InvalidParameterError, UnknownMeasureError, evaluate

# one query: up to 7 cases, graded relevance, coarse scores (ties)
query = st.lists(
    st.tuples(st.sampled_from([0, 0, 1, 2, 3]), st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9])),
    min_size=1,
    max_size=7,
)


def close(a: float, b: float, tol: float = 1e-9) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol * max(1.0, abs(b))


@given(query, st.sampled_from([0, 1, 3, 10]))
def test_dcg_cg_ndcg_are_expectations_over_tie_orders(rows, k):
    rel, s = [r for r, _ in rows], [v for _, v in rows]
    r = evaluate(rel, s, measures=[f"dcg@{k}", f"cg@{k}", f"ndcg@{k}"])
    assert close(r[f"dcg@{k}"], expected(lambda o: dcg_of(o, k), rel, s))
    kk = len(rel) if k == 0 else k
    assert close(r[f"cg@{k}"], expected(lambda o: sum(2.0**x - 1 for x in o[:kk]), rel, s))
    ideal = dcg_of(sorted(rel, reverse=True), k)
    want = expected(lambda o: dcg_of(o, k), rel, s) / ideal if ideal > 0 else math.nan
    assert close(r[f"ndcg@{k}"], want)


@given(query, st.sampled_from([0, 1, 2, 5]))
def test_mrr_precision_recall_at_k_are_expectations(rows, k):
    rel, s = [r for r, _ in rows], [v for _, v in rows]
    r = evaluate(rel, s, measures=["mrr", f"p@{k}", f"r@{k}"])
    assert close(r["MRR"], expected(rr_of, rel, s) if any(rel) else math.nan)
    kk = len(rel) if k == 0 else k
    assert close(r[f"p@{k}"], expected(lambda o: hits_at(o, k), rel, s) / kk)
    R = sum(1 for x in rel if x > 0)
    assert close(r[f"r@{k}"], expected(lambda o: hits_at(o, k), rel, s) / R if R else math.nan)


sk = pytest.importorskip("sklearn.metrics")


@given(st.lists(query, min_size=1, max_size=6))
def test_ndcg_map_per_query_match_scikit_learn(queries):
    rel, s, g = [], [], []
    for qi, rows in enumerate(queries):
        for r_, v in rows:
            rel.append(r_)
            s.append(v)
            g.append(qi)
    r = evaluate(rel, s, groups=g, measures=["ndcg", "map"])
    want_ndcg, want_ap = [], []
    for rows in queries:
        y = [a for a, _ in rows]
        v = [b for _, b in rows]
        if any(y):
            gains = [2.0**a - 1 for a in y]  # scikit-learn uses the relevance itself as the gain
            want_ndcg.append(sk.ndcg_score([gains], [v]) if len(y) > 1 else 1.0)
            want_ap.append(sk.average_precision_score([int(a > 0) for a in y], v))
    got_ndcg = r.results["NDCG"].per_group
    got_ap = r.results["MAP"].per_group
    assert np.allclose(got_ndcg[~np.isnan(got_ndcg)], want_ndcg)
    assert np.allclose(got_ap[~np.isnan(got_ap)], want_ap)
    assert close(r["MAP"], float(np.mean(want_ap)) if want_ap else math.nan)


binary_rows = st.lists(
    st.tuples(
        st.sampled_from([0, 1]), st.sampled_from([0.1, 0.4, 0.5, 0.9]), st.sampled_from(["a", "b", "c"])
    ),
    min_size=1,
    max_size=40,
)


@given(binary_rows)
def test_group_auc_is_the_size_weighted_mean_of_pairwise_aucs(rows):
    y, s, g = ([r[i] for r in rows] for i in range(3))
    r = evaluate(y, s, groups=g, measures=["gauc", "gauc_unweighted", "roc"])
    aucs, sizes = [], []
    for key in sorted(set(g)):
        yy = [a for a, gg in zip(y, g, strict=False) if gg == key]
        ss = [b for b, gg in zip(s, g, strict=False) if gg == key]
        aucs.append(pairwise_auc(yy, ss))
        sizes.append(len(yy))
    ok = [i for i, a in enumerate(aucs) if not math.isnan(a)]
    want = sum(aucs[i] * sizes[i] for i in ok) / sum(sizes[i] for i in ok) if ok else math.nan
    assert close(r["GAUC"], want)
    assert close(r["GAUC_UNWEIGHTED"], float(np.mean([aucs[i] for i in ok])) if ok else math.nan)
    assert close(r["ROC"], r["GAUC_UNWEIGHTED"])  # ROC per group, plain mean
    assert len(r.results["GAUC"].undefined) == len(aucs) - len(ok)


wide_rows = st.lists(
    st.tuples(
        st.sampled_from([0, 1]),
        st.sampled_from([0.0, 0.1, 0.4, 0.5, 0.9, 1.0, 1.2, -0.1]),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from([1, 1, 2, 3]),
    ),
    min_size=1,
    max_size=40,
)


@given(wide_rows, st.booleans())
def test_every_binary_measure_per_group_equals_each_group_alone(rows, weighted):
    y, s, g, wt = ([r[i] for r in rows] for i in range(4))
    w = wt if weighted else None
    names = [
        "acc",
        "ppv",
        "npv",
        "sen",
        "spc",
        "prf",
        "lft",
        "err",
        "fpr",
        "fnr",
        "cst:fp=3,fn=1",
        "sar",
        "roc",
        "apr",
        "ap",
        "prb",
        "rkl",
        "rms",
        "cxe",
        "nrm:p=3",
        "nrm:p=0",
        "logloss",
        "brier",
        "fbeta@2",
        "ca2:window=2",
        "slq",
        "slq:bins=3",
        "top1",
        "top10",
        "ntop@2",
        "ca1",
        "r50@2",
        "r50@1",
        "r50",
    ]
    r = evaluate(y, s, groups=g, measures=names, sample_weight=w)
    for i, key in enumerate(r.groups):
        yy = [a for a, gg in zip(y, g, strict=False) if gg == key]
        ss = [b for b, gg in zip(s, g, strict=False) if gg == key]
        ww = None if w is None else [c for c, gg in zip(w, g, strict=False) if gg == key]
        alone = evaluate(yy, ss, measures=names, sample_weight=ww)
        for label in alone:
            assert close(r.results[label].per_group[i], alone[label]), (label, key)


def test_worked_auc_examples_through_evaluate():
    assert evaluate([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2], measures=["roc"])["ROC"] == 0.75
    assert evaluate([1, 1, 0, 0], [0.9, 0.5, 0.5, 0.1], measures=["roc"])["ROC"] == 0.875
    r = evaluate([1, 1, 1, 0, 0, 0, 0], [0.9, 0.5, 0.5, 0.5, 0.5, 0.1, 0.2], measures=["roc"])
    assert math.isclose(r["ROC"], 10 / 12)


def test_tie_semantics_do_not_depend_on_input_order():
    # the cases of ANCHORS.md 3.4: tools disagree and depend on document order
    for y in ([1, 0, 0, 0], [0, 0, 0, 1]):
        r = evaluate(y, [0.5] * 4, measures=["ndcg", "ap", "apr", "roc", "mrr"])
        assert round(r["NDCG"], 4) == 0.6404 and r["AP"] == 0.25 and math.isnan(r["ROC"]) is False
        assert math.isclose(r["APR"], (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4) and math.isclose(r["MRR"], r["APR"])
    r = evaluate([0, 1, 0, 1, 0], [0.9, 0.7, 0.7, 0.3, 0.1], measures=["ndcg", "ap", "roc"])
    assert round(r["NDCG"], 4) == 0.6108 and round(r["AP"], 4) == 0.4167 and round(r["ROC"], 4) == 0.4167


def test_partitions_kddcup2002_task2():
    labels = ["change", "nc", "control", "change", "nc", "control", "nc"]
    score = [0.9, 0.1, 0.6, 0.8, 0.3, 0.2, 0.4]
    parts = {"narrow": ["change"], "broad": ["change", "control"]}
    r = evaluate(labels, score, measures=["roc"], partitions=parts)
    narrow = pairwise_auc([1 if lab == "change" else 0 for lab in labels], score)
    broad = pairwise_auc([1 if lab in ("change", "control") else 0 for lab in labels], score)
    assert close(r["ROC[narrow]"], narrow) and close(r["ROC[broad]"], broad)
    with pytest.raises(InvalidParameterError, match="'chnage' does not occur"):
        evaluate(labels, score, measures=["roc"], partitions={"x": ["chnage"]})


@pytest.mark.parametrize("conv", [list, np.asarray, lambda a: np.asarray(a).reshape(-1, 1)])
def test_input_containers(conv):
    r = evaluate(conv([1, 0, 1, 0]), conv([0.8, 0.6, 0.4, 0.2]), measures="roc,apr")
    assert r["ROC"] == 0.75


@pytest.mark.parametrize("lib", ["pandas", "polars", "pyarrow"])
def test_dataframe_library_columns(lib):
    mod = pytest.importorskip(lib)
    if lib == "pyarrow":
        y, s = mod.array([1, 0, 1, 0]), mod.array([0.8, 0.6, 0.4, 0.2])
    else:
        y, s = mod.Series([1, 0, 1, 0]), mod.Series([0.8, 0.6, 0.4, 0.2])
    assert evaluate(y, s, measures=["roc"])["ROC"] == 0.75


@pytest.mark.parametrize(
    "kwargs, exc, fragment",
    [
        (dict(y_true=[1, 0], y_score=[0.5, float("nan")]), InvalidParameterError, "NaN cannot be ranked"),
        (dict(y_true=[1, 0], y_score=[0.5, float("inf")]), InvalidParameterError, "finite"),
        # an infinite value is said as such, not as a NaN (a regression's prediction too)
        (
            dict(y_true=[1, 0], y_score=[0.5, float("-inf")]),
            InvalidParameterError,
            "got -inf at index 1 (an infinite value is no number to score; replace it",
        ),
        (
            dict(y_true=[1.5, 2.0, 1.0], y_score=[0.2, float("inf"), 0.3], measures=["mae"]),
            InvalidParameterError,
            "`y_pred` must be finite numbers, got inf at index 1 (an infinite value is no number to score;",
        ),
        (dict(y_true=[1, 0, 1], y_score=[0.5, 0.2]), InvalidParameterError, "same length"),
        (
            dict(y_true=[1, 0], y_score=[0.5, 0.2], measures=["rco"]),
            UnknownMeasureError,
            "did you mean 'roc'",
        ),
        (
            dict(y_true=[2, 0, 1], y_score=[0.5, 0.2, 0.1], measures=["roc"]),
            InvalidParameterError,
            "binary targets (0/1, -1/1 or booleans), but `y_true` holds 0, 1, 2",
        ),
        (dict(y_true=[-1, 0, 1], y_score=[0.5, 0.2, 0.1], measures=["ndcg"]), InvalidParameterError, ">= 0"),
        (dict(y_true=[1, 0], y_score=[0.5, 0.2], measures=["gauc"]), InvalidParameterError, "pass `groups=`"),
        (dict(y_true=[1, 0], y_score=[0.5, 0.2], groups=[1]), InvalidParameterError, "length"),
        (
            dict(y_true=[1, 0], y_score=[0.5, 0.2], measures=["ndcg:q=3"]),
            InvalidParameterError,
            "no parameter 'q'",
        ),
        (
            dict(y_true=[1, 0], y_score=[0.5, 0.2], measures=["ndcg@x"]),
            InvalidParameterError,
            "expected a number",
        ),
        (
            dict(y_true=[1, 0], y_score=[0.5, 0.2], measures=["roc", "auc"]),
            InvalidParameterError,
            "named twice",
        ),
        (dict(y_true=[1, 0], y_score=["a", "b"]), InvalidParameterError, "must hold numbers"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, exc, fragment):
    with pytest.raises(exc, match=re.escape(fragment)):
        evaluate(**kwargs)


def test_report_conversions():
    r = evaluate(
        [1, 0, 1, 1, 0, 0],
        [0.8, 0.3, 0.6, 0.2, 0.4, 0.1],
        groups=["q1", "q1", "q1", "q2", "q2", "q3"],
        measures=["gauc", "ndcg@2", "acc"],
    )
    d = json.loads(r.to_json())
    assert d["measures"]["GAUC"]["value"] == 0.6  # (3 x 1 + 2 x 0) / 5; q3 has one class
    assert d["measures"]["GAUC"]["undefined_groups"] == ["q3"]
    assert d["measures"]["NDCG@2"]["per_group"]["q3"] is None
    assert d["params"]["groups"] == 3 and d["params"]["rows"] == 6
    assert r["ndcg@2"] == r["NDCG@2"]
    assert "GAUC" in repr(r)


def test_threshold_applies_unless_a_spec_sets_its_own():
    r = evaluate([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2], measures=["acc", "acc:threshold=0.7"], threshold=0.3)
    assert list(r.results) == ["ACC@0.3", "ACC@0.7"]  # the threshold shows in the label
    assert r["ACC"] == 0.75 and r["ACC:threshold=0.7"] == 0.75 and r["acc@0.7"] == 0.75
    assert evaluate([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2], measures=["acc"], threshold=0.5)["ACC"] == 0.5


def test_large_grouped_input_runs_vectorised():
    rng = np.random.default_rng(0)
    n, q = 200_000, 2000
    g = rng.integers(0, q, n)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n) + 0.3 * y, 3)
    r = evaluate(y, s, groups=g, measures=["gauc", "ndcg@10", "map", "mrr", "p@10", "r@10"])
    assert 0.5 < r["GAUC"] < 1 and 0 < r["NDCG@10"] <= 1
    random.seed(1)
    for key in random.sample(range(q), 5):  # spot checks against the definition
        m = g == key
        if 0 < y[m].sum() < m.sum():
            i = int(np.searchsorted(r.groups, key))
            assert close(r.results["GAUC"].per_group[i], pairwise_auc(y[m].tolist(), s[m].tolist()))


def test_undefined_values_come_with_a_warning():
    from perfeval import UndefinedMeasureWarning

    with pytest.warns(
        UndefinedMeasureWarning,
        match=r"GAUC is undefined for 1 of 2 groups \('b': one class only: all 2 cases are positive\)",
    ):
        r = evaluate([1, 0, 1, 1], [0.9, 0.2, 0.5, 0.4], groups=["a", "a", "b", "b"], measures=["gauc"])
    assert r.results["GAUC"].undefined == ["b"] and r["GAUC"] == 1.0
    with pytest.warns(UndefinedMeasureWarning, match="ROC is undefined for this data"):
        assert math.isnan(evaluate([1, 1], [0.2, 0.4], measures=["roc"])["ROC"])


def test_weights_are_refused_for_per_query_measures():
    with pytest.raises(
        InvalidParameterError, match="`weights` apply to the binary measures only, not to NDCG"
    ):
        evaluate([1, 0], [0.5, 0.2], measures=["roc", "ndcg"], sample_weight=[1, 2])


def test_report_as_pandas_frames():
    pd = pytest.importorskip("pandas")
    r = evaluate(
        [1, 0, 1, 1, 0, 0],
        [0.8, 0.3, 0.6, 0.2, 0.4, 0.1],
        groups=["q1", "q1", "q1", "q2", "q2", "q3"],
        measures=["gauc", "ndcg@2"],
    )
    frame = r.to_frame()
    assert list(frame.index) == ["GAUC", "NDCG@2"] and frame.loc["GAUC", "undefined_groups"] == 1
    groups = r.groups_frame()
    assert isinstance(groups, pd.DataFrame) and list(groups.index) == ["q1", "q2", "q3"]
    assert groups.loc["q1", "GAUC"] == 1.0 and math.isnan(groups.loc["q3", "GAUC"])


def test_package_attribute_is_the_function_even_after_the_module_is_imported():
    import importlib

    import perfeval

    importlib.import_module("perfeval.api.evaluation")
    assert (
        callable(perfeval.evaluate) and perfeval.evaluate([1, 0], [0.9, 0.1], measures=["roc"])["ROC"] == 1.0
    )


def test_measures_undefined_in_the_same_groups_share_one_warning():
    import warnings

    from perfeval import UndefinedMeasureWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(
            [1, 0, 1, 1], [0.9, 0.2, 0.5, 0.4], measures=["gauc", "roc", "acc"], groups=["a", "a", "b", "b"]
        )
    said = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    assert len(said) == 1 and said[0].startswith(
        "GAUC and ROC are undefined for 1 of 2 groups ('b': one class only: all 2 cases are positive)"
    )


def test_results_come_in_the_order_asked_whatever_the_kinds():
    # each kind of measure is computed in its own pass; the report keeps the order of the request
    import warnings

    import perfeval
    import perfeval.measures

    rng = np.random.default_rng(3)
    y, s, g = rng.integers(0, 2, 60), rng.random(60), rng.integers(0, 4, 60)
    asked = ["rms", "gauc", "acc@0.7", "ndcg@5", "roc", "map", "ap"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for order in (asked, asked[::-1], asked[3:] + asked[:3]):
            labels = [perfeval.measures.parse_measure(m).label for m in order]
            assert list(perfeval.evaluate(y, s, groups=g, measures=order).results) == labels
            m = perfeval.Metric(order, clustered=True)
            m.update(y[np.argsort(g, kind="stable")], s[np.argsort(g, kind="stable")], groups=np.sort(g))
            assert list(m.compute().results) == labels
            r = perfeval.evaluate(y, s, groups=g, measures=order, partitions={"b": [1], "a": [0]})
            assert list(r.results) == [lab + "[b]" for lab in labels] + [lab + "[a]" for lab in labels]


def test_gauc_on_grades_says_it_reads_above_0_as_positive():
    import warnings

    from perfeval.exceptions import GradesAsLabelsWarning

    y, s, g = (
        np.array([0, 2, 1, 0, 3, 0]),
        np.array([0.1, 0.9, 0.3, 0.4, 0.8, 0.2]),
        np.array([1, 1, 1, 2, 2, 2]),
    )
    with pytest.warns(GradesAsLabelsWarning, match=r"GAUC read y_true's grades \(0, 1, 2, 3\) as positive"):
        r = evaluate(y, s, groups=g, measures=["gauc", "ndcg@3"])
    assert (
        r.results["GAUC"].value
        == evaluate((y > 0).astype(int), s, groups=g, measures=["gauc"]).results["GAUC"].value
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradesAsLabelsWarning)
        evaluate((y > 0).astype(int), s, groups=g, measures=["gauc"])  # 0/1: nothing to say
        evaluate(y, s, groups=g, measures=["ndcg@3"])  # grades are what NDCG reads
        evaluate(y, s, groups=g, measures=["gauc"], pos_label=2)  # the label named


def test_labels_for_a_measure_reading_numbers_say_what_to_pass():
    """Click/no labels for GAUC or NDCG were "`y_true` holds 'no' at index 0, not a number (str)":
    GAUC is offered pos_label='click' (it codes the group AUCs), NDCG a coding of the caller's
    (pos_label= codes the binary measures and GAUC only), in one line each."""
    y = np.array(["no", "click", "click", "no", "click", "no"])
    s = [0.1, 0.4, 0.5, 0.8, 0.9, 0.2]
    g = [1, 1, 2, 2, 3, 3]
    with pytest.raises(InvalidDataError) as e:
        evaluate(y, s, groups=g, measures=["gauc"])
    assert "GAUC reads numbers" in str(e.value) and "`y_true` holds 'click', 'no'" in str(e.value)
    assert "name the positive label with pos_label= (e.g. pos_label='click')" in str(e.value)
    with pytest.raises(InvalidDataError) as e:
        evaluate(y, s, groups=g, measures=["gauc", "ndcg@2"])
    assert "NDCG@2 reads numbers" in str(e.value) and "np.asarray(y_true) == 'click'" in str(e.value)
    assert "pos_label=" not in str(e.value)
    with pytest.raises(InvalidDataError) as e:
        evaluate(y, s, groups=g, measures=["ndcg@2"], pos_label="click")
    assert "pos_label= codes the binary measures and GAUC only" in str(e.value)
    assert "np.asarray(y_true) == 'click' as y_true for NDCG@2" in str(e.value)
    assert evaluate(y, s, groups=g, measures=["gauc"], pos_label="click")["GAUC"] == pytest.approx(2 / 3)
    # a stray word among grades is that value, as before
    with pytest.raises(InvalidDataError, match="`y_true` holds 'x' at index 2, not a number"):
        evaluate(np.array([0, 2, "x", 1, 0, 1], dtype=object), s, groups=g, measures=["ndcg@2"])


def test_warnings_point_at_the_callers_line():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate([1, 1], [0.2, 0.3], measures=["roc"])  # undefined overall
        evaluate([1, 1, 0, 0], [0.2, 0.3, 0.1, 0.5], groups=[1, 1, 2, 2], measures=["roc"])  # in groups
    assert len(caught) == 2 and all(w.filename == __file__ for w in caught), [w.filename for w in caught]
