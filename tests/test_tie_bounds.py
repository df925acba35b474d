"""Tie bounds (``tie_bounds=True``, ``--tie-bounds``) against brute force.

Every measure of the registry is covered without a new test: the ``orders`` measures' bounds are
compared with the least and greatest value over every order of the tied cases, enumerated
(itertools.permutations inside each tie, the product over the ties) on small cases with heavy ties,
per query and per group; the ``linear`` one (SAR) likewise through its ROC part; an ``free`` one has
min = max = value; a ``none`` one (CA2) NaN with its reason.  Then: the value lies between its bounds
(AP and MAP: never below the minimum, and above the maximum in the documented case), min = max =
value without ties, ``perfeval.trec`` against brute force too, the command's ``--tie-bounds`` in
every output format, and the one-line refusals.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfeval
import perfeval.trec as trec
from _registry import completed
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import list_measures, parse_measure
from perfeval.measures.tiebounds import KINDS, tied_pairs

TOL = 1e-12


def examples(share: float) -> int:
    """A share of the profile's examples (ci 60, dev 200, nightly 3000): brute force costs more."""
    return max(10, int(settings.default.max_examples * share))


#: measures whose defaults compute nothing (CST: every cost 0)
SPECIAL = {"CST": ["cst:fn=1,fp=2"]}


def variants(m) -> list[str]:
    """Specs of a measure: its defaults, every choice of a word parameter, and small values of each
    numeric parameter within its domain (cut-offs 1, 2, 3; NTOP's n; R50's negatives; ...).
    """
    if m.name in SPECIAL:
        return SPECIAL[m.name]
    out = [m.name]
    for p in m.params:
        if p.name == "threshold":
            continue
        values = list(p.choices) if p.choices else [1, 2, 3]
        for v in values:
            if v == p.default:
                continue
            try:
                p.check(v, m.name)
            except InvalidParameterError:
                continue
            out.append(completed(m, p, f"{m.name}:{p.name}={v}"))
    return out


def specs_of(kinds: tuple[str, ...], bounds: tuple[str, ...] = KINDS) -> list[str]:
    return [s for m in list_measures() if m.kind in kinds and m.tie_bounds in bounds for s in variants(m)]


RANKING = specs_of(("ranking", "grouped"))
BINARY = specs_of(("binary",))


def orders(score: np.ndarray) -> Iterator[np.ndarray]:
    """Every order of the tied cases, as distinct scores (n for the top case, 1 for the last)."""
    n = len(score)
    ties = [np.flatnonzero(score == v) for v in sorted(set(score.tolist()), reverse=True)]
    for combo in itertools.product(*(itertools.permutations(t.tolist()) for t in ties)):
        rank = np.empty(n)
        for pos, i in enumerate(i for perm in combo for i in perm):
            rank[i] = n - pos
        yield rank


def quiet_evaluate(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(*args, **kw)


def brute(
    y: np.ndarray, s: np.ndarray, specs: list[str], grouped: bool, w: np.ndarray | None = None
) -> dict[str, tuple[float, float]]:
    """The least and greatest value of each measure over every order of the ties of one group
    (each case keeps its weight ``w`` wherever it goes).
    """
    seen: dict[str, list[float]] = {k: [] for k in specs}
    g = np.zeros(len(y), dtype=np.int64) if grouped else None
    for rank in orders(s):
        for k, v in values_or_nan(y, rank, specs, g, w).items():
            seen[k].append(v)
    return {
        k: (min(v), max(v)) if not any(map(math.isnan, v)) else (math.nan, math.nan) for k, v in seen.items()
    }


def values_or_nan(y, s, specs: list[str], g, w) -> dict[str, float]:
    """Each measure's value, NaN for one that refuses these cases (APR: weights not whole)."""
    try:
        r = quiet_evaluate(y, s, measures=specs, groups=g, sample_weight=w)
        return {k: r.results[parse_measure(k).label].value for k in specs}
    except InvalidParameterError:
        if len(specs) == 1:
            return {specs[0]: math.nan}
        return {k: v for one in specs for k, v in values_or_nan(y, s, [one], g, w).items()}


def close(a: float, b: float) -> bool:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


@st.composite
def small(draw, grades: int = 3, groups: int = 2):
    """Up to ``groups`` groups of 1 to 6 cases with scores from three values (heavy ties), and at most
    120 orders of the ties in each group.
    """
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=groups))
    y, s, g = [], [], []
    for q, n in enumerate(sizes):
        y += draw(st.lists(st.integers(0, grades - 1), min_size=n, max_size=n))
        s += draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
        g += [q] * n
    return np.array(y, dtype=np.float64), np.array(s), np.array(g, dtype=np.int64)


