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
        if name == "t.jsonl":
            runs = runs[::2]  # JSON lines are read whole
        for argv in runs:
            code, out, err = run_cli(argv, capsys, stdin=path.read_bytes())
            source = "standard input" if "-" in argv else str(path)
            assert code == 1 and err.count("\n") == 1, (name, argv, err)
            assert f"{source}, {where}: the score column " in err and "finite" in err, (name, argv, err)
            assert "index" not in err
