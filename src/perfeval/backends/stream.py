"""Exact evaluation of data larger than memory: read in chunks, summarise each, merge, finish once.

The summary of every binary measure is the :class:`~perfeval.summaries.ScoreHistogram` (distinct
scores with their positive and negative weight), so a chunk's summary is as good as its rows: the
chunks are folded into it as a :class:`perfeval.Metric` folds its batches
(:func:`perfeval.summaries.histogram.folded`: each distinct score's weights added in row order), so
the numbers are those of evaluating everything in memory, bit for bit, whatever the weights.
Memory is bounded by the chunk and the summary, which grows with the number of **distinct** scores
(24 bytes each), not with the rows: 100 million rows of 6-decimal scores hold at most a million
distinct values, 24 MB.

Per-group measures need whole groups together: :func:`evaluate_stream_grouped` spills the rows to
temporary files by a hash of their group (any key type, any input order), in a compact binary form,
then evaluates the files one at a time; memory is one chunk, then at most a row budget
(:data:`SPILL_BUDGET_ROWS`): a larger file is split again, a larger group finished from its summary.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import tempfile
import threading
import warnings
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from perfeval.base import progress as _progress
from perfeval.base.checks import (
    EVALUATION,
    LabelWords,
    check,
    check_relevance,
    floats,
    identity_groups,
    no_table_chunk,
    say_zero_weight_groups,
    to_numpy,
)
from perfeval.engine import DEFAULT_MEASURES, binary_report, finish, grouped_report, resolve, safe
from perfeval.engine.door import Targets, check_array, code
from perfeval.engine.finish import group_whys, threshold_companions, with_thresholds
from perfeval.engine.slices import Task
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.io.grammar import is_plain_int
from perfeval.io.spill import read_blocks as _read_blocks  # the spill's codec, under the names its
from perfeval.io.spill import write_block as _write_block  # tests patch (a full disk)
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.histogram import Fold, checked_cases, runs
from perfeval.summaries.ranking import TieTable

# resource is Unix-only: imported where the open-file limit is read, and its absence handled.


def evaluate_stream(
    chunks: Iterable[tuple],
    *,
    measures: Any = None,
    threshold: float = 0.5,
    task: str | None = None,
    by: Any = None,
    intersections: bool = False,
    min_size: int | None = None,
    missing: str = "error",
):
    """Evaluate binary measures over an iterable of ``(y_true, y_score[, sample_weight])`` chunks.

    Gives the same numbers as :func:`perfeval.evaluate` on the concatenated chunks, in memory bounded
    by one chunk plus the summary.

    Slices (``by=["country", "device"]``, with ``intersections``, ``min_size`` and ``missing`` as
    in :func:`perfeval.evaluate`): each chunk then carries its slice columns as its last item, a
    mapping of those names to arrays or a DataFrame (``(y, s, {"country": c, "device": d})``), and
    ``report.slices`` holds the slices ``evaluate(..., by=...)`` gives on every row, bit for bit
    (docs/slices.md): unweighted, from each combination of keys' summary (memory follows its
    distinct scores); weighted (weights in every chunk, or in none), from the rows, kept.

    A regression target (``task="regression"``, or a regression measure named: ``measures=["mae",
    "rmse", "r2"]``): each chunk is a target and a prediction a row, checked at the door and folded
    into the exact :class:`~perfeval.summaries.regression.RegressionSummary` (the bits of
    ``evaluate(..., task="regression")`` on all the rows, any weights).  A stream does not guess the
    task from its first chunk: without either, the targets are binary ones.

    Examples
    --------
    >>> chunks = [([1, 0], [0.9, 0.5]), ([1, 0], [0.5, 0.1])]
    >>> evaluate_stream(chunks, measures=["roc", "apr"])["ROC"]
    0.875
    >>> evaluate_stream([([3.0, 1.0], [2.5, 1.0]), ([2.0], [3.0])], measures=["mae"])["MAE"]
    0.5
    """
    from perfeval.engine.regression import regression_asked

    ask = slice_ask(by, intersections, min_size, missing)
    how = regression_asked(measures, task)
    if how is not None:
        return _stream_regression(chunks, measures, how, ask)
    specs = resolve(measures or DEFAULT_MEASURES, threshold)
    other = [s.label for s in specs if s.measure.kind != "binary"]
    if other:
        raise InvalidParameterError(
            f"{other[0]} is a per-query or per-group measure: stream it with evaluate_stream_grouped() "
            "and a group column"
        )
    fold = Fold()  # as a Metric folds its batches: each score's weights added in row order
    rows = 0
    weighted = False
    feed = None
    for chunk in chunks:
        chunk, cols = _slice_columns(chunk, ask)
        if len(chunk) not in (2, 3):
            raise InvalidParameterError(
                "each chunk must be (y_true, y_score) or (y_true, y_score, weight)"
                + (", then its slice columns (by=)" if ask is not None else "")
            )
        has_w = len(chunk) == 3 and chunk[2] is not None
        _no_table(chunk, 2)
        weighted = weighted or has_w
        is_pos, s, w = _chunk_cases(*chunk)
        part = None
        if ask is not None:
            feed = _feed(feed, ask, has_w, not has_w)
            part = feed.read(cols, len(s))
        fold.add(is_pos, s, w)
        if feed is not None and part is not None:
            feed.take(part, positive=is_pos, scores=s, arrays=(is_pos.astype(np.float64), s, None, w))
        rows += len(s)
    report = binary_report(specs, fold.summary(), rows=rows, threshold=threshold, weighted=weighted)
    if ask is not None:
        _stream_slices(report, feed, ask, Task("binary", tuple(specs), threshold))
    return report


def slice_ask(by: Any, intersections: Any, min_size: Any, missing: Any) -> Any:
    """The slicings of a stream's ``by=`` (:func:`perfeval.backends.slices.ask_of`), or None; the
    slice options without ``by`` are said rather than dropped.
    """
    if by is None:
        from perfeval.engine.slice_report import needs_by

        needs_by(intersections, min_size, missing)
        return None
    from perfeval.backends.slices import ask_of

    return ask_of(by, intersections=intersections, min_size=min_size, missing=missing)


def _slice_columns(chunk: Any, ask: Any) -> tuple[tuple, Any]:
    """A chunk's own items and, with slices, its last item: the slice columns."""
    chunk = tuple(chunk)
    if ask is None:
        return chunk, None
    if len(chunk) < 3:
        raise InvalidParameterError(
            "with by=, each chunk ends with its slice columns (a mapping of the names of by= to arrays, "
            "or a DataFrame): (y_true, y_score[, ...], columns)"
        )
    return chunk[:-1], chunk[-1]


def _feed(feed: Any, ask: Any, weighted: bool, summary: bool) -> Any:
    """The slices' feed of a stream, made at its first chunk (``summary``: each combination's summary,
    else the rows); weights in some chunks and not in others refused (one line), as a Metric
    refuses them.
    """
    from perfeval.backends.slices import SliceFeed

    if feed is None:
        feed = SliceFeed(ask, summary=summary)
        feed.weighted = weighted
    elif feed.weighted != weighted:
        raise InvalidParameterError(
            "with by=, give weights to every chunk or to none (a chunk without them after chunks with "
            "them, or the other way round)"
        )
    return feed


def _stream_slices(report: Any, feed: Any, ask: Any, task: Any, door: Any = None) -> None:
    """The stream's slices finished into ``report.slices``: from the summaries with ``task``, or from
    the rows kept through ``door`` (default: the binary targets coded chunk by chunk, 0/1).
    """
    from perfeval.backends.slices import SliceFeed

    if feed is None:  # no chunk at all
        feed = SliceFeed(ask, summary=True)
    if door is None:

        def door(y: Any, s: Any, g: Any, w: Any) -> tuple:
            return code(check(y, s, g, w), made="binary"), task

    feed.attach(report, task, door)


def _stream_regression(chunks: Iterable[tuple], measures: Any, how: str, ask: Any = None):
    """evaluate_stream() of a regression target: each chunk checked and folded into the exact sums
    (with slices, its rows kept for them).
    """
    from dataclasses import replace

    from perfeval.engine.regression import (
        check_regression,
        empty_summary,
        fold,
        named_specs,
        regression_specs,
        summary_report,
    )

    specs = regression_specs(named_specs(measures))
    summary = empty_summary(specs)
    rows = 0
    weighted = False
    feed = None
    for chunk in chunks:
        chunk, cols = _slice_columns(chunk, ask)
        if len(chunk) not in (2, 3):
            raise InvalidParameterError("each chunk must be (y_true, y_score) or (y_true, y_score, weight)")
        w = chunk[2] if len(chunk) == 3 else None
        _no_table(chunk, 2)
        cases = check_regression(chunk[0], chunk[1], None, w)
        part = None
        if ask is not None:
            feed = _feed(feed, ask, w is not None, False)
            part = feed.read(cols, cases.rows_in)
        summary = fold(summary, cases)
        if feed is not None and part is not None:
            feed.take(part, arrays=(chunk[0], chunk[1], None, w))
        rows += cases.rows_in
        weighted = weighted or w is not None
    summary = replace(summary, rows=rows)  # the rows read, weight 0 included
    report = summary_report(summary, specs, weighted=weighted, backend="stream", task_from=how)
    if ask is not None:
        task = Task("regression", tuple(specs), task_from=how)
        _stream_slices(report, feed, ask, task, lambda y, s, g, w: (check_regression(y, s, g, w), task))
    return report


