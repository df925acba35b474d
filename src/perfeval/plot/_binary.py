"""The curves of a binary classifier's scores drawn as scikit-learn draws them: ROC, precision /
recall (both also perfeval's :class:`CurveDisplay`) and DET.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from perfeval.base.checks import to_numpy
from perfeval.curves import Curve
from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import Display, cv_folds, literal, parameters, styled
from perfeval.plot._curves import CurveDisplay

# perfeval.functional (and through it the door and the engine) is imported where a display
# computes its curve from predictions, statistics (decimal, fractions, random) for the DET axes:
# `perfeval plot` loads neither.

S = TypeVar("S", bound="_SklearnDisplay")


def _area(x: np.ndarray, y: np.ndarray) -> float:
    """The trapezoidal area under (x, y), as scikit-learn's ``auc`` (x increasing)."""
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


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
    return [styled({"label": label, **defaults}, kw) for label, kw in zip(labels, per_curve, strict=False)]


def _despine(ax: Any) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("bottom", "left"):
        ax.spines[side].set_bounds(0, 1)


class _SklearnDisplay(Display, CurveDisplay):
    """One curve drawn as scikit-learn draws it (``from_predictions``, ``from_estimator``,
    ``from_cv_results``, ``plot``), beside perfeval's multi-model form (``from_models``) of the same
    class.
    """

    #: the display's arrays (in the order the message of different lengths names them), the two drawn
    #: (x, y), and the optional ones: a value a curve in the legend, then the positive class' prevalence
    _arrays: tuple[str, ...] = ()
    _xy: tuple[str, str] = ("", "")
    _values: tuple[str, ...] = ()
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
        names = _as_list(name)
        required = {f"self.{a}": _as_list(getattr(self, a)) or [] for a in self._arrays}
        optional: dict[str, Any] = {f"self.{a}": _as_list(getattr(self, a)) for a in self._values}
        if isinstance(names, list) and len(names) != 1:
            optional["'name' (or self.name)"] = names
        _check_lengths(required, optional, type(self).__name__)
        x, y = (required[f"self.{a}"] for a in self._xy)
        return x, y, optional[f"self.{self._values[0]}"], names, optional.get("self.prevalence_pos_label")

    @classmethod
    def _perfeval_form(cls, y_true: Any, y_score: Any, a: dict[str, Any]) -> Any:
        if a["threshold"] is None:
            return None
        return cls.from_models(
            y_true,
            {a["name"] or "model": y_score},
            kind=cls.kind,
            threshold=a["threshold"],
            sample_weight=a["sample_weight"],
        )

    @classmethod
    def from_cv_results(cls: type[S], *args: Any, **kwargs: Any) -> S:
        """One curve a cross-validation fold: each fold's estimator scores its test rows
        (:func:`cv_folds`), each fold's curve is :meth:`_curve`'s, the display's arrays are lists,
        one item a fold.
        """
        a = cls._arguments("from_cv_results", args, kwargs)
        folds = cv_folds(
            cls.__name__,
            a["cv_results"],
            a["X"],
            a["y"],
            a["sample_weight"],
            a["response_method"],
            a["pos_label"],
        )
        drop = a["drop_intermediate"]
        curves = [
            cls._curve(y, score, pos_label=pos, sample_weight=w, drop_intermediate=drop)
            for y, score, pos, w in folds
        ]
        display: Any = cls(
            **{k: [c[k] for c in curves] for k in curves[0]}, name=a["name"], pos_label=folds[-1][2]
        )
        return display.plot(
            ax=a["ax"],
            curve_kwargs=a["curve_kwargs"],
            plot_chance_level=a["plot_chance_level"],
            chance_level_kw=a["chance_level_kwargs"],
            despine=a["despine"],
        )

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
        ax = self._axes(ax)
        name = self.name if name is None else name
        xs, ys, metric, names, prevalence = self._series(name)
        n = len(xs)
        if curve_kwargs is None and getattr(self, "classes", None) is not None:
            # one curve a class: each its own colour and legend entry (not the folds' one style)
            curve_kwargs = [{"color": f"C{i % 10}", "alpha": 1.0, "linestyle": "-"} for i in range(n)]
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
    _what = "ROC curve"
    _from_predictions = parameters(
        "y_true y_score sample_weight drop_intermediate pos_label name ax curve_kwargs plot_chance_level "
        "chance_level_kw despine classes threshold kwargs"
    )
    _predictions_only = ("threshold", "classes")
    _docs = {
        "y_score": "The scores: the higher, the more likely the positive class (probabilities or decision "
        "values); of K classes, shape (n_samples, n_classes), a column a class (``classes``)."
    }
    _from_cv_results = parameters(
        "sample_weight drop_intermediate response_method pos_label ax name curve_kwargs plot_chance_level "
        "chance_level_kwargs despine"
    )
    _notes = {
        "from_predictions": "The legend reads ``name (AUC = 0.xx)``.  Scores of K classes (``y_score`` of "
        "shape (n_samples, n_classes), perfeval's; scikit-learn 1.9 draws two classes only): one curve a "
        "class against the rest, each :func:`perfeval.functional.roc_curve` of ``y_true == class`` and "
        "its column, the legend ``class (AUC = 0.xx)``; ``fpr``, ``tpr``, ``roc_auc`` and ``name`` are "
        "lists, one item a class, ``classes`` the labels.",
        "from_cv_results": "``fpr``, ``tpr`` and ``roc_auc`` are lists, one item a fold, and ``line_`` "
        "the list of lines (scikit-learn >= 1.7).",
    }
    _arrays = ("fpr", "tpr")
    _xy = ("fpr", "tpr")
    _values = ("roc_auc",)
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
        classes: Any = None,
        **kw: Any,
    ):
        super().__init__(curves, names, **kw)
        self.fpr, self.tpr, self.roc_auc = fpr, tpr, roc_auc
        self.name, self.pos_label, self.classes = name, pos_label, classes
        if self._sklearn and (fpr is None or tpr is None):
            raise InvalidParameterError("RocCurveDisplay needs fpr and tpr (or use from_predictions)")

    def _chance_level(
        self, ax: Any, kw: dict[str, Any] | None, n: int, prevalence: list | None
    ) -> tuple[Any, dict[str, Any]]:
        style = styled({"label": "Chance level (AUC = 0.5)", "color": "k", "linestyle": "--"}, kw)
        return ax.plot((0, 1), (0, 1), **style)[0], style

    @classmethod
    def _curve(cls, y_true: Any, y_score: Any, **kw: Any) -> dict[str, Any]:
        from perfeval.functional import roc_curve

        fpr, tpr, _ = roc_curve(y_true, y_score, **kw)
        return {"fpr": fpr, "tpr": tpr, "roc_auc": _area(fpr, tpr)}

    @classmethod
    def _perfeval_form(cls, y_true: Any, y_score: Any, a: dict[str, Any]) -> Any:
        if a["threshold"] is not None and (a["classes"] is not None or np.ndim(y_score) == 2):
            raise InvalidParameterError(
                "RocCurveDisplay.from_predictions: threshold= marks the operating point of two classes; "
                "the curves of K classes have none (drop threshold)"
            )
        return super()._perfeval_form(y_true, y_score, a)

    @classmethod
    def _fields(cls, y_true: Any, y_score: Any, a: dict[str, Any]) -> dict[str, Any]:
        """A binary classifier's curve, or (scores of K classes: a 2-D ``y_score`` or ``classes``)
        one curve a class against the rest.
        """
        if a["classes"] is None and np.ndim(y_score) != 2:
            return super()._fields(y_true, y_score, a)
        return cls._one_vs_rest(y_true, y_score, a)

    @classmethod
    def _one_vs_rest(cls, y_true: Any, y_score: Any, a: dict[str, Any]) -> dict[str, Any]:
        """One ROC curve a class: the cases of the class against the rest, scored by its column
        (:func:`perfeval.functional.roc_curve`), the arrays checked and the classes found as
        :func:`perfeval.evaluate` checks and finds them (:func:`perfeval.engine.door.check_classes`).
        """
        from perfeval.engine.door import check_classes

        fn = f"{cls.__name__}.from_predictions"
        if a["pos_label"] is not None:
            raise InvalidParameterError(
                f"{fn}: pos_label={a['pos_label']!r} names the positive class of two; with scores of K "
                "classes every class is drawn against the rest (drop pos_label)"
            )
        if np.ndim(y_score) != 2:
            raise InvalidParameterError(
                f"{fn}: classes= names the columns of y_score of shape (n_samples, n_classes), but "
                f"y_score has {np.ndim(y_score)} dimension(s)"
            )
        columns = getattr(y_score, "columns", None)
        names = None if columns is None or a["classes"] is not None else [str(c) for c in columns]
        cases, classes, _how = check_classes(
            y_true, y_score, None, a["sample_weight"], classes=a["classes"], names=names
        )
        if len(classes) < 2:
            raise InvalidParameterError(f"{fn}: y_score has {len(classes)} column: K classes need K >= 2")
        curves = []
        for j in range(len(classes)):
            curves.append(
                cls._curve(
                    cases.y == j,
                    cases.s[:, j],
                    pos_label=True,
                    sample_weight=cases.w,
                    drop_intermediate=a["drop_intermediate"],
                )
            )
        shown = [str(c) for c in classes] if a["name"] is None else a["name"]
        return {
            **{k: [c[k] for c in curves] for k in ("fpr", "tpr", "roc_auc")},
            "name": shown,
            "classes": list(classes),
        }


