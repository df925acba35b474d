"""Write docs/examples/slices/applicants.csv: the sample of docs/slices.md, made up, deterministic.

1,500 loan applicants: whether each repaid (the target), a model's score (3 decimals, so ties
occur), the region (north, south, east, west; west small, its scores worse), the age band (18-29,
30-49, 50+), the channel (web, branch), and a handful from the islands, every one of whom repaid
(a one-class slice: its ROC area is undefined).  Run: python docs/examples/slices/make_example.py
"""

from __future__ import annotations

import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "applicants.csv"


def main() -> None:
    rng = np.random.default_rng(34)
    n = 1500
    region = rng.choice(["north", "south", "east", "west"], n, p=[0.35, 0.3, 0.27, 0.08])
    age = rng.choice(["18-29", "30-49", "50+"], n, p=[0.3, 0.45, 0.25])
    channel = rng.choice(["web", "branch"], n, p=[0.6, 0.4])
    ability = rng.normal(0, 1, n)
    repaid = (rng.random(n) < 1 / (1 + np.exp(-(1.2 * ability + 0.6)))).astype(int)
    noise = np.where(region == "west", 1.6, 0.8) + np.where(age == "18-29", 0.3, 0.0)
    score = 1 / (1 + np.exp(-(1.1 * ability + rng.normal(0, noise) + 0.5)))
    region = region.astype(object)
    region[:6] = "islands"
    repaid[:6] = 1
    lines = ["repaid,score,region,age,channel"]
    lines += [
        f"{t},{s:.3f},{r},{a},{c}" for t, s, r, a, c in zip(repaid, score, region, age, channel, strict=True)
    ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
