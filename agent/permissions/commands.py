"""Bash rules against commands. Like Claude Code, a rule is matched against several forms of a
command: deny and ask rules see through redirections, every `VAR=value` prefix, wrapper commands
(`timeout`, `nohup`, `sudo`, `xargs`, ...) and commands run through `sh -c`, `eval` or
`find -exec`; allow rules see only through redirections and harmless prefixes (`timeout 120`,
`NODE_ENV=test`), and the policy still judges the files a redirection writes."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from agent.permissions.shell import literal, split_command, tokens

_MAX_FORMS = 64  # forms kept per command: enough for any real prefix chain
_MAX_INNER = 3  # `sh -c "sh -c '...'"` nesting read for deny rules
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_SIMPLE_VALUE = re.compile(r"""[\w./:,+@%=-]*|'[^']*'|"[^"$`\\]*\"""")
# Variables that change how a tool prints or builds, never what command runs.
_HARMLESS_VARIABLES = frozenset(
    "LANG LANGUAGE LC_ALL LC_CTYPE LC_TIME LC_NUMERIC TZ TERM COLORTERM NO_COLOR FORCE_COLOR CLICOLOR "
    "CLICOLOR_FORCE COLUMNS LINES CI NODE_ENV PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE RUST_BACKTRACE "
    "RUST_LOG GOOS GOARCH CGO_ENABLED GO111MODULE DEBIAN_FRONTEND GIT_TERMINAL_PROMPT".split())
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish"})


@dataclass(frozen=True)
class _Wrapper:
    """A command that runs the command named in its arguments."""

    value_options: frozenset[str] = frozenset()  # options whose value is the next word
    positionals: int = 0  # words after the options and before the command (timeout's duration)
    harmless: str | None = None  # for allow rules, a regex of the flags it may carry; None: never
    command_options: frozenset[str] = frozenset()  # options whose value is a whole command line


def _wrapper(options: str = "", positionals: int = 0, harmless: str | None = None, commands: str = "") -> _Wrapper:
    return _Wrapper(frozenset(options.split()), positionals, harmless, frozenset(commands.split()))


_WRAPPERS = {
    "timeout": _wrapper("-s --signal -k --kill-after", 1,
                        r"--foreground|--preserve-status|--verbose|-v|-[sk][\w.+-]+|--(?:signal|kill-after)=[\w.+-]+"),
    "time": _wrapper(harmless="-p"),
    "nice": _wrapper("-n --adjustment", harmless=r"-\d+"),
    "nohup": _wrapper(harmless="(?!)"),
    "stdbuf": _wrapper("-i -o -e --input --output --error", harmless=r"-[ioe]\w+|--(?:input|output|error)=\w+"),
    "command": _wrapper(harmless="-p"),
    "builtin": _wrapper(harmless="(?!)"),
    "noglob": _wrapper(harmless="(?!)"),
    "nocorrect": _wrapper(),
    "exec": _wrapper("-a"),
    "env": _wrapper("-u --unset -C --chdir", commands="-S --split-string"),
    "sudo": _wrapper("-u --user -g --group -U --other-user -C --close-from -D --chdir -h --host -p --prompt "
                     "-r --role -t --type -T --command-timeout"),
    "doas": _wrapper("-u -C"),
    "xargs": _wrapper("-I -L -n -P -s -d -E -a --arg-file --max-args --max-procs --max-lines --max-chars "
                      "--delimiter --replace --eof"),
    "watch": _wrapper("-n --interval"),
    "ionice": _wrapper("-c -n -p -P -u --class --classdata"),
    "setsid": _wrapper(),
    "taskset": _wrapper(positionals=1),
    "chrt": _wrapper("-T -P -D", 1),
    "flock": _wrapper("-w --wait --timeout -E --conflict-exit-code", 1, commands="-c --command"),
    "script": _wrapper("-E -T -m -o -O -B -I", commands="-c --command"),
    "su": _wrapper("-s --shell -g --group", commands="-c --command"),
    "unbuffer": _wrapper(),
}
_VALUE = re.compile(r"[\w.+-]+")
_DURATION = re.compile(r"\d+(?:\.\d+)?[smhd]?")


