"""Oracle fixture: R's pROC on seeded cases, its DeLong area, variance, interval and tests recorded.

``tests/oracles/fixtures/proc.json`` holds what pROC itself returns (this script never imports
perfeval); ``tests/test_delong.py`` checks perfeval's DeLong (``perfeval.stats.delong``) and the
default test of ``perfeval.compare`` against every value.  What it records, per case:

- ``roc(y, s, direction="<", levels=c(0, 1))`` of each score: ``auc``, ``var`` (pROC's default,
  DeLong), ``ci.auc(method="delong")`` at levels 0.95 and 0.9 (pROC clips the interval to [0, 1]);
- ``roc.test(roc_a, roc_b)`` with pROC's defaults (the two curves come from one response, so pROC
  pairs them and picks its default method): ``method``, ``statistic``, ``p.value``;
- ``roc.test(roc_a, roc_b, paired=FALSE)``: the unpaired DeLong test.

How to run (by hand; nothing here runs in CI). R and pROC from Debian::

    apt-get install r-base-core r-cran-proc
    python3 tests/oracles/make_proc_fixture.py [--out tests/oracles/fixtures/proc.json]

The committed fixture was made with R 4.2.2 and pROC 1.18.0 (Debian bookworm's r-cran-proc); the
fixture records its versions.  numpy (any version) makes the seeded cases.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

SEED = 20260
HERE = Path(__file__).resolve().parent

R_PROGRAM = r"""
suppressMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
num <- function(x) sprintf("%.17g", as.numeric(x))
cat("version\tpROC\t", as.character(packageVersion("pROC")), "\n", sep = "")
cat("version\tR\t", R.version.string, "\n", sep = "")
for (id in unique(d$case)) {
  s <- d[d$case == id, ]
  ra <- roc(s$y, s$a, direction = "<", levels = c(0, 1), quiet = TRUE)
  rb <- roc(s$y, s$b, direction = "<", levels = c(0, 1), quiet = TRUE)
  for (nm in c("a", "b")) {
    r <- if (nm == "a") ra else rb
    cat(id, "\t", nm, ".auc\t", num(auc(r)), "\n", sep = "")
    cat(id, "\t", nm, ".var\t", num(suppressWarnings(var(r))), "\n", sep = "")
    for (lev in c(0.95, 0.9)) {
      ci <- suppressWarnings(ci.auc(r, conf.level = lev, method = "delong"))
      cat(id, "\t", nm, ".ci", lev, "\t", num(ci[1]), " ", num(ci[3]), "\n", sep = "")
    }
  }
  t <- suppressWarnings(roc.test(ra, rb))
  cat(id, "\tpaired.method\t", t$method, "\n", sep = "")
  cat(id, "\tpaired.statistic\t", num(t$statistic), "\n", sep = "")
  cat(id, "\tpaired.p\t", num(t$p.value), "\n", sep = "")
  u <- suppressWarnings(roc.test(ra, rb, paired = FALSE))
  cat(id, "\tunpaired.method\t", u$method, "\n", sep = "")
  cat(id, "\tunpaired.statistic\t", num(u$statistic), "\n", sep = "")
  cat(id, "\tunpaired.p\t", num(u$p.value), "\n", sep = "")
}
"""


def cases() -> list[dict]:
    """Seeded cases: ties (scores on coarse grids), sizes 6 to 3,000, areas near 1 and 0 (whose
    intervals pROC clips), and two scores of one ranking (a difference of 0)."""
    rng = np.random.default_rng(SEED)
    out = []
    for i in range(24):
        n = int(rng.choice([6, 9, 15, 40, 120, 500, 3000]))
        y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
        y[:2], y[2:4] = 1, 0  # two of each class: DeLong's variance needs them
        grid = int(rng.choice([2, 4, 10, 1000]))
        a = np.round((rng.random(n) + 0.6 * y) / 1.6 * grid) / grid
        b = np.round((rng.random(n) + rng.uniform(-0.3, 0.9) * y) / 1.9 * grid) / grid
        out.append({"name": f"random-{i}", "y": y.tolist(), "a": a.tolist(), "b": b.clip(0, 1).tolist()})
    y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    near_one = [0.9, 0.8, 0.7, 0.1, 0.2, 0.3, 0.95, 0.75, 0.6, 0.05]  # one pair out of order
    out.append({"name": "near-one", "y": y, "a": near_one, "b": [1 - v for v in near_one]})
    out.append({"name": "same-ranking", "y": y, "a": near_one, "b": [v / 2 for v in near_one]})
    return out


def run(out: Path) -> None:
    data = cases()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.csv"
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "y", "a", "b"])
            for c in data:
                for row in zip(c["y"], c["a"], c["b"], strict=True):
                    w.writerow([c["name"], row[0], repr(float(row[1])), repr(float(row[2]))])
        prog = Path(tmp) / "proc.R"
        prog.write_text(R_PROGRAM)
        text = subprocess.run(
            ["Rscript", str(prog), str(path)], capture_output=True, text=True, check=True
        ).stdout
    versions, results = {}, {c["name"]: {} for c in data}
    for line in text.splitlines():
        key, name, value = line.split("\t")
        if key == "version":
            versions[name] = value
        elif name.endswith("method"):
            results[key][name] = value
        elif ".ci" in name:
            results[key][name] = [float(v) for v in value.split()]
        else:
            results[key][name] = float(value)
    for c in data:
        c["results"] = results[c["name"]]
    doc = {
        "tool": "pROC",
        "version": versions["pROC"],
        "backend": versions["R"],
        "generated_by": "tests/oracles/make_proc_fixture.py",
        "seed": SEED,
        "cases": data,
    }
    out.write_text(json.dumps(doc, indent=None) + "\n")
    print(f"wrote {out} ({len(data)} cases)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "fixtures" / "proc.json"))
    a = ap.parse_args(argv)
    run(Path(a.out))


if __name__ == "__main__":
    main()
