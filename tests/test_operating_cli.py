"""`perfeval eval` shows each operating point's threshold beside its value (issue 33): a line under
the table, a "threshold" field in JSON (per group "threshold_per_group"), the same on every path,
and equal to the measure's of=threshold spec; nothing else of the report changes."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main

SPECS = ["tpr_at_fpr@0.2", "youden", "least_cost:fn=5,fp=1", "rec_at_pre@0.99", "pauc@0.3"]
PICKS = ["TPR_AT_FPR@0.2", "YOUDEN", "LEAST_COST:fn=5,fp=1", "REC_AT_PRE@0.99"]  # PAUC picks no point


def _twin(label: str) -> str:
    return f"{label}{',' if ':' in label else ':'}of=threshold"


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.random(n) * 0.6 + 0.4 * y, 2)
    g = rng.integers(0, 6, n)
    f = tmp_path / "d.csv"
    f.write_text("y,s,g\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, s, g, strict=True)))
    return f, y, s, g


def _thresholds(y, s, g=None) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, measures=[_twin(lab.lower()) for lab in PICKS])
    return {lab: r.results[_twin(lab)] for lab in PICKS}


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_a_line_under_the_table_with_the_of_threshold_value(data, capsys, extra):
    f, y, s, _ = data
    out, err = _run(["eval", str(f), "--target", "y", "--score", "s", "-m", ",".join(SPECS), *extra], capsys)
    want = _thresholds(y, s)
    lines = out.splitlines()
    for lab in PICKS:
        t = want[lab].value
        if math.isnan(t):  # no point: the value says why, no threshold line
            assert not any(line.startswith(f"{lab}: ") for line in lines)
            continue
        assert f"{lab}: at score >= {t!r} (of=threshold gives it as a value)" in lines
    assert not any(line.startswith("PAUC@0.3: ") for line in lines)
    assert ":of=threshold" not in out.split("signature:")[0].split("\n(")[0].replace(
        "(of=threshold gives it as a value)", ""
    )  # no row of its own
    assert "of=threshold" not in err  # the thresholds say no warning of their own


@pytest.mark.parametrize("extra", [[], ["--stream"]])
@pytest.mark.parametrize("group", [False, True])
def test_json_has_the_threshold_of_each_value(data, capsys, extra, group):
    f, y, s, g = data
    argv = ["eval", str(f), "--target", "y", "--score", "s", "-m", ",".join(SPECS), "--format", "json"]
    out, _ = _run(argv + (["--group", "g"] if group else []) + extra, capsys)
    got = json.loads(out)["measures"]
    assert list(got) == [perfeval.measures.parse_measure(x).label for x in SPECS]  # no added measure
    want = _thresholds(y, s, g if group else None)
    for lab in PICKS:
        if group:
            per = got[lab]["threshold_per_group"]
            for i, key in enumerate(np.unique(g).tolist()):
                t = float(want[lab].per_group[i])
                assert per[str(key)] == (t if math.isfinite(t) else None)
                if not math.isfinite(t):
                    assert got[lab]["threshold_per_group_why_null"][str(key)]
            assert "threshold" not in got[lab]
        else:
            t = want[lab].value
            assert got[lab]["threshold"] == (t if math.isfinite(t) else None)
            assert ("threshold_why_null" in got[lab]) == (not math.isfinite(t))
    assert "threshold" not in got["PAUC@0.3"] and "threshold_per_group" not in got["PAUC@0.3"]


def test_nothing_predicted_is_said(tmp_path, capsys):
    f = tmp_path / "d.csv"
    f.write_text("y,score\n0,0.9\n1,0.2\n0,0.8\n1,0.1\n")  # every positive below every negative
    out, _ = _run(["eval", str(f), "-m", "youden"], capsys)
    assert "YOUDEN: no threshold: no case predicted positive (+inf) (of=threshold gives it as a value)" in out
    out, _ = _run(["eval", str(f), "-m", "youden", "--format", "json"], capsys)
    got = json.loads(out)["measures"]["YOUDEN"]
    assert got["threshold"] is None and got["threshold_why_null"].startswith("+infinity: no case predicted")


def test_grouped_table_says_where_the_thresholds_are(data, capsys):
    f, *_ = data
    out, _ = _run(["eval", str(f), "--target", "y", "--score", "s", "--group", "g", "-m", "youden"], capsys)
    said = "(each group's threshold of YOUDEN: --format json (threshold_per_group), or of=threshold "
    assert said + "as a measure)" in out


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--score", "s,t"], ["--dask", "local"]])
def test_a_mean_of_thresholds_that_is_infinite_says_why(tmp_path, capsys, extra):
    """Over groups an of=threshold value is the mean of the groups' thresholds: one group whose
    point predicts nothing (+inf) makes it +inf, which the table said nothing about (the JSON's
    mean_why_null did): a line under the table says in how many groups and that +inf is that."""
    f = tmp_path / "d.csv"
    rows = [(0, 0.9, 0.9, 1), (1, 0.2, 0.2, 1), (0, 0.8, 0.8, 1), (1, 0.1, 0.1, 1)]  # group 1: inverted
    rows += [(1, 0.9, 0.9, 2), (0, 0.2, 0.2, 2), (1, 0.7, 0.7, 2), (0, 0.4, 0.4, 2), (1, 0.3, 0.3, 3)]
    f.write_text("y,s,t,g\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in rows))
    argv = ["eval", str(f), "--target", "y", "--group", "g"]
    score = [] if "--score" in extra else ["--score", "s"]
    if "--dask" in extra:
        pytest.importorskip("dask.distributed")
    out, _ = _run([*argv, *score, "-m", "youden:of=threshold,youden", *extra], capsys)
    line = [x for x in out.splitlines() if "the mean over groups is +inf" in x]
    assert len(line) == (2 if "s,t" in extra else 1), out
    assert line[0].endswith(
        "YOUDEN:of=threshold: the mean over groups is +inf: in 1 of 2 groups (the first: 1) the "
        "threshold is +inf (the point picked predicts no case positive))"
    ), line
    out, _ = _run([*argv, "--score", "s", "-m", "youden:of=threshold", "--format", "json"], capsys)
    assert json.loads(out)["measures"]["YOUDEN:of=threshold"]["value"] is None  # said there already
    out, _ = _run(["eval", str(f), "--target", "y", "--score", "s", "-m", "youden:of=threshold"], capsys)
    assert "the mean over groups" not in out  # over all rows: a threshold, +inf or not, is itself


def test_a_threshold_asked_is_a_row_and_no_line(data, capsys):
    f, y, s, _ = data
    out, _ = _run(
        ["eval", str(f), "--target", "y", "--score", "s", "-m", "youden,youden:of=threshold"], capsys
    )
    assert [line.split()[0] for line in out.splitlines()[1:3]] == ["YOUDEN", "YOUDEN:of=threshold"]
    assert not any(line.startswith("YOUDEN: ") for line in out.splitlines())
    argv = [
        "eval",
        str(f),
        "--target",
        "y",
        "--score",
        "s",
        "-m",
        "youden,youden:of=threshold",
        "--format",
        "json",
    ]
    got = json.loads(_run(argv, capsys)[0])["measures"]
    assert got["YOUDEN"]["threshold"] == got["YOUDEN:of=threshold"]["value"]


def test_intervals_are_of_the_measures_asked_only(data, capsys):
    f, *_ = data
    argv = ["eval", str(f), "--target", "y", "--score", "s", "-m", "youden", "--ci", "0.9", "--n-boot", "50"]
    out, _ = _run(argv + ["--format", "json"], capsys)
    got = json.loads(out)["measures"]
    assert list(got) == ["YOUDEN"] and "ci" in got["YOUDEN"] and "threshold" in got["YOUDEN"]


def test_several_models_each_say_their_thresholds(tmp_path, capsys):
    f = tmp_path / "d.csv"
    f.write_text("y,a,b\n1,0.9,0.8\n0,0.3,0.3\n1,0.7,0.6\n0,0.1,0.4\n")
    out, _ = _run(["eval", str(f), "--target", "y", "--score", "a,b", "-m", "youden"], capsys)
    assert "a: YOUDEN: at score >= 0.7 (of=threshold gives it as a value)" in out
    assert "b: YOUDEN: at score >= 0.6 (of=threshold gives it as a value)" in out


def test_thresholds_in_the_models_and_group_tables_are_printed_in_full(tmp_path, capsys):
    """A threshold row is printed in full (repr) in every printed table, not only in one model's
    summary: the models' table (value and interval bounds) and the per-group tables, where six
    decimals would print a number whose `score >=` leaves out the boundary case."""
    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(0, 2, n)
    s = np.clip(0.2 * y + 0.8 * rng.random(n), 0, 1)  # full-precision scores: thresholds of 16 digits
    g = rng.integers(0, 3, n)
    f = tmp_path / "d.csv"
    f.write_text(
        "y,s,t,g\n"
        + "".join(f"{a},{float(b)!r},{float(b * 0.9)!r},{c}\n" for a, b, c in zip(y, s, g, strict=True))
    )
    spec = ["-m", "youden:of=threshold,youden"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {
            m: perfeval.evaluate(y, p, measures=["youden:of=threshold"])
            for m, p in (("s", s), ("t", s * 0.9))
        }
        per = perfeval.evaluate(y, s, groups=g, measures=["youden:of=threshold"])
    out, _ = _run(
        ["eval", str(f), "--target", "y", "--score", "s,t", *spec, "--ci", "0.9", "--n-boot", "30"], capsys
    )
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:3]}
    for m in ("s", "t"):
        iv = perfeval.ci(
            y, s if m == "s" else s * 0.9, measures=["youden:of=threshold"], n_boot=30, level=0.9
        )
        r = iv["YOUDEN:of=threshold"]
        assert rows[m][1:4] == [repr(want[m]["YOUDEN:of=threshold"]), repr(r.low), repr(r.high)]
    out, _ = _run(
        ["eval", str(f), "--target", "y", "--score", "s", "--group", "g", "--per-group", *spec], capsys
    )
    table = out.split("signature:")[1].splitlines()[3:]
    assert [line.split()[1] for line in table] == [
        repr(float(v)) for v in per.results["YOUDEN:of=threshold"].per_group
    ]
    out, _ = _run(
        ["eval", str(f), "--target", "y", "--score", "s,t", "--group", "g", "--per-group", *spec], capsys
    )
    block = out.split("s, per group:")[1].splitlines()[2:5]
    assert [line.split()[1] for line in block] == [
        repr(float(v)) for v in per.results["YOUDEN:of=threshold"].per_group
    ]
