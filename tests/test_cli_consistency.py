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
    assert main([*args, "-o", "csv", "--per-group"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(frame.columns) == ["group", "ROC", "APR"] and frame["ROC"].tolist() == [1.0, 0.0]
    out_file = tmp_path / "groups.csv"
    assert main([*args, "--per-group-output", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("measure") and f"perfeval: wrote {out_file}" in err
    assert pd.read_csv(out_file)["APR"].tolist() == [1.0, 0.5]
    assert main(["eval", str(p), "--target", "y", "--score", "s", "--per-group-output", str(out_file)]) == 2
    assert "--per-group-output needs --group" in capsys.readouterr().err
