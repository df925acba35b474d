"""The `perfeval trec` command: TREC files in, trec_eval's numbers out (checked against pytrec_eval),
every output format, comparisons with their p-values, and one test per kind of bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from perfeval import trec
from perfeval.stats import paired

pytrec_eval = pytest.importorskip("pytrec_eval")

NAMES = ["map", "ndcg_cut_10", "P_5", "recall_100", "recip_rank", "Rprec", "bpref", "success_10"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Judgments on 40 queries (graded, some queries unanswered) and three runs without ties."""
    d = tmp_path_factory.mktemp("trec")
    rng = np.random.default_rng(11)
    qrels: dict = {}
    lines = []
    for q in range(40):
        qid = f"{q + 301}"
        qrels[qid] = {}
        for doc in rng.choice(300, 25, replace=False):
            rel = int(rng.integers(0, 3))
            qrels[qid][f"D{doc}"] = rel
            lines.append(f"{qid} 0 D{doc} {rel}")
    (d / "qrels.txt").write_text("\n".join(lines) + "\n")
    runs = {}
    for name in ("bm25", "rm3", "dense"):
        runs[name] = {}
        out = []
        for q in range(37):  # 3 judged queries unanswered
            qid = f"{q + 301}"
            docs = rng.choice(300, 60, replace=False)
            scores = rng.permutation(60) + rng.random()
            runs[name][qid] = {}
            for rank, i in enumerate(np.argsort(-scores)):
                runs[name][qid][f"D{docs[i]}"] = float(scores[i])
                out.append(f"{qid} Q0 D{docs[i]} {rank + 1} {float(scores[i])!r} {name}")
        (d / f"{name}.run").write_text("\n".join(out) + "\n")
    return d, qrels, runs


def _trec_eval(qrels, run):
    fams = {"map", "ndcg_cut.10", "P.5", "recall.100", "recip_rank", "Rprec", "bpref", "success.10"}
    per = pytrec_eval.RelevanceEvaluator(qrels, fams).evaluate(run)
    return {n: {q: per.get(q, {}).get(n, 0.0) for q in qrels} for n in NAMES}  # -c: unanswered 0


def test_one_run_equals_trec_eval(files, capsys):
    d, qrels, runs = files
    code, out, err = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", ",".join(NAMES)], capsys
    )
    # the run leaves out 3 judged queries: perfeval's mean counts them 0 (trec_eval -c), and says so
    assert code == 0 and err == (
        "perfeval: note: perfeval gives the mean over every judged query, the unanswered ones 0 (as "
        "trec_eval -c; --queries run leaves them out, as trec_eval without -c); judged queries answered: "
        "bm25 37 of 40\n"
    )
    head, row = out.splitlines()[:2]
    assert head.split() == ["run", *NAMES] and row.split()[0] == "bm25"
    expected = _trec_eval(qrels, runs["bm25"])
    for name, cell in zip(NAMES, row.split()[1:], strict=True):
        assert float(cell) == pytest.approx(np.mean(list(expected[name].values())), abs=5e-7), name
    assert out.splitlines()[2].startswith("signature: perfeval:") and "ties:perfeval" in out


def test_per_query_in_trec_evals_layout(files, capsys):
    d, qrels, runs = files
    code, out, _ = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "rm3.run"), "-m", "map,P_5,bpref", "-q", "--format", "trec"]
        + ["--queries", "qrels"],
        capsys,
    )
    assert code == 0
    expected = _trec_eval(qrels, runs["rm3"])
    seen = 0
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        name = name.strip()
        want = np.mean(list(expected[name].values())) if qid == "all" else expected[name][qid]
        assert float(value) == pytest.approx(want, abs=5e-5), (name, qid)
        seen += 1
    assert seen == 3 * (40 + 1)  # every judged query (unanswered ones 0), then "all"
    assert out.splitlines()[-1].startswith(
        "P_5                   \tall\t"
    )  # trec_eval's order: P after bpref


def test_json_one_run_maps_names_as_written(files, capsys):
    d, qrels, runs = files
    code, out, _ = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "map,nDCG@10,ndcg@10", "--format", "json"],
        capsys,
    )
    body = json.loads(out)
    assert list(body) == ["map", "nDCG@10", "ndcg@10"]
    r = trec.evaluate(str(d / "qrels.txt"), str(d / "bm25.run"), measures="map,nDCG@10,ndcg@10")
    assert body["nDCG@10"] == r["NDCG@10:gain=linear"] and body["ndcg@10"] == r["NDCG@10"]
    assert body["nDCG@10"] != body["ndcg@10"]  # graded judgments: linear and exponential gain differ


