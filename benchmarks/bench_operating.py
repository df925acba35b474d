#!/usr/bin/env python3
"""The operating-point measures and the partial AUC (issue 33) against the ROC area on the same
10,000,000 distinct float64 scores, and against torchmetrics' and scikit-learn's functions in the
same run.  The issue's goal: each within 1.5x of the ROC area's time.

Run by hand (never in CI):

    PYTHONPATH=src python benchmarks/bench_operating.py --distinct 10000000 --runs 3 \\
        --peers /tmp/oracle-venv/bin/python

* ``--distinct`` cases, each its own float64 score (uniform, checked distinct), the target drawn
  with P(y = 1) = score: ``perfeval.evaluate(y, s, measures=[m])`` for ROC and each spec (the door
  and the summary included: the ROC area's time is the floor), the specs taken in turn within each
  run (so that a change of load touches them alike), the median of ``--runs`` printed with its
  ratio to ROC's median.  Each value's result carries its threshold (computed beside it: the value
  and its threshold read one choice of point), so a spec's time is that of both.
* the torchmetrics dialect of the four torchmetrics functions, the same way (perfeval's
  reproduction of torchmetrics' numbers; ``--no-dialect`` leaves it out, for a version without it).
* scikit-learn's ``roc_auc_score`` and ``roc_auc_score(max_fpr=0.1)`` (McClish's partial AUC, our
  ``pauc@0.1:correct=mcclish``), in this process.
* ``--peers PYTHON``: torchmetrics' ``binary_auroc`` and its four operating-point functions
  (``thresholds=None``, float64 tensors), in a subprocess of that interpreter on the same arrays (an
  .npy file; loading and importing not timed); their values printed beside the dialect's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
import warnings

import numpy as np

SPECS = [
    "roc",
    "tpr_at_fpr@0.01",
    "tpr_at_fpr@0.1",
    "sen_at_spc@0.9",
    "spc_at_sen@0.9",
    "pre_at_rec@0.5",
    "rec_at_pre@0.8",
    "pauc@0.1",
    "pauc@0.1:correct=mcclish",
    "pauc@0.9:lo=0.8,focus=tpr",
    "youden",
    "topleft",
    "best_fbeta",
    "best_mcc",
    "least_cost:fn=5,fp=1",
    "youden:of=threshold",
]
#: the torchmetrics dialect: (spec, torchmetrics' function, its keyword)
TORCHMETRICS = [
    ("sen_at_spc@0.9", "binary_sensitivity_at_specificity", "min_specificity", 0.9),
    ("spc_at_sen@0.9", "binary_specificity_at_sensitivity", "min_sensitivity", 0.9),
    ("pre_at_rec@0.5", "binary_precision_at_fixed_recall", "min_recall", 0.5),
    ("rec_at_pre@0.8", "binary_recall_at_fixed_precision", "min_precision", 0.8),
]

PEERS = r"""
import json, statistics, sys, time, warnings
import numpy as np
y, s = np.load(sys.argv[1]), np.load(sys.argv[2])
runs = int(sys.argv[3])
calls = json.loads(sys.argv[4])
import torch, torchmetrics
from torchmetrics.functional import classification as C
tp, tt = torch.from_numpy(s), torch.from_numpy(y)
out = {"version": torchmetrics.__version__, "torch": torch.__version__}
todo = [("binary_auroc", None, None)] + [(fn, kw, t) for fn, kw, t in calls]
times = {name: [] for name, _k, _t in todo}
vals = {}
for _ in range(runs):
    for name, kw, t in todo:
        fn = getattr(C, name)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = fn(tp, tt) if kw is None else fn(tp, tt, **{kw: t})
        times[name].append(time.perf_counter() - t0)
        vals[name] = [float(v)] if kw is None else [float(v[0]), float(v[1])]
