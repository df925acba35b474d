"""``perfeval eval --by COL --ci L`` (issue 34, "How sure"): the slices' table gains each measure's
interval, the gaps to the overall value are printed with their intervals and tests (Holm's and
Benjamini-Hochberg's), then the intervals of the slicing's gaps; the same numbers as
perfeval.stats.slice_ci in Python, in the table, the CSV and the JSON; the overall value's interval
from the same replicates; what does not combine, one line each.
"""

from __future__ import annotations

import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import perfeval
from conftest import run_cli
from perfeval.stats import slice_ci


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(34)
    n = 700
    site = rng.choice(["north", "south", "east"], size=n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.normal(size=n) + np.select([site == "north", site == "south"], [1.4, 0.8], 0.3) * y, 3)
    df = pd.DataFrame({"y": y, "p": s, "site": site})
    df.loc[:3, "site"] = "tiny"  # four rows: flagged below --min-size
    p = tmp_path_factory.mktemp("ci") / "t.csv"
    df.to_csv(p, index=False)
    return str(p), df


BASE = ["--target", "y", "--score", "p", "--by", "site", "--min-size", "20"]
ARGS = [*BASE, "-m", "roc,ap"]


def python(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(df, target="y", score="p", measures=["roc", "ap"], by=["site"], min_size=20)
    return r, slice_ci(r, skip_flagged=True, **kw)  # --min-size: the flagged slices left out


def test_the_table_holds_the_intervals_and_the_tests(table, capsys):
    path, df = table
    code, out, err = run_cli(["eval", path, *ARGS, "--ci", "0.9", "--n-boot", "300", "--seed", "4"], capsys)
    assert code == 0, err
    r, c = python(df, level=0.9, n_boot=300, seed=4)
    lines = out.splitlines()
    # the overall table: the same replicates' interval, said how
    roc = lines[1].split()
    assert roc[0] == "ROC" and float(roc[2]) == pytest.approx(c.overall["ROC"].low, abs=5e-7)
    assert (
        "90% intervals: percentile bootstrap, 300 replicates, cases resampled; percentile: with --by" in out
    )
    head = lines.index("slices by site (4; 1 below --min-size 20, marked *):")
    cols = lines[head + 1].split()
    assert cols[-6:] == ["ROC", "ROC_low", "ROC_high", "AP", "AP_low", "AP_high"]
    f = c.frame()
    for line in lines[head + 2 : head + 6]:
        cells = line.split()
        key = cells[0].rstrip("*")
        for j, m in ((-6, "ROC"), (-3, "AP")):
            row = f.loc[("site", key, m)]
            for k, col in enumerate(("value", "low", "high")):
                want = row[col]
                assert (
                    cells[j + k] == "n/a"
                    if math.isnan(want)
                    else float(cells[j + k]) == pytest.approx(want, abs=5e-7)
                )
    tests = lines.index(
        "gaps to the overall value by site (p: two-sided, for no gap; p_holm, p_bh: Holm's and "
        "Benjamini-Hochberg's over the 3 slices tested; the 1 slice below --min-size 20 left out: tiny):"
    )
    assert "(tiny ROC, tiny AP: below --min-size: not tested)" in lines
    assert lines[tests + 1].split() == [
        "slice",
        "measure",
        "difference",
        "ci_low",
        "ci_high",
        "p",
        "p_holm",
        "p_bh",
    ]
    north = next(x.split() for x in lines[tests + 2 :] if x.startswith("north ") and " ROC " in x)
    row = f.loc[("site", "north", "ROC")]
    assert float(north[2]) == pytest.approx(row["to_overall"], abs=5e-7)
    assert (float(north[3]), float(north[4])) == pytest.approx(
        (row["to_overall_low"], row["to_overall_high"]), abs=5e-7
    )
    assert float(north[5].lstrip("<=")) == pytest.approx(row["p"], rel=1e-3)
    assert float(north[7].lstrip("<=")) == pytest.approx(row["p_bh"], rel=1e-3)
    gaps = lines.index("gap intervals by site (the 1 slice below --min-size 20 left out: tiny):")
    g = c.gaps()
    worst = next(x.split() for x in lines[gaps:] if x.startswith("ROC ") and "worst_value" in x)
    want = g.loc[("site", "ROC", "worst")]
    assert worst[-1] == want["slice"] and float(worst[3]) == pytest.approx(want["low"], abs=5e-7)
    diff = next(x.split() for x in lines[gaps:] if x.startswith("AP ") and " difference " in x)
    assert float(diff[4]) == pytest.approx(g.loc[("site", "AP", "difference"), "high"], abs=5e-7)


def test_csv_and_json_hold_the_same_numbers(table, capsys):
    path, df = table
    r, c = python(df, n_boot=200, seed=1)
    f = c.frame()
    code, out, err = run_cli(
        ["eval", path, *ARGS, "--ci", "0.95", "--n-boot", "200", "--seed", "1", "--format", "csv"], capsys
    )
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out)).set_index(["slicing", "slice"])
    for key in ("north", "south", "east", "tiny"):
        row = f.loc[("site", key, "ROC")]
        for ours, theirs in (
            ("ROC_low", "low"),
            ("ROC_to_overall_high", "to_overall_high"),
            ("ROC_p_holm", "p_holm"),
        ):
            a, b = got.loc[("site", key), ours], row[theirs]
            assert (math.isnan(a) and math.isnan(b)) or a == b, (key, ours)
    code, out, err = run_cli(
        ["eval", path, *ARGS, "--ci", "0.95", "--n-boot", "200", "--seed", "1", "--format", "json"], capsys
    )
    assert code == 0, err
    d = json.loads(out)["slices"]["intervals"]
    assert (d["method"], d["n_boot"], d["seed"], d["level"]) == ("percentile", 200, 1, 0.95)
    roc = d["slicings"][0]["measures"]["ROC"]
    south = next(x for x in roc["slices"] if x["slice"] == "south")
    assert south["low"] == f.loc[("site", "south", "ROC"), "low"]
    assert south["to_overall"]["p_bh"] == f.loc[("site", "south", "ROC"), "p_bh"]
    assert roc["gaps"]["difference"]["high"] == c.gaps().loc[("site", "ROC", "difference"), "high"]