def test_several_runs_tested_against_the_baseline_with_holm(files, capsys):
    d, qrels, runs = files
    paths = [str(d / f"{n}.run") for n in ("bm25", "rm3", "dense")]
    code, out, _ = run_cli(
        ["trec", str(d / "qrels.txt"), *paths, "-m", "map,P_5", "--format", "json"], capsys
    )
    body = json.loads(out)
    assert list(body) == ["bm25", "rm3", "dense"] and "p_values" not in body["bm25"]
    c = trec.compare(str(d / "qrels.txt"), paths, measures="map,P_5")
    raw = {
        n: paired.paired_t_test(
            c.reports[n].results["MAP"].per_group, c.reports["bm25"].results["MAP"].per_group
        )
        for n in ("rm3", "dense")
    }
    holm = paired.correct([raw["rm3"], raw["dense"]], method="holm")
    assert body["rm3"]["p_values"]["map"] == pytest.approx(holm[0], abs=1e-15)
    assert body["dense"]["p_values"]["map"] == pytest.approx(holm[1], abs=1e-15)
    code, out, _ = run_cli(
        ["trec", str(d / "qrels.txt"), *paths, "-m", "map", "--baseline", "dense", "--test", "bootstrap"],
        capsys,
    )
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("dense") and "better/worse than dense" in out
    assert "paired bootstrap, 10000 resamples, seed 0, holm-corrected over 2 runs" in out


def test_a_significant_difference_is_marked(tmp_path, capsys):
    qrels = "".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(30))
    good = "".join(f"q{i} Q0 a 1 2 good\nq{i} Q0 b 2 1 good\n" for i in range(30))
    bad = "".join(f"q{i} Q0 b 1 2 bad\nq{i} Q0 a 2 1 bad\n" for i in range(30))
    for name, text in (("qrels", qrels), ("good", good), ("bad", bad)):
        (tmp_path / name).write_text(text)
    code, out, _ = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "bad"), str(tmp_path / "good"), "-m", "map"], capsys
    )
    assert code == 0 and out.splitlines()[2].split() == ["good", "1.000000+"]
    _, md, _ = run_cli(
        [
            "trec",
            str(tmp_path / "qrels"),
            str(tmp_path / "bad"),
            str(tmp_path / "good"),
            "-m",
            "map",
            "--format",
            "markdown",
        ],
        capsys,
    )
    assert "| good | **1.0000**<sup>+</sup> |" in md
    _, tex, _ = run_cli(
        [
            "trec",
            str(tmp_path / "qrels"),
            str(tmp_path / "bad"),
            str(tmp_path / "good"),
            "-m",
            "P_1",
            "--format",
            "latex",
        ],
        capsys,
    )
    assert "Run & P\\_1 \\\\" in tex and "good & \\textbf{1.0000}$^{+}$ \\\\" in tex
    # a resampling test that no resample beat says p < 1 / resamples, not a number it did not find
    for test, resamples in (("randomization", "1000"), ("bootstrap", "500")):
        _, text, _ = run_cli(
            ["trec", str(tmp_path / "qrels"), str(tmp_path / "bad"), str(tmp_path / "good"), "-m", "map"]
            + ["--test", test, "--n-resamples", resamples],
            capsys,
        )
        assert text.splitlines()[-1].split() == ["good", f"<{1 / int(resamples):.4g}"]
        assert "<1e-300" not in text


def test_csv_per_query_reads_back(files, capsys):
    d, _, _ = files
    code, out, _ = run_cli(
        [
            "trec",
            str(d / "qrels.txt"),
            str(d / "bm25.run"),
            str(d / "rm3.run"),
            "-m",
            "map,P_5",
            "-q",
            "--format",
            "csv",
        ],
        capsys,
    )
    lines = out.splitlines()
    assert lines[0] == "run,query,map,P_5" and len(lines) == 1 + 2 * 40
    # each value at full precision, as the means (it was rounded to six decimals): the JSON's doubles
    _, js, _ = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "map", "-q", "--format", "json"], capsys
    )
    per_query = json.loads(js)["map"]["per_query"]
    got = {f[1]: float(f[2]) for f in (line.split(",") for line in lines[1:]) if f[0] == "bm25"}
    assert got == per_query and any(len(f"{v:.6f}") < len(repr(v)) for v in got.values())


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["-m", "roc"], 2, "not a per-query ranking measure"),
        (["-m", "ndcg_cut_x"], 2, "unknown measure"),
        (["--baseline", "nope"], 2, "baseline 'nope' is not a run"),
        (["--level", "0"], 2, "level=0.0"),
    ],
)
def test_bad_requests_are_one_line(files, capsys, argv, status, message):
    d, _, _ = files
    code, out, err = run_cli(["trec", str(d / "qrels.txt"), str(d / "bm25.run"), *argv], capsys)
    assert code == status and out == "" and message in err and len(err.splitlines()) == 1


