"""Plots of the curves in :mod:`perfeval.curves`, in scikit-learn's Display style.

>>> d = RocCurveDisplay.from_predictions(y, score, name="model A")   # doctest: +SKIP
>>> d.plot(ax=ax)                                                      # doctest: +SKIP

``RocCurveDisplay``, ``PrecisionRecallDisplay``, ``DetCurveDisplay``, ``CalibrationDisplay`` and
``ConfusionMatrixDisplay`` also draw what scikit-learn's displays of those names draw
(``from_predictions``, ``from_estimator``, ``from_cv_results``), from perfeval's numbers.
``CurveDisplay.from_models`` puts several models on one figure (the legend gives each one's area),
``plot_by_group`` draws small multiples, one panel a group.  Every display marks the operating
point at its threshold and the chance line.  matplotlib is an optional dependency
(``pip install 'perfeval[plot]'``), imported when a plot is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from perfeval.curves import KINDS, Curve
from perfeval.curves import summary as curve_summary
from perfeval.exceptions import InvalidParameterError, MissingDependencyError


def literal(text: Any) -> str:
    r"""A user's string shown as written: a ``$`` would start matplotlib's mathtext (``$x$``,
    ``a_b^c`` inside dollars, ``\alpha``), so each is escaped, and so is every control character
    (``\x1b`` shown as such, :func:`perfeval._text.shown`).
    """
    from perfeval._text import shown

    return shown(str(text)).replace("$", r"\$")


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
                area = "undefined" if math.isnan(curve.area) else f"{curve.area:.4f}"
                label = f"{literal(name)} ({AREA[self.kind]} {area})"
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


#: matplotlib's short names of style keywords, as scikit-learn's ``_validate_style_kwargs`` maps them
_KW_ALIASES = {
    "ls": "linestyle",
    "c": "color",
    "ec": "edgecolor",
    "fc": "facecolor",
    "lw": "linewidth",
    "mec": "markeredgecolor",
    "mfcalt": "markerfacecoloralt",
    "ms": "markersize",
    "mew": "markeredgewidth",
    "mfc": "markerfacecolor",
    "aa": "antialiased",
    "ds": "drawstyle",
    "font": "fontproperties",
    "family": "fontfamily",
    "name": "fontname",
    "size": "fontsize",
    "stretch": "fontstretch",
    "style": "fontstyle",
    "variant": "fontvariant",
    "weight": "fontweight",
    "ha": "horizontalalignment",
    "va": "verticalalignment",
    "ma": "multialignment",
}


def _style(defaults: dict[str, Any], user: Mapping[str, Any] | None) -> dict[str, Any]:
    """The defaults updated by the user's style keywords, short names spelled out (both spellings of
    one keyword from the user: an error), as scikit-learn's ``_validate_style_kwargs``.
    """
    user = user or {}
    for short, full in _KW_ALIASES.items():
        if short in user and full in user:
            raise InvalidParameterError(f"Got both {short} and {full}, which are aliases of one another")
    out = dict(defaults)
    for key, value in user.items():
        out[_KW_ALIASES.get(key, key)] = value
    return out


def _as_list(param: Any) -> list[Any] | None:
    """None stays None, a list stays itself, anything else is a list of one."""
    if param is None:
        return None
    return param if isinstance(param, list) else [param]


def _check_lengths(required: dict[str, list], optional: dict[str, Any], class_name: str) -> None:
    """The curves' arrays, and those optional ones given as lists, are lists of one length."""
    given = {**required, **{k: v for k, v in optional.items() if isinstance(v, list)}}
    if len({len(v) for v in given.values()}) > 1:
        keys = list(given)
        names = " and ".join([", ".join(keys[:-1]), keys[-1]])
        or_plot = " (or `plot`)" if "'name' (or self.name)" in keys else ""
        lengths = ", ".join(f"{k}: {len(v)}" for k, v in given.items())
        raise InvalidParameterError(
            f"{names} from `{class_name}` initialization{or_plot}, should all be lists of the same "
            f"length. Got: {lengths}"
        )


def _legend_label(value: float | None, name: str | None, metric: str) -> str | None:
    if value is not None and name is not None:
        return f"{literal(name)} ({metric} = {value:0.2f})"
    if value is not None:
        return f"{metric} = {value:0.2f}"
    return None if name is None else literal(name)


#: how scikit-learn draws each of several curves (cross-validation folds) under one legend entry
_MULTI_CURVE = {"alpha": 0.5, "linestyle": "--", "color": "blue"}


