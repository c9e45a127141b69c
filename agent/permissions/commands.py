"""Bash rules against the simple commands of a parsed command line (see `bash_tree`). A rule is
matched against several forms of a command. Deny and ask rules see through every `VAR=value`
prefix, wrapper commands (`timeout`, `nohup`, `sudo`, `xargs`, `env`, ...), a command word's folder
(`/bin/rm` is `rm`) and global options before a subcommand (`git -C . push` is `git push`); the
command lines a command runs (`sh -c`, `eval`, `find -exec`, `watch`, `git rebase -x`, ...) are read
as commands of their own. Allow rules see only through harmless prefixes (`timeout 120`,
`NODE_ENV=test`), and a command that runs another is approved only when that one is approved too."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from agent.permissions.bash_words import SimpleCommand, Word

Form = tuple[Word, ...]  # a command's words, the command word first

_MAX_FORMS = 64  # forms kept per command: enough for any real prefix chain
_SIMPLE_VALUE = re.compile(r"[\w./:,+@%=-]*")
# Variables that change how a tool prints or builds, never what command runs.
_HARMLESS_VARIABLES = frozenset(
    "LANG LANGUAGE LC_ALL LC_CTYPE LC_TIME LC_NUMERIC TZ TERM COLORTERM NO_COLOR FORCE_COLOR CLICOLOR "
    "CLICOLOR_FORCE COLUMNS LINES CI NODE_ENV PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE RUST_BACKTRACE "
    "RUST_LOG GOOS GOARCH CGO_ENABLED GO111MODULE DEBIAN_FRONTEND GIT_TERMINAL_PROMPT".split())
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish"})


@dataclass(frozen=True)
class _Wrapper:
    """A command that runs the command named in its arguments."""

    value_options: frozenset[str] = frozenset()  # options whose value is the next word
    positionals: int = 0  # words after the options and before the command (timeout's duration)
    harmless: str | None = None  # for allow rules, a regex of the flags it may carry; None: never
    command_options: frozenset[str] = frozenset()  # options whose value is a whole command line


def _wrapper(options: str = "", positionals: int = 0, harmless: str | None = None, commands: str = "") -> _Wrapper:
    return _Wrapper(frozenset(options.split()), positionals, harmless, frozenset(commands.split()))


WRAPPERS = {
    "timeout": _wrapper("-s --signal -k --kill-after", 1,
                        r"--foreground|--preserve-status|--verbose|-v|-[sk][\w.+-]+|--(?:signal|kill-after)=[\w.+-]+"),
    "time": _wrapper(harmless="-p"),
    "nice": _wrapper("-n --adjustment", harmless=r"-\d+"),
    "nohup": _wrapper(harmless="(?!)"),
    "stdbuf": _wrapper("-i -o -e --input --output --error", harmless=r"-[ioe]\w+|--(?:input|output|error)=\w+"),
    "command": _wrapper(harmless="-p"),
    "builtin": _wrapper(harmless="(?!)"),
    "coproc": _wrapper(),
    "noglob": _wrapper(harmless="(?!)"),
    "nocorrect": _wrapper(),
    "exec": _wrapper("-a"),
    "env": _wrapper("-u --unset -C --chdir", commands="-S --split-string"),
    "sudo": _wrapper("-u --user -g --group -U --other-user -C --close-from -D --chdir -h --host -p --prompt "
                     "-r --role -t --type -T --command-timeout"),
    "doas": _wrapper("-u -C"),
    "xargs": _wrapper("-I -L -n -P -s -d -E -a --arg-file --max-args --max-procs --max-lines --max-chars "
                      "--delimiter --replace --eof"),
    "ionice": _wrapper("-c -n -p -P -u --class --classdata"),
    "setsid": _wrapper(),
    "taskset": _wrapper(positionals=1),
    "chrt": _wrapper("-T -P -D", 1),
    "flock": _wrapper("-w --wait --timeout -E --conflict-exit-code", 1, commands="-c --command"),
    "script": _wrapper("-E -T -m -o -O -B -I", commands="-c --command"),
    "su": _wrapper("-s --shell -g --group", commands="-c --command"),
    "unbuffer": _wrapper(),
    "strace": _wrapper("-e -o -p -s -u -E"),
    "ltrace": _wrapper("-e -o -p -s -u"),
    "chroot": _wrapper(positionals=1),
    "unshare": _wrapper(),
    "nsenter": _wrapper("-t --target"),
    "firejail": _wrapper(),
    "proxychains": _wrapper("-f"),
    "caffeinate": _wrapper(),
    "dbus-run-session": _wrapper(),
    "fakeroot": _wrapper(),
    "busybox": _wrapper(),
    "pkexec": _wrapper("--user"),
    "runuser": _wrapper("-u --user -g --group -s --shell", commands="-c --command"),
    "systemd-run": _wrapper("-p --property -u --unit -E --setenv --uid --gid --working-directory"),
    "parallel": _wrapper("-j --jobs -S --sshlogin --joblog -a --arg-file --delay --timeout"),
}
# Options before a subcommand, whose value is the next word: `git -C dir push` runs `git push`.
_GLOBAL_OPTIONS = {
    "git": "-C -c --git-dir --work-tree --namespace --config-env --exec-path --super-prefix",
    "npm": "-C --prefix -w --workspace --userconfig",
    "pnpm": "-C --dir -F --filter --workspace-dir",
    "yarn": "--cwd",
    "docker": "-c --context -H --host --config -l --log-level --tlscacert --tlscert --tlskey",
    "kubectl": "-n --namespace --context --kubeconfig -s --server --cluster --user --as",
    "make": "-C --directory -f --file --makefile -j --jobs -l -o -W",
    "cargo": "-C --config -Z --color",
    "go": "-C",
    "uv": "--directory --project",
    "poetry": "-C --directory -P --project",
    "terraform": "",
    "helm": "-n --namespace --kube-context --kubeconfig",
    "gh": "-R --repo",
}
_VALUE = re.compile(r"[\w.+-]+")
_DURATION = re.compile(r"\d+(?:\.\d+)?[smhd]?")
RUN_TIME = Word("", None)  # a command whose words are all decided at run time


def text_of(form: Form) -> str:
    """A form as rules read it: each word's text (as written where run time decides it)."""
    return " ".join(word.shown for word in form)


