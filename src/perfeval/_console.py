"""The standard streams of both commands (``perf`` and ``perfeval``): whole writes, closed streams,
and one-line messages.

A closed standard stream (``perfeval ... >&-``, ``<&-``) is None in Python, and the first use would
fail with an AttributeError deep inside the command.  :func:`guard` puts a stand-in there instead:
reading a closed standard input is a one-line input error, writing to a closed standard output is
the same ``OSError`` (EBADF) that a failed write gives, which the command reports as "cannot write
the output", and a closed standard error swallows what is written to it (there is nowhere left to
say anything).

This module is the bottom layer: the classic command imports it without importing the modern CLI.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any


def write_all(stdout: Any, data: bytes) -> None:
    """Write every byte, or raise: a buffered binary stream may return a short count instead of raising
    when the reader goes away mid-write (``perf ... | head``), so keep writing until it raises.
    """
    view = memoryview(data)
    while view:
        n = stdout.write(view)
        if n is None or n <= 0:
            raise BrokenPipeError("the output stream accepted nothing")
        view = view[n:]


def one_line(e: object) -> str:
    """An error's message on one line (a message from a library may hold line breaks), with any
    control character left in it escaped.
    """
    from perfeval._text import shown

    return shown(" ".join(str(e).split("\n")).replace("\r", " "))


class _Closed:
    def __init__(self, name: str):
        self.name = name
        self.buffer = self
        self.encoding = "utf-8"

    def _refuse(self, *args: Any, **kwargs: Any) -> int:
        if self.name == "input":
            from perfeval.exceptions import InputFormatError

            raise InputFormatError(
                "cannot be read: it was closed when the command started", source="standard input"
            )
        if self.name == "error":
            return 0
        raise OSError(errno.EBADF, "standard output is closed")

    read = readinto = readline = read1 = peek = _refuse

    def write(self, data: Any) -> int:
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
        sys.stdin = _Closed("input")
    if sys.stdout is None:
        sys.stdout = _Closed("output")
    if sys.stderr is None:
        sys.stderr = _Closed("error")


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what is still
    buffered neither fails again nor prints "Exception ignored" after the command's own message.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (OSError, AttributeError, ValueError):
        pass


class OutputError(OSError):
    """Writing the command's output failed (a full disk, a closed standard output)."""


class WholeWrites:
    """Standard output that writes every byte or raises: a text stream over a pipe drops the rest of a
    large write silently when the reader goes away (``perfeval eval ... | head``), and the command
    would then exit 0 with its output cut.
    """

    def __init__(self, text: Any):
        self.text = text

    def write(self, s: str) -> int:
        try:
            self.text.flush()
            write_all(self.text.buffer, s.encode(self.text.encoding or "utf-8"))
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from None
        return len(s)

    def flush(self) -> None:
        try:
            self.text.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.text, name)
