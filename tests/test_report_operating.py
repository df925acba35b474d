"""The report's operating points (docs/operating.md, "In the report"): each measure that picks a point
gets its value, its score threshold and, with --ci, the intervals of both, read back from the page
equal to perfeval.evaluate's and perfeval.ci's; each point is marked on its curve where the curve is
at that threshold.
"""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import perfeval  # noqa: E402
from perfeval.cli.main import main  # noqa: E402
from test_report_html import clicks_frame, parse  # noqa: E402

OPS = (
    "roc,tpr_at_fpr@0.1,sen_at_spc@0.8,pre_at_rec@0.5,rec_at_pre@0.8,youden,topleft,best_fbeta@1,best_mcc,"
    "least_cost:fn=5,fp=1"
)
LABELS = (
    "TPR_AT_FPR@0.1",
    "SEN_AT_SPC@0.8",
    "PRE_AT_REC@0.5",
    "REC_AT_PRE@0.8",
    "YOUDEN",
    "TOPLEFT",
    "BEST_FBETA@1",
    "BEST_MCC",
    "LEAST_COST:fn=5,fp=1",
)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("ops")
    frame = clicks_frame()
    path = d / "clicks.csv"
    frame.to_csv(path, index=False)
    return frame, path, d


def _cell(p, model, label, col):
    found = [
        (a, t)
        for tag, a, t in p.cells
        if tag == "td"
        and a.get("data-model") == model
        and a.get("data-measure") == label
        and a.get("data-col") == col
    ]
    assert len(found) == 1, (model, label, col, found)
    return found[0]


def _threshold(text: str) -> float:
    return math.inf if text.startswith("+inf") else float(text)


