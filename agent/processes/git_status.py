"""The git status snapshot a conversation starts with (Claude Code's gitStatus): the current branch,
the main branch, the git user, the short status and the last five commits of the repository the
session starts in, taken once and never updated.

git runs with its hooks, fsmonitor, pager, signature checks, colours and the repository's filter
drivers off (a repository someone else packed can name a command in any of them, and `git status`
would run it), each command with a timeout and its output bounded, and only when the start folder's
work tree begins at the repository holding `.git` (a `core.worktree` elsewhere could list files
outside it). Whatever goes wrong, the snapshot is left out: it is a help, never a reason to stop.
A worktree-isolated agent starts with its worktree's own snapshot (`WorktreeSnapshots`).
"""

from __future__ import annotations

import logging
import os
import shlex
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from agent.processes.running import run_shell
from agent.workspace import project_folders

log = logging.getLogger("agent")

TIMEOUT_S = 10.0  # for each git command
STATUS_CHARS = 2000  # where Claude Code cuts the status
RECENT_COMMITS = 5
OUTPUT_CHARS = 8000  # read of a command's output: the status is cut well inside its head
CONFIG_CHARS = 1_000_000  # read of the configuration's key names: a longer list is refused, not cut
MAX_FILTERS = 50  # filter drivers switched off; a repository naming more gets no snapshot
LINE_CHARS = 400  # a branch or user name is cut here
# what would run a command or change what git prints, switched off for every call
SAFE_FLAGS = ("--no-pager", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
              "-c", "safe.bareRepository=explicit", "-c", "protocol.file.allow=never",
              "-c", "log.showSignature=false", "-c", "color.ui=false", "-c", "color.status=false")
GIT_ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C",
                   "LANGUAGE": "C"}
TRUNCATED = ('\n... (truncated because it exceeds 2k characters. If you need more information, run "git status" '
             'using Bash)')


class Refused(Exception):
    """The repository cannot be read safely: no snapshot, with one warning saying why."""


@dataclass(frozen=True)
class GitStatus:
    """A repository's state at the start of a session, each part as the model is shown it."""

    branch: str  # the current branch, or HEAD when detached
    main_branch: str  # origin's default branch, else origin's main or master, else main
    user: str  # git's user.name, or empty
    status: str  # `git status --short`, cut at STATUS_CHARS with Claude Code's note
    commits: str  # `git log --oneline -n 5`, empty before the first commit

    def text(self) -> str:
        """The snapshot as Claude Code words it (the body of its `# gitStatus` block)."""
        return "\n\n".join([
            "This is the git status at the start of the conversation. Note that this status is a snapshot in "
            "time, and will not update during the conversation.",
            f"Current branch: {self.branch}",
            f"Main branch (you will usually use this for PRs): {self.main_branch}",
            *([f"Git user: {self.user}"] if self.user else []),
            f"Status:\n{self.status or '(clean)'}",
            f"Recent commits:\n{self.commits}",
        ])

    def as_setup(self) -> dict[str, str]:
        """The snapshot as a cassette's setup keeps it (agent.record.git_status checks it when read)."""
        return asdict(self)


class WorktreeSnapshots:
    """The snapshots worktree-isolated agents start with, one for each worktree (by its name): the
    `recorded` ones when replaying (no git runs, and a worktree the recording had none for gets
    none), else taken from the worktree the first time it is asked for, each handed to `on_taken`
    (a recording keeps them in its setup). Agents run in parallel: one lock guards both."""

    def __init__(self, recorded: dict[str, dict[str, str]] | None = None,
                 on_taken: Callable[[str, dict[str, str]], None] | None = None):
        self.recorded = recorded
        self.on_taken = on_taken
        self._taken: dict[str, GitStatus | None] = {}
        self._lock = threading.Lock()

    def snapshot(self, name: str, path: Path) -> GitStatus | None:
        """The snapshot of the worktree `name` at `path`."""
        if self.recorded is not None:
            fields = self.recorded.get(name)
            return GitStatus(**fields) if fields is not None else None
        with self._lock:
            if name not in self._taken:
                self._taken[name] = status = take_git_status(path)
                if status is not None and self.on_taken is not None:
                    self.on_taken(name, status.as_setup())
            return self._taken[name]


