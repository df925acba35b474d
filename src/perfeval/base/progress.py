"""Progress of long work on standard error: rows read, replicates drawn, groups done, with the rate
and the time left.

The bar is tqdm's (the ``progress`` extra), imported only when a bar is asked for, so that neither
``perf`` nor ``import perfeval`` pays for it.  The library shows no progress unless a function is
given ``progress=True``; the ``perfeval`` command asks for it when standard error is a terminal and
``--quiet`` is not given.  Without tqdm, a plain one-line counter is written instead (on a terminal
only: never noise in a log or a pipe).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

# tqdm is optional: imported where a bar is drawn.

#: seconds between two redraws
INTERVAL = 0.2


class Off:
    """No progress: every call does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> Off:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Line(Off):
    """The fallback without tqdm: ``desc: n/total unit, rate, time left`` redrawn in place."""

    def __init__(self, total: float | None, desc: str, unit: str, scale: bool):
        self.total, self.desc, self.unit, self.scale = total, desc, unit, scale
        self.n = 0.0
        self.postfix = ""
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.drawn = False

    def _num(self, x: float) -> str:
        if not self.scale:
            return f"{x:,.0f}"
        for k, p in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if x >= k:
                return f"{x / k:.1f}{p}"
        return f"{x:.0f}"

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.last < INTERVAL:
            return
        self.last = now
        rate = self.n / max(now - self.t0, 1e-9)
        done = f"{self._num(self.n)}/{self._num(self.total)}" if self.total else self._num(self.n)
        left = f", {(self.total - self.n) / rate:.0f} s left" if self.total and rate > 0 else ""
        post = f", {self.postfix}" if self.postfix else ""
        sys.stderr.write(f"\r{self.desc}: {done} {self.unit}, {self._num(rate)} {self.unit}/s{left}{post}   ")
        sys.stderr.flush()
        self.drawn = True

    def set_postfix_str(self, text: str) -> None:
        self.postfix = text

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()
            self.drawn = False


def bar(enabled: bool, total: float | None, desc: str, unit: str = "it", scale: bool = False) -> Any:
    """A progress bar on standard error when ``enabled`` (else one that does nothing): tqdm's, or a
    plain line when tqdm is not installed and standard error is a terminal.  Use ``update(n)``,
    ``set_postfix_str(text)`` and ``close()`` (or ``with``); the bar is cleared when closed.
    """
    if not enabled:
        return Off()
    try:
        from tqdm import tqdm
    except ImportError:
        return Line(total, desc, unit, scale) if sys.stderr.isatty() else Off()
    width = _width()
    return tqdm(
        total=total or None,
        desc=desc,
        unit=unit,
        unit_scale=scale,
        file=sys.stderr,
        leave=False,
        mininterval=INTERVAL,
        dynamic_ncols=width > 0,
        # a terminal that reports no size (0 x 0, as a fresh pseudo-terminal) gets 80 x 24: tqdm
        # would draw its bar 0 columns wide and hide it below row 0
        ncols=None if width > 0 else 80,
        nrows=None if width > 0 else 24,
    )


def _width() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 0


def wanted(args: Any) -> bool:
    """Whether a command shows progress: standard error is a terminal and ``--quiet`` was not given."""
    return not getattr(args, "quiet", False) and bool(getattr(sys.stderr, "isatty", lambda: False)())
