"""The state of a :class:`perfeval.Metric` that is not a ScoreHistogram, stored exactly and compactly.

:class:`KeptRows`: the checked rows of the grouped and per-query measures (the default), one column
each, every column read back with the values and dtype it was given:

* numbers in the narrowest type that holds them bit for bit (0/1 or graded targets in one byte,
  float32 model scores in four, whole weights in one or two), read back in their own dtype: the
  rule of the spill's codec (:func:`perfeval.io.spill.narrow`);
* group ids (and text targets) as int32 codes into one sorted vocabulary of the distinct values.

Updates are kept as parts, joined with their neighbours as they grow (each join at least 1.5 times
the larger part, so a row is copied O(log updates) times), up to :attr:`KeptRows.JOIN_ROWS` rows a
part: O(log updates) parts, and one more per JOIN_ROWS / 2 rows past that.  A join keeps the rows
in order and unites the vocabularies; ``compute()`` reads every part straight into one array per
column.

:class:`FinishedGroups`: the groups of ``Metric(..., clustered=True)``, finished when their update
came: each group's key, size and value of every measure, O(groups), held as sorted runs merged as
they grow (a group's key is looked up in O(log) per run).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from perfeval.io.spill import narrow

__all__ = [
    "ClassState",
    "Column",
    "FinishedGroups",
    "GroupedRows",
    "KeptRows",
    "LabelState",
    "key_family",
    "nbytes",
]


def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """The dtype of ``np.concatenate`` of arrays of these dtypes (what evaluate() would be given)."""
    if a == b:
        return a
    return np.concatenate([np.zeros(0, a), np.zeros(0, b)]).dtype


def _codes_dtype(n: int) -> np.dtype:
    return np.dtype(np.int32) if n < 2**31 else np.dtype(np.int64)


def _as_text(vocab: np.ndarray) -> np.ndarray:
    """A sorted vocabulary of Python strings (pandas' object columns) as a numpy text array, which
    is smaller and searched without Python comparisons, when that keeps every value; else as it is.
    """
    if vocab.dtype.kind != "O" or not len(vocab):
        return vocab
    if not all(type(v) is str for v in vocab.tolist()):
        return vocab
    text = vocab.astype(str)
    if not bool((text.astype(object) == vocab).all()):  # a trailing NUL, which numpy text drops
        return vocab
    return text


def key_family(dtype: np.dtype) -> str:
    """What kind of ids a group column holds, for messages and for the check that every update's
    ids can be put together exactly (no float promotion, no numbers turned into text).
    """
    k = dtype.kind  # Python objects (pandas' text columns) go with text: numpy joins them exactly
    return {"i": "integers", "u": "integers", "b": "booleans", "U": "text", "O": "text", "S": "bytes"}.get(
        k, dtype.name
    )


def nbytes(a: Any) -> int:
    """Bytes an array holds: its buffer, and for an object array each distinct object it points to."""
    if a is None:
        return 0
    a = np.asarray(a)
    size = int(a.nbytes)
    if a.dtype.kind == "O":
        size += sum(sys.getsizeof(v) for v in {id(v): v for v in a.tolist()}.values())
    return size


# -- one column ----------------------------------------------------------------------------------------
class Column:
    """One column of kept rows: ``data`` the values (narrowed) or, with ``vocab``, codes into the
    sorted distinct values; ``dtype`` the dtype they are read back in.
    """

    __slots__ = ("data", "dtype", "vocab")

    def __init__(self, data: np.ndarray, vocab: np.ndarray | None, dtype: np.dtype):
        self.data, self.vocab, self.dtype = data, vocab, np.dtype(dtype)

    @classmethod
    def of_values(cls, a: np.ndarray, *, whole: bool = True) -> Column:
        """Numbers or booleans, narrowed; text as codes into its distinct values; anything else
        (an object column of mixed types) as given.
        """
        if a.dtype.kind in "biuf":
            return cls(narrow(a, whole=whole), None, a.dtype)
        try:
            vocab, codes = np.unique(a, return_inverse=True)
        except TypeError:  # not orderable: kept as given
            return cls(a.copy(), None, a.dtype)
        return cls(codes.reshape(-1).astype(_codes_dtype(len(vocab))), _as_text(vocab), a.dtype)

    @classmethod
    def of_groups(cls, g: np.ndarray) -> Column:
        """Group ids as int32 codes into their sorted distinct ids (the engine's own coding)."""
        from perfeval.summaries.ranking import group_codes

        if not len(g):
            return cls(np.zeros(0, np.int32), g[:0].copy(), g.dtype)
        try:
            keys, codes = group_codes(g)
        except TypeError:  # ids of mixed types: kept as given (evaluate() refuses them the same way)
            return cls(g.copy(), None, g.dtype)
        return cls(codes.astype(_codes_dtype(len(keys))), _as_text(np.asarray(keys)), g.dtype)

    def __len__(self) -> int:
        return len(self.data)

    @property
    def nbytes(self) -> int:
        return nbytes(self.data) + nbytes(self.vocab)

    def decode(self) -> np.ndarray:
        """The values as given (the dtype of ``np.concatenate`` of every batch's)."""
        vals = self.data if self.vocab is None else self.vocab[self.data]
        return vals if vals.dtype == self.dtype else vals.astype(self.dtype)

    @staticmethod
    def join(a: Column, b: Column) -> Column:
        """``a``'s rows then ``b``'s, read back as ``np.concatenate`` of the two would give them."""
        dtype = _promote(a.dtype, b.dtype)
        if a.vocab is None and b.vocab is None and dtype.kind in "biuf":
            # narrow numbers: numpy's promotion of the narrow types keeps every value exactly
            # (int8 with uint8 -> int16, int8 with float32 -> float32, int32 with float32 -> float64)
            return Column(np.concatenate([a.data, b.data]), None, dtype)
        if a.vocab is not None and b.vocab is not None:
            try:
                vocab = np.union1d(a.vocab, b.vocab)
            except TypeError:
                vocab = None
            if vocab is not None:
                ct = _codes_dtype(len(vocab))
                data = np.empty(len(a.data) + len(b.data), dtype=ct)  # each side's codes mapped in place
                _remap(np.searchsorted(vocab, a.vocab).astype(ct), a.data, data[: len(a.data)])
                _remap(np.searchsorted(vocab, b.vocab).astype(ct), b.data, data[len(a.data) :])
                return Column(data, _as_text(vocab), dtype)
        both = np.concatenate([a.decode(), b.decode()])
        return Column.of_values(both) if both.dtype.kind != "O" else Column(both, None, dtype)

    def state(self) -> tuple:
        return (self.data, self.vocab, self.dtype.str)

    @classmethod
    def from_state(cls, state: tuple) -> Column:
        data, vocab, dtype = state
        return cls(data, vocab, np.dtype(dtype))


def _remap(new_code: np.ndarray, codes: np.ndarray, out: np.ndarray, block: int = 1 << 20) -> None:
    """``out[:] = new_code[codes]`` a block at a time (numpy makes the indices intp: 8 bytes a row
    at once otherwise, twice the codes).
    """
    for a in range(0, len(codes), block):
        np.take(new_code, codes[a : a + block], out=out[a : a + block], mode="clip")  # valid codes


class _Part:
    """The rows of one or more consecutive updates (``i``: the document ids a dialect orders ties by)."""

    __slots__ = ("g", "i", "s", "w", "y")

    def __init__(
        self, y: Column, s: Column, g: Column | None, w: Column | None, i: Column | None = None
    ) -> None:
        self.y, self.s, self.g, self.w, self.i = y, s, g, w, i

    def __len__(self) -> int:
        return len(self.s)

    def columns(self) -> list[Column | None]:
        return [self.y, self.s, self.g, self.w, self.i]

    @staticmethod
    def join(pair: list[_Part]) -> _Part:
        """The two parts of ``pair`` (emptied: the caller holds no other reference to them) as one.
        Column by column, each pair of columns let go as soon as it is joined, so that memory peaks
        at the two parts and one joined column, not twice the two parts.  Columns that another
        Metric shares (after a merge) stay alive there: no Column is ever changed.
        """
        ca, cb = pair[0].columns(), pair[1].columns()
        pair.clear()
        cols: list[Column | None] = []
        for i in range(len(ca)):
            x, z = ca[i], cb[i]
            ca[i] = cb[i] = None
            cols.append(None if x is None or z is None else Column.join(x, z))
            del x, z
        y, s = cols[0], cols[1]
        assert y is not None and s is not None
        return _Part(y, s, cols[2], cols[3], cols[4])


class KeptRows:
    """The checked rows of every update, in order, stored compactly and read back exactly."""

    #: parts stop growing at about this many rows: a join holds both parts and one joined column,
    #: so a cap bounds that transient; past it the parts are many (one per JOIN_ROWS / 2 rows at
    #: most) but each is read straight into the arrays compute() hands the engine
    JOIN_ROWS = 1 << 22

    def __init__(self) -> None:
        self._parts: list[_Part] = []

    @property
    def rows(self) -> int:
        return sum(len(p) for p in self._parts)

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for p in self._parts for c in p.columns() if c is not None)

    def __bool__(self) -> bool:
        return bool(self._parts)

    def add(
        self,
        y: np.ndarray,
        s: np.ndarray,
        g: np.ndarray | None,
        w: np.ndarray | None,
        ids: np.ndarray | None = None,
    ) -> None:
        """One update's checked rows (copied: the caller's buffers are never kept)."""
        self._parts.append(
            _Part(
                Column.of_values(y),
                Column.of_values(s, whole=False),
                None if g is None else Column.of_groups(g),
                None if w is None else Column.of_values(w),
                None if ids is None else Column.of_values(ids),
            )
        )
        self._settle()

    def extend(self, other: KeptRows) -> None:
        """``other``'s rows after these (``other`` unchanged: its parts are never written to)."""
        self._parts.extend(other._parts)
        self._settle()

    def copy(self) -> KeptRows:
        """The same rows in a new list of parts (the parts themselves are never written to)."""
        out = KeptRows()
        out._parts = list(self._parts)
        return out

    def snapshot(self) -> list:
        """What :meth:`restore` puts back: the list of parts as it is now."""
        return list(self._parts)

    def restore(self, snapshot: list) -> None:
        self._parts[:] = snapshot

    def _settle(self) -> None:
        """Join the last part with the one before while that one is at most twice its size (each
        join at least 1.5 times the larger part: a row is copied O(log) times), up to JOIN_ROWS.
        """
        parts = self._parts
        while (
            len(parts) >= 2
            and len(parts[-2]) <= 2 * len(parts[-1])
            and len(parts[-2]) + len(parts[-1]) <= self.JOIN_ROWS
        ):
            parts.append(_Part.join([parts.pop(-2), parts.pop()]))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None] | None:
        """Every row as evaluate() would be given them, ``np.concatenate`` of the batches as given:
        (y, s, g, w), None when there is none.  Each column is made once and filled part by part
        (each part read back in its own dtype, then cast as np.concatenate casts it).
        """
        if not self._parts:
            return None
        out = [self._column(i) for i in range(4)]
        y, s = out[0], out[1]
        assert y is not None and s is not None
        return y, s, out[2], out[3]

    def ids(self) -> np.ndarray | None:
        """The document ids of every row, as ``np.concatenate`` of the batches' (None: none kept)."""
        return self._column(4) if self._parts else None

    def _column(self, i: int) -> np.ndarray | None:
        """Column ``i`` of every part as one array: made once and filled part by part (each part
        read back in its own dtype, then cast as np.concatenate casts it).
        """
        cols = [c for c in (p.columns()[i] for p in self._parts) if c is not None]
        if not cols:  # no groups, no weights, no ids
            return None
        dtype = cols[0].dtype
        for c in cols[1:]:
            dtype = _promote(dtype, c.dtype)
        if len(cols) == 1:
            return cols[0].decode()
        a = np.empty(self.rows, dtype=dtype)
        at = 0
        for c in cols:
            a[at : at + len(c)] = c.decode()
            at += len(c)
        return a

    def state(self) -> list[dict] | None:
        if not self._parts:
            return None
        return [
            {k: None if c is None else c.state() for k, c in zip("ysgwi", p.columns(), strict=True)}
            for p in self._parts
        ]

    @classmethod
    def from_state(cls, state: Any) -> KeptRows:
        """From :meth:`state`, or from a version-1 state's ``(y, s, g, w)`` arrays."""
        out = cls()
        if state is None:
            return out
        if isinstance(state, list):
            for part in state:  # (a state written before ids were kept has no "i")
                cols = [None if part.get(k) is None else Column.from_state(part[k]) for k in "ysgwi"]
                y, s = cols[0], cols[1]
                assert y is not None and s is not None
                out._parts.append(_Part(y, s, cols[2], cols[3], cols[4]))
        else:
            y, s, g, w = state
            out.add(np.asarray(y), np.asarray(s, dtype=np.float64), g, w)
        return out

    def first_group_id(self) -> Any:
        """One group id held (for the kind of ids a state of an earlier layout holds), or None."""
        for p in self._parts:
            if p.g is not None and len(p.g):
                held = p.g.vocab if p.g.vocab is not None else p.g.data
                if len(held):
                    return held[0]
        return None

    def group_dtype(self) -> np.dtype | None:
        """The dtype the group ids are read back in (None without groups)."""
        dtype = None
        for p in self._parts:
            if p.g is not None:
                dtype = p.g.dtype if dtype is None else _promote(dtype, p.g.dtype)
        return dtype


