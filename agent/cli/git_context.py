"""The git status snapshot of a session (agent.processes.git_status): taken from the repository
when a run starts, unless `includeGitInstructions: false` in a settings file (the most specific one
that says wins) or CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS (which wins over the settings) turns it
off. A recording keeps it in its cassette's setup (`git_status`), and a replay shows the model that
one instead of the repository's state now: it runs no git and does not depend on the folder it
replays in (a regression replay in a repository that has moved on still matches). So it is with
the snapshots worktree-isolated agents start with (`worktree_git_status`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Collection

from agent.cli.environment import Environment
from agent.permissions.settings import settings_switch
from agent.processes.git_status import GitStatus, WorktreeSnapshots, take_git_status
from agent.record.git_status import SETUP_KEY, WORKTREE_KEY


def session_git_status(recorded, environment: Environment, cwd: Path, home: Path, sources: Collection[str],
                       extra_settings: str | None) -> GitStatus | None:
    """The snapshot the session's conversations start with: the recording's for a replay
    (`recorded`, its shape checked when read; none when it kept none), else a new one when git
    instructions are on."""
    if recorded:
        kept = None if recorded.inferred else recorded.setup.get(SETUP_KEY)
        return GitStatus(**kept) if kept is not None else None
    if not git_instructions_on(environment, cwd, home, sources, extra_settings):
        return None
    return take_git_status(cwd)


def git_instructions_on(environment: Environment, cwd: Path, home: Path, sources: Collection[str],
                        extra_settings: str | None) -> bool:
    """Whether the snapshot is taken: CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS when set, else the
    most specific settings file's includeGitInstructions, else on."""
    disabled = environment["CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS"]
    if disabled is not None:
        return not disabled
    return settings_switch("includeGitInstructions", cwd, home, sources, extra_settings) is not False


def keep_in_setup(session, setup: dict[str, Any]) -> None:
    """Recording: the setup keeps the session's snapshot, and those its worktree agents start
    with as they are taken (by worktree name, sorted: parallel agents start in any order), for its
    replays."""
    if session.git_status is not None:
        setup[SETUP_KEY] = session.git_status.as_setup()

    def keep(name: str, snapshot: dict[str, str]) -> None:
        setup[WORKTREE_KEY] = dict(sorted({**setup.get(WORKTREE_KEY, {}), name: snapshot}.items()))

    session.worktree_snapshots = WorktreeSnapshots(on_taken=keep)


def replay_worktree_snapshots(session, recorded) -> None:
    """Replaying: worktree agents start with the snapshots the recording kept (none for others)."""
    kept = {} if recorded.inferred else recorded.setup.get(WORKTREE_KEY, {})
    session.worktree_snapshots = WorktreeSnapshots(recorded=kept)
