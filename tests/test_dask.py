"""The Dask backend gives the in-memory numbers, on a LocalCluster the tests start (two worker
processes, so summaries really travel between processes)."""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import perfeval  # noqa: E402
from _registry import choices, every  # noqa: E402

BINARY = every("binary")  # with every other choice of each parameter (tests/_registry.py)
GROUPED = ["GAUC", "GAUC_UNWEIGHTED", "NDCG@10", "MAP", "MRR", "P@5", "R@5", "ROC", "APR", "RMS", "ACC"]
GROUPED += choices("binary")  # TPR_AT_FPR:of=threshold, PAUC:focus=tpr, ... per group


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def same(a, b):
    return a == b or (a != a and b != b)


def same_report(a, b) -> None:
    """Reports ``a`` (Dask) and ``b`` (memory) say the same in every field of their JSON (to_dict):
    rows, groups counted, each measure's value, means, per-group keys and values, undefined groups
    and their reasons; only the backend's name differs."""
    import json

    da, db = a.to_dict(), b.to_dict()
    assert da["params"].pop("backend") == "dask" and db["params"].pop("backend") == "memory"
    da["signature"] = da["signature"].replace("backend:dask", "backend:memory")
    assert json.dumps(da, sort_keys=True, default=str) == json.dumps(db, sort_keys=True, default=str)


