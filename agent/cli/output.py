"""What a run prints: the JSON result object (Claude Code's fields, plus ours)."""

from __future__ import annotations

import json
import time
from typing import Any

from agent.conversation import Stop, Usage
from agent.model.limits import context_window
from agent.model.pricing import total_cost_usd


def incomplete_because(result, session) -> str | None:
    """Why the answer printed is not a complete one (None when it is): the turn limit, or a last
    reply that was cut off, refused or out of context. Any of these exits 1."""
    if result.subtype == "error_max_turns":
        return f"stopped after reaching the turn limit ({result.turns} turns; raise --max-turns)"
    model = session.model
    if result.stop_reason == Stop.MAX_TOKENS:
        limit = session.client.limits.max_tokens(model)
        return (
            f"the answer was cut off at the output limit ({limit} tokens for {model}) and is incomplete; "
            "raise CLAUDE_CODE_MAX_OUTPUT_TOKENS or ask for less"
        )
    if result.stop_reason == Stop.REFUSAL:
        return "the model refused to answer"
    if result.stop_reason == Stop.CONTEXT_EXCEEDED:
        window = context_window(model)
        size = f"{window:,} tokens" if window else "its limit"
        return f"the conversation filled {model}'s context window ({size}); start again with less in it"
    return None


def print_json(
    subtype: str, text: str, turns: int, started: float, session=None, stop_reason: str | None = None,
    is_error: bool | None = None,
) -> None:
    """Print one result object, as Claude Code's `--output-format json` does; `session` is None
    when the run failed before one was built. `is_error` defaults to "not a success"; an incomplete
    success (`incomplete_because`) is an error too."""
    usage = session.client.usage if session else Usage()
    result: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success" if is_error is None else is_error,
        "result": text,
        "stop_reason": stop_reason,
        "num_turns": turns,
        "duration_ms": int((time.monotonic() - started) * 1000),
        "usage": {**usage.as_dict(), "requests": usage.requests},
        "total_cost_usd": total_cost_usd(session.client.usage_by_model) if session else None,
        # which Claude Code's result lacks: what each subagent run cost, in start order
        "subagents": session.subagent_runs if session else [],
        "permission_denials": session.permission_denials if session else [],
    }
    if session is not None and session.transcripts is not None:
        result["session_id"] = session.transcripts.session_id
    print(json.dumps(result, ensure_ascii=False))
