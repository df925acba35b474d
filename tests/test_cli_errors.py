"""The command's other doors: missing extras, task files, the leaderboard, p-values, strict JSON, names."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from perfeval.cli.main import main


def _strict(text: str):
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_plot_without_matplotlib_says_how_to_install(tmp_path, capsys, monkeypatch):
    (tmp_path / "t.txt").write_text("1 0.9\n0 0.2\n")
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    for argv in (
        ["plot", "roc", str(tmp_path / "t.txt"), "-o", str(tmp_path / "r.png")],
        ["report", str(tmp_path / "t.txt"), "-o", str(tmp_path / "r.html")],
    ):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2 and "pip install 'perfeval[plot]'" in err and err.count("\n") == 1, err


def test_task_with_an_unknown_perf_option_fails_at_load(tmp_path, capsys):
    task = tmp_path / "t.toml"
    task.write_text(
        'name = "t"\nsubmission = "id-score"\nkey = "id-target"\n'
        '[[criteria]]\nname = "ROC"\nperf = ["-rocx"]\ndirection = "higher"\n'
    )
    (tmp_path / "k.txt").write_text("a 1\nb 0\n")
    (tmp_path / "s.txt").write_text("a 0.9\nb 0.1\n")
    code = main(["score", "--key", str(tmp_path / "k.txt"), "--task", str(task), str(tmp_path / "s.txt")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"{task}: criterion 'ROC': perf: ['-rocx'] is not a perf option list" in err and "-rocx" in err


def test_leaderboard_reading_never_creates(tmp_path, capsys):
    code = main(["leaderboard", "--key", str(tmp_path / "typo"), "--task", "kddcup2004-physics"])
    err = capsys.readouterr().err
    assert code == 1 and "typo: cannot be read" in err and not list(tmp_path.iterdir())
    (tmp_path / "k.txt").write_text("a 1\n")
    code = main(["leaderboard", "--key", str(tmp_path / "k.txt"), "--task", "kddcup2004-physics"])
    err = capsys.readouterr().err
    assert code == 1 and "no leaderboard at" in err
    assert [p.name for p in tmp_path.iterdir()] == ["k.txt"]


def test_tiny_p_values_are_not_printed_as_zero(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.integers(0, 2, n)
    good = y + rng.random(n) * 0.01
    bad = rng.random(n)
    (tmp_path / "t.csv").write_text(
        "label,good,bad\n"
        + "".join(f"{a},{float(b)!r},{float(c)!r}\n" for a, b, c in zip(y, good, bad, strict=False))
    )
    assert main(["compare", str(tmp_path / "t.csv"), "--score", "good,bad"]) == 0
    out = capsys.readouterr().out
    assert "<1e-300" in out and " 0\n" not in out
    assert main(["compare", str(tmp_path / "t.csv"), "--score", "good,bad", "--format", "json"]) == 0
    got = _strict(capsys.readouterr().out)
    assert got["comparisons"][0]["p_value"] == 0.0


def test_json_is_strict_with_the_reason_beside_a_null(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("1 1\n0 0.2\n0 1\n")  # a confident mistake: infinite log loss
    assert (
        main(["eval", str(tmp_path / "t.txt"), "-m", "logloss,roc,ppv:threshold=2", "--format", "json"]) == 0
    )
    got = _strict(capsys.readouterr().out)
    assert (
        got["measures"]["LOGLOSS"]["value"] is None and got["measures"]["LOGLOSS"]["why_null"] == "+infinity"
    )
    assert got["measures"]["PPV@2"]["value"] is None if "PPV@2" in got["measures"] else True
    nulls = [m for m in got["measures"].values() if m["value"] is None]
    assert all(m["why_null"] for m in nulls)


def test_group_ids_print_as_written(tmp_path, capsys):
    (tmp_path / "g.csv").write_text("g,label,score\n5,1,0.9\n5,0,0.1\n007,1,0.2\n007,0,0.8\n")
    assert main(["eval", str(tmp_path / "g.csv"), "--group", "g", "-m", "gauc", "--per-group"]) == 0
    out = capsys.readouterr().out
    assert "\n5 " in out and "\n007 " in out and "5.0" not in out
    (tmp_path / "h.csv").write_text("g,label,score\n5,1,0.9\n5,0,0.1\n7,1,0.2\n7,0,0.8\n")
    assert (
        main(
            ["eval", str(tmp_path / "h.csv"), "--group", "g", "-m", "gauc", "--per-group", "--format", "csv"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "\n5," in out and "\n7," in out and "5.0" not in out and "0.000000" not in out.split("group")[1][:3]
    )


def test_mathtext_column_names_are_drawn_literally(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    (tmp_path / "m.csv").write_text("label,$x$,a_b^c\\alpha\n1,0.9,0.8\n0,0.1,0.3\n1,0.7,0.2\n0,0.4,0.5\n")
    code = main(
        ["plot", "roc", str(tmp_path / "m.csv"), "--score", "$x$,a_b^c\\alpha", "-o", str(tmp_path / "m.png")]
    )
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "m.png").stat().st_size > 0


def test_a_multi_line_library_message_is_one_line(capsys, monkeypatch):
    import perfeval.cli.commands.eval as command
    from perfeval.exceptions import InputFormatError

    def boom(args):
        raise InputFormatError("first\nsecond", source="f")

    monkeypatch.setattr(command, "run", boom)
    assert main(["eval", "f"]) == 1
    assert capsys.readouterr().err == "perfeval: error: f: first second\n"


def test_competition_ids_are_text(tmp_path, capsys):
    (tmp_path / "k.txt").write_text("9007199254740992 1\n9007199254740993 0\n007 1\n7 0\n")
    (tmp_path / "s.txt").write_text("9007199254740993 0.1\n9007199254740992 0.9\n7 0.2\n007 0.8\n")
    (tmp_path / "d.txt").write_text("9007199254740992 0.9\n9007199254740992 0.1\n7 0.2\n007 0.8\n")
    argv = [
        "score",
        "--key",
        str(tmp_path / "k.txt"),
        "--task",
        "kddcup2004-physics",
        "--no-store",
        "--format",
        "json",
    ]
    assert main([*argv, str(tmp_path / "s.txt")]) == 0
    assert _strict(capsys.readouterr().out)[0]["scores"]["ROC"] == 1.0
    assert main([*argv, str(tmp_path / "d.txt")]) == 1
    err = capsys.readouterr().err
    assert "'9007199254740992' appears again" in err and "'9007199254740993'" in err


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("token", ["NA", "nan", "NULL", "None"])
def test_a_missing_target_is_an_error_naming_where_even_with_a_positive_label(
    tmp_path, capsys, token, stream
):
    """R writes NA, pandas NaN, SQL NULL, Excel #N/A: a missing target is neither class.  With
    --pos-label it was counted as a negative, silently; now it is one line naming the file and the
    line, whatever the label options, read whole or streamed (the same message)."""
    from perfeval.cli.main import main

    f = tmp_path / "t.csv"
    f.write_text(f"y,score\n1,0.3\n0,0.2\n{token},0.25\n1,0.9\n")
    extra = ["--stream"] if stream else []
    for labels in ([], ["--pos-label", "1"]):
        assert main(["eval", str(f), "-m", "roc", *labels, *extra]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert f"t.csv, line 4: the target column 'y' holds '{token}', a missing value" in err


def test_two_tables_whose_groups_differ_name_the_row_in_both(tmp_path, capsys):
    """compare of models in separate files: a group (or weight) that differs is one line naming the
    line in the second file, the values and the line in the first."""
    from perfeval.cli.main import main

    (tmp_path / "a.csv").write_text("y,s,g\n1,0.3,1\n0,0.2,1\n1,0.9,2\n0,0.1,2\n")
    (tmp_path / "b.csv").write_text("y,s,g\n1,0.3,1\n0,0.2,1\n1,0.9,3\n0,0.1,2\n")
    args = ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--score", "s", "--group", "g"]
    assert main([*args, "-m", "gauc"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "b.csv, line 4: the groups differ from" in err
    assert "3 here, 2 at line 4 of" in err


# -- targets that are not 0/1: what they look like, and what to do (issue 30) -------------------------
def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error(code, out, err, status=1):
    assert code == status and out == "" and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("extra", [[], ["--stream"]])
@pytest.mark.parametrize("measure", ["roc", "apr"])
def test_a_regression_target_is_said_to_be_one_not_offered_a_float_positive_label(
    tmp_path, capsys, extra, measure
):
    """House prices written by pandas: real values, each its own.  They were offered
    `--pos-label 177.8359230826602`; a binary measure asked of them is refused with a line that says
    they look like a regression target and names the regression measures (issue 33)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    price = rng.lognormal(5, 0.3, 500)
    pd.DataFrame({"price": price, "predicted": price * rng.normal(1, 0.1, 500)}).to_csv(
        tmp_path / "houses.csv", index=False
    )
    argv = ["eval", str(tmp_path / "houses.csv"), "--target", "price", "--score", "predicted", "-m", measure]
    err = _one_error(*_run([*argv, *extra], capsys))
    assert "the target column 'price' holds" in err and "real values (" in err
    assert "looks like a regression target" in err
    assert "the regression measures read it (-m mae,rmse,r2 or --task regression)" in err
    assert "--pos-label" not in err and "pos_label" not in err
    if not extra:  # read whole: the distinct values counted
        assert "holds 500 distinct real values (" in err


