"""Intervals and paired comparisons of the multiclass measures: a case bootstrap of an (n, K) score
matrix, each replicate finished by the engine that finishes ``evaluate(y, S, classes=)``.

The design of the binary path (:mod:`perfeval.stats.replicates`), for K classes:

* a replicate gives every case a weight drawn from Poisson(1) (times its own weight), from the
  stream seeded by ``(seed, r)`` (the same draws as the binary path's case replicates, not
  stratified by class, as that path is not): the same seed gives the same interval, and a paired
  comparison gives both models the same case weights;
* a replicate's :class:`~perfeval.summaries.classes.ClassSummary` is made from the cases' cells,
  found once (:class:`ClassReplicas`: each case's cell in each score column, its share of the
  confusion of the argmax, its top-k key), so a replicate costs a weighted count of the n K cells,
  no sort; it is the summary :meth:`ClassSummary.from_checked` makes of the cases with those weights,
  and every measure is finished from it by :func:`perfeval.engine.classes.summary_values`;
* the BCa acceleration: the delete-a-group jackknife of :mod:`perfeval.stats.replicates` (one of
  ``JACK_GROUPS`` groups of cases left out at a time, case i in group i mod G).

K labels (a 0/1 target matrix, ``evaluate(Y, S)``'s multilabel task) take the same path: the cases
are the rows, a replicate's :class:`~perfeval.summaries.labels.LabelSummary` is made by
:class:`LabelReplicas` (each row's cell in each label's histogram, its ranking values and its
(tp, fp, fn) keys found once), finished by the same engine.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base import progress as _progress
from perfeval.exceptions import InvalidParameterError
from perfeval.stats.intervals import (
    Comparison,
    Interval,
    acceleration,
    interval,
    paired_test,
    undefined_left_out,
)
from perfeval.stats.replicates import CHUNK_CELLS, JACK_GROUPS

__all__ = [
    "ClassReplicas",
    "LabelReplicas",
    "class_ci",
    "class_compare",
    "is_class_matrix",
    "is_label_matrix",
]


def is_class_matrix(y_score: Any, classes: Any) -> bool:
    """Whether scores are one column a class, as :func:`perfeval.evaluate` reads them: 2-D with three
    columns or more, or two when ``classes=`` names them.
    """
    shape = getattr(y_score, "shape", None)
    if shape is None:
        if not isinstance(y_score, (list, tuple)) or not y_score or not isinstance(y_score[0], (list, tuple)):
            return False
        shape = (len(y_score), len(y_score[0]))
    return len(shape) == 2 and shape[1] >= 2 and (shape[1] >= 3 or classes is not None)


def is_label_matrix(y_true: Any) -> bool:
    """Whether the targets are a label matrix (K labels, multilabel), as :func:`perfeval.evaluate`
    reads them: 2-D with two columns or more.
    """
    shape = getattr(y_true, "shape", None)
    if shape is None:
        return (
            isinstance(y_true, (list, tuple))
            and bool(y_true)
            and isinstance(y_true[0], (list, tuple))
            and len(y_true[0]) >= 2
        )
    return len(shape) == 2 and shape[1] >= 2


class ClassReplicas:
    """The cases of one model (class codes, an (n, K) score matrix, weights or None) made ready for
    summaries of any case weights: :meth:`summary` of weights ``v`` is
    ``ClassSummary.from_checked(y, S, v, classes)`` (the cases of weight 0 no cases), without a sort.
    """

    def __init__(self, y: np.ndarray, s: np.ndarray, classes: tuple):
        k = len(classes)
        n = len(y)
        self.classes, self.k, self.n = classes, k, n
        cell = np.empty((k, n), dtype=np.intp)  # each case's cell in each column's block of its class
        scores: list[np.ndarray] = []
        sizes = np.zeros(k * k, dtype=np.int64)
        by_class = [np.flatnonzero(y == c) for c in range(k)]
        base = 0
        for j in range(k):
            for c in range(k):
                rows = by_class[c]
                vals, inv = np.unique(s[rows, j] + 0.0, return_inverse=True)  # -0.0 and 0.0 one score
                cell[j, rows] = base + inv.reshape(-1)
                scores.append(vals)
                sizes[j * k + c] = len(vals)
                base += len(vals)
        self.cells = cell.reshape(-1)  # column by column, each in case order
        self.scores = np.concatenate(scores) if scores else np.zeros(0)
        self.block = np.repeat(np.arange(k * k), sizes)
        # the confusion of the argmax (a tie shares the case among the tied classes) and the top-k keys
        if n:
            top = s.max(axis=1)
            at_top = s == top[:, None]
            ties = np.count_nonzero(at_top, axis=1)
            one = ties == 1
            # a case whose maximum is one class: its key in the sure table; a tie: a cell (slot, class)
            # of the tie table, the slot its key (tie size, true class) among those present
            self.sure_rows = np.flatnonzero(one)
            self.sure_keys = y[one] * k + np.argmax(s[one], axis=1)
            self.tie_rows, cols = np.nonzero(at_top & ~one[:, None])
            tkey = ties[self.tie_rows].astype(np.int64) * k + y[self.tie_rows]
            self.tie_keys, slot = np.unique(tkey, return_inverse=True)
            self.tie_slot = slot.reshape(-1)
            self.tie_cells = self.tie_slot * k + cols
            true = s[np.arange(n), y]
            above = np.count_nonzero(s > true[:, None], axis=1)
            tied = np.count_nonzero(s == true[:, None], axis=1) - 1
            self.tkeys = above * k + tied
            sums = s.sum(axis=1)
            self.bad = (s.min(axis=1) < 0) | (s.max(axis=1) > 1) | (np.abs(sums - 1.0) > _tolerance())
            self.sums = sums
            self.extreme = np.where(s.min(axis=1) < 0, s.min(axis=1), s.max(axis=1))
            # the top-label table's cells (maximum score, tie size at it) and each case's among them
            top_s, top_t = top + 0.0, ties.astype(np.int64)
            order = np.lexsort((top_t, top_s))
            ss, tt = top_s[order], top_t[order]
            new = np.ones(n, dtype=bool)
            new[1:] = (ss[1:] != ss[:-1]) | (tt[1:] != tt[:-1])
            self.top_scores, self.top_ties = ss[new], tt[new]
            self.top_cell = np.empty(n, dtype=np.intp)
            self.top_cell[order] = np.cumsum(new) - 1
            self.top_right = at_top[np.arange(n), y]
        else:
            self.sure_rows = self.sure_keys = self.tkeys = np.zeros(0, np.intp)
            self.tie_rows = self.tie_slot = self.tie_cells = np.zeros(0, np.intp)
            self.tie_keys = np.zeros(0, np.int64)
            self.sums = self.extreme = np.zeros(0)
            self.bad = np.zeros(0, bool)
            self.top_scores, self.top_ties = np.zeros(0), np.zeros(0, np.int64)
            self.top_cell, self.top_right = np.zeros(0, np.intp), np.zeros(0, bool)

    def summary(self, v: np.ndarray) -> Any:
        """The ClassSummary of the cases weighted by ``v`` (float64 >= 0, one a case)."""
        from perfeval.summaries.classes import ClassSummary

        k = self.k
        w = np.bincount(self.cells, weights=np.tile(v, k), minlength=len(self.scores))
        keep = w > 0
        offsets = np.concatenate(([0], np.cumsum(np.bincount(self.block[keep], minlength=k * k))))
        sure = np.bincount(self.sure_keys, weights=v[self.sure_rows], minlength=k * k)
        m = len(self.tie_keys)
        tab = np.bincount(self.tie_cells, weights=v[self.tie_rows], minlength=m * k).reshape(m, k)
        live = np.bincount(self.tie_slot, weights=v[self.tie_rows], minlength=m) > 0  # weight 0: no case
        topk = np.bincount(self.tkeys, weights=v, minlength=k * k)
        bad = self.bad & (v > 0)
        off: tuple[int, float, float] = (0, math.nan, math.nan)
        if bad.any():
            i = int(np.argmax(bad))
            off = (int(np.count_nonzero(bad)), float(self.sums[i]), float(self.extreme[i]))
        m = len(self.top_scores)
        top_w = np.bincount(self.top_cell, weights=v, minlength=m)  # in case order, as from_checked
        top_r = np.bincount(self.top_cell, weights=np.where(self.top_right, v, 0.0), minlength=m)
        on = top_w > 0
        top = (self.top_scores[on], self.top_ties[on], top_w[on], top_r[on])
        return ClassSummary(
            self.classes,
            offsets,
            self.scores[keep],
            w[keep],
            sure,
            topk,
            off,
            self.tie_keys[live],
            tab[live],
            top=top,
        )


class LabelReplicas:
    """The rows of one multilabel model (a bool (n, K) target matrix, an (n, K) score matrix) made
    ready for summaries of any row weights: :meth:`summary` of weights ``v`` is
    ``label_summary(y, S, v, labels, specs)`` (the rows of weight 0 no rows), without a sort.
    """

    def __init__(self, y: np.ndarray, s: np.ndarray, labels: tuple, specs: list):
        from perfeval.engine.labels import empty_summary
        from perfeval.summaries.labels import row_keys

        self.classes, self.n, self.y = labels, len(y), y
        self.empty = empty_summary(labels, specs)
        self.columns = []  # each label's distinct scores and each row's among them
        for j in range(y.shape[1]):
            vals, inv = np.unique(s[:, j] + 0.0, return_inverse=True)  # -0.0 and 0.0 one score
            self.columns.append((vals, inv.reshape(-1)))
        self.values = {name: self.empty.kernels[name](y, s) for name in self.empty.ranked}
        self.keys = {t: row_keys(y, s, t) for t in self.empty.rows}

    def summary(self, v: np.ndarray) -> Any:
        from perfeval.summaries import ScoreHistogram
        from perfeval.summaries.labels import LabelSummary
        from perfeval.summaries.rowsums import row_sums

        keep = v > 0
        hists = []
        for j, (vals, inv) in enumerate(self.columns):
            tw = v * self.y[:, j]  # as ScoreHistogram.from_checked weighs a case (a dropped one adds 0.0)
            pos = np.bincount(inv, weights=tw, minlength=len(vals))
            neg = np.bincount(inv, weights=v - tw, minlength=len(vals))
            held = np.bincount(inv, weights=keep, minlength=len(vals)) > 0
            hists.append(ScoreHistogram(vals[held], pos[held], neg[held]))
        vk = v[keep]
        ranked = {name: row_sums(values[keep], vk) for name, values in self.values.items()}
        rows = {}
        for t, keys in self.keys.items():
            uniq, inv = np.unique(keys[keep], return_inverse=True)
            rows[t] = (uniq, np.bincount(inv.reshape(-1), weights=vk, minlength=len(uniq)).astype(np.float64))
        return LabelSummary(self.classes, hists, ranked, rows, self.empty.kernels)


def _tolerance() -> float:
    from perfeval.summaries.classes import PROBABILITY_TOLERANCE

    return PROBABILITY_TOLERANCE


def _values(specs: list, cs: Any) -> np.ndarray:
    """Every measure of ``specs`` on one summary (NaN where undefined), without warnings."""
    from perfeval.engine.classes import summary_values

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            got = summary_values(specs, cs)
    return np.array([float(got[sp.label].value) for sp in specs], dtype=np.float64)


def checked(
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    groups: Any,
    classes: Any,
    pos_label: Any,
    weight_name: str = "sample_weight",
):
    """The door's check of K classes (:func:`perfeval.engine.door.check_classes`) or, ``y_true`` a
    label matrix, of K labels (:func:`perfeval.engine.door.check_labels`): the codes (the bool
    label matrix), the score matrix, the weights (cases of weight 0 dropped; ``weight_name``: their
    keyword as the user typed it) and the classes (the labels); what the bootstrap does not take
    refused in one line.
    """
    from perfeval.engine.door import check_classes, check_labels

    what = "K labels" if is_label_matrix(y_true) else "K classes"
    if groups is not None:
        raise InvalidParameterError(
            f"`groups=` with {what}: intervals over groups are not offered yet; resample the cases "
            "(drop `groups=`)"
        )
    if pos_label is not None:
        raise InvalidParameterError(
            f"pos_label= does not apply to {what} (one score column a {what[2:-1]}): each is already "
            "one against the rest"
        )
    if what == "K labels":
        cases, found, _how = check_labels(
            y_true, y_score, None, sample_weight, labels=classes, weight_name=weight_name
        )
    else:
        cases, found, _how = check_classes(
            y_true, y_score, None, sample_weight, classes=classes, weight_name=weight_name
        )
    return cases, found


def specs_of_classes(measures: Any, threshold: float, task: str = "multiclass") -> list:
    """The measures read for K classes (or K labels: ``task="multilabel"``) as evaluate() reads them
    (``roc``: ``ROC_OVR:average=macro``, or ``ROC_ML:average=macro``).
    """
    from perfeval.engine import resolve
    from perfeval.engine.classes import class_specs

    names = [measures] if isinstance(measures, str) and "," not in measures else measures
    return class_specs(resolve(names, threshold, pending=True), task=task)


def _model(cases: Any, found: tuple, specs: list, task: str) -> tuple[Any, np.ndarray]:
    """A model's replicas (:class:`ClassReplicas` or :class:`LabelReplicas`) and its estimates."""
    if task == "multilabel":
        from perfeval.engine.labels import label_summary

        est = _values(specs, label_summary(cases.y, cases.s, cases.w, found, specs))
        return LabelReplicas(cases.y, cases.s, found, specs), est
    from perfeval.summaries.classes import ClassSummary

    est = _values(specs, ClassSummary.from_checked(cases.y, cases.s, cases.w, found))
    return ClassReplicas(cases.y, cases.s, found), est


