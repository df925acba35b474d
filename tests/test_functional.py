"""The scikit-learn-style functions agree with scikit-learn where the definitions agree."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import perfeval.functional as F
from perfeval.exceptions import InvalidParameterError, UndefinedMeasureWarning

sk = pytest.importorskip("sklearn.metrics")


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    y = (rng.random(500) < 0.35).astype(int)
    s = np.round(np.clip(rng.normal(0.4 + 0.3 * y, 0.2), 0.001, 0.999), 2)  # ties
    w = rng.integers(1, 4, 500).astype(float)
    return y, s, w


def deprecated():
    """The deprecated one-liners warn (pytest's filters make that warning an error elsewhere)."""
    return pytest.warns(DeprecationWarning, match=r"perfeval\.functional\.\w+ is deprecated")


def test_against_scikit_learn(data):
    y, s, w = data
    with deprecated():
        assert math.isclose(F.roc_auc(y, s), sk.roc_auc_score(y, s))
    with deprecated():
        assert math.isclose(F.roc_auc(y, s, sample_weight=w), sk.roc_auc_score(y, s, sample_weight=w))
    with deprecated():
        assert math.isclose(F.average_precision(y, s), sk.average_precision_score(y, s))
    assert math.isclose(F.log_loss(y, s), sk.log_loss(y, s))
    with deprecated():
        assert math.isclose(F.brier_score(y, s), sk.brier_score_loss(y, s))
    pred = (s >= 0.5).astype(int)
    with deprecated():
        assert math.isclose(F.accuracy(y, s), sk.accuracy_score(y, pred))
    with deprecated():
        assert math.isclose(F.precision(y, s), sk.precision_score(y, pred))
    with deprecated():
        assert math.isclose(F.recall(y, s), sk.recall_score(y, pred))
    with deprecated():
        assert math.isclose(F.f_beta(y, s, beta=2), sk.fbeta_score(y, pred, beta=2))
    assert (F.confusion_matrix(y, s, threshold=0.5) == sk.confusion_matrix(y, pred)).all()
    fpr, tpr, thr = F.roc_curve(y, s, drop_intermediate=False)
    sfpr, stpr, _ = sk.roc_curve(y, s, drop_intermediate=False)
    assert np.allclose(fpr, sfpr) and np.allclose(tpr, stpr) and thr[0] == np.inf
    with deprecated():
        prec, rec, _ = F.pr_curve(y, s)
    sprec, srec, _ = sk.precision_recall_curve(y, s)
    assert np.allclose(prec, sprec[:-1][::-1]) and np.allclose(rec, srec[:-1][::-1])


def test_rates_are_complements(data):
    y, s, _ = data
    assert math.isclose(F.fpr(y, s) + F.tnr(y, s), 1.0)
    with deprecated():
        assert math.isclose(F.fnr(y, s) + F.tpr(y, s), 1.0)
    with deprecated():
        assert math.isclose(F.error_rate(y, s) + F.accuracy(y, s), 1.0)
    assert math.isclose(F.log_loss(y, s, base=2) * math.log(2), F.log_loss(y, s))


def test_ranking_functions():
    rel, s, g = [3, 2, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1, 0.5, 0.4], [1, 1, 1, 2, 2, 2]
    # query 1 is in the ideal order; query 2 ranks 1, 0, 1: DCG@2 = 1, ideal 1 + 1/log2(3)
    assert math.isclose(F.ndcg(rel, s, groups=g, k=2), (1.0 + 1 / (1 + 1 / math.log2(3))) / 2)
    assert F.mrr(rel, s, groups=g) == 1.0
    assert F.precision_at_k(rel, s, k=1, groups=g) == 1.0
    assert math.isclose(F.mean_average_precision(rel, s, groups=g), (1.0 + (1 + 2 / 3) / 2) / 2)
    assert F.group_auc([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], groups=[1, 1, 2, 2]) == 0.5
    with pytest.raises(InvalidParameterError, match="whole number"):
        F.ndcg(rel, s, k=-1)


def test_scorer_in_cross_validation():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    ours = cross_val_score(LogisticRegression(), X, y, cv=3, scoring=F.scorer("roc"))
    theirs = cross_val_score(LogisticRegression(), X, y, cv=3, scoring="roc_auc")
    assert np.allclose(ours, theirs)
    rms = cross_val_score(LogisticRegression(), X, y, cv=3, scoring=F.scorer("rms"))
    assert (rms < 0).all()  # lower is better: scikit-learn negates it


def test_ranked_list_submission_and_kddcup2002():
    from perfeval.exceptions import InvalidDataError

    ids = ["g1", "g2", "g3", "g4", "g5", "g6"]
    labels = ["change", "nc", "control", "nc", "change", "control"]
    narrow_rank = ["g5", "g1", "g3", "g6", "g2", "g4"]  # both changes first: AUC(narrow) = 1
    broad_rank = ["g1", "g2", "g3", "g5", "g6", "g4"]
    r = F.kddcup2002_task2(
        labels, F.scores_from_ranking(narrow_rank, ids), F.scores_from_ranking(broad_rank, ids)
    )
    assert r["narrow"] == 1.0
    assert math.isclose(
        r["broad"], sk.roc_auc_score([1, 0, 1, 0, 1, 1], F.scores_from_ranking(broad_rank, ids))
    )
    assert math.isclose(r["score"], r["narrow"] + r["broad"])
    with pytest.raises(InvalidDataError, match="twice"):
        F.scores_from_ranking(["g1", "g1"], ["g1", "g2"])
    with pytest.raises(InvalidDataError, match="not ranked, e.g. 'g2'"):
        F.scores_from_ranking(["g1"], ["g1", "g2"])
    with pytest.raises(InvalidDataError, match="unknown id"):
        F.scores_from_ranking(["g1", "g2", "zz"], ["g1", "g2"])


def _same(a, b) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)


