"""perfeval's multiclass and multilabel engine against torchmetrics 1.9.0 (issue 32).

tests/oracles/fixtures/torchmetrics_multiclass.json holds torchmetrics' values on seeded cases
(tests/test_multiclass_torchmetrics_fixture.py checks the fixture itself). Here every torchmetrics
result whose definition AGREES with perfeval's on that case is compared with ``evaluate()`` within
1e-6 (torchmetrics returns float32). A case or class is left out only by a named rule below (a
predicate on the case, each citing the reason of tests/oracles/fixtures/torchmetrics_multiclass.md
it rests on); each rule is itself tested: on at least one case it excludes, torchmetrics' value
differs from perfeval's in the documented way. The comparisons are counted, and a minimum is
asserted, so the test cannot silently compare nothing. Nothing here needs torch.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import perfeval

FIXTURES = Path(__file__).resolve().parent / "oracles" / "fixtures"
FIXTURE = json.loads((FIXTURES / "torchmetrics_multiclass.json").read_text())
CASES = FIXTURE["cases"]
MC = [c for c in CASES if c["task"] == "multiclass"]
ML = [c for c in CASES if c["task"] == "multilabel"]
TOL = 1e-6  # torchmetrics returns float32
BETA = FIXTURE["notes"]["fbeta_beta"]
#: torchmetrics predicts a label on when its probability is > 0.5; perfeval when score >= threshold
ABOVE_HALF = float(np.nextafter(0.5, 1.0))


def _arr(v: Any) -> np.ndarray:
    return np.asarray(v, dtype=np.float64)  # null (NaN) -> nan


def _tm(c: dict, key: str) -> dict:
    (r,) = [r for r in c["results"] if r["key"] == key]
    return r


# ---------------------------------------------------------------------------------------------
# The rules: each is a predicate on a case (or a case and a class) that says where torchmetrics'
# definition and perfeval's part, with the reason of torchmetrics_multiclass.md it rests on.
# ---------------------------------------------------------------------------------------------


def softmaxed(c: dict) -> bool:
    """'softmax' (multiclass) / sigmoid (multilabel): a score outside [0, 1] makes torchmetrics'
    ranking functions rank softmax(s) (sigmoid(s)), not s (torchmetrics/utilities/compute.py:233-234);
    perfeval ranks s as given. Probabilities only."""
    return bool(c["facts"]["softmaxed" if c["task"] == "multiclass" else "sigmoided"])


def argmax_tie(c: dict) -> bool:
    """'argmax-tie': a row whose largest score is tied: torch.argmax predicts the first tied class
    (functional/classification/stat_scores.py:341); perfeval shares the row among the tied classes."""
    return c["facts"]["rows_with_argmax_tie"] > 0


def topk_tie(c: dict, k: int) -> bool:
    """'topk-tie': the k-th and (k+1)-th largest scores of a row tie: torch.topk picks which tied
    classes are in (torchmetrics/utilities/data.py:121); perfeval counts the expected share."""
    return c["facts"][f"rows_with_top{k}_boundary_tie"] > 0


def class_one_sided(c: dict, j: int) -> bool:
    """'auc-one-sided': class j has no positive target or no negative one: torchmetrics scores its
    AUC 0 (functional/classification/roc.py:60-76); perfeval's is undefined (NaN), left out."""
    y = np.asarray(c["y"])
    col = (y == j) if c["task"] == "multiclass" else y[:, j] == 1
    return bool(col.all() or not col.any())


def any_one_sided(c: dict) -> bool:
    """'auc-one-sided' for macro: torchmetrics averages the one-sided class's 0 in (auroc.py:57-66)."""
    return any(class_one_sided(c, j) for j in range(_k(c)))


def no_negatives(c: dict) -> bool:
    """'auc-one-sided' for weighted: a class (label) without negatives keeps its weight (its
    positives) with AUC 0 in torchmetrics (auroc.py:204, 332); a class without positives weighs 0."""
    y = np.asarray(c["y"])
    if c["task"] == "multiclass":
        return bool(c["facts"]["every_target"])
    return bool(c["facts"]["labels_without_negatives"]) or bool((y.all(axis=0)).any())


