"""The one exception hierarchy of perfeval.

Every error a user can cause is one of these, and its message says what was wrong, where (file,
line, field or option), what was expected and what was found.  The command-line front ends print
``Error: <message>`` on one line and exit with a non-zero status; they never show a traceback.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import types
import warnings
from collections.abc import Iterator

# Start-up: this module is on every `perf` run's path; perfeval.base.text (its pattern is compiled
# at import) is imported where a message names a place.


class PerfError(Exception):
    """Base class of every error perfeval raises on purpose.

    Examples
    --------
    >>> str(PerfError("something is wrong"))
    'something is wrong'
    """


class InvalidParameterError(PerfError, ValueError, TypeError):
    """A parameter or command-line option has a value that cannot be used.

    Examples
    --------
    >>> str(InvalidParameterError("option -t needs a value (a threshold), but nothing follows it"))
    'option -t needs a value (a threshold), but nothing follows it'
    """


class InvalidDataError(InvalidParameterError):
    """The data cannot be evaluated as asked: a NaN score, targets that are not 0/1 for a binary
    measure, negative relevance, arrays of different lengths.  (A subclass of
    InvalidParameterError: it is a bad argument value, found in the data.)

    Examples
    --------
    >>> str(InvalidDataError("`y_score` holds NaN at index 3; scores must be numbers"))
    '`y_score` holds NaN at index 3; scores must be numbers'
    """


class InputFormatError(PerfError, ValueError):
    """The input data could not be read: names the source, the line and the field.

    Parameters
    ----------
    message : str
        What is wrong, without the position.
    source : str
        The file name, or ``"standard input"``; shown escaped, and quoted when it is not one plain
        word (``'my data.txt', line 4: ...``: :func:`perfeval.base.text.place`).
    line, field : int or None
        1-based position of the offending token; ``field`` counts the tokens of its line.
    row : int or None
        1-based row of a table that has no lines (Parquet), instead of ``line``.

    Examples
    --------
    >>> str(InputFormatError("expected a number, found 'foo'", source="data.txt", line=4, field=1))
    "data.txt, line 4, field 1: expected a number, found 'foo'"
    """

    def __init__(
        self,
        message: str,
        *,
        source: str = "",
        line: int | None = None,
        field: int | None = None,
        row: int | None = None,
    ):
        self.message = message
        self.source = source
        self.line = line
        self.field = field
        self.row = row
        from perfeval.base.text import place

        # a file name may hold a newline, an escape sequence or text that reads as a place
        # (``x, line 5: ``): quoted unless it is one plain word
        where = place(source) if source else ""
        if line is not None:
            where += f", line {line}" if where else f"line {line}"
        elif row is not None:
            where += f", row {row}" if where else f"row {row}"
        if field is not None:
            where += f", field {field}"
        super().__init__(f"{where}: {message}" if where else message)


class UnknownMeasureError(PerfError, KeyError):
    """A measure name that is not in the registry; the message lists close matches.

    Examples
    --------
    >>> str(UnknownMeasureError("unknown measure 'rco'; did you mean 'roc'?"))
    "unknown measure 'rco'; did you mean 'roc'?"
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class MissingDependencyError(PerfError, ImportError):
    """An optional dependency is needed; the message gives the pip command that installs it."""


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the first frame outside perfeval (the user's
    line), whatever the path of calls inside the package; for the function that calls
    ``warnings.warn`` (it calls this one on the same line).
    """
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: types.FrameType | None = sys._getframe(1)  # the function about to warn: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
        level += 1
    return level


#: set in this thread (context) only by :func:`quiet`: the engine's warnings are not said
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("perfeval_quiet", default=False)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """The engine's warnings (:func:`warn`) not said inside the block, in this thread only.

    ``warnings.catch_warnings`` changes the process's filters: in a Dask worker thread it could hide
    (or restore over) a warning the user's own thread is saying at that moment.  A context
    variable belongs to its thread, so a worker's partition summaries are quiet and nothing else is.
    """
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def warn(warning: Warning | str, category: type[Warning] | None = None) -> None:
    """``warnings.warn`` at the user's line (:func:`user_stacklevel`), unless inside :func:`quiet`."""
    if _QUIET.get():
        return
    warnings.warn(warning, category, stacklevel=user_stacklevel())


class PerfWarning(UserWarning):
    """Base class of perfeval's warnings."""


class CommentLinesWarning(PerfWarning):
    """Lines of a text table were read as comments and skipped: lines whose first non-blank
    character is ``#`` before the header, or anywhere in a table without a header (PERF's files).
    After a header such a line is a row (``#N/A``, ``#123``), never skipped.  The message counts the
    lines and names the first ones; the ``perfeval`` command writes it on stderr as a note.

    Examples
    --------
    >>> str(CommentLinesWarning("t.txt: 2 lines starting with '#' skipped as comments (lines 1, 4)"))
    "t.txt: 2 lines starting with '#' skipped as comments (lines 1, 4)"
    """


class GradesAsLabelsWarning(PerfWarning):
    """A measure of binary labels per group (GAUC) was given graded targets (0, 1, 2, ...) and no
    ``pos_label``: it reads a grade above 0 as positive.  Said rather than silently assumed;
    ``pos_label=`` names one label positive instead.
    """


class BootstrapBiasWarning(PerfWarning):
    """A measure's bootstrap replicates lie on one side of its estimate: its interval does not contain
    the estimate, or (every replicate on one side) BCa's bias correction is infinite and its interval
    NaN.  The measure is biased under resampling (calibration errors, reliability terms and maxima
    are); the interval (its ``note`` says this too) is the replicates' spread, not a range around the
    estimate.

    Examples
    --------
    >>> issubclass(BootstrapBiasWarning, PerfWarning)
    True
    """


class UndefinedMeasureWarning(PerfWarning):
    """A measure is undefined for the data, or for some groups (left out of the means and listed in
    the report), e.g. ROC area with one class only.

    Examples
    --------
    >>> str(UndefinedMeasureWarning("GAUC is undefined for 2 of 10 groups"))
    'GAUC is undefined for 2 of 10 groups'
    """


class ZeroWeightGroupsWarning(UndefinedMeasureWarning):
    """Groups whose rows all have weight 0: a row of weight 0 is no row, so such a group is no group
    (left out of the per-group values, the means and the count of groups, as if its rows were not
    there), said rather than silently gone.  The message counts them and names the first ones; the
    ``perfeval`` command writes it on stderr as a note.

    Examples
    --------
    >>> issubclass(ZeroWeightGroupsWarning, UndefinedMeasureWarning)
    True
    """
