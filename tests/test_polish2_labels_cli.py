"""The multilabel CLI: the first bad row of the file is the one reported, its value as written; an
explicit --score order that plainly disagrees with the --labels names is one line (exit 2)."""

from __future__ import annotations

import numpy as np
import pytest

from perfeval.cli.main import main


def test_first_bad_row_is_reported_a_null_after_a_bad_label(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = pd.DataFrame(
        {
            "y_a": [1, 0, 2, 1, 0],
            "y_b": [0, 1, 1, 0, 1],
            "s_a": [0.1, 0.2, 0.3, 0.4, 0.5],
            "s_b": [0.5, 0.4, 0.3, np.nan, 0.1],
        }
    )
    p = tmp_path / "t.parquet"
    df.to_parquet(p)
    assert main(["eval", str(p), "--label-prefix", "y_", "--score-prefix", "s_"]) == 1
    err = capsys.readouterr().err
    assert "row 3: the label column 'y_a' holds 2; a label column holds 0 or 1" in err, err


def test_a_bad_label_is_shown_as_written(tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("y_a,y_b,s_a,s_b\n1,0,0.1,0.5\n0,2,0.2,0.4\n")
    assert main(["eval", str(p), "--label-prefix", "y_", "--score-prefix", "s_"]) == 1
    err = capsys.readouterr().err
    assert "line 3: the label column 'y_b' holds 2; a label column" in err, err
