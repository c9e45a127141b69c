"""Where a session's MCP servers come from: the project's `.mcp.json` and each --mcp-config
(a JSON file or JSON text holding `{"mcpServers": {...}}`), later ones winning on a name clash;
--strict-mcp-config keeps only the --mcp-config ones. A repository cannot make the agent start its
own commands: the project's `.mcp.json` servers start only in a trusted workspace."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

from agent.errors import UsageError
from agent.mcp.config import ServerConfig, server_config
from agent.permissions.trust import ignored
from agent.workspace import OPTION_FILE_BYTES, SETTINGS_FILE_BYTES, json_option, load_json, read_bounded

log = logging.getLogger("agent")

MAX_SERVERS = 200


def configured_servers(cwd: Path, home: Path, mcp_configs: Sequence[str], strict: bool, trusted: bool,
                       environment: Mapping[str, str]) -> dict[str, ServerConfig]:
    """The servers of a session in `cwd`, by name; a --mcp-config that cannot be used raises UsageError."""
    servers: dict[str, ServerConfig] = {}
    if not strict:
        project = _project_servers(Path(cwd) / ".mcp.json", environment)
        if project and not trusted:
            log.warning("%s", ignored(len(project), "MCP server", [".mcp.json"], home, cwd))
        elif project:
            servers.update(project)
    for value in mcp_configs:
        servers.update(_flag_servers(value, cwd, environment))
    return servers


def _project_servers(path: Path, environment: Mapping[str, str]) -> dict[str, ServerConfig]:
    try:
        data = load_json(read_bounded(path, SETTINGS_FILE_BYTES).decode("utf-8"), ".mcp.json")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as error:
        log.warning("ignoring %s: %s", path, getattr(error, "strerror", None) or str(error).splitlines()[0])
        return {}
    return _servers_of(data, ".mcp.json", environment)


def _flag_servers(value: str, cwd: Path, environment: Mapping[str, str]) -> dict[str, ServerConfig]:
    text, where = json_option("--mcp-config", value, cwd)
    if len(text) > OPTION_FILE_BYTES:
        raise UsageError(f"--mcp-config: {where} is too big")
    try:
        data = load_json(text, "the MCP configuration")
    except ValueError as error:
        raise UsageError(f"--mcp-config: invalid JSON in {where} ({str(error).splitlines()[0]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
        raise UsageError(f'--mcp-config: {where} must be a JSON object with "mcpServers"')
    return _servers_of(data, where, environment)


def _servers_of(data, where: str, environment: Mapping[str, str]) -> dict[str, ServerConfig]:
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        log.warning('ignoring %s: expected an object with "mcpServers"', where)
        return {}
    if len(entries) > MAX_SERVERS:
        log.warning("%s names %d MCP servers; only the first %d are used", where, len(entries), MAX_SERVERS)
    servers = {}
    for name, value in list(entries.items())[:MAX_SERVERS]:
        if (config := server_config(name, value, where, environment)) is not None:
            servers[config.name] = config
    return servers
