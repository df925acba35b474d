"""Dask says what memory says (issue 33): the class a count target is offered as the positive label,
and where a bad value is: a fractional weight that APR or the debiased ECE reads as a count, an empty
score cell (the command: the line, as read whole; the library: the partition, its row, the column
and the value); explain and compare of K classes name a fractional weight's line."""

from __future__ import annotations

import re

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import dask  # noqa: E402

import perfeval  # noqa: E402


def _cli(argv, capsys):
    from perfeval.cli.main import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("perfeval: error: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def tables(tmp_path):
    rng = np.random.default_rng(11)
    n = 300
    y = (rng.random(n) < 0.4).astype(int)
    s = rng.random(n)
    w = np.ones(n)
    w[57] = 0.5
    pd.DataFrame({"y": y, "s": s, "w": w}).to_csv(tmp_path / "wfrac.csv", index=False)
    empty = pd.DataFrame({"y": y, "s": s})
    empty.loc[77, "s"] = np.nan  # pandas writes an empty cell
    empty.to_csv(tmp_path / "empty.csv", index=False)
    no_target = pd.DataFrame({"y": y.astype(float), "s": s})
    no_target.loc[77, "y"] = np.nan  # an empty target cell
    no_target.to_csv(tmp_path / "no_target.csv", index=False, float_format="%g")
    count = rng.integers(0, 15, n)  # 15 whole numbers: classes, or a count
    pd.DataFrame({"c": count, "s": s}).to_csv(tmp_path / "count.csv", index=False)
    return tmp_path


def test_a_count_is_offered_the_same_positive_label_on_dask_as_in_memory(tables, capsys):
    path = str(tables / "count.csv")
    _, _, mem = _cli(["eval", path, "--target", "c", "--score", "s"], capsys)
    code, _, on_dask = _cli(["eval", path, "--target", "c", "--score", "s", "--dask", "local:1"], capsys)
    assert code == 1
    offered = re.findall(r"--pos-label (\S+) evaluates", mem)
    assert offered == ["1"] and re.findall(r"--pos-label (\S+) evaluates", on_dask) == offered, on_dask
    # the library: the same class
    df = pd.read_csv(path)
    with pytest.raises(perfeval.InvalidDataError) as in_memory:
        perfeval.evaluate(df, target="c", score="s")
    with dask.config.set(scheduler="synchronous"), pytest.raises(perfeval.InvalidDataError) as partitions:
        perfeval.evaluate(dd.from_pandas(df, npartitions=2), target="c", score="s")
    assert "pos_label=1 evaluates 1" in str(in_memory.value)
    assert "`pos_label=1` evaluates 1" in str(partitions.value)


@pytest.mark.parametrize("measure", ["apr", "ece:norm=l2,debiased=yes"])
def test_a_fractional_weight_counted_is_said_on_dask_as_read_whole(tables, capsys, measure):
    argv = [
        "eval",
        str(tables / "wfrac.csv"),
        "--target",
        "y",
        "--score",
        "s",
        "--weight",
        "w",
        "-m",
        measure,
    ]
    code, out, mem = _cli(argv, capsys)
    assert code == 1 and out == ""
    code, out, on_dask = _cli([*argv, "--dask", "local:1"], capsys)
    assert code == 1 and out == ""
    assert _error(on_dask) == _error(mem)
    assert "wfrac.csv, line 59: " in _error(mem) and "holds 0.5" in _error(mem)


def test_an_empty_score_is_said_on_dask_as_read_whole(tables, capsys):
    argv = ["eval", str(tables / "empty.csv"), "--target", "y", "--score", "s"]
    code, _, mem = _cli(argv, capsys)
    assert code == 1 and "empty.csv, line 79: the score column 's' is empty" in mem
    code, _, on_dask = _cli([*argv, "--dask", "local:1"], capsys)
    assert code == 1 and _error(on_dask) == _error(mem)


def test_an_empty_target_is_said_on_dask_as_read_whole(tables, capsys):
    """An empty target cell on Dask named only the file and the column; its line, as in memory and
    as an empty score's."""
    argv = ["eval", str(tables / "no_target.csv"), "--target", "y", "--score", "s"]
    code, _, mem = _cli(argv, capsys)
    assert code == 1 and "no_target.csv, line 79: the target column 'y' is empty" in mem
    code, _, on_dask = _cli([*argv, "--dask", "local:1"], capsys)
    assert code == 1 and _error(on_dask) == _error(mem)


def test_the_library_on_dask_names_an_empty_targets_partition_and_row(tables):
    df = pd.read_csv(tables / "no_target.csv")
    ddf = dd.from_pandas(df, npartitions=3)
    first = ddf.get_partition(0).compute()
    part, row = (0, 77) if len(first) > 77 else (1, 77 - len(first))
    with dask.config.set(scheduler="synchronous"), pytest.raises(perfeval.InvalidDataError) as e:
        perfeval.evaluate(ddf, target="y", score="s")
    said = f"the target column 'y' holds a missing value (NaN) in row {row} of partition {part} (from 0)"
    assert said in str(e.value)


def test_the_library_on_dask_names_the_partition_its_row_the_column_and_the_value(tables):
    df = pd.read_csv(tables / "empty.csv")
    ddf = dd.from_pandas(df, npartitions=3)
    first = ddf.get_partition(0).compute()
    part, row = (0, 77) if len(first) > 77 else (1, 77 - len(first))
    with dask.config.set(scheduler="synchronous"), pytest.raises(perfeval.InvalidDataError) as e:
        perfeval.evaluate(ddf, target="y", score="s")
    assert f"the score column 's' holds nan (an empty cell, or NaN) in row {row} of partition {part}" in str(
        e.value
    )
    w = pd.read_csv(tables / "wfrac.csv")
    for measure, label in (("apr", "APR"), ("ece:norm=l2,debiased=yes", "ECE:norm=l2,debiased=yes")):
        with dask.config.set(scheduler="synchronous"), pytest.raises(perfeval.InvalidDataError) as e:
            perfeval.evaluate(
                dd.from_pandas(w, npartitions=1), target="y", score="s", weight="w", measures=[measure]
            )
        assert str(e.value).startswith(
            f"{label} reads weights as counts of cases (whole numbers), but the weight column 'w' holds 0.5 "
            "in row 57 of partition 0"
        ), e.value


@pytest.fixture
def k_classes(tmp_path):
    rng = np.random.default_rng(12)
    n = 60
    y = rng.choice(["cat", "dog", "bird"], n)
    p = rng.dirichlet([1, 1, 1], n)
    w = np.ones(n)
    w[20] = 1.5
    frame = pd.DataFrame({"y": y, "p_cat": p[:, 0], "p_dog": p[:, 1], "p_bird": p[:, 2], "w": w})
    frame.to_csv(tmp_path / "kw.csv", index=False)
    frame.to_csv(tmp_path / "kw2.csv", index=False)
    return tmp_path


def test_explain_and_compare_of_k_classes_name_a_fractional_weights_line(k_classes, capsys):
    cols = ["--target", "y", "--score", "p_cat,p_dog,p_bird", "--classes", "cat,dog,bird", "--weight", "w"]
    measure = ["-m", "ece_top:norm=l2,debiased=yes"]
    path = str(k_classes / "kw.csv")
    code, _, mem = _cli(["eval", path, *cols, *measure], capsys)
    assert code == 1 and "kw.csv, line 22: " in mem
    code, out, err = _cli(["explain", path, *cols, *measure], capsys)
    assert code == 1 and out == "" and _error(err) == _error(mem)
    code, out, err = _cli(["compare", path, str(k_classes / "kw2.csv"), *cols, *measure], capsys)
    assert code == 1 and out == "" and _error(err) == _error(mem)
    # on Dask: memory's line (the file streamed again: it named the partition and its row)
    code, out, err = _cli(["eval", path, *cols, *measure, "--dask", "local:1"], capsys)
    assert code == 1 and out == "" and _error(err) == _error(mem)


def test_k_classes_on_dask_name_a_bad_scores_partition_and_row(k_classes):
    frame = pd.read_csv(k_classes / "kw.csv")
    frame.loc[5, "p_dog"] = np.nan
    ddf = dd.from_pandas(frame, npartitions=1)
    with dask.config.set(scheduler="synchronous"), pytest.raises(perfeval.InvalidDataError) as e:
        perfeval.evaluate(ddf, target="y", score=["p_cat", "p_dog", "p_bird"], classes=["cat", "dog", "bird"])
    assert "the score column 'p_dog' holds nan (an empty cell, or NaN) in row 5 of partition 0" in str(
        e.value
    )


def _k_rows(n: int = 3000) -> list[str]:
    rng = np.random.default_rng(5)
    y = rng.choice(["0", "1", "2"], n)
    p = rng.dirichlet([1, 1, 1], n)
    return [f"{i % 40},{y[i]},{float(p[i, 0])!r},{float(p[i, 1])!r},{float(p[i, 2])!r}" for i in range(n)]


@pytest.mark.parametrize(
    "bad",
    [
        ("score", ""),  # an empty score: the partition's row
        ("score", "NAN"),  # NaN spellings pandas reads as no number (memory: a NaN score)
        ("score", "+nan"),
        ("score", "abc"),
        ("target", "two"),  # a class not among --classes, past the rows Dask typed the target by
        ("target", "1.0"),
    ],
)
@pytest.mark.parametrize("grouped", [False, True])
def test_k_classes_on_dask_name_a_bad_values_line_as_read_whole(tmp_path, capsys, bad, grouped):
    """K classes on Dask named a bad value by its partition's row, or not at all (a value past the
    rows Dask typed its column by: "drop --dask for its line"); now memory's line, the file streamed
    again (with --group too, where the group column read as an identity meets the value first)."""
    rows = _k_rows()
    at, value = bad
    q, y, a, b, c = rows[2500].split(",")
    rows[2500] = ",".join([q, value, a, b, c] if at == "target" else [q, y, a, b, value])
    path = tmp_path / "k.csv"
    path.write_text("q,y,a,b,c\n" + "\n".join(rows) + "\n")
    argv = ["eval", str(path), "--target", "y", "--score", "a,b,c", "--classes", "0,1,2"]
    argv += ["--group", "q"] if grouped else []
    code, _, mem = _cli(argv, capsys)
    assert code == 1 and "k.csv, line 2502: " in mem
    code, out, on_dask = _cli([*argv, "--dask", "local:1"], capsys)
    assert code == 1 and out == "" and _error(on_dask) == _error(mem)


@pytest.mark.parametrize("value", ["", "+nan", "x"])
def test_long_classes_on_dask_name_a_bad_scores_line_as_read_whole(tmp_path, capsys, value):
    rng = np.random.default_rng(6)
    lines = ["id,cls,y,s"]
    for i in range(1000):
        t = rng.choice(list("abc"))
        lines += [f"{i},{k},{int(k == t)},{float(rng.random())!r}" for k in "abc"]
    lines[2500] = lines[2500].rsplit(",", 1)[0] + "," + value
    path = tmp_path / "long.csv"
    path.write_text("\n".join(lines) + "\n")
    argv = ["eval", str(path), "--long", "--id", "id", "--class", "cls", "--target", "y", "--score", "s"]
    code, _, mem = _cli(argv, capsys)
    assert code == 1 and "long.csv, line 2501: " in mem
    code, out, on_dask = _cli([*argv, "--dask", "local:1"], capsys)
    assert code == 1 and out == "" and _error(on_dask) == _error(mem)


@pytest.mark.parametrize("bad", [("l1", "2"), ("s2", "abc"), ("s1", "NAN")])
def test_labels_on_dask_name_a_bad_values_line_as_read_whole(tmp_path, capsys, bad):
    rng = np.random.default_rng(7)
    rows = [
        f"{int(rng.integers(0, 2))},{int(rng.integers(0, 2))},{float(rng.random())!r},{float(rng.random())!r}"
        for _ in range(3000)
    ]
    cells = rows[2500].split(",")
    cells[["l1", "l2", "s1", "s2"].index(bad[0])] = bad[1]
    rows[2500] = ",".join(cells)
    path = tmp_path / "lab.csv"
    path.write_text("l1,l2,s1,s2\n" + "\n".join(rows) + "\n")
    argv = ["eval", str(path), "--labels", "l1,l2", "--score", "s1,s2"]
    code, _, mem = _cli(argv, capsys)
    assert code == 1 and "lab.csv, line 2502: " in mem
    code, out, on_dask = _cli([*argv, "--dask", "local:1"], capsys)
    assert code == 1 and out == "" and _error(on_dask) == _error(mem)
