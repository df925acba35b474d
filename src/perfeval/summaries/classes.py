"""ClassSummary: the exact, mergeable summary every multiclass measure is finished from.

A multiclass data set is n cases, each with a true class (a code 0..K-1) and one score a class (an
(n, K) matrix: predict_proba's, or any scores, higher meaning more likely).  Its summary holds, for
every score column ``j`` and every true class ``c``, the distinct scores of column ``j`` among the
cases of class ``c``, ascending, with their total weight (a *block*, ``K * K`` of them): the
one-class histograms from which every pair of classes is compared in any column (one-vs-rest and
one-vs-one ROC areas, average precision, log loss and Brier score read them).  Beside them the
tables of what is decided row by row: the confusion of the argmax prediction (a tie at the maximum
shares the case's weight equally among the tied classes: the expected confusion over the orders of
the tie), the top-k table (the weight of the cases whose true class has ``g`` classes scored above
it and ``t`` others tied with it), the top-label table (each row's maximum score and the size of the
tie at it, with the weight of those rows and of those among them whose true class is at the maximum:
top-label calibration), and the rows whose scores are no probabilities.

The confusion is kept as sums of whole weights, so that no order of the rows or of merges changes a
bit when they are whole numbers (no weights): the ``K x K`` table of the cases whose maximum is one
class (``sure``), and for each (tie size ``t`` >= 2, true class ``y``) present, the K-vector of the
weights of the cases of class ``y`` tied at their maximum among ``t`` classes, added to each tied
class (``tie_keys`` ``t * K + y`` ascending, ``tie_rows``): sparse over the ties present, at most one
K-vector a case.  The shares ``w / t`` are made when :attr:`ClassSummary.confusion` is read.

Summaries merge block by block (a sorted union adding the weights of equal scores) and table by
table, so a data set can be summarised in pieces and finished once: memory, a stream, Dask and
:class:`perfeval.Metric` give the same numbers.  With weights, the same bits too when the pieces come
in row order (:meth:`ClassSummary.folded`: each cell's weights added in row order, as over all the
rows at once).  Memory: two float64 per distinct (column, class, score), at most 2 x the score matrix
(the one-vs-rest and micro histograms are walked over the blocks, never kept).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval import _native
from perfeval.exceptions import InvalidParameterError

__all__ = ["ClassSummary", "PROBABILITY_TOLERANCE"]

#: a row of probabilities sums to 1 within this: float32 softmax rows of thousands of classes do (the
#: log loss and Brier score of rows further off are NaN, and say why; scikit-learn only warns, beyond
#: sqrt(eps) of the input's dtype: 3.5e-4 for float32)
PROBABILITY_TOLERANCE = 1e-4


class ClassSummary:
    """The summary of a multiclass data set (see the module's docstring).

    Parameters
    ----------
    classes : tuple
        The K class labels, in the order of the score columns.
    offsets : ndarray of int64, shape (K * K + 1,)
        Block ``j * K + c`` (column ``j``, true class ``c``) is ``scores[offsets[b]:offsets[b + 1]]``.
    scores, weights : ndarray of float64
        The blocks' distinct scores (ascending within a block) and their total weights.
    sure : ndarray of float64, shape (K, K)
        Rows: true class; columns: the argmax prediction, of the cases whose maximum is one class.
    topk : ndarray of float64, shape (K, K)
        ``topk[g, t]``: weight of the cases with ``g`` classes scored above their true class and
        ``t`` other classes tied with it.
    off_simplex : tuple of (int, float, float)
        The rows that are no probability vector (a score outside [0, 1], or a row sum off 1 by more
        than :data:`PROBABILITY_TOLERANCE`): their number, and one such row's sum and most extreme
        score (NaN when none).
    tie_keys : ndarray of int64, shape (m,), optional
        The (tie size ``t`` >= 2, true class ``y``) present, as ``t * K + y``, ascending.
    tie_rows : ndarray of float64, shape (m, K), optional
        Row ``i``: the total weight of the cases of key ``tie_keys[i]`` tied at their maximum on each
        class (whole weights: :attr:`confusion` divides by ``t``).
    top : tuple of 4 ndarrays, optional
        The top-label table: cells (maximum score, tie size ``t`` at it) ascending, the cases' total
        weight and the weight of those whose true class is among the ``t`` (whole weights: the
        share ``1 / t`` is made when :meth:`top_label` reads it); None when not kept (a summary made
        before it existed): the measures that read it say so.

    Examples
    --------
    >>> cs = ClassSummary.from_arrays([0, 1, 2, 1], [[.6, .3, .1], [.2, .5, .3], [.1, .1, .8], [.4, .4, .2]])
    >>> cs.n_class.tolist(), cs.confusion.tolist()[1]
    ([1.0, 2.0, 1.0], [0.5, 1.5, 0.0])
    >>> a = ClassSummary.from_arrays([0, 1], [[.6, .3, .1], [.2, .5, .3]], classes=(0, 1, 2))
    >>> b = ClassSummary.from_arrays([2, 1], [[.1, .1, .8], [.4, .4, .2]], classes=(0, 1, 2))
    >>> a.merge(b) == cs
    True
    """

    __slots__ = (
        "classes",
        "offsets",
        "scores",
        "weights",
        "sure",
        "topk",
        "off_simplex",
        "tie_keys",
        "tie_rows",
        "top",
        "_memo",
    )

    def __init__(
        self,
        classes: tuple,
        offsets: np.ndarray,
        scores: np.ndarray,
        weights: np.ndarray,
        sure: np.ndarray,
        topk: np.ndarray,
        off_simplex: tuple[int, float, float] = (0, float("nan"), float("nan")),
        tie_keys: np.ndarray | None = None,
        tie_rows: np.ndarray | None = None,
        top: Top | None = None,
    ):
        self.classes = tuple(classes)
        k = len(self.classes)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.scores = np.ascontiguousarray(scores, dtype=np.float64)
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.sure = np.ascontiguousarray(sure, dtype=np.float64).reshape(k, k)
        self.topk = np.ascontiguousarray(topk, dtype=np.float64).reshape(k, k)
        self.off_simplex = off_simplex
        self.tie_keys = (
            np.zeros(0, np.int64) if tie_keys is None else np.ascontiguousarray(tie_keys, dtype=np.int64)
        )
        m = len(self.tie_keys)
        self.tie_rows = (
            np.zeros((0, k))
            if tie_rows is None
            else np.ascontiguousarray(tie_rows, dtype=np.float64).reshape(m, k)
        )
        self.top = (
            None
            if top is None
            else (
                np.ascontiguousarray(top[0], dtype=np.float64),
                np.ascontiguousarray(top[1], dtype=np.int64),
                np.ascontiguousarray(top[2], dtype=np.float64),
                np.ascontiguousarray(top[3], dtype=np.float64),
            )
        )
        self._memo: dict[Any, Any] = {}
        if len(self.offsets) != k * k + 1 or len(self.scores) != len(self.weights):
            raise InvalidParameterError("a ClassSummary needs K*K+1 offsets and one weight a score")
        if m and (
            np.any(np.diff(self.tie_keys) <= 0)
            or self.tie_keys[0] < 2 * k
            or self.tie_keys[-1] >= (k + 1) * k
        ):
            raise InvalidParameterError("a ClassSummary's tie keys are t * K + y, t >= 2, ascending")

    # -- building ------------------------------------------------------------------------------------
    @classmethod
    def from_arrays(
        cls, y_codes: Any, y_score: Any, sample_weight: Any = None, *, classes: tuple | None = None
    ) -> ClassSummary:
        """The summary of class codes 0..K-1 and an (n, K) score matrix (checked here: the door's
        :func:`perfeval.engine.door.check_classes` checks a user's arrays once, with its messages).
        """
        s = np.asarray(y_score, dtype=np.float64)
        if s.ndim != 2 or s.shape[1] < 2:
            raise InvalidParameterError(f"y_score must be an (n, K) matrix with K >= 2, got shape {s.shape}")
        y = np.asarray(y_codes).astype(np.intp, copy=False).reshape(-1)
        k = s.shape[1]
        if len(y) != len(s) or (len(y) and (y.min() < 0 or y.max() >= k)):
            raise InvalidParameterError(f"class codes must be 0..{k - 1}, one a row of y_score")
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        return cls.from_checked(y, s, w, tuple(range(k)) if classes is None else tuple(classes))

    @classmethod
    def from_checked(cls, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, classes: tuple) -> ClassSummary:
        """The summary of checked arrays: class codes (intp, 0..K-1), an (n, K) float64 score matrix
        without NaN, finite weights >= 0 or None.  A case of weight 0 is no case at all.
        """
        if w is not None and not w.all():
            keep = w > 0
            y, s, w = y[keep], s[keep], w[keep]
        k = len(classes)
        offsets, scores, weights = _blocks(y, s, w, k, aggregate=True)
        sure, topk, off, ties = _row_tables(y, s, w, k, None)
        return cls(classes, offsets, scores, weights, sure, topk, off, *ties, top=top_table(y, s, w))

    @classmethod
    def empty(cls, classes: tuple) -> ClassSummary:
        k = len(classes)
        z = np.zeros(0)
        top = (z, np.zeros(0, np.int64), z, z)
        return cls(classes, np.zeros(k * k + 1, np.int64), z, z, np.zeros((k, k)), np.zeros((k, k)), top=top)

    # -- the monoid ----------------------------------------------------------------------------------
    def merge(self, other: ClassSummary) -> ClassSummary:
        """The summary of both data sets (the same classes, in the same order)."""
        return ClassSummary.merge_all([self, other])

    __add__ = merge

    @staticmethod
    def merge_all(parts: list[ClassSummary]) -> ClassSummary:
        """Merge summaries of the same classes: each block a sorted union adding equal scores'
        weights in the order of ``parts``, each table a sum in that order.
        """
        if not parts:
            raise InvalidParameterError("merge_all needs at least one summary")
        classes = parts[0].classes
        for p in parts[1:]:
            if p.classes != classes:
                raise InvalidParameterError(
                    f"summaries of different classes cannot be merged: {list(classes)} and {list(p.classes)}"
                )
        if len(parts) == 1:
            return parts[0]
        k = len(classes)
        offsets, scores, weights = _union([(p.offsets, p.scores, p.weights) for p in parts], k)
        sure = _table_sum([p.sure for p in parts])
        topk = _table_sum([p.topk for p in parts])
        off = _off_simplex_merge([p.off_simplex for p in parts])
        ties = _ties_sum([(p.tie_keys, p.tie_rows) for p in parts], k)
        tops = [p.top for p in parts]
        top = None if any(t is None for t in tops) else _top_cells(tops)  # type: ignore[arg-type]
        return ClassSummary(classes, offsets, scores, weights, sure, topk, off, *ties, top=top)

    def folded(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> ClassSummary:
        """The summary with a batch of checked rows added to this one, each cell's and each table entry's
        weight added in row order after the summary's own, as :meth:`from_checked` adds them over
        all the rows at once: batches folded in their order give the bits of one summary of all.
        """
        if w is not None and not w.all():
            keep = w > 0
            y, s, w = y[keep], s[keep], w[keep]
        k = len(self.classes)
        if not len(y):
            return self
        rows = _blocks(y, s, w, k, aggregate=w is None)  # with weights: a cell a row, in row order
        offsets, scores, weights = _union([(self.offsets, self.scores, self.weights), rows], k)
        sure, topk, off, ties = _row_tables(y, s, w, k, (self.sure, self.topk, self.tie_keys, self.tie_rows))
        off = _off_simplex_merge([self.off_simplex, off])
        top = None if self.top is None else top_table(y, s, w, self.top)
        return ClassSummary(self.classes, offsets, scores, weights, sure, topk, off, *ties, top=top)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassSummary):
            return NotImplemented
        return (
            self.classes == other.classes
            and np.array_equal(self.offsets, other.offsets)
            and np.array_equal(self.scores, other.scores)
            and np.array_equal(self.weights, other.weights)
            and np.array_equal(self.sure, other.sure)
            and np.array_equal(self.tie_keys, other.tie_keys)
            and np.array_equal(self.tie_rows, other.tie_rows)
            and np.array_equal(self.topk, other.topk)
            and self.off_simplex[0] == other.off_simplex[0]
            and _same_top(self.top, other.top)
        )

    def __repr__(self) -> str:
        return f"ClassSummary(classes={list(self.classes)}, cells={len(self.scores)}, weight={self.total:g})"

    # -- reading -------------------------------------------------------------------------------------
    @property
    def k(self) -> int:
        return len(self.classes)

    def block(self, column: int, true_class: int) -> tuple[np.ndarray, np.ndarray]:
        """The distinct scores of ``column`` among the cases of ``true_class`` and their weights."""
        b = column * self.k + true_class
        a, e = int(self.offsets[b]), int(self.offsets[b + 1])
        return self.scores[a:e], self.weights[a:e]

    @property
    def confusion(self) -> np.ndarray:
        """The expected confusion of the argmax, ``K x K`` (rows: true class; columns: predicted): a
        case whose maximum ties ``t`` classes counts ``w / t`` on each.  :attr:`sure` plus each tie
        row divided by its ``t``, added in the order of the keys (ascending ``t``): the same bits
        from the same tables, whatever the order the rows came in when the weights are whole.
        """

        def make() -> np.ndarray:
            k = self.k
            out = self.sure.copy()
            if len(self.tie_keys):
                t, y = np.divmod(self.tie_keys, k)
                for size in np.unique(t):
                    at = t == size
                    out[y[at]] += self.tie_rows[at] / float(size)
            out.setflags(write=False)
            return out

        return self.memo("confusion", make)

    def top_label(self) -> Any:
        """Top-label calibration's binary summary: a :class:`~perfeval.summaries.ScoreHistogram` of
        each row's maximum score, "positive" the share of its weight whose argmax is right (a tie at
        the maximum among ``t`` classes counts ``1 / t`` of a case whose true class is among them:
        the expected value over the orders of the tie, as the confusion shares it); None when the
        summary does not keep the table.
        """
        from perfeval.summaries.histogram import ScoreHistogram

        if self.top is None:
            return None
        sc, _t, wt, hit = self.top
        if not len(sc):
            return ScoreHistogram.empty()
        new = np.empty(len(sc), dtype=bool)
        new[0] = True
        np.not_equal(sc[1:], sc[:-1], out=new[1:])
        run = np.cumsum(new, dtype=np.intp) - 1
        m = int(run[-1]) + 1
        # a score's cells in ascending tie size, each added in that order from 0.0
        right = np.bincount(run, weights=hit / self.top[1], minlength=m)
        total = np.bincount(run, weights=wt, minlength=m)
        return ScoreHistogram(sc[new], right, total - right)

    @property
    def uninformed(self) -> bool:
        """Every case ties at its maximum across all K classes (all its scores equal): the argmax says
        nothing, and the measures of the confusion that are defined are exactly 0 (no rounding).
        """
        k = self.k
        return bool(len(self.tie_keys) and not self.sure.any() and np.all(self.tie_keys // k == k))

    def memo(self, key: Any, make: Any) -> Any:
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    @property
    def n_class(self) -> np.ndarray:
        """The total weight of each true class (its support)."""

        def make() -> np.ndarray:
            k = self.k
            # column 0's blocks: every case is in exactly one of them
            return np.array([self.block(0, c)[1].sum() for c in range(k)], dtype=np.float64)

        return self.memo("n_class", make)

    @property
    def total(self) -> float:
        return float(self.n_class.sum())

    def pairs(self) -> np.ndarray:
        """``U[j, c]``: in column ``j``, the weight of the pairs (a case of class ``j``, a case of
        class ``c``) where the class-``j`` case scores higher, ties counting half; ``U[j, j]`` is 0.
        ``U[j, c] / (n_j n_c)`` is the probability that column ``j`` ranks a random case of class
        ``j`` above one of class ``c`` (Hand and Till's A(j|c)); summed over ``c != j`` and divided by
        ``n_j (N - n_j)``, the one-vs-rest ROC area of class ``j``.

        One pass a column: the class-``j`` block's cumulative weights, and every other block's
        scores located in it (csrc/classes.c, the columns on two threads; :func:`_pairs_numpy` is
        the same computation in numpy, the same bits): O(n K) after the sort.
        """

        def make() -> np.ndarray:
            k = self.k
            got = _native.class_pairs(self.offsets, self.scores, self.weights, k)
            return np.frombuffer(got, dtype=np.float64).reshape(k, k).copy()

        return self.memo("pairs", make)

    def _pairs_numpy(self) -> np.ndarray:
        """:meth:`pairs` in numpy (binary search a column): the reference of the compiled kernel."""
        k = self.k
        u = np.zeros((k, k))
        for j in range(k):
            ps, pw = self.block(j, j)
            if not len(ps):
                continue
            cum = np.concatenate(([0.0], np.cumsum(pw)))
            total = cum[-1]
            a, e = int(self.offsets[j * k]), int(self.offsets[(j + 1) * k])
            xs, xw = self.scores[a:e], self.weights[a:e]
            owner = np.repeat(np.arange(k), np.diff(self.offsets[j * k : (j + 1) * k + 1]))
            lo = np.searchsorted(ps, xs, "left")
            hi = np.searchsorted(ps, xs, "right")
            above = total - cum[hi]
            tied = cum[hi] - cum[lo]
            row = np.bincount(owner, weights=xw * (above + 0.5 * tied), minlength=k)
            row[j] = 0.0
            u[j] = row
        return u

    def one_vs_rest(self, j: int) -> Any:
        """Class ``j`` against the rest, in column ``j``: a binary
        :class:`~perfeval.summaries.ScoreHistogram` (the positives: class ``j``'s block), made anew
        at each call (the measures read its sums from csrc/classes.c's class_walk instead).
        """
        from perfeval.summaries.histogram import ScoreHistogram

        def make() -> Any:
            k = self.k
            got = _native.class_hist(self.offsets, self.scores, self.weights, k, j)
            if got is not None:
                return _from_kernel(got, ScoreHistogram)
            a, e = int(self.offsets[j * k]), int(self.offsets[(j + 1) * k])
            xs, xw = self.scores[a:e], self.weights[a:e]
            pos = np.zeros(e - a, dtype=bool)
            pa, pe = int(self.offsets[j * k + j]) - a, int(self.offsets[j * k + j + 1]) - a
            pos[pa:pe] = True
            return _histogram(xs, xw, pos, ScoreHistogram)

        return make()  # not kept: n cells, K of them (the measures walk the blocks: class_walk)

    def micro(self) -> Any:
        """Every (case, class) pair as one binary problem (the class is the case's true one or not),
        each scored by its column, made anew at each call (the micro-averaged ROC and AP read its
        sums from csrc/classes.c's class_walk instead: this is up to n * K cells).
        """
        from perfeval.summaries.histogram import ScoreHistogram

        def make() -> Any:
            k = self.k
            got = _native.class_hist(self.offsets, self.scores, self.weights, k, -1)
            if got is not None:
                return _from_kernel(got, ScoreHistogram)
            pos = np.zeros(len(self.scores), dtype=bool)
            for j in range(k):
                pos[int(self.offsets[j * k + j]) : int(self.offsets[j * k + j + 1])] = True
            return _histogram(self.scores, self.weights, pos, ScoreHistogram)

        return make()  # not kept: up to n * K cells (the measures walk the blocks: class_walk)


# -- the kernels the summary is built with -------------------------------------------------------------
def _blocks(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, k: int, *, aggregate: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The K*K blocks of rows: (offsets, scores, weights).  ``aggregate``: each block's equal scores
    one cell (weights added in row order); else a cell a row, each block sorted stably (row order
    within a score), for :func:`_union` to add after a summary's cells.

    Each column sorted once and walked with a cursor a class (csrc/classes.c); a cell's weights
    added in row order.  :func:`_blocks_numpy` is the same in numpy (a sort a block).
    """
    yy = np.ascontiguousarray(y, dtype=np.int64)
    ss = np.ascontiguousarray(s, dtype=np.float64)
    ww = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
    got = _native.class_blocks(yy, ss, ww, k, aggregate) if len(yy) else None
    if got is None:
        return _blocks_numpy(y, s, w, k, aggregate=aggregate)
    offsets, scores, weights = got
    return (
        np.frombuffer(offsets, dtype=np.int64),
        np.frombuffer(scores, dtype=np.float64),
        np.frombuffer(weights, dtype=np.float64),
    )


def _blocks_numpy(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, k: int, *, aggregate: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_blocks` in numpy: the reference of the compiled kernel (and the path past 2**32 rows)."""
    # the rows of each class together, in row order (a stable sort of the codes: counting)
    order = np.argsort(y, kind="stable")
    starts = np.searchsorted(y[order], np.arange(k + 1))
    parts_s: list[np.ndarray] = []
    parts_w: list[np.ndarray] = []
    sizes = np.zeros(k * k, dtype=np.int64)
    by_class = [order[starts[c] : starts[c + 1]] for c in range(k)]
    sc = [s[r] for r in by_class]  # each class's rows of the matrix (one gather a class)
    wc = [None if w is None else w[r] for r in by_class]
    for j in range(k):
        for c in range(k):
            col = sc[c][:, j]
            if w is None and aggregate:
                srt = np.sort(col) + 0.0  # -0.0 and 0.0: one score, kept as 0.0
                new = np.empty(len(srt), dtype=bool)
                new[:1] = True
                np.not_equal(srt[1:], srt[:-1], out=new[1:])
                first = np.flatnonzero(new)
                vals = srt[first]
                cnt = np.diff(np.append(first, len(srt))).astype(np.float64)
            else:
                o = np.argsort(col, kind="stable")  # a score's rows in row order
                srt = col[o] + 0.0
                ww = np.ones(len(o)) if wc[c] is None else wc[c][o]  # type: ignore[index]
                if aggregate:
                    new = np.empty(len(srt), dtype=bool)
                    new[:1] = True
                    np.not_equal(srt[1:], srt[:-1], out=new[1:])
                    first = np.flatnonzero(new)
                    vals = srt[first]
                    cnt = np.add.reduceat(ww, first) if len(first) else np.zeros(0)
                else:
                    vals, cnt = srt, ww
            parts_s.append(vals)
            parts_w.append(cnt)
            sizes[j * k + c] = len(vals)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    return (
        offsets,
        np.concatenate(parts_s) if parts_s else np.zeros(0),
        np.concatenate(parts_w) if parts_w else np.zeros(0),
    )


def _union(
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block by block, the sorted union of the parts' blocks adding equal scores' weights in the
    order of the parts (then of their cells): a stable sort of the concatenation keeps that order.
    """
    out_s: list[np.ndarray] = []
    out_w: list[np.ndarray] = []
    sizes = np.zeros(k * k, dtype=np.int64)
    for b in range(k * k):
        ss = [p[1][p[0][b] : p[0][b + 1]] for p in parts]
        ww = [p[2][p[0][b] : p[0][b + 1]] for p in parts]
        both = np.concatenate(ss)
        if not len(both):
            out_s.append(both)
            out_w.append(both)
            continue
        order = np.argsort(both, kind="stable")
        srt = both[order] + 0.0
        wt = np.concatenate(ww)[order]
        new = np.empty(len(srt), dtype=bool)
        new[:1] = True
        np.not_equal(srt[1:], srt[:-1], out=new[1:])
        run = np.cumsum(new, dtype=np.intp) - 1
        m = int(run[-1]) + 1
        out_s.append(srt[new])
        out_w.append(np.bincount(run, weights=wt, minlength=m))  # in order: a cell's weights left to right
        sizes[b] = m
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    return offsets, np.concatenate(out_s), np.concatenate(out_w)


Ties = tuple[np.ndarray, np.ndarray]  # (tie_keys, tie_rows)
Top = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # (score, tie size, weight, right weight)


def top_table(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, before: Top | None = None) -> Top:
    """The top-label table of checked rows (class codes, an (n, K) score matrix, weights or None),
    added after ``before``'s cells (a fold): each row's maximum score (-0.0 kept as 0.0) and the
    number ``t`` of classes at it, its weight, and its weight again when its true class is one of
    the ``t`` (else 0).
    """
    n = len(y)
    if n:
        top = s.max(axis=1) + 0.0
        at_top = s == top[:, None]
        t = np.count_nonzero(at_top, axis=1).astype(np.int64)
        tw = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
        right = np.where(at_top[np.arange(n), y], tw, 0.0)
        rows: Top = (top, t, tw, right)
    else:
        rows = (np.zeros(0), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    return _top_cells([rows] if before is None else [before, rows])


def _same_top(a: Top | None, b: Top | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _top_cells(parts: list[Top]) -> Top:
    """The cells (score, tie size) of the parts' cells or rows, ascending, their weights added in the
    order of the parts and of their entries (a stable sort), from 0.0.
    """
    sc = np.concatenate([p[0] for p in parts])
    t = np.concatenate([p[1] for p in parts]).astype(np.int64)
    wt = np.concatenate([p[2] for p in parts])
    hit = np.concatenate([p[3] for p in parts])
    if not len(sc):
        return sc, t, wt, hit
    order = np.lexsort((t, sc))  # stable: equal cells in the order they came
    sc, t = sc[order], t[order]
    new = np.empty(len(sc), dtype=bool)
    new[0] = True
    new[1:] = (sc[1:] != sc[:-1]) | (t[1:] != t[:-1])
    run = np.cumsum(new, dtype=np.intp) - 1
    m = int(run[-1]) + 1
    return (
        sc[new],
        t[new],
        np.bincount(run, weights=wt[order], minlength=m),
        np.bincount(run, weights=hit[order], minlength=m),
    )


def _row_tables(
    y: np.ndarray,
    s: np.ndarray,
    w: np.ndarray | None,
    k: int,
    before: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray, tuple[int, float, float], Ties]:
    """:func:`_tables` and :func:`_off_simplex` of the rows in one compiled pass over them
    (csrc/classes.c, class_tables: each entry's weight added in row order, the same bits).
    ``before``: (sure, topk, tie_keys, tie_rows) to add the rows to (a fold).
    """
    if not len(y):
        sure, topk, ties = _tables(y, s, w, k, before)
        return sure, topk, _off_simplex(s), ties
    sure = np.zeros((k, k)) if before is None else before[0].astype(np.float64, copy=True)
    topk = np.zeros((k, k)) if before is None else before[1].astype(np.float64, copy=True)
    keys0 = np.zeros(0, np.int64) if before is None else np.ascontiguousarray(before[2], dtype=np.int64)
    rows0 = np.zeros((0, k)) if before is None else np.ascontiguousarray(before[3], dtype=np.float64)
    ss = np.ascontiguousarray(s, dtype=np.float64)
    bad, first, keys, rows = _native.class_tables(
        np.ascontiguousarray(y, dtype=np.int64),
        ss,
        None if w is None else np.ascontiguousarray(w, dtype=np.float64),
        k,
        sure,
        topk,
        keys0,
        rows0,
        PROBABILITY_TOLERANCE,
    )
    ties = (
        (keys0, rows0)
        if keys is None
        else (np.frombuffer(keys, dtype=np.int64), np.frombuffer(rows, dtype=np.float64).reshape(-1, k))
    )
    if not bad:
        return sure, topk, (0, float("nan"), float("nan")), ties
    row = ss[first]
    extreme = float(row.min()) if row.min() < 0 else float(row.max())
    return sure, topk, (int(bad), float(row.sum()), extreme), ties


def _tables(
    y: np.ndarray,
    s: np.ndarray,
    w: np.ndarray | None,
    k: int,
    before: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray, Ties]:
    """The argmax tables (the cases whose maximum is one class; those tied at it, by tie size) and
    the top-k table of the rows, each entry's weight added in row order (after ``before``'s entries,
    when given: a fold): :func:`_row_tables` in numpy, its reference.
    """
    n = len(y)
    keys0 = np.zeros(0, np.int64) if before is None else np.asarray(before[2], dtype=np.int64)
    rows0 = np.zeros((0, k)) if before is None else np.asarray(before[3], dtype=np.float64).reshape(-1, k)
    if n == 0:
        z = np.zeros((k, k))
        return (z, z.copy(), (keys0, rows0)) if before is None else (before[0], before[1], (keys0, rows0))
    top = s.max(axis=1)
    at_top = s == top[:, None]
    ties = np.count_nonzero(at_top, axis=1)
    tw = np.ones(n) if w is None else w
    one = ties == 1
    skeys = y[one] * k + np.argmax(s[one], axis=1)
    sw = tw[one]
    true_score = s[np.arange(n), y]
    above = np.count_nonzero(s > true_score[:, None], axis=1)
    tied = np.count_nonzero(s == true_score[:, None], axis=1) - 1
    tkeys = above * k + tied
    if before is not None:
        idx = np.arange(k * k)
        skeys = np.concatenate((idx, skeys))
        sw = np.concatenate((before[0].reshape(-1), sw))
        tkeys = np.concatenate((idx, tkeys))
        tw = np.concatenate((before[1].reshape(-1), tw))
    sure = np.bincount(skeys, weights=sw, minlength=k * k).reshape(k, k)
    topk = np.bincount(tkeys, weights=tw, minlength=k * k).reshape(k, k)
    many = ~one
    if not many.any():
        return sure, topk, (keys0, rows0)
    rows, cols = np.nonzero(at_top & many[:, None])  # row-major: row order
    rkeys = ties[rows].astype(np.int64) * k + y[rows]
    keys = np.union1d(keys0, rkeys).astype(np.int64)
    cells = np.searchsorted(keys, rkeys) * k + cols
    rw = (np.ones(n) if w is None else w)[rows]
    if len(keys0):
        old = (np.searchsorted(keys, keys0)[:, None] * k + np.arange(k)).reshape(-1)
        cells = np.concatenate((old, cells))
        rw = np.concatenate((rows0.reshape(-1), rw))
    tab = np.bincount(cells, weights=rw, minlength=len(keys) * k).reshape(len(keys), k)
    return sure, topk, (keys, tab)


def _ties_sum(parts: list[Ties], k: int) -> Ties:
    """The tie tables of several summaries added: the union of their keys, each row's entries
    added in the order of ``parts`` (whole numbers without weights: any order, the same bits).
    """
    present = [p for p in parts if len(p[0])]
    if not present:
        return np.zeros(0, np.int64), np.zeros((0, k))
    if len(present) == 1:
        return present[0]
    keys = present[0][0]
    for p in present[1:]:
        keys = np.union1d(keys, p[0])
    keys = keys.astype(np.int64)
    out = np.zeros((len(keys), k))
    for pk, pr in present:
        out[np.searchsorted(keys, pk)] += pr
    return keys, out


def _table_sum(tables: list[np.ndarray]) -> np.ndarray:
    out = tables[0].copy()
    for t in tables[1:]:
        out += t
    return out


def _off_simplex(s: np.ndarray) -> tuple[int, float, float]:
    """The rows of ``s`` that are no probability vector: their number, one's sum and extreme score."""
    if not len(s):
        return (0, float("nan"), float("nan"))
    sums = s.sum(axis=1)
    bad = (s.min(axis=1) < 0) | (s.max(axis=1) > 1) | (np.abs(sums - 1.0) > PROBABILITY_TOLERANCE)
    count = int(np.count_nonzero(bad))
    if not count:
        return (0, float("nan"), float("nan"))
    i = int(np.argmax(bad))
    row = s[i]
    extreme = float(row.min()) if row.min() < 0 else float(row.max())
    return (count, float(sums[i]), extreme)


def _off_simplex_merge(parts: list[tuple[int, float, float]]) -> tuple[int, float, float]:
    count = sum(p[0] for p in parts)
    first = next((p for p in parts if p[0]), (0, float("nan"), float("nan")))
    return (count, first[1], first[2])


def _from_kernel(got: Any, cls: Any) -> Any:
    """A binary ScoreHistogram from class_hist's (scores, pos, neg) buffers."""
    v, p, n = (np.frombuffer(b, dtype=np.float64) for b in got)
    return cls.empty() if not len(v) else cls(v, p, n).canonical()


def _histogram(xs: np.ndarray, xw: np.ndarray, pos: np.ndarray, cls: Any) -> Any:
    """A binary ScoreHistogram of cells (score, weight, positive?), equal scores added."""
    if not len(xs):
        return cls.empty()
    order = np.argsort(xs, kind="stable")
    srt = xs[order]
    new = np.empty(len(srt), dtype=bool)
    new[:1] = True
    np.not_equal(srt[1:], srt[:-1], out=new[1:])
    run = np.cumsum(new, dtype=np.intp) - 1
    m = int(run[-1]) + 1
    ww = xw[order]
    pp = pos[order]
    return cls(
        srt[new],
        np.bincount(run, weights=np.where(pp, ww, 0.0), minlength=m),
        np.bincount(run, weights=np.where(pp, 0.0, ww), minlength=m),
    ).canonical()
