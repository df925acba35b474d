"""A number the docs show under another tool's name is that tool's number, and the checklist that says
where each claim about another tool is checked names tests that exist.

tests/test_docs_ranking.py runs the docs' checked console blocks and compares perfeval's output; here
each value those blocks (and the docs' tables) print under a tool's name is computed by the tool
itself: scikit-learn, pytrec_eval and ranx live (the test extra), torchmetrics, Keras and Spark from
the fixtures tests/oracles/make_fixtures.py recorded with the real tools.  And
docs/compatibility.md's "What is checked against which tool, and where": each ``tests/...::name`` it
names is a test of that file, and each tool the docs put a number to has a row.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIXTURES = ROOT / "tests" / "oracles" / "fixtures"
BLOCK = re.compile(r"<!-- checked: (?P<dir>[^ ]+) -->\n```console\n(?P<body>.*?)```\n", re.S)

sk = pytest.importorskip("sklearn.metrics")
pytrec_eval = pytest.importorskip("pytrec_eval")
ranx = pytest.importorskip("ranx")


def _block(doc: str, command_start: str) -> list[str]:
    """The output lines of the checked console block of ``doc`` whose command starts so."""
    for m in BLOCK.finditer((DOCS / doc).read_text(encoding="utf-8")):
        lines = m.group("body").splitlines()
        if lines[0].startswith("$ " + command_start):
            return lines[1:]
    raise AssertionError(f"{doc}: no checked block runs {command_start!r}")


def _table(lines: list[str], first: str) -> dict[str, dict[str, float | None]]:
    """The rows of the table whose header line starts with ``first`` (after stripping), until a blank
    line: {row name: {column: value, '-' as None}}."""
    start = next(i for i, x in enumerate(lines) if x.strip().startswith(first) or x.split()[:1] == [first])
    head = lines[start].split()
    cols = head[1:] if head[0] == first else head
    out = {}
    for x in lines[start + 1 :]:
        if not x.strip() or x.startswith("signature:"):
            break
        name, *cells = x.split()
        out[name] = {c: (None if v == "-" else float(v)) for c, v in zip(cols, cells, strict=True)}
    return out


def _explain_table(lines: list[str]) -> dict[str, dict[str, float | None]]:
    cols = lines[0].split()
    out = {}
    for x in lines[1:]:
        if not x.strip():
            break
        name, *cells = x.split()
        out[name] = {c: (None if v == "-" else float(v)) for c, v in zip(cols, cells, strict=True)}
    return out


def _quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


# -- the tie study (docs/dialects.md, docs/examples/dialects/ties.csv) ---------------------------------
def _ties() -> dict[str, tuple[list[str], list[int], list[float]]]:
    out: dict = {}
    for line in (DOCS / "examples" / "dialects" / "ties.csv").read_text().splitlines()[1:]:
        q, doc, rel, score = line.split(",")
        d, r, s = out.setdefault(q, ([], [], []))
        d.append(doc)
        r.append(int(rel))
        s.append(float(score))
    return out


def _tools_on_ties() -> dict[str, dict[str, dict[str, float]]]:
    """{tool: {query: {"NDCG": v, "AP": v}}} computed by each tool (torchmetrics: its fixture)."""
    ties = _ties()
    qrels = {q: dict(zip(d, r, strict=True)) for q, (d, r, _) in ties.items()}
    run = {q: dict(zip(d, s, strict=True)) for q, (d, _, s) in ties.items()}
    out: dict = {"sklearn": {}, "trec_eval": {}, "ranx": {}, "torchmetrics": {}}
    for q, (_, r, s) in ties.items():
        out["sklearn"][q] = {"NDCG": sk.ndcg_score([r], [s]), "AP": _quiet(sk.average_precision_score, r, s)}
    per = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map"}).evaluate(run)
    out["trec_eval"] = {q: {"NDCG": v["ndcg"], "AP": v["map"]} for q, v in per.items()}
    for m, key in (("ndcg", "NDCG"), ("map", "AP")):
        values = _quiet(ranx.evaluate, ranx.Qrels(qrels), ranx.Run(run), m, return_mean=False)
        for q, v in zip(sorted(qrels), values, strict=True):
            out["ranx"].setdefault(q, {})[key] = float(v)
    tm = json.loads((FIXTURES / "torchmetrics.json").read_text())
    for q, (_, r, s) in ties.items():
        funcs = {  # torchmetrics.functional.retrieval on the query alone
            x["measure"]: x["value"]
            for c in tm["cases"]
            if c["y"] == r and c["s"] == s
            for x in c["results"]
            if x["call"].startswith("torchmetrics.functional.retrieval") and x["options"] == {"top_k": None}
        }
        out["torchmetrics"][q] = {"NDCG": funcs["NDCG"], "AP": funcs["MAP"]}
    return out


def test_the_tie_study_table_is_each_tools_number():
    """docs/dialects.md's table of the tie study: each tool's NDCG and AP per query, and what the
    study measured, are the tools' own (sklearn, pytrec_eval, ranx live; 4 decimals)."""
    tools = _tools_on_ties()
    text = (DOCS / "dialects.md").read_text()
    table = text[text.index("| case | tool | NDCG | AP | in the study |") :].split("\n\n")[0].splitlines()[2:]
    cases = {
        "all tied, positive first": "pos_first",
        "all tied, positive last": "pos_last",
        "partial tie": "partial",
    }
    query = None
    rows = 0
    for line in table:
        case, tool, ndcg, ap, study = (c.strip() for c in line.strip("|").split("|"))
        query = cases.get(case, query)
        name = tool.split()[0]
        want = tools[name][query]
        measured = [float(v.split()[-1]) for v in study.split(",")]  # "pytrec_eval 0.4307, 0.2500"
        for shown in (float(ndcg), measured[0]):
            assert shown == round(want["NDCG"], 4), (case, tool)
        for shown in (float(ap), measured[1]):
            assert shown == round(want["AP"], 4), (case, tool)
        rows += 1
    assert rows == 9
    # torchmetrics (its fixture): NDCG as scikit-learn's; its retrieval AP of the all-tied queries
    tm = tools["torchmetrics"]
    assert [round(tm[q]["NDCG"], 4) for q in ("pos_first", "pos_last", "partial")] == [0.6404, 0.6404, 0.6108]
    assert [round(tm[q]["AP"], 4) for q in ("pos_first", "pos_last")] == [0.3333, 0.5]
    assert "(tie-averaged: 0.6404, 0.6404, 0.6108)" in text and "(0.3333 and 0.5 for the two all-tied" in text


