#!/usr/bin/env python3
"""Per group, the calibration and operating-point measures against GAUC on the same rows; and the
weighted summary against the unweighted one (issue 33, "Fast"; branch fits-fast).

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_group_fits.py --runs 3
    PYTHONPATH=src python benchmarks/bench_group_fits.py --runs 3 --only weighted

* ``groups``: ``--rows`` rows in ``--groups`` random groups (and again with ``--rows2`` rows in
  ``--groups2`` groups), uniform float64 scores, y drawn with P(y = 1) = score;
  ``perfeval.evaluate(y, s, groups=g, measures=[m])`` for each spec, every group's value.  Each spec's
  runs alternate with runs of GAUC (GAUC, spec, GAUC, spec, ...) and its ratio is to the median of
  those GAUC runs, by the wall clock and by the process's CPU time (every thread's), which the other
  work of a shared machine moves less.
* ``weighted``: ``--distinct`` cases with distinct float64 scores, ``evaluate(y, s, measures=["roc"])``
  with weights uniform in (0, 2] against the same without weights, alternated the same way.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings

import numpy as np

SPECS = [
    "gauc",
    "roc",
    "cal_slope",
    "cal_intercept",
    "cal_intercept:fit=joint",
    "ece",
    "ece:bins=mass",
    "brier_mcb",
    "brier_dsc",
    "youden",
    "tpr_at_fpr@0.1",
    "pauc@0.2",
]


def beside(fn, ref, runs: int) -> tuple[float, float, float, float]:
    """(wall, cpu) medians of ``fn`` and of ``ref`` run alternately ``runs`` times each (ref first)."""
    w, c, rw, rc = [], [], [], []
    for _ in range(runs):
        for f, ws, cs in ((ref, rw, rc), (fn, w, c)):
            t0, c0 = time.perf_counter(), time.process_time()
            f()
            ws.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
    med = statistics.median
    return med(w), med(c), med(rw), med(rc)


def groups(rows: int, G: int, runs: int, specs: list[str]) -> None:
    import perfeval

    rng = np.random.default_rng(0)
    g = rng.integers(0, G, rows)
    s = rng.random(rows)
    y = (rng.random(rows) < s).astype(np.int64)
    print(f"\n{rows:,} rows in {G:,} groups, every group's value; ratios to GAUC run beside each")
    print(f"{'measure':<26}{'wall s':>8}{'cpu s':>8}{'x GAUC':>8}{'cpu x GAUC':>12}")

    def run(spec: str) -> object:
        return perfeval.evaluate(y, s, groups=g, measures=[spec])

    run("gauc")  # the first call's imports and caches, before the clock
    for spec in specs:
        w, c, rw, rc = beside(lambda spec=spec: run(spec), lambda: run("gauc"), runs)
        print(f"{spec:<26}{w:>8.3f}{c:>8.3f}{w / rw:>8.2f}{c / rc:>12.2f}", flush=True)


def weighted(n: int, runs: int) -> None:
    import perfeval

    rng = np.random.default_rng(0)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int64)
    wt = 2.0 - rng.random(n) * 2.0
    perfeval.evaluate(y[:1000], s[:1000], sample_weight=wt[:1000], measures=["roc"])
    print(f"\n{n:,} cases, distinct float64 scores: ROC with weights, beside ROC without")
    w, c, rw, rc = beside(
        lambda: perfeval.evaluate(y, s, sample_weight=wt, measures=["roc"]),
        lambda: perfeval.evaluate(y, s, measures=["roc"]),
        runs,
    )
    print(f"unweighted ROC: {rw:.2f} s wall, {rc:.2f} s cpu")
    print(f"weighted ROC:   {w:.2f} s wall, {c:.2f} s cpu ({w / rw:.2f}x wall, {c / rc:.2f}x cpu)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--rows2", type=int, default=9_000_000)
    ap.add_argument("--groups2", type=int, default=300)
    ap.add_argument("--distinct", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["groups", "weighted"], default=None)
    ap.add_argument("--specs", default=",".join(SPECS[1:]), help="separated by ','")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import perfeval

    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, "
        f"perfeval {perfeval.__version__}, median of {args.runs}; load {os.getloadavg()[0]:.1f}"
    )
    if args.only != "weighted":
        specs = args.specs.split(",")
        groups(args.rows, args.groups, args.runs, specs)
        groups(args.rows2, args.groups2, args.runs, specs)
    if args.only != "groups":
        weighted(args.distinct, args.runs)
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