def test_bad_files_are_one_line_naming_the_line(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 0.5 x\n")
    code, _, err = run_cli(["trec", str(tmp_path / "qrels"), str(tmp_path / "run")], capsys)
    assert code == 1 and "line 2" in err and "expected 4 fields" in err and len(err.splitlines()) == 1
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    code, _, err = run_cli(["trec", str(tmp_path / "qrels"), str(tmp_path / "missing")], capsys)
    assert code == 1 and "missing" in err and len(err.splitlines()) == 1
    (tmp_path / "run2").write_text("q9 Q0 a 1 0.5 x\n")
    code, _, err = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "run2"), "--queries", "run"], capsys
    )
    assert code == 1 and "answers no judged query" in err
    code, _, err = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "run2"), str(tmp_path / "run2")], capsys
    )
    assert code == 2 and "both named" in err


def test_a_misspelt_tool_name_gets_the_tools_spelling_suggested(files, capsys):
    d, _, _ = files
    code, _, err = run_cli(["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "ndcg_cut10"], capsys)
    assert code == 2 and "did you mean 'ndcg_cut_10'?" in err


def test_tables_in_any_format_give_the_numbers_of_the_trec_files(files, tmp_path, capsys):
    """qrels and runs as CSV (pandas-written, integer query ids), Parquet, a headed TSV and JSON
    lines, with their usual column names or named by --columns; the numbers of the TREC files."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    d, qrels, runs = files
    q = pd.DataFrame(
        [(int(qid), doc, rel) for qid, docs in qrels.items() for doc, rel in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    r = pd.DataFrame(
        [(int(qid), doc, s) for qid, docs in runs["bm25"].items() for doc, s in docs.items()],
        columns=["who", "what", "how"],
    )
    q.to_csv(tmp_path / "qrels.csv", index=False)
    q.to_csv(tmp_path / "qrels.tsv", index=False, sep="\t")
    r.to_parquet(tmp_path / "bm25.parquet")
    r.to_json(tmp_path / "bm25.jsonl", orient="records", lines=True)
    _, want, _ = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "map,P_5", "--format", "json"], capsys
    )
    for qf, rf in (("qrels.csv", "bm25.parquet"), ("qrels.tsv", "bm25.jsonl")):
        argv = ["trec", str(tmp_path / qf), str(tmp_path / rf), "-m", "map,P_5", "--format", "json"]
        code, out, err = run_cli([*argv, "--run-columns", "qid=who,docid=what,score=how"], capsys)
        assert code == 0 and json.loads(out) == json.loads(want), (qf, rf, err)
    code, _, err = run_cli(["trec", str(tmp_path / "qrels.csv"), str(tmp_path / "bm25.parquet")], capsys)
    assert code == 2 and "no qid column (columns: who, what, how" in err


def test_two_usual_names_of_one_role_are_not_guessed(files, tmp_path, capsys):
    """A recommender's log (user_id, item_id, click, score) given as judgments and run: its click and
    its model's score are both usual names of the relevance; the score was taken as the relevance
    (every positive score relevant), silently.  Now an error naming both; the role's own name wins."""
    d, _, _ = files
    log = tmp_path / "log.csv"
    log.write_text("user_id,item_id,click,score\n1,a,0,0.9\n1,b,1,0.4\n1,c,0,0.2\n2,a,1,0.7\n2,b,0,0.3\n")
    code, out, err = run_cli(["trec", str(log), str(log), "-m", "map"], capsys)
    assert code == 2 and out == ""
    assert "log.csv: 2 columns could be the rel column: click, score" in err and "--qrels-columns" in err
    code, out, err = run_cli(
        ["trec", str(log), str(log), "-m", "map", "--qrels-columns", "rel=click", "--format", "json"], capsys
    )
    assert code == 0 and json.loads(out) == {"map": (1 / 2 + 1) / 2}, err
    named = tmp_path / "named.csv"  # rel is the role's own name: taken beside grade and score
    named.write_text("qid,docid,grade,rel,score\n1,a,2,0,0.9\n1,b,0,1,0.4\n")
    code, out, err = run_cli(["trec", str(named), str(named), "-m", "map", "--format", "json"], capsys)
    assert code == 0 and json.loads(out) == {"map": 0.5}, err


def test_dataframes_and_pyarrow_tables_in_the_library(files):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    _, qrels, runs = files
    want = trec.evaluate(qrels, runs["rm3"], measures="map,ndcg_cut_10,bpref")
    q = pd.DataFrame(
        [(k, doc, v) for k, ds in qrels.items() for doc, v in ds.items()], columns=["qid", "docid", "rel"]
    )
    r = pd.DataFrame(
        [(k, doc, v) for k, ds in runs["rm3"].items() for doc, v in ds.items()],
        columns=["qid", "docid", "score"],
    )
    for qq, rr in (
        (q, r),
        (pa.Table.from_pandas(q), pa.Table.from_pandas(r)),
        (pl.from_pandas(q), pl.from_pandas(r)),
    ):
        got = trec.evaluate(qq, rr, measures="map,ndcg_cut_10,bpref")
        assert {k: v.value for k, v in got.results.items()} == {k: v.value for k, v in want.results.items()}


@pytest.mark.parametrize(
    ("qid", "message"),
    [([301.5, 302.0], "holds the float 301.5"), ([None, "a"], "every case needs")],
)
def test_an_id_column_is_never_a_float_or_missing(qid, message):
    pd = pytest.importorskip("pandas")
    q = pd.DataFrame({"qid": qid, "docid": ["x", "y"], "rel": [1, 0]})
    with pytest.raises(Exception, match=message):
        trec.evaluate(q, {"a": {"x": 1.0}}, measures="map")


def test_a_pair_twice_in_a_table_names_its_rows():
    q = {"qid": ["a", "a", "a"], "docid": ["x", "y", "x"], "rel": [1, 0, 1]}
    with pytest.raises(Exception, match=r"document 'x' is given twice \(rows 1 and 3\)"):
        trec.evaluate(q, {"a": {"x": 1.0}}, measures="map")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-m", "NDCG"], "'NDCG' is ambiguous here"),
        (["-m", "P_0"], "trec_eval's cut-offs are positive"),
        (["-m", "nDCG@0"], "ir_measures's cut-offs are positive"),
        (["-m", ""], "no measure named"),
    ],
)
def test_names_that_would_mislead_are_refused(files, capsys, argv, message):
    d, _, _ = files
    code, out, err = run_cli(["trec", str(d / "qrels.txt"), str(d / "bm25.run"), *argv], capsys)
    assert code == 2 and out == "" and message in err


