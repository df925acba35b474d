"""Intervals of measures biased under resampling (issue 33's new-user pass): when the replicates lie
on one side of the estimate, BCa has no interval (NaN and the reason, as scipy.stats.bootstrap's
rule), and an interval that does not contain its estimate says so (Interval.note, a
BootstrapBiasWarning, a line under the table, the JSON's note, a note on stderr for CSV); a
threshold's bounds are achievable thresholds (a replicate's own, never an interpolation)."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import BootstrapBiasWarning
from perfeval.measures import list_measures
from perfeval.stats import ci, compare
from perfeval.stats.intervals import acceleration, bca, interval, share_below


@pytest.fixture(scope="module")
def calibrated():
    """Scores near calibrated, 3 decimals (many ties): BRIER_MCB's replicates all lie above it."""
    rng = np.random.default_rng(33)
    n = 5000
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(1.5 * x - 1)))
    y = (rng.random(n) < p).astype(int)
    s = np.clip(np.round(p + rng.normal(scale=0.05, size=n), 3), 0.001, 0.999)
    return y, s, np.round(p, 1)


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    return out, [w for w in caught if issubclass(w.category, BootstrapBiasWarning)]


# -- the arithmetic -----------------------------------------------------------------------------------
def test_bca_is_undefined_when_every_replicate_lies_on_one_side():
    reps = np.linspace(1.0, 2.0, 50)
    assert all(math.isnan(b) for b in bca(0.5, reps, 0.95, 0.0))  # all above
    assert all(math.isnan(b) for b in bca(2.5, reps, 0.95, 0.1))  # all below
    lo, hi, sd, note = interval(0.5, reps, 0.95, "bca", 0.0)
    assert math.isnan(lo) and math.isnan(hi) and sd == pytest.approx(float(reps.std(ddof=1)))
    assert note.startswith("no BCa interval: all 50 replicates lie above the estimate")
    # the percentile interval is the replicates' spread, which does not contain the estimate: said
    lo, hi, _, note = interval(0.5, reps, 0.95, "percentile", 0.0)
    assert lo > 0.5 and note.startswith("the interval lies above the estimate: all 50 replicates do")
    # one replicate at the estimate (counted half) is enough for z0 to be finite
    lo, hi, _, note = interval(1.0, reps, 0.95, "bca", 0.0)
    assert math.isfinite(lo) and math.isfinite(hi) and share_below(1.0, reps) == 0.01
    assert note.startswith("the interval lies above the estimate")  # 49 of 50 above: 98%
    assert "98% of the 50 replicates do" in note
    # a statistic that does not vary keeps its interval, the estimate itself, with no note
    assert interval(1.0, np.ones(40), 0.95, "bca", 0.0) == (1.0, 1.0, 0.0, "")
    # an interval around its estimate has no note
    assert interval(1.5, reps, 0.95, "bca", 0.0)[3] == ""


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # scipy's own 0/0
def test_bca_follows_scipys_rule():
    """scipy.stats.bootstrap's BCa, given its own replicates and jackknife: the same bounds; where
    every replicate lies on one side of the estimate, NaN both (scipy: DegenerateDataWarning)."""
    from scipy import stats
    from scipy.stats import DegenerateDataWarning

    rng = np.random.default_rng(4)
    x = rng.exponential(size=40)
    res = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=999, rng=np.random.default_rng(1))
    jack = np.array([np.mean(np.delete(x, i)) for i in range(len(x))])
    got = bca(float(np.mean(x)), res.bootstrap_distribution, 0.95, acceleration(jack, None))
    assert got == pytest.approx(tuple(res.confidence_interval), rel=1e-12)

    def fewer_distinct(a, axis=-1):  # the sample itself has the most: every resample lies above
        return -np.apply_along_axis(lambda v: len(np.unique(v)), axis, a) + 1e-3 * np.mean(a, axis=axis)

    with pytest.warns(DegenerateDataWarning, match="cannot be calculated"):
        res = stats.bootstrap(
            (x,), fewer_distinct, method="BCa", n_resamples=199, rng=np.random.default_rng(1), vectorized=True
        )
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)
    est = float(fewer_distinct(x))
    jack = np.array([float(fewer_distinct(np.delete(x, i))) for i in range(len(x))])
    lo, hi, _, note = interval(est, res.bootstrap_distribution, 0.95, "bca", acceleration(jack, None))
    assert math.isnan(lo) and math.isnan(hi) and note.startswith("no BCa interval: all 199 replicates")


