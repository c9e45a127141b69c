"""Subagent definitions: the built-ins, Markdown files under `.claude/agents/`, and `--agents` JSON.

A definition file is Markdown with YAML frontmatter; the body is the agent's system prompt.
Precedence on a name clash: `--agents` > project (the nearest folder from cwd up to the
repository root) > user (`~/.claude/agents`) > built-in.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.errors import UsageError
from agent.frontmatter import (
    FrontmatterError, field_text, first_line, parse_frontmatter, scalar_text, tool_list, word_list,
)

log = logging.getLogger("agent")

MAX_NAME_LENGTH = 256
_FILE_FIELDS = frozenset({"name", "description", "tools", "disallowedTools", "model", "maxTurns", "skills"})
_CLI_FIELDS = _FILE_FIELDS - {"name"} | {"prompt"}
_TOOL_ALIASES = {"Task": "Agent"}  # the Agent tool was called Task; old definitions still say so


@dataclass(frozen=True)
class AgentDefinition:
    """One kind of subagent: who it is, its system prompt, and what it may use."""

    name: str
    description: str
    prompt: str  # the body: this agent's system prompt
    tools: tuple[str, ...] | None = None  # None = inherit every tool; "Bash(git *)" names the Bash tool
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None  # alias (sonnet/opus/haiku/inherit) or full id, as written
    max_turns: int | None = None
    skills: tuple[str, ...] = ()  # skill names whose bodies are preloaded
    source: str = "builtin"  # "builtin" | "user" | "project" | "cli"
    path: Path | None = None


_REPORT_BACK = (
    "Your final message is returned to the agent that launched you, and it is all that agent sees of "
    "your work: put everything it needs in that message, and follow any instructions about the form "
    "of the answer exactly."
)

BUILTIN_AGENTS: dict[str, AgentDefinition] = {
    "Explore": AgentDefinition(
        name="Explore",
        description="Fast read-only agent for exploring a codebase: finding files, searching code, "
                    "answering questions about it.",
        prompt=(
            "You are a read-only exploration agent. Answer the question you were given by finding "
            "files, searching code and reading it. Search broadly first (Glob, Grep), then read what "
            "matters. Never modify anything: do not create, edit, move or delete files, and use Bash "
            "only for commands that inspect (ls, git log, git diff, ...), never for ones that change "
            "state. Report your findings with file paths (and line numbers where they help), and say "
            "plainly what you could not find.\n\n" + _REPORT_BACK
        ),
        tools=("Read", "Glob", "Grep", "Bash"),
    ),
    "general-purpose": AgentDefinition(
        name="general-purpose",
        description="General-purpose agent for researching complex questions, searching for code, "
                    "and executing multi-step tasks.",
        prompt=(
            "You are a general-purpose agent. Another agent delegated the task below to you: do it "
            "completely with the tools you have, searching, reading, running commands and editing "
            "files as the task requires. Look before you act and keep changes minimal. When done, "
            "report back concisely: what you found or changed (with file paths), and anything left "
            "undone.\n\n" + _REPORT_BACK
        ),
    ),
}


def discover_agents(cwd: Path, home: Path, cli_agents: str | None = None) -> dict[str, AgentDefinition]:
    """Every subagent definition of this run, sorted by name: the built-ins, then user agents
    (`<home>/.claude/agents/**/*.md`), then project agents (`.claude/agents/**/*.md` in cwd and each
    parent up to the repository root, the nearest winning), then `cli_agents` (the --agents value),
    each overriding the ones before on a name clash. Unusable files are skipped with one warning
    each; a bad --agents value raises UsageError."""
    from_cli = parse_cli_agents(cli_agents, cwd) if cli_agents is not None else {}
    project_roots = [folder / ".claude" / "agents" for folder in _project_folders(Path(cwd))]
    project: dict[str, AgentDefinition] = {}
    for root in project_roots:  # nearest first, so a farther definition never replaces one
        for name, definition in _agents_in(root, "project").items():
            if name in project:
                log.info(f"agent {name!r}: {project[name].path} shadows {definition.path}")
            else:
                project[name] = definition
    user_root = Path(home) / ".claude" / "agents"
    # A home inside the repository would otherwise load the same files twice, once as "user".
    same = _resolved(user_root) in {_resolved(root) for root in project_roots} - {None}
    user = {} if same else _agents_in(user_root, "user")
    found = dict(BUILTIN_AGENTS)
    for layer in (user, project, from_cli):
        for name, definition in layer.items():
            if name in found:
                log.info(f"agent {name!r}: the {_origin(definition)} overrides the {_origin(found[name])}")
            found[name] = definition
    return dict(sorted(found.items()))


def read_agent(text: str, path: Path, source: str = "project") -> AgentDefinition:
    """The definition in the agent file at `path` holding `text`. Raises FrontmatterError (and
    nothing else) when the file cannot be used: no frontmatter, invalid YAML, not a mapping, no or
    a reserved name, no description, or a tools field that is neither text nor a list."""
    fields, rest = parse_frontmatter(text)
    name = field_text(fields.get("name")) if not isinstance(fields.get("name"), list) else ""
    problem = _name_problem(name)
    if problem:
        raise FrontmatterError(problem)
    description = field_text(fields.get("description"))
    if not description:
        raise FrontmatterError("no description")
    return _definition(name, description, rest.strip(), fields, _FILE_FIELDS, source, path)


def parse_cli_agents(value: str, cwd: Path | None = None) -> dict[str, AgentDefinition]:
    """The definitions in an --agents value: a JSON object `{"<name>": {"description", "prompt",
    "tools", "disallowedTools", "model", "maxTurns", "skills"}}`, or the path of a JSON file holding
    one (relative to `cwd`, default the process's). Raises UsageError with a one-line message when
    the file cannot be read, the JSON is invalid or not an object, or an entry is unusable."""
    text, origin = value, "the --agents value"
    if not value.strip().startswith(("{", "[")):
        path = Path(cwd if cwd is not None else Path.cwd()) / value.strip()
        try:
            text, origin = path.read_bytes().decode("utf-8", errors="replace"), str(path)
        except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
            reason = getattr(error, "strerror", None) or first_line(error)
            raise UsageError(
                f"--agents: {_short(value)} is neither a JSON object nor a readable file ({reason})"
            ) from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:  # RecursionError: absurdly deep nesting
        raise UsageError(f"--agents: invalid JSON in {origin} ({first_line(error)})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--agents: {origin} must be a JSON object mapping agent names to definitions")
    agents = {}
    for key, entry in data.items():
        name = key.strip()
        problem = _name_problem(name)
        if problem:
            raise UsageError(f"--agents: agent {_short(key)}: {problem}")
        if not isinstance(entry, dict):
            raise UsageError(f"--agents: agent {name!r} must be a JSON object")
        description = field_text(entry.get("description"))
        if not description:
            raise UsageError(f"--agents: agent {name!r} has no description")
        prompt = entry.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise UsageError(f"--agents: agent {name!r} has no prompt")
        try:
            agents[name] = _definition(name, description, prompt.strip(), entry, _CLI_FIELDS, "cli", None)
        except FrontmatterError as error:
            raise UsageError(f"--agents: agent {name!r}: {error}") from None
    return agents


def filter_tools(available: list[str], definition: AgentDefinition) -> list[str]:
    """The names of `available` that `definition` may use, in their order: its disallowedTools
    removed first (by tool name, so `Bash(git push *)` removes all of Bash), then only its `tools`
    kept (all when None). "Task" stands for "Agent". Raises ValueError naming the entries when
    `tools` is given and none of them names an available tool."""
    denied = {_tool_name(entry) for entry in definition.disallowed_tools}
    kept = [tool for tool in available if _tool_name(tool) not in denied]
    if definition.tools is None:
        return kept
    offered = {_tool_name(tool) for tool in available}
    unknown = [entry for entry in definition.tools if _tool_name(entry) not in offered]
    # An explicitly empty list means "no tools", not a typo, so only a list of misses is refused.
    if unknown and len(unknown) == len(definition.tools):
        raise ValueError(
            f"Agent '{definition.name}' would be spawned with zero tools: its tools list resolved to "
            f"nothing (unrecognized: {', '.join(unknown)}). Fix the agent's tools field or use a "
            "different subagent_type."
        )
    if unknown:
        log.info(f"agent {definition.name!r}: ignoring unavailable tools {', '.join(unknown)}")
    wanted = {_tool_name(entry) for entry in definition.tools}
    return [tool for tool in kept if _tool_name(tool) in wanted]


def _definition(name: str, description: str, prompt: str, fields: dict[str, Any], handled: frozenset[str],
                source: str, path: Path | None) -> AgentDefinition:
    label = f"agent {name!r}" + (f" ({path})" if path else " (--agents)")
    ignored = sorted(set(fields) - handled)
    if ignored:
        log.info(f"{label}: ignoring fields {', '.join(ignored)}")
    skills = dict.fromkeys(word_list(fields.get("skills"), commas=True))  # a dict keeps the first of duplicates
    return AgentDefinition(
        name=name,
        description=description,
        prompt=prompt,
        tools=_tools_field(fields, "tools"),
        disallowed_tools=_tools_field(fields, "disallowedTools") or (),
        model=field_text(fields.get("model")) or None,
        max_turns=_max_turns(fields.get("maxTurns"), label),
        skills=tuple(skills),
        source=source,
        path=path,
    )


def _tools_field(fields: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = fields.get(key)
    if value is None:
        return None
    if not isinstance(value, list) and scalar_text(value) is None:
        # Guessing at a mapping could widen what the agent may do, so the definition is refused.
        raise FrontmatterError(f"{key} must be a comma-separated string or a list of tool names")
    return tool_list(value)


def _max_turns(value: Any, label: str) -> int | None:
    if value is None:
        return None
    turns = None
    if isinstance(value, int) and not isinstance(value, bool):
        turns = value
    elif isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) <= 9:
        turns = int(value.strip())
    if turns is not None and turns > 0:
        return turns
    log.warning(f"{label}: maxTurns should be a positive whole number, not {_short(value)}; ignoring it")
    return None


def _name_problem(name: str) -> str | None:
    if not name:
        return "no name"
    if len(name) > MAX_NAME_LENGTH:
        return f"the name is longer than {MAX_NAME_LENGTH} characters"
    if name.startswith("-"):
        return f"the name {name!r} starts with '-'"
    if ":" in name:
        return f"the name {name!r} contains ':' (reserved for plugin agents)"
    return None


def _tool_name(entry: str) -> str:
    name = entry.split("(", 1)[0].strip()
    return _TOOL_ALIASES.get(name, name)


def _agents_in(root: Path, source: str) -> dict[str, AgentDefinition]:
    """The usable definitions under `root`, searched recursively in sorted path order; the first
    of a duplicated name wins. os.walk does not follow symlinked folders, so loops cannot hang us."""
    paths = sorted(Path(folder) / file for folder, _, files in os.walk(root) for file in files if file.endswith(".md"))
    agents: dict[str, AgentDefinition] = {}
    for path in paths:
        try:
            if not path.is_file():
                continue
            definition = read_agent(path.read_bytes().decode("utf-8", errors="replace"), path, source)
        except OSError as error:
            log.warning(f"skipping {path}: cannot read it ({error.strerror or error})")
            continue
        except FrontmatterError as error:
            log.warning(f"skipping {path}: {error}")
            continue
        if definition.name in agents:
            log.info(f"agent {definition.name!r}: {agents[definition.name].path} shadows {path}")
            continue
        agents[definition.name] = definition
    return agents


def _project_folders(cwd: Path) -> list[Path]:
    """cwd and its parents up to the repository root (the nearest one holding `.git`), nearest
    first; only cwd when it is not inside a repository."""
    start = Path(os.path.abspath(cwd))
    chain = [start, *start.parents]
    for index, folder in enumerate(chain):
        if os.path.exists(folder / ".git"):  # a file in worktrees and submodules
            return chain[:index + 1]
    return [start]


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _origin(definition: AgentDefinition) -> str:
    where = f" in {definition.path}" if definition.path else ""
    return f"{definition.source} agent{where}"


def _short(value: Any) -> str:
    """`value` for a one-line message: text quoted, other scalars as written, anything else by its
    type, cut to 60 characters."""
    text = scalar_text(value)
    shown = repr(text) if isinstance(value, str) else text or f"a {type(value).__name__}"
    return shown if len(shown) <= 60 else shown[:57] + "..."
