"""K classes per group through the other doors: a Dask DataFrame (shuffled by group), the stream
(spilled by group, or clustered) and ``perfeval eval --stream --group`` give what
``evaluate(y, S, classes=, groups=)`` gives in memory, bit for bit, weights or not: every group's
value, size and key, the means, and the groups where a measure is undefined."""

from __future__ import annotations

import json
import math
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import perfeval
from perfeval.backends.stream import _ClassJob, evaluate_stream_grouped_classes
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import list_measures

MULTICLASS = [m.name for m in list_measures() if m.kind == "multiclass"]


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def bits(x) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


def same_groups(got, want) -> None:
    """Two per-group reports of K classes: the same groups, sizes, per-group values, means and
    undefined groups, bit for bit."""
    assert list(got.results) == list(want.results)
    assert got.groups.tolist() == want.groups.tolist()
    assert bits(got.group_sizes) == bits(want.group_sizes)
    for label, rw in want.results.items():
        rg = got.results[label]
        assert bits(rg.per_group) == bits(rw.per_group), label
        for attr in ("value", "mean", "weighted_mean"):
            a, b = getattr(rg, attr), getattr(rw, attr)
            assert bits(a) == bits(b) or (math.isnan(a) and math.isnan(b)), (label, attr, a, b)
        assert rg.undefined == rw.undefined, label
        assert rg.per_class is None and rw.per_class is None
    for key in ("rows", "groups", "weighted", "classes", "classes_from", "task"):
        assert got.params[key] == want.params[key], key


@st.composite
def grouped(draw, weighted: bool):
    """Labels, an (n, K) score matrix with ties (a coarse grid, -0.0 and 0.0 both), group ids (64-bit
    integers or text), weights with zeros, and cut points; some groups of one class only."""
    k = draw(st.integers(3, 5))
    n = draw(st.integers(1, 80))
    q = draw(st.integers(1, 8))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g_code = r.integers(0, q, n)
    y_code = r.integers(0, k, n)
    one_class = r.random(q) < 0.3  # a group of one class: its ROC areas undefined
    y_code = np.where(one_class[g_code], g_code % k, y_code)
    s = r.integers(0, draw(st.sampled_from([2, 3, 5])), (n, k)) / 4.0
    s[r.random((n, k)) < 0.05] = -0.0
    labels = [f"c{i}" for i in range(k)][::-1]
    y = np.array(labels)[y_code]
    if draw(st.booleans()):
        g = (g_code.astype(np.int64) * 1_000_003 + 2**62).astype(
            np.int64
        )  # past 2**53: no float may hold them
    else:
        g = np.array([f"user-{v}" for v in g_code])
    w = None
    if weighted:
        w = r.choice([0.0, 0.1, 0.3, 1.0, 2.5, 1e-3], n)
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=4))))
    return y, s, g, w, labels, cuts


def chunks_of(y, s, g, w, cuts):
    edges = [0, *cuts, len(y)]
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        yield (y[a:b], s[a:b], g[a:b]) if w is None else (y[a:b], s[a:b], g[a:b], w[a:b])


def memory(y, s, g, w, labels):
    return quiet(perfeval.evaluate, y, s, groups=g, sample_weight=w, classes=labels, measures=MULTICLASS)


# -- the stream -----------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True), st.sampled_from([None, 1, 5]), st.integers(1, 4))
def test_stream_per_group_is_memory_bit_for_bit(d, budget, partitions):
    y, s, g, w, labels, cuts = d
    want = memory(y, s, g, w, labels)
    got = quiet(
        evaluate_stream_grouped_classes,
        chunks_of(y, s, g, w, cuts),
        labels,
        measures=MULTICLASS,
        budget_rows=budget,
        partitions=partitions,
    )
    same_groups(got, want)
    assert got.params["backend"] == "stream"


@settings(max_examples=30, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True))
def test_stream_clustered_is_memory_bit_for_bit(d):
    y, s, g, w, labels, cuts = d
    order = np.argsort(g, kind="stable")  # clustered by group, each group's rows in input order
    y, s, g = y[order], s[order], g[order]
    w = None if w is None else w[order]
    got = quiet(
        evaluate_stream_grouped_classes,
        chunks_of(y, s, g, w, cuts),
        labels,
        measures=MULTICLASS,
        clustered=True,
    )
    same_groups(got, memory(y, s, g, w, labels))


