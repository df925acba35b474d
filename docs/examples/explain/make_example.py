"""Writes zoo.csv (docs/dialects.md, "explain of K classes"): 20 animals scored over four classes by
a model's predict_proba rounded to two decimals, as pandas writes it; no fish among them, and rows
tied at the top or across the second place.
"""

import numpy as np
import pandas as pd

rng = np.random.default_rng(2002)
classes = ["cat", "dog", "bird", "fish"]
n = 20
y = np.array(classes[:3])[rng.integers(0, 3, n)]
p = rng.dirichlet([2.0, 2.0, 2.0, 1.0], n).round(2)
p[:3] = [[0.4, 0.4, 0.1, 0.1], [0.3, 0.3, 0.3, 0.1], [0.5, 0.2, 0.2, 0.1]]  # ties at the top, at the 2nd
p[:, 3] = (1 - p[:, :3].sum(axis=1)).round(2)  # rows that sum to 1 as written
table = pd.DataFrame(p, columns=[f"p_{c}" for c in classes])
table.insert(0, "animal", y)
table.to_csv("zoo.csv", index=False)

# demand.csv (docs/dialects.md, "explain of a regression target"): units sold of 16 products and a
# forecast to one decimal, two products sold none (MAPE undefined there)
rng = np.random.default_rng(2033)
sold = rng.poisson(12, 16)
sold[[3, 11]] = 0
forecast = np.round(np.maximum(sold + rng.normal(0, 3, 16), 0.5), 1)
pd.DataFrame({"sold": sold, "forecast": forecast}).to_csv("demand.csv", index=False)
