"""perfeval.trec.evaluate against trec_eval (pytrec_eval), named as trec_eval names them: judged
relevant documents the run never retrieved count, unanswered queries score 0 (trec_eval's -c),
graded and negative judgments, relevance levels (-l), and ties broken as trec_eval breaks them.
And perfeval's own tie rule against the brute-force mean over every order of the tied documents."""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfeval
from perfeval import trec
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.io.trec import Run, read_run

pytrec_eval = pytest.importorskip("pytrec_eval")

#: trec_eval's measure families as pytrec_eval takes them
FAMILIES = {
    "map",
    "map_cut.5,10",
    "ndcg",
    "ndcg_cut.5,10",
    "P.5,10",
    "recall.5,10",
    "recip_rank",
    "Rprec",
    "bpref",
    "success.1,5,10",
    "set_P",
    "set_recall",
    "set_F",
}
#: the names trec_eval prints, which perfeval reads as trec_eval's definitions
NAMES = [
    "map",
    "map_cut_5",
    "map_cut_10",
    "ndcg",
    "ndcg_cut_5",
    "ndcg_cut_10",
    "P_5",
    "P_10",
    "recall_5",
    "recall_10",
    "recip_rank",
    "Rprec",
    "bpref",
    "success_1",
    "success_5",
    "success_10",
    "set_P",
    "set_recall",
    "set_F",
]


def _data(seed: int, n_queries: int, grades: int, ties: bool, negative: bool = False):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 40)))]
        judged = rng.choice(len(docs), size=int(rng.integers(1, len(docs) + 1)), replace=False)
        low = -1 if negative else 0
        qrels[f"q{q}"] = {docs[i]: int(rng.integers(low, grades)) for i in judged}
        if all(v < 0 for v in qrels[f"q{q}"].values()):  # undefined in trec_eval (it reads relevance
            qrels[f"q{q}"][docs[judged[0]]] = 0  # levels it never stored; pytrec_eval can crash); perfeval: 0
        if rng.random() < 0.85:  # some judged queries are not answered
            shown = rng.choice(len(docs), size=int(rng.integers(1, len(docs) + 1)), replace=False)
            if ties:
                scores = rng.integers(0, 4, len(shown)).astype(float)
            else:
                scores = rng.permutation(len(shown)) + rng.random()  # distinct: no ties
            run[f"q{q}"] = {docs[i]: float(s) for i, s in zip(shown, scores, strict=True)}
    run["unjudged"] = {"d1": 1.0}
    return qrels, run


def _trec_eval(qrels, run, level=1, all_queries=True):
    per = pytrec_eval.RelevanceEvaluator(qrels, FAMILIES, relevance_level=level).evaluate(run)
    queries = sorted(qrels) if all_queries else sorted(q for q in per)
    return {q: {n: per.get(q, {}).get(n, 0.0) for n in NAMES} for q in queries}


def _check(report, expected):
    keys = [str(k) for k in report.groups]
    assert keys == list(expected)
    for name in NAMES:
        label = next(lab for lab, written in report.params["names"].items() if written == name)
        got = report.results[label].per_group
        want = np.array([expected[q][name] for q in keys])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=name)
        assert report.results[label].value == pytest.approx(float(np.mean(want)), abs=1e-12), name


def _evaluate(qrels, run, **kw):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "queries of run", UserWarning)
        return trec.evaluate(qrels, run, measures=NAMES, **kw)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25), grades=st.sampled_from([2, 4]))
def test_runs_without_ties_agree_with_trec_eval_under_every_tie_rule(seed, n, grades):
    qrels, run = _data(seed, n, grades, ties=False)
    expected = _trec_eval(qrels, run)
    for ties in trec.TIES:
        _check(_evaluate(qrels, run, ties=ties), expected)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25), level=st.sampled_from([1, 2, 3]))
def test_ties_broken_as_trec_eval_breaks_them(seed, n, level):
    """Tied scores, graded and negative judgments (trec_eval: in the pool, not judged), -l."""
    qrels, run = _data(seed, n, 4, ties=True, negative=True)
    _check(_evaluate(qrels, run, ties="trec_eval", level=level), _trec_eval(qrels, run, level=level))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25))
def test_only_the_runs_queries_as_trec_eval_without_c(seed, n):
    qrels, run = _data(seed, n, 3, ties=True)
    expected = _trec_eval(qrels, run, all_queries=False)
    if not expected:  # the run answers no judged query: no number, an error that says why
        with pytest.raises(InvalidDataError, match="answers no judged query"):
            _evaluate(qrels, run, ties="trec_eval", queries="run")
        return
    _check(_evaluate(qrels, run, ties="trec_eval", queries="run"), expected)


