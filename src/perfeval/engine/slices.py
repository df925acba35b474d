"""Slices are groups: every measure per slice of one or more columns and of their intersections.

A **slicing** is one column (``country``) or an intersection of columns (``country x device``); a
**slice** is one key of it (``"FR"``, or ``("FR", "mobile")``): the column's VALUES, never floats.
Each slicing is finished by the grouped engine of its kind (:func:`perfeval.engine.finish`, and the
finishers of K classes, K labels and regression) with the slice codes as the groups, so every
measure of the registry that works per group works per slice, with the value it has on the slice's
rows alone.  Per-query measures (NDCG, MAP, GAUC, ... over ``groups=``) are finished per (slice,
query) pair and aggregated to the slice by the measure's own aggregation, which is what evaluating
the slice's rows alone with ``groups=`` gives.

This module holds the model, without I/O: the coding of a column into slice keys and codes
(:func:`code_column`), their intersections (:func:`intersect`), and :func:`finish_slicing`, which
finishes one slicing from checked cases (each row's slice code, and the cases' weights: a bootstrap
calls it with Poisson weights).  The keys stay values (not codes), so that chunks and partitions
that code their own rows can be merged by key.  The result object users see is
:class:`perfeval.api.slices.Slices`.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from perfeval.base.checks import Cases, id_kind
from perfeval.engine.door import Targets
from perfeval.engine.report import MeasureResult, Report
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning
from perfeval.measures import MeasureSpec
from perfeval.summaries.ranking import group_codes

# The finishers of K classes, K labels and regression are imported where a slicing of that kind is
# finished: slices of one score a case load none of them.

__all__ = [
    "MISSING",
    "Slicing",
    "SliceSource",
    "SliceValues",
    "Task",
    "categories_of",
    "code_column",
    "combination_counts",
    "coded_column",
    "finish_slicing",
    "finish_summaries",
    "in_order",
    "intersect",
    "slice_counts",
    "slicing_name",
]

#: the key of the slice of the rows whose value is missing, with ``missing="slice"``
MISSING = "<missing>"

#: how the slices of a column with a missing value are made: refused (one line), or a slice of their own
Missing = Literal["error", "slice"]


def slicing_name(columns: Sequence[str]) -> str:
    """A slicing's name: its column, or its columns joined by `` x `` (``country x device``)."""
    return " x ".join(columns)


class Slicing:
    """One slicing: its columns, its keys (a value a slice, or a tuple of values for an
    intersection, in the columns' order of keys), and the slice code (0..len(keys)-1) of each row
    given, weight 0 included.

    Given its keys and codes, or made on demand (:meth:`of_combinations`): then its keys are made
    when first read and kept, and its codes are made each time they are read and never kept, so
    that the slicings of an evaluation hold one code a row between them, not one a slicing.
    """

    def __init__(self, columns: tuple[str, ...], keys: list | None = None, codes: np.ndarray | None = None):
        self.columns = tuple(columns)
        self._keys = keys
        self._codes = codes
        self._coder: Callable[[], tuple[list, np.ndarray]] | None = None
        self._combination: np.ndarray | None = None
        #: made on demand: how many combinations of the slice columns hold a row
        self.n_combinations = 0

    @classmethod
    def of_combinations(
        cls,
        columns: tuple[str, ...],
        combination: np.ndarray,
        n_combinations: int,
        coder: Callable[[], tuple[list, np.ndarray]],
    ) -> Slicing:
        """A slicing made on demand: ``combination`` the rows' combination of every slice column
        (0..n_combinations-1), ``coder()`` its keys and the slice code of each combination.
        """
        out = cls(columns)
        out._coder = coder
        out._combination = combination
        out.n_combinations = n_combinations
        return out

    @property
    def name(self) -> str:
        return slicing_name(self.columns)

    @property
    def keys(self) -> list:
        if self._keys is None:
            self.coded()
        assert self._keys is not None
        return self._keys

    @property
    def codes(self) -> np.ndarray:
        """Each row's slice code (int64), made again at each read when made on demand."""
        return self.coded()[1]

    def coded(self) -> tuple[list, np.ndarray]:
        """The keys and each row's slice code (int64)."""
        if self._coder is None:
            assert self._keys is not None and self._codes is not None
            return self._keys, self._codes
        keys, table = self.combination_codes()
        return keys, self.codes_of(table)

    def codes_of(self, table: np.ndarray) -> np.ndarray:
        """Made on demand: each row's slice code (int64) from each combination's (``table``, as
        :meth:`combination_codes` gives it).
        """
        assert self._combination is not None
        if len(table) == len(self.keys) and _is_arange(table):  # the combinations are the slices
            return self._combination.astype(np.int64, copy=False)
        return np.take(np.asarray(table, dtype=np.int64), self._combination)

    def combination_codes(self) -> tuple[list, np.ndarray]:
        """Made on demand: the keys and each combination's slice code (the rows' codes are these
        taken at :attr:`combination`).
        """
        assert self._coder is not None
        keys, table = self._coder()
        if self._keys is None:
            self._keys = keys
        return self._keys, table

    @property
    def combination(self) -> np.ndarray | None:
        """Made on demand: each row's combination of every slice column; else None."""
        return self._combination

    def __len__(self) -> int:
        return len(self.keys)

    def __repr__(self) -> str:
        return f"<Slicing {self.name}>"


