#!/usr/bin/env python3
"""Reading TREC runs and qrels: perfeval.io.trec against pytrec_eval's and ranx's readers.

Run by hand (never in CI):

    python benchmarks/bench_trec_read.py [--runs 3] [--dir DIR]

Data (seeded, written once into DIR, a fresh temporary directory by default): a run of 100,000
queries x 100 documents (10,000,000 lines ``qid Q0 docid rank score tag``, about 300 MB), each
query's documents drawn without repetition from a corpus of 1,000,000 ids (``D0`` .. ``D999999``),
scores printed with ``%.6f`` in decreasing order; and a qrels file of 1,000,000 lines
(``qid 0 docid rel``: 10 judgments a query, 6 of them documents the run retrieved).

Measured: the wall time of the reading call alone (``time.perf_counter`` around it), each
measurement in a fresh Python process (imports excluded; the files are in the page cache, as they
were just written), the tools interleaved run by run; the table gives the median of ``--runs`` and
the process's peak resident memory (``ru_maxrss``, the interpreter and imports included):

* perfeval: ``read_run(path)`` / ``read_qrels(path)`` (codes, sorted vocabularies and numbers; the
  per-row str arrays ``qid``/``docid`` are built only on first use and are not part of the time).
* pytrec_eval's usual route, as its README shows: ``pytrec_eval.parse_run(open(path))`` /
  ``parse_qrel`` into ``{qid: {docid: value}}`` dicts.
* ranx: ``Run.from_file(path, kind="trec")`` / ``Qrels.from_file(path, kind="trec")``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

QUERIES, DEPTH, CORPUS, JUDGED, JUDGED_RETRIEVED = 100_000, 100, 1_000_000, 10, 6

TOOLS = {
    "perfeval": (
        "from perfeval.io.trec import read_run, read_qrels",
        "x = read_run(path)",
        "x = read_qrels(path)",
        "len(x)",
    ),
    "pytrec_eval": (
        "import pytrec_eval",
        "f = open(path); x = pytrec_eval.parse_run(f); f.close()",
        "f = open(path); x = pytrec_eval.parse_qrel(f); f.close()",
        "sum(map(len, x.values()))",
    ),
    "ranx": (
        "from ranx import Qrels, Run",
        "x = Run.from_file(path, kind='trec')",
        "x = Qrels.from_file(path, kind='trec')",
        "sum(map(len, x.to_dict().values()))",
    ),
}

CHILD = """
import resource, sys, time
{imports}
path = sys.argv[1]
t = time.perf_counter()
{call}
t = time.perf_counter() - t
print(t, {rows}, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def make_data(folder: Path) -> tuple[Path, Path]:
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    if run.exists() and qrels.exists():
        return run, qrels
    rng = np.random.default_rng(14)
    docs = rng.integers(0, CORPUS, size=(QUERIES, DEPTH))
    for q in np.flatnonzero((np.diff(np.sort(docs, axis=1), axis=1) == 0).any(axis=1)):
        docs[q] = rng.choice(CORPUS, DEPTH, replace=False)  # no document twice for a query
    gaps = rng.exponential(0.05, size=(QUERIES, DEPTH))
    scores = 30.0 - np.cumsum(gaps, axis=1)
    qids = [str(301 + q) for q in range(QUERIES)]
    ranks = [str(r) for r in range(1, DEPTH + 1)]
    with run.open("w") as f:
        for q in range(QUERIES):
            qid, d, s = qids[q], docs[q].tolist(), scores[q].tolist()
            f.write("".join(f"{qid} Q0 D{d[k]} {ranks[k]} {s[k]:.6f} bm25\n" for k in range(DEPTH)))
    with qrels.open("w") as f:
        for q in range(QUERIES):
            retrieved = docs[q, rng.choice(DEPTH, JUDGED_RETRIEVED, replace=False)].tolist()
            judged = set(retrieved)
            while len(judged) < JUDGED:
                judged.add(int(rng.integers(CORPUS)))
            rels = rng.integers(0, 4, size=JUDGED).tolist()
            f.write("".join(f"{qids[q]} 0 D{d} {r}\n" for d, r in zip(sorted(judged), rels, strict=True)))
    return run, qrels


def measure(tool: str, what: str, path: Path) -> tuple[float, int, int]:
    imports, run_call, qrels_call, rows = TOOLS[tool]
    code = CHILD.format(imports=imports, call=run_call if what == "run" else qrels_call, rows=rows)
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    t, n, rss = out.stdout.split()
    return float(t), int(n), int(rss)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None, help="where the data is (made when missing)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        run, qrels = make_data(folder)
        print(
            f"data in {folder} ({time.perf_counter() - t:.0f} s): {run.stat().st_size / 1e6:.0f} MB run, "
            f"{qrels.stat().st_size / 1e6:.0f} MB qrels",
            file=sys.stderr,
        )
        times: dict[tuple[str, str], list[float]] = {}
        info: dict[tuple[str, str], tuple[int, int]] = {}
        for r in range(args.runs):
            for what, path in (("run", run), ("qrels", qrels)):
                for tool in TOOLS:
                    sec, rows, rss = measure(tool, what, path)
                    times.setdefault((what, tool), []).append(sec)
                    info[(what, tool)] = (rows, max(rss, info.get((what, tool), (0, 0))[1]))
                    print(f"run {r + 1}: {what} {tool} {sec:.3f} s", file=sys.stderr)
        print("| file | reader | median s | runs (s) | rows | peak RSS |")
        print("|---|---|---|---|---|---|")
        for what, lines in (("run", QUERIES * DEPTH), ("qrels", QUERIES * JUDGED)):
            for k, tool in enumerate(TOOLS):
                ts = times[(what, tool)]
                rows, rss = info[(what, tool)]
                label = f"{what}, {lines:,} lines" if k == 0 else ""
                name = f"**{tool}**" if tool == "perfeval" else tool
                print(
                    f"| {label} | {name} | {statistics.median(ts):.3f} | {' '.join(f'{x:.3f}' for x in ts)} "
                    f"| {rows:,} | {rss} MiB |"
                )


if __name__ == "__main__":
    main()
