"""Intervals and paired comparisons of the regression measures (kind ``"regression"``: MAE, MSE_REG,
RMSE_REG, R2, EXPVAR, MAPE, MEDAE, PINBALL, MAXERR, MSLE, RMSLE, the D^2 scores and the Poisson,
Gamma and Tweedie deviances), for
:func:`perfeval.ci`, :func:`perfeval.compare` and :func:`perfeval.stats.compare_models` over all
cases (over groups, :mod:`perfeval.stats.api` resamples whole groups, as for any measure).

**The bootstrap** is the Poisson bootstrap of :mod:`perfeval.stats.replicates`: in replicate r, case
i weighs a Poisson(1) draw of (seed, r, i) (``perfeval._native.poisson_rows``, the binary path's
case-level draws), times its own weight.  A replicate's value is the measure finished by its own
function (:mod:`perfeval.measures.regression`) from the
:class:`~perfeval.summaries.regression.RegressionSummary` of the cases so weighted: the exact sums
the measure reads (of ``v``, ``v |r|``, ``v r^2``, ...), made by the compiled kernel in one pass over
the rows, so a replicate costs O(n) with no Python loop over the rows, and, the sums being exact, it
does not depend on the order of the rows, on threads, or on how the replicates are split.  MEDAE's
``|r|`` are sorted once: a replicate's weighted median is one cumulative sum over them.  A paired
comparison gives every model the same case weights in each replicate, so the interval of the
difference accounts for their correlation.

**BCa** takes its acceleration from the delete-a-group jackknife of the binary generic path
(:func:`perfeval.stats.replicates.jack_groups_many`): G = min(100, n) groups, case i in group i mod
G, each group left out in turn.

**Student's t** (``method="t"``), for the measures that are the mean of a per-case loss
(:data:`MEAN_LOSSES`: MAE's ``|r|``, MSE_REG's ``r^2``, MAPE's ``|r| / |y|``, the pinball loss,
the unit deviances, MSLE's ``(log1p(y) - log1p(yhat))^2``), over all cases, unweighted:

* the interval of one model: ``estimate -+ t(n - 1, (1 + level) / 2) s / sqrt(n)``, ``s`` the
  standard deviation (divisor n - 1) of the n per-case losses;
* the comparison of two models: the paired t-test of the per-case loss differences ``d_i =
  loss_a(i) - loss_b(i)``, its statistic and p-value those of ``scipy.stats.ttest_rel(loss_a,
  loss_b)`` (:func:`perfeval.stats.paired.paired_t_test`), and the interval ``difference -+ t(n -
  1, (1 + level) / 2) s_d / sqrt(n)``.  This is the Diebold-Mariano test of equal predictive
  accuracy (1995) for one-step forecasts with Harvey, Leybourne & Newbold's (1997) small-sample
  correction, which makes the statistic the paired t and its reference distribution t with n - 1
  degrees of freedom; the cases are read as independent (no autocorrelation term: not for a time
  series of multi-step forecasts).

``compare`` takes the paired t-test by default for a mean loss over all unweighted cases (as it
takes DeLong's test for the ROC area), the BCa bootstrap otherwise; ``ci`` takes the BCa bootstrap
unless ``method="t"`` is asked.  RMSE_REG, R2, EXPVAR, MEDAE, MAXERR, RMSLE and the D^2 scores are
not means of a per-case loss: bootstrap only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base import progress as _progress
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.stats.intervals import (
    ANALYTIC,
    Comparison,
    Interval,
    acceleration,
    interval,
    paired_test,
    range_why,
    spread,
    undefined_left_out,
    unscaled,
)
from perfeval.stats.paired import paired_t_test, student_t_quantile
from perfeval.stats.replicates import CHUNK_CELLS, JACK_GROUPS
from perfeval.summaries.regression import (
    TM_MAPE_EPS,
    LostBits,
    RegressionSummary,
    beyond_rows,
    checked_products,
    deviance_rows,
    exact_sum,
    log_rows,
    lost_reason,
    mape_tm_rows,
    no_percentage,
    row_sums,
)

__all__ = [
    "MEAN_LOSSES",
    "Replicas",
    "checked",
    "losses",
    "regression_ci",
    "regression_compare",
    "regression_how",
    "regression_measures",
]

#: the regression measures that are the (weighted) mean of a per-case loss: Student's t applies
MEAN_LOSSES = ("MAE", "MSE_REG", "MAPE", "PINBALL", "POISSON_DEV", "GAMMA_DEV", "TWEEDIE_DEV", "MSLE")

#: the row sums (summaries/regression.py's ROW_SUMS) each measure is finished from, besides the
#: weights; a measure not named here is finished from a whole summary (every sum)
_SUMS = {
    "MAE": ("sabs",),
    "MSE_REG": ("srr",),
    "RMSE_REG": ("srr",),
    "R2": ("sy", "syy", "srr"),
    "EXPVAR": ("sy", "syy", "sr", "srr"),
    "MAPE": ("sape",),
    "PINBALL": ("spos", "sr"),
    "MEDAE": (),
    "POISSON_DEV": (),
    "GAMMA_DEV": (),
    "TWEEDIE_DEV": (),
    "MSLE": (),
    "RMSLE": (),
    "MAXERR": (),
}

_EPS = float(np.finfo(np.float64).eps)  # MAPE's floor of |y| (scikit-learn's)


def _names(measures: Any) -> Any:
    """Measure names as :func:`perfeval.stats.api.specs_of` reads them (one name may hold a comma
    inside its parameters).
    """
    return [measures] if isinstance(measures, str) and "," not in measures else measures


def regression_how(y_true: Any, measures: Any, task: Any, pos_label: Any) -> str | None:
    """How a call of ``ci``/``compare`` is a regression, in evaluate()'s words
    (:func:`perfeval.engine.regression.regression_task`: ``task="regression"``, a regression measure
    named, or a target of real values asked only ``rmse``/``mse``), or None; ``pos_label`` with
    ``task="regression"`` is one line.
    """
    from perfeval.engine.regression import regression_task

    how = regression_task(y_true, _names(measures), task=task, pos_label=pos_label)
    if how is not None and pos_label is not None:
        raise InvalidParameterError(f"pos_label= does not apply to a regression target ({how})")
    return how


def regression_measures(measures: Any, threshold: float) -> list:
    """The measures asked, read for a regression target (``rmse`` is RMSE_REG, ``mse`` MSE_REG; a
    measure that has no regression form is one line naming the regression measures).
    """
    from perfeval.engine.finish import resolve
    from perfeval.engine.regression import regression_specs

    return regression_specs(resolve(_names(measures), threshold, pending=True))


def checked(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    sample_weight: Any,
    name: str = "y_score",
    weight_name: str = "sample_weight",
) -> Any:
    """evaluate()'s check of a regression's arrays (targets and predictions finite float64, the
    first bad one named by its index and ``name``; ids; weights, the rows of weight 0 dropped, named
    ``weight_name``, the keyword as the user typed it).
    """
    from perfeval.engine.regression import check_regression

    return check_regression(
        y_true, y_pred, groups, sample_weight, names=("y_true", name), weight_name=weight_name
    )


def losses(spec: Any, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The per-case loss whose mean is ``spec``'s value (a measure of :data:`MEAN_LOSSES`)."""
    name = spec.measure.name
    r = y - s
    if name == "MAE":
        return np.abs(r)
    if name == "MSE_REG":
        return r * r
    if name == "MAPE":  # |y| floored at MAPE's eps (torchmetrics' 1.17e-06, or scikit-learn's)
        floor = TM_MAPE_EPS if spec.kwargs.get("eps") == "torchmetrics" else _EPS
        return np.abs(r) / np.maximum(np.abs(y), floor)
    if name == "PINBALL":
        a = float(spec.kwargs["alpha"])
        return a * np.maximum(r, 0.0) + (1.0 - a) * np.maximum(-r, 0.0)
    if name in ("POISSON_DEV", "GAMMA_DEV", "TWEEDIE_DEV"):
        p = {"POISSON_DEV": 1.0, "GAMMA_DEV": 2.0}.get(name, float(spec.kwargs.get("power", 0.0)))
        return deviance_rows(y, s, p)[0]
    if name == "MSLE":  # its estimate is NaN when a row is outside the domain: no interval then
        d = log_rows(y, s)[0]
        return d * d
    raise InvalidParameterError(f"{spec.label} is not the mean of a per-case loss")  # pragma: no cover


