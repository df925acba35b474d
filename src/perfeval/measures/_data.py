"""The per-group view of every group at once, which the per-group forms of the measures read:
the rows with their group codes (:class:`GroupedData`), each group's histogram (distinct scores with
their positive and negative weight, :func:`histograms`) and the groups' tie table (:func:`tie_table`).

The rank, bin and calibration forms read only the histograms and the tie table, never the rows, so a
group known only by its summary (perfeval.backends.stream, a group over the memory budget) gets the same bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval import _native
from perfeval.summaries.ranking import TieTable, lexsorted

# Start-up: concurrent.futures is imported where the sums run on threads (evaluate() of one
# measure does not load it).


class GroupedData:
    """Rows with their group code; ``w`` is the weight of each row (1 when unweighted).

    Weighted rows must come in one canonical order (group, score, target, weight; see
    :meth:`from_rows`), so that sums in row order have the same bits whatever order the rows came
    in.  Unweighted rows may come in any order: every sum over them is a count, exact in any order,
    and is read from the groups' histograms.
    """

    def __init__(
        self,
        codes: np.ndarray,
        y: np.ndarray,
        s: np.ndarray,
        w: np.ndarray | None,
        n_groups: int,
    ):
        self.codes, self._y, self.s, self.G = codes, y, s, n_groups
        self.weighted = w is not None
        self._w = w
        self._ranking: Any = None  # the groups' TieTable, made on first use
        self._hist: Any = None  # the groups' histograms (see histograms)

    @classmethod
    def from_rows(
        cls, codes: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, n_groups: int
    ) -> GroupedData:
        """The rows as given when unweighted; weighted, in the canonical order (group, score,
        target, weight), so that a per-group sum in row order gets the same bits for any order.
        """
        if w is None:
            return cls(codes, np.asarray(y), s, None, n_groups)
        y = np.asarray(y, dtype=np.float64)
        canon = lexsorted((w, y, s, codes))
        return cls(codes[canon], y[canon], s[canon], w[canon], n_groups)

    @property
    def y(self) -> np.ndarray:
        """The targets as float64 0/1 (made when first read: unweighted groups need only the
        positives' flags).
        """
        if self._y.dtype != np.float64:
            self._y = self._y.astype(np.float64)
        return self._y

    @property
    def w(self) -> np.ndarray:
        return np.ones(len(self.s)) if self._w is None else self._w

    def sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes, weights=values, minlength=self.G)

    def counts(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not self.weighted:  # whole counts, from the histograms: the rows' bits in any order
            tp, fn, fp, tn = hist_groups(self, "counts", threshold)
            return tp, fn, fp, tn
        pred = self.s >= threshold
        wp, wn = self.w * self.y, self.w * (1.0 - self.y)
        tp, fp = self.sum(wp * pred), self.sum(wn * pred)
        P, N = self.sum(wp), self.sum(wn)
        return tp, P - tp, fp, N - fp


def histograms(gd: GroupedData):
    """(scores, pos, neg, bounds): every group's ScoreHistogram as slices of three arrays."""
    if getattr(gd, "_hist", None) is None:
        if not gd.weighted:  # whole counts: compiled, from the rows in any order
            sc, pos, neg, bounds = _native.group_hist_rows(
                np.ascontiguousarray(gd.codes, np.int64),
                np.ascontiguousarray(gd.s, np.float64),
                np.ascontiguousarray(gd._y == 1, np.uint8),
                gd.G,
            )
            gd._hist = tuple(np.frombuffer(a, np.float64) for a in (sc, pos, neg)) + (
                np.frombuffer(bounds, np.int64),
            )
            return gd._hist
        # weighted rows come sorted by (group, score, target, weight): each (group, score) run summed
        c, sc, yy, ww = gd.codes, gd.s + 0.0, gd.y, gd.w
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
# so a group known only by its summary (perfeval.backends.stream, a group over the memory budget) gets the
# same bits as in memory.
def tie_table(gd: GroupedData):
    """The groups' TieTable (ties highest score first, keys the group codes), or None with weights."""
    if gd.weighted:
        return None
    if gd._ranking is None:
        _sc, pos, neg, bounds = histograms(gd)
        gd._ranking = TieTable.from_histograms(pos, neg, bounds)
    return gd._ranking


#: cells of the groups whose terms hist_sum makes at once (its temporaries: a few arrays of this
#: many float64; the pieces go to two threads)
SUM_CELLS = 1 << 20


def hist_sum(gd: GroupedData, term) -> np.ndarray:
    """Per-group sums over each group's summary (distinct scores with their positive and negative
    weight), in score order: the same terms, in the same order, as the measure over one summary,
    whatever the order of the rows (a shuffle, a spill).  Each group's terms are added one by one
    from 0.0, as np.bincount adds them (compiled: hist_groups "sum").

    The terms are made for whole groups of about SUM_CELLS cells at a time, on two threads (numpy
    and the kernel release the GIL): a term is the same value wherever it is made, and each group
    is summed whole, so the bits do not depend on the pieces; the temporaries stay small.
    """
    sc, pos, neg, bounds = histograms(gd)
    bounds = np.ascontiguousarray(bounds, np.int64)
    G = len(bounds) - 1
    out = np.zeros(G)
    if G == 0:
        return out
    # group cuts near every SUM_CELLS cells (a group larger than that is one piece)
    cuts = np.unique(np.searchsorted(bounds, np.arange(0, int(bounds[-1]), SUM_CELLS), side="right") - 1)
    cuts = np.append(cuts[(cuts > 0) & (cuts < G)], G)
    cuts = np.insert(cuts, 0, 0)

    def piece(k: int) -> None:
        g0, g1 = int(cuts[k]), int(cuts[k + 1])
        a, b = int(bounds[g0]), int(bounds[g1])
        terms = np.ascontiguousarray(term(sc[a:b], pos[a:b], neg[a:b]), dtype=np.float64)
        sums = _native.hist_groups(
            "sum",
            terms,
            np.ascontiguousarray(pos[a:b], np.float64),
            np.ascontiguousarray(neg[a:b], np.float64),
            bounds[g0 : g1 + 1] - a,
            0.0,
        )[0]
        out[g0:g1] = np.frombuffer(sums, np.float64)

    if len(cuts) > 2:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2, thread_name_prefix="perfeval-sum") as pool:
            list(pool.map(piece, range(len(cuts) - 1)))
    else:
        piece(0)
    return out


def hist_groups(gd: Any, op: str, par: float = 0.0) -> tuple[np.ndarray, ...]:
    """A measure's parts for every group from the groups' histograms in one compiled pass
    (csrc/summary.c hist_groups: the numpy expressions' bits), kept on ``gd`` for the next
    measure that asks (the threshold counts of ten measures, RMS's sums for SAR).
    """
    memo = gd.__dict__.setdefault("_memo", {})
    key = (op, float(par))
    if key not in memo:
        sc, pos, neg, bounds = histograms(gd)
        memo[key] = tuple(
            np.frombuffer(b, np.float64)
            for b in _native.hist_groups(
                op,
                np.ascontiguousarray(sc, np.float64),
                np.ascontiguousarray(pos, np.float64),
                np.ascontiguousarray(neg, np.float64),
                np.ascontiguousarray(bounds, np.int64),
                float(par),
            )
        )
    return memo[key]


def group_sizes(gd: GroupedData) -> np.ndarray:
    """Each group's cases (its total weight), summed cell by cell in score order."""
    return hist_groups(gd, "sq")[1]
