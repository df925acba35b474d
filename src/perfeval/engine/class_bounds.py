"""Tie bounds of the multiclass measures: each measure's least and greatest value over every order of
the tied scores, per class and averaged, where the bound is exact; NaN and why where it is not.

What a "tie order" is for K classes, measure by measure (the registry entries of ``kind="multiclass"``
say the same in ``tie_bounds_doc``):

* ``ROC_OVR`` (macro, weighted, per class): each class's binary ROC area in its own column, whose
  bounds are the binary ROC's: every tied (class, rest) pair won, or every one lost,
  ``A_j +- T_j / (2 n_j (N - n_j))``.  The columns are ordered independently of each other, so the
  mean of the classes' maxima is reached by one order of every column at once: the macro and
  weighted bounds are the same means of the classes' bounds (exact).  ``micro``: the binary ROC of the
  pooled (case, class) cells over the orders of that one pooled ranking (exact).
* ``ROC_OVO``: Hand and Till's ``A(j|k)`` reads column ``j`` alone, and putting the class-``j`` cases
  first in every tie of column ``j`` wins every tied pair of ``A(j|k)`` for every ``k`` at once: each
  ``A(j|k) +- T[j, k] / (2 n_j n_k)``, and the pairs' means of them (exact).
* ``AP_OVR``: each class's binary AP in its own column, the binary engine's AP of the column's two
  extreme orders (:class:`perfeval.measures.tiebounds.TieOrders`, the binary AP's: positives first,
  the heavier first, and the exact reverse; exact with unequal weights inside a tie too); averaged as
  the values (the columns independent: exact).  ``micro``: the same on the pooled cells.
* the argmax measures that count a row by itself (``ACC_MC``, ``REC_MC``, ``BACC``, ``TOPK_ACC``): a
  tie at the max (or across the k-th place) is broken independently in each row; a row counts fully
  when its true class wins its tie, not at all when it loses it, so the maximum (minimum) has every
  tied row at its best (worst): exact, per class and averaged (recall's classes are their own rows).
* order-free (``LOGLOSS_MC``, ``BRIER_MC``): each row scored by its own probabilities; the bounds are
  the value.
* ``PRE_MC``, ``F_MC``, ``MCC``, ``KAPPA``, ``QWK``: a row's tie moves a count of two classes at once
  (a ratio of them, or products of the margins), so the rows' best and worst are not one order's: no
  exact bound is computed (NaN, and ``tie_note`` says why).

``report.tied_pairs``: the share of the pairs (a case of class ``j``, a case of another class) whose
scores in column ``j`` are equal, over every column: the pairs the OvR and OvO areas compare (the
two count the same pairs).

Per group (:func:`grouped_class_bounds`): each group's bounds are those of its cases alone, bit for
bit, computed for every group at once, and the headline bounds are the mean of the groups' bounds
that the headline value is of the groups' values (plain, or by size, as the measure's ``aggregate``
says); the tied pairs are those inside a group.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

__all__ = [
    "ap_bounds",
    "ap_extremes",
    "binary_bounds",
    "class_tie_bounds",
    "grouped_class_bounds",
    "mean_over",
    "row_outcomes",
    "tie_matrix",
]

#: the measures whose bound is exact here, and how (the others: the registry's tie_bounds "none")
RANKED = ("ROC_OVR", "ROC_OVO", "AP_OVR")
ROWS = ("ACC_MC", "REC_MC", "BACC", "TOPK_ACC")


def tie_matrix(cs: Any) -> np.ndarray:
    """``T[j, c]``: in column ``j``, the weight of the pairs (a case of class ``j``, a case of class
    ``c``) whose scores are equal (weights multiplied; ``T[j, j]`` is 0).
    """
    k = cs.k
    t = np.zeros((k, k))
    for j in range(k):
        ps, pw = cs.block(j, j)
        if not len(ps):
            continue
        a, e = int(cs.offsets[j * k]), int(cs.offsets[(j + 1) * k])
        xs, xw = cs.scores[a:e], cs.weights[a:e]
        owner = np.repeat(np.arange(k), np.diff(cs.offsets[j * k : (j + 1) * k + 1]))
        at = np.minimum(np.searchsorted(ps, xs, "left"), len(ps) - 1)
        same = ps[at] == xs
        row = np.bincount(owner[same], weights=xw[same] * pw[at[same]], minlength=k)
        row[j] = 0.0
        t[j] = row
    return t


def mean_over(per: np.ndarray, support: np.ndarray, average: str) -> float:
    """Macro or weighted over the classes where ``per`` is defined (as the values are averaged)."""
    ok = ~np.isnan(per)
    if not ok.any():
        return math.nan
    if average == "weighted":
        w = support[ok]
        total = w.sum()
        return float((per[ok] * (w / total)).sum()) if total > 0 else math.nan
    return float(per[ok].mean())


def _ovr(u: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Each class's one-vs-rest area ``sum_c U[j, c] / (n_j (N - n_j))`` (NaN where 0/0); leading
    axes are groups (``u``: (..., K, K), ``n``: (..., K)).
    """
    total = n.sum(axis=-1, keepdims=True)
    den = n * (total - n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, u.sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def _ovo_pairs(u: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pair of classes' ``(A(j|k) + A(k|j)) / 2``, ``A = U / n n`` (NaN where 0/0), and its
    weight ``n_j + n_k``, the pairs in ``np.triu_indices`` order; leading axes are groups.
    """
    k = n.shape[-1]
    den = n[..., :, None] * n[..., None, :]  # np.outer(n, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(den > 0, u / np.where(den > 0, den, 1.0), np.nan)
    pair = (a + np.swapaxes(a, -1, -2)) / 2
    j, i = np.triu_indices(k, 1)
    return pair[..., j, i], n[..., j] + n[..., i]


def _ovo(u: np.ndarray, n: np.ndarray, average: str) -> float:
    """Hand and Till's mean over the pairs of classes of ``(A(j|k) + A(k|j)) / 2``, ``A = U / n n``."""
    vals, weights = _ovo_pairs(u, n)
    ok = ~np.isnan(vals)
    if not ok.any():
        return math.nan
    if average == "weighted":
        w = weights[ok]
        return float((vals[ok] * (w / w.sum())).sum())
    return float(vals[ok].mean())


def binary_bounds(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, name: str) -> tuple[float, float]:
    """The binary measure ``name``'s tie bounds (the binary engine's: ``evaluate(tie_bounds=True)``)."""
    from perfeval.engine.door import check
    from perfeval.engine.finish import finish
    from perfeval.measures import parse_measure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = parse_measure(name)
        r = finish(check(y, s, None, w), [spec], threshold=0.5, tie_bounds=True).results[spec.label]
    return _num(r.tie_min), _num(r.tie_max)


def _binary_value(t: np.ndarray, s: np.ndarray, w: np.ndarray | None, name: str) -> float:
    """The binary measure ``name`` of one problem (the binary engine's value)."""
    from perfeval.engine.door import check
    from perfeval.engine.finish import finish
    from perfeval.measures import parse_measure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = parse_measure(name)
        v = finish(check(t, s, None, w), [spec], threshold=0.5).results[spec.label].value
    return math.nan if v is None else float(v)


def ap_extremes(t: np.ndarray, s: np.ndarray, w: np.ndarray | None, best: bool) -> np.ndarray:
    """Distinct scores of one binary problem (all its rows: groups keep their relative order) in the
    order where its AP is greatest (``best``) or least over the orders of its ties; higher is ranked
    first: the orders of :class:`~perfeval.measures.tiebounds.TieOrders` (inside a tie the positives
    first, the heavier first; the least, the exact reverse), which say why.

    Examples
    --------
    >>> t = np.array([True, True, False])
    >>> ap_extremes(t, np.array([0.5, 0.5, 0.5]), np.array([2.0, 1.0, 1.0]), best=True).tolist()
    [3.0, 2.0, 1.0]
    >>> ap_extremes(t, np.array([0.5, 0.5, 0.5]), np.array([2.0, 1.0, 1.0]), best=False).tolist()
    [1.0, 2.0, 3.0]
    """
    from perfeval.measures.tiebounds import TieOrders

    return TieOrders(s, np.asarray(t, dtype=np.float64), None, w).scores(best=best)


def ap_bounds(t: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    """(min, max) of one binary problem's AP over the orders of its ties: the binary engine's AP of
    its two extreme orders, those of its own tie bounds (:class:`~perfeval.measures.tiebounds.TieOrders`:
    positives first, the heavier first, and the exact reverse; exact with unequal weights inside a
    tie too).

    Examples
    --------
    >>> ap_bounds(np.array([0, 1, 1, 0]), np.array([0.9, 0.5, 0.5, 0.5]), np.array([1.0, 1.0, 3.0, 1.0]))
    (0.5833333333333334, 0.7625)
    """
    from perfeval.measures.tiebounds import TieOrders

    t = np.asarray(t, dtype=np.float64)
    if not t.any():
        return math.nan, math.nan
    orders = TieOrders(s, t, None, w)
    return (
        _binary_value(t, orders.scores(best=False), w, "AP"),
        _binary_value(t, orders.scores(best=True), w, "AP"),
    )


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def row_outcomes(y: np.ndarray, s: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's best and worst count (0 or 1) over the orders of its ties: the argmax is the true
    class (``k`` None), or the true class is among the ``k`` best scored.
    """
    n = len(y)
    true = s[np.arange(n), y]
    above = np.count_nonzero(s > true[:, None], axis=1)
    tied = np.count_nonzero(s == true[:, None], axis=1) - 1
    kk = 1 if k is None else k
    return (above < kk).astype(np.float64), (above + tied < kk).astype(np.float64)


class _Bounds:
    """The bounds of one evaluation's measures, each shared part computed once."""

    def __init__(self, cases: Any, cs: Any):
        self.y = np.asarray(cases.y, dtype=np.intp)
        self.s = np.asarray(cases.s, dtype=np.float64)
        self.w = cases.w
        self.cs, self.k, self.n = cs, cs.k, cs.n_class
        self.u, self.t = cs.pairs(), tie_matrix(cs)
        self.weights = np.ones(len(self.y)) if self.w is None else np.asarray(self.w, dtype=np.float64)
        self.memo: dict[Any, Any] = {}

    def ap_per_class(self) -> tuple[np.ndarray, np.ndarray]:
        # each class's AP bounds, exact with unequal weights inside a tie too (ap_bounds)
        if "ap" not in self.memo:
            lo, hi = np.full(self.k, math.nan), np.full(self.k, math.nan)
            for j in range(self.k):
                if self.n[j] > 0:
                    lo[j], hi[j] = ap_bounds(self.y == j, self.s[:, j], self.w)
            self.memo["ap"] = (lo, hi)
        return self.memo["ap"]

    def pooled(self, name: str) -> tuple[float, float]:
        """The binary measure's bounds on every (case, class) cell pooled (micro)."""
        if name not in self.memo:
            k = self.k
            onehot = (self.y[:, None] == np.arange(k)[None, :]).astype(np.float64).reshape(-1)
            pw = None if self.w is None else np.repeat(np.asarray(self.w, dtype=np.float64), k)
            if name == "AP":  # exact with unequal weights inside a tie too (ap_bounds)
                self.memo[name] = ap_bounds(onehot, self.s.reshape(-1), pw)
            else:
                self.memo[name] = binary_bounds(onehot, self.s.reshape(-1), pw, name)
        return self.memo[name]

    def rows(self, kk: int | None) -> tuple[np.ndarray, np.ndarray]:
        if kk not in self.memo:
            self.memo[kk] = row_outcomes(self.y, self.s, kk)
        return self.memo[kk]

    def ranked(self, name: str, average: str) -> tuple[float, float, Any, Any]:
        n, u, t = self.n, self.u, self.t
        if name == "ROC_OVO":
            return _ovo(u - t / 2, n, average), _ovo(u + t / 2, n, average), None, None
        if name == "ROC_OVR":
            lo_c, hi_c = _ovr(u - t / 2, n), _ovr(u + t / 2, n)
        else:
            lo_c, hi_c = self.ap_per_class()
        if average == "micro":
            return (*self.pooled("ROC" if name == "ROC_OVR" else "AP"), lo_c, hi_c)
        return mean_over(lo_c, n, average), mean_over(hi_c, n, average), lo_c, hi_c

    def counted(self, name: str, kw: dict) -> tuple[float, float, Any, Any]:
        """The measures of the rows' own counts: every tied row at its best, or at its worst."""
        best, worst = self.rows(int(kw["k"]) if name == "TOPK_ACC" else None)
        n, weights = self.n, self.weights
        lo_c: np.ndarray | None = None
        hi_c: np.ndarray | None = None
        if name in ("REC_MC", "BACC"):
            with np.errstate(invalid="ignore", divide="ignore"):
                lo_c = np.where(n > 0, np.bincount(self.y, weights * worst, minlength=self.k) / n, np.nan)
                hi_c = np.where(n > 0, np.bincount(self.y, weights * best, minlength=self.k) / n, np.nan)
            if name == "BACC" or kw.get("average", "macro") == "macro":
                return mean_over(lo_c, n, "macro"), mean_over(hi_c, n, "macro"), lo_c, hi_c
        # accuracy, top-k; micro and weighted recall are the accuracy (the summed counts over the support)
        total = float(weights.sum())
        if total <= 0:
            return math.nan, math.nan, lo_c, hi_c
        return float((weights * worst).sum() / total), float((weights * best).sum() / total), lo_c, hi_c


def class_tie_bounds(
    cases: Any, cs: Any, specs: list, results: dict, suffix: str = ""
) -> tuple[float, float]:
    """Set every multiclass result's ``tie_min`` and ``tie_max`` (and ``tie_min_per_class``,
    ``tie_max_per_class`` where the measure has per-class values; ``tie_note`` where no exact bound
    is computed, ``tied_pairs`` and ``pairs`` on the ranking measures); return (tied, pairs) of the
    pairs the ranking measures compare.  ``cases``: the checked cases (codes, (n, K) scores, weights
    or None); ``cs``: their ClassSummary.
    """
    b = _Bounds(cases, cs)
    n = b.n
    tied = float(b.t.sum())
    pairs = float((n * (n.sum() - n)).sum())
    for sp in specs:
        r = results[sp.label + suffix]
        name, kw = sp.measure.name, sp.kwargs
        average = kw.get("average", "macro")
        lo_c = hi_c = None
        if sp.measure.tie_bounds == "free":
            lo = hi = float(r.value)
        elif name in RANKED:
            lo, hi, lo_c, hi_c = b.ranked(name, average)
            tp, pp = _pooled_pairs(cs) if average == "micro" else (tied, pairs)
            r.tied_pairs, r.pairs = (tp / pp if pp > 0 else math.nan), pp
        elif name in ROWS:
            lo, hi, lo_c, hi_c = b.counted(name, kw)
        else:
            lo = hi = math.nan
            r.tie_note = sp.measure.tie_bounds_text
        if math.isnan(float(r.value)):
            lo = hi = math.nan  # no value, no range
        r.tie_min, r.tie_max = lo, hi
        if lo_c is not None and hi_c is not None and r.per_class is not None:
            r.tie_min_per_class, r.tie_max_per_class = lo_c, hi_c
    return tied, pairs


def _pooled_pairs(cs: Any) -> tuple[float, float]:
    """(tied, pairs) of the pooled (case, class) cells: a positive cell and a negative one."""
    k = cs.k
    pos = np.zeros(len(cs.scores), dtype=bool)
    for j in range(k):
        pos[int(cs.offsets[j * k + j]) : int(cs.offsets[j * k + j + 1])] = True
    _, inv = np.unique(cs.scores, return_inverse=True)
    inv = inv.reshape(-1)
    wp = np.bincount(inv, weights=np.where(pos, cs.weights, 0.0))
    wn = np.bincount(inv, weights=np.where(pos, 0.0, cs.weights))
    return float((wp * wn).sum()), float(wp.sum() * wn.sum())


class _GroupBounds:
    """The bounds of every group of one evaluation at once (:class:`_Bounds` over all the groups),
    each shared part computed once; each group's sums made as its own summary makes them
    (:mod:`perfeval.engine.group_bounds`).
    """

    def __init__(self, cases: Any):
        from perfeval.summaries.ranking import group_codes

        self.y = np.asarray(cases.y, dtype=np.intp)
        self.s = np.asarray(cases.s, dtype=np.float64)
        self.w = None if cases.w is None else np.asarray(cases.w, dtype=np.float64)
        keys, self.codes = group_codes(cases.g)
        self.q, self.k = len(keys), self.s.shape[1]
        self.weights = np.ones(len(self.y)) if self.w is None else self.w
        self.memo: dict[Any, Any] = {}

    def _memo(self, key: Any, make: Any) -> Any:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def support(self) -> Any:
        """Each group's ``n_class`` (q, k)."""
        from perfeval.engine.group_bounds import class_support

        return self._memo(
            "n", lambda: class_support(self.y, self.s[:, 0], self.w, self.codes, self.q, self.k)
        )

    def pairs_ties(self) -> Any:
        """Each group's ``U`` and ``T`` (q, k, k)."""
        from perfeval.engine.group_bounds import class_pairs

        return self._memo("ut", lambda: class_pairs(self.y, self.s, self.w, self.codes, self.q, self.k))

    def tied(self) -> tuple[float, float]:
        """(tied, pairs) of the (class j, another class) pairs of each column j, in a group."""
        from perfeval.engine.group_bounds import tied_pairs

        def make() -> tuple[float, float]:
            tied = pairs = 0.0
            for j in range(self.k):
                a, b = tied_pairs(self.y == j, self.s[:, j], self.w, self.codes, self.q)
                tied, pairs = tied + a, pairs + b
            return tied, pairs

        return self._memo("tied", make)

    def ap_per_class(self) -> tuple[Any, Any]:
        """Each group's AP bounds of each class (q, k): the AP of its two extreme orders."""
        from perfeval.engine.group_bounds import ap_groups

        def make() -> tuple[Any, Any]:
            y, s, w, codes, q = self.y, self.s, self.w, self.codes, self.q
            ends = []
            for best in (False, True):
                per = [
                    ap_groups(y == j, ap_extremes(y == j, s[:, j], w, best), w, codes, q)
                    for j in range(self.k)
                ]
                ends.append(np.where(self.support() > 0, np.column_stack(per), math.nan))
            return ends[0], ends[1]

        return self._memo("ap", make)

    def pooled(self, name: str) -> tuple[Any, Any, tuple[float, float]]:
        """The binary measure's bounds of every (case, class) cell of a group pooled (micro), and
        their (tied, pairs).
        """
        from perfeval.engine.group_bounds import ap_groups, roc_bounds, tied_pairs

        def make() -> tuple[Any, Any, tuple[float, float]]:
            k, q, w = self.k, self.q, self.w
            onehot = (self.y[:, None] == np.arange(k)[None, :]).reshape(-1)
            flat, pc = self.s.reshape(-1), np.repeat(self.codes, k)
            pw = None if w is None else np.repeat(w, k)
            if name == "AP":
                lo, hi = (
                    ap_groups(onehot, ap_extremes(onehot, flat, pw, b), pw, pc, q) for b in (False, True)
                )
            else:
                lo, hi = roc_bounds(onehot, flat, pw, pc, q)
            return lo, hi, tied_pairs(onehot, flat, pw, pc, q)

        return self._memo(name, make)

    def ranked(self, name: str, average: str) -> tuple[Any, Any, tuple[float, float]]:
        """(min, max) of each group, and the (tied, pairs) of the pairs the measure compares."""
        from perfeval.engine.classes import group_means

        if average == "micro":
            return self.pooled("ROC" if name == "ROC_OVR" else "AP")
        n = self.support()
        if name == "ROC_OVO":  # every tied pair lost, or won, in every group at once
            u, t = self.pairs_ties()
            lo = group_means(*_ovo_pairs(u - t / 2, n), average)
            return lo, group_means(*_ovo_pairs(u + t / 2, n), average), self.tied()
        if name == "AP_OVR":
            lo_c, hi_c = self.ap_per_class()
        else:
            u, t = self.pairs_ties()
            lo_c, hi_c = _ovr(u - t / 2, n), _ovr(u + t / 2, n)
        return group_means(lo_c, n, average), group_means(hi_c, n, average), self.tied()

    def counted(self, name: str, kw: dict) -> tuple[Any, Any]:
        """The measures of the rows' own counts: every tied row at its best, or at its worst, each
        group's rows summed as the group's own.
        """
        from perfeval.engine.classes import group_means
        from perfeval.engine.group_bounds import segment_sums

        y, codes, q, k, weights = self.y, self.codes, self.q, self.k, self.weights
        ends = row_outcomes(y, self.s, int(kw["k"]) if name == "TOPK_ACC" else None)[::-1]  # worst, best
        out = []
        with np.errstate(invalid="ignore", divide="ignore"):
            if name == "BACC" or (name == "REC_MC" and kw.get("average", "macro") == "macro"):
                n = self.support()
                cells = codes * k + y  # each class of each group: its rows' counts in row order
                for e in ends:
                    per = np.where(
                        n > 0, np.bincount(cells, weights * e, minlength=q * k).reshape(q, k) / n, np.nan
                    )
                    out.append(group_means(per, n, "macro"))
            else:  # accuracy, top-k; micro and weighted recall are the accuracy
                total = segment_sums(weights, codes, q)
                for e in ends:
                    out.append(np.where(total > 0, segment_sums(weights * e, codes, q) / total, np.nan))
        return out[0], out[1]


def grouped_class_bounds(report: Any, cases: Any, specs: list) -> tuple[float, float]:
    """Every grouped multiclass result's bounds per group (``tie_min_per_group``,
    ``tie_max_per_group``: each group's, as :func:`class_tie_bounds` gives them for the group's
    cases alone, bit for bit; NaN where the group's value is NaN) and its headline bounds (the same
    mean of the groups' bounds as the value's of the groups' values); return (tied, pairs) summed
    over the groups.  ``report``: of :func:`perfeval.engine.classes.finish_classes` with groups.

    The bound math is this module's, over every group at once (no loop over the groups): the sums it
    reads are made for every group as the group's summary makes them
    (:mod:`perfeval.engine.group_bounds`: ``U``, ``T`` and ``n_class`` a group; each class's AP of
    its two extreme orders; the pooled ROC's bounds), and averaged over the classes as the values are
    (:func:`perfeval.engine.classes.group_means`).
    """
    from perfeval.engine.group_bounds import set_bounds

    b = _GroupBounds(cases)
    for sp in specs:
        r = report.results[sp.label]
        name, kw = sp.measure.name, sp.kwargs
        if sp.measure.tie_bounds == "free":
            lo = hi = r.per_group
        elif name in RANKED:
            lo, hi, (tp, pp) = b.ranked(name, kw.get("average", "macro"))
            r.tied_pairs, r.pairs = (tp / pp if pp > 0 else math.nan), pp
        elif name in ROWS:
            lo, hi = b.counted(name, kw)
        else:
            lo = hi = math.nan
            r.tie_note = sp.measure.tie_bounds_text
        set_bounds(r, sp, lo, hi, report.group_sizes)
    return b.tied()


def with_tie_bounds(report: Any, cases: Any, specs: list) -> Any:
    """``report`` (of :func:`perfeval.engine.classes.finish_classes`) with every measure's tie bounds
    (over all the cases, or per group and their mean: :func:`grouped_class_bounds`) and the share of
    tied pairs (``report.tied_pairs``, ``report.pairs``; in a group, when grouped).
    """
    if report.groups is not None:
        tied, pairs = grouped_class_bounds(report, cases, specs)
    else:
        tied, pairs = class_tie_bounds(cases, report.summary, specs, report.results)
    report.tied_pairs, report.pairs = (tied / pairs if pairs > 0 else math.nan), pairs
    return report
