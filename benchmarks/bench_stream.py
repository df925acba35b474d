#!/usr/bin/env python3
"""Streaming benchmark: every global PERF measure over 100,000,000 rows of a text file.

Run by hand (never in CI), after bench_classic.py has made benchmarks/data/big10m.txt:

    python benchmarks/bench_stream.py --runs 3

The 100M-line file (1.1 GB) is ten copies of big10m.txt (so about a million distinct scores); it
is made once into benchmarks/data/big100m.txt.  Measured: `perfeval eval --stream` with PERF's
default report (22 measures), wall time, rows per second and peak RSS (GNU time), and the classic
`perf` command on the same file in the same run (it holds every row in memory, as float32).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def run(cmd: list[str]) -> tuple[float, int, bytes]:
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t0 = time.perf_counter()
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        wall = time.perf_counter() - t0
        kb = int(rss.read().split()[-1])
    return wall, kb, p.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", default=str(Path(sys.executable).parent))
    a = ap.parse_args()
    src, big = DATA / "big10m.txt", DATA / "big100m.txt"
    if not big.exists():
        with open(big, "wb") as out:
            for _ in range(10):
                with open(src, "rb") as fh:
                    shutil.copyfileobj(fh, out, 16 << 20)
        os.sync()
    rows = 100_000_000
    print(f"file {big.name}: {big.stat().st_size / 1e9:.2f} GB, {rows:,} rows")
    print("| command | median s | runs (s) | rows/s | peak RSS MiB |\n|---|---|---|---|---|")
    for label, cmd, runs in (
        ("perfeval eval --stream (22 measures)", [f"{a.bin}/perfeval", "eval", "--stream", str(big)], a.runs),
        ("perf (classic, in memory, float32)", ["sh", "-c", f"{a.bin}/perf < {big}"], 1),
    ):
        walls, peak = [], 0
        for _ in range(runs):
            w, kb, _out = run(cmd)
            walls.append(w)
            peak = max(peak, kb)
        med = statistics.median(walls)
        print(
            f"| {label} | {med:.2f} | {' '.join(f'{w:.2f}' for w in walls)} | {rows / med / 1e6:.1f} M | "
            f"{peak / 1024:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
