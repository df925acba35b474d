"""``perfeval explain`` (and ``perfeval.explain``) of a target read as a regression target says why it
was, as ``perfeval eval`` says it (a count of many whole numbers is not "real values"), on
pandas-written tables."""

from __future__ import annotations

import numpy as np
import pytest

import perfeval

pd = pytest.importorskip("pandas")


def _cli(argv, capsys):
    from perfeval.cli.main import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def counts(tmp_path):
    rng = np.random.default_rng(8)
    n = 200
    many = rng.poisson(40, n)  # > 20 distinct whole numbers
    few = rng.integers(10, 22, n)  # 12 distinct whole numbers
    assert len(np.unique(many)) > 20 and len(np.unique(few)) == 12
    paths = {}
    for name, c in (("many", many), ("few", few)):
        paths[name] = tmp_path / f"{name}.csv"
        pd.DataFrame({"visits": c, "pred": c + rng.normal(0, 2, n)}).to_csv(paths[name], index=False)
    return paths, many, few


def _last(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


def test_explain_of_a_count_says_why_as_eval(counts, capsys):
    paths, many, _ = counts
    base = ["--target", "visits", "--score", "pred"]
    code, out, err = _cli(["explain", str(paths["many"]), *base, "-m", "rmse"], capsys)
    _, _, eval_err = _cli(["eval", str(paths["many"]), *base], capsys)
    how = f"the target column 'visits' holds {len(np.unique(many))} distinct whole numbers"
    assert code == 0, err
    assert f"regression ({how})" in eval_err
    assert _last(out).startswith(f"200 rows, a regression target ({how}); ")
    assert "real values" not in out


def test_explain_of_a_count_by_task_or_measure_says_so(counts, capsys):
    paths, *_ = counts
    base = ["explain", str(paths["few"]), "--target", "visits", "--score", "pred"]
    code, out, err = _cli([*base, "-m", "mae", "--task", "regression"], capsys)
    assert code == 0, err
    assert _last(out).startswith("200 rows, a regression target (--task regression); ")
    code, out, err = _cli([*base, "-m", "mae,r2"], capsys)
    assert code == 0, err
    assert _last(out).startswith("200 rows, a regression target (the regression measure MAE named); ")


def test_the_librarys_explain_says_why_in_evaluates_words(counts):
    _, many, few = counts
    pred = many + 0.5
    e = perfeval.explain(many, pred, measures=["rmse"])
    assert (
        e.where
        == f"200 rows, a regression target (the target holds {len(np.unique(many))} distinct whole numbers)"
    )
    e = perfeval.explain(few, few + 0.5, measures=["mae"], task="regression")
    assert e.where == "200 rows, a regression target (task='regression')"
    with pytest.raises(perfeval.InvalidParameterError) as info:
        perfeval.explain(few, few + 0.5, measures=["mae"], pos_label=12)
    assert (
        str(info.value)
        == "pos_label= does not apply to a regression target (the regression measure MAE named)"
    )
