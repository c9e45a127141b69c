"""The decision for one Bash command, made on its parse tree (`bash_tree`). Deny and ask rules are
matched against every simple command anywhere in the line and every command it runs, and against
the files common readers and writers name (Read and Edit rules); a deny rule wins whenever the
denied command could be what runs. Allow rules fail closed: they approve a line only when the whole
tree is understood, every command in it is covered and every file it writes is a harmless write.

The policy is handed in (duck-typed, so this module imports nothing above it): `mode`,
`bash_rules(kind)`, `file_rule(kind, tool, path)` and `write_problem(path)`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Iterator

from agent.permissions.bash_tree import analyse
from agent.permissions.bash_words import Analysis, SimpleCommand, Word
from agent.permissions.command_files import files_of, moves_folder
from agent.permissions.wording import quoted
from agent.permissions.commands import (RUN_TIME, allow_forms, argument_safe, command_matches, could_match,
                                        deny_forms, harmless_assignments, matches)
from agent.permissions.runs import command_lines, rebinds
from agent.permissions.wrappers import Form, command_name, readings, wrapped

_MAX_INNER_DEPTH = 4  # `sh -c "sh -c '...'"` nesting read
_MAX_COMMANDS = 2_000  # commands read in one line, inner lines included
_MOVING_PATHS = ("/proc/", "/dev/fd/")  # `/proc/self/cwd/../.env` leads where the process stands
_STANDARD_STREAMS = ("/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2")


@dataclass(frozen=True)
class Verdict:
    """Whether a command may run; a refusal says which kind, what was refused and by which rule."""

    allowed: bool
    reason: str = ""  # for approvals: which rule or mode approved
    kind: str = ""  # for refusals: deny, ask, unreadable, could_deny, plan, approval or uncertain
    subject: str = ""
    rule: str = ""
    ways: tuple[str, ...] = ()
    suggestion: str = ""
    path: str = ""  # for approvals: the file written outside the workspace (absolute), as Decision.path


def judge(policy: Any, command: str) -> Verdict:
    """Decide one Bash command under `policy` (see the module docstring)."""
    analysis = analyse(command)
    whole = f"Bash command {quoted(command)}"
    expanded = _expanded(analysis)
    files = _files(expanded)
    for kind in ("deny", "ask") if policy.mode != "bypassPermissions" else ("deny",):
        if refusal := _rule_refusal(kind, policy.bash_rules(kind), expanded, command):
            return refusal
        if refusal := _file_refusal(kind, policy, files, command):
            return refusal
    if policy.mode == "plan":
        return Verdict(False, kind="plan", subject=whole)
    if policy.mode == "bypassPermissions":
        return Verdict(True, "bypassPermissions mode")
    plain = next((text for text, spec in policy.bash_rules("allow") if spec is None), None)
    if plain:  # approves every line, even one we cannot read
        return _writes_refusal(policy, files, expanded, command, needs_sensitive_only=True) or \
            Verdict(True, f"allowed by the rule '{plain}'")
    if problems := expanded.problems or _run_time_words(analysis):
        return Verdict(False, kind="uncertain", subject=f"{whole} has {problems[0]}, so no rule can approve it;")
    if not analysis.commands:  # `[[ ... ]]`, `(( ... ))` or a bare `> file`: no rule names it
        return Verdict(False, kind="approval", subject=whole, ways=("--allowedTools 'Bash'",), suggestion="Bash")
    if refusal := _writes_refusal(policy, files, expanded, command):
        return refusal
    allow = policy.bash_rules("allow")
    if len(analysis.commands) > 1 and any(spec and command_matches(spec, command, whole=True) for _, spec in allow):
        return Verdict(True, "allowed by an exact rule for the whole command")
    for simple in analysis.commands:
        if _approved(policy, simple, 0, _assigned(analysis)) is None:
            suggestion = _suggestion(simple)
            return Verdict(False, kind="approval", subject=_subject(simple, command),
                           ways=(f"--allowedTools '{suggestion}'",), suggestion=suggestion)
    return Verdict(True, "allowed by the permission rules")


def _expanded(analysis: Analysis) -> Analysis:
    """`analysis` with the commands that its commands run added (inner lines parsed in turn; a
    command built at run time added as one whose every word is unknown)."""
    found = Analysis(list(analysis.commands), list(analysis.redirects), list(analysis.problems))
    depths = [0] * len(found.commands)
    i = 0
    while i < len(found.commands) and len(found.commands) < _MAX_COMMANDS:
        command, depth = found.commands[i], depths[i]
        for form in deny_forms(command):
            if (problem := rebinds(form)) and problem not in found.problems:
                found.problems.append(problem)
            for inner in command_lines(form):
                if isinstance(inner, str) and depth < _MAX_INNER_DEPTH:
                    nested = analyse(inner)
                    found.commands += nested.commands
                    found.redirects += nested.redirects
                    found.problems += [p for p in nested.problems if p not in found.problems]
                    depths += [depth + 1] * len(nested.commands)
                else:
                    words = inner if isinstance(inner, tuple) and inner else (RUN_TIME,)
                    found.commands.append(SimpleCommand(command.source, (), words))
                    depths.append(depth + 1)
        i += 1
    if len(found.commands) >= _MAX_COMMANDS:
        found.problems.append("more commands than can be checked")
    return found


def _rule_refusal(kind: str, rules: list[tuple[str, str | None]], found: Analysis, command: str) -> Verdict | None:
    """The refusal of the first rule of `kind` that matches (or could match) a command of the line."""
    if not rules:
        return None
    for text, spec in rules:
        if spec is None or command_matches(spec, command):
            return Verdict(False, kind=kind, subject=f"Bash command {quoted(command)}", rule=text)
    for simple in found.commands:
        for form in deny_forms(simple):
            for text, spec in rules:
                if could_match(spec, form):
                    unknown = any(word.text is None for word in form)
                    return Verdict(False, kind=("could_" + kind) if unknown else kind,
                                   subject=_subject(simple, command), rule=text)
    if found.problems:  # a line we cannot read might hide what the rule names
        return Verdict(False, kind="unreadable" if kind == "deny" else "ask",
                       subject=f"Bash command {quoted(command)} (it has {found.problems[0]})", rule=rules[0][0])
    return None


FileWords = tuple[list[tuple[Word, "str | None"]], list[tuple[Word, "str | None"]]]


def _file_refusal(kind: str, policy: Any, files: FileWords, command: str) -> Verdict | None:
    """The refusal of the first Read or Edit rule of `kind` that covers a file the line reads or writes."""
    for tool, words in (("Read", files[0]), ("Edit", files[1])):
        for word, path in words:
            rule = policy.file_rule(kind, tool, path)
            if rule:
                verb = "reads" if tool == "Read" else "writes"
                what = quoted(path) if path is not None else f"{quoted(word.source)} (which could be any file)"
                return Verdict(False, kind=kind if path is not None else f"could_{kind}",
                               subject=f"Bash command {quoted(command)}, which {verb} {what},", rule=rule)
    return None


def _writes_refusal(policy: Any, files: FileWords, found: Analysis, command: str,
                    needs_sensitive_only: bool = False) -> Verdict | None:
    """Why a file the line writes keeps any rule from approving it (outside the allowed folders, a
    sensitive file, or a target decided at run time), or None."""
    quiet_streams = not _reopening(found)
    for word, path in files[1]:
        if path in _STANDARD_STREAMS and quiet_streams:
            continue  # the standard streams write no file unless the line reopens them on one
        problem = policy.write_problem(path, sensitive_only=needs_sensitive_only)
        if problem is None:
            continue
        kind, detail = problem
        subject = f"Bash command {quoted(command)}, which writes {quoted(path or word.source)}"
        if kind == "sensitive":
            return Verdict(False, kind=kind, subject=subject, rule=detail,
                           ways=("--permission-mode bypassPermissions",))
        outside = policy.command_file(path) if kind == "approval" and path is not None else ""
        return Verdict(False, kind=kind, subject=f"{subject} {detail}" + (";" if kind == "uncertain" else ","),
                       ways=("--allowedTools 'Bash'",), suggestion="", path=outside)
    return None


def _files(found: Analysis) -> FileWords:
    """The words the line reads and writes as files (redirections, and what readers and writers
    name), each with the path it names (see `_path_text`)."""
    reads = [r.target for r in found.redirects if r.reads and r.target is not None]
    writes = [r.target for r in found.redirects if r.writes and r.target is not None]
    if (reopened := _reopening(found)) and any(word.text in _STANDARD_STREAMS for word in writes):
        writes += reopened  # `1<.git/config >/dev/stdout` writes .git/config
    for simple in found.commands:
        for form in deny_forms(simple):
            read, written = files_of(form)
            reads += read
            writes += written
    moved = any(form and moves_folder(form)  # `builtin cd`, `env -C DIR`, `find -execdir`
                for simple in found.commands for form in deny_forms(simple))
    return [(w, _path_text(w, moved)) for w in reads], [(w, _path_text(w, moved)) for w in writes]


def _reopening(found: Analysis) -> list[Word]:
    """The files a line opens on a descriptor of its own (`1<f`, `3<f` then `>&3`, `<>f`): a later
    `/dev/stdout` or `/dev/stderr` may write them."""
    return [r.target for r in found.redirects if r.target is not None
            and (r.fd not in ("", "0") and not r.writes or r.operator == "<>")]


def _path_text(word: Word, moved: bool) -> str | None:
    """The path a file word names, or None when run time decides it (also a relative path when the
    line `moved` to another folder, which changes where it leads)."""
    if word.text is None or not word.text or word.text.startswith(_MOVING_PATHS):
        return None
    if moved and not (os.path.isabs(word.text) or word.text.startswith("~")):
        return None
    return word.text


def _run_time_words(analysis: Analysis) -> list[str]:
    """The commands whose command word is built at run time (`$CMD`, `$(...)`, globs, braces)."""
    return [f"a command word built at run time ({quoted(simple.words[0].source, 40)})"
            for simple in analysis.commands if simple.words and simple.words[0].text is None]


def _approved(policy: Any, simple: SimpleCommand, depth: int, assigned: frozenset[str] = frozenset()) -> str | None:
    """The allow rule that approves `simple` and everything it runs, or None. `assigned`: the
    variables the line sets, whose values it controls."""
    if not simple.words:
        return "a harmless assignment" if harmless_assignments(simple) else None
    for form in allow_forms(simple):
        if form[0].text is None or any(char.isspace() for char in form[0].text):
            continue  # `'ls ./x'` runs a program called `ls ./x`, which no `ls` rule means
        if not argument_safe(form[0]) and any(w.substituted or set(w.variables) & assigned for w in form[1:]):
            continue  # `git log $(echo --output=.git/config)`: options the line itself makes up
        rule = next((text for text, spec in policy.bash_rules("allow") if spec is not None and matches(spec, form)), None)
        command = form[len(simple.assignments):] if form[:1] and form[0].shown.startswith(
            tuple(f"{name}=" for name, _ in simple.assignments[:1])) else form  # `A=1 bash -c ...` runs bash
        if rule and command and all(_inner_approved(policy, inner, depth) for inner in _runs(command)):
            return rule
    return None


def _runs(form: Form) -> Iterator[str | Form | None]:
    """The commands `form` runs besides itself: a wrapper's command (in every reading of its
    options), and its command lines."""
    if command_name(form[0]) == "env" and not harmless_assignments(
            SimpleCommand("", tuple(_env_assignments(form)), ())):
        yield None  # `env PATH=./bin find .` runs the repository's find
    for reading in readings(form):
        yield wrapped(form, reading)
    yield from command_lines(form)


def _env_assignments(form: Form) -> Iterator[tuple[str, Word]]:
    for word in form[1:]:
        name, equals, value = word.shown.partition("=")
        if equals and name.isidentifier():
            yield name, Word(value, value if word.text is not None else None)


def _inner_approved(policy: Any, inner: str | Form | None, depth: int) -> bool:
    if inner is None or depth >= _MAX_INNER_DEPTH:
        return False
    if not isinstance(inner, str):
        return not inner or _approved(policy, SimpleCommand("", (), inner), depth + 1) is not None
    nested = analyse(inner)
    return not nested.problems and not _run_time_words(nested) and all(
        _approved(policy, simple, depth + 1, _assigned(nested)) for simple in nested.commands)


def _assigned(analysis: Analysis) -> frozenset[str]:
    """The variables a line sets: assignments, loops, and what `read`, `mapfile`, `getopts` and
    `printf -v` fill."""
    names = set(analysis.assigned)
    for simple in analysis.commands:
        words = [word.shown for word in simple.words]
        if words and words[0] in ("read", "mapfile", "readarray", "getopts", "printf"):
            names.update(word for word in words[1:] if word.isidentifier())
    return frozenset(names)


def _suggestion(simple: SimpleCommand) -> str:
    """The narrowest allow rule worth offering for an unapproved command: `Bash(word:*)` for its
    plain command word (never an assignment, a pattern or a quoted word with blanks); else `Bash`,
    which an "always" answer approves only once."""
    forms = [form for form in allow_forms(simple) if not simple.assignments or form[0] is simple.words[0]]
    word = forms[-1][0].text if forms and forms[-1] and harmless_assignments(simple) else None
    return f"Bash({word}:*)" if word and re.fullmatch(r"[\w.+-][\w./+-]*", word) else "Bash"


def _subject(simple: SimpleCommand, command: str) -> str:
    whole = " ".join(command.split())
    same = " ".join(simple.source.split()) == whole
    return f"Bash command {quoted(simple.source)}" + ("" if same else f" (part of {quoted(command)})")