def test_real_targets_in_0_1_may_be_the_scores(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("y,p\n" + "".join(f"{i / 20 + 0.01},{i % 2}\n" for i in range(20)))
    err = _one_error(*_run(["eval", str(tmp_path / "t.csv"), "-m", "roc"], capsys))
    assert "holds 20 distinct real values in [0, 1] (0.01, 0.06, 0.11, ...)" in err
    assert "scores or probabilities rather than targets (is --target the score column?)" in err
    assert "--pos-label" not in err


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_three_classes_with_one_score_column_are_named_a_multiclass_problem(tmp_path, capsys, extra):
    names = ["setosa", "versicolor", "virginica"]
    (tmp_path / "iris.csv").write_text(
        "species,score\n" + "".join(f"{names[i % 3]},{(i * 7 % 10) / 10}\n" for i in range(30))
    )
    argv = ["eval", str(tmp_path / "iris.csv"), "--target", "species", "-m", "roc", *extra]
    err = _one_error(*_run(argv, capsys))
    assert (
        "iris.csv, line 2: the target column 'species' holds 'setosa', 'versicolor', 'virginica': 3 classes"
        in err
    )
    assert "the multiclass measures read one score column per class (--score COL_A,COL_B,... --classes" in err
    assert "the binary measures: --pos-label setosa evaluates 'setosa' against the other classes" in err
    assert "--partition NAME=LABEL,... several labels against the rest" in err
    # what it says to do works: one class against the rest
    code, out, err = _run([*argv, "--pos-label", "setosa"], capsys)
    assert code == 0 and out.startswith("measure"), err


def test_a_score_column_a_class_is_told_to_evaluate_one_class_a_command(tmp_path, capsys):
    names = ["setosa", "versicolor", "virginica"]
    (tmp_path / "iris.csv").write_text(
        "species,p_a,p_b,p_c\n" + "".join(f"{names[i % 3]},0.5,0.25,0.25\n" for i in range(9))
    )
    # eval evaluates K classes: told to name them (docs/input.md, "Multiclass")
    argv = ["eval", str(tmp_path / "iris.csv"), "-m", "roc", "--target", "species", "--score", "p_a,p_b,p_c"]
    err = _one_error(*_run(argv, capsys), status=2)  # the fix is an option: a usage error
    assert "name the classes in column order with --classes LABEL,... (or --score-prefix p_)" in err
    code, out, err = _run([*argv, "--classes", "setosa,versicolor,virginica"], capsys)
    assert code == 0 and out.startswith("measure"), err
    for command in (["report", "-o", str(tmp_path / "r.html")],):
        argv = [*command[:1], str(tmp_path / "iris.csv"), *command[1:], "--target", "species"]
        err = _one_error(*_run([*argv, "--score", "p_a,p_b,p_c"], capsys), status=2)
        # the report takes K classes too: told to name them, as eval is
        assert "name the classes in column order with --classes LABEL,... (or --score-prefix p_)" in err
    # two models of a 3-class target: not said to be a column a class
    err = _one_error(
        *_run(["eval", str(tmp_path / "iris.csv"), "--target", "species", "--score", "p_a,p_b"], capsys)
    )
    assert "3 classes" in err and "a score column a class" not in err


@pytest.mark.parametrize("extra", [[], ["--stream"]])
@pytest.mark.parametrize(
    "labels, offered",
    [
        (("no", "click"), "e.g. --pos-label click"),
        (("yes", "no"), "e.g. --pos-label yes"),
        (("False", "True"), "e.g. --pos-label True"),
        (("ham", "spam"), "e.g. --pos-label spam"),
        (("0", "2"), "e.g. --pos-label 2"),
        (("B", "M"), "name the positive label: --pos-label B or --pos-label M"),
        (("1", "2"), "name the positive label: --pos-label 1 or --pos-label 2"),
        (("not spam", "spam"), "e.g. --pos-label spam"),
        (("unsure", "not sure"), "--pos-label 'not sure' or --pos-label unsure"),
    ],
)
def test_the_positive_label_offered_looks_positive_never_negative(tmp_path, capsys, extra, labels, offered):
    """A click/no log was offered `--pos-label no` (the last label sorted): the one offered now looks
    positive (click, yes, true, spam, ...), never negative (no, false, 0, ...); between labels
    that say nothing (B/M, 1/2) both are offered; and it is quoted for the shell."""
    a, b = labels
    (tmp_path / "t.csv").write_text(f"y,p\n{a},0.3\n{b},0.8\n{a},0.2\n{b},0.6\n")
    err = _one_error(*_run(["eval", str(tmp_path / "t.csv"), "-m", "roc", *extra], capsys))
    assert "binary measures need 0/1 (or -1/1) targets" in err and offered in err, err
    for negative in ("no", "False", "ham", "0"):
        if negative in labels:
            assert f"--pos-label {negative}" not in err, err


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_graded_targets_are_not_offered_one_grade_as_the_positive_label(tmp_path, capsys, extra):
    """Grades 0..3 with -m ap,roc were offered `--pos-label 3` (grade 3 alone) and printed as
    0.0, 1.0, ...: now they are said to be graded relevance (or classes), --pos-label 3 is said to
    count grade 3 alone, and --partition names every grade above 0 positive."""
    f = tmp_path / "g.csv"
    f.write_text(
        "qid,rel,score\n" + "".join(f"{i // 10},{i * 7 % 4},{(i * 3 % 10) / 10}\n" for i in range(40))
    )
    err = _one_error(*_run(["eval", str(f), "-m", "ap,roc", *extra], capsys))
    assert "g.csv: the target column 'rel' holds 0, 1, 2, 3: graded relevance, 4 classes or a count" in err
    assert "4 classes or a count, not a binary target" in err
    assert "--pos-label 3 would count grade 3 alone as positive" in err
    assert "--partition relevant=1,2,3 counts every grade above 0 (as MAP reads them)" in err
    assert "the ranking measures (ndcg, map, ...) read the grades themselves" in err
    assert "0.0" not in err and "1.0" not in err
    # the option offered does what it says: grades 1, 2 and 3 positive
    code, out, err = _run(
        ["eval", str(f), "-m", "ap,roc", "--partition", "relevant=1,2,3", "--format", "json"], capsys
    )
    assert code == 0, err
    got = json.loads(out)["measures"]
    want = perfeval_evaluate_binary(f)
    assert got["AP[relevant]"]["value"] == want["AP"] and got["ROC[relevant]"]["value"] == want["ROC"]


def perfeval_evaluate_binary(f):
    import perfeval

    rows = [line.split(",") for line in f.read_text().splitlines()[1:]]
    y = np.array([float(r[1]) > 0 for r in rows], dtype=float)
    s = np.array([float(r[2]) for r in rows])
    r = perfeval.evaluate(y, s, measures=["ap", "roc"])
    return {"AP": r["AP"], "ROC": r["ROC"]}


@pytest.mark.parametrize(
    "command", [["explain", "--score", "s", "-m", "roc"], ["compare", "--score", "s,t", "-m", "roc"]]
)
def test_graded_targets_in_a_command_without_partition_are_told_to_code_the_column(tmp_path, capsys, command):
    f = tmp_path / "g.csv"
    f.write_text("rel,s,t\n0,0.1,0.2\n1,0.4,0.3\n2,0.5,0.9\n3,0.8,0.7\n")
    err = _one_error(*_run([command[0], str(f), *command[1:]], capsys))
    assert "holds 0, 1, 2, 3: graded relevance" in err and "--pos-label 3 would count grade 3 alone" in err
    assert "--partition" not in err
    assert "code the column 1 for every grade above 0 (as MAP reads them), 0 for the rest" in err


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--score", "s", "-m", "gauc"],
        ["eval", "--score", "s", "-m", "ndcg@10,map"],
        ["eval", "--score", "s", "-m", "gauc", "--stream"],
        ["compare", "--score", "s,t", "-m", "gauc"],
        ["explain", "--score", "s", "-m", "gauc"],
    ],
)
def test_click_no_labels_for_gauc_or_ndcg_are_offered_pos_label_click(tmp_path, capsys, command):
    """A click/no log with GAUC (or NDCG, MAP) and no --pos-label was "holds 'no', not a number":
    no word of --pos-label, which the binary measures offer for the same file."""
    f = tmp_path / "c.csv"
    f.write_text("user,label,s,t\n1,no,0.1,0.2\n1,click,0.4,0.3\n2,click,0.5,0.9\n2,no,0.8,0.7\n")
    argv = [command[0], str(f), "--target", "label", "--group", "user", *command[1:]]
    err = _one_error(*_run(argv, capsys))
    assert "c.csv, line 2: the target column 'label' holds 'click', 'no'" in err, err
    assert "name the positive label with --pos-label, e.g. --pos-label click" in err, err
    assert "not a number" not in err
    # a stray word among grades is still that value, not a set of labels
    f.write_text("user,label,s,t\n1,0,0.1,0.2\n1,2,0.4,0.3\n2,x,0.5,0.9\n2,1,0.8,0.7\n")
    err = _one_error(*_run(argv, capsys))
    assert "c.csv, line 4: the target column 'label' holds 'x', not a number" in err, err


