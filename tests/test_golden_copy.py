"""The golden suite lives in the repository (tests/golden) and the KDD Cup 2004 sample files in the
package (src/perfeval/data), so that a bare clone tests itself and shows the samples.  While the
project's shared folder beside the repository also holds the suite (../shared/perf-golden), the two
copies must stay identical, file for file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "golden"
SHARED = ROOT.parent / "shared" / "perf-golden"
#: the six official sample files of the KDD Cup release, as the golden suite's inputs name them
SAMPLES = (
    "testperfdata",
    "badtestperfdata",
    "phy_perf_sample_test.dat",
    "bad_phy_perf_sample_test.dat",
    "bio_perf_sample_test.dat",
    "bad_bio_perf_sample_test.dat",
)


def _files(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``root``."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_the_suite_is_in_the_repository():
    files = _files(HERE)
    assert {"cases.jsonl", "README.md", "SPEC.md"} <= set(files)
    assert sum(1 for f in files if f.startswith("inputs/")) >= 50
    assert len((HERE / "cases.jsonl").read_text().splitlines()) == 84


def test_the_package_holds_the_kdd_cup_samples_as_the_suite_has_them():
    data = ROOT / "src" / "perfeval" / "data"
    for name in SAMPLES:
        assert (data / name).read_bytes() == (HERE / "inputs" / name).read_bytes(), name


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/perf-golden beside the repository")
def test_the_copy_is_identical_to_the_shared_suite():
    here = _files(HERE)
    there = {k: v for k, v in _files(SHARED).items() if k in here or not k.startswith(".")}
    missing, extra = sorted(set(there) - set(here)), sorted(set(here) - set(there))
    changed = sorted(k for k in set(here) & set(there) if here[k] != there[k])
    assert not (missing or extra or changed), f"missing {missing}, extra {extra}, changed {changed}"
