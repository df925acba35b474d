"""`perfeval trec --dialect` and `perfeval.trec.evaluate/compare(dialect=)`: each tool's numbers as its
users get them by default, checked against the tool itself (pytrec_eval, ranx, ir_measures) on
judgments and runs as they come: graded, -1 judgments, judged queries a run leaves out, a run query
without judgments, tied scores in queries of more than 15 documents.  Also what trec_eval's layout
carries, the names measures are keyed by, and ids that would reorder a terminal's line."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from conftest import run_cli
from perfeval import trec

pytrec_eval = pytest.importorskip("pytrec_eval")


def _case(seed: int, every_query: bool = False) -> tuple[dict, dict]:
    """Judgments on 14 queries (grades -1 to 3, every query with a relevant document) and a run of
    12 to 30 documents a query scored on a coarse grid (ties, relevant and not, across the cut-offs),
    leaving out two judged queries (unless ``every_query``) and answering one query nobody judged.
    """
    rng = np.random.default_rng(seed)
    qrels: dict = {}
    run: dict = {}
    for q in range(14):
        qid = f"q{q:02d}"
        docs = rng.choice(60, 20, replace=False)
        grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], 20)
        grades[0] = 1 + q % 3
        qrels[qid] = {f"d{d}": int(g) for d, g in zip(docs, grades, strict=True)}
        if not every_query and q in (3, 8):
            continue
        n = int(rng.integers(12, 31))
        ranked = rng.choice(60, n, replace=False)
        run[qid] = {f"d{d}": float(rng.choice([1.0, 1.5, 2.0, 2.5, 3.0])) for d in ranked}
    if not every_query:
        run["zz"] = {"d1": 1.0, "d2": 0.5}
    return qrels, run


def _write(tmp_path, qrels: dict, run: dict) -> tuple[str, str]:
    qf, rf = tmp_path / "qrels.txt", tmp_path / "sys.run"
    qf.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = []
    for q, docs in run.items():
        for rank, (d, s) in enumerate(docs.items()):
            lines.append(f"{q} Q0 {d} {rank + 1} {s} sys\n")
    rf.write_text("".join(lines))
    return str(qf), str(rf)


def _json(argv, capsys) -> dict:
    code, out, err = run_cli(["trec", *argv, "--format", "json"], capsys)
    assert code == 0, err
    return json.loads(out)


def _quiet_evaluate(*a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the run's query without judgments is said
        return trec.evaluate(*a, **kw)


#: trec_eval's names (as -m takes them and as pytrec_eval keys them)
TREC = {
    "map": "map",
    "ndcg_cut_10": "ndcg_cut.10",
    "P_5": "P.5",
    "recall_10": "recall.10",
    "recip_rank": "recip_rank",
    "Rprec": "Rprec",
    "bpref": "bpref",
    "success_5": "success.5",
}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_trec_eval_dialect_averages_over_the_queries_trec_eval_does(tmp_path, capsys, seed):
    """trec_eval without -c averages over the judged queries the run answers: so does --dialect
    trec_eval (it averaged over every judged query, as -c, and printed another MAP, saying nothing);
    --queries qrels is -c.  The Python call gives the command's numbers."""
    qrels, run = _case(seed)
    qf, rf = _write(tmp_path, qrels, run)
    per = pytrec_eval.RelevanceEvaluator(qrels, set(TREC.values())).evaluate(run)
    names = ",".join(TREC)
    got = _json([qf, rf, "-m", names, "--dialect", "trec_eval"], capsys)
    py = _quiet_evaluate(qf, rf, names, dialect="trec_eval")
    c = _json([qf, rf, "-m", names, "--dialect", "trec_eval", "--queries", "qrels"], capsys)
    for name in TREC:
        answered = np.mean([v[name] for v in per.values()])
        every = sum(v[name] for v in per.values()) / len(qrels)
        assert got[name] == pytest.approx(answered, abs=1e-12), name
        assert py.results[_label(py, name)].value == got[name]
        assert c[name] == pytest.approx(every, abs=1e-12), name
    assert "queries:run" in str(py.signature) and "ties:dialect=trec_eval" in str(py.signature)
    assert py.params["judged_queries"] == 14 and py.params["answered_queries"] == 12
    # said on stderr: which queries, how many the run answers
    code, _, err = run_cli(["trec", qf, rf, "-m", "map", "--dialect", "trec_eval"], capsys)
    assert (
        code == 0
        and (
            "perfeval: note: --dialect trec_eval gives the mean over the judged queries each run answers (as "
            "trec_eval without -c; --queries qrels counts the others 0, as trec_eval -c); judged queries "
            "answered: sys 12 of 14\n"
        )
        in err
    )


