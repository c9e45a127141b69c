"""Subagent discovery: Markdown files under `.claude/agents/`, `~/.claude/agents/`, and `--agents` JSON.

A definition file is Markdown with YAML frontmatter; the body is the agent's system prompt.
Precedence on a name clash: managed (the organisation's folder's `.claude/agents`,
`/etc/claude-code/.claude/agents` on Linux: agent.memory.managed_root) > `--agents` > project (the
nearest folder from cwd up to the repository root) > `--add-dir` folders' `.claude/agents` > user
(`~/.claude/agents`) > built-in, as observed in Claude Code 2.1.332. What authors are told about
skipped files and unused keys is `authoring`'s.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Collection

from agent.compaction.settings import agent_window
from agent.errors import UsageError
from agent.hooks.config import read_hooks
from agent.permissions.modes import MODES
from agent.permissions.trust import how_to_trust
from agent.skills.cache import FrontmatterCache
from agent.skills.frontmatter import (
    FrontmatterError, field_text, first_line, parse_bool, parse_frontmatter, report_ignored, scalar_text,
    strict_problem, tool_list, word_list,
)
from agent.subagents.authoring import (
    QuietSkip, report_unrecognized, skip, warn_about_description_size, warn_about_unknown_tools,
)
from agent.subagents.definitions import BUILTIN_AGENTS, AgentDefinition
from agent.subagents.fields import effort_field, memory_field, preloaded_skills
from agent.subagents.servers import read_servers
from agent.subagents.worktrees import isolation_field
from agent.workspace import json_option, load_json, project_folders

log = logging.getLogger("agent")

MAX_NAME_LENGTH = 256
_FILE_FIELDS = frozenset({"name", "description", "tools", "disallowedTools", "model", "maxTurns", "skills", "hooks",
                          "mcpServers", "initialPrompt", "permissionMode", "background", "isolation", "effort",
                          "memory", "omitClaudeMd", "autoCompactWindow"})
_CLI_FIELDS = _FILE_FIELDS - {"name"} | {"prompt"}
# Claude Code's own agent fields that this agent does not implement (read, reported under --verbose)
_UNSUPPORTED_FIELDS: frozenset[str] = frozenset()


def discover_agents(cwd: Path, home: Path, cli_agents: str | None = None, cache: FrontmatterCache | None = None,
                    sources: Collection[str] = ("user", "project", "local"),
                    added: tuple[Path, ...] = (),
                    builtins: dict[str, AgentDefinition] = BUILTIN_AGENTS,
                    managed: Path | None = None) -> dict[str, AgentDefinition]:
    """Every subagent definition of this run, sorted by name: the `builtins` (those the session
    has: definitions.without_disabled_builtins), then user agents
    (`<home>/.claude/agents/**/*.md`), then project agents (`.claude/agents/**/*.md` in cwd and each
    parent up to the repository root, the nearest winning, then in each `added` folder, --add-dir's,
    in order), then `cli_agents` (the --agents value), then the organisation's (`managed`'s
    `.claude/agents`, whatever the sources say), each overriding the ones before on a name clash.
    Of the setting `sources` (--setting-sources), `user` loads the user's and `project` the
    project's and the added folders'; --agents always applies. Only frontmatter is read (through
    `cache` when given), never leniently. Unusable files are skipped (see `authoring.skip`); a bad
    --agents value raises UsageError. Custom descriptions past 15,000 tokens are one warning."""
    own_cache = cache is None
    cache = cache or FrontmatterCache(None)
    from_cli = parse_cli_agents(cli_agents, cwd) if cli_agents is not None else {}
    folders = [*project_folders(Path(cwd)), *added] if "project" in sources else []
    project_roots = [folder / ".claude" / "agents" for folder in folders]
    project: dict[str, AgentDefinition] = {}
    for root in project_roots:  # nearest first, so a farther definition never replaces one
        for name, definition in _agents_in(root, "project", cache).items():
            if name in project:
                log.info(f"agent {name!r}: {project[name].path} shadows {definition.path}")
            else:
                project[name] = definition
    user_root = Path(home) / ".claude" / "agents"
    # A home inside the repository would otherwise load the same files twice, once as "user".
    same = _resolved(user_root) in {_resolved(root) for root in project_roots} - {None}
    user = {} if same or "user" not in sources else _agents_in(user_root, "user", cache)
    found = dict(builtins)
    for layer in (user, project, from_cli, managed_agents(managed, cache)):
        for name, definition in layer.items():
            if name in found:
                log.info(f"agent {name!r}: the {_origin(definition)} overrides the {_origin(found[name])}")
            found[name] = definition
    warn_about_unknown_tools(found.values())
    warn_about_description_size(found.values())
    if own_cache:
        cache.report()
    return dict(sorted(found.items()))


def managed_agents(managed: Path | None, cache: FrontmatterCache) -> dict[str, AgentDefinition]:
    """The organisation's agents (`managed/.claude/agents`), which no other definition overrides;
    none when `managed` is None."""
    return {} if managed is None else _agents_in(managed_agents_folder(managed), "managed", cache)


def managed_agents_folder(managed: Path) -> Path:
    """Where the organisation's agent files are, in its folder `managed`."""
    return Path(managed) / ".claude" / "agents"