def _is_arange(a: np.ndarray) -> bool:
    """Whether ``a`` is 0, 1, ..., len(a) - 1."""
    return not len(a) or (int(a[0]) == 0 and int(a[-1]) == len(a) - 1 and bool((np.diff(a) == 1).all()))


# -- a column's keys and codes -------------------------------------------------------------------------
def _is_missing(v: Any) -> bool:
    """Whether a Python value is missing: None, NaN, pandas' NA or NaT."""
    if v is None:
        return True
    if isinstance(v, (float, np.floating)) and v != v:
        return True
    return type(v).__name__ in ("NAType", "NaTType") or (isinstance(v, np.datetime64) and np.isnat(v))


def _plain(v: Any) -> Any:
    """A key as a plain Python value (numpy's scalars as Python's)."""
    return v.item() if isinstance(v, np.generic) and not isinstance(v, (np.datetime64, np.timedelta64)) else v


def code_column(
    name: str,
    values: Any,
    *,
    missing: Missing = "error",
    position: Callable[[int], str] | None = None,
    words: tuple[str, str] | None = None,
) -> tuple[list, np.ndarray]:
    """One slice column as its keys and each row's code (:func:`coded_column`'s first two)."""
    keys, codes, _absent = coded_column(name, values, missing=missing, position=position, words=words)
    return keys, codes


def coded_column(
    name: str,
    values: Any,
    *,
    missing: Missing = "error",
    position: Callable[[int], str] | None = None,
    words: tuple[str, str] | None = None,
) -> tuple[list, np.ndarray, bool]:
    """One slice column as its keys and each row's code, and whether its last key is the slice of
    the missing values (a chunk's column, merged with others by value, tells it from a value that
    is the text ``<missing>``).

    Parameters
    ----------
    name : str
        The column, as messages name it.
    values : array-like
        One value a row: strings, integers (64-bit ids too, coded without a float), booleans, a
        pandas categorical (its categories, in their order), dates.  A float column is read as
        integers when every value is whole (as a group column is); a fractional float is refused: a
        slice is a value, not a measurement (bin it first: ``pandas.cut``).
    missing : {"error", "slice"}
        A missing value (None, NaN, pandas' NA, NaT): one line naming the column and the first row,
        or (``"slice"``) a slice of their own, :data:`MISSING`, listed last.
    position : callable, optional
        Where a row is, in words (default ``row i``, 0-based; the command: its file line).
    words : (str, str), optional
        What a missing value is and what makes it a slice, in the caller's words (default: the value
        shown and ``missing='slice'``; the command: ``an empty field`` and ``--missing-slice``).

    Returns
    -------
    keys : list
        The distinct values present, sorted (a categorical: in its categories' order), as Python values.
    codes : ndarray of int64
        Each row's index into ``keys``.
    missing_slice : bool
        Whether ``keys[-1]`` is :data:`MISSING`, the slice of the rows without a value.
    """
    where = position or (lambda i: f"row {i}")
    if missing not in ("error", "slice"):
        raise InvalidParameterError(f"`missing` must be 'error' or 'slice', got {missing!r}")
    texts = _pandas_strings(values)
    if texts is not None:  # pandas' string dtypes (pyarrow's too): coded by pandas, never as objects
        keys, codes, absent = texts
        return _with_missing(name, keys, codes, absent, missing, where, values, words)
    cat = _categorical(values)
    if cat is not None:
        codes, categories = cat
        absent = codes < 0
        keys, codes = _compact(codes, [_plain(c) for c in categories])
        _no_float_keys(name, keys, lambda k: "a category")
        return _with_missing(name, keys, codes, absent, missing, where, values, words)
    from perfeval.base.checks import to_numpy

    a = to_numpy(values, f"by={name!r}")
    kind = a.dtype.kind
    absent = np.zeros(len(a), dtype=bool)
    if kind == "f":
        absent = np.isnan(a)
        a = _whole_floats(name, a, absent, where)
    elif kind == "M" or kind == "m":
        absent = np.isnat(a)
    elif kind == "O" or kind == "U":
        texts = _strings(a)
        if texts is not None:  # strings (and missing values): coded in a few vectorised passes
            keys, codes, absent = texts
            return _with_missing(name, keys, codes, absent, missing, where, values, words)
        if kind == "O":
            a, absent = _objects(name, a, where)
    elif kind not in "biuUS":
        raise InvalidDataError(
            f"by column {name!r} holds {a.dtype} values: a slice is a string, an integer, a boolean or a "
            "category"
        )
    if absent.any():
        present = ~absent
        keys_arr, sub = group_codes(a[present]) if len(a) else (a[:0], np.zeros(0, np.int64))
        codes = np.zeros(len(a), dtype=np.int64)
        codes[present] = sub
    else:
        keys_arr, codes = group_codes(a)
    keys = [_plain(k) for k in keys_arr.tolist()] if kind not in "mM" else list(keys_arr)
    return _with_missing(name, keys, codes, absent, missing, where, values, words)


