"""The base of scikit-learn's displays, :class:`Display`, where their constructors
(``from_predictions``, ``from_estimator``, ``from_cv_results``) are written once, and what every display
shares: user text shown as written (:func:`literal`), matplotlib imported when a plot is drawn
(:func:`pyplot`), matplotlib's style keywords (:func:`styled`), a fitted classifier's response, the
positive label, the folds of ``cross_validate``.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, TypeVar

import numpy as np

from perfeval.base.checks import label_values, to_numpy
from perfeval.base.text import shown
from perfeval.exceptions import InvalidParameterError, MissingDependencyError

# matplotlib is optional and heavy: imported where a figure is made (`import perfeval.plot`
# does not load it); the scikit-learn face (and through it the door) by from_cv_results only.


def literal(text: Any) -> str:
    r"""A user's string shown as written: a ``$`` would start matplotlib's mathtext (``$x$``,
    ``a_b^c`` inside dollars, ``\alpha``), so each is escaped, and so is every control character
    (``\x1b`` shown as such, :func:`perfeval.base.text.shown`).
    """
    return shown(str(text)).replace("$", r"\$")


def pyplot():
    """The ``pyplot`` of matplotlib, imported when a plot is drawn (matplotlib is an optional
    dependency: without it, the install hint).
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'perfeval[plot]'") from None
    return plt


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


def styled(defaults: dict[str, Any], user: Mapping[str, Any] | None) -> dict[str, Any]:
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


def response_of(estimator: Any, X: Any, response_method: Any, pos_label: Any) -> tuple[np.ndarray, Any]:
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


def binary_label(cls_name: str, y_true: Any, pos_label: Any) -> Any:
    """scikit-learn's check of a display's targets: binary, and ``pos_label`` named unless 0/1, -1/1."""
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


def is_classifier(estimator: Any) -> bool:
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