def _tie_orders(run: Run):
    """Every run that breaks the ties of ``run`` (one query) by line order: one per order of each
    tie group's documents."""
    groups = [np.flatnonzero(run.score == s) for s in np.unique(run.score)]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = np.concatenate(perms)
        yield Run(run.qid[order], run.docid[order], run.score[order], None, np.arange(len(order)))


#: measures whose tie rule is the expectation over tie orders (MAP's is one threshold per tie)
EXPECTED = ["ndcg", "ndcg_cut_3", "P_3", "recall_3", "recip_rank", "Rprec", "bpref", "success_2", "Judged@3"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rels=st.lists(st.integers(-1, 3) | st.none(), min_size=1, max_size=5),
    scores=st.lists(st.integers(0, 2), min_size=5, max_size=5),
    missed=st.lists(st.integers(0, 2), max_size=3),
)
def test_perfevals_tie_rule_is_the_mean_over_every_order(rels, scores, missed):
    """ties="perfeval" equals the mean of ties="file" over every order of the tied documents (None:
    a retrieved document without judgment; ``missed``: judged documents never retrieved)."""
    docs = [f"d{i}" for i in range(len(rels))]
    qrels = {"q": {d: r for d, r in zip(docs, rels, strict=False) if r is not None}}
    qrels["q"].update({f"m{i}": g for i, g in enumerate(missed)})
    if not qrels["q"]:
        qrels["q"]["m"] = 0
    run = read_run({"q": {d: float(s) for d, s in zip(docs, scores, strict=False)}})
    ours = trec.evaluate(qrels, run, measures=EXPECTED)
    runs = list(_tie_orders(run))
    assert len(runs) <= 120
    each = [trec.evaluate(qrels, r, measures=EXPECTED, ties="file") for r in runs]
    for label in ours.results:
        mean = float(np.mean([rep.results[label].value for rep in each]))
        assert ours.results[label].value == pytest.approx(mean, abs=1e-12), label


def test_only_the_runs_queries():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}}
    run = {"q1": {"a": 2.0, "c": 1.0, "b": 0.5}}
    assert trec.evaluate(qrels, run, measures="map")["MAP"] == pytest.approx((1 + 2 / 3) / 2 / 2)
    only = trec.evaluate(qrels, run, measures="map", queries="run")
    assert only["MAP"] == pytest.approx((1 + 2 / 3) / 2) and [str(k) for k in only.groups] == ["q1"]


def test_a_binary_measure_is_refused():
    with pytest.raises(Exception, match="not a per-query ranking measure"):
        trec.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, measures="roc")


def test_tool_spellings_mean_the_tools_definitions():
    """trec_eval's ndcg and ir_measures' nDCG@k are linear in the relevance; perfeval's own ndcg@k is
    exponential; in perfeval.trec a bare `ndcg` is trec_eval's."""
    qrels = {"q": {"a": 3, "b": 1}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    r = trec.evaluate(qrels, run, measures=["ndcg", "nDCG@2", "ndcg@2", "ndcg_cut_2"][:3])
    linear = (1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3))
    exp = (1 + 7 / np.log2(3)) / (7 + 1 / np.log2(3))
    assert r["NDCG:gain=linear"] == pytest.approx(linear, abs=1e-15)
    assert r["NDCG@2:gain=linear"] == pytest.approx(linear, abs=1e-15)
    assert r["NDCG@2"] == pytest.approx(exp, abs=1e-15)
    with pytest.raises(Exception, match="named twice"):
        trec.evaluate(qrels, run, measures=["nDCG@2", "ndcg_cut_2"])


