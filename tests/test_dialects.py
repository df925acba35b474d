"""Dialects against the real tools as oracles (scikit-learn, pytrec_eval, ranx: the test extra) on
random data with ties, weights where the tool takes them, and queries; and the rules' errors.

Tolerances, per measure: 1e-12 everywhere here (the sums are the tools' own up to rounding order).
The heavy tools (torchmetrics, Spark, Keras, DIN's code) are checked against committed fixtures in
tests/test_dialect_fixtures.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.exceptions import InvalidDataError, InvalidParameterError

SETTINGS = dict(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _queries(seed: int, n: int, max_size: int, grades: int, levels: int):
    """Rows of n queries: group, graded relevance, tied scores (``levels`` distinct), string ids."""
    rng = np.random.default_rng(seed)
    g, y, s, ids = [], [], [], []
    for q in range(n):
        size = int(rng.integers(1, max_size + 1))
        g += [q] * size
        y += rng.integers(0, grades, size).tolist()
        s += (rng.integers(0, levels, size) / 4).tolist()
        ids += [f"d{int(v)}" for v in rng.permutation(10 * size)[:size]]  # "d10" < "d9" as text
    return np.array(g), np.array(y), np.array(s), np.array(ids)


# -- scikit-learn ------------------------------------------------------------------------------------
@settings(**SETTINGS)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 300), weighted=st.booleans())
def test_sklearn_binary_measures(seed, n, weighted):
    from sklearn import metrics

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 9, n) / 8  # ties, and 0 and 1 for the clipping of log loss
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    r = perfeval.evaluate(
        y, s, measures=["roc", "ap", "logloss", "brier"], sample_weight=w, dialect="sklearn"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auc = metrics.roc_auc_score(y, s, sample_weight=w) if 0 < y.sum() < n else np.nan
        want = {
            "ROC": auc,
            "AP": metrics.average_precision_score(y, s, sample_weight=w),
            "LOGLOSS": metrics.log_loss(y, s, sample_weight=w, labels=[0, 1]),
            "BRIER": metrics.brier_score_loss(y, s, sample_weight=w, labels=[0, 1]),
        }
    for name, v in want.items():
        assert r[name] == pytest.approx(v, abs=1e-12, nan_ok=True), name


@settings(**SETTINGS)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30), k=st.sampled_from([None, 1, 3, 10]))
def test_sklearn_ndcg_and_dcg_per_query(seed, n, k):
    from sklearn import metrics

    g, y, s, _ = _queries(seed, n, 12, 4, 3)
    sizes = np.bincount(g)
    if (sizes < 2).any():  # sklearn refuses one-document queries; so does the dialect
        one = np.flatnonzero(g == np.flatnonzero(sizes < 2)[0])
        for m, fn in (("ndcg", metrics.ndcg_score), ("dcg", metrics.dcg_score)):
            with pytest.raises(ValueError):
                fn([y[one]], [s[one]])
            with pytest.raises(InvalidDataError, match=f"{fn.__name__} refuses queries of fewer than 2"):
                perfeval.evaluate(y, s, groups=g, measures=[m], dialect="sklearn")
        keep = np.isin(g, np.flatnonzero(sizes >= 2))
        g, y, s = g[keep], y[keep], s[keep]
        if not len(g):
            return
    at = "" if k is None else f"@{k}"
    r = perfeval.evaluate(y, s, groups=g, measures=[f"ndcg{at}", f"dcg{at}"], dialect="sklearn")
    nd, dc = [], []
    for q in np.unique(g):
        m = g == q
        nd.append(metrics.ndcg_score([y[m]], [s[m]], k=k))
        dc.append(metrics.dcg_score([y[m]], [s[m]], k=k))
    np.testing.assert_allclose(r.results[f"NDCG{at}"].per_group, nd, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.results[f"DCG{at}"].per_group, dc, rtol=0, atol=1e-12)
    assert r[f"NDCG{at}"] == pytest.approx(np.mean(nd), abs=1e-12)  # a query without relevance counts 0


# -- trec_eval (pytrec_eval) ---------------------------------------------------------------------------
TREC = {  # pytrec_eval's measure -> perfeval's spelling under the trec_eval dialect
    "map": "map",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg_cut_10",
    "P_5": "P_5",
    "recall_10": "recall_10",
    "recip_rank": "recip_rank",
    "Rprec": "Rprec",
    "bpref": "bpref",
    "success_5": "success_5",
    "set_F": "set_F",
}


@settings(**SETTINGS)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25), levels=st.sampled_from([2, 4, 40]))
def test_trec_eval_dialect_is_pytrec_eval_per_query(seed, n, levels):
    """Every row judged and retrieved; ties broken by document id as trec_eval does (ids as text)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    g, y, s, ids = _queries(seed, n, 30, 4, levels)
    qrels, run = {}, {}
    for q, rel, sc, d in zip(g.tolist(), y.tolist(), s.tolist(), ids.tolist(), strict=True):
        qrels.setdefault(str(q), {})[d] = rel
        run.setdefault(str(q), {})[d] = sc
    measures = {
        "map",
        "ndcg",
        "ndcg_cut.10",
        "P.5",
        "recall.10",
        "recip_rank",
        "Rprec",
        "bpref",
        "success.5",
        "set_F",
    }
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    r = perfeval.evaluate(y, s, groups=g, ids=ids, measures=list(TREC.values()), dialect="trec_eval")
    labels = list(r.results)
    for (name, _), label in zip(TREC.items(), labels, strict=True):
        want = [
            theirs[str(q)][name] for q in r.groups
        ]  # every query: trec_eval counts those without relevance 0
        np.testing.assert_allclose(r.results[label].per_group, want, rtol=0, atol=1e-12, err_msg=name)
        assert r[label] == pytest.approx(np.mean(want), abs=1e-12)


