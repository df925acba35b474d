"""``perfeval explain`` of a regression target: the scikit-learn row is live scikit-learn's number (or
its refusal, said) on random data with weights, ties, zeros and constant targets; the torchmetrics row
is torchmetrics 1.9's own number, recorded on float64 tensors by tests/oracles/make_regression_fixture.py
(torchmetrics_regression.json), within the digits the row says it keeps; a value that differs from
perfeval's says the rule that makes it differ, and what the rule touched."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.cli.main import main

sk = pytest.importorskip("sklearn.metrics")

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "torchmetrics_regression.json").read_text()
)
TM = {
    "MAE": "mean_absolute_error",
    "MSE_REG": "mean_squared_error",
    "RMSE_REG": "mean_squared_error(squared=False)",
    "R2": "r2_score",
    "EXPVAR": "explained_variance",
    "MAPE": "mean_absolute_percentage_error",
    "MAPE:eps=torchmetrics": "mean_absolute_percentage_error",
    "POISSON_DEV": "tweedie_deviance_score(power=1)",
    "GAMMA_DEV": "tweedie_deviance_score(power=2)",
    "TWEEDIE_DEV@1.5": "tweedie_deviance_score(power=1.5)",
    "TWEEDIE_DEV@-1": "tweedie_deviance_score(power=-1)",
    "MSLE": "mean_squared_log_error",
}
TM_MEASURES = (
    "mae,mse_reg,rmse_reg,r2,expvar,mape,mape:eps=torchmetrics,poisson_dev,gamma_dev,tweedie_dev@1.5,"
    "tweedie_dev@-1,msle"
)


def _explain(*a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.explain(*a, **kw)


def _digits(rules: list[str]) -> int | None:
    for r in rules:
        m = re.search(r"good to about (\d+) significant digits", r)
        if m:
            return int(m.group(1))
    return None


def test_fixture_names_the_tool_that_made_it():
    assert FIXTURE["tool"] == "torchmetrics" and FIXTURE["version"] == "1.9.0"
    assert FIXTURE["torch"] == "2.13.0+cpu" and FIXTURE["dtype"] == "float64"
    assert FIXTURE["generated_by"] == "tests/oracles/make_regression_fixture.py"
    assert len(FIXTURE["cases"]) >= 20


def test_the_torchmetrics_row_is_torchmetrics_numbers():
    """Each cell: torchmetrics' value within 1e-12 (or within the digits its rule says it keeps), its
    error said where it raised, or 'not reproducible' and why where its float64 rounding decides."""
    shown = refused = unreproducible = 0
    for case in FIXTURE["cases"]:
        e = _explain(np.array(case["y"]), np.array(case["p"]), measures=TM_MEASURES)
        for label in e.measures:
            cell = e.cells["torchmetrics"][label]
            want = case["results"][TM[label]]
            where = (case["name"], label, cell)
            if isinstance(want, dict):  # torchmetrics raised
                assert math.isnan(cell.value) and "raises" in cell.note, (*where, want)
                refused += 1
                continue
            want = float(want)
            if "does not check its input" in cell.note:  # a value <= -1: its log1p NaN or inf
                assert math.isnan(cell.value) and not math.isfinite(want), (*where, want)
                refused += 1
                continue
            if math.isnan(cell.value):
                assert cell.note.startswith("not reproducible: "), where
                unreproducible += 1
                continue
            digits = _digits(cell.rules)
            tol = 1e-12 if digits is None else 10.0 ** (1 - digits)
            assert abs(cell.value - want) <= tol * max(abs(want), 1e-300), (*where, want)
            shown += 1
    assert shown >= 190 and refused >= 50 and unreproducible <= 10, (shown, refused, unreproducible)


def test_r2_of_torchmetrics_rules_are_said():
    by = {c["name"]: c for c in FIXTURE["cases"]}
    # a constant target: torchmetrics 0 (its total sum of squares within 1e-4 of 0), scikit-learn 0
    c = by["constant-target"]
    e = _explain(np.array(c["y"]), np.array(c["p"]), measures="r2")
    assert math.isnan(e.value("perfeval", "R2")) and e.value("torchmetrics", "R2") == 0.0
    assert c["results"]["r2_score"] == 0.0
    assert any(
        "atol=1e-4" in r and "total sum of squares 0" in r for r in e.cells["torchmetrics"]["R2"].rules
    )
    assert any("force_finite" in r for r in e.cells["sklearn"]["R2"].rules)
    assert e.value("sklearn", "R2") == sk.r2_score(c["y"], c["p"]) == 0.0
    # a nearly perfect prediction: torchmetrics 1 exactly (its residual sum of squares below 1e-4)
    c = by["near-perfect"]
    e = _explain(np.array(c["y"]), np.array(c["p"]), measures="r2")
    assert e.value("torchmetrics", "R2") == c["results"]["r2_score"] == 1.0
    assert e.value("perfeval", "R2") < 1.0
    assert any("residual sum of squares" in r for r in e.cells["torchmetrics"]["R2"].rules)
    # a large mean: torchmetrics' one-pass total sum of squares keeps a few digits only
    c = by["large-mean"]
    e = _explain(np.array(c["y"]), np.array(c["p"]), measures="r2")
    note = e.cells["torchmetrics"]["R2"].note
    assert note.startswith("not reproducible: torchmetrics forms the total sum of squares in one pass"), note
    # one row: torchmetrics raises
    c = by["one-row"]
    e = _explain(np.array(c["y"]), np.array(c["p"]), measures="r2")
    assert c["results"]["r2_score"]["error"] in e.cells["torchmetrics"]["R2"].note


def test_mape_eps_of_each_tool_is_said():
    c = next(c for c in FIXTURE["cases"] if c["name"] == "tiny-targets")
    y, p = np.array(c["y"]), np.array(c["p"])
    e = _explain(y, p, measures="mape,mape:eps=sklearn,mape:eps=torchmetrics")
    assert math.isnan(e.value("perfeval", "MAPE")) and "1 target is 0" in e.cells["perfeval"]["MAPE"].rules[0]
    sk_rules = e.cells["sklearn"]["MAPE"].rules
    assert any("2.2e-16" in r and "[1 target of 0]" in r for r in sk_rules), sk_rules
    tm_rules = e.cells["torchmetrics"]["MAPE"].rules
    assert any("1.17e-06" in r and "[4 targets below 1.17e-06 in size, 1 of them 0]" in r for r in tm_rules)
    # each dialect of MAPE is that tool's number, with no rule under it
    assert e.value("perfeval", "MAPE:eps=sklearn") == e.value("sklearn", "MAPE:eps=sklearn")
    assert math.isclose(
        e.value("perfeval", "MAPE:eps=sklearn"), sk.mean_absolute_percentage_error(y, p), rel_tol=1e-12
    )
    want = c["results"]["mean_absolute_percentage_error"]
    assert math.isclose(e.value("perfeval", "MAPE:eps=torchmetrics"), want, rel_tol=1e-12)
    assert not e.cells["torchmetrics"]["MAPE:eps=torchmetrics"].rules
    assert e.value("sklearn", "MAPE") != e.value("torchmetrics", "MAPE")


def test_weighted_median_within_eps_of_half_is_said():
    """A cumulative weight 2.2e-16 above half the total: scikit-learn averages two residuals,
    perfeval takes the first."""
    y, p, w = np.array([0.0, 0.0]), np.array([1.0, 3.0]), np.array([1.0000000000000004, 1.0])
    e = _explain(y, p, measures="medae", sample_weight=w)
    assert e.value("perfeval", "MEDAE") == 1.0
    assert e.value("sklearn", "MEDAE") == sk.median_absolute_error(y, p, sample_weight=w) == 2.0
    assert any("within float64's eps" in r for r in e.cells["sklearn"]["MEDAE"].rules)
    assert e.cells["torchmetrics"]["MEDAE"].note == "not defined by torchmetrics"


def test_d2_of_a_constant_target_is_said():
    y, p = np.full(6, 2.0), np.array([2.0, 2.0, 2.5, 2.0, 1.0, 2.0])
    e = _explain(y, p, measures="d2_ae,d2_pinball:alpha=0.2,d2_tweedie,d2_tweedie@1")
    for label in e.measures:
        assert math.isnan(e.value("perfeval", label))
    assert e.value("sklearn", "D2_AE") == sk.d2_absolute_error_score(y, p) == 0.0
    assert e.value("sklearn", "D2_PINBALL@0.2") == sk.d2_pinball_score(y, p, alpha=0.2) == 0.0
    assert any("force_finite" in r for r in e.cells["sklearn"]["D2_AE"].rules)
    for label, power in (("D2_TWEEDIE", 0), ("D2_TWEEDIE@1", 1)):
        with pytest.raises(ZeroDivisionError):
            sk.d2_tweedie_score(y, p, power=power)
        assert math.isnan(e.value("sklearn", label)) and "ZeroDivisionError" in e.cells["sklearn"][label].note


SK_MEASURES = (
    "mae,mse_reg,rmse_reg,r2,expvar,mape,mape:eps=sklearn,medae,pinball@0.3,d2_ae,"
    "d2_pinball:alpha=0.7,d2_tweedie,poisson_dev,d2_tweedie@1.5,maxerr,msle,rmsle"
)
SK_CALLS = {
    "MAE": lambda y, p, w: sk.mean_absolute_error(y, p, sample_weight=w),
    "MSE_REG": lambda y, p, w: sk.mean_squared_error(y, p, sample_weight=w),
    "RMSE_REG": lambda y, p, w: sk.root_mean_squared_error(y, p, sample_weight=w),
    "R2": lambda y, p, w: sk.r2_score(y, p, sample_weight=w),
    "EXPVAR": lambda y, p, w: sk.explained_variance_score(y, p, sample_weight=w),
    "MAPE": lambda y, p, w: sk.mean_absolute_percentage_error(y, p, sample_weight=w),
    "MAPE:eps=sklearn": lambda y, p, w: sk.mean_absolute_percentage_error(y, p, sample_weight=w),
    "MEDAE": lambda y, p, w: sk.median_absolute_error(y, p, sample_weight=w),
    "PINBALL@0.3": lambda y, p, w: sk.mean_pinball_loss(y, p, sample_weight=w, alpha=0.3),
    "D2_AE": lambda y, p, w: sk.d2_absolute_error_score(y, p, sample_weight=w),
    "D2_PINBALL@0.7": lambda y, p, w: sk.d2_pinball_score(y, p, sample_weight=w, alpha=0.7),
    "D2_TWEEDIE": lambda y, p, w: sk.d2_tweedie_score(y, p, sample_weight=w),
    "POISSON_DEV": lambda y, p, w: sk.mean_poisson_deviance(y, p, sample_weight=w),
    "D2_TWEEDIE@1.5": lambda y, p, w: sk.d2_tweedie_score(y, p, sample_weight=w, power=1.5),
    # max_error takes no weights: given some it raises TypeError (an unexpected keyword)
    "MAXERR": lambda y, p, w: sk.max_error(y, p) if w is None else sk.max_error(y, p, sample_weight=w),
    "MSLE": lambda y, p, w: sk.mean_squared_log_error(y, p, sample_weight=w),
    "RMSLE": lambda y, p, w: sk.root_mean_squared_log_error(y, p, sample_weight=w),
}


@st.composite
def _data(draw):
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["plain", "ties", "zeros", "constant", "positive"]))
    y = rng.normal(size=n) * 3 + 1
    if kind == "ties":
        y = np.round(y)
    elif kind == "zeros":
        y = np.where(rng.random(n) < 0.3, 0.0, np.round(y, 1))
    elif kind == "constant":
        y = np.full(n, 1.5)
    elif kind == "positive":
        y = np.abs(y) + 0.1
    p = np.round(y + rng.normal(size=n), draw(st.sampled_from([1, 3])))
    if draw(st.booleans()):
        p = np.abs(p) + 0.05
    w = draw(st.sampled_from([None, "whole", "fraction"]))
    if w == "whole":
        w = rng.integers(1, 4, n).astype(float)
    elif w == "fraction":
        w = rng.random(n) * 2 + 0.01
    return y, p, w


@settings(max_examples=60, deadline=None)
@given(_data())
def test_the_sklearn_row_is_scikit_learns_numbers(d):
    y, p, w = d
    e = _explain(y, p, measures=SK_MEASURES, sample_weight=w)
    for label in e.measures:
        cell = e.cells["sklearn"][label]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = float(SK_CALLS[label](y, p, w))
        except (ValueError, ZeroDivisionError, TypeError) as err:
            assert math.isnan(cell.value) and cell.note, (label, cell, err)
            continue
        if cell.note.startswith("not reproducible: every "):  # scikit-learn's weighted mean's residue
            r = y - p
            assert label in ("R2", "EXPVAR") and w is not None, (label, cell)
            assert (y == y[0]).all() or (label == "EXPVAR" and (r == r[0]).all()), (label, cell)
            continue
        got = cell.value
        assert (math.isnan(got) and math.isnan(want)) or math.isclose(
            got, want, rel_tol=1e-12, abs_tol=1e-12
        ), (
            label,
            got,
            want,
        )
        ours = e.value("perfeval", label)
        same = (math.isnan(ours) and math.isnan(got)) or math.isclose(
            ours, got, rel_tol=1e-12, abs_tol=1e-300
        )
        assert same or cell.rules, (label, ours, got)  # a difference is always said
        if w is not None:
            assert "takes no sample weights" in e.cells["torchmetrics"][label].note or (
                e.cells["torchmetrics"][label].note == "not defined by torchmetrics"
            )


def test_explain_of_a_regression_target_refuses_what_it_cannot_do():
    y, p = [1.5, 2.5, 3.0], [1.0, 2.0, 3.5]
    with pytest.raises(perfeval.InvalidParameterError, match="per group: not yet"):
        perfeval.explain(y, p, measures="mae", groups=[1, 1, 2])
    with pytest.raises(perfeval.InvalidParameterError, match="dialects of a regression target are sklearn"):
        perfeval.explain(y, p, measures="mae", dialects="trec_eval")
    with pytest.raises(perfeval.InvalidParameterError, match="pos_label= does not apply"):
        perfeval.explain(y, p, measures="mae", pos_label=1)
    with pytest.raises(perfeval.InvalidParameterError, match="`task` must be"):
        perfeval.explain(y, p, measures="rmse", task="classes")
    # real targets with only rmse: the regression door, as evaluate's
    e = perfeval.explain(y, p, measures="rmse")
    assert e.measures == ["RMSE_REG"] and e.dialects == ["perfeval", "sklearn", "torchmetrics"]
    e = perfeval.explain(y, p, measures="mae", dialects="sklearn")
    assert e.dialects == ["perfeval", "sklearn"]


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_explain_of_a_regression_target(tmp_path, capsys):
    f = tmp_path / "prices.csv"
    f.write_text("price,pred,w\n0,0.5,1\n2,2.5,2\n3,2,1\n4,4.5,1\n")
    code, out, err = _run(
        ["explain", str(f), "--target", "price", "--score", "pred", "-m", "mape,r2"], capsys
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["MAPE", "R2"]
    assert lines[1].split()[:2] == ["perfeval", "nan"]
    want = sk.mean_absolute_percentage_error([0, 2, 3, 4], [0.5, 2.5, 2, 4.5])
    assert lines[2].split()[:2] == ["sklearn", f"{want:.4e}"]  # from 1e6 on, four digits and an exponent
    assert "[1 target of 0]" in out and "not per group" not in out
    code, out, err = _run(
        [
            "explain",
            str(f),
            "--target",
            "price",
            "--score",
            "pred",
            "--weight",
            "w",
            "-m",
            "mae",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    body = json.loads(out)
    assert (
        body["dialects"]["torchmetrics"]["MAE"]["note"]
        == "torchmetrics' mean_absolute_error takes no sample weights"
    )
    assert body["dialects"]["sklearn"]["MAE"]["value"] == sk.mean_absolute_error(
        [0, 2, 3, 4], [0.5, 2.5, 2, 4.5], sample_weight=[1, 2, 1, 1]
    )
    code, out, err = _run(
        ["explain", str(f), "--target", "price", "--score", "pred", "-m", "rmse", "--task", "regression"],
        capsys,
    )
    assert code == 0 and "RMSE_REG" in out, err
    code, out, err = _run(
        ["explain", str(f), "--target", "price", "--score", "pred", "--group", "w", "-m", "mae"], capsys
    )
    assert code == 2 and out == ""
    assert err.strip() == "perfeval: error: --group does not apply to explain of a regression target yet"
    f.write_text("price,pred\n1,0.5\nx,2.5\n")
    code, out, err = _run(["explain", str(f), "--target", "price", "--score", "pred", "-m", "mae"], capsys)
    assert code == 1 and out == "" and "line 3" in err and err.count("\n") == 1, err


def test_the_docs_example_is_each_tools_number():
    """docs/dialects.md's explain of demand.csv: the scikit-learn row is live scikit-learn's, the
    torchmetrics row torchmetrics' own (the fixture's case docs-demand), as printed."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "dialects.md").read_text(encoding="utf-8")
    block = re.search(r"\$ perfeval explain demand\.csv [^\n]*\n(.*?)```", doc, re.S)
    assert block is not None
    lines = block.group(1).splitlines()
    cols = lines[0].split()
    rows = {ln.split()[0]: dict(zip(cols, ln.split()[1:], strict=True)) for ln in lines[1:4]}
    case = next(c for c in FIXTURE["cases"] if c["name"] == "docs-demand")
    y, p = np.array(case["y"]), np.array(case["p"])
    table = np.loadtxt(
        Path(__file__).resolve().parents[1] / "docs" / "examples" / "explain" / "demand.csv",
        delimiter=",",
        skiprows=1,
    )
    assert np.array_equal(table[:, 0], y) and np.array_equal(table[:, 1], p)

    def shown(v: float) -> str:
        return f"{v:.4f}" if abs(v) < 1e6 else f"{v:.4e}"

    live = {
        "MAE": sk.mean_absolute_error(y, p),
        "R2": sk.r2_score(y, p),
        "MAPE": sk.mean_absolute_percentage_error(y, p),
        "MAPE:eps=sklearn": sk.mean_absolute_percentage_error(y, p),
        "MEDAE": sk.median_absolute_error(y, p),
        "D2_AE": sk.d2_absolute_error_score(y, p),
    }
    assert rows["sklearn"] == {k: shown(v) for k, v in live.items()}
    tm = case["results"]
    want = {
        "MAE": shown(tm["mean_absolute_error"]),
        "R2": shown(tm["r2_score"]),
        "MAPE": shown(tm["mean_absolute_percentage_error"]),
        "MAPE:eps=sklearn": shown(tm["mean_absolute_percentage_error"]),
        "MEDAE": "-",
        "D2_AE": "-",
    }
    assert rows["torchmetrics"] == want