def test_a_query_judged_only_negative_scores_0_where_trec_eval_is_undefined():
    """trec_eval stores no relevance level for such a query and reads the levels anyway (the program:
    tests/test_trec_eval_binary.py); pytrec_eval 0.5 answers 0 for some measures and crashes the
    process (a segmentation fault) for others.  perfeval scores it 0."""
    r = trec.evaluate(
        {"q": {"a": -1, "b": -1}}, {"q": {"a": 1.0, "x": 0.5}}, measures=["ndcg", "map", "bpref", "P_5"]
    )
    assert all(v.value == 0.0 for v in r.results.values())
    script = (
        "import sys, pytrec_eval\n"
        "q = {'a': {'x': -1, 'z': -1}, 'b': {'y': 1}}\n"
        "r = {'a': {'x': 1.0, 'w': 0.5}, 'b': {'y': 1.0}}\n"
        "print(pytrec_eval.RelevanceEvaluator(q, set(sys.argv[1:])).evaluate(r)['a'])\n"
    )
    alone = subprocess.run([sys.executable, "-c", script, "map"], capture_output=True, text=True, timeout=60)
    assert alone.returncode == 0 and alone.stdout.strip() == "{'map': 0.0}"
    many = ["map", "ndcg", "bpref", "P.5", "recall.5", "Rprec", "recip_rank"]
    crash = subprocess.run([sys.executable, "-c", script, *many], capture_output=True, text=True, timeout=60)
    assert crash.returncode == -signal.SIGSEGV


#: ir_measures' names of trec_eval's set measures (SetF's beta is trec_eval's x, 1 by default)
SET_MEASURES = {"SetP": "set_P", "SetR": "set_recall", "SetF": "set_F"}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25), beta=st.sampled_from([0.5, 2.0, 3.0]))
def test_set_measures_by_ir_measures_names_and_weighted_set_f(seed, n, beta):
    """ir_measures' SetP, SetR, SetF are trec_eval's set_P, set_recall, set_F; f:beta=b is trec_eval's
    set_F.x with x = b^2 (b^2 exact here: the same operations, the same bits)."""
    qrels, run = _data(seed, n, 3, ties=True, negative=True)
    x = beta * beta
    per = pytrec_eval.RelevanceEvaluator(qrels, set(SET_MEASURES.values())).evaluate(run)
    weighted = pytrec_eval.RelevanceEvaluator(qrels, {f"set_F.{x!r}"}).evaluate(run)  # printed set_F too
    written = [*SET_MEASURES, f"f:beta={beta!r}"]
    report = _evaluate_names(qrels, run, written)
    keys = [str(k) for k in report.groups]
    assert keys == sorted(qrels)
    assert list(report.results) == ["P@0", "R@0", "F", f"F:beta={beta:g}"]
    expected = [(per, name) for name in SET_MEASURES.values()] + [(weighted, "set_F")]
    for w, label, (theirs, name) in zip(written, report.results, expected, strict=True):
        want = np.array([theirs.get(q, {}).get(name, 0.0) for q in keys])
        np.testing.assert_allclose(report.results[label].per_group, want, rtol=0, atol=1e-12, err_msg=w)


def _evaluate_names(qrels, run, names):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "queries of run", UserWarning)
        return trec.evaluate(qrels, run, measures=names)


def test_set_f_edge_cases_as_trec_eval():
    """set_F is 0 for a query with relevant documents none retrieved and for one without relevant
    documents (trec_eval leaves its 0 when no relevant document is retrieved); outside perfeval.trec
    the second is undefined, as recall is."""
    qrels = {"hit": {"a": 1, "b": 1}, "miss": {"z": 1}, "none": {"a": 0}}
    run = {"hit": {"a": 2.0, "c": 1.0}, "miss": {"a": 1.0}, "none": {"a": 1.0}}
    per = pytrec_eval.RelevanceEvaluator(qrels, {"set_F"}).evaluate(run)
    assert [per[q]["set_F"] for q in ("hit", "miss", "none")] == [0.5, 0.0, 0.0]
    r = trec.evaluate(qrels, run, measures=["set_F"])
    assert r.results["F"].per_group.tolist() == [0.5, 0.0, 0.0]  # hit: P = R = 1/2
    with pytest.warns(UserWarning, match="F is undefined for 1 of 2 groups"):
        own = perfeval.evaluate([1, 0, 0, 0], [2.0, 1.0, 2.0, 1.0], groups=[0, 0, 1, 1], measures=["f"])
    assert own.results["F"].per_group[0] == pytest.approx(2 / 3) and np.isnan(own.results["F"].per_group[1])


@pytest.mark.parametrize("written", ["set_F.0.25", "set_F_4", "SetF(beta=0.25)"])
def test_a_weighted_set_f_in_a_tools_spelling_is_refused_with_perfevals_beta(written):
    """trec_eval's set_F.x weighs with x = beta^2 (ir_measures' SetF(beta=x) passes x on): not
    perfeval's beta, so refused, naming the f:beta= that means it."""
    with pytest.raises(InvalidParameterError, match=r"x = beta\^2.*f:beta=(0\.5|2\.0)"):
        trec.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, measures=[written])
    with pytest.raises(InvalidParameterError, match="no @ parameter"):
        trec.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, measures=["f@2"])


