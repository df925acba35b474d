"""The slices' part of a report: :class:`Slices` (``report.slices``), each slicing's finished slices
and the gaps between them in fairlearn's vocabulary, and how a report gets them (:func:`finish_all`,
:func:`attach_results`).

In the engine's layer, below the front doors that make it: ``evaluate(..., by=[...])``
(:mod:`perfeval.api.slices`, the door: which slicings, each column coded once) and the streaming,
Dask and Metric backends (:mod:`perfeval.backends.slices`: keys merged by value over chunks).
:mod:`perfeval.api.slices` imports these names, which are documented there.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from perfeval.base.checks import Cases
from perfeval.engine.report import json_number
from perfeval.engine.slices import (
    Missing,
    SliceSource,
    SliceValues,
    Slicing,
    Task,
    combination_counts,
    finish_slicing,
    slice_counts,
    slicing_name,
)
from perfeval.exceptions import InvalidParameterError, UndefinedMeasureWarning, user_stacklevel
from perfeval.measures import parse_measure
from perfeval.measures.spec import with_threshold

# pandas is imported where a frame is made (frame, by_group).

__all__ = [
    "METHODS",
    "Slices",
    "SliceRow",
    "SlicingResult",
    "asked",
    "attach_results",
    "check_options",
    "check_slice_count",
    "needs_by",
    "named_twice",
    "not_a_name",
    "difference_of",
    "finish_all",
    "ratio_of",
    "slicing_result",
]

#: the methods of difference() and ratio(): fairlearn's two, and against a named slice
METHODS = ("between_groups", "to_overall", "to_reference")


def check_options(intersections: Any, min_size: Any, missing: Any) -> None:
    """The slice options checked: one line each."""
    if not isinstance(intersections, (bool, np.bool_)):
        raise InvalidParameterError(f"`intersections` must be True or False, got {intersections!r}")
    if missing not in ("error", "slice"):
        raise InvalidParameterError(
            f"`missing` must be 'error' (a missing slice value is refused) or 'slice' (a slice of its own), "
            f"got {missing!r}"
        )
    if min_size is not None and (
        isinstance(min_size, (bool, np.bool_)) or not isinstance(min_size, numbers.Integral) or min_size < 1
    ):
        raise InvalidParameterError(f"`min_size` must be a whole number >= 1 (cases), got {min_size!r}")


def needs_by(intersections: Any, min_size: Any, missing: Any) -> None:
    """The slice options given without ``by=``: one line, not dropped (a report without slices would
    read as if ``min_size`` had been honoured).
    """
    for what, given in (
        ("intersections", intersections is not False),
        ("min_size", min_size is not None),
        ("missing", missing != "error"),
    ):
        if given:
            raise InvalidParameterError(f"{what}= is an option of the slices: it needs by=[...]")


def not_a_name(item: Any, instead: str) -> InvalidParameterError:
    """The error of an item of a ``by=`` list that is neither a column name nor a tuple of them, in
    one short line: an array (a Series, a list of values) is described, not printed; ``instead`` says
    how the columns themselves are given.
    """
    if (
        hasattr(item, "__len__")
        and not isinstance(item, (str, tuple))
        and (hasattr(item, "dtype") or isinstance(item, list))
    ):
        name = getattr(item, "name", None)
        named = f" {str(name)!r}" if isinstance(name, str) else ""
        what = f"a {type(item).__name__}{named} of {len(item):,} values"
    else:
        what = repr(item) if len(repr(item)) <= 60 else f"a {type(item).__name__}"
    return InvalidParameterError(
        f"`by`: {what} is not a column name or a tuple of names (an intersection): {instead}"
    )


def named_twice(group: tuple[str, ...], item: Any) -> InvalidParameterError:
    """The error of an intersection naming a column twice, in one short line (a list of a column's
    values given among the names is no intersection: it is not printed whole).
    """
    again = next(c for i, c in enumerate(group) if c in group[:i])
    shown_item = repr(item) if len(repr(item)) <= 80 else f"of {len(group):,} names"
    return InvalidParameterError(f"`by`: the intersection {shown_item} names the column {again!r} twice")


#: ``intersections=True`` (``--intersections``) makes at most this many slicings (2^10: each of 10
#: columns and every intersection of 2 to 10 of them).  The slicings' codes are made one slicing at a
#: time (memory of the rows, not of the rows times the slicings: SliceRequest.slicings), but the time
#: and the slices' values grow with the 2^k - 1 slicings of k columns: name the intersections wanted
MAX_SLICINGS = 1024


#: the slices an evaluation may make, estimated before any is (each slicing's: the product of its
#: columns' distinct values, at most the combinations of every slice column that hold a row).  Each
#: slice is a key (a tuple of values for an intersection), its counts and each measure's value: past
#: this, high-cardinality columns crossed (ids, zip codes) would hold gigabytes of keys and take
#: minutes to say nothing a reader can use.  A constant, as :data:`MAX_SLICINGS` is.
MAX_SLICES = 10_000_000


def check_slice_count(
    wanted: Sequence[tuple[str, ...]], distinct: Mapping[str, int], combinations: int
) -> None:
    """Refuse, in one line naming the columns and the estimate, slicings that would make more than
    :data:`MAX_SLICES` slices (``distinct``: each column's distinct values, its missing slice
    included; ``combinations``: how many combinations of every slice column hold a row), before
    any slice's key is made.
    """
    each = [
        (distinct[w[0]] if len(w) == 1 else min(math.prod(distinct[c] for c in w), combinations), w)
        for w in wanted
    ]
    total = sum(n for n, _ in each)
    if total <= MAX_SLICES:
        return
    biggest = max(each, key=lambda e: e[0])
    columns = sorted(dict.fromkeys(c for w in wanted for c in w), key=lambda c: -distinct[c])
    named = ", ".join(f"{c!r} ({distinct[c]:,} values)" for c in columns[:3]) + (
        f" and {len(columns) - 3} more" if len(columns) > 3 else ""
    )
    raise InvalidParameterError(
        f"by: {len(wanted):,} slicing{'' if len(wanted) == 1 else 's'} of {named} would make up to "
        f"{total:,} slices ({slicing_name(biggest[1])!r} up to {biggest[0]:,}), more than {MAX_SLICES:,}: "
        "slice by fewer or coarser columns (bin them first), or name the intersections wanted"
    )


def _check_intersections(wanted: list[tuple[str, ...]], singles: list[str]) -> None:
    """Refuse ``intersections`` that would make more than :data:`MAX_SLICINGS` slicings, in one line
    saying how many, before any is made.
    """
    k = len(singles)
    if k <= 10:  # 2^10 - 1 with the columns alone, and the explicit ones: counted exactly below
        return
    position = {c: i for i, c in enumerate(singles)}
    unique = set(wanted)
    # the explicit intersections that --intersections makes too (its columns in the same order)
    made_too = sum(
        1
        for w in unique
        if len(w) > 1
        and all(c in position for c in w)
        and [position[c] for c in w] == sorted(position[c] for c in w)
    )
    n = len(unique) + (2**k - 1 - k) - made_too
    if n > MAX_SLICINGS:
        raise InvalidParameterError(
            f"intersections of {k} columns would make {n:,} slicings (each column and every intersection of "
            f"2 to {k} of them), more than {MAX_SLICINGS:,} (2^10): name the intersections wanted, "
            f"by=[{singles[0]!r}, ({singles[0]!r}, {singles[1]!r})] (each tuple one intersection), or "
            "fewer columns"
        )


def asked(
    wanted: list[tuple[str, ...]], intersections: Any, min_size: Any
) -> tuple[list[tuple[str, ...]], int | None]:
    """The slicings asked (``wanted``, and with ``intersections`` every intersection of 2 to all of
    its single columns), each once, and ``min_size`` as a number; a column named like an
    intersection of others refused (one name, two slicings).
    """
    wanted = list(wanted)
    if intersections:
        singles = [w[0] for w in wanted if len(w) == 1]
        _check_intersections(wanted, singles)
        for k in range(2, len(singles) + 1):
            wanted += [tuple(c) for c in itertools.combinations(singles, k)]
    unique = list(dict.fromkeys(wanted))  # a slicing asked twice is one
    named: dict[str, tuple[str, ...]] = {}
    for w in unique:  # a column named "a x b" and the intersection of a and b: one name, two slicings
        other = named.setdefault(slicing_name(w), w)
        if other != w:
            inter = w if len(w) > 1 else other
            raise InvalidParameterError(
                f"the slicing name {slicing_name(w)!r} is both a column's and the intersection of "
                f"{', '.join(map(repr, inter))}'s: rename the column"
            )
    return unique, None if min_size is None else int(min_size)


def finish_all(
    report: Any,
    cases: Cases,
    task: Task,
    slicings: Sequence[Slicing],
    *,
    keep: np.ndarray | None = None,
    min_size: int | None = None,
    missing: Missing = "error",
    listed: str = "report.slices",
) -> None:
    """Finish every slicing from the checked ``cases`` (``keep``: which of the slicings' rows the door
    kept, the rows of weight 0 being dropped) into ``report.slices`` (:func:`attach_results`, which
    says the undefined slices ``listed`` there).
    """
    results = []
    combination = slicings[0].combination if slicings else None
    counts = None
    if keep is None and combination is not None and all(sl.combination is combination for sl in slicings):
        # each combination of the slice columns counted once: a slicing's counts are its
        # combinations' added up (a pass over the combinations, not over the rows)
        counts = combination_counts(task, cases, combination, slicings[0].n_combinations)
    for sl in slicings:  # one slicing's codes at a time (made on demand: never all of them at once)
        if counts is not None:
            keys, table = sl.combination_codes()
            codes = sl.codes_of(table)
            these = slice_counts(counts, table, len(keys))
            values = finish_slicing(task, cases, codes, len(keys), counts=these)
            del codes, table
            results.append(slicing_result(sl.columns, keys, values, min_size))
            continue
        keys, codes = sl.coded()
        if keep is not None:
            rows = np.bincount(codes, minlength=len(keys))
            values = finish_slicing(task, cases, codes[keep], len(keys), rows=rows)
        else:  # every row a case: finish_slicing counts the slices' rows once, as its cases
            values = finish_slicing(task, cases, codes, len(keys))
        del codes
        results.append(slicing_result(sl.columns, keys, values, min_size))
    attach_results(report, results, task, min_size=min_size, missing=missing, listed=listed)


def slicing_result(
    columns: tuple[str, ...], keys: list, values: SliceValues, min_size: int | None
) -> SlicingResult:
    """One slicing's finished slices, those with fewer cases than ``min_size`` flagged."""
    flagged = np.zeros(len(keys), dtype=bool) if min_size is None else values.cases < min_size
    return SlicingResult(columns, keys, values, flagged)


