"""Tiny targets and predictions: a product whose exact value has bits below 2**-1074 (float64's last)
cannot be made exact by Dekker's two-product (its error term underflows), so the regression sums that
hold it are not exact.  The kernels say which sums lost bits (csrc/exact.c, ``tp_lost``) and the
measures that read one refuse in one line (R2 and the explained variance do not change with the
scale: scale the targets and the predictions); a measure that reads none (MAE unweighted: no product)
is computed as before.  The same on every backend."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.cli.main import main
from perfeval.summaries.regression import ratio

Y = np.array([1.0, 2.0, 3.0, 4.0])
P = np.array([1.1, 1.9, 3.2, 3.7])
REFUSED = "scale the targets and the predictions: R2 and the explained variance do not change with the scale"


def _values(y, p, measures, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, p, measures=measures, task="regression", **kw)
    return {k: v.value for k, v in r.results.items()}


def _lastbit(x: float) -> int:
    f = Fraction(x)
    if f.denominator > 1:
        return -(f.denominator.bit_length() - 1)
    n = abs(f.numerator)
    return (n & -n).bit_length() - 1


def _loses(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether a product a_i b_i has bits below 2**-1074 (the rule the kernel applies)."""
    pairs = zip(a.tolist(), b.tolist(), strict=True)
    return any(x != 0 and z != 0 and _lastbit(x) + _lastbit(z) < -1074 for x, z in pairs)


@pytest.mark.parametrize("scale", [1e-140, 1e-160, 1e-170, 1e-200])
@pytest.mark.parametrize("measure", ["r2", "expvar"])
def test_r2_is_the_unscaled_value_or_refused_in_one_line(scale, measure):
    want = _values(Y, P, [measure])
    ys, ps = Y * scale, P * scale
    if _loses(ys, ys) or _loses(ys - ps, ys - ps):
        with pytest.raises(perfeval.InvalidDataError, match=REFUSED) as e:
            _values(ys, ps, [measure])
        assert "\n" not in str(e.value) and "2**-1074" in str(e.value)
    else:
        assert _values(ys, ps, [measure]) == want


@pytest.mark.parametrize("scale", [1e-160, 1e-170])
def test_every_backend_refuses_r2_with_one_line(scale, tmp_path, capsys):
    """Before: 0.9700576 (1e-160) and 1.0 (1e-170), scale invariant R2 of 0.97."""
    ys, ps = Y * scale, P * scale
    lines = []
    weights = np.array([1.0, 2.0, 0.5, 1.0])
    for kw in ({}, {"groups": np.array(["a", "a", "b", "b"])}, {"sample_weight": weights}):
        with pytest.raises(perfeval.InvalidDataError, match=REFUSED) as e:
            _values(ys, ps, ["mae", "r2"], **kw)
        lines.append(str(e.value))
    m = perfeval.Metric(["mae", "r2"], task="regression")
    m.update(ys[:2], ps[:2])
    m.update(ys[2:], ps[2:])
    with pytest.raises(perfeval.InvalidDataError, match=REFUSED) as e:
        m.compute()
    lines.append(str(e.value))
    path = tmp_path / "tiny.csv"
    rows = enumerate(zip(ys.tolist(), ps.tolist(), strict=True))
    path.write_text("y,p,g\n" + "".join(f"{a!r},{b!r},{i % 2}\n" for i, (a, b) in rows))
    for extra in ([], ["--stream"], ["--group", "g"], ["--stream", "--group", "g"]):
        code = main(["eval", str(path), "--target", "y", "--score", "p", "-m", "mae,r2", *extra])
        out, err = capsys.readouterr()
        assert code == 1 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (extra, err)
        assert REFUSED in err
        lines.append(err.strip())
    assert all(line.endswith(lines[0]) for line in lines), lines


def test_one_subnormal_target_is_one_line_not_a_crash(tmp_path, capsys):
    """Before: W syy - sy^2 < 0 from the inexact sums, then an OverflowError traceback (exit 70)."""
    with pytest.raises(perfeval.InvalidDataError, match=REFUSED):
        _values(np.array([5e-324]), np.array([0.001]), ["r2"])
    path = tmp_path / "one.csv"
    path.write_text("y,p\n5e-324,0.001\n")
    for extra in ([], ["--stream"]):
        code = main(["eval", str(path), "--target", "y", "--score", "p", "-m", "r2", *extra])
        out, err = capsys.readouterr()
        assert code == 1 and out == "" and err.count("\n") == 1 and REFUSED in err, err


def test_mae_reads_no_product_unweighted_and_is_computed():
    ys, ps = Y * 1e-170, P * 1e-170
    got = _values(ys, ps, ["mae"])["MAE"]
    r = [abs(Fraction(d)) for d in (ys - ps).tolist()]
    assert got == float(sum(r) / 4)  # the exact mean of the rows' |r| (each rounded once), rounded once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grouped = perfeval.evaluate(ys, ps, groups=np.zeros(4), measures=["mae"], task="regression")
    assert grouped.results["MAE"].per_group.tolist() == [got]
    # weighted: |r| w is a product; exact with w = 0.5, not with w = 1e-170
    assert _values(ys, ps, ["mae"], sample_weight=np.full(4, 0.5))["MAE"] == got
    with pytest.raises(perfeval.InvalidDataError, match="2\\*\\*-1074"):
        _values(ys, ps, ["mae"], sample_weight=np.full(4, 1e-170))


def test_ratio_of_integers_past_the_range_is_signed_infinity():
    big = 10**400
    assert ratio(big, 3) == math.inf
    assert ratio(-big, 3) == -math.inf
    assert ratio(big, -3) == -math.inf
    assert ratio(-big, -3) == math.inf


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 1100), st.booleans())
def test_r2_at_a_power_of_two_scale_is_the_unscaled_value_or_refused(seed, k, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    y = np.round(rng.normal(size=n) * 10.0 ** rng.integers(-3, 4), int(rng.integers(0, 6)))
    p = y + np.round(rng.normal(size=n), int(rng.integers(0, 6)))
    w = rng.integers(1, 4, n) * 0.5 if weighted else None
    ys, ps = np.ldexp(y, -k), np.ldexp(p, -k)
    if not ((np.ldexp(ys, k) == y).all() and (np.ldexp(ps, k) == p).all()):
        return  # the scaling itself rounded (subnormal): another data set
    want = _values(y, p, ["r2", "expvar"], sample_weight=w)
    rs = ys - ps
    lost = _loses(ys, ys) or _loses(rs, rs)  # weighted: the terms times w too (not replayed here)
    try:
        got = _values(ys, ps, ["r2", "expvar"], sample_weight=w)
    except perfeval.InvalidDataError as e:
        assert REFUSED in str(e) and "\n" not in str(e)
        assert lost or weighted, (y, p, k)  # unweighted: refused only when a product loses bits
        return
    assert got == want or all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got.values(), want.values(), strict=True)
    ), (got, want)
