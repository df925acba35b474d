"""Oracle fixtures of the operating points (issue 33), torchmetrics' binary functions on seeded cases.
Never imports perfeval: the numbers come from torchmetrics alone.

* tests/oracles/fixtures/torchmetrics_operating.json, for tests/test_operating_points.py: the exact
  functions (``thresholds=None``) on float32 tensors of scores exact in float32, against perfeval's
  own rules (where the definitions agree);
* tests/oracles/fixtures/torchmetrics_operating_dialect.json, for
  tests/test_operating_torchmetrics.py: the dialect's convention, float64 tensors, exact and binned
  (``thresholds=5``, ``100``), on the inputs where torchmetrics' own rules show: ties of both
  classes, distinct scores, scores outside [0, 1] (logits: its sigmoid, some saturating to 1.0),
  scores of exactly 0.0 and 1.0, one class only, one case; each call's value and threshold (or
  the exception torchmetrics raises), TPR at FPR as ``binary_sensitivity_at_specificity(
  min_specificity=1 - max_fpr)``.  torchmetrics takes no weights: the cases are unweighted.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install torch==2.13.0 torchmetrics==1.9.0 numpy==2.4.6
    /tmp/oracle-venv/bin/python tests/oracles/make_operating_fixtures.py

The first fixture's scores are multiples of 1/32 (ties of both classes) or of 1/4096 (few ties)
below 1, exact in float32, so torchmetrics' float32 thresholds are the scores themselves; the
targets are never a rate the data can reach exactly (0.8123, not 0.8), except 0 and 1, so that
float32 and float64 rates meet them alike.  The second's targets include rates the data reach
exactly (0.5, 0.8), where float32 rounding decides.  Format: ``{"tool", "version", "torch",
"cases": [{"name", "y", "s", "results": [{"function", "target", "value", "threshold"}]}]}`` (the
second's results also ``"thresholds"``: 0 for None, and ``"error"``: the exception's type where
torchmetrics raises), NaN as the string ``"nan"``.
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


#: the dialect fixture's calls: (name, function, its target parameter, whether the target is 1 - given)
DIALECT_FUNCTIONS = [
    ("tpr_at_fpr", binary_sensitivity_at_specificity, "min_specificity", True),
    *[(name, fn, kw, False) for name, (fn, kw) in FUNCTIONS.items()],
]
DIALECT_TARGETS = [0.0, 0.1, 0.5, 0.8, 0.95, 1.0]
DIALECT_THRESHOLDS = [0, 5, 100]


def dialect_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(3301)
    out = []
    for i in range(18):
        n = int(rng.integers(3, 90))
        y = (rng.random(n) < rng.uniform(0.15, 0.85)).astype(np.int64)
        shift = 0.25 * (y - 0.5) * rng.uniform(0, 3)
        kind = ("ties", "distinct", "logits", "saturating", "edges", "ties")[i % 6]
        if kind == "ties":
            s = np.floor(np.clip(rng.normal(0.5 + shift, 0.2), 0, 0.999) * 8) / 8
        elif kind == "distinct":
            s = np.clip(rng.normal(0.5 + shift, 0.2), 0, 1)
        elif kind == "logits":
            s = np.round(rng.normal(4 * shift, 2.5), 1)
        elif kind == "saturating":
            s = np.round(rng.normal(20 * shift, 30))
        else:  # exactly 0.0 and 1.0 among them
            s = np.floor(np.clip(rng.normal(0.5 + shift, 0.35), 0, 1) * 4) / 4
        out.append((f"{kind}-{i}", y, s + 0.0))
    rng2 = np.random.default_rng(3302)
    out.append(("one-class-positive", np.ones(7, np.int64), np.floor(rng2.random(7) * 8) / 8))
    out.append(("one-class-negative", np.zeros(7, np.int64), np.floor(rng2.random(7) * 8) / 8))
    out.append(("one-class-negative-logits", np.zeros(5, np.int64), np.array([-2.0, 0.5, 3.0, 3.0, 7.5])))
    out.append(("all-tied", np.array([1, 0, 1, 0, 0]), np.full(5, 0.5)))
    out.append(("one-case", np.array([1]), np.array([0.25])))
    out.append(("reversed", np.array([1, 1, 0, 0]), np.array([0.125, 0.25, 0.5, 0.75])))
    return out


def dialect_fixture() -> list[dict]:
    recorded = []
    for name, y, s in dialect_cases():
        results = []
        for fname, fn, kw, complement in DIALECT_FUNCTIONS:
            for t in DIALECT_TARGETS:
                for T in DIALECT_THRESHOLDS:
                    import warnings

                    row: dict = {"function": fname, "target": t, "thresholds": T}
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            v, thr = fn(
                                torch.tensor(s, dtype=torch.float64),
                                torch.tensor(y),
                                thresholds=T or None,
                                **{kw: 1 - t if complement else t},
                            )
                            row.update(value=num(float(v)), threshold=num(float(thr)))
                        except Exception as e:  # torchmetrics' own failure, recorded as such
                            row.update(error=type(e).__name__)
                    results.append(row)
        recorded.append({"name": name, "y": y.tolist(), "s": s.tolist(), "results": results})
    return recorded


def write(path: Path, recorded: list[dict], note: str) -> None:
    doc = {
        "tool": "torchmetrics",
        "version": torchmetrics.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "generated_by": "tests/oracles/make_operating_fixtures.py",
        **({"note": note} if note else {}),
        "cases": recorded,
    }
    head = json.dumps({k: v for k, v in doc.items() if k != "cases"})[:-1]
    body = ",\n".join(json.dumps(c) for c in recorded)
    path.write_text(f'{head}, "cases": [\n{body}\n]}}\n')  # one case a line


def calls(in_path: Path, out_path: Path) -> None:
    """``--calls IN OUT``: the calls of IN (``[{"y", "s", "calls": [[function, target, thresholds]]}]``)
    made, their results written to OUT as the dialect fixture's (a list of results a case): the live
    check of tests/test_operating_torchmetrics.py.
    """
    import warnings

    fns = {name: (fn, kw, complement) for name, fn, kw, complement in DIALECT_FUNCTIONS}
    out = []
    for case in json.loads(in_path.read_text()):
        s, y = torch.tensor(case["s"], dtype=torch.float64), torch.tensor(case["y"])
        results = []
        for fname, t, T in case["calls"]:
            fn, kw, complement = fns[fname]
            row: dict = {"function": fname, "target": t, "thresholds": T}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    v, thr = fn(s, y, thresholds=T or None, **{kw: 1 - t if complement else t})
                    row.update(value=num(float(v)), threshold=num(float(thr)))
                except Exception as e:  # torchmetrics' own failure, recorded as such
                    row.update(error=type(e).__name__)
            results.append(row)
        out.append(results)
    out_path.write_text(json.dumps(out))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--calls":
        calls(Path(sys.argv[2]), Path(sys.argv[3]))
        return
    here = Path(__file__).resolve().parent / "fixtures"
    out_path = Path(sys.argv[1]) if len(sys.argv) > 1 else here / "torchmetrics_operating.json"
    dialect_path = Path(sys.argv[2]) if len(sys.argv) > 2 else here / "torchmetrics_operating_dialect.json"
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
    write(out_path, recorded, "")
    write(
        dialect_path,
        dialect_fixture(),
        "float64 tensors (the dialect's convention); thresholds 0 is None; TPR at FPR a is "
        "binary_sensitivity_at_specificity(min_specificity=1 - a)",
    )


if __name__ == "__main__":
    main()
