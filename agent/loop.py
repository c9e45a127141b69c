"""The agent loop: one function, used by the main conversation and by every subagent."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.conversation import Usage
from agent.tools.base import Tool
from agent.tools.execute import execute_all


@dataclass
class AgentSpec:
    """What runs a conversation: its system prompt, tools, model and turn limit."""

    name: str
    system: str
    tools: dict[str, Tool]
    model: str
    max_turns: int
    depth: int = 0  # 0 is the main conversation; each subagent level adds one
    transcript: Any = None  # agent.transcript.Transcript, or None when not persisting
    policy: Any = None  # agent.permissions.Policy: what this agent may run without asking


@dataclass
class Result:
    """How a conversation ended."""

    text: str
    subtype: str  # "success" or "error_max_turns"
    turns: int
    usage: Usage = field(default_factory=Usage)
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_error(self) -> bool:
        return self.subtype != "success"


@dataclass(frozen=True)
class ToolContext:
    """What a running tool can reach: the session (workspace, client, skills) and its agent."""

    session: Any
    agent: AgentSpec

    @property
    def workspace(self):
        return self.session.workspace


REPEAT_WARNING_AFTER = 3  # identical consecutive calls before the model is told to change course


def run_loop(agent: AgentSpec, messages: list[dict[str, Any]], session: Any) -> Result:
    """Send, append the reply, run every tool call it makes, and repeat until a reply has no tool
    calls (success) or `agent.max_turns` replies have been received (error_max_turns)."""
    usage = Usage()
    schemas = [tool.schema() for tool in agent.tools.values()]
    context = ToolContext(session, agent)
    repeats = _RepeatWatch()
    for message in messages:
        _record(agent, message)
    text = ""
    for turn in range(1, agent.max_turns + 1):
        reply = session.client.complete(agent.system, messages, schemas, agent.model, agent.name)
        usage.add(reply.usage)
        _record(agent, _append(messages, reply.as_message()))
        text = reply.text
        if not reply.tool_calls:
            return Result(text, "success", turn, usage, messages)
        results = execute_all(reply.tool_calls, agent.tools, context)
        repeats.warn(reply.tool_calls, results)
        _record(agent, _append(messages, {"role": "user", "content": results}))
    return Result(text, "error_max_turns", agent.max_turns, usage, messages)


def _append(messages: list[dict[str, Any]], message: dict[str, Any]) -> dict[str, Any]:
    messages.append(message)
    return message


def _record(agent: AgentSpec, message: dict[str, Any]) -> None:
    if agent.transcript is not None:
        agent.transcript.append(message)


class _RepeatWatch:
    """Notices the same tool call with the same arguments made again and again in a row."""

    def __init__(self) -> None:
        self.last: tuple[str, str] | None = None
        self.count = 0

    def warn(self, calls: list, results: list[dict[str, Any]]) -> None:
        for call, result in zip(calls, results):
            signature = (call.name, json.dumps(call.arguments, sort_keys=True))
            self.count = self.count + 1 if signature == self.last else 1
            self.last = signature
            if self.count >= REPEAT_WARNING_AFTER:
                result["content"] += (
                    f"\n\n[warning: this is call {self.count} in a row to {call.name} with the same "
                    "arguments; repeating it will not change the result. Try something different, or "
                    "give your final answer.]"
                )
