"""Oracle fixture of issue 33's calibration measures: the REAL peers on seeded cases.

Runs torchmetrics' ``binary_calibration_error`` (norms l1 / l2 / max, ``debias``) and
``multiclass_calibration_error`` (top-label; its argmax choice among tied maxima), netcal's ``ECE``
and ``MCE`` (equal intervals) and statsmodels' binomial GLM (the calibration slope, the joint
intercept, and calibration-in-the-large as an offset fit) on seeded cases, and writes
``tests/oracles/fixtures/calibration.json``.  Never imports perfeval: the numbers come from the tools.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install torch==2.13.0 torchmetrics==1.9.0 netcal==1.4.0 statsmodels numpy
    /tmp/oracle-venv/bin/python tests/oracles/make_calibration_fixture.py

The committed fixture was made with Python 3.11, numpy 2.4.6, torch 2.13.0+cpu, torchmetrics 1.9.0,
netcal 1.4.0 and statsmodels 0.15.0 (each recorded in the fixture's header).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "fixtures" / "calibration.json"


def cases() -> list[dict]:
    rng = np.random.default_rng(33)
    out = []
    for i in range(24):
        n = int(rng.integers(5, 400))
        decimals = [1, 2, 3, 6][i % 4]  # few decimals: many ties, scores on the bin edges
        s = np.round(rng.beta(0.7 + rng.random() * 2, 0.7 + rng.random() * 2, n), decimals)
        if i % 6 == 5:  # some scores of exactly 1.0 and 0.0 (torchmetrics#3510)
            s[rng.random(n) < 0.15] = 1.0
            s[rng.random(n) < 0.05] = 0.0
        y = (rng.random(n) < np.clip(s ** (0.5 + rng.random() * 1.5), 0, 1)).astype(np.float64)
        out.append(
            {"name": f"case{i}", "y": y.tolist(), "s": s.tolist(), "n_bins": int([5, 10, 15, 7][i % 4])}
        )
    return out


def multiclass_cases() -> list[dict]:
    """K-class cases for top-label ECE: rows of probabilities with few decimals (rows tied at their
    maximum, confidences of exactly 1.0 in some cases).
    """
    rng = np.random.default_rng(3333)
    out = []
    for i in range(16):
        n, k = int(rng.integers(5, 300)), int(rng.integers(3, 7))
        p = rng.dirichlet(np.ones(k) * (0.3 + rng.random() * 2), n)
        decimals = [1, 2, 3, 6][i % 4]
        p = np.round(p, decimals)
        if i % 4 == 3:  # some one-hot rows: a confidence of exactly 1.0 (torchmetrics#3510)
            hot = rng.random(n) < 0.15
            p[hot] = np.eye(k)[rng.integers(0, k, int(hot.sum()))]
        p = np.clip(p, 0.0, 1.0)
        y = np.array([rng.choice(k, p=np.abs(r) / np.abs(r).sum()) if r.sum() > 0 else 0 for r in p])
        out.append(
            {"name": f"mc{i}", "k": k, "y": y.tolist(), "p": p.tolist(), "n_bins": int([5, 10, 15, 7][i % 4])}
        )
    return out


def main() -> None:
    import netcal
    import statsmodels
    import statsmodels.api as sm
    import torch
    import torchmetrics
    from netcal.metrics import ECE, MCE
    from torchmetrics.functional.classification import binary_calibration_error

    # binary_calibration_error has no debias argument: its debiased L2 form is the private _ce_compute
    _ce_compute = sys.modules["torchmetrics.functional.classification.calibration_error"]._ce_compute

    all_cases = cases()
    for c in all_cases:
        y, s, b = np.array(c["y"]), np.array(c["s"]), c["n_bins"]
        p, t = torch.tensor(s, dtype=torch.float64), torch.tensor(y, dtype=torch.long)
        tm = {}
        for norm in ("l1", "l2", "max"):
            tm[norm] = float(binary_calibration_error(p, t, n_bins=b, norm=norm))
        tm["l2_debias"] = float(_ce_compute(p, t.to(torch.float64), b, norm="l2", debias=True))
        c["torchmetrics"] = tm
        # the bin edges torchmetrics makes (torch.linspace: not always i / n_bins to the last bit)
        c["torch_edges"] = torch.linspace(0, 1, b + 1, dtype=torch.float64).tolist()
        c["netcal"] = {
            "ece": float(ECE(bins=b).measure(s, y.astype(int))),
            "mce": float(MCE(bins=b).measure(s, y.astype(int))),
        }
        fit = {}
        inside = (s > 0) & (s < 1)
        if inside.all() and 0 < y.sum() < len(y):
            L = np.log(s) - np.log1p(-s)
            try:
                j = sm.GLM(y, sm.add_constant(L), family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
                fit["intercept_joint"], fit["slope"] = float(j.params[0]), float(j.params[1])
            except Exception as e:  # separation: statsmodels raises
                fit["joint_error"] = type(e).__name__
            o = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=L).fit(
                tol=1e-14, maxiter=200
            )
            fit["intercept_offset"] = float(o.params[0])
        c["statsmodels"] = fit
    from torchmetrics.functional.classification import multiclass_calibration_error

    mc = multiclass_cases()
    for c in mc:
        p, t = torch.tensor(c["p"], dtype=torch.float64), torch.tensor(c["y"], dtype=torch.long)
        c["torchmetrics"] = {
            norm: float(multiclass_calibration_error(p, t, num_classes=c["k"], n_bins=c["n_bins"], norm=norm))
            for norm in ("l1", "l2", "max")
        }
        # torch.max's choice among a row's tied maxima (torchmetrics' prediction)
        c["torch_argmax"] = p.max(dim=1).indices.tolist()
        # multiclass_calibration_error casts the confidences to float32 (confidences.float()) and bins
        # them against float32 edges
        c["torch_edges32"] = torch.linspace(0, 1, c["n_bins"] + 1, dtype=torch.float32).tolist()
    header = {
        "tools": {
            "torchmetrics": torchmetrics.__version__,
            "torch": torch.__version__,
            "netcal": netcal.__version__,
            "statsmodels": statsmodels.__version__,
            "numpy": np.__version__,
        },
        "python_version": sys.version.split()[0],
        "generated_by": "tests/oracles/make_calibration_fixture.py",
        "seed": 33,
    }
    OUT.write_text(json.dumps({**header, "cases": all_cases, "multiclass": mc}, indent=None) + "\n")
    print(f"wrote {OUT} ({len(all_cases)} cases, {len(mc)} multiclass)")


if __name__ == "__main__":
    main()