def command_name(word: Word) -> str | None:
    """What a command word names, read broadly (its folder dropped), or None when run time decides."""
    return os.path.basename(word.text) if word.text else None


def deny_forms(command: SimpleCommand) -> list[Form]:
    """The forms of a simple command that deny and ask rules are matched against: its words as
    written, and every form reached by stripping a wrapper, dropping global options before a
    subcommand, or dropping the command word's folder."""
    assigned = tuple(Word(f"{name}={value.source}", f"{name}={value.text}" if value.text is not None else None,
                          f"{name}={value.prefix}") for name, value in command.assignments)
    forms = _closure(command.words, harmless=False) if command.words else []
    return forms + [assigned[i:] + command.words for i in range(len(assigned))]


def harmless_assignments(command: SimpleCommand) -> bool:
    """Whether every `VAR=value` of `command` sets a variable that changes only how tools print or
    build, to a plain value."""
    return all(name in _HARMLESS_VARIABLES and value.text is not None and _SIMPLE_VALUE.fullmatch(value.text)
               for name, value in command.assignments)


def allow_forms(command: SimpleCommand) -> list[Form]:
    """The forms of a simple command that allow rules are matched against: as written (its
    `VAR=value` prefixes included, unless each is harmless) and with harmless wrappers stripped."""
    prefixes = tuple(Word(f"{name}={value.source}", f"{name}={value.text}" if value.text is not None else None)
                     for name, value in command.assignments)
    forms = _closure(command.words, harmless=True) if harmless_assignments(command) and command.words else []
    return forms + ([prefixes + command.words] if prefixes and command.words else [])


