"""float64 implementations of PERF's measures over a :class:`~perfeval.summaries.ScoreHistogram`.

Modern semantics: no 1e-10 guards (an undefined value is NaN), no quirks, ties handled by the rule in
each measure's registry entry.  Every function takes the summary and the measure's parameters as
keywords and returns a Python float.  Walks go from the highest score down, one step per distinct
score, so the cost is O(distinct scores).
"""

from __future__ import annotations

import math

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.measures import _formulas as _f
from perfeval.summaries import ScoreHistogram

NAN = math.nan


def _div(a: float, b: float) -> float:
    return a / b if b != 0 else NAN


def _confusion(h: ScoreHistogram, threshold: float) -> tuple[float, float, float, float]:
    return h.counts_at(threshold)


def _threshold_measure(name: str):
    formula = getattr(_f, name)

    def measure(h: ScoreHistogram, *, threshold: float) -> float:
        return float(formula(*_confusion(h, threshold)))

    measure.__name__ = name
    measure.__doc__ = f"{name.upper()} at a threshold, from the counts (see measures/_formulas.py)."
    return measure


acc, err, ppv, npv, sen, spc, fpr, fnr, prf, lft = (_threshold_measure(n) for n in _f.SIMPLE)
pre, rec = ppv, sen


def fbeta(h: ScoreHistogram, *, beta: float, threshold: float) -> float:
    """(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)."""
    return float(_f.fbeta(*_confusion(h, threshold), beta=beta))


def cst(h: ScoreHistogram, *, threshold: float, tp: float, fn: float, fp: float, tn: float) -> float:
    return float(_f.cst(*_confusion(h, threshold), tp=tp, fn=fn, fp=fp, tn=tn))


def _desc(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray]:
    """pos and neg per distinct score, highest score first."""
    return h.pos[::-1], h.neg[::-1]


def roc(h: ScoreHistogram) -> float:
    """Area under the ROC curve; a tied positive/negative pair counts one half."""
    P, N = h.n_pos, h.n_neg
    if P == 0 or N == 0:
        return NAN
    pos, neg = _desc(h)
    tp_above = h.cumulative()[1] - pos
    return float(np.sum(neg * (tp_above + 0.5 * pos)) / (P * N))


def r50(h: ScoreHistogram, *, negatives: int) -> float:
    """ROC_n: ROC area over the top cases until `negatives` negatives, scaled by the negatives used."""
    P, N = h.n_pos, h.n_neg
    if P == 0 or N == 0:
        return NAN
    pos, neg = _desc(h)
    tp_above = np.cumsum(pos) - pos
    fp_above = np.cumsum(neg) - neg
    limit = min(float(negatives), N)
    take = np.clip(limit - fp_above, 0.0, neg)  # negatives of each group inside the limit
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(neg > 0, pos / np.where(neg > 0, neg, 1.0), 0.0)
    area = np.sum(take * tp_above + 0.5 * slope * take * take)
    return float(area / (limit * P))


def apr(h: ScoreHistogram) -> float:
    """PERF's average precision: expected precision at each positive, random order inside ties.

    By linearity of expectation a tie group of g cases with m positives, below a cases of which b are
    positive, adds sum_{j=1..g} (m/g) * (b + 1 + (j-1)(m-1)/(g-1)) / (a + j): position j holds a
    positive with probability m/g, and then the expected number of positives before it in the
    group is (j-1)(m-1)/(g-1).  This is the quantity PERF's hypergeometric double sum computes.
    Vectorised over the cases: one term per case, summed per group.
    """
    if not h.is_counts():
        raise InvalidParameterError("APR needs whole-number weights (counts of cases)")
    P = h.n_pos
    if h.n == 0:
        return NAN
    if P == 0:
        return NAN  # no positive to average over (PERF printed 0)
    # a sequential sum over the cases: the compiled kernel does it in one pass without the n-sized
    # temporaries a numpy expression needs (see _x87.c, hist_apr)
    from perfeval import _x87

    return _x87.hist_apr(h.pos, h.neg) / P


def prb(h: ScoreHistogram) -> float:
    """Share of positives among the top P cases; a straddling tie group counts fractionally."""
    P = h.n_pos
    if P == 0:
        return NAN
    return _top_positives(h, P) / P


def _top_positives(h: ScoreHistogram, k: float) -> float:
    pos, neg = _desc(h)
    size = pos + neg
    above = np.cumsum(size) - size
    take = np.clip(k - above, 0.0, size)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(size > 0, pos / np.where(size > 0, size, 1.0), 0.0)
    return float(np.sum(take * frac))


def ntop(h: ScoreHistogram, *, n: float) -> float:
    return _top_positives(h, float(n)) / n


def rkl(h: ScoreHistogram) -> float:
    """1-based rank of the bottom of the lowest tie group holding a positive (pessimistic)."""
    if h.n == 0:
        return NAN
    if h.n_pos == 0 or h.n_neg == 0:
        return h.n
    low = int(np.argmax(h.pos > 0))  # ascending: the lowest score with a positive
    return float((h.pos[low:] + h.neg[low:]).sum())


def top1(h: ScoreHistogram) -> float:
    if h.n == 0:
        return 0.0
    return 1.0 if h.neg[-1] == 0 and h.pos[-1] > 0 else 0.0


def top10(h: ScoreHistogram) -> float:
    """1 if a positive is among the 10 highest-scored cases in every order of the tied cases: the
    worst order puts a tie group's negatives before its positives, so a group with a positive
    counts when the cases above it and its own negatives are fewer than 10."""
    pos, neg = _desc(h)
    size = pos + neg
    above = np.cumsum(size) - size
    hit = (pos > 0) & (above + neg < 10)
    return 1.0 if hit.any() else 0.0


