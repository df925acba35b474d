"""The Spark backend gives the in-memory numbers bit for bit, on one local SparkSession for the test
session (tests/conftest.py's ``spark``: ``local[2,4]``), whose executors' Python workers are other
processes: the summaries really travel.  Skipped where pyspark or Java is absent."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import perfeval  # noqa: E402
from _registry import choices, every  # noqa: E402
from perfeval.exceptions import (  # noqa: E402
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
)

BINARY = every("binary")  # every binary measure, with every other choice of each parameter
GROUPED = ["GAUC", "GAUC_UNWEIGHTED", "NDCG@10", "MAP", "MRR", "P@5", "R@5", "ROC", "APR", "RMS", "ACC"]
GROUPED += choices("binary")
#: the measures that need whole-number weights (counts of cases): refused with 0.25, in memory too
COUNTS = re.compile(r"^(APR|CA2|ECE:debiased=yes)")
WEIGHTED_GROUPED = ["ROC", "APR", "RMS", "ACC", "AP"]  # the per-group measures that take weights
#: the JVM is slow: few examples, each a Spark job or two (the in-memory side is checked far more
#: widely elsewhere; here what is checked is that Spark's partitions change no bit)
SLOW = settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))


def same(a, b):
    return a == b or (a != a and b != b)


def assert_same_report(a, b):
    assert list(a.results) == list(b.results)
    for k in b.results:
        assert same(a[k], b[k]), k
        pa_, pb = a.results[k].per_group, b.results[k].per_group
        if pb is not None:
            np.testing.assert_array_equal(pa_, pb, err_msg=k)
    if b.groups is not None:
        np.testing.assert_array_equal(a.groups, b.groups)
        assert a.groups.dtype == b.groups.dtype  # 64-bit ids stay integers, never floats
    assert a.params["rows"] == b.params["rows"]  # every row, a group's of weight 0 too
    assert a.params["backend"] == "spark"


def frame(spark, pdf: pd.DataFrame, parts: int, skew: np.ndarray | None = None):
    """``pdf`` as a Spark DataFrame of ``parts`` partitions; with ``skew`` (a partition key a row),
    hash-partitioned on it: some partitions hold most rows, some none.
    """
    if skew is None:
        return spark.createDataFrame(pdf).repartition(parts)
    sdf = spark.createDataFrame(pdf.assign(_k=skew))
    return sdf.repartition(parts, "_k").drop("_k")


def data(draw_seed: int, n: int, decimals: int, weights: str):
    rng = np.random.default_rng(draw_seed)
    share = rng.choice([0.0, 1.0, rng.random()])  # one class only, sometimes
    df = pd.DataFrame(
        {
            "y": (rng.random(n) < share).astype(np.int64),
            "s": np.round(rng.random(n), decimals),  # few decimals: many ties
        }
    )
    if weights == "whole":
        df["w"] = rng.integers(0, 4, n).astype(np.float64)  # weight 0: no case
    elif weights == "dyadic":
        df["w"] = rng.choice([0.0, 0.25, 0.5, 1.5, 2.0], n)
    skew = (rng.random(n) ** 6 * 5).astype(np.int64)  # most rows under key 0
    return df, skew


@SLOW
@given(
    st.integers(0, 10_000),
    st.integers(1, 400),
    st.integers(1, 9),
    st.sampled_from([1, 2, 6]),
    st.sampled_from(["none", "whole", "dyadic"]),
    st.booleans(),
)
def test_binary_measures_are_the_in_memory_bits(spark, seed, n, parts, decimals, weights, skewed):
    import perfeval.spark

    pdf, skew = data(seed, n, decimals, weights)
    sdf = frame(spark, pdf, parts, skew if skewed else None)
    w = None if weights == "none" else "w"
    measures = BINARY if weights != "dyadic" else [m for m in BINARY if not COUNTS.match(m)]
    a = perfeval.spark.evaluate(sdf, target="y", score="s", weight=w, measures=measures)
    b = perfeval.evaluate(pdf, target="y", score="s", weight=w, measures=measures)
    assert_same_report(a, b)
    assert a.params["weighted"] == (w is not None)


@SLOW
@given(
    st.integers(0, 10_000),
    st.integers(1, 9),
    st.booleans(),
    st.sampled_from(["none", "whole"]),
)
def test_per_group_measures_are_the_in_memory_bits(spark, seed, parts, skewed, weights):
    import perfeval.spark

    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 600))
    pdf, skew = data(seed, n, int(rng.integers(1, 3)), weights)
    # 64-bit ids: past 2^53 (a float would merge them) and negative; groups of one class among them
    base = np.array([(1 << 62) + 1, (1 << 62) + 2, -(1 << 60), 7, (1 << 53) + 1], dtype=np.int64)
    pdf["g"] = base[rng.integers(0, len(base), n)] + rng.integers(0, 20, n) * 3
    w = None if weights == "none" else "w"
    measures = GROUPED if w is None else WEIGHTED_GROUPED
    sdf = frame(spark, pdf, parts, skew if skewed else None)
    a = perfeval.spark.evaluate(sdf, target="y", score="s", group="g", weight=w, measures=measures)
    b = perfeval.evaluate(pdf, target="y", score="s", group="g", weight=w, measures=measures)
    assert_same_report(a, b)
    assert a.groups.dtype == np.int64


def test_text_groups_graded_targets_and_pos_label(spark):
    import perfeval.spark

    rng = np.random.default_rng(5)
    n = 300
    pdf = pd.DataFrame(
        {
            "rel": rng.integers(0, 4, n),
            "s": np.round(rng.random(n), 1),
            "q": np.array(["007", "7", "q-a", "q-b"])[rng.integers(0, 4, n)],  # "007" and "7": two groups
            "label": np.array(["click", "none", "buy"])[rng.integers(0, 3, n)],
        }
    )
    sdf = frame(spark, pdf, 3)
    a = perfeval.evaluate(sdf, target="rel", score="s", group="q", measures=["ndcg@5", "map", "ndcg"])
    b = perfeval.evaluate(pdf, target="rel", score="s", group="q", measures=["ndcg@5", "map", "ndcg"])
    assert_same_report(a, b)
    assert list(a.groups) == ["007", "7", "q-a", "q-b"]
    read: dict = {}
    a = perfeval.spark.evaluate(
        sdf, target="label", score="s", pos_label="click", measures=["roc", "apr"], labels_read=read
    )
    b = perfeval.evaluate(pdf, target="label", score="s", pos_label="click", measures=["roc", "apr"])
    assert (a["ROC"], a["APR"]) == (b["ROC"], b["APR"])
    assert read["others"] == {"none", "buy"}
    with pytest.raises(
        InvalidDataError, match=r"pos_label='view' does not occur in the target column 'label'"
    ):
        perfeval.spark.evaluate(sdf, target="label", score="s", pos_label="view", measures=["roc"])


@SLOW
@given(
    st.integers(0, 10_000),
    st.sampled_from([1, 3, 6]),
    st.booleans(),
    st.sampled_from(["none", "whole", "group"]),
)
def test_slices_are_the_in_memory_bits(spark, seed, parts, skewed, how):
    """``by=`` on Spark: memory's slices bit for bit (unweighted binary: each partition's key
    combinations' summaries; with weights or groups: the rows the slices read), 64-bit and text keys,
    intersections, many and skewed partitions.
    """
    import perfeval.spark

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    pdf, skew = data(seed, n, int(rng.integers(1, 3)), "whole" if how == "whole" else "none")
    pdf["country"] = np.array(["fr", "de", "it"])[rng.integers(0, 3, n)]
    pdf["device"] = np.array([(1 << 62) + 1, -(1 << 60), 7], dtype=np.int64)[rng.integers(0, 3, n)]
    pdf["g"] = rng.integers(0, 12, n).astype(np.int64)
    sdf = frame(spark, pdf, parts, skew if skewed else None)
    kw: dict = {"weight": "w"} if how == "whole" else {"group": "g"} if how == "group" else {}
    measures = ["gauc", "ndcg", "roc"] if how == "group" else ["roc", "apr", "acc", "rms", "logloss"]
    by = ["country", "device"]
    a = perfeval.spark.evaluate(
        sdf, target="y", score="s", measures=measures, by=by, intersections=True, **kw
    )
    b = perfeval.evaluate(pdf, target="y", score="s", measures=measures, by=by, intersections=True, **kw)
    assert_same_report(a, b)
    assert a.slices.frame().equals(b.slices.frame())
    assert len(a.slices.frame()) > 0


def test_slices_of_a_regression_target_and_k_classes(spark):
    """Slices of a regression target and of K classes on Spark: the rows they read, memory's bits."""
    import perfeval.spark

    rng = np.random.default_rng(12)
    n = 300
    pdf = pd.DataFrame(
        {
            "price": np.round(rng.normal(size=n) * 10, 1),
            "pred": np.round(rng.normal(size=n) * 10, 1),
            "region": rng.integers(0, 4, n).astype(np.int64),
            "y": np.array(["cat", "dog", "bird"])[rng.integers(0, 3, n)],
            "cat": np.round(rng.random(n), 2),
            "dog": np.round(rng.random(n), 2),
            "bird": np.round(rng.random(n), 2),
        }
    )
    sdf = frame(spark, pdf, 3)
    reg = {"target": "price", "score": "pred", "measures": ["mae", "rmse"], "by": ["region"]}
    a, b = perfeval.spark.evaluate(sdf, **reg), perfeval.evaluate(pdf, **reg)
    assert a.slices.frame().equals(b.slices.frame()) and len(a.slices.frame()) == 4
    k = {"target": "y", "score": ["cat", "dog", "bird"], "by": ["region"]}
    a, b = perfeval.spark.evaluate(sdf, **k), perfeval.evaluate(pdf, **k)
    assert a.slices.frame().equals(b.slices.frame()) and len(a.slices.frame()) == 4


