"""Oracle fixture of the Wald intervals of the logistic calibration fits: statsmodels' GLM Binomial
and R's ``glm(family = binomial)`` on seeded cases, their coefficients, standard errors and
intervals recorded.  Never imports perfeval: the numbers come from the tools.

What it records, per case (``y`` 0/1, ``s`` scores in (0, 1) with ties, optional ``w`` weights):

- statsmodels (``L = log(s) - log1p(-s)``): ``GLM(y, add_constant(L), Binomial(),
  freq_weights=w)`` (the joint fit: intercept, slope) and ``GLM(y, ones, Binomial(), offset=L,
  freq_weights=w)`` (calibration-in-the-large), each ``params``, ``bse`` and ``conf_int(alpha)`` at
  levels 0.95 and 0.9;
- R: ``glm(y ~ L, family = binomial, weights = w)`` and ``glm(y ~ 1, offset = L, family = binomial,
  weights = w)``, ``coef`` and the standard errors of ``summary(fit)`` (R's Wald interval is
  ``confint.default``: coefficient -+ qnorm((1 + level) / 2) * se, recorded at both levels).  R
  runs only on the cases of whole-number weights (its binomial family warns of non-integer
  successes otherwise).

How to run (by hand, nothing here runs in CI)::

    /tmp/oracle-venv/bin/pip install statsmodels numpy     # the venv of make_calibration_fixture.py
    apt-get install r-base-core                            # Rscript
    /tmp/oracle-venv/bin/python tests/oracles/make_calibration_wald_fixture.py

The committed fixture was made with Python 3.11, statsmodels 0.15.0, numpy 2.4.6 and R 4.2.2 (each
recorded in the fixture's header).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "fixtures" / "calibration_wald.json"
LEVELS = (0.95, 0.9)

R_PROGRAM = r"""
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
num <- function(x) sprintf("%.17g", as.numeric(x))
cat("version\tR\t", R.version.string, "\n", sep = "")
for (id in unique(d$case)) {
  s <- d[d$case == id, ]
  L <- log(s$s) - log1p(-s$s)
  j <- glm(s$y ~ L, family = binomial, weights = s$w, control = glm.control(epsilon = 1e-14, maxit = 200))
  o <- glm(s$y ~ 1, offset = L, family = binomial, weights = s$w,
           control = glm.control(epsilon = 1e-14, maxit = 200))
  cj <- summary(j)$coefficients
  co <- summary(o)$coefficients
  cat(id, "\tjoint.params\t", num(cj[1, 1]), " ", num(cj[2, 1]), "\n", sep = "")
  cat(id, "\tjoint.bse\t", num(cj[1, 2]), " ", num(cj[2, 2]), "\n", sep = "")
  cat(id, "\toffset.params\t", num(co[1, 1]), "\n", sep = "")
  cat(id, "\toffset.bse\t", num(co[1, 2]), "\n", sep = "")
  for (lev in c(0.95, 0.9)) {
    cj <- confint.default(j, level = lev)
    cat(id, "\tjoint.ci", lev, "\t", num(cj[1, 1]), " ", num(cj[1, 2]), " ", num(cj[2, 1]), " ",
        num(cj[2, 2]), "\n", sep = "")
    co <- confint.default(o, level = lev)
    cat(id, "\toffset.ci", lev, "\t", num(co[1, 1]), " ", num(co[1, 2]), "\n", sep = "")
  }
}
"""


def cases() -> list[dict]:
    rng = np.random.default_rng(3333)
    out = []
    for i in range(16):
        n = int(rng.integers(20, 1500))
        decimals = [1, 2, 3, 6][i % 4]  # few decimals: ties
        s = np.clip(
            np.round(rng.beta(0.8 + 2 * rng.random(), 0.8 + 2 * rng.random(), n), decimals), 0.001, 0.999
        )
        y = (rng.random(n) < np.clip(s ** (0.5 + rng.random()), 0, 1)).astype(np.float64)
        kind = ["none", "counts", "fractional", "counts"][i % 4]
        w = None
        if kind == "counts":
            w = rng.integers(1, 5, n).astype(np.float64)
        elif kind == "fractional":
            w = np.round(rng.uniform(0.2, 3.0, n), 3)
        out.append(
            {"name": f"wald{i}", "y": y.tolist(), "s": s.tolist(), "w": None if w is None else w.tolist()}
        )
    return out


def statsmodels_fits(c: dict) -> dict:
    import statsmodels.api as sm

    y, s = np.array(c["y"]), np.array(c["s"])
    w = None if c["w"] is None else np.array(c["w"])
    L = np.log(s) - np.log1p(-s)
    fam = sm.families.Binomial()
    j = sm.GLM(y, sm.add_constant(L), family=fam, freq_weights=w).fit(tol=1e-14, maxiter=200)
    o = sm.GLM(y, np.ones((len(y), 1)), family=fam, offset=L, freq_weights=w).fit(tol=1e-14, maxiter=200)
    out = {
        "joint": {"params": j.params.tolist(), "bse": j.bse.tolist()},
        "offset": {"params": o.params.tolist(), "bse": o.bse.tolist()},
    }
    for lev in LEVELS:
        out["joint"][f"ci{lev:g}"] = j.conf_int(alpha=1 - lev).tolist()
        out["offset"][f"ci{lev:g}"] = o.conf_int(alpha=1 - lev).tolist()
    return out


def r_fits(all_cases: list[dict]) -> tuple[dict, str]:
    """R's glm of the cases of whole-number weights (or none), by case name; and R's version."""
    with tempfile.TemporaryDirectory() as tmp:
        data, prog = Path(tmp) / "d.csv", Path(tmp) / "fit.R"
        with data.open("w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["case", "y", "s", "w"])
            for c in all_cases:
                if c["w"] is not None and any(v != round(v) for v in c["w"]):
                    continue
                ws = c["w"] or [1.0] * len(c["y"])
                for yi, si, wi in zip(c["y"], c["s"], ws, strict=True):
                    wr.writerow([c["name"], int(yi), repr(si), repr(wi)])
        prog.write_text(R_PROGRAM)
        text = subprocess.run(
            ["Rscript", str(prog), str(data)], check=True, capture_output=True, text=True, timeout=300
        ).stdout
    got: dict = {}
    version = ""
    for line in text.splitlines():
        case, key, value = line.split("\t")
        if case == "version":
            version = value
            continue
        got.setdefault(case, {})[key] = [float(v) for v in value.split()]
    return got, version


def main() -> None:
    import statsmodels

    all_cases = cases()
    for c in all_cases:
        c["statsmodels"] = statsmodels_fits(c)
    r, r_version = r_fits(all_cases)
    for c in all_cases:
        if c["name"] in r:
            c["R"] = r[c["name"]]
    header = {
        "tools": {"statsmodels": statsmodels.__version__, "numpy": np.__version__, "R": r_version},
        "python_version": sys.version.split()[0],
        "generated_by": "tests/oracles/make_calibration_wald_fixture.py",
        "seed": 3333,
    }
    OUT.write_text(json.dumps({**header, "cases": all_cases}) + "\n")
    print(f"wrote {OUT} ({len(all_cases)} cases, {len(r)} with R)")


if __name__ == "__main__":
    main()
