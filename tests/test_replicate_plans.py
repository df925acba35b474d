"""The replicate plans (perfeval.stats.fastpaths): every measure finished by the compiled finishers
from a replicate's statistics must equal the measure recomputed, the slow obvious way, on that
replicate's summary (drawn by the plain kernels), for summaries, case weights, two models and the
jackknife; and the replicates must not depend on threads or on how they are split into calls."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfeval import _native
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import list_measures, parse_measure
from perfeval.stats import ci
from perfeval.stats import replicates as R
from perfeval.stats.fastpaths import FAST_PATHS, FastPaths
from perfeval.summaries import ScoreHistogram

#: measures with parameters other than the defaults, beside every entry of the table with a plan
VARIANTS = [
    "fbeta:beta=2", "cst:tp=1,fn=-2,fp=-1,tn=0.5", "sar:w_acc=2,w_roc=0,w_rms=1", "r50@7", "ntop@25",
    "slq:bins=7", "ca2:window=40", "logloss:eps=0.001", "logloss:eps=0.2", "nrm:p=1", "nrm:p=3",
    "nrm:p=0.5", "nrm:p=0", "nrm:p=-1.5", "acc:threshold=0", "acc:threshold=1",
]  # fmt: skip
#: every entry of the table with a plan (by its default spelling), then the variants
SPECS = [name.lower() for name, fp in FAST_PATHS.items() if fp.plan is not None] + VARIANTS
#: binary measures of the registry that are computed the generic way, with the reason
_LATER = "issue 33's measures: no compiled replicate plan yet; each replicate's summary by its own code"
GENERIC: dict[str, str] = dict.fromkeys(
    [
        "BEST_FBETA",
        "BEST_MCC",
        "LEAST_COST",
        "TOPLEFT",
        "YOUDEN",
        "PAUC",
        "PRE_AT_REC",
        "REC_AT_PRE",
        "SEN_AT_SPC",
        "SPC_AT_SEN",
        "TPR_AT_FPR",
        "BRIER_DSC",
        "BRIER_MCB",
        "BRIER_UNC",
        "CAL_INTERCEPT",
        "CAL_SLOPE",
        "ECE",
        "MCE",
    ],
    _LATER,
)


def _specs():
    return [parse_measure(m) for m in SPECS]


def test_every_binary_measure_of_the_registry_has_a_plan_or_says_why_not():
    """A binary measure is finished in the compiled walk; one that cannot be is listed in GENERIC
    with the reason (and docs/statistics.md says so)."""
    binary = {m.name for m in list_measures() if m.kind == "binary"}
    planned = {name for name, fp in FAST_PATHS.items() if fp.plan is not None}
    assert binary - planned == set(GENERIC), "give the measure a plan, or list it in GENERIC with why"
    assert planned <= binary


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
    from perfeval.base.nicknames import ALL

    specs = _specs()
    assert all(FAST_PATHS[sp.measure.name].plan is not None for sp in specs)
    assert set(ALL) <= {sp.measure.name for sp in specs}


def test_summary_replicates_equal_each_replicate_summary_recomputed():
    y, s, _ = _data()
    h = ScoreHistogram.from_arrays(y, s)
    specs = _specs()
    got = R.hist_replicates(specs, h, 9, 12, 2)
    P, Q = (np.frombuffer(b).reshape(12, -1) for b in _native.boot_hist_draws(h.pos, h.neg, 9, 0, 12, False))
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
    specs = [parse_measure(m) for m in ("cxe", "slq", "logloss", "logloss:eps=0.1", "ca1", "rms", "ca2")]
    specs += [parse_measure(m) for m in ("ap", "nrm", "nrm:p=3")]
    got = R.hist_replicates(specs, h, 2, 6, 1)
    P, Q = (np.frombuffer(b).reshape(6, -1) for b in _native.boot_hist_draws(h.pos, h.neg, 2, 0, 6, False))
    for r in range(6):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        want = [_value(sp, rep) for sp in specs]
        np.testing.assert_allclose([g[r] for g in got], want, rtol=0, atol=1e-12, equal_nan=True)
    assert all(np.isnan(got[k]).all() for k in range(4))  # CXE, SLQ and LOGLOSS whatever eps
    assert not np.isnan(got[-1]).any()  # NRM is defined for any score


@pytest.mark.parametrize("weighted", [False, True])
def test_case_replicates_of_two_models_equal_recomputation_from_the_drawn_weights(weighted):
    y, a, rng = _data(900, 5)
    b = np.clip(np.round(a + rng.normal(0, 0.1, len(a)), 3), 0, 1)
    w = rng.integers(1, 4, len(a)).astype(float) if weighted else None
    specs = _specs()
    sa, sb = R.Sorted(a), R.Sorted(b)
    pairs = [(sp, so) for sp in specs for so in (sa, sb)]
    got = R.row_replicates(pairs, y == 1, w, 7, 10, 2)
    P = np.frombuffer(_native.poisson_rows(len(a), 7, 0, 10)).reshape(10, -1)
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
    names = ["apr", "rms", "acc", "sar", "prb", "ca1", "slq", "logloss", "ap", "nrm:p=3"]
    fast = ci(y, s, measures=names, n_boot=80, seed=5)
    for sp in [parse_measure(m) for m in names]:
        monkeypatch.setitem(FAST_PATHS, sp.measure.name, FastPaths())
    slow = ci(y, s, measures=names, n_boot=80, seed=5)
    for k in fast:
        assert fast[k].low == pytest.approx(slow[k].low, abs=1e-12)
        assert fast[k].high == pytest.approx(slow[k].high, abs=1e-12)
        assert fast[k].se == pytest.approx(slow[k].se, abs=1e-12)


def test_weights_that_are_not_counts_still_refuse_apr():
    y, s, rng = _data(300, 9)
    w = rng.random(len(s)) + 0.5
    with pytest.raises(InvalidParameterError, match="whole-number"):
        ci(y, s, measures="apr", n_boot=20, sample_weight=w)
    assert not math.isnan(ci(y, s, measures="rms", n_boot=20, sample_weight=w)["RMS"].low)


def test_the_finishers_refuse_a_plan_they_do_not_know():
    z = np.zeros(3)
    with pytest.raises(ValueError, match="unknown kind"):
        _native.rep_finish(z, z, z, np.array([99.0, 0.0]))
    with pytest.raises(ValueError, match="pairs"):
        _native.boot_hist_multi(z, z, z, np.array([1.0]), 0, 0, 2, 1)
    with pytest.raises(ValueError, match="differ"):
        _native.boot_hist_multi(z, z, np.zeros(2), np.array([0.0, 0.0]), 0, 0, 2, 1)
    order = np.arange(3, dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        _native.boot_rows_multi(
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
    real = _native.jack_multi
    monkeypatch.setattr(_native, "jack_multi", lambda *a: calls.append(1) or real(*a))
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


# -- the registry-wide property on random data (hypothesis) --------------------------------------------

#: scores: exactly 0 and 1, anything in [0, 1], and outside it (CXE, LOGLOSS and SLQ are then NaN)
SCORE = st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0, 1), st.floats(-0.5, 1.5))
WEIGHT = {
    "none": None,
    "whole": st.integers(1, 4).map(float),
    "fractional": st.floats(0.05, 3.0),
}


@st.composite
def _cases(draw, weights: str = "none", n_max: int = 40):
    """A few distinct scores shared by up to n_max cases (ties; a small set of cases makes replicates
    and left-out groups of one class, and no positive at all), with weights of the given kind."""
    pool = draw(st.lists(SCORE, min_size=1, max_size=10, unique=True))
    n = draw(st.integers(1, n_max))
    s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))).astype(int)
    kind = WEIGHT[weights]
    w = None if kind is None else np.array(draw(st.lists(kind, min_size=n, max_size=n)))
    return y, s, w


#: measures that subtract sums of another order (CA1's |positives' share - mean score|, CST's costs
#: of both signs, SAR's 1 - RMS): their value can be far smaller than their terms
SUBTRACTS = {"CA1", "CST", "SAR"}


def _close(got, want, label: str) -> None:
    """Equal to 1e-12 relative (the same infinities and NaNs); a measure that subtracts to 1e-12
    absolute (its terms are at most a few units: 1e-12 of them), any other to 1e-14 absolute."""
    atol = 1e-12 if label.split(":")[0].split("@")[0] in SUBTRACTS else 1e-14
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=atol, equal_nan=True, err_msg=label)


def _no_counts(specs: list) -> list:
    """The specs that take weights that are not whole numbers (APR and CA2 refuse them)."""
    return [sp for sp in specs if not FAST_PATHS[sp.measure.name].plan(sp).counts]


@given(_cases("none") | _cases("whole"), st.integers(0, 2**32))
def test_summary_walk_equals_the_registry_on_each_replicate_summary(data, seed):
    y, s, w = data
    h = ScoreHistogram.from_arrays(y, s, w)  # whole counts: a summary's draws
    specs = _specs()
    got = R.hist_replicates(specs, h, seed, 9, 1)  # a block of 8 lanes and one of 1 (AVX-512)
    P, Q = (np.frombuffer(b).reshape(9, -1) for b in _native.boot_hist_draws(h.pos, h.neg, seed, 0, 9, False))
    for r in range(9):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        for sp, g in zip(specs, got, strict=True):
            _close(g[r], _value(sp, rep), f"{sp.label}, replicate {r}")


@given(_cases("none") | _cases("whole") | _cases("fractional"), st.integers(0, 2**32), st.randoms())
def test_case_walk_of_two_models_equals_the_registry_on_each_replicate(data, seed, rnd):
    """The paired case walk: the same Poisson(1) case weights for both models' orders."""
    y, a, w = data
    b = np.array(rnd.sample(list(a), len(a)))  # another model: the same scores, shuffled
    specs = _specs() if w is None or np.all(w == np.round(w)) else _no_counts(_specs())
    sa, sb = R.Sorted(a), R.Sorted(b)
    pairs = [(sp, so) for sp in specs for so in (sa, sb)]
    got = R.row_replicates(pairs, y == 1, w, seed, 9, 1)
    P = np.frombuffer(_native.poisson_rows(len(a), seed, 0, 9)).reshape(9, -1)
    for r in range(9):
        cw = P[r] if w is None else P[r] * w
        keep = cw > 0
        for k, (sp, so) in enumerate(pairs):
            score = a if so is sa else b
            want = _value(sp, ScoreHistogram.from_arrays(y[keep], score[keep], cw[keep]))
            _close(got[k][r], want, f"{sp.label}, replicate {r}")


