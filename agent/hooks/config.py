"""Hook configuration: the `hooks` object of a settings file or of a frontmatter, read as Claude
Code reads it, `{Event: [{"matcher": "...", "hooks": [{"type": "command", "command": "...",
"timeout": seconds}]}]}`. It is untrusted input: whatever is wrong with a piece is one warning
naming where it was found, and that piece is left out."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

log = logging.getLogger("agent")

# The events this agent fires, each with what its matcher is compared with (None: no matcher).
EVENTS: dict[str, str | None] = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "Notification": "notification_type",
    "UserPromptSubmit": None,
    "Stop": None,
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "SessionStart": "source",
    "SessionEnd": "reason",
    "PreCompact": "trigger",
}
# Claude Code's other events: configured hooks for them are valid, and never run here.
OTHER_EVENTS = frozenset({"PermissionRequest", "PostCompact", "TaskCreated", "TaskCompleted", "TeammateIdle",
                          "WorktreeCreate", "WorktreeRemove", "ConfigChange", "Elicitation", "ElicitationResult",
                          "InstructionsLoaded", "CwdChanged", "FileChanged", "StopFailure", "SubagentFailure",
                          "PostToolBatch", "UserPromptExpansion"})
DEFAULT_TIMEOUT_S = 600.0  # Claude Code's default for a command hook
MAX_TIMEOUT_S = 24 * 3600.0
MAX_GROUPS = 200  # per event and source: more is a mistake or an attack, not a configuration
MAX_HOOKS = 100  # per group
MAX_COMMAND_CHARS = 32 * 1024


@dataclass(frozen=True)
class CommandHook:
    """One command to run: its text, its timeout in seconds, and where it was configured."""

    command: str
    timeout: float
    source: str


@dataclass(frozen=True)
class Group:
    """A matcher group of one event: the hooks that run when its matcher matches."""

    event: str
    matcher: str  # "" matches everything
    hooks: tuple  # CommandHooks, or the Agent SDK's hook callbacks (agent.hooks.callbacks.CallbackHook)


@dataclass(frozen=True)
class HookSet:
    """Hook groups from one or more sources, in the order they were read."""

    groups: tuple[Group, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.groups)

    def of(self, event: str) -> list[Group]:
        """The groups configured for `event`."""
        return [group for group in self.groups if group.event == event]

    def plus(self, other: "HookSet | None") -> "HookSet":
        """These groups, then `other`'s."""
        return HookSet(self.groups + other.groups) if other else self

    def for_subagent(self) -> "HookSet":
        """These hooks run by a subagent: its `Stop` is its own end, `SubagentStop`."""
        return HookSet(tuple(Group("SubagentStop", g.matcher, g.hooks) if g.event == "Stop" else g for g in self.groups))

    def count(self) -> int:
        """How many hooks the groups hold."""
        return sum(len(group.hooks) for group in self.groups)


def read_hooks(value: Any, where: str, group_of: Callable[[str, Any, str, str], "Group | None"] | None = None) -> HookSet:
    """The hook groups of a `hooks` object found in `where` (a file, or "the agent x"); pieces
    that cannot be used are warned about and left out. `group_of(event, entry, label, where)`
    reads one matcher group (by default a settings file's: command hooks)."""
    group_of = group_of or _group
    if value is None:
        return HookSet()
    if not isinstance(value, dict):
        log.warning("ignoring hooks in %s: expected an object of events, got %s", where, _kind(value))
        return HookSet()
    groups: list[Group] = []
    for event, entries in value.items():
        if not isinstance(event, str) or (event not in EVENTS and event not in OTHER_EVENTS):
            log.warning("ignoring hooks in %s for %r: not an event Claude Code has", where, event)
            continue
        if event in OTHER_EVENTS:
            log.info("hooks in %s for %s are not run: this agent has no such moment", where, event)
            continue
        if not isinstance(entries, list):
            log.warning("ignoring hooks.%s in %s: expected a list of matcher groups", event, where)
            continue
        if len(entries) > MAX_GROUPS:
            log.warning("hooks.%s in %s has %d groups; only the first %d are used", event, where, len(entries), MAX_GROUPS)
        for index, entry in enumerate(entries[:MAX_GROUPS]):
            group = group_of(event, entry, f"hooks.{event}[{index}] in {where}", where)
            if group is not None:
                groups.append(group)
    return HookSet(tuple(groups))


def _group(event: str, entry: Any, label: str, where: str) -> Group | None:
    parts = group_parts(entry, label, "hooks")
    if parts is None:
        return None
    matcher, hooks = parts
    commands = []
    for index, hook in enumerate(hooks[:MAX_HOOKS]):
        command = _command(hook, f"{label}, hook {index}", where)
        if command is not None:
            commands.append(command)
    if len(hooks) > MAX_HOOKS:
        log.warning("%s has %d hooks; only the first %d are used", label, len(hooks), MAX_HOOKS)
    return Group(event, matcher, tuple(commands)) if commands else None


def group_parts(entry: Any, label: str, hooks_key: str) -> tuple[str, list] | None:
    """The matcher ("" for none) and the list under `hooks_key` of a matcher group (`entry`);
    None (warned) when the group cannot be used."""
    if not isinstance(entry, dict):
        log.warning("ignoring %s: expected an object with matcher and %s", label, hooks_key)
        return None
    matcher = entry.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        log.warning("ignoring %s: its matcher is not text", label)
        return None
    hooks = entry.get(hooks_key)
    if not isinstance(hooks, list):
        log.warning("ignoring %s: expected a list under %s", label, hooks_key)
        return None
    return matcher.strip(), hooks


def _command(hook: Any, label: str, where: str) -> CommandHook | None:
    if not isinstance(hook, dict):
        log.warning("ignoring %s: expected an object with type and command", label)
        return None
    kind = hook.get("type", "command")
    if kind != "command":
        log.warning("ignoring %s: hooks of type %r are not supported here (only \"command\")", label, kind)
        return None
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip() or "\x00" in command:
        log.warning("ignoring %s: its command is missing or not text", label)
        return None
    if len(command) > MAX_COMMAND_CHARS:
        log.warning("ignoring %s: its command is longer than %d characters", label, MAX_COMMAND_CHARS)
        return None
    return CommandHook(command, timeout_of(hook.get("timeout", DEFAULT_TIMEOUT_S), label), where)


def timeout_of(timeout: Any, label: str) -> float:
    """A hook's `timeout` in seconds; Claude Code's default (warned) when it is not a usable number."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT_S:
        log.warning("%s: timeout %r is not a number of seconds; Claude Code's default (%d s) is used",
                    label, timeout, DEFAULT_TIMEOUT_S)
        return DEFAULT_TIMEOUT_S
    return float(timeout)


def _kind(value: Any) -> str:
    return {list: "a list", str: "text", bool: "true/false"}.get(type(value), type(value).__name__)
