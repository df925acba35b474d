"""torchmetrics' operating points, as torchmetrics 1.9 computes them, finished from the exact summary
(the ``torchmetrics`` dialect's policies for SEN_AT_SPC, SPC_AT_SEN, PRE_AT_REC, REC_AT_PRE and
TPR_AT_FPR).

Its functions (``functional/classification/``: ``sensitivity_specificity.py``,
``specificity_sensitivity.py``, ``precision_fixed_recall.py``, ``recall_fixed_precision.py`` over
``roc.py`` and ``precision_recall_curve.py``), on float64 tensors of the scores (the dialect's
convention: docs/dialects.md), step by step:

* the scores: their sigmoid when one lies outside [0, 1] (read as logits), which ties the logits it
  rounds to one value;
* ``thresholds=None`` (the dialect's ``thresholds=0``): the distinct scores; the counts of the cases
  at or above each are float32 (``target * 1.0`` is float32 in torch), and so are the rates divided
  from them (TP / P, FP / N, TP / (TP + FP)); the ROC curve starts with a point of its own, nothing
  predicted positive, at threshold 1.0; the precision-recall curve's last point (recall 0,
  precision 1) has no threshold and is never picked;
* ``thresholds=T``: the T thresholds ``torch.linspace(0, 1, T)`` (float32), a case positive at t
  when its score >= t; the rates divided in float32, 0/0 as 0 (ROC) or NaN (precision-recall);
* one class: the ROC rate that cannot be computed is 0 (no negatives: specificity 1 at every
  point; no positives: sensitivity 0); the precision-recall curve's recall is 1 at every point
  when no case is positive;
* the pick: ``sensitivity_at_specificity`` and ``specificity_at_sensitivity`` take the first point
  of the highest rate among those meeting the target (the target compared in float32), in the ROC
  curve's order (highest threshold first); none meets it: value 0 and threshold 1e6.
  ``precision_at_recall`` takes Python's ``max`` of (precision, recall, threshold) over the points
  whose recall meets the target (compared in float32), and ``recall_at_precision`` the lexicographic
  arg-max of (recall, precision, threshold) over the points whose precision meets it (compared in
  the thresholds' dtype: float64 with float64 scores exact, float32 binned); none: value 0; either
  gives threshold NaN when its value is 0.

TPR_AT_FPR has no function in torchmetrics: a torchmetrics user calls
``binary_sensitivity_at_specificity(min_specificity=1 - max_fpr)``, which is what is computed.

Limits (docs/dialects.md): the sigmoid is numpy's in float64 (torch's vectorised ``exp`` differs from
it by an ulp at times, so a threshold read off a sigmoid is torchmetrics' within 2.2e-16, relative);
with ``thresholds=None`` torchmetrics' float32 counts are exact up to 2^24 cases, past which it loses
cases: refused there (one line).  Where torchmetrics raises (``binary_recall_at_fixed_precision``
binned with no positive case and a target of 0: IndexError), the dialect says so in one line.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfeval.dialects.binned import torchmetrics_thresholds
from perfeval.exceptions import InvalidDataError
from perfeval.summaries import ScoreHistogram

F32 = np.float32
#: torchmetrics' threshold where no point meets the target (sensitivity/specificity)
NO_POINT = 1e6
#: the counts torchmetrics keeps in float32 are exact below this many cases
EXACT_CASES = 1 << 24


def _squashed(h: ScoreHistogram) -> tuple[np.ndarray, bool]:
    """The scores (ascending, one a cell of ``h``) as torchmetrics reads them: their sigmoid when one
    lies outside [0, 1]; and whether it was taken.
    """
    s = h.scores
    if len(s) and (s[0] < 0 or s[-1] > 1):
        return 1.0 / (1.0 + np.exp(-s)), True
    return s, False


def _merged(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores, positives, negatives) a distinct score torchmetrics sees, ascending: cells the sigmoid
    rounds to one value merged.
    """
    s, squashed = _squashed(h)
    if not squashed:
        return s, h.pos, h.neg
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] != s[:-1]
    starts = np.flatnonzero(new)
    return s[starts], np.add.reduceat(h.pos, starts), np.add.reduceat(h.neg, starts)


