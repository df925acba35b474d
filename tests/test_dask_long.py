"""K classes in long form (a row a case and class) on Dask: ``evaluate(ddf, case=, class_column=)``
and ``perfeval eval FILES --dask --long``.  The rows are shuffled by case so that a partition holds
whole cases, each partition pivoted by the in-memory pivot (perfeval.engine.long): the numbers of
memory bit for bit (ties, weights, groups, text and integer classes, 64-bit case ids, a case's rows
in several partitions), and each bad input the one line of memory, naming the case; on a LocalCluster
the tests start (two worker processes: the summaries travel between processes)."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import perfeval  # noqa: E402
from perfeval.cli.main import main  # noqa: E402
from perfeval.exceptions import InvalidDataError  # noqa: E402

MEASURES = ["roc_ovr", "roc_ovo", "ap_ovr", "logloss_mc", "brier_mc", "acc_mc", "f_mc", "mcc"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def on_cluster(client, monkeypatch):
    """``--dask ADDRESS`` on the module's cluster (one start for all the runs of a test)."""
    import perfeval.backends.dask

    monkeypatch.setattr(perfeval.backends.dask, "connect", lambda address: contextlib.nullcontext(client))
    return client


def _long_table(seed: int, n: int, classes: list, *, marker: bool, weighted: bool, grouped: bool):
    """A random long table, its rows shuffled (a case's rows far apart, in several partitions)."""
    rng = np.random.default_rng(seed)
    k = len(classes)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class some case's
    s = np.round(rng.random((n, k)), 1)  # ties within a class's column and at the argmax
    case = np.int64(2) ** 62 + rng.permutation(10 * n)[:n]  # ids past float64's integers
    w = np.round(rng.random(n) * 3, 2) * (rng.random(n) > 0.15)  # zeros, non-dyadic fractions
    g = rng.choice(["u1", "u2", "u3"], n)
    rows = []
    for i in range(n):
        for j in range(k):
            row = {"case": case[i], "cls": classes[j], "p": s[i, j]}
            row["y"] = int(j == y[i]) if marker else classes[y[i]]
            if weighted:
                row["w"] = w[i]
            if grouped:
                row["g"] = g[i]
            rows.append(row)
    df = pd.DataFrame(rows)
    df["case"] = df["case"].astype("int64")
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _same_bits(a, b) -> None:
    assert list(a.results) == list(b.results)
    for name in a.results:
        ra, rb = a.results[name], b.results[name]
        assert np.asarray(ra.value).tobytes() == np.asarray(rb.value).tobytes(), name
        for attr in ("per_class", "per_group"):
            x, y = getattr(ra, attr), getattr(rb, attr)
            assert (x is None) == (y is None), (name, attr)
            if x is not None:
                assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), (name, attr)


@pytest.mark.parametrize(
    "seed, marker, weighted, grouped",
    # each of weights x groups twice, with text and integer classes, the target read both ways
    [(s, m, w, g) for w in (False, True) for g in (False, True) for s, m in ((0, w), (1 + g, not w))],
)
def test_dask_is_memory_bit_for_bit(client, seed, marker, weighted, grouped):
    classes = [["cat", "dog", "bird"], [3, 1, 2, 0], ["b", "a"]][seed]
    df = _long_table(seed, 50, classes, marker=marker, weighted=weighted, grouped=grouped)
    kw = {
        "target": "y",
        "score": "p",
        "case": "case",
        "class_column": "cls",
        "measures": MEASURES,
        "weight": "w" if weighted else None,
        "group": "g" if grouped else None,
    }
    for given in ({}, {"classes": classes}) if seed == 1 else ({},):
        memory = perfeval.evaluate(df, **kw, **given)
        dask = perfeval.evaluate(dd.from_pandas(df, npartitions=2 + seed), **kw, **given)
        _same_bits(memory, dask)
        for p in ("classes", "classes_from", "target_form", "cases", "rows", "columns", "weighted"):
            assert dask.params[p] == memory.params[p], p
        assert dask.params["backend"] == "dask"
        if not grouped:  # the confusion of the argmax too
            assert dask.summary.confusion.tobytes() == memory.summary.confusion.tobytes()
        assert list(dask.groups if grouped else []) == list(memory.groups if grouped else [])


def _frame(rows, cols=("case", "cls", "p", "y")):
    return pd.DataFrame(rows, columns=list(cols))


GOOD = [(1, "a", 0.2, "a"), (1, "b", 0.8, "a"), (2, "a", 0.6, "b"), (2, "b", 0.4, "b")]


