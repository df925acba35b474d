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
import resource
import statistics
import subprocess
import sys
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
                fh.write("".join(f"{a} {b:.6f}\n" for a, b in zip(y[i:i + 1_000_000].tolist(),
                                                                  score[i:i + 1_000_000].tolist())))
    if not paths["sorted400k"].exists():
        rng = random.Random(84)
        rows = sorted((rng.random(), int(rng.random() < 0.3)) for _ in range(400_000))
        paths["sorted400k"].write_text("".join(f"{t} {p:.6f}\n" for p, t in rows))
    if not paths["ten"].exists():
        paths["ten"].write_text("1 0.9\n0 0.8\n1 0.7\n0 0.6\n1 0.55\n0 0.4\n0 0.3\n1 0.2\n0 0.1\n0 0.05\n")
    return paths


def run_once(cmd: list[str], infile: Path) -> tuple[float, int, bytes]:
    """(wall seconds, peak RSS in KiB of the child, stdout)."""
    with open(infile, "rb") as fin:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = proc.stdout.read() if proc.stdout else b""
        _pid, _status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = 0
    return wall, ru.ru_maxrss, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perf", default=str(Path(sys.executable).parent / "perf"))
    ap.add_argument("--original", help="PERF 5.12 built from source with a raised item limit")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--original-runs-sorted", type=int, default=1,
                    help="runs of the original on sorted400k (about a minute each)")
    ap.add_argument("--only", nargs="*", choices=("big10m", "sorted400k", "ten"))
    a = ap.parse_args()
    inputs = make_inputs()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'input':<11} {'command':<9} {'median s':>9} {'runs':<40} {'peak RSS MiB':>12}  same output")
    for name, path in inputs.items():
        if a.only and name not in a.only:
            continue
        results = {}
        cmds = [("perf", [a.perf], a.runs if name != "ten" else max(a.runs, 20))]
        if a.original:
            runs = a.original_runs_sorted if name == "sorted400k" else a.runs
            cmds.append(("original", [a.original], runs if name != "ten" else max(a.runs, 20)))
        for label, cmd, runs in cmds:
            walls, rss, out = [], 0, b""
            for _ in range(runs):
                w, r, out = run_once(cmd, path)
                walls.append(w)
                rss = max(rss, r)
            results[label] = out
            same = "" if label == "perf" else ("yes" if out == results["perf"] else "NO")
            shown = " ".join(f"{w:.3f}" for w in walls[:8]) + (" ..." if len(walls) > 8 else "")
            print(f"{name:<11} {label:<9} {statistics.median(walls):>9.3f} {shown:<40} {rss / 1024:>12.1f}  {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
