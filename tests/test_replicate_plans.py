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
    # issue 33's calibration estimators (the operating points' variants: POINTS, below)
    "ece:norm=l2", "ece:norm=l2,debiased=yes", "ece:norm=max", "ece:n_bins=1", "ece:bins=mass",
    "ece:bins=mass,n_bins=7,norm=l2", "ece:bins=mass,norm=l2,debiased=yes", "ece:bins=mass,n_bins=1",
    "mce:n_bins=4", "mce:bins=mass", "brier_mcb:form=murphy", "brier_dsc:form=murphy",
]  # fmt: skip
#: every entry of the table with a plan (by its default spelling), then the variants
SPECS = [name.lower() for name, fp in FAST_PATHS.items() if fp.plan is not None] + VARIANTS
#: binary measures of the registry that are computed the generic way (each replicate's summary by the
#: measure's own code), with the reason (docs/statistics.md says so)
GENERIC: dict[str, str] = {
    "CAL_SLOPE": "Newton's method: several passes over a replicate's cells, each at the coefficients "
    "the pass before gives, each replicate stopping on its own: the walk would draw the cells again "
    "for every pass",
    "CAL_INTERCEPT": "Newton's method, as CAL_SLOPE (both fits)",
}
#: choices of a measure with a plan that are computed the generic way, with the reason (its plan is
#: None for them)
GENERIC_CHOICES: dict[str, str] = {
    "brier_mcb:form=corp": "the PAV recalibration pools cells into pools known only at the end of a "
    "replicate's walk, and each cell's term needs its final pool: a stack of up to one pool a cell, "
    "in every lane",
    "brier_dsc:form=corp": "the PAV recalibration, as BRIER_MCB's",
    "ece:n_bins=65537": "three sums a bin in every lane of the walk: more than ECE_MAX_BINS bins",
    "mce:n_bins=65537,bins=mass": "as ECE's",
    "ca2:window=1048577": "a ring of that many cases in every lane of the walk: more than CA2_MAX_WINDOW",
}


def _specs():
    return [parse_measure(m) for m in SPECS]


def _plan(spec):
    return FAST_PATHS[spec.measure.name].plan(spec)


def test_every_binary_measure_of_the_registry_has_a_plan_or_says_why_not():
    """A binary measure is finished in the compiled walk; one that cannot be is listed in GENERIC
    with the reason (and docs/statistics.md says so), and so is a choice of one that cannot be."""
    binary = {m.name for m in list_measures() if m.kind == "binary"}
    planned = {name for name, fp in FAST_PATHS.items() if fp.plan is not None}
    assert binary - planned == set(GENERIC), "give the measure a plan, or list it in GENERIC with why"
    assert planned <= binary
    for spec in GENERIC_CHOICES:
        assert _plan(parse_measure(spec)) is None, spec
    # every other choice of the variants has its plan; the defaults' too but the Brier parts' (CORP)
    for sp in _specs():
        corp = sp.measure.name in ("BRIER_MCB", "BRIER_DSC") and sp.kwargs["form"] == "corp"
        assert (_plan(sp) is None) == corp, sp.label


def test_docs_list_what_the_bootstrap_computes_the_generic_way():
    from pathlib import Path

    text = " ".join((Path(__file__).parents[1] / "docs" / "statistics.md").read_text().split())
    for name in [*GENERIC, "BRIER_MCB:form=corp", "BRIER_DSC:form=corp"]:
        assert name in text, name


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
    # and issue 33's, whose second walk stops where every lane is done (TPR_AT_FPR, PAUC)
    names = ("apr", "rms", "acc", "ca2", "tpr_at_fpr", "pauc", "youden:of=threshold", "ece:bins=mass")
    specs = [parse_measure(m) for m in names]
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
    names += ["tpr_at_fpr", "youden:of=threshold", "pauc:correct=mcclish", "ece", "brier_unc"]
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
    from perfeval.stats.fastpaths import ARG_K, COST_K, ECEW_K, PAUC_FPR_K

    for bad, why in (
        ([PAUC_FPR_K, 0.5], "lacks its arguments"),  # PAUC's lo
        ([COST_K, 0.0, ARG_K, 1.0, ARG_K, 1.0], "lacks its arguments"),  # a cost short
        ([ARG_K, 0.5], "argument of no kind"),
        ([ECEW_K, 0.0], "1 to 65536 bins"),
        ([ECEW_K, 65537.0], "1 to 65536 bins"),
    ):
        with pytest.raises(ValueError, match=why):
            _native.rep_finish(z, z, z, np.array(bad, float))
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
    """The specs that take weights that are not whole numbers (APR and CA2 refuse them; so do ECE's
    debiased form and, in the walk, its equal-mass bins), and those without a plan.
    """
    return [sp for sp in specs if _plan(sp) is None or not _plan(sp).counts]


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
    planned = [sp for sp in specs if _plan(sp) is not None]
    idx = R._planned(specs, w)
    assert {specs[i].label for i in idx} == {sp.label for sp in _no_counts(planned)}
    assert {sp.label for sp in planned} - {specs[i].label for i in idx} == {
        "APR", "CA2", "CA2:window=40", "ECE:norm=l2,debiased=yes", "ECE:bins=mass",
        "ECE:bins=mass,n_bins=7,norm=l2", "ECE:bins=mass,norm=l2,debiased=yes", "ECE:bins=mass,n_bins=1",
        "MCE:bins=mass",
    }  # fmt: skip
    assert len(R._planned(specs, np.round(w) + 1)) == len(planned)


