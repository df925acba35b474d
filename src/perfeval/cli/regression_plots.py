"""``perfeval report`` and ``perfeval plot`` of a regression target (a real target and one or more
prediction columns): the report's page (:func:`perfeval.plot.html.build_regression`) and
the plot kinds ``predicted`` (actual against predicted, y = x) and ``residuals`` (the residuals
against the predictions, and their histogram) of :mod:`perfeval.plot._regression`.

The target is a regression target as ``perfeval eval`` finds it (:func:`perfeval.cli.regression.requested`):
``--task regression``, a regression measure named (``-m mae,r2``), a regression plot kind, or, with
none of these and no ``--pos-label``, a target column of real values or many whole numbers: then a
note says so.  A binary curve (``roc``, ``pr``, ...) of a regression target, or a regression plot
under ``--task binary``, is one line.
"""

from __future__ import annotations

import copy
import os
import shlex
import sys
from typing import Any

import numpy as np

from perfeval.cli import load
from perfeval.exceptions import InvalidParameterError

__all__ = ["KINDS", "report_task", "run_plot", "run_report", "plot_task"]

#: ``perfeval plot`` kinds of a regression target (perfeval.plot._regression.KINDS)
KINDS = ("predicted", "residuals")
#: ``perfeval plot`` kinds of a binary target
BINARY_KINDS = ("roc", "pr", "lift", "acc", "cost", "calibration")


def _as_eval(args: Any) -> Any:
    """``args`` with eval's options that report and plot do not have (their defaults), for
    :func:`perfeval.cli.regression.requested`.
    """
    view = copy.copy(args)
    for name, default in (
        ("partition", []),
        ("stream", False),
        ("dask", None),
        ("dialect", None),
        ("task", None),
        ("measures", None),
    ):
        if not hasattr(view, name):
            setattr(view, name, default)
    return view


def _agg() -> None:
    """Matplotlib on the Agg backend (files, no window), or the command that installs it."""
    from perfeval.exceptions import MissingDependencyError

    try:  # as perfeval.cli.commands.plots.matplotlib_agg (which imports this module)
        import matplotlib
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'perfeval[plot]'") from None
    matplotlib.use("Agg")


def _specs(args: Any) -> list:
    from perfeval.engine import resolve

    return resolve(args.measures, 0.5, pending=True) if getattr(args, "measures", None) else []


def _first_chunk_task(args: Any) -> str | None:
    """Whether a large file's target is a regression one, by its first chunk's targets (the rest of
    the file is read by the binary path, which says at its line a target that is not 0/1).
    """
    from perfeval.cli import classes
    from perfeval.engine.regression import regression_task
    from perfeval.io.tables import numeric

    got = classes.first_targets(args)
    if got is None:
        return None
    ch, y, _source, where = got
    col = np.asarray(y)
    try:
        values = numeric(where, ch.target.name, col[col != ""] if col.dtype.kind == "U" else col, "target")
    except Exception:  # labels: the binary path says what they are
        return None
    if not np.isfinite(values).all():
        return None
    how = regression_task(values, None)
    return None if how is None else f"the target column {ch.target.name!r} " + how.removeprefix("the target ")


def report_task(args: Any) -> tuple[str | None, Any]:
    """(how the report's target is a regression target, or None; the table when it was read to tell).

    A file of more than :data:`perfeval.cli.load.LARGE_BYTES` is told by its first chunk (the binary
    report reads such a file in chunks); any other input is read whole once, and the table returned
    for the report to use (standard input cannot be read twice).
    """
    from perfeval.cli import classes, regression

    view = _as_eval(args)
    if view.task == "binary":
        return None, None
    specs = _specs(view)
    path = load.path_of(args.file)
    large = path is not None and os.path.isfile(path) and os.path.getsize(path) >= load.LARGE_BYTES
    if large and view.task is None and not any(s.measure.kind == "regression" for s in specs):
        if args.pos_label is not None or (args.measures and not _all_regression_forms(specs)):
            return None, None
        return _first_chunk_task(view), None
    read: dict[str, Any] = {}
    several = args.score is not None and "," in args.score

    def table_of() -> Any:
        if "table" not in read:  # labels kept as written for K classes' check (standard input: once)
            read["table"] = (
                classes.read_wide(args) if several and path is None else load.read(args, args.file)
            )
        return read["table"]

    how = regression.requested(view, specs, path, table_of)
    return how, read.get("table")


def _all_regression_forms(specs: list) -> bool:
    from perfeval.measures.vocabulary import REGRESSION_OF

    return all(s.measure.name in REGRESSION_OF for s in specs)


def _refuse(args: Any, how: str, command: str) -> None:
    """The options that do not apply to a regression target: one line each, before any work."""
    for flag, on, why in (
        ("--pos-label", args.pos_label is not None, "a regression target has no positive label"),
        (
            "-t",
            args.threshold != 0.5,
            "no threshold: the predictions are compared with the targets as numbers",
        ),
        ("--band-level", args.band_level != 0.9, "it has no reliability diagram"),
        ("--band", args.band != "outcomes", "it has no reliability diagram"),
        ("--bins", getattr(args, "bins", None) not in (None, "perf"), "it has no calibration plot"),
        ("--n-bins", getattr(args, "n_bins", None) is not None, "it has no calibration plot"),
        ("--tie-bounds", bool(getattr(args, "tie_bounds", False)), "a regression has no tied ranking"),
        ("--by", bool(getattr(args, "by", None)), "`perfeval eval --by` gives a regression's slices"),
    ):
        if on:
            raise InvalidParameterError(
                f"{flag} does not apply to {command} of a regression target ({how}): {why}"
            )


