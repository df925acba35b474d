"""Issue 33, part calib2: the reliability diagram's consistency band (Broecker & Smith 2007: each
case's outcome redrawn from its score, the forecasts held fixed) in the calibration curve, `perfeval
plot calibration` and the HTML report.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import perfeval  # noqa: E402
from perfeval import curves as C  # noqa: E402
from perfeval.cli.main import main  # noqa: E402
from perfeval.measures.calibration import BAND_EXACT, consistency_band  # noqa: E402


def test_band_of_one_score_is_the_binomial_interval():
    """A bin of n cases all scored p: the share of positives of a calibrated model is Binomial(n, p)
    / n, so the band is its 5% and 95% quantiles (resampled: within one case of them; beyond
    BAND_EXACT cases, the normal approximation: within two)."""
    from scipy.stats import binom

    for n, p in ((10, 0.3), (57, 0.05), (400, 0.5), (1500, 0.81), (BAND_EXACT + 1, 0.2), (40_000, 0.37)):
        lo, hi = consistency_band(np.array([p]), np.array([float(n)]), [np.array([True])])
        want_lo, want_hi = binom.ppf(0.05, n, p) / n, binom.ppf(0.95, n, p) / n
        slack = (1.0 if n <= BAND_EXACT else 2.0) / n
        assert abs(lo[0] - want_lo) <= slack + 1e-12 and abs(hi[0] - want_hi) <= slack + 1e-12, (n, p)


def test_band_is_seeded_and_mixed_scores_are_a_poisson_binomial():
    rng = np.random.default_rng(2)
    s = np.sort(rng.random(30))
    n = rng.integers(1, 20, 30).astype(float)
    masks = [s < 0.5, s >= 0.5]
    a = consistency_band(s, n, masks)
    assert all(np.array_equal(x, y) for x, y in zip(a, consistency_band(s, n, masks), strict=True))
    # the exact distribution of the positives of each bin (a convolution of binomials)
    from scipy.stats import binom

    for k, m in enumerate(masks):
        dist = np.array([1.0])
        for p, c in zip(s[m], n[m], strict=True):
            dist = np.convolve(dist, binom.pmf(np.arange(int(c) + 1), int(c), p))
        cdf, N = np.cumsum(dist), n[m].sum()
        want_lo, want_hi = np.searchsorted(cdf, 0.05) / N, np.searchsorted(cdf, 0.95) / N
        assert abs(a[0][k] - want_lo) <= 1.5 / N and abs(a[1][k] - want_hi) <= 1.5 / N


def test_a_calibrated_model_falls_inside_its_band_about_nine_times_in_ten():
    rng = np.random.default_rng(7)
    inside = total = 0
    for _ in range(40):
        s = np.round(rng.random(600), 3)
        y = (rng.random(600) < s).astype(int)
        c = C.calibration(y, s, bins="uniform", n_bins=10)
        lo, hi = c.extra["band"]
        inside += int(np.sum((c.y >= lo) & (c.y <= hi)))
        total += len(c.y)
    assert 0.85 <= inside / total <= 0.97, inside / total


def test_no_band_where_outcomes_cannot_be_drawn_and_it_says_why():
    y = np.array([0, 1, 1, 0])
    c = C.calibration(y, np.array([-1.0, 2.0, 0.5, 0.1]))
    assert c.extra["band"] is None and "outside [0, 1]" in c.extra["band_why"]
    c = C.calibration(y, np.array([0.2, 0.7, 0.5, 0.1]), sample_weight=[0.5, 1, 1, 2])
    assert c.extra["band"] is None and "fractional weights" in c.extra["band_why"]
    c = C.calibration(y, np.array([0.2, 0.7, 0.5, 0.1]), sample_weight=[3, 1, 1, 2])  # copies
    assert c.extra["band"] is not None and len(c.extra["band"][0]) == len(c.x)


def test_plot_and_report_draw_the_band(tmp_path):
    rng = np.random.default_rng(3)
    s = np.round(rng.random(500), 2)
    y = (rng.random(500) < s**1.5).astype(int)
    f = tmp_path / "d.csv"
    f.write_text("y,p\n" + "\n".join(f"{a},{b}" for a, b in zip(y, s, strict=True)) + "\n")
    from perfeval.plot import CurveDisplay

    d = CurveDisplay.from_models(y, {"m": s}, kind="calibration", bins="uniform", n_bins=10).plot()
    labels = d.ax_.get_legend_handles_labels()[1]
    label = "90% consistency band (outcomes redrawn)"
    assert label in labels
    bars = [c for c in d.ax_.collections if c.get_label() == label]
    segs = bars[0].get_segments()
    lo, hi = d.curves[0].extra["band"]
    assert np.allclose([sg[0][1] for sg in segs], lo) and np.allclose([sg[1][1] for sg in segs], hi)
    out = tmp_path / "c.png"
    assert main(["plot", "calibration", str(f), "--target", "y", "--score", "p", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    html = tmp_path / "r.html"
    assert main(["report", str(f), "--target", "y", "--score", "p", "-m", "ece", "-o", str(html)]) == 0
    assert "consistency band" in html.read_text()


# -- the band's level and its two draws (issue 33, part cal-ci) --------------------------------------------
def _coverage(method: str, level: float, reps: int, n: int, decimals: int) -> tuple[int, int]:
    """Seeded data sets of a calibrated model (y drawn with P(y = 1) = score), four equal-width bins:
    how many bins' observed share of positives lies inside the band, of how many."""
    inside = total = 0
    for r in range(reps):
        rng = np.random.default_rng(70_000 + r)
        s = np.round(rng.beta(2, 2, n), decimals)
        y = (rng.random(n) < s).astype(int)
        c = C.calibration(y, s, bins="uniform", n_bins=4, band_level=level, band=method)
        lo, hi = c.extra["band"]
        inside += int(np.sum((c.y >= lo) & (c.y <= hi)))
        total += len(c.y)
    return inside, total


