"""Drift an MCP server causes: a recorded request and the one sent now offer other MCP tools
(`mcp__<server>__<tool>`), because a server is not configured here, did not start, or changed its
tool list (a tool added or removed, another description or input schema) since the recording.
Said in one line naming the server and the tools, before the JSON path of the difference.

A pure function over request bodies of either wire (chat: `{"type": "function", "function":
{name, description, parameters}}`; messages: `{name, description, input_schema}`). Bodies come
from a cassette, so any shape is taken without error.
"""

from __future__ import annotations

from typing import Any

PREFIX = "mcp__"
_SHOWN = 4  # tool names listed before "and N more"


def mcp_cause(recorded: Any, sent: Any) -> str | None:
    """Why `sent` offers other MCP tools than `recorded`, in one line; None when their MCP tools
    (names, descriptions, schemas) are the same."""
    was, now = _mcp_tools(recorded), _mcp_tools(sent)
    if was is None or now is None or was == now:
        return None
    before, after = _by_server(was), _by_server(now)
    for server, tools in before.items():
        if server not in after:
            return (f"the recording offered the tools of MCP server {server} ({_listed(tools)}); this run offers none "
                    f"of them (is {server} configured here, in .mcp.json or --mcp-config, and did it start?)")
    for server, tools in after.items():
        if server not in before:
            return f"this run offers the tools of MCP server {server} ({_listed(tools)}), which the recording did not"
    for server, tools in before.items():
        missing = [name for name in tools if name not in now]
        added = [name for name in after[server] if name not in was]
        if missing or added:
            changes = ([f"leaves out {_listed(missing)}"] if missing else []) + ([f"adds {_listed(added)}"] if added else [])
            return f"MCP server {server} offers other tools than in the recording: this run {' and '.join(changes)}"
    for name, (description, schema) in was.items():
        what = "description" if now[name][0] != description else "input schema" if now[name][1] != schema else None
        if what:
            return f"the {what} of MCP tool {name} differs from the recording's (its server {_server(name)} changed it)"
    return None  # the same tools in another order: the JSON path says where


def _mcp_tools(body: Any) -> dict[str, tuple[Any, Any]] | None:
    """The MCP tools of a request body: name -> (description, input schema), in order."""
    if not isinstance(body, dict):
        return None
    tools = body.get("tools") if isinstance(body.get("tools"), list) else []
    found = {}
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = spec.get("name")
        if isinstance(name, str) and name.startswith(PREFIX):
            found[name] = (spec.get("description"), spec.get("input_schema", spec.get("parameters")))
    return found


def _by_server(tools: dict[str, Any]) -> dict[str, list[str]]:
    servers: dict[str, list[str]] = {}
    for name in tools:
        servers.setdefault(_server(name), []).append(name)
    return servers


def _server(name: str) -> str:
    """The server part of `mcp__<server>__<tool>`."""
    return name[len(PREFIX):].split("__", 1)[0]


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")
