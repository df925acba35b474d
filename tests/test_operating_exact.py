"""Operating points at a target decided exactly (issue 33): a threshold meets its target when the
rate computed exactly from the summary's weights (the exact sums of its cells' float64 weights, the
exact ratio) meets the target read as the decimal it is written as (0.1 is 1/10); the value
reported stays the float rate.  Each form that finishes these measures (the compiled walk of one
summary, the numpy forms over one summary and over every group, the bootstrap's compiled walk)
against a slow reference in exact rational arithmetic (fractions.Fraction over every achievable
threshold), with weights that are not binary fractions (0.1 k, k/3) where float rates land an ulp on
the wrong side of the target.
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval import _native
from perfeval.measures import operating as op
from perfeval.measures import parse_measure
from perfeval.measures._data import GroupedData, histograms
from perfeval.stats import replicates as R
from perfeval.stats.fastpaths import FAST_PATHS, FastPaths, finish_plans, plan_stats
from perfeval.summaries import ScoreHistogram

#: measure -> (numpy form, parameter)
TARGETS = {
    "TPR_AT_FPR": ("_tpr_at_fpr", "max_fpr"),
    "SEN_AT_SPC": ("_sen_at_spc", "min_specificity"),
    "SPC_AT_SEN": ("_spc_at_sen", "min_sensitivity"),
    "PRE_AT_REC": ("_pre_at_rec", "min_recall"),
    "REC_AT_PRE": ("_rec_at_pre", "min_precision"),
}
#: targets that rates of weights in tenths hit exactly (in decimals), and others
TENTHS = [0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]


def reference(h: ScoreHistogram, name: str, target: float, exact: bool = True) -> tuple[float, float]:
    """(value, threshold) by enumeration over every achievable threshold (+inf, then each distinct
    score from the highest): a point meets the target when its rate over the exact sums of the
    summary's cells (Fractions) meets the target's decimal (``Fraction(repr(target))``), or, with
    ``exact=False``, when its float rate meets the float target (the rule before).  The value and the
    other rate are the float rates the measure reports (its cumulative sums added from the highest
    cell as np.cumsum adds them); the best value, ties to the best other rate (NaN the worst), then
    to the highest threshold; NaN and NaN where the measure is undefined or no point qualifies.
    """
    sc, pos, neg = h.scores[::-1], h.pos[::-1], h.neg[::-1]
    tpf = np.concatenate(([0.0], np.cumsum(pos)))
    fpf = np.concatenate(([0.0], np.cumsum(neg)))
    Pf, Nf = float(tpf[-1]), float(fpf[-1])
    TP = [Fraction(0)]
    FP = [Fraction(0)]
    for p, q in zip(pos.tolist(), neg.tolist(), strict=True):
        TP.append(TP[-1] + Fraction(p))
        FP.append(FP[-1] + Fraction(q))
    P, N = TP[-1], FP[-1]
    t = Fraction(repr(float(target)))
    if P == 0 or (N == 0 and name not in ("PRE_AT_REC", "REC_AT_PRE")):
        return math.nan, math.nan

    def div(a: float, b: float) -> float:
        return a / b if b != 0 else math.nan

    best = None
    for i in range(len(tpf)):
        tp, fp = float(tpf[i]), float(fpf[i])
        tpr, fpr, spc, pre = div(tp, Pf), div(fp, Nf), div(Nf - fp, Nf), div(tp, tp + fp)
        if exact:
            x_fpr, x_spc = FP[i] / N if N else None, (N - FP[i]) / N if N else None
            x_sen = TP[i] / P
            x_pre = TP[i] / (TP[i] + FP[i]) if TP[i] + FP[i] else None
            ok = {
                "TPR_AT_FPR": x_fpr is not None and x_fpr <= t,
                "SEN_AT_SPC": x_spc is not None and x_spc >= t,
                "SPC_AT_SEN": x_sen >= t,
                "PRE_AT_REC": x_sen >= t,
                "REC_AT_PRE": x_pre is not None and x_pre >= t,
            }[name]
        else:
            ok = {
                "TPR_AT_FPR": fpr <= target,
                "SEN_AT_SPC": spc >= target,
                "SPC_AT_SEN": tpr >= target,
                "PRE_AT_REC": tpr >= target,
                "REC_AT_PRE": pre >= target,
            }[name]
        value, other = {
            "TPR_AT_FPR": (tpr, -fpr),
            "SEN_AT_SPC": (tpr, spc),
            "SPC_AT_SEN": (spc, tpr),
            "PRE_AT_REC": (pre, tpr),
            "REC_AT_PRE": (tpr, pre),
        }[name]
        if not ok or not math.isfinite(value):
            continue
        key = (value, -math.inf if math.isnan(other) else other)
        if best is None or key > best[0]:  # strictly better: the earlier (higher) threshold stays
            best = (key, math.inf if i == 0 else float(sc[i - 1]))
    if best is None:
        return math.nan, math.nan
    return best[0][0], best[1]


def _bits(x) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


def _same(got, want) -> bool:
    return _bits(got) == _bits(want)


@st.composite
def summaries(draw):
    """A summary of a few cells (ties: several cases a cell) with weights in tenths, thirds, binary
    fractions, random floats, whole numbers or whole numbers past 2**53 (whose float sums round)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 25))
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
    s = np.round(rng.random(n), draw(st.sampled_from([1, 2, 6])))
    kind = draw(st.sampled_from(["tenths", "tenths", "thirds", "dyadic", "random", "whole", "huge", "none"]))
    k = rng.integers(1, 12, n).astype(float)
    w = {
        "tenths": 0.1 * k,
        "thirds": k / 3,
        "dyadic": k / 8,
        "random": rng.random(n) * 3 + 1e-3,
        "whole": k,
        "huge": k * 2.0**52 + rng.integers(0, 3, n),
        "none": None,
    }[kind]
    return ScoreHistogram.from_arrays(y, s, w)


