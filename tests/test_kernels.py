"""The compiled kernels against slow references: reading numbers, the quicksort, tie fractions."""

from __future__ import annotations

import json
import os
import platform
import random
import re
import struct
import subprocess
import sys
import warnings
from array import array
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _reference import f32, f32_from_decimal, hoare_quicksort
from perfeval import _native as K


def _floats(buf) -> list[float]:
    return memoryview(buf).cast("f").tolist()


@given(
    st.lists(
        st.decimals(allow_nan=False, allow_infinity=False, places=None).map(str), min_size=1, max_size=40
    )
)
def test_parse_rounds_each_decimal_once_to_float32(tokens):
    tokens = [t for t in tokens if "E" not in t.upper() or len(t) < 40]
    if not tokens:
        return
    res = K.parse((" ".join(tokens)).encode(), "f")
    assert res[0] == "ok"
    got = _floats(res[1][0])
    want = [f32_from_decimal(t) for t in tokens]
    assert [struct.pack("f", g) for g in got] == [struct.pack("f", w) for w in want]


@pytest.mark.parametrize(
    "tok",
    [
        # decimals whose nearest double lies exactly on a float32 midpoint: parsing to double first and then
        # narrowing would round twice and pick the wrong float32
        "1.00000005960464477539062500000001",
        "0.500000029802322387695312499999",
        "16777217.0000000000001",
        "3.4028235677973366e38",
        "1e-45",
        "7.0064923216240861e-46",
        "1.17549435e-38",
    ],
)
def test_parse_near_midpoints(tok):
    got = _floats(K.parse(tok.encode(), "f")[1][0])[0]
    assert struct.pack("f", got) == struct.pack("f", f32_from_decimal(tok))


def test_parse_special_tokens_and_separators():
    res = K.parse(b"# a comment\n1,0.5\t inf\r\n  # another\n-INF 0x1p-2 +.5e0 1e-3 -0\n", "f")
    assert res[0] == "ok"
    assert _floats(res[1][0]) == [1.0, 0.5, float("inf"), float("-inf"), 0.25, 0.5, f32(1e-3), -0.0]


def test_parse_incomplete_last_record_gets_zero():
    res = K.parse(b"1 0.9\n0 0.1\n1", "ff")
    t, p = (_floats(c) for c in res[1])
    assert (t, p) == ([1.0, 0.0, 1.0], [f32(0.9), f32(0.1), 0.0])


def test_parse_two_threads_equal_one(tmp_path):
    rng = random.Random(5)
    rows = "".join(f"{rng.randint(0, 1)} {rng.random():.{rng.randint(1, 9)}f}\n" for _ in range(500_000))
    big = rows.encode()
    assert len(big) > (1 << 22)  # the threaded path
    t, p = K.parse(big, "ff")[1]
    small_t, small_p = [], []
    for i in range(0, len(rows.splitlines()), 50_000):  # the single-thread path, in pieces
        chunk = "\n".join(rows.splitlines()[i : i + 50_000]).encode()
        a, b = K.parse(chunk, "ff")[1]
        small_t += _floats(a)
        small_p += _floats(b)
    assert _floats(t) == small_t and _floats(p) == small_p


def _sorted_by_kernel(p, t, threads=0):
    pb, tb = bytearray(array("f", p).tobytes()), bytearray(array("f", t).tobytes())
    K.sort(tb, pb, threads)
    return _floats(pb), _floats(tb)


scores = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 1.0, 2.0, -1.0, 1e-20])


@given(st.lists(st.tuples(scores | st.floats(-3, 3, width=32), st.sampled_from([0.0, 1.0])), max_size=300))
def test_sort_is_the_originals_quicksort(pairs):
    p = [f32(a) for a, _ in pairs]
    t = [b for _, b in pairs]
    rp, rt = list(p), list(t)
    hoare_quicksort(rp, rt)
    assert _sorted_by_kernel(p, t) == (rp, rt)


