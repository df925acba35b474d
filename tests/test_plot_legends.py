"""The legends of perfeval's own curve plots with several models (:class:`perfeval.plot.CurveDisplay`,
`perfeval plot`, the report's plots): each model's operating point named with its model and its
threshold, and the reliability diagram's legend of three models clear of the data.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from perfeval.cli.main import main  # noqa: E402
from perfeval.plot import CurveDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def three_models(n: int = 3000, seed: int = 1) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A target and three models' scores in [0, 1], as a user's CSV would hold them (3 decimals)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    models = {
        "model_a": np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, n), 0, 1).round(3),
        "model_b": np.clip(0.35 + 0.2 * y + rng.normal(0, 0.2, n), 0, 1).round(3),
        "model_c": np.clip(0.25 + 0.45 * y + rng.normal(0, 0.25, n), 0, 1).round(3),
    }
    return y.astype(int), models


def legend_entries(ax) -> list[tuple[str, object]]:
    legend = ax.get_legend()
    assert legend is not None
    return [(t.get_text(), h) for t, h in zip(legend.get_texts(), legend.legend_handles, strict=True)]


@pytest.mark.parametrize("kind", ["roc", "pr", "lift", "acc", "cost"])
def test_each_models_operating_point_is_named_in_the_legend(kind):
    """With several models the legend explained only the first model's marker (``score >= t``, in its
    colour) and the others' were unexplained: each model's marker now has its entry, after its line,
    with the model's name, its threshold, its colour and the marker drawn."""
    y, models = three_models()
    d = CurveDisplay.from_models(y, models, kind=kind, threshold=0.4).plot()
    entries = legend_entries(d.ax_)
    texts = [t for t, _ in entries]
    for name, line in zip(models, d.lines_, strict=True):
        want = f"{name}: score >= 0.4"
        assert texts.count(want) == 1, (want, texts)
        i = texts.index(want)
        assert texts[i - 1] == line.get_label()  # right after the model's own line
        handle = entries[i][1]
        assert handle.get_marker() == "o" and handle.get_linestyle() == "None"
        assert to_rgba(handle.get_color()) == to_rgba(line.get_color())
        # the marker drawn on the plot is the one the entry names, at the model's operating point
        (drawn,) = [m for m in d.ax_.lines if m.get_label() == want]
        assert to_rgba(drawn.get_color()) == to_rgba(line.get_color())
    assert sum("score >=" in t for t in texts) == len(models)


def test_one_model_keeps_the_plain_marker_entry():
    y, models = three_models()
    d = CurveDisplay.from_models(y, {"model_a": models["model_a"]}, kind="roc", threshold=0.4).plot()
    assert [t for t, _ in legend_entries(d.ax_) if "score >=" in t] == ["score >= 0.4"]


def test_the_marker_entry_gives_the_threshold_itself():
    """``score >= 0.123457`` was the legend of a threshold of 0.123456789 (``:g``): another number.
    Now the threshold as given (short where that is the number: 0.5, 1)."""
    y, models = three_models()
    for t, shown in ((0.123456789, "0.123456789"), (0.5, "0.5"), (1.0, "1"), (1e-7, "1e-07")):
        d = CurveDisplay.from_models(y, models, kind="roc", threshold=t).plot()
        texts = [x for x, _ in legend_entries(d.ax_)]
        assert f"model_b: score >= {shown}" in texts, texts
        assert float(shown) == t
        plt.close("all")