def evaluate_stream_classes(
    chunks: Iterable[tuple],
    classes: Any,
    *,
    measures: Any = None,
    classes_from: str = "given",
    coded: bool = False,
):
    """Evaluate the multiclass measures over ``(y_true, y_score[, sample_weight])`` chunks, the
    scores an (n, K) matrix a chunk, one column a class in the order of ``classes``.

    Each chunk is checked at the door (:func:`perfeval.engine.door.check_classes`) and its rows
    folded into one :class:`~perfeval.summaries.classes.ClassSummary` in row order
    (:meth:`~perfeval.summaries.classes.ClassSummary.folded`): the bits of :func:`perfeval.evaluate`
    of the concatenated chunks with ``classes=``, weights or not.  ``coded``: the targets are codes
    0..K-1 in the order of ``classes`` already (checked by the caller, as the command's loader does
    with its file's lines).

    Examples
    --------
    >>> chunks = [(["a", "b"], [[0.7, 0.2, 0.1], [0.3, 0.6, 0.1]]), (["c"], [[0.2, 0.2, 0.6]])]
    >>> evaluate_stream_classes(chunks, ["a", "b", "c"], measures=["acc_mc"])["ACC_MC"]
    1.0
    """
    from perfeval.engine.classes import TIES_CLASSES, class_specs, summary_values
    from perfeval.engine.door import check_classes
    from perfeval.engine.finish import warn_undefined
    from perfeval.engine.report import Report
    from perfeval.summaries.classes import ClassSummary

    labels = tuple(c.item() if isinstance(c, np.generic) else c for c in classes)
    k = len(labels)
    default = measures is None
    specs = class_specs([] if default else resolve(measures, 0.5, pending=True), default=default)
    cs = ClassSummary.empty(labels)
    rows = 0
    weighted = False
    for chunk in chunks:
        if len(chunk) not in (2, 3):
            raise InvalidParameterError("each chunk must be (y_true, y_score) or (y_true, y_score, weight)")
        w = chunk[2] if len(chunk) == 3 else None
        _no_table(chunk, 2, "perfeval.backends.stream.evaluate_stream_classes()")
        weighted = weighted or w is not None
        cases, _found, _how = check_classes(
            chunk[0], chunk[1], None, w, classes=tuple(range(k)) if coded else labels
        )
        if cases.s.shape[1] != k:
            raise InvalidDataError(f"a chunk's `y_score` has {cases.s.shape[1]} columns for the {k} classes")
        cs = cs.folded(cases.y, cases.s, cases.w)
        rows += int(cases.rows_in)
    results = summary_values(specs, cs)
    warn_undefined(results, specs)
    params = {
        "threshold": 0.5,
        "rows": rows,
        "groups": None,
        "weighted": weighted,
        "partitions": None,
        "ties": TIES_CLASSES,
        "pos_label": None,
        "backend": "stream",
        "task": "multiclass",
        "classes": list(labels),
        "classes_from": classes_from,
    }
    report = Report(results, None, params)
    report.summary = cs
    return report


def _no_table(
    chunk: tuple, i: int, door: str = "perfeval.evaluate_stream()", name: str = "sample_weight"
) -> None:
    """A string as the chunk's item ``i`` (its weights, or ``name``), a column's name: one line
    saying that a stream takes no table (:func:`~perfeval.base.checks.no_table_chunk`), not the
    shape of a string.
    """
    if len(chunk) > i:
        nth = ("first", "second", "third", "fourth")[i]
        no_table_chunk(door, name, chunk[i], f"the chunk's {nth} item")


def _chunk_cases(y_true: Any, y_score: Any, sample_weight: Any = None) -> tuple:
    """A chunk's cases, checked: (positives, scores, weights or None).  Its targets are coded alone
    (a chunk's, not all of them: the stream takes no pos_label, they come coded).
    """
    # the door's stages one array at a time, in the order the stream always said its errors: the
    # targets read, the scores checked, the targets coded, then the lengths and the weights
    y = to_numpy(y_true, "y_true")
    s = check_array(EVALUATION[1], y_score)
    words = LabelWords(pos_label=False, whole=False)
    return checked_cases(Targets(y).binary("streaming evaluation", words=words), s, sample_weight)


# -- per-group measures: spill by group, then evaluate part by part -----------------------------------
#: rows of one spilled part evaluated in memory at once: ``evaluate(..., groups=...)`` needs about
#: 150 bytes a row at its peak (the columns, the group codes, the sorts, the tie structure), so
#: 4 million rows stay near 600 MB; a larger part is split again, a larger group is summarised
SPILL_BUDGET_ROWS = 4_000_000
#: at most this many partition files are open while spilling (the soft limit of open files is
#: often 1024); parts that come out too large are split again anyway
MAX_PARTITIONS = 512
#: text bytes per row assumed when the number of partitions is chosen from ``size_hint``: a short
#: line (``1 0.25 7``) is about 10 bytes, so this errs towards more, smaller partitions
_HINT_BYTES_PER_ROW = 12