def _at_or_above(h: ScoreHistogram, scores: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positive and negative cases scored at or above each threshold (``scores``: the cells'
    scores as torchmetrics reads them, non-decreasing).
    """
    cp = np.concatenate(([0.0], np.cumsum(h.pos)))
    cn = np.concatenate(([0.0], np.cumsum(h.neg)))
    at = np.searchsorted(scores, thr, side="left")
    return cp[-1] - cp[at], cn[-1] - cn[at]


def _rate(num: np.ndarray, den: Any, zero: float) -> np.ndarray:
    """``num / den`` in float32 (``zero`` where the denominator is 0: torchmetrics' _safe_divide, or
    its all-zero rate of a missing class).
    """
    n, d = np.asarray(num, dtype=F32), np.asarray(den, dtype=F32)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d != 0, n / np.where(d != 0, d, F32(1)), F32(zero)).astype(F32)


def roc_curve(h: ScoreHistogram, thresholds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Torchmetrics' ``binary_roc``: (FPR, TPR, thresholds), float32 rates, from the highest
    threshold down.
    """
    P, N = h.n_pos, h.n_neg
    if not thresholds:
        s, pos, neg = _merged(h)
        tp = np.concatenate(([0.0], np.cumsum(pos[::-1])))
        fp = np.concatenate(([0.0], np.cumsum(neg[::-1])))
        thr = np.concatenate(([1.0], s[::-1]))
        # binary_roc: a missing class's rate is 0 at every point (with a warning)
        return (
            _rate(fp, N, 0.0) if N > 0 else np.zeros(len(thr), F32),
            _rate(tp, P, 0.0) if P > 0 else np.zeros(len(thr), F32),
            thr,
        )
    t = torchmetrics_thresholds(thresholds)
    tp, fp = _at_or_above(h, _squashed(h)[0], t.astype(np.float64))
    return _rate(fp, N, 0.0)[::-1], _rate(tp, P, 0.0)[::-1], t[::-1].astype(np.float64)


def pr_curve(h: ScoreHistogram, thresholds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Torchmetrics' ``binary_precision_recall_curve``: (precision, recall, thresholds), float32
    rates, thresholds ascending; the rates have one more point (precision 1, recall 0) than the
    thresholds.
    """
    P = h.n_pos
    if not thresholds:
        s, pos, neg = _merged(h)
        tp, fp = np.cumsum(pos[::-1]), np.cumsum(neg[::-1])
        precision = _rate(tp, tp + fp, math.nan)
        # no positive case: the recall is 1 at every point (with a warning)
        recall = _rate(tp, P, math.nan) if P > 0 else np.ones(len(tp), F32)
        thr = s.astype(np.float64)
        precision, recall = precision[::-1], recall[::-1]
    else:
        t = torchmetrics_thresholds(thresholds)
        tp, fp = _at_or_above(h, _squashed(h)[0], t.astype(np.float64))
        precision, recall = _rate(tp, tp + fp, math.nan), _rate(tp, np.full(len(tp), P), math.nan)
        thr = t.astype(np.float64)
    return np.append(precision, F32(1)), np.append(recall, F32(0)), thr


def _at_rate(value: np.ndarray, given: np.ndarray, thr: np.ndarray, least: float) -> tuple[float, float]:
    """``_sensitivity_at_specificity`` / ``_specificity_at_sensitivity``: the first point of the
    highest ``value`` among those whose ``given`` rate >= ``least`` (in float32).
    """
    ok = np.flatnonzero(given >= F32(least))
    if not len(ok):
        return 0.0, NO_POINT
    i = ok[int(np.argmax(value[ok]))]
    return float(value[i]), float(thr[i])


def _gt(a: tuple, b: tuple) -> bool:
    """Python's ``a > b`` of two tuples of numbers (the first pair not ``==`` decides, with IEEE
    comparisons: NaN is never equal, never greater).
    """
    for x, y in zip(a, b, strict=True):
        if not x == y:
            return bool(x > y)
    return False


def _precision_at_recall(precision: np.ndarray, recall: np.ndarray, thr: np.ndarray, least: float) -> tuple:
    """``_precision_at_recall``: Python's ``max`` of (precision, recall, threshold) over the points
    (one a threshold) whose recall >= ``least`` (float32); none: 0 and threshold NaN, as a value of 0.
    """
    n = len(thr)
    ok = np.flatnonzero(recall[:n] >= F32(least))
    if not len(ok):
        return 0.0, math.nan
    p, r = precision[ok], recall[ok]
    if not (np.isnan(p).any() or np.isnan(r).any()):  # no NaN: the lexicographic maximum
        top = ok[p == p.max()]
        top = top[recall[top] == recall[top].max()]
        i = int(top[np.argmax(thr[top])])
    else:  # as max() goes, item by item (a NaN is never greater, nor is anything greater than it)
        best: tuple | None = None
        for j in ok.tolist():
            item = (precision[j], recall[j], thr[j], j)
            if best is None or _gt(item[:3], best[:3]):
                best = item
        assert best is not None
        i = best[3]
    value = float(precision[i])
    return value, math.nan if value == 0.0 else float(thr[i])


def _recall_at_precision(
    precision: np.ndarray, recall: np.ndarray, thr: np.ndarray, least: float, exact: bool
) -> tuple[float, float]:
    """``_recall_at_precision``: the lexicographic arg-max of (recall, precision, threshold) over the
    points whose precision >= ``least`` (compared in float64 when ``exact``: the thresholds' dtype
    promotes the rates; else in float32); none, or a recall of 0: threshold NaN.  A column whose
    maximum is NaN leaves torchmetrics no index (it raises IndexError): NaN.
    """
    n = len(thr)
    cols = [recall[:n].astype(np.float64), precision[:n].astype(np.float64), thr[:n]]
    if not exact:
        cols = [c.astype(F32) for c in cols]
    keep = cols[1] >= (least if exact else F32(least))
    if not keep.any():
        return 0.0, math.nan
    idx = np.flatnonzero(keep)
    for col in cols:
        c = col[idx]
        idx = idx[np.flatnonzero(c == c.max())]
        if len(idx) < 2:
            break
    if not len(idx):  # torchmetrics: IndexError (its recall is NaN: no positives, binned)
        raise InvalidDataError(
            "dialect torchmetrics: binary_recall_at_fixed_precision raises IndexError on these data (no "
            "positive case: its binned recall is NaN at every threshold, and its arg-max finds no point); "
            "there is no number to give"
        )
    i = int(idx[0])
    value = float(cols[0][i])
    return value, math.nan if value == 0.0 else float(cols[2][i])


def choice(h: ScoreHistogram, measure: str, target: float, thresholds: int) -> tuple[float, float]:
    """(value, threshold) that torchmetrics returns for ``measure`` (a registry name) at ``target``,
    from the summary ``h`` of unweighted cases (made once for the summary: a value and its threshold
    read the same).
    """

    def make() -> tuple[float, float]:
        if h.n == 0:
            return math.nan, math.nan
        if not thresholds and h.n > EXACT_CASES:
            raise InvalidDataError(
                f"dialect torchmetrics: {measure} over {h.n:.15g} cases: torchmetrics (thresholds=None) "
                f"counts them in float32, which loses cases past {EXACT_CASES:,}; perfeval does not "
                "reproduce that number (thresholds=T does: dialect torchmetrics:thresholds=1000)"
            )
        if measure in ("TPR_AT_FPR", "SEN_AT_SPC", "SPC_AT_SEN"):
            fpr, tpr, thr = roc_curve(h, thresholds)
            spc = (F32(1) - fpr).astype(F32)
            if measure == "SPC_AT_SEN":
                return _at_rate(spc, tpr, thr, target)
            least = 1 - target if measure == "TPR_AT_FPR" else target
            return _at_rate(tpr, spc, thr, least)
        precision, recall, thr = pr_curve(h, thresholds)
        if measure == "PRE_AT_REC":
            return _precision_at_recall(precision, recall, thr, target)
        return _recall_at_precision(precision, recall, thr, target, exact=not thresholds)

    return h.memo(("torchmetrics_choice", measure, target, int(thresholds)), make)


def _of(pair: tuple[float, float], of: str) -> float:
    return pair[1] if of == "threshold" else pair[0]


def tpr_at_fpr(h: ScoreHistogram, *, max_fpr: float, of: str, thresholds: int = 0, **_o: object) -> float:
    """``binary_sensitivity_at_specificity(preds, target, min_specificity=1 - max_fpr)``."""
    return _of(choice(h, "TPR_AT_FPR", max_fpr, thresholds), of)


def sen_at_spc(
    h: ScoreHistogram, *, min_specificity: float, of: str, thresholds: int = 0, **_o: object
) -> float:
    """``binary_sensitivity_at_specificity(preds, target, min_specificity)``."""
    return _of(choice(h, "SEN_AT_SPC", min_specificity, thresholds), of)


def spc_at_sen(
    h: ScoreHistogram, *, min_sensitivity: float, of: str, thresholds: int = 0, **_o: object
) -> float:
    """``binary_specificity_at_sensitivity(preds, target, min_sensitivity)``."""
    return _of(choice(h, "SPC_AT_SEN", min_sensitivity, thresholds), of)


def pre_at_rec(h: ScoreHistogram, *, min_recall: float, of: str, thresholds: int = 0, **_o: object) -> float:
    """``binary_precision_at_fixed_recall(preds, target, min_recall)``."""
    return _of(choice(h, "PRE_AT_REC", min_recall, thresholds), of)


def rec_at_pre(
    h: ScoreHistogram, *, min_precision: float, of: str, thresholds: int = 0, **_o: object
) -> float:
    """``binary_recall_at_fixed_precision(preds, target, min_precision)``."""
    return _of(choice(h, "REC_AT_PRE", min_precision, thresholds), of)


#: each measure's target parameter
TARGET = {
    "TPR_AT_FPR": "max_fpr",
    "SEN_AT_SPC": "min_specificity",
    "SPC_AT_SEN": "min_sensitivity",
    "PRE_AT_REC": "min_recall",
    "REC_AT_PRE": "min_precision",
}


#: each measure's rate held to the target, as explain names it
HELD = {
    "TPR_AT_FPR": "specificity",
    "SEN_AT_SPC": "specificity",
    "SPC_AT_SEN": "sensitivity",
    "PRE_AT_REC": "recall",
    "REC_AT_PRE": "precision",
}


def _missed(h: ScoreHistogram, measure: str, target: float, at: float) -> str | None:
    """Why perfeval's point (threshold ``at``) is not torchmetrics': its rate held to the target meets
    it in float64 and not once rounded to float32 (as torchmetrics computes and compares it); None
    when that is not why.
    """
    tp, fn, fp, tn = h.counts_at(at)
    P, N = tp + fn, fp + tn
    if P == 0 or N == 0 or tp + fp == 0:
        return None
    if measure in ("TPR_AT_FPR", "SEN_AT_SPC"):
        least = 1 - target if measure == "TPR_AT_FPR" else target
        exact, rounded = (N - fp) / N, F32(1) - F32(fp) / F32(N)
        fails = not rounded >= F32(least)
    elif measure in ("SPC_AT_SEN", "PRE_AT_REC"):
        least = target
        exact, rounded = tp / P, F32(tp) / F32(P)
        fails = not rounded >= F32(least)
    else:
        least = target
        exact, rounded = tp / (tp + fp), F32(tp) / F32(tp + fp)
        fails = not float(rounded) >= least  # compared in float64 (the thresholds' dtype)
    if not fails:
        return None
    return (
        f"at perfeval's point (score >= {at!r}) the {HELD[measure]} is {exact!r}, {float(rounded)!r} in "
        f"float32, which torchmetrics finds below {least!r}: it does not count that point as meeting "
        "the target"
    )


def reasons(h: ScoreHistogram, measure: str, kwargs: dict[str, Any], opts: dict[str, Any]) -> list[str]:
    """Why torchmetrics' number differs from perfeval's here, each rule with what it touched in these
    data (for ``explain``): one class, no point meeting the target, the float32 rates, the tie rule,
    the thresholds' conventions.
    """
    from perfeval.measures import get_measure

    target = float(kwargs[TARGET[measure]])
    of = kwargs.get("of", "value")
    T = int(opts.get("thresholds") or 0)
    tv, tt = choice(h, measure, target, T)
    spec = {**kwargs, "of": "value"}
    ours = float(get_measure(measure)(h, **spec))
    ours_t = float(get_measure(measure)(h, **{**spec, "of": "threshold"}))
    out = []
    P, N = h.n_pos, h.n_neg
    roc = measure in ("TPR_AT_FPR", "SEN_AT_SPC", "SPC_AT_SEN")
    if T:
        out.append(
            f"scores read at {T} thresholds linspace(0, 1) (float32), a case positive from one "
            f"[{len(h.scores)} distinct scores]"
        )
    if roc and (P == 0 or N == 0):
        missing = "positives" if P == 0 else "negatives"
        rate = "sensitivity 0" if P == 0 else "specificity 1"
        out.append(
            f"one class only: binary_roc sets the rate of the missing class to 0 ({rate} at every point) "
            f"and gives {tv:.6g}; perfeval: undefined [no {missing}]"
        )
    elif not roc and P == 0:
        out.append(
            f"no positive case: binary_precision_recall_curve sets recall 1 at every point and gives "
            f"{tv:.6g}; perfeval: undefined [no positives]"
        )
    elif math.isnan(ours) and not math.isnan(tv):
        label = TARGET[measure].replace("_", " ")
        at = f"threshold {tt:g}" if not math.isnan(tt) else "threshold NaN"
        out.append(
            f"no threshold meets {label} {target:g}: torchmetrics gives {tv:g} ({at}); perfeval: undefined"
        )
    elif not math.isnan(ours) and not math.isnan(tv) and tv != ours:
        missed = None if T or _squashed(h)[1] else _missed(h, measure, target, ours_t)
        if missed is not None:
            out.append(missed + f": torchmetrics {tv!r} (threshold {tt!r}), perfeval {ours!r}")
        elif tv == float(F32(ours)):
            compared = "in float64" if measure == "REC_AT_PRE" and not T else "in float32"
            out.append(
                "rates in float32 (the counts divided in float32"
                + ("; specificity 1 - FPR in float32" if roc else "")
                + f"; the target compared {compared}): torchmetrics {tv!r}, perfeval {ours!r}"
            )
        else:
            out.append(
                f"torchmetrics picks another point (its rates in float32): {tv!r} at threshold {tt!r}, "
                f"perfeval {ours!r} at {ours_t!r}"
            )
    if of == "threshold" and not (math.isnan(tt) and math.isnan(ours_t)) and tt != ours_t:
        plain = not T and not _squashed(h)[1] and not (math.isnan(tt) or math.isnan(ours_t))
        if measure == "SPC_AT_SEN" and plain and tt > ours_t and h.counts_at(tt)[2] == h.counts_at(ours_t)[2]:
            out.append(
                "among thresholds of equal specificity torchmetrics takes the highest (the first in its ROC "
                "order), perfeval the one of highest sensitivity (the lowest)"
            )
        if roc and tt == 1.0 and math.isinf(ours_t):
            out.append("predicting nothing is threshold 1.0 in torchmetrics' ROC curve (perfeval: +inf)")
        if tv == 0.0 and math.isnan(tt) and not roc:
            out.append("a value of 0 has threshold NaN in torchmetrics")
        if _squashed(h)[1]:
            out.append("its thresholds are sigmoids of the scores (the scores it read), not the scores")
    return out
