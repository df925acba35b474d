"""The dialects of the heavy tools against their committed fixtures: torchmetrics 1.9, Keras 3
(torch backend), Spark 4.3 (one partition) and DIN's evaluation code, each run for real by
tests/oracles/make_fixtures.py on seeded tie-heavy cases (inputs and outputs in
tests/oracles/fixtures/).  Tolerances, as each tool computes: torchmetrics and Keras return float32
(2e-6 absolute; Keras also sums in float32: 2e-5 on 1000 thresholds), Spark and DIN float64 (1e-12).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

import perfeval
from perfeval.exceptions import InvalidDataError

FIXTURES = Path(__file__).resolve().parent / "oracles" / "fixtures"


def _load(tool: str) -> dict:
    return json.loads((FIXTURES / f"{tool}.json").read_text())


def _says(tool: str, checked: int) -> bool:
    """docs/dialects.md's "How it is checked" gives the number of values checked for the tool."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "dialects.md").read_text().replace("\n  ", " ")
    return f"{tool} ({checked:,} values" in text


def _value(r: dict) -> float:
    v = r["value"]
    return math.nan if v == "nan" else float(v)


def _arrays(c: dict) -> tuple[np.ndarray, np.ndarray, Any, Any]:
    return np.asarray(c["y"]), np.asarray(c["s"], dtype=np.float64), c.get("w"), c.get("g")


# -- torchmetrics -------------------------------------------------------------------------------------
def _torchmetrics(c: dict, r: dict) -> tuple[float, float] | None:
    """(perfeval's value, tolerance) for one torchmetrics result, or None when the call is not one the
    dialect has (a list of thresholds)."""
    y, s, _w, g = _arrays(c)
    opts = r.get("options", {})
    call = r["call"]
    tol = 2e-6
    if call.startswith("torchmetrics.functional.classification"):
        thr = opts.get("thresholds")
        if isinstance(thr, list):
            return None
        if opts.get("preds_dtype") == "float32":
            s = s.astype(np.float32).astype(np.float64)
        dialect = "torchmetrics" if thr is None else f"torchmetrics:thresholds={thr}"
        m = "roc" if r["measure"] == "ROC" else "ap"
        return perfeval.evaluate(y, s, measures=[m], dialect=dialect)[m.upper()], tol
    k = opts.get("top_k")
    at = "" if k is None else f"@{k}"
    empty = opts.get("empty_target_action", "neg")
    dialect = f"torchmetrics:empty_target_action={empty}"
    groups = np.zeros(len(y), dtype=np.int64) if g is None else np.asarray(g)
    name = {
        "NDCG": "ndcg",
        "MAP": "map",
        "MRR": "mrr",
        "P": "p",
        "R": "r",
        "ROC": "gauc_unweighted",
        "GAUC_UNWEIGHTED": "gauc_unweighted",
    }[r["measure"]]
    if name in ("p", "r") and not at:
        at = "@0"
    rep = perfeval.evaluate(y, s, groups=groups, measures=[name + at], dialect=dialect)
    return next(iter(rep.results.values())).value, tol


def _check(tool: str, fn) -> tuple[int, list[str]]:
    data = _load(tool)
    checked, bad = 0, []
    for c in data["cases"]:
        for r in c["results"]:
            if "error" in r:
                continue
            try:
                got = fn(c, r)
            except InvalidDataError as e:
                if c.get("ties_within_group") and "torch.topk" in str(e):
                    continue  # refused, rightly: the tool's order of these ties is unspecified
                bad.append(f"{c['name']} {r['call']}: raised {e}")
                continue
            if got is None:
                continue
            value, tol = got
            want = _value(r)
            checked += 1
            if not (math.isnan(want) and math.isnan(value)) and not abs(value - want) <= tol:
                bad.append(f"{c['name']} {r['call']} {r.get('options')}: perfeval {value!r}, {tool} {want!r}")
    return checked, bad


def test_torchmetrics_fixtures():
    checked, bad = _check("torchmetrics", _torchmetrics)
    assert not bad, f"{len(bad)} of {checked + len(bad)}:\n" + "\n".join(bad[:25])
    assert checked > 2000 and _says("torchmetrics", checked)


# -- Keras --------------------------------------------------------------------------------------------
def _keras(c: dict, r: dict) -> tuple[float, float]:
    y, s, w, _g = _arrays(c)
    o = r["options"]
    dialect = f"keras:num_thresholds={o['num_thresholds']}:summation_method={o['summation_method']}"
    m = "roc" if o["curve"] == "ROC" else "ap"
    weights = None if "sample_weight" not in o else np.asarray(w, dtype=np.float64)
    value = perfeval.evaluate(y, s, measures=[m], sample_weight=weights, dialect=dialect)[m.upper()]
    return value, 2e-5 if o["num_thresholds"] >= 1000 else 2e-6


