"""The torchmetrics multiclass/multilabel fixture (issue 32) holds together.

tests/oracles/make_fixtures.py ``--tools multiclass`` ran torchmetrics 1.9.0's exact multiclass and
multilabel functions and scikit-learn 1.9.1's counterparts on seeded cases and wrote
tests/oracles/fixtures/torchmetrics_multiclass.json and the agreement table
torchmetrics_multiclass.md. These tests check the fixture's own consistency only (schema, versions,
every key in every case, the recorded agreements and the table against the recorded values); the
comparison with perfeval's multiclass engine comes with that engine. Nothing here needs torch.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "oracles" / "fixtures"
FIXTURE = json.loads((FIXTURES / "torchmetrics_multiclass.json").read_text())
TABLE = (FIXTURES / "torchmetrics_multiclass.md").read_text()
CASES = FIXTURE["cases"]
TOL = 1e-6
STATUSES = ("agree", "disagree", "tm_error", "sk_error", "both_error")


def _arr(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float64)  # null (NaN) -> nan


def test_header_names_the_tools_and_versions_that_made_it():
    h = {k: v for k, v in FIXTURE.items() if k != "cases"}
    assert h["tool"] == "torchmetrics" and h["version"] == "1.9.0"
    assert h["backend"] == "torch 2.13.0+cpu"
    assert h["sklearn_version"] == "1.9.1" and h["numpy_version"] == "2.4.6"
    assert h["python_version"].startswith("3.11.")
    assert h["generated_by"] == "tests/oracles/make_fixtures.py"
    assert h["generated_with"] == "--tools multiclass"
    assert isinstance(h["seed"], int)
    assert {"nan", "preds", "argmax", "pred", "softmax", "agreement", "warnings"} <= set(h["notes"])
    assert "null" in h["notes"]["nan"]
    assert set(h["keys"]) == {"multiclass", "multilabel"}
    for keys in h["keys"].values():
        assert len(keys) == len(set(keys)) > 10


def test_cases_cover_what_the_fixture_promises():
    """K = 2..7 classes, n = 1..300, every kind of score, absent classes, all scores equal."""
    mc = [c for c in CASES if c["task"] == "multiclass"]
    ml = [c for c in CASES if c["task"] == "multilabel"]
    assert len({c["name"] for c in CASES}) == len(CASES) == len(mc) + len(ml)
    assert {c["num_classes"] for c in mc} == set(range(2, 8))
    sizes = [len(c["y"]) for c in mc]
    assert min(sizes) == 1 and max(sizes) == 300
    kinds = {c["kind"] for c in mc}
    assert {"softmax", "softmax-2dp", "softmax-1dp", "raw", "raw-1dp", "softmax-round2"} <= kinds
    assert any(k.startswith("all-equal") for k in kinds)
    assert sum(bool(c["facts"]["absent_from_targets"]) for c in mc) >= 30
    assert sum(c["facts"]["softmaxed"] for c in mc) >= 20
    assert sum(c["facts"]["rows_with_argmax_tie"] > 0 for c in mc) >= 20
    assert {c["num_labels"] for c in ml} == set(range(2, 7))
    assert sum(bool(c["facts"]["labels_without_positives"]) for c in ml) >= 20
    assert sum(c["facts"]["sigmoided"] for c in ml) >= 15


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_inputs_and_derived_predictions_are_consistent(c):
    s = _arr(c["s"])
    assert not np.isnan(s).any()
    if c["task"] == "multiclass":
        k, y = c["num_classes"], np.asarray(c["y"])
        assert y.ndim == 1 and s.shape == (len(y), k) and set(y.tolist()) <= set(range(k))
        assert c["argmax"] == np.argmax(s, axis=1).tolist()  # the first of tied maxima
        assert c["facts"]["absent_from_targets"] == [j for j in range(k) if not (y == j).any()]
        assert c["facts"]["never_predicted"] == [j for j in range(k) if j not in c["argmax"]]
        assert c["facts"]["softmaxed"] == bool(((s < 0) | (s > 1)).any())
    else:
        k, y = c["num_labels"], np.asarray(c["y"])
        assert y.shape == s.shape == (len(y), k) and set(np.unique(y).tolist()) <= {0, 1}
        p = 1 / (1 + np.exp(-s)) if c["facts"]["sigmoided"] else s
        assert np.array_equal(np.asarray(c["pred"]), (p > 0.5).astype(int))
        assert c["facts"]["labels_without_positives"] == [j for j in range(k) if not y[:, j].any()]


def _check_value_shape(c, r):
    k = c.get("num_classes", c.get("num_labels"))
    v = r["value"]
    if re.search(r"[\[,]average=none[\],]", r["key"]):
        assert isinstance(v, list) and len(v) == k, r["key"]
    elif r["key"] == "multiclass_confusion_matrix":
        m = np.asarray(v)
        assert m.shape == (k, k) and m.sum() == len(c["y"])
        assert m.sum(axis=1).tolist() == np.bincount(c["y"], minlength=k).tolist()
        assert m.sum(axis=0).tolist() == np.bincount(c["argmax"], minlength=k).tolist()
    else:
        assert v is None or isinstance(v, float), r["key"]


def _status(r, sk) -> str:
    if "error" in r or "error" in sk:
        return {(True, True): "both_error", (True, False): "tm_error", (False, True): "sk_error"}[
            ("error" in r, "error" in sk)
        ]
    x, z = _arr(r["value"]), _arr(sk["value"])
    if x.shape != z.shape:
        return "disagree"
    same = (np.abs(x - z) <= TOL) | (np.isnan(x) & np.isnan(z))
    return "agree" if same.all() else "disagree"


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_every_case_has_every_key_and_each_result_its_fields(c):
    assert [r["key"] for r in c["results"]] == FIXTURE["keys"][c["task"]]
    for r in c["results"]:
        assert ("value" in r) != ("error" in r), r["key"]
        assert r["call"].startswith(r["key"].split("[")[0] + "(")
        assert all(isinstance(w, str) and ": " in w for w in r["warnings"])
        if "value" in r:
            assert r["dtype"] in ("float32", "float64", "int64")
            _check_value_shape(c, r)
        else:
            assert re.match(r"^[A-Za-z]+Error: ", r["error"]), r["error"]
        names = [sk["name"] for sk in r["sklearn"]]
        assert len(names) == len(set(names))
        for sk in r["sklearn"]:
            assert ("value" in sk) != ("error" in sk)
            assert sk["agreement"] == _status(r, sk), (r["key"], sk["name"])


def test_micro_accuracy_is_the_share_of_argmax_hits():
    """One value recomputed from the fixture's own inputs: torchmetrics' micro accuracy at top_k=1."""
    for c in CASES:
        if c["task"] != "multiclass":
            continue
        (r,) = [r for r in c["results"] if r["key"] == "multiclass_accuracy[average=micro,top_k=1]"]
        hits = np.mean(np.asarray(c["argmax"]) == np.asarray(c["y"]))
        assert math.isclose(r["value"], hits, abs_tol=TOL), c["name"]


def _table_rows() -> dict[tuple[str, str], list[str]]:
    rows = {}
    for line in TABLE.splitlines():
        m = re.match(r"^\| `([^`]+)` \| `([^`]+)` \| (.*) \|$", line)
        if m:
            rows[(m.group(1), m.group(2))] = [cell.strip() for cell in m.group(3).split("|")]
    return rows


def test_the_agreement_table_counts_the_fixture_and_explains_every_disagreement():
    rows = _table_rows()
    counted: dict[tuple[str, str], dict[str, int]] = {}
    for c in CASES:
        for r in c["results"]:
            for sk in r["sklearn"]:
                d = counted.setdefault((r["key"], sk["name"]), dict.fromkeys(STATUSES, 0))
                d[sk["agreement"]] += 1
    assert set(rows) == set(counted)
    reasons = set(re.findall(r"^- \*\*([a-z0-9-]+)\*\*: ", TABLE, flags=re.M))
    for pair, cells in rows.items():
        n, *numbers, why = cells
        assert int(n) == sum(counted[pair].values())
        assert [int(x) for x in numbers] == [counted[pair][s] for s in STATUSES], pair
        assert "UNEXPLAINED" not in why
        explained = re.findall(r"([a-z0-9-]+) \((\d+)\)", why)
        assert {rid for rid, _ in explained} <= reasons, pair
        assert sum(int(k) for _, k in explained) == int(n) - counted[pair]["agree"], pair
    for rid in reasons:  # each reason cites the source it rests on
        text = re.search(rf"^- \*\*{rid}\*\*: (.*)$", TABLE, flags=re.M).group(1)
        assert re.search(r"\.py:\d+", text), rid
