"""The door in named stages (perfeval.engine.door): check -> code -> summarize, the function's name in
messages by ``where=``, the array arguments checked by a table of ArraySpec, the targets coded once."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import perfeval
import perfeval.engine.door as door
from perfeval.base.checks import ArraySpec, check, floats, one_d
from perfeval.exceptions import InvalidDataError
from perfeval.functional import f1_score, fbeta_score, precision_score, recall_score


def test_where_names_the_function_in_the_message_and_nothing_without_it():
    with pytest.raises(InvalidDataError) as e:
        floats(np.array([1j]), "y_score", where="roc_curve")
    assert str(e.value) == "roc_curve: `y_score` must hold real numbers, got complex values (complex128)"
    with pytest.raises(InvalidDataError) as e:
        one_d("sample_weight", [[1, 2], [3, 4]], where="log_loss")
    assert str(e.value) == "log_loss: `sample_weight` must be one-dimensional, got shape (2, 2)"
    with pytest.raises(InvalidDataError) as e:
        floats(np.array(["a"], dtype=object), "y_score")
    assert str(e.value) == "`y_score` holds 'a' at index 0, not a number (str)"


def test_a_table_of_array_specs_names_its_own_arguments():
    specs = (
        ArraySpec("target", "labels"),
        ArraySpec("score", finite=True),
        ArraySpec("block", "ids"),
        ArraySpec("w", finite=True, nonneg=True),
    )
    with pytest.raises(InvalidDataError, match=r"^`score` must be finite numbers, got nan at index 1 "):
        check([0, 1], [0.5, np.nan], specs=specs)
    with pytest.raises(
        InvalidDataError, match=r"^`target` and `score` must have the same length, got 2 and 3$"
    ):
        check([0, 1], [0.5, 0.2, 0.1], specs=specs)
    with pytest.raises(InvalidDataError, match=r"^`w` must have the length of `score` \(2\), got 1$"):
        check([0, 1], [0.5, 0.2], None, [1.0], specs=specs)
    with pytest.raises(
        InvalidDataError, match=r"^`w` must be finite non-negative numbers, got -1.0 at index 0$"
    ):
        check([0, 1], [0.5, 0.2], None, [-1.0, 1.0], specs=specs)


def _count_codings(monkeypatch) -> list:
    calls: list = []
    real = door.binary_coding

    def counted(y, pos_label=None):
        calls.append(len(y))
        return real(y, pos_label)

    monkeypatch.setattr(door, "binary_coding", counted)
    return calls


def test_evaluate_codes_the_targets_once_for_every_kind_of_measure(monkeypatch):
    calls = _count_codings(monkeypatch)
    y = np.array(["yes", "no", "no", "yes", "no", "yes"])
    s = [0.9, 0.2, 0.4, 0.3, 0.8, 0.6]
    r = perfeval.evaluate(
        y, s, groups=[1, 1, 1, 2, 2, 2], measures=["roc", "acc", "gauc"], pos_label="yes", tie_bounds=True
    )
    assert (r["ROC"], r["ACC"], r["GAUC"]) == (0.5, pytest.approx(2 / 3), 0.5)  # one group each: 1 and 0
    assert calls == [6]  # once: the group AUC, the binary measures and their tie bounds share it


def test_metric_update_codes_a_batch_once(monkeypatch):
    calls = _count_codings(monkeypatch)
    m = perfeval.Metric(["roc", "acc"], pos_label="yes")
    m.update(np.array(["yes", "no", "no"]), [0.9, 0.2, 0.4])
    assert calls == [3]
    assert m.compute()["ROC"] == 1.0


def test_the_scores_of_precision_recall_and_f_keep_scikit_learns_signatures():
    tail = "*, labels: 'Any' = None, pos_label: 'Any' = 1, average: 'str | None' = 'binary', sample_weight: 'Any' = None, zero_division: 'Any' = 'warn') -> 'Any'"  # noqa: E501  (average=None: one value a class)
    for fn in (precision_score, recall_score, f1_score):
        assert str(inspect.signature(fn)) == "(y_true: 'Any', y_pred: 'Any', " + tail
    assert (
        str(inspect.signature(fbeta_score)) == "(y_true: 'Any', y_pred: 'Any', *, beta: 'float', " + tail[3:]
    )
    yt, yp = [1, 1, 0, 0, 1], [1, 0, 1, 0, 1]
    assert precision_score(yt, yp) == recall_score(yt, yp) == f1_score(yt, yp) == pytest.approx(2 / 3)
    assert fbeta_score(yt, yp, beta=2) == pytest.approx(2 / 3)
    with pytest.raises(TypeError):
        precision_score(yt, yp, None)  # keyword-only, as in scikit-learn


@pytest.mark.parametrize("call", ["evaluate", "ci"])
def test_the_weights_deprecation_points_at_the_callers_line(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if call == "evaluate":
            perfeval.evaluate([0, 1, 0, 1], [0.1, 0.9, 0.4, 0.6], measures=["roc"], weights=[1, 1, 1, 1])
        else:
            perfeval.ci([0, 1, 0, 1], [0.1, 0.9, 0.4, 0.6], measures="roc", n_boot=20, weights=[1, 1, 1, 1])
    said = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert [str(w.message) for w in said] == [f"{call}(weights=...) is deprecated; use sample_weight=..."]
    assert said[0].filename == __file__


def _count_every_coding(monkeypatch) -> dict:
    """Every coding of a target column (0/1 by its values, by a positive label, as graded relevance)."""
    import perfeval.base.checks as validation
    from perfeval.io import grammar

    counts: dict = {}

    def counted(mod, name):
        real = getattr(mod, name)

        def call(*a, **k):
            counts[name] = counts.get(name, 0) + 1
            return real(*a, **k)

        return call

    coding = counted(validation, "binary_coding")
    monkeypatch.setattr(validation, "binary_coding", coding)
    monkeypatch.setattr(door, "binary_coding", coding)
    monkeypatch.setattr(grammar, "label_hits", counted(grammar, "label_hits"))
    monkeypatch.setattr(door, "relevance_targets", counted(door, "relevance_targets"))
    return counts


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-m", "roc,gauc,ndcg", "--group", "q"],
        ["--pos-label", "1"],
        ["--pos-label", "1", "-m", "roc,gauc,ndcg,acc", "--group", "q", "--tie-bounds"],
    ],
)
def test_one_command_codes_its_target_column_once(extra, tmp_path, monkeypatch, capsys):
    from perfeval.cli.main import main

    rng = np.random.default_rng(1)
    y, s, q = (rng.random(200) < 0.4).astype(int), rng.random(200).round(3), rng.integers(0, 9, 200)
    rows = zip(y, s, q, strict=True)
    (tmp_path / "t.csv").write_text("y,s,q\n" + "".join(f"{y},{s},{q}\n" for y, s, q in rows))
    argv = ["eval", str(tmp_path / "t.csv"), "--target", "y", "--score", "s", "--format", "json", *extra]
    assert main(argv) == 0
    expected = capsys.readouterr().out
    counts = _count_every_coding(monkeypatch)
    assert main(argv) == 0
    assert capsys.readouterr().out == expected
    # the loader's coding (its errors name the file's lines), read by the engine: not coded again
    assert sum(counts.values()) == 1, counts


def test_an_explanation_codes_the_targets_once_for_every_dialect(monkeypatch):
    counts = _count_every_coding(monkeypatch)
    y = np.array(["yes", "no", "no", "yes", "no", "yes", "no", "no"])
    s = [0.9, 0.2, 0.4, 0.4, 0.8, 0.6, 0.1, 0.4]
    e = perfeval.explain(y, s, measures="roc,apr,acc", pos_label="yes")
    assert e.value("perfeval", "ROC") == pytest.approx(0.8)
    assert len(e.dialects) > 3
    assert counts == {"binary_coding": 1}  # perfeval's row, every dialect's and the rules' facts share it


def test_a_dialect_codes_the_targets_once_for_its_rules_and_the_engine(monkeypatch):
    counts = _count_every_coding(monkeypatch)
    y = np.array(["yes", "no", "no", "yes", "no", "yes"])
    r = perfeval.evaluate(
        y, [0.9, 0.2, 0.4, 0.4, 0.8, 0.6], measures=["roc", "ap"], pos_label="yes", dialect="sklearn"
    )
    assert r["ROC"] == pytest.approx(6.5 / 9)  # the tie of 0.4 (a positive and a negative): half credit
    assert counts == {"binary_coding": 1}


def test_an_interval_reads_the_targets_coded_for_its_replicates(monkeypatch):
    import perfeval.base.checks as validation
    import perfeval.summaries.histogram as histogram

    calls: list = []
    real = validation.zero_one

    def counted(t):
        calls.append(len(t))
        return real(t)

    monkeypatch.setattr(histogram, "zero_one", counted)
    y = np.array(["yes", "no", "no", "yes", "no", "yes"])
    r = perfeval.ci(y, [0.9, 0.2, 0.4, 0.3, 0.8, 0.6], measures="roc,apr", n_boot=50, pos_label="yes")
    assert r["ROC"].estimate == pytest.approx(6 / 9)
    assert calls == []  # the summary made of the positives found once (Cases.cls), not coded again


def test_the_streaming_and_dask_backends_code_their_targets_through_the_door(monkeypatch):
    from perfeval.backends.dask import _summarize
    from perfeval.backends.stream import evaluate_stream, evaluate_stream_grouped

    asked: list = []
    binary, coding = door.Targets.binary, door.Targets.coding
    monkeypatch.setattr(
        door.Targets, "binary", lambda t, needs, **kw: asked.append(needs) or binary(t, needs, **kw)
    )
    monkeypatch.setattr(door.Targets, "coding", lambda t: asked.append("coding") or coding(t))
    y, s, w = [1, 0, 0, 1], [0.9, 0.1, 0.95, 0.7], [1.0, 1.0, 1.0, 2.0]
    expected = perfeval.evaluate(y, s, sample_weight=w, measures=["roc"])["ROC"]
    r = evaluate_stream([(y[:2], s[:2], w[:2]), (y[2:], s[2:], w[2:])], measures=["roc"])
    assert r["ROC"] == expected
    assert asked.count("streaming evaluation") == 2  # each chunk's targets coded by the door's Targets
    asked.clear()
    h = _summarize(np.array(y), np.array(s))
    assert (h.scores.tolist(), h.pos.tolist()) == ([0.1, 0.7, 0.9, 0.95], [0.0, 1.0, 1.0, 0.0])
    assert asked.count("dask evaluation") == 1
    asked.clear()
    g = evaluate_stream_grouped([(y, s, [7, 7, 7, 7], w)], measures=["roc"], budget_rows=2)
    assert (g.groups.tolist(), g["ROC"]) == ([7], expected)
    # one group over the budget, finished block by block: the whole request's coding (ROC), then
    # each block's (in memory, the engine would ask for ROC's again)
    assert asked.count("ROC") == 1 and asked.count("coding") >= 2, asked
