"""``perfeval trec --format trec`` against the trec_eval program itself, and docs/ranking.md's sentences
about trec_eval against what it printed.

trec_eval is a C program, not in the test extra: tests/oracles/make_trec_eval_fixture.py builds it from
usnistgov/trec_eval (tags v10.0, v9.0.8 of 2020 and trec_eval-9.0.8 of 2023) and records its standard
output, standard error and exit status on each call in tests/oracles/fixtures/trec_eval.json.

perfeval's layout is trec_eval 10.0's with ``-q -c`` (10.0 prints the judged queries a run leaves out,
9.0.x does not), and 9.0.8's (v9.0.8) otherwise: 10.0 without ``-c`` stops at a judged query the run
leaves out, and v9.0.8 reads scores as C floats, as perfeval's ``--format trec`` does.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import run_cli

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "oracles" / "fixtures" / "trec_eval.json").read_text()
)
CASES = {c["name"]: c for c in FIXTURE["cases"]}
FIXTURE_TAGS = [b["tag"] for b in FIXTURE["builds"]]
_SMALL_M = ["-m", "ndcg_cut.10", "-m", "P.5", "-m", "map", "-m", "bpref"]


def _printed(case: str, tag: str, args: list[str], run: int = 0) -> dict:
    """trec_eval's recorded result of one call."""
    (hit,) = [r for r in CASES[case]["results"] if r["tag"] == tag and r["args"] == args and r["run"] == run]
    return hit


def _measures(args: list[str]) -> list[str]:
    """trec_eval's ``-m`` arguments as perfeval's names (``P.5,10`` -> ``P_5``, ``P_10``)."""
    out = []
    for flag, value in zip(args, args[1:], strict=False):
        if flag == "-m" and value not in ("runid", "num_q"):
            family, _, cuts = value.partition(".")
            out += [family] if not cuts else [f"{family}_{k}" for k in cuts.split(",")]
    return out


def _perfeval(
    tmp_path, capsys, case: str, args: list[str], runs: list[int] | None = None, qrels=None, extra=()
):
    """``perfeval trec --format trec`` as the trec_eval call ``args`` (-q, -c, -m ...)."""
    c = CASES[case]
    (tmp_path / "qrels").write_text(c["qrels"] if qrels is None else qrels)
    files = []
    for i in runs if runs is not None else [0]:
        (tmp_path / f"run{i}").write_text(c["runs"][i])
        files.append(str(tmp_path / f"run{i}"))
    argv = ["trec", str(tmp_path / "qrels"), *files, "--format", "trec", "-m", ",".join(_measures(args))]
    argv += ["--queries", "qrels" if "-c" in args else "run", *(["-q"] if "-q" in args else []), *extra]
    if len(files) > 1:
        argv += ["--test", "none"]
    return run_cli(argv, capsys)


def _calls():
    for c in FIXTURE["cases"]:
        for args in c["calls"]:
            if "-m" in args and {"runid", "num_q"} & set(args) and len(c["runs"]) == 1:
                continue  # one run: perfeval prints no runid line (the case below)
            if (
                c["name"] in ("fractional-grades", "first-m-of-a-family")
                or "judged-only-negative" in c["name"]
            ):
                continue  # where perfeval differs on purpose (the cases below)
            yield c["name"], args


@pytest.mark.parametrize(
    ("case", "args"), list(_calls()), ids=lambda x: x if isinstance(x, str) else " ".join(x)
)
def test_trec_layout_is_what_trec_eval_printed(tmp_path, capsys, case, args):
    """Byte for byte: -q -c as trec_eval 10.0, the rest as trec_eval 9.0.8 (v9.0.8); several runs are
    each run's block of trec_eval -q -c -m runid, one after the other."""
    tag = "v10.0" if "-q" in args and "-c" in args else "v9.0.8"
    runs = list(range(len(CASES[case]["runs"])))
    want = "".join(_printed(case, tag, args, i)["stdout"] for i in runs)
    assert all(_printed(case, tag, args, i)["status"] == 0 for i in runs)
    code, out, _ = _perfeval(tmp_path, capsys, case, args, runs=runs)
    assert code == 0 and out == want


def test_q_c_prints_the_unanswered_judged_queries_in_10_not_in_9():
    q_c = ["-q", "-c", *_SMALL_M]
    ten, nine, later = (_printed("small", t, q_c)["stdout"] for t in ("v10.0", "v9.0.8", "trec_eval-9.0.8"))
    assert "\tA\t" in ten and "\tA\t" not in nine and nine == later
    assert [x for x in ten.splitlines() if "\tA\t" not in x] == nine.splitlines()  # the all lines alike


def test_10_without_c_stops_at_a_judged_query_the_run_leaves_out(tmp_path, capsys):
    for args in (["-q", *_SMALL_M], _SMALL_M):
        ten, nine = _printed("small", "v10.0", args), _printed("small", "v9.0.8", args)
        assert ten["status"] == 4 and ten["stderr"] == "trec_eval: result qid 'A' not found in qrels\n"
        assert nine["status"] == 0 and "\tall\t" in nine["stdout"]
        assert _perfeval(tmp_path, capsys, "small", args)[1] == nine["stdout"]
    # a run answering every judged query: 10.0 prints what 9.0.8 prints
    every = [_printed("small-every-judged-query-answered", t, _SMALL_M) for t in ("v10.0", "v9.0.8")]
    assert every[0]["status"] == 0 and every[0]["stdout"] == every[1]["stdout"]


