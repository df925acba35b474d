"""Regression data whose products are beyond float64's range (targets about 1e200, or tiny targets
whose deviance of power 3 is): the exact sums are kept whatever their size (csrc/exact.c,
``add_product``), so every measure whose value is a float64 is computed (R2, the explained variance,
MAE, MAPE, RMSE of data about 1e200), and a measure whose value, or a row's own deviance, is beyond
float64's range is NaN with why, as an undefined measure is (lost bits' mirror:
tests/test_regression_tiny_paths.py): per group only those groups, on every path.  Before: the whole
run refused in one line ("a product of a target, a prediction and a weight is beyond the range of a
64-bit float"), exit 1."""

from __future__ import annotations

import json
import math
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from test_regression_group_whys import (
    assert_same_whys,
    assert_streams_say_memorys,
    each_group_alone,
    quiet_evaluate,
    rows_of,
    whys_of,
)

BEYOND = "beyond the range of a 64-bit float"
ROW = "of a row is beyond the range of a 64-bit float"
#: power 3 of data about 1e-200: the step mu^-2 (about 1e400) is beyond the range, not the deviance
STEP = "(power 3: mu^-2, a power of its prediction) is beyond the range of a 64-bit float"

MEASURES = ["MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR", "MAPE", "MAPE:eps=sklearn", "PINBALL",
            "MEDAE", "MAXERR", "D2_AE", "D2_TWEEDIE", "TWEEDIE_DEV:power=3", "TWEEDIE_DEV:power=-1",
            "TWEEDIE_DEV", "POISSON_DEV", "MSLE"]  # fmt: skip

Y = np.array([1.0, 2.5, 4.0, 3.0, 2.0, 5.5])
P = np.array([1.2, 2.0, 3.5, 3.3, 2.4, 5.0])

#: groups of every size: huge ones, a tiny one (power 3's deviance beyond), and normal ones
GROUPS = {
    "ok": (Y[:4], P[:4]),
    "big": (Y * 1e200, P * 1e200),
    "huge": (Y[:3] * 1e300, P[:3] * 1e300),
    "const": (np.full(3, 2.0), np.array([1.5, 2.0, 2.5])),
    "tiny": (Y * 1e-200, P * 1e-200),
    "bigsolo": (np.array([3e250]), np.array([2e250])),
    "ok2": (np.array([10.0, 20.0, 30.0]), np.array([11.0, 19.0, 33.0])),
}


def rows(weighted: bool):
    return rows_of(GROUPS, weighted)


def exact(y, p, w=None):
    """The exact sums of y, y^2, r^2 and w as fractions (r = y - p rounded)."""
    w = np.ones(len(y)) if w is None else w
    W = sum(Fraction(float(a)) for a in w)
    sy = sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(w, y, strict=True))
    syy = sum(Fraction(float(a)) * Fraction(float(b)) ** 2 for a, b in zip(w, y, strict=True))
    srr = sum(Fraction(float(a)) * Fraction(float(b - c)) ** 2 for a, b, c in zip(w, y, p, strict=True))
    return W, sy, syy, srr


@pytest.mark.parametrize("weighted", [False, True])
def test_each_measure_on_huge_data(weighted):
    """R2, EXPVAR, MAE, MAPE, RMSE computed right from the exact sums; MSE NaN with why (its value,
    about 1e399, is no float64); the deviances of a row beyond the range NaN with why."""
    y, p = Y * 1e200, P * 1e200
    w = np.array([1.0, 0.5, 2.0, 1.5, 1.0, 3.0]) if weighted else None
    got = quiet_evaluate(y, p, sample_weight=w, measures=MEASURES)
    W, sy, syy, srr = exact(y, p, w)
    spread = W * syy - sy * sy
    assert got["R2"] == float(1 - srr * W / spread)
    assert got["RMSE_REG"] == math.sqrt(float(srr / W / 2**800)) * 2.0**400  # MSE rounded once, then its root
    assert got["MAE"] == float(sum(Fraction(float(abs(a - b))) * Fraction(float(c))
                                   for a, b, c in zip(y, p, np.ones(6) if w is None else w, strict=True)) / W)  # noqa: E501  # fmt: skip
    small = quiet_evaluate(Y, P, sample_weight=w, measures=["MAPE", "R2", "EXPVAR", "D2_AE", "D2_TWEEDIE"])
    for label in ("MAPE", "R2", "EXPVAR", "D2_AE", "D2_TWEEDIE"):  # scale-free: about the same
        assert got[label] == pytest.approx(small[label], rel=1e-12), label
    mse = got.results["MSE_REG"]
    assert math.isnan(mse.value) and BEYOND in mse.why and "squared errors" in mse.why and "e+399" in mse.why
    for label in ("TWEEDIE_DEV", "TWEEDIE_DEV@-1"):
        r = got.results[label]
        assert math.isnan(r.value) and ROW in r.why, label
    # the others: the bits of a run without the measures that are NaN
    rest = [m for m in MEASURES if m not in ("MSE_REG", "TWEEDIE_DEV", "TWEEDIE_DEV:power=-1")]
    alone = quiet_evaluate(y, p, sample_weight=w, measures=rest)
    for label, r in alone.results.items():
        assert got[label] == r.value or (math.isnan(r.value) and math.isnan(got[label])), label


