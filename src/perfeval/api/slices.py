"""``evaluate(..., by=[...])``: every measure per slice, and the gaps between slices.

The door of slices (:func:`request`: which slicings, each column coded once into its keys and the
rows' codes, checked with one line naming the column and the row) and the result users read,
:class:`Slices`, which :attr:`perfeval.engine.report.Report.slices` holds: one row a slice with its
rows, cases, weight, positives, negatives, whether it is below ``min_size``, each measure's value and
why it is undefined; fairlearn's ``MetricFrame`` vocabulary (``by_group``, ``difference``, ``ratio``,
``group_min``, ``group_max``, with ``method="between_groups"`` or ``"to_overall"``, fairlearn's
definitions exactly) and the worst slice.  The slices are finished by
:func:`perfeval.engine.slices.finish_slicing` (the grouped engine, one call a slicing).  The result
(:class:`Slices` and its gaps) lives in :mod:`perfeval.engine.slice_report`, a layer down, because the
streaming, Dask and Metric backends make it too; it is imported here under its names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import ArraySpec, Cases, check_array, column, table_names
from perfeval.engine.slice_report import (  # the result, one layer down (the backends make it too)
    METHODS,
    SliceRow,
    Slices,
    SlicingResult,
    asked,
    attach_results,
    check_options,
    check_slice_count,
    difference_of,
    finish_all,
    named_twice,
    not_a_name,
    ratio_of,
    slicing_result,
)
from perfeval.engine.slices import (
    Missing,
    SliceSource,
    Slicing,
    Task,
    code_column,
    in_order,
)
from perfeval.exceptions import InvalidParameterError
from perfeval.summaries.ranking import group_codes, query_order

__all__ = [
    "METHODS",
    "Slices",
    "SliceRow",
    "SlicingResult",
    "SliceRequest",
    "attach_results",
    "difference_of",
    "finish_all",
    "ratio_of",
    "request",
    "slicing_result",
]


# -- the door: which slicings, each column coded once --------------------------------------------------
@dataclass
class SliceRequest:
    """The slicings asked of one evaluation: the slice columns' values by name (read from the table
    or given), the slicings (a tuple of column names each), how a missing value is taken, the rows'
    weights as given (to find the rows the door drops) and ``min_size``.  The columns are coded when
    the evaluation's cases are checked (:meth:`attach`): the door's own errors come first.
    """

    columns: dict[str, Any]
    wanted: list[tuple[str, ...]]
    weights: Any
    min_size: int | None
    missing: Missing
    position: Any = None
    #: what a missing value is and what makes it a slice, in the caller's words (code_column's)
    words: tuple[str, str] | None = None
    #: where the undefined slices' reasons are listed, in the caller's words (the command: its tables)
    listed: str = "report.slices"

    def slicings(self, n: int, order: np.ndarray | None = None) -> list[Slicing]:
        """Every slicing over ``n`` rows, each column coded once (``order``: the codes then taken in
        that order of the rows).

        Notes
        -----
        The rows' combinations of every slice column are made once (the intersection of all of
        them: J combinations, J <= n), and taken in ``order`` once; each slicing is then made from
        the J combinations (its keys, and the slice of each combination) and its rows' codes taken
        from them when read (:meth:`perfeval.engine.slices.Slicing.coded`), never kept: the
        slicings hold one code a row between them, however many there are (1,023 slicings of ten
        columns), and an intersection costs a pass over J combinations, not over the rows.  The
        keys and codes are those of :func:`perfeval.engine.slices.intersect` over the rows (the
        combinations that hold a row are the intersections that do).
        """
        coded: dict[str, tuple[list, np.ndarray]] = {}
        for name in dict.fromkeys(c for w in self.wanted for c in w):
            keys, codes = code_column(
                name, self.columns[name], missing=self.missing, position=self.position, words=self.words
            )
            if len(codes) != n:
                raise InvalidParameterError(f"by column {name!r} holds {len(codes)} values for {n} rows")
            coded[name] = (keys, codes)
        combination, per = _combinations(coded)
        J = len(next(iter(per.values())))
        check_slice_count(self.wanted, {c: len(k) for c, (k, _) in coded.items()}, J)
        combination = _narrowed(combination, J) if order is None else _taken_in(combination, J, order)
        out = []
        for w in self.wanted:
            parts = [(coded[c][0], per[c]) for c in w]
            out.append(Slicing.of_combinations(w, combination, J, _coder(parts)))
        return out

    def in_score_order(self, cases: Cases, task: Task) -> tuple[Cases, np.ndarray | None]:
        """``cases`` in ascending score order and that order, when every slicing and the overall
        values are finished quicker so and with the same bits (several slicings, binary measures,
        unweighted, no queries); else ``cases`` as given and None.

        Notes
        -----
        One compiled sort (csrc/weighted.c score_order: a radix sort of the scores' bits, which
        gives the scores in order too) for the overall summary and every slicing: the overall
        summary's classes then come sorted (ScoreHistogram.from_checked sorts only what is out of
        order) and each slicing's groups too (csrc/summary.c group_hist_rows).
        Unweighted (no row dropped), every summary is of whole counts: the same bits in any order of
        the rows.
        """
        if len(self.wanted) > 1 and task.kind == "binary" and cases.w is None and cases.g is None:
            s = np.ascontiguousarray(cases.s, dtype=np.float64)
            if len(s) >= 2**32:  # past the radix sort's 4-byte rows
                order = query_order(np.zeros(len(s), dtype=np.int64), s, 1)[::-1]
                return in_order(cases, order), order
            rows, ordered = _native.score_order(s)
            order = np.frombuffer(rows, np.uint32).astype(np.intp)
            return in_order(cases, order, np.frombuffer(ordered, np.float64)), order
        return cases, None

    def attach(
        self,
        report: Any,
        cases: Cases,
        task: Task,
        ordered: tuple[Cases, np.ndarray | None] | None = None,
    ) -> None:
        """Finish every slicing from the checked ``cases`` of ``report`` (``task``: how they were
        finished) into ``report.slices``, and say which slices leave a measure undefined
        (``ordered``: :meth:`in_score_order`'s answer for ``cases``, when the caller made it).
        """
        given = cases  # in the order given: what the slices' intervals resample (Slices.ci)
        cases, order = self.in_score_order(cases, task) if ordered is None else ordered
        slicings = self.slicings(cases.rows_in, order)
        keep = None
        if cases.rows_in != len(cases.s):  # the door dropped the rows of weight 0
            w = check_array(ArraySpec("sample_weight", "floats", finite=True, nonneg=True), self.weights)
            keep = w > 0
        finish_all(
            report,
            cases,
            task,
            slicings,
            keep=keep,
            min_size=self.min_size,
            missing=self.missing,
            listed=self.listed,
        )
        report.slices.source = SliceSource(task, given, self, keep)


def _narrow_type(n: int) -> Any:
    """The narrowest signed integer type holding 0..n-1 (None: int64)."""
    return np.int8 if n <= 127 else np.int16 if n <= 32767 else np.int32 if n <= 2**31 - 1 else None


def _narrowed(codes: np.ndarray, n: int) -> np.ndarray:
    """Codes 0..n-1 as the narrowest integers that hold them (the same codes, fewer bytes a row)."""
    narrow = _narrow_type(n)
    return codes if narrow is None else codes.astype(narrow)


def _taken_in(codes: np.ndarray, n: int, order: np.ndarray) -> np.ndarray:
    """Codes (0..n-1) in another order of the rows, taken as narrow integers (a gather of one or
    two bytes a row rather than eight: the same codes, sooner).
    """
    return np.take(_narrowed(codes, n), order)


def _combinations(coded: Mapping[str, tuple[list, np.ndarray]]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The combinations of every slice column that hold a row: each row's (0..J-1, in the columns'
    order of keys, the first column's first) and each combination's code in each column (J each).
    The intersection of all the columns, made one column after the other as
    :func:`perfeval.engine.slices.intersect` makes it.
    """
    names = list(coded)
    keys, codes = coded[names[0]]
    combination = np.asarray(codes, dtype=np.int64)
    per = {names[0]: np.arange(len(keys), dtype=np.int64)}
    for name in names[1:]:
        more_keys, more_codes = coded[name]
        m = len(more_keys)
        pairs, combination = group_codes(combination * m + np.asarray(more_codes, dtype=np.int64))
        pairs = np.asarray(pairs, dtype=np.int64)
        before = pairs // m if m else pairs
        per = {c: a[before] for c, a in per.items()}
        per[name] = pairs % m if m else pairs
    return combination, per


def _coder(parts: list[tuple[list, np.ndarray]]) -> Any:
    """A slicing's keys and each combination's slice code, from its columns' keys and each
    combination's code in each of them (:func:`perfeval.engine.slices.intersect` over the J
    combinations rather than the rows).
    """

    def code() -> tuple[list, np.ndarray]:
        if len(parts) == 1:
            return list(parts[0][0]), parts[0][1]
        return _intersection(parts)

    return code


#: the combinations of an intersection's columns are coded as one number below this many
RADIX_SPAN = 2**62


def _intersection(parts: list[tuple[list, np.ndarray]]) -> tuple[list[tuple], np.ndarray]:
    """:func:`perfeval.engine.slices.intersect` (the same keys and codes): each combination's codes
    in the columns as one number (mixed radix: its order is the columns' order of keys, the first
    column's first) coded at once, or column after column when that number could pass 2**62; the
    keys made once at the end.
    """
    sizes = [max(len(keys), 1) for keys, _codes in parts]
    if math.prod(sizes) < RADIX_SPAN:
        joint = np.asarray(parts[0][1], dtype=np.int64)
        for m, (_keys, more) in zip(sizes[1:], parts[1:], strict=True):
            joint = joint * m + np.asarray(more, dtype=np.int64)
        present, codes = group_codes(joint)
        rest = np.asarray(present, dtype=np.int64)
        each = []
        for m in reversed(sizes):
            each.append(rest % m)
            rest = rest // m
        each.reverse()
    else:
        codes = np.asarray(parts[0][1], dtype=np.int64)
        each = [np.arange(len(parts[0][0]), dtype=np.int64)]  # each key's code in each column so far
        for more_keys, more_codes in parts[1:]:
            m = len(more_keys)
            pairs, codes = group_codes(codes * m + np.asarray(more_codes, dtype=np.int64))
            pairs = np.asarray(pairs, dtype=np.int64)
            each = [c[pairs // m] for c in each] + [pairs % m]
    columns = [[keys[i] for i in c.tolist()] for (keys, _codes), c in zip(parts, each, strict=True)]
    return list(zip(*columns, strict=True)), codes


def request(
    by: Any,
    table: Any,
    *,
    intersections: Any = False,
    min_size: Any = None,
    missing: Any = "error",
    weights: Any = None,
    taken: Mapping[str, Any] | None = None,
    position: Any = None,
) -> SliceRequest:
    """The slicings of ``by``, their columns found (not yet coded: :meth:`SliceRequest.attach`).

    Parameters
    ----------
    by : str, sequence, mapping or DataFrame
        Column names of ``table`` (a tuple among them names one intersection), a mapping of names to
        arrays, or a DataFrame (or a named Series) of the slice columns.
    table : table or None
        The table the names are read from.
    intersections : bool
        Also every intersection of 2 to all of the single columns named.
    min_size : int or None
        Slices with fewer cases (rows of weight > 0) are flagged.
    missing : {"error", "slice"}
        A missing slice value: an error, or a slice of its own.
    weights : array-like or None
        The rows' weights as given (the rows of weight 0 are dropped before the measures).
    taken : mapping of role -> column name or array, optional
        The columns (or arrays) the evaluation reads as target, score or weight: not a slice column.
    position : callable, optional
        Where a row is, in words, for messages (the command: its file line).
    """
    check_options(intersections, min_size, missing)
    columns, wanted = _columns(by, table, taken or {})
    unique, size = asked(wanted, intersections, min_size)
    return SliceRequest(columns, unique, weights, size, missing, position)


def _columns(by: Any, table: Any, taken: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """The slice columns' values by name, and the slicings asked (a tuple of names each)."""
    if _is_frame(by):  # a DataFrame of the slice columns
        by = {str(c): by[c] for c in by.columns}
    elif hasattr(by, "dtype") and getattr(by, "name", None) is not None and getattr(by, "ndim", 1) == 1:
        by = {str(by.name): by}  # a named Series
    if isinstance(by, Mapping):
        return _given_columns(by, taken)
    if isinstance(by, str):
        by = [by]
    if not isinstance(by, Sequence) or not by:
        raise InvalidParameterError(
            "`by` names the slice columns: a column name, a list of them (a tuple among them an "
            "intersection, ('country', 'device')), a dict of names to arrays, or a DataFrame"
        )
    if table is None or table_names(table) is None:
        raise InvalidParameterError(
            f"by={list(by)!r} names columns of a table: pass the table as the first argument with target= "
            "and score=, or the columns as a dict, by={'country': values, ...}"
        )
    return _named_columns(by, table, taken)


def _given_columns(by: Mapping, taken: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """Slice columns given as arrays by name (``by={"country": values}``): a slicing each."""
    if not by:
        raise InvalidParameterError("`by` names no column")
    columns: dict[str, Any] = {}
    for name, values in by.items():
        if not isinstance(name, str):
            raise InvalidParameterError(f"`by`: a slice column's name is a string, got {name!r}")
        for role, given in taken.items():
            if given is not None and given is values:
                raise InvalidParameterError(
                    f"by column {name!r} is the {role}: a slice column is another column"
                )
        columns[name] = values
    return columns, [(name,) for name in columns]


def _named_columns(
    by: Sequence, table: Any, taken: Mapping[str, Any]
) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """Slice columns named in a table (a tuple of names: one intersection), none of them a column the
    evaluation reads as target, score or weight.
    """
    names_taken: dict[str, str] = {}
    for role, given in taken.items():
        for name in [given] if isinstance(given, str) else given if isinstance(given, (list, tuple)) else []:
            names_taken.setdefault(name, role)
    columns: dict[str, Any] = {}
    wanted: list[tuple[str, ...]] = []
    for item in by:
        group = (item,) if isinstance(item, str) else tuple(item) if isinstance(item, (tuple, list)) else None
        if not group or not all(isinstance(c, str) for c in group):
            raise not_a_name(
                item,
                "pass the columns themselves as a dict of names to arrays (by={'country': values}) or "
                "a DataFrame",
            )
        if len(set(group)) != len(group):
            raise named_twice(group, item)
        for c in group:
            if c in names_taken:
                raise InvalidParameterError(
                    f"by column {c!r} is the {names_taken[c]} column: a slice column is another column"
                )
            if c not in columns:
                columns[c] = column(table, c)
        wanted.append(group)
    return columns, wanted


def _is_frame(x: Any) -> bool:
    return hasattr(x, "columns") and hasattr(x, "iloc") and getattr(x, "ndim", 2) == 2
