"""Removing old transcripts at start, as Claude Code does with the `cleanupPeriodDays` setting
(default 30 days). Only the user's own settings (~/.claude/settings.json, --settings) say how long:
a repository's settings cannot delete what is in the user's home."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Collection

from agent.permissions.settings import settings_documents
from agent.transcripts import SESSION_ID

log = logging.getLogger("agent")
DEFAULT_CLEANUP_DAYS = 30  # settings' cleanupPeriodDays


def cleanup_days(cwd: Path, home: Path, sources: Collection[str], extra_settings: str | None) -> float:
    """How many days transcripts are kept: the most specific of the user's settings that set
    `cleanupPeriodDays` to a number of at least 0 (anything else is one warning and ignored)."""
    days: float = DEFAULT_CLEANUP_DAYS
    for where, data, project in settings_documents(cwd, home, sources, extra_settings):
        value = data.get("cleanupPeriodDays")
        if value is None or project:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1_000_000:
            days = value
        else:
            log.warning(f"ignoring cleanupPeriodDays in {where}: it must be a number of days (0 or more)")
    return days


def remove_old_transcripts(cwd: Path, home: Path, sources: Collection[str], extra_settings: str | None,
                           session_id: str) -> None:
    """Remove the transcripts older than cleanupPeriodDays (never the running session's)."""
    removed = clean_up(home, cleanup_days(cwd, home, sources, extra_settings), keep=session_id)
    if removed:
        log.info("removed %d transcript%s older than cleanupPeriodDays", removed, "s" if removed != 1 else "")


def clean_up(home: Path, days: float, keep: str, now: float | None = None) -> int:
    """Remove the transcripts (sessions' and their subagents') last written more than `days` ago,
    in every project, as Claude Code's cleanupPeriodDays does, except session `keep`'s (the one
    running); returns how many. Only regular `.jsonl` files are removed, no link is followed, and
    a folder left empty goes too."""
    cutoff = (time.time() if now is None else now) - days * 86400
    removed = 0
    root = Path(home) / ".claude" / "projects"
    for project in _folders(root):
        for entry in _scan(project):
            if entry.name in (keep, f"{keep}.jsonl"):
                continue
            if entry.is_dir(follow_symlinks=False) and SESSION_ID.fullmatch(entry.name):
                subagents = Path(entry.path) / "subagents"
                removed += sum(_remove_old(e, cutoff) for e in _scan(subagents) if e.name.endswith(".jsonl"))
                for folder in (subagents, Path(entry.path)):
                    try:
                        folder.rmdir()
                    except OSError:  # not empty, or not there
                        pass
            elif entry.name.endswith(".jsonl"):
                removed += _remove_old(entry, cutoff)
    return removed


def _folders(root: Path) -> list[Path]:
    return [Path(e.path) for e in _scan(root) if e.is_dir(follow_symlinks=False)]


def _scan(folder: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(folder))[:100_000]
    except OSError:
        return []


def _remove_old(entry: os.DirEntry, cutoff: float) -> bool:
    try:
        if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
            os.unlink(entry.path)
            return True
    except OSError:
        pass
    return False