def _closure(words: Form, harmless: bool) -> list[Form]:
    forms = [words]
    for form in forms:  # grows while it is walked
        steps = [_after_wrapper(form, harmless)]
        if not harmless:  # `time { rm x; }` and `timeout 5 ! rm x` as bash or a reader might take them
            steps += [_without_global_options(form), _plain_command_word(form),
                      form[1:] if form[0].source in ("!", "{") else None]
        for step in steps:
            if step and step not in forms and len(forms) < _MAX_FORMS:
                forms.append(step)
    return forms


def _after_wrapper(form: Form, harmless: bool) -> Form | None:
    """The command a wrapper (`timeout 5 rm x`, `sudo -u me rm x`) runs, or None. For allow rules
    only a harmless wrapper written plainly, with the flags it is known to take, is stripped."""
    name = form[0].text if harmless else command_name(form[0])
    wrapper = WRAPPERS.get(name or "")
    if wrapper is None or harmless and wrapper.harmless is None:
        return None
    words, i = [word.shown for word in form], 1
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        if words[i] == "--":
            i += 1
            break
        takes_value = words[i] in wrapper.value_options
        if harmless and not (re.fullmatch(wrapper.harmless, words[i]) or takes_value and i + 1 < len(words)
                             and _VALUE.fullmatch(words[i + 1])):
            return None
        i += 2 if takes_value else 1
    if harmless and name == "timeout" and not (i < len(words) and _DURATION.fullmatch(words[i])):
        return None
    i += wrapper.positionals
    while name == "env" and i < len(words) and re.match(r"[A-Za-z_]\w*=", words[i]):
        i += 1  # `env A=1 rm x`
    if harmless and any(form[j].text is None for j in range(i)):
        return None
    return form[i:] if i < len(form) else None


def _without_global_options(form: Form) -> Form | None:
    """`git -C dir -c k=v push` as `git push`: options before the subcommand dropped."""
    name = command_name(form[0])
    if name not in _GLOBAL_OPTIONS:
        return None
    values, i = _GLOBAL_OPTIONS[name].split(), 1
    while i < len(form) and (form[i].shown.startswith("-") or name == "cargo" and form[i].shown.startswith("+")):
        i += 2 if form[i].shown in values else 1
    return (form[0], *form[i:]) if i > 1 else None


def _plain_command_word(form: Form) -> Form | None:
    """`form` with its command word's folder dropped (`/bin/rm` -> `rm`)."""
    name = command_name(form[0])
    return (Word(name, name, name), *form[1:]) if name and name != form[0].text else None


def command_lines(form: Form) -> Iterator[str | Form | None]:
    """What `form` runs besides itself: command lines (`sh -c LINE`, `eval WORDS`, `env -S LINE`,
    `watch CMD`, `trap LINE SIG`, `git rebase -x LINE`, ...), commands given as words (`find -exec CMD ;`), and None for
    each command built at run time (`sh -c "$x"`, a shell reading its script from stdin)."""
    name, words = command_name(form[0]), [word.shown for word in form]
    wrapper = WRAPPERS.get(name or "", _Wrapper())
    for i, word in enumerate(words[1:], start=1):
        option, joined, value = word.partition("=")
        if joined and option.startswith("--") and option in wrapper.command_options:
            yield _line(form[i], value)
            break
        if (name in SHELLS and re.fullmatch(r"-[a-z]*c[a-z]*", word) or word in wrapper.command_options) \
                and i + 1 < len(words):
            yield _line(form[i + 1])
            break
    else:
        if name in SHELLS and all(word.startswith("-") for word in words[1:]):
            yield None  # `curl ... | sh`: the commands come from stdin
    if name in ("eval", "watch"):  # both join their words into one line for the shell
        rest = form[1 if name == "eval" else _skip_options(words, 1, {"-n", "--interval"}):]
        yield text_of(rest) if all(word.text is not None for word in rest) else None
    if name == "trap":  # `trap 'rm x' EXIT` runs the line when the shell exits
        rest = [word for word in form[1:] if not word.shown.startswith("-")]
        if len(rest) > 1:
            yield _line(rest[0])
    if name == "find":
        for i, word in enumerate(words):
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(i + 1, len(words)) if words[j] in (";", "+")), len(words))
                yield form[i + 1:end]
    if name == "git":
        yield from _git_lines(form)


