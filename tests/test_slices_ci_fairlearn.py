"""The slices' bootstrap intervals beside fairlearn 0.15's own (``MetricFrame(..., n_boot=,
ci_quantiles=)``), where the definitions agree.

What agrees: both are percentile intervals (numpy's linear quantiles of the replicates) of the same
statistics (each slice's value, the overall value, ``difference``, ``ratio``, ``group_min``,
``group_max`` with both methods), and both resample the cases without stratifying: fairlearn draws
n rows with replacement from the n given (``DataFrame.sample(frac=1, replace=True)``: multinomial
counts, the slices' sizes random), perfeval gives each case a Poisson(1) weight (the slices' sizes
random too; the total as well).  The two are the same bootstrap in distribution, not draw for draw:
their seeds mean different things, so their intervals agree only within the Monte Carlo error of
each, which is what is compared here (loosely, and never to the digit).  What differs: fairlearn
leaves a replicate's undefined value out of its quantiles silently (``np.nanquantile``); perfeval
gives no interval when more than 5% of the replicates are undefined.  The slices here are large, so
no replicate is undefined and that difference does not arise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import perfeval
from perfeval.stats import slice_ci

fairlearn = pytest.importorskip("fairlearn.metrics")
skm = pytest.importorskip("sklearn.metrics")

N_BOOT = 400


def data():
    rng = np.random.default_rng(34)
    n = 1500
    site = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < 0.4).astype(int)
    lift = np.select([site == "a", site == "b"], [1.4, 0.9], 0.5)
    s = np.round(rng.normal(size=n) + lift * y, 2)
    return y, s, site


@pytest.fixture(scope="module")
def both():
    y, s, site = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = fairlearn.MetricFrame(
            metrics={"ROC": skm.roc_auc_score},
            y_true=y,
            y_pred=s,
            sensitive_features=site,
            n_boot=N_BOOT,
            ci_quantiles=[0.025, 0.975],
            random_state=7,
        )
        r = perfeval.evaluate(y, s, measures=["roc"], by={"site": site})
    return mf, slice_ci(r, n_boot=N_BOOT, seed=7)


def near(ours, theirs, width) -> None:
    """Two percentile bounds of the same bootstrap from independent draws: within a sixth of the
    interval's width (the 2.5% quantile of 400 replicates has a Monte Carlo error of about 3.5% of
    the width each, so a sixth is about three and a half standard errors of their difference; here
    the largest difference is an eighth)."""
    assert abs(ours - theirs) <= width / 6, (ours, theirs, width)


def test_each_slice_and_the_overall_value(both):
    mf, c = both
    lo, hi = mf.by_group_ci
    f = c.frame().xs("ROC", level="measure").loc["site"]
    assert np.allclose(f["value"].to_numpy(), mf.by_group["ROC"].to_numpy(), rtol=1e-12)
    for key in ("a", "b", "c"):
        width = hi.loc[key, "ROC"] - lo.loc[key, "ROC"]
        assert 0.75 < (f.loc[key, "high"] - f.loc[key, "low"]) / width < 1.33
        near(f.loc[key, "low"], lo.loc[key, "ROC"], width)
        near(f.loc[key, "high"], hi.loc[key, "ROC"], width)
    olo, ohi = mf.overall_ci
    got = c.overall["ROC"]
    near(got.low, olo["ROC"], ohi["ROC"] - olo["ROC"])
    near(got.high, ohi["ROC"], ohi["ROC"] - olo["ROC"])


@pytest.mark.parametrize(
    "ours, theirs",
    [
        ("difference", ("difference_ci", "between_groups")),
        ("difference_to_overall", ("difference_ci", "to_overall")),
        ("ratio", ("ratio_ci", "between_groups")),
        ("ratio_to_overall", ("ratio_ci", "to_overall")),
        ("group_min", ("group_min_ci", None)),
        ("group_max", ("group_max_ci", None)),
    ],
)
def test_the_gaps(both, ours, theirs):
    mf, c = both
    fn, method = theirs
    lo, hi = getattr(mf, fn)(method) if method else getattr(mf, fn)()
    g = c.gaps().loc[("site", "ROC", ours)]
    width = hi["ROC"] - lo["ROC"]
    assert 0.75 < (g["high"] - g["low"]) / width < 1.33, (g["low"], g["high"], lo["ROC"], hi["ROC"])
    near(g["low"], lo["ROC"], width)
    near(g["high"], hi["ROC"], width)