# -- perfeval.ci and compare ------------------------------------------------------------------------
def test_a_biased_measures_interval_says_so(calibrated):
    y, s, _ = calibrated
    got, said = _quiet(ci, y, s, measures=["brier_mcb", "brier_mcb:form=murphy", "roc"], n_boot=200)
    for label in ("BRIER_MCB", "BRIER_MCB:form=murphy"):
        iv = got[label]
        # every replicate above the estimate: no BCa interval (it was the percentile one, silently)
        assert math.isnan(iv.low) and math.isnan(iv.high), label
        assert iv.note.startswith("no BCa interval: all 200 replicates lie above the estimate"), label
        d = json.loads(json.dumps(iv.to_dict()))
        assert d["low"] is None and d["low_why_null"] == iv.note and d["note"] == iv.note
    assert got["ROC"].note == "" and "note" not in got["ROC"].to_dict()
    assert [str(w.message).split(":")[0] for w in said] == ["BRIER_MCB", "BRIER_MCB"]
    assert "BRIER_MCB:form=murphy: no BCa interval" in str(said[1].message)
    pct, said = _quiet(ci, y, s, measures=["brier_mcb"], n_boot=200, method="percentile")
    iv = pct["BRIER_MCB"]
    assert iv.estimate < iv.low < iv.high  # the replicates' spread: above the estimate
    assert iv.note.startswith("the interval lies above the estimate: all 200 replicates do")
    assert len(said) == 1 and str(said[0].message) == f"BRIER_MCB: {iv.note}"


def test_a_comparison_of_a_biased_measure_says_so(calibrated):
    y, s, coarse = calibrated  # s has many distinct scores (biased), coarse 10 (little)
    got, said = _quiet(compare, y, s, coarse, measures="brier_mcb:form=murphy", n_boot=200)
    c = got["BRIER_MCB:form=murphy"]
    assert math.isnan(c.low)
    assert c.note.startswith("no BCa interval: all 200 replicates lie above the difference")
    assert c.note.endswith("the p-value reads the same shifted replicates") and len(said) == 1
    models = {"s": s, "c": coarse}
    got, _ = _quiet(
        perfeval.stats.compare_models, y, models, "c", measures="brier_mcb", method="percentile", n_boot=200
    )
    c = got["s"]["BRIER_MCB"]
    assert c.difference < c.low and c.note.startswith("the interval lies above the difference")


def test_every_measure_said_biased_is(calibrated):
    """The entries that say their intervals lie above the value (measures.md "Intervals") are biased
    under resampling: the percentile interval's middle above the value; an unbiased one is not."""
    y, s, _ = calibrated
    said = [m.name for m in list_measures() if m.intervals_doc]
    assert {"ECE", "MCE", "BRIER_MCB", "CA1", "CA2", "ECE_TOP", "ECE_CW"} <= set(said)
    binary = [n for n in said if perfeval.get_measure(n).kind == "binary"]
    got, _ = _quiet(ci, y, s, measures=[*binary, "roc", "brier"], n_boot=200, method="percentile")
    for name in binary:
        iv = got[name]
        assert (iv.low + iv.high) / 2 > iv.estimate + iv.se / 2, name
    for name in ("ROC", "BRIER"):
        iv = got[name]
        assert abs((iv.low + iv.high) / 2 - iv.estimate) < iv.se and not iv.note, name
    rng = np.random.default_rng(1)
    P = np.exp(rng.normal(size=(3000, 3)) * 1.5)
    P /= P.sum(1, keepdims=True)
    k = np.array([rng.choice(3, p=p) for p in P])
    multi = [n for n in said if perfeval.get_measure(n).kind != "binary" and n != "MAXERR"]
    got, _ = _quiet(ci, k, np.round(P, 3), measures=multi, n_boot=200, method="percentile")
    for name in multi:
        iv = got[name]
        assert (iv.low + iv.high) / 2 > iv.estimate + iv.se / 2, name


