"""A group whose rows all have weight 0 is no group (a row of weight 0 is no row), and that is said:
a ``ZeroWeightGroupsWarning`` from the library, a note on the command line, in memory and streamed
(issue 33).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import perfeval
from perfeval.backends.stream import evaluate_stream_grouped
from perfeval.exceptions import ZeroWeightGroupsWarning

NOTE = "perfeval: note: 2 groups (a, d) have only rows of weight 0: left out, as rows of weight 0 are\n"


def _data(n_groups: int = 8, seed: int = 5):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(n_groups), 6)
    y = np.tile([1, 0, 1, 0, 0, 1], n_groups)
    s = np.round(rng.random(len(g)), 3)
    w = rng.integers(1, 4, len(g)).astype(float)
    return y, s, g, w


def _zero_messages(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, ZeroWeightGroupsWarning)]


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_evaluate_says_the_groups_of_weight_0_only_and_drops_them(task):
    y, s, g, w = _data()
    w[g == 2] = 0
    w[g == 5] = 0
    w[np.flatnonzero(g == 3)[:2]] = 0  # a group with some rows of weight 0 is still a group
    measures = ["roc"] if task == "binary" else ["mse"]
    kw = {} if task == "binary" else {"task": "regression"}
    with pytest.warns(ZeroWeightGroupsWarning) as caught:
        r = perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=measures, **kw)
    assert _zero_messages(caught) == [
        "2 groups (2, 5) have only rows of weight 0: left out, as rows of weight 0 are"
    ]
    keep = w > 0  # the equivalence: a row of weight 0 is no row
    same = perfeval.evaluate(y[keep], s[keep], groups=g[keep], sample_weight=w[keep], measures=measures, **kw)
    label = next(iter(r.results))
    assert list(r.groups) == list(same.groups) == [0, 1, 3, 4, 6, 7]
    assert np.array_equal(r.results[label].per_group, same.results[label].per_group)


def test_no_word_when_every_group_keeps_a_row():
    y, s, g, w = _data()
    w[::2] = 0  # every group keeps rows of weight > 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=["roc"])
        perfeval.evaluate(y, s, sample_weight=np.zeros_like(w) + (g > 0), measures=["roc"])  # no groups
    assert _zero_messages(caught) == []


def test_many_groups_are_counted_the_first_five_named():
    y, s, g, w = _data(12)
    w[g < 7] = 0
    with pytest.warns(ZeroWeightGroupsWarning, match=r"^7 groups \(0, 1, 2, 3, 4, \.\.\.\) have only rows"):
        perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=["roc"])


@pytest.mark.parametrize("clustered", [False, True])
def test_the_grouped_stream_says_them_once_over_its_parts(clustered):
    y, s, g, w = _data(10)
    for k in (1, 4, 8):
        w[g == k] = 0
    chunks = [(y[i : i + 7], s[i : i + 7], g[i : i + 7], w[i : i + 7]) for i in range(0, len(y), 7)]
    with pytest.warns(ZeroWeightGroupsWarning) as caught:
        budget = 10**6 if clustered else 5  # 5: every group over the budget, finished alone
        r = evaluate_stream_grouped(
            chunks, measures=["roc"], partitions=4, budget_rows=budget, clustered=clustered
        )
    assert _zero_messages(caught) == [
        "3 groups (1, 4, 8) have only rows of weight 0: left out, as rows of weight 0 are"
    ]
    assert list(r.groups) == [0, 2, 3, 5, 6, 7, 9]


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--stream", "--clustered"]])
@pytest.mark.parametrize("task", [[], ["-m", "mse", "--task", "regression"]])
def test_the_command_notes_them(tmp_path, capsys, extra, task):
    from conftest import run_cli

    f = tmp_path / "g.csv"
    f.write_text("g,y,s,w\na,1,0.9,0\na,0,0.2,0\nb,1,0.9,1\nb,0,0.3,1\nc,1,0.4,2\nc,0,0.6,1\nd,0,0.1,0\n")
    argv = ["eval", str(f), "--target", "y", "--score", "s", "--weight", "w", "--group", "g", "--per-group"]
    code, out, err = run_cli([*argv, *(task or ["-m", "roc"]), *extra], capsys)
    assert code == 0, err
    assert NOTE in err and err.count(NOTE) == 1, err
    assert "\na " not in out and "\nd " not in out and "\nb " in out


# -- Metric: the same warning as evaluate() on the rows of every update so far ----------------------------
def _said(compute) -> tuple[list[tuple], object]:
    """The warnings ``compute()`` gives (class, text), in order, and its report."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = compute()
    return [(w.category, str(w.message)) for w in caught], r


def _metric(measures, y, s, g, w, cuts, **kw) -> perfeval.Metric:
    m = perfeval.Metric(measures, **kw)
    for a, b in cuts:
        m.update(y[a:b], s[a:b], groups=g[a:b], sample_weight=w[a:b])
    return m


KINDS = [
    (["roc", "acc"], {}),  # the rows kept
    (["roc", "acc"], {"clustered": True}),  # each group finished as it ends
    (["mse", "mae"], {"task": "regression"}),
    (["roc"], {"dialect": "sklearn"}),  # every row kept, those of weight 0 too
]


