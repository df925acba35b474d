"""``perfeval compare --correction bh`` (Benjamini-Hochberg beside Holm, issue 34) and
``perfeval.stats.compare_models(..., correction=)``: the p-values of N models against a baseline,
corrected per measure over the models compared, equal statsmodels' ``multipletests`` (run in the
oracle venv, /tmp/oracle-venv, in a subprocess) and the library's; a corrected p-value read from a
bootstrap p-value at its floor is marked as a bound."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from perfeval.stats import compare_models

ORACLE = Path("/tmp/oracle-venv/bin/python")
MODELS = ("base", "a", "b", "c", "d")


def _table(tmp_path):
    rng = np.random.default_rng(7)
    n = 300
    y = (rng.random(n) < 0.45).astype(int)
    lift = {"base": 0.2, "a": 0.3, "b": 0.22, "c": 0.9, "d": 0.26}
    s = {m: np.round(rng.random(n) * 0.6 + y * k, 3) for m, k in lift.items()}
    p = tmp_path / "m.csv"
    p.write_text("y," + ",".join(MODELS) + "\n" + "".join(
        f"{y[i]}," + ",".join(str(s[m][i]) for m in MODELS) + "\n" for i in range(n)
    ))  # fmt: skip
    return p, y, s


def _statsmodels(p: list[float], method: str) -> list[float]:
    if not ORACLE.exists():
        pytest.skip("statsmodels' oracle venv (/tmp/oracle-venv) is not on this machine")
    code = (
        "import json, sys; from statsmodels.stats.multitest import multipletests; "
        "p, m = json.loads(sys.argv[1]), sys.argv[2]; "
        "print(json.dumps(multipletests(p, method=m)[1].tolist()))"
    )
    out = subprocess.run([str(ORACLE), "-c", code, json.dumps(p), method], capture_output=True, text=True,
                         timeout=120, check=True)  # fmt: skip
    return json.loads(out.stdout)


@pytest.mark.parametrize("correction, theirs", [("bh", "fdr_bh"), ("holm", "holm")])
def test_compare_correction_is_statsmodels_and_the_librarys(tmp_path, capsys, correction, theirs):
    path, y, s = _table(tmp_path)
    argv = ["compare", str(path), "--target", "y", "--score", ",".join(MODELS), "-m", "roc,acc"]
    argv += ["--n-boot", "200", "--correction", correction]
    code, out, err = run_cli([*argv, "--format", "json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    assert got["correction"] == correction
    lib = compare_models(y, s, "base", measures=["roc", "acc"], n_boot=200, correction=correction)
    for label in ("ROC", "ACC"):
        rows = [c for c in got["comparisons"] if c["measure"] == label]
        assert [r["model"] for r in rows] == ["a", "b", "c", "d"]
        raw = [r["p_value"] for r in rows]
        want = _statsmodels(raw, theirs)
        np.testing.assert_allclose([r["p_adjusted"] for r in rows], want, rtol=1e-14, atol=0)
        for r in rows:
            c = lib[r["model"]][label]
            assert (c.correction, c.p_value, c.p_adjusted) == (correction, r["p_value"], r["p_adjusted"])
            assert c.p_adjusted_bound == r["p_adjusted_bound"]
            assert c.to_dict()["p_adjusted"] == r["p_adjusted"]
    code, out, _ = run_cli(argv, capsys)
    assert code == 0 and f"p ({correction})" in out.splitlines()[1]
    assert f"p ({correction}): corrected over the 4 models compared, per measure" in out


def test_a_bh_p_value_from_a_bootstrap_floor_is_a_bound(tmp_path, capsys):
    path, y, s = _table(tmp_path)
    lib = compare_models(y, s, "base", measures=["acc"], n_boot=200, correction="bh")
    c = lib["c"]["ACC"]  # far better than the baseline: no replicate on the far side of zero
    assert c.p_at_floor and c.p_adjusted_bound and c.p_adjusted == pytest.approx(c.p_value * 4)
    # Benjamini-Hochberg's adjusted p-value reads the p-values at or above its own: the others',
    # above the floor, are not bounds
    for name in ("a", "b", "d"):
        other = lib[name]["ACC"]
        assert not other.p_at_floor and other.p_value > c.p_value and not other.p_adjusted_bound
    code, out, _ = run_cli(
        ["compare", str(path), "--target", "y", "--score", ",".join(MODELS), "-m", "acc", "--n-boot", "200",
         "--correction", "bh"],
        capsys,
    )  # fmt: skip
    line = next(ln for ln in out.splitlines() if ln.startswith("c "))
    assert line.count("<=") == 2  # the p-value and its correction


def test_compare_models_refuses_an_unknown_correction():
    from perfeval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="correction='fdr': one of 'holm', 'bonferroni', 'bh'"):
        compare_models(
            [0, 1, 0, 1], {"a": [0.1, 0.9, 0.2, 0.8], "b": [0.3, 0.6, 0.4, 0.7]}, "a", correction="fdr"
        )


def test_a_holm_p_value_held_by_an_exact_one_is_no_bound():
    """Holm's adjusted p-value is the largest term over the ranks at or below its own: where an exact
    p-value's term is that largest, lowering the bootstrap floor below it changes nothing, so it is
    exact (``perfeval compare`` printed ``<=1`` and ``<=0.5`` there); where only a floor's term is, or
    a floor could overtake an exact p-value's rank, it is a bound."""
    from perfeval.stats.paired import _holm, correct_bounded

    adj, bound = correct_bounded([0.0198, 1.0], [True, False], "holm")
    assert adj.tolist() == [0.0396, 1.0] and bound.tolist() == [True, False]
    adj, bound = correct_bounded([0.0198, 0.5, 0.0198], [True, False, True], "holm")
    assert bound.tolist() == [True, False, True]
    assert correct_bounded([0.0198, 0.03], [True, False], "holm")[1].tolist() == [True, True]  # 0.0396
    assert correct_bounded([0.05, 0.01], [True, False], "holm")[1].tolist() == [True, True]  # rank moves
    # against brute force: an exact value is one that no lowering of the floors moves
    rng = np.random.default_rng(3)
    for _ in range(300):
        m = int(rng.integers(2, 6))
        p = np.round(rng.choice([0.01, 0.02, 0.05, 0.2, 0.5, 1.0], m) * rng.choice([1, 1, 0.5], m), 4)
        floor = rng.random(m) < 0.4
        adj, bound = correct_bounded(p, floor, "holm")
        moved = np.zeros(m, dtype=bool)
        for _ in range(40):
            q = np.where(floor, p * rng.choice([1e-9, 0.1, 0.5, 0.9, 1.0], m), p)
            moved |= _holm(q) < adj - 1e-15
        assert not (moved & ~bound).any(), (p, floor, adj, bound)  # never exact where a lowering moves it
        if floor.any() and (~floor).any():  # and where every floor is ranked first, bounds are tight
            first = np.argsort(p, kind="stable")
            if np.flatnonzero(floor[first]).max() < np.flatnonzero(~floor[first]).min():
                q = np.where(floor, p * 1e-9, p)
                assert ((_holm(q) < adj - 1e-15) == bound).all(), (p, floor, adj, bound)