def _categorical(values: Any) -> tuple[np.ndarray, list] | None:
    """A pandas categorical's codes (-1: missing) and categories, or None for anything else."""
    dtype = getattr(values, "dtype", None)
    if getattr(dtype, "name", None) != "category":
        return None
    cat = getattr(values, "cat", None)  # a Series
    if cat is not None:
        return np.asarray(cat.codes, dtype=np.int64), list(cat.categories)
    codes = getattr(values, "codes", None)  # a Categorical
    if codes is None:
        return None
    return np.asarray(codes, dtype=np.int64), list(values.categories)


def _compact(codes: np.ndarray, categories: list) -> tuple[list, np.ndarray]:
    """The categories present (in their order) and the rows' codes among them (-1 kept as 0: the
    caller marks the missing rows).
    """
    valid = codes >= 0
    present = np.bincount(codes[valid], minlength=len(categories)) > 0
    remap = np.cumsum(present) - 1
    out = np.where(valid, remap[np.where(valid, codes, 0)], 0).astype(np.int64)
    return [c for c, p in zip(categories, present.tolist(), strict=True) if p], out


def _no_float_keys(name: str, keys: list, what: Callable[[Any], str]) -> None:
    """Categories that are fractional floats refused, as float columns are."""
    for k in keys:
        if isinstance(k, float) and not k.is_integer():
            raise InvalidDataError(
                f"by column {name!r} holds {what(k)} {k!r}, a fraction: a slice is a value (a string, an "
                "integer, a boolean or a category); bin the column first (pandas.cut) or pass its values "
                "as strings"
            )


def _whole_floats(name: str, a: np.ndarray, absent: np.ndarray, where: Callable[[int], str]) -> np.ndarray:
    """A float column whose values are whole numbers as int64 (a column of integers with a missing
    value is read as floats by pandas); a fraction or a number past 2**53 (where distinct integers
    meet in one float) refused with its row.
    """
    ok = np.where(absent, 0.0, a)
    frac = ~np.isfinite(ok) | (ok != np.floor(ok))
    if frac.any():
        i = int(np.argmax(frac))
        raise InvalidDataError(
            f"by column {name!r} holds the float {float(a[i])!r} at {where(i)}: a slice is a value (a "
            "string, an integer, a boolean or a category); bin the column first (pandas.cut) or pass its "
            "values as strings"
        )
    big = np.abs(ok) >= 2.0**53
    if big.any():
        i = int(np.argmax(big))
        raise InvalidDataError(
            f"by column {name!r} holds the float {float(a[i])!r} at {where(i)}: past 2**53 distinct integers "
            "can be the same float; pass the column as integers or strings"
        )
    return ok.astype(np.int64)


#: the types of the values :func:`_is_missing` calls missing (a float and a datetime64 when not a number)
_MISSING_TYPES = ("NoneType", "NAType", "NaTType")


def _pandas_strings(values: Any) -> tuple[list, np.ndarray, np.ndarray] | None:
    """A pandas Series, Index or array of a string dtype (``"string"``, ``"str"``, pyarrow-backed
    or not) as :func:`_strings` codes it, by :func:`pandas.factorize` (a pyarrow-backed column: by
    pyarrow's dictionary encoding), never read as Python objects; None for anything else.
    """
    if not type(values).__module__.startswith("pandas"):
        return None
    import pandas as pd

    if not isinstance(getattr(values, "dtype", None), pd.StringDtype):
        return None
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return _sorted_codes([str(u) for u in uniques], np.asarray(codes, dtype=np.int64))


def _strings(a: np.ndarray) -> tuple[list, np.ndarray, np.ndarray] | None:
    """A column of strings, some perhaps missing (None, NaN, pandas' NA, NaT), as its keys (the
    distinct strings, sorted as Python sorts them), each row's code (0 where missing) and which rows
    are missing: what :func:`_objects` and :func:`group_codes` make of it, in a few vectorised
    passes over the rows (pandas' hash table when pandas is there, else numpy's sort).  None when
    the column holds anything else (integers, booleans, floats that are numbers, other objects,
    a mixture): :func:`_objects` reads it value by value and refuses what it refuses.
    """
    try:
        import pandas as pd
    except ImportError:  # numpy's sort of the strings (group_codes' own)
        pd = None
    if a.dtype.kind == "U" or (pd is not None and pd.api.types.infer_dtype(a, skipna=False) == "string"):
        present = None  # every value a string (pandas' test: one compiled pass)
    else:
        types = set(map(type, a))
        texts = [t for t in types if issubclass(t, str)]
        others = [t for t in types if not issubclass(t, str)]
        if not texts or any(
            not (t.__name__ in _MISSING_TYPES or issubclass(t, (float, np.floating))) for t in others
        ):
            return None
        present = np.fromiter(map(isinstance, a, itertools.repeat(str, len(a))), dtype=bool, count=len(a))
        if any(issubclass(t, (float, np.floating)) for t in others):  # a float that is a number: no string
            floats = np.asarray([v for v in a[~present] if isinstance(v, (float, np.floating))], np.float64)
            if not bool(np.isnan(floats).all()):
                return None
    if pd is not None:
        codes, uniques = pd.factorize(a if present is None else a[present], use_na_sentinel=False)
        keys, sub, _ = _sorted_codes([str(u) for u in uniques], np.asarray(codes, dtype=np.int64))
    else:
        keys_arr, sub = group_codes(a if present is None else a[present])
        keys = [str(k) for k in keys_arr.tolist()]
    if present is None:
        return keys, sub, np.zeros(len(a), dtype=bool)
    codes = np.zeros(len(a), dtype=np.int64)
    codes[present] = sub
    return keys, codes, ~present


