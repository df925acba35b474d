"""K classes through the other doors: ``perfeval.Metric(classes=)``, a Dask DataFrame with a score
column a class, and the statistics (``perfeval.stats.ci`` / ``compare`` of an (n, K) score matrix)
give what ``evaluate(y, S, classes=)`` gives in memory, bit for bit where the sums are the same
(every multiclass measure of the registry: a new one is covered the day it is registered)."""

from __future__ import annotations

import math
import pickle
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import perfeval
from perfeval import Metric
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import list_measures

MULTICLASS = [m.name for m in list_measures() if m.kind == "multiclass"]


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def same_bits(a, b) -> None:
    """Two reports of K classes: the same measures, values and per-class values, bit for bit."""
    assert list(a.results) == list(b.results)
    for label, ra in a.results.items():
        rb = b.results[label]
        va, vb = np.float64(ra.value), np.float64(rb.value)
        assert va.tobytes() == vb.tobytes() or (math.isnan(va) and math.isnan(vb)), (label, va, vb)
        if ra.per_class is None:
            assert rb.per_class is None, label
        else:
            assert np.array_equal(ra.per_class, rb.per_class, equal_nan=True), (
                label,
                ra.per_class,
                rb.per_class,
            )
            assert ra.undefined_classes == rb.undefined_classes, label
    assert a.params["classes"] == b.params["classes"]
    assert a.params["rows"] == b.params["rows"]


def close(a, b, rel: float = 1e-12) -> None:
    assert list(a.results) == list(b.results)
    for label, ra in a.results.items():
        rb = b.results[label]
        assert ra.value == pytest.approx(rb.value, rel=rel, abs=1e-15, nan_ok=True), label
        if ra.per_class is not None:
            assert np.allclose(ra.per_class, rb.per_class, rtol=rel, atol=1e-15, equal_nan=True), label


@st.composite
def data(draw, weighted: bool = False, labels: str = "ints"):
    """Targets, an (n, K) score matrix with ties (scores on a coarse grid; some rows probabilities),
    the classes, split points and weights."""
    k = draw(st.integers(2, 5))
    n = draw(st.integers(0, 40))
    codes = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.int64)
    grid = np.array(draw(st.lists(st.integers(0, 4), min_size=n * k, max_size=n * k)), dtype=np.float64)
    s = grid.reshape(n, k) / 4.0
    if draw(st.booleans()) and n:  # rows of probabilities (log loss and Brier defined)
        s = (s + 0.25) / (s + 0.25).sum(axis=1, keepdims=True)
    classes = list(range(k)) if labels == "ints" else [f"c{i}" for i in range(k)][::-1]
    y = (
        np.array([classes[c] for c in codes])
        if n
        else np.zeros(0, dtype=np.int64 if labels == "ints" else "U2")
    )
    w = None
    if weighted:
        w = np.array(
            draw(st.lists(st.sampled_from([0.0, 0.1, 0.3, 1.0, 2.5, 1e-3]), min_size=n, max_size=n)),
            dtype=np.float64,
        )
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=4))))
    return y, s, classes, w, cuts


def batches(y, s, w, cuts):
    edges = [0, *cuts, len(y)]
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        yield y[a:b], s[a:b], None if w is None else w[a:b]


def metric_of(y, s, classes, w, cuts) -> Metric:
    m = Metric(MULTICLASS, classes=classes)
    for yb, sb, wb in batches(y, s, w, cuts):
        m.update(yb, sb, sample_weight=wb)
    return m


# -- Metric ------------------------------------------------------------------------------------------
@settings(max_examples=25)
@given(data(labels="ints") | data(labels="text"))
def test_metric_batches_give_evaluate_bits(d):
    y, s, classes, w, cuts = d
    expected = quiet(perfeval.evaluate, y, s, classes=classes, measures=MULTICLASS)
    got = quiet(metric_of(y, s, classes, w, cuts).compute)
    same_bits(got, expected)
    assert got.params["backend"] == "metric" and got.params["task"] == "multiclass"


