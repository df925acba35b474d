"""Grouped streaming in bounded memory, as a user meets it: a partition over the row budget split
again, a group over the budget finished from its own summary (numbers as in memory), targets
coded over the whole group, int and text chunks of one id, the spill smaller than its text, and a
full disk under the spill (the spill's format and the signal handling: tests/test_stream_spill.py)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from perfeval import evaluate
from perfeval.backends.stream import evaluate_stream_grouped
from perfeval.measures import list_measures

BINARY = [m.name for m in list_measures() if m.kind == "binary"]
RANKING = [m.name for m in list_measures() if m.kind == "ranking"]
GROUPED = [m.name for m in list_measures() if m.kind == "grouped"]
SPECS = {"CST": "cst:fn=1,fp=2"}


def _spec(names):
    return [SPECS.get(n, n) for n in names]


def _data(rng, n, groups, weights=False, text=False, big=None):
    y = (rng.random(n) < 0.4).astype(np.float64)
    s = np.round(rng.random(n), 2)  # ties
    g = rng.integers(0, groups, n)
    if big is not None:
        g[rng.random(n) < big] = 7  # one group holds most rows
    g = np.array([f"q{k}" for k in g]) if text else g.astype(np.int64)
    w = rng.integers(0, 3, n).astype(np.float64) if weights else None
    return y, s, g, w


def _chunks(y, s, g, w, size):
    for a in range(0, len(y), size):
        b = a + size
        yield (y[a:b], s[a:b], g[a:b]) if w is None else (y[a:b], s[a:b], g[a:b], w[a:b])


def _compare(a, b, rel=0.0):
    assert list(a.groups) == list(b.groups)
    for k in b:
        pa, pb = a.results[k].per_group, b.results[k].per_group
        close = (
            np.isclose(pa, pb, rtol=rel, atol=0, equal_nan=True)
            if rel
            else ((pa == pb) | (np.isnan(pa) & np.isnan(pb)))
        )
        assert close.all(), (k, pa[~close][:3], pb[~close][:3])
        assert np.array_equal(
            a.results[k].sizes if hasattr(a.results[k], "sizes") else 0,
            b.results[k].sizes if hasattr(b.results[k], "sizes") else 0,
        )


@pytest.mark.parametrize("text", [False, True])
@pytest.mark.parametrize("weights", [False, True])
def test_a_partition_over_the_budget_is_split_again_exactly(text, weights):
    rng = np.random.default_rng(1 + 2 * text + weights)
    y, s, g, w = _data(rng, 6000, 300, weights, text)
    names = _spec(BINARY) + ([] if weights else _spec(GROUPED + RANKING))  # weights: binary measures only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evaluate_stream_grouped(_chunks(y, s, g, w, 700), measures=names, partitions=2, budget_rows=200)
        b = evaluate(y, s, groups=g, sample_weight=w, measures=names)
    _compare(a, b)  # no group over half the budget: the in-memory kernels, bit for bit


@pytest.mark.parametrize("weights", [False, True])
def test_a_group_over_the_budget_is_finished_from_its_summary(weights):
    rng = np.random.default_rng(5 + weights)
    y, s, g, w = _data(rng, 8000, 50, weights, big=0.7)
    names = _spec(BINARY) + ([] if weights else _spec(GROUPED))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evaluate_stream_grouped(_chunks(y, s, g, w, 900), measures=names, partitions=3, budget_rows=1000)
        b = evaluate(y, s, groups=g, sample_weight=w, measures=names)
    _compare(a, b)  # finished from the group's summary with the kernels' own arithmetic: bit for bit
    assert 7 in list(a.groups)


def test_a_huge_group_with_per_query_measures_is_still_exact():
    rng = np.random.default_rng(9)
    y, s, g, _ = _data(rng, 5000, 40, big=0.6)
    y = rng.integers(0, 4, len(y)).astype(np.float64)  # graded relevance
    names = _spec(RANKING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evaluate_stream_grouped(
            _chunks(y, s, g, None, 600), measures=names, partitions=2, budget_rows=800
        )
        b = evaluate(y, s, groups=g, measures=names)
    _compare(a, b)


def test_a_group_whose_rows_all_weigh_zero_is_no_group_in_any_path():
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0], float)
    s = np.array([0.9, 0.1, 0.8, 0.3, 0.7, 0.2, 0.6, 0.5])
    g = np.array([1, 1, 1, 1, 1, 1, 2, 2])
    w = np.array([1, 1, 1, 1, 1, 1, 0, 0], float)
    for budget in (100, 4):  # in memory; group 1 from its summary
        a = evaluate_stream_grouped([(y, s, g, w)], measures=["roc", "acc"], budget_rows=budget)
        assert list(a.groups) == [1] and a["ROC"] == 1.0 and a.results["ROC"].per_group.tolist() == [1.0]


def test_targets_coded_across_the_whole_group_not_block_by_block():
    # -1/1 in one block and 0 in another: no coding fits the group, so it is an error, as in memory
    y = np.array([-1, 1, -1, 1, 0, 0], float)
    s = np.linspace(0.1, 0.9, 6)
    g = np.zeros(6, np.int64)
    with pytest.raises(ValueError, match="binary targets"):
        evaluate(y, s, groups=g, measures=["roc"])
    with pytest.raises(ValueError, match="binary targets"):
        evaluate_stream_grouped(
            [(y[:4], s[:4], g[:4]), (y[4:], s[4:], g[4:])], measures=["roc"], budget_rows=2
        )


def test_int_and_text_chunks_of_one_key_meet_in_one_group():
    # a chunk of plain integers comes as int64, a chunk with any text as text: "5" and 5 are one group
    chunks = [
        (np.array([1.0, 0.0]), np.array([0.9, 0.1]), np.array([5, 6])),
        (np.array([0.0, 1.0]), np.array([0.8, 0.7]), np.array(["5", "x"])),
    ]
    for budget in (100, 2):
        a = evaluate_stream_grouped(chunks, measures=["gauc", "roc"], partitions=1, budget_rows=budget)
        assert sorted(map(str, a.groups)) == ["5", "6", "x"]
        assert a.results["GAUC"].per_group[list(map(str, a.groups)).index("5")] == 1.0  # 0.9 (1) over 0.8 (0)


def test_the_spill_is_smaller_than_its_text(tmp_path):
    rng = np.random.default_rng(3)
    n = 200_000
    path = tmp_path / "d.txt"
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    g = rng.integers(0, 10**9, n)
    with open(path, "w") as fh:
        fh.writelines(f"{a} {b:.10f} {c}\n" for a, b, c in zip(y, s, g, strict=False))
    from perfeval.io.readers import iter_columns

    chunks = ((t, sc, gg) for t, sc, _w, gg in iter_columns(str(path), ["1", "2", None, "3"], ids=(3,)))
    r = evaluate_stream_grouped(chunks, measures=["gauc"])
    assert 0 < r.spill["bytes"] < path.stat().st_size * 0.75


def test_a_full_disk_under_the_spill_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    import errno
    import tempfile

    import perfeval.backends.stream as S
    from conftest import run_cli

    data = tmp_path / "d.txt"
    data.write_text("".join(f"{i % 2} {i / 1000:.3f} {i % 7}\n" for i in range(1000)))
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))

    def full(fh, arrays):
        raise OSError(errno.ENOSPC, "No space left on device", fh.name)

    monkeypatch.setattr(S, "_write_block", full)
    code, out, err = run_cli(["eval", str(data), "--stream", "--group", "3", "-m", "gauc"], capsys)
    assert code == 1 and out == ""
    assert err.startswith("perfeval: error: No space left on device (") and len(err.splitlines()) == 1
    assert os.listdir(spill) == []
