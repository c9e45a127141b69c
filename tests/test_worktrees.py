"""Worktree isolation end to end on both wire formats, in a real git repository each test makes
(fixed author and dates, so its commits are the same on every run): an isolated agent works in
`.claude/worktrees/agent-<id>` on `worktree-agent-<id>`, its edits land there and not in the main
checkout, git aimed at the main checkout is refused, a changed worktree is kept and named, an
unchanged one is removed with its branch, and a recording replays in another folder."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from scripted_model import Call, call, calls, text

from agent.subagents.worktree_guard import bash_refusal, edit_refusal
from agent.workspace import Workspace

ISO_BODY = "You are an isolated worker. Do exactly what the task says."
WORKTREES = "{{workspace}}/.claude/worktrees/agent-"
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
                "GIT_COMMITTER_EMAIL": "test@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
                "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(folder: Path, *arguments: str) -> str:
    """Run git in `folder` as the test's own user (not the agent): its stdout."""
    done = subprocess.run(["git", *arguments], cwd=folder, env={**os.environ, **GIT_IDENTITY}, check=True,
                          capture_output=True, text=True)
    return done.stdout


def make_repo(folder: Path) -> Path:
    """A repository in `folder` with one commit of README.md on main."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "README.md").write_text("hello\n")
    git(folder, "add", "README.md")
    git(folder, "commit", "-q", "-m", "first")
    return folder


def worktrees(folder: Path) -> list[Path]:
    root = folder / ".claude" / "worktrees"
    return sorted(root.iterdir()) if root.is_dir() else []


def agent_branches(folder: Path) -> list[str]:
    return git(folder, "branch", "--list", "worktree-agent-*", "--format=%(refname:short)").split()


def results_in(payload) -> list[str]:
    """The JSON text of every tool result in a request, in order, on either wire."""
    found = []
    for message in payload["messages"]:
        if message["role"] == "tool":
            found.append(json.dumps(message["content"], ensure_ascii=False))
        elif isinstance(message.get("content"), list):
            found += [json.dumps(block.get("content"), ensure_ascii=False) for block in message["content"]
                      if isinstance(block, dict) and block.get("type") == "tool_result"]
    return found


def requests_of(run, marker):
    """The requests whose system prompt (or first message) holds `marker`."""
    return [p for p in run.payloads if marker in json.dumps(p.get("system") or p["messages"][0], ensure_ascii=False)]


def task_requests(run, task):
    """The requests of the subagent whose task (its first user message) is `task`."""
    return [p for p in run.payloads if task in json.dumps([m for m in p["messages"] if m["role"] == "user"][0])]


def agent_schema(payload) -> dict:
    for tool in payload.get("tools", []):
        if (tool.get("name") or tool["function"]["name"]) == "Agent":
            return tool.get("input_schema") or tool["function"]["parameters"]
    raise AssertionError("no Agent tool")


def test_isolated_agent_works_and_edits_in_its_own_worktree(agent):
    make_repo(agent.workspace)
    agent.agent_file("iso.md", "iso", "Isolated worker.", ISO_BODY, "isolation: worktree")
    agent.script(
        call("Agent", description="Notes in isolation", prompt="Add notes.", subagent_type="iso", run_in_background=False),
        call("Bash", command="pwd && git branch --show-current"),
        call("Write", file_path="notes.txt", content="from the agent\n"),
        call("Write", file_path=str(agent.workspace / "README.md"), content="clobbered\n"),
        call("Bash", command=f"git -C {agent.workspace} status --short"),
        call("Bash", command=f"cd {agent.workspace} && git status --short"),
        text("Wrote notes.txt."),
        lambda request: text("Report: " + request.tool_results()[0]),
    )
    run = agent.run("Use the iso agent to add notes.")
    assert run.exit_code == 0, run.stderr
    [kept] = worktrees(agent.workspace)
    name = kept.name
    assert name.startswith("agent-a") and len(name) == len("agent-") + 17
    assert (kept / "notes.txt").read_text() == "from the agent\n"
    assert not (agent.workspace / "notes.txt").exists()
    assert (agent.workspace / "README.md").read_text() == "hello\n"
    assert agent_branches(agent.workspace) == [f"worktree-{name}"]
    sub = requests_of(run, ISO_BODY)
    assert "This is a git worktree" in json.dumps(sub[0], ensure_ascii=False)
    assert f"Working directory: {WORKTREES}" in json.dumps(sub[0], ensure_ascii=False)
    pwd, written, clobber, git_c, cd_git = results_in(sub[-1])
    assert f"{WORKTREES}{name[6:]}" in pwd and f"worktree-{name}" in pwd
    assert "Edit the worktree copy of this file instead of the shared-checkout path" in clobber
    assert "redirects git to the shared checkout via -C" in git_c
    assert "changes directory to the shared checkout ({{workspace}}) before running git" in cd_git
    result = results_in(run.payloads[-1])[-1]
    assert f"worktreePath: {{{{workspace}}}}/.claude/worktrees/{name}" in result
    assert f"worktreeBranch: worktree-{name}" in result
    assert "worktreePath:" in run.stdout


def test_call_parameter_isolates_and_an_unchanged_worktree_is_removed(agent):
    make_repo(agent.workspace)
    agent.script(
        call("Agent", description="Look around", prompt="Run pwd.", isolation="worktree", run_in_background=False),
        call("Bash", command="pwd"),
        text("Looked."),
        lambda request: text("Report: " + request.tool_results()[0]),
    )
    run = agent.run("Look around in isolation.")
    assert run.exit_code == 0, run.stderr
    schema = agent_schema(run.payloads[0])["properties"]["isolation"]
    assert schema["enum"] == ["worktree"] and "worktree" in schema["description"]
    assert run.some_request([WORKTREES], lacks=["worktreePath"])
    assert worktrees(agent.workspace) == [] and agent_branches(agent.workspace) == []
    assert git(agent.workspace, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert "worktreePath" not in results_in(run.payloads[-1])[-1]


def test_the_worktree_branches_from_the_remotes_default_branch_else_from_head(agent, tmp_path):
    make_repo(agent.workspace)
    git(agent.workspace, "checkout", "-q", "-b", "feature")
    (agent.workspace / "feature.txt").write_text("f\n")
    git(agent.workspace, "add", "feature.txt")
    git(agent.workspace, "commit", "-q", "-m", "feature work")
    for _ in range(2):
        agent.script(
            call("Agent", description="Log", prompt="TASK: show the log.", isolation="worktree", run_in_background=False),
            call("Bash", command="git log --format=%s"),
            text("Shown."),
            lambda request: text("Log: " + request.tool_results()[0]),
        )
    alone = agent.run("Show the log in isolation.")  # no remote: from the current HEAD (feature)
    assert alone.exit_code == 0, alone.stderr
    assert "feature work" in results_in(task_requests(alone, "TASK: show the log.")[-1])[0]
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(agent.workspace, "remote", "add", "origin", str(origin))
    git(agent.workspace, "push", "-q", "origin", "main")
    git(agent.workspace, "remote", "set-head", "origin", "main")
    remote = agent.run("Show the log in isolation.")  # the remote's default branch (main), as the seed says
    assert remote.exit_code == 0, remote.stderr
    shown = results_in(task_requests(remote, "TASK: show the log.")[-1])[0]
    assert "first" in shown and "feature work" not in shown
    assert git(agent.workspace, "branch", "--show-current").strip() == "feature"


def test_isolation_outside_a_repository_is_the_calls_error(agent, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(agent.workspace.parent))  # never the machine's own repository
    agent.script(
        call("Agent", description="Look around", prompt="Run pwd.", isolation="worktree", run_in_background=False),
        lambda request: text("Error: " + request.tool_results()[0]),
    )
    run = agent.run("Look around in isolation.")
    assert run.exit_code == 0, run.stderr
    assert "Cannot create agent worktree: {{workspace}} is not in a git repository" in run.stdout.replace(
        str(agent.workspace), "{{workspace}}")
    assert len(run.payloads) == 2 and not (agent.workspace / ".claude" / "worktrees").exists()


def test_two_isolated_agents_in_parallel_get_two_worktrees(agent):
    make_repo(agent.workspace)
    agent.script(calls(
        Call("Agent", {"description": "First", "prompt": "TASK one: write one.txt", "isolation": "worktree",
                       "run_in_background": False}),
        Call("Agent", {"description": "Second", "prompt": "TASK two: write two.txt", "isolation": "worktree",
                       "run_in_background": False}),
    ))
    agent.route("TASK one", call("Write", file_path="one.txt", content="1\n"), text("one written"))
    agent.route("TASK two", call("Write", file_path="two.txt", content="2\n"), text("two written"))
    agent.script(lambda request: text(" | ".join(request.tool_results())))
    run = agent.run("Write both files in parallel.")
    assert run.exit_code == 0, run.stderr
    first, second = worktrees(agent.workspace)
    assert {sorted(p.name for p in folder.iterdir() if p.suffix == ".txt")[0] for folder in (first, second)} == \
        {"one.txt", "two.txt"}
    assert len(set(agent_branches(agent.workspace))) == 2
    assert run.stdout.count("worktreePath: ") == 2
    assert not (agent.workspace / "one.txt").exists() and not (agent.workspace / "two.txt").exists()


def test_background_isolated_agent_names_its_worktree_in_the_notification(agent):
    make_repo(agent.workspace)
    agent.script(
        call("Agent", description="Notes", prompt="TASK: write notes.txt", isolation="worktree"),
        text("Waiting for the agent."),
        lambda request: text("Notified: " + json.dumps(request.messages[-1], ensure_ascii=False)),
    )
    agent.route("TASK: write notes.txt", call("Write", file_path="notes.txt", content="n\n"), text("written"))
    run = agent.run("Write notes in the background.")
    assert run.exit_code == 0, run.stderr
    [kept] = worktrees(agent.workspace)
    assert (kept / "notes.txt").exists()
    assert f"<worktree><worktreePath>{kept}</worktreePath><worktreeBranch>worktree-{kept.name}</worktreeBranch>" \
           "</worktree>" in run.stdout


def test_a_continued_agent_works_in_its_kept_worktree_again(agent):
    make_repo(agent.workspace)
    agent.script(
        call("Agent", description="Notes", prompt="Write notes.", isolation="worktree", run_in_background=False),
        call("Write", file_path="notes.txt", content="first\n"),
        text("Wrote notes.txt."),
        lambda request: call("SendMessage", to=re.search(r"agentId: (a[0-9a-f]{16})", request.tool_results()[0]).group(1),
                             message="Also write more.txt", summary="more notes"),
        call("Write", file_path="more.txt", content="second\n"),
        text("Wrote more.txt."),
        lambda request: text("Again: " + request.tool_results()[0]),
    )
    run = agent.run("Write notes, then more.")
    assert run.exit_code == 0, run.stderr
    [kept] = worktrees(agent.workspace)
    assert (kept / "notes.txt").exists() and (kept / "more.txt").exists()
    assert not (agent.workspace / "more.txt").exists()
    assert "Again: " in run.stdout and f"worktreePath: {kept}" in run.stdout


def test_a_recording_replays_in_another_repository_and_with_replay_tools_anywhere(agent, tmp_path):
    make_repo(agent.workspace)
    agent.script(
        call("Agent", description="Notes", prompt="Write notes.", isolation="worktree", run_in_background=False),
        call("Write", file_path="notes.txt", content="from the agent\n"),
        call("Bash", command="pwd"),
        text("Wrote notes.txt."),
        lambda request: text("Report: " + request.tool_results()[0]),
    )
    first = agent.run("Write notes in isolation.")
    assert first.exit_code == 0, first.stderr
    other = make_repo(tmp_path / "other")
    again = agent.replay(cwd=other)
    assert again.exit_code == 0, again.stderr
    assert again.stdout == first.stdout.replace(str(agent.workspace), str(other))
    [kept] = worktrees(other)
    assert (kept / "notes.txt").read_text() == "from the agent\n" and kept.name == worktrees(agent.workspace)[0].name
    empty = tmp_path / "empty"
    empty.mkdir()
    offline = agent.replay("--replay-tools", cwd=empty)
    assert offline.exit_code == 0, offline.stderr
    assert offline.stdout == first.stdout.replace(str(agent.workspace), str(empty))
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("command, refused", [
    ("pwd && git status && git log -1", None),
    ("cd {main} && ls", None),
    ("cd sub && git status", None),
    ("git -C {main} status", "redirects git to the shared checkout via -C"),
    ("git -C ../../.. log", "redirects git to the shared checkout via -C"),
    ("git --git-dir={main}/.git status", "redirects git to the shared checkout via --git-dir"),
    ("GIT_DIR={main}/.git git status", "sets GIT_DIR to the shared checkout ({main}/.git)"),
    ("export GIT_WORK_TREE={main}; git status", "sets GIT_WORK_TREE to the shared checkout ({main})"),
    ("sudo git -C {main} log", "redirects git to the shared checkout via -C"),
    ("sh -c 'git -C {main} log'", "redirects git to the shared checkout via -C"),
    ("cd {main} && git status", "changes directory to the shared checkout ({main}) before running git"),
    ("cd - && git log", "changes directory to a location computed at runtime before running git"),
    ("G=git; $G status", "runs a command whose name is computed at runtime"),
    ('eval "$LINE"', "runs a command line computed at runtime"),
])
def test_git_aimed_at_the_main_checkout_is_refused(tmp_path, command, refused):
    main = tmp_path / "repo"
    worktree = main / ".claude" / "worktrees" / "agent-a0123456789abcdef"
    worktree.mkdir(parents=True)
    found = bash_refusal(command.format(main=main), Workspace(worktree, (main,)))
    if refused is None:
        assert found is None
    else:
        assert found.startswith(f"This agent is isolated in the worktree {worktree}, but this command ")
        assert refused.format(main=main) in found


def test_edits_of_the_main_checkout_are_refused_even_through_a_symlink(tmp_path):
    main = tmp_path / "repo"
    worktree = main / ".claude" / "worktrees" / "agent-a0123456789abcdef"
    worktree.mkdir(parents=True)
    (main / "README.md").write_text("hello\n")
    (worktree / "link.md").symlink_to(main / "README.md")
    workspace = Workspace(worktree, (main,))
    assert "Edit the worktree copy of this file" in edit_refusal(str(main / "README.md"), workspace)
    assert "Edit the worktree copy of this file" in edit_refusal("link.md", workspace)
    assert edit_refusal("notes.txt", workspace) is None and edit_refusal(str(worktree / "x.py"), workspace) is None
