"""A count target (whole numbers 0..9, or up to 20 distinct whole numbers read as classes) given to a
binary measure is offered the regression reading beside the positive label (never guessed, never left
out), in the door's words; plot's binary curves
name the plots of a regression target instead of recommending what they refuse; a library hint
seen on the command line is in the command's words (--task regression, --method)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import InvalidDataError

CLI_COUNT = "or --task regression (or -m mae,rmse) to read it as a regression target (a count)"


def _demand(tmp_path):
    rng = np.random.default_rng(3)
    d = rng.integers(0, 10, 300)
    f = d + rng.normal(0, 1, 300)
    p = tmp_path / "demand.csv"
    p.write_text("demand,forecast\n" + "".join(f"{a},{b:.6f}\n" for a, b in zip(d, f, strict=True)))
    return p, d, f


def _err(argv, capsys):
    capsys.readouterr()
    rc = main(argv)
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return rc, err


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_eval_offers_the_regression_reading_of_a_count(tmp_path, capsys, extra):
    p, _d, _f = _demand(tmp_path)
    rc, err = _err(["eval", str(p), "--target", "demand", "--score", "forecast", *extra], capsys)
    assert rc == 1
    assert "graded relevance, 10 classes or a count, not a binary target" in err
    assert "--pos-label 9 would count grade 9 alone as positive" in err
    assert err.rstrip().endswith(CLI_COUNT)
    capsys.readouterr()
    assert main(["eval", str(p), "--target", "demand", "--score", "forecast", "--task", "regression"]) == 0
    assert "MAE" in capsys.readouterr().out


def test_evaluate_offers_task_regression_and_it_works(tmp_path):
    _p, d, f = _demand(tmp_path)
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(d, f)
    msg = str(e.value)
    assert "pos_label=9 would count grade 9 alone as positive" in msg
    assert msg.endswith(
        "or task='regression' (or measures=['mae', 'rmse']) to read it as a regression target (a count)"
    )
    r = perfeval.evaluate(d, f, task="regression")
    assert r["MAE"] == pytest.approx(float(np.mean(np.abs(d - f))), rel=1e-12)


def test_report_takes_a_regression_target_and_plot_names_its_plots(tmp_path, capsys):
    rng = np.random.default_rng(4)
    p = tmp_path / "houses.csv"
    rows = rng.normal(100, 10, (50, 3))
    p.write_text("price,a,b\n" + "".join(f"{x:.4f},{y:.4f},{z:.4f}\n" for x, y, z in rows))
    report = ["report", str(p), "--target", "price", "--score", "a,b", "-m", "mae,rmse,r2"]
    capsys.readouterr()
    assert main([*report, "-o", str(tmp_path / "r.html")]) == 0  # a report of the regression target
    assert "regression (the regression measure MAE named): MAE, RMSE_REG, R2" in capsys.readouterr().err
    plot = ["plot", "roc", str(p), "--target", "price", "--score", "a", "-o", str(tmp_path / "r.png")]
    rc, err = _err(plot, capsys)
    assert rc == 1
    assert (
        "looks like a regression target; a binary curve needs 0/1 targets; `perfeval plot predicted` or "
        "`residuals` draws it as a regression target" in err
    )
    assert "--task regression" not in err  # plot roc does not take it
    dp, _d, _f = _demand(tmp_path)
    # a count: never read as a regression target unasked; the report offers --task regression now
    rc, err = _err(
        ["report", str(dp), "--target", "demand", "--score", "forecast", "-o", str(tmp_path / "d.html")],
        capsys,
    )
    assert rc == 1 and err.rstrip().endswith(CLI_COUNT)
    capsys.readouterr()
    argv = ["report", str(dp), "--target", "demand", "--score", "forecast", "--task", "regression"]
    assert main([*argv, "-o", str(tmp_path / "d.html")]) == 0
    rc, err = _err(
        ["plot", "roc", str(dp), "--target", "demand", "--score", "forecast", "-o", str(tmp_path / "d.png")],
        capsys,
    )
    assert rc == 1 and err.rstrip().endswith("`residuals` draws it as a regression target (a count)")


def test_wald_on_a_regression_measure_is_said_in_the_commands_words(tmp_path, capsys):
    p, _d, _f = _demand(tmp_path)
    argv = ["eval", str(p), "--target", "demand", "--score", "forecast", "-m", "mae", "--ci", "0.95"]
    rc, err = _err([*argv, "--method", "wald"], capsys)
    assert rc != 0
    assert err.rstrip().endswith("use --method bca, percentile or t")
    assert "method='" not in err


def test_dask_regression_hint_in_the_commands_words(tmp_path, capsys):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    rng = np.random.default_rng(5)
    p = tmp_path / "houses.csv"
    p.write_text("price,a\n" + "".join(f"{x:.4f},{y:.4f}\n" for x, y in rng.normal(100, 10, (40, 2))))
    rc, err = _err(["eval", str(p), "--target", "price", "--score", "a", "--dask", "local"], capsys)
    assert rc == 1
    assert err.rstrip().endswith("the regression measures read it (-m mae,rmse,r2 or --task regression)")
    dp, _d, _f = _demand(tmp_path)
    rc, err = _err(["eval", str(dp), "--target", "demand", "--score", "forecast", "--dask", "local"], capsys)
    assert rc == 1 and err.rstrip().endswith(CLI_COUNT)


def _wide_count(tmp_path, low, high, name="visits"):
    """Whole numbers low..high-1 (more than ten values, or past 10: not read as grades) and a forecast."""
    rng = np.random.default_rng(6)
    d = rng.integers(low, high, 300)
    f = d + rng.normal(0, 1, 300)
    p = tmp_path / f"{name}.csv"
    p.write_text(f"{name},forecast\n" + "".join(f"{a},{b:.6f}\n" for a, b in zip(d, f, strict=True)))
    return p, d, f


@pytest.mark.parametrize(
    ("low", "high", "count"),
    [(0, 16, True), (1, 12, True), (100, 116, True), (-8, 9, False)],
    ids=["0..15", "1..11", "100..115", "-8..8"],
)
@pytest.mark.parametrize("extra", [[], ["-m", "rmse"], ["--stream"]])
def test_a_count_of_more_than_ten_values_is_offered_the_regression_reading(
    tmp_path, capsys, low, high, count, extra
):
    """Whole numbers past the grades (up to 20 distinct values) read as classes still offer the
    regression reading: a count 0..15 is no less a count than 0..9."""
    p, d, f = _wide_count(tmp_path, low, high)
    rc, err = _err(["eval", str(p), "--target", "visits", "--score", "forecast", *extra], capsys)
    assert rc == 1
    assert re.search(rf"{len(np.unique(d))} classes( or more)?, or ", err), err  # a stream: or more
    if count:
        assert err.rstrip().endswith(CLI_COUNT), err
    else:
        assert err.rstrip().endswith(
            "or the regression measures read it (-m mae,rmse,r2 or --task regression)"
        ), err
    capsys.readouterr()
    assert main(["eval", str(p), "--target", "visits", "--score", "forecast", "--task", "regression"]) == 0
    assert "MAE" in capsys.readouterr().out
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(d.astype(np.float64), f)  # a float column of whole numbers: the same
    tail = (
        "or task='regression' (or measures=['mae', 'rmse']) to read it as a regression target (a count)"
        if count
        else "or the regression measures read it (mae, rmse, r2, ...: `perfeval list-measures`), with "
        "task='regression' in Python"
    )
    assert str(e.value).endswith(tail), str(e.value)


def test_class_names_are_not_offered_the_regression_reading(tmp_path, capsys):
    p = tmp_path / "iris.csv"
    rng = np.random.default_rng(7)
    species, p_a = rng.choice(["a", "b", "c"], 30), rng.uniform(0, 1, 30)
    p.write_text("species,p\n" + "".join(f"{s},{x:.3f}\n" for s, x in zip(species, p_a, strict=True)))
    rc, err = _err(["eval", str(p), "--target", "species", "--score", "p"], capsys)
    assert rc == 1 and "3 classes;" in err and "regression" not in err


@pytest.mark.parametrize(("low", "high", "count"), [(0, 16, True), (-8, 9, False)], ids=["0..15", "-8..8"])
def test_dask_offers_the_regression_reading_of_a_count_past_ten(tmp_path, capsys, low, high, count):
    """On Dask a partition's whole numbers read as classes are offered the regression reading too, in
    the command's words (the table read whole says the same)."""
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    p, _d, _f = _wide_count(tmp_path, low, high)
    rc, err = _err(["eval", str(p), "--target", "visits", "--score", "forecast", "--dask", "local"], capsys)
    assert rc == 1
    assert "--pos-label" in err and "pos_label=" not in err
    tail = CLI_COUNT if count else "or the regression measures read it (-m mae,rmse,r2 or --task regression)"
    assert err.rstrip().endswith(tail), err


@pytest.mark.parametrize("values", [(0.5, 1.5), (0.25, 0.75), (2.5,)], ids=["0.5/1.5", "0.25/0.75", "2.5"])
def test_a_target_of_one_or_two_real_values_gets_no_positive_label(tmp_path, capsys, values):
    """A target of real values (not whole numbers) is never offered a positive label, however few
    its values: the regression reading is said, and labels are to be coded 0/1."""
    y = np.resize(np.array(values), 12)
    p = tmp_path / "y.csv"
    p.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, np.linspace(0.1, 0.9, 12), strict=True)))
    rc, err = _err(["eval", str(p), "--target", "y", "--score", "p"], capsys)
    assert rc == 1
    assert "--pos-label" not in err, err
    assert "the regression measures read it (-m mae,rmse,r2 or --task regression)" in err, err
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(y, np.linspace(0.1, 0.9, 12), measures=["roc"])
    assert "pos_label=" not in str(e.value) and "task='regression'" in str(e.value), str(e.value)
