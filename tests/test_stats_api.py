"""perfeval.stats as a package: the `sample_weight=` vocabulary (and its deprecated spelling
`weights=`), the seed recorded in every result and its serialisations, the fast-path table, and the
old import paths (perfeval.bootstrap, perfeval.delong) kept until 0.2.0, with a warning."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from perfeval.exceptions import InvalidParameterError
from perfeval.stats import FAST_PATHS, FastPaths, ci, compare


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    a = np.round(rng.normal(size=n) + y, 2)
    b = np.round(rng.normal(size=n) + 0.5 * y, 2)
    w = rng.integers(0, 4, n).astype(float)
    return y, a, b, w


# -- sample_weight, and weights= as its deprecated spelling ---------------------------------------------


@pytest.mark.parametrize("method", ["bca", "percentile", "delong"])
def test_ci_weights_alias_equals_sample_weight_and_warns(method):
    y, a, _, w = _data()
    measures = "roc" if method == "delong" else ["roc", "apr", "acc"]
    want = ci(y, a, measures=measures, method=method, n_boot=100, seed=3, sample_weight=w)
    with pytest.warns(
        DeprecationWarning, match=r"ci\(weights=\.\.\.\) is deprecated; use sample_weight="
    ) as rec:
        got = ci(y, a, measures=measures, method=method, n_boot=100, seed=3, weights=w)
    assert got == want
    assert rec[0].filename == __file__  # the warning points at the caller
    assert want != ci(y, a, measures=measures, method=method, n_boot=100, seed=3)  # the weights were used


@pytest.mark.parametrize("method", ["bca", "delong"])
def test_compare_weights_alias_equals_sample_weight_and_warns(method):
    y, a, b, w = _data()
    want = compare(y, a, b, measures="roc", method=method, n_boot=100, seed=3, sample_weight=w)
    with pytest.warns(
        DeprecationWarning, match=r"compare\(weights=\.\.\.\) is deprecated; use sample_weight="
    ):
        got = compare(y, a, b, measures="roc", method=method, n_boot=100, seed=3, weights=w)
    assert got == want


def test_sample_weight_gives_no_warning(recwarn):
    y, a, b, w = _data()
    ci(y, a, measures="roc", n_boot=50, sample_weight=w)
    compare(y, a, b, measures="roc", n_boot=50, sample_weight=w)
    assert not [r for r in recwarn if issubclass(r.category, DeprecationWarning)]


def test_both_spellings_at_once_is_an_error():
    y, a, b, w = _data()
    with pytest.raises(InvalidParameterError, match="pass `sample_weight=` only"):
        ci(y, a, measures="roc", sample_weight=w, weights=w)
    with pytest.raises(InvalidParameterError, match="pass `sample_weight=` only"):
        compare(y, a, b, measures="roc", sample_weight=w, weights=w)


# -- the seed in the results ---------------------------------------------------------------------------


def test_the_seed_is_in_the_result_and_its_dict():
    y, a, b, _ = _data()
    g = np.arange(len(y)) % 25
    for r in (
        ci(y, a, measures=["roc", "apr"], n_boot=50, seed=17)["APR"],
        ci(y, a, measures="roc", method="percentile", n_boot=50, seed=17)["ROC"],
        ci(y, a, measures="gauc", groups=g, n_boot=50, seed=17)["GAUC"],
        compare(y, a, b, measures=["roc", "rms"], n_boot=50, seed=17)["RMS"],
        compare(y, a, b, measures="gauc", groups=g, n_boot=50, seed=17)["GAUC"],
    ):
        assert r.seed == 17
        d = r.to_dict()
        assert d["seed"] == 17 and d["method"] == r.method and d["n_boot"] == 50
        assert json.loads(json.dumps(d))["seed"] == 17
    # DeLong draws nothing: no seed
    assert ci(y, a, measures="roc", method="delong", seed=17)["ROC"].to_dict()["seed"] is None
    assert compare(y, a, b, measures="roc", method="delong", seed=17)["ROC"].seed is None


def test_ci_from_summary_records_its_seed():
    from perfeval.stats import ci_from_summary
    from perfeval.summaries import ScoreHistogram

    y, a, _, _ = _data()
    r = ci_from_summary(ScoreHistogram.from_arrays(y, a), ["roc", "apr"], n_boot=50, seed=5)
    assert {v.seed for v in r.values()} == {5}


def test_the_seed_reaches_the_report_json_and_signature():
    from perfeval import evaluate

    y, a, _, _ = _data()
    report = evaluate(y, a, measures=["roc", "apr"])
    report.intervals = ci(y, a, measures=["roc", "apr"], method="percentile", n_boot=60, seed=42)
    d = json.loads(report.to_json())
    assert d["measures"]["ROC"]["ci"]["seed"] == 42
    assert d["measures"]["APR"]["ci"]["n_boot"] == 60 and d["measures"]["APR"]["ci"]["method"] == "percentile"
    sig = report.signature
    assert sig.ci == "percentile,n=60,seed=42,level=0.95"
    assert "ci:percentile,n=60,seed=42,level=0.95" in d["signature"]


# -- the fast paths: one table, shared by ci and compare -----------------------------------------------


def test_the_roc_area_has_every_fast_path_and_perfs_measures_a_plan():
    roc = FAST_PATHS["ROC"]
    assert all(
        f is not None
        for f in (
            roc.jack_summary,
            roc.jack_cases,
            roc.delong,
            roc.plan,
        )
    )
    from perfeval.base.nicknames import ALL

    assert set(ALL) <= {name for name, fp in FAST_PATHS.items() if fp.plan is not None}
    others = [fp for name, fp in FAST_PATHS.items() if name != "ROC"]
    assert all(fp.jack_summary is None and fp.delong is None and fp.jack_cases is None for fp in others)


def test_without_its_entry_the_roc_area_takes_the_generic_path(monkeypatch):
    """The fast paths draw the same replicates as the generic engines: with the ROC entry taken out
    of the table, percentile intervals agree to rounding, and DeLong is refused like for any measure."""
    y, a, b, w = _data(400, 1)
    fast = ci(y, a, measures="roc", method="percentile", n_boot=60, seed=2)["ROC"]
    fast_w = ci(y, a, measures="roc", method="percentile", n_boot=60, seed=2, sample_weight=w)["ROC"]
    fast_c = compare(y, a, b, measures="roc", method="percentile", n_boot=60, seed=2)["ROC"]
    monkeypatch.setitem(FAST_PATHS, "ROC", FastPaths())
    slow = ci(y, a, measures="roc", method="percentile", n_boot=60, seed=2)["ROC"]
    slow_w = ci(y, a, measures="roc", method="percentile", n_boot=60, seed=2, sample_weight=w)["ROC"]
    slow_c = compare(y, a, b, measures="roc", method="percentile", n_boot=60, seed=2)["ROC"]
    for f, s in ((fast, slow), (fast_w, slow_w), (fast_c, slow_c)):
        assert s.low == pytest.approx(f.low, abs=1e-12) and s.high == pytest.approx(f.high, abs=1e-12)
        assert s.se == pytest.approx(f.se, rel=1e-9)
    with pytest.raises(InvalidParameterError, match="DeLong's interval is for the ROC area"):
        ci(y, a, measures="roc", method="delong")
    with pytest.raises(InvalidParameterError, match="DeLong's test is for the ROC area"):
        compare(y, a, b, measures="roc", method="delong")
    # and its BCa interval uses the generic delete-a-group jackknife (close, not equal)
    assert ci(y, a, measures="roc", n_boot=60, seed=2)["ROC"].low == pytest.approx(fast.low, abs=0.02)


def test_no_roc_special_case_outside_the_table():
    from pathlib import Path

    import perfeval.stats

    for p in Path(perfeval.stats.__file__).parent.glob("*.py"):
        text = p.read_text()
        if p.name != "fastpaths.py":
            assert '"ROC"' not in text.replace('["ROC"]', ""), p.name


# -- the old import paths ------------------------------------------------------------------------------


def test_old_import_paths_still_work():
    import importlib

    for old in ("perfeval.bootstrap", "perfeval.delong"):  # imported once, so warned once: again here
        sys.modules.pop(old, None)
        with pytest.warns(DeprecationWarning, match=f"{old} is moved to perfeval.stats"):
            importlib.import_module(old)
    from perfeval import bootstrap, delong, stats
    from perfeval.bootstrap import (  # noqa: F401  (the private names the tests imported before)
        _JACK_GROUPS,
        METHODS,
        Comparison,
        Interval,
        _Cases,
        _jack_groups,
        _jack_roc_hist,
        _jack_roc_rows,
        _p_value,
        _Sorted,
        ci_from_summary,
    )
    from perfeval.delong import (
        DeLongComparison,
        DeLongResult,
        _case_components,
        _components,
        delong_from_histogram,
        delong_test,
    )
    from perfeval.stats import delong as new_delong

    assert bootstrap.ci is stats.ci and bootstrap.compare is stats.compare
    assert ci_from_summary is stats.ci_from_summary
    assert Interval is stats.Interval and Comparison is stats.Comparison and METHODS == stats.METHODS
    assert delong.delong is new_delong.delong and delong_test is new_delong.delong_test
    assert delong_from_histogram is new_delong.delong_from_histogram
    assert DeLongResult is new_delong.DeLongResult and DeLongComparison is new_delong.DeLongComparison
    assert _components is new_delong.components and _case_components is new_delong.case_components
    assert "deprecated" in bootstrap.__doc__.lower() and "perfeval.stats" in bootstrap.__doc__
    assert "deprecated" in delong.__doc__.lower() and "perfeval.stats" in delong.__doc__
    y, a, _, _ = _data()
    assert bootstrap.ci(y, a, measures="roc", n_boot=30) == ci(y, a, measures="roc", n_boot=30)
    assert delong.delong(y, a) == new_delong.delong(y, a)
    import perfeval

    assert perfeval.ci is stats.ci and perfeval.compare is stats.compare


def test_the_old_modules_warn_on_import_naming_the_new_path_and_the_release():
    """Dated (issue 31): importing a shim warns, at the importer's line, until 0.2.0 removes it."""
    code = "import perfeval.bootstrap\nimport perfeval.delong"
    run = subprocess.run(
        [sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, check=True
    )
    assert (
        "<string>:1: DeprecationWarning: perfeval.bootstrap is moved to perfeval.stats; "
        "the old path is removed in perfeval 0.2.0"
    ) in run.stderr
    assert (
        "<string>:2: DeprecationWarning: perfeval.delong is moved to perfeval.stats.delong; "
        "the old path is removed in perfeval 0.2.0"
    ) in run.stderr


@pytest.mark.parametrize("kind", ["plain", "weighted", "grouped", "delong"])
def test_compare_models_gives_each_model_what_compare_gives_it(kind):
    """Every model walked once with the baseline: each comparison the one of its own call, to the bit."""
    from perfeval.stats import compare_models

    y, a, b, w = _data(500, 4)
    rng = np.random.default_rng(5)
    c = np.round(a + rng.normal(0, 0.3, len(a)), 2)
    a, b, c = (1 / (1 + np.exp(-x)) for x in (a, b, c))  # probabilities, for the log loss
    models = {"a": a, "b": b, "c": c}
    kw: dict = {"n_boot": 60, "seed": 3}
    measures = ["roc", "ap", "logloss:eps=0.01", "acc"]
    if kind == "weighted":
        kw["sample_weight"] = w
    elif kind == "grouped":
        kw["groups"] = rng.integers(0, 20, len(a))
        measures = ["roc", "gauc"]
    elif kind == "delong":
        kw["method"], measures = "delong", ["roc"]
    got = compare_models(y, models, "b", measures=measures, **kw)
    assert list(got) == ["a", "c"]
    for name in ("a", "c"):
        want = compare(y, models[name], b, measures=measures, **kw)
        assert list(got[name]) == list(want)
        for label in want:
            g, x = dataclasses.asdict(got[name][label]), dataclasses.asdict(want[label])
            assert g.keys() == x.keys() and all(
                g[k] == x[k] or (isinstance(x[k], float) and np.isnan(x[k]) and np.isnan(g[k])) for k in x
            ), (name, label)
    with pytest.raises(InvalidParameterError, match="baseline 'z' is not one of the models"):
        compare_models(y, models, "z")


@pytest.mark.filterwarnings("always::perfeval.exceptions.UndefinedMeasureWarning")
def test_compare_over_groups_says_where_a_model_is_undefined(capsys, tmp_path):
    """As `evaluate` warns of groups where a measure is undefined, so does a comparison over groups,
    naming the model and saying why each group (a one-class group has no GAUC for any model)."""
    import warnings as _w

    from conftest import run_cli
    from perfeval import UndefinedMeasureWarning
    from perfeval.stats import compare, compare_models

    y = np.array([1, 0, 1, 1, 0, 1])
    a = np.array([0.9, 0.1, 0.5, 0.4, 0.3, 0.8])
    b = np.array([0.2, 0.3, 0.6, 0.1, 0.7, 0.4])
    g = np.array([1, 1, 2, 2, 3, 3])
    with _w.catch_warnings(record=True) as got:
        _w.simplefilter("always")
        compare(y, a, b, measures="gauc", groups=g, n_boot=50)
    said = [str(x.message) for x in got if issubclass(x.category, UndefinedMeasureWarning)]
    assert said == [
        f"GAUC of {name} is undefined for 1 of 3 groups (2: one class only: all 2 cases are positive); "
        "they are left out of its mean"
        for name in ("score_a", "score_b")
    ]
    with _w.catch_warnings(record=True) as got:
        _w.simplefilter("always")
        compare_models(y, {"base": b, "m1": a, "m2": a}, "base", measures="gauc,map", groups=g, n_boot=50)
    said = [str(x.message).split(" is ")[0] for x in got if issubclass(x.category, UndefinedMeasureWarning)]
    assert said == ["GAUC of m1", "GAUC of base", "GAUC of m2"]  # the baseline once; MAP is defined
    (tmp_path / "g.csv").write_text(
        "q,rel,a,b\n" + "".join(f"q{k},{t},{s},{u}\n" for k, t, s, u in zip(g, y, a, b, strict=True))
    )
    code, _, err = run_cli(
        [
            "compare",
            str(tmp_path / "g.csv"),
            "--target",
            "rel",
            "--score",
            "a,b",
            "--group",
            "q",
            "-m",
            "gauc",
        ],
        capsys,
    )
    assert code == 0 and "GAUC of b is undefined for 1 of 3 groups ('q2': one class only: " in err
    assert "GAUC of a is undefined for 1 of 3 groups ('q2': one class only: " in err


# -- too few groups to resample whole ---------------------------------------------------------------------


@pytest.mark.parametrize("n_groups", [1, 2])
def test_too_few_groups_say_so(tmp_path, capsys, n_groups):
    """With one or two groups, a whole-group replicate often draws no group at all (each group's
    Poisson(1) weight is 0 with probability e^-1): the interval is NaN, and the reason says that, not
    "a replicate without a positive" (there is no positive in a regression's MAE)."""
    from perfeval.cli.main import main

    rng = np.random.default_rng(1)
    n = 400
    y = np.round(rng.gamma(2.0, 10.0, n), 2)
    p = np.round(y + rng.normal(0, 3, n), 2)
    g = rng.integers(0, n_groups, n)
    c = ci(y, p, groups=g, measures=["mae"], n_boot=200, task="regression")["MAE"]
    assert np.isnan(c.low) and np.isnan(c.high)
    groups = f"{n_groups} group{'' if n_groups == 1 else 's'}"
    want = f"no interval: {groups} with a value, too few to resample whole groups"
    assert c.note.startswith(want)
    f = tmp_path / "r.csv"
    f.write_text("y,p,q,g\n" + "".join(f"{a},{b},{b + 1},{k}\n" for a, b, k in zip(y, p, g, strict=True)))
    argv = ["eval", str(f), "--target", "y", "--score", "p", "--group", "g", "-m", "mae", "--ci", "0.95"]
    assert main([*argv, "--n-boot", "200"]) == 0
    out = capsys.readouterr().out
    assert f"(nan intervals: MAE: {want}" in out and "without a positive" not in out
    if n_groups == 2:
        argv = ["compare", str(f), "--target", "y", "--score", "p,q", "--group", "g", "-m", "mae"]
        assert main([*argv, "--n-boot", "200"]) == 0
        out = capsys.readouterr().out
        assert (
            "no interval or test: 2 groups with a value, too few" in out and "without a positive" not in out
        )


def test_a_regression_interval_undefined_in_many_replicates_says_the_measure_s_reason(tmp_path, capsys):
    """Over all cases, a regression measure undefined in more than 5% of the replicates (three cases:
    a replicate often draws one target alone, and R2 is 0/0) says how many and the measure's own
    reason, not "a replicate without a positive" (a binary reason), in the note and its warning (as the
    few groups' note is warned)."""
    import warnings

    from perfeval.cli.main import main
    from perfeval.exceptions import BootstrapBiasWarning

    y, p, q = [1.0, 2.0, 3.0], [1.1, 2.2, 2.5], [1.2, 2.0, 3.3]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = ci(y, p, measures="mae,r2", n_boot=200)
        d = compare(y, p, q, measures="r2", method="bca", n_boot=200)["R2"]
    said = [str(w.message) for w in caught if issubclass(w.category, BootstrapBiasWarning)]
    assert said == [f"R2: {c['R2'].note}", f"R2: {d.note}"]
    assert np.isfinite(c["MAE"].low) and np.isnan(c["R2"].low)
    for note, what in ((c["R2"].note, "interval"), (d.note, "interval or test")):
        head, _, why = note.partition(" leave R2 undefined (in the first of them: ")
        k = int(head.split(": ")[1].split(" of the 200")[0])
        assert head == f"no {what}: {k} of the 200 replicates ({k / 200:.1%}, more than 5%)" and k > 10
        assert why.startswith("every target is equal (their variance is 0)")
        assert note.endswith(f"no {what} from a biased subset") and "positive" not in note
    f = tmp_path / "r.csv"
    f.write_text("y,p\n1,1.1\n2,2.2\n3,2.5\n")
    assert main(["eval", str(f), "--target", "y", "--score", "p", "-m", "mae,r2", "--ci", "0.95"]) == 0
    out = capsys.readouterr().out
    assert f"(nan intervals: R2: {c['R2'].note.replace('200', '1000').split(' (')[0].split(':')[0]}" in out
    assert "leave R2 undefined (in the first of them: every target is equal" in out
    assert "without a positive" not in out


def test_three_groups_say_the_replicates_that_drew_none(tmp_path, capsys):
    """Over three groups, a whole-group replicate draws none of them with probability e^-3 (5.0%): up
    to 5% of the replicates are left out and the interval is of the others; that is said (how many,
    why), in the interval, the JSON and the line under the table, and for compare; none left out, none
    said."""
    from perfeval.cli.main import main

    rng = np.random.default_rng(3)
    n = 90
    y = np.round(rng.gamma(2.0, 10.0, n), 2)
    p, q = (np.round(y + rng.normal(0, 3, n), 2) for _ in range(2))
    g = np.arange(n) % 3
    c = ci(y, p, groups=g, measures=["mae"], n_boot=1000, task="regression")["MAE"]
    d = compare(y, p, q, groups=g, measures=["mae"], n_boot=1000, method="bca")["MAE"]
    from perfeval.stats.replicates import group_weights

    empty = int((group_weights(3, 0, 0, 1000).sum(axis=1) == 0).sum())  # the replicates drawing none
    assert 0 < empty <= 50 and np.isfinite(c.low) and np.isfinite(d.low)
    want = (
        f"{empty} of the 1000 replicates ({empty / 1000:.1%}) drew none of the 3 groups with a value "
        "(each is left out of a replicate with probability e^-1, all 3: e^-3 = 5.0%) and are left out: "
    )
    assert c.left_out == want + f"the interval is of the other {1000 - empty}"
    assert d.left_out == want + f"the interval and test are of the other {1000 - empty}"
    assert c.to_dict()["left_out"] == c.left_out and c.note == ""
    many = ci(y, p, groups=np.arange(n) % 30, measures=["mae"], n_boot=200, task="regression")["MAE"]
    assert many.left_out == "" and "left_out" not in many.to_dict()
    f = tmp_path / "r.csv"
    f.write_text("y,p,g\n" + "".join(f"{a},{b},{k}\n" for a, b, k in zip(y, p, g, strict=True)))
    argv = ["eval", str(f), "--target", "y", "--score", "p", "--group", "g", "-m", "mae", "--ci", "0.95"]
    assert main(argv) == 0
    assert f"(replicates left out: MAE: {c.left_out})\n" in capsys.readouterr().out
