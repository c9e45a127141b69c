"""Removing old transcripts at start, as Claude Code does with the `cleanupPeriodDays` setting
(default 30 days). Only the user's own settings (~/.claude/settings.json, --settings) say how long:
a repository's settings cannot delete what is in the user's home."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Collection

from agent.permissions.settings import settings_documents
from agent.transcripts import DEFAULT_CLEANUP_DAYS, clean_up

log = logging.getLogger("agent")


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
