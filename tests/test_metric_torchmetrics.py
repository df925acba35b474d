"""perfeval.Metric against torchmetrics' stateful metrics, fed the same torch tensors batch by batch.

Where the definitions agree the numbers agree to torchmetrics' float32 (it returns float32 whatever
the input: 2e-6 here, as tests/test_dialect_fixtures.py allows); where they differ, each test shows
the difference and why (read in torchmetrics 1.9's source; docs/metric.md says it to the user):

- BinaryAUROC / BinaryAveragePrecision (thresholds=None) are tie-aware and exact: ROC and AP agree,
  ties included.  perfeval's APR (PERF's) takes the expectation over the orders of a tie, so it
  differs from AP where a tie holds both classes.  torchmetrics puts scores outside [0, 1] through a
  sigmoid in the tensor's dtype, which ties the logits above about 37 (float64; 17 in float32):
  perfeval ranks the logits themselves.
  One class only: torchmetrics gives 0 with a warning, perfeval NaN with UndefinedMeasureWarning.
- RetrievalNormalizedDCG is tie-averaged like perfeval's NDCG, with linear gain (``gain=linear``;
  the same as perfeval's default exp gain on 0/1 targets).  RetrievalMAP and RetrievalMRR take a tie
  in ``torch.topk``'s order (unspecified), one case after another; perfeval's MAP takes a tie as one
  threshold (scikit-learn's AP).  MAP agrees where no relevant case shares its score; MRR where
  no tie holds the first relevant case with a non-relevant one.  torchmetrics counts a case scored
  0 or less as not relevant.
- A query with no relevant case: perfeval leaves it out of the mean (undefined, listed);
  torchmetrics' default ``empty_target_action="neg"`` counts it as 0, ``"skip"`` leaves it out.

Skipped where torch or torchmetrics is missing (neither is in the test extra).
"""

from __future__ import annotations

import importlib.util
import math
import warnings

import numpy as np
import pytest

import perfeval

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("torchmetrics") is None,
    reason="torch and torchmetrics are not installed (not in the test extra)",
)

TOL = 2e-6  # torchmetrics computes and returns float32


def _batches(n: int, size: int):
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


def _binary(y, s, dtype, size=700, **tm_kw):
    """(torchmetrics' ROC, its AP, perfeval's report) over the same batches of tensors."""
    import torch
    from torchmetrics.classification import BinaryAUROC, BinaryAveragePrecision

    auroc, ap = BinaryAUROC(thresholds=None, **tm_kw), BinaryAveragePrecision(thresholds=None, **tm_kw)
    m = perfeval.Metric(["roc", "ap", "apr"])
    for b in _batches(len(y), size):
        yt, st = torch.tensor(y[b]), torch.tensor(s[b], dtype=dtype)
        auroc.update(st, yt)
        ap.update(st, yt)
        m.update(yt, st)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(auroc.compute()), float(ap.compute()), m.compute()


@pytest.mark.parametrize("decimals", [2, 6])
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_binary_auroc_and_average_precision_agree_ties_included(decimals, dtype_name):
    import torch

    rng = np.random.default_rng(decimals)
    y = rng.integers(0, 2, 5000)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(5000), 0, 1), decimals)  # 2 decimals: heavy ties
    dtype = getattr(torch, dtype_name)
    roc, ap, r = _binary(y, s, dtype)
    exact = torch.tensor(s, dtype=dtype).double().numpy()
    want = perfeval.evaluate(y, exact, measures=["roc", "ap"])
    assert r["ROC"] == want["ROC"] and r["AP"] == want["AP"]  # the Metric is evaluate(), bit for bit
    assert abs(roc - r["ROC"]) < TOL and abs(ap - r["AP"]) < TOL
    if decimals == 2:  # ties of both classes: PERF's APR averages over their orders, AP does not
        assert abs(r["APR"] - r["AP"]) > 1e-4
    distinct = perfeval.evaluate(y, rng.permutation(5000) / 5000, measures=["ap", "apr"])
    assert distinct["APR"] == pytest.approx(distinct["AP"], abs=1e-12)  # no ties: one definition


