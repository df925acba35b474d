"""``perfeval eval``'s notes about probability scores, the same on every backend: scores outside
[0, 1] read by the measures that take them as probabilities (BRIER, LOGLOSS, ...), counted and the
first named; an infinite LOGLOSS or CXE said why (the cases that give their own class a probability
of 0, counted and the first named).

The cases are counted as they are read (:class:`ProbabilityCases`): in memory the whole table at
once, streamed chunk by chunk (the first named by its line, as in memory), on Dask and Spark
partition by partition (``probability_cases`` of :mod:`perfeval.backends.dask` and
:mod:`perfeval.backends.spark`: a partition's row is not a line of the file, so the first is named
by its place, ``row 3 of partition 1``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from perfeval.cli.notes import note
from perfeval.measures.probability import ZERO_PROBABILITY, probability_counts

#: the measures that read scores as probabilities (a score outside [0, 1] is said)
PROBABILITY_MEASURES = ("BRIER", "LOGLOSS", "CXE", "RMS", "CA1", "CA2", "SLQ")


def probability_asked(specs: list) -> bool:
    """Whether a measure asked reads the scores as probabilities (the cases are worth counting)."""
    return any(s.label.split(":")[0] in PROBABILITY_MEASURES for s in specs)


def probability_labels(report: Any) -> list[str]:
    """The report's measures that read the scores as probabilities."""
    return [lab for lab in report.results if lab.split(":")[0] in PROBABILITY_MEASURES]


def infinite_labels(report: Any) -> list[str]:
    """The report's LOGLOSS and CXE that are infinite."""
    return [
        lab
        for lab, r in report.results.items()
        if lab.split(":")[0] in ("LOGLOSS", "CXE") and r.value == math.inf
    ]


class ProbabilityCases:
    """The scores outside [0, 1] and the cases of probability 0 of their own class, counted chunk by
    chunk (:meth:`add`), the first of each named by ``position``; :meth:`say` writes the notes.
    """

    def __init__(self) -> None:
        self.outside = 0
        self.first_outside: tuple[str, float] | None = None  # where, and the score
        self.zero = 0
        self.first_zero: str | None = None

    def add(self, y: Any, s: Any, w: Any, position: Callable[[int], str]) -> None:
        """The cases of one chunk (or the whole table) read: ``position(i)``, where its row ``i`` is
        (``line 5``).
        """
        self.merge(probability_counts(y, s, w), position)

    def merge(self, part: tuple[int, int, float, int, int], position: Callable[[int], str]) -> None:
        """One chunk's :func:`perfeval.measures.probability.probability_counts`, its rows placed by
        ``position``.
        """
        n, i, value, z, j = part
        if n:
            self.outside += n
            if self.first_outside is None:
                self.first_outside = (position(i), value)
        if z:
            self.zero += z
            if self.first_zero is None:
                self.first_zero = position(j)

    def say(self, report: Any, model: str | None = None) -> None:
        """The notes the report's measures call for (a note kept for stderr each); ``model``: the
        model of several they are about, named.
        """
        who = "" if model is None else f"model {model}: "
        probabilities = probability_labels(report)
        if probabilities and self.first_outside is not None:
            n, (where, value) = self.outside, self.first_outside
            note(
                f"perfeval: note: {who}{', '.join(probabilities)} read the scores as probabilities, but "
                f"{n:,} {'are' if n > 1 else 'is'} outside [0, 1], the first on {where} ({value!r})\n"
            )
        inf = infinite_labels(report)
        if inf and self.first_zero is not None:
            n = self.zero
            cases = f"{n:,} cases give their" if n > 1 else "1 case gives its"
            note(
                f"perfeval: note: {who}{' and '.join(inf)} {'is' if len(inf) == 1 else 'are'} infinite: "
                f"{cases} {ZERO_PROBABILITY}, the first on {self.first_zero}; --dialect sklearn clips "
                "probabilities as scikit-learn does\n"
            )


def wanted(report: Any, summary_outside: bool | None) -> bool:
    """Whether a backend that counts the cases in a pass of its own (Dask, Spark) must make it: a
    LOGLOSS or CXE infinite, or a measure reading probabilities and scores outside [0, 1] (as the
    merged summary says, when there is one: ``summary_outside``; None, not known).
    """
    if infinite_labels(report):
        return True
    return bool(probability_labels(report)) and summary_outside is not False


def summary_outside(summary: Any) -> bool | None:
    """Whether a merged summary (a :class:`perfeval.summaries.ScoreHistogram`) holds a score outside
    [0, 1] of a weight > 0; None when the report keeps no such summary.
    """
    scores = getattr(summary, "scores", None)
    pos, neg = getattr(summary, "pos", None), getattr(summary, "neg", None)
    if scores is None or pos is None or neg is None:
        return None
    s = np.asarray(scores, dtype=np.float64)
    return bool(np.any(((s < 0) | (s > 1)) & ((np.asarray(pos) > 0) | (np.asarray(neg) > 0))))
