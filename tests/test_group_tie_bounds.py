"""Tie bounds of K classes and K labels per group (engine/class_bounds.py grouped_class_bounds,
engine/label_bounds.py grouped_label_bounds, engine/group_bounds.py): every group's bounds are the
group alone's, bit for bit, for every multiclass and multilabel measure of the registry (iterated,
with every average); the headline bounds are the mean of the groups' bounds the headline value is of
the groups' values; on tiny groups, each group's bounds are the least and greatest value over every
order of its ties, enumerated (the brute-force references of the tests of the bounds over all cases).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.measures import parse_measure
from perfeval.measures.base import REGISTRY
from test_class_tie_bounds import _ap as _class_ap
from test_class_tie_bounds import _joint_orders, _macro, _n_orders, _row_measures
from test_class_tie_bounds import _ovo as _class_ovo
from test_class_tie_bounds import _ovr as _class_ovr
from test_label_tie_bounds import (
    ROW_REFERENCES,
    _column_orders,
    _count,
    _extremes,
    _mean,
    _per_label,
    _row_orders,
)
from test_label_tie_bounds import _ap as _label_ap
from test_label_tie_bounds import _auc as _label_auc

pytestmark = pytest.mark.filterwarnings("ignore")


def _labels(kind: str) -> list[str]:
    """Every measure of the registry of ``kind``, with each of its averages; top-k with k 1 and 2."""
    out = []
    for m in REGISTRY:
        if m.kind != kind:
            continue
        averages = next((p.choices for p in m.params if p.name == "average"), None)
        if averages:
            out += [f"{m.name}:average={a}" for a in averages]
        elif m.name == "TOPK_ACC":
            out += ["TOPK_ACC:k=1", "TOPK_ACC:k=2"]
        else:
            out.append(m.name)
    return out


def _data(kind: str, seed: int, weighted: bool, big: bool = False):
    """Groups of 1 to 24 rows (to 150 when ``big``: numpy's sums of more than 8 and 128 values), ties
    in every column, group ids neither sorted nor 0..q-1, weights of several sizes."""
    rng = np.random.default_rng(seed)
    k = 3 + seed % 3
    sizes = rng.integers(1, 150 if big else 25, 7)
    g = np.repeat(np.arange(7) * 5 + 11, sizes)
    rng.shuffle(g)
    n = len(g)
    s = rng.integers(0, 3, (n, k)) / 2.0
    y = rng.integers(0, k, n) if kind == "multiclass" else rng.integers(0, 2, (n, k))
    w = rng.choice([0.1, 0.5, 1.0, 2.0, 3.0], n) if weighted else None
    return y, s, g, w, k


def _evaluate(kind, y, s, k, measures, **kw):
    extra = {"classes": list(range(k))} if kind == "multiclass" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(y, s, measures=measures, tie_bounds=True, **extra, **kw)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


CASES = [
    (kind, seed, weighted)
    for kind in ("multiclass", "multilabel")
    for seed in range(4)
    for weighted in (False, True)
]


@pytest.mark.parametrize(("kind", "seed", "weighted"), CASES)
def test_each_group_s_bounds_are_the_group_alone_s_bit_for_bit(kind, seed, weighted) -> None:
    y, s, g, w, k = _data(kind, seed, weighted, big=seed == 3)
    measures = _labels(kind)
    rep = _evaluate(kind, y, s, k, measures, groups=g, sample_weight=w)
    assert list(rep.groups) == sorted(set(g.tolist()))
    for i, key in enumerate(rep.groups):
        rows = g == key
        alone = _evaluate(kind, y[rows], s[rows], k, measures, sample_weight=None if w is None else w[rows])
        for label, r in rep.results.items():
            a = alone.results[label]
            assert _same(r.per_group[i], a.value), (label, key)  # the value's own guarantee
            assert _same(r.tie_min_per_group[i], a.tie_min), (label, key, r.tie_min_per_group[i], a.tie_min)
            assert _same(r.tie_max_per_group[i], a.tie_max), (label, key, r.tie_max_per_group[i], a.tie_max)
            assert r.tie_note == a.tie_note, label


@pytest.mark.parametrize(("kind", "seed", "weighted"), CASES)
def test_headline_bounds_are_the_mean_of_the_groups_and_hold_the_value(kind, seed, weighted) -> None:
    y, s, g, w, k = _data(kind, seed, weighted)
    rep = _evaluate(kind, y, s, k, _labels(kind), groups=g, sample_weight=w)
    sizes = np.asarray(rep.group_sizes, dtype=np.float64)
    assert rep.tied_pairs is not None and 0 < rep.tied_pairs < 1 and rep.pairs > 0
    for label, r in rep.results.items():
        lo, hi = np.asarray(r.tie_min_per_group), np.asarray(r.tie_max_per_group)
        assert lo.shape == hi.shape == (len(rep.groups),)
        vals = np.asarray(r.per_group)
        assert np.array_equal(np.isnan(lo), np.isnan(vals)) or bool(r.tie_note), label  # bound where a value
        for bound, per in ((r.tie_min, lo), (r.tie_max, hi)):
            ok = ~np.isnan(per)
            if r.tie_note:  # no exact bound: NaN in every group, and the headline
                assert not ok.any() and math.isnan(bound), label
                continue
            if parse_measure(label).measure.aggregate == "weighted":
                want = float((per[ok] * (sizes[ok] / sizes[ok].sum())).sum())
            else:
                want = float(per[ok].mean())
            assert bound == want, (label, bound, want)
        if r.tie_note:
            continue
        # AP's value (one threshold a tie) and LRAP's (a tied label ranked above, its precision
        # counting the tied relevant labels) are no order's: above the greatest at times (a row of
        # labels 1 1 0 1 scored 1 0 0.5 0: 0.833, every order 0.806), never below the least
        one_threshold = label.startswith(("AP_OVR", "AP_ML", "LRAP"))
        ok = ~np.isnan(vals)
        assert (lo[ok] <= vals[ok] + 1e-12).all(), label
        assert r.tie_min <= r.value + 1e-12, label
        if not one_threshold:
            assert (vals[ok] <= hi[ok] + 1e-12).all(), label
            assert r.value <= r.tie_max + 1e-12, label


# -- brute force on tiny groups: every order of each group's ties -----------------------------------------
def _tiny_groups(kind: str, seed: int, weighted: bool):
    """Three groups of 3 or 4 rows whose tie orders are few enough to enumerate."""
    rng = np.random.default_rng(1000 + seed)
    k = 3
    parts = []
    while len(parts) < 3:
        n = int(rng.integers(3, 5))
        s = rng.integers(0, 3, (n, k)) / 2.0
        if kind == "multiclass":
            y = rng.integers(0, k, n)
            if len(np.unique(y)) < 2 or _n_orders(s) > 600:
                continue
        else:
            y = rng.integers(0, 2, (n, k)).astype(bool)
            cols = math.prod(_count(s[:, j]) for j in range(k))
            if cols > 300 or math.prod(_count(s[i]) for i in range(n)) > 300 or _count(s.reshape(-1)) > 3000:
                continue
        w = rng.choice([0.5, 1.0, 2.0], n) if weighted else np.ones(n)
        parts.append((y, s, w))
    return parts


def _class_extremes(y, s, w, k):
    """Each multiclass measure's least and greatest value over every order of the ties (columns
    ordered independently; the argmax measures: each row's tie broken every way)."""
    import itertools

    got: dict[str, list[float]] = {}
    for s2 in _joint_orders(s):
        for avg in ("macro", "weighted"):
            got.setdefault(f"ROC_OVR:average={avg}", []).append(_class_ovr(y, s2, w, k, avg)[0])
            got.setdefault(f"ROC_OVO:average={avg}", []).append(_class_ovo(y, s2, w, k, avg))
            got.setdefault(f"AP_OVR:average={avg}", []).append(_class_ap(y, s2, w, k, avg)[0])
    sup = np.bincount(y, weights=w, minlength=k)
    for perms in itertools.product(list(itertools.permutations(range(k))), repeat=len(y)):
        acc, rec, top = _row_measures(y, s, w, k, [list(p) for p in perms])
        got.setdefault("ACC_MC", []).append(acc)
        got.setdefault("TOPK_ACC:k=2", []).append(top)
        got.setdefault("BACC", []).append(float(np.nanmean(rec)))
        got.setdefault("REC_MC:average=weighted", []).append(_macro(rec, sup, "weighted"))
    return {key: _extremes(v) for key, v in got.items()}


def _label_extremes(y, s, w):
    """Each multilabel ranking measure's least and greatest value over every order of the ties (each
    label's column, or each row's labels, as the measure reads them)."""
    support = (y * w[:, None]).sum(axis=0)
    got: dict[str, list[float]] = {}
    for o in _column_orders(s):
        for name, f in (("ROC_ML", _label_auc), ("AP_ML", _label_ap)):
            per = _per_label(y, o, w, f)
            for avg in ("macro", "weighted"):
                got.setdefault(f"{name}:average={avg}", []).append(_mean(per, support, avg))
    for o in _row_orders(s):
        for measure, ref in ROW_REFERENCES.items():
            got.setdefault(measure, []).append(float(ref(y.astype(int), o, w)))
    return {key: _extremes(v) for key, v in got.items()}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kind", ["multiclass", "multilabel"])
def test_bounds_of_tiny_groups_are_the_extremes_over_every_order(kind, seed, weighted) -> None:
    parts = _tiny_groups(kind, seed, weighted)
    y = np.concatenate([p[0] for p in parts])
    s = np.concatenate([p[1] for p in parts])
    w = np.concatenate([p[2] for p in parts])
    g = np.repeat(["b", "c", "a"], [len(p[0]) for p in parts])  # keys sorted: a, b, c
    refs = [_class_extremes(*p, 3) if kind == "multiclass" else _label_extremes(*p) for p in parts]
    measures = list(refs[0])
    rep = _evaluate(kind, y, s, 3, measures, groups=g, sample_weight=w if weighted else None)
    at = {"a": 2, "b": 0, "c": 1}  # the report's group i is parts[at[key]]
    for (label, r), asked in zip(rep.results.items(), measures, strict=True):
        for i, key in enumerate(rep.groups):
            lo, hi = refs[at[key]][asked]
            close = [
                (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
                for a, b in ((r.tie_min_per_group[i], lo), (r.tie_max_per_group[i], hi))
            ]
            assert all(close), (label, key, r.tie_min_per_group[i], lo, r.tie_max_per_group[i], hi)
        ok = ~np.isnan(r.tie_min_per_group)
        assert r.tie_min == float(np.asarray(r.tie_min_per_group)[ok].mean())
        assert r.tie_max == float(np.asarray(r.tie_max_per_group)[ok].mean())


def test_micro_and_order_free_bounds_per_group() -> None:
    """micro: the pooled (case, class) cells of each group, as the group alone's; an order-free
    measure's bounds are its value in every group; a measure without an exact bound is NaN with its
    reason, in JSON too."""
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    s = np.array([[0.5, 0.5, 0.0], [0.2, 0.4, 0.4], [0.1, 0.1, 0.8], [0.6, 0.2, 0.2]] * 2)
    g = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    rep = _evaluate("multiclass", y, s, 3, ["roc_ovr:average=micro", "logloss_mc", "mcc"], groups=g)
    micro, free, none = rep.results.values()
    for i, key in enumerate(rep.groups):
        alone = _evaluate("multiclass", y[g == key], s[g == key], 3, ["roc_ovr:average=micro"])
        r = alone.results["ROC_OVR:average=micro"]
        assert (micro.tie_min_per_group[i], micro.tie_max_per_group[i]) == (r.tie_min, r.tie_max)
    assert micro.tie_min < micro.value < micro.tie_max
    assert np.array_equal(free.tie_min_per_group, free.per_group) and free.tie_max == free.value
    assert np.isnan(none.tie_min_per_group).all() and math.isnan(none.tie_max) and none.tie_note
    d = rep.to_dict()["measures"]
    assert d["MCC"]["tie_bounds_why_null"] == none.tie_note
    assert set(d["ROC_OVR:average=micro"]["tie_bounds_per_group"]) == {"1", "2"}


def test_an_undefined_group_has_no_bound() -> None:
    """A group whose value is undefined (one class only: no ROC area) has NaN bounds and is left out
    of the headline's mean, as its value is."""
    y = np.array([0, 1, 2, 0, 1, 2, 0, 0])
    s = np.array([[0.5, 0.5, 0.0], [0.2, 0.4, 0.4], [0.1, 0.1, 0.8]] * 2 + [[0.4, 0.4, 0.2]] * 2)
    g = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    rep = _evaluate("multiclass", y, s, 3, ["roc_ovr", "acc_mc"], groups=g)
    roc, acc = rep.results.values()
    assert math.isnan(roc.per_group[2]) and math.isnan(roc.tie_min_per_group[2])
    assert roc.tie_min == float(np.mean(roc.tie_min_per_group[:2]))
    assert (acc.tie_min_per_group[2], acc.tie_max_per_group[2]) == (
        0.0,
        1.0,
    )  # class 0 tied with 1 at the top


def test_group_row_sums_are_each_group_s_row_sums() -> None:
    """summaries/rowsums.py group_row_sums: the exact sums of each group's rows alone."""
    from perfeval.summaries.rowsums import finish_mean, group_row_sums, row_sums

    rng = np.random.default_rng(3)
    v = rng.random(500) * 10.0 ** rng.integers(-30, 30, 500)
    w = rng.random(500)
    codes = rng.integers(0, 9, 500)
    for weights in (None, w):
        got = group_row_sums(v, weights, codes, 10)
        for i in range(10):
            rows = codes == i
            assert got[i] == row_sums(v[rows], None if weights is None else weights[rows])
            assert _same(
                finish_mean(got[i]),
                finish_mean(row_sums(v[rows], None if weights is None else weights[rows])),
            )
    with pytest.raises(OverflowError):
        group_row_sums(np.array([1e308, 2.0]), np.array([10.0, 1.0]), np.array([0, 1]), 2)
