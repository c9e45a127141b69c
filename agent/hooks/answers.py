"""What a hook's run says, read as Claude Code reads it (observed on 2.1.332):

- exit 0: stdout is read as JSON when it is a JSON object; otherwise it is plain text, which only
  UserPromptSubmit and SessionStart (and SubagentStart) give to the model;
- exit 2: a block, whose reason is stderr (JSON on stdout is then ignored);
- any other exit, a timeout, a script that cannot run: a non-blocking error, shown under --verbose.

The JSON fields: `continue: false` (with `stopReason`) ends the run after this moment,
`systemMessage` is shown to the user, `decision: "block"` with `reason` blocks (`"approve"` is the
old spelling of an allow), and `hookSpecificOutput` carries `permissionDecision` (allow, deny, ask)
with `permissionDecisionReason`, `updatedInput` and `additionalContext`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent.hooks.running import HookRun

BLOCKING_EXIT = 2
DECISIONS = ("allow", "deny", "ask")
PLAIN_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart", "SubagentStart", "PreCompact")
MAX_CONTEXT_CHARS = 10_000  # of one hook's added context: what it adds to every request is bounded
# Claude Code's words for a block that gives no reason, and for an exit 2 that wrote nothing to stderr.
NO_REASON = "Blocked by hook"
NO_STDERR = "No stderr output"


@dataclass(frozen=True)
class Answer:
    """One hook's answer at one moment."""

    command: str
    event: str
    run: HookRun
    block: str | None = None  # the reason of a block (exit 2: "[command]: " and stderr)
    decision: str | None = None  # PreToolUse: allow, deny or ask
    reason: str = ""  # the decision's reason
    updated_input: dict[str, Any] | None = None
    context: str | None = None  # additionalContext
    plain: str | None = None  # plain stdout, for the events that give it to the model
    stop: str | None = None  # continue: false, with this stopReason
    system_message: str | None = None
    error: str | None = None  # a non-blocking error, for --verbose

    def effect(self) -> dict[str, Any]:
        """What the answer changes, for comparing a replay's run with the recorded one."""
        fields = {"block": self.block, "decision": self.decision, "reason": self.reason or None,
                  "updated_input": self.updated_input, "context": self.context, "plain": self.plain,
                  "stop": self.stop, "system_message": self.system_message}
        return {key: value for key, value in fields.items() if value is not None}

    def summary(self) -> str:
        """A few words on what it decided, for --verbose."""
        if self.block is not None:
            return f"blocked: {_brief(self.block)}"
        if self.decision:
            return f"{self.decision}" + (f": {_brief(self.reason)}" if self.reason else "")
        if self.error:
            return f"non-blocking error: {_brief(self.error)}"
        parts = [word for word, value in (("added context", self.context or self.plain), ("changed the input", self.updated_input),
                                          ("asked to stop", self.stop is not None)) if value]
        return ", ".join(parts) or "no effect"


def read_answer(event: str, command: str, run: HookRun) -> Answer:
    """The answer of `run`, the run of `command` at `event`."""
    if run.timed_out:
        return Answer(command, event, run, error="timed out; its answer was ignored")
    if run.exit_code == BLOCKING_EXIT:
        # stderr as written (its newlines too), as Claude Code passes it
        return Answer(command, event, run, block=f"[{command}]: {run.stderr or NO_STDERR}")
    if run.exit_code != 0:
        detail = run.stderr.strip()
        if run.exit_code is None:  # what stopped it says why (bash missing, an SDK callback that failed)
            return Answer(command, event, run, error=detail or "could not run")
        return Answer(command, event, run, error=f"exit code {run.exit_code}" + (f": {detail}" if detail else ""))
    output = run.stdout.strip()
    data = _json_object(output)
    if data is None:
        plain = _bounded(output) if output and event in PLAIN_CONTEXT_EVENTS else None
        return Answer(command, event, run, plain=plain)
    return _from_json(event, command, run, data)


def _from_json(event: str, command: str, run: HookRun, data: dict[str, Any]) -> Answer:
    errors = []
    specific = data.get("hookSpecificOutput")
    if specific is not None and not isinstance(specific, dict):
        errors.append("hookSpecificOutput is not an object")
        specific = None
    if specific is not None and specific.get("hookEventName", event) != event:
        errors.append(f"hookSpecificOutput is for {specific.get('hookEventName')!r}, not {event}")
        specific = None
    specific = specific or {}
    block = decision = None
    reason = _string(data.get("reason"))
    legacy = data.get("decision")
    if legacy == "block":
        block = reason or NO_REASON
    elif legacy == "approve" and event == "PreToolUse":
        decision = "allow"
    elif legacy not in (None, "approve"):
        errors.append(f"decision {legacy!r} is not \"block\"")
    if event == "PreToolUse":
        wanted = specific.get("permissionDecision")
        if wanted in DECISIONS:
            decision, reason = wanted, _string(specific.get("permissionDecisionReason"))
        elif wanted is not None:
            errors.append(f"permissionDecision {wanted!r} is not allow, deny or ask")
        if decision == "deny" and block is None:
            block = reason or NO_REASON
    if block is not None and event == "PreToolUse":
        decision = "deny"
    updated = specific.get("updatedInput")
    if updated is not None and not isinstance(updated, dict):
        errors.append("updatedInput is not an object")
        updated = None
    context = specific.get("additionalContext")
    if context is not None and not isinstance(context, str):
        errors.append("additionalContext is not text")
        context = None
    stop = None
    if data.get("continue") is False:
        stop = _string(data.get("stopReason"))
    message = data.get("systemMessage")
    return Answer(command, event, run, block=block, decision=decision, reason=reason,
                  updated_input=updated if event == "PreToolUse" else None,
                  context=_bounded(context) if context else None, stop=stop,
                  system_message=message if isinstance(message, str) and message else None,
                  error="; ".join(errors) or None)


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_CONTEXT_CHARS else text[:MAX_CONTEXT_CHARS] + "\n[... the rest of the hook's output was cut ...]"


def _brief(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 120 else line[:117] + "..."
