"""Skill discovery: find every `.claude/skills/<name>/SKILL.md` and parse its frontmatter.

Only the frontmatter is parsed at startup; a skill's body is read from disk when it is invoked.
"""

from __future__ import annotations

import datetime
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agent.errors import AgentError

log = logging.getLogger("agent")

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CLOSING_FENCE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*\r?\n)+")
_ARGUMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_TRUE_WORDS = {"true", "yes", "on", "1"}
_FALSE_WORDS = {"false", "no", "off", "0"}
_HANDLED_KEYS = {
    "name", "description", "when_to_use", "argument-hint", "arguments", "disable-model-invocation",
    "user-invocable", "model", "context", "agent", "allowed-tools",
}


class SkillError(AgentError):
    """A SKILL.md that cannot be used: unreadable, or with frontmatter we cannot accept."""


@dataclass(frozen=True)
class Skill:
    """One skill: what its frontmatter says, and where its folder is."""

    name: str  # the folder name: this is the /command and the name the Skill tool takes
    description: str
    when_to_use: str = ""
    argument_hint: str = ""
    arguments: tuple[str, ...] = ()
    model_invocable: bool = True
    user_invocable: bool = True
    model: str | None = None
    fork: bool = False
    agent: str | None = None
    allowed_tools: tuple[str, ...] = ()
    folder: Path = Path()
    source: str = "project"
    declared_name: str = ""

    @property
    def path(self) -> Path:
        """The skill's SKILL.md."""
        return self.folder / "SKILL.md"

    def body(self) -> str:
        """The instructions after the frontmatter, read from disk now, without leading blank lines
        or trailing whitespace."""
        text = _read_text(self.path)
        parts = split_frontmatter(text)
        return _clean_body(parts[1] if parts else text)


def discover_skills(cwd: Path, home: Path) -> list[Skill]:
    """Every usable skill of the project (`<cwd>/.claude/skills`) and the user
    (`<home>/.claude/skills`), sorted by name; a project skill hides a user skill of the same name.
    Unusable SKILL.md files are skipped with one warning each."""
    project_root = Path(cwd) / ".claude" / "skills"
    user_root = Path(home) / ".claude" / "skills"
    found = {skill.name: skill for skill in _skills_in(project_root, "project")}
    if _same_directory(project_root, user_root):
        return sorted(found.values(), key=lambda skill: skill.name)
    for skill in _skills_in(user_root, "user"):
        if skill.name in found:
            log.info(f"skill {skill.name!r}: the project skill in {found[skill.name].folder} "
                     f"overrides the user skill in {skill.folder}")
            continue
        found[skill.name] = skill
    return sorted(found.values(), key=lambda skill: skill.name)


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """`(frontmatter, rest)` when `text` opens with a `---` line closed by another `---` line,
    otherwise None."""
    text = text.removeprefix("\ufeff")
    first_newline = text.find("\n")
    if first_newline < 0 or text[:first_newline].rstrip() != "---":
        return None
    closing = _CLOSING_FENCE.search(text, first_newline + 1)
    if closing is None:
        return None
    return text[first_newline + 1:closing.start()], text[closing.end():]


def read_skill(text: str, folder: Path, source: str = "project") -> Skill:
    """The skill whose SKILL.md in `folder` holds `text`; raises SkillError (and nothing else) when
    the frontmatter is missing, is not valid YAML, is not a mapping or has no description."""
    parts = split_frontmatter(text)
    if parts is None:
        raise SkillError("no frontmatter (the file must start with a --- line, closed by another ---)")
    try:
        fields = yaml.load(parts[0], Loader=_LOADER)
    except Exception as error:  # PyYAML also raises ValueError and RecursionError on odd input
        raise SkillError(f"invalid YAML frontmatter ({_first_line(error)})") from None
    if not isinstance(fields, dict):
        raise SkillError("the frontmatter is not a mapping of fields")
    texts = ((_scalar_text(key), value) for key, value in fields.items())
    fields = {key: value for key, value in texts if key is not None}
    description = _text(fields.get("description"))
    if not description:
        raise SkillError("no description in the frontmatter")
    name = folder.name
    ignored = sorted(set(fields) - _HANDLED_KEYS)
    if ignored:
        log.info(f"skill {name!r}: ignoring frontmatter fields {', '.join(ignored)}")
    model = _text(fields.get("model"))
    return Skill(
        name=name,
        description=description,
        when_to_use=_text(fields.get("when_to_use")),
        argument_hint=_text(fields.get("argument-hint")),
        arguments=_argument_names(name, fields.get("arguments")),
        model_invocable=not _flag(name, fields, "disable-model-invocation", False),
        user_invocable=_flag(name, fields, "user-invocable", True),
        model=None if model.lower() in ("", "inherit") else model,
        fork=_text(fields.get("context")).lower() == "fork",
        agent=_text(fields.get("agent")) or None,
        allowed_tools=_tool_list(fields.get("allowed-tools")),
        folder=folder,
        source=source,
        declared_name=_text(fields.get("name")),
    )


def _skills_in(root: Path, source: str) -> list[Skill]:
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError:  # no such folder, or not a folder: no skills here
        return []
    skills = []
    for entry in entries:
        path = Path(entry.path) / "SKILL.md"
        try:
            if not entry.is_dir() or not path.is_file():
                continue
            skills.append(read_skill(_read_text(path), Path(os.path.abspath(entry.path)), source))
        except SkillError as error:
            log.warning(f"skipping {path}: {error}")
    return skills


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise SkillError(f"cannot read {path}: {error.strerror or error}") from None


def _clean_body(rest: str) -> str:
    # `rest` starts at the end of the closing --- line, so its first newline belongs to that line.
    leading = _LEADING_BLANK_LINES.match(rest)
    return (rest[leading.end():] if leading else rest).rstrip()


def _same_directory(first: Path, second: Path) -> bool:
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError):
        return False


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float, datetime.date)):
        try:
            return str(value)
        except ValueError:  # an integer too long to print (Python caps int -> str conversion)
            return None
    return None


def _text(value: Any) -> str:
    """A field as text: scalars as written, a list of scalars joined by spaces, anything else empty.
    Nested values are not rendered, so aliases (YAML "billion laughs") cannot blow up."""
    if value is None:
        return ""
    if isinstance(value, list):
        items = (_scalar_text(item) for item in value)
        return " ".join(item.strip() for item in items if item and item.strip())
    return (_scalar_text(value) or "").strip()


def _words(value: Any) -> list[str]:
    if isinstance(value, list):
        return [word for word in (_text(item) for item in value) if word]
    return _text(value).split()


def _argument_names(skill: str, value: Any) -> tuple[str, ...]:
    names = []
    for word in _words(value):
        if _ARGUMENT_NAME.fullmatch(word) and word != "ARGUMENTS" and word not in names:
            names.append(word)
        else:
            log.info(f"skill {skill!r}: ignoring argument name {word!r}")
    return tuple(names)


def _tool_list(value: Any) -> tuple[str, ...]:
    """`allowed-tools` as a list; commas and spaces separate tools except inside parentheses,
    so `Bash(git add *) Read` is two tools."""
    if isinstance(value, list):
        return tuple(word for word in (_text(item) for item in value) if word)
    tools, current, depth = [], [], 0
    for char in _text(value):
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


def _flag(skill: str, fields: dict[str, Any], key: str, default: bool) -> bool:
    value = fields.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    word = _scalar_text(value)
    word = word.strip().lower() if word is not None else ""
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    log.info(f"skill {skill!r}: {key} should be true or false, not {word or type(value).__name__!r}; "
             f"using {str(default).lower()}")
    return default
