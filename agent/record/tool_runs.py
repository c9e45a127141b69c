"""The tool calls of a run that really ran, with what they returned.

A `ToolRuns` is the session's `tool_runs` hook, called as
`tool_runs(agent, call_id, tool, arguments, run)` wherever a tool would touch the machine (a
built-in tool's call, a skill's `!`command``); `run()` does the work and returns its result (a
tool_result block, or a command's output text).

- Recording, it runs the call and keeps the result for the cassette's `tool_runs`, with the
  approval that let it run when one was asked (`agent.record.approvals`); `decided(...)` keeps an
  approver's decision that ran nothing here (a refusal; a Skill or Agent call).
- Replaying with --replay-tools, it runs nothing: it answers from the cassette, and a call the
  recording does not hold is drift, like a request that differs. Decision-only entries are not
  runs: nothing is answered from them.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import defaultdict, deque
from typing import Any, Callable

from agent.conversation import tool_result
from agent.errors import ReplayMismatch
from agent.record.approvals import Approval, approval_fields, call_key, is_decision_only

log = logging.getLogger("agent")


class ToolRuns:
    """Recording when built with no entries; answering from `entries` (a cassette's `tool_runs`)
    when given them, `path` naming the cassette in drift messages."""

    def __init__(self, entries: list[dict[str, Any]] | None = None, path: str = ""):
        self.replaying = entries is not None
        self.entries: list[dict[str, Any]] = []
        self.path = path
        self._lock = threading.Lock()
        self._recorded: dict[tuple, deque] = defaultdict(deque)
        for entry in entries or []:
            if isinstance(entry, dict) and isinstance(entry.get("tool"), str) and not is_decision_only(entry):
                key = call_key(entry.get("agent"), entry.get("id"), entry["tool"], entry.get("input", {}))
                self._recorded[key].append(entry)

    def __call__(self, agent: str | None, call_id: str | None, tool: str, arguments: Any, run: Callable[[], Any],
                 approval: Approval | None = None) -> Any:
        if self.replaying:
            return self._answer(agent, call_id, tool, arguments)
        result = run()
        entry = _entry(agent, call_id, tool, arguments, approval)
        if isinstance(result, dict):  # a tool_result block
            entry["output"] = result.get("content", "")
            if result.get("is_error"):
                entry["is_error"] = True
        else:
            entry["output"] = result
        with self._lock:
            self.entries.append(entry)
        return result

    def keep(self, entry: dict[str, Any]) -> None:
        """Keep another entry in run order (a hook firing; recording only)."""
        if not self.replaying:
            with self._lock:
                self.entries.append(entry)

    def decided(self, agent: str | None, call_id: str | None, tool: str, arguments: Any, approval: Approval) -> None:
        """Keep an approver's decision about a call that runs nothing here (recording only)."""
        if not self.replaying:
            with self._lock:
                self.entries.append(_entry(agent, call_id, tool, arguments, approval))

    def _answer(self, agent: str | None, call_id: str | None, tool: str, arguments: Any) -> Any:
        with self._lock:
            found = self._recorded.get(call_key(agent, call_id, tool, arguments))
            entry = found.popleft() if found else None
        if entry is None:
            shown = json.dumps(arguments, ensure_ascii=False)
            shown = shown if len(shown) <= 200 else shown[:200] + "..."
            who = f"{agent} called {tool} {shown}" if agent else f"a skill ran the command {shown}"
            raise ReplayMismatch(
                f"a tool call the cassette {self.path} does not hold: {who} (the recording did not run "
                "it; re-record the cassette if the change is intended)"
            )
        output = entry.get("output", "")
        log.info("tool %s %s -> %d chars, from the cassette (not run)", tool, json.dumps(arguments, ensure_ascii=False)[:200], len(output))
        if call_id is None:
            return output
        return tool_result(call_id, output, bool(entry.get("is_error")))


def _entry(agent: str | None, call_id: str | None, tool: str, arguments: Any, approval: Approval | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"agent": agent, "id": call_id, "tool": tool, "input": arguments}
    entry = {key: value for key, value in entry.items() if value is not None}
    return entry | (approval_fields(approval) if approval is not None else {})
