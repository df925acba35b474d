"""perfeval.Metric: batches updated, merged in any order, pickled and reset give what evaluate() gives
on all the rows at once, bit for bit, for every measure of the registry (the lists below are the
registry's, so a new measure is covered the day it is registered); bad input gives evaluate()'s
errors and leaves the state as it was; array libraries are read through their protocols."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import math
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import perfeval
from _registry import every
from perfeval import Metric

DOC = Path(__file__).resolve().parents[1] / "docs" / "metric.md"

# every measure, and every other choice of each parameter with choices (tests/_registry.py)
BINARY = every("binary")
RANKING = every("ranking")
GROUPED = every("grouped")
#: parameters that make a measure say something (CST's default costs are all 0), and a cut-off
SPECS = {"CST": "cst:fn=1,fp=2", "NDCG": "ndcg@3", "P": "p@2"}


def spec(name: str) -> str:
    return SPECS.get(name, name)


def _takes_fractional(name: str) -> bool:
    """APR and CA2 count cases: they refuse fractional weights (in evaluate() and in Metric alike)."""
    try:
        perfeval.evaluate([1, 0], [0.6, 0.4], sample_weight=[0.5, 1.5], measures=[spec(name)])
        return True
    except perfeval.InvalidParameterError as e:
        assert "whole-number weights" in str(e), (name, e)
        return False


FRACTIONAL = [m for m in BINARY if _takes_fractional(m)]


def bits(report) -> dict:
    """Everything a report says, as comparable values: each value, mean, weighted mean and
    per-group value as its float64 bits (NaN equal to NaN), the groups, their sizes, the params.
    """

    def b(v):
        return None if v is None else np.asarray(v, dtype=np.float64).view(np.int64).tolist()

    out: dict = {
        label: (b(r.value), b(r.mean), b(r.weighted_mean), b(r.per_group), list(r.undefined))
        for label, r in report.results.items()
    }
    out["groups"] = None if report.groups is None else np.asarray(report.groups).tolist()
    out["group_sizes"] = b(report.group_sizes)
    out["params"] = {k: v for k, v in report.params.items() if k != "backend"}
    return out


def quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **kw)


def evaluate(y, s, measures, **kw):
    return quiet(perfeval.evaluate, y, s, measures=measures, **kw)


def compute(m: Metric):
    return quiet(m.compute)


@st.composite
def data(draw, weights=("none", "whole", "dyadic", "fraction")):
    """Rows with many ties, their groups, weights of one kind, and cuts into batches."""
    n = draw(st.integers(0, 60))
    decimals = draw(st.sampled_from([0, 1, 2, 6]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < rng.random()).astype(np.int64)
    s = np.round(rng.random(n), decimals)
    g = rng.integers(0, 5, n)
    kind = draw(st.sampled_from(weights))
    w = {
        "none": None,
        "whole": rng.integers(0, 4, n).astype(np.float64),  # 0: a dropped case
        "dyadic": rng.integers(0, 5 * 1024, n) / 1024.0,
        "fraction": rng.random(n) * 5,
    }[kind]
    cuts = draw(st.lists(st.integers(0, n), max_size=6))
    bounds = [0, *sorted(cuts), n]
    return y, s, g, w, kind, list(zip(bounds, bounds[1:], strict=False))


def _cases(kind: str, grouped: bool) -> list[tuple[list[str], bool]]:
    """(measures, weighted) of every Metric the registry allows for data of this weight kind."""
    binary = [spec(m) for m in (FRACTIONAL if kind in ("dyadic", "fraction") else BINARY)]
    out = [(binary, kind != "none")]
    if kind == "none":  # the per-query measures and the group AUC take no weights
        out.append(([spec(m) for m in RANKING + (GROUPED if grouped else [])], False))
    return out


def _batches(y, s, g, w, cuts, grouped):
    for a, b in cuts:
        kw = {}
        if grouped:
            kw["groups"] = g[a:b]
        if w is not None:
            kw["sample_weight"] = w[a:b]
        yield y[a:b], s[a:b], kw


def _whole(y, s, g, w, grouped):
    kw = {}
    if grouped:
        kw["groups"] = g
    if w is not None:
        kw["sample_weight"] = w
    return kw


# -- the numbers ---------------------------------------------------------------------------------------
@settings(deadline=None)
@given(data(), st.booleans())
def test_updates_in_batches_equal_evaluate_bit_for_bit(d, grouped):
    """Whatever the weights: a Metric's summary adds each score's weights in row order, as
    evaluate() does over all the rows at once (fractional weights included)."""
    y, s, g, w, kind, cuts = d
    for measures, weighted in _cases(kind, grouped):
        m = Metric(measures)
        for yb, sb, kw in _batches(y, s, g, w if weighted else None, cuts, grouped):
            m.update(yb, sb, **kw)
        want = evaluate(y, s, measures, **_whole(y, s, g, w if weighted else None, grouped))
        got = compute(m)
        assert bits(got) == bits(want), (measures, kind, grouped)
        assert got.params["backend"] == "metric"
        assert m.rows == len(y)


@settings(deadline=None)
@given(data(), st.booleans(), st.randoms(use_true_random=False))
def test_merging_in_any_order_equals_evaluate(d, grouped, rnd):
    """One Metric per batch, merged in a random order (in place, by merge_all, or as a tree): the
    numbers of evaluate() on all the rows, bit for bit when the weights add up exactly (none,
    whole, dyadic), and on the rows in the merged order to a few ulps with other fractions."""
    y, s, g, w, kind, cuts = d
    for measures, weighted in _cases(kind, grouped):
        ww = w if weighted else None
        parts = []
        for yb, sb, kw in _batches(y, s, g, ww, cuts, grouped):
            p = Metric(measures)
            p.update(yb, sb, **kw)
            parts.append(p)
        order = list(range(len(parts)))
        rnd.shuffle(order)
        shuffled = [parts[i] for i in order]
        rows = np.concatenate([np.arange(a, b) for a, b in (cuts[i] for i in order)]).astype(np.int64)
        want = evaluate(
            y[rows], s[rows], measures, **_whole(y[rows], s[rows], g[rows], _at(ww, rows), grouped)
        )
        if kind != "fraction":  # exact sums: also the rows in their first order
            assert bits(want) == bits(evaluate(y, s, measures, **_whole(y, s, g, ww, grouped)))
        one = Metric(measures)
        for p in shuffled:
            one.merge(p)
        every = Metric.merge_all(shuffled)
        tree = shuffled
        while len(tree) > 1:
            tree = [Metric.merge_all(tree[i : i + 2]) for i in range(0, len(tree), 2)]
        for got in (one, every, tree[0]):
            if kind == "fraction" and weighted:
                _close(compute(got), want)
            else:
                assert bits(compute(got)) == bits(want), (measures, kind, grouped)
        # merging left every part as it was
        for p, (a, b) in zip(parts, cuts, strict=True):
            assert p.rows == b - a


def _at(w, rows):
    return None if w is None else w[rows]


def _close(a, b, rel=1e-13):
    for label, r in a.results.items():
        x, want = r.value, b.results[label].value
        assert (math.isnan(x) and math.isnan(want)) or x == want or abs(x - want) <= rel * abs(want), label


@settings(deadline=None)
@given(data(weights=("none",)))
def test_graded_relevance_in_batches(d):
    """Per-query measures over graded relevance (0..3), per group and over one query."""
    y, s, g, _, _, cuts = d
    rel = (y * (1 + g % 3)).astype(np.float64)
    measures = [spec(m) for m in RANKING]
    for grouped in (True, False):
        m = Metric(measures)
        for yb, sb, kw in _batches(rel, s, g, None, cuts, grouped):
            m.update(yb, sb, **kw)
        assert bits(compute(m)) == bits(evaluate(rel, s, measures, **_whole(rel, s, g, None, grouped)))


@pytest.mark.parametrize("name", BINARY + RANKING + GROUPED)
def test_every_measure_of_the_registry_is_accepted(name):
    """The lists above are the registry's: every measure is a Metric, and equals evaluate()."""
    rng = np.random.default_rng(7)
    y, s, g = rng.integers(0, 2, 300), rng.random(300).round(2), rng.integers(0, 9, 300)
    kw = {"groups": g} if name in GROUPED else {}
    m = Metric([spec(name)])
    for a in range(0, 300, 70):
        m.update(y[a : a + 70], s[a : a + 70], **({"groups": g[a : a + 70]} if kw else {}))
    assert bits(compute(m)) == bits(evaluate(y, s, [spec(name)], **kw))
    copy = pickle.loads(pickle.dumps(m))  # its label is read back as the same measure
    assert copy.measures == m.measures
    assert bits(compute(copy)) == bits(compute(m))


def test_a_threshold_and_parameters_survive_pickling():
    m = Metric(["acc", "fbeta:beta=2", "acc:threshold=0.7"], threshold=0.3)
    m.update([1, 0, 1, 0], [0.9, 0.5, 0.35, 0.1])
    copy = pickle.loads(pickle.dumps(m))
    copy.merge(m)  # the same computation: mergeable
    want = evaluate([1, 0, 1, 0] * 2, [0.9, 0.5, 0.35, 0.1] * 2, m.measures, threshold=0.3)
    assert bits(compute(copy)) == bits(want)
    assert copy.measures == ["ACC@0.3", "FBETA@2:threshold=0.3", "ACC@0.7"]  # thresholds in the labels


def test_many_small_batches_fold_into_one_summary():
    """Past the fold size the pending batches become one ScoreHistogram, equal to evaluate()'s."""
    rng = np.random.default_rng(3)
    n = 200_000
    y, s, w = rng.integers(0, 2, n), rng.random(n).round(4), rng.random(n)
    m = Metric(["roc", "acc", "rms"])
    for a in range(0, n, 4096):
        m.update(y[a : a + 4096], s[a : a + 4096], sample_weight=w[a : a + 4096])
    assert len(m._pending) < n // 4096  # folded on the way, not kept batch by batch
    got = compute(m)
    want = evaluate(y, s, ["roc", "acc", "rms"], sample_weight=w)
    assert bits(got) == bits(want)
    assert got.summary == perfeval.ScoreHistogram.from_arrays(y, s, w)


def test_negative_zero_is_zero_across_batches():
    """-0.0 and 0.0 are one score (ScoreHistogram keeps it as 0.0), in whichever batch each comes."""
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([-0.0, 0.0, 0.5, -0.0, 0.0, -0.5])
    w = np.array([0.3, 0.7, 1.1, 0.2, 0.9, 0.4])
    for cut in range(len(y) + 1):
        m = Metric(["roc", "acc", "rms"])
        m.update(y[:cut], s[:cut], sample_weight=w[:cut])
        m.update(y[cut:], s[cut:], sample_weight=w[cut:])
        got = compute(m)
        assert bits(got) == bits(evaluate(y, s, ["roc", "acc", "rms"], sample_weight=w))
        assert np.signbit(got.summary.scores).tolist() == [True, False, False]  # -0.5, 0.0, 0.5


