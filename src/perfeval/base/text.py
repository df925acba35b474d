"""Showing untrusted text (file names, team names, tokens of a submission) on a terminal or in a table.

A name may hold a newline (it would forge a line of a leaderboard or of a log), an escape sequence
(it would reach the organiser's terminal), a bidirectional override (it would show a name reversed),
or, from the file system, bytes that are not UTF-8 (Python carries them as lone surrogates, which
cannot be written to a UTF-8 stream).  :func:`shown` escapes all of them, so what is printed is one
line of plain characters that says exactly what the name holds.
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL; the Unicode line and paragraph separators; the format characters
# (bidirectional marks, embeddings, overrides and isolates, zero-width spaces and joiners, the
# byte-order mark, tags) that hide or reorder what is shown; lone surrogates (undecodable bytes of
# a file name).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff"
    "\U000e0001\U000e0020-\U000e007f]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def shown(text: str) -> str:
    r"""`text` with every control character escaped: safe to print on one line.

    Examples
    --------
    >>> shown("team\n1st  place\x1b[31m")
    'team\\n1st  place\\x1b[31m'
    >>> shown("plain name")
    'plain name'
    """
    return _UNSAFE.sub(_escape, text)


def token(text: str, limit: int = 40) -> str:
    """A token of a submission line, quoted and escaped, cut to `limit` characters: an error shows at
    most the offending token, never a whole line of a file.

    Examples
    --------
    >>> token("ev12")
    "'ev12'"
    >>> token("x" * 50)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (50 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '...'!r} ({len(text)} characters)"


_WORD = re.compile(r"[^\s'\"\\]+")


def cell(text: str) -> str:
    r"""`text` as a cell of a table: as it is when it is one plain word, else quoted as a Python
    string literal, so that blanks (a run of them would pass for the gap between columns), quotes,
    backslashes and control or format characters are visible and the name is one cell, one line.

    Examples
    --------
    >>> cell("team_red.txt")
    'team_red.txt'
    >>> print(cell("red   0.99000   0.01000.txt"))
    'red   0.99000   0.01000.txt'
    >>> print(cell("a\tb\u00a0c\n"))
    'a\tb\xa0c\n'
    """
    if _WORD.fullmatch(text) and shown(text) == text:
        return text
    return repr(text)


#: the sources a message names in the project's own words (not file names): never quoted
OWN_SOURCES = frozenset({"standard input", "the answer key", "a submission"})


def place(source: str) -> str:
    r"""A file name where a message names its place (``FILE, line 3: ...``): as it is when it is one
    plain word, else quoted as a Python string literal (:func:`cell`), so that a name holding
    ``, line 5: `` (or a blank, a quote, an escaped character) cannot pass for another place or
    message on the same line.  The project's own words (``standard input``) stay as they are.

    Examples
    --------
    >>> place("data/runs.csv")
    'data/runs.csv'
    >>> print(place("x, line 5: expected a number.txt"))
    'x, line 5: expected a number.txt'
    >>> place("standard input")
    'standard input'
    """
    return source if source in OWN_SOURCES else cell(source)


def decimals(v: float) -> str:
    """A float for a table: six decimals, or six significant digits where six decimals would not
    show its digits: a magnitude of 1e15 or more (``8.40272e+198``, not some 200 digits) or nonzero
    below 5e-7 (``4.06e-10``, not ``0.000000``).  NaN and infinities as Python writes them.

    Examples
    --------
    >>> decimals(0.5), decimals(4.06e-10), decimals(8.4027230594493766e198), decimals(123456.0)
    ('0.500000', '4.06e-10', '8.40272e+198', '123456.000000')
    """
    a = abs(v)
    if (a >= 1e15 and a != float("inf")) or (a != 0 and a < 5e-7):
        return f"{v:.6g}"
    return f"{v:.6f}"
