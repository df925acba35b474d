"""The modern ``perfeval`` command.

Subcommands so far: ``list-measures`` (generated from the registry).  ``perfeval`` grows the
evaluation subcommands in the next releases; the classic, byte-compatible command is ``perf``.
Exit codes: 0 ok, 1 bad data, 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from perfeval._version import __version__

EPILOG = """\
The classic command `perf` reproduces PERF 5.12 (KDD Cup 2004) byte for byte: `perf -h`.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfeval",
        description="Exact, fast evaluation of predictions: every PERF measure, and more, from one registry.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"perfeval {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    lm = sub.add_parser("list-measures", help="list the measures (name, aliases, PERF options, direction)")
    lm.add_argument("--long", action="store_true", help="print each measure's full definition")
    lm.add_argument("--format", choices=("table", "markdown"), default="table")
    return p


def list_measures_text(long: bool = False, fmt: str = "table") -> str:
    from perfeval.measures import list_measures

    ms = list_measures()
    if fmt == "markdown":
        out = ["# Measures", "", "Generated from the registry (`perfeval list-measures --format markdown`).", ""]
        for m in ms:
            out += [f"## {m.name}: {m.title}", "",
                    f"- aliases: {', '.join(f'`{a}`' for a in m.aliases)}",
                    f"- PERF options: {', '.join(f'`{o}`' for o in m.perf_options)}",
                    f"- better: {m.direction}" + ("; allowed in `-blocks` mode" if m.blocks else ""),
                    *(["- parameters: " + "; ".join(f"`{p.name}` (default {p.default}): {p.doc}"
                                                      for p in m.params)] if m.params else []),
                    "", m.definition, "", f"**Ties.** {m.ties}", "", f"**Edge cases.** {m.edge_cases}", "",
                    f"**perf compatibility.** {m.perf}", ""]
        return "\n".join(out)
    if long:
        return "\n\n".join(m.doc for m in ms) + "\n"
    rows = [("name", "better", "PERF options", "aliases", "title")]
    for m in ms:
        rows.append((m.name, m.direction, " ".join(m.perf_options), " ".join(m.aliases), m.title))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {r[4]}" for r in rows) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``perfeval`` console script."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(e.code or 0)
    if args.command == "list-measures":
        sys.stdout.write(list_measures_text(args.long, args.format))
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
