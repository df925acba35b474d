"""Slices (``by=``) on the streaming, Dask and Metric backends: the slices of
``evaluate(..., by=...)`` on every row, bit for bit, from chunks, partitions or updates.

Slices are groups, and a slice's key is its columns' values: each chunk codes its slice columns by
value (:func:`perfeval.engine.slices.coded_column`, its messages naming the row of the whole input),
and the keys of every chunk are merged by value, so chunks and partitions that hold different keys
merge (a key first seen in the tenth chunk is a slice like the others).  A chunk's rows are kept by
their **combination**, the key of each slice column (the finest intersection): every slicing asked
(a column alone, an intersection) is a coarsening of it, made at the end, when the keys are put in
the order memory gives them (sorted values; a categorical's categories; the missing slice last).

What is kept of the rows:

* unweighted binary measures (no queries): each combination's summary, the distinct scores of its
  rows with their positive and negative counts (a :class:`~perfeval.summaries.ScoreHistogram` a
  combination), merged chunk by chunk.  A slice's summary is the sum of its combinations', and
  each measure's per-group form reads the slices' summaries as it reads the groups' summaries in
  memory (:mod:`perfeval.measures._data`): whole counts, the same bits in any order.  Memory
  follows the distinct (combination, score) pairs, not the rows.
* anything else (weights, per-query measures, K classes, K labels, a regression target): the rows
  themselves, in their order, finished at the end by the in-memory engine
  (:func:`perfeval.api.slices.finish_all`).  In memory a slice's weights are summed in orders of
  its rows (its total in row order, each score's cell in a canonical order of the rows) that no
  summary of pieces can replay for weights that do not add up exactly, so the rows are kept: the
  same bits whatever the weights.  Memory follows the rows (docs/slices.md).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import Cases
from perfeval.engine.slice_report import (
    asked,
    attach_results,
    check_options,
    check_slice_count,
    finish_all,
    named_twice,
    not_a_name,
    slicing_result,
)
from perfeval.engine.slices import (
    MISSING,
    Missing,
    SliceValues,
    Slicing,
    Task,
    categories_of,
    coded_column,
    finish_summaries,
)
from perfeval.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["Ask", "ChunkSlices", "RowNumbers", "SliceFeed", "ask_of", "chunk_columns"]

#: pending cells folded into the summaries once they are this many (or as many as the summaries)
FOLD_CELLS = 1 << 16


class _Absent:
    """The key of a column's missing values (``missing="slice"``) while chunks are merged: not the
    text ``<missing>``, which a column may hold (refused only beside missing values, as in memory).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:  # one object, also across processes (Dask's workers)
        return "ABSENT"


ABSENT = _Absent()


@dataclass(frozen=True)
class Ask:
    """The slicings asked of a backend's evaluation, without the columns' values: the slicings (a
    tuple of column names each), ``min_size``, how a missing value is taken, and (the command) the
    words a missing value is said in.
    """

    wanted: tuple[tuple[str, ...], ...]
    min_size: int | None
    missing: Missing
    words: tuple[str, str] | None = None
    #: where the undefined slices' reasons are listed, in the caller's words (the command: its tables)
    listed: str = "report.slices"
    #: the columns are identities read chunk by chunk as the command reads them (int64 when every
    #: value of the chunk is a plain integer, else the text as written): a plain integer and its
    #: text are one key, the text when a chunk held text (as the column read whole would be)
    text_ids: bool = False

    @property
    def names(self) -> list[str]:
        """The slice columns, each once, in the order they are first named."""
        return list(dict.fromkeys(c for w in self.wanted for c in w))


