"""Oracle fixtures: run the REAL third-party tools on seeded cases and record what they return.

The fixtures in ``tests/oracles/fixtures/<tool>.json`` are the reference numbers that perfeval's
dialects (``perfeval.evaluate(..., dialect="keras")`` and friends) are checked against. This script
never imports perfeval: the numbers come from the tools alone.

How to run (by hand, in a venv outside the repository; nothing here runs in CI)::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install torch==2.13.0 torchmetrics pyspark keras numpy
    # DIN: a git dir (or work tree) of https://github.com/zhougr1993/DeepInterestNetwork
    /tmp/oracle-venv/bin/python tests/oracles/make_fixtures.py \
        [--tools torchmetrics,spark,keras,din,docs,metric] [--din-repo PATH] [--out DIR]

Spark needs Java 17 or later; it runs with ``local[1]`` (one partition, so that Spark's
per-partition down-sampling into bins is deterministic) and the UI off. Keras 3 runs on the torch
backend (``KERAS_BACKEND=torch`` is set here).

Run again with the same versions (2026-11-28), the script wrote torchmetrics.json, spark.json and
din.json byte for byte as committed, and keras.json within a float32 unit (16 of its 3,678 values
moved, by 6e-8 at most; Keras sums in float32).

The committed fixtures were made with: Python 3.11, numpy 2.4.6, torch 2.13.0+cpu,
torchmetrics 1.9.0, keras 3.15.1 (torch backend), pyspark 4.3.0 (OpenJDK 17.0.15), and DIN at
commit 9765f96202f849e59ff260c8b46931a0ddf01d77. Each fixture records its own versions.

DIN's evaluation code is not copied here: ``--din-repo`` names the fetched repository, and the
functions ``calc_auc``, ``_auc_arr`` and ``_eval`` of ``din/train.py`` and the class
``DataInputTest`` of ``din/input.py`` are read from it at run time (``git show``), parsed with
``ast`` and executed. Only the TensorFlow model is replaced by a stand-in whose ``eval`` returns
what DIN's graph returns: ``mf_auc = reduce_mean(to_float(x > 0))`` with ``x`` the positive's
score minus the negative's (one pair per user), and the two scores of each pair.

``--tools metric`` feeds torchmetrics' stateful metrics the batches of
tests/test_metric_torchmetrics.py (the same seeds) and writes ``torchmetrics_metric.json`` (each case
also holds ``batch`` and ``dtype``; a result may hold the first ``warning``).  ``--tools docs`` runs
torchmetrics, Keras and Spark at their defaults on the file of docs/dialects.md's example
(``docs/examples/dialects/clicks.csv``) and writes ``docs_examples.json``.

Fixture format: ``{"tool", "version", "backend", "generated_by", "seed", "cases": [{"name", "y",
"s", "w", "g", "results": [{"call", "measure", "options", "value" | "error", "dtype"}]}]}``;
grouped cases also carry ``ties_within_group``. ``value`` is a float, ``"nan"`` for NaN.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

SEED = 1234
HERE = Path(__file__).resolve().parent
GENERATED_BY = "tests/oracles/make_fixtures.py"

# ---------------------------------------------------------------------------------------------
# helpers


def fnum(x):
    """A float for JSON: NaN and infinities as strings."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def err(e):
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {first}"


def result(call, measure, options, fn):
    """Run fn() -> (value, dtype) and make one result record (an error is recorded, not raised)."""
    rec = {"call": call, "measure": measure, "options": options}
    try:
        value, dtype = fn()
        rec["value"] = fnum(value)
        rec["dtype"] = dtype
    except Exception as e:  # the tool's own failure is part of the oracle
        rec["error"] = err(e)
        rec["dtype"] = None
    return rec


def case(name, y, s, w=None, g=None, **extra):
    c = {
        "name": name,
        "y": [int(v) for v in y],
        "s": [float(v) for v in s],
        "w": None if w is None else [float(v) for v in w],
        "g": None if g is None else [int(v) for v in g],
    }
    c.update(extra)
    return c


def ties_within_group(c):
    s = np.asarray(c["s"], dtype=np.float32)  # the retrieval metrics work in float32
    g = np.zeros(len(s), dtype=np.int64) if c["g"] is None else np.asarray(c["g"])
    pairs = set()
    for gi, si in zip(g.tolist(), s.tolist(), strict=True):
        if (gi, si) in pairs:
            return True
        pairs.add((gi, si))
    return False


def write_fixture(path, header, cases):
    head = json.dumps(header)[:-1]
    body = ",\n".join(json.dumps(c, allow_nan=False) for c in cases)
    path.write_text(head + ', "cases": [\n' + body + "\n]}\n")
    n_res = sum(len(c["results"]) for c in cases)
    print(f"wrote {path} ({path.stat().st_size} bytes, {len(cases)} cases, {n_res} results)")


# ---------------------------------------------------------------------------------------------
# cases (one generator per family; every tool seeds its own generator with SEED, so the
# families are the same for every tool that uses them)


def anchor_cases():
    """The three tie cases of ANCHORS 3.4 (one query each)."""
    return [
        case("anchor-all_tied_pos_first", [1, 0, 0, 0], [0.5] * 4),
        case("anchor-all_tied_pos_last", [0, 0, 0, 1], [0.5] * 4),
        case("anchor-partial_tie", [0, 1, 0, 1, 0], [0.9, 0.7, 0.7, 0.3, 0.1]),
    ]


