"""Plots of the curves in :mod:`perfeval.curves`, in scikit-learn's Display style.

>>> d = RocCurveDisplay.from_predictions(y, score, name="model A")   # doctest: +SKIP
>>> d.plot(ax=ax)                                                      # doctest: +SKIP

``CurveDisplay.from_models`` puts several models on one figure (the legend gives each one's area),
``plot_by_group`` draws small multiples, one panel a group.  Every display marks the operating
point at its threshold and the chance line.  matplotlib is an optional dependency
(``pip install 'perfeval[plot]'``), imported when a plot is drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.curves import KINDS, Curve
from perfeval.curves import summary as curve_summary
from perfeval.exceptions import InvalidParameterError, MissingDependencyError


def literal(text: Any) -> str:
    r"""A user's string shown as written: a ``$`` would start matplotlib's mathtext (``$x$``,
    ``a_b^c`` inside dollars, ``\alpha``), so each is escaped.
    """
    return str(text).replace("$", r"\$")


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'perfeval[plot]'") from None
    return plt


TITLES = {
    "roc": "ROC curve",
    "pr": "Precision / recall",
    "lift": "Lift",
    "acc": "Accuracy by threshold",
    "cost": "Cost by threshold",
    "calibration": "Calibration (reliability)",
}
AREA = {"roc": "AUC", "pr": "AP"}


def operating_point(kind: str, curve: Curve, h, threshold: float) -> tuple[float, float] | None:
    """The (x, y) of the curve where a case with score >= threshold is predicted positive."""
    k = int(np.searchsorted(h.scores, threshold, side="left"))
    tp, fp = float(h.pos[k:].sum()), float(h.neg[k:].sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "roc":
            return fp / h.n_neg, tp / h.n_pos
        if kind == "pr":
            return tp / h.n_pos, tp / (tp + fp) if tp + fp else np.nan
        if kind == "lift":
            return (tp + fp) / h.n, (tp / (tp + fp)) / (h.n_pos / h.n) if tp + fp else np.nan
        if kind == "acc":
            return threshold, (tp + h.n_neg - fp) / h.n
        if kind == "cost":
            assert curve.thresholds is not None  # the cost curve has a threshold per point
            i = int(np.argmin(np.abs(curve.thresholds - threshold))) if len(curve.x) else 0
            return threshold, float(curve.y[i]) if len(curve.y) else np.nan
    return None


class CurveDisplay:
    """One or more curves of one kind, ready to draw.

    Attributes (after :meth:`plot`): ``ax_``, ``figure_``, ``lines_`` (one a curve, in order).
    """

    kind = ""

    def __init__(
        self,
        curves: list[Curve],
        names: list[str],
        *,
        kind: str | None = None,
        points: list[tuple[float, float] | None] | None = None,
        threshold: float | None = None,
        base_rate: float | None = None,
    ):
        self.kind = kind or self.kind or curves[0].kind
        self.curves, self.names = curves, names
        self.points = points or [None] * len(curves)
        self.threshold, self.base_rate = threshold, base_rate

    @classmethod
    def from_models(
        cls,
        y_true: Any,
        scores: dict[str, Any],
        *,
        kind: str | None = None,
        threshold: float = 0.5,
        sample_weight: Any = None,
        **curve_kw: Any,
    ) -> CurveDisplay:
        """Several models' scores for the same cases, one curve each."""
        kind = kind or cls.kind
        if kind not in KINDS:
            raise InvalidParameterError(f"unknown curve {kind!r}; expected one of {', '.join(KINDS)}")
        curves, names, points, base = [], [], [], None
        for name, s in scores.items():
            h = curve_summary(y_true, s, sample_weight)
            curve = KINDS[kind](h, **curve_kw)
            curves.append(curve)
            names.append(name)
            points.append(operating_point(kind, curve, h, threshold) if kind != "calibration" else None)
            base = h.n_pos / h.n if h.n else None
        return cls(curves, names, kind=kind, points=points, threshold=threshold, base_rate=base)

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any,
        *,
        name: str = "model",
        kind: str | None = None,
        threshold: float = 0.5,
        sample_weight: Any = None,
        **curve_kw: Any,
    ) -> CurveDisplay:
        return cls.from_models(
            y_true, {name: y_score}, kind=kind, threshold=threshold, sample_weight=sample_weight, **curve_kw
        )

    def plot(
        self, ax: Any = None, *, chance: bool = True, mark_threshold: bool = True, title: str | None = None
    ):
        plt = _plt()
        if ax is None:
            _fig, ax = plt.subplots(figsize=(5.2, 4.6))
        self.lines_ = []
        for curve, name, pt in zip(self.curves, self.names, self.points, strict=False):
            label = literal(name)
            if curve.area is not None and self.kind in AREA:
                label = f"{literal(name)} ({AREA[self.kind]} {curve.area:.4f})"
            drawstyle = "steps-post" if self.kind in ("acc", "cost") else "default"
            marker = "o" if self.kind == "calibration" else None
            (line,) = ax.plot(curve.x, curve.y, label=label, drawstyle=drawstyle, marker=marker, lw=1.6)
            self.lines_.append(line)
            if mark_threshold and pt is not None and np.all(np.isfinite(pt)):
                ax.plot(
                    [pt[0]],
                    [pt[1]],
                    ls="none",
                    marker="o",
                    ms=7,
                    color=line.get_color(),
                    mfc="none",
                    mew=1.8,
                    label=f"score >= {self.threshold:g}" if name == self.names[0] else None,
                )
        if chance:
            self._chance(ax)
        c0 = self.curves[0]
        ax.set_xlabel(c0.xlabel)
        ax.set_ylabel(c0.ylabel)
        ax.set_title(literal(title) if title else TITLES.get(self.kind, self.kind))
        if self.kind in ("roc", "calibration"):
            ax.set_xlim(-0.01, 1.01)
            ax.set_ylim(-0.01, 1.01)
            ax.set_aspect("equal")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    def _chance(self, ax: Any) -> None:
        style = dict(color="0.5", ls="--", lw=1)
        if self.kind in ("roc", "calibration"):
            ax.plot([0, 1], [0, 1], label="chance" if self.kind == "roc" else "perfect calibration", **style)
        elif self.kind == "pr" and self.base_rate is not None:
            ax.axhline(self.base_rate, label=f"chance (base rate {self.base_rate:.3f})", **style)
        elif self.kind == "lift":
            ax.axhline(1.0, label="chance (lift 1)", **style)