@pytest.mark.parametrize("method", ["outcomes", "pairs"])
def test_band_coverage_under_perfect_calibration_follows_its_level(method):
    """A count over seeded repeats, not a timing: a calibrated model's points fall inside the band
    about ``level`` of the time, at 0.5 as at 0.95 (4 x 200 bins each; a binomial count's 3 standard
    errors, and the band's closed ends over a share of whole cases, about 500 a bin, allowed)."""
    got = {}
    for level in (0.5, 0.95):
        inside, total = _coverage(method, level, 200, 2000, 1)
        got[level] = inside / total
        se = (level * (1 - level) / total) ** 0.5
        assert level - 3 * se <= got[level] <= level + 3 * se + 0.04, (method, level, got[level])
    assert got[0.95] - got[0.5] > 0.35


def test_band_coverage_of_the_normal_approximation_past_band_exact():
    """Bins of more than BAND_EXACT cases take the normal approximation: its coverage too."""
    for level in (0.6, 0.9):
        inside, total = _coverage("outcomes", level, 100, 4 * BAND_EXACT + 4000, 2)
        se = (level * (1 - level) / total) ** 0.5
        assert abs(inside / total - level) <= 3 * se + 0.01, (level, inside / total)


def test_pairs_band_is_broecker_and_smith_resampling_of_the_cases():
    """The pairs band against the obvious reference, SpecsVerification's ReliabilityDiagram written
    out: N cases drawn with replacement, each one's outcome drawn from its score, each bin's share of
    positives; the same quantiles within Monte Carlo error.  Its bin of scores 0.05 and 0.95 is far
    wider than the outcomes band (it adds the forecasts' spread: sd 0.5 / sqrt(N) against
    sqrt(0.0475 / N))."""
    s = np.array([0.05, 0.3, 0.6, 0.95])
    n = np.array([100.0, 150.0, 60.0, 100.0])
    masks = [np.array([True, False, False, True]), np.array([False, True, True, False])]
    lo, hi = consistency_band(s, n, masks, level=0.8, n_resamples=20_000, resample="pairs")
    rng = np.random.default_rng(1)
    cases = np.repeat(s, n.astype(int))
    shares = [[], []]
    for _ in range(4000):
        p = cases[rng.integers(0, len(cases), len(cases))]
        x = rng.random(len(p)) < p
        for k, m in enumerate(masks):
            inb = np.isin(p, s[m])
            shares[k].append(x[inb].mean())
    for k in range(2):
        ref_lo, ref_hi = np.quantile(shares[k], [0.1, 0.9])
        assert abs(lo[k] - ref_lo) <= 0.012 and abs(hi[k] - ref_hi) <= 0.012, (
            k,
            lo[k],
            ref_lo,
            hi[k],
            ref_hi,
        )
    olo, ohi = consistency_band(s, n, masks, level=0.8, resample="outcomes")
    assert hi[0] - lo[0] > 1.8 * (ohi[0] - olo[0])


