"""``Metric``: a stateful, mergeable, exact evaluation for training loops (torchmetrics' habit).

``m = Metric(["roc", "apr"])``; ``m.update(y_true, y_score)`` batch after batch; ``m.merge(other)``
to add another process's state; ``m.compute()`` for the :class:`~perfeval.report.Report` that
:func:`perfeval.evaluate` gives on every row seen so far; ``m.reset()`` to start again.

What it keeps is what the streaming and Dask backends keep, finished by the same engine:

* binary measures without groups: the :class:`~perfeval.summaries.ScoreHistogram` (distinct scores
  with their positive and negative weight), memory 24 bytes per distinct score whatever the rows;
* per-query measures (NDCG, MAP, ...), the group AUC, and any measure with ``groups=``: the checked
  rows themselves (targets, scores, groups, weights), finished by :func:`perfeval.engine.finish` as
  a spilled part of :func:`perfeval.stream.evaluate_stream_grouped` is; memory grows with the rows
  (16 to 32 bytes a row), as torchmetrics' retrieval metrics keep every row.

The numbers are those of ``evaluate`` on the concatenated batches, bit for bit, whatever the
weights for updates of one object; merging objects is bit for bit when the weights add up exactly
(none, whole numbers, dyadic fractions such as 0.5), as for the streaming and Dask backends
(docs/metric.md says why).  Inputs may be numpy arrays, lists, pandas or polars Series, and torch,
jax or cupy arrays, read through their protocols (:func:`host_array`): none of those libraries is
imported here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from perfeval._validation import (
    Cases,
    binary_coding,
    binary_targets,
    cases,
    check_relevance,
    floats,
    to_numpy,
)
from perfeval.engine import DEFAULT_MEASURES, TIES, binary_values, finish, resolve, warn_undefined
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import MeasureSpec
from perfeval.report import Report
from perfeval.summaries import ScoreHistogram

__all__ = ["Metric", "host_array"]

#: version of the layout of :meth:`Metric.state_dict`
STATE_VERSION = 1

#: rows buffered before they are folded into the summary (at least; more when the summary is larger)
_FOLD_ROWS = 1 << 16


def host_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a 1-D numpy array in host memory, through the protocols of array libraries.

    A torch tensor (anything with ``detach``, ``cpu`` and ``numpy``) is detached from its graph
    and copied to the CPU, bfloat16 through float32 (exact); a cupy array (``__cuda_array_interface__``
    and ``get``) is copied to the host; an object with ``__array__`` or ``to_numpy`` (jax, pandas,
    polars, pyarrow) is read by numpy; an object with only ``__dlpack__`` by ``numpy.from_dlpack``.
    Nothing is imported for it.  float16 and float32 values become float64 exactly where perfeval
    reads them.

    Raises
    ------
    InvalidParameterError
        ``x`` is None, or not one-dimensional.
    InvalidDataError
        An array that cannot be brought to the host (a device array DLPack cannot export).

    Examples
    --------
    >>> class OnlyDLPack:  # a device array's protocol, here over numpy
    ...     def __init__(self, a):
    ...         self.a = np.asarray(a)
    ...     def __dlpack__(self, **kw):
    ...         return self.a.__dlpack__(**kw)
    ...     def __dlpack_device__(self):
    ...         return self.a.__dlpack_device__()
    >>> host_array(OnlyDLPack([0.5, 0.25]), "y_score")
    array([0.5 , 0.25])
    """
    return to_numpy(x, name)  # the protocols are read at the library's one door


def _family(y: np.ndarray) -> str:
    """What kind of labels ``y`` holds: booleans, numbers or text (the positive label is read by it)."""
    k = y.dtype.kind
    return "booleans" if k == "b" else ("numbers" if k in "iuf" else "text")


