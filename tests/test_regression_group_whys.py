"""Why a regression measure is NaN in a group (issue 33): each NaN group's reason in the words the
measure gives that group's rows evaluated alone (``MeasureResult.undefined_groups_why``), read from
the per-group sums the values came from, on every backend (memory, the stream's spilled and
clustered parts and its group over the budget, Dask, Spark, a Metric), in the warning of
``perfeval eval --group`` and under the regression report's per-group table."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval
from _registry import every
from perfeval.cli.main import main

#: every regression measure and choice, and powers and alphas whose domains differ
MEASURES = every("regression") + [
    "D2_PINBALL:alpha=0.3",
    "D2_TWEEDIE:power=1.5",
    "D2_TWEEDIE:power=-1",
    "TWEEDIE_DEV:power=-1",
    "TWEEDIE_DEV:power=3",
]

#: groups made to be NaN for each reason a regression measure has (and one where all are defined)
GROUPS = {
    "ok": ([1.0, 2.5, 4.0, 3.0], [1.2, 2.0, 3.5, 3.3]),
    "const": ([2.0, 2.0, 2.0], [1.5, 2.0, 2.5]),  # every target equal: R2, EXPVAR, the D2 scores
    "solo": ([3.0], [2.5]),  # one row: its variance 0
    "zero": ([0.0, 1.0, 2.0], [0.5, 1.0, 2.5]),  # a target of 0: MAPE, GAMMA_DEV
    "zeros": ([0.0, 0.0, 5.0, 1.0], [0.1, 0.3, 4.0, 1.0]),  # two of them
    "neg": ([-2.0, 1.0, 3.0], [0.5, 1.0, 2.5]),  # a negative target: POISSON_DEV, GAMMA_DEV, power 1.5
    "negmean": ([-5.0, 1.0, 2.0], [0.5, 1.0, 2.5]),  # the mean < 0: D2_TWEEDIE power -1's constant
    "log": ([-1.5, 2.0, 3.0], [-0.5, -1.0, 3.5]),  # two rows with a value <= -1: MSLE, RMSLE
    "negpred": ([1.0, 2.0, 3.0], [-0.5, 2.0, -1.0]),  # predictions <= 0: every deviance but power 0
}


def rows_of(groups: dict, weighted: bool, seed: int = 3):
    """(y, p, g, w) of ``groups`` ({key: (targets, predictions)}), the rows group after group; ``w``
    halves of 1 to 3 drawn with ``seed`` when ``weighted``, else None."""
    y, p, g = [], [], []
    for key, (ys, ps) in groups.items():
        y += list(ys)
        p += list(ps)
        g += [key] * len(ys)
    w = np.random.default_rng(seed).integers(1, 4, len(y)) * 0.5 if weighted else None
    return np.array(y, dtype=np.float64), np.array(p, dtype=np.float64), np.array(g), w


def rows(weighted: bool):
    return rows_of(GROUPS, weighted)


def write_csv(path, y, p, g) -> None:
    lines = zip(y.tolist(), p.tolist(), g.tolist(), strict=True)
    path.write_text("y,p,g\n" + "".join(f"{a!r},{b!r},{c}\n" for a, b, c in lines))


def quiet_evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(*args, **kwargs)


def whys_of(report) -> dict:
    """``{label: {group: why}}`` of a grouped report's NaN groups."""
    out = {}
    for label, r in report.results.items():
        assert len(r.undefined_groups_why) == len(r.undefined), label
        out[label] = dict(zip([str(k) for k in r.undefined], r.undefined_groups_why, strict=True))
    return out


