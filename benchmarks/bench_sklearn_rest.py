#!/usr/bin/env python3
"""perfeval.functional's top_k_accuracy_score and calibration_curve against scikit-learn's.

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_sklearn_rest.py --runs 5

Data generated in memory with a fixed seed (excluded from the times); median of --runs after one
warm-up each, perfeval and scikit-learn interleaved run by run, each result checked equal (1e-12) first:

* top_k_accuracy_score: 1,000,000 cases, 10 classes, scores rounded to 3 decimals (ties), k = 1, 3, 5;
  unweighted and weighted.
* calibration_curve: 2,000,000 cases, probabilities with 4 decimals (10,001 distinct), 30%
  positives; 10 uniform bins and 10 quantile bins.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np


def median_times(ours: Callable[[], object], theirs: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall time of each, after one warm-up each, the two interleaved run by run."""
    ours(), theirs()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for fn, out in ((ours, times[0]), (theirs, times[1])):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(times[0]), statistics.median(times[1])


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import sklearn
    from sklearn.calibration import calibration_curve as sk_cal
    from sklearn.metrics import top_k_accuracy_score as sk_topk

    import perfeval.functional as F

    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}, median of {args.runs}"
    )
    rng = np.random.default_rng(0)
    n, c = 1_000_000, 10
    y = rng.integers(0, c, n)
    s = np.round(rng.random((n, c)) + 0.3 * np.eye(c)[y], 3)
    w = rng.random(n)
    print("| case | perfeval | scikit-learn |")
    print("|---|---|---|")
    for k in (1, 3, 5):
        for weights in (None, w):
            ours = F.top_k_accuracy_score(y, s, k=k, sample_weight=weights)
            theirs = sk_topk(y, s, k=k, sample_weight=weights)
            assert close(ours, theirs), (ours, theirs)
            t1, t2 = median_times(
                lambda k=k, weights=weights: F.top_k_accuracy_score(y, s, k=k, sample_weight=weights),
                lambda k=k, weights=weights: sk_topk(y, s, k=k, sample_weight=weights),
                args.runs,
            )
            label = f"top_k_accuracy_score 1M x 10, k={k}" + (", weighted" if weights is not None else "")
            print(f"| {label} | {t1:.3f} s | {t2:.3f} s |")
    n = 2_000_000
    yb = (rng.random(n) < 0.3).astype(int)
    p = np.round(np.clip(rng.normal(0.3 + 0.3 * yb, 0.2), 0, 1), 4)
    for strategy in ("uniform", "quantile"):
        ours = F.calibration_curve(yb, p, n_bins=10, strategy=strategy)
        theirs = sk_cal(yb, p, n_bins=10, strategy=strategy)
        assert all(close(a, b) for a, b in zip(ours, theirs, strict=True))
        t1, t2 = median_times(
            lambda strategy=strategy: F.calibration_curve(yb, p, n_bins=10, strategy=strategy),
            lambda strategy=strategy: sk_cal(yb, p, n_bins=10, strategy=strategy),
            args.runs,
        )
        print(f"| calibration_curve 2M, 10 {strategy} bins | {t1:.3f} s | {t2:.3f} s |")


if __name__ == "__main__":
    main()
