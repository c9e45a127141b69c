"""What a run prints: the JSON result object (Claude Code's fields, plus ours)."""

from __future__ import annotations

import json
import time
from typing import Any

from agent.conversation import Usage
from agent.model.pricing import total_cost_usd


def print_json(subtype: str, text: str, turns: int, started: float, session=None) -> None:
    """Print one result object, as Claude Code's `--output-format json` does; `session` is None
    when the run failed before one was built."""
    usage = session.client.usage if session else Usage()
    result: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "result": text,
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
