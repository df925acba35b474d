"""One way to say things on the command line (issue 16): each rule a test."""

from __future__ import annotations

import json
import os

import pytest

from conftest import run_cli
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


def test_a_spec_with_several_parameters_stays_whole_in_a_list(tmp_path, capsys):
    # a spec's params are separated by commas too: `cost:fp=5,fn=1,roc` is two measures
    assert main(["eval", _file(tmp_path), "-m", "cst:fp=5,fn=1,roc", "-m", "ndcg:gain=linear,k=2,roc"]) == 2
    assert "measure named twice: ROC" in capsys.readouterr().err
    assert main(["eval", _file(tmp_path), "-m", "cst:fp=5,fn=1,roc"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()[1:3]] == ["CST:fn=1,fp=5", "ROC"]


def test_a_parameter_with_no_measure_before_it_is_named(tmp_path, capsys):
    assert main(["eval", _file(tmp_path), "-m", "k=10,roc"]) == 2
    err = capsys.readouterr().err
    assert "'k=10' is a parameter with no measure before it" in err and len(err.splitlines()) == 1


def test_ir_measures_parentheses_are_one_measure_and_refused_by_name(tmp_path, capsys):
    assert main(["eval", _file(tmp_path), "-m", "SetF(rel=2,beta=4),roc"]) == 2
    assert "SetF(beta=x)" in capsys.readouterr().err  # the weighted F's own message, not 'beta=4)'
    assert main(["eval", _file(tmp_path), "-m", "P(rel=2)@5"]) == 2
    err = capsys.readouterr().err
    assert "'P(rel=2)@5': ir_measures' parameters in parentheses are not read here" in err
    assert "--level N" in err


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


def test_output_paths_are_quoted_in_messages_as_input_paths_are(tmp_path, capsys):
    """Issue 30: 'cannot write PATH' (and the other messages naming an output) left PATH as it is,
    where an input's name is quoted when it is not one plain word (a blank, a quote, a line break):
    'cannot write out put.txt (Is a directory)' read as two words of the message."""
    f = _file(tmp_path)
    folder = tmp_path / "a dir"
    folder.mkdir()
    (tmp_path / "k.txt").write_text("ev0 1\nev1 0\nev2 1\nev3 0\n")
    (tmp_path / "s.txt").write_text("ev0 0.9\nev1 0.2\nev2 0.7\nev3 0.1\n")
    score = [
        "score",
        "--key",
        str(tmp_path / "k.txt"),
        "--task",
        "kddcup2004-physics",
        str(tmp_path / "s.txt"),
    ]
    nodir = tmp_path / "no dir" / "r.txt"
    copy = str(tmp_path / "in put.txt")
    (tmp_path / "in put.txt").write_text(open(f).read())
    for argv, says in (
        (["eval", f, "-m", "roc", "-o", str(folder)], f"cannot write {str(folder)!r} (Is a directory)"),
        ([*score, "--no-store", "-o", str(folder)], f"cannot write {str(folder)!r} (Is a directory)"),
        (
            ["eval", f, "-m", "roc", "-o", str(nodir)],
            f"-o {str(nodir)!r}: cannot write it (no folder {str(nodir.parent)!r})",
        ),
        (["eval", copy, "-m", "roc", "-o", copy], f"-o {copy!r}: that is an input file"),
    ):
        code, out, err = run_cli(argv, capsys)
        assert code in (1, 2) and err.count("\n") == 1 and says in err, (argv, err)
    for name in ("o ut.txt", "o\nut.txt"):
        code, out, err = run_cli(["eval", f, "-m", "roc", "-o", str(tmp_path / name)], capsys)
        assert code == 0 and err == f"perfeval: wrote {str(tmp_path / name)!r}\n", err


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
            "expected a .png, .svg or .pdf file name",
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


# eval --score a,b,c: one table, a row a model


def _models_csv(tmp_path):
    import numpy as np

    rng = np.random.default_rng(7)
    n = 400
    y = rng.integers(0, 2, n)
    g = rng.integers(10**15, 10**15 + 6, n)  # 64-bit ids
    a = np.round(rng.random(n) * 0.6 + y * 0.3, 2)
    b = np.round(rng.random(n), 1)
    c = rng.random(n)
    p = tmp_path / "m.csv"
    lines = ["user,click,a,b,c"] + [f"{g[i]},{y[i]},{a[i]},{b[i]},{float(c[i])!r}" for i in range(n)]
    p.write_text("\n".join(lines) + "\n")
    return p, y, g, {"a": a, "b": b, "c": c}


def test_eval_several_scores_is_one_row_a_model_with_each_models_values(tmp_path, capsys):
    import json

    import perfeval

    p, y, g, models = _models_csv(tmp_path)
    argv = ["eval", str(p), "--target", "click", "--score", "a,b,c", "-m", "roc,apr,acc@0.7"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["model", "ROC", "APR", "ACC@0.7"]
    assert [line.split()[0] for line in out[1:4]] == ["a", "b", "c"]
    assert out[4].startswith("signature: ")
    assert main([*argv, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["models"]
    for name, s in models.items():
        want = perfeval.evaluate(y, s, measures=["roc", "apr", "acc@0.7"])
        for label in ("ROC", "APR", "ACC@0.7"):
            assert got[name]["measures"][label]["value"] == want.results[label].value
    assert main([*argv, "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "model,ROC,APR,ACC@0.7" and len(rows) == 4


def test_eval_several_scores_per_group_csv_is_one_long_table(tmp_path, capsys):
    import perfeval

    p, y, g, models = _models_csv(tmp_path)
    argv = ["eval", str(p), "--target", "click", "--score", "a,c", "--group", "user", "-m", "gauc"]
    out = tmp_path / "groups.csv"
    assert main([*argv, "--per-group-output", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "model,group,GAUC" and len(lines) == 1 + 2 * len(set(g.tolist()))
    want = perfeval.evaluate(y, models["c"], measures=["gauc"], groups=g)
    got = {line.split(",")[1]: float(line.split(",")[2]) for line in lines if line.startswith("c,")}
    for key, v in zip(want.groups, want.results["GAUC"].per_group, strict=True):
        assert abs(got[str(key)] - v) < 5e-7  # six decimals in the CSV; the group ids are exact integers


def test_eval_several_scores_refuses_what_it_cannot_do(tmp_path, capsys):
    p, *_ = _models_csv(tmp_path)
    for score, says in (("a,,b", "an empty column name"), ("a,a", "a column named twice"), ("a,zz", "zz")):
        assert main(["eval", str(p), "--target", "click", "--score", score, "-m", "roc"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("perfeval: error: ") and says in err, err


def test_threshold_shows_in_the_labels(tmp_path, capsys):
    f = _file(tmp_path)
    assert main(["eval", f, "-m", "acc,ppv@0.7,fbeta@2", "-t", "0.6"]) == 0
    labels = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:4]]
    assert labels == ["ACC@0.6", "PPV@0.7", "FBETA@2:threshold=0.6"]
    assert main(["eval", f, "-m", "acc"]) == 0  # the default threshold is not repeated in the label
    assert capsys.readouterr().out.splitlines()[1].split()[0] == "ACC"


# compare: N models against a baseline, joined by id, p-values corrected


def _three(tmp_path, rng_seed=3):
    import numpy as np

    rng = np.random.default_rng(rng_seed)
    n = 300
    y = rng.integers(0, 2, n)
    ids = rng.choice(np.arange(2**62, 2**62 + 10 * n), size=n, replace=False)  # 64-bit ids, beyond float
    s = {
        "base": np.round(rng.random(n) * 0.5 + y * 0.2, 2),
        "new": np.round(rng.random(n) * 0.5 + y * 0.35, 2),
        "newer": np.round(rng.random(n) * 0.5 + y * 0.25, 2),
    }
    return rng, y, ids, s


def test_compare_n_models_against_the_baseline_with_holm(tmp_path, capsys):
    import json

    import numpy as np

    from perfeval.stats import compare
    from perfeval.stats.paired import correct

    _rng, y, ids, s = _three(tmp_path)
    p = tmp_path / "all.csv"
    p.write_text(
        "id,y,base,new,newer\n"
        + "".join(f"{ids[i]},{y[i]},{s['base'][i]},{s['new'][i]},{s['newer'][i]}\n" for i in range(len(y)))
    )
    argv = [
        "compare",
        str(p),
        "--target",
        "y",
        "--score",
        "base,new,newer",
        "-m",
        "roc,apr",
        "--n-boot",
        "200",
    ]
    assert main([*argv, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["baseline"] == "base" and got["models"] == ["new", "newer"] and got["correction"] == "holm"
    rows = {(c["model"], c["measure"]): c for c in got["comparisons"]}
    want = {m: compare(y, s[m], s["base"], measures=["roc", "apr"], n_boot=200) for m in ("new", "newer")}
    for label in ("ROC", "APR"):
        raw = [want[m][label].p_value for m in ("new", "newer")]
        adjusted = correct(np.array(raw), method="holm")
        for m, adj in zip(("new", "newer"), adjusted, strict=True):
            c, w = rows[(m, label)], want[m][label]
            assert c["difference"] == w.difference == w.estimate_a - w.estimate_b
            assert (c["low"], c["high"], c["p_value"]) == (w.low, w.high, w.p_value)
            assert c["p_adjusted"] == adj >= c["p_value"]
    # the table says which is the baseline and how the p-values were corrected
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("baseline = base (each model is compared with it: model - baseline)")
    assert "p (holm)" in out.splitlines()[1] and "corrected over the 2 models compared" in out
    # another baseline, no correction
    assert main([*argv, "--baseline", "newer", "--correction", "none", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["models"] == ["base", "new"]
    assert all(c["p_adjusted"] == c["p_value"] for c in got["comparisons"])


def test_compare_separate_files_joined_by_id(tmp_path, capsys):
    import json

    rng, y, ids, s = _three(tmp_path)
    files = []
    for name, col in s.items():  # each file in its own order, ids as 64-bit integers
        order = rng.permutation(len(y))
        f = tmp_path / f"{name}.csv"
        f.write_text("doc,label,p\n" + "".join(f"{ids[i]},{y[i]},{col[i]}\n" for i in order))
        files.append(str(f))
    p = tmp_path / "all.csv"
    p.write_text(
        "y,base,new,newer\n"
        + "".join(f"{y[i]},{s['base'][i]},{s['new'][i]},{s['newer'][i]}\n" for i in range(len(y)))
    )
    common = ["-m", "roc,acc", "--n-boot", "100", "--format", "json"]
    assert main(["compare", *files, "--id", "doc", "--target", "label", "--score", "p", *common]) == 0
    joined = json.loads(capsys.readouterr().out)["comparisons"]
    assert main(["compare", str(p), "--target", "y", "--score", "base,new,newer", *common]) == 0
    one = json.loads(capsys.readouterr().out)["comparisons"]
    keys = ("measure", "baseline_value", "model_value", "difference", "p_value", "p_adjusted")
    assert [{k: c[k] for k in keys} for c in joined] == [{k: c[k] for k in keys} for c in one]
    assert [c["model"] for c in joined] == [files[1], files[1], files[2], files[2]]
    # without --id, files in different orders are refused, and the message says how to join them
    assert main(["compare", *files, "--target", "label", "--score", "p"]) == 1
    assert "--id COLUMN" in capsys.readouterr().err


def test_compare_join_errors_name_the_file_and_the_id(tmp_path, capsys):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    c = tmp_path / "c.csv"
    a.write_text("id,y,p\n9007199254740993,1,0.9\n2,0,0.1\n3,1,0.4\n")
    b.write_text("id,y,p\n2,0,0.3\n9007199254740993,1,0.8\n")  # a row short
    c.write_text("id,y,p\n3,1,0.3\n3,1,0.8\n2,0,0.5\n")  # an id twice
    for argv, says in (
        ([str(a), str(b)], "b.csv: has no row of id 3 (line 4 of"),
        ([str(a), str(c)], "c.csv, line 3: id 3 of column 'id' is on two rows"),
        ([str(a)], "--id joins several tables"),
        ([str(a), str(a)], "a table is named twice"),
    ):
        assert main(["compare", *argv, "--id", "id", "--target", "y", "--score", "p"]) in (1, 2), argv
        err = capsys.readouterr().err
        assert err.startswith("perfeval: error: ") and len(err.splitlines()) == 1 and says in err, (argv, err)
    b.write_text("id,y,p\n2,0,0.3\n9007199254740992,1,0.8\n3,1,0.2\n")  # 2**53: a float would merge them
    assert main(["compare", str(a), str(b), "--id", "id", "--target", "y", "--score", "p"]) == 1
    assert "has no row of id 9007199254740993" in capsys.readouterr().err
    assert main(["compare", str(a), "--target", "y", "--score", "p,p2", "--baseline", "zz"]) == 2
    d = tmp_path / "d.csv"
    d.write_text("ID,y,p\n2,0,0.3\n9007199254740993,1,0.8\n3,1,0.2\n")  # no column 'id' in the second file
    assert main(["compare", str(a), str(d), "--id", "id", "--target", "y", "--score", "p"]) == 2
    err = capsys.readouterr().err
    assert f"--id 'id': no such column in {d}" in err and "did you mean 'ID'?" in err, err


def test_compare_names_a_parquet_files_rows_not_lines(tmp_path, capsys):
    """Issue 30: compare said 'line 3' of a Parquet file, which has rows, not lines (eval says
    'row 3'); a text file beside it keeps its lines."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")

    def parquet(name, **cols):
        base = {"id": [1, 2, 3, 4], "y": [1, 0, 1, 0], "p": [0.9, 0.2, 0.8, 0.1], "g": [1, 1, 2, 2]}
        pd.DataFrame({**base, **cols}).to_parquet(tmp_path / name)
        return str(tmp_path / name)

    a = parquet("a.parquet")
    cases = [
        ([parquet("b.parquet", y=[1, 0, 0, 0])], [], "b.parquet, row 3: the target differs from", "(row 3)"),
        ([parquet("c.parquet", id=[1, 2, 2, 4])], ["--id", "id"], "c.parquet, row 3: id 2 of column", ""),
        (
            [parquet("d.parquet", id=[1, 2, 3, 5])],
            ["--id", "id"],
            "d.parquet: has no row of id 4 (row 4 of",
            "",
        ),
        (
            [parquet("e.parquet", g=[1, 1, 2, 3])],
            ["--group", "g"],
            "e.parquet, row 4: the groups",
            "at row 4 of",
        ),
        (
            [parquet("f.parquet", g=[1, 1, 2, 3])],
            ["--id", "id", "--group", "g"],
            "f.parquet, row 4:",
            "at row 4",
        ),
        ([parquet("h.parquet", u=[5, 6, 9, 8])], [], "h.parquet, row 3: column 'u' holds 9", "at row 3 of"),
    ]
    parquet("u.parquet", u=[5, 6, 7, 8])
    for files, extra, says, also in cases:
        first = str(tmp_path / "u.parquet") if "u" in pd.read_parquet(files[0]).columns else a
        code, out, err = run_cli(["compare", first, *files, "--target", "y", "--score", "p", *extra], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert says in err and also in err and "line" not in err, err
    pd.read_parquet(files[0]).to_csv(tmp_path / "h.csv", index=False)
    code, out, err = run_cli(
        ["compare", first, str(tmp_path / "h.csv"), "--target", "y", "--score", "p"], capsys
    )
    assert code == 1 and "h.csv, line 4: column 'u' holds 9 here and 7 at row 3 of" in err, err


def _sorted_by_label(tmp_path, n=400, seed=5):
    """Two files of the same cases, both sorted by label (so the targets agree row by row), one then
    by id, the other by its score: paired by position they compare different cases (break test)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    ids = rng.choice(np.arange(2**62, 2**62 + 10 * n), size=n, replace=False)
    a = np.round(rng.random(n) * 0.6 + y * 0.3, 3)
    b = np.round(rng.random(n) * 0.6 + y * 0.25, 3)
    oa = np.lexsort((ids, y))
    ob = np.lexsort((b, y))
    fa, fb = tmp_path / "sa.csv", tmp_path / "sb.csv"
    fa.write_text("id,label,p\n" + "".join(f"{ids[i]},{y[i]},{a[i]}\n" for i in oa))
    fb.write_text("id,label,p\n" + "".join(f"{ids[i]},{y[i]},{b[i]}\n" for i in ob))
    return fa, fb, y, ids, a, b, oa, ob


def test_compare_refuses_files_whose_shared_column_differs_row_by_row(tmp_path, capsys):
    import json

    import numpy as np
    import pytest

    from perfeval.stats import compare

    fa, fb, y, ids, a, b, oa, ob = _sorted_by_label(tmp_path)
    assert (y[oa] == y[ob]).all() and (ids[oa] != ids[ob]).any()  # only the targets agree
    base = ["compare", str(fa), str(fb), "-m", "roc", "--format", "json"]
    assert main(base) == 1
    err = capsys.readouterr().err
    i = int(np.argmax(ids[oa] != ids[ob]))
    assert len(err.splitlines()) == 1 and err.startswith(f"perfeval: error: {fb}, line {i + 2}: "), err
    assert f"column 'id' holds {ids[ob][i]} here and {ids[oa][i]} at line {i + 2} of {fa}" in err, err
    assert "join them by id: --id id" in err and "--by-position" in err
    # joined by id: the models on the same cases, as the library compares the aligned arrays
    assert main([*base, "--id", "id"]) == 0
    got = json.loads(capsys.readouterr().out)["comparisons"][0]
    want = compare(y, b, a, measures="roc", method="delong")["ROC"]
    assert got["p_value"] == pytest.approx(want.p_value, rel=1e-9, abs=1e-300)
    assert got["difference"] == pytest.approx(want.difference, abs=1e-15)
    # --by-position: the user says the rows pair as they are; the positional number, as before
    assert main([*base, "--by-position"]) == 0
    got = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert got["p_value"] == pytest.approx(
        compare(y[oa], b[ob], a[oa], measures="roc", method="delong")["ROC"].p_value, rel=1e-9
    )


def test_compare_checks_shared_columns_exactly_and_only_shared_ones(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    args = ["compare", str(a), str(b), "-m", "roc"]

    def refused(text_a: str, text_b: str, *says: str) -> None:
        a.write_text(text_a)
        b.write_text(text_b)
        assert main(args) == 1
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and all(s in err for s in says), err

    def accepted(text_a: str, text_b: str) -> None:
        a.write_text(text_a)
        b.write_text(text_b)
        code = main(args)
        assert code == 0, capsys.readouterr().err
        capsys.readouterr()

    # ids a float would merge (2^53 + 1 and 2^53) are two ids
    refused(
        "id,y,p\n9007199254740993,1,0.9\n2,0,0.1\n3,1,0.4\n",
        "id,y,p\n9007199254740992,1,0.8\n2,0,0.3\n3,1,0.2\n",
        "b.csv, line 2: column 'id' holds 9007199254740992 here and 9007199254740993 at line 2 of",
    )
    # text ids, in another column order
    refused(
        "user,y,p\nann,1,0.9\nbob,1,0.1\ncid,0,0.4\n",
        "p,y,user\n0.8,1,bob\n0.3,1,ann\n0.2,0,cid\n",
        "b.csv, line 2: column 'user' holds 'bob' here and 'ann' at line 2 of",
        "--id user",
    )
    # a column that repeats (a query): no column is offered as the id
    refused(
        "q,y,p\n1,1,0.9\n1,0,0.1\n2,1,0.4\n2,0,0.5\n",
        "q,y,p\n2,1,0.8\n1,0,0.3\n1,1,0.2\n2,0,0.5\n",
        "column 'q' holds 2 here and 1 at line 2",
        "--id COLUMN (a column naming each case once)",
    )
    # as the group (--group q), it is the groups that differ, and --by-position does not pass them
    for extra in ([], ["--by-position"]):
        assert main([*args, "--group", "q", "-m", "gauc", *extra]) == 1
        err = capsys.readouterr().err
        assert "b.csv, line 2: the groups differ from" in err and "--id COLUMN joins them" in err, err
    # the same cases in the same order: a shared id, and a feature written two ways (0.5, 0.50)
    accepted(
        "id,x,y,p\n7,0.5,1,0.9\n8,1e3,0,0.1\n9,2,1,0.4\n10,3,0,0.5\n",
        "id,x,y,p\n7,0.50,1,0.8\n8,1000,0,0.3\n9,2.0,1,0.2\n10,3,0,0.1\n",
    )
    # a column only one file has, and headerless files (no names to share): paired as before
    accepted("id,y,p\n7,1,0.9\n8,0,0.1\n9,1,0.4\n6,0,0.5\n", "y,p\n1,0.8\n0,0.3\n1,0.2\n0,0.1\n")
    accepted("1,0.9,7\n0,0.1,8\n1,0.4,9\n0,0.5,6\n", "1,0.8,9\n0,0.3,8\n1,0.2,7\n0,0.1,6\n")
    # a column of each model's own (its rank): refused unless --by-position says so
    refused(
        "y,p,rank\n1,0.9,1\n0,0.1,4\n1,0.4,3\n0,0.5,2\n",
        "y,p,rank\n1,0.2,3\n0,0.3,2\n1,0.8,1\n0,0.1,4\n",
        "column 'rank' holds 3 here and 1 at line 2",
    )
    assert main([*args, "--by-position"]) == 0
    capsys.readouterr()
    for argv, says in (
        ([*args, "--by-position", "--id", "y"], "--by-position and --id"),
        (["compare", str(a), "--score", "p,rank", "--by-position"], "--by-position pairs several tables"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and says in err, err


def test_compare_checks_shared_columns_of_json_lines(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": 9007199254740993, "y": 1, "p": 0.9}\n{"id": 2, "y": 0, "p": 0.1}\n')
    b.write_text('{"id": 9007199254740992, "y": 1, "p": 0.8}\n{"id": 2, "y": 0, "p": 0.3}\n')
    assert main(["compare", str(a), str(b), "-m", "roc"]) == 1
    err = capsys.readouterr().err
    assert "b.jsonl, line 1: column 'id' holds 9007199254740992 here and 9007199254740993" in err, err


def test_sample_lists_writes_and_locates_the_shipped_files(tmp_path, capsys):
    from perfeval.cli.commands.sample import SAMPLES, path

    assert main(["sample"]) == 0
    listed = capsys.readouterr().out
    for name in SAMPLES:
        assert name in listed
        assert os.path.isfile(path(name)), name  # shipped in the package
    out = tmp_path / "c.csv"
    assert main(["sample", "clicks.csv", "-o", str(out)]) == 0
    assert out.read_bytes() == open(path("clicks.csv"), "rb").read()
    assert out.read_text().startswith("user,item,click,grade,model_a,model_b\n")
    assert main(["sample", "--path", "testperfdata"]) == 0
    assert capsys.readouterr().out.strip() == path("testperfdata")
    assert main(["sample", "nope"]) == 2
    assert "no sample 'nope'" in capsys.readouterr().err


def test_the_samples_hold_the_cases_their_descriptions_count():
    import re

    from perfeval.cli.commands.sample import SAMPLES, path

    counted = 0
    for name, what in SAMPLES.items():
        said = re.search(r"([0-9][0-9,]*) (?:cases|impressions)", what)
        if said is None:
            continue
        counted += 1
        with open(path(name), "rb") as fh:
            lines = [ln for ln in fh.read().splitlines() if ln.strip()]
        rows = len(lines) - (name.endswith(".csv"))  # a CSV's header is no case
        assert rows == int(said.group(1).replace(",", "")), (name, rows, what)
    assert counted == 4


def test_the_clicks_sample_is_what_its_script_writes(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    script = (root / "docs" / "examples" / "make_clicks.py").read_text()
    fake = tmp_path / "docs" / "examples"
    fake.mkdir(parents=True)
    (tmp_path / "src" / "perfeval" / "data").mkdir(parents=True)
    (fake / "make_clicks.py").write_text(script)
    subprocess.run([sys.executable, str(fake / "make_clicks.py")], check=True, capture_output=True)
    got = (tmp_path / "src" / "perfeval" / "data" / "clicks.csv").read_bytes()
    assert got == (root / "src" / "perfeval" / "data" / "clicks.csv").read_bytes()


# what a tester found trying the front door (each a rule now)


def test_outputs_are_checked_before_any_work(tmp_path, capsys):
    f = _file(tmp_path)
    copy = tmp_path / "copy.txt"
    copy.write_text(open(f).read())
    for argv, says in (
        (["plot", "roc", f, "-o", "png"], "plot writes a file; give its name"),
        (["report", f, "-o", "-"], "report writes a file; give its name"),
        (["eval", str(copy), "-o", str(copy)], "that is an input file"),
        (["report", f, "-o", str(tmp_path / "nodir" / "r.html")], "no folder"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("perfeval: error: ") and says in err, (argv, err)
    assert copy.read_text() == open(f).read()  # the input is untouched
    g = tmp_path / "g.csv"
    g.write_text("g,y,s\n1,1,0.9\n1,0,0.2\n2,1,0.4\n2,0,0.6\n")
    base = ["eval", str(g), "--target", "y", "--score", "s", "--group", "g", "-m", "roc"]
    for extra, says in (
        (["--per-group-output", "-"], "standard output holds the summary"),
        (["--per-group-output", str(tmp_path / "x.csv"), "-o", str(tmp_path / "x.csv")], "writes that file"),
        (["--per-group-output", str(tmp_path / "pg.json")], "it writes CSV"),
    ):
        assert main([*base, *extra]) == 2, extra
        assert says in capsys.readouterr().err, extra


def test_score_repeated_adds_models_and_compare_takes_ci(tmp_path, capsys):
    p, *_ = _models_csv(tmp_path)
    assert main(["eval", str(p), "--target", "click", "--score", "a", "--score", "b", "-m", "roc"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:3]] == ["a", "b"]
    argv = [
        "compare",
        str(p),
        "--target",
        "click",
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "roc",
        "--ci",
        "0.9",
    ]
    assert main(argv) == 0
    assert "90% low" in capsys.readouterr().out


def test_compare_says_why_an_infinite_difference_has_no_p_value_and_weights_take_the_bootstrap(
    tmp_path, capsys
):
    import json

    p = tmp_path / "ll.csv"
    p.write_text(
        "y,a,b,w\n1,0.9,0.8,1.5\n0,0.2,0.0,2\n1,0.0,0.6,1\n0,0.6,0.3,0.5\n1,0.7,0.9,1\n0,0.1,0.2,1\n"
    )
    argv = ["compare", str(p), "--target", "y", "--score", "a,b", "--n-boot", "50", "--format", "json"]
    assert main([*argv, "-m", "logloss"]) == 0
    std = capsys.readouterr()
    c = json.loads(std.out)["comparisons"][0]
    assert c["baseline_value"] is None and c["p_value"] is None  # infinite, and no p-value beside it
    assert "LOGLOSS: the value of model a is infinite" in std.err
    assert main([*argv, "-m", "roc", "--weight", "w"]) == 0  # DeLong reads weights as counts: not by default
    assert json.loads(capsys.readouterr().out)["comparisons"][0]["method"] == "bca"


def test_labels_read_in_a_way_not_asked_for_are_said(tmp_path, capsys):
    g = tmp_path / "g.csv"
    g.write_text("u,grade,s\n1,2,0.9\n1,0,0.2\n1,1,0.5\n2,3,0.4\n2,0,0.6\n")
    assert main(["eval", str(g), "--target", "grade", "--score", "s", "--group", "u", "-m", "gauc"]) == 0
    assert (
        "GAUC read the target 'grade' (0, 1, 2, 3) as positive where it is above 0" in capsys.readouterr().err
    )
    y = tmp_path / "y.csv"
    y.write_text("y,s\nyes,0.9\nno,0.2\nYes,0.5\nyes,0.4\nno,0.3\n")
    assert main(["eval", str(y), "--target", "y", "--score", "s", "--pos-label", "yes", "-m", "roc"]) == 0
    assert "--pos-label yes: 2 other labels are negative ('Yes', 'no')" in capsys.readouterr().err
    # on Dask too (it used to refuse --pos-label): the same note
    assert (
        main(["eval", str(y), "--target", "y", "--score", "s", "--pos-label", "yes", "--dask", "local:1"])
        == 0
    )
    assert "--pos-label yes: 2 other labels are negative ('Yes', 'no')" in capsys.readouterr().err


def test_report_lookup_and_spec_hints():
    import pytest

    import perfeval
    from perfeval.exceptions import InvalidParameterError

    r = perfeval.evaluate([1, 0, 1, 0], [0.9, 0.5, 0.6, 0.1], measures=["acc", "acc@0.7"])
    assert r["ACC@0.5"] == r["ACC"] and r["acc@0.7"] == r["ACC@0.7"]
    r = perfeval.evaluate([1, 0, 1, 0], [0.9, 0.5, 0.6, 0.1], measures=["acc@0.7"])
    with pytest.raises(KeyError, match="the report holds ACC@0.7"):
        r["acc"]
    with pytest.raises(InvalidParameterError, match="separated by commas, e.g. fbeta:beta=2,threshold=0.3"):
        perfeval.evaluate([1, 0], [0.9, 0.1], measures=["fbeta:beta=2:threshold=0.3"])


def test_baseline_by_file_name_and_sample_path_needs_a_name(tmp_path, capsys):
    d = tmp_path / "runs"
    d.mkdir()
    (d / "a.csv").write_text("y,p\n1,0.9\n0,0.1\n1,0.4\n0,0.3\n1,0.8\n0,0.2\n")
    (d / "b.csv").write_text("y,p\n1,0.7\n0,0.3\n1,0.5\n0,0.6\n1,0.2\n0,0.1\n")
    argv = ["compare", str(d / "a.csv"), str(d / "b.csv"), "--target", "y", "--score", "p", "--n-boot", "20"]
    assert main([*argv, "-m", "acc", "--baseline", "b.csv"]) == 0
    assert capsys.readouterr().out.startswith(f"baseline = {d / 'b.csv'}")
    assert main(["sample", "--path"]) == 2
    assert "--path needs a sample's NAME" in capsys.readouterr().err


def test_several_models_with_tie_bounds_give_each_models_share_of_tied_pairs(tmp_path, capsys):
    import perfeval

    p, y, _g, models = _models_csv(tmp_path)
    assert main(["eval", str(p), "--target", "click", "--score", "a,b", "-m", "roc", "--tie-bounds"]) == 0
    out = capsys.readouterr().out
    for name in ("a", "b"):
        r = perfeval.evaluate(y, models[name], measures=["roc"], tie_bounds=True)
        assert f"{name} {r.tied_pairs * 100:.4g}%" in out


def test_a_bad_weight_is_named_with_its_line_and_csv_numbers_are_full(tmp_path, capsys):
    p = tmp_path / "w.csv"
    p.write_text("y,s,w\n1,0.9,1\n0,0.2,-1\n1,0.5,2\n")
    assert main(["eval", str(p), "--target", "y", "--score", "s", "--weight", "w", "-m", "roc"]) == 1
    assert capsys.readouterr().err == (
        f"perfeval: error: {p}, line 3: the weight column 'w' holds -1; weights must be finite numbers >= 0\n"
    )
    q = tmp_path / "q.csv"
    q.write_text("y,s\n1,0.9\n0,0.2\n1,0.5\n0,0.7\n1,0.3\n0,0.1\n")
    assert main(["eval", str(q), "--target", "y", "--score", "s", "-m", "roc", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"ROC,{7 / 9!r}"  # reads back to the same double


def test_perfeval_eval_reads_every_shipped_perf_sample_as_perf_does(capsys):
    """PERF's own files end each line with a tab: white space text, not a TSV with an empty column."""
    from perfeval.classic.main import main as perf_main
    from perfeval.cli.commands.sample import path

    for name in ("testperfdata", "phy_perf_sample_test.dat", "badtestperfdata"):
        assert main(["eval", path(name), "-m", "roc"]) == 0, name
        ours = float(capsys.readouterr().out.splitlines()[1].split()[1])
        import io
        import sys

        stdin, sys.stdin = sys.stdin, io.TextIOWrapper(io.BytesIO(open(path(name), "rb").read()))
        try:
            perf_main(["-roc"])
        finally:
            sys.stdin = stdin
        printed = capsys.readouterr().out.split()
        assert abs(ours - float(printed[printed.index("ROC") + 1])) < 5e-6, name  # PERF prints 5 decimals


def test_format_takes_the_extensions_names_too(tmp_path, capsys):
    f = _file(tmp_path)
    assert main(["list-measures", "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# Measures")
    assert main(["eval", f, "-m", "roc", "--format", "txt"]) == 0
    assert capsys.readouterr().out.startswith("measure")


def test_the_positive_label_is_in_the_reports_parameters_and_signature(tmp_path, capsys):
    # the CLI codes the labels itself: its JSON said "pos_label": null and its signature nothing
    import json

    words, numbers = tmp_path / "w.csv", tmp_path / "n.csv"
    words.write_text("y,s\nyes,0.9\nno,0.8\nyes,0.3\nno,0.2\n")
    numbers.write_text("y,s\n2,0.9\n1,0.8\n2,0.3\n1,0.2\n")
    for f, typed, label, sig in (
        (words, "yes", "yes", "pos:'yes'"),
        (numbers, "2", 2, "pos:2|"),
        (numbers, "2.0", 2.0, "pos:2.0|"),
    ):
        for extra in ([], ["--stream"]):
            argv = ["eval", str(f), "--score", "s", "--pos-label", typed, "-m", "roc", "--format", "json"]
            assert main(argv + extra) == 0
            out = json.loads(capsys.readouterr().out)
            assert out["params"]["pos_label"] == label and type(out["params"]["pos_label"]) is type(label)
            assert sig in out["signature"], (typed, extra, out["signature"])
    c = tmp_path / "c.csv"
    c.write_text("y,a,b\n2,0.9,0.8\n1,0.8,0.5\n2,0.3,0.4\n1,0.2,0.1\n2,0.5,0.6\n")
    assert main(["compare", str(c), "--target", "y", "--score", "a,b", "--pos-label", "2", "-m", "roc"]) == 0
    assert "|pos:2|" in capsys.readouterr().out


def test_a_negative_relevance_is_named_by_its_line_in_memory_and_streamed(tmp_path, capsys):
    f = tmp_path / "neg.csv"
    f.write_text("q,rel,s\n1,0,0.9\n1,1,0.5\n2,-1,0.4\n2,2,0.3\n")
    base = ["eval", str(f), "--target", "rel", "--score", "s", "--group", "q"]
    for m, extra, where in (
        ("map,ndcg", [], "line 4"),
        ("gauc", [], "line 4"),
        ("map,ndcg", ["--stream"], "line 4"),  # streamed: the line too, as read whole
        ("gauc", ["--stream"], "line 4"),
    ):
        assert main(base + ["-m", m] + extra) == 1
        err = capsys.readouterr().err
        assert f"{f}, {where}: " in err, err
        assert "the target column 'rel' holds -1.0" in err and "--pos-label 1" in err
        assert len(err.strip().splitlines()) == 1
    # -1/1 labels with --pos-label 1 are labels, not grades
    assert main(base + ["-m", "gauc", "--pos-label", "1"]) == 0


def test_an_output_name_of_a_format_not_written_is_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "out.xlsx"
    assert main(["eval", _file(tmp_path), "-m", "roc", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert ".xlsx is not a format eval writes" in err and "--format NAME" in err and not out.exists()
    assert main(["eval", _file(tmp_path), "-m", "roc", "-o", str(out), "--format", "csv"]) == 0
    assert out.read_text().startswith("measure,value")
    plain = tmp_path / "results"  # no extension: the command's own format
    assert main(["eval", _file(tmp_path), "-m", "roc", "-o", str(plain)]) == 0
    assert plain.read_text().startswith("measure")


def test_messages_speak_the_command_lines_words_and_name_the_line(tmp_path, capsys):
    f = tmp_path / "w.csv"
    f.write_text("y,s,w\n1,0.9,1\n0,0.8,1\n1,0.3,0.5\n0,0.2,1\n")
    for argv in (
        ["eval", str(f), "--score", "s", "-m", "gauc"],
        ["eval", str(f), "--score", "s", "-m", "gauc", "--ci", "0.9", "--n-boot", "20"],
        ["compare", str(f), "--score", "s,w", "-m", "gauc", "--n-boot", "20"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "GAUC is computed over groups: give --group COLUMN" in err and "groups=" not in err, argv
    assert main(["eval", str(f), "--score", "s", "--weight", "w", "-m", "roc,apr"]) == 1
    err = capsys.readouterr().err
    assert f"{f}, line 4: APR reads weights as counts of cases (whole numbers)" in err and "holds 0.5" in err
    # report says it as eval does (its default measures hold APR and CA2), before any work
    html = tmp_path / "r.html"
    for measures in ([], ["-m", "roc,ca2"]):
        assert main(["report", str(f), "--score", "s", "--weight", "w", "-o", str(html), *measures]) == 1
        err = capsys.readouterr().err
        name = "CA2" if measures else "APR"
        assert f"{f}, line 4: {name} reads weights as counts of cases (whole numbers)" in err, err
        assert "holds 0.5" in err and not html.exists()
    assert main(["report", str(f), "--score", "s", "--weight", "w", "-m", "roc", "-o", str(html)]) == 0


def test_an_infinite_log_loss_says_which_cases_make_it(tmp_path, capsys):
    f = tmp_path / "ll.csv"
    f.write_text("y,s\n1,0.9\n0,1.0\n1,0.3\n0,0.2\n1,0\n")
    assert main(["eval", str(f), "--score", "s", "-m", "logloss,cxe,roc"]) == 0
    captured = capsys.readouterr()
    assert "LOGLOSS       inf" in captured.out
    assert "LOGLOSS and CXE are infinite: 2 cases give their own class a probability of 0" in captured.err
    assert "the first on line 3" in captured.err
    f.write_text("y,s\n1,0.9\n0,0.5\n1,0.3\n0,0.2\n")
    assert main(["eval", str(f), "--score", "s", "-m", "logloss"]) == 0
    assert "infinite" not in capsys.readouterr().err


def test_scores_outside_0_1_read_as_probabilities_are_said(tmp_path, capsys):
    f = tmp_path / "oo.csv"
    f.write_text("y,s\n1,9.0\n0,1.0\n1,0.3\n0,-0.2\n")
    assert main(["eval", str(f), "--score", "s", "-m", "roc,brier,logloss"]) == 0
    err = capsys.readouterr().err
    assert (
        "BRIER, LOGLOSS read the scores as probabilities, but 2 are outside [0, 1], the first on line 2 (9.0)"
        in err
    )
    assert main(["eval", str(f), "--score", "s", "-m", "roc"]) == 0  # a ranking measure: any scores
    assert "outside" not in capsys.readouterr().err


def test_a_decimal_comma_gets_a_hint(tmp_path, capsys):
    f = tmp_path / "dc.csv"
    f.write_text("y;s\n1;0,9\n0;0,2\n")
    for extra in ([], ["--stream"]):
        assert main(["eval", str(f), "--score", "s", "-m", "roc", *extra]) == 1
        err = capsys.readouterr().err
        assert "line 2: " in err and "holds '0,9', not a number (a decimal comma?" in err
        assert len(err.strip().splitlines()) == 1


# -- the same error read whole, streamed and on Dask; the options in the command's words -------------
def _both(path, argv, capsys):
    """The command's (status, stdout, stderr) on ``path`` read whole and streamed."""
    return [run_cli(["eval", str(path), *argv, *extra], capsys) for extra in ([], ["--stream"])]


@pytest.mark.parametrize(
    "text, argv, expected",
    [
        # string labels: the labels, --pos-label, the file and the line of the first one
        (
            "y,p\nno,0.3\nclick,0.8\nno,0.2\n",
            [],
            "t.csv, line 2: the target column 'y' holds 'click', 'no': binary measures need 0/1 (or -1/1) "
            "targets; name the positive label with --pos-label, e.g. --pos-label click",
        ),
        # labels that are numbers but not a coding: no one line to blame, the same message
        (
            "y,p\n1,0.3\n2,0.8\n1,0.2\n",
            [],
            "t.csv: the target column 'y' holds 1, 2: binary measures need 0/1 (or -1/1) targets; name the "
            "positive label: --pos-label 1 or --pos-label 2",
        ),
        # a missing target on line 4, a bad score on line 5: line 4 both ways (it used to be 5 in memory)
        (
            "y,p\n1.0,0.9\n0.0,0.2\nNA,0.5\n1.0,NA\n0,0.1\n",
            [],
            "t.csv, line 4: the target column 'y' holds 'NA', a missing value",
        ),
        # a bad score on line 3, a missing target on line 5: line 3 both ways (it used to be 5 streamed)
        (
            "y,p\n1,0.9\n0,abc\n1,0.5\nNA,0.4\n",
            [],
            "t.csv, line 3: the score column 'p' holds 'abc', not a number",
        ),
        # two bad fields on one line: the target's both ways
        ("y,p\n1,0.9\nNA,abc\n0,0.4\n", [], "t.csv, line 3: the target column 'y' holds 'NA'"),
        # a NaN score, a negative weight: the line and the column (streamed: the library's index before)
        ("y,p\n1,0.9\n0,nan\n1,0.5\n", [], "t.csv, line 3: the score column 'p' holds nan;"),
        (
            "y,p,w\n1,0.9,1\n0,0.3,2\n1,0.5,-1\n",
            ["--weight", "w"],
            "t.csv, line 4: the weight column 'w' holds -1; weights must be finite numbers >= 0",
        ),
    ],
)
def test_a_bad_file_gives_the_same_error_read_whole_and_streamed(tmp_path, capsys, text, argv, expected):
    f = tmp_path / "t.csv"
    f.write_text(text)
    got = _both(f, ["-m", "roc", *argv], capsys)
    for code, out, err in got:
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert expected in err, err
        assert "pos_label=" not in err and "`y_" not in err and "index" not in err
    assert got[0][2] == got[1][2].replace("the rows without one", "the 1 row without one")


def test_a_streamed_file_whose_chunks_hold_0_1_and_minus_1_1_is_not_a_coding(tmp_path):
    """Chunk by chunk each coding looks right; the file's labels are -1, 0 and 1: an error, as in memory."""
    from perfeval.cli.load import ChunkChecks
    from perfeval.exceptions import InputFormatError
    from perfeval.io.columns import choose
    from perfeval.io.readers import iter_columns

    f = tmp_path / "t.csv"
    f.write_text("y,p\n" + "1,0.5\n0,0.25\n" * 20 + "-1,0.75\n1,0.5\n" * 20)
    chosen: list = []

    def chooser(names, header):
        chosen.append(choose(names, str(f), header=header))
        return [chosen[0].target.index, chosen[0].score.index, None, None]

    checks = ChunkChecks(chosen, None, True, [])
    with pytest.raises(
        InputFormatError, match=r"t.csv: the target column 'y' holds -1, 0, 1: 3 classes or more"
    ):
        list(iter_columns(str(f), chooser, chunk_bytes=64, convert=checks))
    assert main(["eval", str(f), "-m", "roc"]) == 1  # read whole: the same labels


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--method", "delong", "--ci", "0.9", "-m", "apr"], "use --method bca or --method percentile"),
        (
            ["--method", "delong", "--ci", "0.9", "-m", "roc", "--group", "g"],
            "use --method bca or --method percentile",
        ),
        (
            ["--method", "bca", "--ci", "0.9", "-m", "apr", "--stream"],
            "use --method percentile (or drop --stream",
        ),
        (["--n-boot", "1", "--ci", "0.9", "-m", "roc"], "got --n-boot 1"),
    ],
)
def test_interval_errors_name_the_options_not_the_librarys_arguments(tmp_path, capsys, argv, expected):
    f = tmp_path / "t.csv"
    f.write_text(
        "y,p,q,g\n" + "".join(f"{i % 2},{(i * 7 % 10) / 10},{(i * 3 % 10) / 10},{i % 3}\n" for i in range(30))
    )
    code, out, err = run_cli(["eval", str(f), "--score", "p", *argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert expected in err and "method=" not in err and "n_boot=" not in err, err
    code, out, err = run_cli(["compare", str(f), "--score", "p,q", "--method", "delong", "-m", "apr"], capsys)
    assert code == 2 and "use --method bca or --method percentile" in err and "method=" not in err, err


def test_explain_says_string_labels_in_the_commands_words(tmp_path, capsys):
    f = tmp_path / "t.csv"
    f.write_text("y,p\nno,0.3\nyes,0.8\nno,0.2\n")
    code, out, err = run_cli(["explain", str(f), "-m", "roc"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert "t.csv, line 2: the target column 'y' holds 'no', 'yes'" in err and "--pos-label yes" in err


def test_weights_that_overflow_double_precision_are_said_not_read_as_one_class(tmp_path, capsys):
    f = tmp_path / "w.csv"
    f.write_text("y,p,w\n1,0.9,1\n0,0.2,1e308\n1,0.5,1e308\n0,0.4,1e308\n")
    for extra in ([], ["--stream"]):  # the sums overflow: an error, not LOGLOSS 0.000000
        code, out, err = run_cli(["eval", str(f), "--weight", "w", "-m", "roc,logloss", *extra], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert "w.csv: the weight column 'w' sums to inf" in err and "overflow double precision" in err
    f.write_text("y,p,w\n1,0.9,1\n0,0.2,1e300\n1,0.5,1e300\n0,0.4,1e300\n")
    for extra in ([], ["--stream"]):  # the product of the totals overflows: ROC NaN, and why
        code, out, err = run_cli(
            ["eval", str(f), "--weight", "w", "-m", "roc,logloss", "--format", "json", *extra], capsys
        )
        assert code == 0, err
        got = json.loads(out)["measures"]
        assert got["ROC"]["value"] is None and "is inf" in got["ROC"]["why_null"]
        assert abs(got["LOGLOSS"]["value"] - 0.47570545188004854) < 1e-12
        assert "one class only" not in err and "ROC is undefined for this data: the weights overflow" in err
        assert "RuntimeWarning" not in err and "scalar divide" not in err