def test_a_group_over_the_budget_is_folded_into_its_summary():
    """Groups larger than the budget are finished from their summary folded block by block (not
    in memory): the same bits, weights or not."""
    rng = np.random.default_rng(4)
    n, k = 3000, 4
    y = rng.integers(0, k, n)
    s = rng.integers(0, 5, (n, k)) / 4.0
    g = rng.integers(0, 3, n)
    w = rng.random(n) * (rng.random(n) > 0.2)
    folded = []
    real = _ClassJob._one_group

    def spy(self, part):
        folded.append(part.rows)
        return real(self, part)

    _ClassJob._one_group = spy
    try:
        for weights in (None, w):
            got = quiet(
                evaluate_stream_grouped_classes,
                chunks_of(y, s, g, weights, [10, 900, 1700]),
                list(range(k)),
                measures=MULTICLASS,
                budget_rows=200,
                partitions=2,
            )
            same_groups(got, memory(y, s, g, weights, list(range(k))))
    finally:
        _ClassJob._one_group = real
    assert len(folded) == 6 and min(folded) > 200  # every group, both times, from its summary


def test_stream_totals_and_errors():
    y = np.array(["a", "b", "c", "a"])
    s = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.4, 0.4, 0.2]])
    g = np.array([1, 1, 2, 2])
    totals: dict = {}
    r = quiet(
        evaluate_stream_grouped_classes,
        [(y[:2], s[:2], g[:2]), (y[2:], s[2:], g[2:])],
        ["a", "b", "c"],
        totals=totals,
    )
    whole = quiet(perfeval.evaluate, y, s, classes=["a", "b", "c"])
    assert np.array_equal(totals["summary"].confusion, whole.summary.confusion)
    assert r.params["rows"] == 4 and r.params["groups"] == 2
    with pytest.raises(InvalidDataError, match="not one of the classes"):
        evaluate_stream_grouped_classes([(np.array(["a", "x"]), s[:2], g[:2])], ["a", "b", "c"])
    with pytest.raises(InvalidParameterError, match="all have weights or none"):
        evaluate_stream_grouped_classes(
            [(y[:2], s[:2], g[:2]), (y[2:], s[2:], g[2:], np.ones(2))], ["a", "b", "c"]
        )
    with pytest.raises(InvalidDataError, match="not clustered by group: group 2 appears again"):
        evaluate_stream_grouped_classes(
            [(y, s, np.array([1, 2, 1, 2]))], ["a", "b", "c"], clustered=True, measures=["acc_mc"]
        )


# -- Dask -----------------------------------------------------------------------------------------------
def frame(y, s, g, w, labels):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"y": y})
    for i, c in enumerate(labels):
        df[c] = s[:, i]
    df["user"] = g
    if w is not None:
        df["w"] = w
    return df


