"""Slices on the backends (issue 34, docs/slices.md): ``by=`` on evaluate_stream and the grouped stream,
on Dask and in Metric gives the slices of ``evaluate(..., by=...)`` in memory, bit for bit, for every
measure of the registry (tests/_registry.py): weights 0, whole and fractional, one-class and
zero-weight slices, intersections, 64-bit integer, text and categorical keys, keys first seen in
different chunks, several chunk sizes, skewed partitions, several updates and merged Metrics.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from _registry import every, fractional_ok_classes
from perfeval import Metric
from perfeval.backends.stream import evaluate_stream, evaluate_stream_grouped
from perfeval.exceptions import InvalidDataError, InvalidParameterError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

BINARY = every("binary")
RANKING = every("ranking")
GROUPED = every("grouped")
CLASSES = every("multiclass")
LABELS = every("multilabel")
REGRESSION = every("regression")
#: measures whose defaults compute nothing (CST: every cost 0)
SPECS = {"CST": "cst:fn=1,fp=2"}
BY = ["t", "i", "c"]
#: the categories of ``c`` in their own order (not sorted), one of them never present
CATEGORIES = ["mid", "lo", "hi", "none"]


def spec(name: str) -> str:
    return SPECS.get(name, name)


def quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def _takes_fractions(m: str) -> bool:
    try:
        quiet(perfeval.evaluate, [1, 0], [0.6, 0.4], sample_weight=[0.5, 1.5], measures=[spec(m)])
    except InvalidParameterError:
        return False
    return True


FRACTIONAL = [m for m in BINARY if _takes_fractions(m)]


def _bits(a) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return np.where(np.isnan(a), 0, a.view(np.int64)), np.isnan(a)


def assert_same_slices(m, r, own_overall: bool = False) -> None:
    """The slices of two reports alike bit for bit: every slicing's keys (values and types), rows,
    cases, weights, positives, negatives, flags, values and reasons, and the gaps (JSON).
    ``own_overall``: the reports' overall values may differ in rounding (Dask's merged summaries with
    fractional weights, docs/dask.md: an operating point's threshold may then move), and the gaps
    to them with them; the slices may not (the gaps are then compared to memory's overall values)."""
    assert m.slices is not None and r.slices is not None
    assert m.slices.names == r.slices.names
    fm, fr = m.slices.frame(), r.slices.frame()
    assert fm.index.tolist() == fr.index.tolist()
    assert [type(k) for _, k in fm.index] == [type(k) for _, k in fr.index]
    assert list(fm.columns) == list(fr.columns)
    for c in fm.columns:
        if fm[c].dtype.kind == "f":
            (ba, na), (bb, nb) = _bits(fm[c]), _bits(fr[c])
            assert np.array_equal(na, nb) and np.array_equal(ba, bb), (c, fm[c].tolist(), fr[c].tolist())
        else:
            assert fm[c].tolist() == fr[c].tolist(), c
    if own_overall:
        assert list(r.slices.overall) == list(m.slices.overall)
        r.slices.overall = dict(m.slices.overall)
    assert m.slices.to_dict() == r.slices.to_dict()


# -- the data ---------------------------------------------------------------------------------------------
@st.composite
def binary_data(draw, weights: str = "none"):
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.random()).astype(np.float64)
    s = np.round(rng.random(n), draw(st.sampled_from([0, 1, 2])))
    if weights == "zero":
        w = np.where(rng.random(n) < 0.3, 0.0, rng.integers(1, 4, n)).astype(np.float64)
    elif weights == "whole":
        w = rng.integers(1, 4, n).astype(np.float64)
    elif weights == "fraction":
        w = rng.random(n) * 3 * (rng.random(n) < 0.9)  # zeros among them
    else:
        w = None
    cuts = sorted(set(draw(st.lists(st.integers(1, max(n - 1, 1)), max_size=5))))
    return y, s, w, _columns(rng, n, draw(st.booleans())), [0, *[c for c in cuts if c < n], n]


def _columns(rng, n: int, with_missing: bool) -> pd.DataFrame:
    t = rng.choice(np.array(["x", "y", "z"], dtype=object), n)
    if with_missing:
        t[rng.random(n) < 0.15] = None
    return pd.DataFrame(
        {
            "t": t,
            "i": (2**62 + rng.integers(0, 3, n)) * np.where(rng.random(n) < 0.5, 1, -1),  # 64-bit ids
            "c": pd.Categorical(rng.choice(CATEGORIES[:3], n), categories=CATEGORIES),
        }
    )


