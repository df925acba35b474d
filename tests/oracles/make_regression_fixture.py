"""Oracle fixture of the regression measures (issue 33): torchmetrics' regression functions on seeded
cases, recorded in tests/oracles/fixtures/torchmetrics_regression.json for
tests/test_regression_explain.py (the torchmetrics row of ``perfeval explain`` of a regression
target).  Never imports perfeval: the numbers come from torchmetrics alone.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install torch==2.13.0 torchmetrics==1.9.0 numpy==2.4.6
    /tmp/oracle-venv/bin/python tests/oracles/make_regression_fixture.py

The tensors are float64 (torchmetrics computes in the tensors' dtype).  The cases: plain data,
rounded data (ties), targets of 0 and below 1.17e-06 in size (MAPE's epsilon), a constant target,
a nearly constant one (total sum of squares below torchmetrics' 1e-4), a nearly perfect prediction
(residual sum of squares below 1e-4), a large mean with a small spread (the one-pass sum of squares
loses digits), one row, two rows, 5,000 rows, positive data for the deviances, and the example of
docs/dialects.md (docs/examples/explain/demand.csv).  Format:
``{"tool", "version", "torch", "numpy", "cases": [{"name", "y", "p", "results": {function: value
or {"error": message}}}]}``, NaN as the string ``"nan"``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import torch
import torchmetrics
from torchmetrics.functional.regression import (
    explained_variance,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_log_error,
    r2_score,
    tweedie_deviance_score,
)

FUNCTIONS = {
    "mean_absolute_error": lambda p, y: mean_absolute_error(p, y),
    "mean_squared_error": lambda p, y: mean_squared_error(p, y),
    "mean_squared_error(squared=False)": lambda p, y: mean_squared_error(p, y, squared=False),
    "r2_score": lambda p, y: r2_score(p, y),
    "explained_variance": lambda p, y: explained_variance(p, y),
    "mean_absolute_percentage_error": lambda p, y: mean_absolute_percentage_error(p, y),
    "tweedie_deviance_score(power=1)": lambda p, y: tweedie_deviance_score(p, y, power=1.0),
    "tweedie_deviance_score(power=2)": lambda p, y: tweedie_deviance_score(p, y, power=2.0),
    "tweedie_deviance_score(power=1.5)": lambda p, y: tweedie_deviance_score(p, y, power=1.5),
    "tweedie_deviance_score(power=-1)": lambda p, y: tweedie_deviance_score(p, y, power=-1.0),
    "mean_squared_log_error": lambda p, y: mean_squared_log_error(p, y),
}


def cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(33)
    out = []
    for i in range(6):
        n = int(rng.integers(10, 200))
        y = rng.normal(size=n) * 3 + 5
        out.append((f"plain-{i}", y, y + rng.normal(size=n)))
    for i in range(3):
        n = int(rng.integers(10, 60))
        y = np.round(rng.normal(size=n) * 2, 1)
        out.append((f"ties-{i}", y, np.round(y + rng.normal(size=n), 1)))
    y = np.round(rng.normal(size=40), 1)
    y[:5] = 0.0
    out.append(("zero-targets", y, y + rng.normal(size=40) * 0.3))
    y = rng.normal(size=30)
    y[:4] = [0.0, 3e-7, -5e-7, 1.1e-6]
    out.append(("tiny-targets", y, y + rng.normal(size=30) * 0.1))
    out.append(("constant-target", np.full(20, 2.5), 2.5 + rng.normal(size=20)))
    out.append(("constant-perfect", np.full(20, 2.5), np.full(20, 2.5)))
    y = 1.0 + rng.normal(size=50) * 1e-3
    out.append(("near-constant-target", y, 1.0 + rng.normal(size=50)))
    y = rng.normal(size=50) * 4
    out.append(("near-perfect", y, y + rng.normal(size=50) * 1e-4))
    y = 1e6 + rng.normal(size=100)
    out.append(("large-mean", y, y + rng.normal(size=100) * 0.1))
    y = 1e3 + rng.normal(size=100)
    out.append(("moderate-mean", y, y + rng.normal(size=100) * 0.3))
    out.append(("one-row", np.array([1.5]), np.array([2.0])))
    out.append(("two-rows", np.array([1.5, 3.0]), np.array([2.0, 2.5])))
    y = rng.normal(size=5000) * 3 + 5
    out.append(("n5000", y, y + rng.normal(size=5000)))
    for i in range(3):
        n = int(rng.integers(10, 100))
        y = np.abs(rng.normal(size=n) * 3) + 0.1
        out.append((f"positive-{i}", y, np.abs(y + rng.normal(size=n)) + 0.1))
    y = np.abs(rng.normal(size=30))
    y[:3] = 0.0
    out.append(("positive-with-zeros", y, np.abs(y + rng.normal(size=30)) + 0.1))
    # docs/dialects.md's example of explain (docs/examples/explain/demand.csv)
    demand = Path(__file__).resolve().parents[2] / "docs" / "examples" / "explain" / "demand.csv"
    table = np.loadtxt(demand, delimiter=",", skiprows=1)
    out.append(("docs-demand", table[:, 0], table[:, 1]))
    return out


def value(v: float) -> float | str:
    return "nan" if math.isnan(v) else v


def main() -> None:
    torch.set_default_dtype(torch.float64)
    out = []
    for name, y, p in cases():
        yt, pt = torch.tensor(y, dtype=torch.float64), torch.tensor(p, dtype=torch.float64)
        results: dict[str, object] = {}
        for fn, call in FUNCTIONS.items():
            try:
                results[fn] = value(float(call(pt, yt)))
            except (ValueError, RuntimeError) as e:
                results[fn] = {"error": str(e).splitlines()[0]}
        out.append({"name": name, "y": y.tolist(), "p": p.tolist(), "results": results})
    doc = {
        "tool": "torchmetrics",
        "version": torchmetrics.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "dtype": "float64",
        "generated_by": "tests/oracles/make_regression_fixture.py",
        "cases": out,
    }
    path = Path(__file__).resolve().parent / "fixtures" / "torchmetrics_regression.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path} ({len(out)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
