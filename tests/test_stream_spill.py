"""Grouped streaming in bounded resources: the compact spill, the row budget (parts split again, a
group past it finished from its summary), the choice of partitions, cleanup on signals."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import evaluate
from perfeval.backends.stream import (
    _Job,
    evaluate_stream_grouped,
    partitions_for,
)
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.io.readers import iter_columns
from perfeval.io.spill import read_blocks as _read_blocks
from perfeval.io.spill import write_block as _write_block
from perfeval.measures import list_measures

# one score a case, 0/1 targets (regression: tests/test_registry_properties.py)
ALL = [m.name for m in list_measures() if m.kind in ("binary", "ranking", "grouped")]
BINARY = [m.name for m in list_measures() if m.kind == "binary"]
# binary measures defined for fractional weights (APR, CA2 and the rank measures need whole ones)
FRACTIONAL_OK = [
    m
    for m in BINARY
    if m not in ("APR", "CA2", "NTOP", "PRB", "RKL", "R50", "TOP1", "TOP10", "SLQ", "CA1", "SAR")
]
RANKING = [m.name for m in list_measures() if m.kind in ("ranking", "grouped")]


def _roundtrip(arrays, tmp_path):
    path = str(tmp_path / "blocks.bin")
    with open(path, "wb") as fh:
        size = _write_block(fh, arrays)
        _write_block(fh, arrays[::-1])
    blocks = list(_read_blocks(path))
    assert len(blocks) == 2
    return blocks[0], blocks[1][::-1], size


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


COLUMNS = {
    "scores": np.array([0.0, -0.0, 5e-324, 1e308, -1.5, 0.8472919483, 1 / 3, 7.0]),
    "targets_float": np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
    "targets_graded": np.array([0.0, 3.0, 1.0, 2.0, 0.0, 0.0, 4.0, 1.0]),
    "targets_minus_zero": np.array([-0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]),
    "targets_int": np.array([0, 1, 1, 0, 1, 0, 0, 1]),
    "targets_bool": np.array([False, True, True, False, True, False, False, True]),
    "ids_int64": np.array([123456789, 123456790, 5, 123456789, 900000000, 5, 6, 7], dtype=np.int64),
    "ids_extreme": np.array(
        [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 1, 2, 3, 4], dtype=np.int64
    ),
    "ids_negative": np.array([-5, -3, -5, -4, -3, -5, -5, -4], dtype=np.int64),
    "ids_uint64": np.array([2**64 - 1, 0, 1, 2, 3, 4, 5, 6], dtype=np.uint64),
    "ids_text": np.array(["q7", "a", "", "b", "longer-id", "007", "a", "q7"]),
    "ids_text_nul": np.array(["a\x00b", "a", "\x00x", "b", "c", "d", "e", "f"]),
    "ids_unicode": np.array(["é", "user-😀", "a", "", "ß", "é", "z", "日本"]),
    "weights_whole": np.array([0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 1.0, 255.0]),
    "weights_fraction": np.array([0.1, 0.25, 0.0, 1e-300, 2.5, 1.0, 3.0, 0.3]),
}


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_spill_blocks_round_trip_bit_for_bit(name, tmp_path):
    col = COLUMNS[name]
    other = np.arange(len(col), dtype=np.float64)
    first, second, _ = _roundtrip([other, col, other], tmp_path)
    for a, b in zip([other, col, other], first, strict=False):
        assert _identical(a, b), (name, a, b)
    for a, b in zip([other, col, other], second, strict=False):
        assert _identical(a, b), name


def test_spill_blocks_are_narrow(tmp_path):
    n = 10_000
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(np.float64)
    s = rng.random(n)
    g = 123_000_000 + rng.integers(0, 60_000, n)  # ids within 2**16 of the block's smallest
    _, _, size = _roundtrip([y, s, g], tmp_path)
    assert size <= n * (1 + 8 + 2) + 200  # 1 byte a target, 8 a score, 2 an id, headers
    texts = np.array([f"user{i % 977}" for i in range(n)])
    _, _, size = _roundtrip([y, s, texts], tmp_path)
    assert size <= n * (1 + 8 + 1 + 7) + 200  # text: one length byte and its ASCII bytes


def test_spill_is_smaller_than_the_text_it_reads(tmp_path):
    rng = np.random.default_rng(1)
    n = 200_000
    path = tmp_path / "d.txt"
    y = (rng.random(n) < 0.4).astype(int)
    s = rng.random(n)
    g = rng.integers(100_000_000, 1_000_000_000, n)
    path.write_text(
        "".join(f"{a} {b:.10f} {c}\n" for a, b, c in zip(y.tolist(), s.tolist(), g.tolist(), strict=False))
    )
    chunks = (
        (t, sc, gg) for t, sc, gg in iter_columns(str(path), ["1", "2", "3"], ids=(2,), chunk_bytes=1 << 20)
    )
    r = evaluate_stream_grouped(chunks, measures=["gauc"], tmpdir=str(tmp_path))
    size = path.stat().st_size
    assert r.spill["bytes"] <= 0.6 * size, (r.spill, size)  # 13 bytes a row for 25 of text
    assert r.spill["peak_bytes"] <= size
    w = evaluate(y, s, groups=g, measures=["gauc"])
    assert np.array_equal(r.results["GAUC"].per_group, w.results["GAUC"].per_group, equal_nan=True)


# -- the row budget: the same numbers as evaluate() on all rows, whatever path a part takes ------------
def _chunks(y, s, g, w, cuts):
    out, i = [], 0
    for c in [*cuts, len(s)]:
        if i < len(s):
            out.append((y[i : i + c], s[i : i + c], g[i : i + c]) + (() if w is None else (w[i : i + c],)))
            i += c
    return out


def _assert_same(a, b):
    assert list(a.groups) == list(b.groups)
    assert np.array_equal(
        a.group_sizes if getattr(a, "group_sizes", None) is not None else b.group_sizes, b.group_sizes
    )
    for k in b:
        assert np.array_equal(a.results[k].per_group, b.results[k].per_group, equal_nan=True), k
        assert a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]), k


data = st.lists(
    st.tuples(
        st.sampled_from([0, 1]),
        st.sampled_from([0.0, 0.1, 0.4, 0.5, 0.9, 1.0, 1.2]),
        st.sampled_from([3, 7, 11, 42, -5, 123456789]),
    ),
    min_size=1,
    max_size=80,
)


@settings(max_examples=60, deadline=None)
@given(
    data,
    st.lists(st.integers(1, 25), max_size=5),
    st.integers(1, 12),
    st.integers(1, 4),
    st.booleans(),
    st.booleans(),
)
def test_budget_paths_equal_in_memory(rows, cuts, budget, parts, as_text, one_group):
    y = np.array([r[0] for r in rows], dtype=np.float64)
    s = np.array([r[1] for r in rows])
    g = np.array([5 if one_group else r[2] for r in rows])
    if as_text:
        g = np.array([f"q{v}" for v in g.tolist()])
    for names in (ALL, BINARY, ["gauc", "gauc_unweighted", "roc", "rms", "apr", "acc", "top1", "rkl", "sar"]):
        a = evaluate_stream_grouped(
            _chunks(y, s, g, None, cuts), measures=names, partitions=parts, budget_rows=budget
        )
        _assert_same(a, evaluate(y, s, groups=g, measures=names))


@settings(max_examples=60, deadline=None)
@given(
    data,
    st.lists(st.integers(1, 25), max_size=5),
    st.integers(1, 12),
    st.booleans(),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.0]), min_size=80, max_size=80),
)
def test_budget_paths_equal_in_memory_weighted(rows, cuts, budget, one_group, weights):
    """Weights summing exactly in float64 (zeros, whole numbers, dyadic fractions): the same bits."""
    y = np.array([r[0] for r in rows], dtype=np.float64)
    s = np.array([r[1] for r in rows])
    g = np.array([5 if one_group else r[2] for r in rows])
    w = np.array(weights[: len(rows)])
    whole = w == np.floor(w)
    names = BINARY if whole.all() else FRACTIONAL_OK
    if not w.any():
        w[0] = 1.0
    a = evaluate_stream_grouped(_chunks(y, s, g, w, cuts), measures=names, budget_rows=budget)
    _assert_same(a, evaluate(y, s, groups=g, sample_weight=w, measures=names))


class _Spy:
    """Counts the paths a part takes and the most rows read into memory at once."""

    def __init__(self, monkeypatch):
        self.resplit = self.summary = 0
        self.most_rows = 0
        real_resplit, real_summary, real_mem = _Job._resplit, _Job._one_group, _Job._in_memory
        spy = self

        def resplit(job, part, depth):
            spy.resplit += 1
            return real_resplit(job, part, depth)

        def summary(job, part):
            spy.summary += 1
            return real_summary(job, part)

        def in_memory(job, path):
            spy.most_rows = max(spy.most_rows, sum(len(b[1]) for b in _read_blocks(path)))
            return real_mem(job, path)

        monkeypatch.setattr(_Job, "_resplit", resplit)
        monkeypatch.setattr(_Job, "_one_group", summary)
        monkeypatch.setattr(_Job, "_in_memory", in_memory)


def _mixed(n_small=300, huge=5000, seed=3):
    """One group of ``huge`` rows and ``n_small`` groups of a few rows, shuffled; 3-decimal scores (ties)."""
    rng = np.random.default_rng(seed)
    g = np.concatenate([np.full(huge, 777), rng.integers(1000, 1000 + n_small, 2000)])
    rng.shuffle(g)
    s = np.round(rng.random(len(g)), 3)
    y = (rng.random(len(g)) < s).astype(np.float64)
    return y, s, g


@pytest.mark.parametrize(
    "names",
    [
        ["gauc"],
        BINARY,
        ["gauc", "acc", "roc", "rms", "logloss", "apr", "ca2"],
        ALL,
        ["ndcg@10", "map", "mrr", "p@5", "r@100", "dcg", "cg@3", "prb", "ntop", "r50", "slq", "ca1"],
    ],
)
def test_a_group_past_the_budget_is_summarised_never_held_whole(monkeypatch, names):
    y, s, g = _mixed()
    spy = _Spy(monkeypatch)
    budget = 400
    chunks = [(y[i : i + 700], s[i : i + 700], g[i : i + 700]) for i in range(0, len(s), 700)]
    a = evaluate_stream_grouped(chunks, measures=names, budget_rows=budget, partitions=2)
    _assert_same(a, evaluate(y, s, groups=g, measures=names))
    # both parts over the budget are split once: the huge group is sent to a part of its own at
    # once, not copied level after level with the small groups that hash beside it
    assert spy.resplit == 2
    assert spy.summary == 1  # the huge group alone, from its summary
    assert 0 < spy.most_rows <= budget  # nothing larger than the budget was read whole


graded = st.lists(
    st.tuples(st.sampled_from([0, 0, 1, 2, 3, 4]), st.sampled_from([0.0, 0.1, 0.4, 0.5, 0.9, 1.0, 1.2])),
    min_size=1,
    max_size=120,
)


@settings(max_examples=80, deadline=None)
@given(
    graded, st.lists(st.integers(1, 40), max_size=5), st.integers(1, 20), st.sampled_from([0, 1, 3, 10, 200])
)
def test_per_query_measures_of_a_huge_query_from_its_summary(rows, cuts, budget, k):
    """Graded relevance, ties, any cut-off: one query past the budget, from its counts per
    (score, grade), gives evaluate()'s bits."""
    y = np.array([r[0] for r in rows], dtype=np.float64)
    s = np.array([r[1] for r in rows])
    g = np.full(len(y), 9)
    names = [f"ndcg@{k}", f"dcg@{k}", f"cg@{k}", f"p@{k}", f"r@{k}", "map", "mrr", "gauc", "gauc_unweighted"]
    a = evaluate_stream_grouped(_chunks(y, s, g, None, cuts), measures=names, budget_rows=budget)
    _assert_same(a, evaluate(y, s, groups=g, measures=names))