def ask_of(
    by: Any,
    *,
    intersections: Any = False,
    min_size: Any = None,
    missing: Any = "error",
    table: Any = None,
    taken: Mapping[str, Any] | None = None,
    what: str = "each chunk",
) -> Ask | None:
    """The slicings of ``by=`` for a backend (None without ``by``): column names (a tuple among them
    one intersection), checked as :func:`perfeval.api.slices.request` checks them; ``table`` the
    table they are columns of (a Dask DataFrame), else the columns ``what`` carries.
    """
    if by is None:
        return None
    if isinstance(by, Ask):  # made already (the command's, with its words)
        return by
    if isinstance(by, str):
        by = [by]
    if isinstance(by, Mapping) or hasattr(by, "columns") or hasattr(by, "dtype"):
        raise InvalidParameterError(
            f"by= names the slice columns {what} carries (a list of names; a tuple among them an "
            "intersection), not the columns themselves"
        )
    if not isinstance(by, Sequence) or not by:
        raise InvalidParameterError(
            "`by` names the slice columns: a column name or a list of them (a tuple among them an "
            "intersection, ('country', 'device'))"
        )
    check_options(intersections, min_size, missing)
    held = None if table is None else [str(c) for c in table]
    names_taken = {v: role for role, v in (taken or {}).items() if isinstance(v, str)}
    wanted: list[tuple[str, ...]] = []
    for item in by:  # as evaluate()'s door reads names (api/slices.py _named_columns)
        group = (item,) if isinstance(item, str) else tuple(item) if isinstance(item, (tuple, list)) else None
        if not group or not all(isinstance(c, str) for c in group):
            raise not_a_name(
                item,
                f"by= names the slice columns {what} carries"
                if table is None
                else "by= names columns of the DataFrame",
            )
        if len(set(group)) != len(group):
            raise named_twice(group, item)
        for c in group:
            if c in names_taken:
                raise InvalidParameterError(
                    f"by column {c!r} is the {names_taken[c]} column: a slice column is another column"
                )
            if held is not None and c not in held:
                close = difflib.get_close_matches(c, held, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise InvalidParameterError(
                    f"column {c!r} is not in the table (columns: {', '.join(held)}{hint})"
                )
        wanted.append(group)
    unique, size = asked(wanted, intersections, min_size)
    return Ask(tuple(unique), size, missing)


def chunk_columns(cols: Any, names: Sequence[str], what: str = "a chunk") -> dict[str, Any]:
    """The slice columns ``names`` of one chunk, from a mapping or a DataFrame of them (more columns
    are allowed); one line for a column missing.
    """
    if hasattr(cols, "columns") and hasattr(cols, "iloc"):  # a DataFrame
        held = [str(c) for c in cols.columns]
        get: Any = lambda n: cols[n]  # noqa: E731
    elif isinstance(cols, Mapping):
        held = [str(c) for c in cols]
        get = cols.__getitem__
    else:
        raise InvalidParameterError(
            f"{what}'s slice columns (its last item, with by=) must be a mapping of the names of by= to "
            f"arrays, or a DataFrame; got {type(cols).__name__}"
        )
    out = {}
    for n in names:
        if n not in held:
            raise InvalidParameterError(
                f"{what}'s slice columns lack {n!r}, which by= names (it holds: {', '.join(held) or 'none'})"
            )
        out[n] = get(n)
    return out


class ChunkSlices(dict):
    """A chunk's slice columns (names to arrays) and where its rows are, in words (``position(i)``,
    ``i`` the row within the chunk: the command's file lines), for the messages about them.
    """

    def __init__(self, columns: Mapping[str, Any], position: Callable[[int], str]):
        super().__init__(columns)
        self.position = position


class RowNumbers:
    """Where a row is, in words, for a slice column's messages: ``row 17`` of the whole input (a
    stream's, a Metric's updates), or ``row 3 of partition 2`` (Dask, where a partition's place in
    the whole is not known).  A class, not a closure: Dask's workers send it back pickled.
    """

    def __init__(self, partition: int | None = None):
        self.partition = partition

    def __call__(self, i: int) -> str:
        return f"row {i}" if self.partition is None else f"row {i} of partition {self.partition}"


# -- one slice column's keys over the chunks -----------------------------------------------------------
def _kind(key: Any) -> str:
    """What a key is, as the messages name it: one kind of value a column."""
    if isinstance(key, (bool, np.bool_)):
        return "booleans"
    if isinstance(key, (int, np.integer)):
        return "integers"
    if isinstance(key, str):
        return "strings"
    if isinstance(key, bytes):
        return "bytes"
    return type(key).__name__


@dataclass
class _Read:
    """One chunk's slice column coded (nothing changed yet): its keys, each row's code among them,
    whether the last key is the missing slice, its categories (a categorical), and the first row of
    each kind of key and of the text ``<missing>`` (for the messages).
    """

    keys: list
    codes: np.ndarray
    absent: bool
    categories: list | None
    kinds: dict[str, tuple[Any, str]]
    literal: str | None
    absent_at: str | None


class _Column:
    """One slice column's keys over the chunks: each value once, in the order first seen (its id),
    the kind of its values and a categorical's categories, checked alike in every chunk.
    """

    def __init__(self, name: str, text_ids: bool = False):
        self.name = name
        self.text_ids = text_ids
        self.values: list = []
        self.ids: dict = {}
        #: each kind of value held: its first value and where it was (a column holds one kind)
        self.kinds: dict[str, tuple[Any, str]] = {}
        #: a categorical's categories (None: not a categorical; unknown until the first chunk)
        self.categories: list | None = None
        self.categorical: bool | None = None
        #: where the text '<missing>' and the first missing value were (they cannot meet)
        self.literal: str | None = None
        self.absent_at: str | None = None

    def read(self, values: Any, n: int, where: Callable[[int], str], ask: Ask) -> _Read:
        """A chunk's values coded and checked against the chunks before (no change made)."""
        keys, codes, absent = coded_column(
            self.name, values, missing=ask.missing, position=where, words=ask.words
        )
        if len(codes) != n:
            raise InvalidParameterError(f"by column {self.name!r} holds {len(codes)} values for {n} rows")
        categories = categories_of(values)
        if self.categorical is not None and (
            self.categorical != (categories is not None)
            or (categories is not None and categories != self.categories)
        ):
            raise InvalidDataError(
                f"by column {self.name!r} is a categorical in some chunks and not in others, or has other "
                "categories: give every chunk the column alike (the same categories, in the same order)"
            )
        real = keys[:-1] if absent else keys
        kinds: dict[str, tuple[Any, str]] = {}
        literal = absent_at = None
        if categories is None:
            for j, k in enumerate(real):
                kind = _kind(k)
                if kind not in self.kinds and kind not in kinds:
                    kinds[kind] = (k, where(int(np.argmax(codes == j))))
            held = {**self.kinds, **kinds}
            if len(held) > 1 and not self._joined(held):
                (ka, (va, wa)), (kb, (vb, wb)) = list(held.items())[:2]
                raise InvalidDataError(
                    f"by column {self.name!r} mixes {ka} ({va!r} at {wa}) and {kb} ({vb!r} at {wb}): one "
                    "kind of value a column"
                )
        if MISSING in real:
            literal = where(int(np.argmax(codes == real.index(MISSING))))
        if absent:
            absent_at = where(int(np.argmax(codes == len(keys) - 1)))
        if (literal or self.literal) and (absent_at or self.absent_at):
            raise InvalidDataError(
                f"by column {self.name!r} holds the value {MISSING!r}, the name of the slice of its missing "
                "values: rename that value, or fill the missing ones"
            )
        return _Read(keys, codes, absent, categories, kinds, literal, absent_at)

    def take(self, r: _Read) -> np.ndarray:
        """The chunk read (:meth:`read`) added: each of its keys' id (new keys get new ids)."""
        if self.categorical is None:
            self.categorical, self.categories = r.categories is not None, r.categories
        for kind, first in r.kinds.items():
            self.kinds.setdefault(kind, first)
        self.literal = self.literal or r.literal
        self.absent_at = self.absent_at or r.absent_at
        lut = np.empty(len(r.keys), dtype=np.int64)
        last = len(r.keys) - 1
        for j, k in enumerate(r.keys):
            lut[j] = self._id(ABSENT if r.absent and j == last else k)
        return lut

    def _id(self, key: Any) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.values)
            self.values.append(key)
        return i

    def check_merge(self, other: _Column) -> None:
        """Another feed's column of the same name, checked as a chunk is (nothing changed)."""
        if self.categorical is not None and other.categorical is not None:
            if self.categorical != other.categorical or (
                self.categorical and self.categories != other.categories
            ):
                raise InvalidDataError(
                    f"by column {self.name!r} is a categorical in some chunks and not in others, or has "
                    "other categories: give every chunk the column alike (the same categories, in order)"
                )
        held = {**self.kinds, **{k: v for k, v in other.kinds.items() if k not in self.kinds}}
        if len(held) > 1 and not self._joined(held):
            (ka, (va, wa)), (kb, (vb, wb)) = list(held.items())[:2]
            raise InvalidDataError(
                f"by column {self.name!r} mixes {ka} ({va!r} at {wa}) and {kb} ({vb!r} at {wb}): one kind "
                "of value a column"
            )
        if (self.literal or other.literal) and (self.absent_at or other.absent_at):
            raise InvalidDataError(
                f"by column {self.name!r} holds the value {MISSING!r}, the name of the slice of its missing "
                "values: rename that value, or fill the missing ones"
            )

    def absorb(self, other: _Column) -> np.ndarray:
        """Another feed's column of the same name merged in (checked first, :meth:`check_merge`):
        each of its ids' id here.
        """
        self.check_merge(other)
        if self.categorical is None:
            self.categorical, self.categories = other.categorical, other.categories
        for kind, first in other.kinds.items():
            self.kinds.setdefault(kind, first)
        self.literal = self.literal or other.literal
        self.absent_at = self.absent_at or other.absent_at
        return np.array([self._id(v) for v in other.values], dtype=np.int64)

    def _joined(self, kinds: Mapping[str, Any]) -> bool:
        """Whether these kinds of keys are one column's: integers and text read as identities."""
        return self.text_ids and set(kinds) <= {"integers", "strings"}

    def final(self) -> tuple[list, np.ndarray]:
        """The keys in memory's order (sorted values; a categorical's categories; the missing slice
        last, as :data:`MISSING`) and each id's place among them (several ids may be one key: a
        plain integer and its text, read as identities).
        """
        text = self.text_ids and len(self.kinds) > 1  # a chunk held text: the column is text

        def key(v: Any) -> Any:
            return str(v) if text and isinstance(v, int) and not isinstance(v, bool) else v

        real = list(dict.fromkeys(key(v) for v in self.values if v is not ABSENT))
        if self.categorical:
            rank = {c: i for i, c in enumerate(self.categories or [])}
            ordered = sorted(real, key=lambda v: rank[v])
        else:
            ordered = sorted(real)
        place = {v: i for i, v in enumerate(ordered)}
        keys = ordered + ([MISSING] if ABSENT in self.ids else [])
        at = np.array(
            [place[key(v)] if v is not ABSENT else len(ordered) for v in self.values], dtype=np.int64
        ).reshape(-1)
        return keys, at


