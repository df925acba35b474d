"""perfeval's own curve display: :class:`CurveDisplay` draws one or more models' curves of one kind
(:mod:`perfeval.curves`), the operating point at the threshold and the chance line marked.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np

from perfeval.curves import KINDS, Curve
from perfeval.curves import summary as curve_summary
from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import literal, pyplot

C = TypeVar("C", bound="CurveDisplay")

TITLES = {
    "roc": "ROC curve",
    "pr": "Precision / recall",
    "lift": "Lift",
    "acc": "Accuracy by threshold",
    "cost": "Cost by threshold",
    "calibration": "Calibration (reliability)",
}
AREA = {"roc": "AUC", "pr": "AP"}

#: a curve of more points than twice this is drawn thinned to a grid of this many cells a side
THIN_CELLS = 4096


def thinned(x: np.ndarray, y: np.ndarray, cells: int = THIN_CELLS) -> tuple[np.ndarray, np.ndarray]:
    """The points of a curve to draw: of each run of consecutive points in one cell of a grid of
    ``cells`` by ``cells`` over the curve's range, the first (and the last point, every point that is
    not finite and its neighbours).  Every point left out is within one cell of a point drawn before
    it, 1/4096 of the axes, far below a pixel: the picture is the same, drawn from thousands of
    points instead of millions (a million-point curve took matplotlib seconds, most of it placing
    the legend).
    """
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    n = len(x)
    if n <= 2 * cells:
        return x, y
    ok = np.isfinite(x) & np.isfinite(y)
    keep = ~ok
    keep[1:] |= ~ok[:-1]
    keep[:-1] |= ~ok[1:]
    keep[0] = keep[-1] = True
    grid = []
    for v in (x, y):
        lo, hi = (float(v[ok].min()), float(v[ok].max())) if ok.any() else (0.0, 1.0)
        g = np.zeros(n, np.int64)
        if hi > lo:
            g[ok] = np.floor((v[ok] - lo) / (hi - lo) * cells).astype(np.int64)
        grid.append(g)
    keep[1:] |= (grid[0][1:] != grid[0][:-1]) | (grid[1][1:] != grid[1][:-1])
    return x[keep], y[keep]


def band_label(extra: dict) -> str:
    """The legend of a calibration curve's consistency band: its level and what it redraws."""
    from perfeval.measures.calibration import BAND_METHODS

    level = float(extra.get("band_level", 0.9))
    method = BAND_METHODS[extra.get("band_method", "outcomes")]
    return f"{level * 100:g}% consistency band ({method})"


def calibration_value(curve: Curve) -> str:
    """A reliability diagram's calibration error as its legend says it: the measure's label and its
    value (``ECE:bins=mass,n_bins=10 = 0.0312``), the very number of that measure.
    """
    v = float(curve.extra.get("value", math.nan))
    return f"{curve.extra['measure']} = {'undefined' if math.isnan(v) else f'{v:.4f}'}"


def threshold_text(threshold: float) -> str:
    """A threshold as a legend shows it: short (``0.5``, ``1``) where that is the number, else in
    full (the shortest text that reads back to the same double), never rounded to another number.
    """
    t = float(threshold)
    short = f"{t:g}"
    return short if float(short) == t else repr(t)


def marker_label(threshold: float | None, name: str | None = None) -> str:
    """The legend of an operating point's marker: ``score >= 0.5``, of one model among several
    ``name: score >= 0.5`` (the marker is in the model's colour; the name says whose it is); a point
    given without its threshold is an ``operating point``.
    """
    said = "operating point" if threshold is None else f"score >= {threshold_text(threshold)}"
    return said if name is None else f"{literal(name)}: {said}"


def under_xlabel(ax: Any):
    """The Axes' coordinates moved down past its x tick labels and its (one-line) x label, by
    matplotlib's sizes of these: a legend anchored at (0.5, 0) in them is under the label, not on it.
    """
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties
    from matplotlib.transforms import offset_copy

    rc: Any = mpl.rcParams  # read by names made here (typed by literal names)

    def size(key: str) -> float:
        return FontProperties(size=rc[key]).get_size_in_points()

    down = rc["xtick.major.size"] + rc["xtick.major.pad"] + size("xtick.labelsize")
    down += rc["axes.labelpad"] + 1.25 * size("axes.labelsize")
    return offset_copy(ax.transAxes, fig=ax.figure, y=-down, units="points")


