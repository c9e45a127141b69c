"""The git status snapshot a recording started with, as its setup keeps it (`git_status`: branch,
main_branch, user, status, commits, each a text). A replay shows the model this snapshot instead of
the repository's state now, so it neither runs git nor depends on the folder it replays in.

It comes from a cassette, so its shape is checked when read (`git_status_problem`): a mapping of
exactly those texts, each bounded.
"""

from __future__ import annotations

from typing import Any

SETUP_KEY = "git_status"
FIELDS = ("branch", "main_branch", "user", "status", "commits")
MAX_CHARS = 10_000  # of one field: the status is cut at 2,000, the commits are five lines


def git_status_problem(value: Any) -> str | None:
    """What is wrong with a setup's `git_status`, or None."""
    if not (isinstance(value, dict) and set(value) == set(FIELDS)):
        return f"`{SETUP_KEY}` must be a mapping of {', '.join(FIELDS)}"
    for name in FIELDS:
        if not (isinstance(value[name], str) and len(value[name]) <= MAX_CHARS):
            return f"`{SETUP_KEY}.{name}` must be a text of at most {MAX_CHARS:,} characters"
    return None