def _read(args: Any, table: Any) -> tuple:
    """(source, targets, {model: predictions}, groups, weights) of a regression target read whole,
    the file's first bad line said (a target or a prediction that is no finite number, an empty
    field of a column used), as ``perfeval eval`` says it.
    """
    from perfeval.cli.regression import target_values

    t = load.read(args, args.file) if table is None else table
    ch = load.choose_table(args, t, several=True, empties=False)
    load.say_columns(ch)
    target, *values, w, _ = load.earliest(
        lambda: target_values(t, ch.target.name, t.get(ch.target, empties=False)),
        *(lambda c=c: load.scores(t, c) for c in ch.scores),
        lambda: load.weights(t, ch.weight),
        lambda: t.no_empties(ch.all()),
    )
    models = {c.name: np.asarray(v, dtype=np.float64) for c, v in zip(ch.scores, values, strict=True)}
    if len(models) < len(ch.scores):
        raise InvalidParameterError(f"--score {args.score!r}: a column named twice")
    g = None if ch.group is None else t.get(ch.group, empties=False)
    return t.source, np.asarray(target, dtype=np.float64), models, g, w


def run_report(args: Any, how: str, table: Any = None) -> int:
    """``perfeval report`` of a regression target: the measures asked (default: eval's regression
    ones) checked before reading, the table read once, the page written whole.
    """
    from perfeval.base.console import write_file
    from perfeval.base.progress import wanted
    from perfeval.base.text import place
    from perfeval.cli.commands.eval import check_ci_options
    from perfeval.engine.regression import regression_specs

    _refuse(args, how, "the report")
    if getattr(args, "classes", None) or getattr(args, "score_prefix", None):
        raise InvalidParameterError(
            f"--classes and --score-prefix do not apply to a regression target ({how})"
        )
    if args.ci is not None:
        check_ci_options(args)
        if args.method in ("delong", "wald"):
            raise InvalidParameterError(
                f"--method {args.method} has no interval of a regression measure: use --method bca, "
                "percentile or t"
            )
    rspecs = regression_specs(_specs(args) or None)  # a binary measure of a regression target: one line
    _agg()
    from perfeval.plot.html import build_regression

    source, y, models, g, w = _read(args, table)
    load.note(f"perfeval: note: regression ({how}): {', '.join(s.label for s in rspecs)}\n")
    text = build_regression(
        y,
        models,
        measures=[s.label for s in rspecs],
        groups=g,
        command="perfeval " + " ".join(shlex.quote(a) for a in args.argv),
        source=source,
        how=how,
        ci=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        method=args.method,
        group_column=str(args.group or ""),
        sample_weight=w,
        progress=wanted(args),
    )
    write_file(args.output, text.encode("utf-8"))  # whole or not at all
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return 0


def plot_task(args: Any) -> str | None:
    """How ``perfeval plot``'s target is a regression target (a regression kind asked), or None (a
    binary curve); a binary curve under ``--task regression`` and a regression kind under ``--task
    binary`` are one line (usage).
    """
    task = getattr(args, "task", None)
    if args.kind in KINDS:
        if task == "binary":
            raise InvalidParameterError(
                f"--task binary: `perfeval plot {args.kind}` draws a regression target's predictions; a "
                f"binary target's curves: {', '.join(BINARY_KINDS)}"
            )
        return "--task regression" if task == "regression" else f"`perfeval plot {args.kind}`"
    if task == "regression":
        raise InvalidParameterError(
            f"--task regression: `perfeval plot {args.kind}` is a curve of a binary target (0/1); a "
            f"regression target's plots: {', '.join(KINDS)}"
        )
    return None


def run_plot(args: Any, how: str) -> int:
    """``perfeval plot predicted`` or ``residuals``: one panel a model (by group: one a group and
    model, the largest groups), written to ``-o``.
    """
    from perfeval import plot
    from perfeval.base.text import place
    from perfeval.plot._regression import MAX_POINTS

    _refuse(args, how, f"`perfeval plot {args.kind}`")
    _agg()
    plot.check_path(args.output, args.format)  # before reading: a wrong name is said at once
    _source, y, models, g, w = _read(args, None)
    if g is not None:
        fig = plot.regression_by_group(args.kind, y, models, g, sample_weight=w)
        kept = g if w is None else np.asarray(g)[np.asarray(w) != 0]
        keys, counts = np.unique(kept, return_counts=True)
        if len(keys) > plot.MAX_GROUPS:
            load.note(
                f"perfeval: note: the plot draws the {plot.MAX_GROUPS} largest of {len(keys):,} groups "
                "(the most rows)\n"
            )
        big = int(np.sort(counts)[::-1][: plot.MAX_GROUPS].max()) if len(counts) else 0
        if big > MAX_POINTS:
            load.note(
                f"perfeval: note: a group of more than {MAX_POINTS:,} cases is drawn as hexagons (every case "
                "counted in its hexagon, none drawn alone); its panel's title says so\n"
            )
    else:
        draw = plot.predicted_figure if args.kind == "predicted" else plot.residuals_figure
        fig = draw(y, models, sample_weight=w)
        n = len(y) if w is None else int(np.count_nonzero(np.asarray(w) != 0))
        if n > MAX_POINTS:
            load.note(
                f"perfeval: note: {n:,} cases, more than {MAX_POINTS:,}: drawn as hexagons, the colour the "
                "cases (or weight) in each; every case counted, none left out\n"
            )
    plot.save(fig, args.output, args.format)
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return 0
