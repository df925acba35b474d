"""How sure is the number: bootstrap confidence intervals for any measure, and paired comparisons.

The bootstrap here is the *Poisson bootstrap*: a replicate gives every case a weight drawn from
Poisson(1) instead of copying rows (Hanley & MacGibbon 2006; Chamandy et al. 2012).  It is
exchangeable with the multinomial bootstrap for all practical purposes, and it is what makes the
work small:

* Cases with the same score and class are interchangeable, so a cell of c cases gets weight
  Poisson(c) at once: a replicate of the exact summary costs O(distinct scores), not O(rows), and no
  row is ever copied.  ROC area replicates are drawn and finished in one compiled pass, several
  replicates side by side, on all cores.
* With case weights, or for a paired comparison (two scores of the same cases must get the *same*
  case weights), each case gets its own Poisson(1) draw, in case order.
* Per-group measures (GAUC, NDCG, PERF's block means) resample whole groups: the per-group values
  are computed once, and a replicate is a Poisson-weighted mean of them.

Every replicate r draws from its own random stream, seeded from ``(seed, r)``: results are
reproducible and do not depend on the number of threads or how the replicates are split.

Intervals: ``"percentile"`` and ``"bca"`` (bias-corrected and accelerated, Efron 1987; the default).
The acceleration comes from the jackknife: exact leave-one-out for the ROC area (it has a closed
form per distinct score) and for group resampling (leave one group out); for the other measures a
delete-a-group jackknife over 100 groups of cases.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from statistics import NormalDist
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["METHODS", "Comparison", "Interval", "ci", "compare"]

METHODS = ("bca", "percentile", "delong")
_JACK_GROUPS = 100
_CHUNK_CELLS = 1 << 23  # replicate counts held at once (x 16 bytes): bounded memory for any data


@dataclass(frozen=True)
class Interval:
    """A measure's value with a confidence interval.

    Attributes
    ----------
    label : str
    estimate : float
        The measure on the data.
    low, high : float
        The interval; NaN when the measure is undefined in too many replicates.
    level : float
    method : {"bca", "percentile", "delong"}
    n_boot : int
        Replicates (0 for DeLong).
    se : float
        Standard deviation of the replicates (DeLong: the standard error).
    resampled : {"cases", "groups"}
    """

    label: str
    estimate: float
    low: float
    high: float
    level: float
    method: str
    n_boot: int
    se: float
    resampled: str = "cases"

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class Comparison:
    """Two models' values of a measure on the same cases, the difference a - b, its interval and a
    two-sided p-value for "no difference"."""

    label: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    p_value: float
    level: float
    method: str
    n_boot: int
    se: float
    resampled: str = "cases"

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def _as_dict(result) -> dict[str, Any]:
    """A result's fields, NaN as None (JSON has no NaN)."""
    from perfeval.report import _num

    return {k: _num(v) if isinstance(v, float) else v for k, v in result.__dict__.items()}


# -- interval arithmetic ---------------------------------------------------------------------------

def _level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(f"the confidence level must lie strictly between 0 and 1, got {level}")
    return level


def _percentile(reps: np.ndarray, level: float) -> tuple[float, float]:
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [a, 1.0 - a])
    return float(lo), float(hi)


def _acceleration(jack: np.ndarray, weight: np.ndarray | None) -> float:
    w = np.ones_like(jack) if weight is None else weight
    ok = np.isfinite(jack) & (w > 0)
    jack, w = jack[ok], w[ok]
    if len(jack) < 2:
        return 0.0
    d = np.average(jack, weights=w) - jack
    den = float(np.sum(w * d * d)) ** 1.5
    return float(np.sum(w * d ** 3)) / (6.0 * den) if den > 0 else 0.0


def _bca(estimate: float, reps: np.ndarray, level: float, accel: float) -> tuple[float, float]:
    nd = NormalDist()
    below = (np.count_nonzero(reps < estimate) + 0.5 * np.count_nonzero(reps == estimate)) / len(reps)
    if below <= 0.0 or below >= 1.0:  # every replicate on one side: no bias correction is possible
        return _percentile(reps, level)
    z0 = nd.inv_cdf(below)
    out = []
    for q in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        zq = nd.inv_cdf(q)
        adj = nd.cdf(z0 + (z0 + zq) / (1.0 - accel * (z0 + zq)))
        out.append(float(np.quantile(reps, min(max(adj, 0.0), 1.0))))
    return out[0], out[1]


