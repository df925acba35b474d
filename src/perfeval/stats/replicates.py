"""The replicate engines: the checked cases, Poisson bootstrap replicates of one or several score
columns, whole-group resampling, and the generic jackknife.

The bootstrap here is the *Poisson bootstrap*: a replicate gives every case a weight drawn from
Poisson(1) instead of copying rows (Hanley & MacGibbon 2006; Chamandy et al. 2012).  It is
exchangeable with the multinomial bootstrap for all practical purposes, and it is what makes the
work small:

* Cases with the same score and class are interchangeable, so a cell of c cases gets weight
  Poisson(c) at once: a replicate of the exact summary costs O(distinct scores), not O(rows), and no
  row is ever copied.
* With case weights, or for a paired comparison (two scores of the same cases must get the *same*
  case weights), each case gets its own Poisson(1) draw, in case order.
* Per-group measures (GAUC, NDCG, PERF's block means) resample whole groups: the per-group values
  are computed once, and a replicate is a Poisson-weighted mean of them.

Every replicate r draws from its own random stream, seeded from ``(seed, r)``: results are
reproducible and do not depend on the number of threads or how the replicates are split.  A measure
with a compiled kernel (:mod:`perfeval.stats.fastpaths`) draws the same replicates in one pass.

The generic jackknife (for the BCa acceleration) deletes one of 100 groups of cases at a time; group
resampling leaves one group out.
"""

from __future__ import annotations

import hashlib
import math
import os
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cached_property
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base import progress as _progress
from perfeval.base.checks import (
    LabelWords,
    check_no_nan,
    check_pair,
    check_weights,
    one_d,
    read_targets,
    same_length,
    to_numpy,
)
from perfeval.exceptions import InvalidDataError
from perfeval.stats.fastpaths import REP_WIDTH, fast_paths, finish_plans, plan_stats
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.histogram import runs
from perfeval.summaries.ranking import group_codes

# perfeval.api.evaluation (the door, the engine) is imported for the grouped bootstrap only:
# `perfeval compare` does not load it.

JACK_GROUPS = 100
CHUNK_CELLS = 1 << 23  # replicate counts held at once (x 16 bytes): bounded memory for any data


def threads_of(threads: int | None) -> int:
    """The number of threads to use (None or 0: every core)."""
    return max(1, threads if threads else (os.cpu_count() or 1))


# -- the data ----------------------------------------------------------------------------------------


class Cases:
    """Validated arrays: targets (0/1 for binary measures), scores, optional weights and groups."""

    def __init__(
        self,
        y_true: Any,
        y_score: Any,
        weights: Any,
        groups: Any,
        score: str = "y_score",
        weight: str = "sample_weight",
    ):
        # named as the user passed them: `weight` is the weights' keyword (`sample_weight`, or
        # `weights`, its deprecated spelling), `score` the scores' argument (compare's `score_a`,
        # compare_models' `models['b']`)
        self.y = to_numpy(y_true, "y_true")
        self.s = one_d(score, to_numpy(y_score, score))
        check_pair(self.y, self.s, ("y_true", score))
        check_no_nan(self.s, score)
        self.w = None
        if weights is not None:
            self.w = one_d(weight, to_numpy(weights, weight))
            same_length(weight, self.w, len(self.s), score)
            check_weights(self.w, weight)
        self.groups = None if groups is None else to_numpy(groups, "groups")
        if self.groups is not None and len(self.groups) != len(self.s):
            raise InvalidDataError(
                f"`groups` must have the length of `{score}` ({len(self.s)}), got {len(self.groups)}"
            )
        if self.w is not None and not self.w.all():
            # a case of weight 0 is no case at all (as in evaluate): the estimate, the replicates and
            # the jackknife all see the same cases
            keep = self.w > 0
            self.y, self.s, self.w = self.y[keep], self.s[keep], self.w[keep]
            self.groups = None if self.groups is None else self.groups[keep]

    @cached_property
    def hist(self):
        """The exact summary of the cases (of :attr:`cls` when the targets were coded already: the
        scores and weights are checked, and the targets are not coded again).
        """
        if "cls" in self.__dict__:
            return ScoreHistogram.from_checked(self.cls, self.s, self.w)
        return ScoreHistogram.from_arrays(self.y, self.s, self.w)

    @cached_property
    def cls(self) -> np.ndarray:
        """The positive cases (an error unless every target is 0 or 1)."""
        pos = self.y == 1
        if not (pos | (self.y == 0)).all():
            said = read_targets(self.y, LabelWords())
            raise InvalidDataError(
                f"a binary measure needs 0/1 targets, but `y_true` {said.what}; {said.advice}"
            )
        return pos

    @cached_property
    def sorted(self) -> Sorted:
        return Sorted(self.s)


