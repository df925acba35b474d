"""The modern ``perfeval`` command: parse, dispatch to a command module, and turn every failure into
one line and an exit status.

Commands (each a module of :mod:`perfeval.cli.commands` with ``run(args)``): ``eval``, ``compare``,
``plot``, ``report``, ``score``, ``leaderboard``, ``codabench``, ``list-measures``.  The options are in
:mod:`perfeval.cli.parser`, the input loader in :mod:`perfeval.cli.load`, what is printed in
:mod:`perfeval.cli.output`.  The classic, byte-compatible command is ``perf``
(:mod:`perfeval.classic`).

Exit status: 0 done, 1 the data (or the output) failed, 2 the command line, 70 an internal error,
75 ``score`` scored but could not store, 130 interrupted, 141 the reader of the output went away.
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from perfeval.base.console import CTRL_C as _CTRL_C
from perfeval.base.console import OutputError, WholeWrites, guard, one_line, quiet_stdout, write_file
from perfeval.cli import load
from perfeval.cli.load import note
from perfeval.cli.parser import DEFAULT_MEASURES, EXTENSIONS, INPUT_FORMATS, build
from perfeval.exceptions import (
    BootstrapBiasWarning,
    CommentLinesWarning,
    InputFormatError,
    InvalidDataError,
    InvalidParameterError,
    PerfError,
    ZeroWeightGroupsWarning,
)

# Start-up (`perfeval --help` loads nothing it does not use): importlib where a command is
# dispatched, perfeval.base.text where a message names a file, ast and shlex where a library's
# message is put in the command line's words.

#: command name -> (module of perfeval.cli.commands, function)
COMMANDS = {
    "eval": ("eval", "run"),
    "compare": ("compare", "run"),
    "plot": ("plots", "run_plot"),
    "report": ("report", "run"),
    "score": ("contest", "run_score"),
    "leaderboard": ("contest", "run_leaderboard"),
    "board": ("contest", "run_board"),
    "codabench": ("codabench", "run"),
    "trec": ("trec", "run"),
    "explain": ("explain", "run"),
    "sample": ("sample", "run"),
    "list-measures": ("measures", "run"),
}


def command(name: str) -> Callable[[Any], int]:
    """The function that runs command ``name`` (its module imported only when it runs)."""
    import importlib

    module, func = COMMANDS[name]
    return getattr(importlib.import_module(f"perfeval.cli.commands.{module}"), func)


def main(argv: Sequence[str] | None = None) -> int:
    """``perfeval`` console script; returns the exit status.

    Ctrl-C at any moment is status 130 with nothing said: while the command runs it raises
    KeyboardInterrupt through the ``finally`` blocks (a spill, a half-written output file removed),
    and a failure that follows a Ctrl-C is 130 whatever became of the KeyboardInterrupt (a C module
    that imports another, as numpy's does ``datetime``, turns it into an ImportError without a
    trace of it).  Before and after the command, Ctrl-C keeps the handling main() found: for the
    console script, ending the process as it ends a C program (see ``perfeval/__init__.py``).
    """
    previous = _arm()
    try:
        status = 130 if _CTRL_C.received else _checked(argv)
    except KeyboardInterrupt:  # raised in the cleanup of _checked: the status is said below
        status = 130
    finally:
        _CTRL_C.armed = False  # first, before any call: from here a Ctrl-C is noted, not raised
        interrupted = _disarm(previous)
    return 130 if interrupted else status


def _on_ctrl_c(signum: int, frame: Any) -> None:
    _CTRL_C.received = True
    if _CTRL_C.armed:
        raise KeyboardInterrupt


def _unraisable(unraisable: Any) -> None:
    """A KeyboardInterrupt of a Ctrl-C raised where Python cannot pass it on (a ``__del__``, a
    callback of the garbage collector or of importlib) is not printed ("Exception ignored in ..." and
    a traceback): the command runs on, as Python has it, until it writes (it raises
    KeyboardInterrupt there: :data:`perfeval.base.console.CTRL_C`), and its status is 130.
    """
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _CTRL_C.received:
        return
    _CTRL_C.saved_hook(unraisable)


def _arm() -> tuple[Any] | None:
    """Install main()'s handling of Ctrl-C: the handler it replaced, or None when it installed none
    (not the main thread, which alone receives signals).
    """
    _CTRL_C.received = False
    try:
        previous = signal.signal(signal.SIGINT, _on_ctrl_c)
    except ValueError:
        return None
    _CTRL_C.saved_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable
    _CTRL_C.armed = True
    return (previous,)


def _disarm(armed: tuple[Any] | None) -> bool:
    """Give back the handling that :func:`_arm` replaced; whether a Ctrl-C was received."""
    _CTRL_C.armed = False
    if armed is not None:
        if sys.unraisablehook is _unraisable:
            sys.unraisablehook = _CTRL_C.saved_hook
        if armed[0] is not None:  # None: a handler not set from Python, which cannot be put back
            signal.signal(signal.SIGINT, armed[0])
    received, _CTRL_C.received = _CTRL_C.received, False
    return received


def _checked(argv: Sequence[str] | None) -> int:
    """Run the command; every failure is one line and a status, never a traceback."""
    try:
        guard()
        if sys.stdout is sys.__stdout__ and hasattr(sys.stdout, "buffer"):
            sys.stdout = WholeWrites(sys.stdout)
        status = _main(argv)
        sys.stdout.flush()  # here, so that a reader gone before the last block is status 141 too
        return status
    except BrokenPipeError:  # the reader went away: stop as a C program killed by SIGPIPE would
        quiet_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except OSError as e:  # the output could not be written: a full disk, a closed standard output
        quiet_stdout()
        if _CTRL_C.received:
            return 130
        sys.stderr.write(f"perfeval: error: cannot write the output ({e.strerror or e})\n")
        return 1
    finally:
        if isinstance(sys.stdout, WholeWrites):
            sys.stdout = sys.stdout.text


def _one_line_warning(
    message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None
):
    """A warning that reaches the command (a library's too) is one line on stderr; lines of the input
    skipped as comments are a note, written when the command succeeds (an error stays one line).
    """
    if _CTRL_C.received:  # after a Ctrl-C nothing is said
        return
    if isinstance(category, type) and issubclass(category, (CommentLinesWarning, ZeroWeightGroupsWarning)):
        note(f"perfeval: note: {one_line(message)}\n")
        return
    if isinstance(category, type) and issubclass(category, BootstrapBiasWarning):
        return  # the command's output says it (under the table, the JSON's note, a note for CSV)
    sys.stderr.write(f"perfeval: warning: {one_line(message)}\n")


def _main(argv: Sequence[str] | None = None) -> int:
    parser = build()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(e.code or 0)
    if args.command is None:  # a command is required: the help, on stderr, and a usage error's status
        parser.print_help(sys.stderr)
        return 2
    if hasattr(args, "measures"):  # -m repeated adds measures; none given: the command's default
        given = args.measures
        args.measures = ",".join(given) if given else DEFAULT_MEASURES.get(args.command)
        args.measures_given = bool(given)
    if isinstance(getattr(args, "score", None), list):  # --score repeated adds models, as -m adds measures
        args.score = ",".join(args.score)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the exact command, for the report
    load.NOTES.clear()
    try:
        to_file = resolve_output(args)
    except PerfError as e:
        return _error(one_line(e), 2)[0]
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        # lines skipped as comments are always said, whatever the warning filters of the process
        warnings.simplefilter("always", CommentLinesWarning)
        if to_file:
            status, failed = _run_to_file(args)
        else:
            status, failed = _run(args)
    if not failed:  # an error stays the one line on stderr
        for note in load.NOTES:
            sys.stderr.write(note)
    return status


def resolve_output(args: Any) -> bool:
    """Settle ``-o/--output FILE`` and ``--format NAME`` (:func:`perfeval.cli.parser.output_options`):
    the format from ``--format``, else from the file's extension, else the command's first format.
    True when the command prints text that is to go to a file (plot and report write theirs).

    ``-o json`` with a format's bare name, the old spelling, still means the format (with a note).
    """
    formats = getattr(args, "output_formats", None)
    if formats is None:
        return False
    _check_paths(args)
    out, fmt = args.output, args.format
    if formats == ("raw",):  # a file copied as it is (perfeval sample): any name
        args.format, args.output = "raw", None if out == "-" else out
        return args.output is not None
    picture = formats[0] in ("png", "svg", "pdf", "html")
    if picture and (out == "-" or (out in formats and "." not in out)):
        raise InvalidParameterError(
            f"-o {out}: {args.command} writes a file; give its name, e.g. -o "
            f"{'report.html' if formats[0] == 'html' else 'roc.png'}"
        )
    if fmt is not None and fmt not in formats and EXTENSIONS.get(fmt.lower()) in formats:
        fmt = args.format = EXTENSIONS[fmt.lower()]  # --format md is markdown, tex latex, as -o's names are
    if fmt is not None and fmt not in formats:
        hint = (
            f"; the input table's format is --input-format {fmt}"
            if fmt in INPUT_FORMATS and hasattr(args, "input_format")
            else ""
        )
        raise InvalidParameterError(f"--format {fmt}: {args.command} writes {', '.join(formats)}{hint}")
    if out is not None and out in formats and fmt is None and "." not in out and not os.path.exists(out):
        note(f"perfeval: note: -o {out} names a format: it is --format {out} now (-o names a file)\n")
        args.output, args.format = None, out
        return False
    ext = out.rsplit(".", 1)[-1].lower() if out not in (None, "-") and "." in os.path.basename(out) else ""
    implied = EXTENSIONS.get(ext)
    if implied is not None and implied not in formats and implied != "table":
        raise InvalidParameterError(
            f"-o {out}: {args.command} writes {', '.join(formats)}, not {implied} "
            "(--format NAME says which, whatever the file name)"
        )
    if fmt is not None and implied is not None and implied != fmt and implied in formats:
        raise InvalidParameterError(f"-o {out} is {implied} by its name, --format says {fmt}: give one")
    if fmt is None:
        if implied in formats:
            fmt = implied
        elif picture:  # a picture or a page: its name must say
            names = [f".{f}" for f in formats]
            listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
            raise InvalidParameterError(f"-o {out}: expected a {listed} file name (or --format NAME)")
        elif ext and implied is None:  # out.xlsx: not a text table by its name, whatever we would write
            names = sorted({f".{e}" for e, f in EXTENSIONS.items() if f in formats})
            raise InvalidParameterError(
                f"-o {out}: .{ext} is not a format {args.command} writes ({', '.join(formats)}); "
                f"name the file {', '.join(names)} or give --format NAME"
            )
        else:
            fmt = formats[0]
    args.format = fmt
    if out == "-":
        args.output = None
    return args.output is not None and formats[0] not in ("png", "svg", "pdf", "html")


#: the options that name input files (each command has some of them)
_INPUTS = ("file", "files", "qrels", "runs", "submissions", "key")


def _check_paths(args: Any) -> None:
    """The files a command writes, checked before any work: each in a folder that exists, none of
    them an input file or another output, and ``--per-group-output`` a CSV file.
    """
    from perfeval.base.text import place

    outputs = [
        (flag, v)
        for flag, v in (("-o", args.output), ("--per-group-output", getattr(args, "per_group_output", None)))
        if v not in (None, "-")
    ]
    if getattr(args, "per_group_output", None) == "-":
        raise InvalidParameterError(
            "--per-group-output -: standard output holds the summary; give a file (or --per-group)"
        )
    inputs = []
    for name in _INPUTS:
        v = getattr(args, name, None)
        inputs += [x for x in (v if isinstance(v, list) else [v]) if isinstance(x, str) and x != "-"]
    real_inputs = {os.path.realpath(x) for x in inputs}
    seen: dict[str, str] = {}
    for flag, path in outputs:
        real = os.path.realpath(path)
        if real in real_inputs:
            raise InvalidParameterError(
                f"{flag} {place(path)}: that is an input file; writing it would destroy it"
            )
        if real in seen:
            raise InvalidParameterError(f"{flag} {place(path)}: {seen[real]} writes that file already")
        seen[real] = flag
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise InvalidParameterError(f"{flag} {place(path)}: cannot write it (no folder {place(folder)})")
        if flag == "--per-group-output":
            ext = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else ""
            if EXTENSIONS.get(ext) not in (None, "csv", "table"):
                raise InvalidParameterError(f"--per-group-output {place(path)}: it writes CSV (a .csv file)")


class _Collected:
    """The text a command writes to ``-o FILE``, kept until it has succeeded."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, s: str) -> int:
        self.parts.append(s)
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _run_to_file(args: Any) -> tuple[int, bool]:
    """Run a command whose text goes to ``args.output``: kept until the command has succeeded, then
    written whole or not at all (:func:`perfeval.base.console.write_file`), so a failure, a full disk or a
    Ctrl-C leaves no half-written file, nor replaces an old one.
    """
    from perfeval.base.text import place

    saved, collected = sys.stdout, _Collected()
    sys.stdout = collected
    try:
        status, failed = _run(args)
    finally:
        sys.stdout = saved
    if failed or status not in (0, 75):  # 75: scored, not stored; the scores are written
        return status, failed
    text = "".join(collected.parts)  # one part, usually: no copy
    collected.parts.clear()
    try:
        write_file(args.output, text.encode("utf-8"))
    except OSError as e:
        return _error(f"cannot write {place(args.output)} ({e.strerror or one_line(e)})", 1)
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return status, failed


def _run(args: Any) -> tuple[int, bool]:
    """Run the command: (its status, False), or (a status, True) when it failed and one line said why."""
    from perfeval.base.text import place

    try:
        return command(args.command)(args), False
    except (InputFormatError, InvalidDataError) as e:  # the data: 1
        return _error(_cli_words(one_line(e)), 1)
    except PerfError as e:  # the command line, or a missing optional dependency: 2
        return _error(_cli_words(one_line(e)), 2)
    except OutputError as e:
        if e.filename is None:  # standard output: main() answers it (_run_to_file: names its file)
            raise
        return _error(f"cannot write {place(str(e.filename))} ({e.strerror or one_line(e)})", 1)
    except BrokenPipeError:
        raise  # main() answers it
    except KeyboardInterrupt:
        return 130, True
    except MemoryError:
        return _error("out of memory (--stream evaluates a large file in bounded memory)", 1)
    except OSError as e:  # the file system: a full disk under the spill, a file that fails to read
        where = f" ({place(str(e.filename))})" if getattr(e, "filename", None) else ""
        return _error(f"{e.strerror or one_line(e)}{where}", 1)
    except Exception as e:  # never a traceback
        if _interrupted(e):  # Ctrl-C inside an import that wraps what it catches (numpy's ImportError)
            return 130, True
        return _error(f"internal error ({type(e).__name__}: {one_line(e)}); please report it", 70)


def _interrupted(e: BaseException) -> bool:
    """Whether ``e`` came of a Ctrl-C: one was received (the KeyboardInterrupt may be lost: a C
    module importing another replaces it with an ImportError), or one is in its chain of causes.
    """
    if _CTRL_C.received:
        return True
    seen: set[int] = set()
    x: BaseException | None = e
    while x is not None and id(x) not in seen:
        if isinstance(x, KeyboardInterrupt):
            return True
        seen.add(id(x))
        x = x.__cause__ or x.__context__
    return False


#: the library's words for what the command line says with an option
_LIBRARY_WORDS = (
    ("pass `groups=`", "give --group COLUMN"),
    ("pass `group=`", "give --group COLUMN"),
    ("`groups=`", "--group"),
    ("use method='bca' or 'percentile'", "use --method bca or --method percentile"),
    ("use method='bca', 'percentile', or 't'", "use --method bca, percentile or t"),
    ("use method='bca', 'percentile' or 't'", "use --method bca, percentile or t"),
    # perfeval.base.checks.SQUARED_ERRORS and LabelWords.as_regression
    (
        "(mae, rmse, r2, ...: `perfeval list-measures`), with task='regression' in Python",
        "(-m mae,rmse,r2 or --task regression)",
    ),
    ("task='regression' (or measures=['mae', 'rmse'])", "--task regression (or -m mae,rmse)"),
    ("use method='percentile'", "use --method percentile"),
    ("(or perfeval.ci on the cases)", "(or drop --stream/--dask to evaluate in memory)"),
    ("got n_boot=", "got --n-boot "),
    # perfeval.backends.dask.CODE_TARGETS
    ("name the positive label with `pos_label=`", "name the positive label with --pos-label"),
    # perfeval.backends.dask.CODE_CLASSES (the command's --dask takes K classes as in memory)
    ("(`score=[...]`, `classes=[...]`)", "(--score COL_A,COL_B,... --classes A,B,...)"),
    # perfeval.backends.dask.CODE_GRADES
    ("or evaluate in memory with `partitions=`", "or drop --dask and name them with --partition"),
)


def _cli_words(text: str) -> str:
    """A library message in the command line's words (``pass `groups=``` is ``give --group COLUMN``,
    ```pos_label='click'``` is ``--pos-label click``).
    """
    import ast
    import shlex

    for lib, cli in _LIBRARY_WORDS:
        text = text.replace(lib, cli)

    def option(m: re.Match) -> str:
        try:
            value = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError):
            return m.group(0)
        return f"--pos-label {shlex.quote(str(value))}"

    return re.sub(r"`pos_label=([^`]+)`", option, text)


def _error(text: str, status: int) -> tuple[int, bool]:
    if _CTRL_C.received:  # whatever failed after a Ctrl-C failed because of it: 130, nothing said
        return 130, True
    sys.stderr.write(f"perfeval: error: {text}\n")
    return status, True


if __name__ == "__main__":
    sys.exit(main())
