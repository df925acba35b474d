"""Issue 33: torchmetrics' top-label calibration error (``multiclass_calibration_error``) as the
torchmetrics dialect of ECE_TOP (``evaluate(..., classes=, dialect="torchmetrics")``, ``perfeval eval
--dialect torchmetrics``) and as the torchmetrics row of ``perfeval explain`` of K classes: checked
against torchmetrics' own numbers, recorded (tests/oracles/fixtures/calibration.json, made by
tests/oracles/make_calibration_fixture.py) and, where /tmp/oracle-venv has torchmetrics, run live in
a subprocess on more cases (logits, one-hot rows, groups)."""

from __future__ import annotations

import json
import math
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import InvalidParameterError
from perfeval.measures.calibration import torch_linspace_edges32

ROOT = Path(__file__).resolve().parent
MC = json.loads((ROOT / "oracles" / "fixtures" / "calibration.json").read_text())["multiclass"]
ORACLE = Path("/tmp/oracle-venv/bin/python")


def _dialect(y, P, spec, **kw):
    K = P.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, P, classes=list(range(K)), measures=[spec], dialect="torchmetrics", **kw)
    return r


@pytest.mark.parametrize("case", MC, ids=[c["name"] for c in MC])
def test_dialect_and_explain_give_torchmetrics_recorded_number(case):
    """The dialect's value is torchmetrics' recorded one to float32 (its sums in float32, in another
    order: within 1e-6 relative), for every norm; explain's torchmetrics cell is the same number."""
    y, P, B = np.array(case["y"]), np.array(case["p"]), case["n_bins"]
    assert torch_linspace_edges32(B).tolist() == case["torch_edges32"]
    for norm in ("l1", "l2", "max"):
        spec = f"ece_top:n_bins={B},norm={norm}"
        label, r = next(iter(_dialect(y, P, spec).results.items()))
        assert r.value == pytest.approx(case["torchmetrics"][norm], rel=1e-6, abs=1e-8), norm
        e = perfeval.explain(y, P, classes=list(range(P.shape[1])), measures=[spec])
        assert e.value("torchmetrics", label) == r.value


def test_the_rules_differ_from_perfevals_on_some_recorded_cases():
    """The dialect is not perfeval's ECE_TOP under another name: on some cases its rules (a tie's
    first class, the extra bin, float32) move the value beyond float32's rounding."""
    differ = 0
    for c in MC:
        y, P, B = np.array(c["y"]), np.array(c["p"]), c["n_bins"]
        ours = perfeval.evaluate(y, P, classes=list(range(P.shape[1])), measures=[f"ece_top:n_bins={B}"])
        theirs = _dialect(y, P, f"ece_top:n_bins={B}")
        a, b = next(iter(ours.results.values())).value, next(iter(theirs.results.values())).value
        differ += abs(a - b) > 1e-5 * max(abs(a), 1e-2)
    assert differ >= 2


LIVE = r"""
import json, sys, torch
from torchmetrics.functional.classification import multiclass_calibration_error
cases = json.loads(sys.stdin.read())
out = []
for c in cases:
    p, t = torch.tensor(c["p"], dtype=torch.float64), torch.tensor(c["y"], dtype=torch.long)
    out.append({n: float(multiclass_calibration_error(p, t, num_classes=c["k"], n_bins=c["b"], norm=n))
                for n in ("l1", "l2", "max")})
print(json.dumps(out))
"""


def _live_cases() -> list[dict]:
    rng = np.random.default_rng(2033)
    out = []
    for i in range(40):
        n, k, b = int(rng.integers(1, 2500)), int(rng.integers(2, 9)), int(rng.integers(1, 40))
        p = np.round(rng.dirichlet(np.ones(k) * rng.uniform(0.2, 3), n), int(rng.integers(1, 7)))
        if i % 5 == 0:  # logits: torchmetrics takes the softmax of every row
            p = rng.normal(size=(n, k)) * 3
        if i % 5 == 1:  # one-hot rows: confidences of exactly 1.0 (the extra bin)
            hot = rng.random(n) < 0.3
            p[hot] = np.eye(k)[rng.integers(0, k, int(hot.sum()))]
        y = rng.integers(0, k, n)
        out.append({"y": y.tolist(), "p": p.tolist(), "k": k, "b": b})
    return out


