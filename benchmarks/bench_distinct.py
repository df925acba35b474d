#!/usr/bin/env python3
"""Speed on the data people really have (issue 17): distinct float64 scores, and many groups.

Run by hand (never in CI); peers are optional and skipped when not installed:

    pip install scikit-learn polars pytrec-eval-terrier
    python benchmarks/bench_distinct.py --runs 3
    python benchmarks/bench_distinct.py --runs 3 --only flat        # flat | growth | groups | memory

Every case is generated in memory with a fixed seed and timed in this process (data generation
excluded), median of --runs after a warm-up; the floor (one np.sort of the scores) and the peers in
the same run:

* flat: 10,000,000 rows, 30% positives, scores 1/(1 + exp(-z)) in full float64 precision (every
  score distinct), and the same scores printed with 6 decimals (about a million distinct): every
  PERF measure (perfeval's default report, 22 measures), ROC + APR, ROC alone; scikit-learn's
  roc_auc_score + average_precision_score + log_loss, and roc_auc_score alone.
* growth: ROC + APR on 10M, 30M and 100M distinct float64 scores, against the sort.
* groups: 10,000,000 rows in 100,000 groups (sizes ~ Poisson(100), per-group positive rates from
  Beta(0.3, 3), distinct float64 scores): GAUC against polars' rank().over(group) recipe (the
  Mann-Whitney form of each group's AUC, weighted by group size as GAUC is); each PERF measure per
  group alone, and all 22 per group at once; NDCG@10 + MAP (grades
  0-3 on 20% of the rows) against pytrec_eval (its dict-of-dicts input built, then evaluated).
* memory: peak resident memory above the input (Linux's VmHWM, reset before each run: the kernels'
  buffers come from mmap, which tracemalloc does not see) of every PERF measure and of ROC + APR on
  the 10M distinct scores, and of GAUC and every PERF measure per group on the 10M rows / 100k
  groups, against the size of the input arrays.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np


def timeit(fn: Callable[[], object], runs: int) -> tuple[float, list[float], object]:
    fn()  # warm-up (imports, first touch)
    walls, value = [], None
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        value = fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), walls, value


def row(
    task: str, who: str, med: float, walls: list[float], value: object, floor: float | None = None
) -> None:
    shown = " ".join(f"{w:.3f}" for w in walls)
    ratio = f"{med / floor:.1f}x" if floor else ""
    print(f"| {task} | {who} | {med:.3f} | {ratio} | {shown} | {value} |", flush=True)


def flat_data(n: int, seed: int = 20240601, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = 1 / (1 + np.exp(-(1.6 * y - 0.8 + rng.normal(0, 1.2, n))))
    return y, (s if decimals is None else np.round(s, decimals))


def flat(runs: int) -> None:
    import perfeval

    for label, dec in (("distinct float64", None), ("6-decimal", 6)):
        y, s = flat_data(10_000_000, decimals=dec)
        task = f"10M {label}"
        floor, w, _ = timeit(lambda s=s: np.sort(s), runs)
        row(task, "floor: np.sort(scores)", floor, w, f"{len(np.unique(s)):,} distinct", floor)
        med, w, r = timeit(lambda y=y, s=s: perfeval.evaluate(y, s), runs)
        row(task, "perfeval: every PERF measure (22)", med, w, f"ROC {r['ROC']:.10f}", floor)
        med, w, r = timeit(lambda y=y, s=s: perfeval.evaluate(y, s, measures=["roc", "apr"]), runs)
        row(task, "perfeval: ROC + APR", med, w, f"APR {r['APR']:.10f}", floor)
        med, w, r = timeit(lambda y=y, s=s: perfeval.evaluate(y, s, measures=["roc"]), runs)
        row(task, "perfeval: ROC", med, w, f"ROC {r['ROC']:.10f}", floor)
        try:
            from sklearn.metrics import average_precision_score, log_loss, roc_auc_score
        except ImportError:
            continue
        med, w, v = timeit(lambda y=y, s=s: roc_auc_score(y, s), max(1, runs // 2))
        row(task, "scikit-learn roc_auc_score", med, w, f"ROC {v:.10f}", floor)
        med, w, v = timeit(
            lambda y=y, s=s: (roc_auc_score(y, s), average_precision_score(y, s), log_loss(y, s)),
            max(1, runs // 2),
        )
        row(task, "scikit-learn roc_auc + average_precision + log_loss", med, w, f"ROC {v[0]:.10f}", floor)


def growth(runs: int) -> None:
    import perfeval

    for n in (10_000_000, 30_000_000, 100_000_000):
        y, s = flat_data(n)
        task = f"{n // 1_000_000}M distinct float64"
        floor, w, _ = timeit(lambda s=s: np.sort(s), runs)
        row(task, "floor: np.sort(scores)", floor, w, "", floor)
        med, w, r = timeit(lambda y=y, s=s: perfeval.evaluate(y, s, measures=["roc", "apr"]), runs)
        row(task, "perfeval: ROC + APR", med, w, f"ROC {r['ROC']:.10f}", floor)
        del y, s
        gc.collect()


def grouped_data(n: int = 10_000_000, q: int = 100_000, seed: int = 17):
    rng = np.random.default_rng(seed)
    sizes = rng.poisson(n / q, q)
    sizes[-1] += n - sizes.sum() if sizes.sum() < n else 0
    g = np.repeat(np.arange(q, dtype=np.int64) * 7919 + 10**12, sizes)[:n]  # 64-bit ids, not 0..q-1
    rng.shuffle(g)
    rate = rng.beta(0.3, 3.0, q)[(g - 10**12) // 7919]
    y = (rng.random(len(g)) < rate).astype(np.int8)
    s = 1 / (1 + np.exp(-(-1 + 1.5 * y + rng.normal(0, 1.2, len(g)))))
    return g, y, s


def groups(runs: int) -> None:
    import warnings

    import perfeval
    from perfeval.engine import DEFAULT_MEASURES

    g, y, s = grouped_data()
    task = f"{len(g) // 1_000_000}M rows / {len(np.unique(g)) // 1000}k groups"
    med, w, r = timeit(lambda: perfeval.evaluate(y, s, groups=g, measures=["gauc"]), runs)
    row(task, "perfeval: GAUC", med, w, f"{r['GAUC']:.12f}")
    # every PERF measure per group, one at a time (each value: the size-weighted mean over the
    # groups), then all 22 at once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups of one class: ROC, APR, ... undefined there
        for m in DEFAULT_MEASURES:
            med, w, r = timeit(lambda m=m: perfeval.evaluate(y, s, groups=g, measures=[m]), runs)
            label = next(iter(r.results))
            row(task, f"perfeval: {label} per group", med, w, f"{r[label]:.10f}")
        med, w, r = timeit(lambda: perfeval.evaluate(y, s, groups=g), runs)
        row(task, "perfeval: every PERF measure per group (22)", med, w, f"ROC {r['ROC']:.10f}")
    try:
        import polars as pl
    except ImportError:
        pl = None
    if pl is not None:
        df = pl.DataFrame({"g": g, "y": y, "s": s})

        def polars_gauc():
            per = (
                df.with_columns(pl.col("s").rank("average").over("g").alias("r"))
                .group_by("g")
                .agg(
                    n=pl.len(),
                    p=pl.col("y").sum().cast(pl.Float64),
                    rs=(pl.col("r") * pl.col("y")).sum(),
                )
                .filter((pl.col("p") > 0) & (pl.col("p") < pl.col("n")))
                .with_columns(
                    auc=(pl.col("rs") - pl.col("p") * (pl.col("p") + 1) / 2)
                    / (pl.col("p") * (pl.col("n") - pl.col("p")))
                )
            )
            return float((per["auc"] * per["n"]).sum() / per["n"].sum())

        med, w, v = timeit(polars_gauc, runs)
        row(task, "polars rank('average').over(g) recipe", med, w, f"{v:.12f}")
    rng = np.random.default_rng(5)
    grade = np.where(rng.random(len(g)) < 0.2, rng.integers(1, 4, len(g)), 0).astype(np.int8)
    med, w, r = timeit(lambda: perfeval.evaluate(grade, s, groups=g, measures=["ndcg@10", "map"]), runs)
    row(task, "perfeval: NDCG@10 + MAP", med, w, f"NDCG@10 {r['NDCG@10']:.7f} MAP {r['MAP']:.7f}")
    try:
        import pytrec_eval
    except ImportError:
        return

    def build():
        qrel: dict = {}
        run: dict = {}
        for i, (q, rel, sc) in enumerate(zip(g.tolist(), grade.tolist(), s.tolist(), strict=True)):
            qs, d = str(q), f"d{i}"
            qrel.setdefault(qs, {})[d] = rel
            run.setdefault(qs, {})[d] = sc
        return qrel, run

    med_b, w_b, (qrel, run) = timeit(build, 1)
    row(task, "pytrec_eval: build its dict input", med_b, w_b, "")
    ev = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut.10", "map"})

    def evaluate():
        res = ev.evaluate(run)
        return np.mean([v["ndcg_cut_10"] for v in res.values()]), np.mean([v["map"] for v in res.values()])

    med, w, v = timeit(evaluate, max(1, runs // 2))
    row(task, "pytrec_eval: evaluate", med, w, f"NDCG@10 {v[0]:.7f} MAP {v[1]:.7f}")


def _peak_rss_above(fn: Callable[[], object]) -> int | None:
    """Bytes the process's resident set grew to above where it stood when fn() started (Linux:
    the high-water mark VmHWM reset through /proc/self/clear_refs); None elsewhere.  Resident
    memory, not tracemalloc: perfeval's kernels take their large buffers from mmap, which
    tracemalloc does not see."""

    def status(key: str) -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        raise KeyError(key)

    try:
        gc.collect()
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)  # the heap's free memory handed back: a clean base
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        base = status("VmRSS:")
    except OSError:
        return None
    fn()
    return status("VmHWM:") - base


def memory(runs: int) -> None:
    import perfeval

    y, s = flat_data(10_000_000)
    inputs = y.nbytes + s.nbytes
    for who, kw in (("every PERF measure (22)", {}), ("ROC + APR", {"measures": ["roc", "apr"]})):
        perfeval.evaluate(y, s, **kw)  # warm-up
        perfeval._native.release_cache()  # the kernels' kept buffers given back: each run from nothing
        peak = _peak_rss_above(lambda kw=kw: perfeval.evaluate(y, s, **kw))
        if peak is None:
            print("| memory | needs Linux's /proc/self/clear_refs |")
            return
        print(
            f"| 10M distinct float64 | perfeval: {who}: peak resident {peak / 2**20:.0f} MiB above the "
            f"input | {peak / inputs:.2f}x the input arrays ({inputs / 2**20:.0f} MiB: scores float64 + "
            "targets int8) |",
            flush=True,
        )
    g, yg, sg = grouped_data()
    inputs = g.nbytes + yg.nbytes + sg.nbytes
    for who, kw in (("GAUC", {"measures": ["gauc"]}), ("every PERF measure per group", {})):
        perfeval._native.release_cache()
        peak = _peak_rss_above(lambda kw=kw: perfeval.evaluate(yg, sg, groups=g, **kw))
        assert peak is not None
        print(
            f"| 10M rows / 100k groups | perfeval: {who}: peak resident {peak / 2**20:.0f} MiB above the "
            f"input | {peak / inputs:.2f}x the input arrays ({inputs / 2**20:.0f} MiB: ids int64 + "
            "scores float64 + targets int8) |",
            flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", nargs="*", choices=("flat", "growth", "groups", "memory"))
    a = ap.parse_args()
    import perfeval

    walk = ""
    try:
        from perfeval import _native

        walk = f", walk {_native.walk_target()}"
    except Exception:
        pass
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, perfeval {perfeval.__version__}{walk}"
    )
    print("| data | tool | median s | x the sort | runs (s) | value |\n|---|---|---|---|---|---|")
    for name, fn in (("flat", flat), ("growth", growth), ("groups", groups), ("memory", memory)):
        if not a.only or name in a.only:
            fn(a.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
