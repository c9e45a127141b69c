"""A connection to one MCP server through the official `mcp` SDK: started (initialize, then its
tool list) within a time limit, called synchronously from any thread, restarted on the next call
after the server went away (as Claude Code does), and closed (a stdio server's process group with
it, an HTTP session with its DELETE).

All the SDK's asyncio code runs in one task per connection on the background loop
(`agent.mcp.eventloop`): the transport and the session are entered and left in that task, as the
SDK's task groups require; calls from the agent's threads are separate coroutines on that loop.
The task is stopped through an anyio cancel scope, never a bare task.cancel(), so the SDK's
shielded shutdown (stdin closed, then the process group terminated) always runs to its end."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

from agent import __version__
from agent.mcp import eventloop
from agent.mcp.config import ServerConfig
from agent.mcp.listing import Tally
from agent.mcp.streams import Tail, watched
from agent.processes.running import command_environment

log = logging.getLogger("agent")

CLOSE_WAIT_S = 6.0  # the SDK gives a stdio server 2 s after its stdin closes, then 2 s after SIGTERM
CONNECTION_CLOSED = "Connection closed"  # what Claude Code tells the model of a server gone mid-call


class ServerError(Exception):
    """A server that cannot be reached or that failed a call, with a message for the model or user."""


class Connection:
    """One server's connection. `status` is pending, connected, failed (then `error` says why) or
    closed; `tools` is its tool list as cleaned on arrival (dicts: name, description, inputSchema),
    `dropped` what the cleaning left out, `stderr` the end of a stdio server's stderr. `relay`
    carries an sdk server's messages (agent.mcp.relayed; None when no Agent SDK is connected)."""

    def __init__(self, config: ServerConfig, cwd: str, relay=None):
        _relay_sdk_log()
        self.config = config
        self.cwd = cwd
        self.relay = relay
        self.status = "pending"
        self.error = ""
        self.tools: list[dict[str, Any]] = []
        self.dropped = ""
        self.stderr = Tail()
        self._session = None
        self._closing: asyncio.Event | None = None
        self._scope = None  # the anyio cancel scope around the connection's task
        self._task: asyncio.Future | None = None
        self._lock = threading.Lock()

    def start(self, timeout_s: float) -> None:
        """Connect and list the server's tools within `timeout_s` seconds; a failure is kept in
        `status` and `error`, never raised."""
        start_all([self], timeout_s)

    async def _start(self, timeout_s: float) -> None:
        try:
            await self._open(timeout_s)
        except (ServerError, TimeoutError, OSError) as exc:
            self._fail(str(exc) or type(exc).__name__)
        except Exception as exc:  # the SDK's own failures: a server that is not an MCP server
            self._fail(f"{type(exc).__name__}: {exc}")

    async def _open(self, timeout_s: float) -> None:
        started = asyncio.get_running_loop().create_future()
        self._closing, self._scope = asyncio.Event(), None
        self._task = asyncio.ensure_future(self._serve(started, self._closing))
        try:
            await asyncio.wait_for(asyncio.shield(started), timeout_s)
        except asyncio.TimeoutError:
            self._closing.set()  # given up on, not gone: no warning that it stopped
            started.cancel()
            self._stop_now()  # its shutdown goes on in the background; close() waits for it
            raise ServerError(f"did not start within {timeout_s:g} s (MCP_TIMEOUT)") from None

    async def _serve(self, started: asyncio.Future, closing: asyncio.Event) -> None:
        import anyio
        from mcp import ClientSession
        from mcp.types import Implementation

        ended = asyncio.Event()  # the server's messages ended: it exited, or closed the connection
        try:
            with anyio.CancelScope() as self._scope:
                async with contextlib.AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(self._transport())
                    tally = Tally()
                    read, write = watched(read, write, ended, tally)
                    session = await stack.enter_async_context(ClientSession(
                        read, write, client_info=Implementation(name="claude-code", version=__version__)))
                    await session.initialize()
                    self.tools, self.dropped = await _list_tools(session, tally), tally.warning()
                    self._session, self.status = session, "connected"
                    started.set_result(None)
                    await _first_of(closing.wait(), ended.wait())
                    self._session = None  # from now on a call waits for the end, then starts it again
                    if not closing.is_set():
                        raise ServerError(CONNECTION_CLOSED)
            if not started.done():
                started.set_exception(ServerError("stopped before it started"))
        except BaseException as exc:  # noqa: BLE001 - kept for whoever waits, the loop goes on
            if not started.done():
                started.set_exception(ServerError(_reason(exc, self.stderr.text())))
            elif not closing.is_set():
                self.error = _reason(exc, self.stderr.text())
                log.warning("MCP server %s stopped: %s", self.config.name, self.error)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None
            self.stderr.close()  # the server is gone: our end of its stderr pipe closes too
            if self.status == "connected":
                self.status = "closed" if closing.is_set() else "failed"

    def _transport(self):
        config = self.config
        if config.transport == "sdk":
            from agent.mcp.relayed import relayed

            if self.relay is None:
                raise ServerError("it lives in the Agent SDK's program, and no Agent SDK is connected "
                                  "(it runs only when the SDK starts this agent)")
            return relayed(config.name, self.relay)
        if config.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(command=config.command, args=list(config.args), cwd=self.cwd,
                                           env={**command_environment(), **dict(config.env)})
            return stdio_client(params, errlog=self.stderr.writer())
        headers = dict(config.headers)
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(config.url, headers=headers)
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        return _http(config.url, headers, create_mcp_http_client, streamable_http_client)

    def call(self, name: str, arguments: dict[str, Any], timeout_s: float, tool_use_id: str | None = None,
             start_timeout_s: float = 30.0) -> Any:
        """Call the server's tool `name`; returns the SDK's CallToolResult. A server that went away
        is started again first. Raises ServerError (connection closed, no answer in time)."""
        with self._lock:
            if self._session is None and self.status in ("failed", "connected"):  # not once closed: the run is ending
                self._wait_stopped()
                log.info("MCP server %s: starting it again", self.config.name)
                self.status, self.error = "pending", ""
                self.start(start_timeout_s)
            session = self._session
        if session is None:
            raise ServerError(self.error or CONNECTION_CLOSED)
        meta = {"claudecode/toolUseId": tool_use_id} if tool_use_id else None
        try:
            return eventloop.run(_call(session, name, arguments, meta, timeout_s), timeout_s + 5)
        except TimeoutError:
            raise ServerError(f'MCP server "{self.config.name}" tool "{name}" timed out after {timeout_s:g}s') from None
        except Exception as exc:
            if _closed(exc) or self._session is not session:  # it went away during the call
                self._wait_stopped()
                raise ServerError(CONNECTION_CLOSED) from None
            raise ServerError(_reason(exc, "")) from None

    def close(self) -> None:
        """Stop the connection (and a stdio server's process group); waits a few seconds at most."""
        close_all([self])

    async def _close(self) -> None:
        if self._closing is None or self._task is None:
            return
        self._closing.set()
        for _ in range(2):  # asked to end, then made to (its cancel scope)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(self._task), CLOSE_WAIT_S)
            if self._task.done():
                break
            self._stop_now()
        self.status = "closed" if self.status == "connected" else self.status

    def _stop_now(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    def _wait_stopped(self, timeout_s: float = CLOSE_WAIT_S) -> bool:
        """Wait until the connection's task has ended (its server stopped); False on a timeout."""
        task = self._task
        if task is None or task.done():
            return True

        async def wait() -> None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(task), timeout_s)

        with contextlib.suppress(Exception):
            eventloop.run(wait(), timeout_s + 1)
        return task.done()

    def _fail(self, why: str) -> None:
        self.status, self.error = "failed", why