# -- the life of a Metric -------------------------------------------------------------------------------
def test_update_after_compute_keeps_accumulating_and_reset_forgets():
    y, s = np.array([1, 0, 1, 0, 1, 1]), np.array([0.9, 0.5, 0.5, 0.1, 0.3, 0.8])
    m = Metric("roc,apr,ndcg")
    m.update(y[:3], s[:3])
    assert bits(compute(m)) == bits(evaluate(y[:3], s[:3], "roc,apr,ndcg"))
    assert bits(compute(m)) == bits(evaluate(y[:3], s[:3], "roc,apr,ndcg"))  # computing changes nothing
    m.update(y[3:], s[3:])
    assert bits(compute(m)) == bits(evaluate(y, s, "roc,apr,ndcg"))
    m.reset()
    assert m.rows == 0
    assert bits(compute(m)) == bits(evaluate([], [], "roc,apr,ndcg"))
    m.update(y[3:], s[3:], groups=[1, 1, 2])  # a reset Metric may take groups now
    assert bits(compute(m)) == bits(evaluate(y[3:], s[3:], "roc,apr,ndcg", groups=[1, 1, 2]))


@pytest.mark.parametrize(
    ("measures", "kw"),
    [(["roc", "apr", "acc"], {}), (["ndcg@10"], {}), (["gauc"], {"groups": []}), (["roc", "map"], {})],
)
def test_nothing_seen_is_evaluate_of_no_data(measures, kw):
    """NaN values, and the warnings evaluate() gives for no data (none over no group)."""
    with warnings.catch_warnings(record=True) as got_warned:
        warnings.simplefilter("always")
        got = Metric(measures).compute()
    with warnings.catch_warnings(record=True) as want_warned:
        warnings.simplefilter("always")
        want = perfeval.evaluate(np.zeros(0), np.zeros(0), measures=measures, **kw)
    assert bits(got) == bits(want)
    assert all(math.isnan(v) for v in got.values.values())
    assert [str(w.message) for w in got_warned] == [str(w.message) for w in want_warned]
    # the binary measures undefined for one reason (no case) are named in one warning
    binary = [m for m in measures if m in ("roc", "apr", "acc")]
    assert len(got_warned) == (0 if "groups" in kw else len(measures) - len(binary) + (len(binary) > 0))
    if len(binary) > 1:
        assert str(got_warned[0].message) == "ROC, APR and ACC are undefined for this data: no case"


def test_nothing_seen_with_a_positive_label_is_evaluates_error():
    with pytest.raises(perfeval.InvalidDataError) as want:
        perfeval.evaluate([], [], measures=["roc"], pos_label="yes")
    with pytest.raises(perfeval.InvalidDataError) as got:
        Metric(["roc"], pos_label="yes").compute()
    assert str(got.value) == str(want.value)


def test_positive_label_across_batches():
    y = np.array(["yes", "no", "no", "yes", "maybe"])
    s = np.array([0.9, 0.2, 0.4, 0.6, 0.5])
    for measures, kw in ((["roc", "acc"], {}), (["gauc", "roc"], {"groups": [1, 1, 2, 2, 2]})):
        m = Metric(measures, pos_label="yes")
        m.update(y[:2], s[:2], **{k: v[:2] for k, v in kw.items()})
        m.update(y[2:], s[2:], **{k: v[2:] for k, v in kw.items()})
        assert bits(compute(m)) == bits(evaluate(y, s, measures, pos_label="yes", **kw))
    m = Metric(["roc"], pos_label="yes")
    m.update(["no", "maybe"], [0.1, 0.2])  # no positive yet: an error only when computed, as in evaluate()
    with pytest.raises(perfeval.InvalidDataError) as want:
        perfeval.evaluate(["no", "maybe"], [0.1, 0.2], measures=["roc"], pos_label="yes")
    with pytest.raises(perfeval.InvalidDataError) as got:
        m.compute()
    assert str(got.value) == str(want.value)


def test_pickle_and_state_dict_round_trip_mid_stream():
    rng = np.random.default_rng(5)
    y, s, g, w = rng.integers(0, 2, 500), rng.random(500).round(3), rng.integers(0, 7, 500), rng.random(500)
    for measures, kw in (
        (["roc", "acc", "brier"], {"sample_weight": w}),
        (["ndcg@5", "gauc", "roc"], {"groups": g}),
        (["roc", "rkl"], {"groups": g, "sample_weight": w}),
    ):
        m = Metric(measures)
        m.update(y[:250], s[:250], **{k: v[:250] for k, v in kw.items()})
        copy = pickle.loads(pickle.dumps(m))
        other = Metric(measures)
        other.load_state_dict(pickle.loads(pickle.dumps(m.state_dict())))
        for x in (m, copy, other):
            x.update(y[250:], s[250:], **{k: v[250:] for k, v in kw.items()})
            assert bits(compute(x)) == bits(evaluate(y, s, measures, **kw)), measures
        assert repr(copy) == repr(m)


def test_state_of_other_measures_is_refused():
    m = Metric(["roc"])
    m.update([1, 0], [0.5, 0.2])
    with pytest.raises(perfeval.InvalidParameterError, match=r"the state is of Metric\(\['ROC'\]"):
        Metric(["apr"]).load_state_dict(m.state_dict())
    with pytest.raises(perfeval.InvalidParameterError, match="not a perfeval.Metric state"):
        Metric(["roc"]).load_state_dict({"version": 99})


@pytest.mark.parametrize("clustered", [False, True])
def test_a_state_that_cannot_be_read_is_one_line_of_ours_and_changes_nothing(clustered):
    """A truncated or altered checkpoint raised KeyError, TypeError or ValueError, after the Metric
    had been reset (its rows lost: a failed call changed it), or was taken (``labels="junk"``, a
    flag of another type) and failed later at compute with an AttributeError."""
    m = Metric(["gauc", "roc"], clustered=clustered)
    m.update([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6], groups=[1, 1, 2, 2])
    good = m.state_dict()
    target = Metric(["gauc", "roc"], clustered=clustered)
    target.update([1, 0], [0.3, 0.1], groups=[7, 7])
    before = pickle.dumps(target.state_dict())
    held = (repr(target), bits(compute(target)))
    broken = []
    for key in good:
        if key == "version":
            continue
        broken.append({k: v for k, v in good.items() if k != key})
        for junk in ("junk", -1, [1], {"a": 1}):
            broken.append({**good, key: junk})
    refused = 0
    for state in broken:
        try:
            target.load_state_dict(state)
        except perfeval.PerfError as e:
            assert "\n" not in str(e)
            assert (repr(target), bits(compute(target))) == held, state  # nothing changed
            refused += 1
            continue
        except Exception as e:  # pragma: no cover - the failure this test is for
            raise AssertionError(f"{type(e).__name__}: {e} for {state}") from None
        quiet(target.compute)  # taken: it computes, or says why not in our words
        target.load_state_dict(pickle.loads(before))
    assert refused > len(broken) // 2
    target.load_state_dict(good)
    assert bits(compute(target)) == bits(compute(m))


def test_repr_says_what_is_kept():
    m = Metric(["roc", "ndcg@10"])
    m.update([1, 0, 1], [0.3, 0.2, 0.1])
    assert repr(m) == "Metric(['ROC', 'NDCG@10'], threshold=0.5, rows=3, kept_rows=3)"
    m = Metric(["roc"], pos_label=2)
    m.update([2, 1, 1], [0.3, 0.2, 0.2])
    assert repr(m) == (
        "Metric(['ROC'], threshold=0.5, pos_label=2, rows=3, "
        "summary=ScoreHistogram(distinct=2, positives=1, negatives=2))"
    )


# -- errors --------------------------------------------------------------------------------------------
def _same_error(measures, before, batch, **kw):
    """evaluate() on the earlier rows plus the batch, and Metric.update(batch) after the earlier
    rows, raise the same error; the Metric's state is unchanged by the failed update."""
    y = list(before[0]) + list(batch[0])
    s = list(before[1]) + list(batch[1])
    whole = {k: list(v[0]) + list(v[1]) for k, v in kw.items()}
    with pytest.raises(perfeval.PerfError) as want:
        perfeval.evaluate(y, s, measures=measures, **whole)
    m = Metric(measures)
    if len(before[0]):
        m.update(*before, **{k: v[0] for k, v in kw.items()})
    state = pickle.dumps(m.state_dict())
    with pytest.raises(type(want.value)) as got:
        m.update(*batch, **{k: v[1] for k, v in kw.items()})
    assert str(got.value) == str(want.value).replace(f"index {len(before[0])}", "index 0")
    assert pickle.dumps(m.state_dict()) == state  # nothing of the batch was kept


@pytest.mark.parametrize(
    ("measures", "before", "batch", "kw"),
    [
        (["roc"], ([], []), ([1, 0], [0.5, float("nan")]), {}),  # NaN score
        (["roc"], ([], []), ([1, 0, 1], [0.5, 0.4]), {}),  # lengths differ
        (["roc"], ([], []), ([0, 1, 2], [0.5, 0.4, 0.3]), {}),  # not a binary coding
        (["roc", "acc"], ([0, 1], [0.5, 0.4]), ([-1], [0.3]), {}),  # {0, 1} then -1: not one coding
        (["ndcg"], ([], []), ([1, -1], [0.5, 0.4]), {}),  # negative relevance
        (["gauc"], ([], []), ([1, 0], [0.5, 0.4]), {}),  # group AUC without groups
        (["ndcg"], ([], []), ([1, 0], [0.5, 0.4]), {"sample_weight": ([], [1.0, 2.0])}),  # weights
        (["roc"], ([], []), ([1, 0], [0.5, 0.4]), {"sample_weight": ([], [1.0, -2.0])}),  # negative
        (["roc"], ([], []), ([1, 0], [0.5, 0.4]), {"groups": ([], [1.0, 1.5])}),  # fractional group id
        (["roc"], ([], []), (["a", "b"], [0.5, 0.4]), {}),  # text targets without pos_label
        (["ndcg"], ([], []), (["a", "b"], [0.5, 0.4]), {}),  # text relevance
    ],
)
def test_bad_input_gives_evaluates_error_and_keeps_the_state(measures, before, batch, kw):
    _same_error(measures, before, batch, **kw)


def test_groups_and_weights_on_every_update_or_none():
    m = Metric(["roc"])
    m.update([1, 0], [0.5, 0.4], groups=[1, 1])
    with pytest.raises(perfeval.InvalidParameterError, match="`groups=` was given to the earlier updates"):
        m.update([1, 0], [0.5, 0.4])
    m = Metric(["roc"])
    m.update([1, 0], [0.5, 0.4])
    with pytest.raises(perfeval.InvalidParameterError, match="`sample_weight=` was given to this update"):
        m.update([1, 0], [0.5, 0.4], sample_weight=[1, 1])
    with pytest.raises(perfeval.InvalidParameterError, match="`groups=` was given to this update"):
        m.update([1, 0], [0.5, 0.4], groups=[1, 1])
    assert m.rows == 2


