"""Tie bounds of the multilabel measures (engine/label_bounds.py): every bound the registry calls exact
is checked against a brute-force enumeration of every order of the ties of small data (each label's
column, the pooled cells, or each row's labels, as the measure reads them), the measures computed on
the distinct scores by slow references here and by scikit-learn.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from sklearn.metrics import coverage_error, label_ranking_average_precision_score, label_ranking_loss

import perfeval
from perfeval.measures import list_measures

pytestmark = pytest.mark.filterwarnings("ignore")


# -- references on distinct scores ----------------------------------------------------------------------
def _auc(pos: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    p, q = np.flatnonzero(pos), np.flatnonzero(~pos)
    if not len(p) or not len(q):
        return math.nan
    d = s[p][:, None] - s[q][None, :]
    win = (d > 0) + 0.5 * (d == 0)
    ww = w[p][:, None] * w[q][None, :]
    return float((win * ww).sum() / ww.sum())


def _ap(pos: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    """AP of distinct scores: the mean over the positives (by weight) of the precision at each."""
    if not (w[pos] > 0).any() or not pos.any():
        return math.nan
    o = np.argsort(-s, kind="stable")
    pw, ww = np.cumsum((w * pos)[o]), np.cumsum(w[o])
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(ww > 0, pw / np.where(ww > 0, ww, 1.0), 0.0)
    return float(((w * pos)[o] * prec).sum() / (w * pos).sum())


def _mean(per: np.ndarray, support: np.ndarray, average: str) -> float:
    ok = ~np.isnan(per)
    if average == "weighted":
        return float((per[ok] * support[ok]).sum() / support[ok].sum())
    return float(per[ok].mean())


def _orders(v: np.ndarray) -> Iterator[np.ndarray]:
    """Every distinct-score array that keeps ``v``'s order and orders each tie (equal values) every way."""
    ties = [np.flatnonzero(v == u) for u in np.unique(v)]
    for perms in itertools.product(*(itertools.permutations(t) for t in ties)):
        out = np.empty(len(v))
        base = 0
        for p in perms:  # ascending values: a tie takes the next ranks, in the permutation's order
            out[list(p)] = base + np.arange(len(p))
            base += len(p)
        yield out


def _count(v: np.ndarray) -> int:
    return math.prod(math.factorial(int(c)) for c in np.unique(v, return_counts=True)[1])


def _column_orders(s: np.ndarray) -> Iterator[np.ndarray]:
    for cols in itertools.product(*(list(_orders(s[:, j])) for j in range(s.shape[1]))):
        yield np.stack(cols, axis=1)


def _row_orders(s: np.ndarray) -> Iterator[np.ndarray]:
    for rows in itertools.product(*(list(_orders(s[i])) for i in range(s.shape[0]))):
        yield np.stack(rows, axis=0)


def _per_label(y, s, w, f):
    return np.array([f(y[:, j], s[:, j], w) for j in range(y.shape[1])])


def _data(seed: int, weighted: bool, limit: int = 400):
    """Small label matrices with ties everywhere, whose column, row and pooled orders are few."""
    rng = np.random.default_rng(seed)
    while True:
        n, k = int(rng.integers(3, 6)), int(rng.integers(2, 4))
        y = rng.integers(0, 2, size=(n, k)).astype(bool)
        s = rng.choice([0.1, 0.5, 0.9], size=(n, k))
        cols = math.prod(_count(s[:, j]) for j in range(k))
        rows = math.prod(_count(s[i]) for i in range(n))
        if cols <= limit and rows <= limit and _count(s.reshape(-1)) <= 20 * limit and cols * rows > 4:
            w = rng.choice([0.5, 1.0, 2.0], size=n) if weighted else None
            return y, s, w


def _extremes(values: list[float]) -> tuple[float, float]:
    v = [x for x in values if not math.isnan(x)]
    return (min(v), max(v)) if v else (math.nan, math.nan)


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def _run(y, s, w, measure):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = perfeval.evaluate(y.astype(int), s, sample_weight=w, measures=[measure], tie_bounds=True)
    return next(iter(rep.results.values())), rep


CASES = [(seed, weighted) for seed in range(8) for weighted in (False, True)]


