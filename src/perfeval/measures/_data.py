"""The per-group view of every group at once, which the per-group forms of the measures read:
the rows with their group codes (:class:`GroupedData`), each group's histogram (distinct scores with
their positive and negative weight, :func:`histograms`) and the groups' tie table (:func:`tie_table`).

The rank, bin and calibration forms read only the histograms and the tie table, never the rows, so a
group known only by its summary (perfeval.stream, a group over the memory budget) gets the same bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class GroupedData:
    """Rows with their group code; ``w`` is the weight of each row (1 when unweighted)."""

    def __init__(self, codes: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, n_groups: int):
        self.codes, self.y, self.s, self.G = codes, y.astype(np.float64, copy=False), s, n_groups
        self.w = np.ones(len(s)) if w is None else w
        self.weighted = w is not None
        self._ranking: Any = None  # the groups' TieTable, made on first use
        self._hist: Any = None  # the groups' histograms (see _histograms)

    def sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes, weights=values, minlength=self.G)

    def counts(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        pred = self.s >= threshold
        wp, wn = self.w * self.y, self.w * (1.0 - self.y)
        tp, fp = self.sum(wp * pred), self.sum(wn * pred)
        P, N = self.sum(wp), self.sum(wn)
        return tp, P - tp, fp, N - fp


def histograms(gd: GroupedData):
    """(scores, pos, neg, bounds): every group's ScoreHistogram as slices of three arrays."""
    if getattr(gd, "_hist", None) is None:
        order = np.lexsort((gd.s, gd.codes))
        c, sc, yy, ww = gd.codes[order], gd.s[order] + 0.0, gd.y[order], gd.w[order]
        new = np.ones(len(sc), dtype=bool)
        new[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
        starts = np.flatnonzero(new)
        pos = np.add.reduceat(ww * yy, starts) if len(starts) else np.zeros(0)
        neg = np.add.reduceat(ww * (1 - yy), starts) if len(starts) else np.zeros(0)
        bounds = np.searchsorted(c[starts], np.arange(gd.G + 1))
        gd._hist = (sc[starts], pos, neg, bounds)
    return gd._hist


# -- rank and bin measures: from each group's summary (unweighted; weighted ones loop) ---------------
# Every kernel below reads the groups' histograms (distinct scores with their counts), never the rows,
# so a group known only by its summary (perfeval.stream, a group over the memory budget) gets the
# same bits as in memory.
def tie_table(gd: GroupedData):
    """The groups' TieTable (ties highest score first, keys the group codes), or None with weights."""
    if gd.weighted:
        return None
    if gd._ranking is None:
        from perfeval.summaries.ranking import TieTable

        _sc, pos, neg, bounds = histograms(gd)
        gd._ranking = TieTable.from_histograms(pos, neg, bounds)
    return gd._ranking


def hist_sum(gd: GroupedData, term) -> np.ndarray:
    """Per-group sums over each group's summary (distinct scores with their positive and negative
    weight), in score order: the same terms, in the same order, as the measure over one summary,
    whatever the order of the rows (a shuffle, a spill).
    """
    sc, pos, neg, bounds = histograms(gd)
    codes = np.repeat(np.arange(gd.G), np.diff(bounds))
    return np.bincount(codes, weights=term(sc, pos, neg), minlength=gd.G)


def group_sizes(gd: GroupedData) -> np.ndarray:
    return hist_sum(gd, lambda s, p, q: p + q)
