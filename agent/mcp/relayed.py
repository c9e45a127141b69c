"""The transport of an `sdk` server: one that lives inside the Agent SDK's program
(`create_sdk_mcp_server`), which Claude Code reaches by sending each raw JSON-RPC message inside an
`mcp_message` control request and reading the SDK's `mcp_response`. Here it is a pair of memory
streams the `mcp` SDK's ClientSession talks to as to any transport: each message it writes is
handed to `relay(server, message)` (lent by the command line, which owns the SDK's connection)
in a worker thread, and the answer to a request is fed back as the server's response; a
notification gets none. So everything else (the handshake, listing and cleaning the tools,
calls and their timeouts, recording) is the same as for a stdio or HTTP server.

The answer comes from another program: it must be a JSON-RPC response to that very request,
bounded in depth, or the request fails with an error response naming what was wrong."""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable

from agent.workspace import deeper_than

log = logging.getLogger("agent")

MAX_DEPTH = 100  # a listing holds schemas of MAX_SCHEMA_DEPTH levels, a few levels down
INTERNAL_ERROR = -32603  # JSON-RPC's code for an error of the server's side
IN_FLIGHT = 16  # messages buffered each way: the session writes far fewer at once

Relay = Callable[[str, dict[str, Any]], Any]


class RelayFailed(Exception):
    """A message the relay could not deliver or got no answer to (the SDK refused it, went away,
    or did not answer in time)."""


@contextlib.asynccontextmanager
async def relayed(server: str, relay: Relay):
    """(read, write) streams for a ClientSession talking to the SDK's server `server`."""
    import anyio
    import anyio.to_thread

    to_session, read = anyio.create_memory_object_stream(IN_FLIGHT)
    write, from_session = anyio.create_memory_object_stream(IN_FLIGHT)

    async def forward(item) -> None:
        message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        request_id = message.get("id") if "method" in message else None  # a response of ours needs no answer either
        try:
            answer = await anyio.to_thread.run_sync(relay, server, message, abandon_on_cancel=True)
            reply = _reply(answer, request_id) if request_id is not None else None
        except RelayFailed as failure:
            if request_id is None:
                log.info("MCP server %s: the Agent SDK did not take a notification: %s", server, failure)
                return
            reply = _error(request_id, f"the Agent SDK did not deliver it: {failure}")
        if reply is not None:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):  # the session has ended
                await to_session.send(reply)

    async def pump(tasks) -> None:
        async with from_session:
            async for item in from_session:
                tasks.start_soon(forward, item)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump, tasks)
        try:
            yield read, write
        finally:
            tasks.cancel_scope.cancel()  # a message still with the SDK is abandoned: its thread ends at its timeout
            for stream in (to_session, read, write):
                await stream.aclose()


def _reply(answer: Any, request_id: Any):
    """The SDK's answer as the session reads it: the response to `request_id`, or an error one."""
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, JSONRPCResponse, jsonrpc_message_adapter

    if not isinstance(answer, dict):
        return _error(request_id, "the Agent SDK answered without a JSON-RPC response")
    if deeper_than(answer, MAX_DEPTH):
        return _error(request_id, f"the Agent SDK's answer nests deeper than {MAX_DEPTH} levels")
    try:
        parsed = jsonrpc_message_adapter.validate_python(answer, by_name=False)
    except ValueError as error:
        return _error(request_id, f"the Agent SDK's answer is not a JSON-RPC message ({str(error).splitlines()[0][:200]})")
    if not isinstance(parsed, (JSONRPCResponse, JSONRPCError)) or parsed.id != request_id:
        return _error(request_id, "the Agent SDK's answer is not the response to this request")
    return SessionMessage(parsed)


def _error(request_id: Any, message: str):
    from mcp.shared.message import SessionMessage
    from mcp.types import ErrorData, JSONRPCError

    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=INTERNAL_ERROR, message=message)))
