"""``perfeval.explain`` of K classes: where scikit-learn's and torchmetrics' averages differ from
perfeval's on the user's own data, and why.

Each tool's value is computed here by perfeval's own kernels with that tool's rule (neither tool is
called): the prediction of a row (torchmetrics: ``torch.argmax``, the first of a tie; scikit-learn's
``top_k_accuracy_score``: the last; perfeval: a tie shares the row), the per-class numbers of
:mod:`perfeval.measures.confusion` and :mod:`perfeval.measures.multiclass`, and the tool's average
(what it does with a class that is absent, or one-sided).  A rule is listed under a value exactly
when it touched this data, with what it touched; its text cites the reasons of
tests/oracles/fixtures/torchmetrics_multiclass.md (the tools' source lines), where each rule is
checked against both tools.

The scikit-learn calls modelled: ``roc_auc_score(y, S, multi_class='ovr', labels=classes,
average=...)``, ``average_precision_score(label_binarize(y, classes=classes), S, average=...)``,
``top_k_accuracy_score(y, S, k=1, labels=classes)`` for accuracy, and for the label measures
``f1_score(y, classes[S.argmax(1)], average=...)`` (and family, ``balanced_accuracy_score``,
``matthews_corrcoef``, ``cohen_kappa_score``) without ``labels=``; torchmetrics' exact
``multiclass_*`` functions with ``num_classes=K``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfeval.measures import MeasureSpec
from perfeval.measures import confusion as K
from perfeval.measures import multiclass as mc
from perfeval.summaries.classes import ClassSummary

__all__ = ["Facts", "class_cells", "RULES"]

#: each rule's words (the reasons of tests/oracles/fixtures/torchmetrics_multiclass.md)
RULES = {
    "sk-ovr-k2": (
        "scikit-learn: roc_auc_score(multi_class='ovr') with two classes takes its binary branch and "
        "raises on an (n, 2) score array (sklearn/metrics/_ranking.py:730-737) [K = 2]"
    ),
    "sk-ovr-not-probabilities": (
        "scikit-learn: multi_class='ovr' refuses rows that do not sum to 1, 'Target scores need to be "
        "probabilities for multiclass roc_auc' (sklearn/metrics/_ranking.py:804-808) [{n} rows]"
    ),
    "sk-auc-one-sided": (
        "scikit-learn: a class with no positive target (or no negative) is NaN with 'Only one class is "
        "present in y_true' (sklearn/metrics/_ranking.py:466-476), which makes macro NaN; weighted gives "
        "a class of no support weight 0 (sklearn/metrics/_base.py:136); perfeval leaves it out and "
        "lists it [classes: {classes}]"
    ),
    "tm-auc-one-sided": (
        "torchmetrics: a class with no positive target (or no negative) has AUC 0 (its TPR or FPR "
        "curve set to zeros: functional/classification/roc.py:60-76), averaged into macro "
        "(auroc.py:57-66) and into weighted by its positives (auroc.py:204, 332); perfeval leaves it "
        "out and lists it [classes: {classes}]"
    ),
    "tm-softmax": (
        "torchmetrics: scores outside [0, 1] are replaced by their softmax over the classes "
        "(torchmetrics/utilities/compute.py:233-234), and each class's column of softmax ranked, not "
        "the raw column [{n} scores outside [0, 1]]"
    ),
    "sk-ap-absent": (
        "scikit-learn: a class absent from the targets has AP 0 ('No positive class found in y_true', "
        "sklearn/metrics/_ranking.py:1189-1196), averaged into macro; perfeval (and torchmetrics, "
        "average_precision.py:55-65) leave it out and list it [classes: {classes}]"
    ),
    "tm-ap-all-zero": (
        "torchmetrics: every target is the first class, so the check written for binary 0/1 targets "
        "(functional/classification/precision_recall_curve.py:279) sets every recall to one and the "
        "absent classes score 0, averaged in (as scikit-learn's); perfeval leaves them out "
        "[classes: {classes}]"
    ),
    "sk-topk-k2": (
        "scikit-learn: top_k_accuracy_score raises for two classes and an (n, 2) score array "
        "(sklearn/metrics/_ranking.py:2169-2175) [K = 2]"
    ),
    "sk-argmax-tie": (
        "scikit-learn: top_k_accuracy_score predicts the last of the classes tied at a row's top score "
        "(a stable ascending argsort, reversed: sklearn/metrics/_ranking.py:2239); perfeval shares the "
        "row among them [{n} rows tied at the top]"
    ),
    "argmax-tie": (
        "{tool} predicts the first of the classes tied at a row's top score ({where}); perfeval shares "
        "the row among them [{n} rows tied at the top]"
    ),
    "zero-division": (
        "{tool}: a class whose {what} is 0/0 (absent from the {of}) counts 0 and is averaged in "
        "({where}); perfeval leaves it out and lists it [classes: {classes}]"
    ),
    "balanced-absent": (
        "torchmetrics: the macro accuracy keeps a class predicted but absent from the targets, recall "
        "0 (torchmetrics/utilities/compute.py:87-93); balanced_accuracy_score and perfeval drop it "
        "[classes: {classes}]"
    ),
    "kappa-gap": (
        "scikit-learn: without labels= cohen_kappa_score's linear/quadratic weights are differences of "
        "positions among the labels present (sklearn/metrics/_classification.py:978, 1017-1023), so a "
        "class absent from both y and the prediction closes its gap [classes: {classes}]"
    ),
}

_TOOL = {"sklearn": "scikit-learn", "torchmetrics": "torchmetrics"}
_SK_ZERO = "sklearn/metrics/_classification.py:1859-1869"
_TM_ZERO = "torchmetrics/utilities/compute.py:87-93"
_TM_ARGMAX = "torch.argmax: functional/classification/stat_scores.py:341"
_SK_ARGMAX = "np.argmax, as a user passes y_pred"


def _names(classes: tuple, mask: np.ndarray) -> str:
    return ", ".join(str(c) for c, m in zip(classes, mask.tolist(), strict=True) if m)


def _first_argmax(s: np.ndarray) -> np.ndarray:
    return np.argmax(s, axis=1) if len(s) else np.zeros(0, dtype=np.intp)


def _last_argmax(s: np.ndarray, classes: tuple) -> np.ndarray:
    """The class scikit-learn's top_k_accuracy_score predicts: the last of a tie in the order of its
    sorted labels (it wants the columns so), as codes of ``classes``.
    """
    try:
        order = np.argsort(np.asarray(classes), kind="stable")
    except TypeError:  # labels numpy cannot order: the given order
        order = np.arange(len(classes))
    if not len(s):
        return np.zeros(0, dtype=np.intp)
    r = s[:, order][:, ::-1]
    return order[len(classes) - 1 - np.argmax(r, axis=1)]


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else math.nan


class Facts:
    """What the tools' rules can touch in one evaluation of K classes, counted once."""

    def __init__(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, classes: tuple):
        self.y, self.s, self.w, self.classes = y, s, w, classes
        self.k = len(classes)
        self.cs = ClassSummary.from_checked(y, s, w, classes)
        self.support = self.cs.n_class
        self.absent = self.support == 0
        top = s == s.max(axis=1, keepdims=True) if len(s) else np.zeros((0, self.k), dtype=bool)
        self.tied_rows = int(np.count_nonzero(np.count_nonzero(top, axis=1) > 1))
        self.first = _first_argmax(s)
        self.last = _last_argmax(s, classes)
        self.outside = int(np.count_nonzero((s < 0) | (s > 1)))
        sums = s.sum(axis=1) if len(s) else np.zeros(0)
        self.not_probabilities = int(np.count_nonzero(~np.isclose(sums, 1.0, rtol=0, atol=1e-8)))

    def confusion(self, p: np.ndarray) -> np.ndarray:
        return K.confusion(self.y, p, self.k, self.w)


