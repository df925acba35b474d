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
            (line,) = ax.plot(
                *thinned(curve.x, curve.y), label=label, drawstyle=drawstyle, marker=marker, lw=1.6
            )
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


def _response(estimator: Any, X: Any, response_method: Any, pos_label: Any) -> tuple[np.ndarray, Any]:
    """scikit-learn's binary response of a fitted classifier: the ``pos_label`` column of
    ``predict_proba``, or ``decision_function`` (negated when ``pos_label`` is the first class);
    ``"auto"`` tries ``predict_proba`` first.  ``pos_label`` defaults to ``classes_[-1]``.
    """
    methods = ("predict_proba", "decision_function") if response_method == "auto" else response_method
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    allowed = {"predict_proba", "decision_function"}
    if not methods or any(m not in allowed for m in methods):
        raise InvalidParameterError(
            f"response_method={response_method!r}: expected 'auto', 'predict_proba' or 'decision_function'"
        )
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise InvalidParameterError(
            f"{type(estimator).__name__} has no classes_: from_estimator needs a fitted classifier"
        )
    classes = np.asarray(classes)
    if len(classes) != 2:
        raise InvalidParameterError(
            f"Expected 'estimator' to be a binary classifier, but {type(estimator).__name__} has "
            f"{len(classes)} classes ({', '.join(map(repr, classes.tolist()[:5]))})"
        )
    if pos_label is None:
        pos_label = classes[-1].item() if hasattr(classes[-1], "item") else classes[-1]
    elif pos_label not in classes.tolist():
        raise InvalidParameterError(
            f"pos_label={pos_label!r} is not a valid label: it should be one of {classes.tolist()}"
        )
    method = next((m for m in methods if hasattr(estimator, m)), None)
    if method is None:
        raise InvalidParameterError(
            f"{type(estimator).__name__} has none of the response methods {', '.join(methods)}"
        )
    out = np.asarray(getattr(estimator, method)(X))
    if method == "predict_proba":
        return out[:, classes.tolist().index(pos_label)], pos_label
    if out.ndim == 2 and out.shape[1] == 1:
        out = out.reshape(-1)
    return (-out if pos_label == classes[0] else out), pos_label


def _binary_label(cls_name: str, y_true: Any, pos_label: Any) -> Any:
    """scikit-learn's check of a display's targets: binary, and ``pos_label`` named unless 0/1, -1/1."""
    from perfeval._validation import to_numpy

    y = to_numpy(y_true, "y_true")
    try:
        labels = np.unique(y)
    except TypeError:
        raise InvalidParameterError(f"{cls_name}: y_true mixes label types") from None
    if len(labels) > 2:
        raise InvalidParameterError(
            f"{cls_name}: The target y is not binary: it holds {len(labels)} classes; name the "
            "positive class by mapping the labels to two"
        )
    if pos_label is not None:
        return pos_label
    if labels.dtype.kind not in "OUS" and labels.tolist() in ([0, 1], [-1, 1], [0], [-1], [1]):
        return 1
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in labels)
    raise InvalidParameterError(
        f"{cls_name}: y_true takes value in {{{shown}}} and pos_label is not specified: either make "
        "y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly"
    )


def _area(x: np.ndarray, y: np.ndarray) -> float:
    """The trapezoidal area under (x, y), as scikit-learn's ``auc`` (x increasing)."""
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


_KW_ALIASES = {"ls": "linestyle", "c": "color", "lw": "linewidth", "ds": "drawstyle", "ms": "markersize"}


def _style(defaults: dict[str, Any], user: dict[str, Any] | None) -> dict[str, Any]:
    out = dict(defaults)
    for key, value in (user or {}).items():
        out[_KW_ALIASES.get(key, key)] = value
    return out


