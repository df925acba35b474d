"""The fast paths of the statistics, one table keyed by measure.

Any measure gets a bootstrap interval the generic way: its value on each replicate's summary, and a
delete-a-group jackknife for the BCa acceleration (:mod:`perfeval.stats.replicates`).  A measure
with a closed form can do better, and says so here, in one entry of :data:`FAST_PATHS` (canonical
measure name -> :class:`FastPaths`); :func:`perfeval.stats.ci`, :func:`perfeval.stats.compare` and
the replicate engines look the entry up and take whatever it offers:

* a compiled replicate kernel from a summary (Poisson(count) draws per cell, drawn and finished in
  one pass, several replicates side by side on all cores);
* a compiled replicate kernel from case-level Poisson(1) weights (several score columns on the same
  draws);
* an exact jackknife, from a summary (leave one case of each (cell, class) out) and per case;
* DeLong's exact variance: an interval from a summary and a paired test from the cases.

Today the ROC area has every one of them.  Adding a fast path for another measure is one entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval.stats.delong import (
    DeLongComparison,
    DeLongResult,
    case_components,
    components,
    delong_from_histogram,
    delong_test,
)

__all__ = ["FAST_PATHS", "FastPaths", "fast_paths"]


@dataclass(frozen=True)
class FastPaths:
    """What a measure offers beyond the generic bootstrap (None: not offered).

    Attributes
    ----------
    hist_replicates : callable, optional
        ``(summary, seed, n_boot, threads) -> values``: the replicates of unweighted cases, drawn as
        Poisson(count) per cell of the exact summary, the same draws as the generic engine's.
    row_replicates : callable, optional
        ``(sorted columns, 0/1 classes as uint8, weights or None, seed, n_boot, threads) -> [values
        per column]``: replicates from case-level Poisson(1) weights, the same weights for every
        column (at most ``rows_batch`` columns a call).
    rows_batch : int
        How many score columns ``row_replicates`` takes at once.
    jack_summary : callable, optional
        ``summary -> (values, multiplicities)``: the exact leave-one-out values of unweighted cases.
    jack_cases : callable, optional
        ``cases -> values``: the exact leave-one-out value of each case, in case order (weighted
        cases: the whole case).
    delong : callable, optional
        ``(summary, level) -> DeLongResult``: DeLong's interval.
    delong_test : callable, optional
        ``(y, score_a, score_b, weights or None, level) -> DeLongComparison``: DeLong's paired test.
    """

    hist_replicates: Callable[[Any, int, int, int], np.ndarray] | None = None
    row_replicates: Callable[..., list[np.ndarray]] | None = None
    rows_batch: int = 1
    jack_summary: Callable[[Any], tuple[np.ndarray, np.ndarray]] | None = None
    jack_cases: Callable[[Any], np.ndarray] | None = None
    delong: Callable[[Any, float], DeLongResult] | None = None
    delong_test: Callable[[Any, Any, Any, Any, float], DeLongComparison] | None = None


# -- the ROC area ------------------------------------------------------------------------------------


def roc_hist_replicates(h: Any, seed: int, n_boot: int, threads: int) -> np.ndarray:
    """ROC areas of Poisson(count) replicates of a summary, drawn and finished in one compiled pass."""
    from perfeval import _x87

    return np.frombuffer(_x87.boot_hist_auc(h.pos, h.neg, seed, 0, n_boot, threads), np.float64)


def roc_row_replicates(
    cols: list[Any], u8: np.ndarray, wbuf: np.ndarray | None, seed: int, n_boot: int, threads: int
) -> list[np.ndarray]:
    """ROC areas of one or two sorted score columns on the same case-level Poisson(1) weights, in
    the compiled pass.
    """
    from perfeval import _x87

    extra = (cols[1].order, cols[1].gend) if len(cols) == 2 else ()
    res = _x87.boot_rows_auc(cols[0].order, cols[0].gend, u8, wbuf, seed, 0, n_boot, threads, *extra)
    res = res if isinstance(res, tuple) else (res,)
    return [np.frombuffer(b, np.float64) for b in res]


def jack_roc_hist(h: Any) -> tuple[np.ndarray, np.ndarray]:
    """Exact leave-one-out ROC areas, one per (cell, class), with multiplicities: leaving out a case
    takes its structural component (DeLong's V10 or V01) out of the area.
    """
    v10, v01, m, n = components(h.pos, h.neg)
    auc = float(h.pos @ v10) / m
    with np.errstate(all="ignore"):
        jp = (auc * m - v10) / (m - 1.0)
        jn = (auc * n - v01) / (n - 1.0)
    return np.r_[jp, jn], np.r_[h.pos, h.neg]


def jack_roc_rows(cases: Any) -> np.ndarray:
    """Exact leave-one-out ROC areas, one per case in case order (weighted cases: the whole case)."""
    auc, comp, m, n = case_components(cases.cls, cases.s, cases.w)
    w = 1.0 if cases.w is None else cases.w
    with np.errstate(all="ignore"):
        return np.where(cases.cls, (auc * m - w * comp) / (m - w), (auc * n - w * comp) / (n - w))


def roc_delong_test(y: Any, a: Any, b: Any, w: Any, level: float) -> DeLongComparison:
    return delong_test(y, a, b, sample_weight=w, level=level)


# -- the table ---------------------------------------------------------------------------------------

#: canonical measure name -> its fast paths
FAST_PATHS: dict[str, FastPaths] = {
    "ROC": FastPaths(
        hist_replicates=roc_hist_replicates,
        row_replicates=roc_row_replicates,
        rows_batch=2,
        jack_summary=jack_roc_hist,
        jack_cases=jack_roc_rows,
        delong=delong_from_histogram,
        delong_test=roc_delong_test,
    ),
}

NONE = FastPaths()


def fast_paths(spec: Any) -> FastPaths:
    """The fast paths of a measure spec's measure (an empty record when it has none)."""
    return FAST_PATHS.get(spec.measure.name, NONE)
