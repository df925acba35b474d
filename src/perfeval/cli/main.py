"""The modern ``perfeval`` command: parse, dispatch to a command module, and turn every failure into
one line and an exit status.

Commands (each a module of :mod:`perfeval.cli.commands` with ``run(args)``): ``eval``, ``compare``,
``plot``, ``report``, ``score``, ``leaderboard``, ``list-measures``.  The options are in
:mod:`perfeval.cli.parser`, the input loader in :mod:`perfeval.cli.load`, what is printed in
:mod:`perfeval.cli.output`.  The classic, byte-compatible command is ``perf``
(:mod:`perfeval.classic`).

Exit status: 0 done, 1 the data (or the output) failed, 2 the command line, 70 an internal error,
75 ``score`` scored but could not store, 130 interrupted, 141 the reader of the output went away.
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from perfeval._console import OutputError, WholeWrites, guard, one_line, quiet_stdout

#: command name -> (module of perfeval.cli.commands, function)
COMMANDS = {
    "eval": ("eval", "run"),
    "compare": ("compare", "run"),
    "plot": ("plots", "run_plot"),
    "report": ("plots", "run_report"),
    "score": ("contest", "run_score"),
    "leaderboard": ("contest", "run_leaderboard"),
    "trec": ("trec", "run"),
    "explain": ("explain", "run"),
    "list-measures": ("measures", "run"),
}


def command(name: str) -> Callable[[Any], int]:
    """The function that runs command ``name`` (its module imported only when it runs)."""
    import importlib

    module, func = COMMANDS[name]
    return getattr(importlib.import_module(f"perfeval.cli.commands.{module}"), func)


def main(argv: Sequence[str] | None = None) -> int:
    """``perfeval`` console script; returns the exit status."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C from here: cleanup, then 130
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
        sys.stderr.write(f"perfeval: error: cannot write the output ({e.strerror or e})\n")
        return 1
    finally:
        if isinstance(sys.stdout, WholeWrites):
            sys.stdout = sys.stdout.text


def _one_line_warning(
    message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None
):
    """A warning that reaches the command (a library's too) is one line on stderr."""
    sys.stderr.write(f"perfeval: warning: {one_line(message)}\n")


def _main(argv: Sequence[str] | None = None) -> int:
    import warnings

    from perfeval.cli import load
    from perfeval.cli.parser import build

    parser = build()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(e.code or 0)
    if args.command is None:  # a command is required: the help, on stderr, and a usage error's status
        parser.print_help(sys.stderr)
        return 2
    if hasattr(args, "measures"):  # -m repeated adds measures; none given: the command's default
        from perfeval.cli.parser import DEFAULT_MEASURES

        given = args.measures
        args.measures = ",".join(given) if given else DEFAULT_MEASURES.get(args.command)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the exact command, for the report
    load.NOTES.clear()
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        status, failed = _run(args)
    if not failed:  # an error stays the one line on stderr
        for note in load.NOTES:
            sys.stderr.write(note)
    return status


def _run(args: Any) -> tuple[int, bool]:
    """Run the command: (its status, False), or (a status, True) when it failed and one line said why."""
    from perfeval.exceptions import InputFormatError, InvalidDataError, PerfError

    try:
        return command(args.command)(args), False
    except (InputFormatError, InvalidDataError) as e:  # the data: 1
        return _error(one_line(e), 1)
    except PerfError as e:  # the command line, or a missing optional dependency: 2
        return _error(one_line(e), 2)
    except (BrokenPipeError, OutputError):
        raise  # main() answers it
    except KeyboardInterrupt:
        return 130, True
    except MemoryError:
        return _error("out of memory (--stream evaluates a large file in bounded memory)", 1)
    except OSError as e:  # the file system: a full disk under the spill, a file that fails to read
        where = f" ({one_line(e.filename)})" if getattr(e, "filename", None) else ""
        return _error(f"{e.strerror or one_line(e)}{where}", 1)
    except Exception as e:  # never a traceback
        return _error(f"internal error ({type(e).__name__}: {one_line(e)}); please report it", 70)


def _error(text: str, status: int) -> tuple[int, bool]:
    sys.stderr.write(f"perfeval: error: {text}\n")
    return status, True


if __name__ == "__main__":
    sys.exit(main())
