"""Commands that run another command: wrappers (`timeout 5 rm x`, `sudo -u me rm x`, `env -S 'rm x'`)
and commands with global options before a subcommand (`git -C . push`). Options are read as the
programs read them: short options clustered (`env -vS LINE`, `exec -ca NAME`), a long option by any
unambiguous start (`--sig` for `--signal`), a value inline (`-n5`, `--kill-after=5`) or in the next
word. An option we do not know may take a value or not, so both readings are kept."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from agent.permissions.bash_words import Word

Form = tuple[Word, ...]  # a command's words, the command word first

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish"})
_MAX_READINGS = 8  # readings of one wrapper's options: each unknown long option doubles them
_VALUE = re.compile(r"[\w.+-]+")
_DURATION = re.compile(r"\d+(?:\.\d+)?[smhd]?")


@dataclass(frozen=True)
class _Wrapper:
    """A command that runs the command named in its arguments."""

    value_options: frozenset[str] = frozenset()  # options whose value is the next word
    positionals: int = 0  # words after the options and before the command (timeout's duration)
    harmless: str | None = None  # for allow rules, a regex of the flags it may carry; None: never
    command_options: frozenset[str] = frozenset()  # options whose value is a whole command line
    optional_positional: bool = False  # `runcon CONTEXT cmd` and `runcon -t TYPE cmd` alike
    optional_values: frozenset[str] = frozenset()  # long options whose value comes only after `=`

    @property
    def dash_is_option(self) -> bool:
        """Whether a lone `-` is an option (`su -`, `env -`) rather than the command."""
        return bool(self.command_options) or "-u" in self.value_options


def _wrapper(options: str = "", positionals: int = 0, harmless: str | None = None, commands: str = "",
             optional_positional: bool = False, optional: str = "") -> _Wrapper:
    return _Wrapper(frozenset(options.split()), positionals, harmless, frozenset(commands.split()), optional_positional,
                    frozenset(optional.split()))


WRAPPERS = {
    "timeout": _wrapper("-s --signal -k --kill-after", 1,
                        r"--foreground|--preserve-status|--verbose|-v|-[sk][\w.+-]+|--(?:signal|kill-after)=[\w.+-]+"),
    "time": _wrapper("-o --output -f --format", harmless="-p"),
    "nice": _wrapper("-n --adjustment", harmless=r"-\d+"),
    "nohup": _wrapper(harmless="(?!)"),
    "stdbuf": _wrapper("-i -o -e --input --output --error", harmless=r"-[ioe]\w+|--(?:input|output|error)=\w+"),
    "command": _wrapper(harmless="-p"),
    "builtin": _wrapper(harmless="(?!)"),
    "coproc": _wrapper(),
    "noglob": _wrapper(harmless="(?!)"),
    "nocorrect": _wrapper(),
    "exec": _wrapper("-a"),
    "env": _wrapper("-u --unset -C --chdir -a --argv0", commands="-S --split-string"),
    "sudo": _wrapper("-u --user -g --group -U --other-user -C --close-from -D --chdir -h --host -p --prompt "
                     "-r --role -t --type -T --command-timeout -R --chroot -c --login-class"),
    "doas": _wrapper("-u -C"),
    "xargs": _wrapper("-I -L -n -P -s -d -E -a --arg-file --max-args --max-procs --max-chars --delimiter "
                      "--process-slot-var", optional="--replace --eof --max-lines"),
    "ionice": _wrapper("-c -n -p -P -u --class --classdata"),
    "setsid": _wrapper(),
    "taskset": _wrapper(positionals=1),
    "chrt": _wrapper("-T -P -D", 1),
    "flock": _wrapper("-w --wait --timeout -E --conflict-exit-code", 1, commands="-c --command"),
    "script": _wrapper("-E -T -m -o -O -B -I --echo --log-in --log-out --log-io --log-timing --logging-format "
                       "--output-limit", commands="-c --command"),
    "su": _wrapper("-s --shell -g --group -G --supp-group -w --whitelist-environment", commands="-c --command --session-command"),
    "unbuffer": _wrapper(),
    "strace": _wrapper("-e -o -p -s -u -E -P -b -I -a -S -O -X --output --trace-path --detach-on --interruptible "
                       "--string-limit --user --env --summary-sort-by"),
    "ltrace": _wrapper("-e -o -p -s -u"),
    "chroot": _wrapper(positionals=1),
    "unshare": _wrapper("-w --wd -R --root -S --setuid -G --setgid --map-user --map-group --propagation "
                        "--map-users --map-groups"),
    "nsenter": _wrapper("-t --target -S --setuid -G --setgid -w --wd -r --root"),
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
    "watch": _wrapper("-n --interval -q --equexit"),
    "prlimit": _wrapper("-p --pid -o --output"),
    "setpriv": _wrapper("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits "
                        "--selinux-label --apparmor-profile --landlock-access --landlock-rule --pdeathsig"),
    "setarch": _wrapper(positionals=1),
    "linux32": _wrapper(),
    "linux64": _wrapper(),
    "i386": _wrapper(),
    "x86_64": _wrapper(),
    "runcon": _wrapper("-u --user -r --role -t --type -l --range", optional_positional=True),
    "sg": _wrapper(positionals=1, commands="-c"),
}
# Options before a subcommand, whose value is the next word: `git -C dir push` runs `git push`.


_GLOBAL_OPTIONS = {
    "git": "-C -c --git-dir --work-tree --namespace --config-env --exec-path --super-prefix --shallow-file "
           "--attr-source --list-cmds",
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


def command_name(word: Word) -> str | None:
    """What a command word names, read broadly (its folder dropped), or None when run time decides."""
    return os.path.basename(word.text) if word.text else None


@dataclass(frozen=True)
class Reading:
    """One reading of a wrapper's options: where the command it runs starts, and the words its
    options give as whole command lines (`env -S LINE`, `su -c LINE`)."""

    start: int
    lines: tuple[Word, ...] = ()


APPENDED = Word("", None, substituted=True)  # the arguments `xargs` adds from its input: decided at run time


def readings(form: Form) -> list[Reading]:
    """Every way the wrapper `form` (its command word a wrapper) may be read; [] for others."""
    name = command_name(form[0])
    wrapper = WRAPPERS.get(name or "")
    if wrapper is None:
        return []
    found: list[Reading] = []
    _read_options(form, wrapper, 1, (), found, wrapper.positionals)
    if wrapper.optional_positional:
        _read_options(form, wrapper, 1, (), found, 1)
    scattered = _scattered_lines(form, wrapper)  # `su root -c LINE`: options may follow any word
    return list(dict.fromkeys(_after_assignments(form, name, Reading(r.start, tuple(dict.fromkeys(r.lines + scattered))))
                              for r in found))


def wrapped(form: Form, reading: Reading) -> Form:
    """The command a reading of the wrapper `form` runs; for `xargs`, with the arguments it adds
    from its input as one word decided at run time (they may name any file)."""
    inner = form[reading.start:]
    return inner + (APPENDED,) if inner and command_name(form[0]) == "xargs" else inner


def _scattered_lines(form: Form, wrapper: _Wrapper) -> tuple[Word, ...]:
    """The words any option giving a command line names, wherever it stands in `form`."""
    lines: list[Word] = []
    for i in range(1, len(form)):
        word = form[i].shown
        if word.startswith("--"):
            option, joined, value = word.partition("=")
            if _long_option(option, wrapper) in wrapper.command_options:
                lines += [Word(value, value if form[i].text is not None else None)] if joined else list(form[i + 1:i + 2])
        elif word.startswith("-") and len(word) > 1:
            lines += _short_cluster(form, i, wrapper, ())[1]
    return tuple(lines)


def _read_options(form: Form, wrapper: _Wrapper, i: int, lines: tuple[Word, ...], found: list[Reading],
                  positionals: int) -> None:
    """Add to `found` each reading of the options from form[i] on; options may follow the
    `positionals` too (`flock FILE -c LINE`)."""
    while i < len(form) and form[i].shown.startswith("-") and (form[i].shown != "-" or wrapper.dash_is_option):
        word = form[i].shown
        if word == "--":
            i += 1
            break
        if word == "-":  # `su -` and `env -`: a login shell, an empty environment
            i += 1
            continue
        if word.startswith("--"):
            option, joined, value = word.partition("=")
            full = _long_option(option, wrapper)
            if full in wrapper.command_options:
                lines += (Word(value, value if form[i].text is not None else None),) if joined else form[i + 1:i + 2]
                i += 1 if joined else 2
                continue
            if full is None and not joined and len(found) < _MAX_READINGS:  # unknown: it may take a value
                _read_options(form, wrapper, i + 2, lines, found, positionals)
            i += 2 if full in wrapper.value_options and not joined else 1
            continue
        consumed, lines = _short_cluster(form, i, wrapper, lines)
        i += 2 if consumed else 1
    if positionals and i + positionals < len(form) and form[i + positionals].shown.startswith("-"):
        _read_options(form, wrapper, i + positionals, lines, found, 0)  # some programs permute their options
    found.append(Reading(i + positionals, lines))


def _long_option(option: str, wrapper: _Wrapper) -> str | None:
    """The long option `option` names, exactly or by an unambiguous start; None when unknown."""
    known = [o for o in (*wrapper.value_options, *wrapper.command_options, *wrapper.optional_values)
             if o.startswith("--")]
    if option in known:
        return option
    matching = [o for o in known if o.startswith(option)]
    return matching[0] if len(matching) == 1 else None


def _short_cluster(form: Form, i: int, wrapper: _Wrapper, lines: tuple[Word, ...]) -> tuple[bool, tuple[Word, ...]]:
    """Read `-abc` at form[i]: whether it takes the next word as a value, and the lines it gives."""
    word = form[i].shown
    for j in range(1, len(word)):
        flag, rest = "-" + word[j], word[j + 1:]
        if flag in wrapper.command_options:
            given = (Word(rest, rest if form[i].text is not None else None),) if rest else form[i + 1:i + 2]
            return not rest, lines + given
        if flag in wrapper.value_options:
            return not rest, lines
    return False, lines


def _after_assignments(form: Form, name: str | None, reading: Reading) -> Reading:
    i = reading.start
    while name == "env" and i < len(form) and re.match(r"[A-Za-z_]\w*=", form[i].shown):
        i += 1  # `env A=1 rm x`
    return Reading(i, reading.lines)


def harmless_wrapped(form: Form) -> Form | None:
    """The command a harmless wrapper written plainly, with the flags it is known to take, runs
    (`timeout 120 npm test` -> `npm test`), for allow rules; None for anything else."""
    name = form[0].text
    wrapper = WRAPPERS.get(name or "")
    if wrapper is None or wrapper.harmless is None:
        return None
    words, i = [word.shown for word in form], 1
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        if words[i] == "--":
            i += 1
            break
        takes_value = words[i] in wrapper.value_options
        if not (re.fullmatch(wrapper.harmless, words[i]) or takes_value and i + 1 < len(words)
                and _VALUE.fullmatch(words[i + 1])):
            return None
        i += 2 if takes_value else 1
    if name == "timeout" and not (i < len(words) and _DURATION.fullmatch(words[i])):
        return None
    i += wrapper.positionals
    if any(form[j].text is None for j in range(i)):
        return None
    return form[i:] if i < len(form) else None


def without_global_options(form: Form) -> Form | None:
    """`git -C dir -c k=v push` as `git push`: options before the subcommand dropped."""
    name = command_name(form[0])
    if name not in _GLOBAL_OPTIONS:
        return None
    values, i = _GLOBAL_OPTIONS[name].split(), 1
    while i < len(form) and (form[i].shown.startswith("-") or name == "cargo" and form[i].shown.startswith("+")):
        i += 2 if form[i].shown in values else 1
    return (form[0], *form[i:]) if i > 1 else None
