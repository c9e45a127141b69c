"""`your_program.sh mcp list`: each configured MCP server, as Claude Code's `claude mcp list` shows
it (`name: command args - ✔ Connected`, `✘ Failed to connect — why`, `⏸ Pending approval`), and
below it where it was configured and, once connected, its tools. Like `claude mcp list` it starts
each server it would start in a session, to see whether it connects; it starts none that a session
would withhold. `mcp` is a reserved first word, like `cassette`.

As observed of Claude Code 2.1.332: the listing is in Claude Code's order (user, project, local),
a server disabled by disabledMcpjsonServers is not listed, and with none configured it says so
(exit 0 either way). Ours also takes the session's --mcp-config, --strict-mcp-config,
--setting-sources, --settings and --trust-workspace, so it lists what a run with them would start;
the "Checking…" line and warnings go to stderr, only the listing to stdout."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Mapping, Sequence

from agent.cli.environment import Environment
from agent.cli.options import _Parser
from agent.cli.report import configure_logging, internal_error, reader_gone
from agent.cli.visible import shown
from agent.errors import AgentError

SCOPE_NAMES = {"local": "Local config (private to you in this project)",
               "project": "Project config (shared via .mcp.json)",
               "user": "User config (available in all your projects)",
               "dynamic": "Command line (--mcp-config)"}
NOTHING = ("No MCP servers configured. Add them to .mcp.json (this project), to mcpServers in ~/.claude.json "
           "(yours), or give --mcp-config.")
MAX_REASON = 300  # characters of a failure's reason on its line


def _parser() -> _Parser:
    parser = _Parser(prog="your_program.sh mcp", description="The MCP servers a session here would use.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="list", parser_class=_Parser)
    listing = commands.add_parser(
        "list", help="list the configured MCP servers: where each is configured, whether it connects, its tools",
        description="List the MCP servers a session in this folder would use, where each was configured and "
                    "its tools, connecting to each as a session would (those a session withholds are not started).")
    add = listing.add_argument
    add("--mcp-config", dest="mcp_configs", action="append", default=[], metavar="FILE_OR_JSON",
        help='also these servers: a JSON file or JSON text {"mcpServers": {...}} (repeatable)')
    add("--strict-mcp-config", action="store_true", help="only the --mcp-config servers")
    add("--setting-sources", metavar="SOURCES", help="which of user, project and local count (default: all three)")
    add("--settings", metavar="FILE", help="extra settings (a JSON file, or JSON text), as for a session")
    add("--trust-workspace", action="store_true", help="trust this folder for this listing, as for a session")
    add("--verbose", action="store_true", help="narrate each server's start on stderr (its own stderr too)")
    return parser


def main(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Run `mcp <argv>` with the run's environment `env`; returns the exit code."""
    try:
        args = _parser().parse_args(list(argv))
        configure_logging(logging.INFO if args.verbose else logging.WARNING)
        return list_servers(args, Environment(env), Path.cwd(), Path.home())
    except AgentError as exc:
        print(shown(f"error: {exc}", sys.stderr), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        from agent.processes.running import kill_running

        kill_running()
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return reader_gone()
    except Exception as exc:  # a bug of ours: one line, not a traceback
        print(shown(f"error: {internal_error(exc)}", sys.stderr), file=sys.stderr)
        return 1


def list_servers(args: argparse.Namespace, environment: Environment, cwd: Path, home: Path) -> int:
    """Print the listing of the servers `args` configure in `cwd`; 0."""
    from agent.cli.mcp_setup import start_servers
    from agent.cli.sources import setting_sources
    from agent.cli.trust import own_trust
    from agent.mcp.sources import find_servers, withheld_warning

    sources = setting_sources(args.setting_sources)
    trusted = own_trust(args, environment, cwd, home)
    found = find_servers(cwd, home, args.mcp_configs, args.strict_mcp_config, trusted, environment.raw, sources,
                         args.settings)
    if not found.servers and not found.withheld:
        _say(NOTHING)
        return 0
    print("Checking MCP server health…", file=sys.stderr, flush=True)
    servers = start_servers(found.servers.values(), environment, cwd) if found.servers else None
    try:
        withheld = {config.name: config for config in found.withheld}
        for name in found.listed:
            connection = servers.connections[name] if servers and name in servers.connections else None
            _say(*_entry(found.servers.get(name) or withheld[name], connection))
    finally:
        if servers is not None:
            servers.close()
    if found.withheld:
        logging.getLogger("agent").warning("%s", withheld_warning(found.withheld, home, cwd))
    return 0


def _entry(config, connection) -> list[str]:
    """The lines of one server: Claude Code's line, then where it was configured and its tools."""
    if connection is None:
        state = "⏸ Pending approval (not started: this workspace is not trusted; see below)"
    elif connection.status == "connected":
        state = "✔ Connected"
    else:
        reason = " ".join((connection.error or "").split())[:MAX_REASON]
        state = "✘ Failed to connect" + (f" — {reason}" if reason else "")
    lines = [f"{config.name}: {config.described()} - {state}",
             f"  Scope: {SCOPE_NAMES.get(config.scope, config.scope)}, in {config.source}"]
    if connection is not None and connection.status == "connected":
        names = [tool["name"] for tool in connection.tools]
        lines.append(f"  Tools: {', '.join(names) if names else '(none)'}")
    return lines


def _say(*lines: str) -> None:
    for line in lines:
        print(shown(line, sys.stdout))
