"""Registry-wide properties of every measure of kind "multiclass" (the registry is iterated: a new
multiclass measure is covered without a line here), and the edge cases of the door.

What holds to the bit, and what only within 1e-12 (and why):

- a case of weight 0 is a dropped case: bits (both are dropped at the door);
- one group's value is that group alone: bits (the same summary of the same rows);
- a summary folded batch by batch in row order is the summary of all: bits, weighted too;
- row order, unweighted: bits for every measure (counts are integers; a tie at the argmax among t
  classes is kept as whole counts by tie size, divided by t only when the confusion is read);
- row order, weighted: within 1e-12 only: each distinct score's weight is a float sum in row order,
  and float addition is not associative;
- merge of random splits, unweighted: bits, the summaries equal.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval
from _mc_reference import kappa_of, mc_data
from _registry import completed, fractional_ok_classes
from perfeval.engine.classes import summary_values
from perfeval.measures import REGISTRY, parse_measure
from perfeval.summaries.classes import ClassSummary

MULTICLASS = [m for m in REGISTRY if m.kind == "multiclass"]


def labels_of(m) -> list[str]:
    """Every label of measure ``m`` worth checking: each choice of each parameter with choices (one
    at a time), and k = 1, 2, 3 of an at-parameter measure."""
    if m.at_param:
        return [f"{m.name}@{k}" for k in (1, 2, 3)]
    out = [completed(m, p, f"{m.name}:{p.name}={c}") for p in m.params if p.choices for c in p.choices]
    return out or [m.name]


LABELS = [lab for m in MULTICLASS for lab in labels_of(m)]
#: the labels that take fractional weights (ECE_TOP's debiased form counts cases: whole weights only)
FRACTIONAL = fractional_ok_classes(LABELS)


def labels_for(w) -> list[str]:
    """The labels a property runs with weights ``w``: all with whole weights (or none), else those
    that take fractional ones (:func:`fractional_ok_classes`)."""
    return LABELS if w is None or bool(np.all(np.asarray(w) == np.round(w))) else FRACTIONAL


UNWEIGHTED_AVERAGE_EXEMPT = {"KAPPA:weights=linear", "KAPPA:weights=quadratic", "QWK"}


def test_the_registry_has_multiclass_measures():
    assert len(MULTICLASS) >= 14 and "ROC_OVR" in {m.name for m in MULTICLASS}
    # every label runs with fractional weights but those that refuse them in one line
    assert len(FRACTIONAL) >= len(LABELS) - 2 and "ECE_TOP:debiased=yes,norm=l2" in set(LABELS) - set(
        FRACTIONAL
    )


def vals(y, s, classes, w=None, groups=None, labels=None) -> dict:
    labels = labels_for(w) if labels is None else labels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, classes=classes, sample_weight=w, groups=groups, measures=labels)
    return {lab: r.results[lab] for lab in r.results}


def bits(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def close(a: float, b: float, rel: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def assert_same(a: dict, b: dict, what: str, exact: bool = True) -> None:
    assert a.keys() == b.keys()
    for lab in a:
        x, y = a[lab].value, b[lab].value
        assert bits(x, y) if exact else close(x, y), f"{what}: {lab} {x!r} != {y!r}"
        if a[lab].per_class is not None:
            pa, pb = a[lab].per_class, b[lab].per_class
            ok = all((bits if exact else close)(float(u), float(v)) for u, v in zip(pa, pb, strict=True))
            assert ok, f"{what}: {lab} per class {pa} != {pb}"


def shares_in_thirds(s: np.ndarray) -> bool:
    """Some row ties at its maximum across a number of classes that is not a power of two."""
    t = (s == s.max(axis=1, keepdims=True)).sum(axis=1)
    return bool(np.any(t & (t - 1)))


# -- zero weights, groups, folds ---------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(mc_data(weights=False), st.data())
def test_zero_weight_is_a_dropped_row(d, data):
    n = len(d["y"])
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n)))
    keep = w > 0
    labels = labels_for(w)
    a = vals(d["y"], d["s"], d["classes"], w, labels=labels)
    b = vals(d["y"][keep], d["s"][keep], d["classes"], w[keep], labels=labels)
    assert_same(a, b, "weight 0 vs dropped")


@settings(max_examples=40, deadline=None)
@given(mc_data(max_n=14), st.data())
def test_group_value_is_that_group_alone(d, data):
    n = len(d["y"])
    g = np.array(data.draw(st.lists(st.sampled_from(["u1", "u2", "u3"]), min_size=n, max_size=n)))
    labels = labels_for(d["w"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(
            d["y"], d["s"], classes=d["classes"], sample_weight=d["w"], groups=g, measures=labels
        )
    groups = list(r.groups)
    for i, key in enumerate(groups):
        rows = g == key
        w = None if d["w"] is None else d["w"][rows]
        alone = vals(d["y"][rows], d["s"][rows], d["classes"], w, labels=labels)
        for lab, res in alone.items():
            got = float(r.results[lab].per_group[i])
            assert bits(got, res.value), f"group {key}: {lab} {got!r} != {res.value!r}"


@settings(max_examples=60, deadline=None)
@given(mc_data(max_n=14), st.data())
def test_folded_in_row_order_is_the_whole(d, data):
    """Batches folded in row order give the bits of the whole, with weights too."""
    n, k = len(d["y"]), d["k"]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    classes = tuple(d["classes"])
    whole = ClassSummary.from_checked(d["codes"], d["s"], d["w"], classes)
    cs = ClassSummary.empty(classes)
    for a, b in zip([0, *cuts], [*cuts, n], strict=True):
        cs = cs.folded(d["codes"][a:b], d["s"][a:b], None if d["w"] is None else d["w"][a:b])
    assert cs == whole
    specs = [parse_measure(lab) for lab in labels_for(d["w"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(summary_values(specs, cs), summary_values(specs, whole), "folded vs whole")
    assert k == whole.k


@settings(max_examples=60, deadline=None)
@given(mc_data(weights=False), st.randoms(use_true_random=False))
def test_row_order_unweighted(d, rnd):
    n = len(d["y"])
    perm = list(range(n))
    rnd.shuffle(perm)
    a = vals(d["y"], d["s"], d["classes"])
    b = vals(d["y"][perm], d["s"][perm], d["classes"])
    assert_same(a, b, "row order")


@settings(max_examples=60, deadline=None)
@given(mc_data(), st.randoms(use_true_random=False))
def test_row_order_weighted_within_1e12(d, rnd):
    """Not bits: each distinct score's weight is a float sum in row order."""
    n = len(d["y"])
    perm = list(range(n))
    rnd.shuffle(perm)
    w = d["w"] if d["w"] is not None else np.full(n, 0.1)
    a = vals(d["y"], d["s"], d["classes"], w)
    b = vals(d["y"][perm], d["s"][perm], d["classes"], w[perm], labels=labels_for(w))
    assert_same(a, b, "row order, weighted", exact=False)


