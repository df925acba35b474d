"""scikit-learn's label-based names (perfeval.functional.sklearn_labels) give the installed scikit-learn's
numbers, arrays, reports, warnings and errors on multiclass and multilabel input (hypothesis: weights with
zeros, string and integer labels, classes missing from y_true or y_pred, ``labels=`` reordered or with
extra labels); and the kernels (perfeval.measures.confusion) equal slow loops over the rows."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval.functional as F
from perfeval.exceptions import InvalidDataError, PerfError, UndefinedMeasureWarning
from perfeval.functional import sklearn_labels
from perfeval.measures import confusion as K

sk = pytest.importorskip("sklearn.metrics")
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402


# -- comparing one call ----------------------------------------------------------------------------------
def run(fn, *a, **kw):
    """(value or the exception, [(warning category, text)]): UserWarnings only (numpy's RuntimeWarnings
    inside scikit-learn are not part of its interface), scikit-learn's category named as perfeval's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*a, **kw)
        except Exception as e:  # noqa: BLE001 - compared below
            out = e
    seen = []
    for w in caught:
        if not issubclass(w.category, UserWarning):
            continue
        cat = (
            "undefined"
            if issubclass(w.category, (UndefinedMetricWarning, UndefinedMeasureWarning))
            else "user"
        )
        seen.append((cat, str(w.message)))
    return out, seen


def same_value(ours, theirs, where) -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), where
        for k in theirs:
            same_value(ours[k], theirs[k], (where, k))
    elif isinstance(theirs, str):
        assert ours == theirs, (where, ours, theirs)
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), where
        for a, b in zip(ours, theirs, strict=True):
            same_value(a, b, where)
    elif theirs is None:
        assert ours is None, where
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray) and ours.shape == theirs.shape, (where, ours, theirs)
        assert ours.dtype.kind == theirs.dtype.kind, (where, ours.dtype, theirs.dtype)
        if theirs.dtype.kind in "iu":
            assert np.array_equal(ours, theirs), (where, ours, theirs)
        else:
            assert np.allclose(ours, theirs, rtol=1e-12, atol=1e-300, equal_nan=True), (where, ours, theirs)
    else:
        assert isinstance(ours, float) and not isinstance(theirs, np.ndarray), (where, type(ours))
        a, b = float(ours), float(theirs)
        if math.isnan(b) or math.isinf(b):
            assert a == b or (math.isnan(a) and math.isnan(b)), (where, a, b)
        else:
            assert abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-300), (where, a, b)


def agree(name, *a, **kw) -> None:
    """perfeval's and scikit-learn's ``name`` give the same value and warnings, or both raise: ours a
    one-line PerfError (a ValueError where scikit-learn's is one) naming the function."""
    ours, ow = run(getattr(F, name), *a, **kw)
    theirs, tw = run(getattr(sk, name), *a, **kw)
    where = (name, kw)
    if isinstance(theirs, Exception):
        assert isinstance(ours, PerfError), (where, ours, theirs)
        if isinstance(theirs, ValueError):
            assert isinstance(ours, ValueError), where
        text = str(ours)
        assert text.startswith(f"{name}: ") and "\n" not in text, text
        head = " ".join(str(theirs).split()[:3])  # scikit-learn's words, where ours say the same thing
        if any(head.startswith(s) for s in KNOWN_TEXTS):
            assert head in text, (where, text, str(theirs))
        return
    assert not isinstance(ours, Exception), (where, ours, theirs)
    same_value(ours, theirs, where)
    assert ow == tw, (where, ow, tw)


#: scikit-learn's errors whose opening words perfeval's messages repeat
KNOWN_TEXTS = (
    "Target is",
    "Samplewise metrics are",
    "All labels must",
    "At least one",
    "multilabel-indicator is not",
    "Classification metrics can't",
    "Number of classes,",
    "pos_label=None is",
)


# -- data ------------------------------------------------------------------------------------------------
CLASS_SETS = [[0, 1, 2], [0, 1, 2, 3, 4], ["ant", "bee", "cat", "dog"], [-3, 7, 11], [1, 2]]


