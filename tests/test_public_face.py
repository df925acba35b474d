"""One public face (issue 31): ``measures`` keyword-only wherever it is in ``evaluate`` (by position
it still works, with a DeprecationWarning naming ``measures=``), one name per concept (the runs'
comparison is ``trec.RunComparison``; ``trec.Comparison`` a deprecated alias)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import perfeval
from perfeval import stats, trec

QRELS = {"q1": {"d1": 1, "d2": 1, "d9": 1}, "q2": {"d1": 1, "d3": 2}}
RUN = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}, "q2": {"d3": 0.5, "d1": 0.5, "d4": 0.1}}
RUN2 = {"q1": {"d2": 0.9, "d1": 0.8}, "q2": {"d1": 0.7, "d3": 0.2}}


def _cases():
    rng = np.random.default_rng(31)
    y = (rng.random(200) < 0.4).astype(int)
    return y, np.round(rng.random(200) + 0.3 * y, 2), np.round(rng.random(200) + 0.1 * y, 2)


y, a, b = _cases()

#: each function whose measures were positional: (name in its warning, function, its data, measures)
CALLS = [
    ("perfeval.ci", perfeval.ci, (y, a), ["roc", "apr"], {"n_boot": 50, "seed": 3}),
    ("perfeval.compare", perfeval.compare, (y, a, b), "roc", {"method": "delong"}),
    (
        "perfeval.stats.compare_models",
        stats.compare_models,
        (y, {"a": a, "b": b}, "b"),
        "apr",
        {"n_boot": 40},
    ),
    ("perfeval.trec.evaluate", trec.evaluate, (QRELS, RUN), "map,p@2", {}),
    ("perfeval.trec.compare", trec.compare, (QRELS, {"x": RUN, "y": RUN2}), "map", {"test": "t"}),
    ("perfeval.trec.explain", trec.explain, (QRELS, RUN), "map", {"dialects": "trec_eval"}),
]


def _same(x, y) -> bool:
    """Equal results: intervals and comparisons by value, reports and tables by their JSON."""
    return x.to_dict() == y.to_dict() if hasattr(x, "to_dict") else x == y


@pytest.mark.parametrize("name, fn, data, measures, kw", CALLS, ids=[c[0] for c in CALLS])
def test_measures_by_position_warns_and_gives_the_same_result(name, fn, data, measures, kw):
    want = fn(*data, measures=measures, **kw)
    with pytest.warns(DeprecationWarning, match="measures passed by position is deprecated") as said:
        got = fn(*data, measures, **kw)
    assert _same(got, want)
    (w,) = [x for x in said if x.category is DeprecationWarning]
    assert str(w.message).startswith(f"{name}(): measures passed by position is deprecated")
    assert "pass measures=..." in str(w.message) and "perfeval 0.2.0" in str(w.message)
    assert w.filename == __file__  # at the caller's line


@pytest.mark.parametrize("name, fn, data, measures, kw", CALLS, ids=[c[0] for c in CALLS])
def test_measures_is_keyword_only_in_the_signature(name, fn, data, measures, kw):
    """``help()`` and ``inspect.signature`` show the function's own signature: measures keyword-only,
    as in perfeval.evaluate, explain and evaluate_stream."""
    for f in (fn, perfeval.evaluate, perfeval.explain, perfeval.evaluate_stream):
        assert inspect.signature(f).parameters["measures"].kind is inspect.Parameter.KEYWORD_ONLY, f
    with pytest.raises(TypeError, match="multiple values for argument 'measures'"):
        fn(*data, measures, measures=measures, **kw)
    with pytest.raises(TypeError):  # one more positional argument than measures: Python's own error
        fn(*data, measures, 0.95)


def test_the_weights_alias_still_points_at_the_caller():
    """``weights=`` warns at the user's line through the keyword-only wrapper too."""
    with pytest.warns(DeprecationWarning, match=r"ci\(weights=\.\.\.\) is deprecated") as said:
        perfeval.ci(y, a, measures="roc", method="delong", weights=np.ones(len(y)))
    assert said[0].filename == __file__


def test_a_trec_warning_points_at_the_caller():
    """trec's own warnings (a run query without judgments) point at the caller's line, as before."""
    with pytest.warns(UserWarning, match="without judgments are left out") as said:
        trec.evaluate(QRELS, {**RUN, "q9": {"d1": 1.0}}, measures="map")
    assert said[0].filename == __file__


def test_run_comparison_has_one_name():
    c = trec.compare(QRELS, {"x": RUN, "y": RUN2}, measures="map")
    assert (
        type(c) is trec.RunComparison and "RunComparison" in trec.__all__ and "Comparison" not in trec.__all__
    )
    assert trec.RunComparison is not stats.Comparison  # a table of runs, not one measure's difference
    with pytest.warns(
        DeprecationWarning, match="perfeval.trec.Comparison is deprecated .* use perfeval.trec.RunComparison"
    ):
        assert trec.Comparison is trec.RunComparison
    with pytest.warns(DeprecationWarning, match="RunComparison"):
        from perfeval.trec import Comparison  # noqa: F401
    with pytest.raises(AttributeError, match="has no attribute 'Comparisons'"):
        trec.Comparisons  # noqa: B018


def test_metric_keeps_its_measures_first():
    """Metric takes no data when made: its measures stay its first argument (no warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = perfeval.Metric(["roc"])
    m.update(y, a)
    assert m.compute()["ROC"] == perfeval.evaluate(y, a, measures=["roc"])["ROC"]
