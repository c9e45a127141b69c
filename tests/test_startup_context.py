"""What an agent starts with, on both wire formats: the built-in Plan agent; CLAUDE.md and the git
status snapshot in the main conversation's and most agents' first message (not Explore's or Plan's,
no CLAUDE.md for omitClaudeMd), none outside a repository or with includeGitInstructions off; the
snapshot kept in the cassette's setup, so a replay in a changed repository still matches; and the
variables that switch built-in agents off. The repository is a real one the test builds, with
fixed authors and dates so its commit ids never change."""

import json
import os
import subprocess

import yaml
from conftest import BASES
from scripted_model import Call, call, calls, text

from agent import cli

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


def opening_text(payload):
    """The text of a request's first user message (the OpenAI-compatible wire joins its blocks)."""
    content = next(m for m in payload["messages"] if m["role"] == "user")["content"]
    return content if isinstance(content, str) else "\n\n".join(part["text"] for part in content)


def unmarked(answer):
    """The scripted answer quoting tool results, without the "Error: " the OpenAI-compatible wire
    puts before a failed call's result (the Anthropic wire marks it is_error instead)."""
    return " | ".join(part.removeprefix("Error: ") for part in answer.strip().split(" | "))


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
    read_only = [name for name in tool_names(run.payloads[0]) if name not in ("Agent", "SendMessage", "Edit", "Write",
                                                                               "NotebookEdit")]
    assert "Read" in read_only and tool_names(plan[0]) == read_only  # all but delegating and editing


def test_explore_and_plan_start_without_memory_or_git_the_others_with_both(agent):
    make_repository(agent)
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read")
    agent.script(
        call("Agent", description="explore", prompt="Explore it.", subagent_type="Explore", run_in_background=False),
        text("explored"),
        call("Agent", description="plan", prompt="Plan it.", subagent_type="Plan", run_in_background=False),
        text("planned"),
        call("Agent", description="review", prompt="Review it.", subagent_type="reviewer", run_in_background=False),
        text("reviewed"),
        call("Agent", description="help", prompt="Help with it.", run_in_background=False),
        text("helped"),
        text("all done"),
    )
    run = agent.run("Explore, plan, review and help.")
    assert run.exit_code == 0 and run.stdout.strip() == "all done"
    for marker in (EXPLORE, PLAN):
        [first] = requests_of(run, marker)
        assert "MEMORY-MARKER-7" not in first and "gitStatus" not in first and "feature-x" not in first
        assert "second commit" not in first
    snapshot = ("# gitStatus\\nThis is the git status at the start of the conversation. Note that this status is a "
                "snapshot in time, and will not update during the conversation.\\n\\nCurrent branch: feature-x\\n\\n"
                "Main branch (you will usually use this for PRs): main\\n\\nGit user: Test User\\n\\nStatus:\\n"
                " M a.txt\\n?? .claude/\\n?? notes.txt\\n\\nRecent commits:\\n")
    for marker in (REVIEWER, "You are a general-purpose agent."):
        [first] = requests_of(run, marker)
        assert "MEMORY-MARKER-7" in first and snapshot in first and " second commit\\n" in first
        assert first.index("MEMORY-MARKER-7") < first.index("# gitStatus") < first.index("Review it." if marker == REVIEWER else "Help with it.")
    main = json.dumps(run.payloads[0])
    assert "MEMORY-MARKER-7" in main and snapshot in main


