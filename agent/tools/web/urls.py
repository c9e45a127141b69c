"""Which URLs WebFetch takes, as Claude Code 2.1.332 was seen to: http or https with a host that has a
dot (127.0.0.1 does; localhost and other dotless names do not) and only a host's characters
(agent.permissions.web_domains.valid_host), no user name or password, at most 2,000 characters;
http is upgraded to https. A redirect is followed only within its origin (same scheme, host and
port; a leading `www.` aside)."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

from agent.permissions.web_domains import valid_host
from agent.tools.base import ToolError

MAX_URL_CHARS = 2000
DOTLESS = ("WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, "
           "use Bash with curl instead.")


def fetchable_url(text: str) -> str:
    """The URL WebFetch fetches for `text` (https for http); a ToolError in Claude Code's words
    when it takes no such URL."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        raise ToolError("Invalid URL") from None
    if not parts.scheme or not parts.netloc or len(text) > MAX_URL_CHARS:
        raise ToolError("Invalid URL")
    if parts.scheme.lower() not in ("http", "https"):
        raise ToolError(f"Unsupported protocol {parts.scheme.lower()}:")
    if parts.username is not None or parts.password is not None or not parts.hostname:
        raise ToolError("Invalid URL")
    if not valid_host(parts.hostname):  # `a.com\\.b.org` would be fetched from a.com, its rule b.org's
        raise ToolError("Invalid URL")
    if "." not in parts.hostname:
        raise ToolError(DOTLESS)
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host + (f":{port}" if port is not None and port != 443 else "")
    return urlunsplit(("https", netloc, parts.path or "/", parts.query, ""))


def redirect_target(url: str, location: str) -> str:
    """Where a redirect's Location header points, resolved against the URL that gave it."""
    return urljoin(url, location)


def same_origin(url: str, target: str) -> bool:
    """Whether a redirect from `url` to `target` stays where Claude Code follows it: the same
    scheme, port and host (a leading www. aside), and no credentials."""
    try:
        first, then = urlsplit(url), urlsplit(target)
        ports = [part.port or {"http": 80, "https": 443}.get(part.scheme) for part in (first, then)]
    except ValueError:
        return False
    if first.scheme != then.scheme or ports[0] != ports[1] or then.username or then.password:
        return False
    return (first.hostname or "").removeprefix("www.") == (then.hostname or "").removeprefix("www.")
