"""Bash rules against the simple commands of a parsed command line (see `bash_tree`). A rule is
matched against several forms of a command. Deny and ask rules see through every `VAR=value`
prefix, wrapper commands (`timeout`, `nohup`, `sudo`, `xargs`, `env`, ...), a command word's folder
(`/bin/rm` is `rm`) and global options before a subcommand (`git -C . push` is `git push`); the
command lines a command runs (`sh -c`, `eval`, `find -exec`, `watch`, `git rebase -x`, ...) are read
as commands of their own. Allow rules see only through harmless prefixes (`timeout 120`,
`NODE_ENV=test`), and a command that runs another is approved only when that one is approved too."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from agent.permissions.bash_words import HARMLESS_VARIABLES, SimpleCommand, Word
from agent.permissions.runs import text_of
from agent.permissions.rules import linear_regex
from agent.permissions.wrappers import Form, command_name, harmless_wrapped, readings, without_global_options, wrapped

_MAX_FORMS = 64  # forms kept per command: enough for any real prefix chain
_SIMPLE_VALUE = re.compile(r"[\w./:,+@%=-]*")


RUN_TIME = Word("", None)  # a command whose words are all decided at run time


def deny_forms(command: SimpleCommand) -> list[Form]:
    """The forms of a simple command that deny and ask rules are matched against: its words as
    written, and every form reached by stripping a wrapper, dropping global options before a
    subcommand, or dropping the command word's folder."""
    assigned = tuple(Word(f"{name}={value.source}", f"{name}={value.text}" if value.text is not None else None,
                          f"{name}={value.prefix}") for name, value in command.assignments)
    forms = _closure(command.words, harmless=False) if command.words else []
    return forms + [assigned[i:] + command.words for i in range(len(assigned))]


# Programs no argument can make run a command or write a file, so an argument the line makes up at
# run time (`cat $(git ls-files)`) is safe to approve; for any other program it is not.
_ARGUMENT_SAFE = frozenset("echo cat head tail wc ls grep egrep fgrep stat du basename dirname realpath "
                           "readlink cut tr nl tac rev md5sum sha1sum sha256sum sha512sum true false test [".split())


def argument_safe(word: Word) -> bool:
    """Whether the program `word` names takes any argument harmlessly (see `_ARGUMENT_SAFE`)."""
    return word.text in _ARGUMENT_SAFE


def harmless_assignments(command: SimpleCommand) -> bool:
    """Whether every `VAR=value` of `command` sets a variable that changes only how tools print or
    build, to a plain value."""
    return all(name in HARMLESS_VARIABLES and value.text is not None and _SIMPLE_VALUE.fullmatch(value.text)
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
        if harmless:
            steps = [harmless_wrapped(form)]
        else:  # `time { rm x; }` and `timeout 5 ! rm x` as bash or a reader might take them
            steps = [wrapped(form, r) for r in readings(form)] + [
                without_global_options(form), _plain_command_word(form), form[1:] if form[0].source in ("!", "{") else None]
        for step in steps:
            if step and step not in forms and len(forms) < _MAX_FORMS:
                forms.append(step)
    return forms


def _plain_command_word(form: Form) -> Form | None:
    """`form` with its command word's folder dropped (`/bin/rm` -> `rm`)."""
    name = command_name(form[0])
    return (Word(name, name, name), *form[1:]) if name and name != form[0].text else None


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
def _wildcard_regex(spec: str) -> Any:
    """`*` matches any text, `/**/` also a single `/`; `\\*` is a literal star, `\\\\` a backslash."""
    pieces = [p for p in re.split(r"(\\\*|\\\\|/(?:\*\*/)+|\*)", _squeezed(spec)) if p]
    stars = sum(p.count("*") for p in pieces if p != "\\*")
    optional_tail = stars == 1 and len(pieces) > 1 and pieces[-1] == "*" and pieces[-2].endswith(" ")
    if optional_tail:  # `ls *` also matches a bare `ls`, yet not `lsof`
        pieces = pieces[:-2] + [pieces[-2][:-1]]
    special = {"\\*": r"\*", "\\\\": r"\\", "*": ".*"}
    body = "".join(special.get(p) or ("/(?:.*/)?" if p.startswith("/") and "*" in p else re.escape(p)) for p in pieces)
    return linear_regex(body + ("(?: .*)?" if optional_tail else ""))  # every piece is escaped: it compiles
