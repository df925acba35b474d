"""A BCa comparison's p-value is its interval's own test (stats/intervals.py ``bca_p_value``): the
BCa interval inverted, so that p < 1 - level exactly when the BCa interval at that level leaves
zero out.  The slow reference is R's ``boot.pval`` way, a search: the level at which an end of
:func:`bca` reaches zero, found by bisection on the level.  And the comparisons that print both
(``perfeval.compare``, ``perfeval compare``) never disagree about zero, where the percentile count
beside a BCa interval did (an ECE difference: p 0.36 beside a 95% interval leaving zero out).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval.cli.main import main
from perfeval.stats import compare
from perfeval.stats.intervals import bca, bca_p_value, level_of, p_value

pd = pytest.importorskip("pandas")


def _excludes(est: float, reps: np.ndarray, level: float, accel: float) -> bool:
    lo, hi = bca(est, reps, level, accel)
    return lo > 0 or hi < 0


def _by_search(est: float, reps: np.ndarray, accel: float) -> float:
    """The least 1 - level whose BCa interval leaves zero out, by bisection on the level (the
    interval widens with the level): boot.pval's search, to 1e-12."""
    lo_p, hi_p = 1e-9, 1.0 - 1e-12  # p: excluded at level 1 - hi_p?  the interval at level 1 - p
    if not _excludes(est, reps, 1.0 - hi_p, accel):
        return 1.0
    if _excludes(est, reps, 1.0 - lo_p, accel):
        return 0.0
    for _ in range(80):
        mid = 0.5 * (lo_p + hi_p)
        if _excludes(est, reps, 1.0 - mid, accel):
            hi_p = mid
        else:
            lo_p = mid
    return hi_p


def test_level_of_inverts_numpys_linear_quantile():
    rng = np.random.default_rng(3)
    d = rng.normal(size=501)
    for q in (0.001, 0.02, 0.3, 0.5, 0.77, 0.999):
        assert level_of(d, float(np.quantile(d, q))) == pytest.approx(q, abs=1e-12)
    assert level_of(d, d.min() - 1) == 0.0 and level_of(d, d.max() + 1) == 1.0
    tied = np.array([-1.0, 0.0, 0.0, 0.0, 2.0])
    assert level_of(tied, 0.0) == 0.5  # the middle of the tied positions 1 .. 3 of 0 .. 4


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    shift=st.floats(-3.0, 3.0),
    skew=st.floats(0.0, 1.5),
    bias=st.floats(-1.0, 1.0),
    accel=st.floats(-0.15, 0.15),
    n=st.sampled_from([199, 500, 1000]),
)
def test_bca_p_value_is_the_inverted_interval(seed, shift, skew, bias, accel, n):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    reps = shift + x + skew * (x * x - 1.0)
    est = float(np.median(reps) + bias)
    p, floor = bca_p_value(est, reps, accel)
    below = np.mean(reps < est) + 0.5 * np.mean(reps == est)
    if below in (0.0, 1.0):
        assert math.isnan(p)
        return
    assert 2.0 / (n + 1) <= p <= 1.0
    want = _by_search(est, reps, accel)
    if floor:
        assert want <= p + 1e-9
    else:
        assert p == pytest.approx(want, abs=1e-7)
    for level in (0.5, 0.8, 0.9, 0.95, 0.99):
        if abs(p - (1.0 - level)) > 1e-7 and not floor:
            assert (p < 1.0 - level) == _excludes(est, reps, level, accel)


def test_past_the_level_maps_pole_the_interval_still_widens():
    """A large bias with a strong negative acceleration (hypothesis found it: seed 0, bias -1,
    a = -0.1484375, 199 replicates): at levels beyond 1 - 1e-6 the BCa map's denominator 1 - a u
    turned negative and the lower end jumped above the upper (an interval (2.0, 1.75) "leaving
    zero out"), so the search's reference said p = 0 where the interval at 0.95 leaves zero out and
    at 0.99 does not (p 0.043).  Past the pole an end stays at the replicates' extreme."""
    rng = np.random.default_rng(0)
    reps = rng.normal(size=199)
    est = float(np.median(reps) - 1.0)
    accel = -0.1484375
    widths = []
    for level in (0.5, 0.9, 0.95, 0.99, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12):
        lo, hi = bca(est, reps, level, accel)
        assert lo <= hi, level
        widths.append((lo, hi))
    for (lo0, hi0), (lo1, hi1) in zip(widths[:-1], widths[1:], strict=True):
        assert lo1 <= lo0 and hi1 >= hi0  # each level's interval holds the one before
    assert widths[-1][0] == reps.min()  # the lower end past its pole (the upper is bounded by a < 0)
    p, floor = bca_p_value(est, reps, accel)
    assert not floor and 0.01 < p < 0.05 and p == pytest.approx(_by_search(est, reps, accel), abs=1e-7)


def test_no_bias_no_acceleration_is_the_percentile_test():
    """z0 = 0 and a = 0: BCa is the percentile interval, and its p-value the percentile count's
    (to the count's (k + 1) / (R + 1) and the quantile's interpolation)."""
    rng = np.random.default_rng(5)
    reps = rng.normal(0.4, 1.0, 4001)
    est = float(np.median(reps))
    p, floor = bca_p_value(est, reps, 0.0)
    assert not floor and p == pytest.approx(p_value(reps), abs=2e-3)


def test_zero_beyond_every_replicate_is_the_floor():
    reps = np.linspace(0.1, 0.5, 999)
    assert bca_p_value(0.3, reps, 0.05) == (2 / 1000, True)
    assert bca_p_value(-0.3, -reps, -0.05) == (2 / 1000, True)
    assert math.isnan(bca_p_value(0.3, -reps, 0.0)[0])  # every replicate below: no BCa interval


def _ece_models(seed: int = 1, n: int = 300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.clip(y * 0.3 + rng.random(n) * 0.7, 0, 1)
    b = np.clip(a + rng.normal(0, 0.05, n), 0, 1)
    return y, a, b


def test_compare_never_disagrees_with_its_interval():
    """ECE is biased under resampling: BCa moves its interval away from the replicates' middle.  The
    percentile count said p = 0.36 beside a 95% interval leaving zero out; the BCa p-value agrees."""
    hits = 0
    for seed in range(12):
        y, a, b = _ece_models(seed)
        for level in (0.9, 0.95):
            got = compare(y, b, a, measures=["ece", "logloss", "brier"], n_boot=400, level=level)
            for c in got.values():
                assert c.method == "bca"
                if not (math.isfinite(c.low) and math.isfinite(c.p_value)):
                    continue
                assert (c.p_value < 1 - level) == (c.low > 0 or c.high < 0), (seed, c)
                hits += 1
    assert hits >= 50
    y, a, b = _ece_models(1)
    c = compare(y, b, a, measures="ece", n_boot=500)["ECE"]
    assert c.low > 0 and c.p_value < 0.05


def test_the_command_prints_the_same_p_value(tmp_path, capsys):
    y, a, b = _ece_models(1)
    path = tmp_path / "m.csv"
    pd.DataFrame({"y": y, "old": a, "new": b}).to_csv(path, index=False)
    args = ["compare", str(path), "--target", "y", "--score", "old,new", "-m", "ece", "--n-boot", "500"]
    assert main([*args, "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["comparisons"][0]
    lib = compare(y, b, a, measures="ece", n_boot=500)["ECE"]
    assert row["p_value"] == lib.p_value and row["low"] == lib.low
    assert row["low"] > 0 and row["p_value"] < 0.05
