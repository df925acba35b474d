"""Slices against fairlearn 0.15 (the peer): ``MetricFrame``'s ``by_group``, ``difference``, ``ratio``,
``group_min`` and ``group_max`` (both methods) with scikit-learn's ``roc_auc_score`` and
``average_precision_score`` on random data with ties, weights (zeros, whole slices of weight 0),
empty intersections and one-class slices; and fairlearn's fairness functions under their names
(perfeval.functional.fairlearn_names) equal to fairlearn's.

Where scikit-learn's metric is undefined on a slice (one class only: it warns and returns NaN or 0,
or refuses weights that are all 0), perfeval's value is NaN with the reason; the gaps are compared
with fairlearn's over those metrics made NaN there (fairlearn leaves NaN out of its gaps).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import perfeval
from perfeval.exceptions import InvalidDataError, UndefinedMeasureWarning
from perfeval.functional import fairlearn_names as F

fairlearn = pytest.importorskip("fairlearn.metrics")
skm = pytest.importorskip("sklearn.metrics")

TOL = 1e-12


def undefined_as_nan(fn):
    """A scikit-learn metric whose warning (one class only) or refusal (every weight 0) is NaN."""

    def metric(y_true, y_pred, sample_weight=None):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                return fn(y_true, y_pred, sample_weight=sample_weight)
            except (Warning, ValueError):
                return math.nan

    return metric


METRICS = {"ROC": undefined_as_nan(skm.roc_auc_score), "AP": undefined_as_nan(skm.average_precision_score)}


def close(a, b) -> bool:
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOL * max(1.0, abs(b))


def _data(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 600))
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    s = np.round(rng.random(n), int(rng.integers(1, 3)))  # ties
    df = pd.DataFrame(
        {
            "country": rng.choice(["FR", "DE", "US", "JP"], n, p=[0.4, 0.3, 0.25, 0.05]),
            "device": rng.choice(["mobile", "tablet", "desktop"], n),
            "age": rng.integers(0, 4, n),
        }
    )
    # a one-class slice: every JP case positive; an empty intersection: no US tablet
    y[df.country.to_numpy() == "JP"] = 1
    df.loc[(df.country == "US") & (df.device == "tablet"), "device"] = "mobile"
    w = None
    if seed % 2:
        w = rng.integers(0, 4, n).astype(float)
        w[(df.country == "DE").to_numpy() & (df.device == "desktop").to_numpy()] = 0.0  # a slice of weight 0
    return y, s, df, w


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("columns", [["country"], ["country", "device"], ["country", "device", "age"]])
def test_metricframe_equals_slices(seed, columns):
    y, s, df, w = _data(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = fairlearn.MetricFrame(
            metrics=METRICS,
            y_true=y,
            y_pred=s,
            sensitive_features=df[columns],
            sample_params={m: {"sample_weight": w} for m in METRICS},
        )
        r = perfeval.evaluate(
            y, s, measures=["roc", "ap"], sample_weight=w, by=df[columns], intersections=True
        )
    sl = r.slices
    name = " x ".join(columns)
    ours = sl.by_group(name)
    # fairlearn lists every combination of the features' values, those without a row as NaN rows;
    # perfeval lists the slices that hold a row (every one of them, NaN where undefined)
    held = df.groupby(columns).size()
    assert len(ours) == len(held) and list(ours.index) == list(held.index)
    empty = mf.by_group.drop(index=ours.index)  # fairlearn's combinations without a row: all NaN
    assert len(empty) == len(mf.by_group) - len(ours) and empty.isna().all().all()
    if len(columns) > 1:
        assert len(empty) > 0  # the data hold an empty intersection (US, tablet)
    theirs = mf.by_group.reindex(ours.index)
    for m in ("ROC", "AP"):
        for key, a, b in zip(ours.index, ours[m], theirs[m], strict=True):
            assert close(a, b), (name, key, m, a, b)
        # NaN exactly where scikit-learn's metric is undefined on the slice, with the reason
        undefined = np.isnan(ours[m].to_numpy())
        reasons = sl.slicing(name).values.reasons.get(m, {})
        assert sorted(reasons) == np.flatnonzero(undefined).tolist()
        assert close(r[m], mf.overall[m])
        for method in ("between_groups", "to_overall"):
            assert close(sl.difference(m, name, method=method), mf.difference(method=method)[m]), (m, method)
            assert close(sl.ratio(m, name, method=method), mf.ratio(method=method)[m]), (m, method)
        assert close(sl.group_min(m, name), mf.group_min()[m])
        assert close(sl.group_max(m, name), mf.group_max()[m])


def test_the_one_class_slice_is_nan_with_its_reason_where_scikit_learn_warns():
    y, s, df, w = _data(0)
    jp = df.country.to_numpy() == "JP"
    with pytest.warns(UserWarning, match="Only one class"):
        skm.roc_auc_score(y[jp], s[jp])
    with pytest.warns(
        UndefinedMeasureWarning, match=r"ROC is undefined in 1 of 4 slices of 'country' \('JP'"
    ):
        r = perfeval.evaluate(y, s, measures=["roc", "ap"], by=df[["country"]])
    f = r.slices.frame()
    assert np.isnan(f.loc[("country", "JP"), "ROC"])
    assert f.loc[("country", "JP"), "why_ROC"].startswith(
        f"undefined in this slice ({jp.sum()} positives, no negative)"
    )
    assert f.loc[("country", "JP"), "AP"] == 1.0  # every case positive: AP is 1, as scikit-learn's


@pytest.mark.parametrize("seed", range(6))
def test_selection_rate_by_slice_equals_metricframes(seed):
    y, s, df, w = _data(seed)
    pred = (s >= 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = fairlearn.MetricFrame(
            metrics=fairlearn.selection_rate,
            y_true=y,
            y_pred=pred,
            sensitive_features=df[["country", "device"]],
            sample_params={"sample_weight": w},
        )
        table = df.assign(y=y, s=s, w=np.ones(len(y)) if w is None else w)
        r = perfeval.evaluate(
            table, target="y", score="s", weight="w", measures=["selrate"], by=[("country", "device")]
        )
    ours = r.slices.by_group("country x device")["SELRATE"]
    theirs = mf.by_group.reindex(ours.index)
    assert all(close(a, b) for a, b in zip(ours, theirs, strict=True))
    for method in ("between_groups", "to_overall"):
        assert close(r.slices.difference("selrate", method=method), mf.difference(method=method))
        assert close(r.slices.ratio("selrate", method=method), mf.ratio(method=method))


# -- fairlearn's names ----------------------------------------------------------------------------------
FAIRNESS = [
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "equal_opportunity_difference",
    "equal_opportunity_ratio",
]


def _both(fn_ours, fn_theirs, *a, **kw):
    out = []
    for fn in (fn_ours, fn_theirs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(float(fn(*a, **kw)))
            except (ValueError, TypeError) as e:  # ours: InvalidDataError, a ValueError
                out.append(type(e))
    return out


@pytest.mark.parametrize("name", FAIRNESS)
def test_fairness_functions_equal_fairleans(name):
    rng = np.random.default_rng(11)
    compared = refused = 0
    for i in range(60):
        n = int(rng.integers(2, 80))
        yt = rng.integers(0, 2, n)
        yp = rng.integers(0, 2, n)
        sf = rng.choice(["a", "b", "c"], n)
        features = pd.DataFrame({"s": sf, "t": rng.integers(0, 3, n)}) if i % 3 == 0 else sf
        w = rng.integers(0, 3, n).astype(float) if i % 2 else None
        if w is not None and not w.any():
            w[0] = 1.0
        aggs = ["worst_case", "mean"] if "odds" in name else [None]
        for method in ("between_groups", "to_overall"):
            for agg in aggs:
                kw = {"sensitive_features": features, "method": method, "sample_weight": w}
                if agg:
                    kw["agg"] = agg
                ours, theirs = _both(getattr(F, name), getattr(fairlearn, name), yt, yp, **kw)
                if isinstance(theirs, type):  # fairlearn refuses (a slice of weight 0): so do we
                    assert ours is InvalidDataError, (i, method, agg, ours, theirs)
                    refused += 1
                else:
                    assert isinstance(ours, float) and close(ours, theirs), (i, method, agg, ours, theirs)
                    compared += 1
    assert compared > 100 and (refused > 0 or "demographic" in name)


@pytest.mark.parametrize(
    "name", ["true_positive_rate", "false_positive_rate", "true_negative_rate", "false_negative_rate"]
)
def test_rates_equal_fairlearns(name):
    rng = np.random.default_rng(12)
    compared = 0
    for i in range(150):
        n = int(rng.integers(1, 30))
        labels = [(0, 1), (-1, 1), ("no", "yes"), (0, 1)][i % 4]
        yt = np.array([labels[j] for j in rng.integers(0, 2, n)])
        yp = np.array([labels[j] for j in rng.integers(0, 2, n)])
        w = rng.integers(0, 3, n).astype(float) if i % 2 else None
        pos = "yes" if labels[0] == "no" else (None if i % 3 else 1)
        ours, theirs = _both(
            getattr(F, name), getattr(fairlearn, name), yt, yp, sample_weight=w, pos_label=pos
        )
        if isinstance(theirs, type):
            assert isinstance(ours, type), (i, ours, theirs)
        else:
            assert close(ours, theirs), (i, yt, yp, w, ours, theirs)
            compared += 1
    assert compared > 100


def test_selection_rate_equals_fairlearns():
    rng = np.random.default_rng(13)
    for i in range(100):
        n = int(rng.integers(1, 30))
        yp = rng.integers(0, 2, n)
        w = rng.random(n) * 3 if i % 2 else None
        ours, theirs = _both(F.selection_rate, fairlearn.selection_rate, np.zeros(n), yp, sample_weight=w)
        assert close(ours, theirs)
    with pytest.warns(UndefinedMeasureWarning, match="selection_rate: no case of weight > 0"):
        assert math.isnan(F.selection_rate([0, 1], [1, 1], sample_weight=[0, 0]))


def test_fairlearns_zero_rate_is_said():
    """A slice without a positive case: fairlearn's true positive rate there is 0; so is ours, and
    a warning says it is 0/0 (perfeval's SEN is NaN there)."""
    y = [1, 0, 1, 0, 0, 0]
    p = [1, 0, 0, 1, 1, 0]
    sf = ["a", "a", "a", "b", "b", "b"]
    with pytest.warns(
        UndefinedMeasureWarning, match=r"1 slice \('b'\) hold no positive case: .* 0 as fairlearn counts it"
    ):
        ours = F.equal_opportunity_difference(y, p, sensitive_features=sf)
    assert ours == fairlearn.equal_opportunity_difference(y, p, sensitive_features=sf) == 0.5
    with pytest.raises(InvalidDataError, match="without pos_label the labels are 0/1 or -1/1"):
        F.true_positive_rate(["a", "b"], ["a", "a"])
    with pytest.raises(InvalidDataError, match="the slice 'b' has weight 0: its rates are 0/0"):
        F.equalized_odds_difference(y, p, sensitive_features=sf, sample_weight=[1, 1, 1, 0, 0, 0])
