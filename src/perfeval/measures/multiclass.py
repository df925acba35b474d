"""The multiclass measures, each finished from one :class:`~perfeval.summaries.classes.ClassSummary`.

Every function takes the summary and the measure's parameters and returns a :class:`Finished`: the
value, the value of each class where the measure has one (NaN where it is undefined for that class:
the class is absent from the targets, or from the predictions for precision), and why the value is
NaN when it is not one of the edge cases the registry lists.

Averages over classes (``average``): ``macro``, the plain mean over the classes where the measure is
defined; ``weighted``, the mean weighted by each class's support (its total true weight), over the same
classes; ``micro``, the measure of every (case, class) pair pooled into one binary problem.  A class
left out is listed (``Report`` shows it, as GAUC lists groups); scikit-learn's names apply
scikit-learn's own rules instead (``zero_division``, errors), from the same per-class numbers.

Ties keep the rule of each measure's binary form: half credit in the ROC areas (Hand and Till's pairs
too), one threshold a tie in average precision, the expected value over the orders of a tie at the
argmax (a tie shares the case among the tied classes) and at the k-th place (top-k accuracy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfeval import _native
from perfeval.measures import confusion as K
from perfeval.measures.base import REGISTRY
from perfeval.summaries.classes import ClassSummary

__all__ = [
    "Finished",
    "roc_ovr",
    "roc_ovo",
    "ap_ovr",
    "log_loss",
    "brier",
    "accuracy",
    "balanced_accuracy",
    "precision",
    "recall",
    "f_beta",
    "mcc",
    "kappa",
    "qwk",
    "top_k_accuracy",
    "per_class_counts",
]


@dataclass
class Finished:
    """A multiclass measure's value, its per-class values (or None) and why it is NaN (or None)."""

    value: float
    per_class: np.ndarray | None = None
    why: str | None = None
    #: the classes (codes) left out of the value when it has no per-class values (ROC_OVO's absent classes)
    undefined: tuple[int, ...] = ()
    #: what the value left out, said beside it (the rows of a samples average that are 0/0)
    note: str = ""

    def __float__(self) -> float:
        return self.value


def _average(per_class: np.ndarray, support: np.ndarray, average: str) -> float:
    """Macro or weighted over the classes where ``per_class`` is defined."""
    ok = ~np.isnan(per_class)
    if not ok.any():
        return math.nan
    if average == "weighted":
        w = support[ok]
        total = w.sum()
        return float((per_class[ok] * (w / total)).sum()) if total > 0 else math.nan
    return float(per_class[ok].mean())


def _binary(name: str, h: object) -> float:
    """The binary registry measure ``name`` on a ScoreHistogram (the same code as binary data)."""
    m = REGISTRY.get(name)
    v = m.function()(h)
    return math.nan if v is None else float(v)


def _walked(cs: ClassSummary, name: str, j: int) -> float:
    """The binary ``ROC`` or ``AP`` of the one-vs-rest histogram of class ``j`` (``j < 0``: micro),
    bit for bit :func:`_binary` of it (rank.roc's and rank.ap's operations on the sums), from one
    compiled walk over the summary's blocks (csrc/classes.c, class_walk) without the histogram: the
    micro one holds every (case, class) cell, several times the score matrix with its sort.
    """
    from perfeval.measures import rank

    P, N, area, ap_sum, _cells = cs.memo(
        ("walk", j), lambda: _native.class_walk(cs.offsets, cs.scores, cs.weights, cs.k, j)
    )
    if name == "AP":
        return math.nan if P == 0 else float(np.float64(ap_sum) / P)
    if P == 0 or N == 0:
        return math.nan
    if P * N < rank.TINY:  # tiny weights: rank.roc rescales the histogram (made for it alone)
        h = cs.micro() if j < 0 else cs.one_vs_rest(j)
        return _binary("ROC", h)
    return rank.per_pair(np.float64(area), P, N)


# -- ranking measures over the score columns -------------------------------------------------------------
def roc_ovr_per_class(cs: ClassSummary) -> np.ndarray:
    """Each class's one-vs-rest ROC area in its own column (NaN: the class or the rest is absent)."""
    n = cs.n_class
    total = n.sum()
    u = cs.pairs()
    with np.errstate(invalid="ignore", divide="ignore"):
        den = n * (total - n)
        out = np.where(den > 0, u.sum(axis=1) / np.where(den > 0, den, 1.0), np.nan)
    return out


def roc_ovr(cs: ClassSummary, average: str = "macro") -> Finished:
    """One-vs-rest ROC area: each class against all the others in its own score column, averaged."""
    per = roc_ovr_per_class(cs)
    if average == "micro":
        return Finished(_walked(cs, "ROC", -1), per)
    return Finished(_average(per, cs.n_class, average), per)


