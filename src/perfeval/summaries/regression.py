"""The exact mergeable summary of the regression measures (:class:`RegressionSummary`).

Every regression measure is finished from a few sums over the rows (of ``w``, ``w y``, ``w y^2``,
``w r``, ``w r^2``, ``w |r|``, ... with ``r = y - prediction``, each row's residual rounded once, as
the row's own number).  Each sum is kept EXACTLY, as a whole number (the sum times ``2**1126``; every
float64 times ``2**1126`` is a whole number): the products are made exact by two-product splitting
(Dekker: ``a b = p + e`` with ``p`` and ``e`` float64), and the float64 terms summed as integers
(their mantissas, per exponent).  So:

- chunks, streams, Dask partitions and ``Metric`` updates merge (``a + b``) in any order with the
  SAME bits as all the rows at once, and a row of weight 0 counts exactly as a dropped row;
- R2's total sum of squares around the weighted mean, ``S_wyy - S_wy^2 / S_w``, is formed from the
  exact sums and rounded once: a target with a large mean and a small spread loses no digit (the
  textbook one-pass formula in floats loses them all).

The median absolute error needs the residuals' distribution: the sorted ``|r|`` with their weights,
kept only when asked for (``medae=True``), merged by a sorted union (canonical order: value, then
weight, so that any merge order gives the same array).  The Tweedie deviances are kept per power
asked (``powers``), each as the exact sum of the per-row deviance over the rows inside its domain
and the exact weight of the rows outside it (a measure with such rows is NaN, and says why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from perfeval import _native

__all__ = [
    "RegressionSummary",
    "exact_sum",
    "exact_sums",
    "scaled_sums",
    "exact_products",
    "deviance_rows",
    "ratio",
    "SHIFT",
]

Array = np.ndarray

#: every float64 is m 2**(e - 53), m a whole number below 2**53, e >= -1073 (np.frexp): times
#: 2**SHIFT every one is a whole number, and so is any sum of them
SHIFT = 1126
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter of a float64 into two 26-bit halves


def exact_sum(x: Array) -> int:
    """``sum(x) * 2**SHIFT`` exactly, a Python integer (``x``: finite float64, any shape).

    Each value is ``m 2**(e - 53)`` (``m`` its mantissa, a whole number below ``2**53``), so
    ``x 2**SHIFT`` is the whole number ``m 2**(e - 53 + SHIFT)``: the compiled kernel
    (csrc/exact.c) adds those into 32-bit limbs and carries once, so the sum does not depend on the
    order of ``x``.

    Raises
    ------
    OverflowError
        A value that is not finite.
    """
    return exact_products(x)


def _f64(x: Array) -> Array:
    """``x`` as a C-contiguous, aligned float64 array (the kernels' buffers; an array unpickled from
    another process may be unaligned, which numpy exports as another buffer format).
    """
    return np.require(x, dtype=np.float64, requirements=["C", "A"])


def exact_sums(bounds: Array | None, *factors: Array | None) -> list[int] | None:
    """Each group's ``sum_i prod_k factors[k][i] * 2**SHIFT`` (rows sorted by group, ``bounds`` the
    int64 offsets where each group starts, the end appended; None: one group), the products made
    exact by :func:`two_product` (csrc/exact.c: the same float64 terms); None when a term is beyond
    float64's range.
    """
    fs = [_f64(f).ravel() for f in factors if f is not None]
    b = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int64)
    return _native.exact_sums(b, *fs, *(None,) * (3 - len(fs)), 0)


def scaled_sums(bounds: Array | None, *factors: Array | None) -> tuple[list[int], int] | None:
    """:func:`exact_sums` as ``(sums, d)``: each group's exact sum is ``sums[g] * 2**d``, ``d`` the
    largest power of two the kernel proves divides every term (from the factors' smallest last bits;
    at least -1074): integers of a few words for data of a few magnitudes, not the ``2**SHIFT``
    scale, for a caller that divides sums by sums.
    """
    fs = [_f64(f).ravel() for f in factors if f is not None]
    b = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int64)
    got = _native.exact_sums(b, *fs, *(None,) * (3 - len(fs)), -1)
    if got is None:
        return None
    sums, drop = got
    return sums, drop - SHIFT


#: the sums :func:`row_sums` makes, in the compiled kernel's order
ROW_SUMS = ("sy", "syy", "sr", "srr", "sabs", "spos", "sape", "weight")
_TOO_BIG = {
    1: "a target minus its prediction is beyond the range of a 64-bit float",
    2: "a product of a target, a prediction and a weight is beyond the range of a 64-bit float",
}


def row_sums(
    bounds: Array | None,
    y: Array,
    yhat: Array,
    w: Array | None,
    keys: tuple[str, ...] = ROW_SUMS,
    *,
    scaled: bool = False,
) -> dict[str, tuple[list[int], int]]:
    """Each group's exact sums ``keys`` of :data:`ROW_SUMS` (``w y``, ``w y^2``, ``w r``, ``w r^2``,
    ``w |r|``, ``w max(r, 0)``, ``w |r| / max(|y|, eps)``, ``w``; ``r = y - yhat``; no weights: 1),
    in one compiled pass over the rows (csrc/exact.c, ``regression_sums``: the numbers
    :func:`exact_products` makes of the numpy columns, without them), as ``{key: (sums, d)}``: each
    group's sum is ``sums[g] * 2**d``; ``d`` is ``-SHIFT`` unless ``scaled``: then one ``d`` for
    every key, the largest power of two the kernel proves divides every term of every key (as
    :func:`scaled_sums` finds it), so that sums of one degree divide as they are.

    Raises
    ------
    OverflowError
        A difference, a ratio or a product beyond float64's range (the first check that fails, as
        the numpy form checks them: the differences first).
    """
    mask = sum(1 << ROW_SUMS.index(k) for k in keys)
    b = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int64)
    got = _native.regression_sums(
        b,
        _f64(y),
        _f64(yhat),
        None if w is None else _f64(w),
        mask,
        scaled,
    )
    if isinstance(got, int):
        raise OverflowError(_TOO_BIG[got])
    sums, drops = got
    return {k: (sums[ROW_SUMS.index(k)], drops[ROW_SUMS.index(k)] - SHIFT) for k in keys}


def _split(a: Array) -> tuple[Array, Array]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_product(a: Array, b: Array) -> tuple[Array, Array]:
    """``a b = p + e`` exactly (Dekker), ``p`` the rounded product (when nothing overflows or
    falls below float64's normal range): the terms :func:`exact_products` sums (csrc/exact.c
    computes the same ones, in the same float64 operations).
    """
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def exact_products(*factors: Array | None) -> int:
    """``sum_i prod_k factors[k][i] * 2**SHIFT`` exactly (one to three factors; a None factor is
    left out: no weights), a Python integer: ``a b`` summed as the two terms of
    :func:`two_product`, ``a b c`` as the four of ``two_product(a, b)`` each times ``c``.

    Raises
    ------
    OverflowError
        A product, or a factor's split, beyond float64's range.
    """
    got = exact_sums(None, *factors)
    if got is None:
        raise OverflowError(
            "a product of a target, a prediction and a weight is beyond the range of a 64-bit float"
        )
    return got[0]


def ratio(num: int, den: int) -> float:
    """``num / den`` correctly rounded (Python's int / int: one rounding of the exact quotient);
    NaN when ``den`` is 0, +-inf beyond float64's range.
    """
    if den == 0:
        return math.nan
    try:
        return num / den
    except OverflowError:
        return math.copysign(math.inf, num) * math.copysign(1.0, den)


def deviance_rows(y: Array, mu: Array, power: float) -> tuple[Array, Array]:
    """The unit Tweedie deviance of each row (scikit-learn's formula for ``power``) and whether the
    row is inside the deviance's domain (outside: the deviance there is 0, not counted).

    Domains: power < 0: mu > 0; power 0: any; 1 <= power < 2: y >= 0 and mu > 0; power >= 2: y > 0
    and mu > 0 (0 < power < 1 has no Tweedie distribution: refused by the parameter's check).
    """
    p = float(power)
    if p < 0:
        ok = mu > 0
    elif p == 0:
        ok = np.ones(len(y), dtype=bool)
    elif p < 2:
        ok = (y >= 0) & (mu > 0)
    else:
        ok = (y > 0) & (mu > 0)
    yy = np.where(ok, y, 1.0)
    mm = np.where(ok, mu, 1.0)
    with np.errstate(all="ignore"):
        if p == 0:
            dev = (yy - mm) ** 2
        elif p == 1:
            dev = 2 * (np.where(yy == 0, 0.0, yy * np.log(yy / mm)) - yy + mm)  # scipy's xlogy
        elif p == 2:
            dev = 2 * (np.log(mm / yy) + yy / mm - 1)
        else:
            y2 = np.maximum(yy, 0) if p < 0 else yy
            dev = 2 * (
                np.power(y2, 2 - p) / ((1 - p) * (2 - p))
                - yy * np.power(mm, 1 - p) / (1 - p)
                + np.power(mm, 2 - p) / (2 - p)
            )
    return np.where(ok, dev, 0.0), ok


@dataclass(frozen=True)
class RegressionSummary:
    """The exact sums of some rows of (target ``y``, prediction ``yhat``, weight ``w``), each sum
    times ``2**SHIFT`` (a Python integer: exact whatever the order or the grouping of the rows).

    Attributes
    ----------
    rows : int
        Rows summarized (weight 0 included).
    weight, sy, syy, sr, srr, sabs, spos, sape, zero_weight : int
        Sums of ``w``, ``w y``, ``w y^2``, ``w r``, ``w r^2``, ``w |r|``, ``w max(r, 0)``,
        ``w |r| / max(|y|, eps)`` (scikit-learn's MAPE term) and of ``w`` where ``y == 0``;
        ``zero_rows`` counts those rows (of weight > 0).
    powers : tuple of float
        The Tweedie powers kept; ``dev[k]`` is the sum of ``w d_p(y, yhat)`` over the rows inside
        the domain of ``powers[k]``, ``bad[k]`` the weight of the rows outside it, ``bad_rows[k]``
        their number.
    absres, absw : ndarray or None
        The sorted ``|r|`` of the rows of weight > 0 and their weights (None: unweighted), kept only
        for the median absolute error (``medae``).
    """

    rows: int = 0
    weight: int = 0
    sy: int = 0
    syy: int = 0
    sr: int = 0
    srr: int = 0
    sabs: int = 0
    spos: int = 0
    sape: int = 0
    zero_weight: int = 0
    zero_rows: int = 0
    powers: tuple[float, ...] = ()
    dev: tuple[int, ...] = ()
    bad: tuple[int, ...] = ()
    bad_rows: tuple[int, ...] = ()
    medae: bool = False
    weighted: bool = False
    absres: Array | None = field(default=None, compare=False, repr=False)
    absw: Array | None = field(default=None, compare=False, repr=False)

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def empty(cls, powers: tuple[float, ...] = (), medae: bool = False) -> RegressionSummary:
        """The summary of no rows, keeping the deviances of ``powers`` and (``medae``) the residuals."""
        powers = tuple(sorted({float(p) for p in powers}))
        z = (0,) * len(powers)
        return cls(
            powers=powers,
            dev=z,
            bad=z,
            bad_rows=z,
            medae=medae,
            absres=np.empty(0) if medae else None,
        )

    @classmethod
    def from_checked(
        cls,
        y: Array,
        yhat: Array,
        w: Array | None = None,
        *,
        powers: tuple[float, ...] = (),
        medae: bool = False,
    ) -> RegressionSummary:
        """The summary of checked rows (float64 targets and predictions, finite; weights >= 0 or
        None).  The rows' order does not matter: the sums are exact.

        Raises
        ------
        OverflowError
            A product of a target, a prediction and a weight beyond float64's range.
        """
        y = np.asarray(y, dtype=np.float64)
        yhat = np.asarray(yhat, dtype=np.float64)
        if w is not None:
            w = np.asarray(w, dtype=np.float64)
        n = len(y)
        out = cls.empty(powers, medae)
        try:
            sums = row_sums(None, y, yhat, w)  # the differences checked first, then the products
        except OverflowError as e:
            if str(e) != _TOO_BIG[2]:
                raise
            sums = None  # a deviance beyond the range is said first, as before
        dev, bad, bad_rows = [], [], []
        for p in out.powers:
            d, ok = deviance_rows(y, yhat, p)
            if not np.isfinite(d).all():
                raise OverflowError(f"a Tweedie deviance (power {p:g}) is beyond the range of a 64-bit float")
            dev.append(exact_products(d, w))
            out_w = ~ok if w is None else (~ok) & (w > 0)
            bad.append(int(out_w.sum()) << SHIFT if w is None else exact_sum(w[~ok]))
            bad_rows.append(int(out_w.sum()))
        if sums is None:
            raise OverflowError(_TOO_BIG[2])
        zero = y == 0
        absres = absw = None
        if medae:
            keep = slice(None) if w is None else w > 0
            absres = np.abs(y - yhat)[keep]
            absw = None if w is None else w[keep]
            absres, absw = _canonical(absres, absw)
        return replace(
            out,
            rows=n,
            weight=sums["weight"][0][0],
            sy=sums["sy"][0][0],
            syy=sums["syy"][0][0],
            sr=sums["sr"][0][0],
            srr=sums["srr"][0][0],
            sabs=sums["sabs"][0][0],
            spos=sums["spos"][0][0],
            sape=sums["sape"][0][0],
            zero_weight=(int(zero.sum()) << SHIFT) if w is None else exact_sum(w[zero]),
            zero_rows=int(zero.sum()) if w is None else int((zero & (w > 0)).sum()),
            dev=tuple(dev),
            bad=tuple(bad),
            bad_rows=tuple(bad_rows),
            weighted=w is not None,
            absres=absres,
            absw=absw,
        )

    def folded(self, y: Array, yhat: Array, w: Array | None = None) -> RegressionSummary:
        """The summary with the rows ``(y, yhat, w)`` added (a stream's chunk, a Metric's batch)."""
        return self + RegressionSummary.from_checked(y, yhat, w, powers=self.powers, medae=self.medae)

    # -- merging ----------------------------------------------------------------------------------
    def __add__(self, other: RegressionSummary) -> RegressionSummary:
        if self.powers != other.powers or self.medae != other.medae:
            raise ValueError("summaries of different regression measures cannot be merged")
        absres = absw = None
        if self.medae:
            weighted = self.weighted or other.weighted
            absres = np.concatenate([_values_of(self), _values_of(other)])
            absw = np.concatenate([_weights_of(self), _weights_of(other)]) if weighted else None
            absres, absw = _canonical(absres, absw)
        return RegressionSummary(
            rows=self.rows + other.rows,
            weight=self.weight + other.weight,
            sy=self.sy + other.sy,
            syy=self.syy + other.syy,
            sr=self.sr + other.sr,
            srr=self.srr + other.srr,
            sabs=self.sabs + other.sabs,
            spos=self.spos + other.spos,
            sape=self.sape + other.sape,
            zero_weight=self.zero_weight + other.zero_weight,
            zero_rows=self.zero_rows + other.zero_rows,
            powers=self.powers,
            dev=tuple(a + b for a, b in zip(self.dev, other.dev, strict=True)),
            bad=tuple(a + b for a, b in zip(self.bad, other.bad, strict=True)),
            bad_rows=tuple(a + b for a, b in zip(self.bad_rows, other.bad_rows, strict=True)),
            medae=self.medae,
            weighted=self.weighted or other.weighted,
            absres=absres,
            absw=absw,
        )

    @staticmethod
    def merge_all(parts: list[RegressionSummary]) -> RegressionSummary:
        """The summary of every part's rows (any order: the same bits)."""
        out = parts[0]
        for p in parts[1:]:
            out = out + p
        return out

    # -- reading ----------------------------------------------------------------------------------
    def mean(self, total: int) -> float:
        """``total / weight``, correctly rounded (a weighted mean of a row sum)."""
        return ratio(total, self.weight)

    def sst(self) -> tuple[int, int]:
        """R2's total sum of squares around the weighted mean of ``y``, exact, as a fraction
        ``(numerator, denominator)``: ``(S_w S_wyy - S_wy^2) / (S_w 2**SHIFT)``.
        """
        return self.weight * self.syy - self.sy * self.sy, self.weight << SHIFT

    def ssr_centered(self) -> tuple[int, int]:
        """The weighted sum of squares of the residuals around their mean, exact, as a fraction."""
        return self.weight * self.srr - self.sr * self.sr, self.weight << SHIFT

    def deviance(self, power: float) -> tuple[int, int, int]:
        """(sum of ``w d_p``, weight outside the domain, rows outside it) for a power kept."""
        k = self.powers.index(float(power))
        return self.dev[k], self.bad[k], self.bad_rows[k]

    def residuals(self) -> tuple[Array, Array | None]:
        """The sorted ``|r|`` of the rows of weight > 0 and their weights (None: unweighted)."""
        if self.absres is None:
            raise ValueError("this summary keeps no residuals (medae=False)")
        return self.absres, self.absw


def _values_of(s: RegressionSummary) -> Array:
    assert s.absres is not None
    return s.absres


def _weights_of(s: RegressionSummary) -> Array:
    assert s.absres is not None
    return s.absw if s.absw is not None else np.ones(len(s.absres))


def _canonical(v: Array, w: Array | None) -> tuple[Array, Array | None]:
    """The residuals sorted by (value, weight): one order whatever the order of the rows."""
    if w is None:
        return np.sort(v, kind="stable"), None
    order = np.lexsort((w, v))
    return v[order], w[order]


def weighted_median(v: Array, w: Array | None, *, eps: float = 0.0) -> float:
    """The median of sorted values ``v`` with weights ``w`` (None: all 1) by the averaged inverted
    CDF: the first value whose cumulative weight reaches half the total; when it reaches it exactly
    (within ``eps``: scikit-learn's ``_weighted_percentile(average=True)`` compares with float64's
    eps), the mean of it and the next value of positive weight.  Unweighted: numpy's median.  NaN
    with no value (or no weight).
    """
    if not len(v):
        return math.nan
    if w is None:
        return float(np.median(v))
    cdf = np.cumsum(w)
    total = cdf[-1]
    if total <= 0:
        return math.nan
    half = total / 2
    i = min(int(np.searchsorted(cdf, half)), len(v) - 1)
    if cdf[i] - half > eps:
        return float(v[i])
    j = int(np.searchsorted(cdf, cdf[i], side="right"))
    j = i if j > len(v) - 1 else j
    return float((v[i] + v[j]) / 2)