class RocCurveDisplay(CurveDisplay):
    kind = "roc"


class PrecisionRecallDisplay(CurveDisplay):
    kind = "pr"


class LiftDisplay(CurveDisplay):
    kind = "lift"


class AccuracyDisplay(CurveDisplay):
    kind = "acc"


class CostDisplay(CurveDisplay):
    kind = "cost"


class CalibrationDisplay(CurveDisplay):
    kind = "calibration"


def _panel(ax: Any, kind: str, y: Any, scores: dict[str, Any], w: Any, threshold: float) -> CurveDisplay:
    """One group's curves on a small panel: no axis labels (the figure has them once), small ticks
    and markers, a legend of the areas only (the models are named once for the figure).
    """
    d = CurveDisplay.from_models(y, scores, kind=kind, threshold=threshold, sample_weight=w).plot(ax=ax)
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


def plot_by_group(
    kind: str,
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    max_groups: int = 12,
    ncols: int = 6,
    threshold: float = 0.5,
    width: float = 10.0,
    sample_weight: Any = None,
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

    Returns
    -------
    matplotlib.figure.Figure
        Each drawn panel's legend gives its group's area (AUC, AP) per model, the value of that
        group in ``evaluate(..., groups=...).results[...].per_group``.
    """
    plt = _plt()
    from collections.abc import Mapping

    from perfeval._validation import to_numpy

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
            ax, kind, y[m], {name: s[m] for name, s in scores.items()}, None if w is None else w[m], threshold
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


def save(fig: Any, path: str) -> None:
    """Write a figure as PNG or SVG, by the file's extension."""
    ext = str(path).lower().rsplit(".", 1)[-1]
    if ext not in ("png", "svg"):
        raise InvalidParameterError(f"-o {path}: expected a .png or .svg file name")
    fig.savefig(path, format=ext, dpi=130, bbox_inches="tight")