def edge_cases():
    out = []
    for n in (2, 3, 5, 10, 17):
        for v in (0.0, 0.5, 1.0):
            y = [(i * 7 + n) % 3 == 0 for i in range(n)]
            y[0], y[-1] = True, False
            out.append(case(f"all-tied-n{n}-s{v}", y, [v] * n))
    for n in (1, 4, 10):
        out.append(case(f"one-class-neg-n{n}", [0] * n, [(i % 3) / 4 for i in range(n)]))
        out.append(case(f"one-class-pos-n{n}", [1] * n, [(i % 3) / 4 for i in range(n)]))
        out.append(case(f"one-class-pos-tied-n{n}", [1] * n, [0.25] * n))
    out += [
        case("n2-correct", [0, 1], [0.25, 0.75]),
        case("n2-wrong", [1, 0], [0.25, 0.75]),
        case("n2-tied", [1, 0], [0.5, 0.5]),
        case("n3-perfect", [0, 0, 1], [0.0, 0.5, 1.0]),
        case("reversed-8", [1, 1, 1, 1, 0, 0, 0, 0], [k / 8 for k in range(8)]),
    ]
    return out


def few_distinct_cases(rng, count, prefix="ties", nmax=60):
    out = []
    for i in range(count):
        n = int(rng.integers(2, nmax + 1))
        k = int(rng.choice([1, 2, 3, 4, 6, 8]))
        levels = rng.choice(65, size=k, replace=False) / 64
        s = rng.choice(levels, size=n)
        y = rng.random(n) < rng.uniform(0.1, 0.9)
        out.append(case(f"{prefix}-small-{i}", y, s))
    return out


def distinctish_cases(rng, count, nmax=80):
    out = []
    for i in range(count):
        n = int(rng.integers(2, nmax + 1))
        s = rng.integers(0, 1001, n) / 1000
        y = rng.random(n) < rng.uniform(0.1, 0.9)
        out.append(case(f"k1000-small-{i}", y, s))
    return out


def boundary_cases(rng):
    """Scores on 0 and 1 and on the usual threshold grids i/(T-1), T = 5, 10, 200."""
    out = []
    grids = {"ends": np.array([0.0, 1 / 64, 0.5, 63 / 64, 1.0]), "q4": np.arange(5) / 4}
    grids["t10"] = np.arange(10) / 9
    grids["t200"] = np.arange(200) / 199
    for name, grid in grids.items():
        for i in range(3):
            n = int(rng.integers(5, 40))
            s = rng.choice(grid, size=n)
            y = rng.random(n) < 0.5
            out.append(case(f"grid-{name}-{i}", y, s))
    return out


def logit_cases(rng, count=6):
    out = []
    for i in range(count):
        n = int(rng.integers(5, 50))
        s = rng.integers(-64, 65, n) / 16  # in [-4, 4]: outside [0, 1]
        y = rng.random(n) < 0.5
        out.append(case(f"outside01-{i}", y, s))
    return out


def large_cases(rng, sizes=(2000, 3500, 5000)):
    """Cases large enough for binning to bite: about 3k distinct scores k/65536, and one k/64."""
    out = []
    for n in sizes:
        y = rng.random(n) < 0.3
        z = rng.normal(0, 1, n) + 1.2 * y
        s = np.clip(np.round(65536 / (1 + np.exp(-z / 2.5)) - 20000), 0, 65536) / 65536
        s = np.round(s * 4096) / 4096 if n == 3500 else s
        out.append(case(f"large-{n}", y, s))
    y = rng.random(3000) < 0.25
    s = np.clip(np.round(32 + 12 * rng.normal(0, 1, 3000) + 10 * y), 0, 64) / 64
    out.append(case("large-3000-k64", y, s))
    return out


