#!/usr/bin/env python3
"""Evaluating TREC runs end to end from files: perfeval against pytrec_eval, ranx and ir_measures.

Run by hand (never in CI); the peers are skipped, with a message, when not installed:

    pip install pytrec-eval-terrier ranx ir-measures      # the peers (not dependencies of perfeval)
    python benchmarks/bench_trec.py [--queries 100000] [--runs 10] [--repeat 3] [--warmup 1]
                                    [--tools perfeval,pytrec_eval,ranx,ir_measures] [--dir DIR]
    python benchmarks/bench_trec.py --queries 2000 --runs 2 --repeat 1      # a quick check
    python benchmarks/bench_trec.py --warmup 0 --ranx-repeat 1 \
        --tools perfeval,pytrec_eval,ranx_warm,ir_measures

``--tools`` takes tools or single variants (``ranx_warm``, ``perfeval_cli``...); ``--ranx-repeat K``
times ranx in the first K repetitions only (at 100,000 queries a ranx run of 10 runs takes about
six minutes); with ``--warmup 0`` numba's cache is filled by an untimed ranx run only when empty.

Issue 14: 100,000 queries x 100 documents, 10 runs, 6 measures (trec_eval's map, ndcg_cut_10,
P_10, recall_100, recip_rank, bpref), reading the files included; the goal is perfeval at least 2x
faster than the fastest peer.

Data (seeded, written once into ``DIR/q<queries>/``, default ``/tmp/perfeval-bench-trec``, and
reused while present; a smaller ``--runs`` reuses the first files): each query has a pool of 150
distinct documents (``doc1000000`` .. ``doc9999999``), of which 20 to 40 (about 30) are judged with
grades 0-3 (55/25/12/8 %, at least one relevant); ``qrels.txt`` holds those judgments (``qid 0
docid rel``, query ids 100000, 100001, ...). Run ``runNN.txt`` (tag ``runNN``) gives each query the
100 pool documents of highest score ``20 + w * grade + noise`` (``w`` falls from run to run),
printed with 6 significant digits (``dd.dddd``), so that about one query in ten has a tie, in
decreasing score order (ties in random document order); the pool documents it leaves out include
judged relevant ones.  A run of 100,000 queries is 10,000,000 lines (about 390 MB).

Each tool runs in a fresh process (``sys.executable -c ...``, or the ``perfeval`` command), the
variants interleaved repetition by repetition after ``--warmup`` untimed runs each; the table gives
the median and every run of the process's wall time (start-up, imports, reading every file and
evaluating every run: end to end), the median time inside the process from the first read to the
last mean (imports excluded), and the peak RSS of the process (``wait4``):

* perfeval, library: ``perfeval.trec.compare(qrels, runs, measures=..., test="none")`` (reads the
  judgments once; perfeval's tie rule, the expectation over the orders of tied documents);
* perfeval, command: ``perfeval trec qrels run01 ... -m ... --test none --format json``;
* perfeval, library with ``ties="trec_eval"`` (trec_eval's tie rule: the one to compare the means);
* pytrec_eval as its README's example reads files: ``parse_qrel`` / ``parse_run`` (plain Python)
  into dicts, one ``RelevanceEvaluator`` for the judgments, ``evaluate`` per run, the mean per measure;
* ranx: ``Qrels.from_file`` / ``Run.from_file`` (kind="trec"), ``evaluate`` per run; cold: numba's
  cache directory (``NUMBA_CACHE_DIR``) fresh and empty at each run, so its JIT compilation is
  timed; warm: the cache filled by an earlier, untimed run (its loading is timed; each fresh
  process still compiles numba's typed containers: about 10 s of the warm time at 2,000 queries);
* ir_measures: ``read_trec_qrels`` / ``read_trec_run``, one ``ir_measures.evaluator`` for the
  judgments (what ``calc_aggregate(measures, qrels, run)`` builds at each call), ``calc_aggregate``
  per run (it evaluates with pytrec_eval).

Then the agreement: for each variant and measure, the largest difference (over the runs) between
its mean and pytrec_eval's.  The tools compute trec_eval's definitions; ties are broken by
document id (descending) in trec_eval, pytrec_eval, ir_measures and perfeval's ``ties="trec_eval"``.
This machine sets PYTHONDONTWRITEBYTECODE=1: with an editable install, every start recompiles
perfeval's modules (about 15 ms).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PERFEVAL = str(Path(sys.executable).parent / "perfeval")
MEASURES = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank", "bpref"]
DEPTH, POOL, MAX_JUDGED = 100, 150, 40
GRADES = [0.55, 0.25, 0.12, 0.08]
QID0 = 100_000  # query ids of 6 digits
BLOCK = 10_000  # queries written at a time (1M run lines)
PAD = 0  # a byte removed from the lines before writing (variable-width fields)

CHILD = r"""
import json, sys, time
variant, qrels, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
names = [p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in runs]
KEYS = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank", "bpref"]
means = {}
if variant.startswith("perfeval"):
    import perfeval.trec
    t0 = time.perf_counter()
    ties = "trec_eval" if variant == "perfeval_ties" else "perfeval"
    d = perfeval.trec.compare(qrels, runs, measures=KEYS, test="none", ties=ties).to_dict()["runs"]
    means = {n: {k: d[n][k]["mean"] for k in KEYS} for n in d}
