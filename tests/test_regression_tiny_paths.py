"""A regression measure whose exact sums lost bits below 2**-1074 (tiny data: tests/test_regression_tiny.py)
is NaN with its reason in every path that finishes regression measures, as an undefined measure is,
and nothing else changes: per group only the groups that lost bits (each group's value and reason
those of its rows alone, on every backend), compare, the intervals and their bootstrap replicates,
explain, and the kernels' per-group flags that make it so."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.cli.main import main
from test_regression_group_whys import MEASURES as EVERY
from test_regression_group_whys import (
    assert_same_whys,
    assert_streams_say_memorys,
    each_group_alone,
    quiet_evaluate,
    rows_of,
)

LOST = "has bits below 2**-1074 (the smallest 64-bit float), so the exact sums cannot be formed"

#: every regression measure and choice but the deviances of powers 3 and -1, whose terms of tiny
#: targets are beyond float64's range (refused in one line: not this file's)
MEASURES = [
    m for m in EVERY if m not in ("TWEEDIE_DEV:power=3", "TWEEDIE_DEV:power=-1", "D2_TWEEDIE:power=-1")
]

#: groups that lose bits (alone, and with another reason of NaN: which one the group says is the
#: scalar measure's order), and groups that do not
GROUPS = {
    "ok": ([1.0, 2.5, 4.0, 3.0], [1.2, 2.0, 3.5, 3.3]),
    "const": ([2.0, 2.0, 2.0], [1.5, 2.0, 2.5]),
    "tiny": ([1e-170, 2e-170, 3e-170, 4e-170], [1.1e-170, 1.9e-170, 3.2e-170, 3.7e-170]),
    "tinyzero": ([0.0, 1e-170, 3e-170], [1e-171, 1.1e-170, 2.9e-170]),  # MAPE's 0 said first
    "tinyconst": ([2e-170, 2e-170, 2e-170], [1e-170, 2e-170, 3e-170]),
    "tinyneg": ([-2e-170, 1e-170, 3e-170], [0.5e-170, 1e-170, 2.5e-170]),  # the deviances' domain first
    "sub": ([5e-324, 1e-323, 2e-323], [1e-323, 5e-324, 2e-323]),
    "tinysolo": ([3e-170], [2.5e-170]),
    "ok2": ([10.0, 20.0, 30.0], [11.0, 19.0, 33.0]),
}


def rows(weighted: bool):
    return rows_of(GROUPS, weighted)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_each_group_is_its_rows_alone(weighted, compiled, monkeypatch):
    """Before: the whole evaluation refused (one line, exit 1) when any group lost bits.  Both paths
    of the groups' means: compiled, and from the groups' integers."""
    from perfeval.engine import regression as engine

    monkeypatch.setattr(engine, "COMPILED_MEANS", compiled)
    y, p, g, w = rows(weighted)
    grouped, lost = each_group_alone(y, p, g, w, GROUPS, MEASURES, LOST)
    keys = [str(k) for k in grouped.groups]
    assert {k for k, _ in lost} == {"tiny", "tinyzero", "tinyconst", "tinyneg", "sub", "tinysolo"}
    assert ("tinyzero", "MAPE") not in lost and ("tinyzero", "R2") in lost  # MAPE: its target of 0 first
    # the groups that lost no bits: their values those of an evaluation without the tiny groups
    keep = np.isin(g, ["ok", "const", "ok2"])
    rest = quiet_evaluate(y[keep], p[keep], groups=g[keep], sample_weight=None if w is None else w[keep],
                          measures=MEASURES)  # fmt: skip
    for label, r in rest.results.items():
        mine = grouped.results[label].per_group[[keys.index(str(k)) for k in rest.groups]]
        assert np.array_equal(mine, r.per_group, equal_nan=True), label


@pytest.mark.parametrize("weighted", [False, True])
def test_every_backend_says_memorys_groups(weighted):

    y, p, g, w = rows(weighted)
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_streams_say_memorys(y, p, g, w, memory, MEASURES)
        m = perfeval.Metric(MEASURES)
        for i in range(0, len(y), 7):
            m.update(y[i : i + 7], p[i : i + 7], groups=g[i : i + 7],
                     sample_weight=None if w is None else w[i : i + 7])  # fmt: skip
        assert_same_whys(m.compute(), memory)


def test_dasks_groups_say_memorys():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    y, p, g, w = rows(True)
    frame = pd.DataFrame({"y": y, "p": p, "g": g, "w": w})
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.evaluate(dd.from_pandas(frame, npartitions=3), target="y", score="p", group="g",
                                weight="w", measures=MEASURES)  # fmt: skip
    assert got.params["backend"] == "dask"
    assert_same_whys(got, memory)
    for label, r in memory.results.items():
        assert np.array_equal(got.results[label].per_group, r.per_group, equal_nan=True), label


@st.composite
def tiny_groups(draw):
    """A few groups of a few rows, some near float64's bottom (subnormals among them), some not."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    q = draw(st.integers(1, 5))
    ys, ps, gs = [], [], []
    for k in range(q):
        n = int(rng.integers(1, 6))
        low = int(rng.choice([-320, -180, -160, 0]))
        y = rng.normal(size=n) * 10.0 ** rng.integers(low, low + 20, n)
        y = y * rng.choice([0.0, 1.0], n, p=[0.15, 0.85])
        p = y + rng.normal(size=n) * 10.0 ** rng.integers(low, low + 20, n)
        ys.append(y)
        ps.append(p)
        gs.append(np.full(n, k))
    w = rng.integers(1, 5, sum(map(len, ys))) * 0.25 if draw(st.booleans()) else None
    return np.concatenate(ys), np.concatenate(ps), np.concatenate(gs), w


