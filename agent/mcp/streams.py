"""What a connection puts between a server and the SDK: its message streams watched (the end of
the server's messages noticed at once, so the next call starts it again; the answers to our
`tools/list` requests cleaned by `agent.mcp.listing` before the SDK validates them), and a stdio
server's stderr read as it comes, keeping only its end (a chatty server must not fill memory,
nor block on a full pipe)."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import threading
from typing import Any

from agent.mcp.listing import Tally, clean_listing

STDERR_KEPT = 64 * 1024  # the last characters of a stdio server's stderr, for --verbose and failures


def watched(read, write, ended: asyncio.Event, tally: Tally):
    """The transport's (read, write) streams as the SDK's session is to use them."""
    listings: set[Any] = set()
    return _Reading(read, listings, ended, tally), _Writing(write, listings)


class _Writing:
    """The write stream, noting the id of each `tools/list` request sent."""

    def __init__(self, stream, listings: set[Any]):
        self._stream, self._listings = stream, listings

    async def send(self, item) -> None:
        message = getattr(item, "message", None)
        if getattr(message, "method", None) == "tools/list":
            self._listings.add(getattr(message, "id", None))
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self):
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info) -> Any:
        return await self._stream.__aexit__(*exc_info)


class _Reading:
    """The read stream: the answers to the noted `tools/list` requests cleaned, its end told."""

    def __init__(self, stream, listings: set[Any], ended: asyncio.Event, tally: Tally):
        self._stream, self._listings, self._ended, self._tally = stream, listings, ended, tally

    @property
    def last_context(self):  # the SDK reads the sender's context from the stream it iterates
        return getattr(self._stream, "last_context", None)

    def _cleaned(self, item):
        message = getattr(item, "message", None)
        result = getattr(message, "result", None)
        if isinstance(result, dict) and getattr(message, "id", None) in self._listings:
            self._listings.discard(message.id)
            message.result = clean_listing(result, self._tally)
        return item

    async def receive(self):
        return self._cleaned(await self._stream.receive())

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return self._cleaned(await self._stream.__anext__())
        except StopAsyncIteration:
            self._ended.set()
            raise

    async def aclose(self) -> None:
        self._ended.set()
        await self._stream.aclose()

    async def __aenter__(self):
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info) -> Any:
        self._ended.set()  # the session stopped reading: the server's messages are over
        return await self._stream.__aexit__(*exc_info)


class Tail:
    """A stdio server's stderr: read from a pipe in a thread, keeping only the last STDERR_KEPT
    characters. Each start of the server gets a new pipe (`writer`); `close` closes our copy of
    its writing end once the server is gone, so the reading thread ends."""

    def __init__(self) -> None:
        self._text = ""
        self._lock = threading.Lock()
        self._writer = None

    def writer(self):
        """A new pipe's writing end, for the server's stderr."""
        self.close()
        read_fd, write_fd = os.pipe()
        threading.Thread(target=self._pump, args=(read_fd,), name="mcp-stderr", daemon=True).start()
        self._writer = os.fdopen(write_fd, "w", closefd=True)
        return self._writer

    def close(self) -> None:
        """Close our end of the current pipe (the server keeps its own until it exits)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(OSError):
                writer.close()

    def _pump(self, fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        with os.fdopen(fd, "rb") as pipe:
            for chunk in iter(lambda: pipe.read1(65536), b""):
                text = decoder.decode(chunk)
                with self._lock:
                    self._text = (self._text[-STDERR_KEPT:] + text[-STDERR_KEPT:])[-STDERR_KEPT:]

    def text(self) -> str:
        """The end of what the server wrote to stderr."""
        with self._lock:
            return self._text
