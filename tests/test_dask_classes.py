"""K classes on a Dask DataFrame give the numbers of ``evaluate(y, S, classes=)`` in memory, bit for
bit: without weights the partitions' summaries are merged (every sum a count), with weights the
partitions are folded one after the other in partition order (each cell's weights added in row
order, as over all the rows at once).  Every multiclass measure of the registry (each choice of its
parameters), on random frames cut into many partitions of uneven sizes (empty ones too), with rows
tied at the argmax, rows of weight 0 and weights no float64 sum is exact for (0.1, 1/3).
"""

from __future__ import annotations

import math
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import perfeval
from _registry import completed, fractional_ok_classes
from perfeval.measures import list_measures

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")


def _every_form() -> list[str]:
    """Every multiclass measure of the registry, once for each choice of its parameters (k of
    TOPK_ACC from 1 to 3): a measure registered tomorrow is covered the day it is."""
    out = []
    for m in list_measures():
        if m.kind != "multiclass":
            continue
        out += [completed(m, p, f"{m.name}:{p.name}={c}") for p in m.params for c in p.choices] or [m.name]
        out += [f"{m.name}:{p.name}={k}" for p in m.params if p.integer for k in (1, 3)]
    return out


MEASURES = _every_form()
#: of MEASURES, those that take fractional weights (ECE_TOP's debiased form counts cases)
FRACTIONAL = fractional_ok_classes(MEASURES)


def measures_for(w) -> list[str]:
    return MEASURES if w is None or bool(np.all(w == np.round(w))) else FRACTIONAL


WEIGHTS = [0.0, 0.1, 1 / 3, 0.7, 2.5, 1e-3, 1.0, 0.2, 3.0]  # 0: dropped rows; 0.1, 1/3: inexact sums


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def assert_same(got, want) -> None:
    """Two reports of K classes: the same measures, each value and per-class value equal (==, NaN
    where the other is NaN), the same classes left out."""
    assert list(got.results) == list(want.results)
    for label, rw in want.results.items():
        rg = got.results[label]
        assert rg.value == rw.value or (math.isnan(rg.value) and math.isnan(rw.value)), (
            label,
            rg.value,
            rw.value,
        )
        if rw.per_class is None:
            assert rg.per_class is None, label
        else:
            a, b = np.asarray(rg.per_class), np.asarray(rw.per_class)
            assert a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b)))), (label, a, b)
        assert rg.undefined_classes == rw.undefined_classes, label
    assert got.params["classes"] == want.params["classes"]
    assert got.params["rows"] == want.params["rows"]
    assert got.params["weighted"] == want.params["weighted"]


def frame_of(y, s, names, w) -> pd.DataFrame:
    df = pd.DataFrame({"y": y})
    for j, c in enumerate(names):
        df[c] = s[:, j]
    if w is not None:
        df["w"] = w
    return df


def dask_frame(df: pd.DataFrame, edges: list[int]):
    """``df`` as a Dask DataFrame whose partitions are the rows between ``edges`` (uneven, some empty)."""
    pieces = [dask.delayed(df.iloc[a:b]) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return dd.from_delayed(pieces, meta=df.iloc[:0], verify_meta=False)


@st.composite
def cases(draw):
    """Targets, an (n, K) score matrix on a coarse grid (ties at the argmax, some among three classes
    or more; some rows probabilities), the classes, weights (or none) and partition edges."""
    k = draw(st.integers(2, 5))
    n = draw(st.integers(0, 90))
    codes = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.int64)
    grid = np.array(draw(st.lists(st.integers(0, 3), min_size=n * k, max_size=n * k)), dtype=np.float64)
    s = grid.reshape(n, k) / 3.0
    if draw(st.booleans()) and n:  # rows of probabilities: log loss and Brier score defined
        s = (s + 0.1) / (s + 0.1).sum(axis=1, keepdims=True)
    text = draw(st.booleans())
    classes = [f"c{i}" for i in range(k)][::-1] if text else list(range(k))
    y = np.array([classes[c] for c in codes], dtype=object if text else np.int64)
    w = None
    if draw(st.integers(0, 3)):  # mostly weighted: the fold
        w = np.array(draw(st.lists(st.sampled_from(WEIGHTS), min_size=n, max_size=n)), dtype=np.float64)
    cuts = draw(st.lists(st.integers(0, n), max_size=15))
    return y, s, classes, w, [0, *sorted(cuts), n]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_dask_is_memory_bit_for_bit(d):
    y, s, classes, w, edges = d
    names = [f"p_{c}" for c in classes]
    df = frame_of(y, s, names, w)
    weight = None if w is None else "w"
    with dask.config.set(scheduler="sync"):
        got = quiet(
            perfeval.evaluate,
            dask_frame(df, edges),
            target="y",
            score=names,
            weight=weight,
            classes=classes,
            measures=measures_for(w),
        )
    want = quiet(perfeval.evaluate, y, s, classes=classes, sample_weight=w, measures=measures_for(w))
    assert got.params["backend"] == "dask" and want.params["backend"] == "memory"
    assert_same(got, want)


