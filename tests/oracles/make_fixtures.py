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

``--tools multiclass`` (issue 32) runs torchmetrics' exact multiclass and multilabel functions
(``torchmetrics.functional.classification``, ``thresholds=None``) and scikit-learn's counterparts on
the same seeded cases and writes ``torchmetrics_multiclass.json`` and the agreement table
``torchmetrics_multiclass.md`` (which names, with a source line, why each disagreement happens; a
disagreement no reason covers is printed as UNEXPLAINED). It needs scikit-learn too::

    python3.11 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install torch==2.13.0 torchmetrics==1.9.0 numpy==2.4.6 scikit-learn==1.9.1
    /tmp/oracle-venv/bin/python tests/oracles/make_fixtures.py --tools multiclass

Its format differs from the others': a case is ``{"name", "task": "multiclass" | "multilabel",
"num_classes" | "num_labels", "kind", "y", "s", "facts", "argmax" | "pred", "results"}`` with ``y`` the
labels (multiclass) or the 0/1 indicator rows (multilabel) and ``s`` the (n, K) score rows; a result is
``{"key", "call", "value" | "error", "dtype", "warnings", "sklearn": [{"name", "call", "value" |
"error", "warnings", "agreement"}]}``; a value is a number, a list (per class) or a list of lists
(the confusion matrix), NaN as null (``notes.nan``). The header's ``keys`` lists every result key a
case of each task holds, in order.

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
# multiclass and multilabel (issue 32): torchmetrics' exact functions, scikit-learn's beside them

MC_TOL = 1e-6  # "agree": every number within this (absolute), NaN only where the other is NaN
MC_BETA = 2.0  # the beta of multiclass_fbeta_score / fbeta_score
MC_KINDS = ("softmax", "softmax-2dp", "softmax-1dp", "raw", "raw-1dp", "softmax-round2")
ML_KINDS = ("sigmoid", "sigmoid-2dp", "sigmoid-1dp", "raw", "raw-1dp")
MC_SIZES = (1, 2, 3, 4, 6, 9, 15, 25, 40, 60, 100, 150, 220, 300)


def jnum(x):
    """A float for the multiclass fixtures: NaN as null (JSON has none), infinities as strings."""
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def jval(v):
    """A scalar, or a (nested) list of them, for JSON."""
    a = np.asarray(v, dtype=np.float64)
    if a.ndim == 0:
        return jnum(a)
    return [jval(x) for x in a]


