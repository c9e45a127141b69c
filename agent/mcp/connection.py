"""A connection to one MCP server through the official `mcp` SDK: started (initialize, then its
tool list) within a time limit, called synchronously from any thread, restarted on the next call
after the server died (as Claude Code does), and closed (a stdio server's process group with it).

All the SDK's asyncio code runs in one task per connection on the background loop
(`agent.mcp.eventloop`): the transport and the session are entered and left in that task, as the
SDK's task groups require; calls from the agent's threads are separate coroutines on that loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from typing import Any

from agent import __version__
from agent.mcp import eventloop
from agent.mcp.config import ServerConfig
from agent.processes.running import command_environment

log = logging.getLogger("agent")

STDERR_KEPT = 64 * 1024  # the last characters of a stdio server's stderr, for --verbose and failures
MAX_TOOLS = 1000  # of one server: a tool list past this is a mistake or an attack
CLOSE_WAIT_S = 5.0


class ServerError(Exception):
    """A server that cannot be reached or that failed a call, with a message for the model or user."""


class Connection:
    """One server's connection. `status` is pending, connected or failed (then `error` says why);
    `tools` is its tool list as the server gave it (dicts: name, description, inputSchema)."""

    def __init__(self, config: ServerConfig, cwd: str):
        self.config = config
        self.cwd = cwd
        self.status = "pending"
        self.error = ""
        self.tools: list[dict[str, Any]] = []
        self.stderr = _Tail()
        self._session = None
        self._closing: asyncio.Event | None = None
        self._task = None
        self._errlog = None
        self._lock = threading.Lock()

    def start(self, timeout_s: float) -> None:
        """Connect and list the server's tools within `timeout_s` seconds; a failure is kept in
        `status` and `error`, never raised."""
        try:
            eventloop.run(self._open(timeout_s), timeout_s + 1)
        except (ServerError, TimeoutError, OSError) as exc:
            self._fail(str(exc) or type(exc).__name__)
        except Exception as exc:  # the SDK's own failures: a server that is not an MCP server
            self._fail(f"{type(exc).__name__}: {exc}")

    async def _open(self, timeout_s: float) -> None:
        started = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._task = asyncio.ensure_future(self._serve(started, self._closing))
        try:
            await asyncio.wait_for(asyncio.shield(started), timeout_s)
        except asyncio.TimeoutError:
            self._closing.set()
            raise ServerError(f"did not start within {timeout_s:g} s") from None

    async def _serve(self, started: asyncio.Future, closing: asyncio.Event) -> None:
        from mcp import ClientSession
        from mcp.types import Implementation

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(
                    read, write, client_info=Implementation(name="claude-code", version=__version__)))
                await session.initialize()
                self.tools = await _list_tools(session)
                self._session, self.status = session, "connected"
                started.set_result(None)
                await closing.wait()
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
            if self._errlog is not None:  # the server is gone: our end of its stderr pipe closes too
                with contextlib.suppress(OSError):
                    self._errlog.close()
                self._errlog = None
            if self.status == "connected":
                self.status = "failed" if not closing.is_set() else "closed"

    def _transport(self):
        config = self.config
        if config.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(command=config.command, args=list(config.args), cwd=self.cwd,
                                           env={**command_environment(), **dict(config.env)})
            self._errlog = self.stderr.writer()
            return stdio_client(params, errlog=self._errlog)
        headers = dict(config.headers)
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(config.url, headers=headers)
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        return _http(config.url, headers, create_mcp_http_client, streamable_http_client)

    def call(self, name: str, arguments: dict[str, Any], timeout_s: float, tool_use_id: str | None = None,
             start_timeout_s: float = 30.0) -> Any:
        """Call the server's tool `name`; returns the SDK's CallToolResult. A server that died is
        started again first. Raises ServerError (connection closed, no answer in time)."""
        with self._lock:
            if self._session is None and self.status in ("failed", "closed", "connected"):
                log.info("MCP server %s: starting it again", self.config.name)
                self.status, self.error = "pending", ""
                self.start(start_timeout_s)
            session = self._session
        if session is None:
            raise ServerError(self.error or "Connection closed")
        meta = {"claudecode/toolUseId": tool_use_id} if tool_use_id else None
        try:
            return eventloop.run(session.call_tool(name, arguments, meta=meta), timeout_s)
        except TimeoutError:
            raise ServerError(f"the MCP server {self.config.name} did not answer within {timeout_s:g} s "
                              "(MCP_TOOL_TIMEOUT)") from None
        except Exception as exc:
            if self._session is None:  # it died during the call
                raise ServerError("Connection closed") from None
            raise ServerError(_reason(exc, "")) from None

    def close(self) -> None:
        """Stop the connection (and a stdio server's process group); waits a few seconds at most."""
        closing, task = self._closing, self._task
        if closing is None or task is None:
            return
        loop = eventloop.loop()
        loop.call_soon_threadsafe(closing.set)

        async def wait() -> None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(task), CLOSE_WAIT_S)

        with contextlib.suppress(Exception):
            eventloop.run(wait(), CLOSE_WAIT_S + 1)
        self.status = "closed" if self.status == "connected" else self.status

    def _fail(self, why: str) -> None:
        self.status, self.error = "failed", why
        self.close()


@contextlib.asynccontextmanager
async def _http(url: str, headers: dict[str, str], make_client, transport):
    async with make_client(headers=headers) as client:
        async with transport(url, http_client=client) as streams:
            yield streams[0], streams[1]


async def _list_tools(session) -> list[dict[str, Any]]:
    tools, cursor = [], None
    while True:
        listed = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
        for tool in listed.tools:
            schema = sdk_field(tool, "input_schema", "inputSchema")
            tools.append({"name": tool.name, "description": tool.description or "",
                          "inputSchema": schema if isinstance(schema, dict) else {"type": "object"}})
        cursor = sdk_field(listed, "next_cursor", "nextCursor")
        if not cursor or len(tools) >= MAX_TOOLS:
            return tools[:MAX_TOOLS]


def sdk_field(value: Any, name: str, old_name: str) -> Any:
    """A field of an SDK object by its name in mcp 2 (snake case) or mcp 1 (camel case)."""
    return getattr(value, name, None) if hasattr(value, name) else getattr(value, old_name, None)


def _reason(exc: BaseException, stderr: str) -> str:
    """A one-line reason for a failure, with the end of the server's stderr when it has any."""
    inner = exc
    while isinstance(inner, BaseExceptionGroup) and inner.exceptions:  # the SDK's task groups
        inner = inner.exceptions[0]
    text = str(inner).strip().splitlines()[0] if str(inner).strip() else type(inner).__name__
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    return f"{text} ({last[:300]})" if last and last not in text else text


class _Tail:
    """A stdio server's stderr: read from a pipe in a thread, keeping only the last STDERR_KEPT
    characters (a chatty server must not fill memory)."""

    def __init__(self) -> None:
        self._text = ""
        self._lock = threading.Lock()

    def writer(self):
        read_fd, write_fd = os.pipe()
        threading.Thread(target=self._pump, args=(read_fd,), daemon=True).start()
        return os.fdopen(write_fd, "w", closefd=True)

    def _pump(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            for chunk in iter(lambda: pipe.read1(65536), b""):
                with self._lock:
                    self._text = (self._text + chunk.decode("utf-8", errors="replace"))[-STDERR_KEPT:]

    def text(self) -> str:
        with self._lock:
            return self._text
