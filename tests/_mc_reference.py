"""Slow, obviously-correct references for the multiclass measures (Python loops over cases and
pairs, and enumeration of every order of a tie), and the hypothesis data they are checked on.

Kept apart from tests/_reference.py (binary and ranking references) so that issue 32's helpers can
add theirs without conflicts.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

#: label sets the data draws its K classes from (ints, strings, non-contiguous ints)
LABELS: list[list[Any]] = [
    [0, 1, 2, 3, 4, 5],
    ["cat", "dog", "bird", "fish", "ant", "bee"],
    [10, 3, 7, -1, 42, 8],
]


def _w(w: Any, n: int) -> list[float]:
    return [1.0] * n if w is None else [float(v) for v in w]


# -- ranking measures ---------------------------------------------------------------------------------
def ovr_auc(codes: Any, s: np.ndarray, w: Any, j: int) -> float:
    """Class ``j`` against the rest in column ``j``: the weighted share of (positive, negative)
    pairs the positive wins, ties one half; NaN without both."""
    ww = _w(w, len(codes))
    num = den = 0.0
    for a in range(len(codes)):
        if codes[a] != j or ww[a] == 0:
            continue
        for b in range(len(codes)):
            if codes[b] == j or ww[b] == 0:
                continue
            p = ww[a] * ww[b]
            den += p
            num += p * (1.0 if s[a, j] > s[b, j] else 0.5 if s[a, j] == s[b, j] else 0.0)
    return num / den if den > 0 else math.nan


def a_given(codes: Any, s: np.ndarray, w: Any, j: int, c: int) -> float:
    """Hand and Till's A(j|c): P(column j scores a class-j case above a class-c case), ties 1/2."""
    ww = _w(w, len(codes))
    num = den = 0.0
    for a in range(len(codes)):
        if codes[a] != j or ww[a] == 0:
            continue
        for b in range(len(codes)):
            if codes[b] != c or ww[b] == 0:
                continue
            p = ww[a] * ww[b]
            den += p
            num += p * (1.0 if s[a, j] > s[b, j] else 0.5 if s[a, j] == s[b, j] else 0.0)
    return num / den if den > 0 else math.nan


def ovo_auc(codes: Any, s: np.ndarray, w: Any, k: int, average: str = "macro") -> float:
    """Hand and Till's M over the pairs of present classes; ``weighted``: each pair by n_j + n_c
    (the classes' total weights), as scikit-learn weights the pairs by their prevalence."""
    ww = _w(w, len(codes))
    support = [sum(ww[i] for i in range(len(codes)) if codes[i] == c) for c in range(k)]
    vals, wts = [], []
    for j, c in itertools.combinations(range(k), 2):
        if support[j] == 0 or support[c] == 0:
            continue
        vals.append((a_given(codes, s, w, j, c) + a_given(codes, s, w, c, j)) / 2)
        wts.append(support[j] + support[c])
    if not vals:
        return math.nan
    if average == "weighted":
        return sum(v * x for v, x in zip(vals, wts, strict=True)) / sum(wts)
    return sum(vals) / len(vals)


# -- the argmax prediction, every order of every tie ---------------------------------------------------
def tie_choices(s: np.ndarray) -> list[list[int]]:
    """Each row's classes tied at its maximum (the classes an order of the tie may predict)."""
    return [[j for j in range(s.shape[1]) if s[i, j] == s[i].max()] for i in range(len(s))]


def confusions(codes: Any, s: np.ndarray, w: Any, k: int):
    """Every (probability, confusion) over the orders of the ties at the argmax: each tied row picks
    one of its tied classes, each pick equally likely (the first of a uniformly random order).
    Exact: Fractions (the weights are floats, read exactly)."""
    ww = [Fraction(v) for v in _w(w, len(codes))]
    choices = tie_choices(s)
    for pick in itertools.product(*choices):
        prob = Fraction(1)
        c = _zeros(k)
        for i, p in enumerate(pick):
            prob /= len(choices[i])
            c[codes[i], p] += ww[i]
        yield prob, c


def _zeros(k: int) -> np.ndarray:
    c = np.empty((k, k), dtype=object)
    c[...] = Fraction(0)
    return c


def expected_confusion(codes: Any, s: np.ndarray, w: Any, k: int) -> np.ndarray:
    """The expected confusion over the orders of the ties, exact (Fractions)."""
    out = _zeros(k)
    for prob, c in confusions(codes, s, w, k):
        out += prob * c
    return out


def expected(measure: Any, codes: Any, s: np.ndarray, w: Any, k: int) -> float:
    """The expected value of ``measure(confusion)`` over the orders of the ties (NaN if any is)."""
    total = 0.0
    for prob, c in confusions(codes, s, w, k):
        total += float(prob) * float(measure(c))
    return total


def accuracy_of(c: np.ndarray) -> float:
    s = c.sum()
    return sum(c[i, i] for i in range(len(c))) / s if s > 0 else math.nan


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else math.nan


def per_class_of(c: np.ndarray, which: str, beta: float = 1.0) -> list[float]:
    """Each class's precision, recall or F-beta from a confusion (rows: truth), NaN on 0/0."""
    k = len(c)
    out = []
    for j in range(k):
        tp = c[j, j]
        fp = sum(c[i, j] for i in range(k) if i != j)
        fn = sum(c[j, i] for i in range(k) if i != j)
        if which == "precision":
            out.append(_ratio(tp, tp + fp))
        elif which == "recall":
            out.append(_ratio(tp, tp + fn))
        else:
            b2 = beta * beta
            out.append(_ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp))
    return out


