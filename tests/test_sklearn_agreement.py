"""Every measure whose definition scikit-learn shares gives scikit-learn's number, on random data with
ties and weights (hypothesis).  The measures compared are listed once, so the list says where the
definitions agree; the rest of the registry is checked against its own references
(tests/test_measures_reference.py) and the scorer against scikit-learn's in tests/test_api_door.py."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval

sk = pytest.importorskip("sklearn.metrics")


def _f(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(fn(*a, **kw))


#: perfeval spec -> scikit-learn's value of the same definition (y, s, w); threshold 0.5, score >= t positive
AGREE = {
    "roc": lambda y, s, w: _f(sk.roc_auc_score, y, s, sample_weight=w),
    "ap": lambda y, s, w: _f(sk.average_precision_score, y, s, sample_weight=w),
    "logloss": lambda y, s, w: _f(sk.log_loss, y, s, sample_weight=w, labels=[0, 1]),
    "brier": lambda y, s, w: _f(sk.brier_score_loss, y, s, sample_weight=w),
    "rms": lambda y, s, w: math.sqrt(_f(sk.mean_squared_error, y, s, sample_weight=w)),
    "acc": lambda y, s, w: _f(sk.accuracy_score, y, s >= 0.5, sample_weight=w),
    "err": lambda y, s, w: 1 - _f(sk.accuracy_score, y, s >= 0.5, sample_weight=w),
    "pre": lambda y, s, w: _f(sk.precision_score, y, s >= 0.5, sample_weight=w, zero_division=np.nan),
    "npv": lambda y, s, w: _f(
        sk.precision_score, y, s >= 0.5, sample_weight=w, pos_label=0, zero_division=np.nan
    ),
    "rec": lambda y, s, w: _f(sk.recall_score, y, s >= 0.5, sample_weight=w, zero_division=np.nan),
    "spc": lambda y, s, w: _f(
        sk.recall_score, y, s >= 0.5, sample_weight=w, pos_label=0, zero_division=np.nan
    ),
    "prf": lambda y, s, w: _f(sk.f1_score, y, s >= 0.5, sample_weight=w, zero_division=np.nan),
    "fbeta:beta=2": lambda y, s, w: _f(
        sk.fbeta_score, y, s >= 0.5, beta=2, sample_weight=w, zero_division=np.nan
    ),
    "fbeta:beta=0.5": lambda y, s, w: _f(
        sk.fbeta_score, y, s >= 0.5, beta=0.5, sample_weight=w, zero_division=np.nan
    ),
}


def close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3]), st.booleans())
def test_binary_measures_agree_with_scikit_learn(n, seed, decimals, weighted):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.random()).astype(int)
    s = np.clip(np.round(rng.random(n), decimals), 0.01, 0.99)  # ties; inside (0, 1) for the log loss
    w = rng.random(n) * 3 + 0.1 if weighted else None
    both = 0 < y.sum() < n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.evaluate(y, s, measures=list(AGREE), sample_weight=w).values
    for spec, ref in AGREE.items():
        if spec in ("roc", "ap") and not both:
            continue  # scikit-learn raises or warns on one class; perfeval says NaN
        label = perfeval.measures.parse_measure(spec).label
        assert close(got[label], ref(y, s, w)), (spec, got[label], ref(y, s, w))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.sampled_from([1, 3, 5, 0]))
def test_ndcg_with_binary_relevance_agrees_with_scikit_learn(n, seed, decimals, k):
    """With 0/1 relevance the exponential and linear gains coincide, and scikit-learn's tie handling
    (the mean gain of a tie group) is the expectation over tie orders: the same NDCG@k."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    if not y.any():
        return
    s = np.round(rng.random(n), decimals)
    got = perfeval.evaluate(y, s, measures=[f"ndcg@{k}" if k else "ndcg"]).values
    want = _f(sk.ndcg_score, [y], [s], k=k or None)
    assert close(next(iter(got.values())), want)
