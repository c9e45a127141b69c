"""The settings that decide a session's instruction files (`session_instructions`): whether the
--add-dir folders' files load (CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD), and
claudeMdExcludes, the files a session leaves out, as Claude Code's setting names them: a list of
glob patterns matched against each file's absolute path (`**/packages/web/**`,
`/home/me/mono/legacy/CLAUDE.md`), the lists of every settings file merged. It covers CLAUDE.md,
CLAUDE.local.md and `.claude/rules/` files, at the start and on demand, and what they import;
never the organisation's managed files.

A repository's own settings (`.claude/settings.json`, `.claude/settings.local.json`) leave out
only the repository's files: a cloned project cannot hide the user's ~/.claude/CLAUDE.md from
the model. The user's settings and --settings may leave out any file but the organisation's."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable, Iterable

from agent.permissions.paths import normal_path, path_matches
from agent.permissions.settings import settings_documents
from agent.tools.instructions import Instructions

log = logging.getLogger("agent")

MAX_PATTERNS = 200  # of one settings file: more are left out, with one warning
MAX_PATTERN_CHARS = 1_000
REPOSITORY_KINDS = ("project", "local")  # the instruction files a repository's own settings may leave out


def session_instructions(args, environment, cwd: Path, home: Path, sources: tuple[str, ...], managed: Path | None,
                         added: tuple[Path, ...]) -> Instructions:
    """The instruction files of a session run with `args` in `environment` (agent.cli.environment):
    the settings' claudeMdExcludes applied, and the `added` folders' files when the environment asks."""
    excluded = claude_md_excludes(settings_documents(cwd, home, sources, args.settings), home)
    return Instructions(home, sources, managed, excluded,
                        added if environment["CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"] else ())


def claude_md_excludes(documents: Iterable[tuple[str, dict[str, Any], bool]],
                       home: Path) -> Callable[[Path, str], bool] | None:
    """The `excluded(path, kind)` test of the settings `documents` (where, data, whether it is the
    repository's own: agent.permissions.settings.settings_documents), or None when none sets any."""
    anyone: list[str] = []  # the user's and --settings': any file but the organisation's
    repository: list[str] = []  # the repository's: only its own files
    for where, data, own in documents:
        value = data.get("claudeMdExcludes")
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            log.warning(f"ignoring claudeMdExcludes in {where}: it must be a list of glob patterns")
            continue
        if len(value) > MAX_PATTERNS:
            log.warning(f"claudeMdExcludes in {where}: using its first {MAX_PATTERNS} of {len(value)} patterns")
        for pattern in value[:MAX_PATTERNS]:
            if pattern.strip() and len(pattern) <= MAX_PATTERN_CHARS:
                (repository if own else anyone).append(pattern.strip())
            elif pattern.strip():
                log.warning(f"claudeMdExcludes in {where}: ignoring a pattern over {MAX_PATTERN_CHARS} characters")
    if not anyone and not repository:
        return None

    def excluded(path: Path, kind: str) -> bool:
        patterns = anyone + (repository if kind in REPOSITORY_KINDS else [])
        absolute = normal_path(path)
        return any(_matches(pattern, absolute, home) for pattern in patterns)

    return excluded


def _matches(pattern: str, path: Path, home: Path) -> bool:
    """Whether the glob `pattern`, read against absolute paths (`~/` as the home folder), names
    `path` or a folder holding it."""
    if pattern == "~" or pattern.startswith("~/"):
        return path_matches(pattern, path, Path("/"), home)
    return path_matches("//" + pattern.lstrip("/"), path, Path("/"), home)
