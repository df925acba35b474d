"""The mutation fuzzer of ``tests/test_input_fuzz.py`` at the other doors: ``perfeval trec``,
``perfeval explain`` (a table, and QRELS RUN), ``perfeval eval --dialect`` and ``perfeval report``.

Valid inputs (TREC qrels and runs with grades, -1 judgments, ties, a BOM, tabs and 64-bit-looking
ids, and the tables ``trec`` reads: CSV, TSV with a header, JSON lines, Parquet; binary and graded
tables for the others) are mutated with that file's mutators, or a field replaced by an odd id or
number (the qrels and the runs separately), then read through each door with its measures, dialects
and formats.  The rules of every run are those of ``test_input_fuzz.py``: status 0, 1 or 2, no
traceback and no internal error, an error one line on stderr (the last; notes and warnings before
it), strict JSON (no NaN or infinity, no key twice in an object, every null saying why beside it).
Where a door has two paths to one answer they must agree (the same numbers, or both an error):

- ``trec``: a plain file (read mapped) and the same bytes gzip-compressed or on standard input (read
  into memory); JSON and CSV (full precision, the same numbers); trec_eval's layout and ``--dialect
  trec_eval``'s JSON (each value printed ``%6.4f``; refused under another dialect or tie rule); with
  ``-q``, each mean is the mean of the queries' values; p-values lie in [0, 1];
- ``explain``: JSON and CSV; a value it shows for a dialect is ``eval --dialect`` 's (of QRELS RUN:
  ``trec --dialect`` 's);
- ``eval --dialect``: in memory and ``--stream`` where the dialect streams (perfeval's; the others
  refuse ``--stream`` as a usage error), and ``--dialect perfeval`` is ``eval`` without one;
- ``report``: the page is written on success, and nothing is written on an error.

CI runs a few hundred cases a door (the report, which draws its plots, 40); more by hand:
``PERFEVAL_FUZZ_CASES=5000 PERFEVAL_FUZZ_SEED=3 pytest tests/test_input_fuzz_doors.py`` (every door
that many cases).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import random
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from test_input_fuzz import _mutate, _run

CASES = int(os.environ.get("PERFEVAL_FUZZ_CASES", "0")) or None  # None: each door's CI count
SEED = int(os.environ.get("PERFEVAL_FUZZ_SEED", "0"))


def _cases(ci: int) -> int:
    return CASES if CASES is not None else ci


def _check(code: int, out: str, err: str, what: str, strict_json: bool = True, options: tuple = ()) -> Any:
    """The rules of every run; the parsed JSON of a successful run when ``strict_json`` (``options``:
    its top-level keys that are options, ``null`` when not given).

    An error is one line, the last on stderr; the lines before it may only be whole notes and
    warnings (``trec`` reads its files one after another and says what it found in the first before
    the error of the second).
    """
    assert code in (0, 1, 2), f"{what}: status {code}: {err}"
    assert "Traceback" not in err and "internal error" not in err, f"{what}: {err}"
    if code:
        *before, last = err.split("\n")[:-1] or [""]
        assert err.endswith("\n") and last.startswith("perfeval: error: "), f"{what}: {err!r}"
        assert all(line.startswith(("perfeval: note: ", "perfeval: warning: ")) for line in before), (
            f"{what}: {err!r}"
        )
        return None
    if not strict_json:
        return None

    def refuse(name: str) -> None:
        raise AssertionError(f"{what}: {name} in the JSON output")

    def once(pairs: list) -> dict:
        keys = [k for k, _ in pairs]
        assert len(set(keys)) == len(keys), f"{what}: a key twice in a JSON object: {keys}"
        return dict(pairs)

    try:
        body = json.loads(out, parse_constant=refuse, object_pairs_hook=once)
    except json.JSONDecodeError as e:
        raise AssertionError(f"{what}: not JSON ({e}): {out[:300]!r}") from None
    _nulls_say_why({k: v for k, v in body.items() if k not in options} if options else body, {}, "", what)
    return body


def _nulls_say_why(obj: Any, parent: dict, name: str, what: str) -> None:
    """Every ``null`` says why beside it (docs/guide.md): ``KEY_why_null`` (``why_null`` beside a
    ``value``) in its object, or, in a map, under the same key in the map's ``NAME_why_null``; a
    ``null`` in ``params`` is an option not given.
    """
    if isinstance(obj, list):
        for x in obj:
            _nulls_say_why(x, {}, name, what)
        return
    if not isinstance(obj, dict):
        return
    for key, v in obj.items():
        if v is None:
            mine = obj.get("why_null" if key == "value" else f"{key}_why_null")
            theirs = parent.get(f"{name}_why_null")
            theirs = theirs.get(key) if isinstance(theirs, dict) else None
            assert mine or theirs, f"{what}: {name}.{key} is null and says not why: {obj}"
        elif key != "params":
            _nulls_say_why(v, obj, key, what)


#: ids and numbers of another kind: bidi controls, other digits, no-break spaces, quoted separators,
#: floats written as ids, 64-bit edges, a byte that is not UTF-8
FIELD_JUNK = [
    b"7.0",
    b"1e3",
    b"07",
    b"+7",
    b"-0",
    b"\xe2\x80\xae7",
    b"\xe2\x80\x8f",
    "\u0663".encode(),
    b"q\xc2\xa01",
    b'"q 1"',
    b'"d,2"',
    b'"a\tb"',
    b'"x\ny"',
    b'""',
    b"18446744073709551616",
    b"-9223372036854775809",
    b"9007199254740993.0",
    b"\xff",
    b"#q",
    b"nan",
    b"-inf",
    b"1e-400",
]


def _mutate_field(data: bytes, rng: random.Random) -> bytes:
    """One field of one line replaced, the line's separator (space, tab or comma) kept."""
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    sep = next((c for c in (b"\t", b",", b" ") if c in lines[k]), b" ")
    parts = lines[k].split(sep)
    parts[rng.randrange(len(parts))] = rng.choice(FIELD_JUNK)
    lines[k] = sep.join(parts)
    return b"\n".join(lines)


