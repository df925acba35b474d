"""``perfeval eval``'s notes on probability scores on every backend: scores outside [0, 1] read by
BRIER, LOGLOSS, ... counted and the first named; an infinite LOGLOSS or CXE said why (the cases that
give their own class a probability of 0, counted, the first named).  Streamed: memory's bytes, the
first case at its line whichever chunk it is in.  On Dask and Spark, whose partitions know no line of
a file: the same count, the first case by its place (``row 3 of partition 1``).  Weight 0 is no case,
``--pos-label``, ``--group`` and several ``--score`` models (each note naming its model) as in memory.
"""

from __future__ import annotations

import contextlib
import re

import pytest

from conftest import run_cli
from perfeval.io import readers

ROWS = 40


def _rows(kind: str) -> list[dict]:
    """Rows of lines 2.. (line 1 the header): ordinary scores, with the cases a note counts at
    known lines.  ``inf``: cases of probability 0 of their own class (LOGLOSS infinite), the one on
    line 10 of weight 0; ``outside``: scores outside [0, 1], the one on line 12 of weight 0.
    """
    rows = []
    for k in range(ROWS):
        y = k % 2
        rows.append({"y": y, "lab": "yes" if y else "no", "s": 0.3 + 0.4 * y, "s2": 0.6, "w": 1, "g": k % 3})

    def at(line: int, **kw) -> None:
        rows[line - 2].update(kw)
        rows[line - 2]["lab"] = "yes" if rows[line - 2]["y"] else "no"

    if kind == "inf":
        at(10, y=1, s=0.0, w=0)
        at(17, y=0, s=1.0, w=2)
        at(23, y=1, s=0.0)
        at(31, y=0, s=1.0)
        at(27, y=1, s2=0.0)  # the second model's own
    else:
        at(12, y=0, s=-0.5, w=0)
        at(19, y=1, s=1.25, w=3)
        at(33, y=0, s=-0.125)
        at(25, y=0, s2=2.0)
    return rows