def test_trec_eval_dialect_needs_ids_and_compares_them_as_text():
    y, s, g = [1, 0, 0], [0.5, 0.5, 0.5], [0, 0, 0]
    with pytest.raises(InvalidParameterError, match="pass `ids=`"):
        perfeval.evaluate(y, s, groups=g, measures=["map"], dialect="trec_eval")
    with pytest.raises(InvalidParameterError, match="floats"):
        perfeval.evaluate(y, s, groups=g, ids=[1.0, 2.0, 3.0], measures=["map"], dialect="trec_eval")
    # ids 9 and 10: as text "9" > "10", so the relevant 9 ranks first (trec_eval: id descending)
    r = perfeval.evaluate(
        [1, 0], [0.5, 0.5], groups=[0, 0], ids=[9, 10], measures=["map"], dialect="trec_eval"
    )
    assert r["MAP"] == 1.0


# -- ranx -----------------------------------------------------------------------------------------------
RANX = {
    "map": "map",
    "ndcg": "ndcg",
    "ndcg@5": "ndcg@5",
    "precision@5": "p@5",
    "recall@10": "r@10",
    "mrr": "mrr",
    "r-precision": "rprec",
    "hit_rate@3": "success@3",
}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 12), levels=st.sampled_from([2, 3, 40]))
def test_ranx_dialect_is_ranx_per_query_even_above_15_documents(seed, n, levels):
    """Queries of up to 60 documents with heavy ties: above 15, numba's quicksort order (replayed)."""
    ranx = pytest.importorskip("ranx")
    g, y, s, ids = _queries(seed, n, 60, 3, levels)
    for q in np.unique(g):  # ranx needs a relevant document in every query
        y[np.flatnonzero(g == q)[0]] = 2
    qrels, run = {}, {}
    for q, rel, sc, d in zip(g.tolist(), y.tolist(), s.tolist(), ids.tolist(), strict=True):
        qrels.setdefault(f"q{q:03d}", {})[d] = rel
        run.setdefault(f"q{q:03d}", {})[d] = sc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {m: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), m, return_mean=False) for m in RANX}
    r = perfeval.evaluate(y, s, groups=g, measures=list(RANX.values()), dialect="ranx")
    for (name, _), label in zip(RANX.items(), r.results, strict=True):
        np.testing.assert_allclose(r.results[label].per_group, theirs[name], rtol=0, atol=1e-12, err_msg=name)