def test_fractional_grades_of_a_huge_query_agree_to_rounding():
    rng = np.random.default_rng(8)
    n = 3000
    y = rng.choice([0.0, 0.5, 1.25, 2.0], n)
    s = np.round(rng.random(n), 2)
    g = np.zeros(n, dtype=np.int64)
    names = ["ndcg", "ndcg@10", "dcg@50", "map"]
    a = evaluate_stream_grouped(
        [(y[:1000], s[:1000], g[:1000]), (y[1000:], s[1000:], g[1000:])], measures=names, budget_rows=100
    )
    b = evaluate(y, s, groups=g, measures=names)
    assert len(list(b)) == len(names)
    for k in b:
        assert a.results[k].per_group[0] == pytest.approx(b.results[k].per_group[0], rel=1e-12), k


def test_a_huge_group_of_zero_weights_is_no_group():
    y, s, g = _mixed()
    w = np.where(g == 777, 0.0, 1.0)
    a = evaluate_stream_grouped([(y, s, g, w)], measures=["acc", "rms"], budget_rows=100)
    b = evaluate(y, s, groups=g, sample_weight=w, measures=["acc", "rms"])
    assert 777 not in list(b.groups)
    _assert_same(a, b)


def test_errors_of_the_whole_data_not_of_a_part():
    # each part alone looks binary (0/1 in one, -1/1 in the other); all rows together are not
    chunks = [
        (np.array([0.0, 1.0]), np.array([0.2, 0.7]), np.array([1, 1])),
        (np.array([-1.0, 1.0]), np.array([0.2, 0.7]), np.array([2, 2])),
    ]
    with pytest.raises(InvalidDataError, match="binary targets"):
        evaluate(
            np.array([0, 1, -1, 1]), np.array([0.2, 0.7, 0.2, 0.7]), groups=[1, 1, 2, 2], measures=["acc"]
        )
    with pytest.raises(InvalidDataError, match="binary targets"):
        evaluate_stream_grouped(chunks, measures=["acc"], partitions=4)
    with pytest.raises(InvalidParameterError, match="weights"):
        evaluate_stream_grouped(
            [(np.array([0, 1]), np.array([0.2, 0.7]), np.array([1, 1]), np.ones(2))], measures=["gauc"]
        )