def test_values_and_thresholds_are_evaluates(table):
    frame, path, d = table
    out = d / "ops.html"
    argv = [
        "report",
        str(path),
        "--target",
        "clicked",
        "--score",
        "model_a,model_b",
        "-m",
        OPS,
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert "<h2>Operating points</h2>" in text
    p = parse(text)
    for model in ("model_a", "model_b"):
        r = perfeval.evaluate(frame["clicked"], frame[model], measures=OPS)
        for lab in LABELS:
            res = r.results[lab]
            a, shown = _cell(p, model, lab, "value")
            assert float(a["data-exact"]) == res.value  # every digit
            assert shown == f"{res.value:.6f}"
            _a, t = _cell(p, model, lab, "threshold")
            assert _threshold(t) == res.threshold  # printed in full, as eval prints it
            # the of=threshold spec gives the same threshold
            twin = perfeval.evaluate(
                frame["clicked"], frame[model], measures=[f"{lab}{',' if ':' in lab else ':'}of=threshold"]
            )
            assert next(iter(twin.results.values())).value == res.threshold
    # no interval columns without --ci
    assert not [a for tag, a, t in p.cells if a.get("data-col") == "value-interval"]


def test_the_marked_point_is_the_curve_at_the_threshold(table):
    frame, _path, _d = table
    from perfeval.plot.html import operating_points

    y, s = frame["clicked"].to_numpy(), frame["model_a"].to_numpy()
    r = perfeval.evaluate(y, s, measures=OPS)
    pts = {p.label: p for p in operating_points(y, {"a": s}, list(r.results), {"a": r})}
    assert set(pts) == set(LABELS)  # ROC picks no point
    pos, neg = y == 1, y == 0
    for lab, p in pts.items():
        t = p.threshold
        pred = s >= t
        tpr, fpr = pred[pos].mean(), pred[neg].mean()
        prec = pred[pos].sum() / pred.sum()
        if lab.startswith(("PRE_AT_REC", "REC_AT_PRE")):
            assert p.curve == "pr" and p.xy == pytest.approx((tpr, prec), abs=1e-15)
        else:
            assert p.curve == "roc" and p.xy == pytest.approx((fpr, tpr), abs=1e-15)
    # the value is the curve's coordinate where the measure reads it
    assert pts["TPR_AT_FPR@0.1"].xy[1] == r["TPR_AT_FPR@0.1"] and pts["TPR_AT_FPR@0.1"].xy[0] <= 0.1
    assert pts["PRE_AT_REC@0.5"].xy[1] == pytest.approx(r["PRE_AT_REC@0.5"], abs=1e-15)
    assert pts["REC_AT_PRE@0.8"].xy[0] == pytest.approx(r["REC_AT_PRE@0.8"], abs=1e-15)
    assert pts["YOUDEN"].xy[1] - pts["YOUDEN"].xy[0] == pytest.approx(r["YOUDEN"], abs=1e-15)


def test_intervals_are_cis_of_the_value_and_of_the_threshold(table):
    frame, path, d = table
    out = d / "ops_ci.html"
    argv = ["report", str(path), "--target", "clicked", "--score", "model_a", "-m", "tpr_at_fpr@0.1,youden"]
    assert main([*argv, "--ci", "0.9", "--n-boot", "200", "--seed", "3", "-o", str(out)]) == 0
    p = parse(out.read_text(encoding="utf-8"))
    asked = ["TPR_AT_FPR@0.1", "TPR_AT_FPR@0.1:of=threshold", "YOUDEN", "YOUDEN:of=threshold"]
    ci = perfeval.ci(frame["clicked"], frame["model_a"], measures=asked, level=0.9, n_boot=200, seed=3)
    for lab in ("TPR_AT_FPR@0.1", "YOUDEN"):
        a, _t = _cell(p, "model_a", lab, "value-interval")
        assert (float(a["data-low"]), float(a["data-high"])) == (ci[lab].low, ci[lab].high)
        twin = f"{lab}:of=threshold"
        a, t = _cell(p, "model_a", lab, "threshold-interval")
        assert (float(a["data-low"]), float(a["data-high"])) == (ci[twin].low, ci[twin].high)
        assert t == f"[{ci[twin].low!r}, {ci[twin].high!r}]"
        assert ci[twin].high > ci[twin].low  # an interval, not a point
    # the measures table's interval of the value is the same one
    tds = [t for tag, a, t in p.cells if a.get("data-measure") == "YOUDEN" and a.get("data-col") == "overall"]
    assert tds == [f"{ci['YOUDEN'].estimate:.6f} [{ci['YOUDEN'].low:.6f}, {ci['YOUDEN'].high:.6f}]"]


def test_grouped_report_gives_the_pooled_point_and_says_so(table):
    frame, path, d = table
    out = d / "ops_g.html"
    argv = ["report", str(path), "--target", "clicked", "--score", "model_a", "--group", "user_id"]
    assert main([*argv, "-m", "youden,roc", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    p = parse(text)
    r = perfeval.evaluate(frame["clicked"], frame["model_a"], measures=["youden"])
    a, _ = _cell(p, "model_a", "YOUDEN", "value")
    assert float(a["data-exact"]) == r["YOUDEN"]
    assert _threshold(_cell(p, "model_a", "YOUDEN", "threshold")[1]) == r.results["YOUDEN"].threshold
    assert "every row pooled, groups ignored" in text


def test_no_section_without_an_operating_point(table):
    _frame, path, d = table
    out = d / "plain.html"
    assert (
        main(
            [
                "report",
                str(path),
                "--target",
                "clicked",
                "--score",
                "model_a",
                "-m",
                "roc,apr",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text(encoding="utf-8")
    assert "Operating points" not in text and "data-kind='operating-roc'" not in text


def test_the_curves_with_the_points_marked_are_in_the_page(table):
    _frame, path, d = table
    out = d / "marks.html"
    argv = [
        "report",
        str(path),
        "--target",
        "clicked",
        "--score",
        "model_a",
        "-m",
        "tpr_at_fpr@0.1,rec_at_pre@0.8",
    ]
    assert main([*argv, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "data-kind='operating-roc'" in text and "data-kind='operating-pr'" in text
    p = parse(text)
    assert _cell(p, "model_a", "TPR_AT_FPR@0.1", "point")[0]["data-curve"] == "roc"
    assert _cell(p, "model_a", "REC_AT_PRE@0.8", "point")[0]["data-curve"] == "pr"


def test_a_target_no_point_meets_is_undefined_with_its_reason(tmp_path):
    y = np.array([0, 1, 0, 1, 0, 1])
    s = np.array([0.9, 0.1, 0.8, 0.2, 0.7, 0.3])  # every positive below every negative
    path = tmp_path / "bad.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(path, index=False)
    out = tmp_path / "bad.html"
    assert (
        main(["report", str(path), "--target", "y", "--score", "s", "-m", "rec_at_pre@0.9", "-o", str(out)])
        == 0
    )
    text = out.read_text(encoding="utf-8")
    r = perfeval.evaluate(y, s, measures=["rec_at_pre@0.9"])
    p = parse(text)
    a, shown = _cell(p, "s", "REC_AT_PRE@0.9", "value")
    assert shown == ("undefined" if math.isnan(r["REC_AT_PRE@0.9"]) else f"{r['REC_AT_PRE@0.9']:.6f}")
    assert math.isnan(r["REC_AT_PRE@0.9"])  # the data are made so
    section = html.unescape(text[text.index("<h2>Operating points</h2>") :])
    assert f"REC_AT_PRE@0.9 of s is undefined: {r.results['REC_AT_PRE@0.9'].why.rstrip('.')}." in re.sub(
        "<[^>]+>", "", section
    )
    assert _cell(p, "s", "REC_AT_PRE@0.9", "threshold")[1] == "undefined"
    assert _cell(p, "s", "REC_AT_PRE@0.9", "point")[1] == "no point"


def test_a_threshold_asked_with_several_models_and_intervals(table, capsys):
    """`-m youden:of=threshold` with two models and --ci: the report is written (it was refused with
    compare's line, "compare refuses it"); the threshold has its interval in the measures table, no
    direction ("none": a higher threshold is no better model), and no row among the comparisons."""
    frame, path, d = table
    out = d / "ops_twin.html"
    argv = ["report", str(path), "--target", "clicked", "--score", "model_a,model_b"]
    argv += ["-m", "roc,youden,youden:of=threshold", "--ci", "0.9", "--n-boot", "50", "-o", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    p = parse(text)
    assert "<td>YOUDEN:of=threshold</td><td>none</td>" in text
    comparisons = text.split("Comparisons with", 1)[1].split("</table>", 1)[0]
    assert ">YOUDEN<" in comparisons and "of=threshold" not in comparisons
    r = perfeval.evaluate(frame["clicked"], frame["model_a"], measures=["youden:of=threshold"])
    tds = [
        t
        for tag, a, t in p.cells
        if a.get("data-measure") == "YOUDEN:of=threshold" and a.get("data-model") == "model_a"
    ]
    assert tds and tds[0].startswith(f"{r['YOUDEN:of=threshold']:.6f} [")
    assert r.results["YOUDEN:of=threshold"].direction == "none"
    assert r.to_frame().loc["YOUDEN:of=threshold", "direction"] == "none"


def test_an_underflowed_delong_p_value_is_shown_below_what_a_double_holds(tmp_path):
    """DeLong's p-value far in the tail underflows to 0: the report shows it as the command does
    (``<1e-300``), not as a p-value of 0."""
    import subprocess
    import sys

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 20000
    y = rng.integers(0, 2, n)
    a, b = y * 2 + rng.normal(size=n), y * 0.2 + rng.normal(size=n)
    path = tmp_path / "sep.csv"
    pd.DataFrame({"y": y, "a": 1 / (1 + np.exp(-a)), "b": 1 / (1 + np.exp(-b))}).to_csv(path, index=False)
    out = tmp_path / "r.html"
    args = [
        "report",
        str(path),
        "--target",
        "y",
        "--score",
        "b,a",
        "-m",
        "roc",
        "--ci",
        "0.95",
        "-o",
        str(out),
    ]
    assert subprocess.run([sys.executable, "-m", "perfeval", *args], capture_output=True).returncode == 0
    text = out.read_text()
    assert "<td>&lt;1e-300</td>" in text and "<td>0</td>" not in text
