"""The compiled walk of the operating points (csrc/operating.c: op_pick, op_pauc), which finishes one
summary, against the numpy forms that finish every group (perfeval/measures/operating.py): the same
point, value and threshold, bit for bit, over a summary's cells and over its unit cases' two sorted
halves (which the walk reads without making the cells), weighted, tied, with -0.0, +-inf and scores
outside [0, 1], and one class.  A group alone is then the same bits as its summary alone
(tests/test_registry_properties.py checks that through the engine).
"""

from __future__ import annotations

import numpy as np
import pytest

import perfeval
from perfeval.measures import operating as op
from perfeval.summaries import ScoreHistogram

#: each numpy form, and how to draw its parameters
RULES = {
    "_tpr_at_fpr": lambda r: (float(r.choice([0.0, 0.1, 0.5, 1.0, r.random()])),),
    "_sen_at_spc": lambda r: (float(r.choice([0.0, 0.9, 1.0, r.random()])),),
    "_spc_at_sen": lambda r: (float(r.choice([0.0, 0.9, 1.0, r.random()])),),
    "_pre_at_rec": lambda r: (float(r.choice([0.0, 0.5, 1.0, r.random()])),),
    "_rec_at_pre": lambda r: (float(r.choice([0.0, 0.5, 1.0, r.random()])),),
    "_youden": lambda r: (),
    "_topleft": lambda r: (),
    "_best_fbeta": lambda r: (float(r.choice([0.0, 0.5, 1.0, 2.0])),),
    "_best_mcc": lambda r: (),
    "_least_cost": lambda r: tuple(float(x) for x in r.choice([0.0, 1.0, 5.0, -1.0, 0.3], 4)),
}


def _cases(seed: int, count: int, most: int):
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = int(rng.integers(1, most))
        y = (rng.random(n) < rng.uniform(0, 1)).astype(int)
        if i % 9 == 0:
            y[:] = y[0]  # one class
        levels = int(rng.choice([2, 7, 50, 1 << 40]))
        s = np.floor(rng.random(n) * levels) / levels
        if i % 5 == 1:
            s = 8 * s - 4  # outside [0, 1]
        if i % 7 == 2:
            s = np.where(s < 0.3, -0.0, s)  # -0.0 and 0.0 are one score
        if i % 11 == 3:
            s[rng.random(n) < 0.1] = np.inf
        w = None if i % 3 == 0 else rng.choice([0.1, 0.5, 1.0, 3.0, 1e-12, 7.25], n)
        yield rng, y, s, w


def _bits(a) -> bytes:
    return np.asarray(a, dtype=np.float64).tobytes()


@pytest.mark.parametrize("seed,count,most", [(1, 300, 40), (2, 12, 20000)])
def test_the_compiled_walk_is_the_numpy_form_bit_for_bit(seed, count, most):
    checked = 0
    for rng, y, s, w in _cases(seed, count, most):
        merged = ScoreHistogram.from_arrays(y, s, w)
        points = op._one(merged)  # makes the cells: the walk reads them after
        halves = ScoreHistogram.from_arrays(y, s) if w is None else None
        for name, draw in RULES.items():
            args = draw(rng)
            want = getattr(op, name)(points, *args)
            got = op.compiled_choice(merged, name, args)
            assert (_bits(got[0]), _bits(got[1])) == (_bits(want[0]), _bits(want[1])), (name, args)
            if halves is not None:  # unit cases: the two sorted halves, the same point
                assert halves.split() is not None
                two = op.compiled_choice(halves, name, args)
                assert (_bits(two[0]), _bits(two[1])) == (_bits(want[0]), _bits(want[1])), (name, args)
            checked += 1
        for lo, hi, focus in [(0.0, 0.1, "fpr"), (0.2, 0.5, "fpr"), (0.0, 1.0, "tpr"), (0.8, 0.9, "tpr")]:
            for correct in ("raw", "mcclish"):
                want = op._pauc(points, hi, lo, focus, correct)
                kw = {"hi": hi, "lo": lo, "focus": focus, "correct": correct}
                assert _bits(op.pauc(merged, **kw)) == _bits(want), kw
                if halves is not None:
                    assert _bits(op.pauc(halves, **kw)) == _bits(want), kw
                checked += 1
    assert checked > 0


def test_unit_cases_are_walked_without_making_the_cells():
    """The ROC area reads the two classes' sorted scores without merging them into cells; so do the
    operating points (the merge is the one step they would add to the ROC area's time)."""
    rng = np.random.default_rng(0)
    y = (rng.random(1000) < 0.3).astype(int)
    s = rng.random(1000)
    h = ScoreHistogram.from_arrays(y, s)
    for spec in ["youden", "tpr_at_fpr@0.1", "rec_at_pre@0.5", "pauc@0.2", "pauc@0.9:lo=0.5,focus=tpr"]:
        perfeval.measures.parse_measure(spec)(h)
    assert h.split() is not None
    want = perfeval.evaluate(y, s, measures=["youden"], sample_weight=np.ones(1000))
    got = perfeval.evaluate(y, s, measures=["youden"])
    assert got["YOUDEN"] == want["YOUDEN"]
    assert got.results["YOUDEN"].threshold == want.results["YOUDEN"].threshold
