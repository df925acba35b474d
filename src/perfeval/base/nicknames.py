"""The one table of nickname groups of measures (PERF's -all, -stats, -easy), in print order, like
trec_eval's: the modern default report, the classic command's flags and the contest presets read it.

No imports, so that the classic command reads it without loading the registry.
"""

from __future__ import annotations

#: measures selected by PERF's -all and by the default report (CST, NRM and NTOP are never in it)
ALL = (
    "ACC",
    "PPV",
    "NPV",
    "SEN",
    "SPC",
    "PRE",
    "REC",
    "PRF",
    "LFT",
    "SAR",
    "PRB",
    "APR",
    "ROC",
    "R50",
    "RKL",
    "TOP1",
    "TOP10",
    "SLQ",
    "CXE",
    "RMS",
    "CA1",
    "CA2",
)
#: PERF's -stats: the threshold measures
STATS = ("ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT")
#: PERF's -easy
EASY = ("ROC", "ACC", "RMS")

NICKNAMES = {"all": ALL, "stats": STATS, "easy": EASY}


def classic_flags(names: tuple[str, ...]) -> tuple[str, ...]:
    """The classic command's flags for registry names: CA1 and CA2 are both PERF's -cal (flag CAL)."""
    out: list[str] = []
    for n in names:
        f = "CAL" if n in ("CA1", "CA2") else n
        if f not in out:
            out.append(f)
    return tuple(out)
