#!/usr/bin/env python3
"""The slow statistics jobs of issue 16, run as a user runs them: intervals and comparisons on a
1,000,000-row CSV written by pandas, and intervals after streaming a 30,000,000-row file.

Run by hand (never in CI):

    pip install pandas matplotlib          # the data is written by pandas; report draws plots
    python benchmarks/bench_stats.py --runs 3
    # the same jobs on another checkout (e.g. the code before a change), same interpreter:
    python benchmarks/bench_stats.py --runs 3 --src /path/to/old/checkout/src

The inputs are made once, with fixed seeds, into benchmarks/data/ (git-ignored):
``stats1m.csv`` (``y,a,b``: 30% positives, two models' probabilities in full float64 precision,
so about a million distinct scores each, written by ``DataFrame.to_csv``) and ``stats30m.csv``
(``y,a``: 30,000,000 rows, the score printed with 6 decimals, so at most a million distinct
values, as a model's output file often is), and ``stats1m3.csv`` (``y,s,a,b,c``: 1,000,000 rows, four
models' probabilities in full float64 precision, for the LOGLOSS and AP intervals and a three-model
comparison).  Each command runs in a fresh process with standard
error not a terminal (no progress line); wall time of the whole command (start-up, reading and
the statistics), median of ``--runs``, its CPU time (user + system: less sensitive than the
wall time to other work on the machine), peak RSS from GNU time; the ROC line of the output (or
the first measure's) is printed so that two checkouts can be seen to give the same numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

JOBS = {
    "eval-ci": ["eval", "{m1}", "--score", "a", "-m", "roc,apr,rms", "--ci", "0.95"],
    "compare": ["compare", "{m1}", "--score", "a,b", "-m", "roc,apr"],
    "report-ci": ["report", "{m1}", "--score", "a,b", "--ci", "0.95", "-o", "{tmp}/report.html"],
    # the same report with 100 replicates: the code before issue 16's change took too long for 1,000
    "report-ci-100": [
        "report",
        "{m1}",
        "--score",
        "a,b",
        "--ci",
        "0.95",
        "--n-boot",
        "100",
        "-o",
        "{tmp}/r.html",
    ],
    "stream-ci": ["eval", "{s30}", "--stream", "--score", "a", "-m", "roc,apr,rms", "--ci", "0.95"],
    # the measures that had no replicate plan before (issue 16's third round), on stats1m3.csv
    "logloss-ci": ["eval", "{m3}", "--score", "s", "-m", "logloss", "--ci", "0.95"],
    "ap-ci": ["eval", "{m3}", "--score", "s", "-m", "ap", "--ci", "0.95"],
    "compare3": ["compare", "{m3}", "--score", "a,b,c", "-m", "roc,ap"],
}


def make_data() -> tuple[Path, Path, Path]:
    import numpy as np
    import pandas as pd

    DATA.mkdir(exist_ok=True)
    m1, s30, m3 = DATA / "stats1m.csv", DATA / "stats30m.csv", DATA / "stats1m3.csv"
    if not m3.exists():
        rng = np.random.default_rng(16)
        n = 1_000_000
        y = (rng.random(n) < 0.3).astype(np.int8)
        cols = {"y": y}
        for name, lift in (("s", 1.0), ("a", 1.0), ("b", 0.9), ("c", 0.8)):
            cols[name] = 1 / (1 + np.exp(-(rng.normal(size=n) + lift * y - 1)))
        pd.DataFrame(cols).to_csv(m3, index=False)
    if not m1.exists():
        rng = np.random.default_rng(2024)
        n = 1_000_000
        y = (rng.random(n) < 0.3).astype(np.int8)
        a = 1 / (1 + np.exp(-(rng.normal(size=n) + y - 1)))
        b = 1 / (1 + np.exp(-(rng.normal(size=n) + 0.9 * y - 1)))
        pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(m1, index=False)
    if not s30.exists():
        rng = np.random.default_rng(7)
        step = 3_000_000
        with open(s30, "w") as fh:
            for i in range(0, 30_000_000, step):
                y = (rng.random(step) < 0.3).astype(np.int8)
                a = 1 / (1 + np.exp(-(rng.normal(size=step) + y - 1)))
                pd.DataFrame({"y": y, "a": a}).to_csv(fh, index=False, header=i == 0, float_format="%.6f")
    return m1, s30, m3


def run(cmd: list[str], env: dict) -> tuple[float, float, int, str]:
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t0 = time.perf_counter()
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S %M", "-o", rss.name, *cmd],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=True,
            env=env,
            text=True,
        )
        wall = time.perf_counter() - t0
        user, sys_, kb = rss.read().split()[-3:]
    lines = p.stdout.splitlines()
    # the ROC line (compare's: the first model's), or the first measure's (after the table's header)
    roc = [line for line in lines if "ROC" in line.split()[:2]] or [
        b for a, b in zip(lines, lines[1:], strict=False) if a.startswith("measure")
    ]
    return wall, float(user) + float(sys_), int(kb), (roc[0] if roc else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--src", help="run the code of this src/ directory (PYTHONPATH) instead of the installed one"
    )
    ap.add_argument(
        "--jobs", default="eval-ci,compare,report-ci,stream-ci", help=f"comma-separated, of {', '.join(JOBS)}"
    )
    a = ap.parse_args()
    m1, s30, m3 = make_data()
    env = dict(os.environ)
    if a.src:
        env["PYTHONPATH"] = a.src
    print(
        "| job | command | median s | runs (s) | CPU s (median) | peak RSS MiB | ROC (or first) line |\n"
        "|---|---|---|---|---|---|---|"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for job in a.jobs.split(","):
            args = [x.format(m1=m1, s30=s30, m3=m3, tmp=tmp) for x in JOBS[job]]
            cmd = [sys.executable, "-m", "perfeval.cli.main", *args]
            walls, cpus, rss, out = [], [], 0, ""
            for _ in range(a.runs):
                w, cpu, kb, out = run(cmd, env)
                walls.append(w)
                cpus.append(cpu)
                rss = max(rss, kb)
            shown = " ".join(x if x not in (str(m1), str(s30), str(m3)) else Path(x).name for x in args)
            shown = shown.replace(tmp + "/", "")
            print(
                f"| {job} | `perfeval {shown}` | {statistics.median(walls):.2f} | "
                f"{' '.join(f'{w:.2f}' for w in walls)} | {statistics.median(cpus):.2f} | {rss / 1024:.0f} | "
                f"`{' '.join(out.split())}` |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
