"""``perfeval compare`` reads a regression target as ``perfeval eval`` does (no ``-m``, no ``--task``:
a pandas-written table of real targets, or of a count), and says why a value is undefined in eval's
words."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.stats import compare_models

pd = pytest.importorskip("pandas")


def _cli(argv, capsys):
    from perfeval.cli.main import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def prices(tmp_path):
    rng = np.random.default_rng(5)
    n = 150
    y = rng.normal(100, 20, n)
    a, b, c = y + rng.normal(0, 5, n), y + rng.normal(0, 8, n), y + rng.normal(1, 5, n)
    path = tmp_path / "prices.csv"
    pd.DataFrame({"price": y, "a": a, "b": b, "c": c}).to_csv(path, index=False)
    back = pd.read_csv(path)  # the numbers as written
    return path, back["price"].to_numpy(), {k: back[k].to_numpy() for k in "abc"}


def test_compare_reads_a_real_target_as_eval_does(prices, capsys):
    path, y, models = prices
    argv = [
        "compare",
        str(path),
        "--target",
        "price",
        "--score",
        "a,b,c",
        "--format",
        "json",
        "--n-boot",
        "80",
    ]
    code, out, err = _cli(argv, capsys)
    assert code == 0, err
    _, _, eval_err = _cli(["eval", str(path), "--target", "price", "--score", "a"], capsys)
    why = "regression (the target column 'price' holds 150 distinct real values)"
    assert why in eval_err and f"perfeval: note: {why}: MAE, MSE_REG, RMSE_REG, R2, EXPVAR" in err
    got = json.loads(out)
    assert "|regression|" in got["signature"]
    want = compare_models(
        y, models, "a", measures=["mae", "mse", "rmse", "r2", "expvar"], n_boot=80, task="regression"
    )
    rows = {(r["model"], r["measure"]): r for r in got["comparisons"]}
    assert set(rows) == {
        (m, lab) for m in ("b", "c") for lab in ("MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR")
    }
    for m in ("b", "c"):
        for lab, cmp in want[m].items():
            r = rows[(m, lab)]
            assert (r["model_value"], r["baseline_value"], r["low"], r["high"], r["p_value"]) == (
                cmp.estimate_a,
                cmp.estimate_b,
                cmp.low,
                cmp.high,
                cmp.p_value,
            )
            assert r["method"] == cmp.method


def test_compare_of_several_tables_reads_the_first_tables_target(prices, tmp_path, capsys):
    path, y, models = prices
    for m in "ab":
        pd.DataFrame({"price": y, "pred": models[m]}).to_csv(tmp_path / f"{m}.csv", index=False)
    code, out, err = _cli(
        ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--target", "price", "--score", "pred"],
        capsys,
    )
    assert code == 0, err
    assert "regression (the target column 'price' holds 150 distinct real values)" in err
    assert " MAE " in out and " R2 " in out and "ROC" not in out and "pos-label" not in err


def test_compare_reads_a_count_as_eval_does_and_a_01_target_stays_binary(tmp_path, capsys):
    rng = np.random.default_rng(6)
    n = 300
    count = rng.poisson(15, n)
    assert len(np.unique(count)) > 20
    path = tmp_path / "count.csv"
    pd.DataFrame(
        {"visits": count, "a": count + rng.normal(0, 2, n), "b": count + rng.normal(0, 3, n)}
    ).to_csv(path, index=False)
    code, out, err = _cli(["compare", str(path), "--target", "visits", "--score", "a,b"], capsys)
    _, _, eval_err = _cli(["eval", str(path), "--target", "visits", "--score", "a"], capsys)
    how = f"regression (the target column 'visits' holds {len(np.unique(count))} distinct whole numbers)"
    assert code == 0 and how in err and how in eval_err and " MAE " in out
    # a 0/1 target: the binary default, as before
    y = (rng.random(n) < 0.4).astype(int)
    pd.DataFrame({"y": y, "a": rng.random(n), "b": rng.random(n) + y}).to_csv(path, index=False)
    code, out, err = _cli(["compare", str(path), "--target", "y", "--score", "a,b"], capsys)
    assert code == 0 and " ROC " in out and "regression" not in err


def test_compare_refuses_tie_bounds_of_a_detected_regression(prices, capsys):
    path, *_ = prices
    code, out, err = _cli(
        ["compare", str(path), "--target", "price", "--score", "a,b", "--tie-bounds"], capsys
    )
    lines = [ln for ln in err.splitlines() if not ln.startswith("perfeval: note:")]
    assert code == 2 and out == "" and len(lines) == 1
    assert "--tie-bounds does not apply to a regression target (the target column 'price' holds" in lines[0]


def test_compare_says_why_a_value_is_undefined_as_eval_does(tmp_path, capsys):
    rng = np.random.default_rng(7)
    n = 120
    y = rng.normal(10, 3, n)
    a, b = y + rng.normal(0, 1, n), y + rng.normal(0, 1, n)
    b[4] = -2.0  # outside the Poisson deviance's domain
    path = tmp_path / "neg.csv"
    pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(path, index=False)
    code, out, err = _cli(
        ["compare", str(path), "--target", "y", "--score", "a,b", "-m", "mae,poisson_dev"], capsys
    )
    assert code == 0
    _, _, eval_err = _cli(
        ["eval", str(path), "--target", "y", "--score", "b", "-m", "mae,poisson_dev"], capsys
    )
    said = eval_err.split("POISSON_DEV is undefined for this data: ")[1].splitlines()[0]
    assert said.startswith("1 row outside the deviance's domain")
    assert f"POISSON_DEV: the value of model b is undefined for this data: {said}, so a difference" in err
    assert "list-measures --long" not in err
    # the JSON says it beside the null
    code, out, err = _cli(
        ["compare", str(path), "--target", "y", "--score", "a,b", "-m", "poisson_dev", "--format", "json"],
        capsys,
    )
    row = json.loads(out)["comparisons"][0]
    assert row["model_value"] is None and row["model_value_why_null"].endswith(said)
    # a binary measure: the calibration slope of scores that separate the classes
    yb = np.r_[np.zeros(50), np.ones(50)].astype(int)
    sep = np.r_[np.linspace(0.01, 0.4, 50), np.linspace(0.6, 0.99, 50)]
    pd.DataFrame({"y": yb, "a": rng.random(100), "b": sep}).to_csv(path, index=False)
    code, out, err = _cli(
        ["compare", str(path), "--target", "y", "--score", "a,b", "-m", "cal_slope"], capsys
    )
    assert code == 0
    assert (
        "CAL_SLOPE: the value of model b is undefined for this data: the scores separate the classes" in err
    )
