"""RankingData: cases sorted by query and score, with their tie structure, for per-query measures.

Every per-query measure (NDCG, DCG, CG, AP/MAP, P@k, R@k, MRR) and the per-group AUC are computed
from one sort of the data by (query, descending score), vectorised over all queries at once with
``np.add.reduceat`` over query and tie segments: no Python loop over queries.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.exceptions import InvalidDataError


class RankingData:
    """Cases grouped by query, each query sorted by descending score.

    Parameters
    ----------
    relevance : array-like of float >= 0
        Graded relevance (0 = not relevant); binary measures use relevance > 0.
    score : array-like of float
        Scores; NaN is refused.
    groups : array-like, optional
        Query (group) of each case, any hashable values; None: one query.

    Attributes
    ----------
    keys : ndarray
        The distinct query values, in sorted order (query i of every per-query result).
    starts : ndarray of int64, shape (Q + 1,)
        Row offsets of each query in the sorted arrays.
    tie_starts : ndarray of int64, shape (T + 1,)
        Row offsets of each run of equal scores inside a query.
    """

    def __init__(self, relevance: Any, score: Any, groups: Any = None):
        rel = np.asarray(relevance, dtype=np.float64).reshape(-1)
        sc = np.asarray(score, dtype=np.float64).reshape(-1)
        if len(rel) != len(sc):
            raise InvalidDataError(f"relevance and scores differ in length: {len(rel)} and {len(sc)}")
        if np.isnan(sc).any():
            raise InvalidDataError(f"scores hold NaN at index {int(np.argmax(np.isnan(sc)))}")
        if np.isnan(rel).any() or (rel < 0).any():
            bad = int(np.argmax(np.isnan(rel) | (rel < 0)))
            raise InvalidDataError(
                f"relevance must be a number >= 0 for ranking measures, got {rel[bad].item()!r} at index {bad}")
        n = len(sc)
        if groups is None:
            codes = np.zeros(n, dtype=np.int64)
            keys = np.zeros(1 if n else 0, dtype=np.int64)
        else:
            g = np.asarray(groups).reshape(-1)
            if len(g) != n:
                raise InvalidDataError(f"groups and scores differ in length: {len(g)} and {n}")
            keys, codes = _codes(g)
        order = _order(codes, sc, len(keys))
        self.order = order
        self.codes = codes[order]
        self.score = sc[order]
        self.rel = rel[order]
        self.keys = keys
        q = len(keys)
        self.starts = np.searchsorted(self.codes, np.arange(q + 1), side="left").astype(np.int64)
        new_tie = np.ones(n, dtype=bool)
        if n:
            new_tie[1:] = (self.codes[1:] != self.codes[:-1]) | (self.score[1:] != self.score[:-1])
        self.tie_starts = np.append(np.flatnonzero(new_tie), n).astype(np.int64)
        #: position of each row inside its query (0 = top)
        self.pos = np.arange(n, dtype=np.int64) - np.repeat(self.starts[:-1], np.diff(self.starts))

    @property
    def n_queries(self) -> int:
        return len(self.keys)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.starts)

    # -- segment helpers ----------------------------------------------------------------------------
    def per_query(self, values: np.ndarray) -> np.ndarray:
        """Sum of a per-row array over each query (0 for an empty query)."""
        return _segsum(values, self.starts)

    def per_tie(self, values: np.ndarray) -> np.ndarray:
        return _segsum(values, self.tie_starts)

    def tie_query(self) -> np.ndarray:
        """Query code of each tie segment."""
        return self.codes[self.tie_starts[:-1]]

    def tie_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(first position, one past the last position) of each tie segment inside its query."""
        first = self.pos[self.tie_starts[:-1]]
        return first, first + np.diff(self.tie_starts)


def _codes(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct groups, code of each row).  Small non-negative integers are coded with a
    bincount (O(n)); anything else with np.unique."""
    if g.dtype.kind in "iu" and len(g) and g.min() >= 0 and g.max() < 4 * len(g) + 65536:
        present = np.bincount(g) > 0
        remap = np.cumsum(present) - 1
        return np.flatnonzero(present).astype(g.dtype), remap[g].astype(np.int64)
    keys, codes = np.unique(g, return_inverse=True)
    return keys, codes.reshape(-1).astype(np.int64, copy=False)


def _order(codes: np.ndarray, score: np.ndarray, q: int) -> np.ndarray:
    """Rows sorted by query, then by descending score.  The order inside equal (query, score) does
    not matter to any measure (all are tie-aware), so: one fast unstable sort by score, then a stable
    sort by query, a radix sort when the codes fit 16 bits."""
    by_score = np.argsort(-score)
    c = codes[by_score]
    if q <= 65536:
        c = c.astype(np.uint16)
    return by_score[np.argsort(c, kind="stable")]


def _segsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sums of values[starts[i]:starts[i+1]] (segments are never empty); each segment is summed on
    its own, so a long array does not cost precision."""
    if len(starts) <= 1:
        return np.zeros(0)
    return np.add.reduceat(np.asarray(values, dtype=np.float64), starts[:-1])
