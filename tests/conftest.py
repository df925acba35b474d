"""Shared test helpers: the golden suite's location, and running the classic command in-process."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(os.environ.get("PERF_GOLDEN", ROOT.parent / "shared" / "perf-golden"))

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.register_profile("nightly", max_examples=3000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def run_perf(args: list[str], stdin: bytes = b"", cwd: str | os.PathLike | None = None) -> tuple[str, str, int]:
    """Run the classic command in this process: (stdout, stderr, status)."""
    from perfeval.classic.main import run

    out, err = io.BytesIO(), io.StringIO()
    old_stdin, old_cwd = sys.stdin, os.getcwd()
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(stdin))  # type: ignore[assignment]
    try:
        if cwd is not None:
            os.chdir(cwd)
        status = run(list(args), out, err)
    finally:
        sys.stdin = old_stdin
        os.chdir(old_cwd)
    return out.getvalue().decode(), err.getvalue(), status


def run_perf_process(args: list[str], stdin: bytes = b"", cwd=None) -> subprocess.CompletedProcess:
    """Run the installed `perf` console script (end to end)."""
    return subprocess.run([sys.executable, "-m", "perfeval.classic.main", *args], input=stdin,
                          capture_output=True, cwd=cwd, timeout=120)


@pytest.fixture
def perf():
    return run_perf


def run_cli(argv: list[str], capsys, stdin: bytes | str = b"") -> tuple[int, str, str]:
    """Run the ``perfeval`` command in this process: (status, stdout, stderr)."""
    from perfeval.cli.main import main

    old = sys.stdin
    data = stdin.encode() if isinstance(stdin, str) else stdin
    sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(data))  # type: ignore[assignment]
    try:
        code = main(argv)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err