def _label(report, written: str) -> str:
    return next(label for label, name in report.params["names"].items() if name == written)


RANX = "map,ndcg@10,precision@5,recall@10,mrr,r-precision,hit_rate@5,map@10"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ranx_dialect_is_ranxs_number_as_its_users_get_it(tmp_path, capsys, seed):
    """ranx refuses a run that leaves out a judged query (or answers one nobody judged) unless
    make_comparable=True, which scores the missing ones 0 and sorts the run again (tied documents of
    queries above 15 move); on a run answering exactly the judged queries its default call sorts once.
    --dialect ranx gives each of those numbers (it sorted once whatever the queries)."""
    ranx = pytest.importorskip("ranx")
    for every in (False, True):
        qrels, run = _case(seed, every_query=every)
        qf, rf = _write(tmp_path, qrels, run)
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX.split(","), make_comparable=not every)
        if not every:  # ranx's default call refuses it
            with pytest.raises(AssertionError, match="make_comparable=True"):
                ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX.split(","))
        got = _json([qf, rf, "-m", RANX, "--dialect", "ranx"], capsys)
        py = _quiet_evaluate(qf, rf, RANX, dialect="ranx")
        assert list(got) == RANX.split(",")  # keyed as asked
        for i, name in enumerate(RANX.split(",")):
            assert got[name] == pytest.approx(theirs[name], abs=1e-12), (every, name)
            assert list(py.results.values())[i].value == got[name]
        assert str(py.signature).startswith("perfeval:") and "queries:qrels" in str(py.signature)
        assert ("ties:dialect=ranx:sorts=2" in str(py.signature)) is (not every)


IR = "AP,nDCG@10,P@5,R@10,RR,Rprec,Bpref,Success@5,Judged@5,Judged@10,Judged@20,AP@10"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ir_measures_dialect_is_ir_measures_number(tmp_path, capsys, seed):
    """ir_measures averages over every judged query (a query the run leaves out gets the measure's
    default, 0), computes its measures through pytrec_eval (ties by document id descending) and its
    Judged@k itself: a -1 judgment counts as judged, ties by document id ascending."""
    irm = pytest.importorskip("ir_measures")
    qrels, run = _case(seed)
    qf, rf = _write(tmp_path, qrels, run)
    measures = [irm.parse_measure(m) for m in IR.split(",")]
    theirs = irm.calc_aggregate(measures, qrels, run)
    got = _json([qf, rf, "-m", IR, "--dialect", "ir_measures"], capsys)
    py = _quiet_evaluate(qf, rf, IR, dialect="ir_measures")
    assert list(got) == IR.split(",")
    for i, (m, name) in enumerate(zip(measures, IR.split(","), strict=True)):
        assert got[name] == pytest.approx(theirs[m], abs=1e-12), name
        assert list(py.results.values())[i].value == got[name]
    assert "ties:dialect=ir_measures" in str(py.signature) and "queries:qrels" in str(py.signature)


