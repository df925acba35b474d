"""`sample_weight` is the one spelling; `weights=` still works for one release, with a warning."""

from __future__ import annotations

import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError

Y, S, W = [1, 0, 1, 0], [0.9, 0.4, 0.6, 0.1], [1.0, 2.0, 0.5, 1.0]


def test_weights_is_a_deprecated_spelling_of_sample_weight():
    with pytest.warns(DeprecationWarning, match="sample_weight"):
        old = perfeval.evaluate(Y, S, measures=["acc", "rms"], weights=W)
    new = perfeval.evaluate(Y, S, measures=["acc", "rms"], sample_weight=W)
    assert old["ACC"] == new["ACC"] and old["RMS"] == new["RMS"]
    assert new.params["weighted"]


def test_both_spellings_at_once_is_an_error():
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        perfeval.evaluate(Y, S, measures=["acc"], sample_weight=W, weights=W)


def test_weights_that_overflow_double_precision_say_so():
    """Sums of weights that overflow: an error (LOGLOSS would be 0.0, ACC NaN "no data"); a product of
    the class totals that overflows: the pairwise measures NaN with that reason, not "one class only"."""
    import math
    import warnings
    from fractions import Fraction

    import numpy as np

    from perfeval.backends.stream import evaluate_stream
    from perfeval.exceptions import InvalidDataError, UndefinedMeasureWarning

    y, s = [1, 0, 1, 0], [0.9, 0.2, 0.5, 0.4]
    with pytest.raises(InvalidDataError, match="weights overflow double precision: their sum is inf"):
        perfeval.evaluate(y, s, measures=["logloss", "acc"], sample_weight=[1, 1e308, 1e308, 1e308])
    with pytest.raises(InvalidDataError, match="their sum is inf"):  # streamed: each chunk's sum is finite
        evaluate_stream([(y[:2], s[:2], [1, 1e308]), (y[2:], s[2:], [1e308, 1e308])], measures=["roc"])
    w = [1, 1e300, 1e300, 1e300]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = perfeval.evaluate(y, s, measures=["roc", "logloss", "acc"], sample_weight=w)
    said = [str(c.message) for c in caught]
    assert np.isnan(r["ROC"]) and "is inf" in r.results["ROC"].why
    assert any("ROC is undefined for this data: the weights overflow" in m for m in said), said
    assert not any("one class only" in m for m in said) and all(
        issubclass(c.category, UndefinedMeasureWarning) for c in caught
    ), said
    # the measures that read only the totals are right: the reference in exact rationals
    wf = [Fraction(x) for x in w]
    assert r["ACC"] == 1.0
    want = -sum(wi * Fraction(math.log(p if t else 1 - p)) for t, p, wi in zip(y, s, wf, strict=True)) / sum(
        wf
    )
    assert abs(r["LOGLOSS"] - float(want)) < 1e-12
    assert (
        "why_null" in r.to_dict()["measures"]["ROC"]
        and "is inf" in r.to_dict()["measures"]["ROC"]["why_null"]
    )


@pytest.mark.parametrize("exponent", [-500, -700, -1000])
def test_tiny_weights_give_the_shares_of_the_weights_scaled_up(exponent):
    """Weights of 1e-200 made the product of the classes' weights underflow: ROC, R50 and SAR were
    0/0 = NaN, with a warning that the data had one class.  The areas are linear in each class's
    weights: weights times a power of two give the same bits, and scikit-learn's value."""
    import math

    import numpy as np
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 30)  # fewer than 50 negatives: R50 is the whole area at every scale
    s = rng.integers(0, 8, 30) / 8
    w = rng.choice([0.5, 1.0, 2.0, 3.0], 30)
    measures = ["roc", "r50", "sar"]
    whole = perfeval.evaluate(y, s, measures=measures, sample_weight=w)
    tiny = perfeval.evaluate(y, s, measures=measures, sample_weight=np.ldexp(w, exponent))
    for m in ("ROC", "R50", "SAR"):
        assert math.isfinite(tiny[m]) and tiny[m] == whole[m], m
    assert tiny["ROC"] == pytest.approx(roc_auc_score(y, s, sample_weight=w * 1e-200), abs=1e-12)
