"""``perfeval eval --ci`` and ``perfeval compare`` of a regression target (the library's numbers,
bad requests one line each) and ``perfeval eval --dask`` of a regression target (the bits of
memory, CSV and Parquet, weights and groups)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeval.stats import ci, compare, compare_models

scipy_stats = pytest.importorskip("scipy.stats")


# -- the command line --------------------------------------------------------------------------------
@pytest.fixture
def houses(tmp_path):
    rng = np.random.default_rng(4)
    n = 240
    y = np.round(rng.lognormal(5, 0.3, n), 3)
    a = np.round(y * rng.normal(1, 0.1, n), 3)
    b = np.round(y * rng.normal(1, 0.14, n), 3)
    c = np.round(y * rng.normal(1.02, 0.1, n), 3)
    g = rng.integers(0, 9, n)
    w = np.round(rng.random(n) * 2 + 0.1, 2)
    path = tmp_path / "houses.csv"
    rows = zip(y.tolist(), a.tolist(), b.tolist(), c.tolist(), g.tolist(), w.tolist(), strict=True)
    path.write_text("price,a,b,c,g,w\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path, y, a, b, c, g, w


def _cli(argv, capsys):
    from perfeval.cli.main import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_ci_is_the_librarys(houses, capsys):
    path, y, a, _, _, g, w = houses
    base = ["eval", str(path), "--target", "price", "--score", "a", "--format", "json"]
    code, out, err = _cli(
        [*base, "-m", "mae,rmse,r2,medae", "--ci", "0.9", "--n-boot", "150", "--seed", "2"], capsys
    )
    assert code == 0 and "regression (the regression measure MAE named)" in err
    got = json.loads(out)
    want = ci(y, a, measures=["mae", "rmse", "r2", "medae"], level=0.9, n_boot=150, seed=2)
    for label, iv in want.items():
        d = json.loads(json.dumps(iv.to_dict()))
        assert got["measures"][label]["ci"] == {k: v for k, v in d.items() if k not in ("label", "estimate")}
        assert got["measures"][label]["value"] == iv.estimate
    assert got["signature"].endswith("|regression|weights:no|backend:memory|ci:bca,n=150,seed=2,level=0.9")
    # Student's t, by --method t
    code, out, _ = _cli([*base, "-m", "mae,mse", "--ci", "0.95", "--method", "t"], capsys)
    assert code == 0
    got = json.loads(out)["measures"]["MSE_REG"]["ci"]
    iv = ci(y, a, measures=["mse_reg"], method="t")["MSE_REG"]
    assert (got["low"], got["high"], got["method"], got["seed"]) == (iv.low, iv.high, "t", None)
    # over groups, weighted: whole groups resampled
    code, out, _ = _cli(
        [*base, "--task", "regression", "--group", "g", "--weight", "w", "--ci", "0.95", "--n-boot", "80"],
        capsys,
    )
    assert code == 0
    got = json.loads(out)["measures"]
    want = ci(
        y, a, measures=["mae", "mse_reg", "rmse_reg", "r2", "expvar"], groups=g, sample_weight=w, n_boot=80
    )
    assert list(got) == list(want)
    for label, iv in want.items():
        assert (got[label]["ci"]["low"], got[label]["ci"]["high"], got[label]["ci"]["resampled"]) == (
            iv.low,
            iv.high,
            "groups",
        )


def test_eval_ci_table_names_the_method(houses, capsys):
    path, *_ = houses
    code, out, _ = _cli(
        ["eval", str(path), "--target", "price", "--score", "a", "-m", "mae", "--ci", "0.9", "--method", "t"],
        capsys,
    )
    assert code == 0
    assert "(90% intervals: Student's t of the mean per-case loss)" in out
    assert "ci:t,level=0.9" in out


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (
            ["-m", "mae", "--ci", "0.9", "--stream"],
            2,
            "--ci of a regression target (the regression measure MAE named) reweights",
        ),
        (
            ["--task", "regression", "--ci", "0.9", "--stream", "--group", "g"],
            2,
            "needs the rows in memory: drop --stream",
        ),
        (["-m", "r2", "--ci", "0.9", "--method", "t"], 2, "not R2; use --method bca or --method percentile"),
        (
            ["-m", "mae", "--ci", "0.9", "--method", "t", "--weight", "w"],
            2,
            "with case weights use --method bca",
        ),
        (["-m", "mae", "--ci", "0.9", "--method", "delong"], 2, "use --method bca, percentile or t"),
        (["-m", "mae", "--ci", "1.5"], 2, "strictly between 0 and 1"),
        (["-m", "mae:of=threshold", "--ci", "0.9"], 2, "no parameter 'of'"),
    ],
)
def test_eval_ci_refusals_are_one_line(houses, capsys, argv, code, words):
    path, *_ = houses
    got, out, err = _cli(["eval", str(path), "--target", "price", "--score", "a", *argv], capsys)
    lines = [ln for ln in err.splitlines() if not ln.startswith("perfeval: note:")]
    assert got == code and out == "" and len(lines) == 1 and words in lines[0], err


def test_eval_ci_of_a_bad_prediction_names_its_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,p\n1.5,2\n2.5,inf\n3.5,1\n")
    code, out, err = _cli(["eval", str(path), "-m", "mae", "--ci", "0.9"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "line 3" in err and "'p'" in err


def test_compare_is_the_librarys_with_holm(houses, capsys):
    path, y, a, b, c, _, _ = houses
    argv = [
        "compare",
        str(path),
        "--target",
        "price",
        "--score",
        "a,b,c",
        "-m",
        "mae,rmse,r2",
        "--n-boot",
        "150",
    ]
    code, out, err = _cli([*argv, "--format", "json"], capsys)
    assert code == 0 and "regression (the regression measure MAE named): MAE, RMSE_REG, R2" in err
    got = json.loads(out)
    want = compare_models(y, {"a": a, "b": b, "c": c}, "a", measures=["mae", "rmse", "r2"], n_boot=150)
    rows = {(r["model"], r["measure"]): r for r in got["comparisons"]}
    for model in ("b", "c"):
        for label, cmp in want[model].items():
            r = rows[(model, label)]
            assert (r["difference"], r["low"], r["high"], r["p_value"], r["method"]) == (
                cmp.difference,
                cmp.low,
                cmp.high,
                cmp.p_value,
                cmp.method,
            )
    from perfeval.stats.paired import correct_tested

    for label in ("MAE", "RMSE_REG", "R2"):
        ps = [rows[(m, label)]["p_value"] for m in ("b", "c")]
        assert [rows[(m, label)]["p_adjusted"] for m in ("b", "c")] == correct_tested(ps, "holm").tolist()
    assert "|regression|" in got["signature"] and "t(MAE)+bca(RMSE_REG/R2)" in got["signature"]
    code, out, _ = _cli(argv, capsys)
    assert code == 0 and "MAE: paired t-test; RMSE_REG, R2: paired bca bootstrap" in out


def test_compare_task_regression_takes_the_regression_defaults_and_weights(houses, capsys):
    path, y, a, b, _, _, w = houses
    argv = [
        "compare",
        str(path),
        "--target",
        "price",
        "--score",
        "a,b",
        "--task",
        "regression",
        "--weight",
        "w",
    ]
    code, out, err = _cli([*argv, "--n-boot", "100"], capsys)
    assert code == 0 and "regression (--task regression): MAE, MSE_REG, RMSE_REG, R2, EXPVAR" in err
    assert "(MAE, MSE_REG by the bootstrap, not the paired t-test: the cases are weighted" in out
    want = compare(y, b, a, measures=["mae"], sample_weight=w, n_boot=100)["MAE"]
    line = next(ln for ln in out.splitlines() if ln.startswith("b ") and " MAE " in ln)
    assert f"{want.low:.6f}" in line and f"{want.high:.6f}" in line


def test_compare_two_files_of_predictions(tmp_path, capsys):
    rng = np.random.default_rng(3)
    y = np.round(rng.normal(50, 5, 100), 2)
    a, b = np.round(y + rng.normal(0, 1, 100), 2), np.round(y + rng.normal(0, 1.5, 100), 2)
    for name, s in (("old", a), ("new", b)):
        (tmp_path / f"{name}.csv").write_text(
            "y,p\n" + "".join(f"{t},{x}\n" for t, x in zip(y, s, strict=True))
        )
    code, out, _ = _cli(
        [
            "compare",
            str(tmp_path / "old.csv"),
            str(tmp_path / "new.csv"),
            "-m",
            "mse",
            "--task",
            "regression",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    r = json.loads(out)["comparisons"][0]
    want = scipy_stats.ttest_rel((y - b) ** 2, (y - a) ** 2)
    assert r["measure"] == "MSE_REG" and r["method"] == "t"
    assert r["p_value"] == pytest.approx(want.pvalue, rel=1e-11)


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["-m", "mae", "--method", "delong"], 2, "DeLong's test is for the ROC area, not MAE"),
        (["-m", "mae", "--method", "t", "--group", "g"], 2, "over groups the test resamples whole groups"),
        (["-m", "mae", "--pos-label", "3"], 2, "--pos-label does not apply to a regression target"),
        (["-m", "mae", "--tie-bounds"], 2, "--tie-bounds does not apply to a regression target"),
        (
            ["--task", "regression", "-m", "roc"],
            2,
            "ROC is a binary measure and the target is a regression target",
        ),
    ],
)
def test_compare_refusals_are_one_line(houses, capsys, argv, code, words):
    path, *_ = houses
    got, out, err = _cli(["compare", str(path), "--target", "price", "--score", "a,b", *argv], capsys)
    lines = [ln for ln in err.splitlines() if not ln.startswith("perfeval: note:")]
    assert got == code and out == "" and len(lines) == 1 and words in lines[0], err


def test_compare_of_a_bad_prediction_names_its_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,p,q\n1.5,2,3\n2.5,nan,3\n3.5,1,2\n")
    code, out, err = _cli(["compare", str(path), "--target", "y", "--score", "p,q", "-m", "mae"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "line 3" in err and "'p'" in err
    path.write_text("y,p,q\n1.5,2,3\nabc,1,3\n3.5,1,2\n")
    code, out, err = _cli(["compare", str(path), "--target", "y", "--score", "p,q", "-m", "mae"], capsys)
    lines = [ln for ln in err.splitlines() if not ln.startswith("perfeval: note:")]
    assert code == 1 and out == "" and len(lines) == 1 and "line 3" in lines[0] and "'y'" in lines[0]


def test_binary_compare_refuses_student_t(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,a,b\n1,0.9,0.8\n0,0.2,0.4\n1,0.6,0.7\n0,0.4,0.1\n")
    code, out, err = _cli(["compare", str(path), "--target", "y", "--score", "a,b", "--method", "t"], capsys)
    assert (
        code == 2
        and out == ""
        and err.count("\n") == 1
        and "Student's t is for a regression's mean loss" in err
    )


# -- --dask on the command line: the bits of memory --------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed", reason="--dask needs distributed")
    pytest.importorskip("dask.dataframe", reason="--dask needs dask")
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(c)
    yield client
    client.close()
    c.close()


@pytest.fixture
def on_cluster(cluster, monkeypatch):
    import contextlib

    import perfeval.backends.dask

    monkeypatch.setattr(perfeval.backends.dask, "connect", lambda address: contextlib.nullcontext(cluster))
    return cluster


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(
    "options",
    [
        ["-m", "mae,rmse,r2,medae,pinball:alpha=0.9"],
        ["--task", "regression", "--weight", "w"],
        ["-m", "mae,r2,medae", "--group", "g"],
        ["--task", "regression", "--group", "g", "--weight", "w"],
    ],
)
def test_eval_dask_is_the_bits_of_memory(on_cluster, houses, tmp_path, capsys, fmt, options):
    pd = pytest.importorskip("pandas")
    path, *_ = houses
    df = pd.read_csv(path)
    for i, rows in enumerate(np.array_split(np.arange(len(df)), 3)):
        part = df.iloc[rows]
        target = tmp_path / f"part{i}.{fmt}"
        part.to_parquet(target) if fmt == "parquet" else part.to_csv(target, index=False)
    common = ["--target", "price", "--score", "a", "--format", "json", *options]
    code, mem, _ = _cli(["eval", str(path), *common], capsys)
    assert code == 0
    code, dsk, err = _cli(["eval", str(tmp_path / f"part*.{fmt}"), *common, "--dask", "local:1"], capsys)
    assert code == 0, err
    m, d = json.loads(mem), json.loads(dsk)
    assert {k: v["value"] for k, v in d["measures"].items()} == {
        k: v["value"] for k, v in m["measures"].items()
    }
    if "--group" in options:
        assert {k: v["per_group"] for k, v in d["measures"].items()} == {
            k: v["per_group"] for k, v in m["measures"].items()
        }
    assert d["signature"] == m["signature"].replace("backend:memory", "backend:dask")
    assert d["params"]["task_from"] == m["params"]["task_from"]


def test_eval_dask_bad_input_is_one_line(on_cluster, tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pd.DataFrame({"y": [1.5, 2.5, 3.5], "p": [2.0, np.inf, 1.0]}).to_parquet(tmp_path / "t.parquet")
    code, out, err = _cli(["eval", str(tmp_path / "t.parquet"), "-m", "mae", "--dask", "local:1"], capsys)
    lines = [ln for ln in err.splitlines() if not ln.startswith("perfeval: note:")]
    assert code == 1 and out == "" and len(lines) == 1 and "'p'" in lines[0] and "inf" in lines[0], err
    code, out, err = _cli(
        ["eval", str(tmp_path / "t.parquet"), "-m", "mae", "--ci", "0.9", "--dask", "local:1"], capsys
    )
    assert code == 2 and out == "" and "drop --dask" in err
