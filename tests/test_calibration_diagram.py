"""Issue 33: the reliability diagram draws exactly the bins of the calibration error it shows.

The points of the diagram (``perfeval plot calibration``, :func:`perfeval.curves.calibration`, the
HTML report's figure) read back from the drawn line and the bins' counts give, by the textbook
formula, the registry's ECE (ECE_TOP for K classes) of the same bins; the figure names its bins and
draws that value; ``--bins`` speaks the measures' words (width, mass) with the old words as aliases.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import perfeval
from perfeval import curves as C
from perfeval import plot as P
from perfeval.cli.main import main
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import get_measure
from perfeval.plot import html

ORACLE = Path("/tmp/oracle-venv/bin/python")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def ece_of_points(x, y, counts, norm="l1"):
    """The textbook binned calibration error of a diagram's points: each bin's gap between its share
    of positives (y) and its mean score (x), weighted by its weight (counts)."""
    x, y, n = (np.asarray(v, dtype=np.float64) for v in (x, y, counts))
    gap = np.abs(y - x)
    if norm == "max":
        return float(gap.max())
    if norm == "l2":
        return float(np.sqrt(np.sum(n * gap * gap) / n.sum()))
    return float(np.sum(n * gap) / n.sum())


def binary_data(seed, n=3000, weights=False):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 3, n), 2)  # ties: 101 distinct scores
    s[:5] = 1.0  # a score of exactly 1: in the last equal-width bin, as ECE counts it
    y = (rng.random(n) < s**1.3).astype(int)
    w = rng.integers(1, 4, n).astype(float) if weights else None
    return y, s, w


def measure_value(y, s, w, spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, measures=[spec], sample_weight=w)
    return next(iter(r.results.values())).value


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize(("bins", "n_bins"), [("width", 15), ("mass", 10), ("width", 7), ("mass", 3)])
def test_the_drawn_points_give_the_registrys_ece(bins, n_bins, weights):
    """Read the points off the drawn line, and the bins' weights off the curve: their ECE is the
    registry's ECE of the same bins, and the legend draws that very value."""
    y, s, w = binary_data(n_bins, weights=weights)
    models = {"A": s, "B": np.clip(s * 1.2, 0, 1)}
    d = P.CurveDisplay.from_models(
        y, models, kind="calibration", sample_weight=w, bins=bins, n_bins=n_bins
    ).plot()
    labels = d.ax_.get_legend_handles_labels()[1]
    for line, curve, score in zip(d.lines_, d.curves, [s, np.clip(s * 1.2, 0, 1)], strict=True):
        spec = f"ECE:bins={bins},n_bins={n_bins}"
        want = measure_value(y, score, w, spec)
        got = ece_of_points(line.get_xdata(), line.get_ydata(), curve.extra["counts"])
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert curve.extra["value"] == want and curve.extra["measure"] == spec
        assert any(lab.endswith(f"({spec} = {want:.4f})") for lab in labels)
        assert curve.extra["counts"].sum() == pytest.approx(len(y) if w is None else w.sum(), rel=1e-12)
    how = "equal-width" if bins == "width" else "equal-mass"
    assert f"({n_bins} {how} bins)" in d.ax_.get_xlabel()  # the figure says its bins


def test_a_measure_with_another_norm_sets_the_bins_and_the_value():
    """measure= draws that spec's bins and value (its norm too); bins= against it is refused."""
    y, s, _ = binary_data(3)
    for spec, norm in (("ECE:bins=mass,n_bins=12,norm=l2", "l2"), ("MCE:n_bins=6", "max")):
        c = C.calibration(y, s, measure=spec)
        assert c.extra["value"] == measure_value(y, s, None, spec)
        assert ece_of_points(c.x, c.y, c.extra["counts"], norm) == pytest.approx(c.extra["value"], rel=1e-12)
    with pytest.raises(InvalidParameterError, match="not others"):
        C.calibration(y, s, measure="ECE:bins=mass", bins="width")
    with pytest.raises(InvalidParameterError, match="bins of ECE or MCE"):
        C.calibration(y, s, measure="ROC")


