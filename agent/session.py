"""A session: everything one run of the agent shares (workspace, model client, limits, discovered
skills and agents, subagent accounting), and the tool set each of its agents is offered. Tools
reach it through their context."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agent.skills.tool import skill_tool
from agent.subagents.fork import run_forked_skill
from agent.subagents.runner import max_depth
from agent.subagents.tool import agent_tool
from agent.tools import builtin_tools
from agent.tools.base import Tool
from agent.workspace import Workspace


@dataclass
class Session:
    """State shared by the main conversation and every subagent of one run."""

    workspace: Workspace
    client: Any = None  # agent.model.client.ModelClient; None in unit tests of tools that never call a model
    model: str = ""
    max_turns: int = 100
    skills: dict[str, Any] = field(default_factory=dict)  # name -> agent.skills.discovery.Skill, sorted by name
    agents: dict[str, Any] = field(default_factory=dict)  # name -> AgentDefinition, sorted by name
    subagent_runs: list[dict[str, Any]] = field(default_factory=list)  # accounting, in start order
    running_subagents: int = 0
    transcripts: Any = None  # agent.transcripts.Transcripts, or None with --no-session-persistence
    policy: Any = None  # agent.permissions.policy.Policy for the main conversation (subagents inherit it)
    permission_denials: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def tools_for(self, depth: int, exclude_skill: str | None = None) -> list[Tool]:
        """Every tool an agent at `depth` may have before its definition filters them: the six
        built-ins, Skill when there are skills the model may load (less `exclude_skill`, a fork's
        own), and Agent below the depth cap. Subagents ask for theirs here, so the layers that
        start subagents never import the tools that start them."""
        tools = builtin_tools()
        if any(s.model_invocable and name != exclude_skill for name, s in self.skills.items()):
            tools.append(skill_tool(self.skills, run_forked_skill, exclude=exclude_skill))
        if depth < max_depth() and self.agents:
            tools.append(agent_tool(self.agents))
        return tools

    def record_denial(self, call) -> None:
        """Remember a refused tool call for the run's JSON result (Claude Code's permission_denials)."""
        with self.lock:
            self.permission_denials.append({"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.arguments})

    def transcript(self, agent_type: str):
        """A transcript for a new conversation of this run (None when not persisting)."""
        if self.transcripts is None:
            return None
        return self.transcripts.main() if agent_type == "main" else self.transcripts.subagent(agent_type)

    @property
    def provider_name(self) -> str:
        return self.client.provider.name if self.client else ""
