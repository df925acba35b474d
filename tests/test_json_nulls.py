"""Every null in the commands' JSON says why (docs/guide.md): a null at KEY has its reason at
``KEY_why_null`` beside it (``why_null`` beside a ``value``), a null in a map (``per_group``) at the
same key of ``KEY_why_null``, and an infinite value reads otherwise than an undefined one.  Nulls in
``params`` are options not given.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.cli.main import main

#: the maps of a measure (group or query -> value, or -> [low, high])
MAPS = (
    "per_group",
    "tie_bounds_per_group",
    "models",
    "overlap",
    "tied_pairs",
    "p_values",
    "per_query",
    "tie_bounds_per_query",
)


def bare_nulls(obj, path="") -> list[str]:
    """The paths of the nulls of ``obj`` without a reason beside them (``params`` left out)."""
    out: list[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            here = f"{path}.{k}"
            if k == "params" or k.endswith("why_null"):
                continue
            if v is None:
                why = "why_null" if k == "value" else f"{k}_why_null"
                if not (isinstance(obj.get(why), str) and obj[why]):
                    out.append(here)
            elif k in MAPS and isinstance(v, dict):
                reasons = obj.get(f"{k}_why_null") or {}
                for g, x in v.items():
                    if (x is None or (isinstance(x, list) and None in x)) and not reasons.get(g):
                        out.append(f"{here}.{g}")
            else:
                out += bare_nulls(v, here)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            if v is None:
                out.append(f"{path}[{i}]")
            else:
                out += bare_nulls(v, f"{path}[{i}]")
    return out


def _json(capsys, argv) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def issue(tmp_path):
    """The issue's file: group 1's positive scored 0 (infinite log loss), group 2 finite."""
    p = tmp_path / "a.csv"
    p.write_text("y,p,g\n1,0.0,1\n0,0.5,1\n1,0.7,2\n0,0.2,2\n")
    return p


def test_an_infinite_group_value_and_mean_say_infinity(issue, capsys):
    got = _json(capsys, ["eval", str(issue), "--group", "g", "-m", "logloss", "--format", "json"])
    m = got["measures"]["LOGLOSS"]
    assert m["per_group"]["1"] is None and m["per_group_why_null"] == {"1": "+infinity"}
    assert m["per_group"]["2"] == pytest.approx(0.2899092476264711)
    assert m["mean"] is None and m["mean_why_null"].startswith("+infinity: the value is infinite in group 1")
    assert m["weighted_mean"] is None and m["weighted_mean_why_null"].startswith("+infinity")
    assert bare_nulls(got) == []


def test_undefined_groups_say_why_not_infinity(tmp_path, capsys):
    p = tmp_path / "b.csv"
    p.write_text("y,p,g\n1,0.9,1\n1,0.5,1\n1,0.7,2\n0,0.2,2\n")
    got = _json(
        capsys, ["eval", str(p), "--group", "g", "-m", "roc,logloss", "--format", "json", "--per-group"]
    )
    roc = got["measures"]["ROC"]
    assert roc["per_group"]["1"] is None and roc["per_group_why_null"]["1"].startswith(
        "undefined in this group"
    )
    assert "one class only" in roc["per_group_why_null"]["1"]
    assert bare_nulls(got) == []
    # no group where the measure is defined: the means say so
    p.write_text("y,p,g\n1,0.9,1\n1,0.5,1\n0,0.7,2\n0,0.2,2\n")
    got = _json(capsys, ["eval", str(p), "--group", "g", "-m", "roc", "--format", "json"])
    assert got["measures"]["ROC"]["mean_why_null"].startswith("undefined in every group")
    assert bare_nulls(got) == []


def test_every_null_of_eval_with_intervals_and_tie_bounds_says_why(issue, capsys):
    for extra in ([], ["--per-group"]):
        argv = ["eval", str(issue), "--group", "g", "-m", "logloss,roc,apr", "--format", "json"]
        got = _json(capsys, [*argv, "--ci", "0.9", "--n-boot", "50", "--tie-bounds", *extra])
        assert bare_nulls(got) == []
        assert (
            got["measures"]["LOGLOSS"]["ci"]["low_why_null"]
            == "no interval: the estimate is not a finite number"
        )
    got = _json(
        capsys, ["eval", str(issue), "-m", "roc", "--ci", "0.9", "--method", "delong", "--format", "json"]
    )
    ci = got["measures"]["ROC"]["ci"]
    assert ci["seed"] is None and ci["seed_why_null"] == "DeLong's method draws no replicates"


def test_every_null_of_several_models_and_of_compare_says_why(tmp_path, capsys):
    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.4).astype(int)
    a = np.round(rng.random(300), 3)
    b = np.round(np.clip(0.5 * rng.random(300) + 0.5 * y, 0, 1), 3)
    b[np.flatnonzero(y == 1)[0]] = 0.0  # a positive scored 0: infinite log loss
    p = tmp_path / "m.csv"
    p.write_text("y,a,b\n" + "".join(f"{t},{u},{v}\n" for t, u, v in zip(y, a, b, strict=True)))
    got = _json(capsys, ["eval", str(p), "--score", "a,b", "-m", "roc,logloss", "--format", "json"])
    assert got["models"]["b"]["measures"]["LOGLOSS"]["why_null"] == "+infinity"
    assert bare_nulls(got) == []
    argv = ["compare", str(p), "--score", "a,b", "-m", "roc,logloss", "--n-boot", "50", "--format", "json"]
    got = _json(capsys, argv)
    rows = {r["measure"]: r for r in got["comparisons"]}
    ll = rows["LOGLOSS"]
    assert ll["model_value"] is None and ll["model_value_why_null"] == "the model's LOGLOSS is +infinity"
    assert ll["difference_why_null"] == "+infinity: the model's LOGLOSS is not a finite number"
    assert ll["p_value"] is None and "not a finite number" in ll["p_value_why_null"]
    assert rows["ROC"]["seed"] is None and rows["ROC"]["seed_why_null"]
    assert bare_nulls(got) == []
    # the ranges over the orders of the ties: a bound that is not a number says why, and so does an
    # overlap that cannot be known
    got = _json(capsys, [*argv[:5], "roc,logloss,ca2", *argv[6:], "--tie-bounds"])
    tb = got["tie_bounds"]["measures"]
    assert (
        tb["LOGLOSS"]["models"]["b"] == [None, None] and tb["LOGLOSS"]["models_why_null"]["b"] == "+infinity"
    )
    assert tb["CA2"]["overlap"]["b"] is None and tb["CA2"]["overlap_why_null"]["b"].startswith(
        "no range to compare"
    )
    assert bare_nulls(got) == []


def test_python_to_dict_of_a_comparison_says_why():
    from perfeval.stats import compare

    y = [1, 0, 1, 0, 1, 0]
    c = compare(
        y, [0.0, 0.2, 0.9, 0.1, 0.8, 0.3], [0.7, 0.2, 0.9, 0.1, 0.8, 0.3], measures="logloss", n_boot=20
    )["LOGLOSS"]
    d = c.to_dict()
    assert d["estimate_a"] is None and d["estimate_a_why_null"] == "model a's LOGLOSS is +infinity"
    assert d["low"] is None and d["low_why_null"].startswith("no interval or test")
    # no test of an infinite difference (it was a p-value of replicates of -inf), as `perfeval compare`
    assert c.p_value != c.p_value and d["p_value"] is None and not c.p_at_floor
    assert bare_nulls(d) == []


def test_explain_says_why_a_dialect_has_no_value(tmp_path, capsys):
    p = tmp_path / "ex.csv"
    p.write_text("q,d,rel,s\n1,a,0,0.9\n1,b,0,0.5\n2,c,1,0.3\n2,d,0,0.3\n")
    argv = ["explain", str(p), "--target", "rel", "--score", "s", "--group", "q", "--id", "d", "-m", "ap,roc"]
    got = _json(capsys, [*argv, "--format", "json"])
    perf = got["dialects"]["perf"]["ROC"]
    assert perf["value"] is None and perf["why_null"] == perf["note"] and perf["note"]
    assert bare_nulls(got) == []


def test_score_and_leaderboard_say_why_a_score_is_null(tmp_path, capsys):
    # no example of the key is "change": the narrow list's ROC area (change vs the rest) is undefined,
    # and so is the total that adds it
    (tmp_path / "key.txt").write_text("g1 nc\ng2 control\ng3 nc\n")
    for lst in ("narrow", "broad"):
        (tmp_path / f"{lst}.txt").write_text("g1\ng2\ng3\n")
    subs = f"{tmp_path / 'narrow.txt'},{tmp_path / 'broad.txt'}"
    argv = [
        "score",
        "--key",
        str(tmp_path / "key.txt"),
        "--task",
        "kddcup2002-task2",
        subs,
        "--format",
        "json",
    ]
    (got,) = _json(capsys, argv)
    s = got["scores"]
    assert s["ROC_narrow"] is None and s["ROC_narrow_why_null"] == (
        "undefined: the key's examples are all of one class for ROC_narrow (positives: change), and ROC "
        "needs both classes"
    )
    assert (
        s["ROC_broad"] == 0.5
        and s["score"] is None
        and "ROC_narrow is not a finite number" in s["score_why_null"]
    )
    assert bare_nulls(got) == []
    board = _json(
        capsys,
        ["leaderboard", "--key", str(tmp_path / "key.txt"), "--task", "kddcup2002-task2", "--format", "json"],
    )
    (entry,) = board["ROC_narrow"]
    assert entry["value"] is None and "not a number when it was scored" in entry["why_null"]
    assert bare_nulls(board) == []


def test_trec_says_why_a_p_value_or_a_share_of_tied_pairs_is_null(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n")
    (tmp_path / "a.txt").write_text("1 Q0 d1 1 0.9 a\n1 Q0 d2 2 0.3 a\n")
    (tmp_path / "b.txt").write_text("1 Q0 d1 1 0.2 b\n1 Q0 d2 2 0.7 b\n")
    runs = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    # the runs answer one query each (--queries run): one query in common, no paired test
    for extra in ([], ["-q"], ["--tie-bounds", "-q"]):
        got = _json(
            capsys,
            ["trec", str(qrels), *runs, "-m", "map,ndcg", "--queries", "run", "--format", "json", *extra],
        )
        assert got["b"]["p_values"]["map"] is None
        assert got["b"]["p_values_why_null"]["map"] == (
            "no test: 1 query in common with the baseline 'a'; a paired test needs 2 or more"
        )
        assert bare_nulls(got) == [], extra
    # no pair of documents of different relevance: no share of tied pairs
    qrels.write_text("1 0 d1 1\n1 0 d2 1\n")
    got = _json(capsys, ["trec", str(qrels), runs[0], "-m", "map", "-q", "--tie-bounds", "--format", "json"])
    assert got["tied_pairs"] is None and got["tied_pairs_why_null"].startswith("no comparable pair")
    assert bare_nulls(got) == []
    # the Python door says the same
    from perfeval import trec

    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n")
    d = trec.compare(str(qrels), runs, measures="map", queries="run").to_dict()
    assert d["runs"]["b"]["map"]["p_value_why_null"].startswith("no test: 1 query in common")
    assert bare_nulls(d) == []
