"""Write the files of docs/dialects.md's examples (run in this folder: python make_example.py).

ties.csv: the three one-query cases of the tie study (shared/ANCHORS.md 3.4), documents d0.. in
input order.  clicks.csv: 20,000 seeded predictions with scores on a 1e-4 grid, as a CTR model's
rounded output, for the tools that bin scores (Spark, Keras, torchmetrics with thresholds).
"""

import numpy as np

cases = {
    "pos_first": ([1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]),
    "pos_last": ([0, 0, 0, 1], [0.5, 0.5, 0.5, 0.5]),
    "partial": ([0, 1, 0, 1, 0], [0.9, 0.7, 0.7, 0.3, 0.1]),
}
with open("ties.csv", "w") as f:
    f.write("query,doc,rel,score\n")
    for q, (rel, score) in cases.items():
        for i, (r, s) in enumerate(zip(rel, score)):
            f.write(f"{q},d{i},{r},{s}\n")

rng = np.random.default_rng(2004)
n = 20_000
click = (rng.random(n) < 0.05).astype(int)
score = np.clip(rng.beta(1, 12, n) + 0.08 * click * rng.random(n), 0, 1).round(4)
with open("clicks.csv", "w") as f:
    f.write("click,score\n")
    f.writelines(f"{c},{s:.4f}\n" for c, s in zip(click, score))
