"""An operating point's threshold beside its value, everywhere a value goes (issue 33): the result of
``TPR_AT_FPR@0.1`` (and of every measure with an ``of`` parameter) carries the score threshold of
its point (``result.threshold``; per group ``result.threshold_per_group``), the number
``of=threshold`` gives, from one choice of point (not computed twice), in memory, streamed, on Dask,
in ``perfeval.Metric`` and on the command line (table, JSON, and a ``threshold`` column in CSV).
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.backends.stream import evaluate_stream, evaluate_stream_grouped
from perfeval.cli.main import main
from perfeval.measures import operating

SPECS = [
    "tpr_at_fpr@0.2",
    "sen_at_spc@0.7",
    "spc_at_sen@0.7",
    "pre_at_rec@0.6",
    "rec_at_pre@0.6",
    "youden",
    "topleft",
    "best_fbeta@2",
    "best_mcc",
    "least_cost:fn=5,fp=1",
]


def _data(n: int = 300, seed: int = 5):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.random(n) * 0.6 + 0.4 * y, 2)
    g = rng.integers(0, 6, n)
    w = rng.choice([0.5, 1.0, 2.0], n)
    return y, s, g, w


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def _twin(label: str) -> str:
    return label + (",of=threshold" if ":" in label else ":of=threshold")


def _same(a, b) -> bool:
    """The same bits (NaN equal to NaN); None is no threshold, never the same as anything."""
    if a is None or b is None:
        return False
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    return a.tobytes() == b.tobytes()


@pytest.mark.parametrize("weighted", [False, True])
def test_evaluate_gives_each_value_its_threshold(weighted):
    y, s, _g, w = _data()
    sw = w if weighted else None
    r = _quiet(perfeval.evaluate, y, s, measures=[*SPECS, "roc", "pauc@0.2"], sample_weight=sw)
    assert list(r.results) == [r2.label for r2 in r.results.values()]  # no twin left in the report
    assert len(r.results) == len(SPECS) + 2
    for label, res in r.results.items():
        if label.startswith(("ROC", "PAUC")):  # no operating point: no threshold
            assert res.threshold is None and res.threshold_per_group is None
            continue
        alone = _quiet(perfeval.evaluate, y, s, measures=[_twin(label)], sample_weight=sw)
        assert _same(res.threshold, alone[_twin(label)]), label
        assert res.threshold_per_group is None
        # the point's value: the measure's own at that threshold (the threshold is the point's)
        assert not math.isnan(res.threshold)


def test_per_group_each_group_has_its_threshold():
    y, s, g, w = _data()
    r = _quiet(perfeval.evaluate, y, s, groups=g, sample_weight=w, measures=SPECS)
    for label, res in r.results.items():
        assert res.threshold is None  # the headline is a mean over groups: no one point
        alone = _quiet(perfeval.evaluate, y, s, groups=g, sample_weight=w, measures=[_twin(label)])
        assert _same(res.threshold_per_group, alone.results[_twin(label)].per_group), label
        for i, key in enumerate(r.groups.tolist()):  # each group's threshold is its own, alone
            one = _quiet(
                perfeval.evaluate, y[g == key], s[g == key], sample_weight=w[g == key], measures=[label]
            )
            assert _same(res.threshold_per_group[i], one.results[label].threshold), (label, key)


def test_partitions_and_a_twin_asked_too():
    y, s, _g, _w = _data()
    labels = np.where(y == 1, "cat", np.where(s > 0.3, "dog", "bird"))
    r = _quiet(perfeval.evaluate, labels, s, measures=["youden"], partitions={"cat": ["cat"], "dog": ["dog"]})
    assert set(r.results) == {"YOUDEN[cat]", "YOUDEN[dog]"}
    for key in r.results:
        assert r.results[key].threshold is not None
    asked = _quiet(perfeval.evaluate, y, s, measures=["youden", "youden:of=threshold"])
    assert list(asked.results) == ["YOUDEN", "YOUDEN:of=threshold"]  # asked: kept
    assert asked.results["YOUDEN"].threshold == asked["YOUDEN:of=threshold"]


def test_the_point_is_chosen_once_for_its_value_and_threshold(monkeypatch):
    """The value and the threshold read one choice of point, kept with the summary (or the groups):
    the walk that picks the point (one summary: op_pick; groups: op_pick_groups over every group's
    cells) runs once per evaluation."""
    calls = []
    walk, groups_walk = operating.compiled_choice, operating.compiled_choice_groups

    def counted_walk(h, rule, args):
        calls.append("summary")
        return walk(h, rule, args)

    def counted_groups(gd, rule, args):
        calls.append("groups")
        return groups_walk(gd, rule, args)

    monkeypatch.setattr(operating, "compiled_choice", counted_walk)
    monkeypatch.setattr(operating, "compiled_choice_groups", counted_groups)
    y, s, g, _w = _data()
    r = _quiet(perfeval.evaluate, y, s, measures=["youden"])
    assert calls == ["summary"] and r.results["YOUDEN"].threshold is not None
    _quiet(perfeval.evaluate, y, s, groups=g, measures=["youden", "youden:of=threshold"])
    assert calls == ["summary", "groups"]


def test_one_warning_for_an_undefined_value_not_two():
    with pytest.warns(perfeval.exceptions.UndefinedMeasureWarning) as got:
        r = perfeval.evaluate([1, 1, 1], [0.2, 0.4, 0.6], measures=["youden"])
    assert len(got) == 1 and "of=threshold" not in str(got[0].message)
    assert math.isnan(r["YOUDEN"]) and math.isnan(r.results["YOUDEN"].threshold)


def test_streamed_dask_and_metric_give_the_same_thresholds():
    y, s, g, w = _data()
    ref = _quiet(perfeval.evaluate, y, s, measures=SPECS, sample_weight=w)
    chunks = [(y[a : a + 50], s[a : a + 50], w[a : a + 50]) for a in range(0, len(y), 50)]
    streamed = _quiet(evaluate_stream, chunks, measures=SPECS)
    m = perfeval.Metric(measures=SPECS)
    for yy, ss, ww in chunks:
        m.update(yy, ss, sample_weight=ww)
    metric = _quiet(m.compute)
    for label in ref.results:
        t = ref.results[label].threshold
        assert _same(streamed.results[label].threshold, t) and _same(metric.results[label].threshold, t), (
            label
        )
    ref_g = _quiet(perfeval.evaluate, y, s, groups=g, measures=SPECS)
    grouped = _quiet(evaluate_stream_grouped, [(y, s, g)], measures=SPECS, budget_rows=100)
    for label in ref_g.results:
        assert _same(grouped.results[label].threshold_per_group, ref_g.results[label].threshold_per_group)
    assert set(grouped.results) == set(ref_g.results)


def test_dask_gives_the_same_thresholds():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    y, s, g, _w = _data()
    df = pd.DataFrame({"y": y, "s": s, "g": g})
    ddf = dd.from_pandas(df, npartitions=3)
    ref = _quiet(perfeval.evaluate, y, s, measures=SPECS)
    got = _quiet(perfeval.evaluate, ddf, target="y", score="s", measures=SPECS)
    for label in ref.results:
        assert _same(got.results[label].threshold, ref.results[label].threshold), label
    ref_g = _quiet(perfeval.evaluate, y, s, groups=g, measures=SPECS)
    got_g = _quiet(perfeval.evaluate, ddf, target="y", score="s", group="g", measures=SPECS)
    assert set(got_g.results) == set(ref_g.results)
    for label in ref_g.results:
        assert _same(got_g.results[label].threshold_per_group, ref_g.results[label].threshold_per_group), (
            label
        )


def test_a_dialect_gives_the_tool_s_threshold_only_when_asked():
    y, s, _g, _w = _data()
    r = _quiet(perfeval.evaluate, y, s, measures=["sen_at_spc@0.7"], dialect="torchmetrics")
    assert r.results["SEN_AT_SPC@0.7"].threshold is None


def test_to_frame_has_a_threshold_column():
    pytest.importorskip("pandas")
    y, s, _g, _w = _data()
    f = _quiet(perfeval.evaluate, y, s, measures=["roc", "youden"]).to_frame()
    assert math.isnan(f.loc["ROC", "threshold"]) and f.loc["YOUDEN", "threshold"] > 0
    assert "threshold" not in _quiet(perfeval.evaluate, y, s, measures=["roc"]).to_frame().columns


# -- the command line: table, JSON, CSV ------------------------------------------------------------
@pytest.fixture
def table(tmp_path):
    y, s, g, _w = _data(60)
    t = np.round(np.clip(s + np.random.default_rng(1).normal(0, 0.1, len(s)), 0, 1), 2)
    f = tmp_path / "d.csv"
    f.write_text("y,s,t,g\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in zip(y, s, t, g, strict=True)))
    return f, y, s, t, g


def _run(capsys, *argv) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_csv_has_a_threshold_column_last(table, capsys):
    f, y, s, _t, _g = table
    out = _run(
        capsys,
        "eval",
        str(f),
        "--target",
        "y",
        "--score",
        "s",
        "-m",
        "roc,youden,tpr_at_fpr@0.2",
        "--format",
        "csv",
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["measure", "value", "threshold"]
    ref = _quiet(perfeval.evaluate, y, s, measures=["youden", "tpr_at_fpr@0.2"])
    got = {r["measure"]: r["threshold"] for r in rows}
    assert got["ROC"] == ""  # no operating point: empty
    assert float(got["YOUDEN"]) == ref.results["YOUDEN"].threshold
    assert float(got["TPR_AT_FPR@0.2"]) == ref.results["TPR_AT_FPR@0.2"].threshold
    plain = _run(capsys, "eval", str(f), "--target", "y", "--score", "s", "-m", "roc,apr", "--format", "csv")
    assert plain.splitlines()[0] == "measure,value"  # no operating point: the CSV as it was


def test_csv_per_group_and_models_name_the_threshold_columns(table, capsys, tmp_path):
    f, y, s, t, g = table
    out = _run(
        capsys,
        "eval",
        str(f),
        "--target",
        "y",
        "--score",
        "s",
        "--group",
        "g",
        "-m",
        "roc,youden",
        "--format",
        "csv",
        "--per-group",
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["group", "ROC", "YOUDEN", "YOUDEN threshold"]
    ref = _quiet(perfeval.evaluate, y, s, groups=g, measures=["youden"]).results["YOUDEN"]
    assert [float(r["YOUDEN threshold"]) for r in rows] == ref.threshold_per_group.tolist()
    side = tmp_path / "groups.csv"
    _run(
        capsys,
        "eval",
        str(f),
        "--target",
        "y",
        "--score",
        "s",
        "--group",
        "g",
        "-m",
        "youden",
        "--per-group-output",
        str(side),
    )
    assert side.read_text().splitlines()[0] == "group,YOUDEN,YOUDEN threshold"
    models = _run(
        capsys, "eval", str(f), "--target", "y", "--score", "s,t", "-m", "youden", "--format", "csv"
    )
    head, *body = list(csv.reader(io.StringIO(models)))
    assert head == ["model", "YOUDEN", "YOUDEN threshold"]
    for name, col in (("s", s), ("t", t)):
        row = next(r for r in body if r[0] == name)
        assert (
            float(row[2])
            == _quiet(perfeval.evaluate, y, col, measures=["youden"]).results["YOUDEN"].threshold
        )


def test_json_and_table_give_the_threshold(table, capsys):
    f, y, s, _t, _g = table
    d = json.loads(
        _run(capsys, "eval", str(f), "--target", "y", "--score", "s", "-m", "youden", "--format", "json")
    )
    ref = _quiet(perfeval.evaluate, y, s, measures=["youden"]).results["YOUDEN"].threshold
    assert d["measures"]["YOUDEN"]["threshold"] == ref
    text = _run(capsys, "eval", str(f), "--target", "y", "--score", "s", "-m", "youden")
    assert f"YOUDEN: at score >= {ref!r} (of=threshold gives it as a value)" in text
