"""Differential fuzzing against the original PERF 5.12 binary; skipped when it is not installed.

Set PERF_ORACLE to the original binary (docs/compatibility.md says how to obtain it) and
PERF_FUZZ_RUNS to the number of random runs (default 300).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from oracle_fuzz import fuzz  # noqa: E402

ORACLE = os.environ.get("PERF_ORACLE")


@pytest.mark.oracle
@pytest.mark.skipif(
    not ORACLE or not os.path.exists(ORACLE), reason="PERF_ORACLE (the original binary) not set"
)
def test_agrees_with_the_original_on_random_runs(tmp_path):
    perf = shutil.which("perf", path=str(Path(sys.executable).parent)) or shutil.which("perf")
    assert perf, "the perf console script is not installed"
    runs = int(os.environ.get("PERF_FUZZ_RUNS", "300"))
    ok, compared, _skipped, bad = fuzz(
        ORACLE, perf, runs, seed=int(os.environ.get("PERF_FUZZ_SEED", "0")), keep=str(tmp_path)
    )
    assert bad == 0, f"{bad} of {compared} runs differ; cases kept in {tmp_path}"
    assert compared > runs // 2
