"""Worktree isolation, as Claude Code 2.1.332 does it: an agent whose definition says
`isolation: worktree`, or whose Agent call passes `isolation: "worktree"`, works in a git worktree
of its own, so agents editing in parallel never edit the same files.

- Where: `<repository>/.claude/worktrees/agent-<id>`, on the new branch `worktree-agent-<id>`,
  branched from the remote's default branch (`origin/HEAD`) when the repository has one and from
  the current HEAD otherwise (what Claude Code was seen to do: the seed's "the default branch").
  Outside a repository the call fails with a clear error.
- While it runs, the worktree is its workspace (`Workspace.shared` names the checkouts it must
  not reach): paths resolve there, Bash starts there, the permission policy's workspace is the
  worktree, and `worktree_guard` refuses git aimed at the shared checkout and edits there.
- At its end, a worktree with changes (a modified, staged or untracked file, or a commit of its
  own) is kept, and the result names its path and branch; an unchanged one is removed with its
  branch. A continued agent (SendMessage) goes back to its kept worktree.
- Recording, each step that asked git (made, or why not; kept or removed; still there) is kept in
  the cassette's tool runs as a `worktree` entry, so --replay-tools answers it and runs no git: no
  worktree is made, and the agent's workspace is the path the worktree would have.
- The agent starts with its worktree's own git status snapshot (its branch, status and recent
  commits: `worktree_git_status`), which a recording keeps in its setup and a replay gives back.

git runs without the repository's hooks, fsmonitor or pager, never prompts, with no variable
pointing it elsewhere, and is bounded in time and output.
"""

from __future__ import annotations

import logging
import os
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from agent.processes.git_status import take_git_status
from agent.processes.running import run_shell
from agent.tools.base import ToolError
from agent.workspace import Workspace, project_folders

log = logging.getLogger("agent")

FOLDER = Path(".claude") / "worktrees"  # under the repository's top level, as in Claude Code
RUN_TOOL = "worktree"  # the `tool` of its entries in a cassette's tool_runs
GIT_TIMEOUT_S = 60
GIT_OUTPUT_LIMIT = 4_000  # characters kept of each stream: a status only needs to be non-empty
_UNSET = ("GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY GIT_NAMESPACE "
          "GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_PREFIX")
_SAFE_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.pager=cat")
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
_FAILED = "failed: "  # how a recorded step that could not be done begins
_LOCK = threading.Lock()  # one git worktree add/remove at a time: parallel agents share the repository
# What an isolated agent's environment note says of its folder (the first in Claude Code's words).
WORKTREE_FACTS = (
    "This is a git worktree \u2014 an isolated copy of the repository. Run all commands from this directory. "
    "Do NOT `cd` to the original repository root.",
    "The git stash is shared with the main checkout and every other worktree, where other agents may use it at the "
    "same time: never use a bare `git stash` or `git stash pop`; set work aside with a temporary commit instead.",
)


@dataclass
class Worktree:
    """One agent's worktree: where, on which branch, the commit it started from (None when it
    was not made here: --replay-tools, or a continued agent's), and whether it was kept."""

    path: Path
    branch: str
    base: str | None
    workspace: Workspace
    kept: bool = False

    def lines(self) -> list[str]:
        """The lines Claude Code adds to the result of an agent whose worktree was kept."""
        return [f"worktreePath: {self.path}", f"worktreeBranch: {self.branch}"]


def worktree_git_status(session, workspace: Workspace):
    """The git status snapshot an agent working in the worktree `workspace` starts with: that
    worktree's (agent.processes.git_status; the recorded one when replaying), or None when the
    session starts without snapshots (includeGitInstructions off, or outside a repository)."""
    if session.git_status is None:
        return None
    snapshots = getattr(session, "worktree_snapshots", None)
    path = Path(workspace.cwd)
    return snapshots.snapshot(path.name, path) if snapshots is not None else take_git_status(path)


def isolation_field(value: Any, label: str) -> str | None:
    """A definition's `isolation`: "worktree", or None when unset or anything else (one warning)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip() == "worktree":
        return "worktree"
    log.warning(f"{label}: isolation should be worktree, not {str(value)[:40]!r}; it runs in the session's workspace")
    return None


def wants_worktree(arguments: dict[str, Any], definition) -> bool:
    """Whether an Agent call starts its agent in a worktree: the call or the definition says so."""
    return arguments.get("isolation") == "worktree" or getattr(definition, "isolation", None) == "worktree"


def open_worktree(session, caller: str, agent_id: str) -> Worktree:
    """Make the worktree of agent `agent_id` (started by the agent named `caller`) in the session's
    repository; a ToolError in Claude Code's words when it cannot be made."""
    name = f"agent-{agent_id}"
    made: list[Worktree] = []

    def make() -> str:
        try:
            made.append(_make(session.workspace.cwd, agent_id))
        except ToolError as error:
            return _FAILED + str(error)
        return str(made[0].path)

    outcome = _step(session, caller, {"create": name}, make)
    if outcome.startswith(_FAILED):
        raise ToolError(outcome[len(_FAILED):])
    return made[0] if made else _replayed(session, agent_id, kept=False)


def reopen_worktree(session, caller: str, agent_id: str) -> Worktree | None:
    """The kept worktree of agent `agent_id` when it is still there (a continued agent works in
    it again, and it is never removed then: its changes are why it was kept), else None."""
    path = _place(session, agent_id)

    def look() -> str:
        return "found" if (path / ".git").is_file() else "none"

    if _step(session, caller, {"reopen": f"agent-{agent_id}"}, look) != "found":
        return None
    return _replayed(session, agent_id, kept=True)


