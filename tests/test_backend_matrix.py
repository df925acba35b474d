"""Every option that changes ``perfeval eval``'s output, on every backend, for every task: honoured
(the output of memory, byte for byte, the backend's name in the signature apart) or refused in one
line; never dropped silently.  The regression test of the class of bug where a backend took an option
and printed its output without it (``--by`` of K classes on ``--dask`` printed no slice).

The matrix: the tasks (binary, several models, per group, K classes, K labels, regression) x the
backends of the command (``--stream``, ``--dask`` on one local cluster for the module, ``--spark`` on
the test session's Spark, when there is one) x the options (``--by`` and the slice options,
``--weight``, ``--group``, ``--per-group``, ``--ci``, ``--confusion``, ``-t``, ``--pos-label``, the
output formats); then the Python API: ``perfeval.evaluate`` of a Dask or Spark DataFrame and a
:class:`perfeval.Metric` fed in batches, the report of ``evaluate`` of the frame in memory or one
error of the project's.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

import perfeval  # noqa: E402
from conftest import run_cli  # noqa: E402
from perfeval.exceptions import PerfError  # noqa: E402

N = 240

TASKS = {
    "binary": "--target y --score p",
    "models": "--target y --score p,p2",
    "per-group": "--target y --score p --group g -m gauc,ndcg@5,roc",
    "classes": "--target yk --score a,b,c",
    "labels": "--labels la,lb --score pa,pb",
    "regression": "--target r --score rp --task regression",
}

OPTIONS = [
    "",
    "--by d",
    "--by d,e --intersections --min-size 30",
    "--by dm --missing-slice",
    "--by dm",  # a missing slice value: memory refuses, so must the others
    "--weight w",
    "--weight w --by d",
    "--group g",
    "--group g --per-group",
    "--group g --by d",
    "--ci 0.9 --n-boot 20",
    "--confusion",
    "-t 0.3",
    "--pos-label 1",
    "--format json --by d --weight w",
    "--format csv --by d",
]

#: the options run on Spark (each run a few Spark jobs): the slices', with weights and groups
SPARK_OPTIONS = ["--by d,e --intersections --min-size 30", "--weight w --by d", "--group g --by d"]

BACKENDS = {
    "stream": ["--stream"],
    "dask": ["--dask", "local:2"],
    "spark": ["--spark", "local[2]"],
}


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    probs = rng.dirichlet([1, 1, 1], N).round(2)
    dm = rng.choice(["u", "v"], N).astype(object)
    dm[[5, 77]] = None
    return pd.DataFrame(
        {
            "y": rng.integers(0, 2, N),
            "p": rng.random(N).round(2),
            "p2": rng.random(N).round(2),
            "g": rng.integers(0, 12, N),
            "w": rng.integers(0, 4, N).astype(float),
            "d": rng.choice(["f", "m"], N),
            "e": rng.choice(["x", "y", "z"], N),
            "dm": dm,
            "yk": np.array(["a", "b", "c"])[rng.integers(0, 3, N)],
            "a": probs[:, 0],
            "b": probs[:, 1],
            "c": probs[:, 2],
            "la": rng.integers(0, 2, N),
            "lb": rng.integers(0, 2, N),
            "pa": rng.random(N).round(2),
            "pb": rng.random(N).round(2),
            "r": rng.normal(size=N).round(3),
            "rp": rng.normal(size=N).round(3),
        }
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("matrix") / "t.csv"
    _frame().to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def dask_client():
    """One local Dask cluster for the module (two worker processes: the summaries travel), the
    command's ``--dask ADDRESS`` connected to it.
    """
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import perfeval.backends.dask

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(perfeval.backends.dask, "connect", lambda address: contextlib.nullcontext(client))
        yield client
    client.close()
    cluster.close()


def _backend(request, name: str) -> None:
    """The backend's cluster or session, started once (skipped where it cannot be)."""
    if name == "dask":
        request.getfixturevalue("dask_client")
    elif name == "spark":
        request.getfixturevalue("spark")


_NAMES = re.compile(r'backend:(stream|dask|spark)|"backend": "(stream|dask|spark)"')


def _as_memory(out: str) -> str:
    return _NAMES.sub(lambda m: "backend:memory" if m.group(1) else '"backend": "memory"', out)