def test_judged_at_k_counts_a_negative_judgment_and_breaks_ties_by_id_ascending(tmp_path, capsys):
    """ir_measures' Judged@k: the documents the judgments hold (a -1 judgment included) among the top
    k, ties by document id ascending; trec_eval's order (descending) gave the other end of the tie."""
    irm = pytest.importorskip("ir_measures")
    qrels = {"q": {"a": 1, "b": -1, "x": 0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 1.0, "z": 1.0, "x": 0.5}}  # b, c, z tie: ascending b first
    qf, rf = _write(tmp_path, qrels, run)
    theirs = irm.calc_aggregate([irm.parse_measure("Judged@2")], qrels, run)
    assert list(theirs.values()) == [1.0]  # a and b (judged -1) in the top 2
    assert _json([qf, rf, "-m", "Judged@2", "--dialect", "ir_measures"], capsys) == {"Judged@2": 1.0}
    assert _quiet_evaluate(qf, rf, "Judged@2", dialect="ir_measures")["JUDGED@2"] == 1.0
    # by document id descending (trec_eval's order of ties) z would be second: 0.5, no tool's number
    assert _json([qf, rf, "-m", "Judged@2", "--ties", "trec_eval"], capsys) == {"Judged@2": 0.5}
    # a tool that has no Judged@k does not put its name to one
    code, _, err = run_cli(["trec", qf, rf, "-m", "Judged@2", "--dialect", "trec_eval"], capsys)
    assert code == 2 and err.strip().endswith(
        "dialect trec_eval does not define Judged@2 (trec_eval has no such measure); dialects that do: "
        "perfeval, ir_measures"
    )


def _trec_lines(out: str) -> dict:
    return {(n.strip(), q): float(v) for n, q, v in (line.split("\t") for line in out.splitlines())}


def test_trec_layout_carries_trec_evals_numbers_on_tied_runs(tmp_path, capsys):
    """--format trec prints trec_eval's layout: its numbers too (ties by document id, the answered
    queries), said in one note; another dialect or tie rule in that layout is refused, saying how."""
    qrels, run = _case(4)
    qf, rf = _write(tmp_path, qrels, run)
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"}).evaluate(run)
    code, out, err = run_cli(["trec", qf, rf, "-m", "map,ndcg_cut_10,P_5", "-q", "--format", "trec"], capsys)
    assert code == 0
    got = _trec_lines(out)
    for name in ("map", "ndcg_cut_10", "P_5"):
        for q, v in per.items():
            assert got[(name, q)] == pytest.approx(v[name], abs=5e-5), (name, q)
        assert got[(name, "all")] == pytest.approx(np.mean([v[name] for v in per.values()]), abs=5e-5)
    assert len(got) == 3 * (12 + 1)  # the answered judged queries, then all
    notes = [line for line in err.splitlines() if line.startswith("perfeval: note:")]
    assert notes == [
        "perfeval: note: --format trec prints trec_eval's numbers (--dialect trec_eval): ties by document "
        "id, trec_eval's definitions, the mean over the judged queries each run answers, as trec_eval "
        "without -c (--queries qrels: -c)"
    ]
    for extra, message in (
        (
            ["--dialect", "ranx"],
            "--format trec is trec_eval's layout, for trec_eval's numbers: --dialect ranx",
        ),
        (["--dialect", "perfeval"], "--dialect perfeval gives perfeval's; use --format table"),
        (["--ties", "perfeval"], "(ties by document id): drop --ties perfeval, or use --format table"),
    ):
        code, out, err = run_cli(["trec", qf, rf, "-m", "map", "--format", "trec", *extra], capsys)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err, err


