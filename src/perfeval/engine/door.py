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
from perfeval.exceptions import InvalidDataError

# The input grammar (io/grammar.py) is imported where relevance grades are read:
# `evaluate()` of binary targets doesn't load it.

__all__ = [
    "ArraySpec",
    "EVALUATION",
    "Cases",
    "Targets",
    "check",
    "check_array",
    "code",
    "relevance_targets",
    "targets_of",
]


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
