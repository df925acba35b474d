"""The public statistics: :func:`ci` (confidence intervals of any measure), :func:`ci_from_summary`
(from an exact summary alone) and :func:`compare` (paired comparison of two models).

Both :func:`ci` and :func:`compare` take each measure's fast paths from one table
(:mod:`perfeval.stats.fastpaths`) and fall back on the generic engines
(:mod:`perfeval.stats.replicates`) for the rest; the interval arithmetic is
:mod:`perfeval.stats.intervals`.  A regression target (``task="regression"``, a regression measure
named, or real targets asked only ``rmse``/``mse``, as :func:`perfeval.evaluate` reads one) goes to
:mod:`perfeval.stats.regression` over all cases, and resamples whole groups over groups.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from perfeval.base.checks import deprecated_weights, no_table, to_numpy
from perfeval.base.deprecation import measures_keyword
from perfeval.engine import resolve
from perfeval.engine.door import Targets
from perfeval.engine.finish import regression_refused
from perfeval.exceptions import InvalidParameterError, UndefinedMeasureWarning, user_stacklevel
from perfeval.stats.classes import class_ci, class_compare, is_class_matrix, is_label_matrix
from perfeval.stats.fastpaths import fast_paths
from perfeval.stats.intervals import (
    ANALYTIC,
    Comparison,
    Interval,
    acceleration,
    check_request,
    interval,
    paired_test,
    undefined_left_out,
    warn_one_sided,
)
from perfeval.stats.paired import CORRECTIONS, correct_bounded
from perfeval.stats.replicates import (
    Cases,
    group_evaluated,
    group_replicates,
    hist_replicates,
    jack_group_values,
    jack_groups_many,
    row_replicates,
    threads_of,
    value,
)

__all__ = ["ci", "ci_from_summary", "compare", "compare_models"]


def specs_of(measures: Iterable[str] | str, threshold: float, method: str | None = None) -> list:
    """Measure specs from names (a single name may hold a comma inside its parameters), of a target
    that is not a regression target: a regression measure there was asked with ``task="binary"``,
    and Student's t (``method="t"``) is a regression's: each one line.
    """
    specs = resolve([measures] if isinstance(measures, str) and "," not in measures else measures, threshold)
    for sp in specs:
        if sp.measure.kind == "regression":
            raise regression_refused(sp)
        if method == "t":
            raise InvalidParameterError(
                f"Student's t is for a regression's mean loss (MAE, MSE_REG, ...), not {sp.label}; "
                "use method='bca' or 'percentile'"
            )
    return specs


def is_threshold(spec: Any) -> bool:
    """Whether ``spec`` is a score threshold (``of=threshold``): its interval's bounds are replicates'
    own thresholds (:func:`perfeval.stats.intervals.quantiles`), each one achievable.
    """
    return spec.kwargs.get("of") == "threshold"


def warned(results: Any) -> Any:
    """``results`` (of :func:`ci`, :func:`compare`, :func:`compare_models`), each one whose replicates
    lie on one side of its estimate said as a BootstrapBiasWarning
    (:func:`perfeval.stats.intervals.warn_one_sided`).
    """
    warn_one_sided(results)
    return results


def coded(y_true: Any, pos_label: Any) -> Any:
    """0/1 targets from labels when ``pos_label`` is given: the door's code stage
    (:class:`perfeval.engine.door.Targets`), the rule of :func:`perfeval.evaluate`.
    """
    if pos_label is None:
        return y_true

    return Targets(to_numpy(y_true, "y_true"), pos_label).binary("the interval")


@measures_keyword("perfeval.ci")
def ci(
    y_true: Any,
    y_score: Any,
    *,
    measures: Iterable[str] | str = "roc",
    method: str = "bca",
    level: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    groups: Any = None,
    sample_weight: Any = None,
    threshold: float = 0.5,
    threads: int | None = None,
    pos_label: Any = None,
    weights: Any = None,
    progress: bool = False,
    classes: Sequence[Any] | None = None,
    task: str | None = None,
) -> dict[str, Interval]:
    """Confidence intervals of measures: bootstrap (BCa or percentile) for any measure, DeLong's for
    the ROC area, Student's t for a regression's mean loss, Wald's for the logistic calibration fits
    (CAL_SLOPE, CAL_INTERCEPT).

    Parameters
    ----------
    y_true, y_score : array-like
        Targets (0/1; graded relevance for ranking measures; real values for regression measures)
        and scores (or predictions).
    measures : str or iterable of str
        Measure specs, as for :func:`perfeval.evaluate` (``"roc"``, ``["apr", "ndcg@10"]``,
        ``["mae", "rmse", "r2"]``).
    method : {"bca", "percentile", "delong", "t", "wald"}
        ``"delong"`` is for the ROC area over all cases only; ``"t"`` (Student's t interval of a mean
        of per-case losses) for the regression measures MAE, MSE_REG, MAPE, PINBALL, MSLE and the
        deviances over all unweighted cases (:mod:`perfeval.stats.regression`); ``"wald"`` for
        CAL_SLOPE and CAL_INTERCEPT (either fit) over all cases only: the coefficient -+ z times its
        standard error from the inverse of the fit's information over the distinct scores (the
        weights read as frequencies, as statsmodels' GLM ``freq_weights`` and R's ``glm`` read
        them).  Any other measure with them is refused in one line, before any replicate is drawn.
    level : float, default 0.95
    n_boot : int, default 1000
        Bootstrap replicates.
    seed : int, default 0
        Replicate r draws from a stream seeded by (seed, r): the same seed gives the same interval.
    groups : array-like, optional
        Group of each case.  Per-group measures (GAUC, NDCG, ...) and any measure given groups are
        averaged over groups, and the bootstrap then resamples whole groups.
    sample_weight : array-like, optional
        Frequency weights of the cases (binary and regression measures).
    threshold : float, default 0.5
    threads : int, optional
        Threads of the compiled replicate loops (default: all cores).  Results do not depend on it.
    pos_label : optional
        The positive label of ``y_true`` (as in :func:`perfeval.evaluate`).
    weights : array-like, optional
        Deprecated spelling of ``sample_weight``; accepted with a DeprecationWarning for one release.
    progress : bool, default False
        Show the replicates drawn (rate, time left) on standard error (needs tqdm, the
        ``progress`` extra; else a plain line on a terminal).
    classes : sequence of labels, optional
        K classes: ``y_score`` an (n, K) matrix, one score column a class, as
        ``evaluate(y, S, classes=)`` reads it (the classes given, else the sorted distinct targets
        when there are exactly K; a matrix of three columns or more is read so without it).  The
        measures are then the multiclass ones (``roc`` is ``ROC_OVR:average=macro``), each
        replicate's value finished by the engine that gives evaluate()'s from the replicate's
        ClassSummary (:mod:`perfeval.stats.classes`: a case bootstrap, BCa or percentile; not
        with ``groups=``, ``pos_label=`` or ``method="delong"``).
    task : {None, "binary", "regression"}, optional
        ``"regression"``: ``y_true`` is a real target and ``y_score`` its prediction; without it
        (None) a target is a regression target as :func:`perfeval.evaluate` reads one (a
        regression measure named, or real targets asked only ``rmse``/``mse``).  Each replicate is
        the exact regression summary of the cases reweighted by Poisson(1) draws (one compiled pass
        over the rows), finished by the measure's own function: every regression measure, MEDAE
        too (:mod:`perfeval.stats.regression`).

    Returns
    -------
    dict of label -> Interval

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(500) < 0.4).astype(int)
    >>> s = rng.normal(size=500) + y
    >>> r = ci(y, s, measures=["roc", "apr"], n_boot=200, seed=1)
    >>> r["ROC"].low < r["ROC"].estimate < r["ROC"].high
    True
    >>> ci(y, s, measures="roc", method="delong")["ROC"].method
    'delong'
    >>> p = 1 / (1 + np.exp(-s))
    >>> w = ci(y, p, measures="cal_slope", method="wald")["CAL_SLOPE"]
    >>> w.method, w.n_boot, w.low < w.estimate < w.high
    ('wald', 0, True)
    >>> t = rng.normal(size=500)
    >>> r = ci(t, t + rng.normal(size=500), measures=["mae", "r2"], n_boot=200, seed=1)
    >>> r["MAE"].low < r["MAE"].estimate < r["MAE"].high
    True
    """
    arrays = {"y_true": y_true, "y_score": y_score, "groups": groups}
    no_table("perfeval.ci()", **arrays, sample_weight=sample_weight, weights=weights)
    wname = "sample_weight" if weights is None else "weights"  # as typed, for the messages
    sample_weight = deprecated_weights(sample_weight, weights, "ci")
    check_request(method, level, n_boot)
    matrix = is_class_matrix(y_score, classes) or is_label_matrix(y_true)
    how = _regression(y_true, measures, task, pos_label, matrix or classes is not None)
    if how is not None:  # a real target and a prediction a row
        return warned(_regression_ci(
            y_true, y_score, groups, sample_weight, measures, threshold, method, level, n_boot, seed,
            progress, wname,
        ))  # fmt: skip
    if matrix:  # K classes, or K labels
        return warned(class_ci(
            y_true, y_score, measures=measures, method=method, level=level, n_boot=n_boot, seed=seed,
            groups=groups, sample_weight=sample_weight, threshold=threshold, pos_label=pos_label,
            classes=classes, progress=progress, weight_name=wname,
        ))  # fmt: skip
    cases = Cases(coded(y_true, pos_label), y_score, sample_weight, groups, weight=wname)
    specs = specs_of(measures, threshold, method)
    if method == "wald":  # every spec checked before any work
        for spec in specs:
            wald_offered(spec, cases.groups is not None)
    threads_n = threads_of(threads)
    out: dict[str, Interval] = {}
    shared: dict[str, np.ndarray] = {}
    by_cases = [
        sp for sp in specs if method not in ANALYTIC and cases.groups is None and sp.measure.kind == "binary"
    ]
    if by_cases:  # every global measure from the same replicates, drawn once
        cases.cls  # noqa: B018 (checks the targets first)
        if cases.w is None:  # Poisson(count) draws per cell of the summary
            reps_all = hist_replicates(by_cases, cases.hist, seed, n_boot, threads_n, progress)
        else:  # case weights: Poisson(1) per case
            pairs = [(sp, cases.sorted) for sp in by_cases]
            reps_all = row_replicates(pairs, cases.cls, cases.w, seed, n_boot, threads_n, progress)
        shared = dict(zip((sp.label for sp in by_cases), reps_all, strict=True))
    jack = _Jackknife(
        [sp for sp in by_cases if not _exact_jack(fast_paths(sp), cases)], [cases], threads_n, progress
    )
    for spec in specs:
        fp = fast_paths(spec)
        if method == "delong":
            if fp.delong is None or cases.groups is not None:
                raise InvalidParameterError(
                    f"DeLong's interval is for the ROC area over all cases, not {spec.label}"
                    + (" per group" if cases.groups is not None else "")
                    + "; use method='bca' or 'percentile'"
                )
            d = fp.delong(cases.hist, level)
            out[spec.label] = Interval(spec.label, d.auc, d.ci[0], d.ci[1], level, "delong", 0, d.se)
            continue
        if method == "wald":
            out[spec.label] = _wald_interval(spec, cases.hist, level)
            continue
        if cases.groups is not None or spec.measure.kind != "binary":
            out[spec.label] = _group_interval(spec, cases, method, level, n_boot, seed)
            continue
        est = value(spec, cases.hist)
        reps = shared[spec.label]

        def accel(spec=spec, fp=fp) -> float:
            if fp.jack_summary is not None and cases.w is None:
                return acceleration(*fp.jack_summary(cases.hist))
            if fp.jack_cases is not None:
                return acceleration(fp.jack_cases(cases), None)
            return acceleration(jack.values(spec)[0], None)

        lo, hi, sd, note = interval(est, reps, level, method, accel, observed=is_threshold(spec))
        dropped = undefined_left_out(reps, est, lo)
        out[spec.label] = Interval(
            spec.label, est, lo, hi, level, method, n_boot, sd, "cases", seed, note, dropped
        )  # fmt: skip
    return warned(out)


def _regression_ci(
    y_true: Any,
    y_score: Any,
    groups: Any,
    sample_weight: Any,
    measures: Any,
    threshold: float,
    method: str,
    level: float,
    n_boot: int,
    seed: int,
    progress: bool,
    weight_name: str = "sample_weight",
) -> dict[str, Interval]:
    """:func:`ci` of a regression target (arguments as there, checked there; ``weight_name``: the
    weights' keyword as the user typed it).
    """
    from perfeval.stats.regression import checked, regression_ci, regression_measures

    rcases = checked(y_true, y_score, groups, sample_weight, weight_name=weight_name)
    rspecs = regression_measures(measures, threshold)
    if method == "wald":
        raise InvalidParameterError(
            f"Wald's interval is for the logistic calibration fits (CAL_SLOPE, CAL_INTERCEPT), not "
            f"{rspecs[0].label}; use method='bca', 'percentile' or 't'"
        )
    if rcases.g is None:
        return regression_ci(
            rcases, rspecs, method=method, level=level, n_boot=n_boot, seed=seed, progress=progress
        )
    _over_groups(method, rspecs, "interval")
    gcases = Cases(rcases.y, rcases.s, rcases.w, rcases.g)
    return {sp.label: _group_interval(sp, gcases, method, level, n_boot, seed) for sp in rspecs}


def _regression(y_true: Any, measures: Any, task: Any, pos_label: Any, matrix: bool) -> str | None:
    """How a call is a regression (:func:`perfeval.stats.regression.regression_how`), or None: never
    for K classes or labels (``matrix``) unless ``task="regression"`` says so (its check refuses a
    matrix).
    """
    if task not in (None, "binary", "regression"):
        raise InvalidParameterError(f"`task` must be None, 'binary' or 'regression', got {task!r}")
    if task == "binary" or (task is None and matrix):
        return None
    from perfeval.stats.regression import regression_how

    return regression_how(y_true, measures, task, pos_label)


def _over_groups(method: str | None, specs: list, what: str) -> None:
    """Regression measures over groups are resampled whole groups: DeLong's and Student's t refused."""
    if method == "delong":
        raise InvalidParameterError(
            f"DeLong's {what} is for the ROC area over all cases, not {specs[0].label} per group; use "
            "method='bca' or 'percentile'"
        )
    if method == "t":
        raise InvalidParameterError(
            f"Student's t is over all cases (each case once); over groups the {what} resamples whole "
            "groups: use method='bca' or 'percentile'"
        )


def wald_offered(spec, grouped: bool) -> None:
    """Wald's interval is offered for a measure with a fitted coefficient's information (the
    logistic calibration fits) over all cases; any other request is refused in one line.
    """
    if fast_paths(spec).wald is None or grouped:
        raise InvalidParameterError(
            "Wald's interval is for the logistic calibration fits (CAL_SLOPE, CAL_INTERCEPT) over all "
            f"cases, not {spec.label}"
            + (" per group (a mean over groups has no single fit)" if grouped else "")
            + "; use method='bca' or 'percentile'"
        )


def _wald_interval(spec, summary, level: float) -> Interval:
    wald = fast_paths(spec).wald
    assert wald is not None  # checked by wald_offered
    est, lo, hi, se = wald(spec, summary, level)
    return Interval(spec.label, est, lo, hi, level, "wald", 0, se)


def _exact_jack(fp, cases: Cases) -> bool:
    """Whether a measure's BCa acceleration comes from an exact jackknife (no group deletion)."""
    return (fp.jack_summary is not None and cases.w is None) or fp.jack_cases is not None


class _Jackknife:
    """The delete-a-group jackknife of several measures, computed together on first need (a BCa
    interval asks for it; a percentile one never does).
    """

    def __init__(self, specs: list, cases_list: list, threads: int, progress: bool):
        self.specs, self.cases_list, self.threads, self.progress = specs, cases_list, threads, progress
        self.done: dict[str, list[np.ndarray]] | None = None

    def values(self, spec) -> list[np.ndarray]:
        """The jackknife values of ``spec``, one array per cases (model)."""
        if self.done is None:
            per = [jack_groups_many(self.specs, c, self.threads, self.progress) for c in self.cases_list]
            self.done = {sp.label: [p[k] for p in per] for k, sp in enumerate(self.specs)}
        if spec.label not in self.done:  # not foreseen: on its own
            return [jack_groups_many([spec], c, self.threads)[0] for c in self.cases_list]
        return self.done[spec.label]


def _group_interval(spec, cases: Cases, method: str, level: float, n_boot: int, seed: int) -> Interval:
    """The interval of a measure averaged over groups, from whole-group resampling."""
    if cases.groups is None:
        raise InvalidParameterError(f"{spec.label} is computed over groups: pass `groups=`")
    est, vals, agg, res = group_evaluated(spec, cases)
    _warn_undefined_groups(spec.label, res, None)  # each group's reason, as evaluate says it
    reps = group_replicates([vals], agg, seed, n_boot)[0]
    lo, hi, sd, note = interval(
        est, reps, level, method, lambda v=vals, a=agg: acceleration(*jack_group_values(v, a))
    )
    note = note or _few_groups(est, reps, ~np.isnan(vals), "interval")
    dropped = _groups_left_out(est, lo, reps, ~np.isnan(vals), "interval")
    return Interval(spec.label, est, lo, hi, level, method, n_boot, sd, "groups", seed, note, dropped)


def _few_groups(estimate: float, reps: np.ndarray, defined: np.ndarray, what: str) -> str:
    """Why a whole-group bootstrap has no interval when its groups are too few ('' otherwise): a
    replicate gives each group a Poisson(1) weight, so with G groups a share e^-G of the replicates
    draws none of them and is undefined (37% of them for one group, 14% for two); past 5% there is
    no interval (:func:`~perfeval.stats.intervals.interval`).  ``defined``: the groups with a value.
    """
    empty = int(np.isnan(reps).sum())
    if not np.isfinite(estimate) or empty <= 0.05 * len(reps):
        return ""
    n = int(np.count_nonzero(defined))
    return (
        f"no {what}: {n} group{'' if n == 1 else 's'} with a value, too few to resample whole groups "
        f"(a replicate weighs each group by a Poisson(1) draw): {empty} of the {len(reps)} replicates "
        "drew none of them"
    )


def _groups_left_out(estimate: float, low: float, reps: np.ndarray, defined: np.ndarray, what: str) -> str:
    """The replicates a whole-group bootstrap's interval (given: ``low`` a number) leaves out, said
    ('' when none): those that drew none of the groups with a value (``defined``), up to 5% of them
    (:func:`_few_groups` says more).  With G such groups, a share e^-G of the replicates draws none
    (5.0% for three, 1.8% for four): the interval is of the others, the bootstrap given that a group
    is drawn, a bias the share bounds.
    """
    empty = int(np.isnan(reps).sum())
    if not empty or not np.isfinite(estimate) or not np.isfinite(low):
        return ""
    n = int(np.count_nonzero(defined))
    verb = "are" if " and " in what else "is"
    return (
        f"{empty} of the {len(reps)} replicates ({empty / len(reps):.1%}) drew none of the {n} "
        f"group{'' if n == 1 else 's'} with a value (each is left out of a replicate with probability "
        f"e^-1, all {n}: e^-{n} = {math.exp(-n):.1%}) and are left out: the {what} {verb} of the other "
        f"{len(reps) - empty}"
    )


def ci_from_summary(
    summary,
    measures: Iterable[str] | str = "roc",
    *,
    method: str = "percentile",
    level: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    threshold: float = 0.5,
    threads: int | None = None,
    progress: bool = False,
) -> dict[str, Interval]:
    """Confidence intervals of binary measures from an exact summary alone (a stream's or a Dask
    cluster's merged :class:`~perfeval.summaries.ScoreHistogram` of unweighted cases).

    The replicates are the same as :func:`ci`'s (Poisson draws per cell), so with the same seed the
    percentile interval is the same as ``ci(y, s)`` on the cases.  ``method="bca"`` needs a jackknife:
    exact from the summary for the ROC area; for other measures it needs the cases (use :func:`ci`).
    ``"delong"`` is for the ROC area, ``"wald"`` for CAL_SLOPE and CAL_INTERCEPT (as :func:`ci`
    gives them).  ``progress``: show the replicates drawn on standard error.

    Examples
    --------
    >>> from perfeval.summaries import ScoreHistogram
    >>> h = ScoreHistogram.from_arrays([0, 1, 0, 1, 1, 0, 1, 0], [.1, .9, .3, .6, .2, .4, .8, .5])
    >>> y, s = [0, 1, 0, 1, 1, 0, 1, 0], [.1, .9, .3, .6, .2, .4, .8, .5]
    >>> ci_from_summary(h, "roc", n_boot=200) == ci(y, s, measures="roc", method="percentile", n_boot=200)
    True
    """
    check_request(method, level, n_boot)
    from perfeval.summaries.regression import RegressionSummary

    if isinstance(summary, RegressionSummary):
        raise InvalidParameterError(
            "a regression summary holds sums, not cases: a replicate reweights every row, so the "
            "intervals of regression measures need the rows (perfeval.ci(y, y_pred, task='regression'))"
        )
    if method != "wald" and not summary.is_counts():  # Wald's reads weights as frequencies
        raise InvalidParameterError(
            "a bootstrap from a summary needs unweighted cases (whole-number counts); with "
            "case weights, use perfeval.ci on the cases"
        )
    specs = specs_of(measures, threshold, method)
    for sp in specs:
        fp = fast_paths(sp)
        if sp.measure.kind != "binary":
            raise InvalidParameterError(
                f"{sp.label} is a per-group measure: a summary of all cases cannot give its interval"
            )
        if method == "delong" and fp.delong is None:
            raise InvalidParameterError(f"DeLong's interval is for the ROC area, not {sp.label}")
        if method == "wald":
            wald_offered(sp, False)
        if method == "bca" and fp.jack_summary is None:
            raise InvalidParameterError(
                f"a BCa interval of {sp.label} needs the cases for its jackknife; from a "
                "summary use method='percentile' (or perfeval.ci on the cases)"
            )
    out: dict[str, Interval] = {}
    if method == "delong":
        return {sp.label: _delong_interval(sp, summary, level) for sp in specs}
    if method == "wald":
        return {sp.label: _wald_interval(sp, summary, level) for sp in specs}
    reps_all = hist_replicates(specs, summary, seed, n_boot, threads_of(threads), progress)
    for sp, reps in zip(specs, reps_all, strict=True):
        est = value(sp, summary)
        jack = fast_paths(sp).jack_summary

        def accel(jack=jack) -> float:
            assert jack is not None  # checked above for a BCa interval; a percentile one never asks
            return acceleration(*jack(summary))

        lo, hi, sd, note = interval(est, reps, level, method, accel, observed=is_threshold(sp))
        dropped = undefined_left_out(reps, est, lo)
        out[sp.label] = Interval(
            sp.label, est, lo, hi, level, method, n_boot, sd, "cases", seed, note, dropped
        )  # fmt: skip
    return warned(out)


def _delong_interval(spec, summary, level: float) -> Interval:
    delong = fast_paths(spec).delong
    assert delong is not None
    d = delong(summary, level)
    return Interval(spec.label, d.auc, d.ci[0], d.ci[1], level, "delong", 0, d.se)


@measures_keyword("perfeval.compare")
def compare(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    measures: Iterable[str] | str = "roc",
    method: str | None = None,
    level: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    groups: Any = None,
    sample_weight: Any = None,
    threshold: float = 0.5,
    threads: int | None = None,
    pos_label: Any = None,
    weights: Any = None,
    progress: bool = False,
    classes: Sequence[Any] | None = None,
    task: str | None = None,
) -> dict[str, Comparison]:
    """Compare two models scored on the same cases: the difference a - b of each measure, its
    confidence interval and a two-sided p-value.  (``perfeval compare`` on the command line prints
    model - baseline, its first score column being the baseline: ``compare(y, model, baseline)``
    gives the same sign.)

    The test of each measure (``method=None``, the default): DeLong's paired test for the ROC area
    over all cases, unweighted (as pROC's ``roc.test``); a paired BCa bootstrap for every other
    measure, and for the ROC area over groups or with case weights (DeLong's variance reads weights
    as frequencies, so it would change with their unit; the bootstrap's does not).  Each
    :class:`Comparison`'s ``method`` says which gave it.  ``method="delong"`` forces DeLong's test
    (ROC area over all cases only); ``"bca"`` or ``"percentile"`` forces the bootstrap for every
    measure.  The paired bootstrap gives each replicate both models' same case (or group) weights, so
    the difference's interval accounts for their correlation; its p-value is the interval's own:
    for BCa, the least 1 - level at which the BCa interval leaves out zero (the interval inverted, as
    R's boot.pval does), so that p < 1 - level exactly when the interval at that level leaves out
    zero (:func:`perfeval.stats.intervals.bca_p_value`); for the percentile interval, twice the share
    of replicate differences on the far side of zero, as (k + 1) / (R + 1).  Never below 2 / (R + 1):
    at that floor (``Comparison.p_at_floor``) it is a bound, not an estimate.  Parameters as for
    :func:`ci` (``weights``: the deprecated spelling of ``sample_weight``; ``progress``: show the
    replicates drawn on standard error; ``classes``: two (n, K) score matrices of K classes, compared
    by a paired case bootstrap, BCa by default, as :func:`ci` reads them).

    A regression target (``task="regression"``, or read so as in :func:`ci`): two predictions of the
    same real targets.  The paired t-test of the per-case loss differences for a mean loss (MAE,
    MSE_REG, MAPE, PINBALL, MSLE, the deviances) over all unweighted cases, by default
    (``method="t"``: scipy's ``ttest_rel`` of the two models' losses, the Diebold-Mariano test with
    Harvey et al.'s correction; :mod:`perfeval.stats.regression`); the paired BCa bootstrap for the
    other measures (RMSE_REG, R2, EXPVAR, MEDAE, ...), with case weights, and over groups (whole
    groups resampled).

    .. versionchanged:: 0.1.0
       The default was the BCa bootstrap for every measure; it is now DeLong's test for the ROC area
       over all unweighted cases, as the command line's ``perfeval compare`` and the report.
       ``measures`` is keyword-only, as in :func:`perfeval.evaluate` (by position: a
       DeprecationWarning, an error from 0.2.0).

    See Also
    --------
    compare_models : several models against one baseline, the same numbers.
    perfeval.trec.compare : runs (a ranking of documents per query) on judgments, each against a
        baseline run by a paired test over the queries: the same question for rankings.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(400) < 0.5).astype(int)
    >>> a, b = rng.normal(size=400) + 1.2 * y, rng.normal(size=400) + 0.4 * y
    >>> c = compare(y, a, b, measures="roc", n_boot=300, seed=2)["ROC"]
    >>> c.method, c.difference > 0 and c.low > 0 and c.p_value < 0.01
    ('delong', True)
    >>> b = compare(y, a, b, measures="roc", method="bca", n_boot=300, seed=2)["ROC"]
    >>> b.method, b.p_value, b.p_at_floor  # zero beyond every replicate: 2 / 301, a bound
    ('bca', 0.006644518272425249, True)
    >>> t = rng.normal(size=400)
    >>> c = compare(t, t + rng.normal(size=400), t + 2 * rng.normal(size=400), measures=["mae", "r2"])
    >>> c["MAE"].method, c["MAE"].p_value < 0.01, c["R2"].method
    ('t', True, 'bca')
    """
    arrays = {"y_true": y_true, "score_a": score_a, "score_b": score_b, "groups": groups}
    no_table("perfeval.compare()", **arrays, sample_weight=sample_weight, weights=weights)
    wname = "sample_weight" if weights is None else "weights"  # as typed, for the messages
    sample_weight = deprecated_weights(sample_weight, weights, "compare")
    matrix = is_class_matrix(score_a, classes) or is_class_matrix(score_b, classes) or is_label_matrix(y_true)
    how = _regression(y_true, measures, task, pos_label, matrix or classes is not None)
    read = _Read(y_true, groups, sample_weight, threshold, pos_label, classes, how)
    if how is None and matrix:
        check_request(method or "bca", level, None, "comparison")
        return warned(read.whys(class_compare(
            y_true, [score_a], score_b, measures=measures, method=method, level=level, n_boot=n_boot,
            seed=seed, groups=groups, sample_weight=sample_weight, threshold=threshold, pos_label=pos_label,
            classes=classes, progress=progress, weight_name=wname,
        ), [score_a], score_b)[0])  # fmt: skip
    y_true = y_true if how is not None else coded(y_true, pos_label)
    return warned(read.whys(_compare_all(
        y_true, [score_a], score_b, measures, method, level, n_boot, seed, groups, sample_weight, threshold,
        threads, progress, ["score_a", "score_b"], how, ["score_a", "score_b"], wname,
    ), [score_a], score_b)[0])  # fmt: skip


@measures_keyword("perfeval.stats.compare_models")
def compare_models(
    y_true: Any,
    models: Mapping[str, Any],
    baseline: str,
    *,
    measures: Iterable[str] | str = "roc",
    method: str | None = None,
    level: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    groups: Any = None,
    sample_weight: Any = None,
    threshold: float = 0.5,
    threads: int | None = None,
    pos_label: Any = None,
    progress: bool = False,
    classes: Sequence[Any] | None = None,
    task: str | None = None,
    correction: str | None = None,
) -> dict[str, dict[str, Comparison]]:
    """Compare every model with a baseline: for each other model, what :func:`compare` gives for
    ``compare(y_true, models[name], models[baseline], ...)``, the same numbers, but every model's
    replicates drawn in one walk (the baseline's walked and jackknifed once).

    Parameters
    ----------
    y_true : array-like
        Targets, as for :func:`compare`.
    models : mapping of str to array-like
        Each model's scores of the same cases, the baseline's among them.
    baseline : str
        The key of the baseline in ``models``.
    measures, method, level, n_boot, seed, groups, sample_weight, threshold, threads, pos_label, progress
        As for :func:`compare`.
    classes : sequence of labels, optional
        K classes: each model an (n, K) score matrix, as :func:`compare` reads two (every model on
        the same case weights in each replicate: the numbers of ``compare(y, model, baseline,
        classes=)``).
    task : {None, "binary", "regression"}, optional
        As for :func:`compare`: each model a prediction of the same real targets.
    correction : {None, "holm", "bh", "bonferroni"}, optional
        Correct each measure's p-values over the models compared (``perfeval compare --correction``):
        Holm's step-down (the family-wise error), Benjamini-Hochberg's (the false discovery rate) or
        Bonferroni's.  Each comparison then holds ``correction``, ``p_adjusted`` and
        ``p_adjusted_bound`` (an upper bound: read from a bootstrap p-value at its floor); a comparison
        without a test (NaN p-value) is not counted in the family.  Across measures there is no
        correction: each measure is its own family.  None (default): the p-values as they are.

    Returns
    -------
    dict of str to dict of str to Comparison
        For each model but the baseline (in the mapping's order), its comparisons by measure label.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(400) < 0.5).astype(int)
    >>> m = {"base": rng.normal(size=400) + y, "a": rng.normal(size=400) + 1.2 * y}
    >>> res = compare_models(y, m, "base", measures="roc", n_boot=200, seed=2)
    >>> res["a"]["ROC"] == compare(y, m["a"], m["base"], measures="roc", n_boot=200, seed=2)["ROC"]
    True
    """
    no_table("perfeval.compare_models()", y_true=y_true, groups=groups, sample_weight=sample_weight)
    if correction is not None and correction not in CORRECTIONS:
        raise InvalidParameterError(
            f"correction={correction!r}: one of {', '.join(map(repr, CORRECTIONS))}, or None (no correction)"
        )
    out = _compare_models(
        y_true, models, baseline, measures=measures, method=method, level=level, n_boot=n_boot, seed=seed,
        groups=groups, sample_weight=sample_weight, threshold=threshold, threads=threads,
        pos_label=pos_label, progress=progress, classes=classes, task=task,
    )  # fmt: skip
    return out if correction is None else _corrected(out, correction)


def _corrected(res: dict[str, dict[str, Comparison]], correction: str) -> dict[str, dict[str, Comparison]]:
    """``res`` with each comparison's p-value corrected over the models, measure by measure."""
    labels = list(dict.fromkeys(lab for by in res.values() for lab in by))
    out: dict[str, dict[str, Comparison]] = {name: dict(by) for name, by in res.items()}
    for lab in labels:
        names = [name for name, by in res.items() if lab in by]
        cs = [res[name][lab] for name in names]
        adj, bound = correct_bounded([c.p_value for c in cs], [c.p_at_floor for c in cs], correction)
        for name, c, p, b in zip(names, cs, adj.tolist(), bound.tolist(), strict=True):
            out[name][lab] = dataclasses.replace(
                c, correction=correction, p_adjusted=float(p), p_adjusted_bound=bool(b)
            )
    return out


def _compare_models(
    y_true: Any,
    models: Mapping[str, Any],
    baseline: str,
    *,
    measures: Iterable[str] | str,
    method: str | None,
    level: float,
    n_boot: int,
    seed: int,
    groups: Any,
    sample_weight: Any,
    threshold: float,
    threads: int | None,
    pos_label: Any,
    progress: bool,
    classes: Sequence[Any] | None,
    task: str | None,
) -> dict[str, dict[str, Comparison]]:
    if baseline not in models:
        raise InvalidParameterError(
            f"the baseline {baseline!r} is not one of the models ({', '.join(map(str, models))})"
        )
    names = [name for name in models if name != baseline]
    matrix = any(is_class_matrix(m, classes) for m in models.values())
    how = _regression(
        y_true, measures, task, pos_label, matrix or is_label_matrix(y_true) or classes is not None
    )
    read = _Read(y_true, groups, sample_weight, threshold, pos_label, classes, how)
    scores = [models[n] for n in names]
    if how is None and matrix:
        check_request(method or "bca", level, None, "comparison")
        res = class_compare(
            y_true, scores, models[baseline], measures=measures, method=method,
            level=level, n_boot=n_boot, seed=seed, groups=groups, sample_weight=sample_weight,
            threshold=threshold, pos_label=pos_label, classes=classes, progress=progress,
        )  # fmt: skip
        return warned(dict(zip(names, read.whys(res, scores, models[baseline]), strict=True)))
    y_true = y_true if how is not None else coded(y_true, pos_label)
    res = _compare_all(
        y_true, scores, models[baseline], measures, method, level, n_boot, seed, groups,
        sample_weight, threshold, threads, progress, [*map(str, names), str(baseline)], how,
        [f"models[{n!r}]" for n in [*names, baseline]],
    )  # fmt: skip
    return warned(dict(zip(names, read.whys(res, scores, models[baseline]), strict=True)))


@dataclasses.dataclass
class _Read:
    """How :func:`perfeval.evaluate` reads a comparison's models (the targets as given, before any
    coding; ``how``: why they are a regression target, None when they are not), to say why a model's
    value is undefined as ``evaluate`` and ``perfeval eval`` say it (:meth:`whys`).
    """

    y_true: Any
    groups: Any
    sample_weight: Any
    threshold: float
    pos_label: Any
    classes: Sequence[Any] | None
    how: str | None

    def whys(
        self, results: list[dict[str, Comparison]], scores: list, score_b: Any
    ) -> list[dict[str, Comparison]]:
        """``results`` (each model of ``scores`` against ``score_b``), each comparison with a model's
        value undefined (NaN) given the reason :func:`perfeval.evaluate` gives of that model and
        measure (``why_a``, ``why_b``), each model's once.  Over groups, a value undefined only over
        the groups defined for both models (each model's own mean a number) says so.  A model that
        evaluate refuses, or whose value it gives no reason for, keeps none (its JSON says the
        measure's edge cases).
        """
        known: dict[tuple[int, str], str] = {}

        def why(i: int, c: Comparison) -> str:
            if (i, c.label) not in known:
                r = self._result(score_b if i == len(scores) else scores[i], c.label)
                if r is not None and r.why and math.isnan(r.value):
                    known[(i, c.label)] = r.why
                elif r is not None and math.isfinite(r.value) and c.groups_compared:
                    known[(i, c.label)] = (
                        "no group is defined for both models, and the comparison is over those "
                        "(groups_compared)"
                    )
                else:
                    known[(i, c.label)] = ""
            return known[(i, c.label)]

        out = []
        for m, by in enumerate(results):
            said = {}
            for label, c in by.items():
                wa = why(m, c) if math.isnan(c.estimate_a) else ""
                wb = why(len(scores), c) if math.isnan(c.estimate_b) else ""
                said[label] = dataclasses.replace(c, why_a=wa, why_b=wb) if wa or wb else c
            out.append(said)
        return out

    def _result(self, scores: Any, label: str) -> Any:
        """The result :func:`perfeval.evaluate` gives of one model and measure (None: refused, or not
        among its results).
        """
        from perfeval.api.evaluation import evaluate
        from perfeval.exceptions import PerfError

        with warnings.catch_warnings():  # the comparison said its warnings already
            warnings.simplefilter("ignore")
            try:
                return evaluate(
                    self.y_true,
                    scores,
                    measures=[label],
                    groups=self.groups,
                    sample_weight=self.sample_weight,
                    threshold=self.threshold,
                    pos_label=self.pos_label,
                    classes=self.classes,
                    task="regression" if self.how is not None else None,
                ).results.get(label)
            except PerfError:
                return None


def _compare_all(
    y_true: Any,
    scores: list,
    score_b: Any,
    measures: Iterable[str] | str,
    method: str | None,
    level: float,
    n_boot: int,
    seed: int,
    groups: Any,
    sample_weight: Any,
    threshold: float,
    threads: int | None,
    progress: bool,
    names: list[str],
    how: str | None = None,
    arg_names: list[str] | None = None,
    weight_name: str = "sample_weight",
) -> list[dict[str, Comparison]]:
    """compare(y_true, a, score_b) for each a of scores: the baseline and every model of every
    measure walked on the same case weights, drawn once (a column's replicates do not depend on the
    other columns of its walk, so each comparison is the one of its own call).  ``how``: why the
    target is a regression target (None: it is not), whose models are checked as ``arg_names``
    (``weight_name``: the weights' keyword as the user typed it).
    """
    if method is not None:
        check_request(method, level, None, "comparison")
    else:
        check_request("bca", level, None, "comparison")
    if how is not None:  # predictions of a real target
        from perfeval.stats.regression import checked, regression_compare, regression_measures

        named = arg_names or names
        got = [
            checked(y_true, a, groups, sample_weight, named[m], weight_name)
            for m, a in enumerate([*scores, score_b])
        ]
        rspecs = regression_measures(measures, threshold)
        if got[-1].g is None:
            return regression_compare(
                got[:-1],
                got[-1],
                rspecs,
                method=method,
                level=level,
                n_boot=n_boot,
                seed=seed,
                progress=progress,
            )
        _over_groups(method, rspecs, "test")
        gcas = [Cases(c.y, c.s, c.w, c.g) for c in got]
        methods = {sp.label: method or "bca" for sp in rspecs}
        jack = _Jackknife([], gcas, threads_of(threads), progress)
        return [
            _compare_one(rspecs, m, gcas[m], gcas[-1], {}, jack, methods, level, n_boot, seed, names)
            for m in range(len(scores))
        ]
    named = arg_names or names
    cas = [Cases(y_true, a, sample_weight, groups, named[m], weight_name) for m, a in enumerate(scores)]
    cb = Cases(y_true, score_b, sample_weight, groups, named[-1], weight_name)
    specs = specs_of(measures, threshold, method)
    for sp in specs:  # a threshold is where a model is cut, not how good it is: no difference to test
        if sp.kwargs.get("of") == "threshold":
            raise InvalidParameterError(
                f"{sp.label} is a threshold, not a measure of how good a model is: compare refuses it "
                "(its interval: perfeval.ci or `perfeval eval --ci` of the same spec; compare its value, "
                "of=value)"
            )
    threads_n = threads_of(threads)
    y = np.asarray(cb.y)
    both = int(np.count_nonzero(y > 0)) > 1 and int(np.count_nonzero(y <= 0)) > 1
    methods = {sp.label: method_of(sp, method, cb.groups is not None, cb.w is not None, both) for sp in specs}
    by_cases = [
        sp
        for sp in specs
        if methods[sp.label] != "delong" and cb.groups is None and sp.measure.kind == "binary"
    ]
    cols = [*cas, cb]
    paired: dict[str, list[np.ndarray]] = {}
    if by_cases:  # every model of every measure on the same case weights, drawn once
        reps = row_replicates(
            [(sp, c.sorted) for sp in by_cases for c in cols],
            cb.cls,
            cb.w,
            seed,
            n_boot,
            threads_n,
            progress,
        )
        k = len(cols)
        paired = {sp.label: reps[k * i : k * i + k] for i, sp in enumerate(by_cases)}
    jack = _Jackknife([sp for sp in by_cases if fast_paths(sp).jack_cases is None], cols, threads_n, progress)
    return [
        _compare_one(specs, m, cas[m], cb, paired, jack, methods, level, n_boot, seed, names)
        for m in range(len(cas))
    ]


def method_of(spec: Any, method: str | None, grouped: bool, weighted: bool, both: bool = True) -> str:
    """The test a comparison of ``spec`` takes: ``method`` when given; by default DeLong's test for a
    measure that has one (the ROC area) over all cases without weights and with at least two cases
    of each class (``both``: DeLong's variance needs them), else the BCa bootstrap (whose interval
    and p-value are then NaN where the measure is undefined, as the ROC area of one class).
    """
    if method is not None:
        return method
    if fast_paths(spec).delong_test is not None and not grouped and not weighted and both:
        return "delong"
    return "bca"


def _warn_undefined_groups(label: str, result: Any, name: str | None) -> None:
    """The groups where a model's measure is undefined (``result``: evaluate's over the groups,
    :func:`~perfeval.stats.replicates.group_evaluated`), each with its reason, said as ``evaluate``
    says them (:func:`perfeval.engine.finish.groups_said`; the interval's or the comparison's group
    values leave them out as its means do), the model named (``name``; None: :func:`ci`'s one).
    """
    from perfeval.engine.finish import groups_said, undefined_groups

    if not result.undefined:
        return
    keys, whys = undefined_groups(result)
    warnings.warn(
        UndefinedMeasureWarning(
            f"{label if name is None else f'{label} of {name}'} is undefined for {len(keys)} of "
            f"{len(result.per_group)} groups "
            f"({groups_said(keys, whys)}); they are left out of its mean"
            + ("" if whys else " (`perfeval list-measures --long` says when a measure is undefined)")
        ),
        stacklevel=user_stacklevel(),
    )


def _common_groups(va: np.ndarray, vb: np.ndarray, both: np.ndarray, a: str, b: str) -> str:
    """'' when the two models' values (``a``'s, ``b``'s: their names) are defined in the same groups;
    else what the comparison is over: the groups defined for both (the means of each model over its
    own defined groups, as ``evaluate`` gives them, are over different groups, whose difference a
    paired test by group does not test).
    """
    na, nb = int(np.count_nonzero(~np.isnan(va))), int(np.count_nonzero(~np.isnan(vb)))
    n = int(np.count_nonzero(both))
    if n == na == nb:
        return ""
    return (
        f"the two values, their difference and its test over the {n} of {len(va)} groups defined for "
        f"both models ({a} is defined for {na}, {b} for {nb}; evaluate's mean of each is over its own)"
    )


def _group_mean(vals: np.ndarray, agg: np.ndarray) -> float:
    """The mean of the defined group values with their aggregation weights (NaN: none defined)."""
    ok = ~np.isnan(vals)
    den = float(agg[ok].sum())
    with np.errstate(all="ignore"):
        return float((agg[ok] * vals[ok]).sum()) / den if den > 0 else math.nan


def _compare_one(
    specs: list,
    m: int,
    ca: Cases,
    cb: Cases,
    paired: dict[str, list[np.ndarray]],
    jack: _Jackknife,
    methods: dict[str, str],
    level: float,
    n_boot: int,
    seed: int,
    names: list[str],
) -> dict[str, Comparison]:
    """The comparisons of model m (cases ca) with the baseline (cb): paired's and jack's lists hold
    every model's then the baseline's.
    """
    out: dict[str, Comparison] = {}
    for spec in specs:
        fp = fast_paths(spec)
        method = methods[spec.label]
        if method == "delong":
            if fp.delong_test is None or ca.groups is not None:
                raise InvalidParameterError(
                    f"DeLong's test is for the ROC area over all cases, not {spec.label}; "
                    "use method='bca' or 'percentile'"
                )
            d = fp.delong_test(ca.y, ca.s, cb.s, ca.w, level)
            out[spec.label] = Comparison(
                spec.label,
                d.auc_a,
                d.auc_b,
                d.difference,
                d.ci[0],
                d.ci[1],
                d.p_value,
                level,
                "delong",
                0,
                d.se,
            )
            continue
        accel: Callable[[], float]
        over = ""
        if ca.groups is not None or spec.measure.kind != "binary":
            if ca.groups is None:
                raise InvalidParameterError(f"{spec.label} is computed over groups: pass `groups=`")
            ea, va, agg, res_a = group_evaluated(spec, ca)
            eb, vb, _, res_b = group_evaluated(spec, cb)
            _warn_undefined_groups(spec.label, res_a, names[m])
            if m == 0:
                _warn_undefined_groups(spec.label, res_b, names[-1])
            both = ~np.isnan(va) & ~np.isnan(vb)
            over = _common_groups(va, vb, both, names[m], names[-1])
            if over:  # a paired test by group: both models' means over the groups defined for both
                va, vb = np.where(both, va, np.nan), np.where(both, vb, np.nan)
                ea, eb = _group_mean(va, agg), _group_mean(vb, agg)
            ra, rb = group_replicates([va, vb], agg, seed, n_boot)

            def accel_groups(va=va, vb=vb, agg=agg, both=both) -> float:
                ja, _ = jack_group_values(np.where(both, va, np.nan), agg)
                jb, _ = jack_group_values(np.where(both, vb, np.nan), agg)
                return acceleration(ja - jb, None)

            accel, resampled = accel_groups, "groups"
        else:
            ea, eb = value(spec, ca.hist), value(spec, cb.hist)
            ra, rb = paired[spec.label][m], paired[spec.label][-1]

            def accel_cases(spec=spec, fp=fp) -> float:
                if fp.jack_cases is not None:  # exact: leave each case out of both
                    return acceleration(fp.jack_cases(ca) - fp.jack_cases(cb), None)
                every = jack.values(spec)
                return acceleration(every[m] - every[-1], None)

            accel, resampled = accel_cases, "cases"
        with np.errstate(all="ignore"):
            diff = ea - eb
            reps = ra - rb
        tested = bool(np.isfinite(diff))  # an infinite log loss: no test of an infinite difference
        lo, hi, sd, note, p, floor = paired_test(diff, reps, level, method, accel, tested)
        dropped = ""
        if resampled == "groups":
            note = note or _few_groups(diff, reps, both, "interval or test")
            dropped = _groups_left_out(diff, lo, reps, both, "interval and test")
        else:  # the replicates where a model's value is undefined (up to 5%)
            dropped = undefined_left_out(reps, diff, lo, "interval and test")
        out[spec.label] = Comparison(
            spec.label, ea, eb, diff, lo, hi, p, level, method, n_boot, sd, resampled, seed, floor, note,
            left_out=dropped, groups_compared=over,
        )  # fmt: skip
    return out
