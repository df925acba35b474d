"""``perfeval sample``: the sample files shipped in the package, to try the commands on."""

from __future__ import annotations

import pathlib
from typing import Any

from perfeval.cli.output import table, write
from perfeval.exceptions import InvalidParameterError

#: file name -> what it holds
SAMPLES = {
    "clicks.csv": "a recommender's log, made up: user (64-bit id), item, click, grade 0-3, model_a, "
    "model_b (6,501 impressions of 300 users)",
    "qrels.txt": "TREC judgments, made up: qid iter docid rel (grades 0-2), 40 topics",
    "bm25.run": "a TREC run for qrels.txt: qid Q0 docid rank score tag",
    "rm3.run": "another run for qrels.txt (perfeval trec compares runs)",
    "testperfdata": "PERF's own example: target prediction, 401 cases",
    "badtestperfdata": "PERF's example with predictions outside [0, 1] (perf warns)",
    "phy_perf_sample_test.dat": "KDD Cup 2004 physics sample: target prediction, 3,000 cases",
    "bio_perf_sample_test.dat": "KDD Cup 2004 protein sample: block target prediction, 3,000 cases "
    "(perf -blocks)",
    "bad_phy_perf_sample_test.dat": "the physics sample with bad predictions",
    "bad_bio_perf_sample_test.dat": "the protein sample with bad predictions",
}


def path(name: str) -> str:
    """The path of a shipped sample file."""
    return str(pathlib.Path(__file__).resolve().parents[2] / "data" / name)


def run(args: Any) -> int:
    if args.name is None and args.path:
        raise InvalidParameterError("--path needs a sample's NAME (`perfeval sample` lists them)")
    if args.name is None:
        rows = [["name", "what it holds"], *([n, d] for n, d in SAMPLES.items())]
        write(
            "\n".join(table(rows))
            + "\n\n`perfeval sample NAME > NAME` copies one here; `perfeval sample --path NAME` prints where "
            "it is.\n"
        )
        return 0
    if args.name not in SAMPLES:
        raise InvalidParameterError(f"no sample {args.name!r}: the samples are {', '.join(SAMPLES)}")
    if args.path:
        write(path(args.name) + "\n")
        return 0
    with open(path(args.name), encoding="latin-1", newline="") as fh:
        write(fh.read())
    return 0
