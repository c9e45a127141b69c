"""Where a session's MCP servers come from, as Claude Code 2.1.332 reads them (observed headless):

- local scope: `projects[<folder>].mcpServers` in `~/.claude.json` (`claude mcp add`'s default;
  the folder is the one whose trust counts: the repository root, else the working folder);
- project scope: `.mcp.json` in the working folder and each parent up to the repository root,
  the nearer file winning (Claude Code reads every parent up to `/`; we stop where trust stops);
- user scope: the top-level `mcpServers` of `~/.claude.json`;
- each --mcp-config (a JSON file or JSON text holding `{"mcpServers": {...}}`), "dynamic".

On a name clash local beats project beats user, and --mcp-config beats them all (a later flag an
earlier one); servers are listed user, project, local, then the flags, a name keeping the place it
first had, as Claude Code lists them. --setting-sources user|project|local keeps only those scopes;
--strict-mcp-config only the flags'.

A repository cannot make the agent start its own commands: the project's `.mcp.json` servers start
only in a trusted workspace (stricter than Claude Code's -p, which starts them untrusted), or when
the user enabled them in their own files (`enabledMcpjsonServers` or `enableAllProjectMcpServers`
in `~/.claude/settings.json`, --settings, or `~/.claude.json`'s entry for the folder); a project's
own settings cannot enable them. `disabledMcpjsonServers` from any settings file always applies
(narrowing is safe), and those servers are not even listed, as in Claude Code."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence

from agent.errors import UsageError
from agent.mcp.config import ServerConfig, server_config
from agent.permissions.settings import settings_documents
from agent.permissions.trust import ConfigError, config_path, how_to_trust, read_config, trust_folder
from agent.processes.running import SECRET_VARIABLES
from agent.workspace import OPTION_FILE_BYTES, SETTINGS_FILE_BYTES, json_option, load_json, project_folders, read_bounded

log = logging.getLogger("agent")

MAX_SERVERS = 200  # of one file
ALL_SOURCES = ("user", "project", "local")


@dataclass
class FoundServers:
    """The servers a session starts (`servers`, by name) and the project's servers it does not
    start because the workspace is untrusted and the user did not enable them (`withheld`), both
    in listing order; `listed` is every name in that order."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    withheld: list[ServerConfig] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)


def configured_servers(cwd: Path, home: Path, mcp_configs: Sequence[str], strict: bool, trusted: bool,
                       environment: Mapping[str, str], sources: Collection[str] = ALL_SOURCES,
                       extra_settings: str | None = None) -> dict[str, ServerConfig]:
    """The servers of a session in `cwd`, by name, after one warning naming those withheld; a
    --mcp-config that cannot be used raises UsageError."""
    found = find_servers(cwd, home, mcp_configs, strict, trusted, environment, sources, extra_settings)
    if found.withheld:
        log.warning("%s", withheld_warning(found.withheld, home, cwd))
    return found.servers


def find_servers(cwd: Path, home: Path, mcp_configs: Sequence[str], strict: bool, trusted: bool,
                 environment: Mapping[str, str], sources: Collection[str] = ALL_SOURCES,
                 extra_settings: str | None = None) -> FoundServers:
    """Every server configured for `cwd` (see the module's docstring), without warning about the
    withheld ones; a --mcp-config that cannot be used raises UsageError."""
    flags: dict[str, ServerConfig] = {}
    for value in mcp_configs:  # read first: a bad flag ends the run before anything else is read
        flags.update(_flag_servers(value, cwd, environment))
    every: dict[str, ServerConfig] = {}  # a name keeps the place it first had, as in Claude Code's listing
    withheld: set[str] = set()
    if not strict:
        own = _own_config(home) if {"user", "local"} & set(sources) else {}
        key = str(trust_folder(cwd))
        entry = own.get("projects", {}).get(key) if isinstance(own.get("projects"), dict) else None
        entry = entry if isinstance(entry, dict) and "local" in sources else {}
        where, local_where = str(config_path(home)), f"{config_path(home)} projects[{json.dumps(key)}]"
        if "user" in sources:
            every.update(_servers_of(own, where, environment, "user", quiet_when_missing=True))
        project = _project_servers(cwd, _without_keys(environment)) if "project" in sources else {}
        choice = _Choice(cwd, home, sources, extra_settings, (local_where, entry)) if project else None
        for config in project.values():
            if config.name in choice.disabled:
                log.info("MCP server %s of %s: disabled by disabledMcpjsonServers", config.name, config.source)
            elif trusted or choice.enabled(config.name):
                every[config.name] = config
            elif config.name not in every:  # withheld: a user's server of that name stays
                every[config.name] = config
                withheld.add(config.name)
        local = _servers_of(entry, local_where, environment, "local", quiet_when_missing=True)
        every.update(local)
        withheld -= set(local)
    every.update(flags)
    withheld -= set(flags)
    return FoundServers({name: config for name, config in every.items() if name not in withheld},
                        [config for name, config in every.items() if name in withheld], list(every))


