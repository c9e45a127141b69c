"""YAML frontmatter of Markdown definition files (SKILL.md, agent files), shared by skills and agents.

A file opens with a `---` line, holds YAML up to the next `---` line, and continues with a Markdown
body. Every way the YAML can fail becomes one FrontmatterError with a one-line reason, and the
coercion helpers turn whatever YAML produced into plain text, word lists, tool lists or booleans
without rendering nested values. The YAML is loaded with `workspace.load_yaml`'s limits on depth
and aliases, so the YAML "billion laughs" is refused before it is built.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from typing import Any

from agent.errors import AgentError
from agent.permissions.rules import split_rules
from agent.workspace import InputLimitError, load_yaml

log = logging.getLogger("agent")

_ONE_LINE_FIELD = re.compile(r"^(?P<key>[A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:[ \t]+(?P<value>\S.*?)[ \t]*$")
_CLOSING_FENCE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*\r?\n)+")
# Fields that describe a definition rather than configure it (the Agent Skills standard's, and
# what public collections add): read silently.
METADATA_FIELDS = frozenset({
    "license", "metadata", "version", "author", "authors", "maintainer", "maintainers", "tags",
    "keywords", "category", "categories", "compatibility", "color", "icon", "title", "homepage",
    "repository", "source", "url", "created", "updated", "date", "status",
})
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


def load_mapping(source: str, label: str = "", first_line_number: int = 1) -> tuple[dict[str, Any], str | None]:
    """The YAML mapping in `source`, its keys as text (keys that are not scalars are dropped), and
    a warning when it had to be read leniently.

    When the YAML is invalid, it is read again with every top-level one-line `key: value` that is
    not valid on its own taken as plain text (real files write `description: Triggers on: x`,
    which Claude Code loads); that succeeding gives the warning, naming `label` and the line.
    Raises FrontmatterError, and nothing else, when even that fails (naming line and column,
    counted from `first_line_number`) or the result is not a mapping."""
    warning = None
    try:
        fields = load_yaml(source, "the frontmatter")
    except InputLimitError as error:  # an alias bomb or absurd nesting: not worth repairing
        raise FrontmatterError(str(error)) from None
    except Exception as error:  # PyYAML also raises ValueError and RecursionError on odd input
        where = _position(error, first_line_number)
        fields = _load_repaired(source)
        if fields is None:
            raise FrontmatterError(f"invalid YAML frontmatter{where} ({_problem(error)})") from None
        warning = (f"{label or 'frontmatter'}: invalid YAML{where} ({_problem(error)}); "
                   "read with its one-line values taken as plain text")
    if not isinstance(fields, dict):
        raise FrontmatterError("the frontmatter is not a mapping of fields")
    keyed = ((scalar_text(key), value) for key, value in fields.items())
    return {key: value for key, value in keyed if key is not None}, warning


def _load_repaired(source: str) -> Any:
    """`source` parsed with its broken one-line fields quoted, or None when that fails too."""
    lines = source.split("\n")
    changed = False
    for index, line in enumerate(lines):
        match = _ONE_LINE_FIELD.match(line)
        following = next((later for later in lines[index + 1:] if later.strip()), "")
        if not match or following[:1] in (" ", "\t"):
            continue  # not a one-line field, or one whose value continues on the lines below
        try:
            load_yaml(line)
            continue  # valid on its own: the trouble is elsewhere
        except Exception:
            lines[index] = f"{match.group('key')}: {json.dumps(match.group('value'), ensure_ascii=False)}"
            changed = True
    if not changed:
        return None
    try:
        return load_yaml("\n".join(lines), "the frontmatter")
    except Exception:
        return None


def _position(error: BaseException, first_line_number: int) -> str:
    mark = getattr(error, "problem_mark", None)
    if mark is None:
        return ""
    return f" at line {mark.line + first_line_number}, column {mark.column + 1}"


def _problem(error: BaseException) -> str:
    return str(getattr(error, "problem", None) or first_line(error))


NO_FRONTMATTER = "no frontmatter (the file must start with a --- line, closed by another ---)"


def read_frontmatter(text: str, label: str = "") -> tuple[dict[str, Any], str, str | None]:
    """`(fields, rest, warning)` of a definition file's `text` (`label` names it in the warning,
    given when the YAML had to be read leniently); raises FrontmatterError when there is no
    frontmatter, it is not valid YAML even leniently read, or it is not a mapping."""
    parts = split_frontmatter(text)
    if parts is None:
        raise FrontmatterError(NO_FRONTMATTER)
    fields, warning = load_mapping(parts[0], label, first_line_number=2)
    return fields, parts[1], warning


def strict_problem(text: str) -> str | None:
    """Why the frontmatter of a definition file's `text` is not valid YAML as written (naming line
    and column), or None when it is (or there is none): for files that must not be read leniently."""
    parts = split_frontmatter(text)
    if parts is None:
        return None
    try:
        load_yaml(parts[0], "the frontmatter")
    except InputLimitError as error:
        return str(error)
    except Exception as error:  # PyYAML also raises ValueError and RecursionError on odd input
        return f"invalid YAML frontmatter{_position(error, 2)} ({_problem(error)})"
    return None


def parse_frontmatter(text: str, label: str = "") -> tuple[dict[str, Any], str]:
    """`(fields, rest)` of a definition file's `text`, as `read_frontmatter`, logging its warning."""
    fields, rest, warning = read_frontmatter(text, label)
    if warning:
        log.warning(warning)
    return fields, rest


def report_ignored(label: str, fields: dict[str, Any], handled: frozenset[str], unsupported: frozenset[str]) -> None:
    """One `--verbose` line each for the fields of `fields` we do not act on: Claude Code's own
    fields this agent does not implement (`unsupported`), and fields nobody defines. Metadata
    fields are silent."""
    skipped = sorted(set(fields) & unsupported)
    unknown = sorted(set(fields) - handled - unsupported - METADATA_FIELDS)
    if skipped:
        log.info(f"{label}: ignoring {', '.join(skipped)} (Claude Code fields this agent does not implement)")
    if unknown:
        log.info(f"{label}: ignoring unknown fields {', '.join(unknown)}")


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
    return tuple(split_rules(field_text(value)))  # the same syntax as a rules flag


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
