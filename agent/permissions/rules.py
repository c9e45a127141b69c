"""Permission rule syntax: reading rule lists, and matching one rule's specifier against a call:
Bash commands (prefix, wildcard, exact; compound commands split into their parts) and
gitignore-style file paths."""

from __future__ import annotations

import os
import re
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Iterable

_MAX_NESTING = 50  # deeper $(...) nesting is refused rather than read


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
        relative = path.relative_to(normal_path(anchor))
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


def normal_path(path: Path) -> Path:
    """`path` made absolute and normalised, as the tools resolve it (symlinks not followed)."""
    text = os.path.normpath(os.path.abspath(path))
    return Path("/" + text.lstrip("/") if text.startswith("//") else text)  # POSIX keeps a leading //


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


def merge_rules(*lists: Iterable[str]) -> tuple[str, ...]:
    """The rules of every list in order, each once."""
    return tuple(dict.fromkeys(rule for rules in lists for rule in rules))
