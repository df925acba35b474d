"""Operating points at a target (TPR at FPR, sensitivity at specificity, specificity at sensitivity,
precision at recall, recall at precision), their thresholds (``of="threshold"``), against a slow
reference on the rows and against torchmetrics' binary functions (recorded by
tests/oracles/make_operating_fixtures.py in tests/oracles/fixtures/torchmetrics_operating.json).

Where torchmetrics differs (read in its 1.9 source, functional/classification/*_fixed_* and
*_at_*): no point meets the target, or one class only, it returns 0 where perfeval gives NaN with
the reason; SPC_AT_SEN's threshold among points of equal specificity is the highest there (argmax's
first), the lowest here (the point of highest sensitivity, which dominates); its threshold of
"nothing predicted" is 1.0 (a probability's), here +inf.
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.backends.stream import evaluate_stream
from perfeval.exceptions import UndefinedMeasureWarning
from perfeval.summaries import ScoreHistogram

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "torchmetrics_operating.json").read_text()
)

#: measure -> (parameter, value, constraint rate, (constraint >= or <=))
POINTS = {
    "TPR_AT_FPR": ("max_fpr", "tpr", "fpr", "<="),
    "SEN_AT_SPC": ("min_specificity", "tpr", "spc", ">="),
    "SPC_AT_SEN": ("min_sensitivity", "spc", "tpr", ">="),
    "PRE_AT_REC": ("min_recall", "pre", "tpr", ">="),
    "REC_AT_PRE": ("min_precision", "tpr", "pre", ">="),
}


def reference(y, s, w, name: str, target: float) -> tuple[float, float]:
    """(value, threshold) by enumeration over the rows: every threshold at a distinct score and +inf
    (nothing predicted positive), each point's counts summed from the rows; the best value among the
    points that meet the target (its rate exactly, against the target's decimal: the sums here are
    exact, whole or dyadic), ties to the best other rate, then to the highest threshold.
    """
    y, s = np.asarray(y, float), np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    P, N = float(np.sum(w * y)), float(np.sum(w * (1 - y)))
    _, value_rate, other_rate, cmp = POINTS[name]
    if P == 0 or (N == 0 and name not in ("PRE_AT_REC", "REC_AT_PRE")):
        return math.nan, math.nan
    best = None
    for t in [math.inf, *sorted(set(s.tolist()), reverse=True)]:
        pred = s >= t
        tp, fp = float(np.sum(w * y * pred)), float(np.sum(w * (1 - y) * pred))
        rates = {
            "tpr": tp / P,
            "fpr": fp / N if N else math.nan,
            "spc": (N - fp) / N if N else math.nan,
            "pre": tp / (tp + fp) if tp + fp > 0 else math.nan,
        }
        exact = {  # the same rates in rational arithmetic (tp, fp, P, N are exact here)
            "tpr": Fraction(tp) / Fraction(P),
            "fpr": Fraction(fp) / Fraction(N) if N else None,
            "spc": Fraction(N - fp) / Fraction(N) if N else None,
            "pre": Fraction(tp) / Fraction(tp + fp) if tp + fp > 0 else None,
        }
        v, o, x, goal = rates[value_rate], rates[other_rate], exact[other_rate], Fraction(repr(target))
        if math.isnan(v) or x is None or not (x <= goal if cmp == "<=" else x >= goal):
            continue
        key = (v, -o if cmp == "<=" else o)
        if best is None or key > best[0]:  # strictly better: the earlier (higher) threshold stays
            best = (key, t)
    if best is None:
        return math.nan, math.nan
    return best[0][0], best[1]


def ours(y, s, w, name: str, target: float) -> tuple[float, float]:
    param = POINTS[name][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(
            y,
            s,
            sample_weight=w,
            measures=[f"{name}:{param}={target}", f"{name}:{param}={target},of=threshold"],
        )
    v, t = (res.value for res in r.results.values())
    return v, t


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@st.composite
def data(draw):
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < rng.random()).astype(float)
    s = np.round(rng.random(n), draw(st.sampled_from([0, 1, 2])))
    kind = draw(st.sampled_from(["none", "whole", "dyadic"]))
    w = {
        "none": None,
        "whole": rng.integers(0, 4, n).astype(float),
        "dyadic": rng.integers(0, 4 * 1024, n) / 1024.0,
    }[kind]
    return y, s, w


@settings(max_examples=150, deadline=None)
@given(data(), st.sampled_from(sorted(POINTS)), st.sampled_from([0.0, 0.1, 0.25, 0.5, 2 / 3, 0.9, 1.0]))
def test_value_and_threshold_are_the_enumeration(d, name, target):
    """Exact sums (whole and dyadic weights): the same point, bit for bit, ties of both classes and
    exact hits of the target included."""
    y, s, w = d
    got, want = ours(y, s, w, name, target), reference(y, s, w, name, target)
    assert same(got[0], want[0]) and same(got[1], want[1]), (got, want)


def test_a_tied_segment_is_never_split():
    """Scores 0.9 (+), 0.5 (+ - - +), 0.1 (-): FPR <= 0.5 cannot be met inside the tie (FPR 2/3 at
    its end): TPR 1/3 at threshold 0.9, not an interpolated point.  (The target 2/3 is the float64
    0.6666666666666666, below 2/3: the tie's end meets 0.67, not it.)"""
    y, s = [1, 1, 0, 0, 1, 0], [0.9, 0.5, 0.5, 0.5, 0.5, 0.1]
    assert ours(y, s, None, "TPR_AT_FPR", 0.5) == (1 / 3, 0.9)
    assert ours(y, s, None, "TPR_AT_FPR", 0.67) == (1.0, 0.5)
    assert ours(y, s, None, "TPR_AT_FPR", 2 / 3) == (1 / 3, 0.9)


def test_nothing_predicted_is_a_point_with_threshold_inf():
    y, s = [0, 1, 0, 1], [0.9, 0.5, 0.4, 0.1]
    assert ours(y, s, None, "TPR_AT_FPR", 0.0) == (0.0, math.inf)


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("rec_at_pre@0.95", "no threshold gives precision >= 0.95: the highest is 0.5$"),
        ("tpr_at_fpr@0.1", "one class only: all 3 cases are positive$"),
    ],
)
def test_no_point_or_one_class_is_nan_with_the_reason(spec, fragment):
    y, s = ([0, 1, 0, 1], [0.9, 0.5, 0.4, 0.1]) if "rec" in spec else ([1, 1, 1], [0.2, 0.4, 0.6])
    with pytest.warns(UndefinedMeasureWarning, match=fragment):
        r = perfeval.evaluate(y, s, measures=[spec])
    assert math.isnan(next(iter(r.results.values())).value)


