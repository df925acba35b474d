#!/usr/bin/env python3
"""50,000,000 rows in 20 Parquet files: perfeval on a local Dask cluster, against Spark's
BinaryClassificationEvaluator on the same files and perfeval in memory, in the same run.

Run by hand (never in CI):

    pip install 'perfeval[dask]' pyspark      # Spark also needs a Java runtime
    python benchmarks/bench_dask.py

Data (generated once into benchmarks/data/parquet50m/, fixed seed): 30% positives, scores from a
noisy logistic model rounded to 6 decimals.  Spark's evaluator bins the ROC curve into 1,000
thresholds by default (numBins); its area is compared with the exact value.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "parquet50m"
ROWS, FILES = 50_000_000, 20


def make() -> None:
    if DATA.exists() and len(list(DATA.glob("*.parquet"))) == FILES:
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(50)
    per = ROWS // FILES
    for i in range(FILES):
        y = (rng.random(per) < 0.3).astype(np.int8)
        s = np.round(1 / (1 + np.exp(-(1.6 * y - 0.8 + rng.normal(0, 1.2, per)))), 6)
        pq.write_table(pa.table({"y": y, "s": s}), DATA / f"part{i:02d}.parquet")
    os.sync()


def timed(fn, runs: int = 3):
    walls, value = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        value = fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), walls, value


def main() -> int:
    make()
    import dask.dataframe as dd
    import distributed
    import pyarrow.parquet as pq

    import perfeval

    print(f"{ROWS:,} rows in {FILES} Parquet files, {os.cpu_count()} cores")
    print("| tool | median s | runs (s) | ROC area | abs. error |\n|---|---|---|---|---|")

    def in_memory():
        t = pq.read_table(DATA, columns=["y", "s"])
        return perfeval.evaluate(t["y"].to_numpy(), t["s"].to_numpy(), measures=["roc", "apr"])["ROC"]

    med, walls, exact = timed(in_memory)
    rows = [("perfeval in memory (pyarrow read + evaluate)", med, walls, exact)]

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    client = distributed.Client(cluster)
    try:

        def on_dask():
            ddf = dd.read_parquet(str(DATA), columns=["y", "s"])
            return perfeval.evaluate(ddf, target="y", score="s", measures=["roc", "apr"])["ROC"]

        med, walls, v = timed(on_dask)
        rows.append(("perfeval on a local Dask cluster (2 workers)", med, walls, v))
    finally:
        client.close()
        cluster.close()

    try:
        from pyspark.ml.evaluation import BinaryClassificationEvaluator
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F

        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.driver.memory", "8g")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        ev = BinaryClassificationEvaluator(labelCol="label", rawPredictionCol="s", metricName="areaUnderROC")

        def on_spark():
            df = spark.read.parquet(str(DATA)).select(F.col("y").cast("double").alias("label"), "s")
            return ev.evaluate(df)

        med, walls, v = timed(on_spark)
        rows.append(("Spark BinaryClassificationEvaluator (local[2], default numBins=1000)", med, walls, v))
        spark.stop()
    except Exception as e:  # Spark or Java missing
        print(f"(Spark not measured: {type(e).__name__}: {e})")
    for name, med, walls, v in rows:
        print(
            f"| {name} | {med:.2f} | {' '.join(f'{w:.2f}' for w in walls)} | {v:.15f} | "
            f"{abs(v - exact):.1e} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