def ap_all_class_zero(c: dict) -> bool:
    """'ap-absent': when every target is class 0, torchmetrics' binary check (precision_recall_curve.py:
    279) sets the absent classes' recall to one and their AP to -0.0, averaged into macro; otherwise
    an absent class's AP is NaN and left out of macro, as perfeval leaves it out."""
    return c["facts"]["every_target"] == [0]


def predicted_but_absent(c: dict) -> bool:
    """'balanced-absent': a class predicted but absent from the targets: torchmetrics' macro recall
    keeps it with recall 0/0 -> 0 and weight 1 since tp + fp + fn > 0 (torchmetrics/utilities/
    compute.py:87-93); perfeval's recall of it is undefined, left out (BACC, REC_MC)."""
    return any(j in c["argmax"] for j in c["facts"]["absent_from_targets"])


def present_but_never_predicted(c: dict) -> bool:
    """The same rule of torchmetrics (utilities/compute.py:87-93, 'balanced-absent') for precision:
    a class in the targets that argmax never predicts has precision 0/0 -> 0 with weight 1 (macro) or
    its support (weighted) in torchmetrics; perfeval's precision of it is undefined, left out."""
    absent = set(c["facts"]["absent_from_targets"])
    return any(j not in absent for j in c["facts"]["never_predicted"])


def mcc_degenerate(c: dict) -> bool:
    """'mcc-k2': every target, or every prediction, in one class: the MCC's denominator is 0; perfeval
    says NaN (its documented edge), torchmetrics returns a number (matthews_corrcoef.py:46-52, 67-85)."""
    return bool(c["facts"]["every_target"]) or len(set(c["argmax"])) == 1


def ranking_ties(c: dict) -> bool:
    """'ranking-loss-ties': a relevant and an irrelevant label tied in a row: torchmetrics counts the
    pair by argsort's order (functional/classification/ranking.py:208); perfeval as wrong."""
    return c["facts"]["tied_relevant_irrelevant_pairs"] > 0


def label_without_positives(c: dict) -> bool:
    """'ap-absent' for labels: a label without positives: torchmetrics' multilabel AP scores it 0 (as
    scikit-learn, with which the fixture's table finds it agrees) and averages it into macro; perfeval's
    is undefined, left out."""
    return bool(c["facts"]["labels_without_positives"])


def label_empty(c: dict) -> bool:
    """A label with no positive target and never predicted (tp + fp + fn = 0): torchmetrics' macro
    gives weight 0 to such a class only for multiclass (`if not multilabel`, torchmetrics/utilities/
    compute.py:87-93, the rule behind 'macro-absent-both'); for multilabel it averages the label's
    0/0 -> 0 in, as scikit-learn's f1_score (the table's f1 macro rows agree); perfeval leaves it out."""
    return any(j in c["facts"]["labels_never_predicted"] for j in c["facts"]["labels_without_positives"])


def _k(c: dict) -> int:
    return int(c.get("num_classes", c.get("num_labels")))


# ---------------------------------------------------------------------------------------------
# The comparisons: torchmetrics key -> (perfeval spec, what to compare, the rule that excludes).
# ``per_class``: compare the per-class values of the classes ``keep(c, j)`` says are defined in
# both (the others are excluded by that predicate's rule); else the one value.
# ---------------------------------------------------------------------------------------------


def _absent(c: dict, j: int) -> bool:
    return j in c["facts"]["absent_from_targets"]


def _absent_both(c: dict, j: int) -> bool:
    return j in c["facts"]["absent_from_both"]


def _never_predicted(c: dict, j: int) -> bool:
    return j in c["facts"]["never_predicted"]


class Cmp:
    def __init__(
        self,
        key: str,
        spec: str,
        exclude: Callable[[dict], bool] | None = None,
        drop_class: Callable[[dict, int], bool] | None = None,
    ) -> None:
        self.key, self.spec, self.exclude, self.drop_class = key, spec, exclude, drop_class
        self.per_class = "average=none" in key