def test_delong_by_slice(table, capsys):
    path, df = table
    code, out, err = run_cli(["eval", path, *BASE, "-m", "roc", "--ci", "0.95", "--method", "delong"], capsys)
    assert code == 0, err
    r, c = python(df, method="delong", measures="roc")
    assert "(95% intervals: DeLong)" in out
    line = next(x.split() for x in out.splitlines() if x.startswith("south "))
    assert float(line[-2]) == pytest.approx(c.frame().loc[("site", "south", "ROC"), "low"], abs=5e-7)
    assert "gap intervals by site: none with DeLong's method" in out


@pytest.mark.parametrize(
    "extra, said",
    [
        (
            ["--ci", "0.95", "--method", "bca"],
            "--by with --ci: the slices' intervals are the percentile bootstrap's or DeLong's, not bca's",
        ),
        (["--ci", "0.95", "--method", "t"], "not t's"),
        (
            ["--ci", "0.95", "--method", "delong", "-m", "ap", "--no-base"],
            "DeLong's interval is for the ROC area over all cases, not AP",
        ),
        (["--ci", "0.95", "--stream"], "--by with --ci evaluates in memory"),
    ],
)
def test_what_does_not_combine_is_one_line(table, capsys, extra, said):
    path, _ = table
    base = BASE if "--no-base" in extra else ARGS
    extra = [x for x in extra if x != "--no-base"]
    code, out, err = run_cli(["eval", path, *base, *extra], capsys)
    assert code == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1, err


def test_without_ci_the_slices_print_as_before(table, capsys):
    path, _ = table
    code, out, _ = run_cli(["eval", path, *ARGS], capsys)
    assert code == 0 and "ROC_low" not in out and "gaps to the overall value" not in out
    code, out, _ = run_cli(
        ["eval", path, "--target", "y", "--score", "p", "-m", "roc", "--ci", "0.95", "--n-boot", "50"], capsys
    )
    assert code == 0 and "bca bootstrap" in out  # --ci without --by: unchanged


def test_without_min_size_a_small_slice_leaves_the_gaps_without_intervals_and_says_why(table, capsys):
    path, _ = table
    code, out, err = run_cli(
        ["eval", path, *BASE[:-2], "-m", "roc", "--ci", "0.95", "--n-boot", "200"], capsys
    )
    assert code == 0, err
    lines = out.splitlines()
    at = lines.index("gap intervals by site:")
    diff = lines[at + 2].split()
    assert diff[:2] == ["ROC", "difference"] and diff[3:5] == ["n/a", "n/a"]
    assert any(
        "'tiny'" in x and "--min-size N: with --ci the slices below it are left out" in x for x in lines[at:]
    ), out