def test_perfs_bins_stay_and_say_so():
    """PERF's 19 overlapping bins (CA1's) stay the default, named on the figure, with no ECE drawn."""
    y, s, _ = binary_data(4)
    c = C.calibration(y, s)
    assert c.extra["bins"] == "perf" and c.extra["measure"] is None and len(c.x) <= 19
    assert "PERF's 19 overlapping bins" in c.xlabel
    # CA1 is the mean gap over PERF's non-empty bins
    assert np.mean(np.abs(c.y - c.x)) == pytest.approx(measure_value(y, s, None, "CA1"), rel=1e-12)


def test_the_bins_words_are_the_measures_with_the_old_ones_as_aliases():
    """One vocabulary: ECE's own domain (the registry's), perf, and uniform/quantile as old names of
    width/mass (the same bins); any other word is one line listing the valid ones."""
    domain = next(p for p in get_measure("ECE").params if p.name == "bins").choices
    assert set(domain) == {"width", "mass"}
    for word in domain:
        assert C.calibration_bins(word) == word
    assert C.calibration_bins("uniform") == "width" and C.calibration_bins("quantile") == "mass"
    y, s, _ = binary_data(5)
    for old, new in (("uniform", "width"), ("quantile", "mass")):
        a, b = C.calibration(y, s, bins=old, n_bins=8), C.calibration(y, s, bins=new, n_bins=8)
        assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y) and a.extra["value"] == b.extra["value"]
    with pytest.raises(InvalidParameterError, match=r"one of perf, width, mass .*uniform.*quantile.*'equal'"):
        C.calibration(y, s, bins="equal")
    with pytest.raises(InvalidParameterError, match="n_bins"):
        C.calibration(y, s, bins="width", n_bins=0)


def test_equal_mass_bins_never_split_a_tie():
    """The diagram's equal-mass bins are ECE's: a cell goes to bin floor(n_bins * W_below / W), so a
    tie (one distinct score) is in one bin, whole, and a heavy tie leaves the bins it spans empty
    (earlier releases' quantile bins cut the cumulative weight at k/n_bins instead: other bins)."""
    y = np.array([0, 1] * 50 + [1, 0, 0, 1])
    s = np.array([0.3] * 100 + [0.9, 0.1, 0.2, 0.8])
    c = C.calibration(y, s, bins="mass", n_bins=4)
    # 0.1, 0.2 and 0.3 have 0, 1 and 2 of 104 cases below them: bin 0; 0.8 and 0.9: bin 3
    assert c.extra["counts"].tolist() == [102.0, 2.0]
    assert c.x.tolist() == pytest.approx([(0.1 + 0.2 + 30) / 102, 0.85])
    assert c.extra["value"] == measure_value(y, s, None, "ECE:bins=mass,n_bins=4")


@pytest.mark.parametrize("bins", ["width", "mass"])
def test_the_consistency_band_is_drawn_over_the_same_bins(bins):
    """The band is of the bins drawn: one bar a point, at the point's x, around the bin's mean score
    (under calibration a bin's share of positives is about its mean score)."""
    rng = np.random.default_rng(8)
    s = rng.random(20000)
    y = (rng.random(20000) < s).astype(int)
    d = P.CurveDisplay.from_models(y, {"m": s}, kind="calibration", bins=bins, n_bins=12).plot()
    lo, hi = d.curves[0].extra["band"]
    assert len(lo) == len(d.curves[0].x) == 12
    assert np.all(lo <= d.curves[0].x) and np.all(d.curves[0].x <= hi)
    bars = [c for c in d.ax_.collections if c.get_label().startswith("90% consistency band")]
    assert len(bars) == 1 and len(bars[0].get_segments()) == 12
    for seg, x in zip(bars[0].get_segments(), d.curves[0].x, strict=True):
        assert seg[0][0] == pytest.approx(x)


