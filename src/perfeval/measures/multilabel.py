"""Multilabel ranking measures, one value a row, and the per-label and micro binary problems.

A multilabel problem is ``Y`` of shape (n, K), the relevant labels of each row (any non-zero value
is relevant, as scikit-learn reads its label indicator matrix), and ``S`` of the same shape, a score
a row and label.  Three measures rank each row's labels by their scores and score the row:

- :func:`lrap_rows`, label ranking average precision;
- :func:`coverage_rows`, coverage error;
- :func:`ranking_loss_rows`, label ranking loss;

each as scikit-learn 1.9 defines it, ties and rows without (or with only) relevant labels included.
The measure over rows is the weighted mean ``sum_i w_i v_i / sum_i w_i`` of the row values ``v_i``:
:func:`row_sums` gives a chunk's two sums exactly (:class:`RowSums`, merged by ``+``), and
:func:`finish_mean` the mean, correctly rounded, so that chunks (a stream, Dask partitions) give the
same bits as all rows at once, in any order, and a row of weight 0 counts exactly as a dropped row.

The per-label measures read the K binary problems of :func:`label_problems` (label ``j``: targets
``Y[:, j]``, scores ``S[:, j]``) and the micro average the one problem of :func:`micro_problem` (all
n K cells).

The kernels take checked input (2-D, one shape, finite scores; :mod:`perfeval.functional.sklearn_multilabel`
checks it at its door): numpy only, each row's scores sorted once, O(n K log K), no loop over rows.

Examples
--------
>>> Y = np.array([[1, 0, 0], [0, 0, 1]])
>>> S = np.array([[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]])
>>> lrap_rows(Y, S).tolist()
[0.5, 0.3333333333333333]
>>> finish_mean(row_sums(lrap_rows(Y, S)))
0.41666666666666663
>>> coverage_rows(Y, S).tolist(), ranking_loss_rows(Y, S).tolist()
([2.0, 3.0], [0.5, 1.0])
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = [
    "lrap_rows",
    "coverage_rows",
    "ranking_loss_rows",
    "RowSums",
    "row_sums",
    "finish_mean",
    "label_problems",
    "micro_problem",
]

Array = np.ndarray


# -- each row's labels by score ------------------------------------------------------------------------
def _ranked(y: Array, s: Array) -> tuple[Array, Array, Array]:
    """Each row's labels from the highest score down: whether each is relevant, and the positions
    of the first and of the last label of its tie (its run of equal scores) in that order.
    """
    n, k = s.shape
    order = np.argsort(s, axis=1, kind="stable")[:, ::-1]
    ss = np.take_along_axis(s, order, axis=1)
    rel = np.take_along_axis(y != 0, order, axis=1)
    pos = np.broadcast_to(np.arange(k, dtype=np.intp), (n, k))
    starts = np.ones((n, k), dtype=bool)  # a tie starts here (-0.0 and 0.0 are one tie)
    np.not_equal(ss[:, 1:], ss[:, :-1], out=starts[:, 1:])
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    ends = np.ones((n, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    last = np.minimum.accumulate(np.where(ends, pos, k - 1)[:, ::-1], axis=1)[:, ::-1]
    return rel, first, last


def lrap_rows(y: Array, s: Array) -> Array:
    """Label ranking average precision of each row.

    For a row with relevant labels R (``y != 0``), the mean over the relevant labels ``j`` of

        |{k in R : s_k >= s_j}| / |{k : s_k >= s_j}|,

    the precision of the row's ranking cut at label ``j``.

    Ties: a label counts every label of score equal to its own as ranked above it (the greater,
    pessimistic rank of the tie: scikit-learn's ``rankdata(-s, "max")``), in both counts.

    Edge cases: a row with no relevant label, or with every label relevant, is 1.0 (its ranking
    cannot be wrong), so with one label every row is 1.0.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero (True, 1) relevant, zero not.
    s : ndarray of shape (n, K)
        Scores, finite, any real dtype (integers are compared exactly).

    Returns
    -------
    ndarray of float64, shape (n,)
        One value a row, in (0, 1].

    Examples
    --------
    >>> lrap_rows(np.array([[1, 0, 1]]), np.array([[0.5, 0.5, 0.1]])).tolist()
    [0.5833333333333333]
    """
    n, k = s.shape
    rel, _, last = _ranked(y, s)
    above = np.take_along_axis(np.cumsum(rel, axis=1), last, axis=1)  # relevant labels at or above
    precision = above / (last + 1.0)  # over all labels at or above
    n_rel = np.count_nonzero(rel, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sum(np.where(rel, precision, 0.0), axis=1) / n_rel
    out[(n_rel == 0) | (n_rel == k)] = 1.0
    return out


def coverage_rows(y: Array, s: Array) -> Array:
    """Coverage error of each row: how many labels, from the highest score down, cover every
    relevant label, ``|{k : s_k >= min_{j in R} s_j}|``.

    Ties: every label tied with the lowest-scored relevant label counts (the greater rank of the
    tie), as scikit-learn counts.  This is 1 more than Tsoumakas et al.'s (2010) coverage.

    Edge cases: a row without a relevant label is 0 (scikit-learn's rule); a row with every label
    relevant is K.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero relevant.
    s : ndarray of shape (n, K)
        Scores, finite, any real dtype.

    Returns
    -------
    ndarray of float64, shape (n,)
        One value a row, a whole number in [0, K].

    Examples
    --------
    >>> coverage_rows(np.array([[1, 0, 1], [0, 0, 0]]), np.array([[0.5, 0.5, 0.1], [1, 2, 3]])).tolist()
    [3.0, 0.0]
    """
    rel = y != 0
    if s.shape[1] == 0:
        return np.zeros(len(s))
    top = s.max(axis=1, keepdims=True)  # in place of the irrelevant labels: no lower than the minimum
    lowest = np.where(rel, s, top).min(axis=1, keepdims=True)
    out = np.count_nonzero(s >= lowest, axis=1).astype(np.float64)
    out[~rel.any(axis=1)] = 0.0
    return out


def ranking_loss_rows(y: Array, s: Array) -> Array:
    """Label ranking loss of each row: the share of its (relevant, irrelevant) label pairs that are
    ordered wrong,

        |{(j, k) : j in R, k not in R, s_k >= s_j}| / (|R| (K - |R|)).

    Ties: a relevant and an irrelevant label of equal score are a wrong pair (a whole one, not a
    half), as scikit-learn counts.

    Edge cases: a row with no relevant label, or with every label relevant, has no pair and is 0.

    The count of wrong pairs is a whole number, and the share the division of two whole numbers,
    so every value has scikit-learn's bits.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero relevant.
    s : ndarray of shape (n, K)
        Scores, finite, any real dtype.

    Returns
    -------
    ndarray of float64, shape (n,)
        One value a row, in [0, 1].

    Examples
    --------
    >>> ranking_loss_rows(np.array([[1, 0, 1]]), np.array([[0.5, 0.5, 0.1]])).tolist()
    [1.0]
    """
    n, k = s.shape
    rel, first, _ = _ranked(y, s)
    strictly_above = np.take_along_axis(np.cumsum(rel, axis=1) - rel, first, axis=1)
    n_rel = np.count_nonzero(rel, axis=1)
    # each irrelevant label: the relevant labels at or below its score, n_rel - strictly above
    wrong = np.sum(np.where(rel, 0, n_rel[:, None] - strictly_above), axis=1).astype(np.float64)
    pairs = (n_rel * (k - n_rel)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = wrong / pairs
    out[(n_rel == 0) | (n_rel == k)] = 0.0
    return out


# -- the mean over rows, exactly, chunk by chunk -------------------------------------------------------
#: a float64 is m 2**(e - 53) with m a whole number below 2**53 and e >= -1073 (np.frexp): times
#: 2**_SHIFT every one is a whole number, and so is any sum of them
_SHIFT = 1126
_LOW = (1 << 26) - 1


def _exact_sum(x: Array) -> int:
    """``sum(x) * 2**_SHIFT`` exactly, a Python integer (``x``: finite float64).

    The mantissas are summed as integers per exponent (26-bit halves: no overflow below 2**36
    values of one exponent), then shifted into place: exact, so the order of ``x`` does not matter.
    """
    if x.size == 0:
        return 0
    frac, exp = np.frexp(x.ravel())
    mant = np.ldexp(frac, 53).astype(np.int64)  # exact: |frac| < 1
    order = np.argsort(exp, kind="stable")
    exp, mant = exp[order], mant[order]
    heads = np.flatnonzero(np.concatenate(([True], exp[1:] != exp[:-1])))
    high = np.add.reduceat(mant >> 26, heads)  # floor: mant = high 2**26 + low, 0 <= low < 2**26
    low = np.add.reduceat(mant & _LOW, heads)
    total = 0
    for e, h, lo in zip(exp[heads].tolist(), high.tolist(), low.tolist(), strict=True):
        total += ((h << 26) + lo) << (e - 53 + _SHIFT)
    return total


@dataclass(frozen=True)
class RowSums:
    """The exact sums of some rows: ``total`` = sum of ``w_i v_i``, ``weight`` = sum of ``w_i``,
    each times ``2**1126`` (a whole number: exact, whatever the order or the grouping of the rows),
    and ``rows``, how many rows (weight 0 included).  ``a + b`` is the sums of both sets of rows.
    """

    total: int = 0
    weight: int = 0
    rows: int = 0

    def __add__(self, other: RowSums) -> RowSums:
        return RowSums(self.total + other.total, self.weight + other.weight, self.rows + other.rows)


def row_sums(values: Array, weights: Array | None = None) -> RowSums:
    """The exact sums of one chunk of rows (:class:`RowSums`): of ``w_i v_i`` (each product rounded
    to float64 once, as the row's own number, so any chunking gives the same terms) and of ``w_i``.

    Parameters
    ----------
    values : ndarray of float64, shape (n,)
        The rows' values (:func:`lrap_rows`, ...), finite.
    weights : ndarray of float64, shape (n,), optional
        Finite weights >= 0; None counts 1 a row, with the same bits as ones.

    Raises
    ------
    OverflowError
        A product ``w_i v_i`` beyond float64's range.
    """
    v = np.asarray(values, dtype=np.float64)
    if weights is None:
        return RowSums(_exact_sum(v), len(v) << _SHIFT, len(v))
    w = np.asarray(weights, dtype=np.float64)
    with np.errstate(over="ignore"):
        wv = w * v
    if not np.isfinite(wv).all():
        raise OverflowError("a weight times its row's value is beyond the range of a 64-bit float")
    return RowSums(_exact_sum(wv), _exact_sum(w), len(v))


def finish_mean(sums: RowSums) -> float:
    """The weighted mean ``sum_i w_i v_i / sum_i w_i`` of :func:`row_sums`' sums, correctly rounded
    (one rounding, of the exact quotient); NaN when the weights sum to 0 (no row, or all weight 0).
    """
    if sums.weight == 0:
        return math.nan
    return sums.total / sums.weight  # Python's int / int: the exact quotient, rounded once


# -- the binary problems of the per-label and micro averages ---------------------------------------------
def label_problems(y: Array, s: Array, w: Array | None = None) -> Iterator[tuple[Array, Array, Array | None]]:
    """The K binary problems of the per-label measures (macro, weighted, per label), one a label.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero relevant.
    s : ndarray of shape (n, K)
        Scores.
    w : ndarray of shape (n,), optional
        The rows' weights.

    Yields
    ------
    (targets, scores, weights)
        For label ``j`` in column order: ``y[:, j] != 0`` (bool), ``s[:, j]`` (float64), both
        contiguous, and ``w`` itself (the same array, or None, for every label).
    """
    for j in range(s.shape[1]):
        yield (
            np.ascontiguousarray(y[:, j] != 0),
            np.ascontiguousarray(s[:, j], dtype=np.float64),
            w,
        )


def micro_problem(y: Array, s: Array, w: Array | None = None) -> tuple[Array, Array, Array | None]:
    """The one binary problem of the micro average: all n K (row, label) cells.

    Returns
    -------
    (targets, scores, weights)
        ``y != 0`` and ``s`` (float64) flattened row by row (row 0's K cells first), and each row's
        weight repeated K times (None stays None).
    """
    k = s.shape[1]
    targets = (y != 0).reshape(-1)
    scores = np.ascontiguousarray(s, dtype=np.float64).reshape(-1)
    return targets, scores, None if w is None else np.repeat(np.asarray(w, dtype=np.float64), k)
