"""Bad input and bad options: one clear `Error:` line naming what and where, a non-zero status, nothing
on stdout, no traceback -- one test per kind."""

from __future__ import annotations

import pytest

from conftest import run_perf, run_perf_process

GOOD = b"1 0.9\n0 0.1\n1 0.8\n0 0.3\n"


def _assert_error(out, err, status, *fragments, code=1):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert status == code
    assert out == ""
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: ")
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.mark.parametrize(
    "data, where, token",
    [
        (b"1 0.9\n0 abc\n", "line 2, field 2", "'abc'"),
        (b"1 0.9\n0 0.1\n1 0.8x\n", "line 3, field 2", "'0.8x'"),
        (b"1 0.9\n0 0.1 foo\n", "line 2, field 3", "'foo'"),
        (b"1 0.9\n1.5.5 0.2\n", "line 2, field 1", "'1.5.5'"),
        (b"1 0.9\n0 0x\n", "line 2, field 2", "'0x'"),
        (b"1 0.9\n0 -\n", "line 2, field 2", "'-'"),
        (b"1 0.9\n\x00 0.2\n", "line 2, field 1", ""),
    ],
)
def test_non_numeric_token(data, where, token):
    out, err, status = run_perf(["-acc"], data)
    _assert_error(out, err, status, "standard input", where, token, "expected a number")


@pytest.mark.parametrize("tok", ["nan", "NaN", "-nan", "nan(123)"])
def test_nan_is_rejected(tok):
    out, err, status = run_perf(["-roc"], b"1 0.9\n0 " + tok.encode() + b"\n")
    _assert_error(out, err, status, "line 2, field 2", "NaN")


def test_nan_target_is_rejected():
    out, err, status = run_perf(["-roc"], b"1 0.9\nnan 0.5\n")
    _assert_error(out, err, status, "line 2, field 1", "NaN")


def test_error_in_second_half_of_a_large_input_names_the_right_line():
    rows = b"".join(b"%d 0.%06d\n" % (i % 2, i % 999983) for i in range(600_000))
    out, err, status = run_perf(["-roc"], rows + b"1 oops\n" + rows)
    _assert_error(out, err, status, "line 600001, field 2", "'oops'")


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"1.5 1 0.9\n", "'1.5'"),
        (b"a 1 0.9\n", "'a'"),
        (b"1 1 0.9\n2e0 0 0.2\n", "'2e0'"),
    ],
)
def test_non_integer_block_id(data, fragment):
    out, err, status = run_perf(["-blocks", "-apr"], data)
    _assert_error(out, err, status, "integer block id", fragment)


def test_block_id_out_of_range():
    out, err, status = run_perf(["-blocks", "-apr"], b"99999999999 1 0.5\n")
    _assert_error(out, err, status, "32-bit")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["-acc", "-t"], "-t"),
        (["-thresh"], "-thresh"),
        (["-threshold"], "-threshold"),
        (["-plot"], "-plot"),
        (["-ntop"], "-ntop"),
        (["-nrm"], "-nrm"),
        (["-norm"], "-norm"),
        (["-percent"], "-percent"),
        (["-slq"], "-slq"),
        (["-slacq"], "-slacq"),
        (["-cal"], "-cal"),
        (["-sar", "1", "2"], "-sar"),
        (["-cost", "1", "2", "3"], "-cost"),
    ],
)
def test_option_missing_its_value(args, fragment):
    out, err, status = run_perf(args, GOOD)
    _assert_error(out, err, status, fragment, "needs")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["-slq", "0"], "above 0"),
        (["-slq", "2.5"], "whole number"),
        (["-slq", "2000"], "at most 1000"),
        (["-slq", "nan"], "NaN"),
        (["-cal", "0"], "at least 1"),
        (["-cal", "-3"], "at least 1"),
        (["-cal", "nan"], "at least 1"),
        (["-percent", "nan"], "NaN"),
    ],
)
def test_option_values_the_original_cannot_use(args, fragment):
    out, err, status = run_perf(args, GOOD)
    _assert_error(out, err, status, args[0], fragment)


