"""``perfeval eval --by``: the slices under the overall table (every slice with its rows, positives,
negatives and values, the undefined ones with the reason, the flagged ones marked; the gaps), as JSON
and as one CSV table; the slice columns read as values with their file line in messages; what --by
does not combine with, one line each.
"""

from __future__ import annotations

import io
import json
import warnings

import pandas as pd
import pytest

import perfeval
from conftest import run_cli

CSV = (
    "y,p,country,device,w\n"
    "1,0.9,FR,m,1\n"
    "0,0.2,FR,t,1\n"
    "1,0.4,DE,m,2\n"
    "0,0.6,FR,m,1\n"
    "1,0.7,DE,t,0\n"
    "0,0.1,DE,t,1\n"
    "1,0.35,US,m,1\n"
    "1,0.8,US,t,1\n"
)


@pytest.fixture
def table(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(CSV)
    return str(p)


def test_the_slices_follow_the_overall_table(table, capsys):
    code, out, err = run_cli(
        [
            "eval",
            table,
            "--target",
            "y",
            "--score",
            "p",
            "--by",
            "country",
            "--min-size",
            "3",
            "-m",
            "roc,acc",
        ],
        capsys,
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["measure", "value"] and lines[3].startswith("signature: ")
    at = lines.index("slices by country (3; 1 below --min-size 3, marked *):")
    assert lines[at + 1].split() == ["slice", "rows", "cases", "positives", "negatives", "ROC", "ACC"]
    assert lines[at + 2].split() == ["DE", "3", "3", "2", "1", "1.000000", "0.666667"]
    assert lines[at + 4].split() == ["US*", "2", "2", "2", "0", "n/a", "0.500000"]
    assert lines[at + 5] == (
        "(US: ROC n/a: undefined in this slice (2 positives, no negative): one class only: all 2 cases are "
        "positive)"
    )
    gaps = lines.index(
        "gaps by country (difference: max - min; ratio: min / max; worst: by the measure's direction):"
    )
    head = "measure difference ratio diff_to_overall ratio_to_overall worst worst_value undefined"
    assert lines[gaps + 1].split() == head.split()
    assert lines[gaps + 3].split() == [
        "ACC",
        "0.166667",
        "0.750000",
        "0.125000",
        "0.800000",
        "US",
        "0.500000",
        "0",
    ]
    assert "ROC is undefined in 1 of 3 slices of 'country'" in err


def test_the_numbers_are_the_librarys(table, capsys):
    code, out, _ = run_cli(
        ["eval", table, "--target", "y", "--score", "p", "--weight", "w", "--by", "country,device",
         "--intersections", "-m", "roc,ap,selrate", "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0
    d = json.loads(out)
    df = pd.read_csv(io.StringIO(CSV))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(df, target="y", score="p", weight="w", measures=["roc", "ap", "selrate"],
                              by=["country", "device"], intersections=True)  # fmt: skip
    assert d["slices"] == json.loads(r.to_json())["slices"]
    names = [s["slicing"] for s in d["slices"]["slicings"]]
    assert names == ["country", "device", "country x device"]
    de = d["slices"]["slicings"][0]["slices"][0]
    assert de["slice"] == "DE" and de["rows"] == 3 and de["cases"] == 2 and de["weight"] == 3.0


def test_csv_is_one_table_of_the_slices(table, capsys):
    code, out, _ = run_cli(
        ["eval", table, "--target", "y", "--score", "p", "--by", "country", "--by", "device", "-m", "roc",
         "--format", "csv"],
        capsys,
    )  # fmt: skip
    assert code == 0
    f = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert list(f.columns) == [
        "slicing", "slice", "rows", "cases", "weight", "positives", "negatives", "flagged", "ROC", "why_ROC"
    ]  # fmt: skip
    assert f["slice"].tolist() == ["DE", "FR", "US", "m", "t"]
    assert f.loc[2, "ROC"] == "nan" and f.loc[2, "why_ROC"].startswith("undefined in this slice")


def test_a_per_query_measure_by_slice(tmp_path, capsys):
    p = tmp_path / "q.csv"
    p.write_text("q,rel,s,site\n1,2,0.9,a\n1,0,0.4,a\n2,1,0.3,a\n2,0,0.8,b\n3,0,0.5,b\n3,0,0.1,b\n")
    code, out, err = run_cli(
        ["eval", str(p), "--target", "rel", "--score", "s", "--group", "q", "--by", "site", "-m", "ndcg"],
        capsys,
    )
    assert code == 0, err
    assert "slice  rows  cases  positives  negatives  groups      NDCG" in out
    assert "(b: NDCG n/a: undefined in each of its 2 queries: a query with no relevant case" in out


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--by", "y"], "--by 'y' is the target column: a slice column is another column"),
        (["--by", "p"], "--by 'p' is the score column"),
        (["--by", "zz"], "zz"),
        (["--intersections"], "--intersections needs --by COL,..."),
        (["--min-size", "2"], "--min-size needs --by"),
        (["--by", "country", "--min-size", "0"], "--min-size must be a whole number >= 1"),
        (["--by", "country", "--tie-bounds"], "--by: not with --tie-bounds yet"),
        (["--by", "country", "--dialect", "sklearn"], "--by: not with --dialect yet"),
        (["--by", "country,,device"], "an empty column name between commas"),
    ],
)
def test_what_by_refuses_is_one_line(table, capsys, extra, said):
    code, out, err = run_cli(["eval", table, "--target", "y", "--score", "p", "-m", "roc", *extra], capsys)
    assert code in (1, 2) and out == ""
    assert said in err and len(err.strip().splitlines()) == 1


CLASSES = (
    "y,a,b,c,site,w\n"
    "0,0.6,0.3,0.1,x,1\n"
    "1,0.1,0.6,0.3,x,2\n"
    "2,0.3,0.3,0.4,y,1\n"
    "0,0.5,0.2,0.3,y,0\n"
    "1,0.2,0.7,0.1,x,1\n"
    "2,0.1,0.1,0.8,y,3\n"
    "0,0.4,0.4,0.2,z,1\n"
    "1,0.3,0.5,0.2,y,1\n"
)


def _slices_of(r) -> dict:
    return json.loads(r.to_json())["slices"]


def test_k_classes_by_slice_are_the_librarys(tmp_path, capsys):
    p = tmp_path / "k.csv"
    p.write_text(CLASSES)
    args = ["eval", str(p), "--target", "y", "--score", "a,b,c", "--classes", "0,1,2", "--weight", "w"]
    code, out, err = run_cli([*args, "--by", "site", "--min-size", "2", "--format", "json"], capsys)
    assert code == 0, err
    df = pd.read_csv(io.StringIO(CLASSES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = df[["a", "b", "c"]].to_numpy()
        r = perfeval.evaluate(df["y"], scores, classes=[0, 1, 2], sample_weight=df["w"],
                              by={"site": df["site"]}, min_size=2)  # fmt: skip
    d = json.loads(out)
    assert d["slices"] == _slices_of(r)
    z = d["slices"]["slicings"][0]["slices"][2]
    assert z["slice"] == "z" and z["flagged"] and z["values"]["ROC_OVR:average=macro"] is None
    assert "undefined in this slice (1 case)" in z["why_null"]["ROC_OVR:average=macro"]
    # the table under the per-class one, and one CSV table
    code, out, _ = run_cli([*args, "--by", "site"], capsys)
    assert code == 0
    lines = out.splitlines()
    at = lines.index("slices by site (3):")
    assert lines.index("per class:") < at
    assert lines[at + 1].split()[:5] == ["slice", "rows", "cases", "weight", "ROC_OVR:average=macro"]
    assert lines[at + 3].split()[:4] == ["y", "4", "3", "5"]  # a row of weight 0 is a row, not a case
    code, out, _ = run_cli([*args, "--by", "site", "--format", "csv"], capsys)
    f = pd.read_csv(io.StringIO(out))
    assert f["slice"].tolist() == ["x", "y", "z"] and f["positives"].isna().all()
    assert f["ACC_MC"].tolist() == pytest.approx(r.slices.by_group("site")["ACC_MC"].tolist())


def test_k_labels_by_slice_are_the_librarys(tmp_path, capsys):
    text = (
        "y_a,y_b,p_a,p_b,site\n1,0,0.9,0.2,x\n0,1,0.3,0.8,x\n1,1,0.6,0.4,y\n0,0,0.2,0.3,y\n"
        "1,0,0.4,0.6,x\n0,1,0.7,0.9,y\n1,1,0.8,0.3,z\n"
    )
    p = tmp_path / "l.csv"
    p.write_text(text)
    code, out, err = run_cli(
        ["eval", str(p), "--labels", "y_a,y_b", "--score", "p_a,p_b", "--by", "site", "-m", "roc_ml,hamming",
         "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    df = pd.read_csv(io.StringIO(text))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(df[["y_a", "y_b"]], df[["p_a", "p_b"]].rename(columns=lambda c: "y" + c[1:]),
                              measures=["roc_ml", "hamming"], by={"site": df["site"]})  # fmt: skip
    assert json.loads(out)["slices"] == _slices_of(r)
    assert [s["slice"] for s in json.loads(out)["slices"]["slicings"][0]["slices"]] == ["x", "y", "z"]
    base = [
        "eval",
        str(p),
        "--labels",
        "y_a,y_b",
        "--score",
        "p_a,p_b",
        "--by",
        "site",
        "-m",
        "roc_ml,hamming",
    ]
    code, out, _ = run_cli([*base, "--format", "csv"], capsys)
    f = pd.read_csv(io.StringIO(out))
    assert f["HAMMING"].tolist() == pytest.approx(r.slices.by_group("site")["HAMMING"].tolist())
    code, out, _ = run_cli(base, capsys)
    lines = out.splitlines()
    at = lines.index("slices by site (3):")
    assert lines.index("per label:") < at and lines[at + 1].split() == [
        "slice", "rows", "cases", "ROC_ML:average=macro", "HAMMING"
    ]  # fmt: skip


def test_regression_by_slice_is_the_librarys(tmp_path, capsys):
    text = "y,p,q,site\n1.5,1.2,1.4,x\n2.5,2.9,2.0,y\n3.25,3.0,3.3,x\n4.0,3.5,4.4,y\n5.0,5.5,4.9,z\n"
    p = tmp_path / "r.csv"
    p.write_text(text)
    df = pd.read_csv(io.StringIO(text))
    code, out, err = run_cli(
        ["eval", str(p), "--target", "y", "--score", "p", "--by", "site", "--task", "regression", "--format",
         "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(df, target="y", score="p", task="regression", by=["site"])
    assert json.loads(out)["slices"] == _slices_of(r)
    z = json.loads(out)["slices"]["slicings"][0]["slices"][2]
    assert z["values"]["R2"] is None and "every target is equal (their variance is 0)" in z["why_null"]["R2"]
    assert "R2 and EXPVAR are undefined in 1 of 3 slices of 'site'" in err
    code, out, _ = run_cli(["eval", str(p), "--target", "y", "--score", "p", "--by", "site", "-m", "mae,r2",
                            "--format", "csv"], capsys)  # fmt: skip
    f = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert list(f.columns) == [
        "slicing", "slice", "rows", "cases", "weight", "positives", "negatives", "flagged", "MAE", "R2",
        "why_MAE", "why_R2",
    ]  # fmt: skip
    assert f["R2"].tolist()[2] == "nan" and f["why_R2"].tolist()[2].startswith(
        "undefined in this slice (1 case)"
    )
    # two models: each one's slices, named
    code, out, err = run_cli(
        ["eval", str(p), "--target", "y", "--score", "p,q", "--by", "site", "--task", "regression"], capsys
    )
    assert code == 0, err
    lines = out.splitlines()
    assert (
        lines[0].split()[0] == "model"
        and "p: slices by site (3):" in lines
        and "q: slices by site (3):" in lines
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rq = perfeval.evaluate(df, target="y", score="q", task="regression", by=["site"])
    at = lines.index("q: slices by site (3):")
    x = lines[at + 2].split()
    assert x[0] == "x" and x[3] == f"{rq.slices.by_group('site')['MAE'].iloc[0]:.6f}"


def test_several_models_each_with_its_slices(table, capsys):
    df = pd.read_csv(io.StringIO(CSV))
    df["q"] = [0.3, 0.8, 0.9, 0.1, 0.5, 0.2, 0.6, 0.4]
    p = str(table).replace("t.csv", "two.csv")
    df.to_csv(p, index=False)
    base = ["eval", p, "--target", "y", "--score", "p,q", "--weight", "w", "--by", "country", "-m", "roc,acc"]
    code, out, err = run_cli([*base, "--format", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert list(d["models"]) == ["p", "q"]
    for name in ("p", "q"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = perfeval.evaluate(
                df, target="y", score=name, weight="w", measures=["roc", "acc"], by=["country"]
            )
        assert d["models"][name]["slices"] == _slices_of(r)
    code, out, _ = run_cli([*base, "--format", "csv"], capsys)
    f = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert list(f.columns[:3]) == ["model", "slicing", "slice"]
    assert f["model"].tolist() == ["p"] * 3 + ["q"] * 3 and f["slice"].tolist() == ["DE", "FR", "US"] * 2
    code, out, _ = run_cli(base, capsys)
    lines = out.splitlines()
    assert lines[0].split() == ["model", "ROC", "ACC"]
    assert lines.index("p: slices by country (3):") < lines.index("q: slices by country (3):")
    assert (
        "q: gaps by country (difference: max - min; ratio: min / max; worst: by the measure's direction):"
        in lines
    )


def test_a_slice_column_is_read_as_values_and_its_problems_named_by_line(tmp_path, capsys):
    p = tmp_path / "v.csv"
    p.write_text(
        "y,p,uid,age,c\n1,0.9,7551477366728426121,1.5,a\n0,0.2,7551477366728426122,2,\n1,0.4,7551477366728426121,3,b\n"
    )
    code, out, _ = run_cli(
        ["eval", str(p), "--target", "y", "--score", "p", "--by", "uid", "-m", "acc", "--format", "json"],
        capsys,
    )
    assert code == 0
    keys = [s["slice"] for s in json.loads(out)["slices"]["slicings"][0]["slices"]]
    assert keys == [7551477366728426121, 7551477366728426122]  # 64-bit ids, never through a float
    code, _, err = run_cli(
        ["eval", str(p), "--target", "y", "--score", "p", "--by", "age", "-m", "acc"], capsys
    )
    assert code == 1 and "line 2" in err and "'age'" in err and "'1.5', a float" in err
    code, _, err = run_cli(
        ["eval", str(p), "--target", "y", "--score", "p", "--by", "c", "-m", "acc"], capsys
    )
    assert code == 1 and "by column 'c' holds a missing value (an empty field, or a null) at line 3" in err
    assert "--missing-slice" in err
    code, out, _ = run_cli(
        [
            "eval",
            str(p),
            "--target",
            "y",
            "--score",
            "p",
            "--by",
            "c",
            "--missing-slice",
            "-m",
            "acc",
            "--format",
            "csv",
        ],
        capsys,
    )
    assert code == 0 and [line.split(",")[1] for line in out.splitlines()[1:]] == ["a", "b", "<missing>"]


def test_weights_and_flags_in_the_table(table, capsys):
    code, out, _ = run_cli(
        ["eval", table, "--target", "y", "--score", "p", "--weight", "w", "--by", "country", "-m", "acc"],
        capsys,
    )
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("DE "))
    # rows, cases (the row of weight 0 is none), weight, positives, negatives (weights), ACC
    assert row.split() == ["DE", "3", "2", "3", "2", "1", "0.333333"]


def test_a_file_over_the_stream_size_is_read_whole_for_its_slices(tmp_path, capsys, monkeypatch):
    """A large file is streamed unasked; with --by it is read whole, so that no slice is dropped."""
    import perfeval.cli.commands.eval as ev

    monkeypatch.setattr(ev, "STREAM_BYTES", 10)  # every file is "large"
    p = tmp_path / "k.csv"
    p.write_text(CLASSES)
    code, out, err = run_cli(
        ["eval", str(p), "--target", "y", "--score", "a,b,c", "--classes", "0,1,2", "--by", "site",
         "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert [s["slice"] for s in json.loads(out)["slices"]["slicings"][0]["slices"]] == ["x", "y", "z"]
    q = tmp_path / "l.csv"
    q.write_text("y_a,y_b,p_a,p_b,site\n1,0,0.9,0.2,x\n0,1,0.3,0.8,y\n1,1,0.6,0.4,y\n0,0,0.2,0.3,x\n")
    code, out, err = run_cli(
        ["eval", str(q), "--labels", "y_a,y_b", "--score", "p_a,p_b", "--by", "site", "-m", "hamming",
         "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert [s["slice"] for s in json.loads(out)["slices"]["slicings"][0]["slices"]] == ["x", "y"]


@pytest.mark.parametrize("how", [[], ["--stream"], ["parquet"]])
def test_a_float_slice_column_is_refused_in_words_for_slices(tmp_path, capsys, how):
    """A float --by column: one line naming the column, saying a slice is a value and to bin it first
    (not the words of an id column); a float --group keeps an id's words."""
    rows = "y,p,age,g\n1,0.9,31.5,1.5\n0,0.2,40.0,2\n1,0.4,52.25,3\n"
    p = tmp_path / "f.csv"
    p.write_text(rows)
    if how == ["parquet"]:
        pd = pytest.importorskip("pandas")
        pytest.importorskip("pyarrow")
        p = tmp_path / "f.parquet"
        pd.read_csv(tmp_path / "f.csv").to_parquet(p)
        how = []
    base = ["eval", str(p), "--target", "y", "--score", "p", "-m", "acc", *how]
    code, out, err = run_cli([*base, "--by", "age"], capsys)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "by column 'age' (--by)" in err and ("a float" in err or "floating-point numbers" in err)
    assert "a slice is a value" in err and "bin the column first (pandas.cut)" in err
    assert "ids must be" not in err
    code, _, err = run_cli([*base, "--group", "g"], capsys)
    assert code == 1 and "ids must be integers or text" in err and "a slice" not in err


def test_intersections_of_more_than_ten_columns_are_one_line(tmp_path, capsys):
    cols = [f"c{i}" for i in range(11)]
    rows = [",".join(["y", "p", *cols])]
    rows += [
        ",".join([str(k % 2), f"{(k * 37 % 100) / 100}", *[str((k >> i) % 2) for i in range(11)]])
        for k in range(30)
    ]
    p = tmp_path / "wide.csv"
    p.write_text("\n".join(rows) + "\n")
    for command in ("eval", "report"):
        code, out, err = run_cli(
            [command, str(p), "--target", "y", "--score", "p", "--by", ",".join(cols), "--intersections",
             "-m", "roc", *(["-o", str(tmp_path / "r.html")] if command == "report" else [])],
            capsys,
        )  # fmt: skip
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "--intersections of 11 --by columns would make 2,047 slicings" in err and "at most 10" in err
    assert not (tmp_path / "r.html").exists()