def test_logits_are_put_through_a_sigmoid_that_ties_the_large_ones():
    """Scores outside [0, 1] go through torch.sigmoid in the tensor's dtype (float64 here), monotone but
    saturating: above about 37 every logit becomes 1.0 and they tie (above about 17 in float32).
    perfeval ranks the logits as given."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 2000)
    small = (rng.random(2000) - 0.5) * 8 + y  # logits in (-4, 5): the sigmoid keeps their order
    roc, ap, r = _binary(y, small, None)
    assert abs(roc - r["ROC"]) < TOL and abs(ap - r["AP"]) < TOL
    large = small * 10 + 40  # logits about 0 .. 90: many become exactly 1.0
    roc, ap, r = _binary(y, large, None)
    sk = perfeval.evaluate(y, large, measures=["roc"])
    assert r["ROC"] == sk["ROC"]
    assert abs(roc - r["ROC"]) > 1e-3  # torchmetrics' ROC of the tied sigmoids


def test_one_class_only_is_nan_for_perfeval_and_0_for_torchmetrics():
    y, s = np.ones(10, dtype=np.int64), np.linspace(0.1, 0.9, 10)
    roc, ap, r = _binary(y, s, None)
    assert roc == 0.0 and math.isnan(r["ROC"])
    assert ap == 1.0 and r["AP"] == 1.0  # AP is defined: every case is a positive


def _retrieval(y, s, g, size=900, empty="skip", k=10, measures=("ndcg@10", "map", "mrr"), gain="exp"):
    """torchmetrics' NDCG@k, MAP and MRR, and perfeval's report, over the same batches of tensors."""
    import torch
    from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR, RetrievalNormalizedDCG

    tms = [
        RetrievalNormalizedDCG(top_k=k, empty_target_action=empty),
        RetrievalMAP(empty_target_action=empty),
        RetrievalMRR(empty_target_action=empty),
    ]
    specs = [f"ndcg:k={k},gain={gain}", "map", "mrr"]
    m = perfeval.Metric(specs)
    for b in _batches(len(y), size):
        yt, st, gt = torch.tensor(y[b]), torch.tensor(s[b]), torch.tensor(g[b])
        for t in tms:
            t.update(st, yt, indexes=gt)
        m.update(yt, st, groups=gt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = m.compute()
    return [float(t.compute()) for t in tms], [r.results[label] for label in r.results], r


def test_ndcg_map_mrr_agree_with_indexes_spread_over_batches():
    """Queries spread over every batch (the ids are shuffled); float32 scores without ties."""
    rng = np.random.default_rng(4)
    n = 6000
    g = rng.integers(0, 300, n)
    y = (rng.random(n) < 0.15).astype(np.int64)
    s = rng.permutation(n).astype(np.float32) / n + np.float32(1 / n)  # distinct, > 0
    assert _relevant_tied(y, s, g) == 0
    tm, ours, r = _retrieval(y, s, g)
    assert len(r.results["MAP"].undefined) > 0  # some queries have no relevant case: left out
    for a, b in zip(tm, ours, strict=True):
        assert abs(a - b.value) < TOL, (a, b.value)


def _relevant_tied(y, s, g) -> int:
    """Queries where a relevant case shares its score with another case: perfeval's MAP gives each
    relevant case of a tie the precision at the tie's end (one threshold per tie, as scikit-learn's
    average_precision_score); torchmetrics' RetrievalMAP takes them one by one in torch.topk's order."""
    bad = set()
    for q in np.unique(g):
        i = g == q
        vals, counts = np.unique(s[i], return_counts=True)
        tied = np.isin(s[i], vals[counts > 1])
        if (tied & (y[i] > 0)).any():
            bad.add(q)
    return len(bad)


def test_ndcg_agrees_with_ties_and_graded_targets_map_mrr_where_no_relevant_case_ties():
    """NDCG is tie-averaged in both (torchmetrics' gain is linear: perfeval's gain=linear).  MAP and
    MRR agree where the non-relevant cases tie among themselves only; MAP differs where a relevant
    case ties."""
    import torch
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    rng = np.random.default_rng(5)
    n = 4000
    g = rng.integers(0, 200, n)
    grades = rng.integers(0, 3, n) * (rng.random(n) < 0.3)  # grades 0..2
    s = (np.round(rng.random(n), 1) + 0.05).astype(np.float32)  # eleven values: ties everywhere
    nd = RetrievalNormalizedDCG(top_k=10, empty_target_action="skip")
    nd.update(torch.tensor(s), torch.tensor(grades), indexes=torch.tensor(g))
    r = perfeval.evaluate(grades, s, groups=g, measures=["ndcg:k=10,gain=linear", "ndcg@10"])
    assert abs(float(nd.compute()) - r["NDCG@10:gain=linear"]) < TOL
    assert abs(float(nd.compute()) - r["NDCG@10"]) > 1e-3  # perfeval's default gain: 2^rel - 1

    y = (grades > 0).astype(np.int64)  # RetrievalMAP and RetrievalMRR take 0/1 targets only
    tm, ours, _ = _retrieval(y, s, g, gain="linear")
    assert abs(tm[0] - ours[0].value) < TOL  # NDCG@10, ties and all
    assert _relevant_tied(y, s, g) > 150
    assert abs(tm[1] - ours[1].value) > 1e-3  # MAP: torch.topk's order, not one threshold per tie

    # the relevant cases get scores of their own (off the 0.1 grid); the others still tie
    s2 = np.where(y > 0, (rng.permutation(n) / n * 0.09 + 0.051).astype(np.float32), s)
    assert _relevant_tied(y, s2, g) == 0 and len(np.unique(s2[y == 0])) == 11
    tm, ours, _ = _retrieval(y, s2, g, gain="linear")
    for a, b in zip(tm, ours, strict=True):
        assert abs(a - b.value) < TOL, (a, b.label, b.value)


def test_empty_queries_neg_counts_them_as_zero():
    """torchmetrics' default empty_target_action='neg' gives 0 to a query with no relevant case;
    perfeval leaves it out: the 'neg' mean is perfeval's per-query values with NaN as 0."""
    rng = np.random.default_rng(6)
    n = 3000
    g = rng.integers(0, 200, n)
    y = (rng.random(n) < 0.05).astype(np.int64)
    s = rng.permutation(n).astype(np.float32) / n + np.float32(1 / n)
    tm, ours, _ = _retrieval(y, s, g, empty="neg")
    for a, b in zip(tm, ours, strict=True):
        per = np.asarray(b.per_group, dtype=np.float64)
        assert np.isnan(per).sum() == len(b.undefined) > 0
        assert abs(a - np.nan_to_num(per, nan=0.0).mean()) < TOL
        assert abs(a - b.value) > 1e-3


def test_a_case_scored_zero_or_less_is_never_relevant_for_torchmetrics():
    """RetrievalMAP and RetrievalMRR zero the target of every case scored <= 0 (log-probabilities,
    raw logits); perfeval ranks them as given, as trec_eval and scikit-learn do."""
    import torch
    from torchmetrics.retrieval import RetrievalMAP

    y, s, g = np.array([1, 0, 1, 0]), np.array([-0.5, -1.0, 0.3, 0.1], dtype=np.float32), np.zeros(4, int)
    tm = RetrievalMAP()
    tm.update(torch.tensor(s), torch.tensor(y), indexes=torch.tensor(g))
    r = perfeval.evaluate(y, s, groups=g, measures=["map"])
    assert r["MAP"] == pytest.approx((1 / 1 + 2 / 3) / 2)  # relevant at ranks 1 and 3
    # the case at -0.5 is dropped from the relevant ones, and AP divides by those it found: 1/1
    assert float(tm.compute()) == pytest.approx(1.0)
