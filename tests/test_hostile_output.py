"""Hostile input reaching what perfeval writes: control characters in names never reach the HTML
report raw; a text cell a spreadsheet would run as a formula is neutralised in every CSV perfeval
writes (numbers stay numbers); a weight of 1e308 gives APR and the ROC area right, not 0.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from perfeval.cli.main import main

pd = pytest.importorskip("pandas")


def test_control_characters_of_names_are_shown_escaped_in_the_report(tmp_path):
    pytest.importorskip("matplotlib")
    frame = pd.DataFrame(
        {
            "y": [1, 0, 1, 0, 1, 0],
            "m\x1b[31mA": [0.9, 0.2, 0.6, 0.4, 0.8, 0.3],
            "b\x07": [0.8, 0.3, 0.7, 0.1, 0.5, 0.6],
            "g": ["u\x1b]0;owned\x07", "u\x1b]0;owned\x07", "v\u202e", "v\u202e", "w", "w"],
        }
    )
    path = tmp_path / "esc.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "esc.html"
    assert (
        main(
            [
                "report",
                str(path),
                "--score",
                "2,3",
                "--group",
                "g",
                "--ci",
                "0.9",
                "--n-boot",
                "20",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text(encoding="utf-8")
    raw = [c for c in set(text) if (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) < 0xA0 or c == "\u202e"]
    assert raw == []
    assert "m\\x1b[31mA" in text and "b\\x07" in text and "u\\x1b]0;owned\\x07" in text and "v\\u202e" in text


def _csv(capsys, argv) -> str:
    capsys.readouterr()
    assert main(argv) == 0
    return capsys.readouterr().out


def _cells(text: str) -> list[str]:
    import csv

    return [c for row in csv.reader(io.StringIO(text)) for c in row]


FORMULAS = ("=1+2", "+SUM(A1)", "-2+3", "@cmd", '=HYPERLINK("http://x","y")')


def _formula_cells(cells: list[str]) -> list[str]:
    return [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r")) and not _number(c)]


def _number(c: str) -> bool:
    try:
        float(c)
    except ValueError:
        return False
    return True


def test_no_csv_perfeval_writes_holds_a_formula(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 60
    y = np.tile([1, 0], n // 2)
    frame = pd.DataFrame(
        {
            "y": y,
            FORMULAS[0]: np.round(rng.random(n), 3),
            FORMULAS[1]: np.round(rng.random(n) * 0.5 + 0.4 * y, 3),
            "grp": [FORMULAS[i % len(FORMULAS)] if i % 2 else str(-(i % 5)) for i in range(n)],
        }
    )
    path = tmp_path / "f.csv"
    frame.to_csv(path, index=False)
    score = "2,3"
    outs = [
        _csv(capsys, ["eval", str(path), "--score", score, "-m", "roc,logloss", "--format", "csv"]),
        _csv(
            capsys,
            [
                "eval",
                str(path),
                "--score",
                score,
                "--group",
                "grp",
                "-m",
                "roc",
                "--format",
                "csv",
                "--per-group",
            ],
        ),
        _csv(
            capsys,
            [
                "eval",
                str(path),
                "--score",
                "2",
                "--group",
                "grp",
                "-m",
                "roc",
                "--format",
                "csv",
                "--per-group",
            ],
        ),
        _csv(
            capsys,
            ["compare", str(path), "--score", score, "-m", "roc,apr", "--n-boot", "20", "--format", "csv"],
        ),
    ]
    qrels, run = tmp_path / "q.txt", tmp_path / "=run.run"
    qrels.write_text("=q1 0 d1 1\n=q1 0 d2 0\n-5 0 d1 1\n-5 0 d3 1\n")
    run.write_text("=q1 Q0 d1 1 0.9 @tag\n=q1 Q0 d2 2 0.5 @tag\n-5 Q0 d3 1 0.8 @tag\n-5 Q0 d1 2 0.3 @tag\n")
    outs.append(_csv(capsys, ["trec", str(qrels), str(run), "-m", "map", "--format", "csv", "-q"]))
    other = tmp_path / "@other.run"
    other.write_text(run.read_text())
    outs.append(_csv(capsys, ["trec", str(qrels), str(run), str(other), "-m", "map", "--format", "csv"]))
    for text in outs:
        cells = _cells(text)
        assert _formula_cells(cells) == [], text
    # the names are kept, behind a quote; numbers (-0.5, a group "-3") stay numbers
    every = [c for text in outs for c in _cells(text)]
    assert "'=1+2" in every and "'+SUM(A1)" in every and "'@tag" in every and "'=q1" in every
    assert "-3" in every and "-5" in every
    per = pd.read_csv(io.StringIO(outs[2]))
    assert per["group"].astype(str).isin(["'" + f for f in FORMULAS] + ["0", "-1", "-2", "-3", "-4"]).all()


def test_a_huge_weight_gives_apr_and_roc_right(tmp_path, capsys):
    """One positive of weight 1e308 below a negative: APR ~ 1 (it printed 0: the kernel's count of
    cases overflowed; 1e16 summed for hours), the ROC area 0.5 (it printed 0: a finite area over an
    infinite number of pairs), R50 too."""
    import json

    path = tmp_path / "w.csv"
    for w, apr in (("1e308", 1.0), ("1e16", 1.0), ("100000000", None)):
        path.write_text(f"y,p,w\n1,0.2,{w}\n0,0.7,1\n1,0.4,1\n0,0.1,1\n")
        capsys.readouterr()
        assert main(["eval", str(path), "--weight", "w", "-m", "apr,roc,r50", "--format", "json"]) == 0
        got = {k: v["value"] for k, v in json.loads(capsys.readouterr().out)["measures"].items()}
        assert got["ROC"] == 0.5 and got["R50"] == 0.5, (w, got)
        W = float(w)
        # PERF's APR of this order: 1/2 at the positive at 0.4, then (1 + k)/(2 + k), k = 1..W
        mpmath = pytest.importorskip("mpmath")
        mpmath.mp.dps = 40
        total = mpmath.mpf(1) / 2 + W - mpmath.harmonic(W + 2) + mpmath.harmonic(2)
        want = float(total / (W + 1))
        assert got["APR"] == pytest.approx(want, rel=1e-13, abs=0), (w, got["APR"], want)
        if apr is not None:
            assert math.isclose(got["APR"], apr, rel_tol=1e-12)


def test_large_tie_groups_match_the_sum_case_by_case():
    """The closed forms of a tie group past 2**26 cases agree with summing case by case (exact
    rationals through mpmath), positives and negatives mixed, above and below other cases."""
    mpmath = pytest.importorskip("mpmath")
    import perfeval

    mpmath.mp.dps = 40
    for pos, neg, above_pos, above_neg in (
        (2.0**27, 3.0, 5.0, 7.0),
        (1e12, 1e12, 1.0, 0.0),
        (1e9, 2.0, 3e11, 1e11),
    ):
        got = perfeval.evaluate(
            [1, 0, 1, 0],
            [0.1, 0.1, 0.9, 0.9],
            measures=["apr"],
            sample_weight=[pos, neg, above_pos, above_neg],
        )["APR"]

        # the top group: m = above_pos of g = above_pos + above_neg; the low group under it
        def group(m, g, a, b):
            g, m, a, b = (mpmath.mpf(x) for x in (g, m, a, b))
            if g == 1:
                return (b + 1) / (a + 1)
            s1 = mpmath.harmonic(a + g) - mpmath.harmonic(a)
            s2 = g - (a + 1) * s1
            return m / g * ((b + 1) * s1 + (m - 1) / (g - 1) * s2)

        top = group(above_pos, above_pos + above_neg, 0, 0)
        low = group(pos, pos + neg, above_pos + above_neg, above_pos)
        want = float((top + low) / (pos + above_pos))
        assert got == pytest.approx(want, rel=1e-13), (pos, neg, above_pos, above_neg)
