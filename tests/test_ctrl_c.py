"""Ctrl-C at any moment is status 130 (or the end of a process killed by SIGINT, which a shell shows
as 130) with nothing said: no traceback, no "internal error", no half-written file.

No timing and no luck: tests/interrupt_points/sitecustomize.py runs the command once and, at each of
its points (every import once the package runs, numpy's and its C modules' included, the first call
of every function of perfeval, each built-in call of the entry points and the streams, the end of
main() and the exit handlers), forks and interrupts the copy there; every point, on every run.
"""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import perfeval

HOOK = Path(__file__).resolve().parent / "interrupt_points"
SRC = os.path.dirname(perfeval.__file__) + os.sep
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not hasattr(os, "pidfd_open"), reason="the walk forks (Linux)"
)


def _script(name: str) -> list[str]:
    exe = BIN / name
    if not exe.exists():
        pytest.skip(f"no {name} console script beside {sys.executable}")
    return [str(exe)]


def _walk(cwd: Path, argv: list[str], stdin: Path | None = None, **env: str) -> tuple:
    log = cwd / "points.txt"
    path = [str(HOOK), *filter(None, [os.environ.get("PYTHONPATH")])]
    full_env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(path),
        PERFEVAL_TEST_INTERRUPT_LOG=str(log),
        PERFEVAL_TEST_INTERRUPT_SRC=SRC,
        **env,
    )
    with open(stdin or os.devnull, "rb") as fh:
        r = subprocess.run(argv, stdin=fh, env=full_env, cwd=cwd, capture_output=True, timeout=1200)
    rows = [ast.literal_eval(line) for line in log.read_text().splitlines()] if log.exists() else []
    return r, rows


def _check(rows: list[dict]) -> list[str]:
    """Every interrupted point: 130 or killed by SIGINT, nothing on stderr; the points run before the
    package set Ctrl-C's handling: only the first lines of perfeval/__init__.py (and importlib's
    callback of the lock of the module it imports), no import.
    """
    bad = [
        f"{r['point']}: status {r['status']}, stderr {r['stderr'][-300:]!r}"
        for r in rows
        if r["status"] != "before" and (r["status"] not in (130, -signal.SIGINT) or r["stderr"])
    ]
    assert not bad, f"{len(bad)} of {len(rows)} points:\n" + "\n".join(bad[:20])
    before = [r["point"] for r in rows if r["status"] == "before"]
    allowed = ("call __init__.py:<module>", "call importlib's module lock callback")
    assert all(p.startswith(allowed) or p.endswith(" in __init__.py:<module>") for p in before), before
    return [r["point"] for r in rows if r["status"] != "before"]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    p = tmp_path / "t.csv"
    rows = [f"{y},{s},{g}" for g in "abc" for y, s in ((1, 0.9), (0, 0.2), (1, 0.4), (0, 0.6))]
    p.write_text("y,s,g\n" + "\n".join(rows) + "\n")
    return p


def test_ctrl_c_at_every_point_of_perfeval_is_status_130_and_silent(tmp_path, table):
    out = tmp_path / "out"
    out.mkdir()
    argv = _script("perfeval") + [
        "eval",
        str(table),
        "--target",
        "y",
        "--score",
        "s",
        "--group",
        "g",
        "-m",
        "roc,gauc",
        "--per-group-output",
        str(out / "groups.csv"),
    ]
    # from the file's writing on, each copy is forked before it and runs on to its point (the copies
    # would otherwise share the file being written)
    r, rows = _walk(
        tmp_path,
        argv,
        PERFEVAL_TEST_INTERRUPT_WATCH=str(out),
        PERFEVAL_TEST_INTERRUPT_REPLAY="call base/console.py:write_file",
    )
    assert r.returncode == 0 and b"GAUC" in r.stdout, r.stderr.decode()[-2000:]
    points = _check(rows)
    # every stage was walked: the package's imports, numpy's and the modules its C code imports, the
    # command, reading, writing the file and standard output, the way out
    for stage in (
        "import perfeval._version",
        "import numpy",
        "import datetime",
        "call cli/main.py:_checked",
        "call cli/commands/eval.py:run",
        "call base/console.py:write_file",
        "call base/console.py:WholeWrites.write",
        "return of cli/main.py:main",
        "call importlib's module lock callback (Ctrl-C: _on_ctrl_c)",
        "the first exit handler",
        "the last exit handler",
    ):
        assert any(p == stage or p.startswith(stage + " ") for p in points), stage
    assert len(points) > 300
    # the file is there whole or not at all: never a temporary file left, never a part of it
    size = (out / "groups.csv").stat().st_size
    assert size > 0
    for row in rows:
        assert set(row["files"]) <= {"groups.csv"} and row["files"].get("groups.csv", size) == size, row


