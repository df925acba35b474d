"""Command-line front ends: the modern ``perfeval`` (this package) and the classic ``perf``
(:mod:`perfeval.classic`).
"""
