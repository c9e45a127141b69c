"""A worktree-isolated agent starts with its worktree's own git status snapshot, as Claude Code
2.1.332 gives it one (its branch `worktree-agent-<id>`, a clean status, the commits it branched
from), while the main conversation keeps the checkout's. The recording keeps each worktree's
snapshot in its setup (`worktree_git_status`), so a replay runs no git for it: it matches after the
repository moved on, and with --replay-tools in an empty folder. Both wire formats."""

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from scripted_model import call, text

from agent.record.git_status import worktree_git_status_problem

IDENTITY = {"GIT_AUTHOR_NAME": "Tess Ter", "GIT_AUTHOR_EMAIL": "tess@example.com", "GIT_COMMITTER_NAME": "Tess Ter",
            "GIT_COMMITTER_EMAIL": "tess@example.com", "GIT_AUTHOR_DATE": "2026-01-02T03:04:05+00:00",
            "GIT_COMMITTER_DATE": "2026-01-02T03:04:05+00:00", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1"}
TASK = "TASK: look around the worktree."


def git(folder: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=folder, env={**os.environ, **IDENTITY}, check=True,
                          capture_output=True, text=True).stdout


def make_repository(folder: Path) -> None:
    """A repository on branch feature-x with two commits and a changed file in the checkout."""
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Tess Ter")
    (folder / "a.txt").write_text("a\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "first commit")
    git(folder, "checkout", "-q", "-b", "feature-x")
    (folder / "b.txt").write_text("b\n")
    git(folder, "add", "b.txt")
    git(folder, "commit", "-q", "-m", "second commit")
    (folder / "a.txt").write_text("a changed\n")


def opening(payload) -> str:
    content = next(m for m in payload["messages"] if m["role"] == "user")["content"]
    return content if isinstance(content, str) else "\n\n".join(part.get("text", "") for part in content)


def git_block(payload) -> str:
    text = opening(payload)
    return text[text.index("# gitStatus"):text.index("</system-reminder>", text.index("# gitStatus"))]


def test_a_worktree_agent_starts_with_its_worktrees_own_snapshot_recorded_for_replays(agent, tmp_path):
    make_repository(agent.workspace)
    agent.script(call("Agent", description="look", prompt=TASK, isolation="worktree", run_in_background=False),
                 text("Looked."))
    agent.route(TASK, text("nothing to change"))
    run = agent.run("Look around in isolation.")
    assert run.exit_code == 0 and run.stdout == "Looked.\n", run.stderr
    main = git_block(run.payloads[0])
    assert "Current branch: feature-x" in main and " M a.txt" in main
    (isolated,) = [p for p in run.payloads if TASK in opening(p)]
    own = git_block(isolated)
    branch = next(line for line in own.splitlines() if line.startswith("Current branch: "))
    assert branch.startswith("Current branch: worktree-agent-a") and "Status:\n(clean)" in own
    assert "Main branch (you will usually use this for PRs): main" in own
    assert "second commit" in own and "first commit" in own
    setup = yaml.safe_load(run.cassette.read_text())["setup"]
    (name,) = setup["worktree_git_status"]
    assert branch == f"Current branch: worktree-{name}"
    assert setup["worktree_git_status"][name]["status"] == ""

    (agent.workspace / "c.txt").write_text("c\n")  # the repository moves on: the replay still matches
    git(agent.workspace, "add", "c.txt")
    git(agent.workspace, "commit", "-q", "-m", "third commit")
    again = agent.replay()
    assert (again.exit_code, again.stdout) == (0, "Looked.\n"), again.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    offline = agent.replay("--replay-tools", cwd=empty)
    assert (offline.exit_code, offline.stdout) == (0, "Looked.\n"), offline.stderr
    assert list(empty.iterdir()) == []  # no worktree, no git


def test_no_snapshot_for_a_worktree_agent_when_git_instructions_are_off(agent):
    make_repository(agent.workspace)
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "includeGitInstructions": False})
    agent.script(call("Agent", description="look", prompt=TASK, isolation="worktree", run_in_background=False),
                 text("Looked."))
    agent.route(TASK, text("nothing to change"))
    run = agent.run("Look around in isolation.")
    assert run.exit_code == 0, run.stderr
    assert not any("# gitStatus" in json.dumps(p) for p in run.payloads)
    assert "worktree_git_status" not in yaml.safe_load(run.cassette.read_text())["setup"]


SNAPSHOT = {"branch": "b", "main_branch": "main", "user": "", "status": "", "commits": ""}


@pytest.mark.parametrize("value, problem", [
    ({"agent-a0123456789abcdef": SNAPSHOT}, None),
    ({}, None),
    ([SNAPSHOT], "must be a mapping"),
    ({"../escape": SNAPSHOT}, "worktree names"),
    ({"agent-a0123456789abcdef": {**SNAPSHOT, "extra": "x"}}, "must be a mapping of branch"),
    ({"agent-a0123456789abcdef": {**SNAPSHOT, "status": "x" * 10_001}}, "at most 10,000 characters"),
    ({f"agent-a{n:016x}": SNAPSHOT for n in range(201)}, "at most 200"),
])
def test_the_recorded_worktree_snapshots_are_checked_when_read(value, problem):
    found = worktree_git_status_problem(value)
    assert (found is None) if problem is None else (problem in found)


def test_a_cassette_with_a_malformed_worktree_snapshot_is_refused_in_one_line(agent, tmp_path):
    make_repository(agent.workspace)
    agent.script(call("Agent", description="look", prompt=TASK, isolation="worktree", run_in_background=False),
                 text("Looked."))
    agent.route(TASK, text("nothing to change"))
    assert agent.run("Look around in isolation.").exit_code == 0
    data = yaml.safe_load(agent.cassette_path(1).read_text())
    data["setup"]["worktree_git_status"] = {"../../etc": {"branch": "x"}}
    forged = tmp_path / "forged.yaml"
    forged.write_text(yaml.safe_dump(data))
    run = agent.replay(cassette=forged)
    assert run.exit_code == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "worktree_git_status" in run.stderr
