"""``perfeval plot`` (a curve of one or more models) and ``perfeval report`` (one HTML page)."""

from __future__ import annotations

import shlex
import sys
from typing import Any

from perfeval._progress import wanted
from perfeval.cli import load


def _matplotlib() -> None:
    """Matplotlib on the Agg backend (files, no window), or the command that installs it."""
    from perfeval.exceptions import MissingDependencyError

    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'perfeval[plot]'") from None
    matplotlib.use("Agg")


def run_plot(args: Any) -> int:
    _matplotlib()
    from perfeval.plot import CurveDisplay, plot_by_group, save

    _source, y, models, g = load.models(args)
    kw = {"bins": args.bins} if args.kind == "calibration" else {}
    if g is not None:
        s = next(iter(models.values()))
        fig = plot_by_group(args.kind, y, s, g, threshold=args.threshold)
    else:
        fig = (
            CurveDisplay.from_models(y, models, kind=args.kind, threshold=args.threshold, **kw).plot().figure_
        )
    save(fig, args.output)
    sys.stderr.write(f"perfeval: wrote {args.output}\n")
    return 0


def run_report(args: Any) -> int:
    from perfeval.cli.commands.eval import check_ci_options
    from perfeval.exceptions import InvalidParameterError

    _matplotlib()
    from perfeval.html import build

    if not str(args.output).lower().endswith((".html", ".htm")):
        raise InvalidParameterError(f"-o {args.output}: expected an .html file name")
    if args.ci is not None:
        check_ci_options(args)
    source, y, models, g = load.models(args)
    text = build(
        y,
        models,
        measures=args.measures,
        groups=g,
        threshold=args.threshold,
        command="perfeval " + " ".join(shlex.quote(a) for a in args.argv),
        source=source,
        ci=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        method=args.method or "bca",
        tie_bounds=args.tie_bounds,
        progress=wanted(args),
    )
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(text)
    sys.stderr.write(f"perfeval: wrote {args.output}\n")
    return 0
