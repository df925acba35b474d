"""Issue 33, part calib2: the reliability diagram's consistency band (Broecker & Smith 2007: each
case's outcome redrawn from its score, the forecasts held fixed) in the calibration curve, `perfeval
plot calibration` and the HTML report.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

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
    assert "90% consistency band (calibrated)" in labels
    bars = [c for c in d.ax_.collections if c.get_label() == "90% consistency band (calibrated)"]
    segs = bars[0].get_segments()
    lo, hi = d.curves[0].extra["band"]
    assert np.allclose([sg[0][1] for sg in segs], lo) and np.allclose([sg[1][1] for sg in segs], hi)
    out = tmp_path / "c.png"
    assert main(["plot", "calibration", str(f), "--target", "y", "--score", "p", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    html = tmp_path / "r.html"
    assert main(["report", str(f), "--target", "y", "--score", "p", "-m", "ece", "-o", str(html)]) == 0
    assert "consistency band" in html.read_text()