def test_labels_named_by_pos_label_messages_are_whole_numbers_read_whole_or_streamed(tmp_path, capsys):
    """--pos-label's note and error list grades as 0, 1, 2 (not 0.0, 1.0; streamed, not '0', '1')."""
    f = tmp_path / "g.csv"
    f.write_text("y,p\n0,0.1\n1,0.3\n2,0.5\n3,0.9\n")
    for extra in ([], ["--stream"]):
        err = _one_error(*_run(["eval", str(f), "-m", "roc", "--pos-label", "9", *extra], capsys))
        assert "--pos-label 9: the target column 'y' holds no such label (labels: 0, 1, 2, 3)" in err
    code, out, err = _run(["eval", str(f), "-m", "roc", "--pos-label", "3"], capsys)
    assert code == 0 and "--pos-label 3: 3 other labels are negative (0, 1, 2)" in err, err


# -- issue 30: no row merged or dropped at the edges, by any command ----------------------------------
@pytest.mark.parametrize(
    "content, says",
    [
        (b"1 0.9\f0 0.1\f1 0.8\f0 0.3\n", "line 1: holds a form feed (\\f) at column 6"),  # was 'rows: 1'
        (b"1 0.9\v0 0.1\n1 0.8\v0 0.3\n", "line 1: holds a vertical tab (\\v) at column 6"),
        ("1 0.9\u20280 0.1\n".encode(), "line 1: holds a line separator (U+2028) at column 6"),
        (b"1 0.9 -\n0 0.1 5\n1 0.8 5\n0 0.3 6\n", "line 1: '1 0.9 -' may be a header or a row of data"),
    ],
)
@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "{f}", "-m", "roc"],
        ["eval", "{f}", "-m", "roc", "--stream"],
        ["eval", "-", "-m", "roc"],
        ["eval", "-", "-m", "roc", "--stream"],
        ["eval", "{f}", "--target", "1", "--score", "2", "--group", "3", "-m", "gauc"],
        ["plot", "roc", "{f}", "-o", "{d}/r.png"],
        ["report", "{f}", "-o", "{d}/r.html"],
        ["compare", "{f}", "{d}/copy.txt", "-m", "roc"],
    ],
)
def test_no_command_merges_rows_at_a_line_end_of_some_readers_or_drops_a_row_as_a_header(
    tmp_path, capsys, content, says, argv
):
    from conftest import run_cli

    path = tmp_path / "t.txt"
    path.write_bytes(content)
    (tmp_path / "copy.txt").write_bytes(content)
    args = [a.format(f=path, d=tmp_path) for a in argv]
    code, out, err = run_cli(args, capsys, stdin=content)
    where = "standard input" if "-" in args else str(path)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"{where}, {says}" in err, err


