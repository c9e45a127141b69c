"""Per-agent permission modes on both wire formats: a definition's `permissionMode` combined with
the session's as Claude Code's subagents page tells it (shown by whether the subagent's Write
happens and the refusal it reads), the Agent tool under dontAsk (it needs an allow rule), dontAsk
never asking a person, and a recorded --agents' granting mode left out of someone else's cassette."""

from __future__ import annotations

import json
import shutil

import pytest

from agent.permissions.modes import MODES, agent_mode
from pty_session import start  # noqa: F401 (start is the fixture the interactive tests use)
from scripted_model import call, text

BODY = "You are the writer. Write the file you are asked to write."
TASK = "Write out.txt with the word hi."
PLAN_REFUSAL = "is refused because plan mode permits only read-only tools"
APPROVAL_REFUSAL = "needs approval, and none can be given in -p mode"
DONT_ASK_REFUSAL = "is refused because the session runs in dontAsk mode"


def start_writer(**arguments):
    """The main conversation's Agent call starting the writer, in the foreground (its report is the result)."""
    return call("Agent", description="write out.txt", prompt=TASK, subagent_type="writer", run_in_background=False,
                **arguments)


def writer(agent, mode: str | None) -> None:
    """A user agent `writer` declaring `mode` (None: no permissionMode), scripted to Write out.txt."""
    # the user's own agent: a project agent's wider permissionMode needs a trusted workspace
    agent.agent_file("writer.md", "writer", "Writes files.", BODY, f"permissionMode: {mode}" if mode else "", user=True)
    agent.route(TASK, call("Write", file_path="out.txt", content="hi\n"), text("writer done"))


def writer_results(run) -> str:
    """Everything the writer's requests carry (its Write result among it)."""
    return "\n".join(json.dumps(p) for p in run.payloads if BODY in json.dumps(p))


# The observed table (Claude Code 2.1.332, ../shared/reference/claude-code-subagents-observed.md):
# the agent's permissionMode, the session's --permission-mode, and what the subagent's Write meets
# (None: it is written).
OBSERVED = [
    ("acceptEdits", "default", None),
    ("acceptEdits", "dontAsk", None),
    ("bypassPermissions", "default", APPROVAL_REFUSAL),
    (None, "default", APPROVAL_REFUSAL),
    ("plan", "acceptEdits", None),
    ("plan", "bypassPermissions", None),
    ("default", "acceptEdits", None),
    ("acceptEdits", "plan", PLAN_REFUSAL),
    ("dontAsk", "default", DONT_ASK_REFUSAL),
]


@pytest.mark.parametrize(("declared", "session", "refusal"), OBSERVED,
                         ids=[f"{d or 'unset'}-in-{s}" for d, s, _ in OBSERVED])
def test_the_agents_mode_combines_with_the_sessions_as_the_table_says(agent, declared, session, refusal):
    writer(agent, declared)
    agent.script(start_writer(), text("all done"))
    allow = ["--allowedTools", "Agent(writer)"] if session == "dontAsk" else []  # dontAsk: Agent needs a rule
    run = agent.run("Have the writer write out.txt.", "--permission-mode", session, *allow)
    assert run.exit_code == 0 and run.stdout.strip() == "all done"
    written = agent.workspace / "out.txt"
    seen = writer_results(run)
    assert "writer done" in json.dumps(run.payloads[-1])  # the report reached the main conversation
    if refusal is None:
        assert written.read_text() == "hi\n"
        assert "refused" not in seen and "needs approval" not in seen
    else:
        assert not written.exists()
        assert refusal in seen


@pytest.mark.parametrize(("rule", "runs"), [(None, False), ("Agent", True), ("Agent(writer)", True),
                                             ("Agent(Explore)", False)])
def test_under_dont_ask_the_agent_tool_needs_an_allow_rule(agent, rule, runs):
    writer(agent, "acceptEdits")
    agent.script(start_writer(), lambda request: text("main saw: " + request.tool_results()[0][:300]))
    run = agent.run("Have the writer write out.txt.", "--permission-mode", "dontAsk",
                    *(["--allowedTools", rule] if rule else []))
    assert run.exit_code == 0
    assert bool(writer_results(run)) is runs  # a refused call starts no subagent: no request of its own
    assert (agent.workspace / "out.txt").exists() is runs
    if not runs:
        assert run.stdout.startswith("main saw: ") and ("Agent 'writer' is refused because the session runs in dontAsk mode" in run.stdout
                and "--allowedTools 'Agent(writer)'" in run.stdout)


