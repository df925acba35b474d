#!/usr/bin/env python3
"""Multiclass measures (issue 32, "Fast"): perfeval against the floor and its peers, in one run.

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_multiclass.py --runs 3            # everything
    PYTHONPATH=src python benchmarks/bench_multiclass.py --only whole        # or: scaling, groups

Data generated with a fixed seed and saved once as .npy (excluded from the times): Dirichlet(1)
probabilities in float64, the true class drawn uniformly.  Median wall time of --runs after one
warm-up, every tool run in turn in the same process (torchmetrics in /tmp/oracle-venv, when it
exists, in a subprocess on the same files).  Memory: each perfeval job once more in a fresh
process that loads the arrays, then reads its peak resident memory (VmHWM) above its resident
memory before the call (VmRSS): compiled scratch memory counts, which tracemalloc would not see.

* whole: 1,000,000 x 10 and 200,000 x 100: the floor (np.sort of each of the K columns), perfeval's
  ROC_OVR (macro), ROC_OVO, every multiclass measure at once (evaluate(): the door included, and
  the summary alone), scikit-learn's roc_auc_score (ovr, ovo) and log_loss, torchmetrics'
  multiclass_auroc(thresholds=None).
* scaling: perfeval's three jobs on 1M x 10, 2M x 10 and 1M x 20 (the ratios should be ~2).
* groups: 10,000,000 rows, 100,000 groups, 5 classes: perfeval's per-group ROC_OVR (macro) against
  two polars recipes (per group and class the rank-based AUC; the faster one counts), each checked
  equal to perfeval's per-group values first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

ALL = [
    "ROC_OVR:average=macro",
    "ROC_OVR:average=weighted",
    "ROC_OVR:average=micro",
    "ROC_OVO:average=macro",
    "ROC_OVO:average=weighted",
    "AP_OVR:average=macro",
    "AP_OVR:average=micro",
    "LOGLOSS_MC",
    "BRIER_MC",
    "ACC_MC",
    "BACC",
    "TOPK_ACC:k=2",
    "PRE_MC:average=macro",
    "REC_MC:average=macro",
    "F_MC:average=macro",
    "MCC",
    "KAPPA",
    "QWK",
]

TORCH = Path("/tmp/oracle-venv/bin/python")


def floor_of(s: np.ndarray) -> Callable[[], object]:
    """The floor: np.sort of each score column."""
    return lambda: [np.sort(s[:, j]) for j in range(s.shape[1])]


def median_time(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def data(tmp: Path, n: int, k: int, seed: int = 0) -> tuple[Path, Path]:
    ys, ss = tmp / f"y_{n}_{k}.npy", tmp / f"s_{n}_{k}.npy"
    if not ss.exists():
        r = np.random.default_rng(seed)
        np.save(ss, r.dirichlet(np.ones(k), size=n))
        np.save(ys, r.integers(0, k, n).astype(np.int64))
    return ys, ss


def perfeval_jobs(y: np.ndarray, s: np.ndarray) -> dict[str, Callable[[], object]]:
    import perfeval
    from perfeval.engine.classes import class_specs, summary_values
    from perfeval.measures import parse_measure
    from perfeval.summaries.classes import ClassSummary

    k = s.shape[1]
    classes = list(range(k))
    specs = class_specs([parse_measure(m) for m in ALL])

    def summary_all() -> object:
        cs = ClassSummary.from_checked(y.astype(np.intp), s, None, tuple(classes))
        return summary_values(specs, cs)

    return {
        "perfeval ROC_OVR macro": lambda: perfeval.evaluate(y, s, classes=classes, measures=["ROC_OVR"]),
        "perfeval ROC_OVO": lambda: perfeval.evaluate(y, s, classes=classes, measures=["ROC_OVO"]),
        "perfeval all 18": lambda: perfeval.evaluate(y, s, classes=classes, measures=ALL),
        "perfeval all 18, summary only": summary_all,
    }


def peer_jobs(y: np.ndarray, s: np.ndarray) -> dict[str, Callable[[], object]]:
    from sklearn.metrics import log_loss, roc_auc_score

    labels = list(range(s.shape[1]))
    return {
        "sklearn roc_auc_score ovr": lambda: roc_auc_score(y, s, multi_class="ovr", average="macro"),
        "sklearn roc_auc_score ovo": lambda: roc_auc_score(y, s, multi_class="ovo", average="macro"),
        "sklearn log_loss": lambda: log_loss(y, s, labels=labels),
    }


TORCH_SCRIPT = """
import statistics, sys, time, numpy as np, torch
from torchmetrics.functional.classification import multiclass_auroc
y = torch.from_numpy(np.load(sys.argv[1])); s = torch.from_numpy(np.load(sys.argv[2]))
k, runs = s.shape[1], int(sys.argv[3])
f = lambda: multiclass_auroc(s, y, num_classes=k, average="macro", thresholds=None)
v = f(); ts = []
for _ in range(runs):
    t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
