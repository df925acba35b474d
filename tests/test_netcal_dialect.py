"""The ``netcal`` dialect: netcal's ECE and MCE (``netcal.metrics.ECE``/``MCE``, equal intervals) and
its top-label ECE of K classes, reproduced within 1e-12 on netcal's own numbers (recorded in
tests/oracles/fixtures/netcal.json by tests/oracles/make_netcal_fixture.py, and live where
/tmp/oracle-venv has netcal); where perfeval's own ECE differs (np.linspace's edges, scores clipped
to [eps, 1 - eps], a tied row's argmax, two columns read as a binary problem), ``explain`` says why.
"""

from __future__ import annotations

import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError

HERE = Path(__file__).resolve().parent
FIXTURE = json.loads((HERE / "oracles" / "fixtures" / "netcal.json").read_text())
VENV = Path("/tmp/oracle-venv/bin/python")


def _netcal_live() -> bool:
    if not VENV.exists():
        return False
    done = subprocess.run([str(VENV), "-c", "import netcal"], capture_output=True, timeout=120)
    return done.returncode == 0


LIVE = _netcal_live()


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(*args, **kw)


def _dialect(y, s, B, **kw):
    r = _quiet(y, s, measures=[f"ece:n_bins={B}", f"mce:n_bins={B}"], dialect="netcal", **kw)
    return r[f"ECE:n_bins={B}"], r[f"MCE:n_bins={B}"]


def test_fixture_is_netcal_1_4():
    assert FIXTURE["tools"]["netcal"] == "1.4.0"
    assert len(FIXTURE["binary"]) >= 20 and len(FIXTURE["classes"]) >= 12


@pytest.mark.parametrize("case", FIXTURE["binary"], ids=[c["name"] for c in FIXTURE["binary"]])
def test_binary_ece_and_mce_are_netcals(case):
    y, s, B = np.array(case["y"]), np.array(case["s"]), case["n_bins"]
    ece, mce = _dialect(y, s, B)
    assert ece == pytest.approx(case["netcal"]["ece"], rel=0, abs=1e-12)
    assert mce == pytest.approx(case["netcal"]["mce"], rel=0, abs=1e-12)


def test_perfeval_differs_from_netcal_where_its_rules_touch_and_explain_says_why():
    differ = 0
    for case in FIXTURE["binary"]:
        y, s, B = np.array(case["y"]), np.array(case["s"]), case["n_bins"]
        ours = _quiet(y, s, measures=[f"ece:n_bins={B}"])[f"ECE:n_bins={B}"]
        if np.isnan(ours) or abs(ours - case["netcal"]["ece"]) > 1e-12:
            differ += 1
            e = perfeval.explain(y, s, measures=[f"ece:n_bins={B}"])
            assert e.value("netcal", f"ECE:n_bins={B}") == pytest.approx(case["netcal"]["ece"], abs=1e-12)
            text = str(e)
            assert "netcal bins on np.linspace" in text or "outside [0, 1] is read as eps" in text, text
    assert differ >= 4  # the edges (0.3 with 10 bins) and the scores outside [0, 1] move its value


def test_a_score_of_0_or_1_is_clipped_by_netcal_by_2e_16_only():
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    s = np.array([1.0, 0.0, 0.95, 1.0, 0.05, 0.0, 0.55, 0.45])
    ours = _quiet(y, s, measures=["ece:n_bins=4"])["ECE:n_bins=4"]
    theirs, _ = _dialect(y, s, 4)
    assert ours != theirs and abs(ours - theirs) < 1e-15  # (explain shows no rule for so small a gap)
    from perfeval.measures.calibration import netcal_rules

    assert any("a score of 0 or 1 moves by 2.2e-16 [4 cases scored 0 or 1]" in r for r in netcal_rules(s, 4))


def test_netcal_takes_no_weights_and_no_other_norm():
    y, s = [0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4]
    with pytest.raises(InvalidParameterError, match="takes no weights in netcal"):
        perfeval.evaluate(y, s, measures=["ece"], sample_weight=[1, 2, 1, 1], dialect="netcal")
    with pytest.raises(InvalidParameterError, match="norm=l1"):
        perfeval.evaluate(y, s, measures=["ece:norm=l2"], dialect="netcal")
    with pytest.raises(InvalidParameterError, match="bins=width"):
        perfeval.evaluate(y, s, measures=["ece:bins=mass"], dialect="netcal")


