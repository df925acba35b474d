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
import stat
import sys
from typing import Any

from perfeval.exceptions import InputFormatError

# Start-up: this module is on every `perf` run's path; perfeval.base.text (its pattern is compiled
# at import) is imported where a message is made.


class CtrlC:
    """What the ``perfeval`` command knows of Ctrl-C (:func:`perfeval.cli.main.main`): ``armed``
    while the command runs (a Ctrl-C raises KeyboardInterrupt), ``received`` once one came (the status
    is then 130, and nothing more is written: standard output and the files the command writes raise
    KeyboardInterrupt instead).
    """

    armed = False
    received = False
    saved_hook: Any = None


CTRL_C = CtrlC()


def _no_output_after_ctrl_c() -> None:
    if CTRL_C.received:
        raise KeyboardInterrupt


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
    from perfeval.base.text import shown

    return shown(" ".join(str(e).split("\n")).replace("\r", " "))


class _Closed:
    def __init__(self, name: str):
        self.name = name
        self.buffer = self
        self.encoding = "utf-8"

    def _refuse(self, *args: Any, **kwargs: Any) -> int:
        if self.name == "input":
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
        _no_output_after_ctrl_c()
        try:
            self.text.flush()
            write_all(self.text.buffer, s.encode(self.text.encoding or "utf-8"))
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from None
        return len(s)

    def flush(self) -> None:
        _no_output_after_ctrl_c()
        try:
            self.text.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.text, name)


def _writes_in_place(path: str) -> bool:
    """Whether an output file is written where it is rather than through a temporary file renamed
    over it: a link or a device (``-o /dev/stdout``) is written through, never replaced.
    """
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:  # no such file yet
        return False


def _temporary_beside(path: str) -> tuple[int, str]:
    """A new temporary file in the folder of ``path``, to be renamed over it (the same file system:
    the rename is atomic); its descriptor and name.  Its mode is the one ``open()`` gives a new file
    (not ``mkstemp``'s 0600), and a Ctrl-C just after it is made does not leave it behind.
    """
    folder = os.path.dirname(os.path.abspath(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".perfeval-{os.urandom(6).hex()}.part")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
        except BaseException:  # made, then interrupted: removed (an error making it made none)
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    raise FileExistsError(errno.EEXIST, "no free temporary file name", folder)


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` to the file ``path`` whole or not at all: into a temporary file beside it, renamed
    over it once written and closed, so that a full disk (or Ctrl-C) leaves neither a half-written nor
    an empty file, and a file that was there as it was.  A link or a device is written through
    (:func:`_writes_in_place`).

    Raises
    ------
    OutputError
        The file could not be written; its ``filename`` is ``path``.
    """
    _no_output_after_ctrl_c()
    try:
        if _writes_in_place(path):
            with open(path, "wb") as fh:
                fh.write(data)
            return
        fd, tmp = _temporary_beside(path)
    except OSError as e:
        raise OutputError(e.errno, e.strerror, path) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(e.errno, e.strerror, path) from None
        raise