def capture(fn):
    """fn() -> value, or the error it raised; with every warning it emitted (category: first line)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value, error = fn(), None
        except Exception as e:  # noqa: BLE001 - the tool's own failure is part of the oracle
            value, error = None, err(e)
    texts = []
    for w in seen:
        t = f"{w.category.__name__}: {str(w.message).strip().splitlines()[0]}"
        if t not in texts:
            texts.append(t)
    return value, error, texts


def tm_record(key, call, fn, sk):
    """One torchmetrics result (fn returns a tensor) with its scikit-learn counterparts."""
    v, e, ws = capture(fn)
    rec = {"key": key, "call": call}
    if e is None:
        rec["value"] = jval(v.detach().cpu().double().numpy())
        rec["dtype"] = tm_dtype(v)
    else:
        rec["error"] = e
    rec["warnings"] = ws
    rec["sklearn"] = [sk_record(name, scall, sfn) for name, scall, sfn in sk]
    return rec


def sk_record(name, call, fn):
    v, e, ws = capture(fn)
    rec = {"name": name, "call": call}
    if e is None:
        rec["value"] = jval(v)
    else:
        rec["error"] = e
    rec["warnings"] = ws
    return rec


def softmax_np(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def mc_scores(rng, y, k, kind):
    """(n, k) scores of one kind for labels y: probabilities (exact, or with ties on a 1/10 or 1/100 grid
    and still summing to 1, or rounded so they no longer do) or raw scores (outside [0, 1])."""
    n = len(y)
    z = rng.normal(0, 1, (n, k)) + rng.uniform(0, 2.5) * np.eye(k)[y]
    p = softmax_np(z)
    if kind == "softmax":
        return p
    if kind in ("softmax-2dp", "softmax-1dp"):
        m = 100 if kind == "softmax-2dp" else 10
        return np.array([rng.multinomial(m, row / row.sum()) for row in p], dtype=np.int64) / m
    if kind == "softmax-round2":
        return np.round(p, 2)
    if kind == "raw":
        return 2 * z
    return np.round(2 * z, 1)  # raw-1dp


def mc_case(rng, name, k, n, kind, absent=()):
    present = [c for c in range(k) if c not in absent]
    prior = rng.dirichlet(np.full(len(present), 2.0))
    y = rng.choice(present, size=n, p=prior)
    return {
        "name": name,
        "task": "multiclass",
        "num_classes": k,
        "kind": kind,
        "y": y,
        "s": mc_scores(rng, y, k, kind),
    }


def multiclass_cases(rng):
    """K = 2..7 classes, every kind of score, with and without a class absent from the targets; then
    all scores equal, one row, one class only, two classes absent."""
    out = []
    for k in range(2, 8):
        for kind in MC_KINDS:
            for absent in (False, True):
                if kind == "softmax-round2" and absent:
                    continue
                n = int(rng.choice(MC_SIZES))
                gone = (int(rng.integers(0, k)),) if absent else ()
                out.append(
                    mc_case(rng, f"mc-k{k}-{kind}-n{n}{'-absent' if absent else ''}", k, n, kind, gone)
                )
    for k in (2, 3, 5, 7):
        for i, kind in enumerate(("uniform", "raw-constant")):
            n = int(rng.integers(5, 60))
            c = mc_case(rng, f"mc-k{k}-all-equal-{kind}-n{n}", k, n, "softmax")
            c["kind"] = f"all-equal-{kind}"
            c["s"] = np.full((n, k), 1.0 / k if i == 0 else 2.5)
            out.append(c)
    for k in (3, 5, 7):
        out.append(mc_case(rng, f"mc-k{k}-softmax-n1", k, 1, "softmax"))
        out.append(mc_case(rng, f"mc-k{k}-softmax-1dp-n1", k, 1, "softmax-1dp"))
    for k in (3, 4):
        only = tuple(c for c in range(k) if c != 1)
        out.append(mc_case(rng, f"mc-k{k}-softmax-n30-one-class", k, 30, "softmax", only))
    for k in (5, 7):
        out.append(mc_case(rng, f"mc-k{k}-softmax-2dp-n80-two-absent", k, 80, "softmax-2dp", (0, 3)))
    return out


def ml_case(rng, name, k, n, kind, absent=None, full=None):
    prev = rng.uniform(0.1, 0.7, k)
    y = (rng.random((n, k)) < prev).astype(np.int64)
    if absent is not None:
        y[:, absent] = 0
    if full is not None:
        y[:, full] = 1
    z = rng.normal(0, 1, (n, k)) + rng.uniform(0, 2) * (2 * y - 1)
    p = 1 / (1 + np.exp(-z))
    s = {
        "sigmoid": p,
        "sigmoid-2dp": np.round(p, 2),
        "sigmoid-1dp": np.round(p, 1),
        "raw": 2 * z,
        "raw-1dp": np.round(2 * z, 1),
    }[kind]
    return {"name": name, "task": "multilabel", "num_labels": k, "kind": kind, "y": y, "s": s}


def multilabel_cases(rng):
    """2..6 labels, every kind of score, with and without a label that no row has; then a label every
    row has, all scores equal, one row."""
    out = []
    for k in range(2, 7):
        for kind in ML_KINDS:
            for absent in (False, True):
                n = int(rng.choice(MC_SIZES[:-1]))
                gone = int(rng.integers(0, k)) if absent else None
                name = f"ml-l{k}-{kind}-n{n}{'-absent' if absent else ''}"
                out.append(ml_case(rng, name, k, n, kind, absent=gone))
    for k in (3, 5):
        out.append(ml_case(rng, f"ml-l{k}-sigmoid-n40-full", k, 40, "sigmoid", full=1))
        c = ml_case(rng, f"ml-l{k}-all-equal-n25", k, 25, "sigmoid")
        c["kind"] = "all-equal"
        c["s"] = np.full((25, k), 0.5)
        out.append(c)
        out.append(ml_case(rng, f"ml-l{k}-sigmoid-1dp-n1", k, 1, "sigmoid-1dp"))
    return out


def _topk_boundary_ties(s, k):
    """Rows whose k-th and (k+1)-th largest scores tie (top-k is then a choice among tied classes)."""
    if k >= s.shape[1]:
        return 0
    srt = -np.sort(-s, axis=1)
    return int((srt[:, k - 1] == srt[:, k]).sum())


def mc_facts(c, ranked, pred):
    """What the disagreements turn on, computed here (numpy) for the table and for later tests."""
    y, s, k = c["y"], c["s"], c["num_classes"]
    top = s.max(axis=1, keepdims=True)
    return {
        "absent_from_targets": [j for j in range(k) if not (y == j).any()],
        "every_target": [j for j in range(k) if (y == j).all()],
        "never_predicted": [j for j in range(k) if not (pred == j).any()],
        "absent_from_both": [j for j in range(k) if not (y == j).any() and not (pred == j).any()],
        "rows_with_argmax_tie": int(((s == top).sum(axis=1) > 1).sum()),
        "rows_with_top2_boundary_tie": _topk_boundary_ties(s, 2),
        "rows_with_top3_boundary_tie": _topk_boundary_ties(s, 3),
        "softmaxed": bool(not np.array_equal(ranked, s)),
        "rows_sum_to_one": bool(np.allclose(s.sum(axis=1), 1.0)),
    }


def ml_facts(c, pred):
    y, s = c["y"], c["s"]
    npos = y.sum(axis=1)
    tied_pairs = 0
    for i in range(len(y)):
        rel, irr = s[i][y[i] == 1], s[i][y[i] == 0]
        tied_pairs += int((rel[:, None] == irr[None, :]).sum())
    return {
        "labels_without_positives": [j for j in range(y.shape[1]) if not y[:, j].any()],
        "labels_without_negatives": [j for j in range(y.shape[1]) if y[:, j].all()],
        "labels_never_predicted": [j for j in range(y.shape[1]) if not pred[:, j].any()],
        "rows_without_positives": int((npos == 0).sum()),
        "rows_all_positive": int((npos == y.shape[1]).sum()),
        "tied_relevant_irrelevant_pairs": tied_pairs,
        "sigmoided": bool(np.any((s < 0) | (s > 1))),
    }


def _sk_avg(avg):
    return None if avg == "none" else avg


def mc_ranking_specs(T, Y, k, y, s, ranked, softmaxed):
    """multiclass_auroc and multiclass_average_precision, with scikit-learn's ovr and one-hot calls."""
    import torchmetrics.functional.classification as F
    from sklearn.metrics import average_precision_score, roc_auc_score

    onehot = np.eye(k, dtype=np.int64)[y]
    labels = list(range(k))
    inputs = [("s", s)] + ([("softmax(s)", ranked)] if softmaxed else [])
    specs = []
    for avg in ("macro", "weighted", "none"):
        sk = []
        for iname, x in inputs:
            tag = "" if iname == "s" else "@softmax"
            sk.append(
                (
                    "ovr" + tag,
                    f"roc_auc_score(y, {iname}, multi_class='ovr', average={_sk_avg(avg)!r}, "
                    "labels=range(K))",
                    lambda x=x, avg=avg: roc_auc_score(
                        y, x, multi_class="ovr", average=_sk_avg(avg), labels=labels
                    ),
                )
            )
            sk.append(
                (
                    "onehot" + tag,
                    f"roc_auc_score(onehot(y), {iname}, average={_sk_avg(avg)!r})",
                    lambda x=x, avg=avg: roc_auc_score(onehot, x, average=_sk_avg(avg)),
                )
            )
        specs.append(
            (
                f"multiclass_auroc[average={avg}]",
                f"multiclass_auroc(preds, target, num_classes=K, average={avg!r}, thresholds=None)",
                lambda avg=avg: F.multiclass_auroc(T, Y, num_classes=k, average=avg, thresholds=None),
                sk,
            )
        )
        sk = [
            (
                "onehot" + ("" if iname == "s" else "@softmax"),
                f"average_precision_score(onehot(y), {iname}, average={_sk_avg(avg)!r})",
                lambda x=x, avg=avg: average_precision_score(onehot, x, average=_sk_avg(avg)),
            )
            for iname, x in inputs
        ]
        specs.append(
            (
                f"multiclass_average_precision[average={avg}]",
                f"multiclass_average_precision(preds, target, num_classes=K, average={avg!r}, "
                "thresholds=None)",
                lambda avg=avg: F.multiclass_average_precision(
                    T, Y, num_classes=k, average=avg, thresholds=None
                ),
                sk,
            )
        )
    return specs


