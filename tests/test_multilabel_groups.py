"""K labels per group through every door: the stream (spilled by group, a group over the budget
folded into its summary, or clustered), a Dask DataFrame (shuffled by group), ``Metric(labels=,
...).update(..., groups=)`` (merged, pickled) and ``perfeval eval --labels ... --stream --group`` give
what ``evaluate(Y, S, groups=)`` gives in memory, bit for bit, weights or not; and K classes per
group in a Metric give ``evaluate(y, S, classes=, groups=)``'s.  The per-group ROC_ML (macro,
weighted) without a loop over the groups is the loop's bits."""

from __future__ import annotations

import json
import math
import pickle
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import perfeval
from perfeval import Metric
from perfeval.backends.stream import evaluate_stream_grouped_classes
from perfeval.engine import labels as engine_labels
from perfeval.engine.labels import grouped_fast
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import list_measures, parse_measure
from perfeval.measures.multilabel import roc_labels
from perfeval.summaries.labels import LabelSummary
from perfeval.summaries.ranking import group_codes

MULTILABEL = [m.name for m in list_measures() if m.kind == "multilabel"]
MULTICLASS = [m.name for m in list_measures() if m.kind == "multiclass"]


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def bits(x) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


def same_groups(got, want, params=("rows", "groups", "weighted", "classes", "task")) -> None:
    """Two per-group reports: the same groups, sizes, per-group values, means and undefined groups,
    bit for bit."""
    assert list(got.results) == list(want.results)
    assert got.groups.tolist() == want.groups.tolist()
    text = {"U": "text", "O": "text"}  # a pandas column's text ids are Python strings
    kinds = [text.get(np.asarray(r.groups).dtype.kind, np.asarray(r.groups).dtype.kind) for r in (got, want)]
    assert kinds[0] == kinds[1] or not len(want.groups), kinds  # no group: no key to type
    assert bits(got.group_sizes) == bits(want.group_sizes)
    for label, rw in want.results.items():
        rg = got.results[label]
        assert bits(rg.per_group) == bits(rw.per_group), label
        for attr in ("value", "mean", "weighted_mean"):
            a, b = getattr(rg, attr), getattr(rw, attr)
            assert bits(a) == bits(b) or (math.isnan(a) and math.isnan(b)), (label, attr, a, b)
        assert rg.undefined == rw.undefined, label
    for key in params:
        assert got.params[key] == want.params[key], key


@st.composite
def grouped(draw, weighted: bool):
    """A 0/1 label matrix (some groups with a label always on or always off: its ROC undefined
    there), an (n, K) score matrix with ties (a coarse grid, -0.0 and 0.0 both), group ids (64-bit
    integers past 2**53, or text), weights with zeros, and cut points."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, 80))
    q = draw(st.integers(1, 8))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g_code = r.integers(0, q, n)
    y = r.integers(0, 2, (n, k))
    one_sided = r.random(q) < 0.3  # a group where label 0 is always on
    y[one_sided[g_code], 0] = 1
    s = r.integers(0, draw(st.sampled_from([2, 3, 5])), (n, k)) / 4.0
    s[r.random((n, k)) < 0.05] = -0.0
    labels = [f"l{i}" for i in range(k)][::-1]
    if draw(st.booleans()):
        g = (g_code.astype(np.int64) * 1_000_003 + 2**62).astype(np.int64)
    else:
        g = np.array([f"user-{v}" for v in g_code])
    w = r.choice([0.0, 0.1, 0.3, 1.0, 2.5, 1e-3], n) if weighted else None
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=4))))
    return y, s, g, w, labels, cuts


def chunks_of(y, s, g, w, cuts):
    edges = [0, *cuts, len(y)]
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        yield (y[a:b], s[a:b], g[a:b]) if w is None else (y[a:b], s[a:b], g[a:b], w[a:b])


def memory(y, s, g, w, labels):
    return quiet(perfeval.evaluate, y, s, groups=g, sample_weight=w, classes=labels, measures=MULTILABEL)


def stream(y, s, g, w, labels, cuts, **kw):
    return quiet(
        evaluate_stream_grouped_classes,
        chunks_of(y, s, g, w, cuts),
        labels,
        measures=MULTILABEL,
        task="multilabel",
        **kw,
    )


# -- the fast path ----------------------------------------------------------------------------------------
ROC_ML = [parse_measure("ROC_ML:average=macro"), parse_measure("ROC_ML:average=weighted")]


@settings(max_examples=120, deadline=None)
@given(grouped(weighted=False))
def test_grouped_roc_ml_is_the_loops_bit_for_bit(d):
    y, s, g, _w, labels, _cuts = d
    y = y.astype(bool)
    keys, codes = group_codes(g)
    fast = grouped_fast(ROC_ML, y, s, codes, None, len(keys))
    for sp in ROC_ML:
        want = np.array(
            [
                roc_labels(
                    LabelSummary.from_checked(y[codes == i], s[codes == i], None, tuple(labels)),
                    sp.kwargs["average"],
                ).value
                for i in range(len(keys))
            ]
        )
        assert bits(fast[sp.label]) == bits(want), sp.label


def test_grouped_fast_path_covers_only_unweighted_roc_ml_macro_and_weighted():
    y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=bool)
    s = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.3]])
    codes = np.array([0, 0, 1, 1])
    specs = ROC_ML + [parse_measure("ROC_ML:average=micro"), parse_measure("AP_ML")]
    assert sorted(grouped_fast(specs, y, s, codes, None, 2)) == [sp.label for sp in ROC_ML]
    assert grouped_fast(specs, y, s, codes, np.ones(4), 2) == {}


def test_evaluate_per_group_takes_the_fast_path(monkeypatch):
    """evaluate(Y, S, groups=) reads ROC_ML from the fast path (the loop only for the others), and
    the values are each group's alone."""
    r = np.random.default_rng(5)
    y = r.integers(0, 2, (300, 3))
    s = r.integers(0, 4, (300, 3)) / 4
    g = r.integers(0, 7, 300)
    calls = []
    real = engine_labels.grouped_fast

    def spy(*a, **k):
        out = real(*a, **k)
        calls.append(sorted(out))
        return out

    monkeypatch.setattr(engine_labels, "grouped_fast", spy)
    rep = quiet(perfeval.evaluate, y, s, groups=g, measures=["roc", "roc_ml:average=weighted", "lrap"])
    assert calls == [["ROC_ML:average=macro", "ROC_ML:average=weighted"]]
    for i, key in enumerate(rep.groups):
        alone = quiet(
            perfeval.evaluate, y[g == key], s[g == key], measures=["roc", "roc_ml:average=weighted"]
        )
        for label in ("ROC_ML:average=macro", "ROC_ML:average=weighted"):
            assert bits(rep.results[label].per_group[i]) == bits(alone.results[label].value)


