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
#: the golden suite (runs of the original PERF 5.12), in the repository; PERF_GOLDEN points elsewhere
GOLDEN = Path(os.environ.get("PERF_GOLDEN", ROOT / "tests" / "golden"))

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.register_profile("nightly", max_examples=3000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def run_perf(
    args: list[str], stdin: bytes = b"", cwd: str | os.PathLike | None = None
) -> tuple[str, str, int]:
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
    return subprocess.run(
        [sys.executable, "-m", "perfeval.classic.main", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=120,
    )


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


@pytest.fixture
def postgres_url():
    """A throwaway PostgreSQL server on a Unix socket (skipped where PostgreSQL or psycopg is absent)."""
    import os
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    pytest.importorskip("psycopg")
    if not (shutil.which("initdb") and shutil.which("pg_ctl")):
        pytest.skip("PostgreSQL's initdb/pg_ctl are not installed")
    d = Path(
        tempfile.mkdtemp(prefix="perfeval-pg-")
    )  # short (a socket path) and reachable by the server's user
    os.chmod(d, 0o777)
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []  # postgres refuses root

    def run(*cmd):
        return subprocess.run([*as_user, *cmd], check=True, capture_output=True, timeout=60)

    run("initdb", "-D", str(d / "data"), "-A", "trust", "-U", "perfeval")
    run(
        "pg_ctl",
        "-D",
        str(d / "data"),
        "-o",
        f"-k {d} -c listen_addresses=''",
        "-l",
        str(d / "log"),
        "-w",
        "start",
    )
    try:
        yield f"postgresql://perfeval@/postgres?host={d}"
    finally:
        run("pg_ctl", "-D", str(d / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for the whole test session (tests/test_spark*.py): two cores, four
    attempts a task (``local[2,4]``: Spark's retry, for the test of a lost worker), few shuffle
    partitions, no UI; skipped where pyspark or Java is absent.  Stopped at the end of the session.
    """
    import shutil

    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'perfeval[spark]')")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Spark needs Java (a JDK 17 or 21): none on PATH nor JAVA_HOME")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors' Python: this one
    src = str(ROOT / "src")  # the executors import perfeval from this checkout, as the tests do
    if src not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    session = (
        SparkSession.builder.master("local[2,4]")
        .appName("perfeval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
