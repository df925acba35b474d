"""Standard streams closed before the command started (``perfeval ... >&-``, ``<&-``).

Python sets such a stream to None, and the first use would fail with an AttributeError deep inside
the command.  :func:`guard` puts a stand-in there instead: reading a closed standard input is a
one-line input error, writing to a closed standard output is the same ``OSError`` (EBADF) that a
failed write gives, which the command reports as "cannot write the output", and a closed standard
error swallows what is written to it (there is nowhere left to say anything).
"""

from __future__ import annotations

import errno
import os
import sys


class _Closed:
    def __init__(self, name: str):
        self.name = name
        self.buffer = self
        self.encoding = "utf-8"

    def _refuse(self, *args, **kwargs):
        if self.name == "input":
            from perfeval.exceptions import InputFormatError

            raise InputFormatError("cannot be read: it was closed when the command started",
                                   source="standard input")
        if self.name == "error":
            return 0
        raise OSError(errno.EBADF, "standard output is closed")

    read = readinto = readline = read1 = peek = _refuse

    def write(self, data) -> int:
        if self.name == "error":
            return len(data)
        return self._refuse()

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, f"standard {self.name} is closed")

    def close(self) -> None:
        pass


def guard() -> None:
    """Stand-ins for the standard streams that are None (closed at start-up)."""
    if sys.stdin is None:
        sys.stdin = _Closed("input")  # type: ignore[assignment]
    if sys.stdout is None:
        sys.stdout = _Closed("output")  # type: ignore[assignment]
    if sys.stderr is None:
        sys.stderr = _Closed("error")  # type: ignore[assignment]


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what is still
    buffered neither fails again nor prints "Exception ignored" after the command's own message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (OSError, AttributeError, ValueError):
        pass
