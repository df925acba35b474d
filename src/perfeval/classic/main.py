"""Entry point of the classic ``perf`` command (PERF 5.12, byte for byte)."""

from __future__ import annotations

import sys

from perfeval.base.console import guard, quiet_stdout, write_all
from perfeval.classic.engine import Classic, Out
from perfeval.classic.options import ClassicExit, HelpRequested, parse_options
from perfeval.classic.reader import read_cases
from perfeval.exceptions import PerfError

# Start-up: the help (and through it the measure registry) is imported for -h, --version and a
# usage error only: `perf -roc` does not load it.


def run(argv: list[str], stdout, stderr) -> int:
    """Run the classic command; ``stdout`` takes bytes, ``stderr`` text. Returns the exit status."""
    io = Out(err=stderr.write)
    try:
        try:
            req = parse_options(argv)
        except HelpRequested as h:
            from perfeval.classic.help import VERSION_LINE, help_text

            stdout.write((help_text() if h.what == "help" else VERSION_LINE + "\n").encode())
            return 0

        cases = read_cases(req.infile, req.predfile, req.blocks)
        job = Classic(req, io)
        if req.blocks:
            job.run_blocks(cases)
        else:
            job.run_normal(cases)
        write_all(stdout, b"".join(io.chunks))
        return 0
    except ClassicExit as e:
        # the original exits here; what it had printed on stdout is flushed first
        write_all(stdout, b"".join(io.chunks))
        if e.stream == "stdout":
            text = e.text
            if e.usage:
                from perfeval.classic.help import help_text

                text += help_text()
            stdout.write(text.encode())
        else:
            stderr.write(e.text)
        return e.status
    except PerfError as e:
        stderr.write(f"Error: {e}\n")
        return 1
    except MemoryError:
        stderr.write("Error: out of memory while reading or sorting the input\n")
        return 1


def main(argv: list[str] | None = None) -> int:
    """``perf`` console script."""
    args = sys.argv[1:] if argv is None else argv
    try:
        guard()  # a standard stream closed at start-up: a clear error, not an AttributeError
        status = run(args, sys.stdout.buffer, sys.stderr)
        sys.stdout.flush()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `perf ... | head`: stop quietly, as a C program killed by SIGPIPE would
        quiet_stdout()
        return 141
    except OSError as e:  # the output could not be written: a full disk, a closed standard output
        quiet_stdout()
        sys.stderr.write(f"Error: cannot write the output ({e.strerror or e})\n")
        return 1
    except Exception as e:  # never a traceback: one line, and a status that says "our fault"
        sys.stderr.write(f"Error: internal error ({type(e).__name__}: {e}); please report it\n")
        return 70
    return status


if __name__ == "__main__":
    sys.exit(main())