class Metric:
    """Measures accumulated batch by batch, mergeable across processes, exact.

    Parameters
    ----------
    measures : iterable of str or MeasureSpec, or a comma-separated str
        As in :func:`perfeval.evaluate`: registry names, aliases and parameters (``"roc"``,
        ``"ndcg@10"``, ``"acc:threshold=0.3"``, ``"fbeta:beta=2"``).  Default: PERF's report.
    threshold : float, default 0.5
        The threshold of the threshold measures unless a spec sets its own.
    pos_label : optional
        The positive label of ``y_true`` for the binary measures and the group AUC, as in
        :func:`perfeval.evaluate`.

    Notes
    -----
    ``update(y_true, y_score)`` takes the targets first, as :func:`perfeval.evaluate` and
    scikit-learn do (torchmetrics takes the predictions first).

    Every measure of the registry is accepted; the kind of data decides what is kept (see the
    module's description): a :class:`~perfeval.summaries.ScoreHistogram` for binary measures
    without groups, the checked rows otherwise.  ``partitions``, ``tie_bounds`` and ``dialect`` of
    :func:`perfeval.evaluate` are not offered.

    Examples
    --------
    >>> m = Metric(["roc", "apr"])
    >>> m.update([1, 0], [0.9, 0.5])
    >>> m.update([1, 0], [0.5, 0.1])
    >>> m.compute()["ROC"]
    0.875
    >>> other = Metric(["roc", "apr"])
    >>> other.update([0, 1], [0.7, 0.2])
    >>> m.merge(other).compute()["ROC"]
    0.6111111111111112
    >>> m
    Metric(['ROC', 'APR'], threshold=0.5, rows=6, summary=ScoreHistogram(distinct=5, ...))
    >>> m.reset(); m.compute()["ROC"]  # nothing seen: undefined, as evaluate([], [])
    nan
    """

    def __init__(
        self,
        measures: Iterable[str | MeasureSpec] | str = DEFAULT_MEASURES,
        *,
        threshold: float = 0.5,
        pos_label: Any = None,
    ):
        self._specs = resolve(measures, threshold)
        self.threshold = threshold
        self.pos_label = pos_label
        kinds = {s.measure.kind for s in self._specs}
        #: the rows are kept (not only a ScoreHistogram): a per-query measure or the group AUC,
        #: or (decided by the first update) groups
        self._needs_rows = bool(kinds - {"binary"})
        self.reset()

    # -- what it computes ---------------------------------------------------------------------------------
    @property
    def measures(self) -> list[str]:
        """The canonical labels of the measures, in the order of the report."""
        return [s.label for s in self._specs]

    @property
    def rows(self) -> int:
        """Rows given to :meth:`update` (and merged) since the last :meth:`reset`, weight 0 included."""
        return self._rows_in

    def _key(self) -> tuple:
        return (tuple((s.label, s.params) for s in self._specs), self.threshold, _label_key(self.pos_label))

    # -- the state --------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget every row: the state of a new Metric with the same measures."""
        self._rows_in = 0
        self._grouped: bool | None = None  # decided by the first update
        self._weighted: bool | None = None
        self._family: str | None = None  # booleans, numbers or text: with pos_label, one kind
        self._labels: np.ndarray | None = None  # the distinct targets seen (binary coding, messages)
        self._any_positive = False
        self._hist = ScoreHistogram.empty()  # the summary (binary measures, no groups)
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # cells not yet folded in
        self._pending_rows = 0
        self._kept: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]] = []

    @property
    def _keeps_rows(self) -> bool:
        return self._needs_rows or bool(self._grouped)

    # -- update ------------------------------------------------------------------------------------------
    def update(self, y_true: Any, y_score: Any, *, groups: Any = None, sample_weight: Any = None) -> None:
        """Add a batch of cases.

        Parameters
        ----------
        y_true, y_score, groups, sample_weight
            As in :func:`perfeval.evaluate` (targets first): array-likes, torch/jax/cupy arrays
            included (see :func:`host_array`).  Give ``groups`` to every update or to none, and
            ``sample_weight`` to every update or to none.

        Raises
        ------
        InvalidParameterError, InvalidDataError
            The errors :func:`perfeval.evaluate` gives for these rows together with the rows seen
            before (the message's index is within this batch).  The state is unchanged: a batch
            is taken whole or not at all.
        """
        y = host_array(y_true, "y_true")
        s = host_array(y_score, "y_score")
        g = None if groups is None else host_array(groups, "groups")
        w = None if sample_weight is None else host_array(sample_weight, "sample_weight")
        c = cases(y, s, g, w)
        self._check_mode(g is not None, w is not None)
        labels, family, positive = self._check_targets(c)
        # the batch is valid: the state changes from here on, and nothing below raises
        self._grouped, self._weighted = g is not None, w is not None
        self._rows_in += c.rows_in
        self._labels, self._family = labels, family
        self._any_positive = self._any_positive or positive
        if not len(c.s):
            return
        if self._keeps_rows:
            self._kept.append(
                (
                    np.array(c.y),
                    np.array(c.s, dtype=np.float64),
                    None if c.g is None else np.array(c.g),
                    None if c.w is None else np.array(c.w, dtype=np.float64),
                )
            )
            return
        # this batch's labels are among the labels checked above, so it has their coding
        is_pos = np.asarray(binary_coding(c.y, self.pos_label)) == 1
        weight = np.ones(len(c.s)) if c.w is None else c.w
        pos = weight * is_pos  # as ScoreHistogram.from_checked weighs a case
        by_score = np.argsort(c.s, kind="stable")  # a sorted run for _fold; one score's rows in order
        self._pending.append((c.s[by_score], pos[by_score], (weight - pos)[by_score]))
        self._pending_rows += len(c.s)
        if self._pending_rows >= max(_FOLD_ROWS, len(self._hist.scores)):
            self._fold()

    def _check_mode(self, grouped: bool, weighted: bool) -> None:
        if self._grouped is not None and grouped != self._grouped:
            raise InvalidParameterError(
                "`groups=` was given to the earlier updates of this Metric but not to this one"
                if self._grouped
                else "`groups=` was given to this update but not to the earlier ones of this Metric"
            )
        if self._weighted is not None and weighted != self._weighted:
            raise InvalidParameterError(
                "`sample_weight=` was given to the earlier updates of this Metric but not to this one"
                if self._weighted
                else "`sample_weight=` was given to this update but not to the earlier ones of this Metric"
            )
        grouped_specs = [s.label for s in self._specs if s.measure.kind == "grouped"]
        if grouped_specs and not grouped:
            raise InvalidParameterError(f"{grouped_specs[0]} is computed over groups: pass `groups=`")
        ranking = [s.label for s in self._specs if s.measure.kind != "binary"]
        if ranking and weighted:
            raise InvalidParameterError(
                f"`weights` apply to the binary measures only, not to {ranking[0]} "
                "(a per-query measure); evaluate them without weights"
            )

    def _check_targets(self, c: Cases) -> tuple[np.ndarray | None, str | None, bool]:
        """The checks of evaluate() on the targets, over this batch and the batches before: the
        distinct labels, their kind and whether a positive was seen, with this batch.
        """
        y = c.y
        coded = self.pos_label is not None
        ranking = [s for s in self._specs if s.measure.kind == "ranking"]
        grouped = [s for s in self._specs if s.measure.kind == "grouped"]
        binary = [s for s in self._specs if s.measure.kind == "binary"]
        as_relevance = ranking + ([] if coded else grouped)
        if as_relevance:  # graded relevance >= 0, row by row
            check_relevance(floats(y, "y_true"))
        labelled = binary + (grouped if coded else [])
        if not labelled:
            return self._labels, self._family, self._any_positive
        family = self._family
        if coded and len(y):
            family = family or _family(y)
            if _family(y) != family:
                raise InvalidDataError(
                    f"`y_true` holds {_family(y)} in this update and {family} in the earlier ones "
                    f"of this Metric: pos_label={self.pos_label!r} is read by the kind of the labels"
                )
        labels = self._labels
        if len(y):
            new = _distinct(y)
            if labels is None:
                labels = new
            elif not (
                new.dtype == labels.dtype
                and len(labels) <= 64
                and set(new.tolist()) <= set(labels.tolist())  # the usual batch: no new label
            ):
                labels = np.union1d(labels, new)
        if coded:
            hit = np.asarray(binary_coding(y, self.pos_label))
            return labels, family, self._any_positive or bool(hit.any())
        if labels is not None and binary_coding(labels) is None:
            binary_targets(labels, labelled[0].label)  # raises evaluate()'s message, with every label seen
        return labels, family, False

    def _fold(self) -> None:
        """Add the pending cells to the summary, each distinct score's weight summed in row order
        as :meth:`ScoreHistogram.from_checked` sums it over all the rows at once (a bincount runs
        through its array in order).  Every pending batch was sorted by score when it came, stably
        (its cells of one score in row order), and the summary and the cells of merged Metrics are
        sorted: a stable sort of the concatenation merges these runs, and keeps the cells of each
        score in the order summary, then batches in the order they came, each in row order.
        """
        if not self._pending:
            return
        h = self._hist
        both = np.concatenate([h.scores, *(p[0] for p in self._pending)])
        order = np.argsort(both, kind="stable")  # sorted runs: merged, not sorted again
        merged = both[order]
        new = np.empty(len(merged), dtype=bool)
        new[:1] = True
        np.not_equal(merged[1:], merged[:-1], out=new[1:])  # -0.0 == 0.0: one score
        run = np.cumsum(new, dtype=np.intp) - 1  # the distinct score of each cell, in merged order
        k = int(run[-1]) + 1 if len(run) else 0
        pos = np.concatenate([h.pos, *(p[1] for p in self._pending)])[order]
        neg = np.concatenate([h.neg, *(p[2] for p in self._pending)])[order]
        self._hist = ScoreHistogram(
            merged[new] + 0.0,  # a run of -0.0 and 0.0 is 0.0, as ScoreHistogram's runs() keeps it
            np.bincount(run, weights=pos, minlength=k),
            np.bincount(run, weights=neg, minlength=k),
        )
        self._pending, self._pending_rows = [], 0

    # -- merge -------------------------------------------------------------------------------------------
    def merge(self, other: Metric) -> Metric:
        """Add another Metric's rows to this one (in place; ``other`` is unchanged); returns self.

        ``other`` must compute the same measures with the same parameters and positive label, and
        have been updated the same way (with or without groups, with or without weights), or not
        at all.  The result is as if this Metric had been given ``other``'s batches after its own.

        Raises
        ------
        InvalidParameterError
            A different measure, parameter or positive label; groups or weights on one side only.
        InvalidDataError
            Labels that together are not a binary coding (evaluate()'s message, every label
            listed), or of two kinds (numbers and text) with a positive label.
        """
        return self._merge(other, True)

    def _merge(self, other: Metric, fold: bool) -> Metric:
        if not isinstance(other, Metric):
            raise InvalidParameterError(f"merge() takes a perfeval.Metric, got {type(other).__name__}")
        if other._key() != self._key():
            raise InvalidParameterError(
                f"cannot merge Metric({other.measures}, threshold={other.threshold!r}, "
                f"pos_label={other.pos_label!r}) into Metric({self.measures}, "
                f"threshold={self.threshold!r}, pos_label={self.pos_label!r}): the measures, "
                "their parameters and the positive label must be the same"
            )
        for what, mine, theirs in (
            ("groups=", self._grouped, other._grouped),
            ("sample_weight=", self._weighted, other._weighted),
        ):
            if mine is not None and theirs is not None and mine != theirs:
                raise InvalidParameterError(
                    f"cannot merge: `{what}` was given to the updates of one Metric and not to the other's"
                )
        if self._family and other._family and self._family != other._family:
            raise InvalidDataError(
                f"cannot merge: `y_true` holds {self._family} in one Metric and {other._family} in the "
                f"other: pos_label={self.pos_label!r} is read by the kind of the labels"
            )
        labels = self._labels
        if other._labels is not None:
            labels = other._labels if labels is None else np.union1d(labels, other._labels)
        labelled = [s for s in self._specs if s.measure.kind == "binary"]
        if labels is not None and labelled and self.pos_label is None and binary_coding(labels) is None:
            binary_targets(labels, labelled[0].label)
        theirs_pending = (
            [(other._hist.scores, other._hist.pos, other._hist.neg)] if len(other._hist.scores) else []
        )
        theirs_pending += list(other._pending)
        theirs_kept = list(other._kept)
        self._labels = labels
        self._family = self._family or other._family
        self._any_positive = self._any_positive or other._any_positive
        self._grouped = self._grouped if self._grouped is not None else other._grouped
        self._weighted = self._weighted if self._weighted is not None else other._weighted
        self._rows_in += other._rows_in
        self._kept.extend(theirs_kept)
        if theirs_pending:  # folded as batches are: when they outgrow the summary
            self._pending.extend(theirs_pending)
            self._pending_rows += sum(len(p[0]) for p in theirs_pending)
            if fold and self._pending_rows >= max(_FOLD_ROWS, len(self._hist.scores)):
                self._fold()
        return self

    @classmethod
    def merge_all(cls, metrics: Iterable[Metric]) -> Metric:
        """One new Metric holding every given Metric's rows, in order (each is unchanged).

        For the states gathered from every process, e.g. with
        ``torch.distributed.all_gather_object``.
        """
        metrics = list(metrics)
        if not metrics:
            raise InvalidParameterError("merge_all() needs at least one Metric")
        first = metrics[0]
        if not isinstance(first, Metric):
            raise InvalidParameterError(
                f"merge_all() takes perfeval.Metric objects, got {type(first).__name__}"
            )
        out = cls.__new__(cls)
        out.__setstate__(first.state_dict())
        for m in metrics[1:]:
            out._merge(m, False)
        out._fold()  # one sort of every summary's cells: their sorted runs merged at once
        return out

    # -- compute -----------------------------------------------------------------------------------------
    def compute(self) -> Report:
        """The :class:`~perfeval.report.Report` of :func:`perfeval.evaluate` on every row so far.

        The same values, per-group tables, warnings and errors; ``report.params["backend"]`` is
        ``"metric"``.  With no row it is evaluate()'s answer to no data (NaN values with an
        :class:`~perfeval.exceptions.UndefinedMeasureWarning`).  The state is kept: later updates
        add to it.
        """
        params = {
            "threshold": self.threshold,
            "rows": int(self._rows_in),
            "groups": None,
            "weighted": bool(self._weighted),
            "partitions": None,
            "ties": TIES,
            "pos_label": self.pos_label,
            "backend": "metric",
        }
        if self._keeps_rows:  # finish() gives every error of evaluate() on these rows itself
            if len(self._kept) > 1:
                self._kept = [self._joined()]
            y, s, g, w = self._kept[0] if self._kept else self._nothing()
            c = Cases(y, s, g, w, self._rows_in)
            report = finish(c, self._specs, threshold=self.threshold, pos_label=self.pos_label)
            report.params["backend"] = "metric"
            return report
        if self.pos_label is not None and not self._any_positive:
            self._no_positive()
        self._fold()
        results: dict = {}
        binary_values(self._specs, self._hist, "", results)
        warn_undefined(results, self._specs)
        report = Report(results, None, params)
        report.summary = self._hist  # intervals can be drawn from it (perfeval.stats.ci_from_summary)
        return report

    def _no_positive(self) -> None:
        """evaluate()'s error for a positive label that no row holds (every label seen listed)."""
        labels = self._labels if self._labels is not None else np.zeros(0)
        binary_targets(labels, self._specs[0].label, self.pos_label)

    def _nothing(self):
        """The arrays of no rows, as evaluate([], [], groups=[]) checks them."""
        z = np.zeros(0)
        grouped = self._grouped or any(s.measure.kind == "grouped" for s in self._specs)
        return z, z, (np.zeros(0, dtype=np.int64) if grouped else None), (z if self._weighted else None)

    def _joined(self):
        parts = self._kept
        y = np.concatenate([p[0] for p in parts])
        s = np.concatenate([p[1] for p in parts])
        g = None if parts[0][2] is None else np.concatenate([p[2] for p in parts])
        w = None if parts[0][3] is None else np.concatenate([p[3] for p in parts])
        return y, s, g, w

    # -- persistence -------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole state as plain values and numpy arrays (picklable; ``load_state_dict`` reads it).

        The measures are stored by their canonical labels, with the threshold and positive label,
        so a state can be loaded only into a Metric of the same measures.
        """
        self._fold()
        if len(self._kept) > 1:
            self._kept = [self._joined()]
        kept = self._kept[0] if self._kept else None
        return {
            "version": STATE_VERSION,
            "measures": self.measures,
            "threshold": self.threshold,
            "pos_label": self.pos_label,
            "rows": self._rows_in,
            "grouped": self._grouped,
            "weighted": self._weighted,
            "family": self._family,
            "labels": self._labels,
            "any_positive": self._any_positive,
            "summary": (self._hist.scores, self._hist.pos, self._hist.neg),
            "kept": kept,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace this Metric's state by one from :meth:`state_dict` (of a Metric of the same measures).

        Raises
        ------
        InvalidParameterError
            A state of other measures, parameters or positive label, or of another layout.
        """
        if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
            raise InvalidParameterError(
                f"not a perfeval.Metric state of version {STATE_VERSION} (got "
                f"{state.get('version') if isinstance(state, dict) else type(state).__name__!r})"
            )
        other = Metric(state["measures"], threshold=state["threshold"], pos_label=state["pos_label"])
        if other._key() != self._key():
            raise InvalidParameterError(
                f"the state is of Metric({other.measures}, threshold={other.threshold!r}, "
                f"pos_label={other.pos_label!r}), not of Metric({self.measures}, "
                f"threshold={self.threshold!r}, pos_label={self.pos_label!r})"
            )
        self._set(state)

    def _set(self, state: dict[str, Any]) -> None:
        self.reset()
        self._rows_in = int(state["rows"])
        self._grouped, self._weighted = state["grouped"], state["weighted"]
        self._family, self._labels = state["family"], state["labels"]
        self._any_positive = bool(state["any_positive"])
        self._hist = ScoreHistogram(*state["summary"])
        kept = state["kept"]
        self._kept = [] if kept is None else [tuple(kept)]

    def __getstate__(self) -> dict[str, Any]:
        return self.state_dict()

    def __setstate__(self, state: dict[str, Any]) -> None:
        Metric.__init__(self, state["measures"], threshold=state["threshold"], pos_label=state["pos_label"])
        self._set(state)

    def __repr__(self) -> str:
        head = f"Metric({self.measures}, threshold={self.threshold!r}"
        if self.pos_label is not None:
            head += f", pos_label={self.pos_label!r}"
        head += f", rows={self._rows_in}"
        if self._keeps_rows:
            kept = sum(len(p[1]) for p in self._kept)
            return head + f", kept_rows={kept}" + (", grouped" if self._grouped else "") + ")"
        self._fold()
        return head + f", summary={self._hist!r})"


def _distinct(y: np.ndarray) -> np.ndarray:
    """The distinct values of a batch of targets (0/1 without a sort, the usual case)."""
    if y.dtype.kind in "iuf" and bool(((y == 0) | (y == 1)).all()):
        return np.array([v for v, hit in ((0, not y.all()), (1, bool(y.any()))) if hit], dtype=y.dtype)
    try:
        return np.unique(y)
    except TypeError:  # an object column of mixed types: evaluate()'s message lists them as text
        return np.array(sorted({str(v) for v in y.tolist()}), dtype=object)


def _label_key(label: Any) -> Any:
    """A positive label comparable in a key (numpy scalars as Python values)."""
    return label.item() if isinstance(label, np.generic) else label
