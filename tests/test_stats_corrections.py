"""Benjamini-Hochberg's correction in perfeval.stats.paired.correct (issue 34: the tests of the slices'
gaps), beside Holm's and Bonferroni's: against statsmodels' multipletests (a recorded fixture,
tests/oracles/make_multipletests_fixture.py), scipy's false_discovery_control, and the step-up
procedure run literally."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval.exceptions import InvalidDataError
from perfeval.stats.paired import correct, correct_tested

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "multipletests.json").read_text()
)
OURS = {"holm": "holm", "bonferroni": "bonferroni", "fdr_bh": "bh"}


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=[c["name"] for c in FIXTURE["cases"]])
def test_corrections_equal_statsmodels(case):
    p = np.array(case["p"])
    for theirs, ours in OURS.items():
        np.testing.assert_allclose(correct(p, method=ours), case[theirs], rtol=1e-14, atol=0)


def test_bh_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 (m = 4): x 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02, 0.04, 0.04; the least
    # over the ranks at or above each
    np.testing.assert_allclose(correct([0.01, 0.04, 0.03, 0.005], "bh"), [0.02, 0.04, 0.04, 0.02], rtol=1e-15)
    # the step-up: 0.9 at rank 3 of 3 stays 0.9; 0.5 x 3/2 = 0.75; 0.02 x 3 = 0.06
    np.testing.assert_allclose(correct([0.5, 0.02, 0.9], "bh"), [0.75, 0.06, 0.9], rtol=1e-15)
    # ties get the same value, the lesser of their two ranks' (0.2 x 4/3)
    np.testing.assert_allclose(
        correct([0.2, 0.2, 0.9, 0.01], "bh"), [0.8 / 3, 0.8 / 3, 0.9, 0.04], rtol=1e-15
    )
    np.testing.assert_allclose(correct([0.6, 0.7], "bh"), [0.7, 0.7])
    assert correct([0.03], "bh").tolist() == [0.03]
    assert correct([], "bh").shape == (0,)
    assert correct(np.array([[0.01, 0.04], [0.03, 0.005]]), "bh").shape == (2, 2)


def test_bh_equals_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(34)
    for m in (1, 3, 20, 300):
        p = rng.random(m) ** 2
        np.testing.assert_allclose(
            correct(p, "bh"), stats.false_discovery_control(p, method="bh"), rtol=1e-14
        )


def _bh_by_its_procedure(p):
    """BH's adjusted p-value of each hypothesis as the least FDR level q at which the step-up procedure
    rejects it (reject the k smallest, k the largest rank with p(k) m / k <= q), run literally."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    candidates = sorted({min(1.0, p[i] * m / (j + 1)) for j, i in enumerate(order)} | {1.0})
    adjusted = [1.0] * m
    for q in reversed(candidates):
        k = max((j + 1 for j, i in enumerate(order) if min(1.0, p[i] * m / (j + 1)) <= q), default=0)
        for i in order[:k]:
            adjusted[i] = q
    return adjusted


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.05, 0.2, 1.0]), st.floats(0, 1)),
        min_size=1,
        max_size=25,
    )
)
def test_bh_equals_its_definition_and_lies_below_holm(p):
    bh = correct(p, method="bh")
    assert bh.tolist() == pytest.approx(_bh_by_its_procedure(p), rel=1e-13, abs=0)
    arr = np.array(p)
    assert (bh >= arr).all() and (bh <= correct(p) + 1e-15).all() and (bh <= 1).all()
    order = np.argsort(arr, kind="stable")
    assert (np.diff(bh[order]) >= 0).all()


def test_bh_over_the_tested_only():
    """A NaN p-value (no test) is not in the family: the others are corrected as a family of two."""
    got = correct_tested([0.01, float("nan"), 0.04], "bh")
    np.testing.assert_allclose(got[[0, 2]], correct([0.01, 0.04], "bh"))
    assert np.isnan(got[1])
    with pytest.raises(InvalidDataError, match="in \\[0, 1\\]"):
        correct([0.1, 1.5], "bh")
