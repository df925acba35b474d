"""The door of scikit-learn's names: labels, scores and weights read and checked as scikit-learn reads
them, in one place for :mod:`perfeval.functional.sklearn_names` (binary and ranking names),
:mod:`perfeval.functional.sklearn_scores` (score-based names of K classes) and
:mod:`perfeval.functional.sklearn_labels` (label-based names).

This module imports none of them (they import it), so none needs a copy of these helpers.

Examples
--------
>>> class_labels("f1_score", np.array(["b", "a", "b"])).tolist()
['a', 'b']
>>> label_indices(np.array(["b", "c", "z"]), np.array(["c", "b"])).tolist()
[1, 0, 2]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from perfeval.base.checks import as_array, check_weights, floats, label_values, no_table, one_d, said
from perfeval.exceptions import InvalidDataError, UndefinedMeasureWarning, user_stacklevel

__all__ = [
    "warn_undefined",
    "shown",
    "class_labels",
    "check_sample_weight",
    "score_matrix",
    "finite_numbers",
    "label_indices",
]

Array = np.ndarray


def warn_undefined(message: str) -> None:
    """scikit-learn's ``UndefinedMetricWarning`` (perfeval's :class:`UndefinedMeasureWarning`), said
    at the caller's line.
    """
    warnings.warn(UndefinedMeasureWarning(message), stacklevel=user_stacklevel())


def shown(v: Any) -> str:
    """A value for a message, as written (``5``, ``'spam'``, ``nan``), not numpy's ``np.int64(5)``."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def class_labels(fn: str, y: Array, name: str = "y_true", continuous: str = "") -> Array:
    """The sorted distinct labels of ``y``; a data error for no case, NaN, continuous values
    (``continuous``: what to do then, after the message) or mixed types.
    """
    if len(y) == 0:
        raise InvalidDataError(f"{fn}: `{name}` is empty; at least one case is needed")
    if y.dtype.kind == "f":
        bad = np.isnan(y) | ~np.isfinite(y)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidDataError(
                f"{fn}: `{name}` holds {y[i].item()!r} at index {i}; labels must be finite"
            )
        frac = y != np.floor(y)
        if frac.any():
            i = int(np.argmax(frac))
            raise InvalidDataError(
                f"{fn}: `{name}` holds continuous values ({y[i].item()!r} at index {i}), not class labels"
                + continuous
            )
    try:
        return np.unique(y)
    except TypeError:
        raise InvalidDataError(
            f"{fn}: `{name}` mixes label types (strings and numbers): {label_values(y)}"
        ) from None


def check_sample_weight(
    fn: str, sample_weight: Any, n: int, *, all_zero: bool = False, cases: str = "cases"
) -> Array | None:
    """The weights, checked: one a case (``cases``: what the message calls them), finite, >= 0, and
    (unless ``all_zero``) not all 0, which scikit-learn refuses in every function that takes them
    except ``top_k_accuracy_score`` and the multilabel ranking names.
    """
    if sample_weight is None:
        return None
    no_table(f"{fn}()", sample_weight=sample_weight, where=fn)  # a column's name: these take the values
    w = one_d("sample_weight", sample_weight, where=fn)
    if len(w) != n:
        raise InvalidDataError(said(f"`sample_weight` has {len(w)} values for {n} {cases}", fn))
    check_weights(w, "sample_weight", where=fn)
    if not all_zero and not w.any():
        raise InvalidDataError(
            f"{fn}: `sample_weight` is 0 for every case; at least one weight must be non-zero "
            "(scikit-learn refuses this too)"
        )
    return w


def score_matrix(fn: str, y_score: Any) -> Array:
    """``y_score`` as scikit-learn's ``check_array`` leaves it: 1-D or 2-D, numbers in their own type
    (integers stay integers, so that scores beyond 2**53 are not merged into ties), finite.
    """
    arr = as_array(y_score, "y_score")
    if arr.ndim not in (1, 2):
        raise InvalidDataError(f"{fn}: `y_score` must be 1-D or 2-D, got shape {arr.shape}")
    return finite_numbers(fn, arr, "y_score")


def finite_numbers(fn: str, arr: Array, name: str, *, values: str = "scores", hint: str = "") -> Array:
    """``arr`` (1-D or 2-D) in its own numeric type, finite; object arrays through float64.  One line
    naming the index, or the row and column, otherwise (``values``: what the message calls them;
    ``hint``: said after a wrong type).
    """
    if arr.dtype.kind == "O":
        arr = floats(arr.reshape(-1), name, where=fn).reshape(arr.shape)
    if arr.dtype.kind not in "biuf":
        raise InvalidDataError(f"{fn}: `{name}` must hold numbers, got values of type {arr.dtype}{hint}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            at = np.unravel_index(int(np.argmax(bad)), arr.shape)
            where = f"row {at[0]}, column {at[1]}" if arr.ndim == 2 else f"index {at[0]}"
            raise InvalidDataError(
                f"{fn}: `{name}` holds {shown(arr[at])} at {where}; {values} must be finite"
            )
    return arr


def label_indices(values: Array, labels: Array) -> Array:
    """The position of each value in ``labels`` (in any order; ``len(labels)`` where a value is not
    one of them), as np.intp.
    """
    n = len(labels)
    try:
        order = np.argsort(labels, kind="stable")
        ordered = labels[order]
        at = np.minimum(np.searchsorted(ordered, values), max(n - 1, 0))
        hit = (ordered[at] == values) if n else np.zeros(len(values), dtype=bool)
        return np.where(hit, order[at] if n else 0, n).astype(np.intp)
    except TypeError:  # labels numpy cannot order (mixed objects): one by one
        index = {v.item() if hasattr(v, "item") else v: i for i, v in enumerate(labels)}
        return np.array([index.get(v, n) for v in values.tolist()], dtype=np.intp)
