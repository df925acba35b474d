"""Tiny targets and predictions: a product whose exact value has bits below 2**-1074 (float64's last)
cannot be made exact by Dekker's two-product (its error term underflows), so the regression sums that
hold it are not exact.  The kernels say which sums lost bits (csrc/exact.c, ``tp_lost``), per group
too, and a measure that reads one is NaN with the reason, as an undefined measure is (said once under
its label: R2 and the explained variance do not change with the scale, so scale the targets and the
predictions); every other measure is computed, with the bits of a run without the lost one, and the
run exits 0.  Per group only the groups that lost bits are NaN.  The same on every backend and in
compare, the intervals and explain."""

from __future__ import annotations

import json
import math
import pickle
import re
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
#: the reason of a lost measure (summaries/regression.py, lost_reason), its two forms
LOST = (
    "a product of targets, predictions and weights has bits below 2**-1074 (the smallest 64-bit float), so "
    "the exact sums cannot be formed; "
)
LOST_R2 = LOST + (
    "scale the targets and the predictions: R2 and the explained variance do not change with the scale "
    "(nor do the D^2 scores, nor any of them with the weights' scale)"
)
LOST_MEAN = LOST + (
    "scale the targets and the predictions (and the value back), or the weights (a weighted mean does not "
    "change with their scale)"
)


