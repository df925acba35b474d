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


def plot_by_group(
    kind: str,
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    max_groups: int = 12,
    ncols: int = 4,
    threshold: float = 0.5,
):
    """Small multiples: one panel a group (the largest ``max_groups`` groups), shared axes."""
    plt = _plt()
    from perfeval._validation import to_numpy

    y, s, g = to_numpy(y_true, "y_true"), to_numpy(y_score, "y_score"), to_numpy(groups, "groups")
    keys, counts = np.unique(g, return_counts=True)
    chosen = keys[np.argsort(-counts, kind="stable")[:max_groups]]
    n = len(chosen)
    nrows = max(1, -(-n // ncols))
    fig, axes = plt.subplots(
        nrows,
        min(ncols, n),
        figsize=(3.2 * min(ncols, n), 3.0 * nrows),
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    for ax, key in zip(axes.ravel(), chosen, strict=False):
        m = g == key
        if len(np.unique(y[m])) < 2 and kind in ("roc", "pr", "lift"):
            ax.set_title(literal(f"{key}: one class"))
            ax.axis("off")
            continue
        d = CurveDisplay.from_predictions(y[m], s[m], name=str(key), kind=kind, threshold=threshold)
        d.plot(ax=ax, title=f"{key} (n={int(m.sum())})")
        ax.set_aspect("auto")
        ax.legend(fontsize=6)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.suptitle(f"{TITLES.get(kind, kind)} by group")
    fig.tight_layout()
    return fig


def save(fig: Any, path: str, format: str | None = None) -> None:
    """Write a figure as PNG, SVG or PDF: ``format``, else the file's extension."""
    ext = (format or str(path).rsplit(".", 1)[-1]).lower()
    if ext not in ("png", "svg", "pdf"):
        raise InvalidParameterError(f"-o {path}: expected a .png, .svg or .pdf file name")
    fig.savefig(path, format=ext, dpi=130, bbox_inches="tight")
