"""The pieces of a Bash command line as `bash_tree` reads it (words, redirections, simple
commands) and how bash makes a word's text: quotes removed, backslashes and `$'...'` escapes read,
and whatever expansion decides at run time (globs, braces, `~user`) marked as unknown."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")  # what bash brace-expands: `{a,b}`, `{1..3}`
# Variables that change how a tool prints or builds, never what command runs.
HARMLESS_VARIABLES = frozenset(
    "LANG LANGUAGE LC_ALL LC_CTYPE LC_TIME LC_NUMERIC TZ TERM COLORTERM NO_COLOR FORCE_COLOR CLICOLOR "
    "CLICOLOR_FORCE COLUMNS LINES CI NODE_ENV PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE RUST_BACKTRACE "
    "RUST_LOG GOOS GOARCH CGO_ENABLED GO111MODULE DEBIAN_FRONTEND GIT_TERMINAL_PROMPT".split())
_ANSI_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


@dataclass(frozen=True)
class Word:
    """One shell word: `text` is what bash makes of it, or None when expansion at run time (a
    variable, a substitution, a glob, braces, `~user`) decides it; `prefix` is its literal start."""

    source: str
    text: str | None
    prefix: str = ""
    variables: tuple[str, ...] = ()  # the variables its value depends on
    substituted: bool = False  # whether a command's output is part of it (`$(...)`, `<(...)`)

    @property
    def shown(self) -> str:
        """The word as rules see it: its text, or as written when that is decided at run time."""
        return self.text if self.text is not None else self.source


@dataclass(frozen=True)
class Redirect:
    """A redirection: its operator (`>`, `>>`, `<`, `<<<`, `&>`, `>&`, ...), its target word and the
    file descriptor written before it (`2>`), if any."""

    operator: str
    target: Word | None
    fd: str = ""

    @property
    def writes(self) -> bool:
        """Whether it writes a file (not `2>&1`, `>&-` or a read)."""
        if self.operator == ">&" and self.target is not None and re.fullmatch(r"\d+|-", self.target.shown):
            return False
        return self.operator in (">", ">>", ">|", "&>", "&>>", "<>", ">&")

    @property
    def reads(self) -> bool:
        """Whether it reads a file (`<`, `<>`)."""
        return self.operator in ("<", "<>")


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its `VAR=value` prefixes, then its words (the command word first; empty
    for a bare assignment); `source` is its text as written."""

    source: str
    assignments: tuple[tuple[str, Word], ...]
    words: tuple[Word, ...]


@dataclass
class Analysis:
    """What a command line does, as far as a static reading can tell."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # constructs not understood, each named
    assigned: set[str] = field(default_factory=set)  # variables the line itself sets


def concatenated(source: str, parts: list[Word]) -> Word:
    """One word made of `parts`: literal only when every part is."""
    variables = tuple(dict.fromkeys(name for part in parts for name in part.variables))
    substituted = any(part.substituted for part in parts)
    prefix = ""
    for part in parts:
        if part.text is None:
            return Word(source, None, prefix + part.prefix, variables, substituted)
        prefix += part.text
    return Word(source, prefix, prefix)


def unquoted_word(source: str) -> Word:
    """An unquoted word: backslashes escape, line continuations vanish; globs, braces and `~user`
    make it decided at run time (a leading `~` or `~/` stays, for the caller to read as home)."""
    out, i = [], 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            if source[i + 1:i + 2] != "\n":
                out.append(source[i + 1:i + 2])
            i += 2
            continue
        if char in "*?[" or char in "{}" and BRACES.search(source) or char == "~" and i == 0 and not re.match(r"~(/|$)", source):
            return Word(source, None, "".join(out))
        out.append(char)
        i += 1
    return Word(source, "".join(out), "".join(out))


def ansi_c(body: str) -> str | None:
    """The text of a `$'...'` body, or None for an escape we do not decode."""
    out, i = [], 0
    while i < len(body):
        if body[i] != "\\":
            out.append(body[i])
            i += 1
            continue
        escape = body[i + 1:i + 2]
        if escape in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[escape])
            i += 2
        elif match := re.match(r"x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})", body[i + 1:]):
            value = int(next(g for g in match.groups() if g), 8 if match.group(4) else 16)
            if value == 0 or value > 0x10FFFF:
                return None  # bash cuts the string at a NUL
            out.append(chr(value))
            i += 1 + match.end()
        else:
            return None  # `\c`, a trailing backslash: read rather than guessed
    return "".join(out)
