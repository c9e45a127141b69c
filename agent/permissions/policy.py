"""The permission policy: given the merged rules and mode, may this tool call run? Claude Code's
order of decision (see the package docstring); a refusal carries the sentence the model sees."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from agent.permissions.rules import (
    command_matches, merge_rules, normal_path, parse_rule, path_matches, split_command, split_rules,
)

MODES = ("default", "acceptEdits", "bypassPermissions", "plan")
READ_FAMILY = ("Read", "Glob", "Grep")  # a Read rule applies to every tool that reads files
EDIT_FAMILY = ("Edit", "Write")  # an Edit rule applies to every tool that edits files
FREE_TOOLS = ("Agent",)  # launching a subagent changes nothing; its own tools are checked


@dataclass(frozen=True)
class Decision:
    """Whether a tool call may run; for a refusal, `reason` is the one sentence the model sees."""

    allowed: bool
    reason: str  # for approvals, a few words for the log: which rule or mode approved
    kind: str = ""  # for refusals: "deny", "ask", "plan" or "approval" (no rule approves it)
    suggestion: str = ""  # for "approval" refusals of Bash: an allow rule that would approve it


@dataclass(frozen=True)
class Policy:
    """The merged rules and mode of one session; `check` decides each tool call."""

    mode: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    ask: tuple[str, ...]
    cwd: Path
    home: Path

    def check(self, tool_name: str, arguments: dict, read_only: bool) -> Decision:
        """Decide one call of `tool_name` with `arguments`; `read_only` is the tool's flag."""
        args = arguments if isinstance(arguments, dict) else {}
        if tool_name == "Bash":
            return self._check_bash(_text(args.get("command")))
        subject = self._subject(tool_name, args)
        if rule := self._first_match(self.deny, tool_name, args):
            return _refusal("deny", subject, rule)
        if self.mode != "bypassPermissions" and (rule := self._first_match(self.ask, tool_name, args)):
            return _refusal("ask", subject, rule)
        if self.mode == "plan" and not (read_only or tool_name in FREE_TOOLS):
            return _refusal("plan", subject)
        if rule := self._first_match(self.allow, tool_name, args):
            return Decision(True, f"allowed by the rule '{rule}'")
        if self.mode == "bypassPermissions":
            return Decision(True, "bypassPermissions mode")
        if read_only or tool_name in FREE_TOOLS:
            return Decision(True, "needs no approval")
        if self.mode == "acceptEdits" and self._edit_inside(tool_name, args):
            return Decision(True, "acceptEdits mode")
        return _refusal("approval", subject, ways=self._suggestions(tool_name, args))

    def with_allowed(self, rules: Iterable[str] | str) -> Policy:
        """This policy with extra allow rules, e.g. a skill's `allowed-tools` while it is active."""
        extra = split_rules(rules) if isinstance(rules, str) else [r for r in rules if isinstance(r, str)]
        return replace(self, allow=merge_rules(self.allow, extra))

    def _check_bash(self, command: str) -> Decision:
        """A command line is denied (or asked) when any part is, and allowed when every part is."""
        try:
            parts = split_command(command) or [command]
        except ValueError:  # unreadable: only a plain `Bash` rule (or bypass) can approve it
            parts = [command, ""]
        for part in parts:
            if rule := self._first_match(self.deny, "Bash", {"command": part}):
                return _refusal("deny", _bash_subject(part, command), rule)
        for part in parts if self.mode != "bypassPermissions" else []:
            if rule := self._first_match(self.ask, "Bash", {"command": part}):
                return _refusal("ask", _bash_subject(part, command), rule)
        if self.mode == "plan":
            return _refusal("plan", f"Bash command {_quote(command)}")
        if self.mode == "bypassPermissions":
            return Decision(True, "bypassPermissions mode")
        for part in parts:
            if not self._first_match(self.allow, "Bash", {"command": part}):
                words = part.split()
                rule = f"Bash({words[0]}:*)" if words else "Bash"
                return _refusal("approval", _bash_subject(part, command), ways=[f"--allowedTools '{rule}'"], suggestion=rule)
        return Decision(True, "allowed by the permission rules")

    def _first_match(self, rules: Iterable[str], tool: str, args: dict[str, Any]) -> str | None:
        return next((rule for rule in rules if self._matches(rule, tool, args)), None)

    def _matches(self, rule: str, tool: str, args: dict[str, Any]) -> bool:
        """Whether `rule` covers this call: the tool (or its family) and, if given, the specifier."""
        name, spec = parse_rule(rule)
        family = (name == tool or (name == "Edit" and tool in EDIT_FAMILY)
                  or (name == "Read" and tool in READ_FAMILY))
        if not family or spec is None:
            return family
        if tool == "Bash":
            return command_matches(spec, _text(args.get("command")))
        if tool in READ_FAMILY + EDIT_FAMILY:
            return path_matches(spec, self._target(tool, args), self.cwd, self.home)
        if tool == "Agent":
            return command_matches(spec, _text(args.get("subagent_type")) or "general-purpose")
        if tool == "Skill":
            return command_matches(spec, _text(args.get("skill")).removeprefix("/"))
        return False  # a specifier we cannot interpret never matches

    def _target(self, tool: str, args: dict[str, Any]) -> Path | None:
        """The absolute, normalised path a file tool works on, resolved as the tools resolve it."""
        value = args.get("path" if tool in ("Glob", "Grep") else "file_path")
        if not isinstance(value, str) or not value:
            return normal_path(self.cwd) if tool in ("Glob", "Grep") else None
        if value == "~" or value.startswith("~/"):
            value = str(self.home) + value[1:]
        try:
            value = os.path.expanduser(value)  # `~user/x`, as the tools resolve it
        except ValueError:  # an embedded NUL: the tool itself will refuse the path
            pass
        return normal_path(Path(value) if os.path.isabs(value) else Path(self.cwd, value))

    def _inside(self, path: Path) -> str | None:
        """`path` relative to the workspace when it is inside it, else None."""
        try:
            return path.relative_to(normal_path(self.cwd)).as_posix()
        except ValueError:
            return None

    def _edit_inside(self, tool: str, args: dict[str, Any]) -> bool:
        """Whether the call edits a file inside the workspace (what acceptEdits approves)."""
        path = self._target(tool, args) if tool in EDIT_FAMILY else None
        return path is not None and self._inside(path) is not None

    def _subject(self, tool: str, args: dict[str, Any]) -> str:
        """What the call does, as the refusal names it."""
        if tool in READ_FAMILY + EDIT_FAMILY and (path := self._target(tool, args)) is not None:
            inside = self._inside(path)
            return f"{tool} {'in' if tool in ('Glob', 'Grep') else 'of'} {_quote(inside or str(path))}"
        key = {"Agent": "subagent_type", "Skill": "skill"}.get(tool)
        value = _text(args.get(key)) if key else ""
        return f"{tool} {_quote(value)}" if value else tool

    def _suggestions(self, tool: str, args: dict[str, Any]) -> list[str]:
        """Ways the user can allow the refused call, most specific first."""
        path = self._target(tool, args) if tool in READ_FAMILY + EDIT_FAMILY else None
        if path is None:
            return [f"--allowedTools '{tool}'"]
        inside = self._inside(path)
        name = "Edit" if tool in EDIT_FAMILY else tool
        rule = f"{name}(./{inside})" if inside else f"{name}(/{path.as_posix()})"
        extra = ["--permission-mode acceptEdits"] if inside and tool in EDIT_FAMILY else []
        return [f"--allowedTools '{rule}'", *extra]


