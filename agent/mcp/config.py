"""One MCP server's configuration, as Claude Code reads an entry of `mcpServers`:
`{"command": ..., "args": [...], "env": {...}}` for a stdio server (`"type": "stdio"` optional),
`{"type": "http", "url": ..., "headers": {...}}` for streamable HTTP, `{"type": "sse", ...}` for
the older SSE transport. `${VAR}` and `${VAR:-default}` are expanded in the command, args, env
values, URL and headers; an unset variable without a default stays as written (as Claude Code
leaves it). The files are untrusted input: an unusable entry is one warning naming it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

log = logging.getLogger("agent")

TRANSPORTS = ("stdio", "http", "sse")
MAX_ARGS = 1000
MAX_TEXT = 64 * 1024
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerConfig:
    """A server to connect to: its name, transport, how to start or reach it, and where it was
    configured (a file, --mcp-config, an agent)."""

    name: str
    transport: str  # one of TRANSPORTS
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""
    headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    source: str = ""

    def described(self) -> str:
        """How it is started or reached, for `mcp list` and --verbose."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return f"{self.url} ({self.transport.upper() if self.transport == 'sse' else 'HTTP'})"


def expand(text: str, environment: Mapping[str, str]) -> str:
    """`text` with `${VAR}` and `${VAR:-default}` replaced from `environment`."""
    def value(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name in environment and (environment[name] or default is None):
            return environment[name]
        return default if default is not None else match.group(0)

    return _VARIABLE.sub(value, text)


def server_config(name: Any, value: Any, where: str, environment: Mapping[str, str]) -> ServerConfig | None:
    """The server `name` configured as `value` in `where`; None (warned) when unusable."""
    label = f"MCP server {name!r} in {where}"
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        log.warning("ignoring an MCP server in %s: its name is not usable", where)
        return None
    if not isinstance(value, dict):
        log.warning("ignoring %s: expected an object", label)
        return None
    transport = value.get("type", "stdio" if "command" in value else None)
    if transport not in TRANSPORTS:
        log.warning("ignoring %s: type %r is not stdio, http or sse", label, transport)
        return None
    if transport == "stdio":
        command = value.get("command")
        args = value.get("args", [])
        if not _text(command) or not isinstance(args, list) or len(args) > MAX_ARGS or not all(_text(a, empty=True) for a in args):
            log.warning("ignoring %s: it needs a command (text) and args (a list of text)", label)
            return None
        env = _pairs(value.get("env"), label, "env")
        if env is None:
            return None
        return ServerConfig(name, "stdio", expand(command, environment), tuple(expand(a, environment) for a in args),
                            tuple((key, expand(text, environment)) for key, text in env), source=where)
    url = value.get("url")
    if not _text(url) or not expand(url, environment).startswith(("http://", "https://")):
        log.warning("ignoring %s: it needs an http(s) url", label)
        return None
    headers = _pairs(value.get("headers"), label, "headers")
    if headers is None:
        return None
    return ServerConfig(name, transport, url=expand(url, environment),
                        headers=tuple((key, expand(text, environment)) for key, text in headers), source=where)


def _text(value: Any, empty: bool = False) -> bool:
    return isinstance(value, str) and (empty or value.strip() != "") and len(value) <= MAX_TEXT and "\x00" not in value


def _pairs(value: Any, label: str, key: str) -> list[tuple[str, str]] | None:
    if value is None:
        return []
    if not isinstance(value, dict) or not all(_text(k) and _text(v, empty=True) for k, v in value.items()):
        log.warning("ignoring %s: its %s must map names to text", label, key)
        return None
    return sorted(value.items())