def test_numba_argsort_replay_is_numba_s_own():
    numba = pytest.importorskip("numba")
    from perfeval.summaries.orders import numba_argsort

    argsort = numba.njit(lambda a: np.argsort(a))
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = -rng.integers(0, int(rng.integers(1, 6)), int(rng.integers(1, 300))).astype(float)
        assert (argsort(a) == numba_argsort(a)).all()


# -- the examples of shared/ANCHORS.md 3.4, one query each (docs/dialects.md shows them) ----------------
ANCHOR_CASES = {
    "all_tied_pos_first": ([1, 0, 0, 0], [0.5] * 4),
    "all_tied_pos_last": ([0, 0, 0, 1], [0.5] * 4),
    "partial_tie": ([0, 1, 0, 1, 0], [0.9, 0.7, 0.7, 0.3, 0.1]),
}
#: (case, dialect, measure) -> what the tool printed (ANCHORS 3.4; ids d0..d(n-1) in input order)
ANCHOR_VALUES = {
    ("all_tied_pos_first", "sklearn", "ndcg"): 0.6404,
    ("all_tied_pos_first", "sklearn", "ap"): 0.25,
    ("all_tied_pos_first", "sklearn", "roc"): 0.5,
    ("all_tied_pos_first", "torchmetrics", "ndcg"): 0.6404,
    ("all_tied_pos_first", "ranx", "ndcg"): 1.0,
    ("all_tied_pos_first", "ranx", "map"): 1.0,
    ("all_tied_pos_first", "trec_eval", "ndcg"): 0.4307,
    ("all_tied_pos_first", "trec_eval", "map"): 0.25,
    ("all_tied_pos_last", "sklearn", "ndcg"): 0.6404,
    ("all_tied_pos_last", "sklearn", "ap"): 0.25,
    ("all_tied_pos_last", "ranx", "ndcg"): 0.4307,
    ("all_tied_pos_last", "ranx", "map"): 0.25,
    ("all_tied_pos_last", "trec_eval", "ndcg"): 1.0,
    ("all_tied_pos_last", "trec_eval", "map"): 1.0,
    ("partial_tie", "sklearn", "ndcg"): 0.6108,
    ("partial_tie", "sklearn", "ap"): 0.4167,
    ("partial_tie", "sklearn", "roc"): 0.4167,
    ("partial_tie", "ranx", "ndcg"): 0.6509,
    ("partial_tie", "ranx", "map"): 0.5,
    ("partial_tie", "trec_eval", "ndcg"): 0.5706,
    ("partial_tie", "trec_eval", "map"): 0.4167,
}


@pytest.mark.parametrize(("case", "dialect", "measure"), list(ANCHOR_VALUES))
def test_anchors_tie_examples(case, dialect, measure):
    y, s = ANCHOR_CASES[case]
    ids = [f"d{i}" for i in range(len(y))] if dialect == "trec_eval" else None  # read by it alone
    groups = None if measure in ("roc", "ap") else [0] * len(y)
    r = perfeval.evaluate(y, s, groups=groups, ids=ids, measures=[measure], dialect=dialect)
    assert next(iter(r.results.values())).value == pytest.approx(
        ANCHOR_VALUES[case, dialect, measure], abs=5e-5
    )


# -- the rules' errors -----------------------------------------------------------------------------------
def test_a_measure_a_dialect_does_not_define_names_those_that_do():
    with pytest.raises(
        InvalidParameterError,
        match=r"dialect sklearn does not define MAP; dialects that do: "
        r"perfeval, trec_eval, ranx, torchmetrics",
    ):
        perfeval.evaluate([1, 0], [0.5, 0.2], groups=[0, 0], measures=["map"], dialect="sklearn")


def test_unknown_dialect_and_bad_options():
    with pytest.raises(InvalidParameterError, match="unknown dialect 'sklern'"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="sklern")
    with pytest.raises(InvalidParameterError, match="num_thresholds"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="keras:num_thresholds=1")
    with pytest.raises(InvalidParameterError, match="not an option"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="keras:bins=10")
    with pytest.raises(InvalidParameterError, match="not with tie_bounds"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="sklearn", tie_bounds=True)


