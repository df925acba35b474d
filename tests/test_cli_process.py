"""The commands as processes: closed standard streams, a full disk, Ctrl-C at any moment, and bad
Dask requests end with one line and a conventional status, never a traceback or exit 70."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def _cmd(name: str) -> list[str]:
    exe = BIN / name
    if exe.exists():
        return [str(exe)]
    module = "perfeval.classic.main" if name == "perf" else "perfeval.cli.main"
    return [sys.executable, "-m", module]


@pytest.fixture
def small(tmp_path):
    p = tmp_path / "d.txt"
    p.write_text("1 0.5\n0 0.2\n1 0.9\n0 0.4\n1 0.3\n0 0.1\n")
    return str(p)


def _one_line_error(err: str) -> None:
    lines = [ln for ln in err.splitlines() if "warning" not in ln]
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize("name", ["perf", "perfeval"])
def test_closed_standard_output(small, name):
    args = [small] if name == "perf" else ["eval", small]
    r = subprocess.run(
        _cmd(name) + ([] if name == "perf" else args),
        stdin=open(small) if name == "perf" else None,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        close_fds=True,
        preexec_fn=lambda: os.close(1),
    )
    assert r.returncode == 1 and "standard output is closed" in r.stderr
    _one_line_error(r.stderr)


@pytest.mark.parametrize("name", ["perf", "perfeval"])
def test_closed_standard_input(name):
    r = subprocess.run(
        _cmd(name) + ([] if name == "perf" else ["eval", "-"]),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(0),
    )
    assert r.returncode == 1 and "standard input: cannot be read: it was closed" in r.stderr
    _one_line_error(r.stderr)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("name", ["perf", "perfeval"])
def test_a_full_disk_under_the_output(small, name):
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            _cmd(name) + ([] if name == "perf" else ["eval", small]),
            stdin=open(small) if name == "perf" else None,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert r.returncode == 1 and "cannot write the output (No space left on device)" in r.stderr
    _one_line_error(r.stderr)


# -- a full disk under a file a command writes (-o FILE, --per-group-output FILE): one line naming the
# file, status 1, and nothing left behind, neither an empty file nor a part of one, and a file that was
# there as it was.  The disk is made full with a limit on the size of the files the process writes
# (RLIMIT_FSIZE: "File too large"), with a tiny tmpfs where one can be mounted ("No space left on
# device").
CLICKS = str(Path(__file__).resolve().parents[1] / "src" / "perfeval" / "data" / "clicks.csv")
_MODEL = ["--target", "click", "--score", "model_a"]
WRITERS = {
    "plot png": (["plot", "roc", CLICKS, *_MODEL, "-o"], "out.png"),
    "plot pdf": (["plot", "calibration", CLICKS, *_MODEL, "-o"], "out.pdf"),
    "report": (["report", CLICKS, *_MODEL, "-m", "roc,apr", "-o"], "out.html"),
    "eval -o": (["eval", CLICKS, *_MODEL, "-m", "roc,apr", "-o"], "out.json"),
    "eval --per-group-output": (
        ["eval", CLICKS, *_MODEL, "--group", "user", "-m", "roc", "--per-group-output"],
        "out.csv",
    ),
    "compare -o": (["compare", CLICKS, "--target", "click", "--score", "model_a,model_b", "-o"], "out.csv"),
    "sample -o": (["sample", "clicks.csv", "-o"], "out.csv"),
}


def _limited(limit: int):
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_full_disk_under_an_output_file_leaves_nothing_and_names_it(tmp_path, writer):
    if writer.startswith(("plot", "report")):
        pytest.importorskip("matplotlib")
    pytest.importorskip("resource")
    args, name = WRITERS[writer]
    out = tmp_path / "out"
    out.mkdir()
    target = out / name
    argv = _cmd("perfeval") + args + [str(target)]
    # the command as it is, and the file it writes (its first run may build matplotlib's font cache)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0 and target.stat().st_size > 0, r.stderr
    whole = target.read_bytes()
    # the disk full at the first byte (before: an empty file), then half-way (before: a part of it),
    # over an old file (before: replaced by the part)
    for limit, old in ((0, None), (len(whole) // 2, b"old\n")):
        target.unlink(missing_ok=True)
        if old is not None:
            target.write_bytes(old)
        r = subprocess.run(
            argv, capture_output=True, text=True, timeout=300, cwd=tmp_path, preexec_fn=_limited(limit)
        )
        assert r.returncode == 1, (limit, r.stderr)
        assert f"perfeval: error: cannot write {target} (File too large)" in r.stderr, (limit, r.stderr)
        _one_line_error(r.stderr)
        assert sorted(p.name for p in out.iterdir()) == ([] if old is None else [name]), limit
        if old is not None:
            assert target.read_bytes() == old


def test_a_full_tmpfs_under_a_plot(tmp_path):
    """A real full disk: a 64 kB tmpfs, mounted in a mount namespace of its own (skipped where one
    cannot be made)."""
    import shutil

    pytest.importorskip("matplotlib")
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"]).returncode != 0:
        pytest.skip("no mount namespace here (unshare -rm)")
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        'mount -t tmpfs -o size=64k tmpfs "$1" && head -c 60000 /dev/zero > "$1/filler"; '
        'shift; "$@"; echo "status $?"; ls -A "${DISK}"'
    )
    argv = _cmd("perfeval") + ["plot", "roc", CLICKS, *_MODEL, "-o", str(disk / "roc.png")]
    r = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(disk), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, DISK=str(disk)),
    )
    assert f"perfeval: error: cannot write {disk}/roc.png (No space left on device)" in r.stderr, r.stderr
    _one_line_error(r.stderr)
    assert r.stdout.split() == ["status", "1", "filler"], r.stdout


def test_an_output_file_through_a_link_is_written_there_the_link_kept(small, tmp_path):
    """-o through a symbolic link (-o /dev/stdout is one) writes where it points; it was replaced by
    a file of its own."""
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    r = subprocess.run(
        _cmd("perfeval") + ["eval", small, "-m", "roc", "-o", str(link)], capture_output=True, text=True
    )
    assert r.returncode == 0 and link.is_symlink() and '"ROC"' in real.read_text(), r.stderr


@pytest.mark.parametrize("addr", ["local:0", "local:x", "local:-1"])
def test_dask_local_zero_workers_is_an_error_not_a_hang(small, addr):
    pytest.importorskip("distributed")
    r = subprocess.run(
        _cmd("perfeval") + ["eval", small, "--dask", addr], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2 and "expected local or local:N" in r.stderr
    _one_line_error(r.stderr)


def test_dask_parquet_file_missing_a_column_names_the_file(tmp_path):
    pytest.importorskip("distributed")
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pd.DataFrame({"y": [1, 0, 1, 0], "s": [0.5, 0.2, 0.9, 0.4]}).to_parquet(tmp_path / "a.parquet")
    pd.DataFrame({"y": [1, 0, 1, 0], "t": [0.5, 0.2, 0.9, 0.4]}).to_parquet(tmp_path / "b.parquet")
    r = subprocess.run(
        _cmd("perfeval")
        + ["eval", str(tmp_path / "*.parquet"), "--dask", "local:1", "--target", "y", "--score", "s"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1 and f"{tmp_path}/b.parquet: has no column 's' (its columns: y, t)" in r.stderr
    _one_line_error(r.stderr)


def test_group_keys_are_escaped_in_tables_and_quoted_in_csv(tmp_path, capsys):
    from conftest import run_cli

    (tmp_path / "g.csv").write_bytes(
        b'y,s,g\x1b[31m\n1,0.5,a\x1b[2Jb\n0,0.2,a\x1b[2Jb\n1,0.9,"c,d"\n0,0.4,"c,d"\n'
    )
    args = [
        "eval",
        str(tmp_path / "g.csv"),
        "--per-group",
        "-m",
        "gauc",
        "--group",
        "3",
        "--target",
        "1",
        "--score",
        "2",
    ]
    code, out, err = run_cli(args, capsys)
    assert code == 0 and "\x1b" not in out + err and "a\\x1b[2Jb" in out
    code, out, err = run_cli(args + ["--format", "csv"], capsys)
    assert code == 0 and '\n"c,d",1.0\n' in out


def test_ctrl_c_inside_an_import_that_wraps_it_is_status_130(monkeypatch, capsys):
    """numpy, interrupted while it imports its C modules, raises ImportError from the
    KeyboardInterrupt: that is Ctrl-C (130, nothing said), not an internal error."""
    import perfeval.cli.main as cli
    from conftest import run_cli

    def interrupted_import(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise ImportError("importing the numpy C-extensions failed") from e

    monkeypatch.setattr(cli, "command", lambda name: interrupted_import)
    code, out, err = run_cli(["eval", "-m", "roc"], capsys, stdin="1 0.5\n0 0.2\n")
    assert code == 130 and out == "" and err == ""

    def broken(args):
        raise ImportError("a real bug")

    monkeypatch.setattr(cli, "command", lambda name: broken)
    code, _, err = run_cli(["eval", "-m", "roc"], capsys, stdin="1 0.5\n0 0.2\n")
    assert code == 70 and "internal error (ImportError: a real bug)" in err
