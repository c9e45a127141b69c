"""The MCP side of a session: its servers read from their configuration and started before the
first request (the `mcp` SDK is imported only when there is a server to start), and stopped when
the run ends."""

from __future__ import annotations

import argparse
from pathlib import Path


def session_servers(args: argparse.Namespace, environment, cwd: Path, home: Path, trusted: bool):
    """The started MCP servers of a session (agent.mcp.servers.McpServers), or None when none is
    configured."""
    from agent.mcp.sources import configured_servers

    configs = configured_servers(cwd, home, args.mcp_configs, args.strict_mcp_config, trusted, environment.raw)
    if not configs:
        return None
    from agent.mcp.servers import McpServers

    servers = McpServers(configs.values(), str(cwd), environment["MCP_TIMEOUT"] / 1000,
                         environment["MCP_TOOL_TIMEOUT"] / 1000, environment["MAX_MCP_OUTPUT_TOKENS"])
    servers.start()
    return servers


def stop_servers(session) -> None:
    """Stop the session's MCP servers (nothing when it has none)."""
    if session is not None and getattr(session, "mcp", None) is not None:
        session.mcp.close()
