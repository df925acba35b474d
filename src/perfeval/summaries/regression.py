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
weight, so that any merge order gives the same array).  The D^2 scores need the targets'
distribution the same way (``ydist=True``: the sorted ``y`` with their weights): their weighted
alpha-quantile (:func:`weighted_quantile`, scikit-learn's rule) or their weighted mean is the
constant prediction they compare the model with, and its loss is a sum over the rows known only
once every row is in.  The Tweedie deviances are kept per power
asked (``powers``), each as the exact sum of the per-row deviance over the rows inside its domain
and the exact weight of the rows outside it (a measure with such rows is NaN, and says why).  The
squared log error (``msle``) is kept the same way: the exact sum of ``w (log1p(y) - log1p(yhat))^2``
over the rows whose target and prediction are > -1, and the exact weight of the others; the
largest ``|r|`` of the rows of weight > 0 (``maxerr``) is kept as it is (a maximum merges in any
order with the same bits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from perfeval import _native
from perfeval.exceptions import InvalidDataError

__all__ = [
    "RegressionSummary",
    "exact_sum",
    "exact_sums",
    "scaled_sums",
    "exact_products",
    "checked_products",
    "lost_reason",
    "lost_why",
    "beyond_reason",
    "row_range_reason",
    "low_reason",
    "beyond_rows",
    "deviance_range_reason",
    "no_float",
    "BELOW",
    "mape_range_reason",
    "mape_tm_rows",
    "LostBits",
    "deviance_rows",
    "log_rows",
    "ratio",
    "row_means",
    "weighted_quantile",
    "grouped_quantiles",
    "SKLEARN_EPS",
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


def scaled_sums(
    bounds: Array | None, *factors: Array | None, lost: list[Array] | None = None
) -> tuple[list[int], int] | None:
    """:func:`exact_sums` as ``(sums, d)``: each group's exact sum is ``sums[g] * 2**d``, ``d`` the
    largest power of two the kernel proves divides every term (from the factors' smallest last bits;
    at least -1074): integers of a few words for data of a few magnitudes, not the ``2**SHIFT``
    scale, for a caller that divides sums by sums.  ``lost``: a list appended which groups had a
    product of some row lose bits below ``2**-1074`` (a boolean array, a group: those sums are not
    exact, :class:`LostBits`).
    """
    fs = [_f64(f).ravel() for f in factors if f is not None]
    b = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int64)
    got = _native.exact_sums(b, *fs, *(None,) * (3 - len(fs)), -1, 2)
    if got is None:
        return None
    sums, drop, flags = got
    if lost is not None:
        lost.append(np.frombuffer(flags, np.uint8).astype(bool))
    return sums, drop - SHIFT


def no_percentage(y: Array) -> Array:
    """The targets MAPE without a floor (``eps="none"``) has no percentage of: 0, and those below
    float64's eps in size, where the ``sape`` sums floor ``|y|`` at that eps (scikit-learn's), so
    that their quotient would not be ``|r| / |y|``.
    """
    return np.abs(y) < SKLEARN_EPS


def mape_tm_rows(y: Array, yhat: Array, w: Array | None = None) -> tuple[Array, Array | None]:
    """Each row's ``|r| / max(|y|, 1.17e-06)`` (MAPE:eps=torchmetrics's term), 0 where that is beyond
    float64's range (left out of its sum), and the rows (of weight > 0) where it is (a boolean a row;
    None: none): their MAPE is NaN with why (:func:`mape_range_reason`), no other measure concerned.
    """
    with np.errstate(over="ignore"):
        term = np.abs(y - yhat) / np.maximum(np.abs(y), TM_MAPE_EPS)
    big = ~np.isfinite(term)
    if not big.any():
        return term, None
    over = big if w is None else big & (w > 0)
    return np.where(big, 0.0, term), over if over.any() else None


def mape_range_reason(eps: str) -> str:
    """Why MAPE (``eps``: ``"none"``, ``"sklearn"``, ``"torchmetrics"``) is NaN when a row's ratio
    ``|r| / max(|y|, eps)`` is beyond float64's range (a target about 0 and a prediction of about
    1e300): the row's percentage error is no float64, so no mean of them is MAPE.
    """
    floor = "1.17e-06" if eps == "torchmetrics" else "2.2e-16"
    return (
        f"the ratio |r| / max(|y|, {floor}) of a row is beyond the range of a 64-bit float (about "
        "1.8e+308): that row's percentage error is no float64 (a target near 0 with a prediction far "
        "from it); MAPE does not change with the scale of the targets and the predictions"
    )


#: the measures whose value does not change when the targets and the predictions are scaled (MAPE:
#: but for its floor of ``|y|``)
_SCALE_FREE = ("R2", "EXPVAR", "D2_TWEEDIE", "D2_PINBALL", "D2_AE")


def lost_reason(name: str) -> str:
    """Why the measure ``name`` (its registry name) is NaN when a sum it reads lost bits
    (:class:`LostBits`): what is too small, and what to do; the reason said under the measure's
    label, as an undefined measure's (:attr:`perfeval.engine.report.MeasureResult.why`).
    """
    head = (
        "a product of targets, predictions and weights has bits below 2**-1074 (the smallest 64-bit "
        "float), so the exact sums cannot be formed"
    )
    if name in _SCALE_FREE:
        return head + (
            "; scale the targets and the predictions: R2 and the explained variance do not change with "
            "the scale (nor do the D^2 scores, nor any of them with the weights' scale)"
        )
    return head + (
        "; scale the targets and the predictions (and the value back), or the weights (a weighted mean "
        "does not change with their scale)"
    )


def lost_why(label: str, name: str | None = None) -> str:
    """The one line that refuses the measure ``label`` (its registry name ``name``: the label's
    when None) where no NaN can stand for it (a function of one value: scikit-learn's forms):
    ``label: ``:func:`lost_reason`.
    """
    return f"{label}: {lost_reason(label if name is None else name)}"


def _about(num: int, den: int, root: bool = False) -> str:
    """``num / den`` (or its square root: ``root``) in two digits, whatever its size (``den > 0``)."""
    lg = math.log10(abs(num)) - math.log10(den)  # math.log10 takes integers of any size
    lg = lg / 2 if root else lg
    e = math.floor(lg)
    m = round(10 ** (lg - e), 1)
    if m >= 10:
        m, e = 1.0, e + 1
    return f"{'-' if num < 0 else ''}{m:g}e{e:+d}"


def beyond_reason(what: str, num: int, den: int, *, root: bool = False, scale: bool = True) -> str:
    """Why a measure is NaN whose exact value ``num / den`` (``root``: its square root; ``den > 0``)
    is beyond float64's range: ``what`` it is, about how large, and what to do (``scale``: the value
    changes with the data's scale).  Its exact sums are kept whatever their size (csrc/exact.c,
    ``add_product``): only a value no float64 can hold is NaN, never one of a sum that overflowed.
    """
    head = f"{what} is about {_about(num, den, root)}, beyond the range of a 64-bit float (about 1.8e+308)"
    if scale:
        return head + "; scale the targets and the predictions (and the value back)"
    return head


def row_range_reason(what: str) -> str:
    """Why a measure is NaN when a row's own term ``what`` (a row's deviance, a rounded float64 of
    scikit-learn's formula) is beyond float64's range: the row's number is not a float64, so no sum
    of the rows' numbers is the measure's.
    """
    return (
        f"{what} of a row is beyond the range of a 64-bit float (the row's own number, as scikit-learn's "
        "formula rounds it, is no float64); scale the targets and the predictions"
    )


def _step_words(p: float) -> list[tuple[str, str]]:
    """The steps of scikit-learn's formula of the Tweedie deviance of power ``p`` (not 0), in the
    order it makes them: each as the row's step written out and what it is.
    """
    if p == 1:
        return [("y / mu", "the ratio of its target and prediction"), ("y log(y / mu)", "a product")]
    if p == 2:
        return [
            ("mu / y", "the ratio of its prediction and target"),
            ("y / mu", "the ratio of its target and prediction"),
        ]
    k12 = (1 - p) * (2 - p)
    return [
        (f"y^{2 - p:g}", "a power of its target"),
        (f"y^{2 - p:g} / {k12:g}", "a quotient"),
        (f"mu^{1 - p:g}", "a power of its prediction"),
        (f"y mu^{1 - p:g}", "a product of its target and a power of its prediction"),
        (f"y mu^{1 - p:g} / {1 - p:g}", "a quotient"),
        (f"mu^{2 - p:g}", "a power of its prediction"),
        (f"mu^{2 - p:g} / {2 - p:g}", "a quotient"),
    ]


def beyond_rows(y: Array, mu: Array, power: float, big: Array) -> list[tuple[str, Array]]:
    """The keys of :attr:`RegressionSummary.over` of the rows ``big`` (those whose deviance of
    ``power``, as :func:`deviance_rows` rounds it, is not finite, and not ``low``), each with its
    rows: ``"dev" + repr(power)``, all of them; ``"devstep" + repr(power) + ":" + step``, those whose
    row's deviance IS a float64 (each term of the formula, sized from the logs of the target and the
    prediction, below ``2**1020``: their sum, times 2, below ``2**1024``) while a step of its
    formula, ``step`` (:func:`_step_words`: the first not finite), is beyond the range (data about
    1e-200 of power 3: ``mu^-2`` about 1e400, the deviance about 1e200).  Power 0's one step, the
    square, is its deviance.  ``"devrow" + repr(power)``: the others (their deviance beyond the range,
    or not known to be inside it).
    """
    p = float(power)
    out = [(f"dev{p!r}", big)]
    if p == 0 or not big.any():
        return out
    ok = big  # rows inside the domain (outside it a deviance is 0: finite)
    yy, mm = np.where(ok, y, 1.0), np.where(ok, mu, 1.0)
    with np.errstate(all="ignore"):
        ly, lm = _log2(yy), _log2(mm)
        if p == 1:
            q = yy / mm
            steps = [q, np.where(yy == 0, 0.0, yy * np.log(q))]
            sizes = [ly + _log2(np.log(yy) - np.log(mm)), ly, lm]
        elif p == 2:
            steps = [mm / yy, yy / mm]
            sizes = [_log2(np.log(mm) - np.log(yy)), ly - lm, np.zeros(len(yy))]
        else:
            y2 = np.maximum(yy, 0) if p < 0 else yy
            k12 = (1 - p) * (2 - p)
            a, b, c = np.power(y2, 2 - p), np.power(mm, 1 - p), np.power(mm, 2 - p)
            steps = [a, a / k12, b, yy * b, yy * b / (1 - p), c, c / (2 - p)]
            la = (2 - p) * _log2(y2)
            sizes = [la - _log2(k12), ly + (1 - p) * lm - _log2(1 - p), (2 - p) * lm - _log2(2 - p)]
    left = ok & (np.maximum.reduce(sizes) < 1020)
    named = np.zeros(len(big), dtype=bool)
    for (words, _), step in zip(_step_words(p), steps, strict=True):
        first = left & ~named & ~np.isfinite(step)
        if first.any():
            out.append((f"devstep{p!r}:{words}", first))
            named |= first
    if (big & ~named).any():
        out.append((f"devrow{p!r}", big & ~named))
    return out


def deviance_range_reason(power: float, over: frozenset[str] | set[str], *, scale_free: bool = False) -> str:
    """Why a measure of the Tweedie deviance of ``power`` is NaN when a row's deviance, as
    scikit-learn's formula rounds it, is not finite (``"dev" + repr(power)`` in ``over``): the step
    of the formula that is beyond the range (:func:`beyond_rows`' ``"devstep"`` keys) when every such
    row's deviance is a float64, in :func:`low_reason`'s words; else :func:`row_range_reason`'s.
    """
    head = f"devstep{power!r}:"
    said = {k[len(head) :] for k in over if k.startswith(head)}
    if not said or f"devrow{power!r}" in over:
        return row_range_reason(f"the Tweedie deviance (power {power:g})")
    words, what = next((w, t) for w, t in _step_words(power) if w in said)
    text = (
        f"a step of a row's Tweedie deviance (power {power:g}: {words}, {what}) is beyond the range of a "
        "64-bit float (about 1.8e+308), though the row's deviance is not (scikit-learn's formula gives "
        "inf or NaN)"
    )
    if scale_free:
        return text + "; scale the targets and the predictions: D^2 does not change with their scale"
    return text + (
        f"; scale the targets and the predictions by c (to about 1) and divide the value by c**{2 - power:g}"
    )


#: the words of :func:`low_reason`, which the callers that refuse a number no float64 holds look for
BELOW = "below the normal range of a 64-bit float"


def low_reason(power: float, *, scale_free: bool = False) -> str:
    """Why a measure of the Tweedie deviance of ``power`` is NaN when a step of a row's formula lost
    its bits below float64's normal range (:func:`deviance_rows`' ``low``: data about 1e200 of power
    3, about 1e-200 of power -1): the row's number is not its deviance, and what to do (the deviance
    of power p scales by ``c**(2 - p)`` with the data; ``scale_free``: D^2 does not change).
    """
    what = {0.0: "the square (y - mu)^2", 1.0: "the ratio y / mu or y log(y / mu)"}.get(
        float(power), "a power, product or quotient of its target and prediction"
    )
    head = (
        f"a step of a row's Tweedie deviance (power {power:g}: {what}) is {BELOW} (2.2e-308) and "
        "lost bits the row's deviance needs (scikit-learn's "
        "formula gives a number below 0, or 0 for a target off its prediction)"
    )
    if scale_free:
        return head + "; scale the targets and the predictions: D^2 does not change with their scale"
    return head + (
        f"; scale the targets and the predictions by c (to about 1) and divide the value by c**{2 - power:g}"
    )


def no_float(why: str | None) -> bool:
    """Whether a measure's reason says it is NaN for a number no float64 holds: one beyond the range
    (:func:`beyond_reason`, :func:`row_range_reason`, :func:`mape_range_reason`) or a row's deviance
    whose steps lost bits below the normal range (:func:`low_reason`).
    """
    return bool(why) and ("beyond the range of a 64-bit float" in str(why) or BELOW in str(why))


class LostBits(InvalidDataError):
    """A sum the measure ``name`` reads is not exact: a product of a target, a prediction, a weight
    (or a row's term) has bits below ``2**-1074``, float64's last, so Dekker's two-product loses
    them (csrc/exact.c, ``tp_lost``).  The message is :func:`lost_why`'s line; the engines make the
    measure NaN with :func:`lost_reason` under its label instead (an undefined measure:
    :func:`perfeval.engine.regression.summary_values`), the other measures computed.
    """

    def __init__(self, name: str):
        super().__init__(lost_why(name))
        self.name = name


#: the sums :func:`row_sums` makes, in the compiled kernel's order
ROW_SUMS = ("sy", "syy", "sr", "srr", "sabs", "spos", "sape", "weight")
#: the fractions :func:`row_means` finishes in the compiled pass, in the kernel's order
_FRACTIONS = ("R2", "EXPVAR")
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
    lost: set[str] | None = None,
    lost_groups: dict[str, Array] | None = None,
    over: set[str] | None = None,
    over_groups: dict[str, Array] | None = None,
) -> dict[str, tuple[list[int], int]]:
    """Each group's exact sums ``keys`` of :data:`ROW_SUMS` (``w y``, ``w y^2``, ``w r``, ``w r^2``,
    ``w |r|``, ``w max(r, 0)``, ``w |r| / max(|y|, eps)``, ``w``; ``r = y - yhat``; no weights: 1),
    in one compiled pass over the rows (csrc/exact.c, ``regression_sums``: the numbers
    :func:`exact_products` makes of the numpy columns, without them), as ``{key: (sums, d)}``: each
    group's sum is ``sums[g] * 2**d``; ``d`` is ``-SHIFT`` unless ``scaled``: then one ``d`` for
    every key, the largest power of two the kernel proves divides every term of every key (as
    :func:`scaled_sums` finds it), so that sums of one degree divide as they are.  ``lost``: a set
    given the keys of the sums a product of which lost bits below ``2**-1074`` (:class:`LostBits`);
    ``lost_groups``: a dict given, for each such key, which groups lost them (a boolean a group, or'ed
    into what it holds already).  ``over`` and ``over_groups``: the same of ``"sape"`` when a row's
    ratio ``|r| / max(|y|, eps)`` (of weight > 0) is beyond float64's range: left out of that sum (its
    measures, MAPE, are NaN: :meth:`RegressionSummary.in_range`), no other sum concerned.

    Raises
    ------
    OverflowError
        A difference or a product beyond float64's range (the first check that fails, as the numpy
        form checks them: the differences first).
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
    sums, drops, bits, glost = got
    _said_lost(bits, glost, lost, lost_groups, over, over_groups)
    return {k: (sums[ROW_SUMS.index(k)], drops[ROW_SUMS.index(k)] - SHIFT) for k in keys}


#: the bit of ``regression_sums``' lost bits that says a row's ratio of MAPE is beyond float64's range
_SAPE_OVER = 1 << len(ROW_SUMS)


def _said_lost(
    bits: int,
    glost: bytes,
    lost: set[str] | None,
    lost_groups: dict[str, Array] | None,
    over: set[str] | None = None,
    over_groups: dict[str, Array] | None = None,
) -> None:
    """The lost bits ``regression_sums`` said (``bits``: of any group, a bit a sum of :data:`ROW_SUMS`;
    ``glost``: each group's, int32) added to ``lost`` (the keys) and ``lost_groups`` (each key's groups);
    its bit :data:`_SAPE_OVER` (a row's ratio of MAPE beyond float64's range, left out of ``"sape"``)
    to ``over`` and ``over_groups`` as ``"sape"``.
    """
    if bits & _SAPE_OVER:
        if over is not None:
            over.add("sape")
        if over_groups is not None:
            mine = (np.frombuffer(glost, np.int32) & _SAPE_OVER).astype(bool)
            had = over_groups.get("sape")
            over_groups["sape"] = mine if had is None else had | mine
        bits &= ~_SAPE_OVER
    if not bits:
        return
    keys = [(i, k) for i, k in enumerate(ROW_SUMS) if bits >> i & 1]
    if lost is not None:
        lost.update(k for _, k in keys)
    if lost_groups is not None:
        each = np.frombuffer(glost, np.int32)
        for i, k in keys:
            had = lost_groups.get(k)
            mine = (each >> i & 1).astype(bool)
            lost_groups[k] = mine if had is None else had | mine


def row_means(
    bounds: Array | None,
    y: Array,
    yhat: Array,
    w: Array | None,
    means: tuple[str, ...],
    keys: tuple[str, ...] = (),
    *,
    order: Array | None = None,
    fractions: tuple[str, ...] = (),
    lost: set[str] | None = None,
    lost_groups: dict[str, Array] | None = None,
    over: set[str] | None = None,
    over_groups: dict[str, Array] | None = None,
) -> tuple[dict[str, Array], dict[str, tuple[list[int], int]]]:
    """Each group's exact sums ``means`` (of :data:`ROW_SUMS`) divided by its weights' (no weights:
    its rows'), each quotient correctly rounded in the compiled pass (``regression_sums``: the bits of
    :func:`ratio` of the two integers, NaN where the weights' sum is 0), as ``{key: float64 array}``;
    and in the same pass the sums ``keys`` as :func:`row_sums` gives them with ``scaled=True`` (one
    ``d`` for every key of ``keys``).  ``order``: the rows' order (int64 row numbers, a permutation:
    the groups' rows are ``y[order]``, ...), read through it without gathering the columns.
    ``fractions``: ``"R2"`` and/or ``"EXPVAR"``, each group's ``(S - srr W) / S`` and ``(S - (W srr -
    sr^2)) / S`` with ``S = W syy - sy^2``, from the exact sums, rounded once (NaN where ``S`` is 0),
    in the quotients under those names.  ``lost``, ``lost_groups``, ``over`` and ``over_groups``: as
    :func:`row_sums` (every sum the pass made, those of the quotients and the fractions too).

    Raises
    ------
    OverflowError
        As :func:`row_sums`.
    """
    mask = sum(1 << ROW_SUMS.index(k) for k in keys)
    asked = sum(1 << ROW_SUMS.index(k) for k in means)
    b = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int64)
    o = None if order is None else np.ascontiguousarray(order, dtype=np.int64)
    wf = None if w is None else _f64(w)
    fracs = sum(1 << _FRACTIONS.index(f) for f in fractions)
    got = _native.regression_sums(b, _f64(y), _f64(yhat), wf, mask, True, asked, o, fracs)
    if isinstance(got, int):
        raise OverflowError(_TOO_BIG[got])
    sums, drops, quotients, bits, glost = got
    _said_lost(bits, glost, lost, lost_groups, over, over_groups)
    out = {k: np.frombuffer(quotients[ROW_SUMS.index(k)], np.float64) for k in means}
    for f in fractions:
        out[f] = np.frombuffer(quotients[len(ROW_SUMS) + _FRACTIONS.index(f)], np.float64)
    return out, {k: (sums[ROW_SUMS.index(k)], drops[ROW_SUMS.index(k)] - SHIFT) for k in keys}


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


def checked_products(*factors: Array | None) -> tuple[int, bool]:
    """:func:`exact_products`, and whether a product of some row lost bits below ``2**-1074`` (then
    the integer is not the exact sum: :class:`LostBits`).

    Raises
    ------
    OverflowError
        As :func:`exact_products`.
    """
    fs = [_f64(f).ravel() for f in factors if f is not None]
    got = _native.exact_sums(None, *fs, *(None,) * (3 - len(fs)), 0, 1)
    if got is None:
        raise OverflowError(
            "a product of a target, a prediction and a weight is beyond the range of a 64-bit float"
        )
    sums, lost = got
    return sums[0], lost


def ratio(num: int, den: int) -> float:
    """``num / den`` correctly rounded (Python's int / int: one rounding of the exact quotient);
    NaN when ``den`` is 0, +-inf beyond float64's range (its sign by comparison: ``math.copysign``
    of an integer beyond float64's range would overflow itself).
    """
    if den == 0:
        return math.nan
    try:
        return num / den
    except OverflowError:
        return math.inf if (num > 0) == (den > 0) else -math.inf


#: float64's smallest normal number, 2**-1022: below it a float64 keeps fewer than 53 bits
NORMAL_MIN = float(np.finfo(np.float64).tiny)


def _below(x: Array, nonzero: Array | bool) -> Array:
    """Where ``x``, a rounded step of a row's deviance, is below float64's normal range (subnormal or
    0) while its exact value is not 0 (``nonzero``): there it kept fewer bits than a float64 has.
    """
    return (np.abs(x) < NORMAL_MIN) & nonzero


def _log2(x: Array | float) -> Array:
    """``log2 |x|`` (-inf at 0), without numpy's warning."""
    with np.errstate(divide="ignore"):
        return np.log2(np.abs(x))


def _matters(steps: list[tuple[Array, Array, Array]], terms: list[Array]) -> Array:
    """Which rows a step below float64's normal range moves by more than the formula's own rounding.

    ``steps``: each step of the formula as ``(below, size, after)``: where the step is below the
    normal range with its exact value not 0 (:func:`_below`), ``log2`` of its exact size (from the
    logs of its inputs), and ``log2`` of what the formula multiplies the step by after it (``y /
    (1-p)`` for ``mu^(1-p)``, ...).  Such a step lost at most ``2**-1074`` (its last bit), and at
    most its own size (flushed to 0): ``min(-1074, size + 1)`` in ``log2`` (a bit to spare for the
    logs' rounding).  ``terms``: the formula's terms (its value ``2 (t1 - t2 + t3)``).  A row moves
    when twice the sum of its steps' losses (each at most the largest: ``+ 3``, up to 8 steps) is
    more than ``2**-53`` of its largest term, ``2 max |t|`` (all in ``log2``: nothing underflows).
    """
    n = len(terms[0])
    worst = np.full(n, -np.inf)
    for below, size, after in steps:
        if below.any():
            lost = np.minimum(-1074.0, size + 1) + after
            worst = np.maximum(worst, np.where(below, lost, -np.inf))
    big = _log2(np.maximum.reduce([np.abs(t) for t in terms])) + 1
    return worst + 1 + 3 > big - 53


def _no_low(n: int) -> Array:
    return np.zeros(n, dtype=bool)


def _extent(x: Array, signed: bool = False) -> tuple[float, float] | None:
    """``log2`` of the smallest and of the largest ``|x|`` other than 0 (None: every ``x`` is 0);
    ``x >= 0`` unless ``signed``.
    """
    a = np.abs(x) if signed else x
    hi = float(a.max(initial=0.0))
    if hi == 0:
        return None
    lo = float(a.min())
    if lo == 0:
        lo = float(np.min(a, initial=np.inf, where=a > 0))
    return math.log2(lo), math.log2(hi)


def _safe(p: float, y2: Array, yy: Array, mm: Array) -> bool:
    """Whether no step of the general formula (power ``p``, not 0, 1 or 2) can be below float64's
    normal range on these rows: each step's smallest size, bounded from the smallest and the largest
    target and prediction (a power is monotone in its base), ``2**-1021`` or more (a bit to spare).
    Ordinary data take this one pass over the extremes, not the rule's every row.
    """
    em = _extent(mm)  # the predictions inside the domain are > 0 (1 outside it)
    if em is None:
        return True  # no row
    bounds = []
    lb, lc = min((1 - p) * em[0], (1 - p) * em[1]), min((2 - p) * em[0], (2 - p) * em[1])
    bounds += [lb, lc, lc - math.log2(abs(2 - p))]
    ey = _extent(y2)
    if ey is not None:
        la = min((2 - p) * ey[0], (2 - p) * ey[1])
        bounds += [la, la - math.log2(abs((1 - p) * (2 - p)))]
    ly = _extent(yy, signed=True) if p < 0 else ey
    if ly is not None:
        bounds += [ly[0] + lb, ly[0] + lb - math.log2(abs(1 - p))]
    return min(bounds) >= -1021


def _power_low(p: float, y2: Array, yy: Array, mm: Array, dev: Array) -> Array:
    """:func:`deviance_rows`' ``low`` of the general formula, row by row (its steps made again, the
    same operations: the bits of ``dev``'s).
    """
    a, b, c = np.power(y2, 2 - p), np.power(mm, 1 - p), np.power(mm, 2 - p)
    yb = yy * b
    t1, t2, t3 = a / ((1 - p) * (2 - p)), yb / (1 - p), c / (2 - p)
    ny, nb = y2 != 0, yy != 0
    below = [_below(a, ny), _below(t1, ny), _below(b, True), _below(yb, nb), _below(t2, nb)]
    below += [_below(c, True), _below(t3, True)]
    if not any(m.any() for m in below):
        return _no_low(len(dev))
    la, lb, lc = (2 - p) * _log2(y2), (1 - p) * _log2(mm), (2 - p) * _log2(mm)
    k12, k1, k2 = _log2((1 - p) * (2 - p)), _log2(1 - p), _log2(2 - p)
    ly, zero = _log2(yy), np.zeros(len(dev))
    return np.isfinite(dev) & _matters(
        [
            (below[0], la, zero - k12),
            (below[1], la - k12, zero),
            (below[2], lb, ly - k1),
            (below[3], ly + lb, zero - k1),
            (below[4], ly + lb - k1, zero),
            (below[5], lc, zero - k2),
            (below[6], lc - k2, zero),
        ],
        [t1, t2, t3],
    )


def _poisson_low(yy: Array, mm: Array, dev: Array) -> Array:
    """:func:`deviance_rows`' ``low`` of power 1 (``q = y / mu``, ``xl = y log q``): a ratio rounded
    to 0 (its log -inf), or a step below the normal range whose loss reaches the row.  No row can be
    when the smallest ratio is ``2**-1021`` or more and the smallest target other than 0 is
    ``2**-960`` or more (``|log q| >= 2**-54`` where ``q != 1``): one pass over the extremes.
    """
    ey, em = _extent(yy), _extent(mm)
    if ey is None or (em is not None and ey[0] - em[1] >= -1021 and ey[0] >= -960):
        return _no_low(len(dev))
    q = yy / mm
    xl = np.where(yy == 0, 0.0, yy * np.log(q))
    low = (q == 0) & (yy != 0)
    bq, bx = _below(q, yy != 0) & (q != 0), _below(xl, (yy != 0) & (q != 1))
    if bq.any() or bx.any():
        ly = _log2(yy)
        steps = [
            # a ratio below the range moves its log by at most 2**-1075 / q, times y after
            (bq, np.full(len(q), -1075.0), ly - _log2(q)),
            (bx, ly + _log2(np.log(q)), np.zeros(len(q))),
        ]
        low |= np.isfinite(dev) & _matters(steps, [xl, yy, mm])
    return low


def deviance_rows(y: Array, mu: Array, power: float) -> tuple[Array, Array, Array]:
    """The unit Tweedie deviance of each row (scikit-learn's formula for ``power``, its bits), whether
    the row is inside the deviance's domain (outside: the deviance there is 0, not counted), and
    whether a step of the row's formula lost its bits below float64's normal range (``low``).

    Domains: power < 0: mu > 0; power 0: any; 1 <= power < 2: y >= 0 and mu > 0; power >= 2: y > 0
    and mu > 0 (0 < power < 1 has no Tweedie distribution: refused by the parameter's check).

    ``low``, the rule: a step of the formula (a power ``y^(2-p)``, ``mu^(1-p)``, ``mu^(2-p)``, the
    product ``y mu^(1-p)``, a quotient by ``1-p``, ``2-p`` or their product; power 1: the ratio
    ``y / mu`` and ``y log(y / mu)``; power 0: the square ``(y - mu)^2``) rounds below ``2**-1022``
    (subnormal or 0) while its exact value is not 0, and the bits it can lose (at most ``2**-1074``,
    and at most its own size, times what the formula multiplies it by after: ``2 y / (1-p)`` for
    ``mu^(1-p)``) are more than ``2**-53`` of the row's largest term, ``2 max |term|``
    (:func:`_matters`): the row's number is then not its deviance to the formula's own rounding
    (data about 1e200 of power 3 gave a deviance below 0, about 1e-200 of power -1 exactly 0, as
    scikit-learn's ``mean_tweedie_deviance`` does).  Power 0: a square below the normal range (its
    term is itself).  Power 1: also ``y / mu`` rounded to 0 (``y > 0``: its log is -inf where the
    deviance is about ``2 mu``).  An underflow whose loss is below that changes nothing (a term of
    1e-600 beside one of about 1): not ``low``.  A deviance that is not finite is not ``low`` (its
    formula is beyond the range: the caller says so).  Power 2 never is (its terms, ``log(mu / y)``,
    ``y / mu`` and 1, lose at most ``2**-1074`` beside a term >= 1).  Data of ordinary size have no
    such step: their bits are the formula's, whatever this rule says.
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
            low = _no_low(len(dev))
            if not float(dev.min(initial=np.inf)) >= NORMAL_MIN:
                low = _below(dev, yy != mm)  # the row's one term is the square itself
        elif p == 1:
            dev = 2 * (np.where(yy == 0, 0.0, yy * np.log(yy / mm)) - yy + mm)  # scipy's xlogy
            low = _poisson_low(yy, mm, dev)
        elif p == 2:
            dev = 2 * (np.log(mm / yy) + yy / mm - 1)
            low = _no_low(len(dev))
        else:
            y2 = np.maximum(yy, 0) if p < 0 else yy
            dev = 2 * (
                np.power(y2, 2 - p) / ((1 - p) * (2 - p))
                - yy * np.power(mm, 1 - p) / (1 - p)
                + np.power(mm, 2 - p) / (2 - p)
            )
            low = _no_low(len(dev)) if _safe(p, y2, yy, mm) else _power_low(p, y2, yy, mm, dev)
    return np.where(ok, dev, 0.0), ok, low & ok


def log_rows(y: Array, yhat: Array) -> tuple[Array, Array]:
    """Each row's ``log1p(y) - log1p(yhat)`` (numpy's log1p, as scikit-learn's
    ``mean_squared_log_error`` takes it; 0 outside the domain) and whether the row is inside the
    domain (target and prediction > -1, where log1p is a number).
    """
    ok = (y > -1) & (yhat > -1)
    with np.errstate(all="ignore"):
        d = np.log1p(np.where(ok, y, 0.0)) - np.log1p(np.where(ok, yhat, 0.0))
    return np.where(ok, d, 0.0), ok


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
    yval, yw : ndarray or None
        The sorted ``y`` of the rows of weight > 0 and their weights (None: unweighted), kept only
        for the D^2 scores (``ydist``).
    sape_tm : int
        The sum of ``w |r| / max(|y|, 1.17e-06)`` (torchmetrics' MAPE term), kept only when asked
        (``mape_tm``).
    sle, sle_bad, sle_bad_rows : int
        The sum of ``w (log1p(y) - log1p(yhat))^2`` over the rows whose target and prediction are
        > -1, the weight of the others and their number (weight > 0), kept only when asked
        (``msle``: the squared log errors).
    maxabs : float
        The largest ``|r|`` of the rows of weight > 0 (0.0 with none: no case), kept only when
        asked (``maxerr``).
    lost : frozenset of str
        The sums (``"sy"``, ``"srr"``, ..., ``"sape_tm"``, ``"sle"``, ``"dev" + repr(power)``) a
        product of which lost bits below ``2**-1074``: not exact, so a measure that reads one is NaN,
        with why (:class:`LostBits`, :func:`lost_reason`).  Merged by union.
    over : frozenset of str
        The sums (``"dev" + repr(power)``) a row's own term of which is beyond float64's range (a
        row's deviance by scikit-learn's formula: no float64, left out of the sum): a measure that
        reads one is NaN, with why (:func:`row_range_reason`); ``"devlow" + repr(power)``: a step of
        a row's deviance lost its bits below float64's normal range (:func:`deviance_rows`' ``low``,
        the row left out of the sum: NaN, :func:`low_reason`).  Merged by union.  (A product of
        float64 factors is never beyond the sums: they are kept exact whatever its size.)
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
    ydist: bool = False
    yval: Array | None = field(default=None, compare=False, repr=False)
    yw: Array | None = field(default=None, compare=False, repr=False)
    mape_tm: bool = False
    sape_tm: int = 0
    msle: bool = False
    sle: int = 0
    sle_bad: int = 0
    sle_bad_rows: int = 0
    maxerr: bool = False
    maxabs: float = 0.0
    lost: frozenset[str] = frozenset()
    over: frozenset[str] = frozenset()

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def empty(
        cls,
        powers: tuple[float, ...] = (),
        medae: bool = False,
        ydist: bool = False,
        mape_tm: bool = False,
        msle: bool = False,
        maxerr: bool = False,
    ) -> RegressionSummary:
        """The summary of no rows, keeping the deviances of ``powers``, (``medae``) the residuals,
        (``ydist``) the targets, (``mape_tm``) torchmetrics' MAPE sum, (``msle``) the squared log
        errors and (``maxerr``) the largest absolute residual.
        """
        powers = tuple(sorted({float(p) for p in powers}))
        z = (0,) * len(powers)
        return cls(
            powers=powers,
            dev=z,
            bad=z,
            bad_rows=z,
            medae=medae,
            absres=np.empty(0) if medae else None,
            ydist=ydist,
            yval=np.empty(0) if ydist else None,
            mape_tm=mape_tm,
            msle=msle,
            maxerr=maxerr,
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
        ydist: bool = False,
        mape_tm: bool = False,
        msle: bool = False,
        maxerr: bool = False,
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
        out = cls.empty(powers, medae, ydist, mape_tm, msle, maxerr)
        lost: set[str] = set()
        over: set[str] = set()
        # the differences checked: beyond the range, refused; a row's ratio of MAPE beyond it: over
        sums = row_sums(None, y, yhat, w, lost=lost, over=over)
        dev, bad, bad_rows = _deviances(y, yhat, w, out.powers, lost, over)
        sape_tm = 0
        if mape_tm:
            term, big = mape_tm_rows(y, yhat, w)
            if big is not None:
                over.add("sape_tm")
            sape_tm, bits = checked_products(term, w)
            if bits:
                lost.add("sape_tm")
        sle = sle_bad = sle_bad_rows = 0
        if msle:
            d, ok = log_rows(y, yhat)
            try:
                sle, bits = checked_products(d, d, w)
            except OverflowError:
                raise OverflowError(
                    "a squared log error times a weight is beyond the range of a 64-bit float"
                ) from None
            if bits:
                lost.add("sle")
            out_w = ~ok if w is None else (~ok) & (w > 0)
            sle_bad_rows = int(out_w.sum())
            sle_bad = sle_bad_rows << SHIFT if w is None else exact_sum(w[~ok])
        maxabs = 0.0
        if maxerr:
            a = np.abs(y - yhat) if w is None else np.abs(y - yhat)[w > 0]
            maxabs = float(a.max()) if len(a) else 0.0
        zero = no_percentage(y)
        absres = absw = None
        if medae:
            keep = slice(None) if w is None else w > 0
            absres = np.abs(y - yhat)[keep]
            absw = None if w is None else w[keep]
            absres, absw = _canonical(absres, absw)
        yval = yw = None
        if ydist:
            keep = slice(None) if w is None else w > 0
            yval, yw = _canonical(y[keep], None if w is None else w[keep])
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
            dev=dev,
            bad=bad,
            bad_rows=bad_rows,
            weighted=w is not None,
            absres=absres,
            absw=absw,
            yval=yval,
            yw=yw,
            sape_tm=sape_tm,
            sle=sle,
            sle_bad=sle_bad,
            sle_bad_rows=sle_bad_rows,
            maxabs=maxabs,
            lost=frozenset(lost),
            over=frozenset(over),
        )

    def folded(self, y: Array, yhat: Array, w: Array | None = None) -> RegressionSummary:
        """The summary with the rows ``(y, yhat, w)`` added (a stream's chunk, a Metric's batch)."""
        return self + RegressionSummary.from_checked(
            y,
            yhat,
            w,
            powers=self.powers,
            medae=self.medae,
            ydist=self.ydist,
            mape_tm=self.mape_tm,
            msle=self.msle,
            maxerr=self.maxerr,
        )

    # -- merging ----------------------------------------------------------------------------------
    def __add__(self, other: RegressionSummary) -> RegressionSummary:
        if self.kept() != other.kept():
            raise ValueError("summaries of different regression measures cannot be merged")
        weighted = self.weighted or other.weighted
        absres = absw = yval = yw = None
        if self.medae:
            absres, absw = _merged(self.absres, self.absw, other.absres, other.absw, weighted)
        if self.ydist:
            yval, yw = _merged(self.yval, self.yw, other.yval, other.yw, weighted)
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
            weighted=weighted,
            absres=absres,
            absw=absw,
            ydist=self.ydist,
            yval=yval,
            yw=yw,
            mape_tm=self.mape_tm,
            sape_tm=self.sape_tm + other.sape_tm,
            msle=self.msle,
            sle=self.sle + other.sle,
            sle_bad=self.sle_bad + other.sle_bad,
            sle_bad_rows=self.sle_bad_rows + other.sle_bad_rows,
            maxerr=self.maxerr,
            maxabs=max(self.maxabs, other.maxabs),
            lost=self.lost | other.lost,
            over=self.over | other.over,
        )

    @staticmethod
    def merge_all(parts: list[RegressionSummary]) -> RegressionSummary:
        """The summary of every part's rows (any order: the same bits)."""
        out = parts[0]
        for p in parts[1:]:
            out = out + p
        return out

    # -- reading ----------------------------------------------------------------------------------
    def kept(self) -> tuple[tuple[float, ...], bool, bool, bool, bool, bool]:
        """What this summary keeps beyond the sums every measure reads (two summaries merge when they
        keep the same): the powers, the residuals, the targets, torchmetrics' MAPE sum, the squared
        log errors, the largest absolute residual.
        """
        return self.powers, self.medae, self.ydist, self.mape_tm, self.msle, self.maxerr

    def in_range(self, *keys: str) -> bool:
        """Whether every row's own term of the sums ``keys`` is a float64 (:attr:`over`)."""
        return not any(k in self.over for k in keys)

    def exact(self, name: str, *keys: str) -> None:
        """Nothing if the sums ``keys`` are exact; else the measure ``name`` that reads them has no
        value (the engines make it NaN with :func:`lost_reason`).

        Raises
        ------
        LostBits
            A product of one of the sums lost bits below ``2**-1074`` (:attr:`lost`):
            :func:`lost_why`'s line (an :class:`~perfeval.exceptions.InvalidDataError`).
        """
        if any(k in self.lost for k in keys):
            raise LostBits(name)

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

    def targets(self) -> tuple[Array, Array | None]:
        """The sorted ``y`` of the rows of weight > 0 and their weights (None: unweighted)."""
        if self.yval is None:
            raise ValueError("this summary keeps no targets (ydist=False)")
        return self.yval, self.yw