def deny_forms(command: str) -> list[tuple[str, str]]:
    """(simple command, form) pairs that deny and ask rules are matched against: the whole line and
    each simple command of it, as written and in every form reached by removing redirections and
    comments, squeezing blanks, stripping one `VAR=value` or wrapper command, or unquoting the command
    word and dropping its folder; command lines inside `sh -c`, `eval`, `env -S` or `find -exec`
    are read the same way. Raises ValueError when the line nests too deeply to read."""
    found: dict[str, str] = {}
    _gather(command, 0, found)
    return [(part, form) for form, part in found.items()]


def _gather(line: str, depth: int, found: dict[str, str]) -> None:
    for part in dict.fromkeys([line.strip(), *split_command(line)]):
        for form in _closure(part, harmless=False):
            found.setdefault(form, part)
            for inner in _command_lines(form) if depth < _MAX_INNER else ():
                _gather(inner, depth + 1, found)


def allow_forms(command: str) -> tuple[list[str], list[str]]:
    """The forms of a simple command that allow rules are matched against (as written, without its
    redirections and comments, and with harmless variables and wrappers stripped), and the target
    words of its redirections that write files: an allow rule approves the command only when the
    policy finds those harmless too."""
    written = [t.written_file for t in tokens(command) if t.kind == "redirection" and t.written_file is not None]
    return _closure(command.strip(), harmless=True), written


def _closure(command: str, harmless: bool) -> list[str]:
    """`command` and every form reachable from it by the steps allowed (see the callers)."""
    forms = [command]
    for form in forms:  # grows while it is walked
        steps = [_without_redirections(form), _after_assignment(form, harmless), _after_wrapper(form, harmless)]
        if not harmless:
            steps += [re.sub(r"[ \t]+", " ", form), _plain_command_word(form)]
        for step in steps:
            if step and step not in forms and len(forms) < _MAX_FORMS:
                forms.append(step)
    return forms


def _without_redirections(command: str) -> str:
    """`command` with its redirections and comments cut out."""
    text, cut = "", 0
    for token in tokens(command):
        if token.kind in ("redirection", "comment"):
            text, cut = text + command[cut:token.start].rstrip(" \t"), token.end
    return (text + command[cut:]).strip()


def _words(command: str) -> list[tuple[str, int]]:
    """The leading words of `command` (up to the first operator or redirection) and where each starts."""
    found = []
    for token in tokens(command):
        if token.kind != "word":
            break
        found.append((command[token.start:token.end], token.start))
    return found


def _after_assignment(command: str, harmless: bool) -> str | None:
    """`command` without its first `VAR=value` word; for allow rules only a harmless variable with a
    plain value is stripped."""
    words = _words(command)
    match = _ASSIGNMENT.match(words[0][0]) if len(words) > 1 else None
    if not match:
        return None
    name, value = match.group().rstrip("+=").split("[")[0], words[0][0][match.end():]
    if harmless and not (name in _HARMLESS_VARIABLES and _SIMPLE_VALUE.fullmatch(value)):
        return None
    return command[words[1][1]:]


def _after_wrapper(command: str, harmless: bool) -> str | None:
    """The command a wrapper (`timeout 5 rm x`, `sudo -u me rm x`) runs, or None. For allow rules
    only a harmless wrapper written plainly, with the flags it is known to take, is stripped."""
    words = _words(command)
    if not words:
        return None
    name = words[0][0] if harmless else _command_name(words[0][0])
    wrapper = _WRAPPERS.get(name)
    if wrapper is None or harmless and wrapper.harmless is None:
        return None
    i = 1
    while i < len(words) and words[i][0].startswith("-") and words[i][0] != "-":
        word = words[i][0]
        if word == "--":
            i += 1
            break
        takes_value = word in wrapper.value_options
        if harmless and not (re.fullmatch(wrapper.harmless, word) or takes_value and i + 1 < len(words)
                             and _VALUE.fullmatch(words[i + 1][0])):
            return None
        i += 2 if takes_value else 1
    if harmless and name == "timeout" and not (i < len(words) and _DURATION.fullmatch(words[i][0])):
        return None
    i += wrapper.positionals
    return command[words[i][1]:] if i < len(words) else None


