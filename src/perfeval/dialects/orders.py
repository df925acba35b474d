"""The orders other tools give tied scores, as distinct scores.

A tool that breaks ties does so by a second key: trec_eval by the document id (descending, as
``strcmp`` orders the bytes), ranx by numba's ``argsort`` of the negated scores over the query's
documents in the order the run gives them (an insertion sort, so stable, up to 15 documents; above,
numba's quicksort, whose order of equal keys is its own but deterministic: it is replayed here step
by step), DIN's evaluation code by Python's stable sort.  :func:`broken` turns such a rule into
scores that are strictly decreasing along the tool's order inside each group, so that every
tie-aware measure of the engine, which then sees no tie, gives the tool's number.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError

#: the tie orders a dialect can name, as :func:`broken` takes them
ORDERS = ("input", "reverse", "id_desc", "numba", "numba2", "worst")


def broken(codes: np.ndarray, s: np.ndarray, rule: str, ids: Any = None, y: Any = None) -> np.ndarray:
    """Scores made distinct inside each group (``codes``: its rows' group codes) by ``rule``:
    ``input`` (a tie's rows in input order, first best), ``reverse`` (last best), ``id_desc``
    (``ids`` compared as strings, by code point, which is UTF-8's byte order: greater id first),
    ``numba`` (ranx's order), ``numba2`` (ranx's, sorted twice) or ``worst`` (``y``'s greater values
    last: DIN's ``x > 0``).  The result is exact: ``-(position in the order)`` as a float64.
    """
    n = len(s)
    if rule == "input":  # the key sorted descending: the earlier row first
        order = _by_key_desc(codes, s, -np.arange(n, dtype=np.int64))
    elif rule == "reverse":
        order = _by_key_desc(codes, s, np.arange(n, dtype=np.int64))
    elif rule == "worst" and _integral(y):  # the lower grade first
        order = _by_key_desc(codes, s, -np.asarray(y, dtype=np.float64).astype(np.int64))
    elif rule == "id_desc":
        if ids is None:
            raise InvalidParameterError("this rule breaks ties by document id: pass `ids=`")
        order = _by_id_desc(codes, s, np.asarray(ids))
    elif rule == "numba":
        order = numba_order(codes, s)
    elif rule == "numba2":  # sorted a second time, from the first sort's order (ranx's make_comparable)
        first = numba_order(codes, s)
        order = first[numba_order(codes[first], s[first])]
    elif rule == "worst":  # relevant (positive) cases last in every tie: a tied pair counts 0
        order = np.lexsort((np.asarray(y, dtype=np.float64), -s, codes))
    else:  # pragma: no cover - the dialect table names only the rules above
        raise ValueError(rule)
    out = np.empty(n, dtype=np.float64)
    out[order] = -np.arange(n, dtype=np.float64)
    return out


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


def _ties_sorted(codes: np.ndarray, s: np.ndarray, keys: np.ndarray, width: int) -> np.ndarray:
    """Rows by group and descending score, each tie's rows by ``keys`` descending (``width``: how the
    kernel compares them, see ``_native.ties_by_id``).
    """
    from perfeval import _native
    from perfeval.summaries.ranking import query_order

    order = query_order(codes, s, int(codes.max()) + 1 if len(codes) else 0)
    sc, ss = codes[order], s[order]
    same = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
    if not same.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    at = np.flatnonzero(tied)
    # the ties' segments of `at` (each tie's rows are consecutive there), sorted in place by the
    # compiled kernel (a merge sort per tie comparing the ids as text: ints without making text)
    head = np.concatenate(([True], ~same))[at]
    starts = np.concatenate((np.flatnonzero(head), [len(at)])).astype(np.int64)
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
    from perfeval import _native

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
