"""LabelSummary: the exact, mergeable summary every multilabel measure is finished from.

A multilabel data set is n cases, each with K labels on or off (an (n, K) 0/1 matrix) and one score
a label.  Its summary holds one binary :class:`~perfeval.summaries.ScoreHistogram` a label (the
per-label and micro-averaged ROC area, AP, precision, recall, F and Hamming loss read them; the micro
problem is their merge), the exact sums of the per-row ranking measures (label ranking average
precision, coverage error, ranking loss: :class:`~perfeval.measures.multilabel.RowSums`), and for each
threshold asked the weight of the rows by their (tp, fp, fn) counts at it (the sample-averaged
measures and the subset accuracy read them: a row's value depends only on its three counts).

Everything merges (histograms by sorted union, sums exactly, row tables by key), so memory, a
stream, Dask and :class:`perfeval.Metric` give the same numbers.  Rows added batch by batch in their
order (:meth:`LabelSummary.folded`) give the bits of one summary of all the rows, weights too: each
label's histogram folds as a binary one does (:func:`perfeval.summaries.histogram.folded`), the row
sums are exact whole numbers, and each row table entry adds its rows' weights in row order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.summaries.histogram import ScoreHistogram, cells, folded
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
    kernels : dict of str -> callable, optional
        The per-row functions of the ``ranked`` sums (``{"lrap": lrap_rows}``), which
        :meth:`folded` applies to the rows it adds (kept through :meth:`merge` and :meth:`folded`).
    """

    __slots__ = ("labels", "hists", "ranked", "rows", "kernels", "_memo")

    def __init__(
        self,
        labels: tuple,
        hists: list[ScoreHistogram],
        ranked: dict[str, RowSums],
        rows: dict[float, tuple[np.ndarray, np.ndarray]],
        kernels: dict[str, Any] | None = None,
    ):
        self.labels = tuple(labels)
        self.hists = list(hists)
        self.ranked = dict(ranked)
        self.rows = dict(rows)
        self.kernels = dict(kernels or {})
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
        return cls(labels, hists, sums, rows, ranked)

    @classmethod
    def empty(
        cls, labels: tuple, thresholds: tuple[float, ...] = (0.5,), ranked: dict[str, Any] | None = None
    ) -> LabelSummary:
        """The summary of no rows (what :meth:`folded` starts from): the arguments of :meth:`from_checked`."""
        k = len(labels)
        return cls.from_checked(
            np.zeros((0, k), dtype=bool), np.zeros((0, k)), None, tuple(labels), thresholds, ranked
        )

    def folded(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> LabelSummary:
        """The summary with a batch of checked rows (as :meth:`from_checked` takes them) added after
        this one's, every sum in row order as :meth:`from_checked` adds it over all the rows at once:
        each label's histogram folded as a binary one is (:func:`~perfeval.summaries.histogram.folded`),
        the row sums exactly, each row table entry's weight added row after row.  Batches folded in
        their order give the bits of one summary of all their rows, weights too.
        """
        if w is not None and not w.all():
            keep = w > 0
            y, s, w = y[keep], s[keep], w[keep]
        y = np.asarray(y, dtype=bool)
        if not len(y):
            return self
        if y.shape[1] != self.k:
            raise InvalidParameterError(
                f"rows of {y.shape[1]} labels cannot be folded into a summary of {self.k}"
            )
        hists = [
            folded(h, [cells(y[:, j].copy(), np.ascontiguousarray(s[:, j]), w)])
            for j, h in enumerate(self.hists)
        ]
        ranked = {name: self.ranked[name] + row_sums(self.kernels[name](y, s), w) for name in self.ranked}
        rows = {t: _table_folded(table, y, s, w, t) for t, table in self.rows.items()}
        return LabelSummary(self.labels, hists, ranked, rows, self.kernels)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSummary):
            return NotImplemented
        return (
            self.labels == other.labels
            and all(a == b for a, b in zip(self.hists, other.hists, strict=True))
            and self.ranked == other.ranked
            and self.rows.keys() == other.rows.keys()
            and all(
                np.array_equal(self.rows[t][0], other.rows[t][0])
                and np.array_equal(self.rows[t][1], other.rows[t][1])
                for t in self.rows
            )
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LabelSummary(labels={list(self.labels)}, weight={self.total:g})"

    def merge(self, other: LabelSummary) -> LabelSummary:
        """The summary of both data sets (the same labels and thresholds)."""
        if (
            other.labels != self.labels
            or set(other.rows) != set(self.rows)
            or set(other.ranked) != set(self.ranked)
        ):
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
            self.kernels or other.kernels,
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
    def n_class(self) -> np.ndarray:
        """The weight of the rows where each label is on (its support)."""
        return self.memo("n_class", lambda: np.array([h.n_pos for h in self.hists], dtype=np.float64))

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
    if not len(y):
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    key = row_keys(y, s, t)
    keys, inv = np.unique(key, return_inverse=True)
    return keys, np.bincount(inv.reshape(-1), weights=w, minlength=len(keys)).astype(np.float64)


def row_keys(y: np.ndarray, s: np.ndarray, t: float) -> np.ndarray:
    """Each row's (tp, fp, fn) at threshold ``t``, coded as :class:`LabelSummary` codes them."""
    p = s >= t
    tp = np.count_nonzero(y & p, axis=1).astype(np.int64)
    fp = np.count_nonzero(~y & p, axis=1).astype(np.int64)
    fn = np.count_nonzero(y & ~p, axis=1).astype(np.int64)
    b = y.shape[1] + 1
    return (tp * b + fp) * b + fn


def _table_folded(
    table: tuple[np.ndarray, np.ndarray], y: np.ndarray, s: np.ndarray, w: np.ndarray | None, t: float
) -> tuple[np.ndarray, np.ndarray]:
    """A row table with the rows of a batch added: each key's weight the table's, then the batch's
    rows' one after the other in row order (a stable sort keeps them so, and a bincount adds in
    the order it reads), as :func:`_row_table` adds them over all the rows at once.
    """
    keys, weights = table
    key = row_keys(y, s, t)
    both = np.concatenate((keys, key))
    order = np.argsort(both, kind="stable")
    merged = both[order]
    new = np.empty(len(merged), dtype=bool)
    new[:1] = True
    np.not_equal(merged[1:], merged[:-1], out=new[1:])
    run = np.cumsum(new, dtype=np.intp) - 1
    ws = np.concatenate((weights, np.ones(len(key)) if w is None else w))[order]
    return merged[new], np.bincount(run, weights=ws, minlength=int(run[-1]) + 1)
