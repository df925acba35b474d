"""Writes proba.csv (a score column a class, as pandas writes predict_proba) and long.csv (the same
cases, a row a case and class, the true class marked 0/1): docs/input.md, "Multiclass".
"""

import numpy as np
import pandas as pd

rng = np.random.default_rng(32)
classes = ["cat", "dog", "bird"]
n = 12
y = np.array(classes)[rng.integers(0, 3, n)]
p = rng.dirichlet([1.0, 1.0, 1.0], n).round(3)
p[:, 2] = (1 - p[:, 0] - p[:, 1]).round(3)  # rows that sum to 1 as written
wide = pd.DataFrame(p, columns=[f"p_{c}" for c in classes])
wide.insert(0, "label", y)
wide.insert(0, "case", np.arange(101, 101 + n))
wide.to_csv("proba.csv", index=False)
rows = [
    {"case": r.case, "cls": c, "p": getattr(r, f"p_{c}"), "is_true": int(r.label == c)}
    for r in wide.itertuples()
    for c in classes
]
pd.DataFrame(rows).to_csv("long.csv", index=False)