@st.composite
def multiclass(draw):
    classes = np.array(draw(st.sampled_from(CLASS_SETS)))
    n = draw(st.integers(1, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # each side drawn from its own subset: classes missing from y_true, from y_pred, or from both
    ty = classes[rng.random(len(classes)) < 0.8] if draw(st.booleans()) else classes
    tp = classes[rng.random(len(classes)) < 0.8] if draw(st.booleans()) else classes
    ty, tp = (ty if len(ty) else classes[:1]), (tp if len(tp) else classes[-1:])
    y = ty[rng.integers(0, len(ty), n)]
    right = rng.random(n) < draw(st.sampled_from([0.0, 0.5, 0.9]))
    p = np.where(right & np.isin(y, tp), y, tp[rng.integers(0, len(tp), n)])
    w = weights(draw, rng, n)
    labels = None
    if draw(st.booleans()):  # another order, and labels absent from the data
        labels = rng.permutation(classes)[: draw(st.integers(1, len(classes)))]
    return y, p, w, labels, classes


def weights(draw, rng, n):
    kind = draw(st.sampled_from(["none", "int", "float"]))
    if kind == "none":
        return None
    w = rng.integers(0, 3, n).astype(float) if kind == "int" else rng.random(n) * (rng.random(n) < 0.8)
    if not w.any():
        w[0] = 1.0
    return w


@st.composite
def multilabel(draw):
    n, k = draw(st.integers(1, 15)), draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Y = (rng.random((n, k)) < draw(st.sampled_from([0.0, 0.3, 0.7]))).astype(int)
    P = np.where(rng.random((n, k)) < draw(st.sampled_from([0.5, 0.9])), Y, 1 - Y)
    w = weights(draw, rng, n)
    labels = None
    if draw(st.booleans()):
        labels = rng.permutation(k)[: draw(st.integers(1, k))]
    return Y, P, w, labels


ZERO_DIVISION = ["warn", 0.0, 1.0, np.nan]
PRF = ["precision_score", "recall_score", "f1_score"]


# -- against scikit-learn ---------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(
    multiclass(),
    st.sampled_from(ZERO_DIVISION),
    st.sampled_from(["binary", "micro", "macro", "weighted", None, "samples"]),
)
def test_multiclass_scores_equal_scikit_learn(data, zd, average):
    y, p, w, labels, classes = data
    sw = {"sample_weight": w}
    lab = {"labels": labels}
    pos = {"pos_label": classes[-1].item()} if average == "binary" else {}
    for name in PRF:
        agree(name, y, p, average=average, zero_division=zd, **lab, **pos, **sw)
    agree("fbeta_score", y, p, beta=0.5, average=average, zero_division=zd, **lab, **pos, **sw)
    agree("fbeta_score", y, p, beta=2.0, average=average, zero_division=zd, **pos, **sw)
    agree("precision_recall_fscore_support", y, p, average=average, zero_division=zd, **lab, **pos, **sw)
    agree("jaccard_score", y, p, average=average, zero_division=zd, **lab, **pos, **sw)
    if average == "macro":  # the ones without average: once an example
        agree("accuracy_score", y, p, **sw)
        agree("accuracy_score", y, p, normalize=False, **sw)
        agree("balanced_accuracy_score", y, p, **sw)
        agree("balanced_accuracy_score", y, p, adjusted=True, **sw)
        agree("matthews_corrcoef", y, p, **sw)
        agree("hamming_loss", y, p, **sw)
        for kappa in (None, "linear", "quadratic"):
            agree("cohen_kappa_score", y, p, weights=kappa, **lab, **sw)
        for normalize in (None, "true", "pred", "all"):
            agree("confusion_matrix", y, p, normalize=normalize, **lab, **sw)
        agree("multilabel_confusion_matrix", y, p, **lab, **sw)
    if average in ("binary", "weighted"):
        agree("precision_recall_fscore_support", y, p, beta=2.0, pos_label=None, average=average, **sw)
        agree("classification_report", y, p, zero_division=zd, **lab, **sw)
        agree("classification_report", y, p, output_dict=True, digits=4, zero_division=zd, **lab, **sw)


@settings(max_examples=80, deadline=None)
@given(
    multilabel(),
    st.sampled_from(ZERO_DIVISION),
    st.sampled_from(["binary", "micro", "macro", "weighted", None, "samples"]),
)
def test_multilabel_scores_equal_scikit_learn(data, zd, average):
    Y, P, w, labels = data
    sw = {"sample_weight": w}
    for name in PRF:
        agree(name, Y, P, average=average, labels=labels, zero_division=zd, **sw)
    agree("fbeta_score", Y, P, beta=3.0, average=average, zero_division=zd, **sw)
    agree("precision_recall_fscore_support", Y, P, average=average, labels=labels, zero_division=zd, **sw)
    agree("jaccard_score", Y, P, average=average, labels=labels, zero_division=zd, **sw)
    if average == "macro":
        agree("accuracy_score", Y, P, **sw)
        agree("accuracy_score", Y, P, normalize=False, **sw)
        agree("hamming_loss", Y, P, **sw)
        for samplewise in (False, True):
            agree("multilabel_confusion_matrix", Y, P, labels=labels, samplewise=samplewise, **sw)
        for name in ("confusion_matrix", "matthews_corrcoef", "balanced_accuracy_score", "cohen_kappa_score"):
            agree(name, Y, P)  # refused, as scikit-learn refuses them
        agree("classification_report", Y, P, zero_division=zd, **sw)
        agree("classification_report", Y, P, output_dict=True, zero_division=zd, **sw)


def test_integer_weights_keep_scikit_learns_dtypes():
    y, p = np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 1, 1])
    Y, P = np.eye(3, dtype=int)[y], np.eye(3, dtype=int)[p]
    for w in (None, np.array([1, 0, 2, 1, 3]), np.array([1.0, 0.0, 2.5, 1.0, 3.0])):
        agree("confusion_matrix", y, p, sample_weight=w)
        agree("multilabel_confusion_matrix", y, p, sample_weight=w)
        agree("multilabel_confusion_matrix", Y, P, sample_weight=w)
        agree("multilabel_confusion_matrix", Y, P, sample_weight=w, samplewise=True)
        agree("precision_recall_fscore_support", y, p, sample_weight=w)
        agree("precision_recall_fscore_support", Y, P, sample_weight=w)
        agree("classification_report", Y, P, sample_weight=w)