def test_a_fixed_parameter_given_otherwise_is_an_error():
    with pytest.raises(InvalidParameterError, match="gain=linear"):
        perfeval.evaluate([1, 0], [0.5, 0.2], groups=[0, 0], measures=["ndcg:gain=exp"], dialect="sklearn")


def test_torchmetrics_refuses_ties_it_cannot_order_and_keeps_the_rest():
    y, s, g = [1, 0, 0, 1], [0.5, 0.5, 0.4, 0.3], [0, 0, 1, 1]
    with pytest.raises(InvalidDataError, match=r"torch.topk's order.*1 query has.*first: query 0"):
        perfeval.evaluate(y, s, groups=g, measures=["map"], dialect="torchmetrics")
    r = perfeval.evaluate(y, [0.5, 0.4, 0.4, 0.3], groups=g, measures=["map", "mrr"], dialect="torchmetrics")
    assert r.results["MAP"].per_group.tolist() == [1.0, 0.5]


def test_empty_queries_follow_the_tool():
    y, s, g = [0, 0, 1, 0], [0.5, 0.4, 0.4, 0.3], [0, 0, 1, 1]
    assert np.isnan(perfeval.evaluate(y, s, groups=g, measures=["ndcg"]).results["NDCG"].per_group[0])
    assert perfeval.evaluate(y, s, groups=g, measures=["ndcg"], dialect="sklearn")["NDCG"] == 0.5
    for action, first in (("neg", 0.0), ("pos", 1.0)):
        r = perfeval.evaluate(
            y, s, groups=g, measures=["ndcg"], dialect=f"torchmetrics:empty_target_action={action}"
        )
        assert r.results["NDCG"].per_group[0] == first
    r = perfeval.evaluate(y, s, groups=g, measures=["ndcg"], dialect="torchmetrics:empty_target_action=skip")
    assert r["NDCG"] == 1.0 and r.results["NDCG"].undefined == [0]
    with pytest.raises(InvalidDataError, match="query 0 has no relevant case"):
        perfeval.evaluate(y, s, groups=g, measures=["ndcg"], dialect="torchmetrics:empty_target_action=error")


def test_binary_tools_over_groups_are_the_tool_on_each_group():
    """sklearn, torchmetrics, Spark and Keras have no groups: with groups, each group's value is the
    tool's on that group alone, and the value their mean; DIN's calc_auc is global only."""
    y, s, g = [1, 0, 1, 0, 1, 1, 0, 0], [0.9, 0.1, 0.5, 0.5, 0.3, 0.2, 0.8, 0.1], [0, 0, 0, 0, 1, 1, 1, 1]
    for d in (
        "sklearn",
        "spark:numBins=2",
        "keras:num_thresholds=7",
        "torchmetrics:thresholds=5",
        "torchmetrics",
    ):
        r = perfeval.evaluate(y, s, groups=g, measures=["roc", "ap"], dialect=d)
        for m in ("ROC", "AP"):
            alone = [
                perfeval.evaluate(y[i : i + 4], s[i : i + 4], measures=[m.lower()], dialect=d)[m]
                for i in (0, 4)
            ]
            assert r.results[m].per_group.tolist() == alone and r[m] == pytest.approx(np.mean(alone)), (d, m)
    with pytest.raises(InvalidParameterError, match="has no groups"):
        perfeval.evaluate(y, s, groups=g, measures=["roc"], dialect="din")


def test_din_gauc_is_the_unweighted_mean():
    y, s, g = [1, 0, 1, 0, 0, 0], [0.9, 0.1, 0.2, 0.8, 0.3, 0.1], [0, 0, 1, 1, 1, 1]
    r = perfeval.evaluate(y, s, groups=g, measures=["gauc"])
    d = perfeval.evaluate(y, s, groups=g, measures=["gauc"], dialect="din")
    # user 0: AUC 1 over 2 impressions; user 1: 1/3 over 4
    assert r["GAUC"] == pytest.approx((2 * 1.0 + 4 / 3) / 6) and d["GAUC"] == pytest.approx((1.0 + 1 / 3) / 2)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8))
