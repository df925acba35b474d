"""Issue 33: Wald intervals of the logistic calibration fits (CAL_SLOPE, CAL_INTERCEPT fit=offset and
fit=joint): ``perfeval.ci(method="wald")``, ``ci_from_summary`` and ``perfeval eval --ci --method
wald``, checked against statsmodels' GLM Binomial and R's glm (tests/oracles/fixtures/
calibration_wald.json, made by tests/oracles/make_calibration_wald_fixture.py), and refused in one
line wherever they do not apply."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import InvalidParameterError
from perfeval.stats import ci, ci_from_summary, compare
from perfeval.summaries import ScoreHistogram

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "calibration_wald.json").read_text()
)
CASES = FIXTURE["cases"]
SPECS = {"slope": "cal_slope", "offset": "cal_intercept", "joint": "cal_intercept:fit=joint"}
LABELS = {"slope": "CAL_SLOPE", "offset": "CAL_INTERCEPT", "joint": "CAL_INTERCEPT:fit=joint"}


def _theirs(case: dict, tool: str, what: str, level: float) -> tuple[float, float, float, float]:
    """(estimate, se, low, high) of the tool's fit in the fixture."""
    if tool == "statsmodels":
        fit = case["statsmodels"]["offset" if what == "offset" else "joint"]
        i = {"offset": 0, "joint": 0, "slope": 1}[what]
        lo, hi = fit[f"ci{level:g}"][i]
        return fit["params"][i], fit["bse"][i], lo, hi
    r = case["R"]
    if what == "offset":
        lo, hi = r[f"offset.ci{level:g}"]
        return r["offset.params"][0], r["offset.bse"][0], lo, hi
    i = 0 if what == "joint" else 1
    ci4 = r[f"joint.ci{level:g}"]
    return r["joint.params"][i], r["joint.bse"][i], ci4[2 * i], ci4[2 * i + 1]


def _ours(case: dict, level: float) -> dict:
    w = None if case["w"] is None else np.array(case["w"])
    return ci(
        case["y"], case["s"], measures=list(SPECS.values()), method="wald", level=level, sample_weight=w
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_wald_intervals_are_statsmodels_glm_binomial(case):
    """statsmodels' GLM Binomial (freq_weights; the offset fit for calibration-in-the-large): the
    same coefficients (1e-12), standard errors and intervals at 0.95 and 0.9.  Its standard errors
    are read off the weights of its last IRLS step, whose coefficients are a step before the
    converged ones, so they agree to about 1e-8 (1e-7 allowed); perfeval's is the information at
    the fit itself (the 40-digit check below)."""
    for level in (0.95, 0.9):
        got = _ours(case, level)
        for what, label in LABELS.items():
            est, se, lo, hi = _theirs(case, "statsmodels", what, level)
            iv = got[label]
            assert iv.method == "wald" and iv.n_boot == 0 and iv.seed is None and iv.level == level
            assert iv.estimate == pytest.approx(est, rel=1e-12, abs=1e-13), what
            assert iv.se == pytest.approx(se, rel=1e-7), what
            assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-7, abs=1e-9), what


R_CASES = [c for c in CASES if "R" in c]


@pytest.mark.parametrize("case", R_CASES, ids=[c["name"] for c in R_CASES])
def test_wald_intervals_are_r_glm_confint_default(case):
    """R's glm(family = binomial, weights =) and confint.default: the same numbers to R's own
    convergence (its standard errors, as statsmodels', come from the weights of its last IRLS step:
    about 1e-8)."""
    for level in (0.95, 0.9):
        got = _ours(case, level)
        for what, label in LABELS.items():
            est, se, lo, hi = _theirs(case, "R", what, level)
            iv = got[label]
            assert iv.estimate == pytest.approx(est, rel=1e-12, abs=1e-13), what
            assert iv.se == pytest.approx(se, rel=1e-7), what
            assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-7, abs=1e-9), what


