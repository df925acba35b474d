"""Issue 33, part calib: the binary calibration measures against slow references on the rows and
against their peers (torchmetrics, netcal and statsmodels through tests/oracles/fixtures/calibration.json,
made by tests/oracles/make_calibration_fixture.py; R's glm called live when Rscript is installed).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "calibration.json").read_text()
)


def value(y, s, spec, w=None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (r,) = perfeval.evaluate(y, s, sample_weight=w, measures=[spec]).results.values()
    return r.value


# -- slow references, row by row ---------------------------------------------------------------------
def ref_bins(s, w, bins, B, edges=None):
    """Each row's bin, by the documented rule, one row at a time (``edges``: another tool's edges
    instead of k / B).
    """
    out = []
    total = sum(w)
    e = [k / B for k in range(B + 1)] if edges is None else list(edges)
    for si in s:
        if bins == "width":
            b = next(k for k in range(B) if (e[k] <= si < e[k + 1]) or (k == B - 1 and si == 1.0))
        else:
            below = sum(wj for sj, wj in zip(s, w, strict=True) if sj < si)
            b = max(k for k in range(B) if k * total <= B * below)
        out.append(b)
    return out


def ref_ece(y, s, w, bins="width", B=15, norm="l1", debiased=False, extra_bin=False, edges=None):
    """The binned calibration error from the rows (extra_bin: torchmetrics' own bin for a score of 1;
    edges: another tool's bin edges).
    """
    b = ref_bins(s, w, bins, B, edges)
    if extra_bin:
        b = [B if si == 1.0 else bi for bi, si in zip(b, s, strict=True)]
    n = sum(w)
    terms, gaps = 0.0, []
    for k in sorted(set(b)):
        rows = [i for i in range(len(s)) if b[i] == k]
        wk = sum(w[i] for i in rows)
        if wk == 0:
            continue
        yk = sum(w[i] * y[i] for i in rows) / wk
        sk = sum(w[i] * s[i] for i in rows) / wk
        gaps.append(abs(yk - sk))
        if norm == "l1":
            terms += wk / n * abs(yk - sk)
        else:
            terms += wk / n * (yk - sk) ** 2
            if debiased and wk > 1:
                terms -= wk / n * yk * (1 - yk) / (wk - 1)
    if norm == "max":
        return max(gaps)
    return math.sqrt(max(terms, 0.0)) if norm == "l2" else terms


def random_case(rng, weighted=False):
    n = int(rng.integers(1, 60))
    s = np.round(rng.random(n), int(rng.integers(0, 3)))
    y = (rng.random(n) < s).astype(float)
    w = rng.integers(0, 4, n).astype(float) if weighted else np.ones(n)
    return y, s, w


@pytest.mark.parametrize("seed", range(40))
def test_ece_equals_the_row_reference_for_every_estimator(seed):
    rng = np.random.default_rng(seed)
    y, s, w = random_case(rng, weighted=seed % 2 == 1)
    if w.sum() == 0:
        w[0] = 1.0
    for bins in ("width", "mass"):
        for B in (1, 3, 10):
            for norm in ("l1", "l2", "max"):
                spec = f"ece:bins={bins},n_bins={B},norm={norm}"
                got = value(y, s, spec, w)
                assert got == pytest.approx(ref_ece(y, s, w, bins, B, norm), rel=1e-12, abs=1e-15), spec
            got = value(y, s, f"ece:bins={bins},n_bins={B},norm=l2,debiased=yes", w)
            assert got == pytest.approx(ref_ece(y, s, w, bins, B, "l2", True), rel=1e-12, abs=1e-15)
            assert value(y, s, f"mce:bins={bins},n_bins={B}", w) == value(
                y, s, f"ece:bins={bins},n_bins={B},norm=max", w
            )


def test_equal_mass_bins_never_split_a_tie_and_a_score_of_one_is_in_the_last_bin():
    from perfeval.measures.calibration import bin_of_cells

    # 4 cases: a tie of 3 at 0.5 (75% of the weight) and one at 0.9: 4 bins, the tie whole in bin 0
    assert bin_of_cells(np.array([0.5, 0.9]), np.array([3.0, 1.0]), bins="mass", n_bins=4).tolist() == [0, 3]
    assert bin_of_cells(np.array([0.0, 0.1, 0.2, 1.0]), np.ones(4), bins="width", n_bins=10).tolist() == [
        0,
        1,
        2,
        9,
    ]


def test_ece_of_scores_outside_unit_interval_is_nan_and_debiased_needs_l2_and_counts():
    assert math.isnan(value([0, 1], [0.2, 1.5], "ece"))
    # no debiased form of the L1 norm or the maximum: refused when the spec is read (Measure.check),
    # one line naming the spec, before any data is read; ECE_TOP alike
    for spec in ("ece:debiased=yes", "ece:debiased=yes,norm=max"):
        with pytest.raises(InvalidParameterError, match="give norm=l2"):
            perfeval.evaluate([0, 1], [0.2, 0.7], measures=[spec])
    with pytest.raises(InvalidParameterError, match="whole-number weights"):
        perfeval.evaluate([0, 1], [0.2, 0.7], sample_weight=[0.5, 1], measures=["ece:norm=l2,debiased=yes"])


# -- the peers ------------------------------------------------------------------------------------------
CASES = FIXTURE["cases"]


def test_fixture_names_the_tools_that_made_it():
    assert FIXTURE["tools"]["torchmetrics"] == "1.9.0" and FIXTURE["tools"]["netcal"] == "1.4.0"
    assert FIXTURE["generated_by"] == "tests/oracles/make_calibration_fixture.py"
    assert any(1.0 in c["s"] for c in CASES) and any(1.0 not in c["s"] for c in CASES)


def on_moved_edge(s, B, edges) -> bool:
    """A score lies on an edge that the tool's edges put an ulp away from k / B."""
    moved = {k / B for k in range(B + 1) if edges[k] != k / B}
    return any(v in moved for v in s)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ece_equals_torchmetrics_binary_calibration_error_but_for_its_bins(case):
    """Equal to torchmetrics (float64 tensors) when no score is exactly 1.0 and none lies on an edge
    where torch.linspace(0, 1, n_bins + 1) is an ulp off k / n_bins.  Otherwise torchmetrics' value is
    the row reference with ITS bins: an extra bin holding the scores of 1.0 (torchmetrics#3510; here
    they are in the last bin) and its linspace edges (a score of 0.3 in the bin below 0.30000000000000004
    with 10 bins; here in the bin from 0.3): the differences the explain row states.
    """
    y, s, B = np.array(case["y"]), np.array(case["s"]), case["n_bins"]
    tm, edges = case["torchmetrics"], case["torch_edges"]
    w = np.ones(len(y))
    same_bins = 1.0 not in case["s"] and not on_moved_edge(case["s"], B, edges)
    for norm in ("l1", "l2", "max"):
        theirs = tm[norm]
        ref = ref_ece(y, s, w, "width", B, norm, extra_bin=True, edges=edges)
        assert theirs == pytest.approx(ref, rel=1e-9, abs=1e-12)
        if same_bins:
            assert value(y, s, f"ece:n_bins={B},norm={norm}") == pytest.approx(theirs, rel=1e-9, abs=1e-12), (
                norm
            )
    if same_bins:
        ours = value(y, s, f"ece:n_bins={B},norm=l2,debiased=yes")
        assert ours == pytest.approx(tm["l2_debias"], rel=1e-9, abs=1e-12)


def test_torchmetrics_bins_move_its_values_on_some_cases():
    differ = 0
    for c in CASES:
        y, s, B = np.array(c["y"]), np.array(c["s"]), c["n_bins"]
        if 1.0 in c["s"] or on_moved_edge(c["s"], B, c["torch_edges"]):
            differ += abs(value(y, s, f"ece:n_bins={B},norm=max") - c["torchmetrics"]["max"]) > 1e-9
    assert differ > 0  # the extra bin and the edges change torchmetrics' MCE on some cases


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ece_and_mce_equal_netcal_but_for_its_edges(case):
    """netcal clips scores to [eps, 1 - eps] (a score of 1.0 in the last bin, as here) and bins with
    np.histogramdd over np.linspace(0, 1, n_bins + 1): equal to perfeval's unless a score lies on an
    edge where np.linspace is an ulp off k / n_bins; then equal to the reference with netcal's edges.
    The clipping moves a value by about 1e-16.
    """
    y, s, B = np.array(case["y"]), np.array(case["s"]), case["n_bins"]
    edges = np.linspace(0, 1, B + 1).tolist()
    w = np.ones(len(y))
    assert case["netcal"]["ece"] == pytest.approx(
        ref_ece(y, s, w, "width", B, "l1", edges=edges), rel=1e-9, abs=1e-12
    )
    assert case["netcal"]["mce"] == pytest.approx(
        ref_ece(y, s, w, "width", B, "max", edges=edges), rel=1e-9, abs=1e-12
    )
    if not on_moved_edge(case["s"], B, edges):
        assert value(y, s, f"ece:n_bins={B}") == pytest.approx(case["netcal"]["ece"], rel=1e-9, abs=1e-12)
        assert value(y, s, f"mce:n_bins={B}") == pytest.approx(case["netcal"]["mce"], rel=1e-9, abs=1e-12)


FITTED = [c for c in CASES if "slope" in c["statsmodels"]]


@pytest.mark.parametrize("case", FITTED, ids=[c["name"] for c in FITTED])
def test_slope_and_intercepts_equal_statsmodels_glm(case):
    y, s = np.array(case["y"]), np.array(case["s"])
    sm = case["statsmodels"]
    assert value(y, s, "cal_slope") == pytest.approx(sm["slope"], rel=1e-8, abs=1e-10)
    assert value(y, s, "cal_intercept:fit=joint") == pytest.approx(sm["intercept_joint"], rel=1e-8, abs=1e-10)
    assert value(y, s, "cal_intercept") == pytest.approx(sm["intercept_offset"], rel=1e-8, abs=1e-10)


def test_enough_fitted_cases():
    assert len(FITTED) >= 8


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed (Rscript not found)")
def test_slope_and_intercepts_equal_r_glm_with_weights(tmp_path):
    rng = np.random.default_rng(7)
    n = 300
    s = np.round(rng.beta(2, 3, n), 2).clip(0.01, 0.99)
    y = (rng.random(n) < s**0.7).astype(float)
    w = rng.integers(1, 5, n).astype(float)
    f = tmp_path / "d.csv"
    np.savetxt(f, np.c_[y, s, w], delimiter=",", header="y,s,w", comments="")
    code = (
        f"d <- read.csv('{f}'); L <- qlogis(d$s); ctl <- glm.control(epsilon=1e-14, maxit=100); "
        "j <- glm(y ~ L, family=binomial, weights=w, data=d, control=ctl); "
        "o <- glm(y ~ 1 + offset(L), family=binomial, weights=w, data=d, control=ctl); "
        "cat(sprintf('%.17g', c(coef(j), coef(o))), sep='\\n')"
    )
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=120, check=True)
    a, b, citl = (float(x) for x in out.stdout.split())
    assert value(y, s, "cal_slope", w) == pytest.approx(b, rel=1e-9)
    assert value(y, s, "cal_intercept:fit=joint", w) == pytest.approx(a, rel=1e-9)
    assert value(y, s, "cal_intercept", w) == pytest.approx(citl, rel=1e-9)


