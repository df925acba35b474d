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

from perfeval.summaries.ranking import TieTable

NAN = np.nan


def _table(t: Any) -> TieTable:
    return t if isinstance(t, TieTable) else t.ties()


def _cut(t: TieTable, k: float) -> np.ndarray:
    """The cut-off of each query: k, or the query's size when k is 0 (no cut-off)."""
    return t.sizes.copy() if k == 0 else np.full(t.n_queries, float(k))


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
    from perfeval import _x87  # one pass per run in C: a huge tie needs no array of its positions

    return np.frombuffer(
        _x87.disc_sums(np.ascontiguousarray(first, np.float64), np.ascontiguousarray(stop, np.float64)),
        dtype=np.float64,
    )


def _discounted(t: TieTable, k: float, discount: bool) -> np.ndarray:
    """Tie-averaged (discounted) cumulative gain of each query: each case of a tie gets the tie's
    mean gain, and the tie the discounts of its positions above the cut-off.
    """
    stop = np.minimum(t.end, _cut(t, k)[t.query])
    if discount:
        w = _disc(t.first, stop)
    else:
        w = np.clip(stop - t.first, 0.0, None)
    return _per_query_from_ties(t, t.gain / t.size * w)


def dcg(rd: Any, *, k: float) -> np.ndarray:
    """Sum over the top k of (2^rel - 1) / log2(position + 1), ties averaged."""
    return _discounted(_table(rd), k, True)


def cg(rd: Any, *, k: float) -> np.ndarray:
    """Sum over the top k of (2^rel - 1), ties averaged."""
    return _discounted(_table(rd), k, False)


def ndcg(rd: Any, *, k: float) -> np.ndarray:
    """DCG@k / ideal DCG@k; NaN for a query with no relevant case."""
    t = _table(rd)
    got = _discounted(t, k, True)
    q, grade, count = t.grades
    # the ideal order: each query's grades from the highest, a run of positions each
    c = np.cumsum(count)
    within = _runs_before(q, c, count)
    stop = np.minimum(within + count, (_cut(t, k) + (t.missed if k == 0 else 0.0))[q])
    ideal = np.bincount(q, weights=(np.exp2(grade) - 1.0) * _disc(within, stop), minlength=t.n_queries)
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


def ap(rd: Any) -> np.ndarray:
    """Average precision, information-retrieval form: the mean over the relevant cases of the
    precision at their rank.  Ties: a tie group is one threshold, every relevant case in it gets the
    precision at the group's end (scikit-learn's ``average_precision_score``).  NaN without a
    relevant case.
    """
    t = _table(rd)
    m, R = t.rel, _per_query_from_ties(t, t.rel) + t.missed
    tp_end = within_query_cumsum(t, m)
    total = _per_query_from_ties(t, m * tp_end / t.end)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, total / np.where(R > 0, R, 1.0), NAN)


def _top_relevant(t: TieTable, k: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cut = _cut(t, k)
    overlap = np.clip(np.minimum(t.end, cut[t.query]) - t.first, 0.0, None)
    return _per_query_from_ties(t, t.rel / t.size * overlap), _per_query_from_ties(t, t.rel) + t.missed, cut


def precision_at(rd: Any, *, k: float) -> np.ndarray:
    """Relevant cases among the top k, over k (a tie straddling the cut counts fractionally); k = 0:
    over the whole query.  Divides by k even when the query is shorter (trec_eval's P_k).
    """
    hits, _R, cut = _top_relevant(_table(rd), k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cut > 0, hits / np.where(cut > 0, cut, 1.0), NAN)


def recall_at(rd: Any, *, k: float) -> np.ndarray:
    """Relevant cases among the top k over all relevant cases of the query; NaN without any."""
    hits, R, _cut_ = _top_relevant(_table(rd), k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, hits / np.where(R > 0, R, 1.0), NAN)


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
    from perfeval import _x87  # each group on its own: the value does not depend on the others

    out[q] = np.frombuffer(_x87.expected_rr(a, g, mm), dtype=np.float64)
    return out


def group_auc(rd: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ROC area of each group, its number of cases); NaN for a group with one class.  A tied
    positive/negative pair counts one half (Mann-Whitney).
    """
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