def check_groups(y, s, g, specs, kinds_grouped: bool) -> None:
    """Each group's bounds, and the headline's, against brute force over that group's orders."""
    r = quiet_evaluate(y, s, measures=specs, groups=g, tie_bounds=True)
    per = {k: [] for k in specs}
    for q in np.unique(g):
        at = g == q
        got = brute(y[at], s[at], specs, kinds_grouped)
        for k in specs:
            res = r.results[parse_measure(k).label]
            lo, hi = got[k]
            assert close(res.tie_min_per_group[q], lo), (k, q, res.tie_min_per_group[q], lo, y[at], s[at])
            assert close(res.tie_max_per_group[q], hi), (k, q, res.tie_max_per_group[q], hi, y[at], s[at])
            per[k].append((lo, hi))
    for k in specs:  # the headline: the groups' bounds averaged as the value is
        res = r.results[parse_measure(k).label]
        assert res.tie_min <= res.tie_max or math.isnan(res.tie_min)


@settings(max_examples=examples(0.4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small())
def test_ranking_bounds_are_the_extremes_over_every_order(case):
    y, s, g = case
    check_groups(y, s, g, RANKING, True)


def binary_brute(
    y: np.ndarray, s: np.ndarray, specs: list[str], w: np.ndarray | None = None
) -> dict[str, tuple[float, float]]:
    """The extremes over every order of the ties of the ``orders`` measures, and of SAR through ROC."""
    ordered = [k for k in specs if parse_measure(k).measure.tie_bounds == "orders"]
    out = brute(y, s, ordered, False, w) if ordered else {}
    linear = [k for k in specs if parse_measure(k).measure.tie_bounds == "linear"]
    if linear:
        roc = brute(y, s, ["roc"], False, w)["roc"]
        base = quiet_evaluate(y, s, measures=["roc", *linear], sample_weight=w)
        for k in linear:
            kw = parse_measure(k).kwargs
            c = kw["w_roc"] / (kw["w_acc"] + kw["w_roc"] + kw["w_rms"])
            v, v_roc = base[parse_measure(k).label], base["ROC"]
            ends = [v + c * (roc[0] - v_roc), v + c * (roc[1] - v_roc)]
            out[k] = (min(ends), max(ends))
    return out


@settings(max_examples=examples(0.4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small(grades=2, groups=1))
def test_binary_bounds_are_the_extremes_over_every_order(case):
    y, s, _ = case
    specs = BINARY
    r = quiet_evaluate(y, s, measures=specs, tie_bounds=True)
    got = binary_brute(y, s, specs)
    for k in specs:
        res = r.results[parse_measure(k).label]
        how = parse_measure(k).measure.tie_bounds
        if how == "free":
            assert close(res.tie_min, res.value) and close(res.tie_max, res.value), k
        elif how == "none":
            assert math.isnan(res.tie_min) and math.isnan(res.tie_max) and res.tie_note, k
        else:
            lo, hi = got[k]
            assert close(res.tie_min, lo), (k, res.tie_min, lo, y, s)
            assert close(res.tie_max, hi), (k, res.tie_max, hi, y, s)


@settings(max_examples=examples(0.25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small(grades=2, groups=2))
def test_binary_bounds_per_group(case):
    y, s, g = case
    specs = [k for k in BINARY if parse_measure(k).measure.tie_bounds in ("orders", "linear")]
    r = quiet_evaluate(y, s, measures=specs, groups=g, tie_bounds=True)
    for q in np.unique(g):
        at = g == q
        got = binary_brute(y[at], s[at], specs)
        for k in specs:
            res = r.results[parse_measure(k).label]
            lo, hi = got[k]
            assert close(res.tie_min_per_group[q], lo), (k, q)
            assert close(res.tie_max_per_group[q], hi), (k, q)


#: weights drawn inside the ties: unequal, 0, and fractions without a finite binary expansion (APR
#: takes whole weights only: the second pool)
WEIGHTS = ((0.0, 0.1, 1 / 3, 1.0, 2.0, 2.7, 5.0), (0.0, 1.0, 2.0, 3.0, 7.0))

#: every measure whose bounds are the measure of two orders (and SAR, through ROC), of every kind
ORDERED = specs_of(("binary", "grouped", "ranking"), ("orders", "linear"))


@st.composite
def weighted(draw, groups: int):
    """A case of :func:`small` with 0/1 targets and a weight per case, from one pool of ``WEIGHTS``."""
    y, s, g = draw(small(grades=2, groups=groups))
    pool = draw(st.sampled_from(WEIGHTS))
    w = draw(st.lists(st.sampled_from(pool), min_size=len(y), max_size=len(y)))
    return y, s, g, np.array(w)


def weighted_specs(y, s, g, w) -> list[str]:
    """The specs of ``ORDERED`` that take these weights; each one that refuses them refuses its tie
    bounds too (one line, no bound), as the per-query measures and APR with fractional weights do.
    """
    out = []
    for k in ORDERED:
        groups = g if parse_measure(k).measure.kind != "binary" else None
        try:
            quiet_evaluate(y, s, measures=[k], groups=groups, sample_weight=w)
        except InvalidParameterError:
            with pytest.raises(InvalidParameterError):
                quiet_evaluate(y, s, measures=[k], groups=groups, sample_weight=w, tie_bounds=True)
            continue
        out.append(k)
    return out


@settings(max_examples=examples(0.5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted(groups=1))
def test_weighted_bounds_are_the_extremes_over_every_order(case):
    """Unequal weights inside a tie: the bounds of every ``orders`` measure (of the registry, of any
    kind: those that take row weights) are still the least and greatest value over every order of
    the tied cases, each case keeping its weight (AP's maximum puts the heavier positives first)."""
    y, s, g, w = case
    specs = weighted_specs(y, s, g, w)
    assert "AP" in specs  # the binary measures take any weights: the check below can fail
    r = quiet_evaluate(y, s, measures=specs, sample_weight=w, tie_bounds=True)
    got = binary_brute(y, s, specs, w)
    for k in specs:
        res = r.results[parse_measure(k).label]
        lo, hi = got[k]
        assert close(res.tie_min, lo), (k, res.tie_min, lo, y, s, w)
        assert close(res.tie_max, hi), (k, res.tie_max, hi, y, s, w)


@settings(max_examples=examples(0.25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted(groups=2))
def test_weighted_bounds_per_group(case):
    y, s, g, w = case
    specs = [k for k in weighted_specs(y, s, g, w) if parse_measure(k).measure.kind == "binary"]
    assert "AP" in specs
    r = quiet_evaluate(y, s, measures=specs, groups=g, sample_weight=w, tie_bounds=True)
    # a group of weight 0 is no group (its cases are dropped cases): the groups reported, in order
    assert list(r.groups) == [q for q in np.unique(g) if w[g == q].sum() > 0]
    for qi, q in enumerate(r.groups):
        at = g == q
        got = binary_brute(y[at], s[at], specs, w[at])
        for k in specs:
            res = r.results[parse_measure(k).label]
            lo, hi = got[k]
            where = (k, q, y[at], s[at], w[at])
            assert close(res.tie_min_per_group[qi], lo), (*where, res.tie_min_per_group[qi], lo)
            assert close(res.tie_max_per_group[qi], hi), (*where, res.tie_max_per_group[qi], hi)


def test_ap_bounds_put_the_heavier_positive_first():
    """Below a negative of weight 1, a tie of positives of weights 1 and 3 and a negative of weight 1:
    AP is greatest with the heavier positive first (precisions 3/4, 4/5: (3 * 3/4 + 4/5) / 4) and
    least with the tie's negative, then the lighter positive first (1/3, 4/6).  Ordered by the
    target alone, the tie kept the rows' order among the positives: 0.725 and 0.6167."""
    y, s, w = [0, 1, 1, 0], [0.9, 0.5, 0.5, 0.5], [1.0, 1.0, 3.0, 1.0]
    ap = quiet_evaluate(y, s, measures=["ap"], sample_weight=w, tie_bounds=True).results["AP"]
    assert ap.tie_max == pytest.approx((3 * 3 / 4 + 4 / 5) / 4)
    assert ap.tie_min == pytest.approx((1 / 3 + 3 * 4 / 6) / 4)


def test_a_measure_no_order_can_score_has_no_bound_and_the_others_keep_theirs():
    """APR takes whole weights, checked on the summary's cells: weights of 1/3 in ties of three give
    whole cells and a value, but every order of those ties scores each case on its own, which APR
    refuses.  The whole call raised; now APR's bounds are NaN with the reason, ROC's are given."""
    y, s, w = [1, 1, 1, 0, 0, 0, 1, 0], [0.5] * 6 + [0.1, 0.9], [1 / 3] * 6 + [1.0, 1.0]
    r = quiet_evaluate(y, s, measures=["apr", "roc"], sample_weight=w, tie_bounds=True)
    apr, roc = r.results["APR"], r.results["ROC"]
    assert math.isfinite(apr.value) and math.isnan(apr.tie_min) and math.isnan(apr.tie_max)
    assert "APR needs whole-number weights" in apr.tie_note
    assert (roc.tie_min, roc.tie_max) == (0.0, 0.25) and not roc.tie_note
    assert json.loads(r.to_json())["measures"]["APR"]["tie_bounds_why_null"] == apr.tie_note


@settings(max_examples=examples(0.66), deadline=None)
@given(small(grades=2, groups=2))
def test_value_between_its_bounds(case):
    y, s, g = case
    for specs, groups in ((RANKING, g), (BINARY, None)):
        r = quiet_evaluate(y, s, measures=specs, groups=groups, tie_bounds=True)
        for label, res in r.results.items():
            if math.isnan(res.value) or math.isnan(res.tie_min):
                continue
            assert res.tie_min <= res.value + TOL, (label, res.tie_min, res.value)
            if not label.startswith(("AP", "MAP")):  # one threshold per tie: may pass the maximum
                assert res.value <= res.tie_max + TOL, (label, res.value, res.tie_max)


@settings(max_examples=examples(0.66), deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=12), st.integers(1, 3))
def test_without_ties_min_max_and_value_are_one(y, q):
    n = len(y)
    s = np.random.default_rng(n).permutation(n) / n  # distinct scores
    g = np.arange(n) % q
    for specs, yy in ((RANKING, y), (BINARY, [min(v, 1) for v in y])):
        r = quiet_evaluate(yy, s, measures=specs, groups=g, tie_bounds=True)
        assert r.tied_pairs in (0.0,) or math.isnan(r.tied_pairs)
        for label, res in r.results.items():
            if res.tie_note:
                continue
            assert close(res.tie_min, res.value) and close(res.tie_max, res.value), label


@settings(max_examples=examples(0.5), deadline=None)
@given(small(grades=2, groups=2), st.randoms(use_true_random=False))
def test_bounds_do_not_depend_on_the_row_order(case, rnd):
    y, s, g = case
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    for specs, groups in ((RANKING, g), (BINARY, None)):
        a = quiet_evaluate(y, s, measures=specs, groups=groups, tie_bounds=True)
        b = quiet_evaluate(
            y[perm], s[perm], measures=specs, groups=None if groups is None else g[perm], tie_bounds=True
        )
        for k, r in a.results.items():
            assert close(r.tie_min, b.results[k].tie_min) and close(r.tie_max, b.results[k].tie_max), k
        assert a.tied_pairs == b.tied_pairs or (math.isnan(a.tied_pairs) and math.isnan(b.tied_pairs))


def test_ap_one_threshold_lies_above_every_order():
    """The documented case: relevant cases tied below non-relevant ones."""
    y = [0, 0, 1, 1]
    s = [0.9, 0.8, 0.5, 0.5]
    r = quiet_evaluate(y, s, measures=["ap", "apr"], tie_bounds=True)
    ap = r.results["AP"]
    assert ap.tie_min == ap.tie_max == pytest.approx((1 / 3 + 2 / 4) / 2)  # the tie's order does not matter
    assert ap.value == pytest.approx(2 / 4)  # each gets the precision at the tie's end
    assert ap.value > ap.tie_max
    assert r.tied_pairs == 0.0  # a tie of relevant cases only: no comparable pair is tied
    assert r.results["APR"].value == pytest.approx(ap.tie_max)


def test_worked_example():
    r = perfeval.evaluate([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1], measures=["roc", "apr", "rms"], tie_bounds=True)
    assert (r.results["ROC"].tie_min, r.results["ROC"].tie_max) == (0.75, 1.0)
    assert r.results["APR"].tie_min == pytest.approx((1 + 2 / 3) / 2)
    assert r.results["RMS"].tie_min == r.results["RMS"].tie_max == r["RMS"]
    assert (r.tied_pairs, r.pairs) == (0.25, 4.0)
    d = json.loads(r.to_json())
    assert d["measures"]["ROC"]["tie_min"] == 0.75 and d["tied_pairs"] == 0.25


def test_tied_pairs_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        y, s, g = rng.integers(0, 3, n), rng.integers(0, 3, n), rng.integers(0, 2, n)
        w = rng.integers(1, 4, n).astype(float)
        pairs = tied = 0.0
        for i, j in itertools.combinations(range(n), 2):
            if g[i] == g[j] and y[i] != y[j]:
                pairs += w[i] * w[j]
                tied += w[i] * w[j] * (s[i] == s[j])
        assert tied_pairs(y, s, g, w) == (tied, pairs)


def test_whole_weights_are_copies():
    y, s, w = [1, 0, 1, 0, 1], [0.5, 0.5, 0.2, 0.2, 0.9], [2, 1, 1, 3, 1]
    a = quiet_evaluate(y, s, measures=["roc", "apr", "top10", "prb"], sample_weight=w, tie_bounds=True)
    rep = np.repeat(np.arange(5), w)
    b = quiet_evaluate(
        np.array(y)[rep], np.array(s)[rep], measures=["roc", "apr", "top10", "prb"], tie_bounds=True
    )
    for k in a.results:
        assert close(a.results[k].tie_min, b.results[k].tie_min) and close(
            a.results[k].tie_max, b.results[k].tie_max
        )
    assert a.tied_pairs == b.tied_pairs


TREC = [parse_measure(k) for k in specs_of(("ranking",))]


@st.composite
def judged_runs(draw):
    """One or two queries: a run of 1 to 5 documents with tied scores, judgments of some of them
    (relevance -1, 0, 1 or 2) and of documents the run did not retrieve.
    """
    qrels: dict = {}
    run: dict = {}
    for q in range(draw(st.integers(1, 2))):
        n = draw(st.integers(1, 5))
        scores = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n, max_size=n))
        run[f"q{q}"] = {f"d{i}": scores[i] for i in range(n)}
        judged = draw(
            st.lists(st.tuples(st.integers(0, n + 1), st.sampled_from([-1, 0, 1, 2])), max_size=n + 2)
        )
        qrels[f"q{q}"] = {f"d{i}": rel for i, rel in judged} or {"d0": 1}
    return qrels, run


@settings(max_examples=examples(0.33), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judged_runs())
def test_trec_bounds_are_the_extremes_over_every_order(case):
    qrels, run = case
    r = trec.evaluate(qrels, run, measures=TREC, tie_bounds=True)
    keys = [str(k) for k in r.groups]
    for qi, q in enumerate(keys):
        if q not in run:
            continue
        docs = list(run[q])
        score = np.array([run[q][d] for d in docs])
        seen: dict[str, list[float]] = {s.label: [] for s in TREC}
        for rank in orders(score):
            one = trec.evaluate(
                {q: qrels[q]}, {q: dict(zip(docs, rank.tolist(), strict=True))}, measures=TREC
            )
            for s in TREC:
                seen[s.label].append(float(one.results[s.label].per_group[0]))
        for s in TREC:
            res = r.results[s.label]
            assert close(res.tie_min_per_group[qi], min(seen[s.label])), (s.label, q, qrels, run)
            assert close(res.tie_max_per_group[qi], max(seen[s.label])), (s.label, q, qrels, run)
    for ties in ("trec_eval", "file"):  # one of the orders: between the bounds (AP: one threshold aside)
        t = trec.evaluate(qrels, run, measures=TREC, ties=ties, tie_bounds=True)
        for s in TREC:
            res = t.results[s.label]
            assert res.tie_min - TOL <= res.value <= res.tie_max + TOL, (ties, s.label)
            assert res.tie_min == r.results[s.label].tie_min and res.tie_max == r.results[s.label].tie_max


def test_trec_compare_carries_bounds():
    qrels = {"q1": {"a": 1, "b": 0}}
    runs = {"x": {"q1": {"a": 0.5, "b": 0.5}}, "y": {"q1": {"a": 0.9, "b": 0.5}}}
    c = trec.compare(qrels, runs, measures="map,P_1", test="none", tie_bounds=True)
    x, y = c.reports["x"], c.reports["y"]
    assert (x.results["MAP"].tie_min, x.results["MAP"].tie_max) == (0.5, 1.0)
    assert (y.results["MAP"].tie_min, y.results["MAP"].tie_max) == (1.0, 1.0)
    assert (x.tied_pairs, y.tied_pairs) == (1.0, 0.0)


def test_every_measure_says_how_it_is_bounded():
    for m in list_measures():
        assert m.tie_bounds in KINDS, m.name
        assert m.tie_bounds_text, m.name


# -- the command ------------------------------------------------------------------------------------

CSV = "y,s,q\n2,0.5,1\n0,0.5,1\n1,0.5,1\n0,0.1,1\n1,0.3,2\n1,0.3,2\n0,0.2,2\n"
QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 z 1\nq2 0 x 1\nq2 0 y -1\n"
RUN = (
    "q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.5 r\nq1 Q0 c 3 0.5 r\nq1 Q0 d 4 0.1 r\n"
    "q2 Q0 x 1 0.3 r\nq2 Q0 y 2 0.3 r\nq2 Q0 w 3 0.3 r\n"
)


@pytest.fixture
def tables(tmp_path):
    (tmp_path / "g.csv").write_text(CSV)
    (tmp_path / "b.txt").write_text("1 0.9\n0 0.5\n1 0.5\n0 0.1\n")
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(RUN.replace("a 1 0.5 r", "a 1 0.9 r").replace(" r\n", " s\n"))
    return tmp_path


def test_eval_tie_bounds_table_json_csv(tables, capsys):
    from conftest import run_cli

    argv = ["eval", str(tables / "b.txt"), "-m", "roc,apr,rms,ca2:window=2", "--tie-bounds"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["measure", "value", "tie_min", "tie_max"]
    assert lines[1].split() == ["ROC", "0.875000", "0.750000", "1.000000"]
    assert lines[3].split() == ["RMS", "0.360555", "0.360555", "0.360555"]
    assert lines[4].split()[2:] == ["nan", "nan"]
    assert "25% of 4 comparable pairs tied" in out and "no exact tie bound: CA2:window=2" in out
    code, out, err = run_cli(
        ["eval", str(tables / "b.txt"), "-m", "roc,apr", "--tie-bounds", "--format", "json"], capsys
    )
    d = json.loads(out)
    assert (d["measures"]["ROC"]["tie_min"], d["measures"]["ROC"]["tie_max"], d["tied_pairs"]) == (
        0.75,
        1.0,
        0.25,
    )
    code, out, err = run_cli(
        ["eval", str(tables / "b.txt"), "-m", "roc", "--tie-bounds", "--format", "csv"], capsys
    )
    assert out.splitlines() == [
        "measure,value,tie_min,tie_max,tied_pairs",
        "ROC,0.875,0.75,1.0,0.25",
    ]


def test_eval_tie_bounds_per_group(tables, capsys):
    from conftest import run_cli

    argv = [
        "eval",
        str(tables / "g.csv"),
        "--target",
        "y",
        "--score",
        "s",
        "--group",
        "q",
        "-m",
        "ndcg@2,gauc",
    ]
    code, out, err = run_cli([*argv, "--tie-bounds", "--per-group"], capsys)
    assert code == 0, err
    assert "NDCG@2 tie_min" in out and "42.86% of 7 comparable pairs tied" in out
    code, out, err = run_cli([*argv, "--tie-bounds", "--per-group", "--format", "csv"], capsys)
    rows = out.splitlines()
    assert rows[-3] == "group,NDCG@2,NDCG@2 tie_min,NDCG@2 tie_max,GAUC,GAUC tie_min,GAUC tie_max"
    assert rows[-2].startswith("1,0.5989025269968355,0.17376534287144002,1.0,0.75,0.5,1.0")
    code, out, err = run_cli([*argv, "--tie-bounds", "--format", "json"], capsys)
    d = json.loads(out)
    assert d["measures"]["GAUC"]["tie_bounds_per_group"]["1"] == [0.5, 1.0]


def test_trec_tie_bounds_every_format(tables, capsys):
    from conftest import run_cli

    argv = [
        "trec",
        str(tables / "qrels"),
        str(tables / "a.run"),
        str(tables / "b.run"),
        "-m",
        "map,P_1",
        "--tie-bounds",
    ]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert "r    0.3611..0.8333  0.0000..1.0000  71.43% of 7" in out
    code, out, err = run_cli([*argv, "--format", "json"], capsys)
    d = json.loads(out)
    assert d["r"]["map"]["tie_min"] == pytest.approx(13 / 36) and d["s"]["P_1"]["tie_min"] == 0.5
    code, out, err = run_cli([*argv, "--format", "csv"], capsys)
    head = out.splitlines()[0].split(",")
    assert head[-5:] == ["map tie_min", "map tie_max", "P_1 tie_min", "P_1 tie_max", "tied_pairs"]
    code, out, err = run_cli([*argv, "--format", "markdown"], capsys)
    assert "| r | 0.3889 (0.3611..0.8333) | 0.5000 (0.0000..1.0000) |" in out
    code, out, err = run_cli([*argv, "--format", "latex"], capsys)
    assert "0.3889 {\\scriptsize(0.3611--0.8333)}" in out
    code, out, err = run_cli([*argv, "-q", "--format", "csv"], capsys)
    row = [float(v) for v in out.splitlines()[1].split(",")[2:]]  # full precision, as the means
    assert row == [4 / 9, 2 / 3, pytest.approx(7 / 18, abs=1e-15), 2 / 3, 0.0, 1.0]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["eval", "{b}", "-m", "roc", "--tie-bounds", "--stream"], "--tie-bounds evaluates in memory"),
        (
            ["trec", "{q}", "{a}", "-m", "map", "--tie-bounds", "--format", "trec"],
            "no place in trec_eval's layout",
        ),
    ],
)
def test_refusals_are_one_line(tables, capsys, argv, message):
    from conftest import run_cli

    paths = {"{b}": str(tables / "b.txt"), "{q}": str(tables / "qrels"), "{a}": str(tables / "a.run")}
    code, out, err = run_cli([paths.get(a, a) for a in argv], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_dask_refused_in_the_library():
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd
    import pandas as pd

    df = dd.from_pandas(pd.DataFrame({"y": [1, 0], "s": [0.5, 0.5]}), npartitions=1)
    with pytest.raises(InvalidParameterError, match="in memory only"):
        perfeval.evaluate(df, target="y", score="s", measures=["roc"], tie_bounds=True)


def test_compare_tie_bounds_say_whether_ties_can_reverse_the_comparison(tmp_path, capsys):
    """perfeval compare --tie-bounds: each model's range over the orders of its tied cases (those of
    perfeval.evaluate), and whether the two ranges overlap."""
    import json

    import perfeval
    from perfeval.cli.main import main

    y, a, b = [1, 0, 1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1, 0.5, 0.5], [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    p = tmp_path / "c.csv"
    p.write_text("y,a,b\n" + "".join(f"{u},{v},{x}\n" for u, v, x in zip(y, a, b, strict=True)))
    base = [
        "compare",
        str(p),
        "--target",
        "y",
        "--score",
        "a,b",
        "-m",
        "roc",
        "--tie-bounds",
        "--n-boot",
        "50",
    ]
    assert main([*base, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["tie_bounds"]
    ra = perfeval.evaluate(y, a, measures=["roc"], tie_bounds=True).results["ROC"]
    roc = got["measures"]["ROC"]
    assert roc["models"]["a"] == [ra.tie_min, ra.tie_max] and ra.tie_min < ra.tie_max
    assert roc["models"]["b"] == [2 / 3, 2 / 3] and roc["overlap"] == {"b": True}
    assert got["tied_pairs"]["b"] == 0.0
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "ties can reverse" in out and out.splitlines()[2].endswith(" yes")


def test_the_group_auc_bounds_read_the_targets_pos_label_codes():
    """GAUC's value reads the targets coded by pos_label, but its bounds read the grades (> 0
    positive): grades 0..3 with pos_label=3 gave GAUC 0.8088 between bounds 0.8120 and 0.8131, and
    click/no labels with pos_label='click' an error ("`y_true` holds 'no' ... not a number").  The
    bounds are those of the coded targets, around the value."""
    rng = np.random.default_rng(5)
    n = 600
    grade = rng.integers(0, 4, n)
    g = rng.integers(0, 40, n)
    s = np.round(grade + rng.normal(0, 1.5, n), 1)  # ties
    coded = perfeval.evaluate((grade == 3).astype(int), s, groups=g, measures=["gauc"], tie_bounds=True)
    want = coded.results["GAUC"]
    for y, label in ((grade, 3), (np.where(grade == 3, "click", "no"), "click")):
        for measures in (["gauc"], ["gauc", "roc"]):
            r = perfeval.evaluate(y, s, groups=g, measures=measures, pos_label=label, tie_bounds=True)
            got = r.results["GAUC"]
            assert (got.value, got.tie_min, got.tie_max) == (want.value, want.tie_min, want.tie_max)
            assert got.tie_min <= got.value <= got.tie_max
            assert want.tie_min < want.tie_max  # the ties move it: the check can fail
            assert r.tied_pairs == coded.tied_pairs and r.pairs == coded.pairs