def each_group_alone(y, p, g, w, groups, measures, marked: str) -> tuple[object, set]:
    """The grouped report of ``measures`` (each group's value and reason those of its rows alone,
    asserted) and the (group, label) pairs whose reason alone holds ``marked``."""
    grouped = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=measures)
    said = whys_of(grouped)
    keys = [str(k) for k in grouped.groups]
    found = set()
    for key in groups:
        m = g == key
        alone = quiet_evaluate(y[m], p[m], sample_weight=None if w is None else w[m], measures=measures)
        for label, r in alone.results.items():
            mine = grouped.results[label].per_group[keys.index(key)]
            if math.isnan(r.value):
                assert math.isnan(mine) and said[label].get(key) == r.why, (key, label, said[label].get(key))
                if marked in r.why:
                    found.add((key, label))
            else:
                assert mine == r.value and key not in said[label], (key, label)
    return grouped, found


@pytest.mark.parametrize("weighted", [False, True])
def test_each_groups_reason_is_the_groups_own_alone(weighted):
    y, p, g, w = rows(weighted)
    grouped = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    said = whys_of(grouped)
    nan_somewhere = set()
    for key in GROUPS:
        m = g == key
        alone = quiet_evaluate(y[m], p[m], sample_weight=None if w is None else w[m], measures=MEASURES)
        for label, r in alone.results.items():
            if np.isnan(r.value):
                nan_somewhere.add(label)
                assert r.why, (key, label)  # the scalar says why ...
                assert said[label].get(key) == r.why, (key, label)  # ... and its group the same words
            else:
                assert key not in said[label], (key, label)
    # every measure that can be NaN in a group is NaN in one here (the others are NaN only with no
    # case, and a group of no case is no group: its rows of weight 0 are dropped at the door)
    assert nan_somewhere == {
        "R2", "EXPVAR", "MAPE", "POISSON_DEV", "GAMMA_DEV", "D2_PINBALL", "D2_AE", "D2_TWEEDIE", "MSLE",
        "RMSLE", "D2_PINBALL@0.3", "D2_TWEEDIE@1.5", "D2_TWEEDIE@-1", "TWEEDIE_DEV@-1", "TWEEDIE_DEV@3",
    }  # fmt: skip


def test_the_reasons_count_the_groups_rows():
    y, p, g, _ = rows(False)
    said = whys_of(
        quiet_evaluate(y, p, groups=g, measures=["mape", "msle", "gamma_dev", "d2_tweedie:power=-1"])
    )
    assert said["MAPE"]["zeros"].startswith("2 targets are 0 or below 2.2e-16 in size: ")
    assert said["MAPE"]["zero"].startswith("1 target is 0 or below 2.2e-16 in size: ")
    assert said["MSLE"]["log"].startswith("2 rows with a target or a prediction <= -1")
    assert said["GAMMA_DEV"]["negpred"].startswith("2 rows outside the deviance's domain (power 2 needs")
    (d2,) = [lab for lab in said if lab.startswith("D2_TWEEDIE")]
    assert said[d2]["negmean"].startswith("the targets' weighted mean is -0.6666666666666666: ")


def test_the_warning_of_eval_group_gives_each_groups_reason(tmp_path, capsys):
    y, p, g, _ = rows(False)
    path = tmp_path / "g.csv"
    write_csv(path, y, p, g)
    code = main(["eval", str(path), "--target", "y", "--score", "p", "--group", "g", "-m", "r2,mape"])
    _out, err = capsys.readouterr()
    assert code == 0
    assert (
        "R2 is undefined for 2 of 9 groups ('const', 'solo': every target is equal (their variance is 0)"
        in err
    )
    assert "MAPE is undefined for 2 of 9 groups ('zero': 1 target is 0 or below 2.2e-16 in size: " in err
    assert "; 'zeros': 2 targets are 0 or below 2.2e-16 in size: " in err
    assert "list-measures --long" not in err  # each group's reason said, not the list of edge cases


def assert_same_whys(a, b):
    """``a`` (a backend) gives each NaN group of ``b`` (memory) its reason, the same words."""
    assert list(a.results) == list(b.results)
    assert any(r.undefined_groups_why for r in b.results.values())  # reasons to compare
    for label in b.results:
        ra, rb = a.results[label], b.results[label]
        assert [str(k) for k in ra.undefined] == [str(k) for k in rb.undefined], label
        assert ra.undefined_groups_why == rb.undefined_groups_why, label


