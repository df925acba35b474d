"""A bounded mutation fuzzer of the command's inputs.

Valid tables (text, CSV with a header, TSV, JSON lines; 64-bit ids, string labels, weights, groups)
are mutated (bytes and lines deleted, repeated, swapped; junk, CR, CRLF, form feeds and the other
line ends of some readers only, a BOM, quotes, empty fields, NUL, huge numbers, NaN and infinities,
other digits, extra and missing columns, an empty file), then read by ``perfeval eval`` in memory
and streamed.  Every run must end with status 0, 1 or 2, no traceback and no internal error; an
error is one line on stderr; JSON output is strict; streamed and in-memory runs agree (the same
numbers, or the same error at the same line).  ``perf`` on the mutated text must end with a
documented status (0, 1, or 255: the original's exit(-1)) and no traceback.

CI runs a few hundred cases; more by hand:
``PERFEVAL_FUZZ_CASES=5000 PERFEVAL_FUZZ_SEED=3 pytest tests/test_input_fuzz.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import traceback

import pytest

from perfeval.cli.main import main

CASES = int(os.environ.get("PERFEVAL_FUZZ_CASES", "450"))
SEED = int(os.environ.get("PERFEVAL_FUZZ_SEED", "0"))


def _seeds(rng: random.Random) -> list[tuple[str, bytes, list[str]]]:
    """(file name, content, extra arguments) of valid inputs."""
    n = 24
    rows = [
        (rng.randrange(2), round(rng.random(), 3), 9007199254740992 + rng.randrange(4), rng.random() * 3)
        for _ in range(n)
    ]
    text = "".join(f"{y} {s}\n" for y, s, _, _ in rows)
    csv = "id,user,label,score,weight\n" + "".join(
        f"{i},{u},{'yes' if y else 'no'},{s},{w:.3f}\n" for i, (y, s, u, w) in enumerate(rows)
    )
    tsv = "label\tscore\tuser\n" + "".join(f"{y}\t{s}\t{u}\n" for y, s, u, _ in rows)
    jsonl = "".join(json.dumps({"label": y, "score": s, "user": u}) + "\n" for y, s, u, _ in rows)
    return [
        ("t.txt", text.encode(), ["-m", "roc,apr,rms"]),
        (
            "c.csv",
            csv.encode(),
            ["--target", "label", "--pos-label", "yes", "--weight", "weight", "-m", "roc,acc"],
        ),
        (
            "g.csv",
            csv.encode(),
            ["--target", "label", "--pos-label", "yes", "--group", "user", "-m", "gauc,roc"],
        ),
        ("t.tsv", tsv.encode(), ["-m", "roc,apr"]),
        ("u.tsv", tsv.encode(), ["--group", "user", "-m", "gauc"]),
        ("j.jsonl", jsonl.encode(), ["--group", "user", "-m", "gauc"]),
    ]


JUNK = [
    b"",
    b" ",
    b",",
    b";",
    b"\t",
    b"\r",
    b"\r\n",
    b"\f",
    b"\v",
    b"\x1c",
    b"\x1e",
    "\x85".encode(),
    "\u2028".encode(),
    b"\x00",
    b"\xef\xbb\xbf",
    b'"',
    b'"#a"',
    b"#",
    b"nan",
    b"inf",
    b"-inf",
    b"1e400",
    b"-0",
    b"007",
    b"1_000",
    "\uff11".encode(),
    b"0x1p3",
    b"+-5",
    b"\xff\xfe",
    b"x",
    b"1e",
    b".",
    b"-",
    b"9223372036854775808",
    b"{",
    b"}",
    b"null",
    b"1,2",
    b"1 2",
]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 3)):
        lines = data.split(b"\n")
        op = rng.randrange(9)
        if op == 0 and data:  # delete a byte run
            i = rng.randrange(len(data))
            data = data[:i] + data[i + rng.randint(1, 4) :]
        elif op == 1:  # insert junk
            i = rng.randrange(len(data) + 1)
            data = data[:i] + rng.choice(JUNK) + data[i:]
        elif op == 2 and len(lines) > 2:  # repeat or delete a line
            k = rng.randrange(len(lines))
            lines[k : k + 1] = [] if rng.random() < 0.5 else [lines[k], lines[k]]
            data = b"\n".join(lines)
        elif op == 3 and len(lines) > 2:  # swap two lines (the header too)
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            data = b"\n".join(lines)
        elif op == 4:  # replace a field
            k = rng.randrange(len(lines))
            parts = lines[k].replace(b"\t", b",").split(b",") if lines[k] else [b""]
            parts[rng.randrange(len(parts))] = rng.choice(JUNK)
            lines[k] = b",".join(parts)
            data = b"\n".join(lines)
        elif op == 5:  # line ends
            # and a line end of some readers only (str.splitlines, PERF): refused, never merged
            ends = [b"\r", b"\r\n", b"\n\n", b"\f\n", b"\f", b"\v", b"\x1e", "\u2028".encode()]
            data = data.replace(b"\n", rng.choice(ends))
        elif op == 6:  # a BOM, or compressed
            data = b"\xef\xbb\xbf" + data
        elif op == 7:  # cut the file
            data = data[: rng.randrange(len(data) + 1)]
        else:  # an extra column
            k = rng.randrange(len(lines))
            lines[k] = lines[k] + rng.choice([b",1", b"\t1", b" 1", b","])
            data = b"\n".join(lines)
    return data


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except BaseException:  # a traceback escaping main() is a failure too
        return 99, out.getvalue(), err.getvalue() + traceback.format_exc()
    return code, out.getvalue(), err.getvalue()


def _check(code: int, out: str, err: str, what: str) -> None:
    assert code in (0, 1, 2), f"{what}: status {code}: {err}"
    assert "Traceback" not in err and "internal error" not in err, f"{what}: {err}"
    if code:
        assert err.count("\n") == 1 and err.startswith("perfeval: error: "), f"{what}: {err!r}"
    else:

        def refuse(name):
            raise AssertionError(f"{what}: {name} in the JSON output")

        json.loads(out, parse_constant=refuse)


def _measures(out: str) -> dict:
    got = json.loads(out)["measures"]
    return {k: (v["value"], v.get("per_group")) for k, v in got.items()}


@pytest.mark.parametrize("block", range(3))
def test_mutated_inputs(tmp_path, block):
    rng = random.Random(1000 + block + 7919 * SEED)
    seeds = _seeds(rng)
    per = max(1, CASES // 3)
    for case in range(per):
        name, content, extra = seeds[case % len(seeds)]
        data = _mutate(content, rng)
        path = tmp_path / f"{case}-{name}"
        path.write_bytes(data)
        what = f"case {block}/{case} {name} {extra} {data[:120]!r}"
        a = _run(["eval", str(path), "--format", "json", *extra])
        _check(*a, what)
        b = _run(["eval", str(path), "--format", "json", "--stream", *extra])  # JSON lines too (issue 31)
        _check(*b, what + " --stream")
        assert (a[0] == 0) == (b[0] == 0), f"{what}: in memory {a[0]} {a[2]!r}, streamed {b[0]} {b[2]!r}"
        if a[0] == 0:
            assert _measures(a[1]) == _measures(b[1]), what
        elif data.count(b'"') % 2 == 0:
            # the same error, at the same line (read whole, the rows without a target are
            # counted); a file with an odd number of quotes is read in two blocks, cut before
            # the line of the last one (a quoted field is never cut), each with its first error
            assert _as_streamed(a[2]) == b[2], what


def _as_streamed(err: str) -> str:
    """An error read whole in the words of the stream, which sees a chunk, not the whole column:
    counts that need the whole file are left out there (the rows without a target, the classes, the
    distinct real values).
    """
    err = re.sub(r"the \d+ rows? without", "the rows without", err)
    err = re.sub(r"holds (?:[\d,]+ )?(\d+) classes([,;])", r"holds \1 classes or more\2", err)
    err = re.sub(r": (\d+) classes([,;])", r": \1 classes or more\2", err)
    return re.sub(r"holds [\d,]+ distinct real values", "holds real values", err)


@pytest.mark.parametrize("block", range(2))
def test_mutated_inputs_to_perf(block):
    from conftest import run_perf

    rng = random.Random(2000 + block + 7919 * SEED)
    seeds = _seeds(rng)
    for _case in range(max(1, CASES // 3)):
        data = _mutate(seeds[0][1], rng)
        try:
            out, err, status = run_perf(["-roc", "-apr", "-rms"], stdin=data)
        except BaseException:
            pytest.fail(f"perf raised on {data[:120]!r}: {traceback.format_exc()}")
        assert status in (0, 1, 255), (status, err, data[:120])  # 255: the original's exit(-1) (SPEC)
        assert "Traceback" not in err
