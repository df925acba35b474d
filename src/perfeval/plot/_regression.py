"""The figures of a regression target (a real target and a prediction a row): each model's actual
values against its predictions with the line y = x (:func:`predicted_figure`), its residuals
(actual - predicted) against the predictions and their histogram (:func:`residuals_figure`), and
either by group, one panel a group (:func:`regression_by_group`).  The axes are scikit-learn's
``PredictionErrorDisplay``'s (``kind="actual_vs_predicted"``, ``"residual_vs_predicted"``): the
predictions on x.

Up to :data:`MAX_POINTS` cases a panel are drawn as points (a weighted case's area in proportion to
its weight); beyond that every case is binned into hexagons (the colour: the cases, or their
weight, in each), so no case is left out and none drawn twice: the figure says which it is.  A row
of weight 0 is no case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from perfeval.base.checks import to_numpy
from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import literal, pyplot

__all__ = [
    "KINDS",
    "MAX_POINTS",
    "REGRESSION_TITLES",
    "predicted_figure",
    "regression_by_group",
    "residuals_figure",
]

#: the plot kinds of a regression target (``perfeval plot KIND``)
KINDS = ("predicted", "residuals")

REGRESSION_TITLES = {
    "predicted": "Actual against predicted",
    "residuals": "Residuals against predicted",
}

#: a panel of more cases than this bins them into hexagons (every case counted) instead of points
MAX_POINTS = 5000

#: the hexagons across a panel's width, and the histogram's bins
GRID = 60
HIST_BINS = 50


def _inputs(y_true: Any, y_pred: Any, sample_weight: Any, groups: Any = None) -> tuple:
    """Targets, {model: predictions}, weights (None when unweighted) and groups as float arrays of
    one length, the rows of weight 0 left out; one line for what is wrong.
    """
    y = np.asarray(to_numpy(y_true, "y_true"), dtype=np.float64)
    models = dict(y_pred) if isinstance(y_pred, Mapping) else {"": y_pred}
    if not models:
        raise InvalidParameterError("y_pred: no model to draw")
    preds = {}
    for name, p in models.items():
        a = np.asarray(to_numpy(p, "y_pred"), dtype=np.float64)
        if a.shape != y.shape:
            raise InvalidParameterError(f"y_pred {name!r} holds {len(a):,} values for {len(y):,} targets")
        preds[name] = a
    w = None if sample_weight is None else np.asarray(to_numpy(sample_weight, "sample_weight"), np.float64)
    g = None if groups is None else to_numpy(groups, "groups")
    for what, col in (("sample_weight", w), ("groups", g)):
        if col is not None and len(col) != len(y):
            raise InvalidParameterError(f"{what} holds {len(col):,} values for {len(y):,} targets")
    for what, arr in [("y_true", y), *((f"y_pred {n!r}", p) for n, p in preds.items()), ("sample_weight", w)]:
        if arr is not None and not np.isfinite(arr).all():
            i = int(np.argmax(~np.isfinite(arr)))
            raise InvalidParameterError(
                f"{what} holds {float(arr[i])!r} at index {i}: a regression needs finite numbers"
            )
    if w is not None and (w < 0).any():
        raise InvalidParameterError(
            f"sample_weight holds {float(w[np.argmax(w < 0)])!r}: weights must be >= 0"
        )
    if w is not None:
        keep = w != 0
        y, w = y[keep], w[keep]
        preds = {n: p[keep] for n, p in preds.items()}
        g = None if g is None else g[keep]
        if len(w) and bool(np.all(w == w[0])) and w[0] == 1:
            w = None
    return y, preds, w, g


def _cloud(ax: Any, x: np.ndarray, v: np.ndarray, w: np.ndarray | None, max_points: int, color: str) -> str:
    """The cases as points (at most ``max_points``) or, beyond, every case binned in hexagons; the
    words that say which (:data:`SAID`).
    """
    n = len(x)
    if n == 0:  # every row of weight 0: nothing to draw, said
        return "none"
    if n <= max_points:
        size = 9.0 if w is None else (9 * w / w.mean() if w.mean() > 0 else np.full(n, 9.0))
        ax.scatter(x, v, s=size, alpha=0.45, color=color, edgecolors="none", rasterized=n > 2000)
        return "points" if w is None else "weighted points"
    hb = ax.hexbin(
        x,
        v,
        C=w,
        reduce_C_function=np.sum,
        gridsize=GRID,
        bins="log",
        mincnt=1 if w is None else None,
        cmap="viridis",
        linewidths=0.0,
    )
    ax.figure.colorbar(hb, ax=ax, label="cases" if w is None else "weight", pad=0.01)
    return "hexagons"


#: what a panel's cloud is, in a title (short) and in words (a caption; ``{n}`` the cases, ``{max}``
#: the most drawn as points)
SAID = {
    "none": ("no case", "no case to draw (every row has weight 0)"),
    "points": ("{n:,} cases", "{n:,} cases, a point each"),
    "weighted points": ("{n:,} cases", "{n:,} cases, a point each, its area in proportion to its weight"),
    "hexagons": (
        "{n:,} cases in hexagons",
        "{n:,} cases binned into hexagons, the colour the cases (or weight) in each: more than {max:,} "
        "cases, so every case is counted rather than drawn as a point (none left out, no sample)",
    ),
}


def said(how: str, n: int, max_points: int, long: bool = True) -> str:
    """The words of :data:`SAID` for a cloud of ``n`` cases."""
    return SAID[how][1 if long else 0].format(n=n, max=max_points)


def _identity(ax: Any, lo: float, hi: float) -> None:
    """The line y = x over [lo, hi]: a perfect prediction."""
    ax.plot([lo, hi], [lo, hi], color="k", linestyle="--", linewidth=1.0, label="y = x (perfect)")


def _range(*arrays: np.ndarray) -> tuple[float, float]:
    vals = [a for a in arrays if len(a)]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(float(a.min()) for a in vals), max(float(a.max()) for a in vals)
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.03
    return lo - pad, hi + pad


def _predicted_panel(
    ax: Any, y: np.ndarray, p: np.ndarray, w: Any, max_points: int, color: str, bounds: Any = None
) -> str:
    how = _cloud(ax, p, y, w, max_points, color)
    lo, hi = _range(y, p) if bounds is None else bounds
    _identity(ax, lo, hi)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    return how


def _residual_panel(
    ax: Any, y: np.ndarray, p: np.ndarray, w: Any, max_points: int, color: str, bounds: Any = None
) -> str:
    how = _cloud(ax, p, y - p, w, max_points, color)
    ax.axhline(0.0, color="k", linestyle="--", linewidth=1.0)
    return how


def _histogram(ax: Any, r: np.ndarray, w: Any, color: str) -> None:
    ax.hist(r, bins=HIST_BINS, weights=w, color=color, alpha=0.75)
    ax.axvline(0.0, color="k", linestyle="--", linewidth=1.0)


def _titled(name: str, text: str) -> str:
    return f"{literal(name)}: {text}" if name else text


def predicted_figure(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, max_points: int = MAX_POINTS, panel: float = 4.6
):
    """Each model's actual values (y) against its predictions (x), the line y = x dashed: one panel
    a model, side by side.

    Parameters
    ----------
    y_true : array-like
        The targets (real values).
    y_pred : array-like or dict of str to array-like
        One model's predictions, or several models' by name (a panel each).
    sample_weight : array-like, optional
        The weight of each case: a point's area (a hexagon's colour: the weight in it); a row of
        weight 0 is no case.
    max_points : int
        Beyond this many cases a panel bins every case into hexagons rather than drawing points.
    panel : float
        A panel's width in inches.

    Returns
    -------
    matplotlib.figure.Figure
        Its ``perfeval_said`` attribute: each model's words for what was drawn (the cases as points,
        or binned), as the figure's titles say them.
    """
    plt = pyplot()
    y, preds, w, _ = _inputs(y_true, y_pred, sample_weight)
    k = len(preds)
    fig, axes = plt.subplots(1, k, figsize=(panel * k, panel * 0.95), squeeze=False, layout="constrained")
    told: dict[str, str] = {}
    for i, (ax, (name, p)) in enumerate(zip(axes[0], preds.items(), strict=True)):
        how = _predicted_panel(ax, y, p, w, max_points, f"C{i}")
        told[name] = said(how, len(y), max_points)
        ax.set_title(_titled(name, said(how, len(y), max_points, long=False)), fontsize=8.5)
        ax.set_xlabel("Predicted values")
        ax.set_ylabel("Actual values")
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle(REGRESSION_TITLES["predicted"], fontsize=10)
    fig.perfeval_said = told
    return fig


def residuals_figure(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, max_points: int = MAX_POINTS, panel: float = 4.6
):
    """Each model's residuals (actual - predicted) against its predictions, the line 0 dashed, and
    their histogram (weighted): a row a model.  Parameters as :func:`predicted_figure`'s.
    """
    plt = pyplot()
    y, preds, w, _ = _inputs(y_true, y_pred, sample_weight)
    k = len(preds)
    fig, axes = plt.subplots(k, 2, figsize=(panel * 2, panel * 0.8 * k), squeeze=False, layout="constrained")
    told: dict[str, str] = {}
    for i, (row, (name, p)) in enumerate(zip(axes, preds.items(), strict=True)):
        how = _residual_panel(row[0], y, p, w, max_points, f"C{i}")
        told[name] = said(how, len(y), max_points)
        row[0].set_title(_titled(name, said(how, len(y), max_points, long=False)), fontsize=8.5)
        row[0].set_xlabel("Predicted values")
        row[0].set_ylabel("Residuals (actual - predicted)")
        _histogram(row[1], y - p, w, f"C{i}")
        row[1].set_title(_titled(name, f"the residuals of {len(y):,} cases"), fontsize=8.5)
        row[1].set_xlabel("Residuals (actual - predicted)")
        row[1].set_ylabel("cases" if w is None else "weight")
    fig.suptitle(REGRESSION_TITLES["residuals"], fontsize=10)
    fig.perfeval_said = told
    return fig


def regression_by_group(
    kind: str,
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    sample_weight: Any = None,
    max_groups: int = 12,
    ncols: int = 6,
    width: float = 10.0,
    max_points: int = MAX_POINTS,
):
    """Small multiples of a regression target: one panel a group (the ``max_groups`` largest, most
    cases first, ties by key) and model (a block of rows a model), actual against predicted
    (``kind="predicted"``, the line y = x) or the residuals against the predictions
    (``"residuals"``, the line 0).  The figure's title says when groups are left out.
    """
    if kind not in KINDS:
        raise InvalidParameterError(f"kind={kind!r}: the regression plots are {', '.join(KINDS)}")
    if isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or ncols < 1:
        raise InvalidParameterError(f"ncols={ncols!r}: expected a whole number >= 1")
    plt = pyplot()
    y, preds, w, g = _inputs(y_true, y_pred, sample_weight, groups)
    if g is None:
        raise InvalidParameterError("groups: the group of each case is needed")
    keys, counts = np.unique(g, return_counts=True)
    chosen = keys[np.argsort(-counts, kind="stable")[:max_groups]]
    n = len(chosen)
    cols = max(1, min(ncols, n))
    per_model = max(1, -(-n // cols))
    side = width / ncols
    fig, axes = plt.subplots(
        per_model * len(preds),
        cols,
        figsize=(side * cols, side * 1.05 * per_model * len(preds) + 0.8),
        squeeze=False,
        sharex=True,
        sharey=True,
        layout="constrained",
    )
    flat = axes.ravel()
    bounds = _range(y, *preds.values())  # one scale for every panel: the groups compare
    for b, (name, p) in enumerate(preds.items()):
        block = flat[b * per_model * cols : (b + 1) * per_model * cols]
        for ax, key in zip(block, chosen, strict=False):
            m = g == key
            yy, pp, ww = y[m], p[m], None if w is None else w[m]
            draw = _predicted_panel if kind == "predicted" else _residual_panel
            how = draw(ax, yy, pp, ww, max_points, f"C{b}", bounds)
            who = f"{literal(name)} \u00b7 " if len(preds) > 1 else ""
            where = "" if how != "hexagons" else ", in hexagons"
            ax.set_title(f"{who}{literal(_plain(key))}\nn={int(m.sum()):,}{where}", fontsize=8)
            ax.tick_params(labelsize=7.5)
        for ax in block[n:]:
            ax.axis("off")
    for i, ax in enumerate(flat):  # the tick labels of a panel with no drawn panel under it
        if ax.axison and (i + cols >= len(flat) or not flat[i + cols].axison):
            ax.xaxis.set_tick_params(labelbottom=True)
    fig.supxlabel("Predicted values", fontsize=9)
    fig.supylabel("Actual values" if kind == "predicted" else "Residuals (actual - predicted)", fontsize=9)
    title = f"{REGRESSION_TITLES[kind]} by group"
    if len(keys) > n:
        title += f" (the {n} largest of {len(keys):,} groups)"
    fig.suptitle(title, fontsize=10)
    return fig


def _plain(key: Any) -> Any:
    return key.item() if isinstance(key, np.generic) else key
