"""docs/slices.md runs as written: each console block marked ``<!-- checked: DIR -->`` is the command's
real output (run in DIR), and each python block is a doctest run in docs/examples/slices, where its
sample table is; the sample is what its generator writes.  The README links the page.
"""

from __future__ import annotations

import doctest
import re
import runpy
import shlex
import warnings
from pathlib import Path

import pytest

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "slices.md"
SAMPLE = ROOT / "docs" / "examples" / "slices"
CHECKED = re.compile(r"<!-- checked: (?P<dir>[^ ]+) -->\n```console\n(?P<body>.*?)```\n", re.S)
PYTHON = re.compile(r"^```python\n(?P<body>.*?)^```\n", re.S | re.M)


def _console() -> list[tuple[str, str, str]]:
    out = []
    for m in CHECKED.finditer(DOC.read_text(encoding="utf-8")):
        lines = m.group("body").splitlines(keepends=True)
        assert lines[0].startswith("$ perfeval ")
        out.append((m.group("dir"), lines[0][2:].strip(), "".join(lines[1:])))
    return out


def test_the_page_has_its_examples_and_the_readme_links_it():
    assert _console() and PYTHON.search(DOC.read_text(encoding="utf-8"))
    assert "docs/slices.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("folder", "command", "expected"), _console(), ids=lambda x: str(x)[:60])
def test_each_checked_block_is_the_commands_output(folder, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT / folder)
    code, out, err = run_cli(shlex.split(command)[1:], capsys)
    assert code == 0, err
    assert out == expected


def test_the_python_blocks_run_as_written(monkeypatch):
    monkeypatch.chdir(SAMPLE)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    blocks = PYTHON.findall(DOC.read_text(encoding="utf-8"))
    with warnings.catch_warnings():  # the page's own filter stays in its block
        for i, body in enumerate(blocks):
            test = parser.get_doctest(body, {}, f"slices.md block {i}", str(DOC), 0)
            runner.run(test)
    assert runner.failures == 0 and runner.tries > 5


def test_the_sample_is_what_its_generator_writes(tmp_path, monkeypatch):
    before = (SAMPLE / "applicants.csv").read_bytes()
    ns = runpy.run_path(str(SAMPLE / "make_example.py"))
    monkeypatch.setitem(ns["main"].__globals__, "OUT", tmp_path / "applicants.csv")
    ns["main"]()
    assert (tmp_path / "applicants.csv").read_bytes() == before
