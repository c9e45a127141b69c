"""What the Agent SDK's connection lends the layers below the command line, which never see it:
the caller of the SDK's hook callbacks (for agent.hooks) and the relay to the SDK's in-process MCP
servers (for agent.mcp). Each is one control request to the SDK (`hook_callback`,
`mcp_message`), its failures turned into the lower layer's own."""

from __future__ import annotations

import argparse
import time
from typing import Any


def sdk_hooks(args: argparse.Namespace):
    """The hook callbacks the SDK's `initialize` registered (a HookSet, empty without any) and
    what fires them (None when no SDK is connected)."""
    from agent.hooks.callbacks import read_callbacks
    from agent.hooks.config import HookSet

    channel = getattr(args, "sdk_channel", None)
    registered = getattr(args, "sdk_hooks", None)
    callbacks = read_callbacks(registered) if registered else HookSet()
    return callbacks, hook_caller(channel) if channel is not None else None


def hook_caller(channel):
    """`call(callback_id, hook_input, tool_use_id, timeout_s)` for agent.hooks.callbacks: the
    SDK's answer, or CallbackFailed (its error, no answer in time, the connection gone)."""
    from agent.cli.sdk.channel import ChannelClosed, SdkError
    from agent.hooks.callbacks import CallbackFailed

    def call(callback_id: str, hook_input: dict[str, Any], tool_use_id: Any, timeout_s: float) -> Any:
        request: dict[str, Any] = {"subtype": "hook_callback", "callback_id": callback_id, "input": hook_input}
        if tool_use_id is not None:
            request["tool_use_id"] = tool_use_id
        started = time.monotonic()
        try:
            return channel.request(request, timeout_s)
        except SdkError as error:
            raise CallbackFailed(str(error)) from None
        except ChannelClosed as error:  # its timeout, or the SDK gone (or an interrupt) before that
            timed_out = not channel.closed.is_set() and time.monotonic() - started >= timeout_s
            raise CallbackFailed(str(error), timed_out) from None
    return call


def mcp_relay(channel, timeout_s: float):
    """`relay(server, message)` for agent.mcp's sdk transport: one JSON-RPC message to the SDK's
    server `server`, and the SDK's `mcp_response` (None when it sent none), or RelayFailed. No
    message waits longer than `timeout_s`."""
    from agent.cli.sdk.channel import ChannelClosed, SdkError
    from agent.mcp.relayed import RelayFailed

    def relay(server: str, message: dict[str, Any]) -> Any:
        try:
            answer = channel.request({"subtype": "mcp_message", "server_name": server, "message": message}, timeout_s)
        except (SdkError, ChannelClosed) as error:
            raise RelayFailed(str(error)) from None
        return answer.get("mcp_response")
    return relay
