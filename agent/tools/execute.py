"""The one place tool calls are executed: arguments checked against the schema, the permission
policy consulted, the tool run, and every failure turned into an error result the model sees."""

from __future__ import annotations

import dataclasses
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable

from agent.conversation import ToolCall, tool_result
from agent.errors import AgentError
from agent.hooks import events as hooks
from agent.hooks.inputs import tool_response
from agent.tools.approving import decide, modified_note, with_note
from agent.tools.arguments import argument_problem
from agent.tools.base import Tool, ToolError
from agent.tools.shell import redact_secrets

log = logging.getLogger("agent")

__all__ = ["argument_problem", "by_name", "execute", "execute_all"]


def execute(call: ToolCall, tools: dict[str, Tool], context: Any) -> dict[str, Any]:
    """Run one tool call and return its tool_result block; every failure becomes an error result.
    The one place a call is decided: its arguments checked, then the PreToolUse hooks (which may
    deny it, ask about it, approve what would need approval, or replace its input), then the
    permission policy and the approver (`agent.tools.approving`: its answer may replace the input
    too, and the model is told so); after it ran, the PostToolUse hooks see its result. Once the
    turn is interrupted (an approver's refusal may interrupt it), the calls left are not run."""
    session = getattr(context, "session", None)
    cancelled = getattr(session, "cancelled", None)
    if cancelled is not None and cancelled.is_set():
        return _error(call, f"{call.name} was not run: the turn was interrupted.")
    tool = tools.get(call.name)
    if tool is None:
        available = ", ".join(tools) or "none"
        return _error(call, f"unknown tool {call.name!r}; available tools: {available}")
    if call.arguments_error:
        return _error(call, f"{call.name}: {call.arguments_error}")
    problem = argument_problem(call.arguments, tool.parameters)
    if problem:
        return _error(call, f"{call.name}: {problem}")
    gate = hooks.pre_tool_use(session, getattr(context, "agent", None), call.id, call.name, call.arguments)
    if gate.decision == "deny":
        session.record_denial(call.name, call.id, call.arguments)
        return _error(call, gate.message)
    if gate.updated_input is not None:  # judged, run and recorded as the hook changed it
        call = dataclasses.replace(call, arguments=gate.updated_input)
        if problem := argument_problem(call.arguments, tool.parameters):
            return _error(call, f"{call.name}: the input a PreToolUse hook gave does not fit: {problem}")
    decided = decide(call, tool, context, gate)
    if decided.refusal:
        return _error(call, decided.refusal)
    asked = call.arguments  # what the approver was asked about: a recording keeps the run under it
    changed = decided.arguments is not asked
    if changed:
        call = dataclasses.replace(call, arguments=decided.arguments)
    if "call_id" in getattr(context, "__dataclass_fields__", {}):
        context = dataclasses.replace(context, call_id=call.id)  # so a subagent knows which call started it
    started = time.monotonic()
    result = _recorded_run(call, tool, context, decided.approval, asked)
    if getattr(session, "hooks", None) is not None:
        response = tool_response(call.name, call.arguments, result.get("content", ""), context.workspace.cwd)
        result = hooks.post_tool_use(session, context.agent, call.id, call.name, call.arguments, result, response,
                                     int((time.monotonic() - started) * 1000))
    return with_note(result, modified_note(call.name, call.arguments)) if changed else result


def _recorded_run(call: ToolCall, tool: Tool, context: Any, approval: Any, asked: dict[str, Any]) -> dict[str, Any]:
    """Run the call; recording, the session keeps what it returned (and the approval that let it
    run), under the input its approver was asked about (`asked`); with --replay-tools, it answers
    instead (an `in_session` tool runs as well, so the session's own state is as recorded)."""
    tool_runs = getattr(getattr(context, "session", None), "tool_runs", None)
    if tool_runs is not None and tool.in_session and getattr(tool_runs, "replaying", False):
        _run(call, tool, context)  # the session's state as recorded; what the call returned is the cassette's
        return tool_runs(context.agent.name, call.id, call.name, asked, lambda: None, approval)
    if tool_runs is not None and not tool.delegates:
        return tool_runs(context.agent.name, call.id, call.name, asked, lambda: _run(call, tool, context), approval)
    if tool_runs is not None and approval is not None:  # Skill, Agent: no run of their own holds the approval
        tool_runs.decided(context.agent.name, call.id, call.name, asked, approval)
    return _run(call, tool, context)


def _run(call: ToolCall, tool: Tool, context: Any) -> dict[str, Any]:
    try:
        output = tool.run(call.arguments, context)
    except ToolError as exc:
        return _error(call, str(exc))
    except AgentError:
        raise
    except Exception as exc:  # a bug or an OS failure in one tool must not end the run
        return _error(call, f"{call.name} failed: {type(exc).__name__}: {exc}")
    log.info("tool %s %s -> %d chars", call.name, _brief(call.arguments), len(output))
    return tool_result(call.id, redact_secrets(output))


def execute_all(calls: list[ToolCall], tools: dict[str, Tool], context: Any) -> list[dict[str, Any]]:
    """Run every call of a reply and return their results in call order. Consecutive calls of
    `parallel` tools (subagents) run concurrently; everything else runs one after another."""
    results: list[dict[str, Any]] = []
    start = 0
    while start < len(calls):
        end = start
        while end < len(calls) and _is_parallel(calls[end], tools):
            end += 1
        if end - start > 1:
            results.extend(_execute_parallel(calls[start:end], tools, context))
            start = end
        else:
            results.append(execute(calls[start], tools, context))
            start += 1
    return results


def _execute_parallel(calls: list[ToolCall], tools: dict[str, Tool], context: Any) -> list[dict[str, Any]]:
    pool = ThreadPoolExecutor(max_workers=len(calls))
    try:
        futures = [pool.submit(execute, call, tools, context) for call in calls]
        results = [future.result() for future in futures]
    except BaseException:  # Ctrl-C: the others stop at their next step instead of being waited for
        context.session.cancelled.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def _is_parallel(call: ToolCall, tools: dict[str, Tool]) -> bool:
    tool = tools.get(call.name)
    return bool(tool and tool.parallel)


def _error(call: ToolCall, message: str) -> dict[str, Any]:
    log.info("tool %s %s -> error: %s", call.name, _brief(call.arguments), message)
    return tool_result(call.id, redact_secrets(message), is_error=True)


def _brief(arguments: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return f"({text[:200]}{'...' if len(text) > 200 else ''})"


def by_name(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Tools keyed by name, in offering order."""
    return {tool.name: tool for tool in tools}