@settings(max_examples=60, deadline=None)
@given(mc_data(weights=False), st.data())
def test_merge_of_random_splits_is_the_whole(d, data):
    n = len(d["y"])
    part = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    classes = tuple(d["classes"])
    whole = ClassSummary.from_checked(d["codes"], d["s"], None, classes)
    parts = [
        ClassSummary.from_checked(d["codes"][part == i], d["s"][part == i], None, classes) for i in range(3)
    ]
    merged = ClassSummary.merge_all(parts)
    specs = [parse_measure(lab) for lab in LABELS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = summary_values(specs, merged), summary_values(specs, whole)
    assert merged == whole
    assert_same(a, b, "merge")


def test_row_order_unweighted_with_three_way_ties():
    """Unweighted, the row order changes no bit; shares of 1/3 added in row order did
    (1/3 + 1/3 + 1 rounds otherwise than 1 + 1/3 + 1/3)."""
    y = np.array([0, 0, 0, 0, 0, 1])
    s = np.array([[1, 0, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 1, 1], [1, 1, 0]], dtype=float)
    perm = [2, 1, 4, 5, 3, 0]
    a = vals(y, s, [0, 1, 2], labels=["BACC"])["BACC"].value
    b = vals(y[perm], s[perm], [0, 1, 2], labels=["BACC"])["BACC"].value
    assert a == b, (a, b)  # 0.39999999999999997 != 0.4


@st.composite
def wide_ties(draw):
    """Unweighted rows of K in 3..8 classes whose maxima tie among 3..7 classes (and some not)."""
    k = draw(st.integers(3, 8))
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    s = r.integers(0, 3, size=(n, k)).astype(np.float64) / 4
    for i in range(n):  # a tie among t classes at the top of most rows
        t = int(r.integers(1, min(k, 7) + 1))
        s[i, r.choice(k, size=t, replace=False)] = 1.0
    y = r.integers(0, k, size=n).astype(np.intp)
    return y, s, k, r


@settings(max_examples=80, deadline=None)
@given(wide_ties())
def test_row_order_and_merges_give_bits_with_ties_among_3_to_7_classes(d):
    y, s, k, r = d
    classes = tuple(range(k))
    whole = ClassSummary.from_checked(y, s, None, classes)
    perm = r.permutation(len(y))
    shuffled = ClassSummary.from_checked(y[perm], s[perm], None, classes)
    part = r.integers(0, 4, size=len(y))
    pieces = [ClassSummary.from_checked(y[part == i], s[part == i], None, classes) for i in r.permutation(4)]
    merged = ClassSummary.merge_all(pieces)
    folded = ClassSummary.empty(classes)
    for i in range(4):
        folded = folded.folded(y[perm][part == i], s[perm][part == i], None)
    tree = ClassSummary.merge_all([pieces[0].merge(pieces[3]), pieces[2].merge(pieces[1])])
    specs = [parse_measure(lab) for lab in LABELS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = summary_values(specs, whole)
        for what, cs in (("row order", shuffled), ("merge", merged), ("fold", folded), ("tree", tree)):
            assert cs == whole, what
            assert _bits(cs.confusion) == _bits(whole.confusion), what
            assert_same(summary_values(specs, cs), want, what)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("k", [2, 3, 5, 6, 7])
@pytest.mark.parametrize("n", [3, 5, 7, 10])
@pytest.mark.parametrize("weighted", [False, True])
def test_all_scores_equal_give_the_registrys_mcc_and_kappa(k, n, weighted):
    """Every case tied across all K classes: the argmax is independent of the truth, MCC and every
    kappa exactly 0 (MCC NaN with one true class, as the registry says), not a rounding like 1e-16."""
    y = np.arange(n) % k
    s = np.full((n, k), 1.0 / k)
    w = np.linspace(0.1, 3.0, n) if weighted else None
    got = vals(y, s, list(range(k)), w, labels=["MCC", "KAPPA", "QWK", "KAPPA:weights=linear"])
    for lab, res in got.items():
        assert res.value == 0.0 and math.copysign(1.0, res.value) == 1.0, (lab, res.value)
    one = vals(np.zeros(n, int), s, list(range(k)), w, labels=["MCC", "KAPPA"])
    assert math.isnan(one["MCC"].value)  # every case of one class: 0/0
    assert one["KAPPA"].value == 0.0  # sum(W * E) > 0: the predictions are spread over K classes


# -- K = 2: the binary measures ------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(mc_data(max_k=2, min_k=2))
def test_two_classes_are_the_binary_measures(d):
    y, s, w, codes = d["y"], d["s"], d["w"], d["codes"]
    live = np.ones(len(y), bool) if w is None else w > 0
    mc = vals(y, s, d["classes"], w)
    for j in range(2):  # each class against the other in its own column: the binary ROC
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = perfeval.evaluate((codes == j).astype(int), s[:, j], sample_weight=w, measures=["ROC"])
        assert bits(float(mc["ROC_OVR:average=macro"].per_class[j]), b.results["ROC"].value)
    # one-vs-one of two classes is the mean of the two one-vs-rest areas
    assert close(mc["ROC_OVO:average=macro"].value, mc["ROC_OVR:average=macro"].value)
    # the argmax, without ties, is the binary prediction "s1 - s0 > 0" of class 1
    if not live.any() or np.any(s[live, 0] == s[live, 1]):
        return
    diff = s[:, 1] - s[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = perfeval.evaluate(
            (codes == 1).astype(int),
            diff,
            sample_weight=w,
            threshold=0.0,
            measures=["ACC", "PRE", "REC", "PRF"],
        )
    assert close(mc["ACC_MC"].value, b.results["ACC@0"].value)
    for mlab, blab in (("PRE_MC", "PRE@0"), ("REC_MC", "REC@0"), ("F_MC", "PRF@0")):
        got = float(mc[f"{mlab}:average=macro"].per_class[1])
        ref = b.results[blab].value
        assert close(got, ref), (mlab, got, ref)
    from sklearn.metrics import matthews_corrcoef

    pred = (diff > 0).astype(int)
    ref = matthews_corrcoef((codes == 1).astype(int), pred, sample_weight=w)
    got = mc["MCC"].value
    assert close(got, ref) or (math.isnan(got) and ref == 0.0)


# -- relabelling: columns and classes permuted together --------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(mc_data(weights=False), st.data())
def test_relabelling_the_classes(d, data):
    k = d["k"]
    perm = data.draw(st.permutations(list(range(k))))
    classes2 = [d["classes"][j] for j in perm]
    a = vals(d["y"], d["s"], d["classes"])
    b = vals(d["y"], d["s"][:, perm], classes2)
    for lab in a:
        x, y = a[lab].value, b[lab].value
        if lab in UNWEIGHTED_AVERAGE_EXEMPT:
            # the disagreement weights read the classes' positions: the kappa of the confusion
            # with each class at its new place
            cs = ClassSummary.from_checked(d["codes"], d["s"], None, tuple(d["classes"]))
            where = [perm.index(j) for j in range(k)]
            wt = "linear" if lab.endswith("linear") else "quadratic"
            ref = kappa_of(cs.confusion, wt, where)
            assert close(y, ref), (lab, y, ref)
            continue
        if (
            lab == "MCC"
            and math.isnan(x) != math.isnan(y)
            and abs(np.nan_to_num(x) + np.nan_to_num(y)) < 1e-6
        ):
            continue  # the bug of test_mcc_of_one_true_class_is_nan: NaN, 0.0 or 2e-9 by column order
        assert close(x, y), (lab, x, y)  # macro means over the classes in another order: 1e-12
        if a[lab].per_class is not None:
            # bits unless a tie shares a case in thirds: a row of the expected confusion is then
            # summed in another order of its columns (recall's support is the row's sum)
            same = close if shares_in_thirds(d["s"]) else bits
            pa, pb = a[lab].per_class, b[lab].per_class
            assert all(same(float(pa[perm[i]]), float(pb[i])) for i in range(k)), lab


def test_relabelling_changes_the_ordered_kappas():
    """Classes 0, 1, 2 predicted [0, 1, 1, 2, 2, 0] for [0, 0, 1, 2, 2, 2]: the ordered kappas
    read the order (class 1 first: the 2-for-0 miss is one step, not two); plain kappa does not."""
    y = np.array([0, 0, 1, 2, 2, 2])
    s = np.eye(3)[[0, 1, 1, 2, 2, 0]] * 0.8 + 0.1
    ordered = ["KAPPA:weights=linear", "QWK", "KAPPA"]
    a = vals(y, s, [0, 1, 2], labels=ordered)
    b = vals(y, s[:, [1, 0, 2]], [1, 0, 2], labels=ordered)
    assert close(a["QWK"].value, 4 / 9) and close(b["QWK"].value, 0.75)
    assert close(a["KAPPA:weights=linear"].value, 8 / 17) and close(b["KAPPA:weights=linear"].value, 0.625)
    assert a["KAPPA"].value == b["KAPPA"].value == 0.5


# -- the door's edge cases -------------------------------------------------------------------------------
S3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.4, 0.4, 0.2]])
Y3 = [0, 1, 2, 1]


