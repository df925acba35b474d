"""Tie bounds of the multilabel measures: each measure's least and greatest value over every order of
the tied scores, per label and averaged, where the bound is exact.

What a "tie order" is for K labels, measure by measure (the registry entries of ``kind="multilabel"``
say the same in ``tie_bounds_doc``):

* ``ROC_ML`` and ``AP_ML``, per label, ``macro`` and ``weighted``: each label's binary ROC area (AP)
  over the rows in its own column, whose bounds are the binary measure's (the two extreme orders of
  :mod:`perfeval.measures.tiebounds`, from the binary engine on the label's column).  The columns are
  ordered independently of each other and the labels' supports do not move, so the means of the
  labels' bounds are reached by one order of every column at once (exact).  ``micro``: the binary
  bounds of the one pooled problem of every (row, label) cell, ordered as one ranking (exact).
* the measures of each row's own ranking of its labels (``LRAP``, ``COVERAGE``, ``RANKING_LOSS``,
  and ``ROC_ML`` and ``AP_ML`` with ``average=samples``): a row's value reads that row's order alone,
  and is at its best when every tie of the row puts its relevant labels first and at its worst with
  them last (moving a relevant label above an irrelevant one it is tied with never lowers a row's
  precision at a relevant label, nor raises its lowest relevant rank or its wrong pairs).  The rows
  are ordered independently and which rows are defined does not depend on the order, so the
  weighted mean of the rows' extremes is the extreme of the mean (exact).  The rows' distinct
  scores are the row kernels' own input: the bound is the same kernel on the two extreme orders.
* the threshold measures (``PRE_ML``, ``REC_ML``, ``F_ML``, ``JACCARD``, ``HAMMING``,
  ``SUBSET_ACC``, every average): a score >= threshold is on whatever the order: the bounds are the
  value.

``report.tied_pairs``: the share of the pairs (a row with the label on, a row with it off) whose
scores in the label's column are equal, over every label: the pairs the per-label areas compare.

Per group (:func:`grouped_label_bounds`): each group's bounds are those of its rows alone, bit for
bit, computed for every group at once, and the headline bounds are the mean of the groups' bounds
that the headline value is of the groups' values; the tied pairs are those inside a group.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfeval.engine.class_bounds import ap_bounds, ap_extremes, binary_bounds, mean_over
from perfeval.measures import multilabel as ml
from perfeval.summaries.rowsums import finish_mean, row_sums

__all__ = ["grouped_label_bounds", "label_tie_bounds", "row_extremes", "with_tie_bounds"]

#: the per-label ranking measures and their binary measure
PER_LABEL = {"ROC_ML": "ROC", "AP_ML": "AP"}
#: the measures of each row's ranking of its labels: their row kernels
ROW_KERNELS = {
    "LRAP": ml.lrap_rows,
    "COVERAGE": ml.coverage_rows,
    "RANKING_LOSS": ml.ranking_loss_rows,
    "ROC_ML": ml.roc_rows,
    "AP_ML": ml.ap_rows,
}


def row_extremes(y: np.ndarray, s: np.ndarray, best: bool) -> np.ndarray:
    """Distinct scores of each row's labels in the order that keeps the row's order of scores and
    puts, inside each tie, the relevant labels first (``best``) or last; higher is ranked first.

    Examples
    --------
    >>> row_extremes(np.array([[1, 0, 1]]), np.array([[0.5, 0.5, 0.9]]), best=True).tolist()
    [[2.0, 1.0, 3.0]]
    >>> row_extremes(np.array([[1, 0, 1]]), np.array([[0.5, 0.5, 0.9]]), best=False).tolist()
    [[1.0, 2.0, 3.0]]
    """
    n, k = s.shape
    rel = (y != 0).astype(np.int64)
    rows = np.repeat(np.arange(n), k)
    flat = np.ascontiguousarray(s, dtype=np.float64).reshape(-1)
    # by row, descending score, then relevant first (best) or last: one sort of the n K cells
    order = np.lexsort((-rel.reshape(-1) if best else rel.reshape(-1), -flat, rows))
    out = np.empty(n * k, dtype=np.float64)
    out[order] = np.tile(np.arange(k, 0, -1, dtype=np.float64), n)
    return out.reshape(n, k)


def _bounds(t: np.ndarray, s: np.ndarray, w: np.ndarray | None, binary: str) -> tuple[float, float]:
    """(min, max) of one binary problem's ROC area (the binary engine's bounds) or AP (:func:`ap_bounds`)."""
    if binary == "ROC":
        return binary_bounds(t.astype(np.float64), s, w, "ROC")
    return ap_bounds(t, s, w)


def _row_bounds(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, name: str, samples: bool) -> tuple:
    """(min, max) of the weighted mean over the rows of a row measure over its tie orders."""
    f = ROW_KERNELS[name]
    ends = []
    for best in (True, False):
        v = f(y, row_extremes(y, s, best))
        ok = ~np.isnan(v) if samples else np.ones(len(v), dtype=bool)
        # the exact sums the value is finished from (summaries/rowsums.py): no ties, the value's bits
        ends.append(finish_mean(row_sums(v[ok], None if w is None else w[ok])) if ok.any() else math.nan)
    a, b = ends
    return min(a, b), max(a, b)


def label_tie_bounds(cases: Any, specs: list, results: dict) -> tuple[float, float]:
    """Set every multilabel result's ``tie_min`` and ``tie_max`` (and the per-label bounds where the
    measure has per-label values; ``tied_pairs`` and ``pairs`` on the per-label ranking measures);
    return (tied, pairs) of the pairs the per-label areas compare.  ``cases``: the checked cases
    ((n, K) bool targets, (n, K) scores, weights or None).
    """
    y = np.asarray(cases.y) != 0
    s = np.asarray(cases.s, dtype=np.float64)
    w = None if cases.w is None else np.asarray(cases.w, dtype=np.float64)
    k = s.shape[1]
    ww = np.ones(len(y)) if w is None else w
    support = (y * ww[:, None]).sum(axis=0)
    memo: dict[Any, Any] = {}

    def per_label(binary: str) -> tuple[np.ndarray, np.ndarray]:
        if binary not in memo:
            lo, hi = np.full(k, math.nan), np.full(k, math.nan)
            for j, (t, sc, lw) in enumerate(ml.label_problems(y, s, w)):
                lo[j], hi[j] = _bounds(t, sc, lw, binary)
            memo[binary] = (lo, hi)
        return memo[binary]

    tied, pairs = _column_pairs(y, s, ww)
    for sp in specs:
        r = results[sp.label]
        name, kw = sp.measure.name, sp.kwargs
        average = kw.get("average", "macro")
        lo_c = hi_c = None
        if sp.measure.tie_bounds == "free":
            lo = hi = float(r.value)
        elif name in PER_LABEL and average != "samples":
            lo_c, hi_c = per_label(PER_LABEL[name])
            if r.per_class is not None:  # a label without a value has no bound
                undefined = np.isnan(np.asarray(r.per_class, dtype=np.float64))
                lo_c, hi_c = np.where(undefined, math.nan, lo_c), np.where(undefined, math.nan, hi_c)
            if average == "micro":
                t, sc, mw = ml.micro_problem(y, s, w)
                lo, hi = _bounds(t, sc, mw, PER_LABEL[name])
                tp, pp = _pooled_pairs(t, sc, ww.repeat(k))
            else:
                lo, hi = mean_over(lo_c, support, average), mean_over(hi_c, support, average)
                tp, pp = tied, pairs
            r.tied_pairs, r.pairs = (tp / pp if pp > 0 else math.nan), pp
        elif name in ROW_KERNELS:
            lo, hi = _row_bounds(y, s, w, name, average == "samples")
        else:
            lo = hi = math.nan
            r.tie_note = sp.measure.tie_bounds_text
        if math.isnan(float(r.value)):
            lo = hi = math.nan  # no value, no range
        r.tie_min, r.tie_max = lo, hi
        if lo_c is not None and hi_c is not None and r.per_class is not None:
            r.tie_min_per_class, r.tie_max_per_class = lo_c, hi_c
    return tied, pairs


def _pooled_pairs(t: np.ndarray, s: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """(tied, pairs) of one binary problem: the (on, off) pairs, and those of equal scores."""
    _, inv = np.unique(s, return_inverse=True)
    inv = inv.reshape(-1)
    wp = np.bincount(inv, weights=np.where(t, w, 0.0))
    wn = np.bincount(inv, weights=np.where(t, 0.0, w))
    return float((wp * wn).sum()), float(wp.sum() * wn.sum())


def _column_pairs(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """(tied, pairs) summed over the labels' columns."""
    tied = pairs = 0.0
    for j in range(s.shape[1]):
        a, b = _pooled_pairs(y[:, j], s[:, j], w)
        tied, pairs = tied + a, pairs + b
    return tied, pairs