def _git_lines(form: Form) -> Iterator[str | None]:
    """Command lines git runs for `rebase -x LINE`, `bisect run CMD...` and `submodule foreach LINE`."""
    plain = _without_global_options(form) or form
    words = [word.shown for word in plain]
    if words[1:2] == ["rebase"]:
        for i, word in enumerate(words):
            if word in ("-x", "--exec") and i + 1 < len(words):
                yield _line(plain[i + 1])
            elif word.startswith("--exec="):
                yield _line(plain[i], word.partition("=")[2])
    if words[1:3] == ["bisect", "run"] and len(plain) > 3:
        yield text_of(plain[3:]) if all(w.text is not None for w in plain[3:]) else None
    if words[1:3] == ["submodule", "foreach"]:
        rest = [w for w in plain[3:] if not w.shown.startswith("--")]
        if rest:
            yield _line(rest[0])


def _line(word: Word, value: str | None = None) -> str | None:
    """The command line a word holds, or None when run time decides it."""
    if word.text is None:
        return None
    return value if value is not None else word.text


def _skip_options(words: list[str], i: int, valued: set[str]) -> int:
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in valued else 1
    return i


def could_match(spec: str, form: Form, whole: bool = False) -> bool:
    """Whether a Bash specifier matches `form`, or could once run time decides its unknown words:
    the text before the first unknown word, with that word's literal start, must agree with the
    rule's literal start (the text before its first `*`) as far as either goes."""
    unknown = next((i for i, word in enumerate(form) if word.text is None), None)
    if unknown is None:
        return matches(spec, form, whole)
    head = spec[:-2] if spec.endswith(":*") else spec
    star = re.search(r"(?<!\\)\*", head)
    literal = _squeezed(head[:star.start()] if star else head)
    for words in ([w.shown for w in form[:unknown]], [w.source for w in form[:unknown]]):
        known = _squeezed(" ".join([*words, form[unknown].prefix]))
        if literal.startswith(known) or known.startswith(literal):
            return True
    return False


def matches(spec: str, form: Form, whole: bool = False) -> bool:
    """Whether a Bash specifier matches `form` read as text: its words as bash reads them, or as
    written (a word decided at run time is its source text either way)."""
    return command_matches(spec, text_of(form), whole) or command_matches(spec, " ".join(w.source for w in form), whole)


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
    return _squeezed(spec) == _squeezed(command)


def _squeezed(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text.strip())


@lru_cache(maxsize=1024)
def _wildcard_regex(spec: str) -> re.Pattern[str]:
    """`*` matches any text, `/**/` also a single `/`; `\\*` is a literal star, `\\\\` a backslash."""
    pieces = [p for p in re.split(r"(\\\*|\\\\|/(?:\*\*/)+|\*)", _squeezed(spec)) if p]
    stars = sum(p.count("*") for p in pieces if p != "\\*")
    optional_tail = stars == 1 and len(pieces) > 1 and pieces[-1] == "*" and pieces[-2].endswith(" ")
    if optional_tail:  # `ls *` also matches a bare `ls`, yet not `lsof`
        pieces = pieces[:-2] + [pieces[-2][:-1]]
    special = {"\\*": r"\*", "\\\\": r"\\", "*": ".*"}
    body = "".join(special.get(p) or ("/(?:.*/)?" if p.startswith("/") and "*" in p else re.escape(p)) for p in pieces)
    return re.compile(body + ("(?: .*)?" if optional_tail else ""), re.DOTALL)
