"""A row whose MAPE ratio ``|r| / max(|y|, eps)`` is beyond float64's range (a target near 0, a
prediction about 1e300): before, the whole run was refused ("a target minus its prediction is beyond
the range of a 64-bit float", exit 1) whatever the measures asked, MAPE or not.  Now only the
measures that read that ratio (MAPE, MAPE:eps=sklearn, MAPE:eps=torchmetrics) are NaN with why, per
group only the groups concerned (each group's value and reason those of its rows alone), every
other measure computed: memory, the stream, Dask, Metric, ci, compare, the command line."""

from __future__ import annotations

import json
import math
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
)

RATIO = "of a row is beyond the range of a 64-bit float"
MAPES = ["MAPE", "MAPE:eps=sklearn", "MAPE:eps=torchmetrics"]
OTHERS = ["MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR", "PINBALL", "MEDAE", "MAXERR", "D2_AE", "TWEEDIE_DEV",
          "MSLE"]  # fmt: skip
MEASURES = OTHERS + MAPES

#: a target 1e-10 (MAPE's own ratio 1e310), and 0 (MAPE:eps=sklearn's |r| / 2.2e-16); torchmetrics'
#: ratio |r| / 1.17e-06 beyond the range too for |r| = 1e303
Y = np.array([1e-10, 0.0, 1.0, 2.0, 3.0, 4.0])
P = np.array([1e300, 1e303, 1.1, 2.2, 2.9, 4.3])

GROUPS = {
    "ok": (np.array([1.0, 2.5, 4.0]), np.array([1.2, 2.0, 3.5])),
    "tm": (np.array([0.0, 2.0, 3.0]), np.array([1e303, 2.2, 2.9])),  # every MAPE's ratio beyond
    "sk": (np.array([0.0, 2.0]), np.array([1e300, 2.5])),  # sklearn's beyond, torchmetrics' not
    "own": (np.array([1e-10, 5.0]), np.array([1e300, 4.0])),  # MAPE's own |r|/|y| beyond, sklearn's too
    "ok2": (np.array([10.0, 20.0, 30.0]), np.array([11.0, 19.0, 33.0])),
}


def rows(weighted: bool):
    return rows_of(GROUPS, weighted, seed=4)


@pytest.mark.parametrize("weighted", [False, True])
def test_only_mape_is_nan(weighted):
    w = np.array([1.0, 0.5, 2.0, 1.5, 1.0, 3.0]) if weighted else None
    got = quiet_evaluate(Y, P, sample_weight=w, measures=MEASURES)
    for label in MAPES[1:]:
        r = got.results[label]
        assert math.isnan(r.value) and RATIO in r.why and "|r| / max(|y|" in r.why, label
    assert "1 target is 0" in got.results["MAPE"].why  # said first (its own ratio: the groups' test)
    W = sum(Fraction(float(v)) for v in (np.ones(6) if w is None else w))
    mae = sum(Fraction(float(abs(a - b))) * Fraction(float(v))
              for a, b, v in zip(Y, P, np.ones(6) if w is None else w, strict=True)) / W  # fmt: skip
    assert got["MAE"] == float(mae)
    alone = quiet_evaluate(Y, P, sample_weight=w, measures=OTHERS)  # the bits of a run without MAPE
    for label, r in alone.results.items():
        assert got.results[label].why == r.why, label
        assert got[label] == r.value or (math.isnan(r.value) and math.isnan(got[label])), label
    assert sum(math.isfinite(got[m]) for m in OTHERS) >= 7


def test_torchmetrics_floor_keeps_its_value():
    """|r| = 1e300 over a target of 0: beyond the range at scikit-learn's floor, 8.5e305 at
    torchmetrics' 1.17e-06 (its value given)."""
    y, p = np.array([0.0, 2.0]), np.array([1e300, 2.5])
    got = quiet_evaluate(y, p, measures=["mape:eps=sklearn", "mape:eps=torchmetrics"])
    assert math.isnan(got["MAPE:eps=sklearn"])
    assert got["MAPE:eps=torchmetrics"] == float((Fraction(1e300) / Fraction(1.17e-06) + Fraction(0.25)) / 2)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_each_group_is_its_rows_alone(weighted, compiled, monkeypatch):
    from perfeval.engine import regression as engine

    monkeypatch.setattr(engine, "COMPILED_MEANS", compiled)
    y, p, g, w = rows(weighted)
    grouped, ratio = each_group_alone(y, p, g, w, GROUPS, MEASURES, RATIO)
    ratio = {(k, label) for k, label in ratio if label.startswith("MAPE")}
    assert ratio == {("tm", "MAPE:eps=torchmetrics"), ("tm", "MAPE:eps=sklearn"), ("sk", "MAPE:eps=sklearn"),
                     ("own", "MAPE"), ("own", "MAPE:eps=sklearn")}  # fmt: skip