def test_k_labels_are_the_in_memory_bits(spark):
    """K labels (a 0/1 target column a label, as many score columns), unweighted over all rows: a
    LabelSummary a partition, memory's bits; their slices too; weighted or per group, one line.
    """
    import perfeval.spark

    rng = np.random.default_rng(14)
    n = 400
    pdf = pd.DataFrame(
        {
            **{f"is_{k}": rng.integers(0, 2, n) for k in "abc"},
            **{f"p_{k}": np.round(rng.random(n), 1) for k in "abc"},  # one decimal: ties
            "region": rng.integers(0, 3, n).astype(np.int64),
            "w": rng.integers(0, 3, n).astype(np.float64),
        }
    )
    sdf = frame(spark, pdf, 5)
    kw = {"target": ["is_a", "is_b", "is_c"], "score": ["p_a", "p_b", "p_c"], "by": ["region"]}
    a, b = perfeval.spark.evaluate(sdf, **kw), perfeval.evaluate(pdf, **kw)
    assert list(a.results) == list(b.results) and a.results
    for k in b.results:
        assert same(a[k], b[k]), k
    assert a.params["backend"] == "spark" and a.params["rows"] == b.params["rows"] == n
    assert a.slices.frame().equals(b.slices.frame())
    with pytest.raises(InvalidParameterError, match=r"^column 'p_z' is not in the Spark DataFrame"):
        perfeval.spark.evaluate(sdf, target=["is_a", "is_b"], score=["p_a", "p_z"])