# -- issue 33's operating points and partial AUC: the registry's numbers to the bit ----------------------

#: every operating point, its threshold, and the partial AUC: the walk evaluates each point of a
#: replicate with the measure's own IEEE operations (its TP and FP added from the top as np.cumsum
#: adds them), so its value and threshold are the bits of the measure on the replicate's summary
POINTS = [
    "tpr_at_fpr", "tpr_at_fpr:max_fpr=0.3,of=threshold", "tpr_at_fpr@0", "tpr_at_fpr@1:of=threshold",
    "sen_at_spc:min_specificity=0.75", "sen_at_spc:of=threshold", "sen_at_spc@1",
    "spc_at_sen:min_sensitivity=0.6", "spc_at_sen:of=threshold", "spc_at_sen@0", "pre_at_rec:min_recall=0.5",
    "pre_at_rec:of=threshold", "pre_at_rec@1", "pre_at_rec@0", "rec_at_pre:min_precision=0.5",
    "rec_at_pre:of=threshold", "rec_at_pre@0", "rec_at_pre@1:of=threshold", "youden", "youden:of=threshold",
    "topleft", "topleft:of=threshold", "best_fbeta:beta=2", "best_fbeta:beta=0.5,of=threshold",
    "best_fbeta:beta=0", "best_mcc", "best_mcc:of=threshold", "least_cost:fn=3,fp=1,tp=0.5,tn=0.25",
    "least_cost:fn=1,fp=2,of=threshold", "least_cost:fn=0,fp=0,tp=1,tn=3,of=threshold", "pauc",
    "pauc:lo=0.1,hi=0.7,correct=mcclish", "pauc:lo=0,hi=1", "pauc:focus=tpr,lo=0.5,hi=0.9",
    "pauc:focus=tpr,lo=0,hi=1,correct=mcclish",
]  # fmt: skip


def _same(got, want, label: str) -> None:
    assert np.array_equal(np.asarray(got, float), np.asarray(want, float), equal_nan=True), label


@given(_cases("none") | _cases("whole") | _cases("fractional"), st.integers(0, 2**32), st.randoms())
def test_operating_points_of_the_walk_are_the_registrys_bits(data, seed, rnd):
    """Summary draws, case draws (of two models, weights fractional too) and the jackknife: every
    replicate's value and threshold equal, to the bit, the measure on that replicate's summary (ties
    of value broken as the registry does: the other rate, then the highest threshold)."""
    y, a, w = data
    specs = [parse_measure(m) for m in POINTS]
    h = ScoreHistogram.from_arrays(y, a, None if w is None else np.ceil(w))  # whole counts
    got = R.hist_replicates(specs, h, seed, 9, 1)
    P, Q = (np.frombuffer(b).reshape(9, -1) for b in _native.boot_hist_draws(h.pos, h.neg, seed, 0, 9, False))
    for r in range(9):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        for sp, g in zip(specs, got, strict=True):
            _same(g[r], _value(sp, rep), f"{sp.label}, summary replicate {r}")
    b = np.array(rnd.sample(list(a), len(a)))
    sa, sb = R.Sorted(a), R.Sorted(b)
    pairs = [(sp, so) for sp in specs for so in (sa, sb)]
    got = R.row_replicates(pairs, y == 1, w, seed, 9, 1)
    Pr = np.frombuffer(_native.poisson_rows(len(a), seed, 0, 9)).reshape(9, -1)
    for r in range(9):
        cw = Pr[r] if w is None else Pr[r] * w
        for k, (sp, so) in enumerate(pairs):
            want = _value(sp, so.histogram(cw * (y == 1), cw * (y != 1)))
            _same(got[k][r], want, f"{sp.label}, case replicate {r}")
    fast = R.jack_groups_many(specs, R.Cases(y, a, w, None), threads=1)
    with pytest.MonkeyPatch.context() as m:
        for sp in specs:
            m.setitem(FAST_PATHS, sp.measure.name, FastPaths())
        slow = R.jack_groups_many(specs, R.Cases(y, a, w, None), threads=1)
    for sp, f, g in zip(specs, fast, slow, strict=True):
        _same(f, g, f"{sp.label}, jackknife")


