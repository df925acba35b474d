"""``perfeval report``: one self-contained HTML page.  One or more binary models
(:func:`perfeval.cli.commands.plots.run_report`), one or more models of a regression target
(:mod:`perfeval.cli.regression_plots`), or one model of K classes, its class columns named
as ``perfeval eval`` names them (:mod:`perfeval.cli.classes`): ``--score`` with ``--classes``,
``--score-prefix``, or ``--score`` alone when every target names one of its columns.  The page of K
classes: :func:`perfeval.plot.html.build_classes`.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

from perfeval.base.text import place
from perfeval.exceptions import InvalidParameterError

# the engine, the readers and matplotlib are imported by the command that runs.


def run(args: Any) -> int:
    from perfeval.cli import classes, load, slices
    from perfeval.cli.commands.plots import run_report

    slices.check_options(args)  # --by: what it does not combine with, one line
    if classes.requested(args):
        return _run_classes(args, None)
    from perfeval.cli import regression_plots  # a real target: its own page

    how, table = regression_plots.report_task(args)  # the table, when it was read to tell
    if how is not None:
        return regression_plots.run_report(args, how, table)
    if args.score is None or "," not in args.score:
        return run_report(args, table)
    names = [c.strip() for c in args.score.split(",")]
    path = load.path_of(args.file)
    if path is not None:  # a file: its first chunk's targets decide, as eval's streamed reading
        if classes.names_are_classes(args, names, None):
            return _run_classes(args, None)
        return run_report(args, table)
    # standard input is read once: the labels as written (the classes' names are matched as written)
    if table is None:
        table = classes.read_wide(args)
    if classes.names_are_classes(args, names, table):
        return _run_classes(args, table)
    return run_report(args, table)


def _refuse(args: Any) -> None:
    """The options of the binary report that do not apply to K classes (yet): one line, before any work."""
    for flag, on, hint in (
        (
            "--pos-label",
            args.pos_label is not None,
            "each class has its own score column: no class is the positive one",
        ),
        ("--group", args.group is not None, "`perfeval eval` takes K classes per --group"),
        ("--ci", args.ci is not None, "`perfeval eval --ci` gives the intervals of K classes"),
        ("--tie-bounds", args.tie_bounds, "`perfeval eval --tie-bounds` gives the bounds of K classes"),
    ):
        if on:
            raise InvalidParameterError(
                f"{flag} does not apply to the report of K classes (a score column a class) yet; {hint}"
            )
    if args.threshold != 0.5:
        raise InvalidParameterError(
            f"-t {args.threshold:g}: a threshold does not apply to K classes (the prediction is the argmax)"
        )


def _run_classes(args: Any, table: Any) -> int:
    """The report of one model of K classes: the table read (or ``table``), checked and finished as
    ``perfeval eval`` does it (the same numbers), then the page.
    """
    from perfeval.base.console import write_file
    from perfeval.cli import classes
    from perfeval.cli.commands.plots import matplotlib_agg
    from perfeval.engine import resolve
    from perfeval.engine.classes import class_specs

    _refuse(args)
    from perfeval.cli.commands.plots import band_options

    band = band_options(args)  # the top-label reliability diagram's band, checked before any reading
    matplotlib_agg()
    from perfeval.plot.html import build_classes

    default = not args.measures
    specs = class_specs([] if default else resolve(args.measures, 0.5), default=default)
    if table is None:
        table = classes.read_wide(args)
    report, cases = classes.wide_report(args, table, specs)
    text = build_classes(
        report,
        scores=cases.s,
        sample_weight=cases.w,
        command="perfeval " + " ".join(shlex.quote(a) for a in args.argv),
        source=table.source,
        band_level=band["band_level"],
        band=band["band"],
    )
    write_file(args.output, text.encode("utf-8"))  # whole or not at all: a full disk leaves no part
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return 0
