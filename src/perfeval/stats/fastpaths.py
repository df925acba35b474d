"""The fast paths of the statistics, one table keyed by measure.

Any measure gets a bootstrap interval the generic way: its value on each replicate's summary, and a
delete-a-group jackknife for the BCa acceleration (:mod:`perfeval.stats.replicates`).  A measure
with a closed form can do better, and says so here, in one entry of :data:`FAST_PATHS` (canonical
measure name -> :class:`FastPaths`); :func:`perfeval.stats.ci`, :func:`perfeval.stats.compare` and
the replicate engines look the entry up and take whatever it offers:

* a replicate plan (:class:`Plan`): the statistics of a replicate summary the measure is finished
  from, gathered by the compiled walk of ``csrc/resample.c`` for every measure of a request in
  the same walk over the cells, eight replicates side by side on every core (the draws are paid
  once, and never stored), then finished in numpy over all the replicates at once.  The
  statistics are those the measure's own function reads (the confusion counts, the sums of
  squares, the APR numerator, ...), so a replicate's value is the measure of that replicate's
  summary, to the rounding of a sum taken in another order.  The same walk gives the
  delete-a-group jackknife of the BCa acceleration;
* an exact jackknife, from a summary (leave one case of each (cell, class) out) and per case;
* DeLong's exact variance: an interval from a summary and a paired test from the cases;
* Wald's interval of a fitted coefficient (the logistic calibration fits), from a summary.

The ROC area has every one of them; every other binary measure of the registry has a plan (PERF's,
and BRIER, LOGLOSS, AP, ERR, FPR, FNR, FBETA, CST, NTOP,
SELRATE), and so have issue 33's operating points,
partial AUC, threshold choices, ECE and MCE, BRIER_UNC and Murphy's form of BRIER_MCB and BRIER_DSC:
their statistics need each replicate's P and N first (a rate, an equal-mass bin, the share of
positives), so the walk goes down the cells a second time, on the same draws, once it has them
(docs/statistics.md says which measures and choices are computed the generic way, and why).
CAL_SLOPE and CAL_INTERCEPT have Wald's interval.  Adding a fast path for another measure is one
entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval.measures import _formulas as formulas
from perfeval.stats.delong import (
    DeLongComparison,
    DeLongResult,
    case_components,
    components,
    delong_from_histogram,
    delong_test,
)

__all__ = ["FAST_PATHS", "FastPaths", "Plan", "fast_paths"]


@dataclass(frozen=True)
class FastPaths:
    """What a measure offers beyond the generic bootstrap (None: not offered).

    Attributes
    ----------
    jack_summary : callable, optional
        ``summary -> (values, multiplicities)``: the exact leave-one-out values of unweighted cases.
    jack_cases : callable, optional
        ``cases -> values``: the exact leave-one-out value of each case, in case order (weighted
        cases: the whole case).
    delong : callable, optional
        ``(summary, level) -> DeLongResult``: DeLong's interval.
    delong_test : callable, optional
        ``(y, score_a, score_b, weights or None, level) -> DeLongComparison``: DeLong's paired test.
    wald : callable, optional
        ``(spec, summary, level) -> (estimate, low, high, se)``: Wald's interval of a fitted
        coefficient (the logistic calibration fits: the inverse of the fit's information).
    """

    jack_summary: Callable[[Any], tuple[np.ndarray, np.ndarray]] | None = None
    jack_cases: Callable[[Any], np.ndarray] | None = None
    delong: Callable[[Any, float], DeLongResult] | None = None
    delong_test: Callable[[Any, Any, Any, Any, float], DeLongComparison] | None = None
    wald: Callable[[Any, Any, float], tuple[float, float, float, float]] | None = None
    plan: Callable[[Any], Plan | None] | None = None


# -- replicate plans ---------------------------------------------------------------------------------

# the kinds of statistics of the compiled finishers (REP_* in csrc/resample.c), REP_WIDTH each
ROC_K, APR_K, SQ_K, CXE_K, THR_K, R50_K, RKL_K, TOP1_K, TOP10_K, NTOP_K, SLQ_K, CA1_K, CA2_K = range(13)
LL_K, AP_K, NRM_K = range(13, 16)
# issue 33's (csrc/resample.c says what each gathers)
ARG_K, TOT_K, ECEW_K, ECEM_K, MURPHY_K, PAUC_FPR_K, PAUC_TPR_K = range(16, 23)
TPR_FPR_K, SEN_SPC_K, SPC_SEN_K, PRE_REC_K, REC_PRE_K = range(23, 28)
YOUDEN_K, TOPLEFT_K, FBETA_K, MCC_K, COST_K = range(28, 33)
REP_WIDTH = 4


@dataclass(frozen=True)
class Plan:
    """How a measure is finished from the statistics of replicate summaries.

    Attributes
    ----------
    stats : tuple of (kind, parameter, *arguments)
        The statistics it reads (kinds of the compiled finishers); a kind of several parameters has
        its further ones as arguments (each an ``(ARG_K, argument)`` pair after it in the plan).
    finish : callable
        ``[array (replicates x REP_WIDTH) per statistic] -> values``, vectorised over replicates.
    counts : bool
        Whether the statistics need whole-number weights (APR, CA2): with other case weights the
        measure is computed the generic way (which says why it cannot be).
    """

    stats: tuple[tuple[float, ...], ...]
    finish: Callable[[list[np.ndarray]], np.ndarray]
    counts: bool = False


def _where(ok: np.ndarray, num: np.ndarray, den: np.ndarray | None = None) -> np.ndarray:
    with np.errstate(all="ignore"):
        v = num if den is None else num / den
    return np.where(ok, v, np.nan)


def _roc_value(t: np.ndarray) -> np.ndarray:
    return _where((t[:, 1] > 0) & (t[:, 2] > 0), t[:, 0], t[:, 1] * t[:, 2])


def _rms_value(t: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _where(t[:, 1] > 0, np.sqrt(t[:, 0] / t[:, 1]))


def _threshold_formula(spec: Any) -> Callable[..., Any]:
    name = spec.measure.compute.rsplit(":", 1)[1]
    name = {"pre": "ppv", "rec": "sen"}.get(name, name)
    kw = {k: v for k, v in spec.kwargs.items() if k != "threshold"}
    formula = getattr(formulas, name)
    return lambda tp, fn, fp, tn: formula(tp, fn, fp, tn, **kw)


def _threshold_plan(spec: Any) -> Plan:
    formula = _threshold_formula(spec)

    def finish(st: list[np.ndarray]) -> np.ndarray:
        t = st[0]
        return np.asarray(formula(t[:, 0], t[:, 1], t[:, 2], t[:, 3]), np.float64)

    return Plan(((THR_K, float(spec.kwargs["threshold"])),), finish)


def _sar_plan(spec: Any) -> Plan:
    kw = spec.kwargs
    wa, wr, wm = kw["w_acc"], kw["w_roc"], kw["w_rms"]
    wsum = wa + wr + wm

    def finish(st: list[np.ndarray]) -> np.ndarray:
        t = st[0]
        acc = np.asarray(formulas.acc(t[:, 0], t[:, 1], t[:, 2], t[:, 3]), np.float64)
        with np.errstate(all="ignore"):
            total = wa * acc + wr * _roc_value(st[1]) + wm * (1 - _rms_value(st[2]))
            return total / wsum if wsum != 0 else np.full(len(t), np.nan)

    return Plan(((THR_K, float(kw["threshold"])), (ROC_K, 0.0), (SQ_K, 0.0)), finish)


def _value_plan(kind: int, param: str | float | None = None, counts: bool = False) -> Callable[[Any], Plan]:
    """A measure whose finisher gives its value (the first statistic)."""

    def plan(spec: Any) -> Plan:
        par = spec.kwargs[param] if isinstance(param, str) else (param or 0.0)
        return Plan(((kind, float(par)),), lambda st: st[0][:, 0].copy(), counts)

    return plan


#: the longest CA2 window the compiled walk takes (CA2_MAX in csrc/resample.c: a ring of that many
#: cases per replicate); a longer one is computed the generic way
CA2_MAX_WINDOW = 1 << 20


def _ca2_plan(spec: Any) -> Plan | None:
    if spec.kwargs["window"] > CA2_MAX_WINDOW:
        return None
    return _value_plan(CA2_K, "window", counts=True)(spec)


def _plan(
    kind: int, finish: Callable[[np.ndarray], np.ndarray], counts: bool = False
) -> Callable[[Any], Plan]:
    return lambda spec: Plan(((kind, 0.0),), lambda st: finish(st[0]), counts)


def _apr_value(t: np.ndarray) -> np.ndarray:
    return _where((t[:, 2] > 0) & (t[:, 1] > 0), t[:, 0], t[:, 1])


def _brier_value(t: np.ndarray) -> np.ndarray:
    return _where(t[:, 1] > 0, t[:, 0], t[:, 1])


def _cxe_value(t: np.ndarray) -> np.ndarray:
    """CXE and LOGLOSS: (the positives' sum + the negatives') / n; NaN without data or with a drawn
    score outside [0, 1].
    """
    with np.errstate(all="ignore"):
        return _where((t[:, 2] > 0) & (t[:, 3] > 0), (t[:, 0] + t[:, 1]) / t[:, 2])


def _logloss_plan(spec: Any) -> Plan:
    return Plan(((LL_K, float(spec.kwargs["eps"])),), lambda st: _cxe_value(st[0]))


def _ap_value(t: np.ndarray) -> np.ndarray:
    """AP: the sum of each cell's positives times its precision, over P; NaN without a positive."""
    return _where(t[:, 1] > 0, t[:, 0], t[:, 1])


def _nrm_plan(spec: Any) -> Plan:
    p = float(spec.kwargs["p"])

    def finish(st: list[np.ndarray]) -> np.ndarray:
        t = st[0]
        if p == 0:  # 1, as PERF (NaN without data)
            return np.where(t[:, 1] > 0, 1.0, np.nan)
        with np.errstate(all="ignore"):
            return _where(t[:, 1] > 0, (t[:, 0] / t[:, 1]) ** (1.0 / p))

    return Plan(((NRM_K, p),), finish)


def plan_stats(plans: list[Plan]) -> tuple[np.ndarray, list[list[int]]]:
    """The compiled finishers' plan (kind, parameter pairs) of several measures, each statistic
    once (its arguments as ``(ARG_K, argument)`` pairs after it), and for each measure the positions
    of its statistics in it (a pair's position: its REP_WIDTH statistics in the walk's output).
    """
    at: dict[tuple[float, ...], int] = {}
    flat: list[float] = []

    def place(st: tuple[float, ...]) -> int:
        if st not in at:
            at[st] = len(flat) // 2
            flat.extend((st[0], st[1]))
            for arg in st[2:]:
                flat.extend((ARG_K, arg))
        return at[st]

    where = [[place(st) for st in p.stats] for p in plans]
    return np.array(flat, np.float64), where


def finish_plans(plans: list[Plan], where: list[list[int]], stats: np.ndarray) -> list[np.ndarray]:
    """The values of each measure from the statistics (replicates x statistics x REP_WIDTH)."""
    with np.errstate(all="ignore"):
        return [p.finish([stats[:, k, :] for k in w]) for p, w in zip(plans, where, strict=True)]


# -- issue 33: operating points, partial AUC, threshold choice, calibration -----------------------

#: each operating point's kind and its target parameter (None: no parameter)
_PICKS: dict[str, tuple[int, str | None]] = {
    "TPR_AT_FPR": (TPR_FPR_K, "max_fpr"),
    "SEN_AT_SPC": (SEN_SPC_K, "min_specificity"),
    "SPC_AT_SEN": (SPC_SEN_K, "min_sensitivity"),
    "PRE_AT_REC": (PRE_REC_K, "min_recall"),
    "REC_AT_PRE": (REC_PRE_K, "min_precision"),
    "YOUDEN": (YOUDEN_K, None),
    "TOPLEFT": (TOPLEFT_K, None),
    "BEST_FBETA": (FBETA_K, "beta"),
    "BEST_MCC": (MCC_K, None),
}


def _pick_of(spec: Any) -> Callable[[list[np.ndarray]], np.ndarray]:
    """The value (of=value) or the threshold (of=threshold) of the point the walk picked."""
    col = 1 if spec.kwargs["of"] == "threshold" else 0
    return lambda st: st[0][:, col].copy()


def _pick_plan(spec: Any) -> Plan:
    """An operating point (measures/operating.py): the walk evaluates every point of a replicate
    with the measure's arithmetic and keeps the one _pick keeps (its value and its threshold).  A
    target's arguments are its decimal M 10**-D (M's digits above 10**9, those below, D: whole
    numbers a float64 holds exactly), for the exact decision near the target.
    """
    kind, param = _PICKS[spec.measure.name]
    par = 0.0 if param is None else float(spec.kwargs[param])
    if kind > REC_PRE_K:
        return Plan(((kind, par),), _pick_of(spec))
    from perfeval.measures.operating import target_decimal

    m, d = target_decimal(par)
    return Plan(((kind, par, float(m // 10**9), float(m % 10**9), float(d)),), _pick_of(spec))


def _cost_plan(spec: Any) -> Plan:
    kw = spec.kwargs
    costs = (float(kw["tp"]), float(kw["fn"]), float(kw["fp"]), float(kw["tn"]))
    return Plan(((COST_K, *costs),), _pick_of(spec))


def _pauc_plan(spec: Any) -> Plan:
    kw = spec.kwargs
    hi, lo = float(kw["hi"]), float(kw["lo"])
    kind = PAUC_FPR_K if kw["focus"] == "fpr" else PAUC_TPR_K
    if kw["focus"] == "fpr":
        least = (hi * hi - lo * lo) / 2
    else:
        least = (hi - lo) - (hi * hi - lo * lo) / 2
    mcclish = kw["correct"] == "mcclish"

    def finish(st: list[np.ndarray]) -> np.ndarray:
        t = st[0]
        area = t[:, 0]
        if mcclish:  # operating._pauc's arithmetic
            with np.errstate(all="ignore"):
                area = (1 + (area - least) / ((hi - lo) - least)) / 2
        return np.where(t[:, 1] > 0, area, np.nan)

    return Plan(((kind, hi, lo),), finish)


#: the most bins of an ECE the compiled walk takes (ECE_MAX_BINS in csrc/resample.c: three sums a
#: bin in every lane); more are computed the generic way
ECE_MAX_BINS = 1 << 16


def _ece_plan(spec: Any) -> Plan | None:
    """ECE (MCE: norm=max): the walk's bins give every norm (l1, l2, debiased l2, max); equal-mass
    bins are placed from each replicate's total (whole counts: exact), the debiased form needs
    whole counts as the measure does.
    """
    kw = spec.kwargs
    B = int(kw["n_bins"])
    if B > ECE_MAX_BINS:
        return None
    norm, debiased = kw.get("norm", "max"), kw.get("debiased", "no")
    mass = kw["bins"] == "mass"
    if debiased == "yes" and norm != "l2":  # no such estimator (refused when the spec is read)
        return None
    col = {"l1": 0, "l2": 2 if debiased == "yes" else 1, "max": 3}[norm]
    return Plan(
        ((ECEM_K if mass else ECEW_K, float(B)),),
        lambda st: st[0][:, col].copy(),
        counts=mass or debiased == "yes",
    )


def _murphy_plan(part: int) -> Callable[[Any], Plan | None]:
    """BRIER_MCB (part 0) or BRIER_DSC (part 1) of Murphy's form: the sums over the drawn cells
    divided by n (MCB NaN with a drawn score outside [0, 1]); the CORP form is computed the generic
    way (docs/statistics.md and tests/test_replicate_plans.py's GENERIC_CHOICES say why).
    """

    def plan(spec: Any) -> Plan | None:
        if spec.kwargs["form"] != "murphy":
            return None

        def finish(st: list[np.ndarray]) -> np.ndarray:
            t = st[0]
            with np.errstate(all="ignore"):
                v = t[:, part] / t[:, 2]
            return np.where(t[:, 3] > 0, v, np.nan) if part == 0 else v

        return Plan(((MURPHY_K, 0.0),), finish)

    return plan


def _unc_value(t: np.ndarray) -> np.ndarray:
    """BRIER_UNC: (P / n) (N / n) (NaN without a case; not o (1 - o), whose 1 - o loses the digits of a
    rare negative class).
    """
    with np.errstate(all="ignore"):
        n = t[:, 0] + t[:, 1]
        return (t[:, 0] / n) * (t[:, 1] / n)


# -- the ROC area ------------------------------------------------------------------------------------


def jack_roc_hist(h: Any) -> tuple[np.ndarray, np.ndarray]:
    """Exact leave-one-out ROC areas, one per (cell, class), with multiplicities: leaving out a case
    takes its structural component (DeLong's V10 or V01) out of the area.
    """
    v10, v01, m, n = components(h.pos, h.neg)
    auc = float(h.pos @ v10) / m
    with np.errstate(all="ignore"):
        jp = (auc * m - v10) / (m - 1.0)
        jn = (auc * n - v01) / (n - 1.0)
    return np.r_[jp, jn], np.r_[h.pos, h.neg]


def jack_roc_rows(cases: Any) -> np.ndarray:
    """Exact leave-one-out ROC areas, one per case in case order (weighted cases: the whole case)."""
    auc, comp, m, n = case_components(cases.cls, cases.s, cases.w)
    w = 1.0 if cases.w is None else cases.w
    with np.errstate(all="ignore"):
        return np.where(cases.cls, (auc * m - w * comp) / (m - w), (auc * n - w * comp) / (n - w))


def roc_delong_test(y: Any, a: Any, b: Any, w: Any, level: float) -> DeLongComparison:
    return delong_test(y, a, b, sample_weight=w, level=level)


def _cal_wald(spec: Any, h: Any, level: float) -> tuple[float, float, float, float]:
    """Wald's interval of CAL_SLOPE or CAL_INTERCEPT (its fit=offset or joint)."""
    from perfeval.measures.calibration import wald_interval

    what = "slope" if spec.measure.name == "CAL_SLOPE" else spec.kwargs["fit"]
    return wald_interval(h, what, level)


# -- the table ---------------------------------------------------------------------------------------

#: canonical measure name -> its fast paths
FAST_PATHS: dict[str, FastPaths] = {
    "ROC": FastPaths(
        jack_summary=jack_roc_hist,
        jack_cases=jack_roc_rows,
        delong=delong_from_histogram,
        delong_test=roc_delong_test,
        plan=_plan(ROC_K, _roc_value),
    ),
    "APR": FastPaths(plan=_plan(APR_K, _apr_value, counts=True)),
    "RMS": FastPaths(plan=_plan(SQ_K, _rms_value)),
    "BRIER": FastPaths(plan=_plan(SQ_K, _brier_value)),
    "CXE": FastPaths(plan=_plan(CXE_K, _cxe_value)),
    "LOGLOSS": FastPaths(plan=_logloss_plan),
    "AP": FastPaths(plan=_plan(AP_K, _ap_value)),
    "NRM": FastPaths(plan=_nrm_plan),
    "SAR": FastPaths(plan=_sar_plan),
    "R50": FastPaths(plan=_value_plan(R50_K, "negatives")),
    "RKL": FastPaths(plan=_value_plan(RKL_K)),
    "TOP1": FastPaths(plan=_value_plan(TOP1_K)),
    "TOP10": FastPaths(plan=_value_plan(TOP10_K)),
    "PRB": FastPaths(plan=_value_plan(NTOP_K, -1.0)),
    "NTOP": FastPaths(plan=_value_plan(NTOP_K, "n")),
    "SLQ": FastPaths(plan=_value_plan(SLQ_K, "bins")),
    "CA1": FastPaths(plan=_value_plan(CA1_K)),
    "CA2": FastPaths(plan=_ca2_plan),
    "CAL_SLOPE": FastPaths(wald=_cal_wald),
    "CAL_INTERCEPT": FastPaths(wald=_cal_wald),
    **{
        name: FastPaths(plan=_threshold_plan)
        for name in ("ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT", "ERR", "FPR", "FNR")
        + ("FBETA", "CST", "SELRATE")
    },
    **{name: FastPaths(plan=_pick_plan) for name in _PICKS},
    "LEAST_COST": FastPaths(plan=_cost_plan),
    "PAUC": FastPaths(plan=_pauc_plan),
    "ECE": FastPaths(plan=_ece_plan),
    "MCE": FastPaths(plan=_ece_plan),
    "BRIER_MCB": FastPaths(plan=_murphy_plan(0)),
    "BRIER_DSC": FastPaths(plan=_murphy_plan(1)),
    "BRIER_UNC": FastPaths(plan=_plan(TOT_K, _unc_value)),
}

NONE = FastPaths()


def fast_paths(spec: Any) -> FastPaths:
    """The fast paths of a measure spec's measure (an empty record when it has none)."""
    return FAST_PATHS.get(spec.measure.name, NONE)