def _interval(estimate: float, reps: np.ndarray, level: float, method: str, accel) -> tuple[float, float, float]:
    """(low, high, sd) from replicates; NaN when the estimate is not a finite number (e.g. an infinite
    cross-entropy) or more than 5% of the replicates are undefined."""
    ok = reps[np.isfinite(reps)]
    if len(ok) < 0.95 * len(reps) or len(ok) < 2 or not math.isfinite(estimate):
        return math.nan, math.nan, math.nan
    sd = float(ok.std(ddof=1))
    if method == "percentile":
        lo, hi = _percentile(ok, level)
    else:
        lo, hi = _bca(estimate, ok, level, accel() if callable(accel) else accel)
    return lo, hi, sd


def _threads(threads: int | None) -> int:
    return max(1, threads if threads else (os.cpu_count() or 1))


# -- the data ----------------------------------------------------------------------------------------

class _Cases:
    """Validated arrays: targets (0/1 for binary measures), scores, optional weights and groups."""

    def __init__(self, y_true: Any, y_score: Any, weights: Any, groups: Any):
        from perfeval.evaluation import to_numpy
        from perfeval.summaries.histogram import _as_1d

        self.y = to_numpy(y_true, "y_true")
        self.s = _as_1d("y_score", to_numpy(y_score, "y_score"))
        if len(self.y) != len(self.s):
            raise InvalidDataError(f"`y_true` and `y_score` must have the same length, got {len(self.y)} and "
                                   f"{len(self.s)}")
        if np.isnan(self.s).any():
            raise InvalidDataError(f"`y_score` holds NaN at index {int(np.argmax(np.isnan(self.s)))}")
        self.w = None if weights is None else _as_1d("weights", to_numpy(weights, "weights"))
        if self.w is not None and (len(self.w) != len(self.s) or not np.isfinite(self.w).all() or (self.w < 0).any()):
            raise InvalidDataError(f"`weights` must be {len(self.s)} finite, non-negative numbers")
        self.groups = None if groups is None else to_numpy(groups, "groups")
        if self.groups is not None and len(self.groups) != len(self.s):
            raise InvalidDataError(f"`groups` must have the length of `y_score` ({len(self.s)}), got {len(self.groups)}")
        if self.w is not None and not self.w.all():
            # a case of weight 0 is no case at all (as in evaluate): the estimate, the replicates and
            # the jackknife all see the same cases
            keep = self.w > 0
            self.y, self.s, self.w = self.y[keep], self.s[keep], self.w[keep]
            self.groups = None if self.groups is None else self.groups[keep]

    @cached_property
    def hist(self):
        """The exact summary of the cases."""
        from perfeval.summaries import ScoreHistogram

        return ScoreHistogram.from_arrays(self.y, self.s, self.w)

    @cached_property
    def cls(self) -> np.ndarray:
        """The positive cases (an error unless every target is 0 or 1)."""
        pos = self.y == 1
        if not (pos | (self.y == 0)).all():
            raise InvalidDataError("`y_true` must hold only 0 and 1 for a binary measure")
        return pos

    @cached_property
    def sorted(self) -> _Sorted:
        return _Sorted(self.s)


def _specs(measures: Iterable[str] | str, threshold: float):
    from perfeval.evaluation import _resolve

    return _resolve([measures] if isinstance(measures, str) and "," not in measures else measures, threshold)


def _is_roc(spec) -> bool:
    return spec.measure.name == "ROC"


# -- replicates of one score column ------------------------------------------------------------------

def _hist_replicates(specs: list, h, seed: int, n_boot: int, threads: int) -> list[np.ndarray]:
    """Replicates of binary measures from Poisson(count) draws per cell of the exact summary; every
    measure sees the same replicates."""
    from concurrent.futures import ThreadPoolExecutor

    from perfeval import _x87
    from perfeval.summaries import ScoreHistogram

    outs = [np.empty(n_boot) for _ in specs]
    rest = []
    for i, spec in enumerate(specs):
        if _is_roc(spec):
            outs[i][:] = np.frombuffer(_x87.boot_hist_auc(h.pos, h.neg, seed, 0, n_boot, threads), np.float64)
        else:
            rest.append(i)
    if not rest:
        return outs

    def one(r: int) -> None:  # the draws run without the GIL: replicates overlap on the cores
        cells, p, q = (np.frombuffer(b, t) for b, t in
                       zip(_x87.boot_hist_compact(h.pos, h.neg, seed, r), (np.int64, np.float64, np.float64)))
        rep = ScoreHistogram(h.scores[cells], p, q)
        with np.errstate(all="ignore"):  # thread-local
            for i in rest:
                v = specs[i](rep)
                outs[i][r] = math.nan if v is None else float(v)

    import warnings

    with warnings.catch_warnings():  # set here, in this thread, around all the workers
        warnings.simplefilter("ignore")
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, range(n_boot)))
    return outs


