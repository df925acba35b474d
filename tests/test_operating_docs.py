"""docs/operating.md's examples: each ``$ perfeval ...`` command of a console block is run from docs/
(where sample-models.csv is) and prints exactly the lines the page shows under it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from perfeval.cli.main import main

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = (DOCS / "operating.md").read_text()
BLOCKS = re.findall(r"```console\n(.*?)```", PAGE, flags=re.S)


def test_the_page_has_examples_and_is_linked():
    assert len(BLOCKS) >= 2
    assert "docs/operating.md" in (DOCS.parent / "README.md").read_text()


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.split("\n", 1)[0][:60])
def test_each_example_prints_what_the_page_shows(block, capsys, monkeypatch):
    command, _, shown = block.partition("\n")
    assert command.startswith("$ perfeval ")
    monkeypatch.chdir(DOCS)
    rc = main(shlex.split(command[len("$ perfeval ") :]))
    assert rc in (0, None)
    assert capsys.readouterr().out == shown


PYCON = re.findall(r"```pycon\n(.*?)```", PAGE, flags=re.S)


def test_the_python_example_gives_what_the_page_shows(monkeypatch):
    """The page's Python session (each value's threshold, per group too) run as a doctest."""
    import doctest

    assert PYCON
    monkeypatch.chdir(DOCS)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for block in PYCON:
        test = parser.get_doctest(block, {}, "operating.md", str(DOCS / "operating.md"), 0)
        runner.run(test)
    assert runner.failures == 0 and runner.tries >= 5
