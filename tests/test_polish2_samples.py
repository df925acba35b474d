"""ROC_ML and AP_ML ``average=samples``: each row's ROC area / AP over its labels, the mean over the
rows (rows with one class only left out and said), exact and mergeable; scikit-learn's numbers where
scikit-learn is defined."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

import perfeval
from perfeval.backends.stream import evaluate_stream_labels
from perfeval.exceptions import UndefinedMeasureWarning

MEASURES = ["ROC_ML:average=samples", "AP_ML:average=samples"]


@st.composite
def label_data(draw):
    n = draw(st.integers(1, 30))
    k = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = (rng.random((n, k)) < draw(st.floats(0.1, 0.9))).astype(int)
    levels = draw(st.integers(2, 6))  # few distinct scores: ties within rows
    s = rng.integers(0, levels, (n, k)) / levels
    w = rng.choice([0.5, 1.0, 2.0, 3.25], n) if draw(st.booleans()) else None
    return y, s, w


@settings(max_examples=150, deadline=None)
@given(label_data())
def test_samples_averages_are_scikit_learns(d):
    y, s, w = d
    pos = y.sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, classes=list(range(y.shape[1])), measures=MEASURES, sample_weight=w)
    roc_ok = (pos > 0) & (pos < y.shape[1])  # scikit-learn refuses a row of one class
    if roc_ok.all():
        want = roc_auc_score(y, s, average="samples", sample_weight=w)
        assert r["ROC_ML:average=samples"] == pytest.approx(want, rel=1e-12, abs=1e-15)
    elif roc_ok.any() and (w is None or w[roc_ok].sum() > 0):
        sub = None if w is None else w[roc_ok]
        want = roc_auc_score(y[roc_ok], s[roc_ok], average="samples", sample_weight=sub)
        assert r["ROC_ML:average=samples"] == pytest.approx(want, rel=1e-12, abs=1e-15)
    ap_ok = pos > 0  # scikit-learn counts a row with no label on as 0: perfeval leaves it out
    if ap_ok.any() and (w is None or w[ap_ok].sum() > 0):
        sub = None if w is None else w[ap_ok]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = average_precision_score(y[ap_ok], s[ap_ok], average="samples", sample_weight=sub)
        assert r["AP_ML:average=samples"] == pytest.approx(want, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(label_data(), st.integers(1, 5))
def test_samples_averages_are_the_same_bits_streamed(d, cut):
    y, s, w = d
    cut = min(cut, len(y))
    chunks = [
        (y[:cut], s[:cut]) + (() if w is None else (w[:cut],)),
        (y[cut:], s[cut:]) + (() if w is None else (w[cut:],)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = perfeval.evaluate(y, s, classes=list(range(y.shape[1])), measures=MEASURES, sample_weight=w)
        streamed = evaluate_stream_labels(chunks, list(range(y.shape[1])), measures=MEASURES)
    for m in MEASURES:
        a, b = whole[m], streamed[m]
        assert (np.isnan(a) and np.isnan(b)) or a == b


def test_rows_of_one_class_are_left_out_and_said():
    y = np.array([[1, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 1]])
    s = np.array([[0.9, 0.1, 0.2], [0.2, 0.8, 0.1], [0.1, 0.2, 0.3], [0.7, 0.2, 0.6]])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = perfeval.evaluate(y, s, classes=["a", "b", "c"], measures=MEASURES)
    assert r["ROC_ML:average=samples"] == pytest.approx((1.0 + 0.0) / 2)
    assert r["AP_ML:average=samples"] == pytest.approx((1.0 + 1.0 + (0.5 + 2 / 3) / 2) / 3)
    msgs = [str(w.message) for w in rec if issubclass(w.category, UndefinedMeasureWarning)]
    assert any("ROC_ML:average=samples: 2 of 4 rows (by weight) are 0/0" in m for m in msgs), msgs
    assert any("AP_ML:average=samples: 1 of 4 rows (by weight) are 0/0" in m for m in msgs), msgs
    assert "note" in r.to_dict()["measures"]["ROC_ML:average=samples"]


def test_metric_and_its_state_give_the_same():
    from perfeval import Metric

    rng = np.random.default_rng(3)
    y = (rng.random((40, 4)) < 0.5).astype(int)
    s = rng.random((40, 4))
    m = Metric(labels=list("abcd"), measures=MEASURES)
    m.update(y[:15], s[:15])
    m.update(y[15:], s[15:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = perfeval.evaluate(y, s, classes=list("abcd"), measures=MEASURES)
        got = m.compute()
    other = Metric(labels=list("abcd"), measures=MEASURES)
    other.load_state_dict(m.state_dict())
    a, b = Metric(labels=list("abcd"), measures=MEASURES), Metric(labels=list("abcd"), measures=MEASURES)
    a.update(y[:7], s[:7])
    b.update(y[7:], s[7:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        restored, merged = other.compute(), a.merge(b).compute()
    for k in MEASURES:
        assert got[k] == want[k] == restored[k] == merged[k]
