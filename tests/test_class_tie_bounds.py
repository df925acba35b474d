"""Tie bounds of the multiclass measures (engine/class_bounds.py): every bound the registry calls exact
is checked against a brute-force enumeration of every order of the ties of small data, the measures
computed by slow references here (pairwise counting, scikit-learn's AP on distinct scores).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

import perfeval
from perfeval.measures import list_measures

pytestmark = pytest.mark.filterwarnings("ignore:All-NaN")


# -- references on distinct scores --------------------------------------------------------------------------
def _auc(pos: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    """The binary ROC area by counting every (positive, negative) pair (ties half)."""
    p, q = np.flatnonzero(pos), np.flatnonzero(~pos)
    if not len(p) or not len(q):
        return math.nan
    d = s[p][:, None] - s[q][None, :]
    win = (d > 0) + 0.5 * (d == 0)
    ww = w[p][:, None] * w[q][None, :]
    return float((win * ww).sum() / ww.sum())


def _macro(per: np.ndarray, n: np.ndarray, average: str) -> float:
    ok = ~np.isnan(per)
    if average == "weighted":
        return float((per[ok] * n[ok]).sum() / n[ok].sum())
    return float(per[ok].mean())


def _ovr(y, s, w, k, average):
    per = np.array([_auc(y == j, s[:, j], w) if (y == j).any() else math.nan for j in range(k)])
    n = np.bincount(y, weights=w, minlength=k)
    return _macro(per, n, average), per


def _ovo(y, s, w, k, average):
    n = np.bincount(y, weights=w, minlength=k)
    vals, ws = [], []
    for j, i in itertools.combinations(range(k), 2):
        if n[j] == 0 or n[i] == 0:
            continue
        rows = (y == j) | (y == i)
        a_ji = _auc(y[rows] == j, s[rows, j], w[rows])
        a_ij = _auc(y[rows] == i, s[rows, i], w[rows])
        vals.append((a_ji + a_ij) / 2)
        ws.append(n[j] + n[i])
    vals, ws = np.array(vals), np.array(ws)
    return float(vals.mean()) if average == "macro" else float((vals * ws).sum() / ws.sum())


def _ap(y, s, w, k, average):
    per = np.array(
        [
            average_precision_score(y == j, s[:, j], sample_weight=w) if (y == j).any() else math.nan
            for j in range(k)
        ]
    )
    n = np.bincount(y, weights=w, minlength=k)
    return _macro(per, n, average), per


def _column_orders(col: np.ndarray):
    """Every order of one column's ties, as distinct ranks (higher first)."""
    order = np.argsort(-col, kind="stable")
    groups = [list(g) for _, g in itertools.groupby(order.tolist(), key=lambda i: col[i])]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        flat = [i for g in perm for i in g]
        r = np.empty(len(col))
        r[flat] = np.arange(len(col), 0, -1)
        yield r


def _joint_orders(s: np.ndarray):
    cols = [list(_column_orders(s[:, j])) for j in range(s.shape[1])]
    for combo in itertools.product(*cols):
        yield np.column_stack(combo)


def _n_orders(s: np.ndarray) -> int:
    out = 1
    for j in range(s.shape[1]):
        _, c = np.unique(s[:, j], return_counts=True)
        out *= int(np.prod([math.factorial(int(x)) for x in c]))
    return out


def _data(seed: int, n: int, k: int, weighted: bool, limit: int = 6000):
    rng = np.random.default_rng(seed)
    while True:
        y = rng.integers(0, k, n)
        s = rng.integers(0, 3, (n, k)) / 2.0
        if len(np.unique(y)) >= 2 and _n_orders(s) <= limit:
            w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
            return y, s, w


def _bounds(y, s, w, k, measure, weighted):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(
            y,
            s,
            classes=list(range(k)),
            measures=[measure],
            sample_weight=w if weighted else None,
            tie_bounds=True,
        )
    return next(iter(r.results.values())), r


