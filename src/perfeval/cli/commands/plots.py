"""``perfeval plot`` (a curve of one or more models) and ``perfeval report`` (one HTML page)."""

from __future__ import annotations

import shlex
import sys
from typing import Any

import numpy as np

from perfeval import plot
from perfeval.base.console import write_file
from perfeval.base.progress import wanted
from perfeval.base.text import place
from perfeval.cli import load, slices
from perfeval.exceptions import InvalidParameterError, MissingDependencyError

# matplotlib is optional (perfeval[plot]); the report's modules (the engine, the HTML writer,
# eval's options) are imported by run_report: `perfeval plot` loads neither the engine nor the
# statistics.


def matplotlib_agg() -> None:
    """Matplotlib on the Agg backend (files, no window), or the command that installs it."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'perfeval[plot]'") from None
    matplotlib.use("Agg")


def _say_scores_outside(models: dict, w: Any, bins: str) -> None:
    """A note for each model whose scores outside [0, 1] a calibration plot cannot place as
    probabilities: PERF's bins leave them out, equal-width bins count them in the end bins, so the
    picture is not what it seems; said, never drawn in silence (equal-mass bins draw their mean
    scores where they are; ECE's value in the legend is undefined for such scores, either way).
    """
    fate = {
        "perf": "left out of its bins (PERF's 19 bins lie in [0, 1])",
        "width": "counted in its first or last bin, and ECE is undefined",
        "mass": "drawn where they are, and ECE is undefined",
    }.get(bins)
    if fate is None:
        return
    for name, s in models.items():
        s = np.asarray(s, dtype=np.float64)
        out = (s < 0) | (s > 1)
        if w is not None:
            out &= np.asarray(w) > 0
        n = int(np.count_nonzero(out))
        if n:
            load.note(
                f"perfeval: note: the calibration plot reads the scores as probabilities, but {n:,} of "
                f"{len(s):,} of {name!r} are outside [0, 1] (the first: {float(s[np.argmax(out)])!r}): "
                f"{fate}\n"
            )


def band_options(args: Any) -> dict[str, Any]:
    """The calibration plot's band options (--band-level, --band), checked before any reading."""
    level = args.band_level
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(f"--band-level must lie strictly between 0 and 1, got {level:g}")
    return {"band_level": level, "band": args.band}


def _bins(args: Any) -> dict[str, Any]:
    """The calibration plot's bins (--bins, --n-bins), checked before any reading: PERF's 19, or
    ECE's width or mass bins, ``n_bins`` ECE's default (15) unless given.
    """
    from perfeval.curves import calibration_bins
    from perfeval.measures import get_measure

    bins = calibration_bins(args.bins or "perf")
    n_bins = getattr(args, "n_bins", None)
    if bins == "perf":
        if n_bins is not None:
            raise InvalidParameterError(
                "--n-bins applies to --bins width or mass; PERF's bins (the default) are 19, overlapping"
            )
        return {"bins": bins}
    param = next(p for p in get_measure("ECE").params if p.name == "n_bins")
    if n_bins is None:
        n_bins = int(param.default)
    param.check(n_bins, "--n-bins: the calibration plot (as ECE)")
    return {"bins": bins, "n_bins": n_bins}


def _say_no_band(display: Any) -> None:
    """A note for each calibration curve drawn without its consistency band, saying why (the
    curve's ``extra["band_why"]``): a band left out is said, never dropped in silence.
    """
    for name, curve in zip(display.names, display.curves, strict=True):
        extra = curve.extra or {}
        if extra.get("band") is None and extra.get("band_why"):
            load.note(f"perfeval: note: no consistency band for {name!r}: {extra['band_why']}\n")


def _plot_classes(args: Any) -> int:
    """``perfeval plot calibration`` of one model of K classes (--classes, --score-prefix): the
    top-label reliability diagram, by ECE_TOP's bins (--bins width or mass, --n-bins), its value in
    the legend, the cases read and checked as ``perfeval eval`` reads them.
    """
    from perfeval.cli import classes
    from perfeval.curves import calibration as calibration_curve
    from perfeval.measures import parse_measure

    for flag, on, hint in (
        ("plot " + args.kind, args.kind != "calibration", "`perfeval report` draws the curves of K classes"),
        ("--group", args.group is not None, "`perfeval eval` takes K classes per --group"),
        ("--pos-label", args.pos_label is not None, "each class has its own score column"),
        ("--bins perf", args.bins == "perf", "PERF's bins are of one score a case: give width or mass"),
        ("-t", args.threshold != 0.5, "the prediction of K classes is the argmax"),
    ):
        if on:
            raise InvalidParameterError(
                f"{flag} does not apply to K classes (a score column a class); {hint}"
            )
    band = band_options(args)
    args.bins = args.bins or "width"
    n_bins = _bins(args)["n_bins"]
    spec = parse_measure(f"ECE_TOP:bins={args.bins},n_bins={n_bins}")
    report, _cases = classes.wide_report(args, classes.read_wide(args), [spec])
    curve = calibration_curve(report.summary, measure=spec, **band)
    display = plot.CurveDisplay([curve], ["model"], kind="calibration")
    _say_no_band(display)
    fig = display.plot(mark_threshold=False).figure_
    plot.save(fig, args.output, args.format)
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return 0


def run_plot(args: Any) -> int:
    from perfeval.cli import regression_plots

    how = regression_plots.plot_task(args)  # predicted, residuals: a regression target's plots
    if how is not None:
        return regression_plots.run_plot(args, how)
    matplotlib_agg()

    plot.check_path(args.output, args.format)  # before reading: a wrong name is said at once
    # K classes (cli.classes.requested: its own options), without loading the engine otherwise
    if getattr(args, "classes", None) or getattr(args, "score_prefix", None):
        return _plot_classes(args)

    _source, y, models, g, w = load.models(args)
    kw = band_options(args)
    if args.kind == "calibration":
        kw.update(_bins(args))
        _say_scores_outside(models, w, kw["bins"])
    else:
        kw = {}
    if g is not None:
        fig = plot.plot_by_group(args.kind, y, models, g, threshold=args.threshold, sample_weight=w, **kw)

        n_groups = len(np.unique(g))
        if n_groups > plot.MAX_GROUPS:
            load.note(
                f"perfeval: note: the plot draws the {plot.MAX_GROUPS} largest of {n_groups:,} groups "
                "(the most rows)\n"
            )
    else:
        display = plot.CurveDisplay.from_models(
            y, models, kind=args.kind, threshold=args.threshold, sample_weight=w, **kw
        )
        _say_no_band(display)
        fig = display.plot().figure_
    plot.save(fig, args.output, args.format)
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return 0


def _slice_columns(args: Any, table: Any, weights: Any) -> dict[str, Any]:
    """The slice columns of ``perfeval report --by`` by name (the report's models are every score
    column), checked as ``eval`` checks them, each problem one line naming the file's line.
    """
    ch = load.choose_table(args, table, several=True, empties=False)
    taken = {"target": ch.target, "score": list(ch.scores), "weight": ch.weight}
    req = slices.request_of(args, table, taken, weights)
    req.slicings(len(table.data[ch.target.index]))  # the keys and codes: a column's problem said here
    return dict(req.columns)


def run_report(args: Any, table: Any = None) -> int:
    """``perfeval report`` of one or more binary models (``table``: the table when it was read
    already; K classes: :mod:`perfeval.cli.commands.report`).
    """
    from perfeval.cli.commands.eval import check_ci_options

    matplotlib_agg()
    from perfeval.engine import DEFAULT_MEASURES, resolve
    from perfeval.plot.html import build

    if args.ci is not None:
        check_ci_options(args)
    band = band_options(args)
    # parsed before reading: a bad -m is said at once, and a fractional weight where APR or CA2
    # reads weights as counts is one line naming the column, the value and its line, as in eval
    specs = resolve(args.measures or DEFAULT_MEASURES, args.threshold)
    sliced = bool(slices.columns(args))
    if sliced and table is None:  # the slice columns are read from the table (whole)
        table = load.read(args, args.file)
    label_read: dict = {}  # the positive label as read (--pos-label): the page says it, as eval does
    source, y, models, g, w = load.models(args, specs, table, label_read)
    by = _slice_columns(args, table, w) if sliced else None
    # the report's calibration plot: the first ECE's (or MCE's) bins, else PERF's
    ece = [sp for sp in specs if sp.measure.name in ("ECE", "MCE")]
    _say_scores_outside(models, w, ece[0].kwargs["bins"] if ece else "perf")
    text = build(
        y,
        models,
        sample_weight=w,
        measures=args.measures,
        groups=g,
        threshold=args.threshold,
        command="perfeval " + " ".join(shlex.quote(a) for a in args.argv),
        source=source,
        ci=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        method=args.method,
        tie_bounds=args.tie_bounds,
        group_column=str(args.group or ""),
        progress=wanted(args),
        band_level=band["band_level"],
        band=band["band"],
        by=by,
        intersections=bool(getattr(args, "intersections", False)),
        min_size=getattr(args, "min_size", None),
        missing="slice" if getattr(args, "missing_slice", False) else "error",
        pos_label=label_read.get("pos_label"),
    )

    write_file(args.output, text.encode("utf-8"))  # whole or not at all: a full disk leaves no part
    sys.stderr.write(f"perfeval: wrote {place(args.output)}\n")
    return 0
