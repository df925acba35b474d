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
``top_k_accuracy_score(y, S, k=1, labels=classes)`` for accuracy (``k=k`` for top-k),
``roc_auc_score(y, S, multi_class='ovo', labels=classes, average=...)``, ``log_loss(y, S,
labels=classes)`` and ``brier_score_loss(y, S, labels=classes)``, and for the label measures
``f1_score(y, classes[S.argmax(1)], average=...)`` (and family, ``balanced_accuracy_score``,
``matthews_corrcoef``, ``cohen_kappa_score``) without ``labels=``; scikit-learn wants ``labels``
sorted and the columns in their order (as ``predict_proba`` gives them): none of these values depends
on the columns' order, so the classes' own order is kept.  torchmetrics' exact ``multiclass_*``
functions with ``num_classes=K`` (top-k: ``multiclass_accuracy(top_k=k, average='micro')``); it has
no one-vs-one AUROC, no multiclass log loss and no multiclass Brier score, and its row says so.
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
    "sk-ovo-k2": (
        "scikit-learn: roc_auc_score with two classes takes its binary branch and raises on an (n, 2) "
        "score array, whatever multi_class says (sklearn/metrics/_ranking.py:730-737) [K = 2]"
    ),
    "sk-ovo-weights": (
        "scikit-learn: roc_auc_score(multi_class='ovo') raises with sample_weight, 'sample_weight is not "
        "supported for multiclass one-vs-one ROC AUC' (sklearn/metrics/_ranking.py:854-859)"
    ),
    "sk-ovo-not-probabilities": (
        "scikit-learn: multi_class='ovo' refuses rows that do not sum to 1, 'Target scores need to be "
        "probabilities for multiclass roc_auc' (sklearn/metrics/_ranking.py:804-808) [{n} rows]"
    ),
    "sk-ovo-one-class": (
        "scikit-learn: with fewer than two classes in the targets there is no pair: macro is the mean "
        "of no pair (NaN, numpy's 'Mean of empty slice'), weighted raises ZeroDivisionError ('Weights "
        "sum to zero', sklearn/metrics/_base.py:209)"
    ),
    "tm-no-ovo": (
        "torchmetrics has no one-vs-one AUROC: multiclass_auroc is one-vs-rest (its average over the classes)"
    ),
    "sk-proba-range": (
        "scikit-learn: {fn} raises on a score outside [0, 1], 'y_prob contains values {which}' "
        "(sklearn/metrics/_classification.py:272-275)"
    ),
    "sk-proba-sum": (
        "scikit-learn: {fn} scores rows that do not sum to 1 as they are, with the warning 'The y_prob "
        "values do not sum to one. Make sure to pass probabilities.' (sklearn/metrics/_classification.py"
        ":297-307, relative tolerance sqrt(eps)); perfeval gives no value for rows off by more than 1e-4 "
        "[{n} rows]"
    ),
    "tm-no-logloss": (
        "torchmetrics has no multiclass log loss (no cross-entropy among its classification metrics)"
    ),
    "tm-no-brier": "torchmetrics has no multiclass Brier score",
    "sk-brier-k2": (
        "scikit-learn: brier_score_loss halves the sum of squares when y_proba has fewer than 3 columns "
        "(scale_by_half='auto', sklearn/metrics/_classification.py:3851-3854); perfeval's BRIER_MC is "
        "the plain sum, twice the binary Brier score [K = 2]"
    ),
    "sk-topk-tie": (
        "scikit-learn: top_k_accuracy_score puts the last of the classes tied across the k-th place in "
        "the top k (a stable ascending argsort, reversed: sklearn/metrics/_ranking.py:2239), a hit or a "
        "miss; perfeval counts the expected share over the tie's orders [{n} rows whose true class is "
        "tied across the k-th place]"
    ),
    "tm-topk-tie": (
        "torchmetrics: which of the classes tied across the k-th place are in the top k is torch.topk's "
        "choice (torchmetrics/utilities/data.py:121), which torch does not specify; its value is not "
        "reproducible here [{n} rows whose true class is tied across the k-th place]"
    ),
    "tm-topk-k": (
        "torchmetrics: multiclass_accuracy raises for top_k > num_classes, 'Expected argument `top_k` to "
        "be smaller or equal to `num_classes`' (functional/classification/stat_scores.py:246-248) "
        "[k = {k}, K = {K}]"
    ),
    "sk-no-ece": (
        "scikit-learn has no calibration error (its calibration_curve gives the bins, not the error: "
        "scikit-learn#18268)"
    ),
    "tm-ece-width": "torchmetrics: multiclass_calibration_error has equal-width bins only (bins=width)",
    "tm-ece-debias": (
        "torchmetrics: multiclass_calibration_error has no debiased form (its wrapper passes no debias "
        "to _ce_compute)"
    ),
    "tm-ece-weights": "torchmetrics: multiclass_calibration_error takes no sample weights",
    "tm-ece-argmax": (
        "torchmetrics: a row tied at its maximum is right or wrong whole by the first class at it "
        "(preds.max(dim=1): functional/classification/calibration_error.py:244); perfeval counts it "
        "right for 1/t of the row [{n} rows tied at the top]"
    ),
    "tm-ece-one": (
        "torchmetrics: a confidence of exactly 1.0 falls into an extra bin of its own "
        "(torch.bucketize(right=True) on linspace(0, 1, n_bins + 1): calibration_error.py:49, 88; "
        "torchmetrics#3510); perfeval's last bin is closed [{n} rows]"
    ),
    "tm-ece-float32": (
        "torchmetrics: the confidences are rounded to float32 (confidences.float(): "
        "calibration_error.py:246) and binned against float32 edges, so its value agrees to about 1e-6 "
        "at best [{n} rows' confidence is no float32 number{moved}]"
    ),
    "tm-ece-softmax": (
        "torchmetrics: every row goes through a softmax when a score lies outside [0, 1] "
        "(torchmetrics/utilities/compute.py:233-234); perfeval's ECE_TOP reads probabilities and is "
        "undefined [{n} scores outside [0, 1]]"
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
        # roc_auc_score's check, np.allclose(1, y_score.sum(axis=1)) (sklearn/metrics/_ranking.py:804)
        self.not_probabilities = int(np.count_nonzero(~np.isclose(1.0, sums)))
        # log_loss's and brier_score_loss's, isclose(sums, 1, rtol=sqrt(eps)) (_classification.py:297-301)
        self.not_summing = int(
            np.count_nonzero(~np.isclose(sums, 1.0, rtol=math.sqrt(np.finfo(np.float64).eps)))
        )
        self.true_score = s[np.arange(len(y)), y] if len(s) else np.zeros(0)

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


def _ovo(f: Facts, spec: MeasureSpec, average: str) -> dict:
    """roc_auc_score(multi_class='ovo'): Hand and Till's mean over the pairs of classes present in
    the targets (sklearn/metrics/_base.py:142-209), each pair (A(a|b) + A(b|a)) / 2; weighted by the
    pair's share of the rows.
    """
    tm: tuple[float, str, list[str]] = (math.nan, RULES["tm-no-ovo"], [])
    if f.k == 2:
        return {"sklearn": (math.nan, RULES["sk-ovo-k2"], []), "torchmetrics": tm}
    if f.w is not None:
        return {"sklearn": (math.nan, RULES["sk-ovo-weights"], []), "torchmetrics": tm}
    if f.not_probabilities:
        why = RULES["sk-ovo-not-probabilities"].format(n=f.not_probabilities)
        return {"sklearn": (math.nan, why, []), "torchmetrics": tm}
    pair = mc.ovo_pairs(f.cs)
    present = np.flatnonzero(f.support > 0)
    a, b = np.triu_indices(len(present), 1)
    a, b = present[a], present[b]
    if not len(a):
        return {"sklearn": (math.nan, RULES["sk-ovo-one-class"], []), "torchmetrics": tm}
    vals = pair[a, b]
    prevalence = (f.support[a] + f.support[b]) / f.support.sum() if average == "weighted" else None
    return {"sklearn": (float(np.average(vals, weights=prevalence)), "", []), "torchmetrics": tm}


def _probabilities(f: Facts, fn: str) -> tuple[float, str, list[str]] | None:
    """scikit-learn's refusal of scores outside [0, 1] in log_loss and brier_score_loss, or None."""
    if not len(f.s):
        return None
    hi, lo = float(f.s.max()), float(f.s.min())
    if hi > 1:
        return (math.nan, RULES["sk-proba-range"].format(fn=fn, which=f"greater than 1: {hi!r}"), [])
    if lo < 0:
        return (math.nan, RULES["sk-proba-range"].format(fn=fn, which=f"lower than 0: {lo!r}"), [])
    return None


def _sum_rule(f: Facts, fn: str, ours: float) -> list[str]:
    """The rows sum rule, listed where scikit-learn scores rows perfeval gives no value for."""
    if f.not_summing and math.isnan(ours):
        return [RULES["sk-proba-sum"].format(fn=fn, n=f.not_summing)]
    return []


def _log_loss(f: Facts, spec: MeasureSpec, average: str) -> dict:
    """log_loss: the weighted mean of -ln of each row's true-class score clipped to [eps, 1 - eps]
    (sklearn/metrics/_classification.py:3450-3458), the rows as given.
    """
    tm: tuple[float, str, list[str]] = (math.nan, RULES["tm-no-logloss"], [])
    refused = _probabilities(f, "log_loss")
    if refused is not None:
        return {"sklearn": refused, "torchmetrics": tm}
    eps = np.finfo(np.float64).eps
    loss = -np.log(np.clip(f.true_score, eps, 1 - eps))
    value = float(np.average(loss, weights=f.w)) if len(loss) else math.nan
    return {"sklearn": (value, "", _sum_rule(f, "log_loss", mc.log_loss(f.cs).value)), "torchmetrics": tm}


def _brier(f: Facts, spec: MeasureSpec, average: str) -> dict:
    """brier_score_loss: the weighted mean of each row's sum of squares against its one-hot target,
    halved for fewer than 3 columns (sklearn/metrics/_classification.py:3840-3854).
    """
    tm: tuple[float, str, list[str]] = (math.nan, RULES["tm-no-brier"], [])
    refused = _probabilities(f, "brier_score_loss")
    if refused is not None:
        return {"sklearn": refused, "torchmetrics": tm}
    onehot = np.zeros_like(f.s)
    onehot[np.arange(len(f.y)), f.y] = 1.0
    sq = ((onehot - f.s) ** 2).sum(axis=1)
    value = float(np.average(sq, weights=f.w)) if len(sq) else math.nan
    rules = _sum_rule(f, "brier_score_loss", mc.brier(f.cs).value)
    if f.k < 3:
        value *= 0.5
        rules.append(RULES["sk-brier-k2"])
    return {"sklearn": (value, "", rules), "torchmetrics": tm}


def _topk(f: Facts, spec: MeasureSpec, average: str) -> dict:
    """top_k_accuracy_score(k=k): a row is a hit when its true class is among the first k of a stable
    ascending argsort of its scores (columns in sorted-label order), reversed; torchmetrics'
    multiclass_accuracy(top_k=k): the same where no tie crosses the k-th place.
    """
    k = int(spec.kwargs.get("k", 2))
    n = len(f.y)
    s_true = f.true_score[:, None]
    above = np.count_nonzero(f.s > s_true, axis=1)
    tied = f.s == s_true  # the true class included
    straddle = (above < k) & (k < above + np.count_nonzero(tied, axis=1))
    out: dict[str, tuple[float, str, list[str]]] = {}
    if f.k == 2:
        out["sklearn"] = (math.nan, RULES["sk-topk-k2"], [])
    elif n:
        # scikit-learn's order: the tied classes of higher sorted-label position come first
        pos = np.empty(f.k, dtype=np.intp)
        pos[_label_order(f.classes)] = np.arange(f.k)
        later = np.count_nonzero(tied & (pos[None, :] > pos[f.y][:, None]), axis=1)
        hits = (above + later) < k
        rules = [RULES["sk-topk-tie"].format(n=int(np.count_nonzero(straddle)))] if straddle.any() else []
        out["sklearn"] = (float(np.average(hits, weights=f.w)), "", rules)
    if k > f.k:
        out["torchmetrics"] = (math.nan, RULES["tm-topk-k"].format(k=k, K=f.k), [])
    elif k == 1:
        out["torchmetrics"] = (K.accuracy(f.confusion(f.first)), "", _tie_rules(f)["torchmetrics"])
    elif straddle.any():
        why = RULES["tm-topk-tie"].format(n=int(np.count_nonzero(straddle)))
        out["torchmetrics"] = (math.nan, why, [])
    elif n:
        out["torchmetrics"] = (float(np.average(above < k, weights=f.w)), "", [])
    return out


def _label_order(classes: tuple) -> np.ndarray:
    """The columns in the order of scikit-learn's sorted labels (the given order where numpy cannot
    order them).
    """
    try:
        return np.argsort(np.asarray(classes), kind="stable")
    except TypeError:
        return np.arange(len(classes))


def _ece_top(f: Facts, spec: MeasureSpec, average: str) -> dict:
    """ECE_TOP's torchmetrics value, multiclass_calibration_error
    (:func:`perfeval.measures.calibration.torchmetrics_ece_top`: its rules, its float32 arithmetic
    in numpy), and the rules that touched this data.
    """
    from perfeval.measures.calibration import torch_linspace_edges32, torchmetrics_ece_top

    sk: tuple[float, str, list[str]] = (math.nan, RULES["sk-no-ece"], [])
    kw = spec.kwargs
    if kw.get("bins", "width") != "width":
        return {"sklearn": sk, "torchmetrics": (math.nan, RULES["tm-ece-width"], [])}
    if kw.get("debiased", "no") == "yes":
        return {"sklearn": sk, "torchmetrics": (math.nan, RULES["tm-ece-debias"], [])}
    if f.w is not None:
        return {"sklearn": sk, "torchmetrics": (math.nan, RULES["tm-ece-weights"], [])}
    B = int(kw.get("n_bins", 15))
    value, why = torchmetrics_ece_top(f.y, f.s, n_bins=B, norm=kw.get("norm", "l1"))
    rules: list[str] = []
    if f.outside:
        rules.append(RULES["tm-ece-softmax"].format(n=f.outside))
    else:
        if f.tied_rows:
            rules.append(RULES["tm-ece-argmax"].format(n=f.tied_rows))
        conf = f.s.max(axis=1) if len(f.s) else np.zeros(0)
        ones = int(np.count_nonzero(conf == 1.0))
        if ones:
            rules.append(RULES["tm-ece-one"].format(n=ones))
        c32 = conf.astype(np.float32)
        off = int(np.count_nonzero(c32.astype(np.float64) != conf))
        if off:
            ours = np.minimum(
                np.searchsorted(np.arange(1, B, dtype=np.float64) / B, conf, side="right"), B - 1
            )
            theirs = np.searchsorted(torch_linspace_edges32(B), c32, side="right") - 1
            moved = int(np.count_nonzero((ours != theirs) & (conf != 1.0)))
            text = f"; {moved} rows in another bin than perfeval's" if moved else ""
            rules.append(RULES["tm-ece-float32"].format(n=off, moved=text))
    return {"sklearn": sk, "torchmetrics": (value, why, rules), "netcal": _netcal_ece_top(f, spec)}


def _netcal_ece_top(f: Facts, spec: MeasureSpec) -> tuple[float, str, list[str]]:
    """ECE_TOP's netcal value, ``ECE(bins).measure(S, y)`` (:func:`perfeval.measures.calibration.
    netcal_ece_top`), and the rules that touched this data.
    """
    from perfeval.measures.calibration import netcal_ece_top, netcal_rules

    kw = spec.kwargs
    for key, fixed, why in (
        ("bins", "width", "netcal's ECE of equal intervals is bins=width here"),
        ("debiased", "no", "netcal has no debiased ECE"),
        ("norm", "l1", "netcal's ECE is of the L1 norm (its MCE of the max)"),
    ):
        if kw.get(key, fixed) != fixed:
            return math.nan, why, []
    if f.w is not None:
        return math.nan, "netcal takes no case weights", []
    B = int(kw.get("n_bins", 15))
    value, why = netcal_ece_top(f.y, f.s, n_bins=B)
    rules: list[str] = []
    if f.k == 2 or len(np.unique(f.y)) <= 2:
        rules.append(
            "netcal reads targets of two labels or fewer as a binary problem (Miscalibration.py:450-464): "
            "two columns give the calibration error of the second column's score, not of the top label"
        )
        conf = f.s[:, -1] if f.s.shape[1] == 2 else f.s.max(axis=1)
    else:
        conf = f.s.max(axis=1) if len(f.s) else np.zeros(0)
        if f.tied_rows:
            rules.append(
                "netcal: a row tied at its maximum is right or wrong whole by the first class at it "
                "(np.argmax: Miscalibration.py:468); perfeval counts it right for 1/t of the row "
                f"[{f.tied_rows} rows]"
            )
    rules += netcal_rules(np.asarray(conf, dtype=np.float64), B)
    return value, why, rules


_MEASURES = {
    "ROC_OVO": _ovo,
    "LOGLOSS_MC": _log_loss,
    "BRIER_MC": _brier,
    "TOPK_ACC": _topk,
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
    "ECE_TOP": _ece_top,
}
