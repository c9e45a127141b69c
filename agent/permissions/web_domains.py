"""`WebFetch(domain:…)` rules as Claude Code 2.1.332 matches them (observed): `domain:example.com`
covers that host only (not docs.example.com, nor www.example.com), in any letter case;
`domain:*.example.org` covers every host under example.org but not example.org itself; and
`domain:*` every host. A specifier without `domain:` covers nothing."""

from __future__ import annotations

from urllib.parse import urlsplit

PREFIX = "domain:"


def fetch_host(url: object) -> str | None:
    """The host a WebFetch call's URL names, lower case; None when it names none."""
    if not isinstance(url, str):
        return None
    try:
        return urlsplit(url.strip()).hostname or None
    except ValueError:
        return None


def domain_matches(specifier: str, url: object) -> bool:
    """Whether the rule specifier `specifier` covers a WebFetch of `url`."""
    host = fetch_host(url)
    if host is None or not specifier.startswith(PREFIX):
        return False
    pattern = specifier[len(PREFIX):].strip().lower().rstrip(".")
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return host == pattern
