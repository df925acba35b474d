"""Measure specs are read strictly, every measure alike (one parser, measures/spec.py): a parameter
given twice, a ':' with nothing after it, a parameter contradicting the tool spelling it follows are
refused with one line naming the parameter, never the last value taken silently; scikit-learn's old
``squared`` is refused naming what to write, the regression form named on a regression target.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import list_measures, parse_measure


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("ece:n_bins=10,n_bins=20", "parameter 'n_bins' given twice"),
        ("ece:N_BINS=10,n_bins=10", "parameter 'n_bins' given twice"),  # the same value: still twice
        ("ndcg@10:k=5", "parameter 'k' given twice (@10 and k=5)"),
        ("acc@0.7:threshold=0.6", "parameter 'threshold' given twice (@0.7 and threshold=0.6)"),
        ("roc:average=weighted,average=macro", "parameter 'average' given twice"),  # kept for K classes
        ("cal_slope:", "a ':' with no parameter after it"),
        ("ece: ", "a ':' with no parameter after it"),
        ("ndcg_cut_10:", "a ':' with no parameter after it"),
        ("ece:n_bins=10,", "an empty parameter"),
        ("ndcg_cut_10:gain=exp", "trec_eval's ndcg_cut_10 sets gain=linear itself"),
        ("ndcg_cut_10:k=5", "sets its cut-off k=10 in its name"),
    ],
)
def test_refused_with_the_parameter_named(spec, fragment):
    with pytest.raises(InvalidParameterError, match="^.*$") as e:
        parse_measure(spec, pending=True)
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("m", list_measures(), ids=lambda m: m.name)
def test_every_measure_refuses_a_trailing_colon_and_a_repeated_parameter(m):
    with pytest.raises(InvalidParameterError, match="no parameter after it"):
        parse_measure(m.name.lower() + ":")
    if m.params:
        p = m.params[-1]
        v = p.choices[0] if p.choices else p.default
        with pytest.raises(InvalidParameterError, match=f"parameter '{p.name}' given twice"):
            parse_measure(f"{m.name.lower()}:{p.name}={v},{p.name}={v}")


def test_a_spelling_takes_its_own_value_written_again():
    s = parse_measure("ndcg_cut_10:gain=linear")
    assert s.label == "NDCG@10:gain=linear" and s.tool == "trec_eval"


def test_evaluate_refuses_a_repeated_parameter_and_changes_nothing():
    y, s = [0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.9]
    with pytest.raises(InvalidParameterError, match="'n_bins' given twice"):
        perfeval.evaluate(y, s, measures=["ece:n_bins=10,n_bins=20"])
    assert perfeval.evaluate(y, s, measures=["ece:n_bins=20"])["ECE:n_bins=20"] >= 0


@pytest.mark.parametrize(
    "spec", ["rmse:squared=false", "mse:squared=false", "mean_squared_error:squared=false"]
)
def test_squared_is_refused_naming_what_to_write(spec):
    with pytest.raises(InvalidParameterError) as e:
        parse_measure(spec)
    text = str(e.value)
    assert "scikit-learn" in text and "write rmse" in text and "RMSE_REG" in text and "PERF's RMS" in text


def _eval(tmp_path, rows, *args):
    f = tmp_path / "d.csv"
    f.write_text("y,p,q\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
    return subprocess.run(
        [sys.executable, "-m", "perfeval", "eval", str(f), "--target", "y", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _regression_rows():
    rng = np.random.default_rng(4)
    y = rng.normal(5, 2, 30)
    return list(zip(y, y + rng.normal(0, 1, 30), y + rng.normal(0, 2, 30), strict=True))


def test_cli_regression_names_the_regression_form(tmp_path):
    rows = _regression_rows()
    bad = _eval(tmp_path, rows, "--score", "p", "-m", "rmse:squared=false")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "write rmse" in bad.stderr and "Traceback" not in bad.stderr
    other = _eval(tmp_path, rows, "--score", "p", "-m", "rmse:foo=1")
    assert other.returncode == 2 and "on a regression target it is RMSE_REG" in other.stderr
    twice = _eval(tmp_path, rows, "--score", "p", "-m", "pinball:alpha=0.1,alpha=0.9")
    assert twice.returncode == 2 and "'alpha' given twice" in twice.stderr


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_cli_regression_labels_are_the_regression_measures(tmp_path, fmt):
    """rmse and mse on a regression target are shown as RMSE_REG and MSE_REG (scikit-learn's
    root_mean_squared_error and mean_squared_error), in every format, one model or several; on a
    0/1 target they stay PERF's RMS and BRIER.
    """
    rows = _regression_rows()
    for scores in ("p", "p,q"):
        done = _eval(
            tmp_path, rows, "--score", scores, "-m", "rmse,mse,root_mean_squared_error:", "--format", fmt
        )
        assert done.returncode == 2  # the trailing ':' is refused here too
        done = _eval(tmp_path, rows, "--score", scores, "-m", "rmse,mse", "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert "RMSE_REG" in done.stdout and "MSE_REG" in done.stdout
        assert "RMS\n" not in done.stdout and '"RMS"' not in done.stdout and "BRIER" not in done.stdout
    binary = [(int(i % 3 == 0), (i % 7) / 7, (i % 5) / 5) for i in range(30)]
    done = _eval(tmp_path, binary, "--score", "p", "-m", "rmse,mse", "--format", fmt)
    assert done.returncode == 0 and "RMS" in done.stdout and "BRIER" in done.stdout
    assert "RMSE_REG" not in done.stdout
