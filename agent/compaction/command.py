"""`/compact [instructions]`: the conversation summarised on demand, as Claude Code's command does
it (one summary request, then the compacted conversation, which keeps the command and what it
printed for the requests after it). No prompt is sent: the turn's result is empty, and names the
command (`local_command: "compact"` in the JSON result)."""

from __future__ import annotations

from typing import Any

from agent.compaction.compact import estimate_tokens
from agent.compaction.guard import Compacting
from agent.compaction.prompt import command_lines
from agent.errors import UsageError

COMMAND = "/compact"


def compact_instructions(prompt: str) -> str | None:
    """The instructions of a `/compact` prompt ("" for none), or None when the prompt is not one."""
    text = prompt.strip()
    if text != COMMAND and not text.startswith((COMMAND + " ", COMMAND + "\n")):
        return None
    return text[len(COMMAND):].strip()


def compact_now(agent, messages: list[dict[str, Any]], session, instructions: str) -> list[dict[str, Any]]:
    """The conversation `messages` compacted by `/compact` (a UsageError when there is none yet)."""
    if not messages:
        raise UsageError("/compact: there is no conversation to compact yet; continue one with --continue or --resume")
    compacted = list(messages)
    done = Compacting(session).compact(agent, compacted, "manual", estimate_tokens(compacted), instructions)
    lines = [f"PreCompact [{command}] completed successfully: {stdout.strip()}" for command, stdout in done.hook_outputs]
    told = {"role": "user", "content": [{"type": "text", "text": text} for text in command_lines(instructions, lines)]}
    compacted.append(told)
    if agent.transcript is not None:
        agent.transcript.append(told)
    return compacted
