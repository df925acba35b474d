"""The measures over a summary compute their sums with compiled kernels and in pieces (issue 17):
each must be bit for bit what the numpy expression it replaced gives, on any summary: counts and
fractional weights, ties, a cell with one class, -0.0, scores outside [0, 1], a summary of one
cell and of many thousands (numpy's pairwise sum changes shape past 8, 128 and each halving)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeval import _native
from perfeval.measures import probability as P
from perfeval.measures import rank as R
from perfeval.summaries import ScoreHistogram


# -- the numpy expressions the kernels replaced, as they were ---------------------------------------
def ref_roc(h):
    if h.n_pos == 0 or h.n_neg == 0:
        return math.nan
    pos, neg = h.pos[::-1], h.neg[::-1]
    tp_above = np.cumsum(pos) - pos
    return float(np.sum(neg * (tp_above + 0.5 * pos)) / (h.n_pos * h.n_neg))


def ref_r50(h, negatives):
    Pp, N = h.n_pos, h.n_neg
    if Pp == 0 or N == 0:
        return math.nan
    pos, neg = h.pos[::-1], h.neg[::-1]
    tp_above = np.cumsum(pos) - pos
    fp_above = np.cumsum(neg) - neg
    limit = min(float(negatives), N)
    take = np.clip(limit - fp_above, 0.0, neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(neg > 0, pos / np.where(neg > 0, neg, 1.0), 0.0)
    return float(np.sum(take * tp_above + 0.5 * slope * take * take) / (limit * Pp))


def ref_top(h, k):
    pos, neg = h.pos[::-1], h.neg[::-1]
    size = pos + neg
    above = np.cumsum(size) - size
    take = np.clip(k - above, 0.0, size)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(size > 0, pos / np.where(size > 0, size, 1.0), 0.0)
    return float(np.sum(take * frac))


def ref_rms(h):
    s = h.scores
    return float(math.sqrt(np.sum(h.pos * (1 - s) ** 2 + h.neg * s**2) / h.n))


def ref_cxe(h):
    if h.n == 0 or not (h.scores[0] >= 0.0 and h.scores[-1] <= 1.0):
        return math.nan
    s = h.scores
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(h.pos > 0, -np.log2(s) * h.pos, 0.0)
        ln = np.where(h.neg > 0, -np.log2(1.0 - s) * h.neg, 0.0)
    return float((lp.sum() + ln.sum()) / h.n)


def ref_slq(h, bins):
    if h.n == 0 or not (h.scores[0] >= 0.0 and h.scores[-1] <= 1.0):
        return math.nan
    idx = P.slq_bins(h.scores, int(bins))
    x = np.bincount(idx, weights=h.pos, minlength=int(bins))
    y = np.bincount(idx, weights=h.neg, minlength=int(bins))
    tot = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(tot > 0, np.minimum(x, y) / np.where(tot > 0, tot, 1.0), 0.0)
    return float(np.sum(tot * (1 - 2 * w) ** 2) / tot.sum())


def ref_ca1(h):
    errs = []
    for i in range(19):
        lo, hi = i / 20, (i + 2) / 20
        m = (h.scores >= lo) & (h.scores <= hi)
        k = h.pos[m].sum() + h.neg[m].sum()
        if k == 0:
            errs.append(0.0)
            continue
        errs.append(abs(h.pos[m].sum() / k - np.sum(h.scores[m] * (h.pos[m] + h.neg[m])) / k))
    return float(sum(errs) / 19)


def ref_rkl(h):
    if h.n == 0:
        return math.nan
    if h.n_pos == 0 or h.n_neg == 0:
        return h.n
    low = int(np.argmax(h.pos > 0))
    return float((h.pos[low:] + h.neg[low:]).sum())


def ref_top10(h):
    pos, neg = h.pos[::-1], h.neg[::-1]
    size = pos + neg
    above = np.cumsum(size) - size
    return 1.0 if ((pos > 0) & (above + neg < 10)).any() else 0.0


def ref_summary(y, s):
    """The unit-weight summary as from_checked built it: two sorts and a search."""
    from perfeval.summaries.histogram import runs

    scores, total = runs(np.sort(s))
    pu, pc = runs(np.sort(s[y == 1]))
    pos = np.zeros(len(scores))
    pos[np.searchsorted(scores, pu)] = pc
    return scores, pos, total - pos


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def _summary(rng, K, kind, unit):
    sc = np.unique(np.round(rng.normal(0.5, 0.3, K), int(rng.integers(2, 9))))
    if unit:
        sc = np.clip(sc, 0.0, 1.0)
        sc = np.unique(sc)
    K = len(sc)
    if kind == 0:  # counts, both classes in a cell
        pos, neg = rng.integers(0, 4, K).astype(float), rng.integers(0, 4, K).astype(float)
    elif kind == 1:  # fractional weights
        pos = rng.random(K) * (rng.random(K) < 0.6) * rng.choice([1.0, 1e-3, 7.5])
        neg = rng.random(K) * 3.1
    else:  # distinct scores: one case a cell
        pos = (rng.random(K) < 0.3).astype(float)
        neg = 1.0 - pos
    keep = (pos + neg) > 0
    return ScoreHistogram(sc[keep], pos[keep], neg[keep])


@settings(deadline=None)
@given(
    st.integers(1, 5000) | st.sampled_from([1, 7, 8, 9, 127, 128, 129, 256, 20000]),
    st.integers(0, 2),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_every_sum_is_the_numpy_expressions_bit_for_bit(K, kind, unit, seed):
    h = _summary(np.random.default_rng(seed), K, kind, unit)
    if h.n == 0:
        return
    assert _same(R.roc(h), ref_roc(h))
    for neg in (0, 1, 50, 1e9):
        assert _same(R.r50(h, negatives=neg), ref_r50(h, neg))
    for k in (0.0, 1.0, 3.5, h.n_pos, h.n + 5):
        assert _same(R._top_positives(h, k), ref_top(h, k))
    assert _same(P.rms(h), ref_rms(h))
    assert _same(P.cxe(h), ref_cxe(h))
    for bins in (1, 7, 100):
        assert _same(P.slq(h, bins=bins), ref_slq(h, bins))
    assert _same(P.ca1(h), ref_ca1(h))
    assert _same(R.rkl(h), ref_rkl(h))
    assert R.top10(h) == ref_top10(h)


def test_the_pieces_of_a_long_sum_are_numpys_tree(monkeypatch):
    """CXE sums a long summary in pieces of at most 65,536 terms: past that, the pieces are numpy's
    pairwise halving (tried with pieces of 1,000 on 300,000 cells, weights fractional)."""
    rng = np.random.default_rng(4)
    h = _summary(rng, 300_000, 1, True)
    want = ref_cxe(h)
    assert P.cxe(h) == want
    real = P.tree_sums
    monkeypatch.setattr(P, "tree_sums", lambda n, part, leaf=1000: real(n, part, 1000))
    h2 = ScoreHistogram(h.scores, h.pos, h.neg)
    assert P.cxe(h2) == want


@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000, 200_000])
def test_the_unit_weight_summary_is_the_one_of_two_sorts_and_a_search(n):
    """Positives and negatives sorted apart and merged (hist_merge) give the summary the whole sort
    and the search gave: the same scores (-0.0 kept as 0.0), the same counts."""
    rng = np.random.default_rng(n)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.normal(size=n), 2)
    s[rng.random(n) < 0.05] = -0.0
    s[rng.random(n) < 0.01] = np.inf
    h = ScoreHistogram.from_arrays(y, s)
    want = ref_summary(y, s)
    for got, w in zip((h.scores, h.pos, h.neg), want, strict=True):
        assert np.array_equal(got, w) and np.array_equal(np.signbit(got), np.signbit(w))


def test_hist_sum_refuses_what_it_does_not_know():
    z = np.zeros(3)
    with pytest.raises(ValueError, match="unknown sum"):
        _native.hist_sum("nope", z, z, z, 0.0)
    with pytest.raises(ValueError, match="outside"):
        _native.hist_sum("cases", z, z, z, 9.0)


@pytest.mark.parametrize("n", [0, 1, 5, 3000, 100_000])
def test_roc_and_apr_from_the_sorted_halves_are_those_of_the_summary(n):
    """A summary of unit cases is kept as the positives' and negatives' sorted scores until its
    arrays are read: ROC and APR from the halves equal (to the bit) ROC and APR of the arrays."""
    rng = np.random.default_rng(n + 1)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.normal(size=n), int(rng.integers(1, 5)))
    lazy = ScoreHistogram.from_arrays(y, s)
    assert (lazy.split() is not None) == (n > 0)
    got = (R.roc(lazy), R.apr(lazy)) if n else (math.nan, math.nan)
    arrays = ScoreHistogram(lazy.scores, lazy.pos, lazy.neg)  # reading the arrays makes them
    assert lazy.split() is None
    want = (R.roc(arrays), R.apr(arrays)) if n else (math.nan, math.nan)
    assert all(_same(a, b) for a, b in zip(got, want, strict=True))
    assert lazy.n_pos == float(arrays.pos.sum()) and lazy.n_neg == float(arrays.neg.sum())


@pytest.mark.parametrize(
    "kw",
    [{}, {"groups": True}, {"groups": True, "measures": ["ndcg@10", "map", "gauc", "roc", "cxe"]}],
    ids=["flat", "per-group", "ranking"],
)
def test_an_evaluation_leaves_no_reference_cycle(kw):
    """A dropped report frees its arrays at once: nothing of an evaluation waits for the garbage
    collector (a closure calling itself once kept CXE's summary, 240 MB at 10M rows, alive)."""
    import gc
    import warnings

    import perfeval

    rng = np.random.default_rng(3)
    y, s = (rng.random(20000) < 0.3).astype(int), rng.random(20000)
    kw = dict(kw, groups=np.repeat(np.arange(200), 100)) if kw.get("groups") else kw
    gc.collect()
    was = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            perfeval.evaluate(y, s, **kw)
        gc.collect()
        # perfeval's own objects and arrays only: a Dask client an earlier test left running (its
        # tornado loop on another thread) makes cycles of its own meanwhile
        cycles = [o for o in gc.garbage if _ours(o)]
    finally:
        gc.garbage.clear()
        gc.set_debug(was)
    assert cycles == []


@given(st.integers(0, 5000), st.floats(0, 1), st.integers(0, 2**31))
def test_split_classes_is_the_two_masks(n, rate, seed):
    """The one-pass split of the scores by class is s[mask] and s[~mask], in row order."""
    rng = np.random.default_rng(seed)
    s, m = rng.normal(size=n), rng.random(n) < rate
    P = int(m.sum())
    a, b = np.empty(P), np.empty(n - P)
    _native.split_classes(s, m.view(np.uint8), a, b)
    assert np.array_equal(a, s[m]) and np.array_equal(b, s[~m])
    with pytest.raises(ValueError, match="outputs"):
        _native.split_classes(s, m.view(np.uint8), np.empty(P + 1), b)


@pytest.mark.parametrize("decimals", [None, 2])
def test_measures_on_two_threads_are_the_measures_one_by_one(monkeypatch, decimals):
    """A large summary's measures are finished on two threads (engine.finish.binary_values): every value
    the same bits as one by one, ties or not, with and without weights."""
    import importlib
    import warnings

    import perfeval

    # the module (perfeval.engine.finish, the attribute of the package, is the function finish)
    engine = importlib.import_module("perfeval.engine.finish")

    rng = np.random.default_rng(11)
    y = (rng.random(30000) < 0.3).astype(int)
    s = rng.random(30000)
    s = s if decimals is None else np.round(s, decimals)
    w = rng.integers(1, 4, 30000).astype(float)
    for kw in ({}, {"sample_weight": w}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            monkeypatch.setattr(engine, "PARALLEL_CELLS", 1 << 60)
            one = perfeval.evaluate(y, s, **kw)
            monkeypatch.setattr(engine, "PARALLEL_CELLS", 1)
            two = perfeval.evaluate(y, s, **kw)
        assert list(one.results) == list(two.results)
        for k in one.results:
            assert np.float64(one[k]).tobytes() == np.float64(two[k]).tobytes(), k


def test_per_group_sums_in_pieces_on_two_threads_are_the_same_bits(monkeypatch):
    """The per-group sums of terms numpy makes (CXE, log loss, NRM) made for pieces of the groups
    on two threads (_data.hist_sum) are the bits of the terms made all at once."""
    import warnings

    import perfeval
    from perfeval.measures import _data

    rng = np.random.default_rng(5)
    n = 40000
    y, s, g = (rng.random(n) < 0.3).astype(int), rng.random(n), rng.integers(0, 300, n)
    s[:50] = 0.0  # a certain mistake somewhere: inf terms
    s[50:100] = 1.0
    g[:5000] = 7  # one group larger than a piece
    measures = ["cxe", "logloss", "nrm", "logloss:eps=0.01"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monkeypatch.setattr(_data, "SUM_CELLS", 1 << 60)
        one = perfeval.evaluate(y, s, groups=g, measures=measures)
        monkeypatch.setattr(_data, "SUM_CELLS", 1000)
        two = perfeval.evaluate(y, s, groups=g, measures=measures)
    for k in one.results:
        a, b = one.results[k].per_group, two.results[k].per_group
        assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), k


@given(
    st.integers(0, 3000),
    st.sampled_from([0.0, 0.05, 0.3, 0.5, 0.8, 1.0]),
    st.integers(0, 4),
    st.integers(0, 2**31),
)
def test_unit_summary_merged_over_its_buffer_is_hist_merge(n, rate, decimals, seed):
    """The unit-case summary merged over the buffer of its classes' sorted scores (smaller class
    first, hist_merge_inplace) has hist_merge's cells and counts, bit for bit: ties across and
    within the classes, -0.0 beside 0.0, a class empty."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), decimals)
    s[rng.random(n) < 0.05] = -0.0
    s[rng.random(n) < 0.05] = 0.0
    y = rng.random(n) < rate
    h = ScoreHistogram.from_checked(y, s)
    want = [np.frombuffer(x, np.float64) for x in _native.hist_merge(np.sort(s[y]), np.sort(s[~y]))]
    for got, w in zip((h.scores, h.pos, h.neg), want, strict=True):
        assert np.array_equal(got.view(np.uint64), w.view(np.uint64))
    assert h.split() is None


def test_hist_merge_inplace_refuses_a_class_longer_than_the_buffer():
    with pytest.raises(ValueError, match="smaller class"):
        _native.hist_merge_inplace(np.zeros(3), 4, True)


def _ours(o) -> bool:
    """An object of perfeval's (its class's or its function's module) or a numpy array."""
    if isinstance(o, np.ndarray):
        return True
    module = getattr(o, "__module__", None) if callable(o) else type(o).__module__
    return isinstance(module, str) and module.startswith("perfeval")
