"""YAML frontmatter of Markdown definition files (SKILL.md, agent files), shared by skills and agents.

A file opens with a `---` line, holds YAML up to the next `---` line, and continues with a Markdown
body. Every way the YAML can fail becomes one FrontmatterError with a one-line reason, and the
coercion helpers turn whatever YAML produced into plain text, word lists, tool lists or booleans
without rendering nested values (so aliases, the YAML "billion laughs", cannot blow up).
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from agent.errors import AgentError

_CLOSING_FENCE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*\r?\n)+")
TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0"})


class FrontmatterError(AgentError):
    """A definition file we cannot accept; the message is a one-line reason."""


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """`(frontmatter, rest)` when `text` opens with a `---` line closed by another `---` line,
    otherwise None. `rest` starts right after the closing fence, at its line break."""
    text = text.removeprefix("\ufeff")
    first_newline = text.find("\n")
    if first_newline < 0 or text[:first_newline].rstrip() != "---":
        return None
    closing = _CLOSING_FENCE.search(text, first_newline + 1)
    if closing is None:
        return None
    return text[first_newline + 1:closing.start()], text[closing.end():]


def load_mapping(source: str) -> dict[str, Any]:
    """The YAML mapping in `source`, its keys as text (keys that are not scalars are dropped).
    Raises FrontmatterError, and nothing else, when it is not valid YAML or not a mapping."""
    import yaml  # here, not at the top: a run with no skills or agents on disk never needs it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C loader when libyaml is built in
    try:
        fields = yaml.load(source, Loader=loader)
    except Exception as error:  # PyYAML also raises ValueError and RecursionError on odd input
        raise FrontmatterError(f"invalid YAML frontmatter ({first_line(error)})") from None
    if not isinstance(fields, dict):
        raise FrontmatterError("the frontmatter is not a mapping of fields")
    keyed = ((scalar_text(key), value) for key, value in fields.items())
    return {key: value for key, value in keyed if key is not None}


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """`(fields, rest)` of a definition file's `text`; raises FrontmatterError when there is no
    frontmatter, it is not valid YAML, or it is not a mapping."""
    parts = split_frontmatter(text)
    if parts is None:
        raise FrontmatterError("no frontmatter (the file must start with a --- line, closed by another ---)")
    return load_mapping(parts[0]), parts[1]


def clean_body(rest: str) -> str:
    """The body after the frontmatter without its leading blank lines or trailing whitespace;
    indentation of the first text line is kept."""
    # `rest` starts at the end of the closing --- line, so its first newline belongs to that line.
    leading = _LEADING_BLANK_LINES.match(rest)
    return (rest[leading.end():] if leading else rest).rstrip()


def first_line(error: BaseException) -> str:
    """The first line of `error`'s message, or its type name when the message is empty."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def scalar_text(value: Any) -> str | None:
    """A YAML scalar (text, number, boolean, date) as text; None for anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float, datetime.date)):
        try:
            return str(value)
        except ValueError:  # an integer too long to print (Python caps int -> str conversion)
            return None
    return None


def field_text(value: Any) -> str:
    """A field as text: scalars as written, a list of scalars joined by spaces, anything else empty.
    Nested values are not rendered."""
    if value is None:
        return ""
    if isinstance(value, list):
        items = (scalar_text(item) for item in value)
        return " ".join(item.strip() for item in items if item and item.strip())
    return (scalar_text(value) or "").strip()


def word_list(value: Any, commas: bool = False) -> list[str]:
    """A field as words: the items of a list, or a text split on whitespace (and on commas when
    `commas` is true)."""
    if isinstance(value, list):
        return [word for word in (field_text(item) for item in value) if word]
    text = field_text(value)
    return (text.replace(",", " ") if commas else text).split()


def tool_list(value: Any) -> tuple[str, ...]:
    """A tools field as a tuple: the items of a list, or a text whose commas and spaces separate
    tools except inside parentheses, so `Bash(git add *) Read` is two tools."""
    if isinstance(value, list):
        return tuple(word for word in (field_text(item) for item in value) if word)
    tools, current, depth = [], [], 0
    for char in field_text(value):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (char == "," or char.isspace()):
            tools.append("".join(current))
            current = []
        else:
            current.append(char)
    tools.append("".join(current))
    return tuple(tool for tool in tools if tool)


def parse_bool(value: Any) -> bool | None:
    """A YAML boolean, or one of the words true/false/yes/no/on/off/1/0 in any case; None when
    `value` is none of those."""
    if isinstance(value, bool):
        return value
    word = scalar_text(value)
    word = word.strip().lower() if word is not None else ""
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None