def test_fit_edges_are_nan():
    assert math.isnan(value([0, 1, 1], [0.0, 0.5, 0.7], "cal_slope"))  # a score of 0 has no logit
    assert math.isnan(value([0, 1], [0.3, 1.0], "cal_intercept"))
    assert math.isnan(value([1, 1], [0.3, 0.6], "cal_slope"))  # one class
    assert math.isnan(value([0, 0, 1, 1], [0.2, 0.3, 0.6, 0.7], "cal_slope"))  # separated
    assert math.isfinite(value([0, 0, 1, 1], [0.2, 0.3, 0.6, 0.7], "cal_intercept"))  # an offset fit exists
    assert math.isnan(value([0, 1, 0, 1], [0.4, 0.4, 0.4, 0.4], "cal_slope"))  # all equal


# -- the Brier score's decomposition -----------------------------------------------------------------
def ref_murphy(y, s, w):
    n = sum(w)
    o = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / n
    rel = res = 0.0
    for v in sorted(set(s[w > 0])):
        m = (s == v) & (w > 0)
        nk = w[m].sum()
        ok = (w[m] * y[m]).sum() / nk
        rel += nk * (v - ok) ** 2 / n
        res += nk * (ok - o) ** 2 / n
    return rel, res, o * (1 - o)


