"""Capturing a run's model exchanges as they happen, for a recording: an adapter on the client's
`requests.Session` that sends each request for real and keeps a copy of the request and of the
reply as the client reads it (a streamed reply still reaches the client piece by piece).

Each exchange gets its slot when the reply's headers arrive, so the cassette keeps the order in
which the provider answered; its body is filled in when the client has read the reply. Request
bodies are kept parsed, sharing what they repeat of the agent's earlier requests
(`deltas.shared_with`), so a long session costs memory in proportion to what is new in it.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import requests
from requests.adapters import HTTPAdapter

from agent.record.cassette_file import body_to_file
from agent.record.deltas import common_prefix, shared_with

# what a replayed response needs: its type, and the provider's wait before a retry
KEPT_RESPONSE_HEADERS = {"content-type", "retry-after", "retry-after-ms"}
# secrets, and request headers that vary with the machine or the body's length
DROPPED_REQUEST_HEADERS = {"authorization", "x-api-key", "content-length", "user-agent", "accept-encoding", "accept",
                           "connection"}
SCRIPTED_SERVER = "scripted-model"  # the scripted model names itself in its replies' Server header
RECENT = 8  # how many of an agent's latest requests a new one may share its conversation with


@dataclass
class Exchange:
    """One recorded exchange: the request as sent (its body parsed), the reply as read."""

    agent: str | None
    method: str
    uri: str
    headers: dict[str, list[str]]
    body: Any
    status: int
    reason: str
    response_headers: dict[str, list[str]]
    scripted: bool
    content: bytes | None = None  # the reply's body, once the client has read it
    broken: str | None = None  # why reading the reply failed, if it did


@dataclass
class Exchanges:
    """Every exchange of a recording, in the order the replies arrived."""

    label: Callable[[], str] | None = None
    items: list[Exchange] = field(default_factory=list)
    _recent: dict[str | None, deque] = field(default_factory=lambda: defaultdict(lambda: deque(maxlen=RECENT)))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def begin(self, request: requests.PreparedRequest, response: requests.Response) -> Exchange:
        agent = self.label() if self.label is not None else None
        body = _parsed(request.body)
        with self._lock:
            recent = self._recent[agent]
            base = closest(list(recent), body, lambda earlier: earlier)
            exchange = Exchange(
                agent, request.method or "POST", request.url or "", _request_headers(request.headers),
                shared_with(body, base) if base is not None else body, response.status_code, response.reason or "",
                _response_headers(response.headers), response.headers.get("server", "").startswith(SCRIPTED_SERVER))
            recent.append(exchange.body)
            self.items.append(exchange)
        return exchange

    def __len__(self) -> int:
        return len(self.items)


def closest(candidates: list, body: Any, body_of: Callable[[Any], Any]) -> Any:
    """The candidate (earlier requests of the same agent, oldest first) whose body shares the most
    of `body`'s conversation, or None. The latest is taken at once when `body` continues it (what
    almost every request does: the conversation so far, then the new messages; a cache marker moved
    off its last message still counts), so the others are compared only when parallel agents of
    one type interleave."""
    if not candidates:
        return None
    latest = candidates[-1]
    shared = _shared_messages(body_of(latest), body)
    if shared >= 0 and shared >= len(body_of(latest)["messages"]) - 1:
        return latest
    return max(candidates, key=lambda candidate: _shared_messages(body_of(candidate), body))


def _shared_messages(earlier: Any, body: Any) -> int:
    if isinstance(earlier, dict) and isinstance(body, dict) and isinstance(earlier.get("messages"), list) \
            and isinstance(body.get("messages"), list):
        return common_prefix(earlier["messages"], body["messages"])
    return -1


def _parsed(body: Any) -> Any:
    """A request body we sent, as JSON: the client encoded it from its own payload, so it is
    parsed without the depth check a body from elsewhere needs (a body that is not JSON stays text)."""
    try:
        return json.loads(body) if body else None
    except (ValueError, TypeError):
        return body_to_file(body)


def _request_headers(headers) -> dict[str, list[str]]:
    return {name: [value] for name, value in headers.items() if name.lower() not in DROPPED_REQUEST_HEADERS}


def _response_headers(headers) -> dict[str, list[str]]:
    return {name: [value] for name, value in headers.items() if name.lower() in KEPT_RESPONSE_HEADERS}


class _Tee:
    """The reply's raw stream, handed on to the client unchanged while a copy is kept."""

    def __init__(self, raw, exchange: Exchange):
        self._raw = raw
        self._exchange = exchange
        self._pieces: list[bytes] = []

    def stream(self, amt: int = 2 ** 16, decode_content: bool | None = None) -> Iterator[bytes]:
        try:
            for piece in self._raw.stream(amt, decode_content=decode_content):
                self._pieces.append(piece)
                yield piece
        except Exception as exc:
            self._exchange.broken = f"{type(exc).__name__}: {exc}"[:300]
            raise
        finally:
            self._keep()

    def read(self, *args, **kwargs) -> bytes:
        data = self._raw.read(*args, **kwargs)
        self._pieces.append(data)
        return data

    def close(self) -> None:
        self._keep()
        self._raw.close()

    def _keep(self) -> None:
        self._exchange.content = b"".join(self._pieces)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class CaptureAdapter(HTTPAdapter):
    """Sends each request for real and keeps the exchange in `exchanges`."""

    def __init__(self, exchanges: Exchanges):
        super().__init__()
        self.exchanges = exchanges

    def send(self, request, **kwargs):
        response = super().send(request, **kwargs)
        exchange = self.exchanges.begin(request, response)
        response.raw = _Tee(response.raw, exchange)
        return response