class Sorted:
    """A score column sorted once: each case's distinct-score cell, for case-level replicates."""

    def __init__(self, s: np.ndarray):
        self.order = np.argsort(s, kind="stable").astype(np.int64)
        vals, counts = runs(s[self.order])
        self.scores = vals
        self.gend = np.cumsum(counts).astype(np.int64)
        self.cell = np.empty(len(s), np.intp)
        self.cell[self.order] = np.repeat(np.arange(len(counts)), counts.astype(np.intp))
        #: the score of each tie group (ascending), for the compiled finishers
        self.gscores = np.ascontiguousarray(vals, np.float64)

    def histogram(self, pos_w: np.ndarray, neg_w: np.ndarray):
        k = len(self.scores)
        p = np.bincount(self.cell, weights=pos_w, minlength=k)
        q = np.bincount(self.cell, weights=neg_w, minlength=k)
        keep = (p + q) > 0
        return ScoreHistogram(self.scores[keep], p[keep], q[keep])


def value(spec, h) -> float:
    """A measure on a summary, NaN where it is undefined, without warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            v = spec(h)
    return math.nan if v is None else float(v)


# -- replicates of score columns ---------------------------------------------------------------------


#: replicates a compiled call draws: between two calls the progress bar moves (the replicates do
#: not depend on how they are split, each being seeded by its number)
REPLICATE_CHUNK = 64
#: score columns one compiled call walks (the compiled side's limit)
MAX_COLUMNS = 16


def _planned(specs: list, w: np.ndarray | None = None) -> list[int]:
    """Indices of the specs finished from the compiled finishers' statistics (with case weights
    that are not whole numbers, not those whose statistics need counts).
    """
    whole = w is None or bool(np.all(w == np.round(w)))
    out = []
    for i, sp in enumerate(specs):
        mk = fast_paths(sp).plan
        plan = None if mk is None else mk(sp)
        if plan is not None and (whole or not plan.counts):
            out.append(i)
    return out


def _plan_of(spec) -> Any:
    """The replicate plan of a spec that has one (see _planned)."""
    make = fast_paths(spec).plan
    plan = None if make is None else make(spec)
    assert plan is not None
    return plan


#: the two above by public names, for the slices' bootstrap (:mod:`perfeval.stats.slices`)
planned = _planned
plan_of = _plan_of


def _chunks(n_boot: int, meter: Any):
    for r0 in range(0, n_boot, REPLICATE_CHUNK):
        r1 = min(n_boot, r0 + REPLICATE_CHUNK)
        yield r0, r1
        meter.update(r1 - r0)


def _desc(specs: list) -> str:
    labels = [sp.label for sp in specs]
    return "bootstrap " + (", ".join(labels) if len(labels) <= 4 else f"{len(labels)} measures")


def hist_replicates(
    specs: list, h, seed: int, n_boot: int, threads: int, progress: bool = False
) -> list[np.ndarray]:
    """Replicates of binary measures from Poisson(count) draws per cell of the exact summary; every
    measure sees the same replicates.  The measures with a plan are finished together from each
    replicate's statistics (one compiled walk for all of them); any other measure is computed on
    each replicate's summary.
    """
    outs = [np.empty(n_boot) for _ in specs]
    planned = _planned(specs)
    rest = [i for i in range(len(specs)) if i not in planned]
    # the planned measures' walk, then the others replicate by replicate: each moves the bar
    meter = _progress.bar(progress, n_boot * max(1, bool(planned) + bool(rest)), _desc(specs), "replicates")
    with meter:
        if planned:
            plans = [_plan_of(specs[i]) for i in planned]
            plan, where = plan_stats(plans)
            k = len(plan) // 2
            sc, pos, neg = (np.ascontiguousarray(a, np.float64) for a in (h.scores, h.pos, h.neg))
            for r0, r1 in _chunks(n_boot, meter):
                st = np.frombuffer(
                    _native.boot_hist_multi(sc, pos, neg, plan, seed, r0, r1, threads), np.float64
                ).reshape(r1 - r0, k, REP_WIDTH)
                for i, vals in zip(planned, finish_plans(plans, where, st), strict=True):
                    outs[i][r0:r1] = vals
        if rest:
            _hist_generic(specs, rest, h, seed, n_boot, threads, outs, meter)
    return outs


def _hist_generic(
    specs: list, rest: list[int], h, seed: int, n_boot: int, threads: int, outs: list, meter: Any
) -> None:
    """The measures without a plan on each replicate's summary (drawn compactly, its drawn cells
    only), the replicates spread over the threads, the bar moved after each chunk of them.
    """
    pos, neg = (np.ascontiguousarray(a, np.float64) for a in (h.pos, h.neg))

    def one(r: int) -> None:  # the draws run without the GIL: replicates overlap on the cores
        cells, p, q = (
            np.frombuffer(b, t)
            for b, t in zip(
                _native.boot_hist_draws(pos, neg, seed, r, r + 1, True),
                (np.int64, np.float64, np.float64),
                strict=True,
            )
        )
        rep = ScoreHistogram(h.scores[cells], p, q)
        with np.errstate(all="ignore"):  # thread-local
            for i in rest:
                v = specs[i](rep)
                outs[i][r] = math.nan if v is None else float(v)

    with warnings.catch_warnings():  # set here, in this thread, around all the workers
        warnings.simplefilter("ignore")
        with ThreadPoolExecutor(threads) as pool:
            for r0, r1 in _chunks(n_boot, meter):
                list(pool.map(one, range(r0, r1)))


def row_replicates(
    specs_and_sorted,
    cls: np.ndarray,
    w: np.ndarray | None,
    seed: int,
    n_boot: int,
    threads: int,
    progress: bool = False,
) -> list[np.ndarray]:
    """Replicates with case-level Poisson(1) weights, the same weights for every (spec, sorted) pair.

    The measures with a plan are finished together from each replicate's statistics, every score
    column in one compiled walk on the same draws (a case's draw depends on its number, not on a
    column's order); the others are computed on each replicate's summary.
    """
    outs = [np.empty(n_boot) for _ in specs_and_sorted]
    u8 = cls.astype(np.uint8)
    wbuf = None if w is None else np.ascontiguousarray(w, np.float64)
    planned = _planned([sp for sp, _ in specs_and_sorted], wbuf)
    columns: dict[int, tuple[Any, list[int]]] = {}  # each score column with its planned pairs
    for i in planned:
        so = specs_and_sorted[i][1]
        columns.setdefault(id(so), (so, []))[1].append(i)
    cols = list(columns.values())
    specs = list(dict.fromkeys(sp for sp, _ in specs_and_sorted))
    others = [i for i in range(len(specs_and_sorted)) if i not in set(planned)]
    # each compiled call's replicates, then the others' one by one: each moves the bar
    calls = -(-len(cols) // MAX_COLUMNS) + bool(others)
    meter = _progress.bar(progress, n_boot * max(1, calls), _desc(specs), "replicates")
    with meter:
        for c0 in range(0, len(cols), MAX_COLUMNS):
            group = cols[c0 : c0 + MAX_COLUMNS]
            # every measure of the group's columns, on each: one plan for the call
            uniq = list(dict.fromkeys(specs_and_sorted[i][0] for _, idx in group for i in idx))
            plans = [_plan_of(sp) for sp in uniq]
            plan, where = plan_stats(plans)
            k = len(plan) // 2
            models = [(so.order, so.gend, so.gscores) for so, _ in group]
            for r0, r1 in _chunks(n_boot, meter):
                got = _native.boot_rows_multi(u8, wbuf, plan, seed, r0, r1, threads, *models)
                for (_so, idx), buf in zip(group, got if isinstance(got, tuple) else (got,), strict=True):
                    st = np.frombuffer(buf, np.float64).reshape(r1 - r0, k, REP_WIDTH)
                    by_spec = dict(zip(uniq, finish_plans(plans, where, st), strict=True))
                    for i in idx:
                        outs[i][r0:r1] = by_spec[specs_and_sorted[i][0]]
        if others:
            n = len(cls)
            step = max(1, CHUNK_CELLS // max(1, n))
            for r0 in range(0, n_boot, step):
                r1 = min(n_boot, r0 + step)
                P = np.frombuffer(_native.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)
                for r in range(r1 - r0):
                    cw = P[r] if w is None else P[r] * w
                    pw = cw * cls
                    nw = cw - pw
                    for i in others:
                        sp, so = specs_and_sorted[i]
                        outs[i][r0 + r] = value(sp, so.histogram(pw, nw))
                    meter.update(1)
    return outs


# -- the generic jackknife (the BCa acceleration) ----------------------------------------------------


def jack_groups(spec, cases: Cases, threads: int = 0) -> np.ndarray:
    """Delete-a-group jackknife over JACK_GROUPS groups of cases (case i in group i mod G)."""
    return jack_groups_many([spec], cases, threads)[0]


def _jack_parts(cases: Cases):
    cls, sorted_ = cases.cls, cases.sorted
    G = min(JACK_GROUPS, len(cls))
    w = np.ones(len(cls)) if cases.w is None else cases.w
    wp, wn = w * cls, w * ~cls
    full_p = np.bincount(sorted_.cell, weights=wp, minlength=len(sorted_.scores))
    full_n = np.bincount(sorted_.cell, weights=wn, minlength=len(sorted_.scores))

    def left_out(g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cells' weights without group g, and the cells the group's cases were in."""
        cells = sorted_.cell[g::G]
        p, q = full_p.copy(), full_n.copy()
        np.subtract.at(p, cells, wp[g::G])
        np.subtract.at(q, cells, wn[g::G])
        return p, q, cells

    return G, left_out


def jack_groups_many(specs: list, cases: Cases, threads: int = 0, progress: bool = False) -> list[np.ndarray]:
    """The delete-a-group jackknife of several measures: the measures with a plan finished together
    by one compiled walk over the cells for several left-out groups at once, the others computed on
    each left-out summary.
    """
    G = min(JACK_GROUPS, len(cases.cls))
    outs = [np.empty(G) for _ in specs]
    if G == 0:  # no case (none given, or every weight 0): no group to leave out, no value
        return outs
    memo = _memo_of(cases) if _MEMO is not None else None
    todo = [i for i, sp in enumerate(specs) if memo is None or sp.label not in memo]
    for i, sp in enumerate(specs):
        if memo is not None and sp.label in memo:
            outs[i][:] = memo[sp.label]
    planned = [i for i in _planned(specs, cases.w) if i in todo]
    rest = [i for i in todo if i not in planned]
    meter = _progress.bar(progress, G, "jackknife " + ", ".join(sp.label for sp in specs), "groups")
    with meter:
        if planned:
            so = cases.sorted
            plans = [_plan_of(specs[i]) for i in planned]
            plan, where = plan_stats(plans)
            wbuf = None if cases.w is None else np.ascontiguousarray(cases.w, np.float64)
            col = (so.order, so.gend, so.gscores)
            u8 = cases.cls.astype(np.uint8)
            st = np.frombuffer(
                _native.jack_multi(u8, wbuf, plan, G, threads_of(threads), col), np.float64
            ).reshape(G, -1, REP_WIDTH)
            for i, v in zip(planned, finish_plans(plans, where, st), strict=True):
                outs[i][:] = v
            if not rest:
                meter.update(G)
        if rest:
            _, left_out = _jack_parts(cases)
            sc = np.ascontiguousarray(cases.sorted.scores, np.float64)

            def one(g: int) -> None:
                p, q, cells = left_out(g)
                np.maximum(p, 0.0, out=p)
                np.maximum(q, 0.0, out=q)
                # only the group's cells can empty
                emptied = np.unique(cells[(p[cells] <= 0) & (q[cells] <= 0)])
                s2, p2, q2 = sc, p, q
                if emptied.size:
                    s2, p2, q2 = np.delete(sc, emptied), np.delete(p, emptied), np.delete(q, emptied)
                rep = ScoreHistogram(s2, p2, q2)
                with np.errstate(all="ignore"):
                    for i in rest:
                        v = specs[i](rep)
                        outs[i][g] = math.nan if v is None else float(v)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with ThreadPoolExecutor(threads_of(threads)) as pool:
                    for _ in pool.map(one, range(G)):
                        meter.update(1)
        if not todo:
            meter.update(G)
    if memo is not None:
        memo.update({specs[i].label: outs[i] for i in todo})
    return outs


#: the jackknifes of a `shared_jackknife` block, by the cases' fingerprint and the spec's label
_MEMO: dict[bytes, dict[str, np.ndarray]] | None = None


@contextmanager
def shared_jackknife() -> Iterator[None]:
    """Within the block, a jackknife of the same cases and measure is computed once: the report
    asks each model's for its interval, then again for each comparison.
    """
    global _MEMO
    old, _MEMO = _MEMO, {}
    try:
        yield
    finally:
        _MEMO = old


def _memo_of(cases: Cases) -> dict[str, np.ndarray]:
    h = hashlib.blake2b(digest_size=16)
    for a in (cases.y, cases.s, cases.w):
        h.update(b"-" if a is None else np.ascontiguousarray(a).view(np.uint8).tobytes())
        h.update(b"|" + str(None if a is None else a.dtype).encode())
    assert _MEMO is not None
    return _MEMO.setdefault(h.digest(), {})


# -- group resampling --------------------------------------------------------------------------------


def group_parts(spec, cases: Cases) -> tuple[float, np.ndarray, np.ndarray]:
    """(estimate, per-group values, aggregation weights) of a measure, groups in a fixed order (a
    regression measure: of a regression target, weighted by the case weights as evaluate() weighs
    it).
    """
    est, vals, agg, _ = group_evaluated(spec, cases)
    return est, vals, agg


def group_evaluated(spec, cases: Cases) -> tuple[float, np.ndarray, np.ndarray, Any]:
    """:func:`group_parts` and evaluate()'s result of the measure over the groups (its
    ``undefined`` groups and each one's reason, ``undefined_groups_why``, as evaluate says them).
    """
    from perfeval.api.evaluation import evaluate

    assert cases.groups is not None
    keys, codes = group_codes(cases.groups)
    kind = spec.measure.kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(
            cases.y,
            cases.s,
            measures=[spec],
            groups=cases.groups,
            sample_weight=cases.w if kind in ("binary", "regression") else None,
            task="regression" if kind == "regression" else None,
        )
    res = r.results[spec.label]
    vals = np.asarray(res.per_group, np.float64)
    sizes = np.bincount(codes, minlength=len(keys)).astype(np.float64)
    agg = sizes if spec.measure.aggregate == "weighted" else np.ones(len(keys))
    return float(res.value), vals, agg, res


def group_weights(n_groups: int, seed: int, r0: int, r1: int) -> np.ndarray:
    """Poisson(1) weights of the groups in replicates r0..r1 - 1 (one row a replicate)."""
    return np.frombuffer(_native.poisson_rows(n_groups, seed, r0, r1), np.float64).reshape(r1 - r0, n_groups)


def group_replicates(vals_list, agg, seed: int, n_boot: int) -> list[np.ndarray]:
    """Poisson(1) weight per group (the same for every model); a replicate is the weighted mean."""
    G = len(agg)
    outs = [np.empty(n_boot) for _ in vals_list]
    step = max(1, CHUNK_CELLS // max(1, G))
    for r0 in range(0, n_boot, step):
        r1 = min(n_boot, r0 + step)
        P = group_weights(G, seed, r0, r1) * agg
        for out, vals in zip(outs, vals_list, strict=True):
            ok = ~np.isnan(vals)
            with np.errstate(all="ignore"):
                if np.isfinite(vals[ok]).all():
                    num = P[:, ok] @ vals[ok]
                else:  # an infinite group value counts only in replicates that drew its group
                    num = np.where(P[:, ok] > 0, P[:, ok] * vals[ok], 0.0).sum(axis=1)
                den = P[:, ok].sum(axis=1)
                out[r0:r1] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return outs


def jack_group_values(vals: np.ndarray, agg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-group-out means of the defined per-group values (and unit multiplicities)."""
    ok = ~np.isnan(vals)
    v, a = vals[ok], agg[ok]
    tot, num = a.sum(), (a * v).sum()
    with np.errstate(all="ignore"):
        return (num - a * v) / (tot - a), np.ones(len(v))
