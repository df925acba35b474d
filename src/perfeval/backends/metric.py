"""``Metric``: a stateful, mergeable, exact evaluation for training loops (torchmetrics' habit).

``m = Metric(["roc", "apr"])``; ``m.update(y_true, y_score)`` batch after batch; ``m.merge(other)``
to add another process's state; ``m.compute()`` for the :class:`~perfeval.engine.report.Report` that
:func:`perfeval.evaluate` gives on every row seen so far; ``m.reset()`` to start again.

What it keeps is what the streaming and Dask backends keep, finished by the same engine:

* binary measures without groups: the :class:`~perfeval.summaries.ScoreHistogram` (distinct scores
  with their positive and negative weight), memory 24 bytes per distinct score whatever the rows;
* per-query measures (NDCG, MAP, ...), the group AUC, and any measure with ``groups=``: the checked
  rows themselves (targets, scores, groups, weights), stored compactly and exactly
  (:mod:`perfeval.backends.metric_state`: about 9 bytes a row), finished by :func:`perfeval.engine.finish`
  as a spilled part of :func:`perfeval.backends.stream.evaluate_stream_grouped` is; memory grows with the
  rows, as torchmetrics' retrieval metrics keep every row;
* the same with ``clustered=True`` (each group's rows together, as the ``clustered`` stream takes
  them): each group finished by ``finish`` when it ends, only its key, size and values kept, so
  memory grows with the groups, not the rows;
* with ``dialect=`` (another tool's definitions, :mod:`perfeval.dialects`): every row, those of
  weight 0 and the document ids included, handed to the function ``evaluate(..., dialect=)`` runs.

The numbers are those of ``evaluate`` on the concatenated batches, bit for bit, whatever the
weights for updates of one object; merging objects is bit for bit when the weights add up exactly
(none, whole numbers, dyadic fractions such as 0.5), as for the streaming and Dask backends
(docs/metric.md says why), and whatever the weights with ``clustered=True``.  Inputs may be numpy
arrays, lists, pandas or polars Series, and torch, jax or cupy arrays, read through their protocols
(:func:`host_array`): none of those libraries is imported here.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from perfeval.backends.metric_state import (
    ClassState,
    FinishedGroups,
    GroupedRows,
    KeptRows,
    LabelState,
    key_family,
    nbytes,
)
from perfeval.base.checks import (
    Cases,
    as_array,
    binary_coding,
    binary_targets,
    check_options,
    id_kind,
    no_table,
    say_zero_weight_groups,
    to_numpy,
    zero_weight_groups,
)
from perfeval.engine import DEFAULT_MEASURES, TIES, binary_values, finish, resolve, warn_undefined
from perfeval.engine.door import check, code
from perfeval.engine.finish import attach_whys, group_whys, threshold_companions, with_thresholds
from perfeval.engine.report import MeasureResult, Report
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import MeasureSpec, parse_measure
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.histogram import FOLD_ROWS, cells, folded

# The dialects (and the classic engine behind the perf dialect) are imported where a metric
# is given a dialect: `import perfeval.metric` doesn't load them.

__all__ = ["Metric", "host_array"]

#: version of the layout of :meth:`Metric.state_dict` (version 1 states load too)
STATE_VERSION = 2

#: rows buffered before they are folded into the summary (at least; more when the summary is larger)
_FOLD_ROWS = FOLD_ROWS


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


def _slice_ask(by: Any, intersections: Any, min_size: Any, missing: Any, dialect: str) -> Any:
    """The slicings of ``Metric(..., by=[...])`` (:func:`perfeval.backends.slices.ask_of`), or None;
    the slice options without ``by`` said, not dropped; not with a dialect (as evaluate()).
    """
    if by is None:
        from perfeval.engine.slice_report import needs_by

        needs_by(intersections, min_size, missing)
        return None
    if str(dialect).split(":")[0].strip().lower() not in ("perfeval", ""):
        raise InvalidParameterError(f"by= (slices): not with dialect={dialect!r} yet; slices are perfeval's")
    from perfeval.backends.slices import ask_of

    return ask_of(by, intersections=intersections, min_size=min_size, missing=missing, what="each update")


def _family(y: np.ndarray) -> str:
    """What kind of labels ``y`` holds: booleans, numbers, bytes or text (Python objects included),
    by which the positive label is read.  numpy joins numpy text with bytes as text (``b'yes'``
    becomes ``'yes'``), so the two are not one kind: the labels of the batches together would be
    coded otherwise than each batch's.
    """
    k = y.dtype.kind
    return "booleans" if k == "b" else "numbers" if k in "iuf" else "bytes" if k == "S" else "text"


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
    clustered : bool, default False
        Each group's rows come together, as in :func:`perfeval.backends.stream.evaluate_stream_grouped`:
        every group whole in one update (its rows in any order within it), except that the group
        of an update's last row may run on into the next update.  Each group is finished when it
        ends and only its key, size and values are kept (memory O(groups), not O(rows)); a group
        whose rows come again after it ended is an error naming it.  Needs ``groups=`` in every
        update.  Not with a dialect.
    dialect : str, default "perfeval"
        Compute each measure as another tool does, as :func:`perfeval.evaluate` and the command's
        ``--dialect`` do (``"sklearn"``, ``"trec_eval"``, ``"ranx"``, ``"torchmetrics"``,
        ``"spark"``, ``"keras"``, ``"din"``, ``"perf"``, with the tool's options after colons):
        the same numbers, warnings and errors on the rows of every update.  The rows are kept
        (docs/metric.md); a measure the tool does not define is refused here.
    classes : sequence of labels, optional
        K classes: ``update(y_true, y_score)`` then takes the labels and an (n, K) score matrix whose
        columns are these classes in order (``predict_proba``'s), as ``evaluate(y, S, classes=...)``
        does, and the measures are the multiclass ones (a binary name with a multiclass form means
        it: ``roc`` is ``ROC_OVR:average=macro``; the default is evaluate()'s default for K classes).
        The state is one :class:`~perfeval.summaries.classes.ClassSummary` (memory follows the
        distinct scores of each class in each column, not the rows), and ``compute()`` gives
        evaluate()'s numbers on every row so far, bit for bit, weights too.  Merging Metrics is bit
        for bit when every cell's weights add up exactly in any order (no weights, or whole-number
        or dyadic weights; rows tied at the argmax are kept as whole sums by tie size, so ties do
        not break it), else within rounding (docs/metric.md).  With ``groups=`` (to every update) the
        checked rows are kept and ``compute()`` finishes them per group as ``evaluate(y, S,
        classes=..., groups=...)`` does: its bits, weights too, merged or not.  Not with
        ``clustered``, a dialect or ``pos_label``.
    labels : sequence of labels, optional
        K labels (multilabel): ``update(y_true, y_score)`` then takes an (n, K) 0/1 target matrix and
        an (n, K) score matrix, one column a label in the order of ``labels``, as ``evaluate(Y, S)``
        does, and the measures are the multilabel ones (``roc`` is ``ROC_ML:average=macro``; the
        default is evaluate()'s default for a label matrix).  A keyword of its own, not ``classes=``:
        the task must be known before the first update, and the same names mean other measures
        for K classes.  The state is one :class:`~perfeval.summaries.labels.LabelSummary`, rows
        folded in their order: ``compute()`` gives evaluate()'s numbers on every row so far, bit
        for bit, weights too (merging Metrics: bit for bit without weights).  With ``groups=`` the
        rows are kept and finished per group as ``evaluate(Y, S, groups=...)`` does (its bits).  Not
        with ``classes=``, ``clustered``, a dialect or ``pos_label``.
    task : {None, "binary", "regression"}, optional
        ``"regression"`` (or a regression measure named: ``Metric(["mae", "rmse", "r2"])``): each
        update is a real target and a prediction a row, as ``evaluate(..., task="regression")``
        checks them, folded into one exact
        :class:`~perfeval.summaries.regression.RegressionSummary` (its sums are whole numbers:
        updates and merges in any order give ``evaluate``'s bits, any weights); with ``groups=`` the
        checked rows are kept and finished per group at ``compute()``.  A Metric does not guess the
        task from its first batch.  Not with ``clustered``, a dialect, ``pos_label``, ``classes=`` or
        ``labels=``.

    by : list of str, optional
        Slices (docs/slices.md): the slice columns each :meth:`update` gives (``by={"country": c,
        "device": d}``; a tuple among the names one intersection), with ``intersections``,
        ``min_size`` and ``missing`` as in :func:`perfeval.evaluate`; ``compute().slices`` holds the
        slices ``evaluate(..., by=...)`` gives on every row so far, bit for bit, merged or not.
        Unweighted binary measures keep each combination of keys' summary; anything else keeps
        the rows for the slices (their weights are summed in orders of the rows no summary keeps).

    Notes
    -----
    ``update(y_true, y_score)`` takes the targets first, as :func:`perfeval.evaluate` and
    scikit-learn do (torchmetrics takes the predictions first).

    Every measure of the registry is accepted; the kind of data decides what is kept (see the
    module's description): a :class:`~perfeval.summaries.ScoreHistogram` for binary measures
    without groups, the checked rows otherwise, each group's values with ``clustered=True``
    (:attr:`nbytes` says how much).  ``partitions`` and ``tie_bounds`` of
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

    Groups that come whole (a user's impressions in one batch):

    >>> m = Metric(["gauc", "ndcg@10"], clustered=True)
    >>> m.update([1, 0, 0, 1], [0.9, 0.5, 0.4, 0.3], groups=["u1", "u1", "u2", "u2"])
    >>> m.update([1, 0], [0.2, 0.6], groups=["u3", "u3"])
    >>> m.compute().results["GAUC"].per_group.tolist()
    [1.0, 0.0, 0.0]
    >>> m.update([1], [0.5], groups=["u1"])
    Traceback (most recent call last):
    ...
    perfeval.exceptions.InvalidDataError: group 'u1' comes again after it ended: ...
    """

    def __init__(
        self,
        measures: Iterable[str | MeasureSpec] | str = DEFAULT_MEASURES,
        *,
        threshold: float = 0.5,
        pos_label: Any = None,
        clustered: bool = False,
        dialect: str = "perfeval",
        classes: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
        task: str | None = None,
        by: Any = None,
        intersections: bool = False,
        min_size: int | None = None,
        missing: str = "error",
    ):
        from perfeval.dialects.apply import dialect_text, parse_dialect
        from perfeval.engine.regression import regression_asked

        #: the slicings asked (``by=``): each update then gives the slice columns (None: no slices)
        self._ask = _slice_ask(by, intersections, min_size, missing, dialect)
        if not isinstance(clustered, (bool, np.bool_)):
            raise InvalidParameterError(f"clustered must be True or False, got {clustered!r}")
        check_options(threshold=threshold)
        d, opts = parse_dialect(dialect)
        #: the K class labels of the score columns (None: binary and per-query measures)
        self.classes: tuple | None = None
        #: "multiclass" (``classes=``), "multilabel" (``labels=``), "regression" or None
        self._task: str | None = None
        #: a regression: how it was asked (the report's ``task_from``)
        self._how: str | None = None
        how = regression_asked(None if measures is DEFAULT_MEASURES else measures, task)
        if how is not None:
            given = (
                ("clustered=True", clustered),
                ("pos_label=", pos_label is not None),
                ("classes=", classes is not None),
                ("labels=", labels is not None),
                (f"dialect={dialect!r}", d.name != "perfeval"),
            )
            for what, on in given:
                if on:
                    raise InvalidParameterError(f"{what} does not apply to a regression target ({how})")
            from perfeval.engine.regression import named_specs, regression_specs

            self._specs = regression_specs(named_specs(None if measures is DEFAULT_MEASURES else measures))
            self._task, self._how = "regression", how
            self.threshold, self.pos_label, self.dialect, self.clustered = threshold, None, "perfeval", False
            self._needs_rows = False
            self.reset()
            return
        if classes is not None and labels is not None:
            raise InvalidParameterError(
                "`classes=` (K classes, one target a row) or `labels=` (K labels, a 0/1 target matrix), "
                "not both"
            )
        if classes is not None or labels is not None:
            task = "multiclass" if labels is None else "multilabel"
            self._init_classes(
                measures, threshold, pos_label, clustered, d.name, classes if labels is None else labels, task
            )
            return
        #: the dialect with its options (``"keras:num_thresholds=200:..."``), or "perfeval"
        self.dialect = "perfeval" if d.name == "perfeval" else dialect_text(d, opts)
        if self.dialect != "perfeval":
            if clustered:
                raise InvalidParameterError(
                    f"dialect={dialect!r}: not with clustered=True (a dialect evaluates every row "
                    "together, as the command's --dialect does in memory: the Metric keeps the rows)"
                )
            if measures is DEFAULT_MEASURES:  # every measure the tool defines, as evaluate() does
                measures = list(d.policies)
        self._specs = resolve(measures, threshold, trec=d.name == "trec_eval")
        self.threshold = threshold
        self.pos_label = pos_label
        if self.dialect != "perfeval":
            _check_dialect_specs(d, self._specs, threshold, pos_label)
        #: each group's rows come together (in one update, or running on into the next): groups
        #: are finished as they end and only their values are kept
        self.clustered = bool(clustered)
        kinds = {s.measure.kind for s in self._specs}
        #: the rows are kept (not only a ScoreHistogram): a per-query measure or the group AUC,
        #: or (decided by the first update) groups; under a dialect always (its order of ties, its
        #: bins, its document ids are the rows')
        self._needs_rows = bool(kinds - {"binary"}) or self.dialect != "perfeval"
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
        return (
            tuple((s.label, s.params) for s in self._specs),
            self.threshold,
            _label_key(self.pos_label),
            self.dialect,
            self.classes,
            self._task,
            None if self._ask is None else (self._ask.wanted, self._ask.min_size, self._ask.missing),
        )

    # -- the state --------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget every row: the state of a new Metric with the same measures."""
        self._rows_in = 0
        self._grouped: bool | None = None  # decided by the first update
        self._weighted: bool | None = None
        self._family: str | None = None  # booleans, numbers or text: with pos_label, one kind
        self._labels: np.ndarray | None = None  # the distinct targets seen (binary coding, messages)
        self._any_positive = False
        self._group_dtype: np.dtype | None = None  # the ids' dtype: one kind over every update
        self._group_kind: str | None = None  # what they are (integers, text, Python integers, ...)
        self._with_ids: bool | None = None  # document ids given (a dialect's ties): by the first update
        self._hist = ScoreHistogram.empty()  # the summary (binary measures, no groups)
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # cells not yet folded in
        self._pending_rows = 0
        self._kept = KeptRows()  # the rows (grouped or per-query measures), compactly
        #: clustered: the groups finished so far, and the rows of the last one, which the next
        #: update may continue (y, s, g, w as checked)
        self._done = FinishedGroups(self._order())
        self._open: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None = None
        #: K classes: the ClassSummary of the rows so far, and the rows not folded in yet
        self._mc: Any = None
        #: a regression without groups: the exact sums of every row so far
        self._reg: Any = None
        #: the slices (``by=``): a :class:`perfeval.backends.slices.SliceFeed`, made by the first update
        self._slices: Any = None
        #: the groups that, in some update, had only rows of weight 0 (sorted, distinct; None: none):
        #: those no other row of weight > 0 joins are the ones evaluate() says it left out
        #: (:class:`~perfeval.exceptions.ZeroWeightGroupsWarning`, :meth:`_say_zero_groups`)
        self._zero: np.ndarray | None = None
        if self._task == "regression":
            from perfeval.engine.regression import empty_summary

            self._reg = empty_summary(self._specs)
        if self.classes is not None:
            self._mc = (
                LabelState.empty(self.classes, self._specs)
                if self._task == "multilabel"
                else ClassState(self.classes)
            )

    def _init_classes(
        self,
        measures: Any,
        threshold: float,
        pos_label: Any,
        clustered: bool,
        dialect: str,
        classes: Any,
        task: str = "multiclass",
    ) -> None:
        """The rest of ``__init__`` for K classes (``classes=``) or K labels (``labels=``, ``task=
        "multilabel"``): the measures read for the task as evaluate() reads them
        (:func:`perfeval.engine.classes.class_specs`), the labels checked.
        """
        from perfeval.engine.classes import class_specs

        word, what_k, one = (
            ("classes", "K classes", "class") if task == "multiclass" else ("labels", "K labels", "label")
        )
        for what, given in (("clustered=True", clustered), ("pos_label=", pos_label is not None)):
            if given:
                raise InvalidParameterError(
                    f"{what} does not apply to {what_k} (one score column a {one}): drop it or `{word}=`"
                )
        if dialect != "perfeval":
            raise InvalidParameterError(
                f"dialect={dialect!r}: the {task} measures have perfeval's rules only"
            )
        held = np.asarray(classes if isinstance(classes, np.ndarray) else list(classes), dtype=object)
        labels = tuple(c.item() if isinstance(c, np.generic) else c for c in held.reshape(-1).tolist())
        if len(labels) < 2:
            raise InvalidParameterError(f"`{word}` names {len(labels)} labels: {what_k} need K >= 2")
        try:
            twice = next((c for i, c in enumerate(labels) if c in labels[:i]), None)
        except TypeError:
            raise InvalidParameterError(f"`{word}` holds a label that is not hashable") from None
        if twice is not None:
            raise InvalidParameterError(f"`{word}` names {twice!r} twice: one label a score column")
        default = measures is DEFAULT_MEASURES
        self._task = task
        self._specs = class_specs(
            [] if default else resolve(measures, threshold, pending=True),
            default=default,
            task=task,
            threshold=threshold,
        )
        self.threshold = threshold
        self.pos_label = None
        self.dialect = "perfeval"
        self.clustered = False
        self.classes = labels
        self._needs_rows = False
        self.reset()

    @property
    def _keeps_rows(self) -> bool:
        return self._needs_rows or bool(self._grouped)

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays the state holds now (the summary and the batches waiting for it, the
        kept rows, or with ``clustered=True`` the finished groups and the rows of the open one;
        Python objects an object array points to included).  Without groups it follows the distinct
        scores; with groups the rows (about 9 to 21 bytes a row, see docs/metric.md); with
        ``clustered=True`` the groups (8 bytes per key and per measure, and the size) and the rows
        of one group.

        Examples
        --------
        >>> m = Metric(["gauc"], clustered=True)
        >>> m.update([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6], groups=[7, 7, 8, 8])
        >>> m.nbytes  # group 7: its key, size and GAUC; group 8's rows are kept until it ends
        72
        """
        size = (
            nbytes(self._labels) + nbytes(self._hist.scores) + nbytes(self._hist.pos) + nbytes(self._hist.neg)
        )
        size += sum(nbytes(a) for p in self._pending for a in p)
        size += self._kept.nbytes + self._done.nbytes
        if self._mc is not None:
            size += self._mc.nbytes
        if self._reg is not None:
            r = self._reg
            size += nbytes(r.absres) + nbytes(r.absw) + nbytes(r.yval) + nbytes(r.yw)
        if self._open is not None:
            size += sum(nbytes(a) for a in self._open)
        if self._slices is not None:
            size += self._slices.nbytes
        return size + nbytes(self._zero)

    # -- update ------------------------------------------------------------------------------------------
    def update(
        self,
        y_true: Any,
        y_score: Any,
        *,
        groups: Any = None,
        sample_weight: Any = None,
        ids: Any = None,
        by: Any = None,
    ) -> None:
        """Add a batch of cases.

        Parameters
        ----------
        y_true, y_score, groups, sample_weight
            As in :func:`perfeval.evaluate` (targets first): array-likes, torch/jax/cupy arrays
            included (see :func:`host_array`).  Give ``groups`` to every update or to none (with
            ``clustered=True``: to every update), ids of one kind (integers, or text) in all, and
            ``sample_weight`` to every update or to none.
        ids : array-like, optional
            With a ``dialect`` that orders tied documents by their ids (``trec_eval``), each row's
            document id, as ``evaluate(..., ids=)`` takes them; to every update or to none.  Under
            another dialect, perfeval's own included, an error (as ``evaluate`` refuses them).
        by : mapping or DataFrame, optional
            With ``Metric(..., by=[...])`` (and only then), the batch's slice columns: a mapping of
            the names of ``by`` to arrays, or a DataFrame holding them; to every update.

        Raises
        ------
        InvalidParameterError, InvalidDataError
            The errors :func:`perfeval.evaluate` gives for these rows together with the rows seen
            before (the message's index is within this batch); group ids of another kind than the
            earlier updates'; with ``clustered=True``, a group whose rows come again after it
            ended (named).  The state is unchanged: a batch is taken whole or not at all.
        """
        arrays = {"y_true": y_true, "y_score": y_score, "groups": groups, "ids": ids}
        no_table("Metric.update()", **arrays, sample_weight=sample_weight)
        self._check_by(by)
        if self.classes is not None:
            self._update_classes(y_true, y_score, groups, sample_weight, ids, by)
            return
        if self._task == "regression":
            self._update_regression(y_true, y_score, groups, sample_weight, ids, by)
            return
        y = host_array(y_true, "y_true")
        s = host_array(y_score, "y_score")
        g = None if groups is None else host_array(groups, "groups")
        w = None if sample_weight is None else host_array(sample_weight, "sample_weight")
        # the door: check -> code (each batch's targets coded once, for the checks and the summary);
        # a dialect may count the cases of weight 0 (Spark)
        c = code(check(y, s, g, w, keep_zero=self.dialect != "perfeval"), self.pos_label)
        i = self._check_ids(ids, c)
        self._check_mode(g is not None, w is not None)
        labels, family, positive = self._check_targets(c)
        first = g[0] if g is not None and len(g) and c.g is not None and c.g.dtype.kind == "O" else None
        group_dtype, group_kind = self._check_groups(c.g, first, c.rows_in)
        finished = self._finish_update(c) if self.clustered else None
        summary = not (self._needs_rows or g is not None or w is not None)
        feed, part = self._slices_read(by, c.rows_in, summary)
        zero = _zero_union(self._zero, c.zero_groups)
        saved = self._saved()  # the batch is valid: the state changes from here on, whole or not at all
        try:
            self._zero = zero
            if feed is not None:  # every row: those of weight 0 count in the slices' rows
                self._slices = feed
                if summary:
                    feed.take(part, positive=np.asarray(c.targets.coding()) == 1, scores=c.s)
                else:
                    feed.take(part, arrays=(y, s, g, w))
            self._grouped, self._weighted = g is not None, w is not None
            self._with_ids = i is not None
            self._rows_in += c.rows_in
            self._labels, self._family = labels, family
            self._any_positive = self._any_positive or positive
            self._group_dtype, self._group_kind = group_dtype, group_kind
            if finished is not None:
                (keys, sizes, values, key_dtype, whys), self._open = finished
                self._done.add(keys, sizes, values, key_dtype, whys)
                return
            if not len(c.s):
                return
            if self._keeps_rows:
                self._kept.add(c.y, c.s, c.g, c.w, i)  # copied, compactly
                return
            # this batch's labels are among the labels checked above, so it has their coding
            is_pos = np.asarray(c.targets.coding()) == 1
            self._pending.append(cells(is_pos, c.s, c.w))  # sorted cells, folded in by _fold
            self._pending_rows += len(c.s)
            if self._pending_rows >= max(_FOLD_ROWS, len(self._hist.scores)):
                self._fold()
        except BaseException:
            self._restore(saved)
            raise

    def _update_regression(
        self, y_true: Any, y_score: Any, groups: Any, sample_weight: Any, ids: Any, by: Any = None
    ) -> None:
        """update() of a regression target: the batch checked as evaluate(..., task="regression")
        checks it, folded into the exact sums (with groups: the checked rows kept).
        """
        from perfeval.engine.regression import check_regression, fold

        if ids is not None:
            raise InvalidParameterError(
                "`ids=` orders tied documents for a dialect, not for a regression target"
            )
        y = host_array(y_true, "y_true")
        s = host_array(y_score, "y_score")
        g = None if groups is None else host_array(groups, "groups")
        w = None if sample_weight is None else host_array(sample_weight, "sample_weight")
        c = check_regression(y, s, g, w)
        self._check_alike(g is not None, w is not None)
        first = g[0] if g is not None and len(g) and c.g is not None and c.g.dtype.kind == "O" else None
        group_dtype, group_kind = self._check_groups(c.g, first, c.rows_in)
        summary = self._reg if g is not None else fold(self._reg, c)  # made whole before it is taken
        feed, part = self._slices_read(by, c.rows_in, False)
        zero = _zero_union(self._zero, c.zero_groups)
        saved = self._saved()
        try:
            self._zero = zero
            if feed is not None:
                self._slices = feed
                feed.take(part, arrays=(y, s, g, w))
            if g is not None and len(c.y):
                self._kept.add(np.asarray(c.y, dtype=np.float64), c.s, c.g, c.w, None)  # copied, compactly
            self._reg = summary
            self._grouped, self._weighted = g is not None, w is not None
            self._group_dtype, self._group_kind = group_dtype, group_kind
            self._rows_in += c.rows_in
        except BaseException:
            self._restore(saved)
            raise

    def _update_classes(
        self, y_true: Any, y_score: Any, groups: Any, sample_weight: Any, ids: Any, by: Any = None
    ) -> None:
        """update() of K classes: the batch checked and coded as evaluate(y, S, classes=) checks it
        (:func:`perfeval.engine.door.check_classes`), its rows held to be folded in row order.
        """
        from perfeval.engine.door import check_classes, check_labels

        multilabel = self._task == "multilabel"
        what_k = "K labels" if multilabel else "K classes"
        if ids is not None:
            raise InvalidParameterError(f"`ids=` orders tied documents for a dialect, not for {what_k}")
        g = None if groups is None else host_array(groups, "groups")
        w = None if sample_weight is None else host_array(sample_weight, "sample_weight")
        y: Any = y_true
        if multilabel:  # two (n, K) matrices, read through the array protocols at the door
            cases, _found, _how = check_labels(y_true, y_score, g, w, labels=self.classes, word="labels")
        else:
            y = host_array(y_true, "y_true")
            cases, _found, _how = check_classes(y, y_score, g, w, classes=self.classes)
        self._check_alike(g is not None, w is not None)
        first = (
            g[0] if g is not None and len(g) and cases.g is not None and cases.g.dtype.kind == "O" else None
        )
        group_dtype, group_kind = self._check_groups(cases.g, first, cases.rows_in)
        assert self._mc is not None and self.classes is not None
        # the batch is valid: the new state is made whole, then taken (with groups: the rows kept,
        # finished at compute() as evaluate(..., groups=) finishes them)
        fresh = g is not None and not self._grouped
        state: Any = GroupedRows(self.classes, self._task or "multiclass") if fresh else self._mc.copy()
        if g is not None:
            state.add(cases.y, cases.s, cases.g, cases.w)
        else:
            state.add(cases.y, cases.s, cases.w)
        feed, part = self._slices_read(by, cases.rows_in, False)
        if feed is not None:  # the rows as given, read again by the door at compute()
            self._slices = feed
            feed.take(part, arrays=(y, as_array(y_score, "y_score"), g, w))
        self._mc = state
        self._grouped, self._weighted = g is not None, w is not None
        self._group_dtype, self._group_kind = group_dtype, group_kind
        self._rows_in += cases.rows_in

    def _check_by(self, by: Any) -> None:
        """Slice columns given to every update of a Metric made with ``by=``, and to none of others."""
        if self._ask is None and by is not None:
            raise InvalidParameterError(
                "update(..., by=...) gives the slice columns of a Metric made with by=[...] (this one has no "
                "slices): Metric(..., by=['country', ...])"
            )
        if self._ask is not None and by is None:
            raise InvalidParameterError(
                f"this Metric slices by {', '.join(self._ask.names)}: give update(..., by={{...}}) those "
                "columns of the batch"
            )

    def _slices_read(self, by: Any, n: int, summary: bool) -> tuple[Any, Any]:
        """The batch's slice columns read and checked (nothing changed yet): the slices' feed (made at
        the first update: ``summary`` for unweighted binary measures, else the rows) and the batch
        read, or (None, None) without slices.
        """
        if self._ask is None:
            return None, None
        from perfeval.backends.slices import SliceFeed

        feed = self._slices
        if feed is None:
            feed = SliceFeed(self._ask, summary=summary)
        feed.rows_in = self._rows_in  # the batch's rows numbered after every row so far
        return feed, feed.read(by, n, "an update")

    def _saved(self) -> tuple:
        """What :meth:`_restore` puts back, so that a change of the state is made whole or not at
        all: the attributes, and the lengths or lists of the batches waiting, the kept parts and
        the finished groups.  The list of batches waiting is only appended to (a fold makes a new
        one): its length is enough, and copying it at every update would cost O(batches) each time.
        """
        return dict(self.__dict__), len(self._pending), self._kept.snapshot(), self._done.snapshot()

    def _restore(self, saved: tuple) -> None:
        """The state as it was when ``saved`` (:meth:`_saved`): a failed call changes nothing."""
        attributes, pending, kept, done = saved
        self.__dict__.clear()
        self.__dict__.update(attributes)
        del self._pending[pending:]
        self._kept.restore(kept)
        self._done.restore(done)

    def _check_ids(self, ids: Any, c: Cases) -> np.ndarray | None:
        """The document ids of a batch, checked as evaluate(..., ids=) checks them: one a row, none
        missing, none on a row of weight 0; only with a dialect, and to every update or to none.
        """
        if ids is None:
            if self._with_ids:
                raise InvalidParameterError(
                    "`ids=` was given to the earlier updates of this Metric but not to this one"
                )
            return None
        from perfeval.dialects.apply import ids_not_read

        unread = ids_not_read(self.dialect, "ids=", "pass Metric(..., dialect='trec_eval')")
        if unread is not None:  # evaluate()'s refusal, in its words: never kept and dropped
            raise unread
        if self._with_ids is False:
            raise InvalidParameterError(
                "`ids=` was given to this update but not to the earlier ones of this Metric"
            )
        a = host_array(ids, "ids")
        if len(a) != c.rows_in:
            raise InvalidParameterError(f"`ids` needs one id per row ({c.rows_in}), got {a.shape}")
        if a.dtype.kind == "O":
            for k, v in enumerate(a.tolist()):
                if v is None or (isinstance(v, float) and v != v):
                    raise InvalidDataError(f"`ids` holds {v!r} at index {k}; every row needs a document id")
        if c.w is not None and not c.w.all():
            raise InvalidParameterError("`ids` with rows of weight 0: drop those rows first")
        return a

    def _check_groups(
        self, g: np.ndarray | None, first: Any, rows: int
    ) -> tuple[np.dtype | None, str | None]:
        """The dtype and kind of the group ids of every update so far with these (``first``: this
        batch's first id when they are Python objects, whose kind is that of their values): refused
        when they cannot be put together exactly (numbers and text, Python integers and text, or
        64-bit ids of both signs, which numpy would join as floats).
        """
        if g is None:
            if self.clustered:
                raise InvalidParameterError(
                    "clustered=True finishes the groups as their rows come: pass `groups=` to every update"
                )
            return self._group_dtype, self._group_kind
        if not rows:  # no id: no kind to check (an empty list reads as floats)
            return self._group_dtype, self._group_kind
        kind = _ids_kind(g.dtype, first)
        joined = _joined_ids(
            self._group_dtype,
            self._held_group_kind(),
            g.dtype,
            kind,
            "in this update",
            "in the earlier ones of this Metric",
        )
        return joined, kind if kind is not None else self._group_kind

    def _held_group_kind(self) -> str | None:
        """The kind of the group ids held (read off a held id for a state of an earlier layout)."""
        if self._group_kind is not None or self._group_dtype is None:
            return self._group_kind
        if self._group_dtype.kind != "O":
            return _ids_kind(self._group_dtype, None)
        held = self._kept.first_group_id()
        if held is None:
            held = self._done.first_key()
        if held is None and self._open is not None and len(self._open[2]):
            held = self._open[2][0]
        return None if held is None else _ids_kind(np.dtype(object), _plain(held))

    def _finish_update(self, c: Cases):
        """With ``clustered=True``: this update's groups finished, with the rows left open before,
        except the group of its last row, which the next update may continue.  Returns the finished
        groups (keys, sizes, values by measure, the keys' dtype) and the rows of the open group, or
        raises, naming the group, when a group ends again after it was finished.
        """
        assert c.g is not None
        y, s, g, w = c.y, c.s, c.g, c.w
        nothing: tuple[Any, Any, Any, dict[str, dict]] = (
            g[:0],
            np.zeros(0),
            np.zeros((len(self._done.labels), 0)),
            {},
        )
        if not len(s):  # no case: the open group stays open
            keys, sizes, values, whys = nothing
            return (
                keys,
                sizes,
                values,
                g.dtype if self._group_dtype is None else self._group_dtype,
                whys,
            ), self._open
        if self._open is not None:  # the group left open continues here, or ends with the rows below
            oy, os_, og, ow = self._open
            y, s, g = np.concatenate([oy, y]), np.concatenate([os_, s]), np.concatenate([og, g])
            w = None if w is None else np.concatenate([ow, w])
        last = g[-1:]
        in_last = g == last[0]
        rest = ~in_last
        # new arrays (a boolean index copies): none of the caller's buffers is kept
        open_rows = (y[in_last], s[in_last], g[in_last], None if w is None else w[in_last])
        if in_last.all():
            keys, sizes, values, whys = nothing
        else:
            keys, sizes, values, whys = self._finish_groups(
                y[rest], s[rest], g[rest], None if w is None else w[rest]
            )
        again = self._done.held(np.concatenate([keys, last]) if len(keys) else last)
        if again.any():
            key = (np.concatenate([keys, last]) if len(keys) else last)[int(np.argmax(again))]
            raise InvalidDataError(
                f"group {_plain(key)!r} comes again after it ended: with clustered=True a group's rows "
                "must come together (in one update, or running on from the end of one update into the "
                "next); drop clustered=True to keep every row instead"
            )
        return (keys, sizes, values, g.dtype, whys), open_rows

    def _finish_groups(self, y, s, g, w) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Whole groups finished by the engine as evaluate() finishes them among all the rows: their
        keys (sorted), sizes and each measure's value (one row a measure, in :meth:`_order`).  With
        a positive label the measures that read it are given the 0/1 coding evaluate() makes of
        the targets (so a batch without a positive is no error here: compute() says it, as
        evaluate() would, when no row at all has one).
        """
        specs = self._specs
        coded = (
            [sp for sp in specs if sp.measure.kind in ("binary", "grouped")]
            if self.pos_label is not None
            else []
        )
        plain = [sp for sp in specs if sp not in coded]
        values: dict[str, np.ndarray] = {}
        whys: dict[str, dict] = {}  # the NaN groups' reasons (engine.finish.group_whys)
        keys = sizes = None
        with warnings.catch_warnings():  # said once, for all the groups, by compute()
            warnings.simplefilter("ignore")
            for part, yy in ((plain, y), (coded, None)):
                if not part:
                    continue
                if yy is None:
                    yy = np.asarray(binary_coding(y, self.pos_label), dtype=np.float64)
                r = finish(Cases(yy, s, g, w, len(s)), part, threshold=self.threshold)
                keys, sizes = np.asarray(r.groups), r.group_sizes
                whys.update(group_whys(r))
                for sp in part:
                    per_group = r.results[sp.label].per_group
                    assert per_group is not None  # a grouped report
                    values[sp.label] = per_group
        assert keys is not None and sizes is not None
        return (
            keys,
            sizes,
            np.array([values[lab] for lab in self._done.labels], dtype=np.float64).reshape(
                len(self._done.labels), len(keys)
            ),
            whys,
        )

    def _order(self) -> list[str]:
        """The labels in the order finish() computes them (the rows of the finished groups' values):
        the per-query measures (with a positive label, those reading grades, then the group AUCs,
        which read it), then the binary ones.
        """
        kinds = [s.measure.kind for s in self._specs]
        ranking = [s.label for s, k in zip(self._specs, kinds, strict=True) if k in ("ranking", "grouped")]
        if self.pos_label is not None and "grouped" in kinds:
            ranking = [s.label for s, k in zip(self._specs, kinds, strict=True) if k == "ranking"]
            ranking += [s.label for s, k in zip(self._specs, kinds, strict=True) if k == "grouped"]
        return ranking + [s.label for s, k in zip(self._specs, kinds, strict=True) if k == "binary"]

    def _check_mode(self, grouped: bool, weighted: bool) -> None:
        self._check_alike(grouped, weighted)
        if self.dialect != "perfeval":  # the tool's own: weights or groups it does not take
            _check_dialect_batches(self.dialect, self._specs, grouped, weighted)
            return
        grouped_specs = [s.label for s in self._specs if s.measure.kind == "grouped"]
        if grouped_specs and not grouped:
            raise InvalidParameterError(f"{grouped_specs[0]} is computed over groups: pass `groups=`")
        ranking = [s.label for s in self._specs if s.measure.kind != "binary"]
        if ranking and weighted:
            raise InvalidParameterError(
                f"`weights` apply to the binary measures only, not to {ranking[0]} "
                "(a per-query measure); evaluate them without weights"
            )

    def _check_alike(self, grouped: bool, weighted: bool) -> None:
        """Groups and weights given to every update or to none."""
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

    def _check_targets(self, c: Cases) -> tuple[np.ndarray | None, str | None, bool]:
        """The checks of evaluate() on the targets, over this batch and the batches before: the
        distinct labels, their kind and whether a positive was seen, with this batch.
        """
        y = c.y
        coded = self.pos_label is not None
        if self.dialect != "perfeval":  # the tool reads them: compute() says what it refuses
            if not coded or not len(y):
                return self._labels, self._family, self._any_positive
            kind = self._family or _family(y)
            if _family(y) != kind:
                raise InvalidDataError(
                    f"`y_true` holds {_family(y)} in this update and {kind} in the earlier ones "
                    f"of this Metric: pos_label={self.pos_label!r} is read by the kind of the labels"
                )
            return self._labels, kind, self._any_positive
        ranking = [s for s in self._specs if s.measure.kind == "ranking"]
        grouped = [s for s in self._specs if s.measure.kind == "grouped"]
        binary = [s for s in self._specs if s.measure.kind == "binary"]
        as_relevance = ranking + ([] if coded else grouped)
        if as_relevance:  # graded relevance >= 0, row by row (labels said as evaluate() says them)
            c.targets.relevance(as_relevance)
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
                and _known(new, labels)  # the usual batch: no new label
            ):
                labels = _union(labels, new)
        if coded:
            hit = np.asarray(c.targets.coding())
            return labels, family, self._any_positive or bool(hit.any())
        if labels is not None and binary_coding(labels) is None:  # evaluate()'s message, every label seen
            binary_targets(labels, labelled[0].label, rows=y)  # (a NaN: found in this batch, new in it)
        return labels, family, False

    def _fold(self) -> None:
        """Add the pending cells to the summary (:func:`perfeval.summaries.histogram.folded`: each
        distinct score's weight summed in row order, as evaluate() sums it).
        """
        if not self._pending:
            return
        self._hist = folded(self._hist, self._pending)
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
                f"cannot merge {other._signature()} into {self._signature()}: the measures, "
                "their parameters, the positive label and the dialect must be the same"
            )
        for what, mine, theirs in (
            ("groups=", self._grouped, other._grouped),
            ("sample_weight=", self._weighted, other._weighted),
            ("ids=", self._with_ids, other._with_ids),
        ):
            if mine is not None and theirs is not None and mine != theirs:
                raise InvalidParameterError(
                    f"cannot merge: `{what}` was given to the updates of one Metric and not to the other's"
                )
        slices = self._merged_slices(other)
        if self.classes is not None:
            out = self._merge_classes(other)
        elif self._task == "regression":
            out = self._merge_regression(other)
        else:
            out = self._merge_rows(other, fold)
        out._slices = slices
        return out

    def _merged_slices(self, other: Metric) -> Any:
        """The slices of both Metrics (``other``'s rows after this one's), made apart from both (a
        failed merge changes neither), or None without slices.
        """
        if other._slices is None:
            return self._slices
        mine = other._slices.copy() if self._slices is None else self._slices.copy()
        if self._slices is not None:
            mine.merge(other._slices)
        return mine

    def _merge_regression(self, other: Metric) -> Metric:
        """merge() of a regression target: the exact sums added (any order: the same bits), or the
        other's kept rows after this one's.
        """
        group_dtype = self._group_dtype
        if other._group_dtype is not None:
            group_dtype = _joined_ids(
                group_dtype,
                self._held_group_kind(),
                other._group_dtype,
                other._held_group_kind(),
                "in the Metric merged in",
                "in this one",
            )
        summary = self._reg + other._reg
        zero = _zero_union(self._zero, other._zero)
        saved = self._saved()
        try:
            self._kept.extend(other._kept)
            self._reg = summary
            self._zero = zero
            self._grouped = self._grouped if self._grouped is not None else other._grouped
            self._weighted = self._weighted if self._weighted is not None else other._weighted
            self._group_dtype = group_dtype
            self._group_kind = self._group_kind or other._group_kind
            self._rows_in += other._rows_in
        except BaseException:
            self._restore(saved)
            raise
        return self

    def _merge_rows(self, other: Metric, fold: bool) -> Metric:
        """merge() of the binary and per-query measures, once the two Metrics are known alike."""
        if self._family and other._family and self._family != other._family:
            raise InvalidDataError(
                f"cannot merge: `y_true` holds {self._family} in one Metric and {other._family} in the "
                f"other: pos_label={self.pos_label!r} is read by the kind of the labels"
            )
        if self.clustered != other.clustered:
            raise InvalidParameterError(
                "cannot merge a Metric made with clustered=True and one made without: "
                "one keeps every row, the other only each group's values"
            )
        group_dtype, group_kind = self._group_dtype, self._held_group_kind()
        if other._group_dtype is not None:
            theirs_kind = other._held_group_kind()
            group_dtype = _joined_ids(
                group_dtype,
                group_kind,
                other._group_dtype,
                theirs_kind,
                "in the Metric merged in",
                "in this one",
            )
            group_kind = group_kind or theirs_kind
        labels = self._labels
        if other._labels is not None:
            labels = other._labels if labels is None else _union(labels, other._labels)
        labelled = [s for s in self._specs if s.measure.kind == "binary"]
        if labels is not None and labelled and self.pos_label is None and binary_coding(labels) is None:
            binary_targets(labels, labelled[0].label)
        theirs_done = None
        if self.clustered:
            theirs_done = self._merge_groups(other)
        theirs_pending = (
            [(other._hist.scores, other._hist.pos, other._hist.neg)] if len(other._hist.scores) else []
        )
        theirs_pending += list(other._pending)
        zero = _zero_union(self._zero, other._zero)
        saved = self._saved()  # the merge is valid: the state changes from here on, whole or not at all
        try:
            self._zero = zero
            self._labels = labels
            self._family = self._family or other._family
            self._any_positive = self._any_positive or other._any_positive
            self._grouped = self._grouped if self._grouped is not None else other._grouped
            self._weighted = self._weighted if self._weighted is not None else other._weighted
            self._with_ids = self._with_ids if self._with_ids is not None else other._with_ids
            self._group_dtype, self._group_kind = group_dtype, group_kind
            self._rows_in += other._rows_in
            self._kept.extend(other._kept)
            if theirs_done is not None:
                self._done.extend(theirs_done)
            if theirs_pending:  # folded as batches are: when they outgrow the summary
                self._pending.extend(theirs_pending)
                self._pending_rows += sum(len(p[0]) for p in theirs_pending)
                if fold and self._pending_rows >= max(_FOLD_ROWS, len(self._hist.scores)):
                    self._fold()
        except BaseException:
            self._restore(saved)
            raise
        return self

    def _merge_classes(self, other: Metric) -> Metric:
        """merge() of K classes: the other's summary (its held rows folded in, the other unchanged)
        merged after this one's (:meth:`ClassSummary.merge`).
        """
        assert self._mc is not None and other._mc is not None
        if self._grouped or other._grouped:  # the rows kept: the other's after this one's
            group_dtype = self._group_dtype
            if other._group_dtype is not None:
                group_dtype = _joined_ids(
                    group_dtype,
                    self._held_group_kind(),
                    other._group_dtype,
                    other._held_group_kind(),
                    "in the Metric merged in",
                    "in this one",
                )
            assert self.classes is not None
            rows = GroupedRows(self.classes, self._task or "multiclass")
            for m in (self, other):
                if m._grouped:
                    rows.extend(m._mc)
            self._mc = rows
            self._group_dtype = group_dtype
            self._group_kind = self._group_kind or other._group_kind
        else:
            mine = self._mc.copy()
            mine.fold()
            mine.summary = mine.summary.merge(other._mc.folded())
            self._mc = mine
        self._grouped = self._grouped if self._grouped is not None else other._grouped
        self._weighted = self._weighted if self._weighted is not None else other._weighted
        self._rows_in += other._rows_in
        return self

    def _signature(self) -> str:
        """The computation, as a message names it: ``Metric(['ROC'], threshold=0.5, pos_label=None)``."""
        text = f"Metric({self.measures}, threshold={self.threshold!r}, pos_label={self.pos_label!r}"
        if self.classes is not None:
            text += f", {'labels' if self._task == 'multilabel' else 'classes'}={list(self.classes)!r}"
        return text + (f", dialect={self.dialect!r})" if self.dialect != "perfeval" else ")")

    def _merge_groups(self, other: Metric) -> FinishedGroups:
        """``other``'s groups, its open group finished (its rows cannot go on in this Metric's
        updates); refused, naming the group, when a group is in both Metrics.  This Metric's own
        open group stays open.
        """
        theirs = FinishedGroups(self._done.labels)
        theirs.extend(other._done)
        if other._open is not None:
            y, s, g, w = other._open
            keys, sizes, values, whys = self._finish_groups(y, s, g, w)
            theirs.add(keys, sizes, values, g.dtype, whys)
        checks = [(self._done, theirs.one()[0])]
        if self._open is not None:
            checks.append((theirs, self._open[2][:1]))
        for held_by, asked in checks:
            both = held_by.held(asked)
            if both.any():
                raise InvalidDataError(
                    f"cannot merge: group {_plain(asked[int(np.argmax(both))])!r} is in both Metrics; "
                    "with clustered=True each group's rows must all go to one Metric (drop "
                    "clustered=True to keep every row instead)"
                )
        return theirs

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
        out = first._copy()  # not first.state_dict(): that would fold the first Metric's batches
        for m in metrics[1:]:
            out._merge(m, False)
        out._fold()  # one sort of every summary's cells: their sorted runs merged at once
        return out

    def _copy(self) -> Metric:
        """A new Metric of the same state; this one unchanged (the arrays and parts it holds are
        never written to, so they are shared; the lists of them are copied).
        """
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out._pending = list(self._pending)
        out._kept = self._kept.copy()
        out._done = self._done.copy()
        out._mc = None if self._mc is None else self._mc.copy()
        out._slices = None if self._slices is None else self._slices.copy()
        return out

    # -- compute -----------------------------------------------------------------------------------------
    def compute(self) -> Report:
        """The :class:`~perfeval.engine.report.Report` of :func:`perfeval.evaluate` on every row so far.

        The same values, per-group tables, warnings and errors; ``report.params["backend"]`` is
        ``"metric"``.  With no row it is evaluate()'s answer to no data (NaN values with an
        :class:`~perfeval.exceptions.UndefinedMeasureWarning`).  The state is kept: later updates
        add to it.  With ``by=``, ``report.slices`` holds the slices of every row so far.
        """
        report = self._compute()
        if self._ask is not None:
            self._attach_slices(report)
        return report

    def _attach_slices(self, report: Report) -> None:
        """The slices of every row so far into ``report.slices``, as evaluate(..., by=) makes them:
        from the combinations' summaries, or from the rows kept, read again by evaluate()'s door.
        """
        from perfeval.backends.slices import SliceFeed
        from perfeval.engine.door import check_classes, check_labels
        from perfeval.engine.slices import Task

        assert self._ask is not None
        feed = self._slices if self._slices is not None else SliceFeed(self._ask, summary=True)
        specs = tuple(self._specs)
        if self._task == "regression":
            from perfeval.engine.regression import check_regression

            task = Task("regression", specs, task_from=self._how or "")

            def door(y: Any, s: Any, g: Any, w: Any) -> tuple:
                return check_regression(y, s, g, w), task

        elif self.classes is not None:
            kind: Literal["classes", "labels"] = "labels" if self._task == "multilabel" else "classes"
            task = Task(kind, specs, self.threshold, classes=self.classes, classes_from="given")

            def door(y: Any, s: Any, g: Any, w: Any) -> tuple:
                if kind == "labels":
                    cases, found, how = check_labels(y, s, g, w, labels=self.classes, word="labels")
                else:
                    cases, found, how = check_classes(y, s, g, w, classes=self.classes)
                return cases, Task(kind, specs, self.threshold, classes=tuple(found), classes_from=how)

        else:
            task = Task("binary", specs, self.threshold, self.pos_label)

            def door(y: Any, s: Any, g: Any, w: Any) -> tuple:
                if (
                    g is not None
                    and self._group_dtype is not None
                    and np.asarray(g).dtype != self._group_dtype
                ):
                    g = np.asarray(g).astype(self._group_dtype)
                return code(check(y, s, g, w), self.pos_label, keep=False), task

        feed.attach(report, task, door)

    def _compute(self) -> Report:
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
        if self.classes is not None:
            return self._compute_classes(params)
        if self._task == "regression":
            return self._compute_regression()
        if self.clustered:
            return self._compute_groups(params)
        if self.dialect != "perfeval":
            return self._compute_dialect()
        if self._keeps_rows:  # finish() gives every error of evaluate() on these rows itself
            rows = self._kept.arrays()  # read back for the engine; the state stays compact
            y, s, g, w = rows if rows is not None else self._nothing()
            if g is not None and self._group_dtype is not None and g.dtype != self._group_dtype:
                g = g.astype(self._group_dtype)  # a batch whose every row weighed 0 had ids too
            if g is not None:
                self._say_zero_groups(lambda ids: np.isin(ids, g))
            return self._finish_rows(y, s, g, w)
        if self.pos_label is not None and not self._any_positive:
            self._no_positive()
        self._fold()
        results: dict = {}
        pairs, twins = threshold_companions(self._specs)  # each operating point's threshold beside it
        specs = self._specs + twins
        binary_values(specs, self._hist, "", results)
        warn_undefined(results, specs)
        report = Report(results, None, params)
        report.summary = self._hist  # intervals can be drawn from it (perfeval.stats.ci_from_summary)
        return with_thresholds(report, pairs)

    def _compute_regression(self) -> Report:
        """compute() of a regression target: the report evaluate(..., task="regression") gives on
        every row so far (from the exact sums; with groups, from the kept rows).
        """
        from dataclasses import replace

        from perfeval.engine.regression import check_regression, finish_regression, summary_report

        assert self._how is not None
        if self._grouped:
            rows = self._kept.arrays()
            y, s, g, w = rows if rows is not None else self._nothing()
            assert g is not None  # grouped
            if self._group_dtype is not None and g.dtype != self._group_dtype:
                g = g.astype(self._group_dtype)
            self._say_zero_groups(lambda ids: np.isin(ids, g))
            cases = check_regression(y, s, g, w)
            report = finish_regression(
                Cases(cases.y, cases.s, cases.g, cases.w, self._rows_in), self._specs, task_from=self._how
            )
        else:
            summary = replace(self._reg, rows=self._rows_in)
            report = summary_report(
                summary, self._specs, weighted=bool(self._weighted), backend="metric", task_from=self._how
            )
        report.params["backend"] = "metric"
        return report

    def _compute_classes(self, params: dict) -> Report:
        """compute() of K classes: every measure finished from the one summary by the engine that
        finishes evaluate(y, S, classes=) (:func:`perfeval.engine.classes.summary_values`).
        """
        from perfeval.engine.classes import TIES_CLASSES, summary_values
        from perfeval.engine.labels import TIES_LABELS

        assert self._mc is not None and self.classes is not None
        if isinstance(self._mc, GroupedRows):
            return self._compute_class_groups(params)
        self._mc.fold()
        cs = self._mc.summary
        results = summary_values(self._specs, cs)
        warn_undefined(results, self._specs)
        task = self._task or "multiclass"
        params.update(
            ties=TIES_LABELS if task == "multilabel" else TIES_CLASSES,
            pos_label=None,
            task=task,
            classes=list(self.classes),
            classes_from="given",
        )
        report = Report(results, None, params)
        report.summary = cs
        return report

    def _compute_class_groups(self, params: dict) -> Report:
        """compute() of K classes or K labels with groups: the rows kept, finished by the engine that
        finishes evaluate(..., groups=) (:func:`perfeval.engine.classes.finish_classes`,
        :func:`perfeval.engine.labels.finish_labels`) on every row so far: its bits.
        """
        from perfeval.base.checks import Cases
        from perfeval.engine.classes import finish_classes
        from perfeval.engine.labels import finish_labels

        assert isinstance(self._mc, GroupedRows) and self.classes is not None
        k = len(self.classes)
        held = self._mc.arrays()
        if held is None:
            ids = np.zeros(0, dtype=np.int64 if self._group_dtype is None else self._group_dtype)
            y0 = np.zeros((0, k), dtype=bool) if self._task == "multilabel" else np.zeros(0, np.intp)
            held = (y0, np.zeros((0, k)), ids, np.zeros(0) if self._weighted else None)
        y, s, g, w = held
        if self._group_dtype is not None and g.dtype != self._group_dtype:
            g = g.astype(self._group_dtype)
        cases = Cases(y, s, g, w, int(self._rows_in))
        if self._task == "multilabel":
            report = finish_labels(
                cases, self._specs, self.classes, threshold=self.threshold, labels_from="given"
            )
        else:
            report = finish_classes(cases, self._specs, self.classes, threshold=0.5, classes_from="given")
        report.params["backend"] = "metric"
        return report

    def _compute_dialect(self) -> Report:
        """compute() under a dialect: evaluate(..., dialect=) of the kept rows, every one (those of
        weight 0 too, which a tool may count: Spark bins their scores), the same function on the
        same arrays, so the same numbers, warnings and errors.
        """
        from perfeval.dialects.apply import evaluate_dialect

        rows = self._kept.arrays()
        y, s, g, w = rows if rows is not None else self._nothing()
        ids = self._kept.ids()
        if g is not None and w is not None and not w.all():  # every row kept: evaluate()'s check
            say_zero_weight_groups(zero_weight_groups(g, w > 0))
        every = Cases(y, s, g, w, self._rows_in)
        checked, raw = every, None
        if w is not None and not w.all():  # as evaluate() checks them: the cases of weight 0 dropped
            keep = w > 0
            checked = Cases(y[keep], s[keep], None if g is None else g[keep], w[keep], self._rows_in)
            raw = every
        report = evaluate_dialect(
            checked,
            self._specs,
            self.dialect,
            threshold=self.threshold,
            pos_label=self.pos_label,
            ids=ids,
            raw=raw,
        )
        report.params["backend"] = "metric"
        return report

    def _finish_rows(self, y: Any, s: Any, g: Any, w: Any) -> Report:
        """The engine's report of these rows (every error of evaluate() on them), as the Metric's."""
        report = finish(
            Cases(y, s, g, w, self._rows_in), self._specs, threshold=self.threshold, pos_label=self.pos_label
        )
        report.params["backend"] = "metric"
        return report

    def _compute_groups(self, params: dict) -> Report:
        """compute() with ``clustered=True``: the finished groups and the open one, their means
        taken as finish() takes them, over every group in key order.
        """
        open_ids = self._open[2] if self._open is not None else None
        self._say_zero_groups(
            lambda ids: self._done.held(ids) | (np.isin(ids, open_ids) if open_ids is not None else False)
        )
        if self.pos_label is not None and any(s.measure.kind != "ranking" for s in self._specs):
            if not self._any_positive:
                self._no_positive()
        keys, sizes, values = self._done.one()
        key_dtype = self._done.key_dtype
        whys = {label: dict(said) for label, said in self._done.whys.items()}
        if self._open is not None:
            y, s, g, w = self._open
            k, z, v, open_whys = self._finish_groups(y, s, g, w)
            for label, said in open_whys.items():
                whys.setdefault(label, {}).update(said)
            if len(keys):  # (an empty array's dtype must not join in: int64 with uint64 is float64)
                keys, sizes, values = (
                    np.concatenate([keys, FinishedGroups.stored(k)]),
                    np.concatenate([sizes, z]),
                    np.concatenate([values, v], axis=1),
                )
                order = np.argsort(keys, kind="stable")
                keys, sizes, values = keys[order], sizes[order], values[:, order]
            else:
                keys, sizes, values = FinishedGroups.stored(k), z, v
            key_dtype = (
                g.dtype if key_dtype is None else np.concatenate([np.zeros(0, key_dtype), g[:0]]).dtype
            )
        if not len(keys):  # no case at all: evaluate()'s answer to no data
            return self._finish_rows(*self._nothing())
        if self._group_dtype is not None:  # every update's ids, those of rows of weight 0 included
            key_dtype = self._group_dtype
        if key_dtype is not None and keys.dtype != key_dtype:
            keys = keys.astype(key_dtype)  # the ids as evaluate() gives them (Python strings, ...)
        row = {label: i for i, label in enumerate(self._done.labels)}
        results = {  # in the order asked, as finish() gives them
            s.label: MeasureResult.of(s, values[row[s.label]], sizes, keys, True) for s in self._specs
        }
        attach_whys(results, self._specs, whys)  # the NaN groups' reasons, as evaluate() gives them
        warn_undefined(results, self._specs)
        params["groups"] = int(len(keys))
        report = Report(results, keys, params)
        report.group_sizes = sizes
        return report

    def _say_zero_groups(self, held: Any) -> None:
        """evaluate()'s :class:`~perfeval.exceptions.ZeroWeightGroupsWarning` of these rows, said as
        its check says it, before any other word: the groups that had only rows of weight 0 in some
        update (:attr:`_zero`) and have no row of weight > 0 anywhere (``held(ids)``: which of the
        sorted ``ids`` have one), sorted as evaluate() sorts the ids of all the rows.
        """
        ids = self._zero
        if ids is None:
            return
        if self._group_dtype is not None and ids.dtype != self._group_dtype:
            ids = np.unique(ids.astype(self._group_dtype))
        gone = ids[~np.asarray(held(ids), dtype=bool)]
        say_zero_weight_groups(gone if len(gone) else None)

    def _no_positive(self) -> None:
        """evaluate()'s error for a positive label that no row holds (every label seen listed)."""
        labels = self._labels if self._labels is not None else np.zeros(0)
        binary_targets(labels, self._specs[0].label, self.pos_label)

    def _nothing(self):
        """The arrays of no rows, as evaluate([], [], groups=[]) checks them."""
        z = np.zeros(0)
        grouped = self._grouped or self.clustered or any(s.measure.kind == "grouped" for s in self._specs)
        ids = np.zeros(0, dtype=np.int64 if self._group_dtype is None else self._group_dtype)
        return z, z, (ids if grouped else None), (z if self._weighted else None)

    # -- persistence -------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole state as plain values and numpy arrays (picklable; ``load_state_dict`` reads it).

        The measures are stored by their canonical labels, with the threshold and positive label,
        so a state can be loaded only into a Metric of the same measures.
        """
        self._fold()
        return {
            "version": STATE_VERSION,
            "measures": self.measures,
            "threshold": self.threshold,
            "pos_label": self.pos_label,
            "clustered": self.clustered,
            "rows": self._rows_in,
            "grouped": self._grouped,
            "weighted": self._weighted,
            "family": self._family,
            "labels": self._labels,
            "any_positive": self._any_positive,
            "group_dtype": None if self._group_dtype is None else self._group_dtype.str,
            "group_kind": self._held_group_kind(),
            "dialect": self.dialect,
            "with_ids": self._with_ids,
            "summary": (self._hist.scores, self._hist.pos, self._hist.neg),
            "kept": self._kept.state(),
            "groups": self._done.state() if self.clustered else None,
            "open": self._open,
            "classes": None if self.classes is None else list(self.classes),
            "class_state": None if self._mc is None else self._mc.state(),
            "task": self._task,
            "regression": None if self._reg is None else regression_state(self._reg),
            "slices": None if self._slices is None else self._slices.state(),
            "by": None if self._ask is None else [list(w) for w in self._ask.wanted],
            "by_options": None if self._ask is None else (self._ask.min_size, self._ask.missing),
            "zero_groups": self._zero,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace this Metric's state by one from :meth:`state_dict` (of a Metric of the same measures).

        Raises
        ------
        InvalidParameterError
            A state of other measures, parameters or positive label, of the other ``clustered``, or
            of another layout.
        """
        other = _from_state(state, self.clustered)
        if other._key() != self._key():
            raise InvalidParameterError(f"the state is of {other._signature()}, not of {self._signature()}")
        if bool(state.get("clustered", False)) != self.clustered:
            raise InvalidParameterError(
                f"the state is of a Metric with clustered={bool(state.get('clustered', False))}, "
                f"not of one with clustered={self.clustered}"
            )
        self.__dict__.update(other.__dict__)  # all at once: a state that cannot be read changes nothing

    def _set(self, state: dict[str, Any]) -> None:
        self.reset()
        self._rows_in = int(state["rows"])
        self._grouped, self._weighted = state["grouped"], state["weighted"]
        self._family, self._labels = state["family"], state["labels"]
        self._any_positive = bool(state["any_positive"])
        self._hist = ScoreHistogram(*state["summary"])
        self._kept = KeptRows.from_state(state["kept"])  # a version-1 state's (y, s, g, w) too
        dtype = state.get("group_dtype")
        if dtype is None and state["grouped"]:  # a version-1 state: the kept ids' own dtype
            dtype = self._kept.group_dtype()
        self._group_dtype = None if dtype is None else np.dtype(dtype)
        self._group_kind = state.get("group_kind")  # None in a state of an earlier layout: read off an id
        self._with_ids = state.get("with_ids")
        # (a state written before it was kept holds none: its groups of weight 0 are not said)
        self._zero = state.get("zero_groups")
        if state.get("groups") is not None:
            self._done = FinishedGroups.from_state(self._order(), state["groups"])
        self._open = state.get("open")
        if self._task == "regression":
            self._reg = regression_from_state(state.get("regression"), self._specs)
        if state.get("slices") is not None:
            from perfeval.backends.slices import SliceFeed

            if self._ask is None:
                raise ValueError("slices held without the by= they were made with")
            self._slices = SliceFeed.from_state(state["slices"], self._ask)
            if self._slices.rows_in != self._rows_in:
                raise ValueError("slices of another number of rows than the Metric's")
        elif self._ask is not None and self._rows_in:
            raise ValueError("no slices for the rows of a Metric made with by=")
        held = state.get("class_state")
        if self.classes is not None:
            if not isinstance(held, dict):
                raise ValueError("no 'class_state' for the classes")
            mc: Any = (
                GroupedRows
                if "grouped_rows" in held
                else LabelState
                if self._task == "multilabel"
                else ClassState
            ).from_state(held)
            if mc.classes != self.classes:
                raise ValueError(f"a state of the classes {list(mc.classes)}, not {list(self.classes)}")
            self._mc = mc

    def __getstate__(self) -> dict[str, Any]:
        return self.state_dict()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(_from_state(state, bool(state.get("clustered", False))).__dict__)

    def __repr__(self) -> str:
        head = f"Metric({self.measures}, threshold={self.threshold!r}"
        if self.pos_label is not None:
            head += f", pos_label={self.pos_label!r}"
        if self._ask is not None:  # the slicings, by their names
            head += f", by={[' x '.join(w) for w in self._ask.wanted]!r}"
        if self.dialect != "perfeval":
            head += f", dialect={self.dialect!r}"
        if self.clustered:
            open_rows = 0 if self._open is None else len(self._open[1])
            return (
                head
                + f", clustered=True, rows={self._rows_in}, groups={len(self._done)}, open_rows={open_rows})"
            )
        head += f", rows={self._rows_in}"
        if self._task == "regression":
            head += ", task='regression'"
            if self._grouped:
                return head + f", kept_rows={self._kept.rows}, grouped)"
            return head + f", summary=RegressionSummary(rows={self._reg.rows}, ...))"
        if self._mc is not None:
            said = "labels" if self._task == "multilabel" else "classes"
            if isinstance(self._mc, GroupedRows):
                return head + f", {said}={list(self.classes or ())!r}, kept_rows={self._mc.rows}, grouped)"
            return head + f", {said}={list(self.classes or ())!r}, summary={self._mc.folded()!r})"
        if self._keeps_rows:
            return head + f", kept_rows={self._kept.rows}" + (", grouped" if self._grouped else "") + ")"
        self._fold()
        return head + f", summary={self._hist!r})"


#: the fields of a state (:meth:`Metric.state_dict`) that hold True, False or (before the first
#: update) None, and the label families
_STATE_FLAGS = ("grouped", "weighted", "with_ids")
#: the fields every state holds (versions 1 and 2)
_STATE_FIELDS = (
    "measures", "threshold", "pos_label", "rows", "grouped", "weighted", "family", "labels",
    "any_positive", "summary", "kept",
)  # fmt: skip
_FAMILIES = (None, "booleans", "numbers", "bytes", "text")


def _from_state(state: Any, clustered: bool) -> Metric:
    """A new Metric holding ``state`` (:meth:`Metric.state_dict`, of version 1 or 2), or an
    :class:`InvalidParameterError` saying what of it cannot be read (a truncated or altered state:
    a missing field, a field of another type).
    """
    if not isinstance(state, dict) or state.get("version") not in (1, STATE_VERSION):
        raise InvalidParameterError(
            f"not a perfeval.Metric state of version 1 or {STATE_VERSION} (got "
            f"{state.get('version') if isinstance(state, dict) else type(state).__name__!r})"
        )
    missing = [k for k in _STATE_FIELDS if k not in state]
    bad = [k for k in _STATE_FLAGS if not isinstance(state.get(k), (bool, np.bool_, type(None)))]
    if not isinstance(state.get("any_positive"), (bool, np.bool_)):
        bad.append("any_positive")
    if state.get("family") not in _FAMILIES:
        bad.append("family")
    if not isinstance(state.get("labels"), (np.ndarray, type(None))):
        bad.append("labels")
    if not isinstance(state.get("group_kind"), (str, type(None))):
        bad.append("group_kind")
    if not isinstance(state.get("classes"), (list, tuple, type(None))):
        bad.append("classes")
    if not isinstance(state.get("class_state"), (dict, type(None))):
        bad.append("class_state")
    if not isinstance(state.get("zero_groups"), (np.ndarray, type(None))):
        bad.append("zero_groups")
    held = state.get("open")  # a clustered Metric's open group: its rows (y, s, g, w or None)
    if held is not None and not (
        isinstance(held, (tuple, list))
        and len(held) == 4
        and all(isinstance(a, np.ndarray) for a in held[:3])
        and isinstance(held[3], (np.ndarray, type(None)))
    ):
        bad.append("open")
    rows = state.get("rows")
    if isinstance(rows, (bool, np.bool_)) or not isinstance(rows, (int, np.integer)) or rows < 0:
        bad.append("rows")
    bad = [k for k in bad if k not in missing]
    if missing or bad:
        said = [f"no {', '.join(map(repr, missing))}"] if missing else []
        said += [f"{', '.join(map(repr, bad))} of another type"] if bad else []
        raise InvalidParameterError(f"not a readable perfeval.Metric state ({'; '.join(said)})")
    try:
        measures = _specs_of(state["measures"])
    except (TypeError, AttributeError, ValueError):
        raise InvalidParameterError(
            f"not a readable perfeval.Metric state ('measures' is {state['measures']!r}, not a list of names)"
        ) from None
    other = Metric(
        measures,
        threshold=state["threshold"],
        pos_label=state["pos_label"],
        clustered=clustered,
        dialect=state.get("dialect", "perfeval"),
        classes=state.get("classes") if state.get("task") != "multilabel" else None,
        labels=state.get("classes") if state.get("task") == "multilabel" else None,
        task="regression" if state.get("task") == "regression" else None,
        **_by_of(state),
    )
    try:
        other._set(state)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        why = str(e).splitlines()[0] if str(e) else ""
        raise InvalidParameterError(
            f"not a readable perfeval.Metric state ({type(e).__name__}: {why})"
        ) from None
    return other


def _by_of(state: dict[str, Any]) -> dict[str, Any]:
    """The slices a state was made with (``by=`` and its options), as the Metric's keywords."""
    by = state.get("by")
    if by is None:
        return {}
    options = state.get("by_options") or (None, "error")
    if (
        not isinstance(by, list)
        or not all(isinstance(w, (list, tuple)) and w for w in by)
        or not isinstance(options, (list, tuple))
        or len(options) != 2
    ):
        raise InvalidParameterError(
            "not a readable perfeval.Metric state ('by' or 'by_options' of another type)"
        )
    min_size, missing = options
    return {"by": [w[0] if len(w) == 1 else tuple(w) for w in by], "min_size": min_size, "missing": missing}


def _zero_union(held: np.ndarray | None, new: np.ndarray | None) -> np.ndarray | None:
    """The ids of the groups that had only rows of weight 0 in some update (``held``) with those of
    another update or Metric (``new``): sorted and distinct, one id a group (never a row's).
    """
    if new is None or not len(new):
        return held
    if held is None or not len(held):
        return np.unique(new)
    return np.unique(np.concatenate([held, new]))


def regression_state(summary: Any) -> dict[str, Any]:
    """A :class:`~perfeval.summaries.regression.RegressionSummary` as plain values (its exact sums
    are Python integers) and numpy arrays.
    """
    import dataclasses

    return {f.name: getattr(summary, f.name) for f in dataclasses.fields(summary)}


def regression_from_state(state: Any, specs: list[MeasureSpec]) -> Any:
    """The summary :func:`regression_state` wrote, checked to be of the measures ``specs``."""
    from dataclasses import replace

    from perfeval.engine.regression import empty_summary
    from perfeval.summaries.regression import RegressionSummary

    if not isinstance(state, dict):
        raise ValueError("no 'regression' summary")
    if "lost" not in state:  # its sums may hold inexact ones, and it does not say: not read as exact
        raise ValueError(
            "a regression summary that does not say which of its sums lost bits below 2**-1074 (written "
            "before perfeval said so): update a new Metric from the rows"
        )
    if "over" not in state:  # written before a row's deviance past float64's range was said so: such
        # a row was refused then, so none is in it (every sum it holds is of float64 terms)
        state = {**state, "over": frozenset()}
    summary = RegressionSummary(**state)
    want = empty_summary(specs)
    if summary.kept() != want.kept():
        raise ValueError("a regression summary of other measures")
    ints = (
        "rows",
        "weight",
        "sy",
        "syy",
        "sr",
        "srr",
        "sabs",
        "spos",
        "sape",
        "zero_weight",
        "zero_rows",
        "sape_tm",
    )
    if not all(isinstance(getattr(summary, k), int) for k in ints):
        raise ValueError("a regression summary whose sums are not whole numbers")
    if not isinstance(summary.lost, (frozenset, set, list, tuple)) or not all(
        isinstance(k, str) for k in summary.lost
    ):
        raise ValueError("a regression summary whose inexact sums are not named")
    if not isinstance(summary.over, (frozenset, set, list, tuple)) or not all(
        isinstance(k, str) for k in summary.over
    ):
        raise ValueError("a regression summary whose sums of rows past float64's range are not named")
    # a state as plain values: lists
    return replace(summary, lost=frozenset(summary.lost), over=frozenset(summary.over))


def _joined_ids(
    before: np.dtype | None,
    before_kind: str | None,
    new: np.dtype,
    new_kind: str | None,
    here: str,
    there: str,
) -> np.dtype:
    """The dtype of group ids of these two dtypes (and kinds) put together, or the error saying why
    they cannot be put together exactly: ids of two kinds (numbers and text; Python integers and
    text, which numpy would hold in one object array evaluate() refuses), or 64-bit ids of both
    signs, which numpy joins as floats.
    """
    if before is None:
        return new
    if before_kind is not None and new_kind is not None and before_kind != new_kind:
        raise InvalidDataError(
            f"`groups` holds {new_kind} {here} and {before_kind} {there}: give every update ids of one kind"
        )
    if before == new:
        return new
    joined = np.concatenate([np.zeros(0, before), np.zeros(0, new)]).dtype
    if joined.kind not in "iubUSO":
        raise InvalidDataError(
            f"`groups` holds {new} ids {here} and {before} {there}, which numpy joins as {joined}: "
            "give every update ids of one integer type"
        )
    return joined


def _ids_kind(dtype: np.dtype, first: Any) -> str | None:
    """What kind of ids a group column holds, for messages and for the check that every update's
    ids can be put together: by the dtype, or for Python objects by their values (one kind in a
    batch: evaluate() refuses a mix), ``first`` being one of them (None: not known).
    """
    if dtype.kind != "O":
        return key_family(dtype)
    if first is None:
        return None
    kind = id_kind(type(first))
    return {"strings": "text", "bytes": "bytes"}.get(kind, f"Python {kind}")


def _specs_of(labels: list[str]) -> list[MeasureSpec]:
    """The specs of a state's canonical labels, read as perfeval names them (not as a tool spells
    them: ``NDCG:gain=linear`` is that, whatever the dialect).
    """
    return [parse_measure(label) for label in labels]


def _check_dialect_specs(d: Any, specs: list[MeasureSpec], threshold: float, pos_label: Any) -> None:
    """The measures a dialect's tool defines, refused at once otherwise, as evaluate() refuses them."""
    from perfeval.dialects.apply import policy_spec

    if d.name == "perf":
        from perfeval.dialects.perf import check_specs

        check_specs(specs, threshold, pos_label)
        return
    for spec in specs:
        policy_spec(d, spec)


def _check_dialect_batches(dialect: str, specs: list[MeasureSpec], grouped: bool, weighted: bool) -> None:
    """Weights or groups the dialect's tool does not take, refused at the update with evaluate()'s
    message rather than at compute().
    """
    from perfeval.dialects.apply import check_batches, parse_dialect

    d, _opts = parse_dialect(dialect)
    check_batches(d, specs, grouped, weighted)


def _plain(key: Any) -> Any:
    """A group key as a Python value, for a message."""
    return key.item() if isinstance(key, np.generic) else key


def _distinct(y: np.ndarray) -> np.ndarray:
    """The distinct values of a batch of targets (0/1 without a sort, the usual case)."""
    if y.dtype.kind in "iuf" and bool(((y == 0) | (y == 1)).all()):
        return np.array([v for v, hit in ((0, not y.all()), (1, bool(y.any()))) if hit], dtype=y.dtype)
    try:
        return np.unique(y)
    except TypeError:  # an object column of several types (1 and 'yes'): numpy cannot order them
        return _distinct_objects(y.tolist())


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distinct labels of both, whatever their types (Python objects numpy cannot order too)."""
    try:
        return np.union1d(a, b)
    except TypeError:
        return _distinct_objects(a.tolist() + b.tolist())


def _known(new: np.ndarray, labels: np.ndarray) -> bool:
    """Whether every label of ``new`` is among ``labels`` (False when that cannot be told cheaply)."""
    try:
        return set(new.tolist()) <= set(labels.tolist())
    except TypeError:  # unhashable objects
        return False


def _distinct_objects(values: list) -> np.ndarray:
    """Python values of several types, each once (as ``==`` tells them apart, the comparison that
    codes the labels), in an order of their own (type, then text): for the labels a message lists.
    """
    seen: dict = {}
    for v in values:
        try:
            seen.setdefault(v, v)
        except TypeError:  # unhashable: told apart by its text
            seen.setdefault(("unhashable", repr(v)), v)
    ordered = sorted(seen.values(), key=lambda v: (type(v).__name__, repr(v)))
    out = np.empty(len(ordered), dtype=object)
    out[:] = ordered
    return out


def _label_key(label: Any) -> Any:
    """A positive label comparable in a key (numpy scalars as Python values)."""
    return label.item() if isinstance(label, np.generic) else label