def with_weights(rng, cases, zero_some=False):
    out = []
    for c in cases:
        n = len(c["y"])
        w = rng.integers(1, 33, n) / 8  # 1/8 .. 4
        if zero_some and n > 3:
            w[rng.choice(n, size=max(1, n // 5), replace=False)] = 0.0
        d = dict(c)
        d["name"] = c["name"] + "-w"
        d["w"] = [float(v) for v in w]
        out.append(d)
    return out


def flat_family(rng, large=True):
    cases = anchor_cases() + edge_cases()
    cases += few_distinct_cases(rng, 70)
    cases += distinctish_cases(rng, 30)
    cases += boundary_cases(rng)
    medium = few_distinct_cases(rng, 3, prefix="ties-medium", nmax=600)
    cases += medium
    if large:
        cases += large_cases(rng)
    return cases


def grouped_query(rng, n, ties, graded, scores="pos"):
    """One query's labels and scores."""
    p = float(rng.choice([0.0, 0.2, 0.5, 0.8, 1.0], p=[0.15, 0.3, 0.3, 0.15, 0.1]))
    rel = rng.random(n) < p
    y = rel * rng.integers(1, 4, n) if graded else rel.astype(int)
    if ties:
        s = rng.integers(0, 9, n) / 8  # includes 0: torchmetrics counts a score <= 0 as not retrieved
    else:
        s = rng.choice(np.arange(1, 1025), size=n, replace=False) / 1024
    if scores == "signed":
        s = s * 2 - 1
    return y, s


def grouped_case(rng, name, ties, graded, ngroups=None, scores="pos"):
    sizes_pool = [1, 1, 2, 3, 4, 5, 8, 10, 20]
    ngroups = int(rng.integers(1, 13)) if ngroups is None else ngroups
    sizes = rng.choice(sizes_pool, size=ngroups)
    ys, ss, gs = [], [], []
    ids = rng.choice(1000, size=ngroups, replace=False)  # non-contiguous, unsorted query ids
    for gid, n in zip(ids, sizes, strict=True):
        y, s = grouped_query(rng, int(n), ties, graded, scores)
        ys.append(y)
        ss.append(s)
        gs.append(np.full(int(n), gid))
    y, s, g = np.concatenate(ys), np.concatenate(ss), np.concatenate(gs)
    if rng.random() < 0.5:  # rows of a query need not be adjacent
        perm = rng.permutation(len(y))
        y, s, g = y[perm], s[perm], g[perm]
    return case(name, y, s, g=g)


def grouped_family(rng):
    """Grouped (query) cases: ties and distinct scores within queries, binary and graded."""
    cases = []
    for c in anchor_cases():
        cases.append(dict(c, g=[0] * len(c["y"])))
    for i in range(30):
        cases.append(grouped_case(rng, f"grp-ties-{i}", ties=True, graded=False))
    for i in range(20):
        cases.append(grouped_case(rng, f"grp-distinct-{i}", ties=False, graded=False))
    for i in range(4):
        cases.append(grouped_case(rng, f"grp-distinct-signed-{i}", False, False, scores="signed"))
    for i in range(8):
        cases.append(grouped_case(rng, f"grp-graded-ties-{i}", ties=True, graded=True))
    for i in range(6):
        cases.append(grouped_case(rng, f"grp-graded-distinct-{i}", ties=False, graded=True))
    cases.append(grouped_case(rng, "grp-medium-ties", ties=True, graded=False, ngroups=120))
    cases.append(grouped_case(rng, "grp-medium-distinct", ties=False, graded=False, ngroups=120))
    cases.append(grouped_case(rng, "grp-medium-graded-ties", ties=True, graded=True, ngroups=120))
    for c in cases:
        c["ties_within_group"] = ties_within_group(c)
    return cases


def single_query_family(rng):
    """One-query cases for the functional retrieval API (which sees one query per call)."""
    cases = [dict(c, g=[0] * len(c["y"])) for c in anchor_cases()]
    for i in range(20):
        y, s = grouped_query(rng, int(rng.integers(1, 25)), ties=True, graded=False)
        cases.append(case(f"q-ties-{i}", y, s, g=[0] * len(y)))
    for i in range(20):
        y, s = grouped_query(rng, int(rng.integers(1, 25)), ties=False, graded=False)
        cases.append(case(f"q-distinct-{i}", y, s, g=[0] * len(y)))
    for i in range(3):
        y, s = grouped_query(rng, int(rng.integers(3, 25)), ties=False, graded=False, scores="signed")
        cases.append(case(f"q-distinct-signed-{i}", y, s, g=[0] * len(y)))
    for i in range(8):
        y, s = grouped_query(rng, int(rng.integers(1, 25)), ties=bool(i % 2), graded=True)
        cases.append(case(f"q-graded-{i}", y, s, g=[0] * len(y), graded=True))
    for c in cases:
        c["ties_within_group"] = ties_within_group(c)
    return cases


# ---------------------------------------------------------------------------------------------
# torchmetrics


def tm_dtype(t):
    return str(t.dtype).replace("torch.", "")


TM_THRESHOLDS = [None, 5, 100, 200, [0.0, 0.25, 0.5, 0.75, 1.0]]


def tm_binary_results(c):
    import torch
    from torchmetrics.functional.classification import binary_auroc, binary_average_precision

    target = torch.tensor(c["y"], dtype=torch.long)
    out = []
    for fn, measure in ((binary_auroc, "ROC"), (binary_average_precision, "AP")):
        variants = [(t, "float64") for t in TM_THRESHOLDS] + [(200, "float32")]
        for thr, pdt in variants:
            preds = torch.tensor(c["s"], dtype=getattr(torch, pdt))
            call = f"torchmetrics.functional.classification.{fn.__name__}(preds, target, thresholds={thr!r})"

            def run(fn=fn, preds=preds, thr=thr):
                v = fn(preds, target, thresholds=thr)
                return v.item(), tm_dtype(v)

            opts = {"thresholds": thr, "preds_dtype": pdt}
            out.append(result(call, measure, opts, run))
    return out


def tm_functional_retrieval_results(c):
    import torch
    from torchmetrics.functional import retrieval as R

    graded = bool(c.get("graded"))
    preds = torch.tensor(c["s"], dtype=torch.float64)
    target = torch.tensor(c["y"], dtype=torch.long)
    specs = [("retrieval_normalized_dcg", "NDCG", k) for k in (None, 10, 3)]
    if not graded:
        specs += [("retrieval_average_precision", "MAP", k) for k in (None, 3)]
        specs += [("retrieval_reciprocal_rank", "MRR", None)]
        specs += [("retrieval_precision", "P", k) for k in (None, 3, 10)]
        specs += [("retrieval_recall", "R", k) for k in (None, 3, 10)]
        specs += [("retrieval_auroc", "ROC", None)]
    out = []
    for name, measure, k in specs:
        fn = getattr(R, name)

        def run(fn=fn, k=k):
            v = fn(preds, target, top_k=k)
            return v.item(), tm_dtype(v)

        call = f"torchmetrics.functional.retrieval.{name}(preds, target, top_k={k!r})"
        out.append(result(call, measure, {"top_k": k}, run))
    return out


TM_MODULES = [
    ("RetrievalNormalizedDCG", "NDCG", {}),
    ("RetrievalNormalizedDCG", "NDCG", {"top_k": 10}),
    ("RetrievalMAP", "MAP", {}),
    ("RetrievalMRR", "MRR", {}),
    ("RetrievalPrecision", "P", {"top_k": 3}),
    ("RetrievalPrecision", "P", {"top_k": 10}),
    ("RetrievalRecall", "R", {"top_k": 3}),
    ("RetrievalRecall", "R", {"top_k": 10}),
    ("RetrievalAUROC", "GAUC_UNWEIGHTED", {}),
]


def tm_module_results(c):
    import torch
    import torchmetrics.retrieval as MR

    graded = any(v > 1 for v in c["y"])
    preds = torch.tensor(c["s"], dtype=torch.float64)
    target = torch.tensor(c["y"], dtype=torch.long)
    indexes = torch.tensor(c["g"], dtype=torch.long)
    out, seen = [], set()
    for cls_name, measure, kw in TM_MODULES:
        if graded and cls_name != "RetrievalNormalizedDCG":
            continue
        actions = ("neg", "skip", "pos") if cls_name in seen else (None, "neg", "skip", "pos")
        seen.add(cls_name)  # the default empty_target_action (None: not passed) once per class
        for action in actions:
            opts = dict(kw)
            if action is not None:
                opts["empty_target_action"] = action
            args = ", ".join(f"{k}={v!r}" for k, v in opts.items())
            call = f"torchmetrics.retrieval.{cls_name}({args}).update(preds, target, indexes=g)"

            def run(cls_name=cls_name, opts=opts):
                m = getattr(MR, cls_name)(**opts)
                m.update(preds, target, indexes=indexes)
                v = m.compute()
                return v.item(), tm_dtype(v)

            out.append(result(call, measure, opts, run))
    return out


def linspace_notes():
    import torch

    return {f"linspace_{t}": [float(v) for v in torch.linspace(0, 1, t).tolist()] for t in (5, 100, 200)} | {
        "thresholds_dtype": str(torch.linspace(0, 1, 5).dtype)
    }


def run_torchmetrics(outdir):
    import torch
    import torchmetrics

    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(SEED)
    flat = flat_family(rng) + logit_cases(rng)
    for c in flat:
        c["results"] = tm_binary_results(c)
    singles = single_query_family(rng)
    for c in singles:
        c["results"] = tm_functional_retrieval_results(c)
    grouped = grouped_family(rng)
    for c in grouped:
        c["results"] = tm_module_results(c)
    header = {
        "tool": "torchmetrics",
        "version": torchmetrics.__version__,
        "backend": f"torch {torch.__version__}",
        "generated_by": GENERATED_BY,
        "seed": SEED,
        "notes": {
            "threshold_grids": linspace_notes(),
            "torch_num_threads": torch.get_num_threads(),
            "ties_within_group": "retrieval AP/MRR/P/R order tied scores by torch.topk/argsort, "
            "which is unspecified; compare those only where ties_within_group is false",
        },
    }
    write_fixture(outdir / "torchmetrics.json", header, flat + singles + grouped)


# ---------------------------------------------------------------------------------------------
# keras


def keras_auc_value(c, T, curve, method, batches=1, weighted=False):
    import keras

    m = keras.metrics.AUC(num_thresholds=T, curve=curve, summation_method=method)
    y = np.asarray(c["y"], dtype=np.float32)
    s = np.asarray(c["s"], dtype=np.float64)
    w = np.asarray(c["w"], dtype=np.float64) if weighted else None
    bounds = np.linspace(0, len(y), batches + 1).astype(int)
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        m.update_state(y[a:b], s[a:b], sample_weight=None if w is None else w[a:b])
    v = m.result()
    return float(v), str(v.dtype).replace("torch.", "")


def keras_results(c, batches_for=()):
    out = []
    weighted = c["w"] is not None
    for T in (200, 10, 1000):
        for curve in ("ROC", "PR"):
            for method in ("interpolation", "minoring", "majoring"):
                opts = {"num_thresholds": T, "curve": curve, "summation_method": method}
                upd = ".update_state(y, s, sample_weight=w)" if weighted else ".update_state(y, s)"
                if weighted:
                    opts["sample_weight"] = "w"
                call = f"keras.metrics.AUC(num_thresholds={T}, curve='{curve}', summation_method='{method}')"
                measure = "ROC" if curve == "ROC" else "AP"

                def run(T=T, curve=curve, method=method):
                    return keras_auc_value(c, T, curve, method, weighted=weighted)

                out.append(result(call + upd, measure, opts, run))
                if (T, curve) in batches_for and method == "interpolation":
                    opts2 = dict(opts, batches=2)

                    def run2(T=T, curve=curve, method=method):
                        return keras_auc_value(c, T, curve, method, batches=2, weighted=weighted)

                    call2 = call + upd.replace("(y, s", "(y[:h], s[:h]") + " then the second half"
                    out.append(result(call2, measure, opts2, run2))
    return out


def run_keras(outdir):
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras
    import torch

    rng = np.random.default_rng(SEED)
    flat = flat_family(rng) + logit_cases(rng)
    wrng = np.random.default_rng(SEED + 1)
    weighted = with_weights(wrng, anchor_cases() + few_distinct_cases(wrng, 30, prefix="wties"))
    weighted += with_weights(wrng, distinctish_cases(wrng, 10), zero_some=True)
    weighted += with_weights(wrng, large_cases(wrng, sizes=(3000,)))
    two = {(200, "ROC"), (200, "PR")}
    for i, c in enumerate(flat + weighted):
        c["results"] = keras_results(c, batches_for=two if i % 10 == 0 else ())
    header = {
        "tool": "keras",
        "version": keras.__version__,
        "backend": f"torch {torch.__version__}",
        "generated_by": GENERATED_BY,
        "seed": SEED,
        "notes": {"keras_backend": keras.backend.backend(), "epsilon": keras.backend.epsilon()},
    }
    write_fixture(outdir / "keras.json", header, flat + weighted)


# ---------------------------------------------------------------------------------------------
# spark


def spark_session():
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("perfeval-oracle")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_results(spark, c, bins):
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.sql.types import DoubleType, StructField, StructType

    weighted = c["w"] is not None
    w = c["w"] if weighted else [1.0] * len(c["y"])
    schema = StructType([StructField(n, DoubleType(), False) for n in ("label", "raw", "weight")])
    rows = [(float(a), float(b), float(d)) for a, b, d in zip(c["y"], c["s"], w, strict=True)]
    df = spark.createDataFrame(rows, schema).coalesce(1).cache()
    out = []
    for metric in ("areaUnderROC", "areaUnderPR"):
        for nb in bins:
            opts = {"metricName": metric}
            if nb is not None:
                opts["numBins"] = nb
            if weighted:
                opts["weightCol"] = "weight"
            kw = dict(opts, rawPredictionCol="raw", labelCol="label")
            args = ", ".join(f"{k}={v!r}" for k, v in opts.items())
            call = f"pyspark.ml.evaluation.BinaryClassificationEvaluator({args}).evaluate(df)"

            def run(kw=kw):
                return BinaryClassificationEvaluator(**kw).evaluate(df), "float64"

            out.append(result(call, "ROC" if metric == "areaUnderROC" else "AP", opts, run))
    df.unpersist()
    return out


def run_spark(outdir):
    import pyspark

    spark = spark_session()
    rng = np.random.default_rng(SEED)
    flat = flat_family(rng, large=False)
    wrng = np.random.default_rng(SEED + 1)
    weighted = with_weights(wrng, anchor_cases() + few_distinct_cases(wrng, 30, prefix="wties"))
    weighted += with_weights(wrng, distinctish_cases(wrng, 10), zero_some=True)
    lrng = np.random.default_rng(SEED + 2)
    large = large_cases(lrng)
    large_w = with_weights(lrng, large_cases(lrng, sizes=(5000,)))
    t0 = time.time()
    for c in flat + weighted:
        c["results"] = spark_results(spark, c, bins=(None, 2, 10))
    for c in large + large_w:
        c["results"] = spark_results(spark, c, bins=(None, 1000, 100, 10, 2, 0))
    print(f"spark: {time.time() - t0:.1f} s")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    header = {
        "tool": "spark",
        "version": pyspark.__version__,
        "backend": f"{java}; master local[1], one partition",
        "generated_by": GENERATED_BY,
        "seed": SEED,
        "notes": {"default_numBins": 1000, "partitions": 1},
    }
    spark.stop()
    write_fixture(outdir / "spark.json", header, flat + weighted + large + large_w)


# ---------------------------------------------------------------------------------------------
# torchmetrics' stateful metrics fed batch by batch (docs/metric.md, "Against torchmetrics")


def _tm_stateful(case_, makers):
    """Feed each (name, measure, constructor) torchmetrics metric the case's batches of tensors;
    record each value (or the error it raised) and the first warning's text."""
    import torch

    n, size = len(case_["y"]), case_["batch"]
    y = torch.tensor(case_["y"])
    s = torch.tensor(case_["s"], dtype=getattr(torch, case_["dtype"]))
    g = None if case_["g"] is None else torch.tensor(case_["g"])
    out = []
    for call, measure, make in makers:
        m = make()
        rec = {"call": call, "measure": measure, "options": {}}
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                for a in range(0, n, size):
                    b = slice(a, min(a + size, n))
                    if g is None:
                        m.update(s[b], y[b])
                    else:
                        m.update(s[b], y[b], indexes=g[b])
                # the rows its state keeps (list states: every row until compute)
                kept = [
                    sum(len(t) for t in getattr(m, k)) for k in m._defaults if isinstance(getattr(m, k), list)
                ]
                v = m.compute()
                rec.update(value=fnum(v.item()), dtype=tm_dtype(v), state_rows=max(kept, default=0))
            except Exception as e:  # noqa: BLE001 - the tool's error is the record
                rec["error"] = err(e)
        if seen:
            rec["warning"] = str(seen[0].message).strip().splitlines()[0]
        out.append(rec)
    return out


def run_metric(outdir):
    """The cases of tests/test_metric_torchmetrics.py (the same seeds and batches), torchmetrics'
    BinaryAUROC, BinaryAveragePrecision and retrieval metrics updated batch by batch."""
    import torch
    import torchmetrics
    from torchmetrics.classification import BinaryAUROC, BinaryAveragePrecision
    from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR, RetrievalNormalizedDCG

    binary = [
        ("BinaryAUROC(thresholds=None)", "ROC", lambda: BinaryAUROC(thresholds=None)),
        ("BinaryAveragePrecision(thresholds=None)", "AP", lambda: BinaryAveragePrecision(thresholds=None)),
    ]

    def retrieval(empty, k=10):
        return [
            (
                f"RetrievalNormalizedDCG(top_k={k}, empty_target_action={empty!r})",
                "NDCG",
                lambda: RetrievalNormalizedDCG(top_k=k, empty_target_action=empty),
            ),
            (
                f"RetrievalMAP(empty_target_action={empty!r})",
                "MAP",
                lambda: RetrievalMAP(empty_target_action=empty),
            ),
            (
                f"RetrievalMRR(empty_target_action={empty!r})",
                "MRR",
                lambda: RetrievalMRR(empty_target_action=empty),
            ),
        ]

    def c(name, y, s, g=None, batch=700, dtype="float64", **extra):
        d = case(name, np.asarray(y).astype(int), np.asarray(s, dtype=np.float64), g=g)
        d.update(batch=batch, dtype=dtype, **extra)
        return d

    cases = []
    for decimals in (2, 6):
        rng = np.random.default_rng(decimals)
        y = rng.integers(0, 2, 5000)
        s = np.round(np.clip(0.3 * y + 0.7 * rng.random(5000), 0, 1), decimals)
        for dt in ("float32", "float64"):
            cases.append((c(f"binary-{decimals}-decimals-{dt}", y, s, dtype=dt), binary))
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 2000)
    small = (rng.random(2000) - 0.5) * 8 + y
    cases.append((c("logits-small", y, small), binary))
    cases.append((c("logits-large", y, small * 10 + 40), binary))
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 3000)
    wide = np.round((rng.random(3000) - 0.5) * 160 + 20 * y, 2)  # logits in -80 .. 100: both ends saturate
    cases.append((c("logits-wide", y, wide, batch=3000), binary))
    cases.append((c("logits-wide-float32", y, wide, batch=3000, dtype="float32"), binary))
    cases.append((c("one-class", np.ones(10), np.linspace(0.1, 0.9, 10)), binary))
    rng = np.random.default_rng(4)
    g = rng.integers(0, 300, 6000)
    y = (rng.random(6000) < 0.15).astype(np.int64)
    s = rng.permutation(6000).astype(np.float32) / 6000 + np.float32(1 / 6000)
    cases.append((c("retrieval-spread", y, s, g=g, batch=900, dtype="float32"), retrieval("skip")))
    rng = np.random.default_rng(5)
    g = rng.integers(0, 200, 4000)
    grades = rng.integers(0, 3, 4000) * (rng.random(4000) < 0.3)
    s = (np.round(rng.random(4000), 1) + 0.05).astype(np.float32)
    cases.append(
        (c("retrieval-graded-ties", grades, s, g=g, batch=4000, dtype="float32"), retrieval("skip")[:1])
    )
    y = (grades > 0).astype(np.int64)
    cases.append((c("retrieval-ties", y, s, g=g, batch=900, dtype="float32"), retrieval("skip")))
    s2 = np.where(y > 0, (rng.permutation(4000) / 4000 * 0.09 + 0.051).astype(np.float32), s)
    cases.append((c("retrieval-relevant-untied", y, s2, g=g, batch=900, dtype="float32"), retrieval("skip")))
    rng = np.random.default_rng(6)
    g = rng.integers(0, 200, 3000)
    y = (rng.random(3000) < 0.05).astype(np.int64)
    s = rng.permutation(3000).astype(np.float32) / 3000 + np.float32(1 / 3000)
    cases.append((c("retrieval-empty-neg", y, s, g=g, batch=900, dtype="float32"), retrieval("neg")))
    cases.append((c("retrieval-empty-pos", y, s, g=g, batch=900, dtype="float32"), retrieval("pos")))
    cases.append((c("retrieval-empty-error", y, s, g=g, batch=3000, dtype="float32"), retrieval("error")))
    cases.append(
        (
            c(
                "scored-0-or-less",
                [1, 0, 1, 0],
                [-0.5, -1.0, 0.3, 0.1],
                g=[0, 0, 0, 0],
                batch=4,
                dtype="float32",
            ),
            [("RetrievalMAP()", "MAP", RetrievalMAP)],
        )
    )
    for d, makers in cases:
        d["s"] = [
            float(v) for v in np.asarray(d["s"], dtype=getattr(np, d["dtype"]))
        ]  # as the tensor holds them
        d["results"] = _tm_stateful(d, makers)
    header = {
        "tool": "torchmetrics",
        "version": torchmetrics.__version__,
        "backend": f"torch {torch.__version__}",
        "generated_by": GENERATED_BY,
        "seed": SEED,
        "notes": {
            "fed": "torch.tensor(y), torch.tensor(s, dtype=dtype) in batches of `batch` rows, in order"
        },
    }
    write_fixture(outdir / "torchmetrics_metric.json", header, [d for d, _ in cases])


# ---------------------------------------------------------------------------------------------
# the docs' example: the binning tools on docs/examples/dialects/clicks.csv (docs/dialects.md)


def run_docs(outdir):
    """torchmetrics, Keras and Spark at their defaults on the file of docs/dialects.md's example, whose
    table shows each tool's ROC and AP (tests/test_docs_claims.py holds the table to these values)."""
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras
    import pyspark
    import torch
    import torchmetrics

    warnings.filterwarnings("ignore")
    path = HERE.parents[1] / "docs" / "examples" / "dialects" / "clicks.csv"
    rows = np.loadtxt(path, delimiter=",", skiprows=1)
    c = case("docs/examples/dialects/clicks.csv", rows[:, 0].astype(int), rows[:, 1])
    out = [r for r in tm_binary_results(c) if r["options"]["thresholds"] in (None, 200)]
    for curve in ("ROC", "PR"):
        call = f"keras.metrics.AUC(num_thresholds=200, curve='{curve}').update_state(y, s)"
        opts = {"num_thresholds": 200, "curve": curve, "summation_method": "interpolation"}

        def run(curve=curve):
            return keras_auc_value(c, 200, curve, "interpolation")

        out.append(result(call, "ROC" if curve == "ROC" else "AP", opts, run))
    spark = spark_session()
    out += spark_results(spark, c, bins=(None,))
    spark.stop()
    c["results"] = out
    header = {
        "tool": "torchmetrics, keras, spark",
        "version": {
            "torchmetrics": torchmetrics.__version__,
            "keras": keras.__version__,
            "pyspark": pyspark.__version__,
        },
        "backend": f"torch {torch.__version__}; keras backend {keras.backend.backend()}; spark local[1]",
        "generated_by": GENERATED_BY,
        "seed": SEED,
    }
    write_fixture(outdir / "docs_examples.json", header, [c])


# ---------------------------------------------------------------------------------------------
# DIN (Deep Interest Network, zhougr1993/DeepInterestNetwork)


def git_show(repo, path):
    repo = Path(repo)
    gitdir = repo / ".git" if (repo / ".git").exists() else repo

    def git(*a):
        return subprocess.run(["git", f"--git-dir={gitdir}", *a], check=True, capture_output=True, text=True)

    return git("show", f"HEAD:{path}").stdout, git("rev-parse", "HEAD").stdout.strip()


def top_level_block(source, name):
    """The source of one top-level def/class/assignment (din/train.py is Python 2 as a whole)."""
    lines = source.splitlines()
    heads = (f"def {name}(", f"class {name}:", f"class {name}(", f"{name} =", f"{name}=")
    starts = [i for i, ln in enumerate(lines) if ln.startswith(heads)]
    if not starts:
        raise LookupError(f"{name} not found")
    i = starts[0]
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or lines[j][0] in " \t#"):
        j += 1
    block = "\n".join(lines[i:j]) + "\n"
    tree = ast.parse(block)  # each needed block is valid Python 3
    if len(tree.body) != 1:
        raise ValueError(f"{name}: expected one statement, got {len(tree.body)}")
    return block


