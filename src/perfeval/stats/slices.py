"""How sure: intervals of each slice's value and of each gap between slices, and the tests of the gaps.

:func:`slice_ci` (``perfeval.stats.slice_ci(report)``) gives them, as a :class:`SliceIntervals`, for
the slices of ``evaluate(..., by=[...])`` (:class:`perfeval.api.slices.Slices`).

**What the bootstrap resamples.**  Each replicate r gives each case i (the i-th row of weight > 0,
in the order given) the weight ``Poisson(1) x its weight``, drawn from a stream keyed by
``(seed, r, i)`` (the counter-based draws of ``csrc/resample.c``, those of :func:`perfeval.ci` with
``sample_weight=``); every slice's value, the overall value and every gap of the replicate are read
from that one reweighting.  With Poisson weights a case's draw is independent of every other case's,
so the slices are resampled independently of one another (what a bootstrap stratified by slice
wants), and the overall value of a replicate is that of the same draws (a gap to the overall value
is paired, as it must be: the slice is part of the whole).  A slice's size is random from replicate
to replicate (Poisson(n) cases for a slice of n), as it is from sample to sample when the slices are
a population's subgroups: that is the sampling this bootstrap copies; a multinomial bootstrap
stratified by slice would hold each slice's size fixed instead, and the whole's mix of slices with
it.  For the measures that normalise by the slice's cases (every rate, area and mean of the
registry) the two agree to first order; the coverage of the intervals is checked by simulation
(``tests/test_slices_ci_coverage.py``).  With queries (``groups=``: per-query measures), whole
queries are resampled instead (a Poisson(1) weight a query, keyed by its number among the sorted
query ids, :func:`perfeval.ci`'s group bootstrap), each slice's value the weighted mean of its
(slice, query) values.

The same draws, three ways: the measures with a replicate plan (:mod:`perfeval.stats.fastpaths`:
ROC, AP, APR, ACC, SELRATE, the losses, ...) are walked by the compiled kernel, every slice a column of
the cases it holds; the other binary measures (the operating points, ECE, the calibration fits) are
computed on each replicate's summary of each slice (the draws summed into its score cells, one count a
replicate); any other measure (K classes, K labels, a regression) is finished by the slices' engine
(:func:`perfeval.engine.slices.finish_slicing`) on each replicate's weights, slower.  The intervals
are percentile intervals (BCa's acceleration would need a jackknife a slice and a gap), NaN when
more than 5% of the replicates leave the value undefined (a small slice drawing no positive), as
:func:`perfeval.ci` says.

**DeLong** (ROC only, over all cases): each slice's interval is DeLong's on its cases; the gap
between two slices, disjoint sets of cases, has the sum of their variances; the gap of a slice to
the overall area has ``Var(A_k) + Var(A) - 2 Cov(A_k, A)``, the covariance from the structural
components of the slice's cases, both in the slice and in the whole (the Hajek projection of the two
U-statistics: ``Cov = sum over the slice's positives of w (V10_k - A_k)(V10 - A) / ((m_k - 1) m)``
plus the negatives' term), which is DeLong's variance when the slice is the whole.  A maximum or
minimum over slices (the gaps of ``difference()``, ``ratio()``, the worst slice) has no DeLong
interval: the bootstrap gives it.

**Tests.**  Each slice's gap to the overall value (and to a reference slice, and each pair of
slices with :meth:`SliceIntervals.pairwise`) gets a two-sided p-value for "no gap": the bootstrap's
``(k + 1) / (R + 1)`` count (:func:`perfeval.stats.intervals.p_value`) or DeLong's z test.  The
family corrected together is one slicing's slices for one measure and one kind of gap (Holm's
step-down, and Benjamini-Hochberg's false discovery rate: :func:`perfeval.stats.paired.correct`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base import progress as _progress
from perfeval.base.checks import Cases
from perfeval.engine.door import Targets
from perfeval.engine.report import json_number
from perfeval.engine.slices import SliceSource, Task, finish_slicing
from perfeval.exceptions import InvalidParameterError
from perfeval.stats.fastpaths import REP_WIDTH, fast_paths, finish_plans, plan_stats
from perfeval.stats.intervals import SQUARES_SAFE, Interval, check_level, interval, unscaled
from perfeval.stats.paired import correct_tested
from perfeval.stats.replicates import CHUNK_CELLS, MAX_COLUMNS, plan_of, planned, threads_of
from perfeval.summaries.ranking import group_codes

__all__ = ["SliceIntervals", "slice_ci"]

#: the methods of :func:`slice_ci`: the percentile bootstrap, and DeLong's (the ROC area)
METHODS = ("percentile", "delong")

#: the gaps of a slicing with an interval (:meth:`SliceIntervals.gaps`), in their order
GAPS = (
    "difference",
    "ratio",
    "difference_to_overall",
    "ratio_to_overall",
    "difference_to_reference",
    "ratio_to_reference",
    "group_min",
    "group_max",
    "worst",
)

#: how to leave the small slices out of the gaps and the tests, in Python (the command says its own)
REMEDY = "min_size= and skip_flagged=True"
#: why a slice below min_size has no test with skip_flagged=True
NOT_TESTED = "below min_size: not tested (skip_flagged=True)"

#: why an interval of width 0 says nothing (a slice of one class: AP 1 in every replicate)
SAME_IN_EVERY = (
    "every replicate gives this value (the slice's cases cannot vary it: one class only, or one "
    "score): an interval of width 0, which says nothing of how sure the value is"
)

#: the corrections given beside each p-value
CORRECTIONS = ("holm", "bh")

#: replicates one compiled call walks (the progress bar moves between calls)
_REPS_A_CALL = 256


# -- the replicates --------------------------------------------------------------------------------------
@dataclass
class Replicates:
    """Each measure's replicates: per slicing a (slices x n_boot) array, and the overall value's
    (n_boot,), NaN where a replicate leaves the value undefined.
    """

    by_slicing: dict[str, dict[str, np.ndarray]]
    overall: dict[str, np.ndarray]
    resampled: str


def _binary_classes(task: Task, cases: Cases, label: str) -> np.ndarray:
    """The cases' 0/1 classes for a binary measure (the coding evaluate() made)."""
    targets = cases.targets if cases.targets is not None else Targets(cases.y, task.pos_label)
    return np.asarray(targets.binary(label)) == 1


def _slice_columns(s: np.ndarray, order: np.ndarray, codes: np.ndarray, n_slices: int) -> list[tuple | None]:
    """Each slice's sorted score column for the compiled walk, (order, tie-group ends, tie-group
    scores) of the cases it holds (their numbers among all the cases: the draws are the whole's); None
    for a slice without a case.
    """
    c = codes[order]
    perm = np.argsort(c, kind="stable")  # by slice, each in score order
    ordered = np.ascontiguousarray(order[perm], dtype=np.int64)
    sc = s[ordered]
    counts = np.bincount(c, minlength=n_slices)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    brk = np.ones(len(sc), dtype=bool)
    brk[1:] = sc[1:] != sc[:-1]
    brk[bounds[:-1][counts > 0]] = True  # each slice starts a tie group
    starts = np.flatnonzero(brk)
    out: list[tuple | None] = []
    for k in range(n_slices):
        a, b = int(bounds[k]), int(bounds[k + 1])
        if a == b:
            out.append(None)
            continue
        lo, hi = np.searchsorted(starts, [a, b])
        st = starts[lo:hi]
        gend = np.append(st[1:], b).astype(np.int64) - a
        out.append((ordered[a:b], np.ascontiguousarray(gend), np.ascontiguousarray(sc[st], np.float64)))
    return out