def test_the_default_band_is_unchanged_and_refusals_are_one_line():
    rng = np.random.default_rng(3)
    s = np.round(rng.random(300), 2)
    y = (rng.random(300) < s).astype(int)
    c = C.calibration(y, s, bins="uniform", n_bins=5)
    assert c.extra["band_level"] == 0.9 and c.extra["band_method"] == "outcomes"
    d = C.calibration(y, s, bins="uniform", n_bins=5, band_level=0.9, band="outcomes")
    assert all(np.array_equal(a, b) for a, b in zip(c.extra["band"], d.extra["band"], strict=True))
    narrow = C.calibration(y, s, bins="uniform", n_bins=5, band_level=0.5).extra["band"]
    assert np.all(narrow[1] - narrow[0] <= c.extra["band"][1] - c.extra["band"][0])
    for kw, msg in (
        ({"band_level": 1.0}, "band_level must lie strictly between 0 and 1"),
        ({"band_level": 0}, "band_level must lie strictly between 0 and 1"),
        ({"band": "forecasts"}, "band must be 'outcomes' or 'pairs'"),
    ):
        with pytest.raises(perfeval.InvalidParameterError, match=msg):
            C.calibration(y, s, **kw)


def test_plot_and_report_name_the_level_and_the_draws(tmp_path, capsys):
    rng = np.random.default_rng(4)
    n = 800
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < s).astype(int)
    g = rng.integers(0, 3, n)
    f = tmp_path / "d.csv"
    f.write_text("y,p,g\n" + "".join(f"{a},{b},{k}\n" for a, b, k in zip(y, s, g, strict=True)))
    from perfeval.plot import CurveDisplay

    d = CurveDisplay.from_models(y, {"m": s}, kind="calibration", band_level=0.8, band="pairs").plot()
    assert "80% consistency band (forecasts and outcomes redrawn)" in d.ax_.get_legend_handles_labels()[1]
    base = ["--target", "y", "--score", "p"]
    out = tmp_path / "c.png"
    assert (
        main(["plot", "calibration", str(f), *base, "-o", str(out), "--band", "pairs", "--band-level", "0.8"])
        == 0
    )
    html = tmp_path / "r.html"
    assert (
        main(
            ["report", str(f), *base, "-m", "ece", "-o", str(html), "--band", "pairs", "--band-level", "0.8"]
        )
        == 0
    )
    text = html.read_text()
    assert "80% consistency band" in text and "drawn with replacement" in text
    capsys.readouterr()
    for argv in (
        ["plot", "calibration", str(f), *base, "-o", str(out), "--band-level", "1.5"],
        ["report", str(f), *base, "-o", str(html), "--band-level", "0"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--band-level must lie strictly between 0 and 1" in err


def test_plot_by_group_draws_the_bins_and_band_asked(tmp_path, monkeypatch):
    """`perfeval plot calibration --group` passes --bins, --band and --band-level to every panel
    (the panels drew PERF's 19 bins whatever --bins said)."""
    from perfeval import plot as P

    rng = np.random.default_rng(5)
    n = 900
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < s).astype(int)
    g = rng.integers(0, 3, n)
    fig = P.plot_by_group("calibration", y, {"m": s}, g, bins="uniform", n_bins=4, band_level=0.7)
    for ax in fig.axes[:3]:
        bars = [c for c in ax.collections if "consistency band" in str(c.get_label())]
        assert len(bars) == 1 and len(bars[0].get_segments()) <= 4
        assert bars[0].get_label().startswith("70% consistency band")
    seen = {}
    real = P.plot_by_group

    def spy(*a, **k):
        seen.update(k)
        return real(*a, **k)

    monkeypatch.setattr(P, "plot_by_group", spy)
    f = tmp_path / "d.csv"
    f.write_text("y,p,g\n" + "".join(f"{a},{b},{k}\n" for a, b, k in zip(y, s, g, strict=True)))
    argv = [
        "plot",
        "calibration",
        str(f),
        "--target",
        "y",
        "--score",
        "p",
        "--group",
        "g",
        "--bins",
        "quantile",
    ]
    assert main([*argv, "--band", "pairs", "-o", str(tmp_path / "g.png")]) == 0
    # quantile: the old name of ECE's mass bins, their number ECE's default
    assert seen["bins"] == "mass" and seen["n_bins"] == 15
    assert seen["band"] == "pairs" and seen["band_level"] == 0.9


def test_calibration_display_takes_the_band_options():
    from perfeval.plot import CalibrationDisplay

    rng = np.random.default_rng(6)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    d = CalibrationDisplay.from_predictions(y, s, band_level=0.8, band="pairs").plot()
    assert "80% consistency band (forecasts and outcomes redrawn)" in d.ax_.get_legend_handles_labels()[1]
    assert d.curves[0].extra["band_method"] == "pairs" and d.curves[0].extra["band_level"] == 0.8


def test_plot_says_why_a_curve_has_no_band(tmp_path, capsys):
    """Fractional weights draw no consistency band: the plot said nothing; now one note a model,
    with the reason the curve carries (extra["band_why"]), and none when the band is drawn."""
    rng = np.random.default_rng(8)
    n = 200
    s = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < s).astype(int)
    w = rng.uniform(0.5, 1.5, n)
    f = tmp_path / "f.csv"
    f.write_text(
        "y,s,w\n" + "".join(f"{a},{b!r},{c!r}\n" for a, b, c in zip(y, s.tolist(), w.tolist(), strict=True))
    )
    base = ["plot", "calibration", str(f), "--target", "y", "--score", "s", "-o", str(tmp_path / "c.png")]
    capsys.readouterr()
    assert main([*base, "--weight", "w"]) == 0
    err = capsys.readouterr().err
    why = C.calibration(y, s, sample_weight=w).extra["band_why"]
    assert why and f"perfeval: note: no consistency band for 's': {why}\n" in err
    assert main(base) == 0
    assert "no consistency band" not in capsys.readouterr().err