def ref_corp(y, s, w):
    """MCB, DSC, UNC from the rows with scikit-learn's IsotonicRegression (which pools tied scores)."""
    from sklearn.isotonic import IsotonicRegression

    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    c = IsotonicRegression().fit(s, y, sample_weight=w).predict(s)
    n = w.sum()
    bs = lambda f: float((w * (f - y) ** 2).sum() / n)  # noqa: E731
    o = (w * y).sum() / n
    return bs(s) - bs(c), bs(np.full(len(y), o)) - bs(c), bs(np.full(len(y), o))


@pytest.mark.parametrize("seed", range(40))
def test_brier_decompositions_equal_their_references_and_add_up(seed):
    rng = np.random.default_rng(100 + seed)
    y, s, w = random_case(rng, weighted=seed % 2 == 0)
    if w.sum() == 0:
        w[0] = 1.0
    bs = value(y, s, "brier", w)
    unc = value(y, s, "brier_unc", w)
    for form, ref in (("murphy", ref_murphy), ("corp", ref_corp)):
        mcb, dsc = value(y, s, f"brier_mcb:form={form}", w), value(y, s, f"brier_dsc:form={form}", w)
        r = ref(y, s, w)
        assert (mcb, dsc, unc) == pytest.approx(r, rel=1e-10, abs=1e-13), form
        assert abs(mcb - dsc + unc - bs) <= 1e-12, form
        assert mcb >= -1e-15 and dsc >= -1e-15


