"""Tie bounds of K classes and K labels per group: the parts both tasks share.

Each group's bounds are the group's own: what :func:`perfeval.engine.class_bounds.class_tie_bounds`
(:func:`perfeval.engine.label_bounds.label_tie_bounds`) gives for the group's cases alone, bit for
bit, and the headline bound is the mean of the groups' bounds that the headline value is of the
groups' values (:meth:`MeasureResult.of <perfeval.engine.report.MeasureResult.of>`: plain, or by the
groups' sizes).  The bound math is those modules'; here are the forms over every group at once of
the sums they read, so that no Python loop runs over the groups:

* :func:`segment_sums`: numpy's sum of each group's values (the groups of one size are the rows of
  one contiguous matrix, and numpy sums each row as it sums that row alone: the bits of the group's
  own ``values.sum()``, as :func:`perfeval.engine.classes.group_means` takes its means);
* :func:`class_support`, :func:`class_pairs`: each group's :attr:`ClassSummary.n_class
  <perfeval.summaries.classes.ClassSummary.n_class>`, its pair sums ``U`` and tie sums ``T``,
  summed as the summary (and :func:`perfeval.engine.class_bounds.tie_matrix`) sum them;
* :func:`ap_groups`: the binary engine's AP (:func:`perfeval.measures.rank.ap` of the group's
  :class:`~perfeval.summaries.ScoreHistogram`) of scores distinct within each group (the extreme
  orders of :func:`perfeval.engine.class_bounds.ap_extremes`), its sums made as it makes them;
* :func:`roc_bounds`: the binary engine's tie bounds of the ROC area per group (its own grouped path,
  which gives each group's bits; weighted, its extreme orders and rank.roc's sums of every group);
* :func:`tied_pairs`: the tied and the comparable pairs of one binary problem inside the groups;
* :func:`set_bounds`: a grouped result's bounds, per group and its headline.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "ap_groups",
    "class_pairs",
    "class_support",
    "roc_bounds",
    "segment_sums",
    "set_bounds",
    "tied_pairs",
]


def _blocks(sizes: np.ndarray, starts: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """For each size m > 0 a group has: those groups, and the (groups, m) positions of their rows in
    an array sorted by group (each group's rows contiguous, from ``starts``).
    """
    for m in np.unique(sizes[sizes > 0]).tolist():
        groups = np.flatnonzero(sizes == m)
        yield groups, starts[groups][:, None] + np.arange(m)[None, :]


def _starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)


def segment_sums(values: np.ndarray, codes: np.ndarray, q: int) -> np.ndarray:
    """Each group's ``values`` (``codes``: each one's group, 0..q-1) summed as numpy sums the group's
    values alone, in their order (``values[codes == g].sum()``, bit for bit); 0.0 for a group
    without any.

    Examples
    --------
    >>> segment_sums(np.array([1.0, 2.0, 4.0]), np.array([1, 0, 1]), 3).tolist()
    [2.0, 5.0, 0.0]
    """
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=q)
    v = np.asarray(values, dtype=np.float64)[order]
    out = np.zeros(q)
    for groups, at in _blocks(sizes, _starts(sizes)):
        out[groups] = v[at].sum(axis=1)  # a fancy index: a new contiguous (groups, m) matrix
    return out


def class_support(
    y: np.ndarray, s0: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int, k: int
) -> Any:
    """Each group's total weight of each class, (q, k), as its ClassSummary's ``n_class`` holds it:
    the counts unweighted; weighted, the sum of the class's cells of column 0 (``s0``: a distinct
    score a cell, its rows' weights added in row order), ascending, by numpy.
    """
    if w is None:
        return np.bincount(codes * k + y, minlength=q * k).reshape(q, k).astype(np.float64)
    s0 = np.asarray(s0, dtype=np.float64) + 0.0  # -0.0 and 0.0: one cell, as the summary keeps them
    order = np.lexsort((s0, y, codes))  # by group, class, score; row order within a score
    g, c, sc = codes[order], y[order], s0[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
    cells = np.bincount(np.cumsum(new) - 1, weights=w[order])  # in row order, as the summary adds them
    heads = np.flatnonzero(new)
    return segment_sums(cells, g[heads] * k + c[heads], q * k).reshape(q, k)


def _segment_cumsum(values: np.ndarray, codes: np.ndarray, q: int) -> np.ndarray:
    """Each group's running sum of its ``values`` (the rows of a group contiguous, ``codes``
    non-decreasing), restarting at each group: the bits of ``np.cumsum`` of the group's values alone.
    """
    sizes = np.bincount(codes, minlength=q)
    out = np.empty(len(values))
    for _groups, at in _blocks(sizes, _starts(sizes)):
        out[at] = np.cumsum(values[at], axis=1)
    return out


def class_pairs(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int, k: int) -> Any:
    """Each group's ``U`` (:meth:`ClassSummary.pairs <perfeval.summaries.classes.ClassSummary.pairs>`)
    and ``T`` (:func:`perfeval.engine.class_bounds.tie_matrix`), (q, k, k) each, summed as they sum
    them for the group alone: in column ``j``, a distinct score a cell (its rows' weights added in
    row order), the class-``j`` cells' running sum ascending, each cell located in it
    (``ClassSummary._pairs_numpy``'s ``above + tied / 2``; the tied pairs' weights multiplied), the
    cells of a class added in ascending order.
    """
    weight = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    u = np.zeros((q, k, k))
    t = np.zeros((q, k, k))
    for j in range(k):
        x = s[:, j] + 0.0  # -0.0 and 0.0: one cell, as the summary keeps them
        order = np.lexsort((x, y, codes))  # the cells of column j: by group, class, score
        g, c, xs = codes[order], y[order], x[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = (g[1:] != g[:-1]) | (c[1:] != c[:-1]) | (xs[1:] != xs[:-1])
        cw = np.bincount(np.cumsum(new) - 1, weights=weight[order])  # row order, as the summary adds
        heads = np.flatnonzero(new)
        cg, cc, cx = g[heads], c[heads], xs[heads]
        rank = np.unique(cx, return_inverse=True)[1].reshape(-1).astype(np.int64)
        span = int(rank.max()) + 1 if len(rank) else 1
        key = cg * span + rank  # (group, score) as one ascending integer
        mine = cc == j
        jkey, jw = key[mine], cw[mine]  # the class-j cells: by group, ascending
        cum = _segment_cumsum(jw, cg[mine], q)  # each group's running sum, as np.cumsum of its own
        first = np.searchsorted(jkey, cg * span, "left")  # the group's first class-j cell

        def upto(at: np.ndarray, first: np.ndarray = first, cum: np.ndarray = cum) -> np.ndarray:
            # the group's cumulative class-j weight before position `at` (0.0 before its first cell)
            return np.where(at > first, cum[np.maximum(at - 1, 0)], 0.0)

        lo = np.searchsorted(jkey, key, "left")
        hi = np.searchsorted(jkey, key, "right")
        below_hi, below_lo = upto(hi), upto(lo)
        above = upto(np.searchsorted(jkey, cg * span + span, "left")) - below_hi
        tied = below_hi - below_lo
        bins = cg * k + cc
        u[:, j, :] = np.bincount(bins, weights=cw * (above + 0.5 * tied), minlength=q * k).reshape(q, k)
        same = hi > lo  # the cell's score is one of the group's class-j scores
        t[:, j, :] = np.bincount(bins[same], weights=cw[same] * jw[lo[same]], minlength=q * k).reshape(q, k)
        u[:, j, j] = 0.0
        t[:, j, j] = 0.0
    return u, t


def ap_groups(t: np.ndarray, r: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int) -> np.ndarray:
    """The binary AP of each group (``codes``: 0..q-1; NaN for a group without a positive weight)
    whose scores ``r`` are distinct within every group: :func:`perfeval.measures.rank.ap` of the
    group's ScoreHistogram (a row a cell, the cells ascending; a row of weight 0 dropped), its sums
    made as it makes them, the groups of one size at once.

    Examples
    --------
    >>> t = np.array([True, False, True, True])
    >>> ap_groups(t, np.array([2.0, 1.0, 0.0, 5.0]), None, np.array([0, 0, 0, 1]), 2).round(4).tolist()
    [0.8333, 1.0]
    """
    t = np.asarray(t, dtype=bool).reshape(-1)
    r = np.asarray(r, dtype=np.float64).reshape(-1)
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    if w is not None and not w.all():  # a case of weight 0 is no case (ScoreHistogram.from_checked)
        keep = w > 0
        t, r, w, codes = t[keep], r[keep], w[keep], codes[keep]
    weight = np.ones(len(t)) if w is None else np.asarray(w, dtype=np.float64)
    order = np.lexsort((r, codes))  # by group, ascending score: the histogram's cells
    pos = np.where(t, weight, 0.0)[order]
    neg = np.where(t, 0.0, weight)[order]
    sizes = np.bincount(codes, minlength=q)
    out = np.full(q, math.nan)
    for groups, at in _blocks(sizes, _starts(sizes)):
        p = pos[at]
        total = p.sum(axis=1)  # h.n_pos: the cells ascending
        down_p = np.ascontiguousarray(p[:, ::-1])  # from the highest score
        down_n = np.ascontiguousarray(neg[at][:, ::-1])
        tp, fp = np.cumsum(down_p, axis=1), np.cumsum(down_n, axis=1)
        cnt = tp + fp
        with np.errstate(invalid="ignore", divide="ignore"):
            prec = np.where(cnt > 0, tp / np.where(cnt > 0, cnt, 1.0), 0.0)
            val = (down_p * prec).sum(axis=1) / total
        out[groups] = np.where(total == 0, math.nan, val)
    return out


def _roc_groups(t: np.ndarray, r: np.ndarray, w: np.ndarray, codes: np.ndarray, q: int) -> tuple[Any, Any]:
    """The binary ROC area of each group of weighted rows whose scores ``r`` are distinct within
    every group: :func:`perfeval.measures.rank.roc` of the group's ScoreHistogram (a row a cell),
    its sums made as it makes them (``n_pos``, ``n_neg`` ascending; the area's terms from the highest
    score down, ``neg (cumsum(pos) - pos + pos / 2)``, summed by numpy; over ``P N``, or ``/ P / N``
    when that overflows).  Returns the areas (NaN without a positive or a negative) and the groups
    whose ``P N`` is below :data:`perfeval.measures.rank.TINY` (rank.roc rescales those: not here).
    """
    from perfeval.measures.rank import TINY

    order = np.lexsort((r, codes))  # by group, ascending score: the histogram's cells
    pos = np.where(t, w, 0.0)[order]
    neg = np.where(t, 0.0, w)[order]
    sizes = np.bincount(codes, minlength=q)
    out = np.full(q, math.nan)
    tiny = np.zeros(q, dtype=bool)
    for groups, at in _blocks(sizes, _starts(sizes)):
        p, n = pos[at], neg[at]
        big_p, big_n = p.sum(axis=1), n.sum(axis=1)
        down_p = np.ascontiguousarray(p[:, ::-1])  # from the highest score
        down_n = np.ascontiguousarray(n[:, ::-1])
        above = np.cumsum(down_p, axis=1) - down_p
        area = (down_n * (above + 0.5 * down_p)).sum(axis=1)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            pairs = big_p * big_n
            val = np.where(
                np.isinf(pairs), np.where(np.isfinite(area), area / big_p / big_n, math.nan), area / pairs
            )
        defined = (big_p != 0) & (big_n != 0)
        out[groups] = np.where(defined, val, math.nan)
        tiny[groups] = defined & (pairs < TINY)
    return out, tiny


def roc_bounds(
    t: np.ndarray, s: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int
) -> tuple[Any, Any]:
    """(min, max) of each group's binary ROC area over the orders of its ties, the bits of
    :func:`perfeval.engine.class_bounds.binary_bounds` of each group alone: the binary engine's
    tie bounds per group (``evaluate(t, s, groups=codes, tie_bounds=True)``'s); weighted (where the
    engine goes group by group), its two extreme orders (:class:`~perfeval.measures.tiebounds.TieOrders`)
    and the area of every group at once (the groups of weights so small that rank.roc rescales them:
    the engine's, on those groups' rows).
    """
    from perfeval.measures.tiebounds import TieOrders

    t = np.asarray(t, dtype=bool).reshape(-1)
    if w is None:
        return _engine_roc_bounds(t, s, None, codes)
    w = np.asarray(w, dtype=np.float64)
    orders = TieOrders(s, t.astype(np.float64), codes, w)
    (va, tiny_a), (vb, tiny_b) = (_roc_groups(t, orders.scores(best=b), w, codes, q) for b in (True, False))
    undefined = np.isnan(va) | np.isnan(vb)
    lo = np.where(undefined, np.nan, np.fmin(va, vb))  # as the binary engine's _tie_bounds
    hi = np.where(undefined, np.nan, np.fmax(va, vb))
    tiny = tiny_a | tiny_b
    if tiny.any():
        from perfeval.summaries.ranking import group_codes

        rows = tiny[codes]
        which, sub = group_codes(codes[rows])
        lo[which], hi[which] = _engine_roc_bounds(t[rows], s[rows], w[rows], sub)
    return lo, hi


def _engine_roc_bounds(
    t: np.ndarray, s: np.ndarray, w: np.ndarray | None, codes: np.ndarray
) -> tuple[Any, Any]:
    """The binary engine's ROC tie bounds of each group (``codes``: 0..q-1, each present)."""
    from perfeval.engine.door import check
    from perfeval.engine.finish import finish
    from perfeval.measures import parse_measure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = parse_measure("ROC")
        cases = check(np.asarray(t, dtype=np.float64), s, codes, w)
        r = finish(cases, [spec], threshold=0.5, tie_bounds=True).results[spec.label]
    return np.asarray(r.tie_min_per_group, dtype=np.float64), np.asarray(
        r.tie_max_per_group, dtype=np.float64
    )


