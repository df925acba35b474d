"""Exact sums over rows: the mergeable summary of a measure that is a weighted mean of per-row values
(``sum_i w_i v_i / sum_i w_i``): each chunk's two sums kept exactly (whole numbers), so chunks in any
order, a stream, Dask partitions, give the bits of all rows at once, and a row of weight 0 counts
exactly as a dropped row.  The multilabel ranking measures (measures/multilabel.py) are finished so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["RowSums", "finish_mean", "group_row_sums", "row_sums"]

Array = np.ndarray

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


def group_row_sums(values: Array, weights: Array | None, codes: Array, q: int) -> list[RowSums]:
    """:func:`row_sums` of each group's rows at once (``codes``: each row's group, 0..q-1): the
    same exact sums, so :func:`finish_mean` of group ``g``'s gives the bits of its rows alone.

    The mantissas are summed as integers per (group, exponent), as :func:`_exact_sum` sums them per
    exponent, then shifted into place group by group (a Python loop over the (group, exponent)
    pairs present, not over the rows).
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    c = np.asarray(codes, dtype=np.int64).reshape(-1)
    rows = np.bincount(c, minlength=q).tolist()
    if weights is None:
        return [RowSums(t, r << _SHIFT, r) for t, r in zip(_group_exact(v, c, q), rows, strict=True)]
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    with np.errstate(over="ignore"):
        wv = w * v
    if not np.isfinite(wv).all():
        raise OverflowError("a weight times its row's value is beyond the range of a 64-bit float")
    return [
        RowSums(t, s, r) for t, s, r in zip(_group_exact(wv, c, q), _group_exact(w, c, q), rows, strict=True)
    ]


def _group_exact(x: Array, codes: Array, q: int) -> list[int]:
    """:func:`_exact_sum` of each group's values (``codes``: 0..q-1), Python integers."""
    totals = [0] * q
    if x.size == 0:
        return totals
    frac, exp = np.frexp(x)
    mant = np.ldexp(frac, 53).astype(np.int64)  # exact: |frac| < 1
    order = np.lexsort((exp, codes))
    g, exp, mant = codes[order], exp[order], mant[order]
    heads = np.flatnonzero(np.concatenate(([True], (exp[1:] != exp[:-1]) | (g[1:] != g[:-1]))))
    high = np.add.reduceat(mant >> 26, heads)  # floor: mant = high 2**26 + low, 0 <= low < 2**26
    low = np.add.reduceat(mant & _LOW, heads)
    for i, e, h, lo in zip(g[heads].tolist(), exp[heads].tolist(), high.tolist(), low.tolist(), strict=True):
        totals[i] += ((h << 26) + lo) << (e - 53 + _SHIFT)
    return totals


def finish_mean(sums: RowSums) -> float:
    """The weighted mean ``sum_i w_i v_i / sum_i w_i`` of :func:`row_sums`' sums, correctly rounded
    (one rounding, of the exact quotient); NaN when the weights sum to 0 (no row, or all weight 0).
    """
    if sums.weight == 0:
        return math.nan
    return sums.total / sums.weight  # Python's int / int: the exact quotient, rounded once