@given(_cases("none", 120) | _cases("whole", 120) | _cases("fractional", 120))
def test_jackknife_walk_equals_the_generic_jackknife(data):
    y, s, w = data
    specs = _specs() if w is None or np.all(w == np.round(w)) else _no_counts(_specs())
    specs = [sp for sp in specs if sp.measure.name != "ROC"]  # the ROC area's jackknife is exact
    fast = R.jack_groups_many(specs, R.Cases(y, s, w, None), threads=1)
    with pytest.MonkeyPatch.context() as m:
        for sp in specs:
            m.setitem(FAST_PATHS, sp.measure.name, FastPaths())
        slow = R.jack_groups_many(specs, R.Cases(y, s, w, None), threads=1)
    for sp, f, g in zip(specs, fast, slow, strict=True):
        _close(f, g, sp.label)


def test_fractional_weights_take_every_plan_but_those_of_counts():
    y, s, rng = _data(300, 11)
    w = rng.random(len(s)) + 0.5
    specs = _specs()
    idx = R._planned(specs, w)
    assert {specs[i].label for i in idx} == {sp.label for sp in _no_counts(specs)}
    assert {sp.measure.name for sp in specs} - {specs[i].measure.name for i in idx} == {"APR", "CA2"}
    assert len(R._planned(specs, np.round(w) + 1)) == len(specs)
