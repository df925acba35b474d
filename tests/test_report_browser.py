"""The HTML report as a browser lays it out (headless Chromium, Debian's ``chromium`` package).

The report has no script of its own.  The test adds a small one to a copy: after the page has
loaded it measures the layout (every image loaded with a natural size, figures per row, captions
centred under their images, the small multiples across the full width, the text of the figures at a
readable size, no horizontal overflow) and writes the measurements into the page as JSON, which
``chromium --dump-dom`` prints.  A screenshot of the same page is saved beside it; with
``PERFEVAL_REPORT_SCREENSHOT=path`` it is copied there (how docs/report-screenshot.png is made).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
pd = pytest.importorskip("pandas")

from perfeval.cli.main import main  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)

MEASURE = """
<script>
window.addEventListener("load", function () {
  function box(e) { var r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY,
            width: r.width, height: r.height}; }
  var figures = Array.prototype.map.call(document.querySelectorAll(".plots figure"), function (f) {
    var img = f.querySelector("img"), cap = f.querySelector("figcaption");
    return {kind: img.dataset.kind, wide: f.classList.contains("wide"), complete: img.complete,
            naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
            dpi: Number(img.dataset.dpi), img: box(img), caption: box(cap), figure: box(f)};
  });
  var out = {
    viewport: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    plots: box(document.querySelector(".plots")),
    images: document.images.length,
    figures: figures,
    groupTables: document.querySelectorAll("table.groups").length,
    measureHeads: Array.prototype.map.call(document.querySelectorAll("table.measures th"),
                                           function (t) { return t.textContent; }),
    height: document.documentElement.scrollHeight
  };
  var pre = document.createElement("pre");
  pre.id = "layout";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""

#: the measures of the docs' sample report (Makefile: report-sample)
SAMPLE_MEASURES = "roc,apr,ap,acc,prf,logloss,brier,gauc,ndcg@10"

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )


def layout(page: Path, width: int, tmp: Path) -> dict:
    """The measurements of the page at this window width."""
    probe = tmp / f"probe{width}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), "utf-8")
    run = chromium(
        [f"--window-size={width},1000", "--virtual-time-budget=20000", "--dump-dom", probe.as_uri()],
        tmp / f"profile{width}",
    )
    found = re.search(r'<pre id="layout">(.*?)</pre>', run.stdout, re.S)
    assert found, f"no measurements in the page (chromium: {run.returncode}, {run.stderr[-500:]})"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A report on the clicks of test_report_html (the page docs/sample-report.html shows), or the
    page PERFEVAL_REPORT_PAGE names (``make report-sample`` checks and shoots the docs' sample).
    """
    from test_report_html import MODELS, clicks_frame

    page = os.environ.get("PERFEVAL_REPORT_PAGE")
    if page:
        return Path(page).resolve()
    d = tmp_path_factory.mktemp("browser")
    path = d / "clicks.csv"
    clicks_frame().to_csv(path, index=False)
    out = d / "report.html"
    args = ["report", str(path), "--target", "clicked", "--score", ",".join(MODELS), "--group", "user_id"]
    assert main([*args, "-m", SAMPLE_MEASURES, "-o", str(out)]) == 0
    return out


def rows_of(figures: list[dict]) -> list[list[dict]]:
    """The figures grouped by the top of their image (one row of the grid each)."""
    rows: dict[int, list[dict]] = {}
    for f in figures:
        rows.setdefault(round(f["img"]["top"]), []).append(f)
    return [rows[k] for k in sorted(rows)]


@pytest.mark.parametrize("width", [1280, 700])
def test_report_layout_in_chromium(report, tmp_path, width):
    m = layout(report, width, tmp_path)
    assert m["scrollWidth"] <= m["viewport"], "the page overflows sideways"
    figures = m["figures"]
    assert m["images"] == len(figures) == 7
    for f in figures:
        assert f["complete"] and f["naturalWidth"] > 0 and f["naturalHeight"] > 0, f["kind"]
        # CSS pixels a point of the figure's text: on a desktop window, 7.5 pt (the smallest) is at
        # least 9 px on screen (a narrow window shrinks the images with the page)
        if width >= 1000:
            assert f["img"]["width"] / f["naturalWidth"] * f["dpi"] / 72 >= 1.2, f["kind"]
        assert f["img"]["right"] <= m["plots"]["right"] + 0.5 and f["img"]["left"] >= m["plots"]["left"] - 0.5
        # the caption under its image, centred on it, and no wider than the figure
        img, cap = f["img"], f["caption"]
        assert 0 <= cap["top"] - img["bottom"] <= 16, f["kind"]
        assert abs((cap["left"] + cap["right"]) / 2 - (img["left"] + img["right"]) / 2) <= 1.5, f["kind"]
        assert cap["width"] <= f["figure"]["width"] + 0.5
    plain = [f for f in figures if not f["wide"]]
    rows = rows_of(plain)
    per_row = 2 if width >= 1000 else 1
    assert [len(r) for r in rows] == [per_row] * (6 // per_row)
    for r in rows:  # one row: images of one size, captions starting on one line
        assert len({(round(f["img"]["width"]), round(f["img"]["height"])) for f in r}) == 1
        assert max(f["caption"]["top"] for f in r) - min(f["caption"]["top"] for f in r) <= 1
    (wide,) = [f for f in figures if f["wide"]]
    assert wide["kind"] == "roc-groups"
    assert wide["img"]["width"] >= 0.99 * m["plots"]["width"]  # the small multiples: full width
    assert wide["img"]["top"] > rows[-1][0]["caption"]["bottom"]  # below the other plots
    assert m["groupTables"] == 3
    assert m["measureHeads"].count("mean over groups") == 3
    assert m["measureHeads"].count("overall(all rows pooled)") == 3


def test_report_screenshot(report, tmp_path):
    """A screenshot of the whole page (its height measured first): a PNG of the window's width."""
    m = layout(report, 1280, tmp_path)
    shot = tmp_path / "report.png"
    run = chromium(
        [
            f"--window-size=1280,{int(m['height']) + 40}",
            "--virtual-time-budget=20000",
            f"--screenshot={shot}",
            report.as_uri(),
        ],
        tmp_path / "profile-shot",
    )
    assert shot.exists(), run.stderr[-500:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24])[0] == 1280
    assert len(data) > 100_000  # the page drawn, not an empty window
    target = os.environ.get("PERFEVAL_REPORT_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)