def _mutated(data: bytes, rng: random.Random) -> bytes:
    """``test_input_fuzz``'s mutations, or a field replaced (and then maybe those too)."""
    if rng.random() < 0.3:
        data = _mutate_field(data, rng)
        return _mutate(data, rng) if rng.random() < 0.3 else data
    return _mutate(data, rng)


def _agree(a: tuple[int, str, str], b: tuple[int, str, str], what: str) -> None:
    """Both succeed or both fail."""
    assert (a[0] == 0) == (b[0] == 0), f"{what}: {a[0]} {a[2]!r} but {b[0]} {b[2]!r}"


def _same(x: Any, y: Any) -> bool:
    """Equal numbers, NaN or null equal to themselves."""
    nan_x = x is None or (isinstance(x, float) and math.isnan(x))
    nan_y = y is None or (isinstance(y, float) and math.isnan(y))
    return (nan_x and nan_y) or x == y


# ---------------------------------------------------------------------------------------------- trec

#: measure sets of every spelling: trec_eval's, its -m form, ir_measures', ranx's, perfeval's
TREC_MEASURES = [
    None,  # the default set
    "map,ndcg_cut_10,P_5,recall_100,bpref",
    "P.5,10,Rprec,recip_rank,success_5",
    "set_P,set_recall,set_F,map_cut_5,ndcg",
    "AP,nDCG@10,P@5,R@10,RR,Judged@5,SetF,Bpref",
    "precision@5,recall@10,r-precision,hit_rate@5,ndcg_burges@5",
    "ndcg@10,map@5,mrr,p@3,judged@5,f:beta=2",
    "ndcg@5:gain=linear,rprec,success@1",
]
TREC_DIALECTS = [None, "perfeval", "trec_eval", "ranx", "ir_measures"]


