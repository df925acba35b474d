"""Which columns a command uses: by name, by position, by the usual names with a header; never a guess."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.exceptions import InvalidParameterError
from perfeval.io.columns import choose, pick


def run(argv, capsys, stdin: bytes | str = b""):
    from conftest import run_cli

    return run_cli(argv, capsys, stdin)


def test_header_defaults_by_usual_names():
    c = choose(["user", "item", "label", "score"], "f.csv", header=True)
    assert (c.target.index, c.score.index) == (2, 3)
    assert c.describe() == "target 'label' (3), score 'score' (4)"
    c = choose(["Y_TRUE", "x", "Prediction"], "f.csv", header=True)
    assert (c.target.name, c.score.name) == ("Y_TRUE", "Prediction")


def test_headerless_defaults_are_perfs_layout():
    c = choose(["column1", "column2", "column3"], "f.txt", header=False)
    assert (c.target.index, c.score.index) == (0, 1)
    assert c.worth_saying  # a third column was left aside: say what was used
    assert not choose(["column1", "column2"], "f.txt", header=False).worth_saying


@pytest.mark.parametrize(
    "names, fragment",
    [
        (["user", "item", "label", "model_a"], "no score column by a usual name"),
        (["a", "b"], "no target column by a usual name"),
        (["y", "p", "score"], "more than one column could be the score ('p' (2), 'score' (3))"),
    ],
)
def test_header_without_one_usual_name_is_an_error_listing_the_columns(names, fragment):
    with pytest.raises(InvalidParameterError) as e:
        choose(names, "f.csv", header=True)
    assert fragment in str(e.value)
    assert "columns: " + ", ".join(names) in str(e.value) or "choose one" in str(e.value)


def test_names_positions_and_mistakes():
    names = ["y", "p", "p", "label"]
    assert pick(names, "3", "score", "f", header=True).index == 2  # a position is a position
    with pytest.raises(
        InvalidParameterError, match=r"2 columns named 'p' \(columns 2 and 3\); choose one by position"
    ):
        pick(names, "p", "score", "f", header=True)
    with pytest.raises(InvalidParameterError, match="did you mean 'label'"):
        pick(names, "lable", "target", "f", header=True)
    with pytest.raises(InvalidParameterError, match="--score 9: f has 4 columns"):
        pick(names, "9", "score", "f", header=True)
    with pytest.raises(InvalidParameterError, match="the target and the score would both be column 'y'"):
        choose(names, "f", header=True, target="y", score="1")


def test_eval_on_a_headed_csv_scores_the_score_column(tmp_path, capsys):
    # the case: user,item,label,score; the default score column used to be `item` (ROC about 0.5)
    rng = np.random.default_rng(3)
    n = 400
    label = rng.integers(0, 2, n)
    score = np.round(label * 0.3 + rng.random(n) * 0.7, 4)
    item = rng.integers(1000, 9999, n)
    f = tmp_path / "big.csv"
    f.write_text(
        "user,item,label,score\n"
        + "".join(
            f"u{i % 7},{it},{lb},{s}\n" for i, (it, lb, s) in enumerate(zip(item, label, score, strict=False))
        )
    )
    code, out, err = run(["eval", str(f), "--target", "label", "-m", "roc", "--format", "json"], capsys)
    assert code == 0
    import perfeval

    assert (
        json.loads(out)["measures"]["ROC"]["value"]
        == perfeval.evaluate(label, score, measures=["roc"])["ROC"]
    )
    assert json.loads(out)["params"]["columns"] == {"target": "label", "score": "score"}
    assert "perfeval: columns: target 'label' (3), score 'score' (4)" in err
    code, out, err = run(["eval", str(f), "--target", "label", "--score", "item", "-m", "roc"], capsys)
    assert code == 0 and "perfeval: columns" not in err  # named by the user: nothing to say


def test_eval_header_with_no_usual_score_name_is_an_error(tmp_path, capsys):
    f = tmp_path / "m.csv"
    f.write_text("truth,model\n1,0.9\n0,0.2\n")
    code, out, err = run(["eval", str(f), "-m", "roc"], capsys)
    assert code == 2 and out == ""
    assert (
        err.count("\n") == 1 and "no target column by a usual name" in err and "columns: truth, model" in err
    )


@pytest.mark.parametrize("stream", [False, True])
def test_duplicate_names_positions_mean_positions(tmp_path, capsys, stream):
    f = tmp_path / "dup.csv"
    f.write_text("y,p,p\n1,0.9,0.1\n0,0.2,0.8\n1,0.7,0.3\n0,0.4,0.6\n")
    extra = ["--stream"] if stream else []
    code, out, err = run(
        ["eval", str(f), "--target", "1", "--score", "2", "-m", "roc", "--format", "json", *extra], capsys
    )
    assert code == 0 and json.loads(out)["measures"]["ROC"]["value"] == 1.0
    code, out, err = run(
        ["eval", str(f), "--target", "1", "--score", "3", "-m", "roc", "--format", "json", *extra], capsys
    )
    assert code == 0 and json.loads(out)["measures"]["ROC"]["value"] == 0.0
    code, out, err = run(["eval", str(f), "--target", "y", "--score", "p", "-m", "roc", *extra], capsys)
    assert code == 2 and "2 columns named 'p'" in err and err.count("\n") == 1


def test_stream_and_memory_choose_the_same_columns(tmp_path, capsys):
    f = tmp_path / "h.csv"
    f.write_text(
        "user,item,label,score\n" + "".join(f"{i % 3},{i},{i % 2},{(i * 37 % 11) / 11}\n" for i in range(60))
    )
    a = run(["eval", str(f), "-m", "roc,apr", "--format", "json"], capsys)
    b = run(["eval", str(f), "-m", "roc,apr", "--format", "json", "--stream"], capsys)
    assert a[0] == b[0] == 0
    assert json.loads(a[1])["measures"] == json.loads(b[1])["measures"]
    assert json.loads(b[1])["params"]["columns"] == {"target": "label", "score": "score"}


def test_plot_and_compare_use_the_same_rule(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    f = tmp_path / "h.csv"
    f.write_text(
        "id,label,old,new\n"
        + "".join(f"{i},{i % 2},{(i * 37 % 11) / 11},{(i * 7 % 13) / 13}\n" for i in range(40))
    )
    code, out, err = run(["compare", str(f), "--score", "old,new", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["baseline"] == "old" and "target 'label' (2)" in err
    code, out, err = run(["plot", "roc", str(f), "--score", "old,nwe", "-o", str(tmp_path / "r.png")], capsys)
    assert code == 2 and "did you mean 'new'" in err


def test_a_number_out_of_range_that_is_a_columns_name_says_positions_are_1_based():
    """pandas' default names 0, 1: `--target 0` is not a position; the message says which is."""
    from perfeval.exceptions import InvalidParameterError
    from perfeval.io.columns import pick

    with pytest.raises(InvalidParameterError) as e:
        pick(["0", "1"], "0", "target", "f.csv", header=True)
    assert str(e.value) == (
        "--target 0: f.csv has 2 columns (0, 1); a number is a 1-based position: the column named '0' is "
        "--target 1"
    )
    with pytest.raises(InvalidParameterError) as e:  # no such name: no hint
        pick(["a", "b"], "3", "score", "f.csv", header=True)
    assert str(e.value) == "--score 3: f.csv has 2 columns (a, b)"
