"""The MCP side of a session: its servers read from their configuration and started before the
first request (the `mcp` SDK is imported only when there is a server to start), and stopped when
the run ends."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Collection

log = logging.getLogger("agent")


def session_servers(args: argparse.Namespace, environment, cwd: Path, home: Path, trusted: bool, recorded=None,
                    sources: Collection[str] = ("user", "project", "local")):
    """The started MCP servers of a session (agent.mcp.servers.McpServers), or None when none is
    configured; `sources` are the setting sources whose servers and settings count. A replay with
    --replay-tools starts none: it offers the `recorded` cassette's."""
    if args.replay_tools:
        return replayed_servers(args, recorded)
    from agent.mcp.sources import configured_servers

    configs = configured_servers(cwd, home, args.mcp_configs, args.strict_mcp_config, trusted, environment.raw,
                                 sources, getattr(args, "settings", None))
    if not configs:
        return None
    return start_servers(configs.values(), environment, cwd)


def start_servers(configs, environment, cwd: Path):
    """`configs` started together, within MCP_TIMEOUT each, as agent.mcp.servers.McpServers
    (--verbose says where each was configured and how it starts)."""
    from agent.mcp.servers import McpServers

    configs = list(configs)
    for config in configs:
        log.info("MCP server %s: %s, from %s (%s scope)", config.name, config.described().rstrip(), config.source, config.scope)
    servers = McpServers(configs, str(cwd), environment["MCP_TIMEOUT"] / 1000,
                         environment["MCP_TOOL_TIMEOUT"] / 1000, environment["MAX_MCP_OUTPUT_TOKENS"])
    servers.start()
    return servers


def replayed_servers(args: argparse.Namespace, recorded):
    """Under --replay-tools, the servers the recording offered, started nowhere
    (agent.cli.mcp_replay.RecordedServers), or None when it offered none; what this folder or
    --mcp-config configures is not started either."""
    from agent.cli.mcp_replay import recorded_servers

    if args.mcp_configs:
        log.info("--mcp-config: no server is started with --replay-tools (the cassette's tools answer)")
    return recorded_servers(recorded.setup if recorded is not None else None)


def stop_servers(session) -> None:
    """Stop the session's MCP servers (nothing when it has none)."""
    if session is not None and getattr(session, "mcp", None) is not None:
        session.mcp.close()
