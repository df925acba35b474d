"""Partial AUC (PAUC), raw and McClish-standardised, over an FPR or a TPR range: against a
brute-force integration of the chord curve built from the rows, scikit-learn's
``roc_auc_score(max_fpr=)`` (McClish on FPR [0, max_fpr]) and R's pROC ``auc(partial.auc=,
partial.auc.focus=, partial.auc.correct=)`` (run with Rscript; skipped with the reason where R or
pROC is missing).
"""

from __future__ import annotations

import math
import shutil
import subprocess
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.exceptions import InvalidParameterError, UndefinedMeasureWarning


def chord_points(y, s, w):
    """(FPR, TPR) of the chord ROC curve from the rows: (0, 0), then one point per distinct score
    from the highest, its counts summed over the rows with score >= it."""
    y, s = np.asarray(y, float), np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    P, N = np.sum(w * y), np.sum(w * (1 - y))
    xs, ys = [0.0], [0.0]
    for t in sorted(set(s.tolist()), reverse=True):
        pred = s >= t
        xs.append(np.sum(w * (1 - y) * pred) / N)
        ys.append(np.sum(w * y * pred) / P)
    return np.array(xs), np.array(ys)


def brute(y, s, w, lo, hi, focus, correct, grid=200_000):
    """The midpoint rule on a fine grid over [lo, hi], the curve's height at each x read off the
    chord by interpolation (np.interp): an integration independent of the measure's clipping."""
    fx, ty = chord_points(y, s, w)
    if focus == "fpr":
        x, h = fx, ty
        least = (hi * hi - lo * lo) / 2
    else:
        x, h = ty, 1 - fx
        least = (hi - lo) - (hi * hi - lo * lo) / 2
    mids = lo + (np.arange(grid) + 0.5) * (hi - lo) / grid
    area = float(np.mean(np.interp(mids, x, h)) * (hi - lo))
    return area if correct == "raw" else (1 + (area - least) / ((hi - lo) - least)) / 2


def pauc(y, s, w=None, **kw) -> float:
    spec = "pauc:" + ",".join(f"{k}={v}" for k, v in kw.items())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (
            perfeval.evaluate(y, s, sample_weight=w, measures=[spec])
            .results[perfeval.measures.parse_measure(spec).label]
            .value
        )


@st.composite
def cases(draw):
    n = draw(st.integers(4, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < 0.5).astype(float)
    y[:2] = [0, 1]
    s = np.round(rng.random(n) + draw(st.floats(-0.5, 0.8)) * y, draw(st.sampled_from([0, 1, 2])))
    w = rng.integers(1, 4, n).astype(float) if draw(st.booleans()) else None
    a, b = sorted(
        draw(
            st.lists(
                st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.5, 0.77, 1.0]), min_size=2, max_size=2, unique=True
            )
        )
    )
    return y, s, w, a, b


@settings(max_examples=100, deadline=None)
@given(cases(), st.sampled_from(["fpr", "tpr"]), st.sampled_from(["raw", "mcclish"]))
def test_the_integral_of_the_chord_curve(c, focus, correct):
    y, s, w, lo, hi = c
    got = pauc(y, s, w, hi=hi, lo=lo, focus=focus, correct=correct)
    want = brute(y, s, w, lo, hi, focus, correct)
    # the midpoint rule is off by at most one step at a jump of the curve; McClish scales the area
    # by 1 / (2 (max - min))
    step = (hi - lo) / 200_000
    least = (hi * hi - lo * lo) / 2 if focus == "fpr" else (hi - lo) - (hi * hi - lo * lo) / 2
    tol = step if correct == "raw" else step / (2 * ((hi - lo) - least))
    assert abs(got - want) <= tol, (got, want)


def test_the_whole_range_is_the_roc_area():
    rng = np.random.default_rng(3)
    y = (rng.random(300) < 0.3).astype(float)
    s = np.round(rng.random(300) + 0.4 * y, 1)
    roc = perfeval.evaluate(y, s, measures=["roc"])["ROC"]
    for focus in ("fpr", "tpr"):
        for correct in ("raw", "mcclish"):
            assert abs(pauc(y, s, hi=1, lo=0, focus=focus, correct=correct) - roc) < 1e-14