def test_every_format_names_the_measures_as_asked(tmp_path, capsys):
    """`-m map,ndcg@10,precision@10,mrr` gave JSON keys "map", "NDCG@10:gain=linear", "precision@10",
    "MRR": one spelling each, none the user's for two of them.  Every format names them as asked."""
    qrels, run = _case(5, every_query=True)
    qf, rf = _write(tmp_path, qrels, run)
    asked = ["map", "ndcg@10", "precision@10", "mrr"]
    argv = ["trec", qf, rf, "-m", ",".join(asked), "--dialect", "ranx"]
    body = _json(argv[1:], capsys)
    assert list(body) == asked
    py = trec.evaluate(qf, rf, measures=",".join(asked), dialect="ranx")
    assert body["ndcg@10"] == py["NDCG@10:gain=linear"] and body["mrr"] == py["MRR"]
    assert py["ndcg@10"] == body["ndcg@10"]  # the report answers to the name asked (ranx's ndcg@10)
    _, out, _ = run_cli([*argv, "-q", "--format", "json"], capsys)
    assert list(json.loads(out)) == asked
    _, out, _ = run_cli([*argv, "--format", "csv"], capsys)
    assert out.splitlines()[0] == "run,map,ndcg@10,precision@10,mrr"
    _, out, _ = run_cli(argv, capsys)
    assert out.splitlines()[0].split() == ["run", *asked]
    _, out, _ = run_cli([*argv, "--format", "markdown"], capsys)
    assert out.splitlines()[0] == "| run | map | ndcg@10 | precision@10 | mrr |"
    _, out, _ = run_cli([*argv, "--format", "latex"], capsys)
    assert "Run & map & ndcg@10 & precision@10 & mrr \\\\" in out
    _, out, _ = run_cli(["trec", qf, rf, "-m", "map,mrr,ndcg@10", "--format", "trec"], capsys)
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["map", "mrr", "ndcg@10"]
    c = trec.compare(qf, {"a": rf, "b": rf}, measures=",".join(asked), dialect="ranx", test="none")
    assert list(c.to_dict()["runs"]["a"]) == asked


def test_compare_with_a_dialect_is_the_commands(tmp_path, capsys):
    """trec.compare(dialect=) gives the command's means and p-values, each run's mean the tool's."""
    qrels, run = _case(6)
    qf, rf = _write(tmp_path, qrels, run)
    other = {
        q: {d: s + (0.5 if d.endswith("1") else 0.0) for d, s in docs.items()} for q, docs in run.items()
    }
    of = tmp_path / "other.run"
    of.write_text("".join(f"{q} Q0 {d} 1 {s} other\n" for q, docs in other.items() for d, s in docs.items()))
    code, out, _ = run_cli(
        ["trec", qf, rf, str(of), "-m", "map,P_5", "--dialect", "trec_eval", "--format", "json"], capsys
    )
    assert code == 0
    body = json.loads(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = trec.compare(qf, [rf, str(of)], measures="map,P_5", dialect="trec_eval")
    assert body["sys"]["map"] == c.reports["sys"]["MAP"] and body["other"]["P_5"] == c.reports["other"]["P@5"]
    assert body["other"]["p_values"]["map"] == c.pvalues["other"]["MAP"]
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(other)
    assert c.reports["other"]["MAP"] == pytest.approx(np.mean([v["map"] for v in per.values()]), abs=1e-12)


def test_python_dialect_refuses_what_the_command_refuses(tmp_path):
    qrels, run = _case(7, every_query=True)
    from perfeval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="dialect='trec_eval' orders tied documents its own way"):
        trec.evaluate(qrels, run, measures="map", dialect="trec_eval", ties="file")
    with pytest.raises(InvalidParameterError, match="dialect='sklearn': expected one of perfeval, trec_eval"):
        trec.evaluate(qrels, run, measures="map", dialect="sklearn")
    with pytest.raises(InvalidParameterError, match="dialect ranx does not define bpref"):
        trec.compare(qrels, [run], measures="bpref", dialect="ranx")
    # without a dialect: perfeval's rules, every judged query (trec_eval -c), as before
    r = trec.evaluate(qrels, run, measures="map")
    assert "ties:perfeval" in str(r.signature) and "queries:qrels" in str(r.signature)


