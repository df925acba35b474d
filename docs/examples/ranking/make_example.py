"""Write the small judgments and runs of docs/ranking.md's worked example (seeded: the same files
every time).  40 TREC-style topics (301-340), each with a pool of 80 documents of which 30 are
judged (grades 0, 1, 2; some relevant ones never retrieved), and three runs of depth 50 that differ
in how strongly their scores follow the grades: ``bm25``, ``rm3`` (a little better) and ``dense``
(better at the top).

    python docs/examples/ranking/make_example.py      # writes qrels.txt, bm25.run, rm3.run, dense.run
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TOPICS, POOL, JUDGED, DEPTH = range(301, 341), 80, 30, 50


def main() -> None:
    rng = np.random.default_rng(2004)
    pools = {t: rng.choice(np.arange(10_000, 99_999), POOL, replace=False) for t in TOPICS}
    grades = {
        t: np.where(np.arange(POOL) < JUDGED, rng.choice(3, POOL, p=[0.6, 0.28, 0.12]), 0) for t in TOPICS
    }
    with open(HERE / "qrels.txt", "w") as f:
        for t in TOPICS:
            for doc, g in zip(pools[t][:JUDGED], grades[t][:JUDGED], strict=True):
                f.write(f"{t} 0 LA{doc:06d} {g}\n")
    for name, weight, top in (("bm25", 0.9, 0.0), ("rm3", 1.4, 0.0), ("dense", 0.8, 0.9)):
        with open(HERE / f"{name}.run", "w") as f:
            for t in TOPICS:
                g = grades[t]
                score = 10 + weight * g + top * (g == 2) + rng.normal(0, 1.1, POOL)
                score = np.round(score, 3)  # three decimals: a few ties
                order = np.argsort(-score, kind="stable")[:DEPTH]
                for rank, i in enumerate(order, 1):
                    f.write(f"{t} Q0 LA{pools[t][i]:06d} {rank} {score[i]:.3f} {name}\n")


if __name__ == "__main__":
    main()
