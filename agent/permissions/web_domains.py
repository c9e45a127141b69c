"""`WebFetch(domain:…)` rules as Claude Code 2.1.332 matches them (observed): `domain:example.com`
covers that host only (not docs.example.com, nor www.example.com), in any letter case;
`domain:*.example.org` covers every host under example.org but not example.org itself; and
`domain:*` every host. A specifier without `domain:` covers nothing.

Host and rule are compared in one canonical form, the name DNS is asked for: lower case, each
non-ASCII label in its IDNA (punycode) form as the fetch sends it, and no trailing dot. So
`https://example.com./` and `https://xn--bcher-kva.de/` are the hosts `domain:example.com` and
`domain:bücher.de` name, `https://169.254.43518/` is the host `domain:169.254.169.254` names, and a
deny rule cannot be stepped around by spelling its host otherwise.
A host of other characters (`evil.com\\.example.org`, which the fetch reads as evil.com with a
path) is no host: `valid_host` refuses it, WebFetch does not fetch it, and no rule covers it."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

PREFIX = "domain:"
_IPV4_FORMS = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}")
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")  # a DNS name's labels, ASCII (IDNA) form


def canonical_host(name: str) -> str:
    """`name` as DNS is asked for it: lower case, IDNA labels, without the trailing dot(s); an IP
    address in its one usual form (`0x7f.1` and `127.1` are 127.0.0.1 to the resolver, and
    `::ffff:127.0.0.1` is it too). A label IDNA refuses is kept as written (the fetch refuses
    that host too)."""
    text = name.strip().lower().rstrip(".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    address = _address(text)
    if address is not None:
        return address
    return ".".join(_ascii_label(label) for label in text.split("."))


def _address(text: str) -> str | None:
    """The IP address `text` is to the resolver, written as usual; None for a name."""
    if ":" in text:
        try:
            address = ipaddress.IPv6Address(text)
        except ValueError:
            return None
        return str(address.ipv4_mapped or address)
    if not _IPV4_FORMS.fullmatch(text):
        return None
    try:  # inet_aton reads the forms getaddrinfo does: 127.1, 0x7f.0.0.1, 0177.0.0.1, 2130706433
        return socket.inet_ntoa(socket.inet_aton(text))
    except OSError:
        return None


def _ascii_label(label: str) -> str:
    if label.isascii():
        return label
    try:
        import idna  # what the fetch (urllib3) encodes a host with

        return idna.encode(label, strict=True, std3_rules=True).decode("ascii")
    except (ImportError, UnicodeError, ValueError):  # idna.IDNAError is a UnicodeError
        return label


def valid_host(host: str) -> bool:
    """Whether `host` (a URL's hostname, brackets off) is an IP address or a DNS name whose
    labels are letters, digits, `-` and `_` (non-ASCII ones in their IDNA form), and nothing the
    fetch could read otherwise (a backslash, `%`, `;`, a space)."""
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return False
        return True
    return _NAME.fullmatch(canonical_host(host)) is not None


def fetch_host(url: object) -> str | None:
    """The host a WebFetch call's URL names, canonical (see the module docstring); None when it
    names none, or nothing `valid_host` takes."""
    if not isinstance(url, str):
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return canonical_host(host) if host and valid_host(host) else None


def domain_matches(specifier: str, url: object) -> bool:
    """Whether the rule specifier `specifier` covers a WebFetch of `url`."""
    host = fetch_host(url)
    if host is None or not specifier.startswith(PREFIX):
        return False
    pattern = specifier[len(PREFIX):].strip()
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        parent = canonical_host(pattern[2:])
        return bool(parent) and host.endswith("." + parent)
    return host == canonical_host(pattern)