def _trec_seeds(rng: random.Random) -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    """Valid qrels and runs: (file name, content), TREC files and tables of the same judgments."""
    queries = ["301", "007", "7", "9007199254740993", "q-1"]
    docs = [f"D{i}" for i in range(12)] + ["18446744073709551617", "9007199254740992", "0x1F", "é"]
    judged: list[tuple[str, str, int]] = []
    for q in queries:
        for d in rng.sample(docs, 7):
            judged.append((q, d, rng.choice([-1, 0, 0, 1, 1, 2])))
    trec = "".join(f"{q} 0 {d} {r}\n" for q, d, r in judged)
    tabs = "".join(f"{q}\t0\t{d}\t{r}\n" for q, d, r in judged)
    qrels = [
        ("qrels.txt", trec.encode()),
        (
            "qrels.parquet",
            _parquet(
                {
                    "query_id": [q for q, _, _ in judged],
                    "doc_id": [d for _, d, _ in judged],
                    "relevance": [r for _, _, r in judged],
                }
            ),
        ),
        ("qrels-bom.txt", b"\xef\xbb\xbf" + tabs.encode()),
        ("qrels.csv", ("qid,docid,rel\n" + "".join(f"{q},{d},{r}\n" for q, d, r in judged)).encode()),
        (
            "qrels.tsv",
            ("query_id\tdoc_id\trelevance\n" + "".join(f"{q}\t{d}\t{r}\n" for q, d, r in judged)).encode(),
        ),
        (
            "qrels.jsonl",
            "".join(json.dumps({"topic": q, "docno": d, "grade": r}) + "\n" for q, d, r in judged).encode(),
        ),
    ]
    retrieved: list[tuple[str, str, float]] = []
    for q in [*queries[:4], "999"]:  # one judged query unanswered, one answered query not judged
        for d in rng.sample(docs, 8):
            retrieved.append((q, d, round(rng.random(), 1)))  # one decimal: ties
    lines = []
    for q in dict.fromkeys(q for q, _, _ in retrieved):
        mine = sorted(((d, s) for qq, d, s in retrieved if qq == q), key=lambda x: -x[1])
        lines += [f"{q} Q0 {d} {k + 1} {s} bm25\n" for k, (d, s) in enumerate(mine)]
    run_text = "".join(lines)
    runs = [
        ("bm25.run", run_text.encode()),
        ("crlf.run", run_text.replace("\n", "\r\n").encode()),
        ("run.csv", ("qid,docid,score\n" + "".join(f"{q},{d},{s}\n" for q, d, s in retrieved)).encode()),
        (
            "run.jsonl",
            "".join(
                json.dumps({"query_id": q, "doc_id": d, "score": s}) + "\n" for q, d, s in retrieved
            ).encode(),
        ),
        (
            "run.parquet",
            _parquet(
                {
                    "qid": [q for q, _, _ in retrieved],
                    "docid": [d for _, d, _ in retrieved],
                    "score": [s for _, _, s in retrieved],
                }
            ),
        ),
    ]
    return qrels, runs


