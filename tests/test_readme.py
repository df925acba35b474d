"""The README, read top to bottom as a newcomer would: every command in it runs as written and prints
what the README shows.

Its ``console`` blocks are run in order in one empty folder (so a file one command writes is there for
the next), each ``$ `` line by bash with the installed commands first on PATH; the lines under a
command are its standard output, exactly.  Its ``python`` blocks are doctests, run in that folder
after the console blocks before them.  ``python tests/test_readme.py --write`` puts the commands'
real output under them (after a change that moves a number).
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"^(?P<indent> *)```(?P<lang>console|python)\n(?P<body>.*?)^(?P=indent)```\n", re.S | re.M)


def _blocks(text: str) -> list[tuple[str, str, int, int]]:
    """(language, body without its indent, start, end) of each console and python block."""
    out = []
    for m in BLOCK.finditer(text):
        body = textwrap.dedent(m.group("body"))
        out.append((m.group("lang"), body, m.start("body"), m.end("body")))
    return out


def _commands(body: str) -> list[tuple[str, str]]:
    """(command, expected output) of each ``$ `` line of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines(keepends=True):
        if line.startswith("$ "):
            out.append((line[2:].rstrip("\n"), []))
        else:
            assert out, f"a console block starts with a command: {line!r}"
            out[-1][1].append(line)
    return [(c, "".join(lines)) for c, lines in out]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["COLUMNS"] = "100"
    return env


def _run(command: str, folder: Path) -> str:
    r = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0 or (r.returncode == 141 and "| tail" not in command), (command, r.stderr)
    return r.stdout


def _doctest(body: str, folder: Path) -> None:
    here = os.getcwd()
    os.chdir(folder)
    try:
        test = doctest.DocTestParser().get_doctest(body, {}, "README.md", str(README), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, out=lambda s: sys.stderr.write(s))
        assert runner.failures == 0, f"{runner.failures} README python examples failed (see stderr)"
    finally:
        os.chdir(here)


def test_every_readme_command_runs_as_written_and_prints_what_it_shows(tmp_path):
    text = README.read_text(encoding="utf-8")
    blocks = _blocks(text)
    assert sum(lang == "console" for lang, *_ in blocks) >= 4
    for lang, body, *_ in blocks:
        if lang == "python":
            _doctest(body, tmp_path)
            continue
        for command, expected in _commands(body):
            assert _run(command, tmp_path) == expected, command


def test_the_readme_starts_with_the_two_setup_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    first_block = lines[lines.index("```") + 1 : lines.index("```", lines.index("```") + 1)]
    assert [line.split()[:2] for line in first_block] == [["make", "demo"], ["make", "test"]]


def _write() -> None:
    """Put each command's real output under it in the README (run in a fresh folder)."""
    import tempfile

    text = README.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        parts, last = [], 0
        for lang, body, start, end in _blocks(text):
            if lang == "python":
                _doctest(body, folder)
                continue
            indent = re.match(r" *", text[start:end]).group(0)
            new = "".join(f"$ {c}\n" + _run(c, folder) for c, _ in _commands(body))
            parts += [text[last:start], textwrap.indent(new, indent, lambda _line: True)]
            last = end
        parts.append(text[last:])
    README.write_text("".join(parts), encoding="utf-8")


if __name__ == "__main__" and "--write" in sys.argv:
    _write()
