#!/usr/bin/env python3
"""Regression (issue 33): the exact sums per group and over 10M rows, against the ROC area's time on
the same number of distinct float64 scores and against scikit-learn, in the same run.

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_regression.py --runs 3

The data (fixed seeds): targets ``N(5, 3^2)``, predictions the target plus ``N(0, 1)`` noise (every
value distinct), groups uniform over ``--groups`` ids; the ROC jobs score a 0/1 target (``y > 5``)
with the same 10M predictions.  Each job: one warm-up, then the median of ``--runs``.  The jobs:

* ``perfeval per group``: ``evaluate(y, p, groups=g, measures=..., task="regression")`` over
  ``--rows`` rows in ``--groups`` groups (MAE+RMSE, MAE+RMSE+R2, MEDAE; and with weights uniform on
  [0, 2): MEDAE, D2_AE, D2_PINBALL:alpha=0.9, each group's weighted quantile);
* ``numpy per group (floats, not exact)``: ``np.bincount`` of ``|r|`` and ``r^2`` (the floor of a
  float64 recipe that neither sums exactly nor rounds once);
* ``perfeval 10M``: ``evaluate(y, p, measures=["mae", "rmse", "r2"], task="regression")``;
* ``perfeval ROC 10M``: ``evaluate(y > 5, p, measures=["roc"])``, the goal's yardstick (within 1.5x);
* ``scikit-learn 10M``: ``mean_absolute_error`` + ``root_mean_squared_error`` + ``r2_score``, and
  ``roc_auc_score``.

The values are compared (perfeval's exact ones to scikit-learn's float ones: printed differences).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np


def timed(f, runs: int) -> tuple[float, object]:
    out = f()  # warm-up
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the per-group jobs")
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--big", type=int, default=10_000_000, help="rows of the ungrouped jobs")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-peers", action="store_true")
    a = ap.parse_args()
    import perfeval

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    y = rng.normal(size=a.rows) * 3 + 5
    p = y + rng.normal(size=a.rows)
    g = rng.integers(0, a.groups, a.rows)
    print(f"per group: {a.rows:,} rows, {len(np.unique(g)):,} groups; median of {a.runs}")
    w = rng.random(a.rows) * 2
    for ms, ww in (
        (["mae", "rmse"], None),
        (["mae", "rmse", "r2"], None),
        (["medae"], None),
        (["medae"], w),
        (["d2_ae"], w),
        (["d2_pinball:alpha=0.9"], w),
    ):
        job = "+".join(ms) + (" weighted" if ww is not None else "")

        def one(ms=ms, ww=ww):
            return perfeval.evaluate(y, p, groups=g, sample_weight=ww, measures=ms, task="regression")

        try:
            t, _ = timed(one, a.runs)
        except perfeval.PerfError as e:  # a measure this version does not have
            print(f"  perfeval per group {job:<30} n/a ({str(e).splitlines()[0][:40]})")
            continue
        print(f"  perfeval per group {job:<30} {t:8.3f} s")

    def floats():
        r = y - p
        n = np.bincount(g)
        return np.bincount(g, np.abs(r)) / n, np.sqrt(np.bincount(g, r * r) / n)

    t, _ = timed(floats, a.runs)
    print(f"  numpy per group MAE+RMSE (floats, not exact) {t:8.3f} s")

    y = rng.normal(size=a.big) * 3 + 5
    p = y + rng.normal(size=a.big)
    yb = (y > 5).astype(np.float64)
    print(f"ungrouped: {a.big:,} rows; median of {a.runs}")
    t_reg, r = timed(
        lambda: perfeval.evaluate(y, p, measures=["mae", "rmse", "r2"], task="regression"), a.runs
    )
    print(f"  perfeval MAE+RMSE+R2 {t_reg:8.3f} s")
    t_roc, _ = timed(lambda: perfeval.evaluate(yb, p, measures=["roc"]), a.runs)
    print(f"  perfeval ROC         {t_roc:8.3f} s   (regression / ROC: {t_reg / t_roc:.2f})")
    if a.no_peers:
        return
    from sklearn import metrics as skm

    def sk():
        return skm.mean_absolute_error(y, p), skm.root_mean_squared_error(y, p), skm.r2_score(y, p)

    t, want = timed(sk, a.runs)
    print(f"  scikit-learn MAE+RMSE+R2 {t:8.3f} s")
    got = (r["MAE"], r["RMSE_REG"], r["R2"])
    print("    perfeval - scikit-learn: " + ", ".join(f"{x - w:.2e}" for x, w in zip(got, want, strict=True)))
    t, _ = timed(lambda: skm.roc_auc_score(yb, p), a.runs)
    print(f"  scikit-learn roc_auc_score {t:8.3f} s")


if __name__ == "__main__":
    main()