@settings(max_examples=25)
@given(data(weighted=True))
def test_metric_batches_give_evaluate_bits_weighted(d):
    y, s, classes, w, cuts = d
    expected = quiet(perfeval.evaluate, y, s, classes=classes, measures=MULTICLASS, sample_weight=w)
    got = quiet(metric_of(y, s, classes, w, cuts).compute)
    same_bits(got, expected)


@settings(max_examples=25)
@given(data(weighted=True))
def test_metric_batches_weighted_within_rounding(d):
    y, s, classes, w, cuts = d
    expected = quiet(perfeval.evaluate, y, s, classes=classes, measures=MULTICLASS, sample_weight=w)
    close(quiet(metric_of(y, s, classes, w, cuts).compute), expected)


@pytest.mark.parametrize("three_way_ties", [False, True])
def test_metric_merge_unweighted(three_way_ties):
    """Merged Metrics of unweighted rows: bit for bit while a row's weight is shared at the argmax
    by at most two classes (halves add exactly in any order); with a tie of three classes or more
    (thirds), the confusion's entries are summed in another order than in memory: within rounding.
    """
    rng = np.random.default_rng(5)
    for _ in range(30):
        k = int(rng.integers(3, 6))
        n = int(rng.integers(1, 200))
        y = rng.integers(0, k, n)
        s = rng.integers(0, 5, (n, k)) / 4.0  # ties within a column
        if not three_way_ties:  # no tie across columns: the argmax one class
            s = s + np.arange(k) * 1e-3
        cut = int(rng.integers(0, n + 1))
        a, b = Metric(MULTICLASS, classes=range(k)), Metric(MULTICLASS, classes=range(k))
        a.update(y[:cut], s[:cut])
        b.update(y[cut:], s[cut:])
        expected = quiet(perfeval.evaluate, y, s, classes=list(range(k)), measures=MULTICLASS)
        (close if three_way_ties else same_bits)(quiet(a.merge(b).compute), expected)
        assert b.rows == n - cut  # the other is unchanged


@settings(max_examples=25)
@given(data(weighted=True))
def test_metric_merge_weighted_within_rounding(d):
    y, s, classes, w, cuts = d
    cut = cuts[0] if cuts else len(y) // 2
    a, b = Metric(MULTICLASS, classes=classes), Metric(MULTICLASS, classes=classes)
    a.update(y[:cut], s[:cut], sample_weight=w[:cut])
    b.update(y[cut:], s[cut:], sample_weight=w[cut:])
    expected = quiet(perfeval.evaluate, y, s, classes=classes, measures=MULTICLASS, sample_weight=w)
    close(quiet(Metric.merge_all([a, b]).compute), expected)


def test_metric_state_dict_and_pickle():
    rng = np.random.default_rng(1)
    y = rng.choice(["cat", "dog", "bird"], 300)
    s = rng.dirichlet(np.ones(3), 300)
    m = Metric(classes=["cat", "dog", "bird"])
    m.update(y[:100], s[:100])
    state = m.state_dict()
    fresh = Metric(classes=["cat", "dog", "bird"])
    fresh.load_state_dict(state)
    for x in (fresh, pickle.loads(pickle.dumps(m))):
        x.update(y[100:], s[100:])
        same_bits(quiet(x.compute), quiet(perfeval.evaluate, y, s, classes=["cat", "dog", "bird"]))
    with pytest.raises(InvalidParameterError, match="not of"):
        Metric(classes=["cat", "dog", "fish"]).load_state_dict(state)
    with pytest.raises(InvalidParameterError, match="not of"):
        Metric().load_state_dict(state)


