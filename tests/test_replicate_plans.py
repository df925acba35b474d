"""The replicate plans (perfeval.stats.fastpaths): every measure finished by the compiled finishers
from a replicate's statistics must equal the measure recomputed, the slow obvious way, on that
replicate's summary (drawn by the plain kernels), for summaries, case weights, two models and the
jackknife; and the replicates must not depend on threads or on how they are split into calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfeval import _x87
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import parse_measure
from perfeval.stats import ci
from perfeval.stats import replicates as R
from perfeval.stats.fastpaths import FAST_PATHS, FastPaths
from perfeval.summaries import ScoreHistogram

#: every entry of the table with a plan, some with parameters other than the defaults
SPECS = [
    "roc", "apr", "rms", "brier", "cxe", "acc", "ppv", "npv", "sen", "spc", "pre", "rec", "prf", "lft",
    "err", "fpr", "fnr", "fbeta:beta=2", "cst:tp=1,fn=-2,fp=-1,tn=0.5", "sar", "sar:w_acc=2,w_roc=0,w_rms=1",
    "r50", "r50@7", "rkl", "top1", "top10", "prb", "ntop@25", "slq", "slq:bins=7", "ca1", "ca2",
    "ca2:window=40",
]  # fmt: skip


def _specs():
    return [parse_measure(m) for m in SPECS]


def _value(spec, h) -> float:
    with np.errstate(all="ignore"):
        v = spec(h)
    return math.nan if v is None else float(v)


def _data(n=1500, seed=3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.clip(np.round(rng.normal(0.4, 0.2, n) + 0.25 * y, 2), 0.0, 1.0)  # ties, inside [0, 1]
    return y, s, rng


def test_every_plan_is_in_the_table_and_perfs_report_is_covered():
    from perfeval._nicknames import ALL

    specs = _specs()
    assert all(FAST_PATHS[sp.measure.name].plan is not None for sp in specs)
    assert set(ALL) <= {sp.measure.name for sp in specs}


def test_summary_replicates_equal_each_replicate_summary_recomputed():
    y, s, _ = _data()
    h = ScoreHistogram.from_arrays(y, s)
    specs = _specs()
    got = R.hist_replicates(specs, h, 9, 12, 2)
    P, Q = (np.frombuffer(b).reshape(12, -1) for b in _x87.boot_hist_draws(h.pos, h.neg, 9, 0, 12, False))
    for r in range(12):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        want = [_value(sp, rep) for sp in specs]
        np.testing.assert_allclose([g[r] for g in got], want, rtol=0, atol=1e-12, equal_nan=True)


def test_summary_replicates_with_scores_outside_zero_one():
    """CXE and SLQ are undefined when a drawn score is outside [0, 1]; CA1 skips it."""
    y, s, _ = _data(600, 4)
    s = s * 1.4 - 0.2
    h = ScoreHistogram.from_arrays(y, s)
    specs = [parse_measure(m) for m in ("cxe", "slq", "ca1", "rms", "ca2")]
    got = R.hist_replicates(specs, h, 2, 6, 1)
    P, Q = (np.frombuffer(b).reshape(6, -1) for b in _x87.boot_hist_draws(h.pos, h.neg, 2, 0, 6, False))
    for r in range(6):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        want = [_value(sp, rep) for sp in specs]
        np.testing.assert_allclose([g[r] for g in got], want, rtol=0, atol=1e-12, equal_nan=True)
    assert np.isnan(got[0]).all() and np.isnan(got[1]).all()


@pytest.mark.parametrize("weighted", [False, True])
def test_case_replicates_of_two_models_equal_recomputation_from_the_drawn_weights(weighted):
    y, a, rng = _data(900, 5)
    b = np.clip(np.round(a + rng.normal(0, 0.1, len(a)), 3), 0, 1)
    w = rng.integers(1, 4, len(a)).astype(float) if weighted else None
    specs = _specs()
    sa, sb = R.Sorted(a), R.Sorted(b)
    pairs = [(sp, so) for sp in specs for so in (sa, sb)]
    got = R.row_replicates(pairs, y == 1, w, 7, 10, 2)
    P = np.frombuffer(_x87.poisson_rows(len(a), 7, 0, 10)).reshape(10, -1)
    for r in range(10):
        cw = P[r] if w is None else P[r] * w
        keep = cw > 0
        for k, (sp, so) in enumerate(pairs):
            score = a if so is sa else b
            want = _value(sp, ScoreHistogram.from_arrays(y[keep], score[keep], cw[keep]))
            g = got[k][r]
            assert (math.isnan(g) and math.isnan(want)) or g == pytest.approx(want, abs=1e-12), sp.label


def test_jackknife_of_the_plans_equals_the_generic_one(monkeypatch):
    y, s, rng = _data(700, 6)
    w = rng.integers(1, 3, len(s)).astype(float)
    specs = [sp for sp in _specs() if sp.measure.name != "ROC"]
    for weights in (None, w):
        fast = R.jack_groups_many(specs, R.Cases(y, s, weights, None), threads=2)
        with monkeypatch.context() as m:
            for sp in specs:
                m.setitem(FAST_PATHS, sp.measure.name, FastPaths())
            slow = R.jack_groups_many(specs, R.Cases(y, s, weights, None), threads=2)
        for sp, f, g in zip(specs, fast, slow, strict=True):
            np.testing.assert_allclose(f, g, rtol=0, atol=1e-12, equal_nan=True, err_msg=sp.label)


def test_plans_do_not_depend_on_threads_or_on_how_replicates_are_split(monkeypatch):
    y, s, rng = _data(800, 7)
    b = np.clip(s + np.round(rng.normal(0, 0.05, len(s)), 2), 0, 1)
    specs = [parse_measure(m) for m in ("apr", "rms", "acc", "ca2")]
    h = ScoreHistogram.from_arrays(y, s)
    one = R.hist_replicates(specs, h, 4, 150, 1)
    sa, sb = R.Sorted(s), R.Sorted(b)
    rows = R.row_replicates([(sp, so) for sp in specs for so in (sa, sb)], y == 1, None, 4, 150, 1)
    monkeypatch.setattr(R, "REPLICATE_CHUNK", 7)
    for got, want in zip(R.hist_replicates(specs, h, 4, 150, 3), one, strict=True):
        assert np.array_equal(got, want)
    pairs = [(sp, so) for sp in specs for so in (sa, sb)]
    for got, want in zip(R.row_replicates(pairs, y == 1, None, 4, 150, 3), rows, strict=True):
        assert np.array_equal(got, want)


def test_intervals_with_plans_equal_the_generic_intervals_to_rounding(monkeypatch):
    """The whole request, BCa included: the plans change how fast, not what."""
    y, s, _ = _data(1200, 8)
    names = ["apr", "rms", "acc", "sar", "prb", "ca1", "slq"]
    fast = ci(y, s, names, n_boot=80, seed=5)
    for sp in [parse_measure(m) for m in names]:
        monkeypatch.setitem(FAST_PATHS, sp.measure.name, FastPaths())
    slow = ci(y, s, names, n_boot=80, seed=5)
    for k in fast:
        assert fast[k].low == pytest.approx(slow[k].low, abs=1e-12)
        assert fast[k].high == pytest.approx(slow[k].high, abs=1e-12)
        assert fast[k].se == pytest.approx(slow[k].se, abs=1e-12)


def test_weights_that_are_not_counts_still_refuse_apr():
    y, s, rng = _data(300, 9)
    w = rng.random(len(s)) + 0.5
    with pytest.raises(InvalidParameterError, match="whole-number"):
        ci(y, s, "apr", n_boot=20, sample_weight=w)
    assert not math.isnan(ci(y, s, "rms", n_boot=20, sample_weight=w)["RMS"].low)


def test_the_finishers_refuse_a_plan_they_do_not_know():
    z = np.zeros(3)
    with pytest.raises(ValueError, match="unknown kind"):
        _x87.rep_finish(z, z, z, np.array([99.0, 0.0]))
    with pytest.raises(ValueError, match="pairs"):
        _x87.boot_hist_multi(z, z, z, np.array([1.0]), 0, 0, 2, 1)
    with pytest.raises(ValueError, match="differ"):
        _x87.boot_hist_multi(z, z, np.zeros(2), np.array([0.0, 0.0]), 0, 0, 2, 1)
    order = np.arange(3, dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        _x87.boot_rows_multi(
            np.zeros(3, np.uint8), None, np.array([0.0, 0.0]), 0, 0, 2, 1,
            (order + 5, np.array([3], np.int64), np.array([0.5])),
        )  # fmt: skip


def test_a_shared_jackknife_is_computed_once_for_the_same_cases(monkeypatch):
    """The report asks for each model's jackknife for its interval and again for each comparison:
    inside shared_jackknife the same cases and measure are computed once, with the same numbers."""
    y, s, rng = _data(700, 10)
    specs = [parse_measure(m) for m in ("apr", "rms")]
    alone = R.jack_groups_many(specs, R.Cases(y, s, None, None))
    calls = []
    real = _x87.jack_multi
    monkeypatch.setattr(_x87, "jack_multi", lambda *a: calls.append(1) or real(*a))
    with R.shared_jackknife():
        first = R.jack_groups_many(specs, R.Cases(y, s, None, None))
        again = R.jack_groups_many(specs[::-1], R.Cases(list(y), s.copy(), None, None))
        other = R.jack_groups_many(specs, R.Cases(y, s + 1e-9, None, None))
    assert len(calls) == 2  # the same cases once, other scores again
    for a, b, c in zip(alone, first, again[::-1], strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert not np.array_equal(other[1], first[1])
    R.jack_groups_many(specs, R.Cases(y, s, None, None))
    assert len(calls) == 3  # outside the block, nothing is kept
