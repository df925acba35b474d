"""``perfeval.explain`` of a regression target: where scikit-learn's and torchmetrics' numbers differ
from perfeval's on the user's own data, and why.

Each tool's value is computed here by perfeval's exact sums with that tool's rule (neither tool is
called): scikit-learn's through :mod:`perfeval.functional.sklearn_regression` (its names, its
signatures, its numbers: tests/test_regression_sklearn.py checks them against scikit-learn itself),
torchmetrics' from the same summary with its rules (tests/test_regression_explain.py checks them
against torchmetrics 1.9's functions on float64 tensors, recorded in
tests/oracles/fixtures/torchmetrics_regression.json).  A rule is listed under a value exactly when
it touched this data, with what it touched.

The rules:

- MAPE: scikit-learn divides each ``|r|`` by ``max(|y|, 2.2e-16)`` (float64's eps), torchmetrics by
  ``max(|y|, 1.17e-06)``; perfeval's MAPE is NaN when a target is 0 (``MAPE:eps=sklearn`` and
  ``MAPE:eps=torchmetrics`` are theirs).
- R2 (and EXPVAR, the D^2 scores): a target whose variance (or the constant's loss) is 0:
  scikit-learn's ``force_finite`` gives 1 for a perfect prediction and 0 otherwise, perfeval NaN.
  torchmetrics' ``r2_score`` gives 1 when the residual sum of squares is within 1e-4 of 0 and 0 when
  the total sum of squares is (absolute tolerances: ``torch.isclose(..., atol=1e-4)``), and forms the
  total sum of squares in one pass, ``sum(y^2) - sum(y) * mean(y)`` in float64, which loses digits
  when the targets' mean is large against their spread (perfeval's sums are exact); it needs two
  rows.  ``explained_variance`` forms both variances in one pass, and gives 1 when the residuals'
  variance is exactly 0 and 0 when the targets' is.
- MEDAE with weights: scikit-learn takes a cumulative weight within float64's eps of half the total
  as reaching it (and averages two values); perfeval only when it reaches it exactly.
- Deviances: both tools raise on a row outside the power's domain (perfeval: NaN, and how many rows);
  scikit-learn's ``d2_tweedie_score`` divides by zero when every target is equal.
- torchmetrics takes no sample weights, and has no median absolute error, pinball loss or D^2 score.

Where a sum a measure reads lost bits below ``2**-1074`` (data about 1e-150 or smaller), perfeval's
value is NaN with that reason, and so is each tool's (reproduced from the same exact sums, which
these data cannot give): the cell says so, it does not stop the explanation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidDataError
from perfeval.measures import MeasureSpec
from perfeval.summaries.regression import (
    SKLEARN_EPS,
    TM_MAPE_EPS,
    LostBits,
    RegressionSummary,
    lost_reason,
    ratio,
    weighted_median,
)

__all__ = ["Facts", "regression_cells", "RULES", "TOOLS"]

#: the tools whose numbers explain() shows for a regression target
TOOLS = ("sklearn", "torchmetrics")

#: each rule's words ({...}: what it touched here)
RULES = {
    "sk-mape-eps": (
        "scikit-learn: mean_absolute_percentage_error divides |y - yhat| by max(|y|, 2.2e-16) (float64's "
        "eps), so a target of 0 weighs |r| / 2.2e-16; perfeval's MAPE is NaN there (MAPE:eps=sklearn is "
        "scikit-learn's) [{targets} of 0]"
    ),
    "sk-mape-tm": (
        "scikit-learn floors |y| at 2.2e-16, this MAPE at torchmetrics' 1.17e-06 [{targets} below 1.17e-06 "
        "in size]"
    ),
    "tm-mape-eps": (
        "torchmetrics: mean_absolute_percentage_error divides |y - yhat| by max(|y|, 1.17e-06) (its "
        "epsilon), so a target of 0 weighs |r| / 1.17e-06 and a target below 1.17e-06 in size counts as "
        "1.17e-06; perfeval's MAPE (eps=none) is NaN at a target of 0 (MAPE:eps=torchmetrics is "
        "torchmetrics') "
        "[{targets} below 1.17e-06 in size, {zeros} of them 0]"
    ),
    "sk-force-finite": (
        "scikit-learn: {fn} with force_finite (its default) gives 1 for a perfect prediction and 0 "
        "otherwise when {what} is 0; perfeval says NaN (0/0 or -inf) [{what} 0]"
    ),
    "sk-d2-tweedie-zero": (
        "scikit-learn: d2_tweedie_score divides by the deviance of the targets' mean, 0 here: it raises "
        "ZeroDivisionError [every target equal]"
    ),
    "sk-mean-residue": (
        "scikit-learn: d2_tweedie_score takes the targets' weighted mean in float64 (sum(w y) / sum(w)), "
        "a last bit off the targets here, which are all equal: it divides by the deviance of that "
        "rounding residue instead of by 0 [every target equal]"
    ),
    "sk-median-eps": (
        "scikit-learn: median_absolute_error takes a cumulative weight within float64's eps (2.2e-16) of "
        "half the total as reaching it and averages two residuals; perfeval only when it reaches it "
        "exactly [the cumulative weight {cdf!r} against half of {total!r}]"
    ),
    "tm-r2-near-zero": (
        "torchmetrics: r2_score gives 1 when the residual sum of squares is within 1e-4 of 0 and 0 when "
        "the total sum of squares is (torch.isclose(..., atol=1e-4), absolute, whatever the targets' "
        "scale) [{which}]"
    ),
    "tm-one-pass": (
        "torchmetrics: {fn} forms {what} in one pass (sum(y^2) - sum(y) * mean(y) in float64): the "
        "targets' mean is large against their spread here, and its value is good to about {digits} "
        "significant digits (perfeval's sums are exact)"
    ),
    "tm-deviance-terms": (
        "torchmetrics: tweedie_deviance_score sums each row's deviance as the formula's terms in float64 "
        "(torch.pow, torch.log), which nearly cancel where a prediction is close to its target: its "
        "value is good to about {digits} significant digits here (perfeval's terms are numpy's, summed "
        "exactly)"
    ),
    "tm-evs-zero": (
        "torchmetrics: explained_variance gives 1 when the residuals' variance is 0 and 0 when the "
        "targets' is; perfeval says NaN (0/0 or -inf) [the targets' variance 0]"
    ),
    "float-sums": (
        "{tool} sums in float64 (perfeval's sums are exact, rounded once): they differ by {rel:.1e} "
        "(relative) here"
    ),
}

#: scikit-learn's function of each regression measure
SKLEARN_NAMES = {
    "MAE": "mean_absolute_error",
    "MSE_REG": "mean_squared_error",
    "RMSE_REG": "root_mean_squared_error",
    "R2": "r2_score",
    "EXPVAR": "explained_variance_score",
    "MAPE": "mean_absolute_percentage_error",
    "MEDAE": "median_absolute_error",
    "PINBALL": "mean_pinball_loss",
    "POISSON_DEV": "mean_poisson_deviance",
    "GAMMA_DEV": "mean_gamma_deviance",
    "TWEEDIE_DEV": "mean_tweedie_deviance",
    "D2_AE": "d2_absolute_error_score",
    "D2_PINBALL": "d2_pinball_score",
    "D2_TWEEDIE": "d2_tweedie_score",
    "MAXERR": "max_error",
    "MSLE": "mean_squared_log_error",
    "RMSLE": "root_mean_squared_log_error",
}

#: torchmetrics' function of each regression measure it has (torchmetrics.functional.regression)
TORCHMETRICS_NAMES = {
    "MAE": "mean_absolute_error",
    "MSE_REG": "mean_squared_error",
    "RMSE_REG": "mean_squared_error(squared=False)",
    "R2": "r2_score",
    "EXPVAR": "explained_variance",
    "MAPE": "mean_absolute_percentage_error",
    "POISSON_DEV": "tweedie_deviance_score(power=1)",
    "GAMMA_DEV": "tweedie_deviance_score(power=2)",
    "TWEEDIE_DEV": "tweedie_deviance_score",
    "MSLE": "mean_squared_log_error",
}

#: the float64 rounding a one-pass sum of n terms may carry, relative to the sum of their sizes
#: (a pairwise sum: about log2(n) roundings), times a margin
_SUM_ULPS = 4.0


class Facts:
    """The rows of one explanation (checked: float64 targets and predictions, weights > 0 or None;
    ``raw``: the rows with those of weight 0, as the user gave them to a tool) and the sums every
    cell reads, made once.
    """

    def __init__(
        self,
        y: np.ndarray,
        p: np.ndarray,
        w: np.ndarray | None,
        raw: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None,
    ):
        self.y, self.p, self.w = y, p, w
        self.raw = (y, p, w) if raw is None else raw
        self.n = len(y)
        self.summary = RegressionSummary.from_checked(y, p, w, ydist=True, medae=True, mape_tm=True)

    def zeros(self) -> int:
        return int(np.count_nonzero(self.y == 0))

    def tiny(self) -> int:
        return int(np.count_nonzero(np.abs(self.y) < TM_MAPE_EPS))

    def one_pass_error(self, values: np.ndarray) -> float:
        """A bound on the rounding of ``sum(v^2) - sum(v) * mean(v)`` in float64 (torchmetrics' one-pass
        sum of squares of ``values``): a few roundings a level of a pairwise sum, of the terms' sizes.
        """
        n = max(len(values), 1)
        with np.errstate(over="ignore"):  # data about 1e200: inf, no bound (torchmetrics' sums overflow)
            mean = abs(float(np.mean(values)))
            size = float(np.sum(values * values)) + float(np.sum(np.abs(values))) * mean
        return _SUM_ULPS * (math.log2(n) + 2) * SKLEARN_EPS * size


def _sklearn_value(f: Facts, spec: MeasureSpec, fn: str) -> float | str:
    """scikit-learn's ``fn`` of the rows as given (weights of 0 included, as it counts them), or
    what it raises: its rules from :mod:`perfeval.measures.regression_sklearn` over perfeval's exact
    summary (the numbers of :mod:`perfeval.functional.sklearn_regression`).
    """
    from perfeval.measures import regression as R
    from perfeval.measures import regression_sklearn as S

    name, s = spec.measure.name, f.summary
    y, p, w = f.raw
    if name in ("R2", "D2_AE", "D2_PINBALL", "D2_TWEEDIE") and len(y) < 2:
        return math.nan  # with its warning: 'not well-defined with less than two samples'
    if name in ("R2", "EXPVAR"):
        return S.explained(s, centred=name == "EXPVAR", force_finite=True)
    if name == "MAPE":
        return ratio(s.sape, s.weight)
    if name == "MEDAE":
        return S.median(np.abs(y - p), w)
    if name in ("D2_AE", "D2_PINBALL"):
        return S.d2_pinball(s, float(spec.kwargs.get("alpha", 0.5)))
    if name == "MAXERR":
        if w is not None:
            return "scikit-learn's max_error takes no sample weights"
        return float(np.max(np.abs(y - p)))
    if name in ("MSLE", "RMSLE"):
        if (y <= -1).any() or (p <= -1).any():  # every row, of weight 0 too, as scikit-learn checks
            what = "Root Mean Squared" if name == "RMSLE" else "Mean Squared"
            return (
                f"scikit-learn's {fn} raises: {what} Logarithmic Error cannot be used when targets contain "
                "values less than or equal to -1."
            )
        summary = RegressionSummary.from_checked(y, p, w, msle=True)
        return (R.rmsle if name == "RMSLE" else R.msle)(summary).value
    if name in ("POISSON_DEV", "GAMMA_DEV", "TWEEDIE_DEV", "D2_TWEEDIE"):
        power = {"POISSON_DEV": 1.0, "GAMMA_DEV": 2.0}.get(name, float(spec.kwargs.get("power", 0.0)))
        refused = S.deviance_refusal(y, p, power)
        if refused:
            return (
                f"scikit-learn's {fn} raises: Mean Tweedie deviance error with power={power:g} can only be "
                f"used on {refused}"
            )
        summary = RegressionSummary.from_checked(y, p, w, powers=(power,))
        if name != "D2_TWEEDIE":
            return R.tweedie_deviance(summary, power).value
        try:
            got = S.d2_tweedie(summary, y, w, power)
        except InvalidDataError as e:  # a row's deviance no float64 (its mean's, perfeval's is not)
            return f"not reproduced: {e}"
        return RULES["sk-d2-tweedie-zero"] if got is None else got
    # MAE, MSE_REG, RMSE_REG, PINBALL: scikit-learn's definition is perfeval's
    return spec.measure.function()(s, **spec.kwargs).value


def _sklearn_cell(f: Facts, spec: MeasureSpec, ours: float) -> tuple[float, str, list[str]]:
    name = spec.measure.name
    fn = SKLEARN_NAMES[name]
    y, p, w = f.raw
    if name in ("R2", "EXPVAR") and w is not None:
        residue = _mean_residue(f, fn, name == "EXPVAR")
        if residue:
            return math.nan, residue, []
    value = _sklearn_value(f, spec, fn)
    if isinstance(value, str):
        return math.nan, value, []
    if _same(value, ours):
        return value, "", []
    rules = _sklearn_rules(f, spec, fn)
    if not rules:
        rules = [RULES["float-sums"].format(tool="scikit-learn", rel=_rel(value, ours))]
    return value, "", rules


def _mean_residue(f: Facts, fn: str, residuals: bool) -> str:
    """Why scikit-learn's weighted ``fn`` is not reproducible here, or '': every target equal (or,
    ``residuals``, every residual) while its float64 weighted mean of them, ``sum(w v) / sum(w)``,
    is a last bit off them, so that it divides by (or into) a rounding residue instead of 0.
    """
    y, p, w = f.raw
    s = f.summary
    for what, v, zero in (
        ("target", y, s.sst()[0] == 0),
        ("residual", y - p, residuals and s.ssr_centered()[0] == 0),
    ):
        if not zero:
            continue
        kept = v[w > 0] if w is not None else v
        with np.errstate(all="ignore"):
            mean = float(np.sum(v * w) / np.sum(w)) if w is not None else float(np.mean(v))
        if len(kept) and mean != float(kept[0]):
            return (
                f"not reproducible: every {what} is equal, but scikit-learn's float64 weighted mean of them "
                f"(sum(w v) / sum(w)) is {mean!r}, not {float(kept[0])!r}: its {fn} works with the rounding "
                "residue that leaves instead of 0, and its value is that residue's"
            )
    return ""


def _sklearn_rules(f: Facts, spec: MeasureSpec, fn: str) -> list[str]:
    """The rules that make scikit-learn's value differ from perfeval's here."""
    name, s = spec.measure.name, f.summary
    if name == "MAPE":
        eps = spec.kwargs.get("eps", "none")
        if eps == "none" and f.zeros():
            return [RULES["sk-mape-eps"].format(targets=_count(f.zeros(), "target"))]
        if eps == "torchmetrics" and f.tiny():
            return [RULES["sk-mape-tm"].format(targets=_count(f.tiny(), "target"))]
        return []
    if name in ("R2", "EXPVAR") and s.sst()[0] == 0:
        return [RULES["sk-force-finite"].format(fn=fn, what="the targets' variance")]
    if name == "D2_TWEEDIE" and s.sst()[0] == 0:
        return [RULES["sk-mean-residue"]]
    if name in ("D2_AE", "D2_PINBALL"):
        from perfeval.measures.regression import d2_pinball_parts

        got = d2_pinball_parts(s, float(spec.kwargs.get("alpha", 0.5)))
        if isinstance(got, tuple) and got[1] == 0:
            return [RULES["sk-force-finite"].format(fn=fn, what="the loss of the targets' quantile")]
        return []
    if name == "MEDAE" and f.w is not None:
        v, w = s.residuals()
        if w is not None and weighted_median(v, w) != weighted_median(v, w, eps=SKLEARN_EPS):
            cdf = np.cumsum(w)
            i = int(np.searchsorted(cdf, cdf[-1] / 2))
            return [RULES["sk-median-eps"].format(cdf=float(cdf[min(i, len(cdf) - 1)]), total=float(cdf[-1]))]
    return []


def _torchmetrics_cell(
    f: Facts, spec: MeasureSpec, ours: float, lost: bool, beyond: str | None = None
) -> tuple[float, str, list[str]]:
    name = spec.measure.name
    fn = TORCHMETRICS_NAMES.get(name)
    if fn is None:
        return math.nan, "not defined by torchmetrics", []
    if f.w is not None:
        return math.nan, f"torchmetrics' {fn.split('(')[0]} takes no sample weights", []
    if lost or beyond:
        return _lost_cell(spec, beyond)
    compute = _TM.get(name)
    assert compute is not None
    try:
        got = compute(f, spec)
    except LostBits:
        return _lost_cell(spec)
    if isinstance(got, str):
        return math.nan, got, []
    value, rules = got  # a rule of the digits torchmetrics keeps stays, even at perfeval's value
    if not rules and not _same(value, ours):
        rules = [RULES["float-sums"].format(tool="torchmetrics", rel=_rel(value, ours))]
    return value, "", rules


def _tm_same(f: Facts, spec: MeasureSpec) -> tuple[float, list[str]]:
    """MAE, MSE, RMSE: torchmetrics' definition is perfeval's (its float64 sum within rounding)."""
    from perfeval.measures import regression as R

    fn: Callable[..., Any] = {"MAE": R.mae, "MSE_REG": R.mse, "RMSE_REG": R.rmse}[spec.measure.name]
    return fn(f.summary).value, []


def _tm_msle(f: Facts, spec: MeasureSpec) -> tuple[float, list[str]] | str:
    """MSLE under torchmetrics' mean_squared_log_error: perfeval's definition (its log1p torch's, its
    sum in float64, within rounding) where every target and prediction is > -1; it does not check them.
    """
    from perfeval.measures.regression import msle

    if (f.y <= -1).any() or (f.p <= -1).any():
        return (
            "torchmetrics' mean_squared_log_error does not check its input: log1p of a target or a "
            "prediction <= -1 makes it NaN or inf"
        )
    return msle(RegressionSummary.from_checked(f.y, f.p, msle=True)).value, []


def _tm_mape(f: Facts, spec: MeasureSpec) -> tuple[float, list[str]]:
    from perfeval.measures.regression import mape

    value = mape(f.summary, "torchmetrics").value
    rules = []
    if spec.kwargs.get("eps", "none") != "torchmetrics" and f.tiny():
        rules.append(RULES["tm-mape-eps"].format(targets=_count(f.tiny(), "target"), zeros=f.zeros()))
    return value, rules


def _tm_r2(f: Facts, spec: MeasureSpec) -> tuple[float, list[str]] | str:
    """The r2_score of torchmetrics: 1 when the residual sum of squares is within 1e-4 of 0, 0 when the
    total's is, else 1 - rss / tss with tss formed in one pass (reproduced when its rounding cannot
    move the value by more than a part in 1e6).
    """
    s = f.summary
    if f.n < 2:
        return "torchmetrics' r2_score raises: Needs at least two samples to calculate r2 score."
    rss = ratio(s.srr, 1 << _shift())
    tss = ratio(*s.sst())
    err_t = f.one_pass_error(f.y)
    err_r = _SUM_ULPS * (math.log2(f.n) + 2) * SKLEARN_EPS * rss
    near = 1e-4
    if abs(rss - near) <= err_r or abs(tss - near) <= err_t:
        return (
            "not reproducible: a sum of squares lies within float64 rounding of torchmetrics' 1e-4 "
            "(torch.isclose's atol), on which side torch's own sum decides"
        )
    if rss <= near:
        return 1.0, [RULES["tm-r2-near-zero"].format(which=f"residual sum of squares {rss:.3g}")]
    if tss <= near:
        return 0.0, [RULES["tm-r2-near-zero"].format(which=f"total sum of squares {tss:.3g}")]
    value = ratio(s.sst()[0] - s.srr * s.weight, s.sst()[0])
    return _one_pass(value, (rss / tss) * (err_t / tss), "r2_score", "the total sum of squares")


def _tm_evs(f: Facts, spec: MeasureSpec) -> tuple[float, list[str]] | str:
    """The explained_variance of torchmetrics: both variances in one pass; 1 when the residuals' is 0,
    0 when the targets' is.
    """
    s = f.summary
    if f.n == 1:  # sum(r^2) / 1 - (sum(r) / 1)^2 is exactly 0, and so is the targets': 1
        return 1.0, []
    r = f.y - f.p
    num, den = s.ssr_centered()[0], s.sst()[0]
    err_r = f.one_pass_error(r) / max(f.n, 1)
    err_t = f.one_pass_error(f.y) / max(f.n, 1)
    if num == 0 and not _one_pass_zero(r):
        return (
            "not reproducible: the residuals' variance is 0, which torchmetrics' one-pass float sum may miss"
        )
    if den == 0 and not _one_pass_zero(f.y):
        return "not reproducible: the targets' variance is 0, which torchmetrics' one-pass float sum may miss"
    if num == 0:
        return 1.0, []
    if den == 0:
        return 0.0, [RULES["tm-evs-zero"]]
    vr = ratio(num, s.weight * s.weight)
    vt = ratio(den, s.weight * s.weight)
    value = ratio(den - num, den)
    return _one_pass(value, err_r / vt + (vr / vt) * (err_t / vt), "explained_variance", "both variances")


def _bits(x: float) -> int:
    """The significant bits of a float64 (0 for 0)."""
    if x == 0:
        return 0
    m = int(abs(math.frexp(x)[0]) * (1 << 53))
    return 53 - ((m & -m).bit_length() - 1)


def _one_pass_zero(v: np.ndarray) -> bool:
    """Whether ``sum(v^2) / n - (sum(v) / n)^2`` is exactly 0 in float64 whatever the order of the
    sums: every value the same ``c``, with ``c``, ``c^2`` and their multiples up to ``n`` exact.
    """
    c = float(v[0])
    if not (v == c).all():
        return False
    room = 53 - max(len(v), 1).bit_length()
    sq = c * c
    return _bits(c) <= room and _bits(sq) <= room and math.fsum([sq, -c * c]) == 0 and 2 * _bits(c) <= 53


def _one_pass(value: float, err: float, fn: str, what: str) -> tuple[float, list[str]] | str:
    """``value`` as torchmetrics' one-pass sums give it: itself when their rounding (``err``, an
    absolute bound on the value) is below a part in 1e12; with the digits it keeps said when below a
    part in 1e6; else not reproducible.
    """
    return _kept_digits(
        value,
        err,
        lambda digits: RULES["tm-one-pass"].format(fn=fn, what=what, digits=digits),
        f"torchmetrics forms {what} in one pass (sum(y^2) - sum(y) * mean(y) in float64)",
    )


def _kept_digits(
    value: float, err: float, rule: Callable[[int], str], how: str
) -> tuple[float, list[str]] | str:
    """``value`` with no rule when ``err`` (an absolute bound on the tool's rounding) is below a part
    in 1e12 of it; with ``rule(digits)`` when below a part in 1e6; else why it is not reproducible.
    """
    scale = max(abs(value), 1e-300)
    if err <= 1e-12 * scale:
        return value, []
    digits = max(0, int(-math.log10(err / scale)))
    if err > 1e-6 * scale:
        return (
            f"not reproducible: {how}, which keeps about {digits} significant digits of its value here; "
            "which ones depends on the tool's own rounding"
        )
    return value, [rule(digits)]


def _terms_size(y: np.ndarray, mu: np.ndarray, p: float) -> float:
    """The mean over the rows of the sizes of the terms of the Tweedie deviance's formula (what a
    float64 rounding of each term is relative to: their near cancellation loses the digits).
    """
    with np.errstate(all="ignore"):
        if p == 0:
            t = (y - mu) ** 2
        elif p == 1:
            t = np.abs(np.where(y == 0, 0.0, y * np.log(y / mu))) + np.abs(y) + np.abs(mu)
        elif p == 2:
            t = np.abs(np.log(mu / y)) + np.abs(y / mu) + 1
        else:
            t = (
                np.abs(np.power(np.maximum(y, 0), 2 - p) / ((1 - p) * (2 - p)))
                + np.abs(y * np.power(mu, 1 - p) / (1 - p))
                + np.abs(np.power(mu, 2 - p) / (2 - p))
            )
    return 2 * float(np.mean(t))


def _tm_deviance(f: Facts, spec: MeasureSpec) -> tuple[float, list[str]] | str:
    """The tweedie_deviance_score of torchmetrics: raises on a row outside the power's domain."""
    from perfeval.measures.regression import tweedie_deviance

    name = spec.measure.name
    p = {"POISSON_DEV": 1.0, "GAMMA_DEV": 2.0}.get(name, float(spec.kwargs.get("power", 0.0)))
    y, mu = f.y, f.p
    if p == 1 or 1 < p < 2:
        bad = bool((mu <= 0).any() or (y < 0).any())
    elif p < 0:
        bad = bool((mu <= 0).any())
    elif p >= 2:
        bad = bool((mu <= 0).any() or (y <= 0).any())
    else:
        bad = False
    if bad:
        return f"torchmetrics' tweedie_deviance_score raises here (a row outside the domain of power {p:g})"
    summary = f.summary if p in f.summary.powers else RegressionSummary.from_checked(y, mu, powers=(p,))
    value = tweedie_deviance(summary, p).value
    err = 0.0 if p == 0 else _SUM_ULPS * SKLEARN_EPS * _terms_size(y, mu, p)
    return _kept_digits(
        value,
        err,
        lambda digits: RULES["tm-deviance-terms"].format(digits=digits),
        "torchmetrics sums each row's deviance as the formula's terms in float64, which nearly cancel here",
    )