def _report(y, p, measures, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(y, p, measures=measures, task="regression", **kw)


def _values(y, p, measures, **kw):
    return {k: v.value for k, v in _report(y, p, measures, **kw).results.items()}


def _whys(y, p, measures, **kw):
    return {k: v.why for k, v in _report(y, p, measures, **kw).results.items()}


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
def test_r2_is_the_unscaled_value_or_nan_with_why(scale, measure):
    want = _values(Y, P, [measure])
    ys, ps = Y * scale, P * scale
    (label,) = want
    if _loses(ys, ys) or _loses(ys - ps, ys - ps):
        assert math.isnan(_values(ys, ps, [measure])[label])
        assert _whys(ys, ps, [measure])[label] == LOST_R2
    else:
        assert _values(ys, ps, [measure]) == want


@pytest.mark.parametrize("scale", [1e-160, 1e-170])
def test_every_backend_says_r2_nan_with_why_and_computes_mae(scale, tmp_path, capsys):
    """Before: refused, the whole run (exit 1, MAE not printed); before that 0.9700576 (1e-160) and
    1.0 (1e-170), scale invariant R2 of 0.97."""
    ys, ps = Y * scale, P * scale
    weights = np.array([1.0, 2.0, 0.5, 1.0])
    for kw in ({}, {"sample_weight": weights}):
        with pytest.warns(
            perfeval.UndefinedMeasureWarning, match=re.escape(f"R2 is undefined for this data: {LOST_R2}")
        ):
            got = perfeval.evaluate(ys, ps, measures=["mae", "r2"], task="regression", **kw)
        assert math.isnan(got["R2"]) and got.results["R2"].why == LOST_R2
        assert got["MAE"] == _values(ys, ps, ["mae"], **kw)["MAE"]  # the bits of a run without R2
    grouped = _report(ys, ps, ["mae", "r2"], groups=np.array(["a", "a", "b", "b"]))
    assert np.isnan(grouped.results["R2"].per_group).all()
    assert grouped.results["R2"].undefined_groups_why == [LOST_R2, LOST_R2]
    assert (
        grouped.results["MAE"].per_group.tolist()
        == _report(ys, ps, ["mae"], groups=np.array(["a", "a", "b", "b"])).results["MAE"].per_group.tolist()
    )
    m = perfeval.Metric(["mae", "r2"], task="regression")
    m.update(ys[:2], ps[:2])
    m.update(ys[2:], ps[2:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = m.compute()
    assert (
        math.isnan(r["R2"]) and r.results["R2"].why == LOST_R2 and r["MAE"] == _values(ys, ps, ["mae"])["MAE"]
    )
    path = tmp_path / "tiny.csv"
    rows = enumerate(zip(ys.tolist(), ps.tolist(), strict=True))
    path.write_text("y,p,g\n" + "".join(f"{a!r},{b!r},{i % 2}\n" for i, (a, b) in rows))
    for extra in ([], ["--stream"], ["--group", "g"], ["--stream", "--group", "g"]):
        args = ["eval", str(path), "--target", "y", "--score", "p", *extra, "--format", "json"]
        assert main([*args, "-m", "mae"]) == 0
        alone = json.loads(capsys.readouterr().out)["measures"]["MAE"]
        code = main([*args, "-m", "mae,r2"])
        out, err = capsys.readouterr()
        assert code == 0 and "Traceback" not in err and "error" not in err, (extra, err)
        said = json.loads(out)["measures"]
        assert said["MAE"] == alone
        assert said["R2"]["value"] is None
        if "--group" in extra:
            assert said["R2"]["per_group_why_null"] == {
                "0": f"undefined in this group: {LOST_R2}",
                "1": f"undefined in this group: {LOST_R2}",
            }
            assert err.count(LOST_R2) == 1 and "R2 is undefined for 2 of 2 groups (0, 1: " in err, err
        else:
            assert said["R2"]["why_null"] == LOST_R2
            assert (
                err.count(LOST_R2) == 1
                and f"perfeval: warning: R2 is undefined for this data: {LOST_R2}\n" in err
            )


def test_the_cli_table_prints_the_other_measures(tmp_path, capsys):
    """The brief's case: the default measures of a regression target (MAE, MSE_REG, RMSE_REG, R2,
    EXPVAR) on 20 rows of about 1e-160: was exit 1 and nothing printed, not even MAE."""
    import random

    random.seed(1)
    lines = ["y,p"]
    for _ in range(20):
        y = random.random() * 1e-160
        lines.append(f"{y!r},{y * (1 + random.random() * 0.1)!r}")
    path = tmp_path / "tiny.csv"
    path.write_text("\n".join(lines) + "\n")
    code = main(["eval", str(path), "--target", "y", "--score", "p"])
    out, err = capsys.readouterr()
    assert code == 0, err
    table = {ln.split()[0]: ln.split()[1] for ln in out.splitlines()[1:6]}
    assert table["R2"] == table["EXPVAR"] == table["MSE_REG"] == table["RMSE_REG"] == "nan"
    assert table["MAE"] != "nan"
    assert f"perfeval: warning: R2 and EXPVAR are undefined for this data: {LOST_R2}\n" in err
    assert f"perfeval: warning: MSE_REG and RMSE_REG are undefined for this data: {LOST_MEAN}\n" in err
    assert err.count("2**-1074") == 2  # once under each reason's labels, not a line a measure
    main(["eval", str(path), "--target", "y", "--score", "p", "-m", "mae"])
    alone, _ = capsys.readouterr()
    assert alone.splitlines()[1].split() == out.splitlines()[1].split()  # MAE's row, as without the others


def test_one_subnormal_target_is_nan_not_a_crash(tmp_path, capsys):
    """Before: W syy - sy^2 < 0 from the inexact sums, then an OverflowError traceback (exit 70);
    then refused in one line (exit 1)."""
    assert math.isnan(_values(np.array([5e-324]), np.array([0.001]), ["r2"])["R2"])
    assert _whys(np.array([5e-324]), np.array([0.001]), ["r2"])["R2"] == LOST_R2
    path = tmp_path / "one.csv"
    path.write_text("y,p\n5e-324,0.001\n")
    for extra in ([], ["--stream"]):
        code = main(["eval", str(path), "--target", "y", "--score", "p", "-m", "r2,mae", *extra])
        out, err = capsys.readouterr()
        assert code == 0 and "R2" in out and err.count(LOST_R2) == 1, err


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
    assert math.isnan(_values(ys, ps, ["mae"], sample_weight=np.full(4, 1e-170))["MAE"])
    assert _whys(ys, ps, ["mae"], sample_weight=np.full(4, 1e-170))["MAE"] == LOST_MEAN


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
    got = _report(ys, ps, ["r2", "expvar"], sample_weight=w).results
    for label, r in got.items():
        if r.why == LOST_R2:
            assert math.isnan(r.value)
            assert lost or weighted, (y, p, k)  # unweighted: NaN so only when a product loses bits
        else:
            b = want[label]
            assert r.value == b or (math.isnan(r.value) and math.isnan(b)), (label, r.value, b)


@st.composite
def tiny_columns(draw):
    """Columns of a few magnitudes, some near float64's bottom (subnormals among them)."""
    n = draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    low = draw(st.sampled_from([-320, -200, -160, -100, 0]))

    def column():
        c = rng.normal(size=n) * 10.0 ** rng.integers(low, low + 40, n)
        return c * rng.choice([0.0, 1.0], n, p=[0.1, 0.9])

    return column(), column(), np.abs(column())


def _exact_sum(*cols) -> Fraction:
    return sum((math.prod(Fraction(c[i]) for c in cols) for i in range(len(cols[0]))), Fraction(0))


@settings(max_examples=150, deadline=None)
@given(tiny_columns(), st.integers(1, 3))
def test_a_sum_not_said_inexact_is_exact(cols, k):
    """csrc/exact.c: exact_sums' flag False means the integer is the exact sum of the products (1 to 3
    factors); True only where a two-product's factors have last bits adding to less than -1074."""
    from perfeval import _native
    from perfeval.summaries.regression import SHIFT

    fs = cols[:k]
    got = _native.exact_sums(None, *fs, *(None,) * (3 - k), 0, 1)
    if got is None:
        return  # a term beyond the range: not this test's
    (total,), lost = got
    if not lost:
        assert Fraction(total, 2**SHIFT) == _exact_sum(*fs)
    elif k == 2:
        assert _loses(fs[0], fs[1])
    if k == 2 and _exact_sum(*fs) * 2**SHIFT != total:
        assert lost  # an inexact sum is always said


@settings(max_examples=100, deadline=None)
@given(tiny_columns(), st.booleans())
def test_the_regression_pass_says_which_sums_lost_bits(cols, weighted):
    """regression_sums' lost bits: a sum not said is exact (of the rows' own rounded r); the three
    paths (integers, quotients on one thread, quotients through an order) say the same sums."""
    from perfeval.summaries.regression import ROW_SUMS, SHIFT, row_means, row_sums

    y, p, w = cols
    w = w if weighted else None
    with np.errstate(all="ignore"):
        r = y - p
    if not np.isfinite(r).all():
        return
    lost: set[str] = set()
    try:
        sums = row_sums(None, y, p, w, lost=lost)
    except OverflowError:
        return
    ones = np.ones(len(y))
    factors = {"sy": (y,), "syy": (y, y), "sr": (r,), "srr": (r, r), "sabs": (np.abs(r),)}
    for key, fs in factors.items():
        want = _exact_sum(*fs, ones if w is None else w)
        if key not in lost:
            assert Fraction(sums[key][0][0], 2**SHIFT) == want, key
    if w is None:
        assert not lost & {"sy", "sr", "sabs", "spos", "sape", "weight"}  # no product
    again: set[str] = set()
    row_means(None, y, p, w, ("sabs", "srr"), fractions=("R2", "EXPVAR"), lost=again)
    assert again <= lost and again >= lost & {"sy", "syy", "sr", "srr", "sabs"}
    assert set(ROW_SUMS) >= lost


def test_a_metric_state_keeps_which_sums_lost_bits():
    ys, ps = Y * 1e-170, P * 1e-170
    m = perfeval.Metric(["mae", "r2"], task="regression")
    m.update(ys[:2], ps[:2])
    back = perfeval.Metric(["mae", "r2"], task="regression")
    back.load_state_dict(m.state_dict())
    back.update(Y, P)  # rows that lose nothing: the state's lost bits are still said
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = back.compute()
    assert math.isnan(r["R2"]) and r.results["R2"].why == LOST_R2 and math.isfinite(r["MAE"])
    again = pickle.loads(pickle.dumps(m))
    again.update(Y, P)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert again.compute().results["R2"].why == LOST_R2
    # a state written before the field does not say whether its sums lost bits: refused, not read
    # as exact (it was: R2 of these rows read 0.97 with the state's lost rows in its sums)
    for rows in ((ys[:2], ps[:2]), (Y, P)):
        written = perfeval.Metric(["mae", "r2"], task="regression")
        written.update(*rows)
        old = written.state_dict()
        old["regression"] = {k: v for k, v in old["regression"].items() if k != "lost"}
        with pytest.raises(perfeval.InvalidParameterError, match="lost bits below 2\\*\\*-1074"):
            perfeval.Metric(["mae", "r2"], task="regression").load_state_dict(old)
    bad = m.state_dict()
    bad["regression"] = dict(bad["regression"], lost=[1])
    with pytest.raises(perfeval.InvalidParameterError):
        perfeval.Metric(["mae", "r2"], task="regression").load_state_dict(bad)


def test_the_scikit_learn_forms_refuse_too():
    from perfeval.functional import sklearn_regression as f

    ys, ps = Y * 1e-170, P * 1e-170
    for fn in (f.r2_score, f.explained_variance_score, f.mean_squared_error):
        with pytest.raises(perfeval.InvalidDataError, match="2\\*\\*-1074"):
            fn(ys, ps)
    assert f.mean_absolute_error(ys, ps) == _values(ys, ps, ["mae"])["MAE"]
    assert f.r2_score(Y, P) == _values(Y, P, ["r2"])["R2"]


def test_dask_says_r2_nan_with_why_and_computes_mae():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    ys, ps = np.concatenate([Y * 1e-170, Y]), np.concatenate([P * 1e-170, P])
    g = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    ddf = dd.from_pandas(pd.DataFrame({"y": ys, "p": ps, "g": g}), npartitions=2)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in ({}, {"group": "g"}):
            got = perfeval.evaluate(
                ddf, target="y", score="p", measures=["mae", "r2"], task="regression", **kw
            )
            assert got.params["backend"] == "dask"
            mem = _report(ys, ps, ["mae", "r2"], **({"groups": g} if kw else {}))
            for label in ("MAE", "R2"):
                a, b = got.results[label], mem.results[label]
                va, vb = (np.atleast_1d(x.per_group if kw else x.value) for x in (a, b))
                assert np.array_equal(va, vb, equal_nan=True), label
            if kw:
                assert got.results["R2"].undefined_groups_why == [LOST_R2]
                assert got.results["R2"].per_group[1] == _values(Y, P, ["r2"])["R2"]
            else:
                assert got.results["R2"].why == LOST_R2
            alone = perfeval.evaluate(ddf, target="y", score="p", measures=["mae"], task="regression", **kw)
            assert np.array_equal(np.atleast_1d(alone["MAE"]), np.atleast_1d(got["MAE"]))


def test_the_two_threads_of_the_compiled_means_say_lost_bits():
    """Over 100,000 rows and several groups the compiled quotients run on two threads: a group of
    tiny rows in either half is NaN for R2 and MSE, with why; the other groups are their own values;
    MAE (no product) is each group's own."""
    rng = np.random.default_rng(5)
    n = 150_000
    y = rng.normal(size=n) + 3
    p = y + rng.normal(size=n) * 0.1
    g = np.repeat(np.arange(4), n // 4)
    for tiny in (0, 3):  # the first half's thread, then the second's
        yt, pt = y.copy(), p.copy()
        yt[g == tiny] *= 1e-170
        pt[g == tiny] *= 1e-170
        for m, why in ((["r2"], LOST_R2), (["mse"], LOST_MEAN)):
            r = next(iter(_report(yt, pt, m, groups=g).results.values()))
            assert r.undefined == [tiny] and r.undefined_groups_why == [why]
            whole = next(iter(_report(y, p, m, groups=g).results.values()))
            keep = np.arange(4) != tiny
            assert r.per_group[keep].tolist() == whole.per_group[keep].tolist()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = perfeval.evaluate(yt, pt, groups=g, measures=["mae"], task="regression")
        k = g == tiny
        assert got.results["MAE"].per_group[tiny] == _values(yt[k], pt[k], ["mae"])["MAE"]
