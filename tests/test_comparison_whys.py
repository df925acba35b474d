"""A comparison's undefined value (NaN) says why in ``Comparison.to_dict()`` as ``perfeval eval`` and
``perfeval compare`` say it (the reason :func:`perfeval.evaluate` gives of that model), not the
measure's edge cases from the registry: the calibration slope of constant scores, of scores that
separate the classes; a regression deviance outside its domain; over groups the same.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd

import perfeval
from perfeval.stats import compare_models


def _eval_why(y, s, label, **kw) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, measures=[label], **kw).results[label]
    assert r.why  # evaluate says why: the case at hand
    return r.why


def _binary():
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    a = np.full(8, 0.5)  # every score 0.5: no slope
    b = np.array([0.9, 0.2, 0.7, 0.4, 0.6, 0.3, 0.8, 0.1])  # the classes separated
    return y, a, b


def test_to_dict_says_each_models_reason_as_evaluate_does():
    y, a, b = _binary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = perfeval.compare(y, a, b, measures="cal_slope,roc", n_boot=50)["CAL_SLOPE"]
    d = c.to_dict()
    why_a, why_b = _eval_why(y, a, "CAL_SLOPE"), _eval_why(y, b, "CAL_SLOPE")
    assert why_a.startswith("every score is 0.5") and why_b.startswith("the scores separate")
    assert d["estimate_a"] is None
    assert d["estimate_a_why_null"] == f"model a's CAL_SLOPE is undefined for this data: {why_a}"
    assert d["estimate_b_why_null"] == f"model b's CAL_SLOPE is undefined for this data: {why_b}"
    assert "why_a" not in d and "why_b" not in d  # said beside the value, once
    # compare_models: each model's own, the baseline's once for every model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = compare_models(
            y, {"base": b, "m": a, "n": b[::-1].copy()}, "base", measures="cal_slope", n_boot=50
        )
    assert every["m"]["CAL_SLOPE"].to_dict()["estimate_a_why_null"].endswith(why_a)
    assert every["n"]["CAL_SLOPE"].to_dict()["estimate_b_why_null"].endswith(why_b)


def test_a_defined_value_has_no_reason():
    y, a, b = _binary()
    m = np.array([0.6, 0.3, 0.4, 0.7, 0.8, 0.2, 0.5, 0.45])  # the classes overlap: a slope
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = perfeval.compare(y, m, b, measures="cal_slope", n_boot=50)["CAL_SLOPE"]
    d = c.to_dict()
    assert d["estimate_a"] is not None and "estimate_a_why_null" not in d
    assert d["estimate_b_why_null"].endswith(_eval_why(y, b, "CAL_SLOPE"))


def test_a_regression_value_says_why_as_evaluate_does():
    rng = np.random.default_rng(7)
    y = rng.normal(10, 3, 60)
    a, b = y + rng.normal(0, 1, 60), y + rng.normal(0, 1, 60)
    b[4] = -2.0  # outside the Poisson deviance's domain
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = perfeval.compare(y, a, b, measures="poisson_dev", n_boot=50)["POISSON_DEV"]
    why = _eval_why(y, b, "POISSON_DEV", task="regression")
    assert why.startswith("1 row outside the deviance's domain")
    assert c.to_dict()["estimate_b_why_null"] == f"model b's POISSON_DEV is undefined for this data: {why}"


def test_the_json_of_perfeval_compare_says_what_its_note_says(tmp_path, capsys):
    from conftest import run_cli

    y, a, b = _binary()
    path = tmp_path / "c.csv"
    pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(path, index=False)
    argv = ["compare", str(path), "--target", "y", "--score", "b,a", "-m", "cal_slope", "--n-boot", "50"]
    code, _out, err = run_cli(argv, capsys)
    assert code == 0, err
    why_a, why_b = _eval_why(y, a, "CAL_SLOPE"), _eval_why(y, b, "CAL_SLOPE")
    assert f"(a: {why_a}; b: {why_b})" in err
    code, out, err = run_cli([*argv, "--format", "json"], capsys)
    row = json.loads(out)["comparisons"][0]
    assert row["model_value_why_null"] == f"CAL_SLOPE is undefined for this data: {why_a}"
    assert row["baseline_value_why_null"] == f"CAL_SLOPE is undefined for this data: {why_b}"


def test_over_groups_defined_for_no_one_says_so():
    """Each model's mean over its own groups a number, but no group defined for both: the values
    compared (over the groups defined for both) are undefined for that reason, not the measure's."""
    y = np.tile([1, 0, 1, 0, 0, 1], 4).astype(float)
    g = np.repeat([1, 2, 3, 4], 6)
    mix = np.array([0.7, 0.4, 0.3, 0.6, 0.2, 0.5])
    sep = np.array([0.8, 0.2, 0.7, 0.3, 0.1, 0.9])  # the classes separated: no slope
    a = np.concatenate([mix, mix + 0.01, sep, sep - 0.01])
    b = np.concatenate([sep, sep + 0.01, mix, mix - 0.02])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = perfeval.compare(y, a, b, measures="cal_slope", groups=g, n_boot=50)["CAL_SLOPE"]
    assert "over the 0 of 4 groups defined for both" in c.groups_compared
    d = c.to_dict()
    for k in ("estimate_a_why_null", "estimate_b_why_null"):
        assert d[k].endswith(
            "no group is defined for both models, and the comparison is over those (groups_compared)"
        )