@pytest.mark.parametrize(
    "rows, said",
    [
        (GOOD + [(2, "a", 0.1, "b")], "case 2 (column 'case') has class 'a' twice (row 2 and row 4)"),
        (GOOD[:3], "case 2 (column 'case', first on row 2) has no row of class b"),
        (
            GOOD[:2] + [(2, "a", 0.6, "a"), (2, "b", 0.4, "b")],
            "case 2: the target column 'y' holds 'a' on row 2",
        ),
        (GOOD[:2] + [(2, "a", 0.6, "c"), (2, "b", 0.4, "c")], "the target column 'y' holds 'c'"),
        (
            [(1, "a", 0.2, 1), (1, "b", 0.8, 1), (2, "a", 0.6, 0), (2, "b", 0.4, 1)],
            "case 1: the target column 'y', a 0/1 marker of the true class's row, marks 2 rows (row 0, "
            "row 1)",
        ),
        (GOOD[:3] + [(None, "b", 0.4, "b")], "the case column 'case' holds a missing value at row 3"),
        (GOOD[:3] + [(2, None, 0.4, "b")], "the class column 'cls' holds a missing value at row 3"),
    ],
)
def test_each_bad_input_is_the_one_line_of_memory_naming_the_case(client, rows, said):
    """Memory's line, each row said by its place on the cluster (its partition and row there)."""
    import re

    df = _frame(rows)
    kw = {"target": "y", "score": "p", "case": "case", "class_column": "cls", "measures": ["acc_mc"]}
    with pytest.raises(InvalidDataError) as memory:
        perfeval.evaluate(df, **kw)
    assert str(memory.value).startswith(said)
    ddf = dd.from_pandas(df, npartitions=2)
    starts = np.concatenate([[0], np.cumsum(ddf.map_partitions(len).compute().to_numpy())])

    def place(m) -> str:
        i = int(m.group(1))
        p = int(np.searchsorted(starts, i, side="right")) - 1
        return f"row {i - starts[p]} of partition {p}"

    with pytest.raises(InvalidDataError) as dask:
        perfeval.evaluate(ddf, **kw)
    assert str(dask.value) == re.sub(r"\brow (\d+)", place, str(memory.value))


def test_a_case_whose_rows_disagree_on_weight_or_group(client):
    df = _frame(
        [(1, "a", 0.2, "a", 1.0, "u"), (1, "b", 0.8, "a", 2.0, "u")], ("case", "cls", "p", "y", "w", "g")
    )
    kw = {"target": "y", "score": "p", "case": "case", "class_column": "cls", "measures": ["acc_mc"]}
    with pytest.raises(
        InvalidDataError, match=r"^case 1: the column 'w' holds '1.0' on row 0 of partition 0 and "
    ):
        perfeval.evaluate(dd.from_pandas(df, npartitions=1), **kw, weight="w")
    df["g"] = ["u", "v"]
    with pytest.raises(
        InvalidDataError, match=r"^case 1: the column 'g' holds 'u' on row 0 of partition 0 and "
    ):
        perfeval.evaluate(dd.from_pandas(df, npartitions=1), **kw, group="g")


def test_a_column_read_two_ways_is_one_line_naming_a_case_of_each(client):
    """Classes 0 and 1: case 1 holds its class on each row (labels), case 2 marks its class's row
    (a marker); whole, the column is neither; on Dask, two partitions read it one way each."""
    df = _frame([(1, 0, 0.2, 1), (1, 1, 0.8, 1), (2, 0, 0.6, 0), (2, 1, 0.4, 1)])
    kw = {"target": "y", "score": "p", "case": "case", "class_column": "cls", "measures": ["acc_mc"]}
    with pytest.raises(InvalidDataError):
        perfeval.evaluate(df, **kw)
    ddf = dd.from_pandas(df, npartitions=2)
    try:
        perfeval.evaluate(ddf, **kw)
    except InvalidDataError as e:
        got = str(e)
    assert "\n" not in got
    assert got == (  # both cases in one partition: memory's words; in two: a case of each
        "the target column 'y' holds the true class on each row of case 1 and a 0/1 marker of the true "
        "class's row in case 2: one way for the whole column"
    ) or got.startswith(("case 1: the target column 'y'", "case 2: the target column 'y'")), got


def test_options_of_the_long_form_on_dask(client):
    df = _frame(GOOD)
    ddf = dd.from_pandas(df, npartitions=1)
    from perfeval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="needs both case= and class_column="):
        perfeval.evaluate(ddf, target="y", score="p", case="case")
    with pytest.raises(InvalidParameterError, match="column 'nope' is not in the Dask DataFrame"):
        perfeval.evaluate(ddf, target="y", score="p", case="case", class_column="nope")
    with pytest.raises(InvalidParameterError, match="one score column and one target column"):
        perfeval.evaluate(ddf, target="y", score=["p", "p"], case="case", class_column="cls")
    with pytest.raises(InvalidDataError, match=r"^the class column 'cls' holds 1 class\(es\) \(a\)"):
        perfeval.evaluate(
            dd.from_pandas(df[df.cls == "a"], npartitions=1),
            target="y",
            score="p",
            case="case",
            class_column="cls",
        )


# -- the command: perfeval eval FILES --dask ADDRESS --long ------------------------------------------------
LONG = ["--long", "--id", "case", "--class", "cls", "--score", "p", "--target", "y"]


