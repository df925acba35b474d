"""A measure NaN in a group says the group's own reason, the one the group alone gets
(perfeval.measures.reasons.why_nan): one class in the group, no point meeting the target, a fit on
scores of exactly 0 or 1, scores outside [0, 1] for the calibration error; in the result
(``undefined_groups_why``), in the warning and in JSON's ``per_group_why_null``.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import UndefinedMeasureWarning

MEASURES = [
    "roc",
    "apr",
    "youden",
    "cal_slope",
    "cal_intercept",
    "cal_intercept:fit=joint",
    "ece",
    "brier_mcb",
    "rec_at_pre:min_precision=0.9",
    "sen_at_spc",
]


def _groups(seed: int, weighted: str):
    """Groups of every kind: mixed, positives only, negatives only, one score, scores of 0 or 1,
    scores outside [0, 1], separated classes, a precision target no threshold meets.
    """
    rng = np.random.default_rng(seed)
    ys, ss, gs = [], [], []
    kinds = ["mixed", "pos", "neg", "flat", "edge", "outside", "separated", "one"]
    for i in range(40):
        kind = kinds[i % len(kinds)]
        n = int(rng.integers(1 if kind == "one" else 4, 30))
        s = np.round(rng.random(n), 1) * 0.98 + 0.01
        y = (rng.random(n) < 0.4).astype(int)
        y[0], y[-1] = (1, 0) if n > 1 else (y[0], y[-1])
        if kind == "pos":
            y[:] = 1
        elif kind == "neg":
            y[:] = 0
        elif kind == "flat":
            s[:] = 0.3
        elif kind == "edge":
            s[: max(1, n // 3)] = 1.0
            s[-1] = 0.0
        elif kind == "outside":
            s[0] = 1.5
        elif kind == "separated":
            s = np.where(y == 1, 0.8, 0.2)
        ys.append(y)
        ss.append(s)
        gs.append(np.full(n, f"g{i:02d}"))
    y, s, g = np.concatenate(ys), np.concatenate(ss), np.concatenate(gs)
    choices = {
        "whole": [1.0, 2.0, 3.0],
        "fractional": [0.5, 1.0, 2.5],
        "halves": [0.5, 1.5],  # tied halves add up to whole cells (the summary's counts)
        "quarters": [0.25, 0.75],
    }.get(weighted)
    w = None if choices is None else rng.choice(choices, len(y))
    return y, s, g, w


def _quiet(*args, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = perfeval.evaluate(*args, **kw)
    return r, [str(c.message) for c in caught if issubclass(c.category, UndefinedMeasureWarning)]


@pytest.mark.parametrize("weighted", ["none", "whole", "fractional", "halves", "quarters"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_group_says_what_it_says_alone(seed, weighted):
    y, s, g, w = _groups(seed, weighted)
    measures = [m for m in MEASURES if not (m == "apr" and weighted not in ("none", "whole"))]  # APR: counts
    r, _ = _quiet(y, s, groups=g, sample_weight=w, measures=measures)
    seen = 0
    for label, res in r.results.items():
        assert len(res.undefined_groups_why) == len(res.undefined), label
        for key, why in zip(res.undefined, res.undefined_groups_why, strict=True):
            rows = g == key
            alone, _ = _quiet(
                y[rows], s[rows], sample_weight=None if w is None else w[rows], measures=[label]
            )
            assert np.isnan(alone[label])
            assert why == alone.results[label].why, (label, key)
            seen += why is not None
    assert seen > 40  # most NaN groups have a reason of their own


def test_fractional_weights_of_one_class_that_add_up_to_a_case_are_said_as_alone():
    """Two positives of weight 0.5 at one score are one case of weight 1 to the group's summary: the
    group says "the one case is positive", as the same rows alone do, not "every case (total weight
    1)" from its rows' weights."""
    y = np.array([1, 1, 0, 1])
    s = np.array([0.2, 0.2, 0.3, 0.6])
    w = np.array([0.5, 0.5, 1.0, 2.0])
    g = np.array([0, 0, 1, 1])
    for m in ("roc", "cal_slope", "cal_intercept"):
        r, _ = _quiet(y, s, groups=g, sample_weight=w, measures=[m])
        alone, _ = _quiet(y[:2], s[:2], sample_weight=w[:2], measures=[m])
        res = next(iter(r.results.values()))
        want = "one class only: the one case is positive"
        assert next(iter(alone.results.values())).why == want
        assert res.undefined[0] == 0 and res.undefined_groups_why[0] == want, m


