"""Per-query measures over :class:`~perfeval.summaries.ranking.RankingData`, vectorised over queries.

Each function returns one float64 value per query (NaN where the measure is undefined for that
query).  Tie rule, unless a function says otherwise: the expected value over uniformly random
orders of the cases that share a score (the tie-averaged DCG of scikit-learn's ``ndcg_score``).
"""

from __future__ import annotations

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.summaries.ranking import RankingData

NAN = np.nan


def _cut(rd: RankingData, k: float) -> np.ndarray:
    """The cut-off of each query: k, or the query's size when k is 0 (no cut-off)."""
    if k < 0:
        raise InvalidParameterError(f"the cut-off k must be >= 0 (0: none), got {k}")
    return rd.sizes.astype(np.float64) if k == 0 else np.full(rd.n_queries, float(k))


def _tie_to_query_starts(rd: RankingData) -> np.ndarray:
    return np.searchsorted(rd.tie_query(), np.arange(rd.n_queries + 1), side="left").astype(np.int64)


def _per_query_from_ties(rd: RankingData, tie_values: np.ndarray) -> np.ndarray:
    starts = _tie_to_query_starts(rd)
    if len(tie_values) == 0:
        return np.zeros(rd.n_queries)
    return np.add.reduceat(tie_values, starts[:-1])


def _within_query_cumsum(rd: RankingData, tie_values: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of a per-tie array inside each query."""
    c = np.cumsum(tie_values)
    starts = _tie_to_query_starts(rd)
    base = (c - tie_values)[starts[:-1]]
    return c - np.repeat(base, np.diff(starts))


def _discounted(rd: RankingData, gains: np.ndarray, k: float, discount: bool) -> np.ndarray:
    """Tie-averaged (discounted) cumulative gain of each query, given a gain per row."""
    cut = np.repeat(_cut(rd, k), rd.sizes)
    w = np.where(rd.pos < cut, 1.0 / np.log2(rd.pos + 2.0) if discount else 1.0, 0.0)
    size = np.diff(rd.tie_starts).astype(np.float64)
    return _per_query_from_ties(rd, rd.per_tie(gains) / size * rd.per_tie(w))


def dcg(rd: RankingData, *, k: float) -> np.ndarray:
    """sum over the top k of (2^rel - 1) / log2(position + 1), ties averaged."""
    return _discounted(rd, np.exp2(rd.rel) - 1.0, k, True)


def cg(rd: RankingData, *, k: float) -> np.ndarray:
    """sum over the top k of (2^rel - 1), ties averaged."""
    return _discounted(rd, np.exp2(rd.rel) - 1.0, k, False)


def ndcg(rd: RankingData, *, k: float) -> np.ndarray:
    """DCG@k / ideal DCG@k; NaN for a query with no relevant case."""
    got = dcg(rd, k=k)
    ideal_rel = rd.rel[np.lexsort((-rd.rel, rd.codes))]
    cut = np.repeat(_cut(rd, k), rd.sizes)
    w = np.where(rd.pos < cut, 1.0 / np.log2(rd.pos + 2.0), 0.0)
    ideal = rd.per_query((np.exp2(ideal_rel) - 1.0) * w)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ideal > 0, got / np.where(ideal > 0, ideal, 1.0), NAN)


def _binary(rd: RankingData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(relevant per tie, size per tie, relevant per query)."""
    b = (rd.rel > 0).astype(np.float64)
    m = rd.per_tie(b)
    return m, np.diff(rd.tie_starts).astype(np.float64), rd.per_query(b)


def ap(rd: RankingData) -> np.ndarray:
    """Average precision, information-retrieval form: the mean over the relevant cases of the
    precision at their rank.  Ties: a tie group is one threshold, every relevant case in it gets the
    precision at the group's end (scikit-learn's ``average_precision_score``).  NaN without a
    relevant case."""
    m, size, R = _binary(rd)
    tp_end = _within_query_cumsum(rd, m)
    _first, end = rd.tie_bounds()
    total = _per_query_from_ties(rd, m * tp_end / end)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, total / np.where(R > 0, R, 1.0), NAN)


def _top_relevant(rd: RankingData, k: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m, size, R = _binary(rd)
    first, end = rd.tie_bounds()
    cut = _cut(rd, k)[rd.tie_query()]
    overlap = np.clip(np.minimum(end, cut) - first, 0.0, None)
    return _per_query_from_ties(rd, m / size * overlap), R, _cut(rd, k)


def precision_at(rd: RankingData, *, k: float) -> np.ndarray:
    """Relevant cases among the top k, over k (a tie straddling the cut counts fractionally); k = 0:
    over the whole query.  Divides by k even when the query is shorter (trec_eval's P_k)."""
    hits, _R, cut = _top_relevant(rd, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cut > 0, hits / np.where(cut > 0, cut, 1.0), NAN)


def recall_at(rd: RankingData, *, k: float) -> np.ndarray:
    """Relevant cases among the top k over all relevant cases of the query; NaN without any."""
    hits, R, _cut_ = _top_relevant(rd, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, hits / np.where(R > 0, R, 1.0), NAN)


def mrr(rd: RankingData) -> np.ndarray:
    """Reciprocal rank of the first relevant case, expected over random orders inside its tie group:
    for a group of g cases holding m relevant ones below a cases, the first relevant case is at
    a + j with probability C(g - j, m - 1) / C(g, m).  NaN without a relevant case."""
    m, size, R = _binary(rd)
    out = np.full(rd.n_queries, NAN)
    has = m > 0
    if not has.any():
        return out
    tq = rd.tie_query()
    idx = np.flatnonzero(has)
    # the first tie segment holding a relevant case, per query
    first_idx = idx[np.concatenate([[True], tq[idx][1:] != tq[idx][:-1]])]
    q = tq[first_idx]
    a = rd.pos[rd.tie_starts[:-1]][first_idx].astype(np.float64)
    g = np.ascontiguousarray(size[first_idx], dtype=np.float64)
    mm = np.ascontiguousarray(m[first_idx], dtype=np.float64)
    from perfeval import _x87  # each group on its own: the value does not depend on the others

    val = np.frombuffer(_x87.expected_rr(np.ascontiguousarray(a), g, mm), dtype=np.float64)
    out[q] = val
    return out


def group_auc(rd: RankingData) -> tuple[np.ndarray, np.ndarray]:
    """(ROC area of each group, its number of cases); NaN for a group with one class.  A tied
    positive/negative pair counts one half (Mann-Whitney)."""
    m, size, P = _binary(rd)
    neg = size - m
    N = rd.sizes - P
    neg_above = _within_query_cumsum(rd, neg) - neg
    neg_below = np.repeat(N, np.diff(_tie_to_query_starts(rd))) - neg_above - neg
    wins = _per_query_from_ties(rd, m * (neg_below + 0.5 * neg))
    denom = P * N
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), NAN)
    return auc, rd.sizes.astype(np.float64)


def gauc(rd: RankingData) -> np.ndarray:
    auc, _ = group_auc(rd)
    return auc


def gauc_unweighted(rd: RankingData) -> np.ndarray:
    auc, _ = group_auc(rd)
    return auc