def test_each_models_band_has_its_legend_entry(tmp_path):
    """With several models the legend named only the first model's band (in its colour): each
    model's band now has an entry of its own, the model's name and its colour; one model keeps the
    plain entry."""
    from matplotlib.colors import to_rgba

    from perfeval.plot import CurveDisplay

    rng = np.random.default_rng(9)
    s = np.round(rng.random(600), 2)
    y = (rng.random(600) < s**1.4).astype(int)
    models = {"a": s, "b": np.round(np.clip(s + rng.normal(0, 0.1, 600), 0, 1), 2), "c": s**2}
    d = CurveDisplay.from_models(y, models, kind="calibration", bins="uniform", n_bins=8).plot()
    handles, labels = d.ax_.get_legend_handles_labels()
    band = "90% consistency band (outcomes redrawn)"
    for name, line in zip(models, d.lines_, strict=True):
        i = labels.index(f"{name}: {band}")
        assert to_rgba(handles[i].get_color()[0], 0.3) == to_rgba(line.get_color(), 0.3)
    assert sum("consistency band" in lab for lab in labels) == 3
    one = CurveDisplay.from_models(y, {"a": s}, kind="calibration", bins="uniform", n_bins=8).plot()
    assert band in one.ax_.get_legend_handles_labels()[1]
    d.figure_.savefig(tmp_path / "three.png", dpi=110)
