"""Oracle fixture of the operating points (issue 33): torchmetrics' exact binary functions
(``thresholds=None``) on seeded cases, recorded in tests/oracles/fixtures/torchmetrics_operating.json
for tests/test_operating_points.py.  Never imports perfeval: the numbers come from torchmetrics alone.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install torch==2.13.0 torchmetrics==1.9.0 numpy==2.4.6
    /tmp/oracle-venv/bin/python tests/oracles/make_operating_fixtures.py

The scores are multiples of 1/32 (ties of both classes) or of 1/4096 (few ties) below 1, exact in
float32, so torchmetrics' float32 thresholds are the scores themselves; the targets are never a rate
the data can reach exactly (0.8123, not 0.8), except 0 and 1, so that float32 and float64 rates
meet them alike.  Format: ``{"tool", "version", "torch", "cases": [{"name", "y", "s", "results":
[{"function", "target", "value", "threshold"}]}]}``, NaN as the string ``"nan"``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import torch
import torchmetrics
from torchmetrics.functional.classification import (
    binary_precision_at_fixed_recall,
    binary_recall_at_fixed_precision,
    binary_sensitivity_at_specificity,
    binary_specificity_at_sensitivity,
)

FUNCTIONS = {
    "binary_sensitivity_at_specificity": (binary_sensitivity_at_specificity, "min_specificity"),
    "binary_specificity_at_sensitivity": (binary_specificity_at_sensitivity, "min_sensitivity"),
    "binary_precision_at_fixed_recall": (binary_precision_at_fixed_recall, "min_recall"),
    "binary_recall_at_fixed_precision": (binary_recall_at_fixed_precision, "min_precision"),
}
TARGETS = [0.0, 0.05123, 0.3123, 0.5123, 0.8123, 0.95123, 1.0]


def cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(33)
    out = []
    for i in range(24):
        n = int(rng.integers(5, 120))
        grid = 32 if i % 2 == 0 else 4096
        y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.int64)
        s = np.clip(rng.normal(0.5 + 0.2 * (y - 0.5) * rng.uniform(-1, 3), 0.2), 0, 0.99)
        s = np.floor(s * grid) / grid
        out.append((f"case-{i}-grid{grid}", y, s))
    rng2 = np.random.default_rng(34)
    out.append(("one-class-positive", np.ones(6, np.int64), np.floor(rng2.random(6) * 32) / 32))
    out.append(("one-class-negative", np.zeros(6, np.int64), np.floor(rng2.random(6) * 32) / 32))
    out.append(("all-tied", np.array([1, 0, 1, 0, 0]), np.full(5, 0.5)))
    out.append(("reversed", np.array([1, 1, 0, 0]), np.array([0.125, 0.25, 0.5, 0.75])))
    return out


def num(x: float) -> float | str:
    return "nan" if math.isnan(x) else x


def main() -> None:
    out_path = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else (Path(__file__).resolve().parent / "fixtures" / "torchmetrics_operating.json")
    )
    recorded = []
    for name, y, s in cases():
        results = []
        for fname, (fn, kw) in FUNCTIONS.items():
            for t in TARGETS:
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    v, thr = fn(torch.tensor(s, dtype=torch.float32), torch.tensor(y), **{kw: t})
                results.append(
                    {"function": fname, "target": t, "value": num(float(v)), "threshold": num(float(thr))}
                )
        recorded.append({"name": name, "y": y.tolist(), "s": s.tolist(), "results": results})
    doc = {
        "tool": "torchmetrics",
        "version": torchmetrics.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "generated_by": "tests/oracles/make_operating_fixtures.py",
        "cases": recorded,
    }
    head = json.dumps({k: v for k, v in doc.items() if k != "cases"})[:-1]
    body = ",\n".join(json.dumps(c) for c in recorded)
    out_path.write_text(f'{head}, "cases": [\n{body}\n]}}\n')  # one case a line


if __name__ == "__main__":
    main()
