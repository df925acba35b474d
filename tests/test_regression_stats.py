"""Intervals and comparisons of the regression measures (perfeval.ci, perfeval.compare,
compare_models): each replicate against a slow reference (evaluate() of the cases weighted by the
same Poisson draws), the t-test and t interval against SciPy, the interval's coverage by a seeded
simulation (a count, never a time), bad requests one line each.  The command line:
tests/test_regression_stats_cli.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import perfeval
from perfeval import _native
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.stats import ci, ci_from_summary, compare, compare_models
from perfeval.stats.intervals import percentile
from perfeval.stats.regression import MEAN_LOSSES, Replicas, regression_measures

scipy_stats = pytest.importorskip("scipy.stats")

#: every regression measure, every summary path: the sums, the residuals, the deviances' domains
EVERY = [
    "mae",
    "mse_reg",
    "rmse_reg",
    "r2",
    "expvar",
    "mape",
    "medae",
    "pinball:alpha=0.9",
    "pinball:alpha=0.25",
    "poisson_dev",
    "gamma_dev",
    "tweedie_dev:power=1.5",
    "tweedie_dev:power=-1",
    "tweedie_dev:power=3",
]


def _data(n: int, seed: int, zeros: int = 0):
    """Positive targets with a large mean and a small spread, predictions with ties in |r|, a few
    targets of 0 (MAPE undefined where drawn; Gamma's domain left) when ``zeros``.
    """
    rng = np.random.default_rng(seed)
    y = np.round(1000.0 + rng.gamma(2.0, 3.0, n), 2)
    p = np.round(y + rng.normal(0, 2.0, n), 1)
    p = np.where(p <= 0, 0.5, p)
    y[:zeros] = 0.0
    return y, p


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


# -- a replicate is evaluate() of the reweighted cases, bit for bit -----------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_replicate_is_evaluate_of_the_cases_so_weighted(seed):
    """Replicas.values(v) == evaluate(y, p, sample_weight=v) for every regression measure, with
    Poisson weights (0 included: a case not drawn is no case, so MAPE and the Gamma deviance are
    defined exactly when no target of 0 is drawn) and with fractional case weights."""
    y, p = _data(120, seed, zeros=1)
    specs = regression_measures(EVERY, 0.5)
    rep = Replicas(y, p, specs)
    draws = np.frombuffer(_native.poisson_rows(len(y), seed, 0, 40), np.float64).reshape(40, -1)
    w = np.round(np.random.default_rng(seed).random(len(y)) * 3, 2) + 0.01
    seen_nan = seen_value = False
    for r, v in enumerate(draws):
        for weights, exact_medae in ((v, True), (v * w, False)):
            got = rep.values(weights)
            want = perfeval.evaluate(y, p, measures=specs, sample_weight=weights, task="regression")
            for sp, g in zip(specs, got, strict=True):
                e = want[sp.label]
                if sp.measure.name == "MEDAE" and not exact_medae:
                    assert g == pytest.approx(e, rel=1e-12), (r, sp.label)  # cumulative weights' order
                    continue
                assert _same(g, e), (r, sp.label, g, e)
                if sp.measure.name == "MAPE":
                    seen_nan |= math.isnan(g)
                    seen_value |= not math.isnan(g)
    assert seen_nan and seen_value  # both kinds of replicate met: a target of 0 drawn, and not


def test_the_percentile_interval_is_the_quantiles_of_the_reference_replicates():
    """Replicate r weighs case i by the Poisson(1) draw of (seed, r, i) times its weight: the
    percentile interval is the quantiles of evaluate() on those weights."""
    y, p = _data(80, 5)
    w = np.random.default_rng(5).random(80) + 0.5
    for weights in (None, w):
        got = ci(
            y,
            p,
            measures=["mae", "r2", "medae"],
            method="percentile",
            n_boot=60,
            seed=9,
            sample_weight=weights,
        )
        draws = np.frombuffer(_native.poisson_rows(80, 9, 0, 60), np.float64).reshape(60, 80)
        for label in ("MAE", "R2", "MEDAE"):
            reps = np.array(
                [
                    perfeval.evaluate(
                        y, p, measures=[label], sample_weight=v if weights is None else v * weights
                    )[label]
                    for v in draws
                ]
            )
            lo, hi = percentile(reps, 0.95)
            iv = got[label]
            assert (iv.low, iv.high) == (lo, hi), label
            assert iv.estimate == perfeval.evaluate(y, p, measures=[label], sample_weight=weights)[label]
            assert iv.se == pytest.approx(reps.std(ddof=1), rel=1e-12)
            assert (iv.method, iv.n_boot, iv.seed, iv.resampled) == ("percentile", 60, 9, "cases")


def test_intervals_are_reproducible_and_do_not_depend_on_threads():
    y, p = _data(300, 3)
    a = ci(y, p, measures=EVERY[:8], n_boot=150, seed=4, threads=1)
    b = ci(y, p, measures=EVERY[:8], n_boot=150, seed=4, threads=2)
    c = ci(y, p, measures=EVERY[:8], n_boot=150, seed=5)
    assert a == b
    assert a["MAE"] != c["MAE"] and a["MAE"].estimate == c["MAE"].estimate
    for label, iv in a.items():
        assert iv.low <= iv.estimate <= iv.high, label
        assert iv.method == "bca"


def test_every_regression_measure_has_an_interval_and_an_undefined_one_says_why():
    y, p = _data(200, 6)
    got = ci(y, p, measures=EVERY, n_boot=100, seed=1)
    assert list(got) == [sp.label for sp in regression_measures(EVERY, 0.5)]
    for label, iv in got.items():
        assert math.isfinite(iv.low) and math.isfinite(iv.high) and iv.low <= iv.high, label
    y0 = y.copy()
    y0[3] = 0.0  # MAPE and the Gamma deviance undefined: no interval, and the reason
    got = ci(y0, p, measures=["mape", "gamma_dev", "mae"], n_boot=50)
    for label in ("MAPE", "GAMMA_DEV"):
        d = got[label].to_dict()
        assert d["estimate"] is None and d["low"] is None and "not a finite number" in d["low_why_null"]
    assert math.isfinite(got["MAE"].low)


def test_the_task_is_read_as_evaluate_reads_it():
    """A real target asked rmse is a regression (RMSE_REG), as in evaluate(); a 0/1 target keeps
    PERF's RMS; task='regression' reads a 0/1 target as real values."""
    y, p = _data(100, 7)
    assert list(ci(y, p, measures=["rmse"], n_boot=20)) == ["RMSE_REG"]
    y01 = (y > np.median(y)).astype(int)
    s = np.clip((p - p.min()) / (p.max() - p.min()), 0, 1)
    assert list(ci(y01, s, measures=["rmse"], n_boot=20)) == ["RMS"]
    assert list(ci(y01, s, measures=["rmse"], n_boot=20, task="regression")) == ["RMSE_REG"]
    with pytest.raises(
        InvalidParameterError, match="MAE is a regression measure, but the target is read as 0/1"
    ):
        ci(y01, s, measures=["mae"], task="binary")


# -- coverage: a count over seeded replications ------------------------------------------------------
@pytest.mark.parametrize("method", ["bca", "percentile", "t"])
def test_the_95_percent_interval_of_the_mae_holds_the_true_mae_about_95_times_in_100(method):
    """200 seeded replications of 200 cases, r ~ N(0, 1): the true MAE is sqrt(2 / pi).  The 95%
    interval holds it in 90% to 99% of them (the count, binomial(200, 0.95), lies there with
    probability > 0.99 when the interval is right)."""
    truth = math.sqrt(2 / math.pi)
    held = 0
    for k in range(200):
        rng = np.random.default_rng(1000 + k)
        y = rng.normal(10, 3, 200)
        p = y + rng.normal(0, 1, 200)
        iv = ci(y, p, measures="mae", method=method, n_boot=200, seed=k)["MAE"]
        held += iv.low <= truth <= iv.high
    assert 180 <= held <= 198, held


# -- Student's t against SciPy -------------------------------------------------------------------------
def _loss(name, y, p, alpha=0.5, power=0.0):
    r = y - p
    if name == "MAE":
        return np.abs(r)
    if name == "MSE_REG":
        return r**2
    if name == "MAPE":
        return np.abs(r) / np.abs(y)
    if name == "PINBALL":
        return np.where(r >= 0, alpha * r, (alpha - 1) * r)
    from sklearn.metrics import mean_tweedie_deviance

    return np.array([mean_tweedie_deviance([a], [b], power=power) for a, b in zip(y, p, strict=True)])


CASES_T = [
    ("mae", "MAE", {}),
    ("mse_reg", "MSE_REG", {}),
    ("mape", "MAPE", {}),
    ("pinball:alpha=0.8", "PINBALL", {"alpha": 0.8}),
    ("poisson_dev", "POISSON_DEV", {"power": 1.0}),
    ("gamma_dev", "GAMMA_DEV", {"power": 2.0}),
    ("tweedie_dev:power=1.5", "TWEEDIE_DEV", {"power": 1.5}),
]


@pytest.mark.parametrize(("spec", "name", "kw"), CASES_T)
def test_the_paired_t_test_is_scipys_ttest_rel_of_the_per_case_losses(spec, name, kw):
    rng = np.random.default_rng(11)
    y = rng.gamma(3.0, 2.0, 150) + 0.1
    a = y * rng.lognormal(0, 0.1, 150)
    b = y * rng.lognormal(0.02, 0.15, 150)
    la, lb = _loss(name, y, a, **kw), _loss(name, y, b, **kw)
    want = scipy_stats.ttest_rel(la, lb)
    c = next(iter(compare(y, a, b, measures=[spec], level=0.9).values()))
    assert c.method == "t" and c.n_boot == 0 and c.seed is None  # the default for a mean loss
    assert c.p_value == pytest.approx(want.pvalue, rel=1e-11)
    lo, hi = want.confidence_interval(0.9)
    assert (c.low, c.high) == (pytest.approx(lo, rel=1e-9, abs=1e-12), pytest.approx(hi, rel=1e-9, abs=1e-12))
    assert c.difference == pytest.approx(la.mean() - lb.mean(), rel=1e-12)
    assert c.se == pytest.approx(scipy_stats.sem(la - lb), rel=1e-12)
    # the interval of one model: SciPy's t interval of the mean loss
    iv = next(iter(ci(y, a, measures=[spec], method="t", level=0.9).values()))
    lo, hi = scipy_stats.t.interval(0.9, len(la) - 1, loc=la.mean(), scale=scipy_stats.sem(la))
    assert (iv.low, iv.high) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    assert iv.estimate == perfeval.evaluate(y, a, measures=[spec])[iv.label]


def test_t_quantile_is_scipys():
    from perfeval.stats.paired import student_t_quantile

    for df in (1, 2, 3.5, 10, 99, 1e4, 1e8):
        for q in (0.75, 0.9, 0.95, 0.975, 0.995, 0.9995, 1 - 1e-9, 0.025):
            assert student_t_quantile(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-13)
    with pytest.raises(InvalidParameterError):
        student_t_quantile(1.0, 3)


# -- compare: paired, several models, over groups ----------------------------------------------------
def test_a_model_against_itself_differs_by_exactly_zero_in_every_replicate():
    """The same case weights for both models in each replicate: the difference of a model with
    itself is 0 in every replicate (unpaired draws would give a wide interval)."""
    y, p = _data(150, 8)
    got = compare(y, p, p.copy(), measures=["r2", "rmse_reg", "medae", "mae"], n_boot=100)
    for label, c in got.items():
        assert (c.difference, c.low, c.high, c.p_value) == (0.0, 0.0, 0.0, 1.0), label
    assert got["MAE"].method == "t" and got["R2"].method == "bca"


def test_compare_models_is_compare_against_the_baseline_each():
    y, p = _data(200, 9)
    rng = np.random.default_rng(9)
    models = {"base": p, "a": p + rng.normal(0, 1, 200), "b": y + rng.normal(0, 2.5, 200)}
    measures = ["mae", "rmse", "r2", "pinball:alpha=0.9"]
    every = compare_models(y, models, "base", measures=measures, n_boot=120, seed=3)
    for name in ("a", "b"):
        assert every[name] == compare(y, models[name], models["base"], measures=measures, n_boot=120, seed=3)
    assert every["b"]["R2"].method == "bca" and every["b"]["PINBALL@0.9"].method == "t"
    forced = compare(y, models["a"], p, measures=["mae"], method="percentile", n_boot=120, seed=3)["MAE"]
    assert forced.method == "percentile" and forced.n_boot == 120 and forced.seed == 3


def test_weights_and_groups_take_the_bootstrap():
    y, p = _data(240, 10)
    rng = np.random.default_rng(10)
    q = y + rng.normal(0, 3, 240)
    w = rng.random(240) + 0.1
    g = rng.integers(0, 12, 240)
    c = compare(y, q, p, measures=["mae"], sample_weight=w, n_boot=100)["MAE"]
    assert c.method == "bca" and c.resampled == "cases"
    assert c.estimate_a == perfeval.evaluate(y, q, measures=["mae"], sample_weight=w)["MAE"]
    c = compare(y, q, p, measures=["mae", "r2"], groups=g, sample_weight=w, n_boot=100)
    want = perfeval.evaluate(y, q, measures=["mae", "r2"], groups=g, sample_weight=w)
    for label in ("MAE", "R2"):
        assert c[label].resampled == "groups" and c[label].estimate_a == want[label]
        assert c[label].low < c[label].difference < c[label].high
    iv = ci(y, q, measures=["mae", "r2"], groups=g, sample_weight=w, n_boot=100)
    assert iv["R2"].resampled == "groups" and iv["R2"].estimate == want["R2"]
    assert iv == ci(y, q, measures=["mae", "r2"], groups=g, sample_weight=w, n_boot=100)


# -- bad input: one line each, of the project's errors ------------------------------------------------
def test_bad_requests_are_one_line():
    y, p = _data(60, 12)
    w = np.ones(60)
    g = np.arange(60) % 4
    bad = [
        (
            lambda: ci(y, p, measures="mae", method="delong"),
            InvalidParameterError,
            "DeLong's interval is for the ROC",
        ),
        (lambda: ci(y, p, measures="r2", method="t"), InvalidParameterError, "not R2"),
        (
            lambda: ci(y, p, measures="mae", method="t", sample_weight=w),
            InvalidParameterError,
            "case weights",
        ),
        (lambda: ci(y, p, measures="mae", method="t", groups=g), InvalidParameterError, "over groups"),
        (lambda: ci(y, p, measures="mae", task="ranking"), InvalidParameterError, "`task` must be"),
        (lambda: ci(y, p, measures="mae", pos_label=1.0), InvalidParameterError, "pos_label= does not apply"),
        (lambda: ci(y, p[:-1], measures="mae"), InvalidDataError, "length"),
        (lambda: ci(y, np.where(np.arange(60) == 7, np.inf, p), measures="mae"), InvalidDataError, "y_score"),
        (lambda: ci(y[:1], p[:1], measures="mae", method="t"), InvalidDataError, "at least 2 cases"),
        (lambda: ci(y, p, measures="mae:of=threshold"), InvalidParameterError, "no parameter 'of'"),
        (
            lambda: compare(y, p, p + 1, measures="mae", method="delong"),
            InvalidParameterError,
            "DeLong's test",
        ),
        (lambda: compare(y, p + np.nan, p, measures="mae"), InvalidDataError, "score_a"),
        (
            lambda: compare_models(y, {"b": p, "a": p * np.inf}, "b", measures="mae"),
            InvalidDataError,
            "models['a']",
        ),
        (lambda: ci(y > 1000, p / p.max(), measures="roc", method="t"), InvalidParameterError, "not ROC"),
    ]
    for call, error, words in bad:
        with pytest.raises(error) as e:
            call()
        text = str(e.value)
        assert words in text and "\n" not in text, text


def test_a_regression_summary_gives_no_interval_from_sums_alone():
    from perfeval.summaries.regression import RegressionSummary

    y, p = _data(20, 13)
    with pytest.raises(InvalidParameterError, match="a regression summary holds sums, not cases"):
        ci_from_summary(RegressionSummary.from_checked(y, p), "mae")


def test_mean_losses_are_the_measures_with_a_per_case_loss():
    """Every measure Student's t takes is the mean of its per-case loss (evaluate's value)."""
    from perfeval.stats.regression import losses

    y, p = _data(90, 14)
    for name in MEAN_LOSSES:
        sp = regression_measures([name], 0.5)[0]
        assert np.mean(losses(sp, y, p)) == pytest.approx(
            perfeval.evaluate(y, p, measures=[sp])[sp.label], rel=1e-12
        )


def test_a_measure_whose_sums_are_not_known_takes_a_whole_summary(monkeypatch):
    """A regression measure the replicate's table of sums does not name (one registered later) is
    finished from a whole summary of the reweighted cases: the same values."""
    import perfeval.stats.regression as sr

    y, p = _data(70, 15, zeros=1)
    specs = regression_measures(["r2", "medae", "mape", "gamma_dev"], 0.5)
    v = np.frombuffer(_native.poisson_rows(70, 2, 0, 1), np.float64).copy()
    fast = Replicas(y, p, specs)
    monkeypatch.setattr(sr, "_SUMS", {k: s for k, s in sr._SUMS.items() if k != "R2"})
    whole = Replicas(y, p, specs)
    assert whole.whole and not fast.whole
    for weights in (v, v * 0.5 + 0.25 * (v > 0)):
        a, b = fast.values(weights), whole.values(weights)
        assert all(_same(x, z) for x, z in zip(a, b, strict=True)), (a, b)


def test_wald_is_refused_for_a_regression_measure_in_one_line():
    rng = np.random.default_rng(5)
    y = rng.normal(size=50)
    with pytest.raises(InvalidParameterError, match="Wald's interval is for the logistic"):
        perfeval.ci(y, y + rng.normal(size=50), measures=["mae"], method="wald")