def _files(df, tmp_path, fmt: str, n: int) -> tuple[str, str]:
    whole = tmp_path / f"whole.{fmt}"
    for i, rows in enumerate(np.array_split(np.arange(len(df)), n)):
        part = df.iloc[rows]
        if fmt == "csv":
            part.to_csv(tmp_path / f"part{i}.csv", index=False)
        else:
            part.to_parquet(tmp_path / f"part{i}.parquet", index=False)
    if fmt == "csv":
        df.to_csv(whole, index=False)
    else:
        df.to_parquet(whole, index=False)
    return str(tmp_path / f"part*.{fmt}"), str(whole)


def _run(capsys, argv) -> dict:
    assert main([str(a) for a in argv]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--weight", "w"],
        ["--group", "g"],
        ["--group", "g", "--weight", "w"],
        ["--classes", "dog,cat,bird"],
    ],
)
def test_the_command_on_dask_is_memory_bit_for_bit(on_cluster, tmp_path, capsys, fmt, options):
    df = _long_table(5, 40, ["cat", "dog", "bird"], marker=True, weighted=True, grouped=True)
    glob, whole = _files(df, tmp_path, fmt, 3)
    common = [*LONG, "-m", ",".join(MEASURES), "--format", "json", *options]
    memory = _run(capsys, ["eval", whole, *common])
    dask = _run(capsys, ["eval", glob, *common, "--dask", "local:2"])
    assert dask["measures"] == memory["measures"]  # every value, per class, per group: repr, bit for bit
    for p in ("classes", "classes_from", "target_form", "cases", "rows", "columns", "weighted", "groups"):
        assert dask["params"].get(p) == memory["params"].get(p), p
    assert dask["params"]["backend"] == "dask"
    assert list(dask["params"]) == list(memory["params"])  # the same keys in the same order (source too)


def test_the_command_on_a_local_cluster(tmp_path, capsys):
    """`perfeval eval 'data/*.csv' --dask local:2 --long ...`: its own cluster, the numbers of memory."""
    df = _long_table(8, 30, ["cat", "dog", "bird"], marker=False, weighted=True, grouped=False)
    glob, whole = _files(df, tmp_path, "csv", 2)
    common = [*LONG, "--weight", "w", "-m", "roc_ovr,acc_mc,logloss_mc", "--format", "json", "--confusion"]
    memory = _run(capsys, ["eval", whole, *common])
    dask = _run(capsys, ["eval", glob, *common, "--dask", "local:2"])
    assert dask["measures"] == memory["measures"] and dask["confusion"] == memory["confusion"]


def test_the_command_keeps_case_ids_as_written_on_dask(on_cluster, tmp_path, capsys):
    """Case ids are identities, as read whole: '007' and '7' are two cases (pandas reads both as 7)."""
    (tmp_path / "l.csv").write_text("case,cls,p,y\n007,a,0.2,b\n007,b,0.8,b\n7,a,0.6,a\n7,b,0.4,a\n")
    argv = ["eval", tmp_path / "l.csv", *LONG, "-m", "acc_mc", "--format", "json"]
    memory, dask = _run(capsys, argv), _run(capsys, [*argv, "--dask", "local:2"])
    assert dask["params"]["cases"] == memory["params"]["cases"] == 2
    assert dask["measures"] == memory["measures"]


@pytest.mark.parametrize(
    "rows, said",
    [
        ("1,a,0.5,a\n1,b,0.5,a\n2,a,0.1,b\n2,a,0.9,b\n", "case 2 (column 'case') has class 'a' twice"),
        ("1,a,0.5,a\n1,b,0.5,a\n2,a,0.1,b\n", "case 2 (column 'case', first on line "),
        ("1,a,0.5,a\n1,b,0.5,b\n", "case 1: the target column 'y' holds 'a' on line "),
        (
            "1,a,0.5,1\n1,b,0.5,1\n",
            "case 1: the target column 'y', a 0/1 marker of the true class's row, marks 2",
        ),
        ("1,a,0.5,a\n1,b,oops,a\n", "line 3: the score column 'p' holds 'oops', not a number"),
        (
            "1,a,0.5,1\n1,b,0.5,0\n2,a,0.5,2.00\n2,b,0.5,0\n3,a,0.5,0\n3,b,0.5,1\n",
            "case 2: the target column 'y' holds '2.00' on line 4: not 0 or 1, as the rows before it",
        ),
    ],
)
def test_bad_input_on_dask_is_one_line_naming_the_file_and_the_case(on_cluster, tmp_path, capsys, rows, said):
    f = tmp_path / "l.csv"
    f.write_text("case,cls,p,y\n" + rows)
    assert main(["eval", str(f), *LONG, "--dask", "local:2"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    # as the table read whole says it (the file streamed again): lines, not a partition's rows
    assert err.startswith(f"perfeval: error: {f}: {said}") or err.startswith(
        f"perfeval: error: {f}, {said}"
    ), err
