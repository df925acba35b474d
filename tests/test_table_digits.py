"""The text tables show a value's digits whatever its size: a magnitude of 1e15 or more in six
significant digits (``8.40272e+198``; it was printed in fixed point, some 200 digits), as a nonzero
value below 5e-7 already was (``4.06e-10``, not ``0.000000``); every other value as before, six
decimals (the golden files hold them).  JSON and CSV write every float in full (repr)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import perfeval
from perfeval.base.text import decimals
from perfeval.cli.main import main
from perfeval.cli.output import number

#: a run of 16 digits or more: a number printed in fixed point past 1e15
LONG = re.compile(r"\d{16,}")


@pytest.mark.parametrize(
    ("v", "text"),
    [
        (0.5, "0.500000"),
        (123456.789, "123456.789000"),
        (999999999999999.9, "999999999999999.875000"),  # below 1e15: as before
        (-0.25, "-0.250000"),
        (0.0, "0.000000"),
        (4.06e-10, "4.06e-10"),
        (1e15, "1e+15"),
        (-8.4027230594493766e198, "-8.40272e+198"),
        (1.7976931348623157e308, "1.79769e+308"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
    ],
)
def test_decimals(v, text):
    assert decimals(v) == text and number(v) == text


def test_the_report_repr():
    rep = perfeval.evaluate(np.array([1.0, 2.0, 4.0]) * 1e200, np.array([1.5, 2.0, 3.0]) * 1e200,
                            measures=["mae", "r2"])  # fmt: skip
    text = repr(rep)
    assert not LONG.search(text) and "5e+199" in text and "0.732143" in text


@pytest.fixture
def big(tmp_path):
    rng = np.random.default_rng(1)
    y = (rng.random(30) + 1) * 1e200
    p, q = y * (1 + rng.random(30) * 0.1), y * (1 + rng.random(30) * 0.2)
    path = tmp_path / "big.csv"
    rows = zip(y.tolist(), p.tolist(), q.tolist(), strict=True)
    path.write_text("y,p,q,g\n" + "".join(f"{a!r},{b!r},{c!r},{i % 2}\n" for i, (a, b, c) in enumerate(rows)))
    return path


def test_the_cli_tables(big, capsys):
    base = [str(big), "--target", "y", "-m", "mae,rmse"]
    for argv in (
        ["eval", *base, "--score", "p"],
        ["eval", *base, "--score", "p", "--group", "g"],
        ["eval", *base, "--score", "p", "--ci", "0.9", "--n-boot", "50"],
        ["compare", *base, "--score", "p,q", "--n-boot", "50"],
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, err
        assert not LONG.search(out) and re.search(r"\d\.\d{5}e\+19[89]", out), out
    code = main(["eval", *base, "--score", "p", "--format", "json"])
    out, _ = capsys.readouterr()
    mae = json.loads(out)["measures"]["MAE"]["value"]
    code = main(["eval", *base, "--score", "p"])
    out, _ = capsys.readouterr()
    assert f"{mae:.6g}" in out  # the JSON's value, to six digits


def test_the_slices_table(big, capsys):
    code = main(
        [
            "eval",
            str(big),
            "--target",
            "y",
            "--score",
            "p",
            "-m",
            "mae",
            "--by",
            "g",
            "--ci",
            "0.9",
            "--n-boot",
            "50",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not LONG.search(out) and re.search(r"\d\.\d{5}e\+19[89]", out), out