# -- a threshold's bounds ----------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_a_thresholds_bounds_are_achievable_thresholds(method):
    rng = np.random.default_rng(7)
    y = (rng.random(400) < 0.4).astype(int)
    s = np.round(rng.random(400) * 0.5 + 0.3 * y, 2)  # 2 decimals: 0.31725 or 0.4236 is no threshold
    specs = ["youden:of=threshold", "tpr_at_fpr@0.1:of=threshold", "best_mcc:of=threshold"]
    got, _ = _quiet(ci, y, s, measures=specs, n_boot=150, method=method)
    achievable = set(np.unique(s).tolist()) | {math.inf}
    for label, iv in got.items():
        assert iv.low in achievable and iv.high in achievable, (label, iv.low, iv.high)
        assert iv.low <= iv.estimate <= iv.high, label
    # the same bounds from a summary of the cases (the bootstrap of a stream's or Dask's summary)
    h = perfeval.ScoreHistogram.from_arrays(y, s)
    for label, iv in perfeval.stats.ci_from_summary(h, specs, n_boot=150, method="percentile").items():
        assert iv.low in achievable and iv.high in achievable, label


def test_a_thresholds_interval_is_the_interpolated_one_widened_to_replicates():
    from perfeval.stats.intervals import quantiles

    reps = np.array([0.3, 0.31, 0.31, 0.35, 0.4, 0.42, 0.5, 0.55, 0.6, 0.61])
    lin = quantiles(reps, (0.05, 0.95))
    obs = quantiles(reps, (0.05, 0.95), observed=True)
    assert obs[0] <= lin[0] and obs[1] >= lin[1] and set(obs) <= set(reps.tolist())
    assert obs == (0.3, 0.61) and lin != obs


# -- the command line --------------------------------------------------------------------------------
@pytest.fixture
def table(tmp_path, calibrated):
    y, s, coarse = calibrated
    path = tmp_path / "cal.csv"
    path.write_text("y,s,c\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, s, coarse, strict=True)))
    return str(path)


def test_the_command_says_an_interval_is_not_around_its_estimate(table, capsys):
    base = ["eval", table, "--target", "y", "--score", "s", "-m", "brier_mcb,roc", "--ci", "0.95"]
    base += ["--n-boot", "200"]
    assert main(base) == 0
    out, err = capsys.readouterr()
    row = next(line for line in out.splitlines() if line.startswith("BRIER_MCB "))
    assert row.split()[2:] == ["nan", "nan"]
    assert "(nan intervals: BRIER_MCB: no BCa interval: all 200 replicates lie above the estimate" in out
    assert "BootstrapBiasWarning" not in err and "warning" not in err  # said once, in the output
    assert main([*base, "--method", "percentile"]) == 0
    out, err = capsys.readouterr()
    said = "(not around the estimate: BRIER_MCB: the interval lies above the estimate: all 200 replicates do"
    assert said in out
    assert err == ""
    assert main([*base, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["measures"]
    assert got["BRIER_MCB"]["ci"]["note"].startswith("no BCa interval") and "note" not in got["ROC"]["ci"]
    assert got["BRIER_MCB"]["ci"]["low_why_null"] == got["BRIER_MCB"]["ci"]["note"]
    assert main([*base, "--method", "percentile", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("measure,value,ci_low,ci_high\n")
    assert err.startswith("perfeval: note: BRIER_MCB: the interval lies above the estimate")
    assert err.count("\n") == 1


def test_compare_says_a_difference_is_not_around_its_estimate(table, capsys):
    base = ["compare", table, "--target", "y", "--score", "c,s", "-m", "brier_mcb:form=murphy"]
    base += ["--n-boot", "200"]
    assert main([*base, "--method", "percentile"]) == 0
    out, err = capsys.readouterr()
    said = "(not around the difference: s BRIER_MCB:form=murphy: the interval lies above the difference"
    assert said in out
    assert "warning" not in err
    assert main([*base, "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert row["low"] is None and row["note"].startswith("no BCa interval")
    assert row["low_why_null"] == row["note"]


def test_the_report_says_an_interval_is_not_around_its_estimate(table, tmp_path, capsys):
    import re

    out = tmp_path / "cal.html"
    argv = ["--target", "y", "--score", "c,s", "-m", "brier_mcb:form=murphy", "--ci", "0.95"]
    argv += ["--n-boot", "200"]
    assert main(["report", table, *argv, "--method", "percentile", "-o", str(out)]) == 0
    text = re.sub(r"<[^>]+>", "", out.read_text(encoding="utf-8")).replace("&#x27;", "'")
    assert "Not around the estimate: BRIER_MCB:form=murphy of s: the interval lies above the estimate" in text
    said = "Not around the difference: BRIER_MCB:form=murphy (s - c): the interval lies above the difference"
    assert said in text
    assert "warning" not in capsys.readouterr().err