#: each deprecated one-liner (issue 31): a call of it and the call its warning names instead, on
#: scores ``s``, weights ``w`` and a threshold ``t``
REPLACED = {
    "accuracy": (
        lambda y, s, w, t: F.accuracy(y, s, threshold=t, sample_weight=w),
        lambda y, s, w, t: F.accuracy_score(y, s >= t, sample_weight=w),
    ),
    "precision": (
        lambda y, s, w, t: F.precision(y, s, threshold=t, sample_weight=w),
        lambda y, s, w, t: F.precision_score(y, s >= t, sample_weight=w, zero_division=np.nan),
    ),
    "recall": (
        lambda y, s, w, t: F.recall(y, s, threshold=t, sample_weight=w),
        lambda y, s, w, t: F.recall_score(y, s >= t, sample_weight=w, zero_division=np.nan),
    ),
    "tpr": (
        lambda y, s, w, t: F.tpr(y, s, threshold=t, sample_weight=w),
        lambda y, s, w, t: F.recall_score(y, s >= t, sample_weight=w, zero_division=np.nan),
    ),
    "f_beta": (
        lambda y, s, w, t: F.f_beta(y, s, beta=2, threshold=t, sample_weight=w),
        lambda y, s, w, t: F.fbeta_score(y, s >= t, beta=2, sample_weight=w, zero_division=np.nan),
    ),
    "roc_auc": (
        lambda y, s, w, t: F.roc_auc(y, s, sample_weight=w),
        lambda y, s, w, t: F.roc_auc_score(y, s, sample_weight=w),
    ),
    "average_precision": (
        lambda y, s, w, t: F.average_precision(y, s, sample_weight=w),
        lambda y, s, w, t: F.average_precision_score(y, s, sample_weight=w),
    ),
    "brier_score": (
        lambda y, s, w, t: F.brier_score(y, s, sample_weight=w),
        lambda y, s, w, t: F.brier_score_loss(y, s, sample_weight=w),
    ),
    "pr_curve": (  # scikit-learn's order reversed, without its last point (recall 0, precision 1)
        lambda y, s, w, t: np.concatenate(F.pr_curve(y, s, sample_weight=w)),
        lambda y, s, w, t: np.concatenate(
            [
                a[: len(a) if i == 2 else -1][::-1]
                for i, a in enumerate(F.precision_recall_curve(y, s, sample_weight=w))
            ]
        ),
    ),
}
#: what each warning names instead
INSTEAD = {
    "accuracy": "accuracy_score(y_true, y_score >= threshold)",
    "precision": "precision_score(y_true, y_score >= threshold, zero_division=np.nan)",
    "recall": "recall_score(y_true, y_score >= threshold, zero_division=np.nan)",
    "tpr": "recall_score(y_true, y_score >= threshold, zero_division=np.nan)",
    "f_beta": "fbeta_score(y_true, y_score >= threshold, beta=beta, zero_division=np.nan)",
    "roc_auc": "roc_auc_score(y_true, y_score)",
    "average_precision": "average_precision_score(y_true, y_score)",
    "brier_score": "brier_score_loss(y_true, y_score)",
    "pr_curve": "precision_recall_curve(y_true, y_score)",
}