def load_din(repo):
    train, commit = git_show(repo, "din/train.py")
    inp, _ = git_show(repo, "din/input.py")
    ns = {"np": np, "best_auc": 0.0}
    for name in ("test_batch_size", "calc_auc", "_auc_arr", "_eval"):
        exec(compile(top_level_block(train, name), f"din/train.py:{name}", "exec"), ns)
    exec(compile(top_level_block(inp, "DataInputTest"), "din/input.py:DataInputTest", "exec"), ns)
    ns["DataInputTest"].__next__ = ns["DataInputTest"].next  # Python 2 iterator protocol
    return ns, commit


class DinModelStandIn:
    """Stands in for DIN's TF model in _eval: eval() returns (mf_auc, p_and_n) for a batch."""

    def __init__(self, score):
        self.score = np.asarray(score, dtype=np.float32)  # the TF graph works in float32

    def eval(self, sess, uij):
        _, i, j, _, _ = uij
        sp, sn = self.score[np.asarray(i)], self.score[np.asarray(j)]
        x = sp - sn
        auc_ = float(np.mean((x > 0).astype(np.float32), dtype=np.float32))
        return auc_, np.stack([sp, sn], axis=1)

    def save(self, sess, path):
        pass


def din_paired_case(rng, name, users, ties):
    """DIN's own test design: each user has one clicked and one non-clicked item."""
    if ties:
        sp, sn = rng.integers(0, 9, users) / 8, rng.integers(0, 9, users) / 8
    else:
        v = rng.choice(np.arange(1, 65537), size=2 * users, replace=False) / 65536
        sp, sn = v[:users], v[users:]
    y = np.tile([1, 0], users)
    s = np.column_stack([sp, sn]).ravel()
    g = np.repeat(np.arange(users), 2)
    return case(name, y, s, g=g)


