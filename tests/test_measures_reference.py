"""The registry's float64 measures against slow, obviously-correct definitions and scikit-learn."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import perfeval
from _reference import expected_ap_bruteforce, pairwise_auc, rank_last_positive
from perfeval import ScoreHistogram, get_measure

small = st.lists(
    st.tuples(st.sampled_from([0, 1]), st.sampled_from([0.1, 0.2, 0.3, 0.5, 0.7, 0.9])),
    min_size=1,
    max_size=9,
)
medium = st.lists(
    st.tuples(st.sampled_from([0, 1]), st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1)),
    min_size=1,
    max_size=80,
)


def H(rows):
    return ScoreHistogram.from_arrays([r[0] for r in rows], [r[1] for r in rows])


def same(a, b, tol=1e-12):
    return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol * max(1.0, abs(b))


@given(medium)
def test_roc_is_the_pairwise_probability(rows):
    assert same(get_measure("roc")(H(rows)), pairwise_auc(*zip(*rows, strict=False)))


@given(small)
def test_apr_is_the_expected_ap_over_tie_orders(rows):
    y, s = zip(*rows, strict=False)
    want = expected_ap_bruteforce(list(y), list(s)) if any(y) else math.nan  # no positive: undefined
    assert same(get_measure("apr")(H(rows)), want)


@given(medium)
def test_rkl_is_the_pessimistic_rank_of_the_last_positive(rows):
    assert get_measure("rkl")(H(rows)) == rank_last_positive(*zip(*rows, strict=False))


@given(medium)
def test_prb_without_ties_is_precision_at_p(rows):
    y, s = zip(*rows, strict=False)
    if len(set(s)) != len(s) or sum(y) == 0:
        return
    order = sorted(range(len(s)), key=lambda i: -s[i])
    P = sum(y)
    assert same(get_measure("prb")(H(rows)), sum(y[i] for i in order[:P]) / P)


@given(medium, st.sampled_from([0.0, 0.3, 0.5, 0.75, 1.0]))
def test_threshold_measures_count_score_at_least_threshold(rows, thr):
    y, s = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    pred = s >= thr
    tp, fp = int(np.sum(pred & (y == 1))), int(np.sum(pred & (y == 0)))
    fn, tn = int(np.sum(~pred & (y == 1))), int(np.sum(~pred & (y == 0)))
    h = H(rows)
    assert same(get_measure("acc")(h, threshold=thr), (tp + tn) / len(y))
    if tp + fp:
        assert same(get_measure("ppv")(h, threshold=thr), tp / (tp + fp))
    if tp + fn:
        assert same(get_measure("sen")(h, threshold=thr), tp / (tp + fn))
    assert get_measure("cst")(h, threshold=thr, tp=1, fn=2, fp=3, tn=4) == tp + 2 * fn + 3 * fp + 4 * tn


@given(medium)
def test_probability_measures_match_their_formulas(rows):
    y, s = np.array([r[0] for r in rows], float), np.array([r[1] for r in rows])
    h = H(rows)
    assert same(get_measure("rms")(h), float(np.sqrt(np.mean((y - s) ** 2))))
    assert same(get_measure("nrm")(h, p=3), float(np.mean(np.abs(y - s) ** 3) ** (1 / 3)))
    with np.errstate(divide="ignore"):
        ce = float(np.mean(np.where(y == 1, -np.log2(s), -np.log2(1 - s))))
    assert same(get_measure("cxe")(h), ce)


def test_worked_auc_examples():
    # 3 positives, 4 negatives: 0.75 (no ties); one tied pair: 0.875; a four-way tie: 10/12
    h = ScoreHistogram.from_arrays([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1])
    assert get_measure("roc")(h) == 0.75
    h = ScoreHistogram.from_arrays([1, 1, 0, 0], [0.9, 0.5, 0.5, 0.1])
    assert get_measure("roc")(h) == 0.875
    h = ScoreHistogram.from_arrays([1, 1, 1, 0, 0, 0, 0][:5] + [0], [0.9, 0.6, 0.6, 0.6, 0.6, 0.1])
    # positives 0.9, 0.6, 0.6; negatives 0.6, 0.6, 0.1: 1 + 1 + (0.5 + 0.5 + 1) * 2 ... / 9
    assert get_measure("roc")(h) == pairwise_auc([1, 1, 1, 0, 0, 0], [0.9, 0.6, 0.6, 0.6, 0.6, 0.1])
    h = ScoreHistogram.from_arrays([1, 1, 1, 0, 0, 0, 0], [0.9, 0.5, 0.5, 0.5, 0.5, 0.1, 0.2])
    assert math.isclose(get_measure("roc")(h), 10 / 12)


def test_edge_cases():
    one_class = ScoreHistogram.from_arrays([1, 1], [0.2, 0.4])
    assert math.isnan(get_measure("roc")(one_class))
    assert get_measure("rkl")(one_class) == 2.0
    assert math.isnan(get_measure("apr")(ScoreHistogram.from_arrays([0, 0], [0.2, 0.4])))  # no positive: NaN
    empty = ScoreHistogram.empty()
    assert math.isnan(get_measure("rms")(empty)) and get_measure("top1")(empty) == 0.0
    assert math.isnan(get_measure("ca2")(ScoreHistogram.from_arrays([1, 0], [0.2, 0.4]), window=3))
    assert math.isnan(get_measure("slq")(ScoreHistogram.from_arrays([1, 0], [0.2, 1.4])))
    assert get_measure("nrm")(ScoreHistogram.from_arrays([1, 0], [0.2, 0.4]), p=0) == 1.0
    # TOP1/TOP10 are pessimistic about ties
    assert get_measure("top1")(ScoreHistogram.from_arrays([1, 0], [0.5, 0.5])) == 0.0


sk = pytest.importorskip("sklearn.metrics")


@given(medium)
def test_against_scikit_learn(rows):
    y, s = [r[0] for r in rows], [r[1] for r in rows]
    h = H(rows)
    if 0 < sum(y) < len(y):
        assert same(get_measure("roc")(h), sk.roc_auc_score(y, s), 1e-9)
        if len(set(s)) == len(s):  # AP's definitions agree without ties
            assert same(get_measure("apr")(h), sk.average_precision_score(y, s), 1e-9)
    clipped = np.clip(s, 1e-9, 1 - 1e-9)
    assert same(
        get_measure("cxe")(H(list(zip(y, clipped, strict=False)))),
        sk.log_loss(y, clipped, labels=[0, 1]) / math.log(2),
        1e-9,
    )
    assert same(get_measure("rms")(h) ** 2, sk.mean_squared_error(y, s), 1e-9)


def test_classic_and_modern_agree_where_no_quirk_applies():
    """On 0/1 targets with both classes, the classic command and the registry give the same numbers
    (to the printed precision) for the measures without classic quirks."""
    from conftest import run_perf

    rng = random.Random(7)
    for _ in range(20):
        n = rng.randint(60, 400)
        decimals = rng.choice([1, 2, 6])
        rows = [(int(rng.random() < 0.4), round(rng.random(), decimals)) for _ in range(n)]
        if not 0 < sum(r[0] for r in rows) < n:
            continue
        data = "".join(f"{a} {b}\n" for a, b in rows).encode()
        out, _, _ = run_perf(["-roc", "-apr", "-prb", "-rkl", "-rms", "-top1", "-top10"], data)
        classic = {ln.split()[0]: float(ln.split()[1]) for ln in out.splitlines()}
        # the classic command reads float32 scores; summarise the same numbers
        f32 = np.array([b for _, b in rows], dtype=np.float32).astype(np.float64)
        h = ScoreHistogram.from_arrays([a for a, _ in rows], f32)
        for name in ("ROC", "APR", "PRB", "RKL", "RMS", "TOP1", "TOP10"):
            if name == "TOP10" and decimals < 6:
                continue  # a quirk under ties: PERF needs an all-positive tie group (the registry says so)
            assert abs(get_measure(name)(h) - classic[name]) <= 5e-6, name


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3)), min_size=1, max_size=7))
def test_top1_top10_are_true_in_every_tie_order(rows):
    """TOP1/TOP10 are 1 exactly when the top case / a top-10 case is positive in every order of ties."""
    from _reference import tie_orders

    y = [a for a, _ in rows]
    s = [float(b) for _, b in rows]
    orders = [o for o, _p in tie_orders(y, s)]
    want1 = float(all(o[0] == 1 for o in orders))
    want10 = float(all(1 in o[:10] for o in orders))
    r = perfeval.evaluate(y, s, measures=["top1", "top10"])
    assert (r["TOP1"], r["TOP10"]) == (want1, want10)
    # and the case: a positive and a negative tied are both in the top 10
    assert perfeval.evaluate([1, 0], [0.0, 0.0], measures=["top10"])["TOP10"] == 1.0
