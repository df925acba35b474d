#!/usr/bin/env python3
"""Competition scoring benchmark: one 1,000,000-row submission against its answer key.

Run by hand (never in CI):

    python benchmarks/bench_score.py --runs 5 [--original /path/to/perf-built-without-the-item-limit]

Data (made once into benchmarks/data/score/, seeded): a KDD Cup 2004 physics-style key of 1,000,000
example ids with 0/1 targets and a submission giving a 4-decimal prediction to every id in shuffled
order; a protein-style key and submission (block id, example id; 1,000 blocks of 1,000); and the
physics submission again in key order.  Measured, wall time of the whole command, median of --runs:

* ``perfeval score --no-store`` with each bundled preset: reading the key, reading and checking the
  submission (every check of the task), the join, and every criterion (physics: ACC, ROC, CXE, SLQ;
  protein: TOP1, RKL, RMS, APR, averaged over blocks), as `perf` computes them.
* The KDD Cup's own way, in the same run: join the submission to the key with a short Python script
  (a dict by id, no checks beyond a KeyError) and run the original PERF once per criterion (only when
  --original is given: the original stops at 500,000 rows, so it must be a scratch build with the
  limit raised; it is never part of this repository).
* pandas merge + scikit-learn (accuracy, ROC AUC, log loss; scikit-learn has no SLQ), in process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "score"
N = 1_000_000


def make_data() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    if (DATA / "protein-sub.txt").exists():
        return
    rng = np.random.default_rng(2004)
    ids = np.array([f"ev{k:07d}" for k in range(N)])
    y = (rng.random(N) < 0.45).astype(int)
    p = np.round(np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0.0001, 0.9999), 4)
    (DATA / "physics-key.txt").write_text("".join(f"{i} {t}\n" for i, t in zip(ids, y, strict=False)))
    order = rng.permutation(N)
    (DATA / "physics-sub.txt").write_text("".join(f"{ids[k]} {p[k]:.4f}\n" for k in order))
    (DATA / "physics-sub-in-key-order.txt").write_text(
        "".join(f"{i} {s:.4f}\n" for i, s in zip(ids, p, strict=False))
    )
    blocks = np.repeat(np.arange(1, 1001), N // 1000)
    yb = (rng.random(N) < 0.01).astype(int)
    pb = np.round(rng.random(N) * 0.5 + 0.4 * yb, 4)
    (DATA / "protein-key.txt").write_text(
        "".join(f"{b} {i} {t}\n" for b, i, t in zip(blocks, ids, yb, strict=False))
    )
    (DATA / "protein-sub.txt").write_text("".join(f"{blocks[k]} {ids[k]} {pb[k]:.4f}\n" for k in order))


JOIN = """
import sys
key = [ln.split() for ln in open(sys.argv[1])]
sub = {f[-2]: f[-1] for f in (ln.split() for ln in open(sys.argv[2]))}
with open(sys.argv[3], "w") as out:
    out.write("".join(f"{t} {sub[i]}\\n" for i, t in key))
"""

SKLEARN = """
import sys
import pandas as pd
from sklearn.metrics import accuracy_score, log_loss, roc_auc_score
key = pd.read_csv(sys.argv[1], sep=" ", header=None, names=["id", "y"])
sub = pd.read_csv(sys.argv[2], sep=" ", header=None, names=["id", "p"])
j = key.merge(sub, on="id", how="left", validate="one_to_one")
assert not j["p"].isna().any()
print(accuracy_score(j.y, j.p > 0.5), roc_auc_score(j.y, j.p), log_loss(j.y, j.p))
"""


def timed(cmd: list[str] | str, runs: int) -> list[float]:
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            cmd, shell=isinstance(cmd, str), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        walls.append(time.perf_counter() - t0)
    return walls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default=str(Path(sys.executable).parent))
    ap.add_argument("--original", help="the original PERF built with the item limit raised (never committed)")
    a = ap.parse_args()
    make_data()
    pe = f"{a.bin}/perfeval"
    d = DATA
    jobs = [
        (
            "perfeval score, kddcup2004-physics (ACC ROC CXE SLQ), shuffled submission",
            [
                pe,
                "score",
                "--no-store",
                "--key",
                str(d / "physics-key.txt"),
                "--task",
                "kddcup2004-physics",
                str(d / "physics-sub.txt"),
            ],
        ),
        (
            "perfeval score, kddcup2004-physics, submission in key order",
            [
                pe,
                "score",
                "--no-store",
                "--key",
                str(d / "physics-key.txt"),
                "--task",
                "kddcup2004-physics",
                str(d / "physics-sub-in-key-order.txt"),
            ],
        ),
        (
            "perfeval score, kddcup2004-protein (TOP1 RKL RMS APR over 1,000 blocks), shuffled",
            [
                pe,
                "score",
                "--no-store",
                "--key",
                str(d / "protein-key.txt"),
                "--task",
                "kddcup2004-protein",
                str(d / "protein-sub.txt"),
            ],
        ),
        (
            "pandas merge + scikit-learn (ACC ROC CXE, no SLQ, no checks but one-to-one)",
            [sys.executable, "-c", SKLEARN, str(d / "physics-key.txt"), str(d / "physics-sub.txt")],
        ),
    ]
    if a.original:
        joined = d / "joined.tmp"
        crit = " && ".join(
            f"{a.original} {o} < {joined}" for o in ("-acc -t 0.5", "-roc", "-cxe", "-slq 0.01")
        )
        jobs.append(
            (
                "Python dict join + original PERF x4 (the KDD Cup way, no checks)",
                f"{sys.executable} -c '{JOIN}' {d / 'physics-key.txt'} {d / 'physics-sub.txt'} "
                f"{joined} && {crit}",
            )
        )
    print(f"{N:,}-row submissions; median of {a.runs} runs, wall seconds of the whole command")
    print("| command | median s | runs (s) |\n|---|---|---|")
    for label, cmd in jobs:
        walls = timed(cmd, a.runs)
        print(
            f"| {label} | {statistics.median(walls):.2f} | {' '.join(f'{w:.2f}' for w in walls)} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
