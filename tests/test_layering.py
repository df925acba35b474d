"""The package's import graph (function-local imports included): no cycle, no private name of another
module imported, and the layers run one way (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "perfeval"

#: lower layers never import higher ones (same layer: allowed, as long as there is no cycle).  One
#: entry a folder of src/perfeval (docs/architecture.md's table), modules at the root by name.
LAYERS = [
    # 0: the ground
    ["perfeval.exceptions", "perfeval.base", "perfeval._native", "perfeval._version"]
    + ["perfeval._x87"],  # the old name of _native, in base/moved.py's table (removed in 0.2.0)
    ["perfeval.io", "perfeval.summaries"],  # 1
    ["perfeval.measures"],  # 2
    ["perfeval.engine", "perfeval.curves", "perfeval.dialects", "perfeval.classic"],  # 3
    # 4, the front doors and backends, in the order of their real imports (4a below 4d):
    ["perfeval.backends"],  # 4a: stream, metric, metric_state, dask: the engine's other feeds
    [
        "perfeval.api",
        "perfeval.spark",
    ],  # 4b: evaluate() (hands a Dask collection to backends.dask), explain(); perfeval.spark: the Spark face
    ["perfeval.stats", "perfeval.functional"],  # 4c: both call evaluate()
    ["perfeval.trec", "perfeval.bootstrap", "perfeval.delong"],  # 4d: over stats (and explain)
    ["perfeval.plot"],  # 5: the views (plot.html: the HTML report)
    ["perfeval.contest"],  # 6
    ["perfeval.cli", "perfeval.__main__"],  # 7
]
#: the first index of layer 4 (its sub-layers 4a..4d are LAYERS[4:8])
FRONT = 4


def _modules() -> dict[str, Path]:
    out = {}
    for p in SRC.rglob("*.py"):
        rel = p.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()
PACKAGES = {m for m, p in MODULES.items() if p.name == "__init__.py"}


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if module in PACKAGES else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _module_attributes(mod: str, tree: ast.AST, aliases: dict[str, str]) -> list[tuple[str, str, str, int]]:
    """``alias.name`` where ``alias`` is a perfeval module imported whole: the name is used as if
    imported from that module (``from perfeval import curves as c; c._summary`` is a private import)."""
    return [
        (mod, aliases[node.value.id], node.attr, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
    ]


def _edges() -> list[tuple[str, str, str, int]]:
    """(importer, imported module, name or '', line) for every import of a perfeval module, and for
    every attribute read through a module imported whole."""
    edges = []
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("perfeval"):
                        edges.append((mod, a.name, "", node.lineno))
                        if a.asname:
                            aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(mod, node)
                if not target.startswith("perfeval"):
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    if (
                        sub in MODULES
                        or (SRC.parent / sub.replace(".", "/")).with_suffix(".c").exists()
                        or sub == "perfeval._native"
                    ):
                        edges.append((mod, sub, "", node.lineno))  # a module imported from its package
                        aliases[a.asname or a.name] = sub
                    else:
                        edges.append((mod, target, a.name, node.lineno))
        edges += _module_attributes(mod, tree, aliases)
    return edges


EDGES = _edges()

#: violations that exist today and are being removed; a new one fails, and so does one listed here
#: that is gone (shrink the list).  Empty since the statistics and command-line splits of issue 13.
PENDING: set[str] = set()


def _check(found: list[str], kind: str) -> None:
    """``found``: 'module:line rest'; fails on anything not PENDING, and on PENDING entries of this
    kind that no longer occur."""
    keyed = {f.split(":", 1)[0] + " " + f.split(" ", 1)[1]: f for f in found}
    new = sorted(f for k, f in keyed.items() if k not in PENDING)
    gone = sorted(k for k in PENDING if kind in k and k not in keyed)
    assert not new, "\n".join(new)
    assert not gone, "fixed, remove from PENDING: " + "; ".join(gone)


def _layer(mod: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if any(mod == p or mod.startswith(p + ".") for p in layer):
            return i
    return None


def test_every_module_has_a_layer():
    missing = sorted(m for m in MODULES if m != "perfeval" and _layer(m) is None)
    assert not missing, f"add these modules to a layer in tests/test_layering.py: {missing}"


def test_layers_run_one_way():
    bad = []
    for a, b, _name, line in EDGES:
        la, lb = _layer(a), _layer(b)
        if a == "perfeval" or b == "perfeval" or la is None or lb is None:
            continue  # the package's lazy exports sit above everything
        if lb > la:
            bad.append(f"{a}:{line} imports {b}")
    _check(bad, "imports perfeval.")


def test_no_private_name_of_another_module():
    bad = [
        f"{a}:{line} imports {name} from {b}"
        for a, b, name, line in EDGES
        if name.startswith("_") and not name.startswith("__") and b != a
    ]
    _check(bad, " from ")


def test_no_import_cycle():
    graph: dict[str, set[str]] = {}
    for a, b, _name, _line in EDGES:
        if a == "perfeval" or b == "perfeval" or a == b:
            continue
        # a package's __init__ importing its own submodules is how a package is built, not a cycle
        if b.startswith(a + ".") and a in PACKAGES:
            continue
        graph.setdefault(a, set()).add(b)
    seen: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(n: str) -> None:
        seen[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if seen.get(m) == 1:
                cycles.append(" -> ".join(stack[stack.index(m) :] + [m]))
            elif m not in seen:
                visit(m)
        stack.pop()
        seen[n] = 2

    for n in sorted(graph):
        if n not in seen:
            visit(n)
    assert not cycles, "\n".join(cycles)


def test_nothing_in_the_package_imports_the_old_name_of_the_kernels():
    """perfeval._x87 is a deprecated alias of perfeval._native, kept for users only: a module of the
    package that imported it would warn in every user's process."""
    users = sorted(f"{a}:{line}" for a, b, _name, line in EDGES if b == "perfeval._x87" or _name == "_x87")
    assert not users, users


@pytest.mark.parametrize(
    "mod",
    [
        "perfeval.engine.finish",
        "perfeval.engine.door",
        "perfeval.base.checks",
        "perfeval.summaries.histogram",
    ],
)
def test_core_modules_know_no_backend(mod):
    """The engine, the door and the summaries import no front end, backend, CLI or plotting."""
    above = {b for a, b, _n, _l in EDGES if a == mod and (_layer(b) or 0) >= FRONT}
    assert not above, f"{mod} imports {sorted(above)}"


def test_the_checker_sees_private_names_read_through_a_module():
    code = "from perfeval import curves as c\nimport perfeval.engine.report as r\nc._summary(1)\nr.dumps\n"
    tree = ast.parse(code)
    found = _module_attributes("perfeval.plot", tree, {"c": "perfeval.curves", "r": "perfeval.engine.report"})
    assert ("perfeval.plot", "perfeval.curves", "_summary", 3) in found
    assert ("perfeval.plot", "perfeval.engine.report", "dumps", 4) in found


def test_nothing_in_the_package_imports_an_old_path_of_a_moved_module():
    """perfeval/base/moved.py keeps the old paths (perfeval.stream, perfeval._validation, ...) for
    users until 0.2.0; a module of the package importing one would warn in every user's process (and
    its layer would go unchecked: an old path is no module here)."""
    from perfeval.base.moved import MOVED

    old = set(MOVED) | {"perfeval.bootstrap", "perfeval.delong"}
    users = sorted(
        f"{a}:{line} imports {b}"
        for a, b, name, line in EDGES
        if a not in old and (b in old or f"{b}.{name}" in old)
    )
    assert not users, users