elif variant == "pytrec_eval":
    import pytrec_eval
    t0 = time.perf_counter()
    with open(qrels) as f:
        qrel = pytrec_eval.parse_qrel(f)
    wanted = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref"}
    ev = pytrec_eval.RelevanceEvaluator(qrel, wanted)
    for n, p in zip(names, runs):
        with open(p) as f:
            run = pytrec_eval.parse_run(f)
        res = ev.evaluate(run)
        means[n] = {k: sum(v[k] for v in res.values()) / len(res) for k in KEYS}
        del run, res
elif variant.startswith("ranx"):
    from ranx import Qrels, Run, evaluate
    METRICS = ["map", "ndcg@10", "precision@10", "recall@100", "mrr", "bpref"]
    t0 = time.perf_counter()
    q = Qrels.from_file(qrels, kind="trec")
    for n, p in zip(names, runs):
        r = Run.from_file(p, kind="trec")
        res = evaluate(q, r, METRICS)
        means[n] = {k: float(res[m]) for k, m in zip(KEYS, METRICS)}
        del r
elif variant == "ir_measures":
    import ir_measures
    from ir_measures import AP, RR, Bpref, P, R, nDCG
    ms = [AP, nDCG @ 10, P @ 10, R @ 100, RR, Bpref]
    t0 = time.perf_counter()
    ev = ir_measures.evaluator(ms, ir_measures.read_trec_qrels(qrels))
    for n, p in zip(names, runs):
        res = ev.calc_aggregate(ir_measures.read_trec_run(p))
        means[n] = {k: float(res[m]) for k, m in zip(KEYS, ms)}
