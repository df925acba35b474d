"""Write docs/images/report-slices.png: the slices section of a report, as headless Chromium draws it.

Run by ``make report-slices`` (the report of docs/slices.md's sample first).  Chromium loads a copy
of the page with a small script that measures where the section starts and ends (its heading and the
next one, ``Plots``) and writes it into the page, which ``--dump-dom`` prints; then it takes a
screenshot of the whole page at 1280 pixels, cut to the section and kept as a 256-colour palette
(docs/plots.md, "Checked in a browser": the same flags).

Usage: python docs/examples/slices/screenshot.py REPORT.html OUT.png
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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
    "--virtual-time-budget=20000",
]

MEASURE = """<script>window.addEventListener("load", function () {
  var tops = {};
  document.querySelectorAll("h2").forEach(function (h) {
    tops[h.textContent] = h.getBoundingClientRect().top + scrollY; });
  var pre = document.createElement("pre"); pre.id = "where";
  pre.textContent = JSON.stringify({tops: tops, height: document.documentElement.scrollHeight});
  document.body.appendChild(pre); });</script>"""


def chromium(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("headless Chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [exe, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=180
        )


def main(page: Path, out: Path) -> None:
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.html"
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), "utf-8")
        dom = chromium("--window-size=1280,1000", "--dump-dom", probe.as_uri()).stdout
        found = re.search(r'<pre id="where">(.*?)</pre>', dom, re.S)
        assert found, "no measurements in the page"
        where = json.loads(html.unescape(found.group(1)))
        shot = Path(tmp) / "page.png"
        chromium(f"--window-size=1280,{int(where['height']) + 40}", f"--screenshot={shot}", page.as_uri())
        top, bottom = int(where["tops"]["Slices"]) - 12, int(where["tops"]["Plots"]) - 16
        im = Image.open(shot).convert("RGB").crop((0, top, 1280, bottom))
        im.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]))