def _deviances(
    y: Array, yhat: Array, w: Array | None, powers: tuple[float, ...], lost: set[str], over: set[str]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """For each power, the exact sum of ``w d_p`` inside the domain, the weight and the number of
    the rows outside it (``lost``: given ``"dev" + repr(p)`` when a product lost bits; ``over``: when
    a row's deviance, of weight > 0, is beyond float64's range, and ``"devlow" + repr(p)`` when a step
    of it lost its bits below the normal range (:func:`deviance_rows`' ``low``): that row left out of
    the sum).
    """
    dev, bad, bad_rows = [], [], []
    for p in powers:
        d, ok, low = deviance_rows(y, yhat, p)
        big = ~np.isfinite(d) & ~low
        if big.any() or low.any():
            for key, rows in (*beyond_rows(y, yhat, p, big), (f"devlow{p!r}", low)):
                if (rows if w is None else rows & (w > 0)).any():
                    over.add(key)
            d = np.where(big | low, 0.0, d)
        total, bits = checked_products(d, w)
        dev.append(total)
        if bits:
            lost.add(f"dev{p!r}")
        out_w = ~ok if w is None else (~ok) & (w > 0)
        bad.append(int(out_w.sum()) << SHIFT if w is None else exact_sum(w[~ok]))
        bad_rows.append(int(out_w.sum()))
    return tuple(dev), tuple(bad), tuple(bad_rows)


def _merged(
    v1: Array | None, w1: Array | None, v2: Array | None, w2: Array | None, weighted: bool
) -> tuple[Array, Array | None]:
    """Two kept distributions (sorted values, their weights or None: 1 each) as one, canonical."""
    assert v1 is not None and v2 is not None
    v = np.concatenate([v1, v2])
    if not weighted:
        return _canonical(v, None)
    w = np.concatenate(
        [w1 if w1 is not None else np.ones(len(v1)), w2 if w2 is not None else np.ones(len(v2))]
    )
    return _canonical(v, w)


def _canonical(v: Array, w: Array | None) -> tuple[Array, Array | None]:
    """The residuals sorted by (value, weight): one order whatever the order of the rows."""
    if w is None:
        return np.sort(v, kind="stable"), None
    order = np.lexsort((w, v))
    return v[order], w[order]


#: torchmetrics' floor of ``|y|`` in ``mean_absolute_percentage_error`` (its ``epsilon``)
TM_MAPE_EPS = 1.17e-06

#: float64's eps: scikit-learn's ``_weighted_percentile(average=True)`` takes a cumulative weight within
#: it of the rank as reaching the rank exactly
SKLEARN_EPS = float(np.finfo(np.float64).eps)


def _rank(total: Array | float, alpha: float) -> Array:
    """scikit-learn's rank of the alpha-quantile on a cumulative weight ``total``:
    ``(alpha * 100) / 100 * total`` in float64 (its ``percentile_rank`` is ``alpha * 100``), a rank
    of 0 moved to the next float above 0 (the first row of weight > 0).
    """
    adj = np.asarray((float(alpha) * 100) / 100 * np.asarray(total, dtype=np.float64), dtype=np.float64)
    return np.where(adj == 0, np.nextafter(0.0, 1.0), adj)


def weighted_quantile(v: Array, w: Array | None, alpha: float = 0.5, *, eps: float = 0.0) -> float:
    """The weighted ``alpha``-quantile of sorted values ``v`` (weights ``w``, None: 1 each) by the
    averaged inverted CDF, as scikit-learn's ``_weighted_percentile(average=True)``: the cumulative
    weights summed in the values' order (float64), ``rank = alpha * total`` (:func:`_rank`), ``i``
    the first value whose cumulative weight reaches the rank; ``v[i]`` when it passes it by more than
    ``eps``, else the mean of ``v[i]`` and the next value (the next of weight > 0; ``v[i]`` itself at
    the end).  Unweighted and ``alpha = 0.5``: numpy's median (the same number).  NaN with no value
    or no weight.
    """
    n = len(v)
    if not n:
        return math.nan
    if w is None and alpha == 0.5:
        return float(np.median(v))
    cdf = np.cumsum(np.ones(n) if w is None else w)
    total = cdf[-1]
    if not total > 0:
        return math.nan
    adj = float(_rank(total, alpha))
    i = min(int(np.searchsorted(cdf, adj)), n - 1)
    if cdf[i] - adj > eps:
        return float(v[i])
    j = min(i + 1, n - 1)
    if w is not None and w[j] == 0:  # the next value of weight > 0
        j = int(np.searchsorted(cdf, cdf[i], side="right"))
        j = i if j > n - 1 else j
    return float((v[i] + v[j]) / 2)


def weighted_median(v: Array, w: Array | None, *, eps: float = 0.0) -> float:
    """:func:`weighted_quantile` at 0.5."""
    return weighted_quantile(v, w, 0.5, eps=eps)


def _buckets(sizes: Array) -> list[Array]:
    """The groups in lots of about one size (within a factor of two), so that a lot stacked in one
    matrix, each group a row padded at its end, is at most twice its rows.
    """
    level = np.frexp(sizes.astype(np.float64))[1]  # sizes in [2**(level-1), 2**level)
    return [np.flatnonzero(level == lev) for lev in np.unique(level).tolist()]


def grouped_quantiles(
    v: Array, w: Array | None, starts: Array, alpha: float = 0.5, *, eps: float = 0.0
) -> Array:
    """:func:`weighted_quantile` of every group at once, the same bits as each group alone: the rows
    grouped (``starts`` each group's first row, none empty; in any order within a group), ``w``
    the weights (> 0; None: 1 each).  The groups of about one size are stacked in one matrix, a row
    a group padded at its end, each row sorted by (value, weight) (one argsort of complex keys along
    the rows), its weights summed along it (each group's ``np.cumsum``: the same float64 sums in the
    same order), and each row's rank found by counting.
    """
    n, g = len(v), len(starts)
    out = np.full(g, math.nan)
    if not g:
        return out
    sizes = np.append(starts[1:], n) - starts
    a = float(alpha)
    for gi in _buckets(sizes):
        st, sz = starts[gi], sizes[gi]
        width = int(sz.max())
        cols = np.arange(width)
        valid = cols[None, :] < sz[:, None]
        idx = (st[:, None] + cols[None, :])[valid]
        last = (sz - 1)[:, None]
        with np.errstate(over="ignore"):
            if w is None and a == 0.5:  # numpy's median: the middle value, or the mean of the two
                vals = np.full(valid.shape, np.inf)
                vals[valid] = v[idx]
                vals.sort(axis=1)
                lo = np.take_along_axis(vals, (sz - 1)[:, None] // 2, axis=1)[:, 0]
                hi = np.take_along_axis(vals, sz[:, None] // 2, axis=1)[:, 0]
                out[gi] = np.where(sz % 2 == 1, lo, (lo + hi) / 2)
                continue
            key = np.full(valid.shape, np.inf + 0j)  # after every finite value: the padding
            key.real[valid] = v[idx]  # each value's bits as they are (-0.0 too)
            key.imag[valid] = 1.0 if w is None else w[idx]
            key.sort(axis=1)  # by value, then weight (numpy orders complex numbers so)
            vals, wts = key.real, np.where(valid, key.imag, 0.0)
            cdf = np.cumsum(wts, axis=1)
            total = np.take_along_axis(cdf, last, axis=1)
            adj = _rank(total, a)
            i = np.minimum((cdf < adj).sum(axis=1, keepdims=True), last)
            j = np.minimum(i + 1, last)
            at_i = np.take_along_axis(cdf, i, axis=1)
            vi, vj = np.take_along_axis(vals, i, axis=1), np.take_along_axis(vals, j, axis=1)
            got = np.where(at_i - adj > eps, vi, (vi + vj) / 2)[:, 0]
        out[gi] = np.where(total[:, 0] > 0, got, math.nan)
    return out
