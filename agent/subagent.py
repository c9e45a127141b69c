"""Subagents: the same loop, with a fresh conversation, its own system prompt and tools."""

from __future__ import annotations

import logging
import os

from agent.conversation import user_message
from agent.loop import AgentSpec, Result, run_loop
from agent.tools import ToolError

log = logging.getLogger("agent")

DEFAULT_MAX_DEPTH = 3


def max_depth() -> int:
    """How many subagent levels may be nested (CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH; 1 disables nesting)."""
    try:
        return max(1, int(os.environ.get("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH", DEFAULT_MAX_DEPTH)))
    except ValueError:
        return DEFAULT_MAX_DEPTH


def run_subagent(spec: AgentSpec, prompt: str, session) -> Result:
    """Run `spec` on a new conversation whose only message is `prompt` (no parent history)."""
    if spec.depth > max_depth():
        raise ToolError(f"cannot start {spec.name}: subagents may nest at most {max_depth()} levels deep")
    log.info("subagent %s (depth %d) starts", spec.name, spec.depth)
    result = run_loop(spec, [user_message(prompt)], session)
    log.info("subagent %s finished: %s after %d turns", spec.name, result.subtype, result.turns)
    return result