def test_trec_ties_ranx_is_ranx_on_files_with_queries_above_15_documents(seed, n, tmp_path_factory):
    """perfeval.trec with ties="ranx" (``perfeval trec --dialect ranx``): ranx's numbers from the
    same qrels and run files, per query, queries of up to 50 documents with heavy ties."""
    ranx = pytest.importorskip("ranx")
    from perfeval import trec
    from perfeval.cli.main import main

    g, y, s, ids = _queries(seed, n, 50, 3, 3)
    for q in np.unique(g):
        y[np.flatnonzero(g == q)[0]] = 1
    d = tmp_path_factory.mktemp("runs")
    qrels_f, run_f = d / "qrels", d / "run"
    qrels_f.write_text("".join(f"q{q} 0 {i} {r}\n" for q, i, r in zip(g, ids, y, strict=True)))
    run_f.write_text("".join(f"q{q} Q0 {i} 0 {v} x\n" for q, i, v in zip(g, ids, s, strict=True)))
    names = list(RANX)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qr, ru = ranx.Qrels.from_file(str(qrels_f), kind="trec"), ranx.Run.from_file(str(run_f), kind="trec")
        theirs = {m: ranx.evaluate(qr, ru, m, return_mean=False) for m in names}
    # perfeval's spellings of ranx's measures (ranx's ndcg is linear: docs/ranking.md)
    spelled = ["map", "ndcg:gain=linear", "ndcg@5:gain=linear", "p@5", "r@10", "mrr", "rprec", "success@3"]
    ours = trec.evaluate(str(qrels_f), str(run_f), measures=spelled, ties="ranx")
    for name, label in zip(names, ours.results, strict=True):
        np.testing.assert_allclose(
            ours.results[label].per_group, theirs[name], rtol=0, atol=1e-12, err_msg=name
        )
    assert main(["trec", str(qrels_f), str(run_f), "-m", "map", "--dialect", "ranx", "--format", "json"]) == 0
    assert main(["trec", str(qrels_f), str(run_f), "-m", "map", "--dialect", "ranx", "--ties", "file"]) == 2


# -- perf: the classic numbers through the modern API ----------------------------------------------------
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 400), thr=st.sampled_from([0.5, 0.3]))
def test_perf_dialect_prints_as_perf_does(seed, n, thr, tmp_path_factory):
    """Each value, printed as PERF prints it, is the classic command's line for the same file."""
    import io

    from perfeval.classic.main import run

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 2)  # ties
    f = tmp_path_factory.mktemp("perf") / "data.txt"
    f.write_text("".join(f"{a} {b:.2f}\n" for a, b in zip(y, s, strict=True)))
    measures = "acc,ppv,npv,sen,spc,pre,rec,prf,lft,roc,apr,prb,rms,r50,top1,top10,rkl,ca1,ntop@7,sar".split(
        ","
    )
    r = perfeval.evaluate(y, s, measures=measures, dialect="perf", threshold=thr)
    out, err = io.BytesIO(), io.StringIO()
    options = [f"-{m}" for m in measures if m not in ("ca1", "ntop@7", "sar")]
    argv = [*options, "-cal", "100", "-ntop", "7", "-sar", "1", "1", "1", "-t", str(thr), "-file", str(f)]
    assert run(argv, out, err) == 0
    printed = {
        line.split()[0]: line.split()[1] for line in out.getvalue().decode().splitlines() if line.strip()
    }
    for label, res in r.results.items():
        key = "NTOP7" if label == "NTOP@7" else label.split("@")[0]  # perf prints ACC at any threshold
        if np.isnan(res.value):  # one class: PERF prints C's nan, signed
            assert printed[key] in ("nan", "-nan"), label
        elif label == "RKL":  # a rank, printed as an integer
            assert f"{res.value:.0f}" == printed[key]
        else:
            assert f"{res.value:8.5f}".strip() == printed[key], label