def ovo_pairs(cs: ClassSummary) -> np.ndarray:
    """Hand and Till's A(j, k) = (A(j|k) + A(k|j)) / 2 for every pair of classes (symmetric; NaN on
    the diagonal and where either class is absent).
    """
    n = cs.n_class
    u = cs.pairs()
    den = np.outer(n, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(den > 0, u / np.where(den > 0, den, 1.0), np.nan)
    pair = (a + a.T) / 2
    np.fill_diagonal(pair, np.nan)
    return pair


def roc_ovo(cs: ClassSummary, average: str = "macro") -> Finished:
    """One-vs-one ROC area (Hand and Till 2001): the mean over the pairs of classes of the two
    columns' pairwise areas; ``weighted``: each pair weighted by its share of the cases (n_j + n_k),
    as scikit-learn's ``average='weighted'``.
    """
    pair = ovo_pairs(cs)
    k = cs.k
    j, i = np.triu_indices(k, 1)
    vals = pair[j, i]
    ok = ~np.isnan(vals)
    absent = tuple(int(c) for c in np.flatnonzero(cs.n_class <= 0))  # their pairs are left out
    if not ok.any():
        return Finished(math.nan, undefined=absent)
    if average == "weighted":
        n = cs.n_class
        w = (n[j] + n[i])[ok]
        return Finished(float((vals[ok] * (w / w.sum())).sum()), undefined=absent)
    return Finished(float(vals[ok].mean()), undefined=absent)


def ap_ovr_per_class(cs: ClassSummary) -> np.ndarray:
    """Each class's one-vs-rest AP in its own column (NaN: the class is absent)."""
    n = cs.n_class
    return np.array([_walked(cs, "AP", j) if n[j] > 0 else math.nan for j in range(cs.k)])


def ap_ovr(cs: ClassSummary, average: str = "macro") -> Finished:
    """One-vs-rest average precision (perfeval's AP: one threshold a tie), averaged over classes."""
    per = cs.memo("ap_ovr_per_class", lambda: ap_ovr_per_class(cs)).copy()  # read by AP_OVR of each average
    if average == "micro":
        return Finished(_walked(cs, "AP", -1), per)
    return Finished(_average(per, cs.n_class, average), per)


# -- probabilities ------------------------------------------------------------------------------------------
def _not_probabilities(cs: ClassSummary, name: str) -> tuple[str | None, str]:
    """(why the value is NaN, a note beside it): a score outside [0, 1] is no probability (NaN, and
    why); rows inside [0, 1] that do not sum to 1 (a CSV's rounded probabilities) are scored as given,
    as scikit-learn scores them, and the note says how many.
    """
    count, total, extreme = cs.off_simplex
    if not count:
        return None, ""
    low = float(cs.scores.min()) if len(cs.scores) else 0.0
    high = float(cs.scores.max()) if len(cs.scores) else 0.0
    if low < 0 or high > 1:
        bad = low if low < 0 else high
        return (
            f"{name} reads probabilities, but y_score holds {bad:.10g}, outside [0, 1]: pass "
            "predict_proba's rows (each in [0, 1], summing to 1)"
        ), ""
    return None, (
        f"{count} row(s) of y_score do not sum to 1 (one sums to {total:.10g}): scored as given, as "
        "scikit-learn scores them (rounded probabilities?)"
    )


def log_loss(cs: ClassSummary) -> Finished:
    """Mean of -ln p(true class), each probability clipped to [eps, 1 - eps] (eps of float64), as
    scikit-learn's log_loss; NaN when a score is outside [0, 1]; rows that do not sum to 1 are
    scored as given, with a note.
    """
    why, note = _not_probabilities(cs, "LOGLOSS_MC")
    if why or cs.total <= 0:
        return Finished(math.nan, None, why)
    eps = np.finfo(np.float64).eps
    loss = 0.0
    for j in range(cs.k):
        s, w = cs.block(j, j)
        loss += float((w * -np.log(np.clip(s, eps, 1 - eps))).sum())
    return Finished(loss / cs.total, note=note)


def brier(cs: ClassSummary) -> Finished:
    """Mean over the cases of sum_k (p_k - [k is the true class])^2 (range [0, 2]; scikit-learn's
    brier_score_loss of K >= 3 classes; twice the binary Brier score when K = 2).
    """
    why, note = _not_probabilities(cs, "BRIER_MC")
    if why or cs.total <= 0:
        return Finished(math.nan, None, why)
    k = cs.k
    sq = 0.0
    for j in range(k):
        for c in range(k):
            s, w = cs.block(j, c)
            sq += float((w * (s - (1.0 if c == j else 0.0)) ** 2).sum())
    return Finished(sq / cs.total, note=note)


# -- the argmax prediction -------------------------------------------------------------------------------
def per_class_counts(cs: ClassSummary) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tp, fp, fn) of each class from the expected confusion of the argmax."""
    c = cs.confusion
    tp = np.diag(c).copy()
    return tp, c.sum(axis=0) - tp, c.sum(axis=1) - tp


def accuracy(cs: ClassSummary) -> Finished:
    """The share of the weight whose argmax is the true class (a tie at the max: its expected share)."""
    total = cs.confusion.sum()
    return Finished(float(np.trace(cs.confusion) / total) if total > 0 else math.nan)


def balanced_accuracy(cs: ClassSummary) -> Finished:
    """The mean over the classes present in the targets of each one's recall."""
    tp, _fp, fn = per_class_counts(cs)
    support = tp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = np.where(support > 0, tp / np.where(support > 0, support, 1.0), np.nan)
    return Finished(_average(rec, support, "macro"), rec)


