#!/usr/bin/env python3
"""Benchmarks of the classic `perf` command, with the original PERF measured in the same run.

Run by hand (never in CI):

    python benchmarks/bench_classic.py --perf .venv/bin/perf --original /path/to/original/perf --runs 5

`--original` is PERF 5.12 compiled from its source with the item limit raised (a local scratch build
that is never committed; docs/compatibility.md says how).  Inputs are generated into
benchmarks/data/ (git-ignored) with a fixed seed:

- big10m.txt: 10,000,000 lines `target prediction`, 30% positives, predictions printed with %.6f
  (about a million distinct values, so many ties, as real model outputs have);
- sorted400k.txt: 400,000 lines already sorted by prediction (the original's quicksort is
  quadratic there);
- ten.txt: 10 lines.

For each command and input: wall time (median and all runs), peak resident memory, and whether
the outputs are byte-identical.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def make_inputs() -> dict[str, Path]:
    DATA.mkdir(exist_ok=True)
    paths = {"big10m": DATA / "big10m.txt", "sorted400k": DATA / "sorted400k.txt", "ten": DATA / "ten.txt"}
    if not paths["big10m"].exists():
        import numpy as np

        rng = np.random.default_rng(20240601)
        n = 10_000_000
        y = (rng.random(n) < 0.3).astype(np.int8)
        score = 1 / (1 + np.exp(-(1.6 * y - 0.8 + rng.normal(0, 1.2, n))))
        with open(paths["big10m"], "w") as fh:
            for i in range(0, n, 1_000_000):
                fh.write(
                    "".join(
                        f"{a} {b:.6f}\n"
                        for a, b in zip(
                            y[i : i + 1_000_000].tolist(), score[i : i + 1_000_000].tolist(), strict=False
                        )
                    )
                )
    if not paths["sorted400k"].exists():
        rng = random.Random(84)
        rows = sorted((rng.random(), int(rng.random() < 0.3)) for _ in range(400_000))
        paths["sorted400k"].write_text("".join(f"{t} {p:.6f}\n" for p, t in rows))
    if not paths["ten"].exists():
        paths["ten"].write_text("1 0.9\n0 0.8\n1 0.7\n0 0.6\n1 0.55\n0 0.4\n0 0.3\n1 0.2\n0 0.1\n0 0.05\n")
    return paths


def run_once(cmd: list[str], infile: Path) -> tuple[float, int, bytes]:
    """(wall seconds, peak RSS in KiB, stdout).  Peak RSS comes from GNU time when present: the
    rusage of a child forked from this (large) Python process would include the parent's pages."""
    gnu_time = "/usr/bin/time"
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file, open(infile, "rb") as fin:
        full = [gnu_time, "-f", "%M", "-o", rss_file.name, *cmd] if os.path.exists(gnu_time) else cmd
        t0 = time.perf_counter()
        proc = subprocess.run(full, stdin=fin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        text = rss_file.read().strip().splitlines()
    rss = int(text[-1]) if text and text[-1].isdigit() else 0
    return wall, rss, proc.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perf", default=str(Path(sys.executable).parent / "perf"))
    ap.add_argument("--original", help="PERF 5.12 built from source with a raised item limit")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--original-runs-sorted",
        type=int,
        default=1,
        help="runs of the original on sorted400k (about a minute each)",
    )
    ap.add_argument("--only", nargs="*", choices=("big10m", "sorted400k", "ten"))
    a = ap.parse_args()
    inputs = make_inputs()
    print(
        f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}"
    )
    print(f"{'input':<11} {'command':<9} {'median s':>9} {'runs':<40} {'peak RSS MiB':>12}  same output")
    os.sync()  # the inputs were just written: let write-back finish before timing
    time.sleep(2)
    for name, path in inputs.items():
        if a.only and name not in a.only:
            continue
        cmds = {"perf": [a.perf]}
        if a.original:
            cmds["original"] = [a.original]
        runs = {"perf": a.runs if name != "ten" else max(a.runs, 20)}
        if a.original:
            runs["original"] = a.original_runs_sorted if name == "sorted400k" else runs["perf"]
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        rss: dict[str, int] = {k: 0 for k in cmds}
        outs: dict[str, bytes] = {}
        for label, cmd in cmds.items():  # one warm-up run each (page cache, first-touch costs)
            if runs[label] > 1:
                run_once(cmd, path)
        for i in range(max(runs.values())):  # interleaved, so slow phases of the machine hit both
            for label, cmd in cmds.items():
                if i < runs[label]:
                    w, r, outs[label] = run_once(cmd, path)
                    walls[label].append(w)
                    rss[label] = max(rss[label], r)
        for label in cmds:
            same = "" if label == "perf" else ("yes" if outs[label] == outs["perf"] else "NO")
            ws = walls[label]
            shown = " ".join(f"{w:.3f}" for w in ws[:8]) + (" ..." if len(ws) > 8 else "")
            print(
                f"{name:<11} {label:<9} {statistics.median(ws):>9.3f} {shown:<40} "
                f"{rss[label] / 1024:>12.1f}  {same}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