def _curve_styles(
    n: int,
    name: Any,
    metric: list[Any] | None,
    metric_name: str,
    curve_kwargs: Any,
    defaults: dict[str, Any],
) -> list[dict[str, Any]]:
    """Each curve's matplotlib keywords with its legend label, as scikit-learn's displays make them
    (``_get_legend_metric`` and ``_validate_curve_kwargs``): several curves with one style dict share
    one legend entry, ``name (AUC = mean +/- std)``, on the first curve; a list of style dicts labels
    each curve with its own value.
    """
    from collections.abc import Mapping

    if not isinstance(curve_kwargs, list) and n > 1:
        if metric:
            legend: dict[str, Any] = {"mean": float(np.mean(metric)), "std": float(np.std(metric))}
        else:
            legend = {"mean": None, "std": None}
    else:
        legend = {"metric": metric if metric is not None else [None] * n}
    if isinstance(curve_kwargs, list) and len(curve_kwargs) != n:
        raise InvalidParameterError(
            f"`curve_kwargs` must be None, a dictionary or a list of length {n}. Got: {curve_kwargs}."
        )
    if isinstance(name, list) and len(name) != 1 and not isinstance(curve_kwargs, list):
        raise InvalidParameterError(
            "To avoid labeling individual curves that have the same appearance, `curve_kwargs` should "
            f"be a list of {n} dictionaries. Alternatively, set `name` to `None` or a single string to "
            "label a single legend entry for all curves."
        )
    names = [name] if isinstance(name, str) else name
    if isinstance(names, list) and len(names) == 1:
        names = names * n
    names = [None] * n if names is None else names
    if isinstance(curve_kwargs, Mapping):
        per_curve = [curve_kwargs] * n
    elif curve_kwargs is None:
        per_curve = [{}] * n
    else:
        per_curve = curve_kwargs
    defaults = {**defaults, **(_MULTI_CURVE if n > 1 else {})}
    if "mean" in legend:
        label = _legend_label(legend["mean"], names[0], metric_name)
        if legend["std"] is not None and label is not None:
            label = (
                (label[:-1] + f" +/- {legend['std']:0.2f})")
                if names[0] is not None
                else (label + f" +/- {legend['std']:0.2f}")
            )
        labels = [label] + [None] * (n - 1)
    else:
        labels = [_legend_label(v, nm, metric_name) for v, nm in zip(legend["metric"], names, strict=False)]
    return [_style({"label": label, **defaults}, kw) for label, kw in zip(labels, per_curve, strict=False)]


def _despine(ax: Any) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("bottom", "left"):
        ax.spines[side].set_bounds(0, 1)


def _num_samples(X: Any) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(X)


def _take(X: Any, idx: np.ndarray) -> Any:
    """The rows ``idx`` of X (numpy or sparse array, pandas frame or series, list), as scikit-learn's
    ``_safe_indexing``.
    """
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    if hasattr(X, "shape"):
        return X[idx]
    return [X[int(i)] for i in idx]


def _cv_folds(
    cls_name: str,
    cv_results: Any,
    X: Any,
    y: Any,
    sample_weight: Any,
    response_method: Any,
    pos_label: Any,
) -> list[tuple[np.ndarray, np.ndarray, Any, np.ndarray | None]]:
    """Each fold's (y, scores, positive label, weights) on its test rows, from ``cross_validate``'s
    results with ``return_estimator=True, return_indices=True``, as scikit-learn's ``from_cv_results``.
    """
    from collections.abc import Mapping

    from perfeval._sklearn_names import class_labels
    from perfeval._validation import label_values, to_numpy

    _plt()
    fn = f"{cls_name}.from_cv_results"
    if not isinstance(cv_results, Mapping) or not all(k in cv_results for k in ("estimator", "indices")):
        raise InvalidParameterError(
            f"{fn}: `cv_results` does not contain one of the following required keys: "
            "{'estimator', 'indices'}. Set explicitly the parameters `return_estimator=True` and "
            "`return_indices=True` to the function `cross_validate`."
        )
    indices, estimators = cv_results["indices"], list(cv_results["estimator"])
    try:
        tests = list(indices["test"])
        expected = len(indices["train"][0]) + len(tests[0])
    except (KeyError, IndexError, TypeError):
        raise InvalidParameterError(
            f"{fn}: `cv_results['indices']` must hold the 'train' and 'test' rows of each fold, as "
            "cross_validate(..., return_indices=True) gives them"
        ) from None
    if len(tests) != len(estimators):
        raise InvalidParameterError(
            f"{fn}: `cv_results` holds {len(estimators)} estimators for {len(tests)} test folds"
        )
    if _num_samples(X) != expected:
        raise InvalidParameterError(
            f"{fn}: `X` does not contain the correct number of samples. Expected {expected}, got "
            f"{_num_samples(X)}."
        )
    yy = to_numpy(y, "y")
    classes = class_labels(fn, yy, "y")
    if len(classes) > 2:
        raise InvalidParameterError(
            f"{fn}: The target `y` is not binary. Got multiclass type of target ({label_values(yy)})."
        )
    if len(yy) != expected:
        raise InvalidParameterError(f"{fn}: `X` has {expected} rows and `y` {len(yy)}")
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    if w is not None and len(w) != len(yy):
        raise InvalidParameterError(f"{fn}: `sample_weight` has {len(w)} values for {len(yy)} rows")
    folds = []
    for estimator, test in zip(estimators, tests, strict=True):
        idx = np.asarray(test, dtype=np.int64)
        score, pos = _response(estimator, _take(X, idx), response_method, pos_label)
        folds.append((yy[idx], score, pos, None if w is None else w[idx]))
    return folds


