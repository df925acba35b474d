"""Oracle fixture of the ``netcal`` dialect: netcal's ``ECE`` and ``MCE`` (equal intervals) on seeded
cases where they differ from perfeval's: scores tied on np.linspace's edges (an ulp off k / n_bins),
scores of exactly 0 and 1 (netcal clips to [eps, 1 - eps]), scores outside [0, 1] (clipped too), one
class only; and K classes (the top label: netcal's argmax takes the first class of a tied row, two
columns are read as a binary problem on the second, targets holding two labels or fewer with more
than two columns raise).  Writes ``tests/oracles/fixtures/netcal.json``.  Never imports perfeval:
the numbers come from netcal.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install netcal==1.4.0 numpy
    /tmp/oracle-venv/bin/python tests/oracles/make_netcal_fixture.py

tests/test_netcal_dialect.py reads the fixture, and runs netcal live (this module's ``run``) when
/tmp/oracle-venv has it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "fixtures" / "netcal.json"


def binary_cases() -> list[dict]:
    rng = np.random.default_rng(3304)
    out = []
    for i in range(24):
        n = int(rng.integers(3, 300))
        decimals = [1, 2, 1, 3][i % 4]  # few decimals: ties, and scores on the bin edges
        s = np.round(rng.random(n), decimals)
        if i % 3 == 1:  # exactly 0 and 1
            s[rng.random(n) < 0.2] = 1.0
            s[rng.random(n) < 0.2] = 0.0
        if i % 8 == 7:  # outside [0, 1]: netcal clips them
            s[: max(1, n // 10)] = 1.25
            s[-1] = -0.5
        y = (rng.random(n) < np.clip(s, 0, 1) ** 0.8).astype(int)
        if i % 12 == 5:
            y[:] = 1  # one class only
        out.append({"name": f"b{i}", "y": y.tolist(), "s": s.tolist(), "n_bins": int([10, 5, 15, 20][i % 4])})
    return out


def class_cases() -> list[dict]:
    rng = np.random.default_rng(3305)
    out = []
    for i in range(16):
        n, k = int(rng.integers(4, 200)), int([3, 4, 5, 2][i % 4])
        p = np.round(rng.dirichlet(np.ones(k) * (0.4 + rng.random()), n), [1, 2, 3, 1][i % 4])
        if i % 4 == 1:  # one-hot rows: a confidence of exactly 1.0
            hot = rng.random(n) < 0.2
            p[hot] = np.eye(k)[rng.integers(0, k, int(hot.sum()))]
        y = rng.integers(0, k, n)
        if i == 6:
            y = rng.integers(0, 2, n)  # two labels only of k > 2 columns: netcal raises
        out.append(
            {"name": f"k{i}", "k": k, "y": y.tolist(), "p": p.tolist(), "n_bins": int([10, 7, 15, 10][i % 4])}
        )
    return out


def run(y: list, s: list, n_bins: int) -> dict:
    """netcal's ECE and MCE of one case (its error's name where it raises)."""
    from netcal.metrics import ECE, MCE

    out = {}
    for name, cls in (("ece", ECE), ("mce", MCE)):
        try:
            out[name] = float(cls(bins=n_bins).measure(np.asarray(s, dtype=np.float64), np.asarray(y)))
        except Exception as e:  # netcal's own refusal, recorded
            out[name + "_error"] = type(e).__name__
    return out


def main() -> None:
    import netcal

    cases = binary_cases()
    for c in cases:
        c["netcal"] = run(c["y"], c["s"], c["n_bins"])
    classes = class_cases()
    for c in classes:
        c["netcal"] = run(c["y"], c["p"], c["n_bins"])
    header = {
        "tools": {"netcal": netcal.__version__, "numpy": np.__version__},
        "python_version": sys.version.split()[0],
        "generated_by": "tests/oracles/make_netcal_fixture.py",
    }
    OUT.write_text(json.dumps({**header, "binary": cases, "classes": classes}) + "\n")
    print(f"wrote {OUT} ({len(cases)} binary cases, {len(classes)} of K classes)")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--one":  # one case on stdin (the live test)
        case = json.loads(sys.stdin.read())
        print(json.dumps(run(case["y"], case["s"], case["n_bins"])))
    else:
        main()