def _group_case():
    rng = np.random.default_rng(7)
    n, k = 900, 4
    P = np.round(rng.dirichlet(np.ones(k), n), 2)
    return rng.integers(0, k, n), P, rng.integers(0, 5, n)


@pytest.fixture(scope="module")
def live() -> dict:
    """torchmetrics' values of the live cases and of each group of the group case, in one subprocess
    (torch's import is most of its time)."""
    if not ORACLE.exists():
        pytest.skip("torchmetrics lives in /tmp/oracle-venv, absent here (the recorded fixture is checked)")
    cases = _live_cases()
    y, P, g = _group_case()
    groups = [{"y": y[g == key].tolist(), "p": P[g == key].tolist(), "k": 4, "b": 10} for key in np.unique(g)]
    zy, zP = _zoo()
    zoo = [{"y": zy.tolist(), "p": zP.tolist(), "k": 4, "b": 5}]
    proc = subprocess.run(
        [str(ORACLE), "-c", LIVE],
        input=json.dumps(cases + groups + zoo),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        pytest.skip(f"/tmp/oracle-venv cannot run torchmetrics: {proc.stderr.strip().splitlines()[-1:]}")
    out = json.loads(proc.stdout)
    return {"cases": cases, "theirs": out[: len(cases)], "groups": out[len(cases) : -1], "zoo": out[-1]}


def _zoo():
    """docs/calibration.md's example (docs/examples/explain/zoo.csv): class codes and the p_ columns."""
    import csv

    with (ROOT.parent / "docs" / "examples" / "explain" / "zoo.csv").open() as f:
        rows = list(csv.DictReader(f))
    classes = ["cat", "dog", "bird", "fish"]
    y = np.array([classes.index(r["animal"]) for r in rows])
    return y, np.array([[float(r[f"p_{c}"]) for c in classes] for r in rows])


def test_docs_example_is_torchmetrics_live(live):
    """The torchmetrics row of docs/calibration.md's explain example is torchmetrics' number."""
    y, P = _zoo()
    e = perfeval.explain(y, P, classes=[0, 1, 2, 3], measures=["ece_top:n_bins=5"])
    assert e.value("torchmetrics", "ECE_TOP:n_bins=5") == pytest.approx(live["zoo"]["l1"], rel=1e-6)
    assert round(e.value("torchmetrics", "ECE_TOP:n_bins=5"), 4) == 0.0625  # as the doc shows it


def test_dialect_is_torchmetrics_live_logits_and_one_hot_rows(live):
    for c, want in zip(live["cases"], live["theirs"], strict=True):
        y, P = np.array(c["y"]), np.array(c["p"])
        for norm in ("l1", "l2", "max"):
            spec = f"ECE_TOP:n_bins={c['b']},norm={norm}"
            got = next(iter(_dialect(y, P, spec).results.values())).value
            assert got == pytest.approx(want[norm], rel=1e-6, abs=1e-7), (norm, c["b"], len(y))


def test_dialect_per_group_is_torchmetrics_on_each_group_live(live):
    y, P, g = _group_case()
    r = _dialect(y, P, "ece_top:n_bins=10", groups=g)
    assert [str(k) for k in r.groups] == [str(k) for k in np.unique(g)]
    got = r.results["ECE_TOP:n_bins=10"].per_group
    assert got == pytest.approx([t["l1"] for t in live["groups"]], rel=1e-6, abs=1e-7)
    assert r.params["dialect"].startswith("torchmetrics") and "dialect=torchmetrics" in str(r.signature)


def test_dialect_refusals_in_one_line():
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    y = [0, 1, 2]
    for kw, msg in (
        ({"measures": ["ece_top:bins=mass"]}, "computes ECE_TOP:bins=mass with bins=width"),
        ({"measures": ["ece_top:debiased=yes,norm=l2"]}, "with debiased=no"),
        ({"measures": ["ece_top"], "sample_weight": [1, 2, 1]}, "takes no weights in torchmetrics"),
        ({"measures": ["acc_mc"]}, "dialect torchmetrics does not define ACC_MC; dialects that do: perfeval"),
    ):
        with pytest.raises(InvalidParameterError, match=msg):
            perfeval.evaluate(y, P, classes=[0, 1, 2], dialect="torchmetrics", **kw)
    with pytest.raises(
        InvalidParameterError, match="dialect sklearn does not define ECE_TOP; dialects that do: "
    ):
        perfeval.evaluate(y, P, classes=[0, 1, 2], measures=["ece_top"], dialect="sklearn")


def test_cli_eval_dialect_torchmetrics_of_k_classes(tmp_path, capsys):
    c = MC[3]
    y, P, B = np.array(c["y"]), np.array(c["p"]), c["n_bins"]
    f = tmp_path / "k.csv"
    cols = [f"p{j}" for j in range(P.shape[1])]
    f.write_text(
        "y,"
        + ",".join(cols)
        + "\n"
        + "".join(f"{t}," + ",".join(repr(float(v)) for v in row) + "\n" for t, row in zip(y, P, strict=True))
    )
    classes = ",".join(map(str, range(P.shape[1])))
    argv = ["eval", str(f), "--target", "y", "--score", ",".join(cols), "--classes", classes]
    assert main([*argv, "-m", f"ece_top:n_bins={B}", "--dialect", "torchmetrics", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    value = got["measures"][f"ECE_TOP:n_bins={B}"]["value"]
    assert value == pytest.approx(c["torchmetrics"]["l1"], rel=1e-6)
    assert "dialect=torchmetrics" in got["signature"]
    assert main([*argv, "-m", "ece_top", "--dialect", "torchmetrics", "--ci", "0.9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dialect torchmetrics: not with --ci" in err


def test_explain_lists_only_the_rules_that_touched_the_data():
    """Confidences that are float32 numbers (multiples of 1/8), no tie at the top, none of 1.0: no
    rule touched them, and torchmetrics' value is perfeval's to float32; with ties and one-hot rows
    each rule is listed with what it touched, and scikit-learn's cell says it has none."""
    rng = np.random.default_rng(11)
    n, k = 400, 3
    top = rng.integers(3, 8, n) / 8  # 0.375 .. 0.875: above the others, never 1
    rest = (1 - top)[:, None] * np.array([0.75, 0.25])
    P = np.c_[top, rest]
    P = np.array([np.roll(r, int(i)) for r, i in zip(P, rng.integers(0, k, n), strict=True)])
    y = rng.integers(0, k, n)
    spec = "ECE_TOP:n_bins=8"
    e = perfeval.explain(y, P, classes=[0, 1, 2], measures=[spec])
    cell = e.cells["torchmetrics"][spec]
    assert cell.rules == []
    assert e.value("torchmetrics", spec) == pytest.approx(e.value("perfeval", spec), rel=1e-6)
    assert math.isnan(e.value("sklearn", spec)) and "scikit-learn#18268" in e.cells["sklearn"][spec].note
    P[:5] = np.eye(3)[[0, 1, 2, 0, 1]]  # confidences of 1.0
    P[5:9] = [0.4, 0.4, 0.2]  # ties at the top
    e = perfeval.explain(y, P, classes=[0, 1, 2], measures=[spec])
    rules = " ".join(e.cells["torchmetrics"][spec].rules)
    assert "[5 rows]" in rules and "extra bin" in rules and "[4 rows tied at the top]" in rules
    assert "float32" in rules  # 0.4 and 0.2 are no float32 numbers
