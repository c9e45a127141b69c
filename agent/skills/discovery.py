"""Skill discovery: find every `.claude/skills/<name>/SKILL.md` and parse its frontmatter.

Only the frontmatter is parsed at startup; a skill's body is read from disk when it is invoked.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Collection

from agent.hooks.config import read_hooks
from agent.permissions.trust import how_to_trust
from agent.skills.arguments import PROJECT_DIR, SKILL_DIR
from agent.skills.cache import FrontmatterCache
from agent.skills.frontmatter import (
    FrontmatterError, clean_body, field_text, parse_bool, parse_frontmatter, report_ignored, scalar_text,
    split_frontmatter,
    tool_list, word_list,
)
from agent.workspace import DEFINITION_FILE_BYTES, read_bounded

log = logging.getLogger("agent")

_ARGUMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_HANDLED_KEYS = frozenset({
    "name", "description", "when_to_use", "argument-hint", "arguments", "disable-model-invocation",
    "user-invocable", "model", "context", "agent", "allowed-tools", "hooks",
})
_UNSUPPORTED_KEYS = frozenset({"effort", "paths", "shell", "background", "disallowed-tools"})


class SkillError(FrontmatterError):
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
    hooks: Any = None  # agent.hooks.config.HookSet of its frontmatter (run while it is active), or None

    @property
    def path(self) -> Path:
        """The skill's SKILL.md."""
        return self.folder / "SKILL.md"

    def allowed_rules(self, project_dir: str) -> tuple[str, ...]:
        """The `allowed-tools` rules with `${CLAUDE_SKILL_DIR}` and `${CLAUDE_PROJECT_DIR}` filled
        in, as Claude Code does, so `Bash(${CLAUDE_SKILL_DIR}/scripts/x.sh)` names the real script."""
        return tuple(rule.replace(SKILL_DIR, str(self.folder)).replace(PROJECT_DIR, project_dir)
                     for rule in self.allowed_tools)

    def body(self) -> str:
        """The instructions after the frontmatter, read from disk now, without leading blank lines
        or trailing whitespace."""
        text = _read_text(self.path)
        parts = split_frontmatter(text)
        return clean_body(parts[1] if parts else text)


def discover_skills(cwd: Path, home: Path, cache: FrontmatterCache | None = None,
                    added: tuple[Path, ...] = (), sources: Collection[str] = ("user", "project", "local")) -> list[Skill]:
    """Every usable skill of the project (`<cwd>/.claude/skills`, then each `--add-dir` folder's)
    and the user (`<home>/.claude/skills`), sorted by name; a project skill hides a later one and
    a user skill of the same name. Of the setting `sources` (--setting-sources), `project` loads
    the project's and `user` the user's, as in Claude Code. Only frontmatter is read (through
    `cache` when given; the caller then reports its lenient reads). Unusable SKILL.md files are
    skipped with one warning each."""
    own_cache = cache is None
    cache = cache or FrontmatterCache(None)
    project_root = Path(cwd) / ".claude" / "skills"
    user_root = Path(home) / ".claude" / "skills"
    found: dict[str, Skill] = {}
    project_roots = (project_root, *(Path(folder) / ".claude" / "skills" for folder in added))
    for root in project_roots if "project" in sources else ():
        for skill in _skills_in(root, "project", cache):
            found.setdefault(skill.name, skill)
    # A home inside the project would otherwise load the same skills twice.
    loads_user = "user" in sources and not ("project" in sources and _same_directory(project_root, user_root))
    for skill in _skills_in(user_root, "user", cache) if loads_user else []:
        if skill.name in found:
            log.info(f"skill {skill.name!r}: the project skill in {found[skill.name].folder} "
                     f"overrides the user skill in {skill.folder}")
            continue
        found[skill.name] = skill
    if own_cache:
        cache.report()
    return sorted(found.values(), key=lambda skill: skill.name)


