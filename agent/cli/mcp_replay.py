"""MCP servers in a cassette: what a recording keeps of the session's servers (`offered`: each
one's status and tool list, in the setup's `mcp_servers`), and what --replay-tools offers instead
of starting them (`RecordedServers`). A replay that answers tool calls from the cassette needs no
server: the recorded tools are offered as the live ones were named and described, and every call
to one is answered by the cassette's tool runs, so the session replays offline with nothing
installed, in any folder."""

from __future__ import annotations

import logging
from typing import Any, Iterable

from agent.record.mcp_servers import SETUP_KEY, server_entry
from agent.tools.base import ToolError

log = logging.getLogger("agent")


def offered(servers) -> list[dict[str, Any]]:
    """The setup's `mcp_servers` for a session's servers (agent.mcp.servers.McpServers): each
    server's name, its status as the run started and its tools, in configuration order."""
    return [server_entry(name, connection.status, connection.tools)
            for name, connection in servers.connections.items()]


def recorded_servers(setup: dict[str, Any] | None):
    """The servers a recording offered (its setup's `mcp_servers`, checked in shape when the
    cassette was read), or None when it offered none."""
    entries = (setup or {}).get(SETUP_KEY) or []
    return RecordedServers(entries) if entries else None


class RecordedServers:
    """What a session's `mcp` is under --replay-tools: the recorded servers with the interface of
    agent.mcp.servers.McpServers (start, tools, status, close), starting nothing. Their tools are
    never run: the session's tool runs answer every call from the cassette before a tool would
    run, so reaching one is an error the model sees, never a call to a server."""

    def __init__(self, entries: Iterable[dict[str, Any]]):
        self.entries = list(entries)
        for entry in self.entries:
            log.info("MCP server %s: %s in the recording, %d tools, from the cassette (not started)",
                     entry["name"], entry["status"], len(entry.get("tools", [])))

    def start(self, names: Iterable[str] | None = None) -> None:
        """Nothing to start: the recorded servers are only their tool lists."""

    def tools(self, names: Iterable[str] | None = None) -> list:
        """The tools of the servers that were connected in the recording (all, or those `names`),
        as a live session names them."""
        from agent.mcp.tools import mcp_tool

        wanted = None if names is None else set(names)
        return [mcp_tool(entry["name"], listed, _not_started(entry["name"]))
                for entry in self.entries if entry["status"] == "connected" and (wanted is None or entry["name"] in wanted)
                for listed in entry.get("tools", [])]

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