def test_the_line_of_an_infinite_score_is_right_in_every_format_and_path(tmp_path, capsys):
    """Issue 30: 'a wrong line number for an inf score': Parquet said 'line 4' for its row 3 in
    memory and gave the library's 0-based index, without the file, streamed.  Text formats name the
    line (comments, blank lines, CRLF, a quoted line break counted), Parquet the row, the same in
    memory, streamed and from standard input."""
    from conftest import run_cli

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    files = {
        "t.txt": ("# c\n1 0.9\n\n0 0.1\r\n1 inf\n0 0.3\n", "line 5"),
        "t.csv": ('y,p,n\n1,0.9,"a\nb"\n0,0.1,c\n1,1e400,d\n', "line 5"),
        "t.tsv": ("y\tp\n1\t0.9\n0\t-Infinity\n", "line 3"),
        "t.jsonl": ('{"y": 1, "p": 0.9}\n\n{"y": 0, "p": 1e400}\n', "line 3"),
    }
    for name, (text, _where) in files.items():
        (tmp_path / name).write_bytes(text.encode())
    pq.write_table(
        pa.table({"y": [1, 0, 1, 0], "p": [0.9, 0.1, float("inf"), 0.3]}),
        tmp_path / "t.parquet",
        row_group_size=2,
    )
    files["t.parquet"] = ("", "row 3")
    for name, (_, where) in files.items():
        path = tmp_path / name
        runs = [["eval", str(path), "-m", "roc"], ["eval", str(path), "-m", "roc", "--stream"]]
        if name != "t.parquet":
            runs.append(
                ["eval", "-", "-m", "roc", "--input-format", name.split(".")[1].replace("txt", "text")]
            )
        for argv in runs:
            code, out, err = run_cli(argv, capsys, stdin=path.read_bytes())
            source = "standard input" if "-" in argv else str(path)
            assert code == 1 and err.count("\n") == 1, (name, argv, err)
            assert f"{source}, {where}: the score column " in err and "finite" in err, (name, argv, err)
            assert "index" not in err


