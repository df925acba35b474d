#!/usr/bin/env python3
"""The fits' kernel alone, two builds of it in one process: ``logit_fit`` over many groups' cells
with each module, called alternately, so that a shared machine's load moves both alike (issue 33,
branch fits-vec).

Run by hand (never in CI), with the other build's module copied into a directory of its own (the
module's file name kept: its init function is found by that name):

    mkdir -p /tmp/old/oldpkg && cp <old build>/_native.cpython-*.so /tmp/old/oldpkg/
    python benchmarks/bench_fit_kernel.py /tmp/old/oldpkg/_native.*.so src/perfeval/_native.*.so \
        --runs 11 [--target base|v3|v4] [--groups 100000 --rows 1000000]

The rows are bench_group_fits.py's (uniform float64 scores, y drawn with P(y = 1) = score, random
groups), laid out as the fits read them (each group's cells by score, x their logits); both modules'
numbers are checked to be the same bytes.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time
from types import ModuleType

import numpy as np


def load(name: str, path: str) -> ModuleType:
    """The extension module at ``path`` as ``name`` (a package name of its own before ``._native``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--target", default="", help="the fit's pass in both: base, v3 or v4 (default: the best)")
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    old, new = load("oldpkg._native", args.old), load("newpkg._native", args.new)
    if args.target:
        old.cal_target(args.target)
        new.cal_target(args.target)
    rng = np.random.default_rng(0)
    g = rng.integers(0, args.groups, args.rows)
    s = rng.random(args.rows)
    y = (rng.random(args.rows) < s).astype(np.int64)
    o = np.lexsort((s, g))
    g, s, y = g[o], s[o], y[o]
    bounds = np.searchsorted(g, np.arange(args.groups + 1)).astype(np.int64)
    x = np.log(s) - np.log1p(-s)
    pos = y.astype(np.float64)
    neg = 1.0 - pos
    print(
        f"{args.rows:,} rows in {args.groups:,} groups; pass {old.cal_target()} and {new.cal_target()}; "
        f"CPU, median of {args.runs}; load {os.getloadavg()[0]:.1f}"
    )
    for joint in (True, False):
        t: dict[str, list[float]] = {"old": [], "new": []}
        out: dict[str, bytes] = {}
        for r in range(args.runs):
            for name, mod in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
                c0 = time.process_time()
                res = mod.logit_fit(x, pos, neg, bounds, joint, True, s)
                t[name].append(time.process_time() - c0)
                out[name] = bytes(res)
            assert out["old"] == out["new"], "the two modules' numbers differ"
        mo, mn = statistics.median(t["old"]), statistics.median(t["new"])
        print(
            f"{'joint fit' if joint else 'offset fit':<11} old {mo * 1e3:6.1f} ms  new {mn * 1e3:6.1f} ms  "
            f"new / old {mn / mo:.2f}"
        )
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