print(statistics.median(ts), float(v), torch.get_num_threads())
"""


def torch_time(ys: Path, ss: Path, runs: int) -> tuple[float, float, int] | None:
    if not TORCH.exists():
        return None
    out = subprocess.run(
        [str(TORCH), "-c", TORCH_SCRIPT, str(ys), str(ss), str(runs)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if out.returncode:
        print("torchmetrics failed:", out.stderr.strip().splitlines()[-1:], flush=True)
        return None
    t, v, th = out.stdout.split()
    return float(t), float(v), int(th)


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(key)


def mem_child(job: str, ys: str, ss: str) -> None:
    """In a fresh process: the job's peak resident memory above what it held before the call."""
    y, s = np.load(ys), np.load(ss)
    jobs = perfeval_jobs(y, s)
    small = perfeval_jobs(y[:100], s[:100])
    small[job]()  # imports and first-call setup before the measure
    base = _status("VmRSS")
    if _status("VmHWM") > base:  # loading left a higher mark: reset it (Linux >= 4.0)
        Path("/proc/self/clear_refs").write_text("5")
        base = _status("VmRSS")
    jobs[job]()
    print(json.dumps({"extra": _status("VmHWM") - base, "scores": s.nbytes}))


def mem(job: str, ys: Path, ss: Path) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--mem-child", job, str(ys), str(ss)],
        capture_output=True,
        text=True,
        timeout=3600,
        env=os.environ,
    )
    if out.returncode:
        raise RuntimeError(out.stderr)
    d = json.loads(out.stdout.strip().splitlines()[-1])
    return d["extra"] / d["scores"]


