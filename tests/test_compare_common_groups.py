"""Issue 33 (user pass): a comparison over groups of a measure undefined in some groups (CAL_SLOPE
where a group's scores separate its classes) is over the groups defined for both models, and says
so: each model's mean over its own defined groups (972 and 973 of 1000) differ by more than the
models, and the paired test by group draws the same groups for both.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval


def _data():
    rng = np.random.default_rng(3)
    G, rows = 40, 10
    y = np.tile(np.array([0, 1] * (rows // 2), float), G)
    g = np.repeat(np.arange(G), rows)
    a = np.round(rng.random(G * rows), 3).clip(0.01, 0.99)
    b = np.round(rng.random(G * rows), 3).clip(0.01, 0.99)
    for k in (3, 7, 11):  # a's scores separate the classes there: its CAL_SLOPE undefined
        m = g == k
        a[m] = np.where(y[m] == 1, 0.9, 0.1) + rng.random(rows) * 0.01
    for k in (7, 20):  # b's
        m = g == k
        b[m] = np.where(y[m] == 1, 0.8, 0.2) + rng.random(rows) * 0.01
    return y, a, b, g


def _per_group(y, s, g):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, measures=["cal_slope"])
    return np.asarray(r.results["CAL_SLOPE"].per_group, float), r.results["CAL_SLOPE"].value


def _compare(y, a, b, g):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.compare(y, a, b, measures=["cal_slope"], groups=g, n_boot=200)["CAL_SLOPE"]


def test_the_values_and_the_test_are_over_the_groups_defined_for_both():
    y, a, b, g = _data()
    va, mean_a = _per_group(y, a, g)
    vb, mean_b = _per_group(y, b, g)
    both = ~np.isnan(va) & ~np.isnan(vb)
    assert np.count_nonzero(~np.isnan(va)) != np.count_nonzero(both)  # the case at hand
    c = _compare(y, a, b, g)
    assert c.estimate_a == pytest.approx(float(va[both].mean()), rel=1e-14, abs=1e-15)
    assert c.estimate_b == pytest.approx(float(vb[both].mean()), rel=1e-14, abs=1e-15)
    assert c.estimate_a != mean_a and c.estimate_b != mean_b
    assert c.difference == c.estimate_a - c.estimate_b
    n, na, nb = (int(np.count_nonzero(v)) for v in (both, ~np.isnan(va), ~np.isnan(vb)))
    assert f"over the {n} of 40 groups defined for both models" in c.groups_compared
    assert f"is defined for {na}" in c.groups_compared and f"for {nb};" in c.groups_compared
    assert c.to_dict()["groups_compared"] == c.groups_compared
    assert math.isfinite(c.low) and math.isfinite(c.p_value)


def test_models_defined_in_the_same_groups_keep_evaluates_means():
    y, a, b, g = _data()
    va, _ = _per_group(y, a, g)
    vb, _ = _per_group(y, b, g)
    keep = np.isin(g, np.flatnonzero(~np.isnan(va) & ~np.isnan(vb)))  # groups 0 .. 39: their keys
    y, a, b, g = y[keep], a[keep], b[keep], g[keep]
    c = _compare(y, a, b, g)
    assert c.groups_compared == ""
    assert "groups_compared" not in c.to_dict()
    assert c.estimate_a == _per_group(y, a, g)[1] and c.estimate_b == _per_group(y, b, g)[1]


def test_the_command_says_what_the_comparison_is_over(tmp_path, capsys):
    from conftest import run_cli

    y, a, b, g = _data()
    path = tmp_path / "c.csv"
    rows = zip(y.tolist(), a.tolist(), b.tolist(), g.tolist(), strict=True)
    lines = [f"{int(t)},{p!r},{q!r},g{k}" for t, p, q, k in rows]
    path.write_text("y,a,b,g\n" + "\n".join(lines) + "\n")
    argv = ["compare", str(path), "--target", "y", "--score", "a,b", "--group", "g", "-m", "cal_slope"]
    code, out, err = run_cli([*argv, "--n-boot", "200"], capsys)
    assert code == 0, err
    va, vb = _per_group(y, a, g)[0], _per_group(y, b, g)[0]
    n, na, nb = (
        int(np.count_nonzero(v)) for v in (~np.isnan(va) & ~np.isnan(vb), ~np.isnan(va), ~np.isnan(vb))
    )
    said = (
        f"(over groups: b CAL_SLOPE: the two values, their difference and its test over the {n} of 40 groups"
    )
    assert said in out
    assert f"(b is defined for {nb}, a for {na};" in out
    code, out, err = run_cli([*argv, "--n-boot", "200", "--format", "csv"], capsys)
    assert code == 0, err
    assert (
        f"perfeval: note: b CAL_SLOPE: the two values, their difference and its test over the {n} of" in err
    )