def test_weighted_many_partitions_is_memory_bit_for_bit():
    """Many rows at each score, spread over many uneven partitions, weights of 0.1 and 1/3: a cell's
    weights added partition by partition would differ from memory in the last bits."""
    rng = np.random.default_rng(32)
    n, k = 3000, 4
    y = rng.integers(0, k, n)
    s = rng.integers(0, 4, (n, k)) / 3.0  # few distinct scores: many rows a cell; ties at the argmax
    w = rng.choice([0.1, 1 / 3, 0.7, 0.0], n)
    edges = [0, *sorted(rng.integers(0, n, 22).tolist()), n]
    names = ["a", "b", "c", "d"]
    df = frame_of(y, s, names, w)
    with dask.config.set(scheduler="sync"):
        got = quiet(
            perfeval.evaluate,
            dask_frame(df, edges),
            target="y",
            score=names,
            weight="w",
            classes=[0, 1, 2, 3],
            measures=FRACTIONAL,
        )
    want = quiet(perfeval.evaluate, y, s, classes=[0, 1, 2, 3], sample_weight=w, measures=FRACTIONAL)
    assert got.params["rows"] == n
    assert_same(got, want)
    # the summary too: the one of all the rows at once
    cs = perfeval.evaluate(y, s, classes=[0, 1, 2, 3], sample_weight=w, measures=["acc_mc"]).summary
    assert got.summary == cs and np.array_equal(got.summary.weights, cs.weights)


# -- evaluate(ddf, ...) decides the task as evaluate(pandas_df, ...) -----------------------------------
def _table(targets) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 30
    s = np.round(rng.random((n, 3)), 1)
    return pd.DataFrame(
        {
            "y": [targets[i] for i in rng.integers(0, len(targets), n)],
            "a": s[:, 0],
            "b": s[:, 1],
            "c": s[:, 2],
        }
        | {
            "0": s[:, 0],
            "1": s[:, 1],
            "2": s[:, 2],
            "w": rng.choice([0.1, 1 / 3, 1.0], n),
            "wd": rng.choice([0.5, 2.0, 0.25], n),
        }
    )


DOORS = [
    # (targets, evaluate's arguments beside the frame)
    (["a", "b", "c"], {"score": ["a", "b", "c"]}),  # the score columns' names are the classes
    (["a", "b", "c"], {"score": ("a", "b", "c"), "weight": "w"}),
    ([0, 1, 2], {"score": ["0", "1", "2"]}),  # names read as the targets' numbers
    ([0.0, 1.0, 2.0], {"score": ["0", "1", "2"]}),
    (["a", "b"], {"score": ["a", "b"], "classes": ["a", "b"]}),  # two classes, named
    (["a", "b"], {"score": ["a", "b"]}),  # two columns: K classes by their names too
    ([0, 1], {"score": "a"}),  # one score column: binary
    # binary with weights: dyadic ones (others are within rounding on Dask: docs/dask.md)
    ([0, 1], {"score": "a", "measures": ["roc", "acc"], "weight": "wd"}),
    ([0, 1], {"score": ["a", "b", "c"]}),  # 0/1 targets against named columns: no class
    (["a", "b", "c"], {"score": ["a", "b"]}),  # a target with no column
    ([0, 1], {"score": "a", "measures": ["roc_ovr"]}),  # a measure of K classes of one score column
    ([0, 1], {"score": "a", "measures": ["lrap"]}),  # of K labels
    (["a", "b", "c"], {"score": ["a"]}),
]


@pytest.mark.parametrize(("targets", "kw"), DOORS)
def test_dask_frame_decides_as_pandas(targets, kw):
    """The same task (binary, K classes), the same classes and how they were found, the same numbers;
    or the same error (the same class; a target that is none of the classes: the same hint)."""
    df = _table(targets)
    with dask.config.set(scheduler="sync"):
        outcomes = []
        for frame in (df, dd.from_pandas(df, npartitions=3)):
            try:
                outcomes.append(quiet(perfeval.evaluate, frame, target="y", **kw))
            except perfeval.PerfError as e:
                outcomes.append(e)
    want, got = outcomes
    if isinstance(want, Exception):
        assert type(got) is type(want), (got, want)
        if "which is not one of the classes" in str(want):  # memory names the row, Dask the column
            assert str(got).endswith(str(want).partition("which is not one of the classes")[2]), (got, want)
        else:
            assert str(got) == str(want)
        return
    assert not isinstance(got, Exception), got
    assert got.params.get("task") == want.params.get("task")
    assert got.params.get("classes") == want.params.get("classes")
    assert got.params.get("classes_from") == want.params.get("classes_from")
    assert list(got.results) == list(want.results)
    for label, r in want.results.items():
        assert got.results[label].value == r.value or (
            math.isnan(r.value) and math.isnan(got.results[label].value)
        )