def test_wald_standard_error_is_the_information_at_the_fit_to_40_digits():
    """The case where statsmodels and R are furthest (1.5e-9 relative on the slope's error):
    Newton's method in 40-digit arithmetic over the rows, and the information at its fit, is
    perfeval's number to the last bits, not theirs."""
    mpmath = pytest.importorskip("mpmath")
    case = next(c for c in CASES if c["name"] == "wald8")
    mp = mpmath.mp.clone()
    mp.dps = 40
    y = case["y"]
    x = [mp.log(mp.mpf(v) / (1 - mp.mpf(v))) for v in case["s"]]
    a, b = mp.mpf(0), mp.mpf(1)
    for _ in range(12):  # Newton from (0, 1): converged to 40 digits well before
        g0 = g1 = h00 = h01 = h11 = mp.mpf(0)
        for xi, yi in zip(x, y, strict=True):
            p = 1 / (1 + mp.exp(-(a + b * xi)))
            v = p * (1 - p)
            g0, g1 = g0 + (yi - p), g1 + (yi - p) * xi
            h00, h01, h11 = h00 + v, h01 + v * xi, h11 + v * xi * xi
        det = h00 * h11 - h01 * h01
        a, b = a + (h11 * g0 - h01 * g1) / det, b + (h00 * g1 - h01 * g0) / det
    got = ci(case["y"], case["s"], measures=["cal_slope", "cal_intercept:fit=joint"], method="wald")
    assert got["CAL_SLOPE"].se == pytest.approx(float(mp.sqrt(h00 / det)), rel=1e-14)
    assert got["CAL_INTERCEPT:fit=joint"].se == pytest.approx(float(mp.sqrt(h11 / det)), rel=1e-14)
    theirs = case["statsmodels"]["joint"]["bse"][1]
    assert abs(theirs - float(mp.sqrt(h00 / det))) > 1e3 * abs(
        got["CAL_SLOPE"].se - float(mp.sqrt(h00 / det))
    )


def test_enough_fixture_cases_of_each_kind():
    kinds = {"none": 0, "counts": 0, "fractional": 0}
    for c in CASES:
        w = c["w"]
        kinds["none" if w is None else "counts" if all(v == round(v) for v in w) else "fractional"] += 1
    assert all(v >= 3 for v in kinds.values()) and len(R_CASES) >= 8, kinds


def _slow_wald(y, s, w, what):
    """The textbook Wald standard error from the rows: Newton's method on the rows (not the distinct
    scores), then the inverse of sum w p (1 - p) [1, x] [1, x]^T."""
    y, s = np.asarray(y, float), np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    x = np.log(s / (1 - s))
    beta = np.zeros(2 if what != "offset" else 1)
    for _ in range(100):
        eta = beta[0] + (beta[1] * x if what != "offset" else x)
        p = 1 / (1 + np.exp(-eta))
        X = np.c_[np.ones(len(x)), x] if what != "offset" else np.ones((len(x), 1))
        grad = X.T @ (w * (y - p))
        info = (X * (w * p * (1 - p))[:, None]).T @ X
        step = np.linalg.solve(info, grad)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-13:
            break
    cov = np.linalg.inv(info)
    i = 1 if what == "slope" else 0
    return beta[i], math.sqrt(cov[i, i])


@pytest.mark.parametrize("seed", range(8))
def test_wald_equals_the_row_reference_and_weights_are_frequencies(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 300))
    s = np.clip(np.round(rng.beta(2, 2, n), 2), 0.01, 0.99)
    y = (rng.random(n) < s ** (0.6 + rng.random())).astype(int)
    w = rng.integers(1, 4, n).astype(float)
    got = ci(y, s, measures=list(SPECS.values()), method="wald", sample_weight=w)
    rep = np.repeat(np.arange(n), w.astype(int))  # each case repeated as many times as its weight
    same = ci(y[rep], s[rep], measures=list(SPECS.values()), method="wald")
    for what, label in LABELS.items():
        est, se = _slow_wald(y, s, w, what)
        assert got[label].estimate == pytest.approx(est, rel=1e-10, abs=1e-12)
        assert got[label].se == pytest.approx(se, rel=1e-9)
        assert got[label] == same[label]  # a weight of 2 is two cases: the same summary, the same bits
        # the estimate is the measure's value, to the bit
        assert got[label].estimate == perfeval.evaluate(y, s, sample_weight=w, measures=[SPECS[what]])[label]


def test_wald_from_a_merged_summary_is_the_same_interval():
    rng = np.random.default_rng(5)
    n = 3000
    s = np.round(rng.beta(2, 3, n), 3)
    s = np.clip(s, 0.001, 0.999)
    y = (rng.random(n) < s).astype(int)
    merged = ScoreHistogram.merge_all(
        [ScoreHistogram.from_arrays(y[k : k + 700], s[k : k + 700]) for k in range(0, n, 700)]
    )
    specs = list(SPECS.values())
    assert ci_from_summary(merged, specs, method="wald", level=0.9) == ci(
        y, s, measures=specs, method="wald", level=0.9
    )
    # Wald's reads weights as frequencies: a weighted summary is no obstacle (the bootstrap's is)
    w = rng.uniform(0.5, 2, n)
    h = ScoreHistogram.from_arrays(y, s, w)
    assert ci_from_summary(h, "cal_slope", method="wald") == ci(
        y, s, measures="cal_slope", method="wald", sample_weight=w
    )


