"""Tie bounds: the minimum and maximum of a measure over every order of the tied cases, and the share
of tied pairs.

Inside a query (or over all cases for a binary measure) the ties occupy fixed ranges of positions
whatever the order inside each, so each measure whose registry entry says ``tie_bounds="orders"`` is
at its maximum when every tie puts its best cases first (higher relevance grades first, a judged case
before an unjudged one; for binary measures, positives first, and with weights the heavier first
among cases of one target) and at its minimum with the exact reverse order, in every tie at once.
The bounds are then the measure itself over these two orders: the scores made distinct
(:class:`TieOrders`) and finished by the same code as the value, so a bound is exact (no sampling)
and costs two more evaluations.  Why these orders are the extremes, measure by measure, is in
docs/ranking.md ("Tie bounds"); ``tests/test_tie_bounds.py`` checks every such measure of the
registry against a brute-force enumeration of every order of the ties, with unequal weights too.

The weights: of the binary measures only AP reads the order of a tie's positives among themselves
(APR takes whole weights, a case of weight k as k copies, so the positives first give one sequence
of positive and negative units whatever their order; the others read only the positive and negative
weight above a cut, which a tie's positives first or last decides).  A positive's precision is
``g(c) = (P + c) / (T + c)``, ``P`` and ``T`` the positive and total weight above the tie, ``c`` the
weight of the tie's cases up to and with it; ``g`` is concave and increasing, so swapping two
adjacent positives of weights ``a < b`` to put ``b`` first raises the weighted sum by
``a b (h(b)/b - h(a)/a) >= 0`` (``h(x)``, the precision's drop over the last ``x`` of the two, is
convex with ``h(0) = 0``); a negative moved above a positive lowers that positive's precision and no
other's.  So AP is greatest with a tie's positives first,
the heavier first, and least with the exact reverse (its negatives first, the lighter positives
first).  The K-class AP bounds (:mod:`perfeval.engine.class_bounds`) use these same orders.

``"free"`` measures do not depend on the order of tied cases (threshold and probability measures,
the set F): their bounds are their value.  ``"linear"`` (SAR) moves with its ROC part.  ``"none"``
(CA2) has no exact bound: NaN, with the reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.summaries.ranking import query_order

#: what ``Measure.tie_bounds`` may say
KINDS = ("orders", "free", "linear", "none")


class TieOrders:
    """The rows of one evaluation sorted once for its tie bounds: by group, descending score, and
    inside each tie (a run of equal scores in a group) by descending ``key`` and, among equal keys,
    descending ``weight`` (the best order; the worst is each tie reversed).  ``key``: the relevance
    grade, or the 0/1 target.  One sort serves both extreme orders and the count of tied pairs.
    ``codes``: the group of each row (int64 from 0), None for one group; ``weight``: of each row (the
    pairs' and the order's), None for 1.

    Examples
    --------
    >>> t = TieOrders(np.array([0.5, 0.5, 0.9, 0.5]), np.array([1.0, 0.0, 0.0, 2.0]))
    >>> t.scores(best=True).tolist(), t.scores(best=False).tolist()   # higher is ranked first
    ([2.0, 1.0, 4.0, 3.0], [2.0, 3.0, 4.0, 1.0])
    >>> t.pairs()   # 5 pairs of different grades, 3 of them tied
    (3.0, 5.0)
    >>> w = TieOrders(np.array([0.5, 0.5, 0.5]), np.array([1.0, 1.0, 0.0]), weight=np.array([1.0, 2.0, 1.0]))
    >>> w.scores(best=True).tolist(), w.scores(best=False).tolist()   # the heavier positive first
    ([2.0, 3.0, 1.0], [2.0, 1.0, 3.0])
    """

    def __init__(self, score: Any, key: Any, codes: Any = None, weight: Any = None):
        sc = np.asarray(score, dtype=np.float64).reshape(-1)
        n = len(sc)
        self.n = n
        self.codes = (
            np.zeros(n, dtype=np.int64) if codes is None else np.asarray(codes, dtype=np.int64).reshape(-1)
        )
        self.weight = None if weight is None else np.asarray(weight, dtype=np.float64).reshape(-1)
        _, self.krank = np.unique(np.asarray(key, dtype=np.float64).reshape(-1), return_inverse=True)
        self.krank = self.krank.reshape(-1).astype(np.int64)
        self.k = int(self.krank.max()) + 1 if n else 1
        groups = int(self.codes.max()) + 1 if n else 0
        first = query_order(self.codes, sc, groups)  # by group, then descending score
        cd, ss = self.codes[first], sc[first]
        new = np.ones(n, dtype=bool)
        if n:
            new[1:] = (cd[1:] != cd[:-1]) | (ss[1:] != ss[:-1])
        self.tie = np.cumsum(new) - 1  # the tie of each position
        self.starts = np.flatnonzero(new)
        # inside each tie, the higher keys first: one stable sort of (tie, reversed key rank)
        combined = self.tie * self.k + (self.k - 1 - self.krank[first])
        if self.weight is None or not n or np.all(self.weight == self.weight[0]):
            self.order = first[np.argsort(combined, kind="stable")]
        else:  # and among equal keys, the heavier first (AP: see the module's docstring)
            self.order = first[np.lexsort((-self.weight[first], combined))]

    def scores(self, best: bool) -> np.ndarray:
        """Distinct scores in the best (or the worst) order: within each group, higher first."""
        order = self.order
        if not best:  # each tie reversed: position p of a tie [a, b) takes a + b - 1 - p
            ends = np.append(self.starts[1:], self.n)
            a, b = self.starts[self.tie], ends[self.tie]
            order = order[a + b - 1 - np.arange(self.n)]
        out = np.empty(self.n, dtype=np.float64)
        out[order] = np.arange(self.n, 0, -1, dtype=np.float64)
        return out

    def pairs(self) -> tuple[float, float]:
        """(tied, pairs): see :func:`tied_pairs`."""
        if not self.n:
            return 0.0, 0.0
        w = np.ones(self.n) if self.weight is None else self.weight
        # the comparable pairs of each group: (W^2 - sum over labels of W_label^2) / 2
        cell = np.unique(self.codes * self.k + self.krank, return_inverse=True)[1].reshape(-1)
        w_cell = np.bincount(cell, weights=w)
        w_group = np.bincount(self.codes, weights=w)
        pairs = (float(np.sum(w_group * w_group)) - float(np.sum(w_cell * w_cell))) / 2.0
        # those inside a tie: the same over the ties, whose labels are contiguous in the best order
        wo, ko, to = w[self.order], self.krank[self.order], self.tie
        new = np.ones(self.n, dtype=bool)
        new[1:] = (to[1:] != to[:-1]) | (ko[1:] != ko[:-1])
        w_tcell = np.add.reduceat(wo, np.flatnonzero(new))
        w_tie = np.add.reduceat(wo, self.starts)
        tied = (float(np.sum(w_tie * w_tie)) - float(np.sum(w_tcell * w_tcell))) / 2.0
        return tied, pairs


def tied_pairs(label: Any, score: Any, codes: Any = None, weight: Any = None) -> tuple[float, float]:
    """(tied, pairs): the pairs of cases of one group (query) with different labels (relevance
    grades; 0/1 targets), and those of them whose scores are equal.  A pair of weighted cases counts
    the product of their weights.  ``tied / pairs`` is the share of the comparable pairs that a tie
    leaves unordered: 0 without ties, 1 when every such pair is tied.

    Examples
    --------
    >>> tied_pairs([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])
    (1.0, 4.0)
    >>> tied_pairs([2, 1, 0, 0], [0.5, 0.5, 0.5, 0.1], codes=[0, 0, 0, 1])
    (3.0, 3.0)
    """
    return TieOrders(score, label, codes, weight).pairs()
