"""Time the oracle tools' AUC (and PR) at default settings on 10M rows (not part of the test suite).

Data (made in-process, not timed): ``rng = numpy.random.default_rng(0)``, ``y ~ Bernoulli(0.25)``,
``s = round(sigmoid(-1 + 1.5 y + N(0, 1.2^2)), 6)`` as float64 (about 0.9M distinct scores).

Run each in a fresh process, in the venv of make_fixtures.py::

    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py torchmetrics roc   # binary_auroc
    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py torchmetrics ap    # binary_average_precision
    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py keras roc          # AUC() (200 thresholds)
    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py keras pr           # AUC(curve="PR")
    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py spark roc          # areaUnderROC, numBins 1000
    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py spark pr           # areaUnderPR
    /tmp/oracle-venv/bin/python tests/oracles/bench_tools.py din roc --din-repo PATH   # calc_auc

It prints each run's wall time, the median, and the value. ``--reps`` (default 3) runs; a first run
longer than a minute stops after one. Spark (``local[2]``, UI off, driver 6g) reads the rows from a
CSV written first (not timed) and caches them; only ``evaluate`` is timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

N = 10_000_000


def data(n=N):
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.25
    z = -1 + 1.5 * y + rng.normal(0, 1.2, n)
    s = np.round(1 / (1 + np.exp(-z)), 6)
    return y.astype(np.int64), s


def torchmetrics_fn(metric, y, s, args):
    import torch
    from torchmetrics.functional.classification import binary_auroc, binary_average_precision

    fn = binary_auroc if metric == "roc" else binary_average_precision
    preds, target = torch.from_numpy(s), torch.from_numpy(y)
    return lambda: fn(preds, target).item()


def keras_fn(metric, y, s, args):
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras

    yf = y.astype(np.float32)

    def run():
        m = keras.metrics.AUC(curve="ROC" if metric == "roc" else "PR")
        m.update_state(yf, s)
        return float(m.result())

    return run


def spark_fn(metric, y, s, args):
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "6g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    path = Path(tempfile.mkdtemp()) / "rows.csv"
    np.savetxt(path, np.column_stack([y, s]), fmt=["%d", "%.6f"], delimiter=",")
    df = spark.read.csv(str(path), schema="label DOUBLE, raw DOUBLE").cache()
    df.count()
    name = "areaUnderROC" if metric == "roc" else "areaUnderPR"
    ev = BinaryClassificationEvaluator(rawPredictionCol="raw", labelCol="label", metricName=name)
    return lambda: ev.evaluate(df)


def din_fn(metric, y, s, args):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_fixtures import din_records, load_din

    ns, _ = load_din(args.din_repo)
    return lambda: ns["calc_auc"](din_records(y.tolist(), s.tolist(), "input"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool", choices=["torchmetrics", "keras", "spark", "din"])
    ap.add_argument("metric", choices=["roc", "pr", "ap"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--din-repo", default=os.environ.get("DIN_REPO"))
    a = ap.parse_args()
    y, s = data()
    make = {"torchmetrics": torchmetrics_fn, "keras": keras_fn, "spark": spark_fn, "din": din_fn}
    fn = make[a.tool](a.metric, y, s, a)
    times, value = [], None
    for _ in range(a.reps):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
        if times[0] > 60:
            break
    runs = ", ".join(f"{t:.2f}" for t in times)
    print(f"{a.tool} {a.metric}: runs {runs} s; median {statistics.median(times):.2f} s; value {value!r}")


if __name__ == "__main__":
    main()
