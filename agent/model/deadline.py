"""A deadline for one attempt: API_TIMEOUT_MS bounds the whole response, headers and body.

requests' read timeout bounds each socket read, so a provider that sends a byte a second never
trips it. Each attempt therefore runs under a `Deadline`: a timer that, when the time is up, shuts
down the socket of the connection the attempt uses (which wakes a read blocked on it), and a clock
the body readers check between chunks. The connection is learned from the pool it comes from:
`DeadlineSession` gives every adapter mounted on it (a cassette's too) pools that tell the
current thread's deadline which connection they hand out. A replayed cassette has no socket: only
the clock applies, and a replay never comes near it.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Iterator

import requests
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

TIMEOUT_VARIABLE = "API_TIMEOUT_MS"
_current = threading.local()  # the deadline of the attempt this thread is making, if any


class DeadlinePassed(Exception):
    """The response did not finish within its deadline."""


class Deadline:
    """`seconds` from now for one attempt: used as `with Deadline(s) as deadline:` around sending
    the request and reading all of its response."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._connections: list[object] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self.passed = False

    def __enter__(self) -> "Deadline":
        _current.deadline = self
        self._timer.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._timer.cancel()
        _current.deadline = None
        with self._lock:
            self._connections.clear()

    def check(self) -> None:
        """Raise DeadlinePassed once the time is up."""
        if self.passed or time.monotonic() >= self._ends:
            self.passed = True
            raise DeadlinePassed(f"no complete reply within {self.seconds:g} s")

    def watch(self, connection: object) -> None:
        """Shut `connection` down when the time is up (at once if it already is)."""
        with self._lock:
            self._connections.append(connection)
            if self.passed:
                _shut(connection)

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            for connection in self._connections:
                _shut(connection)


def _shut(connection: object) -> None:
    """Shut down the connection's socket, which ends a read blocked on it in another thread. The
    plain socket's shutdown, even under TLS, so the TLS layer is not torn down under that read."""
    sock = getattr(connection, "sock", None)
    if isinstance(sock, socket.socket):
        try:
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:  # already closed
            pass


class _WatchedPool:
    """A connection pool that hands each connection it gives out to the thread's deadline."""

    def _get_conn(self, timeout=None):
        connection = super()._get_conn(timeout)  # type: ignore[misc]
        deadline = getattr(_current, "deadline", None)
        if deadline is not None:
            deadline.watch(connection)
        return connection


class _WatchedHTTPPool(_WatchedPool, HTTPConnectionPool):
    pass


class _WatchedHTTPSPool(_WatchedPool, HTTPSConnectionPool):
    pass


_WATCHED_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class DeadlineSession(requests.Session):
    """A session whose adapters' pools report their connections to the current deadline, and
    which never follows a redirect (see `agent.model.client`)."""

    def get_adapter(self, url: str):
        adapter = super().get_adapter(url)
        manager = getattr(adapter, "poolmanager", None)
        if manager is not None and manager.pool_classes_by_scheme is not _WATCHED_POOLS:
            manager.pool_classes_by_scheme = _WATCHED_POOLS
            manager.clear()  # pools made before were not watched
        return adapter


def read_pieces(response: requests.Response, deadline: Deadline, limit: int, size: int) -> Iterator[bytes]:
    """The body of `response` in pieces of up to `size` bytes as they arrive, checking the
    deadline between them; raises ResponseTooLarge past `limit` bytes (decoded)."""
    total = 0
    for chunk in response.iter_content(size):
        deadline.check()
        total += len(chunk)
        if total > limit:
            raise ResponseTooLarge(limit)
        yield chunk
    deadline.check()


class ResponseTooLarge(Exception):
    """A response body over the cap."""

    def __init__(self, limit: int):
        super().__init__(f"{limit // (1024 * 1024)} MB")
        self.limit = limit