def replicates(
    models: list[Any], w: np.ndarray | None, specs: list, seed: int, n_boot: int, progress: bool
) -> list[np.ndarray]:
    """Each model's replicate values (an (n_boot, measures) array), every model on the same Poisson(1)
    case weights of replicate r (drawn from ``(seed, r)``, as the binary path draws them).
    """
    n = models[0].n
    outs = [np.empty((n_boot, len(specs))) for _ in models]
    step = max(1, CHUNK_CELLS // max(1, n))
    desc = "bootstrap " + ", ".join(sp.label for sp in specs[:4]) + (", ..." if len(specs) > 4 else "")
    with _progress.bar(progress, n_boot, desc, "replicates") as meter:
        for r0 in range(0, n_boot, step):
            r1 = min(n_boot, r0 + step)
            P = np.frombuffer(_native.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)
            for r in range(r1 - r0):
                v = P[r] if w is None else P[r] * w
                for out, m in zip(outs, models, strict=True):
                    out[r0 + r] = _values(specs, m.summary(v))
                meter.update(1)
    return outs


def jackknife(models: list[Any], w: np.ndarray | None, specs: list) -> list[np.ndarray]:
    """Each model's delete-a-group jackknife values ((G, measures)), case i in group i mod G."""
    n = models[0].n
    g_count = min(JACK_GROUPS, n)
    base = np.ones(n) if w is None else np.asarray(w, np.float64)
    outs = [np.empty((g_count, len(specs))) for _ in models]
    for g in range(g_count):
        v = base.copy()
        v[g::g_count] = 0.0
        for out, m in zip(outs, models, strict=True):
            out[g] = _values(specs, m.summary(v))
    return outs


def class_ci(
    y_true: Any,
    y_score: Any,
    *,
    measures: Any,
    method: str,
    level: float,
    n_boot: int,
    seed: int,
    groups: Any,
    sample_weight: Any,
    threshold: float,
    pos_label: Any,
    classes: Sequence[Any] | None,
    progress: bool,
    weight_name: str = "sample_weight",
) -> dict[str, Interval]:
    """:func:`perfeval.stats.ci` of an (n, K) score matrix of K classes, or of K labels with a label
    matrix ``y_true`` (arguments as there, checked there; ``weight_name``: the weights' keyword as
    the user typed it).
    """
    task = "multilabel" if is_label_matrix(y_true) else "multiclass"
    if method in ("delong", "t", "wald"):
        whose = {
            "delong": "DeLong's interval is for the ROC area of two classes",
            "t": "Student's t is for a regression's mean loss",
            "wald": "Wald's interval is for the logistic calibration fits of two classes",
        }[method]
        raise InvalidParameterError(
            f"{whose}; for {'K labels' if task == 'multilabel' else 'K classes'} use method='bca' or "
            "'percentile'"
        )
    cases, found = checked(y_true, y_score, sample_weight, groups, classes, pos_label, weight_name)
    specs = specs_of_classes(measures, threshold, task)
    model, est = _model(cases, found, specs, task)
    reps = replicates([model], cases.w, specs, seed, n_boot, progress)[0]
    jack: list[np.ndarray] = []
    out: dict[str, Interval] = {}
    for i, sp in enumerate(specs):

        def accel(i: int = i) -> float:
            if not jack:
                jack.extend(jackknife([model], cases.w, specs))
            return acceleration(jack[0][:, i], None)

        lo, hi, sd, note = interval(float(est[i]), reps[:, i], level, method, accel)
        dropped = undefined_left_out(reps[:, i], float(est[i]), lo)
        out[sp.label] = Interval(
            sp.label, float(est[i]), lo, hi, level, method, n_boot, sd, "cases", seed, note, dropped
        )  # fmt: skip
    return out


def class_compare(
    y_true: Any,
    scores: list,
    score_b: Any,
    *,
    measures: Any,
    method: str | None,
    level: float,
    n_boot: int,
    seed: int,
    groups: Any,
    sample_weight: Any,
    threshold: float,
    pos_label: Any,
    classes: Sequence[Any] | None,
    progress: bool,
    weight_name: str = "sample_weight",
) -> list[dict[str, Comparison]]:
    """:func:`perfeval.stats.compare` of (n, K) score matrices (of K classes, or of K labels with a
    label matrix ``y_true``): each model of ``scores`` against ``score_b``, a paired bootstrap (the
    same case weights for both in every replicate; ``weight_name``: their keyword as the user typed it).
    """
    task = "multilabel" if is_label_matrix(y_true) else "multiclass"
    if method in ("delong", "t"):
        whose = (
            "DeLong's test is for the ROC area of two classes"
            if method == "delong"
            else ("Student's t is for a regression's mean loss")
        )
        raise InvalidParameterError(
            f"{whose}; for {'K labels' if task == 'multilabel' else 'K classes'} use method='bca' or "
            "'percentile'"
        )
    method = method or "bca"
    cb, found = checked(y_true, score_b, sample_weight, groups, classes, pos_label, weight_name)
    cas = []
    for a in scores:
        # the baseline's classes for every model (their lengths checked against y_true's by the door)
        ca, _ = checked(
            y_true, a, sample_weight, groups, classes if classes is not None else found, None, weight_name
        )
        cas.append(ca)
    specs = specs_of_classes(measures, threshold, task)
    made = [_model(c, found, specs, task) for c in [*cas, cb]]
    models = [m for m, _ in made]
    ests = [e for _, e in made]
    reps = replicates(models, cb.w, specs, seed, n_boot, progress)
    jack: list[np.ndarray] = []
    results: list[dict[str, Comparison]] = []
    for m in range(len(cas)):
        out: dict[str, Comparison] = {}
        for i, sp in enumerate(specs):
            ea, eb = float(ests[m][i]), float(ests[-1][i])

            def accel(i: int = i, m: int = m) -> float:
                if not jack:
                    jack.extend(jackknife(models, cb.w, specs))
                return acceleration(jack[m][:, i] - jack[-1][:, i], None)

            with np.errstate(all="ignore"):
                diff = ea - eb
                d = reps[m][:, i] - reps[-1][:, i]
            lo, hi, sd, note, p, floor = paired_test(diff, d, level, method, accel, bool(np.isfinite(diff)))
            out[sp.label] = Comparison(
                sp.label, ea, eb, diff, lo, hi, p, level, method, n_boot, sd, "cases", seed, floor, note
            )
        results.append(out)
    return results