def test_ids_that_reorder_a_line_are_escaped(tmp_path, capsys):
    """A query id or run name holding a bidirectional override (or another control character) is
    printed escaped in every layout a terminal shows; JSON escapes it itself."""
    rlo = "\u202e"
    (tmp_path / "qrels").write_text(f"q{rlo}1 0 d1 1\nq{rlo}1 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "a.run").write_text(f"q{rlo}1 Q0 d1 1 0.5 t{rlo}ag\nq{rlo}1 Q0 d2 2 0.5 t{rlo}ag\n")
    (tmp_path / "b.run").write_text(f"q{rlo}1 Q0 d1 1 0.9 b\nq2 Q0 d1 1 0.5 b\n")
    args = ["trec", str(tmp_path / "qrels"), str(tmp_path / "a.run"), str(tmp_path / "b.run"), "-m", "map"]
    for extra in (["-q", "--format", "trec"], ["--format", "markdown"], ["--format", "latex"], ["-q"]):
        code, out, err = run_cli([*args, *extra], capsys)
        assert code == 0 and rlo not in out and rlo not in err, extra
        assert "\\u202e" in out and "\\u202e" in err, extra
    code, out, err = run_cli([*args, "--queries", "run"], capsys)
    assert code == 0 and rlo not in err and "t\\u202eag 1: 1 in both" in err
    code, out, _ = run_cli([*args, "-q", "--format", "json"], capsys)
    assert rlo not in out and json.loads(out)["t" + rlo + "ag"]["map"]["per_query"]["q" + rlo + "1"] == 0.5


def test_explain_judgments_and_a_run_in_python_as_on_the_command_line(tmp_path, capsys):
    """`perfeval explain QRELS RUN` and `perfeval.trec.explain`: every dialect's number (the tool's,
    checked against pytrec_eval and ranx here), a measure the tool lacks said, and under each value
    that differs the rules that made it, with what they touched."""
    ranx = pytest.importorskip("ranx")
    qrels, run = _case(8)
    qf, rf = _write(tmp_path, qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = trec.explain(qf, rf, measures="map,ndcg@10,bpref,Judged@10")
    assert e.dialects == ["perfeval", "trec_eval", "ranx", "ir_measures"]
    assert e.measures == ["map", "ndcg@10", "bpref", "Judged@10"]
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "bpref"}).evaluate(run)
    assert e.value("trec_eval", "map") == pytest.approx(np.mean([v["map"] for v in per.values()]), abs=1e-12)
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["map", "ndcg@10"], make_comparable=True)
    assert e.value("ranx", "map") == pytest.approx(theirs["map"], abs=1e-12)
    assert e.value("ranx", "ndcg@10") == pytest.approx(theirs["ndcg@10"], abs=1e-12)
    for d in ("perfeval", "trec_eval", "ir_measures"):
        r = _quiet_evaluate(qf, rf, "map,ndcg@10,bpref", dialect=d)
        assert [e.value(d, m) for m in ("map", "ndcg@10", "bpref")] == [x.value for x in r.results.values()]
    assert np.isnan(e.value("ranx", "bpref")) and e.cells["ranx"]["bpref"].note == "not defined by ranx"
    assert np.isnan(e.value("trec_eval", "Judged@10")) and e.value("ir_measures", "Judged@10") >= 0
    rules = e.cells["trec_eval"]["ndcg@10"].rules
    assert any(r.startswith("tied scores ranked by document id, descending") for r in rules)
    assert any(r.endswith("[2 of 14 judged queries unanswered]") for r in rules)
    assert any(r.startswith("linear gain (the grade itself") for r in rules)
    assert not any("unanswered" in r for r in e.cells["ir_measures"]["map"].rules)  # both over every query
    assert "sorted twice" in e.cells["ranx"]["map"].rules[0]
    code, out, _ = run_cli(["explain", qf, rf, "-m", "map,ndcg@10,bpref,Judged@10"], capsys)
    assert code == 0 and out == str(e)
    assert "run sys: 251 documents ranked; 14 judged queries, 12 of them answered" in out
    code, out, _ = run_cli(["explain", qf, rf, "-m", "map", "--dialects", "ranx", "--format", "csv"], capsys)
    assert out.splitlines() == [
        "dialect,map",
        f"perfeval,{e.value('perfeval', 'map')!r}",
        f"ranx,{float(theirs['map'])!r}",
    ]
    code, _, err = run_cli(["explain", qf, rf, "-m", "map", "--group", "q"], capsys)
    assert code == 2 and "--group names a column of a table" in err