def test_wald_is_refused_in_one_line_where_it_does_not_apply():
    rng = np.random.default_rng(2)
    s = np.clip(np.round(rng.random(200), 2), 0.01, 0.99)
    y = (rng.random(200) < s).astype(int)
    for spec in ("roc", "ece", "brier_mcb"):
        with pytest.raises(
            InvalidParameterError, match=r"^Wald's interval is for the logistic calibration fits .* not "
        ):
            ci(y, s, measures=["cal_slope", spec], method="wald")
        with pytest.raises(
            InvalidParameterError, match="Wald's interval is for the logistic calibration fits"
        ):
            ci_from_summary(ScoreHistogram.from_arrays(y, s), [spec], method="wald")
    with pytest.raises(InvalidParameterError, match="not CAL_SLOPE per group"):
        ci(y, s, measures="cal_slope", method="wald", groups=np.arange(200) % 4)
    with pytest.raises(InvalidParameterError, match="a comparison has no Wald test"):
        compare(y, s, s[::-1], measures="cal_slope", method="wald")
    P = np.c_[1 - s, s * 0.5, s * 0.5]
    with pytest.raises(
        InvalidParameterError, match="Wald's interval is for the logistic calibration fits of two classes"
    ):
        ci(np.arange(200) % 3, P, measures="ece_top", method="wald")


def test_wald_without_a_fit_is_nan_and_says_why():
    # a score of exactly 1: no logit, no fit; scores that separate the classes: no finite slope
    for y, s, label in (
        ([0, 1, 1, 0], [0.2, 1.0, 0.7, 0.4], "CAL_INTERCEPT"),
        ([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.8], "CAL_SLOPE"),
    ):
        iv = ci(y, s, measures=[label.lower()], method="wald")[label]
        assert math.isnan(iv.estimate) and math.isnan(iv.low) and math.isnan(iv.se)
        d = iv.to_dict()
        assert d["low"] is None and "no interval: the estimate is not a finite number" in d["low_why_null"]
        assert d["seed_why_null"] == "Wald's method draws no replicates"
    # separated classes, offset fit: calibration-in-the-large has its finite fit and interval
    iv = ci([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.8], measures="cal_intercept", method="wald")["CAL_INTERCEPT"]
    assert math.isfinite(iv.low) and iv.low < iv.estimate < iv.high