print(json.dumps({"seconds": time.perf_counter() - t0, "means": means}))
"""


@dataclass(frozen=True)
class Variant:
    key: str
    tool: str
    label: str
    timed_warmup: bool = True  # False: ranx cold, whose warm-up would not warm anything


VARIANTS = [
    Variant("perfeval", "perfeval", '**perfeval.trec.compare** (library, test="none")'),
    Variant("perfeval_cli", "perfeval", "**perfeval trec** (command, --test none --format json)"),
    Variant("perfeval_ties", "perfeval", 'perfeval.trec.compare, ties="trec_eval"'),
    Variant("pytrec_eval", "pytrec_eval", "pytrec_eval: parse_qrel/parse_run + RelevanceEvaluator"),
    Variant("ranx_cold", "ranx", "ranx, cold (empty numba cache: JIT compilation timed)", False),
    Variant("ranx_warm", "ranx", "ranx, warm (numba cache filled by an earlier run)"),
    Variant("ir_measures", "ir_measures", "ir_measures: read_trec_* + evaluator.calc_aggregate"),
]
#: each tool's module, and its distribution (to install it)
TOOLS = {
    "perfeval": ("perfeval", "perfeval"),
    "pytrec_eval": ("pytrec_eval", "pytrec-eval-terrier"),
    "ranx": ("ranx", "ranx"),
    "ir_measures": ("ir_measures", "ir-measures"),
}


# ---------------------------------------------------------------------------------------------- data


def _digits(v: np.ndarray, width: int) -> np.ndarray:
    """The decimal digits of non-negative integers, zero-padded to `width`, as an (n, width) uint8 array."""
    out = np.empty((len(v), width), np.uint8)
    x = v.astype(np.int64)
    for i in range(width - 1, -1, -1):
        out[:, i] = 48 + x % 10
        x //= 10
    return out


def _const(text: str, n: int) -> np.ndarray:
    return np.frombuffer(text.encode(), np.uint8)[None, :].repeat(n, 0)


def _write_lines(fh, columns: list[np.ndarray]) -> None:
    """Write the rows of the (n, width) byte columns side by side, without the PAD bytes."""
    flat = np.hstack(columns).reshape(-1)
    fh.write(flat[flat != PAD].tobytes())


#: the rank field: 1 to 3 digits, right-aligned with PAD bytes
_RANKS = np.array([list(str(k).rjust(3, chr(PAD)).encode()) for k in range(1, DEPTH + 1)], np.uint8)


@dataclass
class Pools:
    docs: np.ndarray  # (queries, POOL) document numbers, distinct in a query
    judged: np.ndarray  # (queries,) how many of the first pool documents are judged
    grades: np.ndarray  # (queries, POOL) grade of each pool document (0 when not judged)


def _pools(queries: int) -> Pools:
    rng = np.random.default_rng(14)
    gaps = rng.integers(1, 30_000, size=(queries, POOL))
    start = rng.integers(1_000_000, 5_000_000, size=(queries, 1))
    docs = rng.permuted(start + np.cumsum(gaps, axis=1), axis=1)  # distinct, 7 digits, random order
    judged = rng.integers(20, MAX_JUDGED + 1, size=queries)
    grades = np.zeros((queries, POOL), np.int64)
    grades[:, :MAX_JUDGED] = rng.choice(len(GRADES), size=(queries, MAX_JUDGED), p=GRADES)
    grades[:, 0] = np.maximum(grades[:, 0], 1)  # every query has a relevant document
    grades[np.arange(POOL)[None, :] >= judged[:, None]] = 0
    return Pools(docs, judged, grades)


def _write_qrels(path: Path, pools: Pools) -> None:
    queries = len(pools.judged)
    with open(path, "wb") as fh:
        for lo in range(0, queries, BLOCK):
            hi = min(lo + BLOCK, queries)
            keep = (np.arange(MAX_JUDGED)[None, :] < pools.judged[lo:hi, None]).reshape(-1)
            qid = np.repeat(np.arange(QID0 + lo, QID0 + hi), MAX_JUDGED)[keep]
            doc = pools.docs[lo:hi, :MAX_JUDGED].reshape(-1)[keep]
            rel = pools.grades[lo:hi, :MAX_JUDGED].reshape(-1)[keep]
            n = len(qid)
            cols = [_digits(qid, 6), _const(" 0 doc", n), _digits(doc, 7), _const(" ", n)]
            _write_lines(fh, [*cols, (48 + rel).astype(np.uint8)[:, None], _const("\n", n)])


def _write_run(path: Path, pools: Pools, index: int) -> None:
    rng = np.random.default_rng(1000 + index)
    weight = 1.2 - 0.08 * index  # the runs differ in quality
    tag = f"run{index + 1:02d}"
    queries = len(pools.judged)
    with open(path, "wb") as fh:
        for lo in range(0, queries, BLOCK):
            hi = min(lo + BLOCK, queries)
            score = 20.0 + weight * pools.grades[lo:hi] + rng.normal(0.0, 1.5, size=(hi - lo, POOL))
            top = np.argsort(-score, axis=1)[:, :DEPTH]  # in decreasing score: ties in random doc order
            doc = np.take_along_axis(pools.docs[lo:hi], top, axis=1).reshape(-1)
            fixed = np.rint(np.take_along_axis(score, top, axis=1).reshape(-1) * 1e4).astype(np.int64)
            digits = _digits(np.clip(fixed, 100_000, 999_999), 6)  # dd.dddd: 6 significant digits
            n = len(doc)
            qid = np.repeat(np.arange(QID0 + lo, QID0 + hi), DEPTH)
            cols = [_digits(qid, 6), _const(" Q0 doc", n), _digits(doc, 7), _const(" ", n)]
            cols += [np.tile(_RANKS, (hi - lo, 1)), _const(" ", n), digits[:, :2], _const(".", n)]
            _write_lines(fh, [*cols, digits[:, 2:], _const(f" {tag}\n", n)])


def make_data(root: Path, queries: int, runs: int) -> tuple[Path, list[Path]]:
    """The qrels and run files (written when missing; each file is written under a temporary name
    and renamed, so an interrupted run leaves no half file behind)."""
    if not 0 < queries <= 900_000:
        raise SystemExit("--queries: 1 to 900,000")
    folder = root / f"q{queries}"
    qrels = folder / "qrels.txt"
    paths = [folder / f"run{r + 1:02d}.txt" for r in range(runs)]
    missing = [p for p in [qrels, *paths] if not p.exists()]
    if not missing:
        return qrels, paths
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    pools = _pools(queries)
    for p in missing:
        tmp = p.with_suffix(".part")
        if p == qrels:
            _write_qrels(tmp, pools)
        else:
            _write_run(tmp, pools, paths.index(p))
        tmp.replace(p)
    size = sum(p.stat().st_size for p in missing)
    print(
        f"wrote {len(missing)} files into {folder}: {size / 1e6:,.0f} MB, {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    return qrels, paths


# ------------------------------------------------------------------------------------------ measuring


@dataclass
class Runs:
    walls: list[float] = field(default_factory=list)
    inside: list[float] = field(default_factory=list)
    rss: int = 0  # bytes
    means: dict[str, dict[str, float]] = field(default_factory=dict)


def _command(v: Variant, qrels: Path, runs: list[Path]) -> list[str]:
    files = [str(qrels), *map(str, runs)]
    if v.key == "perfeval_cli":
        return [PERFEVAL, "trec", *files, "-m", ",".join(MEASURES), "--test", "none", "--format", "json"]
    return [sys.executable, "-c", CHILD, v.key, *files]


def _cli_means(text: str, runs: list[Path]) -> dict[str, dict[str, float]]:
    """The means in ``perfeval trec --format json``: ``{measure: mean}`` for one run, ``{run: {measure: mean,
    ...}}`` for several (``p_values`` beside the means when tested)."""
    d = json.loads(text)
    if all(isinstance(x, (int, float)) for x in d.values()):
        d = {runs[0].stem: d}
    return {n: {k: float(x[k]) for k in MEASURES} for n, x in d.items()}


def run_once(v: Variant, qrels: Path, runs: list[Path], cache: Path) -> tuple[float, float | None, int, dict]:
    """(wall seconds, seconds inside the process or None, peak RSS in bytes, means by run and measure)."""
    env = dict(os.environ)
    cold = None
    if v.key == "ranx_cold":
        cold = tempfile.mkdtemp(prefix="numba-cold-")
        env["NUMBA_CACHE_DIR"] = cold
    elif v.key == "ranx_warm":
        env["NUMBA_CACHE_DIR"] = str(cache)
    try:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            t0 = time.perf_counter()
            p = subprocess.Popen(_command(v, qrels, runs), stdout=out, stderr=err, env=env)
            _pid, status, usage = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            out.seek(0)
            err.seek(0)
            text, errors = out.read().decode(), err.read().decode()
    finally:
        if cold:
            shutil.rmtree(cold, ignore_errors=True)
    if status != 0:
        raise SystemExit(f"{v.key} failed ({status}): {errors.strip()[-2000:]}")
    if v.key == "perfeval_cli":
        return wall, None, usage.ru_maxrss * 1024, _cli_means(text, runs)
    d = json.loads(text.strip().splitlines()[-1])
    return wall, d["seconds"], usage.ru_maxrss * 1024, d["means"]


def available(tools: list[str]) -> list[str]:
    keep = []
    for t in tools:
        module, dist = TOOLS[t]
        if importlib.util.find_spec(module) is None:
            print(f"{t}: not installed (pip install {dist}): skipped", flush=True)
        else:
            keep.append(t)
    return keep


def measure(variants: list[Variant], qrels: Path, runs: list[Path], a: argparse.Namespace) -> dict[str, Runs]:
    numba_cache = Path(a.dir) / "numba-cache"
    results = {v.key: Runs() for v in variants}
    for w in range(a.warmup):
        for v in variants:
            if v.timed_warmup:
                wall, *_ = run_once(v, qrels, runs, numba_cache)
                print(f"warm-up {w + 1}: {v.key} {wall:.2f} s", file=sys.stderr, flush=True)
    warm = [v for v in variants if v.key == "ranx_warm"]
    if a.warmup == 0 and warm and not any(numba_cache.glob("**/*.nbi")):
        run_once(warm[0], qrels, runs, numba_cache)  # fill numba's cache
    for k in range(a.repeat):
        for v in variants:
            if v.tool == "ranx" and k >= a.ranx_repeat:
                continue
            wall, inside, rss, means = run_once(v, qrels, runs, numba_cache)
            r = results[v.key]
            r.walls.append(wall)
            if inside is not None:
                r.inside.append(inside)
            r.rss, r.means = max(r.rss, rss), means
            print(f"run {k + 1}: {v.key} {wall:.2f} s, {rss / 2**20:,.0f} MiB", file=sys.stderr, flush=True)
    return results


# ------------------------------------------------------------------------------------------ reporting


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "-"


def machine() -> None:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        commit = subprocess.run(
            ["git", "-C", str(HERE), "describe", "--always", "--dirty"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        commit = "?"
    print(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, "
        f"Python {platform.python_version()}"
    )
    versions = ", ".join(
        f"{d} {_version(d)}"
        for d in ("perfeval", "numpy", "pytrec-eval-terrier", "ranx", "numba", "ir-measures")
    )
    print(f"versions: {versions}; perfeval at commit {commit or '?'}")


def _fmt_diff(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


def report(variants: list[Variant], results: dict[str, Runs], queries: int, runs: int) -> None:
    lines = queries * DEPTH
    n_runs = f"{runs} run" + ("s" if runs != 1 else "")
    print(f"\n{queries:,} queries x {DEPTH} documents ({lines:,} lines a run), {n_runs}, 6 measures\n")
    print("| tool | median wall s | runs (s) | in-process s | peak RSS |")
    print("|---|---|---|---|---|")
    for v in variants:
        r = results[v.key]
        inside = f"{statistics.median(r.inside):.2f}" if r.inside else "–"
        print(
            f"| {v.label} | {statistics.median(r.walls):.2f} | {' '.join(f'{w:.2f}' for w in r.walls)} "
            f"| {inside} | {r.rss / 2**20:,.0f} MiB |"
        )
    peers = [v for v in variants if v.tool != "perfeval"]
    if peers and "perfeval" in results:
        best = min(peers, key=lambda v: statistics.median(results[v.key].walls))
        t_best = statistics.median(results[best.key].walls)
        print(f"\nfastest peer: {best.key}, {t_best:.2f} s; goal of issue 14: perfeval at least 2x faster")
        for key in ("perfeval", "perfeval_cli"):
            if key in results:
                t = statistics.median(results[key].walls)
                print(f"- {key}: {t:.2f} s, speed-up {t_best / t:.2f} ({best.key} time / {key} time)")
    agreement(variants, results)


def agreement(variants: list[Variant], results: dict[str, Runs]) -> None:
    if "pytrec_eval" not in results:
        print("\n(agreement: needs pytrec_eval as the reference)")
        return
    ref = results["pytrec_eval"].means
    first = sorted(ref)[0]
    shown = ", ".join(f"{m} {ref[first][m]:.6f}" for m in MEASURES)
    print(f"\npytrec_eval's means of {first}: {shown}")
    print("\nLargest |mean - pytrec_eval's mean| over the runs:\n")
    print("| tool | " + " | ".join(MEASURES) + " |")
    print("|---|" + "---|" * len(MEASURES))
    for v in variants:
        if v.key == "pytrec_eval":
            continue
        got = results[v.key].means
        if sorted(got) != sorted(ref):
            print(f"| {v.key} | runs differ: {sorted(got)} |")
            continue
        diffs = [max(abs(got[n][m] - ref[n][m]) for n in ref) for m in MEASURES]
        print(f"| {v.key} | " + " | ".join(_fmt_diff(d) for d in diffs) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10, help="run files (at most 15)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each tool (the median is shown)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs of each tool first")
    ap.add_argument(
        "--tools",
        default="perfeval,pytrec_eval,ranx,ir_measures",
        help="tools, or single variants (" + ", ".join(v.key for v in VARIANTS) + ")",
    )
    ap.add_argument(
        "--ranx-repeat",
        type=int,
        default=None,
        help="timed runs of ranx (default --repeat): at 100k queries it takes minutes a run",
    )
    ap.add_argument("--dir", default="/tmp/perfeval-bench-trec", help="the data (made when missing)")
    a = ap.parse_args()
    asked = [t.strip() for t in a.tools.split(",") if t.strip()]
    keys = {v.key: v.tool for v in VARIANTS}
    unknown = set(asked) - set(TOOLS) - set(keys)
    if unknown:
        ap.error(
            f"--tools: unknown {', '.join(sorted(unknown))}; the tools: {', '.join(TOOLS)}; "
            f"the variants: {', '.join(keys)}"
        )
    a.ranx_repeat = a.repeat if a.ranx_repeat is None else a.ranx_repeat
    if not 1 <= a.runs <= 15 or a.repeat < 1 or a.warmup < 0 or not 1 <= a.ranx_repeat <= a.repeat:
        ap.error("--runs 1 to 15, --repeat at least 1, --warmup at least 0, --ranx-repeat 1 to --repeat")
    machine()
    tools = available(sorted({keys.get(t, t) for t in asked}))
    qrels, runs = make_data(Path(a.dir), a.queries, a.runs)
    variants = [v for v in VARIANTS if v.tool in tools and (v.tool in asked or v.key in asked)]
    results = measure(variants, qrels, runs, a)
    report(variants, results, a.queries, a.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