def grant(policy: Policy | None, rules: Iterable[str]) -> Policy | None:
    """`policy` with `rules` (a skill's `allowed-tools`) approved too; unchanged when there are none."""
    return policy.with_allowed(list(rules)) if policy is not None and rules else policy


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _quote(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return "'" + (flat if len(flat) <= limit else flat[:limit] + "...") + "'"


def _bash_subject(part: str, command: str) -> str:
    whole = " ".join(command.split())
    same = " ".join(part.split()) == whole
    return f"Bash command {_quote(part)}" + ("" if same else f" (part of {_quote(command)})")


_REASONS = {  # what the model sees for each kind of refusal: what was refused, how to allow it
    "deny": "{subject} is denied by the permission rule '{rule}'; the user can allow it only by removing "
            "that rule from permissions.deny or --disallowedTools.",
    "ask": "{subject} matches the ask rule '{rule}' and needs approval, which cannot be given in -p mode; "
           "the user can remove that rule from permissions.ask or run with --dangerously-skip-permissions.",
    "plan": "{subject} is refused because plan mode permits only read-only tools; the user can allow it by "
            "running with another --permission-mode than plan.",
    "approval": "{subject} needs approval, and none can be given in -p mode; the user can allow it with "
                "{ways} or a permissions.allow rule in .claude/settings.json.",
}


def _refusal(kind: str, subject: str, rule: str = "", ways: Iterable[str] = (), suggestion: str = "") -> Decision:
    return Decision(False, _REASONS[kind].format(subject=subject, rule=rule, ways=", ".join(ways)), kind, suggestion)