def grouped_label_bounds(report: Any, cases: Any, specs: list) -> tuple[float, float]:
    """Every grouped multilabel result's bounds per group (``tie_min_per_group``,
    ``tie_max_per_group``: each group's, as :func:`label_tie_bounds` gives them for the group's rows
    alone, bit for bit; NaN where the group's value is NaN) and its headline bounds (the same mean of
    the groups' bounds as the value's of the groups' values); return (tied, pairs) summed over the
    groups.  ``report``: of :func:`perfeval.engine.labels.finish_labels` with groups.

    Every measure over every group at once (:mod:`perfeval.engine.group_bounds`): each label's ROC
    bounds by the binary engine's grouped bounds, its AP of the two extreme orders; the row measures
    from each row's two extremes, summed exactly per group
    (:func:`perfeval.summaries.rowsums.group_row_sums`).
    """
    from perfeval.engine.classes import group_means
    from perfeval.engine.group_bounds import ap_groups, roc_bounds, set_bounds, tied_pairs
    from perfeval.summaries.ranking import group_codes
    from perfeval.summaries.rowsums import group_row_sums

    y = np.asarray(cases.y) != 0
    s = np.asarray(cases.s, dtype=np.float64)
    w = None if cases.w is None else np.asarray(cases.w, dtype=np.float64)
    _keys, codes = group_codes(cases.g)
    q, k = len(_keys), s.shape[1]
    sizes = report.group_sizes
    ww = np.ones(len(y)) if w is None else w
    # each label's on weight in each group, added in row order as the group's (y * w).sum(axis=0)
    cells = (codes[:, None] * k + np.arange(k)[None, :]).reshape(-1)
    support = np.bincount(cells, (y * ww[:, None]).reshape(-1), minlength=q * k).reshape(q, k)
    memo: dict[Any, Any] = {}

    def per_label(binary: str) -> tuple[Any, Any]:
        if binary not in memo:
            lows, highs = [], []
            for t, sc, lw in ml.label_problems(y, s, w):
                if binary == "ROC":
                    lo, hi = roc_bounds(t, sc, lw, codes, q)
                else:
                    lo, hi = (ap_groups(t, ap_extremes(t, sc, lw, b), lw, codes, q) for b in (False, True))
                lows.append(lo)
                highs.append(hi)
            memo[binary] = (np.column_stack(lows), np.column_stack(highs))
        return memo[binary]

    def pooled(binary: str) -> tuple[Any, Any, tuple[float, float]]:
        t, sc, mw = ml.micro_problem(y, s, w)
        pc = np.repeat(codes, k)
        if binary == "ROC":
            lo, hi = roc_bounds(t, sc, mw, pc, q)
        else:
            lo, hi = (ap_groups(t, ap_extremes(t, sc, mw, b), mw, pc, q) for b in (False, True))
        return lo, hi, tied_pairs(t, sc, mw, pc, q)

    tied = pairs = 0.0
    for j in range(k):  # the (on, off) pairs of each label's column, in a group
        a, b = tied_pairs(y[:, j], s[:, j], w, codes, q)
        tied, pairs = tied + a, pairs + b
    for sp in specs:
        r = report.results[sp.label]
        name, kw = sp.measure.name, sp.kwargs
        average = kw.get("average", "macro")
        lo: Any
        hi: Any
        if sp.measure.tie_bounds == "free":
            lo = hi = r.per_group
        elif name in PER_LABEL and average != "samples":
            if average == "micro":
                lo, hi, (tp, pp) = pooled(PER_LABEL[name])
            else:
                lo_c, hi_c = per_label(PER_LABEL[name])
                if r.left_out_per_group is not None:  # a label without a value in a group has no bound
                    left = np.asarray(r.left_out_per_group, dtype=bool)
                    lo_c, hi_c = np.where(left, math.nan, lo_c), np.where(left, math.nan, hi_c)
                lo, hi = group_means(lo_c, support, average), group_means(hi_c, support, average)
                tp, pp = tied, pairs
            r.tied_pairs, r.pairs = (tp / pp if pp > 0 else math.nan), pp
        elif name in ROW_KERNELS:
            f, samples = ROW_KERNELS[name], average == "samples"
            ends = []
            for best in (True, False):
                v = f(y, row_extremes(y, s, best))
                ok = ~np.isnan(v) if samples else np.ones(len(v), dtype=bool)
                sums = group_row_sums(v[ok], None if w is None else w[ok], codes[ok], q)
                ends.append(np.array([finish_mean(x) for x in sums]))
            va, vb = ends
            lo, hi = np.where(vb < va, vb, va), np.where(vb > va, vb, va)  # min(va, vb), max(va, vb)
        else:
            lo = hi = math.nan
            r.tie_note = sp.measure.tie_bounds_text
        set_bounds(r, sp, lo, hi, sizes)
    return tied, pairs


def with_tie_bounds(report: Any, cases: Any, specs: list) -> Any:
    """``report`` (of :func:`perfeval.engine.labels.finish_labels`) with every measure's tie bounds
    (over all the rows, or per group and their mean: :func:`grouped_label_bounds`) and the share of
    tied pairs (``report.tied_pairs``, ``report.pairs``; in a group, when grouped).
    """
    if report.groups is not None:
        tied, pairs = grouped_label_bounds(report, cases, specs)
    else:
        tied, pairs = label_tie_bounds(cases, specs, report.results)
    report.tied_pairs, report.pairs = (tied / pairs if pairs > 0 else math.nan), pairs
    return report