def agent_files(root: Path) -> list[Path]:
    """The agent files under `root`, recursively, in the order they are read (sorted paths: the
    first of a duplicated name wins). os.walk does not follow symlinked folders, so loops cannot hang us."""
    return sorted(Path(folder) / file for folder, _, files in os.walk(root) for file in files if file.endswith(".md"))


def read_agent(text: str, path: Path, source: str = "project") -> AgentDefinition:
    """The definition in the agent file at `path` holding `text`. Raises FrontmatterError (and
    nothing else) when the file cannot be used: no frontmatter, invalid YAML (read strictly), not
    a mapping, no or a reserved name, no description, or a tools field that is neither text nor a
    list."""
    problem = strict_problem(text)
    if problem:
        raise FrontmatterError(problem)
    fields, rest = parse_frontmatter(text, str(path))
    return agent_from_fields(fields, path, source, rest.strip())


def agent_from_fields(fields: dict[str, Any], path: Path, source: str = "project", prompt: str | None = None) -> AgentDefinition:
    """The definition in the agent file at `path` whose frontmatter parsed to `fields`; its body is
    `prompt`, or read from the file when used (None). Raises FrontmatterError when unusable (a
    QuietSkip for the name and description problems Claude Code skips silently)."""
    name = field_text(fields.get("name")) if not isinstance(fields.get("name"), list) else ""
    problem = _name_problem(name)
    if problem:
        raise QuietSkip(problem + (" (read as documentation)" if not name else ""))
    description = field_text(fields.get("description"))
    if not description:
        raise QuietSkip("no description")
    return _definition(name, description, prompt, fields, _FILE_FIELDS, source, path)


WIDENING_MODES = ("acceptEdits", "bypassPermissions", "auto")  # a permissionMode that lets an agent do more


def agents_without_project_grants(agents: dict[str, AgentDefinition], cwd: Path, home: Path) -> dict[str, AgentDefinition]:
    """`agents` for a workspace that is not trusted: a project agent's frontmatter `hooks` never
    run (the repository would be running its own commands) and a `permissionMode` that grants
    more than its parent has is dropped (the repository would be approving its own edits), each in
    one warning naming the first few."""
    for field, what, unsafe in (("hooks", "hooks", lambda d: bool(d.hooks)),
                                ("permission_mode", "permissionMode", lambda d: d.permission_mode in WIDENING_MODES)):
        withheld = [name for name, definition in agents.items() if definition.source == "project" and unsafe(definition)]
        if not withheld:
            continue
        names = ", ".join(repr(name) for name in withheld[:3]) + (f" and {len(withheld) - 3} more" if len(withheld) > 3 else "")
        kind = "the project agent" if len(withheld) == 1 else f"{len(withheld)} project agents"
        log.warning(f"Ignoring the {what} of {kind} {names}: " + how_to_trust(home, cwd))
        agents = {name: replace(definition, **{field: None}) if name in withheld else definition
                  for name, definition in agents.items()}
    return agents