class Replicas:
    """One model's rows made ready for the summaries of any case weights: :meth:`values` of weights
    ``v`` (float64 >= 0, one a case) is every measure of ``specs`` on the cases weighted by ``v``
    (``evaluate(y, s, sample_weight=v)``'s values), from the exact sums each reads.
    """

    def __init__(self, y: np.ndarray, s: np.ndarray, specs: list):
        from perfeval.engine.regression import needs

        self.y = np.ascontiguousarray(y, np.float64)
        self.s = np.ascontiguousarray(s, np.float64)
        self.n = len(self.y)
        self.specs = specs
        self.need = needs(specs)
        names = {sp.measure.name for sp in specs}
        #: a measure whose sums are not known here: every replicate a whole summary
        self.whole = any(n not in _SUMS for n in names)
        self.keys = tuple(dict.fromkeys(k for n in names for k in _SUMS.get(n, ())))
        self.zero = no_percentage(self.y) if "MAPE" in names else None
        rows = [deviance_rows(self.y, self.s, p) for p in self.need["powers"]]
        #: each power's cases whose deviance is beyond float64's range, and those whose steps lost
        #: their bits below its normal range (left out of the sums: a replicate that draws one is NaN
        #: for the measures that read it, as evaluate() says)
        self.dev_big = [
            beyond_rows(self.y, self.s, p, ~np.isfinite(d) & ~low)
            for p, (d, _, low) in zip(self.need["powers"], rows, strict=True)
        ]
        self.dev_low = [low for _, _, low in rows]
        self.devs = [(np.where(~np.isfinite(d) | low, 0.0, d), ok) for d, ok, low in rows]
        self.tm_mape = None  # MAPE:eps=torchmetrics's per-case term (0 where beyond float64's range)
        self.tm_big = None  # the cases where it is: a replicate that draws one is NaN for that MAPE
        if self.need["mape_tm"]:
            self.tm_mape, self.tm_big = mape_tm_rows(self.y, self.s)
        self.sle = None  # MSLE's and RMSLE's per-case log error and domain
        if self.need["msle"]:
            self.sle = log_rows(self.y, self.s)
        self.absr = np.abs(self.y - self.s) if self.need["maxerr"] else None
        self.order = None
        if self.need["medae"]:
            a = np.abs(self.y - self.s)
            self.order = np.argsort(a, kind="stable")
            self.sorted_abs = a[self.order]

    def summary(self, v: np.ndarray) -> RegressionSummary:
        """The summary of the cases weighted by ``v``: the sums the measures read (the others 0)."""
        if self.whole:
            return RegressionSummary.from_checked(self.y, self.s, v, **self.need)
        lost: set[str] = set()  # the sums a product of which lost bits (the measures reading one: NaN)
        over: set[str] = set()  # the sums a drawn case's term of which is beyond float64's range
        try:
            got = row_sums(None, self.y, self.s, v, (*self.keys, "weight"), lost=lost, over=over)
        except OverflowError as e:
            raise InvalidDataError(
                f"a bootstrap replicate: {e} (a case weighs up to ~20 times its weight)"
            ) from None
        sums = {k: got[k][0][0] for k in got}
        fields: dict[str, Any] = {"rows": self.n, "weighted": True, **sums}
        if self.zero is not None:
            fields["zero_weight"] = exact_sum(v[self.zero])
            fields["zero_rows"] = int(np.count_nonzero(v[self.zero] > 0))
        if self.devs:
            fields["powers"] = self.need["powers"]
            devs = [checked_products(d, v) for d, _ in self.devs]
            fields["dev"] = tuple(t for t, _ in devs)
            lost.update(f"dev{p!r}" for p, (_, bits) in zip(self.need["powers"], devs, strict=True) if bits)
            flagged = [kr for big in self.dev_big for kr in big]
            flagged += [
                (f"devlow{p!r}", low) for p, low in zip(self.need["powers"], self.dev_low, strict=True)
            ]
            over.update(key for key, rows in flagged if rows.any() and (v[rows] > 0).any())
            fields["bad"] = tuple(exact_sum(v[~ok]) for _, ok in self.devs)
            fields["bad_rows"] = tuple(int(np.count_nonzero(v[~ok] > 0)) for _, ok in self.devs)
        if self.tm_mape is not None:
            if self.tm_big is not None and (v[self.tm_big] > 0).any():
                over.add("sape_tm")
            sape_tm, bits = checked_products(self.tm_mape, v)
            fields.update(mape_tm=True, sape_tm=sape_tm)
            if bits:
                lost.add("sape_tm")
        if self.sle is not None:
            d, ok = self.sle
            try:
                sle, bits = checked_products(d, d, v)
            except OverflowError:
                raise InvalidDataError(
                    "a bootstrap replicate: a squared log error times a weight is beyond the range of a "
                    "64-bit float (a case weighs up to ~20 times its weight)"
                ) from None
            if bits:
                lost.add("sle")
            bad = v[~ok]
            fields.update(
                msle=True, sle=sle, sle_bad=exact_sum(bad), sle_bad_rows=int(np.count_nonzero(bad > 0))
            )
        if self.absr is not None:
            drawn = self.absr[v > 0]
            fields.update(maxerr=True, maxabs=float(drawn.max()) if len(drawn) else 0.0)
        if self.order is not None:  # every case, sorted by |r|, with its weight (0: no case)
            fields.update(medae=True, absres=self.sorted_abs, absw=v[self.order])
        return RegressionSummary(**fields, lost=frozenset(lost), over=frozenset(over))

    def values(self, v: np.ndarray) -> np.ndarray:
        """Every measure on the cases weighted by ``v`` (NaN where undefined, and where a sum it reads
        lost bits below ``2**-1074``: an undefined replicate, as evaluate() makes such a measure NaN;
        more than 5% of them leave no interval, :func:`perfeval.stats.intervals.interval`).
        """
        rep = self.summary(v)
        out = np.empty(len(self.specs), dtype=np.float64)
        with np.errstate(all="ignore"):
            for i, sp in enumerate(self.specs):
                try:
                    out[i] = float(sp.measure.function()(rep, **sp.kwargs).value)
                except LostBits:
                    out[i] = math.nan
        return out