_TM: dict[str, Callable[[Facts, MeasureSpec], Any]] = {
    "MAE": _tm_same,
    "MSE_REG": _tm_same,
    "RMSE_REG": _tm_same,
    "MAPE": _tm_mape,
    "R2": _tm_r2,
    "EXPVAR": _tm_evs,
    "POISSON_DEV": _tm_deviance,
    "GAMMA_DEV": _tm_deviance,
    "TWEEDIE_DEV": _tm_deviance,
    "MSLE": _tm_msle,
}


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _shift() -> int:
    from perfeval.summaries.regression import SHIFT

    return SHIFT


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _rel(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return abs(a - b) / max(abs(b), 1e-300)


def _lost_cell(spec: MeasureSpec, why: str | None = None) -> tuple[float, str, list[str]]:
    """A tool's cell where a sum of the measure ``spec`` lost bits (or, ``why``, where perfeval's
    value is NaN for that reason: a number beyond float64's range): no value, and why.
    """
    why = why or lost_reason(spec.measure.name)
    return math.nan, "not reproduced (from perfeval's exact sums): " + why, []


def regression_cells(
    f: Facts, spec: MeasureSpec, ours: float, *, lost: bool = False, beyond: str | None = None
) -> dict[str, tuple[float, str, list[str]]]:
    """Each tool's (value, why there is none, rules) of one measure.  ``lost``: perfeval's value is
    NaN because a sum it reads lost bits below ``2**-1074``: each tool's, computed from the same sums,
    is not given either (:func:`_lost_cell`), nor where a tool's own sums lost them.  ``beyond``:
    perfeval's value is NaN for this reason, a number beyond float64's range (the value, or a row's
    deviance): each tool's is not given either, with that reason (the tools give inf or NaN there).
    """
    if beyond:
        cell = _lost_cell(spec, beyond)
        return {"sklearn": cell, "torchmetrics": _torchmetrics_cell(f, spec, ours, False, beyond)}
    if lost:
        sk = _lost_cell(spec)
    else:
        try:
            sk = _sklearn_cell(f, spec, ours)
        except LostBits:
            sk = _lost_cell(spec)
    return {"sklearn": sk, "torchmetrics": _torchmetrics_cell(f, spec, ours, lost)}
