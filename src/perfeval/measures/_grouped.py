"""Binary measures for every group at once: one ``np.bincount`` per sum instead of a loop over groups.

Each function returns one value per group and matches the scalar function of the same name in
``_compute`` group for group (tests/test_evaluate.py checks it); measures without an entry here are
computed group by group.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.measures import _formulas as _f


class GroupedData:
    """Rows with their group code; ``w`` is the weight of each row (1 when unweighted)."""

    def __init__(self, codes: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, n_groups: int):
        self.codes, self.y, self.s, self.G = codes, y.astype(np.float64, copy=False), s, n_groups
        self.w = np.ones(len(s)) if w is None else w
        self.weighted = w is not None
        self._ranking: Any = None  # the groups' TieTable, made on first use
        self._hist: Any = None  # the groups' histograms (see _histograms)

    def sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes, weights=values, minlength=self.G)

    def counts(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        pred = self.s >= threshold
        wp, wn = self.w * self.y, self.w * (1.0 - self.y)
        tp, fp = self.sum(wp * pred), self.sum(wn * pred)
        P, N = self.sum(wp), self.sum(wn)
        return tp, P - tp, fp, N - fp


_div = _f.div


def _threshold_measure(name: str):
    formula = getattr(_f, name)

    def measure(gd: GroupedData, *, threshold: float) -> np.ndarray:
        return formula(*gd.counts(threshold))

    measure.__name__ = name
    return measure


acc, err, ppv, npv, sen, spc, fpr, fnr, prf, lft = (_threshold_measure(n) for n in _f.SIMPLE)
pre, rec = ppv, sen


def fbeta(gd: GroupedData, *, beta: float, threshold: float) -> np.ndarray:
    return _f.fbeta(*gd.counts(threshold), beta=beta)


def cst(gd: GroupedData, *, threshold: float, tp: float, fn: float, fp: float, tn: float) -> np.ndarray:
    return _f.cst(*gd.counts(threshold), tp=tp, fn=fn, fp=fp, tn=tn)


def _hist_sum(gd: GroupedData, term) -> np.ndarray:
    """Per-group sums over each group's summary (distinct scores with their positive and negative
    weight), in score order: the same terms, in the same order, as the measure over one summary,
    whatever the order of the rows (a shuffle, a spill)."""
    sc, pos, neg, bounds = _histograms(gd)
    codes = np.repeat(np.arange(gd.G), np.diff(bounds))
    return np.bincount(codes, weights=term(sc, pos, neg), minlength=gd.G)


def _n(gd: GroupedData) -> np.ndarray:
    return _hist_sum(gd, lambda s, p, q: p + q)


def rms(gd: GroupedData) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.sqrt(brier(gd))


def brier(gd: GroupedData) -> np.ndarray:
    return _div(_hist_sum(gd, lambda s, p, q: p * (1 - s) ** 2 + q * s**2), _n(gd))


def nrm(gd: GroupedData, *, p: float) -> np.ndarray:
    n = _n(gd)
    if p == 0:
        return np.where(n > 0, 1.0, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        total = _hist_sum(gd, lambda s, pw, q: pw * np.abs(1 - s) ** p + q * np.abs(s) ** p)
        return _div(total, n) ** (1.0 / p)


def cxe(gd: GroupedData) -> np.ndarray:
    """Bits; NaN for a group holding a score outside [0, 1]."""
    outside = _hist_sum(gd, lambda s, p, q: ((s < 0) | (s > 1)).astype(np.float64)) > 0

    def bits(s, p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.clip(s, 0, 1)
            return np.where(p > 0, -np.log2(c) * p, 0.0) + np.where(q > 0, -np.log2(1.0 - c) * q, 0.0)

    v = _div(_hist_sum(gd, bits), _n(gd))
    return np.where(outside, np.nan, v)


def logloss(gd: GroupedData, *, eps: float = 0.0) -> np.ndarray:
    """Nats; with eps > 0 scores clipped to [eps, 1 - eps] (see _compute.logloss)."""
    outside = _hist_sum(gd, lambda s, p, q: ((s < 0) | (s > 1)).astype(np.float64)) > 0

    def nats(s, p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.clip(s, eps, 1 - eps)
            return np.where(p > 0, -np.log(c) * p, 0.0) + np.where(q > 0, -np.log1p(-c) * q, 0.0)

    v = _div(_hist_sum(gd, nats), _n(gd))
    return np.where(outside, np.nan, v)


def roc(gd: GroupedData) -> np.ndarray | None:
    """Per-group ROC area (half credit for ties) through the ranking kernel; None with weights."""
    t = _tt(gd)
    if t is None:
        return None
    from perfeval.measures._ranking import group_auc

    auc, _ = group_auc(t)
    return auc


def sar(gd: GroupedData, *, threshold: float, w_acc: float, w_roc: float, w_rms: float) -> np.ndarray | None:
    r = roc(gd)
    if r is None:
        return None
    wsum = w_acc + w_roc + w_rms
    return _div(w_acc * acc(gd, threshold=threshold) + w_roc * r + w_rms * (1 - rms(gd)), np.full(gd.G, wsum))


# -- rank and bin measures: from each group's summary (unweighted; weighted ones loop) ---------------
# Every kernel below reads the groups' histograms (distinct scores with their counts), never the rows,
# so a group known only by its summary (perfeval.stream, a group over the memory budget) gets the
# same bits as in memory.
def _tt(gd: GroupedData):
    """The groups' TieTable (ties highest score first, keys the group codes), or None with weights."""
    if gd.weighted:
        return None
    if gd._ranking is None:
        from perfeval.summaries.ranking import TieTable

        _sc, pos, neg, bounds = _histograms(gd)
        gd._ranking = TieTable.from_histograms(pos, neg, bounds)
    return gd._ranking


