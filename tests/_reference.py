"""Slow, obviously-correct reference implementations used by the tests."""

from __future__ import annotations

import itertools
import math
import struct
from fractions import Fraction


def f32(x: float) -> float:
    """Round a double to the nearest float32 (ties to even), returned as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_from_decimal(token: str) -> float:
    """The float32 nearest to the exact value of a decimal token (ties to even): what strtof gives."""
    x = Fraction(token)
    if abs(x) >= Fraction(2**128 - 2**103):  # at or past the midpoint above FLT_MAX: overflow
        return math.copysign(math.inf, x)
    c = f32(float(x))
    cands = {c}
    for direction in (-math.inf, math.inf):
        n = struct.unpack("f", struct.pack("f", c))[0]
        bits = struct.unpack("I", struct.pack("f", n))[0]
        step = 1 if (direction > 0) == (n >= 0) else -1
        if n == 0:
            neighbour = struct.unpack("f", struct.pack("I", 1))[0] * (1 if direction > 0 else -1)
        else:
            neighbour = struct.unpack("f", struct.pack("I", bits + step))[0]
        cands.add(neighbour)

    def key(v: float):
        d = abs(Fraction(v) - x)
        even = struct.unpack("I", struct.pack("f", v))[0] % 2
        return (d, even)

    return min((c for c in cands if math.isfinite(c)), key=key)


def hoare_quicksort(p: list[float], t: list[float]) -> None:
    """PERF's sort, literally: Hoare partition, first element as pivot, targets swapped along."""

    def partition(lo: int, hi: int) -> int:
        x = p[lo]
        i, j = lo - 1, hi + 1
        while True:
            j -= 1
            while not (p[j] <= x):
                j -= 1
            i += 1
            while not (p[i] >= x):
                i += 1
            if i < j:
                p[i], p[j] = p[j], p[i]
                t[i], t[j] = t[j], t[i]
            else:
                return j

    stack = [(0, len(p) - 1)]
    while stack:
        lo, hi = stack.pop()
        if lo < hi:
            q = partition(lo, hi)
            stack.append((lo, q))
            stack.append((q + 1, hi))


def pairwise_auc(y: list[int], s: list[float]) -> float:
    """P(score of a random positive > score of a random negative), ties counting one half."""
    pos = [v for v, c in zip(s, y, strict=False) if c == 1]
    neg = [v for v, c in zip(s, y, strict=False) if c == 0]
    if not pos or not neg:
        return math.nan
    total = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    return total / (len(pos) * len(neg))


def ap_of_ranking(labels: list[int]) -> float:
    """Mean precision at the rank of each positive, for one fixed order (best first)."""
    hits, total = 0, 0.0
    for k, c in enumerate(labels, 1):
        if c:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def expected_ap_bruteforce(y: list[int], s: list[float]) -> float:
    """PERF's APR by brute force: the mean of AP over every order of each group of tied scores."""
    groups: dict[float, list[int]] = {}
    for v, c in zip(s, y, strict=False):
        groups.setdefault(v, []).append(c)
    keys = sorted(groups, reverse=True)
    perms = [sorted(set(itertools.permutations(groups[k]))) for k in keys]
    # every distinct arrangement of a group is equally likely under a uniform random order
    total, count = 0.0, 0
    for combo in itertools.product(*perms):
        total += ap_of_ranking([c for part in combo for c in part])
        count += 1
    return total / count


def rank_last_positive(y: list[int], s: list[float]) -> float:
    """Rank from the top of the bottom of the tie group holding the lowest positive."""
    if all(c == y[0] for c in y):
        return float(len(y))
    low = min(v for v, c in zip(s, y, strict=False) if c == 1)
    return float(sum(1 for v in s if v >= low))


def tie_orders(y: list, s: list):
    """Every arrangement of a ranking (best first) that breaks ties differently, each with its
    probability under a uniformly random order within tied scores."""
    groups: dict[float, list] = {}
    for v, c in zip(s, y, strict=False):
        groups.setdefault(v, []).append(c)
    keys = sorted(groups, reverse=True)
    per = []
    for k in keys:
        perms = list(itertools.permutations(groups[k]))
        per.append(perms)  # all g! orders, duplicates included: uniform
    total = 1
    for p in per:
        total *= len(p)
    for combo in itertools.product(*per):
        yield [c for part in combo for c in part], 1.0 / total


def expected(fn, y: list, s: list) -> float:
    return sum(p * fn(order) for order, p in tie_orders(y, s))


def dcg_of(order: list, k: int) -> float:
    kk = len(order) if k == 0 else k
    return sum((2.0**r - 1) / math.log2(i + 2) for i, r in enumerate(order[:kk]))


def rr_of(order: list) -> float:
    for i, r in enumerate(order, 1):
        if r > 0:
            return 1.0 / i
    return math.nan


def hits_at(order: list, k: int) -> float:
    kk = len(order) if k == 0 else k
    return float(sum(1 for r in order[:kk] if r > 0))


def delong_pairwise(y: list[int], scores: list[list[float]]) -> tuple[list[float], list[list[float]]]:
    """DeLong, DeLong & Clarke-Pearson (1988), straight from the paper: the areas of several scores of
    the same cases and their covariance matrix S10 / m + S01 / n, from pairwise kernels (O(m n))."""
    pos = [i for i, t in enumerate(y) if t == 1]
    neg = [j for j, t in enumerate(y) if t == 0]
    m, n = len(pos), len(neg)

    def psi(a: float, b: float) -> float:
        return 1.0 if a > b else 0.5 if a == b else 0.0

    v10 = [[sum(psi(s[i], s[j]) for j in neg) / n for i in pos] for s in scores]
    v01 = [[sum(psi(s[i], s[j]) for i in pos) / m for j in neg] for s in scores]
    auc = [sum(v) / m for v in v10]
    k = len(scores)
    cov = [
        [
            sum((v10[r][i] - auc[r]) * (v10[c][i] - auc[c]) for i in range(m)) / (m - 1) / m
            + sum((v01[r][j] - auc[r]) * (v01[c][j] - auc[c]) for j in range(n)) / (n - 1) / n
            for c in range(k)
        ]
        for r in range(k)
    ]
    return auc, cov