def operating_point(kind: str, curve: Curve, h, threshold: float) -> tuple[float, float] | None:
    """The (x, y) of the curve where a case with score >= threshold is predicted positive."""
    k = int(np.searchsorted(h.scores, threshold, side="left"))
    # numpy floats: a class with no case gives NaN (no point), never Python's ZeroDivisionError
    tp, fp = np.float64(h.pos[k:].sum()), np.float64(h.neg[k:].sum())
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
        cls: type[C],
        y_true: Any,
        scores: dict[str, Any],
        *,
        kind: str | None = None,
        threshold: float = 0.5,
        sample_weight: Any = None,
        **curve_kw: Any,
    ) -> C:
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
        return cls._of_curves(curves, names, kind=kind, points=points, threshold=threshold, base_rate=base)

    @classmethod
    def _of_curves(cls: type[C], curves: list[Curve], names: list[str], **kw: Any) -> C:
        """The display of these curves (:meth:`from_models`); a display whose constructor is another's
        (scikit-learn's) makes itself otherwise.
        """
        return cls(curves, names, **kw)

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
        """Draw every curve on ``ax`` (a new figure without one).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw.
        chance : bool
            Draw the chance line (the diagonal of a ROC curve, the base rate of precision / recall,
            lift 1; a reliability diagram's perfect calibration).
        mark_threshold : bool
            Mark each curve's operating point (score >= threshold predicts positive), in its colour,
            with its legend entry: ``score >= 0.5``, of one model among several
            ``model_b: score >= 0.5``.
        title : str, optional
            The plot's title (default: the curve's).

        Returns
        -------
        CurveDisplay
            Itself, drawn (``ax_``, ``figure_``, ``lines_``).  The legend of a reliability diagram
            of several models is under the axes, clear of the points and bars.
        """
        plt = pyplot()
        if ax is None:
            _fig, ax = plt.subplots(figsize=(5.2, 4.6))
        self.lines_ = []
        for curve, name, pt in zip(self.curves, self.names, self.points, strict=False):
            label = literal(name)
            if curve.area is not None and self.kind in AREA:
                area = "undefined" if math.isnan(curve.area) else f"{curve.area:.4f}"
                label = f"{literal(name)} ({AREA[self.kind]} {area})"
            elif self.kind == "calibration" and (curve.extra or {}).get("measure"):
                label = f"{literal(name)} ({calibration_value(curve)})"
            drawstyle = "steps-post" if self.kind in ("acc", "cost") else "default"
            marker = "o" if self.kind == "calibration" else None
            (line,) = ax.plot(
                *thinned(curve.x, curve.y), label=label, drawstyle=drawstyle, marker=marker, lw=1.6
            )
            self.lines_.append(line)
            band = (curve.extra or {}).get("band") if self.kind == "calibration" else None
            if band is not None and len(band[0]) == len(curve.x):
                # Broecker & Smith's consistency bars: where a calibrated model's bin would fall;
                # each model's in its colour, so each has its entry when there are several
                said = band_label(curve.extra)
                ax.vlines(
                    curve.x,
                    band[0],
                    band[1],
                    color=line.get_color(),
                    alpha=0.3,
                    lw=6,
                    label=said if len(self.curves) == 1 else f"{literal(name)}: {said}",
                )
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
                    # each model's marker named with its model (the colour alone is no key)
                    label=marker_label(self.threshold, None if len(self.curves) == 1 else name),
                )
        if chance:
            self._chance(ax)
        c0 = self.curves[0]
        ax.set_xlabel(c0.xlabel)
        ax.set_ylabel(c0.ylabel)
        default = TITLES.get(self.kind, self.kind)
        if self.kind == "calibration" and (c0.extra or {}).get("top_label"):
            default = "Top-label calibration (reliability)"
        ax.set_title(literal(title) if title else default)
        if self.kind in ("roc", "calibration"):
            ax.set_xlim(-0.01, 1.01)
            ax.set_ylim(-0.01, 1.01)
            ax.set_aspect("equal")
        ax.grid(alpha=0.3)
        if self.kind == "calibration" and len(self.curves) > 1:
            # each model's line and bars, the diagonal: too many entries for any corner (they
            # covered points and bars), so under the axes, clear of the data
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, 0.0),
                bbox_transform=under_xlabel(ax),
                fontsize=7.5,
                frameon=False,
            )
        else:
            # a reliability diagram's empty corner is the upper left (above the diagonal and its bars)
            ax.legend(loc="upper left" if self.kind == "calibration" else "best", fontsize=8)
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


class LiftDisplay(CurveDisplay):
    kind = "lift"


class AccuracyDisplay(CurveDisplay):
    kind = "acc"


class CostDisplay(CurveDisplay):
    kind = "cost"