class _SklearnDisplay(CurveDisplay):
    """One curve drawn as scikit-learn draws it (``from_predictions``, ``from_estimator``, ``plot``),
    beside perfeval's multi-model form (``from_models``) of the same class.
    """

    _metric = ""
    _x_label = ""
    _y_label = ""
    _legend_loc = "lower right"
    _draw: dict[str, Any] = {}
    name: str | None = None
    pos_label: Any = None

    def __init__(self, curves: list[Curve] | None = None, names: list[str] | None = None, **kw: Any):
        self._sklearn = curves is None
        if curves is not None:
            super().__init__(curves, names or [], **kw)

    @property
    def estimator_name(self) -> str | None:
        """The curve's name (scikit-learn's former attribute; ``name`` is the current one)."""
        return self.name

    def _xy(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _metric_value(self) -> float | None:
        raise NotImplementedError

    def plot(
        self,
        ax: Any = None,
        *,
        name: str | None = None,
        curve_kwargs: dict[str, Any] | None = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict[str, Any] | None = None,
        despine: bool = False,
        chance: bool = True,
        mark_threshold: bool = True,
        title: str | None = None,
        **kwargs: Any,
    ):
        """Draw the curve as scikit-learn does (a display made by ``from_predictions`` or
        ``from_estimator``), or every model's curve as perfeval does (one made by ``from_models``:
        then ``chance``, ``mark_threshold`` and ``title`` apply).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure otherwise.
        name : str, optional
            The legend's name of the curve (default: the display's ``name``).
        curve_kwargs, **kwargs : dict
            matplotlib line properties (``color``, ``lw``, ...).
        plot_chance_level : bool, default False
            Draw the chance line (ROC: the diagonal; PR: the prevalence of the positive class).
        chance_level_kw : dict, optional
            Its line properties.
        despine : bool, default False
            Hide the top and right spines.
        """
        if not self._sklearn:
            return super().plot(ax, chance=chance, mark_threshold=mark_threshold, title=title)
        plt = _plt()
        if ax is None:
            _fig, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        name = self.name if name is None else name
        metric = self._metric_value()
        if metric is not None and name is not None:
            label: str | None = f"{literal(name)} ({self._metric} = {metric:0.2f})"
        elif metric is not None:
            label = f"{self._metric} = {metric:0.2f}"
        else:
            label = None if name is None else literal(name)
        style = _style({"label": label, **self._draw}, {**(curve_kwargs or {}), **kwargs})
        x, y = self._xy()
        (self.line_,) = ax.plot(x, y, **style)
        info = f" (Positive label: {literal(self.pos_label)})" if self.pos_label is not None else ""
        ax.set(
            xlabel=self._x_label + info,
            xlim=(-0.01, 1.01),
            ylabel=self._y_label + info,
            ylim=(-0.01, 1.01),
            aspect="equal",
        )
        self.chance_level_ = self._chance_level(ax, chance_level_kw) if plot_chance_level else None
        if despine:
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
            for side in ("bottom", "left"):
                ax.spines[side].set_bounds(0, 1)
        chance_label = plot_chance_level and self.chance_level_ is not None and self.chance_level_.get_label()
        if style.get("label") is not None or (chance_label and not chance_label.startswith("_")):
            ax.legend(loc=self._legend_loc)
        return self

    def _chance_level(self, ax: Any, kw: dict[str, Any] | None) -> Any:
        raise NotImplementedError


class RocCurveDisplay(_SklearnDisplay):
    """The ROC curve, drawn as scikit-learn's ``RocCurveDisplay`` draws it, from perfeval's exact
    curve (a tie is one diagonal step).

    Made by :meth:`from_predictions` or :meth:`from_estimator` (or, for several models on one figure,
    perfeval's :meth:`CurveDisplay.from_models`).  Attributes as scikit-learn's: ``fpr``, ``tpr``,
    ``roc_auc``, ``name`` (``estimator_name``), ``pos_label``, and after :meth:`plot` ``line_``,
    ``ax_``, ``figure_``, ``chance_level_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = RocCurveDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], name="model")
    >>> d.line_.get_label(), d.ax_.get_xlabel()
    ('model (AUC = 0.75)', 'False Positive Rate (Positive label: 1)')
    """

    kind = "roc"
    _metric = "AUC"
    _x_label = "False Positive Rate"
    _y_label = "True Positive Rate"
    _legend_loc = "lower right"

    def __init__(
        self,
        curves: list[Curve] | None = None,
        names: list[str] | None = None,
        *,
        fpr: Any = None,
        tpr: Any = None,
        roc_auc: float | None = None,
        name: str | None = None,
        pos_label: Any = None,
        **kw: Any,
    ):
        super().__init__(curves, names, **kw)
        self.fpr, self.tpr, self.roc_auc = fpr, tpr, roc_auc
        self.name, self.pos_label = name, pos_label
        if self._sklearn and (fpr is None or tpr is None):
            raise InvalidParameterError("RocCurveDisplay needs fpr and tpr (or use from_predictions)")

    def _xy(self) -> tuple[np.ndarray, np.ndarray]:
        return self.fpr, self.tpr

    def _metric_value(self) -> float | None:
        return self.roc_auc

    def _chance_level(self, ax: Any, kw: dict[str, Any] | None) -> Any:
        style = _style({"label": "Chance level (AUC = 0.5)", "color": "k", "linestyle": "--"}, kw)
        return ax.plot((0, 1), (0, 1), **style)[0]

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any = None,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = True,
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        curve_kwargs: dict[str, Any] | None = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict[str, Any] | None = None,
        despine: bool = False,
        threshold: float | None = None,
        **kwargs: Any,
    ) -> RocCurveDisplay:
        """The ROC curve of scores, drawn as scikit-learn's ``RocCurveDisplay.from_predictions``.

        ``name`` defaults to ``"Classifier"``; the legend reads ``name (AUC = 0.xx)``.  With
        perfeval's ``threshold=`` the display is instead perfeval's (the operating point marked, not
        yet drawn: call :meth:`plot`), as in earlier releases.
        """
        if threshold is not None:
            legacy = CurveDisplay.from_models(
                y_true,
                {name or "model": y_score},
                kind="roc",
                threshold=threshold,
                sample_weight=sample_weight,
            )
            return cls(legacy.curves, legacy.names, kind="roc", points=legacy.points, threshold=threshold)
        from perfeval.functional import roc_curve

        pos = _binary_label(f"{cls.__name__}.from_predictions", y_true, pos_label)
        fpr, tpr, _ = roc_curve(
            y_true, y_score, pos_label=pos, sample_weight=sample_weight, drop_intermediate=drop_intermediate
        )
        d = cls(
            fpr=fpr,
            tpr=tpr,
            roc_auc=_area(fpr, tpr),
            name="Classifier" if name is None else name,
            pos_label=pos,
        )
        return d.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
            **kwargs,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = True,
        response_method: Any = "auto",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        curve_kwargs: dict[str, Any] | None = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict[str, Any] | None = None,
        despine: bool = False,
        **kwargs: Any,
    ) -> RocCurveDisplay:
        """The ROC curve of a fitted binary classifier on (X, y), as scikit-learn's
        ``RocCurveDisplay.from_estimator``: ``predict_proba``'s ``pos_label`` column (default the
        last class) or ``decision_function``; the estimator's class name is the default ``name``.
        """
        _plt()
        score, pos = _response(estimator, X, response_method, pos_label)
        return cls.from_predictions(
            y,
            score,
            sample_weight=sample_weight,
            drop_intermediate=drop_intermediate,
            pos_label=pos,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
            **kwargs,
        )