def attach_results(
    report: Any,
    results: list[SlicingResult],
    task: Task,
    *,
    min_size: int | None,
    missing: Missing,
    listed: str = "report.slices",
) -> None:
    """The finished slicings as ``report.slices`` (the overall values the report's), named in
    ``report.params``, and which slices leave a measure undefined said (a few warnings in all,
    :func:`_say_undefined`; ``listed``: where the user reads every reason, in the caller's words).
    """
    labels = results[0].values.values if results else {}
    overall = {label: r.value for label, r in report.results.items() if label in labels}
    directions: dict[str, str] = {label: task.spec_of(label).direction for label in overall}
    report.slices = Slices(results, overall, directions, min_size, report.params.get("threshold", 0.5))
    report.params["slices"] = {
        "by": [res.name for res in results],
        "min_size": min_size,
        "missing": missing,
    }
    _say_undefined(results, listed)


# -- the result ----------------------------------------------------------------------------------------
@dataclass
class SlicingResult:
    """One slicing's slices: its columns, its keys, the values of :func:`finish_slicing`, and which
    slices are below ``min_size`` (``flagged``).
    """

    columns: tuple[str, ...]
    keys: list
    values: SliceValues
    flagged: np.ndarray

    @property
    def name(self) -> str:
        return slicing_name(self.columns)

    def __len__(self) -> int:
        return len(self.keys)


