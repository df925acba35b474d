"""The slices' plots (docs/slices.md, "In the report"): one measure's value in each slice as a forest
plot (:func:`forest`, with each slice's interval when one is given), and the curves of some slices
beside the curve over every case (:func:`slice_curves`).

``forest`` takes plain arrays, so an interval from anywhere (a bootstrap by slice, DeLong's for the
ROC area) is drawn the same way: ``forest(values, lows, highs)``; without ``lows`` and ``highs`` it
draws the points alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from perfeval.base.checks import to_numpy
from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import literal, pyplot
from perfeval.plot._curves import CurveDisplay, marker_label, operating_point

#: a slice's name longer than this is cut on the plot (the table beside it has it whole)
LABEL_CHARS = 40

#: the height of a forest plot's row and of its frame (title, axis), in inches
ROW_INCHES = 0.24
FRAME_INCHES = 1.3


def _floats(name: str, values: Any, n: int | None) -> np.ndarray:
    """A 1-D array of floats of length ``n`` (NaN allowed: no value there), or one line saying why not."""
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"forest: {name} must be numbers (NaN where there is none)") from None
    if a.ndim != 1:
        raise InvalidParameterError(f"forest: {name} must be one value a slice (1-D), got shape {a.shape}")
    if n is not None and len(a) != n:
        raise InvalidParameterError(f"forest: {name} holds {len(a)} values for {n} slices")
    return a


def _forest_inputs(
    values: Any, lows: Any, highs: Any, labels: Any, flagged: Any, overall: Any
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, list[str], np.ndarray]:
    """:func:`forest`'s arguments checked: the values, the intervals' ends (or None), the labels and
    the flags, one a slice; one line for what is wrong.
    """
    v = _floats("values", values, None)
    n = len(v)
    if (lows is None) != (highs is None):
        raise InvalidParameterError("forest: give both lows and highs (each slice's interval), or neither")
    lo = None if lows is None else _floats("lows", lows, n)
    hi = None if highs is None else _floats("highs", highs, n)
    if lo is not None and hi is not None:
        backwards = np.isfinite(lo) & np.isfinite(hi) & (lo > hi)
        if backwards.any():
            i = int(np.flatnonzero(backwards)[0])
            raise InvalidParameterError(
                f"forest: the interval of slice {i} runs backwards (low {lo[i]!r} > high {hi[i]!r})"
            )
    names = [str(i) for i in range(n)] if labels is None else [str(x) for x in labels]
    if len(names) != n:
        raise InvalidParameterError(f"forest: {len(names)} labels for {n} slices")
    flags = np.zeros(n, dtype=bool) if flagged is None else np.asarray(flagged, dtype=bool).reshape(-1)
    if len(flags) != n:
        raise InvalidParameterError(f"forest: flagged holds {len(flags)} values for {n} slices")
    if overall is not None and (
        isinstance(overall, bool) or not isinstance(overall, (int, float, np.floating, np.integer))
    ):
        raise InvalidParameterError(f"forest: overall must be a number, got {overall!r}")
    return v, lo, hi, names, flags


def _span(v: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None, overall: Any) -> tuple[float, float]:
    """The horizontal range of a forest plot: every number drawn, padded (0 to 1 when none is)."""
    drawn = [v[np.isfinite(v)]]
    if lo is not None and hi is not None:
        drawn += [lo[np.isfinite(lo)], hi[np.isfinite(hi)]]
    if overall is not None and math.isfinite(float(overall)):
        drawn.append(np.array([float(overall)]))
    every = np.concatenate(drawn)
    if not every.size:
        return 0.0, 1.0
    a, b = float(every.min()), float(every.max())
    pad = (b - a) * 0.08 or max(abs(a) * 0.05, 0.05)
    return a - pad, b + pad


def _shorter(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "\u2026"


def forest(
    values: Any,
    lows: Any = None,
    highs: Any = None,
    *,
    labels: Sequence[Any] | None = None,
    overall: float | None = None,
    flagged: Any = None,
    measure: str = "value",
    title: str | None = None,
    ax: Any = None,
    width: float = 6.4,
):
    """One measure's value in each slice, a row a slice in the order given (the first on top).

    Parameters
    ----------
    values : array-like of float, shape (n_slices,)
        Each slice's value; NaN where the measure is undefined there (the row says *undefined*, and
        no point is drawn).
    lows, highs : array-like of float, shape (n_slices,), optional
        Each slice's interval (both or neither), drawn as a line through its point; NaN in a row: no
        interval there.  Without them, the points alone.
    labels : sequence, optional
        Each slice's name (default: its position); shown as written, cut after 40 characters.
    overall : float, optional
        The value over every case: a dashed vertical line.
    flagged : array-like of bool, optional
        The slices below the minimum size: a hollow point and ``*`` after the name.
    measure : str
        The measure's label, on the horizontal axis.
    title : str, optional
        The plot's title (default: the measure's, by slice).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure whose height grows with the slices
        (1.3 + 0.24 inch a slice).
    width : float
        The new figure's width in inches.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (``fig.axes[0]``: the plot; its lines: the overall value, then one line
        a slice with an interval; its points: a collection of the slices with a value, and one of
        the flagged ones; a text *undefined* a slice without one).

    Examples
    --------
    >>> fig = forest([0.70, 0.74, float("nan")], labels=["east", "north", "islands"],
    ...              overall=0.7015, measure="ROC")                 # doctest: +SKIP
    """
    v, lo, hi, names, flags = _forest_inputs(values, lows, highs, labels, flagged, overall)
    n = len(v)
    plt = pyplot()
    own = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(width, FRAME_INCHES + ROW_INCHES * max(n, 1)), layout="constrained")
    fig = ax.figure
    rows = np.arange(n)[::-1].astype(np.float64)  # the first slice on top
    finite = np.isfinite(v)
    xlim = _span(v, lo, hi, overall)
    if overall is not None and math.isfinite(float(overall)):
        ax.axvline(
            float(overall), color="0.35", ls="--", lw=1.1, label=f"overall {float(overall):.4g}", zorder=1
        )
    if lo is not None and hi is not None:
        for r, a, b in zip(rows, lo, hi, strict=True):
            if math.isfinite(a) and math.isfinite(b):
                ax.plot([a, b], [r, r], color="C0", lw=1.6, solid_capstyle="butt", zorder=2)
    solid = finite & ~flags
    hollow = finite & flags
    if solid.any():
        ax.scatter(v[solid], rows[solid], color="C0", s=28, zorder=3, label="slice value")
    if hollow.any():
        ax.scatter(
            v[hollow],
            rows[hollow],
            facecolors="white",
            edgecolors="C0",
            linewidths=1.4,
            s=28,
            zorder=3,
            label="below the minimum size (*)",
        )
    for r in rows[~finite]:  # an undefined slice keeps its row, and says so
        ax.text(
            0.01,
            r,
            "undefined",
            transform=ax.get_yaxis_transform(),
            va="center",
            ha="left",
            color="0.45",
            fontsize=8,
            style="italic",
        )
    ax.set_yticks(rows)
    ax.set_yticklabels([literal(_shorter(x)) + ("*" if f else "") for x, f in zip(names, flags, strict=True)])
    ax.tick_params(axis="y", labelsize=8 if n <= 40 else 6)
    ax.set_ylim(-0.7, max(n, 1) - 0.3)
    ax.set_xlim(*xlim)
    ax.set_xlabel(literal(measure))
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(literal(title) if title is not None else f"{literal(measure)} by slice", fontsize=10)
    if finite.any() or (overall is not None and math.isfinite(float(overall))):
        if own:  # under the plot, never over a point
            fig.legend(loc="outside lower center", ncols=3, fontsize=7.5, frameon=False)
        else:
            ax.legend(loc="best", fontsize=7.5)
    return fig


def slice_curves(
    y_true: Any,
    y_score: Any,
    members: Mapping[str, Any],
    *,
    kind: str = "roc",
    sample_weight: Any = None,
    threshold: float = 0.5,
    overall: str = "overall",
    ax: Any = None,
    title: str | None = None,
):
    """The curve over every case and the curves of some slices, on one plot (the overall curve black).

    Parameters
    ----------
    y_true, y_score : array-like
        The targets and the scores of every case.
    members : mapping of str to array-like
        Each slice to draw, by name: its rows (a boolean mask over the cases, or their indices).
    kind : str
        The curve (:mod:`perfeval.curves`): ``"roc"`` (default), ``"pr"``, ``"lift"``, ...
    sample_weight : array-like, optional
        The weight of each case.
    threshold : float
        The operating point marked on each curve (score >= threshold predicts positive).
    overall : str
        The name of the curve over every case.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    title : str, optional
        The plot's title.

    Returns
    -------
    matplotlib.figure.Figure
        The legend gives each curve's area (ROC: AUC; *undefined* for a slice of one class), and
        in one entry the markers' threshold (each on its curve, in its colour).
    """
    from perfeval.curves import KINDS
    from perfeval.curves import summary as curve_summary

    if kind not in KINDS:
        raise InvalidParameterError(f"unknown curve {kind!r}; expected one of {', '.join(KINDS)}")
    y = to_numpy(y_true, "y_true")
    s = to_numpy(y_score, "y_score")
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    if len(s) != len(y) or (w is not None and len(w) != len(y)):
        raise InvalidParameterError("slice_curves: y_true, y_score and sample_weight differ in length")
    parts: list[tuple[str, np.ndarray]] = [(overall, np.arange(len(y)))]
    for name, rows in members.items():
        r = np.asarray(rows)
        if r.dtype == bool:
            if len(r) != len(y):
                raise InvalidParameterError(
                    f"slice_curves: the mask of {name!r} holds {len(r)} values for {len(y)} cases"
                )
            r = np.flatnonzero(r)
        parts.append((str(name), r.astype(np.int64)))
    curves, names, points, base = [], [], [], None
    for name, r in parts:
        h = curve_summary(y[r], s[r], None if w is None else w[r])
        curve = KINDS[kind](h)
        curves.append(curve)
        names.append(name)
        points.append(operating_point(kind, curve, h, threshold) if kind != "calibration" else None)
        if base is None:
            base = h.n_pos / h.n if h.n else None
    plt = pyplot()
    if ax is None:
        _fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    import warnings

    # the overall curve black and thicker, the slices in matplotlib's colours after it
    import matplotlib

    palette = matplotlib.rcParams["axes.prop_cycle"].by_key().get("color") or ["0.3"]
    ax.set_prop_cycle(color=["k"] + [palette[i % len(palette)] for i in range(len(parts) - 1)])
    with warnings.catch_warnings():  # a slice of one class draws no curve: its legend says undefined
        warnings.simplefilter("ignore", RuntimeWarning)
        d = CurveDisplay(curves, names, kind=kind, points=points, threshold=threshold, base_rate=base)
        d.plot(ax=ax, title=title)
    d.lines_[0].set(lw=2.2, zorder=3)
    # one threshold for every curve, each marker in its curve's colour: one entry says so for all
    # (an entry a curve would double the legend, and the first curve's alone named only its own)
    marks = [m for m in ax.lines if m not in d.lines_ and "score >=" in str(m.get_label())]
    handles, labels = ax.get_legend_handles_labels()
    kept = [(h, lab) for h, lab in zip(handles, labels, strict=True) if h not in marks]
    if marks:
        from matplotlib.lines import Line2D

        proxy = Line2D([], [], ls="none", marker="o", ms=7, color="0.45", mfc="none", mew=1.8)
        said = f"{marker_label(threshold)}, on each curve in its colour"
        kept.insert(len(d.lines_), (proxy, said))
    ax.legend(
        [h for h, _ in kept],
        [lab for _, lab in kept],
        loc="lower right" if kind == "roc" else "best",
        fontsize=7.5,
    )
    return ax.figure