def _options(cols: pd.DataFrame) -> dict:
    missing = "slice" if cols["t"].isna().any() else "error"
    return {"intersections": True, "min_size": 3, "missing": missing}


def _chunks(cuts):
    return [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def _memory(y, s, w, cols, measures, **kw):
    return quiet(perfeval.evaluate, y, s, sample_weight=w, measures=measures, by=cols, **_options(cols), **kw)


def _stream(y, s, w, cols, cuts, measures):
    parts = [
        ((y[k], s[k]) if w is None else (y[k], s[k], w[k])) + (cols.iloc[k].reset_index(drop=True),)
        for k in _chunks(cuts)
    ]
    return quiet(evaluate_stream, parts, measures=measures, by=BY, **_options(cols))


def _metric(y, s, w, cols, cuts, measures, merged: bool, **kw):
    ms = []
    for k in _chunks(cuts):
        if not ms or merged:  # a Metric an update, merged; or one Metric, an update a chunk
            ms.append(Metric(measures, by=BY, **_options(cols), **kw))
        ms[-1].update(y[k], s[k], sample_weight=None if w is None else w[k], by=cols.iloc[k])
    return quiet(Metric.merge_all(ms).compute)


def _dask(frame: pd.DataFrame, cuts, **kw):
    """A Dask DataFrame whose partitions are ``cuts``' pieces (skewed: one row, the rest)."""
    parts = [dd.from_pandas(frame.iloc[k], npartitions=1) for k in _chunks(cuts)]
    ddf = dd.concat(parts) if len(parts) > 1 else parts[0]
    with dask.config.set(scheduler="synchronous"):
        return quiet(perfeval.evaluate, ddf, **kw)


# -- binary measures ----------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(binary_data(), st.sampled_from(["none", "zero", "whole", "fraction"]))
def test_binary_slices_streamed_and_in_a_metric_are_those_in_memory(d, weights):
    y, s, _, cols, cuts = d
    rng = np.random.default_rng(len(y))
    w = {
        "none": None,
        "zero": np.where(rng.random(len(y)) < 0.3, 0.0, rng.integers(1, 4, len(y))).astype(float),
        "whole": rng.integers(1, 4, len(y)).astype(float),
        "fraction": rng.random(len(y)) * 3 * (rng.random(len(y)) < 0.9),
    }[weights]
    measures = [spec(m) for m in (FRACTIONAL if weights == "fraction" else BINARY)]
    m = _memory(y, s, w, cols, measures)
    assert_same_slices(m, _stream(y, s, w, cols, cuts, measures))
    assert_same_slices(m, _metric(y, s, w, cols, cuts, measures, merged=False))
    assert_same_slices(m, _metric(y, s, w, cols, cuts, measures, merged=True))


@settings(max_examples=12, deadline=None)
@given(binary_data(), st.sampled_from(["none", "zero", "fraction"]))
def test_binary_slices_on_dask_are_those_in_memory(d, weights):
    y, s, _, cols, cuts = d
    rng = np.random.default_rng(len(y) + 1)
    w = {
        "none": None,
        "zero": np.where(rng.random(len(y)) < 0.3, 0.0, rng.integers(1, 4, len(y))).astype(float),
        "fraction": rng.random(len(y)) * 3 * (rng.random(len(y)) < 0.9),
    }[weights]
    measures = [spec(m) for m in (FRACTIONAL if weights == "fraction" else BINARY)]
    frame = cols.assign(y=y, s=s, **({} if w is None else {"w": w}))
    kw = dict(target="y", score="s", weight=None if w is None else "w", measures=measures, by=BY)
    m = quiet(perfeval.evaluate, frame, **kw, **_options(cols))
    # the slices bit for bit; Dask's overall values (merged summaries) within rounding with fractions
    assert_same_slices(m, _dask(frame, cuts, **kw, **_options(cols)), own_overall=weights == "fraction")


def test_keys_first_seen_in_later_chunks_and_partitions_merge_by_value():
    """Chunk 1 holds only 'x', chunk 2 only 'y', chunk 3 a key between them and the first again;
    the 64-bit ids and a categorical's keys likewise: the slices are memory's, in memory's order."""
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1])
    s = np.array([0.9, 0.2, 0.8, 0.3, 0.7, 0.1, 0.4, 0.6, 0.5])
    cols = pd.DataFrame(
        {
            "t": ["x", "x", "x", "z", "z", "z", "y", "x", "y"],
            "i": np.array([2**63 - 1] * 3 + [-(2**63)] * 3 + [5] * 3, dtype=np.int64),
            "c": pd.Categorical(["hi"] * 3 + ["lo"] * 3 + ["mid"] * 3, categories=CATEGORIES),
        }
    )
    cuts = [0, 3, 6, 9]
    m = _memory(y, s, None, cols, ["roc", "ap"])
    assert m.slices.slicing("t").keys == ["x", "y", "z"]
    assert m.slices.slicing("c").keys == ["mid", "lo", "hi"]  # the categories' order
    assert m.slices.slicing("i").keys == [-(2**63), 5, 2**63 - 1]
    for w in (None, np.arange(1.0, 10.0) / 3):
        m = _memory(y, s, w, cols, ["roc", "ap"])
        assert_same_slices(m, _stream(y, s, w, cols, cuts, ["roc", "ap"]))
        assert_same_slices(m, _metric(y, s, w, cols, cuts, ["roc", "ap"], merged=True))
        frame = cols.assign(y=y, s=s, **({} if w is None else {"w": w}))
        kw = dict(target="y", score="s", weight=None if w is None else "w", measures=["roc", "ap"], by=BY)
        assert_same_slices(
            quiet(perfeval.evaluate, frame, **kw, **_options(cols)),
            _dask(frame, cuts, **kw, **_options(cols)),
            own_overall=w is not None,
        )