def withheld_warning(withheld: Sequence[ServerConfig], home: Path, cwd: Path) -> str:
    """The one warning naming the project servers not started, and how to trust or enable them."""
    names = ", ".join(config.name for config in withheld)
    files = " and ".join(dict.fromkeys(config.source for config in withheld))
    them = "it" if len(withheld) == 1 else "them"
    return (f"Not starting {len(withheld)} MCP server{'s' if len(withheld) != 1 else ''} of {files} ({names}): "
            + how_to_trust(home, cwd) + f" Or enable {them} by name: enabledMcpjsonServers in "
            f"{Path(home) / '.claude' / 'settings.json'}.")


def has_project_servers(cwd: Path, sources: Collection[str] = ALL_SOURCES) -> bool:
    """Whether a `.mcp.json` of the workspace names a server (read quietly: the run warns about
    whatever is wrong with it), so that the interactive trust question is worth asking."""
    if "project" not in sources:
        return False
    for folder in project_folders(cwd):
        try:
            data = load_json(read_bounded(folder / ".mcp.json", SETTINGS_FILE_BYTES).decode("utf-8"), ".mcp.json")
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict) and data["mcpServers"]:
            return True
    return False


class _Choice:
    """What the user's files say of the project's servers: which are enabled (by the user's own
    files only) and which are disabled (by any settings file)."""

    def __init__(self, cwd: Path, home: Path, sources: Collection[str], extra_settings: str | None,
                 entry: tuple[str, dict]):
        documents = [*settings_documents(cwd, home, sources, extra_settings), (*entry, False)]
        self.all, self.names, self.disabled = False, set(), set()
        for where, data, project in documents:
            self.disabled |= _names(data, "disabledMcpjsonServers", where)
            if not project:  # a repository's own settings cannot enable its own servers
                self.names |= _names(data, "enabledMcpjsonServers", where)
                self.all = self.all or data.get("enableAllProjectMcpServers") is True

    def enabled(self, name: str) -> bool:
        return self.all or name in self.names


def _names(data: dict, key: str, where: str) -> set[str]:
    value = data.get(key)
    if value is None:
        return set()
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        log.warning("ignoring %s in %s: expected a list of server names", key, where)
        return set()
    return set(value)


def _without_keys(environment: Mapping[str, str]) -> dict[str, str]:
    """The variables a project's `.mcp.json` may expand: not the provider keys, which would go to
    whatever server or URL the repository names (a user's own servers may name them)."""
    return {name: value for name, value in environment.items() if name not in SECRET_VARIABLES}


def _own_config(home: Path) -> dict[str, Any]:
    try:
        return read_config(home)
    except ConfigError as error:
        log.warning("ignoring the MCP servers of %s: %s", config_path(home), error)
        return {}


def _project_servers(cwd: Path, environment: Mapping[str, str]) -> dict[str, ServerConfig]:
    """The servers of each `.mcp.json` from the repository root down to `cwd`, the nearer winning."""
    servers: dict[str, ServerConfig] = {}
    for folder in reversed(project_folders(cwd)):
        path = folder / ".mcp.json"
        where = os.path.relpath(path, cwd) if folder != Path(os.path.abspath(cwd)) else ".mcp.json"
        try:
            data = load_json(read_bounded(path, SETTINGS_FILE_BYTES).decode("utf-8"), where)
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, ValueError) as error:
            log.warning("ignoring %s: %s", path, getattr(error, "strerror", None) or str(error).splitlines()[0])
            continue
        servers.update(_servers_of(data, where, environment, "project"))
    return servers


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
    return _servers_of(data, where, environment, "dynamic")


def _servers_of(data: Any, where: str, environment: Mapping[str, str], scope: str,
                quiet_when_missing: bool = False) -> dict[str, ServerConfig]:
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if entries is None and quiet_when_missing:
        return {}
    if not isinstance(entries, dict):
        log.warning('ignoring %s: expected an object with "mcpServers"', where)
        return {}
    if len(entries) > MAX_SERVERS:
        log.warning("%s names %d MCP servers; only the first %d are used", where, len(entries), MAX_SERVERS)
    servers = {}
    for name, value in list(entries.items())[:MAX_SERVERS]:
        if (config := server_config(name, value, where, environment, scope)) is not None:
            servers[config.name] = config
    return servers
