"""DeLong's variance of the ROC area, its confidence interval, and the test comparing two ROC areas.

DeLong, DeLong & Clarke-Pearson (1988) write the ROC area as the mean of the *structural components*
of the cases: for a positive case with score x, V10 = the fraction of negatives scoring below x plus
half the fraction scoring exactly x; for a negative case with score y, V01 = the fraction of positives
scoring above y plus half the fraction scoring exactly y.  The area is the mean V10 (and the mean
V01); its variance is estimated by

    Var(A) = S10 / m + S01 / n,

with S10, S01 the sample variances (divisor m - 1, n - 1) of the V10 of the m positives and the V01
of the n negatives.  Ties get half credit, as in every ROC area of perfeval and in pROC.

Every structural component depends only on the case's score and class, so it is computed once per
distinct score from the exact summary (:class:`~perfeval.summaries.ScoreHistogram`): this is Sun &
Xu's O(n log n) algorithm (one sort), and it works from merged summaries of chunks or partitions as
well as from arrays.

Weights are *frequency weights*: a case of weight 2 counts as two cases (m and n above become the
total positive and negative weight), so integer weights give exactly the result of repeating rows.
The paired test needs, per case, the components of both scores, so it takes arrays.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import no_table, one_d
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.summaries import ScoreHistogram

__all__ = ["DeLongComparison", "DeLongResult", "delong", "delong_from_histogram", "delong_test"]


@dataclass(frozen=True)
class DeLongResult:
    """ROC area with DeLong's variance and a normal confidence interval (clipped to [0, 1], as pROC)."""

    auc: float
    variance: float
    se: float
    ci: tuple[float, float]
    level: float
    n_pos: float
    n_neg: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "auc": self.auc,
            "variance": self.variance,
            "se": self.se,
            "ci": list(self.ci),
            "level": self.level,
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
        }


@dataclass(frozen=True)
class DeLongComparison:
    """DeLong's test of two ROC areas: difference a - b, its standard error, z, two-sided p-value
    and a normal confidence interval of the difference.
    """

    auc_a: float
    auc_b: float
    difference: float
    se: float
    z: float
    p_value: float
    ci: tuple[float, float]
    level: float
    paired: bool
    correlation: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "auc_a": self.auc_a,
            "auc_b": self.auc_b,
            "difference": self.difference,
            "se": self.se,
            "z": self.z,
            "p_value": self.p_value,
            "ci": list(self.ci),
            "level": self.level,
            "paired": self.paired,
            "correlation": self.correlation,
        }


