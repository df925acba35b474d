"""Dialects against perfeval's default on 10M rows, with the real tool beside where it runs here.

Run by hand (not a test): ``.venv/bin/python benchmarks/bench_dialects.py [--reps 3] [--part ...]``.
Each line is the median of ``--reps`` in-process runs, the data made once (not timed):

- binary: ``rng = default_rng(0)``, ``y ~ Bernoulli(0.25)``, ``s = round(sigmoid(-1 + 1.5 y +
  N(0, 1.2^2)), 6)`` (about 0.9M distinct scores; tests/oracles/bench_tools.py times torchmetrics,
  Keras, Spark and DIN's code on the same rows in their own environment); measures ROC + AP (perf:
  ROC + APR, din: ROC).
- ranking: 10M rows in 100k queries of 100, grades 0..2, scores rounded to 2 decimals (heavy ties),
  int64 document ids; NDCG@10 + MAP (sklearn: NDCG@10; din and torchmetrics: GAUC on the grades > 0).
  Peers: pytrec_eval (``evaluate`` only: building its dicts is not timed) and ranx (Qrels/Run from
  DataFrames and ``evaluate``, once: it takes minutes).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import perfeval

N = 10_000_000


def timed(fn, reps: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), value


def binary(reps: int) -> None:
    rng = np.random.default_rng(0)
    y = rng.random(N) < 0.25
    s = np.round(1 / (1 + np.exp(-(-1 + 1.5 * y + rng.normal(0, 1.2, N)))), 6)
    y = y.astype(np.int64)
    base, _ = timed(lambda: perfeval.evaluate(y, s, measures=["roc", "ap"]), reps)
    print(f"binary, 10M rows: perfeval default ROC+AP {base:.2f} s")
    for d, m in (
        ("sklearn", ["roc", "ap"]),
        ("torchmetrics", ["roc", "ap"]),
        ("torchmetrics:thresholds=200", ["roc", "ap"]),
        ("spark", ["roc", "ap"]),
        ("keras", ["roc", "ap"]),
        ("din", ["roc"]),
        ("perf", ["roc", "apr"]),
    ):
        t, r = timed(lambda d=d, m=m: perfeval.evaluate(y, s, measures=m, dialect=d), reps)
        vals = " ".join(f"{k}={v.value:.10f}" for k, v in r.results.items())  # type: ignore[attr-defined]
        print(f"  dialect {d:28s} {t:6.2f} s  {t / base:4.2f}x  {vals}")
    from sklearn.metrics import average_precision_score, roc_auc_score

    t, v = timed(lambda: (roc_auc_score(y, s), average_precision_score(y, s)), reps)
    print(f"  peer scikit-learn roc_auc_score + average_precision_score {t:.2f} s  {v}")


def ranking(reps: int) -> None:
    rng = np.random.default_rng(1)
    q = np.repeat(np.arange(100_000), 100)
    rel = rng.integers(0, 3, N)
    s = np.round(rng.random(N) + 0.2 * rel, 2)
    ids = rng.integers(0, 10**12, N)
    click = (rel > 0).astype(np.int64)
    base, _ = timed(lambda: perfeval.evaluate(rel, s, groups=q, measures=["ndcg@10", "map"]), reps)
    gbase, _ = timed(lambda: perfeval.evaluate(click, s, groups=q, measures=["gauc_unweighted"]), reps)
    print(f"ranking, 10M rows / 100k queries: perfeval default NDCG@10+MAP {base:.2f} s, GAUC {gbase:.2f} s")
    for d, m, y, b in (
        ("trec_eval", ["ndcg_cut_10", "map"], rel, base),
        ("ranx", ["ndcg@10", "map"], rel, base),
        ("sklearn", ["ndcg@10"], rel, base),
        ("torchmetrics", ["gauc_unweighted"], click, gbase),
        ("din", ["gauc"], click, gbase),
    ):
        t, r = timed(
            lambda d=d, m=m, y=y: perfeval.evaluate(y, s, groups=q, ids=ids, measures=m, dialect=d), reps
        )
        vals = " ".join(f"{k}={v.value:.10f}" for k, v in r.results.items())  # type: ignore[attr-defined]
        print(f"  dialect {d:14s} {t:6.2f} s  {t / b:4.2f}x  {vals}")
    try:
        import pytrec_eval
    except ImportError:
        return
    qs, ds = q.astype(str), ids.astype(str)
    qrels: dict = {}
    run: dict = {}
    for a, b, c, e in zip(qs.tolist(), ds.tolist(), rel.tolist(), s.tolist(), strict=True):
        qrels.setdefault(a, {})[b] = c
        run.setdefault(a, {})[b] = e
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map"})
    t, res = timed(lambda: ev.evaluate(run), 1)
    per = list(res.values())  # type: ignore[union-attr]
    print(
        f"  peer pytrec_eval evaluate {t:.2f} s  ndcg_cut_10={np.mean([p['ndcg_cut_10'] for p in per]):.10f} "
        f"map={np.mean([p['map'] for p in per]):.10f}"
    )
    try:
        import pandas as pd
        import ranx
    except ImportError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        # ranx wants object id columns (pandas 3 would make them its string dtype: ranx#79)
        ids_ = pd.DataFrame({"q_id": pd.Series(qs, dtype=object), "doc_id": pd.Series(ds, dtype=object)})
        qr = ranx.Qrels.from_df(ids_.assign(score=rel), score_col="score")
        ru = ranx.Run.from_df(ids_.assign(score=s), score_col="score")
        out = ranx.evaluate(qr, ru, ["ndcg@10", "map"])
        print(f"  peer ranx from DataFrames + evaluate {time.perf_counter() - t0:.2f} s  {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--part", choices=("binary", "ranking", "both"), default="both")
    a = ap.parse_args()
    if a.part in ("binary", "both"):
        binary(a.reps)
    if a.part in ("ranking", "both"):
        ranking(a.reps)


if __name__ == "__main__":
    main()
