"""What every display shares: user text shown as written (:func:`literal`), matplotlib imported
when a plot is drawn (:func:`pyplot`), matplotlib's style keywords (:func:`styled`), and what the
constructors of scikit-learn's displays read: a fitted classifier's response, the positive label,
the folds of ``cross_validate``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError, MissingDependencyError


def literal(text: Any) -> str:
    r"""A user's string shown as written: a ``$`` would start matplotlib's mathtext (``$x$``,
    ``a_b^c`` inside dollars, ``\alpha``), so each is escaped, and so is every control character
    (``\x1b`` shown as such, :func:`perfeval._text.shown`).
    """
    from perfeval._text import shown

    return shown(str(text)).replace("$", r"\$")


def pyplot():
    """matplotlib's ``pyplot``, imported when a plot is drawn (matplotlib is an optional dependency:
    without it, the install hint).
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
    from collections.abc import Mapping

    from perfeval._sklearn_names import class_labels
    from perfeval._validation import label_values, to_numpy

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
