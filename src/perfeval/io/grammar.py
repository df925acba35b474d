"""The one grammar of input shared by every modern reader (in memory, streamed, compiled or not).

- A **number** is ``[+-]digits[.digits][(e|E)[+-]digits]`` or ``[+-].digits[...]`` with ASCII
  digits, or one of the words ``inf``, ``infinity``, ``nan`` (any case, with a sign); nothing else:
  not Python's ``1_000``, full-width digits or surrounding blanks, not C's hex floats.  (The
  compiled reader, ``_native.parse_table``, checks the same grammar: ``modern_number_ok``.)
- A **plain integer** is ``-?(0|[1-9][0-9]*)`` within int64, not ``-0``: the only spelling of its
  value, so an identity column of plain integers can be held as int64 without merging two ids.
- An **identity column** (a group or id) is int64 when every value is a plain integer, else the
  text exactly as written: ``007`` and ``7`` stay apart; never a float.  An id written as a float
  (a decimal point or a signed exponent: ``980.0``, ``1.152921504606847e+18``, what a tool writes
  for a float column, whose ids past 2^53 have already merged) is refused (:func:`first_float_id`),
  as Parquet's float ids are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))\Z")
PLAIN_INT = re.compile(r"(?:0|-?[1-9][0-9]{0,18})\Z")
_INT64 = (-(1 << 63), (1 << 63) - 1)

#: how tools write a missing value: R's NA, pandas' NaN and <NA>, SQL's NULL, Python's None, Excel's
#: #N/A (compared as written: one vectorised test, 15 ms a million text rows, where lowering the
#: case would cost ten times that on the command's path)
MISSING = (
    "NA", "na", "Na", "NaN", "nan", "NAN", "NULL", "null", "Null", "None", "none", "NONE", "N/A", "n/a",
    "#N/A", "<NA>",
)  # fmt: skip


def is_number(text: str) -> bool:
    """Whether ``text`` is a number of the grammar.

    Examples
    --------
    >>> [is_number(t) for t in ("1", "-.5e3", "inf", "1_000", "１", "0x1p3", " 1", "")]
    [True, True, True, False, False, False, False, False]
    """
    return NUMBER.match(text) is not None


def is_plain_int(text: str) -> bool:
    """Whether ``text`` is a plain integer (see the module's description).

    Examples
    --------
    >>> [is_plain_int(t) for t in ("0", "-12", "007", "+7", "-0", "1e3", "9223372036854775808")]
    [True, True, False, False, False, False, False]
    """
    return PLAIN_INT.match(text) is not None and _INT64[0] <= int(text) <= _INT64[1]


def numbers(values: Sequence[str]) -> np.ndarray | None:
    """The values as float64 when every one is a number of the grammar, else None."""
    match = NUMBER.match
    for v in values:
        if match(v) is None:
            return None
    return np.array(values, dtype=np.float64) if len(values) else np.zeros(0)


def identity(values: Sequence[str]) -> np.ndarray:
    """An identity column: int64 when every value is a plain integer, else the text as written.

    Examples
    --------
    >>> identity(["9007199254740993", "9007199254740992"]).tolist()
    [9007199254740993, 9007199254740992]
    >>> identity(["007", "7", "1e3"]).tolist()
    ['007', '7', '1e3']
    """
    if all(is_plain_int(v) for v in values):
        return np.array([int(v) for v in values], dtype=np.int64)
    return np.array(list(values), dtype=str)


#: the first letters of nan and inf, and their second ones, as UCS-4 code units
_NI = np.array([ord(c) for c in "iInN"], np.uint32)
_NA = np.array([ord(c) for c in "nNaA"], np.uint32)
#: the code units a number may be written with (index: the code unit; past the table: none), the
#: padding's zero among them
_NUMERIC = np.zeros(128, bool)
_NUMERIC[[0, *(ord(c) for c in "0123456789.eE+-")]] = True


def first_float_id(values: np.ndarray) -> int:
    """In an identity column read as text, the index of the first value written as a float: a number
    with a decimal point or a signed exponent, or nan/inf (``980.0``, ``1.152921504606847e+18``: what
    a tool writes for a float column, whose ids past 2^53 have already merged); -1 when there is
    none.  Each value on its own (so a stream's chunks decide as the whole file does); text ids such
    as ``u1``, ``007``, ``+5`` or hexadecimal ``12e4`` are not floats.

    Examples
    --------
    >>> first_float_id(np.array(["3", "u1", "1.152921504606847e+18"]))
    2
    >>> first_float_id(np.array(["007", "7", "12e4", "+5", "-3", "1.2.3"]))
    -1
    """
    n = len(values)
    if values.dtype.kind != "U" or not n or values.dtype.itemsize == 0:
        return -1
    # candidates found over the UCS-4 code units in a few vector passes (a regex per value would
    # cost a third of a second a million rows, and ids such as "id_0001" or UUIDs would all be
    # candidates of a looser test); then each candidate checked by the grammar.  A candidate is
    # written with the characters of a number only (the padding's zeros aside) and holds a point or
    # a signed exponent, or is a word of at most 9 characters starting as nan or inf do
    codes = values.view(np.uint32).reshape(n, -1)
    w = codes.shape[1]
    numeric = _NUMERIC[np.minimum(codes, len(_NUMERIC) - 1)].all(axis=1)
    marked = (codes == ord(".")).any(axis=1)
    if w > 1:
        exp = (codes[:, :-1] == ord("e")) | (codes[:, :-1] == ord("E"))
        marked |= (exp & ((codes[:, 1:] == ord("+")) | (codes[:, 1:] == ord("-")))).any(axis=1)
    cand = numeric & marked
    padded = codes if w >= 3 else np.pad(codes, ((0, 0), (0, 3 - w)))
    signed = (padded[:, 0] == ord("+")) | (padded[:, 0] == ord("-"))
    c0 = np.where(signed, padded[:, 1], padded[:, 0])
    c1 = np.where(signed, padded[:, 2], padded[:, 1])
    short = codes[:, 9] == 0 if w > 9 else True  # "+infinity" is the longest
    cand |= short & np.isin(c0, _NI) & np.isin(c1, _NA)
    for i in np.flatnonzero(cand).tolist():
        v = str(values[i])
        if NUMBER.match(v) is not None and (
            "." in v or any(e in v for e in ("e+", "e-", "E+", "E-")) or v.lstrip("+-")[:1] in "iInN"
        ):
            return int(i)
    return -1


def first_bad_number(values: Sequence[str]) -> int:
    """The index of the first value that is not a number (-1 when there is none)."""
    match = NUMBER.match
    for i, v in enumerate(values):
        if match(v) is None:
            return i
    return -1


# -- labels named positive (``--pos-label``) --------------------------------------------------------
def label_key(value: object) -> object:
    """A label as ``--pos-label`` compares it: a boolean as itself, a number (a numeric value, or text
    that is a number of the grammar) by its value as float64, anything else by its text.  So a
    label matches however a reader typed its column: ``1``, ``1.0`` and ``1e0`` are one label, read
    as numbers (the whole file) or as text (a chunk, a Dask partition); ``007`` is 7; ``click`` is
    ``click``.

    Examples
    --------
    >>> [label_key(v) for v in ("1", "1.0", 1, np.int64(1), "click", "007", np.True_)]
    [1.0, 1.0, 1.0, 1.0, 'click', 7.0, True]
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    text = str(value)
    return float(text) if NUMBER.match(text) else text


def label_hits(col: np.ndarray, pos_label: object) -> np.ndarray:
    """1.0 where a label of ``col`` is ``pos_label`` (:func:`label_key`), else 0.0 (float64).

    Examples
    --------
    >>> label_hits(np.array(["1.0", "0", "1"]), "1").tolist()
    [1.0, 0.0, 1.0]
    >>> label_hits(np.array([1.0, 0.0]), "1").tolist(), label_hits(np.array([True, False]), "False").tolist()
    ([1.0, 0.0], [0.0, 1.0])
    """
    arr = np.asarray(col)
    want = label_key(pos_label)
    if arr.dtype.kind == "b":  # booleans: the words true and false, in any case
        text = str(pos_label).lower()
        if text not in ("true", "false"):
            return np.zeros(len(arr))
        return np.asarray(arr == (text == "true"), dtype=np.float64)
    if arr.dtype.kind in "iuf":
        if isinstance(want, str):  # a word against numbers: none of them
            return np.zeros(len(arr))
        return np.asarray(arr == float(want), dtype=np.float64)  # type: ignore[arg-type]
    if not len(arr):
        return np.zeros(0)
    # text (or objects): each distinct label once (few), then every row by its label's index
    uniq, inv = np.unique(arr, return_inverse=True)
    hit = np.array([label_key(u) == want for u in uniq.tolist()], dtype=np.float64)
    return hit[inv.reshape(-1)]


def other_labels(col: np.ndarray, hits: np.ndarray) -> set:
    """The distinct labels (:func:`label_key`) of ``col`` where ``hits`` is 0: the labels read as
    negative (one pass when they are all one label, the usual case; a sort otherwise).
    """
    neg = np.asarray(col)[np.asarray(hits) == 0]
    if not len(neg):
        return set()
    if not bool(np.any(neg != neg[0])):
        return {label_key(neg[0])}
    return {label_key(u) for u in np.unique(neg).tolist()}


def labels_text(keys: set, most: int = 6) -> str:
    """Labels (:func:`label_key`) for a message, in order: ``0, 2`` or ``'Yes', 'no'``; past
    ``most``, ``...``.

    Examples
    --------
    >>> labels_text({2.0, 0.0}), labels_text({"no", "Yes"}), labels_text({0.5, "x", 3.0}, most=2)
    ('0, 2', "'Yes', 'no'", '0.5, 3, ...')
    """

    def shown(k: object) -> str:
        if isinstance(k, float) and k.is_integer():
            return str(int(k))
        return repr(k)

    def order(k: object) -> tuple:
        return (True, str(k), 0.0) if isinstance(k, str) else (False, "", float(k))  # type: ignore[arg-type]

    ordered = sorted(keys, key=order)
    return ", ".join(shown(k) for k in ordered[:most]) + (", ..." if len(ordered) > most else "")