def class_cells(f: Facts | Any, spec: MeasureSpec, ours: float) -> dict[str, tuple[float, str, list[str]]]:
    """scikit-learn's and torchmetrics' value of one multiclass measure on the facts' data: for each
    tool (value, why there is none, the rules that touched this data).
    """
    name = spec.measure.name
    average = spec.kwargs.get("average", "macro")
    fn = _MEASURES.get(name)
    if fn is None:
        return {}
    return fn(f, spec, average)


def _auc(f: Facts, spec: MeasureSpec, average: str) -> dict:
    out: dict[str, tuple[float, str, list[str]]] = {}
    per = mc.roc_ovr_per_class(f.cs)
    n = f.support
    one_sided = np.isnan(per)
    # scikit-learn
    if f.k == 2:
        out["sklearn"] = (math.nan, RULES["sk-ovr-k2"], [])
    elif f.not_probabilities:
        out["sklearn"] = (math.nan, RULES["sk-ovr-not-probabilities"].format(n=f.not_probabilities), [])
    elif average == "micro":
        out["sklearn"] = (math.nan, "scikit-learn: multi_class='ovr' has no average='micro'", [])
    else:
        rules = (
            [RULES["sk-auc-one-sided"].format(classes=_names(f.classes, one_sided))]
            if one_sided.any()
            else []
        )
        if average == "macro":
            value = math.nan if one_sided.any() else _mean(per)
        else:
            keep = ~one_sided | (n > 0)
            value = math.nan if (one_sided & (n > 0)).any() else float(np.average(per[keep], weights=n[keep]))
        out["sklearn"] = (value, "", rules)
    # torchmetrics
    rules = []
    cs, tper = f.cs, per
    if f.outside:
        cs = ClassSummary.from_checked(f.y, _softmax(f.s), f.w, f.classes)
        tper = mc.roc_ovr_per_class(cs)
        rules.append(RULES["tm-softmax"].format(n=f.outside))
    if average == "micro":
        return out
    t_one = np.isnan(tper)
    if t_one.any():
        rules.append(RULES["tm-auc-one-sided"].format(classes=_names(f.classes, t_one)))
    zeroed = np.where(t_one, 0.0, tper)
    if average == "macro":
        value = _mean(zeroed)
    else:
        total = n.sum()
        value = float((zeroed * n).sum() / total) if total > 0 else math.nan
    out["torchmetrics"] = (value, "", rules)
    return out


