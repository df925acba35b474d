"""Two source trees against each other, per group, as ratios to GAUC: fresh processes alternated.

    python benchmarks/bench_group_ab.py /path/to/main/src /path/to/branch/src --rounds 5 \
        --specs cal_slope,cal_intercept:fit=joint

Each round runs one process of each tree (PYTHONPATH set to it), in turn; each process evaluates
GAUC and each spec alternately ``--runs`` times over the same 1M rows in 100k groups (after one call
of each, not timed) and prints the median ratios of the spec's wall and CPU time to GAUC's.  The
rounds' medians are printed at the end.  Alternating processes and calls keeps a loaded box's noise
in both trees' numbers alike; only the ratios compare across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, statistics, sys, time, warnings
import numpy as np
import perfeval
warnings.simplefilter("ignore")
rows, G, runs, specs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
rng = np.random.default_rng(0)
g = rng.integers(0, G, rows)
s = rng.random(rows)
y = (rng.random(rows) < s).astype(np.int64)
run = lambda spec: perfeval.evaluate(y, s, groups=g, measures=[spec])
run("gauc")
for spec in specs:
    run(spec)
out = {}
for spec in specs:
    w, c, rw, rc = [], [], [], []
    for _ in range(runs):
        for f, ws, cs in ((lambda: run("gauc"), rw, rc), (lambda spec=spec: run(spec), w, c)):
            t0, c0 = time.perf_counter(), time.process_time()
            f()
            ws.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
    m = statistics.median
    out[spec] = (m(w) / m(rw), m(c) / m(rc), m(rw))
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="+", help="source directories (each put first on PYTHONPATH)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--specs", default="cal_slope,cal_intercept:fit=joint")
    a = ap.parse_args()
    got: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for r in range(a.rounds):
        for tree in a.trees:
            env = {**os.environ, "PYTHONPATH": tree}
            args = [str(a.rows), str(a.groups), str(a.runs), a.specs]
            res = subprocess.run(
                [sys.executable, "-c", CHILD, *args], env=env, capture_output=True, text=True
            )
            if res.returncode:
                sys.exit(
                    f"{tree}: {res.stderr.strip().splitlines()[-1] if res.stderr.strip() else res.returncode}"
                )
            for spec, v in json.loads(res.stdout).items():
                got.setdefault((tree, spec), []).append(tuple(v))
                print(f"round {r + 1} {tree} {spec}: wall x{v[0]:.2f} cpu x{v[1]:.2f}", flush=True)
    load = os.getloadavg()[0]
    print(f"\n{a.rows:,} rows in {a.groups:,} groups; medians of {a.rounds} rounds; load {load:.1f}")
    for (tree, spec), v in got.items():
        med = statistics.median
        walls = " ".join(f"{x[0]:.2f}" for x in v)
        print(
            f"{tree:40s} {spec:26s} wall x{med(x[0] for x in v):.2f} cpu x{med(x[1] for x in v):.2f} "
            f"(GAUC {med(x[2] for x in v) * 1e3:.0f} ms; rounds: {walls})"
        )


if __name__ == "__main__":
    main()
