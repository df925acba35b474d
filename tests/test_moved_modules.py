"""The old paths of the modules moved into folders (issue 31): each imports, warns naming the new
path and the release that removes it, and is the new module itself (perfeval/base/moved.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from perfeval.base.moved import MOVED


# the modules moved into folders; perfeval._x87, renamed in its package, is said "is renamed"
# (tests/test_kernels.py::test_the_kernels_are_perfeval_native_and_the_old_name_warns)
@pytest.mark.parametrize("old", sorted(k for k in MOVED if k != "perfeval._x87"))
def test_an_old_path_is_the_new_module_with_a_warning(old):
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)  # imported once, so warned once: again here
    with pytest.warns(DeprecationWarning) as said:
        got = importlib.import_module(old)
    assert got is new and sys.modules[old] is new
    assert [str(w.message) for w in said] == [
        f"{old} is moved to {MOVED[old]}; the old path is removed in perfeval 0.2.0"
    ]
    assert new.__name__ == MOVED[old] and new.__spec__.name == MOVED[old]  # the new module, untouched


def test_from_an_old_path_import_a_name():
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import perfeval.backends.stream as new\n"
        "try:\n    from perfeval.stream import evaluate_stream\n"
        "except DeprecationWarning as e:\n    print('warned', e)\n"
        "warnings.simplefilter('ignore')\n"
        "from perfeval.stream import evaluate_stream\n"
        "import perfeval.stream as old\n"
        "print(evaluate_stream is new.evaluate_stream, old is new)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[:2] == [
        "warned perfeval.stream is moved to perfeval.backends.stream; "
        "the old path is removed in perfeval 0.2.0",
        "True True",
    ]


def test_the_warning_names_the_importing_line():
    run = subprocess.run(
        [sys.executable, "-W", "always", "-c", "import sys\nimport perfeval.metric"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert (
        "<string>:2: DeprecationWarning: perfeval.metric is moved to perfeval.backends.metric" in run.stderr
    )


def test_a_missing_module_is_still_missing():
    for name in ("perfeval.no_such_module", "perfeval.stream_x", "perfeval.base.stream"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)


def test_the_finder_imports_nothing_heavy_and_reads_the_table_for_an_old_path_only():
    code = (
        "import sys, perfeval; a = sorted(sys.modules)\n"
        "try:\n    import perfeval.nothing\nexcept ImportError:\n    pass\n"
        "b = sorted(m for m in sys.modules if m not in a)\n"
        "print(' '.join(m for m in a if m.startswith(('perfeval', 'numpy', 'importlib', 'warnings'))))\n"
        "print(' '.join(b))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    start, after_miss = out.split("\n")[:2]
    assert start.split() == ["perfeval", "perfeval._version"], start
    ours = {m for m in after_miss.split() if m.startswith("perfeval")}
    assert ours <= {
        "perfeval.base",
        "perfeval.base.moved",
        "perfeval.base.deprecation",
        "perfeval.exceptions",
    }, ours
    assert not any(m.startswith("numpy") for m in after_miss.split()), after_miss


def test_every_new_path_of_the_table_exists_and_no_old_path_has_a_file():
    import importlib.util
    from pathlib import Path

    src = Path(importlib.import_module("perfeval").__file__).parent
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        rel = old.split(".", 1)[1]
        assert not (src / f"{rel}.py").exists() and not (src / rel).is_dir(), old
