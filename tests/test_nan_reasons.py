"""A NaN of a calibration or operating-point measure says what happened, read from the summary (as
MAPE says "79 targets are 0"), not the measure's list of edge cases: in MeasureResult.why, in JSON's
why_null (and the threshold's), and in one warning for the measures undefined for one reason."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import UndefinedMeasureWarning


def _evaluate(y, s, measures, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = perfeval.evaluate(y, s, measures=measures, **kw)
    said = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    return r, said


def _probabilities(n=400, seed=1):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    return y, s


def test_scores_of_exactly_0_or_1_are_named_as_the_reason_of_the_fits():
    y, s = _probabilities()
    s[:7] = 0.0
    s[7:9] = 1.0
    r, said = _evaluate(y, s, ["cal_slope", "cal_intercept", "ece"])
    why = "9 scores are exactly 0 or 1: the logit is infinite"
    assert r.results["CAL_SLOPE"].why == why
    assert r.results["CAL_INTERCEPT"].why == why
    assert r.results["ECE"].why is None  # defined
    assert said == [f"CAL_SLOPE and CAL_INTERCEPT are undefined for this data: {why}"]
    assert r.to_dict()["measures"]["CAL_SLOPE"]["why_null"] == why


def test_weighted_scores_at_0_or_1_are_said_by_weight():
    y, s = _probabilities()
    s[:3] = 0.0
    w = np.full(len(s), 0.5)
    r, _ = _evaluate(y, s, ["cal_slope"], sample_weight=w)
    assert r.results["CAL_SLOPE"].why == (
        "cases of total weight 1.5 (1 distinct score) are exactly 0 or 1: the logit is infinite"
    )


def test_scores_outside_0_1_are_one_warning_naming_every_calibration_measure():
    y, s = _probabilities()
    logit = np.log(s) - np.log1p(-s)
    r, said = _evaluate(y, logit, ["ece", "mce", "brier_mcb", "cal_slope", "roc"])
    n = int(np.count_nonzero((logit < 0) | (logit > 1)))
    lo, hi = logit.min(), logit.max()
    assert said == [
        f"ECE, MCE, BRIER_MCB and CAL_SLOPE are undefined for this data: {n:,} scores are outside [0, 1] "
        f"(from {lo:g} to {hi:g}): the calibration measures need probabilities"
    ]
    assert not np.isnan(r["ROC"])


def test_one_class_is_one_warning():
    s = np.linspace(0.1, 0.9, 50)
    r, said = _evaluate(np.ones(50, int), s, ["roc", "youden", "pauc", "sen_at_spc", "cal_slope"])
    assert said == [
        "ROC, YOUDEN, PAUC, SEN_AT_SPC and CAL_SLOPE are undefined for this data: one class only: all "
        "50 cases are positive"
    ]
    assert r.results["YOUDEN"].why == "one class only: all 50 cases are positive"


def test_separated_classes_are_the_reason_of_the_slope():
    y = [0, 0, 0, 1, 1, 1]
    s = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8]
    r, _ = _evaluate(y, s, ["cal_slope", "cal_intercept:fit=joint", "cal_intercept"])
    assert r.results["CAL_SLOPE"].why == (
        "the scores separate the classes (every positive's score on one side of every negative's): "
        "the slope has no finite maximum likelihood"
    )
    assert r.results["CAL_INTERCEPT:fit=joint"].why == r.results["CAL_SLOPE"].why
    assert not np.isnan(r["CAL_INTERCEPT"])  # the offset fit is finite


def test_rec_at_pre_says_the_highest_precision_and_its_threshold_why():
    y = [0, 1, 0, 1, 0]
    s = [0.9, 0.8, 0.7, 0.6, 0.1]
    r, said = _evaluate(y, s, ["rec_at_pre@0.9"])
    why = "no threshold gives precision >= 0.9: the highest is 0.5"
    assert r.results["REC_AT_PRE@0.9"].why == why
    assert said == [f"REC_AT_PRE@0.9 is undefined for this data: {why}"]
    d = r.to_dict()["measures"]["REC_AT_PRE@0.9"]
    assert d["why_null"] == why
    assert d["threshold_why_null"] == f"no operating point: {why}"


def test_cli_json_and_stream_say_the_reason(tmp_path, capsys):
    p = tmp_path / "big.csv"
    y, s = _probabilities(2000)
    s[:7] = 0.0
    p.write_text("y,s\n" + "".join(f"{a},{float(b)!r}\n" for a, b in zip(y, s, strict=True)))
    capsys.readouterr()
    for extra in ([], ["--stream"]):
        assert (
            main(
                [
                    "eval",
                    str(p),
                    "--target",
                    "y",
                    "--score",
                    "s",
                    "-m",
                    "cal_slope",
                    "--format",
                    "json",
                    *extra,
                ]
            )
            == 0
        )
        out, err = capsys.readouterr()
        why = "7 scores are exactly 0 or 1: the logit is infinite"
        assert json.loads(out)["measures"]["CAL_SLOPE"]["why_null"] == why
        assert f"CAL_SLOPE is undefined for this data: {why}" in err
        assert "Edge cases" not in err


@pytest.mark.parametrize("measure", ["ece", "cal_slope", "rec_at_pre"])
def test_a_defined_value_has_no_reason(measure):
    y, s = _probabilities()
    r, said = _evaluate(y, s, [measure])
    (res,) = r.results.values()
    assert not np.isnan(res.value) and res.why is None and said == []


def test_a_measure_named_twice_by_two_spellings_says_they_are_one():
    with pytest.raises(
        perfeval.InvalidParameterError,
        match=r"^measure named twice: BRIER \('mse' and 'brier' are both BRIER\)$",
    ):
        perfeval.evaluate([0, 1], [0.2, 0.7], measures=["mse", "brier"])
    with pytest.raises(perfeval.InvalidParameterError, match=r"^measure named twice: ROC$"):
        perfeval.evaluate([0, 1], [0.2, 0.7], measures=iter(["roc", "roc"]))


def test_huge_whole_weights_are_said_by_weight_not_as_a_count():
    # weights of 1e50 are whole numbers, but no count of cases: the reason gives their total weight
    # (as for fractional weights), not a 51-digit number of "scores" or "cases"
    y, s = _probabilities()
    s[:3] = 0.0
    w = np.full(len(s), 1e50)
    r, _ = _evaluate(y, s, ["cal_slope"], sample_weight=w)
    assert r.results["CAL_SLOPE"].why == (
        "cases of total weight 3e+50 (1 distinct score) are exactly 0 or 1: the logit is infinite"
    )
    r, _ = _evaluate(
        np.ones(5, int), np.linspace(0.1, 0.9, 5), ["tpr_at_fpr@0.1"], sample_weight=np.full(5, 1e50)
    )
    assert r.results["TPR_AT_FPR@0.1"].why == "one class only: every case (total weight 5e+50) is positive"
    y, s, g = np.array([1, 1, 1, 0, 1, 0]), np.linspace(0.1, 0.6, 6), np.array([0, 0, 0, 1, 1, 1])
    r, _ = _evaluate(y, s, ["tpr_at_fpr@0.1"], groups=g, sample_weight=np.full(6, 1e50))
    assert r.results["TPR_AT_FPR@0.1"].undefined_groups_why == [
        "one class only: every case (total weight 3e+50) is positive"
    ]