def mc_accuracy_specs(T, Y, k, y, s, pred):
    import torchmetrics.functional.classification as F
    from sklearn import metrics as M

    labels = list(range(k))
    specs = []
    for top_k in (1, 2, 3):
        for avg in ("micro", "macro", "none"):
            sk = []
            if avg == "micro":
                if top_k == 1:
                    sk.append(("accuracy", "accuracy_score(y, argmax(s))", lambda: M.accuracy_score(y, pred)))
                sk.append(
                    (
                        "top_k_accuracy",
                        f"top_k_accuracy_score(y, s, k={top_k}, labels=range(K))",
                        lambda t=top_k: M.top_k_accuracy_score(y, s, k=t, labels=labels),
                    )
                )
            elif top_k == 1 and avg == "macro":
                sk += [
                    (
                        "balanced_accuracy",
                        "balanced_accuracy_score(y, argmax(s))",
                        lambda: M.balanced_accuracy_score(y, pred),
                    ),
                    (
                        "recall",
                        "recall_score(y, argmax(s), average='macro')",
                        lambda: M.recall_score(y, pred, average="macro"),
                    ),
                    (
                        "recall[labels=range(K)]",
                        "recall_score(y, argmax(s), average='macro', labels=range(K))",
                        lambda: M.recall_score(y, pred, average="macro", labels=labels),
                    ),
                ]
            elif top_k == 1:
                sk.append(
                    (
                        "recall[labels=range(K)]",
                        "recall_score(y, argmax(s), average=None, labels=range(K))",
                        lambda: M.recall_score(y, pred, average=None, labels=labels),
                    )
                )
            specs.append(
                (
                    f"multiclass_accuracy[average={avg},top_k={top_k}]",
                    f"multiclass_accuracy(preds, target, num_classes=K, average={avg!r}, top_k={top_k})",
                    lambda avg=avg, t=top_k: F.multiclass_accuracy(T, Y, num_classes=k, average=avg, top_k=t),
                    sk,
                )
            )
    return specs