def _ap(f: Facts, spec: MeasureSpec, average: str) -> dict:
    out: dict[str, tuple[float, str, list[str]]] = {}
    per = mc.ap_ovr_per_class(f.cs)
    if average == "macro":
        rules = [RULES["sk-ap-absent"].format(classes=_names(f.classes, f.absent))] if f.absent.any() else []
        out["sklearn"] = (_mean(np.where(f.absent, 0.0, per)), "", rules)
    if average == "micro":
        return out
    rules = []
    if f.outside:
        per = mc.ap_ovr_per_class(ClassSummary.from_checked(f.y, _softmax(f.s), f.w, f.classes))
        rules.append(RULES["tm-softmax"].format(n=f.outside))
    if f.support.sum() > 0 and f.support[0] == f.support.sum() and f.absent.any():
        # every target class 0: torchmetrics' binary check fires for every class
        per = np.where(f.absent, 0.0, per)
        rules.append(RULES["tm-ap-all-zero"].format(classes=_names(f.classes, f.absent)))
    out["torchmetrics"] = (K.average(per, None if average == "macro" else f.support), "", rules)
    return out


def _tie_rules(f: Facts, tools: tuple[str, ...] = ("sklearn", "torchmetrics")) -> dict[str, list[str]]:
    if not f.tied_rows:
        return {t: [] for t in tools}
    where = {"sklearn": _SK_ARGMAX, "torchmetrics": _TM_ARGMAX}
    return {
        t: [
            RULES["argmax-tie"].format(
                tool=t if t != "sklearn" else "scikit-learn", where=where[t], n=f.tied_rows
            )
        ]
        for t in tools
    }


def _accuracy(f: Facts, spec: MeasureSpec, average: str) -> dict:
    out: dict[str, tuple[float, str, list[str]]] = {}
    if f.k == 2:
        out["sklearn"] = (math.nan, RULES["sk-topk-k2"], [])
    else:
        rules = [RULES["sk-argmax-tie"].format(n=f.tied_rows)] if f.tied_rows else []
        out["sklearn"] = (K.accuracy(f.confusion(f.last)), "", rules)
    out["torchmetrics"] = (K.accuracy(f.confusion(f.first)), "", _tie_rules(f)["torchmetrics"])
    return out


