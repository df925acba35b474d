"""Fixture of the logistic recalibration's values BEFORE its fits moved into one compiled Newton
iteration (csrc/calibration.c logit_fit): perfeval at da424ca, whose fits iterated in numpy over the
sums of the kernel logit_pass, from the null fit, summed cell by cell.  The test
(tests/test_calibration_kernels.py) compares both with the maximum likelihood in 50 digits: the new
values are at least as close to it.

How to run (by hand; the fixture is committed): with ``PYTHONPATH`` at the ``src/`` of a checkout of
da424ca whose compiled module is built (``pip install -e .`` of that checkout in a scratch venv, or
a copy of its ``src/`` with its ``_native*.so``, as the committed fixture was made)::

    PYTHONPATH=/tmp/perfeval-da424ca/src python tests/oracles/make_calibration_fits_before_fixture.py

It refuses to run against a perfeval without the old kernel (``_native.logit_pass``).  The cases:
seeded random sets of cells with ties and weights, the groups of a seeded random search where the
two implementations differed by more than 1e-12 (relative), and groups whose slope is negative
(the fit must find it from the calibrated start too).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "fixtures" / "calibration_fits_before.json"


def _cells(s: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sc = np.unique(s)
    cell = np.searchsorted(sc, s)
    pos = np.bincount(cell, weights=w * y, minlength=len(sc))
    wt = np.bincount(cell, weights=w, minlength=len(sc))
    return np.log(sc) - np.log1p(-sc), pos, wt


def random_cases() -> list[dict]:
    out = []
    for seed in range(60):
        rng = np.random.default_rng(1000 + seed)
        n = int(rng.integers(20, 400))
        s = np.round(rng.beta(2, 2, n), int(rng.integers(2, 6))).clip(1e-4, 1 - 1e-4)
        y = (rng.random(n) < s ** rng.uniform(0.3, 3)).astype(float)
        w = rng.integers(1, 4, n).astype(float) if seed % 2 else rng.random(n) * 3 + 0.1
        x, pos, wt = _cells(s, y, w)
        out.append({"kind": "random", "seed": seed, "x": x.tolist(), "pos": pos.tolist(), "wt": wt.tolist()})
    return out


def search_group(seed: int, group: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One group of the seeded search: rows of scores of four shapes, targets drawn from a logistic
    recalibration of them (a in [-2, 2], b in [-1, 4]), random groups, weights every third seed.
    """
    rng = np.random.default_rng(5000 + seed)
    n = int(rng.integers(200, 20000))
    G = int(rng.integers(1, max(2, n // 5)))
    kind = seed % 4
    if kind == 0:
        s = rng.random(n)
    elif kind == 1:
        s = 1 / (1 + np.exp(-rng.normal(0, 6, n)))
    elif kind == 2:
        s = np.round(rng.beta(0.5, 3, n), 3).clip(1e-3, 1 - 1e-3)
    else:
        s = rng.random(n) ** 3
    b, a = rng.uniform(-1, 4), rng.uniform(-2, 2)
    z = a + b * np.log(s / (1 - s))
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    g = rng.integers(0, G, n)
    w = np.ones(n) if seed % 3 else rng.random(n) * 2 + 0.05
    m = g == np.unique(g)[group]
    return _cells(s[m], y[m], w[m])


#: (seed, group, fit): where the two implementations differed by more than 1e-12 relative
DIFFERED = [
    (25, 2362, "offset"),
    (28, 862, "joint"),
    (59, 889, "offset"),
    (59, 3340, "offset"),
    (65, 1438, "offset"),
    (72, 1613, "joint"),
    (105, 410, "offset"),
    (115, 313, "offset"),
]
#: groups of the search with a negative slope (b about -1.2, -0.9, -1.3)
NEGATIVE = [(9, 56), (9, 330), (9, 386)]


def main() -> None:
    import perfeval
    from perfeval import _native
    from perfeval.measures.calibration import fit_joint, fit_offset

    if not hasattr(_native, "logit_pass"):
        sys.exit("run with PYTHONPATH=<a checkout of da424ca>/src: this perfeval has the new fits")
    cases = random_cases()
    for seed, group, fit in DIFFERED:
        x, pos, wt = search_group(seed, group)
        cases.append(
            {
                "kind": "differed",
                "fit": fit,
                "seed": seed,
                "group": group,
                "x": x.tolist(),
                "pos": pos.tolist(),
                "wt": wt.tolist(),
            }
        )
    for seed, group in NEGATIVE:
        x, pos, wt = search_group(seed, group)
        cases.append(
            {
                "kind": "negative",
                "seed": seed,
                "group": group,
                "x": x.tolist(),
                "pos": pos.tolist(),
                "wt": wt.tolist(),
            }
        )
    for c in cases:
        x, pos, wt = (np.array(c[k]) for k in ("x", "pos", "wt"))
        a, b = fit_joint(x, pos, wt)
        c["before"] = {"joint": [a, b], "offset": fit_offset(x, pos, wt)}
    OUT.write_text(
        json.dumps(
            {
                "generated_by": "tests/oracles/make_calibration_fits_before_fixture.py",
                "perfeval": f"{perfeval.__version__} at da424ca (numpy Newton over logit_pass)",
                "numpy": np.__version__,
                "python_version": sys.version.split()[0],
                "cases": cases,
            }
        )
    )
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
