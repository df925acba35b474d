#!/usr/bin/env python3
"""Slices' intervals (issue 34): ``perfeval.stats.slice_ci`` on 300 slices against fairlearn's bootstrap
(``MetricFrame(..., n_boot=, ci_quantiles=)``) with scikit-learn's ``roc_auc_score`` and
``average_precision_score``.

Run by hand (never in CI):

    python benchmarks/bench_slices_ci.py --rows 1000000 --runs 3 --fl-boot 3

The data are bench_slices.py's (a fixed seed: ``--rows`` rows, 0/1 targets at 30%, scores with 6
decimals, slice columns ``a`` (6 values) and ``b`` (50): the 300 intersections ``a x b``).  Each job
runs in a fresh process per run, the data and the point evaluation made first (not timed), the
jobs interleaved run by run, and the median printed with the runs:

- ``pe_boot``: ``slice_ci(r, slicing="a x b", n_boot=1000)`` on ``evaluate(..., measures=["roc",
  "ap"], by=..., intersections=True)``: ROC and AP, every slice's interval, every slice's gap to the
  overall value with its p-value and the corrections, and the slicing's gaps (difference, ratio, both
  methods, min, max, worst), then ``frame()`` and ``gaps()`` (timed with it);
- ``pe_delong``: ``slice_ci(r, slicing="a x b", method="delong", measures="roc")``;
- ``pe_noplan``: ``pe_boot`` of ECE (the expected calibration error), a measure without a compiled
  replicate plan: each replicate's draws summed into every slice's score cells, the measure computed
  on each slice's summary (300 calls a replicate);
- ``fl_boot``: ``MetricFrame(metrics={"ROC": roc_auc_score, "AP": average_precision_score},
  sensitive_features=df[["a", "b"]], n_boot=--fl-boot, ci_quantiles=[0.025, 0.975])``: fairlearn's
  bootstrap of the same (its overall, by_group, group_min/max, difference and ratio, both methods);
- ``fl_none``: the same ``MetricFrame`` without bootstrap, so that fairlearn's time a replicate is
  ``(fl_boot - fl_none) / --fl-boot`` (its bootstrap is a loop that evaluates one resampled frame a
  replicate: its time grows in proportion to n_boot; the time of 1,000 replicates is printed as that
  rate times 1,000, an extrapolation, said so).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

JOBS = ("pe_boot", "pe_delong", "pe_noplan", "fl_none", "fl_boot")
N_BOOT = 1000


def data(rows: int):
    import numpy as np

    rng = np.random.default_rng(34)  # bench_slices.py's data, its first two slice columns
    y = (rng.random(rows) < 0.3).astype(np.int64)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=rows) + 1.2 * y))), 6)
    return y, s, {"a": rng.integers(0, 6, rows), "b": rng.integers(0, 50, rows)}


def one(job: str, rows: int, fl_boot: int) -> float:
    import warnings

    import pandas as pd

    y, s, cols = data(rows)
    features = pd.DataFrame(cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if job.startswith("fl_"):
            from fairlearn.metrics import MetricFrame
            from sklearn.metrics import average_precision_score, roc_auc_score

            metrics = {"ROC": roc_auc_score, "AP": average_precision_score}
            MetricFrame(metrics=metrics, y_true=y[:50], y_pred=s[:50], sensitive_features=features[:50])
            boot = (
                {"n_boot": fl_boot, "ci_quantiles": [0.025, 0.975], "random_state": 0}
                if job == "fl_boot"
                else {}
            )
            t = time.perf_counter()
            mf = MetricFrame(metrics=metrics, y_true=y, y_pred=s, sensitive_features=features, **boot)
            if boot:
                mf.by_group_ci, mf.difference_ci(), mf.ratio_ci(method="to_overall")  # noqa: B018
            return time.perf_counter() - t
        import perfeval
        from perfeval.stats import slice_ci

        measures = ["ece"] if job == "pe_noplan" else ["roc", "ap"]
        tiny = perfeval.evaluate(y[:200], s[:200], measures=measures, by=features[:200], intersections=True)
        slice_ci(tiny, slicing="a x b", n_boot=20)  # warm-up
        r = perfeval.evaluate(y, s, measures=measures, by=features, intersections=True)
        t = time.perf_counter()
        if job in ("pe_boot", "pe_noplan"):
            c = slice_ci(r, slicing="a x b", n_boot=N_BOOT, seed=0)
        else:
            c = slice_ci(r, slicing="a x b", method="delong", measures="roc")
        c.frame(), c.gaps()  # noqa: B018
        return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fl-boot", type=int, default=3, help="fairlearn's replicates (each a full evaluation)")
    ap.add_argument("--jobs", default=",".join(JOBS))
    ap.add_argument("--job", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.job:
        print(json.dumps({"seconds": one(a.job, a.rows, a.fl_boot)}))
        return
    jobs = a.jobs.split(",")
    print(f"uptime: {os.popen('uptime').read().strip()}", flush=True)
    times: dict[str, list[float]] = {j: [] for j in jobs}
    for run in range(a.runs):
        for j in jobs:
            cmd = [sys.executable, __file__, "--job", j, "--rows", str(a.rows), "--fl-boot", str(a.fl_boot)]
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            times[j].append(json.loads(res.stdout.strip().splitlines()[-1])["seconds"])
            print(f"run {run + 1} {j}: {times[j][-1]:.3f} s", flush=True)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    med = {j: statistics.median(t) for j, t in times.items()}
    print(f"\n{a.rows:,} rows, 300 slices (a x b), median of {a.runs}:")
    for j in jobs:
        print(f"  {j:10s} {med[j]:8.3f} s   ({' '.join(f'{t:.3f}' for t in times[j])})")
    if "pe_boot" in med:
        each = 1000 * med["pe_boot"] / N_BOOT
        print(f"  perfeval: {N_BOOT} replicates in {med['pe_boot']:.2f} s, {each:.1f} ms a replicate")
    if "fl_boot" in med and "fl_none" in med:
        rate = (med["fl_boot"] - med["fl_none"]) / a.fl_boot
        extra = med["fl_boot"] - med["fl_none"]
        print(
            f"  fairlearn: {a.fl_boot} replicates in {extra:.1f} s beyond its evaluation, {rate:.2f} s each"
        )
        print(f"  fairlearn, 1000 replicates at that rate (extrapolated): {rate * 1000 / 60:.0f} min")
        if "pe_boot" in med:
            print(f"  a replicate: {rate / (med['pe_boot'] / N_BOOT):.0f}x faster")


if __name__ == "__main__":
    main()
