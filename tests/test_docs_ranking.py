"""docs/ranking.md's worked example and docs/dialects.md's examples are the command's real output:
each console block marked ``<!-- checked: DIR -->`` is run (its ``$ perfeval ...`` lines, in DIR)
and its output compared exactly; and the examples' files are what their ``make_example.py`` writes."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "ranking.md", ROOT / "docs" / "dialects.md")
BLOCK = re.compile(r"<!-- checked: (?P<dir>[^ ]+) -->\n```console\n(?P<body>.*?)```\n", re.S)


def _blocks() -> list[tuple[str, str, str]]:
    """(directory, command line, expected output) of each checked block (one command a block)."""
    out = []
    for m in (m for doc in DOCS for m in BLOCK.finditer(doc.read_text(encoding="utf-8"))):
        lines = m.group("body").splitlines(keepends=True)
        assert lines[0].startswith("$ perfeval "), f"a checked block starts with its command: {lines[0]!r}"
        out.append((m.group("dir"), lines[0][2:].strip(), "".join(lines[1:])))
    return out


def test_the_doc_has_checked_blocks():
    assert len(_blocks()) >= 8


@pytest.mark.parametrize(("folder", "command", "expected"), _blocks(), ids=lambda x: str(x)[:60])
def test_each_checked_block_is_the_commands_output(folder, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT / folder)
    code, out, err = run_cli(shlex.split(command)[1:], capsys)
    assert code == 0, err
    assert out == expected


@pytest.mark.parametrize(
    ("folder", "names"),
    [
        ("ranking", ("qrels.txt", "bm25.run", "rm3.run", "dense.run")),
        ("dialects", ("ties.csv", "clicks.csv")),
        ("explain", ("demand.csv",)),
    ],
)
def test_the_example_files_are_what_the_script_writes(tmp_path, folder, names):
    src = ROOT / "docs" / "examples" / folder
    script = tmp_path / "make_example.py"
    script.write_text((src / "make_example.py").read_text())
    subprocess.run([sys.executable, str(script)], check=True, cwd=tmp_path)
    for name in names:
        assert (tmp_path / name).read_bytes() == (src / name).read_bytes(), name