class PrecisionRecallDisplay(_SklearnDisplay):
    """The precision / recall curve, drawn as scikit-learn's ``PrecisionRecallDisplay`` draws it (a
    step function, ``steps-post``), with the average precision in the legend (``AP = 0.xx``).

    Attributes as scikit-learn's: ``precision``, ``recall``, ``average_precision``, ``name``
    (``estimator_name``), ``pos_label``, ``prevalence_pos_label``, and after :meth:`plot`
    ``line_``, ``ax_``, ``figure_``, ``chance_level_``.
    """

    kind = "pr"
    _metric = "AP"
    _x_label = "Recall"
    _y_label = "Precision"
    _legend_loc = "lower left"
    _draw = {"drawstyle": "steps-post"}

    def __init__(
        self,
        precision: Any = None,
        recall: Any = None,
        *,
        average_precision: float | None = None,
        name: str | None = None,
        pos_label: Any = None,
        prevalence_pos_label: float | None = None,
        curves: list[Curve] | None = None,
        names: list[str] | None = None,
        **kw: Any,
    ):
        if isinstance(precision, list) and precision and isinstance(precision[0], Curve):
            curves, names, precision, recall = precision, recall, None, None  # from_models' positional form
        super().__init__(curves, names, **kw)
        self.precision, self.recall = precision, recall
        self.average_precision, self.name, self.pos_label = average_precision, name, pos_label
        self.prevalence_pos_label = prevalence_pos_label
        if self._sklearn and (precision is None or recall is None):
            raise InvalidParameterError(
                "PrecisionRecallDisplay needs precision and recall (or use from_predictions)"
            )

    def _xy(self) -> tuple[np.ndarray, np.ndarray]:
        return self.recall, self.precision

    def _metric_value(self) -> float | None:
        return self.average_precision

    def _chance_level(self, ax: Any, kw: dict[str, Any] | None) -> Any:
        if self.prevalence_pos_label is None:
            raise InvalidParameterError(
                "You must provide prevalence_pos_label when constructing the PrecisionRecallDisplay "
                "object in order to plot the chance level line (from_predictions and from_estimator set it)"
            )
        p = self.prevalence_pos_label
        style = _style({"label": f"Chance level (AP = {p:0.2f})", "color": "k", "linestyle": "--"}, kw)
        return ax.plot((0, 1), (p, p), **style)[0]

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any = None,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = False,
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        curve_kwargs: dict[str, Any] | None = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict[str, Any] | None = None,
        despine: bool = False,
        threshold: float | None = None,
        **kwargs: Any,
    ) -> PrecisionRecallDisplay:
        """The precision / recall curve of scores, drawn as scikit-learn's
        ``PrecisionRecallDisplay.from_predictions`` (``threshold=``: perfeval's display, as
        :meth:`RocCurveDisplay.from_predictions`).
        """
        if threshold is not None:
            legacy = CurveDisplay.from_models(
                y_true,
                {name or "model": y_score},
                kind="pr",
                threshold=threshold,
                sample_weight=sample_weight,
            )
            return cls(
                curves=legacy.curves,
                names=legacy.names,
                kind="pr",
                points=legacy.points,
                threshold=threshold,
                base_rate=legacy.base_rate,
            )
        from perfeval._validation import to_numpy
        from perfeval.functional import average_precision_score, precision_recall_curve

        pos = _binary_label(f"{cls.__name__}.from_predictions", y_true, pos_label)
        precision, recall, _ = precision_recall_curve(
            y_true, y_score, pos_label=pos, sample_weight=sample_weight, drop_intermediate=drop_intermediate
        )
        ap = average_precision_score(y_true, y_score, pos_label=pos, sample_weight=sample_weight)
        y = to_numpy(y_true, "y_true")
        d = cls(
            precision=precision,
            recall=recall,
            average_precision=ap,
            name="Classifier" if name is None else name,
            pos_label=pos,
            prevalence_pos_label=float(np.sum(y == pos) / len(y)),
        )
        return d.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
            **kwargs,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = False,
        response_method: Any = "auto",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        curve_kwargs: dict[str, Any] | None = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict[str, Any] | None = None,
        despine: bool = False,
        **kwargs: Any,
    ) -> PrecisionRecallDisplay:
        """The precision / recall curve of a fitted binary classifier on (X, y), as scikit-learn's
        ``PrecisionRecallDisplay.from_estimator``.
        """
        _plt()
        score, pos = _response(estimator, X, response_method, pos_label)
        return cls.from_predictions(
            y,
            score,
            sample_weight=sample_weight,
            drop_intermediate=drop_intermediate,
            pos_label=pos,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
            **kwargs,
        )


