"""ScoreHistogram: the exact, mergeable summary every PERF measure is computed from.

The summary of a data set is its distinct scores in ascending order with the positive and the
negative weight at each.  Two summaries merge by a sorted union that adds the weights of equal
scores, so a data set can be summarised in pieces (chunks of a file, partitions of a cluster) and
finished once: the in-memory, streaming and distributed paths then share every line of metric code
and give identical numbers.  Memory grows with the number of distinct scores, not of rows (three
float64 per distinct score).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import (
    check_no_nan,
    check_pair,
    check_weights,
    no_table,
    one_d,
    same_length,
    zero_one,
)
from perfeval.exceptions import InvalidParameterError


def runs(sorted_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of a sorted array and how often each occurs (as float64); -0.0 becomes 0.0."""
    vals, counts = _native.runs(np.ascontiguousarray(sorted_values, dtype=np.float64))
    return np.frombuffer(vals, np.float64), np.frombuffer(counts, np.float64)


def _ascending(x: np.ndarray) -> bool:
    """Whether the float64 scores ``x`` (no NaN) are in ascending order already: a shuffled array is
    told by its first 256 values, in most cases; one in order costs a pass.
    """
    if len(x) < 2:
        return True
    head = x[:256]
    if not bool(np.all(head[1:] >= head[:-1])):
        return False
    return bool(np.all(x[1:] >= x[:-1]))


