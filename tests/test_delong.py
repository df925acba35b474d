"""DeLong's variance, interval and test: against the paper's pairwise formulas (an independent
implementation), scikit-learn's area, R's pROC (its values recorded by tests/oracles/make_proc_fixture.py
in tests/oracles/fixtures/proc.json), repeated rows for integer weights, merged summaries, and the
coverage of the interval on data whose true area is known."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from _reference import delong_pairwise
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.stats.delong import delong, delong_from_histogram, delong_test
from perfeval.summaries import ScoreHistogram


@st.composite
def two_scores(draw):
    n = draw(st.integers(4, 40))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    if sum(y) < 2 or n - sum(y) < 2:
        y[:4] = [1, 1, 0, 0]
    grid = draw(st.sampled_from([3, 10, 1000]))  # few values: many ties
    a = draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))
    return y, [x / grid for x in a], [x / grid for x in b]


@settings(max_examples=150, deadline=None)
@given(two_scores())
def test_variance_and_test_equal_the_papers_pairwise_formulas(data):
    y, a, b = data
    (auc_a, auc_b), cov = delong_pairwise(y, [a, b])
    r = delong(y, a)
    assert r.auc == pytest.approx(auc_a, abs=1e-12)
    assert r.variance == pytest.approx(cov[0][0], rel=1e-9, abs=1e-15)
    c = delong_test(y, a, b)
    assert c.difference == pytest.approx(auc_a - auc_b, abs=1e-12)
    var = cov[0][0] + cov[1][1] - 2 * cov[0][1]
    assert c.se == pytest.approx(math.sqrt(max(var, 0.0)), rel=1e-7, abs=1e-9)
    u = delong_test(y, a, b, paired=False)
    assert u.se == pytest.approx(math.sqrt(cov[0][0] + cov[1][1]), rel=1e-9)


def test_agrees_with_scikit_learn_and_the_normal_interval():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.3
    s = np.round(rng.normal(size=2000) + y, 2)
    r = delong(y.astype(int), s, level=0.9)
    assert r.auc == pytest.approx(sk.roc_auc_score(y, s), abs=1e-13)
    z = NormalDist().inv_cdf(0.95)
    assert r.ci == pytest.approx((r.auc - z * r.se, r.auc + z * r.se))
    assert r.n_pos == y.sum() and r.n_neg == (~y).sum()


@settings(max_examples=60, deadline=None)
@given(two_scores(), st.data())
def test_integer_weights_are_repeated_rows(data, d):
    y, a, b = data
    w = d.draw(st.lists(st.integers(1, 4), min_size=len(y), max_size=len(y)))
    rep = np.repeat(np.arange(len(y)), w)
    Y, A, B = np.array(y), np.array(a), np.array(b)
    r1, r2 = delong(y, a, sample_weight=w), delong(Y[rep], A[rep])
    assert r1.auc == pytest.approx(r2.auc, abs=1e-12) and r1.variance == pytest.approx(r2.variance, rel=1e-9)
    c1, c2 = delong_test(y, a, b, sample_weight=w), delong_test(Y[rep], A[rep], B[rep])
    assert c1.se == pytest.approx(c2.se, rel=1e-7, abs=1e-12) and c1.p_value == pytest.approx(
        c2.p_value, abs=1e-9
    )


def test_from_merged_summaries_of_chunks():
    rng = np.random.default_rng(1)
    y = (rng.random(5000) < 0.4).astype(int)
    s = np.round(rng.random(5000) + 0.3 * y, 3)
    whole = delong(y, s)
    parts = [ScoreHistogram.from_arrays(y[k : k + 700], s[k : k + 700]) for k in range(0, 5000, 700)]
    merged = delong_from_histogram(ScoreHistogram.merge_all(parts))
    assert merged.auc == pytest.approx(whole.auc, abs=1e-15) and merged.variance == pytest.approx(
        whole.variance, rel=1e-12
    )


def test_interval_covers_the_true_area_about_95_percent_of_the_time():
    """Binormal data, unit variances, means 0 and d: the true area is Phi(d / sqrt 2)."""
    rng = np.random.default_rng(2024)
    d = 1.0
    truth = NormalDist().cdf(d / math.sqrt(2))
    reps, hits = 1000, 0
    for _ in range(reps):
        y = np.r_[np.zeros(150, int), np.ones(100, int)]
        s = rng.normal(size=250) + d * y
        lo, hi = delong(y, s).ci
        hits += lo <= truth <= hi
    # binomial sd at 0.95 over 1000 repeats is 0.0069: a window of about +-3 sd
    assert 0.93 <= hits / reps <= 0.97, hits / reps


def test_paired_test_size_under_the_null():
    """Two equally good scores of the same cases: the test rejects about 5% of the time at 0.05."""
    rng = np.random.default_rng(7)
    rejections, reps = 0, 600
    for _ in range(reps):
        y = (rng.random(300) < 0.5).astype(int)
        latent = rng.normal(size=300) + y
        a = latent + rng.normal(size=300)
        b = latent + rng.normal(size=300)
        rejections += delong_test(y, a, b).p_value < 0.05
    assert 0.025 <= rejections / reps <= 0.08, rejections / reps


def test_edge_cases():
    with pytest.raises(InvalidDataError, match="more than one positive"):
        delong([1, 0, 0], [0.2, 0.1, 0.3])
    with pytest.raises(InvalidParameterError, match="strictly between 0 and 1"):
        delong([1, 1, 0, 0], [0.2, 0.1, 0.3, 0.4], level=95)
    with pytest.raises(InvalidDataError, match="same cases"):
        delong_test([1, 1, 0, 0], [1, 2, 3, 4], [1, 2, 3])
    same = delong_test([1, 1, 0, 0], [4, 3, 2, 1], [40, 30, 20, 10])  # one ranking: nothing to test
    assert same.difference == 0.0 and same.p_value == 1.0 and same.se == 0.0
    perfect = delong([1, 1, 0, 0], [4, 3, 2, 1])
    assert perfect.auc == 1.0 and perfect.variance == 0.0 and perfect.ci == (1.0, 1.0)


def test_bad_inputs_of_the_paired_test():
    with pytest.raises(InvalidDataError, match="NaN at index 2"):
        delong_test([1, 1, 0, 0], [1, 2, float("nan"), 4], [1, 2, 3, 4])
    with pytest.raises(InvalidDataError, match="only 0 and 1"):
        delong_test([1, 2, 0, 0], [1, 2, 3, 4], [1, 2, 3, 4])
    with pytest.raises(InvalidDataError, match="sample_weight"):
        delong_test([1, 1, 0, 0], [1, 2, 3, 4], [1, 2, 3, 4], sample_weight=[1, -1, 1, 1])
    with pytest.raises(InvalidParameterError, match="paired=False"):
        delong_test([1, 1, 0, 0], [1, 2, 3, 4], [1, 2, 3, 4], y_true_b=[1, 0])
    r = delong_test([1, 1, 0, 0], [4, 3, 2, 1], [3, 1, 4, 2, 5, 0], paired=False, y_true_b=[1, 0, 1, 0, 1, 0])
    assert r.auc_a == 1.0 and r.auc_b == pytest.approx(1.0) and not r.paired


# -- R's pROC (a fixture: R is not in the test extra) ---------------------------------------------------
PROC = json.loads((Path(__file__).resolve().parent / "oracles" / "fixtures" / "proc.json").read_text())


@pytest.mark.parametrize("case", PROC["cases"], ids=lambda c: c["name"])
def test_area_variance_and_interval_are_procs(case):
    """pROC's ``auc``, ``var`` (DeLong) and ``ci.auc(method="delong")``, clipped to [0, 1] as pROC
    clips it, at two levels; ties included (half credit in both)."""
    res = case["results"]
    for name in ("a", "b"):
        for level in (0.95, 0.9):
            r = delong(case["y"], case[name], level=level)
            assert r.auc == pytest.approx(res[f"{name}.auc"], abs=1e-14)
            assert r.variance == pytest.approx(res[f"{name}.var"], rel=1e-10, abs=1e-16)
            assert r.ci == pytest.approx(tuple(res[f"{name}.ci{level}"]), abs=1e-12)


def test_the_fixture_holds_clipped_intervals():
    res = [(c["name"], k, v) for c in PROC["cases"] for k, v in c["results"].items() if ".ci" in k]
    clipped = [name for name, _, v in res if v[1] == 1.0]
    assert "near-one" in clipped and any(c["results"]["b.ci0.95"][0] == 0.0 for c in PROC["cases"])


@pytest.mark.parametrize("case", PROC["cases"], ids=lambda c: c["name"])
def test_compare_takes_procs_default_test_of_two_roc_areas(case):
    """pROC's ``roc.test`` of two curves of one response defaults to DeLong's paired test; so does
    ``perfeval.compare`` for the ROC area: the same z and p-value."""
    res = case["results"]
    assert res["paired.method"] == "DeLong's test for two correlated ROC curves"
    t = delong_test(case["y"], case["a"], case["b"])
    c = perfeval.compare(case["y"], case["a"], case["b"], measures=["roc"])["ROC"]
    assert c.method == "delong" and c.p_value == t.p_value
    assert t.z == pytest.approx(res["paired.statistic"], rel=1e-9, abs=1e-12)
    assert t.p_value == pytest.approx(res["paired.p"], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("case", PROC["cases"][:8], ids=lambda c: c["name"])
def test_unpaired_statistic_is_procs_and_its_p_value_the_normal_one(case):
    """pROC's unpaired DeLong test (``paired=FALSE``) has perfeval's statistic, but takes its p-value
    from a t distribution with Welch-Satterthwaite degrees of freedom, where perfeval takes the normal
    one (docs/statistics.md says so)."""
    stats = pytest.importorskip("scipy.stats")
    res = case["results"]
    assert res["unpaired.method"] == "DeLong's test for two ROC curves"
    t = delong_test(case["y"], case["a"], case["b"], paired=False)
    assert t.z == pytest.approx(res["unpaired.statistic"], rel=1e-9)
    ra, rb = delong(case["y"], case["a"]), delong(case["y"], case["b"])
    n = len(case["y"])
    df = (ra.variance + rb.variance) ** 2 / (ra.variance**2 / (n - 1) + rb.variance**2 / (n - 1))
    assert res["unpaired.p"] == pytest.approx(2 * stats.t.sf(abs(t.z), df), rel=1e-8)
    assert t.p_value == pytest.approx(math.erfc(abs(t.z) / math.sqrt(2)), rel=1e-12)
