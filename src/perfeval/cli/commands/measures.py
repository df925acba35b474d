"""``perfeval list-measures``: the registry as a table, every definition, or Markdown (docs/measures.md)."""

from __future__ import annotations

from typing import Any

from perfeval.cli.output import table, write
from perfeval.dialects import DIALECTS
from perfeval.measures import list_measures


def _dialects(name: str) -> str:
    """The dialects that define a measure, each with the tool's call (docs/dialects.md)."""
    out = []
    for d in DIALECTS.values():
        if d.name == "perfeval" or not d.defines(name):
            continue
        pol = d.policies.get(name)
        out.append(f"`{d.name}`" + (f" ({pol.call})" if pol is not None else ""))
    return ", ".join(out) or "none"


def _markdown(ms: list) -> str:
    out = ["# Measures", "", "Generated from the registry (`perfeval list-measures --format markdown`).", ""]
    for m in ms:
        params = (
            [
                "- parameters: "
                + "; ".join(f"`{p.name}` (default {p.default}; {p.domain}): {p.doc}" for p in m.params)
            ]
            if m.params
            else []
        )
        out += [
            f"## {m.name}: {m.title}",
            "",
            f"- aliases: {', '.join(f'`{a}`' for a in m.aliases)}",
            f"- PERF options: {', '.join(f'`{o}`' for o in m.perf_options)}",
            f"- better: {m.direction}" + ("; allowed in `-blocks` mode" if m.blocks else ""),
            *params,
            "",
            m.definition,
            "",
            f"**Ties.** {m.ties}",
            "",
            f"**Edge cases.** {m.edge_cases}",
            "",
            f"**Tie bounds.** {m.tie_bounds_text}",
            "",
            f"**perf compatibility.** {m.perf}",
            "",
            f"**Dialects** (other tools' rules, docs/dialects.md): {_dialects(m.name)}.",
            "",
        ]
    return "\n".join(out)


def list_measures_text(long: bool = False, fmt: str = "table") -> str:
    """The measures as ``list-measures`` prints them."""
    ms = list_measures()
    if fmt == "markdown":
        return _markdown(ms)
    if long:
        return "\n\n".join(f"{m.doc}\nDialects: {_dialects(m.name)}" for m in ms) + "\n"
    rows = [["name", "better", "PERF options", "aliases", "title"]]
    rows += [[m.name, m.direction, " ".join(m.perf_options), " ".join(m.aliases), m.title] for m in ms]
    return "\n".join(table(rows, "l")) + "\n"


def run(args: Any) -> int:
    write(list_measures_text(args.long, args.format))
    return 0
