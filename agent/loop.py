"""The agent loop: one function, used by the main conversation and by every subagent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.conversation import Usage
from agent.tools import Tool, execute_all


@dataclass
class AgentSpec:
    """What runs a conversation: its system prompt, tools, model and turn limit."""

    name: str
    system: str
    tools: dict[str, Tool]
    model: str
    max_turns: int
    depth: int = 0  # 0 is the main conversation; each subagent level adds one


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


def run_loop(agent: AgentSpec, messages: list[dict[str, Any]], session: Any) -> Result:
    """Send, append the reply, run every tool call it makes, and repeat until a reply has no tool
    calls (success) or `agent.max_turns` replies have been received (error_max_turns)."""
    usage = Usage()
    schemas = [tool.schema() for tool in agent.tools.values()]
    context = ToolContext(session, agent)
    text = ""
    for turn in range(1, agent.max_turns + 1):
        reply = session.client.complete(agent.system, messages, schemas, agent.model)
        usage.add(reply.usage)
        messages.append(reply.as_message())
        text = reply.text
        if not reply.tool_calls:
            return Result(text, "success", turn, usage, messages)
        results = execute_all(reply.tool_calls, agent.tools, context)
        messages.append({"role": "user", "content": results})
    return Result(text, "error_max_turns", agent.max_turns, usage, messages)
