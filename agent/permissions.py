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
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable
import warnings

from agent.errors import UsageError

log = logging.getLogger("agent")

MODES = ("default", "acceptEdits", "bypassPermissions", "plan")
READ_FAMILY = ("Read", "Glob", "Grep")  # a Read rule applies to every tool that reads files
EDIT_FAMILY = ("Edit", "Write")  # an Edit rule applies to every tool that edits files
FREE_TOOLS = ("Agent",)  # launching a subagent changes nothing; its own tools are checked
_MAX_NESTING = 50  # deeper $(...) nesting is refused rather than read


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
            return _normal(self.cwd) if tool in ("Glob", "Grep") else None
        if value == "~" or value.startswith("~/"):
            value = str(self.home) + value[1:]
        try:
            value = os.path.expanduser(value)  # `~user/x`, as the tools resolve it
        except ValueError:  # an embedded NUL: the tool itself will refuse the path
            pass
        return _normal(Path(value) if os.path.isabs(value) else Path(self.cwd, value))

    def _inside(self, path: Path) -> str | None:
        """`path` relative to the workspace when it is inside it, else None."""
        try:
            return path.relative_to(_normal(self.cwd)).as_posix()
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
    for path in dict.fromkeys(_normal(p) for p in files):  # home == cwd must not load a file twice
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
                  cwd=_normal(cwd), home=_normal(home))


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


@lru_cache(maxsize=1024)
def parse_rule(rule: str) -> tuple[str, str | None]:
    """`(tool, specifier)` of a rule; the specifier is None for `Tool` and `Tool()`. A rule whose
    parentheses are not closed keeps its whole text as the name, so it matches no tool."""
    rule = rule.strip()
    name, paren, rest = rule.partition("(")
    if not paren:
        return rule, None
    if not rest.endswith(")"):
        return rule, None
    spec = rest[:-1].strip()
    return name.strip(), spec or None


def command_matches(spec: str, command: str) -> bool:
    """A Bash specifier against one simple command: `prefix:*`, a `*` pattern, or exact text."""
    spec, command = spec.strip(), command.strip()
    if spec.endswith(":*"):  # legacy prefix form, on a word boundary: `npm:*` is not `npmx`
        prefix = spec[:-2].rstrip()
        return command == prefix or command.startswith(prefix) and command[len(prefix)].isspace()
    return _wildcard_regex(spec).fullmatch(command) is not None


@lru_cache(maxsize=1024)
def _wildcard_regex(spec: str) -> re.Pattern[str]:
    """`*` matches any text; `\\*` is a literal star; a final ` *` may also match nothing."""
    optional_tail = spec.endswith(" *")  # `ls *` also matches a bare `ls`, yet not `lsof`
    pieces = re.split(r"(\\\*|\*)", spec[:-2] if optional_tail else spec)
    body = "".join(".*" if p == "*" else re.escape("*" if p == "\\*" else p) for p in pieces)
    return re.compile(body + (r"(?:\s.*)?" if optional_tail else ""), re.DOTALL)


def path_matches(spec: str, path: Path | None, cwd: Path, home: Path) -> bool:
    """A gitignore-style file specifier against an absolute path: the path, or a folder holding
    it, must match, and it must lie under the pattern's anchor (root, home or workspace)."""
    if path is None:
        return False
    if spec.startswith("//"):
        anchor, pattern = Path("/"), spec[2:]
    elif spec == "~" or spec.startswith("~/"):
        anchor, pattern = home, spec[2:]
    else:  # `./x`, `/x` (Claude Code: relative to the settings file) and `x` all start at the workspace
        anchor, pattern = cwd, spec.removeprefix("./")
    anchored = spec.startswith(("/", "~/", "./")) or spec == "~" or "/" in pattern.rstrip("/")
    segments = (pattern.strip("/") or "**").split("/")  # `./`, `~/` and `//` alone mean everything
    while anchored and len(segments) > 1 and not re.search(r"[*?\[]", segments[0]):
        anchor, segments = anchor / segments[0], segments[1:]  # fold literal folders (and `..`)
    try:
        relative = path.relative_to(_normal(anchor))
    except ValueError:
        return False
    regex = _gitignore_regex("/".join(segments), anchored)
    folders = ["/".join(relative.parts[:n]) for n in range(len(relative.parts), 0, -1)]
    return any(regex.fullmatch(candidate) for candidate in folders or [""])


