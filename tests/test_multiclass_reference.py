"""The multiclass measures of ``evaluate(y, S, classes=...)`` against slow, obvious references
(tests/_mc_reference.py: pairwise counting, every order of every tie) and scikit-learn (within
1e-12), on hypothesis data with ties, weights (zeros too), string and int labels, classes absent
from the targets, all-equal scores and single rows.

The tie rule of the argmax measures is the expected CONFUSION over the orders of a tie: for the
measures linear in the confusion given the targets (accuracy, recall, balanced accuracy: the
support is fixed) that is the expected measure; for the others (precision, F, MCC, kappa) it is
the measure of the expected confusion, which these tests check (and show differs from the
expected measure).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import perfeval
from _mc_reference import (
    accuracy_of,
    averaged_of,
    expected,
    expected_confusion,
    kappa_of,
    mc_data,
    mcc_of,
    ovo_auc,
    ovr_auc,
    per_class_of,
    topk_expected,
)
from perfeval.summaries.classes import ClassSummary

REL = 1e-12


def close(a: float, b: float, rel: float = REL) -> bool:
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def run(d: dict, measures: list[str]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(
            d["y"], d["s"], classes=d["classes"], sample_weight=d["w"], measures=measures
        )


def value(d: dict, label: str) -> float:
    return run(d, [label]).results[label].value


def sklearn_order(d: dict) -> tuple[list, np.ndarray]:
    """The classes sorted and the score columns in that order: scikit-learn's ranking names read
    the columns as the sorted labels."""
    order = sorted(range(d["k"]), key=lambda j: d["classes"][j])
    return [d["classes"][j] for j in order], d["s"][:, order]


def result(d: dict, label: str):
    return run(d, [label]).results[label]


# -- ROC one-vs-rest, one-vs-one: pairwise counting ----------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(mc_data())
def test_roc_ovr_per_class_is_pairwise_counting(d):
    r = result(d, "ROC_OVR:average=macro")
    ref = [ovr_auc(d["codes"], d["s"], d["w"], j) for j in range(d["k"])]
    assert all(close(a, b) for a, b in zip(r.per_class.tolist(), ref, strict=True)), (r.per_class, ref)
    present = [v for v in ref if not math.isnan(v)]
    assert close(r.value, sum(present) / len(present) if present else math.nan)
    assert r.undefined_classes == [c for c, v in zip(d["classes"], ref, strict=True) if math.isnan(v)]
    wsup = [
        sum((1.0 if d["w"] is None else d["w"][i]) for i in range(len(d["codes"])) if d["codes"][i] == j)
        for j in range(d["k"])
    ]
    ok = [j for j in range(d["k"]) if not math.isnan(ref[j])]
    wref = sum(ref[j] * wsup[j] for j in ok) / sum(wsup[j] for j in ok) if ok else math.nan
    assert close(value(d, "ROC_OVR:average=weighted"), wref)


@settings(max_examples=80, deadline=None)
@given(mc_data(), st.sampled_from(["macro", "weighted"]))
def test_roc_ovo_is_hand_and_till_by_pairwise_counting(d, average):
    got = value(d, f"ROC_OVO:average={average}")
    assert close(got, ovo_auc(d["codes"], d["s"], d["w"], d["k"], average))


@settings(max_examples=60, deadline=None)
@given(mc_data(probabilities=True, all_present=True, min_k=3), st.sampled_from(["macro", "weighted"]))
def test_roc_ovr_and_ovo_agree_with_scikit_learn(d, average):
    from sklearn.metrics import roc_auc_score

    if d["w"] is not None:  # every class present with a positive weight (scikit-learn's domain)
        assume(all(d["w"][d["codes"] == j].sum() > 0 for j in range(d["k"])))
    labels, s = sklearn_order(d)
    ovr = roc_auc_score(d["y"], s, multi_class="ovr", labels=labels, average=average, sample_weight=d["w"])
    assert close(value(d, f"ROC_OVR:average={average}"), ovr)
    if d["w"] is None:  # scikit-learn's one-vs-one takes no weights
        ovo = roc_auc_score(d["y"], s, multi_class="ovo", labels=labels, average=average)
        assert close(value(d, f"ROC_OVO:average={average}"), ovo)


def test_roc_ovo_weighted_weights_pairs_by_their_cases():
    # classes 0 (1 case), 1 (1 case), 2 (4 cases): the pairs (0,1), (0,2), (1,2) weigh 2, 5, 5
    y = np.array([0, 1, 2, 2, 2, 2])
    s = np.array(
        [[0.6, 0.3, 0.1], [0.5, 0.4, 0.1], [0.2, 0.2, 0.6], [0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.7, 0.2, 0.1]]
    )
    from sklearn.metrics import roc_auc_score

    r = perfeval.evaluate(
        y, s, classes=[0, 1, 2], measures=["ROC_OVO:average=weighted", "ROC_OVO:average=macro"]
    )
    assert close(
        r.results["ROC_OVO:average=weighted"].value,
        roc_auc_score(y, s, multi_class="ovo", average="weighted"),
    )
    assert close(
        r.results["ROC_OVO:average=macro"].value, roc_auc_score(y, s, multi_class="ovo", average="macro")
    )
    assert not close(r.results["ROC_OVO:average=weighted"].value, r.results["ROC_OVO:average=macro"].value)


# -- AP, log loss, Brier: scikit-learn ----------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(mc_data(), st.sampled_from(["macro", "weighted", "micro"]))
def test_ap_ovr_is_scikit_learns_average_precision_on_one_hot_targets(d, average):
    from sklearn.metrics import average_precision_score

    codes, k = d["codes"], d["k"]
    live = np.ones(len(codes), bool) if d["w"] is None else d["w"] > 0
    onehot = np.eye(k, dtype=int)[codes]
    got = result(d, f"AP_OVR:average={average}")
    if not live.any():
        assert math.isnan(got.value)
        return
    present = np.zeros(k, bool)
    present[codes[live]] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = average_precision_score(onehot, d["s"], average=None, sample_weight=d["w"])
        if average == "micro":
            ref = average_precision_score(onehot, d["s"], average="micro", sample_weight=d["w"])
        elif average == "weighted":  # an absent class weighs 0 in scikit-learn's weighted mean too
            ref = average_precision_score(onehot, d["s"], average="weighted", sample_weight=d["w"])
        else:  # perfeval leaves the absent classes out (scikit-learn counts them as 0)
            ref = float(np.mean(per[present]))
    assert close(got.value, ref), (got.value, ref)
    pc = got.per_class
    assert all(close(pc[j], per[j]) for j in np.flatnonzero(present))
    assert np.isnan(pc[~present]).all()


@settings(max_examples=80, deadline=None)
@given(mc_data(probabilities=True))
def test_log_loss_and_brier_are_scikit_learns(d):
    from sklearn.metrics import brier_score_loss, log_loss

    live = np.ones(len(d["y"]), bool) if d["w"] is None else d["w"] > 0
    ll, br = value(d, "LOGLOSS_MC"), value(d, "BRIER_MC")
    if not live.any():
        assert math.isnan(ll) and math.isnan(br)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels, s = sklearn_order(d)  # scikit-learn reads the columns as the sorted labels
        ref_ll = log_loss(d["y"], s, labels=labels, sample_weight=d["w"])
        if d["k"] >= 3:
            ref_br = brier_score_loss(d["y"], s, labels=labels, sample_weight=d["w"])
        else:  # scikit-learn's binary Brier score of the second column; BRIER_MC is twice it
            pos = np.asarray(d["codes"] == 1, dtype=int)
            ref_br = 2 * brier_score_loss(pos, d["s"][:, 1], sample_weight=d["w"])
    assert close(ll, ref_ll), (ll, ref_ll)
    assert close(br, ref_br), (br, ref_br)


def test_log_loss_and_brier_refuse_rows_that_are_no_probabilities():
    y = np.array(["a", "b", "c"])
    s = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [2.0, 0.1, 0.8]])
    with pytest.warns(
        perfeval.UndefinedMeasureWarning if hasattr(perfeval, "UndefinedMeasureWarning") else Warning
    ):
        r = perfeval.evaluate(y, s, classes=["a", "b", "c"], measures=["LOGLOSS_MC", "BRIER_MC"])
    for label in ("LOGLOSS_MC", "BRIER_MC"):
        assert math.isnan(r.results[label].value)
        assert "y_score holds 2, outside [0, 1]" in r.results[label].why


# -- the argmax: every order of every tie -----
@settings(max_examples=80, deadline=None)
@given(mc_data())
def test_the_confusion_is_the_expected_confusion_over_tie_orders(d):
    live = np.ones(len(d["codes"]), bool) if d["w"] is None else d["w"] > 0
    w = None if d["w"] is None else d["w"][live]
    cs = ClassSummary.from_arrays(d["codes"][live], d["s"][live], w, classes=tuple(d["classes"]))
    ref = expected_confusion(d["codes"], d["s"], d["w"], d["k"])
    np.testing.assert_allclose(cs.confusion, ref.astype(float), rtol=REL, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(mc_data())
def test_linear_argmax_measures_are_their_expected_value_over_tie_orders(d):
    """Accuracy, recall (its support is fixed by the targets) and balanced accuracy: the expected
    measure over the orders of the ties, exactly what the registry's tie text says."""
    codes, s, w, k = d["codes"], d["s"], d["w"], d["k"]
    assert close(value(d, "ACC_MC"), expected(accuracy_of, codes, s, w, k))
    assert close(value(d, "PRE_MC:average=micro"), expected(accuracy_of, codes, s, w, k))
    for avg in ("macro", "weighted", "micro"):
        got = value(d, f"REC_MC:average={avg}")
        assert close(got, expected(lambda c, avg=avg: averaged_of(c, "recall", avg), codes, s, w, k)), avg
    assert close(value(d, "BACC"), expected(lambda c: averaged_of(c, "recall", "macro"), codes, s, w, k))
    # per class recall too
    got = result(d, "REC_MC:average=macro").per_class
    for j in range(k):
        ref = expected(lambda c, j=j: per_class_of(c, "recall")[j], codes, s, w, k)
        assert close(got[j], ref), (j, got[j], ref)