# -- the feed --------------------------------------------------------------------------------------------
@dataclass
class _Chunk:
    """One chunk's slice columns read and checked (nothing changed yet): each column's reading, and
    the rows' combinations of the chunk's own codes (distinct ones, and each row's).
    """

    n: int
    reads: list[_Read]
    combos: np.ndarray  # (distinct combinations, columns) of the chunk's codes
    rows: np.ndarray  # each row's combination among them


class SliceFeed:
    """The slices of one evaluation, fed chunk by chunk (a stream's chunks, Dask's partitions, a
    Metric's updates), merged by key, and finished into ``report.slices`` (:meth:`attach`).

    Parameters
    ----------
    ask : Ask
        The slicings asked.
    summary : bool
        Keep each combination's summary (unweighted binary measures without queries), or the rows.
    position : callable, optional
        Where a row (its index in the whole input) is, in words (default ``row i``).
    """

    def __init__(self, ask: Ask, summary: bool, position: Callable[[int], str] | None = None):
        self.ask = ask
        self.names = ask.names
        self.columns = {n: _Column(n, ask.text_ids) for n in self.names}
        self.summary = summary
        #: the rows come with weights (a backend's own flag: every chunk alike)
        self.weighted = False
        self.position: Callable[[int], str] = position or RowNumbers()
        #: rows fed so far (weight 0 included): the next row's index in the whole input
        self.rows_in = 0
        self._combos: dict[tuple, int] = {}
        self._combo_keys: list[tuple] = []  # each combination's column ids
        self._combo_rows = np.zeros(0, dtype=np.int64)  # each combination's rows (weight 0 included)
        # summary: (combination, score, positives, negatives) sorted by combination then score, and
        # the cells of the chunks since (each chunk's sorted alike among its own combinations)
        self._cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = _no_cells()
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending_cells = 0
        # rows: each chunk's combinations and the arrays its door reads
        self._rows: list[tuple[np.ndarray, tuple]] = []

    # -- feeding ---------------------------------------------------------------------------------------
    def read(self, columns: Any, n: int, what: str = "a chunk") -> _Chunk:
        """A chunk's slice columns (a mapping of the names asked to arrays, or a DataFrame) read and
        checked against the chunks before, its rows numbered from :attr:`rows_in`: nothing changes
        until :meth:`take`.
        """
        cols = chunk_columns(columns, self.names, what)
        start = self.rows_in
        local = getattr(columns, "position", None)

        def where(i: int) -> str:
            return local(i) if callable(local) else self.position(start + i)

        reads = [self.columns[name].read(cols[name], n, where, self.ask) for name in self.names]
        combos, rows = _combinations([r.codes for r in reads], [len(r.keys) for r in reads], n)
        return _Chunk(n, reads, combos, rows)

    def take(self, chunk: _Chunk, *, positive: Any = None, scores: Any = None, arrays: tuple = ()) -> None:
        """A chunk read (:meth:`read`) added: with :attr:`summary`, its rows' positives (booleans) and
        scores (checked float64); else the arrays the door reads at the end (``arrays``).
        """
        luts = [self.columns[name].take(r) for name, r in zip(self.names, chunk.reads, strict=True)]
        local = np.empty(len(chunk.combos), dtype=np.int64)
        for i, row in enumerate(chunk.combos.tolist()):
            key = tuple(int(lut[c]) for lut, c in zip(luts, row, strict=True))
            j = self._combos.get(key)
            if j is None:
                j = self._combos[key] = len(self._combo_keys)
                self._combo_keys.append(key)
            local[i] = j
        counts = np.bincount(chunk.rows, minlength=len(chunk.combos))
        self._combo_rows = _added(self._combo_rows, local, counts, len(self._combo_keys))
        if self.summary:
            if chunk.n:
                s = np.ascontiguousarray(scores, dtype=np.float64)
                flag = np.ascontiguousarray(np.asarray(positive) != 0, dtype=np.uint8)
                sc, pos, neg, bounds = _native.group_hist_rows(
                    np.ascontiguousarray(chunk.rows, np.int64), s, flag, len(chunk.combos)
                )
                cells = np.diff(np.frombuffer(bounds, np.int64)).astype(np.int64)
                cc = np.repeat(local, cells)
                self._pend(
                    (
                        cc,
                        np.frombuffer(sc, np.float64),
                        np.frombuffer(pos, np.float64),
                        np.frombuffer(neg, np.float64),
                    )
                )
        else:  # copied: a caller may fill the same buffers again for its next chunk
            kept = tuple(None if a is None else np.array(a, copy=True) for a in arrays)
            self._rows.append((_narrow(local[chunk.rows]), kept))
        self.rows_in += chunk.n

    def add(
        self, columns: Any, n: int, *, positive: Any = None, scores: Any = None, arrays: tuple = ()
    ) -> None:
        """:meth:`read` then :meth:`take`."""
        self.take(self.read(columns, n), positive=positive, scores=scores, arrays=arrays)

    def _pend(self, cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> None:
        self._pending.append(cells)
        self._pending_cells += len(cells[0])
        if self._pending_cells >= max(FOLD_CELLS, len(self._cells[0])):
            self._fold()

    def _fold(self) -> None:
        """The pending cells added to the summaries: each (combination, score) once, its counts
        added (whole numbers: exact in any order).
        """
        if not self._pending:
            return
        self._cells = _merged([self._cells, *self._pending], len(self._combo_keys))
        self._pending, self._pending_cells = [], 0

    def merge(self, other: SliceFeed) -> SliceFeed:
        """``other``'s rows after this feed's (in place; ``other`` unchanged): its keys merged by
        value, its combinations' summaries added, or its rows appended.  Returns self.
        """
        if other.ask.wanted != self.ask.wanted or other.summary != self.summary:
            raise InvalidParameterError("cannot merge the slices of two evaluations that slice otherwise")
        for n in self.names:  # checked first (a failed merge changes nothing), then made
            self.columns[n].check_merge(other.columns[n])
        remaps = [self.columns[n].absorb(other.columns[n]) for n in self.names]
        local = np.empty(len(other._combo_keys), dtype=np.int64)
        for i, key in enumerate(other._combo_keys):
            mine = tuple(int(r[c]) for r, c in zip(remaps, key, strict=True))
            j = self._combos.get(mine)
            if j is None:
                j = self._combos[mine] = len(self._combo_keys)
                self._combo_keys.append(mine)
            local[i] = j
        self._combo_rows = _added(self._combo_rows, local, other._combo_rows, len(self._combo_keys))
        if self.summary:
            for cc, sc, pos, neg in [other._cells, *other._pending]:
                if len(cc):
                    self._pend((local[cc], sc, pos, neg))
        else:
            self._rows += [(_narrow(local[c]), arrays) for c, arrays in other._rows]
        self.rows_in += other.rows_in
        return self

    def copy(self) -> SliceFeed:
        """A feed of the same state, this one unchanged (its arrays are never written to, so they
        are shared; the tables and lists are copied).
        """
        out = SliceFeed.__new__(SliceFeed)
        out.__dict__.update(self.__dict__)
        out.columns = {}
        for n, col in self.columns.items():
            c = _Column.__new__(_Column)
            c.__dict__.update(col.__dict__)
            c.values, c.ids, c.kinds = list(col.values), dict(col.ids), dict(col.kinds)
            out.columns[n] = c
        out._combos, out._combo_keys = dict(self._combos), list(self._combo_keys)
        out._pending, out._rows = list(self._pending), list(self._rows)
        return out

    # -- state (Metric.state_dict) -------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The feed as plain values and numpy arrays (:meth:`from_state` reads it back)."""
        self._fold()
        cols = []
        for n in self.names:
            c = self.columns[n]
            absent = c.ids.get(ABSENT, -1)
            cols.append(
                {
                    "name": n,
                    "values": [None if v is ABSENT else v for v in c.values],
                    "absent": absent,
                    "kinds": {k: list(v) for k, v in c.kinds.items()},
                    "categories": c.categories,
                    "categorical": c.categorical,
                    "literal": c.literal,
                    "absent_at": c.absent_at,
                }
            )
        return {
            "wanted": [list(w) for w in self.ask.wanted],
            "min_size": self.ask.min_size,
            "missing": self.ask.missing,
            "summary": self.summary,
            "weighted": self.weighted,
            "rows_in": self.rows_in,
            "columns": cols,
            "combos": np.array(self._combo_keys, dtype=np.int64).reshape(-1, len(self.names)),
            "combo_rows": self._combo_rows,
            "cells": self._cells,
            "rows": [(c, list(a)) for c, a in self._rows],
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any], ask: Ask) -> SliceFeed:
        """The feed of :meth:`state` (for a Metric asking ``ask``, which the state must have asked)."""
        if [list(w) for w in ask.wanted] != state["wanted"] or (ask.min_size, ask.missing) != (
            state["min_size"],
            state["missing"],
        ):
            raise ValueError("the state's slices are not the Metric's")
        out = cls(ask, summary=bool(state["summary"]))
        out.weighted = bool(state["weighted"])
        out.rows_in = int(state["rows_in"])
        for d in state["columns"]:
            c = out.columns[d["name"]]
            c.values = [ABSENT if i == d["absent"] else v for i, v in enumerate(d["values"])]
            c.ids = {v: i for i, v in enumerate(c.values)}
            c.kinds = {k: (v[0], v[1]) for k, v in d["kinds"].items()}
            c.categories, c.categorical = d["categories"], d["categorical"]
            c.literal, c.absent_at = d["literal"], d["absent_at"]
        out._combo_keys = [tuple(int(x) for x in row) for row in np.asarray(state["combos"]).tolist()]
        out._combos = {k: i for i, k in enumerate(out._combo_keys)}
        out._combo_rows = np.asarray(state["combo_rows"], dtype=np.int64)
        cc, sc, pos, neg = state["cells"]
        out._cells = (np.asarray(cc, np.int64), np.asarray(sc), np.asarray(pos), np.asarray(neg))
        out._rows = [(_narrow(np.asarray(c, np.int64)), tuple(a)) for c, a in state["rows"]]
        return out

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held (the summaries and the pending cells, or the rows)."""
        size = self._combo_rows.nbytes + sum(a.nbytes for a in self._cells)
        size += sum(a.nbytes for p in self._pending for a in p)
        for combo, arrays in self._rows:
            size += combo.nbytes + sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
        return size

    # -- finishing --------------------------------------------------------------------------------------
    def slicings(self) -> list[tuple[tuple[str, ...], list, np.ndarray]]:
        """Every slicing asked: its columns, its keys in memory's order, and each combination's slice."""
        finals = {name: col.final() for name, col in self.columns.items()}
        combos = np.array(self._combo_keys, dtype=np.int64).reshape(-1, len(self.names))
        placed = np.column_stack(
            [
                finals[name][1][combos[:, j]] if len(combos) else np.zeros(0, np.int64)
                for j, name in enumerate(self.names)
            ]
        ).reshape(-1, len(self.names))
        check_slice_count(self.ask.wanted, {c: len(finals[c][0]) for c in self.names}, len(combos))
        out = []
        for w in self.ask.wanted:
            idx = [self.names.index(c) for c in w]
            if len(w) == 1:
                keys: list = list(finals[w[0]][0])
                slice_of = placed[:, idx[0]].copy()
            elif len(placed):
                # the intersections that hold a row, in the order of the columns' keys (as intersect)
                u, inv = np.unique(placed[:, idx], axis=0, return_inverse=True)
                keys = [tuple(finals[c][0][v] for c, v in zip(w, row, strict=True)) for row in u.tolist()]
                slice_of = np.asarray(inv, dtype=np.int64).reshape(-1)
            else:
                keys, slice_of = [], np.zeros(0, dtype=np.int64)
            out.append((w, keys, slice_of))
        return out

    def attach(
        self,
        report: Any,
        task: Task | None = None,
        door: Callable[..., tuple[Cases, Task]] | None = None,
    ) -> None:
        """Finish every slicing into ``report.slices``: from the summaries with ``task`` (its binary
        measures), or from the rows through ``door`` (the arrays of every chunk joined, in order, to
        the checked cases and the task, as the in-memory path makes them).
        """
        slicings = self.slicings()
        self._task = task
        if not self.summary:
            assert door is not None
            self._attach_rows(report, door, slicings)
            return
        assert task is not None
        self._fold()
        self._task = task
        results = []
        for w, keys, slice_of in slicings:
            rows = _per_slice(slice_of, self._combo_rows, len(keys))
            values = self._finish_summaries(task, slice_of, len(keys), rows)
            results.append(slicing_result(w, keys, values, self.ask.min_size))
        attach_results(
            report,
            results,
            task,
            min_size=self.ask.min_size,
            missing=self.ask.missing,
            listed=self.ask.listed,
        )

    def _attach_rows(self, report: Any, door: Callable[..., tuple[Cases, Task]], slicings: list) -> None:
        if not self._rows:  # no row at all: every slicing without a slice
            self._attach_empty(report, slicings)
            return
        width = max((len(a) for _, a in self._rows), default=0)
        combo = np.concatenate([c for c, _ in self._rows]).astype(np.int64)
        joined = []
        for k in range(width):
            parts = [a[k] for _, a in self._rows if len(a) > k]
            joined.append(None if any(p is None for p in parts) else _joined(parts))
        cases, task = door(*joined)
        keep = None
        if cases.rows_in != len(cases.s):  # the door dropped the rows of weight 0
            keep = np.asarray(joined[3], dtype=np.float64) > 0
        # each slicing's codes made when it is finished (one slicing's at a time, not all at once)
        made = [
            Slicing.of_combinations(w, combo, len(slice_of), _given(keys, slice_of))
            for w, keys, slice_of in slicings
        ]
        finish_all(
            report,
            cases,
            task,
            made,
            keep=keep,
            min_size=self.ask.min_size,
            missing=self.ask.missing,
            listed=self.ask.listed,
        )

    def _attach_empty(self, report: Any, slicings: list) -> None:
        task = self._task
        assert task is not None
        results = []
        for w, keys, _slice_of in slicings:
            empty = np.zeros(0, dtype=np.int64)
            values = SliceValues(empty, empty, np.zeros(0), None, None, None)
            for sp in task.specs:
                if not sp.companion:
                    values.values[sp.label] = np.zeros(0)
            results.append(slicing_result(w, keys, values, self.ask.min_size))
        attach_results(
            report,
            results,
            task,
            min_size=self.ask.min_size,
            missing=self.ask.missing,
            listed=self.ask.listed,
        )

    def _finish_summaries(self, task: Task, slice_of: np.ndarray, n: int, rows: np.ndarray) -> SliceValues:
        """One slicing's values from its combinations' summaries: each slice's summary their sum
        (:func:`_merged`), finished by :func:`perfeval.engine.slices.finish_summaries`.
        """
        _sl, sc, pos, neg = _merged([(slice_of[self._cells[0]], *self._cells[1:])], n)
        return finish_summaries(task, sc, pos, neg, np.bincount(_sl, minlength=n), rows)


# -- helpers ----------------------------------------------------------------------------------------------
def _given(keys: list, slice_of: np.ndarray) -> Callable[[], tuple[list, np.ndarray]]:
    """A slicing's keys and each combination's slice, as :meth:`Slicing.of_combinations` asks them."""
    return lambda: (keys, slice_of)


def _narrow(combos: np.ndarray) -> np.ndarray:
    """Each kept row's combination as int32 when they fit (4 bytes a row, not 8)."""
    return combos.astype(np.int32) if not len(combos) or int(combos.max()) < 2**31 else combos