def mc_label_specs(T, Y, k, y, pred):
    """precision, recall, F1, F-beta, MCC, kappa, the confusion matrix: on argmax(s) for scikit-learn."""
    import torchmetrics.functional.classification as F
    from sklearn import metrics as M

    labels = list(range(k))
    fams = [
        ("precision", F.multiclass_precision, M.precision_score, {}),
        ("recall", F.multiclass_recall, M.recall_score, {}),
        ("f1_score", F.multiclass_f1_score, M.f1_score, {}),
        ("fbeta_score", F.multiclass_fbeta_score, M.fbeta_score, {"beta": MC_BETA}),
    ]
    specs = []
    for name, tf, sf, kw in fams:
        extra = "".join(f", {a}={b!r}" for a, b in kw.items())
        sname = sf.__name__
        for avg in ("micro", "macro", "weighted", "none"):
            sk = [
                (
                    f"{sname}[labels=range(K)]",
                    f"{sname}(y, argmax(s){extra}, average={_sk_avg(avg)!r}, labels=range(K))",
                    lambda sf=sf, kw=kw, avg=avg: sf(y, pred, average=_sk_avg(avg), labels=labels, **kw),
                )
            ]
            if avg != "none":
                sk.append(
                    (
                        sname,
                        f"{sname}(y, argmax(s){extra}, average={avg!r})",
                        lambda sf=sf, kw=kw, avg=avg: sf(y, pred, average=avg, **kw),
                    )
                )
            specs.append(
                (
                    f"multiclass_{name}[average={avg}]",
                    f"multiclass_{name}(preds, target, num_classes=K{extra}, average={avg!r})",
                    lambda tf=tf, kw=kw, avg=avg: tf(T, Y, num_classes=k, average=avg, **kw),
                    sk,
                )
            )
    specs.append(
        (
            "multiclass_matthews_corrcoef",
            "multiclass_matthews_corrcoef(preds, target, num_classes=K)",
            lambda: F.multiclass_matthews_corrcoef(T, Y, num_classes=k),
            [("matthews_corrcoef", "matthews_corrcoef(y, argmax(s))", lambda: M.matthews_corrcoef(y, pred))],
        )
    )
    for w in ("none", "linear", "quadratic"):
        sw = None if w == "none" else w
        specs.append(
            (
                f"multiclass_cohen_kappa[weights={w}]",
                f"multiclass_cohen_kappa(preds, target, num_classes=K, weights={sw!r})",
                lambda sw=sw: F.multiclass_cohen_kappa(T, Y, num_classes=k, weights=sw),
                [
                    (
                        "cohen_kappa[labels=range(K)]",
                        f"cohen_kappa_score(y, argmax(s), weights={sw!r}, labels=range(K))",
                        lambda sw=sw: M.cohen_kappa_score(y, pred, weights=sw, labels=labels),
                    ),
                    (
                        "cohen_kappa",
                        f"cohen_kappa_score(y, argmax(s), weights={sw!r})",
                        lambda sw=sw: M.cohen_kappa_score(y, pred, weights=sw),
                    ),
                ],
            )
        )
    specs.append(
        (
            "multiclass_confusion_matrix",
            "multiclass_confusion_matrix(preds, target, num_classes=K)",
            lambda: F.multiclass_confusion_matrix(T, Y, num_classes=k),
            [
                (
                    "confusion_matrix[labels=range(K)]",
                    "confusion_matrix(y, argmax(s), labels=range(K))",
                    lambda: M.confusion_matrix(y, pred, labels=labels),
                )
            ],
        )
    )
    return specs


def mc_results(c):
    import torch
    from torchmetrics.utilities.compute import normalize_logits_if_needed

    k, y, s = c["num_classes"], c["y"], c["s"]
    T, Y = torch.tensor(s, dtype=torch.float64), torch.tensor(y, dtype=torch.long)
    ranked = normalize_logits_if_needed(T, "softmax").numpy()  # what the ranking functions rank
    pred = T.argmax(dim=1).numpy()  # what the label functions count (top_k=1)
    assert np.array_equal(pred, np.argmax(s, axis=1))  # both take the first of tied maxima
    c["facts"] = mc_facts(c, ranked, pred)
    c["argmax"] = pred
    softmaxed = c["facts"]["softmaxed"]
    specs = mc_ranking_specs(T, Y, k, y, s, ranked, softmaxed)
    specs += mc_accuracy_specs(T, Y, k, y, s, pred)
    specs += mc_label_specs(T, Y, k, y, pred)
    return [tm_record(key, call, fn, sk) for key, call, fn, sk in specs]