def test_one_class_and_zero_weight_slices_are_listed_as_in_memory():
    y = np.array([1, 1, 0, 1, 0, 0, 1])
    s = np.array([0.9, 0.8, 0.2, 0.4, 0.5, 0.6, 0.3])
    w = np.array([1.0, 2.0, 0.0, 0.0, 1.5, 0.5, 1.0])
    cols = pd.DataFrame({"t": ["a", "a", "b", "b", "c", "c", "c"], "i": [1] * 7, "c": ["u"] * 7})
    m = _memory(y, s, w, cols, ["roc", "acc"])
    frame = m.slices.frame()
    assert frame.loc[("t", "a"), "why_ROC"].startswith("undefined in this slice")  # one class
    assert frame.loc[("t", "b"), "cases"] == 0  # every row of weight 0: listed
    assert_same_slices(m, _stream(y, s, w, cols, [0, 2, 4, 7], ["roc", "acc"]))
    assert_same_slices(m, _metric(y, s, w, cols, [0, 2, 4, 7], ["roc", "acc"], merged=True))


# -- per-query measures ---------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(binary_data(), st.booleans())
def test_per_query_slices_on_every_backend_are_those_in_memory(d, clustered):
    """Per-query measures (and GAUC, and binary measures per query): each slice's queries, averaged
    as the slice alone averages them; the grouped stream spilled (3 parts) or clustered."""
    y, s, _, cols, cuts = d
    n = len(y)
    rng = np.random.default_rng(n)
    q = np.sort(rng.integers(0, 6, n)) if clustered else rng.integers(0, 6, n)
    rel = np.round(y * (1 + q % 3))  # graded relevance
    for measures, target in (([spec(m) for m in RANKING], rel), ([*GROUPED, *BINARY[:10]], y)):
        m = quiet(perfeval.evaluate, target, s, groups=q, measures=measures, by=cols, **_options(cols))
        parts = [(target[k], s[k], q[k], cols.iloc[k]) for k in _chunks(cuts)]
        r = quiet(
            evaluate_stream_grouped, parts, measures=measures, by=BY, partitions=3, clustered=clustered,
            **_options(cols),
        )  # fmt: skip
        assert_same_slices(m, r)
        met = Metric(measures, by=BY, **_options(cols))
        for k in _chunks(cuts):
            met.update(target[k], s[k], groups=q[k], by=cols.iloc[k])
        assert_same_slices(m, quiet(met.compute))
    frame = cols.assign(y=y, rel=rel, s=s, q=q)
    for target, measures in (("y", [*GROUPED, *BINARY[:10]]), ("rel", [spec(m) for m in RANKING])):
        kw = dict(target=target, score="s", group="q", measures=measures, by=BY)
        assert_same_slices(
            quiet(perfeval.evaluate, frame, **kw, **_options(cols)),
            _dask(frame, cuts, **kw, **_options(cols)),
        )