def din_eval_results(ns, c):
    y, s = np.asarray(c["y"]), np.asarray(c["s"])
    users = len(y) // 2
    item = np.arange(2 * users)
    ns["test_set"] = [(u, [0], (int(item[2 * u]), int(item[2 * u + 1]))) for u in range(users)]
    ns["best_auc"] = 0.0
    model = DinModelStandIn(s)
    bs = ns["test_batch_size"]
    call = "din/train.py:_eval(sess, model) with the model's mf_auc = mean(x > 0) per batch"
    opts = {"test_batch_size": bs, "per_user": "1 if s_pos > s_neg else 0 (float32)"}
    res = []
    try:
        gauc, auc = ns["_eval"](None, model)
        res.append(
            {
                "call": call + " -> test_gauc",
                "measure": "GAUC_UNWEIGHTED",
                "options": opts,
                "value": fnum(gauc),
                "dtype": "float64",
            }
        )
        res.append(
            {
                "call": call + " -> Auc = calc_auc(_auc_arr(p_and_n) per batch)",
                "measure": "ROC",
                "options": {"test_batch_size": bs, "record_order": "per batch: positives, then negatives"},
                "value": fnum(auc),
                "dtype": "float64",
            }
        )
    except Exception as e:
        res.append(
            {"call": call, "measure": "GAUC_UNWEIGHTED", "options": opts, "error": err(e), "dtype": None}
        )
    return res