def ml_specs(T, Y, k, y, s, pred):
    import torchmetrics.functional.classification as F
    from sklearn import metrics as M

    specs = []
    for fam, tf, sf in (
        ("auroc", F.multilabel_auroc, M.roc_auc_score),
        ("average_precision", F.multilabel_average_precision, M.average_precision_score),
    ):
        for avg in ("macro", "micro", "weighted", "none"):
            specs.append(
                (
                    f"multilabel_{fam}[average={avg}]",
                    f"multilabel_{fam}(preds, target, num_labels=L, average={avg!r}, thresholds=None)",
                    lambda tf=tf, avg=avg: tf(T, Y, num_labels=k, average=avg, thresholds=None),
                    [
                        (
                            sf.__name__,
                            f"{sf.__name__}(y, s, average={_sk_avg(avg)!r})",
                            lambda sf=sf, avg=avg: sf(y, s, average=_sk_avg(avg)),
                        )
                    ],
                )
            )
    for tname, sf in (
        ("ranking_average_precision", M.label_ranking_average_precision_score),
        ("coverage_error", M.coverage_error),
        ("ranking_loss", M.label_ranking_loss),
    ):
        specs.append(
            (
                f"multilabel_{tname}",
                f"multilabel_{tname}(preds, target, num_labels=L)",
                lambda tname=tname: getattr(F, f"multilabel_{tname}")(T, Y, num_labels=k),
                [(sf.__name__, f"{sf.__name__}(y, s)", lambda sf=sf: sf(y, s))],
            )
        )
    for avg in ("micro", "macro"):
        specs.append(
            (
                f"multilabel_hamming_distance[average={avg}]",
                f"multilabel_hamming_distance(preds, target, num_labels=L, average={avg!r})",
                lambda avg=avg: F.multilabel_hamming_distance(T, Y, num_labels=k, average=avg),
                [("hamming_loss", "hamming_loss(y, pred)", lambda: M.hamming_loss(y, pred))],
            )
        )
    specs.append(
        (
            "multilabel_exact_match",
            "multilabel_exact_match(preds, target, num_labels=L)",
            lambda: F.multilabel_exact_match(T, Y, num_labels=k),
            [("accuracy", "accuracy_score(y, pred)", lambda: M.accuracy_score(y, pred))],
        )
    )
    for avg in ("micro", "macro", "weighted", "samples", "none"):
        specs.append(
            (
                f"multilabel_f1_score[average={avg}]",
                f"multilabel_f1_score(preds, target, num_labels=L, average={avg!r})",
                lambda avg=avg: F.multilabel_f1_score(T, Y, num_labels=k, average=avg),
                [
                    (
                        "f1_score",
                        f"f1_score(y, pred, average={_sk_avg(avg)!r})",
                        lambda avg=avg: M.f1_score(y, pred, average=_sk_avg(avg)),
                    )
                ],
            )
        )
    return specs


def ml_results(c):
    import torch
    from torchmetrics.utilities.compute import normalize_logits_if_needed

    k, y, s = c["num_labels"], c["y"], c["s"]
    T, Y = torch.tensor(s, dtype=torch.float64), torch.tensor(y, dtype=torch.long)
    pred = (normalize_logits_if_needed(T, "sigmoid") > 0.5).long().numpy()  # threshold=0.5, as the F1 etc.
    c["facts"] = ml_facts(c, pred)
    c["pred"] = pred
    return [tm_record(key, call, fn, sk) for key, call, fn, sk in ml_specs(T, Y, k, y, s, pred)]


def mc_compare(a, b):
    """One torchmetrics record against one scikit-learn record: agree / disagree / which refused."""
    if "error" in a or "error" in b:
        return {(True, True): "both_error", (True, False): "tm_error", (False, True): "sk_error"}[
            ("error" in a, "error" in b)
        ]
    x = np.asarray(a["value"], dtype=np.float64)
    z = np.asarray(b["value"], dtype=np.float64)
    if x.shape != z.shape:
        return "disagree"
    same = (np.abs(x - z) <= MC_TOL) | (np.isnan(x) & np.isnan(z))
    return "agree" if bool(same.all()) else "disagree"


def mc_jsonable(c):
    d = {}
    for key, v in c.items():
        if isinstance(v, np.ndarray):
            d[key] = v.tolist() if v.dtype.kind in "iub" else jval(v)
        else:
            d[key] = v
    return d


def run_multiclass(outdir):
    """torchmetrics' exact multiclass and multilabel functions, scikit-learn's beside them, on seeded
    cases; writes torchmetrics_multiclass.json and the agreement table torchmetrics_multiclass.md."""
    import sklearn
    import torch
    import torchmetrics

    rng = np.random.default_rng(SEED)
    mc, ml = multiclass_cases(rng), multilabel_cases(rng)
    for c in mc:
        c["results"] = mc_results(c)
    for c in ml:
        c["results"] = ml_results(c)
    for c in mc + ml:
        for r in c["results"]:
            for sk in r["sklearn"]:
                sk["agreement"] = mc_compare(r, sk)
    header = {
        "tool": "torchmetrics",
        "version": torchmetrics.__version__,
        "backend": f"torch {torch.__version__}",
        "sklearn_version": sklearn.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "generated_by": GENERATED_BY,
        "generated_with": "--tools multiclass",
        "seed": SEED,
        "keys": {
            "multiclass": [r["key"] for r in mc[0]["results"]],
            "multilabel": [r["key"] for r in ml[0]["results"]],
        },
        "notes": MC_NOTES,
    }
    cases = [mc_jsonable(c) for c in mc + ml]
    write_fixture(outdir / "torchmetrics_multiclass.json", header, cases)
    write_agreement_md(outdir / "torchmetrics_multiclass.md", header, cases)


MC_STATUSES = ("agree", "disagree", "tm_error", "sk_error", "both_error")


def mc_rows(cases):
    """(key, sklearn name) -> list of (case, tm record, sk record), in the fixture's order."""
    rows = {}
    for c in cases:
        for r in c["results"]:
            for sk in r["sklearn"]:
                rows.setdefault((r["key"], sk["name"]), []).append((c, r, sk))
    return rows


