"""The slices' plots (perfeval.plot.forest, perfeval.plot.slice_curves): drawn without error for 1, 2
and 300 slices and for slices that are all undefined, with what they say they draw (a point a slice
with a value, ``undefined`` for the others, an interval line where one is given, the flagged slices
hollow and starred, the overall line); the curves' legends are the slices' own ROC areas; bad
arguments are one line.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import perfeval  # noqa: E402
from perfeval.exceptions import InvalidParameterError  # noqa: E402
from perfeval.plot import forest, slice_curves  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60)
    data = buf.getvalue()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return data


def drawn(fig) -> dict:
    """What the forest plot holds: points (filled, hollow), interval lines, texts, tick labels."""
    (ax,) = fig.axes
    filled = hollow = 0
    for c in ax.collections:
        n = len(c.get_offsets())
        if c.get_label() == "slice value":
            filled += n
        else:
            hollow += n
    lines = [line for line in ax.lines if line.get_linestyle() == "-"]
    overall = [line for line in ax.lines if line.get_linestyle() == "--"]
    return {
        "filled": filled,
        "hollow": hollow,
        "intervals": len(lines),
        "overall": [line.get_xdata()[0] for line in overall],
        "undefined": sum(t.get_text() == "undefined" for t in ax.texts),
        # the tick labels from the top down
        "labels": [
            t.get_text()
            for _, t in sorted(zip(ax.get_yticks(), ax.get_yticklabels(), strict=True), key=lambda p: -p[0])
        ],
    }


@pytest.mark.parametrize("n", [1, 2, 300])
def test_forest_draws_a_row_a_slice(n):
    rng = np.random.default_rng(n)
    v = rng.uniform(0.5, 0.9, n)
    v[::7] = np.nan  # some undefined (the first one too)
    flags = np.zeros(n, dtype=bool)
    flags[1::5] = True
    labels = [f"s{i}" for i in range(n)]
    fig = forest(v, labels=labels, overall=0.7, flagged=flags, measure="ROC")
    png(fig)
    d = drawn(fig)
    ok = ~np.isnan(v)
    assert d["filled"] == int(np.sum(ok & ~flags)) and d["hollow"] == int(np.sum(ok & flags))
    assert d["undefined"] == int(np.sum(~ok)) and d["intervals"] == 0  # points alone
    assert d["overall"] == [0.7]
    # the first slice on top, the flagged ones starred
    assert d["labels"] == [f"s{i}" + ("*" if flags[i] else "") for i in range(n)]
    assert fig.get_size_inches()[1] == pytest.approx(1.3 + 0.24 * n)


def test_forest_of_slices_all_undefined():
    fig = forest([np.nan, np.nan, np.nan], labels=["a", "b", "c"], measure="ROC")
    png(fig)
    d = drawn(fig)
    assert d["undefined"] == 3 and d["filled"] == d["hollow"] == 0 and d["overall"] == []
    assert fig.axes[0].get_xlim() == (0.0, 1.0) and fig.axes[0].get_legend() is None
    assert not fig.legends  # nothing to name


def test_forest_draws_the_intervals_given():
    v = np.array([0.6, 0.7, np.nan, 0.8])
    lo = np.array([0.5, np.nan, np.nan, 0.75])
    hi = np.array([0.65, np.nan, np.nan, 0.9])
    fig = forest(v, lo, hi, labels=list("abcd"), overall=0.72)
    png(fig)
    (ax,) = fig.axes
    segs = sorted(
        (tuple(line.get_xdata()), line.get_ydata()[0]) for line in ax.lines if line.get_linestyle() == "-"
    )
    assert segs == [((0.5, 0.65), 3.0), ((0.75, 0.9), 0.0)]  # a line where both ends are numbers
    assert ax.get_xlim()[0] < 0.5 and ax.get_xlim()[1] > 0.9  # the intervals are in view


def test_forest_on_an_axes_given_keeps_its_legend_there():
    fig, ax = plt.subplots()
    out = forest([0.5, 0.6], labels=["a", "b"], overall=0.55, ax=ax)
    assert out is fig and ax.get_legend() is not None and not fig.legends


@pytest.mark.parametrize(
    ("kw", "said"),
    [
        ({"lows": [0.1, 0.2]}, "give both lows and highs"),
        ({"lows": [0.1], "highs": [0.2]}, "lows holds 1 values for 2 slices"),
        ({"lows": [0.3, 0.1], "highs": [0.2, 0.4]}, "the interval of slice 0 runs backwards"),
        ({"labels": ["a"]}, "1 labels for 2 slices"),
        ({"flagged": [True]}, "flagged holds 1 values for 2 slices"),
        ({"overall": "x"}, "overall must be a number"),
    ],
)
def test_forest_refuses_bad_arguments_in_one_line(kw, said):
    with pytest.raises(InvalidParameterError, match=said):
        forest([0.5, 0.6], **kw)
    with pytest.raises(InvalidParameterError, match="one value a slice"):
        forest([[0.5, 0.6]])


def test_slice_curves_legends_are_each_slices_roc_area():
    rng = np.random.default_rng(5)
    n = 600
    g = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    y[g == 2] = 1  # one class: no curve, its area undefined
    s = rng.random(n) + 0.4 * y
    w = rng.choice([0.0, 1.0, 2.0], n)
    fig = slice_curves(y, s, {"a": g == 0, "b": np.flatnonzero(g == 1), "c": g == 2}, sample_weight=w)
    png(fig)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, measures=["roc"], sample_weight=w, by={"g": g})
    per = r.slices.by_group("g")["ROC"].tolist()
    assert f"overall (AUC {r['ROC']:.4f})" in labels
    assert f"a (AUC {per[0]:.4f})" in labels and f"b (AUC {per[1]:.4f})" in labels
    assert "c (AUC undefined)" in labels and np.isnan(per[2])
    assert fig.axes[0].lines[0].get_color() == "k"  # the curve over every case, black


def test_slice_curves_refuses_a_mask_of_another_length():
    with pytest.raises(InvalidParameterError, match="the mask of 'a' holds 2 values for 3 cases"):
        slice_curves([0, 1, 1], [0.1, 0.5, 0.9], {"a": np.array([True, False])})
    with pytest.raises(InvalidParameterError, match="unknown curve"):
        slice_curves([0, 1], [0.1, 0.9], {}, kind="nope")