def test_every_weight_zero_is_no_case():
    a = vals(np.array(Y3), S3, [0, 1, 2], np.zeros(4))
    assert all(math.isnan(r.value) for r in a.values())
    b = vals(np.zeros(0, int), np.zeros((0, 3)), [0, 1, 2])
    assert_same(a, b, "no case")


def test_one_class_present():
    a = vals(np.zeros(4, int), S3, [0, 1, 2])
    assert math.isnan(a["ROC_OVR:average=macro"].value)
    assert math.isnan(a["ROC_OVO:average=macro"].value)
    assert a["ROC_OVR:average=macro"].undefined_classes == [0, 1, 2]
    assert a["BACC"].value == a["REC_MC:average=macro"].per_class[0]


def test_two_classes_named_and_huge_k():
    rng = np.random.default_rng(5)
    s = rng.random((4, 300))
    a = vals(np.array([0, 7, 299, 7]), s, list(range(300)))
    assert len(a["ROC_OVR:average=macro"].undefined_classes) == 297
    ref = vals(np.array([0, 7, 299, 7]), s, np.arange(300))  # classes as a numpy array
    assert_same(a, ref, "classes as a numpy array")


@pytest.mark.parametrize("scale", [1.0, 1e308, 5e-324, 1e-310])
def test_extreme_scores_keep_the_ranking(scale):
    """Scores at the ends of double precision: the same order, the same ranking measures."""
    base = np.array([[3.0, 2.0, 1.0], [1.0, 3.0, 2.0], [2.0, 1.0, 3.0], [1.0, 2.0, 3.0], [3.0, 3.0, 1.0]])
    y = np.array([0, 1, 2, 0, 1])
    ranking = ["ROC_OVR", "ROC_OVO", "AP_OVR", "ACC_MC", "F_MC", "MCC", "TOPK_ACC@2"]
    ref = vals(y, base, [0, 1, 2], labels=ranking)
    s = base * scale
    if not np.array_equal(
        np.argsort(s, axis=None, kind="stable"), np.argsort(base, axis=None, kind="stable")
    ):
        pytest.skip("this scale merges scores")
    assert_same(vals(y, s, [0, 1, 2], labels=ranking), ref, f"scores x {scale}")