def test_tiny_data_whose_deviance_step_is_beyond():
    """Power 3 of data about 1e-200: ``mu^-2`` (about 1e400) is beyond the range, not the deviance
    (about 1e200): the reason names that step (tests/test_regression_tweedie_low.py)."""
    y, p = Y * 1e-200, P * 1e-200
    got = quiet_evaluate(y, p, measures=["MAE", "TWEEDIE_DEV:power=3", "D2_TWEEDIE:power=3"])
    assert got["MAE"] == quiet_evaluate(y, p, measures=["MAE"])["MAE"]
    r = got.results["TWEEDIE_DEV@3"]
    assert math.isnan(r.value) and STEP in r.why
    assert math.isnan(got["D2_TWEEDIE@3"])  # its squares lost bits first (tests/test_regression_tiny.py)


def test_a_value_beyond_and_its_root_in_the_range():
    """RMSE of errors about 1e250 is about 1e250 (its MSE about 1e500: NaN with why)."""
    y = np.array([1e250, -2e250, 3e250])
    got = quiet_evaluate(y, np.zeros(3), measures=["RMSE_REG", "MSE_REG"])
    assert got["RMSE_REG"] == math.sqrt(float(sum(Fraction(v) ** 2 for v in y) / 3 / 2**1660)) * 2.0**830
    y = np.array([1e300, 1.5e300])  # RMSE is at most the largest |r|: never beyond, with any weights
    r = quiet_evaluate(y, np.zeros(2), sample_weight=np.array([1e300, 1.0]), measures=["RMSE_REG", "MSE_REG"])
    want = (Fraction(1e300) ** 3 + Fraction(1.5e300) ** 2) / (Fraction(1e300) + 1)
    assert r["RMSE_REG"] == math.sqrt(float(want / 2**1992)) * 2.0**996
    assert math.isnan(r["MSE_REG"]) and BEYOND in r.results["MSE_REG"].why


def test_the_kernels_sum_products_beyond_the_range_exactly():
    from perfeval.summaries.regression import SHIFT, exact_sums, row_means, row_sums

    rng = np.random.default_rng(9)
    for _ in range(40):
        n = int(rng.integers(1, 8))
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-40, 308, n)
        b = rng.standard_normal(n) * 10.0 ** rng.integers(-40, 308, n)
        c = np.abs(rng.standard_normal(n)) * 10.0 ** rng.integers(-40, 308, n)
        for fs in ((a, b), (a, b, c)):
            (got,) = exact_sums(None, *fs)
            want = sum(math.prod(Fraction(float(f[i])) for f in fs) for i in range(n))
            assert Fraction(got, 2**SHIFT) == want
        p = a * 0.9
        sums = row_sums(np.array([0, n]), a, p, c)
        W, sy, syy, srr = exact(a, p, c)
        assert Fraction(sums["syy"][0][0], 2**SHIFT) == syy and Fraction(sums["srr"][0][0], 2**SHIFT) == srr
        means, _ = row_means(np.array([0, n]), a, p, c, ("srr",), fractions=("R2",))
        q = srr / W
        try:
            assert means["srr"][0] == float(q)
        except OverflowError:
            assert means["srr"][0] == math.inf
        spread = W * syy - sy * sy
        if spread:
            assert means["R2"][0] == float(1 - srr * W / spread)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_each_group_is_its_rows_alone(weighted, compiled, monkeypatch):
    from perfeval.engine import regression as engine

    monkeypatch.setattr(engine, "COMPILED_MEANS", compiled)
    y, p, g, w = rows(weighted)
    grouped, beyond = each_group_alone(y, p, g, w, GROUPS, MEASURES, BEYOND)
    keys = [str(k) for k in grouped.groups]
    assert {k for k, _ in beyond} == {"big", "huge", "bigsolo", "tiny"}
    assert ("big", "MSE_REG") in beyond and ("big", "RMSE_REG") not in beyond and ("big", "R2") not in beyond
    assert ("tiny", "TWEEDIE_DEV@3") in beyond
    # the other groups: the bits of an evaluation without the huge and tiny ones
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


