"""``perfeval report`` and ``perfeval plot`` of a regression target (docs/plots.md, "A regression
target"): a CSV written by pandas with a float target and prediction columns.  The report's numbers
read back equal ``perfeval eval``'s (over all rows, over groups, each group's) and ``perfeval.ci``'s;
the plot kinds ``predicted`` and ``residuals`` draw; the combinations that do not apply are one line
with the right exit status.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import perfeval  # noqa: E402
from perfeval.cli.main import main  # noqa: E402
from test_report_html import parse  # noqa: E402

DEFAULTS = ("MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR")


def houses(n: int = 600, seed: int = 7):
    rng = np.random.default_rng(seed)
    price = rng.lognormal(12, 0.5, n)  # a large mean: R2's sums must keep their digits
    frame = pd.DataFrame(
        {
            "price": price,
            "pred": price * rng.normal(1, 0.1, n),
            "pred2": price + rng.normal(0, 30000, n),
            "region": rng.choice(["north", "south", "east", "west"], n, p=[0.4, 0.3, 0.2, 0.1]),
            "w": rng.choice([1.0, 2.0, 0.5, 0.0], n),
        }
    )
    frame.loc[frame["region"] == "west", "price"] = 250000.0  # one group of equal targets: R2 undefined
    return frame


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("houses")
    frame = houses()
    path = d / "houses.csv"
    frame.to_csv(path, index=False)  # pandas' floats, as a user's file
    return frame, path, d


def _run(argv, capsys):
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _eval(capsys, path, score, extra=()):
    rc, out, _err = _run(
        ["eval", path, "--target", "price", "--score", score, "--format", "json", *extra], capsys
    )
    assert rc == 0
    return json.loads(out)["measures"]


def _td(p, model, measure, col):
    found = [
        t
        for tag, a, t in p.cells
        if tag == "td"
        and a.get("data-model") == model
        and a.get("data-measure") == measure
        and a.get("data-col") == col
    ]
    assert len(found) == 1, (model, measure, col, found)
    return found[0]


def test_report_of_a_pandas_float_target_is_evals_numbers(data, capsys):
    frame, path, d = data
    out = d / "r.html"
    rc, _out, err = _run(["report", path, "--target", "price", "--score", "pred,pred2", "-o", out], capsys)
    assert rc == 0, err
    assert "regression (the target column 'price' holds" in err  # said, never a positive label
    text = out.read_text(encoding="utf-8")
    assert "pos-label" not in text
    p = parse(text)
    for model in ("pred", "pred2"):
        ev = _eval(capsys, path, model)
        assert tuple(ev) == DEFAULTS  # eval's regression defaults
        for lab in DEFAULTS:
            assert _td(p, model, lab, "overall") == f"{ev[lab]['value']:.6f}", (model, lab)
    assert "data-kind='predicted'" in text and "data-kind='residuals'" in text
    assert "600 cases, a point each" in text  # what is drawn is said


def test_grouped_report_is_eval_group_and_per_group(data, capsys):
    frame, path, d = data
    out = d / "g.html"
    argv = ["report", path, "--target", "price", "--score", "pred", "--group", "region", "-m", "mae,rmse,r2"]
    rc, _o, err = _run([*argv, "-o", out], capsys)
    assert rc == 0, err
    text = out.read_text(encoding="utf-8")
    p = parse(text)
    pooled = _eval(capsys, path, "pred", ["-m", "mae,rmse,r2"])
    grouped = _eval(capsys, path, "pred", ["-m", "mae,rmse,r2", "--group", "region", "--per-group"])
    for lab in ("MAE", "RMSE_REG", "R2"):
        assert _td(p, "pred", lab, "overall") == f"{pooled[lab]['value']:.6f}"
        assert _td(p, "pred", lab, "mean") == f"{grouped[lab]['value']:.6f}"
        assert _td(p, "pred", lab, "groups") == f"{grouped[lab]['defined_groups']} of 4"
    assert _td(p, "pred", "R2", "groups") == "3 of 4"  # west's targets are all equal
    # the per-group table: each group's value, undefined where eval's is null
    tables = [rows for a, rows in p.tables if a.get("class") == "groups"]
    assert len(tables) == 1
    head, *rows = tables[0]
    assert head == ["group", "rows", "MAE", "RMSE_REG", "R2"]
    for row in rows:
        key = row[0]
        assert int(row[1]) == int((frame["region"] == key).sum())
        for lab, cell in zip(("MAE", "RMSE_REG", "R2"), row[2:], strict=True):
            v = grouped[lab]["per_group"][key]
            assert cell == ("undefined" if v is None else f"{v:.6f}"), (key, lab)
    assert "data-kind='predicted-groups'" in text


def test_weighted_report_with_intervals_is_cis(data, capsys):
    frame, path, d = data
    out = d / "w.html"
    argv = ["report", path, "--target", "price", "--score", "pred,pred2", "--weight", "w", "-m", "mae,r2"]
    rc, _o, err = _run([*argv, "--ci", "0.9", "--n-boot", "100", "--seed", "2", "-o", out], capsys)
    assert rc == 0, err
    text = out.read_text(encoding="utf-8")
    p = parse(text)
    w = frame["w"].to_numpy()
    for model in ("pred", "pred2"):
        ev = _eval(capsys, path, model, ["-m", "mae,r2", "--weight", "w"])
        ci = perfeval.ci(
            frame["price"], frame[model], measures=["mae", "r2"], task="regression", sample_weight=w,
            level=0.9, n_boot=100, seed=2,
        )  # fmt: skip
        for lab in ("MAE", "R2"):
            iv = ci[lab]
            assert iv.estimate == pytest.approx(ev[lab]["value"], rel=1e-15, abs=0)
            want = f"{ev[lab]['value']:.6f} [{iv.low:.6f}, {iv.high:.6f}]"
            assert _td(p, model, lab, "overall") == want
    assert "Comparisons with pred" in text  # several models: each against the first
    assert f"{int((w != 0).sum()):,}" in text and "rows of weight 0 left out" in text


@pytest.mark.parametrize("kind", ["predicted", "residuals"])
def test_plot_kinds_of_a_regression_target(data, capsys, kind):
    _frame, path, d = data
    for extra in ([], ["--group", "region"], ["--weight", "w"]):
        out = d / f"{kind}{len(extra)}.png"
        rc, _o, err = _run(
            ["plot", kind, path, "--target", "price", "--score", "pred,pred2", *extra, "-o", out], capsys
        )
        assert rc == 0, err
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_many_cases_are_binned_every_case_counted_and_said(tmp_path, capsys):
    frame = houses(n=6000, seed=3)
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    rc, _o, err = _run(
        ["plot", "predicted", path, "--target", "price", "--score", "pred", "-o", tmp_path / "b.png"], capsys
    )
    assert rc == 0
    assert "6,000 cases, more than 5,000: drawn as hexagons" in err
    from perfeval.plot import predicted_figure

    fig = predicted_figure(frame["price"], {"a": frame["pred"]}, max_points=5000)
    hexes = fig.axes[0].collections[0]
    assert sum(hexes.get_array()) == 6000  # every case in a hexagon, none left out
    assert "6,000 cases binned into hexagons" in fig.perfeval_said["a"]
    fig = predicted_figure(frame["price"][:100], {"a": frame["pred"][:100]})
    assert len(fig.axes[0].collections[0].get_offsets()) == 100  # points, one a case
    line = [ln for ln in fig.axes[0].lines if ln.get_label().startswith("y = x")][0]
    xs, ys = line.get_data()
    assert list(xs) == list(ys)  # the line y = x


def test_residuals_are_actual_minus_predicted():
    from perfeval.plot import residuals_figure

    y = np.array([1.0, 2.0, 4.0, 8.0])
    p = np.array([1.5, 2.0, 3.0, 9.0])
    fig = residuals_figure(y, {"m": p}, sample_weight=np.array([1.0, 1.0, 0.0, 2.0]))
    pts = fig.axes[0].collections[0].get_offsets()
    assert pts.tolist() == [[1.5, -0.5], [2.0, 0.0], [9.0, -1.0]]  # weight 0: no case
    heights = [r.get_height() for r in fig.axes[1].patches]
    assert sum(heights) == 4.0  # the histogram is weighted


PLOT = "plot {kind} {p} --target price --score pred -o {d}/x.png"
REPORT = "report {p} --target price --score pred -o {d}/x.html"


@pytest.mark.parametrize(
    "argv, rc, said",
    [
        (PLOT.format(kind="roc", p="{p}", d="{d}"), 1,
         "looks like a regression target; a binary curve needs 0/1 targets; `perfeval plot predicted` or "
         "`residuals` draws it as a regression target"),
        (PLOT.format(kind="roc", p="{p}", d="{d}") + " --task regression", 2,
         "--task regression: `perfeval plot roc` is a curve of a binary target (0/1); a regression target's "
         "plots: predicted, residuals"),
        (PLOT.format(kind="predicted", p="{p}", d="{d}") + " --task binary", 2,
         "--task binary: `perfeval plot predicted` draws a regression target's predictions"),
        (PLOT.format(kind="residuals", p="{p}", d="{d}") + " -t 0.3", 2,
         "-t does not apply to `perfeval plot residuals` of a regression target"),
        (PLOT.format(kind="predicted", p="{p}", d="{d}") + " --pos-label 1", 2,
         "--pos-label does not apply to `perfeval plot predicted` of a regression target"),
        (PLOT.format(kind="predicted", p="{p}", d="{d}") + " --target region", 1,
         "line 2: the target column 'region' holds 'east', not a number"),
        (REPORT + " -m mae,roc", 2, "ROC is a binary measure and the target is a regression target"),
        (REPORT + " --tie-bounds", 2, "--tie-bounds does not apply to the report of a regression target"),
        (PLOT.format(kind="predicted", p="{p}", d="{d}") + " --bins mass", 2,
         "--bins does not apply to `perfeval plot predicted` of a regression target"),
        (PLOT.format(kind="predicted", p="{p}", d="{d}") + " --n-bins 10", 2,
         "--n-bins does not apply to `perfeval plot predicted` of a regression target"),
        (REPORT + " --by region", 2, "--by does not apply to the report of a regression target"),
        (REPORT + " --ci 0.9 --method delong", 2, "--method delong has no interval of a regression measure"),
        (REPORT + " --task binary", 1,
         "looks like a regression target; the regression measures read it (-m mae,rmse,r2 or --task "
         "regression)"),
    ],
)  # fmt: skip
def test_bad_combinations_are_one_line(data, capsys, argv, rc, said):
    _frame, path, d = data
    got, _out, err = _run(argv.format(p=path, d=d).split(), capsys)
    assert got == rc, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("perfeval: error: "), err
    assert said in lines[0]
    assert "Traceback" not in err


def test_a_non_finite_target_is_said_at_its_line(tmp_path, capsys):
    path = tmp_path / "nan.csv"
    path.write_text("price,pred\n1.5,1.2\n2.5,2.4\ninf,3.1\n4.25,4.0\n")
    for argv in (["report", path, "--target", "price", "--task", "regression", "-o", tmp_path / "r.html"],
                 ["plot", "predicted", path, "--target", "price", "-o", tmp_path / "r.png"]):  # fmt: skip
        rc, _o, err = _run(argv, capsys)
        assert rc == 1
        assert "line 4" in err and "'price' holds inf" in err and len(err.strip().splitlines()) == 1


def test_rows_all_of_weight_0_draw_no_case_and_warn_nothing(tmp_path, capsys):
    path = tmp_path / "zero.csv"
    path.write_text("price,pred,w\n1.5,1.2,0\n2.5,2.4,0\n3.5,3.1,0\n")
    for kind in ("predicted", "residuals"):
        argv = [
            "plot",
            kind,
            path,
            "--target",
            "price",
            "--score",
            "pred",
            "--weight",
            "w",
            "-o",
            tmp_path / "z.png",
        ]
        rc, _o, err = _run(argv, capsys)
        assert rc == 0 and "warning" not in err, err
    from perfeval.plot import predicted_figure

    fig = predicted_figure([1.5, 2.5], {"m": [1.2, 2.4]}, sample_weight=[0, 0])
    assert "no case to draw" in fig.perfeval_said["m"]


def test_a_large_file_is_told_by_its_first_chunk(data, capsys, monkeypatch, tmp_path):
    """Over LARGE_BYTES the binary report reads in chunks: the regression target is told by the first
    chunk's targets, and a binary file keeps its chunked reading."""
    from perfeval.cli import load

    monkeypatch.setattr(load, "LARGE_BYTES", 1)
    _frame, path, d = data
    rc, _o, err = _run(["report", path, "--target", "price", "--score", "pred", "-o", d / "big.html"], capsys)
    assert rc == 0 and "regression (the target column 'price' holds" in err, err
    binary = tmp_path / "clicks.csv"
    binary.write_text("y,s\n" + "".join(f"{i % 2},{(i * 7 % 10) / 10}\n" for i in range(40)))
    rc, _o, err = _run(
        ["report", binary, "--target", "y", "--score", "s", "-m", "roc", "-o", d / "b.html"], capsys
    )
    assert rc == 0 and "regression" not in err, err


