"""The door, in named stages: check -> code -> summarize.

Every entry point that takes a user's arrays (:func:`perfeval.evaluate`, :meth:`perfeval.Metric.update`,
the scikit-learn names, the command's loader; the streaming and Dask backends) goes through the same
sequence:

1. **check** (:func:`check`, in :mod:`perfeval.base.checks`): each array read and checked as its
   :class:`~perfeval.base.checks.ArraySpec` in the entry point's table says (shape, type,
   finiteness, domain, lengths); the cases of weight 0 dropped.  An entry point that names itself
   in its messages passes ``where=`` to the checks (``roc_curve: ...``), not a wrapper that raises
   again.
2. **code** (:func:`code`): the targets coded once, for every kind of measure that reads them (0/1
   by ``pos_label`` for the binary measures and the group AUC, graded relevance >= 0 for the
   per-query measures), the coding carried with the cases (:class:`Targets`): the engine asks it,
   it does not code again per kind of measure.
3. **summarize** (:func:`perfeval.engine.finish`): each kind of summary made once and every measure
   finished from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from perfeval.base.checks import (
    EVALUATION,
    ArraySpec,
    Cases,
    LabelWords,
    binary_coding,
    binary_targets,
    check,
    check_array,
    check_relevance,
    floats,
    label_values,
    read_targets,
)
from perfeval.exceptions import InvalidDataError, InvalidParameterError

# The input grammar (io/grammar.py) is imported where relevance grades are read:
# `evaluate()` of binary targets doesn't load it.

__all__ = [
    "ArraySpec",
    "EVALUATION",
    "Cases",
    "Targets",
    "check",
    "check_array",
    "check_classes",
    "class_codes",
    "class_hint",
    "classes_of",
    "code",
    "counts_cases",
    "relevance_targets",
    "targets_of",
]


#: measures whose weights are counts of cases (whole numbers): a fractional weight said where it is
#: read (the command's line, a Dask partition's row), before the measure refuses the summary
COUNT_WEIGHTED = ("APR", "CA2")
#: measures whose weights are counts with one of their parameters (the debiased ECE: a bin's n - 1)
COUNT_WEIGHTED_WITH = {"ECE": ("debiased", "yes"), "ECE_TOP": ("debiased", "yes")}


def counts_cases(spec: Any) -> bool:
    """Whether the measure ``spec`` reads weights as counts of cases (whole numbers)."""
    name = spec.measure.name
    if name in COUNT_WEIGHTED:
        return True
    key, value = COUNT_WEIGHTED_WITH.get(name, (None, None))
    return key is not None and str(spec.kwargs.get(key)) == value


class Targets:
    """The targets of one task coded once (the code stage): asked by every kind of measure, each
    coding made on first need and kept, so that a measure of another kind asking again gets it.

    The first asker is the one a refusal names (``needs``), as it always was: the engine asks in
    the order it computes (per-query measures, group AUCs, binary measures).

    Parameters
    ----------
    y : ndarray
        The targets as checked (:func:`check`).
    pos_label : optional
        The positive label of the binary measures and the group AUCs.
    keep : bool, default True
        Keep the binary coding after the binary measures' summary is made (:meth:`release`): False
        when nothing asks for it again, so that its copy is not held while the measures run.
    """

    __slots__ = ("y", "pos_label", "keep", "made", "_coding", "_binary", "_relevance")

    def __init__(self, y: np.ndarray, pos_label: Any = None, *, keep: bool = True):
        self.y, self.pos_label, self.keep = y, pos_label, keep
        self.made: str | None = None  # coded by the caller: "binary" or "relevance" (:meth:`made_by`)
        self._coding: Any = False  # not made yet (None: not a 0/1 coding)
        self._binary: np.ndarray | None = None
        self._relevance: np.ndarray | None = None

    @classmethod
    def coded(cls, t: np.ndarray) -> Targets:
        """Targets already coded and checked (0/1, or relevance >= 0, as float64): read as they are."""
        out = cls(t)
        out._coding = out._binary = out._relevance = t
        return out

    @classmethod
    def made_by(cls, t: np.ndarray, made: Literal["binary", "relevance"]) -> Targets:
        """Targets the caller coded and checked already, with its own words for what was wrong (the
        command's loader: the file, the line and the column): ``made`` ``"binary"``, numbers 0/1
        (the loader's coding, as :func:`~perfeval.base.checks.binary_coding` gives it), or
        ``"relevance"``, graded relevance >= 0 as float64.  Nothing is coded again: the binary
        measures read ``t`` as it is, the per-query measures it as float64.
        """
        out = cls(t)
        out.made = made
        if made == "binary":
            out._coding = t  # 0/1 numbers: binary_coding would give them as they are
        else:
            out._relevance = t
        return out

    def coding(self) -> np.ndarray | None:
        """:func:`~perfeval.base.checks.binary_coding` of the targets (None: not 0/1, -1/1 or
        booleans, and no ``pos_label``): no error, whatever the labels.
        """
        if self._coding is False:
            self._coding = binary_coding(self.y, self.pos_label)
        return self._coding

    def binary(self, needs: str, *, words: LabelWords | None = None, rows: Any = None) -> np.ndarray:
        """The 0/1 targets of the measure ``needs``, or the door's one line about them
        (:func:`~perfeval.base.checks.binary_targets`: ``words``, what the caller takes; ``rows``,
        where a missing target is found when the targets are the distinct labels).
        """
        if self._binary is None:
            self._binary = binary_targets(
                self.y, needs, self.pos_label, words=words, rows=rows, coding=self.coding()
            )
        return self._binary

    def release(self) -> None:
        """Drop the binary coding (unless ``keep``): its copy is not held while the measures run."""
        if not self.keep and self.made is None:  # (a caller's coding is not copied: nothing to drop)
            self._binary = None
            self._coding = False

    def relevance(self, specs: list) -> np.ndarray:
        """The targets as graded relevance >= 0 for the per-query measures ``specs``
        (:func:`relevance_targets`, then checked >= 0).
        """
        if self._relevance is None:
            if self.made == "binary":  # the caller's 0/1 coding: relevance 0 and 1, as float64
                self._relevance = floats(self.y, "y_true")
                return self._relevance
            rel = relevance_targets(self.y, specs, self.pos_label)
            check_relevance(rel)
            self._relevance = rel
        return self._relevance


def code(
    cases: Cases,
    pos_label: Any = None,
    *,
    keep: bool = True,
    made: Literal["binary", "relevance"] | None = None,
) -> Cases:
    """The code stage: ``cases`` with their targets' coding attached (:class:`Targets`), made on
    first need by whichever measure asks first and shared by the others.  ``made``: the targets
    are a coding the caller made and checked already, ``"binary"`` or ``"relevance"``
    (:meth:`Targets.made_by`: the command's loader codes a target column once, its messages naming
    the file's lines), read as they are.
    """
    cases.targets = Targets(cases.y, pos_label, keep=keep) if made is None else Targets.made_by(cases.y, made)
    return cases


def targets_of(cases: Cases, pos_label: Any = None) -> Targets:
    """The coding of ``cases``' targets (the code stage's, :func:`code`), attached now when they were
    not coded: every later asker of the same cases (a dialect's rules, the engine, an explanation's
    facts) reads the first one's.  Coded for another ``pos_label``: a coding of its own, not kept.
    """
    if cases.targets is None:
        code(cases, pos_label)
    t: Targets = cases.targets
    return t if t.pos_label is pos_label else Targets(cases.y, pos_label)


def relevance_targets(y: np.ndarray, specs: list, pos_label: Any) -> np.ndarray:
    """The targets as the graded relevance the per-query measures ``specs`` read; labels (no value a
    number: click/no) one line saying so and what to pass, rather than ``'no' is not a number``
    (``pos_label=`` where it codes them all: the group AUCs; else a coding of the caller's).
    """
    try:
        return floats(y, "y_true")
    except InvalidDataError:
        from perfeval.io.grammar import is_number  # lazy: an error's path (evaluate() loads no reader)

        values = [str(v) for v in np.asarray(y).tolist()] if y.dtype.kind in "OUS" else []
        if not values or any(is_number(v) for v in values):
            raise
        ranking = [s.label for s in specs if s.measure.kind != "grouped"]
        needs = (ranking or [specs[0].label])[0]
        if pos_label is not None:  # it codes the binary measures and the group AUCs only
            raise InvalidDataError(
                f"{needs} reads graded relevance (numbers), but `y_true` holds {label_values(y)}; "
                f"pos_label= codes the binary measures and GAUC only: pass np.asarray(y_true) == "
                f"{pos_label!r} as y_true for {needs}"
            ) from None
        said = read_targets(y, LabelWords(pos_label=not ranking))
        raise InvalidDataError(
            f"{needs} reads numbers (0/1, or graded relevance: above 0 relevant), but `y_true` "
            f"{said.what}; {said.advice}"
        ) from None


# -- multiclass: one score column a class ------------------------------------------------------------------
#: the arrays of a multiclass evaluation, in the order they are read and checked
CLASSES = (
    ArraySpec("y_true", "labels"),
    ArraySpec("y_score", "floats", finite=True),
    ArraySpec("groups", "ids"),
    ArraySpec("sample_weight", "floats", finite=True, nonneg=True),
)


def score_matrix(y_score: Any, n: int, name: str = "y_score") -> np.ndarray:
    """``y_score`` as an (n, K) float64 matrix of finite numbers, K >= 2, or one line saying what it is."""
    from perfeval.base.checks import as_array

    if y_score is None:
        raise InvalidDataError(f"`{name}` is required")
    a = as_array(y_score, name)
    if a.ndim != 2 or a.shape[1] < 2:
        raise InvalidDataError(
            f"`{name}` of K classes is an (n, K) matrix, one score column a class (K >= 2), got shape "
            f"{a.shape}"
        )
    if len(a) != n:
        raise InvalidDataError(f"`y_true` and `{name}` must have the same length, got {n} and {len(a)}")
    a = floats(a, name)
    bad = ~np.isfinite(a)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidDataError(
            f"`{name}` must be finite numbers, got {float(a[i, j])!r} at row {i}, column {j} "
            "(NaN cannot be ranked; replace it or drop the row)"
        )
    return np.ascontiguousarray(a)


def class_codes(
    y: np.ndarray, classes: tuple, name: str = "`y_true`", position: Callable[[int], str] | None = None
) -> np.ndarray:
    """The targets as codes 0..K-1 in the order of ``classes``; a target that is none of them is one
    line naming it (``name``: the array as messages say it), its row (``position(row)``: where it is
    in words; default ``row i``) and the classes (nothing is dropped or guessed).
    """
    index: dict[Any, int] = {}
    for i, c in enumerate(classes):
        if c in index:
            raise InvalidDataError(f"`classes` names {c!r} twice: one label a score column")
        index[c] = i
    if not len(y):
        return np.zeros(0, dtype=np.intp)
    try:
        if y.dtype.kind in "iu":  # integer labels: counted or hashed, without a sort of the rows
            from perfeval.summaries.ranking import group_codes

            uniq, inv = group_codes(y)
        else:
            uniq, inv = np.unique(y, return_inverse=True)
    except TypeError:  # labels of mixed types: a dictionary lookup a row
        values = y.tolist()
        missing = next((r for r, v in enumerate(values) if v not in index), None)
        if missing is not None:
            raise InvalidDataError(_not_a_class(values[missing], missing, classes, name, position)) from None
        return np.fromiter((index[v] for v in values), dtype=np.intp, count=len(values))
    lookup = np.full(len(uniq), -1, dtype=np.intp)
    values = uniq.tolist()
    for i, v in enumerate(values):
        if v in index:
            lookup[i] = index[v]
    codes = lookup[inv.reshape(-1)]
    if (lookup < 0).any():  # the first row (not the first sorted label) that is no class
        row = int(np.argmax(codes < 0))
        raise InvalidDataError(_not_a_class(values[int(inv.reshape(-1)[row])], row, classes, name, position))
    return codes


def _not_a_class(
    v: Any, row: int, classes: tuple, name: str = "`y_true`", position: Callable[[int], str] | None = None
) -> str:
    shown = ", ".join(repr(c) for c in classes[:8]) + (", ..." if len(classes) > 8 else "")
    hint = class_hint(v, classes)
    where = f"row {row}" if position is None else position(row)
    return f"{name} holds {v!r} at {where}, which is not one of the classes [{shown}]{hint}"


def class_hint(v: Any, classes: tuple) -> str:
    """What a target ``v`` that is none of ``classes`` may mean, said after the message: text
    against numbers (``0`` against ``['a', 'b']``), or nothing.
    """
    if any(isinstance(c, str) for c in classes) != isinstance(v, str):
        return " (the classes and the targets must be the same labels: text against numbers?)"
    return ""


def classes_of(y: np.ndarray, k: int, classes: Any, names: Any = None) -> tuple[tuple, str]:
    """The K labels of the score columns and how they were found: ``classes`` as given; else the
    score table's column names (``names``: read as the targets' numbers when the targets are numbers);
    else the sorted distinct targets when there are exactly K of them (scikit-learn's ``classes_``);
    else one line asking for ``classes=``.
    """
    if classes is not None:
        out = tuple(
            c.item() if isinstance(c, np.generic) else c
            for c in np.asarray(classes, dtype=object).reshape(-1)
        )
        if len(out) != k:
            raise InvalidParameterError(
                f"`classes` names {len(out)} labels for the {k} score columns: one label a column, in order"
            )
        return out, "given"
    if names is not None:
        out = tuple(names)
        whole = y.dtype.kind in "iub" or (y.dtype.kind == "f" and bool(np.all(np.mod(y, 1) == 0)))
        if whole and all(isinstance(c, str) for c in out):
            try:
                nums = tuple(int(c) for c in out)
            except ValueError:
                nums = None
            if nums is not None and all(str(v) == c.strip() for v, c in zip(nums, out, strict=True)):
                return nums, "the score columns' names, read as the targets' numbers"
        return out, "the score columns' names"
    try:
        seen = np.unique(y)
    except TypeError:
        raise InvalidParameterError(
            "`y_true` holds labels of mixed types: pass `classes=` naming the score columns in order"
        ) from None
    if len(seen) != k:
        shown = label_values(y)
        raise InvalidParameterError(
            f"`y_score` has {k} columns but `y_true` holds {len(seen)} distinct labels ({shown}): pass "
            "`classes=` naming the score columns in order (a class absent from the targets is then "
            "listed as undefined, not guessed)"
        )
    return tuple(
        v.item() if isinstance(v, np.generic) else v for v in seen
    ), "the sorted distinct labels of y_true"


def check_classes(
    y_true: Any,
    y_score: Any,
    groups: Any = None,
    weights: Any = None,
    *,
    classes: Any = None,
    names: Any = None,
    weight_name: str = "sample_weight",
) -> tuple[Cases, tuple, str]:
    """The check and code stages of a multiclass evaluation: the arrays checked as :data:`CLASSES`
    says (the scores an (n, K) matrix), the cases of weight 0 dropped, the targets coded 0..K-1 in
    the order of the classes (:func:`classes_of`).  Returns the cases (``y``: the codes), the
    classes and how they were found.  ``weight_name``: the weights' keyword as the user typed it.
    """
    yt = check_array(CLASSES[0], y_true)
    ys = score_matrix(y_score, len(yt), CLASSES[1].name)
    against = (CLASSES[1].name, len(ys), False)
    g = None if groups is None else check_array(CLASSES[2], groups, against)
    w = None if weights is None else check_array(CLASSES[3]._replace(name=weight_name), weights, against)
    rows_in = len(ys)
    if w is not None and not w.all():
        keep = w > 0
        yt, ys, w = yt[keep], ys[keep], w[keep]
        g = None if g is None else g[keep]
    found, how = classes_of(yt, ys.shape[1], classes, names)
    cases = Cases(class_codes(yt, found), ys, g, w, rows_in)
    return cases, found, how


def _no_missing_cell(t: np.ndarray, names: Any, y_true: Any) -> None:
    """One line when the (n, K) label matrix ``t`` holds a missing value (NaN; None, NaN, pandas' NA
    or NaT among Python objects: a table's nullable column): its row and column (the column's name:
    ``names``, else the table's, when known), as the other missing targets are said
    (:func:`perfeval.base.checks.binary_targets`).
    """
    from perfeval.base.checks import missing_mask

    if t.dtype.kind == "f":
        miss = np.isnan(t)
    elif t.dtype.kind == "O":
        miss = missing_mask(t.reshape(-1)).reshape(t.shape)
    else:
        return
    if not miss.any():
        return
    i, j = (int(v) for v in np.argwhere(miss)[0])
    v = t[i, j]
    shown = "NaN" if t.dtype.kind == "f" or (isinstance(v, float) and v != v) else repr(str(v))
    cols = names if names is not None else getattr(y_true, "columns", None)
    try:
        col = f"column {j} ({list(cols)[j]!r})" if cols is not None else f"column {j}"
    except (TypeError, IndexError):
        col = f"column {j}"
    more = int(miss.sum()) - 1
    raise InvalidDataError(
        f"`y_true` of K labels holds {shown}, a missing label, at row {i}, {col}"
        f"{f' (and {more:,} more)' if more else ''}: each cell is 0 or 1 (label off or on); drop or fill "
        "those cases"
    )


def check_labels(
    y_true: Any,
    y_score: Any,
    groups: Any = None,
    weights: Any = None,
    *,
    labels: Any = None,
    names: Any = None,
    word: str = "classes",
    weight_name: str = "sample_weight",
) -> tuple[Cases, tuple, str]:
    """The check and code stages of a multilabel evaluation: ``y_true`` an (n, K) matrix of 0/1 (or
    booleans; anything else is one line naming the row, the column and the value), ``y_score`` an (n,
    K) matrix of finite scores, the cases of weight 0 dropped.  The labels: ``labels`` as given, else
    the table's column names, else the column numbers 0..K-1.  Returns the cases (``y``: booleans),
    the labels and how they were found.  ``word``: the caller's name of ``labels`` in its messages;
    ``weight_name``: the weights' keyword as the user typed it.
    """
    from perfeval.base.checks import as_array

    t = as_array(y_true, "y_true")
    if t.ndim != 2:
        raise InvalidDataError(f"`y_true` of K labels is an (n, K) 0/1 matrix, got shape {t.shape}")
    ys = score_matrix(y_score, len(t), "y_score")
    if ys.shape != t.shape:
        raise InvalidDataError(
            f"`y_true` and `y_score` must have the same shape, got {t.shape} and {ys.shape}"
        )
    if t.dtype != bool:
        _no_missing_cell(t, labels if labels is not None else names, y_true)
        tf = floats(t, "y_true")
        bad = (tf != 0) & (tf != 1)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            given = t[i, j]  # as the user gave it: numpy's scalar as its Python value, an object as is
            raise InvalidDataError(
                f"`y_true` of K labels holds 0 or 1 in each cell (label off or on), got "
                f"{(given.item() if isinstance(given, np.generic) else given)!r} at row {i}, column {j}"
            )
        t = tf == 1
    against = ("y_score", len(ys), False)
    g = None if groups is None else check_array(CLASSES[2], groups, against)
    w = None if weights is None else check_array(CLASSES[3]._replace(name=weight_name), weights, against)
    rows_in = len(ys)
    if w is not None and not w.all():
        keep = w > 0
        t, ys, w = t[keep], ys[keep], w[keep]
        g = None if g is None else g[keep]
    k = ys.shape[1]
    if labels is not None:
        found = tuple(
            c.item() if isinstance(c, np.generic) else c for c in np.asarray(labels, dtype=object).reshape(-1)
        )
        if len(found) != k:
            raise InvalidParameterError(
                f"`{word}` names {len(found)} labels for the {k} columns: one a column, in order"
            )
        twice = next((c for i, c in enumerate(found) if c in found[:i]), None)
        if twice is not None:
            raise InvalidParameterError(f"`classes` names {twice!r} twice: one label a column")
        how = "given"
    elif names is not None:
        found, how = tuple(names), "the columns' names"
    else:
        found, how = tuple(range(k)), "the column numbers"
    return Cases(t, ys, g, w, rows_in), found, how
