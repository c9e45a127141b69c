"""What a permission check answers: a `Decision`, and for a refusal the one sentence the model
reads, saying what was refused, why, and how the user could allow it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Decision:
    """Whether a tool call may run; for a refusal, `reason` is the one sentence the model sees."""

    allowed: bool
    reason: str  # for approvals, a few words for the log: which rule or mode approved
    kind: str = ""  # for refusals: "deny", "ask", "plan", "sensitive" or "approval" (no rule approves it)
    suggestion: str = ""  # for "approval" refusals: the narrowest allow rule that would approve the call
    path: str = ""  # for "approval" refusals: the path outside the workspace and added directories it needs


_REASONS = {  # what the model sees for each kind of refusal: what was refused, how to allow it
    "deny": "{subject} is denied by the permission rule '{rule}'; the user can allow it only by removing "
            "that rule from permissions.deny or --disallowedTools.",
    "ask": "{subject} matches the ask rule '{rule}' and needs approval, which cannot be given in -p mode; "
           "the user can remove that rule from permissions.ask or run with --dangerously-skip-permissions.",
    "unreadable": "{subject} cannot be checked against the permission rule '{rule}', so it is refused; "
                  "the user can allow it only by removing that rule.",
    "could_deny": "{subject} could run what the permission rule '{rule}' denies (part of it is decided at run "
                  "time), so it is refused; the user can allow it only by removing that rule.",
    "could_ask": "{subject} could run what the ask rule '{rule}' covers (part of it is decided at run time) "
                 "and needs approval, which cannot be given in -p mode; the user can remove that rule from "
                 "permissions.ask or run with --dangerously-skip-permissions.",
    "uncertain": "{subject} it needs approval, which cannot be given in -p mode; the user can allow it only "
                 "with a plain 'Bash' allow rule or --dangerously-skip-permissions.",
    "plan": "{subject} is refused because plan mode permits only read-only tools; the user can allow it by "
            "running with another --permission-mode than plan.",
    "sensitive": "{subject} is refused: it is a sensitive file (in '{rule}', where a change can run commands "
                 "or grant permissions), which always needs approval, and none can be given in -p mode; the user "
                 "can allow it only with {ways}.",
    "approval": "{subject} needs approval, and none can be given in -p mode; the user can allow it with "
                "{ways} or a permissions.allow rule in .claude/settings.json.",
    "dont_ask": "{subject} is refused because the session runs in dontAsk mode, which refuses whatever no "
                "permission rule approves; the user can allow it with {ways} or a permissions.allow rule in "
                ".claude/settings.json.",
}


def refusal(kind: str, subject: str, rule: str = "", ways: Iterable[str] = (), suggestion: str = "",
            mode: str = "default", path: str = "") -> Decision:
    """A refusal of `kind` (see `Decision.kind`) of what `subject` names, in the words the model
    reads: what was refused, why, and how the user could allow it. In dontAsk mode a call no rule
    approves is refused for that mode, not for want of someone to ask."""
    template = _REASONS["dont_ask" if kind == "approval" and mode == "dontAsk" else kind]
    return Decision(False, template.format(subject=subject, rule=rule, ways=", ".join(ways)), kind, suggestion, path)