def test_plot_command_names_each_models_marker(tmp_path):
    """As a user: a pandas CSV of three score columns, `perfeval plot roc ... -t 0.35 -o roc.svg`;
    matplotlib's SVG keeps each text as a comment, so the legend's entries can be read back."""
    pd = pytest.importorskip("pandas")
    y, models = three_models()
    f = tmp_path / "results.csv"
    pd.DataFrame({"label": y, **models}).to_csv(f, index=False)
    out = tmp_path / "roc.svg"
    argv = ["plot", "roc", str(f), "--target", "label", "--score", "model_a,model_b,model_c"]
    assert main([*argv, "-t", "0.35", "-o", str(out)]) == 0
    svg = out.read_text()
    for name in models:
        assert svg.count(f"<!-- {name}: score &gt;= 0.35 -->") == 1
    assert "<!-- score &gt;= 0.35 -->" not in svg


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("bins", [{}, {"bins": "mass", "n_bins": 10}])
@pytest.mark.parametrize("figure", ["own", "report"])
def test_reliability_legend_of_three_models_is_clear_of_the_data(bins, figure):
    """Three models' reliability diagram: the legend (each model's line and its band, the diagonal)
    sat in the upper left of the axes, as wide as them, over points and bars.  Now it is under the
    axes, clear of the plotting area, the tick labels and the x label, and inside the figure (the
    report's: a fixed-size figure of constrained layout), every entry in it."""
    y, models = three_models()
    d = CurveDisplay.from_models(y, models, kind="calibration", **bins)
    if figure == "report":
        fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
        d.plot(ax=ax)
    else:
        d.plot()
        fig, ax = d.figure_, d.ax_
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend()
    box = legend.get_window_extent(renderer)
    assert not _overlaps(box, ax.get_window_extent(renderer))
    assert box.y1 <= ax.get_window_extent(renderer).y0  # under the axes
    assert not _overlaps(box, ax.xaxis.label.get_window_extent(renderer))
    for tick in ax.get_xticklabels():
        if tick.get_text():
            assert not _overlaps(box, tick.get_window_extent(renderer))
    if figure == "report":  # a figure of fixed size: the legend must fit in it (nothing cut off)
        whole = fig.bbox
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1
    texts = [t for t, _ in legend_entries(ax)]
    band = "90% consistency band (outcomes redrawn)"
    for name in models:
        assert f"{name}: {band}" in texts
        assert any(t == name or t.startswith(f"{name} (") for t in texts)
    assert "perfect calibration" in texts and len(texts) == 7


def test_reliability_legend_of_one_model_stays_in_its_corner():
    y, models = three_models()
    d = CurveDisplay.from_models(y, {"model_a": models["model_a"]}, kind="calibration").plot()
    assert d.ax_.get_legend()._loc == 2  # upper left, inside the axes (above the diagonal)


def test_slice_curves_explain_every_marker_once():
    """The slices' curves (one model, one threshold, a marker on each curve in its colour): the legend
    had ``score >= t`` in the overall curve's black only, as if it marked that curve alone.  Now one
    entry, in a neutral grey, says the markers are on each curve in its colour, at the threshold."""
    from perfeval.plot import slice_curves

    y, models = three_models()
    s = models["model_a"]
    part = np.arange(len(y)) % 3
    fig = slice_curves(y, s, {"p0": part == 0, "p1": part == 1}, threshold=0.45)
    ax = fig.axes[0]
    entries = legend_entries(ax)
    texts = [t for t, _ in entries]
    marks = [(t, h) for t, h in entries if "score >=" in t]
    assert [t for t, _ in marks] == ["score >= 0.45, on each curve in its colour"]
    assert to_rgba(marks[0][1].get_markeredgecolor()) == to_rgba("0.45")
    # every curve has its entry, then the markers' one, then the chance line
    curves = [m for m in ax.lines if m.get_linestyle() != "None"][:3]  # the chance line last
    assert texts[:3] == [line.get_label() for line in curves]
    assert texts[3].startswith("score >=") and texts[-1] == "chance"
    drawn = [m for m in ax.lines if m.get_linestyle() == "None"]
    assert len(drawn) == 3  # a marker on each of the three curves, each in its curve's colour


def test_a_point_given_without_its_threshold_is_an_operating_point():
    """``CurveDisplay(curves, names, points=...)`` without ``threshold=`` raised TypeError (formatting
    None) when drawn; the marker is now named ``operating point``."""
    from perfeval import curves

    y, models = three_models()
    c = [curves.roc(y, models["model_a"]), curves.roc(y, models["model_b"])]
    d = CurveDisplay(c, ["model_a", "model_b"], kind="roc", points=[(0.2, 0.7), (0.3, 0.6)]).plot()
    texts = [t for t, _ in legend_entries(d.ax_)]
    assert "model_a: operating point" in texts and "model_b: operating point" in texts
