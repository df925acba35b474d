"""scikit-learn's multilabel ranking measures under its names, signatures, results and errors.

``label_ranking_average_precision_score``, ``coverage_error`` and ``label_ranking_loss`` take a
label indicator matrix ``y_true`` (n_samples, n_labels) and scores ``y_score`` of the same shape,
and return the (weighted) mean over samples of a value a sample, each sample's labels ranked by its
scores with scikit-learn's tie rules (:mod:`perfeval.measures.multilabel`, which defines them).
scikit-learn is never imported.  Input is read as scikit-learn reads it: a non-zero ``y_true`` is
a relevant label; ``y_true`` must be what scikit-learn calls ``"multilabel-indicator"`` (at most
two distinct whole values in two or more columns; ``label_ranking_average_precision_score`` also
takes one column of at most two values), and the message of a refused ``y_true`` says what
scikit-learn says (``"multiclass-multioutput format is not supported"``,
``"y_true and y_score have different shape"``).  Where perfeval differs (docs/sklearn.md): weights
must be finite and >= 0; weights that are all 0 give NaN with a warning in
``label_ranking_average_precision_score`` (as scikit-learn, which warns through numpy) and are
refused by the other two (scikit-learn raises ZeroDivisionError); errors are one line of
:class:`~perfeval.exceptions.InvalidDataError`, a ``ValueError``.

Examples
--------
>>> y_true = [[1, 0, 0], [0, 0, 1]]
>>> y_score = [[0.75, 0.5, 1], [1, 0.2, 0.1]]
>>> label_ranking_average_precision_score(y_true, y_score)
0.41666666666666663
>>> coverage_error(y_true, y_score)
2.5
>>> label_ranking_loss(y_true, y_score)
0.75
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from perfeval.base.checks import as_array
from perfeval.exceptions import InvalidDataError, UndefinedMeasureWarning, user_stacklevel
from perfeval.functional.door import check_sample_weight, finite_numbers
from perfeval.measures.multilabel import (
    coverage_rows,
    finish_mean,
    lrap_rows,
    ranking_loss_rows,
    row_sums,
)

__all__ = ["label_ranking_average_precision_score", "coverage_error", "label_ranking_loss"]

Array = np.ndarray


def _is_sparse(x: Any) -> bool:
    """A scipy sparse matrix or array (duck-typed: scipy is not imported)."""
    return callable(getattr(x, "toarray", None)) and callable(getattr(x, "tocsr", None))


def _target_type(y: Array) -> str:
    """scikit-learn's ``type_of_target`` of a numeric 1-D or 2-D ``y``, in O(size): only whether
    it holds one, two or more distinct values matters, not which (no sort).
    """
    column = y.ndim == 1 or y.shape[1] == 1
    flat = y.reshape(-1)
    rest = flat[flat != flat[0]]
    few = rest.size == 0 or not (rest != rest[0]).any()  # at most two distinct values
    whole = y.dtype.kind in "biu" or bool(np.all(flat == np.floor(flat)))
    if not column:
        if few and whole:
            return "multilabel-indicator"
        return "continuous-multioutput" if not whole else "multiclass-multioutput"
    if not whole:
        return "continuous"
    return "binary" if few else "multiclass"


def _numbers(fn: str, arr: Array, name: str) -> Array:
    """``arr`` in its own numeric type (integers stay integers: scores beyond 2**53 keep their
    order), finite; object arrays through float64.  One line naming the row and column otherwise.
    """
    hint = " (y_true is a label indicator matrix of 0/1)" if name == "y_true" else ""
    return finite_numbers(fn, arr, name, values="values", hint=hint)


def _weights(fn: str, sample_weight: Any, n: int) -> Array | None:
    return check_sample_weight(fn, sample_weight, n, all_zero=True, cases="samples (rows)")


def _door(
    fn: str, y_true: Any, y_score: Any, *, sparse: bool, one_label: bool, two_d: bool
) -> tuple[Array, Array]:
    """scikit-learn's checks of the three functions, in their words where they name the problem:
    ``y_true`` a label indicator matrix (``sparse``: a scipy sparse one too; ``one_label``: one
    column of at most two values too), ``y_score`` finite numbers of the same shape (``two_d``:
    1-D input is refused as not 2-D, as scikit-learn's ``coverage_error`` refuses it, rather than
    as a 1-D target type).
    """
    if _is_sparse(y_true):
        if not sparse:
            raise InvalidDataError(
                f"{fn}: `y_true` is a sparse matrix; {fn} takes a dense array, as in scikit-learn "
                "(pass y_true.toarray())"
            )
        y_true = y_true.toarray()
    if _is_sparse(y_score):
        raise InvalidDataError(
            f"{fn}: `y_score` is a sparse matrix; scores must be a dense array (pass y_score.toarray())"
        )
    y, s = as_array(y_true, "y_true"), as_array(y_score, "y_score")
    for name, a in (("y_true", y), ("y_score", s)):
        if a.ndim not in (1, 2) or (a.ndim == 1 and two_d):
            raise InvalidDataError(
                f"{fn}: `{name}` must be 2-D, one row a sample and one column a label, got shape {a.shape}"
            )
        if a.shape[0] == 0:
            raise InvalidDataError(
                f"{fn}: `{name}` is empty (shape {a.shape}); at least one sample is needed"
            )
        if a.ndim == 2 and a.shape[1] == 0:
            raise InvalidDataError(
                f"{fn}: `{name}` has no column (shape {a.shape}); at least one label is needed"
            )
    y = _numbers(fn, y, "y_true")
    s = _numbers(fn, s, "y_score")
    if len(y) != len(s):
        raise InvalidDataError(
            f"{fn}: `y_true` and `y_score` have different numbers of samples (rows), {len(y)} and {len(s)}"
        )
    kind = _target_type(y)
    if not (kind == "multilabel-indicator" or (one_label and kind == "binary" and y.ndim == 2)):
        raise InvalidDataError(
            f"{fn}: {kind} format is not supported; y_true must be a label indicator matrix, one row a "
            f"sample and one column a label, 1 (or any non-zero value) where the label is relevant, got "
            f"shape {y.shape}"
        )
    if y.shape != s.shape:
        raise InvalidDataError(f"{fn}: y_true and y_score have different shape, {y.shape} and {s.shape}")
    return y, s


def _mean(rows: Callable[[Array, Array], Array], y: Array, s: Array, w: Array | None) -> float:
    return finish_mean(row_sums(rows(y, s), w))


def label_ranking_average_precision_score(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``label_ranking_average_precision_score`` (LRAP): the weighted mean over
    samples of each sample's label ranking average precision.

    For a sample with relevant labels R, the mean over ``j`` in R of the share of relevant labels
    among the labels of score >= ``s_j``; a label tied with ``j`` counts as ranked above it (the
    greater rank of the tie, scikit-learn's rule).  A sample with no relevant label, or with every
    label relevant, scores 1.  Weights that are all 0: NaN and an
    :class:`~perfeval.exceptions.UndefinedMeasureWarning` (scikit-learn: NaN and numpy's warning).

    Parameters
    ----------
    y_true : array-like or scipy sparse matrix of shape (n_samples, n_labels)
        Label indicator matrix: non-zero where the label is relevant.
    y_score : array-like of shape (n_samples, n_labels)
        Finite scores, the greater the more relevant.
    sample_weight : array-like of shape (n_samples,), optional
        Weights >= 0.

    Returns
    -------
    float
        In (0, 1], 1 the best.

    Examples
    --------
    >>> label_ranking_average_precision_score([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.41666666666666663
    """
    fn = "label_ranking_average_precision_score"
    y, s = _door(fn, y_true, y_score, sparse=True, one_label=True, two_d=False)
    w = _weights(fn, sample_weight, len(y))
    if w is not None and not w.any():
        warnings.warn(
            UndefinedMeasureWarning(
                f"{fn}: `sample_weight` is 0 for every sample, so the weighted mean is undefined: NaN "
                "(as scikit-learn returns)"
            ),
            stacklevel=user_stacklevel(),
        )
        return math.nan
    return _mean(lrap_rows, y, s, w)