def checked_cases(
    y_true: Any, y_score: Any, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The checks of :meth:`ScoreHistogram.from_arrays`: (positives as booleans, float64 scores,
    weights or None), or the error of the first thing wrong.
    """
    is_pos = zero_one(y_true)
    s = one_d("y_score", y_score)
    check_pair(is_pos, s)
    check_no_nan(s)
    w = None
    if sample_weight is not None:
        w = one_d("sample_weight", sample_weight)
        same_length("sample_weight", w, len(s))
        check_weights(w, "sample_weight")
    return is_pos, s, w


class ScoreHistogram:
    """Distinct scores (ascending) with the positive and negative weight at each.

    Parameters
    ----------
    scores : ndarray of float64, strictly increasing
    pos, neg : ndarray of float64, same length, non-negative
        Total weight of positive / negative cases at each score.

    Examples
    --------
    >>> h = ScoreHistogram.from_arrays([1, 0, 1, 0], [0.9, 0.2, 0.2, 0.1])
    >>> h.scores.tolist(), h.pos.tolist(), h.neg.tolist()
    ([0.1, 0.2, 0.9], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0])
    >>> a = ScoreHistogram.from_arrays([1, 0], [0.9, 0.2])
    >>> b = ScoreHistogram.from_arrays([1, 0], [0.2, 0.1])
    >>> a.merge(b) == h
    True
    """

    __slots__ = ("_scores", "_pos", "_neg", "_split", "_buf", "_memo")

    _scores: np.ndarray | None
    _pos: np.ndarray | None
    _neg: np.ndarray | None

    def __init__(self, scores: np.ndarray, pos: np.ndarray, neg: np.ndarray):
        self._scores = np.ascontiguousarray(scores, dtype=np.float64)
        self._pos = np.ascontiguousarray(pos, dtype=np.float64)
        self._neg = np.ascontiguousarray(neg, dtype=np.float64)
        self._split: tuple[np.ndarray, np.ndarray] | None = None
        #: the buffer the two halves of _split are views of (smaller class first), its smaller
        #: class's length, whether that class is the positives: merged over itself when read
        self._buf: tuple[np.ndarray, int, bool] | None = None
        #: what the measures read more than once (totals, confusion counts, sums), made on first use:
        #: a summary is not changed once made (its arrays are the measures' input, not a workspace)
        self._memo: dict[Any, Any] = {}
        sc, p, q = self._scores, self._pos, self._neg
        if not (sc.ndim == p.ndim == q.ndim == 1 and len(sc) == len(p) == len(q)):
            raise InvalidParameterError("scores, pos and neg must be 1-D arrays of one length")

    @classmethod
    def _of_split(cls, pos_scores: np.ndarray, neg_scores: np.ndarray) -> ScoreHistogram:
        """The summary of unit cases whose positives' and negatives' scores are given sorted: its
        arrays are made (merged) when first read; ROC and APR are finished from the two halves
        without them (:meth:`split`).
        """
        h = cls.__new__(cls)
        h._scores = h._pos = h._neg = None
        h._split = (pos_scores, neg_scores)
        h._buf = None
        # what the halves say exactly: every cell holds a case, counts are whole, the totals
        h._memo = {
            "canonical": True,
            "is_counts": True,
            "n_pos": float(len(pos_scores)),
            "n_neg": float(len(neg_scores)),
        }
        return h

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._scores is None:
            assert self._split is not None
            if self._buf is not None:  # the halves merged over their own buffer (no third copy)
                buf, m, small_is_pos = self._buf
                self._split = self._buf = None  # the halves are overwritten: nobody reads them again
                cells, pos, neg = _native.hist_merge_inplace(buf, m, small_is_pos)
                # the scores in the buffer's first cells; copied out when far fewer than the rows
                # (many ties), so that the rest of the buffer is given back
                self._scores = buf[:cells] if 2 * cells >= len(buf) else buf[:cells].copy()
                self._pos, self._neg = np.frombuffer(pos, np.float64), np.frombuffer(neg, np.float64)
            else:
                self._scores, self._pos, self._neg = (
                    np.frombuffer(x, np.float64) for x in _native.hist_merge(*self._split)
                )
            self._split = None
        assert self._pos is not None and self._neg is not None
        return self._scores, self._pos, self._neg

    @property
    def scores(self) -> np.ndarray:
        """The distinct scores, ascending (float64)."""
        return self._arrays()[0]

    @property
    def pos(self) -> np.ndarray:
        """The positive weight at each score (float64)."""
        return self._arrays()[1]

    @property
    def neg(self) -> np.ndarray:
        """The negative weight at each score (float64)."""
        return self._arrays()[2]

    def split(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(positives' scores, negatives' scores), each sorted, while the summary of unit cases has
        not been made into its arrays; None once it has (or when it was made from arrays).
        """
        return self._split

    # -- construction -------------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> ScoreHistogram:
        """The summary of no data (the identity of :meth:`merge`)."""
        z = np.zeros(0)
        return cls(z, z, z)

    @classmethod
    def of_cells(
        cls, scores: np.ndarray, pos: np.ndarray, neg: np.ndarray, *, is_counts: bool
    ) -> ScoreHistogram:
        """The summary of cells already canonical (scores increasing, no cell of weight 0), with
        :meth:`is_counts` known (the engine's group-by-group path finds both for every group at once);
        nothing is checked again.
        """
        h = cls(scores, pos, neg)
        h._memo["canonical"] = True
        h._memo["is_counts"] = is_counts
        return h

    @classmethod
    def from_arrays(cls, y_true: Any, y_score: Any, sample_weight: Any = None) -> ScoreHistogram:
        """Summarise cases given as arrays.

        Parameters
        ----------
        y_true : array-like of {0, 1} or bool
            Binary targets.
        y_score : array-like of float
            Scores; must be finite or +-inf (NaN cannot be ranked).
        sample_weight : array-like of float, optional
            Non-negative weight per case (default 1).  A case of weight 0 is left out, exactly as
            if it were not there (no distinct score, no rank, no count).

        Raises
        ------
        InvalidParameterError
            Mismatched lengths, a target other than 0/1, a NaN score, a negative weight.
        """
        no_table("ScoreHistogram.from_arrays()", y_true=y_true, y_score=y_score, sample_weight=sample_weight)
        return cls.from_checked(*checked_cases(y_true, y_score, sample_weight))

    @classmethod
    def from_checked(cls, is_pos: np.ndarray, s: np.ndarray, w: np.ndarray | None = None) -> ScoreHistogram:
        """:meth:`from_arrays` on arrays already checked at the door (:mod:`perfeval.base.checks`):
        booleans of the positives, float64 scores without NaN, finite weights >= 0; nothing is
        checked again.
        """
        if w is not None and not w.all():
            # a case of weight 0 is no case at all: it adds no distinct score, no rank, no count
            keep = w > 0
            s, is_pos, w = s[keep], is_pos[keep], w[keep]
        if len(s) == 0:
            return cls.empty()
        # -0.0 and 0.0 compare equal, so they form one run, kept as +0.0 by runs
        if w is None:
            # unit weights: the positives' and the negatives' scores sorted apart (numpy's vectorised
            # sort, in place on the two copies: one sort of the whole in all), then merged into the
            # summary in one compiled pass (csrc/summary.c, hist_merge)

            flags = np.ascontiguousarray(is_pos, dtype=bool)
            P = int(np.count_nonzero(flags))
            N = len(s) - P
            # one buffer, the smaller class first: the summary's scores are later merged over it
            # (hist_merge_inplace), so the classes' scores cost no array beside the summary's
            buf = np.empty(len(s))
            a, b = (buf[:P], buf[P:]) if P <= N else (buf[N:], buf[:N])
            _native.split_classes(np.ascontiguousarray(s, np.float64), flags.view(np.uint8), a, b)
            # rows given in score order (the slices' shared order, api/slices.py) come split sorted:
            # numpy's sort of an ascending array costs as much as of a shuffled one, so it is skipped
            a_sort, b_sort = (None if _ascending(x) else x.sort for x in (a, b))
            if a_sort is not None and b_sort is not None and len(s) >= 1 << 20:
                # the two sorts on two threads (numpy's sort releases the GIL)
                th = threading.Thread(target=a_sort)
                th.start()
                b_sort()
                th.join()
            else:
                for sort in (a_sort, b_sort):
                    if sort is not None:
                        sort()
            h = cls._of_split(a, b)
            h._buf = (buf, min(P, N), P <= N)
            return h
        # each distinct score's positives' and negatives' weights added in row order from 0.0 (the
        # order folded() keeps for a stream, a Metric, Dask): np.bincount's sums over each row's
        # distinct score of w * is_pos and w - w * is_pos, bit for bit, from a stable radix sort of
        # the rows by score in one compiled pass (csrc/weighted.c; np.searchsorted of every row into
        # the distinct scores was 16 s of CPU for 10M distinct scores)
        sc, p, q = _native.hist_weighted(
            np.ascontiguousarray(s, np.float64),
            np.ascontiguousarray(is_pos, dtype=bool).view(np.uint8),
            np.ascontiguousarray(w, np.float64),
        )
        return cls(np.frombuffer(sc, np.float64), np.frombuffer(p, np.float64), np.frombuffer(q, np.float64))

    # -- the monoid ---------------------------------------------------------------------------------
    def merge(self, other: ScoreHistogram) -> ScoreHistogram:
        """The summary of both data sets: a sorted union adding the weights of equal scores."""
        return ScoreHistogram.merge_all([self, other])

    @staticmethod
    def merge_all(parts: list[ScoreHistogram]) -> ScoreHistogram:
        """Merge any number of summaries at once.

        Each part is sorted, so their concatenation is a few sorted runs, which numpy's stable sort
        merges in linear time; equal scores are then added up.  Any concatenation of summaries is
        valid input (the parts need not be disjoint or in order).
        """
        parts = [p for p in parts if len(p.scores)]
        if not parts:
            return ScoreHistogram.empty()
        if len(parts) == 1 and bool(np.all(parts[0].scores[1:] > parts[0].scores[:-1])):
            return parts[0].canonical()  # strictly increasing scores: drop empty cells only
        sc = np.concatenate([p.scores for p in parts])
        order = np.argsort(sc, kind="stable")
        sc = sc[order]
        pos = np.concatenate([p.pos for p in parts])[order]
        neg = np.concatenate([p.neg for p in parts])[order]
        new = np.empty(len(sc), dtype=bool)
        new[0] = True
        np.not_equal(sc[1:], sc[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        return ScoreHistogram(
            sc[starts] + 0.0, np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)
        ).canonical()

    def canonical(self) -> ScoreHistogram:
        """The summary without its empty cells (a score whose weights are both 0).

        An empty cell is a case of weight 0, and such a case is no case at all: it must not add a
        distinct score, a rank or a count to any measure.  Summaries built by :meth:`from_arrays` and
        :meth:`merge_all` are canonical; a summary made by hand may not be.
        """
        if self._memo.get("canonical"):
            return self
        empty = (self.pos == 0) & (self.neg == 0)
        if not empty.any():
            self._memo["canonical"] = True
            return self
        keep = ~empty
        out = ScoreHistogram(self.scores[keep], self.pos[keep], self.neg[keep])
        out._memo["canonical"] = True
        return out

    def memo(self, key: Any, make: Any) -> Any:
        """``make()``, computed once for this summary (what several measures read)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    __add__ = merge

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreHistogram):
            return NotImplemented
        return (
            np.array_equal(self.scores, other.scores)
            and np.array_equal(self.pos, other.pos)
            and np.array_equal(self.neg, other.neg)
        )

    def __repr__(self) -> str:
        return (
            f"ScoreHistogram(distinct={len(self.scores)}, positives={self.n_pos:g}, negatives={self.n_neg:g})"
        )

    # -- totals -------------------------------------------------------------------------------------
    @property
    def n_pos(self) -> float:
        return self.memo("n_pos", lambda: float(self.pos.sum()))

    @property
    def n_neg(self) -> float:
        return self.memo("n_neg", lambda: float(self.neg.sum()))

    @property
    def n(self) -> float:
        return self.n_pos + self.n_neg

    # -- what the measures read ------------------------------------------------------------------------
    def counts_at(self, threshold: float) -> tuple[float, float, float, float]:
        """(TP, FN, FP, TN) with the cases of score >= ``threshold`` predicted positive."""

        def make() -> tuple[float, float, float, float]:
            k = int(np.searchsorted(self.scores, threshold, side="left"))
            tp = float(self.pos[k:].sum())
            fp = float(self.neg[k:].sum())
            return tp, self.n_pos - tp, fp, self.n_neg - fp

        return self.memo(("counts_at", float(threshold)), make)

    def cumulative(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(thresholds, TP, FP): the distinct scores from the highest, and the positive and negative
        weight with score >= each: one point of the ROC or PR curve per distinct score.
        """
        return self.scores[::-1].copy(), np.cumsum(self.pos[::-1]), np.cumsum(self.neg[::-1])

    def is_counts(self) -> bool:
        """True when every weight is a whole number (unit-weight cases)."""
        return self.memo(
            "is_counts",
            lambda: bool(np.all(self.pos == np.round(self.pos)) and np.all(self.neg == np.round(self.neg))),
        )

    # -- serialisation (summaries travel between processes) ------------------------------------------
    def to_dict(self) -> dict[str, list[float]]:
        return {"scores": self.scores.tolist(), "pos": self.pos.tolist(), "neg": self.neg.tolist()}

    @classmethod
    def from_dict(cls, d: dict[str, list[float]]) -> ScoreHistogram:
        return cls(np.asarray(d["scores"]), np.asarray(d["pos"]), np.asarray(d["neg"]))


# -- batch by batch -----------------------------------------------------------------------------------
#: cases a summary built batch by batch holds as sorted cells before it folds them in (at least; as
#: many as the summary holds when it is larger): a fold sorts the summary's cells with theirs
FOLD_ROWS = 1 << 16

Cells = tuple[np.ndarray, np.ndarray, np.ndarray]


def cells(is_pos: np.ndarray, s: np.ndarray, w: np.ndarray | None = None) -> Cells:
    """A batch of checked cases (:func:`checked_cases`) as cells for :func:`folded`: (scores
    ascending, positive weight, negative weight).  Without weights, the batch's own summary (its
    distinct scores with their counts, whole numbers that any order adds exactly); with weights,
    a cell a case (weight 0: none), a score's cells in row order, so that :func:`folded` adds each
    score's weights in the order :meth:`ScoreHistogram.from_checked` adds them over all the rows.
    """
    if w is None:
        h = ScoreHistogram.from_checked(is_pos, s)
        return h.scores, h.pos, h.neg
    if not w.all():  # a case of weight 0 is no case at all
        keep = w > 0
        s, is_pos, w = s[keep], is_pos[keep], w[keep]
    pos = w * is_pos  # as ScoreHistogram.from_checked weighs a case
    by_score = np.argsort(s, kind="stable")  # a sorted run for folded(); one score's rows in order
    return s[by_score], pos[by_score], (w - pos)[by_score]


def folded(h: ScoreHistogram, pending: list[Cells]) -> ScoreHistogram:
    """``h`` with the cells of ``pending`` added, each distinct score's weight summed in row order
    as :meth:`ScoreHistogram.from_checked` sums it over all the rows at once (a bincount runs
    through its array in order): the one fold of every summary built batch by batch (a
    :class:`perfeval.Metric`, :func:`perfeval.backends.stream.evaluate_stream`).  Every batch's cells are
    sorted by score, stably (:func:`cells`), and so is the summary: a stable sort of the
    concatenation merges these runs, and keeps the cells of each score in the order summary, then
    batches in the order they came, each in row order.
    """
    if not pending:
        return h
    both = np.concatenate([h.scores, *(p[0] for p in pending)])
    order = np.argsort(both, kind="stable")  # sorted runs: merged, not sorted again
    merged = both[order]
    new = np.empty(len(merged), dtype=bool)
    new[:1] = True
    np.not_equal(merged[1:], merged[:-1], out=new[1:])  # -0.0 == 0.0: one score
    run = np.cumsum(new, dtype=np.intp) - 1  # the distinct score of each cell, in merged order
    k = int(run[-1]) + 1 if len(run) else 0
    pos = np.concatenate([h.pos, *(p[1] for p in pending)])[order]
    neg = np.concatenate([h.neg, *(p[2] for p in pending)])[order]
    return ScoreHistogram(
        merged[new] + 0.0,  # a run of -0.0 and 0.0 is 0.0, as ScoreHistogram's runs() keeps it
        np.bincount(run, weights=pos, minlength=k),
        np.bincount(run, weights=neg, minlength=k),
    )


class Fold:
    """A summary built batch by batch: each batch's :func:`cells` kept until they are as many as
    :data:`FOLD_ROWS` or the summary's cells, then :func:`folded` in (a
    :class:`perfeval.Metric` keeps the same two lists itself, to restore them when an update fails).

    Examples
    --------
    >>> f = Fold()
    >>> _ = f.add(np.array([True, False]), np.array([0.9, 0.5]))
    >>> _ = f.add(np.array([True, False]), np.array([0.5, 0.1]))
    >>> f.summary() == ScoreHistogram.from_arrays([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])
    True
    """

    def __init__(self) -> None:
        self._summary = ScoreHistogram.empty()
        self._pending: list[Cells] = []
        self._waiting = 0

    def add(self, is_pos: np.ndarray, s: np.ndarray, w: np.ndarray | None = None) -> Cells:
        """A batch of checked cases (:func:`checked_cases`); returns its cells."""
        c = cells(is_pos, s, w)
        self._pending.append(c)
        self._waiting += len(s)
        if self._waiting >= max(FOLD_ROWS, len(self._summary.scores)):
            self._summary, self._pending, self._waiting = folded(self._summary, self._pending), [], 0
        return c

    def summary(self) -> ScoreHistogram:
        """The summary of every case added so far."""
        self._summary, self._pending, self._waiting = folded(self._summary, self._pending), [], 0
        return self._summary