def _sorted_codes(uniques: list[str], codes: np.ndarray) -> tuple[list, np.ndarray, np.ndarray]:
    """Strings coded in the order first seen (``codes``, -1: missing) as the keys sorted, each row's
    code among them (0 where missing) and which rows are missing.
    """
    order = sorted(range(len(uniques)), key=uniques.__getitem__)
    rank = np.empty(len(uniques) + 1, dtype=np.int64)
    rank[order] = np.arange(len(uniques), dtype=np.int64)
    rank[-1] = 0  # code -1: a missing value, marked apart
    return [uniques[i] for i in order], rank[codes], codes < 0


def _objects(name: str, a: np.ndarray, where: Callable[[int], str]) -> tuple[np.ndarray, np.ndarray]:
    """An object column's values of one kind (strings, integers, booleans), the missing ones marked;
    whole floats among integers read as integers; anything else refused with its row.
    """
    values = a.tolist()
    absent = np.fromiter((_is_missing(v) for v in values), dtype=bool, count=len(values))
    first: dict[str, int] = {}
    out: list = []
    for i, v in enumerate(values):
        if absent[i]:
            out.append(None)
            continue
        if isinstance(v, (float, np.floating)):
            if not float(v).is_integer() or abs(v) >= 2.0**53:
                raise InvalidDataError(
                    f"by column {name!r} holds the float {float(v)!r} at {where(i)}: a slice is a value (a "
                    "string, an integer, a boolean or a category); bin the column first (pandas.cut) or pass "
                    "its values as strings"
                )
            v = int(v)
        kind = id_kind(type(v))
        if kind not in ("strings", "integers", "booleans"):
            raise InvalidDataError(
                f"by column {name!r} holds {v!r} ({type(v).__name__}) at {where(i)}: a slice is a string, an "
                "integer, a boolean or a category"
            )
        first.setdefault(kind, i)
        if len(first) > 1:
            (ka, ia), (kb, ib) = list(first.items())[:2]
            raise InvalidDataError(
                f"by column {name!r} mixes {ka} ({values[ia]!r} at {where(ia)}) and {kb} ({values[ib]!r} at "
                f"{where(ib)}): one kind of value a column"
            )
        out.append(_plain(v))
    kind = next(iter(first), "strings")
    fill: Any = {"strings": "", "integers": 0, "booleans": False}[kind]
    filled = [fill if v is None else v for v in out]
    if kind == "integers":
        try:
            return np.asarray(filled, dtype=np.int64), absent
        except OverflowError:  # past int64: kept as Python integers (sorted as numbers)
            pass
    if kind == "booleans":
        return np.asarray(filled, dtype=bool), absent
    arr = np.empty(len(filled), dtype=object)
    arr[:] = filled
    return arr, absent


def _with_missing(
    name: str,
    keys: list,
    codes: np.ndarray,
    absent: np.ndarray,
    missing: Missing,
    where: Callable[[int], str],
    values: Any,
    words: tuple[str, str] | None = None,
) -> tuple[list, np.ndarray, bool]:
    """The missing rows refused (their column and first row named) or coded as the last slice,
    :data:`MISSING` (then the third item is True).
    """
    if not absent.any():
        return keys, codes, False
    i = int(np.argmax(absent))
    if missing == "error":
        if words is not None:
            what, option = words
        else:
            try:
                what = f"a missing value ({_plain(np.asarray(values, dtype=object)[i])!r})"
            except Exception:  # a value numpy cannot take apart: said as missing
                what = "a missing value"
            option = "missing='slice'"
        raise InvalidDataError(
            f"by column {name!r} holds {what} at {where(i)}: every row needs a slice; fill or drop it, or "
            f"pass {option} (the missing values a slice of their own, {MISSING!r})"
        )
    if MISSING in keys:
        raise InvalidDataError(
            f"by column {name!r} holds the value {MISSING!r}, the name of the slice of its missing values: "
            "rename that value, or fill the missing ones"
        )
    codes = codes.copy()
    codes[absent] = len(keys)
    return [*keys, MISSING], codes, True


