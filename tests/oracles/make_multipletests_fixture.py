"""Oracle fixture of the multiple-testing corrections (issue 34): statsmodels' ``multipletests`` on
seeded families of p-values, recorded in tests/oracles/fixtures/multipletests.json for
tests/test_stats_corrections.py (``perfeval.stats.paired.correct``: Holm, Bonferroni and
Benjamini-Hochberg).  Never imports perfeval: the numbers come from statsmodels alone.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install statsmodels==0.15.0 numpy
    /tmp/oracle-venv/bin/python tests/oracles/make_multipletests_fixture.py

The families: uniform p-values of several sizes, small ones (most rejected), ties, zeros and ones,
one p-value, values that put the step-up's minimum far from the end, and 300 (a slicing's slices).
Format: ``{"generated_by", "tool", "version", "numpy", "cases": [{"name", "p", "holm", "bonferroni",
"fdr_bh"}]}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import statsmodels
from statsmodels.stats.multitest import multipletests

METHODS = ("holm", "bonferroni", "fdr_bh")


def cases() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(34)
    out = [(f"uniform-{n}", rng.random(n)) for n in (2, 5, 10, 40)]
    out.append(("small", rng.random(20) * 0.01))
    out.append(("mixed", np.concatenate([rng.random(10) * 0.001, rng.random(10)])))
    out.append(("ties", np.round(rng.random(25), 1)))
    out.append(("zeros-and-ones", np.array([0.0, 1.0, 0.0, 0.5, 1.0, 0.02])))
    out.append(("one", np.array([0.03])))
    out.append(("step-up", np.array([0.01, 0.011, 0.012, 0.013, 0.9, 0.04, 0.041])))
    out.append(("bootstrap-floor", np.array([2 / 1001] * 5 + [0.3, 0.7])))
    out.append(("slices-300", np.concatenate([rng.random(280), rng.random(20) * 1e-3])))
    return out


def main() -> None:
    out = []
    for name, p in cases():
        row: dict[str, object] = {"name": name, "p": p.tolist()}
        for method in METHODS:
            row[method] = multipletests(p, method=method)[1].tolist()
        out.append(row)
    doc = {
        "generated_by": "tests/oracles/make_multipletests_fixture.py",
        "tool": "statsmodels",
        "version": statsmodels.__version__,
        "numpy": np.__version__,
        "cases": out,
    }
    path = Path(__file__).resolve().parent / "fixtures" / "multipletests.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    sys.stdout.write(f"wrote {path} ({len(out)} cases)\n")


if __name__ == "__main__":
    main()