def tied_pairs(
    t: np.ndarray, s: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int
) -> tuple[float, float]:
    """(tied, pairs) of one binary problem summed over the groups: the (positive, negative) pairs of
    a group, weights multiplied (``P N`` a group), and those of them whose scores are equal (each
    tie's ``P N``), as :func:`perfeval.engine.class_bounds.class_tie_bounds` counts them over all the
    cases.

    Examples
    --------
    >>> tied_pairs(np.array([1, 0, 1, 0]), np.array([0.5, 0.5, 0.5, 0.1]), None, np.array([0, 0, 1, 1]), 2)
    (1.0, 2.0)
    """
    from perfeval.summaries.ranking import query_order

    t = np.asarray(t, dtype=bool).reshape(-1)
    s = np.asarray(s, dtype=np.float64).reshape(-1)
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    if not len(t):
        return 0.0, 0.0
    weight = np.ones(len(t)) if w is None else np.asarray(w, dtype=np.float64).reshape(-1)
    wp, wn = np.where(t, weight, 0.0), np.where(t, 0.0, weight)
    order = query_order(codes, s, q)  # by group, descending score: a tie's rows together
    g, sc = codes[order], s[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (sc[1:] != sc[:-1])
    tie = np.cumsum(new) - 1
    tied = float((np.bincount(tie, wp[order]) * np.bincount(tie, wn[order])).sum())
    pairs = float((np.bincount(codes, wp, minlength=q) * np.bincount(codes, wn, minlength=q)).sum())
    return tied, pairs


def set_bounds(r: Any, spec: Any, lo: Any, hi: Any, sizes: np.ndarray) -> None:
    """A grouped result's bounds: each group's (NaN where the group's value is NaN: no value, no
    range), and the headline's, the mean of the groups' bounds the headline value is of the groups'
    values (:meth:`MeasureResult.of <perfeval.engine.report.MeasureResult.of>`: plain or by size).
    """
    from perfeval.engine.report import MeasureResult

    undefined = np.isnan(np.asarray(r.per_group, dtype=np.float64))
    q = len(undefined)
    lo = np.where(undefined, math.nan, np.broadcast_to(np.asarray(lo, dtype=np.float64), (q,)))
    hi = np.where(undefined, math.nan, np.broadcast_to(np.asarray(hi, dtype=np.float64), (q,)))
    r.tie_min_per_group, r.tie_max_per_group = lo, hi
    r.tie_min = MeasureResult.of(spec, lo, sizes, np.arange(q), True).value
    r.tie_max = MeasureResult.of(spec, hi, sizes, np.arange(q), True).value