def test_ir_measures_ndcg_is_trec_evals_ndcg(files, capsys):
    """ir_measures' nDCG (listed in docs/ranking.md) is the linear-gain NDCG, trec_eval's ndcg: it
    was refused as ambiguous along with NDCG."""
    d, qrels, runs = files
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(runs["bm25"])
    code, out, err = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "nDCG", "-q", "--format", "json"], capsys
    )
    assert code == 0, err
    got = json.loads(out)["nDCG"]["per_query"]
    assert got.keys() == qrels.keys()
    assert all(abs(got[q] - want.get(q, {"ndcg": 0.0})["ndcg"]) < 1e-12 for q in qrels)


def test_standard_input_once_and_an_empty_run_warned(files, tmp_path, capsys):
    d, _, _ = files
    code, _, err = run_cli(["trec", str(d / "qrels.txt"), "-", "-"], capsys)
    assert code == 2 and "standard input (-) can be read once" in err
    (tmp_path / "empty.run").write_text("")
    code, _, err = run_cli(["trec", str(d / "qrels.txt"), str(tmp_path / "empty.run"), "-m", "map"], capsys)
    assert code == 0 and "ranks no document" in err


def test_library_and_command_default_to_the_same_measures(files, capsys):
    d, _, _ = files
    _, out, _ = run_cli(["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "--format", "json"], capsys)
    r = trec.evaluate(str(d / "qrels.txt"), str(d / "bm25.run"))
    assert list(json.loads(out)) == list(trec.DEFAULT) and len(r.results) == len(trec.DEFAULT)
    assert json.loads(out)["ndcg_cut_10"] == r["NDCG@10:gain=linear"]


def test_trec_layout_prints_trec_evals_names_and_latex_escapes(files, capsys):
    d, _, _ = files
    _, out, _ = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "P.5", "--format", "trec"], capsys
    )
    assert out.startswith("P_5                   \tall\t")
    from perfeval.cli.commands.trec import _latex

    assert _latex("a|b<c>_d") == "a\\textbar{}b\\textless{}c\\textgreater{}\\_d"