def top1(gd: GroupedData) -> np.ndarray | None:
    t = _tt(gd)
    if t is None:
        return None
    top = t.first == 0
    v = np.zeros(t.n_queries)
    v[t.query[top]] = ((t.rel[top] == t.size[top]) & (t.rel[top] > 0)).astype(np.float64)
    return v


def top10(gd: GroupedData) -> np.ndarray | None:
    t = _tt(gd)
    if t is None:
        return None
    hit = (t.rel > 0) & (t.first + (t.size - t.rel) < 10)  # a positive in the top 10 in every tie order
    return (np.bincount(t.query[hit], minlength=t.n_queries) > 0).astype(np.float64)


def rkl(gd: GroupedData) -> np.ndarray | None:
    t = _tt(gd)
    if t is None:
        return None
    P = np.bincount(t.query, weights=t.rel, minlength=t.n_queries)
    last = np.zeros(t.n_queries)
    has = t.rel > 0
    np.maximum.at(last, t.query[has], t.end[has])  # ties are in descending order: the deepest end wins
    return np.where((P == 0) | (P == t.sizes), t.sizes, last)


def _top_share(t, k: np.ndarray) -> np.ndarray:
    overlap = np.clip(np.minimum(t.end, k[t.query]) - t.first, 0.0, None)
    return np.bincount(t.query, weights=t.rel / t.size * overlap, minlength=t.n_queries)


def prb(gd: GroupedData) -> np.ndarray | None:
    t = _tt(gd)
    if t is None:
        return None
    P = np.bincount(t.query, weights=t.rel, minlength=t.n_queries)
    return _div(_top_share(t, P), P)


def ntop(gd: GroupedData, *, n: float) -> np.ndarray | None:
    t = _tt(gd)
    if t is None:
        return None
    return _top_share(t, np.full(t.n_queries, float(n))) / n


def slq(gd: GroupedData, *, bins: int) -> np.ndarray | None:
    if gd.weighted:
        return None
    from perfeval.measures._compute import slq_bins

    B = int(bins)
    sc, pos, neg, bounds = _histograms(gd)
    grp = np.repeat(np.arange(gd.G), np.diff(bounds))
    outside = np.bincount(grp, weights=((sc < 0) | (sc > 1)).astype(np.float64), minlength=gd.G) > 0
    cell = grp * B + slq_bins(np.clip(sc, 0, 1), B)
    x = np.bincount(cell, weights=pos, minlength=gd.G * B).reshape(gd.G, B)
    tot = np.bincount(cell, weights=pos + neg, minlength=gd.G * B).reshape(gd.G, B)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(tot > 0, np.minimum(x, tot - x) / np.where(tot > 0, tot, 1.0), 0.0)
    v = _div((tot * (1 - 2 * w) ** 2).sum(axis=1), tot.sum(axis=1))
    return np.where(outside, np.nan, v)