def test_merge_refuses_what_is_not_the_same_computation():
    a, b = Metric(["roc"]), Metric(["roc", "apr"])
    with pytest.raises(perfeval.InvalidParameterError, match="the measures, their parameters"):
        a.merge(b)
    with pytest.raises(perfeval.InvalidParameterError, match="the measures, their parameters"):
        Metric(["acc"]).merge(Metric(["acc"], threshold=0.3))
    with pytest.raises(perfeval.InvalidParameterError, match="the measures, their parameters"):
        Metric(["roc"], pos_label=1).merge(Metric(["roc"]))
    with pytest.raises(perfeval.InvalidParameterError, match="takes a perfeval.Metric"):
        a.merge(perfeval.ScoreHistogram.empty())  # type: ignore[arg-type]
    a.update([1, 0], [0.5, 0.4])
    c = Metric(["roc"])
    c.update([1, 0], [0.5, 0.4], groups=[1, 1])
    with pytest.raises(perfeval.InvalidParameterError, match="`groups=` was given to the updates of one"):
        a.merge(c)
    d = Metric(["roc"])
    d.update([-1], [0.2])  # {0, 1} and {-1}: no coding of both, evaluate()'s message
    with pytest.raises(perfeval.InvalidDataError, match="needs binary targets"):
        a.merge(d)
    assert a.rows == 2
    with pytest.raises(perfeval.InvalidParameterError, match="at least one"):
        Metric.merge_all([])


def test_positive_label_reads_one_kind_of_labels():
    m = Metric(["roc"], pos_label="1")
    m.update([1, 0], [0.5, 0.4])
    with pytest.raises(perfeval.InvalidDataError, match="holds text in this update and numbers"):
        m.update(["1", "0"], [0.5, 0.4])


def test_unknown_measure_is_the_registrys_error():
    with pytest.raises(perfeval.UnknownMeasureError, match="rocc"):
        Metric(["rocc"])
    with pytest.raises(perfeval.InvalidParameterError, match="NDCG needs `k` a finite number >= 0, got -1"):
        Metric(["ndcg@-1"])  # outside the parameter's domain
    with pytest.raises(perfeval.InvalidParameterError, match="measure named twice: ROC"):
        Metric(["roc", "auc"])


# -- what it reads -------------------------------------------------------------------------------------
class OnlyArray:
    """An array library's object seen through ``__array__`` alone."""

    def __init__(self, a):
        self._a = np.asarray(a)

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


