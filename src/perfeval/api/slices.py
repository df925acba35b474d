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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval.base.checks import ArraySpec, Cases, check_array, column, table_names
from perfeval.engine.slice_report import (  # the result, one layer down (the backends make it too)
    METHODS,
    SliceRow,
    Slices,
    SlicingResult,
    asked,
    attach_results,
    check_options,
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
    intersect,
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

    def slicings(self, n: int, order: np.ndarray | None = None) -> list[Slicing]:
        """Every slicing over ``n`` rows, each column coded once (``order``: each column's codes then
        taken in that order of the rows, the intersections made from them).
        """
        coded: dict[str, tuple[list, np.ndarray]] = {}
        for name in dict.fromkeys(c for w in self.wanted for c in w):
            keys, codes = code_column(
                name, self.columns[name], missing=self.missing, position=self.position, words=self.words
            )
            if len(codes) != n:
                raise InvalidParameterError(f"by column {name!r} holds {len(codes)} values for {n} rows")
            coded[name] = (keys, codes if order is None else _taken_in(codes, len(keys), order))
        out = []
        joined: dict[tuple[str, ...], tuple[list, np.ndarray]] = {}  # each intersection made once
        for w in self.wanted:
            if len(w) == 1:
                keys, codes = coded[w[0]]
            else:
                keys, codes = _joined(w, coded, joined)
            out.append(Slicing(w, keys, codes))
        return out

    def in_score_order(self, cases: Cases, task: Task) -> tuple[Cases, np.ndarray | None]:
        """``cases`` in ascending score order and that order, when every slicing and the overall
        values are finished quicker so and with the same bits (several slicings, binary measures,
        unweighted, no queries); else ``cases`` as given and None.

        Notes
        -----
        One compiled sort (query_order: highest first, read backwards) for the overall summary and
        every slicing: the overall summary's classes then come sorted (ScoreHistogram.from_checked
        sorts only what is out of order) and each slicing's groups too (csrc/summary.c
        group_hist_rows).  Unweighted (no row dropped), every summary is of whole counts: the same
        bits in any order of the rows.
        """
        if len(self.wanted) > 1 and task.kind == "binary" and cases.w is None and cases.g is None:
            order = query_order(np.zeros(len(cases.s), dtype=np.int64), cases.s, 1)[::-1]
            return in_order(cases, order), order
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
        finish_all(report, cases, task, slicings, keep=keep, min_size=self.min_size, missing=self.missing)
        report.slices.source = SliceSource(task, given, self, keep)


def _taken_in(codes: np.ndarray, n: int, order: np.ndarray) -> np.ndarray:
    """A column's codes (0..n-1) in another order of the rows, taken as narrow integers (a gather of
    one or two bytes a row rather than eight: the same codes, sooner).
    """
    narrow = np.int8 if n <= 127 else np.int16 if n <= 32767 else np.int32 if n <= 2**31 - 1 else None
    if narrow is None:
        return codes[order]
    return np.take(codes.astype(narrow), order).astype(np.int64)


def _joined(
    w: tuple[str, ...], coded: Mapping[str, tuple[list, np.ndarray]], memo: dict
) -> tuple[list, np.ndarray]:
    """The intersection of the columns ``w`` (:func:`perfeval.engine.slices.intersect`), from the
    intersection of all of them but the last when it was made (``memo``): ``a x b x c`` from ``a x b``.
    """
    if w in memo:
        return memo[w]
    if len(w) == 2:
        out = intersect([coded[c] for c in w])
    else:
        keys, codes = _joined(w[:-1], coded, memo)
        more_keys, more_codes = coded[w[-1]]
        m = len(more_keys)  # intersect's step: the pairs that hold a row, in the columns' key order
        pairs, codes = group_codes(codes * m + np.asarray(more_codes, dtype=np.int64))
        pairs = np.asarray(pairs, dtype=np.int64)
        out = ([(*keys[p // m], more_keys[p % m]) for p in pairs.tolist()], codes)
    memo[w] = out
    return out


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
