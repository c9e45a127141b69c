"""The git status snapshot a recording started with, as its setup keeps it (`git_status`: branch,
main_branch, user, status, commits, each a text), and those its worktree-isolated agents started
with (`worktree_git_status`: one such snapshot for each worktree, by its name `agent-<id>`). A
replay shows the model these snapshots instead of the repository's state now, so it neither runs
git nor depends on the folder it replays in.

They come from a cassette, so their shape is checked when read (`git_status_problem`,
`worktree_git_status_problem`): mappings of exactly those texts, each bounded.
"""

from __future__ import annotations

import re
from typing import Any

SETUP_KEY = "git_status"
WORKTREE_KEY = "worktree_git_status"
FIELDS = ("branch", "main_branch", "user", "status", "commits")
MAX_CHARS = 10_000  # of one field: the status is cut at 2,000, the commits are five lines
MAX_WORKTREES = 200  # snapshots of worktree agents one recording keeps
WORKTREE_NAME = re.compile(r"agent-a[0-9a-f]{16}")  # as agent.subagents.worktrees names them


def git_status_problem(value: Any) -> str | None:
    """What is wrong with a setup's `git_status`, or None."""
    if not (isinstance(value, dict) and set(value) == set(FIELDS)):
        return f"`{SETUP_KEY}` must be a mapping of {', '.join(FIELDS)}"
    for name in FIELDS:
        if not (isinstance(value[name], str) and len(value[name]) <= MAX_CHARS):
            return f"`{SETUP_KEY}.{name}` must be a text of at most {MAX_CHARS:,} characters"
    return None


def worktree_git_status_problem(value: Any) -> str | None:
    """What is wrong with a setup's `worktree_git_status`, or None."""
    if not (isinstance(value, dict) and len(value) <= MAX_WORKTREES
            and all(isinstance(name, str) and WORKTREE_NAME.fullmatch(name) for name in value)):
        return f"`{WORKTREE_KEY}` must be a mapping of at most {MAX_WORKTREES} worktree names (agent-<id>) to snapshots"
    for snapshot in value.values():
        if problem := git_status_problem(snapshot):
            return f"`{WORKTREE_KEY}`: {problem}"
    return None
