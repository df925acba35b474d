#!/usr/bin/env python3
"""The operating-point measures per group, with weights (issue 33): every group finished at once
(the measures' per-group forms) against group by group (the engine's generic path).

Run by hand (never in CI):

    python benchmarks/bench_operating_groups.py --rows 1000000 --groups 100000 --runs 3

The data, from a fixed seed: ``--rows`` rows in ``--groups`` groups (random codes), 0/1 targets at
30%, scores rounded to 3 decimals (ties), weights uniform in (0, 2].  Each measure is timed alone,
in a fresh process per run (``evaluate(y, s, groups=g, sample_weight=w, measures=[m])``, the
checks and the grouping included), and the median of the runs printed; ``--generic`` times the
engine's group-by-group path instead (the measure's per-group form switched off in that process),
and ``--check`` compares the two paths' values bit for bit.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

MEASURES = [
    "tpr_at_fpr@0.1",
    "sen_at_spc@0.9",
    "spc_at_sen@0.9",
    "pre_at_rec@0.5",
    "rec_at_pre@0.5",
    "pauc@0.2",
    "youden",
    "topleft",
    "best_fbeta",
    "best_mcc",
    "least_cost:fn=5,fp=1",
    "youden:of=threshold",
]


def data(rows: int, groups: int):
    import numpy as np

    rng = np.random.default_rng(33)
    g = rng.integers(0, groups, rows)
    y = (rng.random(rows) < 0.3).astype(np.int64)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=rows) + 1.2 * y))), 3)
    w = 2.0 - rng.random(rows) * 2.0
    return y, s, g, w


def one(measure: str, rows: int, groups: int, generic: bool, out: str | None) -> float:
    import warnings

    import numpy as np

    import perfeval
    from perfeval.measures import parse_measure

    if generic:  # the engine's group-by-group path: the per-group form declines
        m = parse_measure(measure).measure
        object.__setattr__(m, "per_group", "")
    y, s, g, w = data(rows, groups)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, groups=g, sample_weight=w, measures=[measure])
    took = time.perf_counter() - t
    if out:
        np.save(out, next(iter(r.results.values())).per_group)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--measures", default=";".join(MEASURES), help="separated by ';'")
    ap.add_argument("--generic", action="store_true", help="time the group-by-group path")
    ap.add_argument("--check", action="store_true", help="compare both paths' values, bit for bit")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--save", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one, a.rows, a.groups, a.generic, a.save)))
        return
    for m in a.measures.split(";"):
        runs = []
        for _ in range(a.runs):
            cmd = [sys.executable, __file__, "--one", m, "--rows", str(a.rows), "--groups", str(a.groups)]
            cmd += ["--generic"] if a.generic else []
            runs.append(json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout))
        line = f"{m:24s} median {statistics.median(runs):8.3f} s   runs " + " ".join(f"{r:.3f}" for r in runs)
        if a.check:
            import tempfile

            import numpy as np

            with tempfile.TemporaryDirectory() as d:
                vals = []
                for generic in (False, True):
                    f = f"{d}/{int(generic)}.npy"
                    cmd = [
                        sys.executable,
                        __file__,
                        "--one",
                        m,
                        "--rows",
                        str(a.rows),
                        "--groups",
                        str(a.groups),
                    ]
                    cmd += ["--save", f] + (["--generic"] if generic else [])
                    subprocess.run(cmd, check=True, capture_output=True)
                    vals.append(np.load(f))
            same = vals[0].tobytes() == vals[1].tobytes()
            line += f"   same bits as group by group: {same}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