def test_metric_failed_update_changes_nothing():
    m = Metric(classes=["cat", "dog", "bird"])
    m.update(["cat", "dog"], [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
    before = quiet(m.compute)
    state = m.state_dict()
    with pytest.raises(InvalidDataError, match="'fish' at row 1, which is not one of the classes"):
        m.update(["cat", "fish"], [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
    with pytest.raises(InvalidDataError, match="an \\(n, K\\) matrix"):
        m.update(["cat"], [0.6, 0.3, 0.1])
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        m.update(["cat"], [[0.6, 0.3, 0.1]], sample_weight=[1.0])
    with pytest.raises(InvalidParameterError, match="groups="):
        m.update(["cat"], [[0.6, 0.3, 0.1]], groups=[1])
    assert m.rows == 2
    same_bits(quiet(m.compute), before)
    assert np.array_equal(m.state_dict()["class_state"]["weights"], state["class_state"]["weights"])


def test_metric_classes_refusals():
    with pytest.raises(InvalidParameterError, match="clustered=True does not apply to K classes"):
        Metric(classes=[0, 1, 2], clustered=True)
    with pytest.raises(InvalidParameterError, match="pos_label= does not apply to K classes"):
        Metric(classes=[0, 1, 2], pos_label=1)
    with pytest.raises(InvalidParameterError, match="the multiclass measures have perfeval's rules only"):
        Metric(classes=[0, 1, 2], dialect="sklearn")
    with pytest.raises(InvalidParameterError, match="names 1 twice"):
        Metric(classes=[0, 1, 1])
    with pytest.raises(InvalidParameterError, match="a ranking measure"):
        Metric(["ndcg"], classes=[0, 1, 2])
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        Metric(classes=[0, 1, 2]).merge(Metric(classes=[0, 2, 1]))


def test_metric_reads_binary_names_as_evaluate_does():
    m = Metric(["roc", "acc"], classes=[0, 1, 2])
    assert m.measures == ["ROC_OVR:average=macro", "ACC_MC"]
    assert quiet(m.compute)["ACC_MC"] != quiet(m.compute)["ACC_MC"]  # no row: NaN, as evaluate()


def test_metric_broken_class_state_is_one_line_and_changes_nothing():
    m = Metric(classes=["cat", "dog", "bird"])
    m.update(["cat", "dog", "bird"], [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    good = m.state_dict()
    held = quiet(m.compute)
    junk = [
        {**good, "class_state": None},
        {**good, "class_state": "junk"},
        {**good, "class_state": {**good["class_state"], "offsets": np.zeros(3)}},
        {**good, "class_state": {k: v for k, v in good["class_state"].items() if k != "topk"}},
        {**good, "classes": ["cat", "dog"]},
    ]
    for state in junk:
        with pytest.raises(perfeval.PerfError) as e:
            m.load_state_dict(state)
        assert "\n" not in str(e.value)
        same_bits(quiet(m.compute), held)


# -- Dask --------------------------------------------------------------------------------------------
def frame(y, s, names, w=None):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"y": y})
    for i, c in enumerate(names):
        df[c] = s[:, i]
    if w is not None:
        df["w"] = w
    return df


@settings(max_examples=15, deadline=None)
@given(data(labels="text"), st.integers(1, 5))
def test_dask_gives_memory_numbers(d, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    y, s, classes, _w, cuts = d
    if not len(y):
        return
    names = list(classes)
    if len(names) < 3:  # two columns are K classes only when named so (classes=): both doors the same
        return
    df = frame(y, s, names)
    ddf = dd.from_pandas(df, npartitions=npartitions)
    expected = quiet(perfeval.evaluate, df, target="y", score=names, measures=MULTICLASS)
    got = quiet(perfeval.evaluate, ddf, target="y", score=names, measures=MULTICLASS)
    assert got.params["backend"] == "dask" and got.params["classes_from"] == "the score columns' names"
    same_bits(got, expected)  # rows tied at the argmax too: whole sums by tie size


def test_dask_weighted_is_memory_bit_for_bit_and_classes_read_as_numbers():
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(3)
    n = 2000
    y = rng.integers(0, 4, n)
    s = rng.dirichlet(np.ones(4), n)
    w = rng.random(n) * (rng.random(n) > 0.1)  # some rows of weight 0
    names = ["0", "1", "2", "3"]
    df = frame(y, s, names, w)
    ddf = dd.from_pandas(df, npartitions=9)
    expected = quiet(perfeval.evaluate, df, target="y", score=names, weight="w", measures=MULTICLASS)
    got = quiet(perfeval.evaluate, ddf, target="y", score=names, weight="w", measures=MULTICLASS)
    assert got.params["classes"] == [0, 1, 2, 3] == expected.params["classes"]
    assert got.params["rows"] == n and got.params["weighted"]
    same_bits(got, expected)  # the partitions folded in order: each cell's weights added in row order
    unweighted = quiet(perfeval.evaluate, ddf, target="y", score=names, classes=[0, 1, 2, 3])
    same_bits(unweighted, quiet(perfeval.evaluate, y, s, classes=[0, 1, 2, 3]))


def test_dask_classes_errors_are_one_line():
    dd = pytest.importorskip("dask.dataframe")
    s = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    df = frame(np.array(["cat", "fish", "bird"]), s, ["cat", "dog", "bird"])
    df["g"] = [1, 1, 2]
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(
        InvalidDataError, match="the target column 'y' holds 'fish', which is not one of the classes"
    ):
        perfeval.evaluate(ddf, target="y", score=["cat", "dog", "bird"])
    with pytest.raises(InvalidDataError, match="the target column 'y' holds 'fish'"):  # per group too
        perfeval.evaluate(ddf, target="y", score=["cat", "dog", "bird"], group="g")
    with pytest.raises(InvalidParameterError, match="column 'cow' is not in the Dask DataFrame"):
        perfeval.evaluate(ddf, target="y", score=["cat", "dog", "cow"])


# -- ci and compare ----------------------------------------------------------------------------------
def three_classes(n: int, seed: int, p: float = 0.7, k: int = 3):
    """Targets and probabilities whose argmax is the true class with probability ``p`` (no ties):
    the population's ACC_MC is ``p``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    right = rng.random(n) < p
    other = (y + rng.integers(1, k, n)) % k
    top = np.where(right, y, other)
    s = rng.random((n, k))
    s[np.arange(n), top] += 1.0
    return y, s / s.sum(axis=1, keepdims=True)


def test_replica_summary_is_from_checked():
    from perfeval.stats.classes import ClassReplicas
    from perfeval.summaries.classes import ClassSummary

    rng = np.random.default_rng(2)
    for k in (2, 3, 5):
        n = 300
        y = rng.integers(0, k, n)
        s = rng.integers(0, 4, (n, k)) / 3.0  # ties within columns and at the argmax
        s[:5] = -0.0
        reps = ClassReplicas(y, s, tuple(range(k)))
        for _ in range(5):
            v = rng.poisson(1.0, n).astype(np.float64)
            keep = v > 0
            assert reps.summary(v) == ClassSummary.from_checked(y[keep], s[keep], v[keep], tuple(range(k)))


def test_ci_of_every_multiclass_measure():
    y, s = three_classes(300, 1)
    r = quiet(perfeval.stats.ci, y, s, measures=MULTICLASS, n_boot=120, seed=3)
    memory = quiet(perfeval.evaluate, y, s, classes=[0, 1, 2], measures=MULTICLASS)
    assert list(r) == list(memory.results)
    for label, iv in r.items():
        assert iv.estimate == memory.results[label].value, label  # the in-memory number, bit for bit
        assert iv.low <= iv.estimate <= iv.high and iv.low < iv.high, (label, iv)
        assert iv.method == "bca" and iv.n_boot == 120 and iv.resampled == "cases"
    again = quiet(perfeval.stats.ci, y, s, measures=MULTICLASS, n_boot=120, seed=3)
    assert again == r  # the same seed, the same intervals
    other = quiet(perfeval.stats.ci, y, s, measures=["acc"], n_boot=200, seed=4)
    assert other["ACC_MC"] != r["ACC_MC"]


def test_ci_weighted_and_named_classes():
    y, s = three_classes(200, 5)
    names = np.array(["cat", "dog", "bird"])[y]
    w = np.random.default_rng(5).random(200)
    r = quiet(
        perfeval.stats.ci,
        names,
        s,
        classes=["cat", "dog", "bird"],
        measures=["roc", "f1"],
        sample_weight=w,
        n_boot=100,
        method="percentile",
    )
    memory = quiet(
        perfeval.evaluate, names, s, classes=["cat", "dog", "bird"], measures=["roc", "f1"], sample_weight=w
    )
    for label, iv in r.items():
        assert iv.estimate == memory.results[label].value
        assert iv.low <= iv.estimate <= iv.high
    two = quiet(perfeval.stats.ci, y % 2, s[:, :2], classes=[0, 1], measures=["acc"], n_boot=50)
    assert list(two) == ["ACC_MC"]  # two columns named as classes: K = 2, as evaluate() reads them


def test_compare_of_a_model_with_itself_and_with_a_worse_one():
    y, good = three_classes(300, 7, p=0.8)
    _, bad = three_classes(300, 8, p=0.5)
    same = quiet(perfeval.stats.compare, y, good, good, measures=MULTICLASS, n_boot=40)
    for label, c in same.items():
        if math.isnan(c.estimate_a):
            continue
        assert c.difference == 0.0 and c.low == 0.0 and c.high == 0.0 and c.p_value == 1.0, (label, c)
    c = quiet(perfeval.stats.compare, y, good, bad, measures=["acc", "roc"], n_boot=300, seed=1)
    memory_a = quiet(perfeval.evaluate, y, good, classes=[0, 1, 2], measures=["acc", "roc"])
    memory_b = quiet(perfeval.evaluate, y, bad, classes=[0, 1, 2], measures=["acc", "roc"])
    for label, cmp in c.items():
        assert cmp.estimate_a == memory_a[label] and cmp.estimate_b == memory_b[label]
        assert cmp.method == "bca" and cmp.low <= cmp.difference <= cmp.high
    assert c["ACC_MC"].low > 0 and c["ACC_MC"].p_value < 0.05
    again = quiet(perfeval.stats.compare, y, good, bad, measures=["acc", "roc"], n_boot=300, seed=1)
    assert again == c


def test_ci_and_compare_refusals_are_one_line():
    y, s = three_classes(50, 9)
    with pytest.raises(InvalidParameterError, match="DeLong's interval is for the ROC area of two classes"):
        perfeval.stats.ci(y, s, method="delong")
    with pytest.raises(InvalidParameterError, match="`groups=` with K classes"):
        perfeval.stats.ci(y, s, groups=np.arange(50) % 5)
    with pytest.raises(InvalidParameterError, match="pos_label= does not apply to K classes"):
        perfeval.stats.compare(y, s, s, pos_label=1)
    with pytest.raises(InvalidParameterError, match="DeLong's test is for the ROC area of two classes"):
        perfeval.stats.compare(y, s, s, method="delong")
    with pytest.raises(InvalidParameterError, match="`classes` names 3 labels for the 4 score columns"):
        perfeval.stats.compare(y, np.column_stack([s, s[:, :1]]), s)
    with pytest.raises(InvalidDataError, match="which is not one of the classes"):
        perfeval.stats.ci(y, s, classes=["a", "b", "c"])


def test_ci_coverage_on_a_synthetic_case():
    """The population ACC_MC is 0.7: a 95% percentile interval holds it in most of 40 samples."""
    held = 0
    for i in range(40):
        y, s = three_classes(150, 100 + i, p=0.7)
        iv = quiet(perfeval.stats.ci, y, s, measures="acc", method="percentile", n_boot=200, seed=i)["ACC_MC"]
        held += iv.low <= 0.7 <= iv.high
    assert held >= 32, held