def without_project_grants(skills: list[Skill], cwd: Path, home: Path) -> list[Skill]:
    """`skills` for a workspace that is not trusted: a project skill's `allowed-tools` approve
    nothing and its `hooks` never run (the repository would be approving, or running, its own
    commands), each said in one warning naming the first few (a repository with hundreds of such
    skills must not flood stderr); user skills keep theirs."""
    for field, what in (("allowed_tools", "allowed-tools"), ("hooks", "hooks")):
        withheld = [skill for skill in skills if skill.source == "project" and getattr(skill, field)]
        if withheld:
            names = ", ".join(repr(skill.name) for skill in withheld[:3]) + (
                f" and {len(withheld) - 3} more" if len(withheld) > 3 else "")
            where = f" ({withheld[0].path})" if len(withheld) == 1 else ""
            kind = "the project skill" if len(withheld) == 1 else f"{len(withheld)} project skills"
            log.warning(f"Ignoring the {what} of {kind} {names}{where}: " + how_to_trust(home, cwd))
        marked = {id(skill) for skill in withheld}
        skills = [replace(skill, **{field: () if field == "allowed_tools" else None}) if id(skill) in marked else skill
                  for skill in skills]
    return skills


def read_skill(text: str, folder: Path, source: str = "project") -> Skill:
    """The skill whose SKILL.md in `folder` holds `text`; raises SkillError (and nothing else) when
    the frontmatter is missing, is not valid YAML, is not a mapping or has no description."""
    try:
        fields, _ = parse_frontmatter(text, str(folder / "SKILL.md"))
    except FrontmatterError as error:
        raise SkillError(str(error)) from None
    return skill_from_fields(fields, folder, source)


def skill_from_fields(fields: dict[str, Any], folder: Path, source: str = "project") -> Skill:
    """The skill in `folder` whose frontmatter parsed to `fields`; raises SkillError when it has
    no description."""
    description = field_text(fields.get("description"))
    if not description:
        raise SkillError("no description in the frontmatter")
    name = folder.name
    report_ignored(f"skill {name!r}", fields, _HANDLED_KEYS, _UNSUPPORTED_KEYS)
    model = field_text(fields.get("model"))
    return Skill(
        name=name,
        description=description,
        when_to_use=field_text(fields.get("when_to_use")),
        argument_hint=field_text(fields.get("argument-hint")),
        arguments=_argument_names(name, fields.get("arguments")),
        model_invocable=not _flag(name, fields, "disable-model-invocation", False),
        user_invocable=_flag(name, fields, "user-invocable", True),
        model=model or None,  # `inherit` kept: a forked skill's stays on the main model, forced or not
        fork=field_text(fields.get("context")).lower() == "fork",
        agent=field_text(fields.get("agent")) or None,
        allowed_tools=tool_list(fields.get("allowed-tools")),
        folder=folder,
        source=source,
        declared_name=field_text(fields.get("name")),
        hooks=read_hooks(fields.get("hooks"), f"the skill {name!r} ({folder / 'SKILL.md'})") or None,
    )


def _skills_in(root: Path, source: str, cache: FrontmatterCache) -> list[Skill]:
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError:  # no such folder, or not a folder: no skills here
        return []
    skills = []
    for entry in entries:
        path = os.path.join(entry.path, "SKILL.md")
        try:
            if not entry.is_dir():
                continue
            fields = cache.read(path)
            folder = entry.path if os.path.isabs(entry.path) else os.path.abspath(entry.path)
            skills.append(skill_from_fields(fields, Path(folder), source))
        except FileNotFoundError:  # a folder without a SKILL.md is not a skill
            continue
        except OSError as error:
            log.warning(f"skipping {path}: cannot read it ({error.strerror or error})")
        except FrontmatterError as error:
            log.warning(f"skipping {path}: {error}")
    return skills


def _read_text(path: Path) -> str:
    try:
        return read_bounded(path, DEFINITION_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError as error:  # missing, unreadable, not a regular file, over the cap
        raise SkillError(f"cannot read {path}: {error.strerror or error}") from None


def _same_directory(first: Path, second: Path) -> bool:
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError):
        return False


def _argument_names(skill: str, value: Any) -> tuple[str, ...]:
    names = []
    for word in word_list(value):
        if _ARGUMENT_NAME.fullmatch(word) and word != "ARGUMENTS" and word not in names:
            names.append(word)
        else:
            log.info(f"skill {skill!r}: ignoring argument name {word!r}")
    return tuple(names)


def _flag(skill: str, fields: dict[str, Any], key: str, default: bool) -> bool:
    value = fields.get(key)
    if value is None:
        return default
    flag = parse_bool(value)
    if flag is not None:
        return flag
    word = (scalar_text(value) or "").strip().lower()
    log.info(f"skill {skill!r}: {key} should be true or false, not {word or type(value).__name__!r}; "
             f"using {str(default).lower()}")
    return default