def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``coverage_error``: the weighted mean over samples of how many labels, from the
    highest score down, it takes to cover every relevant label.

    Every label tied with the lowest-scored relevant label counts (the greater rank of the tie, as
    scikit-learn).  A sample with no relevant label counts 0; one with every label relevant counts
    ``n_labels``.  ``y_true`` must be dense (scikit-learn refuses sparse input here too).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Label indicator matrix: non-zero where the label is relevant; two labels or more.
    y_score : array-like of shape (n_samples, n_labels)
        Finite scores, the greater the more relevant.
    sample_weight : array-like of shape (n_samples,), optional
        Weights >= 0, not all 0.

    Returns
    -------
    float
        In [0, n_labels]; the best is the mean number of relevant labels.

    Examples
    --------
    >>> coverage_error([[1, 0, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 1]])
    1.5
    """
    fn = "coverage_error"
    y, s = _door(fn, y_true, y_score, sparse=False, one_label=False, two_d=True)
    w = _weights(fn, sample_weight, len(y))
    if w is not None and not w.any():
        raise InvalidDataError(
            f"{fn}: `sample_weight` is 0 for every sample; at least one weight must be non-zero "
            "(scikit-learn refuses this too)"
        )
    return _mean(coverage_rows, y, s, w)


def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """scikit-learn's ``label_ranking_loss``: the weighted mean over samples of the share of
    (relevant, irrelevant) label pairs ranked wrong.

    A pair is wrong when the irrelevant label's score is >= the relevant one's: a tie is a whole
    wrong pair, as scikit-learn counts.  A sample with no relevant label, or with every label
    relevant, has no pair and counts 0.

    Parameters
    ----------
    y_true : array-like or scipy sparse matrix of shape (n_samples, n_labels)
        Label indicator matrix: non-zero where the label is relevant; two labels or more.
    y_score : array-like of shape (n_samples, n_labels)
        Finite scores, the greater the more relevant.
    sample_weight : array-like of shape (n_samples,), optional
        Weights >= 0, not all 0.

    Returns
    -------
    float
        In [0, 1], 0 the best.

    Examples
    --------
    >>> label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    """
    fn = "label_ranking_loss"
    y, s = _door(fn, y_true, y_score, sparse=True, one_label=False, two_d=False)
    w = _weights(fn, sample_weight, len(y))
    if w is not None and not w.any():
        raise InvalidDataError(
            f"{fn}: `sample_weight` is 0 for every sample; at least one weight must be non-zero "
            "(scikit-learn refuses this too)"
        )
    return _mean(ranking_loss_rows, y, s, w)