def test_corp_is_murphy_when_the_scores_are_already_isotonic():
    # shares of positives increasing with the score: the PAV changes nothing, both forms agree
    y = [0, 0, 0, 1, 0, 1, 1, 1]
    s = [0.1, 0.1, 0.4, 0.4, 0.6, 0.6, 0.9, 0.9]
    assert value(y, s, "brier_mcb") == pytest.approx(value(y, s, "brier_mcb:form=murphy"), abs=1e-15)


def ref_murphy_rel(y, s):
    """Murphy's REL row by row: the sum over the distinct scores p_k of n_k (p_k - ybar_k)^2 / N."""
    out = 0.0
    for p in sorted(set(s)):
        ys = [yi for yi, si in zip(y, s, strict=True) if si == p]
        out += len(ys) * (p - sum(ys) / len(ys)) ** 2 / len(y)
    return out


@pytest.mark.parametrize(
    ("name", "spec", "form_word"),
    [
        ("brier_reliability", "brier_mcb", "reliability"),
        ("brier_rel", "brier_mcb", "reliability"),
        ("Brier_Rel", "brier_mcb", "reliability"),
        ("brier_resolution", "brier_dsc", "resolution"),
        ("brier_res", "brier_dsc", "resolution"),
    ],
)
def test_murphys_names_are_refused_not_corps_number(name, spec, form_word, tmp_path, capsys):
    """brier_reliability named BRIER_MCB's default, CORP's miscalibration, not Murphy's reliability
    (another number: 0.0833 against 0.0938 here): an alias carries no parameters, so Murphy's names
    are unknown measures whose error names the spec that is Murphy's, and that spec's value is his.
    """
    from perfeval.cli.main import main
    from perfeval.exceptions import UnknownMeasureError

    # shares of positives 0.5, 0.25, 1.0 at 0.2, 0.6, 0.8: not isotonic, so the PAV pools two scores
    y = [0, 1, 0, 0, 0, 1, 1, 1]
    s = [0.2, 0.2, 0.6, 0.6, 0.6, 0.6, 0.8, 0.8]
    with pytest.raises(UnknownMeasureError, match=rf"Murphy's \(1973\) {form_word} is {spec}:form=murphy"):
        perfeval.evaluate(y, s, measures=[name])
    murphy, corp = value(y, s, f"{spec}:form=murphy"), value(y, s, spec)
    if spec == "brier_mcb":
        assert murphy == pytest.approx(ref_murphy_rel(y, s), abs=1e-15)
    assert murphy == pytest.approx(0.09375, abs=1e-15) and corp == pytest.approx(1 / 12, abs=1e-15)
    f = tmp_path / "d.csv"
    f.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=True)))
    assert main(["eval", str(f), "--target", "y", "--score", "s", "-m", name]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{spec}:form=murphy" in err[0] and "Traceback" not in err[0]


# -- the torchmetrics dialect and its explain rows -------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_torchmetrics_dialect_is_torchmetrics_number(case):
    y, s, B = case["y"], case["s"], case["n_bins"]
    for norm in ("l1", "l2", "max"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = perfeval.evaluate(y, s, measures=[f"ece:n_bins={B},norm={norm}"], dialect="torchmetrics")
        (got,) = r.results.values()
        assert got.value == pytest.approx(case["torchmetrics"][norm], rel=1e-12, abs=1e-15), norm
    r = perfeval.evaluate(y, s, measures=[f"ece:n_bins={B},norm=l2,debiased=yes"], dialect="torchmetrics")
    assert next(iter(r.results.values())).value == pytest.approx(case["torchmetrics"]["l2_debias"], rel=1e-12)
    r = perfeval.evaluate(y, s, measures=[f"mce:n_bins={B}"], dialect="torchmetrics")
    assert next(iter(r.results.values())).value == pytest.approx(case["torchmetrics"]["max"], rel=1e-12)


def test_torchmetrics_linspace_edges_are_torchs():
    from perfeval.measures.calibration import torch_linspace_edges

    for c in CASES:
        assert torch_linspace_edges(c["n_bins"]).tolist() == c["torch_edges"]


def test_explain_says_why_torchmetrics_ece_differs():
    # a negative scored 1.0 next to positives scored 0.95 and 0.92: perfeval's last bin holds all three,
    # torchmetrics' extra bin the 1.0 alone
    y = [1, 1, 0, 0, 1, 0, 0, 1, 0, 1]
    s = [0.95, 0.92, 1.0, 0.3, 0.3, 0.1, 0.05, 0.7, 0.6, 0.65]
    e = perfeval.explain(y, s, measures=["ece:n_bins=10", "mce:n_bins=10"])
    text = str(e)
    assert "torchmetrics ECE:n_bins=10: a score of exactly 1.0 falls in an extra bin" in text
    assert e.cells["torchmetrics"]["MCE:n_bins=10"].value == 1.0
    assert e.cells["perfeval"]["MCE:n_bins=10"].value == pytest.approx(0.3)
    with pytest.raises(InvalidParameterError, match="bins=width"):
        perfeval.evaluate(y, s, measures=["ece:bins=mass"], dialect="torchmetrics")


def test_dsc_and_unc_read_only_the_order_mcb_needs_probabilities():
    y = [0, 1, 1, 0, 1, 0]
    p = [0.1, 0.5, 0.7, 0.3, 0.9, 0.5]
    logit = [math.log(v / (1 - v)) for v in p]  # a decision function: the same order
    for form in ("corp", "murphy"):
        assert value(y, logit, f"brier_dsc:form={form}") == value(y, p, f"brier_dsc:form={form}")
        assert math.isnan(value(y, logit, f"brier_mcb:form={form}"))
    assert value(y, logit, "brier_unc") == value(y, p, "brier_unc") == 0.25


def test_explain_names_only_the_torchmetrics_rules_that_touched_the_data():
    """torchmetrics' ECE differs here by its linspace edges only (0.3 with 10 bins: torch.bucketize), no score
    is 1.0: explain says the edges' rule with the cases it moved, and not the extra bin of 1.0 (it
    said both whenever the values differed); with a score of 1.0, that rule and its cases."""
    y = [1, 0, 1, 0, 1, 0, 0, 1, 1, 0]
    s = [0.3, 0.3, 0.6, 0.6, 0.35, 0.1, 0.25, 0.9, 0.55, 0.65]
    e = perfeval.explain(y, s, measures=["ece:n_bins=10"], dialects="torchmetrics")
    assert e.value("torchmetrics", "ECE:n_bins=10") != e.value("perfeval", "ECE:n_bins=10")
    rules = e.cells["torchmetrics"]["ECE:n_bins=10"].rules
    assert not any("1.0" in r for r in rules), rules
    moved = "[2 cases in another bin than perfeval's]"
    assert any("torch.linspace" in r and moved in r for r in rules), rules
    e = perfeval.explain(y, [*s[:-1], 1.0], measures=["mce:n_bins=10"], dialects="torchmetrics")
    rules = e.cells["torchmetrics"]["MCE:n_bins=10"].rules
    assert any("extra bin of its own" in r and "[1 cases scored 1.0]" in r for r in rules), rules


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--group", "g"]])
def test_debiased_ece_with_fractional_weights_names_the_line_as_apr_does(tmp_path, capsys, extra):
    """The command says a fractional weight given to the debiased ECE (which counts cases) as it says
    one given to APR: one line naming the file, the line, the column and the value, exit 1 (bad
    input, not a bad option)."""
    from perfeval.cli.main import main

    f = tmp_path / "w.csv"
    f.write_text("y,s,w,g\n1,0.9,1,a\n0,0.8,2,a\n1,0.3,0.5,b\n0,0.2,1,b\n")
    capsys.readouterr()
    spec = "ece:norm=l2,debiased=yes"
    argv = ["eval", str(f), "--target", "y", "--score", "s", "--weight", "w", "-m", spec]
    assert main([*argv, *extra]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    said = f"{f}, line 4: ECE:norm=l2,debiased=yes reads weights as counts of cases (whole numbers)"
    assert said in err, err
    assert "holds 0.5" in err
    assert main(["eval", str(f), "--target", "y", "--score", "s", "--weight", "w", "-m", "ece", *extra]) == 0


@pytest.mark.parametrize("spec", ["ece:norm=l2,debiased=yes", "apr"])
def test_explain_names_the_line_of_a_fractional_weight_a_count_measure_is_given(tmp_path, capsys, spec):
    """explain says a fractional weight given to a measure that counts cases as eval says it (one
    line naming the file, the line, the column, exit 1), not the library's line without a place."""
    from perfeval.cli.main import main

    f = tmp_path / "w.csv"
    f.write_text("y,s,w\n1,0.9,1\n0,0.8,2\n1,0.3,0.5\n0,0.2,1\n")
    capsys.readouterr()
    argv = ["explain", str(f), "--target", "y", "--score", "s", "--weight", "w", "-m", spec]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{f}, line 4: " in err and "reads weights as counts of cases (whole numbers)" in err, err
