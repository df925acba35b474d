"""Exact evaluation on a Dask cluster: per-partition summaries, a tree reduction, one finish.

Every partition is summarised where it lives (a :class:`~perfeval.summaries.ScoreHistogram`: the
distinct scores with their positive and negative weight); summaries are merged eight at a time up a
tree; the client finishes the measures from the one merged summary with the same code as the
in-memory path, so the numbers are the same.  What travels over the wire is summaries: 24 bytes per
distinct score in a partition, never the rows.

Per-group measures (GAUC, NDCG, MAP, ...) shuffle the rows by group so that each partition holds
whole groups, compute the per-group values there, and bring back one row per group.

:func:`evaluate_dask` uses the caller's ``distributed.Client`` when there is one, else Dask's default
scheduler; it never starts a cluster itself.  For the command line, :func:`connect` starts or reaches
one and :func:`read_files` reads files into a frame with checked columns.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections.abc import Iterator
from typing import Any, NoReturn

import numpy as np

from perfeval.base.checks import (
    EVALUATION,
    LabelWords,
    check,
    class_choice,
    positive_choice,
    read_targets,
    shown_label,
    to_numpy,
)
from perfeval.base.checks import is_dask as _is_dask
from perfeval.base.console import one_line
from perfeval.engine import DEFAULT_MEASURES, binary_report, finish, grouped_report, resolve
from perfeval.engine.door import Targets, check_array
from perfeval.engine.finish import one_score_a_case, threshold_companions, with_thresholds
from perfeval.exceptions import (
    InputFormatError,
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    PerfError,
    quiet,
)
from perfeval.io import grammar
from perfeval.io.base import files
from perfeval.io.columns import choose
from perfeval.io.grammar import first_float_id, label_hits, labels_text, other_labels
from perfeval.io.readers import READERS, format_of, iter_columns
from perfeval.io.tables import float_ids, id_column, numeric
from perfeval.io.text import mistyped, said_as_read, unconverted, unparsed  # noqa: F401 - the command's --dask path names them so
from perfeval.summaries import ScoreHistogram

# Dask, distributed and pandas are optional: imported where a Dask run needs them.


def _require():
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "evaluating a Dask collection needs dask: pip install 'perfeval[dask]'"
        ) from None


is_dask = _is_dask  # the test lives at the door, so that evaluate() need not import this module


#: the end of the message for targets that are not 0/1 (the command line says it in its words)
CODE_TARGETS = "name the positive label with `pos_label=` (the others are negative), or code the column so"
#: the same for graded targets: several grades positive
CODE_GRADES = "code the column so (grades above 0: 1), or evaluate in memory with `partitions=`"
#: the same for three classes or more: the multiclass measures, as in memory (base.checks._classes)
CODE_CLASSES = "the multiclass measures read one score column per class (`score=[...]`, `classes=[...]`)"


def _summarize(y, s, w=None) -> ScoreHistogram:
    # the door's stages one array at a time, in the order Dask always said its errors: the targets
    # read, the scores checked, the targets coded, then the lengths and the weights (read as `w`)
    y = to_numpy(y, "y_true")
    s = check_array(EVALUATION[1], s)
    words = LabelWords(pos_label=False, whole=False)  # a chunk's targets; no pos_label on Dask
    return ScoreHistogram.from_arrays(
        Targets(y).binary("dask evaluation", words=words), s, None if w is None else to_numpy(w, "w")
    )


def _column_values(
    pdf, name: str, role: str, part: int | None = None, counted: str | None = None
) -> np.ndarray:
    """A score or weight column of a partition as float64, or an error naming the column and the
    value; ``part``: the partition's number in the frame, named with the row within it (both from 0:
    a partition does not know its line in the file).  ``counted``: a measure that reads the weights
    as counts of cases (APR, CA2, the debiased ECE), which makes a fractional weight such an error,
    in the words of the command read whole.
    """
    arr = pdf[name].to_numpy()
    kind = arr.dtype.kind

    def at(i: int) -> str:
        return "" if part is None else f" in row {i} of partition {part} (from 0)"

    if kind in "mM":  # dates and durations: numpy would count their nanoseconds
        first = arr[:1].astype("M8[us]" if kind == "M" else "m8[us]").astype(object)[0]
        raise InvalidDataError(f"the {role} column {name!r} holds {str(first)!r}, not a number")
    try:
        if kind in "biuf":
            v = arr.astype(np.float64)
        else:  # text (pandas could not read the column as numbers): the readers' one grammar, not
            # Python's float(), which takes 1_000, full-width and Arabic-Indic digits
            text = [x.strip() if isinstance(x, str) else str(x) for x in arr.tolist()]
            if grammar.first_bad_number(text) >= 0:
                raise ValueError
            v = np.array(text, dtype=np.float64)
    except (TypeError, ValueError):
        text = [str(x) for x in arr.tolist()]
        i = max(grammar.first_bad_number([t.strip() for t in text]), 0)
        bad = text[i]
        raise InvalidDataError(
            f"the {role} column {name!r} holds {bad!r}{at(i)}, not a number"
            + (" (an empty cell: every row needs one)" if not bad.strip() else "")
        ) from None
    bad = ~np.isfinite(v) if role in ("score", "target") else ~(np.isfinite(v) & (v >= 0))
    if bad.any():
        i = int(np.argmax(bad))
        x = float(v[i])
        what = {
            "score": "scores must be finite numbers",
            "target": "a regression target must be finite numbers",
        }.get(role, "weights must be finite numbers >= 0")
        missing = " (an empty cell, or NaN)" if np.isnan(x) else ""
        raise InvalidDataError(f"the {role} column {name!r} holds {x!r}{missing}{at(i)}; {what}")
    if counted is not None:
        frac = v != np.floor(v)
        if frac.any():
            i = int(np.argmax(frac))
            raise InvalidDataError(
                f"{counted} reads weights as counts of cases (whole numbers), but the weight column "
                f"{name!r} holds {float(v[i])!r}{at(i)}; leave {counted} out of the measures asked for "
                "these weights"
            )
    return v


def _no_missing_target(pdf, target: str, part: int | None = None) -> np.ndarray:
    """The target column of a partition, or an error when a row has none (NaN, or an empty field of
    a CSV read as text); ``part``: as :func:`_column_values` reads it, the first such row named with
    it (the command line then says its line, as for a score: the file read again streamed).
    """
    y = pdf[target].to_numpy()
    col = pdf[target]

    def at(missing: np.ndarray) -> str:
        return "" if part is None else f" in row {int(np.argmax(missing))} of partition {part} (from 0)"

    if y.dtype.kind == "f" or y.dtype.kind == "O":
        missing = np.isnan(y) if y.dtype.kind == "f" else col.isna().to_numpy()
        if missing.any():
            raise InvalidDataError(
                f"the target column {target!r} holds a missing value (NaN){at(missing)}: every row needs "
                "a target"
            )
    if y.dtype.kind == "O" and _has_empty(col):  # a CSV read as text (--group): ""
        empty = col.map(lambda v: isinstance(v, str) and not v.strip()).to_numpy(dtype=bool)
        raise InvalidDataError(
            f"the target column {target!r} holds an empty field, a missing value{at(empty)}: every row "
            "needs a target"
        )
    return y


def _has_empty(col) -> bool:
    """Whether a text column of a partition holds an empty field (blanks only), as a CSV read as
    text has it (pandas' ``keep_default_na=False``): a missing value, not a label or an id.
    """
    text = col[col.map(lambda v: isinstance(v, str))]
    return bool(len(text)) and bool((text.str.strip() == "").any())


def _summarize_sliced(pdf, k: int, target: str, score: str, pos_label: Any, ask: Any) -> tuple:
    """A partition's summary (:func:`_summarize_frame`, unweighted) and its slices' (each combination
    of its slice keys' summary, :func:`perfeval.backends.dask_slices.summary_piece`), in one read.
    """
    from perfeval.backends.dask_slices import summary_piece

    kept: list = []
    summary = _summarize_frame(pdf, target, score, None, pos_label, kept, part=k)
    coded, s = kept if kept else (np.zeros(0), np.zeros(0))
    return summary, summary_piece(pdf, k, ask, coded, s)


def _summarize_frame(
    pdf,
    target: str,
    score: str,
    weight: str | None,
    pos_label: Any = None,
    kept: list | None = None,
    part: int | None = None,
    counted: str | None = None,
) -> tuple[ScoreHistogram, int, frozenset, tuple[bool, frozenset]]:
    """A partition's summary, its rows, which of the labels -1 and 0 it holds (a partition of -1/1
    and another of 0/1 are not one coding: checked when the summaries merge), and with
    ``pos_label`` whether it holds that label and the others it holds (:func:`coded_labels`).
    ``kept``, a list, gets the coded targets and the checked scores; ``part``, ``counted``: as
    :func:`_column_values` reads them.
    """
    if len(pdf) == 0:  # an empty partition (a file of a header only): nothing to add
        return ScoreHistogram.empty(), 0, frozenset(), (False, frozenset())
    y = _no_missing_target(pdf, target, part)
    coded: np.ndarray | None
    if pos_label is not None:
        coded, labels = coded_labels(y, pos_label)
        found: frozenset = frozenset()
    else:
        coded, labels, found = Targets(y).coding(), (False, frozenset()), _labels_found(y)
    if coded is None:
        raise InvalidDataError(_labels_message(target, y))
    s = _column_values(pdf, score, "score", part)
    w = None if weight is None else _column_values(pdf, weight, "weight", part, counted)
    if kept is not None:
        kept += [coded, s]
    return ScoreHistogram.from_arrays(coded, s, w), len(pdf), found, labels


def frame_probability_counts(
    pdf, target: str, score: str, weight: str | None = None, pos_label: Any = None
) -> tuple[int, int, float, int, int]:
    """A partition's :func:`perfeval.measures.probability.probability_counts`, its targets coded as
    :func:`_summarize_frame` codes them (the frame evaluated already: its values are checked).
    """
    from perfeval.measures.probability import probability_counts

    if len(pdf) == 0:
        return 0, -1, float("nan"), 0, -1
    y = _no_missing_target(pdf, target)
    coded = coded_labels(y, pos_label)[0] if pos_label is not None else Targets(y).coding()
    if coded is None:
        raise InvalidDataError(_labels_message(target, y))
    s = _column_values(pdf, score, "score")
    w = None if weight is None else _column_values(pdf, weight, "weight")
    return probability_counts(coded, s, w)


def probability_cases(
    frame, *, target: str, score: str, weight: str | None = None, pos_label: Any = None
) -> list[tuple[int, tuple[int, int, float, int, int]]]:
    """Each partition's :func:`frame_probability_counts` (one pass, the rows staying on their worker),
    in the frame's order, with the partition's number (its rows are said ``row 3 of partition 1``: a
    partition's row is not a line of a file).  What ``perfeval eval --dask`` counts for its notes
    on probability scores.
    """
    import dask

    parts = frame.to_delayed()
    got = dask.compute(
        *[dask.delayed(frame_probability_counts)(p, target, score, weight, pos_label) for p in parts]
    )
    return list(enumerate(got))


def coded_labels(y: np.ndarray, pos_label: Any) -> tuple[np.ndarray, tuple[bool, frozenset]]:
    """A partition's targets coded 1 where the label is ``pos_label`` and 0 elsewhere, by the rule of
    every reader (:func:`perfeval.io.grammar.label_hits`: ``1``, ``1.0`` and 1 are one label), with
    whether the label occurs and the other labels (:func:`perfeval.io.grammar.other_labels`).
    """
    y = np.asarray(y)
    coded = label_hits(y, pos_label)
    return coded, (bool(coded.any()), frozenset(other_labels(y, coded)))


def _labels_message(target: str, y: np.ndarray, numbers: bool = False) -> str:
    """Targets of a partition that are not 0/1: what they look like (two labels, classes, grades, a
    regression target: :func:`perfeval.base.checks.read_targets`) and what to do on Dask (two
    labels: the one that looks positive offered, ```pos_label='click'```).  ``numbers``: the
    measures read numbers (GAUC, NDCG, ...), not 0/1 alone.
    """
    said = read_targets(y, LabelWords(pos_label=False, whole=False))
    if said.kind == "regression":
        return f"the target column {target!r} {said.what}; {said.advice}"
    if said.kind == "classes" and not numbers:
        vals = np.unique(y)
        label = shown_label(class_choice(vals))  # the class memory offers (base.checks._classes)
        said_classes = (
            f"the target column {target!r} {said.what}; {CODE_CLASSES}; the binary measures: "
            f"`pos_label={label!r}` evaluates {label!r} against the other classes"
        )
        if vals.dtype.kind in "iuf":  # whole numbers: a count (a regression target) as likely
            said_classes += f"; or {LabelWords().as_regression(count=float(vals[0]) >= 0)}"
        return said_classes
    tail = CODE_GRADES if said.kind == "grades" else CODE_TARGETS
    if said.kind == "grades":  # a count too: never left out
        tail += f"; or {LabelWords().as_regression(count=True)}"
    if said.kind == "labels":
        choice = positive_choice(np.unique(y))
        if choice is not None:
            tail = tail.replace(", or ", f", e.g. `pos_label={shown_label(choice)!r}`, or ", 1)
    need = (
        "the measures asked read numbers (0/1, or graded relevance: above 0 relevant)"
        if numbers
        else "binary measures need 0/1 (or -1/1, booleans) targets"
    )
    return f"the target column {target!r} {said.what}{':' if said.kind == 'labels' else ';'} {need}; {tail}"


def _no_text_labels(y: np.ndarray, target: str) -> None:
    """A partition's targets of labels (no value a number: click/no) where the measures read numbers
    (GAUC, NDCG, MAP): an error offering ``pos_label=``, as the binary measures' does.
    """
    if y.dtype.kind not in "OUS":
        return
    values = [str(v) for v in y.tolist()]
    if values and not any(grammar.is_number(v) for v in values):
        raise InvalidDataError(_labels_message(target, np.asarray(values), numbers=True))


def _labels_found(y: np.ndarray) -> frozenset:
    """Which of the labels -1 and 0 the (0/1 or -1/1) targets ``y`` hold."""
    y = np.asarray(y)
    return frozenset(v for v in (-1, 0) if y.dtype.kind in "iuf" and bool(np.any(y == v)))


def _merge(parts: list) -> tuple[ScoreHistogram, int, frozenset, tuple[bool, frozenset]]:
    found = frozenset().union(*(p[2] for p in parts))
    if len(found) > 1:
        raise InvalidDataError(
            f"the target column holds -1, 0 and 1 between its partitions: binary measures need 0/1 "
            f"(or -1/1, booleans) targets; {CODE_TARGETS}"
        )
    labels = (any(p[3][0] for p in parts), frozenset().union(*(p[3][1] for p in parts)))
    return ScoreHistogram.merge_all([p[0] for p in parts]), sum(p[1] for p in parts), found, labels


def _pos_label_found(
    pos_label: Any, target: str | None, labels: tuple[bool, frozenset], read: dict | None
) -> None:
    """The labels read with ``pos_label`` put in ``read`` (``"others"``: the labels read as negative);
    a label found in no partition is an error naming the labels there are.
    """
    if read is not None:
        read["others"] = set(labels[1])
    if not labels[0]:
        where = "the targets" if target is None else f"the target column {target!r}"
        raise InvalidDataError(
            f"pos_label={pos_label!r} does not occur in {where} (labels: {labels_text(set(labels[1]), 8)})"
        )


def tree_summary(pieces: list, split_every: int = 8):
    """A delayed summary: merge the delayed pieces ``split_every`` at a time, level by level."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [dask.delayed(_merge)(level[i : i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def evaluate_dask(
    data: Any,
    y_score: Any = None,
    *,
    target: str | None = None,
    score: str | None = None,
    group: str | None = None,
    weight: str | None = None,
    measures: Any = None,
    threshold: float = 0.5,
    split_every: int = 8,
    pos_label: Any = None,
    labels_read: dict | None = None,
    classes: Any = None,
    task: str | None = None,
    by: Any = None,
    intersections: bool = False,
    min_size: int | None = None,
    missing: str = "error",
):
    """Evaluate a Dask DataFrame (columns by name) or a pair of Dask arrays (targets, scores).

    Returns the :class:`~perfeval.engine.report.Report` of :func:`perfeval.evaluate`, computed on the
    cluster.  Binary measures: exact, from per-partition summaries.  Per-group measures (with
    ``group``): the rows are shuffled by group first.

    ``pos_label`` (a DataFrame's target): the positive label, every other label negative; a label
    is compared by its value when it is a number (``1``, ``1.0`` and ``"1"`` are one label, however
    a partition's column was typed), else by its text (:func:`perfeval.io.grammar.label_key`).
    ``labels_read``, a dict, gets ``"others"``: the labels read as negative.

    K classes: ``score=["cat", "dog", "bird"]`` names one score column a class (``classes=`` the
    labels of those columns, else their names, as :func:`perfeval.evaluate` reads them): a
    :class:`~perfeval.summaries.classes.ClassSummary` a partition, merged in partition order (with
    ``weight``: folded one partition after the other), the measures finished from it by the
    in-memory engine (:func:`_evaluate_classes`): the in-memory numbers bit for bit.

    K classes in long form, a row a case and class (``case=``, ``class_column=``):
    :func:`evaluate_dask_long`.

    A regression target (``task="regression"``, or a regression measure named): each partition's
    exact :class:`~perfeval.summaries.regression.RegressionSummary`, merged (any order: the same
    bits), or with ``group`` each shuffled partition's whole groups finished from their exact sums:
    ``evaluate(..., task="regression")``'s numbers (:func:`_evaluate_regression`).  Dask does not
    guess the task from a partition: without either, the targets are binary ones.

    Slices (``by=[...]``, columns of the DataFrame, with ``intersections``, ``min_size`` and
    ``missing`` as in :func:`perfeval.evaluate`): ``report.slices``, the bits of ``evaluate(
    ddf.compute(), ..., by=...)``.  Unweighted binary measures: each partition's summary of each
    combination of slice keys, in the same pass as the overall summary; anything else (weights,
    ``group``, K classes, K labels, a regression target): the columns the slices read come to the
    client, partition after partition (:mod:`perfeval.backends.dask_slices`, docs/dask.md).
    """
    _require()
    import dask
    import dask.array as da
    import dask.dataframe as dd

    from perfeval.backends.dask_slices import frame_ask

    taken = {"target": target, "score": score, "weight": weight}
    ask = frame_ask(by, data, intersections, min_size, missing, taken)
    routed = _routed(
        data,
        y_score,
        target,
        score,
        group,
        weight,
        measures,
        threshold,
        pos_label,
        classes,
        split_every,
        task,
    )
    if routed is not None:
        return _routed_slices(
            routed, data, ask, target, score, group, weight, measures, threshold, classes, task, split_every
        )
    specs = resolve(measures or DEFAULT_MEASURES, threshold)
    one_score_a_case(specs)  # a measure of K classes or labels of one score column: said as in memory

    if isinstance(data, dd.DataFrame):
        if target is None or score is None:
            raise InvalidParameterError("a Dask DataFrame needs `target=` and `score=` column names")
        absent = [c for c in (target, score, group, weight) if c is not None and c not in data.columns]
        if absent:
            raise InvalidParameterError(
                f"column {absent[0]!r} is not in the Dask DataFrame "
                f"(columns: {', '.join(map(str, data.columns))})"
            )
        if group is not None:
            report = _grouped(data, target, score, group, weight, specs, threshold, pos_label, labels_read)
            return _rows_slices(
                report, data, ask, (target, score, group, weight), specs, threshold, pos_label, split_every
            )
        if any(s.measure.kind != "binary" for s in specs):
            name = next(s.label for s in specs if s.measure.kind != "binary")
            raise InvalidParameterError(f"{name} is computed per group: pass `group=`")
        parts, feeds = _frame_parts(data, target, score, weight, pos_label, ask, specs)
    elif isinstance(data, da.Array):
        if y_score is None or not isinstance(y_score, da.Array):
            raise InvalidParameterError("Dask arrays: pass the targets and the scores as two Dask arrays")
        if data.shape != y_score.shape:
            raise InvalidParameterError(
                f"targets and scores differ in shape: {data.shape} and {y_score.shape}"
            )
        y_score = y_score.rechunk(data.chunks)
        if any(s.measure.kind != "binary" for s in specs):
            raise InvalidParameterError("per-group measures need a Dask DataFrame with a group column")
        feeds = []
        parts = [
            dask.delayed(_summarize_arrays)(a, b, pos_label)
            for a, b in zip(data.to_delayed().ravel(), y_score.to_delayed().ravel(), strict=False)
        ]
    else:
        raise InvalidParameterError(f"expected a Dask DataFrame or Dask arrays, got {type(data).__name__}")
    labels: tuple[bool, frozenset]
    summary, rows, labels, feed = _computed(parts, feeds, split_every)
    if pos_label is not None:
        _pos_label_found(pos_label, None if target is None else str(target), labels, labels_read)
    report = binary_report(
        specs, summary, rows=rows, threshold=threshold, weighted=weight is not None, backend="dask"
    )
    if pos_label is not None:
        report.params["pos_label"] = pos_label
    if ask is not None and weight is None:
        from perfeval.backends.slices import SliceFeed
        from perfeval.engine.slices import Task

        (feed if feed is not None else SliceFeed(ask, summary=True)).attach(
            report, Task("binary", tuple(specs), threshold, pos_label)
        )
        return report
    return _rows_slices(
        report, data, ask, (target, score, None, weight), specs, threshold, pos_label, split_every
    )


def _computed(parts: list, feeds: list, split_every: int) -> tuple:
    """The merged summary of the partitions' delayed ``parts`` (its rows and labels read), and of
    their slices' ``feeds`` when there are (else None), computed in one pass.
    """
    import dask

    if not parts:
        return ScoreHistogram.empty(), 0, (False, frozenset()), None
    if feeds:
        from perfeval.backends.dask_slices import tree_feeds

        (summary, rows, _found, labels), feed = dask.compute(
            tree_summary(parts, split_every), tree_feeds(feeds, split_every)
        )
        return summary, rows, labels, feed
    summary, rows, _found, labels = dask.compute(tree_summary(parts, split_every))[0]
    return summary, rows, labels, None


def _frame_parts(data, target, score, weight, pos_label, ask, specs=()) -> tuple[list, list]:
    """A DataFrame's partitions' delayed summaries, and (unweighted, with slices) their slices'
    summaries, made in the same read; a fractional weight where a measure of ``specs`` reads the
    weights as counts of cases is said by the partition that holds it (its row and the value).
    """
    import dask

    from perfeval.engine.door import counts_cases

    cols = [c for c in (target, score, weight) if c is not None]
    counted = next((s.label for s in specs if counts_cases(s)), None)
    if ask is None or weight is not None:
        parts = [
            dask.delayed(_summarize_frame)(p, target, score, weight, pos_label, None, k, counted)
            for k, p in enumerate(data[cols].to_delayed())
        ]
        return parts, []
    both = [
        dask.delayed(_summarize_sliced)(p, k, target, score, pos_label, ask)
        for k, p in enumerate(data[list(dict.fromkeys(cols + ask.names))].to_delayed())
    ]
    return [b[0] for b in both], [b[1] for b in both]


def _rows_slices(report, data, ask, cols, specs, threshold, pos_label, split_every) -> Any:
    """``report`` with the slices (when asked) of binary or per-query measures from the rows
    (weights, groups), brought to the client in partition order.
    """
    if ask is None:
        return report
    from perfeval.backends.dask_slices import attach_rows, binary_door

    return attach_rows(report, data, ask, cols, binary_door(specs, threshold, pos_label), split_every)


def _routed_slices(
    report, data, ask, target, score, group, weight, measures, threshold, classes, task, split_every
) -> Any:
    """``report`` of a routed evaluation (K labels, K classes, a regression target) with its slices
    when asked: the rows the slices read brought to the client and read again by the door evaluate()
    reads them through.
    """
    if ask is None:
        return report
    from perfeval.backends.dask_slices import attach_rows, classes_door, regression_door
    from perfeval.engine.regression import named_specs, regression_asked, regression_specs

    cols = (target, score, group, weight)
    if isinstance(target, (list, tuple)):  # K labels
        from perfeval.engine.labels import label_specs

        names = [str(c) for c in target]
        door = classes_door(label_specs(measures, threshold), threshold, classes, names, labels=True)
    elif isinstance(score, (list, tuple)):  # K classes
        from perfeval.engine.classes import class_specs

        default = measures is None or measures is DEFAULT_MEASURES
        specs = class_specs([] if default else resolve(measures, threshold, pending=True), default=default)
        door = classes_door(specs, threshold, classes, [str(c) for c in score], labels=False)
    else:
        how = regression_asked(measures, task)
        assert how is not None
        door = regression_door(regression_specs(named_specs(measures)), how)
    return attach_rows(report, data, ask, cols, door, split_every)


def _routed(
    data, y_score, target, score, group, weight, measures, threshold, pos_label, classes, split_every, task
):
    """evaluate_dask() of K labels, K classes or a regression target, or None (binary or per-group
    measures: evaluate_dask's own).
    """
    import dask.dataframe as dd

    from perfeval.engine.regression import regression_asked

    if isinstance(data, dd.DataFrame) and (
        isinstance(target, (list, tuple)) or isinstance(score, (list, tuple))
    ):
        # K labels (a 0/1 target column a label) or K classes (a score column a class)
        of = evaluate_dask_labels if isinstance(target, (list, tuple)) else _evaluate_classes
        return of(data, target, score, group, weight, measures, threshold, pos_label, classes, split_every)
    if classes is not None:
        raise InvalidParameterError(
            "`classes=` names the score columns of K classes: pass `score=[...]`, one a class"
        )
    how = regression_asked(measures, task)
    if how is not None:
        return _evaluate_regression(
            data, y_score, target, score, group, weight, measures, pos_label, how, split_every
        )
    return None


def _evaluate_regression(data, y_score, target, score, group, weight, measures, pos_label, how, split_every):
    """evaluate_dask() of a regression target (``how``: why it is one)."""
    import dask
    import dask.array as da
    import dask.dataframe as dd

    from perfeval.engine.regression import named_specs, regression_specs, summary_report

    if pos_label is not None:
        raise InvalidParameterError(f"pos_label= does not apply to a regression target ({how})")
    specs = regression_specs(named_specs(measures))
    if isinstance(data, dd.DataFrame):
        if target is None or score is None:
            raise InvalidParameterError("a Dask DataFrame needs `target=` and `score=` column names")
        missing = [c for c in (target, score, group, weight) if c is not None and c not in data.columns]
        if missing:
            raise InvalidParameterError(
                f"column {missing[0]!r} is not in the Dask DataFrame "
                f"(columns: {', '.join(map(str, data.columns))})"
            )
        if group is not None:
            return _grouped_regression(data, target, score, group, weight, specs, how)
        cols = [c for c in (target, score, weight) if c is not None]
        parts = [
            dask.delayed(_regression_frame)(p, target, score, weight, specs, k)
            for k, p in enumerate(data[cols].to_delayed())
        ]
    elif isinstance(data, da.Array):
        if y_score is None or not isinstance(y_score, da.Array):
            raise InvalidParameterError(
                "Dask arrays: pass the targets and the predictions as two Dask arrays"
            )
        if data.shape != y_score.shape:
            raise InvalidParameterError(
                f"targets and predictions differ in shape: {data.shape} and {y_score.shape}"
            )
        y_score = y_score.rechunk(data.chunks)
        parts = [
            dask.delayed(_regression_arrays)(a, b, specs)
            for a, b in zip(data.to_delayed().ravel(), y_score.to_delayed().ravel(), strict=False)
        ]
    else:
        raise InvalidParameterError(f"expected a Dask DataFrame or Dask arrays, got {type(data).__name__}")
    from dataclasses import replace

    from perfeval.engine.regression import empty_summary

    if parts:
        summary, rows = dask.compute(_regression_tree(parts, split_every))[0]
    else:
        summary, rows = empty_summary(specs), 0
    summary = replace(summary, rows=rows)
    return summary_report(summary, specs, weighted=weight is not None, backend="dask", task_from=how)


def _regression_frame(
    pdf, target: str, score: str, weight: str | None, specs: list, part: int | None = None
) -> tuple[Any, int]:
    """A partition's exact regression sums and its rows (errors naming the column, the value, and
    the row of partition ``part``).
    """
    from perfeval.engine.regression import check_regression, empty_summary, fold

    if len(pdf) == 0:
        return empty_summary(specs), 0
    y = _column_values(pdf, target, "target", part)
    s = _column_values(pdf, score, "score", part)
    w = None if weight is None else _column_values(pdf, weight, "weight", part)
    return fold(empty_summary(specs), check_regression(y, s, None, w)), len(pdf)


def _regression_arrays(y: np.ndarray, s: np.ndarray, specs: list) -> tuple[Any, int]:
    """A chunk of Dask arrays summarised as :func:`_regression_frame` summarises a partition."""
    from perfeval.engine.regression import check_regression, empty_summary, fold

    return fold(empty_summary(specs), check_regression(y, s)), len(y)


def _regression_merge(parts: list) -> tuple[Any, int]:
    from perfeval.summaries.regression import RegressionSummary

    return RegressionSummary.merge_all([p[0] for p in parts]), sum(p[1] for p in parts)


def _regression_tree(pieces: list, split_every: int = 8):
    """The partitions' summaries merged in a tree of ``split_every`` (exact sums: any order)."""
    import dask

    while len(pieces) > 1:
        pieces = [
            dask.delayed(_regression_merge)(pieces[i : i + split_every])
            for i in range(0, len(pieces), split_every)
        ]
    return pieces[0]


def _regression_group_values(pdf, target, score, group, weight, specs):
    """Each whole group of one shuffled partition (its key, size and value of every measure), the
    partition's rows (those of its groups of weight 0 too, which have no value: as in memory), and
    the reasons of its NaN groups (:func:`perfeval.engine.finish.group_whys`).
    """
    import pandas as pd

    from perfeval.engine.finish import group_whys
    from perfeval.engine.regression import check_regression, finish_regression

    if len(pdf) == 0:
        return _no_groups(pdf, group, specs), 0, {}
    y = _column_values(pdf, target, "target")
    s = _column_values(pdf, score, "score")
    w = None if weight is None else _column_values(pdf, weight, "weight")
    with quiet(), np.errstate(all="ignore"):  # said once, by the driver (not catch_warnings: threads)
        r = finish_regression(check_regression(y, s, pdf[group].to_numpy(), w), specs, task_from="")
    if len(r.groups) == 0:  # every group of the partition of weight 0: none to report, its rows read
        return _no_groups(pdf, group, specs), len(pdf), {}
    values = {sp.label: r.results[sp.label].per_group for sp in specs}
    return pd.DataFrame({"group": list(r.groups), "size": r.group_sizes, **values}), len(pdf), group_whys(r)


def _no_groups(pdf, group: str, specs: list):
    """The table of no group: its group column of the partition's type (an empty float column would
    make every partition's int64 ids floats when they are put together, ids past 2^53 merged).
    """
    import pandas as pd

    ids = pd.Series([], dtype=pdf[group].dtype)
    return pd.DataFrame({"group": ids, "size": [], **{s.label: [] for s in specs}})


def _grouped_regression(ddf, target, score, group, weight, specs, how):
    import dask

    cols = [c for c in (target, score, group, weight) if c is not None]
    shuffled = ddf[cols].shuffle(on=group)
    got = dask.compute(
        *[
            dask.delayed(_regression_group_values)(p, target, score, group, weight, specs)
            for p in shuffled.to_delayed()
        ]
    )
    return regression_parts_report(got, specs, weight is not None, how, "dask")


def regression_parts_report(got: Any, specs: list, weighted: bool, how: str, backend: str):
    """The report of every group's regression values made partition by partition
    (:func:`_regression_group_values`: its table, its rows and its NaN groups' reasons, a partition of
    whole groups), the groups sorted by key.
    """
    import pandas as pd

    from perfeval.engine.regression import grouped_report as regression_report

    table = pd.concat([g[0] for g in got], ignore_index=True).sort_values("group", kind="stable")
    whys: dict[str, dict] = {}  # the NaN groups' reasons, each partition's merged
    for part in got:
        for label, said in part[2].items():
            whys.setdefault(label, {}).update(said)
    return regression_report(
        specs,
        table["group"].to_numpy(),
        table["size"].to_numpy(dtype=np.float64),
        {s.label: table[s.label].to_numpy(dtype=np.float64) for s in specs},
        rows=sum(g[1] for g in got),  # every row, those of the groups of weight 0 too (as in memory)
        weighted=weighted,
        backend=backend,
        task_from=how,
        whys=whys,
    )


def _evaluate_classes(
    ddf: Any,
    target: str | None,
    score: list,
    group: str | None,
    weight: str | None,
    measures: Any,
    threshold: float,
    pos_label: Any,
    classes: Any,
    split_every: int,
):
    """evaluate() of K classes on a Dask DataFrame: the classes found as in memory
    (:func:`perfeval.engine.door.classes_of`: given, else the score columns' names, read as the
    targets' numbers when the target column holds numbers), one ClassSummary a partition
    (:func:`_class_summary`), finished by :func:`perfeval.engine.classes.summary_values`: the numbers
    of ``evaluate(y, S, classes=)`` in memory, bit for bit, rows tied at the argmax too.  Without
    weights the summaries are merged ``split_every`` at a time in partition order (every sum a count:
    whole sums by tie size, any order the same bits); with weights the partitions are folded into one
    summary one after the other in partition order (:func:`_class_fold`,
    :meth:`~perfeval.summaries.classes.ClassSummary.folded`: each cell's and each table entry's
    weights added in row order, as over all the rows at once), one partition at a time (docs/dask.md).
    """
    import dask

    from perfeval.engine.classes import class_specs
    from perfeval.engine.door import classes_of
    from perfeval.summaries.classes import ClassSummary

    if target is None:
        raise InvalidParameterError("a Dask DataFrame needs `target=` and `score=` column names")
    if len(score) < 2:
        raise InvalidParameterError("`score=` of K classes names K >= 2 columns, one a class")
    missing = [c for c in (target, *score, group, weight) if c is not None and c not in ddf.columns]
    if missing:
        raise InvalidParameterError(
            f"column {missing[0]!r} is not in the Dask DataFrame "
            f"(columns: {', '.join(map(str, ddf.columns))})"
        )
    if pos_label is not None:
        raise InvalidParameterError(
            "pos_label= does not apply to K classes (one score column a class): each class is already "
            "one against the rest"
        )
    default = measures is None or measures is DEFAULT_MEASURES
    specs = class_specs([] if default else resolve(measures, threshold, pending=True), default=default)
    names = [str(c) for c in score]
    try:  # the target column's type: numbers read the columns' names as numbers
        kind = np.dtype(ddf[target].dtype)
    except TypeError:  # pandas' own (text, nullable integers): their values, as numpy holds them
        kind = ddf[target].head(1).to_numpy().dtype if len(ddf.columns) else np.dtype(object)
    found, how = classes_of(np.zeros(0, dtype=kind), len(score), classes, names)
    if group is not None:
        return _grouped_classes(ddf, target, score, group, weight, specs, found, how)
    cols = [target, *score] + ([weight] if weight is not None else [])
    pieces = ddf[cols].to_delayed()
    if not pieces:
        summary, rows = ClassSummary.empty(found), 0
    elif weight is None:
        parts = [
            dask.delayed(_class_summary)(p, target, score, None, found, part=k) for k, p in enumerate(pieces)
        ]
        summary, rows = dask.compute(tree_classes(parts, split_every))[0]
    else:
        from perfeval.engine.door import counts_cases

        # a fractional weight where a measure reads weights as counts: said by its partition
        counted = next((s.label for s in specs if counts_cases(s)), None)
        state: Any = (ClassSummary.empty(found), 0)
        for k, p in enumerate(pieces):  # in partition order, each cell's weights added in row order
            state = dask.delayed(_class_fold)(state, p, target, score, weight, found, part=k, counted=counted)
        summary, rows = dask.compute(state)[0]
    return _classes_report(specs, summary, rows, found, how, threshold, weight is not None)


def _classes_report(
    specs: list, summary: Any, rows: int, classes: tuple, how: str, threshold: float, weighted: bool
) -> Any:
    """The report of K classes from the merged ClassSummary of every partition, finished by the
    in-memory engine (:func:`perfeval.engine.classes.summary_values`).
    """
    from perfeval.engine.classes import TIES_CLASSES, summary_values
    from perfeval.engine.finish import warn_undefined
    from perfeval.engine.report import Report

    results = summary_values(specs, summary)
    warn_undefined(results, specs)
    params = {
        "threshold": threshold,
        "rows": int(rows),
        "groups": None,
        "weighted": weighted,
        "partitions": None,
        "ties": TIES_CLASSES,
        "pos_label": None,
        "backend": "dask",
        "task": "multiclass",
        "classes": [c.item() if isinstance(c, np.generic) else c for c in classes],
        "classes_from": how,
    }
    report = Report(results, None, params)
    report.summary = summary
    return report


def _class_summary(
    pdf, target: str, score: list, weight: str | None, classes: tuple, *, part: int | None = None
) -> tuple[Any, int]:
    """A partition's ClassSummary and its rows (:func:`_class_rows`: the rows of weight 0 dropped;
    ``part``: the partition's number, named with a bad value's row).
    """
    from perfeval.summaries.classes import ClassSummary

    if len(pdf) == 0:
        return ClassSummary.empty(classes), 0
    codes, s, w, _keep = _class_rows(pdf, target, score, weight, classes, part=part)
    return ClassSummary.from_checked(codes, s, w, classes), len(pdf)


def _class_fold(
    state: tuple,
    pdf,
    target: str,
    score: list,
    weight: str | None,
    classes: tuple,
    *,
    part: int | None = None,
    counted: str | None = None,
) -> tuple[Any, int]:
    """``state`` (a ClassSummary and its rows) with a partition's rows folded in, in row order
    (:meth:`~perfeval.summaries.classes.ClassSummary.folded`; the rows read by :func:`_class_rows`;
    ``part``, ``counted``: as :func:`_column_values` reads them).
    """
    summary, rows = state
    if len(pdf) == 0:
        return summary, rows
    codes, s, w, _keep = _class_rows(pdf, target, score, weight, classes, part=part, counted=counted)
    return summary.folded(codes, s, w), rows + len(pdf)


def _class_rows(
    pdf,
    target: str,
    score: list,
    weight: str | None,
    classes: tuple,
    *,
    part: int | None = None,
    counted: str | None = None,
) -> tuple:
    """A partition's rows of weight above 0: their class codes, (n, K) scores, weights (or None), and
    which rows they are (None: all).  The targets are coded by the classes (a label that is none of
    them an error naming the column: a row's index within a partition would mislead), the score and
    weight columns checked (:func:`_column_values`), the rows of weight 0 dropped first (as the door
    drops them: their labels are not read).
    """
    from perfeval.engine.door import class_codes, class_hint

    y = _no_missing_target(pdf, target, part)
    s = np.column_stack([_column_values(pdf, c, "score", part) for c in score])
    w = None if weight is None else _column_values(pdf, weight, "weight", part, counted)
    keep = None
    if w is not None and not w.all():
        keep = w > 0
        y, s, w = y[keep], s[keep], w[keep]
    try:
        codes = class_codes(y, classes)
    except InvalidDataError:
        index = set(classes)
        bad = next(v for v in y.tolist() if v not in index)
        shown = ", ".join(repr(c) for c in classes[:8]) + (", ..." if len(classes) > 8 else "")
        raise InvalidDataError(
            f"the target column {target!r} holds {bad!r}, which is not one of the classes "
            f"[{shown}]{class_hint(bad, classes)}"
        ) from None
    return codes, np.ascontiguousarray(s), w, keep


#: the columns a partition's rows are tagged with before the shuffle by group (their partition and
#: their place in it): sorted on, they give each group's rows back in the order of the frame
_PLACE = ("__perfeval_partition__", "__perfeval_row__")


def _grouped_classes(ddf, target, score, group, weight, specs, classes, how):
    """K classes per group on a Dask DataFrame: every row tagged with its place in the frame, the
    rows shuffled by group so that a partition holds whole groups, each partition's rows put back in
    the frame's order and finished there by :func:`perfeval.engine.classes.finish_classes`
    (:func:`_class_group_values`), one row a group brought back: the bits of the evaluation in
    memory, weights or not (each group's rows in the order of the frame, as there).
    """
    from perfeval.backends.stream import grouped_classes_report

    cols = list(dict.fromkeys([target, *score, group] + ([weight] if weight is not None else [])))
    args = (target, score, group, weight, specs, classes, how)
    done, meta, place = _by_group(ddf, cols, group, _class_group_values, args)
    if not done:  # no row: what memory says of no row
        done = [_class_group_values(meta, *args, place, empty=True)]
    keys, sizes, values, rows, marks = _joined_groups(done, specs)
    return grouped_classes_report(
        specs,
        keys,
        sizes,
        values,
        classes,
        classes_from=how,
        rows=rows,
        weighted=weight is not None,
        backend="dask",
        marks=marks,
    )


def _by_group(
    ddf, cols: list, group: str, compute_part: Any, args: tuple, placed: tuple | None = None, also: tuple = ()
) -> tuple[list, Any, tuple]:
    """Every row of ``ddf[cols]`` tagged with its place in the frame (:func:`_tag_rows`; ``placed``:
    the names of the columns of ``ddf`` that hold each row's place already), the rows shuffled by
    group so that a partition holds whole groups, ``compute_part(partition, *args, place)`` run on
    each: its results (None for a partition of no row), the tagged frame's meta and the names of the
    place columns.  ``also``: delayed values computed with them (in one graph), appended to the
    results' list as they are.
    """
    import dask

    parts, meta, place = _shuffled(ddf, cols, group, placed)
    got = dask.compute(*[dask.delayed(compute_part)(p, *args, place) for p in parts], *also)
    done, extra = got[: len(parts)], list(got[len(parts) :])
    return [x for x in done if x is not None] + extra, meta, place


def _shuffled(ddf, cols: list, on: str, placed: tuple | None = None) -> tuple[list, Any, tuple]:
    """The rows of ``ddf[cols]`` tagged with their place in the frame (their partition and row: the
    columns ``place``, named apart from the frame's; ``placed``: those columns of ``ddf``, which holds
    them already), shuffled on the column ``on`` so that a partition holds every row of a value:
    (the partitions as delayed frames, the tagged frame's meta, ``place``).
    """
    import dask
    import dask.dataframe as dd

    if placed is not None:
        tagged = ddf[[*cols, *placed]]
        return (tagged.shuffle(on=on).to_delayed() if tagged.npartitions else []), tagged._meta, placed
    taken = set(map(str, ddf.columns))
    place = tuple(
        p + "_" * next(i for i in range(len(taken) + 1) if p + "_" * i not in taken) for p in _PLACE
    )
    frame = ddf[cols]
    meta = frame._meta.assign(**{place[0]: np.zeros(0, np.int64), place[1]: np.zeros(0, np.int64)})
    pieces = [dask.delayed(_tag_rows)(p, i, place) for i, p in enumerate(frame.to_delayed())]
    if not pieces:
        return [], meta, place
    tagged = dd.from_delayed(pieces, meta=meta, verify_meta=False)
    return tagged.shuffle(on=on).to_delayed(), meta, place


def _joined_groups(done: list, specs: list) -> tuple:
    """(keys, sizes, {label: values}, rows, marks) of every partition's groups, the groups in sorted
    order (marks: what each group's values leave out, :func:`perfeval.backends.stream.joined_marks`).
    """
    from perfeval.backends.stream import joined_marks

    rows = sum(x[3] for x in done)
    keys_all = np.concatenate([x[0] for x in done])
    order = np.argsort(keys_all, kind="stable")
    sizes = np.concatenate([x[1] for x in done])[order]
    values = {sp.label: np.concatenate([x[2][sp.label] for x in done])[order] for sp in specs}
    marks = joined_marks([x[4] for x in done], order, specs) if all(len(x) > 4 for x in done) else None
    return keys_all[order], sizes, values, rows, marks


def _grouped_labels(ddf, target, score, group, weight, specs, labels, how, threshold):
    """K labels per group on a Dask DataFrame, as K classes per group are (:func:`_grouped_classes`):
    the rows shuffled by group, each partition's rows put back in the frame's order and finished
    there by :func:`perfeval.engine.labels.finish_labels` (:func:`_label_group_values`): the bits of
    ``evaluate(Y, S, groups=)``, weights or not.
    """
    from perfeval.backends.stream import grouped_classes_report

    cols = list(dict.fromkeys([*target, *score, group] + ([weight] if weight is not None else [])))
    args = (target, score, group, weight, specs, labels, how)
    done, meta, place = _by_group(ddf, cols, group, _label_group_values, args)
    if not done:  # no row: what memory says of no row
        done = [_label_group_values(meta, *args, place, empty=True)]
    keys, sizes, values, rows, marks = _joined_groups(done, specs)
    return grouped_classes_report(
        specs,
        keys,
        sizes,
        values,
        labels,
        classes_from=how,
        rows=rows,
        weighted=weight is not None,
        backend="dask",
        task="multilabel",
        threshold=threshold,
        marks=marks,
    )


def _label_group_values(pdf, target, score, group, weight, specs, labels, how, place, empty: bool = False):
    """The whole groups of one shuffled partition of K labels, their rows in the frame's order,
    finished as in memory: (keys, sizes, {label: per-group values}, rows, marks), or None for no row.
    """
    from perfeval.backends.stream import report_marks
    from perfeval.engine.door import check_labels
    from perfeval.engine.labels import finish_labels

    if len(pdf) == 0 and not empty:
        return None
    pdf = pdf.sort_values(list(place), kind="stable")
    k = len(target)
    y, s = np.zeros((0, k), dtype=bool), np.zeros((0, k))
    w = None if weight is None else np.zeros(0)
    if len(pdf):
        y = np.column_stack([_label_column(pdf, c) for c in target])
        s = np.column_stack([_column_values(pdf, c, "score") for c in score])
        w = None if weight is None else _column_values(pdf, weight, "weight")
    cases, _found, _how = check_labels(y, s, pdf[group].to_numpy(), w, labels=None)
    with quiet(), np.errstate(all="ignore"):  # said once, by the driver (not catch_warnings: threads)
        r = finish_labels(cases, specs, labels, threshold=0.5, labels_from=how)
    per = {sp.label: np.asarray(r.results[sp.label].per_group, dtype=np.float64) for sp in specs}
    return np.asarray(r.groups), np.asarray(r.group_sizes, dtype=np.float64), per, len(pdf), report_marks(r)


def _tag_rows(pdf, i: int, place: tuple):
    """A partition with its number and each row's place in it (the columns ``place``)."""
    return pdf.assign(
        **{place[0]: np.full(len(pdf), i, np.int64), place[1]: np.arange(len(pdf), dtype=np.int64)}
    )


def _class_group_values(pdf, target, score, group, weight, specs, classes, how, place, empty: bool = False):
    """The whole groups of one shuffled partition, their rows in the frame's order, finished as in
    memory: (keys, sizes, {label: per-group values}, rows, marks), or None for no row.
    """
    from perfeval.backends.stream import report_marks
    from perfeval.engine.classes import finish_classes
    from perfeval.engine.door import check_classes

    if len(pdf) == 0 and not empty:
        return None
    pdf = pdf.sort_values(list(place), kind="stable")
    k = len(classes)
    codes, s, w = np.zeros(0, np.intp), np.zeros((0, k)), None if weight is None else np.zeros(0)
    if len(pdf):
        codes, s, w, keep = _class_rows(pdf, target, score, weight, classes)
        if keep is not None:  # every row's group checked at the door, the rows of weight 0 dropped there
            full_codes, full_s, full_w = (
                np.zeros(len(pdf), np.intp),
                np.zeros((len(pdf), k)),
                np.zeros(len(pdf)),
            )
            full_codes[keep], full_s[keep], full_w[keep] = codes, s, w
            codes, s, w = full_codes, full_s, full_w
    cases, _found, _how = check_classes(codes, s, pdf[group].to_numpy(), w, classes=tuple(range(k)))
    with quiet(), np.errstate(all="ignore"):  # said once, by the driver (not catch_warnings: threads)
        r = finish_classes(cases, specs, classes, threshold=0.5, classes_from=how)
    keys = np.asarray(r.groups)
    per = {sp.label: np.asarray(r.results[sp.label].per_group, dtype=np.float64) for sp in specs}
    return keys, np.asarray(r.group_sizes, dtype=np.float64), per, len(pdf), report_marks(r)


def _merge_classes(parts: list) -> tuple[Any, int]:
    from perfeval.summaries.classes import ClassSummary

    return ClassSummary.merge_all([p[0] for p in parts]), sum(p[1] for p in parts)


def tree_classes(pieces: list, split_every: int = 8):
    """A delayed (ClassSummary, rows): the pieces merged ``split_every`` at a time, in order."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [
            dask.delayed(_merge_classes)(level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    return level[0]


def _summarize_arrays(
    y: np.ndarray, s: np.ndarray, pos_label: Any = None
) -> tuple[ScoreHistogram, int, frozenset, tuple[bool, frozenset]]:
    """A chunk of Dask arrays summarised as :func:`_summarize_frame` summarises a partition (with
    ``pos_label``: the targets coded by :func:`coded_labels`).
    """
    if pos_label is None:
        return _summarize(y, s), len(y), _labels_found(y), (False, frozenset())
    coded, labels = coded_labels(y, pos_label)
    return _summarize(coded, s), len(y), frozenset(), labels


def _group_values(pdf, target, score, group, weight, specs, pos_label=None):
    """Per-group values of every measure for the whole groups of one partition (a small frame), with
    ``pos_label`` whether the partition holds it and its other labels (:func:`coded_labels`), the
    reasons of its NaN groups, and its rows (those of its groups of weight 0 too, which have no
    value: as in memory).
    """
    import pandas as pd

    labels: tuple[bool, frozenset] = (False, frozenset())
    if len(pdf) == 0:
        return _no_groups(pdf, group, specs), labels, {}, 0
    _no_missing_target(pdf, target)
    if pos_label is not None:
        coded, labels = coded_labels(pdf[target].to_numpy(), pos_label)
        pdf = pdf.assign(**{target: coded})
    else:
        _no_text_labels(pdf[target].to_numpy(), target)
    _column_values(pdf, score, "score")  # errors naming the column, not a row of the partition
    if weight is not None:
        _column_values(pdf, weight, "weight")

    with quiet(), np.errstate(all="ignore"):  # said once, by the driver (not catch_warnings: threads)
        r = finish(
            check(
                pdf[target].to_numpy(),
                pdf[score].to_numpy(),
                pdf[group].to_numpy(),
                None if weight is None else pdf[weight].to_numpy(),
            ),
            specs,
            threshold=0.5,
        )
    from perfeval.engine.finish import group_whys

    if len(r.groups) == 0:  # every group of the partition of weight 0: none to report, its rows read
        return _no_groups(pdf, group, specs), labels, group_whys(r), len(pdf)
    out = {"group": list(r.groups), "size": r.group_sizes}
    for s in specs:
        out[s.label] = r.results[s.label].per_group
    return pd.DataFrame(out), labels, group_whys(r), len(pdf)  # the NaN groups' reasons, as in memory


def _grouped(ddf, target, score, group, weight, specs, threshold, pos_label=None, labels_read=None):
    import dask

    pairs, twins = threshold_companions(specs)  # each operating point's threshold a group, beside it
    specs = specs + twins
    cols = [c for c in (target, score, group, weight) if c is not None]
    shuffled = ddf[cols].shuffle(on=group)
    got = dask.compute(
        *[
            dask.delayed(_group_values)(p, target, score, group, weight, specs, pos_label)
            for p in shuffled.to_delayed()
        ]
    )
    return grouped_parts_report(
        got, specs, pairs, target, threshold, weight is not None, pos_label, labels_read, "dask"
    )


def grouped_parts_report(
    got: Any,
    specs: list,
    pairs: Any,
    target: str | None,
    threshold: float,
    weighted: bool,
    pos_label: Any,
    labels_read: dict | None,
    backend: str,
):
    """The report of per-group values made partition by partition (:func:`group_values`, one
    ``(frame, labels)`` a partition of whole groups), the groups sorted by key, finished as in memory
    (:func:`perfeval.engine.grouped_report`); ``specs`` with the twins of ``pairs``
    (:func:`perfeval.engine.finish.threshold_companions`) put back beside their values.
    """
    import pandas as pd

    if pos_label is not None:
        labels = (any(g[1][0] for g in got), frozenset().union(*(g[1][1] for g in got)))
        _pos_label_found(pos_label, None if target is None else str(target), labels, labels_read)
    table = pd.concat([g[0] for g in got], ignore_index=True).sort_values("group", kind="stable")
    keys = table["group"].to_numpy()
    sizes = table["size"].to_numpy(dtype=np.float64)
    whys: dict[str, dict] = {}
    for part in got:
        for label, said in part[2].items():
            whys.setdefault(label, {}).update(said)
    report = grouped_report(
        specs,
        keys,
        sizes,
        {s.label: table[s.label].to_numpy(dtype=np.float64) for s in specs},
        threshold=threshold,
        rows=sum(g[3] for g in got),  # every row, those of the groups of weight 0 too (as in memory)
        weighted=weighted,
        backend=backend,
        whys=whys,
        pos_label=pos_label,
    )
    return with_thresholds(report, pairs)


# -- K classes in long form: a row a case and class ------------------------------------------------------
def evaluate_dask_long(
    ddf: Any,
    y_score: Any = None,
    *,
    target: Any = None,
    score: Any = None,
    case: Any = None,
    class_column: Any = None,
    group: str | None = None,
    weight: str | None = None,
    measures: Any = None,
    threshold: float = 0.5,
    pos_label: Any = None,
    classes: Any = None,
    split_every: int = 8,
):
    """evaluate() of K classes in long form on a Dask DataFrame (``case=``, ``class_column=``, one
    ``score=`` column, ``target=`` the true class on each of a case's rows or a 0/1 marker): the
    classes given, else the class column's distinct values, sorted (one pass); every row tagged with
    its place in the frame and the rows shuffled by case so that a partition holds whole cases
    (:func:`_shuffled`, as per group), each partition's rows put back in the frame's order and
    pivoted by :func:`perfeval.engine.long.from_columns` (the rules and one-line errors of memory, a
    row said by its place: ``row 3 of partition 1``).  Unweighted, one ClassSummary a partition,
    merged ``split_every`` at a time (every sum a count) and finished as the wide form is
    (:func:`_classes_report`); with weights, the cases folded in the order they first appear in the
    frame (:func:`_long_ordered`); with ``group=``, the cases shuffled by group and each group
    finished with its cases in that order (:func:`_class_group_values`): the bits of memory, weights
    or not.  The target column is read
    one way in every partition (the true class, or a 0/1 marker): else one line naming a case of each.
    """
    import dask
    import dask.dataframe as dd

    from perfeval.engine.classes import class_specs

    if case is None or class_column is None:
        raise InvalidParameterError(
            "the long form (a row a case and class) needs both case= and class_column= (the case id "
            "and class columns)"
        )
    if not isinstance(ddf, dd.DataFrame) or y_score is not None:
        raise InvalidParameterError(
            "case= and class_column= name columns of a table: pass a Dask DataFrame as the first "
            "argument, with target= and score= column names"
        )
    if target is None or score is None:
        raise InvalidParameterError("the long form needs `target=` and `score=` column names too")
    if isinstance(score, (list, tuple)) or isinstance(target, (list, tuple)):
        raise InvalidParameterError(
            "the long form (a row a case and class) reads one score column and one target column"
        )
    names = {"case": case, "class": class_column, "target": target, "score": score}
    for role, name in (("group", group), ("weight", weight)):
        if name is not None:
            names[role] = name
    missing = [c for c in names.values() if c not in ddf.columns]
    if missing:
        raise InvalidParameterError(
            f"column {missing[0]!r} is not in the Dask DataFrame "
            f"(columns: {', '.join(map(str, ddf.columns))})"
        )
    if pos_label is not None:
        raise InvalidParameterError(
            "pos_label= does not apply to K classes (one score column a class): each class is already "
            "one against the rest"
        )
    default = measures is None or measures is DEFAULT_MEASURES
    specs = class_specs([] if default else resolve(measures, threshold, pending=True), default=default)
    labels, how = _long_classes(ddf, class_column, classes)
    parts, _meta, place = _shuffled(ddf, list(dict.fromkeys(names.values())), case)
    if group is None and weight is not None:  # folded in the cases' order: the bits of memory
        summary, rows, cases, forms = _long_ordered(ddf, names, labels, parts, place)
        report = _classes_report(specs, summary, rows, labels, how, threshold, True)
    elif group is None:  # merged in any order: every sum a count, the bits of memory
        pieces = [dask.delayed(_long_summary)(p, names, labels, place) for p in parts]
        if pieces:
            summary, rows, cases, forms = dask.compute(_long_tree(pieces, split_every))[0]
        else:
            from perfeval.summaries.classes import ClassSummary

            summary, rows, cases, forms = ClassSummary.empty(labels), 0, 0, {}
        report = _classes_report(specs, summary, rows, labels, how, threshold, False)
    else:
        report, cases, forms = _long_grouped(ddf, names, labels, how, specs, parts, place)
    report.params["columns"] = dict(names)
    report.params["target_form"] = _one_form(forms, target)
    report.params["cases"] = int(cases)
    return report


def _long_classes(ddf: Any, name: str, classes: Any) -> tuple[tuple, str]:
    """The classes of a long frame and how they were found: ``classes`` given, else the class
    column's distinct values (its missing values and empty fields left to the partitions, which say
    them), sorted.
    """
    if classes is not None:
        given = np.asarray(classes, dtype=object).reshape(-1)
        labels = tuple(c.item() if isinstance(c, np.generic) else c for c in given)
        how = "given"
    else:
        seen = _frame_values(ddf[name].dropna().unique().compute())
        if seen.dtype.kind == "O":  # an empty field of a CSV read as text: no class (said by a partition)
            seen = seen[[not (isinstance(v, str) and not v.strip()) for v in seen.tolist()]]
        try:
            seen = np.unique(seen)
        except TypeError:
            raise InvalidDataError(
                f"the class column {name!r} holds labels of mixed types: pass classes= naming them"
            ) from None
        labels = tuple(v.item() if isinstance(v, np.generic) else v for v in seen)
        how = f"the distinct values of the class column {name!r}, sorted"
    if len(labels) < 2:
        from perfeval.engine.long import listing

        raise InvalidDataError(
            f"the class column {name!r} holds {len(labels)} class(es) ({listing(labels)}); K classes need "
            "K >= 2"
        )
    return labels, how


def _frame_values(col: Any) -> np.ndarray:
    """A pandas column as numpy: its own dtype when numpy has it, else objects, a missing value None."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind != "O":
        return col.to_numpy()
    return col.to_numpy(dtype=object, na_value=None)


class _PlaceRows:
    """Where each row of a shuffled partition was in the frame (its partition and row, 0-based), for
    the messages of :mod:`perfeval.engine.long`: ``row 3 of partition 1``; its error
    :class:`~perfeval.exceptions.InvalidDataError`.
    """

    def __init__(self, part: np.ndarray, row: np.ndarray):
        self.part, self.row = part, row

    def position(self, row: int) -> str:
        return f"row {int(self.row[row])} of partition {int(self.part[row])}"

    def fail(self, message: str) -> NoReturn:
        raise InvalidDataError(message)

    def written(self, row: int, name: str, value: Any) -> str:
        from perfeval.engine.long import key

        return key(value)  # a frame holds values, not text


def _long_pivot(pdf, names: dict, labels: tuple, place: tuple) -> tuple[Any, Any, np.ndarray]:
    """A partition of whole cases, its rows put back in the frame's order, pivoted and checked by
    :func:`perfeval.engine.long.from_columns` (the score and weight columns checked first, named
    by column: :func:`_column_values`): (the pivot, the rows in order, each case's first row there).
    """
    from perfeval.engine.long import from_columns

    pdf = pdf.sort_values(list(place), kind="stable")
    s = _column_values(pdf, names["score"], "score")
    w = _column_values(pdf, names["weight"], "weight") if "weight" in names else None
    for role in ("class", "target"):  # a CSV read as text (the case an identity): "" is no label
        if pdf[names[role]].dtype.kind == "O" and _has_empty(pdf[names[role]]):
            raise InvalidDataError(
                f"the {role} column {names[role]!r} holds an empty field, a missing value: every row "
                "needs one"
            )
    ids = _frame_values(pdf[names["case"]])
    long, _labels, _how = from_columns(
        ids,
        _frame_values(pdf[names["class"]]),
        s,
        _frame_values(pdf[names["target"]]),
        names=names,
        classes=labels,
        group=_frame_values(pdf[names["group"]]) if "group" in names else None,
        weight=w,
        rows=_PlaceRows(pdf[place[0]].to_numpy(), pdf[place[1]].to_numpy()),
    )
    _u, first = np.unique(ids, return_index=True)
    return long, pdf, np.sort(first)  # the pivot's cases are in the order of their first rows


def _forms(long: Any) -> dict[str, str]:
    """How a partition read the target column, with its first case (as messages say it)."""
    from perfeval.engine.long import said

    return {long.form: said(long.case_ids[0])} if len(long.case_ids) else {}


def _long_summary(pdf, names: dict, labels: tuple, place: tuple) -> tuple[Any, int, int, dict]:
    """A partition of whole cases pivoted (:func:`_long_pivot`) and checked at the door as in memory:
    (its ClassSummary, its rows, its cases, how it read the target column).
    """
    from perfeval.engine.door import check_classes
    from perfeval.summaries.classes import ClassSummary

    if len(pdf) == 0:
        return ClassSummary.empty(labels), 0, 0, {}
    long, _pdf, _first = _long_pivot(pdf, names, labels, place)
    cases, _found, _how = check_classes(long.y, long.s, None, long.weights, classes=tuple(range(len(labels))))
    summary = ClassSummary.from_checked(cases.y, cases.s, cases.w, labels)
    return summary, int(cases.rows_in), len(long.case_ids), _forms(long)


def _merge_long(parts: list) -> tuple[Any, int, int, dict]:
    from perfeval.summaries.classes import ClassSummary

    forms: dict = {}
    for p in parts:
        for form, case in p[3].items():
            forms.setdefault(form, case)
    return (
        ClassSummary.merge_all([p[0] for p in parts]),
        sum(p[1] for p in parts),
        sum(p[2] for p in parts),
        forms,
    )


def _long_tree(pieces: list, split_every: int = 8):
    """A delayed (ClassSummary, rows, cases, forms): the pieces merged ``split_every`` at a time."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [
            dask.delayed(_merge_long)(level[i : i + split_every]) for i in range(0, len(level), split_every)
        ]
    return level[0]


def _one_form(forms: dict, target: str) -> str:
    """How the target column was read, one way in every partition: else one line naming a case read
    each way.
    """
    from perfeval.engine.long import LABELS_FORM, MARKER_FORM

    if len(forms) > 1:
        raise InvalidDataError(
            f"the target column {target!r} holds the true class on each row of case {forms[LABELS_FORM]} "
            f"and a 0/1 marker of the true class's row in case {forms[MARKER_FORM]}: one way for the whole "
            "column"
        )
    return next(iter(forms), LABELS_FORM)


def _long_cases(
    pdf, names: dict, labels: tuple, place: tuple, columns: tuple[str, list[str]]
) -> tuple[Any, dict]:
    """A partition of whole cases pivoted (:func:`_long_pivot`) as a frame of one row a case: its
    class code and scores (``columns``: their names), its group and weight, and the place of its
    first row in the frame (the cases' order in memory); and how it read the target column.
    """
    import pandas as pd

    ycol, scols = columns
    if len(pdf) == 0:
        long, first, forms = None, np.zeros(0, np.intp), {}
    else:
        long, pdf, first = _long_pivot(pdf, names, labels, place)
        forms = _forms(long)
    k = len(scols)
    s = np.zeros((0, k)) if long is None else long.s
    data: dict[str, Any] = {ycol: np.zeros(0, np.int64) if long is None else long.y.astype(np.int64)}
    data.update({c: s[:, j] for j, c in enumerate(scols)})
    if "group" in names:
        data[names["group"]] = pdf[names["group"]].iloc[first].reset_index(drop=True)  # its dtype kept
    if "weight" in names:
        data[names["weight"]] = np.zeros(0) if long is None else long.weights
    for p in place:
        data[p] = pdf[p].to_numpy()[first]
    return pd.DataFrame(data), forms


class _Staged:
    """The partitions of whole cases pivoted on the cluster (:func:`_long_cases`), as a Dask frame of
    one row a case (``frame``; None when there is no partition), its meta, the names of its class
    and score columns, and how each partition read the target column (``forms``: delayed).
    """

    def __init__(self, ddf, names: dict, labels: tuple, parts: list, place: tuple):
        import dask
        import dask.dataframe as dd
        import pandas as pd

        taken = set(map(str, ddf.columns)) | set(place)

        def free(name: str) -> str:
            return name + "_" * next(i for i in range(len(taken) + 1) if name + "_" * i not in taken)

        self.ycol = free("__perfeval_class__")
        self.scols = [free(f"__perfeval_score_{j}__") for j in range(len(labels))]
        group, weight = names.get("group"), names.get("weight")
        self.meta = pd.DataFrame(
            {
                self.ycol: np.zeros(0, np.int64),
                **{c: np.zeros(0) for c in self.scols},
                **({group: ddf._meta[group].iloc[:0]} if group is not None else {}),
                **({weight: np.zeros(0)} if weight is not None else {}),
                place[0]: np.zeros(0, np.int64),
                place[1]: np.zeros(0, np.int64),
            }
        )
        staged = [
            dask.delayed(_long_cases, nout=2)(p, names, labels, place, (self.ycol, self.scols)) for p in parts
        ]
        self.forms = tuple(b for _, b in staged)
        self.frame = (
            dd.from_delayed([a for a, _ in staged], meta=self.meta, verify_meta=False) if staged else None
        )


def _merged_forms(forms: Any) -> dict:
    merged: dict = {}
    for f in forms:
        for form, case in f.items():
            merged.setdefault(form, case)
    return merged


def _long_ordered(ddf, names: dict, labels: tuple, parts: list, place: tuple) -> tuple[Any, int, int, dict]:
    """The cases of a weighted long frame folded into one ClassSummary in the order they first appear
    in the frame (the bits of memory, each sum in that order): each partition of whole cases pivoted
    (:class:`_Staged`), the cases sent to the partition of their first row (a range of places, known
    ahead: no pass to find it) and folded partition after partition, each in its rows' order
    (:func:`_long_fold`).  (summary, rows, cases, forms).
    """
    import dask

    from perfeval.summaries.classes import ClassSummary

    staged = _Staged(ddf, names, labels, parts, place)
    state: Any = (ClassSummary.empty(labels), 0)
    if staged.frame is None:
        return state[0], 0, 0, {}
    ordered = staged.frame.set_index(place[0], divisions=list(range(ddf.npartitions + 1)))
    for p in ordered.to_delayed():  # in partition order, each in its rows' order: the order of memory
        state = dask.delayed(_long_fold)(state, p, staged.ycol, staged.scols, names["weight"], place[1])
    (summary, rows), forms = dask.compute(state, list(staged.forms))
    return summary, rows, rows, _merged_forms(forms)


def _long_fold(state: tuple, pdf, ycol: str, scols: list, weight: str, row: str) -> tuple[Any, int]:
    """``state`` (a ClassSummary, its cases) with a partition's cases folded in, in their order
    (:meth:`~perfeval.summaries.classes.ClassSummary.folded`), checked at the door as in memory.
    """
    from perfeval.engine.door import check_classes

    summary, rows = state
    if len(pdf) == 0:
        return state
    pdf = pdf.sort_values(row, kind="stable")
    s = np.column_stack([pdf[c].to_numpy(dtype=np.float64) for c in scols])
    y, w = pdf[ycol].to_numpy(), pdf[weight].to_numpy(dtype=np.float64)
    cases, _found, _how = check_classes(y, s, None, w, classes=tuple(range(len(scols))))
    return summary.folded(cases.y, cases.s, cases.w), rows + int(cases.rows_in)


def _long_grouped(ddf, names: dict, labels: tuple, how: str, specs: list, parts: list, place: tuple):
    """K classes in long form per group: each partition of whole cases pivoted to a frame of one row a
    case (:class:`_Staged`), those frames shuffled by group and each group finished with its cases
    in the order they first appear in the frame (:func:`_by_group`, :func:`_class_group_values`):
    (the report, the cases, how the partitions read the target column).
    """
    from perfeval.backends.stream import grouped_classes_report

    k = len(labels)
    staged = _Staged(ddf, names, labels, parts, place)
    group, weight = names["group"], names.get("weight")
    cols = [staged.ycol, *staged.scols, group] + ([weight] if weight is not None else [])
    args = (staged.ycol, staged.scols, group, weight, specs, tuple(range(k)), how)
    done: list = []
    forms: list = []
    if staged.frame is not None:
        got, _m, _p = _by_group(
            staged.frame, cols, group, _class_group_values, args, placed=place, also=staged.forms
        )
        n = len(staged.forms)
        done, forms = got[: len(got) - n], got[len(got) - n :]
    if not done:  # no case: what memory says of no case
        done = [_class_group_values(staged.meta, *args, place, empty=True)]
    keys, sizes, values, rows, marks = _joined_groups(done, specs)
    report = grouped_classes_report(
        specs,
        keys,
        sizes,
        values,
        labels,
        classes_from=how,
        rows=rows,
        weighted=weight is not None,
        backend="dask",
        marks=marks,
    )
    return report, rows, _merged_forms(forms)


# --- files and clusters: what the command line's --dask needs -------------------------------------


#: the clients :func:`connect` holds open, by address: a connect within another to the same address
#: shares its client (one local cluster for a command's several passes over the files)
_OPEN: dict[str, Any] = {}


@contextlib.contextmanager
def connect(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address`` (``tcp://host:8786``; ``local`` or ``local:N`` starts
    N local worker processes, one thread each), closed with its cluster on exit; within another
    ``connect`` to the same address, that one's client (closed by it).

    Raises
    ------
    InvalidParameterError
        ``local:N`` with N outside 1..4096 (``local:0`` would wait for a worker forever), or no
        scheduler reachable at the address.
    MissingDependencyError
        dask or distributed is not installed.
    """
    if address in _OPEN:
        yield _OPEN[address]
        return
    # Dask's log lines stay off our stderr (a failed task is our one line): in this process, and in the
    # worker processes a local cluster starts, which read this from their environment (a user's own
    # DASK_LOGGING__DISTRIBUTED wins)
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    try:
        import distributed
    except ImportError:
        raise MissingDependencyError("--dask needs dask: pip install 'perfeval[dask]'") from None
    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        # nor its warnings ("Port 8787 is already in use", sockets a closing cluster leaves): the
        # cluster's chatter, not the data's
        warnings.filterwarnings("ignore", module=r"(distributed|tornado|bokeh)(\.|$)")
        warnings.filterwarnings("ignore", category=ResourceWarning)
        cluster = None
        if address == "local" or address.startswith("local:"):
            n = address.partition(":")[2]
            if n and not (n.isdigit() and 1 <= int(n) <= 4096):
                raise InvalidParameterError(
                    f"--dask {one_line(address)}: expected local or local:N with N workers from 1 to 4096"
                )
            workers = int(n or (os.cpu_count() or 1))
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=None
            )
            client = distributed.Client(cluster)
        else:
            try:
                client = distributed.Client(address, timeout=20)
            except (OSError, ValueError, TypeError) as e:
                raise InvalidParameterError(
                    f"--dask {one_line(address)}: cannot reach a Dask scheduler there ({one_line(e)})"
                ) from None
        _OPEN[address] = client
        try:
            yield client
        finally:
            del _OPEN[address]
            client.close()
            if cluster is not None:
                cluster.close()


def read_files(
    path: str,
    *,
    fmt: str = "auto",
    header: bool | None = None,
    target: str | None = None,
    score: str | None = None,
    group: str | None = None,
    weight: str | None = None,
    delimiter: str | None = None,
    read: dict | None = None,
    columns: Any = None,
    by: Any = (),
) -> tuple[Any, Any]:
    """Files (a path, a glob or a directory of CSV/TSV/text/JSON lines/Parquet) as a Dask DataFrame
    with the columns chosen as the table reader chooses them.

    The partitions are the format's reader's (:meth:`perfeval.io.base.Reader.partitions`, its
    reader in :data:`perfeval.io.readers.READERS`).  Returns ``(frame, choice)``: the frame's
    columns are named (``column1``... without a header), the group column is an identity (int64 or
    text, never float), and every file of a glob was checked to hold the chosen columns before any
    work starts; the bytes of text files are checked on the workers as the table readers check them
    (:func:`perfeval.io.text.check_text_files`).  The header and the CSV delimiter are told from the
    first file by the table readers' rule (``delimiter``: as given).  ``choice`` is the
    :class:`~perfeval.io.columns.Choice` made.  ``read``, a dict, gets the format (``"format"``),
    whether there is a header (``"header"``), the CSV delimiter (``"delimiter"``) and, for text files
    without one, the lines skipped as comments (``"skipped"``: ``{file: Skipped}``, to be said as the
    other readers say them).  A text file pandas' parser refuses (a quote never closed, a row of
    another width) is the table readers' error (:func:`perfeval.io.text.said_as_read`).

    ``columns``, a function of the column names and whether there is a header, chooses instead of
    ``target``/``score``/``group``/``weight`` (K classes or labels: many columns): it returns the
    positions of the columns read and of the group column (or None, or the identity columns as
    ``{position: role}``: the group's, the case's, each named in an error by its option), and
    optionally the columns of numbers (the scores, the weight, 0/1 label columns), as
    ``{position: role}`` (the role naming the column in an error: ``"score"``); the choice
    returned is then ``names``, the frame's column names.

    The columns of numbers (the target, the score and the weight chosen; or those ``columns``
    names) are float64 in every partition whatever a text file's first rows hold, as read whole
    (pandas types a CSV's column by them: whole numbers there and a fraction further on would fail
    the partition), unless those rows hold text (a target of labels), read as pandas reads it;
    ``read["numbers"]`` gets them (``{position: role}``, for :func:`numbers_as_read`).

    ``by``, a function of the column names, whether there is a header and the choice, gives the
    slice columns (``--by``): read too, as identities (an empty field kept as ``""``: a missing
    value, said or made a slice where the slices are read).
    """
    _require()

    fmt = format_of(path, fmt)
    parts = READERS[fmt].partitions(path, fmt, header, delimiter)
    if read is not None:
        if parts.skipped is not None:
            read["skipped"] = parts.skipped
        read.update(format=parts.fmt, header=parts.header, delimiter=parts.delimiter)
    names = parts.names
    numbers: dict[int, str] = {}
    if columns is not None:
        ch: Any = names
        chosen = columns(names, parts.header)
        used_at, group_at = chosen[0], chosen[1]
        numbers = dict(chosen[2]) if len(chosen) > 2 else {}
    else:
        ch = choose(names, path, header=parts.header, target=target, score=score, group=group, weight=weight)
        used_at = [c.index for c in (ch.target, ch.score, ch.group, ch.weight) if c is not None]
        group_at = None if ch.group is None else ch.group.index
        by_role = (("target", ch.target), ("weight", ch.weight), ("score", ch.score))
        numbers = {c.index: role for role, c in by_role if c is not None}
    sliced = [c.index for c in by(names, parts.header, ch)] if callable(by) else []
    used_at = list(dict.fromkeys([*used_at, *sliced]))
    if sliced:  # the group's identity and the slice columns'
        roles_at = (
            {} if group_at is None else {group_at: "--group"} if isinstance(group_at, int) else group_at
        )
        group_at = {**{i: "--by" for i in sliced}, **roles_at}
    identities = set() if group_at is None else {group_at} if isinstance(group_at, int) else set(group_at)
    numbers = {i: role for i, role in numbers.items() if i not in identities}
    how = {"format": parts.fmt, "header": parts.header, "delimiter": parts.delimiter}
    how.update(names=names, numbers=numbers)
    if read is not None:
        read.update(names=names, numbers=numbers)
    ddf = parts.frame(group_at, used_at, list(numbers))
    if parts.header and parts.columns_of is not None:  # every file of a glob holds the columns chosen
        _files_hold(path, parts.columns_of, [names[i] for i in used_at])
    roles = {} if group_at is None else {group_at: "--group"} if isinstance(group_at, int) else group_at
    if not parts.identities:
        empties = parts.fmt in ("text", "csv", "tsv")  # read as text: an empty field is ""
        try:
            for at, role in roles.items():  # a slice column's empty field: a missing value, not an error
                ddf = _identity(
                    ddf,
                    names[at],
                    path,
                    role,
                    empties=empties and role != "--by",
                    typed=parts.fmt == "parquet",
                )
        except ValueError as e:  # a used column holding, past the first rows, another type
            said = mistyped(e, parts.header)
            if said is not None:
                raise InputFormatError(said, source=path) from None
            said = unconverted(e)  # a column of numbers holding, past the first rows, no number
            if said is None:
                raise
            raise numbers_as_read(path, how) or InputFormatError(said, source=path) from None
    return ddf, ch


def numbers_as_read(path: str, read: dict) -> InputFormatError | None:
    """The first value of the columns of numbers of the text files ``path`` names that is no
    number, said as the table readers say it, with its file, line and column (by its role: ``the
    weight column 'w' holds 'abc', not a number``): each file streamed up to it; None when none is
    found (or the files are not text).  ``read``: :func:`read_files`' (the format, the header, the
    delimiter, the column names, the columns of numbers as ``{position: role}``).  What a worker's
    pandas refused (:func:`perfeval.io.text.unconverted`) names the value, not the column nor the
    line.
    """
    numbers = dict(read.get("numbers") or {})
    if not numbers or read.get("format") not in ("text", "csv", "tsv"):
        return None
    at, names = list(numbers), read["names"]

    def convert(cols: list, where: Any) -> list:
        found = []
        for k, col in zip(at, cols, strict=True):
            try:
                numeric(where, names[k], col, numbers[k])
            except InputFormatError as e:  # the first bad line, whichever column it is in
                found.append(e)
        if found:
            raise min(found, key=lambda e: e.line or 0)
        return cols

    for f in files(path):
        try:
            for _ in iter_columns(
                f,
                lambda names, header: at,
                read["format"],
                read["header"],
                delimiter=read.get("delimiter"),
                convert=convert,
            ):
                pass
        except InputFormatError as found:
            return found
        except PerfError:  # not a request the readers take: the partition's words
            return None
    return None


def _files_hold(pattern: str, columns_of: Any, needed: list[str]) -> None:
    """Every file `pattern` names (a path, a glob or a directory) holds the `needed` columns: checked
    from each file's schema or header (``columns_of``) before any work starts, so a missing column
    is one line naming the file and the column, not a failed task on a worker.
    """
    for f in files(pattern):
        have = columns_of(f)
        missing = [c for c in needed if c not in have]
        if missing:
            raise InputFormatError(
                f"has no column {missing[0]!r} (its columns: {', '.join(map(str, have))})", source=f
            )


def _identity(
    ddf: Any, name: str, path: str, role: str | None, empties: bool = False, typed: bool = False
) -> Any:
    """An identity column of a Dask frame (the group's, its ``role`` or option naming it in an error):
    int64 when every value is a plain integer that fits, else the text as written; a float column
    (Parquet, JSON) is refused, and (``empties``: a CSV/TSV, read as text) an empty field, a missing
    id, as the table readers refuse it (it would be a group of its own).  ``typed`` (Parquet): a slice
    column of text stays text, digits too, as the Parquet readers keep it (:func:`perfeval.io.parquet.
    parquet_identity`).
    """
    kind = ddf[name].dtype.kind
    if kind in "iu":
        return ddf
    if kind == "f":
        raise InputFormatError(
            float_ids(name, role),
            source=path,
        )
    import dask

    col = ddf[name].astype(str)
    checked, nulls = col, False
    if role == "--by":  # a slice column's null (Parquet's, a nullable dtype's): a missing value, kept
        present = ~ddf[name].isna()
        checked, nulls = col[present], ~present.all()
        col = col.where(present, None)
    if typed and role == "--by":
        return ddf.assign(**{name: col})
    plain, floats, blank, nulls = dask.compute(
        checked.map_partitions(_plain_int_ids, meta=(name, bool)).all(),
        checked.map_partitions(_first_float_id, meta=(name, object)),
        (col.str.strip() == "").any() if empties else False,
        nulls,
    )
    if blank:  # a partition's row is no line of the file: the file and the column named
        raise InputFormatError(
            f"{id_column(name, role)} holds an empty field, a missing value: drop the rows without one or "
            "fill them",
            source=path,
        )
    bad = [v for v in floats.tolist() if v]
    if bad:  # as the in-memory reader (io.tables.check_text_ids): a float id has lost its identity
        raise InputFormatError(
            float_ids(name, role, bad[0]),
            source=path,
        )
    if plain and nulls:  # whole numbers and missing values: pandas' nullable integers
        return ddf.assign(**{name: col.astype("Int64")})
    return ddf.assign(**{name: col.astype("int64") if plain else col})


def _plain_int_ids(part: Any) -> Any:
    """Whether every id of a partition (read as text) is a plain integer within int64, by the
    readers' rule (:func:`perfeval.io.grammar.is_plain_int`: no sign on 0, no leading zero, 19
    digits up to 2^63 - 1), as one boolean; vectorised (the 19-digit ids compared as text).
    """
    import pandas as pd

    text = part.astype(str)
    ok = bool(text.str.fullmatch(r"0|-?[1-9][0-9]{0,18}").all())
    if ok:
        digits = text.str.lstrip("-")
        long = digits.str.len() == 19
        if bool(long.any()):
            neg = text.str.startswith("-")
            ok = bool((digits[long & ~neg] <= str((1 << 63) - 1)).all()) and bool(
                (digits[long & neg] <= str(1 << 63)).all()
            )
    return pd.Series([ok])


def _first_float_id(part: Any) -> Any:
    """A partition's first group id written as a float (``980.0``, ``1e+17``), or '' (one row)."""
    import pandas as pd

    values = part.to_numpy().astype(str)
    i = first_float_id(values)
    return pd.Series([str(values[i]) if i >= 0 else ""], dtype=object)


# -- K labels (multilabel) ---------------------------------------------------------------------------------
def evaluate_dask_labels(
    ddf: Any,
    target: list,
    score: Any,
    group: str | None,
    weight: str | None,
    measures: Any,
    threshold: float,
    pos_label: Any,
    labels: Any,
    split_every: int,
):
    """evaluate() of K labels on a Dask DataFrame: ``target=[...]`` the 0/1 columns, one a label,
    ``score=[...]`` as many score columns in the same order; the labels are the target columns' names
    (or ``classes=``, as in memory).  One :class:`~perfeval.summaries.labels.LabelSummary` a partition:
    without weights merged ``split_every`` at a time (every sum a whole number: the bits of memory);
    with weights folded partition after partition in their order (:meth:`LabelSummary.folded`: each
    sum in row order, the bits of memory, one partition at a time).
    """
    import dask

    from perfeval.engine.labels import empty_summary, label_specs, summary_report

    score, found, how = _labels_asked(
        target, score, group, weight, pos_label, labels, list(ddf.columns), "the Dask DataFrame"
    )
    specs = label_specs(measures, threshold)
    if group is not None:
        return _grouped_labels(ddf, target, score, group, weight, specs, found, how, threshold)
    cols = [*target, *score] + ([weight] if weight is not None else [])
    pieces = ddf[cols].to_delayed()
    start = (empty_summary(found, specs), 0)
    if not pieces:
        summary, rows = start
    elif weight is None:
        parts = [dask.delayed(_label_fold)(start, p, target, score, None) for p in pieces]
        summary, rows = dask.compute(_label_tree(parts, split_every))[0]
    else:
        state: Any = start
        for p in pieces:  # in partition order, each sum in row order: the bits of memory
            state = dask.delayed(_label_fold)(state, p, target, score, weight)
        summary, rows = dask.compute(state)[0]
    report = summary_report(
        summary, specs, rows=rows, weighted=weight is not None, backend="dask", labels_from=how
    )
    report.params["threshold"] = threshold
    return report


def _labels_asked(
    target: list, score: Any, group: Any, weight: Any, pos_label: Any, labels: Any, columns: list, what: str
) -> tuple[list, tuple, str]:
    """The checks of K labels asked of a frame of ``columns`` (``what``: its name in the messages):
    the score columns as a list, the labels found and how (the target columns' names, or given).
    """
    if not isinstance(score, (list, tuple)) or len(score) != len(target):
        raise InvalidParameterError(
            f"`target=` names {len(target)} label columns: `score=` names as many score columns, one a "
            "label in the same order"
        )
    if len(target) < 2:
        raise InvalidParameterError("`target=` of K labels names K >= 2 columns, one a label")
    score = list(score)
    missing = [c for c in (*target, *score, group, weight) if c is not None and c not in columns]
    if missing:
        shown = ", ".join(map(str, columns))
        raise InvalidParameterError(f"column {missing[0]!r} is not in {what} (columns: {shown})")
    if pos_label is not None:
        raise InvalidParameterError("pos_label= does not apply to a label matrix (K labels, each on or off)")
    found: tuple = tuple(str(c) for c in target)
    how = "the columns' names"
    if labels is not None:
        found = tuple(
            c.item() if isinstance(c, np.generic) else c for c in np.asarray(labels, dtype=object).reshape(-1)
        )
        if len(found) != len(target):
            raise InvalidParameterError(
                f"`classes` names {len(found)} labels for the {len(target)} columns: one a column, in order"
            )
        how = "given"
    return score, found, how


def _label_fold(state: tuple, pdf, target: list, score: list, weight: str | None) -> tuple[Any, int]:
    """``state`` (a LabelSummary and its rows) with a partition's rows folded in: the target columns
    0/1 (anything else an error naming the column and the value: a row's index within a partition
    would mislead), the score and weight columns checked (:func:`_column_values`).
    """
    summary, rows = state
    if len(pdf) == 0:
        return summary, rows
    y = np.column_stack([_label_column(pdf, c) for c in target])
    s = np.column_stack([_column_values(pdf, c, "score") for c in score])
    w = None if weight is None else _column_values(pdf, weight, "weight")
    return summary.folded(y, s, w), rows + len(pdf)


def _label_column(pdf, name: str) -> np.ndarray:
    """A 0/1 target column of a partition as booleans, or one line naming the column and the value."""
    arr = pdf[name].to_numpy()
    if arr.dtype.kind == "b":
        return arr.astype(bool)
    v = arr.astype(np.float64) if arr.dtype.kind in "iuf" else None
    if v is None:  # text: a CSV read as text (--group) holds its numbers as written, and "" for none
        text = [x.strip() if isinstance(x, str) else str(x) for x in arr.tolist()]
        if "" in text:
            raise InvalidDataError(
                f"the label column {name!r} holds an empty field, a missing value: every row needs one"
            )
        if grammar.first_bad_number(text) < 0:
            v = np.array(text, dtype=np.float64)
    bad = np.ones(len(arr), dtype=bool) if v is None else (v != 0) & (v != 1)
    if bad.any():
        i = int(np.argmax(bad))
        first = arr[i]
        said = repr(first.item() if isinstance(first, np.generic) else first)
        if v is not None:  # a number: an integral one shown as written (2, not 2.0), as read whole
            x = float(v[i])
            said = str(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(x)
        raise InvalidDataError(
            f"the label column {name!r} holds {said}; a label column holds 0 or 1 (off or on)"
        )
    assert v is not None
    return np.asarray(v == 1)


def _merge_labels(parts: list) -> tuple[Any, int]:
    out, rows = parts[0]
    for summary, r in parts[1:]:
        out, rows = out.merge(summary), rows + r
    return out, rows


def _label_tree(pieces: list, split_every: int = 8):
    """A delayed (LabelSummary, rows): the pieces merged ``split_every`` at a time, in order."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [
            dask.delayed(_merge_labels)(level[i : i + split_every]) for i in range(0, len(level), split_every)
        ]
    return level[0]


# -- what another backend runs on its own partitions (backends/spark.py): the same functions, the same bits
summarize_frame = _summarize_frame
summarize_sliced = _summarize_sliced
merge_summaries = _merge
pos_label_found = _pos_label_found
group_values = _group_values
regression_frame = _regression_frame
regression_merge = _regression_merge
regression_group_values = _regression_group_values
class_summary = _class_summary
class_fold = _class_fold
labels_asked = _labels_asked
class_group_values = _class_group_values
label_group_values = _label_group_values
joined_groups = _joined_groups
label_fold = _label_fold
merge_labels = _merge_labels
merge_classes = _merge_classes
classes_report = _classes_report
