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