@pytest.mark.parametrize(
    ("name", "args", "kw"),
    [
        ("f1_score", ([0, 1, 2], [0, 1, 1]), {}),  # multiclass with average='binary'
        ("f1_score", ([[0, 1], [1, 1]], [[0, 1], [1, 0]]), {}),  # multilabel with average='binary'
        ("f1_score", ([0, 1, 2], [0, 1, 1]), {"average": "samples"}),
        ("jaccard_score", (["a", "b"], ["a", "a"]), {}),  # pos_label=1 not a label
        ("recall_score", ([[0, 1], [1, 1]], [[0, 1], [1, 0]]), {"average": "macro", "labels": [0, 2]}),
        ("recall_score", ([[0, 1], [1, 1]], [[0, 1], [1, 0]]), {"average": "macro", "labels": [-1, 0]}),
        ("accuracy_score", ([0, 1, 2], [[0, 1], [1, 1], [0, 0]]), {}),  # multiclass and multilabel
        ("hamming_loss", ([[0, 1, 1], [1, 1, 0]], [[0, 1], [1, 0]]), {}),  # different numbers of labels
        ("confusion_matrix", ([[0, 1], [1, 1]], [[0, 1], [1, 0]]), {}),
        ("multilabel_confusion_matrix", ([0, 1, 2], [0, 1, 1]), {"samplewise": True}),
        ("cohen_kappa_score", ([0, 1, 1], [0, 1, 0]), {"labels": [5, 6]}),
        ("cohen_kappa_score", ([0, 0, 0], [1, 1, 1]), {"labels": [0, 3]}),  # y2 none of labels
        ("cohen_kappa_score", ([0, 0, 0], [0, 0, 0]), {}),  # one label in common
        ("classification_report", ([0, 1, 2], [0, 1, 1]), {"target_names": ["a", "b"]}),
        ("classification_report", ([0, 1, 2], [0, 1, 1]), {"labels": [0, 1], "target_names": ["a"]}),
        ("precision_score", ([0, 1, 2], [0, 1, 1]), {"average": "macro", "pos_label": 2}),  # ignored: warns
        ("f1_score", ([0, 1, 1], [0, 1, 0]), {"pos_label": None}),  # not a valid label
        ("f1_score", ([1, 1, 1], [1, 1, 1]), {"pos_label": None}),  # one label: a TypeError in scikit-learn
        ("f1_score", ([0, 1, 2], [0, 1, 7]), {"average": None, "labels": [7, 0, 9]}),
        ("jaccard_score", ([0, 1, 2], [0, 1, 7]), {"average": "weighted", "labels": [7, 9]}),
    ],
)
def test_errors_and_warnings_are_scikit_learns(name, args, kw):
    agree(name, *(np.asarray(a) for a in args), **kw)


def test_errors_are_one_line_of_ours():
    with pytest.raises(InvalidDataError, match=r"^f1_score: Target is multiclass but average='binary'"):
        F.f1_score([0, 1, 2], [0, 1, 1])
    with pytest.raises(InvalidDataError, match=r"holds 2 at row 0, column 1"):
        F.hamming_loss([[0, 2], [1, 1]], [[0, 1], [1, 0]])
    with pytest.raises(InvalidDataError, match=r"^jaccard_score: Classification metrics can't handle a mix"):
        F.jaccard_score([0, 1], [[0, 1], [1, 0]], average="macro")