def cv_folds(
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
    from perfeval.functional.sklearn_names import class_labels

    pyplot()
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
        score, pos = response_of(estimator, _take(X, idx), response_method, pos_label)
        folds.append((yy[idx], score, pos, None if w is None else w[idx]))
    return folds


# -- the constructors, written once ----------------------------------------------------------------------
_REQUIRED = inspect.Parameter.empty


class Arg(NamedTuple):
    """A parameter of the displays' constructors: its default (a display may give its own), its
    annotation, and its numpydoc type and description.
    """

    default: Any
    annotation: str
    type: str
    doc: str


#: the parameters of the displays' ``from_predictions``, ``from_estimator`` and ``from_cv_results``, by
#: name (``method.name``: that method's own form of the parameter)
PARAMETERS: dict[str, Arg] = {
    "y_true": Arg(
        _REQUIRED,
        "Any",
        "array-like of shape (n_samples,)",
        "The true labels: {0, 1}, {-1, 1}, or two labels of which ``pos_label`` names the positive one.",
    ),
    "y_score": Arg(
        None,
        "Any",
        "array-like of shape (n_samples,)",
        "The scores: the higher, the more likely the positive class (probabilities or decision values).",
    ),
    "y_prob": Arg(
        _REQUIRED, "Any", "array-like of shape (n_samples,)", "The probability of the positive class."
    ),
    "y_pred": Arg(
        _REQUIRED,
        "Any",
        "array-like of shape (n_samples,)",
        "The predicted labels (scores are refused: this takes labels).",
    ),
    "estimator": Arg(_REQUIRED, "Any", "fitted classifier", "Its predictions on ``X`` are drawn."),
    "cv_results": Arg(
        _REQUIRED,
        "Any",
        "dict",
        "``sklearn.model_selection.cross_validate(..., return_estimator=True, return_indices=True)``: "
        'the keys ``"estimator"`` and ``"indices"`` are read.',
    ),
    "X": Arg(
        _REQUIRED,
        "Any",
        "array-like or sparse matrix of shape (n_samples, n_features)",
        "The estimator's input.",
    ),
    "from_cv_results.X": Arg(
        _REQUIRED,
        "Any",
        "array-like or sparse matrix of shape (n_samples, n_features)",
        "The data ``cross_validate`` was given.",
    ),
    "y": Arg(_REQUIRED, "Any", "array-like of shape (n_samples,)", "The true labels of ``X``."),
    "sample_weight": Arg(None, "Any", "array-like of shape (n_samples,)", "The weight of each case."),
    "drop_intermediate": Arg(
        True,
        "bool",
        "bool",
        "Leave out the points on a straight stretch of the curve (the curve drawn is the same), as "
        "scikit-learn's ``drop_intermediate``.",
    ),
    "response_method": Arg(
        "auto",
        "Any",
        '{"predict_proba", "decision_function", "auto"}',
        "The estimator's method giving the scores: ``predict_proba`` (its ``pos_label`` column) or "
        '``decision_function`` (negated when ``pos_label`` is the first class); ``"auto"`` tries '
        "``predict_proba`` first.",
    ),
    "pos_label": Arg(
        None,
        "Any",
        "int, float, bool or str",
        "The positive class: by default 1 of the labels {0, 1} or {-1, 1}, and of an estimator the last "
        "of its ``classes_``.",
    ),
    "name": Arg(
        None,
        "str | None",
        "str",
        'The name in the legend: by default ``"Classifier"``, of ``from_estimator`` the estimator\'s '
        "class name.",
    ),
    "from_cv_results.name": Arg(
        None,
        "Any",
        "str or list of str",
        "The name in the legend: by default none (the folds' curves share one entry, the mean and "
        "standard deviation of their areas); a list names each fold's curve (``curve_kwargs`` must "
        "then be a list too).",
    ),
    "ax": Arg(None, "Any", "matplotlib Axes", "Where to draw; a new figure otherwise."),
    "curve_kwargs": Arg(
        None, "dict[str, Any] | None", "dict", "matplotlib line properties (``color``, ``lw``, ...)."
    ),
    "from_cv_results.curve_kwargs": Arg(
        None,
        "Any",
        "dict or list of dict",
        "matplotlib line properties: one dict for every fold's curve (they then share one legend "
        "entry), or a list of one dict a fold (each curve its own entry).",
    ),
    "plot_chance_level": Arg(
        False,
        "bool",
        "bool",
        "Draw the chance line (ROC: the diagonal; precision / recall: the prevalence of the positive "
        "class, one line a curve).",
    ),
    "chance_level_kw": Arg(None, "dict[str, Any] | None", "dict", "The chance line's matplotlib properties."),
    "chance_level_kwargs": Arg(
        None, "dict[str, Any] | None", "dict", "The chance line's matplotlib properties."
    ),
    "despine": Arg(False, "bool", "bool", "Hide the top and right spines."),
    "threshold": Arg(
        None,
        "float | None",
        "float",
        "perfeval's: the display of perfeval's form instead (:meth:`CurveDisplay.from_models`), the "
        "operating point at this threshold marked, not yet drawn (call :meth:`plot`), as in earlier "
        "releases.",
    ),
    "kwargs": Arg(_REQUIRED, "Any", "dict", "matplotlib line properties."),
    "classes": Arg(
        None,
        "Any",
        "array-like of shape (n_classes,)",
        "perfeval's: ``y_score`` of shape (n_samples, n_classes) (``predict_proba``), the label of each "
        "column in order (by default a DataFrame's column names, else the sorted labels of ``y_true`` "
        "when there are n_classes of them): one curve a class, that class against the rest, its area "
        "in the legend.",
    ),
    "n_bins": Arg(5, "int", "int", "The number of bins, as :func:`perfeval.functional.calibration_curve`."),
    "strategy": Arg(
        "uniform",
        "str",
        '{"uniform", "quantile"}',
        "Bins of equal width, or of equal numbers of cases, as "
        ":func:`perfeval.functional.calibration_curve`.",
    ),
    "ref_line": Arg(True, "bool", "bool", "Draw the diagonal, ``Perfectly calibrated`` (once an Axes)."),
    "labels": Arg(
        None,
        "Any",
        "array-like",
        "The labels, in the matrix's order (by default the sorted labels of both the true and the "
        "predicted labels), as :func:`perfeval.functional.confusion_matrix`.",
    ),
    "normalize": Arg(
        None,
        "str | None",
        '{"true", "pred", "all"}',
        "Divide each row, each column or the whole matrix by its sum, as "
        ":func:`perfeval.functional.confusion_matrix`.",
    ),
    "display_labels": Arg(
        None, "Any", "array-like", "The tick labels: by default ``labels``, else the sorted labels of both."
    ),
    "include_values": Arg(True, "bool", "bool", "Write each cell's value in it."),
    "xticks_rotation": Arg(
        "horizontal", "Any", '{"vertical", "horizontal"} or float', "The rotation of the x tick labels."
    ),
    "values_format": Arg(
        None,
        "str | None",
        "str",
        "The format of the values (by default ``d`` or ``.2g``, whichever is shorter).",
    ),
    "cmap": Arg("viridis", "Any", "str or matplotlib Colormap", "The colour map."),
    "colorbar": Arg(True, "bool", "bool", "Draw a colour bar."),
    "im_kw": Arg(None, "dict[str, Any] | None", "dict", "More keywords of ``imshow``."),
    "text_kw": Arg(None, "dict[str, Any] | None", "dict", "More keywords of the values' ``text``."),
}

#: a parameter of a display's constructor: its name, or (name, the display's own default)
Spec = str | tuple[str, Any]


def parameters(names: str, **defaults: Any) -> tuple[Spec, ...]:
    """A constructor's parameters: ``names`` (separated by spaces) in order, where the display's
    default differs from :data:`PARAMETERS`' (name, its default).
    """
    return tuple((name, defaults[name]) if name in defaults else name for name in names.split())


#: the constructors' summaries (``{cls}``: the display class; ``{response}``: from_estimator's predictions)
SUMMARIES = {
    "from_predictions": "The {cls._what} of {inputs}, drawn as scikit-learn's "
    "``{cls.__name__}.from_predictions``.",
    "from_estimator": "The {cls._what} of a fitted classifier's {response} on ``X``, drawn as scikit-learn's "
    "``{cls.__name__}.from_estimator``.",
    "from_cv_results": "One {cls._what} a cross-validation fold, drawn as scikit-learn's "
    "``{cls.__name__}.from_cv_results``: each fold's estimator scores its test rows.",
}
_INPUTS = {"y_score": "scores", "y_prob": "probabilities", "y_pred": "predicted labels"}
_RESPONSES = {
    "auto": "scores (``response_method``)",
    "predict_proba": "``predict_proba`` (its ``pos_label`` column, by default the last of ``classes_``)",
    "predict": "``predict``",
}


def _signature(cls: type[Display], method: str, specs: Sequence[Spec], positional: int) -> inspect.Signature:
    """The signature of a display's constructor: the first ``positional`` parameters by position or
    keyword, the others by keyword, ``kwargs`` the catch-all.
    """
    P = inspect.Parameter
    params = [P("cls", P.POSITIONAL_OR_KEYWORD)]
    for i, spec in enumerate(specs):
        name = spec if isinstance(spec, str) else spec[0]
        arg = PARAMETERS.get(f"{method}.{name}") or PARAMETERS[name]
        default = arg.default if isinstance(spec, str) else spec[1]
        if name == "kwargs":
            params.append(P(name, P.VAR_KEYWORD, annotation=arg.annotation))
        else:
            kind = P.POSITIONAL_OR_KEYWORD if i < positional else P.KEYWORD_ONLY
            params.append(P(name, kind, default=default, annotation=arg.annotation))
    return inspect.Signature(params, return_annotation=cls.__name__)


def _docstring(cls: type[Display], method: str, sig: inspect.Signature) -> str:
    """A display's constructor's numpydoc docstring: the summary, the display's note, every parameter."""
    names = list(sig.parameters)[1:]
    summary = SUMMARIES[method].format(
        cls=cls, inputs=_INPUTS.get(names[1], ""), response=_RESPONSES[cls._response_method]
    )
    wrap = textwrap.TextWrapper(width=100, break_long_words=False, break_on_hyphens=False)
    lines = wrap.wrap(summary)
    if method in cls._notes:
        lines += ["", *wrap.wrap(cls._notes[method])]
    lines += ["", "Parameters", "----------"]
    indent = textwrap.TextWrapper(
        width=100,
        initial_indent="    ",
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    for name, p in list(sig.parameters.items())[1:]:
        arg = PARAMETERS.get(f"{method}.{name}") or PARAMETERS[name]
        if p.kind == p.VAR_KEYWORD:
            lines.append(f"**{name} : {arg.type}")
        elif p.default is _REQUIRED:
            lines.append(f"{name} : {arg.type}")
        else:
            lines.append(
                f"{name} : {arg.type}, {'optional' if p.default is None else f'default {p.default!r}'}"
            )
        lines += indent.wrap(cls._docs.get(f"{method}.{name}") or cls._docs.get(name) or arg.doc)
    drawn = " (perfeval's form, ``threshold=``: not yet drawn)" if "threshold" in sig.parameters else ""
    lines += ["", "Returns", "-------", f"{cls.__name__}", f"    The display, drawn{drawn}."]
    return "\n".join(lines) + "\n"


def _constructor(owner: type[Display], method: str, sig: inspect.Signature) -> classmethod:
    """``method`` of the base, shown as ``owner``'s: its signature and docstring (``help()``)."""

    def constructor(cls: type, *args: Any, **kwargs: Any) -> Any:
        return getattr(super(owner, cls), method)(*args, **kwargs)

    constructor.__name__ = method
    constructor.__qualname__ = f"{owner.__qualname__}.{method}"
    constructor.__module__ = owner.__module__
    constructor.__doc__ = _docstring(owner, method, sig)
    constructor.__signature__ = sig  # type: ignore[attr-defined]
    return classmethod(constructor)


D = TypeVar("D", bound="Display")


class Display:
    """The base of the displays drawn as scikit-learn draws them: their constructors
    ``from_predictions`` and ``from_estimator`` (and, on the curves of a binary classifier,
    ``from_cv_results``) are written once, here.

    A display says what its constructors need: their parameters (``_from_predictions``, and
    ``_from_cv_results`` where it has one: names of :data:`PARAMETERS`, or (name, default) where its
    default is its own), how it is made from one set of predictions (:meth:`_fields`; by default a
    binary classifier's :meth:`_curve`, named and with its positive label), and when perfeval's older
    form is asked for instead (:meth:`_perfeval_form`).  ``from_estimator`` takes the parameters of
    ``from_predictions`` but perfeval's own (``_predictions_only``), its predictions coming from the
    estimator as ``_response_method`` says.  The parameters ``from_predictions`` shares with the
    display's ``plot`` are passed on to it.  Each display class gets its own constructors, with their
    signatures and numpydoc docstrings, as ``help()`` shows them.
    """

    #: what the display draws ("ROC curve"), in its constructors' docstrings
    _what: ClassVar[str] = ""
    #: from_estimator's predictions: "auto" (the response_method parameter), "predict_proba" or "predict"
    _response_method: ClassVar[str] = "auto"
    #: from_predictions' parameters (the first two by position or keyword)
    _from_predictions: ClassVar[tuple[Spec, ...]] = ()
    #: those of from_predictions' parameters that from_estimator does not take (perfeval's own)
    _predictions_only: ClassVar[tuple[str, ...]] = ("threshold",)
    #: from_cv_results' keyword parameters (none: the display has no from_cv_results)
    _from_cv_results: ClassVar[tuple[Spec, ...]] = ()
    #: the constructor's keyword of the display's name
    _name_field: ClassVar[str] = "name"
    #: the constructors' docstrings: a note after the summary by method, a parameter's description by
    #: name (or ``method.name``) where the display's differs from :data:`PARAMETERS`
    _notes: ClassVar[dict[str, str]] = {}
    _docs: ClassVar[dict[str, str]] = {}
    #: made for each display: its constructors' signatures, and the parameters its plot takes
    _signatures: ClassVar[dict[str, inspect.Signature]] = {}
    _to_plot: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_from_predictions" not in cls.__dict__:
            return
        estimator: list[Spec] = ["estimator", "X", "y"]
        for spec in cls._from_predictions[2:]:
            name = spec if isinstance(spec, str) else spec[0]
            if name == "pos_label" and cls._response_method == "auto":
                estimator.append("response_method")
            if name not in cls._predictions_only:
                estimator.append(spec)
        methods: dict[str, tuple[Sequence[Spec], int]] = {
            "from_predictions": (cls._from_predictions, 2),
            "from_estimator": (estimator, 3),
        }
        if cls._from_cv_results:
            methods["from_cv_results"] = (("cv_results", "X", "y", *cls._from_cv_results), 3)
        cls._signatures = {}
        for method, (specs, positional) in methods.items():
            cls._signatures[method] = _signature(cls, method, specs, positional)
            setattr(cls, method, _constructor(cls, method, cls._signatures[method]))
        plot = inspect.signature(cls.plot).parameters.values()  # type: ignore[attr-defined]
        cls._to_plot = frozenset(p.name for p in plot if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))

    def _axes(self, ax: Any) -> Any:
        """The Axes to draw on (without one, a new figure's), kept with its figure (``ax_``,
        ``figure_``).
        """
        plt = pyplot()
        if ax is None:
            _fig, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        return ax

    @classmethod
    def _arguments(cls, method: str, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The arguments of a call of a constructor by name, every default filled in (a wrong call:
        Python's TypeError).
        """
        if method not in cls._signatures:
            raise TypeError(f"{cls.__name__} has no {method}")
        try:
            bound = cls._signatures[method].bind(cls, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{cls.__name__}.{method}() {e}") from None
        bound.apply_defaults()
        out = dict(bound.arguments)
        del out["cls"]
        return out

    @classmethod
    def from_predictions(cls: type[D], *args: Any, **kwargs: Any) -> D:
        """The display of one set of predictions, drawn: perfeval's older form where it is asked for,
        else the display made by :meth:`_fields`, then its ``plot`` given the parameters it takes.
        """
        a = cls._arguments("from_predictions", args, kwargs)
        y_true, y_score = (a.pop(name) for name in list(a)[:2])
        older = cls._perfeval_form(y_true, y_score, a)
        if older is not None:
            return older
        display: Any = cls(**cls._fields(y_true, y_score, a))
        return display.plot(**{k: v for k, v in a.items() if k in cls._to_plot}, **a.get("kwargs", {}))

    @classmethod
    def from_estimator(cls: type[D], *args: Any, **kwargs: Any) -> D:
        """The display of a fitted classifier's predictions on ``X``: its ``predict`` (of a classifier
        only), or its scores (``predict_proba``'s ``pos_label`` column or ``decision_function``) and,
        by default, its class name; then :meth:`from_predictions`.
        """
        a = cls._arguments("from_estimator", args, kwargs)
        estimator, X, y = a.pop("estimator"), a.pop("X"), a.pop("y")
        more = a.pop("kwargs", {})
        pyplot()
        if cls._response_method == "predict":
            if not is_classifier(estimator):
                raise InvalidParameterError(
                    f"{cls.__name__}.from_estimator only supports classifiers, got {type(estimator).__name__}"
                )
            return cls.from_predictions(y, estimator.predict(X), **a, **more)
        method = a.pop("response_method") if cls._response_method == "auto" else cls._response_method
        y_score, a["pos_label"] = response_of(estimator, X, method, a["pos_label"])
        if a["name"] is None:
            a["name"] = type(estimator).__name__
        return cls.from_predictions(y, y_score, **a, **more)

    @classmethod
    def _perfeval_form(cls, y_true: Any, y_score: Any, a: dict[str, Any]) -> Any:
        """The display of perfeval's older form where the arguments ask for it, else None."""
        return None

    @classmethod
    def _fields(cls, y_true: Any, y_score: Any, a: dict[str, Any]) -> dict[str, Any]:
        """The display's constructor arguments from one set of predictions and ``from_predictions``'
        other arguments: by default a binary classifier's curve (:meth:`_curve`), named
        (``"Classifier"`` by default) and with its positive label.
        """
        pos = binary_label(f"{cls.__name__}.from_predictions", y_true, a["pos_label"])
        curve = cls._curve(
            y_true,
            y_score,
            pos_label=pos,
            sample_weight=a["sample_weight"],
            drop_intermediate=a["drop_intermediate"],
        )
        return {**curve, cls._name_field: "Classifier" if a["name"] is None else a["name"], "pos_label": pos}

    @classmethod
    def _curve(cls, y_true: Any, y_score: Any, **kw: Any) -> dict[str, Any]:
        """The constructor's arrays of a binary classifier's curve, of one set of predictions (``kw``:
        ``pos_label``, ``sample_weight`` and ``drop_intermediate``, as :mod:`perfeval.functional`'s
        curves take them).
        """
        raise NotImplementedError
