"""The MCP side of a session: its servers read from their configuration and started before the
first request (the `mcp` SDK is imported only when there is a server to start), and stopped when
the run ends. The Agent SDK's own servers (`"type": "sdk"`) are reached through its connection."""

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
    return start_servers(configs.values(), environment, cwd, getattr(args, "sdk_channel", None))


def start_servers(configs, environment, cwd: Path, channel=None):
    """`configs` started together, within MCP_TIMEOUT each, as agent.mcp.servers.McpServers
    (--verbose says where each was configured and how it starts); the Agent SDK's `channel`
    (agent.cli.sdk.channel.Channel, None without an SDK) carries its own servers' messages."""
    from agent.mcp.servers import McpServers

    configs = list(configs)
    for config in configs:
        log.info("MCP server %s: %s, from %s (%s scope)", config.name, config.described().rstrip(), config.source, config.scope)
    start_s, call_s = environment["MCP_TIMEOUT"] / 1000, environment["MCP_TOOL_TIMEOUT"] / 1000
    relay = None
    if channel is not None and any(config.transport == "sdk" for config in configs):
        from agent.cli.sdk_bridges import mcp_relay

        relay = mcp_relay(channel, max(start_s, call_s) + 5)  # no message outlives the longest wait for it
    servers = McpServers(configs, str(cwd), start_s, call_s, environment["MAX_MCP_OUTPUT_TOKENS"], relay)
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