@pytest.mark.parametrize("shape", ["sorted", "reversed", "sorted_ties", "organ_pipe", "all_equal"])
def test_sort_degenerate_inputs_take_the_fast_path_and_agree(shape):
    rng = random.Random(3)
    n = 3000  # deep enough that the segment-tree partitions take over
    base = sorted(round(rng.random(), 3 if "ties" in shape else 7) for _ in range(n))
    p = {
        "sorted": base,
        "sorted_ties": base,
        "reversed": base[::-1],
        "organ_pipe": base[::2] + base[1::2][::-1],
        "all_equal": [0.5] * n,
    }[shape]
    p = [f32(x) for x in p]
    t = [float(rng.random() < 0.3) for _ in range(n)]
    rp, rt = list(p), list(t)
    hoare_quicksort(rp, rt)
    assert _sorted_by_kernel(p, t) == (rp, rt)


@pytest.mark.parametrize("kind", ["random_ties", "sorted"])
def test_sort_two_threads_equal_one(kind):
    rng = random.Random(11)
    n = 1_200_000  # above the threshold for two threads
    if kind == "sorted":
        p = sorted(f32(round(rng.random(), 4)) for _ in range(n))
    else:
        p = [f32(round(rng.random(), 3)) for _ in range(n)]
    t = [float(rng.random() < 0.4) for _ in range(n)]
    assert _sorted_by_kernel(p, t, threads=0) == _sorted_by_kernel(p, t, threads=1)


def test_fractions_chain_within_1e_15():
    p = [1e-20, 2e-20, 0.3, 0.3, 0.3, 0.9]
    t = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    pb, tb = bytearray(array("f", p).tobytes()), bytearray(array("f", t).tobytes())
    fr = K.zeros(len(pb))
    K.fractions(tb, pb, fr)
    assert _floats(fr) == [0.5, 0.5, f32(1 / 3), f32(1 / 3), f32(1 / 3), 1.0]


def test_long_double_is_x87():
    assert K.mantissa_bits() == 64


def _write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _parse_file(path, pattern="ff", offset=0):
    import os

    fd = os.open(path, os.O_RDONLY)
    try:
        os.lseek(fd, offset, os.SEEK_SET)
        return K.parse_fd(fd, pattern)
    finally:
        os.close(fd)


