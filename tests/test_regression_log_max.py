"""scikit-learn's max_error, mean_squared_log_error and root_mean_squared_log_error (issue 33's
new-user pass): registry measures MAXERR, MSLE, RMSLE (exact, mergeable, per group, streamed, on
Dask and in Metric: tests/test_registry_properties.py and tests/test_dask.py cover them from the
registry) against a slow rational reference and against scikit-learn itself, their edges (NaN and
the reason where scikit-learn raises), and the functions under scikit-learn's names with its
signatures, values, errors and ``multioutput``."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
import perfeval.functional as F
from perfeval.cli.main import main

sk = pytest.importorskip("sklearn.metrics")

NAMES = ("max_error", "mean_squared_log_error", "root_mean_squared_log_error")


def close(a, b, rel=1e-12):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    return bool(np.all((a == b) | (np.abs(a - b) <= rel * np.maximum(np.abs(a), np.abs(b)))))


def _ev(y, p, measures=("maxerr", "msle", "rmsle"), **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(y, p, measures=list(measures), task="regression", **kw)


@st.composite
def data(draw, k_max=3):
    """Targets and predictions > -1 (log1p defined), ties, zeros, large values; weights with zeros."""
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, k_max))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["plain", "ties", "near-1", "large"]))
    if kind == "ties":
        y, p = np.round(rng.random((n, k)) * 3, 1), np.round(rng.random((n, k)) * 3, 1)
    elif kind == "near-1":  # log1p steep: values just above -1
        y = -1 + np.exp(-rng.random((n, k)) * 30)
        p = -1 + np.exp(-rng.random((n, k)) * 30)
    elif kind == "large":
        y = 1e6 * rng.random((n, k))
        p = y * (1 + rng.normal(size=(n, k)) * 0.1) + 1
    else:
        y = rng.exponential(size=(n, k)) * 5 - 0.5
        p = np.maximum(y + rng.normal(size=(n, k)), -0.99)
    w = draw(st.sampled_from([None, "whole", "fraction", "zeros"]))
    if w == "whole":
        w = rng.integers(1, 4, n).astype(float)
    elif w == "fraction":
        w = rng.random(n) * 3 + 0.01
    elif w == "zeros":
        w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n) + 0.5)
        w[0] = 1.0
    return y, p, w


def _reference_msle(y, p, w):
    """The textbook formula on the rows, exact: each row's log1p difference (numpy's, as scikit-learn
    takes it) squared and weighted in rationals, the mean rounded once."""
    d = np.log1p(y) - np.log1p(p)
    ws = np.ones(len(y)) if w is None else w
    num = sum(Fraction(float(wi)) * Fraction(float(di)) ** 2 for wi, di in zip(ws, d, strict=True))
    den = sum(Fraction(float(wi)) for wi in ws)
    return float(num / den)


# -- the registry measures -----------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(data(k_max=1))
def test_the_measures_are_the_textbook_formula_and_scikit_learns(d):
    y, p, w = d
    y, p = y[:, 0], p[:, 0]
    got = _ev(y, p, sample_weight=w)
    keep = slice(None) if w is None else w > 0
    ref = _reference_msle(y[keep], p[keep], None if w is None else w[keep])
    assert got["MSLE"] == ref  # exact sums, rounded once: the rational reference's bits
    assert got["RMSLE"] == math.sqrt(ref)
    assert got["MAXERR"] == float(np.max(np.abs(y[keep] - p[keep])))
    assert close(got["MSLE"], sk.mean_squared_log_error(y, p, sample_weight=w))
    assert close(got["RMSLE"], sk.root_mean_squared_log_error(y, p, sample_weight=w))
    assert got["MAXERR"] == sk.max_error(y[keep], p[keep])  # scikit-learn's takes no weights


def test_a_value_at_or_below_minus_one_is_nan_and_why():
    y = np.array([3.0, -1.0, 2.0, 5.0, -2.5, 1.0])
    p = np.array([2.5, 0.5, 2.0, 4.0, 1.0, 1.5])
    r = _ev(y, p)
    for label in ("MSLE", "RMSLE"):
        assert math.isnan(r[label])
        assert r.results[label].why == (
            "2 rows with a target or a prediction <= -1: the log error log1p(y) - log1p(prediction) "
            "needs both > -1 (scikit-learn raises ValueError)"
        )
    assert r["MAXERR"] == 3.5
    # a prediction too; a row of weight 0 is a dropped row (it does not make the value NaN)
    assert math.isnan(_ev([1.0, 2.0], [0.5, -1.0])["MSLE"])
    w = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    assert _ev(y, p, sample_weight=w)["MSLE"] == _ev(y[w > 0], p[w > 0])["MSLE"]
    with pytest.raises(ValueError, match="less than or equal to -1"):
        sk.mean_squared_log_error(y, p)  # where scikit-learn raises
    # per group: only the groups holding such a row
    g = np.array([0, 1, 0, 2, 2, 0])
    per = _ev(y, p, groups=g).results["MSLE"].per_group
    assert math.isnan(per[1]) and math.isnan(per[2])
    assert per[0] == _ev(y[g == 0], p[g == 0])["MSLE"]
    # no case: NaN and why
    r = _ev([1.0, 2.0], [1.5, 2.5], sample_weight=[0.0, 0.0])
    assert all(math.isnan(r[k]) for k in ("MAXERR", "MSLE", "RMSLE"))


def test_the_summary_merges_in_any_order_with_the_same_bits():
    from perfeval.summaries.regression import RegressionSummary

    rng = np.random.default_rng(3)
    y, p, w = rng.exponential(size=300) * 4, rng.exponential(size=300) * 4, rng.random(300)
    w[::5] = 0.0
    kw = {"msle": True, "maxerr": True}
    whole = RegressionSummary.from_checked(y, p, w, **kw)
    parts = [
        RegressionSummary.from_checked(y[a:b], p[a:b], w[a:b], **kw)
        for a, b in ((0, 7), (7, 150), (150, 300))
    ]
    for order in ((0, 1, 2), (2, 0, 1), (1, 2, 0)):
        merged = RegressionSummary.merge_all([parts[i] for i in order])
        assert (merged.sle, merged.sle_bad, merged.maxabs) == (whole.sle, whole.sle_bad, whole.maxabs)
        assert merged == whole
    assert whole.maxabs == float(np.max(np.abs(y - p)[w > 0]))
    plain = RegressionSummary.from_checked(y, p, w)
    assert plain.kept()[4:] == (False, False) and whole.kept()[4:] == (True, True)
    with pytest.raises(ValueError, match="cannot be merged"):
        plain + whole  # noqa: B018


def test_per_group_of_100k_groups_is_each_group_alone():
    rng = np.random.default_rng(8)
    n = 200_000
    g = rng.integers(0, 100_000, n)
    y, p = rng.exponential(size=n), rng.exponential(size=n)
    r = _ev(y, p, groups=g)
    for k in (0, 17, 99_999):
        alone = _ev(y[g == k], p[g == k])
        for label in ("MAXERR", "MSLE", "RMSLE"):
            i = int(np.searchsorted(r.groups, k))
            assert r.results[label].per_group[i] == alone[label], (k, label)


def test_intervals_and_comparisons():
    """ci and compare take them: MSLE a mean loss (Student's t, scipy's numbers; the paired t-test by
    default), RMSLE and MAXERR by the bootstrap; MAXERR's replicates are never above its value, so
    its interval ends at it (its entry says so)."""
    from scipy import stats

    rng = np.random.default_rng(5)
    y = rng.exponential(size=300) * 3
    a, b = np.abs(y + rng.normal(size=300)), np.abs(y + 2 * rng.normal(size=300))
    t = perfeval.ci(y, a, measures="msle", method="t", level=0.9)["MSLE"]
    losses = (np.log1p(y) - np.log1p(a)) ** 2
    want = stats.t.interval(0.9, len(y) - 1, loc=losses.mean(), scale=stats.sem(losses))
    assert close([t.low, t.high], want, 1e-10)
    c = perfeval.compare(y, a, b, measures=["msle", "rmsle", "maxerr"], n_boot=200)
    assert c["MSLE"].method == "t" and c["RMSLE"].method == "bca" and c["MAXERR"].method == "bca"
    lb = (np.log1p(y) - np.log1p(b)) ** 2
    assert close(c["MSLE"].p_value, stats.ttest_rel(losses, lb).pvalue, 1e-10)
    got = perfeval.ci(y, a, measures=["maxerr", "rmsle"], n_boot=300, method="percentile")
    assert got["MAXERR"].high == got["MAXERR"].estimate > got["MAXERR"].low
    assert got["RMSLE"].low < got["RMSLE"].estimate < got["RMSLE"].high
    assert "never above the data's" in perfeval.get_measure("maxerr").intervals_doc


def test_the_command_line(tmp_path, capsys):
    rng = np.random.default_rng(2)
    y = np.round(rng.exponential(size=50) * 3, 2)
    p = np.round(np.abs(y + rng.normal(size=50)), 2)
    path = tmp_path / "h.csv"
    path.write_text("y,yhat\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True)))
    argv = ["eval", str(path), "--target", "y", "--score", "yhat", "-m", "max_error,msle,rmsle"]
    assert main([*argv, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["measures"]
    assert got["MAXERR"]["value"] == sk.max_error(y, p)
    assert close(got["MSLE"]["value"], sk.mean_squared_log_error(y, p))
    assert close(got["RMSLE"]["value"], sk.root_mean_squared_log_error(y, p))
    assert main([*argv, "--stream"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split() == ["MAXERR", f"{sk.max_error(y, p):.6f}"]


# -- scikit-learn's names --------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(data(), st.sampled_from(["raw_values", "uniform_average", "w"]))
def test_the_functions_are_scikit_learns(d, multioutput):
    y, p, w = d
    k = y.shape[1]
    if multioutput == "w":
        multioutput = "raw_values" if k == 1 else np.arange(1, k + 1, dtype=float)
    if k == 1 and isinstance(multioutput, str):
        y, p = y[:, 0], p[:, 0]
    for name in NAMES[1:]:
        kw = {"sample_weight": w, "multioutput": multioutput}
        theirs, ours = getattr(sk, name)(y, p, **kw), getattr(F, name)(y, p, **kw)
        assert np.ndim(ours) == np.ndim(theirs) and close(ours, theirs), (name, ours, theirs)
    if y.ndim == 1 or y.shape[1] == 1:
        assert F.max_error(y, p) == sk.max_error(y, p)
    else:
        for fn in (F.max_error, sk.max_error):
            with pytest.raises(ValueError, match="Multioutput not supported in max_error"):
                fn(y, p)


def test_the_functions_errors_are_scikit_learns():
    for name, what in (
        ("mean_squared_log_error", "Mean Squared"),
        ("root_mean_squared_log_error", "Root Mean Squared"),
    ):
        for y, p, w in (
            ([1.0, -1.0], [1.0, 2.0], None),
            ([1.0, 2.0], [1.0, -3.0], None),
            ([1, -2], [1, 2], [1, 0]),
        ):
            msg = f"{what} Logarithmic Error cannot be used when targets contain values less than or "
            msg += "equal to -1."
            with pytest.raises(ValueError) as theirs:
                getattr(sk, name)(y, p, sample_weight=w)
            with pytest.raises(perfeval.InvalidDataError) as e:
                getattr(F, name)(y, p, sample_weight=w)
            assert str(theirs.value) == msg and str(e.value) == f"{name}: {msg}"
        with pytest.raises(perfeval.InvalidDataError, match="inconsistent numbers of samples"):
            getattr(F, name)([1.0, 2.0], [1.0])
        with pytest.raises(perfeval.InvalidParameterError, match="'multioutput' parameter"):
            getattr(F, name)([1.0, 2.0], [1.0, 2.0], multioutput="variance_weighted")
    with pytest.raises(perfeval.InvalidDataError, match="Input y_true contains NaN"):
        F.max_error([1.0, math.nan], [1.0, 2.0])
    assert F.max_error([3, 2, 7, 1], [4, 2, 7, 1]) == 1.0  # scikit-learn's docstring example
    assert round(F.mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 3) == 0.04  # 0.039...
