"""The Agent SDK's hook callbacks: Python (or TypeScript) functions the SDK's program registered
in its `initialize` request, `{Event: [{"matcher": ..., "hookCallbackIds": ["hook_0"], "timeout":
seconds}]}`, that fire at their moments exactly as command hooks do (same matching, same input),
each firing one `hook_callback` request to the SDK whose answer is read as a command hook's JSON
stdout: `{}` is no opinion, a `permissionDecision: "deny"` blocks the call, an error is a
non-blocking hook error, and a callback that does not answer within its timeout is ignored.

The hooks layer does not know how the SDK is reached: the command line hands the engine a `call`
(`call(callback_id, hook_input, tool_use_id, timeout_s)` returns the answer object or raises
CallbackFailed). The answer comes from another program, so it is bounded in size and depth and
must be an object; anything else is a hook error.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

from agent.hooks.config import DEFAULT_TIMEOUT_S, Group, HookSet, group_parts, read_hooks, timeout_of
from agent.hooks.running import OUTPUT_LIMIT, HookRun
from agent.workspace import deeper_than

log = logging.getLogger("agent")

NAME_PREFIX = "SDK callback "  # how a callback is named where a command hook shows its command
MAX_ID_CHARS = 100
MAX_CALLBACKS = 100  # of one matcher group, as for commands
MAX_ANSWER_DEPTH = 32  # a hook's answer is a few levels deep; updatedInput is a tool's input
MAX_ANSWER_CHARS = OUTPUT_LIMIT  # what a command hook's stdout is cut to

Call = Callable[[str, dict[str, Any], Any, float], Any]


class CallbackFailed(Exception):
    """A callback that gave no answer: the SDK answered with an error (the callback raised, no
    such callback), or nothing came within its timeout (`timed_out`), or the SDK went away."""

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


@dataclass(frozen=True)
class CallbackHook:
    """One of the SDK's hook callbacks: its id in the SDK, its timeout in seconds, and where it
    was registered. `command` is the name it goes by where a command hook shows its command
    (--verbose, stream-json's hook events, a cassette's runs)."""

    callback_id: str
    timeout: float
    source: str

    @property
    def command(self) -> str:
        return NAME_PREFIX + self.callback_id


def read_callbacks(value: Any, where: str = "the Agent SDK's initialize") -> HookSet:
    """The hook groups of an `initialize` request's `hooks` (untrusted: whatever is wrong with a
    piece is one warning, and that piece is left out)."""
    return read_hooks(value, where, _group)


def _group(event: str, entry: Any, label: str, where: str) -> Group | None:
    parts = group_parts(entry, label, "hookCallbackIds")
    if parts is None:
        return None
    matcher, ids = parts
    timeout = timeout_of(entry.get("timeout", DEFAULT_TIMEOUT_S), label)
    if entry.get("onFailure") not in (None, "continue"):  # the SDK checks hook_on_failure_supported first
        log.warning("%s: onFailure %r is not supported; a failing callback does not block", label, entry["onFailure"])
    callbacks = []
    for callback_id in ids[:MAX_CALLBACKS]:
        if isinstance(callback_id, str) and 0 < len(callback_id) <= MAX_ID_CHARS and callback_id.isprintable():
            callbacks.append(CallbackHook(callback_id, timeout, where))
        else:
            log.warning("ignoring a callback of %s: its id is not a short text", label)
    return Group(event, matcher, tuple(callbacks)) if callbacks else None


def is_callback(command: str) -> bool:
    """Whether a hook's name (`command`) is a callback's."""
    return command.startswith(NAME_PREFIX)


def run_callback(call: Call | None, hook: CallbackHook, hook_input: dict[str, Any]) -> HookRun:
    """Fire `hook` with `hook_input` through `call`: its answer as a command hook's run that
    printed it as JSON (exit 0), a failure as one that could not run, a timeout as one."""
    started = time.monotonic()
    if call is None:
        return HookRun(None, "", "no Agent SDK is connected to answer it", 0)
    try:
        answer = call(hook.callback_id, hook_input, hook_input.get("tool_use_id"), hook.timeout)
    except CallbackFailed as failure:
        duration = _since(started)
        if failure.timed_out:
            return HookRun(None, "", "", duration, timed_out=True)
        return HookRun(None, "", f"the Agent SDK's hook callback failed: {str(failure)[:2000]}", duration)
    return _answered(answer, _since(started))


def _answered(answer: Any, duration: int) -> HookRun:
    if not isinstance(answer, dict):
        return HookRun(None, "", "the Agent SDK's hook callback answered with something other than an object", duration)
    if deeper_than(answer, MAX_ANSWER_DEPTH):
        return HookRun(None, "", f"the Agent SDK's hook callback answer nests deeper than {MAX_ANSWER_DEPTH} levels",
                       duration)
    try:
        text = json.dumps(answer, ensure_ascii=False, sort_keys=True)  # sorted: a recording is byte-stable
    except (TypeError, ValueError, RecursionError):
        return HookRun(None, "", "the Agent SDK's hook callback answer is not JSON data", duration)
    if len(text) > MAX_ANSWER_CHARS:
        return HookRun(None, "", f"the Agent SDK's hook callback answer is over {MAX_ANSWER_CHARS} characters; "
                       "it was ignored", duration)
    return HookRun(0, text, "", duration)


def _since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
