"""perfeval.contest.score: a Kaggle metric (its signature, ParticipantVisibleError, the boards)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval import evaluate
from perfeval.contest import ParticipantVisibleError, score_boards, score_submission
from perfeval.contest.kaggle import score
from perfeval.exceptions import InvalidParameterError, PerfError

pd = pytest.importorskip("pandas")

TASK = {"measure": "roc", "problem": "binary", "target": "y", "prediction": "p"}


def _data(seed: int = 0, n: int = 200):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.clip(y * 0.3 + rng.random(n) * 0.7, 0, 1)
    ids = np.arange(1000, 1000 + n)
    usage = np.where(rng.random(n) < 0.4, "Public", "Private")
    sol = pd.DataFrame({"row_id": ids, "y": y, "Usage": usage})
    sub = pd.DataFrame({"row_id": ids[::-1], "p": p[::-1]})
    return sol, sub, y, p, usage


def _ref(y, p) -> float:
    (r,) = evaluate(y, p, measures=["roc"], task="binary", dialect="perfeval").results.values()
    return float(r.value)


def _bits(a: float) -> bytes:
    return np.float64(a).tobytes()


def test_score_equals_score_submission_and_evaluate(tmp_path):
    sol, sub, y, p, _ = _data()
    solution = sol.drop(columns=["Usage"])
    got = score(solution.copy(), sub.copy(), "row_id", **TASK)
    assert _bits(got) == _bits(_ref(y, p))
    toml = tmp_path / "t.toml"
    toml.write_text(
        'name = "t"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
        'target = "y"\nprediction = ["p"]\n[[criteria]]\nname = "auc"\nmeasure = "roc"\n'
    )
    res = score_submission(str(toml), solution, sub)
    assert res.ok and _bits(res.scores["auc"]) == _bits(got)
    assert _bits(score(solution, sub, "row_id", task=str(toml))) == _bits(got)


def test_participant_visible_error_class_and_messages():
    assert ParticipantVisibleError.__name__ == "ParticipantVisibleError"
    assert issubclass(ParticipantVisibleError, Exception) and not issubclass(
        ParticipantVisibleError, PerfError
    )
    sol, sub, *_ = _data()
    solution = sol.drop(columns=["Usage"])
    bad = sub.copy()
    bad["p"] = bad["p"].astype(object)
    bad.loc[0, "p"] = "high"
    with pytest.raises(ParticipantVisibleError) as e:
        score(solution, bad, "row_id", **TASK)
    msg = str(e.value)
    assert msg.startswith("submission, row ") and "\n" not in msg
    ref = score_submission(_task(), solution, bad, name="submission")
    assert msg == "\n".join(ref.errors)
    with pytest.raises(ParticipantVisibleError):
        score(solution, sub.drop(columns=["p"]), "row_id", **TASK)
    with pytest.raises(ParticipantVisibleError):
        score(solution, sub.iloc[1:], "row_id", **TASK)


def _task():
    from perfeval.contest.kaggle import _task_from

    return _task_from("row_id", None, dict(TASK))


def test_task_and_solution_problems_are_not_participant_visible():
    sol, sub, *_ = _data()
    with pytest.raises(InvalidParameterError):
        score(sol, sub, "row_id", measure="no-such-measure", problem="binary", target="y", prediction="p")
    with pytest.raises(InvalidParameterError):
        score(sol, sub, "row_id", bogus=1, **TASK)
    with pytest.raises(PerfError) as e:  # the solution lacks its target column
        score(sol.drop(columns=["y"]), sub, "row_id", **TASK)
    assert not isinstance(e.value, ParticipantVisibleError)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda s: s.assign(p="x"),
        lambda s: s.iloc[:-3],
        lambda s: pd.concat([s, s.iloc[:2]]),
        lambda s: s.assign(row_id=s["row_id"] + 7),
        lambda s: s.rename(columns={"p": "q"}),
        lambda s: s.assign(p=np.nan),
    ],
)
def test_messages_hold_nothing_of_the_key(spoil):
    """Two solutions differing in every target give the same messages for a hostile submission."""
    sol, sub, *_ = _data()
    one = sol.drop(columns=["Usage"])
    other = one.assign(y=1 - one["y"])
    hostile = spoil(sub.copy())
    msgs = []
    for s in (one, other):
        with pytest.raises(ParticipantVisibleError) as e:
            score(s, hostile, "row_id", **TASK)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and msgs[0]


def test_boards_equal_each_part_alone_bit_for_bit():
    sol, sub, y, p, usage = _data(3, 500)
    got = score_boards(sol, sub, "row_id", **TASK)
    for board in ("public", "private"):
        rows = usage == board.capitalize()
        alone = score(
            sol[rows].drop(columns=["Usage"]), sub[sub["row_id"].isin(sol["row_id"][rows])], "row_id", **TASK
        )
        assert _bits(got[board]) == _bits(alone)
        assert _bits(got[board]) == _bits(_ref(y[rows], p[rows]))
    assert got["public"] != got["private"]


def test_boards_reject_a_submission_wrong_on_either_board():
    sol, sub, *_ = _data()
    bad = sub.copy()
    private_id = sol["row_id"][sol["Usage"] == "Private"].iloc[0]
    bad.loc[bad["row_id"] == private_id, "p"] = np.inf
    with pytest.raises(ParticipantVisibleError):
        score_boards(sol, bad, "row_id", **TASK)
    with pytest.raises(InvalidParameterError):
        score_boards(sol.assign(Usage="Secret"), sub, "row_id", **TASK)


def test_the_inputs_are_left_as_they_are():
    sol, sub, *_ = _data()
    one = sol.drop(columns=["Usage"])  # as Kaggle passes it to score (score refuses the Usage column)
    s0, o0, b0 = sol.copy(), one.copy(), sub.copy()
    score(one, sub, "row_id", **TASK)
    score_boards(sol, sub, "row_id", **TASK)
    pd.testing.assert_frame_equal(sol, s0)
    pd.testing.assert_frame_equal(one, o0)
    pd.testing.assert_frame_equal(sub, b0)


def test_the_docs_notebook_cell():
    """docs/contest.md's Kaggle metric cell, as an organiser pastes it: its score and its errors."""
    import os
    import re

    text = open(os.path.join(os.path.dirname(__file__), "..", "docs", "contest.md")).read()
    section = text[text.index("## Kaggle") :]
    cell = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    ns: dict = {}
    exec(cell, ns)
    sol, sub, y, p, _ = _data(5)
    solution = sol.drop(columns=["Usage"])
    assert _bits(ns["score"](solution, sub, "row_id")) == _bits(_ref(y, p))
    with pytest.raises(ns["ParticipantVisibleError"]) as e:
        ns["score"](solution, sub.iloc[:-1], "row_id")
    assert str(e.value).startswith("submission")


