"""LabelSummary: the exact, mergeable summary every multilabel measure is finished from.

A multilabel data set is n cases, each with K labels on or off (an (n, K) 0/1 matrix) and one score
a label.  Its summary holds one binary :class:`~perfeval.summaries.ScoreHistogram` a label (the
per-label and micro-averaged ROC area, AP, precision, recall, F and Hamming loss read them; the micro
problem is their merge), the exact sums of the per-row ranking measures (label ranking average
precision, coverage error, ranking loss: :class:`~perfeval.measures.multilabel.RowSums`), and for each
threshold asked the weight of the rows by their (tp, fp, fn) counts at it (the sample-averaged
measures and the subset accuracy read them: a row's value depends only on its three counts).

Everything merges (histograms by sorted union, sums exactly, row tables by key), so memory, a
stream, Dask and :class:`perfeval.Metric` give the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.summaries.histogram import ScoreHistogram
from perfeval.summaries.rowsums import RowSums, row_sums

__all__ = ["LabelSummary"]


class LabelSummary:
    """The summary of a multilabel data set (see the module's docstring).

    Parameters
    ----------
    labels : tuple
        The K label names, in the order of the columns.
    hists : list of ScoreHistogram
        One a label: its column's scores, positive where the label is on.
    ranked : dict of str -> RowSums
        The exact sums of the per-row ranking measures (``lrap``, ``coverage``, ``ranking_loss``).
    rows : dict of float -> (keys, weights)
        For each threshold: the distinct (tp, fp, fn) of the rows, coded ``(tp * (K + 1) + fp) *
        (K + 1) + fn`` (sorted), and their total weight.
    """

    __slots__ = ("labels", "hists", "ranked", "rows", "_memo")

    def __init__(
        self,
        labels: tuple,
        hists: list[ScoreHistogram],
        ranked: dict[str, RowSums],
        rows: dict[float, tuple[np.ndarray, np.ndarray]],
    ):
        self.labels = tuple(labels)
        self.hists = list(hists)
        self.ranked = dict(ranked)
        self.rows = dict(rows)
        self._memo: dict[Any, Any] = {}
        if len(self.hists) != len(self.labels):
            raise InvalidParameterError("a LabelSummary needs one histogram a label")

    @classmethod
    def from_checked(
        cls,
        y: np.ndarray,
        s: np.ndarray,
        w: np.ndarray | None,
        labels: tuple,
        thresholds: tuple[float, ...] = (0.5,),
        ranked: dict[str, Any] | None = None,
    ) -> LabelSummary:
        """The summary of a checked 0/1 (bool) matrix ``y``, an (n, K) float64 score matrix without
        NaN and finite weights >= 0 (or None); a row of weight 0 is no row at all.  ``ranked``: the
        per-row measures whose exact sums to hold, by name (``{"lrap": lrap_rows}``: each a
        function of (y, s) giving one value a row; the measures' own kernels, passed by the engine).
        """
        if w is not None and not w.all():
            keep = w > 0
            y, s, w = y[keep], s[keep], w[keep]
        y = np.asarray(y, dtype=bool)
        k = y.shape[1]
        hists = [
            ScoreHistogram.from_checked(y[:, j].copy(), np.ascontiguousarray(s[:, j]), w) for j in range(k)
        ]
        sums = {
            name: row_sums(f(y, s), w) if len(y) else row_sums(np.zeros(0), None)
            for name, f in (ranked or {}).items()
        }
        rows = {float(t): _row_table(y, s, w, float(t)) for t in thresholds}
        return cls(labels, hists, sums, rows)

    def merge(self, other: LabelSummary) -> LabelSummary:
        """The summary of both data sets (the same labels and thresholds)."""
        if other.labels != self.labels or set(other.rows) != set(self.rows):
            raise InvalidParameterError("summaries of different labels or thresholds cannot be merged")
        rows = {}
        for t, (ka, wa) in self.rows.items():
            kb, wb = other.rows[t]
            keys, inv = np.unique(np.concatenate((ka, kb)), return_inverse=True)
            rows[t] = (
                keys,
                np.bincount(inv.reshape(-1), weights=np.concatenate((wa, wb)), minlength=len(keys)),
            )
        return LabelSummary(
            self.labels,
            [a.merge(b) for a, b in zip(self.hists, other.hists, strict=True)],
            {name: self.ranked[name] + other.ranked[name] for name in self.ranked},
            rows,
        )

    __add__ = merge

    @property
    def k(self) -> int:
        return len(self.labels)

    @property
    def classes(self) -> tuple:
        """The labels (the name the per-class values of every task read)."""
        return self.labels

    @property
    def total(self) -> float:
        """The total weight of the rows."""
        return self.memo(
            "total", lambda: float(self.hists[0].n_pos + self.hists[0].n_neg) if self.hists else 0.0
        )

    def memo(self, key: Any, make: Any) -> Any:
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def micro(self) -> ScoreHistogram:
        """Every (row, label) cell as one binary problem."""
        return self.memo("micro", lambda: ScoreHistogram.merge_all(self.hists))

    def counts(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(tp, fn, fp, tn) of each label with a score >= ``threshold`` predicted on."""

        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            c = np.array([h.counts_at(threshold) for h in self.hists], dtype=np.float64).reshape(-1, 4)
            return c[:, 0], c[:, 1], c[:, 2], c[:, 3]

        return self.memo(("counts", float(threshold)), make)

    def row_counts(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(tp, fp, fn, weight) of the distinct rows at ``threshold`` (a threshold the summary holds)."""
        if float(threshold) not in self.rows:
            raise InvalidParameterError(
                f"this summary holds the rows at thresholds {sorted(self.rows)}, not at {threshold}"
            )
        keys, weights = self.rows[float(threshold)]
        b = self.k + 1
        return keys // (b * b), (keys // b) % b, keys % b, weights


def _row_table(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, t: float) -> tuple[np.ndarray, np.ndarray]:
    """The rows' weight by their (tp, fp, fn) at threshold ``t`` (a score >= t predicted on)."""
    k = y.shape[1]
    if not len(y):
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    p = s >= t
    tp = np.count_nonzero(y & p, axis=1).astype(np.int64)
    fp = np.count_nonzero(~y & p, axis=1).astype(np.int64)
    fn = np.count_nonzero(y & ~p, axis=1).astype(np.int64)
    b = k + 1
    key = (tp * b + fp) * b + fn
    keys, inv = np.unique(key, return_inverse=True)
    return keys, np.bincount(inv.reshape(-1), weights=w, minlength=len(keys)).astype(np.float64)