def mc_explain(key, name, triples):
    """Each comparison that is not 'agree' gets the first reason of MC_REASONS whose test holds."""
    counts, reasons, unexplained = dict.fromkeys(MC_STATUSES, 0), {}, []
    for c, r, sk in triples:
        st = sk["agreement"]
        counts[st] += 1
        if st == "agree":
            continue
        for rid in mc_reason_ids(key, name):
            if MC_REASONS[rid][0](c, r, sk):
                reasons[rid] = reasons.get(rid, 0) + 1
                break
        else:
            unexplained.append(c["name"])
    return counts, reasons, unexplained


def write_agreement_md(path, header, cases):
    rows = mc_rows(cases)
    lines = [
        "# torchmetrics against scikit-learn: multiclass and multilabel",
        "",
        f"Made by `{header['generated_by']} {header['generated_with']}` (do not edit by hand) from the "
        "cases of "
        f"`torchmetrics_multiclass.json`: torchmetrics {header['version']} ({header['backend']}), "
        f"scikit-learn {header['sklearn_version']}, numpy {header['numpy_version']}, seed {header['seed']}. "
        f"Agree: {MC_NOTES['agreement']}.",
        "",
        "Columns: cases compared; agree; disagree; only torchmetrics raised; only scikit-learn raised; both "
        "raised. Every case that is not 'agree' is put under the first reason (below) whose test holds for "
        "it; "
        "a case no reason covers is listed as UNEXPLAINED.",
        "",
        "| torchmetrics | scikit-learn | n | agree | disagree | tm error | sk error | both error | why "
        "(cases) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total_unexplained = []
    for (key, name), triples in rows.items():
        counts, reasons, unexplained = mc_explain(key, name, triples)
        why = ", ".join(f"{rid} ({n})" for rid, n in reasons.items())
        if unexplained:
            why += (", " if why else "") + f"UNEXPLAINED ({len(unexplained)}: {', '.join(unexplained[:4])})"
            total_unexplained += unexplained
        cells = " | ".join(str(counts[s]) for s in MC_STATUSES)
        lines.append(f"| `{key}` | `{name}` | {len(triples)} | {cells} | {why} |")
    dtypes = sorted({r["dtype"] for c in cases for r in c["results"] if r.get("dtype")})
    lines += [
        "",
        f"torchmetrics returned these dtypes from float64 scores: {', '.join(dtypes)} (each result records "
        "its "
        "own); float32 is why 'agree' is within 1e-6 and not closer. Rows marked `@softmax` exist only for "
        "the "
        "multiclass cases whose scores torchmetrics softmaxed.",
        "",
        "## Reasons",
        "",
    ]
    for rid, (_, text) in MC_REASONS.items():
        lines.append(f"- **{rid}**: {text}")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}; {len(total_unexplained)} comparisons unexplained")


def mc_reason_ids(key, name):
    return [rid for rid, pats in MC_REASON_MAP if _fnmatch_any(key, name, pats)]


def _fnmatch_any(key, name, pats):
    import fnmatch

    return any(fnmatch.fnmatchcase(key, kp) and fnmatch.fnmatchcase(name, np_) for kp, np_ in pats)


def _diff_positions(r, sk):
    """The per-class positions where the two 'none' values differ (None when not comparable)."""
    if "value" not in r or "value" not in sk:
        return None
    x, z = np.asarray(r["value"], dtype=np.float64), np.asarray(sk["value"], dtype=np.float64)
    if x.ndim != 1 or x.shape != z.shape:
        return None
    same = (np.abs(x - z) <= MC_TOL) | (np.isnan(x) & np.isnan(z))
    return set(np.flatnonzero(~same).tolist())


def _one_sided(c):
    """Classes (labels) whose one-vs-rest targets are all one value: no positives or no negatives."""
    f = c["facts"]
    if c["task"] == "multiclass":
        return set(f["absent_from_targets"]) | set(f["every_target"])
    return set(f["labels_without_positives"]) | set(f["labels_without_negatives"])


def _only_at(c, r, sk, where):
    """The case has such classes and, for a per-class value, the differences are only there."""
    if not where:
        return False
    pos = _diff_positions(r, sk)
    return pos is None or pos <= where


def _kappa_gap(c):
    f = c["facts"]
    seen = sorted(set(c["y"].tolist() if isinstance(c["y"], np.ndarray) else c["y"]) | set(c["argmax"]))
    return any(seen[0] < j < seen[-1] for j in f["absent_from_both"])