def close_worktree(session, caller: str, worktree: Worktree) -> None:
    """At the agent's end: keep `worktree` when it changed (or could not be removed), remove it
    and its branch when not; `worktree.kept` says which."""
    if worktree.base is None and worktree.kept:
        return

    def finish() -> str:
        return "kept" if _keep_or_remove(worktree) else "removed"

    worktree.kept = _step(session, caller, {"finish": worktree.path.name}, finish) == "kept"


def _step(session, caller: str, step: dict[str, str], run: Callable[[], str]) -> str:
    """Do one step through the session's tool runs: recorded, or answered by the cassette."""
    tool_runs = getattr(session, "tool_runs", None)
    outcome = tool_runs(caller, None, RUN_TOOL, step, run) if tool_runs is not None else run()
    return outcome if isinstance(outcome, str) else ""


def _place(session, agent_id: str) -> Path:
    """Where agent `agent_id`'s worktree is, found without git (the repository's top level is the
    nearest folder holding `.git`)."""
    return project_folders(session.workspace.cwd)[-1] / FOLDER / f"agent-{agent_id}"


def _replayed(session, agent_id: str, kept: bool) -> Worktree:
    """A worktree this run did not make: --replay-tools' (never made at all), or a kept one."""
    path = _place(session, agent_id)
    root = path.parent.parent.parent
    return Worktree(path, f"worktree-agent-{agent_id}", None, Workspace(path, (root,)), kept)


def _make(cwd: Path, agent_id: str) -> Worktree:
    """git worktree add, from the default branch (see the module docstring)."""
    try:
        return _add(cwd, agent_id)
    except ToolError as error:
        raise ToolError(f"Cannot create agent worktree: {error}") from None


def _add(cwd: Path, agent_id: str) -> Worktree:
    found = _git(cwd, "rev-parse", "--show-toplevel", "--git-common-dir")
    lines = found.stdout.splitlines()
    if found.code != 0 or len(lines) < 2:
        raise ToolError(_why_not(found, cwd))
    root = Path(lines[0])
    common = Path(os.path.normpath(cwd / lines[1]))  # relative to cwd unless absolute
    shared = (root,) + ((common.parent,) if common.name == ".git" and common.parent != root else ())
    base = _commit(cwd, "refs/remotes/origin/HEAD") or _commit(cwd, "HEAD")
    if base is None:
        raise ToolError("the repository has no commit yet to branch from.")
    path, branch = root / FOLDER / f"agent-{agent_id}", f"worktree-agent-{agent_id}"
    if os.path.lexists(path):
        raise ToolError(f"{path} already exists (kept from an earlier run?). Remove it with "
                        f"`git worktree remove {shlex.quote(str(path))}` and `git branch -D {branch}` first.")
    with _LOCK:
        added = _git(root, "worktree", "add", "--quiet", "-b", branch, str(path), base)
    if added.code != 0:
        raise ToolError(_first_line(added))
    log.info("agent %s works in the worktree %s (branch %s from %s)", agent_id, path, branch, base[:12])
    return Worktree(path, branch, base, Workspace(path, shared))


def _keep_or_remove(worktree: Worktree) -> bool:
    """Whether `worktree` stays: it has changes (or they cannot be told), or removing it failed."""
    try:
        return _changed(worktree) or not _removed(worktree)
    except ToolError as error:  # git could not run: nothing is lost by keeping it
        log.warning("kept the worktree %s: %s", worktree.path, error)
        return True


def _changed(worktree: Worktree) -> bool:
    status = _git(worktree.path, "status", "--porcelain", "--untracked-files=all")
    head = _commit(worktree.path, "HEAD")
    if status.code != 0 or status.stdout.strip() or head != worktree.base:
        log.info("the worktree %s has changes: kept", worktree.path)
        return True
    return False


def _removed(worktree: Worktree) -> bool:
    """Remove an unchanged worktree and its branch; whether the worktree is gone."""
    root = worktree.workspace.shared[0]
    with _LOCK:
        removed = _git(root, "worktree", "remove", "--force", str(worktree.path))
        if removed.code != 0:
            log.warning("could not remove the unchanged worktree %s: %s", worktree.path, _first_line(removed))
            return False
        deleted = _git(root, "branch", "-D", worktree.branch)
    if deleted.code != 0:
        log.warning("could not delete the branch %s: %s", worktree.branch, _first_line(deleted))
    return True


def _commit(cwd: Path, ref: str) -> str | None:
    """The commit `ref` names, or None."""
    found = _git(cwd, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    commit = found.stdout.strip()
    return commit if found.code == 0 and commit else None


def _git(cwd: Path, *arguments: str):
    """Run git safely (see the module docstring); its outcome (code None: it timed out)."""
    line = f"unset {_UNSET}; exec " + shlex.join(["git", *_SAFE_CONFIG, *arguments])
    try:
        return run_shell(line, cwd, GIT_TIMEOUT_S, GIT_OUTPUT_LIMIT, extra_env=_GIT_ENV)
    except OSError as error:
        raise ToolError(f"cannot run git in {cwd} ({error.strerror or error})") from None


def _why_not(outcome, cwd: Path) -> str:
    if outcome.code == 127:
        return "git is not installed."
    if "not a git repository" in outcome.stderr:
        return f"{cwd} is not in a git repository (worktree isolation needs one)."
    return _first_line(outcome)


def _first_line(outcome) -> str:
    if outcome.code is None:
        return f"git did not finish within {GIT_TIMEOUT_S} s."
    text = (outcome.stderr.strip() or outcome.stdout.strip() or f"git exited with {outcome.code}").splitlines()[0]
    return text.removeprefix("fatal: ")[:300]
