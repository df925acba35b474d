"""Which test a comparison takes, and what it says: DeLong's test for the ROC area over all
unweighted cases (as pROC's ``roc.test``), the paired bootstrap for the other measures, the same in
``perfeval compare``, ``perfeval report --ci`` and ``perfeval.compare``/``compare_models``; every
row names its test; a bootstrap p-value at its floor, 2 / (R + 1), is shown as the bound it is.

The input is what a user has: a CSV written by pandas, two or three models' scores.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.cli.main import main
from perfeval.stats import compare, compare_models
from perfeval.stats.delong import delong_test

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    rng = np.random.default_rng(30)
    n = 800
    y = (rng.random(n) < 0.4).astype(int)
    frame = pd.DataFrame(
        {
            "label": y,
            "old": np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 0.8 * y))), 4),
            "new": np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.6 * y))), 4),
            "newer": np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.0 * y))), 4),
        }
    )
    path = tmp_path_factory.mktemp("cmp") / "models.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _json(capsys, argv) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_default_is_delong_for_roc_and_the_bootstrap_for_the_rest(models, capsys):
    frame, path = models
    base = ["compare", str(path), "--target", "label", "--score", "old,new", "-m", "roc,logloss"]
    got = {r["measure"]: r for r in _json(capsys, [*base, "--format", "json"])["comparisons"]}
    assert got["ROC"]["method"] == "delong" and got["LOGLOSS"]["method"] == "bca"
    d = delong_test(frame["label"], frame["new"], frame["old"])
    assert got["ROC"]["p_value"] == d.p_value and got["ROC"]["difference"] == d.difference
    assert got["ROC"]["n_boot"] == 0 and got["ROC"]["seed"] is None and got["ROC"]["seed_why_null"]
    # the table names each row's test, and the note says which measures each test gave
    capsys.readouterr()
    assert main(base) == 0
    out = capsys.readouterr().out.splitlines()
    head = out[1].split()
    assert head[-1] == "test"
    rows = {line.split()[1]: line.split() for line in out[2:4]}
    assert rows["ROC"][-1] == "delong" and rows["LOGLOSS"][-1] == "bca"
    assert "(ROC: DeLong's test; LOGLOSS: paired bca bootstrap, 1000 replicates, seed 0" in out[4]
    assert out[-1].endswith("|ci:delong(ROC)+bca(LOGLOSS),n=1000,seed=0,level=0.95")


def test_method_forces_one_test(models, capsys):
    _frame, path = models
    base = ["compare", str(path), "--target", "label", "--score", "old,new", "--format", "json"]
    rows = _json(capsys, [*base, "-m", "roc,logloss", "--method", "bca", "--n-boot", "200"])["comparisons"]
    assert [r["method"] for r in rows] == ["bca", "bca"]
    rows = _json(capsys, [*base, "-m", "roc", "--method", "percentile", "--n-boot", "200"])["comparisons"]
    assert rows[0]["method"] == "percentile" and rows[0]["n_boot"] == 200
    assert main([*base, "-m", "roc,logloss", "--method", "delong"]) == 2
    assert "DeLong's test is for the ROC area" in capsys.readouterr().err


def test_library_report_and_command_agree(models, capsys, tmp_path):
    """perfeval.compare, compare_models, `perfeval compare` and the report's comparisons: the same
    default test of each measure, the same numbers."""
    pytest.importorskip("matplotlib")
    frame, path = models
    y = frame["label"].to_numpy()
    lib = compare(y, frame["new"], frame["old"], measures=["roc", "apr"], n_boot=300, seed=4)
    every = compare_models(
        y, {c: frame[c] for c in ("old", "new", "newer")}, "old", measures=["roc", "apr"], n_boot=300, seed=4
    )
    assert every["new"] == lib
    assert lib["ROC"].method == "delong" and lib["APR"].method == "bca"
    args = [str(path), "--target", "label", "--score", "old,new,newer", "-m", "roc,apr", "--n-boot", "300"]
    rows = _json(capsys, ["compare", *args, "--seed", "4", "--format", "json"])["comparisons"]
    for r in rows:
        c = every[r["model"]][r["measure"]]
        assert (r["method"], r["p_value"], r["low"], r["high"]) == (c.method, c.p_value, c.low, c.high)
    out = tmp_path / "r.html"
    assert main(["report", *args, "--seed", "4", "--ci", "0.95", "-o", str(out)]) == 0
    text = out.read_text().replace("\n", "")
    assert "ROC: DeLong&#x27;s test; APR: paired bca bootstrap, 300 replicates, seed 4" in text
    for r in rows:
        c = every[r["model"]][r["measure"]]
        p = ("\u2264" if c.p_at_floor else "") + f"{c.p_value:.4g}"
        assert f"[{c.low:.6f}, {c.high:.6f}]</td><td>{p}</td>" in text, (r["model"], r["measure"])
        assert f"<td>{c.method}</td></tr>" in text


def test_weighted_or_grouped_roc_takes_the_bootstrap(models):
    frame, _path = models
    y = frame["label"].to_numpy()
    w = np.ones(len(y))
    assert (
        compare(y, frame["new"], frame["old"], measures="roc", sample_weight=w, n_boot=50)["ROC"].method
        == "bca"
    )
    g = np.arange(len(y)) % 20
    got = compare(y, frame["new"], frame["old"], measures="roc", groups=g, n_boot=50)["ROC"]
    assert got.method == "bca" and got.resampled == "groups"


def test_a_p_value_at_the_floor_is_a_bound(models, capsys):
    """No replicate on the far side of zero: the p-value is 2 / (R + 1), the least the bootstrap can
    give; the table shows it as a bound, the JSON and CSV flag it."""
    _frame, path = models
    base = ["compare", str(path), "--target", "label", "--score", "old,new", "-m", "apr", "--n-boot", "500"]
    row = _json(capsys, [*base, "--format", "json"])["comparisons"][0]
    assert row["p_value"] == 2 / 501 and row["p_at_floor"] is True and row["p_adjusted_bound"] is True
    capsys.readouterr()
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "<=0.003992" in out and " 0.003992" not in out
    assert "the bootstrap's least p-value, 2 / (replicates + 1), so a bound" in out
    # what is true of a BCa p-value at its floor, not "beyond the interval at every level" (its
    # acceleration can keep its interval's end short of zero at every level: test_bca_floor_is_said_as_it_is)
    assert "BCa, the BCa interval inverted reaches zero only at a level above 1 - 2 / (replicates + 1)" in out
    assert "beyond the interval at every level" not in out and "percentile," not in out
    capsys.readouterr()
    assert main([*base, "--format", "csv"]) == 0
    csv = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert bool(csv["p_at_floor"][0]) and csv["method"][0] == "bca"
    # a p-value above the floor is an estimate: no bound said
    row = _json(capsys, [*base[:5], "old,newer", *base[6:], "--format", "json"])["comparisons"][0]
    assert row["p_value"] > 2 / 501 and row["p_at_floor"] is False


def test_holm_of_a_bound_is_a_bound(models, capsys):
    _frame, path = models
    argv = [
        "compare",
        str(path),
        "--target",
        "label",
        "--score",
        "old,new,newer",
        "-m",
        "apr",
        "--n-boot",
        "300",
    ]
    rows = {r["model"]: r for r in _json(capsys, [*argv, "--format", "json"])["comparisons"]}
    assert rows["new"]["p_at_floor"] and rows["new"]["p_adjusted_bound"]
    assert not rows["newer"]["p_at_floor"]
    # Holm's value of `newer` is max(2 p_new, p_newer): a bound when it comes from new's floor alone
    # (an exact p_newer at or above it holds it: no lowering of p_new moves it)
    p_new, p_newer = rows["new"]["p_value"], rows["newer"]["p_value"]
    assert p_newer >= p_new
    assert rows["newer"]["p_adjusted"] == max(2 * p_new, p_newer)
    assert rows["newer"]["p_adjusted_bound"] == (2 * p_new > p_newer)


def test_roc_by_the_bootstrap_says_why(models, tmp_path, capsys):
    frame, _path = models
    frame = frame.assign(w=np.where(np.arange(len(frame)) % 3, 1.0, 0.5), g=np.arange(len(frame)) % 10)
    path = tmp_path / "w.csv"
    frame.to_csv(path, index=False)
    base = ["compare", str(path), "--target", "label", "--score", "old,new", "-m", "roc", "--n-boot", "50"]
    capsys.readouterr()
    assert main([*base, "--weight", "w"]) == 0
    out = capsys.readouterr().out
    assert "(ROC by the bootstrap, not DeLong's test: the cases are weighted" in out
    assert main([*base, "--group", "g"]) == 0
    assert (
        "(ROC by the bootstrap, not DeLong's test: the comparison is over groups)" in capsys.readouterr().out
    )
    # APR reads weights as counts: a fractional one is one line with its file, line and column, as in eval
    assert main([*base[:-4], "-m", "apr", "--weight", "w"]) == 1
    assert capsys.readouterr().err.startswith(
        f"perfeval: error: {path}, line 2: APR reads weights as counts of cases (whole numbers), but the "
        "weight column 'w' holds 0.5"
    )


def test_one_class_takes_the_bootstrap_by_default_and_delong_says_why_not():
    y = [1, 1, 1, 1, 1, 0]  # one negative: DeLong's variance needs two
    a, b = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [0.4, 0.5, 0.6, 0.7, 0.8, 0.3]
    c = compare(y, a, b, measures=["roc"], n_boot=50)["ROC"]
    assert c.method == "bca" and c.difference == pytest.approx(0.0)
    from perfeval.exceptions import InvalidDataError

    with pytest.raises(InvalidDataError, match="DeLong's variance needs more than one positive"):
        compare(y, a, b, measures=["roc"], method="delong")


def test_a_bootstrap_with_too_many_undefined_replicates_gives_no_p_value_either(tmp_path, capsys):
    """More than 5% of the replicates undefined (2 positives in 7 cases: many replicates draw none)
    left the interval NaN, "no interval from a biased subset", but printed a p-value (0.3678)
    from that same subset.  The test is refused with the interval, and the table says why."""
    y = np.array([1, 0, 0, 0, 0, 1, 0])
    a = np.array([0.9, 0.1, 0.2, 0.4, 0.3, 0.35, 0.6])
    b = np.array([0.8, 0.3, 0.1, 0.5, 0.2, 0.7, 0.65])
    c = compare(y, b, a, measures="apr", n_boot=100)["APR"]
    assert np.isnan(c.low) and np.isnan(c.high)
    assert np.isnan(c.p_value) and not c.p_at_floor
    path = tmp_path / "two.csv"
    pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(path, index=False)
    argv = ["compare", str(path), "--target", "y", "--score", "a,b", "-m", "apr", "--n-boot", "100"]
    assert main([*argv, "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert row["p_value"] is None and row["p_adjusted"] is None
    assert row["p_value_why_null"].startswith("more than 5% of the replicates leave the value undefined")
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "(nan: b APR: more than 5% of the replicates leave the value undefined" in out
    assert "no interval or test from a biased subset)" in out
    # enough replicates defined: a p-value, as before
    assert np.isfinite(
        compare(np.tile(y, 20), np.tile(b, 20), np.tile(a, 20), measures="apr", n_boot=100)["APR"].p_value
    )


def test_bca_floor_is_said_as_it_is():
    """A BCa p-value at its floor where BCa's levels cannot reach zero (1 + a u <= 0): the interval's
    upper end is past the level map's pole from 99% on (there it stays at the largest replicate:
    bca), the lower end short of zero at every level; the reason says what holds (it said "zero lies
    beyond the interval at every level", and before the pole was kept the 99% interval turned back
    over zero, low above high)."""
    from perfeval.stats.intervals import floor_reason, paired_test

    reps = np.sort(np.random.default_rng(0).normal(1, 0.36, 999))
    diff = float(np.median(reps))
    lo, hi, _sd, _note, p, floor = paired_test(diff, reps, 0.99, "bca", 0.4, True)
    assert floor and p == 2 / 1000
    assert 0 < lo <= hi == reps.max()  # past the pole: the largest replicate, zero left out
    lo, hi, *_ = paired_test(diff, reps, 0.99, "bca", 0.2, True)
    assert 0 < lo < hi  # the other way to the floor: zero left out
    said = floor_reason({"bca"})
    assert "at a level above 1 - 2 / (replicates + 1) or at none" in said and "stops short of zero" in said
    assert floor_reason({"percentile"}) == "percentile, no replicate difference lies beyond zero"