def test_binary_measures_per_query_with_fractional_weights_on_every_backend():
    rng = np.random.default_rng(7)
    n = 80
    y, s = (rng.random(n) < 0.4).astype(float), np.round(rng.random(n), 1)
    q, w = rng.integers(0, 5, n), rng.random(n) * 2
    cols = _columns(rng, n, False)
    cuts = [0, 1, 30, 80]
    measures = FRACTIONAL[:12]
    m = quiet(
        perfeval.evaluate, y, s, groups=q, sample_weight=w, measures=measures, by=cols, **_options(cols)
    )
    parts = [(y[k], s[k], q[k], w[k], cols.iloc[k]) for k in _chunks(cuts)]
    r = quiet(evaluate_stream_grouped, parts, measures=measures, by=BY, partitions=2, **_options(cols))
    assert_same_slices(m, r)
    met = Metric(measures, by=BY, **_options(cols))
    for k in _chunks(cuts):
        met.update(y[k], s[k], groups=q[k], sample_weight=w[k], by=cols.iloc[k])
    assert_same_slices(m, quiet(met.compute))


# -- K classes, K labels, regression ---------------------------------------------------------------
@settings(max_examples=10, deadline=None)
@given(binary_data(), st.sampled_from(["none", "fraction"]))
def test_k_classes_labels_and_regression_slices_in_a_metric_and_on_dask(d, weights):
    _, _, _, cols, cuts = d
    n = len(cols)
    rng = np.random.default_rng(n + 3)
    w = None if weights == "none" else rng.random(n) * 2 * (rng.random(n) < 0.9)
    labels = ["a", "b", "c"]
    y = rng.choice(labels, n)
    S = np.round(rng.dirichlet([1, 1, 1], n), 1)
    classes = CLASSES if w is None else fractional_ok_classes(CLASSES)
    m = quiet(
        perfeval.evaluate, y, S, classes=labels, sample_weight=w, measures=classes, by=cols, **_options(cols)
    )
    met = Metric(classes, classes=labels, by=BY, **_options(cols))
    for k in _chunks(cuts):
        met.update(y[k], S[k], sample_weight=None if w is None else w[k], by=cols.iloc[k])
    assert_same_slices(m, quiet(met.compute))
    frame = cols.assign(y=y, a=S[:, 0], b=S[:, 1], c_=S[:, 2], **({} if w is None else {"w": w}))
    kw = dict(target="y", score=["a", "b", "c_"], classes=labels, measures=classes, by=BY)
    kw["weight"] = None if w is None else "w"
    assert_same_slices(
        quiet(perfeval.evaluate, frame, **kw, **_options(cols)), _dask(frame, cuts, **kw, **_options(cols))
    )

    Y = (rng.random((n, 3)) < 0.5).astype(int)
    m = quiet(perfeval.evaluate, Y, S, sample_weight=w, measures=LABELS, by=cols, **_options(cols))
    met = Metric(LABELS, labels=["p", "q", "r"], by=BY, **_options(cols))
    for k in _chunks(cuts):
        met.update(Y[k], S[k], sample_weight=None if w is None else w[k], by=cols.iloc[k])
    assert_same_slices(m, quiet(met.compute))
    frame = cols.assign(p=Y[:, 0], q=Y[:, 1], r=Y[:, 2], sp=S[:, 0], sq=S[:, 1], sr=S[:, 2])
    frame = frame.assign(**({} if w is None else {"w": w}))
    kw = dict(target=["p", "q", "r"], score=["sp", "sq", "sr"], measures=LABELS, by=BY)
    kw["weight"] = None if w is None else "w"
    assert_same_slices(
        quiet(perfeval.evaluate, frame, **kw, **_options(cols)),
        _dask(frame, cuts, **kw, **_options(cols)),
    )

    t, p = np.round(rng.normal(size=n), 1), np.round(rng.normal(size=n), 1)
    m = quiet(perfeval.evaluate, t, p, sample_weight=w, measures=REGRESSION, by=cols, **_options(cols))
    parts = [((t[k], p[k]) if w is None else (t[k], p[k], w[k])) + (cols.iloc[k],) for k in _chunks(cuts)]
    assert_same_slices(m, quiet(evaluate_stream, parts, measures=REGRESSION, by=BY, **_options(cols)))
    met = Metric(REGRESSION, by=BY, **_options(cols))
    for k in _chunks(cuts):
        met.update(t[k], p[k], sample_weight=None if w is None else w[k], by=cols.iloc[k])
    assert_same_slices(m, quiet(met.compute))
    frame = cols.assign(t_=t, p=p, **({} if w is None else {"w": w}))
    kw = dict(target="t_", score="p", measures=REGRESSION, by=BY, weight=None if w is None else "w")
    assert_same_slices(
        quiet(perfeval.evaluate, frame, **kw, **_options(cols)), _dask(frame, cuts, **kw, **_options(cols))
    )


