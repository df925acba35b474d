#!/usr/bin/env python3
"""perfeval.Metric over groups: the default (every row kept) against ``clustered=True`` (each group
finished as it ends, O(groups) kept), fed batches of whole groups as a per-user or per-query loader
gives them.

Run by hand (never in CI):

    python benchmarks/bench_metric_groups.py --rows 10000000 --groups 100000 --batch-groups 100 --runs 3

The data: ``--groups`` groups (random 64-bit user ids) of ``rows / groups`` rows each, 0/1 targets
at a per-group rate, float32 sigmoid scores, made batch by batch from a fixed seed inside every
way's timed loop (the ``feed`` way makes them and does nothing else: subtract it).  Each run, in a
fresh process (so that peak RSS is the run's own):

* ``feed``: the batches alone;
* ``default``: ``Metric(measures)``, ``update`` per batch, one ``compute``;
* ``clustered``: ``Metric(measures, clustered=True)``, the same;
* ``concat``: keep every batch, ``np.concatenate``, one ``evaluate`` (the reference);
* ``torchmetrics`` (when installed): a ``MetricCollection`` of the retrieval metrics of the measures
  it has (``ndcg@K``: ``RetrievalNormalizedDCG(top_k=K)``, ``map``: ``RetrievalMAP``, ``mrr``:
  ``RetrievalMRR``; one shared state), ``empty_target_action="skip"`` (perfeval leaves a group with
  no positive out of the mean; torchmetrics' default counts it as 0), ``update`` per batch with
  ``torch.from_numpy`` tensors (predictions first, the ids as ``indexes``), one ``compute``.

``default``, ``clustered`` and ``concat`` give the same bits for every measure (checked each run).
torchmetrics (float32) agrees within 2e-6 on NDCG; on MAP and MRR where no relevant case ties
(the script prints the groups where one does, and each difference).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import statistics
import subprocess
import sys
import time

MEASURES = ["gauc", "ndcg@10", "map", "mrr"]


def _torchmetrics(measures: list[str]):
    """torchmetrics' retrieval metric of each measure it has, by perfeval's label."""
    from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR, RetrievalNormalizedDCG

    out = {}
    for m in measures:
        if m.startswith("ndcg@"):
            out[f"NDCG@{m[5:]}"] = RetrievalNormalizedDCG(top_k=int(m[5:]), empty_target_action="skip")
        elif m == "map":
            out["MAP"] = RetrievalMAP(empty_target_action="skip")
        elif m == "mrr":
            out["MRR"] = RetrievalMRR(empty_target_action="skip")
    return out


def _batches(rows: int, groups: int, batch_groups: int):
    """Batches of whole groups, as a loader that groups a user's impressions gives them."""
    import numpy as np

    rng = np.random.default_rng(0)
    per = rows // groups
    ids = rng.integers(-(2**63), 2**63 - 1, groups, dtype=np.int64)
    for a in range(0, groups, batch_groups):
        k = min(batch_groups, groups - a)
        g = np.repeat(ids[a : a + k], per)
        rate = np.repeat(rng.random(k) * 0.3, per)
        y = (rng.random(k * per) < rate).astype(np.int64)
        logit = rng.normal(size=k * per) + 1.5 * y - 1.0
        yield y, (1 / (1 + np.exp(-logit))).astype(np.float32), g


