"""`perfeval eval --ci` and `perfeval compare`: the numbers are the library's, and each kind of bad
request gets one clear line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.cli.main import main
from perfeval.stats import ci, compare


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(1)
    n = 1200
    y = (rng.random(n) < 0.4).astype(int)
    a = np.round(rng.normal(size=n) + y, 4)
    b = np.round(rng.normal(size=n) + 0.6 * y, 4)
    g = np.arange(n) // 20
    (tmp_path / "a.txt").write_text("".join(f"{t} {x}\n" for t, x in zip(y, a, strict=False)))
    (tmp_path / "b.txt").write_text("".join(f"{t} {x}\n" for t, x in zip(y, b, strict=False)))
    (tmp_path / "ab.csv").write_text(
        "y,a,b,g\n" + "".join(f"{t},{x},{z},{k}\n" for t, x, z, k in zip(y, a, b, g, strict=False))
    )
    return tmp_path, y, a, b, g


def test_eval_ci_table_and_json(data, capsys):
    d, y, a, _, _ = data
    assert (
        main(["eval", str(d / "a.txt"), "-m", "roc,apr", "--ci", "0.9", "--n-boot", "300", "--seed", "4"])
        == 0
    )
    out = capsys.readouterr().out
    want = ci(y, a, measures=["roc", "apr"], level=0.9, n_boot=300, seed=4)
    line = next(ln for ln in out.splitlines() if ln.startswith("ROC"))
    assert line.split()[2:4] == [f"{want['ROC'].low:.6f}", f"{want['ROC'].high:.6f}"]
    assert "(90% intervals: bca bootstrap, 300 replicates, cases resampled)" in out
    assert (
        main(
            [
                "eval",
                str(d / "ab.csv"),
                "--target",
                "y",
                "--score",
                "a",
                "--group",
                "g",
                "-m",
                "gauc",
                "--ci",
                "0.95",
                "--n-boot",
                "200",
                "--format",
                "json",
            ]
        )
        == 0
    )
    j = json.loads(capsys.readouterr().out)["measures"]["GAUC"]["ci"]
    want = ci(y, a, measures="gauc", groups=np.arange(1200) // 20, n_boot=200)["GAUC"]
    assert (
        j["resampled"] == "groups"
        and j["low"] == pytest.approx(want.low)
        and j["high"] == pytest.approx(want.high)
    )


def test_compare_two_files_is_delong_by_default(data, capsys):
    d, y, a, b, _ = data
    assert main(["compare", str(d / "a.txt"), str(d / "b.txt"), "--format", "json"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"][0]
    want = compare(y, b, a, measures="roc", method="delong")["ROC"]  # the second against the first: b - a
    assert (
        c["model"] == str(d / "b.txt")
        and c["baseline"] == str(d / "a.txt")
        and c["method"] == "delong"
        and c["p_value"] == pytest.approx(want.p_value)
        and c["low"] == pytest.approx(want.low)
    )


def test_compare_one_table_bootstrap_and_groups(data, capsys):
    d, y, a, b, _ = data
    assert (
        main(
            [
                "compare",
                str(d / "ab.csv"),
                "--target",
                "y",
                "--score",
                "a,b",
                "-m",
                "roc,apr",
                "--method",
                "percentile",
                "--n-boot",
                "200",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    want = compare(
        y, b, a, measures=["roc", "apr"], method="percentile", n_boot=200
    )  # b against the baseline a
    apr = next(ln for ln in out.splitlines() if ln.split()[:2] == ["b", "APR"]).split()
    assert apr[4:7] == [f"{want['APR'].difference:.6f}", f"{want['APR'].low:.6f}", f"{want['APR'].high:.6f}"]
    assert "(paired percentile bootstrap, 200 replicates, seed 0, cases resampled)" in out
    assert (
        main(
            [
                "compare",
                str(d / "ab.csv"),
                "--target",
                "y",
                "--score",
                "a,b",
                "--group",
                "g",
                "-m",
                "gauc",
                "--n-boot",
                "100",
            ]
        )
        == 0
    )
    assert "groups resampled" in capsys.readouterr().out


def test_bad_requests(data, capsys):
    d, *_ = data
    (d / "c.txt").write_text("1 0.5\n0 0.2\n")
    lines = (d / "a.txt").read_text().splitlines()
    flipped = lines[:]
    first = flipped[5].split()
    flipped[5] = f"{1 - int(first[0])} {first[1]}"
    (d / "flip.txt").write_text("\n".join(flipped) + "\n")
    cases = [
        (["compare", str(d / "a.txt"), str(d / "c.txt")], 1, "c.txt: has 2 rows, "),
        (["compare", str(d / "a.txt"), str(d / "flip.txt")], 1, "flip.txt, line 6: the target differs from"),
        (
            ["compare", str(d / "ab.csv"), "--target", "y"],
            2,
            "--score names the models' columns, the baseline first",
        ),
        (
            ["compare", str(d / "a.txt"), str(d / "b.txt"), "-m", "apr", "--method", "delong"],
            2,
            "DeLong's test is for the ROC area over all cases, not APR",
        ),
        (["eval", str(d / "a.txt"), "--ci", "1.5"], 2, "strictly between 0 and 1"),
        (
            ["eval", str(d / "a.txt"), "--ci", "0.95", "--stream", "--weight", "2"],
            2,
            "--ci with --stream or --dask is for measures over all cases, unweighted but with --method wald",
        ),
        (
            ["eval", str(d / "a.txt"), "--ci", "0.95", "--stream", "-m", "apr", "--method", "bca"],
            2,
            "a BCa interval of APR needs the cases",
        ),
        (["eval", str(d / "a.txt"), "--ci", "0.95", "--n-boot", "1"], 2, "at least 2 replicates"),
    ]
    for args, code, msg in cases:
        assert main(args) == code, args
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)


def test_stream_ci_equals_in_memory_percentile(data, capsys):
    d, y, a, _, _ = data
    assert (
        main(
            [
                "eval",
                str(d / "a.txt"),
                "--stream",
                "-m",
                "roc,apr,acc",
                "--ci",
                "0.95",
                "--n-boot",
                "300",
                "--format",
                "json",
            ]
        )
        == 0
    )
    got = json.loads(capsys.readouterr().out)["measures"]
    want = ci(y, a, measures=["roc", "apr", "acc"], method="percentile", n_boot=300)
    for label in ("ROC", "APR", "ACC"):
        assert got[label]["ci"]["low"] == want[label].low and got[label]["ci"]["high"] == want[label].high
        assert got[label]["ci"]["method"] == "percentile"


def test_a_streamed_interval_says_why_it_is_a_percentile_one(data, capsys):
    """From a stream only the merged summary is left, and BCa's jackknife needs the cases: the
    default there is percentile, and the footnote says so and why; asked for, the method is said
    without the reason."""
    d, *_ = data
    args = ["eval", str(d / "a.txt"), "--stream", "-m", "roc,apr", "--ci", "0.95", "--n-boot", "100"]
    assert main(args) == 0
    note = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("(95% intervals"))
    head = "(95% intervals: percentile bootstrap, 100 replicates, cases resampled; percentile:"
    assert note.startswith(head)
    assert "without the cases BCa's jackknife needs" in note
    assert main([*args[:4], "roc", *args[5:], "--method", "bca"]) == 0
    note = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("(95% intervals"))
    assert note == "(95% intervals: bca bootstrap, 100 replicates, cases resampled)"
