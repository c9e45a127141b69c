"""The SDK's `can_use_tool` as the session's approver (`--permission-prompt-tool stdio`): a call
that needs approval is put to the SDK's callback, as a person is asked at the terminal, and its
answer is the approval (by "sdk"). No answer (the SDK closed stdin, its callback failed, an
interrupt) is a refusal: a decision that cannot be made fails closed."""

from __future__ import annotations

import logging
from typing import Any

from agent.cli.sdk.channel import ChannelClosed, SdkError
from agent.record.approvals import Approval

log = logging.getLogger("agent")


def sdk_approver(channel, stream):
    """`approver(agent, call_id, tool, arguments) -> Approval` asking the SDK's can_use_tool."""

    def approve(agent: str | None, call_id: str | None, tool: str, arguments: Any) -> Approval:
        request = {"subtype": "can_use_tool", "tool_name": tool, "display_name": tool, "input": arguments,
                   "permission_suggestions": [], "tool_use_id": call_id}
        if agent and agent != "main":
            request["agent_id"] = agent
        stream.state("requires_action")
        try:
            answer = channel.request(request)
        except (ChannelClosed, SdkError) as error:
            log.warning("the Agent SDK gave no answer about %s (%s): refused", tool, error)
            return Approval("no", "sdk")
        finally:
            stream.state("running")
        if answer.get("behavior") == "allow":
            return Approval("once", "sdk")
        return Approval("no", "sdk")

    return approve
