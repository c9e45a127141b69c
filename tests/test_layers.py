"""The package layout holds its own rules (design.md §2b): imports run one way, top to bottom,
counting imports inside functions; no module cycles; no oversized files."""

from __future__ import annotations

import ast
from pathlib import Path

AGENT = Path(__file__).resolve().parent.parent / "agent"

# Higher imports lower, never the reverse. Within one package, modules import each other freely
# (but without cycles). Modules not named here are the bottom layer (rank 0).
RANKS = {
    "agent.__main__": 10,
    "agent.cli": 9,
    "agent.run": 8,
    "agent.session": 7,
    "agent.subagents": 6,
    "agent.skills": 5,
    "agent.loop": 4,
    "agent.tools": 3,
    "agent.compaction": 3,
    "agent.model": 2,
    "agent.record": 2,
    "agent.hooks": 2,
    "agent.mcp": 4,
}
BOTTOM = {"agent.conversation", "agent.errors", "agent.permissions", "agent.prompt", "agent.workspace",
          "agent.transcripts", "agent.memory", "agent.secrets", "agent.processes", "agent"}


def module_name(path: Path) -> str:
    parts = path.relative_to(AGENT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit(module: str) -> str:
    """The layer a module belongs to: its top-level package or module under agent."""
    return ".".join(module.split(".")[:2])


def rank(module: str) -> int:
    return RANKS.get(unit(module), 0)


def imports_of(path: Path, module: str) -> set[str]:
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "agent" or name.startswith("agent.")}


MODULES = {module_name(path): path for path in AGENT.rglob("*.py")}
GRAPH = {name: {m for m in imports_of(path, name) if m in MODULES and m != name} for name, path in MODULES.items()}


def test_every_module_is_placed_in_a_layer():
    unplaced = sorted({unit(m) for m in MODULES} - set(RANKS) - BOTTOM)
    assert unplaced == []


def test_no_module_imports_a_higher_layer():
    upward = [
        f"{source} imports {target}"
        for source, targets in GRAPH.items()
        for target in targets
        if unit(target) != unit(source) and source != "agent"
        and (rank(target) > rank(source) or rank(target) == rank(source) > 0)
    ]
    assert upward == []


def test_the_bottom_layer_imports_only_errors_conversation_workspace_secrets_and_itself():
    outside = [
        f"{source} imports {target}"
        for source, targets in GRAPH.items()
        if unit(source) in BOTTOM - {"agent"}
        for target in targets
        if unit(target) not in (unit(source), "agent.errors", "agent.conversation", "agent.workspace", "agent.secrets")
    ]
    assert outside == []


def test_no_import_cycles():
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        stack.append(node)
        for following in sorted(GRAPH[node]):
            if state.get(following) == "open":
                cycles.append(" -> ".join(stack[stack.index(following):] + [following]))
            elif following not in state:
                visit(following, stack)
        stack.pop()
        state[node] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [])
    assert cycles == []


def test_layout_limits():
    top_level = sorted(p.name for p in AGENT.glob("*.py") if p.name != "__init__.py")
    packages = sorted(p.name for p in AGENT.iterdir() if (p / "__init__.py").is_file())
    long_files = sorted(str(p.relative_to(AGENT)) for p in AGENT.rglob("*.py") if len(p.read_text().splitlines()) > 350)
    assert len(top_level) <= 10, top_level
    assert len(packages) >= 4, packages
    assert long_files == []


def test_every_package_says_what_it_holds_and_may_import():
    silent = [
        str(init.relative_to(AGENT))
        for init in AGENT.rglob("__init__.py")
        if init.parent != AGENT and "May import" not in (ast.get_docstring(ast.parse(init.read_text())) or "")
    ]
    assert silent == []