@settings(max_examples=80, deadline=None)
@given(mc_data(), st.sampled_from(["macro", "weighted", "micro"]), st.sampled_from([1.0, 0.5, 2.0]))
def test_nonlinear_argmax_measures_are_the_measure_of_the_expected_confusion(d, average, beta):
    codes, s, w, k = d["codes"], d["s"], d["w"], d["k"]
    c = expected_confusion(codes, s, w, k)
    assert close(value(d, f"PRE_MC:average={average}"), averaged_of(c, "precision", average))
    label = f"F_MC:beta={beta:g},average={average}" if beta != 1.0 else f"F_MC:average={average}"
    assert close(value(d, label), averaged_of(c, "f", average, beta))
    mcc, ref = value(d, "MCC"), mcc_of(c)
    if not (math.isnan(ref) and abs(mcc) < 1e-6):  # the bug of test_mcc_of_one_true_class_is_nan
        assert close(mcc, ref), (mcc, ref)
    assert close(value(d, "KAPPA"), kappa_of(c))
    assert close(value(d, "KAPPA:weights=linear"), kappa_of(c, "linear"))
    assert close(value(d, "KAPPA:weights=quadratic"), kappa_of(c, "quadratic"))
    assert close(value(d, "QWK"), kappa_of(c, "quadratic"))