# -- the report --------------------------------------------------------------------------------------------
@pytest.fixture
def drawn(monkeypatch):
    """The calibration displays the report draws (its figures are PNGs: their data read here)."""
    seen = []
    real = html.CurveDisplay.from_models

    def spy(*a, **k):
        d = real(*a, **k)
        if k.get("kind") == "calibration":
            seen.append(d)
        return d

    monkeypatch.setattr(html.CurveDisplay, "from_models", spy)
    return seen


def test_the_report_draws_the_bins_of_its_ece_and_its_value(drawn):
    y, s, w = binary_data(11, weights=True)
    models = {"A": s, "B": np.clip(s * 0.8 + 0.1, 0, 1)}
    spec = "ECE:bins=mass,n_bins=10"
    page = html.build(y, models, measures=["ROC", spec, "ECE:norm=l2"], sample_weight=w)
    (d,) = drawn
    for name, line, curve in zip(models, d.lines_, d.curves, strict=True):
        table = measure_value(y, models[name], w, spec)
        cell = re.search(rf"data-model='{name}' data-measure='{re.escape(spec)}'[^>]*>([^<]*)<", page)
        assert cell and float(cell.group(1)) == pytest.approx(table, abs=5e-7)  # the table's number
        assert ece_of_points(line.get_xdata(), line.get_ydata(), curve.extra["counts"]) == pytest.approx(
            table, rel=1e-12
        )
        assert curve.extra["value"] == table and curve.extra["measure"] == spec
    caption = re.search(r"<figcaption><b>Calibration \(reliability\)</b>: ([^\n]*?)</figcaption>", page)
    assert (
        caption
        and caption.group(1).startswith("10 equal-mass bins, the very bins whose gaps")
        and (f"<code>{spec}</code>" in caption.group(1))
    )


def test_the_report_without_ece_keeps_perfs_bins(drawn):
    y, s, _ = binary_data(12)
    page = html.build(y, {"A": s}, measures=["ROC", "CA1"])
    (d,) = drawn
    assert d.curves[0].extra["bins"] == "perf"
    assert "PERF's 19 overlapping CA1 bins" in page


# -- the command -----------------------------------------------------------------------------------------
def write_csv(path, y, s):
    path.write_text("y,p\n" + "".join(f"{a},{b!r}\n" for a, b in zip(y.tolist(), s.tolist(), strict=True)))


@pytest.fixture
def plotted(monkeypatch):
    """The displays `perfeval plot` draws."""
    seen = []
    real = P.CurveDisplay.plot

    def spy(self, *a, **k):
        seen.append(self)
        return real(self, *a, **k)

    monkeypatch.setattr(P.CurveDisplay, "plot", spy)
    return seen


@pytest.mark.parametrize(("word", "bins"), [("width", "width"), ("mass", "mass"), ("quantile", "mass")])
def test_the_command_draws_eces_bins_and_value(tmp_path, capsys, plotted, word, bins):
    y, s, _ = binary_data(13, n=800)
    f = tmp_path / "d.csv"
    write_csv(f, y, s)
    argv = ["plot", "calibration", str(f), "--target", "y", "--score", "p", "--bins", word]
    assert main([*argv, "--n-bins", "9", "-o", str(tmp_path / "c.png")]) == 0
    assert main([*argv, "-o", str(tmp_path / "d.png")]) == 0  # ECE's default number of bins, 15
    capsys.readouterr()
    for d, n_bins in zip(plotted, (9, 15), strict=True):
        spec = f"ECE:bins={bins},n_bins={n_bins}"
        assert main(["eval", str(f), "--target", "y", "--score", "p", "-m", spec, "--format", "json"]) == 0
        want = json.loads(capsys.readouterr().out)["measures"][spec]["value"]
        line, curve = d.lines_[0], d.curves[0]
        assert ece_of_points(line.get_xdata(), line.get_ydata(), curve.extra["counts"]) == pytest.approx(
            want, rel=1e-12
        )
        assert line.get_label() == f"p ({spec} = {want:.4f})"


