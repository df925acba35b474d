"""perfeval.Metric against torchmetrics' stateful metrics, without torch: the batches of
tests/test_metric_torchmetrics.py (the same seeds), fed to torchmetrics 1.9 by
tests/oracles/make_fixtures.py (``--tools metric``) and recorded in
tests/oracles/fixtures/torchmetrics_metric.json with each value and warning.  perfeval's Metric takes
the same batches as numpy arrays of the same dtype.  Each claim of docs/metric.md's "Against
torchmetrics" is held to the recorded values here; the live test does the same where torch is
installed.  torchmetrics returns float32: "agree" is within 2e-6.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "torchmetrics_metric.json").read_text()
)
CASES = {c["name"]: c for c in FIXTURE["cases"]}
TOL = 2e-6


def _theirs(name: str) -> dict[str, dict]:
    return {r["measure"]: r for r in CASES[name]["results"]}


def _ours(name: str, specs: list[str]):
    """perfeval.Metric over the case's batches, in the dtype torchmetrics was given."""
    c = CASES[name]
    y, s = np.asarray(c["y"]), np.asarray(c["s"], dtype=c["dtype"])
    g = None if c["g"] is None else np.asarray(c["g"])
    m = perfeval.Metric(specs)
    for a in range(0, len(y), c["batch"]):
        b = slice(a, a + c["batch"])
        m.update(y[b], s[b], **({} if g is None else {"groups": g[b]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.compute()


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("binary-")])
def test_binary_auroc_and_average_precision_agree_ties_included(name):
    theirs = _theirs(name)
    r = _ours(name, ["roc", "ap", "apr"])
    assert abs(theirs["ROC"]["value"] - r["ROC"]) < TOL and abs(theirs["AP"]["value"] - r["AP"]) < TOL
    if name.startswith("binary-2"):  # ties of both classes: PERF's APR averages over their orders
        assert abs(r["APR"] - theirs["AP"]["value"]) > 1e-4


def _sigmoid(s: np.ndarray) -> np.ndarray:
    return (1 / (1 + np.exp(-s))).astype(s.dtype)


def test_logits_go_through_a_sigmoid_in_their_dtype_that_ties_the_large_ones():
    """Scores outside [0, 1]: torchmetrics reads their sigmoid, in the tensor's dtype, which keeps their
    order but rounds every logit above about 17 to 1.0 in float32 (above about 37 in float64) and ties
    them.  perfeval's ``roc`` and ``ap`` rank the logits as given."""
    small = _theirs("logits-small")
    r = _ours("logits-small", ["roc", "ap"])
    assert abs(small["ROC"]["value"] - r["ROC"]) < TOL and abs(small["AP"]["value"] - r["AP"]) < TOL
    for name in ("logits-large", "logits-wide", "logits-wide-float32"):
        c, theirs = CASES[name], _theirs(name)
        s = np.asarray(c["s"], dtype=c["dtype"])
        r = _ours(name, ["roc", "ap"])
        sq = _sigmoid(s)
        assert (sq == 1.0).sum() > 100, name  # the ties of the saturated sigmoid
        tied = perfeval.evaluate(c["y"], sq.astype(np.float64), measures=["roc", "ap"])
        for m in ("ROC", "AP"):
            assert abs(theirs[m]["value"] - r[m]) > 1e-3, (name, m)  # perfeval ranks the logits
            assert abs(theirs[m]["value"] - tied[m]) < TOL, (name, m)  # torchmetrics the sigmoids
    s = np.asarray(CASES["logits-wide"]["s"])
    ones32, ones64 = _sigmoid(s.astype(np.float32)) == 1.0, _sigmoid(s) == 1.0
    assert s[ones32].min() < 18 and s[ones64].min() > 36 and s[~ones64].max() < 38


def test_one_class_only_is_nan_for_perfeval_and_0_with_a_warning_for_torchmetrics():
    theirs = _theirs("one-class")
    assert theirs["ROC"]["value"] == 0.0 and "No negative samples" in theirs["ROC"]["warning"]
    m = perfeval.Metric(["roc", "ap"])
    m.update(CASES["one-class"]["y"], CASES["one-class"]["s"])
    with pytest.warns(perfeval.UndefinedMeasureWarning):
        r = m.compute()
    assert math.isnan(r["ROC"]) and r["AP"] == 1.0 == theirs["AP"]["value"]


def test_ndcg_map_mrr_agree_with_indexes_spread_over_batches():
    theirs = _theirs("retrieval-spread")
    r = _ours("retrieval-spread", ["ndcg:k=10,gain=linear", "map", "mrr"])
    assert len(r.results["MAP"].undefined) > 0
    for m, label in (("NDCG", "NDCG@10:gain=linear"), ("MAP", "MAP"), ("MRR", "MRR")):
        assert abs(theirs[m]["value"] - r[label]) < TOL, m


def test_ndcg_is_tie_averaged_with_linear_gain_map_takes_torch_topks_order():
    graded = _theirs("retrieval-graded-ties")["NDCG"]["value"]
    r = _ours("retrieval-graded-ties", ["ndcg:k=10,gain=linear", "ndcg@10"])
    assert abs(graded - r["NDCG@10:gain=linear"]) < TOL and abs(graded - r["NDCG@10"]) > 1e-3
    theirs = _theirs("retrieval-ties")
    r = _ours("retrieval-ties", ["ndcg:k=10,gain=linear", "map", "mrr"])
    assert abs(theirs["NDCG"]["value"] - r["NDCG@10:gain=linear"]) < TOL  # ties and all
    assert abs(theirs["MAP"]["value"] - r["MAP"]) > 1e-3  # a relevant case in a tie: torch.topk's order
    theirs = _theirs("retrieval-relevant-untied")
    r = _ours("retrieval-relevant-untied", ["ndcg:k=10,gain=linear", "map", "mrr"])
    for m, label in (("NDCG", "NDCG@10:gain=linear"), ("MAP", "MAP"), ("MRR", "MRR")):
        assert abs(theirs[m]["value"] - r[label]) < TOL, m


def test_empty_queries_neg_counts_them_as_zero():
    theirs = _theirs("retrieval-empty-neg")
    r = _ours("retrieval-empty-neg", ["ndcg:k=10,gain=linear", "map", "mrr"])
    for m, label in (("NDCG", "NDCG@10:gain=linear"), ("MAP", "MAP"), ("MRR", "MRR")):
        per = np.asarray(r.results[label].per_group, dtype=np.float64)
        assert np.isnan(per).sum() == len(r.results[label].undefined) > 0
        assert abs(theirs[m]["value"] - np.nan_to_num(per, nan=0.0).mean()) < TOL
        assert abs(theirs[m]["value"] - r[label]) > 1e-3


def test_a_case_scored_zero_or_less_is_never_relevant_for_torchmetrics():
    assert _theirs("scored-0-or-less")["MAP"]["value"] == pytest.approx(1.0)
    assert _ours("scored-0-or-less", ["map"])["MAP"] == pytest.approx((1 / 1 + 2 / 3) / 2)


def test_the_fixture_is_torchmetrics_1_9():
    assert (
        FIXTURE["version"].startswith("1.9.") and FIXTURE["generated_by"] == "tests/oracles/make_fixtures.py"
    )


@pytest.mark.parametrize("action", ["neg", "pos", "error"])
def test_empty_target_action_under_the_dialect_is_torchmetrics(action):
    """``Metric(..., dialect="torchmetrics:empty_target_action=...")`` batch by batch: neg counts a query
    without a relevant case 0, pos 1, error refuses (torchmetrics raises a ValueError)."""
    name = f"retrieval-empty-{action}"
    c, theirs = CASES[name], _theirs(name)
    y, s, g = np.asarray(c["y"]), np.asarray(c["s"], dtype=c["dtype"]), np.asarray(c["g"])
    m = perfeval.Metric(["ndcg@10", "map", "mrr"], dialect=f"torchmetrics:empty_target_action={action}")
    for a in range(0, len(y), c["batch"]):
        b = slice(a, a + c["batch"])
        m.update(y[b], s[b], groups=g[b])
    if action == "error":
        assert all(
            r["error"].startswith("ValueError: `compute` method was provided with a query with no positive")
            for r in theirs.values()
        )
        with pytest.raises(perfeval.InvalidDataError, match="has no relevant case"):
            m.compute()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = m.compute()
    for measure, label in (("NDCG", "NDCG@10"), ("MAP", "MAP"), ("MRR", "MRR")):
        assert abs(theirs[measure]["value"] - r[label]) < TOL, (action, measure)


def test_torchmetrics_keeps_every_row_until_compute():
    """docs/metric.md: torchmetrics' retrieval metrics (and its exact binary ones) keep every row in
    their state until ``compute``, as a Metric with groups does."""
    kept = [
        (c["name"], r["state_rows"], len(c["y"]))
        for c in FIXTURE["cases"]
        for r in c["results"]
        if "value" in r
    ]
    assert len(kept) > 25 and all(rows == n for _, rows, n in kept), kept
