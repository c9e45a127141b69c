"""One MCP server's configuration, as Claude Code reads an entry of `mcpServers`:
`{"command": ..., "args": [...], "env": {...}}` for a stdio server (`"type": "stdio"` optional),
`{"type": "http", "url": ..., "headers": {...}}` for streamable HTTP, `{"type": "sse", ...}` for
the older SSE transport, `{"type": "sdk", "name": ...}` for a server inside the Agent SDK's
program (`create_sdk_mcp_server`), reached through the SDK's connection. `${VAR}` and `${VAR:-default}` are expanded in the command, args, env
values, URL and headers; an unset variable without a default stays as written (as Claude Code
leaves it; --verbose names it). How a server is shown (`mcp list`, --verbose) is its entry as
written, unexpanded, as Claude Code shows it: a `${TOKEN}` in its args is not printed as the token.
The files are untrusted input: an unusable entry is one warning naming it."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

log = logging.getLogger("agent")

TRANSPORTS = ("stdio", "http", "sse", "sdk")
ALIASES = {"streamable-http": "http"}  # the MCP specification's name for the transport
SCOPES = ("local", "project", "user", "dynamic", "agent")  # dynamic: --mcp-config, as Claude Code names it
MAX_ENTRIES = 1000  # args, env variables or headers of one server
MAX_TEXT = 64 * 1024
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerConfig:
    """A server to connect to: its name, transport, how to start or reach it, and where it was
    configured (a file, --mcp-config, an agent)."""

    name: str
    transport: str  # one of TRANSPORTS (sdk: in the Agent SDK's process, agent.mcp.relayed)
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""
    headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    source: str = ""  # the file (or flag) it was read from
    scope: str = ""  # one of SCOPES
    written: str = ""  # how it is started or reached, as written (unexpanded)

    def described(self) -> str:
        """How it is started or reached, for `mcp list` and --verbose: `command args` or `url (HTTP)`,
        as Claude Code's `mcp list` shows it, variables unexpanded."""
        return self.written or _described(self.transport, self.command, self.args, self.url)


def _described(transport: str, command: str, args, url: str) -> str:
    if transport == "stdio":
        return f"{command} {' '.join(args)}"  # Claude Code's form: a server without args ends in a space
    if transport == "sdk":
        return "in the Agent SDK's process (SDK)"
    return f"{url} ({transport.upper()})"


def expand(text: str, environment: Mapping[str, str], unset: set[str] | None = None) -> str:
    """`text` with `${VAR}` and `${VAR:-default}` replaced from `environment` (an empty VAR takes
    the default); a variable that is unset without a default stays as written, its name added to
    `unset` when given."""
    def value(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name in environment and (environment[name] or default is None):
            return environment[name]
        if default is None and unset is not None:
            unset.add(name)
        return default if default is not None else match.group(0)

    return _VARIABLE.sub(value, text)


def server_config(name: Any, value: Any, where: str, environment: Mapping[str, str],
                  scope: str = "") -> ServerConfig | None:
    """The server `name` configured as `value` in `where` (of `scope`, one of SCOPES); None
    (warned) when unusable."""
    label = f"MCP server {name!r} in {where}"
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        log.warning("ignoring an MCP server in %s: its name is not usable", where)
        return None
    if not isinstance(value, dict):
        log.warning("ignoring %s: expected an object", label)
        return None
    if "type" not in value and "command" not in value and "url" in value:
        log.warning('ignoring %s: it has a "url" but no "type"; add "type": "http" (or "sse")', label)
        return None
    kind = value.get("type", "stdio")
    transport = ALIASES.get(kind, kind) if isinstance(kind, str) else kind
    if transport not in TRANSPORTS:
        log.warning("ignoring %s: type %s is not stdio, http, sse or sdk", label, json.dumps(kind)[:100])
        return None
    unset: set[str] = set()
    if transport == "sdk":  # nothing to start or reach: the SDK's connection carries its messages
        config = ServerConfig(name, "sdk", source=where, scope=scope, written=_described("sdk", "", (), ""))
    elif transport == "stdio":
        command, args = value.get("command"), value.get("args", [])
        if not _text(command) or not isinstance(args, list) or len(args) > MAX_ENTRIES or not all(_text(a, empty=True) for a in args):
            log.warning("ignoring %s: it needs a command (text) and args (a list of text)", label)
            return None
        env = _pairs(value.get("env"), label, "env")
        if env is None:
            return None
        config = ServerConfig(name, "stdio", expand(command, environment, unset), tuple(expand(a, environment, unset) for a in args),
                              tuple((key, expand(text, environment, unset)) for key, text in env), source=where, scope=scope,
                              written=_described("stdio", command, args, ""))
    else:
        url, headers = value.get("url"), _pairs(value.get("headers"), label, "headers")
        if not _text(url) or not expand(url, environment).startswith(("http://", "https://")):
            log.warning("ignoring %s: it needs an http(s) url", label)
            return None
        if headers is None:
            return None
        config = ServerConfig(name, transport, url=expand(url, environment, unset), source=where, scope=scope,
                              headers=tuple((key, expand(text, environment, unset)) for key, text in headers),
                              written=_described(transport, "", (), url))
    if unset:  # as Claude Code, no error: the server gets the text as written
        log.info("%s: %s not set, passed as written", label, ", ".join(f"${{{n}}}" for n in sorted(unset)))
    return config


def _text(value: Any, empty: bool = False) -> bool:
    return isinstance(value, str) and (empty or value.strip() != "") and len(value) <= MAX_TEXT and "\x00" not in value


def _pairs(value: Any, label: str, key: str) -> list[tuple[str, str]] | None:
    if value is None:
        return []
    if not isinstance(value, dict) or len(value) > MAX_ENTRIES or not all(_text(k) and _text(v, empty=True) for k, v in value.items()):
        log.warning("ignoring %s: its %s must map names to text", label, key)
        return None
    return sorted(value.items())
