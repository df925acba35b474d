"""The torchmetrics dialect of the operating points (issue 33): ``dialect="torchmetrics"`` gives
torchmetrics' own value and threshold of binary_sensitivity_at_specificity,
binary_specificity_at_sensitivity, binary_precision_at_fixed_recall and
binary_recall_at_fixed_precision (TPR_AT_FPR as the first with min_specificity = 1 - max_fpr), bit for
bit, exact (``thresholds=None``) and binned, and ``explain`` says why each differs from perfeval's.

Checked against torchmetrics 1.9 itself: its numbers recorded by tests/oracles/make_operating_fixtures.py
in tests/oracles/fixtures/torchmetrics_operating_dialect.json (float64 tensors: the dialect's
convention), and, where /tmp/oracle-venv holds torchmetrics, called live in a subprocess on fresh
random data.  torchmetrics takes no weights: the cases are unweighted (weights are refused).
"""

from __future__ import annotations

import json
import math
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main as cli_main
from perfeval.dialects import operating as tm_ops
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.summaries import ScoreHistogram

HERE = Path(__file__).resolve().parent
FIXTURE = json.loads((HERE / "oracles" / "fixtures" / "torchmetrics_operating_dialect.json").read_text())
ORACLE = Path("/tmp/oracle-venv/bin/python")

#: the fixture's function -> (perfeval's measure, its target parameter)
NAMES = {
    "tpr_at_fpr": ("TPR_AT_FPR", "max_fpr"),
    "binary_sensitivity_at_specificity": ("SEN_AT_SPC", "min_specificity"),
    "binary_specificity_at_sensitivity": ("SPC_AT_SEN", "min_sensitivity"),
    "binary_precision_at_fixed_recall": ("PRE_AT_REC", "min_recall"),
    "binary_recall_at_fixed_precision": ("REC_AT_PRE", "min_precision"),
}


def _f(x) -> float:
    return math.nan if x == "nan" else float(x)


def _spec(name: str, param: str, target: float, of: str) -> str:
    return f"{name}:{param}={target!r},of={of}"


def _dialect(T: int) -> str:
    return "torchmetrics" + (f":thresholds={T}" if T else "")


def _same(a: float, b: float, rel: float = 0.0) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= rel * abs(b)


def _dialect_values(y, s, calls: list[tuple[str, str, float, int]]) -> dict:
    """(name, param, target, T) -> (value, threshold) under the dialect, or the error's message."""
    out = {}
    for T in sorted({c[3] for c in calls}):
        these = [c for c in calls if c[3] == T]
        specs = [_spec(n, p, t, of) for n, p, t, _ in these for of in ("value", "threshold")]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = perfeval.evaluate(y, s, measures=specs, dialect=_dialect(T))
            vals = list(r.values.values())
            out.update({c: (vals[2 * i], vals[2 * i + 1]) for i, c in enumerate(these)})
        except InvalidDataError:  # one call torchmetrics cannot answer: each alone
            for c in these:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        one = perfeval.evaluate(
                            y,
                            s,
                            measures=[_spec(*c[:3], of) for of in ("value", "threshold")],
                            dialect=_dialect(T),
                        )
                    out[c] = tuple(one.values.values())
                except InvalidDataError as e:
                    out[c] = str(e)
    return out


def _sigmoid(s) -> bool:
    s = np.asarray(s, dtype=np.float64)
    return bool(len(s) and (s.min() < 0 or s.max() > 1))


def _check(case: dict, results: list[dict]) -> int:
    """Every recorded call equal to the dialect's: the value bit for bit; the threshold too, or to an
    ulp when it is a sigmoid (numpy's exp, not torch's vectorised one); torchmetrics' exceptions said.
    """
    y, s = np.asarray(case["y"]), np.asarray(case["s"], dtype=np.float64)
    calls = [(*NAMES[r["function"]], r["target"], r["thresholds"]) for r in results]
    got = _dialect_values(y, s, calls)
    rel = 2.3e-16 if _sigmoid(s) else 0.0
    for call, r in zip(calls, results, strict=True):
        if "error" in r:
            assert isinstance(got[call], str) and f"raises {r['error']}" in got[call], (case["name"], call)
            continue
        v, t = got[call]
        assert _same(v, _f(r["value"])), (case["name"], call, v, r["value"])
        assert _same(t, _f(r["threshold"]), rel), (case["name"], call, t, r["threshold"])
    return len(calls)


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["name"])
def test_the_dialect_is_torchmetrics_bit_for_bit(case):
    assert _check(case, case["results"]) == len(case["results"])