def weighted_groups(seed: int, n: int, zero_every: int) -> pd.DataFrame:
    """n rows in about 40 groups of whole weights 0 to 3, every group g with g % zero_every == 0
    weighted 0 in all its rows (a group of weight 0 has no value, but its rows are rows)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "y": (rng.random(n) < 0.3).astype(int),
            "s": np.round(rng.random(n), 2),
            "g": rng.integers(0, 40, n),
            "w": rng.integers(0, 4, n).astype(float),
        }
    )
    df.loc[df["g"] % zero_every == 0, "w"] = 0.0
    return df


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.integers(1, 9), st.integers(1, 3000), st.sampled_from([2, 3, 7, 41]))
def test_dask_weighted_per_group_equals_in_memory(client, seed, parts, n, zero_every):
    """Every binary measure per group, weighted, groups of weight 0 among them (zero_every 41: none):
    the Dask report is memory's in every field, its rows and group ids too (a shuffled partition of
    groups of weight 0 only made every id a float, and their rows were not counted)."""
    df = weighted_groups(seed, n, zero_every)
    ddf = dd.from_pandas(df, npartitions=min(parts, n))
    a = perfeval.evaluate(ddf, target="y", score="s", group="g", weight="w", measures=BINARY)
    b = perfeval.evaluate(df, target="y", score="s", group="g", weight="w", measures=BINARY)
    assert a.params["rows"] == n
    assert list(a.groups) == list(b.groups)
    same_report(a, b)


@pytest.mark.parametrize("parts", [1, 2, 5])
@pytest.mark.parametrize("task", [None, "regression"])
def test_dask_counts_the_rows_of_a_group_of_weight_0_as_memory(client, parts, task):
    """A group whose weights are all 0 is no group of the report, but its rows are rows of it, on
    Dask as in memory (they were left out: 6 rows of 10), and the other groups keep their ids."""
    df = pd.DataFrame(
        {
            "y": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
            "s": [0.9, 0.2, 0.8, 0.3, 0.4, 0.6, 0.7, 0.1, 0.5, 0.5],
            "g": [1, 1, 2, 2, 3, 3, 3, 3, 4, 4],
            "w": [1.0, 2.0, 0.0, 0.0, 1.0, 1.0, 2.0, 1.0, 0.0, 0.0],
        }
    )
    ms = ["ROC", "ACC", "RMS", "APR"] if task is None else ["MAE", "RMSE_REG"]
    kw = {} if task is None else {"task": task}
    a = perfeval.evaluate(
        dd.from_pandas(df, npartitions=parts), target="y", score="s", group="g", weight="w", measures=ms, **kw
    )
    b = perfeval.evaluate(df, target="y", score="s", group="g", weight="w", measures=ms, **kw)
    assert b.params["rows"] == 10 and b.params["groups"] == 2
    assert list(a.to_dict()["measures"][ms[0]]["per_group"]) == ["1", "3"]  # not "1.0", "3.0"
    assert a.params["rows"] == 10 and a.params["groups"] == 2
    same_report(a, b)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.integers(1, 9), st.sampled_from([1, 2, 3, 6]))
def test_dask_equals_in_memory_for_every_binary_measure(client, seed, parts, decimals):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    df = pd.DataFrame(
        {"y": (rng.random(n) < rng.random()).astype(int), "s": np.round(rng.random(n), decimals)}
    )
    ddf = dd.from_pandas(df, npartitions=min(parts, n))
    a = perfeval.evaluate(ddf, target="y", score="s", measures=BINARY)
    b = perfeval.evaluate(df, target="y", score="s", measures=BINARY)
    for k in b:
        assert same(a[k], b[k]), k


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.integers(1, 6))
def test_dask_per_group_equals_in_memory(client, seed, parts):
    rng = np.random.default_rng(seed)
    n = 5000
    df = pd.DataFrame(
        {
            "y": (rng.random(n) < 0.3).astype(int),
            "s": np.round(rng.random(n), 2),
            "g": rng.integers(0, 300, n),
        }
    )
    a = perfeval.evaluate(
        dd.from_pandas(df, npartitions=parts), target="y", score="s", group="g", measures=GROUPED
    )
    b = perfeval.evaluate(df, target="y", score="s", group="g", measures=GROUPED)
    assert list(a.groups) == list(b.groups)
    for k in b:
        assert same(a[k], b[k]), k
        assert np.array_equal(a.results[k].per_group, b.results[k].per_group, equal_nan=True)
        assert a.results[k].undefined == b.results[k].undefined


def test_dask_arrays(client):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(1)
    y, s = (rng.random(20_000) < 0.4).astype(int), np.round(rng.random(20_000), 4)
    a = perfeval.evaluate(
        da.from_array(y, chunks=3000), da.from_array(s, chunks=7000), measures=["roc", "ca1"]
    )
    b = perfeval.evaluate(y, s, measures=["roc", "ca1"])
    assert a["ROC"] == b["ROC"] and a["CA1"] == b["CA1"]


def test_dask_errors(client):
    df = pd.DataFrame({"y": [1, 0], "s": [0.5, 0.2]})
    ddf = dd.from_pandas(df, npartitions=1)
    with pytest.raises(perfeval.InvalidParameterError, match="column 'score' is not in the Dask DataFrame"):
        perfeval.evaluate(ddf, target="y", score="score")
    with pytest.raises(perfeval.InvalidParameterError, match="pass `group=`"):
        perfeval.evaluate(ddf, target="y", score="s", measures=["gauc"])


def test_command_on_a_local_cluster(tmp_path, capsys):
    from perfeval.cli.main import main

    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "y": (rng.random(4000) < 0.3).astype(int),
            "s": np.round(rng.random(4000), 3),
            "g": rng.integers(0, 50, 4000),
        }
    )
    for i in range(3):
        df.iloc[i * 1400 : (i + 1) * 1400].to_csv(tmp_path / f"part{i}.csv", index=False)
    args = ["--target", "y", "--score", "s", "-m", "roc,apr", "--format", "json"]
    assert main(["eval", str(tmp_path / "part*.csv"), "--dask", "local:2", *args]) == 0
    import json

    got = json.loads(capsys.readouterr().out)["measures"]
    want = perfeval.evaluate(df, target="y", score="s", measures=["roc", "apr"])
    assert got["ROC"]["value"] == want["ROC"] and got["APR"]["value"] == want["APR"]


def test_command_keeps_group_ids_on_a_cluster(tmp_path, capsys):
    """Group ids read from files by Dask are int64 or text, never floats: big ids stay apart."""
    import json

    from perfeval.cli.main import main

    (tmp_path / "u.csv").write_text(
        "user,label,score\n9007199254740992,1,0.9\n9007199254740992,0,0.1\n"
        "9007199254740993,1,0.1\n9007199254740993,0,0.9\n007,1,0.5\n007,0,0.4\n7,1,0.1\n"
        "7,0,0.2\n"
    )
    argv = [
        "eval",
        str(tmp_path / "u.csv"),
        "--group",
        "user",
        "-m",
        "gauc",
        "--format",
        "json",
        "--per-group",
    ]
    assert main([*argv, "--dask", "local:1"]) == 0
    got = json.loads(capsys.readouterr().out)["measures"]["GAUC"]["per_group"]
    assert got == {"007": 1.0, "7": 0.0, "9007199254740992": 1.0, "9007199254740993": 0.0}
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["measures"]["GAUC"]["per_group"] == got


def test_command_refuses_group_ids_written_as_floats_on_a_cluster(tmp_path, capsys):
    """An id written as a float (what pandas writes for a float column, whose ids past 2^53 have
    merged) is refused with --dask as in memory, not kept as text."""
    from perfeval.cli.main import main

    (tmp_path / "u.csv").write_text(
        "user,label,score\n1e+17,1,0.9\n1e+17,0,0.1\n1.0000000000000002e+17,1,0.1\n"
        "1.0000000000000002e+17,0,0.9\n"
    )
    argv = ["eval", str(tmp_path / "u.csv"), "--group", "user", "-m", "gauc"]
    assert main([*argv, "--dask", "local:1"]) == 1
    err = capsys.readouterr().err
    assert "u.csv" in err and "'user' (--group) holds '1e+17', a float" in err, err
    assert main(argv) == 1
    assert "'user' (--group) holds '1e+17', a float" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_a_float_group_column_is_named_by_its_option_on_a_cluster(on_cluster, tmp_path, capsys, fmt):
    """Issue 30: a float group column was 'the group column' read from Parquet and 'the id column'
    read from CSV: on a cluster as in memory, the column named by its option, --group."""
    frame = pd.DataFrame({"label": [1, 0, 1, 0], "score": [0.9, 0.2, 0.8, 0.1], "q": [1.0, 1.0, 2.5, 2.5]})
    path = tmp_path / f"t.{fmt}"
    if fmt == "parquet":
        frame.to_parquet(path)
    elif fmt == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    noun = "field" if fmt == "jsonl" else "column"
    for code, _out, err in _three_ways(path, ["--group", "q", "-m", "gauc"], capsys):
        if fmt == "jsonl" and "JSON lines are read whole" in err:
            continue
        assert code == 1 and err.count("\n") == 1 and f"the group {noun} 'q' (--group) " in err, err


def test_the_command_keeps_dasks_log_lines_off_stderr(tmp_path):
    """`perfeval eval --dask local:2` prints the table and nothing on stderr: the scheduler's and the
    workers' log lines (they start and stop in their own processes) stay off it."""
    import os
    import subprocess
    import sys

    p = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"y": rng.integers(0, 2, 5000), "s": rng.random(5000)}).to_csv(p, index=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    r = subprocess.run(
        [sys.executable, "-m", "perfeval", "eval", str(p), "--target", "y", "--score", "s", "-m", "roc"]
        + ["--dask", "local:2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0 and r.stdout.startswith("measure"), r.stderr
    assert r.stderr == ""


def test_command_errors_name_the_file_and_the_column_in_its_words(tmp_path, capsys):
    """Bad values found on a worker: the file and the column (a partition's row index would mislead:
    a bad value in a column is said as read whole, with its line, the file read again streamed),
    and --pos-label, not the library's pos_label= or partitions=."""
    from perfeval.cli.main import main

    cases = [
        (
            "y,p\n1,0.9\n0,0.2\n1,\n0,0.4\n",
            [],
            "t.csv, line 4: the score column 'p' is empty: a missing value; drop the row or fill it",
        ),
        ("y,p\n1,0.9\n0,abc\n", [], "t.csv, line 3: the score column 'p' holds 'abc', not a number"),
        (
            "y,p\n1,0.9\n,0.2\n1,0.5\n",
            [],
            "t.csv, line 3: the target column 'y' is empty: a missing value; drop the row or fill it",
        ),
        (
            "y,p\nno,0.9\nclick,0.2\n",
            [],
            "t.csv: the target column 'y' holds 'click', 'no': binary measures need 0/1 (or -1/1, booleans) "
            "targets; name the positive label with --pos-label (the others are negative), e.g. "
            "--pos-label click, or code the column so",
        ),
        # what the targets look like, as in memory: a regression target, grades, classes (issue 30)
        (
            "y,p\n177.83,170.2\n250.5,260.1\n99.25,120.0\n",
            [],
            "t.csv: the target column 'y' holds real values (99.25, 177.83, 250.5): this looks like a "
            "regression target; the regression measures read it (",
        ),
        (
            "y,p\n0,0.1\n3,0.9\n1,0.4\n2,0.5\n",
            [],
            "t.csv: the target column 'y' holds 0, 1, 2, 3: graded relevance, 4 classes or a count, not a "
            "binary target; binary measures need 0/1 (or -1/1, booleans) targets; code the column so (grades "
            "above 0: 1), or drop --dask and name them with --partition",
        ),
        (
            "y,p\nsetosa,0.1\nvirginica,0.9\nversicolor,0.4\n",
            [],
            "t.csv: the target column 'y' holds 'setosa', 'versicolor', 'virginica': 3 classes or more; "
            "the multiclass measures read one score column per class (--score COL_A,COL_B,... "
            "--classes A,B,...); the binary measures: --pos-label setosa evaluates 'setosa' against the "
            "other classes",
        ),
        ("y,p,w\n1,0.9,1\n0,0.2,-1\n", ["--weight", "w"], "t.csv, line 3: the weight column 'w' holds -1;"),
        ("y,p,w\n1,0.9,1e308\n0,0.2,1e308\n0,0.3,1e308\n", ["--weight", "w"], "overflow double precision"),
    ]
    # GAUC (or NDCG) reads numbers: click/no is offered --pos-label click there too, not "`y_true`
    # holds 'no' at index 0, not a number (str)" (issue 30)
    cases.append(
        (
            "g,y,p\n1,no,0.9\n1,click,0.2\n2,click,0.5\n2,no,0.1\n",
            ["--group", "g", "-m", "gauc"],
            "t.csv: the target column 'y' holds 'click', 'no': the measures asked read numbers (0/1, or "
            "graded relevance: above 0 relevant); name the positive label with --pos-label (the others "
            "are negative), e.g. --pos-label click, or code the column so",
        )
    )
    for text, argv, expected in cases:
        (tmp_path / "t.csv").write_text(text)
        code = main(["eval", str(tmp_path / "t.csv"), "-m", "roc", "--dask", "local:1", *argv])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and expected in err, err
        assert "index" not in err and "pos_label=" not in err and "`y_" not in err, err


def test_partitions_of_0_1_and_of_minus_1_1_are_not_one_coding(client):
    df = pd.DataFrame({"y": [0, 1, 0, 1, -1, 1, -1, 1], "s": [0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6]})
    ddf = dd.from_pandas(df, npartitions=2)
    assert ddf.npartitions == 2
    with pytest.raises(perfeval.InvalidDataError, match="holds -1, 0 and 1 between its partitions"):
        perfeval.evaluate(ddf, target="y", score="s", measures=["roc"])


def test_dask_tells_a_header_as_the_other_readers_do(client, tmp_path):
    """CSV files read by Dask: the header is told by the table readers' rule, never assumed (a
    headerless file of hard 0/1 predictions keeps its first row), and pandas' default names over
    floats are the same error."""
    from perfeval.backends.dask import read_files
    from perfeval.exceptions import InputFormatError
    from perfeval.io.readers import read_table

    hard = tmp_path / "hard.csv"
    hard.write_text("0,1\n1,1\n0,0\n1,1\n0,1\n0,0\n1,0\n")
    ddf, ch = read_files(str(hard))
    assert not read_table(str(hard)).header
    assert ddf[ch.target.name].compute().tolist() == [0, 1, 0, 1, 0, 0, 1]
    named = tmp_path / "named.csv"
    named.write_text("y,p\n1,0.9\n0,0.2\n")
    ddf, ch = read_files(str(named))
    assert ch.target.name == "y" and len(ddf) == 2
    ints = tmp_path / "intcols.csv"
    pd.DataFrame(np.column_stack([[1, 0, 1], [0.9, 0.2, 0.8]])).to_csv(ints, index=False)
    with pytest.raises(InputFormatError, match=r"intcols.csv, line 1: '0,1' may be pandas' default column"):
        read_files(str(ints))
    ddf, ch = read_files(str(ints), header=True, target="1", score="2")
    assert ddf[ch.score.name].compute().tolist() == [0.9, 0.2, 0.8]


def test_a_positive_label_with_a_dask_collection_is_taken_not_dropped(client):
    """pos_label=0 of 0/1 targets on Dask gave the ROC of label 1 (pos_label was dropped): taken, with
    the in-memory number, for a frame and for arrays."""
    import dask.array as dask_array

    y = np.array([1, 0, 1, 0, 1, 1])
    s = np.array([0.9, 0.2, 0.8, 0.3, 0.4, 0.7])
    assert perfeval.evaluate(y, s, measures=["roc"], pos_label=0)["ROC"] == 0.0
    ddf = dd.from_pandas(pd.DataFrame({"y": y, "s": s}), npartitions=2)
    assert perfeval.evaluate(ddf, target="y", score="s", measures=["roc"], pos_label=0)["ROC"] == 0.0
    on_arrays = perfeval.evaluate(
        dask_array.from_array(y, chunks=3),
        dask_array.from_array(s, chunks=3),
        measures=["roc"],
        pos_label=0,
    )
    assert on_arrays["ROC"] == 0.0
    with pytest.raises(
        perfeval.InvalidDataError, match=r"pos_label=5 does not occur in the targets \(labels: 0, 1\)"
    ):
        perfeval.evaluate(
            dask_array.from_array(y, chunks=3),
            dask_array.from_array(s, chunks=3),
            measures=["roc"],
            pos_label=5,
        )


# -- issue 30: --dask reads what the other paths read, or refuses what they refuse -------------------
@pytest.fixture
def on_cluster(client, monkeypatch):
    """``--dask ADDRESS`` on the module's cluster (one start for all the runs of a test)."""
    import contextlib

    import perfeval.backends.dask

    monkeypatch.setattr(perfeval.backends.dask, "connect", lambda address: contextlib.nullcontext(client))
    return client


def _three_ways(path, argv, capsys):
    """(status, JSON output or '', stderr) of the command in memory, streamed and on Dask."""
    import json

    from conftest import run_cli

    out = []
    for extra in ([], ["--stream"], ["--dask", "local:1"]):
        code, text, err = run_cli(["eval", str(path), "--format", "json", *argv, *extra], capsys)
        got = json.loads(text) if code == 0 else ""
        if got:
            got = {
                "measures": got["measures"],
                "rows": got["params"]["rows"],
                "pos": got["params"].get("pos_label"),
            }
        out.append((code, got, err))
    return out


def _labelled(tmp_path, n=600, seed=4):
    rng = np.random.default_rng(seed)
    y = rng.choice(["click", "no", "skip"], n, p=[0.3, 0.5, 0.2])
    s = np.round(rng.random(n) * 0.5 + (y == "click") * 0.3, 3)
    return pd.DataFrame({"user": rng.integers(2**62, 2**62 + 40, n), "label": y, "score": s})


def test_the_command_on_dask_takes_pos_label_with_the_numbers_of_the_other_paths(
    on_cluster, tmp_path, capsys
):
    """Issue 30: --dask refused --pos-label (a 1M-row CSV had to be rewritten).  It takes it: string
    labels, labels a tool wrote as floats (1.0/0.0: --pos-label 1), numbers; the same numbers, the
    same note that more than one label is negative, the same label in the report, in memory,
    streamed and on Dask, from CSV, gzip, TSV, JSON lines and Parquet."""
    df = _labelled(tmp_path)
    floats = df.assign(label=(df["label"] == "click").astype(float))
    files = {
        "l.csv": lambda p: df.to_csv(p, index=False),
        "l.csv.gz": lambda p: df.to_csv(p, index=False),
        "l.tsv": lambda p: df.to_csv(p, index=False, sep="\t"),
        "l.jsonl": lambda p: df.to_json(p, orient="records", lines=True),
        "l.parquet": lambda p: df.to_parquet(p),
        "f.csv": lambda p: floats.to_csv(p, index=False),
    }
    for name, write in files.items():
        write(tmp_path / name)
        label = "1" if name == "f.csv" else "click"
        for measures in (["-m", "roc,apr,acc"], ["--group", "user", "-m", "gauc,roc"]):
            argv = ["--target", "label", "--score", "score", "--pos-label", label, *measures]
            got = _three_ways(tmp_path / name, argv, capsys)
            for code, out, err in got:  # JSON lines too: streamed as read whole (issue 31)
                assert code == 0, (name, err)
                assert out == got[0][1], (name, measures)
                assert out["pos"] == (1 if label == "1" else "click")
                negative = (
                    "" if name == "f.csv" else "--pos-label click: 2 other labels are negative ('no', 'skip')"
                )
                assert negative in err, (name, err)
            if name == "l.csv" and "acc" in measures[-1]:  # the library's number, in memory
                want = perfeval.evaluate(
                    df["label"].to_numpy(), df["score"].to_numpy(), pos_label="click", measures=["roc"]
                )
                assert got[0][1]["measures"]["ROC"]["value"] == want["ROC"]


def test_pos_label_codes_the_target_of_every_measure_on_every_path(on_cluster, tmp_path, capsys):
    """--pos-label with per-query measures alone (NDCG, MAP) was ignored in memory and on Dask (the
    grades were read, under a signature saying pos:3) and applied streamed, and in memory NDCG moved
    when GAUC was asked beside it; text labels (click/no) were "not a number" in memory and in
    compare.  The column is coded for every measure asked: one number on every path, whatever else
    is asked, and compare's."""
    import json

    from conftest import run_cli

    rng = np.random.default_rng(11)
    n = 400
    grade = rng.integers(0, 4, n)
    df = pd.DataFrame(
        {"q": rng.integers(0, 30, n), "grade": grade, "s": np.round(grade + rng.normal(0, 1.5, n), 2)}
    )
    df.to_csv(tmp_path / "g.csv", index=False)
    df.assign(grade=np.where(grade == 3, "click", "no")).to_csv(tmp_path / "t.csv", index=False)
    binary = (grade == 3).astype(int)
    want = perfeval.evaluate(
        binary, df["s"].to_numpy(), groups=df["q"].to_numpy(), measures=["ndcg@10", "map"]
    )
    for name, label in (("g.csv", "3"), ("t.csv", "click")):
        argv = ["--target", "grade", "--score", "s", "--group", "q", "--pos-label", label]
        for measures in ("ndcg@10,map", "ndcg@10,map,gauc"):
            got = _three_ways(tmp_path / name, [*argv, "-m", measures], capsys)
            for code, out, err in got:
                assert code == 0, (name, err)
                assert out["measures"]["NDCG@10"]["value"] == want["NDCG@10"], (name, measures)
                assert out["measures"]["MAP"]["value"] == want["MAP"], (name, measures)
                assert out["pos"] == (3 if label == "3" else "click")
    # compare reads the column as eval does (it refused text labels: "holds 'no', not a number")
    pd.read_csv(tmp_path / "t.csv").assign(s2=lambda d: d["s"] + 0.5 * (d.index % 5 == 0)).to_csv(
        tmp_path / "c.csv", index=False
    )
    code, text, err = run_cli(
        [
            "compare",
            str(tmp_path / "c.csv"),
            "--target",
            "grade",
            "--group",
            "q",
            "--pos-label",
            "click",
            "--score",
            "s,s2",
            "-m",
            "map",
            "--n-boot",
            "20",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    assert json.loads(text)["comparisons"][0]["baseline_value"] == want["MAP"]


def test_a_pos_label_in_no_row_is_the_same_error_on_dask(on_cluster, tmp_path, capsys):
    _labelled(tmp_path).to_csv(tmp_path / "l.csv", index=False)
    got = _three_ways(
        tmp_path / "l.csv", ["--target", "label", "--score", "score", "--pos-label", "yes"], capsys
    )
    for code, _out, err in got:
        assert code == 1 and err.count("\n") == 1, err
    assert got[0][2] == got[1][2] == got[2][2]
    assert (
        "l.csv: --pos-label yes: the target column 'label' holds no such label "
        "(labels: 'click', 'no', 'skip')" in got[0][2]
    )


def test_evaluate_dask_takes_pos_label(client):
    df = pd.DataFrame({"y": ["a", "b", "c", "a", "b", "a"] * 50, "s": np.linspace(0, 1, 300).round(2)})
    ddf = dd.from_pandas(df, npartitions=4)
    read: dict = {}
    from perfeval.backends.dask import evaluate_dask

    a = evaluate_dask(ddf, target="y", score="s", measures=["roc", "apr"], pos_label="a", labels_read=read)
    b = perfeval.evaluate(df["y"].to_numpy(), df["s"].to_numpy(), measures=["roc", "apr"], pos_label="a")
    assert a["ROC"] == b["ROC"] and a["APR"] == b["APR"] and read == {"others": {"b", "c"}}
    with pytest.raises(
        perfeval.InvalidDataError, match=r"pos_label='z' does not occur .* \(labels: 'a', 'b', 'c'\)"
    ):
        evaluate_dask(ddf, target="y", score="s", measures=["roc"], pos_label="z")
    # through evaluate() too: pos_label= was dropped there, and -1/1 targets read 1 as positive
    pm = pd.DataFrame({"y": [-1, 1, -1, 1, -1], "s": [0.9, 0.1, 0.8, 0.3, 0.7]})
    on = perfeval.evaluate(
        dd.from_pandas(pm, npartitions=2), target="y", score="s", pos_label=-1, measures=["roc"]
    )
    assert on["ROC"] == perfeval.evaluate(pm["y"], pm["s"], pos_label=-1, measures=["roc"])["ROC"] == 1.0


@pytest.mark.parametrize(
    "name, content, says",
    [
        # issue 30: a form feed between rows merged them; every path refuses it, naming the line
        ("ff.txt", b"1 0.9\f0 0.1\f1 0.8\f0 0.3\n", "ff.txt, line 1: holds a form feed (\\f) at column 6"),
        (
            "ls.csv",
            ("y,p\n" + "1,0.9\n0,0.1\n" * 300 + "1,0.8\u20280,0.3\n").encode(),
            "ls.csv, line 602: holds a line separator (U+2028) at column 6",
        ),
        # a first line that may be a row: not dropped as a header
        (
            "dash.txt",
            b"1 0.9 -\n0 0.1 5\n1 0.8 5\n0 0.3 6\n",
            "dash.txt, line 1: '1 0.9 -' may be a header or a row of data",
        ),
        # no data: an error, not NaN
        ("h.csv", b"y,p\n", "h.csv: holds a header and no data"),
        ("e.txt", b"\n# nothing\n", "e.txt: holds no data"),
    ],
)
def test_the_command_on_dask_refuses_what_the_other_paths_refuse(
    on_cluster, tmp_path, capsys, name, content, says
):
    (tmp_path / name).write_bytes(content)
    got = _three_ways(tmp_path / name, ["-m", "roc"], capsys)
    for code, _out, err in got:
        assert code == 1 and err.count("\n") == 1 and says in err, err
    assert got[0][2] == got[1][2] == got[2][2]


def test_dask_reads_parquet_as_the_other_paths_or_says_why_not(on_cluster, tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(
        pa.table({"y": pa.array([], pa.int64()), "p": pa.array([], pa.float64())}), tmp_path / "e.parquet"
    )
    got = _three_ways(tmp_path / "e.parquet", ["-m", "roc"], capsys)
    for code, _out, err in got:  # it gave NaN with exit 0
        assert code == 1 and "e.parquet: holds no rows (columns: y, p)" in err, err
    pq.write_table(
        pa.table([pa.array([1, 0]), pa.array([0.9, 0.1]), pa.array([0.5, 0.5])], names=["y", "p", "p"]),
        tmp_path / "d.parquet",
    )
    got = _three_ways(tmp_path / "d.parquet", ["--target", "1", "--score", "2", "-m", "roc"], capsys)
    assert got[0][0] == got[1][0] == 0 and got[0][1] == got[1][1]
    assert (
        got[2][0] == 1
        and "d.parquet: has two columns named 'p': Dask reads columns by name only" in got[2][2]
    )


def test_dask_says_comment_lines_and_keeps_rows_starting_with_a_hash_after_a_header(
    on_cluster, tmp_path, capsys
):
    (tmp_path / "c.txt").write_text("# run 3\n1 0.9\n0 0.1\n# x\n1 0.8\n0 0.3\n")
    got = _three_ways(tmp_path / "c.txt", ["-m", "roc"], capsys)
    for code, out, err in got:
        assert code == 0 and out == got[0][1], err
        assert "c.txt: 2 lines starting with '#' skipped as comments (lines 1, 4)" in err, err
    # after a header a '#' line is a row (Excel's #N/A: a missing target), not skipped in silence
    (tmp_path / "h.csv").write_text("# exported\ny,p\n1,0.9\n#N/A,0.1\n0,0.3\n")
    got = _three_ways(tmp_path / "h.csv", ["-m", "roc"], capsys)
    for code, _out, err in got:
        assert code == 1 and "the target column 'y' holds" in err and "missing value" in err, err
    # pandas cuts a line at a '#' anywhere: refused where the other readers read a field
    (tmp_path / "m.txt").write_text("1 0.9 u#1\n0 0.1 u2\n")
    got = _three_ways(tmp_path / "m.txt", ["--group", "3", "-m", "roc"], capsys)
    assert got[0][0] == got[1][0] == 0
    assert got[2][0] == 1 and "m.txt, line 1: holds '#' inside a line" in got[2][2]


def test_dask_sniffs_the_delimiter_as_the_other_readers(on_cluster, tmp_path, capsys):
    (tmp_path / "x.csv").write_text("y;p\n1;0.9\n0;0.1\n1;0.4\n0;0.5\n")
    got = _three_ways(tmp_path / "x.csv", ["-m", "roc"], capsys)
    assert all(code == 0 for code, _, _ in got), got
    assert got[0][1] == got[1][1] == got[2][1]


def test_what_docs_dask_md_says_of_dask_and_pandas():
    """Dask's default partitions (docs/dask.md, "Memory per worker"): CSV blocks of at most 64 MB, Parquet
    partitions of row groups up to 256 MiB; and pandas' ``comment="#"`` cuts a line at its ``#`` (why a
    ``#`` inside a line is refused)."""
    import io

    from dask.dataframe.io import csv
    from dask.dataframe.io.parquet.utils import Engine

    assert 0 < csv.AUTO_BLOCKSIZE <= 64_000_000
    assert Engine.default_blocksize() == "256 MiB"
    cut = pd.read_csv(io.StringIO("y,p\n1,0.9#2\n0,0.1\n"), comment="#")
    assert cut["p"].tolist() == [0.9, 0.1]  # the row's "#2" is gone


def test_command_refuses_id_as_in_memory_on_a_cluster(tmp_path, capsys):
    """--id without a dialect that reads ids is the same one line with --dask as in memory, before any
    file is read (it was read, named in the JSON and not used, without a word)."""
    import json

    from perfeval.cli.main import main

    (tmp_path / "r.csv").write_text(
        "query,doc,rel,score\nu1,d1,1,0.5\nu1,d2,0,0.5\nu2,d3,1,0.1\nu2,d4,0,0.3\n"
    )
    argv = [
        "eval",
        str(tmp_path / "r.csv"),
        "--target",
        "rel",
        "--score",
        "score",
        "-m",
        "roc",
        "--format",
        "json",
    ]
    errors = []
    for extra in ([], ["--dask", "local:1"]):
        assert main([*argv, "--id", "doc", *extra]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        errors.append(err)
    assert errors[0] == errors[1] and errors[0].startswith(
        "perfeval: error: --id doc is read only by the dialects that break ties by document id (trec_eval); "
    )
    assert main([*argv, "--dask", "local:1"]) == 0  # without it: the numbers as they were
    assert json.loads(capsys.readouterr().out)["measures"]["ROC"]["value"] == 0.375


@pytest.mark.parametrize(
    "ids",
    [
        ("9223372036854775807", "1000000000000000000"),  # 19 digits within int64: integers
        ("-9223372036854775808", "7"),
        ("9223372036854775808", "7"),  # past int64: text
        ("-0", "7"),  # not a plain integer: text
    ],
)
def test_group_ids_of_19_digits_are_read_on_dask_as_in_memory(on_cluster, tmp_path, capsys, ids):
    """Dask read an id column as integers only up to 18 digits (and took "-0" for 0): user ids of 19
    digits within int64 (10^18 and up, a quarter of random 64-bit ids) were text on Dask and
    integers in memory, so the JSON listed the groups as "8" on one and 8 on the other."""
    a, b = ids
    f = tmp_path / "u.csv"
    f.write_text(f"u,y,s\n{a},1,0.9\n{a},0,0.2\n{b},1,0.3\n{b},0,0.5\n8,1,0.4\n")
    got = _three_ways(f, ["--target", "y", "--score", "s", "--group", "u", "-m", "gauc"], capsys)
    for code, _out, err in got:
        assert code == 0, err
    memory, _streamed, dask = (g[1]["measures"]["GAUC"] for g in got)
    assert dask["undefined_groups"] == memory["undefined_groups"]
    assert type(dask["undefined_groups"][0]) is type(memory["undefined_groups"][0])
    assert list(dask["per_group"]) == list(memory["per_group"])


def _json_lines(*scores: str) -> bytes:
    return "".join(f'{{"label": {k % 2}, "score": {s}}}\n' for k, s in enumerate(scores)).encode()


@pytest.mark.parametrize(
    "name, content, says",
    [
        # Python's float() reads these, the readers' grammar does not: pandas left the column as text
        # and --dask took 1_000 for 1000 (ROC 0.5 where the other paths refuse the file)
        ("us.csv", b"label,score\n1,0.9\n0,1_000\n1,0.3\n0,0.1\n", "holds '1_000', not a number"),
        ("ar.csv", "label,score\n1,0.9\n0,\u0663\n1,0.3\n0,0.1\n".encode(), "holds '\u0663', not a number"),
        ("fw.csv", "label,score\n1,0.9\n0,\uff11\n1,0.3\n0,0.1\n".encode(), "holds '\uff11', not a number"),
        # JSON lines were pandas' reader's: "1_000" and true were numbers, and an integer past 64
        # bits, a broken line or a line that is no object an internal error (status 70)
        ("us.jsonl", _json_lines("0.9", '"1_000"', "0.3", "0.1"), "holds '1_000', not a number"),
        ("b.jsonl", _json_lines("0.9", "true", "0.3", "0.1"), "holds 'True', not a number"),
        (
            "big.jsonl",
            _json_lines("0.9", "9" * 400, "0.3", "0.1"),
            "(a number beyond float64's range, read as inf)",
        ),
        ("x.jsonl", _json_lines("0.9", "0.2")[:-5] + b"\n" + _json_lines("0.3"), "not valid JSON"),
        ("a.jsonl", _json_lines("0.9") + b"[1, 2]\n", "line 2: expected a JSON object a line"),
        ("m.jsonl", _json_lines("0.9") + b'{"label": 0}\n', "line 2: the field 'score' is missing"),
        # json.loads kept the last value of a key given twice (issue 30): the first line, or a later one
        ("k1.jsonl", b'{"label": 1, "score": 0.9, "score": 0}\n' + _json_lines("0.9", "0.3"), "line 1: the"),
        ("k2.jsonl", _json_lines("0.9") + b'{"label": 0, "label": 1, "score": 0.1}\n', "line 2: the key"),
    ],
)
def test_dask_reads_values_by_the_readers_grammar(on_cluster, tmp_path, capsys, name, content, says):
    (tmp_path / name).write_bytes(content)
    got = _three_ways(tmp_path / name, ["-m", "roc"], capsys)
    for k, (code, _out, err) in enumerate(got):  # JSON lines streamed too (issue 31)
        assert code == 1 and err.count("\n") == 1 and says in err and "internal error" not in err, (k, err)
    if name.endswith(".jsonl"):  # the same error, at the same line, in memory and streamed
        assert got[0][2] == got[1][2], got


def _rows(n: int, bad: int, cell: str) -> bytes:
    """label,score and n rows, row `bad` (0-based) with `cell` for its score."""
    return ("label,score\n" + "".join(f"{k % 2},{cell if k == bad else '0.25'}\n" for k in range(n))).encode()


@pytest.mark.parametrize(
    "content, says",
    [
        # pandas' parser refused these: an internal error (status 70), on the first file's head as
        # on a worker (past Dask's sample); the table readers' error, its line, as read whole
        (_rows(4, 1, '"0.2'), "line 3: not valid CSV: the quote that opens a field here is never closed"),
        (_rows(60_000, 5, '"0.2'), "line 7: not valid CSV: the quote that opens a field here is not closed"),
        (_rows(4, 2, "0.2,7"), "line 4: expected 2 fields, found 3"),
        (_rows(60_000, 59_000, "0.2,7"), "line 59002: expected 2 fields, found 3"),
    ],
)
def test_dask_says_what_pandas_parser_refuses_as_read_whole(on_cluster, tmp_path, capsys, content, says):
    (tmp_path / "t.csv").write_bytes(content)
    got = _three_ways(tmp_path / "t.csv", ["-m", "roc"], capsys)
    for code, _out, err in got:
        assert code == 1 and err.count("\n") == 1 and f"t.csv, {says}" in err, err
    assert got[0][2] == got[1][2] == got[2][2]


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda pa: pa.array([datetime.datetime(2020, 1, 1 + i) for i in range(4)]), "'2020-01-01 00:00:00'"),
        (lambda pa: pa.array([datetime.timedelta(seconds=i) for i in range(4)]), "'0:00:00'"),
        (lambda pa: pa.array([b"0.9", b"0.1", b"0.8", b"0.3"], pa.binary()), "\"b'0.9'\""),
    ],
)
def test_dask_refuses_dates_durations_and_bytes_as_scores_as_the_other_paths(
    on_cluster, tmp_path, capsys, make, says
):
    """numpy reads a datetime64 as nanoseconds and bytes as text: --dask scored timestamps (ROC 0.58,
    RMS 1.6e15) where the other paths say the column holds no numbers."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"label": [1, 0, 1, 0], "score": make(pa)}), tmp_path / "t.parquet")
    got = _three_ways(tmp_path / "t.parquet", ["-m", "roc,rms"], capsys)
    for code, _out, err in got:
        assert code == 1 and f"the score column 'score' holds {says}, not a number" in err, err


def test_dask_reads_json_lines_as_read_whole(on_cluster, tmp_path, capsys):
    """A partition a file, read by the table reader: group ids past 2^53 kept, labels named by
    --pos-label, a glob of files; the numbers of the in-memory path."""
    rng = np.random.default_rng(7)
    rows = [
        {
            "user": int(2**62 + rng.integers(20)),
            "label": str(rng.choice(["yes", "no"])),
            "p": float(rng.random()),
        }
        for _ in range(300)
    ]
    import json

    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = ["--group", "user", "--score", "p", "--pos-label", "yes", "-m", "gauc,roc"]
    memory, _, on_dask = _three_ways(tmp_path / "g.jsonl", argv, capsys)
    assert memory[0] == on_dask[0] == 0 and memory[1] == on_dask[1], (memory, on_dask)
    (tmp_path / "d").mkdir()
    for part in range(3):
        (tmp_path / "d" / f"{part}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows[part * 100 : part * 100 + 100])
        )
    glob = _three_ways(tmp_path / "d" / "*.jsonl", argv, capsys)[2]
    assert glob[0] == 0 and glob[1]["measures"] == memory[1]["measures"], glob


def test_dask_keeps_group_ids_past_2_53_when_a_partition_holds_no_group(on_cluster, tmp_path, capsys):
    """An empty partition after the shuffle gave its groups a float column: put together with the
    others, every int64 id became a float (4.611686018427388e+18), and the JSON's per-group values of
    ids past 2^53 merged into one (two groups, one value shown)."""
    import json

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(3)
    (tmp_path / "d").mkdir()
    for k in range(4):  # four partitions, two groups: at least two partitions empty after the shuffle
        n = 50
        pq.write_table(
            pa.table(
                {"user": 2**62 + rng.integers(0, 2, n), "label": rng.integers(0, 2, n), "p": rng.random(n)}
            ),
            tmp_path / "d" / f"{k}.parquet",
        )
    from conftest import run_cli

    code, out, err = run_cli(
        ["eval", str(tmp_path / "d"), "--input-format", "parquet", "--group", "user", "--score", "p"]
        + ["-m", "gauc", "--format", "json", "--dask", "local:1"],
        capsys,
    )
    assert code == 0, err
    assert sorted(json.loads(out)["measures"]["GAUC"]["per_group"]) == [str(2**62), str(2**62 + 1)]


def test_a_file_that_cannot_be_decompressed_is_named_on_dask(on_cluster, tmp_path, capsys):
    """A gzip cut short was an internal error (EOFError) on --dask, a corrupt one or a corrupt
    Parquet page an error naming no file ("CRC check failed ..."); they are the other paths' errors."""
    import gzip

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(0)
    text = (
        "label,score\n" + "".join(f"{k % 2},{v:.6f}\n" for k, v in enumerate(rng.random(50_000)))
    ).encode()
    packed = gzip.compress(text)
    half = len(packed) // 2
    (tmp_path / "cut.csv.gz").write_bytes(packed[:half])
    (tmp_path / "bad.csv.gz").write_bytes(packed[:half] + bytes(100) + packed[half + 100 :])
    for name, says in (
        ("cut.csv.gz", "cut.csv.gz: is not a readable gzip file (Compressed file ended before"),
        ("bad.csv.gz", "bad.csv.gz: is not a readable gzip file (CRC check failed"),
    ):
        for code, _out, err in _three_ways(tmp_path / name, ["-m", "roc"], capsys):
            assert code == 1 and err.count("\n") == 1 and says in err, err
    n = 50_000
    pq.write_table(
        pa.table({"label": rng.integers(0, 2, n), "score": rng.random(n)}),
        tmp_path / "t.parquet",
        row_group_size=5_000,
        compression="zstd",
    )
    raw = (tmp_path / "t.parquet").read_bytes()
    at = len(raw) * 3 // 4
    (tmp_path / "t.parquet").write_bytes(raw[:at] + bytes(200) + raw[at + 200 :])
    for code, _out, err in _three_ways(tmp_path / "t.parquet", ["-m", "roc"], capsys):
        assert code == 1 and err.count("\n") == 1 and "t.parquet: is not a readable Parquet file (" in err, (
            err
        )


def test_three_classes_on_dask_point_to_the_multiclass_measures():
    """3+ classes on Dask (issue 32): the message names the multiclass measures in the library's words
    (`score=[...]`, `classes=[...]`, which evaluate K classes on Dask), and the binary one a class."""
    import dask.dataframe as dd
    import pandas as pd

    df = pd.DataFrame({"y": ["setosa", "virginica", "versicolor"], "p": [0.1, 0.9, 0.4]})
    with pytest.raises(perfeval.InvalidDataError) as e:
        perfeval.evaluate(dd.from_pandas(df, npartitions=1), target="y", score="p", measures=["roc"])
    assert str(e.value).endswith(
        "the target column 'y' holds 'setosa', 'versicolor', 'virginica': 3 classes or more; the multiclass "
        "measures read one score column per class (`score=[...]`, `classes=[...]`); the binary measures: "
        "`pos_label='setosa'` evaluates 'setosa' against the other classes"
    ), e.value


@pytest.mark.parametrize("group", [[], ["--group", "g"]])
def test_the_command_shows_the_same_thresholds_on_every_path(on_cluster, tmp_path, capsys, group):
    """Each operating point's threshold (JSON "threshold", per group "threshold_per_group") and the
    of=threshold specs: in memory, streamed and on Dask, the same."""
    rng = np.random.default_rng(8)
    n = 900
    y = (rng.random(n) < 0.4).astype(int)
    df = pd.DataFrame({"y": y, "s": np.round(rng.random(n) * 0.6 + 0.4 * y, 2), "g": rng.integers(0, 9, n)})
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    specs = ",".join(["youden", "tpr_at_fpr@0.2", "least_cost:fn=5,fp=1", *choices("binary")])
    ways = _three_ways(path, ["--target", "y", "--score", "s", "-m", specs, *group], capsys)
    assert all(code == 0 for code, _, _ in ways), [err for _, _, err in ways]
    assert ways[0][1] == ways[1][1] == ways[2][1]
    got = ways[0][1]["measures"]["YOUDEN"]
    assert ("threshold_per_group" if group else "threshold") in got


# every regression measure and choice, and the parameters that keep the targets' distribution
REGRESSION = every("regression") + ["D2_PINBALL:alpha=0.3", "D2_TWEEDIE:power=1.5"]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.integers(1, 7), st.booleans())
def test_dask_regression_equals_in_memory_bit_for_bit(client, seed, parts, grouped):
    """A regression target on Dask (issue 33): each partition's exact sums merged (or per group each
    shuffled partition's whole groups), any weights: evaluate()'s bits in memory."""
    import dask.array as da

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 2000))
    y = np.round(rng.normal(size=n) * 3 + 1e6, 3)
    df = pd.DataFrame(
        {
            "y": y,
            "p": np.round(y + rng.normal(size=n), 2),
            "g": rng.integers(0, 40, n),
            "w": rng.random(n) * 2,
        }
    )
    df.loc[df["g"] % 5 == 0, "w"] = 0.0  # groups of weight 0: no value, their rows counted
    ddf = dd.from_pandas(df, npartitions=min(parts, n))
    kw = {"group": "g"} if grouped else {}
    a = perfeval.evaluate(ddf, target="y", score="p", weight="w", measures=REGRESSION, **kw)
    b = perfeval.evaluate(
        df["y"].to_numpy(),
        df["p"].to_numpy(),
        groups=df["g"].to_numpy() if grouped else None,
        sample_weight=df["w"].to_numpy(),
        measures=REGRESSION,
    )
    assert a.params["backend"] == "dask" and a.params["task"] == "regression"
    for k in b.results:
        assert same(a[k], b[k]), k
        if grouped:
            assert np.array_equal(a.results[k].per_group, b.results[k].per_group, equal_nan=True), k
    if grouped:
        assert list(a.groups) == list(b.groups)
    b = perfeval.evaluate(df, target="y", score="p", weight="w", measures=REGRESSION, **kw)
    assert a.params["rows"] == n
    same_report(a, b)
    arrays = perfeval.evaluate(
        da.from_array(df["y"].to_numpy(), chunks=max(1, n // parts)),
        da.from_array(df["p"].to_numpy(), chunks=max(1, n // parts)),
        task="regression",
    )
    memory = perfeval.evaluate(df["y"].to_numpy(), df["p"].to_numpy(), task="regression")
    assert values_of(arrays) == values_of(memory)


def values_of(report):
    return {k: r.value for k, r in report.results.items()}


def test_several_regression_models_are_the_same_numbers_in_memory_streamed_and_on_dask(
    on_cluster, tmp_path, capsys
):
    """``eval --score a,b`` of a regression target: a report a model, the same numbers every way."""
    import json

    from conftest import run_cli

    rng = np.random.default_rng(9)
    n = 400
    y = np.round(rng.normal(size=n) * 3 + 5, 3)
    df = pd.DataFrame({"y": y, "a": np.round(y + rng.normal(size=n), 2), "b": np.round(y, 0)})
    df["g"] = rng.integers(0, 7, n)
    df["w"] = np.round(rng.random(n) * 2, 2)
    path = tmp_path / "models.csv"
    df.to_csv(path, index=False)
    argv = ["--target", "y", "--score", "a,b", "--group", "g", "--weight", "w", "-m", "mae,medae,d2_ae"]
    got = []
    for extra in ([], ["--stream"], ["--dask", "local:1"]):
        code, text, err = run_cli(["eval", str(path), "--format", "json", *argv, *extra], capsys)
        assert code == 0, err
        models = json.loads(text)["models"]
        assert list(models) == ["a", "b"]
        got.append({k: r["measures"] for k, r in models.items()})
    assert got[0] == got[1] == got[2]


def test_dask_regression_says_what_is_wrong_in_one_line(client):
    df = pd.DataFrame({"y": [1.5, np.inf, 2.0], "p": [1.0, 2.0, 3.0]})
    with pytest.raises(
        perfeval.InvalidDataError,
        match=r"the target column 'y' holds inf in row 1 of partition 0 \(from 0\); a regression target",
    ):
        perfeval.evaluate(dd.from_pandas(df, npartitions=2), target="y", score="p", task="regression")
    with pytest.raises(perfeval.InvalidParameterError, match="pos_label= does not apply to a regression"):
        perfeval.evaluate(
            dd.from_pandas(df, npartitions=1), target="y", score="p", measures=["mae"], pos_label=1.5
        )


# -- a column of numbers typed by Dask from its first rows (issue 33) ----------------------------------
#: rows of the files below, and the row (0-based) holding the value the first rows do not have: past
#: the bytes Dask types a CSV's columns by (dd.read_csv's sample, 256,000 bytes by default)
LATE_ROWS, LATE_AT = 100_000, 90_000


def _late_csv(path, column: str, value, seed: int = 3) -> None:
    """A CSV of LATE_ROWS rows (y 0/1, p, q 0/1, w 1 to 3, t 0 to 99 whole numbers, c classes, g a
    group id) whose ``column`` holds ``value`` at row LATE_AT (written as text: "", "abc", "1_000")."""
    rng = np.random.default_rng(seed)
    n = LATE_ROWS
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": np.round(rng.random(n), 3),
            "q": rng.integers(0, 2, n),  # hard predictions: whole numbers in the first rows
            "w": rng.integers(1, 4, n),
            "t": rng.integers(0, 100, n),
            "c": rng.choice(["a", "b", "c"], n),
            "p_b": rng.integers(0, 2, n),
            "g": rng.integers(0, 50, n),
        }
    )
    df[column] = df[column].astype(object)
    df.loc[LATE_AT, column] = value
    df.to_csv(path, index=False)
    with open(path, "rb") as fh:  # the value is past Dask's sample
        assert sum(len(fh.readline()) for _ in range(LATE_AT + 1)) > 2 * 256_000


@pytest.mark.parametrize("group", [[], ["--group", "g"]])
@pytest.mark.parametrize(
    "column, value, argv",
    [
        ("w", 0.5, ["--target", "y", "--score", "p", "--weight", "w", "-m", "roc,rms,acc"]),
        ("q", 0.25, ["--target", "y", "--score", "q", "-m", "roc,apr,rms"]),
        ("t", 12.75, ["--target", "t", "--score", "w", "-m", "mae,rmse"]),
        ("w", 2.5, ["--target", "t", "--score", "q", "--weight", "w", "-m", "mae,rmse"]),
    ],
)
def test_a_column_of_whole_numbers_in_its_first_rows_is_numbers_on_dask(
    on_cluster, tmp_path, capsys, column, value, argv, group
):
    """A weight, a score or a regression target of whole numbers in the first rows (Dask types a
    CSV's columns by them: int64) and a fraction further on was refused with --dask ("holds a value
    that is not an integer ... past the rows Dask typed it by"): the numbers of memory and of the
    stream, bit for bit, the group's ids kept whole."""
    _late_csv(tmp_path / "t.csv", column, value)
    got = _three_ways(tmp_path / "t.csv", [*argv, *group], capsys)
    for code, _out, err in got:
        assert code == 0, err
    assert got[0][1] == got[1][1] == got[2][1]
    assert got[2][1]["rows"] == LATE_ROWS


@pytest.mark.parametrize(
    "argv",
    [
        ["--target", "c", "--score", "p,p_b,q", "--classes", "a,b,c", "--weight", "w"],
        ["--target", "c", "--score", "p,p_b,q", "--classes", "a,b,c", "--group", "g"],
        ["--labels", "y,t", "--score", "p_b,q", "--weight", "w"],
    ],
)
def test_k_classes_and_labels_whole_in_their_first_rows_are_numbers_on_dask(
    on_cluster, tmp_path, capsys, argv
):
    """K classes and K labels: a score column (p_b) of whole numbers in its first rows and a
    fraction further on, and a weight column the same: the numbers of memory, bit for bit."""
    import json

    from conftest import run_cli

    _late_csv(tmp_path / "t.csv", "p_b", 0.75)
    df = pd.read_csv(tmp_path / "t.csv", dtype=str)  # as written: p_b's whole numbers stay whole
    df["t"] = (df["t"].astype(int) > 49).astype(int)  # 0/1 labels
    df.loc[LATE_AT + 1, "w"] = "0.5"
    df.to_csv(tmp_path / "t.csv", index=False)
    outs = []
    for extra in ([], ["--dask", "local:1"]):
        code, out, err = run_cli(["eval", str(tmp_path / "t.csv"), *argv, "--format", "json", *extra], capsys)
        assert code == 0, err
        got = json.loads(out)
        got.pop("signature"), got["params"].pop("backend")
        outs.append(got)
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    "column, value, argv, said",
    [
        # past the first rows, the readers' words and line: empty, not a number, whatever the type
        # Dask gave the column there (int64, float64: "1_000" was read as 1000 by Python's float())
        ("w", "", ["--weight", "w"], "line 90002: the weight column 'w' is empty: a missing value"),
        ("w", "abc", ["--weight", "w"], "line 90002: the weight column 'w' holds 'abc', not a number"),
        ("q", "abc", ["--group", "g"], "line 90002: the score column 'q' holds 'abc', not a number"),
        ("q", "", ["--group", "g"], "line 90002: the score column 'q' is empty: a missing value"),
        ("p", "1_000", [], "line 90002: the score column 'p' holds '1_000', not a number"),
        ("p", "1_000", ["--group", "g"], "line 90002: the score column 'p' holds '1_000', not a number"),
    ],
)
def test_a_column_of_numbers_holding_no_number_past_its_first_rows_is_said_as_read_whole(
    on_cluster, tmp_path, capsys, column, value, argv, said
):
    from conftest import run_cli

    _late_csv(tmp_path / "t.csv", column, value)
    score = "q" if column == "q" else "p"
    base = ["eval", str(tmp_path / "t.csv"), "--target", "y", "--score", score, "-m", "roc", *argv]
    want = run_cli(base, capsys)
    got = run_cli([*base, "--dask", "local:1"], capsys)
    assert want[0] == got[0] == 1 and f"t.csv, {said}" in want[2], want
    assert got[1:] == want[1:]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--target", "t", "--score", "p", "-m", "mae"], "the target column 't' holds 'abc', not a number"),
        (
            ["--target", "c", "--score", "p,q,t", "--classes", "a,b,c"],
            "the score column 't' holds 'abc', not a number",
        ),
        (["--labels", "y,q", "--score", "p,t"], "the score column 't' holds 'abc', not a number"),
    ],
)
def test_a_target_or_a_class_score_holding_no_number_past_its_first_rows_names_its_line(
    on_cluster, tmp_path, capsys, argv, said
):
    """A regression target, a class's or a label's score column (the K classes and K labels paths
    read the columns of numbers again for the line): the file, the line and the column."""
    from conftest import run_cli

    _late_csv(tmp_path / "t.csv", "t", "abc")
    code, out, err = run_cli(["eval", str(tmp_path / "t.csv"), *argv, "--dask", "local:1"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"t.csv, line 90002: {said}" in err, err


@pytest.mark.parametrize("column", ["s", "w"])
def test_true_false_in_a_column_of_numbers_is_refused_as_read_whole(tmp_path, capsys, column):
    """pandas reads a column of True/False as booleans, which Dask took as 1/0 (a ROC of 0.75); read
    whole they are no numbers: the same one line, with its line, on Dask."""
    from perfeval.cli.main import main

    frame = {"y": [1, 0, 1, 0], "s": [0.9, 0.2, 0.4, 0.3], "w": [1.0, 2.0, 1.0, 1.0]}
    frame[column] = ["True", "False", "True", "True"]
    path = tmp_path / "tf.csv"
    pd.DataFrame(frame).to_csv(path, index=False)
    args = ["eval", str(path), "--target", "y", "--score", "s", "--weight", "w", "-m", "roc"]
    assert main(args) == 1
    memory = capsys.readouterr().err
    assert main([*args, "--dask", "local:1"]) == 1
    dask = capsys.readouterr().err
    name = {"s": "score", "w": "weight"}[column]
    assert f"tf.csv, line 2: the {name} column '{column}' holds 'True', not a number" in memory
    assert dask == memory and dask.count("\n") == 1
