"""K classes in long form, one row a case and class: pivoted to one row a case and a score column a
class, with the same rules and the same one-line errors for every door that reads it (the command's
``perfeval eval --long``, :func:`perfeval.evaluate` with ``case=`` and ``class_column=``).

The rules: the cases are taken in the order they first appear; every case holds every class exactly
once (a class repeated or missing is one line naming the case); the target column is either the true
class on every row of a case (its rows agree) or a 0/1 marker, 1 on the row of the true class
(exactly one a case); a case's group and weight are the case's, the same on each of its rows.

Where a row is, in a message, is the caller's (:class:`Rows`): the command says a file's line, the
Python door a row number; the error each raises is the caller's too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn, Protocol

import numpy as np

from perfeval.io import grammar

__all__ = [
    "ArrayRows",
    "from_columns",
    "LABELS_FORM",
    "MARKER_FORM",
    "Long",
    "Rows",
    "Together",
    "key",
    "listing",
    "pivot",
    "runs",
    "said",
]

#: how many labels a message lists before "..."
SHOWN = 8

#: how the target column of a long table was read (``report.params["target_form"]``)
LABELS_FORM = "labels: the true class on every row of a case"
MARKER_FORM = "0/1 marker: 1 on the row of the true class"


def key(v: Any) -> str:
    """A label as written, for matching a target with a class: ``2`` (an int64 column's) is ``"2"``."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, np.generic):
        v = v.item()
    return str(v)


def said(v: Any) -> str:
    """A case id or label in a message: an integer as the number, text quoted."""
    if isinstance(v, np.generic):
        v = v.item()
    return str(v) if isinstance(v, int) and not isinstance(v, bool) else repr(key(v))


def listing(labels: Any) -> str:
    """Labels in a message: the first :data:`SHOWN`, then "..."."""
    labels = list(labels)
    return ", ".join(key(c) for c in labels[:SHOWN]) + (", ..." if len(labels) > SHOWN else "")


class Rows(Protocol):
    """Where the rows of a long table are, for its messages: the command's table (a file's lines) or
    the Python door's (row numbers).
    """

    def position(self, row: int) -> str:
        """Row ``row`` (0-based) in words: ``line 5``, ``row 4``."""
        ...

    def fail(self, message: str) -> NoReturn:
        """Raise the caller's one-line error."""
        ...

    def written(self, row: int, name: str, value: Any) -> str:
        """``value``, read from the column ``name`` on row ``row`` (0-based), as the table writes it
        (a file's own text, ``2.00`` where ``2.0`` was read), for a message.
        """
        ...


def shown(rows: Rows, row: int, name: str, value: Any) -> str:
    """A value of the column ``name`` on row ``row`` quoted in a message: a number as the table
    writes it (:meth:`Rows.written`: the file's ``'2.00'``, not the ``'2.0'`` read), a label as
    :func:`key` writes it; a label that is a number's text (a JSON line's ``2.00`` in a column read
    as text, ``'2.0'``) as the file writes it when the table can say, else as read.
    """
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return repr(rows.written(row, name, value))
    if isinstance(value, (str, np.str_)) and grammar.is_number(str(value)):
        text = rows.written(row, name, str(value))
        if text != repr(float(value)):  # not the fallback (the number read): the file's own text
            return repr(text)
    return repr(key(value))


class Long(NamedTuple):
    """A long table pivoted: a row a case, in the order the cases first appear."""

    y: np.ndarray  #: each case's true class, a code 0..K-1
    s: np.ndarray  #: (m, K) float64 scores, column j the class of code j
    groups: np.ndarray | None  #: each case's group
    weights: np.ndarray | None  #: each case's weight
    case_ids: np.ndarray  #: each case's id
    form: str  #: how the target column was read (:data:`LABELS_FORM` or :data:`MARKER_FORM`)


def pivot(
    rows: Rows,
    ids: np.ndarray,
    cls: np.ndarray,
    score: np.ndarray,
    target: np.ndarray,
    labels: tuple,
    coder: Callable[[np.ndarray, bool], np.ndarray | None],
    *,
    id_name: str,
    target_name: str,
    group: tuple[str, np.ndarray] | None = None,
    weight: tuple[str, np.ndarray] | None = None,
    form: str | None = None,
) -> Long:
    """A long table (a row a case and class) as a row a case, checked by the rules above.

    Parameters
    ----------
    rows : Rows
        Where a row is, and the error to raise.
    ids, cls, score, target : ndarray
        The case ids, the class codes 0..K-1 (of ``labels``), the float64 scores and the targets as
        read, one a row, none missing.
    labels : tuple
        The K classes, in the order of the codes (their labels as messages say them).
    coder : callable
        ``coder(target, strict)``: the targets as codes 0..K-1 when every one is a class, else None
        (``strict``: the caller's one line about the first that is not one, instead of None).
    id_name, target_name : str
        The case and target columns, as messages name them.
    group, weight : (name, values), optional
        The groups and the (checked) weights, one a row: the case's, the same on each of its rows.
    form : str, optional
        How to read the target column (:data:`LABELS_FORM` or :data:`MARKER_FORM`), when the rows are
        a piece of a table whose earlier pieces told it (a stream's chunk, a Dask partition): a piece
        read the other way is that way's one line.  None: told by these rows.
    """
    k = len(labels)
    uniq, first, inv = np.unique(ids, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    case = rank[inv]
    m = len(order)
    case_ids = uniq[order]
    _each_class_once(rows, case * k + cls, case, cls, case_ids, labels, id_name)
    s = np.empty((m, k), dtype=np.float64)
    s[case, cls] = score
    y, form = _targets(rows, target_name, target, case, cls, case_ids, labels, coder, m, form)
    g = None if group is None else _per_case(rows, group[0], group[1], case, case_ids, m)
    w = None if weight is None else _per_case(rows, weight[0], weight[1], case, case_ids, m)
    return Long(y, s, g, w, case_ids, form)


def _first_rows(case: np.ndarray, m: int) -> np.ndarray:
    """Each case's first row."""
    first = np.full(m, -1, dtype=np.intp)
    first[case[::-1]] = np.arange(len(case))[::-1]
    return first


def _each_class_once(
    rows: Rows,
    cell: np.ndarray,
    case: np.ndarray,
    cls: np.ndarray,
    case_ids: Any,
    labels: tuple,
    id_name: str,
) -> None:
    """Every case holds every class exactly once: else one line naming the case and what is
    repeated (with both rows) or missing.
    """
    k = len(labels)
    counts = np.bincount(cell, minlength=len(case_ids) * k)
    if (counts > 1).any():
        _u, first = np.unique(cell, return_index=True)
        again = np.ones(len(cell), dtype=bool)
        again[first] = False
        r = int(np.argmax(again))  # the first row repeating its case's class
        before = int(np.argmax(cell == cell[r]))
        rows.fail(
            f"case {said(case_ids[case[r]])} (column {id_name!r}) has class "
            f"{key(labels[cls[r]])!r} twice ({rows.position(before)} and {rows.position(r)}): "
            "every case needs every class exactly once"
        )
    if (counts == 0).any():
        c = int(np.argmax(counts == 0))
        who = c // k
        missing = [labels[j] for j in range(k) if counts[who * k + j] == 0]
        row = int(np.argmax(case == who))
        rows.fail(
            f"case {said(case_ids[who])} (column {id_name!r}, first on {rows.position(row)}) has no row of "
            f"class{'es' if len(missing) > 1 else ''} {listing(missing)}: every case needs every class "
            "exactly once"
        )


def _marker_values(target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which values of a column are 0/1 (or true/false), and which of them are 1 (or true)."""
    a = np.asarray(target)
    if a.dtype.kind == "b":
        return np.ones(len(a), dtype=bool), a
    if a.dtype.kind in "iuf":
        return (a == 0) | (a == 1), a == 1
    words = np.char.lower(
        np.array([key(v) for v in a.tolist()], dtype=str) if a.dtype.kind == "O" else a.astype(str)
    )
    return np.isin(words, ("0", "1", "true", "false")), np.isin(words, ("1", "true"))


def _marker(target: np.ndarray) -> np.ndarray | None:
    """A 0/1 (or true/false) column as booleans; None when it is not one."""
    ok, marked = _marker_values(target)
    return marked if bool(ok.all()) else None


def _targets(
    rows: Rows,
    name: str,
    target: np.ndarray,
    case: np.ndarray,
    cls: np.ndarray,
    case_ids: Any,
    labels: tuple,
    coder: Callable[[np.ndarray, bool], np.ndarray | None],
    m: int,
    form: str | None = None,
) -> tuple[np.ndarray, str]:
    """Each case's true class (a code) and how the target column was read: labels when every value
    is a class and each case's rows agree, else a 0/1 marker of the true class's row (exactly one a
    case).  The two cannot both hold (a case's K >= 2 rows agree, or exactly one is 1).  ``form``
    given: read that way only (a piece of a table whose earlier pieces told it).
    """
    codes = coder(target, False) if form != MARKER_FORM else None
    first = _first_rows(case, m)
    if codes is not None:
        differ = codes != codes[first[case]]
        if not differ.any():
            return codes[first], LABELS_FORM
    marked = _marker(target) if form != LABELS_FORM else None
    if form == MARKER_FORM and marked is None:
        _not_marker(
            rows, name, target, int(np.argmax(~_marker_values(target)[0])), case, case_ids, labels, coder
        )
    if marked is None:
        if codes is not None:
            r = int(np.argmax(differ))
            f = int(first[case[r]])
            rows.fail(
                f"case {said(case_ids[case[r]])}: the target column {name!r} holds "
                f"{key(labels[codes[f]])!r} on {rows.position(f)} and "
                f"{key(labels[codes[r]])!r} on {rows.position(r)}: one true class a case (or a 0/1 "
                "marker, 1 on the true class's row)"
            )
        _neither(rows, name, target, case, case_ids, labels, coder)
        coder(target, True)  # the first row whose label is no class: its one line
        raise AssertionError("coder(strict=True) accepted a target that is no class")  # pragma: no cover
    count = np.bincount(case, weights=marked.astype(np.float64), minlength=m)
    wrong = count != 1
    if wrong.any():
        who = int(np.argmax(wrong))
        hit = np.flatnonzero((case == who) & marked)
        marks = (
            "marks no row"
            if not len(hit)
            else f"marks {len(hit)} rows ({', '.join(rows.position(int(r)) for r in hit[:SHOWN])})"
        )
        rows.fail(
            f"case {said(case_ids[who])}: the target column {name!r}, a 0/1 marker of the true class's row, "
            f"{marks}: exactly one row a case holds 1"
        )
    y = np.empty(m, dtype=np.intp)
    y[case[marked]] = cls[marked]
    return y, MARKER_FORM


def _neither(
    rows: Rows,
    name: str,
    target: np.ndarray,
    case: np.ndarray,
    case_ids: Any,
    labels: tuple,
    coder: Callable[[np.ndarray, bool], np.ndarray | None],
) -> None:
    """A target column read neither as labels nor as a 0/1 marker: the one line of the reading that
    holds the longer, at the first row that breaks it.  A marker column (``0``, ``1``, ``2.00`` on
    line 7) is blamed for its line 7, not for its first ``1``, which is no class; a column of classes
    (``a``, ``fish``) returns here, for the caller's line about the first value that is no class.
    """
    r = int(np.argmax(~_marker_values(target)[0]))  # the first row that is not 0/1
    if coder(target[:r], False) is not None:
        return  # the rows before it are all classes: the labels' line, at the first that is not one
    _not_marker(rows, name, target, r, case, case_ids, labels, coder)


def _not_marker(
    rows: Rows,
    name: str,
    target: np.ndarray,
    r: int,
    case: np.ndarray,
    case_ids: Any,
    labels: tuple,
    coder: Callable[[np.ndarray, bool], np.ndarray | None],
) -> NoReturn:
    """The one line of a target column read as a 0/1 marker up to row ``r``, which is not 0 or 1:
    its value as the table writes it, and whether it is a class (a column read two ways) or not.
    """
    value = shown(rows, r, name, target[r])
    head = f"case {said(case_ids[case[r]])}: the target column {name!r} holds {value} on {rows.position(r)}"
    if coder(target[r : r + 1], False) is None:
        rows.fail(
            f"{head}: not 0 or 1, as the rows before it (a 0/1 marker of the true class's row), nor one "
            f"of the {len(labels)} classes ({listing(labels)})"
        )
    rows.fail(
        f"{head}, not 0 or 1, where the rows before it read as a 0/1 marker of the true class's row: one "
        "way for the whole column (the true class on each row of a case, or the marker)"
    )


def _per_case(rows: Rows, name: str, values: Any, case: np.ndarray, case_ids: Any, m: int) -> np.ndarray:
    """A column that is the case's (its group, its weight): the same on each of its rows."""
    v = np.asarray(values)
    first = _first_rows(case, m)
    differ = v != v[first[case]]
    if differ.any():
        r = int(np.argmax(differ))
        f = int(first[case[r]])
        one, other = shown(rows, f, name, v[f]), shown(rows, r, name, v[r])
        rows.fail(
            f"case {said(case_ids[case[r]])}: the column {name!r} holds {one} on {rows.position(f)} and "
            f"{other} on {rows.position(r)}: it is the case's, the same on each of its rows"
        )
    return v[first]


# -- a long table in pieces (a file's chunks): each case's rows together ---------------------------------
def runs(ids: np.ndarray) -> np.ndarray:
    """The first row of each run of equal ids (a case's rows next to each other: one run)."""
    ids = np.asarray(ids)
    if not len(ids):
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))


class Together:
    """The case ids of a long table read in pieces, one after the other (a file's chunks), where a
    case's rows must lie together (the pivot of a piece needs each of its cases whole): the ids of
    the cases already taken, to tell a case that appears again after other cases' rows.

    Ids are compared as a table read whole compares them: a piece read as int64 (every id of it a
    plain integer) and one read as text (``7`` and ``x``) hold the same case ``7``.
    """

    def __init__(self) -> None:
        self._ints = np.zeros(0, dtype=np.int64)
        self._texts = np.zeros(0, dtype=str)

    def again(self, ids: np.ndarray, starts: np.ndarray) -> int | None:
        """The first row of ``ids`` (a piece, its runs starting at ``starts``) whose case was taken
        before or holds an earlier run of this piece: a case whose rows are not together; else None.
        """
        if not len(starts):
            return None
        first = np.asarray(ids)[starts]
        bad = self._taken(first)
        _u, once = np.unique(first, return_index=True)
        repeated = np.ones(len(first), dtype=bool)
        repeated[once] = False
        bad |= repeated
        return int(starts[int(np.argmax(bad))]) if bad.any() else None

    def take(self, ids: np.ndarray) -> None:
        """The cases of ``ids`` (whole cases) taken."""
        u = np.unique(np.asarray(ids))
        if u.dtype.kind in "iu":
            self._ints = np.sort(np.concatenate([self._ints, u.astype(np.int64)]), kind="stable")
        else:
            self._texts = np.sort(np.concatenate([self._texts, _texts(u)]), kind="stable")

    def _taken(self, ids: np.ndarray) -> np.ndarray:
        if ids.dtype.kind in "iu":
            hit = _within(ids.astype(np.int64), self._ints)
            return hit | _within(ids.astype(str), self._texts) if len(self._texts) else hit
        texts = _texts(ids)
        hit = _within(texts, self._texts)
        return hit | _within(texts, np.sort(self._ints.astype(str))) if len(self._ints) else hit


def _texts(a: np.ndarray) -> np.ndarray:
    """Ids as text, as written (an int64's decimal digits are how a plain integer is written)."""
    return a.astype(str) if a.dtype.kind in "iuU" else np.array([key(v) for v in a.tolist()], dtype=str)


def _within(q: np.ndarray, sorted_: np.ndarray) -> np.ndarray:
    """Which of ``q`` are in the sorted array ``sorted_``."""
    if not len(sorted_):
        return np.zeros(len(q), dtype=bool)
    i = np.minimum(np.searchsorted(sorted_, q), len(sorted_) - 1)
    return sorted_[i] == q


# -- the Python door: a table's columns as arrays -----------------------------------------------------
class ArrayRows:
    """The rows of arrays (a DataFrame's columns), for :func:`pivot`: ``row i`` (0-based, as the
    door's other messages count), and :class:`~perfeval.exceptions.InvalidDataError`.
    """

    def position(self, row: int) -> str:
        return f"row {row}"

    def fail(self, message: str) -> NoReturn:
        from perfeval.exceptions import InvalidDataError

        raise InvalidDataError(message)

    def written(self, row: int, name: str, value: Any) -> str:
        return key(value)  # arrays hold values, not text


def _no_missing(a: np.ndarray, name: str, role: str, rows: Rows) -> None:
    """No missing value (None, NaN, NaT) in a column that every row needs: else one line naming it."""
    if a.dtype.kind in "fc":
        bad = np.isnan(a)
    elif a.dtype.kind == "M":
        bad = np.isnat(a)
    elif a.dtype.kind == "O":
        bad = np.fromiter((v is None or (isinstance(v, float) and v != v) for v in a.tolist()), bool, len(a))
    else:
        return
    if bad.any():
        i = int(np.argmax(bad))
        rows.fail(
            f"the {role} column {name!r} holds a missing value at {rows.position(i)}: every row of a case "
            "and class needs one"
        )


def from_columns(
    ids: Any,
    cls_col: Any,
    score: Any,
    target: Any,
    *,
    names: dict[str, str],
    classes: Any = None,
    group: Any = None,
    weight: Any = None,
    rows: Rows | None = None,
) -> tuple[Long, tuple, str]:
    """:func:`pivot` of a table's columns (:func:`perfeval.evaluate` with ``case=`` and
    ``class_column=``), each read and checked first: none missing, finite scores, weights >= 0.
    ``names``: the columns' names, keys ``"case"``, ``"class"``, ``"target"``, ``"score"``, and
    ``"group"``, ``"weight"`` when given.  The classes: ``classes`` as given, else the class column's
    distinct values, sorted.  ``rows``: where a row is, and the error (default :class:`ArrayRows`:
    ``row i``, :class:`~perfeval.exceptions.InvalidDataError`).  Returns the pivot, the classes and
    how they were found.
    """
    from perfeval.base.checks import ArraySpec, check_array, to_numpy
    from perfeval.engine.door import class_codes
    from perfeval.exceptions import InvalidDataError

    ids_a = to_numpy(ids, names["case"])
    n = len(ids_a)
    against = (names["case"], n, False)
    cls_a = check_array(ArraySpec(names["class"], "labels"), cls_col, against)
    tgt = check_array(ArraySpec(names["target"], "labels"), target, against)
    where: Rows = ArrayRows() if rows is None else rows
    for a, role in ((ids_a, "case"), (cls_a, "class"), (tgt, "target")):
        _no_missing(a, names[role], role, where)
    if ids_a.dtype.kind == "O":
        try:
            np.unique(ids_a)
        except TypeError:
            raise InvalidDataError(
                f"the case column {names['case']!r} holds ids of mixed types (numbers and text): one type"
            ) from None
    s = check_array(ArraySpec(names["score"], "floats", finite=True), score, against)
    g = None if group is None else check_array(ArraySpec(names["group"], "ids"), group, against)
    w = (
        None
        if weight is None
        else check_array(ArraySpec(names["weight"], "floats", True, True), weight, against)
    )
    if classes is not None:
        labels = tuple(
            c.item() if isinstance(c, np.generic) else c
            for c in np.asarray(classes, dtype=object).reshape(-1)
        )
        how = "given"
    else:
        try:
            seen = np.unique(cls_a)
        except TypeError:
            raise InvalidDataError(
                f"the class column {names['class']!r} holds labels of mixed types: pass classes= naming them"
            ) from None
        labels = tuple(v.item() if isinstance(v, np.generic) else v for v in seen)
        how = f"the distinct values of the class column {names['class']!r}, sorted"
    if len(labels) < 2:
        raise InvalidDataError(
            f"the class column {names['class']!r} holds {len(labels)} class(es) ({listing(labels)}); "
            "K classes need K >= 2"
        )
    cls = class_codes(cls_a, labels, f"the class column {names['class']!r}", where.position)

    def coder(values: np.ndarray, strict: bool) -> np.ndarray | None:
        try:
            return class_codes(values, labels, f"the target column {names['target']!r}", where.position)
        except InvalidDataError:
            if strict:
                raise
            return None

    long = pivot(
        where,
        ids_a,
        cls,
        s,
        tgt,
        labels,
        coder,
        id_name=names["case"],
        target_name=names["target"],
        group=None if g is None else (names["group"], g),
        weight=None if w is None else (names["weight"], w),
    )
    return long, labels, how
