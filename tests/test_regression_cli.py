"""``perfeval eval`` of a regression target: named measures, --task regression, the auto-recognised
target that says so (never a positive label), per group, --stream with the in-memory bits."""

from __future__ import annotations

import numpy as np
import pytest

from perfeval.cli.main import main


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def houses(tmp_path):
    rng = np.random.default_rng(4)
    y = rng.lognormal(5, 0.3, 200)
    p = y * rng.normal(1, 0.1, 200)
    g = rng.integers(0, 5, 200)
    path = tmp_path / "houses.csv"
    path.write_text(
        "price,pred,g\n"
        + "".join(f"{a!r},{b!r},{c}\n" for a, b, c in zip(y.tolist(), p.tolist(), g.tolist(), strict=True))
    )
    return path, y, p, g


def _values(out):
    return {
        ln.split()[0]: float(ln.split()[1])
        for ln in out.splitlines()[1:]
        if ln and not ln.startswith("signature")
    }


def test_named_measures(houses, capsys):
    import perfeval

    path, y, p, _ = houses
    code, out, err = _run(
        ["eval", str(path), "--target", "price", "--score", "pred", "-m", "mae,rmse,r2"], capsys
    )
    assert code == 0
    got = _values(out)
    want = perfeval.evaluate(y, p, measures=["mae", "rmse", "r2"])
    assert list(got) == ["MAE", "RMSE_REG", "R2"]
    for k, v in got.items():
        assert v == pytest.approx(want[k], rel=1e-6)
    assert "|regression|" in out
    assert "regression (the regression measure MAE named)" in err


def test_auto_recognised_target_says_so(houses, capsys):
    path, *_ = houses
    code, out, err = _run(["eval", str(path), "--target", "price", "--score", "pred"], capsys)
    assert code == 0 and list(_values(out)) == ["MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR"]
    assert "perfeval: note: regression (the target column 'price' holds 200 distinct real values)" in err
    assert "pos-label" not in err


