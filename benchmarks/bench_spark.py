#!/usr/bin/env python3
"""Exact AUC on local Spark (perfeval.spark.evaluate) against Spark's own BinaryClassificationEvaluator
in the same session, on the same Parquet files; then GAUC over many groups on Spark, checked against
the in-memory value.

Run by hand (never in CI):

    pip install 'perfeval[spark]'         # and a Java runtime (17 or 21)
    python benchmarks/bench_spark.py --rows 50000000 --files 20 --runs 3

Data (generated once into benchmarks/data/spark-<rows>/, fixed seed): the Dask benchmark's shape
(benchmarks/bench_dask.py): 30% positives, scores from a noisy logistic model rounded to 6 decimals;
for GAUC, ``--group-rows`` rows over ``--groups`` uniform groups (int64 ids), scores rounded to 3
decimals (ties inside groups).  The two tools alternate run by run after one warm-up each; wall times
include reading the files; the median is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def make(folder: Path, rows: int, files: int, groups: int = 0) -> Path:
    if folder.exists() and len(list(folder.glob("*.parquet"))) == files:
        return folder
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(50 + groups)
    per = rows // files
    for i in range(files):
        y = (rng.random(per) < (0.2 if groups else 0.3)).astype(np.int8)
        s = 1 / (1 + np.exp(-(1.6 * y - 0.8 + rng.normal(0, 1.2, per))))
        cols = {"y": y, "s": np.round(s, 3 if groups else 6)}
        if groups:
            cols["g"] = rng.integers(0, groups, per).astype(np.int64)
        pq.write_table(pa.table(cols), folder / f"part{i:02d}.parquet")
    return folder


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--group-rows", type=int, default=10_000_000)
    ap.add_argument("--groups", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    data = make(HERE / "data" / f"spark-{a.rows}", a.rows, a.files)
    gdata = make(HERE / "data" / f"spark-groups-{a.group_rows}-{a.groups}", a.group_rows, a.files, a.groups)

    import pyarrow.parquet as pq
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import perfeval
    import perfeval.spark

    t = pq.read_table(data, columns=["y", "s"])
    exact = perfeval.evaluate(t["y"].to_numpy(), t["s"].to_numpy(), measures=["roc"])["ROC"]
    del t
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "8g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        ev = BinaryClassificationEvaluator(labelCol="label", rawPredictionCol="s", metricName="areaUnderROC")

        def ours():
            df = spark.read.parquet(str(data))
            return perfeval.spark.evaluate(df, target="y", score="s", measures=["roc"])["ROC"]

        def theirs():
            df = spark.read.parquet(str(data)).select(F.col("y").cast("double").alias("label"), "s")
            return ev.evaluate(df)

        walls: dict = {"ours": [], "theirs": []}
        values = {}
        for run in range(a.runs + 1):  # run 0: the warm-up of each
            for name, fn in (("ours", ours), ("theirs", theirs)):
                t0 = time.perf_counter()
                values[name] = fn()
                if run:
                    walls[name].append(time.perf_counter() - t0)

        def group_run():
            df = spark.read.parquet(str(gdata))
            return perfeval.spark.evaluate(df, target="y", score="s", group="g", measures=["gauc"])["GAUC"]

        gwalls = []
        for run in range(a.runs + 1):
            t0 = time.perf_counter()
            gauc = group_run()
            if run:
                gwalls.append(time.perf_counter() - t0)
    finally:
        spark.stop()
    g = pq.read_table(gdata, columns=["y", "s", "g"])
    gexact = perfeval.evaluate(
        g["y"].to_numpy(), g["s"].to_numpy(), groups=g["g"].to_numpy(), measures=["gauc"]
    )["GAUC"]
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"{a.rows:,} rows in {a.files} Parquet files; {os.cpu_count()} cores; after the runs: {load}")
    print("| tool | median s | runs (s) | ROC area | error |\n|---|---|---|---|---|")
    for name, label in (
        ("ours", "perfeval.spark.evaluate (local[2], exact)"),
        ("theirs", "Spark BinaryClassificationEvaluator (local[2], default numBins=1000)"),
    ):
        w = walls[name]
        print(
            f"| {label} | {statistics.median(w):.2f} | {' '.join(f'{x:.2f}' for x in w)} | "
            f"{values[name]:.15f} | {abs(values[name] - exact):.1e} |"
        )
    print(
        f"\nGAUC over {a.groups:,} groups, {a.group_rows:,} rows: median {statistics.median(gwalls):.2f} s "
        f"({' '.join(f'{x:.2f}' for x in gwalls)}), GAUC {gauc!r}, in memory {gexact!r}, "
        f"{'the same bits' if gauc == gexact else 'DIFFERENT'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