# -- finished groups ----------------------------------------------------------------------------------
class FinishedGroups:
    """Groups finished one update at a time: each one's key, size (its cases' total weight) and
    value of every measure (``values``: one row a measure, in ``labels`` order).  Runs of sorted
    keys, joined as they grow, as :class:`KeptRows` joins its parts.
    """

    def __init__(self, labels: list[str]) -> None:
        self.labels = list(labels)
        self._runs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.key_dtype: np.dtype | None = None  # the dtype evaluate() gives the keys of all the rows
        #: the reasons of the NaN groups, {label: {key: why}} (engine.finish.group_whys): few, small
        self.whys: dict[str, dict] = {}

    def __len__(self) -> int:
        return sum(len(r[0]) for r in self._runs)

    @property
    def nbytes(self) -> int:
        return sum(nbytes(a) for run in self._runs for a in run)

    @staticmethod
    def stored(keys: np.ndarray) -> np.ndarray:
        """Keys as they are held (Python strings as numpy text)."""
        return _as_text(np.asarray(keys))

    def held(self, keys: np.ndarray) -> np.ndarray:
        """Which of ``keys`` (sorted, distinct) are among the finished groups."""
        keys = self.stored(keys)
        hit = np.zeros(len(keys), dtype=bool)
        for run_keys, _, _ in self._runs:
            if not len(run_keys) or not len(keys):
                continue
            at = np.searchsorted(run_keys, keys)
            inside = at < len(run_keys)
            hit[inside] |= run_keys[at[inside]] == keys[inside]
        return hit

    def add(
        self,
        keys: np.ndarray,
        sizes: np.ndarray,
        values: np.ndarray,
        key_dtype: np.dtype,
        whys: dict | None = None,
    ) -> None:
        """Groups none of which is held yet (the caller checked), keys sorted and distinct; ``whys``:
        the reasons of those NaN, ``{label: {key: why}}``.
        """
        if not len(keys):  # no group: nothing to say about the keys' dtype either
            return
        self._add_whys(whys or {})
        self.key_dtype = key_dtype if self.key_dtype is None else _promote(self.key_dtype, key_dtype)
        self._runs.append(
            (self.stored(keys), np.asarray(sizes, dtype=np.float64), np.asarray(values, dtype=np.float64))
        )
        self._settle()

    def copy(self) -> FinishedGroups:
        """The same groups in a new list of runs (the runs themselves are never written to)."""
        out = FinishedGroups(self.labels)
        out._runs, out.key_dtype = list(self._runs), self.key_dtype
        out.whys = {label: dict(said) for label, said in self.whys.items()}
        return out

    def _add_whys(self, whys: dict) -> None:
        """Reasons added in new dicts (a snapshot's stay as they were)."""
        for label, said in whys.items():
            self.whys[label] = {**self.whys.get(label, {}), **said}

    def snapshot(self) -> tuple:
        """What :meth:`restore` puts back: the runs, the keys' dtype and the reasons as they are now."""
        return list(self._runs), self.key_dtype, dict(self.whys)

    def restore(self, snapshot: tuple) -> None:
        self._runs[:], self.key_dtype = snapshot[0], snapshot[1]
        self.whys = dict(snapshot[2])

    def first_key(self) -> Any:
        """One key held, or None."""
        return next((run[0][0] for run in self._runs if len(run[0])), None)

    def extend(self, other: FinishedGroups) -> None:
        if other.key_dtype is not None:
            self.key_dtype = (
                other.key_dtype if self.key_dtype is None else _promote(self.key_dtype, other.key_dtype)
            )
        self._runs.extend(other._runs)
        self._add_whys(other.whys)
        self._settle()

    def _settle(self) -> None:
        runs = self._runs
        while len(runs) >= 2 and len(runs[-2][0]) <= 2 * len(runs[-1][0]):
            b = runs.pop()
            runs[-1] = self._join(runs[-1], b)

    @staticmethod
    def _join(a: tuple, b: tuple) -> tuple:
        keys = np.concatenate([a[0], b[0]])
        order = np.argsort(keys, kind="stable")  # two sorted runs: merged
        return (
            keys[order],
            np.concatenate([a[1], b[1]])[order],
            np.concatenate([a[2], b[2]], axis=1)[:, order],
        )

    def one(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keys, sizes, values) of every group, keys sorted (kept so)."""
        while len(self._runs) > 1:
            b = self._runs.pop()
            self._runs[-1] = self._join(self._runs[-1], b)
        if not self._runs:
            dtype = np.int64 if self.key_dtype is None else self.key_dtype
            return np.zeros(0, dtype), np.zeros(0), np.zeros((len(self.labels), 0))
        return self._runs[0]

    def state(self) -> dict:
        keys, sizes, values = self.one()
        return {
            "keys": keys,
            "key_dtype": None if self.key_dtype is None else self.key_dtype.str,
            "sizes": sizes,
            "values": values,
            # the NaN groups' reasons: (label, key, why) triples
            "whys": [(label, k, why) for label, said in self.whys.items() for k, why in said.items()],
        }

    @classmethod
    def from_state(cls, labels: list[str], state: dict) -> FinishedGroups:
        out = cls(labels)
        out.key_dtype = None if state["key_dtype"] is None else np.dtype(state["key_dtype"])
        if len(state["keys"]):
            out._runs = [(state["keys"], state["sizes"], state["values"])]
        for label, k, why in state.get("whys", ()):  # a state saved before reasons were kept: none
            out.whys.setdefault(label, {})[k] = why
        return out


# -- K classes -------------------------------------------------------------------------------------------
class ClassState:
    """The state of ``Metric(measures, classes=[...])``: one
    :class:`~perfeval.summaries.classes.ClassSummary` of the rows folded so far, and the checked
    rows of the updates not folded in yet (class codes, the (n, K) scores, the weights or None).

    Rows are folded in their order (:meth:`ClassSummary.folded`), several updates at once when they
    are many and small: folding their rows together adds each cell's weights in the same order as
    folding them one update at a time, so the summary has the bits of the summary of every row
    at once (weights too), whatever the sizes of the updates.
    """

    #: rows held before they are folded into the summary (at least; more when the summary is larger)
    FOLD_ROWS = 1 << 16

    __slots__ = ("classes", "summary", "pending", "pending_rows")

    def __init__(self, classes: tuple, summary: Any = None):
        from perfeval.summaries.classes import ClassSummary

        self.classes = tuple(classes)
        self.summary = ClassSummary.empty(self.classes) if summary is None else summary
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
        self.pending_rows = 0

    def copy(self) -> ClassState:
        out = ClassState(self.classes, self.summary)
        out.pending, out.pending_rows = list(self.pending), self.pending_rows
        return out

    def add(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Hold a batch of checked rows (copied: none of the caller's buffers is kept)."""
        if not len(y):
            return
        self.pending.append(
            (np.array(y, np.intp), np.array(s, np.float64), None if w is None else np.array(w))
        )
        self.pending_rows += len(y)
        if self.pending_rows >= max(self.FOLD_ROWS, len(self.summary.scores) // max(1, len(self.classes))):
            self.fold()

    def folded(self) -> Any:
        """The summary with the rows held folded in (this state unchanged)."""
        if not self.pending:
            return self.summary
        y = np.concatenate([p[0] for p in self.pending])
        s = np.concatenate([p[1] for p in self.pending])
        w = None if self.pending[0][2] is None else np.concatenate([p[2] for p in self.pending])
        return self.summary.folded(y, s, w)

    def fold(self) -> None:
        self.summary = self.folded()
        self.pending, self.pending_rows = [], 0

    @property
    def nbytes(self) -> int:
        cs = self.summary
        size = sum(
            nbytes(a)
            for a in (
                cs.offsets,
                cs.scores,
                cs.weights,
                cs.sure,
                cs.topk,
                cs.tie_keys,
                cs.tie_rows,
                *(cs.top or ()),
            )
        )
        return size + sum(nbytes(a) for p in self.pending for a in p)

    def state(self) -> dict[str, Any]:
        """The state as plain values and arrays (:meth:`from_state` reads it back)."""
        self.fold()
        cs = self.summary
        return {
            "classes": list(self.classes),
            "offsets": cs.offsets,
            "scores": cs.scores,
            "weights": cs.weights,
            "sure": cs.sure,
            "tie_keys": cs.tie_keys,
            "tie_rows": cs.tie_rows,
            "topk": cs.topk,
            "off_simplex": tuple(cs.off_simplex),
            **(
                {}
                if cs.top is None
                else {
                    "top_scores": cs.top[0],
                    "top_ties": cs.top[1],
                    "top_weights": cs.top[2],
                    "top_right": cs.top[3],
                }
            ),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ClassState:
        from perfeval.summaries.classes import ClassSummary

        classes = tuple(state["classes"])
        off = tuple(state["off_simplex"])
        cs = ClassSummary(
            classes,
            np.asarray(state["offsets"]),
            np.asarray(state["scores"]),
            np.asarray(state["weights"]),
            # a state saved before the tie tables: its confusion (ties shared) read as the sure table
            np.asarray(state["sure"] if "sure" in state else state["confusion"]),
            np.asarray(state["topk"]),
            (int(off[0]), float(off[1]), float(off[2])),
            np.asarray(state["tie_keys"]) if "tie_keys" in state else None,
            np.asarray(state["tie_rows"]) if "tie_rows" in state else None,
            # a state saved before the top-label table: none (ECE_TOP says so)
            top=tuple(np.asarray(state[f"top_{x}"]) for x in ("scores", "ties", "weights", "right"))  # type: ignore[arg-type]
            if "top_scores" in state
            else None,
        )
        return cls(classes, cs)


class LabelState:
    """The state of ``Metric(measures, labels=[...])`` (multilabel): one
    :class:`~perfeval.summaries.labels.LabelSummary` of the rows folded so far, and the checked rows
    of the updates not folded in yet (the (n, K) 0/1 targets as booleans, the (n, K) scores, the
    weights or None).  The same interface as :class:`ClassState`.

    Rows are folded in their order (:meth:`LabelSummary.folded`), several updates at once: the
    summary has the bits of the summary of every row at once (weights too), whatever the sizes of
    the updates.
    """

    FOLD_ROWS = 1 << 16

    __slots__ = ("classes", "summary", "pending", "pending_rows")

    def __init__(self, classes: tuple, summary: Any):
        self.classes = tuple(classes)
        self.summary = summary
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
        self.pending_rows = 0

    @classmethod
    def empty(cls, classes: tuple, specs: list) -> LabelState:
        """The state of no rows for the measures ``specs`` (their thresholds, their row sums)."""
        from perfeval.engine.labels import empty_summary

        return cls(classes, empty_summary(tuple(classes), specs))

    def copy(self) -> LabelState:
        out = LabelState(self.classes, self.summary)
        out.pending, out.pending_rows = list(self.pending), self.pending_rows
        return out

    def add(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Hold a batch of checked rows (copied: none of the caller's buffers is kept)."""
        if not len(y):
            return
        self.pending.append((np.array(y, bool), np.array(s, np.float64), None if w is None else np.array(w)))
        self.pending_rows += len(y)
        held = sum(len(h.scores) for h in self.summary.hists) // max(1, len(self.classes))
        if self.pending_rows >= max(self.FOLD_ROWS, held):
            self.fold()

    def folded(self) -> Any:
        """The summary with the rows held folded in (this state unchanged)."""
        if not self.pending:
            return self.summary
        y = np.concatenate([p[0] for p in self.pending])
        s = np.concatenate([p[1] for p in self.pending])
        w = None if self.pending[0][2] is None else np.concatenate([p[2] for p in self.pending])
        return self.summary.folded(y, s, w)

    def fold(self) -> None:
        self.summary = self.folded()
        self.pending, self.pending_rows = [], 0

    @property
    def nbytes(self) -> int:
        ls = self.summary
        size = sum(nbytes(a) for h in ls.hists for a in (h.scores, h.pos, h.neg))
        size += sum(nbytes(a) for table in ls.rows.values() for a in table)
        return size + sum(nbytes(a) for p in self.pending for a in p)

    def state(self) -> dict[str, Any]:
        """The state as plain values and arrays (:meth:`from_state` reads it back)."""
        self.fold()
        ls = self.summary
        return {
            "task": "multilabel",
            "classes": list(self.classes),
            "hists": [(h.scores, h.pos, h.neg) for h in ls.hists],
            "ranked": {name: (r.total, r.weight, r.rows) for name, r in ls.ranked.items()},
            "rows": [(t, keys, weights) for t, (keys, weights) in ls.rows.items()],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> LabelState:
        from perfeval.measures.multilabel import RANKED
        from perfeval.summaries import ScoreHistogram
        from perfeval.summaries.labels import LabelSummary
        from perfeval.summaries.rowsums import RowSums

        if state.get("task") != "multilabel":
            raise ValueError("a state of K classes, not of K labels")
        classes = tuple(state["classes"])
        ranked = {str(name): RowSums(int(a), int(b), int(c)) for name, (a, b, c) in state["ranked"].items()}
        ls = LabelSummary(
            classes,
            [ScoreHistogram(np.asarray(a), np.asarray(b), np.asarray(c)) for a, b, c in state["hists"]],
            ranked,
            {
                float(t): (np.asarray(k, dtype=np.int64), np.asarray(w, dtype=np.float64))
                for t, k, w in state["rows"]
            },
            {name: RANKED[name] for name in ranked},
        )
        return cls(classes, ls)


class GroupedRows:
    """The state of ``Metric(measures, classes=[...])`` or ``Metric(measures, labels=[...])`` updated
    with ``groups=``: the checked rows of every update, in order (the targets, class codes or the
    (n, K) 0/1 matrix as booleans; the (n, K) scores; the group ids; the weights or None), finished
    at ``compute()`` by the engine that finishes ``evaluate(..., groups=)`` on all of them, so the
    numbers are its bits, weights too, as a binary Metric with groups keeps its rows.  The same
    interface as :class:`ClassState` where the Metric reads it (``copy``, ``nbytes``, ``state``).
    """

    __slots__ = ("classes", "task", "parts")

    def __init__(self, classes: tuple, task: str, parts: list | None = None):
        self.classes = tuple(classes)
        self.task = task
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = list(parts or [])

    def copy(self) -> GroupedRows:
        return GroupedRows(self.classes, self.task, self.parts)

    def add(self, y: np.ndarray, s: np.ndarray, g: np.ndarray, w: np.ndarray | None) -> None:
        """Hold a batch of checked rows (copied: none of the caller's buffers is kept)."""
        if not len(y):
            return
        dtype = bool if self.task == "multilabel" else np.intp
        self.parts.append(
            (np.array(y, dtype), np.array(s, np.float64), np.array(g), None if w is None else np.array(w))
        )

    def extend(self, other: GroupedRows) -> None:
        """``other``'s rows after these (``other`` unchanged: its arrays are never written to)."""
        self.parts.extend(other.parts)

    @property
    def rows(self) -> int:
        return sum(len(p[0]) for p in self.parts)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None:
        """Every row held, as ``np.concatenate`` of the batches (None when there is none)."""
        if not self.parts:
            return None
        y, s, g = (np.concatenate([p[i] for p in self.parts]) for i in range(3))
        w = None if self.parts[0][3] is None else np.concatenate([p[3] for p in self.parts])
        return y, s, g, w

    @property
    def nbytes(self) -> int:
        return sum(nbytes(a) for p in self.parts for a in p)

    def state(self) -> dict[str, Any]:
        """The state as plain values and arrays (:meth:`from_state` reads it back)."""
        return {"task": self.task, "classes": list(self.classes), "grouped_rows": list(self.parts)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> GroupedRows:
        parts = [
            (
                np.asarray(y),
                np.asarray(s, dtype=np.float64),
                np.asarray(g),
                None if w is None else np.asarray(w),
            )
            for y, s, g, w in state["grouped_rows"]
        ]
        return cls(tuple(state["classes"]), str(state.get("task") or "multiclass"), parts)
