"""``import perfeval`` then ``perfeval.stats.compare_models(...)``, as the docs write it: the public
submodules are reached as attributes, each imported on first use (a fresh interpreter each, so that no
import made by another test hides a missing one); the package's start-up imports none of them."""

from __future__ import annotations

import subprocess
import sys

import pytest

SUBMODULES = ["functional", "stats", "curves", "plot", "spark", "trec", "dialects", "contest"]


@pytest.mark.parametrize("name", SUBMODULES)
def test_a_public_submodule_is_an_attribute_after_import_perfeval(name):
    code = (
        "import sys, types, perfeval\n"
        f"assert 'perfeval.{name}' not in sys.modules\n"
        f"m = perfeval.{name}\n"
        f"assert isinstance(m, types.ModuleType) and m is sys.modules['perfeval.{name}']\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_docs_call_reads_without_importing_the_submodule_first():
    code = "import perfeval\nprint(perfeval.stats.compare_models.__name__, perfeval.curves.__name__)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["compare_models", "perfeval.curves"]


def test_an_unknown_attribute_is_still_an_attribute_error():
    import perfeval

    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        perfeval.nothing  # noqa: B018
    assert not hasattr(perfeval, "engines")
