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
from agent.permissions.policy import Decision
from agent.hooks import events as hooks
from agent.hooks.inputs import tool_response
from agent.tools.base import Tool, ToolError
from agent.tools.shell import redact_secrets

log = logging.getLogger("agent")

_JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
}


def argument_problem(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """Why `arguments` do not fit the tool's schema, or None when they do."""
    properties = schema.get("properties", {})
    missing = [name for name in schema.get("required", []) if name not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    for name, value in arguments.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                return f"unknown argument {name!r}; expected: {', '.join(properties)}"
            continue
        # an MCP server's schema may type a property as a list of types, or not be an object at all
        expected = properties[name].get("type") if isinstance(properties[name], dict) else None
        python_type = _JSON_TYPES.get(expected) if isinstance(expected, str) else None
        # bool is an int in Python, but not in JSON
        wrong_bool = expected in ("integer", "number") and isinstance(value, bool)
        if python_type and (not isinstance(value, python_type) or wrong_bool):
            return f"argument {name!r} must be of type {expected}, got {type(value).__name__}"
    return None


def execute(call: ToolCall, tools: dict[str, Tool], context: Any) -> dict[str, Any]:
    """Run one tool call and return its tool_result block; every failure becomes an error result.
    The one place a call is decided: its arguments checked, then the PreToolUse hooks (which may
    deny it, ask about it, approve what would need approval, or replace its input), then the
    permission policy and the approver; after it ran, the PostToolUse hooks see its result."""
    tool = tools.get(call.name)
    if tool is None:
        available = ", ".join(tools) or "none"
        return _error(call, f"unknown tool {call.name!r}; available tools: {available}")
    if call.arguments_error:
        return _error(call, f"{call.name}: {call.arguments_error}")
    problem = argument_problem(call.arguments, tool.parameters)
    if problem:
        return _error(call, f"{call.name}: {problem}")
    session = getattr(context, "session", None)
    gate = hooks.pre_tool_use(session, getattr(context, "agent", None), call.id, call.name, call.arguments)
    if gate.decision == "deny":
        session.record_denial(call.name, call.id, call.arguments)
        return _error(call, gate.message)
    if gate.updated_input is not None:  # judged, run and recorded as the hook changed it
        call = dataclasses.replace(call, arguments=gate.updated_input)
        if problem := argument_problem(call.arguments, tool.parameters):
            return _error(call, f"{call.name}: the input a PreToolUse hook gave does not fit: {problem}")
    refusal, approval = _permission_refusal(call, tool, context, gate)
    if refusal:
        return _error(call, refusal)
    if "call_id" in getattr(context, "__dataclass_fields__", {}):
        context = dataclasses.replace(context, call_id=call.id)  # so a subagent knows which call started it
    started = time.monotonic()
    result = _recorded_run(call, tool, context, approval)
    if getattr(session, "hooks", None) is None:
        return result
    response = tool_response(call.name, call.arguments, result.get("content", ""), context.workspace.cwd)
    return hooks.post_tool_use(session, context.agent, call.id, call.name, call.arguments, result, response,
                               int((time.monotonic() - started) * 1000))


def _recorded_run(call: ToolCall, tool: Tool, context: Any, approval: Any) -> dict[str, Any]:
    """Run the call; recording, the session keeps what it returned (and the approval that let it
    run); with --replay-tools, it answers instead."""
    tool_runs = getattr(getattr(context, "session", None), "tool_runs", None)
    if tool_runs is not None and not tool.delegates:
        return tool_runs(context.agent.name, call.id, call.name, call.arguments, lambda: _run(call, tool, context),
                         approval)
    if tool_runs is not None and approval is not None:  # Skill, Agent: no run of their own holds the approval
        tool_runs.decided(context.agent.name, call.id, call.name, call.arguments, approval)
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


def _permission_refusal(call: ToolCall, tool: Tool, context: Any, gate: Any = None) -> tuple[str | None, Any]:
    """Why the running agent's permission policy refuses this call (None when it may run), and
    the approval that let it run when one was asked. A call that needs approval (or matches an ask
    rule, or changes a sensitive file, or a PreToolUse hook asks about) is put to the session's
    `approver` when it has one (`approver(agent, call_id, tool, arguments)`: the person in
    interactive mode, a replay's recorded answers): once, always (its rule is added for the rest of
    the session), or no. With no approver, or no answer (a replay whose recording was not asked),
    nobody can be asked, as in -p mode, and such a call is refused; so it is in dontAsk mode, which
    never asks (nor does a plan-mode subagent that declared dontAsk). A hook's allow stands in for
    the approval a call needs, never for a deny or an ask rule, a sensitive file or a command the
    analysis cannot be sure of."""
    policy = getattr(getattr(context, "agent", None), "policy", None)
    hook_says = getattr(gate, "decision", None)
    if policy is None and hook_says != "ask":
        return None, None
    session = context.session
    if policy is None:
        decision = _HOOK_ASKS
    else:
        if session.approved:
            policy = policy.with_allowed(session.approved)
        decision = policy.check(call.name, call.arguments, tool.read_only)
    if decision.allowed and hook_says == "ask":
        decision = dataclasses.replace(_HOOK_ASKS, reason=gate.message)
    elif not decision.allowed and decision.kind == "approval" and hook_says in ("allow", "ask"):
        if hook_says == "allow":
            log.info("tool %s %s: approved by a PreToolUse hook", call.name, _brief(call.arguments))
            return None, None
        decision = dataclasses.replace(_HOOK_ASKS, reason=gate.message)
    if decision.allowed:
        return None, None
    approver = getattr(session, "approver", None) if getattr(policy, "asks", True) else None  # dontAsk asks no one
    approval = None
    if approver is not None and decision.kind in ("approval", "ask", "could_ask", "sensitive", "uncertain"):
        approval = _ask(approver, call, context)
    if approval is not None:
        if approval.answer == "always":
            _approve_always(call, decision, session)
        if approval.answer in ("once", "always"):
            return None, approval
        tool_runs = getattr(session, "tool_runs", None)
        if tool_runs is not None:  # a recording keeps the refusal, so that its replays refuse it too
            tool_runs.decided(context.agent.name, call.id, call.name, call.arguments, approval)
        session.record_denial(call.name, call.id, call.arguments)
        return f"The user did not allow this {call.name} call. Do not try it again; ask the user or do something else.", None
    session.record_denial(call.name, call.id, call.arguments)
    return decision.reason, None


def _ask(approver: Any, call: ToolCall, context: Any) -> Any:
    """The approver's answer about `call`; Notification hooks hear of the question just before a
    person is asked. A replay's recorded answers ask nobody: they hear of it only where the
    recording asked someone (a recorded answer), as its hooks did then."""
    def notify() -> None:
        hooks.notification(context.session, context.agent, f"Claude needs your permission to use {call.name}",
                           "permission_prompt")

    if getattr(approver, "recorded", False):
        approval = approver(context.agent.name, call.id, call.name, call.arguments)
        if approval is not None:
            notify()
        return approval
    notify()
    return approver(context.agent.name, call.id, call.name, call.arguments)


# A call a PreToolUse hook asks about: asked like an ask rule's, refused with the hook's reason in -p.
_HOOK_ASKS = Decision(False, "", "ask")


def _approve_always(call: ToolCall, decision: Any, session: Any) -> None:
    """An "always": the decision's suggested rule approves the rest of the session's calls it
    covers, unless no rule could (an ask rule, a sensitive file, nothing narrower than all of Bash)."""
    if decision.kind in ("ask", "could_ask"):  # ask rules win over allow rules
        log.warning(f"approved once: an ask rule matches this {call.name} call, so it is asked about every time")
    elif decision.kind == "sensitive":  # only a rule naming the file would do
        log.warning(f"approved once: this {call.name} call changes a sensitive file, so it is asked about every time")
    elif decision.suggestion in ("", "Bash"):  # it would approve every command
        log.warning(f"approved once: no rule narrower than all of {call.name} approves this call")
    else:
        with session.lock:  # every agent of the session, running or started later, sees it
            session.approved = (*session.approved, decision.suggestion)


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

