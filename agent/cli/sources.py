"""Setting sources (Claude Code's --setting-sources): which files a run loads, and what a recording
took from the home folder.

As observed of Claude Code 2.1.332 (headless, against a scripted model): `user` is
`~/.claude/settings.json`, `~/.claude/skills`, `~/.claude/agents` and `~/.claude/CLAUDE.md`;
`project` is `.claude/settings.json`, `.claude/skills` (and those of --add-dir folders),
`.claude/agents` and the `CLAUDE.md` and `.claude/CLAUDE.md` files; `local` is
`.claude/settings.local.json` and `CLAUDE.local.md`. `--setting-sources=` (an empty value, as the
Agent SDK passes `setting_sources=[]`) loads none of them; --settings and --agents always apply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from agent.errors import UsageError

SOURCES = ("user", "project", "local")
_SHOWN_NAMES = 6  # names listed in the warning before "and N more"


def setting_sources(value: str | None, origin: str = "--setting-sources") -> frozenset[str]:
    """The sources a --setting-sources `value` names: all three when it was not given, none for an
    empty value; a comma-separated list otherwise (spaces around names allowed, as Claude Code
    takes them). An unknown or empty name is a UsageError naming `origin`."""
    if value is None:
        return frozenset(SOURCES)
    if value == "":
        return frozenset()
    names = [name.strip() for name in value.split(",")]
    for name in names:
        if name not in SOURCES:
            shown = repr(name) if name else "an empty name"
            raise UsageError(f"{origin}: invalid setting source {shown}; valid sources: {', '.join(SOURCES)}")
    return frozenset(names)


def home_content_warning(skills: Iterable, agents: Iterable, memory: Iterable, home: Path,
                         sources: frozenset[str]) -> str | None:
    """The one warning a recording gives when content from the home folder enters what the model
    is sent (`skills`, `agents` and `memory` files of the session whose source is the user's),
    or None when nothing does. The user's settings.json shapes only what runs (its permissions),
    not the requests, so on its own it is no reason to warn; when the warning is given anyway it
    says that leaving the user's source out drops those permissions too."""
    parts = []
    if names := [skill.name for skill in skills if skill.source == "user"]:
        parts.append(f"skills {_listed(names)}")
    if names := [agent.name for agent in agents if agent.source == "user"]:
        parts.append(f"agents {_listed(names)}")
    files = [file for file in memory if file.kind == "user"]
    if files:
        parts.append("CLAUDE.md" + (f" (and {len(files) - 1} file{'s' if len(files) > 2 else ''} it imports)"
                                    if len(files) > 1 else ""))
    if not parts:
        return None
    settings = ""
    if "user" in sources and (Path(home) / ".claude" / "settings.json").is_file():
        settings = (" (that also leaves out the permissions of ~/.claude/settings.json, which decide what runs, "
                    "not what the model is sent: give the ones the run needs with --settings or --allowedTools)")
    return (f"this recording includes content from your home folder (~/.claude): {'; '.join(parts)}. Others "
            f"replaying it will not have them; record with --setting-sources project,local to leave them out"
            f"{settings}")


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN_NAMES])
    return shown + (f" and {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")
