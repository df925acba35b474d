"""A measure's functions are imported on first use by whichever thread asks first (the bootstrap's
threads at once): the per-group form must stay the per-group form.  A list cache that two threads
appended to at once gave the scalar function for the per-group one (an AttributeError on
GroupedData after `perfeval.ci`)."""

import threading

from perfeval.measures import get_measure


def test_two_threads_importing_at_once_keep_each_role():
    m = get_measure("ECE")
    m._fn.clear()
    start = threading.Barrier(8)

    def ask():
        start.wait()
        m.function()

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.per_group_function() is not m.function()
    assert m.per_group_function().__name__ == m.per_group.partition(":")[2]
    assert m.function().__name__ == m.compute.partition(":")[2]


def test_ci_then_grouped_evaluate():
    import perfeval

    y = [0, 1, 0, 1, 1, 0] * 50
    s = [0.1, 0.8, 0.3, 0.6, 0.9, 0.2] * 50
    g = [0, 0, 0, 1, 1, 1] * 50
    for name in ("ECE", "BRIER_MCB", "CAL_SLOPE"):
        get_measure(name)._fn.clear()
        perfeval.ci(y, s, measures=[name.lower()], n_boot=10, threads=2)
        r = perfeval.evaluate(y, s, measures=[name.lower()], groups=g)
        assert len(r.results[next(iter(r.results))].per_group) == 2
