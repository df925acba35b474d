"""``perfeval codabench INPUT OUTPUT``: the scoring program of a Codabench or CodaLab competition;
``perfeval codabench bundle TASK --key KEY --out scoring_program.zip``: the bundles to upload.
"""

from __future__ import annotations

import sys
from typing import Any

from perfeval.base.text import place, shown
from perfeval.cli.output import write
from perfeval.exceptions import InvalidParameterError


def run(args: Any) -> int:
    """Exit status: 0 scored (the score files written), 1 the submission rejected (one line a problem
    on stderr, which participants read) or the key unreadable, 2 the task or the command line, 70 the
    scorer failed.  The organizer's side is said to participants as one line that shows nothing of it.
    """
    from perfeval.contest import codabench

    if args.first == "bundle":
        if args.key is None or args.out is None:
            raise InvalidParameterError("codabench bundle TASK needs --key KEY and --out scoring_program.zip")
        made = codabench.bundle(args.second, args.key, args.out, args.reference_out, args.organizer_log)
        lines = [
            f"perfeval: wrote {place(made['program'])} "
            f"(the scoring program: metadata.yaml, metadata, {codabench.TASK_FILE})",
            f"perfeval: wrote {place(made['reference'])} (the reference data: {made['key']})",
        ]
        sys.stderr.write("".join(f"{x}\n" for x in lines))
        out = [
            "# competition.yaml: the leaderboard's columns (their keys are the criteria's names)",
            "leaderboard:",
        ]
        out += ["  - title: Results", "    key: main", "    columns:"]
        for i, (name, sorting) in enumerate(made["columns"]):
            out += [f"      - title: {name}", f"        key: {name}", f"        index: {i}"]
            if sorting is None:
                out.append(
                    "        # ranked by its distance to an ideal value: the platforms sort asc or desc only"
                )
            else:
                out.append(f"        sorting: {sorting}")
        write("\n".join(out) + "\n")
        return 0
    if args.out is not None or args.reference_out is not None:
        raise InvalidParameterError("--out and --reference-out are options of codabench bundle")
    result = codabench.run(args.first, args.second, args.task, args.key, args.organizer_log)
    for line in result.participant:
        sys.stderr.write(f"perfeval: error: {line}\n")
    if result.status == 0:
        write(
            f"perfeval: scored {shown(result.name)} ({result.rows} rows): wrote scores.json and scores.txt\n"
        )
    return result.status
