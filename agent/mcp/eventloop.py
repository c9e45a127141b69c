"""The one background thread that runs every MCP connection's asyncio code (the `mcp` SDK is
asyncio-based; the agent is synchronous). Callers hand it a coroutine and wait for its result
with a timeout; a timed-out coroutine is cancelled."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Awaitable

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def loop() -> asyncio.AbstractEventLoop:
    """The running background loop, started on first use (a daemon thread: it never keeps the
    process alive)."""
    global _loop
    with _lock:
        if _loop is None:
            ready = threading.Event()
            new = asyncio.new_event_loop()

            def serve() -> None:
                asyncio.set_event_loop(new)
                ready.set()
                new.run_forever()

            threading.Thread(target=serve, name="mcp-event-loop", daemon=True).start()
            ready.wait()
            _loop = new
        return _loop


def run(coroutine: Awaitable[Any], timeout: float | None) -> Any:
    """Run `coroutine` on the background loop and return its result; raises TimeoutError (after
    cancelling it) when it takes longer than `timeout` seconds, or whatever it raised."""
    future = asyncio.run_coroutine_threadsafe(coroutine, loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        if future.done():  # the coroutine's own TimeoutError (the same class since Python 3.11)
            raise
        future.cancel()
        raise TimeoutError(f"no answer within {timeout:g} s") from None


def submit(coroutine: Awaitable[Any]) -> concurrent.futures.Future:
    """Start `coroutine` on the background loop without waiting for it."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop())
