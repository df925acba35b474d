#!/usr/bin/env python3
"""Slices (issue 34): ROC and AP per slice, ``perfeval.evaluate(..., by=...)`` against fairlearn's
``MetricFrame`` with scikit-learn's ``roc_auc_score`` and ``average_precision_score``.

Run by hand (never in CI):

    python benchmarks/bench_slices.py --rows 1000000 --runs 3
    python benchmarks/bench_slices.py --rows 10000000 --runs 3 --no-peers --jobs pe_3x_all

Each process first runs its tool once on 50 rows (the imports and first calls: a warm-up, not
timed).  The data, from a fixed seed: ``--rows`` rows, 0/1 targets at 30%, scores with 6 decimals (ties, as
real model outputs have), and slice columns ``a`` (6 values), ``b`` (50), and ``c1`` x ``c2`` x
``c3`` (3 x 10 x 10 = 300 intersections), every value equally likely.  Each job runs in a fresh
process per run (the data made first, not timed), the jobs interleaved run by run, and the median
printed with the runs, beside the CPU seconds of the call (``time.process_time``: every thread's,
less moved than the wall clock by other work on a shared machine):

- ``fl_2``: ``MetricFrame(metrics={"ROC": roc_auc_score, "AP": average_precision_score},
  sensitive_features=df[["a", "b"]])``: the overall values and the 300 intersections of a and b;
- ``pe_2``: ``evaluate(y, s, measures=["roc", "ap"], by=..., intersections=...)`` giving the same
  (the overall values and the slicing ``a x b``);
- ``pe_2_all``: the same with ``a`` and ``b`` alone too (356 slices in three slicings);
- ``fl_3`` / ``pe_3``: the 300 intersections of ``c1``, ``c2`` and ``c3``;
- ``pe_3x_all``: every slicing of ``c1``, ``c2``, ``c3`` and their intersections (7 slicings, 423
  slices);
- ``st_3x_all`` / ``mt_3x_all``: the same slices by ``evaluate_stream`` over ten chunks and by a
  ``Metric`` given ten updates (each combination of keys' summary merged: the bits of ``pe_3x_all``,
  checked here too).
- ``fl_2s`` / ``pe_2s`` and ``fl_3s`` / ``pe_3s`` (``--strings``): ``fl_2`` / ``pe_2`` and ``fl_3`` /
  ``pe_3`` with the slice columns as strings (``a`` ``"a0"`` to ``"a5"``, ... as a pandas column of
  Python strings, dtype object, for 2 columns; pandas' default string dtype, ``str``, for 3); the
  ``w`` jobs (``fl_2sw``, ...) weighted too, every row a weight drawn uniformly from (0, 1]
  (fairlearn: ``sample_params`` of each metric's ``sample_weight``).

Each job's values by slice are saved, and perfeval's compared with fairlearn's: the greatest
absolute difference over the slices is printed (the issue's goal: equal to 1e-12).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

JOBS = ("fl_2", "pe_2", "pe_2_all", "fl_3", "pe_3", "pe_3x_all", "st_3x_all", "mt_3x_all")
#: the same intersections with the slice columns as strings ("s"), and weighted ("w"): run with
#: ``--jobs`` (``--strings`` runs them all)
STRING_JOBS = ("fl_2s", "pe_2s", "fl_3s", "pe_3s", "fl_2sw", "pe_2sw", "fl_3sw", "pe_3sw")
#: the backends' jobs: the rows in ten chunks (streamed) or ten updates (a Metric), the same slices
CHUNKED = ("st_3x_all", "mt_3x_all")


def data(rows: int):
    import numpy as np

    rng = np.random.default_rng(34)
    y = (rng.random(rows) < 0.3).astype(np.int64)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=rows) + 1.2 * y))), 6)
    cols = {
        "a": rng.integers(0, 6, rows),
        "b": rng.integers(0, 50, rows),
        "c1": rng.integers(0, 3, rows),
        "c2": rng.integers(0, 10, rows),
        "c3": rng.integers(0, 10, rows),
    }
    return y, s, cols


def one(job: str, rows: int, out: str) -> float:
    import warnings

    import numpy as np
    import pandas as pd

    y, s, cols = data(rows)
    two, three = ["a", "b"], ["c1", "c2", "c3"]
    base, _, kind = job.partition("_")
    strings, weighted = kind[1:].startswith("s"), kind.endswith("w")
    columns = two if kind.startswith("2") else three
    features = pd.DataFrame({c: cols[c] for c in columns})
    if strings:  # each value its column's name and number as text ("a0"): object for 2, pandas' str for 3
        for c in columns:
            text = np.array([f"{c}{i}" for i in range(int(cols[c].max()) + 1)])[cols[c]]
            features[c] = pd.Series(text, dtype=object if len(columns) == 2 else "str")
    w = np.random.default_rng(35).uniform(1e-9, 1.0, rows) if weighted else None
    job = f"{base}_{kind[0]}" if strings else job  # the job it is, on string columns
    # beside the wall clock, the CPU seconds of the call (every thread's, time.process_time: less moved
    # by other work on a shared machine than the wall), the warm-up left out of both
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if job.startswith("fl_"):
            from fairlearn.metrics import MetricFrame
            from sklearn.metrics import average_precision_score, roc_auc_score

            tiny = {"ROC": roc_auc_score, "AP": average_precision_score}
            MetricFrame(
                metrics=tiny, y_true=y[:50], y_pred=s[:50], sensitive_features=features[:50]
            )  # warm-up
            weights = {} if w is None else {"sample_params": {m: {"sample_weight": w} for m in tiny}}
            t, cpu = time.perf_counter(), time.process_time()
            mf = MetricFrame(
                metrics={"ROC": roc_auc_score, "AP": average_precision_score},
                y_true=y,
                y_pred=s,
                sensitive_features=features,
                **weights,
            )
            took, cpu = time.perf_counter() - t, time.process_time() - cpu
            frame = mf.by_group
            overall = [float(mf.overall["ROC"]), float(mf.overall["AP"])]
        elif job in CHUNKED:
            import perfeval

            step = -(-rows // 10)
            pieces = [slice(k, k + step) for k in range(0, rows, step)]
            asked = dict(measures=["roc", "ap"], by=list(columns), intersections=True)
            perfeval.evaluate_stream([(y[:50], s[:50], features[:50])], **asked)  # warm-up
            t, cpu = time.perf_counter(), time.process_time()
            if job == "st_3x_all":
                r = perfeval.evaluate_stream(((y[k], s[k], features[k]) for k in pieces), **asked)
            else:
                m = perfeval.Metric(**asked)
                for k in pieces:
                    m.update(y[k], s[k], by=features[k])
                r = m.compute()
            took, cpu = time.perf_counter() - t, time.process_time() - cpu
            frame = r.slices.by_group(tuple(columns))
            overall = [float(r["ROC"]), float(r["AP"])]
        else:
            import perfeval

            perfeval.evaluate(
                y[:50], s[:50], measures=["roc", "ap"], by=features[:50], intersections=True
            )  # warm-up
            if job in ("pe_2", "pe_3"):  # the intersection alone: fairlearn's frame
                table = features.assign(y=y, s=s)
                t, cpu = time.perf_counter(), time.process_time()
                r = perfeval.evaluate(
                    table,
                    target="y",
                    score="s",
                    measures=["roc", "ap"],
                    by=[tuple(columns)],
                    sample_weight=w,
                )
            else:  # each column alone and every intersection
                t, cpu = time.perf_counter(), time.process_time()
                r = perfeval.evaluate(y, s, measures=["roc", "ap"], by=features, intersections=True)
            took, cpu = time.perf_counter() - t, time.process_time() - cpu
            frame = r.slices.by_group(tuple(columns))
            overall = [float(r["ROC"]), float(r["AP"])]
    frame = frame.sort_index()
    np.save(out, np.concatenate([overall, frame["ROC"].to_numpy(float), frame["AP"].to_numpy(float)]))
    return took, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", default=",".join(JOBS))
    ap.add_argument("--no-peers", action="store_true", help="perfeval's jobs only")
    ap.add_argument("--strings", action="store_true", help="string slice columns, weighted or not")
    ap.add_argument("--job", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.job:
        took, cpu = one(a.job, a.rows, a.out)
        print(json.dumps({"seconds": took, "cpu": cpu}))
        return
    asked = ",".join(STRING_JOBS) if a.strings else a.jobs
    jobs = [j for j in asked.split(",") if not (a.no_peers and j.startswith("fl_"))]
    print(f"uptime: {os.popen('uptime').read().strip()}", flush=True)
    times: dict[str, list[float]] = {j: [] for j in jobs}
    cpus: dict[str, list[float]] = {j: [] for j in jobs}
    tmp = tempfile.mkdtemp()
    for run in range(a.runs):
        for j in jobs:
            out = os.path.join(tmp, f"{j}.npy")
            cmd = [sys.executable, __file__, "--job", j, "--rows", str(a.rows), "--out", out]
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            said = json.loads(res.stdout.strip().splitlines()[-1])
            times[j].append(said["seconds"])
            cpus[j].append(said["cpu"])
            print(f"run {run + 1} {j}: {times[j][-1]:.3f} s ({cpus[j][-1]:.3f} s of CPU)", flush=True)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    import numpy as np

    print(f"\n{a.rows:,} rows, median of {a.runs}:")
    for j in jobs:
        print(
            f"  {j:10s} {statistics.median(times[j]):8.3f} s   ({' '.join(f'{t:.3f}' for t in times[j])}); "
            f"CPU {statistics.median(cpus[j]):.3f} s ({' '.join(f'{t:.3f}' for t in cpus[j])})"
        )
    for chunked in CHUNKED:  # the backends' slices: the bits of memory's
        if chunked in times and "pe_3x_all" in times:
            x, z = (np.load(os.path.join(tmp, f"{k}.npy")) for k in (chunked, "pe_3x_all"))
            same = x.shape == z.shape and bool(np.array_equal(x.view(np.int64), z.view(np.int64)))
            ratio = statistics.median(times[chunked]) / statistics.median(times["pe_3x_all"])
            print(f"  {chunked} / pe_3x_all: {ratio:.1f}x the time; the same bits: {same}")
    pairs = [("pe_2", "fl_2"), ("pe_2_all", "fl_2"), ("pe_3", "fl_3"), ("pe_3x_all", "fl_3")]
    pairs += [(j, "fl_" + j[3:]) for j in STRING_JOBS if j.startswith("pe_")]
    for ours, theirs in pairs:
        if ours in times and theirs in times:
            x, z = (np.load(os.path.join(tmp, f"{k}.npy")) for k in (ours, theirs))
            ratio = statistics.median(times[theirs]) / statistics.median(times[ours])
            nan_same = bool(np.array_equal(np.isnan(x), np.isnan(z)))
            diff = float(np.nanmax(np.abs(x - z))) if len(x) == len(z) else float("nan")
            said = f"max |difference| {diff:.3g}, NaN alike {nan_same}"
            print(f"  {theirs} / {ours}: {ratio:.1f}x faster; values: {said}")


if __name__ == "__main__":
    main()