MC_REASONS = {
    "ovr-k2": (
        lambda c, r, sk: c["num_classes"] == 2 and sk["agreement"] == "sk_error",
        "K = 2: `roc_auc_score(y, s, multi_class='ovr')` with binary y takes its binary branch "
        "(sklearn/metrics/_ranking.py:730-737), which wants the positive class's column: an (n, 2) score "
        "array raises 'y should be a 1d array' (sklearn/utils/validation.py:1451). The one-hot call works.",
    ),
    "ovr-not-probabilities": (
        lambda c, r, sk: not c["facts"]["rows_sum_to_one"] and sk["agreement"] == "sk_error",
        "Rows of s that do not sum to 1 (raw scores; probabilities rounded to 2 decimals): "
        "`multi_class='ovr'` refuses them, 'Target scores need to be probabilities for multiclass roc_auc' "
        "(sklearn/metrics/_ranking.py:804-808); torchmetrics ranks them (softmaxed if any is outside [0, "
        "1]).",
    ),
    "softmax": (
        lambda c, r, sk: c["facts"]["softmaxed"] and not sk["name"].endswith("@softmax"),
        "Scores outside [0, 1]: torchmetrics replaces the whole tensor by its softmax over the classes "
        "(torchmetrics/utilities/compute.py:233-234, called at "
        "functional/classification/precision_recall_curve.py:455) and ranks each class's column of "
        "probabilities, which is not the order of the raw column scikit-learn ranks. The `@softmax` rows "
        "give "
        "scikit-learn the same softmax(s).",
    ),
    "auc-one-sided": (
        lambda c, r, sk: _only_at(c, r, sk, _one_sided(c)),
        "A class (label) with no positive targets, or no negative ones: torchmetrics sets its TPR (FPR) "
        "curve "
        "to zeros with a UserWarning (functional/classification/roc.py:60-76), so its AUC is 0, and the "
        "macro "
        "average takes that 0 in (auroc.py:57-66 leave out only NaN); weighted weighs it by its positives "
        "(auroc.py:204, 332), so a class without positives drops out and one without negatives stays in with "
        "0. "
        "scikit-learn returns NaN for it with UndefinedMetricWarning 'Only one class is present in y_true' "
        "(sklearn/metrics/_ranking.py:466-476), so macro is NaN, and weighted sets a 0-weight NaN to 0 "
        "(sklearn/metrics/_base.py:136): NaN only when a class has no negatives.",
    ),
    "ap-absent": (
        lambda c, r, sk: _only_at(c, r, sk, set(c["facts"]["absent_from_targets"])),
        "A class absent from the targets: torchmetrics' recall for it is 0/0 = NaN "
        "(functional/classification/precision_recall_curve.py:278), its AP NaN, and macro leaves it out with "
        "the UserWarning 'Average precision score for one or more classes was `nan`. Ignoring these classes "
        "in "
        "macro-average' (average_precision.py:55-65); scikit-learn warns 'No positive class found in y_true, "
        "recall is set to one for all thresholds' (sklearn/metrics/_ranking.py:1189-1196), scores it 0 and "
        "averages that 0 into macro. Weighted agrees (the class weighs 0 in both). When every target is "
        "class 0, the check at precision_recall_curve.py:279 (written for binary 0/1 targets) fires for "
        "every "
        "class: recall is set to one and the absent classes score -0.0, as scikit-learn's 0.",
    ),
    "topk-k2": (
        lambda c, r, sk: c["num_classes"] == 2 and sk["agreement"] in ("sk_error", "both_error"),
        "K = 2: `top_k_accuracy_score` with binary y and an (n, 2) score array raises '`y_true` is binary "
        "while "
        "y_score is 2d with 2 classes' even with labels=[0, 1] (sklearn/metrics/_ranking.py:2169-2175); it "
        "wants the positive class's column. For top_k=3 torchmetrics also raises 'Expected argument `top_k` "
        "to "
        "be smaller or equal to `num_classes`' (functional/classification/stat_scores.py:246-248).",
    ),
    "argmax-tie": (
        lambda c, r, sk: c["facts"]["rows_with_argmax_tie"] > 0,
        "Rows whose largest score is tied: torchmetrics predicts the first of the tied classes "
        "(torch.argmax, "
        "functional/classification/stat_scores.py:341), `top_k_accuracy_score` the last (a stable ascending "
        "argsort, reversed: sklearn/metrics/_ranking.py:2239). `accuracy_score` on the same argmax agrees.",
    ),
    "topk-tie": (
        lambda c, r, sk: c["facts"][f"rows_with_top{r['key'][-2]}_boundary_tie"] > 0,
        "Rows whose k-th and (k+1)-th largest scores tie: which tied classes are in the top k is a choice, "
        "torch.topk's in torchmetrics (torchmetrics/utilities/data.py:121, from "
        "functional/classification/stat_scores.py:403-404), the highest class indices in scikit-learn (a "
        "stable "
        "ascending argsort, reversed: sklearn/metrics/_ranking.py:2239).",
    ),
    "balanced-absent": (
        lambda c, r, sk: bool(set(c["facts"]["absent_from_targets"]) - set(c["facts"]["absent_from_both"])),
        "A class predicted but absent from the targets: torchmetrics' macro accuracy (the mean per-class "
        "recall) keeps it, recall 0/0 -> 0 with weight 1 since tp + fp + fn > 0 "
        "(torchmetrics/utilities/compute.py:87-93); `balanced_accuracy_score` drops it with the warning "
        "'y_pred contains classes not in y_true' (sklearn/metrics/_classification.py:2937-2940). "
        "`recall_score(average='macro')` keeps it, as torchmetrics does, and agrees.",
    ),
    "macro-absent-both": (
        lambda c, r, sk: bool(c["facts"]["absent_from_both"]),
        "A class absent from both the targets and argmax(s): torchmetrics' macro gives it weight 0 "
        "(tp + fp + fn == 0: torchmetrics/utilities/compute.py:91-92), so it averages the classes seen; "
        "scikit-learn with labels=range(K) averages every listed label, that one at 0 (zero_division, "
        "sklearn/metrics/_classification.py:1859-1869, with an UndefinedMetricWarning). Without labels= "
        "scikit-learn takes the labels present in y or y_pred (sklearn/metrics/_classification.py:749-750) "
        "and agrees.",
    ),
    "mcc-k2": (
        lambda c, r, sk: (
            c["num_classes"] == 2 and bool(c["facts"]["absent_from_targets"] or c["facts"]["never_predicted"])
        ),
        "K = 2 with every target, or every prediction, in one class: the 2x2 confusion matrix takes "
        "torchmetrics' binary shortcuts (functional/classification/matthews_corrcoef.py:46-52: 1.0 when "
        "fp + fn == 0) or its eps path (matthews_corrcoef.py:67-85: a zero denominator rebuilt from products "
        "with eps = float32 machine epsilon), which returns a number (seen here from -0.04 to 1.0); "
        "scikit-learn returns 0.0 when the denominator is 0 (sklearn/metrics/_classification.py:1336-1338).",
    ),
    "kappa-gap": (
        lambda c, r, sk: _kappa_gap(c),
        "A class absent from both y and argmax(s), between two that occur: without labels= "
        "`cohen_kappa_score` builds its confusion matrix on the labels present "
        "(sklearn/metrics/_classification.py:978, 558-559) and its linear/quadratic weights are differences "
        "of "
        "positions in that list (sklearn/metrics/_classification.py:1017-1023), so the gap closes; "
        "torchmetrics' weights are differences of the codes 0..K-1 (functional/classification/"
        "cohen_kappa.py:45-48). With labels=range(K) they agree.",
    ),
    "ranking-loss-ties": (
        lambda c, r, sk: c["facts"]["tied_relevant_irrelevant_pairs"] > 0,
        "A relevant and an irrelevant label tied in a row: scikit-learn counts the pair as misordered (the "
        "cumulative count includes the tied score: sklearn/metrics/_ranking.py:1642); torchmetrics ranks by "
        "`preds.argsort(dim=1).argsort(dim=1)` (functional/classification/ranking.py:208), which puts tied "
        "scores in argsort's order (torch.argsort is not stable by default; by position here), so a tied "
        "pair "
        "counts only when that order puts the irrelevant label above the relevant one.",
    ),
    "f1-samples": (
        lambda c, r, sk: "error" in r and "samples" in r["key"],
        "torchmetrics has no average='samples': it raises 'Expected argument `average` to be one of "
        "('micro', 'macro', 'weighted', 'none', None)' (functional/classification/stat_scores.py:619-621).",
    ),
}
MC_REASON_MAP = [
    ("ovr-k2", [("multiclass_auroc*", "ovr*")]),
    ("ovr-not-probabilities", [("multiclass_auroc*", "ovr*")]),
    ("softmax", [("multiclass_auroc*", "*"), ("multiclass_average_precision*", "*")]),
    ("auc-one-sided", [("multiclass_auroc*", "*"), ("multilabel_auroc*", "*")]),
    ("ap-absent", [("multiclass_average_precision*", "*")]),
    ("topk-k2", [("multiclass_accuracy*", "top_k_accuracy")]),
    ("argmax-tie", [("multiclass_accuracy*top_k=1]", "top_k_accuracy")]),
    ("topk-tie", [("multiclass_accuracy*top_k=[23]]", "top_k_accuracy")]),
    ("balanced-absent", [("multiclass_accuracy*", "balanced_accuracy")]),
    ("macro-absent-both", [("multiclass_*macro*", "*labels=range(K)]")]),
    ("mcc-k2", [("multiclass_matthews_corrcoef", "*")]),
    ("kappa-gap", [("multiclass_cohen_kappa*", "cohen_kappa")]),
    ("ranking-loss-ties", [("multilabel_ranking_loss", "*")]),
    ("f1-samples", [("multilabel_f1_score*", "*")]),
]

