#!/usr/bin/env python3
"""perfeval.Metric in a validation loop: the cost of update() per batch and of compute().

Run by hand (never in CI):

    python benchmarks/bench_metric.py --rows 10000000 --batch 4096 --runs 3

The data are float32 model scores (a sigmoid of normal logits: about as many distinct values as
rows up to a few million, as a real model's outputs have) with 0/1 targets, made batch by batch
from a fixed seed, as a data loader gives them.
Each run, in a fresh process (so that peak RSS is the run's own):

* ``metric``: ``Metric(["roc", "apr", "acc", "logloss"])``, ``update`` per batch, one ``compute``;
* ``concat``: the habit it replaces: keep every batch, ``np.concatenate``, one ``evaluate``;
* ``sklearn`` (when installed): keep every batch, ``roc_auc_score`` and
  ``average_precision_score`` on the concatenation (two of the four measures);
* ``metric roc,ap``: ``Metric(["roc", "ap"])``, the two measures torchmetrics computes below;
* ``torchmetrics`` (when installed): ``MetricCollection([BinaryAUROC(thresholds=None),
  BinaryAveragePrecision(thresholds=None)])`` (exact, tie-aware; one shared state), ``update`` per
  batch with ``torch.from_numpy`` tensors (predictions first), one ``compute``.

The first three give the same ROC; the first two the same bits for every measure (checked each
run). torchmetrics' ROC and AP (float32) agree with ``metric roc,ap``'s within 2e-6 (checked).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import statistics
import subprocess
import sys
import time


def _data(rows: int, batch: int):
    """The batches one at a time, as a data loader gives them (only what a way keeps stays in memory)."""
    import numpy as np

    rng = np.random.default_rng(0)
    for a in range(0, rows, batch):
        n = min(batch, rows - a)
        y = rng.integers(0, 2, n)
        logit = rng.normal(size=n) + 1.2 * y
        yield y, (1 / (1 + np.exp(-logit))).astype(np.float32)


def one(kind: str, rows: int, batch: int) -> dict:
    import numpy as np

    import perfeval

    if kind == "sklearn":
        from sklearn.metrics import average_precision_score, roc_auc_score
    batches = _data(rows, batch)
    n = -(-rows // batch)
    measures = ["roc", "ap"] if kind == "metric roc,ap" else ["roc", "apr", "acc", "logloss"]
    if kind == "torchmetrics":
        import torch
        from torchmetrics import MetricCollection
        from torchmetrics.classification import BinaryAUROC, BinaryAveragePrecision
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the imports' share
    t0 = time.perf_counter()  # the batches are made inside the timed loop, the same for every way
    if kind in ("metric", "metric roc,ap"):
        m = perfeval.Metric(measures)
        for y, s in batches:
            m.update(y, s)
        t1 = time.perf_counter()
        values = m.compute().values
    elif kind == "concat":
        kept = list(batches)
        t1 = time.perf_counter()
        y = np.concatenate([b[0] for b in kept])
        s = np.concatenate([b[1] for b in kept]).astype(np.float64)
        values = perfeval.evaluate(y, s, measures=measures).values
    elif kind == "sklearn":
        kept = list(batches)
        t1 = time.perf_counter()
        y = np.concatenate([b[0] for b in kept])
        s = np.concatenate([b[1] for b in kept]).astype(np.float64)
        values = {"ROC": roc_auc_score(y, s), "AP": average_precision_score(y, s)}
    else:
        tm = MetricCollection(
            {"ROC": BinaryAUROC(thresholds=None), "AP": BinaryAveragePrecision(thresholds=None)}
        )
        for y, s in batches:
            tm.update(torch.from_numpy(s), torch.from_numpy(y))  # predictions first
        t1 = time.perf_counter()
        values = {k: float(v) for k, v in tm.compute().items()}
    t2 = time.perf_counter()
    return {
        "updates": t1 - t0,
        "compute": t2 - t1,
        "batches": n,
        "values": values,
        "rss_start_mib": rss_start,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one, a.rows, a.batch)))
        return 0
    kinds = ["metric", "concat"]
    # find_spec, not import: a child's peak RSS starts at its parent's (Linux keeps the high-water
    # mark across fork and exec), so the parent imports nothing heavy
    if importlib.util.find_spec("sklearn") is not None:
        kinds.append("sklearn")
    kinds.append("metric roc,ap")
    if importlib.util.find_spec("torchmetrics") is not None:
        kinds.append("torchmetrics")
    else:
        print("torchmetrics is not installed in this environment: its line is left out")
    out: dict[str, list[dict]] = {k: [] for k in kinds}
    for _ in range(a.runs + 1):  # the first round is a warm-up
        for k in kinds:
            cmd = [sys.executable, __file__, "--one", k, "--rows", str(a.rows), "--batch", str(a.batch)]
            out[k].append(json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout))
    for k in kinds:
        out[k] = out[k][1:]
    ref = out["concat"][0]["values"]
    for r in out["metric"]:
        assert r["values"] == ref, (r["values"], ref)  # the same numbers, bit for bit (JSON keeps them)
    two = out["metric roc,ap"][0]["values"]
    assert two["ROC"] == ref["ROC"], (two, ref)
    for k in ("sklearn", "torchmetrics"):
        for r in out.get(k, []):  # scikit-learn in float64, torchmetrics in float32
            assert all(abs(r["values"][m] - two[m]) < 2e-6 for m in ("ROC", "AP")), (k, r["values"], two)
    n = out["metric"][0]["batches"]
    print(f"{a.rows:,} rows in {n:,} batches of {a.batch:,}; ROC {ref['ROC']!r}, AP {two['AP']!r}")
    for k in ("sklearn", "torchmetrics"):
        if k in out:
            print(f"{k}: {out[k][0]['values']}")
    print(
        "| way | updates (median s) | per update (us) | compute (median s) | update + compute (median s) "
        "| RSS MiB after imports | peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|")
    for k in kinds:
        upd = statistics.median(r["updates"] for r in out[k])
        comp = statistics.median(r["compute"] for r in out[k])
        both = statistics.median(r["updates"] + r["compute"] for r in out[k])
        rss0 = statistics.median(r["rss_start_mib"] for r in out[k])
        rss = statistics.median(r["rss_mib"] for r in out[k])
        print(f"| {k} | {upd:.3f} | {upd / n * 1e6:.0f} | {comp:.3f} | {both:.3f} | {rss0:.0f} | {rss:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