# -- the stream -------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True), st.sampled_from([None, 1, 5]), st.integers(1, 4))
def test_stream_per_group_is_memory_bit_for_bit(d, budget, partitions):
    y, s, g, w, labels, cuts = d
    got = stream(y, s, g, w, labels, cuts, budget_rows=budget, partitions=partitions)
    same_groups(got, memory(y, s, g, w, labels))
    assert got.params["backend"] == "stream" and got.params["task"] == "multilabel"


@settings(max_examples=25, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True))
def test_stream_clustered_is_memory_bit_for_bit(d):
    y, s, g, w, labels, cuts = d
    order = np.argsort(g, kind="stable")  # clustered by group, each group's rows in input order
    y, s, g = y[order], s[order], g[order]
    w = None if w is None else w[order]
    same_groups(stream(y, s, g, w, labels, cuts, clustered=True), memory(y, s, g, w, labels))


def test_a_group_over_the_budget_is_folded_into_its_summary():
    rng = np.random.default_rng(4)
    n = 400
    y = rng.integers(0, 2, (n, 3))
    s = rng.integers(0, 7, (n, 3)) / 6
    g = rng.integers(0, 3, n)
    w = rng.choice([0.0, 0.1, 0.7, 3.0], n)
    labels = ["a", "b", "c"]
    for ww in (None, w):
        got = stream(y, s, g, ww, labels, [50, 199, 201], budget_rows=10, partitions=2)
        same_groups(got, memory(y, s, g, ww, labels))


# -- Dask -------------------------------------------------------------------------------------------------
def frame(y, s, g, w, labels):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({f"y_{c}": y[:, i] for i, c in enumerate(labels)})
    for i, c in enumerate(labels):
        df[f"p_{c}"] = s[:, i]
    df["user"] = g
    if w is not None:
        df["w"] = w
    return df