#: a small case and what trec_eval 10.0 (and 9.0.8 where said) printed for it, byte for byte (recorded
#: by tests/oracles/make_trec_eval_fixture.py, case "small"; tests/test_trec_eval_binary.py), with
#: -m ndcg_cut.10 -m P.5 -m map -m bpref: judged queries 9, 10 and A (A unanswered), a run query Z
#: without judgments, a negative judgment, an unretrieved relevant document, and a tie in query 9
#: (d2 and d3 at 1.5, which trec_eval orders d3 first)
_SMALL_QRELS = "9 0 d1 2\n9 0 d2 0\n9 0 d3 1\n9 0 d4 -1\n10 0 d1 1\n10 0 d5 3\nA 0 d2 1\n"
_SMALL_RUN = (
    "9 Q0 d1 1 2.0 sys\n9 Q0 d2 2 1.5 sys\n9 Q0 d3 3 1.5 sys\n"
    "10 Q0 d5 1 1.0 sys\n10 Q0 d9 2 0.5 sys\nZ Q0 d1 1 1.0 sys\n"
)
_Q10 = (
    "map                   \t10\t0.5000\n"
    "bpref                 \t10\t0.5000\n"
    "P_5                   \t10\t0.2000\n"
    "ndcg_cut_10           \t10\t0.8262\n"
)
_Q9 = (
    "map                   \t9\t1.0000\n"
    "bpref                 \t9\t1.0000\n"
    "P_5                   \t9\t0.4000\n"
    "ndcg_cut_10           \t9\t1.0000\n"
)
_QA = (
    "map                   \tA\t0.0000\n"
    "bpref                 \tA\t0.0000\n"
    "P_5                   \tA\t0.0000\n"
    "ndcg_cut_10           \tA\t0.0000\n"
)
_ALL_C = (
    "map                   \tall\t0.5000\n"
    "bpref                 \tall\t0.5000\n"
    "P_5                   \tall\t0.2000\n"
    "ndcg_cut_10           \tall\t0.6087\n"
)
_ALL_RUN = (
    "map                   \tall\t0.7500\n"
    "bpref                 \tall\t0.7500\n"
    "P_5                   \tall\t0.3000\n"
    "ndcg_cut_10           \tall\t0.9131\n"
)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # trec_eval 10.0 -q -c (9.0.8 -q -c leaves out the lines of A)
        (["-q", "--queries", "qrels"], _Q10 + _Q9 + _QA + _ALL_C),
        (["--queries", "qrels"], _ALL_C),  # trec_eval -c
        (["-q"], _Q10 + _Q9 + _ALL_RUN),  # trec_eval 9.0.8 -q (10.0 stops at query A)
        (["-q", "--queries", "run"], _Q10 + _Q9 + _ALL_RUN),
        (["--queries", "run"], _ALL_RUN),  # trec_eval 9.0.8
        ([], _ALL_RUN),
    ],
)
def test_trec_layout_is_what_trec_eval_prints(tmp_path, capsys, argv, expected):
    """Queries in byte order (10, 9, A), each query's measures in trec_eval's order (not -m's),
    %6.4f, unanswered judged queries with -c, queries without judgments left out."""
    (tmp_path / "qrels").write_text(_SMALL_QRELS)
    (tmp_path / "run").write_text(_SMALL_RUN)
    code, out, err = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "run"), "--format", "trec", "--ties", "trec_eval"]
        + ["-m", "ndcg_cut_10,P.5,map,bpref", *argv],
        capsys,
    )
    assert code == 0 and out == expected and "('Z')" in err


