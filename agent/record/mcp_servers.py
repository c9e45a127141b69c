"""The MCP servers a recording offered, as its setup keeps them (`mcp_servers`): each server's
name, its status when it started (connected, failed, ...) and, for one that connected, its tool
list as the server gave it (name, description, inputSchema); an agent's inline server (its
definition's `mcpServers`, started as it ran) also says what started it (`started_by`: `the
mcpServers of agent 'reviewer'`). A replay with --replay-tools offers these tools without starting
any server, and the tool runs answer their calls.

The list comes from a cassette, so it is checked in shape when read (`servers_problem`): bounded
in size, every name usable, every schema plain JSON data.
"""

from __future__ import annotations

from typing import Any

SETUP_KEY = "mcp_servers"
STARTED_BY = "started_by"  # an agent's inline server: which agent's mcpServers started it
MAX_SERVERS = 200  # as many as a configuration may name
MAX_TOOLS = 1000  # of one server, as a live connection keeps
MAX_NAME = 200
MAX_DESCRIPTION = 64 * 1024
STATUSES = ("connected", "failed", "pending", "closed")


def server_entry(name: str, status: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """How the setup records one server: its tools only when it connected (a failed server
    offered none)."""
    entry: dict[str, Any] = {"name": name, "status": status}
    if status == "connected":
        entry["tools"] = [_tool_entry(tool) for tool in tools]
    return entry


def _tool_entry(tool: dict[str, Any]) -> dict[str, Any]:
    entry = {"name": tool["name"], "description": tool.get("description") or ""}
    if isinstance(tool.get("inputSchema"), dict):
        entry["inputSchema"] = tool["inputSchema"]
    return entry


def server_line(server: dict[str, Any]) -> str:
    """A recorded server on one line, for `cassette show`: `kb (connected, 2 tools: lookup, add)`."""
    tools = [tool["name"] for tool in server.get("tools", [])]
    names = ", ".join(tools[:8]) + (f" and {len(tools) - 8} more" if len(tools) > 8 else "")
    offered = f", {len(tools)} tool{'' if len(tools) == 1 else 's'}" + (f": {names}" if tools else "")
    started = f"; started by {server[STARTED_BY]}" if STARTED_BY in server else ""
    return f"{server['name']} ({server['status']}{offered if server['status'] == 'connected' else ''}{started})"


def servers_problem(value: Any) -> str | None:
    """What is wrong with a setup's `mcp_servers`, or None; the message names the entry (that
    every value is plain JSON data the setup's own check makes sure)."""
    if not isinstance(value, list):
        return f"`{SETUP_KEY}` must be a list of servers"
    if len(value) > MAX_SERVERS:
        return f"`{SETUP_KEY}` lists {len(value)} servers (at most {MAX_SERVERS})"
    for number, server in enumerate(value, 1):
        if not isinstance(server, dict):
            return f"`{SETUP_KEY}` entry {number} must be a mapping (name, status, tools)"
        if not _usable_name(server.get("name")):
            return f"`{SETUP_KEY}` entry {number}: `name` must be a short text without control characters"
        label = f"MCP server {server['name'][:60]!r}"
        if STARTED_BY in server and not (isinstance(server[STARTED_BY], str) and len(server[STARTED_BY]) <= 2 * MAX_NAME):
            return f"{label}: `{STARTED_BY}` must be a short text (the agent whose mcpServers started it)"
        if server.get("status") not in STATUSES:
            return f"{label}: `status` must be one of {', '.join(STATUSES)}"
        tools = server.get("tools", [])
        if not isinstance(tools, list) or len(tools) > MAX_TOOLS:
            return f"{label}: `tools` must be a list of at most {MAX_TOOLS} tools"
        for tool in tools:
            if not isinstance(tool, dict) or not _usable_name(tool.get("name")):
                return f"{label}: each tool needs a `name` (a short text without control characters)"
            description = tool.get("description", "")
            if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
                return f"{label}: tool {tool['name'][:60]!r}: `description` must be text (at most {MAX_DESCRIPTION} characters)"
            schema = tool.get("inputSchema", {})
            if not isinstance(schema, dict):
                return f"{label}: tool {tool['name'][:60]!r}: `inputSchema` must be a mapping"
    return None


def _usable_name(name: Any) -> bool:
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME and name.strip() != "" and name.isprintable()