@settings(max_examples=60, deadline=None)
@given(cases())
def test_sklearn_max_fpr_is_mcclish_on_0_to_max_fpr(c):
    from sklearn.metrics import roc_auc_score

    y, s, w, _lo, hi = c
    if hi >= 1:
        return
    want = roc_auc_score(y, s, max_fpr=hi, sample_weight=w)
    assert abs(pauc(y, s, w, hi=hi, correct="mcclish") - want) < 1e-12


def test_below_the_chance_line_mcclish_is_below_half_as_sklearn():
    from sklearn.metrics import roc_auc_score

    y, s = [1, 1, 0, 0, 1, 0], [0.1, 0.2, 0.9, 0.8, 0.3, 0.7]
    got = pauc(y, s, hi=0.5, correct="mcclish")
    assert got < 0.5 and abs(got - roc_auc_score(y, s, max_fpr=0.5)) < 1e-12


def test_a_range_that_is_no_range_and_one_class():
    with pytest.raises(InvalidParameterError, match=r"PAUC@0.2:lo=0.3: `lo` must be < `hi`"):
        perfeval.evaluate([1, 0], [0.8, 0.2], measures=["pauc:hi=0.2,lo=0.3"])
    with pytest.warns(
        UndefinedMeasureWarning,
        match="PAUC is undefined for this data: one class only: all 2 cases are positive$",
    ):
        assert math.isnan(perfeval.evaluate([1, 1], [0.8, 0.2], measures=["pauc"])["PAUC"])


# -- R's pROC --------------------------------------------------------------------------------------
def _r_has_proc() -> str:
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (R with pROC: apt-get install r-cran-proc)"
    r = subprocess.run(["Rscript", "-e", "library(pROC)"], capture_output=True, timeout=120)
    return "" if r.returncode == 0 else "R's pROC is not installed (apt-get install r-cran-proc)"


@pytest.fixture(scope="module")
def proc_reason():
    return _r_has_proc()


def _proc_cases():
    rng = np.random.default_rng(33)
    out = []
    for i in range(12):
        n = int(rng.integers(8, 80))
        y = (rng.random(n) < 0.45).astype(int)
        y[:2] = [0, 1]
        s = np.round(rng.random(n) + (0.6 if i % 3 else -0.3) * y, 1 if i % 2 else 3)
        out.append((y, s))
    return out


RANGES = [(0.0, 0.1), (0.0, 0.37), (0.2, 0.6), (0.9, 1.0), (0.0, 1.0)]


def test_proc_partial_auc_raw_and_mcclish_both_foci(proc_reason, tmp_path):
    if proc_reason:
        pytest.skip(proc_reason)
    lines = ["library(pROC)", "options(digits=17)", "suppressWarnings({"]
    want = []
    for i, (y, s) in enumerate(_proc_cases()):
        f = tmp_path / f"c{i}.csv"
        f.write_text("y,s\n" + "".join(f"{int(a)},{float(b)!r}\n" for a, b in zip(y, s, strict=True)))
        lines.append(f"d <- read.csv('{f}'); r <- roc(d$y, d$s, levels=c(0, 1), direction='<', quiet=TRUE)")
        for lo, hi in RANGES:
            for focus in ("fpr", "tpr"):
                rng = f"c({1 - lo!r}, {1 - hi!r})" if focus == "fpr" else f"c({hi!r}, {lo!r})"
                pf = "specificity" if focus == "fpr" else "sensitivity"
                for correct in ("raw", "mcclish"):
                    corr = "TRUE" if correct == "mcclish" else "FALSE"
                    lines.append(
                        f"cat(as.numeric(auc(r, partial.auc={rng}, partial.auc.focus='{pf}', "
                        f"partial.auc.correct={corr})), '\\n')"
                    )
                    want.append((y, s, lo, hi, focus, correct))
    lines.append("})")
    script = tmp_path / "proc.R"
    script.write_text("\n".join(lines) + "\n")
    out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, timeout=300, check=True)
    values = [float(v) if v != "NA" else math.nan for v in out.stdout.split()]
    assert len(values) == len(want)
    compared = 0
    for v, (y, s, lo, hi, focus, correct) in zip(values, want, strict=True):
        ours = pauc(y, s, hi=hi, lo=lo, focus=focus, correct=correct)
        if math.isnan(v):  # pROC's NA: McClish below the chance line; ours the number below 0.5
            assert correct == "mcclish" and ours < 0.5, (focus, lo, hi, ours)
            continue
        assert abs(ours - v) < 1e-12, (focus, lo, hi, correct, ours, v)
        compared += 1
    assert compared > len(want) // 2