def take_git_status(cwd: Path) -> GitStatus | None:
    """The snapshot of the repository `cwd` is in, or None: outside a repository, when git is
    missing or fails, or when the repository cannot be read safely (one warning)."""
    root = project_folders(Path(cwd))[-1]
    if not os.path.exists(root / ".git"):
        return None
    try:
        top = _git(cwd, "rev-parse", "--show-toplevel")
        if top is None:  # not a work tree git accepts (bare, or owned by someone else)
            return None
        if os.path.realpath(top.strip()) != os.path.realpath(root):
            raise Refused(f"its work tree starts at {top.strip()} (core.worktree), not at {root}, so the status "
                          "could list files outside the repository")
        status = _git(cwd, *_filters_off(cwd), "status", "--short", "--ignore-submodules=dirty")
        if status is None:
            raise Refused("`git status` failed or took too long")
        status = status.rstrip()
        return GitStatus(
            branch=_line(_git(cwd, "symbolic-ref", "--short", "-q", "HEAD")) or "HEAD",
            main_branch=_main_branch(cwd),
            user=_line(_git(cwd, "config", "user.name")),
            status=status[:STATUS_CHARS] + TRUNCATED if len(status) > STATUS_CHARS else status,
            commits=(_git(cwd, "log", "--no-color", "--oneline", "-n", str(RECENT_COMMITS)) or "").strip(),
        )
    except Refused as why:
        log.warning(f"git status left out of the conversation: {why}")
    except OSError as error:  # no bash, or no git
        log.info(f"git status left out of the conversation: {error.strerror or error}")
    return None


def _main_branch(cwd: Path) -> str:
    """origin's default branch when its ref exists, else origin's main or master, else main."""
    default = _line(_git(cwd, "symbolic-ref", "--short", "-q", "refs/remotes/origin/HEAD")).removeprefix("origin/")
    for name in ([default] if default else []) + ["main", "master"]:
        if _git(cwd, "show-ref", "--verify", "--quiet", f"refs/remotes/origin/{name}") is not None:
            return name
    return "main"


def _filters_off(cwd: Path) -> list[str]:
    """Flags switching off every filter driver the configuration names (its clean or process
    command would run on `git status`). Raises Refused when they cannot all be named."""
    listed = _git(cwd, "config", "--null", "--name-only", "--list", limit=CONFIG_CHARS)
    if listed is None or len(listed) > CONFIG_CHARS:
        raise Refused("its configuration could not be read whole")
    drivers = sorted({key[len("filter."):].rsplit(".", 1)[0] for key in listed.split("\0")
                      if key.lower().startswith("filter.") and key.count(".") >= 2})
    if len(drivers) > MAX_FILTERS or any("=" in name or "\n" in name for name in drivers):
        raise Refused("its configuration names filter drivers that cannot all be switched off")
    return [flag for name in drivers for setting in ("clean=", "smudge=", "process=", "required=false")
            for flag in ("-c", f"filter.{name}.{setting}")]


def _git(cwd: Path, *arguments: str, limit: int = OUTPUT_CHARS) -> str | None:
    """git's output for `arguments` (after SAFE_FLAGS), or None when it failed or timed out."""
    command = shlex.join(["git", *SAFE_FLAGS, *arguments])
    outcome = run_shell(command, Path(cwd), TIMEOUT_S, limit, extra_env=GIT_ENVIRONMENT)
    return outcome.stdout if outcome.code == 0 else None


def _line(text: str | None) -> str:
    """The first line of `text`, stripped and cut at LINE_CHARS ("" for None)."""
    return (text or "").strip().split("\n", 1)[0][:LINE_CHARS]