def test_the_snapshot_names_the_main_branch_and_a_detached_head_and_cuts_a_huge_status(agent):
    make_repository(agent)
    git(agent, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    git(agent, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    git(agent, "checkout", "-q", "--detach")
    for number in range(300):
        agent.write(f"untracked_file_with_a_long_name_{number:03d}.txt", "x\n")
    agent.script(text("ok"))
    run = agent.run("Hello.")
    assert run.exit_code == 0
    block = opening_text(run.payloads[0]).split("# gitStatus", 1)[1]
    assert "Current branch: HEAD\n\nMain branch (you will usually use this for PRs): trunk\n\n" in block
    status = block.split("Status:\n", 1)[1].split("\n... (truncated because it exceeds 2k characters.", 1)[0]
    assert len(status) == 2000 and "untracked_file_with_a_long_name_299" not in block
    assert ('... (truncated because it exceeds 2k characters. If you need more information, run "git status" '
            "using Bash)\n\nRecent commits:\n") in block


def test_no_snapshot_outside_a_repository(agent):
    agent.write("CLAUDE.md", MEMORY + "\n")
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read")
    agent.script(call("Agent", description="review", prompt="Review it.", subagent_type="reviewer",
                      run_in_background=False), text("reviewed"), text("done"))
    run = agent.run("Review it.")
    assert run.exit_code == 0
    assert all("gitStatus" not in body for body in run.bodies)
    assert "MEMORY-MARKER-7" in requests_of(run, REVIEWER)[0]


def test_include_git_instructions_false_turns_the_snapshot_off_and_the_variable_wins(agent, monkeypatch):
    make_repository(agent)
    agent.settings({"includeGitInstructions": False}, where="project")
    agent.script(text("first"))
    off = agent.run("Hello.")
    assert off.exit_code == 0 and all("gitStatus" not in body for body in off.bodies)
    assert "MEMORY-MARKER-7" in off.bodies[0]
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", "0")
    agent.script(text("second"))
    on = agent.run("Hello.")
    assert on.exit_code == 0 and "Current branch: feature-x" in on.bodies[0]


def test_omit_claude_md_keeps_memory_out_of_that_agent_but_not_a_session_run_as_it(agent):
    make_repository(agent)
    agent.agent_file("quiet.md", "quiet", "Quiet one.", "QUIET-BODY: work from the task alone.",
                     "tools: Read\nomitClaudeMd: true")
    agent.script(call("Agent", description="quiet", prompt="Do it quietly.", subagent_type="quiet",
                      run_in_background=False), text("quiet done"), text("done"))
    run = agent.run("Ask the quiet agent.")
    assert run.exit_code == 0
    [first] = requests_of(run, "QUIET-BODY")
    assert "MEMORY-MARKER-7" not in first and "Current branch: feature-x" in first
    agent.script(text("as quiet"))
    session = agent.run("Hello.", "--agent", "quiet")
    assert session.exit_code == 0
    # run as the session, its omitClaudeMd is ignored; a custom agent with its own prompt has no snapshot
    assert "MEMORY-MARKER-7" in session.bodies[0] and "gitStatus" not in session.bodies[0]


def test_a_replay_shows_the_recorded_snapshot_after_the_repository_changed(agent):
    make_repository(agent)
    agent.script(text("snapshot seen"))
    run = agent.run("What branch am I on?")
    assert run.exit_code == 0 and "Current branch: feature-x" in run.bodies[0]
    setup = yaml.safe_load(run.cassette.read_text())["setup"]
    assert setup["git_status"]["branch"] == "feature-x" and "second commit" in setup["git_status"]["commits"]
    git(agent, "checkout", "-q", "-b", "later")
    agent.write("c.txt", "c\n")
    git(agent, "add", "c.txt")
    git(agent, "commit", "-q", "-m", "third commit")
    for flags in ((), ("--replay-tools",)):
        replayed = agent.replay(*flags)
        assert replayed.exit_code == 0 and replayed.stdout.strip() == "snapshot seen", replayed.stderr
    elsewhere = agent.workspace.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "CLAUDE.md").write_text(MEMORY + "\n")
    moved = agent.replay(cwd=elsewhere)  # no repository at all: the recorded snapshot still
    assert moved.exit_code == 0 and moved.stdout.strip() == "snapshot seen", moved.stderr


def test_a_repository_cannot_make_the_snapshot_run_its_commands(agent, model, monkeypatch):
    """A live run each time (the scripted model answers it, no cassette): a replay takes no snapshot."""
    make_repository(agent)
    ran = agent.workspace.parent / "ran"
    git(agent, "config", "filter.sneaky.clean", f"touch {ran}-clean; cat")
    git(agent, "config", "filter.sneaky.process", f"touch {ran}-process")
    git(agent, "config", "filter.sneaky.required", "true")
    git(agent, "config", "core.fsmonitor", f"touch {ran}-fsmonitor; true")
    git(agent, "config", "core.pager", f"touch {ran}-pager; cat")
    git(agent, "config", "log.showSignature", "true")
    git(agent, "config", "gpg.program", f"{ran}-gpg")
    agent.write(".gitattributes", "*.txt filter=sneaky\n")
    agent.write("a.txt", "a changed again, after the index was written\n")
    monkeypatch.setenv(BASES[agent.provider], model.base + ("/api/v1" if agent.provider == "openrouter" else ""))
    model.script(text("ok"))
    assert cli.main(["-p", "Hello."]) == 0
    sent = model.requests[0].raw
    assert "Current branch: feature-x" in sent and " M a.txt" in sent and "second commit" in sent
    assert not list(agent.workspace.parent.glob("ran-*"))


def test_the_variables_that_switch_built_in_agents_off(agent, monkeypatch):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS", "1")
    agent.script(call("Agent", description="explore", prompt="Explore it.", subagent_type="Explore",
                      run_in_background=False), lambda request: text(request.tool_results()[0]))
    read_only_off = agent.run("Explore it.")
    assert unmarked(read_only_off.stdout) == "Agent type 'Explore' not found. Available agents: general-purpose, reviewer"
    catalog = json.dumps(read_only_off.payloads[0])
    assert "- Explore:" not in catalog and "- Plan:" not in catalog and "- general-purpose:" in catalog
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS")
    monkeypatch.setenv("CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS", "1")
    agent.script(calls(Call("Agent", {"description": "any", "prompt": "Do it.", "run_in_background": False}),
                       Call("Agent", {"description": "gp", "prompt": "Do it.", "subagent_type": "general-purpose",
                                      "run_in_background": False})),
                 lambda request: text(" | ".join(request.tool_results())))
    none_left = agent.run("Delegate it.")
    assert unmarked(none_left.stdout) == (
        "subagent_type is required: the general-purpose agent is not available in this session. Available agents: "
        "reviewer | Agent type 'general-purpose' not found. Available agents: reviewer")
    assert "- general-purpose:" not in json.dumps(none_left.payloads[0])
