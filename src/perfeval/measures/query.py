"""Per-query measures over a :class:`~perfeval.summaries.ranking.TieTable`, vectorised over queries.

Each function returns one float64 value per query (NaN where the measure is undefined for that
query).  Tie rule, unless a function says otherwise: the expected value over uniformly random
orders of the cases that share a score (the tie-averaged DCG of scikit-learn's ``ndcg_score``).
Each reads only the table's ties and grades (never rows), so a query evaluated from its summary
gets the same number as from its rows.  A :class:`~perfeval.summaries.ranking.RankingData` is
accepted too (its table is used).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval import _native
from perfeval.summaries.ranking import TieTable

NAN = np.nan


def _table(t: Any) -> TieTable:
    return t if isinstance(t, TieTable) else t.ties()


def _cut(t: TieTable, k: float | np.ndarray) -> np.ndarray:
    """The cut-off of each query: k (a number, or one per query), or the query's size where k is 0
    (no cut-off).
    """
    if np.ndim(k) == 0:
        return t.sizes.copy() if k == 0 else np.full(t.n_queries, float(k))
    k = np.asarray(k, dtype=np.float64)
    return np.where(k == 0, t.sizes, k)


def _per_query_from_ties(t: TieTable, tie_values: np.ndarray) -> np.ndarray:
    if len(tie_values) == 0:
        return np.zeros(t.n_queries)
    return np.add.reduceat(tie_values, t.query_starts[:-1])


def within_query_cumsum(t: TieTable, tie_values: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of a per-tie array inside each query."""
    c = np.cumsum(tie_values)
    starts = t.query_starts
    base = (c - tie_values)[starts[:-1]]
    return c - np.repeat(base, np.diff(starts))


def _disc(first: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Sum of the rank discounts 1 / log2(p + 2) over the positions p in [first, stop) of each run."""
    return np.frombuffer(
        _native.disc_sums(np.ascontiguousarray(first, np.float64), np.ascontiguousarray(stop, np.float64)),
        dtype=np.float64,
    )


GAINS = ("exp", "linear")


def _tie_gain(t: TieTable, gain: str) -> np.ndarray:
    """The summed gain of each tie: 2^rel - 1 (``exp``) or rel (``linear``)."""
    return t.gain if gain == "exp" else t.lin


def _grade_gain(grade: np.ndarray, gain: str) -> np.ndarray:
    return np.exp2(grade) - 1.0 if gain == "exp" else grade


def _discounted(t: TieTable, k: float, discount: bool, gain: str = "exp") -> np.ndarray:
    """Tie-averaged (discounted) cumulative gain of each query: each case of a tie gets the tie's
    mean gain, and the tie the discounts of its positions above the cut-off.
    """
    stop = np.minimum(t.end, _cut(t, k)[t.query])
    if discount:
        w = _disc(t.first, stop)
    else:
        w = np.clip(stop - t.first, 0.0, None)
    return _per_query_from_ties(t, _tie_gain(t, gain) / t.size * w)


def dcg(rd: Any, *, k: float, gain: str = "exp") -> np.ndarray:
    """Sum over the top k of gain(rel) / log2(position + 1), ties averaged; gain ``exp``: 2^rel - 1,
    ``linear``: rel.
    """
    return _discounted(_table(rd), k, True, gain)


def cg(rd: Any, *, k: float, gain: str = "exp") -> np.ndarray:
    """Sum over the top k of gain(rel), ties averaged."""
    return _discounted(_table(rd), k, False, gain)


def ndcg(rd: Any, *, k: float, gain: str = "exp") -> np.ndarray:
    """DCG@k / ideal DCG@k; NaN for a query with no relevant case.  The ideal order holds every
    relevant case of the query, the judged ones the ranking missed included; with k = 0 it is not
    cut (trec_eval's ``ndcg``: all judged relevant documents), with k > 0 it is cut at k.
    """
    t = _table(rd)
    got = _discounted(t, k, True, gain)
    q, grade, count = t.grades
    # the ideal order: each query's grades from the highest, a run of positions each
    c = np.cumsum(count)
    within = _runs_before(q, c, count)
    stop = np.minimum(within + count, (_cut(t, k) + (t.missed if k == 0 else 0.0))[q])
    ideal = np.bincount(q, weights=_grade_gain(grade, gain) * _disc(within, stop), minlength=t.n_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ideal > 0, got / np.where(ideal > 0, ideal, 1.0), NAN)


def _runs_before(q: np.ndarray, c: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The cases before each run inside its query (runs of a query are consecutive)."""
    if not len(q):
        return np.zeros(0)
    new = np.ones(len(q), dtype=bool)
    new[1:] = q[1:] != q[:-1]
    base = (c - count)[new]
    return c - count - np.repeat(base, np.diff(np.append(np.flatnonzero(new), len(q))))


def _relevant(t: TieTable) -> np.ndarray:
    """R: the relevant cases of each query, the judged ones the ranking missed included."""
    return _per_query_from_ties(t, t.rel) + t.missed


def ap(rd: Any, *, k: float = 0) -> np.ndarray:
    """Average precision, information-retrieval form: the sum over the relevant cases ranked in the
    top k (k = 0: all) of the precision at their rank, over R, the query's relevant cases (trec_eval's
    ``map`` and ``map_cut_k``, ranx's ``map@k``).  Ties: a tie group is one threshold, every relevant
    case in it gets the precision at the group's end (scikit-learn's ``average_precision_score``); a
    tie straddling the cut-off counts the fraction of it above the cut.  NaN without a relevant case.
    """
    t = _table(rd)
    m, R = t.rel, _relevant(t)
    tp_end = within_query_cumsum(t, m)
    share = 1.0 if k == 0 else np.clip(np.minimum(t.end, float(k)) - t.first, 0.0, None) / t.size
    total = _per_query_from_ties(t, m * share * tp_end / t.end)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, total / np.where(R > 0, R, 1.0), NAN)


def _top(t: TieTable, values: np.ndarray, k: float | np.ndarray) -> np.ndarray:
    """Sum over the top k of each query of a per-tie count (a tie straddling the cut counts the
    fraction of it above the cut: its expected share over the orders of the tie).
    """
    overlap = np.clip(np.minimum(t.end, _cut(t, k)[t.query]) - t.first, 0.0, None)
    return _per_query_from_ties(t, values / t.size * overlap)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), NAN)