def ca1(gd: GroupedData) -> np.ndarray | None:
    if gd.weighted:
        return None
    sc, pos, neg, bounds = _histograms(gd)
    grp = np.repeat(np.arange(gd.G), np.diff(bounds))
    n = pos + neg
    total = np.zeros(gd.G)
    for i in range(19):
        m = (sc >= i / 20) & (sc <= (i + 2) / 20)
        k = np.bincount(grp, weights=n * m, minlength=gd.G)
        p = np.bincount(grp, weights=pos * m, minlength=gd.G)
        sp = np.bincount(grp, weights=sc * n * m, minlength=gd.G)
        with np.errstate(invalid="ignore", divide="ignore"):
            total += np.where(k > 0, np.abs(p / np.where(k > 0, k, 1) - sp / np.where(k > 0, k, 1)), 0.0)
    return total / 19


def r50(gd: GroupedData, *, negatives: int) -> np.ndarray | None:
    """ROC_n per group (see _compute.r50): vectorised over the tie segments of every group."""
    t = _tt(gd)
    if t is None:
        return None
    from perfeval.measures._ranking import within_query_cumsum

    m, q = t.rel, t.query
    neg = t.size - m
    P = np.bincount(q, weights=m, minlength=t.n_queries)
    N = np.bincount(q, weights=neg, minlength=t.n_queries)
    tp_above = within_query_cumsum(t, m) - m
    fp_above = within_query_cumsum(t, neg) - neg
    limit = np.minimum(float(negatives), N)
    take = np.clip(limit[q] - fp_above, 0.0, neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(neg > 0, m / np.where(neg > 0, neg, 1.0), 0.0)
    area = np.bincount(q, weights=take * tp_above + 0.5 * slope * take * take, minlength=t.n_queries)
    return np.where((P > 0) & (N > 0), _div(area, limit * P), np.nan)


def _histograms(gd: GroupedData):
    """(scores, pos, neg, bounds): every group's ScoreHistogram as slices of three arrays."""
    if getattr(gd, "_hist", None) is None:
        order = np.lexsort((gd.s, gd.codes))
        c, sc, yy, ww = gd.codes[order], gd.s[order] + 0.0, gd.y[order], gd.w[order]
        new = np.ones(len(sc), dtype=bool)
        new[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
        starts = np.flatnonzero(new)
        pos = np.add.reduceat(ww * yy, starts) if len(starts) else np.zeros(0)
        neg = np.add.reduceat(ww * (1 - yy), starts) if len(starts) else np.zeros(0)
        bounds = np.searchsorted(c[starts], np.arange(gd.G + 1))
        gd._hist = (sc[starts], pos, neg, bounds)
    return gd._hist


def apr(gd: GroupedData) -> np.ndarray | None:
    """PERF's APR per group: the one-pass kernel on each group's slice (no per-group objects)."""
    if gd.weighted:
        return None
    from perfeval import _x87

    _sc, pos, neg, bounds = _histograms(gd)
    out = np.full(gd.G, np.nan)
    if gd.G == 0:
        return out
    P = np.add.reduceat(pos, bounds[:-1])  # every group holds at least one cell
    total = np.frombuffer(_x87.hist_apr_groups(pos, neg, np.ascontiguousarray(bounds, np.int64)), np.float64)
    has = P > 0  # a group with no positive: NaN
    out[has] = total[has] / P[has]
    return out


def ca2(gd: GroupedData, *, window: int) -> np.ndarray | None:
    S = int(window)
    if gd.weighted:
        return None
    from perfeval import _x87

    sc, pos, neg, bounds = _histograms(gd)
    out = np.empty(gd.G)
    for k in range(gd.G):
        a, b = bounds[k], bounds[k + 1]
        n = pos[a:b].sum() + neg[a:b].sum()
        out[k] = np.nan if n < S else _x87.hist_ca2(sc[a:b], pos[a:b], neg[a:b], S)
    return out