# -- the Metric's state, merges and failed updates ----------------------------------------------------------
def test_a_metric_with_slices_pickles_copies_and_refuses_what_does_not_fit():
    rng = np.random.default_rng(11)
    n = 90
    y, s = (rng.random(n) < 0.5).astype(int), np.round(rng.random(n), 2)
    cols = _columns(rng, n, True)
    for w in (None, rng.random(n)):
        m = Metric(["roc", "ap"], by=BY, **_options(cols))
        m.update(y[:40], s[:40], sample_weight=None if w is None else w[:40], by=cols.iloc[:40])
        again = pickle.loads(pickle.dumps(m))
        for x in (m, again):
            x.update(y[40:], s[40:], sample_weight=None if w is None else w[40:], by=cols.iloc[40:])
        assert_same_slices(quiet(m.compute), quiet(again.compute))
        assert_same_slices(_memory(y, s, w, cols, ["roc", "ap"]), quiet(again.compute))
    m = Metric(["roc"], by=["t"], missing="slice")
    m.update([1, 0], [0.9, 0.1], by={"t": ["a", "b"]})
    assert repr(m).startswith("Metric(['ROC'], threshold=0.5, by=['t'], rows=2, ")
    before = quiet(m.compute).slices.frame()
    with pytest.raises(InvalidDataError, match=r"mixes strings \('a' at row 0\) and integers \(1 at row 2\)"):
        m.update([1, 0], [0.9, 0.1], by={"t": [1, 2]})  # a bad update changes nothing
    with pytest.raises(InvalidParameterError, match="slices by t: give update"):
        m.update([1], [0.5])
    with pytest.raises(InvalidParameterError, match="made with by="):
        Metric(["roc"]).update([1], [0.5], by={"t": ["a"]})
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        m.merge(Metric(["roc"], by=["u"]))
    pd.testing.assert_frame_equal(quiet(m.compute).slices.frame(), before)


# -- errors: the lines memory says, at the rows of the whole input ----------------------------------
def test_bad_slice_columns_in_a_later_chunk_are_memory_s_line():
    y, s = np.array([1, 0, 1, 0, 1, 0]), np.array([0.9, 0.2, 0.8, 0.3, 0.7, 0.1])
    t = np.array(["a", "b", "a", None, "b", "a"], dtype=object)
    with pytest.raises(InvalidDataError) as memory:
        perfeval.evaluate(y, s, by={"t": t})
    with pytest.raises(InvalidDataError) as streamed:
        evaluate_stream([(y[:3], s[:3], {"t": t[:3]}), (y[3:], s[3:], {"t": t[3:]})], by=["t"])
    assert str(memory.value) == str(streamed.value) and "at row 3" in str(memory.value)
    frac = np.array([1, 2, 1, 2, 1.5, 1])
    with pytest.raises(InvalidDataError) as memory:
        perfeval.evaluate(y, s, by={"t": frac})
    with pytest.raises(InvalidDataError) as streamed:
        evaluate_stream([(y[:3], s[:3], {"t": frac[:3]}), (y[3:], s[3:], {"t": frac[3:]})], by=["t"])
    assert str(memory.value) == str(streamed.value) and "row 4" in str(memory.value)
    with pytest.raises(InvalidDataError, match=r"mixes integers \(1 at row 0\) and strings \('a' at row 3\)"):
        evaluate_stream([(y[:3], s[:3], {"t": [1, 2, 1]}), (y[3:], s[3:], {"t": ["a", "b", "a"]})], by=["t"])
    cats = [pd.Categorical(["a"] * 3, categories=c) for c in (["a", "b"], ["b", "a"])]
    with pytest.raises(InvalidDataError, match="other categories"):
        evaluate_stream([(y[:3], s[:3], {"t": cats[0]}), (y[3:], s[3:], {"t": cats[1]})], by=["t"])
    with pytest.raises(InvalidParameterError, match="weights to every chunk or to none"):
        evaluate_stream([(y[:3], s[:3], {"t": t[:3]}), (y[3:], s[3:], np.ones(3), {"t": t[3:]})], by=["t"])
    with pytest.raises(InvalidParameterError, match="lack 'u'"):
        evaluate_stream([(y, s, {"t": t})], by=["u"])
    with pytest.raises(InvalidParameterError, match="not the columns themselves"):
        evaluate_stream([(y, s, {"t": t})], by={"t": t})
    with pytest.raises(InvalidParameterError, match="needs by="):
        evaluate_stream([(y, s)], intersections=True)
    ddf = dd.from_pandas(pd.DataFrame({"y": y, "s": s, "t": ["a"] * 6}), npartitions=2)
    with pytest.raises(InvalidParameterError, match="column 'u' is not in the table"):
        perfeval.evaluate(ddf, target="y", score="s", by=["u"])
    with pytest.raises(InvalidParameterError, match="is the target column"):
        perfeval.evaluate(ddf, target="y", score="s", by=["y"])