def test_perf_dialect_refuses_what_perf_has_not():
    with pytest.raises(InvalidParameterError, match="dialect perf does not define NDCG"):
        perfeval.evaluate([1, 0], [0.5, 0.2], groups=[0, 0], measures=["ndcg"], dialect="perf")
    with pytest.raises(InvalidParameterError, match="neither groups nor weights"):
        perfeval.evaluate([1, 0], [0.5, 0.2], groups=[0, 0], measures=["roc"], dialect="perf")
    with pytest.raises(InvalidDataError, match="More than 2 unique target values"):
        perfeval.evaluate([1, 0, 2], [0.5, 0.2, 0.1], measures=["roc"], dialect="perf")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(["int", "neg", "text", "object"]))
def test_ties_by_id_order_ids_as_text(seed, kind):
    """trec_eval's order inside a tie (id descending as strcmp orders the text), for int64 ids
    (compared without making text), negative ids, numpy text of mixed lengths and Python objects."""
    from perfeval.summaries.orders import broken

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    codes, s = rng.integers(0, 4, n), rng.integers(0, 3, n).astype(float)
    if kind == "int":
        ids = rng.integers(0, 10 ** int(rng.integers(1, 19)), n)
    elif kind == "neg":
        ids = rng.integers(-(10**12), 10**12, n)
        ids[: min(n, 3)] = [np.iinfo(np.int64).min, -1, 0][: min(n, 3)]
    else:
        ids = np.array([f"d{v}" if v % 3 else f"{v}" for v in rng.integers(0, 10**4, n)])
        ids = ids.astype(object) if kind == "object" else ids
    text = np.asarray(ids).astype(str)
    rank = np.unique(text, return_inverse=True)[1].reshape(-1)
    b = broken(codes, s, "id_desc", ids)
    want = [(codes[i], s[i], text[i]) for i in np.lexsort((-rank, -s, codes))]
    assert [(codes[i], s[i], text[i]) for i in np.lexsort((-b, codes))] == want


def test_numba_order_kernel_is_numba_on_large_groups():
    numba = pytest.importorskip("numba")
    from perfeval.summaries.orders import numba_order

    argsort = numba.njit(lambda a: np.argsort(a))
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, 5000)
    s = rng.integers(0, 4, 5000).astype(float)
    order = numba_order(codes, s)
    for q in range(3):
        rows = np.flatnonzero(codes == q)
        assert (order[np.isin(order, rows)] == rows[argsort(-s[rows])]).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), rule=st.sampled_from(["input", "reverse", "worst"]))
def test_tie_orders_by_row_or_grade(seed, rule):
    """ranx/DIN-style orders inside ties (input order, reverse input order, lower grade first), as the
    compiled per-tie sort gives them, against numpy's lexsort."""
    from perfeval.summaries.orders import broken

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    codes, s, y = rng.integers(0, 5, n), rng.integers(0, 4, n).astype(float), rng.integers(0, 3, n)
    row = np.arange(n)
    second = {"input": row, "reverse": -row, "worst": y}[rule]
    want = np.lexsort((second, -s, codes))
    got = np.lexsort((-broken(codes, s, rule, y=y), codes))
    if rule == "worst":  # rows of one grade in a tie may come in any order: compare (group, score, grade)
        assert [(codes[i], s[i], y[i]) for i in got] == [(codes[i], s[i], y[i]) for i in want]
    else:
        assert (got == want).all()


# -- found by trying the feature as a user (each a wrong number, a crash or a silent guess before) ------
def test_tools_without_weights_refuse_them():
    w = [1.0, 2.0, 1.0, 3.0]
    for dialect, m, g in (("torchmetrics", "roc", None), ("din", "roc", None), ("trec_eval", "map", [0] * 4)):
        with pytest.raises(InvalidParameterError, match=f"dialect {dialect}: .* takes no weights"):
            perfeval.evaluate(
                [1, 0, 1, 0],
                [0.4, 0.3, 0.2, 0.1],
                groups=g,
                sample_weight=w,
                measures=[m],
                ids=["a", "b", "c", "d"] if dialect == "trec_eval" else None,
                dialect=dialect,
            )
    r = perfeval.evaluate(
        [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], sample_weight=w, measures=["roc"], dialect="sklearn"
    )
    assert (
        r["ROC"]
        == perfeval.evaluate([1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], sample_weight=w, measures=["roc"])["ROC"]
    )


