"""docs/calibration.md's example is the command's real output: each console block marked
``<!-- checked: DIR -->`` is run and its output compared exactly (as tests/test_docs_ranking.py)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "calibration.md"
BLOCK = re.compile(r"<!-- checked: (?P<dir>[^ ]+) -->\n```console\n(?P<body>.*?)```\n", re.S)


def _blocks() -> list[tuple[str, str, str]]:
    out = []
    for m in BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        lines = m.group("body").splitlines(keepends=True)
        assert lines[0].startswith("$ perfeval ")
        out.append((m.group("dir"), lines[0][2:].strip(), "".join(lines[1:])))
    return out


def test_the_doc_has_a_checked_block_and_the_readme_links_it():
    assert _blocks()
    assert "docs/calibration.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("folder", "command", "expected"), _blocks(), ids=lambda x: str(x)[:60])
def test_each_checked_block_is_the_commands_output(folder, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT / folder)
    code, out, err = run_cli(shlex.split(command)[1:], capsys)
    assert code == 0, err
    assert out == expected