@settings(max_examples=60, deadline=None)
@given(tiny_groups())
def test_any_groups_values_and_reasons_are_their_rows_alone(data):
    y, p, g, w = data
    if not (np.isfinite(y - p).all() and np.isfinite((y - p) / np.maximum(np.abs(y), 2.2e-16)).all()):
        return
    measures = ["mae", "mse", "rmse", "r2", "expvar", "mape", "mape:eps=sklearn", "pinball:alpha=0.25",
                "d2_ae", "d2_tweedie", "d2_tweedie:power=1.5", "poisson_dev", "msle"]  # fmt: skip
    try:
        grouped = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=measures, task="regression")
    except perfeval.InvalidDataError as e:
        assert "beyond the range" in str(e), e  # a term beyond the range: refused, not this test's
        return
    keys = grouped.groups.tolist()
    for key in keys:
        m = g == key
        alone = quiet_evaluate(y[m], p[m], sample_weight=None if w is None else w[m], measures=measures,
                               task="regression")  # fmt: skip
        for label, r in alone.results.items():
            res = grouped.results[label]
            mine = res.per_group[keys.index(key)]
            if math.isnan(r.value):
                assert math.isnan(mine), (key, label)
                why = dict(zip(res.undefined, res.undefined_groups_why, strict=True)).get(key)
                assert why == r.why, (key, label, why, r.why)
            else:
                assert mine == r.value, (key, label, mine, r.value)


def test_the_warning_says_each_reason_once(tmp_path, capsys):
    """Groups of two reasons: each reason said once, after the groups it is of (it was said after
    each group, the long reason of lost bits as many times as groups lost them)."""
    y, p, g = [], [], []
    for key in ("a", "b", "c", "d", "e"):
        ys, ps = GROUPS["tiny"] if key in "ace" else GROUPS["const"]
        y += ys
        p += ps
        g += [key] * len(ys)
    path = tmp_path / "g.csv"
    path.write_text("y,p,g\n" + "".join(f"{a!r},{b!r},{c}\n" for a, b, c in zip(y, p, g, strict=True)))
    code = main(["eval", str(path), "--target", "y", "--score", "p", "--group", "g", "-m", "r2"])
    _out, err = capsys.readouterr()
    assert code == 0
    (line,) = [ln for ln in err.splitlines() if "R2 is undefined" in ln]
    assert line.count(LOST) == 1 and line.count("every target is equal") == 1, line
    assert "('a', 'c', 'e': a product of targets" in line and "; 'b', 'd': every target is equal" in line


