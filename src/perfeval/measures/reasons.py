"""Why a binary measure is NaN on one summary: what happened, in words, from the summary itself.

The engine asks (:func:`why_nan`) only when a value is NaN, so the cost of a reason is never paid by a
defined value; each reason reads the summary's distinct scores and totals (a pass over its cells at
most, or the operating points the measure itself made, kept with the summary).  A measure with no
reason of its own here gets the class reason (no case, one class only) where its edge cases name
it, else None: the engine then shows the measure's edge cases.  The texts of one cause are the same
for every measure (so that the warnings can name the measures together).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from perfeval.summaries.histogram import ScoreHistogram

__all__ = [
    "class_text",
    "class_why",
    "fit_groups_why",
    "fit_groups_why_array",
    "from_totals",
    "why_nan",
]


#: a total of whole-number weights at or above this (2**53) is no count of cases: float64 holds every
#: whole number only below it, and weights of 1e50 are weights, not copies; said by weight instead
COUNT_LIMIT = 2.0**53


def _cases(h: ScoreHistogram, cells: np.ndarray) -> str:
    """``cells`` (a boolean mask over the summary's cells) as a number of cases: a count when the
    summary holds counts (a total below :data:`COUNT_LIMIT`), else their total weight and their
    number of distinct scores.
    """
    wt = (h.pos + h.neg)[cells]
    total = float(wt.sum())
    if h.is_counts() and total < COUNT_LIMIT:
        n = int(round(total))
        return f"{n:,} score{'s are' if n != 1 else ' is'}"
    k = int(np.count_nonzero(cells))
    return f"cases of total weight {total:g} ({k:,} distinct score{'s' if k != 1 else ''}) are"


def class_why(h: ScoreHistogram) -> str | None:
    """No case, or one class only, in words (None when both classes have weight)."""
    return class_text(h.n_pos, h.n_neg, h.is_counts())


def class_text(pos: float, neg: float, counts: bool) -> str | None:
    """:func:`class_why` of a summary whose positives and negatives weigh ``pos`` and ``neg``
    (``counts``: its weights are whole), from the totals alone (per group: every group's at once).
    A total of :data:`COUNT_LIMIT` or more is said by weight, whole or not.
    """
    if not pos > 0 and not neg > 0:
        return "no case"
    if pos > 0 and neg > 0:
        return None
    if counts and pos + neg < COUNT_LIMIT:
        n = int(round(pos + neg))
        what = f"all {n:,} cases are" if n != 1 else "the one case is"
    else:
        what = f"every case (total weight {pos + neg:g}) is"
    return f"one class only: {what} {'positive' if neg <= 0 else 'negative'}"


def _outside(h: ScoreHistogram, lo_open: bool) -> str | None:
    """The scores outside [0, 1] (and, ``lo_open``, those at exactly 0 or 1), said."""
    sc, wt = h.scores, h.pos + h.neg
    live = wt > 0
    out = live & ((sc < 0.0) | (sc > 1.0))
    if out.any():
        s = sc[out]
        return (
            f"{_cases(h, out)} outside [0, 1] (from {s.min():g} to {s.max():g}): the calibration "
            "measures need probabilities"
        )
    if lo_open:
        edge = live & ((sc == 0.0) | (sc == 1.0))
        if edge.any():
            return f"{_cases(h, edge)} exactly 0 or 1: the logit is infinite"
    return None


def _binned(h: ScoreHistogram, **_: Any) -> str | None:
    """ECE, MCE, BRIER_MCB: no case, or a score that is not a probability."""
    if h.n == 0:
        return "no case"
    return _outside(h, lo_open=False)


def _fit(h: ScoreHistogram, **params: Any) -> str | None:
    """CAL_SLOPE, CAL_INTERCEPT: no case, a score with no logit, one class, or no finite fit."""
    said = _outside(h, lo_open=True) if h.n > 0 else None
    if said:
        return said
    said = class_why(h)
    if said:
        return said
    if params.get("fit") == "offset":
        return None  # the offset fit has a finite maximum wherever both classes have weight
    sc, pos, neg = h.scores, h.pos, h.neg
    live = (pos + neg) > 0
    if np.count_nonzero(live) == 1:
        return f"every score is {sc[live][0]:g}: a slope has no finite maximum likelihood"
    hi_neg = sc[neg > 0].max()
    lo_pos = sc[pos > 0].min()
    if lo_pos >= hi_neg or sc[pos > 0].max() <= sc[neg > 0].min():
        return _SEPARATE
    return None


_SEPARATE = (
    "the scores separate the classes (every positive's score on one side of every negative's): "
    "the slope has no finite maximum likelihood"
)


def fit_groups_why(
    sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray, groups: np.ndarray
) -> list[str | None]:
    """:func:`_fit`'s reason (the joint fit's) for each of ``groups``, every group's summary given as
    the slices ``bounds[k]:bounds[k + 1]`` of (sc, pos, neg) (:func:`perfeval.measures._data.histograms`),
    for groups whose positives and negatives both weigh and whose live cells all score in (0, 1)
    (the reasons the totals tell are said before): one live cell, or the classes separated, or None.
    The same tests on the same cells as :func:`_fit` on each group alone, for every group at once
    (csrc/calibration.c fit_why: each group's one live cell, or whether its classes are separated).
    """
    return fit_groups_why_array(sc, pos, neg, bounds, groups).tolist()


def fit_groups_why_array(
    sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, bounds: np.ndarray, groups: np.ndarray
) -> np.ndarray:
    """:func:`fit_groups_why` as an array of objects (str or None), one a group."""
    from perfeval import _native

    sc, pos, neg = (np.ascontiguousarray(v, np.float64) for v in (sc, pos, neg))
    bounds, groups = (np.ascontiguousarray(v, np.int64) for v in (bounds, groups))
    code = (
        np.frombuffer(_native.fit_why(sc, pos, neg, bounds, groups), np.int64)
        if len(groups)
        else np.zeros(0, np.int64)
    )
    return fit_why_said(sc, code)


def fit_why_said(sc: np.ndarray, code: np.ndarray) -> np.ndarray:
    """The reasons (str or None, an array of objects) of csrc/calibration.c fit_why's codes, one a
    group (``sc`` the cells' scores the codes point into): i >= 0 its one live cell i, -2 the classes
    separated, -1 no reason of its own.
    """
    said = np.array([None, _SEPARATE], dtype=object)[(code == -2).astype(np.intp)]
    for j in np.flatnonzero(code >= 0).tolist():
        said[j] = f"every score is {float(sc[code[j]]):g}: a slope has no finite maximum likelihood"
    return said


def _at_target(name: str, rate: str) -> Callable[..., str | None]:
    """The operating points at a target: the class reason, else that no point meets the target."""

    def why(h: ScoreHistogram, **params: Any) -> str | None:
        said = class_why(h)
        if said or name != "REC_AT_PRE":
            return said  # the others' targets are always met (by no threshold or by every case)
        from perfeval.measures.operating import points

        _s, tp, fp, P, _N = points(h)
        if not P > 0:
            return None
        called = tp + fp
        with np.errstate(invalid="ignore", divide="ignore"):
            pre = np.where(called > 0, tp / np.where(called > 0, called, 1.0), np.nan)
        best = float(np.nanmax(pre)) if np.isfinite(pre).any() else math.nan
        target = float(params[rate])
        if not best < target:
            return None  # not for the reason this knows
        return f"no threshold gives precision >= {target:g}: the highest is {best:.6g}"

    return why


_ONE_CLASS_EDGE = ("one class", "no positives", "no negatives", "no case", "no data")

#: the measures with a reason of their own, by canonical name
REASONS: dict[str, Callable[..., str | None]] = {
    "ECE": _binned,
    "MCE": _binned,
    "BRIER_MCB": _binned,
    "CAL_SLOPE": _fit,
    "CAL_INTERCEPT": _fit,
    "REC_AT_PRE": _at_target("REC_AT_PRE", "min_precision"),
}


#: of the measures with a reason of their own, those that say the class reason first (REC_AT_PRE), and
#: those that say a score outside [0, 1] or at 0 or 1 first, then the class reason (the fits)
_CLASS_FIRST = frozenset({"REC_AT_PRE"})
_ODD_THEN_CLASS = frozenset({"CAL_SLOPE", "CAL_INTERCEPT"})


def from_totals(name: str, edge_cases: str, class_said: str | None, odd: bool) -> tuple[bool, str | None]:
    """Why the measure ``name`` is NaN on a summary, when its totals tell: (True, the reason or None)
    as :func:`why_nan` would give it, else (False, None): :func:`why_nan` reads the summary.
    ``class_said``: :func:`class_text` of the summary's totals; ``odd``: a case of weight > 0 scored
    outside [0, 1], or exactly 0 or 1.  (Per group, the summaries of most NaN groups are never made.)
    """
    if name not in REASONS:
        return True, class_said if class_said and any(e in edge_cases for e in _ONE_CLASS_EDGE) else None
    if class_said and (name in _CLASS_FIRST or (name in _ODD_THEN_CLASS and not odd)):
        return True, class_said
    return False, None


def why_nan(name: str, edge_cases: str, h: ScoreHistogram, params: dict[str, Any]) -> str | None:
    """Why the measure ``name`` (its registry ``edge_cases``, its ``params`` complete) is NaN on the
    summary ``h``, or None when no specific reason is known (the caller says the edge cases).
    """
    h = h.canonical()
    fn = REASONS.get(name)
    if fn is not None:
        return fn(h, **params)
    said = class_why(h)
    if said and any(e in edge_cases for e in _ONE_CLASS_EDGE):
        return said
    return None