@pytest.mark.parametrize("dialect", ["sklearn", "trec_eval", "ranx"])
def test_the_tie_study_per_group_tables_are_the_tools(dialect):
    tools = _tools_on_ties()[dialect]
    measures = "ndcg,ap" if dialect == "sklearn" else "ndcg,map"
    ids = "--id doc " if dialect == "trec_eval" else ""  # the one dialect here that reads ids
    lines = _block(
        "dialects.md",
        f"perfeval eval ties.csv --target rel --score score --group query {ids}-m {measures} "
        f"--dialect {dialect}",
    )
    per = _table(lines, "group")
    assert set(per) == set(tools)
    for q, row in per.items():
        for col, v in row.items():
            key = "NDCG" if col.startswith("NDCG") else "AP"
            assert v == round(tools[q][key], 6), (dialect, q, col)
    summary = _table(lines, "measure")
    for col, row in summary.items():
        key = "NDCG" if col.startswith("NDCG") else "AP"
        assert row["value"] == round(float(np.mean([t[key] for t in tools.values()])), 6), (dialect, col)


def test_explain_of_the_tie_study_is_each_tools_mean():
    tools = _tools_on_ties()
    lines = _block("dialects.md", "perfeval explain ties.csv")
    table = _explain_table(lines)
    for tool in ("sklearn", "trec_eval", "ranx", "torchmetrics"):
        for col, v in table[tool].items():
            if v is None:
                continue
            key = "NDCG" if col == "NDCG" else "AP"
            assert v == round(float(np.mean([t[key] for t in tools[tool].values()])), 4), (tool, col)
    assert table["sklearn"]["MAP"] is None and table["torchmetrics"]["MAP"] is None


