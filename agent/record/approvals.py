"""Approvals kept with the tool runs of a recording, and a replay's approver that gives them again.

A call that needs approval is put to an approver (the person at the terminal today; an SDK's
`can_use_tool` or a hook later). Recording, its answer is stored on the call's `tool_runs` entry as
`approval: once|always|no` and `by: user|sdk|hook`; a refused call (`no`) has an entry with no
`output`, as does the approval of a call that runs no tool of its own (Skill, Agent): such an
entry is a decision only, never a run that --replay-tools could answer with.

Replaying, `RecordedApprovals` answers each call as the recording's approver did: the recorded
answer for the same agent, call id, tool and input. A call the recording did not approve gets no
answer, so it is refused as in -p mode (and the replay drifts).
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from typing import Any, NamedTuple

ANSWERS = ("once", "always", "no")
DECIDERS = ("user", "sdk", "hook")  # who gave the answer


class Approval(NamedTuple):
    """An approver's answer to one call, and who gave it."""

    answer: str  # one of ANSWERS
    by: str = "user"  # one of DECIDERS


def call_key(agent: str | None, call_id: str | None, tool: str, arguments: Any) -> tuple:
    """What identifies one call in a recording: the agent that made it, its id, tool and input."""
    return agent, call_id, tool, json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def approval_fields(approval: Approval) -> dict[str, str]:
    """What a `tool_runs` entry holds of an approval."""
    return {"approval": approval.answer, "by": approval.by}


def is_decision_only(entry: dict[str, Any]) -> bool:
    """Whether a `tool_runs` entry records an approver's decision and no run (a refusal, or the
    approval of a Skill or Agent call)."""
    return "approval" in entry and "output" not in entry


class RecordedApprovals:
    """A replay's approver, `approver(agent, call_id, tool, arguments) -> Approval | None`, answering
    from a cassette's `tool_runs`. Each recorded answer is given once, in order, as it was asked.
    Without `grants` (a cassette the user did not vouch for, in a replay that runs tools) only the
    refusals are given: a recorded "no" can only narrow what runs; "once" and "always" widen it."""

    recorded = True  # its answers are the recording's: nobody is asked now

    def __init__(self, entries: list[dict[str, Any]] | None, grants: bool = True):
        self._lock = threading.Lock()  # parallel subagents ask at once
        self._answers: dict[tuple, deque] = defaultdict(deque)
        self.withheld = 0  # the approvals not given, for the replay's warning
        for entry in entries or []:
            if isinstance(entry, dict) and entry.get("approval") in ANSWERS and isinstance(entry.get("tool"), str):
                if not grants and entry["approval"] != "no":
                    self.withheld += 1
                    continue
                key = call_key(entry.get("agent"), entry.get("id"), entry["tool"], entry.get("input", {}))
                self._answers[key].append(Approval(entry["approval"], entry.get("by", "user")))

    def __call__(self, agent: str | None, call_id: str | None, tool: str, arguments: Any) -> Approval | None:
        with self._lock:
            found = self._answers.get(call_key(agent, call_id, tool, arguments))
            return found.popleft() if found else None
