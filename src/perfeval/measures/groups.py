"""Nickname groups of measures (PERF's -all, -stats, -easy), in print order, like trec_eval's table."""

from __future__ import annotations

#: measures selected by PERF's -all and by the default report (CST, NRM and NTOP are never in it)
ALL = ("ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT", "SAR",
       "PRB", "APR", "ROC", "R50", "RKL", "TOP1", "TOP10", "SLQ", "CXE", "RMS", "CA1", "CA2")
#: PERF's -stats: the threshold measures
STATS = ("ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT")
#: PERF's -easy
EASY = ("ROC", "ACC", "RMS")

NICKNAMES = {"all": ALL, "stats": STATS, "easy": EASY}