def test_the_missing_slice_and_the_text_missing_do_not_meet_across_chunks():
    y, s = np.array([1, 0, 1, 0]), np.array([0.9, 0.2, 0.8, 0.3])
    t = np.array(["<missing>", "a", None, "a"], dtype=object)
    with pytest.raises(InvalidDataError) as memory:
        perfeval.evaluate(y, s, by={"t": t}, missing="slice")
    with pytest.raises(InvalidDataError) as streamed:
        evaluate_stream(
            [(y[:2], s[:2], {"t": t[:2]}), (y[2:], s[2:], {"t": t[2:]})], by=["t"], missing="slice"
        )
    assert str(memory.value) == str(streamed.value)
    ok = np.array(["<missing>", "a", "b", "a"], dtype=object)  # the text alone: a key like another
    m = quiet(perfeval.evaluate, y, s, by={"t": ok}, missing="slice", measures=["roc"])
    r = quiet(evaluate_stream, [(y[:2], s[:2], {"t": ok[:2]}), (y[2:], s[2:], {"t": ok[2:]})], by=["t"],
              missing="slice", measures=["roc"])  # fmt: skip
    assert_same_slices(m, r)


def test_dask_messages_name_the_partition_row():
    df = pd.DataFrame({"y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.8, 0.2], "t": ["a", "b", None, "a"]})
    ddf = dd.from_pandas(df, npartitions=2)
    with dask.config.set(scheduler="synchronous"), pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(ddf, target="y", score="s", by=["t"])
    said = str(e.value)  # (Dask holds the text column as pandas' strings: its missing value is <NA>)
    assert said.startswith("by column 't' holds a missing value (") and "at row 0 of partition 1:" in said
    unknown = ddf.assign(t=ddf.t.fillna("b").astype("category"))  # each partition its own categories
    with pytest.raises(InvalidParameterError, match=r"categories Dask does not know .*cat.as_known\(\)"):
        perfeval.evaluate(unknown, target="y", score="s", by=["t"])
    known = unknown.assign(t=unknown.t.cat.as_known())
    with dask.config.set(scheduler="synchronous"):
        r = quiet(perfeval.evaluate, known, target="y", score="s", by=["t"], measures=["roc"])
    assert_same_slices(
        quiet(perfeval.evaluate, known.compute(), target="y", score="s", by=["t"], measures=["roc"]), r
    )


def test_no_rows_gives_slicings_without_slices():
    m = quiet(Metric(["roc"], by=["t"]).compute)
    assert m.slices.names == ["t"] and len(m.slices.slicing("t")) == 0
    r = quiet(evaluate_stream, [], measures=["roc"], by=["t"])
    assert r.slices.names == ["t"] and len(r.slices.slicing("t")) == 0
    assert math.isnan(r["ROC"])


def test_a_sliced_metric_state_that_cannot_be_read_is_one_line_and_changes_nothing():
    m = Metric(["roc"], by=["t"], missing="slice")
    m.update([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6], by={"t": ["a", "b", None, "a"]})
    good = m.state_dict()
    target = Metric(["roc"], by=["t"], missing="slice")
    target.update([1, 0], [0.3, 0.1], by={"t": ["c", "c"]})
    before = pickle.dumps(target.state_dict())
    held = quiet(target.compute).slices.to_dict()
    refused = 0
    for key in ("slices", "by", "by_options"):
        for junk in ("junk", -1, [1], {"a": 1}, None):
            try:
                target.load_state_dict({**good, key: junk})
            except perfeval.PerfError as e:
                assert "\n" not in str(e)
                assert quiet(target.compute).slices.to_dict() == held  # nothing changed
                refused += 1
                continue
            assert key != "slices"  # rows without their slices: refused, never taken
            quiet(target.compute)  # taken: it computes
            target.load_state_dict(pickle.loads(before))
    assert refused >= 12
    target.load_state_dict(good)
    assert_same_slices(quiet(m.compute), quiet(target.compute))
