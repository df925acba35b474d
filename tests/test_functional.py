"""The scikit-learn-style functions agree with scikit-learn where the definitions agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

import perfeval.functional as F
from perfeval.exceptions import InvalidParameterError

sk = pytest.importorskip("sklearn.metrics")


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    y = (rng.random(500) < 0.35).astype(int)
    s = np.round(np.clip(rng.normal(0.4 + 0.3 * y, 0.2), 0.001, 0.999), 2)  # ties
    w = rng.integers(1, 4, 500).astype(float)
    return y, s, w


def test_against_scikit_learn(data):
    y, s, w = data
    assert math.isclose(F.roc_auc(y, s), sk.roc_auc_score(y, s))
    assert math.isclose(F.roc_auc(y, s, sample_weight=w), sk.roc_auc_score(y, s, sample_weight=w))
    assert math.isclose(F.average_precision(y, s), sk.average_precision_score(y, s))
    assert math.isclose(F.log_loss(y, s), sk.log_loss(y, s))
    assert math.isclose(F.brier_score(y, s), sk.brier_score_loss(y, s))
    pred = (s >= 0.5).astype(int)
    assert math.isclose(F.accuracy(y, s), sk.accuracy_score(y, pred))
    assert math.isclose(F.precision(y, s), sk.precision_score(y, pred))
    assert math.isclose(F.recall(y, s), sk.recall_score(y, pred))
    assert math.isclose(F.f_beta(y, s, beta=2), sk.fbeta_score(y, pred, beta=2))
    assert (F.confusion_matrix(y, s, threshold=0.5) == sk.confusion_matrix(y, pred)).all()
    fpr, tpr, thr = F.roc_curve(y, s, drop_intermediate=False)
    sfpr, stpr, _ = sk.roc_curve(y, s, drop_intermediate=False)
    assert np.allclose(fpr, sfpr) and np.allclose(tpr, stpr) and thr[0] == np.inf
    prec, rec, _ = F.pr_curve(y, s)
    sprec, srec, _ = sk.precision_recall_curve(y, s)
    assert np.allclose(prec, sprec[:-1][::-1]) and np.allclose(rec, srec[:-1][::-1])


def test_rates_are_complements(data):
    y, s, _ = data
    assert math.isclose(F.fpr(y, s) + F.tnr(y, s), 1.0)
    assert math.isclose(F.fnr(y, s) + F.tpr(y, s), 1.0)
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