def _partition_ids(groups: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """A partition 0..k-1 for every row, the same for equal group keys (any key type).

    ``seed`` 0 is the spill's first hash; a part split again uses its depth as the seed, so that
    keys which met in one part at a level scatter at the next.  Text that is a plain integer goes
    where its int64 goes, whatever the seed (a chunk of the same ids may have been read as int64).
    """
    if groups.dtype.kind in "iub":  # a hash of each row's key directly: no sort, no distinct keys
        return _int_hash(groups.astype(np.int64), k, seed)
    keys, inv = np.unique(groups, return_inverse=True)
    if keys.dtype.kind in "US":
        texts = keys.tolist()
        plain = [is_plain_int(t) for t in texts]
        if any(plain):
            ints = np.array([int(t) if p else 0 for t, p in zip(texts, plain, strict=False)], dtype=np.int64)
            hi = _int_hash(ints, k, seed)
            part = np.array(
                [int(h) if p else _text_hash(t, k, seed) for t, p, h in zip(texts, plain, hi, strict=False)],
                dtype=np.int64,
            )
            return part[inv.reshape(-1)]
    if keys.dtype.kind == "f":
        part = _int_hash(keys.astype(np.float64).view(np.int64), k, seed)
    else:
        part = np.array([_text_hash(str(key), k, seed) for key in keys.tolist()], dtype=np.int64)
    return part.astype(np.int64)[inv.reshape(-1)]


def _int_hash(x: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Partitions of int64 keys: Fibonacci hashing at seed 0 (the spill's historical layout), a
    splitmix64 finaliser of the key plus the seed beyond (independent of the seed-0 partition).
    """
    h = x.astype(np.uint64)
    if seed == 0:
        return ((h * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(40)) % np.uint64(k)).astype(np.int64)
    with np.errstate(over="ignore"):
        h = h + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        h = h ^ (h >> np.uint64(31))
    return (h % np.uint64(k)).astype(np.int64)


def _text_hash(text: str, k: int, seed: int) -> int:
    crc = zlib.crc32(text.encode("utf-8", "surrogatepass"))
    return crc % k if seed == 0 else int(_int_hash(np.array([crc], dtype=np.int64), k, seed)[0])


class _Part:
    """One spill file: its path, rows, whether all its rows so far share one group key, and the
    rows of its likeliest large group (the commonest key of its first block).
    """

    __slots__ = ("bytes", "cand", "cand_rows", "fh", "key", "path", "rows", "single")

    def __init__(self, path: str):
        self.path, self.rows, self.key, self.single, self.bytes = path, 0, None, True, 0
        self.fh: Any = None
        self.cand, self.cand_rows = None, 0

    def add(self, arrays: list[np.ndarray]) -> None:
        g = arrays[2]
        if self.cand is None:
            keys, counts = np.unique(g, return_counts=True)
            self.cand = keys[np.argmax(counts)]
        self.cand_rows += int(_same_key(g, self.cand).sum())
        if self.single:
            first = g[0]
            if self.key is None:
                self.key = first
            # a plain integer and its text are one group (chunks of one file may differ in type)
            same_type = np.asarray(first).dtype.kind == np.asarray(self.key).dtype.kind
            same_key = first == self.key if same_type else str(first) == str(self.key)
            self.single = bool((g == first).all()) and bool(same_key)
        if self.fh is None:
            # open from the first block to close(): a part gets many blocks, one per chunk
            self.fh = open(self.path, "ab")  # noqa: SIM115
        self.bytes += _write_block(self.fh, arrays)
        self.rows += len(g)

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


def _same_key(g: np.ndarray, key) -> np.ndarray:
    """Rows whose group is ``key``, a plain integer and its text being one key (as the hash has them)."""
    kind = np.asarray(key).dtype.kind
    if (g.dtype.kind in "US") == (kind in "US"):
        return g == key
    if g.dtype.kind in "US":
        return g == str(key)

    return g == int(key) if is_plain_int(str(key)) else np.zeros(len(g), dtype=bool)


def _split(arrays: list[np.ndarray], parts: list[_Part], seed: int) -> None:
    """Append each row of a block to the part of its group (the block's order kept inside a part)."""
    k = len(parts)
    if k == 1:
        parts[0].add(arrays)
        return
    part = _partition_ids(arrays[2], k, seed)
    # 16-bit part numbers: numpy's stable argsort is then a radix sort, linear in the rows
    order = np.argsort(part.astype(np.uint16), kind="stable")
    bounds = np.searchsorted(part[order], np.arange(k + 1))
    for i in range(k):
        a, b = bounds[i], bounds[i + 1]
        if b > a:
            sel = order[a:b]
            parts[i].add([c[sel] for c in arrays])


def _chunk_columns(chunk) -> list[np.ndarray]:
    """A chunk's columns as numpy arrays, checked; group ids of a type the spill can store."""
    if len(chunk) not in (3, 4):
        raise InvalidParameterError("each chunk must be (y_true, y_score, groups[, weight])")
    _no_table(chunk, 2, "perfeval.backends.stream.evaluate_stream_grouped()", "groups")
    _no_table(chunk, 3, "perfeval.backends.stream.evaluate_stream_grouped()")
    arrays = [np.asarray(a).reshape(-1) for a in chunk]
    n = len(arrays[1])
    if any(len(a) != n for a in arrays):
        raise InvalidParameterError(f"a chunk's columns differ in length: {[len(a) for a in arrays]}")
    g = arrays[2]
    if g.dtype.kind == "O":
        vals = g.tolist()
        if all(isinstance(v, str) for v in vals):
            g = np.array(vals, dtype=str) if vals else np.zeros(0, dtype="U1")
        elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            g = np.array(vals, dtype=np.int64)
        else:
            identity_groups(g)  # None, NaN: the error evaluate() gives
            raise InvalidParameterError("streamed group ids must be all integers or all text within a chunk")
    elif g.dtype.kind == "f":
        g = identity_groups(g)  # whole floats are int64 ids, as in evaluate(); the rest an error
    arrays[2] = g
    return arrays


class _Labels:
    """The distinct target values seen (up to a few hundred), to decide the coding of the targets
    over all rows, as evaluate() does, rather than part by part.
    """

    LIMIT = 256

    def __init__(self):
        self.values: set = set()
        self.many = False

    def update(self, y: np.ndarray) -> None:
        if self.many or not len(y):
            return
        if y.dtype.kind in "biuf" and bool(((y == 0) | (y == 1)).all()):
            self.values.update(v for v, hit in ((0, not y.all()), (1, y.any())) if hit)
            return
        vals = np.unique(y)
        self.values.update(vals.tolist())
        self.many = len(self.values) > self.LIMIT

    def coding(self) -> np.ndarray:
        """The distinct values seen as an array (all of them unless ``many``: then more than
        :attr:`LIMIT`, refused by the binary coding).
        """
        try:
            return np.array(sorted(self.values))
        except TypeError:  # labels of mixed types
            return np.array(list(self.values), dtype=object)


class _Terminated(SystemExit):
    """Raised by the SIGTERM/SIGHUP handler of a spill, so that its directory is removed on the way out."""


@contextlib.contextmanager
def _cleanup_on_signals():
    """SIGTERM and SIGHUP end the process as SIGINT does, through the ``finally`` blocks (which
    remove the spill), with exit status 128 + the signal.  A handler is set only in the main
    thread and only where the signal has its default action: a program's own handler, or SIGHUP
    ignored under nohup, is left alone.  The previous handlers are restored on the way out.
    """
    old = {}
    if threading.current_thread() is threading.main_thread():

        def handler(signum, frame):
            raise _Terminated(128 + signum)

        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
                old[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _max_partitions() -> int:
    """MAX_PARTITIONS, or half the process's limit of open files if that is lower (each partition
    is an open file while the input is spilled).
    """
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return max(16, min(MAX_PARTITIONS, soft // 2 if soft > 0 else MAX_PARTITIONS))
    except (ImportError, ValueError, OSError):
        return 256


def partitions_for(size_hint: int, budget: int = SPILL_BUDGET_ROWS) -> int:
    """Partitions for an input of ``size_hint`` bytes of text, so that a typical partition holds
    about half of ``budget`` rows and is evaluated without being split again (32 at least,
    :data:`MAX_PARTITIONS` at most).
    """
    rows = size_hint / _HINT_BYTES_PER_ROW
    return int(min(MAX_PARTITIONS, max(32, math.ceil(2 * rows / max(budget, 1)))))


def evaluate_stream_grouped(
    chunks: Iterable[tuple],
    *,
    measures: Any = None,
    threshold: float = 0.5,
    partitions: int | None = None,
    tmpdir: str | None = None,
    clustered: bool = False,
    size_hint: int | None = None,
    budget_rows: int = SPILL_BUDGET_ROWS,
    progress: bool = False,
    task: str | None = None,
    by: Any = None,
    intersections: bool = False,
    min_size: int | None = None,
    missing: str = "error",
):
    """Per-group (and binary) measures over chunks ``(y_true, y_score, groups[, sample_weight])`` in
    bounded memory.

    Slices (``by=[...]``, with ``intersections``, ``min_size`` and ``missing`` as in
    :func:`perfeval.evaluate`): each chunk then ends with its slice columns (a mapping of those names
    to arrays, or a DataFrame), and ``report.slices`` holds the slices ``evaluate(..., groups=...,
    by=...)`` gives, bit for bit: each slice's value the measure's own average over its queries.
    The slices keep the rows (their targets, scores, groups and weights: memory follows the rows,
    not the spill's budget; docs/slices.md).

    A regression target (``task="regression"``, or a regression measure named): the same spill and
    the same parts, each part's groups finished from their exact sums
    (:func:`perfeval.engine.regression.finish_regression`; a group over the budget from its
    :class:`~perfeval.summaries.regression.RegressionSummary` folded block by block): the bits of
    ``evaluate(..., groups=..., task="regression")``.  Each chunk is checked at the door as it comes
    (its errors name the chunk's row).

    Rows are spilled to ``partitions`` temporary files by a hash of their group, so each file holds
    whole groups, in any input order, in a compact binary form (the four columns, each as narrow
    as is exact: about 13 bytes a row for ``1 0.8472919483 123456789``).  Each file is then
    evaluated in memory when it holds at most ``budget_rows`` rows; a larger one is split again by
    another hash, block by block, until its parts fit or hold a single group.  A single group
    larger than the budget is finished from its own mergeable summaries, built block by block: its
    :class:`~perfeval.summaries.ScoreHistogram` for the binary measures, and how many cases hold
    each (score, relevance) pair for the per-query measures (NDCG, MAP, P@k, MRR, ...) and GAUC.
    Every measure's per-group form reads only these, so memory follows the group's distinct scores
    (24 bytes each; times its distinct grades for the per-query measures), not its rows.

    The numbers equal ``evaluate(..., groups=...)`` on all the rows, bit for bit, when weights sum
    exactly (no weights, whole numbers, dyadic fractions); see the module's description.

    Parameters
    ----------
    chunks : iterable of tuples
        ``(y_true, y_score, groups)`` or ``(y_true, y_score, groups, sample_weight)`` arrays.
    measures, threshold
        As in :func:`perfeval.evaluate`.
    partitions : int, optional
        Files of the first spill; default 32, or from ``size_hint``.
    tmpdir : str, optional
        Where the spill directory is made (default: the system's temporary directory).  It is
        removed at the end, on an error, and on SIGINT, SIGTERM and SIGHUP.
    clustered : bool
        Input sorted or clustered by group: nothing is spilled, each chunk's complete groups are
        evaluated as they arrive.
    size_hint : int, optional
        Bytes of the input when known (a file's size): the number of partitions is chosen so that
        a typical one fits ``budget_rows`` (:func:`partitions_for`).
    budget_rows : int
        Rows evaluated in memory at once (:data:`SPILL_BUDGET_ROWS`).
    progress : bool, default False
        Show the spilled rows evaluated and the groups done so far on standard error (tqdm).

    Examples
    --------
    >>> chunks = [([1, 0, 1], [0.8, 0.3, 0.6], [1, 1, 2]), ([0, 0], [0.4, 0.1], [2, 1])]
    >>> r = evaluate_stream_grouped(chunks, measures=["gauc"])
    >>> r.results["GAUC"].per_group.tolist()
    [1.0, 1.0]
    """
    from perfeval.engine.regression import named_specs, regression_asked, regression_specs

    ask = slice_ask(by, intersections, min_size, missing)
    held: list = []  # the slices' feed, made by the first chunk
    chunks = chunks if ask is None else _fed(chunks, ask, held)
    how = regression_asked(measures, task)
    pairs: list = []
    if how is not None:
        specs = regression_specs(named_specs(measures))
    else:
        specs = resolve(measures or DEFAULT_MEASURES, threshold)
        # each operating point's threshold a group beside its value (engine.finish.with_thresholds)
        pairs, twins = threshold_companions(specs)
        specs = specs + twins
    if clustered:
        keys_all, sizes_all, values, rows, weighted, whys = _clustered(chunks, specs, threshold, how)
        report = with_thresholds(
            _grouped_report(
                keys_all,
                sizes_all,
                values,
                specs,
                threshold,
                rows,
                weighted if how else False,
                None,
                how,
                whys,
            ),
            pairs,
        )
        return _grouped_slices(report, held, ask, specs, threshold, how)
    if budget_rows < 1:
        raise InvalidParameterError(f"budget_rows must be at least 1, got {budget_rows}")
    if partitions is None:
        partitions = partitions_for(size_hint, budget_rows) if size_hint else 32
    partitions = max(1, min(int(partitions), _max_partitions()))
    out = _Results(specs)
    with _cleanup_on_signals(), tempfile.TemporaryDirectory(prefix="perfeval-spill-", dir=tmpdir) as tmp:
        parts = [_Part(os.path.join(tmp, f"part{i:04d}.bin")) for i in range(partitions)]
        rows = 0
        weighted = False
        labels = _Labels()
        try:
            for chunk in chunks:
                arrays = _chunk_columns(chunk)
                weighted = weighted or len(arrays) == 4
                rows += len(arrays[1])
                if how is not None:
                    arrays = _regression_chunk(arrays)
                if len(arrays[1]):
                    if how is None:
                        labels.update(arrays[0])
                    _split(arrays, parts, 0)
        finally:
            for p in parts:
                p.close()
        out.spilled = out.live = out.peak = sum(p.bytes for p in parts)
        if how is None:
            _check_request(specs, weighted, labels)
        job = _Job(specs, threshold, budget_rows, labels, weighted, out, how)

        with _progress.bar(progress, sum(p.rows for p in parts), "groups", "rows", scale=True) as meter:
            for p in parts:
                if p.rows:
                    job.run(p, 1)
                    meter.set_postfix_str(f"{sum(len(k) for k in out.keys):,} groups done")
                    meter.update(p.rows)
    _say_zero(out.zero)
    report = _grouped_report(
        out.keys, out.sizes, out.values, specs, threshold, rows, weighted, partitions, how, out.whys
    )
    # what the spill cost on disk: the first spill, and the most on disk at once (with re-splits)
    report.spill = {"bytes": out.spilled, "peak_bytes": out.peak}
    return _grouped_slices(with_thresholds(report, pairs), held, ask, specs, threshold, how)


def _fed(chunks: Iterable[tuple], ask: Any, held: list) -> Any:
    """The chunks of a grouped stream without their slice columns, each chunk's rows fed to the
    slices (``held[0]``, made at the first chunk) as it passes: the rows kept, in order.
    """
    for chunk in chunks:
        chunk, cols = _slice_columns(chunk, ask)
        arrays = _chunk_columns(chunk)
        w = arrays[3] if len(arrays) == 4 else None
        feed = _feed(held[0] if held else None, ask, w is not None, False)
        part = feed.read(cols, len(arrays[1]))
        feed.take(part, arrays=(arrays[0], arrays[1], arrays[2], w))
        if not held:
            held.append(feed)
        yield chunk


def _grouped_slices(report: Any, held: list, ask: Any, specs: list, threshold: float, how: str | None) -> Any:
    """``report`` with a grouped stream's slices when asked, from the rows kept: each slicing finished
    with the queries (the (slice, query) pairs), as evaluate(..., groups=..., by=...) finishes them.
    """
    if ask is None:
        return report
    feed = held[0] if held else None
    if how is not None:
        from perfeval.engine.regression import check_regression

        reg = Task("regression", tuple(specs), task_from=how)
        _stream_slices(report, feed, ask, reg, lambda y, s, g, w: (check_regression(y, s, g, w), reg))
        return report
    task = Task("binary", tuple(specs), threshold)
    _stream_slices(report, feed, ask, task, lambda y, s, g, w: (code(check(y, s, g, w)), task))
    return report


def _regression_chunk(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """A chunk of a regression target checked at the door as it comes (its errors name the chunk's
    row), its rows of weight 0 kept for the count of rows read (the parts drop them as evaluate()
    does); the targets and predictions as float64.
    """
    from perfeval.engine.regression import check_regression

    w = arrays[3] if len(arrays) == 4 else None
    check_regression(arrays[0], arrays[1], arrays[2], w)
    out = [np.asarray(arrays[0], dtype=np.float64), np.asarray(arrays[1], dtype=np.float64), arrays[2]]
    return out + ([np.asarray(w, dtype=np.float64)] if w is not None else [])


def _finish_part(cols: list[np.ndarray], specs, threshold: float, how: str | None, zero: list):
    """The grouped report of a part's (or a clustered chunk's) whole groups; the groups whose rows
    all have weight 0 (gone with them) added to ``zero``, said once for the whole stream.
    """
    w = cols[3] if len(cols) == 4 else None
    if how is not None:
        from perfeval.engine.regression import check_regression, finish_regression

        cases = check_regression(cols[0], cols[1], cols[2], w)
        if cases.zero_groups is not None:
            zero.append(cases.zero_groups)
        return finish_regression(cases, specs, task_from=how)
    cases = check(cols[0], cols[1], cols[2], w)
    if cases.zero_groups is not None:
        zero.append(cases.zero_groups)
    return finish(cases, specs, threshold=threshold)


def _int_keys(keys: np.ndarray) -> np.ndarray:
    """A single group's key as the parts give keys: integers read back as floats made int64 again."""
    return keys.astype(np.int64) if keys.dtype.kind == "f" else keys


def _say_zero(zero: list) -> None:
    """The groups of a grouped stream whose rows all had weight 0 (each part's), said once, sorted
    as evaluate() says them (:func:`perfeval.base.checks.say_zero_weight_groups`).
    """
    if zero:
        ids = np.concatenate([np.asarray(z) for z in zero])
        say_zero_weight_groups(np.sort(ids, kind="stable"))


def _check_request(specs, weighted: bool, labels: _Labels) -> None:
    """The errors evaluate() gives for the whole data, said once before any part is evaluated
    (each part alone might pass: one holding only 1s looks like 0/1 targets).
    """
    ranking = [s for s in specs if s.measure.kind != "binary"]
    if ranking and weighted:
        raise InvalidParameterError(
            f"`weights` apply to the binary measures only, not to {ranking[0].label} "
            "(a per-query measure); evaluate them without weights"
        )
    binary = [s for s in specs if s.measure.kind == "binary"]
    if binary:
        # the stream takes no pos_label: the targets come coded
        words = LabelWords(pos_label=False, whole=not labels.many)
        Targets(labels.coding()).binary(binary[0].label, words=words)


class _Results:
    """Per-group keys, sizes and values, part by part, and the spill's size."""

    def __init__(self, specs):
        self.keys: list[np.ndarray] = []
        self.sizes: list[np.ndarray] = []
        self.values: dict[str, list[np.ndarray]] = {s.label: [] for s in specs}
        #: the reasons of the NaN groups, {label: {key: why}} (engine.finish.group_whys of each part)
        self.whys: dict[str, dict] = {}
        #: the groups whose rows all had weight 0 (each part's), said once at the end
        self.zero: list[np.ndarray] = []
        self.spilled = 0  # bytes of the first spill
        self.live = 0  # bytes of the spill files that exist now
        self.peak = 0  # the most that existed at once

        #: K classes (labels) per group: each part's marks of what its groups' values leave out,
        #: ({label: (groups, K) classes}, {label: a bool a group}), as
        #: :func:`perfeval.engine.classes.left_marks` makes them
        self.marks: list[tuple[dict, dict]] = []

    def add(
        self, keys: np.ndarray, sizes: np.ndarray, values: dict[str, np.ndarray], whys: dict | None = None
    ) -> None:
        self.keys.append(keys)
        self.sizes.append(np.asarray(sizes, dtype=np.float64))
        for label, v in values.items():
            self.values[label].append(np.asarray(v, dtype=np.float64))
        for label, said in (whys or {}).items():
            self.whys.setdefault(label, {}).update(said)

    def add_marks(self, report: Any) -> None:
        """A grouped report's marks of what its groups' values leave out, beside its values."""
        self.marks.append(report_marks(report))


class _Job:
    """Evaluates spilled parts within the row budget (see evaluate_stream_grouped)."""

    #: a part that a new hash did not divide is split again at most this often before its rows
    #: are taken as they are (two distinct keys colliding at every level: in practice never)
    MAX_DEPTH = 8

    def __init__(self, specs, threshold, budget, labels, weighted, out: _Results, how: str | None = None):
        self.specs, self.threshold, self.budget = specs, threshold, budget
        self.labels, self.weighted, self.out = labels, weighted, out
        #: a regression target: how it was asked (None: binary and per-query measures)
        self.how = how

    def run(self, part: _Part, depth: int) -> None:
        try:
            if part.rows <= self.budget or (depth > self.MAX_DEPTH and not part.single):
                self._in_memory(part.path)
            elif part.single:
                self._one_group(part)
            else:
                self._resplit(part, depth)
        finally:
            self._remove(part)  # the disk of an evaluated part is free for the next split

    def _remove(self, part: _Part) -> None:
        if os.path.exists(part.path):
            os.remove(part.path)
            self.out.live -= part.bytes

    def _resplit(self, part: _Part, depth: int) -> None:
        """Split a part too large for memory into parts of about half the budget, reading it block
        by block; the parent is removed before the children are evaluated.
        """
        # a group past the budget among others goes to a part of its own at once: hashed with the
        # others it would be copied again at every level until no other group shared its part
        heavy = part.cand if part.cand_rows > self.budget else None
        rest = part.rows - (part.cand_rows if heavy is not None else 0)
        k = int(min(_max_partitions(), max(4, math.ceil(2 * rest / self.budget))))
        children = [_Part(f"{part.path[:-4]}.{i}.bin") for i in range(k + (heavy is not None))]
        try:
            for arrays in _read_blocks(part.path):
                if heavy is None:
                    _split(arrays, children, depth)
                    continue
                mine = _same_key(arrays[2], heavy)
                if mine.any():
                    children[k].add([c[mine] for c in arrays])
                if not mine.all():
                    _split([c[~mine] for c in arrays], children[:k], depth)
        finally:
            for c in children:
                c.close()
        self.out.live += sum(c.bytes for c in children)
        self.out.peak = max(self.out.peak, self.out.live)
        self._remove(part)
        for c in children:
            if c.rows:
                self.run(c, depth + 1)
            else:
                self._remove(c)

    def _in_memory(self, path: str) -> None:
        blocks = list(_read_blocks(path))
        cols = [np.concatenate([b[k] for b in blocks]) for k in range(len(blocks[0]))]
        del blocks
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = _finish_part(cols, self.specs, self.threshold, self.how, self.out.zero)
        self.out.add(
            np.asarray(r.groups),
            r.group_sizes,
            {s.label: _per_group(r, s.label) for s in self.specs},
            group_whys(r),
        )

    def _one_group(self, part: _Part) -> None:
        """A single group over the budget, finished from its summary read block by block: a
        ScoreHistogram for the binary measures, counts per (score, relevance) for the per-query
        measures and GAUC.  Every per-group kernel reads only these (perfeval.measures._data,
        perfeval.summaries.ranking.TieTable), so the values are those of evaluate() on the rows.
        Memory: the group's distinct scores (and grades), not its rows.
        """
        if self.how is not None:
            self._one_regression_group(part)
            return
        # the spill's own name for the weights in its messages (`weights`), checked as the door checks them
        weights = EVALUATION[3]._replace(name="weights")

        binary = [s for s in self.specs if s.measure.kind == "binary"]
        ranking = [s for s in self.specs if s.measure.kind != "binary"]
        hb: list[ScoreHistogram] = []
        pairs = _PairCounts()
        size: Any = np.zeros(1)
        key = None
        for arrays in _read_blocks(part.path):
            y, s, g = arrays[0], check_array(EVALUATION[1], arrays[1]), arrays[2]
            targets = Targets(y)
            w = arrays[3] if len(arrays) == 4 else None
            if key is None or g.dtype.kind in "US":
                key = g[:1]  # text if any block is text: as the concatenation of the blocks would be
            if w is not None:
                w = check_array(weights, w)
                keep = w > 0
                # the group's size as evaluate() sums it: one sequential sum in row order, carried on
                size = np.bincount(
                    np.zeros(int(keep.sum()) + 1, dtype=np.intp), weights=np.concatenate([size, w[keep]])
                )
            else:
                size = size + len(s)
            h = None
            if binary:
                # the coding of all the targets was checked (_check_request): a block's own coding
                # agrees with it (a block of 1s alone reads as 0/1, and 1 is positive in both)
                h = ScoreHistogram.from_checked(np.asarray(targets.coding()) == 1, s, w)
                hb.append(h)
                if len(hb) >= 8:
                    hb = [ScoreHistogram.merge_all(hb)]
            if ranking:
                # as numbers, not targets.relevance(ranking): its line for text labels is not the one
                # this path has always said (`y_true` must hold numbers)
                rel = floats(y, "y_true")
                check_relevance(rel)
                if h is not None and w is None and bool(((rel == 0) | (rel == 1)).all()):
                    pairs.add_histogram(h)  # 0/1 grades: the block's histogram is its pair counts
                else:
                    pairs.add(s, rel)
        # merged block by block as the groups' summaries are (not folded in row order: a group's
        # weights in memory are added in the order of its rows sorted by score and weight)
        h_bin = ScoreHistogram.merge_all(hb)
        if binary and self.weighted and h_bin.scores.size == 0:
            self.out.zero.append(_int_keys(np.asarray(key)))
            return  # every row of weight 0: no case at all, so no group (as in evaluate)
        values = {}
        if ranking:
            table = TieTable.from_counts(0, *pairs.result())
            for sp in ranking:
                values[sp.label] = np.asarray(sp.measure.function()(table, **sp.kwargs), dtype=np.float64)
        for sp in binary:
            values[sp.label] = self._binary_from_summary(sp, h_bin)
        keys = np.asarray(key)
        if keys.dtype.kind == "f":
            keys = keys.astype(np.int64)
        self.out.add(keys, size, values, _one_group_whys(binary, values, h_bin, keys))

    def _one_regression_group(self, part: _Part) -> None:
        """A single group of a regression target over the budget: its exact sums folded block by
        block (the numbers of its rows together), its size summed as evaluate() sums it.
        """
        from perfeval.engine.regression import check_regression, empty_summary, fold, summary_values

        summary = empty_summary(self.specs)
        size: Any = np.zeros(1)
        key = None
        for arrays in _read_blocks(part.path):
            w = arrays[3] if len(arrays) == 4 else None
            cases = check_regression(arrays[0], arrays[1], None, w)
            if key is None or arrays[2].dtype.kind in "US":
                key = arrays[2][:1]
            if cases.w is not None:  # one sequential sum in row order, carried on
                size = np.bincount(
                    np.zeros(len(cases.w) + 1, dtype=np.intp), weights=np.concatenate([size, cases.w])
                )
            else:
                size = size + len(cases.y)
            summary = fold(summary, cases)
        if summary.weight == 0:
            self.out.zero.append(_int_keys(np.asarray(key)))
            return  # every row of weight 0: no case at all, so no group (as in evaluate)
        finished = summary_values(self.specs, summary)
        values = {lab: np.array([r.value], dtype=np.float64) for lab, r in finished.items()}
        keys = np.asarray(key)
        if keys.dtype.kind == "f":
            keys = keys.astype(np.int64)
        # a NaN value's reason: the group's own, as evaluate() says it of the group
        whys = {lab: {keys.tolist()[0]: r.why} for lab, r in finished.items() if r.why}
        self.out.add(keys, size, values, whys)

    def _binary_from_summary(self, spec, h: ScoreHistogram) -> np.ndarray:
        """The value evaluate() gives a group, from the group's summary: its per-group kernel (they
        read only the group's histogram), or with weights where a kernel declines them, the measure
        over the summary as evaluate() computes it group by group.
        """
        fast = spec.measure.per_group_function()
        if fast is not None:
            vals = fast(_SummaryGroup(h, self.weighted), **spec.kwargs)
            if vals is not None:
                return np.asarray(vals, dtype=np.float64)
        return np.array([safe(spec, h)], dtype=np.float64)


class _PairCounts:
    """How many cases have each (score, relevance) pair, merged block by block: one sorted run of
    distinct scores with their counts per grade (grades are few: 0/1, or 0..4), built and merged
    as a ScoreHistogram is (plain sorts, linear merges of sorted runs).
    """

    def __init__(self):
        self.levels: dict[float, list[tuple[np.ndarray, np.ndarray]]] = {}

    def add(self, score: np.ndarray, rel: np.ndarray) -> None:
        for level in _levels(rel):
            part = score if len(rel) and bool((rel == level).all()) else score[rel == level]
            parts = self.levels.setdefault(level, [])
            parts.append(runs(np.sort(part)))
            if len(parts) >= 8:
                self.levels[level] = [_merge_runs(parts)]

    def add_histogram(self, h: ScoreHistogram) -> None:
        """A block of 0/1 grades, from its unweighted histogram: grade 1 the positives, 0 the negatives."""
        for level, counts in ((0.0, h.neg), (1.0, h.pos)):
            has = counts > 0
            if has.any():
                parts = self.levels.setdefault(level, [])
                parts.append((h.scores[has], counts[has]))
                if len(parts) >= 8:
                    self.levels[level] = [_merge_runs(parts)]

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.levels:
            return np.zeros(0), np.zeros(0), np.zeros(0)
        merged = {lv: _merge_runs(p) for lv, p in self.levels.items()}
        score = np.concatenate([m[0] for m in merged.values()])
        grade = np.concatenate([np.full(len(m[0]), lv) for lv, m in merged.items()])
        count = np.concatenate([m[1] for m in merged.values()])
        return score, grade, count


def _levels(rel: np.ndarray) -> list[float]:
    """The distinct grades of a block: a bincount when they are small whole numbers (the usual)."""
    if not len(rel):
        return []
    top = float(rel.max())
    if top <= 255 and bool((rel == np.floor(rel)).all()):
        present = np.flatnonzero(np.bincount(rel.astype(np.int64), minlength=int(top) + 1))
        return [float(v) for v in present]
    return [float(v) for v in np.unique(rel)]


def _merge_runs(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted runs of (distinct score, count) merged into one: a stable sort of a few sorted runs
    (linear in numpy), equal scores added up (whole counts: exact).
    """
    if len(parts) == 1:
        return parts[0]
    sc = np.concatenate([p[0] for p in parts])
    ct = np.concatenate([p[1] for p in parts])
    order = np.argsort(sc, kind="stable")
    sc, ct = sc[order], ct[order]
    new = np.ones(len(sc), dtype=bool)
    new[1:] = sc[1:] != sc[:-1]
    heads = np.flatnonzero(new)
    return sc[heads], np.add.reduceat(ct, heads) if len(heads) else ct[:0]


def _one_group_whys(binary: list, values: dict, h: ScoreHistogram, keys: np.ndarray) -> dict[str, dict]:
    """The reasons of a single group's NaN binary values, as evaluate() says them of the group
    (:func:`perfeval.engine.finish.group_reasons`), ``{label: {key: why}}``.
    """
    from perfeval.measures.reasons import why_nan

    whys: dict[str, dict] = {}
    for sp in binary:
        if np.isnan(values[sp.label]).any():
            said = why_nan(sp.measure.name, sp.measure.edge_cases, h, {**sp.measure.defaults(), **sp.kwargs})
            if said:
                whys[sp.label] = {keys.tolist()[0]: said}
    return whys


def _per_group(report, label: str) -> np.ndarray:
    vals = report.results[label].per_group
    assert vals is not None  # a grouped report has per-group values
    return vals


class _SummaryGroup:
    """One group as the per-group kernels of perfeval.measures._data see it, built from the
    group's ScoreHistogram instead of its rows: its threshold counts and its histogram are all
    that the kernels read.
    """

    def __init__(self, h: ScoreHistogram, weighted: bool):
        self.G = 1
        self.weighted = weighted
        self._ranking = None
        self._hist = (h.scores, h.pos, h.neg, np.array([0, len(h.scores)]))
        self._h = h

    def counts(self, threshold: float):
        return tuple(np.array([c]) for c in self._h.counts_at(threshold))


def _clustered(chunks: Iterable[tuple], specs, threshold: float, how: str | None = None):
    """Input whose groups are contiguous: evaluate each chunk's complete groups as they arrive,
    carrying the last (maybe unfinished) group into the next chunk.  Memory: one chunk and one
    group.  A group seen again after it ended is an error (the input is not clustered).
    """
    done: set = set()
    carry: list[np.ndarray] | None = None
    keys_all: list[np.ndarray] = []
    sizes_all: list[np.ndarray] = []
    values: dict[str, list[np.ndarray]] = {s.label: [] for s in specs}
    whys: dict[str, dict] = {}
    rows = 0
    weighted = False
    zero: list[np.ndarray] = []

    def flush(cols: list[np.ndarray]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = _finish_part(cols, specs, threshold, how, zero)
        ks = np.asarray(r.groups)
        again = [k for k in ks.tolist() if k in done]
        if again:
            raise InvalidDataError(
                f"the input is not clustered by group: group {again[0]!r} appears again after other groups; "
                "drop clustered=True (--clustered) to spill the rows by group instead"
            )
        done.update(ks.tolist())
        keys_all.append(ks)
        sizes_all.append(r.group_sizes)
        for s in specs:
            values[s.label].append(_per_group(r, s.label))
        for label, said in group_whys(r).items():
            whys.setdefault(label, {}).update(said)

    for chunk in chunks:
        cols = [np.asarray(a) for a in chunk]
        rows += len(cols[1])
        weighted = weighted or len(cols) == 4
        if how is not None:
            cols = _regression_chunk(_chunk_columns(chunk))
        if carry is not None:
            cols = [np.concatenate([a, b]) for a, b in zip(carry, cols, strict=False)]
        if len(cols[1]) == 0:
            continue
        g = cols[2]
        last = g[-1]
        tail = len(g)
        while tail > 0 and g[tail - 1] == last:
            tail -= 1
        if tail > 0:
            flush([a[:tail] for a in cols])
        carry = [a[tail:] for a in cols]
    if carry is not None and len(carry[1]):
        flush(carry)
    _say_zero(zero)
    return keys_all, sizes_all, values, rows, weighted, whys


def _grouped_report(
    keys_all, sizes_all, values, specs, threshold, rows, weighted, partitions, how=None, whys=None
):
    if not keys_all:
        raise InvalidParameterError("no rows to evaluate")
    # the pieces are released as they are joined: with millions of groups each copy is large
    keys = np.concatenate(keys_all)
    keys_all.clear()
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    sizes = np.concatenate(sizes_all)[order]
    sizes_all.clear()
    joined = {}
    for s in specs:
        joined[s.label] = np.concatenate(values[s.label])[order]
        values[s.label].clear()
    del order
    if how is not None:
        from perfeval.engine.regression import grouped_report as regression_report

        report = regression_report(
            specs,
            keys,
            sizes,
            joined,
            rows=rows,
            weighted=weighted,
            backend="stream",
            task_from=how,
            whys=whys or {},
        )
        report.params["spill_partitions"] = partitions
        return report
    return grouped_report(
        specs,
        keys,
        sizes,
        joined,
        threshold=threshold,
        rows=rows,
        weighted=weighted,
        backend="stream",
        whys=whys or {},
        spill_partitions=partitions,
    )


# -- K classes or K labels per group: the spill of the binary measures, a class's score a column ----------
class _Task:
    """What the grouped stream of K classes or K labels needs of its task (``kind`` "multiclass" or
    "multilabel"): the measures read for it, the door a chunk goes through, the spill block of its
    checked rows and back, the in-memory finish of whole groups, and the summary a group over the
    budget is folded into.  One stream for both tasks; only these differ.
    """

    def __init__(self, kind: str, labels: tuple, measures: Any, *, threshold: float, how: str, coded: bool):
        from perfeval.engine.classes import class_specs
        from perfeval.engine.labels import label_specs

        self.kind, self.labels, self.k = kind, labels, len(labels)
        self.threshold, self.how, self.coded = threshold, how, coded
        if kind == "multiclass":
            default = measures is None
            self.specs = class_specs([] if default else resolve(measures, 0.5, pending=True), default=default)
        else:
            self.specs = label_specs(measures, threshold)
        #: the columns of a block before the weights: the targets (one column, or one a label), the
        #: scores (one a column) and the groups
        self.width = self.k + 2 if kind == "multiclass" else 2 * self.k + 1

    def check(self, y: Any, s: Any, g: Any, w: Any) -> Any:
        """A chunk's cases through evaluate()'s door for the task (the rows of weight 0 dropped)."""
        from perfeval.engine.door import check_classes, check_labels

        k = self.k
        if self.kind == "multiclass":
            cases, _found, _how = check_classes(
                y, s, g, w, classes=tuple(range(k)) if self.coded else self.labels
            )
            if cases.s.shape[1] != k:
                raise InvalidDataError(
                    f"a chunk's `y_score` has {cases.s.shape[1]} columns for the {k} classes"
                )
        else:
            cases, _found, _how = check_labels(y, s, g, w, labels=None)
            if cases.s.shape[1] != k:
                raise InvalidDataError(f"a chunk has {cases.s.shape[1]} label columns for the {k} labels")
        return cases

    def empty(self) -> Any:
        """The summary of no rows, to fold rows into in their order."""
        from perfeval.engine.labels import empty_summary
        from perfeval.summaries.classes import ClassSummary

        if self.kind == "multiclass":
            return ClassSummary.empty(self.labels)
        return empty_summary(self.labels, self.specs)

    def block(self, cases: Any) -> list[np.ndarray]:
        """Checked rows as a spill block: the first target column, the first score column, the
        groups (where the spill looks for them), the other score columns, the other label columns
        (K labels), then the weights when there are (:meth:`rows` reads them back).
        """
        y, s, k = cases.y, cases.s, self.k
        ys = [y] if self.kind == "multiclass" else [y[:, j] for j in range(k)]
        block = [ys[0], s[:, 0], _spill_ids(cases.g), *(s[:, j] for j in range(1, k)), *ys[1:]]
        return block if cases.w is None else [*block, cases.w]

    def rows(self, cols: list[np.ndarray]) -> tuple:
        """(targets, (n, K) scores, groups, weights or None) of a block laid out by :meth:`block`."""
        k = self.k
        s = np.empty((len(cols[0]), k), dtype=np.float64)
        s[:, 0] = cols[1]
        for j in range(1, k):
            s[:, j] = cols[2 + j]
        w = cols[self.width] if len(cols) > self.width else None
        if self.kind == "multiclass":
            return cols[0].astype(np.intp, copy=False), s, cols[2], w
        y = np.empty((len(cols[0]), k), dtype=bool)
        y[:, 0] = cols[0]
        for j in range(1, k):
            y[:, j] = cols[k + 1 + j]
        return y, s, cols[2], w

    def finish(self, cases: Any) -> Any:
        """Whole groups' checked rows finished as evaluate() finishes them in memory."""
        from perfeval.engine.classes import finish_classes
        from perfeval.engine.labels import finish_labels

        if self.kind == "multiclass":
            return finish_classes(cases, self.specs, self.labels, threshold=0.5, classes_from=self.how)
        return finish_labels(cases, self.specs, self.labels, threshold=self.threshold, labels_from=self.how)


def evaluate_stream_grouped_classes(
    chunks: Iterable[tuple],
    classes: Any,
    *,
    measures: Any = None,
    partitions: int | None = None,
    tmpdir: str | None = None,
    clustered: bool = False,
    size_hint: int | None = None,
    budget_rows: int | None = None,
    progress: bool = False,
    classes_from: str = "given",
    coded: bool = False,
    totals: dict | None = None,
    task: str = "multiclass",
    threshold: float = 0.5,
):
    """The multiclass (or multilabel) measures per group over chunks ``(y_true, y_score, groups[,
    sample_weight])``, the scores an (n, K) matrix a chunk (one column a class, in the order of
    ``classes``), in bounded memory: the bits of :func:`perfeval.evaluate` of the concatenated
    chunks with ``classes=`` and ``groups=``, weights or not.

    Each chunk is checked at the door (:func:`perfeval.engine.door.check_classes`: the targets coded,
    the rows of weight 0 dropped), then spilled by group as :func:`evaluate_stream_grouped` spills
    (the K score columns side by side; each group's rows kept in input order), and each part is
    finished by :func:`perfeval.engine.classes.finish_classes` as in memory; a single group over the
    budget is folded block by block into its :class:`~perfeval.summaries.classes.ClassSummary` in
    row order (:meth:`~perfeval.summaries.classes.ClassSummary.folded`, the bits of the summary of
    its rows).  ``clustered``: each group's rows together in the input; nothing is spilled.

    ``task="multilabel"``: K labels, ``y_true`` an (n, K) 0/1 matrix a chunk and ``classes`` the
    labels (:func:`perfeval.engine.door.check_labels`, :func:`perfeval.engine.labels.finish_labels`,
    a group over the budget folded into its :class:`~perfeval.summaries.labels.LabelSummary`; the
    bits of ``evaluate(Y, S, groups=)``), ``threshold`` that of the threshold measures.

    ``budget_rows``: rows of a part finished in memory at once (default
    :data:`SPILL_BUDGET_ROWS` over K: a row holds K scores).  ``coded``: the targets are codes
    0..K-1 already.  ``totals``, a dict, gets ``"summary"``: the summary of all the rows folded
    in row order (the confusion over every case, as in memory), when the caller asks by passing it.
    The other parameters are those of :func:`evaluate_stream_grouped`.

    Examples
    --------
    >>> chunks = [([0, 1, 2], [[.7, .2, .1], [.2, .5, .3], [.1, .3, .6]], [1, 1, 2]),
    ...           ([1, 0], [[.3, .6, .1], [.5, .3, .2]], [2, 2])]
    >>> r = evaluate_stream_grouped_classes(chunks, [0, 1, 2], measures=["acc_mc"])
    >>> r.results["ACC_MC"].per_group.tolist()
    [1.0, 1.0]
    """
    if task not in ("multiclass", "multilabel"):
        raise InvalidParameterError(f"task must be 'multiclass' or 'multilabel', got {task!r}")
    labels = tuple(c.item() if isinstance(c, np.generic) else c for c in classes)
    k = len(labels)
    kind = _Task(task, labels, measures, threshold=threshold, how=classes_from, coded=coded)
    specs = kind.specs
    budget = max(1, SPILL_BUDGET_ROWS // max(k, 1)) if budget_rows is None else budget_rows
    if budget < 1:
        raise InvalidParameterError(f"budget_rows must be at least 1, got {budget}")
    feed = _ClassFeed(kind, totals is not None)
    out = _Results(specs)
    job = _ClassJob(kind, budget, out)
    if clustered:
        for cols in _whole_groups(feed.blocks(chunks)):
            job.finish_rows(cols, clustered=True)
        spill = None
    else:
        if partitions is None:
            # a line of K scores is about K times a binary line: the rows of size_hint, roughly
            partitions = partitions_for(size_hint // max(k, 1), budget) if size_hint else 32
        partitions = max(1, min(int(partitions), _max_partitions()))
        with _cleanup_on_signals(), tempfile.TemporaryDirectory(prefix="perfeval-spill-", dir=tmpdir) as tmp:
            parts = [_Part(os.path.join(tmp, f"part{i:04d}.bin")) for i in range(partitions)]
            try:
                for block in feed.blocks(chunks):
                    _split(block, parts, 0)
            finally:
                for p in parts:
                    p.close()
            out.spilled = out.live = out.peak = sum(p.bytes for p in parts)
            with _progress.bar(progress, sum(p.rows for p in parts), "groups", "rows", scale=True) as meter:
                for p in parts:
                    if p.rows:
                        job.run(p, 1)
                        meter.set_postfix_str(f"{sum(len(x) for x in out.keys):,} groups done")
                        meter.update(p.rows)
        spill = {"bytes": out.spilled, "peak_bytes": out.peak}
    if totals is not None:
        totals["summary"] = feed.summary
    marks = None
    if out.keys and len(out.marks) == len(out.keys):
        marks = joined_marks(out.marks, np.argsort(np.concatenate(out.keys), kind="stable"), specs)
    keys, sizes, values = _joined(out.keys, out.sizes, out.values, specs)
    report = grouped_classes_report(
        specs,
        keys,
        sizes,
        values,
        labels,
        classes_from=classes_from,
        rows=feed.rows,
        weighted=bool(feed.weighted),
        backend="stream",
        task=task,
        threshold=threshold,
        marks=marks,
    )
    if spill is not None:
        report.params["spill_partitions"] = partitions
        report.spill = spill
    return report


class _ClassFeed:
    """The chunks of K classes (or K labels) checked at the door and laid out as spill blocks
    (:meth:`_Task.block`).  Counts the rows given, and folds every row into one summary when asked
    (``whole``).
    """

    def __init__(self, kind: _Task, whole: bool):
        self.kind = kind
        self.rows = 0
        self.weighted: bool | None = None
        self.summary = kind.empty() if whole else None

    def blocks(self, chunks: Iterable[tuple]):
        for chunk in chunks:
            if len(chunk) not in (3, 4):
                raise InvalidParameterError("each chunk must be (y_true, y_score, groups[, sample_weight])")
            w = chunk[3] if len(chunk) == 4 else None
            _no_table(chunk, 3, "perfeval.backends.stream.evaluate_stream_grouped_classes()")
            if self.weighted is None:
                self.weighted = w is not None
            elif self.weighted != (w is not None):
                raise InvalidParameterError("the chunks must all have weights or none have: a chunk of each")
            cases = self.kind.check(chunk[0], chunk[1], chunk[2], w)
            self.rows += int(cases.rows_in)
            if self.summary is not None:
                self.summary = self.summary.folded(cases.y, cases.s, cases.w)
            if not len(cases.y):
                continue
            if cases.g is None:
                raise InvalidParameterError("each chunk must be (y_true, y_score, groups[, sample_weight])")
            yield self.kind.block(cases)


def _spill_ids(g: np.ndarray) -> np.ndarray:
    """Checked group ids as the spill stores them: Python objects (a pandas column's) as text or
    int64, the type they all share.
    """
    if g.dtype.kind != "O":
        return g
    vals = g.tolist()
    if all(isinstance(v, str) for v in vals):
        return np.array(vals, dtype=str)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
        return np.array(vals, dtype=np.int64)
    raise InvalidParameterError("streamed group ids must be all integers or all text within a chunk")


def _whole_groups(blocks: Iterable[list[np.ndarray]]):
    """The rows of input clustered by group, as lists of columns holding whole groups (the group
    column third): each block's complete groups, the last one carried into the next block.
    """
    carry: list[np.ndarray] | None = None
    for cols in blocks:
        if carry is not None:
            cols = [np.concatenate([a, b]) for a, b in zip(carry, cols, strict=True)]
        g = cols[2]
        last = g[-1]
        tail = len(g)
        while tail > 0 and g[tail - 1] == last:
            tail -= 1
        if tail > 0:
            yield [a[:tail] for a in cols]
        carry = [a[tail:] for a in cols]
    if carry is not None and len(carry[2]):
        yield carry


class _ClassJob(_Job):
    """Evaluates the spilled parts of K classes or K labels within the row budget (the binary job's
    splits).
    """

    def __init__(self, kind: _Task, budget, out: _Results):
        super().__init__(kind.specs, kind.threshold, budget, None, False, out)
        self.kind = kind
        self.done: set = set()

    def finish_rows(self, cols: list[np.ndarray], clustered: bool = False) -> None:
        """Whole groups' rows (in input order) finished as evaluate() finishes them in memory
        (:meth:`_Task.finish`).  ``clustered``: a group seen in an earlier call is an error.
        """
        from perfeval.base.checks import Cases

        y, s, g, w = self.kind.rows(cols)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = self.kind.finish(Cases(y, s, g, w, len(y)))
        keys = np.asarray(r.groups)
        if clustered:
            again = [x for x in keys.tolist() if x in self.done]
            if again:
                raise InvalidDataError(
                    f"the input is not clustered by group: group {again[0]!r} appears again after other "
                    "groups; drop clustered=True (--clustered) to spill the rows by group instead"
                )
            self.done.update(keys.tolist())
        self.out.add(keys, r.group_sizes, {sp.label: _per_group(r, sp.label) for sp in self.specs})
        self.out.add_marks(r)

    def _in_memory(self, path: str) -> None:
        blocks = list(_read_blocks(path))
        cols = [np.concatenate([b[i] for b in blocks]) for i in range(len(blocks[0]))]
        del blocks
        self.finish_rows(cols)

    def _one_group(self, part: _Part) -> None:
        """A single group over the budget: its rows folded block by block into one summary
        (ClassSummary, LabelSummary) in row order (the bits of the summary of all its rows at once),
        its size summed in row order as in memory.  Memory: the group's distinct scores a column
        (and class), not its rows.
        """
        from perfeval.engine.classes import summary_values

        cs = self.kind.empty()
        size: Any = np.zeros(1)
        key = None
        for cols in _read_blocks(part.path):
            y, s, g, w = self.kind.rows(cols)
            if key is None or g.dtype.kind in "US":
                key = g[:1]  # text if any block is text: as the concatenation of the blocks would be
            cs = cs.folded(y, s, w)
            if w is None:
                size = size + len(y)
            else:  # one sequential sum in row order, carried on (np.bincount's, as in memory)
                size = np.bincount(np.zeros(len(w) + 1, dtype=np.intp), weights=np.concatenate([size, w]))
        from perfeval.engine.classes import left_marks, mark_left

        got = summary_values(self.specs, cs)
        values = {label: np.array([r.value], dtype=np.float64) for label, r in got.items()}
        keys = np.asarray(key)
        self.out.add(keys, size.astype(np.float64), values)
        left, noted = left_marks(self.specs, 1, len(self.kind.labels))
        index = {c: j for j, c in enumerate(cs.classes)}
        for label, r in got.items():
            mark_left(left[label], noted[label], 0, r, index)
        self.out.marks.append((left, noted))


def report_marks(report: Any) -> tuple[dict, dict]:
    """A grouped K-class (K-label) report's marks of what its groups' values leave out, by label:
    ({label: (groups, K) bool}, {label: a bool a group}), as :class:`_Results` keeps them.
    """
    q, k = len(report.groups), len(report.params["classes"])
    left, noted = {}, {}
    for label, r in report.results.items():
        left[label] = r.left_out_per_group if r.left_out_per_group is not None else np.zeros((q, k), bool)
        noted[label] = r.noted_per_group if r.noted_per_group is not None else np.zeros(q, bool)
    return left, noted


def joined_marks(marks: list[tuple[dict, dict]], order: np.ndarray, specs: list) -> tuple[dict, dict]:
    """The parts' marks (:func:`report_marks`) with their groups in ``order`` (the keys' sorted order)."""
    left = {sp.label: np.concatenate([m[0][sp.label] for m in marks])[order] for sp in specs}
    noted = {sp.label: np.concatenate([m[1][sp.label] for m in marks])[order] for sp in specs}
    return left, noted


def _joined(keys_all, sizes_all, values, specs) -> tuple:
    """The groups' keys in their sorted order (as in memory), with their sizes and values."""
    if not keys_all:
        return np.zeros(0, dtype=np.int64), np.zeros(0), {s.label: np.zeros(0) for s in specs}
    keys = np.concatenate(keys_all)
    keys_all.clear()
    order = np.argsort(keys, kind="stable")
    sizes = np.concatenate(sizes_all)[order]
    sizes_all.clear()
    joined = {}
    for s in specs:
        joined[s.label] = np.concatenate(values[s.label])[order]
        values[s.label].clear()
    return keys[order], sizes, joined


def grouped_classes_report(
    specs: list,
    keys: np.ndarray,
    sizes: np.ndarray,
    values: dict[str, np.ndarray],
    classes: tuple,
    *,
    classes_from: str,
    rows: int,
    weighted: bool,
    backend: str,
    task: str = "multiclass",
    threshold: float = 0.5,
    marks: tuple[dict, dict] | None = None,
):
    """The report of the multiclass (``task``: or multilabel) measures per group from each group's
    size and values (the groups sorted as in memory), as :func:`perfeval.engine.classes.finish_classes`
    (:func:`perfeval.engine.labels.finish_labels`) makes it: the means over the groups, the undefined
    groups listed and warned of; with ``marks`` (:func:`joined_marks`), the classes each group's
    value leaves out, listed and warned of.
    """
    from perfeval.engine.classes import TIES_CLASSES, attach_left
    from perfeval.engine.finish import warn_undefined
    from perfeval.engine.labels import TIES_LABELS
    from perfeval.engine.report import MeasureResult, Report

    sizes = np.asarray(sizes, dtype=np.float64)
    results = {
        sp.label: MeasureResult.of(sp, np.asarray(values[sp.label], dtype=np.float64), sizes, keys, True)
        for sp in specs
    }
    if marks is not None:
        attach_left(results, *marks)
    warn_undefined(results, specs, classes)
    params = {
        "threshold": threshold,
        "rows": int(rows),
        "groups": int(len(keys)),
        "weighted": weighted,
        "partitions": None,
        "ties": TIES_CLASSES if task == "multiclass" else TIES_LABELS,
        "pos_label": None,
        "backend": backend,
        "task": task,
        "classes": [c.item() if isinstance(c, np.generic) else c for c in classes],
        "classes_from": classes_from,
    }
    report = Report(results, keys, params)
    report.group_sizes = sizes
    return report


def evaluate_stream_labels(
    chunks: Iterable[tuple],
    labels: Any,
    *,
    measures: Any = None,
    threshold: float = 0.5,
    labels_from: str = "given",
):
    """Evaluate the multilabel measures over ``(y_true, y_score[, sample_weight])`` chunks: the
    targets an (n, K) 0/1 matrix a chunk, the scores an (n, K) matrix, one column a label in the
    order of ``labels``.

    Each chunk is checked at the door (:func:`perfeval.engine.door.check_labels`) and its rows
    folded into one :class:`~perfeval.summaries.labels.LabelSummary` in row order
    (:meth:`~perfeval.summaries.labels.LabelSummary.folded`): the bits of :func:`perfeval.evaluate`
    of the concatenated chunks (a label matrix, ``classes=labels``), weights or not.

    Examples
    --------
    >>> chunks = [([[1, 0], [0, 1]], [[0.9, 0.2], [0.3, 0.6]]), ([[1, 1]], [[0.8, 0.4]])]
    >>> evaluate_stream_labels(chunks, ["spam", "urgent"], measures=["roc_ml"])["ROC_ML:average=macro"]
    1.0
    """
    from perfeval.engine.door import check_labels
    from perfeval.engine.labels import empty_summary, label_specs, summary_report

    names = tuple(c.item() if isinstance(c, np.generic) else c for c in labels)
    k = len(names)
    specs = label_specs(measures, threshold)
    ls = empty_summary(names, specs)
    rows = 0
    weighted = False
    for chunk in chunks:
        if len(chunk) not in (2, 3):
            raise InvalidParameterError("each chunk must be (y_true, y_score) or (y_true, y_score, weight)")
        w = chunk[2] if len(chunk) == 3 else None
        _no_table(chunk, 2, "perfeval.backends.stream.evaluate_stream_labels()")
        weighted = weighted or w is not None
        cases, _found, _how = check_labels(chunk[0], chunk[1], None, w, labels=None)
        if cases.s.shape[1] != k:
            raise InvalidDataError(f"a chunk has {cases.s.shape[1]} label columns for the {k} labels")
        ls = ls.folded(cases.y, cases.s, cases.w)
        rows += int(cases.rows_in)
    report = summary_report(
        ls, specs, rows=rows, weighted=weighted, backend="stream", labels_from=labels_from
    )
    report.params["threshold"] = threshold
    return report