def _any(*preds: Callable[[dict], bool]) -> Callable[[dict], bool]:
    return lambda c: any(p(c) for p in preds)


MC_CMPS = [
    Cmp("multiclass_auroc[average=macro]", "ROC_OVR:average=macro", _any(softmaxed, any_one_sided)),
    Cmp("multiclass_auroc[average=weighted]", "ROC_OVR:average=weighted", _any(softmaxed, no_negatives)),
    Cmp("multiclass_auroc[average=none]", "ROC_OVR:average=macro", softmaxed, class_one_sided),
    Cmp(
        "multiclass_average_precision[average=macro]",
        "AP_OVR:average=macro",
        _any(softmaxed, ap_all_class_zero),
    ),
    Cmp("multiclass_average_precision[average=weighted]", "AP_OVR:average=weighted", softmaxed),
    # an absent class's AP: NaN in both (null in the fixture), compared as such
    Cmp(
        "multiclass_average_precision[average=none]",
        "AP_OVR:average=macro",
        _any(softmaxed, ap_all_class_zero),
    ),
    Cmp("multiclass_accuracy[average=micro,top_k=1]", "ACC_MC", argmax_tie),
    Cmp("multiclass_accuracy[average=macro,top_k=1]", "BACC", _any(argmax_tie, predicted_but_absent)),
    Cmp("multiclass_accuracy[average=none,top_k=1]", "REC_MC:average=macro", argmax_tie, _absent),
    Cmp("multiclass_accuracy[average=micro,top_k=2]", "TOPK_ACC:k=2", lambda c: topk_tie(c, 2)),
    Cmp("multiclass_accuracy[average=micro,top_k=3]", "TOPK_ACC:k=3", lambda c: topk_tie(c, 3)),
    Cmp("multiclass_precision[average=micro]", "PRE_MC:average=micro", argmax_tie),
    Cmp(
        "multiclass_precision[average=macro]",
        "PRE_MC:average=macro",
        _any(argmax_tie, present_but_never_predicted),
    ),
    Cmp(
        "multiclass_precision[average=weighted]",
        "PRE_MC:average=weighted",
        _any(argmax_tie, present_but_never_predicted),
    ),
    Cmp("multiclass_precision[average=none]", "PRE_MC:average=macro", argmax_tie, _never_predicted),
    Cmp("multiclass_recall[average=micro]", "REC_MC:average=micro", argmax_tie),
    Cmp("multiclass_recall[average=macro]", "REC_MC:average=macro", _any(argmax_tie, predicted_but_absent)),
    Cmp("multiclass_recall[average=weighted]", "REC_MC:average=weighted", argmax_tie),
    Cmp("multiclass_recall[average=none]", "REC_MC:average=macro", argmax_tie, _absent),
    Cmp("multiclass_f1_score[average=micro]", "F_MC:beta=1,average=micro", argmax_tie),
    Cmp("multiclass_f1_score[average=macro]", "F_MC:beta=1,average=macro", argmax_tie),
    Cmp("multiclass_f1_score[average=weighted]", "F_MC:beta=1,average=weighted", argmax_tie),
    Cmp("multiclass_f1_score[average=none]", "F_MC:beta=1,average=macro", argmax_tie, _absent_both),
    Cmp("multiclass_fbeta_score[average=micro]", f"F_MC:beta={BETA},average=micro", argmax_tie),
    Cmp("multiclass_fbeta_score[average=macro]", f"F_MC:beta={BETA},average=macro", argmax_tie),
    Cmp("multiclass_fbeta_score[average=weighted]", f"F_MC:beta={BETA},average=weighted", argmax_tie),
    Cmp("multiclass_fbeta_score[average=none]", f"F_MC:beta={BETA},average=macro", argmax_tie, _absent_both),
    Cmp("multiclass_matthews_corrcoef", "MCC", _any(argmax_tie, mcc_degenerate)),
    Cmp("multiclass_cohen_kappa[weights=none]", "KAPPA:weights=none", argmax_tie),
    Cmp("multiclass_cohen_kappa[weights=linear]", "KAPPA:weights=linear", argmax_tie),
    Cmp("multiclass_cohen_kappa[weights=quadratic]", "KAPPA:weights=quadratic", argmax_tie),
]