def test_per_group_each_group_is_netcals_number_of_it():
    c = FIXTURE["binary"]
    y = np.concatenate([c[0]["y"], c[4]["y"]])
    s = np.concatenate([c[0]["s"], c[4]["s"]])
    g = np.repeat(["a", "b"], [len(c[0]["y"]), len(c[4]["y"])])
    r = _quiet(y, s, groups=g, measures=["ece:n_bins=10"], dialect="netcal")
    assert r.results["ECE:n_bins=10"].per_group.tolist() == pytest.approx(
        [c[0]["netcal"]["ece"], c[4]["netcal"]["ece"]], abs=1e-12
    )


@pytest.mark.parametrize("case", FIXTURE["classes"], ids=[c["name"] for c in FIXTURE["classes"]])
def test_top_label_ece_of_k_classes_is_netcals(case):
    y, P, B = np.array(case["y"]), np.array(case["p"]), case["n_bins"]
    r = _quiet(y, P, classes=list(range(case["k"])), measures=[f"ece_top:n_bins={B}"], dialect="netcal")
    res = r.results[f"ECE_TOP:n_bins={B}"]
    if "ece_error" in case["netcal"]:  # two labels of more than two columns: netcal raises
        assert np.isnan(res.value) and "RuntimeError" in res.why
    else:
        assert res.value == pytest.approx(case["netcal"]["ece"], rel=0, abs=1e-12)


def test_k_classes_explain_names_netcals_rules_when_asked():
    case = FIXTURE["classes"][0]  # ties at the top of some rows
    y, P, B = np.array(case["y"]), np.array(case["p"]), case["n_bins"]
    spec = f"ECE_TOP:n_bins={B}"
    e = perfeval.explain(y, P, classes=[0, 1, 2], measures=[spec.lower(), "roc_ovr"], dialects=["netcal"])
    assert e.value("netcal", spec) == pytest.approx(case["netcal"]["ece"], abs=1e-12)
    assert e.value("netcal", spec) != pytest.approx(e.value("perfeval", spec), abs=1e-6)
    text = str(e)
    assert "netcal: a row tied at its maximum is right or wrong whole by the first class at it" in text
    assert "netcal defines no ROC_OVR" in text
    two = FIXTURE["classes"][3]  # two columns: netcal's binary reading of the second
    assert two["k"] == 2
    e2 = perfeval.explain(
        np.array(two["y"]),
        np.array(two["p"]),
        classes=[0, 1],
        measures=[f"ece_top:n_bins={two['n_bins']}"],
        dialects="netcal",
    )
    assert "two columns give the calibration error of the second column's score" in str(e2)


@pytest.mark.skipif(not LIVE, reason="netcal is not installed in /tmp/oracle-venv (the fixture stands in)")
@pytest.mark.parametrize("seed", range(2))
def test_live_netcal_on_fresh_cases(seed):
    rng = np.random.default_rng(1000 + seed)
    n, B = int(rng.integers(5, 400)), int(rng.integers(2, 25))
    s = np.round(rng.random(n), int(rng.integers(1, 4)))
    s[rng.random(n) < 0.1] = 1.0
    s[rng.random(n) < 0.1] = 0.0
    y = (rng.random(n) < s).astype(int)
    case = {"y": y.tolist(), "s": s.tolist(), "n_bins": B}
    done = subprocess.run(
        [str(VENV), str(HERE / "oracles" / "make_netcal_fixture.py"), "--one"],
        input=json.dumps(case),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    ece, mce = _dialect(y, s, B)
    assert ece == pytest.approx(theirs["ece"], rel=0, abs=1e-12)
    assert mce == pytest.approx(theirs["mce"], rel=0, abs=1e-12)
    k = 4  # and K classes, rows of probabilities with ties
    P = np.round(rng.dirichlet(np.ones(k), n), 1)
    yk = rng.integers(0, k, n)
    done = subprocess.run(
        [str(VENV), str(HERE / "oracles" / "make_netcal_fixture.py"), "--one"],
        input=json.dumps({"y": yk.tolist(), "s": P.tolist(), "n_bins": B}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    theirs = json.loads(done.stdout)
    r = _quiet(yk, P, classes=list(range(k)), measures=[f"ece_top:n_bins={B}"], dialect="netcal")
    got = r[f"ECE_TOP:n_bins={B}"]
    if "ece" in theirs:
        assert got == pytest.approx(theirs["ece"], rel=0, abs=1e-12)
    else:
        assert np.isnan(got)