# -- the binning tools on clicks.csv (docs/dialects.md) -------------------------------------------------
def test_explain_of_the_binning_tools_is_each_tools_number():
    """sklearn live; torchmetrics (thresholds=200), Keras (200 thresholds) and Spark (numBins 1000) from
    tests/oracles/fixtures/docs_examples.json, which the tools wrote on this very file."""
    lines = _block("dialects.md", "perfeval explain clicks.csv")
    table = _explain_table(lines)
    rows = np.loadtxt(DOCS / "examples" / "dialects" / "clicks.csv", delimiter=",", skiprows=1)
    y, s = rows[:, 0].astype(int), rows[:, 1]
    assert table["sklearn"] == {
        "ROC": round(sk.roc_auc_score(y, s), 4),
        "AP": round(sk.average_precision_score(y, s), 4),
    }
    fx = json.loads((FIXTURES / "docs_examples.json").read_text())
    (case,) = fx["cases"]
    assert case["y"] == y.tolist() and case["s"] == s.tolist()  # the tools ran on this file
    got: dict = {}
    for r in case["results"]:
        call, m = r["call"], r["measure"]
        if call.startswith("torchmetrics") and r["options"] == {"thresholds": 200, "preds_dtype": "float64"}:
            got.setdefault("torchmetrics:thresholds=200", {})[m] = r["value"]
        elif call.startswith("keras"):
            got.setdefault("keras", {})[m] = r["value"]
        elif call.startswith("pyspark") and "numBins" not in r["options"]:
            got.setdefault("spark", {})[m] = r["value"]
    assert set(got) == {"torchmetrics:thresholds=200", "keras", "spark"}
    for tool, values in got.items():
        assert table[tool] == {m: round(v, 4) for m, v in values.items()}, tool


# -- judgments and runs (docs/dialects.md, docs/ranking.md, docs/examples/ranking) -----------------------
def _ranking_files(run: str = "bm25.run") -> tuple[dict, dict]:
    d = DOCS / "examples" / "ranking"
    qrels: dict = {}
    for line in (d / "qrels.txt").read_text().splitlines():
        q, _, doc, rel = line.split()
        qrels.setdefault(q, {})[doc] = int(rel)
    runs: dict = {}
    for line in (d / run).read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        runs.setdefault(q, {})[doc] = float(score)
    return qrels, runs


def test_explain_of_a_run_is_pytrec_evals_and_ranxs_number():
    qrels, run = _ranking_files()
    table = _explain_table(_block("dialects.md", "perfeval explain qrels.txt bm25.run"))
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "bpref"}).evaluate(run)
    names = {"map": "map", "ndcg@10": "ndcg_cut_10", "P_10": "P_10", "bpref": "bpref"}
    for col, name in names.items():
        assert table["trec_eval"][col] == round(sum(v[name] for v in per.values()) / len(per), 4), col
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["map", "ndcg@10", "precision@10"])
    assert table["ranx"] == {
        "map": round(theirs["map"], 4),
        "ndcg@10": round(theirs["ndcg@10"], 4),
        "P_10": round(theirs["precision@10"], 4),
        "bpref": None,
    }


def test_ranking_md_quotes_pytrec_evals_numbers():
    """ "the numbers are pytrec_eval's: map 0.4531956163725221, ndcg_cut_10 0.5347754162020518, P_10 0.5"
    (the mean of its values over the queries, in their order)."""
    qrels, run = _ranking_files()
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10"}).evaluate(run)
    means = {m: sum(v[m] for v in per.values()) / len(per) for m in ("map", "ndcg_cut_10", "P_10")}
    text = (DOCS / "ranking.md").read_text()
    quoted = re.search(
        r"pytrec_eval's: map ([0-9.]+), ndcg_cut_10 ([0-9.]+), P_10 ([0-9.]+) there", text.replace("\n", " ")
    )
    assert quoted is not None
    assert [float(v) for v in quoted.groups()] == [means["map"], means["ndcg_cut_10"], means["P_10"]]
    shown = json.loads(
        "".join(
            _block("ranking.md", "perfeval trec qrels.txt bm25.run -m map,ndcg_cut_10,P_10 --ties trec_eval")
        )
    )
    assert shown["map"] == pytest.approx(means["map"], abs=1e-15) and shown["P_10"] == means["P_10"]
    assert shown["ndcg_cut_10"] == means["ndcg_cut_10"]


def test_metric_md_trec_eval_example_is_pytrec_evals_number():
    """docs/metric.md's Metric(dialect="trec_eval") example prints {'MAP': 0.6826, 'NDCG@10': 0.4804}:
    pytrec_eval's on the same rows (document ids as given)."""
    rng = np.random.default_rng(1)
    n = 4000
    query = rng.integers(0, 50, n)
    doc = np.array([f"d{i}" for i in rng.permutation(n)])
    rel = rng.integers(0, 3, n)
    score = np.round(rng.random(n), 1)
    qrels, run = {}, {}
    for q, d, r, s in zip(query.tolist(), doc.tolist(), rel.tolist(), score.tolist(), strict=True):
        qrels.setdefault(str(q), {})[d] = r
        run.setdefault(str(q), {})[d] = s
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(run)
    got = {"MAP": round(float(np.mean([v["map"] for v in per.values()])), 4)}
    got["NDCG@10"] = round(float(np.mean([v["ndcg_cut_10"] for v in per.values()])), 4)
    assert str(got) in (DOCS / "metric.md").read_text()