def undefined_note(
    models: list[Replicas], reps: list[np.ndarray], i: int, w: np.ndarray | None, seed: int, what: str
) -> str:
    """Why a bootstrap of the measure ``models[0].specs[i]`` (replicate values ``reps``, one
    (n_boot, measures) array a model; more than one: a paired test, a replicate undefined where one
    model's value is) has no interval or test: how many replicates leave it undefined, and the
    measure's own reason in the first of them (its case weights drawn again: the Poisson(1) draws of
    (seed, r, case), as :func:`replicates` draws them); '' when no more than 5% of them are.
    """
    bad = np.zeros(len(reps[0]), dtype=bool)
    for r in reps:
        bad |= np.isnan(r[:, i])
    k, n_boot = int(np.count_nonzero(bad)), len(bad)
    if k <= 0.05 * n_boot:
        return ""
    sp = models[0].specs[i]
    why = first_reason(models, reps, i, w, seed)
    return (
        f"no {what}: {k} of the {n_boot} replicates ({k / n_boot:.1%}, more than 5%) leave "
        f"{sp.label} undefined" + (f" (in the first of them: {why})" if why else "") + ": no "
        f"{what} from a biased subset"
    )


def first_reason(
    models: list[Replicas], reps: list[np.ndarray], i: int, w: np.ndarray | None, seed: int
) -> str:
    """The measure ``models[0].specs[i]``'s own reason in the first replicate that leaves it undefined
    (its case weights drawn again: the Poisson(1) draws of (seed, r, case), as :func:`replicates`
    draws them); '' when no replicate does, or the measure gives none.
    """
    bad = np.zeros(len(reps[0]), dtype=bool)
    for r in reps:
        bad |= np.isnan(r[:, i])
    if not bad.any():
        return ""
    r0 = int(np.flatnonzero(bad)[0])
    v = np.frombuffer(_native.poisson_rows(models[0].n, seed, r0, r0 + 1), np.float64).copy()
    if w is not None:
        v = v * w
    sp = models[0].specs[i]
    for m, r in zip(models, reps, strict=True):
        if np.isnan(r[r0, i]):
            try:
                with np.errstate(all="ignore"):
                    return sp.measure.function()(m.summary(v), **sp.kwargs).why or ""
            except LostBits:
                return lost_reason(sp.measure.name)
    return ""


