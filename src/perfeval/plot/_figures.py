"""Whole figures: small multiples, one panel a group (:func:`plot_by_group`), and a figure written
to a file (:func:`save`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from perfeval.base.checks import to_numpy
from perfeval.base.console import write_file
from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import literal, pyplot
from perfeval.plot._curves import AREA, TITLES, CurveDisplay


def _panel(
    ax: Any, kind: str, y: Any, scores: dict[str, Any], w: Any, threshold: float, **curve_kw: Any
) -> CurveDisplay:
    """One group's curves on a small panel: no axis labels (the figure has them once), small ticks
    and markers, a legend of the areas only (the models are named once for the figure).
    """
    d = CurveDisplay.from_models(y, scores, kind=kind, threshold=threshold, sample_weight=w, **curve_kw)
    d.plot(ax=ax)
    ax.set_aspect("auto")
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(labelsize=7.5)
    for line, curve in zip(d.lines_, d.curves, strict=True):
        area = curve.area if kind in AREA else None
        line.set_label("_" if area is None else f"{AREA[kind]} {area:.4f}")
    for line in ax.lines:  # the operating points (markers, no line): smaller on a small panel
        if line.get_linestyle() == "None":
            line.set_markersize(4.5)
            line.set_markeredgewidth(1.2)
    shown = [line for line in d.lines_ if not line.get_label().startswith("_")]
    if shown:
        ax.legend(handles=shown, fontsize=7.5, loc="lower right", handlelength=1.2, borderpad=0.3)
    elif ax.get_legend() is not None:
        ax.get_legend().remove()
    return d


#: the groups :func:`plot_by_group` draws by default (the largest)
MAX_GROUPS = 12


def plot_by_group(
    kind: str,
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    max_groups: int = MAX_GROUPS,
    ncols: int = 6,
    threshold: float = 0.5,
    width: float = 10.0,
    sample_weight: Any = None,
    **curve_kw: Any,
):
    """Small multiples: one panel a group (the largest ``max_groups`` groups), shared axes.

    Parameters
    ----------
    kind : str
        The curve: ``"roc"``, ``"pr"``, ``"lift"``, ``"acc"``, ``"cost"`` or ``"calibration"``.
    y_true, groups : array-like
        The targets and the group of each case.
    y_score : array-like or dict of str to array-like
        One model's scores, or several models' (a curve each in every panel, one colour a model,
        named once in a legend above the panels).
    max_groups : int
        How many groups are drawn: the largest (most rows), ties broken by key.
    ncols : int
        Panels a row (at most; fewer when there are fewer groups).
    threshold : float
        The operating point marked on each curve.
    width : float
        The figure's width in inches when the row is full (``ncols`` panels); a shorter row is
        narrower in proportion, so the text keeps its size.
    sample_weight : array-like, optional
        The weight of each case (the curves and areas are weighted; groups are ranked by rows).
    **curve_kw
        The curve's own options (the calibration curve's ``bins``, ``n_bins``, ``band_level``,
        ``band``: :func:`perfeval.curves.calibration`).

    Returns
    -------
    matplotlib.figure.Figure
        Each drawn panel's legend gives its group's area (AUC, AP) per model, the value of that
        group in ``evaluate(..., groups=...).results[...].per_group``.
    """
    plt = pyplot()

    if isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or ncols < 1:
        raise InvalidParameterError(f"ncols={ncols!r}: expected a whole number >= 1")
    models = dict(y_score) if isinstance(y_score, Mapping) else {"": y_score}
    y, g = to_numpy(y_true, "y_true"), to_numpy(groups, "groups")
    scores = {name: to_numpy(s, "y_score") for name, s in models.items()}
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    if w is not None and len(w) == len(y):  # a case of weight 0 is no case (other lengths: refused below)
        keep = w != 0
        y, g, w = y[keep], g[keep], w[keep]
        scores = {name: s[keep] if len(s) == len(keep) else s for name, s in scores.items()}
    keys, counts = np.unique(g, return_counts=True)
    chosen = keys[np.argsort(-counts, kind="stable")[:max_groups]]
    n = len(chosen)
    cols = max(1, min(ncols, n))
    nrows = max(1, -(-n // cols))
    panel = width / ncols
    fig, axes = plt.subplots(
        nrows,
        cols,
        figsize=(panel * cols, panel * 1.05 * nrows + 0.8),
        squeeze=False,
        sharex=True,
        sharey=True,
        layout="constrained",
    )
    xlabel = ylabel = ""
    handles: list = []
    for ax, key in zip(axes.ravel(), chosen, strict=False):
        m = g == key
        title = f"{literal(key)}\nn={int(m.sum()):,}"
        if len(np.unique(y[m])) < 2 and kind in ("roc", "pr", "lift"):
            ax.set_title(f"{title}: one class", fontsize=8)
            ax.axis("off")
            continue
        d = _panel(
            ax,
            kind,
            y[m],
            {name: s[m] for name, s in scores.items()},
            None if w is None else w[m],
            threshold,
            **curve_kw,
        )
        ax.set_title(title, fontsize=8)
        xlabel, ylabel = d.curves[0].xlabel, d.curves[0].ylabel
        if not handles:
            handles = list(d.lines_)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.axis("off")
    for i, ax in enumerate(flat):  # the tick labels of a panel with no drawn panel under it
        if ax.axison and (i + cols >= len(flat) or not flat[i + cols].axison):
            ax.xaxis.set_tick_params(labelbottom=True)
    if xlabel:
        fig.supxlabel(xlabel, fontsize=9)
        fig.supylabel(ylabel, fontsize=9)
    title = f"{TITLES.get(kind, kind)} by group"
    if len(keys) > len(chosen):  # said on the figure: not every group is drawn
        title += f" (the {len(chosen)} largest of {len(keys):,} groups)"
    if handles and len(models) > 1:  # the models named once, under the title
        fig.legend(
            handles,
            [literal(name) for name in models],
            loc="outside upper center",
            ncols=len(models),
            fontsize=9,
            frameon=False,
            title=title,
            title_fontsize=10,
        )
    else:
        fig.suptitle(title, fontsize=10)
    return fig


#: the file formats :func:`save` writes, by extension (matplotlib's backend for each)
FORMATS = ("png", "svg", "pdf")


def check_path(path: str, format: str | None = None) -> str:
    """The format of an output file: ``format``, else the name's extension; or an error naming the
    ones written.
    """
    ext = (format or (str(path).rsplit(".", 1)[-1] if "." in str(path) else "")).lower()
    if ext not in FORMATS:
        raise InvalidParameterError(f"-o {path}: expected a .png, .svg or .pdf file name")
    return ext


def save(fig: Any, path: str, format: str | None = None) -> None:
    """Write a figure as PNG, SVG or PDF: ``format``, else the file's extension (matplotlib's agg,
    svg or pdf backend; a PDF keeps the curves as vectors).  The file is written whole or not at all:
    drawn in memory, then written beside ``path`` and renamed over it, so that a full disk leaves no
    half-written or empty file (an OSError naming ``path`` says why).
    """
    ext = check_path(path, format)
    buf = io.BytesIO()
    fig.savefig(buf, format=ext, dpi=130, bbox_inches="tight")
    write_file(str(path), buf.getvalue())
