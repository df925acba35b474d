"""Layer 4, the front doors: ``evaluation`` (:func:`perfeval.evaluate`) and ``explanation``
(:func:`perfeval.explain`).  Empty of imports: the package ``perfeval`` exports their names lazily.
"""