@pytest.mark.parametrize("bins", ["width", "mass"])
def test_python_and_the_command_share_eces_default_number_of_bins(tmp_path, plotted, bins):
    """Without n_bins, perfeval.curves.calibration, CurveDisplay.from_models and `perfeval plot
    calibration` draw the same bins: ECE's own default (the registry's), whose value the legend gives."""
    from perfeval.measures import get_measure

    default = next(p for p in get_measure("ECE").params if p.name == "n_bins").default
    y, s, _ = binary_data(15, n=800)
    f = tmp_path / "d.csv"
    write_csv(f, y, s)
    assert main(["plot", "calibration", str(f), "--target", "y", "--score", "p", "--bins", bins,
                 "-o", str(tmp_path / "c.png")]) == 0  # fmt: skip
    cli = plotted[-1].curves[0]
    c = C.calibration(y, s, bins=bins)
    d = P.CurveDisplay.from_models(y, {"p": s}, kind="calibration", bins=bins)
    spec = f"ECE:bins={bins},n_bins={default}"
    for curve in (cli, c, d.curves[0]):
        assert curve.extra["measure"] == spec
        assert curve.extra["value"] == measure_value(y, s, None, spec)
    assert c.x.tobytes() == cli.x.tobytes() and c.extra["counts"].tobytes() == cli.extra["counts"].tobytes()


def test_the_command_refuses_an_unknown_word_listing_the_valid_ones(tmp_path, capsys):
    y, s, _ = binary_data(14, n=50)
    f = tmp_path / "d.csv"
    write_csv(f, y, s)
    argv = ["plot", "calibration", str(f), "--target", "y", "--score", "p", "-o", str(tmp_path / "c.png")]
    capsys.readouterr()
    assert main([*argv, "--bins", "equal"]) == 2
    err = capsys.readouterr().err
    assert "argument --bins: expected one of perf, width, mass" in err and "'equal'" in err
    assert "Traceback" not in err and not (tmp_path / "c.png").exists()
    assert main([*argv, "--n-bins", "5"]) == 2  # PERF's bins have no number to give
    assert "--n-bins applies to --bins width or mass" in capsys.readouterr().err
    assert main([*argv, "--bins", "mass", "--n-bins", "0"]) == 2
    assert "needs `n_bins` a whole number with 1 <= n_bins" in capsys.readouterr().err


# -- K classes: the top-label diagram ---------------------------------------------------------------------
def class_data(seed, n=1500, k=4, ties=True):
    rng = np.random.default_rng(seed)
    S = rng.dirichlet(np.ones(k) * 0.8, n)
    if ties:
        S = np.round(S, 1)  # ties at the maximum, and repeated confidences
        S[:20] = 1.0 / k  # every class tied
    y = np.array([rng.choice(k, p=r / r.sum()) for r in np.clip(S, 1e-3, None)])
    return y, S


def top_label_reference(y, S, bins, n_bins):
    """Top-label calibration from the rows, the textbook way: a row's confidence its maximum, right
    for 1/t of it when its class is among the t classes at the maximum, binned by ECE's rules."""
    conf = S.max(axis=1)
    t = (S == conf[:, None]).sum(axis=1)
    right = (S[np.arange(len(y)), y] == conf) / t
    if bins == "width":
        b = np.searchsorted(np.arange(1, n_bins) / n_bins, conf, side="right")
    else:
        u = np.unique(conf)
        below = np.array([np.sum(conf < v) for v in u], dtype=float)
        ub = np.floor(n_bins * below / len(conf)).astype(int)
        b = ub[np.searchsorted(u, conf)]
    live = np.unique(b)
    n = np.array([np.sum(b == i) for i in live], dtype=float)
    x = np.array([conf[b == i].mean() for i in live])
    acc = np.array([right[b == i].mean() for i in live])
    return x, acc, n