@settings(max_examples=12, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True), st.integers(1, 5))
def test_dask_per_group_is_memory_and_stream_bit_for_bit(d, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    y, s, g, w, labels, cuts = d
    df = frame(y, s, g, w, labels)
    ddf = dd.from_pandas(df, npartitions=npartitions)
    got = quiet(
        perfeval.evaluate,
        ddf,
        target=[f"y_{c}" for c in labels],
        score=[f"p_{c}" for c in labels],
        group="user",
        weight=None if w is None else "w",
        classes=labels,
        measures=MULTILABEL,
    )
    assert got.params["backend"] == "dask" and got.params["task"] == "multilabel"
    same_groups(got, memory(y, s, g, w, labels))
    same_groups(got, stream(y, s, g, w, labels, cuts))


def test_dask_per_group_of_no_row_is_memorys():
    dd = pytest.importorskip("dask.dataframe")
    y, s, g = np.zeros((0, 2), int), np.zeros((0, 2)), np.zeros(0, np.int64)
    df = frame(y, s, g, None, ["a", "b"])
    got = quiet(
        perfeval.evaluate,
        dd.from_pandas(df, npartitions=1),
        target=["y_a", "y_b"],
        score=["p_a", "p_b"],
        group="user",
        classes=["a", "b"],
        measures=MULTILABEL,
    )
    same_groups(got, memory(y, s, g, None, ["a", "b"]))


# -- Metric -----------------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True), st.integers(0, 4))
def test_metric_labels_per_group_is_memory_bit_for_bit(d, split):
    """Batches at random cuts, the last ones in another Metric merged in, the state pickled."""
    y, s, g, w, labels, cuts = d
    edges = [0, *cuts, len(y)]
    split = min(split, len(edges) - 1)
    a, b = Metric(MULTILABEL, labels=labels), Metric(MULTILABEL, labels=labels)
    for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
        (a if i < split else b).update(
            y[lo:hi], s[lo:hi], groups=g[lo:hi], sample_weight=None if w is None else w[lo:hi]
        )
    m = pickle.loads(pickle.dumps(a.merge(b)))
    got = quiet(m.compute)
    assert got.params["backend"] == "metric"
    same_groups(got, memory(y, s, g, w, labels))
    again = Metric(MULTILABEL, labels=labels)
    again.load_state_dict(m.state_dict())
    same_groups(quiet(again.compute), got)


@settings(max_examples=30, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True))
def test_metric_classes_per_group_is_memory_bit_for_bit(d):
    y, s, g, w, labels, cuts = d
    codes = y.sum(axis=1) % y.shape[1]  # a class a row, from the draw
    classes = labels
    yc = np.array(classes)[codes]
    m = Metric(MULTICLASS, classes=classes)
    edges = [0, *cuts, len(y)]
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m.update(yc[lo:hi], s[lo:hi], groups=g[lo:hi], sample_weight=None if w is None else w[lo:hi])
    want = quiet(perfeval.evaluate, yc, s, classes=classes, groups=g, sample_weight=w, measures=MULTICLASS)
    same_groups(quiet(m.compute), want, params=("rows", "groups", "weighted", "classes", "task"))


def test_metric_groups_given_to_every_update_or_to_none():
    m = Metric(labels=["a", "b"])
    m.update([[1, 0]], [[0.3, 0.2]], groups=[1])
    before = m.state_dict()
    with pytest.raises(InvalidParameterError, match="`groups=` was given to the earlier updates"):
        m.update([[1, 0]], [[0.3, 0.2]])
    with pytest.raises(InvalidParameterError, match="`groups` holds"):
        m.update([[1, 0]], [[0.3, 0.2]], groups=["x"])
    assert pickle.dumps(m.state_dict()) == pickle.dumps(before)  # a failed call changes nothing
    c = Metric(classes=["a", "b", "c"])
    c.update(["a"], [[0.3, 0.2, 0.5]])
    with pytest.raises(InvalidParameterError, match="`groups=` was given to this update but not"):
        c.update(["a"], [[0.3, 0.2, 0.5]], groups=[1])
    grouped_one = Metric(classes=["a", "b", "c"])
    grouped_one.update(["a"], [[0.3, 0.2, 0.5]], groups=[1])
    with pytest.raises(InvalidParameterError, match="cannot merge: `groups=`"):
        c.merge(grouped_one)


# -- the command ------------------------------------------------------------------------------------------
def test_eval_labels_stream_group_is_the_evaluation_in_memory(tmp_path, capsys):
    from perfeval.cli.main import main

    rng = np.random.default_rng(9)
    n = 300
    path = tmp_path / "ml.csv"
    lines = ["user,spam,urgent,p_spam,p_urgent,w"]
    for _ in range(n):
        y = rng.integers(0, 2, 2)
        p = rng.integers(0, 5, 2) / 4
        lines.append(f"u{rng.integers(0, 9)},{y[0]},{y[1]},{p[0]},{p[1]},{rng.choice([0, 0.5, 1.5])}")
    path.write_text("\n".join(lines) + "\n")
    base = ["eval", str(path), "--labels", "spam,urgent", "--score-prefix", "p_", "--group", "user"]
    base += ["-m", ",".join(MULTILABEL), "--format", "json"]
    for extra in ([], ["--weight", "w"]):
        outs = []
        for stream_flag in ([], ["--stream"]):
            assert quiet(main, base + extra + stream_flag) == 0
            outs.append(json.loads(capsys.readouterr().out))
        mem, streamed = outs
        assert streamed["params"]["backend"] == "stream" and mem["params"]["backend"] == "memory"
        assert streamed["measures"] == mem["measures"] and mem["measures"]