def test_the_nonlinear_measures_are_not_the_expected_measure_over_tie_orders():
    """What the registry's tie text must not claim for precision, F, MCC and kappa: a case of class
    0 tied between classes 0 and 1, then a case of class 1 and one of class 0 predicted right.  The
    two orders give precision(1) = 1 or 1/2 (expected 3/4; of the expected confusion 2/3) and MCC 1
    or 1/2 (expected 3/4; of the expected confusion 1/sqrt(2)); accuracy, linear, is 5/6 both ways."""
    y = np.array([0, 1, 0])
    s = np.array([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]])
    measures = ["PRE_MC:average=macro", "F_MC:average=macro", "MCC", "KAPPA", "ACC_MC"]
    r = perfeval.evaluate(y, s, classes=[0, 1], measures=measures)
    c = expected_confusion(y, s, None, 2)
    pre = r.results["PRE_MC:average=macro"].per_class[1]
    assert close(pre, 2 / 3) and close(
        expected(lambda m: per_class_of(m, "precision")[1], y, s, None, 2), 0.75
    )
    assert close(r.results["MCC"].value, 1 / math.sqrt(2)) and close(r.results["MCC"].value, mcc_of(c))
    assert close(expected(mcc_of, y, s, None, 2), 0.75)
    for label, f in (
        ("F_MC:average=macro", lambda m: averaged_of(m, "f", "macro")),
        ("KAPPA", kappa_of),
    ):
        assert close(r.results[label].value, f(c))
        assert not close(r.results[label].value, expected(f, y, s, None, 2)), label
    assert close(r.results["ACC_MC"].value, expected(accuracy_of, y, s, None, 2))