def _same_result(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a == b
    return [bytes(c) for c in a[1]] == [bytes(c) for c in b[1]] and a[2] == b[2]


@pytest.mark.parametrize(
    "layout", ["plain", "crlf_comments", "one_huge_line", "odd_tokens", "no_final_newline"]
)
def test_streaming_file_reader_equals_the_in_memory_parser(tmp_path, layout):
    rng = random.Random(hash(layout) % 1000)
    rows = [f"{rng.randint(0, 1)} {rng.random():.{rng.randint(1, 8)}f}" for _ in range(1_200_000)]
    if layout == "plain":
        data = "\n".join(rows) + "\n"
    elif layout == "crlf_comments":
        data = "".join(r + ("\r\n" if i % 7 else "\r\n# a comment, 1 2 3\r\n") for i, r in enumerate(rows))
    elif layout == "one_huge_line":  # longer than a read chunk: the buffer grows
        data = " ".join(rows[:700_000]) + "\n" + "\n".join(rows[700_000:]) + "\n"
    elif layout == "odd_tokens":  # three tokens a line: records straddle the two halves
        data = "\n".join(r + " " + r.split()[0] for r in rows) + "\n"
    else:
        data = "\n".join(rows)
    raw = data.encode()
    assert len(raw) > 8 << 20  # both threads
    path = _write(tmp_path, "d.txt", raw)
    assert _same_result(_parse_file(path), K.parse(raw, "ff"))


def test_streaming_reader_reports_errors_in_the_second_half(tmp_path):
    rows = [f"{i % 2} 0.{i:07d}" for i in range(1_000_000)]
    rows[900_000] = "1 0.5x"
    path = _write(tmp_path, "e.txt", ("\n".join(rows) + "\n").encode())
    res = _parse_file(path)
    assert res == ("error", "number", 900_001, 2, b"0.5x")
    assert _same_result(res, K.parse(path.read_bytes(), "ff"))


def test_streaming_reader_starts_at_the_current_offset(tmp_path):
    raw = b"header that was read already\n" + b"1 0.5\n0 0.25\n" * 800_000
    path = _write(tmp_path, "o.txt", raw)
    skip = raw.index(b"\n") + 1
    assert _same_result(_parse_file(path, offset=skip), K.parse(raw[skip:], "ff"))


def test_stdin_redirected_from_a_large_file(tmp_path):
    import subprocess
    import sys

    raw = b"".join(b"%d 0.%06d\n" % (i % 3 == 0, (i * 7919) % 1_000_000) for i in range(900_000))
    path = _write(tmp_path, "s.txt", raw)
    with open(path, "rb") as fh:
        a = subprocess.run(
            [sys.executable, "-m", "perfeval.classic.main", "-roc", "-apr"],
            stdin=fh,
            capture_output=True,
            check=True,
        ).stdout
    b = subprocess.run(
        [sys.executable, "-m", "perfeval.classic.main", "-roc", "-apr"],
        input=raw,
        capture_output=True,
        check=True,
    ).stdout  # a pipe: the in-memory path
    assert a == b and a.startswith(b"APR ")


def test_scratch_mappings_are_reused_and_can_be_released():
    a = K.zeros(32 << 20)
    memoryview(a)[0] = 7
    del a  # kept for reuse
    b = K.zeros(16 << 20)  # reuses it, and zeros() clears what it hands out
    assert memoryview(b)[0] == 0 and len(b) == 16 << 20
    del b
    K.release_cache()


def test_scratch_cache_holds_many_sizes_within_its_bound():
    # more mappings than the cache keeps, and more bytes than its bound (1 GiB): the extra ones are
    # unmapped, the others handed out again; whatever a Buf is made from, zeros() gives zeros and
    # what is written stays where it was written
    K.release_cache()
    sizes = [m << 20 for m in (8, 9, 48, 96, 192, 80, 80, 80, 80, 240, 300, 600)]
    bufs = [K.zeros(n) for n in sizes]
    for i, b in enumerate(bufs):
        memoryview(b)[-1] = i + 1
    assert [memoryview(b)[-1] for b in bufs] == list(range(1, len(sizes) + 1))
    del bufs
    again = [K.zeros(n) for n in reversed(sizes)]
    for b, n in zip(again, reversed(sizes), strict=True):
        assert len(b) == n and memoryview(b)[0] == 0 and memoryview(b)[-1] == 0
    del again
    K.release_cache()


def test_cache_limit_is_set_and_given_back():
    old = K.cache_limit(64 << 20)
    try:
        big = K.zeros(100 << 20)  # above the limit: unmapped when freed, not kept
        del big
        small = K.zeros(16 << 20)
        assert memoryview(small)[0] == 0
        del small
    finally:
        assert K.cache_limit(old) == 64 << 20
    K.release_cache()


def test_release_cache_keeps_at_most_what_it_is_told_the_largest_dropped_first():
    K.release_cache()
    assert K.cache_bytes() == (0, 0)
    sizes = [m << 20 for m in (8, 16, 48, 96)]
    bufs = [K.zeros(n) for n in sizes]
    del bufs  # all four kept (1 GiB bound)
    count, total = K.cache_bytes()
    assert count == 4 and total >= sum(sizes)
    K.release_cache(64 << 20)  # 96 MiB, then 48 MiB dropped: 8 + 16 left
    count, total = K.cache_bytes()
    assert count == 2 and sum(sizes[:2]) <= total <= 64 << 20
    again = K.zeros(16 << 20)  # handed out again, cleared
    assert memoryview(again)[0] == 0 and K.cache_bytes()[0] == 1
    del again
    K.release_cache()
    assert K.cache_bytes() == (0, 0)


def test_a_dying_result_is_kept_only_within_retain():
    # a kernel's result (group_hist_rows' three arrays of 1M rows, 8 MiB mappings) kept for the next
    # call when it dies, while the kept mappings stay within RETAIN (64 MiB); a result that would
    # pass it is unmapped, and no kept mapping is dropped for it
    K.release_cache()
    n = 1_000_000  # (its sort keys, under 8 MiB, from malloc)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 1000, n).astype(np.int64)
    score, flag = rng.random(n), (rng.random(n) < 0.5).astype(np.uint8)
    h = K.group_hist_rows(codes, score, flag, 1000)
    del h
    count, total = K.cache_bytes()
    assert count == 3 and 3 * (8 << 20) <= total <= K.RETAIN
    m = 6 * n  # 48 MB a result: beyond RETAIN with the three kept
    big = K.group_hist_rows(np.zeros(m, np.int64), np.linspace(0.0, 1.0, m), np.ones(m, np.uint8), 1)
    assert len(big[0]) == 8 * m
    K.release_cache(K.RETAIN)  # the call's scratch (48 MB of sort keys) dropped, the three kept
    assert K.cache_bytes() == (count, total)
    del big
    assert K.cache_bytes() == (count, total)
    K.release_cache()


def test_empty_is_a_writable_result_room():
    K.release_cache()
    e = K.empty(3 << 20)  # 1 to 8 MiB: a mapping of 8 MiB (result_room), not cleared
    assert len(e) == 3 << 20
    memoryview(e)[len(e) - 1] = 9
    assert np.frombuffer(e, np.uint8)[-1] == 9 and np.frombuffer(e, np.float64).flags.writeable
    del e
    assert K.cache_bytes()[0] == 1  # kept for the next (within RETAIN)
    assert len(K.empty(0)) == 0
    with pytest.raises(ValueError, match="negative"):
        K.empty(-1)
    K.release_cache()


def _resident_pages(addr: int, nbytes: int) -> int:
    """How many of the pages at addr .. addr + nbytes (page-aligned) are in memory (mincore)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    vec = ctypes.create_string_buffer(nbytes // 4096)
    assert libc.mincore(addr, nbytes, vec) == 0, ctypes.get_errno()
    return sum(b & 1 for b in vec.raw)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mincore, Linux's")
def test_a_result_given_a_larger_kept_mapping_holds_no_more_than_it_needs():
    # a result lives as long as its caller keeps it: handed a kept mapping far larger than its room
    # (the only one kept: a 48 MiB sort array's, every page of it resident), it keeps its room
    # rounded up to 2 MiB, and none of its pages past its own bytes resident (else a 1 MB histogram
    # a user keeps holds 48 MiB of memory)
    K.release_cache()
    scratch = K.zeros(48 << 20)  # (cleared: every page touched)
    del scratch
    assert K.cache_bytes()[0] == 1
    r = K.empty(3 << 20)  # its room: 8 MiB (result_room)
    assert K.cache_bytes() == (0, 0)  # (it took the kept one)
    a = np.frombuffer(r, np.uint8)
    start = a.ctypes.data
    assert start % 4096 == 0
    # past its 3 MiB (rounded up to 2 MiB from the mapping's start, a page before it): not resident
    assert _resident_pages(start + (4 << 20) - 4096, 4 << 20) == 0
    a[:] = 7  # all of it writable
    assert int(a.sum()) == 7 * (3 << 20)
    del a, r
    count, total = K.cache_bytes()  # kept when it died (within RETAIN): its size says what it held
    assert count == 1 and (8 << 20) < total <= 10 << 20
    K.release_cache()


def test_an_evaluation_leaves_at_most_retain_kept_for_the_next():
    import perfeval

    K.release_cache()
    rng = np.random.default_rng(6)
    n, G = 1 << 20, 50_000
    g, s = rng.integers(0, G, n), rng.random(n)
    y = (rng.random(n) < s).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = perfeval.evaluate(y, s, groups=g, measures=["gauc", "cal_slope"]).to_dict()
        count, total = K.cache_bytes()
        assert count >= 1 and 0 < total <= K.RETAIN  # the group kernels' scratch, kept
        again = perfeval.evaluate(y, s, groups=g, measures=["gauc", "cal_slope"]).to_dict()
    assert json.dumps(first, sort_keys=True, default=str) == json.dumps(again, sort_keys=True, default=str)
    assert K.cache_bytes()[1] <= K.RETAIN
    K.release_cache()


@pytest.mark.parametrize("dialect", ["perf", "trec_eval"])
def test_a_dialects_evaluation_leaves_at_most_retain_kept_too(dialect):
    # a dialect's evaluation hands back the kept scratch as evaluate's own does: 96 MiB kept before
    # it (two mappings freed by a command's reading, within the 1 GiB bound), at most RETAIN after
    import perfeval

    K.release_cache()
    bufs = [K.zeros(48 << 20) for _ in range(2)]
    del bufs
    assert K.cache_bytes()[1] > K.RETAIN
    rng = np.random.default_rng(8)
    n = 2000
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int64)
    trec = dialect == "trec_eval"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(
            y,
            s,
            groups=rng.integers(0, 20, n) if trec else None,
            ids=np.arange(n) if trec else None,
            dialect=dialect,
            measures=["map"] if trec else ["roc"],
        )
    assert r.to_dict()["measures"]
    assert K.cache_bytes()[1] <= K.RETAIN
    K.release_cache()


def test_keep_heap_says_whether_it_could():
    # process-wide: run in a child, which then allocates and frees large arrays as usual
    code = "from perfeval import _native; import numpy as np\n"
    code += "ok = _native.keep_heap(); a = np.ones(50_000_000)\n"
    code += "del a; b = np.ones(50_000_000); assert b.sum() == 50_000_000; print(ok)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # glibc's mallopt, unless a sanitizer's allocator stands in for malloc (make sanitize preloads it)
    glibc_malloc = platform.libc_ver()[0] == "glibc" and "asan" not in os.environ.get("LD_PRELOAD", "")
    assert out.strip() == str(glibc_malloc)


def test_apr_of_heavy_ties_in_two_threads_equals_one():
    rng = random.Random(8)
    n = 300_000  # about 800 distinct scores: tie groups of ~400, enough work for two threads
    p = sorted(f32(round(rng.random() * 800) / 800) for _ in range(n))
    t = [float(rng.random() < 0.3) for _ in range(n)]
    pb, tb = bytearray(array("f", p).tobytes()), bytearray(array("f", t).tobytes())
    fr = K.zeros(len(pb))
    K.fractions(tb, pb, fr)
    T1 = int(sum(t))
    both = K.apr(pb, fr, T1, 1, 0.0)
    one = K.apr(pb, fr, T1, 1, 0.0, 1)
    assert both == one  # value, 1 - value, accumulator, warnings and the PR plot, to the bit


def test_the_kernels_are_perfeval_native_and_the_old_name_warns():
    """The extension module is perfeval._native (it holds every kernel, not only the classic
    dialect's); perfeval._x87, the name docs/compatibility.md once gave, is the same module for one
    release, with a DeprecationWarning that names the new one."""
    import perfeval._native

    assert perfeval._native.__name__ == "perfeval._native"
    assert perfeval._native.Buf.__module__ == "perfeval._native"
    code = "import perfeval._x87 as old, perfeval._native as new; print(old is new, old.mantissa_bits())"
    run = subprocess.run(
        [sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["True", str(K.mantissa_bits())]
    assert "DeprecationWarning: perfeval._x87 is renamed perfeval._native" in run.stderr
    assert "<string>:1" in run.stderr  # said where the user imports it, not inside perfeval


def test_one_introsort_of_exact_keys():
    """The kernels sort exact keys with one introsort, csrc/introsort.h, included once per record
    type; no C file writes another heapsort fallback (sort.c's sorts replay other programs' orders,
    and they have none)."""
    csrc = Path(__file__).resolve().parents[1] / "csrc"
    heap_step = re.compile(r"static void ([\w()]*sift[\w()]*)\(")
    heap_steps = {f.name: heap_step.findall(f.read_text()) for f in sorted(csrc.glob("*.[ch]"))}
    assert {name: found for name, found in heap_steps.items() if found} == {"introsort.h": ["SORT(sift)"]}
    includes = re.findall(
        r'#define SORT_T (\w+)\n#define SORT_KEY\(x\) .*\n#include "introsort.h"',
        (csrc / "summary.c").read_text(),
    )
    assert includes == ["qrec", "uint64_t"]