def _prf(cs: ClassSummary, which: str, average: str, beta: float = 1.0) -> Finished:
    """Precision, recall or F-beta of the argmax by the kernels of :mod:`perfeval.measures.confusion`
    (per class, and micro of the summed counts), macro and weighted by :func:`_average`.
    """
    tp, pred, true, _total = K.class_counts(cs.confusion)
    at = ("precision", "recall", "f").index(which)
    per = K.precision_recall_fbeta(tp, pred, true, beta)[at]
    if average == "micro":
        return Finished(K.prf_average(tp, pred, true, "micro", beta)[at], per)
    return Finished(_average(per, true, average), per)


def precision(cs: ClassSummary, average: str = "macro") -> Finished:
    """Each class's precision tp / (tp + fp) of the argmax prediction, averaged."""
    return _prf(cs, "precision", average)


def recall(cs: ClassSummary, average: str = "macro") -> Finished:
    """Each class's recall tp / (tp + fn) of the argmax prediction, averaged."""
    return _prf(cs, "recall", average)


def f_beta(cs: ClassSummary, beta: float = 1.0, average: str = "macro") -> Finished:
    """Each class's F-beta (1 + b^2) tp / (b^2 (tp + fn) + tp + fp), averaged (micro: of the sums)."""
    return _prf(cs, "f", average, beta)


def mcc(cs: ClassSummary) -> Finished:
    """Matthews' correlation of K classes (Gorodkin 2004) of the argmax prediction; the binary MCC
    when K = 2.  NaN when every case is of one class or predicted as one (0/0).
    """
    c = cs.confusion
    t, p = c.sum(axis=1), c.sum(axis=0)
    if np.count_nonzero(t > 0) <= 1 or np.count_nonzero(p > 0) <= 1:
        # one true class, or one predicted: 0/0, decided by the structure (the sums of shared ties
        # in two orders need not cancel exactly)
        return Finished(math.nan)
    if cs.uninformed:
        # every case tied across all the classes: the prediction is independent of the truth, the
        # covariance exactly 0 (its float sum of shares w / K need not cancel to the bit)
        return Finished(0.0)
    return Finished(K.matthews(c))


def kappa(cs: ClassSummary, weights: str = "none") -> Finished:
    """Cohen's kappa of the argmax prediction against the targets; ``weights`` linear (|i - j|) or
    quadratic ((i - j)^2, QWK) over the classes in their given order.  NaN on 0/0.
    """
    if cs.confusion.sum() <= 0:
        return Finished(math.nan)
    if cs.uninformed:
        # every case tied across all the classes: O = E exactly (each true class spread evenly over
        # the K predictions), and sum(W * E) > 0 with K >= 2 predicted classes: kappa is 0
        return Finished(0.0)
    return Finished(K.cohen_kappa(cs.confusion, None if weights == "none" else weights))


def qwk(cs: ClassSummary) -> Finished:
    """Quadratic weighted kappa (:func:`kappa` with quadratic weights)."""
    return kappa(cs, "quadratic")


def top_k_accuracy(cs: ClassSummary, k: int = 2) -> Finished:
    """The share of the weight whose true class is among the k best scored; a tie across the k-th
    place counts its expected share over the tie's orders: with g classes above the true one and t
    tied with it, min(1, max(0, k - g) / (t + 1)).
    """
    t = cs.topk
    total = t.sum()
    if total <= 0:
        return Finished(math.nan)
    kk = t.shape[0]
    g = np.arange(kk)[:, None]
    tied = np.arange(kk)[None, :]
    credit = np.clip(k - g, 0, tied + 1) / (tied + 1)
    note = (
        f"k = {int(k)} is not below the {kk} classes: every case counts, the value is 1 and says nothing"
        if k >= kk
        else ""
    )
    return Finished(float((t * credit).sum() / total), note=note)
