"""Approvals kept with the tool runs of a recording, and a replay's approver that gives them again.

A call that needs approval is put to an approver (the person at the terminal, the Agent SDK's
`can_use_tool`). Recording, its answer is stored on the call's `tool_runs` entry as
`approval: once|always|no` and `by: user|sdk|hook`, with what else the answer carried: the input
the call ran with instead of the one asked about (`updated_input`), the permission updates it
made for the rest of the session (`permission_updates`), or a refusal's words for the model
(`message`) and whether it stopped the turn (`interrupt`). The entry's `input` is the input the
approver was asked about. A refused call (`no`) has an entry with no `output`, as does the
approval of a call that runs no tool of its own (Skill, Agent): such an entry is a decision only,
never a run that --replay-tools could answer with.

Replaying, `RecordedApprovals` answers each call as the recording's approver did: the recorded
answer for the same agent, call id, tool and input. A call the recording did not approve gets no
answer, so it is refused as in -p mode (and the replay drifts).

A permission update is kept in one plain form, whoever made it: `{type: addRules, behavior:
allow|deny|ask, rules: [rule text]}`, `{type: setMode, mode: M}` or `{type: addDirectories,
directories: [path]}`; it applies to the session only (no settings file is ever written).
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from typing import Any, NamedTuple

ANSWERS = ("once", "always", "no")
DECIDERS = ("user", "sdk", "hook")  # who gave the answer


UPDATE_TYPES = ("addRules", "setMode", "addDirectories")
RULE_BEHAVIORS = ("allow", "deny", "ask")
MAX_UPDATES = 50  # permission updates one answer may make
MAX_LISTED = 100  # rules or directories one update may name
MAX_UPDATE_TEXT = 4096  # characters of one rule, mode or directory
MAX_MESSAGE = 100_000  # characters of a refusal's message for the model


class Approval(NamedTuple):
    """An approver's answer to one call, who gave it, and what else the answer carried."""

    answer: str  # one of ANSWERS
    by: str = "user"  # one of DECIDERS
    input: dict[str, Any] | None = None  # the input to run instead of the one asked about; None: as asked
    updates: tuple[dict[str, Any], ...] = ()  # permission updates for the rest of the session (see above)
    message: str | None = None  # a refusal's words for the model; None: the usual refusal
    interrupt: bool = False  # a refusal that stops the turn, as an interrupt does


def call_key(agent: str | None, call_id: str | None, tool: str, arguments: Any) -> tuple:
    """What identifies one call in a recording: the agent that made it, its id, tool and input."""
    return agent, call_id, tool, json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def approval_fields(approval: Approval) -> dict[str, Any]:
    """What a `tool_runs` entry holds of an approval (the fields it carried, when it did)."""
    fields: dict[str, Any] = {"approval": approval.answer, "by": approval.by}
    if approval.input is not None:
        fields["updated_input"] = approval.input
    if approval.updates:
        fields["permission_updates"] = [dict(update) for update in approval.updates]
    if approval.message is not None:
        fields["message"] = approval.message
    if approval.interrupt:
        fields["interrupt"] = True
    return fields


def approval_of(entry: dict[str, Any]) -> Approval:
    """The approval a `tool_runs` entry holds (its shape checked when the cassette was read)."""
    return Approval(entry["approval"], entry.get("by", "user"), entry.get("updated_input"),
                    tuple(entry.get("permission_updates") or ()), entry.get("message"), entry.get("interrupt") is True)


def updates_problem(updates: Any) -> str | None:
    """What is wrong with a list of permission updates in their plain form (see above), or None:
    each a mapping of a known type with its own fields, typed and bounded. Whether a mode or a
    rule means anything is for whoever applies them to say."""
    if not isinstance(updates, list) or len(updates) > MAX_UPDATES:
        return f"not a list of at most {MAX_UPDATES} permission updates"
    for update in updates:
        if not isinstance(update, dict) or update.get("type") not in UPDATE_TYPES:
            return f"each update must be a mapping whose `type` is {', '.join(UPDATE_TYPES[:-1])} or {UPDATE_TYPES[-1]}"
        kind = update["type"]
        fields = {"addRules": ("type", "behavior", "rules"), "setMode": ("type", "mode"),
                  "addDirectories": ("type", "directories")}[kind]
        if set(update) != set(fields):
            return f"a {kind} update holds exactly {', '.join(fields)}"
        if kind == "addRules" and update["behavior"] not in RULE_BEHAVIORS:
            return f"an addRules update's `behavior` must be {', '.join(RULE_BEHAVIORS[:-1])} or {RULE_BEHAVIORS[-1]}"
        texts = [update["mode"]] if kind == "setMode" else update[fields[-1]]
        if not (isinstance(texts, list) and 0 < len(texts) <= MAX_LISTED and all(
                isinstance(text, str) and 0 < len(text) <= MAX_UPDATE_TEXT for text in texts)):
            return (f"a {kind} update's `{fields[-1]}` must be "
                    + ("a text" if kind == "setMode" else f"a list of 1 to {MAX_LISTED} texts")
                    + f" of at most {MAX_UPDATE_TEXT} characters")
    return None


def is_decision_only(entry: dict[str, Any]) -> bool:
    """Whether a `tool_runs` entry records an approver's decision and no run (a refusal, or the
    approval of a Skill or Agent call)."""
    return "approval" in entry and "output" not in entry


class RecordedApprovals:
    """A replay's approver, `approver(agent, call_id, tool, arguments) -> Approval | None`, answering
    from a cassette's `tool_runs`. Each recorded answer is given once, in order, as it was asked.
    Without `grants` (a cassette the user did not vouch for, in a replay that runs tools) only the
    refusals are given: a recorded "no" can only narrow what runs; "once" and "always" widen it
    (and so would the input and the permission updates an allow carried: none of them is given)."""

    asks_nobody = True  # its answers are the recording's: nobody is asked now

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
                self._answers[key].append(approval_of(entry))

    def __call__(self, agent: str | None, call_id: str | None, tool: str, arguments: Any) -> Approval | None:
        with self._lock:
            found = self._answers.get(call_key(agent, call_id, tool, arguments))
            return found.popleft() if found else None
