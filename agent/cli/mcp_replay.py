"""MCP servers in a cassette: what a recording keeps of the session's servers (`offered`: each
one's status and tool list, in the setup's `mcp_servers`) and of the inline servers an agent's
`mcpServers` started while it ran (`keeping_agent_servers`: the same, each marked with what started
it), and what --replay-tools offers instead of starting any (`RecordedServers`,
`replayed_agent_servers`). A replay that answers tool calls from the cassette needs no server: the
recorded tools are offered as the live ones were named and described, and every call to one is
answered by the cassette's tool runs, so the session replays offline with nothing installed, in
any folder."""

from __future__ import annotations

import logging
import threading
from typing import Any, Iterable

from agent.record.mcp_servers import SETUP_KEY, STARTED_BY, server_entry
from agent.tools.base import ToolError

log = logging.getLogger("agent")


def offered(servers) -> list[dict[str, Any]]:
    """The setup's `mcp_servers` for a session's servers (agent.mcp.servers.McpServers): each
    server's name, its status as the run started and its tools, in configuration order."""
    return [server_entry(name, connection.status, connection.tools)
            for name, connection in servers.connections.items()]


def recorded_servers(setup: dict[str, Any] | None):
    """The session's servers a recording offered (its setup's `mcp_servers` that no agent
    started; checked in shape when the cassette was read), or None when it offered none."""
    entries = [entry for entry in (setup or {}).get(SETUP_KEY) or [] if STARTED_BY not in entry]
    return RecordedServers(entries) if entries else None


def keeping_agent_servers(start, setup: dict[str, Any]):
    """A session's `start_agent_servers` for a recording: `start(configs, where)` starts an
    agent's inline servers, and the setup keeps each one's tool list (once for each `where`, the
    agent whose `mcpServers` named it) for a replay that starts none. Parallel subagents start
    theirs in any order: they are kept after the session's own, sorted, so the cassette is the
    same every time."""
    lock = threading.Lock()

    def started(configs: dict[str, Any], where: str):
        servers = start(configs, where)
        if servers is not None:
            with lock:
                session_own = [entry for entry in setup.get(SETUP_KEY, []) if STARTED_BY not in entry]
                agents_own = {(entry[STARTED_BY], entry["name"]): entry
                              for entry in setup.get(SETUP_KEY, []) if STARTED_BY in entry}
                for entry in offered(servers):
                    agents_own.setdefault((where, entry["name"]), {"name": entry["name"], STARTED_BY: where, **entry})
                setup[SETUP_KEY] = session_own + [agents_own[key] for key in sorted(agents_own)]
        return servers
    return started


def replayed_agent_servers(setup: dict[str, Any] | None):
    """A session's `start_agent_servers` under --replay-tools: an agent's inline servers as the
    recording started them for that agent (`where`), starting nothing; None for those it did not."""
    entries = [entry for entry in (setup or {}).get(SETUP_KEY) or [] if STARTED_BY in entry]

    def started(configs: dict[str, Any], where: str):
        found = [entry for entry in entries if entry[STARTED_BY] == where and entry["name"] in configs]
        return RecordedServers(found) if found else None
    return started


class RecordedServers:
    """What a session's `mcp` is under --replay-tools: the recorded servers with the interface of
    agent.mcp.servers.McpServers (start, tools, status, close), starting nothing. Their tools are
    never run: the session's tool runs answer every call from the cassette before a tool would
    run, so reaching one is an error the model sees, never a call to a server."""

    def __init__(self, entries: Iterable[dict[str, Any]]):
        from agent.mcp.listing import Tally, clean_listing

        # a cassette is untrusted: its tool lists are cleaned as a live server's are on arrival
        # (a recorded list, cleaned then, comes through unchanged)
        self.entries = [{**entry, "tools": clean_listing({"tools": entry.get("tools", [])}, Tally())["tools"]}
                        for entry in entries]
        self._collisions: set[tuple[str, str]] = set()  # as McpServers: each tool not offered is warned about once
        for entry in self.entries:
            log.info("MCP server %s: %s in the recording, %d tools, from the cassette (not started)",
                     entry["name"], entry["status"], len(entry.get("tools", [])))

    def start(self, names: Iterable[str] | None = None) -> None:
        """Nothing to start: the recorded servers are only their tool lists."""

    def tools(self, names: Iterable[str] | None = None) -> list:
        """The tools of the servers that were connected in the recording (all, or those `names`),
        named and chosen as a live session names and chooses them."""
        from agent.mcp.tools import offered_tools

        wanted = None if names is None else set(names)
        return offered_tools([(entry["name"], entry.get("tools", [])) for entry in self.entries
                              if entry["status"] == "connected" and (wanted is None or entry["name"] in wanted)],
                             _not_started, warned=self._collisions)

    def status(self) -> list[dict[str, str]]:
        """Each recorded server's name and status, as stream-json's init line lists them."""
        return [{"name": entry["name"], "status": entry["status"]} for entry in self.entries]

    def close(self) -> None:
        """Nothing to stop."""


def _not_started(server: str):
    def call(tool: str, arguments: dict[str, Any], context) -> Any:
        raise ToolError(f"the MCP server {server} is not started in a replay with --replay-tools; its calls are "
                        "answered from the cassette, which holds no answer for this one")
    return call