def _parquet(columns: dict[str, list]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()


def _trec_args(rng: random.Random) -> tuple[list[str], int]:
    """Options of one trec case and the number of runs it gives (1 or 2)."""
    args = []
    measures = rng.choice(TREC_MEASURES)
    if measures:
        args += ["-m", measures]
    dialect = rng.choice(TREC_DIALECTS)
    if dialect:
        args += ["--dialect", dialect]
    elif rng.random() < 0.3:
        args += ["--ties", rng.choice(["trec_eval", "file", "ranx"])]
    if rng.random() < 0.3:
        args.append("-q")
    if rng.random() < 0.2:
        args += ["--queries", "run"]
    if rng.random() < 0.15:
        args += ["-l", rng.choice(["2", "1.5", "0"])]
    if rng.random() < 0.15:
        args.append("--tie-bounds")
    return args, 1 + (rng.random() < 0.3)


def _is_measure(key: str) -> bool:
    """A key of a run in trec's JSON that is a measure (not its p-values, tied pairs or reasons)."""
    return key not in ("p_values", "tied_pairs", "pairs") and not key.endswith("_why_null")


def _trec_numbers(body: dict, runs: int, means: bool = True) -> dict:
    """(run, measure[, query]) -> value of trec's JSON (the run None when there is one); without
    ``means``, each query's values only.
    """
    out: dict = {}
    for run, values in body.items() if runs > 1 else [(None, body)]:
        for name, entry in values.items():
            if not _is_measure(name):
                continue
            if isinstance(entry, dict):
                if means:
                    out[run, name] = entry["mean"]
                for q, v in entry.get("per_query", {}).items():
                    out[run, name, q] = v
            elif means:
                out[run, name] = entry
    return out


def _trec_entries(body: dict, runs: int) -> list[tuple[tuple, dict]]:
    """((run, measure), entry) of each measure of trec's JSON with ``-q``."""
    out = []
    for run, values in body.items() if runs > 1 else [(None, body)]:
        for name, entry in values.items():
            if _is_measure(name):
                out.append(((run, name), entry))
    return out


def _text_cell(cell: str) -> str:
    """A CSV text cell as written before perfeval's guard against formulas (docs/guide.md: a text a
    spreadsheet would run, ``=``, ``+``, ``-``, ``@``, a tab or a carriage return first, gets a ``'``).
    """
    return cell[1:] if cell[:1] == "'" and cell[1:2] in ("=", "+", "-", "@", "\t", "\r") else cell


def _trec_csv(text: str, runs: int, per_query: bool) -> dict:
    rows = [[_text_cell(c) for c in row] for row in csv.reader(io.StringIO(text))]
    head, out = rows[0], {}
    skip = 2 if per_query else 1
    for row in rows[1:]:
        run = row[0] if runs > 1 else None
        for name, cell in zip(head[skip:], row[skip:], strict=True):
            if name.endswith((" p", " tie_min", " tie_max")) or name == "tied_pairs":
                continue
            value = float(cell)
            out[(run, name, row[1]) if per_query else (run, name)] = value
    return out


def _trec_lines(body: dict, runs: int, per_query: bool) -> list[str]:
    """trec_eval's lines that trec's JSON answer gives (sorted: the order is another rule); query ids
    and run names with control characters escaped, one line a value (docs/ranking.md).
    """
    from perfeval.base.text import shown

    lines = []
    for run, means in body.items() if runs > 1 else [(None, body)]:
        if run is not None:
            lines.append(f"{'runid':<22}\tall\t{shown(run)}")
        for name, entry in means.items():
            if not _is_measure(name):
                continue
            printed = name.replace(".", "_")
            mean = entry["mean"] if isinstance(entry, dict) else entry
            lines.append(f"{printed:<22}\tall\t{math.nan if mean is None else mean:6.4f}")
            if per_query:
                for q, v in entry["per_query"].items():
                    lines.append(f"{printed:<22}\t{shown(q)}\t{math.nan if v is None else v:6.4f}")
    return sorted(lines)


def _trec_case(
    tmp: Path, rng: random.Random, qrels: tuple[str, bytes], runs: list[tuple[str, bytes]], what: str
) -> None:
    args, n = _trec_args(rng)
    picked = [rng.choice(runs) for _ in range(n)]
    where = rng.random()
    qname, qdata = qrels
    if where < 0.55:
        qdata = _mutated(qdata, rng)
    paths = {}
    qpath = tmp / f"q-{qname}"
    qpath.write_bytes(qdata)
    run_paths = []
    for k, (rname, rdata) in enumerate(picked):
        if where >= 0.45 and (k == 0 or rng.random() < 0.5):
            rdata = _mutated(rdata, rng)
        p = tmp / f"r{k}-{rname}"
        p.write_bytes(rdata)
        run_paths.append(p)
        paths[p] = rdata
    if n > 1:
        args += ["--test", rng.choice(["t", "randomization", "bootstrap", "none"]), "--n-resamples", "200"]
    what = f"{what} trec {qpath.name} {[p.name for p in run_paths]} {args} qrels {qdata[:200]!r} " + " ".join(
        f"run {paths[p][:200]!r}" for p in run_paths
    )
    files = [str(qpath), *map(str, run_paths)]
    a = _run(["trec", *files, *args, "--format", "json"])
    body = _check(*a, what + " --format json")
    if a[0] == 0 and "-q" in args:
        _trec_means(body, n, what)
    if a[0] == 0 and n > 1:  # a p-value is a probability, or null (untestable)
        ps = [p for run in body.values() for p in run.get("p_values", {}).values()]
        assert all(p is None or 0.0 <= p <= 1.0 for p in ps), f"{what}: p-values {ps}"
    _trec_formats(files, args, n, rng, a, body, what)
    if not any(f.endswith(".parquet") for f in files):
        _trec_read_whole(files, args, n, rng, a, body, what)


def _trec_means(body: dict, n: int, what: str) -> None:
    """With ``-q``, each mean is the mean of the queries' values."""
    for key, entry in _trec_entries(body, n):
        values = list(entry["per_query"].values())
        if None in values or entry["mean"] is None:
            assert entry["mean"] is None or not values, f"{what}: {key}: {entry}"
            continue
        mean = math.fsum(values) / len(values)
        assert math.isclose(entry["mean"], mean, rel_tol=1e-12, abs_tol=1e-15), (
            f"{what}: {key}: the mean {entry['mean']!r}, the queries' mean {mean!r} ({values})"
        )


def _trec_formats(
    files: list[str], args: list[str], n: int, rng: random.Random, a: tuple, body: Any, what: str
) -> None:
    """Another format of the same answer; trec_eval's layout is ``--dialect trec_eval``'s answer, and
    refused under another dialect or tie rule (docs/ranking.md).
    """
    per_query = "-q" in args
    fmt = rng.choice(["csv", "trec", "table", "markdown", "latex"])
    b = _run(["trec", *files, *args, "--format", fmt])
    _check(*b, f"{what} --format {fmt}", strict_json=False)
    if fmt != "trec":
        _agree(a, b, f"{what}: json and {fmt}")
        if a[0] == 0 and fmt == "csv":
            got = _trec_csv(b[1], n, per_query)
            want = _trec_numbers(body, n, means=not per_query)
            assert got.keys() == want.keys(), f"{what}: csv {sorted(got)} json {sorted(want)}"
            bad = {k: (got[k], want[k]) for k in got if not _same(got[k], want[k])}
            assert not bad, f"{what}: csv and json differ: {bad}"
        return
    options = dict(zip(args, [*args[1:], None], strict=False))
    if (
        options.get("--dialect", "trec_eval") != "trec_eval"
        or options.get("--ties", "trec_eval") != "trec_eval"
    ):
        assert b[0] == 2, f"{what}: --format trec {b}"
        return
    if "--tie-bounds" in args:  # trec_eval's layout has no place for them
        assert b[0] == 2, f"{what}: --format trec --tie-bounds {b}"
        return
    te = args if "--dialect" in args else [*args, "--dialect", "trec_eval"]
    c = _run(["trec", *files, *te, "--format", "json"])
    body = _check(*c, f"{what} --dialect trec_eval")
    _agree(b, c, f"{what}: --format trec and --dialect trec_eval")
    if b[0] == 0:
        got = sorted(line for line in b[1].splitlines() if line)
        assert got == _trec_lines(body, n, per_query), f"{what}: --format trec {b[1]!r} json {body}"


def _trec_read_whole(
    files: list[str], args: list[str], n: int, rng: random.Random, a: tuple, body: Any, what: str
) -> None:
    """The same bytes compressed, or a TREC file on standard input: read into memory, not mapped."""
    which = rng.randrange(n + 1)
    other = list(files)
    data = Path(files[which]).read_bytes()
    if files[which].endswith((".txt", ".run")) and rng.random() < 0.5:  # a table is told by its name
        other[which], how = "-", "standard input"
        c = _run_stdin(["trec", *other, *args, "--format", "json"], data)
    else:
        z = Path(files[which] + ".gz")
        z.write_bytes(gzip.compress(data))
        other[which], how = str(z), z.name
        c = _run(["trec", *other, *args, "--format", "json"])
    zbody = _check(*c, f"{what} ({Path(files[which]).name} as {how})")
    _agree(a, c, f"{what}: {Path(files[which]).name} and {how}")
    if a[0] == 0:
        # a run without one tag is named after its file: the values, in order
        x, y = _trec_numbers(body, n), _trec_numbers(zbody, n)
        assert len(x) == len(y) and all(_same(u, v) for u, v in zip(x.values(), y.values(), strict=True)), (
            f"{what}: {Path(files[which]).name} {body} as {how} {zbody}"
        )


def _run_stdin(argv: list[str], data: bytes) -> tuple[int, str, str]:
    """:func:`_run` with ``data`` on standard input."""
    old = sys.stdin
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(data))  # type: ignore[assignment]
    try:
        return _run(argv)
    finally:
        sys.stdin = old


