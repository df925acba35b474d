"""Curves, plots and the HTML report: what is drawn equals the computed points (Agg backend)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from perfeval import curves as C  # noqa: E402
from perfeval import plot as P  # noqa: E402
from perfeval.cli.main import main  # noqa: E402
from perfeval.exceptions import InvalidParameterError, MissingDependencyError  # noqa: E402

sk = pytest.importorskip("sklearn.metrics")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = (rng.random(1500) < 0.3).astype(int)
    a = np.round(np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1), 2)
    b = np.round(rng.random(1500), 2)
    return y, {"A": a, "B": b}, rng.integers(0, 5, 1500)


@pytest.mark.parametrize("kind", sorted(C.KINDS))
def test_drawn_lines_are_the_computed_points(data, kind):
    y, models, _ = data
    d = P.CurveDisplay.from_models(y, models, kind=kind).plot()
    assert len(d.lines_) == 2
    for line, (name, s) in zip(d.lines_, models.items(), strict=False):
        curve = C.KINDS[kind](y, s)
        assert np.array_equal(line.get_xdata(), curve.x, equal_nan=True)
        assert np.array_equal(line.get_ydata(), curve.y, equal_nan=True)
        assert line.get_label().startswith(name)
    assert d.ax_.get_xlabel() and d.ax_.get_ylabel()
    labels = [t.get_text() for t in d.ax_.get_legend().get_texts()]
    if kind in ("roc", "pr"):
        assert any("AUC" in t or "AP" in t for t in labels)
    if kind in ("roc", "pr", "lift", "calibration"):
        assert any("chance" in t or "perfect" in t for t in labels)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_curves_against_scikit_learn(data):
    y, models, _ = data
    s = models["A"]
    r = C.roc(y, s)
    fpr, tpr, _ = sk.roc_curve(y, s, drop_intermediate=False)
    assert np.allclose(r.x, fpr) and np.allclose(r.y, tpr) and np.isclose(r.area, sk.roc_auc_score(y, s))
    p = C.precision_recall(y, s)
    prec, rec, _ = sk.precision_recall_curve(y, s)
    assert np.allclose(p.y, prec[:-1][::-1]) and np.allclose(p.x, rec[:-1][::-1])
    assert np.isclose(p.area, sk.average_precision_score(y, s))


def test_calibration_bins_and_operating_point(data):
    y, models, _ = data
    s = models["A"]
    perf = C.calibration(
        y, s
    )  # PERF's CA1 bins: the mean of |y - x| over the 19 bins is CA1 (non-empty bins)
    from perfeval import evaluate

    assert len(perf.x) <= 19 and np.all(perf.extra["counts"] > 0)
    q = C.calibration(y, s, bins="quantile", n_bins=5)
    assert (
        len(q.x) == 5
        and abs(q.extra["counts"].max() - q.extra["counts"].min()) <= 0.35 * q.extra["counts"].mean()
    )
    u = C.calibration(y, s, bins="uniform", n_bins=10)
    assert np.all(np.diff(u.x) > 0)
    h = C.summary(y, s)
    fp, tp = P.operating_point("roc", C.roc(h), h, 0.5)
    pred = s >= 0.5
    assert np.isclose(tp, (pred & (y == 1)).sum() / (y == 1).sum()) and np.isclose(
        fp, (pred & (y == 0)).sum() / (y == 0).sum()
    )
    assert evaluate(y, s, measures=["ca1"])["CA1"] > 0


def test_small_multiples_and_saving(data, tmp_path):
    y, models, g = data
    fig = P.plot_by_group("roc", y, models["A"], g, max_groups=4, ncols=2)
    drawn = [ax for ax in fig.axes if ax.lines]
    assert len(drawn) == 4
    P.save(fig, str(tmp_path / "g.svg"))
    assert (tmp_path / "g.svg").read_text().startswith("<?xml")
    with pytest.raises(InvalidParameterError, match=r"\.png, \.svg or \.pdf"):
        P.save(fig, str(tmp_path / "g.jpg"))


@pytest.fixture
def table(tmp_path, data):
    y, models, g = data
    path = tmp_path / "m.csv"
    path.write_text(
        "label,model_a,model_b,user\n"
        + "".join(f"{a},{b},{c},u{d}\n" for a, b, c, d in zip(y, models["A"], models["B"], g, strict=False))
    )
    return path


@pytest.mark.parametrize("kind", sorted(C.KINDS))
def test_plot_command(table, tmp_path, kind):
    out = tmp_path / f"{kind}.png"
    assert (
        main(["plot", kind, str(table), "--target", "label", "--score", "model_a,model_b", "-o", str(out)])
        == 0
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_holds_every_table_and_image(table, tmp_path):
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                str(table),
                "--target",
                "label",
                "--score",
                "model_a,model_b",
                "--group",
                "user",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    for kind in ("roc", "pr", "lift", "calibration", "acc", "cost", "roc-groups"):
        assert f"data-kind='{kind}' src='data:image/png;base64," in text, kind
    assert '<table class="measures grouped">' in text and '<table class="groups">' in text
    assert '<table class="summary">' in text and ">1,500<" in text  # rows in the input summary
    assert "perfeval 0.1.0" in text and "perfeval report" in text and "--group user" in text
    assert "http" not in re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", text)  # self-contained


def test_missing_matplotlib_gives_the_install_hint(monkeypatch, data):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    y, models, _ = data
    with pytest.raises(MissingDependencyError, match=r"pip install 'perfeval\[plot\]'"):
        P.CurveDisplay.from_models(y, models, kind="roc").plot()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not CHROMIUM, reason="headless Chromium not installed (apt-get install chromium)")
def test_report_renders_in_headless_chromium(table, tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", str(table), "--target", "label", "--score", "model_a", "-o", str(out)]) == 0
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1200,2000",
            f"--screenshot={shot}",
            out.as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.exists() and shot.stat().st_size > 50_000
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={tmp_path / 'profile2'}",
            "--dump-dom",
            out.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        text=True,
    ).stdout
    assert dom.count("<img") == 6 and "Evaluation report" in dom


def test_large_files_are_read_in_chunks_with_the_same_result(table, tmp_path, monkeypatch):
    import perfeval.cli.load as cli

    outs = []
    for large in (1 << 40, 1):
        monkeypatch.setattr(cli, "LARGE_BYTES", large)
        numeric = tmp_path / "n.csv"  # numbers only: the chunked reader applies
        numeric.write_text("".join(line.rsplit(",", 1)[0] + "\n" for line in table.read_text().splitlines()))
        out = tmp_path / f"r{large}.html"
        assert (
            main(["report", str(numeric), "--target", "1", "--score", "2,3", "-m", "roc,apr", "-o", str(out)])
            == 0
        )
        text = out.read_text()
        outs.append(re.search(r'<table class="measures">.*?</table>', text, re.S).group(0))
    assert outs[0] == outs[1]


def test_report_with_intervals_and_comparisons(tmp_path):
    from perfeval.stats import ci, compare

    rng = np.random.default_rng(3)
    y = (rng.random(600) < 0.4).astype(int)
    a, b = np.round(rng.normal(size=600) + y, 4), np.round(rng.normal(size=600) + 0.5 * y, 4)
    (tmp_path / "ab.csv").write_text(
        "y,a,b\n" + "".join(f"{t},{x},{z}\n" for t, x, z in zip(y, a, b, strict=False))
    )
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                str(tmp_path / "ab.csv"),
                "--target",
                "y",
                "--score",
                "a,b",
                "-m",
                "roc,apr",
                "--ci",
                "0.9",
                "--n-boot",
                "200",
                "--seed",
                "5",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    iv = ci(y, b, measures=["roc", "apr"], level=0.9, n_boot=200, seed=5)["APR"]
    assert f"[{iv.low:.6f}, {iv.high:.6f}]" in text
    c = compare(y, b, a, measures=["roc", "apr"], level=0.9, n_boot=200, seed=5)["ROC"]
    assert "Comparisons with a" in text and f"[{c.low:.6f}, {c.high:.6f}]" in text
    assert "90% confidence intervals (bca bootstrap, 200 replicates, seed 5, cases resampled)" in text


def test_report_comparisons_are_compares_delong_and_holm_included(tmp_path, capsys):
    """The report's comparisons say how they were made and are `perfeval compare`'s numbers: DeLong's
    test when --method delong (they were a bca bootstrap, said nowhere), and with three models the
    Holm-corrected p-values beside the raw ones."""
    import json

    rng = np.random.default_rng(4)
    y = (rng.random(500) < 0.4).astype(int)
    cols = {k: np.round(rng.normal(size=500) + s * y, 4) for k, s in (("a", 1.0), ("b", 0.6), ("c", 0.8))}
    (tmp_path / "t.csv").write_text(
        "y,a,b,c\n" + "".join(f"{t},{x},{z},{w}\n" for t, x, z, w in zip(y, *cols.values(), strict=True))
    )
    base = [str(tmp_path / "t.csv"), "--target", "y", "--ci", "0.95", "--n-boot", "200"]
    out = tmp_path / "r.html"
    assert main(["report", *base, "--score", "a,b", "-m", "roc", "--method", "delong", "-o", str(out)]) == 0
    capsys.readouterr()
    assert (
        main(["compare", *base[:3], "--score", "a,b", "-m", "roc", "--method", "delong", "--format", "json"])
        == 0
    )
    row = json.loads(capsys.readouterr().out)["comparisons"][0]
    text = out.read_text()
    assert "DeLong&#x27;s test, on the same cases" in text
    assert f"[{row['low']:.6f}, {row['high']:.6f}]" in text and f"<td>{row['p_value']:.4g}</td>" in text
    assert main(["report", *base, "--score", "a,b,c", "-m", "roc,apr", "-o", str(out)]) == 0
    capsys.readouterr()
    assert (
        main(
            ["compare", *base[:3], "--score", "a,b,c", "-m", "roc,apr", "--n-boot", "200", "--format", "json"]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)["comparisons"]
    text = out.read_text()
    assert (
        "ROC: DeLong&#x27;s test; APR: paired bca bootstrap, 200 replicates, seed 0, cases resampled" in text
    )
    assert "p (holm)" in text
    for r in rows:
        p, adj = (
            ("\u2264" if bound else "") + f"{v:.4g}"
            for v, bound in ((r["p_value"], r["p_at_floor"]), (r["p_adjusted"], r["p_adjusted_bound"]))
        )
        cells = f"<td>{p}</td><td>{adj}</td><td>{r['method']}</td>"
        assert cells in text.replace("\n", ""), (r, cells)


def test_report_with_tie_bounds(tmp_path):
    """--tie-bounds adds each measure's range over the orders of the tied cases, per model, and the
    share of tied pairs; the ranges are evaluate(..., tie_bounds=True)'s."""
    import perfeval

    y = [1, 0, 1, 0, 1, 0]
    a, b = [0.9, 0.5, 0.5, 0.1, 0.5, 0.5], [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    path = tmp_path / "t.csv"
    path.write_text("y,a,b\n" + "".join(f"{p},{q},{r}\n" for p, q, r in zip(y, a, b, strict=True)))
    out = tmp_path / "r.html"
    args = [
        "report",
        str(path),
        "--target",
        "y",
        "--score",
        "a,b",
        "-m",
        "roc,ca2",
        "--tie-bounds",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    text = out.read_text()
    assert '<table class="tie-bounds">' in text
    r = perfeval.evaluate(y, a, measures=["roc"], tie_bounds=True).results["ROC"]
    assert f"{r.tie_min:.6f} \u2013 {r.tie_max:.6f}" in text and r.tie_min < r.tie_max
    assert "<td>0.666667 \u2013 0.666667</td>" in text  # b has no ties: min = max = its value
    assert "no exact bound" in text  # CA2


# -- scikit-learn's Displays: the same lines, labels and attributes as scikit-learn draws ------------------
skplot = pytest.importorskip("sklearn.metrics")


def _line(d):
    return np.asarray(d.line_.get_xdata(), float), np.asarray(d.line_.get_ydata(), float)


def _same_drawing(ours, theirs):
    (ox, oy), (tx, ty) = _line(ours), _line(theirs)
    assert len(ox) == len(tx) and np.allclose(ox, tx, rtol=1e-12, atol=1e-12)
    assert np.allclose(oy, ty, rtol=1e-12, atol=1e-12)
    assert ours.line_.get_label() == theirs.line_.get_label()
    assert ours.line_.get_drawstyle() == theirs.line_.get_drawstyle()
    assert ours.ax_.get_xlabel() == theirs.ax_.get_xlabel()
    assert ours.ax_.get_ylabel() == theirs.ax_.get_ylabel()
    assert ours.ax_.get_xlim() == theirs.ax_.get_xlim() and ours.ax_.get_aspect() == theirs.ax_.get_aspect()
    legend = [t.get_text() for t in ours.ax_.get_legend().get_texts()]
    assert legend == [t.get_text() for t in theirs.ax_.get_legend().get_texts()]
    assert ours.ax_.get_legend()._loc == theirs.ax_.get_legend()._loc


@pytest.mark.parametrize("chance", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("drop", [False, True])
def test_displays_draw_what_scikit_learn_draws(data, chance, weighted, drop):
    import matplotlib.pyplot as plt

    y, models, g = data
    s = models["A"]
    w = (g + 1) / 4.0 if weighted else None
    kw = dict(sample_weight=w, drop_intermediate=drop, plot_chance_level=chance)
    for ours_cls, theirs_cls in (
        (P.RocCurveDisplay, skplot.RocCurveDisplay),
        (P.PrecisionRecallDisplay, skplot.PrecisionRecallDisplay),
    ):
        ours = ours_cls.from_predictions(y, s, name="model A", **kw)
        theirs = theirs_cls.from_predictions(y, s, name="model A", **kw)
        _same_drawing(ours, theirs)
        if ours_cls is P.RocCurveDisplay:
            assert np.isclose(ours.roc_auc, theirs.roc_auc, rtol=1e-12)
            assert np.allclose(ours.fpr, theirs.fpr) and np.allclose(ours.tpr, theirs.tpr)
        else:
            assert np.isclose(ours.average_precision, theirs.average_precision, rtol=1e-12)
            assert ours.prevalence_pos_label == theirs.prevalence_pos_label
            assert "AP = " in ours.line_.get_label()
        assert (ours.chance_level_ is None) == (theirs.chance_level_ is None)
        if chance:
            assert np.allclose(ours.chance_level_.get_ydata(), theirs.chance_level_.get_ydata())
            assert ours.chance_level_.get_label() == theirs.chance_level_.get_label()
        plt.close("all")


def test_displays_draw_into_the_given_axes_and_replot(data):
    import matplotlib.pyplot as plt

    y, models, _ = data
    fig, (a1, a2) = plt.subplots(1, 2)
    d = P.RocCurveDisplay.from_predictions(y, models["A"], ax=a1)
    assert d.ax_ is a1 and d.figure_ is fig and d.line_ in a1.lines and d.name == d.estimator_name
    assert d.line_.get_label().startswith("Classifier (AUC = ")  # scikit-learn's default name
    d.plot(ax=a2, name="again", curve_kwargs={"color": "red"}, lw=3)
    assert d.ax_ is a2 and d.line_.get_label().startswith("again (AUC") and d.line_.get_linewidth() == 3
    assert d.line_.get_color() == "red"
    p = P.PrecisionRecallDisplay.from_predictions(y, models["B"], ax=a1, name="B")
    assert p.ax_ is a1 and len(a1.lines) == 2
    plt.close("all")


def test_from_estimator_with_logistic_regression_and_string_labels():
    import matplotlib.pyplot as plt
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(400, 3)), 1)
    y = np.where(X[:, 0] + rng.normal(scale=0.8, size=400) > 0, "spam", "ham")
    for est in (LogisticRegression().fit(X, y), LinearSVC().fit(X, y)):  # predict_proba; decision_function
        for pos_label in (None, "ham", "spam"):
            for ours_cls, theirs_cls in (
                (P.RocCurveDisplay, skplot.RocCurveDisplay),
                (P.PrecisionRecallDisplay, skplot.PrecisionRecallDisplay),
            ):
                ours = ours_cls.from_estimator(est, X, y, pos_label=pos_label)
                theirs = theirs_cls.from_estimator(est, X, y, pos_label=pos_label)
                _same_drawing(ours, theirs)
                assert ours.name == type(est).__name__ and ours.pos_label == (pos_label or "spam")
                assert ours.ax_.get_xlabel().endswith(f"(Positive label: {pos_label or 'spam'})")
                plt.close("all")
    with pytest.raises(InvalidParameterError, match="not a valid label"):
        P.RocCurveDisplay.from_estimator(LogisticRegression().fit(X, y), X, y, pos_label="eggs")
    with pytest.raises(InvalidParameterError, match="pos_label is not specified"):
        P.RocCurveDisplay.from_predictions(y, X[:, 0])


def test_the_multi_model_form_and_threshold_form_remain(data):
    y, models, _ = data
    d = P.RocCurveDisplay.from_models(y, models).plot()
    assert len(d.lines_) == 2 and any("AUC" in t.get_text() for t in d.ax_.get_legend().get_texts())
    d = P.PrecisionRecallDisplay.from_models(y, models).plot()
    assert len(d.lines_) == 2
    d = P.RocCurveDisplay.from_predictions(y, models["A"], name="m", threshold=0.4).plot()
    assert any("score >= 0.4" in t.get_text() for t in d.ax_.get_legend().get_texts())
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("ext,magic", [("pdf", b"%PDF"), ("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_plot_command_writes_pdf_svg_png_by_extension(table, tmp_path, ext, magic, monkeypatch):
    import matplotlib.figure

    used = []
    real = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(
        matplotlib.figure.Figure,
        "savefig",
        lambda self, *a, **k: used.append(k.get("format")) or real(self, *a, **k),
    )
    out = tmp_path / f"roc.{ext}"
    assert main(["plot", "pr", str(table), "--target", "label", "--score", "model_a", "-o", str(out)]) == 0
    assert out.read_bytes()[: len(magic)] == magic and used == [ext]
    if ext == "pdf":
        assert b"%%EOF" in out.read_bytes()[-32:]


def test_save_writes_a_real_pdf_and_refuses_other_names(data, tmp_path, capsys):
    y, models, _ = data
    d = P.RocCurveDisplay.from_predictions(y, models["A"])
    P.save(d.figure_, str(tmp_path / "r.pdf"))
    assert (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"
    with pytest.raises(InvalidParameterError, match=r"\.png, \.svg or \.pdf"):
        P.save(d.figure_, str(tmp_path / "r.jpg"))
    assert main(["plot", "roc", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "x.eps")]) != 0
    err = capsys.readouterr().err
    assert ".png, .svg or .pdf" in err and "Traceback" not in err


def test_displays_built_from_arrays_as_in_scikit_learn():
    import matplotlib.pyplot as plt

    fpr, tpr = np.array([0.0, 0.25, 1.0]), np.array([0.0, 0.75, 1.0])
    ours = P.RocCurveDisplay(fpr=fpr, tpr=tpr, roc_auc=0.75, name="m", pos_label="yes").plot()
    theirs = skplot.RocCurveDisplay(fpr=fpr, tpr=tpr, roc_auc=0.75, name="m", pos_label="yes").plot()
    _same_drawing(ours, theirs)
    prec, rec = np.array([0.5, 0.8, 1.0]), np.array([1.0, 0.5, 0.0])
    ours = P.PrecisionRecallDisplay(prec, rec, average_precision=0.7, prevalence_pos_label=0.4).plot(
        plot_chance_level=True
    )
    theirs = skplot.PrecisionRecallDisplay(prec, rec, average_precision=0.7, prevalence_pos_label=0.4).plot(
        plot_chance_level=True
    )
    _same_drawing(ours, theirs)
    with pytest.raises(InvalidParameterError, match="prevalence_pos_label"):
        P.PrecisionRecallDisplay(prec, rec).plot(plot_chance_level=True)
    plt.close("all")


@pytest.mark.parametrize("weighted", [False, True])
def test_det_display_draws_what_scikit_learn_draws(data, weighted):
    import matplotlib.pyplot as plt
    from sklearn.linear_model import LogisticRegression

    y, models, g = data
    w = (g + 1) / 4.0 if weighted else None
    ours = P.DetCurveDisplay.from_predictions(y, models["A"], sample_weight=w, name="A")
    theirs = skplot.DetCurveDisplay.from_predictions(y, models["A"], sample_weight=w, name="A")
    _same_drawing(ours, theirs)
    assert np.allclose(ours.ax_.get_xticks(), theirs.ax_.get_xticks(), rtol=1e-12)
    assert [t.get_text() for t in ours.ax_.get_xticklabels()] == [
        t.get_text() for t in theirs.ax_.get_xticklabels()
    ]
    X = np.c_[models["A"], models["B"]]
    est = LogisticRegression().fit(X, y)
    _same_drawing(
        P.DetCurveDisplay.from_estimator(est, X, y), skplot.DetCurveDisplay.from_estimator(est, X, y)
    )
    plt.close("all")


def test_a_curve_of_millions_of_points_is_drawn_from_thousands_within_a_cell():
    """A curve of more than 2 x 4096 points is thinned for drawing: every point drawn is a point of
    the curve, the ends and non-finite points stay, and every point left out is within one cell
    (1/4096 of the range) of the last point drawn before it."""
    rng = np.random.default_rng(5)
    n = 300_000
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.normal(size=n) + y
    curve = C.KINDS["roc"](y, s)
    x, yy = P.thinned(curve.x, curve.y)
    assert 2 < len(x) < 3 * P.THIN_CELLS < len(curve.x)
    assert (x[0], yy[0], x[-1], yy[-1]) == (curve.x[0], curve.y[0], curve.x[-1], curve.y[-1])
    # the drawn points are the curve's first point in each cell of a 4096 x 4096 grid over [0, 1]^2
    # (the ROC curve's range), and the last; every point is within a cell of the last drawn before it
    idx = np.flatnonzero(
        np.r_[True, (np.diff(np.floor(curve.x * 4096)) != 0) | (np.diff(np.floor(curve.y * 4096)) != 0)]
    )
    idx = np.union1d(idx, [len(curve.x) - 1])
    assert np.array_equal(curve.x[idx], x) and np.array_equal(curve.y[idx], yy)
    last = idx[np.searchsorted(idx, np.arange(len(curve.x)), side="right") - 1]
    assert np.abs(curve.x - curve.x[last]).max() <= 1 / 4096
    assert np.abs(curve.y - curve.y[last]).max() <= 1 / 4096
    # a NaN and its neighbours are kept (a gap in the line stays a gap)
    xs, ys = curve.x.copy(), curve.y.copy()
    ys[1000] = np.nan
    tx, ty = P.thinned(xs, ys)
    assert np.isnan(ty).sum() == 1 and xs[999] in tx and xs[1001] in tx
    # a short curve is drawn as it is
    short = P.thinned(curve.x[:100], curve.y[:100])
    assert np.array_equal(short[0], curve.x[:100]) and np.array_equal(short[1], curve.y[:100])


def test_a_plot_by_group_says_when_it_draws_only_the_largest_groups(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 2000
    g, y, s = rng.integers(0, 40, n), rng.integers(0, 2, n), rng.random(n)
    fig = P.plot_by_group("roc", y, {"m": s}, g)
    texts = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    texts += [lg.get_title().get_text() for lg in fig.legends]
    assert any("(the 12 largest of 40 groups)" in t for t in texts), texts
    few = P.plot_by_group("roc", y, {"m": s}, g % 5)
    texts = [few._suptitle.get_text()] if few._suptitle is not None else []
    texts += [lg.get_title().get_text() for lg in few.legends]
    assert texts and not any("largest" in t for t in texts), texts
    f = tmp_path / "g.csv"
    f.write_text(
        "u,y,s\n"
        + "".join(f"{a},{b},{c!r}\n" for a, b, c in zip(g.tolist(), y.tolist(), s.tolist(), strict=True))
    )
    assert (
        main(
            [
                "plot",
                "roc",
                str(f),
                "--target",
                "y",
                "--score",
                "s",
                "--group",
                "u",
                "-o",
                str(tmp_path / "p.png"),
            ]
        )
        == 0
    )
    assert "the plot draws the 12 largest of 40 groups" in capsys.readouterr().err


def test_calibration_plot_says_scores_outside_0_1(tmp_path, capsys):
    """Logits drawn as a calibration plot: the rows PERF's bins leave out (or uniform bins clamp) are
    counted on stderr, for `plot calibration` and for the report (whose calibration plot uses PERF's
    bins); scores in [0, 1] draw without a note."""
    f = tmp_path / "l.csv"
    f.write_text("y,p,logit\n1,0.9,2.5\n0,0.2,-1.5\n1,0.6,0.4\n0,0.4,-0.2\n")
    out = str(tmp_path / "c.png")
    base = ["plot", "calibration", str(f), "--target", "y", "-o", out]
    assert main([*base, "--score", "p,logit"]) == 0
    err = capsys.readouterr().err
    assert "but 3 of 4 of 'logit' are outside [0, 1] (the first: 2.5): left out of its bins" in err, err
    assert "'p'" not in err
    assert main([*base, "--score", "logit", "--bins", "uniform"]) == 0
    assert "counted in its first or last bin" in capsys.readouterr().err
    assert main([*base, "--score", "p"]) == 0
    assert "outside [0, 1]" not in capsys.readouterr().err
    html = str(tmp_path / "r.html")
    assert main(["report", str(f), "--target", "y", "--score", "logit", "-m", "roc", "-o", html]) == 0
    assert "3 of 4 of 'logit' are outside [0, 1]" in capsys.readouterr().err