@pytest.mark.parametrize("weight", [None, "w"])
def test_k_classes_and_k_labels_per_group_are_the_in_memory_bits(spark, weight):
    """K classes and K labels per group, with weights or not: the rows tagged with their place,
    repartitioned by group, each group's rows put back in the frame's order and finished where they
    lie by the Dask backend's functions; memory's bits (64-bit ids, groups of one class among them).
    """
    import perfeval.spark

    rng = np.random.default_rng(15)
    n = 500
    pdf = pd.DataFrame(
        {
            "g": np.array([(1 << 62) + 1, -(1 << 60), 7, 8, 9], dtype=np.int64)[rng.integers(0, 5, n)],
            "y": np.array(["cat", "dog", "bird"])[rng.integers(0, 3, n)],
            **{k: np.round(rng.random(n), 1) for k in ("cat", "dog", "bird")},
            **{f"is_{k}": rng.integers(0, 2, n) for k in "ab"},
            "w": rng.integers(0, 3, n).astype(np.float64),
        }
    )
    sdf = spark.createDataFrame(pdf, schema=None).coalesce(3)  # the frame's order: pdf's
    for kw in (
        {"target": "y", "score": ["cat", "dog", "bird"]},
        {"target": ["is_a", "is_b"], "score": ["cat", "dog"]},
    ):
        a = perfeval.spark.evaluate(sdf, **kw, group="g", weight=weight)
        b = perfeval.evaluate(pdf, **kw, group="g", weight=weight)
        assert list(a.results) == list(b.results) and a.results
        for k in b.results:
            assert same(a[k], b[k]), k
            if b.results[k].per_group is not None:
                np.testing.assert_array_equal(a.results[k].per_group, b.results[k].per_group, err_msg=k)
        np.testing.assert_array_equal(a.groups, b.groups)
        assert a.groups.dtype == np.int64 and a.params["backend"] == "spark"
        assert a.params["rows"] == b.params["rows"] == n


def test_weighted_k_classes_and_k_labels_over_all_rows_are_the_in_memory_bits(spark):
    """Weighted K classes and K labels over all rows, any weights: the partitions folded one after the
    other in their order on the driver, each sum in the rows' order: memory's bits on the frame's rows
    (``createDataFrame`` of a pandas frame keeps its order over its partitions).
    """
    import perfeval.spark

    rng = np.random.default_rng(16)
    n = 2000
    pdf = pd.DataFrame(
        {
            "y": np.array(["cat", "dog", "bird"])[rng.integers(0, 3, n)],
            **{k: np.round(rng.random(n), 2) for k in ("cat", "dog", "bird")},
            **{f"is_{k}": rng.integers(0, 2, n) for k in "ab"},
            "w": rng.random(n) * (rng.random(n) < 0.9),  # any weights, some 0
        }
    )
    sdf = spark.createDataFrame(pdf)
    assert sdf.rdd.getNumPartitions() > 1
    for kw in (
        {"target": "y", "score": ["cat", "dog", "bird"]},
        {"target": ["is_a", "is_b"], "score": ["cat", "dog"]},
    ):
        a = perfeval.spark.evaluate(sdf, **kw, weight="w")
        b = perfeval.evaluate(pdf, **kw, weight="w")
        assert list(a.results) == list(b.results) and a.results
        for k in b.results:
            assert same(a[k], b[k]), k
        assert a.params["weighted"] and a.params["backend"] == "spark"
        assert a.params["rows"] == b.params["rows"] == n


def test_regression_and_k_classes_are_the_in_memory_bits(spark):
    import perfeval.spark

    rng = np.random.default_rng(11)
    n = 500
    pdf = pd.DataFrame(
        {
            "price": rng.normal(size=n) * 10,
            "pred": rng.normal(size=n) * 10,
            "w": rng.random(n),  # any weights: the regression sums are exact
            "region": rng.integers(0, 9, n).astype(np.int64),
            "y": np.array(["cat", "dog", "bird"])[rng.integers(0, 3, n)],
            "cat": np.round(rng.random(n), 2),
            "dog": np.round(rng.random(n), 2),
            "bird": np.round(rng.random(n), 2),
        }
    )
    sdf = frame(spark, pdf, 4)
    reg = ["mae", "rmse", "r2"]
    assert_same_report(
        perfeval.spark.evaluate(sdf, target="price", score="pred", weight="w", measures=reg),
        perfeval.evaluate(pdf, target="price", score="pred", weight="w", measures=reg),
    )
    assert_same_report(
        perfeval.spark.evaluate(sdf, target="price", score="pred", group="region", measures=reg),
        perfeval.evaluate(pdf, target="price", score="pred", group="region", measures=reg),
    )
    a = perfeval.spark.evaluate(sdf, target="y", score=["cat", "dog", "bird"])
    b = perfeval.evaluate(pdf, target="y", score=["cat", "dog", "bird"])
    assert list(a.results) == list(b.results)
    for k in b.results:
        assert same(a[k], b[k]), k
    assert a.params["classes"] == ["cat", "dog", "bird"] and a.params["backend"] == "spark"