def test_trec_layout_of_two_runs_is_trec_evals_with_runid(tmp_path, capsys):
    """Each run's block as ``trec_eval -q -c -m runid -m ...`` prints it: runid first of the ``all``
    lines; a measure trec_eval does not name (perfeval's ``p@1``, printed as asked) after trec_eval's."""
    (tmp_path / "qrels").write_text(_SMALL_QRELS)
    (tmp_path / "run").write_text(_SMALL_RUN)
    (tmp_path / "run2").write_text(_SMALL_RUN.replace(" 2.0 ", " 0.1 ").replace(" sys", " other"))
    code, out, _ = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "run"), str(tmp_path / "run2"), "--format", "trec"]
        + ["--ties", "trec_eval", "-m", "p@1,ndcg_cut_10,P.5,map,bpref", "--test", "none", "-q"]
        + ["--queries", "qrels"],
        capsys,
    )
    other_9 = (
        "map                   \t9\t0.8333\n"
        "bpref                 \t9\t0.5000\n"
        "P_5                   \t9\t0.4000\n"
        "ndcg_cut_10           \t9\t0.7602\n"
    )
    other_all = (
        "runid                 \tall\tother\n"
        "map                   \tall\t0.4444\n"
        "bpref                 \tall\t0.3333\n"
        "P_5                   \tall\t0.2000\n"
        "ndcg_cut_10           \tall\t0.5288\n"
    )
    sys_all = "runid                 \tall\tsys\n" + _ALL_C
    trec_eval = _Q10 + _Q9 + _QA + sys_all + _Q10 + other_9 + _QA + other_all
    lines = out.splitlines(keepends=True)
    assert code == 0 and [x for x in lines if not x.startswith("p@1 ")] == trec_eval.splitlines(keepends=True)
    after = [lines[i - 1].split("\t")[0].strip() for i, x in enumerate(lines) if x.startswith("p@1 ")]
    assert after == ["ndcg_cut_10"] * 2 * 4


def test_markdown_escapes_run_and_measure_names(tmp_path, capsys):
    qrels = "".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(5))
    good = "".join(f"q{i} Q0 a 1 2 run_*1*\nq{i} Q0 b 2 1 run_*1*\n" for i in range(5))
    bad = "".join(f"q{i} Q0 b 1 2 `a|b<c>`\nq{i} Q0 a 2 1 `a|b<c>`\n" for i in range(5))
    for name, text in (("qrels", qrels), ("good", good), ("bad", bad)):
        (tmp_path / name).write_text(text)
    code, md, _ = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "bad"), str(tmp_path / "good"), "-m", "P_1,map"]
        + ["--format", "markdown", "--test", "none"],
        capsys,
    )
    assert code == 0 and md.splitlines() == [
        "| run | P\\_1 | map |",
        "|---|---:|---:|",
        "| \\`a\\|b\\<c\\>\\` | 0.0000 | 0.5000 |",
        "| run\\_\\*1\\* | **1.0000** | **1.0000** |",
    ]
    from perfeval.cli.commands.trec import _markdown

    assert _markdown("a\\b[c]~d&e#f") == "a\\\\b\\[c\\]\\~d\\&e\\#f"


def test_ranx_objects_are_taken_as_they_are(files):
    ranx = pytest.importorskip("ranx")
    _, qrels, runs = files
    want = trec.evaluate(qrels, runs["bm25"], measures="map,P_5")
    got = trec.evaluate(ranx.Qrels(qrels), ranx.Run(runs["bm25"], name="bm25"), measures="map,P_5")
    assert got["MAP"] == want["MAP"] and got["P@5"] == want["P@5"] and got.params["run"] == "bm25"


def test_trec_evals_list_of_cutoffs(files, capsys):
    d, _, _ = files
    code, out, _ = run_cli(
        ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "-m", "P.5,10,ndcg_cut.5,10", "--format", "json"],
        capsys,
    )
    assert code == 0 and list(json.loads(out)) == ["P.5", "P.10", "ndcg_cut.5", "ndcg_cut.10"]
    r = trec.evaluate(str(d / "qrels.txt"), str(d / "bm25.run"), measures="P_10")
    assert json.loads(out)["P.10"] == r["P@10"]


def test_csv_of_several_runs_reads_back_with_pandas(files, capsys):
    pd = pytest.importorskip("pandas")
    import io

    d, _, _ = files
    paths = [str(d / f"{n}.run") for n in ("bm25", "rm3")]
    _, out, _ = run_cli(["trec", str(d / "qrels.txt"), *paths, "-m", "map,P_5", "--format", "csv"], capsys)
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == ["run", "map", "P_5", "map p", "P_5 p"]
    c = trec.compare(str(d / "qrels.txt"), paths, measures="map,P_5")
    assert df["map"].tolist() == [c.reports[n].results["MAP"].value for n in ("bm25", "rm3")]
    assert np.isnan(df["map p"][0]) and df["map p"][1] == c.pvalues["rm3"]["MAP"]