def test_the_fixture_exercises_every_rule_where_perfeval_differs():
    """The recorded numbers differ from perfeval's own in every way the dialect reproduces: 0 where no
    point meets the target, a number for one class, float32 rates, SPC_AT_SEN's highest threshold
    among equal specificities, 1.0 for "nothing predicted", thresholds that are sigmoids, an exception
    (so the dialect is not perfeval's value under another name)."""
    seen = {k: 0 for k in ("no point", "one class", "float32", "tie", "nothing", "sigmoid", "error")}
    for case in FIXTURE["cases"]:
        y, s = np.asarray(case["y"]), np.asarray(case["s"], dtype=np.float64)
        both = 0 < y.sum() < len(y)
        for r in case["results"]:
            if "error" in r:
                seen["error"] += 1
                continue
            name, param = NAMES[r["function"]]
            if r["thresholds"]:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = perfeval.evaluate(y, s, measures=[_spec(name, param, r["target"], "value")])
            v = next(iter(ours.results.values()))
            tv, tt = _f(r["value"]), _f(r["threshold"])
            if not both and math.isnan(v.value) and not math.isnan(tv):
                seen["one class"] += 1
            elif both and math.isnan(v.value) and tv == 0.0:
                seen["no point"] += 1
            elif both and tv != v.value:
                seen["float32"] += 1
            if both and tv == v.value and name == "SPC_AT_SEN" and tt != v.threshold and not _sigmoid(s):
                seen["tie"] += 1
            if tt == 1.0 and v.threshold == math.inf:
                seen["nothing"] += 1
            if _sigmoid(s) and both and not math.isnan(v.value) and tt != v.threshold:
                seen["sigmoid"] += 1
    assert all(seen.values()), seen


@pytest.mark.skipif(not ORACLE.exists(), reason="torchmetrics is not installed in /tmp/oracle-venv")
def test_the_dialect_is_torchmetrics_live(tmp_path):
    """Fresh random cases (ties, distinct scores, logits, one class), torchmetrics called in a
    subprocess of /tmp/oracle-venv on float64 tensors: the same bits."""
    rng = np.random.default_rng(20261129)
    cases = []
    for i in range(12):
        n = int(rng.integers(2, 60))
        y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
        if i % 6 == 5:
            y[:] = i % 2
        s = [np.floor(rng.random(n) * 6) / 6, rng.random(n), np.round(rng.normal(0, 3, n), 1)][i % 3]
        calls = [
            [fn, float(t), T] for fn in NAMES for t in (0.0, 0.5, 1.0, float(rng.random())) for T in (0, 7)
        ]
        cases.append({"name": f"live-{i}", "y": y.tolist(), "s": (s + 0.0).tolist(), "calls": calls})
    (tmp_path / "in.json").write_text(json.dumps(cases))
    script = (HERE / "oracles" / "make_operating_fixtures.py").resolve()
    run = subprocess.run(
        [str(ORACLE), str(script), "--calls", str(tmp_path / "in.json"), str(tmp_path / "out.json")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads((tmp_path / "out.json").read_text())
    checked = sum(_check(c, res) for c, res in zip(cases, got, strict=True))
    assert checked == sum(len(c["calls"]) for c in cases)


def test_no_weights_no_groups_and_counts_torchmetrics_cannot_keep_are_refused():
    y, s = [1, 0, 1, 0], [0.9, 0.4, 0.6, 0.1]
    with pytest.raises(InvalidParameterError, match="takes no weights"):
        perfeval.evaluate(
            y, s, measures=["sen_at_spc@0.9"], sample_weight=[1, 2, 1, 1], dialect="torchmetrics"
        )
    with pytest.raises(InvalidParameterError, match="has no groups"):
        perfeval.evaluate(y, s, measures=["rec_at_pre@0.5"], groups=[1, 1, 2, 2], dialect="torchmetrics")
    # more cases than float32 counts hold: refused with thresholds=None, answered binned (int64 counts)
    big = ScoreHistogram(np.array([0.2, 0.7]), np.array([6e6, 6e6]), np.array([6e6, 0.0]))
    with pytest.raises(InvalidDataError, match="float32"):
        tm_ops.sen_at_spc(big, min_specificity=0.5, of="value")
    assert tm_ops.sen_at_spc(big, min_specificity=0.5, of="value", thresholds=5) == 0.5


def test_what_torchmetrics_raises_on_is_one_line():
    """Binned, no positive case, a target precision of 0: its recall is NaN at every threshold and its
    arg-max finds no index (IndexError); the dialect says so rather than invent a number."""
    with pytest.raises(InvalidDataError, match=r"raises IndexError.*no number") as e:
        perfeval.evaluate(
            [0, 0, 0], [0.2, 0.5, 0.9], measures=["rec_at_pre@0"], dialect="torchmetrics:thresholds=5"
        )
    assert "\n" not in str(e.value)


def test_explain_shows_both_numbers_and_why():
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.8, 0.7, 0.5, 0.5, 0.4, 0.3, 0.2, 0.1])
    e = perfeval.explain(
        y, s, measures=["sen_at_spc@0.9", "spc_at_sen@0.35:of=threshold"], dialects=["torchmetrics"]
    )
    text = str(e)
    assert e.value("perfeval", "SEN_AT_SPC@0.9") == 0.2
    assert e.value("torchmetrics", "SEN_AT_SPC@0.9") == float(np.float32(0.2))
    assert "rates in float32" in text and "torchmetrics 0.20000000298023224, perfeval 0.2" in text
    # specificity 0.8 at thresholds 0.8 and 0.7, both of sensitivity >= 0.35: torchmetrics the higher
    assert e.value("perfeval", "SPC_AT_SEN@0.35:of=threshold") == 0.7
    assert e.value("torchmetrics", "SPC_AT_SEN@0.35:of=threshold") == 0.8
    assert "among thresholds of equal specificity torchmetrics takes the highest" in text
    # only predicting nothing has FPR 0: its threshold 1.0 there, +inf here
    top = perfeval.explain(
        [0, 1, 0, 1], [0.9, 0.8, 0.3, 0.1], measures=["tpr_at_fpr@0:of=threshold"], dialects=["torchmetrics"]
    )
    assert top.value("torchmetrics", "TPR_AT_FPR@0:of=threshold") == 1.0
    assert math.isinf(top.value("perfeval", "TPR_AT_FPR@0:of=threshold"))
    assert "predicting nothing is threshold 1.0" in str(top)
    assert "torchmetrics has no TPR at FPR: its sensitivity at specificity >= 1 - max_fpr" in str(top)
    one = str(
        perfeval.explain([0, 0, 0], [0.1, 0.5, 0.9], measures=["sen_at_spc@0.9"], dialects=["torchmetrics"])
    )
    assert "one class only" in one and "gives 0; perfeval: undefined [no positives]" in one
    none = str(
        perfeval.explain(
            [0, 1, 0, 1], [0.9, 0.8, 0.2, 0.1], measures=["rec_at_pre@0.99"], dialects=["torchmetrics"]
        )
    )
    assert (
        "no threshold meets min precision 0.99: torchmetrics gives 0 (threshold NaN); perfeval: undefined"
        in none
    )
    logits = perfeval.explain(
        [1, 0, 1, 0],
        [3.0, 1.0, 0.5, -2.0],
        measures=["youden", "sen_at_spc@0.5:of=threshold"],
        dialects=["torchmetrics"],
    )
    assert "not defined by torchmetrics" in str(logits)  # YOUDEN: no torchmetrics function
    assert logits.value("torchmetrics", "SEN_AT_SPC@0.5:of=threshold") == pytest.approx(
        1 / (1 + math.exp(-0.5))
    )
    assert "its thresholds are sigmoids of the scores" in str(logits)


