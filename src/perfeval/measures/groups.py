"""Nickname groups of measures (PERF's -all, -stats, -easy): the table lives in perfeval._nicknames
(imported by the classic command without the registry); the measures package exports it here.
"""

from perfeval._nicknames import ALL, EASY, NICKNAMES, STATS

__all__ = ["ALL", "EASY", "NICKNAMES", "STATS"]