out["results"] = {n: (statistics.median(times[n]), times[n], vals[n]) for n in times}
print(json.dumps(out))
"""


def data(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(33)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int64)
    distinct = len(np.unique(s))
    if distinct != n:
        raise SystemExit(f"{n - distinct} scores repeat: pick another seed")
    return y, s


def one(y: np.ndarray, s: np.ndarray, spec: str, dialect: str = "perfeval") -> tuple[float, float]:
    import perfeval

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, measures=[spec], dialect=dialect)
    took = time.perf_counter() - t0
    return took, next(iter(r.results.values())).value


def row(name: str, ts: list[float], floor: float, value: object) -> str:
    """A line of the table: the median, its ratio to the ROC area's, each run, the value."""
    med = statistics.median(ts)
    runs = " ".join(f"{t:.3f}" for t in ts)
    return f"{name:34s} {med:7.3f}s {med / floor:5.2f}x   {runs:24s}  {value}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--distinct", type=int, default=10_000_000)
    ap.add_argument(
        "--no-dialect", action="store_true", help="leave the torchmetrics dialect out (a version without it)"
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--peers", default="/tmp/oracle-venv/bin/python", help="an interpreter with torchmetrics, or 'none'"
    )
    a = ap.parse_args()
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    print(
        f"# {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus, "
        f"Python {platform.python_version()}, numpy {np.__version__}; "
        f"load average {' '.join(load_before)} at the start",
        flush=True,
    )
    y, s = data(a.distinct)
    print(f"# {a.distinct:,} cases, distinct uniform float64 scores, {int(y.sum()):,} positives", flush=True)

    specs = [(sp, "perfeval") for sp in SPECS]
    if not a.no_dialect:
        specs += [(sp, "torchmetrics") for sp, *_ in TORCHMETRICS]
    times: dict[tuple[str, str], list[float]] = {k: [] for k in specs}
    values: dict[tuple[str, str], float] = {}
    for _ in range(a.runs):
        for key in specs:
            took, v = one(y, s, *key)
            times[key].append(took)
            values[key] = v
    floor = statistics.median(times[("roc", "perfeval")])
    print(f"\n{'measure':34s} {'median':>8s} {'x ROC':>6s}   runs                      value")
    for (sp, d), ts in times.items():
        name = sp if d == "perfeval" else f"{sp} (dialect {d})"
        print(row(name, ts, floor, repr(values[(sp, d)])), flush=True)

    from sklearn.metrics import roc_auc_score

    for name, kw in (("sklearn roc_auc_score", {}), ("sklearn roc_auc_score(max_fpr=0.1)", {"max_fpr": 0.1})):
        ts = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            v = roc_auc_score(y, s, **kw)
            ts.append(time.perf_counter() - t0)
        med = statistics.median(ts)
        print(
            f"{name:34s} {med:7.3f}s {med / floor:5.2f}x   {' '.join(f'{t:.3f}' for t in ts):24s}  {v!r}",
            flush=True,
        )

    if a.peers != "none" and os.path.exists(a.peers):
        with tempfile.TemporaryDirectory() as d:
            np.save(f"{d}/y.npy", y)
            np.save(f"{d}/s.npy", s)
            calls = json.dumps([[fn, kw, t] for _sp, fn, kw, t in TORCHMETRICS])
            run = subprocess.run(
                [a.peers, "-c", PEERS, f"{d}/y.npy", f"{d}/s.npy", str(a.runs), calls],
                capture_output=True,
                text=True,
                check=True,
            )
        got = json.loads(run.stdout)
        print(f"\n# torchmetrics {got['version']} (torch {got['torch']}), float64 tensors, thresholds=None")
        dialect = {fn: values[(sp, "torchmetrics")] for sp, fn, _k, _t in TORCHMETRICS if not a.no_dialect}
        for name, (_med, ts, v) in got["results"].items():
            same = ""
            if name in dialect:
                verdict = "the same" if dialect[name] == v[0] else "DIFFERENT"
                same = f"  (dialect torchmetrics: {dialect[name]!r}, {verdict})"
            print(row(name, ts, floor, f"{v}{same}"), flush=True)
    with open("/proc/loadavg") as f:
        print(f"# load average {' '.join(f.read().split()[:3])} at the end")


if __name__ == "__main__":
    main()