def test_the_command_line_gives_the_dialect_and_explains_it(tmp_path, capsys):
    f = tmp_path / "d.csv"
    f.write_text("y,s\n1,0.9\n0,0.8\n1,0.8\n1,0.7\n0,0.5\n0,0.5\n1,0.4\n0,0.3\n1,0.2\n0,0.1\n")
    assert (
        cli_main(
            [
                "eval",
                str(f),
                "--target",
                "y",
                "--score",
                "s",
                "-m",
                "sen_at_spc@0.9",
                "--dialect",
                "torchmetrics",
                "--format",
                "json",
            ]
        )
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert got["measures"]["SEN_AT_SPC@0.9"]["value"] == float(np.float32(0.2))
    assert (
        cli_main(
            [
                "explain",
                str(f),
                "--target",
                "y",
                "--score",
                "s",
                "-m",
                "spc_at_sen@0.35:of=threshold",
                "--dialects",
                "torchmetrics",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "torchmetrics" in out and "equal specificity" in out


@pytest.mark.skipif(not ORACLE.exists(), reason="torch is not installed in /tmp/oracle-venv")
def test_torch_linspace_is_reproduced_live():
    """The binned thresholds, ``torch.linspace(0, 1, T)`` in float32, bit for bit (the kernel rounds
    each once: its second half is not ``1 - step * k`` rounded twice)."""
    from perfeval.dialects.binned import torchmetrics_thresholds

    counts = [*range(2, 260), 1000, 4097, 40000]
    code = (
        "import json, sys, torch; print(json.dumps([torch.linspace(0, 1, t).double().tolist() "
        f"for t in {counts!r}]))"
    )
    run = subprocess.run([str(ORACLE), "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    for t, theirs in zip(counts, json.loads(run.stdout), strict=True):
        assert torchmetrics_thresholds(t).astype(np.float64).tolist() == theirs, t
