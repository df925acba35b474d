"""A table task's criterion computed: :func:`perfeval.evaluate` of one registry measure on the
submission joined with the answer key (in the key's order), and the checks a task file's criterion
gets when it is loaded (a dry run on a small fixed data set of the task's shape).

Used by the task loader (:mod:`perfeval.contest.tasks`) and by the table scorer
(:mod:`perfeval.contest.tables`), so that neither imports the other.  A criterion's score is the
value ``evaluate`` gives on the joined arrays, bit for bit: nothing here computes a measure.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from perfeval.exceptions import PerfError, PerfWarning

if TYPE_CHECKING:
    from perfeval.engine.report import MeasureResult

# evaluate() and the engine's report are imported where a table task's criterion is run: a task of
# lines (the presets) does not load them.

#: what a table task's rows are (the task file's ``problem``)
PROBLEMS = ("binary", "classes", "labels", "regression")


@dataclass
class Joined:
    """A submission joined with the answer key, in the key's order: targets (K labels: an (n, K) 0/1
    matrix), predictions (K classes or labels: an (n, K) matrix, one column a class or label), and
    the key's groups and weights (None when the task has none).
    """

    y: np.ndarray
    s: np.ndarray
    groups: np.ndarray | None = None
    weights: np.ndarray | None = None


def rescaled(s: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (Kaggle's rule for a multiclass log loss: the probabilities of a row
    need not sum to 1).  The caller has refused a row summing to 0.
    """
    return s / s.sum(axis=1, keepdims=True)


def measure_result(
    problem: str,
    spec: str,
    joined: Joined,
    *,
    dialect: str | None = None,
    classes: list[str] | None = None,
    rescale: bool = False,
) -> MeasureResult:
    """The one result of :func:`perfeval.evaluate` for the measure ``spec`` on ``joined``: a binary
    problem as ``task="binary"`` (graded relevance for the per-query measures; never a regression
    target), a regression problem as ``task="regression"``, K classes with ``classes`` (the score
    columns in their order; ``rescale``: each row divided by its sum first), K labels as a label
    matrix named by ``classes``.  Warnings (a group where the measure is undefined) are not shown:
    the value, and why it is not a number, are the result's.
    """
    from perfeval.api.evaluation import evaluate

    kw: dict[str, Any] = {
        "measures": [spec],
        "groups": joined.groups,
        "sample_weight": joined.weights,
        "dialect": dialect or "perfeval",
    }
    s = rescaled(joined.s) if rescale else joined.s
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerfWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        if problem == "binary":
            report = evaluate(joined.y, s, task="binary", **kw)
        elif problem == "regression":
            report = evaluate(joined.y, s, task="regression", **kw)
        else:
            report = evaluate(joined.y, s, classes=classes, **kw)
    (result,) = report.results.values()
    return result


def why_no_number(result: MeasureResult) -> str:
    """Why a criterion's value is not a finite number, as the JSON says beside its null."""
    from perfeval.engine.report import why_not_finite

    return (
        result.why
        or why_not_finite(result.value, result.label, "for this submission joined with the key")
        or ""
    )


# -- the checks of a criterion when its task is loaded ------------------------------------------------
def sample(problem: str, width: int, groups: bool, weights: bool) -> Joined:
    """A small fixed data set of a task's shape: 24 rows (K classes: 6 a class), both classes in each
    of 3 groups, every class and label present, predictions inside (0, 1) (K classes: rows summing
    to 1), positive regression targets and predictions, weights from 0.5 to 2.
    """
    rng = np.random.default_rng(20040815)
    n = max(24, 6 * width)
    if problem == "classes":
        y = np.array([str(i % width) for i in range(n)])
        s = rng.dirichlet(np.ones(width), n)
    elif problem == "labels":
        y = (rng.random((n, width)) < 0.5).astype(np.int64)
        y[0], y[1] = 1, 0  # each label on and off
        s = rng.uniform(0.05, 0.95, (n, width))
    elif problem == "regression":
        y = rng.uniform(1.0, 10.0, n)
        s = y + rng.normal(0.0, 1.0, n).clip(-0.9, 0.9)
    else:
        y = np.arange(n) % 2
        s = rng.uniform(0.05, 0.95, n)
    g = np.repeat(np.arange(3), -(-n // 3))[:n] if groups else None
    w = rng.uniform(0.5, 2.0, n) if weights else None
    return Joined(y, s, g, w)


@dataclass
class Checked:
    """What a criterion's dry run tells: the label ``evaluate`` reports it under, its direction, and
    whether it reads probabilities (a prediction outside [0, 1] makes it undefined).
    """

    label: str
    direction: str
    probability: bool


def dry_run(
    problem: str,
    spec: str,
    *,
    dialect: str | None,
    classes: list[str] | None,
    width: int,
    groups: bool,
    weights: bool,
    hard: bool = False,
) -> Checked:
    """Run the criterion on :func:`sample` (the task's shape): an error of ``evaluate`` (a measure the
    problem has not, GAUC without groups, a dialect without the measure) is raised here, when the task
    is loaded.  ``hard``: the submission gives one label a row (K classes), so the measure must read
    the argmax only (its value the same for any scores with the same argmax); else an error.
    """
    data = sample(problem, width, groups, weights)
    names = [str(i) for i in range(width)] if problem == "classes" else classes
    if hard:
        predicted = data.y.astype(np.int64)
        predicted[::3] = (predicted[::3] + 1) % width  # a third of the rows wrong
        onehot = np.eye(width)[predicted]
        base = measure_result(
            problem, spec, Joined(data.y, onehot, data.groups, data.weights), dialect=dialect, classes=names
        )
        # the same argmax, other scores: each column ordered otherwise than by the labels
        soft = np.where(onehot == 1.0, 0.5, np.random.default_rng(1).uniform(0.0, 0.5 / width, onehot.shape))
        other = measure_result(
            problem, spec, Joined(data.y, soft, data.groups, data.weights), dialect=dialect, classes=names
        )
        if not _same(base.value, other.value):
            raise PerfError(
                f"{base.label} reads a score for each class, which one predicted label a row does not give "
                "(the measures of predicted labels: acc, bacc, f1, mcc, kappa, qwk, ...)"
            )
        return Checked(base.label, base.direction, False)
    base = measure_result(problem, spec, data, dialect=dialect, classes=names)
    probability = False
    if problem != "regression" and math.isfinite(base.value):
        # every prediction moved past 1 (each column's order kept): undefined for a measure of
        # probabilities, in every group
        probe = measure_result(
            problem,
            spec,
            Joined(data.y, data.s + 1.0, data.groups, data.weights),
            dialect=dialect,
            classes=names,
        )
        probability = not math.isfinite(probe.value)
    return Checked(base.label, base.direction, probability)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b