class PrecisionRecallDisplay(_SklearnDisplay):
    """The precision / recall curve, drawn as scikit-learn's ``PrecisionRecallDisplay`` draws it (a
    step function, ``steps-post``), with the average precision in the legend (``AP = 0.xx``).

    Attributes as scikit-learn's: ``precision``, ``recall``, ``average_precision``, ``name``
    (``estimator_name``), ``pos_label``, ``prevalence_pos_label``, and after :meth:`plot`
    ``line_``, ``ax_``, ``figure_``, ``chance_level_``.
    """

    kind = "pr"
    _what = "precision / recall curve"
    _from_predictions = parameters(
        "y_true y_score sample_weight drop_intermediate pos_label name ax curve_kwargs plot_chance_level "
        "chance_level_kw despine threshold kwargs",
        drop_intermediate=False,
    )
    _from_cv_results = parameters(  # scikit-learn's order: name before ax here, after it for ROC
        "sample_weight drop_intermediate response_method pos_label name ax curve_kwargs plot_chance_level "
        "chance_level_kwargs despine"
    )
    _notes = {
        "from_predictions": "A step function (``steps-post``); the legend reads ``name (AP = 0.xx)``.",
        "from_cv_results": "``precision``, ``recall``, ``average_precision`` and ``prevalence_pos_label`` "
        "(unweighted, as scikit-learn's) are lists, one item a fold, and ``line_`` the list of lines "
        "(scikit-learn >= 1.9).",
    }
    _arrays = ("precision", "recall")
    _xy = ("recall", "precision")
    _values = ("average_precision", "prevalence_pos_label")
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

    def _chance_level(
        self, ax: Any, kw: dict[str, Any] | None, n: int, prevalence: list | None
    ) -> tuple[Any, dict[str, Any]]:
        if prevalence is None:
            raise InvalidParameterError(
                "You must provide prevalence_pos_label when constructing the PrecisionRecallDisplay "
                "object in order to plot the chance level line (from_predictions, from_estimator and "
                "from_cv_results set it)"
            )
        style = styled({"color": "k", "linestyle": "--", **({"alpha": 0.3} if n > 1 else {})}, kw)
        lines = [ax.plot((0, 1), (p, p), **style)[0] for p in prevalence]
        if "label" not in style:
            lines[0].set_label(
                f"Chance level (AP = {prevalence[0]:0.2f})"
                if n == 1
                else f"Chance level (AP = {np.mean(prevalence):0.2f} +/- {np.std(prevalence):0.2f})"
            )
        return (lines[0] if n == 1 else lines), style

    @classmethod
    def _curve(cls, y_true: Any, y_score: Any, **kw: Any) -> dict[str, Any]:
        from perfeval.functional import average_precision_score, precision_recall_curve

        precision, recall, _ = precision_recall_curve(y_true, y_score, **kw)
        ap = average_precision_score(
            y_true, y_score, pos_label=kw["pos_label"], sample_weight=kw["sample_weight"]
        )
        y = to_numpy(y_true, "y_true")
        prevalence = float(np.sum(y == kw["pos_label"]) / len(y))
        return {
            "precision": precision,
            "recall": recall,
            "average_precision": ap,
            "prevalence_pos_label": prevalence,
        }