def assert_streams_say_memorys(y, p, g, w, memory, measures) -> None:
    """The grouped stream (spilled parts, some re-split; groups over the budget, each finished from
    its sums; clustered rows) gives each group memory's value and each NaN group memory's reason.
    """
    from perfeval.backends.stream import evaluate_stream_grouped

    for kwargs in (
        {"budget_rows": 8, "partitions": 3},
        {"budget_rows": 2, "partitions": 1},
        {"clustered": True},
    ):
        got = evaluate_stream_grouped(chunks_of(y, p, g, w, 5), measures=measures, **kwargs)
        assert_same_whys(got, memory)
        for label, r in memory.results.items():
            assert np.array_equal(got.results[label].per_group, r.per_group, equal_nan=True), label


def chunks_of(y, p, g, w, size):
    for i in range(0, len(y), size):
        part = (y[i : i + size], p[i : i + size], g[i : i + size])
        yield part + ((w[i : i + size],) if w is not None else ())


@pytest.mark.parametrize("weighted", [False, True])
def test_the_streams_groups_say_memorys_reasons(weighted):

    y, p, g, w = rows(weighted)
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_streams_say_memorys(y, p, g, w, memory, MEASURES)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_metrics_groups_say_memorys_reasons(weighted):
    y, p, g, w = rows(weighted)
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    m = perfeval.Metric(MEASURES)
    for i in range(0, len(y), 7):
        m.update(
            y[i : i + 7], p[i : i + 7], groups=g[i : i + 7], sample_weight=None if w is None else w[i : i + 7]
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_whys(m.compute(), memory)


def test_dasks_groups_say_memorys_reasons():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    y, p, g, w = rows(True)
    frame = pd.DataFrame({"y": y, "p": p, "g": g, "w": w})
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.evaluate(
            dd.from_pandas(frame, npartitions=3),
            target="y",
            score="p",
            group="g",
            weight="w",
            measures=MEASURES,
        )
    assert got.params["backend"] == "dask"
    assert_same_whys(got, memory)


def test_sparks_groups_say_memorys_reasons(spark):
    pd = pytest.importorskip("pandas")
    import perfeval.spark

    y, p, g, w = rows(True)
    frame = pd.DataFrame({"y": y, "p": p, "g": g, "w": w})
    measures = ["r2", "mape", "gamma_dev", "msle", "d2_tweedie:power=-1"]
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=measures)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.spark.evaluate(
            spark.createDataFrame(frame).repartition(3), target="y", score="p", group="g", weight="w",
            measures=measures,
        )  # fmt: skip
    assert got.params["backend"] == "spark"
    assert_same_whys(got, memory)


def test_the_regression_reports_per_group_table_says_why(tmp_path, capsys):
    """Under the per-group table, the groups counted by reason, and each undefined cell's title its
    group's reason (the regression report had the list's place but no reason to put in it)."""
    import html
    import re

    y, p, g, _ = rows(False)
    path = tmp_path / "g.csv"
    write_csv(path, y, p, g)
    out = tmp_path / "r.html"
    code = main(["report", str(path), "--target", "y", "--score", "p", "--group", "g", "-m", "mae,r2,mape",
                 "-o", str(out)])  # fmt: skip
    capsys.readouterr()
    assert code == 0
    text = out.read_text(encoding="utf-8")
    i = text.index("group-whys")
    listed = html.unescape(re.sub(r"<[^>]+>", "", text[i : text.index("</ul>", i)]))
    assert "R2 is undefined in 2 groups (every target is equal (their variance is 0))" in listed
    assert "MAPE is undefined in 2 groups (" in listed and "targets are 0" in listed
    assert "MAE" not in listed
    assert 'title="1 target is 0 or below 2.2e-16 in size: a percentage of 0 is undefined' in text