@pytest.mark.parametrize(("seed", "weighted"), CASES)
@pytest.mark.parametrize("name", ["roc_ml", "ap_ml"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_per_label_bounds_are_the_extremes_over_every_column_order(seed, weighted, name, average) -> None:
    y, s, w = _data(seed, weighted)
    ww = np.ones(len(y)) if w is None else w
    f = _auc if name == "roc_ml" else _ap
    support = (y * ww[:, None]).sum(axis=0)
    r, _ = _run(y, s, w, f"{name}:average={average}")
    got = [_mean(_per_label(y, o, ww, f), support, average) for o in _column_orders(s)]
    lo, hi = _extremes(got)
    assert _close(r.tie_min, lo) and _close(r.tie_max, hi), (r.tie_min, r.tie_max, lo, hi)
    assert r.tie_min <= r.value and (name == "ap_ml" or r.value <= r.tie_max)  # AP: see below
    for j in range(y.shape[1]):  # each label's own bounds: over its column's orders
        lo_j, hi_j = _extremes([f(y[:, j], o, ww) for o in _orders(s[:, j])])
        assert _close(r.tie_min_per_class[j], lo_j) and _close(r.tie_max_per_class[j], hi_j)


@pytest.mark.parametrize(("seed", "weighted"), CASES)
@pytest.mark.parametrize("name", ["roc_ml", "ap_ml"])
def test_micro_bounds_are_the_extremes_over_every_pooled_order(seed, weighted, name) -> None:
    y, s, w = _data(seed, weighted, limit=60)
    k = y.shape[1]
    pw = np.repeat(np.ones(len(y)) if w is None else w, k)
    f = _auc if name == "roc_ml" else _ap
    r, _ = _run(y, s, w, f"{name}:average=micro")
    lo, hi = _extremes([f(y.reshape(-1), o, pw) for o in _orders(s.reshape(-1))])
    assert _close(r.tie_min, lo) and _close(r.tie_max, hi), (r.tie_min, r.tie_max, lo, hi)


def _row_auc(y, s, w):
    v = np.array([_auc(y[i] != 0, s[i], np.ones(y.shape[1])) for i in range(len(y))])
    ok = ~np.isnan(v)
    return float((v[ok] * w[ok]).sum() / w[ok].sum()) if ok.any() else math.nan


def _row_ap(y, s, w):
    v = np.array([_ap(y[i] != 0, s[i], np.ones(y.shape[1])) for i in range(len(y))])
    ok = ~np.isnan(v)
    return float((v[ok] * w[ok]).sum() / w[ok].sum()) if ok.any() else math.nan


ROW_REFERENCES = {
    "lrap": lambda y, s, w: label_ranking_average_precision_score(y, s, sample_weight=w),
    "coverage": lambda y, s, w: coverage_error(y, s, sample_weight=w),
    "ranking_loss": lambda y, s, w: label_ranking_loss(y, s, sample_weight=w),
    "roc_ml:average=samples": _row_auc,
    "ap_ml:average=samples": _row_ap,
}


@pytest.mark.parametrize(("seed", "weighted"), CASES)
@pytest.mark.parametrize("measure", sorted(ROW_REFERENCES))
def test_row_bounds_are_the_extremes_over_every_row_order(seed, weighted, measure) -> None:
    y, s, w = _data(seed, weighted)
    ww = np.ones(len(y)) if w is None else w
    ref = ROW_REFERENCES[measure]
    r, _ = _run(y, s, w, measure)
    lo, hi = _extremes([float(ref(y.astype(int), o, ww)) for o in _row_orders(s)])
    assert _close(r.tie_min, lo) and _close(r.tie_max, hi), (r.tie_min, r.tie_max, lo, hi)
    assert r.tie_min <= r.value and (measure in ABOVE_MAX or r.value <= r.tie_max)


#: scikit-learn's tie rule (a tie ranked at its end, every relevant label of it at the precision
#: there) gives the precision of no order: these can lie above their maximum, never below the minimum
ABOVE_MAX = {"lrap", "ap_ml:average=samples"}


@pytest.mark.parametrize("measure", sorted(ABOVE_MAX))
def test_lrap_and_ap_can_lie_above_their_maximum(measure) -> None:
    """One row, labels 1 1 0 1 scored 1 0 0.5 0: the two tied relevant labels each score 3/4 by
    scikit-learn's rule (0.8333), while both orders of the tie give 2/3 and 3/4 (0.8056)."""
    y = np.array([[1, 1, 0, 1]])
    s = np.array([[1.0, 0.0, 0.5, 0.0]])
    r, _ = _run(y, s, None, measure)
    assert math.isclose(r.value, (1 + 0.75 + 0.75) / 3)
    assert math.isclose(r.tie_min, (1 + 2 / 3 + 3 / 4) / 3) and math.isclose(r.tie_max, r.tie_min)
    assert r.value > r.tie_max


@pytest.mark.parametrize(
    "measure",
    ["pre_ml", "rec_ml:average=micro", "f1_ml:average=samples", "jaccard", "hamming", "subset_acc"],
)
def test_threshold_measures_are_order_free(measure) -> None:
    y, s, w = _data(3, True)
    r, _ = _run(y, s, w, measure)
    assert r.tie_min == r.tie_max == r.value
    assert not r.tie_note


def test_no_ties_no_range_and_the_value_s_bits() -> None:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, size=(30, 4))
    s = rng.permutation(120).reshape(30, 4) / 120
    for m in [
        "roc_ml",
        "ap_ml:average=weighted",
        "roc_ml:average=micro",
        "lrap",
        "coverage",
        "ranking_loss",
        "ap_ml:average=samples",
    ]:
        r, rep = _run(y.astype(bool), s, None, m)
        assert r.tie_min == r.value == r.tie_max, m
    assert rep.tied_pairs == 0


def test_registry_says_the_multilabel_bounds() -> None:
    kinds = {m.name: m for m in list_measures() if m.kind == "multilabel"}
    for name in ("ROC_ML", "AP_ML", "LRAP", "COVERAGE", "RANKING_LOSS"):
        assert kinds[name].tie_bounds == "orders" and "exact" in kinds[name].tie_bounds_text
    for name in ("PRE_ML", "REC_ML", "F_ML", "JACCARD", "HAMMING", "SUBSET_ACC"):
        assert kinds[name].tie_bounds == "free" and "order-free" in kinds[name].tie_bounds_text
    assert not any("no bound computed yet" in m.doc for m in kinds.values())


def test_report_json_labels_and_groups() -> None:
    y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    s = np.array([[0.5, 0.5], [0.5, 0.5], [0.2, 0.9], [0.2, 0.1]])
    r, rep = _run(y.astype(bool), s, None, "roc_ml")
    d = rep.to_dict()
    assert 0 < d["tied_pairs"] <= 1
    assert d["measures"]["ROC_ML:average=macro"]["tie_min"] == r.tie_min < r.value < r.tie_max
    grouped = perfeval.evaluate(y, s, groups=[0, 0, 1, 1], tie_bounds=True)
    d = grouped.to_dict()  # per group (tests/test_group_tie_bounds.py)
    assert set(d["measures"]["ROC_ML:average=macro"]["tie_bounds_per_group"]) == {"0", "1"}


def test_label_never_on_has_no_bound_and_is_left_out() -> None:
    y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]])
    s = np.array([[0.5, 0.5, 0.1], [0.5, 0.5, 0.2], [0.2, 0.9, 0.3], [0.2, 0.1, 0.4]])
    r, _ = _run(y.astype(bool), s, None, "roc_ml")
    assert math.isnan(r.tie_min_per_class[2]) and math.isnan(r.tie_max_per_class[2])
    assert r.tie_min == pytest.approx(np.nanmean(r.tie_min_per_class))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_ap_ovr_bounds_with_unequal_weights_inside_a_tie(seed, average) -> None:
    """K classes' AP bounds (engine/class_bounds.py) share the exact weighted AP orders: a tie's
    positives of unequal weights in the best (heavier first) and the worst order."""
    rng = np.random.default_rng(100 + seed)
    y = np.array([0, 1, 2, 0, 1, 2])
    s = rng.choice([0.1, 0.5, 0.9], size=(6, 3))
    w = rng.choice([0.5, 1.0, 2.0, 3.0], size=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = perfeval.evaluate(
            y, s, classes=[0, 1, 2], sample_weight=w, measures=[f"ap_ovr:average={average}"], tie_bounds=True
        )
    r = next(iter(rep.results.values()))
    onehot = y[:, None] == np.arange(3)[None, :]
    for j in range(3):
        lo_j, hi_j = _extremes([_ap(onehot[:, j], o, w) for o in _orders(s[:, j])])
        assert _close(r.tie_min_per_class[j], lo_j) and _close(r.tie_max_per_class[j], hi_j)
