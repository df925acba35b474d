"""Write src/perfeval/data/clicks.csv: the bundled recommender-style sample (``perfeval sample
clicks.csv``), made up, deterministic.

300 users (64-bit ids) with 4 to 40 impressions each; per impression an item id, a click (0/1), a
graded relevance (0 not clicked, 1 clicked, 2 added to the cart, 3 bought) and two models' scores
printed with 3 decimals, so ties occur as they do in real logs.  model_b is a little better than
model_a.  Run: python docs/examples/make_clicks.py
"""

from __future__ import annotations

import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[2] / "src" / "perfeval" / "data" / "clicks.csv"


def main() -> None:
    rng = np.random.default_rng(2004)
    users = np.unique(rng.integers(10**18, 10**18 + 10**12, size=300))  # 64-bit ids beyond a float
    rows = []
    for u in users:
        n = int(rng.integers(4, 41))
        taste = rng.normal(0, 1, n)  # how much the user likes each item (hidden)
        p = 1 / (1 + np.exp(-(taste * 1.6 - 1.4)))
        click = (rng.random(n) < p).astype(int)
        grade = click * (1 + (rng.random(n) < 0.35 + 0.1 * taste).astype(int) + (rng.random(n) < 0.1))
        a = 1 / (1 + np.exp(-(0.8 * taste + rng.normal(0, 1.1, n) - 1.2)))
        b = 1 / (1 + np.exp(-(1.0 * taste + rng.normal(0, 0.9, n) - 1.2)))
        items = rng.integers(10**6, 10**7, n)
        for i in range(n):
            rows.append(f"{u},{items[i]},{click[i]},{grade[i]},{a[i]:.3f},{b[i]:.3f}")
    OUT.write_text("user,item,click,grade,model_a,model_b\n" + "\n".join(rows) + "\n")
    print(f"wrote {OUT} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
