"""The engine's multilabel task: a 0/1 target and one score a label, finished from one
:class:`~perfeval.summaries.labels.LabelSummary` (one a group when grouped).

The measures asked are read for K labels by :func:`perfeval.engine.classes.class_specs` (``task=
"multilabel"``: ``roc`` is ``ROC_ML:average=macro``, ``f1@0.3`` is ``F_ML@0.3:average=macro``); the
summary holds the rows' (tp, fp, fn) at every threshold the measures ask, and the exact sums of the
per-row ranking measures they ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from perfeval.base.checks import Cases
from perfeval.engine.classes import attach_left, left_marks, mark_left, summary_values
from perfeval.engine.report import MeasureResult, Report
from perfeval.measures import MeasureSpec
from perfeval.measures.multilabel import RANKED, SAMPLES_RANKED
from perfeval.summaries.labels import LabelSummary
from perfeval.summaries.ranking import group_codes

__all__ = ["finish_labels", "label_specs", "label_summary", "summary_report"]

TIES_LABELS = (
    "half credit (ROC_ML); one threshold per tie (AP_ML); a score >= threshold is on; a tied label "
    "counts as ranked above (LRAP, COVERAGE) and a tied pair as wrong (RANKING_LOSS), as scikit-learn"
)


def label_specs(measures: Any, threshold: float = 0.5) -> list[MeasureSpec]:
    """The measures asked (``DEFAULT_MEASURES`` or None: the multilabel default) read for K labels, as
    evaluate() reads them for a label matrix (:func:`perfeval.engine.classes.class_specs`).
    """
    from perfeval.engine.classes import class_specs
    from perfeval.engine.finish import DEFAULT_MEASURES, resolve

    default = measures is None or measures is DEFAULT_MEASURES
    return class_specs(
        [] if default else resolve(measures, threshold, pending=True),
        default=default,
        task="multilabel",
        threshold=threshold,
    )


def _needs(specs: list[MeasureSpec]) -> tuple[tuple[float, ...], dict[str, Any]]:
    """The thresholds and the per-row kernels a summary for the measures ``specs`` holds."""
    thresholds = tuple(
        sorted({float(sp.kwargs["threshold"]) for sp in specs if "threshold" in sp.kwargs})
    ) or (0.5,)
    ranked = {name: f for name, f in RANKED.items() if any(sp.measure.name == name.upper() for sp in specs)}
    for sp in specs:  # ROC_ML, AP_ML average=samples: each row's value over its labels, summed exactly
        if sp.kwargs.get("average") == "samples" and sp.measure.name in SAMPLES_RANKED:
            ranked.update(SAMPLES_RANKED[sp.measure.name])
    return thresholds, ranked


def label_summary(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, labels: tuple, specs: list[MeasureSpec]
) -> LabelSummary:
    """The summary the measures ``specs`` need: the thresholds they ask, the row sums they read."""
    return LabelSummary.from_checked(y, s, w, labels, *_needs(specs))


def empty_summary(labels: tuple, specs: list[MeasureSpec]) -> LabelSummary:
    """The summary of no rows for the measures ``specs``, to fold batches into
    (:meth:`LabelSummary.folded`: the bits of :func:`label_summary` of all their rows).
    """
    return LabelSummary.empty(tuple(labels), *_needs(specs))


def summary_report(
    summary: LabelSummary,
    specs: list[MeasureSpec],
    *,
    rows: int,
    weighted: bool,
    backend: str,
    labels_from: str = "given",
) -> Report:
    """The report of every measure of ``specs`` finished from one summary (a stream's, a Metric's,
    Dask's: the report finish_labels gives for the same rows in memory, with its ``backend``).
    """
    from perfeval.engine.finish import warn_undefined

    results = summary_values(specs, summary)
    warn_undefined(results, specs)
    report = Report(results, None, _params(summary.labels, 0.5, rows, None, weighted, backend, labels_from))
    report.summary = summary
    return report


def _params(
    labels: tuple, threshold: float, rows: int, groups: int | None, weighted: bool, backend: str, how: str
) -> dict[str, Any]:
    return {
        "threshold": threshold,
        "rows": int(rows),
        "groups": groups,
        "weighted": weighted,
        "partitions": None,
        "ties": TIES_LABELS,
        "pos_label": None,
        "backend": backend,
        "task": "multilabel",
        "classes": [c.item() if isinstance(c, np.generic) else c for c in labels],
        "classes_from": how,
    }


def grouped_fast(
    specs: list[MeasureSpec],
    y: np.ndarray,
    s: np.ndarray,
    codes: np.ndarray,
    w: np.ndarray | None,
    q: int,
    left: dict | None = None,
) -> dict[str, np.ndarray]:
    """The value of each group of the measures that have a path without a loop over the groups:
    the ROC area of each label (macro, weighted) of unweighted rows, each label's column scored per
    group in one compiled pass (csrc/summary.c, group_auc_rows: the rows counted into their groups,
    each group's column sorted on its own; Mann-Whitney sums of whole and half numbers, exact in
    any order, over the group's positives times negatives as rank.roc divides them), then each
    group's mean over its defined labels as :func:`perfeval.engine.classes.group_means` takes it:
    the bits of one :class:`LabelSummary` a group.
    """
    from perfeval.engine.classes import group_means

    asked = [
        sp
        for sp in specs
        if sp.measure.name == "ROC_ML" and sp.kwargs.get("average") in ("macro", "weighted")
    ]
    if not asked or w is not None or not len(y):
        return {}
    from perfeval import _native

    k = y.shape[1]
    c = np.ascontiguousarray(codes, dtype=np.int64)
    per = np.empty((q, k))
    support = np.empty((q, k))
    for j in range(k):
        wins, pos, neg = (
            np.frombuffer(b, np.float64)
            for b in _native.group_auc_rows(
                c,
                np.ascontiguousarray(s[:, j], dtype=np.float64),
                np.ascontiguousarray(y[:, j], dtype=bool).view(np.uint8),
                q,
            )
        )
        den = pos * neg
        with np.errstate(invalid="ignore", divide="ignore"):
            per[:, j] = np.where(den > 0, wins / np.where(den > 0, den, 1.0), np.nan)
        support[:, j] = pos
    if left is not None:  # the classes each group's value leaves out
        left.update({sp.label: np.isnan(per) for sp in asked})
    return {sp.label: group_means(per, support, sp.kwargs["average"]) for sp in asked}


def finish_labels(
    cases: Cases,
    specs: list[MeasureSpec],
    labels: Sequence[Any],
    *,
    threshold: float,
    labels_from: str,
) -> Report:
    """Every measure of ``specs`` (read by class_specs(task="multilabel")) over checked cases whose
    targets are an (n, K) bool matrix and scores an (n, K) matrix.
    """
    from perfeval.engine.finish import warn_undefined

    y, s, g, w = cases.y, cases.s, cases.g, cases.w
    labels = tuple(labels)
    keys = None
    sizes = None
    summary: Any = None
    if g is None:
        summary = label_summary(y, s, w, labels, specs)
        results = summary_values(specs, summary)
    else:
        keys, codes = group_codes(g)
        q = len(keys)
        sizes = np.bincount(codes, weights=w, minlength=q).astype(np.float64)
        left, noted = left_marks(specs, q, len(labels))
        fast = grouped_fast(specs, y, s, codes, w, q, left=left)
        rest = [sp for sp in specs if sp.label not in fast]
        per: dict[str, Any] = {sp.label: [] for sp in rest}
        if rest:
            index = {c: j for j, c in enumerate(labels)}
            order = np.argsort(codes, kind="stable")
            bounds = np.searchsorted(codes[order], np.arange(q + 1))
            for i in range(q):
                rows = order[bounds[i] : bounds[i + 1]]
                ls = label_summary(y[rows], s[rows], None if w is None else w[rows], labels, specs)
                for label, r in summary_values(rest, ls).items():
                    per[label].append(r.value)
                    mark_left(left[label], noted[label], i, r, index)
        per.update(fast)
        results = {
            sp.label: MeasureResult.of(sp, np.asarray(per[sp.label], dtype=np.float64), sizes, keys, True)
            for sp in specs
        }
        attach_left(results, left, noted)
    warn_undefined(results, specs, labels)
    groups = None if keys is None else int(len(keys))
    params = _params(labels, threshold, cases.rows_in, groups, w is not None, "memory", labels_from)
    report = Report(results, keys, params)
    report.group_sizes = sizes
    report.summary = summary
    return report