@pytest.mark.parametrize(("bins", "n_bins"), [("width", 15), ("mass", 6)])
def test_the_top_label_diagram_is_ece_tops(bins, n_bins):
    y, S = class_data(21)
    d = P.CalibrationDisplay.from_classes(y, S, bins=bins, n_bins=n_bins).plot()
    spec = f"ECE_TOP:bins={bins},n_bins={n_bins}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = perfeval.evaluate(y, S, classes=list(range(4)), measures=[spec]).results[spec].value
    line, curve = d.lines_[0], d.curves[0]
    got = ece_of_points(line.get_xdata(), line.get_ydata(), curve.extra["counts"])
    assert got == pytest.approx(want, rel=1e-12) and curve.extra["value"] == want
    x, acc, n = top_label_reference(y, S, bins, n_bins)
    assert np.allclose(line.get_xdata(), x, rtol=1e-12) and np.allclose(line.get_ydata(), acc, rtol=1e-12)
    assert np.array_equal(curve.extra["counts"], n)
    assert d.ax_.get_title() == "Top-label calibration (reliability)"
    assert "confidence (the maximum probability)" in d.ax_.get_xlabel()
    assert line.get_label() == f"model ({spec} = {want:.4f})"
    # ties at the maximum share a case, yet the weights are whole: the band is drawn
    assert curve.extra["band"] is not None and len(curve.extra["band"][0]) == len(x)


