"""Streaming: chunked summaries give the numbers of the whole data; readers; bounded memory."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _registry import choices, every
from perfeval import ScoreHistogram, evaluate, evaluate_stream
from perfeval.cli.main import main
from perfeval.exceptions import InputFormatError
from perfeval.io.readers import iter_columns

BINARY = every("binary")  # with every other choice of each parameter (tests/_registry.py)
rows = st.lists(
    st.tuples(st.sampled_from([0, 1]), st.sampled_from([0.0, 0.1, 0.5, 0.5, 0.9, 1.0]) | st.floats(0, 1)),
    min_size=1,
    max_size=80,
)


def same(a, b):
    return a == b or (a != a and b != b)


@given(rows, st.lists(st.integers(1, 30), min_size=1, max_size=10))
def test_chunked_equals_whole_for_every_binary_measure(data, cuts):
    y, s = [r[0] for r in data], [r[1] for r in data]
    chunks, i = [], 0
    for c in cuts + [len(data)]:  # any chunk boundaries, ties across them
        if i < len(data):
            chunks.append((y[i : i + c], s[i : i + c]))
            i += c
    whole = evaluate(y, s, measures=BINARY)
    streamed = evaluate_stream(chunks, measures=BINARY)
    for label in whole:
        assert same(streamed[label], whole[label]), label


@given(st.lists(rows, min_size=1, max_size=6), st.randoms())
def test_merge_accepts_any_concatenation_of_summaries(parts, rnd):
    hs = [ScoreHistogram.from_arrays([r[0] for r in p], [r[1] for r in p]) for p in parts]
    whole = ScoreHistogram.from_arrays([r[0] for p in parts for r in p], [r[1] for p in parts for r in p])
    rnd.shuffle(hs)
    assert ScoreHistogram.merge_all(hs) == whole
    # a non-canonical "summary": two summaries' rows back to back, unsorted
    glued = ScoreHistogram(
        np.concatenate([h.scores for h in hs]),
        np.concatenate([h.pos for h in hs]),
        np.concatenate([h.neg for h in hs]),
    )
    assert ScoreHistogram.merge_all([glued, ScoreHistogram.empty()]) == whole


def _text(n: int, header: bool, seed: int = 0) -> str:
    """Rows with blank lines; comment lines among them without a header, before it with one (after a
    header a line starting with '#' is a row)."""
    rnd = random.Random(seed)
    lines = ["# a comment", "", "label score weight"] if header else []
    for i in range(n):
        if i % 97 == 0 and not header:
            lines.append("# a comment")
        if i % 89 == 0:
            lines.append("")
        lines.append(f"{int(rnd.random() < 0.3)} {rnd.random():.{rnd.randint(1, 7)}f} {rnd.randint(1, 3)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("chunk", [50, 1000, 1 << 20])
def test_chunked_reader_equals_whole_reader(tmp_path, header, chunk):
    path = tmp_path / "d.txt"
    path.write_text(_text(3000, header))
    cols = ["label", "score", "weight"] if header else ["1", "2", "3"]
    got = [
        np.concatenate(parts)
        for parts in zip(*iter_columns(str(path), cols, chunk_bytes=chunk), strict=False)
    ]
    want = np.loadtxt(path, skiprows=3 if header else 0, comments="#")  # a comment, a blank, the header
    for k in range(3):
        assert np.array_equal(got[k], want[:, k])


def test_chunked_reader_errors_name_the_line_across_chunks(tmp_path):
    text = _text(2000, False).splitlines()
    text[1500] = "1 0.5 x"
    (tmp_path / "e.txt").write_text("\n".join(text) + "\n")
    with pytest.raises(InputFormatError, match=r"line 1501: the column 'column3' holds 'x', not a number"):
        list(iter_columns(str(tmp_path / "e.txt"), ["1", "2", "3"], chunk_bytes=200))
    # a column that is not used may hold text, as in the whole-file reader
    assert (
        sum(len(p[0]) for p in iter_columns(str(tmp_path / "e.txt"), ["1", "2", None], chunk_bytes=200))
        == 2000
    )
    text[1500] = "1 0.5"
    (tmp_path / "e.txt").write_text("\n".join(text) + "\n")
    with pytest.raises(InputFormatError, match=r"line 1501: expected 3 fields, found 2"):
        list(iter_columns(str(tmp_path / "e.txt"), ["1", "2", None], chunk_bytes=200))


def test_parquet_row_groups(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    y = (rng.random(5000) < 0.4).astype(np.int64)
    s = np.round(rng.random(5000), 3)
    pq.write_table(pa.table({"y": y, "s": s}), tmp_path / "d.parquet", row_group_size=700)
    chunks = list(iter_columns(str(tmp_path / "d.parquet"), ["y", "s"]))
    assert len(chunks) == 8
    r = evaluate_stream(chunks, measures=["roc", "apr", "ca2"])
    w = evaluate(y, s, measures=["roc", "apr", "ca2"])
    assert all(r[k] == w[k] for k in w)


def test_command_stream_equals_in_memory(tmp_path, capsys):
    path = tmp_path / "d.txt"
    path.write_text(_text(5000, True))
    outs = []
    for extra in ([], ["--stream"]):
        assert (
            main(
                [
                    "eval",
                    str(path),
                    "--target",
                    "label",
                    "--score",
                    "score",
                    "-m",
                    "roc,apr,rms,ca1",
                    "--format",
                    "json",
                    *extra,
                ]
            )
            == 0
        )
        outs.append(json.loads(capsys.readouterr().out)["measures"])
    assert outs[0] == outs[1]
    assert main(["eval", str(path), "--stream", "-m", "gauc"]) == 2  # per-group without a group column
    capsys.readouterr()
    outs = []
    for extra in ([], ["--stream"]):  # per group, spilled by group
        assert (
            main(
                [
                    "eval",
                    str(path),
                    "--target",
                    "label",
                    "--score",
                    "score",
                    "--group",
                    "weight",
                    "-m",
                    "gauc,ndcg@5,acc",
                    "--format",
                    "json",
                    *extra,
                ]
            )
            == 0
        )
        outs.append(json.loads(capsys.readouterr().out)["measures"])
    for k in ("GAUC", "NDCG@5", "ACC"):
        assert (
            outs[0][k]["per_group"] == outs[1][k]["per_group"] and outs[0][k]["value"] == outs[1][k]["value"]
        )
    args = ["--target", "label", "--score", "score", "--group", "weight", "-m", "gauc", "--format", "json"]
    assert main(["eval", str(path), "--stream", "--clustered", *args]) == 1  # not clustered: a data error
    lines = path.read_text().splitlines()
    head = lines.index("label score weight")
    body = sorted((ln for ln in lines[head + 1 :] if ln.strip()), key=lambda ln: ln.split()[2])
    (tmp_path / "sorted.txt").write_text("\n".join([lines[head], *body]) + "\n")
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "sorted.txt"), "--stream", "--clustered", *args]) == 0
    got = json.loads(capsys.readouterr().out)["measures"]["GAUC"]
    assert got["per_group"] == outs[0]["GAUC"]["per_group"]


@pytest.mark.parametrize("group", [False, True])
def test_command_stream_equals_in_memory_for_every_choice(tmp_path, capsys, group):
    """`perfeval eval --stream` gives the in-memory JSON (values, thresholds, per group) for every
    other choice of the binary measures' parameters (TPR_AT_FPR:of=threshold, PAUC:focus=tpr, ...)."""
    rng = np.random.default_rng(33)
    n = 3000
    y = (rng.random(n) < 0.35).astype(int)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 2)
    g = rng.integers(0, 40, n)
    w = rng.integers(1, 4, n)
    path = tmp_path / "d.csv"
    rows = zip(y, s, g, w, strict=True)
    path.write_text("y,s,g,w\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in rows))
    specs = ",".join(choices("binary"))
    argv = ["eval", str(path), "--target", "y", "--score", "s", "--weight", "w", "-m", specs]
    argv += ["--format", "json"] + (["--group", "g"] if group else [])
    outs = []
    for extra in ([], ["--stream"]):
        assert main(argv + extra) == 0
        outs.append(json.loads(capsys.readouterr().out)["measures"])
    assert outs[0] == outs[1]
    assert "TPR_AT_FPR:of=threshold" in outs[0] and ("per_group" in outs[0]["YOUDEN:of=threshold"]) == group


@pytest.mark.parametrize("group", [[], ["--group", "query"]])
def test_command_stream_refuses_id_as_in_memory(tmp_path, capsys, group):
    """--id without a dialect that reads ids (perfeval's own: every order of a tie) is the same one
    line streamed as in memory, before any line is read: it was read, checked and named in the JSON,
    then not used (the numbers of no ids) without a word."""
    path = tmp_path / "r.csv"
    path.write_text("query,doc,rel,score\nu1,d1,1,0.5\nu1,d2,0,0.5\nu2,1.5,1,0.1\nu2,d4,0,0.3\n")
    args = ["eval", str(path), "--target", "rel", "--score", "score", *group, "-m", "roc", "--format", "json"]
    errors = []
    for extra in ([], ["--stream"]):
        assert main([*args, "--id", "doc", *extra]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err
        errors.append(err)
    assert (
        errors[0]
        == errors[1]
        == (
            "perfeval: error: --id doc is read only by the dialects that break ties by document id "
            "(trec_eval); perfeval's own rules take every order of a tie (the expected value), whatever "
            "the ids: drop it, or pass --dialect trec_eval\n"
        )
    )
    assert main([*args, "--id", "doc", "--stream", "--dialect", "trec_eval"]) == 2  # dialects: in memory
    assert "--dialect trec_eval: not with --stream" in capsys.readouterr().err


def test_memory_is_bounded_by_the_chunk(tmp_path):
    """A 40 MB file through 1 MB chunks: the process stays near its start-up size."""
    path = tmp_path / "big.txt"
    rng = np.random.default_rng(2)
    with open(path, "w") as fh:
        for _ in range(8):
            y = (rng.random(500_000) < 0.3).astype(int)
            fh.write(
                "".join(
                    f"{a} {b:.4f}\n" for a, b in zip(y.tolist(), rng.random(500_000).tolist(), strict=False)
                )
            )
    code = f"""
import resource, perfeval
from perfeval.io.readers import iter_columns
from perfeval.backends.stream import evaluate_stream
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = evaluate_stream(iter_columns({str(path)!r}, ["1", "2"], chunk_bytes=1 << 20),
                    measures=["roc", "apr", "rms"])
print(r.params["rows"], (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    rows, grown_mb = int(out[0]), int(out[1])
    assert rows == 4_000_000
    assert grown_mb < 30, f"memory grew by {grown_mb} MB for a {path.stat().st_size >> 20} MB file"


group_rows = st.lists(
    st.tuples(
        st.sampled_from([0, 1]),
        st.sampled_from([0.1, 0.4, 0.5, 0.9]),
        st.sampled_from([3, 7, 11, 42, -5]) | st.sampled_from(["a", "b", "q7"]),
    ),
    min_size=1,
    max_size=60,
)


@given(group_rows, st.lists(st.integers(1, 20), min_size=1, max_size=6), st.integers(1, 5), st.booleans())
def test_grouped_streaming_equals_in_memory(data, cuts, parts, as_text):
    from perfeval.backends.stream import evaluate_stream_grouped

    y = [r[0] for r in data]
    s = [r[1] for r in data]
    g = [str(r[2]) if as_text else (hash(str(r[2])) % 97) for r in data]
    chunks, i = [], 0
    for c in cuts + [len(data)]:
        if i < len(data):
            chunks.append((np.array(y[i : i + c]), np.array(s[i : i + c]), np.array(g[i : i + c])))
            i += c
    # every measure of one score and 0/1 targets, per group (regression measures are refused beside them)
    names = every("binary", "ranking", "grouped")
    a = evaluate_stream_grouped(chunks, measures=names, partitions=parts)
    b = evaluate(y, s, groups=g, measures=names)
    assert list(a.groups) == list(b.groups)
    for k in b:
        assert same(a[k], b[k]), k
        assert np.array_equal(a.results[k].per_group, b.results[k].per_group, equal_nan=True)


@given(group_rows, st.lists(st.integers(1, 20), min_size=1, max_size=6))
def test_clustered_streaming_equals_in_memory(data, cuts):
    from perfeval.backends.stream import evaluate_stream_grouped

    data = sorted(data, key=lambda r: str(r[2]))  # clustered by group
    y, s, g = [r[0] for r in data], [r[1] for r in data], [str(r[2]) for r in data]
    chunks, i = [], 0
    for c in cuts + [len(data)]:
        if i < len(data):
            chunks.append((np.array(y[i : i + c]), np.array(s[i : i + c]), np.array(g[i : i + c])))
            i += c
    names = every("binary", "ranking", "grouped")  # (one score a case, 0/1 targets)
    a = evaluate_stream_grouped(chunks, measures=names, clustered=True)
    b = evaluate(y, s, groups=g, measures=names)
    assert list(a.groups) == list(b.groups)
    for k in b:
        assert np.array_equal(a.results[k].per_group, b.results[k].per_group, equal_nan=True)


def test_clustered_streaming_refuses_unclustered_input():
    from perfeval.backends.stream import evaluate_stream_grouped
    from perfeval.exceptions import InvalidDataError

    chunks = [
        (np.array([1, 0]), np.array([0.5, 0.2]), np.array(["a", "b"])),
        (np.array([1, 0]), np.array([0.4, 0.3]), np.array(["c", "a"])),
    ]
    with pytest.raises(InvalidDataError, match="not clustered by group: group 'a' appears again"):
        evaluate_stream_grouped(chunks, measures=["gauc"], clustered=True)


def test_the_reader_one_block_ahead_keeps_order_errors_and_stops_with_its_caller():
    """A regular file's blocks are read one ahead on another thread: the caller sees the blocks in
    order, then the reader's error; a caller that stops early stops the reader, which closes."""
    import threading

    from perfeval.exceptions import InputFormatError
    from perfeval.io.base import ahead as _ahead

    closed = threading.Event()

    def blocks(n, fail):
        try:
            yield from range(n)
            if fail:
                raise InputFormatError("bad block", source="f.csv", line=9)
        finally:
            closed.set()

    got = []
    with pytest.raises(InputFormatError, match="bad block"):
        for b in _ahead(blocks(5, True)):
            got.append(b)
    assert got == [0, 1, 2, 3, 4] and closed.is_set()
    closed.clear()
    it = _ahead(blocks(10**6, False))
    assert [next(it), next(it)] == [0, 1]
    it.close()
    assert closed.wait(5)
    assert not any(t.name == "perfeval-reader" for t in threading.enumerate())


# -- issue 30: labels read the same in every path -----------------------------------------------------
def test_pos_label_matches_a_label_written_as_a_float_streamed_as_in_memory(tmp_path, capsys):
    """pandas writes a float label column as 1.0/0.0: ``--pos-label 1`` names it in memory (a float
    column), and streamed it was 'no such label' (a chunk read the labels as text)."""
    from conftest import run_cli

    f = tmp_path / "f.csv"
    f.write_text("y,p\n1.0,0.9\n0.0,0.1\n1.0,0.8\n0.0,0.3\n1.0,0.2\n")
    got = [
        run_cli(["eval", str(f), "--pos-label", "1", "-m", "roc", "--format", "json", *extra], capsys)
        for extra in ([], ["--stream"])
    ]
    for code, out, err in got:
        assert code == 0, err
        j = json.loads(out)
        assert j["measures"]["ROC"]["value"] == pytest.approx(5 / 6) and j["params"]["pos_label"] == 1


def _models(monkeypatch, tmp_path, argv, large):
    """What plot and report read (:func:`perfeval.cli.load.models`): the file read whole, or in
    chunks as a large file is (``large``)."""
    from perfeval.cli import load
    from perfeval.cli.parser import build

    monkeypatch.setattr(load, "LARGE_BYTES", 1 if large else 1 << 40)
    args = build().parse_args(["report", *argv, "-o", str(tmp_path / "r.html")])
    if args.score:  # as the command joins them (perfeval.cli.main)
        args.score = ",".join(args.score)
    try:
        source, y, scores, groups, w = load.models(args)
    except InputFormatError as e:
        return str(e)
    return (
        np.asarray(y, dtype=float).tolist(),
        {k: v.tolist() for k, v in scores.items()},
        None if groups is None else groups.tolist(),
    )


@pytest.mark.parametrize(
    "text, argv",
    [
        ("y,p\n-1,0.9\n1,0.1\n-1,0.8\n1,0.3\n", []),  # -1/1: coded in memory, refused by the library before
        ("y,p\n-1,0.9\n1,0.1\n-1,0.8\n1,0.3\n", ["--pos-label", "-1"]),  # was read as 1 positive
        ("y,p,q\nyes,0.9,0.2\nno,0.1,0.5\nmaybe,0.8,0.1\n", ["--pos-label", "yes", "--score", "p,q"]),
        ("y,p\nyes,0.9\nno,0.1\n", []),  # labels that are not a coding: the same error
        ("y,p,g\n1,0.9,u1\n0,0.1,u1\n1,inf,u2\n", ["--group", "g"]),  # the line of an inf score
        ("y,p\n1,0.9\nNA,0.1\n1,abc\n", []),  # the first bad line, whichever column
    ],
)
def test_plot_and_report_read_a_large_file_as_a_small_one(monkeypatch, tmp_path, text, argv):
    """Issue 30: a large file (read in chunks, with a progress line) was read without the checks of
    a small one: -1/1 targets failed in the library, --pos-label was not applied (-1 positive was
    read as 1 positive), an inf score had no line."""
    f = tmp_path / "t.csv"
    f.write_text(text)
    small = _models(monkeypatch, tmp_path, [str(f), *argv], False)
    large = _models(monkeypatch, tmp_path, [str(f), *argv], True)
    if isinstance(small, str):  # read in chunks, the rows without a target are not counted
        small = small.replace("the 1 row without one", "the rows without one")
    assert small == large


def test_plot_and_report_read_large_json_lines_whole(monkeypatch, tmp_path):
    """A large JSON lines file (by its name or its first byte) is read whole by plot and report, as
    a small one: the chunked reader refused it ('JSON lines are read whole', exit 2)."""
    for name in ("t.jsonl", "t.data"):
        f = tmp_path / name
        f.write_text('{"y": 1, "p": 0.9}\n{"y": 0, "p": 0.1}\n{"y": 1, "p": 0.4}\n')
        small = _models(monkeypatch, tmp_path, [str(f)], False)
        assert (
            small
            == _models(monkeypatch, tmp_path, [str(f)], True)
            == ([1.0, 0.0, 1.0], {"p": [0.9, 0.1, 0.4]}, None)
        )


def test_the_stream_folds_as_a_metric_does_bit_for_bit_with_any_weights():
    """Issue 31: the stream summed each chunk's weights per score, then the chunks' totals (another
    order than evaluate()'s, so fractional weights could move the last bits); it folds its chunks as
    a Metric folds its batches, each score's weights in row order: the numbers of evaluate() and of
    a Metric given the same batches, bit for bit."""
    from perfeval import Metric

    measures = ["roc", "acc", "rms", "cxe", "brier", "ppv"]
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = 4000
        y, s, w = rng.integers(0, 2, n), rng.random(n).round(2), rng.random(n) * 3
        cut = np.array_split(np.arange(n), 7)
        streamed = evaluate_stream([(y[i], s[i], w[i]) for i in cut], measures=measures)
        memory = evaluate(y, s, measures=measures, sample_weight=w)
        metric = Metric(measures)
        for i in cut:
            metric.update(y[i], s[i], sample_weight=w[i])
        batches = metric.compute()
        for m in memory.results:
            assert float(streamed[m]).hex() == float(memory[m]).hex() == float(batches[m]).hex(), (seed, m)


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("task", ["binary", "regression"])
def test_stream_report_says_what_memory_says_in_every_field(grouped, task):
    """The stream's JSON equals memory's field for field (params too: ``pos_label`` was missing from
    the streamed reports); only the backend's name and the spill's partitions differ."""
    import json
    import warnings

    from perfeval.backends.stream import evaluate_stream_grouped

    rng = np.random.default_rng(7)
    n = 400
    y = (rng.random(n) < 0.3).astype(int) if task == "binary" else np.round(rng.normal(size=n), 1)
    s, g = np.round(rng.random(n), 2), rng.integers(0, 30, n)
    if task == "regression":
        ms = ["rmse", "mae"]
    else:
        ms = ["gauc", "roc", "ndcg@5"] if grouped else ["roc", "apr", "rms"]
    kw = {"task": "regression"} if task == "regression" else {}

    def said(r, backend):
        d = r.to_dict()
        assert d["params"].pop("backend") == backend
        d["params"].pop("spill_partitions", None)
        d["signature"] = d["signature"].replace("backend:" + backend, "backend:-")
        return json.dumps(d, sort_keys=True, default=str)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if grouped:
            a = evaluate(y, s, groups=g, measures=ms, **kw)
            b = evaluate_stream_grouped(
                [(y[:150], s[:150], g[:150]), (y[150:], s[150:], g[150:])], measures=ms, **kw
            )
        else:
            a = evaluate(y, s, measures=ms, **kw)
            b = evaluate_stream([(y[:150], s[:150]), (y[150:], s[150:])], measures=ms, **kw)
    assert said(b, "stream") == said(a, "memory")