@settings(max_examples=60, deadline=None)
@given(mc_data(all_present=False))
def test_argmax_measures_agree_with_scikit_learn_without_ties(d):
    from sklearn.metrics import (
        accuracy_score,
        cohen_kappa_score,
        f1_score,
        matthews_corrcoef,
        precision_score,
        recall_score,
    )

    k = d["k"]
    s = d["s"] + np.arange(k)[None, :] * 1e-6  # no tie at any argmax
    d = dict(d, s=s)
    live = np.ones(len(d["y"]), bool) if d["w"] is None else d["w"] > 0
    if not live.any():
        return
    pred = np.array([d["classes"][j] for j in s.argmax(axis=1)])
    y, w, labels = d["y"], d["w"], d["classes"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert close(value(d, "ACC_MC"), accuracy_score(y, pred, sample_weight=w))
        present = set(y[live].tolist())
        if len(present) >= 1:
            bacc = recall_score(
                y, pred, labels=[c for c in labels if c in present], average="macro", sample_weight=w
            )
            assert close(value(d, "BACC"), bacc)
        support = np.array([np.sum((y == c) * (1.0 if w is None else w)) for c in labels])
        for name, f in (("PRE_MC", precision_score), ("REC_MC", recall_score), ("F_MC", f1_score)):
            per = f(y, pred, labels=labels, average=None, sample_weight=w, zero_division=np.nan)
            got = result(d, f"{name}:average=macro").per_class
            assert np.array_equal(np.isnan(got), np.isnan(per)), (name, got, per)
            ok = ~np.isnan(per)
            assert np.allclose(got[ok], per[ok], rtol=REL, atol=0), (name, got, per)
            # perfeval's averages of scikit-learn's per-class values: the undefined classes left out
            # (scikit-learn's zero_division=nan averages differ there: its own names follow it)
            macro = float(per[ok].mean()) if ok.any() else math.nan
            wsum = support[ok].sum()
            weighted = float((per[ok] * support[ok]).sum() / wsum) if wsum > 0 else math.nan
            micro = f(y, pred, labels=labels, average="micro", sample_weight=w, zero_division=np.nan)
            for avg, ref in (("macro", macro), ("weighted", weighted), ("micro", micro)):
                assert close(value(d, f"{name}:average={avg}"), ref), (name, avg)
        mcc = value(d, "MCC")
        ref = matthews_corrcoef(y, pred, sample_weight=w)
        assert close(mcc, ref) or (math.isnan(mcc) and ref == 0.0)
        for wt, label in (("none", "KAPPA"), ("linear", "KAPPA:weights=linear"), ("quadratic", "QWK")):
            ref = cohen_kappa_score(
                y, pred, labels=labels, weights=None if wt == "none" else wt, sample_weight=w
            )
            got = value(d, label)
            assert close(got, ref) or (math.isnan(got) and math.isnan(ref)), (label, got, ref)


# -- top-k -----
@settings(max_examples=60, deadline=None)
@given(mc_data(max_k=5, max_n=6), st.integers(1, 6))
def test_topk_is_its_expected_value_over_every_order_of_the_ties(d, k):
    got = value(d, f"TOPK_ACC@{k}")
    assert close(got, topk_expected(d["codes"], d["s"], d["w"], k)), (got, k)


@settings(max_examples=60, deadline=None)
@given(mc_data(min_k=3), st.integers(1, 6))
def test_topk_agrees_with_scikit_learn_without_ties(d, k):
    from sklearn.metrics import top_k_accuracy_score

    s = d["s"] + np.arange(d["k"])[None, :] * 1e-6
    d = dict(d, s=s)
    live = np.ones(len(d["y"]), bool) if d["w"] is None else d["w"] > 0
    if not live.any():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels, ss = sklearn_order(dict(d, s=s))
        ref = top_k_accuracy_score(d["y"], ss, k=k, labels=labels, sample_weight=d["w"])
    assert close(value(d, f"TOPK_ACC@{k}"), ref)


def test_topk_one_is_accuracy_and_k_at_least_K_is_one():
    y = np.array(["a", "b", "c", "a"])
    s = np.array([[0.4, 0.4, 0.2], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3], [0.2, 0.3, 0.5]])
    r = perfeval.evaluate(y, s, classes=["a", "b", "c"], measures=["TOPK_ACC@1", "ACC_MC", "TOPK_ACC@3"])
    assert r.results["TOPK_ACC@1"].value == r.results["ACC_MC"].value
    assert r.results["TOPK_ACC@3"].value == 1.0