def _probit(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile of each probability (the DET curve's axes), by the standard
    library's ``NormalDist.inv_cdf`` (Wichura's AS241, full double precision): no scipy needed.
    """
    from statistics import NormalDist

    inv = NormalDist().inv_cdf
    return np.array([inv(float(v)) for v in np.asarray(p, dtype=np.float64).ravel()]).reshape(np.shape(p))


class DetCurveDisplay(Display):
    """The detection error tradeoff curve (false positive rate against false negative rate, both on
    normal-deviate axes), drawn as scikit-learn's ``DetCurveDisplay`` draws it, from perfeval's
    exact :func:`perfeval.functional.det_curve`.

    Attributes: ``fpr``, ``fnr``, ``estimator_name`` (``name``), ``pos_label``, and after
    :meth:`plot` ``line_``, ``ax_``, ``figure_``.
    """

    _what = "DET curve"
    _from_predictions = parameters("y_true y_score sample_weight drop_intermediate pos_label name ax kwargs")
    _name_field = "estimator_name"

    def __init__(self, *, fpr: Any, fnr: Any, estimator_name: str | None = None, pos_label: Any = None):
        self.fpr, self.fnr = np.asarray(fpr, dtype=np.float64), np.asarray(fnr, dtype=np.float64)
        self.estimator_name, self.pos_label = estimator_name, pos_label

    @property
    def name(self) -> str | None:
        return self.estimator_name

    @classmethod
    def _curve(cls, y_true: Any, y_score: Any, **kw: Any) -> dict[str, Any]:
        from perfeval.functional import det_curve

        fpr, fnr, _ = det_curve(y_true, y_score, **kw)
        return {"fpr": fpr, "fnr": fnr}

    def plot(self, ax: Any = None, *, name: str | None = None, **kwargs: Any) -> DetCurveDisplay:
        """Draw on normal-deviate axes (rates clipped to [eps, 1 - eps]), ticks 0.1% ... 99.9%."""
        ax = self._axes(ax)
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
