"""Measure definitions and the registry.

A :class:`Measure` is defined once: its canonical name (PERF's spelling), aliases (PERF's option
names among them), parameters, direction, the summary it is computed from, its definition with tie
rule and edge cases, and one ``compute`` function (float64, modern semantics) found by dotted path so
that importing the registry stays cheap.  Help text, ``perfeval list-measures`` and the lists of
valid names in error messages are generated from here.  The classic ``perf`` dialect reads the same
entries for its option names and output labels and supplies its own x87-faithful arithmetic.

Why a measure names its functions by a string and not by the function itself: the registry is read
where numpy is not loaded and must not be (``perf -h`` and ``perfeval list-measures`` list every
measure without it; ``import perfeval`` stays light), and every measure module imports numpy.  So
each ``compute`` / ``per_group`` is a plain literal ``"module:function"``, written out in full where
the measure is registered (measures/perf.py, measures/vocabulary.py; never composed), so that a
search for the function's name finds its measure, and imported on first use
(:meth:`Measure.function`).
"""

from __future__ import annotations

import difflib
import importlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from perfeval.exceptions import InvalidParameterError, UnknownMeasureError

#: which way is better; "none": neither, the ideal is a value (a calibration slope of 1, an intercept of 0)
Direction = Literal["higher", "lower", "none"]