def test_trec_eval_9_reads_scores_as_float32_and_10_as_double():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, s, g, ids = [1, 0], [0.300000001, 0.3], [0, 0], ["a", "b"]
    theirs = pytrec_eval.RelevanceEvaluator({"0": {"a": 1, "b": 0}}, {"map"}).evaluate(
        {"0": {"a": 0.300000001, "b": 0.3}}
    )["0"]["map"]
    r9 = perfeval.evaluate(y, s, groups=g, ids=ids, measures=["map"], dialect="trec_eval")
    r10 = perfeval.evaluate(y, s, groups=g, ids=ids, measures=["map"], dialect="trec_eval:version=10")
    assert r9["MAP"] == theirs == 0.5 and r10["MAP"] == 1.0  # 9: a float32 tie, "b" first; 10: distinct


def test_ranx_sorted_twice_is_make_comparable_on_a_run_read_from_a_file(tmp_path):
    ranx = pytest.importorskip("ranx")
    g, y, s, ids = _queries(7, 6, 60, 3, 3)
    for q in np.unique(g):
        y[np.flatnonzero(g == q)[0]] = 1
    qf, rf = tmp_path / "qrels", tmp_path / "run"
    qf.write_text("".join(f"q{q} 0 {i} {r}\n" for q, i, r in zip(g, ids, y, strict=True)))
    rf.write_text("".join(f"q{q} Q0 {i} 0 {v} x\n" for q, i, v in zip(g, ids, s, strict=True)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qr, ru = ranx.Qrels.from_file(str(qf), kind="trec"), ranx.Run.from_file(str(rf), kind="trec")
        theirs = ranx.evaluate(qr, ru, "map", return_mean=False, make_comparable=True)
    ours = perfeval.evaluate(y, s, groups=g, measures=["map"], dialect="ranx:sorts=2")
    np.testing.assert_allclose(ours.results["MAP"].per_group, theirs, rtol=0, atol=1e-12)


def test_din_with_labels_and_pos_label():
    y = np.array(["click", "none", "click", "none", "none"])
    r = perfeval.evaluate(
        y,
        [0.9, 0.1, 0.5, 0.5, 0.1],
        groups=[1, 1, 2, 2, 2],
        measures=["gauc"],
        pos_label="click",
        dialect="din",
    )
    assert r["GAUC"] == pytest.approx((1.0 + 0.5) / 2)  # user 2: the tie with a non-click counts 0


def test_bad_ids_and_options_are_one_clear_error():
    with pytest.raises(InvalidDataError, match="`ids` holds nan at index 1"):
        perfeval.evaluate(
            [1, 0, 0],
            [0.5, 0.5, 0.1],
            groups=[0, 0, 0],
            ids=np.array(["a", np.nan, "z"], dtype=object),
            measures=["map"],
            dialect="trec_eval",
        )
    with pytest.raises(InvalidParameterError, match="at least 2, got 1"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="torchmetrics:thresholds=1")
    with pytest.raises(InvalidParameterError, match="option num_thresholds needs a value"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="keras:num_thresholds")
    with pytest.raises(InvalidParameterError, match="nothing after ':'"):
        perfeval.evaluate([1, 0], [0.5, 0.2], measures=["roc"], dialect="keras:")


def test_ids_are_needed_only_where_there_are_ties():
    r = perfeval.evaluate([1, 0, 1], [0.9, 0.5, 0.1], groups=[0, 0, 0], measures=["map"], dialect="trec_eval")
    assert r["MAP"] == pytest.approx((1 + 2 / 3) / 2)


def test_ap_per_query_under_trec_eval_and_ranx_and_ndcg_burges():
    y, s, g = [1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6], [0, 0, 0, 0]
    for d in ("trec_eval", "ranx"):
        ids = list("abcd") if d == "trec_eval" else None  # ranx orders ties by input position
        r = perfeval.evaluate(y, s, groups=g, ids=ids, measures=["ap", "map"], dialect=d)
        assert r["AP"] == r["MAP"] == pytest.approx((1 + 2 / 4) / 2)
    y2 = [2, 0, 1, 0]
    lin = perfeval.evaluate(y2, s, groups=g, measures=["ndcg"], dialect="ranx")["NDCG"]
    burges = perfeval.evaluate(y2, s, groups=g, measures=["ndcg:gain=exp"], dialect="ranx")["NDCG:gain=exp"]
    assert burges == perfeval.evaluate(y2, s, groups=g, measures=["ndcg"])["NDCG"] and lin != burges


def test_signature_names_the_dialect_and_its_options():
    r = perfeval.evaluate([1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], measures=["roc"], dialect="spark:numBins=10")
    assert "ties:dialect=spark:numBins=10" in str(r.signature)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), rule=st.sampled_from(["input", "reverse"]))
