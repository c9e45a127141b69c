"""Who decides an SDK session's calls that need approval, as Claude Code 2.1.332 does.

- With `--permission-prompt-tool stdio` (the SDK's `can_use_tool`), the SDK is asked: the session
  goes `requires_action`, the request (`permission_request`) goes out, and the answer is the
  approval (by "sdk"): an allow always carries `updatedInput` (the call runs with it; changed, it
  is checked again and the model is told) and may carry `updatedPermissions` (applied to the
  session only); a deny carries the message the model gets and may interrupt the turn. An answer
  that cannot be read, an error answer (the callback raised) or none at all (stdin closed, an
  interrupt) is a refusal with a message saying so: a decision that cannot be made fails closed.
- A replay answers from the recording (`agent.record.approvals.RecordedApprovals`) and asks nobody.
- Without `can_use_tool`, nobody is asked, and each call refused for want of an answer is also
  told to the SDK as Claude Code tells it: a `system/permission_denied` line.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from agent.cli.output import write_lines
from agent.cli.sdk.channel import ChannelClosed, SdkError
from agent.cli.sdk.permission_request import can_use_tool_request
from agent.permissions.policy import MODES
from agent.permissions.rules import Rule
from agent.record.approvals import MAX_MESSAGE, Approval, updates_problem

log = logging.getLogger("agent")

_UNSUPPORTED_UPDATES = ("replaceRules", "removeRules", "removeDirectories")


def session_approver(asks_sdk: bool, recorded: Any, channel, stream, replayed: Any):
    """The approver of an SDK session: the SDK's `can_use_tool` when it has one (`asks_sdk`) and
    this is no replay (`recorded`: the replayed cassette); a replay's recorded answers
    (`replayed`, or None) otherwise, which without `can_use_tool` also report each call refused
    for want of an answer with a permission_denied line."""
    if asks_sdk:
        return replayed if recorded else SdkApprover(channel, stream)
    return DenialReporter(stream, replayed)


class SdkApprover:
    """`approver(agent, call_id, tool, arguments, question=...) -> Approval` asking the SDK's can_use_tool."""

    wants_question = True  # the request names the suggestions and the blocked path of the decision

    def __init__(self, channel, stream) -> None:
        self.channel = channel
        self.stream = stream

    def __call__(self, agent: str | None, call_id: str | None, tool: str, arguments: Any,
                 question: Any = None) -> Approval:
        request = can_use_tool_request(tool, call_id, arguments, question)
        self.stream.state("requires_action")
        try:
            answer = self.channel.request(request)
        except SdkError as error:
            log.warning("the Agent SDK's can_use_tool failed about %s (%s): refused", tool, error)
            return _refusal(f"The permission check of this {tool} call failed ({error}), so it was not allowed.")
        except ChannelClosed as error:
            log.warning("the Agent SDK gave no answer about %s (%s): refused", tool, error)
            return _refusal(f"No answer came to the permission request for this {tool} call ({error}), "
                            "so it was not allowed.")
        finally:
            self.stream.state("running")
        approval = read_answer(tool, arguments, answer)
        if approval.interrupt and call_id:  # its refusal is its result, not an interrupted run's
            self.stream.refused_calls.add(call_id)
        return approval


class DenialReporter:
    """The approver of an SDK session without `can_use_tool`: it asks nobody; `replayed` (a
    replay's recorded answers, or None) answers where it can, and a call left without an answer
    (refused, as in -p mode) is reported with Claude Code's `system/permission_denied` line."""

    asks_nobody = True
    wants_question = True  # its line gives the refusal's words

    def __init__(self, stream, replayed: Any = None) -> None:
        self.stream = stream
        self.replayed = replayed

    def __call__(self, agent: str | None, call_id: str | None, tool: str, arguments: Any,
                 question: Any = None) -> Approval | None:
        if self.replayed is not None and (approval := self.replayed(agent, call_id, tool, arguments)) is not None:
            return approval
        session = getattr(self.stream, "session", None)
        write_lines([{"type": "system", "subtype": "permission_denied", "tool_name": tool, "tool_use_id": call_id,
                      "message": question.decision.reason if question is not None else "",
                      "uuid": str(uuid.uuid4()), "session_id": getattr(session, "session_id", "")}])
        return None


def read_answer(tool: str, arguments: Any, answer: dict[str, Any]) -> Approval:
    """The approval an SDK's can_use_tool answer gives (untrusted input: anything unreadable refuses)."""
    behavior = answer.get("behavior")
    if behavior == "allow":
        given = answer.get("updatedInput", arguments)
        if not isinstance(given, dict):
            log.warning("the Agent SDK allowed %s with an updatedInput that is not an object: refused", tool)
            return _refusal(f"The permission answer for this {tool} call gave an input that is not an object, "
                            "so the call was not run.")
        return Approval("once", "sdk", None if given == arguments else given,
                        read_updates(answer.get("updatedPermissions")))
    if behavior == "deny":
        message = answer.get("message")
        message = message[:MAX_MESSAGE] if isinstance(message, str) and message.strip() else None
        return Approval("no", "sdk", message=message, interrupt=answer.get("interrupt") is True)
    shown = json.dumps(behavior)[:40]
    log.warning("the Agent SDK's answer about %s has the behavior %s, neither allow nor deny: refused", tool, shown)
    return _refusal(f"The permission answer for this {tool} call was neither allow nor deny ({shown}), "
                    "so it was not allowed.")


def read_updates(value: Any) -> tuple[dict[str, Any], ...]:
    """The SDK's `updatedPermissions` in the plain form an Approval keeps (see
    `agent.record.approvals`). As Claude Code does, one that cannot be read means none is applied
    (warned); the kinds not supported here (replacing or removing rules and folders) are left out
    (warned), the others applied."""
    if value is None:
        return ()
    plain: list[dict[str, Any]] = []
    for update in value if isinstance(value, list) else [None]:
        kind = update.get("type") if isinstance(update, dict) else None
        if kind in _UNSUPPORTED_UPDATES:
            log.warning("the Agent SDK's permission update %s is not supported; it was not applied", kind)
        elif kind == "addRules":
            rules = update.get("rules")
            plain.append({"type": kind, "behavior": update.get("behavior"),
                          "rules": [_rule_text(rule) for rule in rules] if isinstance(rules, list) else None})
        elif kind == "setMode":
            plain.append({"type": kind, "mode": update.get("mode") if update.get("mode") in MODES else None})
        elif kind == "addDirectories":
            plain.append({"type": kind, "directories": update.get("directories")})
        else:
            plain.append({"type": kind})
    if problem := updates_problem(plain):
        log.warning("the Agent SDK's permission updates were not applied: %s", problem)
        return ()
    return tuple(plain)


def _rule_text(value: Any) -> str | None:
    """A rule as the SDK sends it (`{toolName, ruleContent?}`) as settings write it, or None."""
    if not isinstance(value, dict) or not isinstance(value.get("toolName"), str) or not value["toolName"]:
        return None
    content = value.get("ruleContent")
    if content is not None and not isinstance(content, str):
        return None
    return str(Rule(value["toolName"], content))


def _refusal(message: str) -> Approval:
    return Approval("no", "sdk", message=message)
