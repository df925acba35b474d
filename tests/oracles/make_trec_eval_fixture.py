"""Oracle fixture: the trec_eval program itself, built from its source, run on small judgments and runs.

``tests/oracles/fixtures/trec_eval.json`` records, for each build and each call, trec_eval's standard
output, standard error and exit status, byte for byte; ``tests/test_trec_eval_binary.py`` checks
``perfeval trec --format trec`` (trec_eval's layout) against them and holds docs/ranking.md's sentences
about trec_eval (what ``-c`` and ``-q`` print in each version, the order of the measures and of the
queries, ``runid`` and ``num_q``, the first ``-m`` of a family, fractional grades, float32 or double
scores, a query judged only negative) to what the program printed.  This script never imports perfeval.

How to run (by hand; nothing here runs in CI): a C compiler, make, and a git directory (or clone) of
https://github.com/usnistgov/trec_eval::

    git clone https://github.com/usnistgov/trec_eval /tmp/trec_eval.git
    python3 tests/oracles/make_trec_eval_fixture.py --repo /tmp/trec_eval.git [--out FILE]

Each tag of ``TAGS`` is exported with ``git archive`` into a temporary directory and built with
``make``.  The tags: ``v10.0`` (2026; its build says ``10.0-rc3``), ``v9.0.8`` (2020, the CHANGELOG's
9.0.8; its build still says ``9.0.7``; scores read as C ``float``) and ``trec_eval-9.0.8`` (2023; its
build says ``9.0.8``; scores read as ``double``, "Convert float to double").  The committed fixture
records each build's tag, commit and ``trec_eval -v``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TAGS = ("v10.0", "v9.0.8", "trec_eval-9.0.8")
SEED = 30

#: judged queries 9, 10 and A (A unanswered), a run query Z without judgments, a -1 judgment, an
#: unretrieved relevant document, and a tie in query 9 (d2, d3 at 1.5)
SMALL_QRELS = "9 0 d1 2\n9 0 d2 0\n9 0 d3 1\n9 0 d4 -1\n10 0 d1 1\n10 0 d5 3\nA 0 d2 1\n"
SMALL_RUN = (
    "9 Q0 d1 1 2.0 sys\n9 Q0 d2 2 1.5 sys\n9 Q0 d3 3 1.5 sys\n"
    "10 Q0 d5 1 1.0 sys\n10 Q0 d9 2 0.5 sys\nZ Q0 d1 1 1.0 sys\n"
)
SMALL_M = ["-m", "ndcg_cut.10", "-m", "P.5", "-m", "map", "-m", "bpref"]
EVERY_M = [
    *("-m", "set_F", "-m", "success.1,5,10", "-m", "map_cut.5,10", "-m", "ndcg_cut.5,10", "-m", "ndcg"),
    *("-m", "recall.5,10", "-m", "P.5,10", "-m", "recip_rank", "-m", "bpref", "-m", "Rprec", "-m", "map"),
    *("-m", "set_P", "-m", "set_recall"),
]


def random_case(seed: int) -> tuple[str, str]:
    """Graded and -1 judgments on 12 queries, a run of 5 to 40 documents a query with scores of two
    decimals (ties of relevant and non-relevant documents), two judged queries left out."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(12):
        qid = f"{q + 300}"
        docs = rng.choice(80, 30, replace=False)
        grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], 30)
        grades[0] = 1 + q % 3
        qrels += [f"{qid} 0 D{d} {g}\n" for d, g in zip(docs, grades, strict=True)]
        if q in (4, 9):
            continue
        ranked = rng.choice(80, int(rng.integers(5, 41)), replace=False)
        scores = np.round(rng.random(len(ranked)) * 0.2 + 0.4, 2)
        run += [
            f"{qid} Q0 D{d} {i + 1} {s:.2f} sys\n"
            for i, (d, s) in enumerate(zip(ranked, scores, strict=True))
        ]
    return "".join(qrels), "".join(run)