@settings(max_examples=12, deadline=None)
@given(grouped(weighted=False) | grouped(weighted=True), st.integers(1, 5))
def test_dask_per_group_is_memory_and_stream_bit_for_bit(d, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    y, s, g, w, labels, cuts = d
    df = frame(y, s, g, w, labels)
    weight = None if w is None else "w"
    want = quiet(
        perfeval.evaluate, df, target="y", score=labels, group="user", weight=weight, measures=MULTICLASS
    )
    ddf = dd.from_pandas(df, npartitions=npartitions)
    got = quiet(
        perfeval.evaluate, ddf, target="y", score=labels, group="user", weight=weight, measures=MULTICLASS
    )
    same_groups(got, want)
    assert got.params["backend"] == "dask"
    how = got.params["classes_from"]
    streamed = quiet(
        evaluate_stream_grouped_classes,
        chunks_of(y, s, g, w, cuts),
        labels,
        measures=MULTICLASS,
        classes_from=how,
    )
    same_groups(streamed, got)
    arrays = memory(y, s, g, w, labels)  # the table's door and the arrays' agree
    arrays.params["classes_from"] = how
    same_groups(got, arrays)


def test_dask_keeps_each_groups_rows_in_the_frames_order():
    """Weighted sums depend on the order of the rows: the shuffle by group must not change it, even
    when the partitions come in another order (a group spread over every partition)."""
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(8)
    n, k = 4000, 3
    labels = ["p", "q", "r"]
    y = np.array(labels)[rng.integers(0, k, n)]
    s = rng.integers(0, 3, (n, k)) / 2.0
    g = rng.integers(0, 3, n)
    w = rng.random(n) * 1e-3 + rng.choice([0.0, 1e8], n)  # sums that rounding shows in any other order
    df = frame(y, s, g, w, labels)
    parts = dd.from_pandas(df, npartitions=16)
    ddf = dd.concat([parts.partitions[i] for i in range(16)][::-1])  # the frame: the partitions reversed
    sizes = parts.map_partitions(len).compute().tolist()
    edges = np.concatenate([[0], np.cumsum(sizes)])
    order = np.concatenate([np.arange(edges[i], edges[i + 1]) for i in range(16)][::-1])
    want = quiet(
        perfeval.evaluate,
        df.iloc[order],
        target="y",
        score=labels,
        group="user",
        weight="w",
        measures=MULTICLASS,
    )
    got = quiet(
        perfeval.evaluate, ddf, target="y", score=labels, group="user", weight="w", measures=MULTICLASS
    )
    same_groups(got, want)
    # and the reversed order's sums are not the frame's: the test can tell the orders apart
    other = quiet(
        perfeval.evaluate, df, target="y", score=labels, group="user", weight="w", measures=MULTICLASS
    )
    assert any(
        bits(other.results[lab].per_group) != bits(want.results[lab].per_group) for lab in want.results
    ) or bits(other.group_sizes) != bits(want.group_sizes)


def test_dask_per_group_errors_are_one_line():
    dd = pytest.importorskip("dask.dataframe")
    s = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    df = frame(np.array(["cat", "fish", "bird"]), s, np.array([1, 1, 2]), None, ["cat", "dog", "bird"])
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(
        InvalidDataError, match="the target column 'y' holds 'fish', which is not one of the classes"
    ):
        perfeval.evaluate(ddf, target="y", score=["cat", "dog", "bird"], group="user")
    with pytest.raises(InvalidParameterError, match="column 'team' is not in the Dask DataFrame"):
        perfeval.evaluate(ddf, target="y", score=["cat", "dog", "bird"], group="team")
    # a row of weight 0 is no row: its label is not read, as in memory
    df["w"] = [1.0, 0.0, 2.0]
    got = quiet(
        perfeval.evaluate,
        dd.from_pandas(df, npartitions=2),
        target="y",
        score=["cat", "dog", "bird"],
        group="user",
        weight="w",
    )
    want = quiet(perfeval.evaluate, df, target="y", score=["cat", "dog", "bird"], group="user", weight="w")
    same_groups(got, want)


# -- the command line -----------------------------------------------------------------------------------
def _table(tmp_path, clustered: bool = False):
    rng = np.random.default_rng(11)
    n = 600
    lines = ["label,user,w,cat,dog,bird"]
    rows = []
    for _ in range(n):
        sc = rng.integers(0, 5, 3) / 4
        user = int(rng.integers(0, 25)) * 2**40 + 2**62
        rows.append(
            (
                user,
                f"{rng.choice(['cat', 'dog', 'bird'])},{user},{rng.random() * (rng.random() > 0.2):.3f},"
                f"{sc[0]},{sc[1]},{sc[2]}",
            )
        )
    if clustered:
        rows.sort(key=lambda r: r[0])
    lines += [r[1] for r in rows]
    path = tmp_path / "three.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("weight", [[], ["--weight", "w"]])
@pytest.mark.parametrize("clustered", [False, True])
def test_cli_stream_group_is_the_evaluation_in_memory(tmp_path, capsys, weight, clustered):
    from perfeval.cli.main import main

    path = _table(tmp_path, clustered)
    base = ["eval", path, "--target", "label", "--score", "cat,dog,bird", "--group", "user", *weight]
    base += ["-m", "roc,ROC_OVO,acc,f1,logloss", "--confusion", "--format", "json"]
    assert quiet(main, base) == 0
    mem = json.loads(capsys.readouterr().out)
    extra = ["--stream"] + (["--clustered"] if clustered else [])
    assert quiet(main, [*base, *extra]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["params"].pop("backend") == "stream" and mem["params"].pop("backend") == "memory"
    got["params"].pop("spill_partitions", None)
    got.pop("signature"), mem.pop("signature")
    assert got == mem
    assert len(mem["measures"]["ROC_OVR:average=macro"]["per_group"]) == 25


def test_cli_long_stream_per_group_is_the_long_table_in_memory(tmp_path, capsys):
    """--long --stream --group was refused (a case's rows may lie in different chunks): each chunk's
    whole cases are pivoted now, a case cut by a chunk's end carried on (tests/test_long_stream.py)."""
    import json

    from perfeval.cli.main import main

    path = tmp_path / "long.csv"
    path.write_text(
        "id,user,label,class,score\n1,1,a,a,0.7\n1,1,a,b,0.3\n2,1,b,a,0.4\n2,1,b,b,0.6\n"
        "3,2,a,a,0.2\n3,2,a,b,0.8\n4,2,b,a,0.1\n4,2,b,b,0.9\n"
    )
    argv = ["eval", str(path), "--long", "--id", "id", "--class", "class", "--target", "label", "--score"]
    argv += ["score", "--group", "user", "-m", "roc_ovr,acc_mc", "--format", "json"]
    outs = []
    for extra in ([], ["--stream"]):
        assert main([*argv, *extra]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0]["measures"] == outs[1]["measures"]
    assert outs[1]["measures"]["ACC_MC"]["per_group"] == {"1": 1.0, "2": 0.5}
