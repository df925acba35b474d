"""The one grammar of input shared by every modern reader (in memory, streamed, compiled or not).

- A **number** is ``[+-]digits[.digits][(e|E)[+-]digits]`` or ``[+-].digits[...]`` with ASCII
  digits, or one of the words ``inf``, ``infinity``, ``nan`` (any case, with a sign); nothing else:
  not Python's ``1_000``, full-width digits or surrounding blanks, not C's hex floats.  (The
  compiled reader, ``_x87.parse_table``, checks the same grammar: ``modern_number_ok``.)
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


#: the first letters of nan and inf, as UCS-4 code units
_NI = np.array([ord(c) for c in "iInN"], np.uint32)


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
    # cost a third of a second a million rows); then each candidate checked by the grammar
    codes = values.view(np.uint32).reshape(n, -1)
    cand = (codes == ord(".")).any(axis=1)
    if codes.shape[1] > 1:
        cand |= ((codes[:, 1:] == ord("+")) | (codes[:, 1:] == ord("-"))).any(axis=1)
        signed = (codes[:, 0] == ord("+")) | (codes[:, 0] == ord("-"))
        cand |= signed & np.isin(codes[:, 1], _NI)
    cand |= np.isin(codes[:, 0], _NI)
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