def _probit(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile of each probability (the DET curve's axes), by the standard
    library's ``NormalDist.inv_cdf`` (Wichura's AS241, full double precision): no scipy needed.
    """
    from statistics import NormalDist

    inv = NormalDist().inv_cdf
    return np.array([inv(float(v)) for v in np.asarray(p, dtype=np.float64).ravel()]).reshape(np.shape(p))


class DetCurveDisplay:
    """The detection error tradeoff curve (false positive rate against false negative rate, both on
    normal-deviate axes), drawn as scikit-learn's ``DetCurveDisplay`` draws it, from perfeval's
    exact :func:`perfeval.functional.det_curve`.

    Attributes: ``fpr``, ``fnr``, ``estimator_name`` (``name``), ``pos_label``, and after
    :meth:`plot` ``line_``, ``ax_``, ``figure_``.
    """

    def __init__(self, *, fpr: Any, fnr: Any, estimator_name: str | None = None, pos_label: Any = None):
        self.fpr, self.fnr = np.asarray(fpr, dtype=np.float64), np.asarray(fnr, dtype=np.float64)
        self.estimator_name, self.pos_label = estimator_name, pos_label

    @property
    def name(self) -> str | None:
        return self.estimator_name

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any = None,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = True,
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        **kwargs: Any,
    ) -> DetCurveDisplay:
        """The DET curve of scores, as scikit-learn's ``DetCurveDisplay.from_predictions``."""
        from perfeval.functional import det_curve

        pos = _binary_label(f"{cls.__name__}.from_predictions", y_true, pos_label)
        fpr, fnr, _ = det_curve(
            y_true, y_score, pos_label=pos, sample_weight=sample_weight, drop_intermediate=drop_intermediate
        )
        name = "Classifier" if name is None else name
        return cls(fpr=fpr, fnr=fnr, estimator_name=name, pos_label=pos).plot(ax=ax, name=name, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = True,
        response_method: Any = "auto",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        **kwargs: Any,
    ) -> DetCurveDisplay:
        """The DET curve of a fitted binary classifier on (X, y), as scikit-learn's
        ``DetCurveDisplay.from_estimator``.
        """
        _plt()
        score, pos = _response(estimator, X, response_method, pos_label)
        return cls.from_predictions(
            y,
            score,
            sample_weight=sample_weight,
            drop_intermediate=drop_intermediate,
            pos_label=pos,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            **kwargs,
        )

    def plot(self, ax: Any = None, *, name: str | None = None, **kwargs: Any) -> DetCurveDisplay:
        """Draw on normal-deviate axes (rates clipped to [eps, 1 - eps]), ticks 0.1% ... 99.9%."""
        plt = _plt()
        if ax is None:
            _fig, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        name = self.estimator_name if name is None else name
        line_kwargs: dict[str, Any] = {} if name is None else {"label": literal(name)}
        line_kwargs.update(**kwargs)
        eps = np.finfo(np.float64).eps
        self.fpr, self.fnr = self.fpr.clip(eps, 1 - eps), self.fnr.clip(eps, 1 - eps)
        (self.line_,) = ax.plot(_probit(self.fpr), _probit(self.fnr), **line_kwargs)
        info = f" (Positive label: {literal(self.pos_label)})" if self.pos_label is not None else ""
        ax.set(xlabel="False Positive Rate" + info, ylabel="False Negative Rate" + info)
        if "label" in line_kwargs:
            ax.legend(loc="lower right")
        ticks = [0.001, 0.01, 0.05, 0.20, 0.5, 0.80, 0.95, 0.99, 0.999]
        where = _probit(np.array(ticks))
        labels = [f"{t:.0%}" if (100 * t).is_integer() else f"{t:.1%}" for t in ticks]
        ax.set_xticks(where)
        ax.set_xticklabels(labels)
        ax.set_xlim(-3, 3)
        ax.set_yticks(where)
        ax.set_yticklabels(labels)
        ax.set_ylim(-3, 3)
        return self


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
    svg or pdf backend; a PDF keeps the curves as vectors).
    """
    ext = check_path(path, format)
    fig.savefig(path, format=ext, dpi=130, bbox_inches="tight")