@lru_cache(maxsize=1024)
def _gitignore_regex(pattern: str, anchored: bool) -> re.Pattern[str]:
    """`**/` spans folders, a final `/**` everything inside (and the folder), `*` and `?` stay
    within one name, `[...]` is a class; an unanchored pattern may start in any folder."""
    tail = r"(?:/.*)?" if pattern.endswith("/**") else ""
    pattern = pattern[:-3] if tail else pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            inner = pattern[i + 1:end].replace("\\", "\\\\")
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    try:
        with warnings.catch_warnings():  # odd classes like `[a--b]` warn about future set syntax
            warnings.simplefilter("ignore")
            return re.compile(("" if anchored else "(?:.*/)?") + "".join(out) + tail, re.DOTALL)
    except re.error:  # e.g. a class like [z-a]: take the pattern literally
        return re.compile(re.escape(pattern), re.DOTALL)


def split_command(command: str) -> list[str]:
    """The simple commands of a shell command line: split at `;`, `&`, `&&`, `|`, `||`, newlines and
    parentheses outside quotes; bodies of `$(...)`, `<(...)`, `>(...)` and backquotes are added as
    commands of their own (the enclosing command keeps its text). Raises ValueError when the
    nesting is too deep to read."""
    parts: list[str] = []
    _scan(command.replace("\\\n", " "), 0, 0, parts)
    return [part.strip() for part in parts if part.strip()]


def _scan(text: str, i: int, depth: int, parts: list[str]) -> int:
    """Append the commands of text[i:] to `parts`, up to the `)` closing a nested scan (depth > 0);
    returns the index where the scan stopped."""
    if depth > _MAX_NESTING:
        raise ValueError("command nesting too deep")
    inner: list[str] = []  # substituted commands, added after the command that holds them
    current, quote = "", None
    while i < len(text):
        char = text[i]
        if quote == "'":  # nothing is special inside single quotes
            quote = None if char == "'" else quote
        elif char == "\\":
            current, i = current + text[i:i + 2], i + 2
            continue
        elif char == "`":
            end = text.find("`", i + 1) % (len(text) + 1)  # an unclosed quote runs to the end
            _scan(text[i + 1:end], 0, depth + 1, inner)
            current, i = current + text[i:end + 1], end + 1
            continue
        elif _is_arithmetic(text, i):  # `$((1+2))` runs no command
            end = text.index("))", i) + 2
            current, i = current + text[i:end], end
            continue
        elif text.startswith(("$(", "<(", ">("), i):
            end = _scan(text, i + 2, depth + 1, inner)
            current, i = current + text[i:end + 1], end + 1
            continue
        elif char == '"':
            quote = None if quote else '"'
        elif char == "'" and quote is None:
            quote = "'"
        elif quote is None and char == "(":  # a subshell: its commands are commands of their own
            parts.append(current)
            current, i = "", _scan(text, i + 1, depth + 1, parts) + 1
            continue
        elif quote is None and char == ")" and depth:
            break
        elif quote is None and (char in ";\n|" or char == "&" and _is_separator(text, i)):
            parts.append(current)
            current = ""
            i += 2 if text.startswith(("&&", "||", "|&", ";;"), i) else 1
            continue
        current += char
        i += 1
    parts.append(current)
    parts.extend(inner)
    return i


def _is_arithmetic(text: str, i: int) -> bool:
    """Whether `$((` starts at i and its body, up to `))`, holds no command substitution."""
    end = text.find("))", i) if text.startswith("$((", i) else -1
    return end > 0 and "$(" not in text[i + 3:end] and "`" not in text[i + 3:end]


def _is_separator(text: str, i: int) -> bool:
    """Whether the `&` at i separates commands rather than redirecting (`2>&1`, `&>file`)."""
    return not (i > 0 and text[i - 1] in "<>") and not text.startswith("&>", i)


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


def _normal(path: Path) -> Path:
    text = os.path.normpath(os.path.abspath(path))
    return Path("/" + text.lstrip("/") if text.startswith("//") else text)  # POSIX keeps a leading //


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