@pytest.mark.parametrize("weighted", [False, True])
def test_explain_and_the_sklearn_dialect_show_sklearns_max_fpr(weighted):
    """The "sklearn" row of explain (and dialect="sklearn") under PAUC@b is roc_auc_score(max_fpr=b):
    McClish's form whatever perfeval's spec asks, with the rule said; a lo it has not is refused."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(11)
    y = (rng.random(400) < 0.3).astype(int)
    s = np.round(rng.random(400) + 0.3 * y, 1)
    w = rng.integers(1, 4, 400).astype(float) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = perfeval.explain(y, s, measures=["pauc@0.15"], sample_weight=w)
        d = perfeval.evaluate(y, s, measures=["pauc@0.15"], sample_weight=w, dialect="sklearn")
    want = roc_auc_score(y, s, max_fpr=0.15, sample_weight=w)
    assert abs(e.value("sklearn", "PAUC@0.15") - want) < 1e-12 and abs(d["PAUC@0.15"] - want) < 1e-12
    assert abs(e.value("perfeval", "PAUC@0.15") - want) > 0.1  # the raw area is another number
    assert any(
        "McClish" in r for r in e.cells["sklearn"]["PAUC@0.15"].rules + [e.cells["sklearn"]["PAUC@0.15"].note]
    )
    with pytest.raises(InvalidParameterError, match="lo=0.0"):
        perfeval.evaluate(y, s, measures=["pauc@0.15:lo=0.05"], dialect="sklearn")


# -- lo < hi is checked with the spec, before any data is read ------------------------------------
NO_RANGE = ["pauc:lo=0.5,hi=0.2", "pauc@0.3:lo=0.3", "pauc:lo=0.2"]  # the last: hi's default 0.1


@pytest.mark.parametrize("text", NO_RANGE)
def test_no_range_is_refused_when_the_spec_is_parsed(text):
    from perfeval.measures import get_measure, parse_measure

    with pytest.raises(InvalidParameterError, match=r"^PAUC\S*: `lo` must be < `hi` \(a range\), got lo="):
        parse_measure(text)
    # before the data: rows that are no data at all do not come first
    with pytest.raises(InvalidParameterError, match="`lo` must be < `hi`"):
        perfeval.evaluate([1, 0, 2], [math.nan, 0.2], measures=[text])
    with pytest.raises(InvalidParameterError, match="`lo` must be < `hi`"):
        perfeval.Metric([text])
    with pytest.raises(InvalidParameterError, match="`lo` must be < `hi`"):
        perfeval.functional.scorer("pauc", lo=0.5, hi=0.2)
    with pytest.raises(InvalidParameterError, match="PAUC: `lo` must be < `hi`"):  # the registry's entry
        get_measure("pauc")(perfeval.summaries.ScoreHistogram.from_arrays([1, 0], [0.8, 0.2]), lo=0.5, hi=0.2)


def test_a_stream_is_refused_before_its_first_chunk():
    from perfeval.backends.stream import evaluate_stream

    read = []

    def chunks():
        read.append(1)
        yield [1, 0], [0.8, 0.2]

    with pytest.raises(InvalidParameterError, match="`lo` must be < `hi`"):
        evaluate_stream(chunks(), measures=["pauc:lo=0.5,hi=0.2"])
    assert read == []


@pytest.mark.parametrize("stream", [False, True])
def test_the_command_refuses_before_reading(tmp_path, capsys, stream):
    """Exit 2 and the spec's line, not the bad row at the end of the file (which a run reading its
    data first would report, exit 1)."""
    from perfeval.cli.main import main

    f = tmp_path / "d.csv"
    f.write_text("y,score\n1,0.9\n0,0.2\n1,0.4\n0,0.5\n1,oops\n")
    rc = main(["eval", str(f), "-m", "pauc:lo=0.5,hi=0.2", *(["--stream"] if stream else [])])
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert err.splitlines() == [
        "perfeval: error: PAUC@0.2:lo=0.5: `lo` must be < `hi` (a range), got lo=0.5, hi=0.2"
    ]