def one(kind: str, rows: int, groups: int, batch_groups: int, measures: list[str]) -> dict:
    import numpy as np

    import perfeval

    if kind == "torchmetrics":
        import torch
        from torchmetrics import MetricCollection
    batches = _batches(rows, groups, batch_groups)
    values: dict = {}
    state = None
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the imports' share
    t0 = time.perf_counter()
    if kind == "feed":
        n = sum(1 for _ in batches)
        t1 = time.perf_counter()
        rss_updates = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    elif kind in ("default", "clustered"):
        m = perfeval.Metric(measures, clustered=kind == "clustered")
        n = 0
        for y, s, g in batches:
            m.update(y, s, groups=g)
            n += 1
        t1 = time.perf_counter()
        rss_updates = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        state = m.nbytes
        values = m.compute().values
    elif kind == "concat":
        kept = list(batches)
        n = len(kept)
        t1 = time.perf_counter()
        rss_updates = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        y = np.concatenate([b[0] for b in kept])
        s = np.concatenate([b[1] for b in kept]).astype(np.float64)
        g = np.concatenate([b[2] for b in kept])
        del kept
        values = perfeval.evaluate(y, s, groups=g, measures=measures).values
    else:
        tm = MetricCollection(_torchmetrics(measures))
        n = 0
        for y, s, g in batches:
            # torchmetrics takes the predictions first, and group indexes as long tensors
            tm.update(torch.from_numpy(s), torch.from_numpy(y), indexes=torch.from_numpy(g))
            n += 1
        t1 = time.perf_counter()
        rss_updates = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        values = {k: float(v) for k, v in tm.compute().items()}
    t2 = time.perf_counter()
    return {
        "rss_updates_mib": rss_updates,
        "updates": t1 - t0,
        "compute": t2 - t1,
        "batches": n,
        "state_bytes": state,
        "values": values,
        "rss_start_mib": rss_start,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _relevant_ties(a: argparse.Namespace, measures: list[str]) -> int:
    """The groups where a relevant case shares its score with another case: there torchmetrics'
    MAP takes torch.topk's order and perfeval's one threshold per tie (docs/metric.md)."""
    import numpy as np

    count = 0
    for y, s, g in _batches(a.rows, a.groups, a.batch_groups):
        o = np.lexsort((s, g))
        y, s, g = y[o], s[o], g[o]
        same = (g[1:] == g[:-1]) & (s[1:] == s[:-1])  # a row tied with the next
        tied = np.zeros(len(y), bool)
        tied[1:] |= same
        tied[:-1] |= same
        count += len(np.unique(g[tied & (y > 0)]))
    return count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--batch-groups", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--measures", default=",".join(MEASURES), help="comma-separated (default: %(default)s)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one, a.rows, a.groups, a.batch_groups, a.measures.split(","))))
        return 0
    kinds = ["feed", "default", "clustered", "concat"]
    if importlib.util.find_spec("torchmetrics") is not None:
        kinds.append("torchmetrics")
    else:
        print("torchmetrics is not installed in this environment: its line is left out")
    out: dict[str, list[dict]] = {k: [] for k in kinds}
    for _ in range(a.runs + 1):  # the first round is a warm-up
        for k in kinds:
            cmd = [sys.executable, __file__, "--one", k, "--rows", str(a.rows), "--groups", str(a.groups)]
            cmd += ["--batch-groups", str(a.batch_groups), "--measures", a.measures]
            out[k].append(json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout))
    for k in kinds:
        out[k] = out[k][1:]
    ref = out["concat"][0]["values"]
    for k in ("default", "clustered"):
        for r in out[k]:
            assert r["values"] == ref, (k, r["values"], ref)  # the same numbers, bit for bit
    n = out["default"][0]["batches"]
    print(f"{a.rows:,} rows in {a.groups:,} groups, {n:,} batches of {a.batch_groups:,} whole groups; {ref}")
    if "torchmetrics" in out:
        tm = out["torchmetrics"][0]["values"]
        print(f"torchmetrics: {tm}; ties of a relevant case: {_relevant_ties(a, a.measures.split(','))}")
        for label, v in tm.items():
            d = abs(v - ref[label])
            print(f"  {label}: |torchmetrics - perfeval| = {d:.2e}")
            if label.startswith("NDCG"):
                assert d < 2e-6, (label, v, ref[label])  # tie-averaged in both
    print(
        "| way | updates (median s) | per update (ms) | compute (median s) | update + compute (median s) "
        "| state MiB | RSS MiB after imports | peak RSS MiB before compute | peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for k in kinds:
        upd = statistics.median(r["updates"] for r in out[k])
        comp = statistics.median(r["compute"] for r in out[k])
        both = statistics.median(r["updates"] + r["compute"] for r in out[k])
        rss0 = statistics.median(r["rss_start_mib"] for r in out[k])
        rss = statistics.median(r["rss_mib"] for r in out[k])
        before = statistics.median(r["rss_updates_mib"] for r in out[k])
        st = out[k][0]["state_bytes"]
        state = "" if st is None else f"{st / 2**20:.1f}"
        print(
            f"| {k} | {upd:.2f} | {upd / n * 1e3:.2f} | {comp:.2f} | {both:.2f} | {state} | {rss0:.0f} "
            f"| {before:.0f} | {rss:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