def din_records(y, s, order):
    rec = [[1 - int(a > 0), int(a > 0), float(b)] for a, b in zip(y, s, strict=True)]
    if order == "positives_first":
        rec = [r for r in rec if r[1]] + [r for r in rec if not r[1]]
    return rec


def din_flat_results(ns, c):
    out = []
    for order in ("input", "positives_first"):
        call = f"din/train.py:calc_auc([[1-y, y, s] for each row, {order} order])"

        def run(order=order):
            v = ns["calc_auc"](din_records(c["y"], c["s"], order))
            return (float("nan") if v is None else v), "float64"

        out.append(result(call, "ROC", {"record_order": order}, run))
    return out


def din_per_user(ns, c, order):
    y, s, g = np.asarray(c["y"]), np.asarray(c["s"]), np.asarray(c["g"])
    vals, sizes = [], []
    for u in dict.fromkeys(g.tolist()):
        m = g == u
        vals.append(ns["calc_auc"](din_records(y[m], s[m], order)))
        sizes.append(int(m.sum()))
    return vals, sizes


def din_grouped_results(ns, c):
    """calc_auc per user (DIN has no such loop: the driver is ours, named in the call)."""
    out = []
    c["din_calc_auc_per_user"] = {}
    for order in ("input", "positives_first"):
        vals, sizes = din_per_user(ns, c, order)
        c["din_calc_auc_per_user"][order] = [fnum(v) if v is not None else None for v in vals]
        kept = [(v, n) for v, n in zip(vals, sizes, strict=True) if v is not None and v != -0.5]
        for measure, weight in (("GAUC_UNWEIGHTED", "none"), ("GAUC", "impressions")):
            call = (
                f"oracle driver: mean over users of din/train.py:calc_auc(user's rows, {order} order), "
                f"users where calc_auc returns -0.5 skipped, weight={weight}"
            )
            opts = {"record_order": order, "skip": "calc_auc == -0.5", "weight": weight}

            def run(kept=kept, weight=weight):
                if not kept:
                    return float("nan"), "float64"
                ws = [1.0 if weight == "none" else float(n) for _, n in kept]
                return sum(v * wi for (v, _), wi in zip(kept, ws, strict=True)) / sum(ws), "float64"

            out.append(result(call, measure, opts, run))
    return out