def test_a_worker_lost_mid_job_is_retried_with_the_same_bits(spark, tmp_path):
    """The Python worker of partition 1 dies (``os._exit``) on its first attempt, after reading its
    rows; Spark (``local[2,4]``: 4 attempts a task) runs the task again, and the numbers are the same.
    """
    from perfeval.backends.spark import evaluate_spark

    rng = np.random.default_rng(3)
    n = 3000
    pdf = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), 3),
            "g": rng.integers(0, 40, n).astype(np.int64),
        }
    )
    sdf = frame(spark, pdf, 3)
    b = perfeval.evaluate(pdf, target="y", score="s", measures=["roc", "apr", "rms"])
    marker = tmp_path / "died"
    a = evaluate_spark(
        sdf, target="y", score="s", measures=["roc", "apr", "rms"], _fail_once=(str(marker), 1)
    )
    assert marker.read_text() == "0"  # the first attempt of partition 1 died
    assert_same_report(a, b)
    marker2 = tmp_path / "died-grouped"
    a = evaluate_spark(
        sdf, target="y", score="s", group="g", measures=["gauc", "ndcg"], _fail_once=(str(marker2), 0)
    )
    assert marker2.exists()
    assert_same_report(a, perfeval.evaluate(pdf, target="y", score="s", group="g", measures=["gauc", "ndcg"]))


def test_bad_input_is_one_line_naming_the_column(spark):
    import perfeval.spark

    pdf = pd.DataFrame(
        {"y": [1, 0, 2, 1], "s": [0.1, 0.2, 0.3, 0.4], "g": [1.0, 2.0, 1.0, 2.0], "t": ["a", "b", "a", "b"]}
    )
    sdf = spark.createDataFrame(pdf)
    with pytest.raises(
        InvalidParameterError, match=r"^column 'nope' is not in the Spark DataFrame \(columns: y, s, g, t\)$"
    ):
        perfeval.spark.evaluate(sdf, target="y", score="nope")
    with pytest.raises(
        InvalidDataError, match=r"^the group column 'g' holds floating-point numbers \(double\)"
    ):
        perfeval.spark.evaluate(sdf, target="y", score="s", group="g", measures=["gauc"])
    with pytest.raises(InvalidDataError, match=r"^the target column 'y' holds") as e:
        perfeval.spark.evaluate(sdf, target="y", score="s", measures=["roc"])
    assert "\n" not in str(e.value)
    nulls = spark.createDataFrame([(1, 0.5, 3), (0, 0.2, None)], "y int, s double, q bigint")
    with pytest.raises(InvalidDataError, match=r"^the group column 'q' holds a missing value \(null\)"):
        perfeval.spark.evaluate(nulls, target="y", score="s", group="q", measures=["gauc"])
    with pytest.raises(InvalidParameterError, match=r"^column 'nope' is not in the table"):
        perfeval.spark.evaluate(sdf, target="y", score="s", by=["nope"])
    with pytest.raises(InvalidParameterError, match=r"^by column 'y' is the target column"):
        perfeval.spark.evaluate(sdf, target="y", score="s", by=["y"])
    with pytest.raises(InvalidParameterError, match=r"^intersections= is an option of the slices"):
        perfeval.spark.evaluate(sdf, target="y", score="s", intersections=True)
    with pytest.raises(InvalidParameterError, match="GAUC is computed per group"):
        perfeval.spark.evaluate(sdf, target="y", score="s", measures=["gauc"])


def test_sparks_own_evaluator_beside_the_exact_value(spark):
    """Spark's BinaryClassificationEvaluator, run in the session, beside perfeval's exact values and
    its ``spark`` dialect finished from the same summary.  Binned (100 bins for 4,000 distinct
    scores), Spark's number is not the exact one; unbinned (numBins above half the distinct scores),
    it is, and the dialect is Spark's number to the last bits of its sums.
    """
    import perfeval.spark

    rng = np.random.default_rng(2)
    n = 4000
    y = rng.integers(0, 2, n)
    pdf = pd.DataFrame({"y": y, "s": 1 / (1 + np.exp(-(rng.normal(size=n) + y)))})
    sdf = frame(spark, pdf, 3)
    b = perfeval.evaluate(pdf, target="y", score="s", measures=["roc", "ap"])
    got = perfeval.spark.binning(sdf, target="y", score="s", num_bins=100)
    (roc, exact_roc, own_roc, _d), (ap, exact_ap, _own, _d2) = got.rows
    assert (roc, ap) == ("ROC", "AP")
    assert (exact_roc, exact_ap) == (b["ROC"], b["AP"])
    assert abs(own_roc - exact_roc) > 1e-6  # the binning shows
    text = str(got)
    assert "Spark numBins=100" in text and "Spark merged runs of 40 consecutive scores" in text
    whole = perfeval.spark.binning(sdf, target="y", score="s", num_bins=10_000)
    (_r, exact_roc, own_roc, dialect_roc), (_a, _e, own_ap, dialect_ap) = whole.rows
    assert own_roc == pytest.approx(exact_roc, rel=1e-13, abs=0) and own_roc == pytest.approx(
        dialect_roc, rel=1e-13
    )
    assert own_ap == pytest.approx(dialect_ap, rel=1e-13, abs=0)  # Spark's trapezoids, not AP
    assert "kept every distinct score" in str(whole)


