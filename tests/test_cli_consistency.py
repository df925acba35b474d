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