@pytest.mark.parametrize(
    "how",
    [
        {"measure": "ndcg@10", "problem": "binary", "group": "q"},
        {"measure": "roc", "problem": "binary", "weight": "w"},
        {"measure": "rmse", "problem": "regression"},
    ],
)
def test_boards_with_groups_weights_regression(how):
    rng = np.random.default_rng(11)
    n = 400
    ids = np.array([f"r{i:04d}" for i in range(n)])
    y = rng.integers(0, 2, n) if how["problem"] == "binary" else rng.normal(size=n)
    sol = pd.DataFrame(
        {
            "row_id": ids,
            "y": y,
            "q": rng.integers(0, 20, n),
            "w": rng.random(n) + 0.5,
            "Usage": np.where(rng.random(n) < 0.5, "Public", "Private"),
        }
    )
    sub = pd.DataFrame({"row_id": ids, "p": rng.random(n)}).sample(frac=1, random_state=1)
    task = {"target": "y", "prediction": "p", **how}
    got = score_boards(sol, sub, "row_id", **task)
    for board in ("public", "private"):
        rows = (sol["Usage"] == board.capitalize()).to_numpy()
        alone = score(sol[rows], sub[sub["row_id"].isin(set(ids[rows]))], "row_id", **task)
        assert _bits(got[board]) == _bits(alone) and np.isfinite(alone)