def test_every_deprecated_name_is_checked():
    assert set(F.DEPRECATED) == set(REPLACED) == set(INSTEAD)
    assert not set(F.DEPRECATED) & set(F.__all__)  # not offered by a star import any more
    assert all(hasattr(F, name) for name in F.DEPRECATED)  # but still there


@pytest.mark.parametrize("name", sorted(REPLACED))
def test_each_deprecated_name_warns_and_gives_its_replacements_value(name):
    """Each deprecated one-liner warns, naming what to call and when it goes, and returns what that
    call returns: random cases with ties, weights (zeros included), thresholds at and beyond the
    scores (nothing predicted positive: NaN in both with zero_division=np.nan), and one class."""
    old, new = REPLACED[name]
    rng = np.random.default_rng(31)
    checked = 0
    for i in range(200):
        n = int(rng.integers(2, 30))
        y = rng.integers(0, 2, n)
        if i % 7 == 0:
            y[:] = 1  # one class: the areas NaN in both
        s = rng.integers(0, 6, n) / 5
        w = None if i % 2 else rng.integers(0, 3, n).astype(float)
        if w is not None and not w[y == 1].sum() and not w[y == 0].sum():
            continue
        if name in ("average_precision", "pr_curve") and not (y if w is None else w * y).any():
            continue  # no positive case: NaN, where scikit-learn's names say 0.0 and 1 (the notes)
        t = float(rng.choice([0.0, 0.4, 0.5, 2.0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            with pytest.warns(DeprecationWarning) as said:
                got = old(y, s, w, t)
            want = new(y, s, w, t)
        if name == "pr_curve":
            assert len(got) == len(want) and all(_same(a, b) for a, b in zip(got, want, strict=True))
        else:
            assert _same(got, want), (name, y, s, w, t)
        checked += 1
    assert checked > 100
    (message,) = [str(x.message) for x in said if x.category is DeprecationWarning]
    assert message.startswith(f"perfeval.functional.{name} is deprecated and is removed in perfeval 0.2.0: ")
    assert f"use {INSTEAD[name]}" in message


def test_average_precision_of_no_positive_case_is_said_to_differ():
    with pytest.warns(DeprecationWarning, match="0.0 with a warning where there is no positive case"):
        assert math.isnan(F.average_precision([0, 0, 0], [0.2, 0.5, 0.1]))
    with pytest.warns(UndefinedMeasureWarning):
        assert F.average_precision_score([0, 0, 0], [0.2, 0.5, 0.1]) == 0.0
    with pytest.warns(DeprecationWarning, match="without a positive case a recall of 1"):
        assert np.isnan(F.pr_curve([0, 0], [0.2, 0.5])[1]).all()
    with pytest.warns(UndefinedMeasureWarning):
        assert (F.precision_recall_curve([0, 0], [0.2, 0.5])[1] == [1, 1, 0]).all()


def test_no_deprecated_name_is_called_inside_perfeval():
    """kddcup2002_task2 gave roc_auc's areas: the same numbers, without the warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        r = F.kddcup2002_task2(["change", "nc", "nc", "change"], [0.9, 0.1, 0.4, 0.3])
    assert r == {"narrow": 0.75, "broad": 0.75, "score": 1.5}