def test_judged_at_k_as_ir_measures_counts_it():
    qrels = {"q": {"a": 1, "b": 0, "c": -1}}  # c: -1, which ir_measures counts as judged
    run = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}}
    r = trec.evaluate(qrels, run, measures=["Judged@2", "Judged@10", "bpref"])
    assert r["JUDGED@2"] == 0.5 and r["JUDGED@10"] == 0.75  # 3 in the qrels of min(10, 4) ranked
    assert r["BPREF"] == 1.0  # bpref (trec_eval) skips the -1: b is the only judged non-relevant


#: ranx's metric -> the same measure in perfeval's spelling (ranx's ndcg is linear, ndcg_burges exp)
RANX = {
    "map": "map",
    "map@10": "map@10",
    "ndcg": "ndcg:gain=linear",
    "ndcg@10": "ndcg@10:gain=linear",
    "ndcg_burges@10": "ndcg@10",
    "precision@5": "p@5",
    "recall@10": "r@10",
    "mrr": "mrr",
    "r-precision": "rprec",
    "hit_rate@5": "success@5",
}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), grades=st.sampled_from([2, 4]))
def test_runs_without_ties_agree_with_ranx(seed, n, grades):
    """ranx on the judged queries (make_comparable: an unanswered query scores 0), tie-free runs."""
    ranx = pytest.importorskip("ranx")
    qrels, run = _data(seed, n, grades, ties=False)
    del run["unjudged"]
    if not run:
        return
    qrels = {q: d for q, d in qrels.items() if any(v > 0 for v in d.values())}  # ranx needs a relevant doc
    run = {q: d for q, d in run.items() if q in qrels}
    if not qrels or not run:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(RANX), make_comparable=True)
    ours = trec.evaluate(qrels, run, measures=list(RANX.values()))
    for (name, mine), label in zip(RANX.items(), ours.results, strict=True):
        assert ours.results[label].value == pytest.approx(theirs[name], abs=1e-12), (name, mine)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30))
def test_file_order_ties_are_ranxs_on_queries_of_up_to_15_documents(seed, n):
    """ranx ranks tied documents in the order the run gives them when a query has at most 15
    (numba's argsort sorts so few by insertion, which keeps their order; above 15 its quicksort
    does not, and ranx's order of ties is no rule perfeval can name: docs/ranking.md)."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n):
        size = int(rng.integers(2, 16))
        docs = [f"d{i}" for i in rng.permutation(size)]  # the file's order is not the ids' order
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs}
        qrels[f"q{q}"][docs[int(rng.integers(size))]] = 2  # ranx needs a relevant document
        run[f"q{q}"] = {d: float(rng.integers(0, 3)) for d in docs}  # heavy ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {m: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), m, return_mean=False) for m in RANX}
    ours = trec.evaluate(qrels, run, measures=list(RANX.values()), ties="file")
    assert [str(k) for k in ours.groups] == sorted(qrels)  # ranx's per-query order too
    for (name, _), label in zip(RANX.items(), ours.results, strict=True):
        np.testing.assert_allclose(
            ours.results[label].per_group, theirs[name], rtol=0, atol=1e-12, err_msg=name
        )


def test_ranx_above_15_documents_keeps_neither_the_file_order_nor_its_reverse():
    """docs/ranking.md: on queries of 16 to 200 documents with heavy ties ranx's values match neither
    the run's order of tied documents nor its reverse; its numba quicksort order, replayed
    (``ties="ranx"``), gives them."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(5)
    qrels, run, reverse = {}, {}, {}
    for q in range(20):
        size = int(rng.integers(16, 201))
        docs = [f"d{i}" for i in rng.permutation(size)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs}
        qrels[f"q{q}"][docs[0]] = 2
        run[f"q{q}"] = {d: float(rng.integers(0, 3)) for d in docs}
        reverse[f"q{q}"] = dict(reversed(list(run[f"q{q}"].items())))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = np.array(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "map", return_mean=False))
    for r, rule in ((run, "file"), (reverse, "file")):
        ours = trec.evaluate(qrels, r, measures=["map"], ties=rule).results["MAP"].per_group
        assert (np.abs(ours - theirs) > 1e-12).sum() >= 10
    replayed = trec.evaluate(qrels, run, measures=["map"], ties="ranx").results["MAP"].per_group
    np.testing.assert_allclose(replayed, theirs, rtol=0, atol=1e-12)