def parse_cli_agents(value: str, cwd: Path | None = None) -> dict[str, AgentDefinition]:
    """The definitions in an --agents value: a JSON object `{"<name>": {"description", "prompt",
    "tools", "disallowedTools", "model", "maxTurns", "skills", "hooks", "mcpServers"}}`, or the path of a JSON file holding
    one (relative to `cwd`, default the process's). Raises UsageError with a one-line message when
    the file cannot be read, the JSON is invalid or not an object, or an entry is unusable."""
    text, origin = json_option("--agents", value, cwd if cwd is not None else Path.cwd())
    try:
        data = load_json(text, "the value")
    except ValueError as error:
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
        if not isinstance(prompt, str):  # an empty one is allowed: run with --agent, it keeps our instructions
            raise UsageError(f"--agents: agent {name!r} has no prompt")
        try:
            agents[name] = _definition(name, description, prompt.strip(), entry, _CLI_FIELDS, "cli", None)
        except FrontmatterError as error:
            raise UsageError(f"--agents: agent {name!r}: {error}") from None
    return agents


def _definition(name: str, description: str, prompt: str | None, fields: dict[str, Any], handled: frozenset[str],
                source: str, path: Path | None) -> AgentDefinition:
    label = f"agent {name!r}" + (f" ({path})" if path else " (--agents)")
    report_ignored(label, fields, handled, _UNSUPPORTED_FIELDS)
    if path is not None:
        report_unrecognized(path, fields, handled, _UNSUPPORTED_FIELDS)
    skills = preloaded_skills(word_list(fields.get("skills"), commas=True), label)
    return AgentDefinition(
        name=name,
        description=description,
        prompt_text=prompt,
        tools=_tools_field(fields, "tools"),
        disallowed_tools=_tools_field(fields, "disallowedTools") or (),
        model=field_text(fields.get("model")) or None,
        max_turns=_max_turns(fields.get("maxTurns"), label),
        skills=skills,
        source=source,
        path=path,
        hooks=read_hooks(fields.get("hooks"), label) or None,
        mcp_servers=read_servers(fields.get("mcpServers"), label),
        permission_mode=_permission_mode(fields.get("permissionMode"), label),
        initial_prompt=field_text(fields.get("initialPrompt")) or None,
        background=parse_bool(fields.get("background")) is True,
        omit_claude_md=parse_bool(fields.get("omitClaudeMd")) is True,
        effort=effort_field(fields.get("effort"), label),
        memory=memory_field(fields.get("memory"), label),
        isolation=isolation_field(fields.get("isolation"), label),
        auto_compact_window=agent_window(fields.get("autoCompactWindow"), label),
    )


def _tools_field(fields: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = fields.get(key)
    if value is None:
        return None
    if not isinstance(value, list) and scalar_text(value) is None:
        # Guessing at a mapping could widen what the agent may do, so the definition is refused.
        raise FrontmatterError(f"{key} must be a comma-separated string or a list of tool names")
    return tool_list(value)


def _permission_mode(value: Any, label: str) -> str | None:
    """The declared permissionMode, or None (inherit the parent's) when unset or not a mode (one warning)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip() in MODES:
        return value.strip()
    log.warning(f"{label}: permissionMode should be one of {', '.join(MODES)}, not {_short(value)}; "
                "it runs in the mode it is started in")
    return None


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


def _agents_in(root: Path, source: str, cache: FrontmatterCache) -> dict[str, AgentDefinition]:
    """The usable definitions under `root`, searched recursively in sorted path order (agent_files);
    the first of a duplicated name wins."""
    paths = agent_files(root)
    agents: dict[str, AgentDefinition] = {}
    for path in paths:
        try:
            definition = agent_from_fields(cache.read(path, strict=True), path, source)
        except FileNotFoundError:  # vanished, or not a regular file
            continue
        except OSError as error:
            log.warning(f"skipping {path}: cannot read it ({error.strerror or error})")
            continue
        except FrontmatterError as error:
            skip(path, error)
            continue
        if definition.name in agents:
            log.info(f"agent {definition.name!r}: {agents[definition.name].path} shadows {path}")
            continue
        agents[definition.name] = definition
    return agents


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
