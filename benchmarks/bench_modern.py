#!/usr/bin/env python3
"""Benchmarks of the library (perfeval.evaluate) against the tools users pick today, same run.

Run by hand (never in CI); peers are optional and skipped when not installed:

    pip install scikit-learn pandas pytrec-eval-terrier
    python benchmarks/bench_modern.py --runs 5

1. 10,000,000 rows in memory, every PERF measure (perfeval's default report, 22 measures) against
   scikit-learn's roc_auc_score + average_precision_score + log_loss.
2. Group AUC over 1,000,000 rows in 10,000 groups against pandas groupby + scikit-learn and the
   vectorised numpy lexsort recipe.
3. NDCG@10 + MAP over the 660,000 rows of the queries with a relevant case (about 6,600 queries)
   against pytrec_eval (building its dict input, and evaluating).

Data are generated in memory with fixed seeds; the grouped data with ANCHORS.md's generator.
"""

from __future__ import annotations

import argparse
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
        t0 = time.perf_counter()
        value = fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), walls, value


def row(task: str, who: str, med: float, walls: list[float], value: object) -> None:
    shown = " ".join(f"{w:.3f}" for w in walls)
    print(f"| {task} | {who} | {med:.3f} | {shown} | {value} |", flush=True)


def flat(runs: int) -> None:
    import perfeval

    rng = np.random.default_rng(20240601)
    n = 10_000_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = np.round(1 / (1 + np.exp(-(1.6 * y - 0.8 + rng.normal(0, 1.2, n)))), 6)
    med, w, r = timeit(lambda: perfeval.evaluate(y, s), runs)
    row(
        "10M rows, every PERF measure",
        "perfeval.evaluate (22 measures)",
        med,
        w,
        f"ROC {r['ROC']:.10f} APR {r['APR']:.6f}",
    )
    try:
        from sklearn.metrics import average_precision_score, log_loss, roc_auc_score
    except ImportError:
        return
    med, w, v = timeit(
        lambda: (roc_auc_score(y, s), average_precision_score(y, s), log_loss(y, s)), max(1, runs // 2)
    )
    row(
        "10M rows, every PERF measure",
        "scikit-learn roc_auc + average_precision + log_loss",
        med,
        w,
        f"ROC {v[0]:.10f}",
    )


def grouped_data():
    """ANCHORS.md's generator: 1M rows, 10k groups (sizes ~ Poisson(100)), per-group positive
    rates from Beta(0.3, 3) so many groups have one class, 3-decimal scores (ties inside groups)."""
    rng = np.random.default_rng(20040)
    n, q = 1_000_000, 10_000
    g = np.sort(rng.integers(0, q, n)).astype(np.int64)
    rate = rng.beta(0.3, 3.0, q)
    y = (rng.random(n) < rate[g]).astype(np.int8)
    s = np.round(1 / (1 + np.exp(-(-1 + 1.5 * y + rng.normal(0, 1.2, n)))), 3)
    return g, y, s


def gauc(runs: int) -> None:
    import perfeval

    g, y, s = grouped_data()
    med, w, r = timeit(lambda: perfeval.evaluate(y, s, groups=g, measures=["gauc"]), runs)
    row("GAUC, 1M rows / 10k groups", "perfeval.evaluate(measures=['gauc'])", med, w, f"{r['GAUC']:.13f}")

    def lexsort_recipe():
        o = np.lexsort((s, g))
        gg, ss, yy = g[o], s[o], y[o]
        # average ranks within (group, score) ties
        new_g = np.r_[True, gg[1:] != gg[:-1]]
        new_t = new_g | np.r_[True, ss[1:] != ss[:-1]]
        gstart = np.flatnonzero(new_g)
        tstart = np.flatnonzero(new_t)
        idx = np.arange(len(ss))
        base = np.repeat(gstart, np.diff(np.r_[gstart, len(ss)]))
        pos_in = idx - base
        tlen = np.diff(np.r_[tstart, len(ss)])
        avg = np.repeat(pos_in[tstart] + (tlen + 1) / 2.0, tlen)
        P = np.add.reduceat(yy.astype(float), gstart)
        size = np.diff(np.r_[gstart, len(ss)])
        N = size - P
        rs = np.add.reduceat(avg * yy, gstart)
        ok = (P > 0) & (N > 0)
        auc = (rs[ok] - P[ok] * (P[ok] + 1) / 2) / (P[ok] * N[ok])
        return float(np.sum(auc * size[ok]) / np.sum(size[ok]))

    med, w, v = timeit(lexsort_recipe, runs)
    row("GAUC, 1M rows / 10k groups", "numpy lexsort + reduceat (ANCHORS recipe)", med, w, f"{v:.13f}")
    try:
        import pandas as pd
        from sklearn.metrics import roc_auc_score
    except ImportError:
        return
    df = pd.DataFrame({"g": g, "y": y, "s": s})

    def pandas_apply():
        sizes = df.groupby("g").size()
        mixed = df.groupby("g")["y"].nunique() == 2
        aucs = (
            df[df["g"].isin(mixed[mixed].index)]
            .groupby("g")
            .apply(lambda d: roc_auc_score(d["y"], d["s"]), include_groups=False)
        )
        return float((aucs * sizes[aucs.index]).sum() / sizes[aucs.index].sum())

    med, w, v = timeit(pandas_apply, 1)
    row("GAUC, 1M rows / 10k groups", "pandas groupby().apply(roc_auc_score)", med, w, f"{v:.13f}")


def ir(runs: int) -> None:
    import perfeval

    g, y, s = grouped_data()
    has = np.bincount(g, weights=y, minlength=g.max() + 1) > 0
    keep = has[g]
    g, y, s = g[keep], y[keep], s[keep]
    med, w, r = timeit(lambda: perfeval.evaluate(y, s, groups=g, measures=["ndcg@10", "map"]), runs)
    row(
        f"NDCG@10 + MAP, {len(g):,} rows / {len(np.unique(g)):,} queries",
        "perfeval.api.evaluation",
        med,
        w,
        f"NDCG@10 {r['NDCG@10']:.7f} MAP {r['MAP']:.7f}",
    )
    try:
        import pytrec_eval
    except ImportError:
        return

    def build():
        qrel: dict = {}
        run: dict = {}
        for q, d, rel, sc in zip(g.tolist(), range(len(g)), y.tolist(), s.tolist(), strict=False):
            qs = str(q)
            qrel.setdefault(qs, {})[f"d{d}"] = rel
            run.setdefault(qs, {})[f"d{d}"] = sc
        return qrel, run

    med_b, w_b, (qrel, run) = timeit(build, runs)
    row("NDCG@10 + MAP", "pytrec_eval: build dict input", med_b, w_b, "")
    ev = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut.10", "map"})

    def evaluate():
        res = ev.evaluate(run)
        return (np.mean([v["ndcg_cut_10"] for v in res.values()]), np.mean([v["map"] for v in res.values()]))

    med, w, v = timeit(evaluate, runs)
    row(
        "NDCG@10 + MAP",
        "pytrec_eval: evaluate (ties broken by document name)",
        med,
        w,
        f"NDCG@10 {v[0]:.7f} MAP {v[1]:.7f}",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", nargs="*", choices=("flat", "gauc", "ir"))
    a = ap.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}"
    )
    print("| task | tool | median s | runs (s) | value |\n|---|---|---|---|---|")
    for name, fn in (("flat", flat), ("gauc", gauc), ("ir", ir)):
        if not a.only or name in a.only:
            fn(a.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