# -- a table task's usage column (its key's boards) -------------------------------------------------------
USAGE_TASK = (
    'name = "t"\nsubmission = "table"\nkey = "table"\nproblem = "binary"\nid = "row_id"\n'
    'target = "y"\nprediction = ["p"]\nusage = "Usage"\n[[criteria]]\nname = "auc"\nmeasure = "roc"\n'
)


def test_a_task_with_usage_scores_each_board_and_shows_the_public_one(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text(USAGE_TASK)
    sol, sub, y, p, usage = _data(7, 300)
    key_csv = tmp_path / "key.csv"
    sol.to_csv(key_csv, index=False)
    for key in (sol, str(key_csv)):
        res = score_submission(str(toml), key, sub)
        assert res.ok and res.boards is not None
        for board in ("public", "private"):
            rows = usage == board.capitalize()
            assert _bits(res.boards[board]["auc"]) == _bits(_ref(y[rows], p[rows]))
        assert res.scores == res.boards["public"]
    assert score_boards(sol, sub, "row_id", task=str(toml)) == {b: v["auc"] for b, v in res.boards.items()}


def test_a_key_with_a_bad_usage_is_the_organisers_error(tmp_path):
    from perfeval.exceptions import InputFormatError

    toml = tmp_path / "t.toml"
    toml.write_text(USAGE_TASK)
    sol, sub, *_ = _data()
    with pytest.raises(
        InputFormatError, match="row 3: column 'Usage': a row's board is Public, Private or Ignored"
    ):
        score_submission(str(toml), sol.assign(Usage=["Public", "Private", "Hidden"] + ["Public"] * 197), sub)
    with pytest.raises(InputFormatError, match="no row is Private"):
        score_submission(str(toml), sol.assign(Usage="Public"), sub)


def test_perfeval_score_prints_the_public_board_of_a_task_with_usage(tmp_path, capsys):
    """The private board is scored and held back (tests/test_contest_boards.py): perfeval score
    prints the public board's scores only."""
    from conftest import run_cli

    toml = tmp_path / "t.toml"
    toml.write_text(USAGE_TASK)
    sol, sub, y, p, usage = _data()
    sol.to_csv(tmp_path / "key.csv", index=False)
    sub.to_csv(tmp_path / "sub.csv", index=False)
    code, out, err = run_cli(
        [
            "score",
            "--key",
            str(tmp_path / "key.csv"),
            "--task",
            str(toml),
            str(tmp_path / "sub.csv"),
            "--no-store",
            "--format",
            "json",
        ],
        capsys,
    )
    public, private = (_ref(y[usage == b], p[usage == b]) for b in ("Public", "Private"))
    assert code == 0 and err == "" and json.loads(out)[0]["scores"] == {"auc": public}
    assert repr(private) not in out


def test_a_nullable_int_id_column_with_a_missing_id_says_the_row():
    """pandas' nullable Int64 ids holding one NA: that row's id is missing (said at its row), not
    the whole column "ids written as floating-point numbers" and every id listed."""
    sol = pd.DataFrame({"row_id": [1, 2, 3, 4], "y": [1, 0, 1, 0]})
    args = {"measure": "roc", "problem": "binary", "target": "y", "prediction": "p"}
    sub = pd.DataFrame({"row_id": pd.array([1, 2, None, 4], dtype="Int64"), "p": [0.9, 0.1, 0.8, 0.2]})
    with pytest.raises(ParticipantVisibleError) as e:
        score(sol, sub, "row_id", **args)
    assert str(e.value).splitlines() == [
        "submission, row 3, column 'row_id': missing id (a null)",
        "submission: 1 id(s) of the answer key have no prediction: '3'",
    ]
    whole = sub.assign(row_id=pd.array([1, 2, 3, 4], dtype="Int64"), p=[0.9, 0.1, 0.8, 0.2])
    assert score(sol, whole, "row_id", **args) == 1.0
    assert score(sol.astype({"row_id": "UInt32"}), whole, "row_id", **args) == 1.0
    # polars' and pyarrow's integer columns with a null: the same (their to_numpy gives floats too)
    from perfeval.contest import score_submission
    from perfeval.contest.kaggle import _task_from

    task = _task_from("row_id", None, dict(args))
    pl, pa = pytest.importorskip("polars"), pytest.importorskip("pyarrow")
    for frame in (
        pl.DataFrame({"row_id": [1, 2, None, 4], "p": [0.9, 0.1, 0.8, 0.2]}),
        pa.table({"row_id": pa.array([1, 2, None, 4], pa.int64()), "p": [0.9, 0.1, 0.8, 0.2]}),
    ):
        r = score_submission(task, sol, frame)
        assert r.errors == [
            "a submission, row 3, column 'row_id': missing id (a null)",
            "a submission: 1 id(s) of the answer key have no prediction: '3'",
        ], type(frame)


def test_kaggles_one_hot_multiclass_solution_is_scored():
    """Kaggle's multiclass solution holds one 0/1 column a class: ``target`` lists them (in the
    order of the classes).  Its log loss equals scikit-learn's on the labels, and equals the task
    with one label column bit for bit; a row not one-hot is the solution's error, at its row."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    n, cls = 60, ["cat", "dog", "bird"]
    lab = rng.integers(0, 3, n)
    lab[:3] = [0, 1, 2]
    sol = pd.DataFrame({"id": np.arange(n) + 100, **{c: (lab == i).astype(int) for i, c in enumerate(cls)}})
    p = rng.dirichlet([1, 1, 1], n)
    sub = pd.DataFrame({"id": np.arange(n) + 100, **{c: p[:, i] for i, c in enumerate(cls)}})
    args = {"measure": "mlogloss", "problem": "classes", "prediction": cls}
    got = score(sol, sub.sample(frac=1.0, random_state=2), "id", target=cls, **args)
    assert abs(got - metrics.log_loss(lab, p, labels=[0, 1, 2])) < 1e-12
    labels = pd.DataFrame({"id": sol["id"], "y": np.array(cls)[lab]})
    assert _bits(got) == _bits(score(labels, sub, "id", target="y", **args))
    bad = sol.copy()
    bad.loc[4, "dog"] = 1 - bad.loc[4, "dog"]
    with pytest.raises(PerfError, match=r"row 5: columns cat, dog, bird: a one-hot row holds exactly one 1"):
        score(bad, sub, "id", target=cls, **args)
    with pytest.raises(PerfError, match=r"one target column \(the label\) or K \(one-hot"):
        score(sol, sub, "id", target=cls[:2], **args)


def test_map_at_k_is_trec_evals_not_kaggles_apk():
    """MAP@k of a table task is trec_eval's (each query's AP over its relevant rows R, as
    docs/contest.md says), not the ``apk`` of Kaggle's MAP@K competitions (over min(k, R)): a query
    with 3 relevant rows, one of them in the top 2, scores 1/3 at k = 2 (Kaggle's apk: 1/2)."""
    sol = pd.DataFrame({"row_id": range(6), "q": ["a"] * 6, "rel": [1, 0, 1, 1, 0, 0]})
    sub = pd.DataFrame({"row_id": range(6), "p": [0.9, 0.8, 0.1, 0.2, 0.3, 0.4]})
    args = {"problem": "binary", "target": "rel", "prediction": "p", "group": "q"}
    assert score(sol, sub, "row_id", measure="map@2", **args) == 1 / 3
