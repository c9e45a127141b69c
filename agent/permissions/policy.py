"""The permission policy: given the merged rules and mode, may this tool call run? Claude Code's
order of decision (see the package docstring); a refusal carries the sentence the model sees."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterable

from agent.permissions.decisions import Decision, refusal
from agent.permissions.modes import MODES, agent_mode  # noqa: F401 (MODES: read from here by settings)
from agent.permissions.paths import normal_path, path_matches
from agent.permissions.rules import MCP_PREFIX, Rule, merge_rules, read_rule, split_rules
from agent.permissions.wording import quoted
from agent.permissions.sensitive import names_entry, sensitive_name
from agent.permissions.web_domains import domain_matches, fetch_host

READ_FAMILY = ("Read", "Glob", "Grep")  # a Read rule applies to every tool that reads files
EDIT_FAMILY = ("Edit", "Write", "NotebookEdit")  # an Edit rule applies to every tool that edits files
FREE_TOOLS = ("Agent",)  # launching a subagent changes nothing; its own tools are checked (dontAsk: see check)
ASKING_READS = ("WebFetch",)  # read nothing of the machine, so plan mode lets them run, but each use is approved
_QUIET_FILES = ("/dev/null",)  # writes nothing (the standard streams depend on the line: see bash_check)


@dataclass(frozen=True)
class Policy:
    """The merged rules and mode of one session; `check` decides each tool call."""

    mode: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    ask: tuple[str, ...]
    cwd: Path
    home: Path
    directories: tuple[Path, ...] = ()  # permissions.additionalDirectories: edited like the workspace
    quiet: bool = False  # plan mode kept from a subagent's declared dontAsk: nobody is asked (see modes)

    @property
    def asks(self) -> bool:
        """Whether a call needing approval may be put to a person (dontAsk never asks)."""
        return self.mode != "dontAsk" and not self.quiet

    def for_agent(self, declared: object) -> Policy:
        """This policy for a subagent whose definition declares `declared` as its permissionMode
        (None: unset), the modes combined as `modes.agent_mode` says."""
        mode, quiet = agent_mode(declared, self.mode, self.quiet)
        return replace(self, mode=mode, quiet=quiet)

    def check(self, tool_name: str, arguments: dict, read_only: bool) -> Decision:
        """Decide one call of `tool_name` with `arguments`; `read_only` is the tool's flag."""
        args = arguments if isinstance(arguments, dict) else {}
        tool_name = tool_name if isinstance(tool_name, str) else ""
        if tool_name == "Bash":
            command = args.get("command")  # judged exactly as bash will run it: no strip() of what bash keeps
            return self._check_bash(command if isinstance(command, str) else "")
        subject, paths = self._subject(tool_name, args), self._paths(tool_name, args)
        if rule := self._first_match("deny", tool_name, args, paths):
            return refusal("deny", subject, rule)
        if self.mode != "bypassPermissions" and (rule := self._first_match("ask", tool_name, args, paths)):
            return refusal("ask", subject, rule)
        if self.mode == "plan" and not (read_only or tool_name in FREE_TOOLS + ASKING_READS):
            return refusal("plan", subject)
        if entries := self._unnamed_sensitive(tool_name, args, paths):
            rules = self._suggestions(tool_name, args)
            how = (f"an allow rule naming that path (such as --allowedTools '{rules[0]}') or " if rules else
                   "") + "--permission-mode bypassPermissions"
            return refusal("sensitive", subject, entries[0], ways=[how])
        if rule := self._first_match("allow", tool_name, args, paths):
            return Decision(True, f"allowed by the rule '{rule}'")
        if self.mode == "bypassPermissions":
            return Decision(True, "bypassPermissions mode")
        if read_only or (tool_name in FREE_TOOLS and self.mode != "dontAsk"):  # the seed: dontAsk wants a rule
            return Decision(True, "needs no approval")
        if self.mode == "acceptEdits" and self._edit_inside(tool_name, args):
            return Decision(True, "acceptEdits mode")
        rules = self._suggestions(tool_name, args)  # none when a symlink makes the path two paths
        extra = ["--permission-mode acceptEdits"] if self._edit_inside(tool_name, args) else []
        broad = "Edit" if tool_name in EDIT_FAMILY else tool_name
        server = [f"--allowedTools '{MCP_PREFIX}{name}' (every tool of that MCP server)"
                  for name in [tool_name[len(MCP_PREFIX):].split("__", 1)[0]] if tool_name.startswith(MCP_PREFIX) and name]
        outside = [path for path in self._targets(tool_name, args) if not self._editable(path)] \
            if tool_name in EDIT_FAMILY else []
        return refusal("approval", subject, ways=[f"--allowedTools '{rules[0] if rules else broad}'", *extra, *server],
                       suggestion=rules[0] if rules else "", mode=self.mode, path=str(outside[0]) if outside else "")

    def removes(self, tool_name: str) -> bool:
        """Whether a deny rule covers every use of `tool_name` (no specifier): Claude Code then
        neither offers the tool nor names it, as this agent does for MCP tools."""
        return any(rule.specifier is None and rule.names(tool_name) for _, rule in self._readings("deny"))

    def with_allowed(self, rules: Iterable[str] | str) -> Policy:
        """This policy with extra allow rules, e.g. a skill's `allowed-tools` while it is active."""
        extra = split_rules(rules) if isinstance(rules, str) else [r for r in rules if isinstance(r, str)]
        return replace(self, allow=merge_rules(self.allow, extra))

    def _check_bash(self, command: str) -> Decision:
        """Decided on the command's parse tree (see `bash_check`)."""
        from agent.permissions.bash_check import judge  # the parser loads only when a command is checked

        try:
            verdict = judge(self, command)
        except (ValueError, UnicodeError, RecursionError) as error:  # fail closed, and the run goes on
            rule = next((text for text, _ in self.bash_rules("deny")), "")
            subject = f"Bash command {quoted(command)} (the checker could not read it: {type(error).__name__})"
            return refusal("unreadable", subject, rule) if rule else refusal(
                "uncertain", subject + ", so no rule can approve it;")
        if verdict.allowed:
            return Decision(True, verdict.reason)
        return refusal(verdict.kind, verdict.subject, verdict.rule, verdict.ways, verdict.suggestion, self.mode,
                       verdict.path)

    def bash_rules(self, kind: str) -> list[tuple[str, str | None]]:
        """(rule text, specifier) of each Bash rule of `kind`; the specifier is None for all of Bash."""
        return [(text, rule.specifier) for text, rule in self._readings(kind) if rule.names("Bash")]

    def file_rule(self, kind: str, tool: str, path: str | None) -> str | None:
        """The first Read or Edit rule of `kind` covering `path` (a command's file word, relative to
        the workspace); for None (a path decided at run time), the first such rule with a path."""
        if path is None:
            return next((text for text, rule in self._readings(kind) if rule.specifier is not None and (
                rule.names(tool) or any(rule.names(t) for t in (READ_FAMILY if tool == "Read" else EDIT_FAMILY)))),
                None)
        return next((rule for args in self._command_files(path)
                     if (rule := self._first_match(kind, tool, args, self._paths(tool, args)))), None)

    def write_problem(self, path: str | None, sensitive_only: bool = False) -> tuple[str, str] | None:
        """Why a command's write to `path` keeps an allow rule from approving it, as (refusal kind,
        detail), or None when it is harmless: decided at run time ("uncertain"), a sensitive file
        ("sensitive", the detail naming its entry) or outside the allowed folders ("approval"). With
        `sensitive_only` (a plain `Bash` rule, which approves writing anywhere) only a sensitive file counts."""
        if path is None:
            return None if sensitive_only else ("uncertain", "which is decided at run time")
        if entry := self.sensitive_write(path):
            return "sensitive", entry
        if sensitive_only or self._harmless_write(path):
            return None
        return "approval", "outside the workspace and the additional directories (or where an Edit rule asks)"

    def _readings(self, kind: str) -> Iterable[tuple[str, Rule]]:
        """Each rule of `kind` with the reading that kind uses: strict for allow, broad for deny and ask."""
        for text in getattr(self, kind):
            reading = read_rule(text)
            rule = reading.strict if kind == "allow" else reading.broad
            if rule is not None:
                yield text, rule

    def _first_match(self, kind: str, tool: str, args: dict[str, Any], paths: Callable[[], list[Path]]
                     ) -> str | None:
        """The first rule of `kind` that covers this call (`paths`: see `_paths`)."""
        broad = kind != "allow"
        return next((text for text, rule in self._readings(kind) if self._matches(rule, tool, args, broad, paths)), None)

    def _paths(self, tool: str, args: dict[str, Any]) -> Callable[[], list[Path]]:
        """The paths a file tool's call works on (see `_targets`), found once and only when a rule asks."""
        return cache(lambda: self._targets(tool, args))

    def _matches(self, rule: Rule, tool: str, args: dict[str, Any], broad: bool,
                 paths: Callable[[], list[Path]]) -> bool:
        """Whether `rule` covers this call: the tool (or its family) and, if given, the specifier.
        A broad (deny or ask) path rule matches when any form of the path does, a strict one when
        all do."""
        family = (rule.names(tool) or (rule.names("Edit") and tool in EDIT_FAMILY)
                  or (rule.names("Read") and tool in READ_FAMILY))
        if not family or rule.specifier is None:
            return family
        if tool in READ_FAMILY + EDIT_FAMILY:
            hits = [path_matches(rule.specifier, path, self.cwd, self.home, broad) for path in paths()]
            return any(hits) if broad else bool(hits) and all(hits)
        from agent.permissions.commands import command_matches  # loaded with the Bash checks, when first needed

        if tool == "Agent":
            return command_matches(rule.specifier, _text(args.get("subagent_type")) or "general-purpose")
        if tool == "Skill":
            return command_matches(rule.specifier, _text(args.get("skill")).removeprefix("/"))
        if tool == "WebFetch":
            return domain_matches(rule.specifier, args.get("url"))
        return False  # a specifier we cannot interpret never matches

    def _target(self, tool: str, args: dict[str, Any]) -> Path | None:
        """The absolute, normalised path a file tool works on, resolved as the tools resolve it."""
        value = args.get("path" if tool in ("Glob", "Grep") else "notebook_path" if tool == "NotebookEdit" else "file_path")
        if not isinstance(value, str) or not value:
            return normal_path(self.cwd) if tool in ("Glob", "Grep") else None
        if value == "~" or value.startswith("~/"):
            value = str(self.home) + value[1:]
        try:
            value = os.path.expanduser(value)  # `~user/x`, as the tools resolve it
        except ValueError:  # an embedded NUL: the tool itself will refuse the path
            pass
        return normal_path(Path(value) if os.path.isabs(value) else Path(self.cwd, value))

    def _targets(self, tool: str, args: dict[str, Any]) -> list[Path]:
        """The path a file tool works on, and its real target when that differs: symlinks resolved,
        for a path that does not exist yet in its nearest existing parent (the rest appended), as
        the tools save it. Deny and ask rules match when any of them does, allow rules when all do."""
        path = self._target(tool, args)
        if path is None:
            return []
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            return [path]
        return [path] if real == path else [path, real]

    def _inside(self, path: Path) -> str | None:
        """`path` relative to the workspace when it is inside it, else None."""
        try:
            return path.relative_to(normal_path(self.cwd)).as_posix()
        except ValueError:
            return None

    def _folders(self) -> tuple[Path, ...]:
        """The workspace and the additional directories, each as given and as its real path."""
        given = (normal_path(self.cwd), *self.directories)
        return tuple(dict.fromkeys([*given, *(Path(os.path.realpath(folder)) for folder in given)]))

    def _editable(self, path: Path) -> bool:
        """Whether `path` lies in the workspace or one of the additional directories."""
        return any(path == folder or folder in path.parents for folder in self._folders())

    def _edit_inside(self, tool: str, args: dict[str, Any]) -> bool:
        """Whether the call edits a file inside the workspace or an additional directory (what
        acceptEdits approves): the path as written and its real target both lie there."""
        paths = self._targets(tool, args) if tool in EDIT_FAMILY else []
        return bool(paths) and all(map(self._editable, paths))

    def _unnamed_sensitive(self, tool: str, args: dict[str, Any], paths: Callable[[], list[Path]]) -> list[str]:
        """The sensitive entries (see `sensitive`) an edit changes, as written or at its real
        target, unless an allow rule naming every one of them covers the call; [] in bypass mode."""
        if tool not in EDIT_FAMILY or self.mode == "bypassPermissions":
            return []
        homes, folders = (normal_path(self.home), Path(os.path.realpath(self.home))), self._folders()
        entries = list(dict.fromkeys(filter(None, (sensitive_name(path, homes, folders) for path in paths()))))
        named = entries and any(all(names_entry(rule.specifier, entry) for entry in entries)
                                and self._matches(rule, tool, args, False, paths)
                                for _, rule in self._readings("allow") if rule.specifier is not None)
        return [] if named else entries

    def sensitive_write(self, path: str) -> str | None:
        """The sensitive entry (`.git`, `.claude`, `.ssh`, ... see `agent.permissions.sensitive`)
        that a command's write to `path` (as the shell reads it: relative to the workspace, `~/` the
        home folder) would change, as written or at its real target, when no allow rule naming it
        approves that; None otherwise, and in bypass mode."""
        return next((entries[0] for args in self._command_files(path)
                     if (entries := self._unnamed_sensitive("Edit", args, self._paths("Edit", args)))), None)

    def _harmless_write(self, path: str) -> bool:
        """Whether a command's write to `path` may pass with an allow rule: a plain file in the
        workspace (or an additional directory), also at its real target, that is not sensitive
        (or an allow rule names it) and no Edit deny or ask rule covers; or /dev/null."""
        if path in _QUIET_FILES:
            return True
        return all(self._edit_inside("Edit", args) and not self._first_match("deny", "Edit", args, paths)
                   and not self._first_match("ask", "Edit", args, paths)
                   and not self._unnamed_sensitive("Edit", args, paths)
                   for args in self._command_files(path) for paths in [self._paths("Edit", args)])

    def command_file(self, path: str) -> str:
        """The absolute path of a file a command names (`~/` the home folder), as written."""
        return self._command_files(path)[0]["file_path"]

    def _command_files(self, path: str) -> list[dict[str, str]]:
        """The Edit arguments of a file a command names (`~` and `~/` are the home folder): as
        written, and as the system resolves it, a symlink before each `..` (`link/../x`)."""
        if path == "~" or path.startswith("~/"):
            path = str(self.home) + path[1:]
        joined = os.path.join(self.cwd, path)
        try:
            physical = os.path.realpath(joined)
        except (OSError, ValueError):
            physical = joined
        return [{"file_path": text} for text in dict.fromkeys([str(normal_path(Path(joined))), physical])]

    def _subject(self, tool: str, args: dict[str, Any]) -> str:
        """What the call does, as the refusal names it."""
        if tool in READ_FAMILY + EDIT_FAMILY and (path := self._target(tool, args)) is not None:
            inside = self._inside(path)
            subject = f"{tool} {'in' if tool in ('Glob', 'Grep') else 'of'} {quoted(inside or str(path))}"
            away = tool in EDIT_FAMILY and self._editable(path) and not self._edit_inside(tool, args)
            return subject + (" (its real path, through a symlink, is outside the workspace)" if away else "")
        key = {"Agent": "subagent_type", "Skill": "skill"}.get(tool)
        value = _text(args.get(key)) if key else ""
        return f"{tool} {quoted(value)}" if value else tool

    def _suggestions(self, tool: str, args: dict[str, Any]) -> list[str]:
        """Allow rules that would approve the refused call, most specific first; none for a path
        that leads through a symlink (an allow rule must cover the path and its real target)."""
        path = self._target(tool, args) if tool in READ_FAMILY + EDIT_FAMILY else None
        kind = _text(args.get("subagent_type")) or "general-purpose"
        if tool == "Agent" and kind.replace("-", "").replace("_", "").isalnum():  # a name a rule holds as written
            return [f"Agent({kind})", "Agent"]
        if tool == "WebFetch" and (host := fetch_host(args.get("url"))):
            return [f"WebFetch(domain:{host})", "WebFetch"]
        if path is None:
            return [tool]
        if len(self._targets(tool, args)) > 1:
            return []
        name = "Edit" if tool in EDIT_FAMILY else tool
        if inside := self._inside(path):
            return [f"{name}(./{inside})"]
        home = normal_path(self.home)
        return [f"{name}(~/{path.relative_to(home).as_posix()})" if home in path.parents else f"{name}(/{path.as_posix()})"]


def grant(policy: Policy | None, rules: Iterable[str]) -> Policy | None:
    """`policy` with `rules` (a skill's `allowed-tools`) approved too; unchanged when there are none."""
    return policy.with_allowed(list(rules)) if policy is not None and rules else policy


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
