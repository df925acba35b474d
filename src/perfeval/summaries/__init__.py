"""Mergeable exact summaries: the only thing the backends build."""

from perfeval.summaries.histogram import ScoreHistogram

__all__ = ["ScoreHistogram"]
