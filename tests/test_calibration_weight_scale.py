"""Issue 33 (user pass): the logistic calibration fits (CAL_SLOPE, CAL_INTERCEPT) do not change
when every weight is multiplied by a constant, and their sums no longer underflow or overflow: a
group's weights far from 1 are scaled by a power of two (exact) before its fit, chosen from its own
weights, so weights times 2**-530, 2**-600 or 2**500 give the bits of the weights times 1, over all
cases and per group, in memory, streamed, in Dask and in a Metric; Wald's standard errors keep their
frequency-weight definition (times 2**265 at weights times 2**-530), computed without underflow.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.measures.calibration import fit_wald

FITS = ["cal_slope", "cal_intercept:fit=joint", "cal_intercept"]
POWERS = [-530, -600, -1000, 500, 600]


def _data():
    rng = np.random.default_rng(7)
    n = 60
    s = np.round(rng.random(n), 2).clip(0.01, 0.99)
    y = (rng.random(n) < s).astype(float)
    g = np.repeat(np.array(["a", "b", "c"]), n // 3)
    w = rng.integers(1, 4, n) * rng.random(n)
    return y, s, g, w


def _bits(report, per_group: bool = False) -> dict:
    out = {}
    for label, r in report.results.items():
        out[label] = [float(v).hex() for v in r.per_group] if per_group else float(r.value).hex()
    return out


def _eval(y, s, w, g=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(y, s, sample_weight=w, groups=g, measures=FITS)


def test_six_rows_the_users_case():
    """The user's case: six rows at weights times 2**-530 were wrong in the 6th digit."""
    y = np.array([0, 1, 0, 1, 1, 0.0])
    s = np.array([0.2, 0.3, 0.4, 0.6, 0.7, 0.8])
    w = np.array([1, 2, 1, 1, 3, 1.0])
    want = _bits(_eval(y, s, w))
    assert not any(math.isnan(float.fromhex(v)) for v in want.values())
    for p in POWERS:
        assert _bits(_eval(y, s, w * 2.0**p)) == want, p


@pytest.mark.parametrize("p", POWERS)
def test_whole_and_per_group_are_the_bits_of_the_weights_times_one(p):
    y, s, g, w = _data()
    assert _bits(_eval(y, s, w * 2.0**p)) == _bits(_eval(y, s, w))
    assert _bits(_eval(y, s, w * 2.0**p, g), True) == _bits(_eval(y, s, w, g), True)


def test_groups_of_every_scale_together_are_each_group_alone():
    """Each group's scale from its own weights: a group of tiny weights beside one of ordinary and
    one of huge weights has the bits of each group alone, and of that group's weights times 1."""
    y, s, g, w = _data()
    mult = np.select([g == "a", g == "b"], [2.0**-600, 1.0], 2.0**550)
    r = _eval(y, s, w * mult, g)
    for i, key in enumerate(r.groups.tolist()):
        m = g == key
        alone = _bits(_eval(y[m], s[m], w[m] * mult[m]))
        ones = _bits(_eval(y[m], s[m], w[m]))
        for label, res in r.results.items():
            got = float(res.per_group[i]).hex()
            assert got == alone[label] == ones[label], (label, key)