@pytest.mark.parametrize(("measures", "kw"), KINDS)
def test_a_metric_says_what_evaluate_says_whatever_its_updates(measures, kw):
    y, s, g, w = _data(10)
    for k in (1, 4, 8):
        w[g == k] = 0
    w[np.flatnonzero(g == 6)[:3]] = 0  # some of its rows: a group still
    ekw = {"task": kw["task"]} if "task" in kw else {"dialect": kw["dialect"]} if "dialect" in kw else {}
    want, report = _said(lambda: perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=measures, **ekw))
    assert (ZeroWeightGroupsWarning, "3 groups (1, 4, 8) have only rows of weight 0: left out, as rows of "
            "weight 0 are") in want  # fmt: skip
    n = len(y)
    for cuts in (
        [(0, n)],
        [(0, 7), (7, 30), (30, n)],
        [(i, i + 1) for i in range(n)],
        [(0, 25), (25, 25), (25, n)],
    ):
        got, r = _said(_metric(measures, y, s, g, w, cuts, **kw).compute)
        assert got == want, cuts
        assert list(r.groups) == list(report.groups)


@pytest.mark.parametrize(("measures", "kw"), KINDS)
def test_rows_of_weight_0_in_one_update_and_not_in_another_make_a_group(measures, kw):
    """Group 1's rows of weight 0 come in the first update, its rows of weight > 0 in the second: it
    is a group, and nothing is said (each update alone would have said it)."""
    y, s, g, w = _data(4)  # six rows a group, in group order
    w[6:9] = 0  # group 1's first three rows: the end of the first update
    got, r = _said(_metric(measures, y, s, g, w, [(0, 9), (9, len(y))], **kw).compute)
    assert not [m for c, m in got if c is ZeroWeightGroupsWarning] and 1 in list(r.groups)
    alone = _said(lambda: _metric(measures, y, s, g, w, [(0, 9)], **kw).compute())[0]
    assert (
        ZeroWeightGroupsWarning,
        "1 group (1) has only rows of weight 0: left out, as rows of weight 0 are",
    ) in alone


@pytest.mark.parametrize(("measures", "kw"), [k for k in KINDS if "clustered" not in k[1]])
def test_a_merge_a_state_and_a_pickle_keep_them(measures, kw):
    import pickle

    y, s, g, w = _data(6)
    w[g == 2] = 0
    w[g == 4] = 0
    ekw = {"task": kw["task"]} if "task" in kw else {"dialect": kw["dialect"]} if "dialect" in kw else {}
    want, _ = _said(lambda: perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=measures, **ekw))
    a = _metric(measures, y, s, g, w, [(0, 20)], **kw)
    b = _metric(measures, y, s, g, w, [(20, len(y))], **kw)
    merged = perfeval.Metric.merge_all([a, b])
    back = perfeval.Metric(measures, **kw)
    back.load_state_dict(a.state_dict())
    back.merge(b)
    for m in (merged, back, pickle.loads(pickle.dumps(merged))):
        assert _said(m.compute)[0] == want
    if "dialect" not in kw:  # one id a group in the state, not one a row
        assert list(a.state_dict()["zero_groups"]) == [2]
    # group 2's rows of weight > 0 in another Metric: merged in, it is a group
    c = perfeval.Metric(measures, **kw)
    c.update(y[g == 2][:2], s[g == 2][:2], groups=g[g == 2][:2], sample_weight=np.ones(2))
    got, r = _said(perfeval.Metric.merge_all([a, b, c]).compute)
    assert (
        ZeroWeightGroupsWarning,
        "1 group (4) has only rows of weight 0: left out, as rows of weight 0 are",
    ) in got
    assert 2 in list(r.groups)


def test_a_clustered_metric_merged_says_them_once():
    y, s, g, w = _data(6)
    w[g == 2] = 0
    w[g == 4] = 0
    want, _ = _said(lambda: perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=["roc"]))
    a = _metric(["roc"], y, s, g, w, [(0, 18)], clustered=True)  # groups 0, 1, 2
    b = _metric(["roc"], y, s, g, w, [(18, len(y))], clustered=True)
    assert _said(perfeval.Metric.merge_all([a, b]).compute)[0] == want


def test_a_state_written_before_loads_and_says_nothing_of_them():
    y, s, g, w = _data(4)
    w[g == 2] = 0
    m = _metric(["roc"], y, s, g, w, [(0, len(y))])
    old = {k: v for k, v in m.state_dict().items() if k != "zero_groups"}
    back = perfeval.Metric(["roc"])
    back.load_state_dict(old)
    got, r = _said(back.compute)
    assert not [x for c, x in got if c is ZeroWeightGroupsWarning] and 2 not in list(r.groups)
    bad = dict(m.state_dict(), zero_groups=[2])
    with pytest.raises(perfeval.InvalidParameterError, match="zero_groups"):
        perfeval.Metric(["roc"]).load_state_dict(bad)
