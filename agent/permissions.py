"""Permissions: which tool calls may run without asking, in Claude Code's model.

Rules come from `~/.claude/settings.json`, `<cwd>/.claude/settings.json` and
`<cwd>/.claude/settings.local.json` (`"permissions": {"allow", "deny", "ask", "defaultMode"}`) and
from the command-line flags. A rule is `Tool` (every use) or `Tool(specifier)`:

- Bash: `Bash(git push:*)` (the command is `git push` or starts with `git push `), `Bash(npm run *)`
  (`*` matches anything; a trailing ` *` also matches nothing) or an exact `Bash(ls -la)`. Compound
  commands are split at `&&`, `||`, `;`, `|`, `&` and newlines, and `$(...)`, backquoted and `<(...)`
  bodies count as commands of their own: every part must be allowed, any denied part denies all.
- Files: gitignore-style patterns. `//abs/**` is absolute, `~/x/**` is in the home folder, and every
  other pattern is relative to the workspace; a pattern without a `/` (`*.env`) matches at any depth.
  `Edit(...)` rules also cover Write, and `Read(...)` rules also cover Glob and Grep.
- `Agent(Explore)` names a subagent type and `Skill(name)` a skill; other specifiers never match.

Order of decision: a deny rule refuses (in every mode); an ask rule refuses, since no one can answer in
-p mode, except in bypassPermissions; plan mode refuses anything that is not read-only; an allow rule
approves; bypassPermissions approves; read-only tools and Agent need no approval; acceptEdits
approves edits inside the workspace; everything else needs approval, which -p mode cannot give.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from agent.errors import UsageError
from agent.permission_rules import command_matches, normal_path, parse_rule, path_matches, split_command

log = logging.getLogger("agent")

MODES = ("default", "acceptEdits", "bypassPermissions", "plan")
READ_FAMILY = ("Read", "Glob", "Grep")  # a Read rule applies to every tool that reads files
EDIT_FAMILY = ("Edit", "Write")  # an Edit rule applies to every tool that edits files
FREE_TOOLS = ("Agent",)  # launching a subagent changes nothing; its own tools are checked


@dataclass(frozen=True)
class Decision:
    """Whether a tool call may run; for a refusal, `reason` is the one sentence the model sees."""

    allowed: bool
    reason: str  # for approvals, a few words for the log: which rule or mode approved


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
        return replace(self, allow=_union(self.allow, extra))

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
                return _refusal("approval", _bash_subject(part, command), ways=[f"--allowedTools '{rule}'"])
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


def load_policy(cwd: Path, home: Path, mode: str | None = None, allowed: Iterable[str] = (),
                disallowed: Iterable[str] = (), skip_permissions: bool = False) -> Policy:
    """The policy of a session in `cwd`: the three settings files merged, then the flags added.
    Lists are joined; defaultMode comes from the most specific file; --permission-mode beats it and
    --dangerously-skip-permissions beats both. An unknown flag mode raises UsageError."""
    if mode is not None and mode not in MODES:
        raise UsageError(f"unknown permission mode {mode!r}; valid modes: {', '.join(MODES)}")
    lists: dict[str, tuple[str, ...]] = {"allow": (), "deny": (), "ask": ()}
    chosen = "default"
    files = [home / ".claude" / "settings.json", cwd / ".claude" / "settings.json",
             cwd / ".claude" / "settings.local.json"]  # least specific first
    for path in dict.fromkeys(normal_path(p) for p in files):  # home == cwd must not load a file twice
        permissions = _read_permissions(path)
        for key in lists:
            lists[key] = _union(lists[key], _rule_list(permissions, key, path))
        value = permissions.get("defaultMode")
        if value in MODES:
            chosen = value
        elif value is not None:
            log.warning("ignoring defaultMode %r in %s; valid modes: %s", value, path, ", ".join(MODES))
    flag_rules = lambda values: [r for value in values for r in split_rules(value)]  # noqa: E731
    chosen = "bypassPermissions" if skip_permissions else mode or chosen
    return Policy(mode=chosen, allow=_union(lists["allow"], flag_rules(allowed)),
                  deny=_union(lists["deny"], flag_rules(disallowed)), ask=lists["ask"],
                  cwd=normal_path(cwd), home=normal_path(home))


def split_rules(value: str) -> list[str]:
    """The rules in a flag value: separated by spaces or commas, except inside parentheses."""
    rules, current, depth = [], "", 0
    for char in value:
        if char in " \t\n," and depth == 0:
            rules.append(current)
            current = ""
            continue
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        current += char
    return [rule.strip() for rule in [*rules, current] if rule.strip()]


def _read_permissions(path: Path) -> dict[str, Any]:
    """The `permissions` object of a settings file; {} when it is missing or unusable (warned)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        log.warning("ignoring %s: cannot read it (%s)", path, getattr(error, "strerror", None) or error)
        return {}
    except (ValueError, RecursionError) as error:
        log.warning("ignoring %s: invalid JSON (%s)", path, str(error).splitlines()[0] if str(error) else "")
        return {}
    if not isinstance(data, dict):
        log.warning("ignoring %s: the settings are not a JSON object", path)
        return {}
    if not isinstance(data.get("permissions", {}), dict):
        log.warning("ignoring the permissions in %s: \"permissions\" is not an object", path)
        return {}
    return data.get("permissions", {})


def _rule_list(permissions: dict[str, Any], key: str, path: Path) -> list[str]:
    value = permissions.get(key, [])
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        log.warning("ignoring non-text rules in permissions.%s of %s", key, path)
        value = value if isinstance(value, list) else []
    return [rule.strip() for rule in value if isinstance(rule, str) and rule.strip()]


def _union(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*first, *second]))


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


def _refusal(kind: str, subject: str, rule: str = "", ways: Iterable[str] = ()) -> Decision:
    return Decision(False, _REASONS[kind].format(subject=subject, rule=rule, ways=", ".join(ways)))
