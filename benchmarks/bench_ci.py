#!/usr/bin/env python3
"""Confidence intervals and model comparison: DeLong on 10M rows, 1,000 bootstrap replicates on 1M.

Run by hand (never in CI):

    pip install confidenceinterval scikit-learn      # the peers
    python benchmarks/bench_ci.py --runs 3
    # issue 33's binary measures (their replicate plans), on this checkout and on another one:
    python benchmarks/bench_ci.py --runs 3 --jobs issue33
    python benchmarks/bench_ci.py --runs 3 --jobs issue33 --src /path/to/old/checkout/src

Each job runs in a fresh process (so peak memory is its own), on seeded binormal data (30% positives,
float64 scores, all distinct); wall time of the computation inside the process (data generation
excluded), median of --runs, and the process's peak RSS (GNU time).  Peers in the same run:
the `confidenceinterval` package (DeLong, float32 midranks in Python) and the usual scikit-learn
bootstrap loop (resample indices, call roc_auc_score), the latter with fewer replicates, scaled.
The jobs of issue 33 (``--jobs issue33``): ``perfeval.ci`` (BCa, 1,000 replicates) of one measure each
(TPR_AT_FPR, PAUC, YOUDEN on the scores ``a``; ECE on their logistic ``1 / (1 + exp(-a))``, a
probability: the same order, so the same ranking measures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

#: issue 33's binary measures: 1,000 replicates on 1M rows each (their replicate plans), and the ROC
#: area's in the same run (the reference: a plan before and after)
ISSUE33 = ["tpr_at_fpr", "pauc", "youden", "ece", "roc"]

JOB = r"""
import json, sys, time
import numpy as np
job, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(2024)
y = (rng.random(n) < 0.3).astype(np.int8)
a = rng.normal(size=n) + y
b = rng.normal(size=n) + 0.9 * y
t0, c0 = time.perf_counter(), time.process_time()
if job.startswith("boot:"):  # one measure's interval (issue 33): boot:<spec>, on a (ECE on its logistic)
    import perfeval
    spec = job[5:]
    s = 1 / (1 + np.exp(-a)) if spec.split(":")[0] in ("ece", "mce", "brier_mcb") else a
    r = next(iter(perfeval.ci(y, s, measures=spec, n_boot=reps).values())); out = [r.estimate, r.low, r.high]
elif job == "delong":
    from perfeval.stats.delong import delong
    r = delong(y, a); out = [r.auc, r.ci[0], r.ci[1]]
elif job == "delong_test":
    from perfeval.stats.delong import delong_test
    r = delong_test(y, a, b); out = [r.difference, r.p_value]
elif job == "boot_roc":
    import perfeval
    r = perfeval.ci(y, a, measures="roc", n_boot=reps)["ROC"]; out = [r.low, r.high]
elif job == "boot_roc_percentile":
    import perfeval
    r = perfeval.ci(y, a, measures="roc", n_boot=reps, method="percentile")["ROC"]; out = [r.low, r.high]
elif job == "boot_compare":
    import perfeval
    r = perfeval.compare(y, a, b, measures="roc", n_boot=reps)["ROC"]; out = [r.low, r.high, r.p_value]
elif job == "ci_delong":
    from confidenceinterval import roc_auc_score
    auc, ci = roc_auc_score(y, a, confidence_level=0.95); out = [float(auc), float(ci[0]), float(ci[1])]
elif job == "sk_boot":
    from sklearn.metrics import roc_auc_score
    g = np.random.default_rng(0); vals = []
    for _ in range(reps):
        i = g.integers(0, n, n); vals.append(roc_auc_score(y[i], a[i]))
    out = list(np.quantile(vals, [0.025, 0.975]))
wall, cpu = time.perf_counter() - t0, time.process_time() - c0  # cpu: every thread's
print(json.dumps({"seconds": wall, "cpu": cpu, "out": [float(x) for x in out]}))
"""


def run(job: str, n: int, reps: int, src: str | None = None) -> tuple[float, float, float, list]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, sys.executable, "-c", JOB, job, str(n), str(reps)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        kb = int(rss.read().split()[-1])
    d = json.loads(p.stdout.strip().splitlines()[-1])
    return d["seconds"], d["cpu"], kb / 1024, d["out"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument(
        "--jobs", default="all", help="all (issue 7's jobs, peers), issue33, or job names (boot:ece,...)"
    )
    ap.add_argument("--src", help="run the code of this src/ directory (PYTHONPATH), not the installed one")
    a = ap.parse_args()
    jobs = [
        ("perfeval DeLong interval", "delong", 10_000_000, 0, 1),
        ("perfeval DeLong paired test (two models)", "delong_test", 10_000_000, 0, 1),
        ("perfeval bootstrap BCa, 1,000 replicates", "boot_roc", 1_000_000, 1000, 1),
        ("perfeval bootstrap percentile, 1,000 replicates", "boot_roc_percentile", 1_000_000, 1000, 1),
        ("perfeval paired bootstrap comparison, 1,000 replicates", "boot_compare", 1_000_000, 1000, 1),
    ]
    label = "perfeval bootstrap BCa of {}, 1,000 replicates"
    issue33 = [(label.format(m.upper()), f"boot:{m}", 1_000_000, 1000, 1) for m in ISSUE33]
    if a.jobs == "issue33":
        jobs = issue33
    elif a.jobs != "all":
        jobs = [j for j in jobs + issue33 if j[1] in a.jobs.split(",")]
    elif not a.skip_peers:
        jobs += [
            ("confidenceinterval.roc_auc_score (DeLong)", "ci_delong", 10_000_000, 0, 1),
            ("scikit-learn bootstrap loop, 20 replicates (x50 = 1,000)", "sk_boot", 1_000_000, 20, 50),
        ]
    print("| job | rows | median s | runs (s) | median CPU s | peak RSS MiB | result |")
    print("|---|---|---|---|---|---|---|")
    for label, job, n, reps, scale in jobs:
        walls, cpus, peak, out = [], [], 0.0, None
        for _ in range(a.runs):
            s, cpu, mib, out = run(job, n, reps, a.src)
            walls.append(s)
            cpus.append(cpu)
            peak = max(peak, mib)
        med = statistics.median(walls)
        extra = f" (x{scale}: {med * scale:.0f} s)" if scale > 1 else ""
        print(
            f"| {label} | {n:,} | {med:.2f}{extra} | {' '.join(f'{w:.2f}' for w in walls)} | "
            f"{statistics.median(cpus):.2f} | {peak:.0f} | {', '.join(f'{v:.6g}' for v in out)} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
