"""``perfeval.explain`` and ``perfeval explain``: every dialect's value, and the rules (with what they
touched) that separate it from perfeval's; ``perfeval eval --dialect``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main

ROWS = [  # qid, doc, rel, score: the ANCHORS 3.4 "all tied, positive first" and "partial tie" queries
    (1, "d0", 1, 0.5),
    (1, "d1", 0, 0.5),
    (1, "d2", 0, 0.5),
    (1, "d3", 0, 0.5),
    (2, "d0", 0, 0.9),
    (2, "d1", 1, 0.7),
    (2, "d2", 0, 0.7),
    (2, "d3", 1, 0.3),
    (2, "d4", 0, 0.1),
]


def _cols():
    g, ids, y, s = (np.array(c) for c in zip(*ROWS, strict=True))
    return g, ids, y, s


def test_explain_table_values_and_rules():
    g, ids, y, s = _cols()
    e = perfeval.explain(
        y, s, groups=g, ids=ids, measures="ndcg,map", dialects="sklearn,trec_eval,ranx,torchmetrics"
    )
    assert e.dialects == ["perfeval", "sklearn", "trec_eval", "ranx", "torchmetrics"]
    for d in e.dialects:  # each value is the dialect's own evaluate()
        for m in ("NDCG", "MAP"):
            c = e.cells[d][m]
            if math.isnan(c.value):
                continue
            read = ids if d == "trec_eval" else None  # the one dialect here that reads ids
            r = perfeval.evaluate(y, s, groups=g, ids=read, measures=[m.lower()], dialect=d)
            assert c.value == next(iter(r.results.values())).value
    assert e.value("sklearn", "NDCG") == e.value("perfeval", "NDCG") and not e.cells["sklearn"]["NDCG"].rules
    assert e.cells["sklearn"]["MAP"].note == "not defined by scikit-learn"
    rule = e.cells["trec_eval"]["NDCG"].rules[0]
    assert (
        "by document id, descending" in rule
        and "[2 of 2 queries have a tie of relevant and non-relevant" in rule
    )
    assert "6 cases in such ties" in rule
    assert "torch.topk's order" in e.cells["torchmetrics"]["MAP"].note and math.isnan(
        e.value("torchmetrics", "MAP")
    )
    text = str(e)
    assert "sklearn: MAP not defined by scikit-learn" in text and "9 rows in 2 groups" in text
    frame = e.to_frame()
    assert list(frame.columns) == ["NDCG", "MAP"] and frame.loc["ranx", "MAP"] == e.value("ranx", "MAP")
    assert (
        json.loads(e.to_json())["dialects"]["trec_eval"]["NDCG"]["rules"]
        == e.cells["trec_eval"]["NDCG"].rules
    )


def test_explain_counts_what_each_rule_touched():
    # graded relevance: linear gain touches the queries with a grade above 1; a query without relevance
    # counts 0 in sklearn
    y = np.array([2, 0, 1, 0, 0, 0, 1, 0])
    s = np.array([0.1, 0.9, 0.5, 0.4, 0.3, 0.2, 0.8, 0.7])
    g = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    e = perfeval.explain(y, s, groups=g, measures=["ndcg"], dialects=["sklearn"])
    rules = e.cells["sklearn"]["NDCG"].rules
    assert any("linear gain" in r and "[1 of 3 queries have a grade above 1]" in r for r in rules)
    assert any("counts 0" in r and "[1 of 3 queries have none]" in r for r in rules)


def test_explain_binning_tools_say_what_they_merged():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 5000)
    s = np.round(rng.random(5000), 4)
    e = perfeval.explain(y, s, measures="roc,ap", dialects=["spark:numBins=100", "keras"])
    spark = e.cells["spark:numBins=100"]["ROC"].rules
    assert any("merged in runs of" in r and "(numBins=100)" in r for r in spark)
    assert any("not average precision" in r for r in e.cells["keras"]["AP"].rules)
    assert e.value("spark:numBins=100", "ROC") != e.value("perfeval", "ROC")


def test_explain_refuses_an_unknown_dialect_before_work():
    with pytest.raises(perfeval.InvalidParameterError, match="unknown dialect"):
        perfeval.explain([1, 0], [0.5, 0.2], measures="roc", dialects=["nope"])


@pytest.fixture
def table(tmp_path):
    p = tmp_path / "run.csv"
    p.write_text("qid,doc,rel,score\n" + "".join(f"{q},{d},{r},{s}\n" for q, d, r, s in ROWS))
    return str(p)


def test_cli_explain_table_json_csv(table, capsys):
    base = [table, "--target", "rel", "--score", "score", "--group", "qid", "--id", "doc", "-m", "ndcg,map"]
    assert main(["explain", *base, "--dialects", "trec_eval,ranx"]) == 0
    out = capsys.readouterr().out
    assert (
        out.splitlines()[1].split()[0] == "perfeval"
        and "trec_eval NDCG: tied scores ranked by document id" in out
    )
    assert main(["explain", *base, "--dialects", "trec_eval", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["groups"] == 2 and set(d["dialects"]) == {"perfeval", "trec_eval"}
    assert main(["explain", *base[:-4], *base[-2:], "--dialects", "ranx", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "dialect,NDCG,MAP" and lines[2].startswith("ranx,")


def test_cli_eval_dialect(table, capsys):
    args = ["eval", table, "--target", "rel", "--score", "score", "--group", "qid", "--id", "doc"]
    assert main([*args[:-2], "-m", "map", "--dialect", "ranx"]) == 0  # ranx reads no ids
    out = capsys.readouterr().out
    assert "MAP" in out and "0.75" in out and "dialect=ranx" in out
    assert main([*args[:-2], "-m", "map", "--dialect", "ranx", "--tie-bounds"]) == 2
    assert "not with --tie-bounds" in capsys.readouterr().err
    assert main([*args, "-m", "roc", "--dialect", "trec_eval"]) == 2
    assert (
        "dialect trec_eval does not define ROC; dialects that do: perfeval, perf, sklearn, torchmetrics"
        in capsys.readouterr().err
    )
    assert main([*args, "-m", "map", "--dialect", "spark:numBins=x"]) == 2
    assert "numBins" in capsys.readouterr().err


def test_gauc_reads_labels_through_pos_label():
    y = np.array(["click", "none", "click", "none", "none"])
    r = perfeval.evaluate(
        y, [0.9, 0.1, 0.2, 0.8, 0.5], groups=[1, 1, 2, 2, 2], measures=["gauc"], pos_label="click"
    )
    assert r.results["GAUC"].per_group.tolist() == [1.0, 0.0]


def test_explain_says_what_moved_an_infinite_or_one_class_or_unscored_value():
    e = perfeval.explain([1, 0, 1, 0], [0.0, 0.0, 0.9, 0.2], measures="logloss", dialects="sklearn")
    assert e.value("perfeval", "logloss") == math.inf
    assert any("scores clipped" in r for r in e.cells["sklearn"]["LOGLOSS"].rules)
    e = perfeval.explain(
        [0, 1, 1, 0], [0.5, -1.0, 0.3, 0.1], groups=[0, 0, 1, 1], measures="mrr", dialects="torchmetrics"
    )
    assert any(
        "scored 0 or less" in r and "[1 relevant cases" in r for r in e.cells["torchmetrics"]["MRR"].rules
    )
    e = perfeval.explain([1, 1, 1], [0.5, 0.4, 0.3], measures="roc", dialects="torchmetrics,spark,keras")
    assert any("one class only gives 0" in r for r in e.cells["torchmetrics"]["ROC"].rules)
    assert any("one class its own value" in r for r in e.cells["spark"]["ROC"].rules)


def test_explain_notes_and_tie_counts_follow_the_cut_off():
    y = [1, 0, 0, 0, 0, 1, 0, 1]
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.1, 0.1, 0.05]  # one mixed tie, at ranks 6-7
    g = [0] * 8
    e = perfeval.explain(
        y, s, groups=g, ids=list("abcdefgh"), measures="map,map@3,p@3,p@8", dialects="trec_eval"
    )
    assert e.cells["trec_eval"]["MAP@3"].rules == [] and e.cells["trec_eval"]["P@3"].rules == []
    assert any("in the top 8" in r for r in e.cells["trec_eval"]["P@8"].rules) or e.value(
        "trec_eval", "p@8"
    ) == e.value("perfeval", "p@8")
    e = perfeval.explain(
        y, [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2], groups=g, measures="map", dialects="torchmetrics"
    )
    assert not any("AP@k" in r for r in e.cells["torchmetrics"]["MAP"].rules)


def test_explain_value_takes_names_and_dialects_without_options():
    e = perfeval.explain(
        [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], measures="roc,ap", dialects=["keras:num_thresholds=10"]
    )
    assert e.value("keras", "ap") == e.value("keras:num_thresholds=10", "AP")
    with pytest.raises(KeyError, match="measure 'ndcg' is not in this explanation"):
        e.value("keras", "ndcg")
    with pytest.raises(KeyError, match="dialect 'spark' is not in this explanation"):
        e.value("spark", "roc")


def test_explain_counts_spark_s_weight_zero_scores_as_evaluate_does():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 3000), np.round(rng.random(3000), 3)
    w = np.where(rng.random(3000) < 0.3, 0.0, 1.0)
    e = perfeval.explain(y, s, sample_weight=w, measures="roc,ap", dialects="spark:numBins=50")
    r = perfeval.evaluate(y, s, sample_weight=w, measures=["roc", "ap"], dialect="spark:numBins=50")
    assert e.value("spark", "roc") == r["ROC"] and e.value("spark", "ap") == r["AP"]


def test_cli_reads_the_id_column_as_ids(tmp_path, capsys):
    p = tmp_path / "n.csv"
    p.write_text("qid,doc,rel,score\n1,10,1,0.5\n1,9,0,0.5\n1,8,0,0.3\n2,5,1,0.2\n2,6,0,0.2\n")
    args = [
        "eval",
        str(p),
        "--target",
        "rel",
        "--score",
        "score",
        "--group",
        "qid",
        "--id",
        "doc",
        "-m",
        "map",
    ]
    assert main([*args, "--dialect", "trec_eval", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["measures"]["MAP"]["value"] == 0.5  # "9" > "10" as text


def test_mrr_counts_only_the_tie_at_the_first_relevant_case():
    # query 1: the first relevant case is alone at the top, a mixed tie lower down moves no MRR;
    # query 2: the first relevant case is in a mixed tie; query 3: a mixed tie below a relevant one
    g = np.array([1, 1, 1, 2, 2, 2, 3, 3, 3, 3], dtype=np.int64)
    ids = np.array([f"d{i}" for i in range(10)])
    y = np.array([1, 1, 0, 0, 1, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.5, 0.5, 0.8, 0.8, 0.1, 0.7, 0.9, 0.4, 0.4])
    e = perfeval.explain(y, s, groups=g, ids=ids, measures="mrr,map", dialects="trec_eval")
    mrr = next(r for r in e.cells["trec_eval"]["MRR"].rules if "tie of relevant" in r)
    assert "[1 of 3 queries have a tie of relevant and non-relevant cases at the first relevant case; " in mrr
    assert "2 cases in such ties]" in mrr
    ap = next(r for r in e.cells["trec_eval"]["MAP"].rules if "tie of relevant" in r)
    assert "[3 of 3 queries have a tie" in ap and "6 cases in such ties" in ap
    # the count is right: only query 2's value moves when its tie is reversed
    for q, moves in ((1, False), (2, True), (3, False)):
        rows = g == q
        order_a = perfeval.evaluate(
            y[rows], s[rows], groups=g[rows], ids=ids[rows], measures=["mrr"], dialect="trec_eval"
        )
        flipped = ids[rows][::-1].copy()
        order_b = perfeval.evaluate(
            y[rows], s[rows], groups=g[rows], ids=flipped, measures=["mrr"], dialect="trec_eval"
        )
        a, b = (next(iter(r.results.values())).value for r in (order_a, order_b))
        assert (a != b) == moves, (q, a, b)


def test_explain_names_no_empty_query_rule_where_perfeval_gives_the_same_value():
    # query 1 holds no relevant case: P@k and perfeval both give it 0, so trec_eval's "counts 0" is
    # no difference there; SUCCESS and MRR are undefined in perfeval, so the rule moves them.  A
    # mixed tie across the cut-off in query 2 makes every value differ, so rules are listed at all.
    g = np.array([1, 1, 1, 2, 2, 2, 2], dtype=np.int64)
    ids = np.array([f"d{i}" for i in range(7)])
    y = np.array([0, 0, 0, 1, 0, 0, 1])
    s = np.array([0.9, 0.5, 0.1, 0.5, 0.5, 0.5, 0.2])
    e = perfeval.explain(y, s, groups=g, ids=ids, measures="p@2,success@2,mrr", dialects="trec_eval")
    base = perfeval.evaluate(y, s, groups=g, measures=["p@2", "success@2", "mrr"])
    assert base.results["P@2"].per_group[0] == 0.0  # perfeval's own value of the empty query
    assert math.isnan(base.results["SUCCESS@2"].per_group[0])
    rules = e.cells["trec_eval"]
    assert rules["P@2"].rules and not any("without a relevant case" in r for r in rules["P@2"].rules)
    for m in ("SUCCESS@2", "MRR"):
        assert any("counts 0 in the mean [1 of 2 queries have none]" in r for r in rules[m].rules), m


def test_explain_says_torchmetrics_reads_logits_through_a_sigmoid():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 500)
    s = np.round((rng.random(500) - 0.5) * 160 + 20 * y, 2)  # both ends saturate in float64
    e = perfeval.explain(y, s, measures="roc,ap", dialects="torchmetrics")
    rules = e.cells["torchmetrics"]["ROC"].rules
    assert any(r.startswith("scores outside [0, 1] read as logits: their sigmoid") for r in rules), rules
    assert e.value("torchmetrics", "ROC") != e.value("perfeval", "ROC")
    inside = perfeval.explain(y, (s - s.min()) / (s.max() - s.min()), measures="roc", dialects="torchmetrics")
    assert not any("sigmoid" in r for r in inside.cells["torchmetrics"]["ROC"].rules)


def test_explain_json_of_rows_without_groups_says_why_groups_is_null(tmp_path, capsys):
    """`perfeval explain FILE` without --group wrote "groups": null with no reason beside it (every
    null of the JSON says why, issue 30)."""
    from test_json_nulls import bare_nulls

    f = tmp_path / "b.csv"
    f.write_text("y,p\n1,0.9\n0,0.2\n1,0.4\n0,0.5\n")
    assert main(["explain", str(f), "-m", "roc,ap", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["groups"] is None and d["groups_why_null"].startswith("no groups")
    assert bare_nulls(d) == []
    assert perfeval.explain([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.5], measures="roc").to_dict()["groups_why_null"]


def test_explain_json_why_null_of_perfeval_is_the_measure_s_reason():
    """perfeval's own null says the reason the measure gives (as evaluate's warning does), not the
    generic edge cases: binary, regression and K classes."""
    with pytest.warns(perfeval.UndefinedMeasureWarning):
        said = perfeval.evaluate([1, 1, 1], [0.2, 0.4, 0.5], measures="roc,cal_slope")
    e = perfeval.explain([1, 1, 1], [0.2, 0.4, 0.5], measures="roc,cal_slope", dialects="sklearn")
    ours = e.to_dict()["dialects"]["perfeval"]
    for m in ("ROC", "CAL_SLOPE"):
        assert ours[m]["value"] is None
        assert ours[m]["why_null"] == said.results[m].why == "one class only: all 3 cases are positive"
    assert "perfeval ROC: one class only: all 3 cases are positive" in str(e)
    y, p = [1.0, 0.0, 2.0, 0.0], [0.2, 0.4, 0.5, 3.0]
    with pytest.warns(perfeval.UndefinedMeasureWarning):
        why = perfeval.evaluate(y, p, measures="mape").results["MAPE"].why
    mape = perfeval.explain(y, p, measures="mape").to_dict()["dialects"]["perfeval"]["MAPE"]
    assert mape["value"] is None and mape["why_null"] == why and why.startswith("2 targets are 0")
