"""perfeval.trec.evaluate against trec_eval (pytrec_eval) on runs without ties: judged relevant
documents the run never retrieved count, unanswered queries score 0 (trec_eval's -c)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfeval import trec

pytrec_eval = pytest.importorskip("pytrec_eval")

#: perfeval's measure -> trec_eval's (binary relevance: exponential and linear gain agree)
MEASURES = {
    "MAP": "map",
    "P@5": "P_5",
    "P@10": "P_10",
    "R@10": "recall_10",
    "MRR": "recip_rank",
    "NDCG@10": "ndcg_cut_10",
}


def _data(seed: int, n_queries: int, binary: bool):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 40)))]
        judged = rng.choice(len(docs), size=int(rng.integers(1, len(docs) + 1)), replace=False)
        qrels[f"q{q}"] = {docs[i]: int(rng.integers(0, 2 if binary else 4)) for i in judged}
        if rng.random() < 0.85:  # some judged queries are not answered
            shown = rng.choice(len(docs), size=int(rng.integers(1, len(docs) + 1)), replace=False)
            scores = rng.permutation(len(shown)) + rng.random()  # distinct: no ties
            run[f"q{q}"] = {docs[i]: float(s) for i, s in zip(shown, scores, strict=True)}
    run["unjudged"] = {"d1": 1.0}
    return qrels, run


def _trec_eval(qrels, run, names):
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(names))
    per = ev.evaluate(run)
    out = {}
    for n in names:
        vals = [per[q][n] if q in per else 0.0 for q in qrels]  # -c: unanswered judged queries are 0
        out[n] = (float(np.mean(vals)), {q: per.get(q, {}).get(n, 0.0) for q in qrels})
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30))
def test_binary_judgments_agree_with_trec_eval(seed, n):
    qrels, run = _data(seed, n, binary=True)
    with pytest.warns(UserWarning, match="without judgments are left out"):
        report = trec.evaluate(qrels, run, list(MEASURES))
    expected = _trec_eval(qrels, run, list(MEASURES.values()))
    keys = [str(k) for k in report.groups]
    for ours, theirs in MEASURES.items():
        mean, per = expected[theirs]
        assert report[ours] == pytest.approx(mean, abs=1e-12), ours
        got = dict(zip(keys, report.results[ours].per_group.tolist(), strict=True))
        for q, v in per.items():
            assert got[q] == pytest.approx(v, abs=1e-12), (ours, q)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30))
def test_graded_judgments_map_precision_recall_rr_agree(seed, n):
    """Graded relevance: every measure that reads relevant / not relevant agrees (NDCG's gain
    differs: perfeval's default is 2^rel - 1, trec_eval's is rel)."""
    qrels, run = _data(seed, n, binary=False)
    names = {k: v for k, v in MEASURES.items() if not k.startswith("NDCG")}
    with pytest.warns(UserWarning):
        report = trec.evaluate(qrels, run, list(names))
    expected = _trec_eval(qrels, run, list(names.values()))
    for ours, theirs in names.items():
        assert report[ours] == pytest.approx(expected[theirs][0], abs=1e-12), ours


def test_only_the_runs_queries():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}}
    run = {"q1": {"a": 2.0, "c": 1.0, "b": 0.5}}
    assert trec.evaluate(qrels, run, "map")["MAP"] == pytest.approx((1 + 2 / 3) / 2 / 2)
    only = trec.evaluate(qrels, run, "map", queries="run")
    assert only["MAP"] == pytest.approx((1 + 2 / 3) / 2) and [str(k) for k in only.groups] == ["q1"]


def test_a_binary_measure_is_refused():
    with pytest.raises(Exception, match="not a per-query ranking measure"):
        trec.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "roc")