def test_compare_gives_the_other_measures(tmp_path, capsys):
    """Before: compare of tiny data refused (exit 1) for R2, MAE not compared."""
    rng = np.random.default_rng(2)
    y = rng.random(30) * 1e-160
    a, b = y * (1 + rng.random(30) * 0.1), y * (1 + rng.random(30) * 0.2)
    path = tmp_path / "two.csv"
    path.write_text(
        "y,a,b\n"
        + "".join(f"{u!r},{v!r},{x!r}\n" for u, v, x in zip(y.tolist(), a.tolist(), b.tolist(), strict=True))
    )
    args = ["compare", str(path), "--target", "y", "--score", "a,b", "--format", "json"]
    assert main([*args, "-m", "mae"]) == 0
    alone = json.loads(capsys.readouterr().out)
    code = main([*args, "-m", "mae,r2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out)
    text = json.dumps(got)
    assert LOST in text and LOST in err
    mae = [c for c in got["comparisons"] if c["measure"] == "MAE"]
    assert mae == [c for c in alone["comparisons"] if c["measure"] == "MAE"]
    r2 = [c for c in got["comparisons"] if c["measure"] == "R2"]
    assert r2 and all(c["difference"] is None for c in r2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api = perfeval.compare(y, a, b, measures=["mae", "r2"], task="regression")
        api_alone = perfeval.compare(y, a, b, measures=["mae"], task="regression")
    assert math.isnan(api["R2"].difference) and api["MAE"] == api_alone["MAE"]


def test_the_intervals_give_the_other_measures(tmp_path, capsys):
    """--ci and perfeval.ci: the lost measure's estimate NaN (no interval), the others' intervals
    the bits of a run without it.  Before: the bootstrap's replicates refused (exit 1)."""
    rng = np.random.default_rng(4)
    y = rng.random(40) * 1e-160
    p = y * (1 + rng.random(40) * 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.ci(y, p, measures=["mae", "r2"], task="regression", n_boot=200)
        alone = perfeval.ci(y, p, measures=["mae"], task="regression", n_boot=200)
    assert got["MAE"] == alone["MAE"]
    assert math.isnan(got["R2"].estimate) and math.isnan(got["R2"].low)
    path = tmp_path / "t.csv"
    path.write_text("y,p\n" + "".join(f"{u!r},{v!r}\n" for u, v in zip(y.tolist(), p.tolist(), strict=True)))
    args = ["eval", str(path), "--target", "y", "--score", "p", "--ci", "0.9", "--n-boot", "200",
            "--format", "json"]  # fmt: skip
    assert main([*args, "-m", "mae"]) == 0
    mae = json.loads(capsys.readouterr().out)["measures"]["MAE"]
    code = main([*args, "-m", "mae,r2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    said = json.loads(out)["measures"]
    assert said["MAE"] == mae and said["R2"]["value"] is None and LOST in said["R2"]["why_null"]


def test_a_replicate_that_loses_bits_is_an_undefined_replicate():
    """A bootstrap replicate whose sums lose bits is NaN for the measures that read them (an undefined
    replicate: more than 5% of them leave no interval), not an error naming the measure by another
    name ('MSE: ...' of MSE_REG); the others are computed."""
    from perfeval.stats.regression import Replicas, regression_measures

    specs = regression_measures(["mae", "mse", "r2", "d2_ae"], 0.5)
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0]) * 1e-170
    p = np.array([1.1, 1.9, 3.2, 3.7, 5.5]) * 1e-170
    got = Replicas(y, p, specs).values(np.array([2.0, 1.0, 0.0, 1.0, 1.0]))
    assert np.isfinite(got[0]) and np.isnan(got[1:3]).all()
    ok = Replicas(y * 1e170, p * 1e170, specs).values(np.array([2.0, 1.0, 0.0, 1.0, 1.0]))
    assert np.isfinite(ok).all()


def test_explain_gives_the_other_measures(tmp_path, capsys):
    """Before: explain of tiny data refused (exit 1: scikit-learn's R2 cell raised)."""
    y = np.array([1.0, 2.0, 3.0, 4.0]) * 1e-170
    p = np.array([1.1, 1.9, 3.2, 3.7]) * 1e-170
    e = perfeval.explain(y, p, measures=["mae", "r2", "mse"])
    alone = perfeval.explain(y, p, measures=["mae"])
    for tool in ("perfeval", "sklearn", "torchmetrics"):
        assert e.cells[tool]["MAE"] == alone.cells[tool]["MAE"]
        assert math.isnan(e.cells[tool]["R2"].value) and math.isnan(e.cells[tool]["MSE_REG"].value)
    assert LOST in e.cells["sklearn"]["R2"].note and LOST in e.cells["torchmetrics"]["MSE_REG"].note
    assert LOST in e.cells["perfeval"]["R2"].rules[0]
    path = tmp_path / "t.csv"
    path.write_text("y,p\n" + "".join(f"{u!r},{v!r}\n" for u, v in zip(y.tolist(), p.tolist(), strict=True)))
    code = main(["explain", str(path), "--target", "y", "--score", "p", "-m", "mae,r2"])
    out, err = capsys.readouterr()
    assert code == 0 and LOST in out, err


def test_the_kernels_flag_each_group():
    """exact_sums(lost=2) and regression_sums' last entry: each group's own flags, those of the group
    summed alone; a row of weight 0 adds terms of 0, exact, and flags nothing (its square did before)."""
    from perfeval import _native
    from perfeval.summaries.regression import ROW_SUMS, row_sums

    rng = np.random.default_rng(7)
    a = rng.normal(size=40) * 10.0 ** rng.integers(-180, 5, 40)
    b = rng.normal(size=40) * 10.0 ** rng.integers(-180, 5, 40)
    bounds = np.array([0, 5, 5, 17, 30, 40], dtype=np.int64)
    for fs in ((a, b), (a, b, np.abs(b))):
        sums, flags = _native.exact_sums(bounds, *fs, *(None,) * (3 - len(fs)), 0, 2)
        assert isinstance(flags, bytes) and len(flags) == 5
        for k in range(5):
            lo, hi = bounds[k], bounds[k + 1]
            (one,), lost = _native.exact_sums(None, *(f[lo:hi] for f in fs), *(None,) * (3 - len(fs)), 0, 1)
            assert one == sums[k] and bool(flags[k]) == lost, k
    w = np.abs(rng.normal(size=40))
    for weights in (None, w):
        got: dict = {}
        row_sums(bounds, a, b, weights, lost_groups=got)
        assert got, "tiny rows: some sum lost bits"
        for k in range(5):
            lo, hi = bounds[k], bounds[k + 1]
            alone: set = set()
            row_sums(None, a[lo:hi], b[lo:hi], None if weights is None else weights[lo:hi], lost=alone)
            assert {key for key in ROW_SUMS if key in got and got[key][k]} == alone, k
    # a tiny square times a weight of 0: every term 0, exact
    y = np.array([1e-170, 1.0])
    flagged: set = set()
    row_sums(None, y, np.zeros(2), np.array([0.0, 1.0]), lost=flagged)
    assert not flagged
    _, lost = _native.exact_sums(None, y, y, np.array([0.0, 1.0]), 0, 1)
    assert not lost