def test_without_pyspark_the_install_hint(monkeypatch):
    import sys

    from perfeval.backends import spark as backend

    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'perfeval\[spark\]'"):
        backend.evaluate_spark(object(), target="y", score="s")


def test_the_command_on_parquet_and_csv_files(spark, tmp_path, capsys):
    """``perfeval eval FILES --spark MASTER``: the output of the files read whole, in memory (the
    session of the tests is the one used: a session there already is used, not stopped).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from conftest import run_cli

    rng = np.random.default_rng(8)
    n = 400
    pdf = pd.DataFrame(
        {
            "q": rng.integers(0, 30, n).astype(np.int64) + (1 << 60),
            "y": rng.integers(0, 2, n),
            "p": np.round(rng.random(n), 2),
        }
    )
    d = tmp_path / "parts"
    d.mkdir()
    for i in range(3):
        chunk = pdf.iloc[i * n // 3 : (i + 1) * n // 3]
        pq.write_table(pa.Table.from_pandas(chunk, preserve_index=False), d / f"part{i}.parquet")
    whole = tmp_path / "all.csv"
    pdf.to_csv(whole, index=False)
    args = ["--target", "y", "--score", "p", "--group", "q", "-m", "gauc,ndcg,roc", "--format", "json"]
    code, out, _err = run_cli(["eval", str(whole), *args], capsys)
    assert code == 0

    def said(text):  # every number, to the last digit; the backend and the source apart
        got = json.loads(text.replace("backend:memory", "backend:spark"))
        for key in ("backend", "source"):
            got["params"].pop(key)
        return got

    memory = said(out)
    assert memory["measures"]["GAUC"]["per_group"]
    code, out, err = run_cli(["eval", str(d / "*.parquet"), *args, "--spark", "local[2]"], capsys)
    assert code == 0 and said(out) == memory, err
    assert json.loads(out)["params"]["backend"] == "spark"
    code, out, err = run_cli(["eval", str(whole), *args, "--spark", "local[2]"], capsys)  # CSV: text ids
    assert code == 0 and said(out) == memory, err
    code, out, err = run_cli(["eval", str(whole), *args, "--spark", "local[2]", "--stream"], capsys)
    assert code == 2 and out == ""
    said = (
        "--spark: not with --stream (it reads the file in chunks here, --spark where the files lie: give "
        "one); drop --spark to evaluate in memory"
    )
    assert err == f"perfeval: error: {said}\n"
    code, out, err = run_cli(
        ["eval", str(d / "*.parquet"), "--target", "y", "--score", "nope", "--spark", "local[2]"], capsys
    )
    assert code in (1, 2) and out == "" and err.count("\n") == 1 and "nope" in err


def test_the_example_of_docs_spark_md_prints_what_it_says(spark, capsys):
    """docs/spark.md's first Python block, run (its ``getOrCreate`` is the tests' session), prints the
    text block after it.
    """
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "spark.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    shown = text.split("```text\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/spark.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_explain_puts_sparks_own_number_and_the_dialect_beside_the_exact_value(spark):
    """``perfeval.spark.explain``: perfeval's exact values (memory's bits), the ``spark`` dialect's from
    the same summary (memory's ``explain`` of the same rows gives the same bits), and Spark's
    BinaryClassificationEvaluator run in the session, with what binning cost and that it depends on
    Spark's partitioning said under it.
    """
    import perfeval.spark

    rng = np.random.default_rng(5)
    n = 3000
    y = rng.integers(0, 2, n)
    pdf = pd.DataFrame({"y": y, "s": 1 / (1 + np.exp(-(rng.normal(size=n) + y)))})
    sdf = frame(spark, pdf, 3)
    e = perfeval.spark.explain(sdf, target="y", score="s", measures=["roc", "ap"], num_bins=100)
    memory = perfeval.explain(pdf["y"], pdf["s"], measures="roc,ap", dialects=["spark:numBins=100"])
    assert e.measures == ["ROC", "AP"] and e.rows == n
    assert e.dialects == ["perfeval", "spark:numBins=100", "Spark numBins=100"]
    for m in ("ROC", "AP"):
        assert e.value("perfeval", m) == memory.value("perfeval", m)
        assert e.value("spark:numBins=100", m) == memory.value("spark:numBins=100", m)
    own = e.cells["Spark numBins=100"]["ROC"]
    assert abs(own.value - e.value("perfeval", "ROC")) > 1e-6  # Spark's own, binned: not the exact value
    text = str(e)
    assert f"what binning cost here: Spark - exact = {own.value - e.value('perfeval', 'ROC'):.3g}\n" in text
    assert "depends on its partitioning" in text and "[3000 distinct scores]" in text
    with pytest.raises(InvalidParameterError, match="NDCG is not among Spark's"):
        perfeval.spark.explain(sdf, target="y", score="s", measures=["ndcg"])
    with pytest.raises(InvalidParameterError, match=r"perfeval\.spark\.explain"):
        perfeval.explain(sdf, "s", measures="roc")


def test_explain_on_the_command_line(spark, tmp_path, capsys):
    """``perfeval explain FILES --spark MASTER``: the values of ``perfeval.spark.explain`` on the files
    (numBins from ``--dialects spark:numBins=N``); what Spark's evaluator has not, one line, exit 2.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    import perfeval.spark
    from conftest import run_cli

    rng = np.random.default_rng(9)
    n = 600
    y = rng.integers(0, 2, n)
    pdf = pd.DataFrame({"y": y, "p": 1 / (1 + np.exp(-(rng.normal(size=n) + y)))})
    d = tmp_path / "parts"
    d.mkdir()
    for i in range(2):
        chunk = pdf.iloc[i * n // 2 : (i + 1) * n // 2]
        pq.write_table(pa.Table.from_pandas(chunk, preserve_index=False), d / f"part{i}.parquet")
    args = ["explain", str(d / "*.parquet"), "--target", "y", "--score", "p", "-m", "roc,ap"]
    code, out, err = run_cli(
        [*args, "--spark", "local[2]", "--dialects", "spark:numBins=50", "--format", "csv"], capsys
    )
    assert code == 0, err
    rows = [line.split(",") for line in out.splitlines()]
    assert [r[0] for r in rows] == ["dialect", "perfeval", "spark:numBins=50", "Spark numBins=50"]
    memory = perfeval.explain(pdf["y"], pdf["p"], measures="roc,ap", dialects=["spark:numBins=50"])
    for row, dialect in zip(rows[1:3], ("perfeval", "spark:numBins=50"), strict=True):
        assert [float(v) for v in row[1:]] == [memory.value(dialect, m) for m in ("ROC", "AP")]
    for extra, said in (
        (["-m", "ndcg"], "explain on Spark: NDCG is not among Spark's BinaryClassificationEvaluator's"),
        (["--group", "y"], "explain --spark: not with --group"),
        (["--dialects", "sklearn"], "explain --spark: the dialects are perfeval and spark"),
    ):
        code, out, err = run_cli([*args, *extra, "--spark", "local[2]"], capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and said in err, err


def test_the_command_with_slices(spark, tmp_path, capsys):
    """``perfeval eval FILES --spark MASTER --by ...``: the slices of the files read whole, in memory,
    on Parquet and on a CSV (its slice columns typed as read whole: integers, text with an empty field
    a missing value, ``007`` text); a column of decimals is refused in one line, as in memory.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from conftest import run_cli

    rng = np.random.default_rng(13)
    n = 300
    pdf = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": np.round(rng.random(n), 2),
            "d": rng.integers(0, 3, n),
            "c": rng.choice(["a", "b", ""], n),
            "h": rng.choice(["007", "7", "8"], n),
            "f": rng.choice(["1.5", "2", ""], n),
        }
    )
    whole = tmp_path / "all.csv"
    pdf.to_csv(whole, index=False)
    pq.write_table(
        pa.Table.from_pandas(pdf.drop(columns="f"), preserve_index=False), tmp_path / "all.parquet"
    )
    args = ["--target", "y", "--score", "p", "-m", "roc,acc", "--by", "d,c,h", "--intersections"]
    args += ["--missing-slice", "--format", "json"]

    def slices(out):
        return json.loads(out)["slices"]

    code, out, err = run_cli(["eval", str(whole), *args], capsys)
    assert code == 0, err
    memory = slices(out)
    assert any(s["slice"] == "007" for sl in memory["slicings"] for s in sl["slices"])
    for path in (whole, tmp_path / "all.parquet"):
        if path.suffix == ".parquet":  # Parquet's "" is a value, not a missing one: memory's own
            code, out, err = run_cli(["eval", str(path), *args], capsys)
            assert code == 0, err
            memory = slices(out)
        code, out, err = run_cli(["eval", str(path), *args, "--spark", "local[2]"], capsys)
        assert code == 0 and slices(out) == memory, err
    code, out, err = run_cli(
        ["eval", str(whole), "--target", "y", "--score", "p", "--by", "f", "--spark", "local[2]"], capsys
    )
    assert code == 1 and out == "" and err.count("\n") == 1 and "holds the float 1.5" in err, err


def test_the_command_on_every_task_prints_what_memory_prints(spark, tmp_path, capsys):
    """``perfeval eval FILES --spark`` takes what ``perfeval eval`` takes on the same files: K classes
    (the score columns named after the classes, or --classes), K labels, a regression target (told
    from the target column as read whole, or named), several --score columns (binary or regression
    models), with --group, --weight and --by; its output is the output in memory byte for byte, on
    Parquet and on a CSV, the backend in the signature apart.
    """
    from conftest import run_cli

    rng = np.random.default_rng(21)
    n = 240
    probs = rng.dirichlet([1, 1, 1], n).round(2)
    pdf = pd.DataFrame(
        {
            "g": rng.integers(0, 9, n),
            "y": np.array(["cat", "dog", "bird"])[rng.integers(0, 3, n)],
            "cat": probs[:, 0],
            "dog": probs[:, 1],
            "bird": probs[:, 2],
            "w": rng.integers(0, 4, n).astype(float),
            "d": rng.choice(["a", "b"], n),
            "yb": rng.integers(0, 2, n),
            "la": rng.integers(0, 2, n),
            "lb": rng.integers(0, 2, n),
            "pa": rng.random(n).round(2),
            "pb": rng.random(n).round(2),
            "r": rng.normal(size=n).round(3),
            "rp": rng.normal(size=n).round(3),
            "rp2": rng.normal(size=n).round(3),
        }
    )
    pdf.to_csv(tmp_path / "k.csv", index=False)
    pdf.to_parquet(tmp_path / "k.parquet", index=False)
    asked = [
        "--target y --score cat,dog,bird --group g --weight w --per-group",
        "--target y --score cat,dog,bird --classes cat,dog,bird --weight w --by d",
        "--labels la,lb --score pa,pb --group g",
        "--labels la,lb --score pa,pb --weight w --by d",
        "--target r --score rp --by d",
        "--target r --score rp,rp2 --group g",
        "--target yb --score pa,pb --group g -m gauc,roc --by d",
        "--target yb --score pa --weight w --format json",
    ]
    for options in asked:
        for name in ("k.csv", "k.parquet"):
            argv = ["eval", str(tmp_path / name), *options.split()]
            code, memory, err = run_cli(argv, capsys)
            assert code == 0, (options, err)
            code, out, err = run_cli([*argv, "--spark", "local[2]"], capsys)
            assert code == 0, (options, err)
            assert "backend:spark" in out, options
            assert (
                out.replace("backend:spark", "backend:memory").replace(
                    '"backend": "spark"', '"backend": "memory"'
                )
                == memory
            ), (options, name)
    # what a table read whole refuses, Spark refuses: one line
    argv = ["eval", str(tmp_path / "k.parquet"), "--target", "y", "--score", "cat,dog", "--spark", "local[2]"]
    code, out, err = run_cli(argv, capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "has no score column among" in err, err


def test_a_nullable_integer_slice_column(spark):
    """A slice column of integers with nulls (pandas' ``Int64``, Spark's bigint with nulls): read as
    memory reads the same column (its ids integers, the null a missing value: a slice of its own with
    ``missing="slice"``, else one line naming it as memory does, ``<NA>``, not a float's ``nan``).
    """
    import perfeval.spark

    rng = np.random.default_rng(4)
    n = 90
    keys = np.array([(1 << 40) + 1, (1 << 40) + 2, 7], dtype=np.int64)
    pdf = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": rng.random(n).round(2),
            "w": rng.integers(0, 3, n).astype(float),
            "g": rng.integers(0, 5, n),
            "d": pd.array(keys[rng.integers(0, 3, n)], dtype="Int64"),
        }
    )
    pdf.loc[[3, 50], "d"] = pd.NA
    sdf = spark.createDataFrame(pdf).repartition(3)
    assert dict(sdf.dtypes)["d"] == "bigint"
    for kw in ({}, {"weight": "w"}, {"group": "g", "measures": ["gauc", "roc"]}):
        a = perfeval.spark.evaluate(sdf, target="y", score="s", by=["d"], missing="slice", **kw)
        b = perfeval.evaluate(pdf, target="y", score="s", by=["d"], missing="slice", **kw)
        assert a.slices.to_dict() == b.slices.to_dict(), kw
        assert len(a.slices.to_dict()["slicings"][0]["slices"]) == 4  # 3 ids and <missing>
        with pytest.raises(InvalidDataError, match=r"^by column 'd' holds a missing value \(<NA>\) at row"):
            perfeval.spark.evaluate(sdf, target="y", score="s", by=["d"], **kw)


def test_a_run_of_the_command_writes_nothing_on_stderr(tmp_path):
    """``perfeval eval FILES --spark local[1]`` in a process of its own (the JVM started there): Spark's
    logging at errors from the JVM's start and the JVM's note on incubator modules not passed on, so
    a run that succeeds writes its output and nothing on stderr.
    """
    import os
    import subprocess
    import sys
    from pathlib import Path

    pdf = pd.DataFrame({"y": [0, 1, 1, 0, 1], "p": [0.1, 0.8, 0.6, 0.7, 0.9]})
    pdf.to_parquet(tmp_path / "p.parquet", index=False)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    code = "from perfeval.cli.main import main; raise SystemExit(main())"
    argv = [sys.executable, "-c", code, "eval", str(tmp_path / "p.parquet"), "--target", "y", "--score", "p"]
    done = subprocess.run(
        [*argv, "-m", "roc", "--spark", "local[1]"], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("measure     value\nROC      0.833333\n"), done.stdout
    assert done.stderr == ""
    (tmp_path / "p.parquet").write_bytes((tmp_path / "p.parquet").read_bytes()[:200])  # cut short
    done = subprocess.run(
        [*argv, "-m", "roc", "--spark", "local[1]"], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 1 and done.stdout == ""  # one line, not the executor's logged stack
    assert done.stderr.endswith("p.parquet: is not a readable Parquet file (Could not read footer)\n")
    assert done.stderr.count("\n") == 1, done.stderr


def test_column_names_with_a_dot_or_a_space(spark):
    """A column named ``model.score`` or ``user id`` is that column, not a field of a struct: every
    path (over all rows, per group, K classes, slices, Spark's own evaluator) reads it as memory does.
    """
    import perfeval.spark

    rng = np.random.default_rng(9)
    n = 400
    pdf = pd.DataFrame(
        {
            "user id": (1 << 62) + rng.integers(0, 20, n),
            "is.click": rng.integers(0, 2, n),
            "model.score": np.round(rng.random(n), 2),
            "b.1": 1 - np.round(rng.random(n), 2),
            "geo.cc": rng.choice(["us", "de"], n),
            "w.t": rng.integers(0, 3, n).astype(np.float64),
        }
    )
    sdf = frame(spark, pdf, 3)
    cases = [
        dict(target="is.click", score="model.score", group="user id", measures=["gauc", "ndcg@10", "roc"]),
        dict(target="is.click", score="model.score", weight="w.t", measures=["roc", "ap"]),
        dict(target="is.click", score="model.score", measures=["roc", "ap"], by=["geo.cc"]),
        dict(target="is.click", score="model.score", group="user id", measures=["gauc"], by=["geo.cc"]),
        dict(target="is.click", score="model.score", group="user id", weight="w.t", measures=["roc"]),
    ]
    for kw in cases:
        a, b = perfeval.spark.evaluate(sdf, **kw), perfeval.evaluate(pdf, **kw)
        assert_same_report(a, b)
        if "by" in kw:
            assert a.slices.frame().equals(b.slices.frame()) and len(a.slices.frame()) > 0
    k = pdf.assign(lab=np.where(pdf["is.click"] == 1, "model.score", "b.1"))
    kw = dict(target="lab", score=["model.score", "b.1"], measures=["acc_mc"])
    assert perfeval.spark.evaluate(frame(spark, k, 2), **kw)["ACC_MC"] == perfeval.evaluate(k, **kw)["ACC_MC"]
    got = perfeval.spark.binning(sdf, target="is.click", score="model.score", num_bins=1000)
    exact = perfeval.evaluate(pdf, target="is.click", score="model.score", measures=["roc"])["ROC"]
    assert got.rows[0][1] == exact


def test_files_that_are_missing_empty_or_corrupted_are_one_line(spark, tmp_path, capsys):
    """A path that names no file, an empty directory, a file that is no Parquet (alone: Spark's schema
    fails; among good files: a task fails) are each one line naming the path, exit 1, no traceback.
    """
    from conftest import run_cli

    pdf = pd.DataFrame({"y": [0, 1, 1, 0], "p": [0.1, 0.8, 0.6, 0.7]})
    good = tmp_path / "good"
    good.mkdir()
    pdf.to_parquet(good / "a.parquet", index=False)
    (tmp_path / "empty").mkdir()
    bad = tmp_path / "bad"
    bad.mkdir()
    pdf.to_parquet(bad / "a.parquet", index=False)
    (bad / "b.parquet").write_bytes((good / "a.parquet").read_bytes()[:300])
    args = ["--target", "y", "--score", "p", "-m", "roc", "--spark", "local[2]"]
    for path, said in [
        (tmp_path / "nope.parquet", "nope.parquet: no such file"),
        (tmp_path / "empty", "empty: a directory that holds no file"),
        (bad / "b.parquet", "b.parquet: is not a readable Parquet file"),
        (bad, "b.parquet: is not a readable Parquet file"),
    ]:
        code, out, err = run_cli(["eval", str(path), *args], capsys)
        assert (code, out, err.count("\n")) == (1, "", 1), (path, err)
        assert err.startswith("perfeval: error: ") and said in err, err


def test_what_the_jvm_said_is_its_first_line():
    """A master that cannot be reached: Spark's Py4JJavaError holds py4j's call and Java's stack over
    dozens of lines; the one line said is the Java exception's message."""
    from perfeval.backends.spark import java_said

    text = (
        "An error occurred while calling None.org.apache.spark.sql.classic.SparkSession.\n"
        ": java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.\n"
        "This stopped SparkContext was created at:\n\n"
        "org.apache.spark.api.java.JavaSparkContext.<init>(JavaSparkContext.scala:59)\n"
        "\tat org.apache.spark.SparkContext.assertNotStopped(SparkContext.scala:128)\n"
    )
    assert java_said(RuntimeError(text)) == "Cannot call methods on a stopped SparkContext."


def test_tweedie_rows_below_or_beyond_the_range_say_memorys_reasons(spark, tmp_path, capsys):
    """A Tweedie deviance whose row lost its bits below float64's normal range (power 3 of data about
    1e200, power -1 of data about 1e-200) or whose step is beyond its range (power 3, about 1e-200):
    NaN with memory's reason, over all rows, per group, and in the command's --by slices."""
    import warnings

    import perfeval.spark
    from conftest import run_cli
    from test_regression_group_whys import assert_same_whys
    from test_regression_tweedie_low import BELOW, GROUPS, assert_slices_say_memorys, by_slices_csv

    measures = ["mae", "tweedie_dev:power=3", "tweedie_dev:power=-1", "d2_tweedie:power=3"]
    pdf = pd.DataFrame(
        [(float(a), float(b), k) for k in ("big", "ok", "tiny") for a, b in zip(*GROUPS[k], strict=True)],
        columns=["y", "p", "g"],
    )
    sdf = frame(spark, pdf, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rows in (pdf, pdf[pdf.g == "big"], pdf[pdf.g == "tiny"]):
            a = perfeval.spark.evaluate(frame(spark, rows, 2), target="y", score="p", measures=measures)
            b = perfeval.evaluate(rows, target="y", score="p", measures=measures)
            assert_same_report(a, b)
            assert [r.why for r in a.results.values()] == [r.why for r in b.results.values()]
        assert BELOW in b.results["TWEEDIE_DEV@-1"].why and ": mu^-2," in b.results["TWEEDIE_DEV@3"].why
        a = perfeval.spark.evaluate(sdf, target="y", score="p", group="g", measures=measures)
        b = perfeval.evaluate(pdf, target="y", score="p", group="g", measures=measures)
    assert_same_report(a, b)
    assert_same_whys(a, b)
    assert any(BELOW in w for w in b.results["TWEEDIE_DEV@3"].undefined_groups_why)
    rows = by_slices_csv(tmp_path / "sliced.csv")
    argv = ["eval", str(tmp_path / "sliced.csv"), "--header", "--target", "y", "--score", "p"]
    argv += ["-m", ",".join(measures[:3]), "--by", "g", "--format", "json", "--spark", "local[2]"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    said = assert_slices_say_memorys(out, rows, measures[:3])
    assert BELOW in said["big"]["why_null"]["TWEEDIE_DEV@3"]
