"""What an agent starts with, on both wire formats: the built-in Plan agent; CLAUDE.md and the git
status snapshot in the main conversation's and most agents' first message (not Explore's or Plan's,
no CLAUDE.md for omitClaudeMd), none outside a repository or with includeGitInstructions off; the
snapshot kept in the cassette's setup, so a replay in a changed repository still matches; and the
variables that switch built-in agents off. The repository is a real one the test builds, with
fixed authors and dates so its commit ids never change."""

import json
import os
import subprocess

from scripted_model import call, text

MEMORY = "MEMORY-MARKER-7 always answer in English."
REVIEWER = "REVIEWER-BODY: review what you are given."
EXPLORE = "You are a read-only exploration agent."
PLAN = "You are a read-only planning agent"
WHEN = "2026-01-02T03:04:05+00:00"


def git(agent, *arguments):
    """Run git in the workspace as the test's fixed author, at a fixed time."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "Tess Ter", "GIT_AUTHOR_EMAIL": "tess@example.com",
           "GIT_COMMITTER_NAME": "Tess Ter", "GIT_COMMITTER_EMAIL": "tess@example.com",
           "GIT_AUTHOR_DATE": WHEN, "GIT_COMMITTER_DATE": WHEN, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *arguments], cwd=agent.workspace, env=env, check=True, capture_output=True)


def make_repository(agent):
    """A repository on branch feature-x with two commits, a changed file and an untracked one."""
    git(agent, "init", "-q", "-b", "main")
    git(agent, "config", "user.name", "Test User")
    agent.write("CLAUDE.md", MEMORY + "\n")
    agent.write("a.txt", "a\n")
    git(agent, "add", "CLAUDE.md", "a.txt")
    git(agent, "commit", "-q", "-m", "first commit")
    git(agent, "checkout", "-q", "-b", "feature-x")
    agent.write("b.txt", "b\n")
    git(agent, "add", "b.txt")
    git(agent, "commit", "-q", "-m", "second commit")
    agent.write("a.txt", "a changed\n")
    agent.write("notes.txt", "untracked\n")


def requests_of(run, marker):
    """The request bodies (JSON text) whose system prompt holds `marker`."""
    return [json.dumps(p, ensure_ascii=False) for p in run.payloads
            if marker in json.dumps(p.get("system") or p["messages"][0], ensure_ascii=False)]


def tool_names(payload):
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def test_plan_is_a_read_only_built_in(agent):
    agent.script(
        call("Agent", description="plan it", prompt="Plan the change.", subagent_type="Plan", run_in_background=False),
        text("1. Do it.\n\n### Critical Files for Implementation\n- a.txt"),
        lambda request: text(request.tool_results()[0]),
    )
    run = agent.run("Plan it with the Plan agent.")
    assert run.exit_code == 0 and "Critical Files for Implementation" in run.stdout
    assert "agentId" not in run.stdout  # one-shot, as Explore: nothing to continue
    main = json.dumps(run.payloads[0])
    assert "Plan: Software architect agent for designing implementation plans" in main
    plan = [p for p in run.payloads if PLAN in json.dumps(p.get("system") or p["messages"][0])]
    assert len(plan) == 1
    assert tool_names(plan[0]) == ["Read", "Bash", "Glob", "Grep"]