_T = f"threshold={ABOVE_HALF!r}"
ML_CMPS = [
    Cmp("multilabel_auroc[average=macro]", "ROC_ML:average=macro", _any(softmaxed, any_one_sided)),
    Cmp("multilabel_auroc[average=micro]", "ROC_ML:average=micro", softmaxed),
    Cmp("multilabel_auroc[average=weighted]", "ROC_ML:average=weighted", _any(softmaxed, no_negatives)),
    Cmp("multilabel_auroc[average=none]", "ROC_ML:average=macro", softmaxed, class_one_sided),
    Cmp(
        "multilabel_average_precision[average=macro]",
        "AP_ML:average=macro",
        _any(softmaxed, label_without_positives),
    ),
    Cmp("multilabel_average_precision[average=micro]", "AP_ML:average=micro", softmaxed),
    Cmp("multilabel_average_precision[average=weighted]", "AP_ML:average=weighted", softmaxed),
    Cmp(
        "multilabel_average_precision[average=none]",
        "AP_ML:average=macro",
        softmaxed,
        lambda c, j: j in c["facts"]["labels_without_positives"],
    ),
    Cmp("multilabel_ranking_average_precision", "LRAP"),
    Cmp("multilabel_coverage_error", "COVERAGE"),
    Cmp("multilabel_ranking_loss", "RANKING_LOSS", ranking_ties),
    Cmp("multilabel_hamming_distance[average=micro]", f"HAMMING:{_T}", softmaxed),
    Cmp("multilabel_hamming_distance[average=macro]", f"HAMMING:{_T}", softmaxed),
    Cmp("multilabel_exact_match", f"SUBSET_ACC:{_T}", softmaxed),
    Cmp("multilabel_f1_score[average=micro]", f"F_ML:{_T},average=micro", softmaxed),
    Cmp("multilabel_f1_score[average=macro]", f"F_ML:{_T},average=macro", _any(softmaxed, label_empty)),
    Cmp("multilabel_f1_score[average=weighted]", f"F_ML:{_T},average=weighted", softmaxed),
    Cmp(
        "multilabel_f1_score[average=none]",
        f"F_ML:{_T},average=macro",
        softmaxed,
        lambda c, j: (
            j in c["facts"]["labels_without_positives"] and j in c["facts"]["labels_never_predicted"]
        ),
    ),
]


