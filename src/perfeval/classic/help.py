"""The classic command's help text, generated from the measure registry (perfeval's own words)."""

from __future__ import annotations

from perfeval._version import __version__
from perfeval.base.nicknames import EASY, STATS

# Start-up: the measure registry is read where the help is written (`perf --version` imports
# this module for VERSION_LINE alone).

VERSION_LINE = f"perf (perfeval {__version__}): PERF 5.12 [KDDCUP-2004 July 12, 2004] compatible"


def help_text() -> str:
    from perfeval.measures import list_measures

    rows = []
    for m in list_measures():
        if m.name == "CA2" or not m.perf_options:  # perf computes only what PERF did
            continue
        usage = m.perf_usage or ", ".join(m.perf_options)
        label, title = m.name, m.title
        if m.name == "CA1":
            label, title = "CA1 CA2", "calibration error: 19 overlapping bins, and windows of S cases"
        rows.append(f"  {usage:<24} {label:<8} {title}")
    return "\n".join(
        [
            VERSION_LINE,
            "",
            "usage: perf [options] < data",
            "       perf [options] -file data",
            "       perf [options] -files targets predictions",
            "       perf -blocks [-apr] [-rkl] [-rms] [-top1] < data      (data lines: block target "
            "prediction)",
            "",
            "Reads `target prediction` pairs (white space or commas between numbers; lines starting "
            "with # are",
            "skipped) and prints the selected measures exactly as PERF 5.12 does.  Options are "
            "case-insensitive.",
            "",
            "measures:",
            *rows,
            "  -break*, -pr_break*, -prbreak*: any option that starts so selects PRB",
            "  -slq W: a bin width below 1, or a whole number of bins (-slq 100 = width 0.01)",
            "",
            "groups:",
            "  -all        every measure above except CST, NRM and NTOP (the default when none is chosen)",
            "  -stats      " + " ".join(STATS) + ", with the freq_thresh and max_acc_thresh sections",
            "  -easy       " + " ".join(EASY),
            "  -confusion  confusion tables (also -conf, -table)",
            "",
            "other options:",
            "  -t V        threshold (also -thresh, -threshold; default 0.5): score >= V is "
            "predicted positive",
            "  -percent P  predict the top P percent of the cases positive instead",
            "  -plot X     print a curve before the report: roc, pr, lift, cost or acc",
            "  -loss       print losses (1 - score) instead of scores",
            "  -blocks     block mode: means over blocks of APR, RKL, RMS, TOP1",
            "  -file F     read the pairs from F instead of standard input",
            "  -files T P  read targets from T and predictions from P",
            "  -h, --help  this text;  --version  the version",
            "",
            "Differences from the original program: docs/compatibility.md of the perfeval project.",
            "More measures (NDCG, MAP, GAUC, log loss, ...), groups, intervals, plots: `perfeval -h`.",
            "",
        ]
    )