def intersect(parts: Sequence[tuple[list, np.ndarray]]) -> tuple[list[tuple], np.ndarray]:
    """The intersection of several columns' slices: the keys (a tuple of values, one a column) that
    hold a row, in the order of the columns' keys (the first column's first), and each row's code.
    The intersections that hold no row are no slice.
    """
    keys = [(k,) for k in parts[0][0]]
    codes = np.asarray(parts[0][1], dtype=np.int64)
    for more_keys, more_codes in parts[1:]:
        m = len(more_keys)
        pairs, codes = group_codes(codes * m + np.asarray(more_codes, dtype=np.int64))
        pairs = np.asarray(pairs, dtype=np.int64)
        keys = [(*keys[p // m], more_keys[p % m]) for p in pairs.tolist()]
    return keys, codes


# -- one slicing finished ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """What an evaluation computes, so that each slicing is finished as the whole was: the kind of
    targets and scores (``binary``: one score a case, the binary, per-query and group measures;
    ``classes``: K classes; ``labels``: K labels; ``regression``), the measures, and the options
    of the kind's finisher.
    """

    kind: Literal["binary", "classes", "labels", "regression"]
    specs: tuple[MeasureSpec, ...]
    threshold: float = 0.5
    pos_label: Any = None
    partitions: Mapping[str, Sequence[Any]] | None = None
    classes: tuple = ()
    classes_from: str = ""
    task_from: str = ""

    def finish(self, cases: Cases) -> Report:
        """The report of ``cases`` (grouped when ``cases.g`` is set) by the kind's finisher."""
        specs = list(self.specs)
        if self.kind == "binary":
            from perfeval.engine.finish import finish

            return finish(
                cases, specs, threshold=self.threshold, partitions=self.partitions, pos_label=self.pos_label
            )
        if self.kind == "classes":
            from perfeval.engine.classes import finish_classes

            return finish_classes(
                cases, specs, self.classes, threshold=self.threshold, classes_from=self.classes_from
            )
        if self.kind == "labels":
            from perfeval.engine.labels import finish_labels

            return finish_labels(
                cases, specs, self.classes, threshold=self.threshold, labels_from=self.classes_from
            )
        from perfeval.engine.regression import finish_regression

        return finish_regression(cases, specs, task_from=self.task_from)

    def spec_of(self, label: str) -> MeasureSpec:
        """The spec of a result's label (a partition's ``ROC[narrow]`` is ROC's)."""
        base = label.split("[")[0] if label.endswith("]") else label
        for s in self.specs:
            if s.label == base:
                return s
        raise KeyError(label)


@dataclass
class SliceValues:
    """One slicing finished: per slice (in the slicing's key order), its rows, cases, weight,
    positives and negatives, and each measure's value with, where it is not a finite number, why.

    Attributes
    ----------
    rows : ndarray of int64
        Rows given in the slice, weight 0 included.
    cases : ndarray of int64
        Rows of weight > 0 (what every measure reads).
    weight : ndarray of float
        The cases' total weight (``cases`` unweighted).
    positives, negatives : ndarray of float or None
        The positive and negative weight of the binary measures (0/1 targets; per-query measures
        alone: the rows of grade > 0 and of grade 0); None for K classes, K labels, regression and
        partitions.
    groups : ndarray of int64 or None
        With ``groups=`` (queries): the queries of each slice with a case.
    values : dict of label -> ndarray of float
        Each measure's value in each slice (NaN where undefined), in the report's order of measures.
    reasons : dict of label -> dict of int -> str
        For each measure, why its value in slice ``i`` is no finite number.
    """

    rows: np.ndarray
    cases: np.ndarray
    weight: np.ndarray
    positives: np.ndarray | None
    negatives: np.ndarray | None
    groups: np.ndarray | None
    values: dict[str, np.ndarray] = field(default_factory=dict)
    reasons: dict[str, dict[int, str]] = field(default_factory=dict)


def finish_slicing(
    task: Task,
    cases: Cases,
    codes: np.ndarray,
    n_slices: int,
    *,
    weights: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    counts: tuple[np.ndarray, np.ndarray | None, np.ndarray | None] | None = None,
) -> SliceValues:
    """Every measure of ``task`` in every slice of one slicing, from checked cases.

    Parameters
    ----------
    task : Task
        The kind of evaluation, its measures and options (as the whole was evaluated).
    cases : Cases
        Checked cases (:func:`perfeval.base.checks.check` or the door of the kind), their targets
        coded (``cases.targets``) or not; ``cases.g`` the queries of the per-query measures, or None.
    codes : ndarray of int64
        The slice (0..n_slices-1) of each of ``cases``' rows.
    n_slices : int
        How many slices the slicing has (a slice with no case keeps its place, its values NaN).
    weights : ndarray of float, optional
        The cases' weights, instead of ``cases.w`` (a bootstrap's replicate: the weights times
        Poisson(1) counts).  A row of weight 0 is no case: it is left out before anything is summed,
        as the door leaves it out.
    rows : ndarray of int64, optional
        The rows given in each slice, weight 0 included (the door drops those before ``cases``);
        default: the rows of ``cases`` in each slice.
    counts : (cases, positives, negatives), optional
        Each slice's cases and its positives and negatives as :func:`slice_counts` gives them, when
        the caller counted them (unweighted cases, none of weight 0: every row a case).

    Returns
    -------
    SliceValues
        Per slice: rows, cases, weight, positives, negatives, and each measure's value and reasons.

    Notes
    -----
    No warning is given here (a bootstrap calls this once a replicate): the caller says what is
    undefined.  The slicing's values are those of the grouped engine of the task's kind with the slice
    codes as the groups (one call), or, with queries, the (slice, query) pairs as the groups, each
    slice's pairs aggregated by :meth:`perfeval.engine.report.MeasureResult.of` as an evaluation of the
    slice's rows alone aggregates its queries.
    """
    codes = np.asarray(codes, dtype=np.int64)
    w = cases.w if weights is None else np.asarray(weights, dtype=np.float64)
    if len(codes) != len(cases.s) or (w is not None and len(w) != len(codes)):
        raise InvalidParameterError("finish_slicing: codes, weights and cases differ in length")
    if counts is not None and (w is not None or (rows is not None and not np.array_equal(rows, counts[0]))):
        raise InvalidParameterError("finish_slicing: counts are of unweighted cases, every row a case")
    counted = None  # the rows of each slice, when they are its cases too (none dropped): counted once
    if rows is None:
        rows = counted = np.bincount(codes, minlength=n_slices) if counts is None else counts[0]
    y, s, g, targets = cases.y, cases.s, cases.g, cases.targets
    if w is not None and not bool(np.all(w > 0)):  # a case of weight 0 is no case
        keep = w > 0
        y, s, w, codes = y[keep], s[keep], w[keep], codes[keep]
        g = None if g is None else g[keep]
        targets = _taken(targets, y)
        counted = None
    n_cases = (np.bincount(codes, minlength=n_slices) if counted is None else counted).astype(np.int64)
    weight = n_cases.astype(np.float64) if w is None else np.bincount(codes, weights=w, minlength=n_slices)
    sub_targets = (
        targets if targets is not None else (Targets(y, task.pos_label) if task.kind == "binary" else None)
    )
    if counts is None:
        positives, negatives = _classes_weight(task, sub_targets, codes, w, n_slices, n_cases)
    else:
        positives, negatives = counts[1], counts[2]
    out = SliceValues(
        rows=np.asarray(rows, dtype=np.int64),
        cases=n_cases,
        weight=weight,
        positives=positives,
        negatives=negatives,
        groups=None,
    )
    if not len(s):  # no case at all: every slice undefined
        for sp in task.specs:
            if not sp.companion:
                out.values[sp.label] = np.full(n_slices, math.nan)
        _reasons(task, out, w is not None)
        return out
    if g is None:
        grouping, pair_slice = codes, None
    else:  # (slice, query) pairs: each slice's queries are its own, as the slice alone would have them
        qkeys, qcodes = group_codes(g)
        pair_keys, grouping = group_codes(codes * len(qkeys) + qcodes)
        pair_slice = np.asarray(pair_keys, dtype=np.int64) // len(qkeys)
        out.groups = np.bincount(pair_slice, minlength=n_slices).astype(np.int64)
    sub = Cases(y, s, grouping, w, len(s))
    sub.targets = sub_targets
    with warnings.catch_warnings():  # said once per slicing by the caller, naming the slices
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        report = task.finish(sub)
    companions = {sp.label for sp in task.specs if sp.companion}
    present = np.asarray(report.groups, dtype=np.int64)
    sizes = report.group_sizes
    own: dict[str, dict[int, str]] = {}  # the measure's own reason of a NaN slice, where it gives one
    for label, r in report.results.items():
        if label.split("[")[0] in companions:
            continue
        vals = np.full(n_slices, math.nan)
        per = np.asarray(r.per_group, dtype=np.float64)
        if pair_slice is None:
            vals[present] = per
            if r.undefined and len(r.undefined_groups_why) == len(r.undefined):  # the slices are the groups
                said = zip(r.undefined, r.undefined_groups_why, strict=True)
                own[label] = {int(k): why for k, why in said if why}
        else:
            spec = task.spec_of(label)
            slice_of = pair_slice[present]
            bounds = np.searchsorted(slice_of, np.arange(n_slices + 1))
            for i in np.flatnonzero(np.diff(bounds)).tolist():
                a, b = int(bounds[i]), int(bounds[i + 1])
                vals[i] = MeasureResult.of(spec, per[a:b], sizes[a:b], present[a:b], True).value
        out.values[label] = vals
    _reasons(task, out, w is not None, own)
    return out


def finish_summaries(
    task: Task, sc: np.ndarray, pos: np.ndarray, neg: np.ndarray, cells: np.ndarray, rows: np.ndarray
) -> SliceValues:
    """Every binary measure of ``task`` in every slice of one slicing, from the slices' summaries
    rather than their rows (the streaming, Dask and Metric backends: :mod:`perfeval.backends.slices`):
    the :func:`finish_slicing` of unweighted rows whose slices' histograms these are.

    Parameters
    ----------
    task : Task
        Binary measures (``kind`` ``"binary"``, every measure of kind ``"binary"``), unweighted.
    sc, pos, neg : ndarray of float64
        Each slice's distinct scores ascending (-0.0 as 0.0) with their positive and negative counts,
        the slices one after the other.
    cells : ndarray of int64
        How many of them each slice holds (0: no case).
    rows : ndarray of int64
        The rows given in each slice.

    Notes
    -----
    Unweighted, every sum over a slice's rows is a count, and every measure's per-group form reads
    only the groups' histograms (:mod:`perfeval.measures._data`), the others each group's
    ScoreHistogram: the histograms made from the rows (csrc/summary.c group_hist_rows) are these, so
    the values are :func:`finish_slicing`'s, bit for bit.
    """
    from perfeval.engine.finish import each_summary
    from perfeval.measures._data import GroupedData
    from perfeval.summaries import ScoreHistogram

    n = len(cells)
    sl = np.repeat(np.arange(n, dtype=np.int64), np.asarray(cells, dtype=np.int64))
    positives = np.bincount(sl, weights=pos, minlength=n).astype(np.float64)
    negatives = np.bincount(sl, weights=neg, minlength=n).astype(np.float64)
    n_cases = (positives + negatives).astype(np.int64)
    out = SliceValues(
        rows=np.asarray(rows, dtype=np.int64),
        cases=n_cases,
        weight=n_cases.astype(np.float64),
        positives=positives,
        negatives=negatives,
        groups=None,
    )
    specs = [sp for sp in task.specs if not sp.companion]
    present = np.flatnonzero(n_cases > 0)
    if not len(present):
        for sp in specs:
            out.values[sp.label] = np.full(n, math.nan)
        _reasons(task, out, False)
        return out
    bounds = np.append(np.searchsorted(sl, present), len(sl)).astype(np.int64)
    gd = GroupedData(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), None, len(present))
    gd._hist = (sc, pos, neg, bounds)  # the slices' summaries, as histograms() makes them from rows
    hists = None

    def summaries() -> list[ScoreHistogram]:
        return [
            ScoreHistogram.of_cells(sc[a:b], pos[a:b], neg[a:b], is_counts=True)
            for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        ]

    undefined = []  # (spec, a holder of its reasons, its NaN slices among the present ones)
    with warnings.catch_warnings():  # said once per slicing by the caller, naming the slices
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        for sp in specs:
            fast = sp.measure.per_group_function()
            vals: Any = fast(gd, **sp.kwargs) if fast is not None else None
            if vals is None:  # slice by slice, from each slice's ScoreHistogram
                if hists is None:
                    hists = summaries()
                vals = each_summary(sp, hists)
            vals = np.asarray(vals, dtype=np.float64)
            full = np.full(n, math.nan)
            full[present] = vals
            out.values[sp.label] = full
            if np.isnan(vals).any():
                undefined.append(
                    (sp, MeasureResult(sp.label, math.nan, sp.direction), np.flatnonzero(np.isnan(vals)))
                )
    own: dict[str, dict[int, str]] = {}
    if undefined:  # each NaN slice's own reason, as finish_slicing's groups have theirs (group_reasons)
        from perfeval.engine.finish import group_reasons

        hists = summaries() if hists is None else hists
        group_reasons(undefined, None, np.zeros(0), None, np.zeros(0, np.int64), hists, gd)
        for sp, r, nan in undefined:
            said = zip(nan.tolist(), r.undefined_groups_why, strict=True)
            own[sp.label] = {int(present[j]): why for j, why in said if why}
    _reasons(task, out, False, own)
    return out


def categories_of(values: Any) -> list | None:
    """A pandas categorical's categories as keys (Python values, in their order), or None for any
    other column.
    """
    cat = _categorical(values)
    return None if cat is None else [_plain(c) for c in cat[1]]


def in_order(cases: Cases, order: np.ndarray, scores: np.ndarray | None = None) -> Cases:
    """``cases``' rows in another ``order`` (every array taken in it; ``scores``: the scores taken
    in it, when the caller has them), their coding made again on them (by the caller's coding when
    the caller coded them): the same cases, whose measures are the same, for a finisher that is
    quicker on rows in that order.
    """
    out = Cases(
        _gathered(cases.y, order),
        cases.s[order] if scores is None else scores,
        None if cases.g is None else cases.g[order],
        None if cases.w is None else cases.w[order],
        cases.rows_in,
    )
    out.targets = _taken(cases.targets, out.y)
    return out


def _gathered(a: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``a[order]``; integers that fit in a byte (0/1 targets) gathered as bytes and given back in
    their own type (the same values, a gather of one byte a row rather than eight).
    """
    if a.dtype.kind in "iu" and a.itemsize > 1 and len(a) and int(a.min()) >= -128 and int(a.max()) <= 127:
        return np.take(a.astype(np.int8), order).astype(a.dtype)
    return a[order]


def _taken(targets: Targets | None, y: np.ndarray) -> Targets | None:
    """The coding of the cases left (``y``, the kept rows' targets): made again on them, by the
    caller's coding when the caller coded them (the command's loader).
    """
    if targets is None:
        return None
    if targets.made == "binary":
        return Targets.made_by(y, "binary")
    if targets.made == "relevance":
        return Targets.made_by(y, "relevance")
    return Targets(y, targets.pos_label)


def _classes_weight(
    task: Task,
    targets: Targets | None,
    codes: np.ndarray,
    w: np.ndarray | None,
    n: int,
    cases: np.ndarray | None = None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The positive and negative weight of each slice, where the targets are 0/1 for a measure
    asked (binary measures, GAUC); per-query measures alone: the rows of grade > 0 and of grade 0.
    None for the other kinds and for partitions (a task a partition).
    """
    if task.kind != "binary" or task.partitions or targets is None or not len(task.specs):
        return None, None
    binary = [s for s in task.specs if s.measure.kind in ("binary", "grouped")]
    if binary:
        first = next((s for s in task.specs if s.measure.kind == "binary"), binary[0])
        if first.measure.kind == "grouped" and task.pos_label is None:
            t = targets.relevance([first]) > 0
        else:
            t = np.asarray(targets.binary(first.label)) == 1
    else:
        t = targets.relevance(list(task.specs)) > 0
    if w is None:  # counts: the positives' slices counted, the negatives the rest (whole numbers)
        cases = np.bincount(codes, minlength=n) if cases is None else cases
        positives = np.bincount(codes[t], minlength=n)
        return positives.astype(np.float64), (cases - positives).astype(np.float64)
    # both classes in one count: slice k's negatives at 2k, its positives at 2k + 1 (each its own sum,
    # the weights added in row order)
    both = np.bincount(codes * 2 + t, weights=w, minlength=2 * n).astype(np.float64)
    return both[1::2].copy(), both[0::2].copy()


def combination_counts(
    task: Task, cases: Cases, combination: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None] | None:
    """The cases, positives and negatives of each of ``n`` combinations of the slice columns
    (``combination``: each case's), as :func:`finish_slicing` counts a slicing's; None when the
    cases are weighted (then each slicing counts its own).
    """
    if cases.w is not None:
        return None
    targets = cases.targets
    if targets is None and task.kind == "binary":
        targets = Targets(cases.y, task.pos_label)
    codes = np.asarray(combination)
    each = np.bincount(codes, minlength=n)
    positives, negatives = _classes_weight(task, targets, codes, None, n, each)
    return each, positives, negatives


def slice_counts(
    counts: tuple[np.ndarray, np.ndarray | None, np.ndarray | None], table: np.ndarray, n_slices: int
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """A slicing's cases, positives and negatives from its combinations' (:func:`combination_counts`;
    ``table``: each combination's slice): whole numbers added up, the same numbers as counted from
    the rows (exact: below 2**53), in ``finish_slicing``'s types.
    """
    table = np.asarray(table, dtype=np.int64)

    def added(per: np.ndarray) -> np.ndarray:
        return np.bincount(table, weights=per, minlength=n_slices)

    each, positives, negatives = counts
    cases = added(each.astype(np.float64)).astype(np.int64)
    if positives is None or negatives is None:
        return cases, None, None
    return cases, added(positives).astype(np.float64), added(negatives).astype(np.float64)


def _amount(v: float, weighted: bool, one: str, many: str) -> str:
    if weighted:
        return f"{many} weighing {v:g}" if v else f"no {one}"
    return f"{v:g} {one if v == 1 else many}" if v else f"no {one}"


def _reasons(
    task: Task, out: SliceValues, weighted: bool, own: dict[str, dict[int, str]] | None = None
) -> None:
    """Why each value that is no finite number is so, slice by slice: facts of the slice, then the
    measure's own reason (``own[label][slice]``: the reason the finisher gave that slice as a group,
    the words of the warning of the slice evaluated alone) where it gives one, else its edge cases
    from the registry.
    """
    own = own or {}
    for label, vals in out.values.items():
        bad = np.flatnonzero(~np.isfinite(vals))
        if not len(bad):
            continue
        try:
            spec: MeasureSpec | None = task.spec_of(label)
        except KeyError:
            spec = None
        edge = spec.measure.edge_cases if spec is not None else ""
        kind = spec.measure.kind if spec is not None else ""
        said: dict[int, str] = {}
        for i in bad.tolist():
            v = float(vals[i])
            if math.isinf(v):
                said[i] = f"{'+' if v > 0 else '-'}infinity"
                continue
            if out.cases[i] == 0:
                said[i] = (
                    f"no case in this slice: its {out.rows[i]} rows have weight 0"
                    if out.rows[i]
                    else "no case in this slice"
                )
                continue
            if out.groups is not None:
                k = int(out.groups[i])
                noun = ("query", "queries") if kind in ("ranking", "grouped") else ("group", "groups")
                facts = f"undefined in each of its {k} {noun[0] if k == 1 else noun[1]}"
            elif out.positives is not None and out.negatives is not None and kind in ("binary", "grouped"):
                facts = (
                    "undefined in this slice ("
                    + _amount(float(out.positives[i]), weighted, "positive", "positives")
                    + ", "
                    + _amount(float(out.negatives[i]), weighted, "negative", "negatives")
                    + ")"
                )
            else:
                facts = f"undefined in this slice ({out.cases[i]} case{'' if out.cases[i] == 1 else 's'})"
            why = own.get(label, {}).get(i) or edge
            said[i] = facts + (f": {why}" if why else "")
        out.reasons[label] = said


@dataclass
class SliceSource:
    """What an evaluation's slices were finished from, kept for their intervals
    (:func:`perfeval.stats.slice_ci` resamples these cases): the task (kind, measures, options), the
    checked cases (the rows of weight 0 dropped, in the order given), the request that codes the slice
    columns again (:class:`perfeval.api.slices.SliceRequest`: no codes are kept between calls) and
    which of the rows given are cases (None: all).
    """

    task: Task
    cases: Cases
    request: Any
    keep: np.ndarray | None

    def codes(self, names: Sequence[str]) -> dict[str, np.ndarray]:
        """Each slicing's code of each case, by name (the slicings named only)."""
        out: dict[str, np.ndarray] = {}
        for sl in self.request.slicings(self.cases.rows_in):
            if sl.name in names:
                codes = sl.codes
                out[sl.name] = codes if self.keep is None else codes[self.keep]
        return out