class _SklearnDisplay(CurveDisplay):
    """One curve drawn as scikit-learn draws it (``from_predictions``, ``from_estimator``, ``plot``),
    beside perfeval's multi-model form (``from_models``) of the same class.
    """

    _metric = ""
    _x_label = ""
    _y_label = ""
    _legend_loc = "lower right"
    _draw: dict[str, Any] = {}
    name: Any = None
    pos_label: Any = None

    def __init__(self, curves: list[Curve] | None = None, names: list[str] | None = None, **kw: Any):
        self._sklearn = curves is None
        if curves is not None:
            super().__init__(curves, names or [], **kw)

    @property
    def estimator_name(self) -> str | None:
        """The curve's name (scikit-learn's former attribute; ``name`` is the current one)."""
        return self.name

    def _series(self, name: Any) -> tuple[list, list, list | None, Any, list | None]:
        """(xs, ys, metric values, names, prevalences) of the curves, each a list of one a curve
        (the metric values, names and prevalences None when not given), lengths checked.
        """
        raise NotImplementedError

    def plot(
        self,
        ax: Any = None,
        *,
        name: Any = None,
        curve_kwargs: Any = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict[str, Any] | None = None,
        despine: bool = False,
        chance: bool = True,
        mark_threshold: bool = True,
        title: str | None = None,
        **kwargs: Any,
    ):
        """Draw the curve (or, made by ``from_cv_results`` or from lists of arrays, the curves) as
        scikit-learn does (a display made by ``from_predictions``, ``from_estimator``,
        ``from_cv_results`` or its constructor), or every model's curve as perfeval does (one made
        by ``from_models``: then ``chance``, ``mark_threshold`` and ``title`` apply).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure otherwise.
        name : str or list of str, optional
            The legend's name of the curve (default: the display's ``name``); a list names each
            curve (``curve_kwargs`` must then be a list too).
        curve_kwargs : dict or list of dict, optional
            matplotlib line properties (``color``, ``lw``, ...): one dict for every curve (several
            curves then share one legend entry with the mean and standard deviation of their
            areas), or a list of one dict a curve (each curve its own entry).
        **kwargs : dict
            More line properties, applied to every curve (scikit-learn's former form).
        plot_chance_level : bool, default False
            Draw the chance line (ROC: the diagonal; PR: the prevalence of the positive class, one
            line a curve).
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
        xs, ys, metric, names, prevalence = self._series(name)
        n = len(xs)
        if kwargs:
            if isinstance(curve_kwargs, list):
                curve_kwargs = [{**(kw or {}), **kwargs} for kw in curve_kwargs]
            else:
                curve_kwargs = {**(curve_kwargs or {}), **kwargs}
        styles = _curve_styles(n, names, metric, self._metric, curve_kwargs, dict(self._draw))
        lines = [ax.plot(x, y, **style)[0] for x, y, style in zip(xs, ys, styles, strict=True)]
        self.line_ = lines[0] if len(lines) == 1 else lines
        info = f" (Positive label: {literal(self.pos_label)})" if self.pos_label is not None else ""
        ax.set(
            xlabel=self._x_label + info,
            xlim=(-0.01, 1.01),
            ylabel=self._y_label + info,
            ylim=(-0.01, 1.01),
            aspect="equal",
        )
        chance_kw: dict[str, Any] = {}
        if plot_chance_level:
            self.chance_level_, chance_kw = self._chance_level(ax, chance_level_kw, n, prevalence)
        else:
            self.chance_level_ = None
        if despine:
            _despine(ax)
        if styles[0].get("label") is not None or (plot_chance_level and chance_kw.get("label") is not None):
            ax.legend(loc=self._legend_loc)
        return self

    def _chance_level(
        self, ax: Any, kw: dict[str, Any] | None, n: int, prevalence: list | None
    ) -> tuple[Any, dict[str, Any]]:
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
        roc_auc: float | list[float] | None = None,
        name: Any = None,
        pos_label: Any = None,
        **kw: Any,
    ):
        super().__init__(curves, names, **kw)
        self.fpr, self.tpr, self.roc_auc = fpr, tpr, roc_auc
        self.name, self.pos_label = name, pos_label
        if self._sklearn and (fpr is None or tpr is None):
            raise InvalidParameterError("RocCurveDisplay needs fpr and tpr (or use from_predictions)")

    def _series(self, name: Any) -> tuple[list, list, list | None, Any, list | None]:
        fpr, tpr, auc, names = _as_list(self.fpr), _as_list(self.tpr), _as_list(self.roc_auc), _as_list(name)
        optional: dict[str, Any] = {"self.roc_auc": auc}
        if isinstance(names, list) and len(names) != 1:
            optional["'name' (or self.name)"] = names
        _check_lengths({"self.fpr": fpr or [], "self.tpr": tpr or []}, optional, "RocCurveDisplay")
        return fpr or [], tpr or [], auc, names, None

    def _chance_level(
        self, ax: Any, kw: dict[str, Any] | None, n: int, prevalence: list | None
    ) -> tuple[Any, dict[str, Any]]:
        style = _style({"label": "Chance level (AUC = 0.5)", "color": "k", "linestyle": "--"}, kw)
        return ax.plot((0, 1), (0, 1), **style)[0], style

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

    @classmethod
    def from_cv_results(
        cls,
        cv_results: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = True,
        response_method: Any = "auto",
        pos_label: Any = None,
        ax: Any = None,
        name: Any = None,
        curve_kwargs: Any = None,
        plot_chance_level: bool = False,
        chance_level_kwargs: dict[str, Any] | None = None,
        despine: bool = False,
    ) -> RocCurveDisplay:
        """One ROC curve a cross-validation fold, as scikit-learn's
        ``RocCurveDisplay.from_cv_results`` (>= 1.7): each fold's estimator scores its test rows.

        Parameters
        ----------
        cv_results : dict
            ``sklearn.model_selection.cross_validate(..., return_estimator=True,
            return_indices=True)``: the keys ``"estimator"`` and ``"indices"`` are read.
        X, y : array-like
            The data ``cross_validate`` was given (``y`` binary).
        name, curve_kwargs
            As in :meth:`plot`: by default the folds share one legend entry, ``AUC = mean +/- std``.

        The other parameters are :meth:`from_estimator`'s.  Attributes ``fpr``, ``tpr``,
        ``roc_auc`` are lists, one item a fold; ``line_`` is the list of lines.
        """
        from perfeval.functional import roc_curve

        fpr_folds, tpr_folds, auc_folds, pos = [], [], [], None
        for y_fold, score, pos, w in _cv_folds(
            cls.__name__, cv_results, X, y, sample_weight, response_method, pos_label
        ):
            fpr, tpr, _ = roc_curve(
                y_fold, score, pos_label=pos, sample_weight=w, drop_intermediate=drop_intermediate
            )
            fpr_folds.append(fpr)
            tpr_folds.append(tpr)
            auc_folds.append(_area(fpr, tpr))
        d = cls(fpr=fpr_folds, tpr=tpr_folds, roc_auc=auc_folds, name=name, pos_label=pos)
        return d.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kwargs,
            despine=despine,
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
        average_precision: float | list[float] | None = None,
        name: Any = None,
        pos_label: Any = None,
        prevalence_pos_label: float | list[float] | None = None,
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

    def _series(self, name: Any) -> tuple[list, list, list | None, Any, list | None]:
        precision, recall = _as_list(self.precision), _as_list(self.recall)
        ap, prevalence = _as_list(self.average_precision), _as_list(self.prevalence_pos_label)
        names = _as_list(name)
        optional: dict[str, Any] = {"self.average_precision": ap, "self.prevalence_pos_label": prevalence}
        if isinstance(names, list) and len(names) != 1:
            optional["'name' (or self.name)"] = names
        _check_lengths(
            {"self.precision": precision or [], "self.recall": recall or []},
            optional,
            "PrecisionRecallDisplay",
        )
        return recall or [], precision or [], ap, names, prevalence

    def _chance_level(
        self, ax: Any, kw: dict[str, Any] | None, n: int, prevalence: list | None
    ) -> tuple[Any, dict[str, Any]]:
        if prevalence is None:
            raise InvalidParameterError(
                "You must provide prevalence_pos_label when constructing the PrecisionRecallDisplay "
                "object in order to plot the chance level line (from_predictions, from_estimator and "
                "from_cv_results set it)"
            )
        style = _style({"color": "k", "linestyle": "--", **({"alpha": 0.3} if n > 1 else {})}, kw)
        lines = [ax.plot((0, 1), (p, p), **style)[0] for p in prevalence]
        if "label" not in style:
            lines[0].set_label(
                f"Chance level (AP = {prevalence[0]:0.2f})"
                if n == 1
                else f"Chance level (AP = {np.mean(prevalence):0.2f} +/- {np.std(prevalence):0.2f})"
            )
        return (lines[0] if n == 1 else lines), style

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

    @classmethod
    def from_cv_results(
        cls,
        cv_results: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: Any = None,
        drop_intermediate: bool = True,
        response_method: Any = "auto",
        pos_label: Any = None,
        name: Any = None,
        ax: Any = None,
        curve_kwargs: Any = None,
        plot_chance_level: bool = False,
        chance_level_kwargs: dict[str, Any] | None = None,
        despine: bool = False,
    ) -> PrecisionRecallDisplay:
        """One precision / recall curve a cross-validation fold, as scikit-learn's
        ``PrecisionRecallDisplay.from_cv_results`` (>= 1.9); parameters as
        :meth:`RocCurveDisplay.from_cv_results`.  ``precision``, ``recall``, ``average_precision``
        and ``prevalence_pos_label`` (unweighted, as scikit-learn's) are lists, one item a fold.
        """
        from perfeval.functional import average_precision_score, precision_recall_curve

        precision_folds, recall_folds, ap_folds, prevalence_folds, pos = [], [], [], [], None
        for y_fold, score, pos, w in _cv_folds(
            cls.__name__, cv_results, X, y, sample_weight, response_method, pos_label
        ):
            precision, recall, _ = precision_recall_curve(
                y_fold, score, pos_label=pos, sample_weight=w, drop_intermediate=drop_intermediate
            )
            precision_folds.append(precision)
            recall_folds.append(recall)
            ap_folds.append(average_precision_score(y_fold, score, pos_label=pos, sample_weight=w))
            prevalence_folds.append(float(np.count_nonzero(y_fold == pos) / len(y_fold)))
        d = cls(
            precision=precision_folds,
            recall=recall_folds,
            average_precision=ap_folds,
            name=name,
            pos_label=pos,
            prevalence_pos_label=prevalence_folds,
        )
        return d.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kwargs,
            despine=despine,
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
    """The calibration curve (reliability diagram) drawn as scikit-learn's
    ``sklearn.calibration.CalibrationDisplay`` draws it, from perfeval's
    :func:`perfeval.functional.calibration_curve`: the mean probability of each bin (x) against its
    share of positives (y), square markers joined by a line, and the dotted diagonal
    ``Perfectly calibrated``.

    Made by :meth:`from_predictions` or :meth:`from_estimator` (or from arrays, as scikit-learn's).
    Attributes as scikit-learn's: ``prob_true``, ``prob_pred``, ``y_prob``, ``estimator_name``,
    ``pos_label``, and after :meth:`plot` ``line_``, ``ax_``, ``figure_``.

    perfeval's own calibration plot stays: :meth:`from_models` (several models, PERF's 19
    overlapping bins by default, ``bins=``, ``sample_weight=``), and ``from_predictions`` given
    ``threshold=``, ``sample_weight=`` or ``bins=`` (undrawn: call :meth:`plot`).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = CalibrationDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.6, 0.9], n_bins=2)
    >>> d.prob_true.tolist(), d.prob_pred.tolist(), d.line_.get_label()
    ([0.0, 1.0], [0.25, 0.75], 'Classifier')
    """

    kind = "calibration"

    def __init__(
        self,
        prob_true: Any,
        prob_pred: Any,
        y_prob: Any,
        *,
        estimator_name: str | None = None,
        pos_label: Any = None,
    ):
        self._sklearn = True
        self.prob_true, self.prob_pred, self.y_prob = prob_true, prob_pred, y_prob
        self.estimator_name, self.pos_label = estimator_name, pos_label

    @property
    def name(self) -> str | None:
        return self.estimator_name

    @classmethod
    def _perfeval_form(cls, d: CurveDisplay) -> CalibrationDisplay:
        """The display of perfeval's form (several models, the operating points), as a CalibrationDisplay."""
        obj = cls.__new__(cls)
        CurveDisplay.__init__(
            obj, d.curves, d.names, kind=d.kind, points=d.points, threshold=d.threshold, base_rate=d.base_rate
        )
        obj._sklearn = False
        obj.prob_true = obj.prob_pred = obj.y_prob = obj.pos_label = None
        obj.estimator_name = d.names[0] if len(d.names) == 1 else None
        return obj

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
    ) -> CalibrationDisplay:
        """The calibration plot of perfeval's form, of several models' scores (``bins="perf"``: PERF's 19
        overlapping bins; ``"uniform"`` or ``"quantile"`` with ``n_bins``, 10 by default).
        """
        d = CurveDisplay.from_models(
            y_true,
            scores,
            kind=kind or cls.kind,
            threshold=threshold,
            sample_weight=sample_weight,
            **curve_kw,
        )
        return cls._perfeval_form(d)

    @classmethod
    def from_predictions(  # type: ignore[override]
        cls,
        y_true: Any,
        y_prob: Any,
        *,
        n_bins: int = 5,
        strategy: str = "uniform",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        ref_line: bool = True,
        threshold: float | None = None,
        sample_weight: Any = None,
        **kwargs: Any,
    ) -> CalibrationDisplay:
        """The calibration curve of probabilities, drawn as scikit-learn's
        ``CalibrationDisplay.from_predictions``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels ({0, 1}, {-1, 1}, or two labels with ``pos_label``).
        y_prob : array-like of shape (n_samples,)
            The probability of the positive class.
        n_bins, strategy
            As :func:`perfeval.functional.calibration_curve`.
        pos_label : optional
            The positive class.
        name : str, optional
            The legend's name (default ``"Classifier"``).
        ax : matplotlib Axes, optional
        ref_line : bool, default True
            Draw the diagonal, ``Perfectly calibrated`` (once an Axes).
        threshold, sample_weight, bins
            perfeval's: any of them gives perfeval's display instead (``bins="perf"`` by default),
            undrawn, as in earlier releases.
        **kwargs
            matplotlib line properties.
        """
        if threshold is not None or sample_weight is not None or "bins" in kwargs:
            bins = kwargs.pop("bins", "perf")
            if kwargs:
                raise InvalidParameterError(
                    f"perfeval's calibration display (threshold=, sample_weight=, bins=) takes no "
                    f"line properties; got {', '.join(map(repr, kwargs))}"
                )
            d = CurveDisplay.from_models(
                y_true,
                {"model" if name is None else name: y_prob},
                kind="calibration",
                threshold=0.5 if threshold is None else threshold,
                sample_weight=sample_weight,
                bins=bins,
                n_bins=n_bins,
            )
            return cls._perfeval_form(d)
        from perfeval._validation import to_numpy
        from perfeval.functional import calibration_curve

        pos = _binary_label(f"{cls.__name__}.from_predictions", y_true, pos_label)
        _plt()
        prob_true, prob_pred = calibration_curve(
            y_true, y_prob, n_bins=n_bins, strategy=strategy, pos_label=pos_label
        )
        d = cls(
            prob_true,
            prob_pred,
            to_numpy(y_prob, "y_prob"),
            estimator_name="Classifier" if name is None else name,
            pos_label=pos,
        )
        return d.plot(ax=ax, ref_line=ref_line, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        n_bins: int = 5,
        strategy: str = "uniform",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        ref_line: bool = True,
        **kwargs: Any,
    ) -> CalibrationDisplay:
        """The calibration curve of a fitted binary classifier's ``predict_proba`` on (X, y), as
        scikit-learn's ``CalibrationDisplay.from_estimator``: the ``pos_label`` column (default the
        last of ``classes_``); the estimator's class name is the default ``name``.
        """
        _plt()
        y_prob, pos = _response(estimator, X, "predict_proba", pos_label)
        return cls.from_predictions(
            y,
            y_prob,
            n_bins=n_bins,
            strategy=strategy,
            pos_label=pos,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            ref_line=ref_line,
            **kwargs,
        )

    def plot(
        self,
        *args: Any,
        ax: Any = None,
        name: str | None = None,
        ref_line: bool = True,
        chance: bool = True,
        mark_threshold: bool = True,
        title: str | None = None,
        **kwargs: Any,
    ) -> CalibrationDisplay:
        """Draw as scikit-learn does: the curve ``prob_pred`` (x) against ``prob_true`` (y), square
        markers, labelled ``name`` (default ``estimator_name``), the reference diagonal unless
        ``ref_line=False`` or the Axes has it already, the legend at the lower right.  A display of
        perfeval's form (:meth:`from_models`) is drawn perfeval's way (``chance``,
        ``mark_threshold``, ``title``; ``ax`` may be given by position there).
        """
        if args:
            if len(args) > 1 or ax is not None:
                raise InvalidParameterError("CalibrationDisplay.plot takes ax once (a keyword: ax=)")
            ax = args[0]
        if not self._sklearn:
            return super().plot(ax, chance=chance, mark_threshold=mark_threshold, title=title)
        plt = _plt()
        if ax is None:
            _fig, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        name = self.estimator_name if name is None else name
        info = f"(Positive class: {literal(self.pos_label)})" if self.pos_label is not None else ""
        defaults: dict[str, Any] = {"marker": "s", "linestyle": "-"}
        if name is not None:
            defaults["label"] = literal(name)
        style = _style(defaults, kwargs)
        ref_label = "Perfectly calibrated"
        if ref_line and ref_label not in ax.get_legend_handles_labels()[1]:
            ax.plot([0, 1], [0, 1], "k:", label=ref_label)
        self.line_ = ax.plot(self.prob_pred, self.prob_true, **style)[0]
        ax.legend(loc="lower right")
        ax.set(xlabel=f"Mean predicted probability {info}", ylabel=f"Fraction of positives {info}")
        return self


