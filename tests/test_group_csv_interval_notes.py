"""``eval --group G --per-group --format csv --ci``: the per-group table has no line under it, so the
intervals' notes (one-sided, replicates left out) reach stderr as notes, as the summary's CSV and
compare's CSV say them (issue 33).
"""

from __future__ import annotations

import numpy as np


def _table(tmp_path, groups: int):
    rng = np.random.default_rng(3)
    f = tmp_path / "g.csv"
    rows = [(g, i % 2, rng.random(), rng.random()) for g in range(groups) for i in range(6)]
    f.write_text("g,y,a,b\n" + "".join(f"{g},{y},{a:.5f},{b:.5f}\n" for g, y, a, b in rows))
    return f


def test_the_per_group_csv_notes_the_replicates_left_out(tmp_path, capsys):
    from conftest import run_cli

    f = _table(tmp_path, 4)  # 4 groups: e^-4 = 1.8% of the replicates draw none, left out
    argv = ["eval", str(f), "--target", "y", "--group", "g", "-m", "roc", "--ci", "0.95", "--n-boot", "1000"]
    code, out, err = run_cli([*argv, "--score", "a", "--seed", "1", "--format", "csv"], capsys)
    assert code == 0 and "drew none of the 4 groups" in err, err  # the summary's CSV: said already
    code, out, err = run_cli([*argv, "--score", "a", "--seed", "1", "--format", "csv", "--per-group"], capsys)
    assert code == 0 and out.startswith("group,ROC\n"), err
    assert "perfeval: note: ROC: " in err and "drew none of the 4 groups" in err, err
    models = ["--score", "a,b", "--seed", "1", "--format", "csv", "--per-group"]
    code, out, err = run_cli([*argv, *models], capsys)
    assert code == 0, err
    assert "perfeval: note: a ROC: " in err and "perfeval: note: b ROC: " in err, err


def test_the_per_group_csv_notes_an_interval_not_given(tmp_path, capsys):
    from conftest import run_cli

    f = _table(tmp_path, 3)  # 3 groups: more than 5% of the replicates draw none, no interval
    argv = ["eval", str(f), "--target", "y", "--score", "a", "--group", "g", "-m", "roc", "--ci", "0.95"]
    code, out, err = run_cli([*argv, "--seed", "1", "--format", "csv", "--per-group"], capsys)
    assert code == 0 and "perfeval: note: ROC: no interval: 3 groups with a value, too few" in err, err