def test_runid_and_num_q_only_when_asked(tmp_path, capsys):
    plain = _printed("runid-num_q", "v10.0", ["-c", "-m", "map"])["stdout"]
    asked = _printed("runid-num_q", "v10.0", ["-c", "-m", "runid", "-m", "num_q", "-m", "map"])["stdout"]
    assert plain == "map                   \tall\t0.5000\n"
    assert asked == "runid                 \tall\tsys\nnum_q                 \tall\t3\n" + plain
    code, out, _ = _perfeval(tmp_path, capsys, "runid-num_q", ["-c", "-m", "map"])
    assert code == 0 and out == plain  # one run: perfeval prints neither


def test_trec_eval_keeps_the_first_m_of_a_family_perfeval_every_measure(tmp_path, capsys):
    args = ["-c", "-m", "P.5", "-m", "P.10"]
    for tag in ("v10.0", "v9.0.8", "trec_eval-9.0.8"):
        assert _printed("first-m-of-a-family", tag, args)["stdout"] == "P_5                   \tall\t0.2000\n"
    code, out, _ = _perfeval(tmp_path, capsys, "first-m-of-a-family", args)
    assert code == 0 and out == "P_5                   \tall\t0.2000\nP_10                  \tall\t0.1000\n"


def test_trec_eval_reads_a_fractional_grade_as_its_whole_part(tmp_path, capsys):
    """perfeval reads it as written; with the grades cut to their whole parts it prints trec_eval's."""
    args = ["-m", "ndcg", "-m", "map", "-m", "P.1"]
    want = _printed("fractional-grades", "v9.0.8", args)["stdout"]
    assert all(_printed("fractional-grades", t, args)["stdout"] == want for t in ("v10.0", "trec_eval-9.0.8"))
    qrels = CASES["fractional-grades"]["qrels"]
    whole = "".join(
        f"{q} 0 {d} {math.floor(float(g))}\n" for q, _, d, g in (x.split() for x in qrels.splitlines())
    )
    assert _perfeval(tmp_path, capsys, "fractional-grades", args, qrels=whole)[1] == want
    assert _perfeval(tmp_path, capsys, "fractional-grades", args)[1] != want


def test_a_query_judged_only_negative_is_undefined_in_trec_eval_and_0_in_perfeval(tmp_path, capsys):
    """trec_eval reads relevance levels it never stored: first in the file it stops ("Can't calculate
    measure", status 4), after another query it prints 0; perfeval prints 0 either way."""
    for tag in ("v10.0", "v9.0.8", "trec_eval-9.0.8"):
        for m in ("ndcg", "map"):
            first = _printed("judged-only-negative-first", tag, ["-q", "-m", m])
            assert first["status"] == 4 and first["stderr"] == f"trec_eval: Can't calculate measure '{m}'\n"
    args = ["-q", "-m", "ndcg", "-m", "map", "-m", "bpref", "-m", "P.5", "-m", "recip_rank"]
    later = _printed("judged-only-negative-later", "v10.0", args)
    ones = [x for x in later["stdout"].splitlines() if "\t1\t" in x]
    assert len(ones) == 5 and all(x.endswith("\t0.0000") for x in ones)
    assert _perfeval(tmp_path, capsys, "judged-only-negative-later", args)[1] == later["stdout"]
    code, out, _ = _perfeval(
        tmp_path, capsys, "judged-only-negative-first", ["-q", "-m", "ndcg", "-m", "map"]
    )
    assert code == 0 and [x for x in out.splitlines() if "\t1\t" in x] == [
        "map                   \t1\t0.0000",
        "ndcg                  \t1\t0.0000",
    ]


def test_scores_as_float32_in_9_0_8_and_as_double_in_10(tmp_path, capsys):
    """Two scores equal only as float32: a tie for v9.0.8 (broken by document id, b first), two scores
    for 10.0 and the 2023 trec_eval-9.0.8; --format trec is v9.0.8's, --ties trec_eval 10.0's."""
    got = {t: _printed("scores-equal-as-float32", t, ["-m", "P.1"])["stdout"] for t in FIXTURE_TAGS}
    assert got["v9.0.8"].endswith("\t0.0000\n")
    assert got["v10.0"].endswith("\t1.0000\n") and got["trec_eval-9.0.8"] == got["v10.0"]
    assert _perfeval(tmp_path, capsys, "scores-equal-as-float32", ["-m", "P.1"])[1] == got["v9.0.8"]
    code, out, _ = run_cli(
        ["trec", str(tmp_path / "qrels"), str(tmp_path / "run0"), "-m", "P_1", "--ties", "trec_eval"]
        + ["--format", "json"],
        capsys,
    )
    assert code == 0 and json.loads(out) == {"P_1": 1.0}


def test_the_fixture_is_the_builds_it_names():
    assert {b["tag"]: b["says"] for b in FIXTURE["builds"]} == {
        "v10.0": "trec_eval version 10.0-rc3",
        "v9.0.8": "trec_eval version 9.0.7",
        "trec_eval-9.0.8": "trec_eval version 9.0.8",
    }
    assert FIXTURE["generated_by"] == "tests/oracles/make_trec_eval_fixture.py"