def test_task_regression_on_a_0_1_target_and_task_binary(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,p\n1,0.9\n0,0.2\n1,0.6\n0,0.4\n")
    code, out, _ = _run(["eval", str(path), "-m", "rmse", "--task", "regression"], capsys)
    assert code == 0 and "RMSE_REG" in out
    code, out, _ = _run(["eval", str(path), "-m", "rmse"], capsys)
    assert code == 0 and "RMS " in out and "RMSE_REG" not in out


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_a_regression_measure_under_task_binary_is_one_line_not_dropped(tmp_path, capsys, extra):
    """--task binary with a regression measure (alone or beside a binary one): one line, exit 2, never
    an empty table (the measure was left out without a word); as in Python, evaluate and a Metric."""
    import perfeval
    from perfeval.exceptions import InvalidParameterError

    path = tmp_path / "t.csv"
    path.write_text("y,p\n1,0.9\n0,0.2\n1,0.6\n0,0.4\n")
    for m in ("mae", "mae,roc"):
        code, out, err = _run(["eval", str(path), "-m", m, "--task", "binary", *extra], capsys)
        assert code == 2 and out == ""
        assert err.strip().splitlines() == [
            "perfeval: error: MAE is a regression measure, but the target is read as 0/1 labels here "
            "(task='binary', or a summary of them); give the real targets and predictions "
            "(task='regression')"
        ]
    with pytest.raises(InvalidParameterError, match="MAE is a regression measure"):
        perfeval.evaluate([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.4], measures=["mae", "roc"], task="binary")
    m = perfeval.Metric(["mae"], task="binary")
    with pytest.raises(InvalidParameterError, match="MAE is a regression measure"):
        m.update([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.4])
        m.compute()


def test_per_group_and_stream(houses, capsys):
    path, y, p, g = houses
    code, out, _ = _run(
        [
            "eval",
            str(path),
            "--target",
            "price",
            "--score",
            "pred",
            "--group",
            "g",
            "-m",
            "mae,rmse",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    import json

    import perfeval

    rep = json.loads(out)
    want = perfeval.evaluate(y, p, groups=g, measures=["mae", "rmse"])
    assert rep["measures"]["MAE"]["per_group"] == {
        str(k): v for k, v in zip(want.groups.tolist(), want.results["MAE"].per_group.tolist(), strict=True)
    }
    mem = _run(
        ["eval", str(path), "--target", "price", "--score", "pred", "-m", "mae,r2", "--format", "json"],
        capsys,
    )[1]
    streamed = _run(
        [
            "eval",
            str(path),
            "--target",
            "price",
            "--score",
            "pred",
            "-m",
            "mae,r2",
            "--format",
            "json",
            "--stream",
        ],
        capsys,
    )[1]
    a, b = json.loads(mem)["measures"], json.loads(streamed)["measures"]
    assert {k: v["value"] for k, v in a.items()} == {k: v["value"] for k, v in b.items()}


def test_bad_input_is_one_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,p\n1.5,0.9\nabc,0.2\n2.5,0.6\n")
    code, out, err = _run(["eval", str(path), "-m", "mae"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "line 3" in err and "'y'" in err
    path.write_text("y,p\n1.5,0.9\n2.5,0.2\n2.5,\n")
    code, out, err = _run(["eval", str(path), "-m", "mae"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "'p'" in err
    code, out, err = _run(["eval", str(path), "-m", "mae,roc"], capsys)
    assert code != 0 and out == "" and "ROC is a binary measure" in err


def test_stream_with_groups_and_weights_is_the_table_read_whole(tmp_path, capsys):
    """--stream --group of a regression target (spilled by group, each group from its exact sums):
    the output of the table read whole, but for the backend in the signature."""
    rng = np.random.default_rng(3)
    n = 400
    y = np.round(rng.normal(size=n) * 3 + 1e5, 3)
    p = np.round(y + rng.normal(size=n), 2)
    lines = ["y,p,g,w"] + [
        f"{a},{b},u{c},{d}"
        for a, b, c, d in zip(y, p, rng.integers(0, 30, n), rng.integers(0, 5, n) * 0.25, strict=True)
    ]
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n")
    argv = ["eval", str(path), "--target", "y", "--score", "p", "--group", "g", "--weight", "w"]
    argv += ["-m", "mae,rmse,r2,medae,pinball@0.9"]
    code_m, mem, _ = _run(argv, capsys)
    code_s, streamed, err = _run([*argv, "--stream"], capsys)
    assert code_m == code_s == 0 and "regression" in err
    assert mem.replace("backend:memory", "backend:stream") == streamed


def test_stream_errors_name_the_line_as_read_whole(tmp_path, capsys):
    path = tmp_path / "t.csv"
    for text in (
        "y,p,g\n1.5,0.9,a\n2.5,abc,b\n",
        "y,p,g\n1.5,0.9,a\n2.5,1,b\ninf,3,a\n",
        "y,p,g\n1.5,0.9,a\n,1,b\n",
    ):
        path.write_text(text)
        errs = []
        for extra in ([], ["--stream"], ["--stream", "--group", "g"]):
            code, out, err = _run(
                ["eval", str(path), "--target", "y", "--score", "p", "-m", "mae", *extra], capsys
            )
            assert code == 1 and out == "" and err.count("\n") == 1, err
            errs.append(err)
        assert errs[0] == errs[1] == errs[2] and ", line " in errs[0], errs


def test_stream_without_a_regression_measure_or_task_is_one_line_naming_them(tmp_path, capsys):
    """--stream cannot see every target before its first chunk: it does not guess; a real target
    without -m or --task is one line naming both (exit 1), and with either it is a regression."""
    path = tmp_path / "t.csv"
    path.write_text("y,p\n1.5,1.2\n2.5,2.0\n3.25,3.5\n")
    code, out, err = _run(["eval", str(path), "--stream"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "regression target" in err and "-m mae,rmse,r2 or --task regression" in err
    code, out, err = _run(["eval", str(path), "--stream", "--task", "regression"], capsys)
    assert code == 0 and "MAE" in out and "regression (--task regression)" in err


# -- several models: --score a,b,c, a row a model, as several binary models print ---------------------
@pytest.fixture
def models(tmp_path):
    rng = np.random.default_rng(8)
    n = 150
    y = rng.normal(size=n) * 3 + 5
    cols = {"a": y + rng.normal(size=n), "b": y + rng.normal(size=n) * 2, "c": np.round(y, 0)}
    g = rng.integers(0, 4, n)
    w = rng.random(n) + 0.1
    path = tmp_path / "models.csv"
    rows = zip(y.tolist(), *(c.tolist() for c in cols.values()), g.tolist(), w.tolist(), strict=True)
    path.write_text("y,a,b,c,g,w\n" + "".join(",".join(repr(v) for v in r) + "\n" for r in rows))
    return path, y, cols, g, w


def test_several_models_print_a_row_each_with_each_models_numbers(models, capsys):
    import json

    import perfeval

    path, y, cols, _, _ = models
    argv = ["eval", str(path), "--target", "y", "--score", "a,b,c", "-m", "mae,rmse,d2_ae"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["model", "MAE", "RMSE_REG", "D2_AE"]
    assert [ln.split()[0] for ln in lines[1:4]] == ["a", "b", "c"]
    assert lines[4].startswith("signature: ") and "|regression|" in lines[4] and len(lines) == 5
    assert "regression (the regression measure MAE named), 3 models: MAE, RMSE_REG, D2_AE" in err
    code, out, err = _run([*argv, "--format", "json"], capsys)
    assert code == 0, err
    got = json.loads(out)["models"]
    assert list(got) == ["a", "b", "c"]
    for name, s in cols.items():
        want = perfeval.evaluate(y, s, measures=["mae", "rmse", "d2_ae"])
        assert got[name]["params"]["task"] == "regression"
        assert got[name]["params"]["columns"] == {"target": "y", "score": name}
        for label in ("MAE", "RMSE_REG", "D2_AE"):
            assert got[name]["measures"][label]["value"] == want[label], (name, label)
    code, out, err = _run([*argv, "--format", "csv"], capsys)
    rows = out.splitlines()
    assert code == 0 and rows[0] == "model,MAE,RMSE_REG,D2_AE" and len(rows) == 4
    assert float(rows[2].split(",")[1]) == perfeval.evaluate(y, cols["b"], measures=["mae"])["MAE"]
    # streamed: the same numbers
    code, out2, err = _run([*argv[:-2], "-m", "mae,rmse,d2_ae", "--stream", "--format", "csv"], capsys)
    assert code == 0 and out2 == out, err


def test_several_models_are_read_as_a_regression_by_the_task_or_the_target(models, capsys):
    path, *_ = models
    for extra in (["--task", "regression"], []):
        code, out, err = _run(["eval", str(path), "--target", "y", "--score", "a,b", *extra], capsys)
        assert code == 0, err
        assert out.splitlines()[0].split() == ["model", "MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR"]
        assert "2 models" in err and "pos-label" not in err


def test_several_models_per_group_and_weights(models, capsys):
    import perfeval

    path, y, cols, g, w = models
    argv = [
        "eval",
        str(path),
        "--target",
        "y",
        "--score",
        "a,c",
        "--group",
        "g",
        "--weight",
        "w",
        "-m",
        "medae,mae",
    ]
    code, out, err = _run([*argv, "--per-group"], capsys)
    assert code == 0, err
    assert "a, per group:" in out and "c, per group:" in out
    out_csv = path.parent / "groups.csv"
    code, _, err = _run([*argv, "--per-group-output", str(out_csv)], capsys)
    assert code == 0, err
    lines = out_csv.read_text().splitlines()
    assert lines[0] == "model,group,MEDAE,MAE" and len(lines) == 1 + 2 * len(set(g.tolist()))
    want = perfeval.evaluate(y, cols["c"], groups=g, sample_weight=w, measures=["medae", "mae"])
    got = {ln.split(",")[1]: float(ln.split(",")[2]) for ln in lines if ln.startswith("c,")}
    for key, v in zip(want.groups.tolist(), want.results["MEDAE"].per_group.tolist(), strict=True):
        assert got[str(key)] == pytest.approx(v, rel=1e-6)


@pytest.mark.parametrize(
    "score, extra, says",
    [
        ("a,,b", [], "--score 'a,,b': an empty column name between commas"),
        ("a,a", [], "--score 'a,a': a column named twice"),
        ("a,zz", [], "--score 'zz': no such column"),
        ("a,b", ["-m", "mae,roc"], "ROC is a binary measure and the target is a regression target"),
        ("a,b", ["--pos-label", "1", "-m", "mae"], "--pos-label does not apply to a regression target"),
    ],
)
def test_several_models_refuse_what_they_cannot_do_in_one_line(models, capsys, score, extra, says):
    path, *_ = models
    code, out, err = _run(["eval", str(path), "--target", "y", "--score", score, *extra], capsys)
    assert code == 2 and out == ""
    assert err.startswith("perfeval: error: ") and says in err and err.count("\n") == 1, err


def test_several_models_from_standard_input_streamed_are_refused(models, capsys, monkeypatch):
    import io
    import sys

    path, *_ = models
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    code, out, err = _run(["eval", "-", "--target", "y", "--score", "a,b", "-m", "mae", "--stream"], capsys)
    assert code == 2 and out == ""
    assert "several --score columns with --stream/--dask read the file once a model" in err


def test_a_mapping_of_models_in_python_says_how_to_evaluate_several():
    """evaluate() takes one prediction a row, as for a binary target: a dict of models is one line
    saying how (a call a model, or compare_models), not numpy's shape error."""
    import perfeval

    y = np.array([1.5, 2.5, 3.7])
    with pytest.raises(
        perfeval.InvalidParameterError, match=r"`y_pred` is a mapping of 2 models; .*compare_models"
    ):
        perfeval.evaluate(y, {"a": y, "b": y + 1}, task="regression")
    with pytest.raises(perfeval.InvalidParameterError, match="a mapping of 2 models"):
        perfeval.evaluate(y, {"a": y, "b": y + 1}, measures=["mae"])
