"""``eval --by COL --ci L`` of a regression: the slices' intervals and their gaps' tests, from one set
of replicates, as a binary target's (the overall interval the percentile bootstrap's of
:func:`perfeval.stats.ci`) (issue 33).
"""

from __future__ import annotations

import json

import numpy as np

from perfeval.stats import ci


def test_a_regression_by_a_column_gives_its_slices_intervals(tmp_path, capsys):
    from conftest import run_cli

    rng = np.random.default_rng(3)
    n = 60
    sl = rng.choice(["x", "y"], n)
    y = rng.normal(size=n)
    s = y + 0.5 * rng.normal(size=n)
    f = tmp_path / "r.csv"
    f.write_text(
        "sl,y,s\n" + "".join(f"{a},{b!r},{c!r}\n" for a, b, c in zip(sl, y.tolist(), s.tolist(), strict=True))
    )
    argv = [
        "eval",
        str(f),
        "--target",
        "y",
        "--score",
        "s",
        "-m",
        "mae",
        "--task",
        "regression",
        "--by",
        "sl",
    ]
    argv += ["--ci", "0.95", "--n-boot", "200", "--seed", "0"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert "MAE_low  MAE_high" in out and "gap intervals by sl:" in out
    code, out, err = run_cli([*argv, "--format", "json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    overall = ci(y, s, measures=["mae"], method="percentile", n_boot=200, seed=0, task="regression")["MAE"]
    assert got["measures"]["MAE"]["ci"]["low"] == overall.low
    assert got["measures"]["MAE"]["ci"]["high"] == overall.high
    assert got["slices"]["intervals"]
