"""Intervals and comparisons of regression data about 1e200 and 1e-200 (``perfeval.ci``,
``perfeval.compare``, ``perfeval eval --ci``, ``perfeval compare``): the standard deviations of the
per-case losses (Student's t), of the replicates (the bootstrap's se) and BCa's acceleration are
computed at a power-of-two scale where their squares or cubes would overflow (se = inf, MAE's
t-interval (-inf, inf) before) or underflow (se = 0, an acceleration of 0 before), so that data
scaled by ``2**k`` give every number scaled by ``2**k``, bit for bit; on ordinary data the bits of
before.  A number truly beyond float64's range is NaN with why."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.stats.intervals import acceleration, spread, unscaled

K = 660  # 2**660 is about 1e199, 2**-660 about 1e-199

rng = np.random.default_rng(5)
Y = rng.random(40) + 1.0
A = Y * (1 + rng.normal(0, 0.1, 40))
B = Y * (1 + rng.normal(0.02, 0.15, 40))


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def scaled_fields(r, k, fields):
    return tuple(math.ldexp(getattr(r, f), k) for f in fields)


@pytest.mark.parametrize("k", [K, -K])
@pytest.mark.parametrize("method", ["t", "percentile", "bca"])
def test_ci_of_scaled_data_is_the_ci_scaled(method, k):
    measures = ["mae", "pinball"] if method == "t" else ["mae", "pinball", "rmse", "r2", "medae"]
    one = quiet(perfeval.ci, Y, A, measures=measures, task="regression", method=method, n_boot=300)
    big = quiet(perfeval.ci, np.ldexp(Y, k), np.ldexp(A, k), measures=measures, task="regression",
                method=method, n_boot=300)  # fmt: skip
    defined = 0
    for label, r in one.items():
        b = big[label]
        if math.isnan(b.estimate):  # 2**-660's squares lose bits: RMSE and R2 NaN with why
            assert k < 0 and label in ("RMSE_REG", "R2"), label
            continue
        defined += 1
        if label == "R2":  # scale-free
            assert (b.estimate, b.low, b.high, b.se) == (r.estimate, r.low, r.high, r.se)
        else:
            assert (b.estimate, b.low, b.high, b.se) == scaled_fields(r, k, ("estimate", "low", "high", "se"))
        assert math.isfinite(b.se) and b.se > 0 and not b.note, label
    assert defined >= 2


@pytest.mark.parametrize("k", [K, -K])
@pytest.mark.parametrize("method", [None, "percentile", "bca"])
def test_compare_of_scaled_data_is_the_comparison_scaled(method, k):
    measures = ["mae", "pinball", "mape:eps=sklearn"] if k > 0 else ["mae", "pinball"]
    if method is not None:
        measures.append("rmse") if k > 0 else None
    one = quiet(perfeval.compare, Y, A, B, measures=measures, task="regression", method=method, n_boot=300)
    big = quiet(perfeval.compare, np.ldexp(Y, k), np.ldexp(A, k), np.ldexp(B, k), measures=measures,
                task="regression", method=method, n_boot=300)  # fmt: skip
    for label, r in one.items():
        b = big[label]
        assert b.method == r.method and b.p_value == r.p_value, label
        if label.startswith("MAPE"):  # scale-free
            assert (b.difference, b.low, b.high, b.se) == (r.difference, r.low, r.high, r.se)
        else:
            assert (b.difference, b.low, b.high, b.se) == scaled_fields(
                r, k, ("difference", "low", "high", "se")
            )
        assert math.isfinite(b.low) and math.isfinite(b.se) and b.se > 0, label


def test_the_t_interval_of_about_1e200_was_infinite():
    """The brief's case: MAE's t-interval of data about 1e200, its standard error about 1e198."""
    y = (rng.random(30) + 1) * 1e200
    a, b = y * (1 + rng.random(30) * 0.1), y * (1 + rng.random(30) * 0.2)
    c = quiet(perfeval.compare, y, a, b, measures=["mae"], task="regression")["MAE"]
    i = quiet(perfeval.ci, y, a, measures=["mae"], task="regression", method="t")["MAE"]
    assert c.method == "t" and 1e196 < c.se < 1e200 and c.low < c.difference < c.high
    assert math.isfinite(c.low) and math.isfinite(c.high) and math.isfinite(i.low) and 1e196 < i.se < 1e200


def test_spread_keeps_ordinary_bits():
    r = np.random.default_rng(1)
    for _ in range(200):
        x = r.standard_normal(int(r.integers(2, 50))) * 10.0 ** float(r.integers(-80, 80))
        s, k = spread(x)
        assert k == 0 and s == x.std(ddof=1)
        j = r.standard_normal(20) * 10.0 ** float(r.integers(-25, 25))
        w = np.ones(20)
        d = np.average(j, weights=w) - j
        plain = float(np.sum(w * d**3)) / (6.0 * float(np.sum(w * d * d)) ** 1.5)
        assert acceleration(j, None) == plain
        assert (
            acceleration(np.ldexp(j, 700), None) == plain and acceleration(np.ldexp(j, -700), None) == plain
        )


def test_a_number_beyond_the_range_is_nan_with_why():
    assert math.isnan(unscaled(1.5, 1024)) and math.isnan(unscaled(1.0, -1060)) and unscaled(0.0, -2000) == 0
    # errors about 1e308 of 3 cases: MAE's t half-width (t(2) = 4.3 times the se) is beyond the range
    y = np.array([1.7e308, 0.0, -1.7e308])
    i = quiet(perfeval.ci, y, np.zeros(3), measures=["mae"], task="regression", method="t")["MAE"]
    assert math.isfinite(i.estimate) and math.isfinite(i.se) and math.isnan(i.low) and math.isnan(i.high)
    assert i.note == (
        "no interval: the interval's half-width is about 2.4e+308, beyond the range of a 64-bit float "
        "(about 1.8e+308)"
    )
    d = i.to_dict()
    assert d["low"] is None and d["low_why_null"] == i.note and d["se"] == i.se
    # a smaller half-width, the bound beyond
    y = np.array([1.7e308, 1.5e308, 1.6e308])
    i = quiet(perfeval.ci, y, np.zeros(3), measures=["mae"], task="regression", method="t")["MAE"]
    assert math.isnan(i.high) and i.note == "no interval: a bound is beyond the range of a 64-bit float"


def test_the_cli_gives_the_intervals(tmp_path, capsys):
    y, a, b = np.ldexp(Y, K), np.ldexp(A, K), np.ldexp(B, K)
    path = tmp_path / "big.csv"
    path.write_text(
        "y,a,b\n"
        + "".join(f"{u!r},{v!r},{w!r}\n" for u, v, w in zip(y.tolist(), a.tolist(), b.tolist(), strict=True))
    )
    code = main(["compare", str(path), "--target", "y", "--score", "a,b", "-m", "mae,rmse", "--n-boot", "200",
                 "--format", "json"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = {r["measure"]: r for r in json.loads(out)["comparisons"]}
    for label in ("MAE", "RMSE_REG"):
        assert all(rows[label][f] is not None for f in ("low", "high", "se", "p_value")), rows[label]
    argv = ["eval", str(path), "--target", "y", "--score", "a", "-m", "mae", "--ci", "0.9", "--method", "t"]
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    got = json.loads(out)["measures"]["MAE"]["ci"]
    assert code == 0 and got["se"] is not None and got["low"] is not None and got["high"] is not None


def test_the_slices_intervals_of_scaled_data():
    from perfeval.stats.slices import slice_ci

    region = np.array(["a", "b", "c", "d"])[np.arange(40) % 4]
    frames = []
    for k in (0, K, -K):
        rep = quiet(
            perfeval.evaluate, np.ldexp(Y, k), np.ldexp(A, k), measures=["mae"], by={"region": region}
        )
        frames.append(quiet(slice_ci, rep, n_boot=200).frame())
    for f, k in zip(frames[1:], (K, -K), strict=True):
        for col in ("low", "high", "se"):
            assert f[col].tolist() == [math.ldexp(v, k) for v in frames[0][col].tolist()], col