def run_din(outdir, repo):
    if not repo:
        raise SystemExit(
            "din: --din-repo PATH (a git dir or clone of zhougr1993/DeepInterestNetwork) is required"
        )
    ns, commit = load_din(repo)
    rng = np.random.default_rng(SEED)
    flat = flat_family(rng, large=False)
    for c in flat:
        c["results"] = din_flat_results(ns, c)
    paired = [din_paired_case(rng, f"din-paired-ties-{i}", int(rng.integers(1, 40)), True) for i in range(15)]
    paired += [
        din_paired_case(rng, f"din-paired-distinct-{i}", int(rng.integers(1, 40)), False) for i in range(5)
    ]
    paired += [din_paired_case(rng, "din-paired-ties-1200users", 1200, True)]
    for c in paired:
        c["ties_within_group"] = ties_within_group(c)
        c["results"] = din_eval_results(ns, c) + din_grouped_results(ns, c)
    grouped = [c for c in grouped_family(rng) if max(c["y"]) <= 1]
    for c in grouped:
        c["results"] = din_flat_results(ns, c) + din_grouped_results(ns, c)
    header = {
        "tool": "din",
        "version": commit,
        "backend": f"python {platform.python_version()} (DIN's functions exec'd from the repository)",
        "generated_by": GENERATED_BY,
        "seed": SEED,
        "notes": {
            "repository": "zhougr1993/DeepInterestNetwork",
            "commit": commit,
            "files": ["din/train.py", "din/input.py"],
            "test_batch_size": ns["test_batch_size"],
        },
    }
    write_fixture(outdir / "din.json", header, flat + paired + grouped)


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", default="torchmetrics,spark,keras,din")
    ap.add_argument("--din-repo", default=os.environ.get("DIN_REPO"))
    ap.add_argument("--out", default=str(HERE / "fixtures"))
    a = ap.parse_args(argv)
    outdir = Path(a.out)
    outdir.mkdir(parents=True, exist_ok=True)
    runners = {
        "torchmetrics": lambda: run_torchmetrics(outdir),
        "keras": lambda: run_keras(outdir),
        "spark": lambda: run_spark(outdir),
        "din": lambda: run_din(outdir, a.din_repo),
        "docs": lambda: run_docs(outdir),
        "metric": lambda: run_metric(outdir),
    }
    for tool in a.tools.split(","):
        t0 = time.time()
        runners[tool.strip()]()
        print(f"{tool}: {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
