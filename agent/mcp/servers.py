"""The MCP servers of a session: started together (in parallel, each within MCP_TIMEOUT) at the
start of a run, their tools offered to the agents that may use them, each call made within
MCP_TOOL_TIMEOUT, and all stopped at the end. A server that fails to start is one warning and
its tools are absent (a call to one is an unknown tool, as in Claude Code); one that dies
mid-call is a tool error, and the next call starts it again."""

from __future__ import annotations

import logging
from typing import Any, Iterable

from agent.mcp.config import ServerConfig
from agent.mcp.connection import Connection, ServerError, close_all, start_all
from agent.mcp.tools import DEFAULT_OUTPUT_TOKENS, offered_tools
from agent.tools.base import Tool, ToolError

log = logging.getLogger("agent")

DEFAULT_START_TIMEOUT_S = 30.0  # MCP_TIMEOUT
DEFAULT_CALL_TIMEOUT_S = 600.0  # MCP_TOOL_TIMEOUT


class McpServers:
    """Connections to the configured servers, by name, in configuration order."""

    def __init__(self, configs: Iterable[ServerConfig], cwd: str, start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
                 call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S, output_tokens: int = DEFAULT_OUTPUT_TOKENS,
                 relay=None):
        # `relay` reaches the Agent SDK's own servers (agent.mcp.relayed), when an SDK is connected
        self.connections = {config.name: Connection(config, cwd, relay) for config in configs}
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.output_tokens = output_tokens
        self._collisions: set[tuple[str, str]] = set()  # tools not offered for their names, warned about once

    def start(self, names: Iterable[str] | None = None) -> None:
        """Start the servers (all, or those `names`) in parallel; a failure is one warning each."""
        pending = [c for name, c in self.connections.items() if (names is None or name in names) and c.status == "pending"]
        if not pending:
            return
        start_all(pending, self.start_timeout_s)
        for connection in pending:
            name = connection.config.name
            if connection.status == "connected":
                log.info("MCP server %s (%s): connected, %d tools", name, connection.config.described(),
                         len(connection.tools))
                if connection.dropped:
                    log.warning("MCP server %s: some of its tools are not offered: %s", name, connection.dropped)
            else:
                log.warning("MCP server %s failed to start: %s", name, connection.error)
            if connection.stderr.text().strip():
                log.info("MCP server %s stderr:\n%s", name, connection.stderr.text().rstrip()[-4000:])

    def tools(self, names: Iterable[str] | None = None) -> list[Tool]:
        """The tools of the connected servers (all, or those `names`), servers in configuration
        order, each server's tools in its own order (of two named the same, the first)."""
        wanted = None if names is None else set(names)
        return offered_tools([(name, connection.tools) for name, connection in self.connections.items()
                              if (wanted is None or name in wanted) and connection.status == "connected"],
                             self._caller, self.output_tokens, self._collisions)

    def _caller(self, server: str):
        def call(tool: str, arguments: dict[str, Any], context) -> Any:
            try:
                return self.connections[server].call(tool, arguments, self.call_timeout_s,
                                                     getattr(context, "call_id", None), self.start_timeout_s)
            except ServerError as exc:
                raise ToolError(str(exc)) from None
        return call

    def status(self) -> list[dict[str, str]]:
        """Each server's name and status, as stream-json's init line lists them."""
        return [{"name": name, "status": connection.status} for name, connection in self.connections.items()]

    def close(self) -> None:
        """Stop every server (together: each may take a few seconds to go)."""
        close_all([c for c in self.connections.values() if c.status != "pending"])