def test_keras_fixtures():
    checked, bad = _check("keras", _keras)
    assert not bad, f"{len(bad)} of {checked + len(bad)}:\n" + "\n".join(bad[:25])
    assert checked > 3000 and _says("Keras", checked)


# -- Spark --------------------------------------------------------------------------------------------
def _spark(c: dict, r: dict) -> tuple[float, float]:
    y, s, w, _g = _arrays(c)
    o = r["options"]
    bins = o.get("numBins", 1000)
    m = "roc" if o["metricName"] == "areaUnderROC" else "ap"
    weights = None if "weightCol" not in o else np.asarray(w, dtype=np.float64)
    value = perfeval.evaluate(y, s, measures=[m], sample_weight=weights, dialect=f"spark:numBins={bins}")[
        m.upper()
    ]
    return value, 1e-12


def test_spark_fixtures():
    checked, bad = _check("spark", _spark)
    assert not bad, f"{len(bad)} of {checked + len(bad)}:\n" + "\n".join(bad[:25])
    assert checked > 1000 and _says("Spark", checked)


# -- DIN ----------------------------------------------------------------------------------------------
def _din(c: dict, r: dict) -> tuple[float, float] | None:
    y, s, _w, g = _arrays(c)
    o = r["options"]
    call = r["call"]
    if call.startswith("oracle driver"):
        return None  # our own loop over calc_auc, not DIN's code: see test_din_calc_auc_per_user
    if "calc_auc" in call and "record_order" in o and r["measure"] == "ROC" and g is None:
        if o["record_order"] == "positives_first":
            first = np.argsort(~(y > 0), kind="stable")
            y, s = y[first], s[first]
        return perfeval.evaluate(y, s, measures=["roc"], dialect="din")["ROC"], 1e-12
    if r["measure"] == "GAUC_UNWEIGHTED" and "_eval" in call:
        return perfeval.evaluate(y, s, groups=np.asarray(g), measures=["gauc"], dialect="din")["GAUC"], 1e-7
    return None


def test_din_fixtures():
    checked, bad = _check("din", _din)
    assert not bad, f"{len(bad)} of {checked + len(bad)}:\n" + "\n".join(bad[:25])
    assert checked > 300 and _says("DIN", checked)


def test_torchmetrics_dialect_reads_logits_through_torchmetrics_sigmoid():
    """torchmetrics puts every score through a sigmoid when one lies outside [0, 1]; the sigmoid keeps
    the order but ties the logits it saturates (in float64 above about 37, below about -745).  The exact
    areas (thresholds=None) of such logits, fed as float64 tensors (tests/oracles/fixtures/
    torchmetrics_metric.json), are the dialect's; per group, as torchmetrics on each group alone."""
    data = _load("torchmetrics_metric")
    checked = 0
    for c in data["cases"]:
        if not c["name"].startswith("logits") or c["dtype"] != "float64":
            continue
        y, s = np.asarray(c["y"]), np.asarray(c["s"])
        rep = perfeval.evaluate(y, s, measures=["roc", "ap"], dialect="torchmetrics")
        for r in c["results"]:
            assert abs(rep[r["measure"]] - _value(r)) < 2e-6, (
                c["name"],
                r["measure"],
                rep[r["measure"]],
                r["value"],
            )
            checked += 1
        # two groups: one of logits (squashed), one of the same logits scaled into [0, 1] (not)
        inside = (s - s.min()) / (s.max() - s.min())
        g = np.repeat([0, 1], len(y))
        both = perfeval.evaluate(
            np.r_[y, y], np.r_[s, inside], groups=g, measures=["roc"], dialect="torchmetrics"
        )
        alone = perfeval.evaluate(y, inside, measures=["roc"], dialect="torchmetrics")["ROC"]
        assert both.results["ROC"].per_group.tolist() == [rep["ROC"], alone]
    assert checked == 6
    # a limit (docs/dialects.md): torchmetrics takes the sigmoid in the tensor's dtype, the dialect in
    # float64, so float32 logits above about 17 tie in torchmetrics and not in the dialect
    (c32,) = [c for c in data["cases"] if c["name"] == "logits-wide-float32"]
    s32 = np.asarray(c32["s"], dtype=np.float32)
    rep = perfeval.evaluate(c32["y"], s32, measures=["roc"], dialect="torchmetrics")
    assert (
        rep["ROC"]
        == perfeval.evaluate(c32["y"], s32.astype(np.float64), measures=["roc"], dialect="torchmetrics")[
            "ROC"
        ]
    )
    assert abs(rep["ROC"] - _value(c32["results"][0])) > 1e-3