def test_ties_that_move_a_measure_are_said_with_perfevals_rule_only(tmp_path, capsys):
    # q1: d1 and d2 tie, one relevant: the order moves MAP; q2: a tie of two non-relevant documents only
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\nq2 0 d5 0\n")
    (tmp_path / "a.run").write_text(
        "q1 Q0 d1 1 0.5 a\nq1 Q0 d2 2 0.5 a\nq2 Q0 d3 1 0.9 a\nq2 Q0 d4 2 0.1 a\nq2 Q0 d5 3 0.1 a\n"
    )
    (tmp_path / "b.run").write_text(
        "q1 Q0 d1 1 0.9 b\nq1 Q0 d2 2 0.5 b\nq2 Q0 d3 1 0.9 b\nq2 Q0 d4 2 0.1 b\nq2 Q0 d5 3 0.1 b\n"
    )
    qrels, a, b = (str(tmp_path / f) for f in ("qrels", "a.run", "b.run"))
    code, _out, err = run_cli(["trec", qrels, a, b, "-m", "map", "--test", "none"], capsys)
    assert code == 0
    assert "queries with tied scores mixing relevant and non-relevant documents (a 1)" in err
    assert "--dialect trec_eval gives its numbers" in err
    code, _out, err = run_cli(["trec", qrels, a, "-m", "map", "--dialect", "trec_eval"], capsys)
    assert code == 0 and "tied scores" not in err
    code, _out, err = run_cli(["trec", qrels, b, "-m", "map"], capsys)
    assert code == 0 and "tied scores" not in err  # b's only tie holds no relevant document
    assert trec.evaluate(qrels, a, measures="map").params["mixed_tie_queries"] == 1


def test_dialect_sets_the_tools_gain_as_eval_does(files, capsys, tmp_path):
    """`perfeval trec --dialect trec_eval|ranx -m ndcg@10` is the tool's ndcg@10 (linear gain), as
    `perfeval eval --dialect` computes it; it was perfeval's exponential gain with the tool's ties."""
    d, qrels, runs = files
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(runs["bm25"])
    answered = np.mean([v["ndcg_cut_10"] for v in want.values()])  # trec_eval: the answered queries
    every = np.mean([want.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels])  # ranx: unanswered ones 0
    args = ["trec", str(d / "qrels.txt"), str(d / "bm25.run"), "--format", "json"]
    for dialect, te in (("trec_eval", answered), ("ranx", every)):
        code, out, err = run_cli([*args, "-m", "ndcg@10", "--dialect", dialect], capsys)
        assert code == 0, err
        assert json.loads(out) == {"ndcg@10": pytest.approx(te, abs=1e-12)}
    # the same through `perfeval eval --dialect trec_eval` on a table holding every judged document
    (tmp_path / "s.qrels").write_text("q1 0 d1 3\nq1 0 d2 1\nq1 0 d3 0\n")
    (tmp_path / "s.run").write_text("q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d3 3 1 r\n")
    (tmp_path / "s.csv").write_text("q,doc,rel,s\nq1,d1,3,2\nq1,d2,1,3\nq1,d3,0,1\n")
    small = ["trec", str(tmp_path / "s.qrels"), str(tmp_path / "s.run"), "-m", "ndcg@3", "--format", "json"]
    code, out, err = run_cli([*small, "--dialect", "trec_eval"], capsys)
    code2, out2, _ = run_cli(
        ["eval", str(tmp_path / "s.csv"), "--target", "rel", "--score", "s", "--group", "q", "--id", "doc"]
        + ["-m", "ndcg@3", "--dialect", "trec_eval", "--format", "json"],
        capsys,
    )
    assert code == code2 == 0, err
    assert json.loads(out)["ndcg@3"] == json.loads(out2)["measures"]["NDCG@3"]["value"]
    assert json.loads(out)["ndcg@3"] == pytest.approx(0.7967075809905066, abs=1e-15)
    # a gain the tool does not have is refused; ranx has exponential gain too (ndcg_burges)
    code, _, err = run_cli([*args, "-m", "ndcg@10:gain=exp", "--dialect", "trec_eval"], capsys)
    assert code == 2 and "dialect trec_eval computes NDCG@10:gain=exp with gain=linear" in err
    code, out, _ = run_cli([*args, "-m", "ndcg@10:gain=exp", "--dialect", "ranx"], capsys)
    code3, out3, _ = run_cli([*args, "-m", "ndcg@10", "--ties", "ranx"], capsys)
    assert code == code3 == 0 and json.loads(out)["ndcg@10:gain=exp"] == json.loads(out3)["ndcg@10"]


