"""An agent's own MCP servers, its definition's `mcpServers`, as Claude Code reads them: a list
whose entries are either the name of one of the session's servers (its tools, over the session's
connection, are offered to the agent whatever its `tools` say) or `{name: entry}` with an entry as
in .mcp.json (an inline server: started when the agent runs, stopped when it ends, its tools
offered to that agent only; the main conversation never sees them). A repository cannot make the
agent start its own commands: a project agent's inline servers start only in a trusted
workspace, and with --strict-mcp-config only those of --agents start, as in Claude Code."""

from __future__ import annotations

import contextlib
import functools
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator, Mapping

from agent.permissions.trust import how_to_trust
from agent.subagents.definitions import AgentDefinition, AgentServer
from agent.tools.base import Tool

log = logging.getLogger("agent")

MAX_SERVERS = 200  # entries of one agent's mcpServers, as many as a configuration may name
MAX_NAME = 200


def read_servers(value: Any, label: str) -> tuple[AgentServer, ...]:
    """The entries of an `mcpServers` field (None: the field is absent); what is not a list, and
    each entry that is neither a name nor `{name: entry}`, is one warning and left out (the
    first of a repeated name wins). Inline entries are read as .mcp.json entries when the agent
    runs, with the run's environment."""
    if value is None:
        return ()
    if not isinstance(value, list):
        log.warning(f"{label}: mcpServers must be a list of server names and {{name: configuration}} "
                    "entries; ignoring it")
        return ()
    if len(value) > MAX_SERVERS:
        log.warning(f"{label}: mcpServers names {len(value)} servers; only the first {MAX_SERVERS} are used")
    servers: dict[str, AgentServer] = {}
    for entry in value[:MAX_SERVERS]:
        if _usable_name(entry):
            servers.setdefault(entry.strip(), AgentServer(entry.strip()))
        elif isinstance(entry, dict) and entry and all(_usable_name(k) and isinstance(v, dict) for k, v in entry.items()):
            for name, config in entry.items():
                servers.setdefault(name.strip(), AgentServer(name.strip(), config))
        else:
            log.warning(f"{label}: ignoring an mcpServers entry that is neither a server's name nor "
                        f"{{name: configuration}} ({type(entry).__name__})")
    return tuple(servers.values())


def _usable_name(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value.strip()) <= MAX_NAME and value.isprintable()


def withheld_servers(agents: dict[str, AgentDefinition], cwd: Path, home: Path, trusted: bool,
                     strict: bool) -> dict[str, AgentDefinition]:
    """`agents` without the inline servers they may not start: a project agent's in a workspace
    that is not `trusted` (the repository would be running its own commands), and with
    --strict-mcp-config (`strict`) every agent file's (those of --agents stay, as in Claude Code);
    one warning for each reason, naming the first few agents. Named servers are the session's
    own and always stay."""
    untrusted = [] if trusted else project_inline_servers(agents)
    unstrict = [n for n, d in agents.items() if strict and d.source != "cli" and _inline(d) and n not in untrusted]
    if untrusted:
        log.warning(f"Not starting the inline MCP servers of {_named(untrusted, 'project agent')}: "
                    + how_to_trust(home, cwd))
    if unstrict:
        log.warning(f"--strict-mcp-config: not starting the inline MCP servers of {_named(unstrict, 'agent')} "
                    "(only those of --agents start)")
    withheld = set(untrusted + unstrict)
    return {name: replace(definition, mcp_servers=tuple(s for s in definition.mcp_servers if s.config is None))
            if name in withheld else definition for name, definition in agents.items()}


def project_inline_servers(agents: dict[str, AgentDefinition]) -> list[str]:
    """The project agents with inline servers, which only trust lets start (what the interactive
    trust question is also asked for)."""
    return [name for name, definition in agents.items() if definition.source == "project" and _inline(definition)]


def _inline(definition: AgentDefinition) -> bool:
    return any(server.config is not None for server in definition.mcp_servers)


def _named(names: list[str], kind: str) -> str:
    shown = ", ".join(repr(name) for name in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"the {kind} {shown}" if len(names) == 1 else f"{len(names)} {kind}s {shown}"


@contextlib.contextmanager
def agent_servers(session, definition: AgentDefinition) -> Iterator[list[Tool]]:
    """The MCP tools `definition`'s own servers give its agent while the block runs: those of the
    session's servers it names (a name the session does not configure is one warning) and those
    of its inline servers, started now and stopped when the block ends (an inline server shadows
    a session server of the same name); none that a deny rule removes."""
    named = [server.name for server in definition.mcp_servers if server.config is None]
    inline = {server.name: server.config for server in definition.mcp_servers if server.config is not None}
    configured = {status["name"] for status in session.mcp.status()} if session.mcp is not None else set()
    if missing := [name for name in named if name not in configured]:
        log.warning(f"agent {definition.name!r}: mcpServers names {', '.join(map(repr, missing))}, which this "
                    "session does not configure; left out")
    found = [name for name in named if name in configured]
    tools = session.mcp_tools(found) if found else []
    started = _start(session, definition, inline) if inline else None
    try:
        if started is not None:
            own = session.without_denied(started.tools())
            shadowed = {tool.name for tool in own}
            tools = [tool for tool in tools if tool.name not in shadowed] + own
        yield tools
    finally:
        if started is not None:
            started.close()


def _start(session, definition: AgentDefinition, inline: dict[str, Any]):
    if session.start_agent_servers is None:  # a session that starts no agent's servers (see Session)
        log.warning(f"agent {definition.name!r}: its inline MCP servers are not started in this session")
        return None
    return session.start_agent_servers(inline, f"the mcpServers of agent {definition.name!r}")


def live_starter(cwd: Path, environment: Mapping[str, str], **limits: Any):
    """A session's `start_agent_servers` that starts them for real (see `start_servers`)."""
    return functools.partial(start_servers, cwd=str(cwd), environment=environment, **limits)


def start_servers(configs: dict[str, Any], where: str, cwd: str, environment: Mapping[str, str], **limits: Any):
    """Inline servers started for real (agent.mcp.servers.McpServers), or None when no entry is
    usable: each entry read as a .mcp.json entry (`${VAR}` expanded from `environment`; an
    unusable one is one warning), all started in parallel within the MCP `limits` (McpServers'
    start_timeout_s, call_timeout_s, output_tokens)."""
    from agent.mcp.config import server_config  # the SDK loads only when a server starts
    from agent.mcp.servers import McpServers

    parsed = [config for name, value in configs.items()
              if (config := server_config(name, value, where, environment)) is not None]
    if not parsed:
        return None
    servers = McpServers(parsed, cwd, **limits)
    servers.start()
    return servers