@pytest.mark.parametrize("block", range(2))
def test_trec_mutated(tmp_path, block):
    rng = random.Random(3000 + block + 7919 * SEED)
    qrels, runs = _trec_seeds(rng)
    for case in range(max(1, _cases(300) // 2)):
        d = tmp_path / f"{case}"
        d.mkdir()
        _trec_case(d, rng, rng.choice(qrels), runs, f"case {block}/{case}")


def _explain_trec_case(
    tmp: Path, rng: random.Random, qrels: tuple[str, bytes], run: tuple[str, bytes], what: str
) -> None:
    """``explain QRELS RUN``: JSON and CSV agree, and a value it shows for a dialect is ``perfeval
    trec --dialect`` 's (perfeval's: ``perfeval trec`` 's).
    """
    where = rng.random()
    (qname, qdata), (rname, rdata) = qrels, run
    qdata = _mutated(qdata, rng) if where < 0.55 else qdata
    rdata = _mutated(rdata, rng) if where >= 0.45 else rdata
    qpath, rpath = tmp / f"q-{qname}", tmp / f"r-{rname}"
    qpath.write_bytes(qdata)
    rpath.write_bytes(rdata)
    args = [str(qpath), str(rpath), "-m", rng.choice(TREC_MEASURES[1:])]
    if rng.random() < 0.5:
        names = ["perfeval", "trec_eval", "ranx", "ir_measures"]
        args += ["--dialects", ",".join(rng.sample(names, rng.randint(1, 4)))]
    what = f"{what} explain {args} qrels {qdata[:200]!r} run {rdata[:200]!r}"
    a = _run(["explain", *args, "--format", "json"])
    body = _check(*a, what, options=("groups",))  # the number of groups, null without --group
    _explain_other_format(args, a, body, rng, what)
    if a[0]:
        return
    shown = [
        (d, m, _value(cell))
        for d, cells in body["dialects"].items()
        for m, cell in cells.items()
        if _value(cell) is not None
    ]
    if not shown:
        return
    d, m, value = rng.choice(shown)
    dialect = [] if d == "perfeval" else ["--dialect", d]
    c = _run(["trec", str(qpath), str(rpath), "-m", m, *dialect, "--format", "json"])
    got = _check(*c, f"{what}: trec {dialect} -m {m}")
    assert c[0] == 0, f"{what}: explain shows {d} {m} = {value!r}, trec {dialect} -m {m} says {c[2]!r}"
    (entry,) = got.values()
    assert _same(entry, value), f"{what}: explain {d} {m} = {value!r}, trec {dialect}: {entry!r}"


@pytest.mark.parametrize("block", range(2))
def test_explain_trec_mutated(tmp_path, block):
    rng = random.Random(7000 + block + 7919 * SEED)
    qrels, runs = _trec_seeds(rng)
    for case in range(max(1, _cases(200) // 2)):
        d = tmp_path / f"{case}"
        d.mkdir()
        _explain_trec_case(d, rng, rng.choice(qrels), rng.choice(runs), f"case {block}/{case}")


# ---------------------------------------------------------------- tables: explain, eval --dialect

#: (measures, dialects) for binary tables and for ranked (grouped, with ids) ones
BINARY = [
    ("roc,ap", None),
    ("roc,ap", "sklearn,spark,keras,torchmetrics"),
    ("roc,ap", "keras:num_thresholds=20,spark:numBins=5,torchmetrics:thresholds=11"),
    ("roc,logloss,brier", "sklearn,perf"),
    ("roc,apr,rms,acc", "perf"),
    ("roc", "din"),
]
RANKED = [
    ("ndcg,map", None),
    ("ndcg@5,map,mrr,p@3", "trec_eval,ranx,sklearn"),
    ("ndcg,map,mrr,r@5", "trec_eval:version=10,ranx:sorts=2,torchmetrics"),
    ("gauc,roc", "din,torchmetrics"),
    ("rprec,bpref,success@1", "trec_eval"),
    ("ndcg,dcg", "sklearn,torchmetrics:empty_target_action=pos"),
]


def _table_seeds(rng: random.Random) -> list[tuple[str, bytes, list[str], bool]]:
    """(file name, content, arguments, ranked) of valid tables."""
    n = 24
    rows = [
        (
            rng.randrange(2),
            rng.choice([0, 0, 1, 2]),
            round(rng.random(), 1),  # one decimal: ties
            f"u{rng.randrange(4)}" if rng.random() < 0.8 else str(9007199254740992 + rng.randrange(3)),
            rng.random() * 3,
        )
        for _ in range(n)
    ]
    text = "".join(f"{y} {s}\n" for y, _, s, _, _ in rows)
    binary = "id,label,score,weight\n" + "".join(
        f"{i},{'yes' if y else 'no'},{s},{w:.3f}\n" for i, (y, _, s, _, w) in enumerate(rows)
    )
    ranked = "query,doc,rel,score\n" + "".join(
        f"{u},d{i % 9}-{i},{g},{s}\n" for i, (_, g, s, u, _) in enumerate(rows)
    )
    jsonl = "".join(
        json.dumps({"q": u, "doc": f"d{i}", "click": y, "score": s}) + "\n"
        for i, (y, _, s, u, _) in enumerate(rows)
    )
    label = ["--target", "label", "--pos-label", "yes"]
    rank = ["--target", "rel", "--group", "query", "--id", "doc"]
    return [
        ("t.txt", text.encode(), [], False),
        ("b.csv", binary.encode(), label, False),
        ("w.csv", binary.encode(), [*label, "--weight", "weight"], False),
        ("r.csv", ranked.encode(), rank, True),
        ("r.tsv", ranked.replace(",", "\t").encode(), rank, True),
        ("c.jsonl", jsonl.encode(), ["--target", "click", "--group", "q", "--id", "doc"], True),
    ]


def _value(entry: dict) -> float | None:
    """A JSON entry's value: an infinite one is null with ``why_null`` saying so (docs/guide.md)."""
    why = str(entry.get("why_null", ""))
    if entry["value"] is None and why in ("+infinity", "-infinity"):
        return math.inf if why[0] == "+" else -math.inf
    return entry["value"]


def _explain_other_format(args: list[str], a: tuple, body: Any, rng: random.Random, what: str) -> None:
    """``explain`` as CSV or a table: both succeed or both fail, and CSV's values are JSON's."""
    b = _run(["explain", *args, "--format", rng.choice(["csv", "table"])])
    _check(*b, what, strict_json=False)
    _agree(a, b, f"{what}: json and {b[1][:9]!r}")
    if a[0] == 0 and b[1].startswith("dialect,"):
        rows = [[_text_cell(c) for c in row] for row in csv.reader(io.StringIO(b[1]))]
        got = {
            (r[0], m): (float(v) if v else None)
            for r in rows[1:]
            for m, v in zip(rows[0][1:], r[1:], strict=True)
        }
        want = {(d, m): _value(cell) for d, cells in body["dialects"].items() for m, cell in cells.items()}
        assert got.keys() == want.keys(), f"{what}: csv {sorted(got)} json {sorted(want)}"
        bad = {k: (got[k], want[k]) for k in got if not _same(got[k], want[k])}
        assert not bad, f"{what}: csv and json differ: {bad}"


def _ids_for(dialect: str, extra: list[str]) -> list[str]:
    """``extra`` without ``--id`` and its column unless ``dialect`` reads document ids (trec_eval):
    the command refuses ids where no dialect reads them."""
    from perfeval.dialects.apply import reads_ids

    if "--id" not in extra or reads_ids(dialect):
        return extra
    k = extra.index("--id")
    return [*extra[:k], *extra[k + 2 :]]


def _explain_case(tmp: Path, rng: random.Random, seed: tuple[str, bytes, list[str], bool], what: str) -> None:
    name, content, extra, ranked = seed
    measures, dialects = rng.choice(RANKED if ranked else BINARY)
    if dialects and all(_ids_for(d, extra) != extra for d in dialects.split(",")):
        extra = _ids_for(dialects.split(",")[0], extra)  # no dialect shown reads ids: not given
    data = _mutated(content, rng)
    path = tmp / name
    path.write_bytes(data)
    args = [str(path), *extra, "-m", measures, *(["--dialects", dialects] if dialects else [])]
    what = f"{what} explain {name} {args[1:]} {data[:200]!r}"
    a = _run(["explain", *args, "--format", "json"])
    body = _check(*a, what, options=("groups",))  # the number of groups, null without --group
    _explain_other_format(args, a, body, rng, what)
    if a[0]:
        return
    # a value explain shows for a tool is that tool's dialect's value in eval
    shown = [
        (d, k, _value(cell))
        for d, cells in body["dialects"].items()
        for k, cell in enumerate(cells.values())
        if _value(cell) is not None
    ]
    if not shown:
        return
    d, k, value = rng.choice(shown)
    m = body["measures"][k]
    spelled = measures.split(",")[k]
    c = _run(["eval", str(path), *_ids_for(d, extra), "-m", spelled, "--dialect", d, "--format", "json"])
    got = _check(*c, f"{what}: eval --dialect {d} -m {spelled}")
    assert c[0] == 0, (
        f"{what}: explain shows {d} {m} = {value!r}, eval --dialect {d} -m {spelled} says {c[2]!r}"
    )
    (entry,) = got["measures"].values()
    assert _same(_value(entry), value), (
        f"{what}: explain {d} {m} = {value!r}, eval --dialect {d}: {entry['value']!r}"
    )


@pytest.mark.parametrize("block", range(2))
def test_explain_mutated(tmp_path, block):
    rng = random.Random(4000 + block + 7919 * SEED)
    seeds = _table_seeds(rng)
    for case in range(max(1, _cases(300) // 2)):
        d = tmp_path / f"{case}"
        d.mkdir()
        _explain_case(d, rng, seeds[case % len(seeds)], f"case {block}/{case}")


def _eval_measures(out: str) -> dict:
    got = json.loads(out)["measures"]
    return {k: (v["value"], v.get("per_group")) for k, v in got.items()}


def _dialect_case(tmp: Path, rng: random.Random, seed: tuple[str, bytes, list[str], bool], what: str) -> None:
    name, content, extra, ranked = seed
    measures, dialects = rng.choice(RANKED if ranked else BINARY)
    dialect = rng.choice([*(dialects or "perfeval").split(","), "perfeval"])
    extra = _ids_for(dialect, extra)
    data = _mutated(content, rng)
    path = tmp / name
    path.write_bytes(data)
    args = ["eval", str(path), *extra, "-m", measures, "--format", "json"]
    what = f"{what} eval {name} {args[2:]} --dialect {dialect} {data[:200]!r}"
    a = _run([*args, "--dialect", dialect])
    _check(*a, what)
    b = _run([*args, "--dialect", dialect, "--stream"])
    _check(*b, what + " --stream")
    if dialect != "perfeval":
        assert b[0] == 2 and "not with --stream" in b[2], f"{what} --stream: {b}"
        return
    _agree(a, b, f"{what}: in memory and streamed")
    if a[0] == 0:
        assert _eval_measures(a[1]) == _eval_measures(b[1]), f"{what}: in memory {a[1]} streamed {b[1]}"
    c = _run(args)
    _agree(a, c, f"{what}: --dialect perfeval and none")
    if a[0] == 0:
        assert _eval_measures(a[1]) == _eval_measures(c[1]), f"{what}: --dialect perfeval {a[1]} none {c[1]}"


@pytest.mark.parametrize("block", range(2))
def test_eval_dialect_mutated(tmp_path, block):
    rng = random.Random(5000 + block + 7919 * SEED)
    seeds = _table_seeds(rng)
    for case in range(max(1, _cases(300) // 2)):
        d = tmp_path / f"{case}"
        d.mkdir()
        _dialect_case(d, rng, seeds[case % len(seeds)], f"case {block}/{case}")


# ------------------------------------------------------------------------------------------ report


def _report_case(tmp: Path, rng: random.Random, seed: tuple[str, bytes, list[str], bool], what: str) -> None:
    name, content, extra, ranked = seed
    data = _mutated(content, rng)
    path = tmp / name
    path.write_bytes(data)
    out = tmp / "report.html"
    if ranked:  # a report is of binary measures and groups: the relevance as a label
        extra = [*extra[: extra.index("--id")], "--pos-label", "2"] if name != "c.jsonl" else extra[:4]
    measures = rng.choice(["roc,apr", "roc,acc,rms", "gauc,roc" if ranked else "logloss"])
    args = ["report", str(path), *extra, "-m", measures, "-o", str(out), "--quiet"]
    what = f"{what} {args[2:]} {data[:200]!r}"
    code, stdout, err = _run(args)
    _check(code, stdout, err, what, strict_json=False)
    if code == 0:
        page = out.read_text(encoding="utf-8")
        assert page.lstrip().lower().startswith("<!doctype html") and page.rstrip().endswith("</html>"), what
        assert "Traceback" not in page, what
    else:
        assert not out.exists(), f"{what}: {err!r} and {out.name} written"


def test_report_mutated(tmp_path):
    rng = random.Random(6000 + 7919 * SEED)
    seeds = _table_seeds(rng)
    for case in range(_cases(40)):
        d = tmp_path / f"{case}"
        d.mkdir()
        _report_case(d, rng, seeds[case % len(seeds)], f"case {case}")
