"""Where a session's hooks come from: the `hooks` of `~/.claude/settings.json`, the project's
`.claude/settings.json` and `.claude/settings.local.json`, and --settings, in that order (all of
them run; none replaces another). A repository cannot make the agent run its commands: the
project's own hooks run only in a trusted workspace (one warning otherwise, as for its other
grants). `disableAllHooks: true` in any of the files turns every hook off, frontmatter ones too;
in the project's files only when the workspace is trusted, since it would turn off the user's own
guard hooks (Claude Code lets any settings file do it)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Collection, Iterable

from agent.hooks.config import HookSet, read_hooks
from agent.permissions.settings import settings_documents
from agent.permissions.trust import how_to_trust, ignored

log = logging.getLogger("agent")


def settings_hooks(cwd: Path, home: Path, sources: Collection[str], extra_settings: str | None,
                   trusted: bool) -> HookSet | None:
    """The hooks the settings files configure; None when one of them disables all hooks."""
    hooks, withheld, ignored_off = HookSet(), {}, []
    documents = settings_documents(cwd, home, sources, extra_settings)
    for where, data, project in documents:
        if data.get("disableAllHooks") is not True:
            continue
        if project and not trusted:  # turning the user's own guard hooks off is not the repository's call
            ignored_off.append(where)
            continue
        log.info("hooks are off: disableAllHooks is set in %s", where)
        return None
    if ignored_off:
        log.warning("Ignoring disableAllHooks from %s: %s", " and ".join(ignored_off), how_to_trust(home, cwd))
    for where, data, project in documents:
        found = read_hooks(data.get("hooks"), where)
        if found and project and not trusted:
            withheld[where] = found.count()
            continue
        hooks = hooks.plus(found)
    if withheld:
        log.warning("%s", ignored(sum(withheld.values()), "hook", withheld, home, cwd))
    return hooks


def project_hooks(cwd: Path, home: Path, sources: Collection[str], skills: Iterable, agents: Iterable) -> bool:
    """Whether the workspace's own files configure hooks that only trust lets run: in its settings
    files (or a `disableAllHooks` there), or in the frontmatter of its skills or agents: what the
    interactive trust question is asked for. Read quietly: settings_hooks warns about bad pieces."""
    if any(getattr(found, "source", None) == "project" and found.hooks for found in (*skills, *agents)):
        return True
    return any(project and (bool(data.get("hooks")) or data.get("disableAllHooks") is True)
               for _, data, project in settings_documents(cwd, home, sources))