@given(
    st.lists(
        st.tuples(
            st.sampled_from([-0.5, 0.0, 0.1, 0.25, 0.5, 0.9, 1.0, 2.0]),
            st.one_of(st.integers(0, 4).map(float), st.floats(0, 3)),
            st.one_of(st.integers(0, 4).map(float), st.floats(0, 3)),
        ),
        max_size=12,
        unique_by=lambda c: c[0],
    )
)
def test_the_walk_of_one_summary_is_the_registrys(cells):
    """One summary through the walk (rep_finish: its counts as given, fractional or 0 in a cell): each
    operating point and partial AUC the measure's bits; ECE, MCE and Murphy's parts to rounding."""
    from perfeval.stats.fastpaths import finish_plans, plan_stats
    from perfeval.stats.replicates import _plan_of

    cells = sorted(cells)
    sc = np.array([c[0] for c in cells], float)
    pos, neg = np.array([c[1] for c in cells], float), np.array([c[2] for c in cells], float)
    h = ScoreHistogram(sc, pos, neg)
    calib = ["ece", "ece:norm=l2", "ece:norm=max", "mce:n_bins=3", "brier_mcb:form=murphy"]
    calib += ["brier_dsc:form=murphy", "brier_unc"]
    if np.all(pos == np.round(pos)) and np.all(neg == np.round(neg)):  # equal-mass bins: whole counts
        calib += ["ece:bins=mass", "ece:bins=mass,n_bins=4,norm=l2,debiased=yes", "mce:bins=mass,n_bins=3"]
    specs = [parse_measure(m) for m in POINTS + calib]
    plans = [_plan_of(sp) for sp in specs]
    plan, where = plan_stats(plans)
    st_ = np.frombuffer(_native.rep_finish(sc, pos, neg, plan)).reshape(1, -1, 4)
    for sp, v in zip(specs, finish_plans(plans, where, st_), strict=True):
        if sp.measure.name in ("ECE", "MCE", "BRIER_MCB", "BRIER_DSC", "BRIER_UNC"):
            _close(v[0], _value(sp, h), sp.label)
        else:
            _same(v[0], _value(sp, h), sp.label)


def test_operating_point_ties_are_broken_as_the_registry_breaks_them():
    """Points of equal value (exactly: rates of 2 positives and 2 negatives): the registry keeps the
    one whose other rate is best, then the highest threshold; so does the walk."""
    from perfeval.stats.fastpaths import finish_plans, plan_stats
    from perfeval.stats.replicates import _plan_of

    def thresholds(neg, names):
        sc, pos = np.array([0.1, 0.2, 0.3, 0.4]), 1.0 - np.array(neg)
        h = ScoreHistogram(sc, pos, np.array(neg, float))
        specs = [parse_measure(m + (",of=threshold" if ":" in m else ":of=threshold")) for m in names]
        plans = [_plan_of(sp) for sp in specs]
        plan, where = plan_stats(plans)
        st_ = np.frombuffer(_native.rep_finish(sc, pos, np.array(neg, float), plan)).reshape(1, -1, 4)
        got = [float(v[0]) for v in finish_plans(plans, where, st_)]
        assert got == [_value(sp, h) for sp in specs]
        return got

    # N P N P (ascending): J = 1/2 at 0.4 and 0.2, cost 1 at both: the highest; precision >= 0.6 at
    # 0.4 and 0.2: the higher recall; FPR <= 0.5: TPR 1/2 at 0.4 and 0.3, 1 at 0.2
    names = ["youden", "least_cost", "rec_at_pre:min_precision=0.6", "tpr_at_fpr:max_fpr=0.5"]
    assert thresholds([1, 0, 1, 0], names) == [0.4, 0.4, 0.2, 0.2]
    # N N P P: specificity 1 at 0.4 and 0.3 (sensitivity 1/2, 1): the better sensitivity, 0.3, not the
    # first point; sensitivity at specificity 1: 1 at 0.3
    names = ["spc_at_sen:min_sensitivity=0.5", "sen_at_spc:min_specificity=1", "best_mcc"]
    assert thresholds([1, 1, 0, 0], names) == [0.3, 0.3, 0.3]


def test_an_infinite_score_counts_only_in_the_replicates_that_draw_it():
    """A cell of score +-inf that a replicate did not draw is not in its summary: RMS and BRIER of
    that replicate are finite (the walk added the undrawn cell's 0 x inf = NaN), and so are ECE and
    Murphy's MCB (NaN where the cell is drawn: a score outside [0, 1])."""
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1])
    s = np.array([-np.inf, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.9, np.inf])
    h = ScoreHistogram.from_arrays(y, s)
    specs = [parse_measure(m) for m in ("rms", "brier", "ece", "brier_mcb:form=murphy", "roc", "acc")]
    got = R.hist_replicates(specs, h, 1, 40, 1)
    P, Q = (np.frombuffer(b).reshape(40, -1) for b in _native.boot_hist_draws(h.pos, h.neg, 1, 0, 40, False))
    finite = 0
    for r in range(40):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        finite += not np.isnan(got[0][r])
        for sp, g in zip(specs, got, strict=True):
            _close(g[r], _value(sp, rep), f"{sp.label}, replicate {r}")
    assert finite > 0  # some replicates drew neither infinite score