def _no_cells() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0)


def _merged(
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cells (key 0..groups-1, score, positives, negatives) sorted by key then score, each (key,
    score) once with its counts added (whole numbers: the same bits in any order): each key's cells
    gathered and merged as the sorted runs they come in (csrc/slices.c cells_hist).
    """
    parts = [p for p in parts if len(p[0])]
    if not parts:
        return _no_cells()
    joined = [p[0] if len(p) == 1 else np.concatenate(p) for p in zip(*parts, strict=True)]
    sc, pos, neg, bounds = _native.cells_hist(
        np.ascontiguousarray(joined[0], np.int64),
        *(np.ascontiguousarray(a, np.float64) for a in joined[1:]),
        groups,
    )
    cells = np.diff(np.frombuffer(bounds, np.int64)).astype(np.int64)
    return (
        np.repeat(np.arange(groups, dtype=np.int64), cells),
        np.frombuffer(sc, np.float64),
        np.frombuffer(pos, np.float64),
        np.frombuffer(neg, np.float64),
    )


def _combinations(codes: list[np.ndarray], sizes: list[int], n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct combinations of a chunk's column codes (rows of codes), and each row's."""
    k = len(codes)
    if n == 0:
        return np.zeros((0, k), dtype=np.int64), np.zeros(0, dtype=np.int64)
    span = 1
    for m in sizes:
        span *= max(m, 1)
    if span < 2**62:  # one number a combination (mixed radix), its distinct values counted
        from perfeval.summaries.ranking import group_codes

        joint = np.zeros(n, dtype=np.int64)
        for c, m in zip(codes, sizes, strict=True):
            joint = joint * max(m, 1) + c
        u, rows = group_codes(joint)
        out = np.empty((len(u), k), dtype=np.int64)
        u = np.asarray(u, dtype=np.int64)
        for j in range(k - 1, -1, -1):
            m = max(sizes[j], 1)
            out[:, j] = u % m
            u = u // m
        return out, rows
    u, rows = np.unique(np.column_stack(codes), axis=0, return_inverse=True)
    return u.astype(np.int64), np.asarray(rows, dtype=np.int64).reshape(-1)


def _added(held: np.ndarray, at: np.ndarray, counts: np.ndarray, size: int) -> np.ndarray:
    """``held`` (grown to ``size``) with ``counts`` added at ``at``."""
    out = np.zeros(size, dtype=np.int64)
    out[: len(held)] = held
    np.add.at(out, at, np.asarray(counts, dtype=np.int64))
    return out


def _per_slice(slice_of: np.ndarray, per_combo: np.ndarray, n: int) -> np.ndarray:
    """Whole numbers of each combination added up by slice (exact)."""
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, slice_of, per_combo)
    return out


def _joined(parts: list) -> Any:
    """One array of the chunks' arrays, in order (a 2-D score matrix joined by rows)."""
    arrays = [np.asarray(p) for p in parts]
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays)