# -- partitions from the input's size -------------------------------------------------------------------
def test_partitions_from_size_hint(monkeypatch):
    assert partitions_for(0) == 32 and partitions_for(10**6) == 32
    assert partitions_for(5_250_000_000) == 219  # 437M short rows / 2M
    assert partitions_for(10**13) == 512
    rng = np.random.default_rng(4)
    n = 60_000
    y, s, g = (rng.random(n) < 0.5).astype(float), rng.random(n), rng.integers(0, 30_000, n)
    text_bytes = n * 21
    spy = _Spy(monkeypatch)
    a = evaluate_stream_grouped([(y, s, g)], measures=["gauc"], budget_rows=1000, size_hint=text_bytes)
    assert a.params["spill_partitions"] == partitions_for(text_bytes, 1000) == 210
    assert spy.resplit == 0  # every partition fitted the budget at once
    b = evaluate_stream_grouped([(y, s, g)], measures=["gauc"], budget_rows=1000)
    assert b.params["spill_partitions"] == 32 and spy.resplit == 32  # the default: each one split again
    _assert_same(a, b)


# -- the spill directory is removed on SIGTERM and SIGHUP as on SIGINT --------------------------------
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_spill_removed_on_signal(tmp_path, sig):
    # the child's SIGHUP at its default action: run under nohup (SIGHUP ignored, inherited), the
    # stream rightly leaves it ignored and the signal would do nothing (this test's old "flake")
    code = textwrap.dedent(f"""
        import signal, sys, time
        import numpy as np
        from perfeval.backends.stream import evaluate_stream_grouped

        signal.signal(signal.SIGHUP, signal.SIG_DFL)

        def chunks():
            while True:
                yield np.array([0, 1]), np.array([0.2, 0.7]), np.array([1, 2])
                print("chunk", flush=True)
                time.sleep(0.05)

        evaluate_stream_grouped(chunks(), measures=["gauc"], tmpdir={str(tmp_path)!r})
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"chunk\n"
        deadline = time.time() + 30
        while not any(p.name.startswith("perfeval-spill-") for p in tmp_path.iterdir()):
            assert time.time() < deadline
            time.sleep(0.02)
        spill = next(p for p in tmp_path.iterdir() if p.name.startswith("perfeval-spill-"))
        assert any(spill.iterdir())  # part files being written
        proc.send_signal(sig)
        status = proc.wait(timeout=30)
    finally:
        proc.kill()
    assert status != 0
    if sig != signal.SIGINT:
        assert status == 128 + sig  # SystemExit(128 + signal)
    assert list(tmp_path.iterdir()) == []


def test_signal_handlers_restored_and_foreign_ones_kept():
    before = signal.getsignal(signal.SIGTERM)
    mine = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        seen = []

        def chunks():
            seen.append((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)))
            yield np.array([0, 1]), np.array([0.2, 0.7]), np.array([1, 1])

        evaluate_stream_grouped(chunks(), measures=["gauc"])
        assert seen[0][0] is not before and seen[0][1] == signal.SIG_IGN  # SIGTERM ours, SIGHUP left alone
        assert (
            signal.getsignal(signal.SIGTERM) is before and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
        )
    finally:
        signal.signal(signal.SIGHUP, mine)


def test_command_grouped_stream_matches_in_memory_on_a_text_file(tmp_path, capsys):
    """Through the command: text ids and int ids in one file (chunks of either type), a budget
    small enough for every path."""
    import json

    from perfeval.cli.main import main

    rng = np.random.default_rng(5)
    lines = io.StringIO()
    lines.write("label score user\n")
    for i in range(3000):
        user = "u7" if i % 3 == 0 else (str(rng.integers(0, 50)) if i < 1500 else f"x{rng.integers(0, 50)}")
        lines.write(f"{int(rng.random() < 0.4)} {rng.random():.3f} {user}\n")
    path = tmp_path / "d.txt"
    path.write_text(lines.getvalue())
    outs = []
    for extra in ([], ["--stream"]):
        assert (
            main(["eval", str(path), "--group", "user", "-m", "gauc,acc,rms", "--format", "json", *extra])
            == 0
        )
        outs.append(json.loads(capsys.readouterr().out)["measures"])
    for k in ("GAUC", "ACC", "RMS"):
        assert outs[0][k] == outs[1][k]
    assert os.path.getsize(path) > 0


@pytest.mark.parametrize("budget", [1, 2, 100])
def test_a_plain_integer_and_its_text_are_one_group_across_chunks(budget):
    """Chunks of one file read as int64 or as text (when some id is not a plain integer): the
    same group either way, whatever path its part takes."""
    rng = np.random.default_rng(6)
    ids = rng.choice([1, 2, 3, 40, 7], 120)
    y = (rng.random(120) < 0.5).astype(np.float64)
    s = np.round(rng.random(120), 2)
    text = np.array([str(v) if i < 60 or v != 7 else "x7" for i, v in enumerate(ids.tolist())])
    chunks = [(y[:60], s[:60], ids[:60]), (y[60:], s[60:], text[60:])]  # the first chunk as int64
    for names in (["gauc", "acc"], ["gauc", "ndcg@3"]):
        a = evaluate_stream_grouped(chunks, measures=names, budget_rows=budget, partitions=3)
        _assert_same(a, evaluate(y, s, groups=text, measures=names))