MC_NOTES = {
    "nan": "NaN is stored as null (JSON has no NaN): in s never, in a value wherever the tool returned NaN",
    "preds": "torch.tensor(s, dtype=torch.float64), target torch.tensor(y, dtype=torch.long); "
    "torchmetrics.functional.classification, validate_args=True, thresholds=None where the function has it",
    "argmax": "multiclass: argmax(s) (torch.argmax = numpy.argmax: the first of tied maxima) is the "
    "prediction torchmetrics' label functions count at top_k=1 and scikit-learn's label functions are given",
    "pred": "multilabel: sigmoid(s) > 0.5 if any score is outside [0, 1], else s > 0.5 (torchmetrics' "
    "threshold=0.5), the prediction scikit-learn's label functions are given",
    "softmax": "torchmetrics' ranking functions softmax (multiclass) or sigmoid (multilabel) the whole "
    "score tensor when any score is outside [0, 1] (torchmetrics/utilities/compute.py:233-234); "
    "scikit-learn is given s as is, and for such multiclass cases also softmax(s) (variants '@softmax')",
    "agreement": f"every number within {MC_TOL} (absolute), NaN where the other is NaN, the same shape",
    "fbeta_beta": MC_BETA,
    "warnings": "every warning a call emitted, 'Category: first line', each text once",
}


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
        "multiclass": lambda: run_multiclass(outdir),
    }
    for tool in a.tools.split(","):
        t0 = time.time()
        runners[tool.strip()]()
        print(f"{tool}: {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