def start_all(connections: list[Connection], timeout_s: float) -> None:
    """Start `connections` together, each within `timeout_s` seconds (failures kept in each). The
    waiting thread only waits: a signal ending the agent meanwhile ends it at once."""
    if connections:
        eventloop.run(_together(connection._start(timeout_s) for connection in connections), timeout_s + 10)


def close_all(connections: list[Connection]) -> None:
    """Stop `connections` together, a few seconds at most."""
    if connections:
        with contextlib.suppress(TimeoutError):
            eventloop.run(_together(connection._close() for connection in connections), 2 * CLOSE_WAIT_S + 2)


async def _together(coroutines) -> None:
    await asyncio.gather(*coroutines)


@contextlib.asynccontextmanager
async def _http(url: str, headers: dict[str, str], make_client, transport):
    async with make_client(headers=headers) as client:
        async with transport(url, http_client=client) as streams:
            yield streams[0], streams[1]


async def _call(session, name: str, arguments: dict[str, Any], meta, timeout_s: float) -> Any:
    import anyio

    with anyio.fail_after(timeout_s):
        return await session.call_tool(name, arguments, meta=meta)


async def _first_of(*waits) -> None:
    """Wait until the first of `waits` (coroutines) is done; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


async def _list_tools(session, tally: Tally) -> list[dict[str, Any]]:
    from mcp.types import PaginatedRequestParams

    tools, cursor = [], None
    for _ in range(100):  # pages: a server that never stops paging is cut short
        listed = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools += [{"name": tool.name, "description": tool.description or "",
                   "inputSchema": sdk_field(tool, "input_schema", "inputSchema")} for tool in listed.tools]
        cursor = sdk_field(listed, "next_cursor", "nextCursor")
        if not cursor or tally.past_limit:
            break
    return tools


class _Relay(logging.Handler):
    """The SDK's warnings and errors (a line a server wrongly printed on stdout, a failed DELETE)
    as one line each of ours, shown under --verbose: never a traceback on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        text = " ".join(record.getMessage().split())[:500]
        log.info("MCP SDK (%s): %s", record.name, text)


def _relay_sdk_log() -> None:
    sdk = logging.getLogger("mcp")
    if not any(isinstance(handler, _Relay) for handler in sdk.handlers):
        sdk.addHandler(_Relay(logging.WARNING))
        sdk.propagate = False


def sdk_field(value: Any, name: str, old_name: str) -> Any:
    """A field of an SDK object by its name in mcp 2 (snake case) or mcp 1 (camel case)."""
    return getattr(value, name, None) if hasattr(value, name) else getattr(value, old_name, None)


def _closed(exc: BaseException) -> bool:
    """Whether a call failed because the connection closed (the server went away)."""
    return getattr(getattr(exc, "error", None), "code", None) == -32000 or CONNECTION_CLOSED in str(exc)


def _reason(exc: BaseException, stderr: str) -> str:
    """A one-line reason for a failure, with the end of the server's stderr when it has any."""
    inner = exc
    while isinstance(inner, BaseExceptionGroup) and inner.exceptions:  # the SDK's task groups
        inner = inner.exceptions[0]
    said = getattr(getattr(inner, "error", None), "message", None) or str(inner)  # an MCPError says its message
    text = str(said).strip().splitlines()[0] if str(said).strip() else type(inner).__name__
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    return f"{text} ({last[:300]})" if last and last not in text else text
