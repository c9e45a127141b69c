"""One WebFetch of a URL over the network, as Claude Code 2.1.332 fetches it: a GET with its
Accept and User-Agent headers, redirects followed within the origin (at most 10) and any other
reported, an HTTP error status kept without its body, a body of at most 10 MB (Claude Code's
maxContentLength), the whole fetch within 60 s (AGENT_WEB_FETCH_TIMEOUT_MS changes it). Whatever
the server sends, a fetch never raises: a response it cannot read is the Page's `error`, and the
texts taken from headers are bounded (a redirect to a URL WebFetch would refuse as too long is one).

Certificates are checked against the usual CA bundle and, as Claude Code's Bun runtime does, the
extra CAs of the file NODE_EXTRA_CA_CERTS names (a company proxy's, a test site's).

What came back is a `Page`, which `page_record` and `page_from_record` turn into the plain data a
cassette keeps and back, so a replay answers with it instead of the network.
"""

from __future__ import annotations

import base64
import os
import ssl
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Mapping

import requests
from requests.adapters import HTTPAdapter

from agent.model.deadline import Deadline, DeadlinePassed, DeadlineSession, ResponseTooLarge, read_pieces
from agent.tools.web.urls import MAX_URL_CHARS, redirect_target, same_origin

MAX_BODY_BYTES = 10 * 1024 * 1024
DEFAULT_TIMEOUT_MS = 60_000
TIMEOUT_VARIABLE = "AGENT_WEB_FETCH_TIMEOUT_MS"
EXTRA_CA_VARIABLE = "NODE_EXTRA_CA_CERTS"
MAX_REDIRECTS = 10
HEADERS = {"Accept": "text/markdown, text/html, */*",
           "User-Agent": "Claude-User (claude-code/2.1.332; +https://support.anthropic.com/)"}
_REDIRECTS = (301, 302, 303, 307, 308)
MAX_REASON_CHARS = 200  # of a status line's reason phrase (a server may send 64 KB of one)
MAX_CONTENT_TYPE_CHARS = 1000


@dataclass(frozen=True)
class Page:
    """What one fetch gave: the final `url`, its `status` and `reason`, `content_type` and `body`;
    `location` for a redirect to another origin (not followed); `error` when the fetch failed
    (what the model is told, as an error)."""

    url: str
    status: int = 0
    reason: str = ""
    content_type: str = ""
    body: bytes = b""
    location: str = ""
    error: str = ""


def fetch(url: str, environ: Mapping[str, str]) -> Page:
    """Fetch `url` (already checked and upgraded: agent.tools.web.urls) over the network."""
    timeout_s = _timeout_ms(environ) / 1000
    with _session(environ.get(EXTRA_CA_VARIABLE, "")) as http, Deadline(timeout_s) as deadline:
        try:
            return _follow(http, url, deadline, timeout_s)
        except ResponseTooLarge:
            return Page(url, error=f"maxContentLength size of {MAX_BODY_BYTES} exceeded")
        except DeadlinePassed:
            return Page(url, error=f"timeout of {int(timeout_s * 1000)}ms exceeded")
        except Exception as exc:  # whatever the server sent (requests and http.client raise more than RequestException)
            if deadline.passed:
                return Page(url, error=f"timeout of {int(timeout_s * 1000)}ms exceeded")
            if isinstance(exc, requests.RequestException):
                return Page(url, error=_cause(exc))
            return Page(url, error=f"The server's response could not be read: {type(exc).__name__}: {_cause(exc)}")


def _follow(http: requests.Session, url: str, deadline: Deadline, timeout_s: float) -> Page:
    for _ in range(MAX_REDIRECTS + 1):
        with http.get(url, headers=HEADERS, stream=True, allow_redirects=False, timeout=(min(10.0, timeout_s), timeout_s),
                      proxies=requests.utils.get_environ_proxies(url)) as response:
            status = response.status_code
            reason = (response.reason or _phrase(status))[:MAX_REASON_CHARS]
            kind = response.headers.get("content-type", "")[:MAX_CONTENT_TYPE_CHARS]
            location = response.headers.get("location", "")
            if status in _REDIRECTS and location:
                target = redirect_target(url, location)
                if len(target) > MAX_URL_CHARS:
                    return Page(url, error=f"The server redirected to a URL of {len(target):,} characters (WebFetch "
                                           f"fetches URLs of at most {MAX_URL_CHARS:,})")
                if same_origin(url, target):
                    url = target
                    continue
                return Page(url, status, reason, kind, location=target)
            if status >= 400:  # Claude Code reads no body of an error
                return Page(url, status, reason, kind)
            body = b"".join(read_pieces(response, deadline, MAX_BODY_BYTES, 64 * 1024))
            return Page(url, status, reason, kind, body)
    return Page(url, error=f"Too many redirects (more than {MAX_REDIRECTS})")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _cause(exc: Exception) -> str:
    """The innermost reason of a network failure, in one line."""
    seen = exc
    while seen.__cause__ is not None or (seen.args and isinstance(seen.args[0], Exception)):
        seen = seen.__cause__ or seen.args[0]
    text = str(getattr(seen, "reason", None) or seen) or type(seen).__name__
    return " ".join(text.split())[:500]


def _timeout_ms(environ: Mapping[str, str]) -> float:
    try:
        value = float(environ.get(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT_MS))
    except ValueError:
        return DEFAULT_TIMEOUT_MS
    return value if 0 < value <= 10 * DEFAULT_TIMEOUT_MS else DEFAULT_TIMEOUT_MS


class _ContextAdapter(HTTPAdapter):
    """An adapter whose TLS connections trust the default CAs and the extra ones."""

    def __init__(self, context: ssl.SSLContext):
        self._context = context
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["ssl_context"] = self._context
        return super().init_poolmanager(*args, **kwargs)


def _session(extra_ca: str) -> requests.Session:
    """A session of its own (never the model client's, so no cassette adapter sees a page), with
    the extra CAs when NODE_EXTRA_CA_CERTS names a readable file."""
    http = DeadlineSession()
    http.trust_env = False  # no .netrc credentials sent to a site the model chose (proxies: see _follow)
    if extra_ca and os.path.isfile(extra_ca):
        context = ssl.create_default_context()
        try:
            import certifi

            context.load_verify_locations(cafile=certifi.where())
        except (ImportError, OSError, ssl.SSLError):
            pass
        try:
            context.load_verify_locations(cafile=extra_ca)
            http.mount("https://", _ContextAdapter(context))
        except (OSError, ssl.SSLError):
            pass  # an unreadable file adds nothing, as in Node
    return http


def page_record(page: Page) -> dict[str, Any]:
    """The plain data a cassette keeps of `page`: the body as text when it is UTF-8, else base64."""
    record: dict[str, Any] = {"url": page.url}
    if page.error:
        return record | {"error": page.error}
    record |= {"status": page.status, "reason": page.reason, "content_type": page.content_type}
    if page.location:
        record["location"] = page.location
    if page.body:
        try:
            record["body"] = page.body.decode("utf-8")
        except UnicodeDecodeError:
            record["body_base64"] = base64.b64encode(page.body).decode("ascii")
    return record


def page_from_record(record: Mapping[str, Any]) -> Page:
    """The Page a cassette's record holds (its shape checked when the cassette was read)."""
    if "body_base64" in record:
        body = base64.b64decode(record["body_base64"])
    else:
        body = record.get("body", "").encode("utf-8")
    return Page(record["url"], record.get("status", 0), record.get("reason", ""), record.get("content_type", ""),
                body, record.get("location", ""), record.get("error", ""))