def test_signed_zero_scores_are_one_score():
    y = np.array([0, 1, 2, 0])
    s = np.array([[0.0, -0.0, -1.0], [-0.0, 0.0, -1.0], [-1.0, -0.0, 0.0], [0.0, 0.0, 0.0]])
    a = vals(y, s, [0, 1, 2])
    b = vals(y, np.abs(s) * np.sign(s) + 0.0, [0, 1, 2])  # every -0.0 made +0.0
    assert_same(a, b, "-0.0 vs 0.0")


@pytest.mark.parametrize(
    "y, classes",
    [
        (np.array(["a", "b", "c", "b"]), ["a", "b", "c"]),
        (np.array(["a", "b", "c", "b"], dtype=object), ["a", "b", "c"]),
        (np.array(["a", "b", "c", "b"]), np.array(["a", "b", "c"])),
        (np.array(["a", "b", "c", "b"], dtype=object), [np.str_("a"), np.str_("b"), np.str_("c")]),
        (np.array([1.0, 2.0, 3.0, 2.0]), [1, 2, 3]),
        (np.array([1, 2, 3, 2]), [1.0, 2.0, 3.0]),
        (np.array([1, 2, 3, 2]), np.array([1, 2, 3], dtype=np.int8)),
    ],
)
def test_labels_of_any_dtype_name_the_same_classes(y, classes):
    a = vals(y, S3, classes)
    b = vals(np.array(Y3), S3, [0, 1, 2])
    assert_same(a, b, f"{y.dtype} labels, classes {classes!r}")


def test_bool_labels():
    y = np.array([True, False, True, True])
    s = S3[:, :2]
    a = vals(y, s, [False, True], labels=["ROC_OVR", "ACC_MC"])
    b = vals(y.astype(int), s, [0, 1], labels=["ROC_OVR", "ACC_MC"])
    assert_same(a, b, "bool labels")
