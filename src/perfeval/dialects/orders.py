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
ORDERS = ("input", "reverse", "id_desc", "numba")


def broken(codes: np.ndarray, s: np.ndarray, rule: str, ids: Any = None) -> np.ndarray:
    """Scores made distinct inside each group (``codes``: its rows' group codes) by ``rule``:
    ``input`` (a tie's rows in input order, first best), ``reverse`` (last best), ``id_desc``
    (``ids`` compared as strings, by code point, which is UTF-8's byte order: greater id first) or
    ``numba`` (ranx's order).  The result is exact: ``-(position in the order)`` as a float64.
    """
    n = len(s)
    row = np.arange(n)
    if rule == "input":
        order = np.lexsort((row, -s, codes))
    elif rule == "reverse":
        order = np.lexsort((-row, -s, codes))
    elif rule == "id_desc":
        if ids is None:
            raise InvalidParameterError("this rule breaks ties by document id: pass `ids=`")
        order = np.lexsort((-id_codes(ids), -s, codes))
    elif rule == "numba":
        order = numba_order(codes, s)
    else:  # pragma: no cover - the dialect table names only the rules above
        raise ValueError(rule)
    out = np.empty(n, dtype=np.float64)
    out[order] = -np.arange(n, dtype=np.float64)
    return out


def id_codes(ids: Any) -> np.ndarray:
    """Each id's position among the distinct ids sorted as strings (``str(5)``: an integer id compares
    as trec_eval compares its text, ``"10" < "9"``).
    """
    a = np.asarray(ids)
    if a.dtype.kind == "f":
        raise InvalidParameterError(
            "`ids` are floats; document ids are compared as text: pass them as integers or strings"
        )
    text = a.astype(str) if a.dtype.kind != "U" else a
    return np.unique(text, return_inverse=True)[1].reshape(-1).astype(np.int64)


def numba_order(codes: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Rows by group, then as ranx ranks a query: numba's ``np.argsort`` (quicksort) of ``-score``
    over the group's rows in input order.  Groups of at most 15 rows, or without ties, are sorted
    stably (what numba's insertion sort does there); a larger group with ties replays numba's
    quicksort (:func:`numba_argsort`).
    """
    by_group = np.argsort(codes, kind="stable")
    order = by_group[np.lexsort((-s[by_group], codes[by_group]))]  # stable: input order within ties
    sc, ss = codes[order], s[order]
    cut = np.flatnonzero(sc[1:] != sc[:-1]) + 1
    starts = np.concatenate(([0], cut))
    stops = np.concatenate((cut, [len(s)]))
    tied = np.zeros(len(s) + 1, dtype=bool)
    tied[1:-1] = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
    big = np.flatnonzero((stops - starts) > SMALL_QUICKSORT)
    for a, b in zip(starts[big].tolist(), stops[big].tolist(), strict=True):
        if not tied[a + 1 : b].any():
            continue
        rows = by_group[a:b]  # the group's rows in input order (both arrays are by group)
        order[a:b] = rows[numba_argsort(-s[rows])]
    return order


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
