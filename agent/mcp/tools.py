"""A server's tools as ordinary `Tool`s: named `mcp__<server>__<tool>` as Claude Code names them
(characters outside letters, digits, `_` and `-` become `_`, so the name is valid on both
wires), described and shaped by the server's own description and input schema, and answered by a
call through the connection. A result becomes the tool result the model reads: its text blocks,
its structured content as JSON when it has no text, a placeholder for an image, audio or blob,
an error result for `isError`; all of it within the output cap. Two tools whose names clean to
the same one: the first is offered."""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Callable, Iterable

from agent.mcp.connection import sdk_field
from agent.processes.running import truncate_middle
from agent.tools.base import Tool, ToolError

PREFIX = "mcp__"
MAX_NAME = 64  # what the chat wire accepts for a function name
DEFAULT_OUTPUT_TOKENS = 25_000  # MAX_MCP_OUTPUT_TOKENS, as Claude Code's
_INVALID = re.compile(r"[^A-Za-z0-9_-]")

log = logging.getLogger("agent")


def server_part(name: str) -> str:
    """A server's name as it appears in its tools' names (`my-srv.v2` -> `my-srv_v2`)."""
    return _INVALID.sub("_", name)


def tool_name(server: str, tool: str) -> str:
    """The name the model calls a server's tool by."""
    return f"{PREFIX}{server_part(server)}__{_INVALID.sub('_', tool)}"[:MAX_NAME]


def mcp_tool(server: str, listed: dict[str, Any], call: Callable[[str, dict[str, Any], Any], Any],
             output_tokens: int = DEFAULT_OUTPUT_TOKENS) -> Tool:
    """The Tool for one entry of a server's tool list; `call(tool, arguments, context)` returns the
    SDK's CallToolResult (or raises ToolError)."""
    original = listed["name"]
    schema = listed.get("inputSchema") if isinstance(listed.get("inputSchema"), dict) else {}
    parameters = schema if schema.get("type") == "object" else {"type": "object", "properties": {}}

    def run(arguments: dict[str, Any], context) -> str:
        return result_text(call(original, arguments, context), output_tokens * 4)

    description = listed.get("description") or f"The {original} tool of the MCP server {server}."
    return Tool(tool_name(server, original), description, parameters, run)


def offered_tools(servers: Iterable[tuple[str, list[dict[str, Any]]]], caller: Callable[[str], Callable],
                  output_tokens: int = DEFAULT_OUTPUT_TOKENS, warned: set | None = None) -> list[Tool]:
    """The Tools of `servers` ((name, tool list) pairs, in order), each called through
    `caller(server)`. Two tools whose names clean to the same one (`a.b` and `a_b`, or servers
    `my.srv` and `my_srv`) cannot both be offered: the first is kept, and the other is one
    warning (once per session when the caller keeps `warned`)."""
    found: dict[str, Tool] = {}
    warned = set() if warned is None else warned
    for server, listing in servers:
        for listed in listing:
            tool = mcp_tool(server, listed, caller(server), output_tokens)
            if tool.name not in found:
                found[tool.name] = tool
            elif (server, listed["name"]) not in warned:
                warned.add((server, listed["name"]))
                log.warning("MCP server %s: its tool %r is not offered: another tool is already named %s",
                            server, listed["name"], tool.name)
    return list(found.values())


def result_text(result: Any, limit: int) -> str:
    """What the model reads of a CallToolResult; raises ToolError for an error result."""
    parts = [_block_text(block) for block in getattr(result, "content", None) or []]
    structured = sdk_field(result, "structured_content", "structuredContent")
    if structured is not None and not any(getattr(b, "type", "") == "text" for b in getattr(result, "content", None) or []):
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(part for part in parts if part) or "(no output)"
    text = truncate_middle(text, limit) if len(text) > limit else text
    if sdk_field(result, "is_error", "isError"):
        raise ToolError(text)
    return text


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return getattr(block, "text", "") or ""
    if kind in ("image", "audio"):
        data = getattr(block, "data", "") or ""  # base64
        size = len(data) * 3 // 4 - data[-2:].count("=")
        return f"[{kind} ({sdk_field(block, 'mime_type', 'mimeType') or '?'}, {size} bytes): not shown to the model]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        text = getattr(resource, "text", None)
        return text if isinstance(text, str) else f"[resource {getattr(resource, 'uri', '')}: binary, not shown]"
    if kind == "resource_link":
        return f"[resource link {getattr(block, 'uri', '')} {getattr(block, 'name', '')}]".strip()
    return ""