def test_roc_in_input_order_walk_is_the_roc_of_the_broken_scores(seed, rule):
    """The one-walk ROC with ties in input order (DIN's calc_auc) equals the engine's ROC of the
    scores made distinct in that order."""
    from perfeval.base import checks as _validation
    from perfeval.dialects.apply import _roc_input_order
    from perfeval.summaries.orders import broken

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    y, s = rng.integers(0, 2, n), rng.integers(0, 5, n) / 4
    c = _validation.check(y, s)
    want = perfeval.evaluate(y, broken(np.zeros(n, dtype=np.int64), s, rule), measures=["roc"])["ROC"]
    assert _roc_input_order(c, rule, None, "ROC") == pytest.approx(want, abs=1e-15, nan_ok=True)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), levels=st.integers(1, 3000))
def test_roc_input_hash_and_sorted_walk_agree(seed, levels):
    """The two compiled counts of DIN's ROC: by a hash of the distinct scores, and over the rows sorted
    (the hash gives up past its cap: None); -0.0 and 0.0 are one score."""
    from perfeval import _native

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5000))
    s = rng.integers(0, levels, n) / 7.0
    s[rng.random(n) < 0.1] = -0.0
    p = rng.integers(0, 2, n).astype(np.uint8)
    walk = _native.roc_input_ties(np.argsort(s).astype(np.int64), s, p)
    assert _native.roc_input_hash(s, p, 1 << 24) == walk
    assert _native.roc_input_hash(s, p, 1) is None or len(np.unique(s)) <= 512


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 3000), levels=st.sampled_from([3, 50, 10**6]))
def test_perf_dialect_without_perfs_quicksort_gives_its_bits(seed, n, levels):
    """The measures that do not read the order inside ties are sorted by a radix sort, not PERF's
    quicksort: bit for bit the values of the classic engine with it (targets -1/1 and 0/1; heavy ties
    and none)."""
    from perfeval.classic.values import values
    from perfeval.dialects.perf import ORDER_FREE, _options
    from perfeval.engine import resolve

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n) * (2 if seed % 2 else 1) - (1 if seed % 2 else 0)
    s = rng.integers(0, levels, n) / levels
    specs = resolve(sorted(m.lower() for m in ORDER_FREE if m not in ("CST",)), 0.5)
    fast = perfeval.evaluate(y, s, measures=specs, dialect="perf")
    slow, _ = values(y.astype(np.float32).tobytes(), s.astype(np.float32).tobytes(), _options(specs, 0.5))
    for spec in specs:
        a, b = fast.results[spec.label].value, slow.get(spec.measure.name, np.nan)
        assert a == b or (np.isnan(a) and np.isnan(b)), spec.label


def test_roc_input_hash_in_two_halves_merges_exactly():
    """From 200,000 rows the hash counts each half of the rows in its own thread and merges them (a
    positive of the first half precedes every negative of the second): the sorted walk's numbers."""
    from perfeval import _native

    rng = np.random.default_rng(3)
    for levels in (1, 40, 100_000):
        s = rng.integers(0, levels, 300_000) / 7.0
        s[rng.random(300_000) < 0.1] = -0.0
        p = rng.integers(0, 2, 300_000).astype(np.uint8)
        walk = _native.roc_input_ties(np.argsort(s).astype(np.int64), s, p)
        assert _native.roc_input_hash(s, p, 1 << 24) == walk