@settings(max_examples=400, deadline=None)
@given(
    summaries(),
    st.sampled_from(sorted(TARGETS)),
    st.one_of(st.sampled_from(TENTHS + [1 / 3, 2 / 3]), st.floats(0, 1)),
)
def test_one_summary_is_the_exact_enumeration(h, name, target):
    """The compiled walk (op_pick, over the summary's cells and over its unit cases' sorted halves),
    the numpy form over the summary's points and the registry: the exact enumeration's point, value
    and threshold, bit for bit."""
    want = reference(h, name, target)
    form, param = TARGETS[name]
    walk = op.compiled_choice(h, form, (target,))
    numpy_form = getattr(op, form)(op._one(h), target)
    for got in (walk, numpy_form):
        assert _same(got[0][0], want[0]) and _same(got[1][0], want[1]), (name, target, got, want)
    spec = parse_measure(f"{name}:{param}={target!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _same(spec(h), want[0])


def test_the_rule_matters_where_the_float_rate_misses_the_target():
    """Over many summaries with weights in tenths (rates that are the target in decimals, an ulp off
    it in float), the exact decision and the float one differ: the compiled walk and the numpy form
    are the exact enumeration there; and TPR_AT_FPR@a is SEN_AT_SPC@(1 - a) there too."""
    rng = np.random.default_rng(5)
    differ = 0
    for _ in range(300):
        n = int(rng.integers(2, 15))
        y = (rng.random(n) < 0.5).astype(int)
        s = np.round(rng.random(n), 1)
        h = ScoreHistogram.from_arrays(y, s, 0.1 * rng.integers(1, 30, n))
        for name in TARGETS:
            for t in TENTHS:
                a, b = reference(h, name, t), reference(h, name, t, exact=False)
                differ += not (_same(a[0], b[0]) and _same(a[1], b[1]))
                for got in (
                    op.compiled_choice(h, TARGETS[name][0], (t,)),
                    getattr(op, TARGETS[name][0])(op._one(h), t),
                ):
                    assert _same(got[0][0], a[0]) and _same(got[1][0], a[1]), (name, t)
        for t in TENTHS:
            left = op.compiled_choice(h, "_tpr_at_fpr", (t,))
            assert _same(left, op.compiled_choice(h, "_sen_at_spc", (_complement(t),))), t
    assert differ > 10


def test_the_issue_example():
    """Weights 0.1 and 0.2 of two negatives, 1 and 1 of two positives, 2.7 of a negative: at
    threshold 0.7, FPR = (0.1 + 0.2) / (0.1 + 0.2 + 2.7).  The float rates made TPR_AT_FPR@0.1 0 and
    SEN_AT_SPC@0.9 1 on the same point; exactly, both read the same rule.  With the two negatives at
    distinct scores (a cell each) FP = 0.1 + 0.2 exactly, 10 FP < N: FPR < 1/10, both 1.  Held at one
    score (the file's 0.9), the summary's cell holds their float64 sum 0.30000000000000004, 10 FP > N
    exactly: FPR > 1/10, both 0 (no threshold but +inf meets it)."""
    y = [0, 0, 1, 1, 0]
    w = [0.1, 0.2, 1.0, 1.0, 2.7]
    specs = ["tpr_at_fpr@0.1", "sen_at_spc@0.9", "tpr_at_fpr@0.1:of=threshold", "sen_at_spc@0.9:of=threshold"]
    distinct = perfeval.evaluate(y, [0.9, 0.85, 0.8, 0.7, 0.1], sample_weight=w, measures=specs)
    assert [r.value for r in distinct.results.values()] == [1.0, 1.0, 0.7, 0.7]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tied = perfeval.evaluate(y, [0.9, 0.9, 0.8, 0.7, 0.1], sample_weight=w, measures=specs)
    assert [r.value for r in tied.results.values()] == [0.0, 0.0, math.inf, math.inf]
    cell = 0.1 + 0.2
    assert 10 * Fraction(cell) > Fraction(cell) + Fraction(2.7)  # the tied cell: FPR above 1/10
    h = ScoreHistogram.from_arrays(y, [0.9, 0.9, 0.8, 0.7, 0.1], w)  # the float rule: one point, two answers
    assert reference(h, "TPR_AT_FPR", 0.1, exact=False) == (0.0, math.inf)
    assert reference(h, "SEN_AT_SPC", 0.9, exact=False) == (1.0, 0.7)


def test_the_issue_example_on_the_command_line(tmp_path, capsys):
    from perfeval.cli.main import main

    f = tmp_path / "fw.csv"
    f.write_text("y,s,w\n0,0.9,0.1\n0,0.85,0.2\n1,0.8,1\n1,0.7,1\n0,0.1,2.7\n")
    assert (
        main(
            [
                "eval",
                str(f),
                "--target",
                "y",
                "--score",
                "s",
                "--weight",
                "w",
                "-m",
                "tpr_at_fpr@0.1,sen_at_spc@0.9",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "TPR_AT_FPR@0.1  1.000000" in out and "SEN_AT_SPC@0.9  1.000000" in out
    assert out.count("at score >= 0.7") == 2


def _complement(a: float) -> float:
    """1 - a in decimals (0.1 -> 0.9), as a user writes it."""
    return float(Decimal(1) - Decimal(repr(a)))


#: decimals of up to 15 places in [0, 1]: each and its complement read back from their float64s
DECIMALS = st.integers(1, 15).flatmap(
    lambda k: st.integers(0, 10**k).map(lambda i: float(Decimal(i) / 10**k))
)


@settings(max_examples=300, deadline=None)
@given(summaries(), st.one_of(st.sampled_from(TENTHS + [0.05, 0.01, 0.95, 0.001]), DECIMALS))
def test_tpr_at_fpr_is_sen_at_spc_at_the_decimal_complement(h, a):
    """FP <= a N exactly <=> N - FP >= (1 - a) N exactly: TPR_AT_FPR@a and SEN_AT_SPC@(1 - a) pick the
    same point (value and threshold, bit for bit) when 1 - a is taken in decimals (0.1 and 0.9)."""
    s = _complement(a)
    assert Fraction(repr(a)) + Fraction(repr(s)) == 1
    left = op.compiled_choice(h, "_tpr_at_fpr", (a,))
    right = op.compiled_choice(h, "_sen_at_spc", (s,))
    assert _same(left[0], right[0]) and _same(left[1], right[1]), (a, s, left, right)


def test_the_float_complement_is_not_always_the_decimal_one():
    """1 - 0.9 in float64 is 0.09999999999999998, not the float64 0.1: TPR_AT_FPR@(1 - 0.9) is a
    target below 1/10, and differs from SEN_AT_SPC@0.9 (and TPR_AT_FPR@0.1) where the FPR is 1/10
    exactly: one negative above ten positives."""
    assert 1 - 0.9 != 0.1
    y = [0] + [1] * 10 + [0] * 9
    s = np.linspace(1.0, 0.05, 20)
    h = ScoreHistogram.from_arrays(y, s)
    tenth = op.compiled_choice(h, "_tpr_at_fpr", (0.1,))
    assert _same(tenth, op.compiled_choice(h, "_sen_at_spc", (0.9,)))
    assert tenth[0][0] == 1.0 and tenth[1][0] == s[10]
    assert op.compiled_choice(h, "_tpr_at_fpr", (1 - 0.9,))[0][0] == 0.0


@st.composite
def counts(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 60))
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    s = np.round(rng.random(n), draw(st.sampled_from([1, 2])))
    w = draw(st.sampled_from([None, "whole"]))
    return y, s, None if w is None else rng.integers(1, 5, n).astype(float)


@settings(max_examples=300, deadline=None)
@given(counts(), st.sampled_from(sorted(TARGETS)), st.sampled_from(TENTHS + [0.05, 0.95, 0.125, 0.33, 0.999]))
def test_whole_weights_and_no_weights_give_the_float_rule_s_numbers(d, name, target):
    """Counts (no weights, whole-number weights): the float sums are exact, and a rate of counts
    below 2**53 rounds onto a short decimal target only when it is that decimal exactly: the exact
    rule picks what the float rule picked."""
    y, s, w = d
    h = ScoreHistogram.from_arrays(y, s, w)
    got = op.compiled_choice(h, TARGETS[name][0], (target,))
    before = reference(h, name, target, exact=False)
    assert _same(got[0][0], before[0]) and _same(got[1][0], before[1])


def test_a_long_decimal_target_is_that_decimal():
    """Where counts DO differ from the float rule: a target of many digits.  2/3 as a float64 is
    0.6666666666666666 (its repr), below 2/3; FPR 2/3 (2 of 3 negatives) rounds to it, so the float
    rule took that point; exactly, 2/3 > 0.6666666666666666, and it does not meet the target."""
    h = ScoreHistogram.from_arrays([0, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5])
    assert reference(h, "TPR_AT_FPR", 2 / 3, exact=False) == (
        0.5,
        0.7,
    )  # 2 / 3 <= 0.6666666666666666 in float
    assert _same(op.compiled_choice(h, "_tpr_at_fpr", (2 / 3,)), (np.array([0.0]), np.array([math.inf])))
    assert _same(op.compiled_choice(h, "_tpr_at_fpr", (0.67,)), (np.array([0.5]), np.array([0.7])))


def test_target_decimal():
    assert op.target_decimal(0.1) == (1, 1)
    assert op.target_decimal(0.9) == (9, 1)
    assert op.target_decimal(0.0) == (0, 1)
    assert op.target_decimal(1.0) == (10, 1)
    assert op.target_decimal(2 / 3) == (6666666666666666, 16)
    assert op.target_decimal(5e-324) == (5, 324)
    assert op.target_decimal(0.1 + 0.2) == (30000000000000004, 17)


# -- every group at once, a group alone ----------------------------------------------------------------


@st.composite
def grouped(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 60))
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(float)
    s = np.round(rng.random(n), draw(st.sampled_from([1, 2])))
    g = rng.integers(0, 4, n)
    k = rng.integers(1, 12, n).astype(float)
    w = draw(st.sampled_from([0.1 * k, k / 3, k, k * 2.0**52]))
    return y, s, g, w


SPECS = [
    f"{name}:{param}={t}{of}"
    for name, (_f, param) in TARGETS.items()
    for t in (0.1, 0.3, 0.5, 0.75)
    for of in ("", ",of=threshold")
]


@settings(max_examples=150, deadline=None)
@given(grouped())
def test_every_group_at_once_is_each_group_s_summary(d):
    """The numpy form over every group at once (fractional weights, ties): each group's value and
    threshold are the exact enumeration's over that group's own summary, and the measure's over it."""
    y, s, g, w = d
    keys, codes = np.unique(g, return_inverse=True)
    gd = GroupedData.from_rows(codes, y, s, w, len(keys))
    sc, pos, neg, b = histograms(gd)
    for text in SPECS:
        spec = parse_measure(text)
        at_once = spec.measure.per_group_function()(gd, **spec.kwargs)
        for i in range(len(keys)):
            h = ScoreHistogram(sc[b[i] : b[i + 1]], pos[b[i] : b[i + 1]], neg[b[i] : b[i + 1]])
            param = TARGETS[spec.measure.name][1]
            want = reference(h, spec.measure.name, spec.kwargs[param])
            assert _same(at_once[i], want[1] if spec.kwargs["of"] == "threshold" else want[0]), (text, i)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert _same(at_once[i], spec(h)), (text, i)


@settings(max_examples=60, deadline=None)
@given(grouped())
def test_a_group_is_that_group_alone(d):
    """Per group (--group) the value of each group is the group evaluated alone (one case a score:
    each group's cells are its rows' weights, whatever order the rows come in)."""
    y, s, g, w = d
    s = s + np.arange(len(s)) * 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=SPECS)
        for i, key in enumerate(r.groups):
            m = g == key
            alone = perfeval.evaluate(y[m], s[m], sample_weight=w[m], measures=SPECS)
            for lab, res in alone.results.items():
                assert _same(r.results[lab].per_group[i], res.value), (key, lab)


# -- the bootstrap's compiled walk: every replicate the registry's value on its summary ---------------

POINTS = [
    f"{name}:{param}={t}{of}"
    for name, (_f, param) in TARGETS.items()
    for t in (0.1, 0.25, 0.5, 0.6, 0.9)
    for of in ("", ",of=threshold")
]


def _value(spec, h) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = spec(h)
    return math.nan if v is None else float(v)


def _tenths(seed: int, n: int):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(int)
    s = np.round(rng.random(n), 1)
    return y, s, 0.1 * rng.integers(1, 10, n), rng


def test_replicates_of_cases_are_the_registry_s_exact_values():
    """Cases drawn with weights in tenths (the walk's near-target points decided on the cells drawn
    again, exactly): each replicate's value and threshold are the measure's on that replicate's
    summary, bit for bit; and the float rule would have picked other points in some of them."""
    specs = [parse_measure(m) for m in POINTS]
    differ = 0
    for seed in range(6):
        y, a, w, rng = _tenths(seed, 30)
        b = np.round(rng.random(len(a)), 1)
        sa, sb = R.Sorted(a), R.Sorted(b)
        pairs = [(sp, so) for sp in specs for so in (sa, sb)]
        got = R.row_replicates(pairs, y == 1, w, seed, 40, 1)
        draws = np.frombuffer(_native.poisson_rows(len(a), seed, 0, 40)).reshape(40, -1)
        for r in range(40):
            cw = draws[r] * w
            for k, (sp, so) in enumerate(pairs):
                h = so.histogram(cw * (y == 1), cw * (y != 1))
                assert _same(got[k][r], _value(sp, h)), (sp.label, seed, r)
                name, param = sp.measure.name, TARGETS[sp.measure.name][1]
                want = reference(h, name, sp.kwargs[param])
                assert _same(got[k][r], want[1] if sp.kwargs["of"] == "threshold" else want[0])
                if sp.kwargs["of"] == "value":
                    differ += not _same(want[0], reference(h, name, sp.kwargs[param], False)[0])
    assert differ > 0


def test_replicates_of_a_summary_are_the_registry_s_exact_values():
    """Summary draws (whole counts: the float sums exact) of cells of tenths' rates: each replicate
    the registry's value on its summary, bit for bit."""
    specs = [parse_measure(m) for m in POINTS]
    y = np.array([0, 1] * 20)
    s = np.repeat(np.arange(10) / 10, 4)
    h = ScoreHistogram.from_arrays(y, s)
    got = R.hist_replicates(specs, h, 3, 60, 1)
    P, Q = (np.frombuffer(x).reshape(60, -1) for x in _native.boot_hist_draws(h.pos, h.neg, 3, 0, 60, False))
    for r in range(60):
        drawn = (P[r] + Q[r]) > 0
        rep = ScoreHistogram(h.scores[drawn], P[r][drawn], Q[r][drawn])
        for sp, g in zip(specs, got, strict=True):
            assert _same(g[r], _value(sp, rep)), (sp.label, r)
            want = reference(rep, sp.measure.name, sp.kwargs[TARGETS[sp.measure.name][1]])
            assert _same(g[r], want[1] if sp.kwargs["of"] == "threshold" else want[0]), (sp.label, r)


def test_the_jackknife_and_one_summary_through_the_walk_are_the_registry_s():
    """The delete-a-group jackknife (left-out cells of fractional weights) equals the generic one (the
    registry on each left-out summary), and one summary through the walk (rep_finish) is the exact
    enumeration, bit for bit."""
    specs = [parse_measure(m) for m in POINTS]
    differ = 0
    for seed in range(60):
        y, s, w, _rng = _tenths(seed, 40 if seed < 4 else 12)
        if seed < 4:
            fast = R.jack_groups_many(specs, R.Cases(y, s, w, None), threads=1)
            with pytest.MonkeyPatch.context() as m:
                for sp in specs:
                    m.setitem(FAST_PATHS, sp.measure.name, FastPaths())
                slow = R.jack_groups_many(specs, R.Cases(y, s, w, None), threads=1)
            for sp, f, g in zip(specs, fast, slow, strict=True):
                assert _same(f, g), sp.label
        h = ScoreHistogram.from_arrays(y, s, w)
        plans = [R._plan_of(sp) for sp in specs]
        plan, where = plan_stats(plans)
        st_ = np.frombuffer(_native.rep_finish(h.scores, h.pos, h.neg, plan)).reshape(1, -1, 4)
        for sp, v in zip(specs, finish_plans(plans, where, st_), strict=True):
            name, param = sp.measure.name, TARGETS[sp.measure.name][1]
            want = reference(h, name, sp.kwargs[param])
            assert _same(v[0], want[1] if sp.kwargs["of"] == "threshold" else want[0]), (sp.label, seed)
            differ += not _same(want, reference(h, name, sp.kwargs[param], False))
    assert differ > 0


def test_a_plan_without_the_target_s_decimal_is_refused():
    from perfeval.stats.fastpaths import ARG_K, TPR_FPR_K

    z = np.zeros(3)
    for bad in ([TPR_FPR_K, 0.1], [TPR_FPR_K, 0.1, ARG_K, 0.0, ARG_K, 1.0, ARG_K, -1.0]):
        with pytest.raises(ValueError, match="arguments|decimal"):
            _native.rep_finish(z, z, z, np.array(bad, float))
    with pytest.raises(ValueError, match="decimal"):
        _native.op_pick(z, z, z, 0, 0.1)