def _perfeval(c: dict, specs: list[str]) -> dict[str, Any]:
    s = _arr(c["s"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if c["task"] == "multiclass":
            rep = perfeval.evaluate(np.asarray(c["y"]), s, classes=list(range(_k(c))), measures=specs)
        else:
            rep = perfeval.evaluate(np.asarray(c["y"]), s, measures=specs)
    return dict(zip(specs, rep.results.values(), strict=True))


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (np.abs(a - b) <= TOL) | (np.isnan(a) & np.isnan(b))


def _compare(c: dict, cmps: list[Cmp]) -> tuple[list[tuple[str, int]], list[str]]:
    """(the (key, values compared) made on case c, the disagreements found)."""
    todo = [m for m in cmps if "value" in _tm(c, m.key) and not (m.exclude and m.exclude(c))]
    got = _perfeval(c, sorted({m.spec for m in todo}))
    made, bad = [], []
    for m in todo:
        tm, res = _arr(_tm(c, m.key)["value"]), got[m.spec]
        if m.per_class:
            keep = [j for j in range(_k(c)) if not (m.drop_class and m.drop_class(c, j))]
            ours, theirs = _arr(res.per_class)[keep], tm[keep]
        else:
            ours, theirs = _arr(res.value), tm
        ok = _same(ours, theirs)
        made.append((m.key, int(ours.size)))
        if not ok.all():
            bad.append(f"{c['name']} {m.key}: perfeval {ours.tolist()} torchmetrics {theirs.tolist()}")
    return made, bad


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_perfeval_equals_torchmetrics_where_the_definitions_agree(c):
    made, bad = _compare(c, MC_CMPS if c["task"] == "multiclass" else ML_CMPS)
    assert not bad, "\n".join(bad)


#: torchmetrics results with no perfeval counterpart to compare with (not an exclusion by case)
NOT_COMPARED = {
    # per-class top-k recall: perfeval's TOPK_ACC is the micro share only
    "multiclass_accuracy[average=macro,top_k=2]",
    "multiclass_accuracy[average=none,top_k=2]",
    "multiclass_accuracy[average=macro,top_k=3]",
    "multiclass_accuracy[average=none,top_k=3]",
    # evaluate() reports measures, not the confusion matrix itself
    "multiclass_confusion_matrix",
    # 'f1-samples': torchmetrics has no average='samples' (it raises on every case)
    "multilabel_f1_score[average=samples]",
}


def test_every_torchmetrics_result_is_compared_or_named_as_not_comparable():
    for task, cmps in (("multiclass", MC_CMPS), ("multilabel", ML_CMPS)):
        keys = {m.key for m in cmps}
        assert len(keys) == len(cmps)
        assert keys | (NOT_COMPARED & set(FIXTURE["keys"][task])) == set(FIXTURE["keys"][task])
        assert not keys & NOT_COMPARED


def test_the_rules_read_the_facts_they_claim():
    """The facts the predicates read, recomputed from y and s."""
    for c in MC:
        y, s, k = np.asarray(c["y"]), _arr(c["s"]), _k(c)
        top = np.sort(s, axis=1)[:, ::-1]
        assert argmax_tie(c) == bool((top[:, 0] == top[:, 1]).any()), c["name"]
        for kk in (2, 3):
            if kk < k:
                assert topk_tie(c, kk) == bool((top[:, kk - 1] == top[:, kk]).any()), (c["name"], kk)
        assert c["facts"]["every_target"] == ([int(y[0])] if len(set(y.tolist())) == 1 else [])
        assert c["facts"]["absent_from_both"] == [
            j for j in range(k) if j not in y.tolist() and j not in c["argmax"]
        ]
    for c in ML:
        y, s = np.asarray(c["y"]), _arr(c["s"])
        pred = np.asarray(c["pred"])
        assert c["facts"]["labels_never_predicted"] == [j for j in range(_k(c)) if not pred[:, j].any()]
        assert c["facts"]["labels_without_negatives"] == [j for j in range(_k(c)) if y[:, j].all()]
        tied = sum(int((s[i][y[i] == 1][:, None] == s[i][y[i] == 0][None, :]).sum()) for i in range(len(y)))
        assert ranking_ties(c) == (tied > 0), c["name"]


def test_the_comparisons_are_many_and_cover_every_measure():
    """Recounted here (not from the parametrized test, which may be deselected): how many values."""
    counts: Counter[str] = Counter()
    for c in CASES:
        made, _bad = _compare(c, MC_CMPS if c["task"] == "multiclass" else ML_CMPS)
        for key, n in made:
            counts[key] += n
    for m in MC_CMPS + ML_CMPS:  # each comparison compares something, on several cases
        assert counts[m.key] >= 5, (m.key, counts[m.key])
    assert sum(counts.values()) >= 3000, sum(counts.values())


# ---------------------------------------------------------------------------------------------
# Each rule excludes for its stated reason: on the cases it excludes, torchmetrics' value is
# perfeval's, redone the documented torchmetrics way (and differs from perfeval's on at least one).
# ---------------------------------------------------------------------------------------------


def _value(c: dict, spec: str, s: np.ndarray | None = None, y: Any = None) -> Any:
    c2 = dict(c, s=c["s"] if s is None else s.tolist(), y=c["y"] if y is None else y)
    return _perfeval(c2, [spec])[spec]


def _cases(cases: list[dict], rule: Callable[[dict], bool], *also_not: Callable[[dict], bool]) -> list[dict]:
    out = [c for c in cases if rule(c) and not any(p(c) for p in also_not)]
    assert out, rule.__name__
    return out


def test_softmax_rule_torchmetrics_ranks_the_softmax():
    differs = 0
    # Only continuous raw scores ('raw'): on a grid ('raw-1dp') rows of equal score differences have
    # equal softmax values in exact arithmetic, and which of them torch's rounding splits (it does)
    # decides the ranking; numpy's softmax cannot reproduce those bits.
    for c in _cases(MC, lambda c: softmaxed(c) and c["kind"] == "raw", any_one_sided):
        s = _arr(c["s"])
        e = np.exp(s - s.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        for key, spec in [
            ("multiclass_auroc[average=macro]", "ROC_OVR:average=macro"),
            ("multiclass_average_precision[average=weighted]", "AP_OVR:average=weighted"),
        ]:
            tm = _tm(c, key)["value"]
            assert abs(_value(c, spec, p).value - tm) <= TOL, (c["name"], key)
            differs += abs(_value(c, spec).value - tm) > TOL
    assert differs >= 1


def test_sigmoid_rule_torchmetrics_thresholds_and_ranks_the_sigmoid():
    differs = 0
    for c in _cases(ML, softmaxed, label_empty):
        p = 1 / (1 + np.exp(-_arr(c["s"])))
        for key, spec in [
            ("multilabel_auroc[average=micro]", "ROC_ML:average=micro"),
            ("multilabel_f1_score[average=macro]", f"F_ML:{_T},average=macro"),
        ]:
            tm = _tm(c, key)["value"]
            assert abs(_value(c, spec, p).value - tm) <= TOL, (c["name"], key)
            differs += abs(_value(c, spec).value - tm) > TOL
    assert differs >= 1


def test_argmax_tie_rule_torchmetrics_takes_the_first_tied_class():
    differs = 0
    for c in _cases(MC, argmax_tie):
        first = np.eye(_k(c))[c["argmax"]]  # a one-hot of torch.argmax's pick: no tie left
        for key, spec in [
            ("multiclass_accuracy[average=micro,top_k=1]", "ACC_MC"),
            ("multiclass_f1_score[average=weighted]", "F_MC:beta=1,average=weighted"),
            ("multiclass_cohen_kappa[weights=quadratic]", "KAPPA:weights=quadratic"),
        ]:
            tm, ours = _arr(_tm(c, key)["value"]), _arr(_value(c, spec, first).value)
            assert _same(ours, tm), (c["name"], key)
            differs += not _same(_arr(_value(c, spec).value), tm)
    assert differs >= 1


@pytest.mark.parametrize("k", [2, 3])
def test_topk_tie_rule_excludes_cases_where_the_pick_matters(k):
    cases = _cases(MC, lambda c: topk_tie(c, k) and k < _k(c))
    key = f"multiclass_accuracy[average=micro,top_k={k}]"
    assert any(abs(_value(c, f"TOPK_ACC:k={k}").value - _tm(c, key)["value"]) > TOL for c in cases)


def _zero_for(per_class: Any, drop: list[int]) -> np.ndarray:
    v = _arr(per_class).copy()
    v[drop] = 0.0
    return v


def test_one_sided_rule_torchmetrics_averages_a_zero_auc():
    for cases, cmps_key, spec in [
        (MC, "multiclass_auroc", "ROC_OVR"),
        (ML, "multilabel_auroc", "ROC_ML"),
    ]:
        for c in _cases(cases, any_one_sided, softmaxed):
            k = _k(c)
            one = [j for j in range(k) if class_one_sided(c, j)]
            auc = _zero_for(_value(c, f"{spec}:average=macro").per_class, one)
            tm = _tm(c, f"{cmps_key}[average=macro]")["value"]
            assert abs(auc.mean() - tm) <= TOL, c["name"]
            y = np.asarray(c["y"])
            pos = np.bincount(y, minlength=k) if c["task"] == "multiclass" else y.sum(axis=0)
            tm_w = _tm(c, f"{cmps_key}[average=weighted]")["value"]
            assert abs((pos * auc).sum() / pos.sum() - tm_w) <= TOL, c["name"]
            assert _tm(c, f"{cmps_key}[average=none]")["value"][one[0]] == 0.0


def test_ap_all_class_zero_rule_absent_classes_score_zero():
    for c in _cases(MC, ap_all_class_zero, softmaxed):
        ap = _zero_for(_value(c, "AP_OVR:average=macro").per_class, c["facts"]["absent_from_targets"])
        assert abs(ap.mean() - _tm(c, "multiclass_average_precision[average=macro]")["value"]) <= TOL


def test_label_without_positives_rule_torchmetrics_averages_a_zero_ap():
    for c in _cases(ML, label_without_positives, softmaxed):
        ap = _zero_for(_value(c, "AP_ML:average=macro").per_class, c["facts"]["labels_without_positives"])
        assert abs(ap.mean() - _tm(c, "multilabel_average_precision[average=macro]")["value"]) <= TOL


def _macro_seen(c: dict, per_class: Any) -> float:
    """torchmetrics' multiclass macro: 0/0 -> 0, a class with tp + fp + fn = 0 weighs 0."""
    v = np.nan_to_num(_arr(per_class))
    seen = [j for j in range(_k(c)) if j not in c["facts"]["absent_from_both"]]
    return float(v[seen].mean())


def test_predicted_but_absent_rule_torchmetrics_keeps_a_zero_recall():
    cases = _cases(MC, predicted_but_absent, argmax_tie)
    for c in cases:
        rec = _value(c, "REC_MC:average=macro").per_class
        for key in ("multiclass_accuracy[average=macro,top_k=1]", "multiclass_recall[average=macro]"):
            assert abs(_macro_seen(c, rec) - _tm(c, key)["value"]) <= TOL, (c["name"], key)
    assert any(
        abs(_value(c, "BACC").value - _tm(c, "multiclass_recall[average=macro]")["value"]) > TOL
        for c in cases
    )


def test_never_predicted_rule_torchmetrics_keeps_a_zero_precision():
    for c in _cases(MC, present_but_never_predicted, argmax_tie):
        pre = _value(c, "PRE_MC:average=macro").per_class
        assert abs(_macro_seen(c, pre) - _tm(c, "multiclass_precision[average=macro]")["value"]) <= TOL
        support = np.bincount(c["y"], minlength=_k(c))
        weighted = (support * np.nan_to_num(_arr(pre))).sum() / support.sum()
        assert abs(weighted - _tm(c, "multiclass_precision[average=weighted]")["value"]) <= TOL


def test_label_empty_rule_torchmetrics_averages_a_zero_f1():
    for c in _cases(ML, label_empty, softmaxed):
        f1 = np.nan_to_num(_arr(_value(c, f"F_ML:{_T},average=macro").per_class))
        assert abs(f1.mean() - _tm(c, "multilabel_f1_score[average=macro]")["value"]) <= TOL, c["name"]


def test_mcc_degenerate_rule_perfeval_says_nan_torchmetrics_a_number():
    for c in _cases(MC, mcc_degenerate, argmax_tie):
        assert np.isnan(_value(c, "MCC").value), c["name"]
        assert isinstance(_tm(c, "multiclass_matthews_corrcoef")["value"], float), c["name"]


def test_ranking_ties_rule_torchmetrics_counts_fewer_tied_pairs():
    cases = _cases(ML, ranking_ties)
    diffs = [_value(c, "RANKING_LOSS").value - _tm(c, "multilabel_ranking_loss")["value"] for c in cases]
    assert min(diffs) >= -TOL and max(diffs) > TOL  # perfeval counts every tied pair wrong
