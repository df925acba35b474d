"""explain() of K classes (issue 32): scikit-learn's and torchmetrics' values computed by perfeval's
per-class numbers with each tool's rules equal scikit-learn's own numbers, and each rule is listed
exactly when its condition holds on the data."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval

sk = pytest.importorskip("sklearn.metrics")

CLASSES = ["cat", "dog", "bird", "fish"]
MEASURES = ",".join(
    ["roc_ovr", "roc_ovr:average=weighted", "ap_ovr", "acc_mc", "pre_mc", "rec_mc", "f_mc"]
    + ["f_mc:average=weighted", "bacc", "kappa", "qwk", "mcc"]
)


def _data(seed, absent=False, tie=False, raw=False, n=40):
    rng = np.random.default_rng(seed)
    k = len(CLASSES)
    y = rng.integers(0, k - 1 if absent else k, n)
    y[: k - (1 if absent else 0)] = np.arange(k - (1 if absent else 0))
    s = rng.dirichlet(np.ones(k), n)
    if tie:
        s[5] = 1.0 / k
        s[6, :2] = s[6, :2].max()
        s[6] /= s[6].sum()
    if raw:
        s = np.log(s) * 3.0
    return np.array(CLASSES)[y], s


def _sk(y, s, which):
    labels = np.array(CLASSES)
    first = labels[np.argmax(s, axis=1)]
    order = np.argsort(labels)  # scikit-learn wants the labels sorted, and the columns in their order
    labels, s = labels[order], s[:, order]
    onehot = (y[:, None] == labels[None, :]).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "ROC_OVR:average=macro": lambda: sk.roc_auc_score(y, s, multi_class="ovr", labels=labels),
            "ROC_OVR:average=weighted": lambda: sk.roc_auc_score(
                y, s, multi_class="ovr", labels=labels, average="weighted"
            ),
            "AP_OVR:average=macro": lambda: sk.average_precision_score(onehot, s),
            "ACC_MC": lambda: sk.top_k_accuracy_score(y, s, k=1, labels=labels),
            "PRE_MC:average=macro": lambda: sk.precision_score(y, first, average="macro"),
            "REC_MC:average=macro": lambda: sk.recall_score(y, first, average="macro"),
            "F_MC:average=macro": lambda: sk.f1_score(y, first, average="macro"),
            "F_MC:average=weighted": lambda: sk.f1_score(y, first, average="weighted"),
            "BACC": lambda: sk.balanced_accuracy_score(y, first),
            "KAPPA": lambda: sk.cohen_kappa_score(y, first),
            "QWK": lambda: sk.cohen_kappa_score(
                y, first, weights="quadratic"
            ),  # labels in sorted order: see below
            "MCC": lambda: sk.matthews_corrcoef(y, first),
        }[which]()


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("absent", [False, True])
@pytest.mark.parametrize("tie", [False, True])
def test_sklearn_row_is_sklearns_numbers(seed, absent, tie):
    y, s = _data(seed, absent, tie)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = perfeval.explain(y, s, classes=CLASSES, measures=MEASURES)
    for m in e.measures:
        if m == "QWK":
            continue  # scikit-learn's weights follow its sorted labels, not the classes' order
        assert _close(e.value("sklearn", m), _sk(y, s, m)), (m, e.value("sklearn", m), _sk(y, s, m))


def _rules(e, dialect, m):
    return " ".join(e.cells[dialect][m].rules + [e.cells[dialect][m].note])


@pytest.mark.parametrize("seed", range(4))
def test_rules_appear_exactly_when_their_condition_holds(seed):
    for absent in (False, True):
        for tie in (False, True):
            y, s = _data(seed, absent, tie)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = perfeval.explain(y, s, classes=CLASSES, measures=MEASURES)
            roc, ap = "ROC_OVR:average=macro", "AP_OVR:average=macro"
            assert ("Only one class is present" in _rules(e, "sklearn", roc)) == absent
            assert ("[classes: fish]" in _rules(e, "torchmetrics", roc)) == absent
            assert ("No positive class found" in _rules(e, "sklearn", ap)) == absent
            assert ("fish" in " ".join(e.cells["perfeval"][roc].rules)) == absent
            assert ("tied at a row's top score" in _rules(e, "sklearn", "ACC_MC")) == tie
            assert ("sklearn/metrics/_ranking.py:2239" in _rules(e, "sklearn", "ACC_MC")) == tie
            assert ("torch.argmax" in _rules(e, "torchmetrics", "ACC_MC")) == tie
            assert ("softmax" in _rules(e, "torchmetrics", roc)) is False
            # a value differs from perfeval's only where a rule is listed
            for d in ("sklearn", "torchmetrics"):
                for m in e.measures:
                    c = e.cells[d][m]
                    if not c.rules and not c.note:
                        assert _close(c.value, e.value("perfeval", m)) or (
                            m == "MCC" and c.value == 0.0 and math.isnan(e.value("perfeval", m))
                        ), (d, m, c.value, e.value("perfeval", m))


def test_raw_scores_softmax_and_ovr_refusal():
    y, s = _data(1, raw=True)
    e = perfeval.explain(y, s, classes=CLASSES, measures="roc_ovr,ap_ovr")
    roc = "ROC_OVR:average=macro"
    assert "softmax" in _rules(e, "torchmetrics", roc)
    assert "Target scores need to be probabilities" in e.cells["sklearn"][roc].note
    assert math.isnan(e.value("sklearn", roc))
    with pytest.raises(ValueError, match="Target scores need to be probabilities"):
        sk.roc_auc_score(y, s, multi_class="ovr", labels=CLASSES)


def test_two_classes_ovr_and_topk_raise_in_sklearn():
    rng = np.random.default_rng(0)
    y = np.array(["a", "b"] * 10)
    s = rng.dirichlet(np.ones(2), 20)
    e = perfeval.explain(y, s, classes=["a", "b"], measures="roc_ovr,acc_mc")
    assert "binary branch" in e.cells["sklearn"]["ROC_OVR:average=macro"].note
    assert "raises for two classes" in e.cells["sklearn"]["ACC_MC"].note
    with pytest.raises(ValueError):
        sk.roc_auc_score(y, s, multi_class="ovr", labels=["a", "b"])
    with pytest.raises(ValueError):
        sk.top_k_accuracy_score(y, s, k=1, labels=["a", "b"])


def test_torchmetrics_fixture_cases_match():
    """The torchmetrics row equals torchmetrics' own numbers (tests/oracles/fixtures/
    torchmetrics_multiclass.json, float32: within 1e-6) on every multiclass case of the fixture whose
    scores torchmetrics did not softmax, absent classes and argmax ties included."""
    import json
    from pathlib import Path

    path = Path(__file__).parent / "oracles" / "fixtures" / "torchmetrics_multiclass.json"
    # softmaxed cases left out: torchmetrics' softmax rounds (its float32 ties differ from float64's)
    cases = [
        c
        for c in json.loads(path.read_text())["cases"]
        if c["task"] == "multiclass" and not c["facts"]["softmaxed"]
    ]
    pairs = (
        ("multiclass_auroc[average=macro]", "ROC_OVR:average=macro"),
        ("multiclass_auroc[average=weighted]", "ROC_OVR:average=weighted"),
        ("multiclass_average_precision[average=macro]", "AP_OVR:average=macro"),
        ("multiclass_accuracy[average=micro,top_k=1]", "ACC_MC"),
        ("multiclass_accuracy[average=macro,top_k=1]", "BACC"),
        ("multiclass_precision[average=macro]", "PRE_MC:average=macro"),
        ("multiclass_f1_score[average=macro]", "F_MC:average=macro"),
        ("multiclass_f1_score[average=weighted]", "F_MC:average=weighted"),
        ("multiclass_cohen_kappa[weights=none]", "KAPPA"),
    )
    checked = 0
    for case in cases:
        y = np.asarray(case["y"])
        s = np.asarray(case["s"], dtype=np.float64)
        k = s.shape[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = perfeval.explain(y, s, classes=list(range(k)), measures=",".join(lab for _, lab in pairs))
        results = {r["key"]: r for r in case["results"]}
        for key, label in pairs:
            got = results.get(key)
            if got is None or got.get("value") is None:
                continue
            want = float(got["value"])
            mine = e.value("torchmetrics", label)
            assert (math.isnan(want) and math.isnan(mine)) or abs(mine - want) <= 1e-6, (
                case["name"],
                key,
                mine,
                want,
            )
            checked += 1
    assert checked > 100