@pytest.mark.parametrize("weighted", [False, True])
def test_every_backend_says_memorys_groups(weighted):
    from perfeval.backends.stream import evaluate_stream

    y, p, g, w = rows(weighted)
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    whole = quiet_evaluate(y, p, sample_weight=w, measures=MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_streams_say_memorys(y, p, g, w, memory, MEASURES)
        chunks = (
            (y[i : i + 4], p[i : i + 4], None if w is None else w[i : i + 4]) for i in range(0, len(y), 4)
        )
        stream = evaluate_stream(chunks, measures=MEASURES)
        m = perfeval.Metric(MEASURES)
        mg = perfeval.Metric(MEASURES)
        for i in range(0, len(y), 7):
            ww = None if w is None else w[i : i + 7]
            m.update(y[i : i + 7], p[i : i + 7], sample_weight=ww)
            mg.update(y[i : i + 7], p[i : i + 7], groups=g[i : i + 7], sample_weight=ww)
        assert_same_whys(mg.compute(), memory)
        metric = m.compute()
    for label, r in whole.results.items():
        for other in (stream, metric):
            o = other.results[label]
            assert o.why == r.why, label
            assert o.value == r.value or (math.isnan(o.value) and math.isnan(r.value)), label


def test_dask_says_memorys():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    y, p, g, w = rows(True)
    frame = pd.DataFrame({"y": y, "p": p, "g": g, "w": w})
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    whole = quiet_evaluate(y, p, sample_weight=w, measures=MEASURES)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.evaluate(dd.from_pandas(frame, npartitions=3), target="y", score="p", group="g",
                                weight="w", measures=MEASURES)  # fmt: skip
        one = perfeval.evaluate(dd.from_pandas(frame, npartitions=3), target="y", score="p", weight="w",
                                measures=MEASURES)  # fmt: skip
    assert got.params["backend"] == "dask"
    assert_same_whys(got, memory)
    for label, r in memory.results.items():
        assert np.array_equal(got.results[label].per_group, r.per_group, equal_nan=True), label
    for label, r in whole.results.items():
        assert one.results[label].why == r.why, label
        assert one[label] == r.value or (math.isnan(r.value) and math.isnan(one[label])), label


def test_a_metric_state_keeps_it():
    m = perfeval.Metric(["mae", "mape:eps=sklearn"], task="regression")
    m.update(Y[:2], P[:2])
    back = perfeval.Metric(["mae", "mape:eps=sklearn"], task="regression")
    back.load_state_dict(m.state_dict())
    back.update(Y[2:], P[2:])
    r = back.compute()
    assert math.isnan(r["MAPE:eps=sklearn"]) and RATIO in r.results["MAPE:eps=sklearn"].why
    assert r["MAE"] == quiet_evaluate(Y, P, measures=["mae"])["MAE"]


def test_ci_and_compare_give_the_other_measures():
    rng = np.random.default_rng(3)
    y = np.r_[0.0, rng.random(40) + 1]
    a = np.r_[1e300, y[1:] * 1.1]
    b = np.r_[1e300, y[1:] * 1.2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = perfeval.compare(
            y, a, b, measures=["mae", "medae", "mape:eps=sklearn"], task="regression", n_boot=200
        )
        i = perfeval.ci(y, a, measures=["mae", "mape:eps=sklearn"], task="regression", n_boot=200)
    assert math.isfinite(c["MEDAE"].difference) and math.isfinite(c["MEDAE"].low)
    assert math.isfinite(c["MAE"].difference) and math.isfinite(c["MAE"].low)
    assert math.isnan(c["MAPE:eps=sklearn"].difference)
    assert math.isfinite(i["MAE"].low) and math.isnan(i["MAPE:eps=sklearn"].estimate)


def test_the_cli_computes_the_rest(tmp_path, capsys):
    path = tmp_path / "zero.csv"
    path.write_text("y,p\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(Y.tolist(), P.tolist(), strict=True)))
    code = main(["eval", str(path), "--target", "y", "--score", "p", "-m", "mae,medae", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    said = json.loads(out)["measures"]
    assert said["MAE"]["value"] is not None and said["MEDAE"]["value"] is not None
    code = main(["eval", str(path), "--target", "y", "--score", "p", "-m", "mae,mape:eps=sklearn"])
    out, err = capsys.readouterr()
    assert code == 0 and "MAPE:eps=sklearn is undefined" in err and RATIO in err, err


def test_the_scikit_learn_form_refuses_it_in_one_line():
    from perfeval.functional import sklearn_regression as f

    assert f.mean_absolute_error(Y, P) == quiet_evaluate(Y, P, measures=["mae"])["MAE"]
    with pytest.raises(perfeval.InvalidDataError, match=r"\|r\| / max\(\|y\|, 2.2e-16\) of a row is beyond"):
        f.mean_absolute_percentage_error(Y, P)