def test_the_stream_and_a_metric_of_one_group_say_memorys():
    from perfeval.backends.stream import evaluate_stream

    y, p = Y * 1e200, P * 1e200
    memory = quiet_evaluate(y, p, measures=MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate_stream(((y[i : i + 2], p[i : i + 2]) for i in range(0, 6, 2)), measures=MEASURES)
        m = perfeval.Metric(MEASURES)
        m.update(y[:3], p[:3])
        m.update(y[3:], p[3:])
        metric = m.compute()
    for label, r in memory.results.items():
        for other in (got, metric):
            o = other.results[label]
            assert o.value == r.value or (math.isnan(o.value) and math.isnan(r.value)), label
            assert o.why == r.why, label


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
        whole = perfeval.evaluate(dd.from_pandas(frame[frame.g == "big"], npartitions=2), target="y",
                                  score="p", weight="w", measures=MEASURES)  # fmt: skip
    assert got.params["backend"] == "dask"
    assert_same_whys(got, memory)
    for label, r in memory.results.items():
        assert np.array_equal(got.results[label].per_group, r.per_group, equal_nan=True), label
    m = g == "big"
    alone = quiet_evaluate(y[m], p[m], sample_weight=w[m], measures=MEASURES)
    for label, r in alone.results.items():
        assert whole.results[label].why == r.why, label
        assert whole[label] == r.value or (math.isnan(r.value) and math.isnan(whole[label])), label


def test_a_metric_state_keeps_which_deviances_are_beyond():
    y, p = Y * 1e-200, P * 1e-200
    measures = ["mae", "tweedie_dev:power=3"]
    m = perfeval.Metric(measures, task="regression")
    m.update(y[:2], p[:2])
    back = perfeval.Metric(measures, task="regression")
    back.load_state_dict(m.state_dict())
    back.update(Y, P)  # rows in the range: the state's row beyond is still said
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = back.compute()
        again = pickle.loads(pickle.dumps(m)).compute()
    assert (
        math.isnan(r["TWEEDIE_DEV@3"]) and STEP in r.results["TWEEDIE_DEV@3"].why and math.isfinite(r["MAE"])
    )
    assert STEP in again.results["TWEEDIE_DEV@3"].why
    # a state written before the field: its rows were refused beyond the range, so none is in it
    written = perfeval.Metric(measures, task="regression")
    written.update(Y, P)
    old = written.state_dict()
    old["regression"] = {k: v for k, v in old["regression"].items() if k != "over"}
    read = perfeval.Metric(measures, task="regression")
    read.load_state_dict(old)
    assert read.compute()["TWEEDIE_DEV@3"] == written.compute()["TWEEDIE_DEV@3"]
    bad = m.state_dict()
    bad["regression"] = dict(bad["regression"], over=[1])
    with pytest.raises(perfeval.InvalidParameterError):
        perfeval.Metric(measures, task="regression").load_state_dict(bad)


def test_the_cli_says_it_in_one_line(tmp_path, capsys):
    y, p = Y * 1e200, P * 1e200
    path = tmp_path / "big.csv"
    path.write_text("y,p\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(y.tolist(), p.tolist(), strict=True)))
    code = main(
        ["eval", str(path), "--target", "y", "--score", "p", "-m", "mae,mse,rmse,r2,mape", "--format", "json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    said = json.loads(out)["measures"]
    assert said["MSE_REG"]["value"] is None and BEYOND in said["MSE_REG"]["why_null"]
    assert all(said[k]["value"] is not None for k in ("MAE", "RMSE_REG", "R2", "MAPE"))
    (line,) = [ln for ln in err.splitlines() if "MSE_REG is undefined" in ln]
    assert BEYOND in line and "squared errors" in line
    tiny = tmp_path / "tiny.csv"
    tiny.write_text(
        "y,p\n"
        + "".join(f"{a!r},{b!r}\n" for a, b in zip((Y * 1e-200).tolist(), (P * 1e-200).tolist(), strict=True))
    )
    code = main(["eval", str(tiny), "--target", "y", "--score", "p", "-m", "mae,tweedie_dev:power=3"])
    out, err = capsys.readouterr()
    assert code == 0 and "TWEEDIE_DEV@3 is undefined" in err and STEP in err, err


def test_compare_and_the_intervals_give_the_other_measures():
    rng = np.random.default_rng(2)
    y = (rng.random(30) + 1) * 1e200
    a, b = y * (1 + rng.random(30) * 0.1), y * (1 + rng.random(30) * 0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = perfeval.compare(y, a, b, measures=["r2", "mse"], task="regression", n_boot=200)
        alone = perfeval.compare(y, a, b, measures=["r2"], task="regression", n_boot=200)
        ci = perfeval.ci(y, a, measures=["r2", "mse"], task="regression", n_boot=200)
        ci_alone = perfeval.ci(y, a, measures=["r2"], task="regression", n_boot=200)
    assert both["R2"] == alone["R2"] and math.isfinite(both["R2"].difference)
    assert math.isnan(both["MSE_REG"].difference)
    assert ci["R2"] == ci_alone["R2"] and math.isfinite(ci["R2"].low)
    assert math.isnan(ci["MSE_REG"].estimate)


def test_a_replicate_beyond_the_range_is_an_undefined_replicate():
    from perfeval.stats.regression import Replicas, regression_measures

    specs = regression_measures(["mae", "tweedie_dev:power=3", "mse"], 0.5)
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0]) * 1e-200
    y[0] = 1.0  # only this row's deviance of power 3 is a float64
    p = y * 1.1
    reps = Replicas(y, p, specs)
    drawn = reps.values(np.array([2.0, 1.0, 0.0, 1.0, 1.0]))
    assert np.isfinite(drawn[0]) and np.isnan(drawn[1])
    only = reps.values(np.array([3.0, 0.0, 0.0, 0.0, 0.0]))  # the row in the range alone
    assert np.isfinite(only).all()


def test_explain_gives_the_other_measures(tmp_path, capsys):
    y, p = Y * 1e200, P * 1e200
    e = perfeval.explain(y, p, measures=["mae", "r2", "mse"])
    alone = perfeval.explain(y, p, measures=["mae", "r2"])
    for tool in ("perfeval", "sklearn", "torchmetrics"):
        assert (
            e.cells[tool]["MAE"] == alone.cells[tool]["MAE"]
            and e.cells[tool]["R2"] == alone.cells[tool]["R2"]
        )
        assert math.isnan(e.cells[tool]["MSE_REG"].value)
    assert BEYOND in e.cells["sklearn"]["MSE_REG"].note and BEYOND in e.cells["torchmetrics"]["MSE_REG"].note
    path = tmp_path / "t.csv"
    path.write_text("y,p\n" + "".join(f"{u!r},{v!r}\n" for u, v in zip(y.tolist(), p.tolist(), strict=True)))
    code = main(["explain", str(path), "--target", "y", "--score", "p", "-m", "mae,mse"])
    out, err = capsys.readouterr()
    assert code == 0 and BEYOND in out, err


def test_the_scikit_learn_forms():
    """A function of one value: its value, or a refusal naming what is beyond the range."""
    from perfeval.functional import sklearn_regression as f

    y, p = Y * 1e200, P * 1e200
    assert f.r2_score(y, p) == quiet_evaluate(y, p, measures=["r2"])["R2"]
    assert math.isfinite(f.root_mean_squared_error(y, p))
    with pytest.raises(perfeval.InvalidDataError, match="squared errors is about"):
        f.mean_squared_error(y, p)


def test_the_quantiles_residual_beyond_the_range_is_said_as_it_is():
    """D2_AE's constant prediction (the targets' median) 1.7e308 from a target: that residual is no
    float64 (said so, per group too); a product with a weight is never beyond the exact sums, so the
    reason no longer names one."""
    from perfeval.measures.regression import D2_QUANTILE_RANGE

    y = np.array([1.7e308, -1.7e308, -1.7e308])
    got = quiet_evaluate(np.r_[y, Y], np.r_[y, P], groups=[1, 1, 1, 2, 2, 2, 2, 2, 2], measures=["d2_ae"])
    alone = quiet_evaluate(y, y, measures=["d2_ae", "mae"])
    assert (
        alone["MAE"] == 0.0 and math.isnan(alone["D2_AE"]) and alone.results["D2_AE"].why == D2_QUANTILE_RANGE
    )
    assert D2_QUANTILE_RANGE.startswith("a target minus the targets' quantile is beyond the range")
    assert "product" not in D2_QUANTILE_RANGE
    assert whys_of(got)["D2_AE"] == {"1": D2_QUANTILE_RANGE}