# -- the checklist (docs/compatibility.md) and the versions (docs/dialects.md) ---------------------------
SECTION = "## What is checked against which tool, and where"

#: each dialect (and ir_measures') -> how the checklist's tool column names its tool
DIALECT_TOOLS = {
    "perf": "PERF 5.12",
    "sklearn": "scikit-learn",
    "trec_eval": "trec_eval",
    "ranx": "ranx",
    "ir_measures": "ir_measures",
    "torchmetrics": "torchmetrics",
    "netcal": "netcal",
    "spark": "Spark",
    "keras": "Keras",
    "din": "DIN",
}


def _checklist() -> str:
    text = (DOCS / "compatibility.md").read_text(encoding="utf-8")
    return text[text.index(SECTION) :]


def test_the_checklist_names_tests_that_exist():
    """Every ``tests/FILE.py::NAME`` of the checklist is a test function of that file; every fixture
    of tests/oracles/fixtures is named with the script that made it, which exists; every tool
    perfeval has a dialect for has a row."""
    import ast

    from perfeval.dialects.table import DIALECTS, IR_MEASURES

    section = _checklist()
    refs = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", section)
    assert len(refs) >= 90, len(refs)
    defined: dict[str, set[str]] = {}
    for path, name in refs:
        if path not in defined:
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            defined[path] = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name.startswith("test_") and name in defined[path], f"{path}::{name} is no test"
    for path in re.findall(r"`(tests/[\w/]+\.py)`", section):
        assert (ROOT / path).exists(), path
    scripts = {"r_write_csv.csv": "make_r_csv.R", "torchmetrics_multiclass.md": "make_fixtures.py"}
    for f in sorted(FIXTURES.iterdir()):
        assert f"`{f.name}`" in section, f"the checklist does not name the fixture {f.name}"
        script = scripts.get(f.name) or json.loads(f.read_text())["generated_by"].removeprefix(
            "tests/oracles/"
        )
        assert (ROOT / "tests" / "oracles" / script).exists(), script
        assert f"`{f.name}` (`{script}" in section, f"{f.name}: its script {script} is not named beside it"
    tools = [row.split("|")[2] for row in section.splitlines() if row.startswith("| ") and "`tests/" in row]
    for name in [*DIALECTS, IR_MEASURES.name]:
        if name != "perfeval":
            assert any(DIALECT_TOOLS[name] in t for t in tools), f"no row for {name}'s tool"


def test_the_versions_dialects_md_names_are_those_checked():
    """docs/dialects.md's "tool, version checked" column, the dialects' own version strings, and the
    versions the tests run (installed) or the fixtures were made with."""
    import importlib.metadata

    import ir_measures
    import sklearn

    from perfeval.dialects.table import DIALECTS, IR_MEASURES

    text = (DOCS / "dialects.md").read_text()
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(
            r"^\| `(\w+)` \| ([^|]+) \|", text.split("## The dialects")[1].split("##")[0], re.M
        )
    }

    def fixture(name: str) -> str:
        return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))["version"]

    checked = {
        "sklearn": (sklearn.__version__, "scikit-learn {}"),
        "ranx": (importlib.metadata.version("ranx"), "ranx {}"),
        "ir_measures": (ir_measures.__version__, "ir_measures {} (with pytrec_eval 0.5)"),
        "torchmetrics": (fixture("torchmetrics"), "torchmetrics {}"),
        "spark": (fixture("spark"), "Apache Spark {}"),
        "keras": (fixture("keras"), "Keras {}"),
    }
    for name, (version, form) in checked.items():
        shown = DIALECTS[name].version if name != "ir_measures" else IR_MEASURES.version.split()[0]
        assert version.startswith(shown), (name, version, shown)  # the dialect's version string
        assert rows[name].startswith(form.format(shown)), (name, rows[name])
    assert importlib.metadata.version("pytrec_eval-terrier").startswith("0.5")
    builds = {b["tag"] for b in json.loads((FIXTURES / "trec_eval.json").read_text())["builds"]}
    assert {"v10.0", "v9.0.8"} <= builds and rows["trec_eval"].startswith(
        "trec_eval 9.0.8 / 10.0 (and pytrec_eval 0.5"
    )
    assert DIALECTS["trec_eval"].version == "9.0.8 / 10.0 (pytrec_eval 0.5)"
    din = fixture("din")
    assert DIALECTS["din"].version.endswith("@" + din[:7]) and din[:7] in rows["din"]