def test_explain_judgments_and_a_run_puts_perfeval_first_whatever_the_order_given():
    """perfeval's row is first, and each dialect once, whatever --dialects says (an internal error, a
    KeyError, when a tool came before perfeval), as the table form of explain does."""
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}
    run = {"q1": {"d1": 0.5, "d2": 0.5}}
    want = trec.explain(qrels, run, measures="map,P_1", dialects="trec_eval,ranx")
    for given, order in (
        ("ranx,perfeval,trec_eval", ["perfeval", "ranx", "trec_eval"]),
        (["trec_eval", "perfeval", "ranx", "trec_eval"], ["perfeval", "trec_eval", "ranx"]),
    ):
        e = trec.explain(qrels, run, measures="map,P_1", dialects=given)
        assert e.dialects == order
        assert all(e.value(d, m) == want.value(d, m) for d in order for m in ("map", "P_1"))


def test_trec_eval_dialect_reads_scores_as_pytrec_eval_does(tmp_path, capsys):
    """pytrec_eval (and trec_eval 9.0.x) read scores as float: two scores equal as float32 are a tie,
    broken by document id.  A dense retriever's scores printed to ten digits meet that; --dialect
    trec_eval, --format trec and --dialect ir_measures gave another AP (the scores compared as double,
    trec_eval 10.0's rule, which --ties trec_eval keeps)."""
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 0.8341234502, "b": 0.8341234501, "c": 0.1}}  # a above b, equal as float32
    assert np.float32(run["q"]["a"]) == np.float32(run["q"]["b"])
    qf, rf = _write(tmp_path, qrels, run)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["q"]["map"]
    assert theirs == 0.5  # b ranked first: its id is greater
    assert _json([qf, rf, "-m", "map", "--dialect", "trec_eval"], capsys) == {"map": theirs}
    assert _json([qf, rf, "-m", "AP", "--dialect", "ir_measures"], capsys) == {"AP": theirs}
    assert trec.evaluate(qf, rf, measures="map", dialect="trec_eval")["MAP"] == theirs
    code, out, _ = run_cli(["trec", qf, rf, "-m", "map", "--format", "trec"], capsys)
    assert code == 0 and out == "map                   \tall\t0.5000\n"
    assert _json([qf, rf, "-m", "map", "--ties", "trec_eval"], capsys) == {"map": 1.0}  # as written


def test_runs_evaluated_under_other_rules_each_show_their_signature(tmp_path, capsys):
    """Under --dialect ranx a run that leaves out judged queries is sorted twice (ranx needs
    make_comparable=True for it), a run answering every judged query once: the table says each run's
    rules, not the baseline's alone."""
    qrels, run = _case(9, every_query=True)
    qf, full = _write(tmp_path, qrels, run)
    short = tmp_path / "short.run"
    short.write_text(
        "".join(f"{q} Q0 {d} 1 {s} short\n" for q, docs in run.items() if q != "q05" for d, s in docs.items())
    )
    code, out, _ = run_cli(["trec", qf, full, str(short), "-m", "map", "--dialect", "ranx"], capsys)
    assert code == 0
    sigs = [line.split("|", 2) for line in out.splitlines() if line.startswith("signature")]
    assert [(head.split(":")[0], ties) for head, ties, _ in sigs] == [
        ("signature of sys", "ties:dialect=ranx"),
        ("signature of short", "ties:dialect=ranx:sorts=2"),
    ]