def _in_unit(h: ScoreHistogram) -> bool:
    return len(h.scores) == 0 or (h.scores[0] >= 0.0 and h.scores[-1] <= 1.0)


def slq(h: ScoreHistogram, *, bins: int) -> float:
    """SLAC Q-score over `bins` equal bins of [0, 1] (a score of 1 falls in the last bin)."""
    if h.n == 0 or not _in_unit(h):
        return NAN
    idx = slq_bins(h.scores, int(bins))
    x = np.bincount(idx, weights=h.pos, minlength=int(bins))
    y = np.bincount(idx, weights=h.neg, minlength=int(bins))
    tot = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(tot > 0, np.minimum(x, y) / np.where(tot > 0, tot, 1.0), 0.0)
    return float(np.sum(tot * (1 - 2 * w) ** 2) / tot.sum())


def slq_bins(scores: np.ndarray, bins: int) -> np.ndarray:
    """The bin of each score in [0, 1]: bin i holds i/bins <= s < (i+1)/bins (the last also s = 1).

    The score is compared with the edge values i/bins themselves (as CA1 does), not multiplied:
    ``floor(0.29 * 100)`` is 28 because 0.29 * 100 rounds to 28.999999999999996.
    """
    edges = np.arange(1, bins, dtype=np.float64) / bins
    return np.searchsorted(edges, scores, side="right")


def cxe(h: ScoreHistogram) -> float:
    """Mean cross-entropy in bits; NaN if a score is outside [0, 1], inf for a certain mistake."""
    if h.n == 0 or not _in_unit(h):
        return NAN
    s = h.scores
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(h.pos > 0, -np.log2(s) * h.pos, 0.0)
        ln = np.where(h.neg > 0, -np.log2(1.0 - s) * h.neg, 0.0)
    return float((lp.sum() + ln.sum()) / h.n)


def rms(h: ScoreHistogram) -> float:
    if h.n == 0:
        return NAN
    s = h.scores
    return float(math.sqrt(np.sum(h.pos * (1 - s) ** 2 + h.neg * s**2) / h.n))


def nrm(h: ScoreHistogram, *, p: float) -> float:
    if h.n == 0:
        return NAN
    if p == 0:
        return 1.0
    s = h.scores
    total = np.sum(h.pos * np.abs(1 - s) ** p + h.neg * np.abs(s) ** p)
    return float((total / h.n) ** (1.0 / p))


def ca1(h: ScoreHistogram) -> float:
    """Mean calibration error over the bins [i/20, i/20 + 1/10], i = 0..18, both ends inclusive."""
    errs = []
    for i in range(19):
        lo, hi = i / 20, (i + 2) / 20
        m = (h.scores >= lo) & (h.scores <= hi)
        k = h.pos[m].sum() + h.neg[m].sum()
        if k == 0:
            errs.append(0.0)
            continue
        errs.append(abs(h.pos[m].sum() / k - np.sum(h.scores[m] * (h.pos[m] + h.neg[m])) / k))
    return float(sum(errs) / 19)


def ca2(h: ScoreHistogram, *, window: int) -> float:
    """Mean calibration error over windows of `window` consecutive cases in score order; each case of
    a tie group counts positives/size of a positive, so the order inside ties does not matter."""
    if not h.is_counts():
        raise InvalidParameterError("CA2 needs whole-number weights (counts of cases)")
    S = int(window)
    if h.n < S:
        return NAN
    from perfeval import _x87  # one pass over the cases with running window sums (see _x87.c)

    return _x87.hist_ca2(h.scores, h.pos, h.neg, S)


def sar(h: ScoreHistogram, *, threshold: float, w_acc: float, w_roc: float, w_rms: float) -> float:
    wsum = w_acc + w_roc + w_rms
    return _div(w_acc * acc(h, threshold=threshold) + w_roc * roc(h) + w_rms * (1 - rms(h)), wsum)


# -- the modern vocabulary (binary) ----------------------------------------------------------------
def logloss(h: ScoreHistogram, *, eps: float = 0.0) -> float:
    """Mean cross-entropy in nats; with ``eps`` > 0 each score is first clipped to [eps, 1 - eps]
    (scikit-learn's former ``log_loss(eps=)``), so that one confident mistake costs -ln(eps), not inf."""
    if h.n == 0 or not _in_unit(h):
        return NAN
    s = np.clip(h.scores, eps, 1.0 - eps) if eps > 0 else h.scores
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(h.pos > 0, -np.log(s) * h.pos, 0.0)
        ln = np.where(h.neg > 0, -np.log1p(-s) * h.neg, 0.0)
    return float((lp.sum() + ln.sum()) / h.n)


def brier(h: ScoreHistogram) -> float:
    """Mean squared difference between target and score."""
    if h.n == 0:
        return NAN
    s = h.scores
    return float(np.sum(h.pos * (1 - s) ** 2 + h.neg * s**2) / h.n)


def ap(h: ScoreHistogram) -> float:
    """Average precision, information-retrieval form: mean over the positives of the precision at
    their score's threshold (a tie group is one threshold, as scikit-learn)."""
    P = h.n_pos
    if P == 0:
        return NAN
    _thr, tp, fp = h.cumulative()
    pos = h.pos[::-1]
    cnt = tp + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(cnt > 0, tp / np.where(cnt > 0, cnt, 1.0), 0.0)
    return float(np.sum(pos * prec) / P)