# -- corner data -----
def test_all_equal_scores():
    """Every score equal: every pair tied (ROC areas 1/2), the argmax a uniform guess."""
    y = np.array([0, 1, 2, 0, 1, 0])
    s = np.full((6, 3), 0.25)
    r = perfeval.evaluate(
        y, s, classes=[0, 1, 2], measures=["ROC_OVR", "ROC_OVO", "ACC_MC", "TOPK_ACC@2", "BACC"]
    )
    assert r.results["ROC_OVR:average=macro"].value == 0.5
    assert r.results["ROC_OVO:average=macro"].value == 0.5
    assert close(r.results["ACC_MC"].value, 1 / 3)
    assert close(r.results["BACC"].value, 1 / 3)
    assert close(r.results["TOPK_ACC@2"].value, 2 / 3)


def test_single_row():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(
            np.array(["dog"]),
            np.array([[0.2, 0.7, 0.1]]),
            classes=["cat", "dog", "bird"],
            measures=["ROC_OVR", "ROC_OVO", "ACC_MC", "LOGLOSS_MC", "F_MC", "MCC"],
        )
    assert math.isnan(r.results["ROC_OVR:average=macro"].value)
    assert math.isnan(r.results["ROC_OVO:average=macro"].value)
    assert r.results["ACC_MC"].value == 1.0
    assert close(r.results["LOGLOSS_MC"].value, -math.log(0.7))
    assert r.results["F_MC:average=macro"].value == 1.0
    assert r.results["F_MC:average=macro"].undefined_classes == ["cat", "bird"]
    assert math.isnan(r.results["MCC"].value)


def test_mcc_of_one_true_class_is_nan():
    """The registry: every case of one class is 0/0, NaN.  One case tied across six classes: its
    shares of 1/6 summed over the whole confusion and over its row round differently, so
    s^2 - sum t_k^2 is ~1e-17, not 0, and MCC comes out 2.0e-09."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate([0], [[1.0] * 6], classes=list(range(6)), measures=["MCC"])
    assert math.isnan(r.results["MCC"].value), r.results["MCC"].value
