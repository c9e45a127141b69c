"""Claude Code's second tool filter: a background agent keeps every MCP tool and only the built-ins
of the subagents page's allow-list (Read, Grep, Glob, Bash, Edit, Write, NotebookEdit, WebFetch,
WebSearch, TodoWrite, Skill, TaskStop, SendMessage, ... and Agent by the depth cap), whether
inherited or named in its tools; the same definition in the foreground keeps them all. An agent
whose tools are all dropped is refused. Both wire formats."""

import json

from scripted_model import call, text

from agent.subagents.background_tools import BACKGROUND_BUILTINS

FORE, BACK = "TASK: in the foreground.", "TASK: in the background."


def tool_names(payload):
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def first_user(payload):
    return json.dumps([m for m in payload["messages"] if m["role"] == "user"][:1])


def test_a_background_agent_keeps_only_the_allowed_built_ins(agent):
    agent.script(call("Agent", description="fore", prompt=FORE, subagent_type="general-purpose", run_in_background=False),
                 call("Agent", description="back", prompt=BACK, subagent_type="general-purpose"),
                 text("Launched."), text("Both done."))
    agent.route(FORE, text("foreground report"))
    agent.route(BACK, text("background report"))
    run = agent.run("Run one agent in the foreground, one in the background.")
    assert run.exit_code == 0 and run.stdout == "Both done.\n", run.stderr
    (fore,) = [p for p in run.payloads if FORE in first_user(p)]
    (back,) = [p for p in run.payloads if BACK in first_user(p)]
    foreground, background = tool_names(fore), tool_names(back)
    assert "TaskCreate" in foreground and "TaskCreate" not in background  # dropped in the background only
    assert background == [name for name in foreground if name in BACKGROUND_BUILTINS]
    assert {"Read", "Bash", "Edit", "Write", "Grep", "Glob", "TaskStop"} <= set(background)


def test_a_background_agent_whose_tools_are_all_dropped_fails_and_runs_in_the_foreground(agent):
    agent.agent_file("planner.md", "planner", "Plans the work.", "PLANNER BODY", "tools: TaskCreate, TaskList")
    agent.script(call("Agent", description="back", prompt=BACK, subagent_type="planner"), text("Launched."),
                 lambda request: text("Then: " + json.dumps(request.messages[-1])))
    run = agent.run("Plan in the background.")
    assert run.exit_code == 0, run.stderr
    assert "<status>failed</status>" in run.stdout  # its notification says why
    assert "Agent 'planner' would be spawned with zero tools: in the background it keeps only" in run.stdout
    assert not any(BACK in first_user(p) for p in run.payloads)  # it never sent a request

    agent.script(call("Agent", description="fore", prompt=FORE, subagent_type="planner", run_in_background=False),
                 text("Done."))
    agent.route(FORE, text("planned"))
    again = agent.run("Plan in the foreground.")
    assert again.exit_code == 0 and again.stdout == "Done.\n", again.stderr
    (fore,) = [p for p in again.payloads if FORE in first_user(p)]
    assert tool_names(fore) == ["TaskCreate", "TaskList"]
