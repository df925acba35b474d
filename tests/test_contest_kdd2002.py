"""The KDD Cup 2002 task 2 preset on fixed files: its output byte for byte as it was before its
partitions were coded by the multiclass engine's class codes (tests/contest_kdd2002/expected/, written
by the scorer of main at 06ef26c, before that change), and each criterion's partition against the
engine of K classes: {change} against the rest is the one-vs-rest ROC of class ``change``, {change,
control} against {nc} the union of two classes against the third.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main

HERE = Path(__file__).parent / "contest_kdd2002"
TEAMS = ["team_good", "team_weak", "team_perfect", "team_bad"]
KEYS = ["genes.csv", "genes_nocontrol.txt", "genes_allnc.txt"]
CASES = [(key, fmt) for key in KEYS for fmt in ("table", "json")]


def _name(key: str, fmt: str) -> str:
    return f"{key.split('.')[0]}.{fmt}.txt"


def _run(capsys, key: str, fmt: str) -> str:
    """The command's exit status, standard output and standard error, as one text (the version
    written as {VERSION}, so that a release does not change the expected bytes).
    """
    old = os.getcwd()
    os.chdir(HERE)  # the names in the output are the relative ones given
    try:
        capsys.readouterr()
        argv = ["score", "--key", key, "--task", "kddcup2002-task2", *TEAMS, "--no-store", "--format", fmt]
        rc = main(argv)
        out, err = capsys.readouterr()
    finally:
        os.chdir(old)
    text = f"exit {rc}\n--- stdout\n{out}--- stderr\n{err}"
    return text.replace(f"perfeval:{perfeval.__version__}|", "perfeval:{VERSION}|")


@pytest.mark.parametrize(("key", "fmt"), CASES)
def test_the_preset_prints_the_same_bytes_as_before(capsys, key, fmt):
    want = (HERE / "expected" / _name(key, fmt)).read_bytes()
    assert _run(capsys, key, fmt).encode() == want


def _labels(key: str) -> tuple[list[str], list[str]]:
    lines = (HERE / key).read_text().splitlines()
    rows = [ln.replace(",", " ").split() for ln in lines if ln and not ln.startswith("gene_id")]
    return [r[0] for r in rows], [r[1] for r in rows]


def _ranked(team: str, lst: str, ids: list[str]) -> np.ndarray:
    order = (HERE / team / f"{lst}.txt").read_text().split()
    rank = {g: i for i, g in enumerate(order)}
    return np.array([float(len(order) - rank[g]) for g in ids])


@pytest.mark.parametrize("team", TEAMS[:3])
def test_each_partition_is_the_multiclass_engines(capsys, team):
    """narrow = the one-vs-rest ROC of class change with the narrow list's scores in its column;
    broad = {change, control} against {nc}: the one-vs-rest ROC of class nc, its column the broad
    list's scores negated (the same pairs, each compared the other way), as the K-class engine gives
    them; the contest's value is the classic engine's (float32 storage), so within 1e-6."""
    ids, labels = _labels("genes.csv")
    text = _run(capsys, "genes.csv", "json")
    rows = json.loads(text.split("--- stdout\n")[1].split("--- stderr")[0])
    got = next(r for r in rows if r["submission"] == team)
    classes = ["change", "nc", "control"]
    n = len(ids)
    s = np.zeros((n, 3))
    s[:, 0] = _ranked(team, "narrow", ids)
    s[:, 1] = -_ranked(team, "broad", ids)
    r = perfeval.evaluate(labels, s, classes=classes, measures=["roc_ovr"])
    per = dict(zip(classes, r.results["ROC_OVR:average=macro"].per_class, strict=True))
    assert math.isclose(got["scores"]["ROC_narrow"], per["change"], abs_tol=1e-6)
    assert math.isclose(got["scores"]["ROC_broad"], per["nc"], abs_tol=1e-6)