def test_grouped_report_says_why_the_pooled_value_is_undefined(tmp_path, capsys):
    """With groups, a measure undefined over all rows pooled but not in every group (MAPE: a target
    of 0 in one group) says why under the table, as `perfeval eval` does (it said nothing: only the
    means over groups were looked at)."""
    path = tmp_path / "zero.csv"
    frame = pd.DataFrame(
        {"y": [0.0, 2.0, 3.0, 1.5, 2.5, 4.0], "p": [0.5, 2.2, 2.7, 1.4, 2.9, 3.5], "g": list("aabbbb")}
    )
    frame.to_csv(path, index=False)
    out = tmp_path / "z.html"
    rc, _o, err = _run(["report", path, "--target", "y", "--score", "p", "--group", "g", "-m", "mae,mape",
                        "-o", out], capsys)  # fmt: skip
    assert rc == 0, err
    text = out.read_text(encoding="utf-8")
    assert _td(parse(text), "p", "MAPE", "overall") == "undefined"
    i = text.index("value-notes")
    import re

    notes = re.sub(r"<[^>]+>", "", text[i : text.index("</ul>", i)])
    pooled = "MAPE over all rows pooled is undefined: 1 target is 0 or below 2.2e-16 in size"
    assert pooled + ": a percentage of 0 is undefined" in notes
    assert "MAE" not in notes