def test_the_names_keep_scikit_learns_signatures_and_are_exported():
    import inspect

    for name in sklearn_labels.__all__:
        assert getattr(F, name) is getattr(sklearn_labels, name)
        theirs = inspect.signature(getattr(sk, name)).parameters
        ours = inspect.signature(getattr(F, name)).parameters
        assert set(ours) - set(theirs) <= {"threshold"}, name
        for p in theirs.values():
            q = ours[p.name]
            assert q.kind == p.kind, (name, p.name)
            same = q.default is p.default or q.default == p.default
            nan = isinstance(p.default, float) and math.isnan(p.default) and math.isnan(q.default)
            assert same or nan, (name, p.name, q.default, p.default)


# -- the kernels against loops over the rows -------------------------------------------------------------
@st.composite
def codes(draw):
    k = draw(st.integers(1, 5))
    n = draw(st.integers(0, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y, p = rng.integers(0, k, n), rng.integers(0, k, n)
    w = None if draw(st.booleans()) else rng.integers(0, 4, n).astype(float)
    scores = np.round(rng.random((n, k)), 1)  # many ties at the maximum
    return y, p, k, w, scores


def slow_confusion(y, p, k, w):
    C = [[Fraction(0)] * k for _ in range(k)]
    for i in range(len(y)):
        C[y[i]][p[i]] += Fraction(1 if w is None else w[i])
    return C


@settings(max_examples=200, deadline=None)
@given(codes())
def test_kernels_equal_loops_over_the_rows(data):
    y, p, k, w, scores = data
    slow = slow_confusion(y, p, k, w)
    C = K.confusion(y, p, k, w)
    assert C.dtype == np.float64 and C.tolist() == [[float(v) for v in row] for row in slow]
    if w is not None:  # weights of 1 are no weights, bit for bit
        ones = np.ones(len(y))
        assert np.array_equal(K.confusion(y, p, k, ones), K.confusion(y, p, k, None))
    # the argmax matrix with ties shared: the expectation over the tie orders, exactly
    E = [[Fraction(0)] * k for _ in range(k)]
    for i in range(len(y)):
        top = [j for j in range(k) if scores[i, j] == max(scores[i])]
        for j in top:
            E[y[i]][j] += Fraction(1 if w is None else w[i]) / len(top)
    got = K.expected_confusion(y, scores.reshape(len(y), k), w)
    assert np.allclose(got, [[float(v) for v in row] for row in E], rtol=1e-15, atol=0)
    assert np.allclose(got.sum(axis=1), C.sum(axis=1), rtol=1e-15, atol=0)  # each row's weight, once
    total = sum(sum(r) for r in slow)
    trace = sum(slow[c][c] for c in range(k))
    acc = K.accuracy(C)
    assert math.isnan(acc) if total == 0 else acc == pytest.approx(float(trace / total), rel=1e-15)
    # per class, from the row and column sums of the exact matrix
    true = [sum(slow[c]) for c in range(k)]
    pred = [sum(slow[r][c] for r in range(k)) for c in range(k)]
    tp, kp, kt, _total = K.class_counts(C)
    pr, rc, f2 = K.precision_recall_fbeta(tp, kp, kt, beta=2.0)
    for c in range(k):
        d = slow[c][c]
        assert math.isnan(pr[c]) if pred[c] == 0 else pr[c] == pytest.approx(float(d / pred[c]), rel=1e-15)
        assert math.isnan(rc[c]) if true[c] == 0 else rc[c] == pytest.approx(float(d / true[c]), rel=1e-15)
        if true[c] == 0 and pred[c] == 0:
            assert math.isnan(f2[c])
        else:  # 1 / F = (1 / P + 4 / R) / 5 where both are defined; else (5 d) / (4 t + p)
            assert f2[c] == pytest.approx(float(5 * d / (4 * true[c] + pred[c])), rel=1e-14)
    defined = [float(slow[c][c] / true[c]) for c in range(k) if true[c]]
    bal = K.balanced_accuracy(C)
    assert math.isnan(bal) if not defined else bal == pytest.approx(sum(defined) / len(defined), rel=1e-14)
    # macro leaves the undefined classes out; weighted weighs by support
    mp, _mr, _mf = K.prf_average(tp, kp, kt, "macro")
    dp = [float(slow[c][c] / pred[c]) for c in range(k) if pred[c]]
    assert math.isnan(mp) if not dp else mp == pytest.approx(sum(dp) / len(dp), rel=1e-14)
    # MCC as the correlation of the one-hot vectors, summed over classes (a different computation)
    if total:
        mean_t = [true[c] / total for c in range(k)]
        mean_p = [pred[c] / total for c in range(k)]
        cov = lambda a, b, ma, mb: sum(  # noqa: E731
            Fraction(1 if w is None else w[i]) * (int(a[i] == c) - ma[c]) * (int(b[i] == c) - mb[c])
            for i in range(len(y))
            for c in range(k)
        )
        cxy, cxx, cyy = cov(y, p, mean_t, mean_p), cov(y, y, mean_t, mean_t), cov(p, p, mean_p, mean_p)
        mcc = K.matthews(C)
        if cxx * cyy == 0:
            assert math.isnan(mcc)
        else:
            assert mcc == pytest.approx(float(cxy) / math.sqrt(float(cxx * cyy)), rel=1e-12, abs=1e-15)
        # kappa: (p_o - p_e) / (1 - p_e), and the weighted form by its sums of disagreements
        for weights, dis in ((None, lambda i, j: int(i != j)), ("linear", lambda i, j: abs(i - j)),
                             ("quadratic", lambda i, j: (i - j) ** 2)):  # fmt: skip
            obs = sum(dis(i, j) * slow[i][j] for i in range(k) for j in range(k)) / total
            exp = sum(dis(i, j) * true[i] * pred[j] for i in range(k) for j in range(k)) / total**2
            kappa = K.cohen_kappa(C, weights)
            assert math.isnan(kappa) if exp == 0 else kappa == pytest.approx(float(1 - obs / exp), abs=1e-12)
    else:
        assert math.isnan(K.matthews(C)) and math.isnan(K.cohen_kappa(C))


@settings(max_examples=100, deadline=None)
@given(multilabel(), st.sampled_from(["samples", "macro", "micro", "weighted", None]))
def test_multilabel_kernels_equal_loops(data, average):
    Y, P, w, _labels = data
    n, k = Y.shape
    wt = [Fraction(1) if w is None else Fraction(float(v)) for v in (np.ones(n) if w is None else w)]
    cells = {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}
    got = dict(zip(cells, K.label_counts(Y, P, w), strict=True))
    for name, (a, b) in cells.items():
        slow = [sum(wt[i] for i in range(n) if Y[i, j] == a and P[i, j] == b) for j in range(k)]
        assert np.allclose(got[name], [float(v) for v in slow], rtol=1e-14, atol=0), name
    wrong = sum(wt[i] * sum(int(Y[i, j] != P[i, j]) for j in range(k)) for i in range(n))
    wsum = sum(wt)
    assert K.hamming_loss(Y, P, w) == pytest.approx(float(wrong / (wsum * k)), rel=1e-14)
    exact = sum(wt[i] for i in range(n) if (Y[i] == P[i]).all())
    assert K.subset_accuracy(Y, P, w) == pytest.approx(float(exact / wsum), rel=1e-14)

    # Jaccard, perfeval's policy: the 0/0 labels or samples left out
    def jac(rows):
        vals = []
        for inter, union, weight in rows:
            if union:
                vals.append((Fraction(inter, union), weight))
        return vals

    j = K.jaccard_average(Y, P, w, average)
    if average == "samples":
        vals = jac([((Y[i] & P[i]).sum(), (Y[i] | P[i]).sum(), wt[i]) for i in range(n)])
        ws = sum(v for _, v in vals)
        assert (
            math.isnan(j)
            if not vals or ws == 0
            else j == pytest.approx(float(sum(a * b for a, b in vals) / ws), rel=1e-13)
        )
    elif average is None:
        tp, fp, fn = (
            np.array(
                [
                    float(s)
                    for s in [sum(wt[i] for i in range(n) if Y[i, c] == a and P[i, c] == b) for c in range(k)]
                ]
            )
            for a, b in ((1, 1), (0, 1), (1, 0))
        )
        with np.errstate(invalid="ignore"):
            assert np.allclose(j, tp / (tp + fp + fn), rtol=1e-14, equal_nan=True)
    sp, _sr, _sf = K.samples_prf(Y, P, w)
    vals = [(Fraction(int((Y[i] & P[i]).sum()), int(P[i].sum())), wt[i]) for i in range(n) if P[i].sum()]
    ws = sum(v for _, v in vals)
    assert (
        math.isnan(sp)
        if not vals or ws == 0
        else sp == pytest.approx(float(sum(a * b for a, b in vals) / ws), rel=1e-13)
    )