def test_a_recorded_agents_granting_mode_is_left_out_of_an_unvouched_regression_replay(agent, tmp_path):
    agent.settings({"permissions": {"defaultMode": "default"}})  # the user's own mode, which a replay keeps
    agent.route(TASK, call("Write", file_path="out.txt", content="hi\n"), text("writer done"))
    agent.script(start_writer(), text("all done"))
    agents = json.dumps({"writer": {"description": "Writes files.", "prompt": BODY, "permissionMode": "acceptEdits"}})
    run = agent.run("Have the writer write out.txt.", "--agents", agents)
    assert run.exit_code == 0 and (agent.workspace / "out.txt").exists()  # the user's own flag: it wrote
    elsewhere = tmp_path / "received"
    elsewhere.mkdir()
    copy = shutil.copy(run.cassette, elsewhere / "theirs.yaml")
    folder = tmp_path / "fresh"
    folder.mkdir()
    replayed = agent.replay(cwd=folder, cassette=copy)
    assert not (folder / "out.txt").exists()
    assert "or a permissionMode that grants more" in replayed.stderr
    tools_only = agent.replay("--replay-tools", cwd=folder, cassette=copy)  # runs nothing, so it may follow it
    assert tools_only.exit_code == 0 and tools_only.stdout.strip() == "all done" and not (folder / "out.txt").exists()


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_dont_ask_never_asks_in_an_interactive_session(model, start, provider):
    model.script(call("Bash", command="touch asked.txt"), lambda request: text("got: " + request.tool_results()[0][:120]))
    session = start("--permission-mode", "dontAsk", bypass=False, provider=provider)
    session.ready()
    session.send("Touch the file")
    session.expect("got: (Error: )?Bash command")  # answered without a question: nobody had to say no
    assert "Allow Bash?" not in session.seen
    assert "runs in dontAsk mode" in json.dumps(model.requests[-1].body)
    assert not (session.workspace / "asked.txt").exists()
    session.ready()
    session.send("/exit")
    assert session.end() == 0


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_an_agent_declaring_dont_ask_asks_nobody_in_a_default_interactive_session(model, start, provider):
    model.route(TASK, call("Write", file_path="out.txt", content="hi\n"),
                lambda request: text("writer got: " + request.tool_results()[0][:100]))
    model.script(start_writer(), lambda request: text("main got: " + request.reports()[0][:200]))
    session = start(bypass=False, provider=provider)
    folder = session.workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "writer.md").write_text(f"---\nname: writer\ndescription: Writes files.\npermissionMode: dontAsk\n---\n\n{BODY}\n")
    session.ready()
    session.send("Have the writer write out.txt.")
    session.expect("main got: (Error: )?writer got: (Error: )?Write of 'out.txt' is refused because the session runs in "
                   "dontAsk mode")
    assert "Allow Write?" not in session.seen
    assert not (session.workspace / "out.txt").exists()
    session.ready()
    session.send("/exit")
    assert session.end() == 0


# What a subagent runs in, by the mode it is started in (rows) and the one it declares (columns,
# in this order); "plan!" is plan mode that asks nobody (a declared dontAsk kept in plan).
DECLARED = (None, "default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto")
TABLE = {
    "default":           ("default", "default", "acceptEdits", "default", "plan", "dontAsk", "auto"),
    "dontAsk":           ("dontAsk", "default", "acceptEdits", "dontAsk", "plan", "dontAsk", "auto"),
    "acceptEdits":       ("acceptEdits",) * 7,
    "bypassPermissions": ("bypassPermissions",) * 7,
    "auto":              ("auto",) * 7,
    "plan":              ("plan", "plan", "plan", "plan", "plan", "plan!", "plan"),
}


@pytest.mark.parametrize("parent", MODES)
def test_the_mode_table(parent):
    got = tuple(mode + ("!" if quiet else "") for mode, quiet in (agent_mode(d, parent) for d in DECLARED))
    assert got == TABLE[parent]


def test_a_quiet_plan_parent_stays_quiet_and_an_unknown_mode_inherits():
    assert agent_mode("acceptEdits", "plan", parent_quiet=True) == ("plan", True)
    assert agent_mode(None, "plan", parent_quiet=True) == ("plan", True)
    assert agent_mode("sudo", "default") == ("default", False)
    assert agent_mode(["acceptEdits"], "dontAsk") == ("dontAsk", False)


def test_a_bad_permission_mode_is_one_warning_and_the_agent_inherits(agent):
    writer(agent, "yolo")
    agent.script(start_writer(), text("all done"))
    run = agent.run("Have the writer write out.txt.", "--permission-mode", "default")
    assert run.exit_code == 0 and not (agent.workspace / "out.txt").exists()
    assert run.stderr.count("permissionMode should be one of default, acceptEdits") == 1
    assert APPROVAL_REFUSAL in writer_results(run)


def test_an_untrusted_project_agent_cannot_give_itself_a_wider_mode(agent):
    agent.settings({})  # default mode
    agent.agent_file("writer.md", "writer", "Writes files.", BODY, "permissionMode: acceptEdits")
    agent.route(TASK, call("Write", file_path="out.txt", content="hi\n"), text("writer done"))
    agent.route(TASK, call("Write", file_path="out.txt", content="hi\n"), text("writer done"))
    agent.script(start_writer(), text("done"), start_writer(), text("done"))
    untrusted = agent.run("Write it.")
    assert "Ignoring the permissionMode of the project agent 'writer'" in untrusted.stderr
    assert not (agent.workspace / "out.txt").exists() and APPROVAL_REFUSAL in writer_results(untrusted)
    trusted = agent.run("Write it.", "--trust-workspace")
    assert "permissionMode" not in trusted.stderr and (agent.workspace / "out.txt").read_text() == "hi\n"
