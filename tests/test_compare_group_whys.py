"""The groups where a measure is undefined, said by compare (the library's and ``perfeval compare``)
and by the report's comparison (``perfeval report --ci`` of two models) with each group's own reason,
the words ``perfeval eval`` and :func:`perfeval.evaluate` say of the same groups: a group of one class,
a group whose scores separate its classes (CAL_SLOPE); not only the groups' names.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import UndefinedMeasureWarning

MEASURES = "roc,cal_slope"


def _data():
    """Ten groups: q3 of negatives alone, q7 of positives alone, q4's scores (model s) separating
    its classes; model t mixed in every group of both classes.
    """
    rng = np.random.default_rng(5)
    g, y, s, t = [], [], [], []
    for q in range(10):
        n = 3 if q == 7 else 6
        ys = [1] * 3 if q == 7 else [0] * 6 if q == 3 else [1, 0, 1, 0, 0, 1]
        ss = np.round(rng.random(n) * 0.8 + 0.1, 3)
        ts = np.round(rng.random(n) * 0.8 + 0.1, 3)
        if q == 4:
            ss = np.where(np.asarray(ys) == 1, 0.8, 0.2) + np.arange(n) * 0.01
        if q != 7 and q != 3:
            ts[0], ts[1] = 0.2, 0.7  # a positive below a negative: never separated
        g += [f"q{q}"] * n
        y += ys
        s += [round(float(v), 3) for v in ss]
        t += [round(float(v), 3) for v in ts]
    return np.asarray(y, float), np.asarray(s), np.asarray(t), np.asarray(g)


def _shown(text: str, label: str) -> dict[str, str]:
    """The parenthesis of each 'undefined for N of M groups (...)' warning of ``label`` in ``text``
    (evaluate names the measures of the same groups together: 'ROC and CAL_SLOPE are'), by the
    model named ('' when none).
    """
    out = {}
    for m in re.finditer(r"^(.*?) (?:is|are) undefined for \d+ of \d+ groups \((.*?)\); they", text, re.M):
        for named in re.split(r", | and ", m.group(1).removeprefix("perfeval: warning: ")):
            lab, _, model = named.partition(" of ")
            if lab == label:
                out[model] = m.group(2)
    return out


def _eval_warnings(y, s, g) -> str:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        perfeval.evaluate(y, s, groups=g, measures=MEASURES)
    return "\n".join(str(w.message) for w in got if issubclass(w.category, UndefinedMeasureWarning))


def test_the_library_compare_says_each_groups_reason_as_evaluate_does():
    y, s, t, g = _data()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        perfeval.compare(y, t, s, measures=MEASURES, groups=g, n_boot=50)
    said = "\n".join(str(w.message) for w in got if issubclass(w.category, UndefinedMeasureWarning))
    for label in ("ROC", "CAL_SLOPE"):
        for name, score in (("score_a", t), ("score_b", s)):
            expected = _shown(_eval_warnings(y, score, g), label)[""]
            assert "one class only" in expected  # evaluate says why: the case at hand
            assert _shown(said, label)[name] == expected
    assert "separate the classes" in _shown(said, "CAL_SLOPE")["score_b"]
    assert "list-measures --long" not in said  # every group's reason is known


def _write(tmp_path, y, s, t, g):
    path = tmp_path / "g.csv"
    lines = ["qid,y,s,t"] + [f"{a},{int(b)},{c},{d}" for a, b, c, d in zip(g, y, s, t, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.filterwarnings("always::perfeval.exceptions.UndefinedMeasureWarning")  # as a shell's
def test_perfeval_compare_and_report_say_each_groups_reason_as_eval_does(tmp_path, capsys):
    from conftest import run_cli

    y, s, t, g = _data()
    path = _write(tmp_path, y, s, t, g)
    common = [str(path), "--target", "y", "--group", "qid", "-m", MEASURES]
    evals = {}
    for col in ("s", "t"):
        code, _out, err = run_cli(["eval", *common, "--score", col], capsys)
        assert code == 0, err
        evals[col] = {lab: _shown(err, lab)[""] for lab in ("ROC", "CAL_SLOPE")}
    assert "separate the classes" in evals["s"]["CAL_SLOPE"]
    code, _out, err = run_cli(["compare", *common, "--score", "s,t", "--n-boot", "50"], capsys)
    assert code == 0, err
    for lab in ("ROC", "CAL_SLOPE"):
        assert _shown(err, lab) == {col: evals[col][lab] for col in ("s", "t")}
    html = tmp_path / "r.html"
    argv = [*common, "--score", "s,t", "--ci", "0.95", "--n-boot", "50", "-o", str(html)]
    code, _out, err = run_cli(["report", *argv], capsys)
    assert code == 0, err
    for lab in ("ROC", "CAL_SLOPE"):
        assert _shown(err, lab) == {col: evals[col][lab] for col in ("s", "t")}


def test_ci_over_groups_says_each_groups_reason_as_evaluate_does():
    """perfeval.ci(..., groups=) said nothing of the groups its interval leaves out; now each with
    its reason, the words evaluate says of the same groups."""
    y, s, _t, g = _data()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        perfeval.ci(y, s, measures=MEASURES, groups=g, n_boot=50)
    said = "\n".join(str(w.message) for w in got if issubclass(w.category, UndefinedMeasureWarning))
    for label in ("ROC", "CAL_SLOPE"):
        expected = _shown(_eval_warnings(y, s, g), label)[""]
        assert _shown(said, label) == {"": expected}, said
    assert "separate the classes" in _shown(said, "CAL_SLOPE")[""]
    assert "list-measures --long" not in said
    assert all(w.filename == __file__ for w in got if issubclass(w.category, UndefinedMeasureWarning))


def test_ci_over_groups_of_a_regression_target_says_each_groups_reason():
    """A regression measure over groups (R2 of a group whose targets are all equal): the same words."""
    rng = np.random.default_rng(3)
    g = np.repeat([f"q{i}" for i in range(8)], 5)
    y = np.round(rng.normal(size=40), 2)
    y[g == "q2"] = 1.5  # one target value: R2 is 0/0
    p = np.round(y + rng.normal(size=40) * 0.3, 2)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        perfeval.ci(y, p, measures="r2", groups=g, n_boot=50, task="regression")
    said = "\n".join(str(w.message) for w in got if issubclass(w.category, UndefinedMeasureWarning))
    with warnings.catch_warnings(record=True) as ev:
        warnings.simplefilter("always")
        perfeval.evaluate(y, p, groups=g, measures="r2", task="regression")
    evaluated = "\n".join(str(w.message) for w in ev if issubclass(w.category, UndefinedMeasureWarning))
    expected = _shown(evaluated, "R2")[""]
    assert expected.startswith("'q2'")
    assert _shown(said, "R2") == {"": expected}, said
