"""A session: everything one run of the agent shares (workspace, model client, limits, discovered
skills and agents). Tools receive it as their context."""

from __future__ import annotations

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
