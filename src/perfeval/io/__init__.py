"""Input readers: tables for the ``perfeval`` command (the classic ``perf`` reads in perfeval.classic)."""
