#!/usr/bin/env python3
"""Regression per group at the GAUC speed (issue 33): each per-group regression job timed against
GAUC over the same rows and groups, alternately in one run, CPU and wall.

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_regression_groups.py --runs 5

The data (fixed seeds): ``--rows`` targets ``N(5, 3^2)``, predictions the target plus ``N(0, 1)``
noise, groups uniform over ``--groups`` ids; GAUC scores ``y > 5`` with the same predictions.  Each
round runs every job once (GAUC first, then the regression jobs, so that a burst of load on the shared
box hits them alike); after a warm-up round, the median of ``--runs`` rounds, CPU time
(``time.process_time``) and wall time, and each job's ratio to GAUC's.  ``--weighted`` adds each
regression job with weights uniform on [0, 2) (GAUC takes no weights: those ratios are to the
unweighted GAUC, and a weighted sum has twice the terms).  The load average is printed
before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--weighted", action="store_true", help="also the jobs with weights uniform on [0, 2)")
    a = ap.parse_args()
    import perfeval

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    y = rng.normal(size=a.rows) * 3 + 5
    p = y + rng.normal(size=a.rows)
    g = rng.integers(0, a.groups, a.rows)
    w = rng.random(a.rows) * 2
    yb = (y > 5).astype(np.int8)
    jobs = {"gauc": lambda: perfeval.evaluate(yb, p, groups=g, measures=["gauc"])}
    for ms in (["mae"], ["mse"], ["rmse"], ["mae", "rmse"], ["r2"], ["expvar"], ["mae", "rmse", "r2"]):
        jobs["+".join(ms)] = lambda ms=ms: perfeval.evaluate(y, p, groups=g, measures=ms, task="regression")
        if a.weighted:
            jobs["+".join(ms) + " weighted"] = lambda ms=ms: perfeval.evaluate(
                y, p, groups=g, sample_weight=w, measures=ms, task="regression"
            )
    print(f"{a.rows:,} rows, {len(np.unique(g)):,} groups; median of {a.runs}; load {os.getloadavg()}")
    cpu: dict[str, list[float]] = {k: [] for k in jobs}
    wall: dict[str, list[float]] = {k: [] for k in jobs}
    for r in range(a.runs + 1):
        for k, f in jobs.items():
            c, t = time.process_time(), time.perf_counter()
            f()
            c, t = time.process_time() - c, time.perf_counter() - t
            if r:  # round 0: the warm-up
                cpu[k].append(c)
                wall[k].append(t)
    print(f"{'job':<22} {'cpu ms':>8} {'wall ms':>8} {'cpu/gauc':>9} {'wall/gauc':>10}")
    for k in jobs:
        c, t = statistics.median(cpu[k]), statistics.median(wall[k])
        bc, bt = statistics.median(cpu["gauc"]), statistics.median(wall["gauc"])
        print(f"{k:<22} {1e3 * c:8.1f} {1e3 * t:8.1f} {c / bc:9.2f} {t / bt:10.2f}")
    print(f"load after {os.getloadavg()}")


if __name__ == "__main__":
    main()