@dataclass(frozen=True)
class Param:
    """A parameter of a measure.

    Parameters
    ----------
    name : str
        Keyword name, e.g. ``"threshold"``.
    default : float or int
        Value used when none is given (PERF's default).
    doc : str
        One line: meaning and valid range.
    """

    name: str
    default: float | int | str
    doc: str
    #: the domain: low <= value (low < value when low_open), value <= high (< when high_open)
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    #: a whole number (a count of cases, of bins)
    integer: bool = False
    #: +-inf allowed (a threshold may be; NaN never is)
    infinite: bool = False
    #: a word from these (``gain``: ``exp`` or ``linear``) instead of a number
    choices: tuple[str, ...] = ()

    @property
    def domain(self) -> str:
        """The valid values, as a message says them: ``a whole number >= 1``, ``0 <= eps < 0.5``."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        kind = "a whole number" if self.integer else ("a number" if self.infinite else "a finite number")
        if self.low is not None and self.high is not None:
            return (
                f"{kind} with {_g(self.low)} {'<' if self.low_open else '<='} {self.name} "
                f"{'<' if self.high_open else '<='} {_g(self.high)}"
            )
        if self.low is not None:
            return f"{kind} {'>' if self.low_open else '>='} {_g(self.low)}"
        if self.high is not None:
            return f"{kind} {'<' if self.high_open else '<='} {_g(self.high)}"
        return kind

    def check(self, value: Any, measure: str) -> None:
        """One line naming the measure, the parameter, its domain and the value, when outside it."""
        if self.choices:
            if value not in self.choices:
                raise InvalidParameterError(f"{measure} needs `{self.name}` {self.domain}, got {value!r}")
            return
        try:
            v = float(value)
        except (TypeError, ValueError):
            v = math.nan
        ok = not math.isnan(v) and (self.infinite or math.isfinite(v))
        ok = ok and not (self.integer and math.isfinite(v) and v != int(v))
        if ok and self.low is not None:
            ok = v > self.low if self.low_open else v >= self.low
        if ok and self.high is not None:
            ok = v < self.high if self.high_open else v <= self.high
        if not ok:
            raise InvalidParameterError(f"{measure} needs `{self.name}` {self.domain}, got {value!r}")


def _g(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True)
class Measure:
    """One measure: metadata plus one compute function.

    Attributes
    ----------
    name : str
        Canonical name, PERF's spelling (``"ROC"``).
    title : str
        A few words for tables and help.
    aliases : tuple of str
        Other accepted names, case-insensitive (``"auc"``, ``"roc_auc"``).
    perf_options : tuple of str
        PERF 5.12 command-line options that select it (``"-roc"``, ``"-auc"``).
    params : tuple of Param
    direction : {"higher", "lower", "none"}
        Which way is better ("none": neither, the ideal is a value: a calibration slope of 1).
    summary : str
        What it is computed from: ``"histogram"`` (distinct scores with positive/negative weight)
        for every PERF measure.
    compute : str
        ``"module:function"`` of the float64 implementation, imported on first use; a literal
        string, written out in full (the module docstring says why it is not the function).
    blocks : bool
        Allowed in PERF's ``-blocks`` mode (APR, RMS, RKL, TOP1).
    perf_usage : str
        The classic option with its values (``"-sar wacc wroc wrms"``), for help texts.
    kind : {"binary", "ranking", "grouped"}
        What it is computed from: a ScoreHistogram of 0/1 targets; per query from graded relevance
        (NDCG, MAP, ...); or over groups (GAUC).
    at_param : bool
        Whether the first parameter may be written ``name@value``.
    definition, ties, edge_cases, perf : str
        The documentation: formula; tie rule; what happens with one class, all scores equal or no
        data; how the classic ``perf`` command prints and differs.
    """

    name: str
    title: str
    aliases: tuple[str, ...]
    perf_options: tuple[str, ...]
    params: tuple[Param, ...]
    direction: Direction
    summary: str
    compute: str
    definition: str
    ties: str
    edge_cases: str
    perf: str
    blocks: bool = False
    #: how the classic command line spells it with its values, for help texts (default: the options)
    perf_usage: str = ""
    #: "binary" (computed from a ScoreHistogram of 0/1 targets), "ranking" (per query, from graded
    #: relevance), or "grouped" (needs groups: a weighted mean of a binary measure over them)
    kind: str = "binary"
    #: the first parameter can be written name@value (ndcg@10)
    at_param: bool = False
    #: over groups: "mean" (each group counts once) or "weighted" (by the group's number of cases)
    aggregate: str = "mean"
    #: ``"module:function"`` of the per-group form of a binary measure: every group at once from a
    #: GroupedData, returning one value per group, or None to decline (weights it does not take);
    #: "" (or a decline): each group is finished from its own ScoreHistogram by ``compute``
    per_group: str = ""
    #: how the minimum and maximum over every order of the tied cases are found (``tie_bounds=True``,
    #: ``--tie-bounds``; see :mod:`perfeval.measures.tiebounds`): ``"orders"`` (the measure of the two
    #: extreme orders: every tie's cases best first, worst first), ``"free"`` (the value does not
    #: depend on the order of tied cases: min = max = value), ``"linear"`` (SAR: moved by its ROC
    #: part) or ``"none"`` (no exact bound: NaN, ``tie_bounds_doc`` says why)
    tie_bounds: str = "free"
    #: one sentence on the bound, for the documentation (a default per kind when empty)
    tie_bounds_doc: str = ""
    #: ``"module:function"`` of a check of the parameters together, where one's domain depends on
    #: another's (PAUC's ``lo < hi``): called with every parameter (defaults filled in) once each is
    #: in its own domain, it returns None, or what is wrong in words (``lo`` must be ...); "" if none.
    #: Run when a spec is parsed, so that a run is refused before it reads any data
    check: str = ""
    #: what its bootstrap interval is, when that needs saying (a measure biased under resampling: its
    #: replicates lie mostly on one side of its value, :func:`perfeval.stats.intervals.side_note`);
    #: "" for none, the usual case
    intervals_doc: str = ""
    #: the functions imported on first use, by role ("compute", "per_group"): one key, one function, so
    #: two threads that import at once (the bootstrap's) store the same thing twice, harmlessly
    _fn: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher"

    def function(self) -> Callable[..., Any]:
        """The compute function (imported on first use)."""
        fn = self._fn.get("compute")
        if fn is None:
            mod, _, attr = self.compute.partition(":")
            fn = self._fn["compute"] = getattr(importlib.import_module(mod), attr)
        return fn

    def per_group_function(self) -> Callable[..., Any] | None:
        """The per-group form (imported on first use), or None when the measure has none."""
        if not self.per_group:
            return None
        fn = self._fn.get("per_group")
        if fn is None:
            mod, _, attr = self.per_group.partition(":")
            fn = self._fn["per_group"] = getattr(importlib.import_module(mod), attr)
        return fn

    def check_params(self, params: dict[str, Any]) -> None:
        """Each value within its parameter's domain (the one place parameters are checked)."""
        for p in self.params:
            if p.name in params:
                p.check(params[p.name], self.name)

    def check_together(self, params: dict[str, Any], label: str = "") -> None:
        """The parameters together (the measure's ``check``; ``params`` complete, each in its domain):
        one line naming the spec (``label``, else the measure) and what is wrong, when they do not fit.
        """
        if not self.check:
            return
        mod, _, attr = self.check.partition(":")
        problem = getattr(importlib.import_module(mod), attr)(params)
        if problem:
            raise InvalidParameterError(f"{label or self.name}: {problem}")

    def defaults(self) -> dict[str, float | int | str]:
        return {p.name: p.default for p in self.params}

    def __call__(self, summary: Any, **params: Any) -> float:
        """Finish the measure from a summary, with ``params`` overriding the defaults."""
        unknown = set(params) - {p.name for p in self.params}
        if unknown:
            raise InvalidParameterError(
                f"measure {self.name} has no parameter {sorted(unknown)[0]!r}; "
                f"expected one of {[p.name for p in self.params] or 'none'}"
            )
        self.check_params(params)
        every = {**self.defaults(), **params}
        self.check_together(every)
        canonical = getattr(summary, "canonical", None)  # a ScoreHistogram: without empty cells
        if canonical is not None:
            summary = canonical()
        return self.function()(summary, **every)

    @property
    def tie_bounds_text(self) -> str:
        """How the measure's tie bounds are found, in words (``--tie-bounds``)."""
        if self.tie_bounds_doc:
            return self.tie_bounds_doc
        return {
            "free": "order-free: the value does not depend on the order of tied cases (min = max = value).",
            "orders": "exact: the measure of the two extreme orders, every tie's cases best first (relevant "
            "or positive first, higher grades first, the heavier first among cases of one target) and "
            "worst first (the exact reverse).",
        }.get(self.tie_bounds, "")

    @property
    def doc(self) -> str:
        """The full reference text, as shown by ``perfeval list-measures --long``."""
        lines = [
            f"{self.name}: {self.title}",
            "",
            self.definition,
            "",
            "Ties: " + self.ties,
            "Edge cases: " + self.edge_cases,
            "Tie bounds: " + self.tie_bounds_text,
            *(["Intervals: " + self.intervals_doc] if self.intervals_doc else []),
            "perf compatibility: " + self.perf,
        ]
        if self.params:
            lines.append(
                "Parameters: "
                + "; ".join(f"{p.name} (default {p.default}; {p.domain}): {p.doc}" for p in self.params)
            )
        return "\n".join(lines)