# -- torchmetrics --------------------------------------------------------------------------------
TM = {
    "binary_sensitivity_at_specificity": "SEN_AT_SPC",
    "binary_specificity_at_sensitivity": "SPC_AT_SEN",
    "binary_precision_at_fixed_recall": "PRE_AT_REC",
    "binary_recall_at_fixed_precision": "REC_AT_PRE",
}
TOL = 2e-6  # torchmetrics computes in float32


def _f(x) -> float:
    return math.nan if x == "nan" else float(x)


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["name"])
def test_torchmetrics_where_the_definitions_agree(case):
    y, s = np.array(case["y"], float), np.array(case["s"], float)
    h = ScoreHistogram.from_arrays(y, s)
    both = 0 < y.sum() < len(y)
    for r in case["results"]:
        name, target = TM[r["function"]], r["target"]
        assert perfeval.measures.get_measure(r["function"]).name == name  # their name is an alias
        v, t = ours(y, s, None, name, target)
        tv, tt = _f(r["value"]), _f(r["threshold"])
        if not both and math.isnan(v):  # one class: their number of a rate they set to 0 (or 1)
            continue
        if math.isnan(v):  # no point meets the target: their 0
            assert tv == 0.0 and name == "REC_AT_PRE", (name, target, r)
            continue
        assert abs(v - tv) < TOL, (name, target, v, tv)
        if name == "REC_AT_PRE" and v == 0.0:  # their threshold NaN when the best recall is 0
            assert math.isnan(tt)
            continue
        # the same operating point (their "nothing predicted" threshold is 1.0, every score is < 1)
        mine, theirs = h.counts_at(t), h.counts_at(math.inf if tt >= 1.0 else tt)
        if name == "SPC_AT_SEN":  # equal specificity; ours the lowest threshold of it: recall >= theirs
            assert mine[2] == theirs[2] and mine[0] >= theirs[0], (target, mine, theirs)
        else:
            assert mine == theirs, (name, target, t, tt)


def test_the_fixture_has_disagreements_it_explains():
    """The fixture exercises both differences: a NaN of ours against their 0, and an SPC_AT_SEN
    threshold that differs."""
    nan_vs_zero = spc_differs = 0
    for case in FIXTURE["cases"]:
        y, s = np.array(case["y"], float), np.array(case["s"], float)
        for r in case["results"]:
            name = TM[r["function"]]
            v, t = ours(y, s, None, name, r["target"])
            nan_vs_zero += math.isnan(v) and _f(r["value"]) == 0.0
            tt = _f(r["threshold"])
            spc_differs += name == "SPC_AT_SEN" and not math.isnan(v) and t != (math.inf if tt >= 1 else tt)
    assert nan_vs_zero > 0 and spc_differs > 0


# -- the threshold spec everywhere a value goes ---------------------------------------------------
SPECS = [
    "tpr_at_fpr@0.2:of=threshold",
    "sen_at_spc@0.7:of=threshold",
    "spc_at_sen@0.7:of=threshold",
    "pre_at_rec@0.6:of=threshold",
    "rec_at_pre@0.6:of=threshold",
]


def _values(report) -> dict:
    return {k: r.value for k, r in report.results.items()}


def test_threshold_specs_per_group_and_streamed_are_the_measure_alone():
    rng = np.random.default_rng(7)
    n = 400
    y = (rng.random(n) < 0.4).astype(float)
    s = np.round(rng.random(n) * 0.6 + 0.4 * y, 2)
    g = rng.integers(0, 5, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grouped = perfeval.evaluate(y, s, groups=g, measures=SPECS)
        for i, key in enumerate(grouped.groups.tolist()):
            alone = _values(perfeval.evaluate(y[g == key], s[g == key], measures=SPECS))
            assert {k: r.per_group[i] for k, r in grouped.results.items()} == alone
        chunks = [(y[a : a + 37], s[a : a + 37]) for a in range(0, n, 37)]
        assert _values(evaluate_stream(chunks, measures=SPECS)) == _values(
            perfeval.evaluate(y, s, measures=SPECS)
        )