def _z(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(f"the confidence level must lie strictly between 0 and 1, got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def components(pos: np.ndarray, neg: np.ndarray):
    """Per distinct score: V10 (for the positives there) and V01 (for the negatives there), and the
    positive and negative totals m, n (the bootstrap's exact jackknife uses them).
    """
    m, n = float(pos.sum()), float(neg.sum())
    neg_below = np.cumsum(neg) - neg
    pos_above = m - np.cumsum(pos)
    v10 = (neg_below + 0.5 * neg) / n
    v01 = (pos_above + 0.5 * pos) / m
    return v10, v01, m, n


def _check_classes(m: float, n: float) -> None:
    if m <= 1.0 or n <= 1.0:
        raise InvalidDataError(
            f"DeLong's variance needs more than one positive and more than one negative "
            f"(weight), found {m:g} positive and {n:g} negative"
        )


def delong_from_histogram(h, level: float = 0.95) -> DeLongResult:
    """DeLong's variance and interval of the ROC area of an exact summary (merged chunks included)."""
    z = _z(level)
    auc, s10, s01, m, n = _native.delong_hist(
        np.ascontiguousarray(h.pos, np.float64), np.ascontiguousarray(h.neg, np.float64)
    )
    _check_classes(m, n)
    var = s10 / (m - 1.0) / m + s01 / (n - 1.0) / n
    se = math.sqrt(var)
    return DeLongResult(auc, var, se, (max(0.0, auc - z * se), min(1.0, auc + z * se)), level, m, n)


def delong(y_true: Any, y_score: Any, *, sample_weight: Any = None, level: float = 0.95) -> DeLongResult:
    """ROC area with DeLong's variance and a ``level`` confidence interval.

    Parameters
    ----------
    y_true : array-like of {0, 1}
    y_score : array-like of float
    sample_weight : array-like of float, optional
        Frequency weights (a weight of 2 counts as two cases).
    level : float, default 0.95
        Confidence level of the interval ``auc -+ z * se`` (clipped to [0, 1], as pROC's ``ci.auc``).

    Raises
    ------
    InvalidDataError
        Fewer than two positives or two negatives (the variance is undefined), bad targets, NaN scores.

    Examples
    --------
    >>> r = delong([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> round(r.auc, 4), round(r.se, 4)
    (0.8889, 0.1571)
    """
    no_table("delong()", y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    return delong_from_histogram(ScoreHistogram.from_arrays(y_true, y_score, sample_weight), level)


def case_components(is_pos: np.ndarray, s: np.ndarray, w: np.ndarray | None):
    """(auc, each case's structural component in case order: V10 for a positive, V01 for a negative,
    m, n).  One argsort orders the cases; a compiled walk over the tie groups writes the components
    (see ``_native.delong_rows``).
    """
    order = np.argsort(s).astype(np.int64, copy=False)
    auc, m, n, comp = _native.delong_rows(
        order,
        np.ascontiguousarray(s, np.float64),
        np.ascontiguousarray(is_pos).view(np.uint8),
        None if w is None else np.ascontiguousarray(w, np.float64),
    )
    return auc, np.frombuffer(comp, np.float64), m, n


def _row_components(t: np.ndarray, s: np.ndarray, w: np.ndarray | None):
    """(auc, V10 of each positive row, V01 of each negative row, m, n) for one score column."""
    if np.isnan(s).any():
        raise InvalidDataError(
            f"a score is NaN at index {int(np.argmax(np.isnan(s)))}; scores must be numbers"
        )
    is_pos = t == 1
    if not (is_pos | (t == 0)).all():
        raise InvalidDataError("`y_true` must hold only 0 and 1")
    auc, comp, m, n = case_components(is_pos, s, w)
    _check_classes(m, n)
    return auc, comp[is_pos], comp[~is_pos], m, n


def delong_test(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    sample_weight: Any = None,
    paired: bool = True,
    level: float = 0.95,
    y_true_b: Any = None,
    sample_weight_b: Any = None,
) -> DeLongComparison:
    """DeLong's test of the difference between two ROC areas.

    Paired (the default): the two scores are for the same cases (``y_true``, ``sample_weight``), and
    the covariance of the two areas enters the variance of the difference (DeLong et al. 1988).
    Unpaired: the two are independent samples (``y_true_b``, ``sample_weight_b`` for the second;
    ``score_b`` may then have another length) and the variances add.

    Returns
    -------
    DeLongComparison
        ``difference = auc_a - auc_b``, its standard error, ``z``, the two-sided ``p_value`` and a
        ``level`` confidence interval of the difference.

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.3, 0.7]
    >>> r = delong_test(y, a, [0.2, 0.1, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    >>> round(r.difference, 4), round(r.p_value, 3)
    (0.25, 0.317)
    """
    no_table(
        "delong_test()", y_true=y_true, score_a=score_a, score_b=score_b, sample_weight=sample_weight,
        y_true_b=y_true_b, sample_weight_b=sample_weight_b,
    )  # fmt: skip
    zq = _z(level)
    t = np.asarray(y_true)
    t = t.reshape(-1) if t.ndim == 2 and 1 in t.shape else t
    a = one_d("score_a", score_a)
    b = one_d("score_b", score_b)
    wa = None if sample_weight is None else one_d("sample_weight", sample_weight)
    if paired:
        if y_true_b is not None or sample_weight_b is not None:
            raise InvalidParameterError(
                "a paired test has one y_true and one sample_weight; "
                "y_true_b / sample_weight_b are for paired=False"
            )
        if len(a) != len(b):
            raise InvalidDataError(
                f"a paired test needs both scores for the same cases: score_a has "
                f"{len(a)} values, score_b {len(b)}"
            )
        if wa is not None and (len(wa) != len(a) or not np.all(np.isfinite(wa)) or (wa < 0).any()):
            raise InvalidDataError(f"`sample_weight` must be {len(a)} finite, non-negative numbers")
        if len(t) != len(a):
            raise InvalidDataError(f"`y_true` has {len(t)} values, the scores {len(a)}")

        with ThreadPoolExecutor(2) as pool:  # numpy sorts without the GIL: the two scores in parallel
            fa, fb = pool.submit(_row_components, t, a, wa), pool.submit(_row_components, t, b, wa)
            auc_a, x10, x01, m, n = fa.result()
            auc_b, y10, y01, _, _ = fb.result()
        pw = nw = None
        if wa is not None:
            tt = t == 1
            pw, nw = wa[tt], wa[~tt]

        def cov(u, v, mu, mv, weights, total):
            du, dv = u - mu, v - mv
            prod = du * dv if weights is None else weights * du * dv
            return float(prod.sum()) / (total - 1.0)

        var_a = cov(x10, x10, auc_a, auc_a, pw, m) / m + cov(x01, x01, auc_a, auc_a, nw, n) / n
        var_b = cov(y10, y10, auc_b, auc_b, pw, m) / m + cov(y01, y01, auc_b, auc_b, nw, n) / n
        cab = cov(x10, y10, auc_a, auc_b, pw, m) / m + cov(x01, y01, auc_a, auc_b, nw, n) / n
        var = var_a + var_b - 2.0 * cab
        corr = cab / math.sqrt(var_a * var_b) if var_a > 0 and var_b > 0 else math.nan
    else:
        ra = delong(t, a, sample_weight=wa, level=level)
        rb = delong(
            t if y_true_b is None else y_true_b,
            b,
            sample_weight=sample_weight_b if y_true_b is not None else wa,
            level=level,
        )
        auc_a, auc_b, var, corr = ra.auc, rb.auc, ra.variance + rb.variance, 0.0
    diff = auc_a - auc_b
    var = max(var, 0.0)  # rounding can leave -1e-19 when the two scores rank identically
    se = math.sqrt(var)
    if se > 0.0:
        zv = diff / se
        p = math.erfc(abs(zv) / math.sqrt(2.0))
    else:  # the same ranking: no difference, nothing to test
        zv, p = (0.0, 1.0) if diff == 0.0 else (math.copysign(math.inf, diff), 0.0)
    return DeLongComparison(
        auc_a, auc_b, diff, se, zv, p, (diff - zq * se, diff + zq * se), level, paired, corr
    )
