"""One way to say things on the command line (issue 16): each rule a test."""

from __future__ import annotations

from perfeval.cli.main import main


def _file(tmp_path):
    p = tmp_path / "d.txt"
    p.write_text("1 0.9\n0 0.3\n1 0.6\n0 0.6\n")
    return str(p)


def test_no_command_prints_the_help_and_exits_2(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: perfeval")


def test_repeated_measures_add(tmp_path, capsys):
    assert main(["eval", _file(tmp_path), "-m", "roc", "-m", "apr,acc"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()[1:4]] == ["ROC", "APR", "ACC"]


def test_the_commands_default_measures_stay_when_m_is_not_given(tmp_path, capsys):
    p = tmp_path / "c.csv"
    p.write_text("y,a,b\n1,0.9,0.8\n0,0.5,0.7\n1,0.6,0.6\n0,0.1,0.5\n")
    assert main(["compare", str(p), "--target", "y", "--score", "a,b", "--n-boot", "20"]) == 0
    assert "ROC " in capsys.readouterr().out


def test_per_group_needs_a_group(tmp_path, capsys):
    assert main(["eval", _file(tmp_path), "-m", "roc", "--per-group"]) == 2
    assert "--per-group needs --group" in capsys.readouterr().err


def test_a_per_query_measure_without_group_says_the_table_is_one_query(tmp_path, capsys):
    assert main(["eval", _file(tmp_path), "-m", "ndcg@10,roc"]) == 0
    err = capsys.readouterr().err
    assert "no --group: NDCG@10 over the whole table as one query" in err and "ROC" not in err


def test_every_subcommand_help_has_a_description_and_examples(capsys):
    import pytest

    from perfeval.cli.main import COMMANDS

    for name in COMMANDS:
        with pytest.raises(SystemExit):
            from perfeval.cli.parser import build

            build().parse_args([name, "-h"])
        out = capsys.readouterr().out
        usage, _, rest = out.partition("\n\n")
        assert rest.strip() and not rest.lstrip().startswith(("positional", "options")), name  # a description
        assert "examples:\n  perfeval " in out, name


def test_plot_and_report_say_the_path_they_wrote(tmp_path, capsys):
    p = tmp_path / "m.csv"
    p.write_text("label,a\n" + "".join(f"{i % 2},{(i * 7 % 10) / 10}\n" for i in range(40)))
    out = tmp_path / "roc.png"
    assert main(["plot", "roc", str(p), "--target", "label", "--score", "a", "-o", str(out)]) == 0
    assert capsys.readouterr().err == f"perfeval: wrote {out}\n" and out.exists()


def test_per_group_csv_is_one_table_pandas_reads(tmp_path, capsys):
    import io

    pd = __import__("pytest").importorskip("pandas")
    p = tmp_path / "g.csv"
    p.write_text("g,y,s\n1,1,0.9\n1,0,0.2\n2,1,0.4\n2,0,0.6\n")
    args = ["eval", str(p), "--target", "y", "--score", "s", "--group", "g", "-m", "roc,apr"]
    assert main([*args, "--format", "csv", "--per-group"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(frame.columns) == ["group", "ROC", "APR"] and frame["ROC"].tolist() == [1.0, 0.0]
    out_file = tmp_path / "groups.csv"
    assert main([*args, "--per-group-output", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("measure") and f"perfeval: wrote {out_file}" in err
    assert pd.read_csv(out_file)["APR"].tolist() == [1.0, 0.5]
    assert main(["eval", str(p), "--target", "y", "--score", "s", "--per-group-output", str(out_file)]) == 2
    assert "--per-group-output needs --group" in capsys.readouterr().err


# -o/--output FILE and --format NAME, alike in every command


def test_output_file_and_format_from_its_extension(tmp_path, capsys):
    import json

    f = _file(tmp_path)
    for ext, check in (
        ("json", lambda t: json.loads(t)["measures"]["ROC"]["value"] == 0.875),
        ("csv", lambda t: t.splitlines()[0] == "measure,value" and t.splitlines()[1].startswith("ROC,")),
        ("txt", lambda t: t.splitlines()[0].split() == ["measure", "value"]),
    ):
        out = tmp_path / f"r.{ext}"
        assert main(["eval", f, "-m", "roc", "-o", str(out)]) == 0
        std = capsys.readouterr()
        assert std.out == "" and std.err == f"perfeval: wrote {out}\n"
        assert check(out.read_text())
    # --format says it whatever the name; standard output with -o - or without -o
    assert main(["eval", f, "-m", "roc", "-o", str(tmp_path / "r.out"), "--format", "json"]) == 0
    assert json.loads((tmp_path / "r.out").read_text())["measures"]["ROC"]["value"] == 0.875
    assert main(["eval", f, "-m", "roc", "--format", "csv", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("measure,value\n")


def test_every_text_command_takes_output_and_format(tmp_path, capsys):
    import json

    f = _file(tmp_path)
    two = tmp_path / "two.csv"
    two.write_text("y,a,b\n1,0.9,0.8\n0,0.5,0.7\n1,0.6,0.6\n0,0.1,0.5\n")
    for argv in (
        ["eval", f, "-m", "roc"],
        ["compare", str(two), "--target", "y", "--score", "a,b", "--n-boot", "20"],
        ["explain", f, "-m", "roc", "--dialects", "sklearn"],
    ):
        out = tmp_path / "x.json"
        assert main([*argv, "-o", str(out)]) == 0, argv
        json.loads(out.read_text())  # JSON, by the name
        out.unlink()
    assert main(["list-measures", "-o", str(tmp_path / "m.md")]) == 0
    assert (tmp_path / "m.md").read_text().startswith("# Measures")


def test_a_failing_command_leaves_no_file_and_keeps_an_old_one(tmp_path, capsys):
    f = _file(tmp_path)
    out = tmp_path / "r.csv"
    assert main(["eval", f, "-m", "nosuch", "-o", str(out)]) == 2
    assert not out.exists() and not list(tmp_path.glob(".perfeval-*"))
    out.write_text("old\n")
    assert main(["eval", f, "-m", "nosuch", "-o", str(out)]) == 2
    assert out.read_text() == "old\n"
    err = capsys.readouterr().err
    assert "unknown measure" in err and "wrote" not in err


def test_output_and_format_errors_are_one_line(tmp_path, capsys):
    f = _file(tmp_path)
    for argv, says in (
        (
            ["eval", f, "-o", str(tmp_path / "r.json"), "--format", "csv"],
            "is json by its name, --format says csv",
        ),
        (["eval", f, "--format", "parquet"], "the input table's format is --input-format parquet"),
        (["eval", f, "-o", str(tmp_path / "r.md")], "eval writes table, json, csv, not markdown"),
        (["eval", f, "-o", str(tmp_path / "nodir" / "r.txt")], "cannot write"),
        (
            ["plot", "roc", f, "-o", str(tmp_path / "r.jpg")],
            "expected a file name ending in .png or .svg or .pdf",
        ),
        (["report", f, "-o", str(tmp_path / "r.png")], "report writes html, not png"),
    ):
        assert main(argv) in (1, 2), argv
        err = capsys.readouterr().err
        assert err.startswith("perfeval: error: ") and len(err.splitlines()) == 1 and says in err, (argv, err)


def test_the_old_o_json_still_means_the_format_with_a_note(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    assert main(["eval", _file(tmp_path), "-m", "roc", "-o", "json"]) == 0
    std = capsys.readouterr()
    assert json.loads(std.out)["measures"]["ROC"]["value"] == 0.875
    assert "-o json names a format: it is --format json now" in std.err
    assert not (tmp_path / "json").exists()


def test_plot_format_by_name_or_option(tmp_path, capsys):
    import pytest

    pytest.importorskip("matplotlib")
    f = _file(tmp_path)
    assert main(["plot", "roc", f, "-o", str(tmp_path / "r.pdf")]) == 0
    assert (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"
    assert main(["plot", "roc", f, "-o", str(tmp_path / "r.img"), "--format", "svg"]) == 0
    assert b"<svg" in (tmp_path / "r.img").read_bytes()[:400]


def test_input_format_is_its_own_option(tmp_path, capsys):
    p = tmp_path / "data.dat"
    p.write_text("y,s\n1,0.9\n0,0.3\n1,0.6\n0,0.6\n")
    assert main(["eval", str(p), "--input-format", "csv", "--target", "y", "--score", "s", "-m", "roc"]) == 0
    assert "0.875" in capsys.readouterr().out