FAKE = "x, line 5: expected a number, found 'x'.txt"
SCORE = ["score", "--task", "kddcup2004-physics", "--no-store"]


@pytest.mark.parametrize(
    "argv, text, place",
    [
        (["eval", "{f}"], "1 0.9\n0 oops\n", "line 2"),
        (["perf-like", "{f}"], "1 0.9\n0 oops\n", "line 2, field 2"),
        ([*SCORE, "--key", "{k}", "{f}"], "e1 0.5\ne2\n", "line 2"),
        ([*SCORE, "--key", "{k}", "{f}"], "e1 0.5\n", None),
        ([*SCORE, "--key", "{f}", "{k}"], "e1 1\ne2 x\n", "line 2"),
    ],
    ids=["eval", "perf", "score-line", "score-file", "key"],
)
def test_a_file_name_that_reads_as_a_place_is_quoted(tmp_path, capsys, argv, text, place):
    # a name holding ", line 5: " could pass for a place in the message: it is quoted, as a whole
    (tmp_path / FAKE).write_text(text)
    (tmp_path / "k.txt").write_text("e1 1\ne2 0\n")
    f, k = str(tmp_path / FAKE), str(tmp_path / "k.txt")
    argv = [a.format(f=f, k=k) for a in argv]
    if argv[0] == "perf-like":
        from perfeval.classic.main import main as perf

        code = perf(["-roc", "-file", f])
        err = capsys.readouterr().err
        start = "Error: "
    else:
        code = main(argv)
        err = capsys.readouterr().err
        start = "perfeval: error: "
    first = err.splitlines()[0]
    assert code == 1 and first.startswith(start + repr(f) + (f", {place}: " if place else ": ")), err
    assert ", line 5: expected" not in first.replace(repr(f), "")
