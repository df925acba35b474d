"""Nickname groups of measures (PERF's -all, -stats, -easy): the table lives in perfeval.base.nicknames
(imported by the classic command without the registry); the measures package exports it here.
"""

from perfeval.base.nicknames import ALL, EASY, NICKNAMES, STATS

__all__ = ["ALL", "EASY", "NICKNAMES", "STATS"]
