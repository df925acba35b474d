"""The orders in which tools rank tied scores, each written once under one name, and scores made
distinct along such an order.

A tool that breaks ties does so by a second key: trec_eval by the document id (descending, as
``strcmp`` orders the bytes), ranx by numba's ``argsort`` of the negated scores over the query's
documents in the order the run gives them (an insertion sort, so stable, up to 15 documents; above,
numba's quicksort, whose order of equal keys is its own but deterministic: it is replayed here step
by step), DIN's evaluation code by Python's stable sort.  :func:`tie_order` gives the rows in such
an order (by group, descending score, each tie by the rule); :func:`broken` turns it into scores
that are strictly decreasing along it inside each group, so that every tie-aware measure of the
engine, which then sees no tie, gives the tool's number.  Both the dialects
(:mod:`perfeval.dialects.apply`) and judgments and runs (:mod:`perfeval.trec`, its ``ties=``) use
these orders; the tie bounds (``best``, ``worst``) are the two extreme orders of every tie.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval import _native
from perfeval.exceptions import InvalidParameterError
from perfeval.summaries.ranking import is_identity, query_order

#: the orders of tied scores, by name: ``input`` (the earlier row first), ``reverse`` (the later
#: first), ``id_desc`` (the greater document id first, as text: trec_eval's), ``id_asc`` (the smaller
#: first: ir_measures' Judged@k), ``numba`` (ranx's: numba's argsort), ``numba2`` (ranx's, sorted
#: twice: its ``make_comparable=True``), ``worst`` (the relevant rows last: every tie counts against
#: the model) and ``best`` (the relevant rows first)
ORDERS = ("input", "reverse", "id_desc", "id_asc", "numba", "numba2", "worst", "best")
#: the other names some of them go by where users type them (``perfeval.trec.evaluate(ties=)``,
#: ``perfeval trec --ties``): the tool whose order it is, or where it comes from
ALIASES = {"file": "input", "trec_eval": "id_desc", "ranx": "numba", "ranx2": "numba2"}


def order_name(rule: str) -> str:
    """The name in :data:`ORDERS` of a tie order given by one of its :data:`ALIASES` (or by its name)."""
    return ALIASES.get(rule, rule)


def tie_order(
    codes: np.ndarray,
    s: np.ndarray,
    rule: str,
    *,
    ids: Any = None,
    id_codes: np.ndarray | None = None,
    rank: np.ndarray | None = None,
    y: Any = None,
) -> np.ndarray:
    """The rows by group (``codes``: each row's group code), then by descending score, and each tie's
    rows in the order ``rule`` (a name of :data:`ORDERS` or of :data:`ALIASES`) gives them.

    Parameters
    ----------
    codes : ndarray of int64
        Each row's group (query) code, >= 0.
    s : ndarray of float64
        The scores.
    rule : str
        ``input``/``reverse``: by ``rank`` (each row's position in the input, default its row number),
        the earlier (the later) first.  ``id_desc``/``id_asc``: by document id, the greater (the
        smaller) first: ``ids`` compared as text (by code point, which is UTF-8's byte order;
        integers as their decimal text, as ``strcmp`` compares them), or ``id_codes``, the ids'
        positions in their sorted vocabulary (``id_asc`` takes these only).  ``numba``/``numba2``:
        ranx's order (rows in input order inside a group).  ``worst``/``best``: by ``y`` ascending
        (descending), so the relevant rows last (first); ``y`` may be a tuple of keys, the first
        deciding first.

    Returns
    -------
    ndarray of int64
        The order (row indices).
    """
    rule = order_name(rule)
    n = len(s)
    if rule in ("input", "reverse"):  # the key sorted descending: for input the earlier row first
        at = np.arange(n, dtype=np.int64) if rank is None else np.asarray(rank, dtype=np.int64)
        return _by_key_desc(codes, s, -at if rule == "input" else at)
    if rule in ("id_desc", "id_asc"):
        if id_codes is not None:  # positions in the sorted ids: compared as numbers
            key = np.asarray(id_codes, dtype=np.int64)
            return _by_key_desc(codes, s, key if rule == "id_desc" else -key)
        if ids is None:
            raise InvalidParameterError("this rule breaks ties by document id: pass `ids=`")
        if rule == "id_asc":  # pragma: no cover - its one user (trec) passes the codes
            raise ValueError("id_asc takes the ids' codes in their sorted order (id_codes=)")
        return _by_id_desc(codes, s, np.asarray(ids))
    if rule == "numba":
        return numba_order(codes, s)
    if rule == "numba2":  # sorted a second time, from the first sort's order (ranx's make_comparable)
        first = numba_order(codes, s)
        return first[numba_order(codes[first], s[first])]
    if rule in ("worst", "best"):
        return _by_relevance(codes, s, y, rule == "best")
    raise ValueError(f"no tie order {rule!r}: expected one of {', '.join(ORDERS)}")  # pragma: no cover


def distinct(order: np.ndarray) -> np.ndarray:
    """Scores strictly decreasing along ``order`` (``-(position in the order)``, exact as float64)."""
    out = np.empty(len(order), dtype=np.float64)
    out[order] = -np.arange(len(order), dtype=np.float64)
    return out


def broken(codes: np.ndarray, s: np.ndarray, rule: str, ids: Any = None, y: Any = None) -> np.ndarray:
    """Scores made distinct inside each group (``codes``: its rows' group codes) in the order of
    ``rule`` (:func:`tie_order`, with ``ids`` and ``y`` as it takes them; DIN's ``worst`` is ``y``'s
    greater values last: its ``x > 0``).
    """
    return distinct(tie_order(codes, s, rule, ids=ids, y=y))


def _by_relevance(codes: np.ndarray, s: np.ndarray, y: Any, best: bool) -> np.ndarray:
    """Rows by group and descending score, each tie's rows by ``y`` ascending (``best``: descending).
    One whole-number key: each tie sorted on its own by the compiled kernel; one other key: one
    lexsort of all the rows; several keys (a tuple, the first deciding first): only the tied rows
    sorted by them.
    """
    keys = y if isinstance(y, tuple) else (y,)
    if len(keys) == 1 and _integral(keys[0]):  # the lower grade first (worst)
        grade = np.asarray(keys[0], dtype=np.float64).astype(np.int64)
        return _by_key_desc(codes, s, grade if best else -grade)
    if len(keys) == 1:
        key = np.asarray(keys[0], dtype=np.float64)
        return np.lexsort((-key if best else key, -s, codes))
    order, tied = _tied(codes, s)
    if tied is not None:
        at, segment = tied
        rows = order[at]
        sign = -1.0 if best else 1.0
        by = [sign * np.asarray(k, dtype=np.float64)[rows] for k in reversed(keys)]
        order[at] = rows[np.lexsort((*by, segment))]
    return order


def _integral(y: Any) -> bool:
    a = np.asarray(y)
    return a.dtype.kind in "iub" or bool(np.all(np.floor(a) == a) and np.abs(a).max(initial=0) < 2**62)


def _by_key_desc(codes: np.ndarray, s: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Rows by group, descending score, and inside a tie by ``key`` (int64) descending: numpy's fast
    unstable sort, then each tie sorted on its own by the compiled kernel (a lexsort over three keys
    is eight times slower at 10M rows).
    """
    return _ties_sorted(codes, s, np.ascontiguousarray(key, dtype=np.int64), -1)


def _by_id_desc(codes: np.ndarray, s: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Rows by group, descending score, and inside a tie by id descending as text.  Only the tied
    rows are sorted by id, each tie on its own (numpy's lexsort over (tie, id) is four times slower
    at 10M rows, and ranking string ids with np.unique slower still).
    """
    if ids.dtype.kind == "f":
        raise InvalidParameterError(
            "`ids` are floats; document ids are compared as text: pass them as integers or strings"
        )
    return _ties_sorted(codes, s, *_id_buffer(ids))


def _tied(codes: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """The rows by group and descending score (:func:`~perfeval.summaries.ranking.query_order`: in no
    particular order inside a tie), and where its ties are: the positions in the order of the rows
    that share their group and score with another (each tie's rows consecutive) and the tie of each
    (1, 2, ...); None when there is no tie.
    """
    q = int(np.count_nonzero(np.bincount(codes))) if len(codes) else 0  # the groups present
    order = query_order(codes, s, q)
    sc, ss = (codes, s) if is_identity(order) else (codes[order], s[order])  # a run file's layout as is
    same = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
    if not same.any():
        return order, None
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    at = np.flatnonzero(tied)
    segment = np.cumsum(np.concatenate(([True], ~same))[at])  # a tie's first row starts a segment
    return order, (at, segment)


def _ties_sorted(codes: np.ndarray, s: np.ndarray, keys: np.ndarray, width: int) -> np.ndarray:
    """Rows by group and descending score, each tie's rows by ``keys`` descending (``width``: how the
    kernel compares them, see ``_native.ties_by_id``).
    """
    order, tied = _tied(codes, s)
    if tied is None:
        return order
    at, segment = tied
    # the ties' segments of `at` (each tie's rows are consecutive there), sorted in place by the
    # compiled kernel (a stable merge sort per tie comparing the ids as text: ints without making text)
    starts = np.concatenate((np.flatnonzero(np.diff(segment, prepend=0)), [len(at)])).astype(np.int64)
    rows = np.ascontiguousarray(order[at], dtype=np.int64)
    _native.ties_by_id(rows, starts, keys, width)
    order[at] = rows
    return order


def _id_buffer(ids: np.ndarray) -> tuple[np.ndarray, int]:
    """The ids as the kernel reads them: int64 (width 0) or UCS-4 text of ``width`` code points."""
    if ids.dtype.kind in "iu":
        if ids.dtype.kind == "u" and len(ids) and int(ids.max()) > np.iinfo(np.int64).max:
            raise InvalidParameterError("`ids` past 2**63: pass them as strings")
        return np.ascontiguousarray(ids, dtype=np.int64), 0
    text = np.ascontiguousarray(ids if ids.dtype.kind == "U" else ids.astype(str))
    width = max(text.dtype.itemsize // 4, 1)
    if text.dtype.itemsize == 0:
        text = text.astype("U1")
    return text, width


def numba_order(codes: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Rows by group, then as ranx ranks a query: numba's ``np.argsort`` (quicksort) of ``-score``
    over the group's rows in input order (up to 15 rows an insertion sort, so stable).  Replayed by
    the compiled kernel ``_native.numba_argsort`` (:func:`numba_argsort` is the same in Python, for
    reading and for the tests).
    """
    by_group = np.argsort(codes, kind="stable")  # each group's rows in input order
    sc = codes[by_group]
    starts = np.concatenate(([0], np.flatnonzero(sc[1:] != sc[:-1]) + 1, [len(s)])).astype(np.int64)
    keys = np.ascontiguousarray(-s[by_group], dtype=np.float64)
    local = np.empty(len(s), dtype=np.int64)
    _native.numba_argsort(keys, starts, local)
    base = np.repeat(starts[:-1], np.diff(starts))
    return by_group[base + local]


#: numba/misc/quicksort.py: below this many elements (high - low < 15) a partition is insertion-sorted
SMALL_QUICKSORT = 15


def numba_argsort(keys: np.ndarray) -> np.ndarray:
    """Numba's ``np.argsort(keys)`` (kind quicksort) for float64 keys without NaN, step by step:
    median-of-three pivot, Hoare-style partition, the larger part pushed, insertion sort below 16.
    """
    A = keys.tolist()
    R = list(range(len(A)))
    if len(A) < 2:
        return np.asarray(R, dtype=np.int64)
    stack = [(0, len(A) - 1)]
    while stack:
        low, high = stack.pop()
        while high - low >= SMALL_QUICKSORT:
            i = _partition(A, R, low, high)
            if high - i > i - low:  # push the larger part
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        _insertion_sort(A, R, low, high)
    return np.asarray(R, dtype=np.int64)


def _partition(A: list, R: list, low: int, high: int) -> int:
    """Numba's partition of R[low:high + 1] around the median of three; the pivot's index."""
    mid = (low + high) >> 1
    if A[R[mid]] < A[R[low]]:
        R[low], R[mid] = R[mid], R[low]
    if A[R[high]] < A[R[mid]]:
        R[high], R[mid] = R[mid], R[high]
    if A[R[mid]] < A[R[low]]:
        R[low], R[mid] = R[mid], R[low]
    pivot = A[R[mid]]
    R[high], R[mid] = R[mid], R[high]
    i, j = low, high - 1
    while True:
        while i < high and A[R[i]] < pivot:
            i += 1
        while j >= low and pivot < A[R[j]]:
            j -= 1
        if i >= j:
            break
        R[i], R[j] = R[j], R[i]
        i += 1
        j -= 1
    R[i], R[high] = R[high], R[i]
    return i


def _insertion_sort(A: list, R: list, low: int, high: int) -> None:
    """Numba's insertion sort of R[low:high + 1] (stable)."""
    for i in range(low + 1, high + 1):
        k = R[i]
        v = A[k]
        j = i
        while j > low and v < A[R[j - 1]]:
            R[j] = R[j - 1]
            j -= 1
        R[j] = k
