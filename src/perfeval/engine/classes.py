"""The engine's multiclass task: cases with one score column a class, finished from one
:class:`~perfeval.summaries.classes.ClassSummary` (one a group when grouped).

The measures asked are read for K classes once (:func:`class_specs`): a binary measure with a
multiclass form is that form, under its own name and with its average written in the label
(``roc`` is ``ROC_OVR:average=macro``: what is averaged, and how, is never a silent guess); a measure
with none is an error that names the multiclass measures.  Each measure's value, its per-class
values and the classes where it is undefined go into the report, as the groups of GAUC do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from perfeval.base.checks import Cases
from perfeval.engine.report import MeasureResult, Report
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import MeasureSpec, parse_measure
from perfeval.measures.spec import refuse_pending
from perfeval.measures.vocabulary import MULTICLASS_DEFAULT, MULTICLASS_OF, MULTILABEL_DEFAULT, MULTILABEL_OF
from perfeval.summaries.classes import ClassSummary
from perfeval.summaries.ranking import group_codes

__all__ = ["class_specs", "finish_classes", "summary_values"]

TIES_CLASSES = (
    "half credit (ROC_OVR, ROC_OVO); one threshold per tie (AP_OVR); a tie at the argmax or across "
    "the k-th place shares the case among the tied classes (expected over the orders of the tie)"
)


def class_specs(
    specs: list[MeasureSpec], default: bool = False, *, task: str = "multiclass", threshold: float = 0.5
) -> list[MeasureSpec]:
    """The measures asked, read for K classes (``task`` "multiclass") or K labels ("multilabel"):
    each binary measure with a form for the task is that form (its parameters carried over where they
    mean the same: beta, and for labels the threshold; a threshold is refused for K classes, whose
    prediction is the argmax), every averaged measure with its average in its label.  ``default``:
    the task's default measures, those of K labels that take a threshold at ``threshold`` (as the
    measures named are read at it).
    """
    of, defaults = (
        (MULTICLASS_OF, MULTICLASS_DEFAULT) if task == "multiclass" else (MULTILABEL_OF, MULTILABEL_DEFAULT)
    )
    keeps = {"beta"} if task == "multiclass" else {"beta", "threshold"}
    if default and task == "multilabel" and threshold != 0.5:
        from perfeval.engine.finish import resolve

        specs = resolve(list(defaults), threshold)
    elif default:
        specs = [parse_measure(n) for n in defaults]
    out: list[MeasureSpec] = []
    for s in specs:
        m = s.measure
        if s.pending and (m.kind == task or of.get(m.name) is None):  # not this task's form's
            refuse_pending([s])
        if m.kind != task:
            target = of.get(m.name)
            if target is None:
                from perfeval.measures.base import REGISTRY

                every = [x.name for x in REGISTRY if x.kind == task]  # the registry's, in its order
                names = ", ".join([*defaults, *(n for n in every if n not in defaults)])
                what = "one column a class" if task == "multiclass" else "a label matrix (one column a label)"
                raise InvalidParameterError(
                    f"{s.label} is a {m.kind} measure and the targets and scores are {what}; "
                    f"the {task} measures: {names} (`perfeval list-measures` lists them all)"
                )
            given = {k: v for k, v in s.params if k in s._set}
            later = dict(s.pending)  # parameters only the form has (roc:average=weighted): its own
            threshold = dict(s.params).get("threshold", 0.5)
            if task == "multiclass" and ("threshold" in given or threshold != 0.5):
                raise InvalidParameterError(
                    f"{s.label}: a threshold does not apply to K classes: the prediction is the argmax "
                    f"of each row (measure {target})"
                )
            if task == "multilabel" and threshold != 0.5:
                given["threshold"] = threshold
            carried = {k: v for k, v in given.items() if k in keeps} | later
            left = set(given) - keeps - {"threshold"}
            if left:
                raise InvalidParameterError(
                    f"{s.label}: `{sorted(left)[0]}` has no meaning for {target}, its {task} form"
                )
            s = parse_measure(target + "".join(f":{k}={v}" for k, v in carried.items()))
            m = s.measure
        if any(p.name == "average" for p in m.params) and "average" not in s._set:
            s = parse_measure(f"{s.label}{':' if ':' not in s.label else ','}average={s.kwargs['average']}")
        out.append(s)
    labels = [s.label for s in out]
    dup = {lab for lab in labels if labels.count(lab) > 1}
    if dup:
        raise InvalidParameterError(f"measure named twice (as its {task} form): {sorted(dup)[0]}")
    return out


def summary_values(specs: list[MeasureSpec], cs: Any) -> dict[str, MeasureResult]:
    """Every measure of ``specs`` finished from one summary (a ClassSummary, or a LabelSummary), with
    its per-class (per-label) values.
    """
    results: dict[str, MeasureResult] = {}
    for s in specs:
        f = s.measure.function()(cs, **s.kwargs)
        r = MeasureResult.single(s, float(f.value))
        if f.per_class is not None:
            r.per_class = np.asarray(f.per_class, dtype=np.float64)
            r.classes = list(cs.classes)
            r.undefined_classes = [
                c for c, v in zip(cs.classes, r.per_class.tolist(), strict=True) if math.isnan(v)
            ]
        elif f.undefined:
            r.classes = list(cs.classes)
            r.undefined_classes = [cs.classes[c] for c in f.undefined]
        if r.undefined_classes:
            r.undefined_why = undefined_reasons(cs, s.label, r)
        if f.why:
            r.why = f.why
        if f.note:
            r.note = f.note
        results[s.label] = r
    return results


def undefined_reasons(cs: Any, label: str, r: MeasureResult) -> list[str]:
    """Why each class of ``r.undefined_classes`` is undefined, read from the summary ``cs``
    (:func:`perfeval.engine.report.class_reasons`: absent from the targets, never predicted, ...).
    """
    from perfeval.engine.report import class_reasons

    classes = list(cs.classes)
    per_class = r.per_class
    if per_class is None:  # no value a class (ROC_OVO): NaN at the classes its mean leaves out
        per_class = np.zeros(len(classes))
        per_class[[classes.index(c) for c in r.undefined_classes]] = np.nan
    reasons = class_reasons(cs, label, per_class, classes)
    keys = [c.item() if isinstance(c, np.generic) else c for c in r.undefined_classes]
    return [reasons.get(str(c), "") for c in keys]


def grouped_fast(
    specs: list[MeasureSpec],
    y: np.ndarray,
    s: np.ndarray,
    codes: np.ndarray,
    w: np.ndarray | None,
    k: int,
    q: int,
    left: dict | None = None,
) -> dict[str, np.ndarray]:
    """The value of each group of the measures that have a path without a loop over the groups:
    one-vs-rest ROC area (macro, weighted) of unweighted cases, each class's column scored per
    group in one compiled pass (csrc/classes.c, class_group_auc: the rows counted into their groups
    once, each group's column sorted on its own; Mann-Whitney sums of whole and half numbers, exact
    in any order), then each group's mean over its classes summed as numpy
    sums one group's values: the bits of one :class:`ClassSummary` a group; and the top-label ECE
    (ECE_TOP, weighted too) from every group's top-label table at once, the bits of each group alone.
    """
    out = _top_label_groups(specs, y, s, codes, w, q)
    averages = ("macro", "weighted")
    asked = [sp for sp in specs if sp.measure.name == "ROC_OVR" and sp.kwargs.get("average") in averages]
    if not asked or w is not None or not len(y):
        return out
    from perfeval import _native

    got = _native.class_group_auc(
        np.ascontiguousarray(codes, dtype=np.int64),
        np.ascontiguousarray(y, dtype=np.int64),
        np.ascontiguousarray(s, dtype=np.float64),
        k,
        q,
    )
    if got is None:  # 2**32 rows or more
        return out
    wins, support = (np.frombuffer(b, np.float64).reshape(q, k) for b in got)
    sizes = np.bincount(codes, minlength=q).astype(np.float64)
    den = support * (sizes[:, None] - support)  # n_j (N - n_j), as ClassSummary.pairs reads them: exact
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(den > 0, wins / np.where(den > 0, den, 1.0), np.nan)
    if left is not None:  # the classes each group's value leaves out
        left.update({sp.label: np.isnan(per) for sp in asked})
    return {**out, **{sp.label: group_means(per, support, sp.kwargs["average"]) for sp in asked}}


def _top_label_groups(
    specs: list[MeasureSpec], y: np.ndarray, s: np.ndarray, codes: np.ndarray, w: np.ndarray | None, q: int
) -> dict[str, np.ndarray]:
    """ECE_TOP of every group at once (:func:`perfeval.measures.calibration.ece_toplabel_groups`:
    each group's bits alone), for each ECE_TOP spec it does not decline.
    """
    asked = [sp for sp in specs if sp.measure.name == "ECE_TOP"]
    if not asked:
        return {}
    from perfeval.measures.calibration import ece_toplabel_groups

    out = {}
    for sp in asked:
        got = ece_toplabel_groups(y, s, codes, w, q, **sp.kwargs)
        if got is not None:
            out[sp.label] = got
    return out


def left_marks(specs: list[MeasureSpec], q: int, k: int) -> tuple[dict, dict]:
    """Empty per-group marks of what each measure's group values leave out: a (q, k) bool matrix
    of classes (labels) a measure, and a bool a group for the rows of a samples average.
    """
    return {sp.label: np.zeros((q, k), dtype=bool) for sp in specs}, {
        sp.label: np.zeros(q, dtype=bool) for sp in specs
    }


def mark_left(left: np.ndarray, noted: np.ndarray, i: int, r: MeasureResult, index: dict) -> None:
    """Group ``i``'s marks from its result ``r`` (:func:`summary_values`): the classes its value
    leaves out, whether its samples average leaves rows out.
    """
    for c in r.undefined_classes:
        left[i, index[c]] = True
    noted[i] = bool(r.note)


def attach_left(results: dict[str, MeasureResult], left: dict, noted: dict) -> None:
    """Each grouped result's marks (:func:`left_marks`), kept only in the groups whose value is
    defined (an undefined group is listed whole, as ``undefined``).
    """
    for label, r in results.items():
        if r.per_group is None or label not in left:
            continue
        ok = ~np.isnan(np.asarray(r.per_group, dtype=np.float64))
        r.left_out_per_group = np.asarray(left[label], dtype=bool) & ok[:, None]
        r.noted_per_group = np.asarray(noted[label], dtype=bool) & ok


def group_means(per: np.ndarray, support: np.ndarray, average: str) -> np.ndarray:
    """Each row's macro or weighted mean over its defined values, as
    :func:`perfeval.measures.multiclass._average` makes it for one group: the groups with m
    classes defined together, their values in class order, summed by numpy's reduction over the
    rows of a contiguous (groups, m) matrix (the sum numpy makes of each row alone).
    """
    q, k = per.shape
    defined = ~np.isnan(per)
    m = defined.sum(axis=1)
    order = np.argsort(~defined, axis=1, kind="stable")  # the defined classes first, in class order
    vals = np.take_along_axis(per, order, axis=1)
    sup = np.take_along_axis(support, order, axis=1)
    out = np.full(q, np.nan)
    for size in np.unique(m[m > 0]).tolist():
        rows = np.flatnonzero(m == size)
        v = np.ascontiguousarray(vals[rows, :size])
        if average == "weighted":
            sw = np.ascontiguousarray(sup[rows, :size])
            total = sw.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                res = np.ascontiguousarray(v * (sw / total[:, None])).sum(axis=1)
            out[rows] = np.where(total > 0, res, np.nan)
        else:
            out[rows] = v.sum(axis=1) / size
    return out


def finish_classes(
    cases: Cases,
    specs: list[MeasureSpec],
    classes: Sequence[Any],
    *,
    threshold: float,
    classes_from: str,
) -> Report:
    """Every measure of ``specs`` (read by :func:`class_specs`) over checked cases whose targets are
    class codes (``cases.y``: 0..K-1 in the order of ``classes``) and scores an (n, K) matrix.
    """
    from perfeval.engine.finish import warn_undefined

    y, s, g, w = cases.y, cases.s, cases.g, cases.w
    classes = tuple(classes)
    keys = None
    sizes = None
    if g is None:
        cs = ClassSummary.from_checked(y, s, w, classes)
        results = summary_values(specs, cs)
        summary: Any = cs
    else:
        keys, codes = group_codes(g)
        q = len(keys)
        sizes = np.bincount(codes, weights=w, minlength=q).astype(np.float64)
        left, noted = left_marks(specs, q, len(classes))
        fast = grouped_fast(specs, y, s, codes, w, len(classes), q, left=left)
        rest = [sp for sp in specs if sp.label not in fast]
        per: dict[str, Any] = {sp.label: [] for sp in rest}
        if rest:
            index = {c: j for j, c in enumerate(classes)}
            order = np.argsort(codes, kind="stable")
            bounds = np.searchsorted(codes[order], np.arange(q + 1))
            for i in range(q):
                rows = order[bounds[i] : bounds[i + 1]]
                cs_g = ClassSummary.from_checked(y[rows], s[rows], None if w is None else w[rows], classes)
                for label, r in summary_values(rest, cs_g).items():
                    per[label].append(r.value)
                    mark_left(left[label], noted[label], i, r, index)
        per.update(fast)
        results = {
            sp.label: MeasureResult.of(sp, np.asarray(per[sp.label], dtype=np.float64), sizes, keys, True)
            for sp in specs
        }
        attach_left(results, left, noted)
        summary = None
    warn_undefined(results, specs, classes)
    params = {
        "threshold": threshold,
        "rows": int(cases.rows_in),
        "groups": None if g is None else int(len(keys)),  # type: ignore[arg-type]
        "weighted": w is not None,
        "partitions": None,
        "ties": TIES_CLASSES,
        "pos_label": None,
        "backend": "memory",
        "task": "multiclass",
        "classes": [c.item() if isinstance(c, np.generic) else c for c in classes],
        "classes_from": classes_from,
    }
    report = Report(results, keys, params)
    report.group_sizes = sizes
    report.summary = summary
    return report
