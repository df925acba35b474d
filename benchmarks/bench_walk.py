#!/usr/bin/env python3
"""The bootstrap's compiled walk alone, on each instruction set this machine runs (issue 16).

Run by hand (never in CI):

    python benchmarks/bench_walk.py --runs 3

Nanoseconds per cell and replicate, one thread, for a summary of a million distinct scores (one
case a cell: one Poisson(1) draw a cell) and for the summary of 30 million scores printed with 6
decimals (about 950,000 cells of about 30 cases: two table draws a cell), each with the plan of
`eval --ci -m roc,apr,rms`, with CA2's alone and with the plan of PERF's whole report (22
measures); and the same for the case-level walk of `compare` (two models on the same draws, per
model).  Every walk gives the same numbers (tests/test_bootstrap.py); this says how fast each
is: "base" is the SSE2 baseline every x86-64 runs, "v3" AVX2, "v4" AVX-512.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def summaries():
    from perfeval.summaries import ScoreHistogram

    rng = np.random.default_rng(1)
    n = 1_000_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + y - 1)))
    distinct = ScoreHistogram.from_arrays(y, s)
    rng = np.random.default_rng(7)
    n = 30_000_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + y - 1))), 6)
    tied = ScoreHistogram.from_arrays(y, s)
    return {"1M distinct": distinct, "30M 6-decimal": tied}, y[:1_000_000], s[:1_000_000]


def plans():
    from perfeval.base.nicknames import ALL
    from perfeval.measures import parse_measure
    from perfeval.stats.fastpaths import plan_stats
    from perfeval.stats.replicates import _plan_of

    out = {}
    chosen = (("roc,apr,rms", ["roc", "apr", "rms"]), ("ca2", ["ca2"]), ("PERF's 22", list(ALL)))
    for name, measures in chosen:
        plan, _ = plan_stats([_plan_of(parse_measure(m)) for m in measures])
        out[name] = plan
    return out


def walks() -> list[str]:
    from perfeval import _native

    here, out = _native.walk_target(), []
    for name in ("base", "v3", "v4"):
        try:
            _native.walk_target(name)
            out.append(name)
        except ValueError:
            pass
    _native.walk_target(here)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--replicates", type=int, default=64)
    a = ap.parse_args()
    from perfeval import _native
    from perfeval.stats.replicates import Sorted

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}; one thread, {a.replicates} replicates a call, median of {a.runs}"
    )
    sums, y, s = summaries()
    rng = np.random.default_rng(3)
    b = 1 / (1 + np.exp(-(rng.normal(size=len(s)) + y - 1)))
    cols = [(so.order, so.gend, so.gscores) for so in (Sorted(s), Sorted(b))]
    u8 = y.astype(np.uint8)
    here = _native.walk_target()
    print("| data | plan | " + " | ".join(f"{w} ns" for w in walks()) + " |")
    print("|---|---|" + "---|" * len(walks()))
    try:
        for pname, plan in plans().items():
            for dname, h in sums.items():
                sc, pos, neg = (np.ascontiguousarray(x, np.float64) for x in (h.scores, h.pos, h.neg))
                cells = []
                for w in walks():
                    _native.walk_target(w)
                    times = []
                    for _ in range(a.runs):
                        t0 = time.perf_counter()
                        _native.boot_hist_multi(sc, pos, neg, plan, 0, 0, a.replicates, 1)
                        times.append(time.perf_counter() - t0)
                    cells.append(statistics.median(times) / a.replicates / len(sc) * 1e9)
                print(f"| {dname} summary | {pname} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
            cells = []
            for w in walks():
                _native.walk_target(w)
                times = []
                for _ in range(a.runs):
                    t0 = time.perf_counter()
                    _native.boot_rows_multi(u8, None, plan, 0, 0, a.replicates, 1, *cols)
                    times.append(time.perf_counter() - t0)
                cells.append(statistics.median(times) / a.replicates / len(s) / 2 * 1e9)
            shown = " | ".join(f"{c:.2f}" for c in cells)
            print(f"| 1M cases, two models (per model) | {pname} | {shown} |")
    finally:
        _native.walk_target(here)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
