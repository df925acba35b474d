"""The notes a command keeps for stderr, written when it succeeds (an error stays the one line on
stderr).  A module of its own, importing nothing, so that every part of the command line can keep a
note without importing the reader (:mod:`perfeval.cli.load` re-exports both names).
"""

from __future__ import annotations

#: notes for stderr, written when the command succeeds
NOTES: list[str] = []


def note(text: str) -> None:
    """Keep ``text`` (a line for stderr) for when the command succeeds, once."""
    if text not in NOTES:
        NOTES.append(text)