class SliceRow(NamedTuple):
    """One slice and one measure's value there (:meth:`Slices.worst`)."""

    slicing: str
    key: Any
    value: float
    rows: int
    cases: int
    weight: float
    positives: float | None
    negatives: float | None
    flagged: bool


class Slices:
    """Every measure per slice: ``report.slices`` of ``evaluate(..., by=[...])``.

    One slicing a column of ``by`` (and, with ``intersections=True`` or a tuple in ``by``, an
    intersection of columns); one slice a key of it (a value, or a tuple of values).  Every slice
    that holds a row is listed, also when every measure is undefined there (one class only, weight
    0): its values are NaN, and the reason is beside them.

    Parameters mean what fairlearn's ``MetricFrame`` means by them: ``by_group`` is its ``by_group``;
    :meth:`difference`, :meth:`ratio`, :meth:`group_min` and :meth:`group_max` its methods, with
    ``method="between_groups"`` (the greatest value minus the least; the least over the greatest) or
    ``"to_overall"`` (the greatest absolute difference to the value over every case; the least ratio
    to it, each ratio above 1 inverted), and ``"to_reference"`` (to a slice named by ``reference=``).
    The undefined slices are left out (fairlearn's pandas does so silently), and said in an
    :class:`~perfeval.exceptions.UndefinedMeasureWarning`.

    Examples
    --------
    >>> import perfeval
    >>> r = perfeval.evaluate([1, 0, 1, 0, 1, 0], [0.9, 0.2, 0.6, 0.7, 0.4, 0.3], measures=["roc"],
    ...                       by={"site": ["a", "a", "a", "b", "b", "b"]})
    >>> r.slices.by_group()["ROC"].tolist()
    [1.0, 0.5]
    >>> r.slices.difference("roc"), r.slices.ratio("roc"), r.slices.worst("roc")[0].key
    (0.5, 0.5, 'b')
    """

    #: the cases the slices were finished from, for their intervals (:func:`perfeval.stats.slice_ci`);
    #: None for slices made from summaries (streams, Dask, ``Metric``)
    source: SliceSource | None = None
    #: the last intervals :func:`perfeval.stats.slice_ci` gave of these slices (in ``to_dict()``)
    intervals: Any = None

    def __init__(
        self,
        slicings: list[SlicingResult],
        overall: dict[str, float],
        directions: dict[str, str],
        min_size: int | None,
        threshold: float = 0.5,
    ):
        self.slicings = slicings
        #: each measure's value over every case (the report's)
        self.overall = overall
        self.directions = directions
        self.min_size = min_size
        self._threshold = threshold

    # -- naming ----------------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """The slicings' names (``country``, ``country x device``)."""
        return [s.name for s in self.slicings]

    @property
    def measures(self) -> list[str]:
        """The measures' labels, in the report's order."""
        return list(self.overall)

    def __len__(self) -> int:
        return len(self.slicings)

    def __repr__(self) -> str:
        parts = [f"{s.name}: {len(s)} slices" for s in self.slicings]
        return f"<Slices of {', '.join(self.measures)}; {'; '.join(parts)}>"

    def slicing(self, slicing: Any = None) -> SlicingResult:
        """A slicing by its name (``"country x device"``), its columns (``("country", "device")``), or
        None when there is one.
        """
        if slicing is None:
            if len(self.slicings) == 1:
                return self.slicings[0]
            raise InvalidParameterError(
                f"name the slicing: one of {', '.join(repr(n) for n in self.names)} (slicing=...)"
            )
        name = slicing_name(slicing) if isinstance(slicing, (tuple, list)) else slicing
        for s in self.slicings:
            if s.name == name:
                return s
        raise InvalidParameterError(
            f"no slicing {slicing!r}: the slicings are {', '.join(repr(n) for n in self.names)}"
        )

    def label(self, measure: Any) -> str:
        """A measure's label by any spelling of it (``"auc"`` is ``ROC``)."""
        if measure in self.overall:
            return str(measure)
        try:
            spec = with_threshold(parse_measure(measure), self._threshold)
        except Exception:  # not a measure spec: said below with the labels there are
            spec = None
        if spec is not None:
            if spec.label in self.overall:
                return spec.label
            for k in self.overall:
                try:
                    other = parse_measure(k)
                except Exception:  # a partition's label
                    continue
                if other.measure is spec.measure and other.kwargs == spec.kwargs:
                    return k
        raise InvalidParameterError(
            f"{measure!r} is not a measure of these slices ({', '.join(self.overall)})"
        )

    # -- tables ----------------------------------------------------------------------------------------
    def frame(self):
        """One row a slice, every slicing (pandas): index (slicing, slice); columns rows, cases,
        weight, positives, negatives, flagged, each measure's value (NaN where undefined), then
        ``why_<measure>``: why a value is no finite number (None where it is one).
        """
        pd = _pandas()
        index: list[tuple] = []
        cols: dict[str, list] = {
            k: [] for k in ("rows", "cases", "weight", "positives", "negatives", "flagged")
        }
        for m in self.measures:
            cols[m] = []
        whys: dict[str, list] = {f"why_{m}": [] for m in self.measures}
        for s in self.slicings:
            v = s.values
            for i, key in enumerate(s.keys):
                index.append((s.name, key))
                cols["rows"].append(int(v.rows[i]))
                cols["cases"].append(int(v.cases[i]))
                cols["weight"].append(float(v.weight[i]))
                cols["positives"].append(math.nan if v.positives is None else float(v.positives[i]))
                cols["negatives"].append(math.nan if v.negatives is None else float(v.negatives[i]))
                cols["flagged"].append(bool(s.flagged[i]))
                for m in self.measures:
                    cols[m].append(float(v.values[m][i]))
                    whys[f"why_{m}"].append(v.reasons.get(m, {}).get(i))
        keys = pd.Index([k for _, k in index], dtype=object, tupleize_cols=False)
        idx = pd.MultiIndex.from_arrays(
            [pd.Index([n for n, _ in index], dtype=object), keys], names=["slicing", "slice"]
        )
        return pd.DataFrame({**cols, **whys}, index=idx)

    def by_group(self, slicing: Any = None):
        """The ``MetricFrame.by_group`` of fairlearn: one row a slice of the slicing (index its keys, a
        MultiIndex named after the columns for an intersection), one column a measure.
        """
        pd = _pandas()
        s = self.slicing(slicing)
        if len(s.columns) == 1:
            index = pd.Index(s.keys, name=s.columns[0], tupleize_cols=False)
        else:
            index = pd.MultiIndex.from_tuples(s.keys, names=list(s.columns))
        return pd.DataFrame({m: s.values.values[m] for m in self.measures}, index=index)

    # -- gaps ------------------------------------------------------------------------------------------
    def _defined(
        self, measure: str, s: SlicingResult, what: str, skip_flagged: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """A measure's values in a slicing and which ones the gap reads (defined; not flagged if
        ``skip_flagged``), the undefined ones said in a warning.
        """
        vals = np.asarray(s.values.values[measure], dtype=np.float64)
        ok = ~np.isnan(vals)
        left = np.flatnonzero(~ok)
        if len(left):
            shown = ", ".join(repr(s.keys[i]) for i in left[:5].tolist()) + (", ..." if len(left) > 5 else "")
            warnings.warn(
                UndefinedMeasureWarning(
                    f"{measure} is undefined in {len(left)} of {len(vals)} slices of {s.name!r} ({shown}), "
                    f"left out of the {what} (slices.frame() says why)"
                ),
                stacklevel=user_stacklevel(),
            )
        if skip_flagged:
            ok &= ~s.flagged
        return vals, ok

    def _each(self, measure: Any, fn: Any) -> Any:
        if measure is None:
            return {m: fn(m) for m in self.measures}
        return fn(self.label(measure))

    def _method(self, method: Any, reference: Any) -> str:
        if method is None:
            return "to_reference" if reference is not None else "between_groups"
        if method not in METHODS:
            raise InvalidParameterError(f"`method` must be one of {', '.join(METHODS)}, got {method!r}")
        if (method == "to_reference") != (reference is not None):
            raise InvalidParameterError(
                "reference= names the slice of method='to_reference' (and only of it)"
                if reference is not None
                else "method='to_reference' needs reference=, the key of a slice"
            )
        return str(method)

    def _reference(self, measure: str, s: SlicingResult, reference: Any) -> float:
        key = tuple(reference) if isinstance(reference, list) else reference
        try:
            i = s.keys.index(key)
        except ValueError:
            shown = ", ".join(repr(k) for k in s.keys[:5]) + (", ..." if len(s.keys) > 5 else "")
            raise InvalidParameterError(
                f"reference={reference!r} is not a slice of {s.name!r} (its slices: {shown})"
            ) from None
        v = float(s.values.values[measure][i])
        if math.isnan(v):
            why = s.values.reasons.get(measure, {}).get(i, "undefined")
            raise InvalidParameterError(f"reference slice {reference!r} has no {measure} value: {why}")
        return v

    def _target(self, measure: str, s: SlicingResult, method: str, reference: Any) -> float:
        if method == "to_overall":
            return float(self.overall[measure])
        return self._reference(measure, s, reference)

    def difference(
        self,
        measure: Any = None,
        slicing: Any = None,
        *,
        method: str | None = None,
        reference: Any = None,
        skip_flagged: bool = False,
    ) -> Any:
        """The ``difference()`` of fairlearn: the greatest absolute difference between slices.

        Parameters
        ----------
        measure : str, optional
            One measure (any spelling: ``"auc"``); None: every measure, as a dict.
        slicing : str or tuple, optional
            The slicing (None when there is one).
        method : {"between_groups", "to_overall", "to_reference"}, optional
            ``between_groups`` (default): max - min over the slices; ``to_overall``: max |v - overall|;
            ``to_reference`` (the default when ``reference`` is given): max |v - v(reference)|.
        reference : key, optional
            The slice compared with (``"FR"``; an intersection's tuple ``("FR", "mobile")``).
        skip_flagged : bool
            Leave out the slices below ``min_size`` too.

        Returns
        -------
        float, or dict of label -> float
            NaN when no slice is defined.
        """
        method = self._method(method, reference)
        s = self.slicing(slicing)

        def one(m: str) -> float:
            vals, ok = self._defined(m, s, "difference", skip_flagged)
            target = math.nan if method == "between_groups" else self._target(m, s, method, reference)
            return difference_of(vals[ok], method, target)

        return self._each(measure, one)

    def ratio(
        self,
        measure: Any = None,
        slicing: Any = None,
        *,
        method: str | None = None,
        reference: Any = None,
        skip_flagged: bool = False,
    ) -> Any:
        """The ``ratio()`` of fairlearn: ``between_groups`` min / max over the slices; ``to_overall`` (or
        ``to_reference``) the least of each slice's ratio to the overall (reference) value, a ratio
        above 1 inverted.  Arguments as for :meth:`difference`.
        """
        method = self._method(method, reference)
        s = self.slicing(slicing)

        def one(m: str) -> float:
            vals, ok = self._defined(m, s, "ratio", skip_flagged)
            target = math.nan if method == "between_groups" else self._target(m, s, method, reference)
            return ratio_of(vals[ok], method, target)

        return self._each(measure, one)

    def group_min(self, measure: Any = None, slicing: Any = None, *, skip_flagged: bool = False) -> Any:
        """The ``group_min()`` of fairlearn: the least value over the defined slices."""
        s = self.slicing(slicing)

        def one(m: str) -> float:
            vals, ok = self._defined(m, s, "minimum", skip_flagged)
            return float(vals[ok].min()) if ok.any() else math.nan

        return self._each(measure, one)

    def group_max(self, measure: Any = None, slicing: Any = None, *, skip_flagged: bool = False) -> Any:
        """The ``group_max()`` of fairlearn: the greatest value over the defined slices."""
        s = self.slicing(slicing)

        def one(m: str) -> float:
            vals, ok = self._defined(m, s, "maximum", skip_flagged)
            return float(vals[ok].max()) if ok.any() else math.nan

        return self._each(measure, one)

    def worst(
        self, measure: Any, slicing: Any = None, k: int = 1, *, skip_flagged: bool = False
    ) -> list[SliceRow]:
        """The ``k`` worst slices by the measure's direction (the least values of a measure where
        higher is better), worst first; among equal values, in key order.  The undefined slices are
        left out (said); a measure with no better direction (a calibration slope) is refused.
        """
        m = self.label(measure)
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
            raise InvalidParameterError(f"`k` must be a whole number >= 1, got {k!r}")
        direction = self.directions.get(m, "none")
        if direction == "none":
            raise InvalidParameterError(
                f"{m} has no better direction (its ideal is a value, not an end): there is no worst slice; "
                "difference(..., method='to_overall') or a reference= says how far each slice is"
            )
        s = self.slicing(slicing)
        vals, ok = self._defined(m, s, "worst", skip_flagged)
        idx = np.flatnonzero(ok)
        key = vals[idx] if direction == "higher" else -vals[idx]
        order = idx[np.argsort(key, kind="stable")][:k]
        return [self._row(s, m, int(i)) for i in order.tolist()]

    def _row(self, s: SlicingResult, m: str, i: int) -> SliceRow:
        v = s.values
        return SliceRow(
            s.name,
            s.keys[i],
            float(v.values[m][i]),
            int(v.rows[i]),
            int(v.cases[i]),
            float(v.weight[i]),
            None if v.positives is None else float(v.positives[i]),
            None if v.negatives is None else float(v.negatives[i]),
            bool(s.flagged[i]),
        )

    # -- JSON ------------------------------------------------------------------------------------------
    def gaps(self, s: SlicingResult) -> dict[str, Any]:
        """A slicing's gaps for JSON, per measure: difference and ratio (between slices, to the
        overall value), the least and greatest slice, the worst slice (by the measure's direction),
        and the undefined slices left out of them.  No warning (the slices' reasons are in the JSON).
        """
        out: dict[str, Any] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            for m in self.measures:
                vals = np.asarray(s.values.values[m], dtype=np.float64)
                ok = ~np.isnan(vals)
                d: dict[str, Any] = {
                    "between_groups": {
                        "difference": json_number(self.difference(m, s.name, method="between_groups")),
                        "ratio": json_number(self.ratio(m, s.name, method="between_groups")),
                    },
                    "to_overall": {
                        "difference": json_number(self.difference(m, s.name, method="to_overall")),
                        "ratio": json_number(self.ratio(m, s.name, method="to_overall")),
                    },
                    "undefined": [_json_key(s.keys[i]) for i in np.flatnonzero(~ok).tolist()],
                }
                for what in ("between_groups", "to_overall"):
                    for g in ("difference", "ratio"):
                        if d[what][g] is None:
                            value = (self.difference if g == "difference" else self.ratio)(
                                m, s.name, method=what
                            )
                            d[what][f"{g}_why_null"] = _gap_why(vals, self.overall.get(m), what, g, value)
                if ok.any():
                    lo, hi = (
                        int(np.flatnonzero(ok)[np.argmin(vals[ok])]),
                        int(np.flatnonzero(ok)[np.argmax(vals[ok])]),
                    )
                    d["min"] = _extreme(s.keys[lo], float(vals[lo]))
                    d["max"] = _extreme(s.keys[hi], float(vals[hi]))
                direction = self.directions.get(m, "none")
                if direction != "none" and ok.any():
                    w = self.worst(m, s.name)[0]
                    d["worst"] = _extreme(w.key, float(w.value))
                elif direction == "none":
                    d["worst_why_null"] = f"{m} has no better direction: no worst slice"
                else:
                    d["worst_why_null"] = "undefined in every slice"
                out[m] = d
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every slicing for JSON: each slice with its rows, cases, weight, positives, negatives,
        flagged, values (null where no finite number, with ``why_null``), and the gaps.
        """
        out: dict[str, Any] = {"min_size": self.min_size, "slicings": []}
        for s in self.slicings:
            v = s.values
            slices = []
            for i, key in enumerate(s.keys):
                d: dict[str, Any] = {
                    "slice": _json_key(key),
                    "rows": int(v.rows[i]),
                    "cases": int(v.cases[i]),
                    "weight": float(v.weight[i]),
                }
                if v.positives is not None and v.negatives is not None:
                    d["positives"] = float(v.positives[i])
                    d["negatives"] = float(v.negatives[i])
                if v.groups is not None:
                    d["groups"] = int(v.groups[i])
                d["flagged"] = bool(s.flagged[i])
                d["values"] = {m: json_number(v.values[m][i]) for m in self.measures}
                why = {m: v.reasons[m][i] for m in self.measures if i in v.reasons.get(m, {})}
                if why:
                    d["why_null"] = why
                slices.append(d)
            out["slicings"].append(
                {"slicing": s.name, "columns": list(s.columns), "slices": slices, "gaps": self.gaps(s)}
            )
        if self.intervals is not None:
            out["intervals"] = self.intervals.to_dict()
        return out


def difference_of(values: np.ndarray, method: str, target: float = math.nan) -> float:
    """The fairlearn ``difference()`` of one metric's values by group (NaN left out, as pandas'
    ``max`` and ``min`` leave it out): ``between_groups`` max - min; otherwise the greatest
    ``|v - target|`` (``target``: the overall value, or a reference slice's).  NaN when no value is
    defined.

    Infinite values are taken as they are: a gap between an infinity and any other value is
    infinite; between two equal infinities (every slice at +infinity; a slice and the target both
    at it) infinity minus infinity has no value: ``between_groups`` is then NaN, and ``to_overall``
    leaves those slices out (fairlearn's pandas gives the same NaN and leaves them out the same way).

    Examples
    --------
    >>> inf = float("inf")
    >>> [difference_of(np.array(v), "between_groups") for v in ([inf, 0.3], [inf, inf])]
    [inf, nan]
    >>> difference_of(np.array([inf, 0.3]), "to_overall", inf)  # the slice at +inf left out: |0.3 - inf|
    inf
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v):
        return math.nan
    if method == "between_groups":
        hi, lo = float(v.max()), float(v.min())
        return math.nan if hi == lo and math.isinf(hi) else hi - lo
    v = v[~(np.isinf(v) & (v == target))]  # infinity minus itself: no value, left out
    d = np.abs(v - target)
    return float(np.max(d[~np.isnan(d)])) if len(d) and not np.isnan(d).all() else math.nan


def ratio_of(values: np.ndarray, method: str, target: float = math.nan) -> float:
    """The fairlearn ``ratio()`` of one metric's values by group (NaN left out): ``between_groups``
    min / max; otherwise the least ``v / target``, each ratio above 1 inverted (a division by 0 is
    an infinity, inverted to 0; 0 / 0 is NaN, left out).  NaN when no value is defined.

    Infinite values: a finite value over an infinite one is 0 (so is its inverse), and an infinity
    over an infinity, like 0 / 0, has no value: ``between_groups`` is then NaN (the least and the
    greatest both infinite, or both 0), and ``to_overall`` leaves those slices out (fairlearn's
    numbers, without numpy's warnings).

    Examples
    --------
    >>> inf = float("inf")
    >>> [ratio_of(np.array(v), "between_groups") for v in ([inf, 0.3], [inf, inf])]
    [0.0, nan]
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v):
        return math.nan
    if method == "between_groups":
        lo, hi = float(v.min()), float(v.max())
        if (math.isinf(lo) and math.isinf(hi)) or lo == hi == 0:
            return math.nan
        with np.errstate(divide="ignore"):
            return float(np.float64(lo) / np.float64(hi))
    if math.isnan(target):
        return math.nan
    v = v[~((np.isinf(v) & math.isinf(target)) | ((v == 0) & (target == 0)))]  # no value: left out
    if not len(v):
        return math.nan
    with np.errstate(divide="ignore"):
        r = v / target
    with np.errstate(divide="ignore"):
        r = np.where(r > 1, 1 / np.where(r > 1, r, 1.0), r)
    return float(np.min(r))


def _gap_why(vals: np.ndarray, overall: float | None, what: str, gap: str, value: float) -> str:
    """Why a gap of the JSON is null: infinite (its sign), no slice defined, no overall value, or a
    difference or ratio with no value (infinity minus itself, 0 / 0, infinity over infinity).
    """
    if math.isinf(value):
        return "+infinity" if value > 0 else "-infinity"
    ok = ~np.isnan(vals)
    if not ok.any():
        return "undefined in every slice"
    if what == "to_overall" and (overall is None or math.isnan(overall)):
        return "the overall value is undefined"
    if gap == "difference":
        return "undefined (not a number): infinity minus infinity (every value compared is one infinity)"
    return "undefined (not a number): a ratio of 0 to 0 or of infinity to infinity"


def _extreme(key: Any, value: float) -> dict[str, Any]:
    """The least, greatest or worst slice for JSON: its key and value (an infinity: null, its sign
    said in ``why_null``).
    """
    d = {"slice": _json_key(key), "value": json_number(value)}
    if math.isinf(value):
        d["why_null"] = "+infinity" if value > 0 else "-infinity"
    return d


def _json_key(key: Any) -> Any:
    """A slice key for JSON: strings, integers and booleans as they are, an intersection as a list,
    anything else (a pandas Interval, a date) as text.
    """
    if isinstance(key, tuple):
        return [_json_key(k) for k in key]
    if isinstance(key, np.generic):
        key = key.item()
    return key if isinstance(key, (str, int, bool)) else str(key)


#: the slicings a warning of undefined slices names (the rest counted), and the warnings said (one a
#: set of measures undefined together; the sets past these counted in one more line)
SAID_SLICINGS = 3
SAID_KINDS = 5


def _say_undefined(results: Sequence[SlicingResult], listed: str = "report.slices") -> None:
    """The measures undefined in some slices, said in a bounded number of warnings: one a set of
    measures undefined in the same slices of a slicing (however many slicings: 1,023 intersections of
    ten columns give a few lines, not a thousand).  One slicing: its slices named (up to five, with
    why); several: the first :data:`SAID_SLICINGS` named with their count and first slice, the rest
    counted.  ``listed``: where the user finds every reason (the command's words: its tables).
    """
    kinds: dict[tuple[str, ...], list[tuple[SlicingResult, tuple[int, ...]]]] = {}
    for res in results:
        together: dict[tuple, list[str]] = {}
        for m, reasons in res.values.reasons.items():
            nan = tuple(i for i, why in sorted(reasons.items()) if not why.endswith("infinity"))
            if nan:
                together.setdefault(nan, []).append(m)
        for idx, measures in together.items():
            kinds.setdefault(tuple(measures), []).append((res, idx))
    tail = f"listed in {listed} with the reason, and left out of the gaps"
    for labels, hits in list(kinds.items())[:SAID_KINDS]:
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        verb = "is" if len(labels) == 1 else "are"
        if len(hits) == 1:
            res, idx = hits[0]
            first = res.values.reasons[labels[0]]
            shown = "; ".join(f"{res.keys[i]!r}: {first[i].split(': ')[0]}" for i in idx[:5]) + (
                "; ..." if len(idx) > 5 else ""
            )
            said = f"{len(idx)} of {len(res)} slices of {res.name!r} ({shown})"
        else:
            each = []
            for res, idx in hits[:SAID_SLICINGS]:
                why = res.values.reasons[labels[0]][idx[0]].split(": ")[0]
                each.append(f"{res.name!r}: {len(idx)} of {len(res)}, first {res.keys[idx[0]]!r}: {why}")
            more = len(hits) - SAID_SLICINGS
            if more > 0:
                each.append(f"and {more:,} more slicing{'' if more == 1 else 's'}")
            n = sum(len(idx) for _, idx in hits)
            said = f"{n:,} slices of {len(hits):,} slicings ({'; '.join(each)})"
        warnings.warn(
            UndefinedMeasureWarning(f"{named} {verb} undefined in {said}; {tail}"),
            stacklevel=user_stacklevel(),
        )
    if len(kinds) > SAID_KINDS:
        rest = list(kinds.items())[SAID_KINDS:]
        n = sum(len(idx) for _, hits in rest for _, idx in hits)
        warnings.warn(
            UndefinedMeasureWarning(
                f"and {len(rest)} more sets of measures are undefined in {n:,} slices in all; {tail}"
            ),
            stacklevel=user_stacklevel(),
        )


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        from perfeval.exceptions import MissingDependencyError

        raise MissingDependencyError(
            "this needs pandas: pip install pandas (or pip install 'perfeval[all]')"
        ) from None
    return pd