def estimates(cases: Any, specs: list) -> np.ndarray:
    """Every measure on the cases: evaluate()'s values (finish_regression's summary)."""
    from perfeval.engine.regression import needs, summary_values

    try:
        summary = RegressionSummary.from_checked(cases.y, cases.s, cases.w, **needs(specs))
    except OverflowError as e:
        raise InvalidDataError(str(e)) from None
    got = summary_values(specs, summary)
    return np.array([float(got[sp.label].value) for sp in specs], dtype=np.float64)


def _base(n: int, w: np.ndarray | None) -> np.ndarray:
    return np.ones(n) if w is None else np.asarray(w, np.float64)


def replicates(
    models: list[Replicas], w: np.ndarray | None, seed: int, n_boot: int, progress: bool
) -> list[np.ndarray]:
    """Each model's replicate values (an (n_boot, measures) array), every model on the same case
    weights in replicate r: Poisson(1) draws of (seed, r, case), times the case weights.
    """
    n = models[0].n
    k = len(models[0].specs)
    outs = [np.empty((n_boot, k)) for _ in models]
    step = max(1, CHUNK_CELLS // max(1, n))
    labels = [sp.label for sp in models[0].specs]
    desc = "bootstrap " + ", ".join(labels[:4]) + (", ..." if len(labels) > 4 else "")
    with _progress.bar(progress, n_boot, desc, "replicates") as meter:
        for r0 in range(0, n_boot, step):
            r1 = min(n_boot, r0 + step)
            P = np.frombuffer(_native.poisson_rows(n, seed, r0, r1), np.float64).reshape(r1 - r0, n)
            for r in range(r1 - r0):
                v = P[r] if w is None else P[r] * w
                for out, m in zip(outs, models, strict=True):
                    out[r0 + r] = m.values(v)
                meter.update(1)
    return outs


def jackknife(models: list[Replicas], w: np.ndarray | None) -> list[np.ndarray]:
    """Each model's delete-a-group jackknife values ((G, measures)): G = min(100, n) groups, case i
    in group i mod G (the binary generic path's groups).
    """
    n = models[0].n
    G = min(JACK_GROUPS, n)
    base = _base(n, w)
    outs = [np.empty((G, len(models[0].specs))) for _ in models]
    for g in range(G):
        v = base.copy()
        v[g::G] = 0.0
        for out, m in zip(outs, models, strict=True):
            out[g] = m.values(v)
    return outs


def _refuse(method: str, specs: list, w: Any, n: int, what: str) -> None:
    """DeLong's method for a regression measure, or Student's t for a measure that is no mean loss,
    with case weights, or with fewer than 2 cases: one line.
    """
    if method == "delong":
        raise InvalidParameterError(
            f"DeLong's {what} is for the ROC area, not {specs[0].label}; for a regression measure use "
            "method='bca', 'percentile', or 't' (Student's t, of a mean loss: "
            f"{', '.join(MEAN_LOSSES)})"
        )
    if method != "t":
        return
    for sp in specs:
        if sp.measure.name not in MEAN_LOSSES:
            raise InvalidParameterError(
                f"Student's t is for a mean of per-case losses ({', '.join(MEAN_LOSSES)}), not "
                f"{sp.label}; use method='bca' or 'percentile'"
            )
    if w is not None:
        raise InvalidParameterError(
            "Student's t reads each case once: with case weights use method='bca' or 'percentile'"
        )
    if n < 2:
        raise InvalidDataError(f"Student's t needs at least 2 cases, got {n}")


def _t_interval(center: float, x: np.ndarray, level: float, what: str) -> tuple[float, float, float, str]:
    """(low, high, standard error, note) of the t interval ``center -+ t(n - 1, (1 + level) / 2) s /
    sqrt(n)``, ``s`` the standard deviation of the n per-case values ``x`` (losses, or their
    differences: ``what``).  Computed at a power-of-two scale where the values' squares would leave
    float64's range (:func:`~perfeval.stats.intervals.spread`: data about 1e200 or 1e-200; the same
    bits as unscaled elsewhere); a number beyond the range, or nonzero below its normal range, NaN
    and the note says why (never an infinity, nor a 0 for a nonzero number).
    """
    n = len(x)
    if not np.isfinite(x).all():
        why = f"no interval: a case's {what} is beyond the range of a 64-bit float"
        return math.nan, math.nan, math.nan, why
    s, k = spread(x)
    se_s = s / math.sqrt(n)
    half_s = student_t_quantile((1.0 + level) / 2.0, n - 1.0) * se_s
    se, half = unscaled(se_s, k), unscaled(half_s, k)
    if math.isnan(se):
        return math.nan, math.nan, math.nan, "no interval: " + range_why("the standard error", se_s, k)
    if math.isnan(half):
        return math.nan, math.nan, se, "no interval: " + range_why("the interval's half-width", half_s, k)
    with np.errstate(over="ignore"):
        lo, hi = center - half, center + half
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return math.nan, math.nan, se, "no interval: a bound is beyond the range of a 64-bit float"
    return lo, hi, se, ""


def regression_ci(
    cases: Any, specs: list, *, method: str, level: float, n_boot: int, seed: int, progress: bool = False
) -> dict[str, Any]:
    """:func:`perfeval.ci` of regression measures over all cases (``cases``: checked by
    :func:`checked`, no groups; ``specs``: by :func:`regression_measures`).
    """
    _refuse(method, specs, cases.w, len(cases.y), "interval")
    est = estimates(cases, specs)
    out: dict[str, Any] = {}
    if method == "t":
        y, s = np.asarray(cases.y, np.float64), cases.s
        for i, sp in enumerate(specs):
            e = float(est[i])
            if not math.isfinite(e):
                out[sp.label] = Interval(sp.label, e, math.nan, math.nan, level, "t", 0, math.nan)
                continue
            with np.errstate(over="ignore"):
                x = losses(sp, y, s)
            lo, hi, se, note = _t_interval(e, x, level, "loss")
            out[sp.label] = Interval(sp.label, e, lo, hi, level, "t", 0, se, note=note)
        return out
    model = Replicas(cases.y, cases.s, specs)
    reps = replicates([model], cases.w, seed, n_boot, progress)[0]
    jack: list[np.ndarray] = []
    for i, sp in enumerate(specs):

        def accel(i: int = i) -> float:
            if not jack:
                jack.extend(jackknife([model], cases.w))
            return acceleration(jack[0][:, i], None)

        lo, hi, sd, note = interval(float(est[i]), reps[:, i], level, method, accel)
        if math.isnan(lo) and math.isfinite(float(est[i])) and not note:
            note = undefined_note([model], [reps], i, cases.w, seed, "interval")
        dropped = ""
        if np.isnan(reps[:, i]).any() and math.isfinite(lo):  # up to 5%: the measure's reason in the first
            why = first_reason([model], [reps], i, cases.w, seed)
            dropped = undefined_left_out(reps[:, i], float(est[i]), lo, why=why)
        out[sp.label] = Interval(
            sp.label, float(est[i]), lo, hi, level, method, n_boot, sd, "cases", seed, note, dropped
        )  # fmt: skip
    return out


def method_of(spec: Any, method: str | None, weighted: bool, n: int) -> str:
    """The test of a regression measure's comparison: ``method`` when given; by default the paired
    t-test for a mean loss over at least 2 unweighted cases, else the BCa bootstrap.
    """
    if method is not None:
        return method
    if spec.measure.name in MEAN_LOSSES and not weighted and n >= 2:
        return "t"
    return "bca"


def regression_compare(
    models: list[Any],
    base: Any,
    specs: list,
    *,
    method: str | None,
    level: float,
    n_boot: int,
    seed: int,
    progress: bool = False,
) -> list[dict[str, Comparison]]:
    """:func:`perfeval.compare` of regression measures over all cases, each model of ``models``
    against ``base`` (each checked by :func:`checked`: the same targets and weights).
    """
    n, w = len(base.y), base.w
    methods = {sp.label: method_of(sp, method, w is not None, n) for sp in specs}
    for sp in specs:
        _refuse(methods[sp.label], [sp], w, n, "test")
    ests = [estimates(c, specs) for c in [*models, base]]
    boot = [i for i, sp in enumerate(specs) if methods[sp.label] not in ANALYTIC]
    bspecs = [specs[i] for i in boot]
    reps: list[np.ndarray] = []
    reps_models: list[Replicas] = []
    if bspecs:
        reps_models = [Replicas(c.y, c.s, bspecs) for c in [*models, base]]
        reps = replicates(reps_models, w, seed, n_boot, progress)
    jack: list[np.ndarray] = []
    y = np.asarray(base.y, np.float64)
    base_losses: dict[str, np.ndarray] = {}
    results = []
    for m, ca in enumerate(models):
        out: dict[str, Comparison] = {}
        for i, sp in enumerate(specs):
            ea, eb = float(ests[m][i]), float(ests[-1][i])
            with np.errstate(all="ignore"):
                diff = ea - eb
            tested = bool(np.isfinite(diff))
            how = methods[sp.label]
            if how == "t":
                lo = hi = se = pv = math.nan
                note = ""
                if tested:
                    if sp.label not in base_losses:
                        with np.errstate(over="ignore"):
                            base_losses[sp.label] = losses(sp, y, base.s)
                    with np.errstate(over="ignore"):
                        la, lb = losses(sp, y, ca.s), base_losses[sp.label]
                    with np.errstate(all="ignore"):
                        d = la - lb
                    lo, hi, se, note = _t_interval(diff, d, level, "loss difference")
                    if np.isfinite(d).all():  # t is computed at a power-of-two scale
                        pv = paired_t_test(la, lb)
                out[sp.label] = Comparison(sp.label, ea, eb, diff, lo, hi, pv, level, "t", 0, se, note=note)
                continue
            j = boot.index(i)

            def accel(j: int = j, m: int = m) -> float:
                if not jack:
                    jack.extend(jackknife(reps_models, w))
                return acceleration(jack[m][:, j] - jack[-1][:, j], None)

            with np.errstate(all="ignore"):
                d = reps[m][:, j] - reps[-1][:, j]
            lo, hi, sd, note, p, floor = paired_test(diff, d, level, how, accel, tested)
            if tested and math.isnan(lo) and not note:
                note = undefined_note(
                    [reps_models[m], reps_models[-1]], [reps[m], reps[-1]], j, w, seed, "interval or test"
                )
            out[sp.label] = Comparison(
                sp.label, ea, eb, diff, lo, hi, p, level, how, n_boot, sd, "cases", seed, floor, note
            )
        results.append(out)
    return results