def _is_classifier(estimator: Any) -> bool:
    """scikit-learn's ``is_classifier`` without importing scikit-learn: its tags when the estimator
    has them, else ``_estimator_type``, else a fitted ``classes_`` beside ``predict``.
    """
    tags = getattr(estimator, "__sklearn_tags__", None)
    if callable(tags):
        try:
            return getattr(tags(), "estimator_type", None) == "classifier"
        except (AttributeError, TypeError):
            pass
    if getattr(estimator, "_estimator_type", None) == "classifier":
        return True
    return hasattr(estimator, "classes_") and callable(getattr(estimator, "predict", None))


class ConfusionMatrixDisplay:
    """The confusion matrix drawn as scikit-learn's ``ConfusionMatrixDisplay`` draws it, from
    perfeval's :func:`perfeval.functional.confusion_matrix`: an image of the counts (rows the true
    labels, columns the predicted ones), each cell's value written in it in the colour that stands
    out from the cell (the colour map's far end), a colour bar.

    Attributes as scikit-learn's: ``confusion_matrix``, ``display_labels``, and after :meth:`plot`
    ``im_``, ``text_`` (an array of matplotlib Text, None without values), ``ax_``, ``figure_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = ConfusionMatrixDisplay.from_predictions(["a", "b", "b"], ["a", "a", "b"])
    >>> d.confusion_matrix.tolist(), [t.get_text() for t in d.text_.ravel()]
    ([[1, 0], [1, 1]], ['1', '0', '1', '1'])
    """

    def __init__(self, confusion_matrix: Any, *, display_labels: Any = None):
        self.confusion_matrix = confusion_matrix
        self.display_labels = display_labels

    def plot(
        self,
        *,
        include_values: bool = True,
        cmap: Any = "viridis",
        xticks_rotation: Any = "horizontal",
        values_format: str | None = None,
        ax: Any = None,
        colorbar: bool = True,
        im_kw: dict[str, Any] | None = None,
        text_kw: dict[str, Any] | None = None,
    ) -> ConfusionMatrixDisplay:
        """Draw the matrix (``imshow``, nearest interpolation) with its values, formatted ``d`` or
        ``.2g`` whichever is shorter (``values_format`` to choose), the tick labels
        ``display_labels`` (default 0 ... n - 1), ``True label`` / ``Predicted label``.
        """
        from itertools import product

        plt = _plt()
        cm = np.asarray(self.confusion_matrix)
        if cm.ndim != 2 or cm.shape[0] != cm.shape[1] or cm.shape[0] == 0:
            raise InvalidParameterError(
                f"ConfusionMatrixDisplay: confusion_matrix must be a square 2-D array, got shape {cm.shape}"
            )
        n = cm.shape[0]
        labels = np.arange(n) if self.display_labels is None else self.display_labels
        if len(labels) != n:
            raise InvalidParameterError(
                f"ConfusionMatrixDisplay: {len(labels)} display_labels for a {n} x {n} confusion matrix"
            )
        if ax is None:
            fig, ax = plt.subplots()
        else:
            fig = ax.figure
        self.im_ = ax.imshow(cm, **_style({"interpolation": "nearest", "cmap": cmap}, im_kw))
        self.text_ = None
        cmap_min, cmap_max = self.im_.cmap(0), self.im_.cmap(1.0)
        if include_values:
            self.text_ = np.empty_like(cm, dtype=object)
            thresh = (cm.max() + cm.min()) / 2.0
            for i, j in product(range(n), range(n)):
                color = cmap_max if cm[i, j] < thresh else cmap_min
                if values_format is None:
                    text = format(cm[i, j], ".2g")
                    if cm.dtype.kind != "f":
                        whole = format(cm[i, j], "d")
                        if len(whole) < len(text):
                            text = whole
                else:
                    text = format(cm[i, j], values_format)
                style = _style({"ha": "center", "va": "center", "color": color}, text_kw)
                self.text_[i, j] = ax.text(j, i, text, **style)
        if colorbar:
            fig.colorbar(self.im_, ax=ax)
        shown = [literal(v.item() if hasattr(v, "item") else v) for v in labels]
        ax.set(
            xticks=np.arange(n),
            yticks=np.arange(n),
            xticklabels=shown,
            yticklabels=shown,
            ylabel="True label",
            xlabel="Predicted label",
        )
        ax.set_ylim((n - 0.5, -0.5))
        plt.setp(ax.get_xticklabels(), rotation=xticks_rotation)
        self.figure_, self.ax_ = fig, ax
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        normalize: str | None = None,
        display_labels: Any = None,
        include_values: bool = True,
        xticks_rotation: Any = "horizontal",
        values_format: str | None = None,
        cmap: Any = "viridis",
        ax: Any = None,
        colorbar: bool = True,
        im_kw: dict[str, Any] | None = None,
        text_kw: dict[str, Any] | None = None,
    ) -> ConfusionMatrixDisplay:
        """The confusion matrix of hard predictions, drawn as scikit-learn's
        ``ConfusionMatrixDisplay.from_predictions``: ``labels``, ``sample_weight`` and
        ``normalize`` as :func:`perfeval.functional.confusion_matrix` (scores are refused: this
        takes labels); ``display_labels`` default to ``labels``, else the sorted labels of both.
        """
        from perfeval._sklearn_names import hard_labels
        from perfeval.functional import confusion_matrix

        _plt()
        _yt, _yp, present, _w = hard_labels(f"{cls.__name__}.from_predictions", y_true, y_pred, sample_weight)
        if display_labels is None:
            display_labels = present if labels is None else labels
        cm = confusion_matrix(y_true, y_pred, labels=labels, sample_weight=sample_weight, normalize=normalize)
        return cls(cm, display_labels=display_labels).plot(
            include_values=include_values,
            cmap=cmap,
            ax=ax,
            xticks_rotation=xticks_rotation,
            values_format=values_format,
            colorbar=colorbar,
            im_kw=im_kw,
            text_kw=text_kw,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        normalize: str | None = None,
        display_labels: Any = None,
        include_values: bool = True,
        xticks_rotation: Any = "horizontal",
        values_format: str | None = None,
        cmap: Any = "viridis",
        ax: Any = None,
        colorbar: bool = True,
        im_kw: dict[str, Any] | None = None,
        text_kw: dict[str, Any] | None = None,
    ) -> ConfusionMatrixDisplay:
        """The confusion matrix of a fitted classifier's ``predict(X)`` against ``y``, as
        scikit-learn's ``ConfusionMatrixDisplay.from_estimator``.
        """
        _plt()
        if not _is_classifier(estimator):
            raise InvalidParameterError(
                f"{cls.__name__}.from_estimator only supports classifiers, got {type(estimator).__name__}"
            )
        return cls.from_predictions(
            y,
            estimator.predict(X),
            labels=labels,
            sample_weight=sample_weight,
            normalize=normalize,
            display_labels=display_labels,
            include_values=include_values,
            xticks_rotation=xticks_rotation,
            values_format=values_format,
            cmap=cmap,
            ax=ax,
            colorbar=colorbar,
            im_kw=im_kw,
            text_kw=text_kw,
        )


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
    import io

    from perfeval._console import write_file

    ext = check_path(path, format)
    buf = io.BytesIO()
    fig.savefig(buf, format=ext, dpi=130, bbox_inches="tight")
    write_file(str(path), buf.getvalue())