def test_the_warning_and_json_say_the_groups_reasons():
    y = np.array([1, 1, 1, 0, 1, 0, 1, 0])
    s = np.array([0.2, 0.4, 0.6, 0.3, 1.0, 0.0, 0.7, 0.2])
    g = np.array(["a", "a", "a", "b", "b", "b", "c", "c"])
    r, said = _quiet(y, s, groups=g, measures=["roc", "cal_slope"])
    assert (
        "ROC is undefined for 1 of 3 groups ('a': one class only: all 3 cases are positive); they are "
        "left out of its means and listed in the report"
    ) in said
    assert any(
        line.startswith(
            "CAL_SLOPE is undefined for 3 of 3 groups ('a': one class only: all 3 cases are "
            "positive; 'b': 2 scores are exactly 0 or 1: the logit is infinite; 'c': the scores separate"
        )
        for line in said
    ), said
    d = json.loads(r.to_json())
    assert d["measures"]["ROC"]["per_group_why_null"] == {
        "a": "undefined in this group: one class only: all 3 cases are positive"
    }
    assert d["measures"]["CAL_SLOPE"]["per_group_why_null"]["b"] == (
        "undefined in this group: 2 scores are exactly 0 or 1: the logit is infinite"
    )


def test_no_reason_is_looked_for_when_no_group_is_nan():
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(50), 10)
    y = np.tile([0, 1], 250)
    s = rng.random(500) * 0.9 + 0.05
    r, said = _quiet(y, s, groups=g, measures=["roc", "cal_slope", "ece"])
    assert not said and all(res.undefined == [] == res.undefined_groups_why for res in r.results.values())


def test_every_backend_says_the_same_reasons():
    """Streamed (spilled parts, and single groups past the row budget finished from their summary),
    Metric(clustered=True) and Dask give the NaN groups the reasons evaluate() gives them."""
    y, s, g, w = _groups(7, "whole")
    order = np.argsort(g, kind="stable")  # clustered: each group's rows together
    y, s, g, w = y[order], s[order], g[order], w[order]
    measures = [m for m in MEASURES if m != "apr"]
    want, said = _quiet(y, s, groups=g, sample_weight=w, measures=measures)
    whys = {k: r.undefined_groups_why for k, r in want.results.items()}
    assert any(any(v) for v in whys.values())

    def check(got):
        for k, r in got.results.items():
            assert r.undefined == want.results[k].undefined, k
            assert r.undefined_groups_why == whys[k], k

    from perfeval.backends.stream import evaluate_stream_grouped

    chunks = [(y[i : i + 50], s[i : i + 50], g[i : i + 50], w[i : i + 50]) for i in range(0, len(y), 50)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        streamed = evaluate_stream_grouped(iter(chunks), measures=measures, budget_rows=12)
    check(streamed)
    assert [str(c.message) for c in caught if issubclass(c.category, UndefinedMeasureWarning)] == said
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(evaluate_stream_grouped(iter(chunks), measures=measures, clustered=True))
        m = perfeval.Metric(measures, clustered=True)
        for y_, s_, g_, w_ in chunks:
            m.update(y_, s_, groups=g_, sample_weight=w_)
        check(m.compute())
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    import dask

    df = pd.DataFrame({"y": y, "s": s, "g": g, "w": w})
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.evaluate(
            dd.from_pandas(df, npartitions=3), target="y", score="s", group="g", weight="w", measures=measures
        )
    check(got)


@pytest.mark.parametrize("measure", ["gauc", "cal_slope", "roc"])
def test_a_mean_undefined_in_every_group_says_the_groups_reasons(measure):
    """Every group NaN: the means' why_null say each group's reason (as the warning does), not the
    registry's edge cases.
    """
    y = np.array([1, 1, 0, 0, 1.0])
    s = np.array([0.2, 0.3, 0.4, 0.5, 0.6])
    g = np.array(["a", "a", "b", "b", "c"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = perfeval.evaluate(y, s, groups=g, measures=[measure]).to_dict()
    m = next(iter(d["measures"].values()))
    said = (
        "'a': one class only: all 2 cases are positive; 'b': one class only: all 2 cases are negative; "
        "'c': one class only: the one case is positive"
    )
    assert m["mean_why_null"] == m["weighted_mean_why_null"] == f"undefined in every group ({said})"
    assert any(said in str(w.message) for w in caught)