def cases() -> list[dict]:
    """Each case: judgments, a run (or several: ``runs``), and the calls (trec_eval's arguments)."""
    small_runs = [SMALL_RUN, SMALL_RUN.replace(" 2.0 ", " 0.1 ").replace(" sys", " other")]
    every_judged = SMALL_RUN.replace("Z Q0 d1 1 1.0 sys\n", "A Q0 d2 1 1.0 sys\n")
    rq, rr = random_case(SEED)
    ids = "".join(f"{q} 0 a 1\n{q} 0 b 0\n" for q in ("007", "10", "9", "A", "a", "7"))
    ids_run = "".join(f"{q} Q0 b 1 2 s\n{q} Q0 a 2 1 s\n" for q in ("a", "9", "007", "A", "7", "10"))
    return [
        {
            "name": "small",
            "qrels": SMALL_QRELS,
            "runs": [SMALL_RUN],
            "calls": [["-q", "-c", *SMALL_M], ["-c", *SMALL_M], ["-q", *SMALL_M], SMALL_M],
        },
        {
            "name": "small-every-judged-query-answered",
            "qrels": SMALL_QRELS,
            "runs": [every_judged],
            "calls": [SMALL_M],
        },
        {
            "name": "two-runs",
            "qrels": SMALL_QRELS,
            "runs": small_runs,
            "calls": [["-q", "-c", "-m", "runid", *SMALL_M]],
        },
        {
            "name": "runid-num_q",
            "qrels": SMALL_QRELS,
            "runs": [SMALL_RUN],
            "calls": [["-c", "-m", "map"], ["-c", "-m", "runid", "-m", "num_q", "-m", "map"]],
        },
        {
            "name": "first-m-of-a-family",
            "qrels": SMALL_QRELS,
            "runs": [SMALL_RUN],
            "calls": [["-c", "-m", "P.5", "-m", "P.10"]],
        },
        {"name": "every-measure", "qrels": rq, "runs": [rr], "calls": [["-q", "-c", *EVERY_M], EVERY_M]},
        {"name": "query-id-byte-order", "qrels": ids, "runs": [ids_run], "calls": [["-q", "-m", "P.1"]]},
        {
            "name": "fractional-grades",
            "qrels": "1 0 a 1.7\n1 0 b 0.5\n1 0 c 2.2\n",
            "runs": ["1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n1 Q0 c 3 1 s\n"],
            "calls": [["-m", "ndcg", "-m", "map", "-m", "P.1"]],
        },
        {
            "name": "judged-only-negative-first",
            "qrels": "1 0 a -1\n1 0 b -1\n2 0 a 1\n2 0 b 0\n",
            "runs": ["1 Q0 a 1 3 s\n1 Q0 b 2 2 s\n2 Q0 a 1 1 s\n"],
            "calls": [["-q", "-m", "ndcg"], ["-q", "-m", "map"]],
        },
        {
            "name": "judged-only-negative-later",
            "qrels": "0 0 a 1\n0 0 b 0\n1 0 a -1\n1 0 b -1\n",
            "runs": ["0 Q0 a 1 3 s\n0 Q0 b 2 2 s\n1 Q0 a 1 3 s\n1 Q0 b 2 2 s\n"],
            "calls": [["-q", "-m", "ndcg", "-m", "map", "-m", "bpref", "-m", "P.5", "-m", "recip_rank"]],
        },
        {
            "name": "scores-equal-as-float32",
            "qrels": "1 0 a 1\n1 0 b 0\n",
            "runs": ["1 Q0 b 1 1.00000001 s\n1 Q0 a 2 1.00000002 s\n"],
            "calls": [["-m", "P.1"]],
        },
    ]


def build(repo: Path, tag: str, root: Path) -> dict:
    dest = root / tag
    dest.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", tag], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    subprocess.run(["make", "-s"], cwd=dest, capture_output=True, check=True)
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", f"{tag}^{{commit}}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    version = subprocess.run([str(dest / "trec_eval"), "-v"], capture_output=True, text=True)
    return {
        "tag": tag,
        "commit": commit,
        "says": (version.stdout + version.stderr).strip(),
        "binary": dest / "trec_eval",
    }


def run(repo: Path, out: Path) -> None:
    data = cases()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        builds = [build(repo, tag, root) for tag in TAGS]
        for c in data:
            (root / "qrels").write_text(c["qrels"])
            c["results"] = []
            for i, text in enumerate(c["runs"]):
                (root / f"run{i}").write_text(text)
            for b in builds:
                for args in c["calls"]:
                    for i in range(len(c["runs"])):
                        try:
                            done = subprocess.run(
                                [str(b["binary"]), *args, str(root / "qrels"), str(root / f"run{i}")],
                                capture_output=True,
                                timeout=20,
                            )
                            status, so, se = done.returncode, done.stdout.decode(), done.stderr.decode()
                        except subprocess.TimeoutExpired:
                            status, so, se = "timeout", "", ""
                        c["results"].append(
                            {
                                "tag": b["tag"],
                                "args": args,
                                "run": i,
                                "status": status,
                                "stdout": so,
                                "stderr": se,
                            }
                        )
    doc = {
        "tool": "trec_eval",
        "builds": [{k: v for k, v in b.items() if k != "binary"} for b in builds],
        "generated_by": "tests/oracles/make_trec_eval_fixture.py",
        "seed": SEED,
        "cases": data,
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out} ({len(data)} cases, {sum(len(c['results']) for c in data)} runs of trec_eval)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True, help="a git directory of usnistgov/trec_eval")
    ap.add_argument("--out", default=str(HERE / "fixtures" / "trec_eval.json"))
    a = ap.parse_args(argv)
    run(Path(a.repo), Path(a.out))


if __name__ == "__main__":
    main()
