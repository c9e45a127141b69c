"""How a call is decided before it runs: the running agent's permission policy, what a PreToolUse
hook said, and the session's approver, with what the approver's answer carries (see
`agent.record.approvals.Approval`): an input to run instead of the one asked about (checked
again like a hook's: it must fit the schema, and a deny rule, a sensitive file or a command the
analysis cannot be sure of still refuses it, for nobody was asked about that input), permission
updates for the rest of the session, or a refusal's own words and an interrupt that stops the turn."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any, NamedTuple

from agent.conversation import ToolCall
from agent.hooks import events as hooks
from agent.permissions.policy import Decision
from agent.tools.arguments import argument_problem
from agent.tools.base import Tool
from agent.tools.permission_updates import apply_updates

log = logging.getLogger("agent")

NOT_ALLOWED = "The user did not allow this {tool} call. Do not try it again; ask the user or do something else."
ASKED_KINDS = ("approval", "ask", "could_ask", "sensitive", "uncertain")  # what an approver may be asked about
_ANY_YES_COVERS = ("approval", "ask", "could_ask")  # what an approver's yes covers, whatever input it gave
_MODIFIED = {  # what Claude Code tells the model when the approver changed the call's input
    "Write": "The user modified your proposed content before accepting it.",
    "Edit": "The user modified your proposed changes before accepting them.",
}
_SHOWN_INPUT_CHARS = 2000

# A call a PreToolUse hook asks about: asked like an ask rule's, refused with the hook's reason in -p.
_HOOK_ASKS = Decision(False, "", "ask")


class Decided(NamedTuple):
    """What `decide` found: why the call may not run (its result for the model) or None, the
    approval that let it run when one was asked, and the input it runs with."""

    refusal: str | None
    approval: Any
    arguments: dict[str, Any]


class Question(NamedTuple):
    """What an approver that `wants_question` is told besides the call: the policy's decision (why
    it needs approval, the rule that would approve it, a path outside the workspace), the agent
    making the call (an AgentSpec) and the workspace."""

    decision: Decision
    agent: Any
    cwd: Path


def decide(call: ToolCall, tool: Tool, context: Any, gate: Any = None) -> Decided:
    """Whether the running agent's permission policy lets this call run. A call that needs approval
    (or matches an ask rule, or changes a sensitive file, or a PreToolUse hook asks about) is put
    to the session's `approver` when it has one (`approver(agent, call_id, tool, arguments)`: the
    person in interactive mode, the Agent SDK, a replay's recorded answers): once, always (its rule
    is added for the rest of the session), or no. With no approver, or no answer (a replay whose
    recording was not asked), nobody can be asked, as in -p mode, and such a call is refused; so it
    is in dontAsk mode, which never asks (nor does a plan-mode subagent that declared dontAsk). A
    hook's allow stands in for the approval a call needs, never for a deny or an ask rule, a
    sensitive file or a command the analysis cannot be sure of."""
    policy = getattr(getattr(context, "agent", None), "policy", None)
    hook_says = getattr(gate, "decision", None)
    if policy is None and hook_says != "ask":
        return Decided(None, None, call.arguments)
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
            log.info("tool %s: approved by a PreToolUse hook", call.name)
            return Decided(None, None, call.arguments)
        decision = dataclasses.replace(_HOOK_ASKS, reason=gate.message)
    if decision.allowed:
        return Decided(None, None, call.arguments)
    approver = getattr(session, "approver", None) if getattr(policy, "asks", True) else None  # dontAsk asks no one
    approval = _ask(approver, call, context, decision) if approver is not None and decision.kind in ASKED_KINDS else None
    if approval is None:
        session.record_denial(call.name, call.id, call.arguments)
        return Decided(decision.reason, None, call.arguments)
    if approval.answer == "always":
        _approve_always(call, decision, session)
    if approval.answer in ("once", "always"):
        return _granted(call, tool, context, decision, approval)
    return _refused(call, context, approval, approval.message or NOT_ALLOWED.format(tool=call.name))


def _granted(call: ToolCall, tool: Tool, context: Any, decision: Decision, approval: Any) -> Decided:
    """An approver's yes: its permission updates applied, and the call run with the input it gave,
    unless that input does not fit the tool or is one no yes could cover (see the module docstring)."""
    if approval.updates:
        apply_updates(approval.updates, context.session, context.agent)
    given = approval.input
    if given is None or given == call.arguments:
        return Decided(None, approval, call.arguments)
    if problem := argument_problem(given, tool.parameters):
        return _refused(call, context, approval, f"{call.name}: the input the permission answer gave does not fit: {problem}")
    if refusal := _refused_anyway(call.name, given, tool, context, decision):
        return _refused(call, context, approval, refusal)
    log.info("tool %s: runs with the input its approver gave", call.name)
    return Decided(None, approval, given)


def _refused_anyway(name: str, given: dict[str, Any], tool: Tool, context: Any, asked: Decision) -> str | None:
    """Why the policy refuses the input an approver gave, though it said yes: a deny rule (or plan
    mode) refuses it, or it is a sensitive file or an uncertain command the approver was not asked
    about (a yes covers only the one its question named); None when its yes covers it."""
    policy = getattr(context.agent, "policy", None)
    if policy is None:
        return None
    if context.session.approved:
        policy = policy.with_allowed(context.session.approved)
    again = policy.check(name, given, tool.read_only)
    if again.allowed or again.kind in _ANY_YES_COVERS or (again.kind == asked.kind and again.reason == asked.reason):
        return None
    return again.reason


def _refused(call: ToolCall, context: Any, approval: Any, refusal: str) -> Decided:
    """A call the approver's answer refused (or whose given input cannot run): a recording keeps
    the decision, so that its replays decide alike; it is a permission denial of the run; an
    interrupt stops the turn once its calls are answered."""
    session = context.session
    tool_runs = getattr(session, "tool_runs", None)
    if tool_runs is not None:
        tool_runs.decided(context.agent.name, call.id, call.name, call.arguments, approval)
    session.record_denial(call.name, call.id, call.arguments)
    if approval.interrupt:
        log.info("tool %s: refused, and the turn interrupted, by its approver", call.name)
        session.cancelled.set()
    return Decided(refusal, None, call.arguments)


def _ask(approver: Any, call: ToolCall, context: Any, decision: Decision) -> Any:
    """The approver's answer about `call`; Notification hooks hear of the question just before a
    person is asked. An approver that asks nobody now (a replay's recorded answers) has them hear
    of it only where it answers (where the recording asked someone), as its hooks did then. One
    that `wants_question` is told the decision too."""
    def notify() -> None:
        hooks.notification(context.session, context.agent, f"Claude needs your permission to use {call.name}",
                           "permission_prompt")

    told = {"question": Question(decision, context.agent, context.workspace.cwd)} \
        if getattr(approver, "wants_question", False) else {}
    if getattr(approver, "asks_nobody", False):
        approval = approver(context.agent.name, call.id, call.name, call.arguments, **told)
        if approval is not None:
            notify()
        return approval
    notify()
    return approver(context.agent.name, call.id, call.name, call.arguments, **told)


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


def modified_note(name: str, arguments: dict[str, Any]) -> str:
    """What the model is told after a call ran with the input its approver gave instead of its
    own: Claude Code's sentence for a file edit; for another tool, the input it ran with."""
    if name in _MODIFIED:
        return _MODIFIED[name]
    shown = json.dumps(arguments, ensure_ascii=False)
    shown = shown if len(shown) <= _SHOWN_INPUT_CHARS else shown[:_SHOWN_INPUT_CHARS] + "..."
    return f"The user modified your proposed input before accepting it; the call ran with: {shown}"


def with_note(result: dict[str, Any], note: str) -> dict[str, Any]:
    """`result` (a tool_result block) with `note` after its text (or as a last text block)."""
    content = result.get("content", "")
    if isinstance(content, list):
        return {**result, "content": [*content, {"type": "text", "text": note}]}
    return {**result, "content": f"{content}\n\n{note}" if content else note}
