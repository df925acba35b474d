"""explain() of K classes, the measures it showed as "not computed" under scikit-learn and
torchmetrics: ROC_OVO, LOGLOSS_MC, BRIER_MC and TOPK_ACC (any k).  The scikit-learn row is live
scikit-learn's number (or its refusal, said), on ties, weights, string labels, classes absent from
the targets and classes given in another order than scikit-learn's sorted labels; torchmetrics' row
says where torchmetrics has no such measure.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval

sk = pytest.importorskip("sklearn.metrics")

MEASURES = (
    "roc_ovo,roc_ovo:average=weighted,logloss_mc,brier_mc,topk_acc@1,topk_acc@2,topk_acc@3,roc_ovr,"
    "roc_ovr:average=weighted"
)


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def _sklearn(y, s, classes, w, label):
    """Live scikit-learn as its users call it: labels sorted and the columns in their order."""
    labels = np.asarray(classes)
    order = np.argsort(labels, kind="stable")
    labels, s = labels[order], s[:, order]
    name, _, rest = label.partition(":")
    name, _, at = name.partition("@")
    average = rest.removeprefix("average=") or "macro"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "ROC_OVO":
            return sk.roc_auc_score(y, s, multi_class="ovo", labels=labels, average=average, sample_weight=w)
        if name == "ROC_OVR":
            return sk.roc_auc_score(y, s, multi_class="ovr", labels=labels, average=average, sample_weight=w)
        if name == "LOGLOSS_MC":
            return sk.log_loss(y, s, labels=labels, sample_weight=w)
        if name == "BRIER_MC":
            return sk.brier_score_loss(y, s, labels=labels, sample_weight=w)
        if name == "TOPK_ACC":
            return sk.top_k_accuracy_score(y, s, k=int(at), labels=labels, sample_weight=w)
    raise AssertionError(label)


def _compare(y, s, classes, w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = perfeval.explain(y, s, classes=classes, measures=MEASURES, sample_weight=w)
    for m in e.measures:
        cell = e.cells["sklearn"][m]
        try:
            want = _sklearn(y, s, classes, w, m)
        except (ValueError, ZeroDivisionError) as err:
            assert math.isnan(cell.value) and cell.note, (m, cell, err)
            continue
        assert _close(cell.value, want), (m, cell.value, want)
        if not _close(cell.value, e.value("perfeval", m)):  # a value differs only under a rule
            assert cell.rules, (m, cell.value, e.value("perfeval", m))
    return e


@st.composite
def _data(draw):
    k = draw(st.integers(3, 5))
    n = draw(st.integers(1, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    classes = [f"c{i}" for i in range(k)]
    if draw(st.booleans()):  # another order than scikit-learn's sorted labels
        classes = list(rng.permutation(classes))
    present = draw(st.integers(1, k))  # classes absent from the targets
    y = np.array(classes)[rng.integers(0, present, n)]
    s = rng.dirichlet(np.ones(k), n)
    if draw(st.booleans()):  # ties: a coarse grid, and rows tied across the board
        s = np.round(s * 4) + 1
        s /= s.sum(axis=1, keepdims=True)
    w = rng.choice([0.5, 1.0, 2.0, 3.0], n) if draw(st.booleans()) else None
    return y, s, classes, w


@settings(max_examples=150, deadline=None)
@given(_data())
def test_sklearn_row_is_live_sklearn(data):
    _compare(*data)


@pytest.mark.parametrize("seed", range(4))
def test_ties_at_the_kth_place_are_said_and_torchmetrics_gives_no_guess(seed):
    rng = np.random.default_rng(seed)
    classes = ["bird", "cat", "dog", "fish"]
    y = np.array(classes)[rng.integers(0, 4, 40)]
    s = np.full((40, 4), 0.25)
    s[20:] = rng.dirichlet(np.ones(4), 20)
    e = _compare(y, s, classes)
    cell = e.cells["sklearn"]["TOPK_ACC@2"]
    assert "tied across the k-th place" in " ".join(cell.rules)
    assert cell.value != e.value("perfeval", "TOPK_ACC@2")
    tm = e.cells["torchmetrics"]["TOPK_ACC@2"]
    assert math.isnan(tm.value) and "torch.topk" in tm.note
    # no tie: every tool's number is perfeval's, and no rule is listed
    e = _compare(y[20:], s[20:], classes)
    for d in ("sklearn", "torchmetrics"):
        c = e.cells[d]["TOPK_ACC@2"]
        assert not c.rules and c.value == e.value("perfeval", "TOPK_ACC@2")


def test_what_torchmetrics_does_not_have_is_said():
    rng = np.random.default_rng(0)
    y = np.array(["a", "b", "c"] * 5)
    e = perfeval.explain(y, rng.dirichlet(np.ones(3), 15), classes=["a", "b", "c"], measures=MEASURES)
    notes = {m: e.cells["torchmetrics"][m].note for m in e.measures}
    assert "no one-vs-one AUROC" in notes["ROC_OVO:average=macro"]
    assert "no multiclass log loss" in notes["LOGLOSS_MC"]
    assert "no multiclass Brier score" in notes["BRIER_MC"]
    assert "not computed" not in str(e)
    e = perfeval.explain(y, rng.dirichlet(np.ones(3), 15), classes=["a", "b", "c"], measures="topk_acc@4")
    tm = e.cells["torchmetrics"]["TOPK_ACC@4"]
    assert math.isnan(tm.value) and "top_k > num_classes" in tm.note and "[k = 4, K = 3]" in tm.note


def test_weights_ovo_raises_in_sklearn():
    rng = np.random.default_rng(1)
    y = np.array(["a", "b", "c"] * 6)
    s = rng.dirichlet(np.ones(3), 18)
    w = rng.random(18) + 0.5
    e = _compare(y, s, ["a", "b", "c"], w)
    assert "sample_weight is not supported" in e.cells["sklearn"]["ROC_OVO:average=macro"].note
    with pytest.raises(ValueError, match="sample_weight is not supported"):
        sk.roc_auc_score(y, s, multi_class="ovo", sample_weight=w)


def test_probabilities_rules_as_sklearn():
    """Rows summing to 1 + 5e-6: roc_auc_score takes them (np.allclose), log_loss takes them with a
    warning; rows summing to 1.01: roc_auc_score refuses, log_loss and brier_score_loss score them as
    they are (and so does perfeval, with a note); a score above 1: log_loss raises."""
    rng = np.random.default_rng(2)
    classes = ["a", "b", "c"]
    y = np.array(classes * 10)
    s = rng.dirichlet(np.ones(3), 30)
    near = s * (1 + 5e-6)
    e = _compare(y, near, classes)
    assert not math.isnan(e.value("sklearn", "ROC_OVR:average=macro"))
    assert not math.isnan(e.value("sklearn", "ROC_OVO:average=macro"))
    off = s * 1.01
    off[:, 0] = np.minimum(off[:, 0], 1.0)
    e = _compare(y, off, classes)
    assert "Target scores need to be probabilities" in e.cells["sklearn"]["ROC_OVO:average=macro"].note
    for m in ("LOGLOSS_MC", "BRIER_MC"):  # scored as given by both (perfeval with a note)
        assert _close(e.value("perfeval", m), e.value("sklearn", m))
    big = s.copy()
    big[0] = [1.5, -0.25, -0.25]
    e = _compare(y, big, classes)
    assert "greater than 1" in e.cells["sklearn"]["LOGLOSS_MC"].note


def test_two_classes_brier_is_halved_by_sklearn():
    rng = np.random.default_rng(3)
    y = np.array(["a", "b"] * 10)
    s = rng.dirichlet(np.ones(2), 20)
    e = perfeval.explain(y, s, classes=["a", "b"], measures="brier_mc,roc_ovo,topk_acc@2")
    cell = e.cells["sklearn"]["BRIER_MC"]
    assert _close(cell.value, sk.brier_score_loss(y, s, labels=["a", "b"]))
    assert _close(2 * cell.value, e.value("perfeval", "BRIER_MC")) and "scale_by_half" in cell.rules[0]
    assert "binary branch" in e.cells["sklearn"]["ROC_OVO:average=macro"].note
    with pytest.raises(ValueError):
        sk.roc_auc_score(y, s, multi_class="ovo", labels=["a", "b"])