def averaged_of(c: np.ndarray, which: str, average: str, beta: float = 1.0) -> float:
    """perfeval's average of a per-class measure: macro/weighted over the classes where defined,
    micro of the summed counts."""
    k = len(c)
    per = per_class_of(c, which, beta)
    support = [sum(c[j]) for j in range(k)]
    if average == "micro":
        tp = sum(c[j, j] for j in range(k))
        fp = fn = c.sum() - tp  # every miss is one class's fp and another's fn
        if which == "precision":
            return _ratio(tp, tp + fp)
        if which == "recall":
            return _ratio(tp, tp + fn)
        b2 = beta * beta
        return _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
    ok = [j for j in range(k) if not math.isnan(per[j])]
    if not ok:
        return math.nan
    if average == "weighted":
        tot = sum(support[j] for j in ok)
        return sum(per[j] * support[j] for j in ok) / tot if tot > 0 else math.nan
    return sum(per[j] for j in ok) / len(ok)


def mcc_of(c: np.ndarray) -> float:
    """Matthews' correlation as the Pearson correlation of the one-hot truth and prediction."""
    k = len(c)
    n = c.sum()
    if n <= 0:
        return math.nan
    t = [sum(c[i, j] for j in range(k)) for i in range(k)]
    p = [sum(c[i, j] for i in range(k)) for j in range(k)]
    cov = sum(c[i, i] for i in range(k)) * n - sum(t[i] * p[i] for i in range(k))
    vp = n * n - sum(x * x for x in p)
    vt = n * n - sum(x * x for x in t)
    return float(cov) / math.sqrt(vp * vt) if vp * vt > 0 else math.nan


def kappa_of(c: np.ndarray, weights: str = "none", position: Any = None) -> float:
    """Cohen's kappa; ``position[j]``: class j's place in the order the weights read (default j)."""
    k = len(c)
    pos = list(range(k)) if position is None else list(position)
    n = c.sum()
    if n <= 0:
        return math.nan
    t = [sum(c[i, j] for j in range(k)) for i in range(k)]
    p = [sum(c[i, j] for i in range(k)) for j in range(k)]

    def wt(i: int, j: int) -> float:
        d = abs(pos[i] - pos[j])
        return float(d != 0) if weights == "none" else float(d) if weights == "linear" else float(d * d)

    obs = sum(wt(i, j) * c[i, j] for i in range(k) for j in range(k))
    exp = sum(wt(i, j) * t[i] * p[j] / n for i in range(k) for j in range(k))
    return 1.0 - obs / exp if exp != 0 else math.nan


# -- top-k: every order of every tie ----------------------------------------------------------------------
def topk_expected(codes: Any, s: np.ndarray, w: Any, k: int) -> float:
    """The expected share of the weight whose true class is among the k first, every row's ties
    broken by each permutation of the classes (all equally likely)."""
    ww = _w(w, len(codes))
    kk = s.shape[1]
    num = tot = 0.0
    perms = list(itertools.permutations(range(kk)))
    for i in range(len(codes)):
        if ww[i] == 0:
            continue
        hits = 0
        for pi in perms:
            order = sorted(range(kk), key=lambda j, pi=pi: (-s[i, j], pi[j]))
            hits += codes[i] in order[:k]
        num += ww[i] * hits / len(perms)
        tot += ww[i]
    return num / tot if tot > 0 else math.nan


# -- hypothesis data ----------------------------------------------------------------------------------------
@st.composite
def mc_data(
    draw: Any,
    *,
    max_n: int = 10,
    max_k: int = 6,
    min_k: int = 2,
    weights: bool = True,
    probabilities: bool = False,
    all_present: bool = False,
    max_tie_orders: int = 4000,
) -> dict[str, Any]:
    """K in 2..max_k classes (ints, strings or scattered ints, in a drawn order), n rows whose
    true classes may leave classes out, scores on a coarse grid (ties within rows and columns),
    optional weights with zeros.  ``probabilities``: each row divided by its (positive) sum."""
    k = draw(st.integers(min_k, max_k))
    pool = draw(st.sampled_from(LABELS))[:k]
    classes = draw(st.permutations(pool))
    lo = k if all_present else 1
    n = draw(st.integers(lo, max(lo, max_n)))
    codes = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    if all_present:
        codes[:k] = draw(st.permutations(list(range(k))))
    grid = draw(st.sampled_from([2, 3, 5]))
    cells = draw(st.lists(st.integers(1 if probabilities else 0, grid), min_size=n * k, max_size=n * k))
    s = np.array(cells, dtype=np.float64).reshape(n, k)
    if probabilities:
        s = s / s.sum(axis=1, keepdims=True)
    else:
        s = s / grid  # values in [0, 1]; equal cells equal scores
    w = None
    if weights and draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
    orders = math.prod(len(t) for t in tie_choices(s)) if n else 1
    if orders > max_tie_orders:  # keep the enumeration small: break the extra ties
        s = s + np.arange(k)[None, :] * 1e-3
        if probabilities:
            s = s / s.sum(axis=1, keepdims=True)
    y = np.array([classes[c] for c in codes], dtype=object)
    if isinstance(classes[0], str):
        y = y.astype(str)
    else:
        y = y.astype(np.int64)
    return {
        "y": y,
        "s": s,
        "w": w,
        "classes": list(classes),
        "codes": np.array(codes, dtype=np.intp),
        "k": k,
    }
