"""Layer 0, the ground every layer stands on (no import of another layer): ``checks`` (the check
stage of the door: arrays and options in their domains), ``console``, ``text``, ``nicknames``,
``progress``, ``deprecation`` and ``moved`` (the old paths of the modules moved into folders, kept
importable until 0.2.0).  Empty of imports: ``perf`` loads only what it uses.
"""
