"""The engine's warnings are silenced per thread (perfeval.exceptions.quiet), not by changing the
process's filters: a Dask worker thread summarising a partition must not hide a warning the user's
thread says at the same moment (warnings.catch_warnings in a worker did, now and then)."""

import threading
import warnings

from perfeval.exceptions import UndefinedMeasureWarning, quiet, warn


def test_quiet_in_this_thread_only():
    inside, leave = threading.Event(), threading.Event()
    worker_said = []

    def worker():
        with quiet():
            inside.set()
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                warn(UndefinedMeasureWarning("from the worker"))
            worker_said.extend(rec)
            leave.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            warn(UndefinedMeasureWarning("from the user's thread"))
    finally:
        leave.set()
        t.join(10)
    assert [str(w.message) for w in rec] == ["from the user's thread"]
    assert worker_said == []  # quiet where it was asked for


def test_warn_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        warn(UndefinedMeasureWarning("here"))
    assert rec[0].filename == __file__