def _command_name(word: str) -> str:
    """What a command word names, read broadly: quotes removed and any folder dropped."""
    return os.path.basename(literal(word) or word)


def _plain_command_word(command: str) -> str | None:
    """`command` with its command word unquoted and without its folder (`/bin/rm` -> `rm`)."""
    words = _words(command)
    if not words or literal(words[0][0]) is None:
        return None
    name = _command_name(words[0][0])
    return name + command[len(words[0][0]):] if name and name != words[0][0] else None


def _command_lines(command: str) -> Iterator[str]:
    """Command lines that `command` runs from its arguments: `sh -c LINE`, `eval WORDS`,
    `env -S LINE`, `flock -c LINE`, `find ... -exec CMD ;`."""
    words = [word for word, _ in _words(command)]
    name = _command_name(words[0]) if words else ""
    wrapper = _WRAPPERS.get(name, _Wrapper())
    for i, word in enumerate(words[1:], start=1):
        option, joined, value = word.partition("=")
        if joined and option.startswith("--") and option in wrapper.command_options:
            yield _unquoted(value)  # `--split-string='rm x'`
            break
        if (name in _SHELLS and re.fullmatch(r"-[a-z]*c[a-z]*", word) or word in wrapper.command_options) \
                and i + 1 < len(words):
            yield _unquoted(words[i + 1])
            break
    if name == "eval":
        yield " ".join(_unquoted(word) for word in words[1:])
    for i, word in enumerate(words):
        if name == "find" and word in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((j for j in range(i + 1, len(words)) if words[j] in (";", "\\;", "';'", '";"', "+")), None)
            yield " ".join(words[i + 1:end])


def _unquoted(word: str) -> str:
    """A word's text with its quotes removed, even when it holds expansions."""
    text = literal(word)
    return text if text is not None else re.sub(r"""\\(.)|['"]""", r"\1", word)


def command_matches(spec: str, command: str, whole: bool = False) -> bool:
    """A Bash specifier against one form of a command, as Claude Code matches it: `prefix:*` (the
    prefix alone or followed by a blank), a pattern with `*` (blanks squeezed; a final ` *` may match
    nothing when it is the only `*`), or exact text. For a `whole` compound command only exact text
    counts (a `prefix:*` equal to the whole command included)."""
    if spec.endswith(":*") and len(spec) > 2:
        prefix, text = _squeezed(spec[:-2]), _squeezed(command)
        return text == prefix or not whole and text.startswith(prefix + " ")
    if re.search(r"(?<!\\)(?:\\\\)*\*", spec):
        return not whole and _wildcard_regex(spec).fullmatch(_squeezed(command)) is not None
    return spec == command


def _squeezed(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


@lru_cache(maxsize=1024)
def _wildcard_regex(spec: str) -> re.Pattern[str]:
    """`*` matches any text, `/**/` also a single `/`; `\\*` is a literal star, `\\\\` a backslash."""
    pieces = [p for p in re.split(r"(\\\*|\\\\|/(?:\*\*/)+|\*)", _squeezed(spec.strip())) if p]
    stars = sum(p.count("*") for p in pieces if p != "\\*")
    optional_tail = stars == 1 and len(pieces) > 1 and pieces[-1] == "*" and pieces[-2].endswith(" ")
    if optional_tail:  # `ls *` also matches a bare `ls`, yet not `lsof`
        pieces = pieces[:-2] + [pieces[-2][:-1]]
    special = {"\\*": r"\*", "\\\\": r"\\", "*": ".*"}
    body = "".join(special.get(p) or ("/(?:.*/)?" if p.startswith("/") and "*" in p else re.escape(p)) for p in pieces)
    return re.compile(body + ("(?: .*)?" if optional_tail else ""), re.DOTALL)