def whole(tmp: Path, sizes: list[tuple[int, int]], runs: int, peers: bool) -> None:
    for n, k in sizes:
        ys, ss = data(tmp, n, k)
        y, s = np.load(ys), np.load(ss)
        print(f"\n### {n:,} rows x {k} classes (scores {s.nbytes / 1e6:.0f} MB)", flush=True)
        floor = median_time(floor_of(s), runs)
        print("| job | median s | x floor | peak memory above the scores, x scores |\n|---|---|---|---|")
        print(f"| floor: np.sort of each of the {k} columns | {floor:.3f} | 1.0 | |", flush=True)
        for name, fn in perfeval_jobs(y, s).items():
            t = median_time(fn, runs)
            m = mem(name, ys, ss)
            print(f"| {name} | {t:.3f} | {t / floor:.1f} | {m:.2f} |", flush=True)
        if not peers:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, fn in peer_jobs(y, s).items():
                t = median_time(fn, max(1, runs // 2))
                print(f"| {name} | {t:.3f} | {t / floor:.1f} | |", flush=True)
        tt = torch_time(ys, ss, max(1, runs // 2))
        if tt is None:
            print("| torchmetrics multiclass_auroc(thresholds=None) | not run: no /tmp/oracle-venv | | |")
        else:
            print(
                f"| torchmetrics multiclass_auroc(thresholds=None), {tt[2]} threads "
                f"| {tt[0]:.3f} | {tt[0] / floor:.1f} | |"
            )
        from sklearn.metrics import roc_auc_score

        import perfeval

        ours = perfeval.evaluate(y, s, classes=list(range(k)), measures=["ROC_OVR", "ROC_OVO"])
        theirs = roc_auc_score(y, s, multi_class="ovr"), roc_auc_score(y, s, multi_class="ovo")
        print(
            f"\nchecks: ROC_OVR - sklearn ovr = {ours['ROC_OVR:average=macro'] - theirs[0]:.1e}, "
            f"ROC_OVO - sklearn ovo = {ours['ROC_OVO:average=macro'] - theirs[1]:.1e}"
            + (
                ""
                if tt is None
                else f", ROC_OVR - torchmetrics = {ours['ROC_OVR:average=macro'] - tt[1]:.1e}"
            )
        )


def scaling(tmp: Path, runs: int) -> None:
    sizes = [(1_000_000, 10), (2_000_000, 10), (1_000_000, 20)]
    got: dict[tuple[int, int], dict[str, float]] = {}
    for n, k in sizes:
        ys, ss = data(tmp, n, k)
        y, s = np.load(ys), np.load(ss)
        got[(n, k)] = {name: median_time(fn, runs) for name, fn in perfeval_jobs(y, s).items()}
        got[(n, k)]["floor"] = median_time(floor_of(s), runs)
    print("\n### Doubling n and K (median s; ratio to 1M x 10)\n")
    print("| job | 1M x 10 | 2M x 10 | ratio | 1M x 20 | ratio |\n|---|---|---|---|---|---|")
    for name in got[sizes[0]]:
        a, b, c = (got[sz][name] for sz in sizes)
        print(f"| {name} | {a:.3f} | {b:.3f} | {b / a:.2f} | {c:.3f} | {c / a:.2f} |")


def polars_recipes(g: np.ndarray, y: np.ndarray, s: np.ndarray) -> dict[str, Callable[[], np.ndarray]]:
    """Per group the macro one-vs-rest AUC from ranks (ties: average ranks, half credit)."""
    import polars as pl

    k = s.shape[1]
    df = pl.DataFrame({"g": g, "y": y, **{f"p{j}": s[:, j] for j in range(k)}})

    def finish(agg: pl.DataFrame) -> np.ndarray:
        aucs = []
        for j in range(k):
            p, n = pl.col(f"P{j}"), pl.col("n") - pl.col(f"P{j}")
            aucs.append(
                pl.when((p > 0) & (n > 0)).then((pl.col(f"R{j}") - p * (p + 1) / 2) / (p * n)).alias(f"a{j}")
            )
        out = agg.sort("g").select(pl.mean_horizontal(aucs).alias("macro"))  # nulls left out
        return out["macro"].to_numpy()

    def in_agg() -> np.ndarray:
        agg = df.group_by("g").agg(
            pl.len().alias("n"),
            *[(pl.col("y") == j).sum().alias(f"P{j}") for j in range(k)],
            *[
                pl.col(f"p{j}").rank("average").filter(pl.col("y") == j).sum().alias(f"R{j}")
                for j in range(k)
            ],
        )
        return finish(agg)

    def over() -> np.ndarray:
        agg = (
            df.lazy()
            .with_columns(*[pl.col(f"p{j}").rank("average").over("g").alias(f"r{j}") for j in range(k)])
            .group_by("g")
            .agg(
                pl.len().alias("n"),
                *[(pl.col("y") == j).sum().alias(f"P{j}") for j in range(k)],
                *[pl.col(f"r{j}").filter(pl.col("y") == j).sum().alias(f"R{j}") for j in range(k)],
            )
            .collect()
        )
        return finish(agg)

    return {"polars group_by().agg(rank)": in_agg, "polars rank().over(g), then group_by": over}


def groups(tmp: Path, runs: int, n: int = 10_000_000, q: int = 100_000, k: int = 5) -> None:
    import perfeval

    gs = tmp / f"g_{n}_{q}.npy"
    ys, ss = data(tmp, n, k)
    if not gs.exists():
        np.save(gs, np.random.default_rng(1).integers(0, q, n))
    g, y, s = np.load(gs), np.load(ys), np.load(ss)
    classes = list(range(k))
    ours = perfeval.evaluate(y, s, groups=g, classes=classes, measures=["ROC_OVR"])
    vals = ours.results["ROC_OVR:average=macro"].per_group
    print(f"\n### Per group: {n:,} rows, {len(ours.groups):,} groups, {k} classes\n")
    print("| job | median s |\n|---|---|")
    t = median_time(lambda: perfeval.evaluate(y, s, groups=g, classes=classes, measures=["ROC_OVR"]), runs)
    print(f"| perfeval evaluate(groups=, measures=['ROC_OVR']) (macro) | {t:.3f} |", flush=True)
    best = None
    for name, fn in polars_recipes(g, y, s).items():
        theirs = fn()
        ok = np.isnan(vals) == np.isnan(theirs.astype(float))
        err = float(np.nanmax(np.abs(vals - theirs))) if ok.all() else float("nan")
        tp = median_time(fn, runs)
        best = tp if best is None else min(best, tp)
        print(f"| {name} (max |difference| {err:.1e}) | {tp:.3f} |", flush=True)
    print(f"\nthe fastest polars recipe / perfeval: {best / t:.1f}x")  # type: ignore[operator]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=("whole", "scaling", "groups"), default=None)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--data", default=None, help="a directory to keep the generated arrays in")
    ap.add_argument("--mem-child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mem_child:
        mem_child(*args.mem_child)
        return
    import numpy

    import perfeval

    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {numpy.__version__}, perfeval {perfeval.__version__}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(args.data or t)
        tmp.mkdir(exist_ok=True)
        if args.only in (None, "whole"):
            whole(tmp, [(1_000_000, 10), (200_000, 100)], args.runs, not args.no_peers)
        if args.only in (None, "scaling"):
            scaling(tmp, args.runs)
        if args.only in (None, "groups"):
            groups(tmp, args.runs)


if __name__ == "__main__":
    main()
