"""The one grammar of input shared by every modern reader (in memory, streamed, compiled or not).

- A **number** is ``[+-]digits[.digits][(e|E)[+-]digits]`` or ``[+-].digits[...]`` with ASCII
  digits, or one of the words ``inf``, ``infinity``, ``nan`` (any case, with a sign); nothing else:
  not Python's ``1_000``, full-width digits or surrounding blanks, not C's hex floats.  (The
  compiled reader, ``_x87.parse_table``, checks the same grammar: ``modern_number_ok``.)
- A **plain integer** is ``-?(0|[1-9][0-9]*)`` within int64, not ``-0``: the only spelling of its
  value, so an identity column of plain integers can be held as int64 without merging two ids.
- An **identity column** (a group or id) is int64 when every value is a plain integer, else the
  text exactly as written: ``007`` and ``7``, ``1e3`` and ``1000`` stay apart; never a float.
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


def first_bad_number(values: Sequence[str]) -> int:
    """The index of the first value that is not a number (-1 when there is none)."""
    match = NUMBER.match
    for i, v in enumerate(values):
        if match(v) is None:
            return i
    return -1