def _value(spec, h) -> float:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            v = spec(h)
    return math.nan if v is None else float(v)


class _Sorted:
    """A score column sorted once: each case's distinct-score cell, for case-level replicates."""

    def __init__(self, s: np.ndarray):
        from perfeval.summaries.histogram import _runs

        self.order = np.argsort(s, kind="stable").astype(np.int64)
        vals, counts = _runs(s[self.order])
        self.scores = vals
        self.gend = np.cumsum(counts).astype(np.int64)
        self.cell = np.empty(len(s), np.intp)
        self.cell[self.order] = np.repeat(np.arange(len(counts)), counts.astype(np.intp))

    def histogram(self, pos_w: np.ndarray, neg_w: np.ndarray):
        from perfeval.summaries import ScoreHistogram

        k = len(self.scores)
        p = np.bincount(self.cell, weights=pos_w, minlength=k)
        q = np.bincount(self.cell, weights=neg_w, minlength=k)
        keep = (p + q) > 0
        return ScoreHistogram(self.scores[keep], p[keep], q[keep])


def _row_replicates(specs_and_sorted, cls: np.ndarray, w: np.ndarray | None, seed: int, n_boot: int,
                    threads: int) -> list[np.ndarray]:
    """Replicates with case-level Poisson(1) weights, the same weights for every (spec, sorted) pair."""
    from perfeval import _x87

    outs = [np.empty(n_boot) for _ in specs_and_sorted]
    rocs = [i for i, (sp, _) in enumerate(specs_and_sorted) if _is_roc(sp)]
    u8 = cls.astype(np.uint8)
    wbuf = None if w is None else np.ascontiguousarray(w, np.float64)
    # ROC areas: in the compiled pass, two columns at a time on the same draws
    for k in range(0, len(rocs), 2):
        pair = rocs[k:k + 2]
        so = [specs_and_sorted[i][1] for i in pair]
        extra = (so[1].order, so[1].gend) if len(so) == 2 else ()
        res = _x87.boot_rows_auc(so[0].order, so[0].gend, u8, wbuf, seed, 0, n_boot, threads, *extra)
        res = res if isinstance(res, tuple) else (res,)
        for i, b in zip(pair, res):
            outs[i][:] = np.frombuffer(b, np.float64)
    others = [i for i in range(len(specs_and_sorted)) if i not in rocs]
    if others:
        n = len(cls)
        step = max(1, _CHUNK_CELLS // max(1, n))
        for r0 in range(0, n_boot, step):
            r1 = min(n_boot, r0 + step)
            P = np.frombuffer(_x87.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)
            for r in range(r1 - r0):
                cw = P[r] if w is None else P[r] * w
                pw = cw * cls
                nw = cw - pw
                for i in others:
                    sp, so = specs_and_sorted[i]
                    outs[i][r0 + r] = _value(sp, so.histogram(pw, nw))
    return outs


# -- jackknife (the BCa acceleration) -----------------------------------------------------------------

def _jack_roc_hist(h) -> tuple[np.ndarray, np.ndarray]:
    """Exact leave-one-out ROC areas, one per (cell, class), with multiplicities: leaving out a case
    takes its structural component (DeLong's V10 or V01) out of the area."""
    from perfeval.delong import _components

    v10, v01, m, n = _components(h.pos, h.neg)
    auc = float(h.pos @ v10) / m
    with np.errstate(all="ignore"):
        jp = (auc * m - v10) / (m - 1.0)
        jn = (auc * n - v01) / (n - 1.0)
    return np.r_[jp, jn], np.r_[h.pos, h.neg]


def _jack_roc_rows(cases: _Cases) -> np.ndarray:
    """Exact leave-one-out ROC areas, one per case in case order (weighted cases: the whole case)."""
    from perfeval.delong import _case_components

    auc, comp, m, n = _case_components(cases.cls, cases.s, cases.w)
    w = 1.0 if cases.w is None else cases.w
    with np.errstate(all="ignore"):
        return np.where(cases.cls, (auc * m - w * comp) / (m - w), (auc * n - w * comp) / (n - w))


def _jack_groups(spec, cases: _Cases, threads: int = 0) -> np.ndarray:
    """Delete-a-group jackknife over _JACK_GROUPS groups of cases (case i in group i mod G)."""
    from concurrent.futures import ThreadPoolExecutor

    from perfeval.summaries import ScoreHistogram

    cls, sorted_ = cases.cls, cases.sorted
    G = min(_JACK_GROUPS, len(cls))
    w = np.ones(len(cls)) if cases.w is None else cases.w
    wp, wn = w * cls, w * ~cls
    full_p = np.bincount(sorted_.cell, weights=wp, minlength=len(sorted_.scores))
    full_n = np.bincount(sorted_.cell, weights=wn, minlength=len(sorted_.scores))
    out = np.empty(G)

    def one(g: int) -> None:
        cells = sorted_.cell[g::G]
        p, q = full_p.copy(), full_n.copy()
        np.subtract.at(p, cells, wp[g::G])
        np.subtract.at(q, cells, wn[g::G])
        emptied = np.unique(cells[(p[cells] <= 0) & (q[cells] <= 0)])  # only the group's cells can empty
        sc = sorted_.scores
        if emptied.size:
            sc, p, q = np.delete(sc, emptied), np.delete(p, emptied), np.delete(q, emptied)
        with np.errstate(all="ignore"):
            v = spec(ScoreHistogram(sc, np.maximum(p, 0.0), np.maximum(q, 0.0)))
        out[g] = math.nan if v is None else float(v)

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ThreadPoolExecutor(_threads(threads)) as pool:
            list(pool.map(one, range(G)))
    return out


# -- group resampling ----------------------------------------------------------------------------------

def _group_parts(spec, cases: _Cases):
    """(per-group values, aggregation weights) of a measure, groups in a fixed order."""
    import warnings

    from perfeval.evaluation import _group_codes, evaluate

    keys, codes = _group_codes(cases.groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(cases.y, cases.s, measures=[spec], groups=cases.groups,
                     weights=cases.w if spec.measure.kind == "binary" else None)
    res = r.results[spec.label]
    vals = np.asarray(res.per_group, np.float64)
    sizes = np.bincount(codes, minlength=len(keys)).astype(np.float64)
    agg = sizes if spec.measure.aggregate == "weighted" else np.ones(len(keys))
    return float(res.value), vals, agg


def _group_weights(n_groups: int, seed: int, r0: int, r1: int) -> np.ndarray:
    from perfeval import _x87

    return np.frombuffer(_x87.poisson_rows(n_groups, seed, r0, r1), np.float64).reshape(r1 - r0, n_groups)


def _group_replicates(vals_list, agg, seed: int, n_boot: int) -> list[np.ndarray]:
    """Poisson(1) weight per group (the same for every model); a replicate is the weighted mean."""
    G = len(agg)
    outs = [np.empty(n_boot) for _ in vals_list]
    step = max(1, _CHUNK_CELLS // max(1, G))
    for r0 in range(0, n_boot, step):
        r1 = min(n_boot, r0 + step)
        P = _group_weights(G, seed, r0, r1) * agg
        for out, vals in zip(outs, vals_list):
            ok = ~np.isnan(vals)
            with np.errstate(all="ignore"):
                if np.isfinite(vals[ok]).all():
                    num = P[:, ok] @ vals[ok]
                else:  # an infinite group value counts only in replicates that drew its group
                    num = np.where(P[:, ok] > 0, P[:, ok] * vals[ok], 0.0).sum(axis=1)
                den = P[:, ok].sum(axis=1)
                out[r0:r1] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return outs


def _jack_group_values(vals: np.ndarray, agg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ok = ~np.isnan(vals)
    v, a = vals[ok], agg[ok]
    tot, num = a.sum(), (a * v).sum()
    with np.errstate(all="ignore"):
        return (num - a * v) / (tot - a), np.ones(len(v))


# -- public API ----------------------------------------------------------------------------------------

def _coded(y_true: Any, pos_label: Any) -> Any:
    """0/1 targets from labels when ``pos_label`` is given (the rule of :func:`perfeval.evaluate`)."""
    if pos_label is None:
        return y_true
    from perfeval.evaluation import _binary_targets, to_numpy

    return _binary_targets(to_numpy(y_true, "y_true"), "the interval", pos_label)


def ci(y_true: Any, y_score: Any, measures: Iterable[str] | str = "roc", *, method: str = "bca",
       level: float = 0.95, n_boot: int = 1000, seed: int = 0, groups: Any = None, weights: Any = None,
       threshold: float = 0.5, threads: int | None = None, pos_label: Any = None) -> dict[str, Interval]:
    """Confidence intervals of measures: bootstrap (BCa or percentile) for any measure, or DeLong's
    for the ROC area.

    Parameters
    ----------
    y_true, y_score : array-like
        Targets (0/1; graded relevance for ranking measures) and scores.
    measures : str or iterable of str
        Measure specs, as for :func:`perfeval.evaluate` (``"roc"``, ``["apr", "ndcg@10"]``).
    method : {"bca", "percentile", "delong"}
        ``"delong"`` is for the ROC area over all cases only.
    level : float, default 0.95
    n_boot : int, default 1000
        Bootstrap replicates.
    seed : int, default 0
        Replicate r draws from a stream seeded by (seed, r): the same seed gives the same interval.
    groups : array-like, optional
        Group of each case.  Per-group measures (GAUC, NDCG, ...) and any measure given groups are
        averaged over groups, and the bootstrap then resamples whole groups.
    weights : array-like, optional
        Frequency weights of the cases (binary measures).
    threshold : float, default 0.5
    threads : int, optional
        Threads of the compiled replicate loops (default: all cores).  Results do not depend on it.
    pos_label : optional
        The positive label of ``y_true`` (as in :func:`perfeval.evaluate`).

    Returns
    -------
    dict of label -> Interval

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(500) < 0.4).astype(int)
    >>> s = rng.normal(size=500) + y
    >>> r = ci(y, s, ["roc", "apr"], n_boot=200, seed=1)
    >>> r["ROC"].low < r["ROC"].estimate < r["ROC"].high
    True
    >>> ci(y, s, "roc", method="delong")["ROC"].method
    'delong'
    """
    if method not in METHODS:
        raise InvalidParameterError(f"unknown interval method {method!r}; choose one of {', '.join(METHODS)}")
    _level(level)
    if n_boot < 2 and method != "delong":
        raise InvalidParameterError(f"the bootstrap needs at least 2 replicates, got n_boot={n_boot}")
    cases = _Cases(_coded(y_true, pos_label), y_score, weights, groups)
    specs = _specs(measures, threshold)
    threads_n = _threads(threads)
    out: dict[str, Interval] = {}
    shared: dict[str, np.ndarray] = {}
    plain = [sp for sp in specs if method != "delong" and cases.groups is None and cases.w is None
             and sp.measure.kind == "binary"]
    if plain:  # every global measure of unweighted cases from the same replicate summaries
        cases.cls  # noqa: B018 (checks the targets first)
        for sp, reps in zip(plain, _hist_replicates(plain, cases.hist, seed, n_boot, threads_n)):
            shared[sp.label] = reps
    for spec in specs:
        by_group = cases.groups is not None or spec.measure.kind != "binary"
        if method == "delong":
            if not _is_roc(spec) or cases.groups is not None:
                raise InvalidParameterError(f"DeLong's interval is for the ROC area over all cases, not {spec.label}"
                                            + (" per group" if cases.groups is not None else "")
                                            + "; use method='bca' or 'percentile'")
            from perfeval.delong import delong_from_histogram

            d = delong_from_histogram(cases.hist, level)
            out[spec.label] = Interval(spec.label, d.auc, d.ci[0], d.ci[1], level, "delong", 0, d.se)
            continue
        if by_group:
            if cases.groups is None:
                raise InvalidParameterError(f"{spec.label} is computed per group: pass groups=")
            est, vals, agg = _group_parts(spec, cases)
            reps = _group_replicates([vals], agg, seed, n_boot)[0]
            lo, hi, sd = _interval(est, reps, level, method, lambda v=vals, a=agg: _acceleration(*_jack_group_values(v, a)))
            out[spec.label] = Interval(spec.label, est, lo, hi, level, method, n_boot, sd, "groups")
            continue
        est = _value(spec, cases.hist)
        if spec.label in shared:
            reps = shared[spec.label]
        else:
            reps = _row_replicates([(spec, cases.sorted)], cases.cls, cases.w, seed, n_boot, threads_n)[0]

        def accel(spec=spec):
            if _is_roc(spec) and cases.w is None:
                return _acceleration(*_jack_roc_hist(cases.hist))
            if _is_roc(spec):
                return _acceleration(_jack_roc_rows(cases), None)
            return _acceleration(_jack_groups(spec, cases), None)

        lo, hi, sd = _interval(est, reps, level, method, accel)
        out[spec.label] = Interval(spec.label, est, lo, hi, level, method, n_boot, sd)
    return out


def ci_from_summary(summary, measures: Iterable[str] | str = "roc", *, method: str = "percentile",
                    level: float = 0.95, n_boot: int = 1000, seed: int = 0, threshold: float = 0.5,
                    threads: int | None = None) -> dict[str, Interval]:
    """Confidence intervals of binary measures from an exact summary alone (a stream's or a Dask
    cluster's merged :class:`~perfeval.summaries.ScoreHistogram` of unweighted cases).

    The replicates are the same as :func:`ci`'s (Poisson draws per cell), so with the same seed the
    percentile interval is the same as ``ci(y, s)`` on the cases.  ``method="bca"`` needs a jackknife:
    exact from the summary for the ROC area; for other measures it needs the cases (use :func:`ci`).
    ``"delong"`` is for the ROC area.

    Examples
    --------
    >>> from perfeval.summaries import ScoreHistogram
    >>> h = ScoreHistogram.from_arrays([0, 1, 0, 1, 1, 0, 1, 0], [.1, .9, .3, .6, .2, .4, .8, .5])
    >>> ci_from_summary(h, "roc", n_boot=200) == ci([0, 1, 0, 1, 1, 0, 1, 0], [.1, .9, .3, .6, .2, .4, .8, .5],
    ...                                           "roc", method="percentile", n_boot=200)
    True
    """
    if method not in METHODS:
        raise InvalidParameterError(f"unknown interval method {method!r}; choose one of {', '.join(METHODS)}")
    _level(level)
    if n_boot < 2 and method != "delong":
        raise InvalidParameterError(f"the bootstrap needs at least 2 replicates, got n_boot={n_boot}")
    if not summary.is_counts():
        raise InvalidParameterError("a bootstrap from a summary needs unweighted cases (whole-number counts); with "
                                    "case weights, use perfeval.ci on the cases")
    specs = _specs(measures, threshold)
    for sp in specs:
        if sp.measure.kind != "binary":
            raise InvalidParameterError(f"{sp.label} is a per-group measure: a summary of all cases cannot give "
                                        "its interval")
        if method == "delong" and not _is_roc(sp):
            raise InvalidParameterError(f"DeLong's interval is for the ROC area, not {sp.label}")
        if method == "bca" and not _is_roc(sp):
            raise InvalidParameterError(f"a BCa interval of {sp.label} needs the cases for its jackknife; from a "
                                        "summary use method='percentile' (or perfeval.ci on the cases)")
    out: dict[str, Interval] = {}
    if method == "delong":
        from perfeval.delong import delong_from_histogram

        d = delong_from_histogram(summary, level)
        return {sp.label: Interval(sp.label, d.auc, d.ci[0], d.ci[1], level, "delong", 0, d.se) for sp in specs}
    reps_all = _hist_replicates(specs, summary, seed, n_boot, _threads(threads))
    for sp, reps in zip(specs, reps_all):
        est = _value(sp, summary)
        lo, hi, sd = _interval(est, reps, level, method, lambda: _acceleration(*_jack_roc_hist(summary)))
        out[sp.label] = Interval(sp.label, est, lo, hi, level, method, n_boot, sd)
    return out


def _p_value(diffs: np.ndarray) -> float:
    """Two-sided Monte Carlo p-value of "no difference": twice the share of replicate differences on
    the far side of zero (ties half), counted as (k + 1) / (R + 1) so that it is never 0."""
    d = diffs[~np.isnan(diffs)]
    if len(d) == 0:
        return math.nan
    zero = 0.5 * np.count_nonzero(d == 0)
    k = min(np.count_nonzero(d < 0) + zero, np.count_nonzero(d > 0) + zero)
    return float(min(1.0, 2.0 * (k + 1.0) / (len(d) + 1.0)))


def compare(y_true: Any, score_a: Any, score_b: Any, measures: Iterable[str] | str = "roc", *,
            method: str = "bca", level: float = 0.95, n_boot: int = 1000, seed: int = 0, groups: Any = None,
            weights: Any = None, threshold: float = 0.5, threads: int | None = None,
            pos_label: Any = None) -> dict[str, Comparison]:
    """Compare two models scored on the same cases: the difference a - b of each measure, its
    confidence interval and a two-sided p-value.

    ``method="delong"`` is DeLong's paired test (ROC area only).  Otherwise a paired bootstrap: each
    replicate gives both models the same case (or group) weights, so the difference's interval
    accounts for their correlation; the p-value is twice the share of replicate differences on the
    far side of zero, as (k + 1) / (R + 1), so never below 2 / (R + 1).  Parameters as for :func:`ci`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(400) < 0.5).astype(int)
    >>> a, b = rng.normal(size=400) + 1.2 * y, rng.normal(size=400) + 0.4 * y
    >>> c = compare(y, a, b, "roc", n_boot=300, seed=2)["ROC"]
    >>> c.difference > 0 and c.low > 0 and c.p_value < 0.01
    True
    """
    if method not in METHODS:
        raise InvalidParameterError(f"unknown comparison method {method!r}; choose one of {', '.join(METHODS)}")
    _level(level)
    y_true = _coded(y_true, pos_label)
    ca = _Cases(y_true, score_a, weights, groups)
    cb = _Cases(y_true, score_b, weights, groups)
    specs = _specs(measures, threshold)
    threads_n = _threads(threads)
    out: dict[str, Comparison] = {}
    by_cases = [sp for sp in specs if method != "delong" and ca.groups is None and sp.measure.kind == "binary"]
    paired: dict[str, list[np.ndarray]] = {}
    if by_cases:  # both models of every measure on the same case weights, drawn once
        reps = _row_replicates([(sp, c.sorted) for sp in by_cases for c in (ca, cb)], ca.cls, ca.w, seed, n_boot,
                               threads_n)
        paired = {sp.label: reps[2 * k:2 * k + 2] for k, sp in enumerate(by_cases)}
    for spec in specs:
        by_group = ca.groups is not None or spec.measure.kind != "binary"
        if method == "delong":
            if not _is_roc(spec) or ca.groups is not None:
                raise InvalidParameterError(f"DeLong's test is for the ROC area over all cases, not {spec.label}; "
                                            "use method='bca' or 'percentile'")
            from perfeval.delong import delong_test

            d = delong_test(ca.y, ca.s, cb.s, sample_weight=ca.w, level=level)
            out[spec.label] = Comparison(spec.label, d.auc_a, d.auc_b, d.difference, d.ci[0], d.ci[1], d.p_value,
                                         level, "delong", 0, d.se)
            continue
        if by_group:
            if ca.groups is None:
                raise InvalidParameterError(f"{spec.label} is computed per group: pass groups=")
            ea, va, agg = _group_parts(spec, ca)
            eb, vb, _ = _group_parts(spec, cb)
            ra, rb = _group_replicates([va, vb], agg, seed, n_boot)
            both = ~np.isnan(va) & ~np.isnan(vb)

            def accel(va=va, vb=vb, agg=agg, both=both):
                ja, _ = _jack_group_values(np.where(both, va, np.nan), agg)
                jb, _ = _jack_group_values(np.where(both, vb, np.nan), agg)
                return _acceleration(ja - jb, None)

            resampled = "groups"
        else:
            ea, eb = _value(spec, ca.hist), _value(spec, cb.hist)
            ra, rb = paired[spec.label]

            def accel(spec=spec):
                if _is_roc(spec):  # exact: leave each case out of both
                    return _acceleration(_jack_roc_rows(ca) - _jack_roc_rows(cb), None)
                return _acceleration(_jack_groups(spec, ca) - _jack_groups(spec, cb), None)

            resampled = "cases"
        with np.errstate(all="ignore"):
            diff = ea - eb
            reps = ra - rb
        lo, hi, sd = _interval(diff, reps, level, method, accel)
        out[spec.label] = Comparison(spec.label, ea, eb, diff, lo, hi, _p_value(reps), level, method, n_boot, sd,
                                     resampled)
    return out
