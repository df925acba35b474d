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


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_bad_label_that_is_no_whole_number_is_shown_as_the_file_writes_it(tmp_path, capsys, stream):
    """``2.50`` as the file writes it, not the ``2.5`` read."""
    p = tmp_path / "t.csv"
    p.write_text("y_a,y_b,s_a,s_b\n1,0,0.1,0.5\n0,2.50,0.2,0.4\n")
    assert main(["eval", str(p), "--label-prefix", "y_", "--score-prefix", "s_", *stream]) == 1
    err = capsys.readouterr().err
    assert "line 3: the label column 'y_b' holds 2.50; a label column" in err, err
    assert "Traceback" not in err


def test_a_bad_label_of_an_object_matrix_is_one_line_with_its_value():
    """The library: an object (n, K) matrix's 2 is said as given (it was an AttributeError)."""
    from perfeval import InvalidDataError, evaluate

    y = np.array([[0, 1], [1, 2]], dtype=object)
    with pytest.raises(InvalidDataError) as e:
        evaluate(y, np.full((2, 2), 0.5), measures=["roc"])
    assert str(e.value) == (
        "`y_true` of K labels holds 0 or 1 in each cell (label off or on), got 2 at row 1, column 1"
    )


ORDERED = (
    "y_spam,y_urgent,y_promo,p_spam,p_urgent,p_promo\n"
    "1,0,0,0.9,0.1,0.2\n0,1,1,0.2,0.8,0.7\n1,1,0,0.7,0.6,0.1\n0,0,1,0.1,0.2,0.9\n"
)


@pytest.mark.parametrize(
    "labels",
    [["--label-prefix", "y_"], ["--labels", "y_spam,y_urgent,y_promo"], ["--label-prefix", "y_", "--stream"]],
)
def test_score_order_that_disagrees_with_the_labels_is_one_line(tmp_path, capsys, labels):
    p = tmp_path / "t.csv"
    p.write_text(ORDERED)
    assert main(["eval", str(p), *labels, "--score", "p_promo,p_urgent,p_spam"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "--score pairs the label column 'y_spam' with the score column 'p_promo'" in err
    assert "--score p_spam,p_urgent,p_promo" in err
    # the same columns in the labels' order: evaluated
    assert main(["eval", str(p), *labels, "--score", "p_spam,p_urgent,p_promo"]) == 0


def test_score_columns_of_other_names_are_taken_in_order(tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text(ORDERED.replace("p_spam", "m1").replace("p_urgent", "m2").replace("p_promo", "m3"))
    assert main(["eval", str(p), "--label-prefix", "y_", "--score", "m3,m2,m1"]) == 0
