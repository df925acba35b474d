#!/usr/bin/env python3
"""Table-task scoring benchmark: a 1,000,000-row submission matched to its key by id, int64 ids and
text ids (``id_0000123``, Kaggle's usual kind).

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_kaggle.py --runs 3

Data (seeded, made in memory; the CSV files once into benchmarks/data/kaggle/): a key of 1,000,000
ids with 0/1 targets, a submission giving a probability to every id in shuffled order.  Measured,
wall seconds inside the process, median of --runs:

* ``perfeval.contest.kaggle.score(solution, submission, "row_id", measure="roc", ...)`` on pandas
  data frames (text ids: a column of Python strings, as ``read_csv`` gives them), as Kaggle calls a
  metric: the solution read as the key, the submission checked whole, the join, ROC.
* ``score_submission`` on the CSV files (key already read, as ``perfeval score`` and the Codabench
  program read it once): reading and checking the submission, the join, ROC.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "kaggle"
N = 1_000_000
TASK = """name = "bench"
submission = "table"
key = "table"
problem = "binary"
id = "row_id"
prediction = "p"
target = "y"

[[criteria]]
name = "AUC"
measure = "roc"
"""


def frames(kind: str):
    import pandas as pd

    rng = np.random.default_rng(35)
    ids = np.arange(N, dtype=np.int64) * 7 + 1000
    if kind == "text":
        ids = np.array([f"id_{k:07d}" for k in range(N)], dtype=object)
    y = (rng.random(N) < 0.3).astype(np.int64)
    p = np.round(np.clip(rng.normal(0.3 + 0.3 * y, 0.2), 0.0, 1.0), 6)
    order = rng.permutation(N)
    solution = pd.DataFrame({"row_id": ids, "y": y})
    submission = pd.DataFrame({"row_id": ids[order], "p": p[order]})
    if kind == "text":  # as read_csv gives them under pandas 2 (pandas 3: its str dtype, also tried)
        solution["row_id"] = solution["row_id"].astype(object)
        submission["row_id"] = submission["row_id"].astype(object)
    return solution, submission


def files(kind: str) -> tuple[Path, Path]:
    key, sub = DATA / f"{kind}-key.csv", DATA / f"{kind}-sub.csv"
    if not sub.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        solution, submission = frames(kind)
        solution.to_csv(key, index=False)
        submission.to_csv(sub, index=False)
    (DATA / "task.toml").write_text(TASK)
    return key, sub


def timed(f, runs: int) -> list[float]:
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        walls.append(time.perf_counter() - t0)
    return walls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    from perfeval.contest import kaggle, read_key, score_submission

    print(f"{N:,}-row submissions, shuffled; median of {a.runs} runs, wall seconds in the process")
    print("| call | ids | median s | runs (s) |\n|---|---|---|---|")
    for kind in ("int64", "text"):
        solution, submission = frames(kind)

        def metric(solution=solution, submission=submission) -> None:
            kaggle.score(
                solution, submission, "row_id", measure="roc", problem="binary", target="y", prediction="p"
            )

        walls = timed(metric, a.runs)
        print(
            f"| kaggle.score (pandas frames) | {kind} | {statistics.median(walls):.2f} | "
            f"{' '.join(f'{w:.2f}' for w in walls)} |",
            flush=True,
        )
    for kind in ("int64", "text"):
        key_path, sub_path = files(kind)
        task = str(DATA / "task.toml")
        key = read_key(str(key_path), task)

        def csv(key=key, sub_path=sub_path, task=task) -> None:
            assert score_submission(task, key, str(sub_path)).ok

        walls = timed(csv, a.runs)
        print(
            f"| score_submission (CSV, key read) | {kind} | {statistics.median(walls):.2f} | "
            f"{' '.join(f'{w:.2f}' for w in walls)} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