def _prf(which: str) -> Any:
    at = ("precision", "recall", "f").index(which)
    what = {"precision": "precision", "recall": "recall", "f": "F"}[which]

    def cells(f: Facts, spec: MeasureSpec, average: str) -> dict:
        beta = float(spec.kwargs.get("beta", 1.0))
        c = f.confusion(f.first)
        tp, pred, true, _ = K.class_counts(c)
        per = K.precision_recall_fbeta(tp, pred, true, beta)[at]
        seen = (true > 0) | (
            pred > 0
        )  # scikit-learn's labels present in y or y_pred; torchmetrics' tp+fp+fn > 0
        undefined = np.isnan(per) & seen & ((true > 0) if average == "weighted" else True)
        if average == "micro":
            value = K.prf_average(tp, pred, true, "micro", beta)[at]
        elif average == "macro":
            value = _mean(np.where(np.isnan(per), 0.0, per)[seen])
        else:
            total = true.sum()
            value = float((np.where(np.isnan(per), 0.0, per) * true).sum() / total) if total > 0 else math.nan
        ties = _tie_rules(f)
        of = (
            "predictions"
            if which == "precision"
            else "targets"
            if which == "recall"
            else "targets and predictions"
        )
        out = {}
        for tool, where in (("sklearn", _SK_ZERO), ("torchmetrics", _TM_ZERO)):
            rules = list(ties[tool])
            if undefined.any() and average != "micro":
                rules.append(
                    RULES["zero-division"].format(
                        tool=_TOOL[tool],
                        what=what,
                        of=of,
                        where=where,
                        classes=_names(f.classes, undefined),
                    )
                )
            out[tool] = (float(value), "", rules)
        return out

    return cells


def _bacc(f: Facts, spec: MeasureSpec, average: str) -> dict:
    c = f.confusion(f.first)
    tp, pred, true, _ = K.class_counts(c)
    ties = _tie_rules(f)
    out = {"sklearn": (K.balanced_accuracy(c), "", ties["sklearn"])}
    rec = K.precision_recall_fbeta(tp, pred, true)[1]
    extra = (true == 0) & (pred > 0)
    rules = list(ties["torchmetrics"])
    if extra.any():
        rules.append(RULES["balanced-absent"].format(classes=_names(f.classes, extra)))
    seen = (true > 0) | (pred > 0)
    out["torchmetrics"] = (_mean(np.where(np.isnan(rec), 0.0, rec)[seen]), "", rules)
    return out


def _mcc(f: Facts, spec: MeasureSpec, average: str) -> dict:
    ties = _tie_rules(f)
    m = K.matthews(f.confusion(f.first))
    out = {"sklearn": (0.0 if math.isnan(m) else m, "", ties["sklearn"])}
    if not math.isnan(m):
        out["torchmetrics"] = (m, "", ties["torchmetrics"])
    return out


def _kappa(f: Facts, spec: MeasureSpec, average: str) -> dict:
    weights = spec.kwargs.get("weights", "none") if spec.measure.name == "KAPPA" else "quadratic"
    weights = None if weights == "none" else weights
    c = f.confusion(f.first)
    ties = _tie_rules(f)
    present = (c.sum(axis=0) > 0) | (c.sum(axis=1) > 0)
    rules = list(ties["sklearn"])
    gap = ~present & (np.cumsum(present) > 0) & (np.cumsum(present[::-1])[::-1] > 0)
    if weights is not None and gap.any():
        rules.append(RULES["kappa-gap"].format(classes=_names(f.classes, gap)))
    sk = K.cohen_kappa(c[np.ix_(present, present)], weights)
    return {
        "sklearn": (sk, "", rules),
        "torchmetrics": (K.cohen_kappa(c, weights), "", ties["torchmetrics"]),
    }


_MEASURES = {
    "ROC_OVR": _auc,
    "AP_OVR": _ap,
    "ACC_MC": _accuracy,
    "PRE_MC": _prf("precision"),
    "REC_MC": _prf("recall"),
    "F_MC": _prf("f"),
    "BACC": _bacc,
    "MCC": _mcc,
    "KAPPA": _kappa,
    "QWK": _kappa,
}
