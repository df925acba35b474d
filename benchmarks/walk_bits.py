#!/usr/bin/env python3
"""Dump or compare the bootstrap walk's replicate arrays, to the bit (a tool for changes to the walk).

Run by hand (never in CI), once with the code before a change and once with the code after:

    PYTHONPATH=/work/main/src python benchmarks/walk_bits.py dump /tmp/before
    PYTHONPATH=src python benchmarks/walk_bits.py dump /tmp/after
    python benchmarks/walk_bits.py compare /tmp/before /tmp/after

``dump`` writes one .npy file per replicate array: every walk this machine runs (base, v3, v4) x
data sets (a million distinct scores, heavy ties, integer weights, large integer weights, tiny n
below, at and above CA2's window, one class) x sources (the summary's Poisson draws, case-level
draws, the delete-a-group jackknife, weights that are not counts) x plans (CA2 with windows 1, 40,
100, 1000 alone, and with PERF's 22 measures).  ``compare`` checks every array of the first
directory against the second with ``np.array_equal(equal_nan=True)``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

CA2 = ["ca2", "ca2:window=1", "ca2:window=40", "ca2:window=1000"]


def datasets():
    rng = np.random.default_rng(2024)
    out = {}
    n = 1_000_000
    y = (rng.random(n) < 0.3).astype(int)
    out["distinct1M"] = (y, 1 / (1 + np.exp(-(rng.normal(size=n) + y - 1))), None, 16)
    n = 200_000
    y = (rng.random(n) < 0.4).astype(int)
    out["ties"] = (y, np.clip(np.round(rng.normal(0.4, 0.2, n) + 0.2 * y, 2), 0, 1), None, 24)
    n = 50_000
    y = (rng.random(n) < 0.3).astype(int)
    out["intweights"] = (y, rng.random(n), rng.integers(1, 6, n).astype(float), 24)
    n = 3000  # weights up to 20000: lanes far apart (the walk's catch-up)
    y = (rng.random(n) < 0.5).astype(int)
    out["bigweights"] = (y, np.round(rng.random(n), 3), rng.integers(1, 20_000, n).astype(float), 16)
    n = 20_000
    y = (rng.random(n) < 0.3).astype(int)
    out["fracweights"] = (y, rng.random(n), rng.random(n) * 3 + 0.1, 16)
    for n in (1, 7, 40, 99, 100, 101, 1000, 1001):
        y = (rng.random(n) < 0.5).astype(int)
        out[f"tiny{n}"] = (y, np.round(rng.random(n), 1), None, 24)
    n = 5000
    out["oneclass0"] = (np.zeros(n, int), rng.random(n), None, 16)
    out["oneclass1"] = (np.ones(n, int), np.round(rng.random(n), 2), None, 16)
    return out


def dump(where: pathlib.Path) -> int:
    from perfeval import _native
    from perfeval.base.nicknames import ALL
    from perfeval.measures import parse_measure
    from perfeval.stats import replicates as R
    from perfeval.stats.fastpaths import FAST_PATHS
    from perfeval.summaries import ScoreHistogram

    where.mkdir(parents=True, exist_ok=True)
    plans = {"ca2": CA2, "perf": CA2 + [m.lower() for m in ALL if m.lower() != "ca2"]}
    here = _native.walk_target()
    count = 0
    try:
        for target in ("base", "v3", "v4"):
            try:
                _native.walk_target(target)
            except ValueError:
                print(f"{target}: not on this machine", file=sys.stderr)
                continue
            for dname, (y, s, w, nb) in datasets().items():
                for pname, names in plans.items():
                    specs = [parse_measure(m) for m in names]
                    got = {}
                    if w is None or (w == np.round(w)).all():
                        if w is None:
                            got["hist"] = R.hist_replicates(specs, ScoreHistogram.from_arrays(y, s), 5, nb, 2)
                        sorted_ = R.Sorted(s)
                        got["rows"] = R.row_replicates([(sp, sorted_) for sp in specs], y == 1, w, 5, nb, 2)
                        if len(y) <= 200_000:
                            got["jack"] = R.jack_groups_many(specs, R.Cases(y, s, w, None), threads=2)
                    else:  # weights that are not counts: the plans that take them (CA2 is not one)
                        frac = [sp for sp in specs if not FAST_PATHS[sp.measure.name].plan(sp).counts]
                        sorted_ = R.Sorted(s)
                        got["rows"] = R.row_replicates([(sp, sorted_) for sp in frac], y == 1, w, 5, nb, 2)
                        got["jack"] = R.jack_groups_many(frac, R.Cases(y, s, w, None), threads=2)
                    for src, arrays in got.items():
                        for i, a in enumerate(arrays):
                            np.save(where / f"{target}-{dname}-{pname}-{src}-{i:02d}.npy", np.asarray(a))
                            count += 1
                print(target, dname, "done", file=sys.stderr)
    finally:
        _native.walk_target(here)
    print(f"{count} arrays in {where}")
    return 0


def compare(a: pathlib.Path, b: pathlib.Path) -> int:
    names = sorted(p.name for p in a.glob("*.npy"))
    other = sorted(p.name for p in b.glob("*.npy"))
    if names != other:
        print(f"the directories hold different files: {len(names)} and {len(other)}")
        return 1
    bad = [n for n in names if not np.array_equal(np.load(a / n), np.load(b / n), equal_nan=True)]
    nan = sum(int(np.isnan(np.load(a / n)).any()) for n in names)
    for n in bad:
        print("DIFFERENT:", n)
    print(f"{len(names)} arrays compared ({nan} holding NaN), {len(bad)} different")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("dump").add_argument("dir", type=pathlib.Path)
    c = sub.add_parser("compare")
    c.add_argument("a", type=pathlib.Path)
    c.add_argument("b", type=pathlib.Path)
    args = ap.parse_args()
    return dump(args.dir) if args.cmd == "dump" else compare(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
