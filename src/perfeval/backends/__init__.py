"""Layer 4, the backends that feed the engine other than from arrays in memory: ``stream``
(:func:`perfeval.evaluate_stream`, files in chunks), ``metric`` and ``metric_state``
(:class:`perfeval.Metric`, batch by batch, and its spilled store), ``dask`` (a cluster).  A new
backend (Spark) goes here.  Empty of imports: each backend is loaded when used.
"""
