"""Dynamic context in a skill body: each `` !`command` `` (at the start of a line or after
whitespace) and each ```` ```! ```` fenced block runs before the body reaches the model, and its
output takes its place.

A command from a skill is a Bash call like any other: the agent's permission policy decides
(the skill's `allowed-tools` approve what they name), compound commands are checked part by part,
it runs in the workspace with the Bash tool's timeout, and a refusal leaves a note in the body and
an entry in the run's permission denials instead of running anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from agent.permissions.policy import grant
from agent.tools.shell import DEFAULT_TIMEOUT_MS, redact_secrets, run_shell

COMMAND_OUTPUT_LIMIT = 20_000
COMMAND_TIMEOUT_S = DEFAULT_TIMEOUT_MS / 1000  # the Bash tool's default, as in Claude Code
INLINE_COMMAND = re.compile(r"(?<!\S)!`([^`\n]+)`")
FENCED_COMMAND = re.compile(r"^```![ \t]*\r?\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class CommandContext:
    """Where a skill's commands run and who may approve them: the workspace, the permission policy
    of the agent loading the skill (None runs everything: unit tests only), and where a refused
    command is recorded (the session's permission denials)."""

    cwd: Path
    policy: Any = None
    record_denial: Callable[[str, str | None, dict], None] | None = None
    # the session's tool_runs hook: keeps each output when recording, answers with --replay-tools
    tool_runs: Callable[..., Any] | None = None


def command_context(session, policy, cwd: Path | None = None) -> CommandContext:
    """The context for loading a skill in `session` on behalf of an agent holding `policy` and
    working in `cwd` (default the session's workspace; a worktree-isolated agent's worktree), with
    the rules the person approved "always" in this session, as the agent's own tool calls have."""
    approved = getattr(session, "approved", ())
    if policy is not None and approved:
        policy = policy.with_allowed(approved)
    return CommandContext(cwd or session.workspace.cwd, policy, session.record_denial, getattr(session, "tool_runs", None))


def find_commands(body: str) -> list[tuple[int, int, str]]:
    """Every command in `body` as (start, end, command text), in order: inline `!`cmd`` forms and
    fenced ```! blocks (whose whole content is one script). Inline forms inside a fenced block
    belong to the block."""
    found = [(m.start(), m.end(), m.group(1).rstrip("\n")) for m in FENCED_COMMAND.finditer(body)]
    for match in INLINE_COMMAND.finditer(body):
        if not any(start <= match.start() < end for start, end, _ in found):
            found.append((match.start(), match.end(), match.group(1)))
    return sorted(found)


def command_output(command: str, rules: tuple[str, ...], context: CommandContext) -> str:
    """What replaces `command` in the body: its stripped stdout when the policy (plus the skill's
    allowed-tools `rules`) approves it and it succeeds; otherwise a one-line note in brackets
    saying why it did not run or how it failed (with its stderr)."""
    policy = grant(context.policy, rules)
    if policy is not None:
        decision = policy.check("Bash", {"command": command}, False)
        if not decision.allowed:
            if context.record_denial is not None:
                context.record_denial("Bash", None, {"command": command})
            return _refusal(command, decision)
    if context.tool_runs is not None:
        return context.tool_runs(None, None, "Bash", {"command": command}, lambda: _run(command, context))
    return _run(command, context)


def _run(command: str, context: CommandContext) -> str:
    timeout_s = COMMAND_TIMEOUT_S
    try:
        outcome = run_shell(command, context.cwd, timeout_s, COMMAND_OUTPUT_LIMIT)
    except OSError as error:
        return f"[command failed (cannot start bash: {error.strerror or error}): {command}]"
    if outcome.code == 0:
        return redact_secrets(outcome.stdout.strip())
    reason = f"timed out after {timeout_s:g} s" if outcome.code is None else f"exit {outcome.code}"
    report = f"[command failed ({reason}): {command}]"
    details = redact_secrets(outcome.stderr.strip())
    return f"{report}\n{details}" if details else report


def _refusal(command: str, decision) -> str:
    if decision.kind == "approval":
        rule = decision.suggestion or "Bash(...)"
        return f"[command not run: {command} needs permission: add {rule} to allowed-tools or an allow rule]"
    return f"[command not run: {decision.reason}]"
