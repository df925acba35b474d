"""The architecture figures of docs/architecture.md, measured on a checkout (run by hand).

    python benchmarks/arch_figures.py [SRC]      # SRC defaults to src/perfeval

Prints, as Markdown: lines per module (the largest), imports inside functions (in all and of the
project's own modules), raise statements per door module (checks of input written there), and the
repeated runs the `duplicates` command finds (when it is on PATH).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

# the modules through which a user's input comes in (the old and the new places)
DOORS = (
    "_validation.py",
    "_sklearn_names.py",
    "sklearn.py",
    "metric.py",
    "stream.py",
    "cli/load.py",
    "dask.py",
    "evaluation.py",
    "functional.py",
    "door.py",
    "checks.py",
)


def _local_imports(tree: ast.AST) -> tuple[int, int]:
    """(imports inside a function, of them perfeval's own)."""
    n = own = 0
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    n += 1
                    own += any(a.name.startswith("perfeval") for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    n += 1
                    own += node.level > 0 or (node.module or "").startswith("perfeval")
    return n, own


def main(src: Path) -> None:
    rows = []
    total_local = total_own = 0
    raises: dict[str, int] = {}
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        text = path.read_text()
        tree = ast.parse(text)
        local, own = _local_imports(tree)
        total_local += local
        total_own += own
        rows.append((len(text.splitlines()), rel, local))
        if rel.endswith(DOORS):
            raises[rel] = sum(isinstance(n, ast.Raise) for n in ast.walk(tree))
    c_files = [*src.rglob("*.[ch]"), *(src.parents[1] / "csrc").glob("*.[ch]")]  # in the package, or csrc/
    c_lines = sum(len(p.read_text().splitlines()) for p in c_files)
    print(f"modules: {len(rows)}; Python lines: {sum(r[0] for r in rows):,}; C lines: {c_lines:,}")
    print(f"modules at the package root: {sum('/' not in r[1] for r in rows)}")
    print(f"imports inside functions: {total_local} (of perfeval's own modules: {total_own})")
    print("\n| module | lines | imports inside functions |\n|---|---:|---:|")
    for lines, rel, local in sorted(rows, reverse=True)[:15]:
        print(f"| `{rel}` | {lines:,} | {local} |")
    print("\n| door module | raise statements |\n|---|---:|")
    for rel, n in sorted(raises.items(), key=lambda kv: -kv[1]):
        print(f"| `{rel}` | {n} |")
    if shutil.which("duplicates"):
        csrc = src.parents[1] / "csrc"
        for where in (src, csrc) if csrc.is_dir() else (src,):
            out = subprocess.run(
                ["duplicates", "--repo", str(where), "--most", "1", "--seconds", "120"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            print(f"\nrepeated runs in {where.name}/ (`duplicates`): {out.splitlines()[0] if out else '?'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src" / "perfeval")