@pytest.mark.skipif(not ORACLE.exists(), reason="torchmetrics lives in /tmp/oracle-venv, absent here")
def test_the_top_label_diagram_gives_torchmetrics_number():
    """torchmetrics' top-label convention (confidence = max probability, correct = argmax == label):
    on rows without ties at the maximum or a confidence of 1.0 (where its rules differ: explain),
    the diagram's points give torchmetrics' multiclass_calibration_error (float32: 1e-5)."""
    y, S = class_data(22, n=800, k=3, ties=False)
    d = P.CalibrationDisplay.from_classes(y, S, n_bins=10)
    c = d.curves[0]
    code = (
        "import json,sys,torch\n"
        "from torchmetrics.functional.classification import multiclass_calibration_error as f\n"
        "d=json.load(sys.stdin)\n"
        "print(float(f(torch.tensor(d['p']),torch.tensor(d['y']),num_classes=3,n_bins=10,norm='l1')))\n"
    )
    out = subprocess.run(
        [str(ORACLE), "-c", code],
        input=json.dumps({"p": S.tolist(), "y": y.tolist()}),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    theirs = float(out.stdout)
    assert ece_of_points(c.x, c.y, c.extra["counts"]) == pytest.approx(theirs, rel=1e-5)


def test_the_top_label_diagram_takes_ece_tops_bins_only():
    y, S = class_data(23, n=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cs = perfeval.evaluate(y, S, classes=list(range(4)), measures=["ECE_TOP"]).summary
    with pytest.raises(InvalidParameterError, match="PERF's bins are of one score a case"):
        C.calibration(cs, bins="perf")
    with pytest.raises(InvalidParameterError, match="bins of ECE_TOP"):
        C.calibration(cs, measure="ECE:bins=mass")
    assert C.calibration(cs).extra["measure"] == "ECE_TOP:bins=width,n_bins=15"


def test_the_report_of_k_classes_draws_the_top_label_diagram(monkeypatch):
    y, S = class_data(24, n=600)
    seen = []
    real = P.CurveDisplay.plot

    def spy(self, *a, **k):
        seen.append(self)
        return real(self, *a, **k)

    monkeypatch.setattr(P.CurveDisplay, "plot", spy)
    spec = "ECE_TOP:bins=mass,n_bins=8"
    page = html.classes_report(y, S, classes=[0, 1, 2, 3], measures=["ACC_MC", spec], band_level=0.8)
    (d,) = [x for x in seen if x.kind == "calibration"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = perfeval.evaluate(y, S, classes=[0, 1, 2, 3], measures=[spec]).results[spec].value
    cell = re.search(rf"data-measure='{re.escape(spec)}'>([^<]*)<", page)
    assert cell and float(cell.group(1)) == pytest.approx(want, abs=5e-7)
    line, curve = d.lines_[0], d.curves[0]
    assert ece_of_points(line.get_xdata(), line.get_ydata(), curve.extra["counts"]) == pytest.approx(
        want, rel=1e-12
    )
    assert "data-kind='calibration-top'" in page
    assert f"8 equal-mass bins, the very bins whose gaps <code>{spec}</code>" in page
    assert "80% consistency band" in page


def test_the_command_draws_the_top_label_diagram(tmp_path, capsys, plotted):
    y, S = class_data(25, n=400, k=3)
    names = np.array(["cat", "dog", "bird"])
    f = tmp_path / "k.csv"
    f.write_text(
        "y,p_cat,p_dog,p_bird\n"
        + "".join(f"{names[a]},{r[0]!r},{r[1]!r},{r[2]!r}\n" for a, r in zip(y, S.tolist(), strict=True))
    )
    base = ["calibration", str(f), "--target", "y", "--score-prefix", "p_"]
    assert main(["plot", *base, "--bins", "mass", "--n-bins", "5", "-o", str(tmp_path / "t.png")]) == 0
    capsys.readouterr()
    spec = "ECE_TOP:bins=mass,n_bins=5"
    assert main(["eval", *base[1:], "-m", spec, "--format", "json"]) == 0
    want = json.loads(capsys.readouterr().out)["measures"][spec]["value"]
    (d,) = plotted
    c = d.curves[0]
    assert ece_of_points(c.x, c.y, c.extra["counts"]) == pytest.approx(want, rel=1e-12)
    assert d.lines_[0].get_label() == f"model ({spec} = {want:.4f})"
    assert main(["plot", "roc", *base[1:], "-o", str(tmp_path / "r.png")]) == 2
    assert "plot roc does not apply to K classes" in capsys.readouterr().err


def test_the_report_of_k_classes_takes_the_band_options(tmp_path, capsys):
    """--band-level and --band now apply to the report of K classes (its top-label diagram): said
    in its caption (earlier releases refused them: no diagram)."""
    y, S = class_data(26, n=300, k=3)
    names = np.array(["cat", "dog", "bird"])
    f = tmp_path / "k.csv"
    f.write_text(
        "y,p_cat,p_dog,p_bird\n"
        + "".join(f"{names[a]},{r[0]!r},{r[1]!r},{r[2]!r}\n" for a, r in zip(y, S.tolist(), strict=True))
    )
    out = tmp_path / "r.html"
    argv = ["report", str(f), "--target", "y", "--score-prefix", "p_", "-o", str(out)]
    assert main([*argv, "--band-level", "0.8", "--band", "pairs"]) == 0
    page = out.read_text()
    assert "80% consistency band" in page and "confidences drawn with replacement" in page
    capsys.readouterr()
    assert main([*argv, "--band-level", "1.5"]) == 2
    assert "--band-level must lie strictly between 0 and 1" in capsys.readouterr().err


def test_the_plot_command_with_eces_bins_does_not_load_the_engine(tmp_path):
    """`perfeval plot` stays light (cli/commands/plots.py): ECE's bins and value come from the
    registry and the summary, not the engine; only K classes (--classes) read through it."""
    y, s, _ = binary_data(27, n=100)
    f = tmp_path / "d.csv"
    write_csv(f, y, s)
    code = (
        "import sys\n"
        "from perfeval.cli.main import main\n"
        f"assert main(['plot', 'calibration', {str(f)!r}, '--target', 'y', '--score', 'p', '--bins', "
        f"'mass', '-o', {str(tmp_path / 'c.png')!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith(('perfeval.engine', 'perfeval.api', "
        "'perfeval.stats'))))\n"
    )
    src = str(Path(perfeval.__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": src},
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