def test_cli_eval_wald(tmp_path, capsys):
    rng = np.random.default_rng(9)
    n = 500
    s = np.clip(np.round(rng.beta(2, 3, n), 2), 0.01, 0.99)
    y = (rng.random(n) < s**1.2).astype(int)
    f = tmp_path / "p.csv"
    f.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=True)))
    specs = "cal_slope,cal_intercept,cal_intercept:fit=joint"
    assert (
        main(
            ["eval", str(f), "--target", "y", "--score", "p", "-m", specs, "--ci", "0.9", "--method", "wald"]
        )
        == 0
    )
    out = capsys.readouterr().out
    want = ci(y, s, measures=specs.split(","), method="wald", level=0.9)
    for label, iv in want.items():
        line = next(ln for ln in out.splitlines() if ln.split()[0] == label)
        assert line.split()[2:4] == [f"{iv.low:.6f}", f"{iv.high:.6f}"]
    assert "(90% intervals: Wald, the logistic fit's standard errors)" in out
    assert "ci:wald,level=0.9" in out
    for extra in ([], ["--stream"]):
        assert (
            main(
                [
                    "eval",
                    str(f),
                    "--target",
                    "y",
                    "--score",
                    "p",
                    "-m",
                    "cal_slope",
                    "--ci",
                    "0.9",
                    "--method",
                    "wald",
                    "--format",
                    "json",
                    *extra,
                ]
            )
            == 0
        )
        j = json.loads(capsys.readouterr().out)["measures"]["CAL_SLOPE"]["ci"]
        assert (
            j["method"] == "wald"
            and j["low"] == want["CAL_SLOPE"].low
            and j["seed_why_null"] == "Wald's method draws no replicates"
        )
    assert (
        main(
            [
                "eval",
                str(f),
                "--target",
                "y",
                "--score",
                "p",
                "-m",
                "cal_slope,roc",
                "--ci",
                "0.9",
                "--method",
                "wald",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "Wald's interval is for the logistic calibration fits" in err
        and "not ROC" in err
    )


def test_wald_coverage_of_the_true_coefficients():
    """400 seeded data sets of 400 cases whose outcomes follow logit P(y = 1) = a + b logit(score)
    (a = -0.3, b = 0.8; and, for calibration-in-the-large, a = 0.4 with b = 1): the 95% intervals hold
    the true coefficient in 92.5-97.5% of them (a count over seeded repeats, not a timing)."""
    held = {"slope": 0, "joint": 0, "offset": 0}
    R = 400
    for r in range(R):
        rng = np.random.default_rng(10_000 + r)
        s = np.clip(np.round(rng.beta(2, 2, 400), 3), 0.001, 0.999)
        x = np.log(s) - np.log1p(-s)
        y = (rng.random(400) < 1 / (1 + np.exp(-(-0.3 + 0.8 * x)))).astype(int)
        got = ci(y, s, measures=["cal_slope", "cal_intercept:fit=joint"], method="wald")
        held["slope"] += got["CAL_SLOPE"].low <= 0.8 <= got["CAL_SLOPE"].high
        held["joint"] += got["CAL_INTERCEPT:fit=joint"].low <= -0.3 <= got["CAL_INTERCEPT:fit=joint"].high
        y1 = (rng.random(400) < 1 / (1 + np.exp(-(0.4 + x)))).astype(int)
        off = ci(y1, s, measures="cal_intercept", method="wald")["CAL_INTERCEPT"]
        held["offset"] += off.low <= 0.4 <= off.high
    for what, k in held.items():
        assert 0.925 * R <= k <= 0.975 * R, (what, k)


def test_report_wald_intervals_and_the_default_comparisons(tmp_path, capsys):
    """`perfeval report --ci --method wald` of two models: Wald's intervals in the measures table;
    the comparisons (Wald's has no test of a difference) take their default, the row saying which;
    `perfeval compare --method wald` is refused in one line."""
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(12)
    n = 400
    s = np.clip(np.round(rng.beta(2, 3, n), 2), 0.01, 0.99)
    t = np.clip(np.round(s + rng.normal(0, 0.05, n), 3), 0.01, 0.99)
    y = (rng.random(n) < s).astype(int)
    f = tmp_path / "m.csv"
    f.write_text("y,p,q\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, s, t, strict=True)))
    out = tmp_path / "r.html"
    argv = ["--target", "y", "--score", "p,q", "-m", "cal_slope", "--method", "wald"]
    assert main(["report", str(f), *argv, "--ci", "0.95", "-o", str(out)]) == 0
    text = out.read_text()
    want = ci(y, s, measures="cal_slope", method="wald")["CAL_SLOPE"]
    assert "Wald, the logistic fit&#x27;s standard errors" in text and "ci:wald,level=0.95" in text
    assert f"[{want.low:.6f}, {want.high:.6f}]" in text
    assert "Paired bca bootstrap" in text
    capsys.readouterr()
    assert main(["compare", str(f), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a comparison has no Wald test here: use --method bca" in err


def test_stream_with_weights_gives_walds_interval_as_in_memory(tmp_path, capsys):
    """Wald's interval draws no replicate: ``--stream --weight`` was refused as if it did; it is the
    in-memory interval, weights included (docs/statistics.md)."""

    rng = np.random.default_rng(12)
    n = 500
    s = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < s).astype(int)
    w = rng.uniform(0.5, 2.0, n)
    p = tmp_path / "f.csv"
    p.write_text(
        "y,s,w\n" + "".join(f"{a},{b!r},{c!r}\n" for a, b, c in zip(y, s.tolist(), w.tolist(), strict=True))
    )
    argv = ["eval", str(p), "--target", "y", "--score", "s", "--weight", "w", "-m", "cal_slope,cal_intercept"]
    argv += ["--ci", "0.95", "--method", "wald", "--format", "json"]
    got = []
    for extra in ([], ["--stream"]):
        capsys.readouterr()
        assert main([*argv, *extra]) == 0
        got.append(json.loads(capsys.readouterr().out)["measures"])
    for label in ("CAL_SLOPE", "CAL_INTERCEPT"):
        mem, stream = got[0][label]["ci"], got[1][label]["ci"]
        assert math.isfinite(mem["low"]) and mem["low"] < mem["high"]
        assert stream["low"] == pytest.approx(mem["low"], rel=1e-12)
        assert stream["high"] == pytest.approx(mem["high"], rel=1e-12)
    capsys.readouterr()
    assert main([*argv[:-6], "--ci", "0.95", "--method", "percentile", "--stream"]) == 2
    assert "--ci with --stream or --dask is for measures over all cases" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--group", "g"]])
def test_wald_refused_on_the_command_line_before_any_data(tmp_path, capsys, extra):
    """--method wald of a measure with no Wald interval (or per group) is one line before the file
    is read: it came after the measures were computed, under their warnings (a score of 0: CAL_SLOPE
    undefined), so the error was not the only line."""
    from perfeval.cli.main import main

    f = tmp_path / "d.csv"
    f.write_text("y,p,g\n1,0.0,1\n0,0.3,1\n1,0.8,2\n0,0.6,2\n1,0.9,1\n")
    argv = ["--target", "y", "--score", "p", "-m", "cal_slope,ece", "--ci", "0.9", "--method", "wald"]
    for path in (f, tmp_path / "absent.csv"):  # the same line, whether the file is there or not
        assert main(["eval", str(path), *argv, *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("perfeval: error: Wald's interval is for"), err
        assert ("not CAL_SLOPE per group" if extra[:1] == ["--group"] else "not ECE") in err