def _fast_replicates(
    task: Task,
    cases: Cases,
    codes: dict[str, np.ndarray],
    sizes: dict[str, int],
    labels: list[str],
    seed: int,
    n_boot: int,
    threads: int,
    meter: Any,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """The replicates of the measures with a plan: the overall column and every slice of every
    slicing walked by the compiled kernel on the same case draws, up to MAX_COLUMNS columns a call.
    """
    specs = [task.spec_of(m) for m in labels]
    cls = _binary_classes(task, cases, labels[0])
    u8 = cls.astype(np.uint8)
    wbuf = None if cases.w is None else np.ascontiguousarray(cases.w, np.float64)
    s = np.ascontiguousarray(cases.s, np.float64)
    order = np.argsort(s, kind="stable").astype(np.int64)
    whole = _slice_columns(s, order, np.zeros(len(s), dtype=np.int64), 1)[0]
    columns: list[tuple[str | None, int, tuple]] = []  # (slicing or None: the overall, slice, column)
    if whole is not None:
        columns.append((None, 0, whole))
    for name, c in codes.items():
        for k, col in enumerate(_slice_columns(s, order, c, sizes[name])):
            if col is not None:
                columns.append((name, k, col))
    plans = [plan_of(sp) for sp in specs]
    plan, where = plan_stats(plans)
    nk = len(plan) // 2
    by = {name: {m: np.full((sizes[name], n_boot), math.nan) for m in labels} for name in codes}
    overall = {m: np.full(n_boot, math.nan) for m in labels}
    for r0 in range(0, n_boot, _REPS_A_CALL):
        r1 = min(n_boot, r0 + _REPS_A_CALL)
        for c0 in range(0, len(columns), MAX_COLUMNS):
            group = columns[c0 : c0 + MAX_COLUMNS]
            got = _native.boot_rows_multi(
                u8, wbuf, plan, seed, r0, r1, threads, *(col for _, _, col in group)
            )
            bufs = got if isinstance(got, tuple) else (got,)
            for (of, k, _col), buf in zip(group, bufs, strict=True):
                st = np.frombuffer(buf, np.float64).reshape(r1 - r0, nk, REP_WIDTH)
                for m, vals in zip(labels, finish_plans(plans, where, st), strict=True):
                    if of is None:
                        overall[m][r0:r1] = vals
                    else:
                        by[of][m][k, r0:r1] = vals
        meter.update(r1 - r0)
    return by, overall


def _hist_replicates(
    task: Task,
    cases: Cases,
    codes: dict[str, np.ndarray],
    sizes: dict[str, int],
    labels: list[str],
    seed: int,
    n_boot: int,
    meter: Any,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """The replicates of the binary measures without a plan (ECE, TPR_AT_FPR, ...): each replicate's case
    weights (the same Poisson(1) draws, keyed by the case's number) summed into each slice's score
    cells in one count, and the measure computed on each slice's summary.
    """
    specs = [task.spec_of(m) for m in labels]
    cls = _binary_classes(task, cases, labels[0])
    s = np.ascontiguousarray(cases.s, np.float64)
    n = len(s)
    order = np.argsort(s, kind="stable").astype(np.int64)
    layouts: list[
        tuple[str | None, int, np.ndarray, list]
    ] = []  # (slicing, slices, cell of each case, bounds)
    for name, c in [(None, np.zeros(n, dtype=np.int64)), *codes.items()]:
        k = 1 if name is None else sizes[name]
        cols = _slice_columns(s, order, c, k)
        cell = np.empty(n, dtype=np.int64)
        bounds: list = []
        at = 0
        for col in cols:
            if col is None:
                bounds.append(None)
                continue
            idx, gend, gsc = col
            cell[idx] = at + np.repeat(np.arange(len(gend)), np.diff(np.r_[0, gend]))
            bounds.append((at, at + len(gend), gsc))
            at += len(gend)
        layouts.append((name, k, cell, bounds))
    by = {name: {m: np.full((sizes[name], n_boot), math.nan) for m in labels} for name in codes}
    overall = {m: np.full(n_boot, math.nan) for m in labels}
    step = max(1, CHUNK_CELLS // max(1, n))
    with warnings.catch_warnings(), np.errstate(all="ignore"):  # once, not a measure call each
        warnings.simplefilter("ignore")
        _hist_loop(specs, labels, cls, cases.w, n, seed, n_boot, step, layouts, by, overall, meter)
    return by, overall


def _hist_loop(
    specs: list,
    labels: list[str],
    cls: np.ndarray,
    weights: np.ndarray | None,
    n: int,
    seed: int,
    n_boot: int,
    step: int,
    layouts: list,
    by: dict[str, dict[str, np.ndarray]],
    overall: dict[str, np.ndarray],
    meter: Any,
) -> None:
    """:func:`_hist_replicates`' loop over the replicates (warnings off around it)."""
    from perfeval.summaries import ScoreHistogram

    for r0 in range(0, n_boot, step):
        r1 = min(n_boot, r0 + step)
        P = np.frombuffer(_native.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)
        for j in range(r1 - r0):
            w = P[j] if weights is None else P[j] * weights
            pw = np.where(cls, w, 0.0)
            nw = w - pw
            for name, _k, cell, bounds in layouts:
                total = bounds[-1][1] if bounds and bounds[-1] is not None else int(cell.max(initial=-1)) + 1
                p_all = np.bincount(cell, weights=pw, minlength=total)
                q_all = np.bincount(cell, weights=nw, minlength=total)
                for i, b in enumerate(bounds):
                    if b is None:
                        continue
                    a, e, gsc = b
                    p, q = p_all[a:e], q_all[a:e]
                    keep = (p + q) > 0
                    h = ScoreHistogram(gsc[keep], p[keep], q[keep])
                    for m, sp in zip(labels, specs, strict=True):
                        got = sp(h) if keep.any() else None
                        v = math.nan if got is None else float(got)
                        if name is None:
                            overall[m][r0 + j] = v
                        else:
                            by[name][m][i, r0 + j] = v
            meter.update(1)


def _generic_replicates(
    task: Task,
    cases: Cases,
    codes: dict[str, np.ndarray],
    sizes: dict[str, int],
    labels: list[str],
    seed: int,
    n_boot: int,
    meter: Any,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """The replicates of any measure: the slices' engine on each replicate's case weights (the same
    Poisson(1) draws as the compiled walk's, keyed by the case's number).
    """
    sub = replace(task, specs=tuple(task.spec_of(m) for m in labels))
    n = len(cases.s)
    by = {name: {m: np.full((sizes[name], n_boot), math.nan) for m in labels} for name in codes}
    overall = {m: np.full(n_boot, math.nan) for m in labels}
    zero = np.zeros(n, dtype=np.int64)
    step = max(1, CHUNK_CELLS // max(1, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r0 in range(0, n_boot, step):
            r1 = min(n_boot, r0 + step)
            P = np.frombuffer(_native.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)
            for j in range(r1 - r0):
                w = P[j] if cases.w is None else P[j] * cases.w
                with np.errstate(all="ignore"):
                    whole = finish_slicing(sub, cases, zero, 1, weights=w)
                    for m in labels:
                        overall[m][r0 + j] = whole.values[m][0]
                    for name, c in codes.items():
                        got = finish_slicing(sub, cases, c, sizes[name], weights=w)
                        for m in labels:
                            by[name][m][:, r0 + j] = got.values[m]
                meter.update(1)
    return by, overall


def _pair_values(task: Task, cases: Cases, grouping: np.ndarray, labels: list[str]) -> tuple[Any, dict]:
    """The per-group values (and their aggregation weights) of each measure over ``grouping``."""
    sub = Cases(cases.y, cases.s, grouping, cases.w, len(cases.s))
    sub.targets = cases.targets
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = task.finish(sub)
    present = np.asarray(report.groups, dtype=np.int64)
    sizes = np.asarray(report.group_sizes, dtype=np.float64)
    out = {}
    for m in labels:
        spec = task.spec_of(m)
        vals = np.asarray(report.results[m].per_group, dtype=np.float64)
        agg = sizes if spec.measure.aggregate == "weighted" else np.ones(len(vals))
        out[m] = (vals, agg)
    return present, out


def _weighted_means(P: np.ndarray, q: np.ndarray, vals: np.ndarray, agg: np.ndarray, seg: np.ndarray, k: int):
    """Per segment (0..k-1, ``seg`` ascending), each replicate's mean of the defined ``vals`` weighted
    by ``agg`` times the replicate's weight of their query (``P[:, q]``); NaN where no weight.
    """
    ok = ~np.isnan(vals)
    q, vals, agg, seg = q[ok], vals[ok], agg[ok], seg[ok]
    out = np.full((P.shape[0], k), math.nan)
    if not len(vals):
        return out
    W = P[:, q] * agg
    with np.errstate(all="ignore"):
        num_terms = np.where(W > 0, W * vals, 0.0)  # an infinite value counts where its query is drawn
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    which = seg[starts]
    num = np.add.reduceat(num_terms, starts, axis=1)
    den = np.add.reduceat(W, starts, axis=1)
    with np.errstate(all="ignore"):
        out[:, which] = np.where(den > 0, num / np.where(den > 0, den, 1.0), math.nan)
    return out


def _query_replicates(
    task: Task,
    cases: Cases,
    codes: dict[str, np.ndarray],
    sizes: dict[str, int],
    labels: list[str],
    seed: int,
    n_boot: int,
    meter: Any,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """Whole queries resampled: a Poisson(1) weight a query (keyed by its number among the sorted
    query ids), each slice's replicate the weighted mean of its (slice, query) values.
    """
    assert cases.g is not None
    qkeys, qcodes = group_codes(cases.g)
    Q = len(qkeys)
    overall_present, overall_vals = _pair_values(task, cases, qcodes, labels)
    plans: dict[str, tuple] = {}
    for name, c in codes.items():
        pair_keys, grouping = group_codes(c * Q + qcodes)
        pair_keys = np.asarray(pair_keys, dtype=np.int64)
        present, vals = _pair_values(task, cases, grouping, labels)
        plans[name] = (pair_keys[present] // Q, pair_keys[present] % Q, vals)
    by = {name: {m: np.full((sizes[name], n_boot), math.nan) for m in labels} for name in codes}
    overall = {m: np.full(n_boot, math.nan) for m in labels}
    widest = max([Q] + [len(p[0]) for p in plans.values()])
    step = max(1, CHUNK_CELLS // max(1, widest))
    for r0 in range(0, n_boot, step):
        r1 = min(n_boot, r0 + step)
        P = np.frombuffer(_native.poisson_rows(Q, seed, r0, r1), np.float64).reshape(r1 - r0, Q)
        for m in labels:
            vals, agg = overall_vals[m]
            seg = np.zeros(len(vals), dtype=np.int64)
            overall[m][r0:r1] = _weighted_means(P, overall_present, vals, agg, seg, 1)[:, 0]
            for name, (pslice, pquery, pv) in plans.items():
                vals, agg = pv[m]
                by[name][m][:, r0:r1] = _weighted_means(P, pquery, vals, agg, pslice, sizes[name]).T
        meter.update(r1 - r0)
    return by, overall


def replicates(
    source: SliceSource,
    labels: list[str],
    names: list[str],
    sizes: dict[str, int],
    *,
    seed: int,
    n_boot: int,
    threads: int | None = None,
    progress: bool = False,
    generic: bool = False,
) -> Replicates:
    """Every measure's replicates in every slicing named and overall, from one set of draws.

    Three engines, one set of draws: the compiled walk (the measures with a plan), each replicate's
    summary of each slice (the other binary measures), the slices' engine on each replicate's weights
    (any other measure).  ``generic``: every measure by the slices' engine (the tests compare them).
    """
    task, cases = source.task, source.cases
    codes = source.codes(names)
    fast: list[str] = []
    hist: list[str] = []
    if cases.g is None and task.kind == "binary" and not task.partitions and not generic and len(cases.s):
        specs = [task.spec_of(m) for m in labels]
        binary = [m for m, sp in zip(labels, specs, strict=True) if sp.measure.kind == "binary"]
        fast = [labels[i] for i in planned(specs, cases.w) if labels[i] in binary]
        hist = [m for m in binary if m not in fast]  # no plan: each replicate's summaries
    rest = [m for m in labels if m not in fast and m not in hist]
    passes = 1 if cases.g is not None else bool(fast) + bool(hist) + bool(rest)
    meter = _progress.bar(progress, n_boot * max(1, passes), "bootstrap slices", "replicates")
    with meter:
        if cases.g is not None:
            qby, qoverall = _query_replicates(task, cases, codes, sizes, labels, seed, n_boot, meter)
            return Replicates(qby, qoverall, "groups")
        by: dict[str, dict[str, np.ndarray]] = {name: {} for name in codes}
        overall: dict[str, np.ndarray] = {}
        for which, run in (
            (
                fast,
                lambda ms: _fast_replicates(
                    task, cases, codes, sizes, ms, seed, n_boot, threads_of(threads), meter
                ),
            ),
            (hist, lambda ms: _hist_replicates(task, cases, codes, sizes, ms, seed, n_boot, meter)),
            (rest, lambda ms: _generic_replicates(task, cases, codes, sizes, ms, seed, n_boot, meter)),
        ):
            if which:
                b, o = run(which)
                overall.update(o)
                for name in codes:
                    by[name].update(b[name])
        return Replicates(by, overall, "cases")


# -- the result -----------------------------------------------------------------------------------------
@dataclass
class Gap:
    """One slice's gap (its value minus another: the overall value or a reference slice's), with its
    interval and a two-sided p-value for "no gap" (NaN: no test, ``why`` says why), and the p-value
    adjusted over the slicing's slices (Holm's, Benjamini-Hochberg's).
    """

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    p: np.ndarray
    p_holm: np.ndarray
    p_bh: np.ndarray
    at_floor: np.ndarray
    why: dict[int, str]


@dataclass
class MeasureIntervals:
    """One measure in one slicing: each slice's interval, its gaps (to the overall value, to the
    reference slice), and the slicing's gaps (:data:`GAPS`: estimate, low, high, the slice it is of,
    why not).
    """

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    why: dict[int, str]
    to_overall: Gap
    to_reference: Gap | None
    gaps: dict[str, dict[str, Any]]
    reps: np.ndarray | None  # (slices x n_boot), the bootstrap's
    variance: np.ndarray | None  # DeLong's


@dataclass
class SlicingIntervals:
    name: str
    keys: list
    flagged: np.ndarray
    included: dict[str, np.ndarray]  # per measure: the slices the gaps read
    measures: dict[str, MeasureIntervals]


class SliceIntervals:
    """Intervals of each slice's value and of each gap, and the tests of the gaps: what
    :func:`slice_ci` gives (module :mod:`perfeval.stats.slices` says how).

    Attributes
    ----------
    level, method, n_boot, seed
        The interval's level, ``"percentile"`` (the bootstrap) or ``"delong"``, the replicates (0 for
        DeLong's) and their seed (None for DeLong's).
    resampled : str
        ``"cases"`` (a Poisson(1) weight a case) or ``"groups"`` (whole queries, with ``groups=``);
        ``""`` for DeLong's.
    reference : key or None
        The slice the ``to_reference`` gaps are to.
    overall : dict of label -> Interval
        The overall value's interval from the same replicates (or DeLong's): with case weights,
        :func:`perfeval.ci`'s percentile interval with ``sample_weight=`` (the same draws).
    """

    def __init__(
        self,
        slicings: list[SlicingIntervals],
        overall: dict[str, Interval],
        *,
        level: float,
        method: str,
        n_boot: int,
        seed: int | None,
        resampled: str,
        reference: Any,
        skip_flagged: bool,
        directions: dict[str, str],
        overall_reps: dict[str, np.ndarray] | None,
        overall_var: dict[str, float] | None,
    ):
        self.slicings = slicings
        self.overall = overall
        self.level = level
        self.method = method
        self.n_boot = n_boot
        self.seed = seed
        self.resampled = resampled
        self.reference = reference
        self.skip_flagged = skip_flagged
        self.directions = directions
        self._overall_reps = overall_reps
        self._overall_var = overall_var

    @property
    def measures(self) -> list[str]:
        return list(self.slicings[0].measures) if self.slicings else []

    def __repr__(self) -> str:
        how = (
            f"{self.method} bootstrap, {self.n_boot} replicates, seed {self.seed}, {self.resampled} resampled"
            if self.method != "delong"
            else "DeLong"
        )
        parts = "; ".join(f"{s.name}: {len(s.keys)} slices" for s in self.slicings)
        return f"<SliceIntervals {self.level:g} of {', '.join(self.measures)} ({how}); {parts}>"

    def slicing(self, slicing: Any = None) -> SlicingIntervals:
        if slicing is None:
            if len(self.slicings) == 1:
                return self.slicings[0]
            raise InvalidParameterError(
                f"name the slicing: one of {', '.join(repr(s.name) for s in self.slicings)} (slicing=...)"
            )
        name = " x ".join(slicing) if isinstance(slicing, (tuple, list)) else slicing
        for s in self.slicings:
            if s.name == name:
                return s
        raise InvalidParameterError(
            f"no slicing {slicing!r} in these intervals: {', '.join(repr(s.name) for s in self.slicings)}"
        )

    def _label(self, measure: Any, s: SlicingIntervals) -> str:
        if measure is None:
            if len(s.measures) == 1:
                return next(iter(s.measures))
            raise InvalidParameterError(f"name the measure: one of {', '.join(s.measures)}")
        if measure in s.measures:
            return str(measure)
        up = str(measure).upper()
        for m in s.measures:
            if m.upper() == up:
                return m
        raise InvalidParameterError(
            f"{measure!r} has no intervals here (they are of {', '.join(s.measures)})"
        )

    # -- tables -------------------------------------------------------------------------------------------
    def frame(self):
        """One row a (slicing, slice, measure) (pandas): the value with ``low``, ``high``, ``se``; the
        gap to the overall value (``to_overall``, its ``_low``, ``_high``, ``p``, ``p_holm``,
        ``p_bh``); with a reference, the same ``to_reference`` columns (``p_reference``, ...);
        ``rows``/``cases`` are in ``slices.frame()``; ``flagged``; ``why``: why an interval or a test
        is missing.
        """
        pd = _pandas()
        index: list[tuple] = []
        cols: dict[str, list] = {
            k: []
            for k in (
                "value",
                "low",
                "high",
                "se",
                "to_overall",
                "to_overall_low",
                "to_overall_high",
                "p",
                "p_holm",
                "p_bh",
            )
        }
        ref = self.reference is not None
        if ref:
            for k in ("to_reference", "to_reference_low", "to_reference_high", "p_reference"):
                cols[k] = []
            cols["p_reference_holm"], cols["p_reference_bh"] = [], []
        cols["flagged"], cols["why"] = [], []
        for s in self.slicings:
            for m, mi in s.measures.items():
                for i, key in enumerate(s.keys):
                    index.append((s.name, key, m))
                    g = mi.to_overall
                    row = [
                        mi.estimate[i],
                        mi.low[i],
                        mi.high[i],
                        mi.se[i],
                        g.estimate[i],
                        g.low[i],
                        g.high[i],
                    ]
                    row += [g.p[i], g.p_holm[i], g.p_bh[i]]
                    for k, v in zip(list(cols)[:10], row, strict=True):
                        cols[k].append(float(v))
                    if ref:
                        r = mi.to_reference
                        assert r is not None
                        for k, v in zip(
                            ("to_reference", "to_reference_low", "to_reference_high", "p_reference"),
                            (r.estimate[i], r.low[i], r.high[i], r.p[i]),
                            strict=True,
                        ):
                            cols[k].append(float(v))
                        cols["p_reference_holm"].append(float(r.p_holm[i]))
                        cols["p_reference_bh"].append(float(r.p_bh[i]))
                    cols["flagged"].append(bool(s.flagged[i]))
                    whys = [w for w in (mi.why.get(i), g.why.get(i)) if w]
                    if ref and mi.to_reference is not None and mi.to_reference.why.get(i):
                        whys.append(mi.to_reference.why[i])
                    cols["why"].append("; ".join(dict.fromkeys(whys)) or None)
        idx = pd.MultiIndex.from_arrays(
            [
                pd.Index([a for a, _, _ in index], dtype=object),
                pd.Index([b for _, b, _ in index], dtype=object, tupleize_cols=False),
                pd.Index([c for _, _, c in index], dtype=object),
            ],
            names=["slicing", "slice", "measure"],
        )
        return pd.DataFrame(cols, index=idx)

    def gaps(self):
        """One row a (slicing, measure, gap) (pandas): the gaps of :data:`GAPS` (fairlearn's
        ``difference`` and ``ratio`` between slices, to the overall value and to the reference slice;
        ``group_min``, ``group_max``; the ``worst`` slice's value), each with its ``estimate``,
        ``low``, ``high``, the ``slice`` it is of (min, max, worst) and ``why`` an interval is missing.
        """
        pd = _pandas()
        rows = []
        for s in self.slicings:
            for m, mi in s.measures.items():
                for g, d in mi.gaps.items():
                    rows.append(
                        (s.name, m, g, d["estimate"], d["low"], d["high"], d.get("slice"), d.get("why"))
                    )
        idx = pd.MultiIndex.from_tuples([r[:3] for r in rows], names=["slicing", "measure", "gap"])
        return pd.DataFrame(
            {
                "estimate": [r[3] for r in rows],
                "low": [r[4] for r in rows],
                "high": [r[5] for r in rows],
                "slice": pd.Series([r[6] for r in rows], dtype=object).tolist(),
                "why": [r[7] for r in rows],
            },
            index=idx,
        )

    def pairwise(self, measure: Any = None, slicing: Any = None):
        """Every pair of slices the gaps read, their difference (a - b) with its interval, a
        two-sided p-value for "no difference", and the p-values adjusted over the pairs (Holm's,
        Benjamini-Hochberg's): a DataFrame indexed by (slice a, slice b).  From the same replicates
        (the bootstrap: the pair's paired replicates; DeLong's: the sum of the two variances).
        """
        pd = _pandas()
        s = self.slicing(slicing)
        m = self._label(measure, s)
        mi = s.measures[m]
        idx = np.flatnonzero(s.included[m])
        a_keys: list = []
        b_keys: list = []
        cols: dict[str, list] = {k: [] for k in ("difference", "low", "high", "p")}
        for pos, i in enumerate(idx.tolist()):
            rest = idx[pos + 1 :]
            if not len(rest):
                break
            est = mi.estimate[i] - mi.estimate[rest]
            if mi.reps is not None:
                D = mi.reps[i][None, :] - mi.reps[rest]
                lo, hi, _sd = _percentiles(D, self.level)
                lo = np.where(np.isfinite(est), lo, math.nan)
                hi = np.where(np.isfinite(est), hi, math.nan)
                p = np.where(np.isfinite(est), _p_values(D), math.nan)
            else:
                assert mi.variance is not None
                se = np.sqrt(mi.variance[i] + mi.variance[rest])
                lo, hi, p = _normal(est, se, self.level)
            a_keys += [s.keys[i]] * len(rest)
            b_keys += [s.keys[j] for j in rest.tolist()]
            cols["difference"] += est.tolist()
            cols["low"] += np.asarray(lo).tolist()
            cols["high"] += np.asarray(hi).tolist()
            cols["p"] += np.asarray(p).tolist()
        p = np.asarray(cols["p"], dtype=np.float64)
        cols["p_holm"] = correct_tested(p, "holm").tolist()
        cols["p_bh"] = correct_tested(p, "bh").tolist()
        index = pd.MultiIndex.from_arrays(
            [
                pd.Index(a_keys, dtype=object, tupleize_cols=False),
                pd.Index(b_keys, dtype=object, tupleize_cols=False),
            ],
            names=["a", "b"],
        )
        return pd.DataFrame(cols, index=index)

    # -- JSON ---------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Everything for JSON: how the intervals were made, the overall value's interval, and per
        slicing and measure each slice's interval and gaps (null where none, with ``why_null``) and
        the slicing's gaps.
        """
        out: dict[str, Any] = {
            "level": self.level,
            "method": self.method,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "resampled": self.resampled,
            "reference": None if self.reference is None else _key_json(self.reference),
            "skip_flagged": self.skip_flagged,
            "corrections": {
                "holm": "Holm's step-down over the slicing's slices tested, per measure",
                "bh": "Benjamini-Hochberg's over the same family",
            },
            "overall": {m: iv.to_dict() for m, iv in self.overall.items()},
            "slicings": [],
        }
        for s in self.slicings:
            measures: dict[str, Any] = {}
            for m, mi in s.measures.items():
                slices = []
                for i, key in enumerate(s.keys):
                    d: dict[str, Any] = {
                        "slice": _key_json(key),
                        "estimate": json_number(mi.estimate[i]),
                        "low": json_number(mi.low[i]),
                        "high": json_number(mi.high[i]),
                    }
                    if i in mi.why:
                        d["why_null" if d["low"] is None else "note"] = mi.why[i]
                    d["to_overall"] = _gap_dict(mi.to_overall, i)
                    if mi.to_reference is not None:
                        d["to_reference"] = _gap_dict(mi.to_reference, i)
                    slices.append(d)
                gaps = {
                    g: {
                        k: (json_number(v) if isinstance(v, float) else _key_json(v) if k == "slice" else v)
                        for k, v in d.items()
                        if v is not None
                    }
                    for g, d in mi.gaps.items()
                }
                measures[m] = {"slices": slices, "gaps": gaps}
            out["slicings"].append({"slicing": s.name, "measures": measures})
        return out


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        from perfeval.exceptions import MissingDependencyError

        raise MissingDependencyError(
            "this needs pandas: pip install pandas (or pip install 'perfeval[all]')"
        ) from None
    return pd


def _key_json(key: Any) -> Any:
    """A slice key for JSON, as the slices' JSON writes it (an intersection as a list)."""
    if isinstance(key, tuple):
        return [_key_json(k) for k in key]
    if isinstance(key, np.generic):
        key = key.item()
    return key if isinstance(key, (str, int, bool)) else str(key)


def _gap_dict(g: Gap, i: int) -> dict[str, Any]:
    d: dict[str, Any] = {
        "difference": json_number(g.estimate[i]),
        "low": json_number(g.low[i]),
        "high": json_number(g.high[i]),
        "p_value": json_number(g.p[i]),
        "p_holm": json_number(g.p_holm[i]),
        "p_bh": json_number(g.p_bh[i]),
    }
    if g.at_floor[i]:
        d["p_at_floor"] = True
    if i in g.why:
        d["why_null"] = g.why[i]
    return d


# -- interval arithmetic, many at once ---------------------------------------------------------------------
def _percentiles(D: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's percentile interval and standard deviation, NaN where more than 5% of the row's
    replicates are not finite (:func:`perfeval.stats.intervals.interval`'s rule).
    """
    fin = np.isfinite(D)
    n_ok = fin.sum(axis=1)
    good = (n_ok >= 0.95 * D.shape[1]) & (n_ok >= 2)
    a = (1.0 - level) / 2.0
    lo = np.full(D.shape[0], math.nan)
    hi = np.full(D.shape[0], math.nan)
    sd = np.full(D.shape[0], math.nan)
    if good.any():
        X = np.where(fin[good], D[good], math.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            q = np.nanquantile(X, [a, 1.0 - a], axis=1)
            sd[good] = np.nanstd(X, axis=1, ddof=1)
            # rows of values about 1e200 or 1e-200 (a regression's), whose squares overflow or
            # underflow: at a power-of-two scale (:func:`perfeval.stats.intervals.spread`)
            big = np.nanmax(np.abs(X), axis=1)
            for i in np.flatnonzero((big != 0) & ((big < SQUARES_SAFE[0]) | (big > SQUARES_SAFE[1]))):
                k = math.frexp(float(big[i]))[1]
                sd[np.flatnonzero(good)[i]] = unscaled(float(np.nanstd(np.ldexp(X[i], -k), ddof=1)), k)
        lo[good], hi[good] = q[0], q[1]
    return lo, hi, sd


def _p_values(D: np.ndarray) -> np.ndarray:
    """Each row's :func:`perfeval.stats.intervals.p_value` (NaN where more than 5% of the row's
    replicates are undefined).
    """
    nan = np.isnan(D)
    n = (~nan).sum(axis=1)
    zero = 0.5 * np.count_nonzero(D == 0, axis=1)
    k = np.minimum(np.count_nonzero(D < 0, axis=1) + zero, np.count_nonzero(D > 0, axis=1) + zero)
    with np.errstate(all="ignore"):
        p = np.minimum(1.0, 2.0 * (k + 1.0) / (n + 1.0))
    return np.where((n > 0) & (n >= 0.95 * D.shape[1]), p, math.nan)


def _at_floor(D: np.ndarray) -> np.ndarray:
    n = (~np.isnan(D)).sum(axis=1)
    one_side = (np.count_nonzero(D <= 0, axis=1) == 0) | (np.count_nonzero(D >= 0, axis=1) == 0)
    return one_side & (n > 0) & (n >= 0.95 * D.shape[1])


def _normal(est: Any, se: Any, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A normal interval est -+ z se and the two-sided p-value of est / se (NaN where se is not a
    finite number; se 0: p 1 for est 0, else 0).
    """
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    est = np.asarray(est, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(all="ignore"):
        zs = np.abs(est) / se
        p = np.array(
            [math.erfc(v / math.sqrt(2.0)) if math.isfinite(v) else math.nan for v in np.atleast_1d(zs)]
        )
        p = np.where(se == 0, np.where(est == 0, 1.0, 0.0), p)
    p = np.where(np.isfinite(est) & np.isfinite(se), p, math.nan)
    return est - z * se, est + z * se, p.reshape(est.shape)


# -- slice_ci -------------------------------------------------------------------------------------------
def _check(method: Any, level: Any, n_boot: Any, seed: Any) -> str:
    if method == "bootstrap":
        method = "percentile"
    if method not in METHODS:
        extra = (
            " (BCa's acceleration would need a jackknife a slice and a gap: the slices' bootstrap "
            "intervals are percentile ones)"
            if method == "bca"
            else ""
        )
        raise InvalidParameterError(
            f"unknown slice interval method {method!r}; choose 'percentile' (the bootstrap) or "
            f"'delong'{extra}"
        )
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        raise InvalidParameterError(f"the confidence level must be a number in (0, 1), got {level!r}")
    check_level(float(level))
    if method == "percentile" and (
        isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2
    ):
        raise InvalidParameterError(
            f"the bootstrap needs a whole number of replicates >= 2, got n_boot={n_boot!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(f"`seed` must be a whole number >= 0, got {seed!r}")
    return str(method)


def slice_ci(
    report: Any,
    *,
    measures: Any = None,
    slicing: Any = None,
    method: str = "percentile",
    level: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    reference: Any = None,
    skip_flagged: bool = False,
    threads: int | None = None,
    progress: bool = False,
) -> SliceIntervals:
    """Intervals of each slice's value and of each gap between slices, and the tests of the gaps.

    Parameters
    ----------
    report : Report or Slices
        ``evaluate(..., by=[...])``'s report (or its ``report.slices``), evaluated in memory: the
        intervals resample its cases (the module's text says exactly how).
    measures : str or list of str, optional
        The measures (any spelling: ``"auc"``); default every measure of the slices.
    slicing : str or tuple, optional
        One slicing (``"region"``, ``"region x age"``); default every slicing.
    method : {"percentile", "delong"}
        ``"percentile"`` (``"bootstrap"`` says the same): the percentile bootstrap, each case weighted
        Poisson(1) in each replicate, every slice, the overall value and every gap read from the same
        draws (whole queries with ``groups=``).  ``"delong"``: DeLong's interval of each slice's ROC
        area, of the gap between two slices (the sum of their variances) and of a slice's gap to the
        overall area (with their covariance); a maximum over slices gets none.
    level : float
        The confidence level, in (0, 1).
    n_boot : int
        Bootstrap replicates.
    seed : int
        Replicate r draws case i's weight from a stream keyed by (seed, r, i): the same seed gives the
        same intervals, on any number of threads.
    reference : key, optional
        A slice (``"south"``, an intersection's tuple): each slice's gap to it too, tested, and the
        gaps to it (``difference_to_reference``, ``ratio_to_reference``).
    skip_flagged : bool
        Leave the slices below ``min_size`` out of the gaps and of the tests (their own intervals are
        still given).  A small slice's value is often undefined in a replicate (no positive drawn),
        which leaves every gap over the slicing without an interval: the flag says which to leave out.
    threads : int, optional
        Threads of the compiled walk (results do not depend on it).
    progress : bool
        Show the replicates drawn on standard error.

    Returns
    -------
    SliceIntervals
        ``frame()``: each slice's interval and its gap to the overall value (and to the reference)
        with a p-value, Holm's and Benjamini-Hochberg's over the slicing's slices; ``gaps()``: the
        intervals of ``difference`` and ``ratio`` (between slices, to the overall value, to the
        reference), ``group_min``, ``group_max`` and the worst slice's value; ``pairwise()``: every
        pair of slices.  Also kept as ``report.slices.intervals`` (``report.to_dict()`` holds it).

    Examples
    --------
    >>> import numpy as np, perfeval
    >>> from perfeval.stats import slice_ci
    >>> rng = np.random.default_rng(0)
    >>> site = np.repeat(["a", "b"], 300)
    >>> y = (rng.random(600) < 0.5).astype(int)
    >>> s = rng.normal(size=600) + np.where(site == "a", 1.5, 0.5) * y
    >>> r = perfeval.evaluate(y, s, measures=["roc"], by={"site": site})
    >>> c = slice_ci(r, n_boot=200, seed=1)
    >>> f = c.frame()
    >>> bool((f["low"] < f["value"]).all() and (f["value"] < f["high"]).all())
    True
    >>> g = c.gaps().xs("difference", level="gap").iloc[0]
    >>> bool(g["low"] > 0)  # site a ranks better than site b: the gap's interval excludes 0
    True
    """
    slices = getattr(report, "slices", report)
    if slices is None or not hasattr(slices, "slicings"):
        raise InvalidParameterError(
            "slice_ci takes the report of evaluate(..., by=[...]) (or its .slices); this report has no slices"
        )
    method = _check(method, level, n_boot, seed)
    level = float(level)
    source: SliceSource | None = getattr(slices, "source", None)
    if source is None:
        raise InvalidParameterError(
            "these slices keep no cases to resample (a report made from summaries: a stream, Dask, a "
            "Metric): their intervals need the cases in memory, evaluate(..., by=...)"
        )
    task = source.task
    if task.partitions:
        raise InvalidParameterError("slices' intervals with partitions: not yet (one evaluation a partition)")
    if measures is None:
        labels = list(slices.measures)
    else:
        labels = list(
            dict.fromkeys(slices.label(m) for m in ([measures] if isinstance(measures, str) else measures))
        )
    chosen = list(slices.slicings) if slicing is None else [slices.slicing(slicing)]
    if reference is not None:
        ref = tuple(reference) if isinstance(reference, list) else reference
        for s in chosen:
            if ref not in s.keys:
                raise InvalidParameterError(
                    f"reference={reference!r} is not a slice of {s.name!r}"
                    + ("; name the slicing it is of (slicing=...)" if len(chosen) > 1 else "")
                )
        reference = ref
    sizes = {s.name: len(s) for s in chosen}
    reps: Replicates | None = None
    delong: dict | None = None
    if method == "delong":
        delong = _delong_parts(slices, source, labels, chosen)
    else:
        reps = replicates(
            source, labels, [s.name for s in chosen], sizes, seed=seed, n_boot=n_boot, threads=threads,
            progress=progress,
        )  # fmt: skip
    out = []
    for s in chosen:
        ms = {}
        included = {}
        for m in labels:
            vals = np.asarray(s.values.values[m], dtype=np.float64)
            inc = ~np.isnan(vals)
            if skip_flagged:
                inc &= ~s.flagged
            included[m] = inc
            if reps is not None:
                ms[m] = _boot_measure(
                    slices, s, m, vals, inc, reps.by_slicing[s.name][m], reps.overall[m], level, reference,
                    skip_flagged,
                )  # fmt: skip
            else:
                assert delong is not None
                ms[m] = _delong_measure(slices, s, m, vals, inc, delong, level, reference, skip_flagged)
        out.append(SlicingIntervals(s.name, list(s.keys), np.asarray(s.flagged), included, ms))
    overall: dict[str, Interval] = {}
    for m in labels:
        est = float(slices.overall[m])
        if reps is not None:
            lo, hi, sd, note = interval(est, reps.overall[m], level, "percentile", 0.0)
            overall[m] = Interval(
                m, est, lo, hi, level, "percentile", int(n_boot), sd, reps.resampled, int(seed), note
            )
        else:
            assert delong is not None
            var = delong["overall"][m][1]
            sd = math.sqrt(var) if var >= 0 else math.nan
            lo, hi, _p = (float(x) for x in _normal(est, sd, level))
            overall[m] = Interval(m, est, max(0.0, lo), min(1.0, hi), level, "delong", 0, sd)
    result = SliceIntervals(
        out,
        overall,
        level=level,
        method=method,
        n_boot=0 if method == "delong" else int(n_boot),
        seed=None if method == "delong" else int(seed),
        resampled="" if reps is None else reps.resampled,
        reference=reference,
        skip_flagged=skip_flagged,
        directions=dict(slices.directions),
        overall_reps=None if reps is None else reps.overall,
        overall_var=None,
    )
    slices.intervals = result
    return result


_UNDEFINED_REPS = (
    "more than 5% of the replicates leave the value undefined (e.g. a replicate without a positive): "
    "no interval from a biased subset"
)


def _value_why(s: Any, m: str, i: int) -> str | None:
    why = s.values.reasons.get(m, {}).get(i)
    return f"no value: {why}" if why else None


def _boot_measure(
    slices: Any,
    s: Any,
    m: str,
    vals: np.ndarray,
    inc: np.ndarray,
    V: np.ndarray,
    Vo: np.ndarray,
    level: float,
    reference: Any,
    skip_flagged: bool,
) -> MeasureIntervals:
    """One measure of one slicing from its replicates (V: slices x n_boot; Vo: the overall's)."""
    K = len(vals)
    finite = np.isfinite(vals)
    lo, hi, sd = _percentiles(V, level)
    lo, hi, sd = (np.where(finite, x, math.nan) for x in (lo, hi, sd))
    why: dict[int, str] = {}
    for i in range(K):
        if not finite[i]:
            why[i] = _value_why(s, m, i) or "no value"
        elif math.isnan(lo[i]):
            why[i] = _UNDEFINED_REPS
        elif lo[i] == hi[i]:
            why[i] = SAME_IN_EVERY
    overall_m = float(slices.overall[m])
    to_overall = _boot_gap(
        m, vals - overall_m, V - Vo[None, :], level, inc, finite, s, skip_flagged, "overall"
    )
    to_reference = None
    if reference is not None:
        r = s.keys.index(reference)
        g = _boot_gap(m, vals - vals[r], V - V[r][None, :], level, inc, finite, s, skip_flagged, "reference")
        g.why[r] = "the reference slice itself"
        for arr in (g.low, g.high, g.se, g.p, g.p_holm, g.p_bh):
            arr[r] = math.nan
        _adjust(g)
        to_reference = g
    gaps = _boot_gaps(slices, s, m, vals, inc, V, Vo, level, reference)
    return MeasureIntervals(vals, lo, hi, sd, why, to_overall, to_reference, gaps, V, None)


def _boot_gap(
    m: str,
    est: np.ndarray,
    D: np.ndarray,
    level: float,
    inc: np.ndarray,
    finite: np.ndarray,
    s: Any,
    skip_flagged: bool,
    to: str,
) -> Gap:
    with np.errstate(all="ignore"):
        ok = np.isfinite(est)
    lo, hi, sd = _percentiles(D, level)
    p = _p_values(D)
    floor = _at_floor(D)
    tested = ok & inc
    why: dict[int, str] = {}
    for i in range(len(est)):
        if not finite[i]:
            why[i] = _value_why(s, m, i) or "the slice's value is undefined"
        elif not ok[i]:
            why[i] = f"the {to} value is undefined"
        elif skip_flagged and s.flagged[i]:
            why[i] = NOT_TESTED
        elif math.isnan(lo[i]):
            why[i] = _UNDEFINED_REPS
    g = Gap(
        np.asarray(est, dtype=np.float64),
        np.where(ok, lo, math.nan),
        np.where(ok, hi, math.nan),
        np.where(ok, sd, math.nan),
        np.where(tested, p, math.nan),
        np.full(len(est), math.nan),
        np.full(len(est), math.nan),
        np.where(tested, floor, False),
        why,
    )
    _adjust(g)
    return g


def _adjust(g: Gap) -> None:
    """The p-values adjusted over the slices tested (a NaN p-value is no test, not in the family)."""
    g.p_holm[:] = correct_tested(g.p, "holm")
    g.p_bh[:] = correct_tested(g.p, "bh")


def _too_often(s: Any, V: np.ndarray, idx: np.ndarray) -> str:
    """Which slices of ``idx`` are undefined in more than 5% of the replicates, for a reason."""
    frac = np.isnan(V[idx]).mean(axis=1)
    bad = idx[frac > 0.05]
    shown = ", ".join(f"{s.keys[i]!r} ({frac[np.searchsorted(idx, i)]:.0%})" for i in bad[:5].tolist())
    more = ", ..." if len(bad) > 5 else ""
    return (
        f"undefined in more than 5% of the replicates in {len(bad)} slice{'' if len(bad) == 1 else 's'} "
        f"({shown}{more}): a replicate's gap needs every slice's value; leave the small slices out "
        f"({REMEDY})"
    )


def _differences_to(X: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each replicate's :func:`perfeval.api.slices.difference_of` to a target (the greatest
    ``|v - target|`` over the slices, NaN left out), every replicate at once.
    """
    with np.errstate(all="ignore"):
        d = np.abs(X - target[None, :])
    return _nan_reduce(d, np.fmax)


def _ratios_to(X: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each replicate's :func:`perfeval.api.slices.ratio_of` to a target (the least ``v / target``,
    a ratio above 1 inverted, NaN left out), every replicate at once.
    """
    with np.errstate(all="ignore"):
        r = X / target[None, :]
        r = np.where(r > 1, 1 / r, r)
    return _nan_reduce(r, np.fmin)


def _nan_reduce(a: np.ndarray, fn: Any) -> np.ndarray:
    """``fn`` (np.fmax, np.fmin: NaN left out) over the slices, NaN where every one is NaN."""
    if not a.shape[0]:
        return np.full(a.shape[1], math.nan)
    return fn.reduce(a, axis=0)


def _boot_gaps(
    slices: Any,
    s: Any,
    m: str,
    vals: np.ndarray,
    inc: np.ndarray,
    V: np.ndarray,
    Vo: np.ndarray,
    level: float,
    reference: Any,
) -> dict[str, dict[str, Any]]:
    """The slicing's gaps (:data:`GAPS`), each replicate's from the same slices as the estimate's
    (a replicate where one of them is undefined is an undefined replicate).
    """
    from perfeval.api.slices import difference_of, ratio_of

    idx = np.flatnonzero(inc)
    overall = float(slices.overall[m])
    ref = None if reference is None else s.keys.index(reference)
    direction = slices.directions.get(m, "none")
    X = V[idx]  # (included slices x n_boot)
    full = ~np.isnan(X).any(axis=0) if len(idx) else np.zeros(V.shape[1], dtype=bool)
    stats: dict[str, tuple[float, np.ndarray, Any]] = {}

    v = vals[idx]
    if len(idx):
        with np.errstate(all="ignore"):
            stats["difference"] = (difference_of(v, "between_groups"), X.max(axis=0) - X.min(axis=0), None)
            stats["ratio"] = (ratio_of(v, "between_groups"), X.min(axis=0) / X.max(axis=0), None)
        stats["difference_to_overall"] = (
            difference_of(v, "to_overall", overall),
            _differences_to(X, Vo),
            None,
        )
        stats["ratio_to_overall"] = (ratio_of(v, "to_overall", overall), _ratios_to(X, Vo), None)
        if ref is not None and not math.isnan(vals[ref]):
            stats["difference_to_reference"] = (
                difference_of(v, "to_reference", vals[ref]),
                _differences_to(X, V[ref]),
                None,
            )
            stats["ratio_to_reference"] = (
                ratio_of(v, "to_reference", vals[ref]),
                _ratios_to(X, V[ref]),
                None,
            )
        lo_i, hi_i = int(idx[np.argmin(v)]), int(idx[np.argmax(v)])
        stats["group_min"] = (float(v.min()), X.min(axis=0), s.keys[lo_i])
        stats["group_max"] = (float(v.max()), X.max(axis=0), s.keys[hi_i])
        if direction != "none":
            stats["worst"] = stats["group_min"] if direction == "higher" else stats["group_max"]
    out: dict[str, dict[str, Any]] = {}
    for g in GAPS:
        if g not in stats:
            why = (
                "no slice defined"
                if not len(idx)
                else "no reference slice (reference=)"
                if g.endswith("_reference") and reference is None
                else "the reference slice's value is undefined"
                if g.endswith("_reference")
                else f"{m} has no better direction: no worst slice"
            )
            out[g] = {"estimate": math.nan, "low": math.nan, "high": math.nan, "slice": None, "why": why}
            continue
        est, R, key = stats[g]
        R = np.where(full, R, math.nan)
        lo, hi, _sd, _note = interval(float(est), R, level, "percentile", 0.0)
        reason: str | None = None
        if not math.isfinite(est):
            reason = "the gap is not a finite number"
        elif math.isnan(lo):
            reason = _too_often(s, V, idx) if (~full).mean() > 0.05 and np.isnan(X).any() else _UNDEFINED_REPS
        out[g] = {"estimate": float(est), "low": lo, "high": hi, "slice": key, "why": reason}
    return out


# -- DeLong -------------------------------------------------------------------------------------------------
def _delong_parts(slices: Any, source: SliceSource, labels: list[str], chosen: list) -> dict:
    """DeLong's variance of each slice's ROC area and of the overall one, and each slice's covariance
    with the overall area (the structural components of its cases in the slice and in the whole).
    """
    from perfeval.stats.delong import case_components

    task, cases = source.task, source.cases
    for m in labels:
        spec = task.spec_of(m)
        if fast_paths(spec).delong is None or cases.g is not None or task.kind != "binary":
            raise InvalidParameterError(
                f"DeLong's interval is for the ROC area over all cases, not {m}"
                + (" per query" if cases.g is not None else "")
                + "; use method='percentile' (the bootstrap)"
            )
    out: dict[str, Any] = {"overall": {}, "slicings": {}}
    if not labels:
        return out
    label = labels[0]
    cls = _binary_classes(task, cases, label)
    s = np.asarray(cases.s, dtype=np.float64)
    w = cases.w
    codes = source.codes([c.name for c in chosen])
    auc, comp, mm, nn = case_components(cls, s, w) if len(s) else (math.nan, np.zeros(0), 0.0, 0.0)
    var = _delong_var(comp, cls, w, auc, mm, nn)
    for m in labels:
        out["overall"][m] = (auc, var)
    for sl in chosen:
        c = codes[sl.name]
        order = np.argsort(c, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(np.bincount(c, minlength=len(sl)))))
        K = len(sl)
        var_k = np.full(K, math.nan)
        cov_k = np.full(K, math.nan)
        why: dict[int, str] = {}
        for k in range(K):
            idx = order[bounds[k] : bounds[k + 1]]
            ck, wk = cls[idx], None if w is None else w[idx]
            mk = float(ck.sum()) if wk is None else float(wk[ck].sum())
            nk = float((~ck).sum()) if wk is None else float(wk[~ck].sum())
            if mk <= 1.0 or nk <= 1.0:
                why[k] = (
                    "DeLong's variance needs more than one positive and more than one negative "
                    f"(weight), found {mk:g} positive and {nk:g} negative"
                )
                continue
            a_k, comp_k, _, _ = case_components(ck, s[idx], wk)
            var_k[k] = _delong_var(comp_k, ck, wk, a_k, mk, nk)
            cov_k[k] = _delong_cov(comp_k, comp[idx], ck, wk, a_k, auc, mk, nk, mm, nn)
        out["slicings"][sl.name] = (var_k, cov_k, why)
    return out


def _delong_var(
    comp: np.ndarray, cls: np.ndarray, w: np.ndarray | None, auc: float, m: float, n: float
) -> float:
    if m <= 1.0 or n <= 1.0:
        return math.nan
    d = comp - auc
    sq = d * d if w is None else w * d * d
    return float(sq[cls].sum()) / ((m - 1.0) * m) + float(sq[~cls].sum()) / ((n - 1.0) * n)


def _delong_cov(
    comp_k: np.ndarray,
    comp: np.ndarray,
    cls: np.ndarray,
    w: np.ndarray | None,
    a_k: float,
    a: float,
    m_k: float,
    n_k: float,
    m: float,
    n: float,
) -> float:
    """Cov(A_k, A) of a slice's area and the whole's, from the slice's cases' components in both."""
    prod = (comp_k - a_k) * (comp - a)
    if w is not None:
        prod = w * prod
    return float(prod[cls].sum()) / ((m_k - 1.0) * m) + float(prod[~cls].sum()) / ((n_k - 1.0) * n)


def _delong_measure(
    slices: Any,
    s: Any,
    m: str,
    vals: np.ndarray,
    inc: np.ndarray,
    parts: dict,
    level: float,
    reference: Any,
    skip_flagged: bool,
) -> MeasureIntervals:
    var_k, cov_k, dwhy = parts["slicings"][s.name]
    auc, var = parts["overall"][m]
    finite = np.isfinite(vals)
    se = np.sqrt(np.where(var_k >= 0, var_k, math.nan))
    lo, hi, _p = _normal(vals, se, level)
    lo, hi = np.maximum(0.0, lo), np.minimum(1.0, hi)  # pROC's clipping, as perfeval.ci's DeLong
    why: dict[int, str] = {}
    for i in range(len(vals)):
        if not finite[i]:
            why[i] = _value_why(s, m, i) or "no value"
        elif i in dwhy:
            why[i] = dwhy[i]
    overall = float(slices.overall[m])
    with np.errstate(all="ignore"):
        gvar = var_k + var - 2.0 * cov_k
    gvar = np.where(gvar < 0, 0.0, gvar)  # rounding, for a slice that is nearly the whole
    to_overall = _delong_gap(vals - overall, np.sqrt(gvar), level, inc, finite, why, s, skip_flagged)
    to_reference = None
    if reference is not None:
        r = s.keys.index(reference)
        g = _delong_gap(vals - vals[r], np.sqrt(var_k + var_k[r]), level, inc, finite, why, s, skip_flagged)
        g.why[r] = "the reference slice itself"
        for arr in (g.low, g.high, g.se, g.p):
            arr[r] = math.nan
        if r in dwhy or not finite[r]:
            for i in range(len(vals)):
                g.why.setdefault(i, "the reference slice has no DeLong variance")
        _adjust(g)
        to_reference = g
    gaps: dict[str, dict[str, Any]] = {
        g: {
            "estimate": math.nan,
            "low": math.nan,
            "high": math.nan,
            "slice": None,
            "why": "DeLong's method gives intervals of each slice and of a gap between two; a maximum or "
            "minimum over slices needs the bootstrap (method='percentile')",
        }
        for g in GAPS
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in (
            ("difference", lambda: slices.difference(m, s.name, skip_flagged=skip_flagged)),
            ("ratio", lambda: slices.ratio(m, s.name, skip_flagged=skip_flagged)),
            (
                "difference_to_overall",
                lambda: slices.difference(m, s.name, method="to_overall", skip_flagged=skip_flagged),
            ),
            (
                "ratio_to_overall",
                lambda: slices.ratio(m, s.name, method="to_overall", skip_flagged=skip_flagged),
            ),
            ("group_min", lambda: slices.group_min(m, s.name, skip_flagged=skip_flagged)),
            ("group_max", lambda: slices.group_max(m, s.name, skip_flagged=skip_flagged)),
        ):
            gaps[name]["estimate"] = float(fn())
        if reference is not None:
            gaps["difference_to_reference"]["estimate"] = float(
                slices.difference(m, s.name, reference=reference, skip_flagged=skip_flagged)
            )
            gaps["ratio_to_reference"]["estimate"] = float(
                slices.ratio(m, s.name, reference=reference, skip_flagged=skip_flagged)
            )
        worst = {"higher": "group_min", "lower": "group_max"}.get(slices.directions.get(m, "none"))
        gaps["worst"]["estimate"] = gaps[worst]["estimate"] if worst else math.nan
    return MeasureIntervals(vals, lo, hi, se, why, to_overall, to_reference, gaps, None, var_k)


def _delong_gap(
    est: np.ndarray,
    se: np.ndarray,
    level: float,
    inc: np.ndarray,
    finite: np.ndarray,
    why_value: dict[int, str],
    s: Any,
    skip_flagged: bool,
) -> Gap:
    lo, hi, p = _normal(est, se, level)
    ok = np.isfinite(est) & np.isfinite(se)
    why: dict[int, str] = {}
    for i in range(len(est)):
        if i in why_value:
            why[i] = why_value[i]
        elif skip_flagged and s.flagged[i]:
            why[i] = NOT_TESTED
    tested = ok & inc
    g = Gap(
        np.asarray(est, dtype=np.float64),
        np.where(ok, lo, math.nan),
        np.where(ok, hi, math.nan),
        np.where(ok, se, math.nan),
        np.where(tested, p, math.nan),
        np.full(len(est), math.nan),
        np.full(len(est), math.nan),
        np.zeros(len(est), dtype=bool),
        why,
    )
    _adjust(g)
    return g