class Registry:
    """Measures by canonical name; names, aliases and PERF options resolve case-insensitively."""

    def __init__(self) -> None:
        self._measures: dict[str, Measure] = {}
        self._names: dict[str, str] = {}
        self._refused: dict[str, str] = {}

    def register(self, m: Measure) -> Measure:
        keys = [m.name, *m.aliases]
        for k in keys:
            low = k.lower()
            if low in self._names:
                raise ValueError(f"measure name {k!r} of {m.name} is already used by {self._names[low]}")
            if low in self._refused:
                raise ValueError(f"measure name {k!r} of {m.name} is refused: {self._refused[low]}")
        self._measures[m.name] = m
        for k in keys:
            self._names[k.lower()] = m.name
        return m

    def refuse(self, name: str, why: str) -> None:
        """Make ``name`` an unknown measure whose error says ``why`` (what to write instead): a name
        the literature gives a definition other than the measure it would be an alias of (an alias
        carries no parameters, so it would mean that measure's default form: another number).
        """
        low = name.lower()
        if low in self._names:
            raise ValueError(f"measure name {name!r} is already used by {self._names[low]}")
        self._refused[low] = why

    def amend(self, name: str, **changes: Any) -> Measure:
        """The measure ``name`` (canonical) with ``changes`` to its documentation fields, in place of
        the one registered (its names unchanged): a part that documents what other parts registered
        says so in one block.
        """
        from dataclasses import replace

        if set(changes) - {"intervals_doc"}:
            raise ValueError(f"amend changes documentation only, not {sorted(set(changes))}")
        m = self._measures[name] = replace(self._measures[name], **changes)
        return m

    def __iter__(self) -> Iterator[Measure]:
        return iter(self._measures.values())

    def __len__(self) -> int:
        return len(self._measures)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._names

    def get(self, name: str) -> Measure:
        key = name.lower()
        if key.startswith("-") and key not in self._names:
            hits = self.perf_option_measures(key)
            if len(hits) == 1:
                return hits[0]
            if hits:
                raise UnknownMeasureError(
                    f"PERF option {name!r} selects {len(hits)} measures ({', '.join(m.name for m in hits)}); "
                    "name one of them"
                )
        if key in self._refused:
            raise UnknownMeasureError(f"unknown measure {name!r}: {self._refused[key]}")
        if key not in self._names:
            close = difflib.get_close_matches(key, list(self._names), n=3)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise UnknownMeasureError(
                f"unknown measure {name!r}{hint} (`perfeval list-measures` lists all {len(self)})"
            )
        return self._measures[self._names[key]]

    def perf_option_measures(self, option: str) -> list[Measure]:
        """The measures a PERF option selects (``-break...`` style prefixes included)."""
        opt = option.lower()
        out = []
        for m in self:
            for o in m.perf_options:
                o = o.lower()
                if o == opt or (o.endswith("*") and opt.startswith(o[:-1])):
                    out.append(m)
                    break
        return out

    def by_perf_option(self) -> dict[str, list[Measure]]:
        """PERF option name (lower case) -> the measures it selects."""
        out: dict[str, list[Measure]] = {}
        for m in self:
            for opt in m.perf_options:
                out.setdefault(opt.lower(), []).append(m)
        return out


REGISTRY = Registry()


def get_measure(name: str) -> Measure:
    """Look a measure up by name, alias or PERF option, case-insensitively.

    Raises
    ------
    UnknownMeasureError
        With up to three close matches.

    Examples
    --------
    >>> get_measure("-auc").name
    'ROC'
    >>> get_measure("Average_Precision").name, get_measure("AP_PERF").name
    ('AP', 'APR')
    """
    return REGISTRY.get(name)


def list_measures() -> list[Measure]:
    """All registered measures, in PERF's print order."""
    return list(REGISTRY)