def test_ctrl_c_while_perfeval_writes_its_output_file(tmp_path, table):
    out = tmp_path / "out"
    out.mkdir()
    argv = _script("perfeval") + [
        "eval",
        str(table),
        "--target",
        "y",
        "--score",
        "s",
        "-o",
        str(out / "m.json"),
    ]
    r, rows = _walk(
        tmp_path,
        argv,
        PERFEVAL_TEST_INTERRUPT_WATCH=str(out),
        PERFEVAL_TEST_INTERRUPT_FROM="call base/console.py:write_file",
        PERFEVAL_TEST_INTERRUPT_REPLAY="call base/console.py:write_file",
    )
    assert r.returncode == 0 and (out / "m.json").exists(), r.stderr.decode()[-2000:]
    points = _check(rows)
    assert "call base/console.py:write_file" in points and "return of cli/main.py:main" in points
    size = (out / "m.json").stat().st_size
    for row in rows:
        assert set(row["files"]) <= {"m.json"} and row["files"].get("m.json", size) == size, row


def test_ctrl_c_at_every_point_of_perf_is_the_end_of_a_c_program(tmp_path):
    data = Path(SRC) / "data" / "testperfdata"
    r, rows = _walk(tmp_path, _script("perf") + ["-roc", "-rms"], stdin=data)
    assert r.returncode == 0 and r.stdout.startswith(b"ROC"), r.stderr.decode()[-2000:]
    points = _check(rows)
    assert "import perfeval._version" in points and "return of classic/main.py:main" in points
    assert len(points) > 50


# -- main()'s handling of Ctrl-C, in this process ------------------------------------------------------
def _ctrl_c() -> None:
    signal.raise_signal(signal.SIGINT)  # Ctrl-C: the handler runs before this returns


def test_a_failure_after_ctrl_c_is_130_whatever_became_of_the_keyboard_interrupt(monkeypatch, capsys):
    """numpy's C code imports datetime: a Ctrl-C there comes out as an ImportError that has no trace
    of the KeyboardInterrupt (PyCapsule_Import replaces it); any failure after a Ctrl-C is 130."""
    import perfeval.cli.main as cli
    from conftest import run_cli

    def interrupted_import(args):
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            pass
        raise ImportError('PyCapsule_Import could not import module "datetime"')

    monkeypatch.setattr(cli, "command", lambda name: interrupted_import)
    code, out, err = run_cli(["eval", "-m", "roc"], capsys, stdin="1 0.5\n0 0.2\n")
    assert (code, out, err) == (130, "", "")

    def then_bad_input(args):
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            pass
        from perfeval.exceptions import MissingDependencyError

        raise MissingDependencyError("Parquet files need pyarrow: pip install 'perfeval[parquet]'")

    monkeypatch.setattr(cli, "command", lambda name: then_bad_input)
    code, out, err = run_cli(["eval", "-m", "roc"], capsys, stdin="1 0.5\n0 0.2\n")
    assert (code, out, err) == (130, "", "")


def test_ctrl_c_in_a_finalizer_is_130_silent_and_writes_nothing(monkeypatch, capsys, tmp_path):
    """A KeyboardInterrupt raised in a __del__ (or in importlib's callback of a module lock) cannot be
    passed on by Python: it printed "Exception ignored in" and a traceback, and the command ran on and
    wrote its output.  Now nothing is said, and nothing more is written."""
    import perfeval.cli.main as cli
    from conftest import run_cli

    class Finalized:
        def __del__(self):
            _ctrl_c()

    def command(args):
        x = Finalized()
        del x
        sys.stdout.write('{"ROC": 1.0}\n')
        return 0

    monkeypatch.setattr(cli, "command", lambda name: command)
    out = tmp_path / "out.json"
    code, stdout, err = run_cli(["eval", "-m", "roc", "-o", str(out)], capsys, stdin="1 0.5\n0 0.2\n")
    assert (code, stdout, err) == (130, "", "") and list(tmp_path.iterdir()) == []


def test_main_gives_back_the_ctrl_c_handling_it_found(capsys):
    from conftest import run_cli

    def mine(signum, frame):
        raise KeyboardInterrupt

    unraisable = sys.unraisablehook
    old = signal.signal(signal.SIGINT, mine)
    try:
        code, out, _ = run_cli(["eval", "-m", "roc"], capsys, stdin="1 0.5\n0 0.2\n")
        assert code == 0 and "ROC" in out
        assert signal.getsignal(signal.SIGINT) is mine and sys.unraisablehook is unraisable
    finally:
        signal.signal(signal.SIGINT, old)