@pytest.mark.parametrize("p", [-530, -600, 500])
def test_stream_and_metric_are_the_bits_of_the_weights_times_one(p, tmp_path, capsys):
    from conftest import run_cli

    y, s, g, w = _data()
    want = _bits(_eval(y, s, w))
    path = tmp_path / "t.csv"
    rows = zip(y.tolist(), s.tolist(), (w * 2.0**p).tolist(), g.tolist(), strict=True)
    lines = ["y,s,w,g"] + [f"{a:g},{b!r},{c!r},{d}" for a, b, c, d in rows]
    path.write_text("\n".join(lines) + "\n")
    for extra in ([], ["--stream"]):
        code, out, err = run_cli(
            ["eval", str(path), "--target", "y", "--score", "s", "--weight", "w", "-m", ",".join(FITS)]
            + ["--format", "json", *extra],
            capsys,
        )
        assert code == 0, err
        got = {k: float(v["value"]).hex() for k, v in json.loads(out)["measures"].items()}
        assert got == want, extra
    m = perfeval.Metric(FITS)
    m.update(y[:25], s[:25], sample_weight=w[:25] * 2.0**p)
    m.update(y[25:], s[25:], sample_weight=w[25:] * 2.0**p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _bits(m.compute()) == want


def test_dask_is_the_bits_of_the_weights_times_one():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    y, s, g, w = _data()
    want, want_g = _bits(_eval(y, s, w)), _bits(_eval(y, s, w, g), True)
    df = pd.DataFrame({"y": y, "s": s, "w": w * 2.0**-600, "g": g})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = {"target": "y", "score": "s", "weight": "w", "measures": FITS}
        whole = perfeval.evaluate(dd.from_pandas(df, npartitions=3), **kw)
        grouped = perfeval.evaluate(dd.from_pandas(df, npartitions=3), group="g", **kw)
    assert _bits(whole) == want
    assert _bits(grouped, True) == want_g


@pytest.mark.parametrize("what", ["slope", "joint", "offset"])
def test_wald_errors_scale_with_the_weights_and_stay_computed(what):
    """Frequency weights: the information is linear in them, the error times 2**k at weights times
    4**-k (exact); at 2**-530 the determinant was subnormal, at 2**-1000 zero (NaN)."""
    from perfeval.summaries import ScoreHistogram

    y, s, _g, w = _data()
    order = np.argsort(s, kind="stable")
    sc, inv = np.unique(s[order], return_inverse=True)
    pos = np.bincount(inv, (w * y)[order])
    neg = np.bincount(inv, (w * (1 - y))[order])
    est, se = fit_wald(ScoreHistogram(sc, pos, neg), what)
    assert math.isfinite(se)
    for k in (265, 300, 500, -250):
        e2, se2 = fit_wald(ScoreHistogram(sc, pos * 4.0**-k, neg * 4.0**-k), what)
        assert e2.hex() == est.hex(), k
        assert se2.hex() == math.ldexp(se, k).hex(), k


@pytest.mark.parametrize("joint", [True, False])
def test_the_kernels_scale_is_fit_scales_the_reference(joint):
    """logit_fit scales each group's weights itself (csrc/calibration.c group_scale): the bits of the
    reference, fit_scales' powers applied in numpy before a kernel that then scales nothing.
    """
    from perfeval import _native
    from perfeval.measures.calibration import _logit, fit_scales

    rng = np.random.default_rng(3)
    G = 400
    sizes = rng.integers(1, 40, G)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(bounds[-1])
    sc = np.concatenate([np.sort(rng.choice(np.arange(1, 99) / 100, m, replace=False)) for m in sizes])
    pows = np.repeat(rng.choice([-1070, -900, -530, -201, -199, 0, 3, 199, 201, 600, 1000], G), sizes)
    pos = np.where(rng.random(n) < sc, rng.random(n) + 0.5, 0.0) * 2.0**pows
    neg = np.where(rng.random(n) < 0.4, rng.random(n) + 0.5, 0.0) * 2.0**pows
    scale = fit_scales(pos, neg, bounds)
    assert scale is not None and (scale != 1).sum() > G // 3 and (scale == 1).sum() > G // 8
    per_cell = np.repeat(scale, sizes)
    x = _logit(sc)
    got = _native.logit_fit(x, pos, neg, bounds, joint, True, sc)
    want = _native.logit_fit(x, pos * per_cell, neg * per_cell, bounds, joint, True, sc)
    assert bytes(got) == bytes(want)
    out = np.frombuffer(got, np.float64).reshape(2, G)
    assert np.isfinite(out[1]).sum() > G // 2
