"""A session: everything one run of the agent shares (workspace, model client, limits, discovered
skills and agents, subagent accounting). Tools reach it through their context."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agent.workspace import Workspace


@dataclass
class Session:
    """State shared by the main conversation and every subagent of one run."""

    workspace: Workspace
    client: Any = None  # agent.client.ModelClient; None in unit tests of tools that never call a model
    model: str = ""
    max_turns: int = 100
    skills: dict[str, Any] = field(default_factory=dict)  # name -> agent.skills.Skill, sorted by name
    agents: dict[str, Any] = field(default_factory=dict)  # name -> agent.agents.AgentDefinition, sorted
    subagent_runs: list[dict[str, Any]] = field(default_factory=list)  # accounting, in start order
    running_subagents: int = 0
    transcripts: Any = None  # agent.transcript.Transcripts, or None with --no-session-persistence
    policy: Any = None  # agent.permissions.Policy for the main conversation (subagents inherit it)
    permission_denials: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

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
