#!/usr/bin/env python3
"""Slices at 10M rows (issue 34, "fast"): ``perfeval.evaluate(y, s, measures=["roc", "ap"],
by={"c1", "c2", "c3"}, intersections=True)``, 7 slicings, about 1,400 slices.

Run by hand (never in CI):

    python benchmarks/bench_slices_speed.py --rows 10000000 --runs 3
    python benchmarks/bench_slices_speed.py --runs 3 --src /path/to/checkout-before/src   # before

The data, from a fixed seed: ``--rows`` rows, 0/1 targets at 30%, binormal scores either rounded to
6 decimals (``ties``: about a million distinct values) or as float64 (``distinct``), slice columns
``c1`` (10 values), ``c2`` (20) and ``c3`` (5): 1,000 intersections of the three, every one holding
rows at 10M.  Each run a fresh process (the data made first, a warm-up call on 50 rows, neither
timed), the kinds interleaved run by run; printed: each run's wall and CPU seconds
(``time.process_time``, every thread), the median of each, and ``uptime`` before and after.
``--out DIR`` saves the overall values and every slice's ROC, AP and rows (``KIND.npy``), to
compare two trees' bits.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

KINDS = ("ties", "distinct")


def one(kind: str, rows: int, out: str | None) -> tuple[float, float]:
    import warnings

    import numpy as np

    import perfeval

    rng = np.random.default_rng(34)
    y = (rng.random(rows) < 0.3).astype(np.int64)
    s = 1 / (1 + np.exp(-(rng.normal(size=rows) + 1.2 * y)))
    if kind == "ties":
        s = np.round(s, 6)
    by = {"c1": rng.integers(0, 10, rows), "c2": rng.integers(0, 20, rows), "c3": rng.integers(0, 5, rows)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny = {k: v[:50] for k, v in by.items()}
        perfeval.evaluate(y[:50], s[:50], measures=["roc", "ap"], by=tiny, intersections=True)  # warm-up
        t, cpu = time.perf_counter(), time.process_time()
        r = perfeval.evaluate(y, s, measures=["roc", "ap"], by=by, intersections=True)
        t, cpu = time.perf_counter() - t, time.process_time() - cpu
    if out:
        f = r.slices.frame()
        cols = [f[c].to_numpy(float) for c in ("ROC", "AP", "rows")]
        np.save(os.path.join(out, f"{kind}.npy"), np.concatenate([[r["ROC"], r["AP"]], *cols]))
    return t, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--src", help="the perfeval source tree to import (default: the installed one)")
    ap.add_argument("--out", help="a directory for each kind's values (.npy)")
    ap.add_argument("--kind", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.kind:
        print(json.dumps(dict(zip(("seconds", "cpu"), one(a.kind, a.rows, a.out), strict=True))))
        return
    env = dict(os.environ)
    if a.src:
        env["PYTHONPATH"] = a.src
    kinds = a.kinds.split(",")
    took: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    print(f"uptime: {os.popen('uptime').read().strip()}", flush=True)
    for run in range(a.runs):
        for k in kinds:
            cmd = [sys.executable, __file__, "--kind", k, "--rows", str(a.rows)]
            cmd += ["--out", a.out] if a.out else []
            res = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
            said = json.loads(res.stdout.strip().splitlines()[-1])
            took[k].append((said["seconds"], said["cpu"]))
            print(f"run {run + 1} {k}: {said['seconds']:.3f} s ({said['cpu']:.3f} s of CPU)", flush=True)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    for k in kinds:
        w, c = zip(*took[k], strict=True)
        print(
            f"  {k:9s} wall {statistics.median(w):.3f} s ({' '.join(f'{x:.2f}' for x in w)}); "
            f"CPU {statistics.median(c):.3f} s ({' '.join(f'{x:.2f}' for x in c)})"
        )


if __name__ == "__main__":
    main()
