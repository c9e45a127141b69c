"""What a command runs besides itself: the command line a shell is given (`bash -c LINE`, with its
options read as bash reads them), `eval` and `watch` (their words joined), `trap`, `mapfile -C`,
`env -S`, `su -c` and the other wrappers' line options, `find -exec`, `parallel`, `git rebase -x`,
`git bisect run` and `git submodule foreach`; and None for each command that is decided at run time
(a line built from a variable, a shell or `source` reading its script from stdin or a pipe, a
variable bash runs later)."""

from __future__ import annotations

import re
from typing import Iterator

from agent.permissions.bash_suspects import LATER_RUN, environment_like
from agent.permissions.bash_words import Word
from agent.permissions.wrappers import SHELLS, Form, command_name, readings, without_global_options

_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_STREAMS = ("/dev/stdin", "/dev/fd/", "/proc/", "-")  # a script read from here is what a pipe wrote


def text_of(form: Form) -> str:
    """A form as rules read it: each word's text (as written where run time decides it)."""
    return " ".join(word.shown for word in form)


def command_lines(form: Form) -> Iterator[str | Form | None]:
    """What `form` runs besides itself (see the module docstring): command lines, commands given as
    words (`find -exec CMD ;`), and None for each command built at run time."""
    name, words = command_name(form[0]), [word.shown for word in form]
    for reading in readings(form):
        for word in reading.lines:
            yield _line(word)
    if name in SHELLS:
        yield from _shell_lines(form)
    if name in ("source", "."):
        if len(form) > 1 and _streamed(form[1]):
            yield None
    # `eval` and `watch` join their words into one line for the shell
    for rest in [form[1 + (words[1:2] == ["--"]):]] if name == "eval" else \
            [form[r.start:] for r in readings(form)] if name == "watch" else []:
        yield text_of(rest) if all(word.text is not None for word in rest) else None
    if name == "trap":  # `trap 'rm x' EXIT` runs the line when the shell exits
        rest = _operands(form)
        if len(rest) > 1:
            yield _line(rest[0])
    if name in ("mapfile", "readarray"):  # `-C CALLBACK` is evaluated for each line read
        for i, word in enumerate(words[1:], start=1):
            cluster = re.fullmatch(r"-[a-zA-Z]*C(.*)", word)
            if cluster and cluster.group(1):
                yield _line(Word(cluster.group(1), cluster.group(1) if form[i].text is not None else None))
            elif cluster and i + 1 < len(form):
                yield _line(form[i + 1])
    if name == "xargs":  # `echo rm x | xargs env`: a wrapper left with nothing to run runs its input
        for reading in readings(form):
            inner = form[reading.start:]
            if inner and readings(inner) and all(r.start >= len(inner) for r in readings(inner)):
                yield None
    if name == "parallel" and ":::" in words:  # with no command, parallel runs its arguments
        yield from (_line(word) for word in form[words.index(":::") + 1:])
    if name == "env":
        if any(LATER_RUN.fullmatch(word.partition("=")[0]) for word in words[1:] if "=" in word):
            yield None  # `env BASH_ENV=x bash ...`
    if name == "find":
        for i, word in enumerate(words):
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(i + 1, len(words)) if words[j] in (";", "+")), len(words))
                # `{}` is each file found: any file, and as a command word any program
                yield tuple(Word(w.source, None) if "{}" in w.shown else w for w in form[i + 1:end])
    if name == "git":
        yield from _git_lines(form)


def rebinds(form: Form) -> str | None:
    """Why `form` changes what a later name in the line runs, or None: `alias` (with
    `expand_aliases`), `enable`, `hash -p`, or setting an environment variable such as `PATH` with
    `printf -v`, `read`, `mapfile`, `getopts` or `export`/`declare`."""
    name, words = command_name(form[0]), [word.shown for word in form]
    if name in ("alias", "enable") or name == "hash" and "-p" in words or name == "shopt" and "expand_aliases" in words \
            or name == "set" and "posix" in words or name in SHELLS and "--posix" in words:
        return f"'{name}', which changes what a name runs"  # posix mode expands aliases
    named = []
    if name == "printf":
        named = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "-v"]
    elif name in ("read", "mapfile", "readarray", "getopts", "export", "declare", "typeset", "local", "readonly"):
        named = [word.partition("=")[0] for word in words[1:] if not word.startswith("-")]
    variable = next((word for word in named if environment_like(word)), None)
    return f"'{name}' setting the environment variable {variable}" if variable else None


def _shell_lines(form: Form) -> Iterator[str | None]:
    """What `bash [options] [-c LINE | SCRIPT]` runs: LINE is the first word after the options when
    any option cluster holds `c`; a script read from stdin or a pipe is decided at run time."""
    i, given, stdin = 1, False, False
    while i < len(form):
        word = form[i].shown
        if word in ("--", "-"):
            i += 1
            break
        if word in _SHELL_VALUE_OPTIONS:
            i += 2
            continue
        if word.startswith("--"):
            i += 1
            continue
        if not re.fullmatch(r"[-+][A-Za-z]+", word):
            break
        given = given or "c" in word  # `bash +c LINE` runs LINE too
        stdin = stdin or "s" in word
        i += 2 if word[0] in "-+" and re.search(r"[oO]", word[1:]) else 1
    if given:
        if i < len(form):
            yield _line(form[i])
    elif stdin or i >= len(form) or _streamed(form[i]):
        yield None  # `curl ... | sh`, `bash <(...)`, `bash /dev/stdin <<< ...`


def _streamed(word: Word) -> bool:
    """Whether a script path is decided at run time or names a stream a pipe feeds."""
    return word.text is None or word.text.startswith(_STREAMS)


def _git_lines(form: Form) -> Iterator[str | None]:
    """Command lines git runs for `rebase -x LINE`, `bisect run CMD...` and `submodule foreach LINE`."""
    plain = without_global_options(form) or form
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


def _operands(form: Form) -> list[Word]:
    """The words of `form` after its options (a `--` ends them: `trap -- '-x; cmd' EXIT`)."""
    for i, word in enumerate(form[1:], start=1):
        if word.shown == "--":
            return list(form[i + 1:])
        if not word.shown.startswith("-"):
            return list(form[i:])
    return []
