"""Multilabel ranking measures, one value a row, and the per-label and micro binary problems.

A multilabel problem is ``Y`` of shape (n, K), the relevant labels of each row (any non-zero value
is relevant, as scikit-learn reads its label indicator matrix), and ``S`` of the same shape, a score
a row and label.  Three measures rank each row's labels by their scores and score the row:

- :func:`lrap_rows`, label ranking average precision;
- :func:`coverage_rows`, coverage error;
- :func:`ranking_loss_rows`, label ranking loss;

each as scikit-learn 1.9 defines it, ties and rows without (or with only) relevant labels included.
The measure over rows is the weighted mean ``sum_i w_i v_i / sum_i w_i`` of the row values ``v_i``:
:func:`row_sums` gives a chunk's two sums exactly (:class:`RowSums`, merged by ``+``), and
:func:`finish_mean` the mean, correctly rounded, so that chunks (a stream, Dask partitions) give the
same bits as all rows at once, in any order, and a row of weight 0 counts exactly as a dropped row.

The per-label measures read the K binary problems of :func:`label_problems` (label ``j``: targets
``Y[:, j]``, scores ``S[:, j]``) and the micro average the one problem of :func:`micro_problem` (all
n K cells).

The kernels take checked input (2-D, one shape, finite scores; :mod:`perfeval.functional.sklearn_multilabel`
checks it at its door): numpy only, each row's scores sorted once, O(n K log K), no loop over rows.

Examples
--------
>>> Y = np.array([[1, 0, 0], [0, 0, 1]])
>>> S = np.array([[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]])
>>> lrap_rows(Y, S).tolist()
[0.5, 0.3333333333333333]
>>> finish_mean(row_sums(lrap_rows(Y, S)))
0.41666666666666663
>>> coverage_rows(Y, S).tolist(), ranking_loss_rows(Y, S).tolist()
([2.0, 3.0], [0.5, 1.0])
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError

# the exact sums over rows are a summary (summaries/rowsums.py), kept importable from here
from perfeval.summaries.rowsums import RowSums, finish_mean, row_sums

__all__ = [
    "lrap_rows",
    "coverage_rows",
    "ranking_loss_rows",
    "RowSums",
    "row_sums",
    "finish_mean",
    "label_problems",
    "micro_problem",
]

Array = np.ndarray


# -- each row's labels by score ------------------------------------------------------------------------
def _ranked(y: Array, s: Array) -> tuple[Array, Array, Array]:
    """Each row's labels from the highest score down: whether each is relevant, and the positions
    of the first and of the last label of its tie (its run of equal scores) in that order.
    """
    n, k = s.shape
    order = np.argsort(s, axis=1, kind="stable")[:, ::-1]
    ss = np.take_along_axis(s, order, axis=1)
    rel = np.take_along_axis(y != 0, order, axis=1)
    pos = np.broadcast_to(np.arange(k, dtype=np.intp), (n, k))
    starts = np.ones((n, k), dtype=bool)  # a tie starts here (-0.0 and 0.0 are one tie)
    np.not_equal(ss[:, 1:], ss[:, :-1], out=starts[:, 1:])
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    ends = np.ones((n, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    last = np.minimum.accumulate(np.where(ends, pos, k - 1)[:, ::-1], axis=1)[:, ::-1]
    return rel, first, last


def lrap_rows(y: Array, s: Array) -> Array:
    """Label ranking average precision of each row.

    For a row with relevant labels R (``y != 0``), the mean over the relevant labels ``j`` of

        |{k in R : s_k >= s_j}| / |{k : s_k >= s_j}|,

    the precision of the row's ranking cut at label ``j``.

    Ties: a label counts every label of score equal to its own as ranked above it (the greater,
    pessimistic rank of the tie: scikit-learn's ``rankdata(-s, "max")``), in both counts.

    Edge cases: a row with no relevant label, or with every label relevant, is 1.0 (its ranking
    cannot be wrong), so with one label every row is 1.0.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero (True, 1) relevant, zero not.
    s : ndarray of shape (n, K)
        Scores, finite, any real dtype (integers are compared exactly).

    Returns
    -------
    ndarray of float64, shape (n,)
        One value a row, in (0, 1].

    Examples
    --------
    >>> lrap_rows(np.array([[1, 0, 1]]), np.array([[0.5, 0.5, 0.1]])).tolist()
    [0.5833333333333333]
    """
    n, k = s.shape
    rel, _, last = _ranked(y, s)
    above = np.take_along_axis(np.cumsum(rel, axis=1), last, axis=1)  # relevant labels at or above
    precision = above / (last + 1.0)  # over all labels at or above
    n_rel = np.count_nonzero(rel, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sum(np.where(rel, precision, 0.0), axis=1) / n_rel
    out[(n_rel == 0) | (n_rel == k)] = 1.0
    return out


def coverage_rows(y: Array, s: Array) -> Array:
    """Coverage error of each row: how many labels, from the highest score down, cover every
    relevant label, ``|{k : s_k >= min_{j in R} s_j}|``.

    Ties: every label tied with the lowest-scored relevant label counts (the greater rank of the
    tie), as scikit-learn counts.  This is 1 more than Tsoumakas et al.'s (2010) coverage.

    Edge cases: a row without a relevant label is 0 (scikit-learn's rule); a row with every label
    relevant is K.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero relevant.
    s : ndarray of shape (n, K)
        Scores, finite, any real dtype.

    Returns
    -------
    ndarray of float64, shape (n,)
        One value a row, a whole number in [0, K].

    Examples
    --------
    >>> coverage_rows(np.array([[1, 0, 1], [0, 0, 0]]), np.array([[0.5, 0.5, 0.1], [1, 2, 3]])).tolist()
    [3.0, 0.0]
    """
    rel = y != 0
    if s.shape[1] == 0:
        return np.zeros(len(s))
    top = s.max(axis=1, keepdims=True)  # in place of the irrelevant labels: no lower than the minimum
    lowest = np.where(rel, s, top).min(axis=1, keepdims=True)
    out = np.count_nonzero(s >= lowest, axis=1).astype(np.float64)
    out[~rel.any(axis=1)] = 0.0
    return out


def ranking_loss_rows(y: Array, s: Array) -> Array:
    """Label ranking loss of each row: the share of its (relevant, irrelevant) label pairs that are
    ordered wrong,

        |{(j, k) : j in R, k not in R, s_k >= s_j}| / (|R| (K - |R|)).

    Ties: a relevant and an irrelevant label of equal score are a wrong pair (a whole one, not a
    half), as scikit-learn counts.

    Edge cases: a row with no relevant label, or with every label relevant, has no pair and is 0.

    The count of wrong pairs is a whole number, and the share the division of two whole numbers,
    so every value has scikit-learn's bits.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero relevant.
    s : ndarray of shape (n, K)
        Scores, finite, any real dtype.

    Returns
    -------
    ndarray of float64, shape (n,)
        One value a row, in [0, 1].

    Examples
    --------
    >>> ranking_loss_rows(np.array([[1, 0, 1]]), np.array([[0.5, 0.5, 0.1]])).tolist()
    [1.0]
    """
    n, k = s.shape
    rel, first, _ = _ranked(y, s)
    strictly_above = np.take_along_axis(np.cumsum(rel, axis=1) - rel, first, axis=1)
    n_rel = np.count_nonzero(rel, axis=1)
    # each irrelevant label: the relevant labels at or below its score, n_rel - strictly above
    wrong = np.sum(np.where(rel, 0, n_rel[:, None] - strictly_above), axis=1).astype(np.float64)
    pairs = (n_rel * (k - n_rel)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = wrong / pairs
    out[(n_rel == 0) | (n_rel == k)] = 0.0
    return out


def roc_rows(y: Array, s: Array) -> Array:
    """The ROC area of each row over its labels (the row's relevant labels against the others, by
    their scores): the share of (relevant, other) pairs of the row ranked right, a tied pair half.
    NaN for a row with no relevant label or every label relevant (no pair), as scikit-learn's
    ``roc_auc_score(average="samples")`` refuses it.

    Examples
    --------
    >>> roc_rows(np.array([[1, 0, 1], [1, 1, 1]]), np.array([[0.5, 0.5, 0.1], [1, 2, 3]])).tolist()
    [0.25, nan]
    """
    n, k = s.shape
    rel, first, last = _ranked(y, s)
    p = np.count_nonzero(rel, axis=1).astype(np.float64)
    # each label's rank from the bottom, the mean of its tie's (whole or half numbers: exact)
    rank = k - (first + last) / 2.0
    u = np.sum(np.where(rel, rank, 0.0), axis=1) - p * (p + 1) / 2.0
    den = p * (k - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, u / np.where(den > 0, den, 1.0), np.nan)


def ap_rows(y: Array, s: Array) -> Array:
    """The average precision of each row over its labels (one threshold a tie: a label's precision
    counts every label of its score as above it, as scikit-learn's ``average_precision_score``
    cuts a tie); NaN for a row with no relevant label (no recall to reach).  A row with a relevant
    label is its :func:`lrap_rows` value.

    Examples
    --------
    >>> ap_rows(np.array([[1, 0, 1], [0, 0, 0]]), np.array([[0.5, 0.5, 0.1], [1, 2, 3]])).tolist()
    [0.5833333333333333, nan]
    """
    n_rel = np.count_nonzero(y, axis=1)
    out = lrap_rows(y, s)
    out[n_rel == 0] = np.nan
    return out


def _defined(rows: Any) -> Any:
    """The per-row kernels of a samples average whose row values may be NaN (0/0): the value where
    defined (0 elsewhere), and 1 where defined (0 elsewhere); their exact sums give the mean over
    the defined rows and the weight of the rows left out.
    """

    def values(y: Array, s: Array) -> Array:
        v = rows(y, s)
        return np.where(np.isnan(v), 0.0, v)

    def defined(y: Array, s: Array) -> Array:
        return (~np.isnan(rows(y, s))).astype(np.float64)

    return values, defined


_ROC_V, _ROC_OK = _defined(roc_rows)
_AP_V, _AP_OK = _defined(ap_rows)

#: the per-row kernels of ROC_ML and AP_ML ``average=samples``, by measure name
SAMPLES_RANKED = {
    "ROC_ML": {"roc_samples": _ROC_V, "roc_samples_defined": _ROC_OK},
    "AP_ML": {"ap_samples": _AP_V, "ap_samples_defined": _AP_OK},
}


# -- the binary problems of the per-label and micro averages ---------------------------------------------
def label_problems(y: Array, s: Array, w: Array | None = None) -> Iterator[tuple[Array, Array, Array | None]]:
    """The K binary problems of the per-label measures (macro, weighted, per label), one a label.

    Parameters
    ----------
    y : ndarray of shape (n, K)
        Relevant labels: non-zero relevant.
    s : ndarray of shape (n, K)
        Scores.
    w : ndarray of shape (n,), optional
        The rows' weights.

    Yields
    ------
    (targets, scores, weights)
        For label ``j`` in column order: ``y[:, j] != 0`` (bool), ``s[:, j]`` (float64), both
        contiguous, and ``w`` itself (the same array, or None, for every label).
    """
    for j in range(s.shape[1]):
        yield (
            np.ascontiguousarray(y[:, j] != 0),
            np.ascontiguousarray(s[:, j], dtype=np.float64),
            w,
        )


def micro_problem(y: Array, s: Array, w: Array | None = None) -> tuple[Array, Array, Array | None]:
    """The one binary problem of the micro average: all n K (row, label) cells.

    Returns
    -------
    (targets, scores, weights)
        ``y != 0`` and ``s`` (float64) flattened row by row (row 0's K cells first), and each row's
        weight repeated K times (None stays None).
    """
    k = s.shape[1]
    targets = (y != 0).reshape(-1)
    scores = np.ascontiguousarray(s, dtype=np.float64).reshape(-1)
    return targets, scores, None if w is None else np.repeat(np.asarray(w, dtype=np.float64), k)


# -- the multilabel measures of the registry, finished from a LabelSummary (summaries/labels.py) -----------
#: the per-row ranking measures a LabelSummary holds the exact sums of, by name
RANKED = {
    "lrap": lrap_rows,
    "coverage": coverage_rows,
    "ranking_loss": ranking_loss_rows,
    **{name: f for kernels in SAMPLES_RANKED.values() for name, f in kernels.items()},
}


def _finished(value: float, per_label: Array | None = None, why: str | None = None, note: str = "") -> Any:
    from perfeval.measures.multiclass import Finished

    return Finished(value, per_label, why, note=note)


def _mean(per: Array, support: Array, average: str) -> float:
    ok = ~np.isnan(per)
    if not ok.any():
        return math.nan
    if average == "weighted":
        w = support[ok]
        total = w.sum()
        return float((per[ok] * (w / total)).sum()) if total > 0 else math.nan
    return float(per[ok].mean())


def _samples(ls: Any, name: str) -> Any:
    """The mean over the rows of each row's value (``name``: ``roc`` or ``ap``), the rows where it is
    0/0 (one class only) left out and said; from the summary's exact sums.
    """
    from perfeval.summaries.rowsums import RowSums

    key = f"{name}_samples"
    if key not in ls.ranked:
        raise InvalidParameterError(
            f"this summary holds no per-row sums of {name.upper()}_ML:average=samples (build it with "
            "that measure asked)"
        )
    v, ok = ls.ranked[key], ls.ranked[key + "_defined"]
    left = ok.weight - ok.total  # the rows' weight where the row's value is 0/0, exact
    note = ""
    if left > 0:
        why = "no label on, or every label on" if name == "roc" else "no label on"
        note = (
            f"{finish_mean(RowSums(left, 1 << 1126)):g} of {finish_mean(RowSums(ok.weight, 1 << 1126)):g} "
            f"rows (by weight) are 0/0 ({why}) and are left out of the samples average"
            + (" (scikit-learn refuses such a row)" if name == "roc" else " (scikit-learn counts them as 0)")
        )
    if ok.total == 0:
        return _finished(math.nan, note=note)
    return _finished(finish_mean(RowSums(v.total, ok.total, ok.rows)), note=note)


def _per_label(ls: Any, name: str, average: str) -> Any:
    from perfeval.measures.base import REGISTRY

    if average == "samples":
        return _samples(ls, name.lower())

    fn = REGISTRY.get(name).function()

    def one(h: Any) -> float:
        v = fn(h)
        return math.nan if v is None else float(v)

    per = np.array([one(h) for h in ls.hists], dtype=np.float64)
    if average == "micro":
        return _finished(one(ls.micro()), per)
    support = np.array([h.n_pos for h in ls.hists], dtype=np.float64)
    return _finished(_mean(per, support, average), per)


def roc_labels(ls: Any, average: str = "macro") -> Any:
    """Each label's ROC area (its column's scores, the label on or off), averaged over the labels."""
    return _per_label(ls, "ROC", average)


def ap_labels(ls: Any, average: str = "macro") -> Any:
    """Each label's AP (one threshold a tie), averaged over the labels."""
    return _per_label(ls, "AP", average)


def _prf_labels(ls: Any, which: str, threshold: float, average: str, beta: float = 1.0) -> Any:
    b2 = beta * beta
    if average == "samples":
        tp, fp, fn, w = ls.row_counts(threshold)
        num, den = _prf_terms(which, tp, fp, fn, b2)
        ok = den > 0
        left = float(w[~ok].sum())
        note = ""
        if left > 0:
            why = {"precision": "nothing predicted on", "recall": "no label on"}.get(
                which, "no label on and none predicted"
            )
            note = (
                f"{left:g} of {float(w.sum()):g} rows (by weight) are 0/0 ({why}) and are left out of "
                "the samples average (scikit-learn counts them as zero_division, 0 by default)"
            )
        if not ok.any():
            return _finished(math.nan, note=note)
        v = num[ok] / den[ok]
        return _finished(float((v * w[ok]).sum() / w[ok].sum()), note=note)
    tp, fn, fp, _tn = ls.counts(threshold)
    num, den = _prf_terms(which, tp, fp, fn, b2)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    if average == "micro":
        n, d = float(num.sum()), float(den.sum())
        return _finished(n / d if d > 0 else math.nan, per)
    return _finished(_mean(per, tp + fn, average), per)


def _prf_terms(which: str, tp: Array, fp: Array, fn: Array, b2: float) -> tuple[Array, Array]:
    tp, fp, fn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn))
    if which == "precision":
        return tp, tp + fp
    if which == "recall":
        return tp, tp + fn
    if which == "jaccard":
        return tp, tp + fp + fn
    return (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp


def precision_labels(ls: Any, threshold: float = 0.5, average: str = "macro") -> Any:
    """Each label's precision with a score >= threshold predicted on, averaged (samples: per row)."""
    return _prf_labels(ls, "precision", threshold, average)


def recall_labels(ls: Any, threshold: float = 0.5, average: str = "macro") -> Any:
    """Each label's recall with a score >= threshold predicted on, averaged (samples: per row)."""
    return _prf_labels(ls, "recall", threshold, average)


def f_labels(ls: Any, threshold: float = 0.5, beta: float = 1.0, average: str = "macro") -> Any:
    """Each label's F-beta with a score >= threshold predicted on, averaged (samples: per row)."""
    return _prf_labels(ls, "f", threshold, average, beta)


def jaccard_labels(ls: Any, threshold: float = 0.5, average: str = "samples") -> Any:
    """Jaccard index tp / (tp + fp + fn) of the predicted and the true labels, averaged."""
    return _prf_labels(ls, "jaccard", threshold, average)


def hamming(ls: Any, threshold: float = 0.5) -> Any:
    """The share of the (row, label) cells predicted wrong (weighted by the rows' weights)."""
    tp, fn, fp, tn = ls.counts(threshold)
    total = float((tp + fn + fp + tn).sum())
    return _finished(float((fn + fp).sum()) / total if total > 0 else math.nan)


def subset_accuracy(ls: Any, threshold: float = 0.5) -> Any:
    """The share of the rows whose every label is predicted right (exact match)."""
    _tp, fp, fn, w = ls.row_counts(threshold)
    total = float(w.sum())
    return _finished(float(w[(fp == 0) & (fn == 0)].sum()) / total if total > 0 else math.nan)


def _row_mean(ls: Any, name: str) -> Any:
    return _finished(finish_mean(ls.ranked[name]))


def lrap(ls: Any) -> Any:
    """Label ranking average precision, the weighted mean of :func:`lrap_rows`."""
    return _row_mean(ls, "lrap")


def coverage(ls: Any) -> Any:
    """Coverage error, the weighted mean of :func:`coverage_rows`."""
    return _row_mean(ls, "coverage")


def ranking_loss(ls: Any) -> Any:
    """Label ranking loss, the weighted mean of :func:`ranking_loss_rows`."""
    return _row_mean(ls, "ranking_loss")
