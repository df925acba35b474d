"""The same commands on two checkouts (before and after a refactoring: issue 31), interleaved run by
run (which side goes first alternates), after one warm-up round; the median wall time of each, and
whether the two printed the same bytes.

    python benchmarks/bench_redesign.py RUNS BEFORE_SRC AFTER_SRC DATA_DIR

DATA_DIR holds m1.csv (1,000,000 rows: g, a 64-bit id of 20,000 groups; y, 30% positives; grade;
s, 4 decimals), r2m.txt (2,000,000 lines `target prediction`), s400k.txt (400,000 sorted lines),
ten.txt (10 lines), y.npy and s.npy (m1's y and s).  Each checkout's compiled module is built in
place (the BEFORE one under its own name).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

PERF = "import sys; from perfeval.classic.main import main; sys.exit(main())"
PERFEVAL = "import sys; from perfeval.cli.main import main; sys.exit(main())"


def cases(d: str) -> list[tuple[str, list[str], str | None]]:
    py = sys.executable
    api = (
        f"import numpy as np, perfeval; y = np.load('{d}/y.npy'); s = np.load('{d}/s.npy'); "
        "print(perfeval.evaluate(y, s, measures=['roc', 'apr', 'logloss', 'acc']).values)"
    )
    table = [f"{d}/m1.csv", "--target", "y", "--score", "s"]
    return [
        ("perf -roc -apr -rms -acc, 10 lines", [py, "-c", PERF, "-roc", "-apr", "-rms", "-acc"], "ten.txt"),
        ("perf, 400,000 sorted lines", [py, "-c", PERF], "s400k.txt"),
        ("perf, 2,000,000 lines", [py, "-c", PERF], "r2m.txt"),
        (
            "perfeval eval, 1M rows, -m roc,gauc,ndcg@10 --group g",
            [py, "-c", PERFEVAL, "eval", *table, "--group", "g", "-m", "roc,gauc,ndcg@10"],
            None,
        ),
        (
            "perfeval eval, 1M rows, --stream -m roc,apr,logloss",
            [py, "-c", PERFEVAL, "eval", *table, "--stream", "-m", "roc,apr,logloss"],
            None,
        ),
        ("evaluate(), 1M arrays, 4 measures (with the import)", [py, "-c", api], None),
    ]


def main(runs: int, before: str, after: str, d: str) -> None:
    sides = {"before": before, "after": after}
    todo = cases(d)
    times: dict[tuple[str, str], list[float]] = {(c[0], s): [] for c in todo for s in sides}
    outs: dict[str, dict[str, bytes]] = {}
    for r in range(runs + 1):  # round 0 warms up
        for name, argv, stdin in todo:
            order = list(sides.items()) if r % 2 else list(sides.items())[::-1]
            for side, path in order:
                env = dict(os.environ, PYTHONPATH=path)
                with open(f"{d}/{stdin}", "rb") if stdin else open(os.devnull, "rb") as fh:
                    t = time.perf_counter()
                    p = subprocess.run(argv, stdin=fh, capture_output=True, env=env, check=False)
                    dt = time.perf_counter() - t
                if p.returncode != 0:
                    sys.exit(f"{side} {name}: {p.stderr.decode()[-300:]}")
                outs.setdefault(name, {})[side] = p.stdout
                if r:
                    times[(name, side)].append(dt)
    print("| command | before | after | same output |\n|---|---:|---:|---|")
    for name, *_ in todo:
        b, a = (statistics.median(times[(name, s)]) for s in sides)
        same = "yes" if outs[name]["before"] == outs[name]["after"] else "no"
        print(f"| {name} | {b:.3f} s | {a:.3f} s | {same} |")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4])
