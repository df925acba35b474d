"""MAPE without a floor (``eps=none``, the default) is ``sum w |r| / |y| / sum w``; its sums floor
``|y|`` at float64's eps (scikit-learn's), so a target below 2.2e-16 in size would be divided by the
eps, not by itself: targets scaled by 1e-170 gave 7.9e-156 for a MAPE of 0.07, silently.  Such a
target is now what a target of 0 is: NaN with the reason, in memory, per group, streamed, on Dask
and in ``Metric``; ``eps=sklearn`` keeps scikit-learn's number.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main

pd = pytest.importorskip("pandas")

Y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
P = Y * np.array([1.07, 0.95, 1.1, 1.0, 0.8])
TRUE = float(np.mean(np.abs(Y - P) / np.abs(Y)))


def _mape(y, p, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, p, measures=["mape", "mape:eps=sklearn", "mae"], task="regression", **kw)
    return r


def test_a_tiny_target_is_no_percentage_not_a_floored_one():
    r = _mape(Y * 1e-170, P * 1e-170)
    assert math.isnan(r["MAPE"]) and "below 2.2e-16 in size" in r.results["MAPE"].why
    from sklearn.metrics import mean_absolute_percentage_error

    assert r["MAPE:eps=sklearn"] == mean_absolute_percentage_error(Y * 1e-170, P * 1e-170)  # floored
    assert r["MAE"] > 0
    assert _mape(Y, P)["MAPE"] == pytest.approx(TRUE, rel=1e-15)  # at the scale of 1: the number


def test_one_tiny_target_among_ordinary_ones():
    y, p = Y.copy(), P.copy()
    y[2], p[2] = 1e-17, 2e-17
    r = _mape(y, p)
    assert math.isnan(r["MAPE"]) and r.results["MAPE"].why.startswith("1 target is 0 or below 2.2e-16")
    r = _mape(y, p, sample_weight=np.array([1.0, 1.0, 0.0, 1.0, 1.0]))  # of weight 0: not read
    keep = np.arange(5) != 2
    assert r["MAPE"] == pytest.approx(float(np.mean(np.abs(Y - P)[keep] / Y[keep])), rel=1e-15)


def test_per_group_only_the_tiny_group():
    y = np.r_[Y, Y * 1e-170]
    p = np.r_[P, P * 1e-170]
    g = np.repeat(np.array([10, 20], dtype=np.int64), 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, p, groups=g, measures=["mape"], task="regression")
    per = dict(zip(np.asarray(r.groups).tolist(), r.results["MAPE"].per_group.tolist(), strict=True))
    assert per[10] == pytest.approx(TRUE, rel=1e-15) and math.isnan(per[20])


def test_metric_and_stream_say_the_same(tmp_path, capsys):
    m = perfeval.Metric(["mape"], task="regression")
    m.update(Y[:2] * 1e-170, P[:2] * 1e-170)
    m.update(Y[2:] * 1e-170, P[2:] * 1e-170)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(m.compute()["MAPE"])
    path = tmp_path / "tiny.csv"
    pd.DataFrame({"y": Y * 1e-170, "p": P * 1e-170}).to_csv(path, index=False)
    for extra in ([], ["--stream"]):
        rc = main(
            ["eval", str(path), "--target", "y", "--score", "p", "-m", "mape,mae", "--format", "json", *extra]
        )
        out = capsys.readouterr()
        assert rc == 0
        got = __import__("json").loads(out.out)
        mape, mae = got["measures"]["MAPE"], got["measures"]["MAE"]
        assert mape["value"] is None and "below 2.2e-16 in size" in mape["why_null"], extra
        assert mae["value"] > 0, extra
