"""A bootstrap over the cases that leaves up to 5% of its replicates out (undefined: no positive
drawn, every target equal) says so, as the group bootstrap does (``Interval.left_out``,
``Comparison.left_out``, the line under the table, a note beside CSV) (issue 33).
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval.stats import ci, compare

N = 200


def _rare(seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.zeros(N, dtype=int)
    y[:4] = 1  # each replicate draws no positive with probability e^-4 = 1.8%
    return y, rng.random(N), rng.random(N)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_binary_interval_says_its_undefined_replicates(weighted):
    y, s, _ = _rare()
    w = np.ones(N) if weighted else None
    got = ci(y, s, measures=["roc", "apr"], n_boot=1000, seed=1, sample_weight=w)
    for r in got.values():
        assert np.isfinite(r.low) and np.isfinite(r.high)
        k = int(r.left_out.split(" of the 1000 replicates")[0])
        assert 0 < k <= 50
        assert r.left_out.endswith(f"are left out: the interval is of the other {1000 - k}")
        assert r.to_dict()["left_out"] == r.left_out


def test_no_word_when_every_replicate_is_defined():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, N)
    got = ci(y, rng.random(N), measures=["roc"], n_boot=200, seed=1)
    assert got["ROC"].left_out == "" and "left_out" not in got["ROC"].to_dict()


def test_a_regression_interval_says_them_with_the_measures_reason():
    y, s, _ = _rare()
    got = ci(y.astype(float), s, measures=["r2"], n_boot=1000, seed=1, task="regression")
    (r,) = got.values()
    assert np.isfinite(r.low)
    assert "replicates" in r.left_out and "(in the first of them: every target is equal" in r.left_out


def test_compares_paired_test_says_them():
    y, s, s2 = _rare()
    c = compare(y, s, s2, measures=["apr"], n_boot=1000, seed=1)["APR"]
    assert np.isfinite(c.low) and np.isfinite(c.p_value)
    k = int(c.left_out.split(" of the")[0])
    assert c.left_out.endswith(f"are left out: the interval and test are of the other {1000 - k}")


def test_the_command_says_them_under_the_table_and_beside_csv(tmp_path, capsys):
    from conftest import run_cli

    y, s, _ = _rare()
    f = tmp_path / "rare.csv"
    f.write_text("y,s\n" + "".join(f"{a},{b!r}\n" for a, b in zip(y.tolist(), s.tolist(), strict=True)))
    argv = ["eval", str(f), "--target", "y", "--score", "s", "-m", "roc,apr", "--ci", "0.95"]
    argv += ["--n-boot", "1000"]
    code, out, err = run_cli([*argv, "--seed", "1"], capsys)
    assert code == 0, err
    assert "(replicates left out: ROC, APR: " in out and "leave the value undefined" in out
    code, out, err = run_cli([*argv, "--seed", "1", "--format", "csv"], capsys)
    assert code == 0 and "left out" not in out
    assert "perfeval: note: ROC: " in err and "perfeval: note: APR: " in err
    assert "leave the value undefined" in err
