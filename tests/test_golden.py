"""Every case of tests/golden (runs of the original PERF 5.12), judged by its kind."""

from __future__ import annotations

import gzip
import json

import pytest

from conftest import GOLDEN, run_perf

CASES = (
    [json.loads(line) for line in open(GOLDEN / "cases.jsonl")] if (GOLDEN / "cases.jsonl").exists() else []
)


def _stdin(case: dict) -> bytes:
    if not case["stdin"]:
        return b""
    path = GOLDEN / "inputs" / case["stdin"]
    return gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()


def test_golden_suite_is_present():
    assert len(CASES) == 84, f"expected the 84 golden cases in {GOLDEN}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_golden(case):
    out, err, status = run_perf(case["args"], _stdin(case), cwd=GOLDEN / "inputs")
    kind = case["kind"]
    if kind in ("exact", "deviation"):
        assert out == case["stdout"]
        assert err == case["stderr"]
        assert status == case["status"]
    elif kind == "error":
        first = next((ln for ln in (out + err).splitlines() if ln.strip()), "")
        assert first == case["first_line"]
        assert status == case["status"]
    else:
        assert kind == "reject"
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert status != 0 and out == ""
        assert len(lines) == 1 and lines[0].startswith("Error:"), err
        assert "Traceback" not in err


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["kind"] in ("exact", "deviation")], ids=lambda c: c["id"]
)
def test_golden_through_the_two_thread_path(case, monkeypatch):
    from perfeval.classic import engine

    monkeypatch.setattr(engine, "PARALLEL_MIN", 0)
    out, err, status = run_perf(case["args"], _stdin(case), cwd=GOLDEN / "inputs")
    assert (out, err, status) == (case["stdout"], case["stderr"], case["status"])
