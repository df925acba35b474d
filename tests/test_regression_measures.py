"""The regression measures (kind "regression"): each against a slow, obvious reference (the
textbook formula in exact rational arithmetic on the rows) and against scikit-learn, on random data
with weights, ties, zeros and targets of a large mean and a small spread; the summary's sums merge
in any order with the same bits."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.measures import regression as R
from perfeval.summaries.regression import RegressionSummary, exact_sum

sk = pytest.importorskip("sklearn.metrics")

REL = 1e-12


# -- the slow references: every sum exact (Fractions), one rounding ----------------------------------
def _f(x):
    return [Fraction(float(v)) for v in x]


def ref_mean(values, w):
    ws = [Fraction(1)] * len(values) if w is None else _f(w)
    num = sum((wi * vi for wi, vi in zip(ws, values, strict=True)), Fraction(0))
    den = sum(ws, Fraction(0))
    return math.nan if den == 0 else float(num / den)


def residuals(y, p):
    return [Fraction(float(a - b)) for a, b in zip(y, p, strict=True)]  # the row's own rounded r


def ref_mae(y, p, w):
    return ref_mean([abs(r) for r in residuals(y, p)], w)


def ref_mse(y, p, w):
    return ref_mean([r * r for r in residuals(y, p)], w)


def ref_r2(y, p, w, centre_residuals=False):
    ws = [Fraction(1)] * len(y) if w is None else _f(w)
    W = sum(ws, Fraction(0))
    ys = _f(y)
    ybar = sum((a * b for a, b in zip(ws, ys, strict=True)), Fraction(0)) / W
    sst = sum((a * (b - ybar) ** 2 for a, b in zip(ws, ys, strict=True)), Fraction(0))
    rs = residuals(y, p)
    rbar = sum((a * b for a, b in zip(ws, rs, strict=True)), Fraction(0)) / W if centre_residuals else 0
    ssr = sum((a * (b - rbar) ** 2 for a, b in zip(ws, rs, strict=True)), Fraction(0))
    return math.nan if sst == 0 else float(1 - ssr / sst)


def ref_pinball(y, p, w, alpha):
    a = Fraction(alpha)
    return ref_mean([a * r if r >= 0 else (a - 1) * r for r in residuals(y, p)], w)


def ref_median(y, p, w):
    a = np.abs(np.asarray(y) - np.asarray(p))
    if w is None:
        return float(np.median(a))
    order = np.lexsort((w, a))
    a, ww = a[order], np.asarray(w)[order]
    tot = sum(_f(ww), Fraction(0))
    c = Fraction(0)
    for i, wi in enumerate(ww):
        c += Fraction(float(wi))
        if c >= tot / 2:
            if c == tot / 2:
                j = next(k for k in range(i + 1, len(a)) if ww[k] > 0)
                return float((a[i] + a[j]) / 2)
            return float(a[i])
    raise AssertionError


def close(a, b, rel=REL, abs_=0.0):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


# -- data ------------------------------------------------------------------------------------------
@st.composite
def data(draw, positive=False):
    n = draw(st.integers(2, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    shape = draw(st.sampled_from(["plain", "bigmean", "ties", "zeros"]))
    if shape == "bigmean":  # a large mean, a small spread: R2's sum of squares must keep its digits
        y = 1e9 + rng.random(n)
        p = y + rng.normal(size=n) * 0.1
    elif shape == "ties":
        y = np.round(rng.random(n) * 4)
        p = np.round(rng.random(n) * 4)
    elif shape == "zeros":
        y = np.where(rng.random(n) < 0.3, 0.0, rng.normal(size=n))
        p = np.where(rng.random(n) < 0.3, 0.0, rng.normal(size=n))
    else:
        y = rng.normal(size=n) * 10
        p = y + rng.normal(size=n)
    if positive:
        y, p = np.abs(y) + 0.5, np.abs(p) + 0.5
    wkind = draw(st.sampled_from(["none", "whole", "fraction"]))
    w = {"none": None, "whole": rng.integers(1, 4, n).astype(float), "fraction": rng.random(n) * 3 + 0.01}[
        wkind
    ]
    return y, p, w


def summary(y, p, w, **kw):
    return RegressionSummary.from_checked(np.asarray(y, float), np.asarray(p, float), w, **kw)


@settings(max_examples=80, deadline=None)
@given(data())
def test_measures_equal_the_exact_reference(d):
    y, p, w = d
    s = summary(y, p, w, medae=True)
    assert R.mae(s).value == ref_mae(y, p, w)
    assert R.mse(s).value == ref_mse(y, p, w)
    assert R.rmse(s).value == math.sqrt(ref_mse(y, p, w))
    assert close(R.r2(s).value, ref_r2(y, p, w), 0.0) or R.r2(s).value == ref_r2(y, p, w)
    assert close(R.explained_variance(s).value, ref_r2(y, p, w, True), 0.0)
    for alpha in (0.1, 0.5, 0.9):
        assert R.pinball(s, alpha).value == ref_pinball(y, p, w, alpha)
    assert R.median_absolute_error(s).value == ref_median(y, p, w)


@settings(max_examples=80, deadline=None)
@given(data())
def test_measures_agree_with_sklearn(d):
    y, p, w = d
    s = summary(y, p, w, medae=True, powers=(0.0,))
    assert close(R.mae(s).value, sk.mean_absolute_error(y, p, sample_weight=w))
    assert close(R.mse(s).value, sk.mean_squared_error(y, p, sample_weight=w))
    assert close(R.rmse(s).value, sk.root_mean_squared_error(y, p, sample_weight=w))
    assert close(R.tweedie_deviance(s, 0.0).value, sk.mean_tweedie_deviance(y, p, sample_weight=w, power=0))
    # R2 and the explained variance: scikit-learn's sums lose digits on a large mean (its value is
    # the further one from the exact reference); compared where its sums are accurate
    if np.ptp(y) > 1e-3 * np.abs(y).max():
        if np.var(y) > 0:
            assert close(R.r2(s).value, sk.r2_score(y, p, sample_weight=w), 1e-9, 1e-12)
            assert close(
                R.explained_variance(s).value, sk.explained_variance_score(y, p, sample_weight=w), 1e-9, 1e-12
            )
    if not np.any(y == 0):
        assert close(R.mape(s).value, sk.mean_absolute_percentage_error(y, p, sample_weight=w))
    for alpha in (0.1, 0.5, 0.9):
        assert close(R.pinball(s, alpha).value, sk.mean_pinball_loss(y, p, sample_weight=w, alpha=alpha))
    assert close(R.median_absolute_error(s).value, sk.median_absolute_error(y, p, sample_weight=w))


@settings(max_examples=60, deadline=None)
@given(data(positive=True), st.sampled_from([-1.0, 0.0, 1.0, 1.5, 2.0, 3.0]))
def test_deviances_agree_with_sklearn(d, power):
    y, p, w = d
    s = summary(y, p, w, powers=(power, 1.0, 2.0))
    assert close(
        R.tweedie_deviance(s, power).value,
        sk.mean_tweedie_deviance(y, p, sample_weight=w, power=power),
        1e-11,
    )
    assert close(R.poisson_deviance(s).value, sk.mean_poisson_deviance(y, p, sample_weight=w), 1e-11)
    assert close(R.gamma_deviance(s).value, sk.mean_gamma_deviance(y, p, sample_weight=w), 1e-11)


def test_large_mean_small_spread_keeps_every_digit():
    rng = np.random.default_rng(3)
    y = 1e12 + rng.random(500)
    p = y + rng.normal(size=500) * 0.01
    s = summary(y, p, None)
    exact = ref_r2(y, p, None)
    assert R.r2(s).value == exact
    naive = 1 - np.sum((y - p) ** 2) / (np.sum(y * y) - np.sum(y) ** 2 / len(y))  # the one-pass formula
    assert abs(naive - exact) > 1e-3  # it loses its digits: the summary must not


def test_edges_are_nan_with_the_reason():
    s = summary([1.0, 1.0, 1.0], [1.0, 2.0, 0.5], None, powers=(1.0, 2.0))
    f = R.r2(s)
    assert math.isnan(f.value) and "every target is equal" in f.why
    s = summary([0.0, 1.0, 2.0], [1.0, 2.0, 0.5], None, powers=(1.0, 2.0))
    f = R.mape(s)
    assert math.isnan(f.value) and "1 target is 0" in f.why
    assert R.poisson_deviance(s).value > 0  # a target of 0 is inside Poisson's domain
    f = R.gamma_deviance(s)
    assert math.isnan(f.value) and "1 row outside" in f.why and "targets > 0" in f.why
    s = summary([1.0, 2.0], [-1.0, 2.0], None, powers=(1.0,))
    f = R.poisson_deviance(s)
    assert math.isnan(f.value) and "predictions > 0" in f.why
    empty = RegressionSummary.empty(medae=True)
    for fn in (R.mae, R.mse, R.r2, R.median_absolute_error):
        f = fn(empty)
        assert math.isnan(f.value) and f.why


@settings(max_examples=60, deadline=None)
@given(data(), st.lists(st.integers(0, 40), max_size=5), st.randoms(use_true_random=False))
def test_summaries_merge_in_any_order_with_the_same_bits(d, cuts, rnd):
    y, p, w = d
    whole = summary(y, p, w, medae=True, powers=(1.5,))
    bounds = [0, *sorted(c % (len(y) + 1) for c in cuts), len(y)]
    parts = [
        summary(y[a:b], p[a:b], None if w is None else w[a:b], medae=True, powers=(1.5,))
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]
    rnd.shuffle(parts)
    merged = RegressionSummary.merge_all(parts)
    assert merged == whole
    assert np.array_equal(merged.absres, whole.absres)
    for fn in (R.mae, R.mse, R.r2, R.explained_variance, R.median_absolute_error):
        a, b = fn(merged).value, fn(whole).value
        assert a == b or (math.isnan(a) and math.isnan(b))


def test_exact_sum_is_exact_and_order_free():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(size=1000) * 10.0 ** rng.integers(-300, 300, 1000), [0.0, -0.0, 5e-324]])
    want = sum(Fraction(float(v)) for v in x) * 2**1126
    assert exact_sum(x) == want
    assert exact_sum(x[::-1]) == want


def test_evaluate_in_memory_names_the_task():
    rng = np.random.default_rng(0)
    y = rng.normal(size=200)
    p = y + rng.normal(size=200)
    r = perfeval.evaluate(y, p)
    assert r.params["task"] == "regression"
    assert "distinct real values" in r.params["task_from"]
    assert list(r.results) == ["MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR"]
    assert "regression" in str(r.signature)
    assert "task: regression" in repr(r)
    r = perfeval.evaluate(y, p, measures=["mae", "rmse", "r2"])
    assert list(r.results) == ["MAE", "RMSE_REG", "R2"]
    assert r["RMSE_REG"] == sk.root_mean_squared_error(y, p)
    # a 0/1 target: rmse is PERF's RMS, unless the task is regression
    y01 = (y > 0).astype(float)
    p01 = 1 / (1 + np.exp(-p))
    assert list(perfeval.evaluate(y01, p01, measures=["rmse"]).results) == ["RMS"]
    r = perfeval.evaluate(y01, p01, measures=["rmse"], task="regression")
    assert list(r.results) == ["RMSE_REG"] and r.params["task_from"] == "task='regression'"
    assert r["RMSE_REG"] == pytest.approx(perfeval.evaluate(y01, p01, measures=["rmse"])["RMS"], rel=1e-15)
    # grades for the ranking measures stay grades
    g = np.repeat(np.arange(20), 10)
    grades = rng.integers(0, 4, 200)
    assert "NDCG" in perfeval.evaluate(grades, p, groups=g, measures=["ndcg"]).results


def test_evaluate_refuses_what_does_not_apply():
    y = np.array([0.5, 1.5, 2.5, 3.7])
    p = np.array([0.4, 1.0, 2.0, 4.0])
    with pytest.raises(
        perfeval.InvalidParameterError, match="ROC is a binary measure and the target is a regression"
    ):
        perfeval.evaluate(y, p, measures=["mae", "roc"])
    with pytest.raises(perfeval.InvalidParameterError, match="pos_label= does not apply"):
        perfeval.evaluate(y, p, measures=["mae"], pos_label=1.5)
    with pytest.raises(perfeval.InvalidParameterError, match="`task` must be"):
        perfeval.evaluate(y, p, task="regresion")
    with pytest.raises(perfeval.InvalidParameterError, match="power"):
        perfeval.evaluate(y, p, measures=["tweedie_dev:power=0.5"])
    with pytest.raises(perfeval.InvalidDataError, match="y_pred"):
        perfeval.evaluate(y, [0.4, np.nan, 2.0, 4.0], measures=["mae"])
    with pytest.raises(perfeval.InvalidDataError, match="y_true"):
        perfeval.evaluate([0.5, np.inf, 1, 2], p, measures=["mae"])


def test_grouped_values_are_each_group_alone_fast_path():
    rng = np.random.default_rng(5)
    n = 3000
    g = rng.integers(0, 300, n)
    y = 1e6 + rng.random(n)
    p = y + rng.normal(size=n)
    w = rng.random(n) * 2
    names = ["mae", "rmse_reg", "mse_reg", "r2", "expvar", "mape", "medae", "pinball@0.3", "gamma_dev"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, p, groups=g, sample_weight=w, measures=names)
        for i, key in enumerate(r.groups.tolist()[:40]):
            m = g == key
            alone = perfeval.evaluate(y[m], p[m], sample_weight=w[m], measures=names)
            for lab, res in r.results.items():
                a, b = res.per_group[i], alone[lab]
                assert a == b or (math.isnan(a) and math.isnan(b)), (key, lab, a, b)


def test_a_binary_measure_beside_a_regression_one_says_why_the_target_is_read_so(tmp_path, capsys):
    """A 0/1 target read as a regression target because a regression measure is named (or the task
    asked) is not said to hold real values: the refusal names what made it a regression."""
    y = np.array([0, 1, 1, 0, 1, 0])
    p = np.array([0.2, 0.7, 0.6, 0.4, 0.9, 0.1])
    with pytest.raises(perfeval.InvalidParameterError) as e:
        perfeval.evaluate(y, p, measures=["mae", "roc"])
    msg = str(e.value)
    assert msg.startswith(
        "ROC is a binary measure and the target is a regression target (the regression measure MAE named:"
    )
    assert "real values" not in msg
    with pytest.raises(perfeval.InvalidParameterError) as e:
        perfeval.evaluate(y, p, measures=["roc"], task="regression")
    assert "real values" not in str(e.value) and "(the task is regression:" in str(e.value)
    from perfeval.cli.main import main

    f = tmp_path / "y.csv"
    f.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True)))
    capsys.readouterr()
    assert main(["eval", str(f), "--target", "y", "--score", "p", "-m", "pinball@0.9,ece"]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "ECE is a binary measure" in err
        and "(the regression measure PINBALL@0.9 named:" in err
    ), err
    assert "real values" not in err


def test_pos_label_on_a_0_1_target_read_as_a_regression_says_why():
    """pos_label= refused on a target read as a regression target says what made it one (a measure
    named, the task), as the command does, not that the targets are real values."""
    y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.7, 0.6, 0.4])
    with pytest.raises(perfeval.InvalidParameterError) as e:
        perfeval.evaluate(y, p, measures=["mae"], pos_label=1)
    assert (
        str(e.value) == "pos_label= does not apply to a regression target (the regression measure MAE named)"
    )
    with pytest.raises(perfeval.InvalidParameterError) as e:
        perfeval.evaluate(y, p, task="regression", partitions={"pos": [1]})
    assert str(e.value) == "partitions= does not apply to a regression target (task='regression')"


def test_three_spellings_of_one_measure_are_said_all_of_it():
    with pytest.raises(perfeval.InvalidParameterError) as e:
        perfeval.evaluate(
            [1.0, 2.5, 3.0],
            [1.0, 2.0, 3.5],
            measures=["pinball@0.9", "pinball:alpha=0.9", "quantile_loss@0.9"],
        )
    assert str(e.value) == (
        "measure named twice: PINBALL@0.9 ('pinball@0.9', 'pinball:alpha=0.9' and 'quantile_loss@0.9' "
        "are all PINBALL)"
    )