def precision_at(rd: Any, *, k: float) -> np.ndarray:
    """Relevant cases among the top k, over k (a tie straddling the cut counts fractionally); k = 0:
    over the whole query.  Divides by k even when the query is shorter (trec_eval's P_k).
    """
    t = _table(rd)
    return _ratio(_top(t, t.rel, k), _cut(t, k))


def recall_at(rd: Any, *, k: float) -> np.ndarray:
    """Relevant cases among the top k over all relevant cases of the query; NaN without any."""
    t = _table(rd)
    return _ratio(_top(t, t.rel, k), _relevant(t))


def set_f(rd: Any, *, beta: float = 1.0) -> np.ndarray:
    """F-measure of the whole ranked set (trec_eval's ``set_F``): (1 + beta^2) P R / (beta^2 P + R),
    P = relevant retrieved / retrieved (``set_P``), R = relevant retrieved / relevant (``set_recall``),
    computed in trec_eval's order of operations (bit for bit its value for beta = 1).  0 when no
    relevant case is retrieved (P = R = 0); NaN without a relevant case (its recall is undefined).
    The order does not matter, so neither do ties.
    """
    t = _table(rd)
    got, R = _per_query_from_ties(t, t.rel), _relevant(t)
    b2 = float(beta) * float(beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        P, Rc = got / t.sizes, got / R
        f = (b2 + 1.0) * P * Rc / (b2 * P + Rc)
    return np.where(R > 0, np.where(got > 0, f, 0.0), NAN)


def rprec(rd: Any) -> np.ndarray:
    """R-precision: the relevant cases among the top R over R, R the query's relevant cases (the
    judged ones the ranking missed included); NaN without any.  A tie straddling rank R counts the
    expected share of its relevant cases above it.
    """
    t = _table(rd)
    R = _relevant(t)
    return _ratio(_top(t, t.rel, np.where(R > 0, R, -1.0)), R)


def bpref(rd: Any) -> np.ndarray:
    """Binary preference (Buckley and Voorhees 2004, as trec_eval computes it): the mean over the R
    relevant cases of 1 - min(n, R) / min(N, R), n the judged non-relevant cases ranked above it and
    N those of the query (retrieved or not); a relevant case not retrieved adds 0; unjudged cases
    are ignored.  NaN without a relevant case.

    Ties: the expectation over the orders of a tie.  For a relevant case of a tie holding J judged
    non-relevant cases, the number of them above it is uniform on 0..J (its place among them is
    uniform, whatever the tie's other cases), so its expected term is the mean over j of
    1 - min(a + j, R) / min(N, R), a the judged non-relevant cases of the ties above.
    """
    t = _table(rd)
    R = _relevant(t)
    nonrel = t.judged - t.rel
    N = _per_query_from_ties(t, nonrel) + t.missed_nonrel
    above = within_query_cumsum(t, nonrel) - nonrel
    at = np.flatnonzero(t.rel > 0)  # only the ties holding a relevant case add a term
    Rq, Nq = R[t.query[at]], N[t.query[at]]
    denom = np.minimum(Nq, Rq)
    # sum over j = 0..J of min(a + j, R): the part below R grows by one a step, the rest is R
    a, J = above[at], nonrel[at]
    below = np.clip(Rq - a, 0.0, J + 1)  # steps j with a + j < R
    s = below * a + below * (below - 1) / 2 + (J + 1 - below) * Rq
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_min = s / (J + 1)
        term = np.where(denom > 0, 1.0 - mean_min / np.where(denom > 0, denom, 1.0), 1.0)
    per_tie = np.zeros(len(t.rel))  # 0 for the others, as rel * term was
    per_tie[at] = t.rel[at] * term
    return _ratio(_per_query_from_ties(t, per_tie), R)


def success_at(rd: Any, *, k: float) -> np.ndarray:
    """1 when a relevant case is in the top k (trec_eval's ``success_k``, ranx's ``hit_rate@k``),
    expected over the orders of a tie straddling the cut: for s of its g places above the cut and m
    relevant cases in it, the chance that none is above is C(g - m, s) / C(g, s).  0 without a
    relevant case retrieved, NaN without a relevant case.
    """
    t = _table(rd)
    cut = _cut(t, k)[t.query]
    above = np.clip(np.minimum(t.end, cut) - t.first, 0.0, None)  # places of each tie above the cut
    whole = (above >= t.size) & (t.rel > 0)
    part = (above > 0) & (above < t.size) & (t.rel > 0)
    miss = np.ones(len(t.size))  # chance that no relevant case of the tie is above the cut
    miss[whole] = 0.0
    for i in np.flatnonzero(part):  # at most one straddling tie per query
        g, m, s = float(t.size[i]), float(t.rel[i]), float(above[i])
        j = np.arange(s)  # C(g - m, s) / C(g, s) as a product: exact for a few places, no lgamma
        miss[i] = 0.0 if s > g - m else float(np.prod((g - m - j) / (g - j)))
    none = np.exp(_per_query_from_ties(t, np.log(np.where(miss > 0, miss, 1.0))))
    none = np.where(_per_query_from_ties(t, (miss == 0).astype(np.float64)) > 0, 0.0, none)
    R = _relevant(t)
    return np.where(R > 0, 1.0 - none, NAN)


def judged_at(rd: Any, *, k: float) -> np.ndarray:
    """The judged cases among the top k over min(k, the cases ranked) (ir_measures' ``Judged@k``:
    a case the judgments hold, a negative judgment included); a tie straddling the cut counts its
    expected share.  NaN for a query with nothing ranked.
    """
    t = _table(rd)
    return _ratio(_top(t, t.pooled, k), np.minimum(_cut(t, k), t.sizes))


def mrr(rd: Any) -> np.ndarray:
    """Reciprocal rank of the first relevant case, expected over random orders inside its tie group:
    for a group of g cases holding m relevant ones below a cases, the first relevant case is at
    a + j with probability C(g - j, m - 1) / C(g, m).  NaN without a relevant case.
    """
    t = _table(rd)
    out = np.full(t.n_queries, NAN)
    has = t.rel > 0
    if not has.any():
        return out
    idx = np.flatnonzero(has)
    # the first tie segment holding a relevant case, per query
    first_idx = idx[np.concatenate([[True], t.query[idx][1:] != t.query[idx][:-1]])]
    q = t.query[first_idx]
    a = np.ascontiguousarray(t.first[first_idx], dtype=np.float64)
    g = np.ascontiguousarray(t.size[first_idx], dtype=np.float64)
    mm = np.ascontiguousarray(t.rel[first_idx], dtype=np.float64)

    out[q] = np.frombuffer(_native.expected_rr(a, g, mm), dtype=np.float64)
    return out


def group_auc(rd: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ROC area of each group, its number of cases); NaN for a group with one class.  A tied
    positive/negative pair counts one half (Mann-Whitney).
    """
    if not isinstance(rd, TieTable):
        # from the rows: every sum is of whole and half numbers, exact in any order, so the
        # compiled pass over each group's sorted rows gives the tie table's numbers bit for bit
        # without the order of all the rows or the table (csrc/summary.c, group_auc_rows)

        codes, score, rel = rd._rows
        wins, P, N = (
            np.frombuffer(b, np.float64)
            for b in _native.group_auc_rows(codes, score, (rel > 0).view(np.uint8), len(rd.keys))
        )
        denom = P * N
        with np.errstate(invalid="ignore", divide="ignore"):
            auc = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), NAN)
        return auc, rd.query_sizes.copy()
    t = _table(rd)
    m, size = t.rel, t.size
    P = _per_query_from_ties(t, m)
    neg = size - m
    N = t.sizes - P
    neg_above = within_query_cumsum(t, neg) - neg
    neg_below = np.repeat(N, np.diff(t.query_starts)) - neg_above - neg
    wins = _per_query_from_ties(t, m * (neg_below + 0.5 * neg))
    denom = P * N
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), NAN)
    return auc, t.sizes.copy()


def gauc(rd: Any) -> np.ndarray:
    auc, _ = group_auc(rd)
    return auc


def gauc_unweighted(rd: Any) -> np.ndarray:
    auc, _ = group_auc(rd)
    return auc
