#!/usr/bin/env python3
"""The calibration measures (issue 33) against the ROC area on the same data, and against
torchmetrics' ``binary_calibration_error`` and netcal's ``ECE`` in the same run.

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_calibration.py --distinct 10000000 --rows 1000000 \\
        --groups 100000 --runs 3 --peers /tmp/oracle-venv/bin/python

* ``--distinct`` cases, each its own float64 score (uniform), the target drawn with P(y = 1) = score:
  ``perfeval.evaluate(y, s, measures=[m])`` for ROC and each calibration spec, median of ``--runs``
  (the summary is built each time: the ROC area's time is the floor).  Each spec's runs alternate
  with runs of ROC (ROC, spec, ROC, spec, ...), and its ratio is to the median of those ROC runs,
  so that a machine shared with other work moves both alike; beside the wall-clock ratio, the ratio
  of the process's CPU time (every thread's), which other processes move less.  The peers, in a subprocess
  of the ``--peers`` interpreter on the same arrays (an .npy file; loading and importing not timed):
  torchmetrics' ``binary_calibration_error(preds, target, n_bins=15, norm="l1")`` on float64 tensors,
  netcal's ``ECE(bins=15).measure(s, y)``; their values printed beside perfeval's ECE.
* ``--rows`` rows in ``--groups`` groups (random group of each row, the same scores and targets):
  ``evaluate(..., groups=g)`` for ROC and each spec, every group's value, median of ``--runs``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

SPECS = [
    "roc",
    "ece",
    "ece:bins=mass",
    "brier_mcb",
    "brier_mcb:form=murphy",
    "brier_dsc",
    "brier_unc",
    "cal_intercept",
    "cal_intercept:fit=joint",
    "cal_slope",
]

PEERS = r"""
import json, statistics, sys, time
import numpy as np
y, s = np.load(sys.argv[1]), np.load(sys.argv[2])
runs = int(sys.argv[3])
out = {}
import torch, torchmetrics
from torchmetrics.functional.classification import binary_calibration_error
tp, tt = torch.from_numpy(s), torch.from_numpy(y)
times = []
for _ in range(runs):
    t = time.perf_counter()
    v = float(binary_calibration_error(tp, tt, n_bins=15, norm="l1"))
    times.append(time.perf_counter() - t)
out["torchmetrics " + torchmetrics.__version__] = (statistics.median(times), v)
import netcal
from netcal.metrics import ECE
times = []
for _ in range(runs):
    t = time.perf_counter()
    v = float(ECE(bins=15).measure(s, y))
    times.append(time.perf_counter() - t)
out["netcal " + netcal.__version__] = (statistics.median(times), v)
print(json.dumps(out))
"""


def timed(fn, runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def beside(fn, ref, runs: int) -> tuple[float, float, float, float, object]:
    """(wall, cpu) medians of ``fn`` and of ``ref`` run alternately ``runs`` times each (ref first),
    and fn's last result.
    """
    w, c, rw, rc, out = [], [], [], [], None
    for _ in range(runs):
        for f, ws, cs in ((ref, rw, rc), (fn, w, c)):
            t0, c0 = time.perf_counter(), time.process_time()
            r = f()
            ws.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
            if f is fn:
                out = r
    med = statistics.median
    return med(w), med(c), med(rw), med(rc), out


def table(run, specs: list[str], runs: int, last: str) -> tuple[dict[str, float], float]:
    """Each spec's row: seconds, its wall and CPU time over ROC's run beside it, and ``last``; the
    specs' values and ROC's seconds (its own row's).
    """
    print(f"{'measure':<26}{'seconds':>9}{'x ROC':>8}{'cpu x ROC':>11}  {last}")
    values, roc = {}, math.nan
    run("roc")  # once before the clock: the first call's imports and caches
    for spec in specs:
        if spec == "roc":
            t, r = timed(lambda: run("roc"), runs)
            ratio = cratio = 1.0
            roc = t
        else:
            t, c, rt, rc, r = beside(lambda spec=spec: run(spec), lambda: run("roc"), runs)
            ratio, cratio = t / rt, c / rc
        values[spec] = next(iter(r.results.values())).value
        print(f"{spec:<26}{t:>9.2f}{ratio:>8.2f}{cratio:>11.2f}  {values[spec]:.15g}")
    return values, roc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--distinct", type=int, default=10_000_000)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peers", default="/tmp/oracle-venv/bin/python", help="Python with torchmetrics, netcal")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import perfeval

    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, "
        f"perfeval {perfeval.__version__}, median of {args.runs}"
    )
    rng = np.random.default_rng(0)
    s = rng.random(args.distinct)
    y = (rng.random(args.distinct) < s).astype(np.int64)
    print(f"\n{args.distinct:,} cases, distinct float64 scores")
    values, roc = table(lambda spec: perfeval.evaluate(y, s, measures=[spec]), SPECS, args.runs, "value")
    if args.peers and os.path.exists(args.peers):
        with tempfile.TemporaryDirectory() as d:
            fy, fs = os.path.join(d, "y.npy"), os.path.join(d, "s.npy")
            np.save(fy, y)
            np.save(fs, s)
            proc = subprocess.run(
                [args.peers, "-c", PEERS, fy, fs, str(args.runs)], capture_output=True, text=True, check=True
            )
        for name, (t, v) in json.loads(proc.stdout.strip().splitlines()[-1]).items():
            diff = values["ece"] - v
            print(f"{name:<26}{t:>9.2f}{t / roc:>8.2f}  {v:.15g}  (perfeval's ECE minus this: {diff:.2g})")
    else:
        print(f"(no peers: {args.peers} not found)", file=sys.stderr)

    n, G = args.rows, args.groups
    g = rng.integers(0, G, n)
    sg = rng.random(n)
    yg = (rng.random(n) < sg).astype(np.int64)
    print(f"\n{n:,} rows in {G:,} groups, every group's value")
    table(
        lambda spec: perfeval.evaluate(yg, sg, groups=g, measures=[spec]),
        SPECS,
        args.runs,
        "mean over the groups",
    )


if __name__ == "__main__":
    main()
