"""Tie bounds: the minimum and maximum of a measure over every order of the tied cases, and the share
of tied pairs.

Inside a query (or over all cases for a binary measure) the ties occupy fixed ranges of positions
whatever the order inside each, so each measure whose registry entry says ``tie_bounds="orders"`` is
at its maximum when every tie puts its best cases first (higher relevance grades first, a judged case
before an unjudged one; for binary measures, positives first) and at its minimum with the reverse
order, in every tie at once.  The bounds are then the measure itself over these two orders: the
scores made distinct (:func:`broken_scores`) and finished by the same code as the value, so a bound is
exact (no sampling) and costs two more evaluations.  Why these orders are the extremes, measure by
measure, is in docs/ranking.md ("Tie bounds"); ``tests/test_tie_bounds.py`` checks every such measure
of the registry against a brute-force enumeration of every order of the ties.

``"free"`` measures do not depend on the order of tied cases (threshold and probability measures,
the set F): their bounds are their value.  ``"linear"`` (SAR) moves with its ROC part.  ``"none"``
(CA2) has no exact bound: NaN, with the reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: what ``Measure.tie_bounds`` may say
KINDS = ("orders", "free", "linear", "none")


def broken_scores(
    score: np.ndarray, keys: tuple[np.ndarray, ...], codes: np.ndarray | None = None, *, best: bool
) -> np.ndarray:
    """Scores without ties, in the order of ``score`` inside each group: each case's rank (0 = the
    lowest) by (group, score, keys), the first key deciding first; with ``best`` a tie's cases with
    higher keys rank higher (come first), else lower.  Cases equal in every key keep their row order
    (they are interchangeable for every measure).

    Examples
    --------
    >>> broken_scores(np.array([0.5, 0.5, 0.9, 0.5]), (np.array([1.0, 0.0, 0.0, 2.0]),), best=True).tolist()
    [1.0, 0.0, 3.0, 2.0]
    >>> broken_scores(np.array([0.5, 0.5, 0.9, 0.5]), (np.array([1.0, 0.0, 0.0, 2.0]),), best=False).tolist()
    [1.0, 2.0, 3.0, 0.0]
    """
    sign = 1.0 if best else -1.0
    sort_keys: list[np.ndarray] = [sign * np.asarray(k, dtype=np.float64) for k in reversed(keys)]
    sort_keys.append(np.asarray(score, dtype=np.float64))
    if codes is not None:
        sort_keys.append(np.asarray(codes))
    order = np.lexsort(sort_keys)
    out = np.empty(len(score), dtype=np.float64)
    out[order] = np.arange(len(score), dtype=np.float64)
    return out


def _squares(keys: list[np.ndarray], w: np.ndarray) -> float:
    """The sum over the cells of equal ``keys`` of the square of their total weight."""
    if not len(w):
        return 0.0
    order = np.lexsort(keys)
    new = np.zeros(len(w), dtype=bool)
    new[0] = True
    for k in keys:
        ks = k[order]
        new[1:] |= ks[1:] != ks[:-1]
    sums = np.add.reduceat(w[order], np.flatnonzero(new))
    return float(np.sum(sums * sums))


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
    lab = np.asarray(label, dtype=np.float64).reshape(-1)
    sc = np.asarray(score, dtype=np.float64).reshape(-1)
    g = np.zeros(len(sc), dtype=np.int64) if codes is None else np.asarray(codes).reshape(-1)
    w = np.ones(len(sc)) if weight is None else np.asarray(weight, dtype=np.float64).reshape(-1)
    pairs = (_squares([g], w) - _squares([lab, g], w)) / 2.0
    tied = (_squares([sc, g], w) - _squares([lab, sc, g], w)) / 2.0
    return tied, pairs