def test_file_that_is_a_directory(tmp_path):
    out, err, status = run_perf(["-roc", "-file", str(tmp_path)], b"")
    _assert_error(out, err, status, str(tmp_path), "directory")


def test_errors_in_files_mode_name_the_file(tmp_path):
    (tmp_path / "t").write_text("1\n0\nx\n")
    (tmp_path / "p").write_text("0.5\n0.4\n0.3\n")
    out, err, status = run_perf(["-roc", "-files", "t", "p"], cwd=tmp_path)
    _assert_error(out, err, status, "t, line 3, field 1", "'x'")


def test_original_errors_keep_their_text():
    out, err, status = run_perf(["-percent", "101", "-acc"], GOOD)
    assert (out, err, status) == ("", "Error: The argument for -percent must be between 0 and 100.\n", 1)
    out, err, status = run_perf(["-slq", "-1"], GOOD)
    assert (out, err, status) == ("", "Error: Slacq bin width must be positive\n", 1)
    out, err, status = run_perf(["-file"], GOOD)
    assert (err, status) == ("Error: Must specify file name after -file\n", 1)
    out, err, status = run_perf(["-files", "a"], GOOD)
    assert (err, status) == ("Error: Must specify two file names after -files\n", 1)
    out, err, status = run_perf(["-blocks", "-apr"], b"1 1 0.5\n1 0 0.2\n1 2 0.1\n")
    assert (err, status) == ("Error: More than 2 unique target values detected.  Exiting.\n", 255)


def test_unrecognised_option_prints_the_first_line_and_our_help():
    out, err, status = run_perf(["-bogus"], GOOD)
    assert status == 1
    assert out.startswith("\nError: Unrecognized program option -bogus\n")
    assert "usage: perf" in out


@pytest.mark.parametrize("flag", ["-h", "--help", "-help"])
def test_help_exits_zero(flag):
    out, err, status = run_perf([flag])
    assert status == 0 and err == ""
    assert "usage: perf" in out and "-blocks" in out


def test_version():
    out, err, status = run_perf(["--version"])
    assert status == 0 and "PERF 5.12" in out and "perfeval" in out


def test_console_script_end_to_end():
    r = run_perf_process(["-roc"], GOOD)
    assert r.returncode == 0 and r.stdout == b"ROC    1.00000\n" and r.stderr == b""
    r = run_perf_process(["-roc"], b"1 0.9\n0 nan\n")
    assert r.returncode == 1 and r.stdout == b"" and b"Traceback" not in r.stderr
    assert r.stderr.startswith(b"Error: standard input, line 2")


def test_reader_going_away_mid_output_is_sigpipe_status_not_success(tmp_path):
    """`perf -plot roc big | head`: the original dies of SIGPIPE (status 141); a short write must not
    pass for success with the output cut.  The same for `perfeval eval --per-group ... | head`."""
    import random
    import subprocess
    import sys

    rnd = random.Random(1)
    rows = [(rnd.randint(0, 1), f"{rnd.random():.6f}", i % 30000) for i in range(60000)]
    two = "".join(f"{t} {s}\n" for t, s, _ in rows).encode()
    three = "".join(f"{t} {s} {g}\n" for t, s, g in rows).encode()
    for cmd, data in (
        ([sys.executable, "-m", "perfeval.classic.main", "-plot", "roc"], two),
        ([sys.executable, "-m", "perfeval", "eval", "-", "-m", "roc", "--per-group", "--group", "3"], three),
    ):
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdin.write(data)
        p.stdin.close()
        assert p.stdout.read(20)
        p.stdout.close()
        assert p.wait(timeout=120) == 141, cmd
        assert b"Traceback" not in p.stderr.read()