# -- the ranking measures: every order of every column's ties ------------------------------------------
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_ovr_ovo_bounds_are_the_extremes_over_every_order(seed: int, weighted: bool) -> None:
    k = 3
    y, s, w = _data(seed, 5, k, weighted)
    seen: dict[str, list[float]] = {}
    per_seen: list[np.ndarray] = []
    for s2 in _joint_orders(s):
        for avg in ("macro", "weighted"):
            v, per = _ovr(y, s2, w, k, avg)
            seen.setdefault(f"ROC_OVR:{avg}", []).append(v)
            seen.setdefault(f"ROC_OVO:{avg}", []).append(_ovo(y, s2, w, k, avg))
        per_seen.append(per)
    per_all = np.array(per_seen)
    for key, vals in seen.items():
        name, avg = key.split(":")
        r, _ = _bounds(y, s, w, k, f"{name.lower()}:average={avg}", weighted)
        assert r.tie_min == pytest.approx(min(vals), abs=1e-12), key
        assert r.tie_max == pytest.approx(max(vals), abs=1e-12), key
        assert r.tie_min <= r.value + 1e-12 and r.value <= r.tie_max + 1e-12
        if name == "ROC_OVR":
            np.testing.assert_allclose(r.tie_min_per_class, np.nanmin(per_all, axis=0), atol=1e-12)
            np.testing.assert_allclose(r.tie_max_per_class, np.nanmax(per_all, axis=0), atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_ap_ovr_bounds_are_the_extremes_over_every_order(seed: int) -> None:
    k = 3
    y, s, w = _data(seed, 5, k, False)
    vals = {"macro": [], "weighted": []}
    pers = []
    for s2 in _joint_orders(s):
        for avg in vals:
            v, per = _ap(y, s2, w, k, avg)
            vals[avg].append(v)
        pers.append(per)
    for avg, got in vals.items():
        r, _ = _bounds(y, s, w, k, f"ap_ovr:average={avg}", False)
        assert r.tie_min == pytest.approx(min(got), abs=1e-12)
        assert r.tie_max == pytest.approx(max(got), abs=1e-12)
    np.testing.assert_allclose(r.tie_min_per_class, np.nanmin(pers, axis=0), atol=1e-12)
    np.testing.assert_allclose(r.tie_max_per_class, np.nanmax(pers, axis=0), atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name", ["roc_ovr", "ap_ovr"])
def test_micro_bounds_over_every_order_of_the_pooled_ranking(seed: int, name: str) -> None:
    k = 3
    rng = np.random.default_rng(seed)
    while True:
        y = rng.integers(0, k, 3)
        s = rng.integers(0, 3, (3, k)) / 2.0
        _, c = np.unique(s.reshape(-1), return_counts=True)
        if len(np.unique(y)) >= 2 and np.prod([math.factorial(int(x)) for x in c]) <= 20000:
            break
    pos = (y[:, None] == np.arange(k)[None, :]).reshape(-1)
    flat = s.reshape(-1)
    w = np.ones(len(flat))
    got = [
        _auc(pos, r, w) if name == "roc_ovr" else average_precision_score(pos, r)
        for r in _column_orders(flat)
    ]
    r, _ = _bounds(y, s, None, k, f"{name}:average=micro", False)
    assert r.tie_min == pytest.approx(min(got), abs=1e-12)
    assert r.tie_max == pytest.approx(max(got), abs=1e-12)


# -- the argmax measures: every order of each row's tied classes --------------------------------------------
def _row_measures(y, s, w, k, perms):
    """accuracy, per-class recall and top-2 accuracy when row i breaks its ties by ``perms[i]``."""
    n = len(y)
    # a class earlier in the row's permutation ranks higher among equal scores
    key = np.array([[s[i, c] * 10 * k + (k - perms[i].index(c)) for c in range(k)] for i in range(n)])
    pred = key.argmax(axis=1)
    rank = (key > key[np.arange(n), y][:, None]).sum(axis=1)
    hit = (pred == y).astype(float)
    sup = np.bincount(y, weights=w, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = np.where(sup > 0, np.bincount(y, weights=w * hit, minlength=k) / sup, np.nan)
    return float((w * hit).sum() / w.sum()), rec, float((w * (rank < 2)).sum() / w.sum())


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_argmax_bounds_are_the_extremes_over_every_order(seed: int, weighted: bool) -> None:
    k = 3
    y, s, w = _data(seed, 5, k, weighted, limit=10**9)
    accs, recs, tops = [], [], []
    for perms in itertools.product(list(itertools.permutations(range(k))), repeat=len(y)):
        a, rec, t = _row_measures(y, s, w, k, [list(p) for p in perms])
        accs.append(a)
        recs.append(rec)
        tops.append(t)
    recs = np.array(recs)
    sup = np.bincount(y, weights=w, minlength=k)
    macro = np.array([np.nanmean(r) for r in recs])
    weighted_rec = np.array([_macro(r, sup, "weighted") for r in recs])
    for measure, vals in (
        ("acc_mc", accs),
        ("topk_acc:k=2", tops),
        ("bacc", macro),
        ("rec_mc:average=macro", macro),
        ("rec_mc:average=weighted", weighted_rec),
        ("rec_mc:average=micro", accs),
    ):
        r, _ = _bounds(y, s, w, k, measure, weighted)
        assert r.tie_min == pytest.approx(min(vals), abs=1e-12), measure
        assert r.tie_max == pytest.approx(max(vals), abs=1e-12), measure
    r, _ = _bounds(y, s, w, k, "rec_mc", weighted)
    np.testing.assert_allclose(r.tie_min_per_class, np.nanmin(recs, axis=0), atol=1e-12)
    np.testing.assert_allclose(r.tie_max_per_class, np.nanmax(recs, axis=0), atol=1e-12)


# -- the rest: order-free, or NaN with the reason -----------------------------------------------------------
def test_order_free_and_refused_measures() -> None:
    y = np.array([0, 1, 2, 0, 1])
    s = np.array([[0.5, 0.5, 0.0], [0.2, 0.4, 0.4], [0.1, 0.1, 0.8], [0.6, 0.2, 0.2], [0.3, 0.3, 0.4]])
    for m in ("logloss_mc", "brier_mc"):
        r, _ = _bounds(y, s, None, 3, m, False)
        assert r.tie_min == r.tie_max == r.value
    for m in ("pre_mc", "f_mc", "mcc", "kappa", "qwk"):
        r, rep = _bounds(y, s, None, 3, m, False)
        assert math.isnan(r.tie_min) and math.isnan(r.tie_max)
        assert "no exact bound" in r.tie_note
        assert rep.to_dict()["measures"][r.label]["tie_bounds_why_null"] == r.tie_note


def test_registry_says_which_multiclass_bounds_are_exact() -> None:
    kinds = {m.name: m.tie_bounds for m in list_measures() if m.kind == "multiclass"}
    assert kinds["ROC_OVR"] == kinds["ROC_OVO"] == kinds["AP_OVR"] == "orders"
    assert kinds["ACC_MC"] == kinds["REC_MC"] == kinds["BACC"] == kinds["TOPK_ACC"] == "orders"
    assert kinds["LOGLOSS_MC"] == kinds["BRIER_MC"] == "free"
    assert all(kinds[m] == "none" for m in ("PRE_MC", "F_MC", "MCC", "KAPPA", "QWK"))


def test_report_json_and_groups() -> None:
    y = np.array([0, 1, 2, 0, 1, 2])
    s = np.array([[0.5, 0.5, 0.0]] * 3 + [[0.2, 0.4, 0.4]] * 3)
    _, rep = _bounds(y, s, None, 3, "roc_ovr", False)
    d = rep.to_dict()
    m = d["measures"]["ROC_OVR:average=macro"]
    assert set(m["tie_bounds_per_class"]) == {"0", "1", "2"}
    assert 0 < d["tied_pairs"] <= 1
    grouped = perfeval.evaluate(y, s, classes=[0, 1, 2], groups=[0, 0, 0, 1, 1, 1], tie_bounds=True)
    d = grouped.to_dict()  # per group (tests/test_group_tie_bounds.py)
    assert set(d["measures"]["ROC_OVR:average=macro"]["tie_bounds_per_group"]) == {"0", "1"}