def _write(path, rows: list[dict]) -> str:
    names = list(rows[0])
    path.write_text(",".join(names) + "\n" + "".join(",".join(str(r[n]) for n in names) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def files(tmp_path):
    return {kind: _write(tmp_path / f"{kind}.csv", _rows(kind)) for kind in ("inf", "outside")}


@pytest.fixture
def small_chunks(monkeypatch):
    """The streamed reader in chunks of 64 bytes: the cases lie in chunks after the first."""
    inner = readers.iter_columns

    def chunked(*a, **k):
        k["chunk_bytes"] = 64
        yield from inner(*a, **k)

    import perfeval.cli.commands.eval as eval_command

    monkeypatch.setattr(readers, "iter_columns", chunked)
    monkeypatch.setattr(eval_command, "iter_columns", chunked)


#: (file, options): each a note of memory's
CASES = [
    ("inf", "--target y --score s -m logloss,cxe"),
    ("inf", "--target y --score s -m logloss --weight w"),
    ("inf", "--target lab --pos-label yes --score s -m logloss"),
    ("inf", "--target y --score s -m logloss,roc --group g"),
    ("inf", "--target y --score s,s2 -m logloss"),
    ("outside", "--target y --score s -m brier,rms,roc"),
    ("outside", "--target y --score s -m brier --weight w"),
    ("outside", "--target lab --pos-label yes --score s -m brier"),
    ("outside", "--target y --score s -m brier --group g"),
    ("outside", "--target y --score s,s2 -m brier"),
]

_NOTE = re.compile(r"^perfeval: note: .*(probabilities|infinite)", re.M)


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines(keepends=True) if _NOTE.match(line)]


def test_memorys_notes_count_the_cases_and_name_the_first_by_its_line(files, capsys):
    """What the other backends must say (memory's notes, checked against the rows written)."""
    code, _out, err = run_cli(["eval", files["inf"], *CASES[0][1].split()], capsys)
    assert code == 0
    assert _notes(err) == [
        "perfeval: note: LOGLOSS and CXE are infinite: 4 cases give their own class a probability of 0 "
        "(a positive scored 0 or less, or a negative 1 or more), the first on line 10; --dialect sklearn "
        "clips probabilities as scikit-learn does\n"
    ]
    code, _out, err = run_cli(["eval", files["inf"], *CASES[1][1].split()], capsys)
    assert "3 cases give their" in err and "the first on line 17;" in err  # weight 0: no case
    code, _out, err = run_cli(["eval", files["outside"], *CASES[6][1].split()], capsys)
    assert _notes(err) == [
        "perfeval: note: BRIER read the scores as probabilities, but 2 are outside [0, 1], the first on "
        "line 19 (1.25)\n"
    ]
    code, _out, err = run_cli(["eval", files["outside"], *CASES[9][1].split()], capsys)
    assert [n.split(":")[2] for n in _notes(err)] == [" model s", " model s2"]
    assert "1 is outside [0, 1], the first on line 25 (2.0)" in _notes(err)[1]


@pytest.mark.parametrize(("kind", "options"), CASES)
def test_streamed_notes_are_memorys_bytes(files, capsys, small_chunks, kind, options):
    argv = ["eval", files[kind], *options.split()]
    code, out, err = run_cli(argv, capsys)
    assert code == 0 and _notes(err), (options, err)
    got = run_cli([*argv, "--stream"], capsys)
    assert got[0] == 0
    assert got[1] == out.replace("backend:memory", "backend:stream")
    assert got[2] == err, options


@pytest.fixture(scope="module")
def dask_client():
    """One local Dask cluster for the module, the command's ``--dask ADDRESS`` connected to it."""
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import perfeval.backends.dask

    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(perfeval.backends.dask, "connect", lambda address: contextlib.nullcontext(client))
        yield client
    client.close()
    cluster.close()


def _in_partition(err: str) -> str:
    """Memory's notes of one file read as one partition: its line L is row L - 2 there."""
    return re.sub(r"on line (\d+)", lambda m: f"on row {int(m.group(1)) - 2} of partition 0", err)


@pytest.mark.parametrize(("kind", "options"), CASES)
def test_dask_says_memorys_notes_with_the_place_of_the_first(files, capsys, dask_client, kind, options):
    argv = ["eval", files[kind], *options.split()]
    code, out, err = run_cli(argv, capsys)
    assert code == 0 and _notes(err)
    got = run_cli([*argv, "--dask", "local:1"], capsys)
    assert got[0] == 0
    assert got[1] == out.replace("backend:memory", "backend:dask")
    assert _notes(got[2]) == _notes(_in_partition(err)), options


def test_dask_names_the_partition_of_the_first(tmp_path, capsys, dask_client):
    """Two files, two partitions: the first case in the second is said there."""
    rows = _rows("inf")
    clean = [dict(r, s=0.3 + 0.4 * r["y"]) for r in rows]
    (tmp_path / "d").mkdir()
    _write(tmp_path / "d" / "a.csv", clean)
    _write(tmp_path / "d" / "b.csv", rows)
    code, _out, err = run_cli(
        [
            "eval",
            str(tmp_path / "d" / "*.csv"),
            "--target",
            "y",
            "--score",
            "s",
            "-m",
            "logloss",
            "--dask",
            "x",
        ],
        capsys,
    )
    assert code == 0
    assert _notes(err) == [
        "perfeval: note: LOGLOSS is infinite: 4 cases give their own class a probability of 0 (a positive "
        "scored 0 or less, or a negative 1 or more), the first on row 8 of partition 1; --dialect sklearn "
        "clips probabilities as scikit-learn does\n"
    ]


def test_spark_says_memorys_notes_with_the_place_of_the_first(files, capsys, spark):
    argv = ["eval", files["inf"], "--target", "y", "--score", "s", "-m", "logloss", "--weight", "w"]
    code, _out, err = run_cli(argv, capsys)
    got = run_cli([*argv, "--spark", "local[2]"], capsys)
    assert code == 0 and got[0] == 0
    (note,) = _notes(got[2])
    where = re.search(r"the first on (row (\d+) of partition (\d+));", note)
    assert where, note
    assert note == _notes(err)[0].replace("line 17", where.group(1))


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_streamed_notes_of_each_format_are_memorys(tmp_path, capsys, fmt):
    """A Parquet file's rows (``row 11``) and a JSON lines file's lines, as read whole."""
    import json

    rows = _rows("outside")
    path = tmp_path / f"o.{fmt}"
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
        pd = pytest.importorskip("pandas")
        pd.DataFrame(rows).to_parquet(path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = ["eval", str(path), "--target", "y", "--score", "s", "-m", "brier", "--weight", "w"]
    code, _out, err = run_cli(argv, capsys)
    where = "row 18" if fmt == "parquet" else "line 18"
    assert code == 0 and _notes(err) == [
        "perfeval: note: BRIER read the scores as probabilities, but 2 are outside [0, 1], the first on "
        f"{where} (1.25)\n"
    ]
    got = run_cli([*argv, "--stream"], capsys)
    assert got[0] == 0 and got[2] == err