def test_runs_over_other_queries_are_said_with_queries_run(capsys, tmp_path):
    (tmp_path / "m.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d3 1\nq3 0 d1 1\n")
    (tmp_path / "a.run").write_text(
        "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq2 Q0 d1 1 3 a\nq2 Q0 d3 2 2 a\nq3 Q0 d1 1 1 a\n"
    )
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d1 1 3 b\n")
    args = ["trec", str(tmp_path / "m.qrels"), str(tmp_path / "a.run"), str(tmp_path / "b.run"), "-m", "map"]
    code, _, err = run_cli([*args, "--queries", "run"], capsys)
    assert code == 0 and "pairs the queries both runs answer (b 2 and a 3: 2 in both)" in err
    code, _, err = run_cli(args, capsys)  # over the judged queries: the same set for every run
    assert code == 0 and "pairs the queries" not in err


def test_beir_qrels_headers_are_known(capsys, tmp_path):
    """BEIR's qrels TSV: query-id, corpus-id, score (the relevance)."""
    (tmp_path / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td1\t1\n")
    (tmp_path / "r.run").write_text("q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\nq2 Q0 d1 1 3 r\n")
    code, out, err = run_cli(
        ["trec", str(tmp_path / "test.tsv"), str(tmp_path / "r.run"), "-m", "map", "--format", "json"], capsys
    )
    assert code == 0, err
    assert json.loads(out) == {"map": 0.75}


def test_several_runs_corrected_with_benjamini_hochberg_as_statsmodels(tmp_path, capsys):
    """`perfeval trec --correction bh` (as `compare --correction bh`): each run's p-value against the
    baseline, Benjamini-Hochberg-corrected per measure over the runs compared, is statsmodels'
    multipletests(method="fdr_bh") of the raw p-values (run in the oracle venv, or the recorded
    fixture's case when it is absent) and the library's paired.correct(..., "bh")."""
    import subprocess
    from pathlib import Path

    rng = np.random.default_rng(34)
    qrels = []
    for q in range(30):
        for doc in range(12):
            qrels.append(f"q{q} 0 d{doc} {int(doc < 4)}")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    for name, skill in (("base", 0.0), ("a", 0.2), ("b", 0.5), ("c", 0.9), ("d", 0.3)):
        lines = []
        for q in range(30):
            s = rng.random(12) + skill * (np.arange(12) < 4)
            lines += [f"q{q} Q0 d{doc} {r + 1} {s[doc]:.6f} {name}" for r, doc in enumerate(np.argsort(-s))]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    paths = [str(tmp_path / n) for n in ("base", "a", "b", "c", "d")]
    argv = ["trec", str(tmp_path / "qrels"), *paths, "-m", "map,P_5"]
    code, out, err = run_cli([*argv, "--correction", "bh", "--format", "json"], capsys)
    assert code == 0, err
    body = json.loads(out)
    _, holm_out, _ = run_cli([*argv, "--format", "json"], capsys)
    holm = json.loads(holm_out)
    c = trec.compare(str(tmp_path / "qrels"), paths, measures="map,P_5")
    oracle = Path("/tmp/oracle-venv/bin/python")
    for name, label in (("map", "MAP"), ("P_5", "P@5")):
        raw = [c.raw_pvalues[n][label] for n in ("a", "b", "c", "d")]
        got = [body[n]["p_values"][name] for n in ("a", "b", "c", "d")]
        np.testing.assert_array_equal(got, paired.correct(raw, "bh"))
        if oracle.exists():
            code_ = (
                "import json, sys; from statsmodels.stats.multitest import multipletests; "
                "print(json.dumps(multipletests(json.loads(sys.argv[1]), method='fdr_bh')[1].tolist()))"
            )
            res = subprocess.run(
                [str(oracle), "-c", code_, json.dumps(raw)],
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            np.testing.assert_allclose(got, json.loads(res.stdout), rtol=1e-14, atol=0)
        assert [holm[n]["p_values"][name] for n in ("a", "b", "c", "d")] == paired.correct(
            raw, "holm"
        ).tolist()
    assert body["a"]["p_values"]["map"] != holm["a"]["p_values"]["map"]  # not Holm's
    code, out, _ = run_cli([*argv, "--correction", "bh"], capsys)
    assert code == 0 and "bh-corrected over 4 runs" in out
    assert trec.compare(str(tmp_path / "qrels"), paths, measures="map", correction="bh").correction == "bh"
