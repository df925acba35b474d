"""The Signature names everything that changes a number: equal signatures, comparable numbers."""

from __future__ import annotations

import json

import numpy as np

import perfeval
from perfeval.backends.stream import evaluate_stream
from perfeval.engine.signature import Signature

Y, S = [1, 0, 1, 0, 1], [0.9, 0.4, 0.6, 0.1, 0.4]


def test_default_signature():
    r = perfeval.evaluate(Y, S, measures=["roc", "acc"])
    assert (
        str(r.signature) == f"perfeval:{perfeval.__version__}|ties:perfeval|thr:0.5|weights:no|backend:memory"
    )


def test_what_changes_a_number_changes_the_signature():
    base = str(perfeval.evaluate(Y, S, measures=["acc"]).signature)
    assert str(perfeval.evaluate(Y, S, measures=["acc"], threshold=0.7).signature) != base
    assert "thr:0.7" in str(perfeval.evaluate(Y, S, measures=["acc"], threshold=0.7).signature)
    assert "weights:yes" in str(perfeval.evaluate(Y, S, measures=["acc"], sample_weight=np.ones(5)).signature)
    assert "pos:'y'" in str(
        perfeval.evaluate(["y", "n", "y", "n", "y"], S, measures=["roc"], pos_label="y").signature
    )
    assert "gain:exp" in str(perfeval.evaluate(Y, S, measures=["ndcg@3"]).signature)
    assert "thr:" not in str(perfeval.evaluate(Y, S, measures=["roc"]).signature)  # ROC has no threshold
    assert "backend:stream" in str(evaluate_stream([(Y, S)], measures=["roc"]).signature)


def test_intervals_are_in_the_signature():
    r = perfeval.evaluate(Y * 20, S * 20, measures=["roc"])
    r.intervals = perfeval.ci(Y * 20, S * 20, measures="roc", n_boot=50, seed=3)
    assert "|ci:bca,n=50" in str(r.signature) and "level=0.95" in str(r.signature)


def test_json_holds_the_signature():
    r = perfeval.evaluate(Y, S, measures=["roc"])
    d = json.loads(r.to_json())
    assert d["signature"] == str(r.signature)


def test_signature_fields_round_trip():
    s = Signature(threshold=0.3, weights=True, backend="dask", ci="percentile,n=10,seed=1,level=0.9")
    d = s.to_dict()
    assert d["text"] == str(s) and Signature(**{k: v for k, v in d.items() if k != "text"}) == s