class OnlyDLPack:
    """An array library's object seen through ``__dlpack__`` alone (read by numpy.from_dlpack)."""

    def __init__(self, a):
        self._a = np.asarray(a)

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class DeviceArray:
    """A cupy-like device array: numpy may not read it (``__array__`` refuses, as cupy's does); it
    says where it lives (``__cuda_array_interface__``) and copies itself to the host (``get``)."""

    def __init__(self, a):
        self._a = np.asarray(a)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self._a.shape, "typestr": self._a.dtype.str, "data": (0, False), "version": 3}

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()`")

    def get(self):
        return self._a.copy()


def _column(a):
    return np.asarray(a).reshape(-1, 1)  # a model's (n, 1) output


def test_protocols_and_containers():
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    y = np.array([1, 0, 1, 0, 1])
    s = np.array([0.9, 0.5, 0.5, 0.1, 0.7], dtype=np.float32)
    want = bits(evaluate(y, s.astype(np.float64), ["roc", "acc", "rms"]))
    wraps = (OnlyArray, OnlyDLPack, DeviceArray, pd.Series, pl.Series, pa.array, list, _column)
    for wrap in wraps:
        m = Metric(["roc", "acc", "rms"])
        m.update(wrap(y[:2]), wrap(s[:2]))
        m.update(wrap(y[2:]), wrap(s[2:]))
        assert bits(compute(m)) == want, wrap
    assert not hasattr(OnlyDLPack(s), "__array__")  # the DLPack path is the one taken


def test_kept_arrays_are_copies():
    """A training loop reuses its buffers: what was given is copied, not referenced."""
    y, s, g = np.array([1, 0, 1]), np.array([0.9, 0.5, 0.2]), np.array([1, 1, 2])
    for measures, kw in ((["roc"], {}), (["ndcg"], {"groups": g})):
        m = Metric(measures)
        m.update(y, s, **kw)
        want = bits(compute(Metric.merge_all([m])))
        y2, s2 = y.copy(), s.copy()
        m2 = Metric(measures)
        m2.update(y2, s2, **kw)
        y2[:] = 0
        s2[:] = 0.0
        assert bits(compute(m2)) == want


def test_float16_scores_are_read_exactly():
    s16 = np.array([0.1, 0.3, 0.3, 0.7], dtype=np.float16)
    m = Metric(["roc", "rms"])
    m.update([0, 1, 0, 1], s16)
    assert bits(compute(m)) == bits(evaluate([0, 1, 0, 1], s16.astype(np.float64), ["roc", "rms"]))


torch = importlib.import_module("torch") if importlib.util.find_spec("torch") else None


@pytest.mark.skipif(torch is None, reason="torch is not installed (not in the test extra)")
def test_torch_tensors():
    assert torch is not None
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 2, 64), rng.random(64)
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        t = torch.tensor(s, dtype=dtype, requires_grad=True) * 1  # part of a graph
        exact = t.detach().to(torch.float64).numpy()  # each value as float64, exactly
        m = Metric(["roc", "rms", "acc"])
        m.update(torch.tensor(y[:30]), t[:30])
        m.update(torch.tensor(y[30:]).bool(), t[30:])
        assert bits(compute(m)) == bits(evaluate(y, exact, ["roc", "rms", "acc"])), dtype


#: every way a torch tensor comes out of a loop, and the numpy array it stands for (labels, scores)
TORCH_CASES = {
    "float32": lambda y, s: (torch.tensor(y), torch.tensor(s)),
    "float64": lambda y, s: (torch.tensor(y), torch.tensor(s).double()),
    "bool labels": lambda y, s: (torch.tensor(y).bool(), torch.tensor(s)),
    "int32 labels": lambda y, s: (torch.tensor(y, dtype=torch.int32), torch.tensor(s)),
    "uint8 labels": lambda y, s: (torch.tensor(y, dtype=torch.uint8), torch.tensor(s)),
    "float labels": lambda y, s: (torch.tensor(y, dtype=torch.float32), torch.tensor(s)),
    "requires_grad leaf": lambda y, s: (torch.tensor(y), torch.tensor(s, requires_grad=True)),
    "in a graph": lambda y, s: (torch.tensor(y), torch.tensor(s, requires_grad=True) * 1),
    "column of a matrix": lambda y, s: (
        torch.tensor(np.stack([y, 1 - y], 1))[:, 0],
        torch.tensor(np.stack([s[::-1], s], 1))[:, 1],
    ),
    "every other element": lambda y, s: (
        torch.tensor(np.repeat(y, 2))[::2],
        torch.tensor(np.repeat(s, 2))[1::2],
    ),
    "column vector": lambda y, s: (torch.tensor(y)[:, None], torch.tensor(s)[:, None]),
    "transposed row": lambda y, s: (torch.tensor(y)[None, :].t(), torch.tensor(s)[None, :].t()),
    "negated view": lambda y, s: (torch.tensor(y), torch._neg_view(torch.tensor(-s))),
}


@pytest.mark.skipif(torch is None, reason="torch is not installed (not in the test extra)")
@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_torch_tensors_of_every_kind_give_the_numpy_bits(case):
    """Labels as int, bool, uint8 or float tensors; scores float32 or float64, requiring grad, views
    that are not contiguous, a lazily negated view: each gives what the numpy arrays give."""
    assert torch is not None
    rng = np.random.default_rng(5)
    y, g = rng.integers(0, 2, 300), rng.integers(0, 20, 300)
    s = np.round(rng.random(300), 2).astype(np.float32)  # ties
    yt, st_ = TORCH_CASES[case](y, s)
    s64 = st_.detach().resolve_neg().to(torch.float64).numpy().reshape(-1)
    assert (
        s64.tobytes()
        == s.astype(np.float64 if st_.dtype == torch.float64 else np.float32).astype(np.float64).tobytes()
    )  # the case is the data it says it is
    for measures, kw in (
        (["roc", "apr", "ap", "acc", "rms", "logloss"], {}),
        (["ndcg@10", "map", "mrr", "gauc"], {"groups": g}),
    ):
        m = Metric(measures)
        gt = {"groups": torch.tensor(g)} if kw else {}
        m.update(yt[:100], st_[:100], **{k: v[:100] for k, v in gt.items()})
        m.update(yt[100:], st_[100:], **{k: v[100:] for k, v in gt.items()})
        assert bits(compute(m)) == bits(evaluate(y, s64, measures, **kw)), (case, measures)


@pytest.mark.skipif(torch is None, reason="torch is not installed (not in the test extra)")
def test_torch_float8_scores_are_read_exactly():
    """numpy has no float8: the tensor is read through float32, which holds each of its values."""
    assert torch is not None
    for dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        t = torch.tensor([0.1, 0.3, 0.3, 0.7]).to(dtype)
        exact = t.float().double().numpy()
        m = Metric(["roc", "rms"])
        m.update(torch.tensor([0, 1, 0, 1]), t)
        assert bits(compute(m)) == bits(evaluate([0, 1, 0, 1], exact, ["roc", "rms"])), dtype


@pytest.mark.skipif(torch is None, reason="torch is not installed (not in the test extra)")
def test_torch_tensors_that_hold_no_readable_values_are_refused_with_a_message():
    assert torch is not None
    y = torch.tensor([0, 1, 1])
    cases = [
        (
            y,
            torch.zeros(3, device="meta"),
            r"`y_score` is a torch tensor \(torch.float32, device 'meta'\), "
            r"which holds no values",
        ),
        (torch.zeros(3, dtype=torch.long, device="meta"), torch.zeros(3), r"`y_true` is .*device 'meta'"),
        (
            y,
            torch.tensor([0.1, 0.0, 0.3]).to_sparse(),
            r"`y_score` is .*layout sparse_coo\); perfeval reads "
            r"dense tensors \(.to_dense\(\) makes one",
        ),
        (
            y,
            torch.tensor([0.1, 0.2, 0.3], dtype=torch.complex64),
            r"`y_score` is .*complex64.*complex numbers",
        ),
    ]
    for yt, st_, match in cases:
        for measures in (["roc"], ["ndcg"]):
            m = Metric(measures)
            kw = {"groups": [0, 0, 0]} if measures == ["ndcg"] else {}
            with pytest.raises(perfeval.InvalidDataError, match=match):
                m.update(yt, st_, **kw)
            assert m.rows == 0
        with pytest.raises(perfeval.InvalidDataError, match=match):
            perfeval.evaluate(yt, st_, measures=["roc"])
    for yt, st_ in ((torch.tensor(1), torch.tensor(0.5)), (y, torch.tensor(0.5))):  # 0-dim: not a batch
        with pytest.raises(perfeval.InvalidParameterError, match=r"must be one-dimensional, got shape \(\)"):
            Metric(["roc"]).update(yt, st_)


def test_complex_scores_are_refused_not_cut_to_their_real_part():
    """numpy turns complex into float with only a warning, dropping the imaginary parts."""
    s = np.array([0.1, 0.2, 0.3]) + 1j
    with pytest.raises(perfeval.InvalidDataError, match=r"`y_score` must hold real numbers, got complex"):
        Metric(["roc"]).update([0, 1, 1], s)
    with pytest.raises(perfeval.InvalidDataError, match=r"`y_score` must hold real numbers, got complex"):
        perfeval.evaluate([0, 1, 1], s, measures=["roc"])
    with pytest.raises(
        perfeval.InvalidDataError, match=r"`y_true` must hold labels or real numbers, got complex"
    ):
        perfeval.evaluate(np.array([0, 1, 2]) + 0j, [0.1, 0.2, 0.3], groups=[0, 0, 0], measures=["ndcg"])


jax = importlib.import_module("jax") if importlib.util.find_spec("jax") else None


@pytest.mark.skipif(jax is None, reason="jax is not installed (not in the test extra)")
def test_jax_arrays_give_the_numpy_bits():
    assert jax is not None
    jnp = importlib.import_module("jax.numpy")
    rng = np.random.default_rng(6)
    y, g = rng.integers(0, 2, 300), rng.integers(0, 20, 300)
    s = np.round(rng.random(300), 2).astype(np.float32)
    for dtype in (jnp.float32, jnp.float16, jnp.bfloat16, jnp.float8_e4m3fn):
        js = jnp.asarray(s).astype(dtype)
        exact = np.asarray(js.astype(jnp.float32)).astype(np.float64)  # each value, exactly
        for yj in (jnp.asarray(y), jnp.asarray(y).astype(bool), jnp.asarray(np.stack([y, y], 1))[:, 1]):
            for measures, kw in (
                (["roc", "apr", "acc", "rms"], {}),
                (["ndcg@10", "map", "gauc"], {"groups": g}),
            ):
                m = Metric(measures)
                gj = {"groups": jnp.asarray(g)} if kw else {}
                m.update(yj[:100], js[:100], **{k: v[:100] for k, v in gj.items()})
                m.update(yj[100:], js[100:], **{k: v[100:] for k, v in gj.items()})
                assert bits(compute(m)) == bits(evaluate(y, exact, measures, **kw)), (dtype, measures)
    with pytest.raises(perfeval.InvalidParameterError, match=r"one-dimensional, got shape \(\)"):
        Metric(["roc"]).update(jnp.asarray(1), jnp.asarray(0.5))


def test_importing_perfeval_does_not_import_the_metric():
    code = "import sys, perfeval; print('perfeval.backends.metric' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_using_the_metric_on_numpy_imports_no_array_library():
    """A Metric fed numpy arrays and pandas Series, updated, merged, pickled and computed, and
    evaluate() on the same rows, import neither torch, jax nor cupy (present or not)."""
    code = (
        "import sys, pickle, numpy as np, pandas as pd, perfeval\n"
        "y, s, g = np.array([0, 1, 1, 0] * 50), np.linspace(0, 1, 200), np.repeat(np.arange(20), 10)\n"
        "m = perfeval.Metric(['roc', 'apr', 'acc'])\n"
        "m.update(y[:100], s[:100]); m.update(pd.Series(y[100:]), pd.Series(s[100:]))\n"
        "r = pickle.loads(pickle.dumps(m)).merge(perfeval.Metric(['roc', 'apr', 'acc'])).compute()\n"
        "k = perfeval.Metric(['ndcg@10', 'map', 'gauc'], clustered=True)\n"
        "k.update(y, s.astype(np.float32), groups=g); k.compute()\n"
        "perfeval.evaluate(y, s, measures=['roc', 'ndcg'], groups=g)\n"
        "print(*(lib in sys.modules for lib in ('torch', 'jax', 'cupy', 'tensorflow')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"] * 4


# -- docs/metric.md --------------------------------------------------------------------------------------
def _doc_blocks() -> list[tuple[str, str | None]]:
    """(code, why it is not run) of each python block of docs/metric.md."""
    text = DOC.read_text(encoding="utf-8")
    return [
        (m.group("code"), m.group("why"))
        for m in re.finditer(
            r"(?:<!-- not run: (?P<why>[^>]*) -->\n)?```python\n(?P<code>.*?)```\n", text, re.S
        )
    ]


def test_the_doc_has_python_blocks():
    assert len(_doc_blocks()) >= 3
    assert sum(why is None for _, why in _doc_blocks()) >= 2


@pytest.mark.parametrize("number", range(len(_doc_blocks())))
def test_each_doc_block_runs_and_prints_what_it_shows(number):
    """Each block runs; the comment lines that end a block are what it prints.  A block that
    imports torch is skipped without torch; one marked ``<!-- not run: why -->`` is not run."""
    code, why = _doc_blocks()[number]
    if why is not None:
        pytest.skip(why)
    if re.search(r"^import torch", code, re.M) and torch is None:
        pytest.skip("the example needs torch")
    shown = []
    for line in reversed(code.rstrip("\n").splitlines()):
        if not line.startswith("# "):
            break
        shown.insert(0, line[2:])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, f"docs/metric.md block {number}", "exec"), {})
    if shown:
        assert out.getvalue().splitlines() == shown
    else:
        assert out.getvalue()  # it printed something


# -- clustered=True: groups finished as they end, O(groups) kept ------------------------------------------
def _ids(kind: str, k: int, rng) -> np.ndarray:
    """``k`` distinct group ids of one kind, in a random order (not sorted: the keys are sorted later)."""
    if kind == "small":
        return rng.permutation(3 * k + 1)[:k].astype(np.int64)
    if kind == "int64":  # 64-bit user ids, both signs
        return np.unique(rng.integers(-(2**63), 2**63 - 1, k + 8, dtype=np.int64))[:k][rng.permutation(k)]
    if kind == "uint64":  # ids past 2**63
        return (np.uint64(2**63) + np.unique(rng.integers(0, 2**62, k + 8)).astype(np.uint64))[:k][
            rng.permutation(k)
        ]
    text = np.array([f"u{v:x}" for v in rng.permutation(4 * k + 1)[:k]])
    return text if kind == "text" else text.astype(object)  # "object": pandas' text column


@st.composite
def clustered_data(draw, weights=("none", "whole", "dyadic", "fraction")):
    """Rows clustered by group (one-class groups, a group of one row, ties), and their batches:
    ``whole``: each batch holds whole groups, its rows shuffled; ``running``: cut anywhere, a
    group's rows running on from one batch into the next."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(0, 7))
    ids = _ids(draw(st.sampled_from(["small", "int64", "uint64", "text", "object"])), k, rng)
    sizes = rng.integers(1, 9, k)
    g = np.repeat(ids, sizes)
    n = len(g)
    p = np.repeat(rng.choice([0.0, 0.3, 0.7, 1.0], k), sizes)  # 0 and 1: groups of one class
    y = (rng.random(n) < p).astype(np.int64)
    s = np.round(rng.random(n), draw(st.sampled_from([0, 1, 2, 6])))
    kind = draw(st.sampled_from(weights))
    w = {
        "none": None,
        "whole": rng.integers(0, 4, n).astype(np.float64),  # 0: a dropped case
        "dyadic": rng.integers(0, 5 * 1024, n) / 1024.0,
        "fraction": rng.random(n) * 5,
    }[kind]
    if draw(st.booleans()):  # whole groups in each batch, rows in any order within it
        ends = np.cumsum(sizes)
        cuts = sorted(set(draw(st.lists(st.sampled_from([0, *ends.tolist()]), max_size=5))))
        bounds = [0, *cuts, n]
        order = np.concatenate(
            [rng.permutation(np.arange(a, b)) for a, b in zip(bounds, bounds[1:], strict=False)] or [[]]
        ).astype(np.int64)
        y, s, g = y[order], s[order], g[order]
        w = None if w is None else w[order]
    else:
        cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6)))
        bounds = [0, *cuts, n]
    return y, s, g, w, kind, list(zip(bounds, bounds[1:], strict=False))


def _clustered(measures, y, s, g, w, cuts, **kw) -> Metric:
    m = Metric(measures, clustered=True, **kw)
    for a, b in cuts:
        m.update(y[a:b], s[a:b], groups=g[a:b], **({} if w is None else {"sample_weight": w[a:b]}))
    return m


def _grouped_cases(kind: str) -> list[tuple[list[str], bool]]:
    """(measures, weighted) of every clustered Metric the registry allows for this weight kind."""
    binary = [spec(m) for m in (FRACTIONAL if kind in ("dyadic", "fraction") else BINARY)]
    out = [(binary, kind != "none")]
    if kind == "none":
        out.append(([spec(m) for m in RANKING + GROUPED], False))
        out.append((["gauc", "ndcg@3", "roc", "acc"], False))  # both kinds in one report
    return out


def _same_report(got, want):
    assert bits(got) == bits(want)
    assert list(got.results) == list(want.results)  # in evaluate()'s order
    if want.groups is not None and len(want.groups):  # (no group: an empty array of any dtype)
        assert np.asarray(got.groups).dtype == np.asarray(want.groups).dtype
    assert got.params == {**want.params, "backend": "metric"}


@settings(deadline=None)
@given(clustered_data())
def test_clustered_equals_evaluate_bit_for_bit(d):
    """Whatever the weights and the batches (whole groups, or groups running on into the next
    batch): evaluate() on the concatenated rows, every value, mean, per-group value and warning."""
    y, s, g, w, kind, cuts = d
    for measures, weighted in _grouped_cases(kind):
        ww = w if weighted else None
        with warnings.catch_warnings(record=True) as got_warned:
            warnings.simplefilter("always")
            got = _clustered(measures, y, s, g, ww, cuts).compute()
        with warnings.catch_warnings(record=True) as want_warned:
            warnings.simplefilter("always")
            want = perfeval.evaluate(y, s, groups=g, sample_weight=ww, measures=measures)
        _same_report(got, want)
        # every warning the same, in the same order, of the same class (the groups whose rows all
        # weigh 0, ZeroWeightGroupsWarning, first)
        assert [(x.category, str(x.message)) for x in got_warned] == [
            (x.category, str(x.message)) for x in want_warned
        ]


@settings(deadline=None)
@given(clustered_data(weights=("none",)))
def test_clustered_graded_relevance_and_a_positive_label(d):
    y, s, g, _, _, cuts = d
    rel = (y * (1 + np.arange(len(y)) % 3)).astype(np.float64)  # grades 0..3
    measures = [spec(m) for m in RANKING + GROUPED]
    _same_report(
        quiet(_clustered(measures, rel, s, g, None, cuts).compute), evaluate(rel, s, measures, groups=g)
    )
    labels = np.where(y == 1, "click", "skip")
    if (labels == "click").any():  # else evaluate()'s error: tested below
        for measures in (["gauc", "roc", "acc"], ["gauc", "ndcg@3", "roc"]):
            yy = labels if "NDCG@3" not in Metric(measures).measures else y
            got = quiet(
                _clustered(measures, yy, s, g, None, cuts, pos_label="click" if yy is labels else 1).compute
            )
            want = evaluate(yy, s, measures, groups=g, pos_label="click" if yy is labels else 1)
            _same_report(got, want)


@settings(deadline=None)
@given(clustered_data(), st.randoms(use_true_random=False))
def test_clustered_merge_in_any_order_is_exact(d, rnd):
    """Each Metric holds whole groups (its last one open): merged in any order, by merge, merge_all
    or as a tree, evaluate() on all the rows, bit for bit, whatever the weights (a group is finished
    on one side only, and the means are taken over the groups in key order at the end)."""
    y, s, g, w, kind, cuts = d
    for measures, weighted in _grouped_cases(kind):
        ww = w if weighted else None
        keys = list(dict.fromkeys(g.tolist()))  # the groups in their order
        owner = {k: rnd.randrange(3) for k in keys}
        parts = []
        for i in range(3):
            # this Metric's groups, each one's rows together (in their order), cut anywhere
            rows = np.array(
                [j for key in keys if owner[key] == i for j, k in enumerate(g.tolist()) if k == key],
                dtype=np.int64,
            )
            n = len(rows)
            cut = sorted({rnd.randrange(n + 1) for _ in range(2)}) if n else []
            bounds = [0, *cut, n]
            sub = (y[rows], s[rows], g[rows], None if ww is None else ww[rows])
            parts.append(_clustered(measures, *sub, list(zip(bounds, bounds[1:], strict=False))))
        before = [bits(quiet(p.compute)) for p in parts]
        want = evaluate(y, s, measures, groups=g, sample_weight=ww)
        rnd.shuffle(parts)
        one = Metric(measures, clustered=True)
        for p in parts:
            one.merge(p)
        tree = Metric.merge_all([Metric.merge_all(parts[:2]), parts[2]])
        for got in (one, Metric.merge_all(parts), tree):
            _same_report(quiet(got.compute), want)
        assert sorted(map(str, before)) == sorted(str(bits(quiet(p.compute))) for p in parts)  # unchanged


def test_a_group_that_comes_again_is_an_error_naming_it():
    for ids in ([7, 8, 9], [2**62 + 7, -5, 3], ["u7", "u8", "u9"]):
        m = Metric(["gauc", "ndcg"], clustered=True)
        m.update([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.3], groups=[ids[0], ids[0], ids[1], ids[1]])
        m.update([0, 1], [0.2, 0.5], groups=[ids[1], ids[1]])  # the open group runs on: fine
        m.update([1, 0], [0.2, 0.5], groups=[ids[2], ids[2]])
        state = pickle.dumps(m.state_dict())
        # ended before the open group, after it (the open one running on), alone
        for again, name in (([ids[0], ids[2]], ids[0]), ([ids[2], ids[1]], ids[1]), ([ids[1]], ids[1])):
            with pytest.raises(perfeval.InvalidDataError, match=re.escape(f"group {name!r} comes again")):
                m.update([1] * len(again), [0.5] * len(again), groups=again)
            assert pickle.dumps(m.state_dict()) == state  # nothing of the batch was kept
        m.update([1, 0], [0.6, 0.5], groups=[ids[2], ids[2]])  # still open: it runs on
        y = [1, 0, 1, 0, 0, 1, 1, 0, 1, 0]
        s = [0.9, 0.1, 0.4, 0.3, 0.2, 0.5, 0.2, 0.5, 0.6, 0.5]
        g = [ids[i] for i in (0, 0, 1, 1, 1, 1, 2, 2, 2, 2)]
        _same_report(quiet(m.compute), evaluate(y, s, ["gauc", "ndcg"], groups=g))


def test_a_group_in_both_merged_metrics_is_an_error_naming_it():
    def made(*batches):
        m = Metric(["gauc"], clustered=True)
        for g in batches:
            m.update([1, 0] * (len(g) // 2), [0.5, 0.2] * (len(g) // 2), groups=g)
        return m

    a = made(["a", "a", "b", "b"])  # a finished, b open
    for other, name in (
        (made(["a", "a"]), "a"),  # finished here, open there
        (made(["b", "b", "c", "c"]), "b"),  # open here, finished there
        (made(["c", "c", "b", "b"]), "b"),  # open on both sides
        (made(["a", "a", "c", "c"]), "a"),
    ):
        before = (pickle.dumps(a.state_dict()), pickle.dumps(other.state_dict()))
        for x, y in ((a, other), (other, a)):
            with pytest.raises(perfeval.InvalidDataError, match=f"group '{name}' is in both Metrics"):
                x.merge(y)
        with pytest.raises(perfeval.InvalidDataError, match=f"group '{name}' is in both Metrics"):
            Metric.merge_all([other, a])
        assert (pickle.dumps(a.state_dict()), pickle.dumps(other.state_dict())) == before
    a.merge(made(["c", "c", "d", "d"]))  # disjoint: fine; a's own open group stays open
    a.update([0, 1], [0.9, 0.1], groups=["b", "b"])
    want = evaluate([1, 0] * 4 + [0, 1], [0.5, 0.2] * 4 + [0.9, 0.1], ["gauc"], groups=list("aabbccddbb"))
    _same_report(quiet(a.compute), want)


def _stored_bytes(state) -> int:
    """Bytes of every array in a state_dict (what a checkpoint holds), counted apart from nbytes."""
    total = 0
    stack = [state]
    while stack:
        x = stack.pop()
        if isinstance(x, np.ndarray):
            objects = {id(v): v for v in x.tolist()}.values() if x.dtype.kind == "O" else ()
            total += x.nbytes + sum(sys.getsizeof(v) for v in objects)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
    return total


@pytest.mark.parametrize("ids", ["int64", "text"])
def test_clustered_state_is_bounded_by_the_groups_not_the_rows(ids):
    """The same 500 groups with 20 or 400 rows each (and the same last, open group): the same
    state to the byte, 8 bytes per group for its key (text: its characters), its size and each
    measure's value, plus the open group's rows."""
    rng = np.random.default_rng(11)
    keys = _ids(ids, 501, rng)
    measures = ["gauc", "ndcg@10", "map", "roc"]
    sizes = []
    for per_group in (20, 400):
        n = np.r_[np.full(500, per_group), 7]
        g = np.repeat(keys, n)
        y, s = rng.integers(0, 2, len(g)), rng.random(len(g)).astype(np.float32)
        m = Metric(measures, clustered=True)
        for a in range(0, len(g), 5 * per_group):  # five whole groups a batch
            m.update(y[a : a + 5 * per_group], s[a : a + 5 * per_group], groups=g[a : a + 5 * per_group])
        assert m.rows == len(g) and repr(m).endswith("groups=500, open_rows=7)")
        state = m.state_dict()  # the finished groups in one sorted run
        assert m.nbytes == _stored_bytes(state)
        sizes.append(m.nbytes)
        per_key = 8 if ids == "int64" else 4 * max(len(v) for v in keys[:500].tolist())  # numpy text
        open_rows = 7 * (8 + 8 + g.itemsize)  # targets, scores as float64, ids: one group's rows
        labels = 16  # the targets seen, 0 and 1
        assert m.nbytes == 500 * (per_key + 8 + 8 * len(measures)) + open_rows + labels, ids
    assert sizes[0] == sizes[1]


def test_kept_rows_are_stored_compactly():
    """Without clustered=True every row is kept, exactly, but narrow: 0/1 int64 targets in one byte,
    float32 scores in four, 64-bit ids as int32 codes into one sorted vocabulary."""
    rng = np.random.default_rng(4)
    n, k = 100_000, 1_000
    users = rng.integers(-(2**63), 2**63 - 1, k, dtype=np.int64)
    g = users[rng.integers(0, k, n)]
    y, s = rng.integers(0, 2, n), rng.random(n).astype(np.float32)
    m = Metric(["gauc", "ndcg@10"])
    for a in range(0, n, 4096):
        m.update(y[a : a + 4096], s[a : a + 4096], groups=g[a : a + 4096])
    # 1 + 4 + 4 bytes a row, and each distinct id once per part (a few parts), not 8 + 8 + 8 a row
    parts = len(m._kept._parts)
    assert parts <= 6
    assert n * (1 + 4 + 4) < m.nbytes <= n * (1 + 4 + 4) + 8 * k * parts + 16
    assert m.nbytes == _stored_bytes(m.state_dict())
    _same_report(quiet(m.compute), evaluate(y, s.astype(np.float64), ["gauc", "ndcg@10"], groups=g))
    w = rng.integers(1, 4, n).astype(np.float64)  # whole weights: one byte a row
    m = Metric(["roc"])
    m.update(y, s, groups=g.astype(str), sample_weight=w)
    assert m.nbytes <= n * (1 + 4 + 4 + 1) + k * 4 * 21 + 16  # ids as text: 21 characters
    _same_report(
        quiet(m.compute), evaluate(y, s.astype(np.float64), ["roc"], groups=g.astype(str), sample_weight=w)
    )


@settings(deadline=None)
@given(st.data())
def test_a_kept_column_reads_back_exactly(data):
    """Any column narrowed, coded or joined reads back as np.concatenate of what was given, bit for bit."""
    from perfeval.backends.metric_state import Column

    def column():
        kind = data.draw(
            st.sampled_from(["int64", "uint64", "int32", "float64", "float32", "bool", "text", "object"])
        )
        n = data.draw(st.integers(0, 20))
        if kind in ("int64", "uint64", "int32"):
            dt = np.dtype(kind)
            big = data.draw(st.booleans())
            lo, hi = (int(np.iinfo(dt).min), int(np.iinfo(dt).max)) if big else (0, 3)
            return np.array(data.draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)), dtype=dt)
        if kind in ("float64", "float32"):
            vals = data.draw(
                st.lists(
                    st.sampled_from(
                        [0.0, -0.0, 1.0, 2.0, 0.5, 1e-300, 3e38, 1e40, np.nan, 300.0, 70000.0, 0.1]
                    ),
                    min_size=n,
                    max_size=n,
                )
            )
            with np.errstate(over="ignore"):  # 1e40 is inf in float32
                return np.array(vals, dtype=np.float64).astype(kind)
        if kind == "bool":
            return np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        vals = data.draw(st.lists(st.sampled_from(["a", "bb", "", "a\x00", "é"]), min_size=n, max_size=n))
        return np.array(vals, dtype=object if kind == "object" else str)

    parts = [column() for _ in range(data.draw(st.integers(1, 4)))]
    numeric = all(p.dtype.kind in "biuf" for p in parts)
    textual = all(p.dtype.kind in "UO" for p in parts)
    if not (numeric or textual):
        parts = parts[:1]

    def same(a, b):
        assert a.dtype == b.dtype
        if a.dtype.kind == "f":
            assert a.view(f"u{a.itemsize}").tolist() == b.view(f"u{b.itemsize}").tolist()
        else:
            assert a.tolist() == b.tolist()

    cols = [Column.of_values(p) for p in parts]
    for p, c in zip(parts, cols, strict=True):
        same(c.decode(), p)
        assert c.decode() is not p
    joined = cols[0]
    for c in cols[1:]:
        joined = Column.join(joined, c)
    same(joined.decode(), np.concatenate(parts))
    # group ids: text, or integers that numpy joins as integers (Metric refuses the others)
    if textual or (all(p.dtype.kind in "iu" for p in parts) and np.concatenate(parts).dtype.kind in "iu"):
        groups = [Column.of_groups(p) for p in parts]
        joined = groups[0]
        for c in groups[1:]:
            joined = Column.join(joined, c)
        same(joined.decode(), np.concatenate(parts))


def test_clustered_life_pickle_reset_and_nothing_seen():
    rng = np.random.default_rng(9)
    g = np.repeat(np.array(["q3", "q1", "q2", "q5"]), [30, 40, 25, 5])
    y, s = rng.integers(0, 3, 100), rng.random(100).round(2)
    measures = ["ndcg@5", "map", "mrr"]
    m = Metric(measures, clustered=True)
    m.update(y[:50], s[:50], groups=g[:50])  # q1 runs on into the next batch
    copy = pickle.loads(pickle.dumps(m))
    other = Metric(measures, clustered=True)
    other.load_state_dict(pickle.loads(pickle.dumps(m.state_dict())))
    for x in (m, copy, other):
        x.update(y[50:], s[50:], groups=g[50:])
        _same_report(quiet(x.compute), evaluate(y, s, measures, groups=g))
        _same_report(quiet(x.compute), evaluate(y, s, measures, groups=g))  # computing changes nothing
    assert (
        repr(copy)
        == repr(m)
        == "Metric(['NDCG@5', 'MAP', 'MRR'], threshold=0.5, clustered=True, rows=100, groups=3, open_rows=5)"
    )
    m.reset()
    assert m.rows == 0 and m.nbytes == 0
    m.update(y[:30], s[:30], groups=g[:30])  # the groups seen before the reset are new again
    _same_report(quiet(m.compute), evaluate(y[:30], s[:30], measures, groups=g[:30]))
    nothing = Metric(["gauc", "roc"], clustered=True)
    _same_report(quiet(nothing.compute), evaluate([], [], ["gauc", "roc"], groups=[]))
    for measures in (["roc"], ["ndcg@10"]):  # clustered: groups, even before the first update
        _same_report(quiet(Metric(measures, clustered=True).compute), evaluate([], [], measures, groups=[]))
    nothing.update([], [], groups=[])
    _same_report(quiet(nothing.compute), evaluate([], [], ["gauc", "roc"], groups=[]))
    weightless = Metric(["roc"], clustered=True)
    weightless.update([1, 0], [0.5, 0.4], groups=[1, 1], sample_weight=[0.0, 0.0])  # no case at all
    _same_report(
        quiet(weightless.compute),
        evaluate([1, 0], [0.5, 0.4], ["roc"], groups=[1, 1], sample_weight=[0.0, 0.0]),
    )


def test_clustered_weight_zero_rows_are_no_cases():
    m = Metric(["roc", "acc"], clustered=True)
    m.update([1, 0, 1], [0.5, 0.4, 0.3], groups=[1, 1, 2], sample_weight=[0.0, 0.0, 1.0])
    m.update([1, 0], [0.5, 0.4], groups=[1, 1], sample_weight=[1.0, 2.0])  # 1 had no case before
    want = evaluate(
        [1, 0, 1, 1, 0],
        [0.5, 0.4, 0.3, 0.5, 0.4],
        ["roc", "acc"],
        groups=[1, 1, 2, 1, 1],
        sample_weight=[0, 0, 1, 1, 2],
    )
    _same_report(quiet(m.compute), want)
    assert m.rows == 5


def test_clustered_refuses_what_it_cannot_do_exactly():
    with pytest.raises(perfeval.InvalidParameterError, match="pass `groups=` to every update"):
        Metric(["roc"], clustered=True).update([1, 0], [0.5, 0.4])
    with pytest.raises(perfeval.InvalidParameterError, match="clustered must be True or False, got 'yes'"):
        Metric(["roc"], clustered="yes")  # type: ignore[arg-type]
    a, b = Metric(["gauc"], clustered=True), Metric(["gauc"])
    for x, y in ((a, b), (b, a)):
        with pytest.raises(perfeval.InvalidParameterError, match="clustered=True and one made without"):
            x.merge(y)
    with pytest.raises(perfeval.InvalidParameterError, match="the state is of a Metric with clustered=False"):
        a.load_state_dict(b.state_dict())
    m = Metric(["gauc"], pos_label="yes", clustered=True)
    m.update(["no", "maybe"], [0.1, 0.2], groups=[1, 1])  # no positive yet: an error only when computed
    with pytest.raises(perfeval.InvalidDataError) as want:
        perfeval.evaluate(["no", "maybe"], [0.1, 0.2], groups=[1, 1], measures=["gauc"], pos_label="yes")
    with pytest.raises(perfeval.InvalidDataError) as got:
        m.compute()
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("clustered", [False, True])
def test_group_ids_of_two_kinds_across_updates_are_refused(clustered):
    """numpy would join 1 and 'a' as the text '1' and 'a', and int64 with uint64 ids as floats."""
    m = Metric(["gauc"], clustered=clustered)
    m.update([1, 0], [0.5, 0.4], groups=[1, 1])
    state = pickle.dumps(m.state_dict())
    with pytest.raises(perfeval.InvalidDataError, match="`groups` holds text in this update and integers"):
        m.update([1, 0], [0.5, 0.4], groups=["a", "a"])
    with pytest.raises(perfeval.InvalidDataError, match="uint64 ids in this update and int64 .* as float64"):
        m.update([1, 0], [0.5, 0.4], groups=np.array([2**63, 2**63], dtype=np.uint64))
    assert pickle.dumps(m.state_dict()) == state
    m.update([1, 0], [0.5, 0.4], groups=np.array([2, 2], dtype=np.int32))  # integers of another width: fine
    m.update([], [], groups=[])  # no id: no kind
    other = Metric(["gauc"], clustered=clustered)
    other.update([1, 0], [0.5, 0.4], groups=["b", "b"])
    with pytest.raises(
        perfeval.InvalidDataError,
        match="`groups` holds text in the Metric merged in and integers in this one",
    ):
        m.merge(other)
    _same_report(quiet(m.compute), evaluate([1, 0] * 2, [0.5, 0.4] * 2, ["gauc"], groups=[1, 1, 2, 2]))


def test_a_version_1_state_loads():
    """States written before the compact layout (the rows as given) load and compute the same."""
    rng = np.random.default_rng(3)
    y, s, g = rng.integers(0, 2, 200), rng.random(200), rng.integers(0, 9, 200)
    m = Metric(["gauc", "roc"])
    m.update(y, s, groups=g)
    old = {k: v for k, v in m.state_dict().items() if k not in ("clustered", "group_dtype", "groups", "open")}
    old.update(version=1, kept=(y, s, g, None))
    loaded = Metric(["gauc", "roc"])
    loaded.load_state_dict(old)
    _same_report(quiet(loaded.compute), evaluate(y, s, ["gauc", "roc"], groups=g))
    loaded.update(y, s, groups=g + 100)
    _same_report(
        quiet(loaded.compute), evaluate(np.r_[y, y], np.r_[s, s], ["gauc", "roc"], groups=np.r_[g, g + 100])
    )


def test_clustered_reads_array_libraries():
    import pandas as pd
    import polars as pl

    y = np.array([1, 0, 1, 0, 1, 1])
    s = np.array([0.9, 0.5, 0.5, 0.1, 0.7, 0.2], dtype=np.float32)
    g = np.array(["a", "a", "b", "b", "c", "c"])
    want = evaluate(y, s.astype(np.float64), ["gauc", "roc"], groups=g)
    for wrap, gwrap in (
        (OnlyDLPack, list),
        (DeviceArray, pd.Series),
        (pd.Series, pd.Series),
        (pl.Series, pl.Series),
        (_column, np.asarray),
    ):
        m = Metric(["gauc", "roc"], clustered=True)
        m.update(wrap(y[:3]), wrap(s[:3]), groups=gwrap(g[:3].tolist()))
        m.update(wrap(y[3:]), wrap(s[3:]), groups=gwrap(g[3:].tolist()))
        got = quiet(m.compute)
        assert bits(got) == bits(want), wrap


@pytest.mark.skipif(torch is None, reason="torch is not installed (not in the test extra)")
def test_clustered_torch_tensors():
    assert torch is not None
    rng = np.random.default_rng(2)
    y, s, g = rng.integers(0, 2, 64), rng.random(64), np.repeat(np.arange(8) * 2**40, 8)
    t = torch.tensor(s, dtype=torch.float32, requires_grad=True) * 1
    m = Metric(["gauc", "ndcg@5"], clustered=True)
    m.update(torch.tensor(y[:30]), t[:30], groups=torch.tensor(g[:30]))
    m.update(torch.tensor(y[30:]), t[30:], groups=torch.tensor(g[30:]))
    exact = t.detach().to(torch.float64).numpy()
    _same_report(quiet(m.compute), evaluate(y, exact, ["gauc", "ndcg@5"], groups=g))


@settings(deadline=None)
@given(data(), st.sampled_from(["int32", "int64", "text", "object"]), st.booleans())
def test_kept_rows_in_many_parts_read_back_as_one(d, ids, bool_targets):
    """Parts that stop joining (a cap of 4 rows here) are read back into one array per column, cast
    as np.concatenate casts the batches: ids of two widths, targets as booleans and integers."""
    from perfeval.backends.metric_state import KeptRows

    y, s, g, w, kind, cuts = d
    if not len(y):
        return  # no update: no groups (the tests above hold it)
    gg = {
        "int32": g.astype(np.int32),
        "int64": g,
        "text": g.astype(str),
        "object": g.astype(str).astype(object),
    }[ids]
    cap = KeptRows.JOIN_ROWS
    KeptRows.JOIN_ROWS = 4
    try:
        for measures, weighted in _cases(kind, True):
            ww = w if weighted else None
            m = Metric(measures)
            yy = []
            # (an empty batch's ids have no kind: its dtype is not the report's concern)
            for i, (a, b) in enumerate([(a, b) for a, b in cuts if b > a]):
                yb = y[a:b].astype(bool) if bool_targets and i % 2 else y[a:b]
                gb = gg[a:b].astype(np.int64) if ids == "int32" and i % 2 else gg[a:b]
                m.update(yb, s[a:b], groups=gb, **({} if ww is None else {"sample_weight": ww[a:b]}))
                yy.append((yb, gb))
            y_all = np.concatenate([p[0] for p in yy]) if yy else y
            g_all = np.concatenate([p[1] for p in yy]) if yy else gg
            largest = max((b - a for a, b in cuts), default=0)
            assert max((len(p) for p in m._kept._parts), default=0) <= max(4, largest)  # the cap held
            _same_report(quiet(m.compute), evaluate(y_all, s, measures, groups=g_all, sample_weight=ww))
    finally:
        KeptRows.JOIN_ROWS = cap


# -- a failed call changes nothing (issue 30) ---------------------------------------------------------------
def _inside(m: Metric) -> bytes:
    """Everything a Metric holds, its batches not yet folded into the summary and its kept parts as
    they are (not state_dict(), which folds them): equal bytes, equal state."""
    return pickle.dumps({k: v for k, v in vars(m).items() if k != "_specs"})  # (the measures: not state)


def _fed(measures, batches, **kw) -> Metric:
    m = Metric(measures, **kw)
    for y, s, extra in batches:
        m.update(y, s, **extra)
    return m


#: (Metric's arguments, the batches of the Metric, the failing batch or Metric, how it is given)
_TEXT = np.array(["no", "yes", "no"])
_BYTES = np.array([b"no", b"yes", b"yes"])
_OBJ_INTS = np.array([0, 1, 1], dtype=object)
FAILING = [
    # numpy joins text and bytes as text (b"yes" becomes "yes"): each batch's coding is not the whole's
    (
        {"measures": ["roc"], "pos_label": "yes"},
        [(_TEXT, [0.2, 0.8, 0.5], {})],
        (_BYTES, [0.3, 0.7, 0.5], {}),
    ),
    (
        {"measures": ["gauc"], "pos_label": "yes"},
        [(_TEXT, [0.2, 0.8, 0.5], {"groups": [1, 1, 2]})],
        (_BYTES, [0.3, 0.7, 0.5], {"groups": [3, 3, 3]}),
    ),  # fmt: skip
    # group ids: Python integers, then text (one object column evaluate() refuses, "mixes")
    (
        {"measures": ["ndcg"]},
        [([1, 0, 2], [0.2, 0.8, 0.5], {"groups": _OBJ_INTS})],
        ([1, 0, 1], [0.3, 0.7, 0.5], {"groups": np.array(["a", "b", "b"], dtype=object)}),
    ),  # fmt: skip
    (
        {"measures": ["gauc"], "clustered": True},
        [([1, 0, 1], [0.2, 0.8, 0.5], {"groups": _OBJ_INTS})],
        ([1, 0, 1], [0.3, 0.7, 0.5], {"groups": np.array(["a", "b", "b"])}),
    ),  # fmt: skip
    (
        {"measures": ["roc", "ndcg"]},
        [([1, 0, 1], [0.2, 0.8, 0.5], {"groups": np.array(["a", "a", "b"])})],
        ([1, 0, 1], [0.3, 0.7, 0.5], {"groups": _OBJ_INTS}),
    ),  # fmt: skip
    # {0, 1} and then {-1}: no binary coding of the three labels
    (
        {"measures": ["roc", "acc"]},
        [([0, 1, 1], [0.2, 0.8, 0.5], {}), ([1, 0], [0.1, 0.9], {})],
        ([-1, 1], [0.3, 0.7], {}),
    ),  # fmt: skip
    # a group already finished
    (
        {"measures": ["gauc"], "clustered": True},
        [([1, 0, 1, 0], [0.2, 0.8, 0.5, 0.4], {"groups": [1, 1, 2, 2]})],
        ([1, 0], [0.3, 0.7], {"groups": [1, 1]}),
    ),  # fmt: skip
]


@pytest.mark.parametrize("how", ["update", "merge", "merge_all"])
@pytest.mark.parametrize("case", range(len(FAILING)))
def test_a_failed_update_or_merge_changes_nothing(case, how):
    """The call raises one line of perfeval's errors (never numpy's TypeError), the Metric holds
    the same bytes as before it (the batches waiting, the summary, the kept parts, the finished
    groups), computes what a Metric never given the bad batch computes, and goes on working; the
    Metric merged in and every Metric given to merge_all are unchanged too."""
    args, batches, (y, s, extra) = FAILING[case]
    args = dict(args)
    measures = args.pop("measures")
    m = _fed(measures, batches, **args)
    twin = _fed(measures, batches, **args)
    inside = _inside(m)
    if how == "update":
        with pytest.raises(perfeval.PerfError) as e:
            m.update(y, s, **extra)
    else:
        other = _fed(measures, [(y, s, extra)], **args)  # fine alone: refused together
        theirs = _inside(other)
        with pytest.raises(perfeval.PerfError) as e:
            m.merge(other) if how == "merge" else Metric.merge_all([m, other])
        assert _inside(other) == theirs
    assert "\n" not in str(e.value)
    assert _inside(m) == inside
    assert bits(quiet(m.compute)) == bits(quiet(twin.compute))
    y, s, extra = batches[0]  # and it goes on: a batch like the first, its groups (if any) new ones
    extra = {k: _new_ids(v) if k == "groups" else v for k, v in extra.items()}
    m.update(y, s, **extra)
    twin.update(y, s, **extra)
    assert bits(quiet(m.compute)) == bits(quiet(twin.compute))


def _new_ids(g):
    """Group ids like ``g`` (the same kind and dtype), none of them among ``g``'s."""
    g = np.asarray(g)
    if g.dtype.kind == "O" and isinstance(g[0], str) or g.dtype.kind == "U":
        return np.array([f"new{v}" for v in g.tolist()], dtype=g.dtype if g.dtype.kind == "O" else None)
    return (g + 100).astype(g.dtype)


def test_merge_all_leaves_every_metric_as_it_was():
    """merge_all() read the first Metric through state_dict(), which folded its batches into its
    summary: a change of a Metric the call should leave alone (and left so when it failed)."""
    a, b = Metric(["roc", "acc"]), Metric(["roc", "acc"])
    a.update([1, 0, 1], [0.2, 0.8, 0.5])
    a.update([0, 1], [0.1, 0.9])
    b.update([1, 0], [0.3, 0.3])
    before = _inside(a), _inside(b)
    merged = Metric.merge_all([a, b])
    assert (_inside(a), _inside(b)) == before
    want = evaluate([1, 0, 1, 0, 1, 1, 0], [0.2, 0.8, 0.5, 0.1, 0.9, 0.3, 0.3], ["roc", "acc"])
    _same_report(quiet(merged.compute), want)
    bad = Metric(["roc", "acc"])
    bad.update([-1], [0.5])
    with pytest.raises(perfeval.InvalidDataError, match="needs binary targets"):
        Metric.merge_all([a, b, bad])
    assert (_inside(a), _inside(b)) == before


@pytest.mark.parametrize(
    "batches",
    [
        [np.array(["no", "yes"]), np.array([0, 1], dtype=object)],  # text, then Python integers
        [np.array(["no", 1, "yes"], dtype=object), np.array(["yes", "no"])],  # a mixed object column
        [np.array([False, True], dtype=object), np.array(["maybe", "yes"], dtype=object)],
        [np.array(["no", 2], dtype=object), np.array([1.5, "no"], dtype=object)],  # no "yes" at all
    ],
)
@pytest.mark.parametrize("measures", [["roc", "acc"], ["gauc"]])
def test_labels_of_several_python_types_with_a_positive_label_are_evaluates(batches, measures):
    """With pos_label, text and Python objects of any types are one kind of labels, as evaluate()
    codes their concatenation (an object column): the positive label 1, every other 0.  numpy
    cannot sort such labels (a TypeError once raised by update and merge); the Metric's numbers, or
    its error, are evaluate()'s, updated and merged."""
    rng = np.random.default_rng(len(batches[0]))
    parts = [
        (y, np.round(rng.random(len(y)), 1), np.arange(len(y)) % 2 + 10 * k) for k, y in enumerate(batches)
    ]
    y = np.concatenate([p[0] for p in parts])
    s = np.concatenate([p[1] for p in parts])
    g = np.concatenate([p[2] for p in parts])
    kw = {"groups": g} if "gauc" in measures else {}
    try:
        want = bits(evaluate(y, s, measures, pos_label="yes", **kw))
    except perfeval.PerfError as e:
        want = str(e)
    one = Metric(measures, pos_label="yes")
    workers = []
    for yy, ss, gg in parts:
        extra = {"groups": gg} if kw else {}
        one.update(yy, ss, **extra)
        w = Metric(measures, pos_label="yes")
        w.update(yy, ss, **extra)
        workers.append(w)
    for m in (one, Metric.merge_all(workers), workers[0].merge(workers[1])):
        try:
            got = bits(quiet(m.compute))
        except perfeval.PerfError as e:
            got = str(e)
        assert got == want


# -- dialects: another tool's numbers, batch by batch (issue 30) --------------------------------------------
#: (dialect, measures, targets, groups, weights, document ids): every dialect, measures it defines,
#: on the data its tool takes (weights with zeros where it takes weights: Spark counts their scores)
DIALECT_CASES = [
    ("sklearn", ["roc", "ap", "logloss", "brier"], "binary", False, True, False),
    ("sklearn", ["ndcg", "dcg@3"], "graded", True, False, False),
    ("sklearn", ["roc", "ap"], "binary", True, True, False),  # each group's value, then their mean
    ("trec_eval", ["map", "ndcg", "p@3", "mrr", "bpref"], "graded", True, False, True),
    ("trec_eval:version=10", ["map", "ndcg@5", "success@2"], "graded", True, False, True),
    ("ranx", ["map", "ndcg", "mrr", "p@3", "rprec"], "graded", True, False, False),
    ("ranx:sorts=2", ["map", "ndcg@5"], "graded", True, False, False),
    ("torchmetrics", ["roc", "ap"], "binary", False, False, False),
    ("torchmetrics:thresholds=20", ["roc", "ap"], "binary", False, False, False),
    ("torchmetrics:empty_target_action=skip", ["ndcg@3"], "graded", True, False, False),
    ("torchmetrics", ["gauc_unweighted"], "binary", True, False, False),
    ("spark", ["roc", "ap"], "binary", False, True, False),
    ("spark:numBins=7", ["roc", "ap"], "binary", True, True, False),
    ("keras", ["roc", "ap"], "binary", False, True, False),
    ("keras:num_thresholds=30:summation_method=majoring", ["roc", "ap"], "binary", False, False, False),
    ("din", ["gauc", "gauc_unweighted"], "binary", True, False, False),
    ("din", ["roc"], "binary", False, False, False),
    ("perf", ["acc", "roc", "apr", "rms", "prf", "ca1"], "binary", False, False, False),
]


def _dialect_data(seed: int, targets: str, n: int = 160):
    """Rows with heavy ties (scores in tenths), queries of 2 rows or more (about 18: ranx orders
    ties its own way above 15) spread over the input (a query's rows in several batches), unique
    document ids, whole weights with zeros."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(9), 2)
    q = rng.permutation(np.concatenate([q, rng.integers(0, 9, n - len(q))]))
    g = np.array([f"q{v:02d}" for v in q])
    y = rng.integers(0, 3 if targets == "graded" else 2, n)
    s = np.round(rng.random(n), 1)
    ids = np.array([f"d{v}" for v in rng.permutation(3 * n)[:n]])  # "d10" < "d9" as text
    w = rng.integers(0, 3, n).astype(np.float64)
    cuts = np.sort(rng.choice(np.arange(1, n), size=5, replace=False))
    return y, s, g, ids, w, [0, *cuts.tolist(), n]


def _dialect_kw(grouped, weighted, with_ids, g, w, ids, a=0, b=None):
    kw = {}
    if grouped:
        kw["groups"] = g[a:b]
    if weighted:
        kw["sample_weight"] = w[a:b]
    if with_ids:
        kw["ids"] = ids[a:b]
    return kw


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "case", DIALECT_CASES, ids=lambda c: f"{c[0]}-{','.join(c[1])}" if isinstance(c, tuple) else ""
)
def test_a_dialect_metric_is_evaluates_and_the_commands(case, seed, tmp_path, capsys):
    """Metric(measures, dialect=) updated batch by batch, merged from three workers (in order: the
    tools that read the input order see the same rows in the same order), pickled, gives
    evaluate(..., dialect=) on all the rows, bit for bit (values, per-group values, parameters,
    the signature's ``ties:dialect=...``), and ``perfeval eval --dialect`` on the same rows."""
    import json

    from perfeval.cli.main import main

    dialect, measures, targets, grouped, weighted, with_ids = case
    y, s, g, ids, w, bounds = _dialect_data(seed, targets)
    if with_ids or not weighted:
        w = np.ones(len(y))
    want_error = None
    try:
        want = evaluate(
            y, s, measures, dialect=dialect, **_dialect_kw(grouped, weighted, with_ids, g, w, ids)
        )
    except perfeval.PerfError as e:
        want_error = str(e)
    one = Metric(measures, dialect=dialect)
    workers = [Metric(measures, dialect=dialect) for _ in range(3)]
    pieces = list(zip(bounds, bounds[1:], strict=False))
    for k, (a, b) in enumerate(pieces):
        kw = _dialect_kw(grouped, weighted, with_ids, g, w, ids, a, b)
        one.update(y[a:b], s[a:b], **kw)
        workers[min(k * 3 // len(pieces), 2)].update(y[a:b], s[a:b], **kw)
    workers[1] = pickle.loads(pickle.dumps(workers[1]))
    chained = workers[0]._copy().merge(workers[1]).merge(workers[2])
    for m in (one, Metric.merge_all(workers), chained):
        if want_error is not None:
            with pytest.raises(perfeval.PerfError) as e:
                quiet(m.compute)
            assert str(e.value) == want_error
            continue
        got = quiet(m.compute)
        _same_report(got, want)
        assert f"ties:dialect={want.params['dialect']}" in str(got.signature) and "backend:metric" in str(
            got.signature
        )
    if want_error is not None:
        return
    # the command, on the same rows written to a file
    path = tmp_path / "rows.csv"
    lines = ["y,s,q,d,w"] + [
        f"{a},{b!r},{c},{d},{e!r}"
        for a, b, c, d, e in zip(y.tolist(), s.tolist(), g.tolist(), ids.tolist(), w.tolist(), strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    argv = [
        "eval",
        str(path),
        "--target",
        "y",
        "--score",
        "s",
        "-m",
        ",".join(measures),
        "--dialect",
        dialect,
    ]
    argv += ["--group", "q"] if grouped else []
    argv += ["--weight", "w"] if weighted else []
    argv += ["--id", "d"] if with_ids else []
    capsys.readouterr()
    assert main([*argv, "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)["measures"]
    got = quiet(one.compute)
    assert list(cli) == list(got.results)
    for label, r in got.results.items():
        value = cli[label]["value"]
        assert (value is None and math.isnan(r.value)) or value == r.value, (label, value, r.value)
        if grouped:
            per = [cli[label]["per_group"].get(str(k)) for k in got.groups]
            assert [math.nan if v is None else v for v in per] == pytest.approx(
                list(r.per_group), abs=0, nan_ok=True
            )


def test_a_dialect_metric_says_what_it_cannot_do_in_one_line():
    """A measure the tool does not define, a dialect that cannot finish groups as they come
    (clustered=True), weights or groups the tool does not take, ids without a dialect, a positive
    label for PERF: refused at once, each in one line, the state unchanged."""
    with pytest.raises(
        perfeval.InvalidParameterError, match="dialect spark does not define NDCG; dialects that do"
    ):
        Metric(["ndcg"], dialect="spark")
    with pytest.raises(perfeval.InvalidParameterError, match="unknown dialect 'sklaern'"):
        Metric(["roc"], dialect="sklaern")
    with pytest.raises(
        perfeval.InvalidParameterError, match=r"not with clustered=True \(a dialect evaluates"
    ):
        Metric(["map"], dialect="trec_eval", clustered=True)
    with pytest.raises(
        perfeval.InvalidParameterError, match="the perf dialect reads the targets as PERF does"
    ):
        Metric(["roc"], dialect="perf", pos_label=1)
    with pytest.raises(perfeval.InvalidParameterError, match="dialect perf does not define NDCG"):
        Metric(["ndcg"], dialect="perf")
    m = Metric(["roc", "ap"], dialect="torchmetrics")
    m.update([1, 0], [0.5, 0.4])
    inside = _inside(m)
    for kw, say in [
        ({"sample_weight": [1.0, 2.0]}, "`sample_weight=` was given to this update"),
        ({"groups": [1, 1]}, "`groups=` was given to this update"),
    ]:
        with pytest.raises(perfeval.InvalidParameterError, match=say):
            m.update([1, 0], [0.5, 0.4], **kw)
    fresh = Metric(["roc", "ap"], dialect="torchmetrics")
    with pytest.raises(perfeval.InvalidParameterError) as e:
        fresh.update([1, 0], [0.5, 0.4], sample_weight=[1.0, 2.0])
    with pytest.raises(perfeval.InvalidParameterError) as want:
        perfeval.evaluate(
            [1, 0], [0.5, 0.4], sample_weight=[1.0, 2.0], measures=["roc", "ap"], dialect="torchmetrics"
        )
    assert str(e.value) == str(want.value)  # evaluate()'s words, said at the update
    with pytest.raises(perfeval.InvalidParameterError) as e:
        Metric(["roc"], dialect="din").update([1, 0], [0.5, 0.4], groups=[1, 1])
    with pytest.raises(perfeval.InvalidParameterError) as want:
        perfeval.evaluate([1, 0], [0.5, 0.4], groups=[1, 1], measures=["roc"], dialect="din")
    assert str(e.value) == str(want.value)
    with pytest.raises(perfeval.InvalidParameterError) as e:
        Metric(["acc"], dialect="perf").update([1, 0], [0.5, 0.4], sample_weight=[1, 1])
    assert "neither groups nor weights" in str(e.value)
    for d in ("perfeval", "ranx"):  # evaluate()'s refusal of ids no dialect reads, in its words
        with pytest.raises(perfeval.InvalidParameterError) as e:
            Metric(["map"], dialect=d).update([1, 0], [0.5, 0.4], groups=[1, 1], ids=["a", "b"])
        with pytest.raises(perfeval.InvalidParameterError) as want:
            perfeval.evaluate([1, 0], [0.5, 0.4], groups=[1, 1], ids=["a", "b"], measures=["map"], dialect=d)
        fix = ("dialect='trec_eval'", "Metric(..., dialect='trec_eval')")
        assert str(e.value) == str(want.value).replace(*fix)
        assert str(e.value).startswith("ids= is read only by the dialects that break ties by document id")
    t = Metric(["map"], dialect="trec_eval")
    t.update([1, 0], [0.5, 0.5], groups=[1, 1], ids=["a", "b"])
    for kw, say in [
        ({}, "`ids=` was given to the earlier updates"),
        ({"ids": ["c"]}, r"`ids` needs one id per row \(2\)"),
        ({"ids": np.array(["c", None], dtype=object)}, "`ids` holds None at index 1"),
    ]:
        before = _inside(t)
        with pytest.raises(perfeval.PerfError, match=say):
            t.update([1, 0], [0.5, 0.4], groups=[2, 2], **kw)
        assert _inside(t) == before
    assert _inside(m) == inside
    assert "\n" not in str(e.value)


def test_a_dialect_metric_merges_pickles_and_resets_only_as_itself():
    """The dialect is part of what a Metric computes: in its repr, its state, and merging or loading
    a Metric of another dialect (or options) is refused; the same dialect spelled with its default
    options is the same computation."""
    a = Metric(["roc", "ap"], dialect="keras")
    b = Metric(["roc", "ap"], dialect="keras:num_thresholds=200")
    c = Metric(["roc", "ap"], dialect="keras:num_thresholds=50")
    p = Metric(["roc", "ap"])
    for m in (a, b, c, p):
        m.update([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.2])
    assert "dialect='keras:num_thresholds=200:summation_method=interpolation'" in repr(a)
    a.merge(b)
    for other in (c, p):
        with pytest.raises(perfeval.InvalidParameterError, match="the dialect must be the same"):
            a.merge(other)
    with pytest.raises(perfeval.InvalidParameterError, match="the state is of Metric"):
        c.load_state_dict(a.state_dict())
    with pytest.raises(perfeval.InvalidParameterError, match="the state is of Metric"):
        p.load_state_dict(a.state_dict())
    y, s = [1, 0, 1, 0] * 2, [0.9, 0.5, 0.5, 0.2] * 2
    _same_report(quiet(pickle.loads(pickle.dumps(a)).compute), evaluate(y, s, ["roc", "ap"], dialect="keras"))
    loaded = Metric(["roc", "ap"], dialect="keras")
    loaded.load_state_dict(a.state_dict())
    _same_report(quiet(loaded.compute), evaluate(y, s, ["roc", "ap"], dialect="keras"))
    a.reset()
    assert a.rows == 0 and a.dialect.startswith("keras")
    a.update([1, 0], [0.3, 0.6])
    _same_report(quiet(a.compute), evaluate([1, 0], [0.3, 0.6], ["roc", "ap"], dialect="keras"))
    # every measure the tool defines, by default, as evaluate() and the command take them
    assert Metric(dialect="spark").measures == ["ROC", "AP"]


def test_a_missing_target_is_found_and_counted_in_its_batch():
    """A NaN target (a nullable pandas column's NA): the message lists every label seen and finds
    the NaN in the batch (its index and count there), not among the distinct labels."""
    pd = pytest.importorskip("pandas")
    m = Metric(["roc"])
    m.update([0, 1], [0.5, 0.4])
    batch = pd.Series([1, None, 0, None], dtype="Int64")
    with pytest.raises(perfeval.InvalidDataError) as got:
        m.update(batch, [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(perfeval.InvalidDataError) as alone:
        perfeval.evaluate(batch, [0.1, 0.2, 0.3, 0.4], measures=["roc"])
    assert "holds 0, 1, nan; the NaN (first at index 1, 2 in all) is a missing target" in str(got.value)
    assert str(got.value) == str(alone.value)
    assert m.rows == 2


@pytest.mark.parametrize("where", ["kept", "fold", "groups"])
def test_an_error_inside_the_change_puts_the_state_back(where, monkeypatch):
    """Whatever raises once the state has begun to change (memory running out while the kept
    parts are joined or the summary folded), update() and merge() put every attribute, the
    batches waiting, the kept parts and the finished groups back as they were."""
    from perfeval.backends import metric_state as _metric_state

    measures, kw = {"kept": (["ndcg"], {}), "fold": (["roc"], {}), "groups": (["gauc"], {"clustered": True})}[
        where
    ]
    rng = np.random.default_rng(5)

    def batch(k):
        return rng.integers(0, 2, 40), rng.random(40), {"groups": np.repeat(np.arange(4) + 10 * k, 10)}

    m, other = Metric(measures, **kw), Metric(measures, **kw)
    for k in range(3):
        m.update(*batch(k)[:2], **(batch(k)[2] if where != "fold" else {}))
    other_batch = batch(7)
    other.update(*other_batch[:2], **(other_batch[2] if where != "fold" else {}))
    inside, theirs = _inside(m), _inside(other)

    def boom(*a, **k):
        raise MemoryError("no memory left")

    if where == "kept":
        monkeypatch.setattr(_metric_state.KeptRows, "_settle", boom)
    elif where == "fold":
        monkeypatch.setattr(Metric, "_fold", boom)
        monkeypatch.setattr(perfeval.backends.metric, "_FOLD_ROWS", 1)  # every batch is folded at once
    else:
        monkeypatch.setattr(_metric_state.FinishedGroups, "_settle", boom)
    new = batch(9)
    with pytest.raises(MemoryError):
        m.update(*new[:2], **(new[2] if where != "fold" else {}))
    assert _inside(m) == inside
    with pytest.raises(MemoryError):
        m.merge(other)
    assert _inside(m) == inside and _inside(other) == theirs