def _one_line(code: int, out: str, err: str) -> bool:
    return code in (1, 2) and out == "" and err.startswith("perfeval: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("task", list(TASKS))
def test_an_option_is_honoured_or_refused_in_one_line(request, table, capsys, task, option, backend):
    if task == "per-group" and "--group" in option:
        pytest.skip("per group already")
    if backend == "spark" and option not in SPARK_OPTIONS:
        pytest.skip("Spark's jobs are slow: the slices' options only (tests/test_spark.py has the rest)")
    _backend(request, backend)
    argv = ["eval", table, *TASKS[task].split(), *option.split()]
    code, memory, merr = run_cli(argv, capsys)
    got = run_cli([*argv, *BACKENDS[backend]], capsys)
    if code != 0:  # what memory refuses, the backend refuses: one line
        assert _one_line(*got), (task, option, backend, merr, got)
        return
    if got[0] != 0:
        assert _one_line(*got), (task, option, backend, got)
        return
    if option.startswith("--ci") and _as_memory(got[1]) != memory:
        _same_values_with_intervals(got[1], memory)
        return
    assert _as_memory(got[1]) == memory, (task, option, backend)


def _same_values_with_intervals(out: str, memory: str) -> None:
    """``--ci`` read from one merged summary (streamed, on a cluster: docs/ci.md): the intervals are
    another bootstrap's, said so (the method in the signature), but never left out: every measure's
    value is memory's, each with its interval.
    """

    def table(text: str) -> list[list[str]]:
        return [line.split() for line in text.split("\n(")[0].splitlines()]

    got, want = table(out), table(memory)
    assert got[0] == want[0] and "ci_low" in got[0] and "ci_high" in got[0]
    names: list[str] = []  # the header's columns: "ACC ci_low" one (several models), "ci_low" one
    for word in got[0]:
        if word in ("ci_low", "ci_high") and names[-1] != "value" and "ci_" not in names[-1]:
            names[-1] += f" {word}"
        else:
            names.append(word)
    assert all(len(row) == len(names) for row in got[1:])  # an interval for every value
    values = [i for i, name in enumerate(names) if "ci_" not in name]
    assert [[row[i] for i in values] for row in got[1:]] == [[row[i] for i in values] for row in want[1:]]
    sig = next(line for line in out.splitlines() if line.startswith("signature: "))
    assert "|ci:" in sig


# -- the Python API ---------------------------------------------------------------------------------------
API_TASKS = {
    "binary": {"target": "y", "score": "p"},
    "per-group": {"target": "y", "score": "p", "group": "g", "measures": ["gauc", "ndcg@5", "roc"]},
    "classes": {"target": "yk", "score": ["a", "b", "c"]},
    "labels": {"target": ["la", "lb"], "score": ["pa", "pb"]},
    "regression": {"target": "r", "score": "rp", "task": "regression"},
}

API_OPTIONS = {
    "by": {"by": ["d"]},
    "intersections": {"by": ["d", "e"], "intersections": True, "min_size": 30},
    "missing": {"by": ["dm"], "missing": "slice"},
    "missing refused": {"by": ["dm"]},
    "weight": {"weight": "w", "by": ["d"]},
    "group": {"group": "g", "by": ["d"]},
}


def _api_memory(pdf: pd.DataFrame, kw: dict) -> tuple:
    try:
        return perfeval.evaluate(pdf, **kw), None
    except PerfError as e:
        return None, e


def _same(a, b) -> None:
    """Two reports alike: their dicts (the numbers bit for bit), the backend apart."""
    da, db = a.to_dict(), b.to_dict()
    for d in (da, db):
        d.get("params", {}).pop("backend", None)
        d.pop("signature", None)
    assert repr(da) == repr(db)
    assert (a.slices is None) == (b.slices is None)
    if b.slices is not None:
        assert repr(a.slices.to_dict()) == repr(b.slices.to_dict())


@pytest.mark.parametrize("option", list(API_OPTIONS))
@pytest.mark.parametrize("task", list(API_TASKS))
def test_evaluate_of_a_dask_frame_honours_or_refuses(dask_client, task, option):
    import dask.dataframe as dd

    pdf = _frame()
    kw = {**API_TASKS[task], **API_OPTIONS[option]}
    want, error = _api_memory(pdf, kw)
    ddf = dd.from_pandas(pdf, npartitions=3)
    if error is not None:
        with pytest.raises(PerfError):
            perfeval.evaluate(ddf, **kw)
        return
    try:
        got = perfeval.evaluate(ddf, **kw)
    except PerfError as e:
        assert "\n" not in str(e)
        return
    _same(got, want)


@pytest.mark.parametrize("option", ["intersections", "missing"])
@pytest.mark.parametrize("task", list(API_TASKS))
def test_evaluate_of_a_spark_frame_honours_or_refuses(spark, task, option):
    """The slices' options of evaluate() reach Spark (intersections, min_size and missing were
    dropped there); the frame's rows in their order (its partitions split it, not a shuffle).
    """
    pdf = _frame()
    kw = {**API_TASKS[task], **API_OPTIONS[option]}
    want, error = _api_memory(pdf, kw)
    sdf = spark.createDataFrame(pdf)
    if error is not None:
        with pytest.raises(PerfError):
            perfeval.evaluate(sdf, **kw)
        return
    try:
        got = perfeval.evaluate(sdf, **kw)
    except PerfError as e:
        assert "\n" not in str(e)
        return
    _same(got, want)


def _metric(pdf: pd.DataFrame, kw: dict) -> perfeval.Metric:
    """A Metric of ``kw`` (evaluate()'s words) fed ``pdf`` in three batches."""
    kw = dict(kw)
    target, score = kw.pop("target"), kw.pop("score")
    group, weight = kw.pop("group", None), kw.pop("weight", None)
    by = kw.get("by")
    made: dict = {"measures": kw.pop("measures")} if "measures" in kw else {}
    if isinstance(target, list):
        made["labels"] = target
    elif isinstance(score, list):
        made["classes"] = score
    m = perfeval.Metric(**made, **kw)
    for rows in np.array_split(np.arange(len(pdf)), 3):
        part = pdf.iloc[rows]
        m.update(
            part[target].to_numpy(),
            part[score].to_numpy(),
            groups=None if group is None else part[group].to_numpy(),
            sample_weight=None if weight is None else part[weight].to_numpy(),
            **({} if by is None else {"by": part[list(by)]}),
        )
    return m


@pytest.mark.parametrize("option", list(API_OPTIONS))
@pytest.mark.parametrize("task", list(API_TASKS))
def test_a_metric_honours_or_refuses(task, option):
    pdf = _frame()
    kw = {**API_TASKS[task], **API_OPTIONS[option]}
    want, error = _api_memory(pdf, kw)
    if error is not None:
        with pytest.raises(PerfError):
            _metric(pdf, kw).compute()
        return
    try:
        got = _metric(pdf, kw).compute()
    except PerfError as e:
        assert "\n" not in str(e)
        return
    for r in (got, want):  # a Metric is given its classes (labels); evaluate() of a frame reads them
        r.params.pop("classes_from", None)
    _same(got, want)
